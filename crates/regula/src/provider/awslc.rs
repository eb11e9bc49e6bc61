//! Maps Regula algorithms onto aws-lc-rs constants. No cryptography here: the primitives are
//! AWS-LC's (the FIPS 140-3 validated module in a `fips` build).

use aws_lc_rs::kdf::{
    KbkdfCtrHmacAlgorithm, KbkdfCtrHmacAlgorithmId, get_kbkdf_ctr_hmac_algorithm,
};
use aws_lc_rs::{aead, agreement, cipher, digest, hkdf, hmac, kem, pbkdf2, signature};

use super::awslc_sys::{EvpCipher, LegacyDigest, Shake};

use crate::algorithm::{Algorithm, Family};
use crate::error::{Error, Result};

fn wrong(algorithm: Algorithm, expected: Family) -> Error {
    Error::WrongFamily {
        algorithm,
        expected,
    }
}

/// Which library build serves the primitives, for `regula info`.
pub fn backend_description() -> String {
    let kind = if cfg!(feature = "fips") {
        "AWS-LC FIPS"
    } else {
        "AWS-LC"
    };
    format!("{kind} {}", aws_lc_rs::awslc_version())
}

/// The validated module's FIPS version, when it is linked.
pub fn fips_version() -> Option<u32> {
    aws_lc_rs::fips_version()
}

/// Whether the validated FIPS module is linked and in FIPS mode.
pub fn fips_mode() -> std::result::Result<(), &'static str> {
    aws_lc_rs::try_fips_mode()
}

/// The pairwise consistency test AWS-LC's validated module runs itself while generating a key
/// for `algorithm` (named as its break-test switch names it), in the FIPS build; `None` in the
/// ordinary build, where AWS-LC runs none, and for X25519, which the validated module does not
/// test. aws-lc-rs generates these keys through `EVP_PKEY_keygen`, whose FIPS paths are
/// `EC_KEY_generate_key_fips` (public-key recomputation, SP 800-56A Rev. 3 §5.6.2.1.4 (b)),
/// `RSA_generate_key_fips` (sign and verify), and the Ed25519, ML-DSA and ML-KEM key
/// generators with their own tests.
pub(crate) fn validated_module_pct(algorithm: Algorithm) -> Option<&'static str> {
    if !cfg!(feature = "fips") {
        return None;
    }
    let entry = crate::registry::entry(algorithm);
    if entry.provider != crate::registry::Provider::AwsLc || entry.pct.is_none() {
        return None;
    }
    match entry.family {
        Family::Signature => match signature(algorithm).ok()? {
            SignatureScheme::Ecdsa(..) => Some("EC_PWCT"),
            SignatureScheme::Ed25519 => Some("EDDSA_PWCT"),
            SignatureScheme::Rsa(..) => Some("RSA_PWCT"),
            SignatureScheme::MlDsa(..) => Some("MLDSA_PWCT"),
            SignatureScheme::VerifyOnly(_) => None,
        },
        Family::KeyAgreement if algorithm != Algorithm::X25519 => Some("EC_PWCT"),
        Family::Kem => Some("MLKEM_PWCT"),
        _ => None,
    }
}

pub(crate) fn aead(algorithm: Algorithm) -> Result<&'static aead::Algorithm> {
    match algorithm {
        Algorithm::Aes128Gcm => Ok(&aead::AES_128_GCM),
        Algorithm::Aes256Gcm => Ok(&aead::AES_256_GCM),
        Algorithm::ChaCha20Poly1305 => Ok(&aead::CHACHA20_POLY1305),
        other => Err(wrong(other, Family::Aead)),
    }
}

/// AES-CCM through AWS-LC's cipher interface, which takes SP 800-38C's nonce and tag sizes.
pub(crate) fn ccm(algorithm: Algorithm) -> Option<(EvpCipher, usize)> {
    match algorithm {
        Algorithm::Aes128Ccm => Some((EvpCipher::Aes128Ccm, 16)),
        Algorithm::Aes256Ccm => Some((EvpCipher::Aes256Ccm, 32)),
        _ => None,
    }
}

/// Block-cipher modes without authentication, and key wrapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CipherMode {
    Ctr,
    /// CBC with PKCS#7 padding.
    CbcPkcs7,
    Cfb8,
    /// SP 800-38F KW (RFC 3394).
    Kw,
    /// SP 800-38F KWP (RFC 5649).
    Kwp,
    /// SP 800-38A Addendum CBC-CS3: ciphertext stealing around AWS-LC's CBC
    /// (`provider/cbc_cs3.rs`).
    CbcCs3,
}

/// The AES key, its length in bytes, and the mode, for what aws-lc-rs serves.
pub(crate) fn cipher(
    algorithm: Algorithm,
) -> Result<(&'static cipher::Algorithm, usize, CipherMode)> {
    match algorithm {
        Algorithm::Aes128Ctr => Ok((&cipher::AES_128, 16, CipherMode::Ctr)),
        Algorithm::Aes256Ctr => Ok((&cipher::AES_256, 32, CipherMode::Ctr)),
        Algorithm::Aes128Cbc => Ok((&cipher::AES_128, 16, CipherMode::CbcPkcs7)),
        Algorithm::Aes256Cbc => Ok((&cipher::AES_256, 32, CipherMode::CbcPkcs7)),
        Algorithm::Aes128Cfb8 => Ok((&cipher::AES_128, 16, CipherMode::Cfb8)),
        Algorithm::Aes256Cfb8 => Ok((&cipher::AES_256, 32, CipherMode::Cfb8)),
        Algorithm::Aes128Kw => Ok((&cipher::AES_128, 16, CipherMode::Kw)),
        Algorithm::Aes256Kw => Ok((&cipher::AES_256, 32, CipherMode::Kw)),
        Algorithm::Aes128Kwp => Ok((&cipher::AES_128, 16, CipherMode::Kwp)),
        Algorithm::Aes256Kwp => Ok((&cipher::AES_256, 32, CipherMode::Kwp)),
        Algorithm::Aes256CbcCs3 => Ok((&cipher::AES_256, 32, CipherMode::CbcCs3)),
        other => Err(wrong(other, Family::Cipher)),
    }
}

/// A cipher served through AWS-LC's C interface: the EVP cipher, the accepted key lengths and
/// the IV length (0: none).
pub(crate) struct EvpCipherSpec {
    pub(crate) cipher: EvpCipher,
    pub(crate) key_lens: std::ops::RangeInclusive<usize>,
    pub(crate) iv_len: usize,
    /// The mode works on whole blocks of this size (1 for stream modes; XTS takes any length
    /// of at least one block).
    pub(crate) block: usize,
}

pub(crate) fn evp_cipher(algorithm: Algorithm) -> Option<EvpCipherSpec> {
    let spec = |cipher, key_lens, iv_len, block| EvpCipherSpec {
        cipher,
        key_lens,
        iv_len,
        block,
    };
    match algorithm {
        Algorithm::Aes256Xts => Some(spec(EvpCipher::Aes256Xts, 64..=64, 16, 1)),
        // RC4 keys of 40 to 2048 bits (RFC 6229's test keys start at 40).
        Algorithm::Rc4 => Some(spec(EvpCipher::Rc4, 5..=256, 0, 1)),
        Algorithm::DesCbc => Some(spec(EvpCipher::DesCbc, 8..=8, 8, 8)),
        Algorithm::DesEde3Cbc => Some(spec(EvpCipher::DesEde3Cbc, 24..=24, 8, 8)),
        _ => None,
    }
}

pub(crate) fn legacy_digest(algorithm: Algorithm) -> Option<LegacyDigest> {
    match algorithm {
        Algorithm::Md4 => Some(LegacyDigest::Md4),
        Algorithm::Md5 => Some(LegacyDigest::Md5),
        _ => None,
    }
}

/// The SHAKE function of an extendable-output row, `None` for every other algorithm.
pub(crate) fn shake(algorithm: Algorithm) -> Option<Shake> {
    match algorithm {
        Algorithm::Shake128 => Some(Shake::Shake128),
        Algorithm::Shake256 => Some(Shake::Shake256),
        _ => None,
    }
}

pub(crate) fn digest(algorithm: Algorithm) -> Result<&'static digest::Algorithm> {
    match algorithm {
        Algorithm::Sha1 => Ok(&digest::SHA1_FOR_LEGACY_USE_ONLY),
        Algorithm::Sha224 => Ok(&digest::SHA224),
        Algorithm::Sha256 => Ok(&digest::SHA256),
        Algorithm::Sha384 => Ok(&digest::SHA384),
        Algorithm::Sha512 => Ok(&digest::SHA512),
        Algorithm::Sha512_256 => Ok(&digest::SHA512_256),
        Algorithm::Sha3_256 => Ok(&digest::SHA3_256),
        Algorithm::Sha3_384 => Ok(&digest::SHA3_384),
        Algorithm::Sha3_512 => Ok(&digest::SHA3_512),
        other => Err(wrong(other, Family::Digest)),
    }
}

/// A MAC construction and its parameter.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MacAlgorithm {
    Hmac(hmac::Algorithm),
    /// CMAC with the AES key length it requires, in bytes.
    Cmac(&'static aws_lc_rs::cmac::Algorithm, usize),
    /// HMAC over a digest aws-lc-rs does not offer (MD5).
    LegacyHmac(LegacyDigest),
    /// GMAC with the AES key length it requires, in bytes.
    Gmac(usize),
}

pub(crate) fn mac(algorithm: Algorithm) -> Result<MacAlgorithm> {
    match algorithm {
        Algorithm::HmacMd5 => Ok(MacAlgorithm::LegacyHmac(LegacyDigest::Md5)),
        Algorithm::HmacSha1 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY)),
        Algorithm::HmacSha224 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA224)),
        Algorithm::HmacSha256 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA256)),
        Algorithm::HmacSha384 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA384)),
        Algorithm::HmacSha512 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA512)),
        Algorithm::Aes128Cmac => Ok(MacAlgorithm::Cmac(&aws_lc_rs::cmac::AES_128, 16)),
        Algorithm::Aes256Cmac => Ok(MacAlgorithm::Cmac(&aws_lc_rs::cmac::AES_256, 32)),
        Algorithm::Aes128Gmac => Ok(MacAlgorithm::Gmac(16)),
        Algorithm::Aes256Gmac => Ok(MacAlgorithm::Gmac(32)),
        other => Err(wrong(other, Family::Mac)),
    }
}

/// Key-derivation functions.
#[derive(Clone, Copy)]
pub(crate) enum KdfAlgorithm {
    Hkdf(hkdf::Algorithm),
    Pbkdf2(&'static pbkdf2::Algorithm),
    /// SP 800-108 counter mode with an HMAC PRF.
    Kbkdf(&'static KbkdfCtrHmacAlgorithm),
}

fn kbkdf(id: KbkdfCtrHmacAlgorithmId) -> Result<KdfAlgorithm> {
    get_kbkdf_ctr_hmac_algorithm(id)
        .map(KdfAlgorithm::Kbkdf)
        .ok_or(Error::CryptoFailure)
}

pub(crate) fn kdf(algorithm: Algorithm) -> Result<KdfAlgorithm> {
    match algorithm {
        Algorithm::HkdfSha256 => Ok(KdfAlgorithm::Hkdf(hkdf::HKDF_SHA256)),
        Algorithm::HkdfSha384 => Ok(KdfAlgorithm::Hkdf(hkdf::HKDF_SHA384)),
        Algorithm::HkdfSha512 => Ok(KdfAlgorithm::Hkdf(hkdf::HKDF_SHA512)),
        Algorithm::Pbkdf2Sha256 => Ok(KdfAlgorithm::Pbkdf2(&pbkdf2::PBKDF2_HMAC_SHA256)),
        Algorithm::Pbkdf2Sha384 => Ok(KdfAlgorithm::Pbkdf2(&pbkdf2::PBKDF2_HMAC_SHA384)),
        Algorithm::Pbkdf2Sha512 => Ok(KdfAlgorithm::Pbkdf2(&pbkdf2::PBKDF2_HMAC_SHA512)),
        Algorithm::KbkdfCtrHmacSha256 => kbkdf(KbkdfCtrHmacAlgorithmId::Sha256),
        Algorithm::KbkdfCtrHmacSha384 => kbkdf(KbkdfCtrHmacAlgorithmId::Sha384),
        Algorithm::KbkdfCtrHmacSha512 => kbkdf(KbkdfCtrHmacAlgorithmId::Sha512),
        // Its rule (served flagged under `gm`) holds for the kernel's key hierarchy only.
        Algorithm::FscryptHkdfSha512 => Err(Error::invalid_input(
            "fscrypt-hkdf-sha512 is served only through Module::fscrypt_hkdf_sha512 \
             (`regula fscrypt`); use hkdf-sha512 for other HKDF-SHA512 derivations",
        )),
        other => Err(wrong(other, Family::Kdf)),
    }
}

/// Signature schemes, with the aws-lc-rs constants for signing and for verification.
#[derive(Clone, Copy)]
pub(crate) enum SignatureScheme {
    Ecdsa(
        &'static signature::EcdsaSigningAlgorithm,
        &'static signature::EcdsaVerificationAlgorithm,
    ),
    Ed25519,
    Rsa(
        &'static dyn signature::RsaEncoding,
        &'static signature::RsaParameters,
    ),
    /// FIPS 204 ML-DSA.
    MlDsa(
        &'static signature::PqdsaSigningAlgorithm,
        &'static signature::PqdsaVerificationAlgorithm,
    ),
    /// Verification only (SHA-1 signatures): no key of this scheme signs.
    VerifyOnly(&'static dyn signature::VerificationAlgorithm),
}

pub(crate) fn signature(algorithm: Algorithm) -> Result<SignatureScheme> {
    use signature as s;
    match algorithm {
        Algorithm::EcdsaP256 => Ok(SignatureScheme::Ecdsa(
            &s::ECDSA_P256_SHA256_ASN1_SIGNING,
            &s::ECDSA_P256_SHA256_ASN1,
        )),
        Algorithm::EcdsaP384 => Ok(SignatureScheme::Ecdsa(
            &s::ECDSA_P384_SHA384_ASN1_SIGNING,
            &s::ECDSA_P384_SHA384_ASN1,
        )),
        Algorithm::EcdsaP521 => Ok(SignatureScheme::Ecdsa(
            &s::ECDSA_P521_SHA512_ASN1_SIGNING,
            &s::ECDSA_P521_SHA512_ASN1,
        )),
        Algorithm::Ed25519 => Ok(SignatureScheme::Ed25519),
        Algorithm::RsaPssSha256 => Ok(SignatureScheme::Rsa(
            &s::RSA_PSS_SHA256,
            &s::RSA_PSS_2048_8192_SHA256,
        )),
        Algorithm::RsaPssSha384 => Ok(SignatureScheme::Rsa(
            &s::RSA_PSS_SHA384,
            &s::RSA_PSS_2048_8192_SHA384,
        )),
        Algorithm::RsaPssSha512 => Ok(SignatureScheme::Rsa(
            &s::RSA_PSS_SHA512,
            &s::RSA_PSS_2048_8192_SHA512,
        )),
        Algorithm::RsaPkcs1Sha256 => Ok(SignatureScheme::Rsa(
            &s::RSA_PKCS1_SHA256,
            &s::RSA_PKCS1_2048_8192_SHA256,
        )),
        Algorithm::RsaPkcs1Sha384 => Ok(SignatureScheme::Rsa(
            &s::RSA_PKCS1_SHA384,
            &s::RSA_PKCS1_2048_8192_SHA384,
        )),
        Algorithm::RsaPkcs1Sha512 => Ok(SignatureScheme::Rsa(
            &s::RSA_PKCS1_SHA512,
            &s::RSA_PKCS1_2048_8192_SHA512,
        )),
        Algorithm::RsaPkcs1Sha1 => Ok(SignatureScheme::VerifyOnly(
            &s::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
        )),
        Algorithm::EcdsaP256Sha1 => Ok(SignatureScheme::VerifyOnly(&s::ECDSA_P256_SHA1_ASN1)),
        Algorithm::MlDsa44 => Ok(SignatureScheme::MlDsa(&s::ML_DSA_44_SIGNING, &s::ML_DSA_44)),
        Algorithm::MlDsa65 => Ok(SignatureScheme::MlDsa(&s::ML_DSA_65_SIGNING, &s::ML_DSA_65)),
        Algorithm::MlDsa87 => Ok(SignatureScheme::MlDsa(&s::ML_DSA_87_SIGNING, &s::ML_DSA_87)),
        other => Err(wrong(other, Family::Signature)),
    }
}

pub(crate) fn agreement(algorithm: Algorithm) -> Result<&'static agreement::Algorithm> {
    match algorithm {
        Algorithm::EcdhP256 => Ok(&agreement::ECDH_P256),
        Algorithm::EcdhP384 => Ok(&agreement::ECDH_P384),
        Algorithm::EcdhP521 => Ok(&agreement::ECDH_P521),
        Algorithm::X25519 => Ok(&agreement::X25519),
        other => Err(wrong(other, Family::KeyAgreement)),
    }
}

pub(crate) fn kem(algorithm: Algorithm) -> Result<&'static kem::Algorithm> {
    match algorithm {
        Algorithm::MlKem768 => Ok(&kem::ML_KEM_768),
        Algorithm::MlKem1024 => Ok(&kem::ML_KEM_1024),
        other => Err(wrong(other, Family::Kem)),
    }
}
