//! The registry: one row per algorithm saying what it is, which self-test covers it, and how
//! every built-in profile rules on it. This table is the policy; code only reads it.

use crate::algorithm::{Algorithm, Family};
use crate::policy::{Limits, Profile, Rule, Status, Transition, TransitionStatus};

/// Who implements an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// AWS-LC through aws-lc-rs (the validated module in a `fips` build).
    AwsLc,
    /// Regula's own SM implementations (crate regula-sm), outside any FIPS boundary.
    RegulaSm,
}

/// One algorithm's row.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub algorithm: Algorithm,
    /// CLI and policy-file name.
    pub name: &'static str,
    pub family: Family,
    pub provider: Provider,
    /// The power-on known-answer self-test that covers this algorithm's implementation.
    pub self_test: &'static str,
    /// The pairwise consistency test run after each key generation, if any.
    pub pct: Option<&'static str>,
    pub default: Rule,
    pub fips_140_3: Rule,
    pub gm: Rule,
    pub cnsa_2_0: Rule,
}

impl Entry {
    pub fn rule(&self, profile: Profile) -> Rule {
        match profile {
            Profile::Default => self.default,
            Profile::Fips1403 => self.fips_140_3,
            Profile::Gm => self.gm,
            Profile::Cnsa20 => self.cnsa_2_0,
        }
    }
}

/// The row for an algorithm.
pub fn entry(algorithm: Algorithm) -> &'static Entry {
    &REGISTRY[algorithm.index()]
}

const APPROVED: Rule = Rule::approved(Limits::NONE);

/// SP 800-131A Rev. 2 §2 and §3: secrets must carry at least 112 bits of security strength.
const AT_LEAST_112_BIT_SECRET: Limits = Limits {
    min_secret_bytes: Some(14),
    ..Limits::NONE
};

/// IG C.H: an AES-GCM IV must be generated inside the module's boundary; a caller-chosen IV
/// makes the encryption non-approved.
const FIPS_GCM: Rule = Rule::approved(Limits {
    caller_nonce_approved: false,
    ..Limits::NONE
});

/// SP 800-56C Rev. 2 HKDF as AWS-LC's validated module approves it: a 112-bit secret, a salt
/// (§4.1: an absent salt is a zero string; the validated module flags an empty one not
/// approved) and a non-empty info, which carries the context SP 800-56C requires (its indicator,
/// `HKDF_verify_service_indicator`, refuses an empty one).
const FIPS_HKDF: Rule = Rule::approved(Limits {
    min_secret_bytes: Some(14),
    min_salt_bytes: Some(1),
    min_info_bytes: Some(1),
    ..Limits::NONE
});

/// SP 800-132: salt ≥ 128 bits (§5.1), ≥ 1000 iterations (§5.2), derived key ≥ 112 bits (§5.3),
/// and a password of at least 112 bits per SP 800-131A.
const FIPS_PBKDF2: Rule = Rule::approved(Limits {
    min_secret_bytes: Some(14),
    min_salt_bytes: Some(16),
    min_iterations: Some(1000),
    min_output_bytes: Some(14),
    ..Limits::NONE
});

/// FIPS 186-5 §5.1 and SP 800-131A: RSA moduli of at least 2048 bits; AWS-LC's validated
/// signature generation covers 2048, 3072 and 4096.
const FIPS_RSA: Rule = Rule::approved(Limits {
    min_key_bits: Some(2048),
    max_key_bits: Some(4096),
    ..Limits::NONE
})
.with_transitions(NIST_IR_8547_RSA);

/// Outside FIPS we still refuse RSA below 2048 bits and stop at what AWS-LC generates.
const DEFAULT_RSA: Rule = Rule::approved(Limits {
    min_key_bits: Some(2048),
    max_key_bits: Some(8192),
    ..Limits::NONE
})
.with_transitions(NIST_IR_8547_RSA);

/// NIST's end of SHA-1: disallowed for every use after 31 December 2030.
const SHA1_END: Transition = Transition {
    from: "2031-01-01",
    status: TransitionStatus::Disallowed,
    below_key_bits: None,
    source: "NIST SP 800-131A Rev. 3 (initial public draft, October 2024) and NIST's SHA-1 \
             retirement announcement of 15 December 2022: SHA-1 disallowed after 31 December 2030",
};

/// SP 800-131A §9: SHA-1 signature generation disallowed after 2013, verification legacy use.
const SHA1_SIGNATURES_LEGACY: Transition = Transition {
    from: "2014-01-01",
    status: TransitionStatus::LegacyUseOnly,
    below_key_bits: None,
    source: "NIST SP 800-131A (January 2011) and Rev. 2 (March 2019), hash functions (§9): \
             SHA-1 signature generation disallowed after 2013, signature verification legacy use",
};

const SHA1_TRANSITIONS: &[Transition] = &[SHA1_END];
const SHA1_SIGNATURE_TRANSITIONS: &[Transition] = &[SHA1_SIGNATURES_LEGACY, SHA1_END];

/// NIST IR 8547 (initial public draft, November 2024), its transition tables: quantum-vulnerable
/// public-key algorithms at 128 bits of security or more are disallowed after 2035.
const QUANTUM_VULNERABLE_END: Transition = Transition {
    from: "2036-01-01",
    status: TransitionStatus::Disallowed,
    below_key_bits: None,
    source: "NIST IR 8547 ipd (November 2024), transition of quantum-vulnerable digital \
             signatures and key establishment: RSA, ECDSA, EdDSA and (EC)DH disallowed after 2035",
};

/// NIST IR 8547 ipd: 112-bit-strength RSA (moduli below 3072 bits) deprecated
/// after 2030.
const RSA_112_BIT_DEPRECATED: Transition = Transition {
    from: "2031-01-01",
    status: TransitionStatus::Deprecated,
    below_key_bits: Some(3072),
    source: "NIST IR 8547 ipd (November 2024), transition of quantum-vulnerable digital \
             signatures and key establishment: RSA at 112 bits of security (2048-bit moduli) \
             deprecated after 2030",
};

/// ECDSA, EdDSA and ECDH on the curves Regula offers (P-256 and up, Curve25519: 128 bits of
/// security or more; no P-224).
const NIST_IR_8547_ECC: &[Transition] = &[QUANTUM_VULNERABLE_END];
const NIST_IR_8547_RSA: &[Transition] = &[RSA_112_BIT_DEPRECATED, QUANTUM_VULNERABLE_END];

/// SP 800-131A Rev. 2 §9: SHA-1 is acceptable for non-digital-signature applications (hashing,
/// HMAC, KDFs) until NIST's transition ends.
const SHA1_HASHING: Rule = APPROVED.with_transitions(SHA1_TRANSITIONS);

const FIPS_HMAC_SHA1: Rule =
    Rule::approved(AT_LEAST_112_BIT_SECRET).with_transitions(SHA1_TRANSITIONS);

/// SP 800-131A §9: SHA-1 signature generation is disallowed since 2014; verifying existing
/// signatures is legacy use. Regula creates no SHA-1 signature in any profile.
const SHA1_ECDSA_VERIFY_ONLY: Rule = APPROVED.with_transitions(SHA1_SIGNATURE_TRANSITIONS);

/// As above; SP 800-131A Rev. 2 §4 admits RSA keys of at least 1024 bits for legacy
/// verification.
const SHA1_RSA_VERIFY_ONLY: Rule = Rule::approved(Limits {
    min_key_bits: Some(1024),
    ..Limits::NONE
})
.with_transitions(SHA1_SIGNATURE_TRANSITIONS);

const ECC_APPROVED: Rule = APPROVED.with_transitions(NIST_IR_8547_ECC);

// ---- CNSA 2.0 (NSA, Commercial National Security Algorithm Suite 2.0, September 2022; CNSA
// 2.0 FAQ, December 2024). CNSA 2.0 builds on FIPS-validated modules, so its rows keep the
// FIPS limits (IV generation, PBKDF2 parameters) and the validated module's own refusals.

const CNSA_AES_256_ONLY: &str = "CNSA 2.0 approves AES with 256-bit keys only";
const CNSA_SHA_384_512: &str = "CNSA 2.0 hashes with SHA-384 or SHA-512 only";
const CNSA_NOT_IN_SUITE: &str = "not in CNSA 2.0 (nor in CNSA 1.0)";
const CNSA_P384_ONLY: &str = "the CNSA 1.0 transitional set uses P-384 only; CNSA 2.0 replaces it with ML-KEM-1024 and \
     ML-DSA-87";
const CNSA_ML_DSA_87: &str = "CNSA 2.0 signs with ML-DSA-87 (NIST security category 5) only";
const CNSA_ML_KEM_1024: &str = "CNSA 2.0 establishes keys with ML-KEM-1024 (category 5) only";
/// A refusal carried over from another column, pointing at the CNSA 2.0 algorithm to use.
const fn cnsa_instead(rule: Rule, alternative: &'static str) -> Rule {
    match rule.status {
        Status::NotApproved { reason, .. } => Rule::not_approved(reason, Some(alternative)),
        _ => rule,
    }
}

const CNSA_NOT_SM: Rule = Rule::not_approved("SM algorithms are not in CNSA 2.0", None);

/// The CNSA 1.0 algorithms stay usable while systems move to CNSA 2.0: preferred against from
/// 2026 and gone after 2033 for web browsers, servers and cloud services (the category a TLS
/// endpoint belongs to).
const CNSA_1_0_TRANSITION: &[Transition] = &[
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
const CNSA_TRANSITIONAL_ECC: Rule = APPROVED.with_transitions(CNSA_1_0_TRANSITION);

/// CNSA 1.0: RSA with moduli of at least 3072 bits (AWS-LC's validated signing stops at 4096),
/// with SHA-384 or SHA-512; transitional under CNSA 2.0.
const CNSA_TRANSITIONAL_RSA: Rule = Rule::approved(Limits {
    min_key_bits: Some(3072),
    max_key_bits: Some(4096),
    ..Limits::NONE
})
.with_transitions(CNSA_1_0_TRANSITION);

/// IG C.H applies to GMAC as to GCM: AWS-LC's validated module flags GCM as approved only when
/// it generates the IV itself, and GMAC (SMB 3.1.1 signing) always takes the caller's nonce.
const FIPS_GMAC: Rule = Rule::not_approved(
    "GMAC takes the caller's nonce, and AWS-LC's validated module approves GCM only with an IV \
     it generates itself (IG C.H); SMB 3.1.1 can sign with AES-CMAC instead",
    Some("aes-128-cmac"),
);

/// SP 800-38E and IG C.I: AES-XTS is approved for storage with Key1 ≠ Key2 and data units of at
/// most 2^20 blocks; Regula makes both an error in every profile, so what it serves is approved.
const FIPS_XTS: Rule = APPROVED;

/// SP 800-38A Addendum approves CBC-CS3, but AWS-LC (validated module or not) has no ciphertext
/// stealing: Regula steals around AWS-LC's AES-256-CBC itself (`service/cbc_cs3.rs`), so that step
/// lies outside the validated boundary and the result is never flagged approved. Only fscrypt file
/// names need it.
const AES_CBC_CS3: Rule = Rule::not_approved(
    "CBC-CS3 is an SP 800-38A Addendum mode, but AWS-LC has no ciphertext stealing: Regula \
     steals around AWS-LC's AES-256-CBC itself, outside the validated module's boundary",
    None,
);

/// The Linux kernel derives every fscrypt v2 key (key identifier, per-file keys) with HKDF-SHA512
/// (fs/crypto/hkdf.c); SM4 fscrypt policies cannot be read or written without it, so `gm` serves it
/// flagged, only through `regula::fscrypt`.
const GM_FSCRYPT_HKDF: Rule = Rule::flagged(
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

const MD4_LEGACY: (Rule, Rule, Rule) = legacy!(
    "MD4 is broken (RFC 6150 moved it to Historic); served only for legacy protocols such as NTLM",
    "sha256",
    "sm3"
);
const MD5_LEGACY: (Rule, Rule, Rule) = legacy!(
    "MD5 collisions are practical (RFC 6151); never approved, served only for legacy protocols",
    "sha256",
    "sm3"
);
const HMAC_MD5_LEGACY: (Rule, Rule, Rule) = legacy!(
    "HMAC-MD5 is not approved (FIPS 198-1 needs an approved hash function); legacy protocols \
     only (NTLMv2)",
    "hmac-sha256",
    "hmac-sm3"
);
const RC4_LEGACY: (Rule, Rule, Rule) = legacy!(
    "RC4's keystream is biased (RFC 7465 prohibits it in TLS); never approved, legacy protocols \
     only",
    "aes-256-gcm",
    "sm4-gcm"
);
const DES_LEGACY: (Rule, Rule, Rule) = legacy!(
    "single DES has a 56-bit key (FIPS 46-3 withdrawn in 2005); never approved, legacy protocols \
     only (netlogon)",
    "aes-256-cbc",
    "sm4-cbc"
);
const TDES_LEGACY: (Rule, Rule, Rule) = legacy!(
    "Triple DES encryption is disallowed since 2024 and decryption is legacy use only \
     (SP 800-131A Rev. 2 §2)",
    "aes-256-cbc",
    "sm4-cbc"
);

/// AWS-LC's validated module does not flag AES-CCM through the SP 800-38C cipher interface (any
/// nonce and tag size), which SMB 3.0 and RFC 4309 need: only its fixed-parameter EVP_AEAD
/// variants are approved services. Checked in a test of the FIPS build.
const FIPS_CCM: Rule = Rule::not_approved(
    "AWS-LC's validated module flags AES-CCM as approved only for its fixed EVP_AEAD parameter \
     sets, not for SP 800-38C CCM with a caller-chosen nonce and tag size (as SMB 3.0 uses it)",
    Some("aes-128-gcm"),
);

/// SP 800-38A approves CFB8, but AWS-LC's validated module does not flag it (its indicator
/// covers AES ECB, CBC, CTR, KW, KWP, XTS and the AEADs). Checked in a test of the FIPS build.
const FIPS_CFB8: Rule = Rule::not_approved(
    "AWS-LC's validated module does not flag AES-CFB8 as an approved service",
    Some("aes-256-ctr"),
);

/// GM/T approves only the SM algorithms (GM/T 0002 SM4, 0003 SM2, 0004 SM3).
const GM_NOT_SM: Rule = Rule::not_approved("the GM/T profile approves only SM2, SM3 and SM4", None);

/// FIPS 140-3 approves no SM algorithm (SP 800-140C); a permissive FIPS-based policy may still
/// serve them, flagged.
const FIPS_NOT_SM: Rule =
    Rule::not_approved("SM algorithms are not FIPS-approved (SP 800-140C)", None);

macro_rules! row {
    ($algorithm:ident, $name:literal, $family:ident, $test:literal, pct: $pct:expr,
     default: $default:expr, fips: $fips:expr, gm: $gm:expr, cnsa: $cnsa:expr $(,)?) => {
        row!($algorithm, $name, $family, AwsLc, $test, pct: $pct, default: $default, fips: $fips,
            gm: $gm, cnsa: $cnsa)
    };
    ($algorithm:ident, $name:literal, $family:ident, $provider:ident, $test:literal, pct: $pct:expr,
     default: $default:expr, fips: $fips:expr, gm: $gm:expr, cnsa: $cnsa:expr $(,)?) => {
        Entry {
            algorithm: Algorithm::$algorithm,
            name: $name,
            family: Family::$family,
            provider: Provider::$provider,
            self_test: $test,
            pct: $pct,
            default: $default,
            fips_140_3: $fips,
            gm: $gm,
            cnsa_2_0: $cnsa,
        }
    };
}

/// Every algorithm, in [`Algorithm::ALL`] order (a test checks the order).
pub static REGISTRY: [Entry; Algorithm::COUNT] = [
    // SP 800-38D; IV rule per IG C.H.
    row!(Aes128Gcm, "aes-128-gcm", Aead, "AES-GCM", pct: None,
        default: APPROVED, fips: FIPS_GCM, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-gcm"))),
    row!(Aes256Gcm, "aes-256-gcm", Aead, "AES-GCM", pct: None,
        default: APPROVED, fips: FIPS_GCM, gm: GM_NOT_SM,
        cnsa: FIPS_GCM),
    // SP 800-38C: nonce 7–13 bytes, tag 4–16 bytes (even); SMB 3.0 uses 11 and 16.
    row!(Aes128Ccm, "aes-128-ccm", Aead, "AES-CCM", pct: None,
        default: APPROVED, fips: FIPS_CCM, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-gcm"))),
    row!(Aes256Ccm, "aes-256-ccm", Aead, "AES-CCM", pct: None,
        default: APPROVED, fips: FIPS_CCM, gm: GM_NOT_SM,
        cnsa: cnsa_instead(FIPS_CCM, "aes-256-gcm")),
    // RFC 8439; not an SP 800-140C security function.
    row!(ChaCha20Poly1305, "chacha20-poly1305", Aead, "CHACHA20-POLY1305", pct: None,
        default: APPROVED,
        fips: Rule::not_approved("ChaCha20-Poly1305 is not a FIPS-approved cipher (SP 800-140C)",
            Some("aes-256-gcm")),
        gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_NOT_IN_SUITE, Some("aes-256-gcm"))),
    // SP 800-38A.
    row!(Aes128Ctr, "aes-128-ctr", Cipher, "AES-CTR", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-ctr"))),
    row!(Aes256Ctr, "aes-256-ctr", Cipher, "AES-CTR", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    row!(Aes128Cbc, "aes-128-cbc", Cipher, "AES-CBC", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-cbc"))),
    row!(Aes256Cbc, "aes-256-cbc", Cipher, "AES-CBC", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    // SP 800-38E (IEEE 1619): the IV is the 16-byte tweak (the data-unit number); AWS-LC offers
    // XTS with AES-256 only.
    row!(Aes256Xts, "aes-256-xts", Cipher, "AES-XTS", pct: None,
        default: APPROVED, fips: FIPS_XTS, gm: GM_NOT_SM,
        cnsa: FIPS_XTS),
    // SP 800-38A Addendum CBC-CS3 with AES-256 (fscrypt mode 4, file names): our stealing over
    // AWS-LC's CBC, so flagged in every profile.
    row!(Aes256CbcCs3, "aes-256-cbc-cs3", Cipher, "AES-CBC-CS3", pct: None,
        default: AES_CBC_CS3, fips: AES_CBC_CS3, gm: GM_NOT_SM, cnsa: AES_CBC_CS3),
    // SP 800-38A CFB with 8-bit segments (netlogon).
    row!(Aes128Cfb8, "aes-128-cfb8", Cipher, "AES-CFB8", pct: None,
        default: APPROVED, fips: FIPS_CFB8, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-ctr"))),
    row!(Aes256Cfb8, "aes-256-cfb8", Cipher, "AES-CFB8", pct: None,
        default: APPROVED, fips: FIPS_CFB8, gm: GM_NOT_SM,
        cnsa: FIPS_CFB8),
    // SP 800-38F key wrap (KW, RFC 3394) and key wrap with padding (KWP, RFC 5649).
    row!(Aes128Kw, "aes-128-kw", Cipher, "AES-KW", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-kw"))),
    row!(Aes256Kw, "aes-256-kw", Cipher, "AES-KW", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    row!(Aes128Kwp, "aes-128-kwp", Cipher, "AES-KWP", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-kwp"))),
    row!(Aes256Kwp, "aes-256-kwp", Cipher, "AES-KWP", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    // Legacy stream and block ciphers; DES and 3DES take whole 8-byte blocks, no padding.
    row!(Rc4, "rc4", Cipher, "RC4", pct: None,
        default: RC4_LEGACY.0, fips: RC4_LEGACY.1, gm: RC4_LEGACY.2,
        cnsa: cnsa_instead(RC4_LEGACY.1, "aes-256-gcm")),
    row!(DesCbc, "des-cbc", Cipher, "DES-CBC", pct: None,
        default: DES_LEGACY.0, fips: DES_LEGACY.1, gm: DES_LEGACY.2,
        cnsa: cnsa_instead(DES_LEGACY.1, "aes-256-cbc")),
    row!(DesEde3Cbc, "des-ede3-cbc", Cipher, "TDES-CBC", pct: None,
        default: TDES_LEGACY.0, fips: TDES_LEGACY.1, gm: TDES_LEGACY.2,
        cnsa: cnsa_instead(TDES_LEGACY.1, "aes-256-cbc")),
    // RFC 1320 and RFC 1321.
    row!(Md4, "md4", Digest, "MD4", pct: None,
        default: MD4_LEGACY.0, fips: MD4_LEGACY.1, gm: MD4_LEGACY.2,
        cnsa: cnsa_instead(MD4_LEGACY.1, "sha384")),
    row!(Md5, "md5", Digest, "MD5", pct: None,
        default: MD5_LEGACY.0, fips: MD5_LEGACY.1, gm: MD5_LEGACY.2,
        cnsa: cnsa_instead(MD5_LEGACY.1, "sha384")),
    // FIPS 180-4 and FIPS 202.
    row!(Sha1, "sha1", Digest, "SHA-1", pct: None,
        default: SHA1_HASHING, fips: SHA1_HASHING, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("sha384"))),
    row!(Sha224, "sha224", Digest, "SHA2-224", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("sha384"))),
    row!(Sha256, "sha256", Digest, "SHA2-256", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("sha384"))),
    row!(Sha384, "sha384", Digest, "SHA2-384", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    row!(Sha512, "sha512", Digest, "SHA2-512", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    row!(Sha3_256, "sha3-256", Digest, "SHA3-256", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("sha384"))),
    row!(Sha3_384, "sha3-384", Digest, "SHA3-384", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("sha384"))),
    row!(Sha3_512, "sha3-512", Digest, "SHA3-512", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("sha512"))),
    // RFC 2104 with MD5 (NTLMv2).
    row!(HmacMd5, "hmac-md5", Mac, "HMAC-MD5", pct: None,
        default: HMAC_MD5_LEGACY.0, fips: HMAC_MD5_LEGACY.1, gm: HMAC_MD5_LEGACY.2,
        cnsa: cnsa_instead(HMAC_MD5_LEGACY.1, "hmac-sha384")),
    // FIPS 198-1; key length per SP 800-131A.
    row!(HmacSha1, "hmac-sha1", Mac, "HMAC-SHA-1", pct: None,
        default: SHA1_HASHING, fips: FIPS_HMAC_SHA1, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("hmac-sha384"))),
    row!(HmacSha224, "hmac-sha224", Mac, "HMAC-SHA2-224", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("hmac-sha384"))),
    row!(HmacSha256, "hmac-sha256", Mac, "HMAC-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("hmac-sha384"))),
    row!(HmacSha384, "hmac-sha384", Mac, "HMAC-SHA2-384", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM,
        cnsa: Rule::approved(AT_LEAST_112_BIT_SECRET)),
    row!(HmacSha512, "hmac-sha512", Mac, "HMAC-SHA2-512", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM,
        cnsa: Rule::approved(AT_LEAST_112_BIT_SECRET)),
    // SP 800-38B.
    row!(Aes128Cmac, "aes-128-cmac", Mac, "AES-CMAC", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-cmac"))),
    row!(Aes256Cmac, "aes-256-cmac", Mac, "AES-CMAC", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    // SP 800-38D GMAC: GCM with an empty plaintext, the message as additional data.
    row!(Aes128Gmac, "aes-128-gmac", Mac, "AES-GMAC", pct: None,
        default: APPROVED, fips: FIPS_GMAC, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_AES_256_ONLY, Some("aes-256-cmac"))),
    row!(Aes256Gmac, "aes-256-gmac", Mac, "AES-GMAC", pct: None,
        default: APPROVED, fips: FIPS_GMAC, gm: GM_NOT_SM,
        cnsa: cnsa_instead(FIPS_GMAC, "aes-256-cmac")),
    // SP 800-56C Rev. 2 (RFC 5869 construction).
    row!(HkdfSha256, "hkdf-sha256", Kdf, "HKDF-SHA2-256", pct: None,
        default: APPROVED, fips: FIPS_HKDF, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("hkdf-sha384"))),
    row!(HkdfSha384, "hkdf-sha384", Kdf, "HKDF-SHA2-256", pct: None,
        default: APPROVED, fips: FIPS_HKDF, gm: GM_NOT_SM, cnsa: FIPS_HKDF),
    row!(HkdfSha512, "hkdf-sha512", Kdf, "HKDF-SHA2-256", pct: None,
        default: APPROVED, fips: FIPS_HKDF, gm: GM_NOT_SM, cnsa: FIPS_HKDF),
    // SP 800-132.
    row!(Pbkdf2Sha256, "pbkdf2-sha256", Kdf, "PBKDF2", pct: None,
        default: APPROVED, fips: FIPS_PBKDF2, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("pbkdf2-sha384"))),
    row!(Pbkdf2Sha384, "pbkdf2-sha384", Kdf, "PBKDF2", pct: None,
        default: APPROVED, fips: FIPS_PBKDF2, gm: GM_NOT_SM,
        cnsa: FIPS_PBKDF2),
    row!(Pbkdf2Sha512, "pbkdf2-sha512", Kdf, "PBKDF2", pct: None,
        default: APPROVED, fips: FIPS_PBKDF2, gm: GM_NOT_SM,
        cnsa: FIPS_PBKDF2),
    // SP 800-108r1 §4.1 counter mode, HMAC PRF, 32-bit counter before the fixed input (SMB3).
    row!(KbkdfCtrHmacSha256, "kbkdf-ctr-hmac-sha256", Kdf, "KBKDF-CTR-HMAC-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("kbkdf-ctr-hmac-sha384"))),
    row!(KbkdfCtrHmacSha384, "kbkdf-ctr-hmac-sha384", Kdf, "KBKDF-CTR-HMAC-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM,
        cnsa: Rule::approved(AT_LEAST_112_BIT_SECRET)),
    row!(KbkdfCtrHmacSha512, "kbkdf-ctr-hmac-sha512", Kdf, "KBKDF-CTR-HMAC-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM,
        cnsa: Rule::approved(AT_LEAST_112_BIT_SECRET)),
    // fscrypt v2 (Linux fs/crypto/hkdf.c): HKDF-SHA512, empty salt, info "fscrypt\0" ‖ context
    // ‖ extra; an SP 800-56C Rev. 2 HKDF, served only by `regula::fscrypt`.
    row!(FscryptHkdfSha512, "fscrypt-hkdf-sha512", Kdf, "HKDF-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_FSCRYPT_HKDF,
        cnsa: Rule::approved(AT_LEAST_112_BIT_SECRET)),
    // FIPS 186-5 §6 (ECDSA, curves of SP 800-186).
    row!(EcdsaP256, "ecdsa-p256", Signature, "ECDSA-P256-SHA2-256", pct: Some("PCT-ECDSA"),
        default: ECC_APPROVED, fips: ECC_APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_P384_ONLY, Some("ml-dsa-87"))),
    row!(EcdsaP384, "ecdsa-p384", Signature, "ECDSA-P256-SHA2-256", pct: Some("PCT-ECDSA"),
        default: ECC_APPROVED, fips: ECC_APPROVED, gm: GM_NOT_SM,
        cnsa: CNSA_TRANSITIONAL_ECC),
    row!(EcdsaP521, "ecdsa-p521", Signature, "ECDSA-P256-SHA2-256", pct: Some("PCT-ECDSA"),
        default: ECC_APPROVED, fips: ECC_APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_P384_ONLY, Some("ml-dsa-87"))),
    // FIPS 186-5 §7 (EdDSA).
    row!(Ed25519, "ed25519", Signature, "ED25519", pct: Some("PCT-ED25519"),
        default: ECC_APPROVED, fips: ECC_APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_NOT_IN_SUITE, Some("ml-dsa-87"))),
    // FIPS 186-5 §5 (RSASSA-PSS and RSASSA-PKCS1-v1_5).
    row!(RsaPssSha256, "rsa-pss-sha256", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("ml-dsa-87"))),
    row!(RsaPssSha384, "rsa-pss-sha384", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM,
        cnsa: CNSA_TRANSITIONAL_RSA),
    row!(RsaPssSha512, "rsa-pss-sha512", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM,
        cnsa: CNSA_TRANSITIONAL_RSA),
    row!(RsaPkcs1Sha256, "rsa-pkcs1-sha256", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("ml-dsa-87"))),
    row!(RsaPkcs1Sha384, "rsa-pkcs1-sha384", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM,
        cnsa: CNSA_TRANSITIONAL_RSA),
    row!(RsaPkcs1Sha512, "rsa-pkcs1-sha512", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM,
        cnsa: CNSA_TRANSITIONAL_RSA),
    // Verification of existing SHA-1 signatures (RSA PKCS#1 v1.5, ECDSA P-256); no profile
    // creates one.
    row!(RsaPkcs1Sha1, "rsa-pkcs1-sha1", Signature, "RSA-SHA2-256", pct: None,
        default: SHA1_RSA_VERIFY_ONLY, fips: SHA1_RSA_VERIFY_ONLY, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("ml-dsa-87"))),
    row!(EcdsaP256Sha1, "ecdsa-p256-sha1", Signature, "ECDSA-P256-SHA2-256", pct: None,
        default: SHA1_ECDSA_VERIFY_ONLY, fips: SHA1_ECDSA_VERIFY_ONLY, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_SHA_384_512, Some("ml-dsa-87"))),
    // FIPS 204 ML-DSA (pure, empty context), keys as PKCS#8 and SubjectPublicKeyInfo.
    row!(MlDsa44, "ml-dsa-44", Signature, "ML-DSA-44", pct: Some("PCT-ML-DSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_ML_DSA_87, Some("ml-dsa-87"))),
    row!(MlDsa65, "ml-dsa-65", Signature, "ML-DSA-44", pct: Some("PCT-ML-DSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_ML_DSA_87, Some("ml-dsa-87"))),
    row!(MlDsa87, "ml-dsa-87", Signature, "ML-DSA-44", pct: Some("PCT-ML-DSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    // SP 800-56A Rev. 3 ECC CDH.
    row!(EcdhP256, "ecdh-p256", KeyAgreement, "ECDH-P256", pct: Some("PCT-ECDH"),
        default: ECC_APPROVED, fips: ECC_APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_P384_ONLY, Some("ml-kem-1024"))),
    row!(EcdhP384, "ecdh-p384", KeyAgreement, "ECDH-P256", pct: Some("PCT-ECDH"),
        default: ECC_APPROVED, fips: ECC_APPROVED, gm: GM_NOT_SM,
        cnsa: CNSA_TRANSITIONAL_ECC),
    row!(EcdhP521, "ecdh-p521", KeyAgreement, "ECDH-P256", pct: Some("PCT-ECDH"),
        default: ECC_APPROVED, fips: ECC_APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_P384_ONLY, Some("ml-kem-1024"))),
    // RFC 7748; SP 800-186 admits Curve25519 only for EdDSA, not for key agreement.
    row!(X25519, "x25519", KeyAgreement, "X25519", pct: Some("PCT-X25519"),
        default: APPROVED.with_transitions(NIST_IR_8547_ECC),
        fips: Rule::not_approved("X25519 key agreement is not approved (SP 800-56A Rev. 3)",
            Some("ecdh-p256")),
        gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_NOT_IN_SUITE, Some("ml-kem-1024"))),
    // FIPS 203.
    row!(MlKem768, "ml-kem-768", Kem, "ML-KEM-768", pct: Some("PCT-ML-KEM"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: Rule::not_approved(CNSA_ML_KEM_1024, Some("ml-kem-1024"))),
    row!(MlKem1024, "ml-kem-1024", Kem, "ML-KEM-768", pct: Some("PCT-ML-KEM"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM,
        cnsa: APPROVED),
    // SP 800-90A Rev. 1 CTR_DRBG (AES-256), AWS-LC's RAND_bytes.
    row!(CtrDrbg, "ctr-drbg", Random, "CTR_DRBG", pct: None,
        default: APPROVED, fips: APPROVED,
        gm: Rule::not_approved("GM/T 0105-2021 names the SM3 and SM4 generators for GM/T modules",
            Some("sm3-drbg")),
        cnsa: APPROVED),
    // GB/T 32905-2016 (GM/T 0004-2012).
    row!(Sm3, "sm3", Digest, RegulaSm, "SM3", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // GM/T 0042-2015 (HMAC with SM3).
    row!(HmacSm3, "hmac-sm3", Mac, RegulaSm, "HMAC-SM3", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // GB/T 32907-2016 (GM/T 0002-2012) with the modes of GB/T 17964-2021. ECB here takes whole
    // blocks without padding; CBC pads with PKCS#7 like aes-*-cbc.
    row!(Sm4Ecb, "sm4-ecb", Cipher, RegulaSm, "SM4-ECB", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    row!(Sm4Cbc, "sm4-cbc", Cipher, RegulaSm, "SM4-CBC", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    row!(Sm4Ctr, "sm4-ctr", Cipher, RegulaSm, "SM4-CTR", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // GB/T 17964-2021 (SP 800-38A) OFB and CFB with 128-bit segments; OpenSSL's sm4-ofb and
    // sm4-cfb.
    row!(Sm4Ofb, "sm4-ofb", Cipher, RegulaSm, "SM4-OFB", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED, cnsa: CNSA_NOT_SM),
    row!(Sm4Cfb, "sm4-cfb", Cipher, RegulaSm, "SM4-CFB", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED, cnsa: CNSA_NOT_SM),
    // RFC 8998 §4: SM4-GCM and SM4-CCM (SP 800-38D / 38C constructions with SM4).
    row!(Sm4Gcm, "sm4-gcm", Aead, RegulaSm, "SM4-GCM", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    row!(Sm4Ccm, "sm4-ccm", Aead, RegulaSm, "SM4-CCM", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // XTS: IEEE Std 1619 and GB/T 17964-2021, which multiply the tweak differently.
    row!(Sm4Xts, "sm4-xts", Cipher, RegulaSm, "SM4-XTS", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    row!(Sm4XtsGb, "sm4-xts-gb", Cipher, RegulaSm, "SM4-XTS-GB", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // SP 800-38A Addendum CBC-CS3 (fscrypt file names).
    row!(Sm4CbcCs3, "sm4-cbc-cs3", Cipher, RegulaSm, "SM4-CBC-CS3", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // SP 800-38B CMAC, RFC 3566 XCBC-MAC and ISO/IEC 9797-1 MAC algorithm 1 with SM4.
    row!(Sm4Cmac, "sm4-cmac", Mac, RegulaSm, "SM4-CMAC", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    row!(Sm4XcbcMac, "sm4-xcbc-mac", Mac, RegulaSm, "SM4-XCBC-MAC", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // CBC-MAC is secure only for messages of one fixed length; served for interoperability.
    row!(Sm4CbcMac, "sm4-cbc-mac", Mac, RegulaSm, "SM4-CBC-MAC", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // GB/T 32918.2-2016 (GM/T 0003.2-2012): SM2 signature over SM3(Z_A ‖ M), the user ID
    // defaulting to GM/T 0009-2012's `1234567812345678`.
    row!(Sm2Sign, "sm2-sign", Signature, RegulaSm, "SM2-SIGN", pct: Some("PCT-SM2-SIGN"),
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // GB/T 32918.4-2016 (GM/T 0003.4-2012): SM2 public-key encryption.
    row!(Sm2Encrypt, "sm2-encrypt", PublicKeyEncryption, RegulaSm, "SM2-ENCRYPT",
        pct: Some("PCT-SM2-ENCRYPT"), default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // RFC 8998 §3.1: (EC)DHE on curveSM2 (GB/T 32918.1 curve, named group 0x0029) for TLS 1.3.
    row!(Sm2Ecdh, "sm2-ecdh", KeyAgreement, RegulaSm, "SM2-ECDH", pct: Some("PCT-SM2-ECDH"),
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // GB/T 32918.3-2016 (GM/T 0003.3-2012): SM2 key exchange with static and ephemeral keys.
    // Its static keys come from sm2-sign key generation, whose PCT covers them.
    row!(Sm2KeyExchange, "sm2-key-exchange", KeyExchange, RegulaSm, "SM2-KEY-EXCHANGE",
        pct: None, default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED,
        cnsa: CNSA_NOT_SM),
    // GM/T 0105-2021 Annex B (SM3) and Annex E (SM4 CTR) generators, security level 1, seeded
    // from the operating system's entropy. Under `gm` the module's randomness (keys, nonces,
    // IVs, certificate serials) comes from the first of these the policy approves; an AEAD
    // key's nonces are SP 800-38D §8.2.1 sequences from a starting point it draws once.
    row!(Sm3Drbg, "sm3-drbg", Random, RegulaSm, "SM3-DRBG", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED, cnsa: CNSA_NOT_SM),
    row!(Sm4CtrDrbg, "sm4-ctr-drbg", Random, RegulaSm, "SM4-CTR-DRBG", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED, cnsa: CNSA_NOT_SM),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_algorithm_order() {
        for (index, entry) in REGISTRY.iter().enumerate() {
            assert_eq!(
                entry.algorithm.index(),
                index,
                "row for {} is out of order",
                entry.name
            );
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = REGISTRY.iter().map(|entry| entry.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
    }
}
