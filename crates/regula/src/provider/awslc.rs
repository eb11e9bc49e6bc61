//! Maps Regula algorithms onto aws-lc-rs constants. No cryptography here: the primitives are
//! AWS-LC's (the FIPS 140-3 validated module in a `fips` build).

use aws_lc_rs::{aead, agreement, cipher, digest, hkdf, hmac, kem, pbkdf2, signature};

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

/// Whether the validated FIPS module is linked and in FIPS mode.
pub fn fips_mode() -> std::result::Result<(), &'static str> {
    aws_lc_rs::try_fips_mode()
}

pub(crate) fn aead(algorithm: Algorithm) -> Result<&'static aead::Algorithm> {
    match algorithm {
        Algorithm::Aes128Gcm => Ok(&aead::AES_128_GCM),
        Algorithm::Aes256Gcm => Ok(&aead::AES_256_GCM),
        Algorithm::ChaCha20Poly1305 => Ok(&aead::CHACHA20_POLY1305),
        other => Err(wrong(other, Family::Aead)),
    }
}

/// Block-cipher modes without authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CipherMode {
    Ctr,
    /// CBC with PKCS#7 padding.
    CbcPkcs7,
}

/// The AES key, its length in bytes, and the mode.
pub(crate) fn cipher(
    algorithm: Algorithm,
) -> Result<(&'static cipher::Algorithm, usize, CipherMode)> {
    match algorithm {
        Algorithm::Aes128Ctr => Ok((&cipher::AES_128, 16, CipherMode::Ctr)),
        Algorithm::Aes256Ctr => Ok((&cipher::AES_256, 32, CipherMode::Ctr)),
        Algorithm::Aes128Cbc => Ok((&cipher::AES_128, 16, CipherMode::CbcPkcs7)),
        Algorithm::Aes256Cbc => Ok((&cipher::AES_256, 32, CipherMode::CbcPkcs7)),
        other => Err(wrong(other, Family::Cipher)),
    }
}

pub(crate) fn digest(algorithm: Algorithm) -> Result<&'static digest::Algorithm> {
    match algorithm {
        Algorithm::Sha1 => Ok(&digest::SHA1_FOR_LEGACY_USE_ONLY),
        Algorithm::Sha224 => Ok(&digest::SHA224),
        Algorithm::Sha256 => Ok(&digest::SHA256),
        Algorithm::Sha384 => Ok(&digest::SHA384),
        Algorithm::Sha512 => Ok(&digest::SHA512),
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
}

pub(crate) fn mac(algorithm: Algorithm) -> Result<MacAlgorithm> {
    match algorithm {
        Algorithm::HmacSha224 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA224)),
        Algorithm::HmacSha256 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA256)),
        Algorithm::HmacSha384 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA384)),
        Algorithm::HmacSha512 => Ok(MacAlgorithm::Hmac(hmac::HMAC_SHA512)),
        Algorithm::Aes128Cmac => Ok(MacAlgorithm::Cmac(&aws_lc_rs::cmac::AES_128, 16)),
        Algorithm::Aes256Cmac => Ok(MacAlgorithm::Cmac(&aws_lc_rs::cmac::AES_256, 32)),
        other => Err(wrong(other, Family::Mac)),
    }
}

/// Key-derivation functions.
#[derive(Clone, Copy)]
pub(crate) enum KdfAlgorithm {
    Hkdf(hkdf::Algorithm),
    Pbkdf2(&'static pbkdf2::Algorithm),
}

pub(crate) fn kdf(algorithm: Algorithm) -> Result<KdfAlgorithm> {
    match algorithm {
        Algorithm::HkdfSha256 => Ok(KdfAlgorithm::Hkdf(hkdf::HKDF_SHA256)),
        Algorithm::HkdfSha384 => Ok(KdfAlgorithm::Hkdf(hkdf::HKDF_SHA384)),
        Algorithm::HkdfSha512 => Ok(KdfAlgorithm::Hkdf(hkdf::HKDF_SHA512)),
        Algorithm::Pbkdf2Sha256 => Ok(KdfAlgorithm::Pbkdf2(&pbkdf2::PBKDF2_HMAC_SHA256)),
        Algorithm::Pbkdf2Sha384 => Ok(KdfAlgorithm::Pbkdf2(&pbkdf2::PBKDF2_HMAC_SHA384)),
        Algorithm::Pbkdf2Sha512 => Ok(KdfAlgorithm::Pbkdf2(&pbkdf2::PBKDF2_HMAC_SHA512)),
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
