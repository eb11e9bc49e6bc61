//! The built-in profiles' rules, named once with the documents that set them, for the rows to
//! use: limits, dated transitions and the reasons for refusals.

use crate::policy::rules::{Limits, Rule, Status, Transition, TransitionStatus};

pub(super) const APPROVED: Rule = Rule::approved(Limits::NONE);

/// SP 800-131A Rev. 2 §2 and §3: secrets must carry at least 112 bits of security strength.
pub(super) const AT_LEAST_112_BIT_SECRET: Limits = Limits {
    min_secret_bytes: Some(14),
    ..Limits::NONE
};

/// The TLS 1.2 KDF (SP 800-135 Rev. 1 §4.2.2) as FIPS 140-3 IG D.Q approves it: a 112-bit
/// secret, and the master secret only as RFC 7627's extended master secret.
pub(super) const TLS12_KDF_WITH_EMS: Rule = Rule::approved(Limits {
    extended_master_secret_only: true,
    ..AT_LEAST_112_BIT_SECRET
});

/// IG C.H: an AES-GCM IV must be generated inside the module's boundary; a caller-chosen IV
/// makes the encryption non-approved.
pub(super) const FIPS_GCM: Rule = Rule::approved(Limits {
    caller_nonce_approved: false,
    ..Limits::NONE
});

/// SP 800-56C Rev. 2 HKDF as AWS-LC's validated module approves it: a 112-bit secret, a salt
/// (§4.1: an absent salt is a zero string; the validated module flags an empty one not
/// approved) and a non-empty info, which carries the context SP 800-56C requires (its indicator,
/// `HKDF_verify_service_indicator`, refuses an empty one).
pub(super) const FIPS_HKDF: Rule = Rule::approved(Limits {
    min_secret_bytes: Some(14),
    min_salt_bytes: Some(1),
    min_info_bytes: Some(1),
    ..Limits::NONE
});

/// SP 800-132: salt ≥ 128 bits (§5.1), ≥ 1000 iterations (§5.2), derived key ≥ 112 bits (§5.3),
/// and a password of at least 112 bits per SP 800-131A.
pub(super) const FIPS_PBKDF2: Rule = Rule::approved(Limits {
    min_secret_bytes: Some(14),
    min_salt_bytes: Some(16),
    min_iterations: Some(1000),
    min_output_bytes: Some(14),
    ..Limits::NONE
});

/// FIPS 186-5 §5.1 and SP 800-131A: RSA moduli of at least 2048 bits; AWS-LC's validated
/// signature generation covers 2048, 3072 and 4096.
pub(super) const FIPS_RSA: Rule = Rule::approved(Limits {
    min_key_bits: Some(2048),
    max_key_bits: Some(4096),
    ..Limits::NONE
})
.with_transitions(NIST_IR_8547_RSA);

/// Outside FIPS we still refuse RSA below 2048 bits and stop at what AWS-LC generates.
pub(super) const DEFAULT_RSA: Rule = Rule::approved(Limits {
    min_key_bits: Some(2048),
    max_key_bits: Some(8192),
    ..Limits::NONE
})
.with_transitions(NIST_IR_8547_RSA);

/// NIST's end of SHA-1: disallowed for every use after 31 December 2030.
pub(super) const SHA1_END: Transition = Transition {
    from: "2031-01-01",
    status: TransitionStatus::Disallowed,
    below_key_bits: None,
    source: "NIST SP 800-131A Rev. 3 (initial public draft, October 2024) and NIST's SHA-1 \
             retirement announcement of 15 December 2022: SHA-1 disallowed after 31 December 2030",
};

/// SP 800-131A §9: SHA-1 signature generation disallowed after 2013, verification legacy use.
pub(super) const SHA1_SIGNATURES_LEGACY: Transition = Transition {
    from: "2014-01-01",
    status: TransitionStatus::LegacyUseOnly,
    below_key_bits: None,
    source: "NIST SP 800-131A (January 2011) and Rev. 2 (March 2019), hash functions (§9): \
             SHA-1 signature generation disallowed after 2013, signature verification legacy use",
};

pub(super) const SHA1_TRANSITIONS: &[Transition] = &[SHA1_END];
pub(super) const SHA1_SIGNATURE_TRANSITIONS: &[Transition] = &[SHA1_SIGNATURES_LEGACY, SHA1_END];

/// NIST IR 8547 (initial public draft, November 2024), its transition tables: quantum-vulnerable
/// public-key algorithms at 128 bits of security or more are disallowed after 2035.
pub(super) const QUANTUM_VULNERABLE_END: Transition = Transition {
    from: "2036-01-01",
    status: TransitionStatus::Disallowed,
    below_key_bits: None,
    source: "NIST IR 8547 ipd (November 2024), transition of quantum-vulnerable digital \
             signatures and key establishment: RSA, ECDSA, EdDSA and (EC)DH disallowed after 2035",
};

/// NIST IR 8547 ipd: 112-bit-strength RSA (moduli below 3072 bits) deprecated
/// after 2030.
pub(super) const RSA_112_BIT_DEPRECATED: Transition = Transition {
    from: "2031-01-01",
    status: TransitionStatus::Deprecated,
    below_key_bits: Some(3072),
    source: "NIST IR 8547 ipd (November 2024), transition of quantum-vulnerable digital \
             signatures and key establishment: RSA at 112 bits of security (2048-bit moduli) \
             deprecated after 2030",
};

/// ECDSA, EdDSA and ECDH on the curves Regula offers (P-256 and up, Curve25519: 128 bits of
/// security or more; no P-224).
pub(super) const NIST_IR_8547_ECC: &[Transition] = &[QUANTUM_VULNERABLE_END];
pub(super) const NIST_IR_8547_RSA: &[Transition] =
    &[RSA_112_BIT_DEPRECATED, QUANTUM_VULNERABLE_END];

/// SP 800-131A Rev. 2 §9: SHA-1 is acceptable for non-digital-signature applications (hashing,
/// HMAC, KDFs) until NIST's transition ends.
pub(super) const SHA1_HASHING: Rule = APPROVED.with_transitions(SHA1_TRANSITIONS);

pub(super) const FIPS_HMAC_SHA1: Rule =
    Rule::approved(AT_LEAST_112_BIT_SECRET).with_transitions(SHA1_TRANSITIONS);

/// SP 800-131A §9: SHA-1 signature generation is disallowed since 2014; verifying existing
/// signatures is legacy use. Regula creates no SHA-1 signature in any profile.
pub(super) const SHA1_ECDSA_VERIFY_ONLY: Rule =
    APPROVED.with_transitions(SHA1_SIGNATURE_TRANSITIONS);

/// As above; SP 800-131A Rev. 2 §4 admits RSA keys of at least 1024 bits for legacy
/// verification.
pub(super) const SHA1_RSA_VERIFY_ONLY: Rule = Rule::approved(Limits {
    min_key_bits: Some(1024),
    ..Limits::NONE
})
.with_transitions(SHA1_SIGNATURE_TRANSITIONS);

/// RSA-OAEP with SHA-1 (and MGF1-SHA-1), what many PKCS#11 callers ask for by default. SP
/// 800-131A Rev. 2 keeps SHA-1 acceptable outside signatures, but Regula does not claim the
/// SHA-1 variant of the key-transport scheme approved: `fips-140-3` refuses it.
pub(super) const FIPS_RSA_OAEP_SHA1: Rule = Rule::not_approved(
    "RSA-OAEP with SHA-1 is not claimed approved (SP 800-131A: SHA-1 is on its way out); use \
     RSA-OAEP with SHA-256",
    Some("rsa-oaep-sha256"),
);

/// `default` serves RSA-OAEP with SHA-1 to old callers until NIST's end of SHA-1.
pub(super) const DEFAULT_RSA_OAEP_SHA1: Rule = Rule::approved(Limits {
    min_key_bits: Some(2048),
    max_key_bits: Some(8192),
    ..Limits::NONE
})
.with_transitions(SHA1_TRANSITIONS);

pub(super) const ECC_APPROVED: Rule = APPROVED.with_transitions(NIST_IR_8547_ECC);

// ---- CNSA 2.0 (NSA, Commercial National Security Algorithm Suite 2.0, September 2022; CNSA
// 2.0 FAQ, December 2024). CNSA 2.0 builds on FIPS-validated modules, so its rows keep the
// FIPS limits (IV generation, PBKDF2 parameters) and the validated module's own refusals.

pub(super) const CNSA_AES_256_ONLY: &str = "CNSA 2.0 approves AES with 256-bit keys only";
pub(super) const CNSA_SHA_384_512: &str = "CNSA 2.0 hashes with SHA-384 or SHA-512 only";
pub(super) const CNSA_NOT_IN_SUITE: &str = "not in CNSA 2.0 (nor in CNSA 1.0)";
pub(super) const CNSA_P384_ONLY: &str = "the CNSA 1.0 transitional set uses P-384 only; CNSA 2.0 replaces it with ML-KEM-1024 and \
     ML-DSA-87";
pub(super) const CNSA_ML_DSA_87: &str =
    "CNSA 2.0 signs with ML-DSA-87 (NIST security category 5) only";
pub(super) const CNSA_ML_KEM_1024: &str =
    "CNSA 2.0 establishes keys with ML-KEM-1024 (category 5) only";
/// A refusal carried over from another column, pointing at the CNSA 2.0 algorithm to use.
pub(super) const fn cnsa_instead(rule: Rule, alternative: &'static str) -> Rule {
    match rule.status {
        Status::NotApproved { reason, .. } => Rule::not_approved(reason, Some(alternative)),
        _ => rule,
    }
}

pub(super) const CNSA_NOT_SM: Rule = Rule::not_approved("SM algorithms are not in CNSA 2.0", None);

/// The CNSA 1.0 algorithms stay usable while systems move to CNSA 2.0: preferred against from
/// 2026 and gone after 2033 for web browsers, servers and cloud services (the category a TLS
/// endpoint belongs to).
pub(super) const CNSA_1_0_TRANSITION: &[Transition] = &[
    Transition {
        from: "2026-01-01",
        status: TransitionStatus::Deprecated,
        below_key_bits: None,
        source: "NSA CNSA 2.0 (CSA, September 2022; FAQ, December 2024): web browsers, \
                 servers and cloud services support and prefer CNSA 2.0 by 2025",
    },
    Transition {
        from: "2034-01-01",
        status: TransitionStatus::Disallowed,
        below_key_bits: None,
        source: "NSA CNSA 2.0 (CSA, September 2022; FAQ, December 2024): web browsers, \
                 servers and cloud services use CNSA 2.0 exclusively by 2033",
    },
];

/// CNSA 1.0 (CNSSP 15, 2016): ECDH and ECDSA on P-384, transitional under CNSA 2.0.
pub(super) const CNSA_TRANSITIONAL_ECC: Rule = APPROVED.with_transitions(CNSA_1_0_TRANSITION);

/// CNSA 1.0: RSA with moduli of at least 3072 bits (AWS-LC's validated signing stops at 4096),
/// with SHA-384 or SHA-512; transitional under CNSA 2.0.
pub(super) const CNSA_TRANSITIONAL_RSA: Rule = Rule::approved(Limits {
    min_key_bits: Some(3072),
    max_key_bits: Some(4096),
    ..Limits::NONE
})
.with_transitions(CNSA_1_0_TRANSITION);

/// IG C.H applies to GMAC as to GCM: AWS-LC's validated module flags GCM as approved only when
/// it generates the IV itself, and GMAC (SMB 3.1.1 signing) always takes the caller's nonce.
pub(super) const FIPS_GMAC: Rule = Rule::not_approved(
    "GMAC takes the caller's nonce, and AWS-LC's validated module approves GCM only with an IV \
     it generates itself (IG C.H); SMB 3.1.1 can sign with AES-CMAC instead",
    Some("aes-128-cmac"),
);

/// SP 800-38E and IG C.I: AES-XTS is approved for storage with Key1 ≠ Key2 and data units of at
/// most 2^20 blocks; Regula makes both an error in every profile, so what it serves is approved.
pub(super) const FIPS_XTS: Rule = APPROVED;

/// SP 800-38A Addendum approves CBC-CS3, but AWS-LC (validated module or not) has no ciphertext
/// stealing: Regula steals around AWS-LC's AES-256-CBC itself (`service/cbc_cs3.rs`), so that step
/// lies outside the validated boundary and the result is never flagged approved. Only fscrypt file
/// names need it.
pub(super) const AES_CBC_CS3: Rule = Rule::not_approved(
    "CBC-CS3 is an SP 800-38A Addendum mode, but AWS-LC has no ciphertext stealing: Regula \
     steals around AWS-LC's AES-256-CBC itself, outside the validated module's boundary",
    None,
);

/// The Linux kernel derives every fscrypt v2 key (key identifier, per-file keys) with HKDF-SHA512
/// (fs/crypto/hkdf.c); SM4 fscrypt policies cannot be read or written without it, so `gm` serves it
/// flagged, only through `Module::fscrypt_hkdf_sha512` (the fscrypt key hierarchy of `regula-files`).
pub(super) const GM_FSCRYPT_HKDF: Rule = Rule::flagged(
    "HKDF-SHA512 is not a GM/T algorithm; the Linux kernel derives every fscrypt v2 key with it, \
     SM4 policies included, so it is served, never approved, for fscrypt only",
    None,
);

/// The legacy set: never approved in any profile; served flagged by `default` for old protocols
/// (NTLM, netlogon, old file formats), refused by `fips-140-3` and `gm`.
macro_rules! legacy {
    ($reason:literal, $alternative:literal, $gm_alternative:literal) => {
        (
            Rule::not_approved($reason, Some($alternative)),
            Rule::not_approved($reason, Some($alternative)),
            Rule::not_approved($reason, Some($gm_alternative)),
        )
    };
}

pub(super) const MD4_LEGACY: (Rule, Rule, Rule) = legacy!(
    "MD4 is broken (RFC 6150 moved it to Historic); served only for legacy protocols such as NTLM",
    "sha256",
    "sm3"
);
pub(super) const MD5_LEGACY: (Rule, Rule, Rule) = legacy!(
    "MD5 collisions are practical (RFC 6151); never approved, served only for legacy protocols",
    "sha256",
    "sm3"
);
pub(super) const HMAC_MD5_LEGACY: (Rule, Rule, Rule) = legacy!(
    "HMAC-MD5 is not approved (FIPS 198-1 needs an approved hash function); legacy protocols \
     only (NTLMv2)",
    "hmac-sha256",
    "hmac-sm3"
);
pub(super) const RC4_LEGACY: (Rule, Rule, Rule) = legacy!(
    "RC4's keystream is biased (RFC 7465 prohibits it in TLS); never approved, legacy protocols \
     only",
    "aes-256-gcm",
    "sm4-gcm"
);
pub(super) const DES_LEGACY: (Rule, Rule, Rule) = legacy!(
    "single DES has a 56-bit key (FIPS 46-3 withdrawn in 2005); never approved, legacy protocols \
     only (netlogon)",
    "aes-256-cbc",
    "sm4-cbc"
);
pub(super) const TDES_LEGACY: (Rule, Rule, Rule) = legacy!(
    "Triple DES encryption is disallowed since 2024 and decryption is legacy use only \
     (SP 800-131A Rev. 2 §2)",
    "aes-256-cbc",
    "sm4-cbc"
);

/// AWS-LC's validated module does not flag AES-CCM through the SP 800-38C cipher interface (any
/// nonce and tag size), which SMB 3.0 and RFC 4309 need: only its fixed-parameter EVP_AEAD
/// variants are approved services. Checked in a test of the FIPS build.
pub(super) const FIPS_CCM: Rule = Rule::not_approved(
    "AWS-LC's validated module flags AES-CCM as approved only for its fixed EVP_AEAD parameter \
     sets, not for SP 800-38C CCM with a caller-chosen nonce and tag size (as SMB 3.0 uses it)",
    Some("aes-128-gcm"),
);

/// SP 800-38A approves CFB8, but AWS-LC's validated module does not flag it (its indicator
/// covers AES ECB, CBC, CTR, KW, KWP, XTS and the AEADs). Checked in a test of the FIPS build.
pub(super) const FIPS_CFB8: Rule = Rule::not_approved(
    "AWS-LC's validated module does not flag AES-CFB8 as an approved service",
    Some("aes-256-ctr"),
);

/// GM/T approves only the SM algorithms (GM/T 0002 SM4, 0003 SM2, 0004 SM3).
pub(super) const GM_NOT_SM: Rule =
    Rule::not_approved("the GM/T profile approves only SM2, SM3 and SM4", None);

/// FIPS 140-3 approves no SM algorithm (SP 800-140C); a permissive FIPS-based policy may still
/// serve them, flagged.
pub(super) const FIPS_NOT_SM: Rule =
    Rule::not_approved("SM algorithms are not FIPS-approved (SP 800-140C)", None);
