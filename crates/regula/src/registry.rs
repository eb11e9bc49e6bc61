//! The registry: one row per algorithm saying what it is, which self-test covers it, and how
//! every built-in profile rules on it. This table is the policy; code only reads it.

use crate::algorithm::{Algorithm, Family};
use crate::policy::{Limits, Profile, Rule};

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
}

impl Entry {
    pub fn rule(&self, profile: Profile) -> Rule {
        match profile {
            Profile::Default => self.default,
            Profile::Fips1403 => self.fips_140_3,
            Profile::Gm => self.gm,
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
});

/// Outside FIPS we still refuse RSA below 2048 bits and stop at what AWS-LC generates.
const DEFAULT_RSA: Rule = Rule::approved(Limits {
    min_key_bits: Some(2048),
    max_key_bits: Some(8192),
    ..Limits::NONE
});

/// NIST's announced end of SHA-1 in FIPS 140 validations (transition to be complete by this day).
const SHA1_END: &str = "2030-12-31";

/// SP 800-131A Rev. 2 §9: SHA-1 is acceptable for non-digital-signature applications (hashing,
/// HMAC, KDFs) until NIST's transition ends.
const SHA1_HASHING: Rule = Rule::approved(Limits {
    approved_until: Some(SHA1_END),
    ..Limits::NONE
});

const FIPS_HMAC_SHA1: Rule = Rule::approved(Limits {
    approved_until: Some(SHA1_END),
    ..AT_LEAST_112_BIT_SECRET
});

/// SP 800-131A Rev. 2 §9, Table 8: SHA-1 signature generation is disallowed; verifying existing
/// signatures is legacy use. Regula creates no SHA-1 signature in any profile.
const SHA1_ECDSA_VERIFY_ONLY: Rule = Rule::approved(Limits {
    signing_approved: false,
    approved_until: Some(SHA1_END),
    ..Limits::NONE
});

/// As above; SP 800-131A Rev. 2 §4 admits RSA keys of at least 1024 bits for legacy
/// verification.
const SHA1_RSA_VERIFY_ONLY: Rule = Rule::approved(Limits {
    min_key_bits: Some(1024),
    ..SHA1_ECDSA_VERIFY_ONLY.limits
});

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
     default: $default:expr, fips: $fips:expr, gm: $gm:expr $(,)?) => {
        row!($algorithm, $name, $family, AwsLc, $test, pct: $pct, default: $default, fips: $fips, gm: $gm)
    };
    ($algorithm:ident, $name:literal, $family:ident, $provider:ident, $test:literal, pct: $pct:expr,
     default: $default:expr, fips: $fips:expr, gm: $gm:expr $(,)?) => {
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
        }
    };
}

/// Every algorithm, in [`Algorithm::ALL`] order (a test checks the order).
pub static REGISTRY: [Entry; Algorithm::COUNT] = [
    // SP 800-38D; IV rule per IG C.H.
    row!(Aes128Gcm, "aes-128-gcm", Aead, "AES-GCM", pct: None,
        default: APPROVED, fips: FIPS_GCM, gm: GM_NOT_SM),
    row!(Aes256Gcm, "aes-256-gcm", Aead, "AES-GCM", pct: None,
        default: APPROVED, fips: FIPS_GCM, gm: GM_NOT_SM),
    // SP 800-38C: nonce 7–13 bytes, tag 4–16 bytes (even); SMB 3.0 uses 11 and 16.
    row!(Aes128Ccm, "aes-128-ccm", Aead, "AES-CCM", pct: None,
        default: APPROVED, fips: FIPS_CCM, gm: GM_NOT_SM),
    row!(Aes256Ccm, "aes-256-ccm", Aead, "AES-CCM", pct: None,
        default: APPROVED, fips: FIPS_CCM, gm: GM_NOT_SM),
    // RFC 8439; not an SP 800-140C security function.
    row!(ChaCha20Poly1305, "chacha20-poly1305", Aead, "CHACHA20-POLY1305", pct: None,
        default: APPROVED,
        fips: Rule::not_approved("ChaCha20-Poly1305 is not a FIPS-approved cipher (SP 800-140C)",
            Some("aes-256-gcm")),
        gm: GM_NOT_SM),
    // SP 800-38A.
    row!(Aes128Ctr, "aes-128-ctr", Cipher, "AES-CTR", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Aes256Ctr, "aes-256-ctr", Cipher, "AES-CTR", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Aes128Cbc, "aes-128-cbc", Cipher, "AES-CBC", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Aes256Cbc, "aes-256-cbc", Cipher, "AES-CBC", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // SP 800-38E (IEEE 1619): the IV is the 16-byte tweak (the data-unit number); AWS-LC offers
    // XTS with AES-256 only.
    row!(Aes256Xts, "aes-256-xts", Cipher, "AES-XTS", pct: None,
        default: APPROVED, fips: FIPS_XTS, gm: GM_NOT_SM),
    // SP 800-38A CFB with 8-bit segments (netlogon).
    row!(Aes128Cfb8, "aes-128-cfb8", Cipher, "AES-CFB8", pct: None,
        default: APPROVED, fips: FIPS_CFB8, gm: GM_NOT_SM),
    row!(Aes256Cfb8, "aes-256-cfb8", Cipher, "AES-CFB8", pct: None,
        default: APPROVED, fips: FIPS_CFB8, gm: GM_NOT_SM),
    // SP 800-38F key wrap (KW, RFC 3394) and key wrap with padding (KWP, RFC 5649).
    row!(Aes128Kw, "aes-128-kw", Cipher, "AES-KW", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Aes256Kw, "aes-256-kw", Cipher, "AES-KW", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Aes128Kwp, "aes-128-kwp", Cipher, "AES-KWP", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Aes256Kwp, "aes-256-kwp", Cipher, "AES-KWP", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // Legacy stream and block ciphers; DES and 3DES take whole 8-byte blocks, no padding.
    row!(Rc4, "rc4", Cipher, "RC4", pct: None,
        default: RC4_LEGACY.0, fips: RC4_LEGACY.1, gm: RC4_LEGACY.2),
    row!(DesCbc, "des-cbc", Cipher, "DES-CBC", pct: None,
        default: DES_LEGACY.0, fips: DES_LEGACY.1, gm: DES_LEGACY.2),
    row!(DesEde3Cbc, "des-ede3-cbc", Cipher, "TDES-CBC", pct: None,
        default: TDES_LEGACY.0, fips: TDES_LEGACY.1, gm: TDES_LEGACY.2),
    // RFC 1320 and RFC 1321.
    row!(Md4, "md4", Digest, "MD4", pct: None,
        default: MD4_LEGACY.0, fips: MD4_LEGACY.1, gm: MD4_LEGACY.2),
    row!(Md5, "md5", Digest, "MD5", pct: None,
        default: MD5_LEGACY.0, fips: MD5_LEGACY.1, gm: MD5_LEGACY.2),
    // FIPS 180-4 and FIPS 202.
    row!(Sha1, "sha1", Digest, "SHA-1", pct: None,
        default: SHA1_HASHING, fips: SHA1_HASHING, gm: GM_NOT_SM),
    row!(Sha224, "sha224", Digest, "SHA2-224", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Sha256, "sha256", Digest, "SHA2-256", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Sha384, "sha384", Digest, "SHA2-384", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Sha512, "sha512", Digest, "SHA2-512", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Sha3_256, "sha3-256", Digest, "SHA3-256", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Sha3_384, "sha3-384", Digest, "SHA3-384", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Sha3_512, "sha3-512", Digest, "SHA3-512", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // RFC 2104 with MD5 (NTLMv2).
    row!(HmacMd5, "hmac-md5", Mac, "HMAC-MD5", pct: None,
        default: HMAC_MD5_LEGACY.0, fips: HMAC_MD5_LEGACY.1, gm: HMAC_MD5_LEGACY.2),
    // FIPS 198-1; key length per SP 800-131A.
    row!(HmacSha1, "hmac-sha1", Mac, "HMAC-SHA-1", pct: None,
        default: SHA1_HASHING, fips: FIPS_HMAC_SHA1, gm: GM_NOT_SM),
    row!(HmacSha224, "hmac-sha224", Mac, "HMAC-SHA2-224", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    row!(HmacSha256, "hmac-sha256", Mac, "HMAC-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    row!(HmacSha384, "hmac-sha384", Mac, "HMAC-SHA2-384", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    row!(HmacSha512, "hmac-sha512", Mac, "HMAC-SHA2-512", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    // SP 800-38B.
    row!(Aes128Cmac, "aes-128-cmac", Mac, "AES-CMAC", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(Aes256Cmac, "aes-256-cmac", Mac, "AES-CMAC", pct: None,
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // SP 800-38D GMAC: GCM with an empty plaintext, the message as additional data.
    row!(Aes128Gmac, "aes-128-gmac", Mac, "AES-GMAC", pct: None,
        default: APPROVED, fips: FIPS_GMAC, gm: GM_NOT_SM),
    row!(Aes256Gmac, "aes-256-gmac", Mac, "AES-GMAC", pct: None,
        default: APPROVED, fips: FIPS_GMAC, gm: GM_NOT_SM),
    // SP 800-56C Rev. 2 (RFC 5869 construction).
    row!(HkdfSha256, "hkdf-sha256", Kdf, "HKDF-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    row!(HkdfSha384, "hkdf-sha384", Kdf, "HKDF-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    row!(HkdfSha512, "hkdf-sha512", Kdf, "HKDF-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    // SP 800-132.
    row!(Pbkdf2Sha256, "pbkdf2-sha256", Kdf, "PBKDF2", pct: None,
        default: APPROVED, fips: FIPS_PBKDF2, gm: GM_NOT_SM),
    row!(Pbkdf2Sha384, "pbkdf2-sha384", Kdf, "PBKDF2", pct: None,
        default: APPROVED, fips: FIPS_PBKDF2, gm: GM_NOT_SM),
    row!(Pbkdf2Sha512, "pbkdf2-sha512", Kdf, "PBKDF2", pct: None,
        default: APPROVED, fips: FIPS_PBKDF2, gm: GM_NOT_SM),
    // SP 800-108r1 §4.1 counter mode, HMAC PRF, 32-bit counter before the fixed input (SMB3).
    row!(KbkdfCtrHmacSha256, "kbkdf-ctr-hmac-sha256", Kdf, "KBKDF-CTR-HMAC-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    row!(KbkdfCtrHmacSha384, "kbkdf-ctr-hmac-sha384", Kdf, "KBKDF-CTR-HMAC-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    row!(KbkdfCtrHmacSha512, "kbkdf-ctr-hmac-sha512", Kdf, "KBKDF-CTR-HMAC-SHA2-256", pct: None,
        default: APPROVED, fips: Rule::approved(AT_LEAST_112_BIT_SECRET), gm: GM_NOT_SM),
    // FIPS 186-5 §6 (ECDSA, curves of SP 800-186).
    row!(EcdsaP256, "ecdsa-p256", Signature, "ECDSA-P256-SHA2-256", pct: Some("PCT-ECDSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(EcdsaP384, "ecdsa-p384", Signature, "ECDSA-P256-SHA2-256", pct: Some("PCT-ECDSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(EcdsaP521, "ecdsa-p521", Signature, "ECDSA-P256-SHA2-256", pct: Some("PCT-ECDSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // FIPS 186-5 §7 (EdDSA).
    row!(Ed25519, "ed25519", Signature, "ED25519", pct: Some("PCT-ED25519"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // FIPS 186-5 §5 (RSASSA-PSS and RSASSA-PKCS1-v1_5).
    row!(RsaPssSha256, "rsa-pss-sha256", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM),
    row!(RsaPssSha384, "rsa-pss-sha384", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM),
    row!(RsaPssSha512, "rsa-pss-sha512", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM),
    row!(RsaPkcs1Sha256, "rsa-pkcs1-sha256", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM),
    row!(RsaPkcs1Sha384, "rsa-pkcs1-sha384", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM),
    row!(RsaPkcs1Sha512, "rsa-pkcs1-sha512", Signature, "RSA-SHA2-256", pct: Some("PCT-RSA"),
        default: DEFAULT_RSA, fips: FIPS_RSA, gm: GM_NOT_SM),
    // Verification of existing SHA-1 signatures (RSA PKCS#1 v1.5, ECDSA P-256); no profile
    // creates one.
    row!(RsaPkcs1Sha1, "rsa-pkcs1-sha1", Signature, "RSA-SHA2-256", pct: None,
        default: SHA1_RSA_VERIFY_ONLY, fips: SHA1_RSA_VERIFY_ONLY, gm: GM_NOT_SM),
    row!(EcdsaP256Sha1, "ecdsa-p256-sha1", Signature, "ECDSA-P256-SHA2-256", pct: None,
        default: SHA1_ECDSA_VERIFY_ONLY, fips: SHA1_ECDSA_VERIFY_ONLY, gm: GM_NOT_SM),
    // FIPS 204 ML-DSA (pure, empty context), keys as PKCS#8 and SubjectPublicKeyInfo.
    row!(MlDsa44, "ml-dsa-44", Signature, "ML-DSA-44", pct: Some("PCT-ML-DSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(MlDsa65, "ml-dsa-65", Signature, "ML-DSA-44", pct: Some("PCT-ML-DSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(MlDsa87, "ml-dsa-87", Signature, "ML-DSA-44", pct: Some("PCT-ML-DSA"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // SP 800-56A Rev. 3 ECC CDH.
    row!(EcdhP256, "ecdh-p256", KeyAgreement, "ECDH-P256", pct: Some("PCT-ECDH"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(EcdhP384, "ecdh-p384", KeyAgreement, "ECDH-P256", pct: Some("PCT-ECDH"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(EcdhP521, "ecdh-p521", KeyAgreement, "ECDH-P256", pct: Some("PCT-ECDH"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // RFC 7748; SP 800-186 admits Curve25519 only for EdDSA, not for key agreement.
    row!(X25519, "x25519", KeyAgreement, "X25519", pct: Some("PCT-X25519"),
        default: APPROVED,
        fips: Rule::not_approved("X25519 key agreement is not approved (SP 800-56A Rev. 3)",
            Some("ecdh-p256")),
        gm: GM_NOT_SM),
    // FIPS 203.
    row!(MlKem768, "ml-kem-768", Kem, "ML-KEM-768", pct: Some("PCT-ML-KEM"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    row!(MlKem1024, "ml-kem-1024", Kem, "ML-KEM-768", pct: Some("PCT-ML-KEM"),
        default: APPROVED, fips: APPROVED, gm: GM_NOT_SM),
    // SP 800-90A Rev. 1 CTR_DRBG (AES-256), AWS-LC's RAND_bytes.
    row!(CtrDrbg, "ctr-drbg", Random, "CTR_DRBG", pct: None,
        default: APPROVED, fips: APPROVED,
        gm: Rule::not_approved("GM/T 0105 random number generation is not offered yet", None)),
    // GB/T 32905-2016 (GM/T 0004-2012).
    row!(Sm3, "sm3", Digest, RegulaSm, "SM3", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // GM/T 0042-2015 (HMAC with SM3).
    row!(HmacSm3, "hmac-sm3", Mac, RegulaSm, "HMAC-SM3", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // GB/T 32907-2016 (GM/T 0002-2012) with the modes of GB/T 17964-2021. ECB here takes whole
    // blocks without padding; CBC pads with PKCS#7 like aes-*-cbc.
    row!(Sm4Ecb, "sm4-ecb", Cipher, RegulaSm, "SM4-ECB", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    row!(Sm4Cbc, "sm4-cbc", Cipher, RegulaSm, "SM4-CBC", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    row!(Sm4Ctr, "sm4-ctr", Cipher, RegulaSm, "SM4-CTR", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // GB/T 17964-2021 (SP 800-38A) OFB and CFB with 128-bit segments; OpenSSL's sm4-ofb and
    // sm4-cfb.
    row!(Sm4Ofb, "sm4-ofb", Cipher, RegulaSm, "SM4-OFB", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    row!(Sm4Cfb, "sm4-cfb", Cipher, RegulaSm, "SM4-CFB", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // RFC 8998 §4: SM4-GCM and SM4-CCM (SP 800-38D / 38C constructions with SM4).
    row!(Sm4Gcm, "sm4-gcm", Aead, RegulaSm, "SM4-GCM", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    row!(Sm4Ccm, "sm4-ccm", Aead, RegulaSm, "SM4-CCM", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // XTS: IEEE Std 1619 and GB/T 17964-2021, which multiply the tweak differently.
    row!(Sm4Xts, "sm4-xts", Cipher, RegulaSm, "SM4-XTS", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    row!(Sm4XtsGb, "sm4-xts-gb", Cipher, RegulaSm, "SM4-XTS-GB", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // SP 800-38A Addendum CBC-CS3 (fscrypt file names).
    row!(Sm4CbcCs3, "sm4-cbc-cs3", Cipher, RegulaSm, "SM4-CBC-CS3", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // SP 800-38B CMAC, RFC 3566 XCBC-MAC and ISO/IEC 9797-1 MAC algorithm 1 with SM4.
    row!(Sm4Cmac, "sm4-cmac", Mac, RegulaSm, "SM4-CMAC", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    row!(Sm4XcbcMac, "sm4-xcbc-mac", Mac, RegulaSm, "SM4-XCBC-MAC", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // CBC-MAC is secure only for messages of one fixed length; served for interoperability.
    row!(Sm4CbcMac, "sm4-cbc-mac", Mac, RegulaSm, "SM4-CBC-MAC", pct: None,
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // GB/T 32918.2-2016 (GM/T 0003.2-2012): SM2 signature over SM3(Z_A ‖ M), the user ID
    // defaulting to GM/T 0009-2012's `1234567812345678`.
    row!(Sm2Sign, "sm2-sign", Signature, RegulaSm, "SM2-SIGN", pct: Some("PCT-SM2-SIGN"),
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // GB/T 32918.4-2016 (GM/T 0003.4-2012): SM2 public-key encryption.
    row!(Sm2Encrypt, "sm2-encrypt", PublicKeyEncryption, RegulaSm, "SM2-ENCRYPT",
        pct: Some("PCT-SM2-ENCRYPT"), default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // RFC 8998 §3.1: (EC)DHE on curveSM2 (GB/T 32918.1 curve, named group 0x0029) for TLS 1.3.
    row!(Sm2Ecdh, "sm2-ecdh", KeyAgreement, RegulaSm, "SM2-ECDH", pct: Some("PCT-SM2-ECDH"),
        default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
    // GB/T 32918.3-2016 (GM/T 0003.3-2012): SM2 key exchange with static and ephemeral keys.
    // Its static keys come from sm2-sign key generation, whose PCT covers them.
    row!(Sm2KeyExchange, "sm2-key-exchange", KeyExchange, RegulaSm, "SM2-KEY-EXCHANGE",
        pct: None, default: APPROVED, fips: FIPS_NOT_SM, gm: APPROVED),
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
