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

const SHA1_LEGACY: Rule = Rule::not_approved(
    "SHA-1 is a legacy algorithm, kept only to check old data (SP 800-131A Rev. 2 §9)",
    Some("sha256"),
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
    // FIPS 180-4 and FIPS 202.
    row!(Sha1, "sha1", Digest, "SHA-1", pct: None,
        default: SHA1_LEGACY, fips: SHA1_LEGACY, gm: GM_NOT_SM),
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
    // FIPS 198-1; key length per SP 800-131A.
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
