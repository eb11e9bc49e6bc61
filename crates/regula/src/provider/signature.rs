//! Signing keys and verification for the signature service: ECDSA, Ed25519, RSA and ML-DSA
//! (aws-lc-rs), SM2 (regula-sm). The registry row's provider decides which backend serves an
//! algorithm.

use aws_lc_rs::encoding::{AsDer, AsRawBytes, Pkcs8V1Der, PqdsaPrivateKeyRaw, PublicKeyX509Der};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::rsa::{KeySize, PublicEncryptingKey};
use aws_lc_rs::signature::{
    self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, ParsedPublicKey, PqdsaKeyPair, RsaKeyPair,
    VerificationAlgorithm,
};
use regula_sm::sm2;
use zeroize::Zeroizing;

use super::awslc::{self, SignatureScheme};
use super::sm::{SM2_DEFAULT_ID, sm2_error, sm2_random};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};

/// The kinds of signature scheme, as the signature service sizes and checks keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemeKind {
    Ecdsa,
    Ed25519,
    Rsa,
    MlDsa,
    /// Verification only (SHA-1 signatures): no key of this scheme signs.
    VerifyOnly,
}

/// The kind of an AWS-LC signature scheme.
pub(crate) fn scheme_kind(algorithm: Algorithm) -> Result<SchemeKind> {
    Ok(match awslc::signature(algorithm)? {
        SignatureScheme::Ecdsa(..) => SchemeKind::Ecdsa,
        SignatureScheme::Ed25519 => SchemeKind::Ed25519,
        SignatureScheme::Rsa(..) => SchemeKind::Rsa,
        SignatureScheme::MlDsa(..) => SchemeKind::MlDsa,
        SignatureScheme::VerifyOnly(_) => SchemeKind::VerifyOnly,
    })
}

/// A private signing key. AWS-LC and regula-sm wipe it on drop.
pub(crate) enum SigningBackend {
    Ecdsa(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
    Rsa(RsaKeyPair),
    MlDsa(PqdsaKeyPair),
    /// Wiped on drop by regula-sm.
    Sm2(Box<sm2::PrivateKey>),
}

/// RSA moduli AWS-LC generates.
fn rsa_key_size(bits: u32) -> Option<KeySize> {
    match bits {
        2048 => Some(KeySize::Rsa2048),
        3072 => Some(KeySize::Rsa3072),
        4096 => Some(KeySize::Rsa4096),
        8192 => Some(KeySize::Rsa8192),
        _ => None,
    }
}

/// The modulus size of an RSA public key given as DER SubjectPublicKeyInfo.
pub(crate) fn rsa_key_bits(algorithm: Algorithm, public_key: &[u8]) -> Result<u32> {
    PublicEncryptingKey::from_der(public_key)
        .map(|key| u32::try_from(key.key_size_bits()).unwrap_or(u32::MAX))
        .map_err(|_| Error::invalid_key(algorithm, "not a DER SubjectPublicKeyInfo RSA public key"))
}

/// An AWS-LC verification algorithm.
#[derive(Clone, Copy)]
pub(crate) struct Verifier(&'static dyn VerificationAlgorithm);

/// The verification algorithm of `algorithm` (an AWS-LC scheme, SHA-1 signatures included).
pub(crate) fn verifier(algorithm: Algorithm) -> Result<Verifier> {
    Ok(Verifier(match awslc::signature(algorithm)? {
        SignatureScheme::Ecdsa(_, verification) => verification,
        SignatureScheme::Ed25519 => &signature::ED25519,
        SignatureScheme::Rsa(_, verification) => verification,
        SignatureScheme::MlDsa(_, verification) => verification,
        SignatureScheme::VerifyOnly(verification) => verification,
    }))
}

impl Verifier {
    /// Verifies `signature` over `message` under `public_key` (DER SubjectPublicKeyInfo, or the
    /// raw key for ECDSA and Ed25519): a key that does not parse is an invalid key, a signature
    /// that does not verify [`Error::BadSignature`].
    pub(crate) fn verify(
        self,
        algorithm: Algorithm,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<()> {
        let key = ParsedPublicKey::new(self.0, public_key).map_err(|error| {
            Error::invalid_key(algorithm, format!("public key does not parse ({error})"))
        })?;
        key.verify_sig(message, signature)
            .map_err(|_| Error::BadSignature)
    }
}

/// Parses an SM2 public key (DER SubjectPublicKeyInfo or uncompressed point).
fn sm2_public_key(algorithm: Algorithm, public_key: &[u8]) -> Result<sm2::PublicKey> {
    sm2::PublicKey::from_sec1_or_spki_der(public_key).map_err(|_| {
        Error::invalid_key(
            algorithm,
            "not a curveSM2 SubjectPublicKeyInfo or uncompressed point",
        )
    })
}

/// Verifies an SM2 signature (DER) made by the signer `id` over `message`.
pub(crate) fn sm2_verify(
    algorithm: Algorithm,
    public_key: &[u8],
    id: &[u8],
    message: &[u8],
    signature: &[u8],
) -> Result<()> {
    let public_key = sm2_public_key(algorithm, public_key)?;
    let signature = sm2::Signature::from_der(signature).map_err(|_| Error::BadSignature)?;
    sm2::verify(&public_key, id, message, &signature).map_err(|e| sm2_error(algorithm, e))
}

/// Verifies an SM2 signature (DER) over a digest SM3(Z_A ‖ M) the caller computed.
pub(crate) fn sm2_verify_digest(
    algorithm: Algorithm,
    public_key: &[u8],
    digest: &[u8; 32],
    signature: &[u8],
) -> Result<()> {
    let public_key = sm2_public_key(algorithm, public_key)?;
    let signature = sm2::Signature::from_der(signature).map_err(|_| Error::BadSignature)?;
    sm2::verify_digest(&public_key, digest, &signature).map_err(|e| sm2_error(algorithm, e))
}

impl SigningBackend {
    /// Generates an AWS-LC key pair (`key_bits`: the RSA modulus size; ignored otherwise).
    pub(crate) fn generate(algorithm: Algorithm, key_bits: u32) -> Result<SigningBackend> {
        let backend = |_| Error::CryptoFailure;
        Ok(match awslc::signature(algorithm)? {
            SignatureScheme::MlDsa(signing, _) => {
                SigningBackend::MlDsa(PqdsaKeyPair::generate(signing).map_err(backend)?)
            }
            SignatureScheme::VerifyOnly(_) => {
                return Err(Error::invalid_input(format!(
                    "{algorithm} only verifies existing signatures; Regula creates no SHA-1 \
                     signature"
                )));
            }
            SignatureScheme::Ecdsa(signing, _) => {
                SigningBackend::Ecdsa(EcdsaKeyPair::generate(signing).map_err(backend)?)
            }
            SignatureScheme::Ed25519 => {
                SigningBackend::Ed25519(Ed25519KeyPair::generate().map_err(backend)?)
            }
            SignatureScheme::Rsa(..) => {
                let size = rsa_key_size(key_bits).ok_or_else(|| {
                    Error::invalid_input(format!(
                        "RSA key size must be 2048, 3072, 4096 or 8192 bits, got {key_bits}"
                    ))
                })?;
                SigningBackend::Rsa(RsaKeyPair::generate(size).map_err(backend)?)
            }
        })
    }

    /// Generates an SM2 key pair from the module's generator.
    pub(crate) fn generate_sm2(
        algorithm: Algorithm,
        random: &mut impl FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<SigningBackend> {
        let key = sm2::PrivateKey::generate(&mut sm2_random(random))
            .map_err(|e| sm2_error(algorithm, e))?;
        Ok(SigningBackend::Sm2(Box::new(key)))
    }

    /// Imports a PKCS#8 SM2 private key.
    pub(crate) fn sm2_from_pkcs8(algorithm: Algorithm, pkcs8: &[u8]) -> Result<SigningBackend> {
        let key = sm2::PrivateKey::from_pkcs8_der(pkcs8).map_err(|_| {
            Error::invalid_key(algorithm, "not a PKCS#8 SM2 private key on curveSM2")
        })?;
        Ok(SigningBackend::Sm2(Box::new(key)))
    }

    /// Imports a PKCS#8 private key of an AWS-LC scheme; returns it with its size in bits
    /// (`curve_bits` for ECDSA, 256 for Ed25519, the modulus for RSA, 0 for ML-DSA).
    pub(crate) fn from_pkcs8(
        algorithm: Algorithm,
        pkcs8: &[u8],
        curve_bits: u32,
    ) -> Result<(SigningBackend, u32)> {
        let rejected = |error: aws_lc_rs::error::KeyRejected| {
            Error::invalid_key(
                algorithm,
                format!("not a PKCS#8 {algorithm} private key ({error})"),
            )
        };
        Ok(match awslc::signature(algorithm)? {
            SignatureScheme::Ecdsa(signing, _) => (
                SigningBackend::Ecdsa(EcdsaKeyPair::from_pkcs8(signing, pkcs8).map_err(rejected)?),
                curve_bits,
            ),
            SignatureScheme::Ed25519 => (
                SigningBackend::Ed25519(Ed25519KeyPair::from_pkcs8(pkcs8).map_err(rejected)?),
                256,
            ),
            SignatureScheme::Rsa(..) => {
                let key = RsaKeyPair::from_pkcs8(pkcs8).map_err(rejected)?;
                let bits = u32::try_from(key.public_modulus_len() * 8).unwrap_or(u32::MAX);
                (SigningBackend::Rsa(key), bits)
            }
            SignatureScheme::MlDsa(signing, _) => (
                SigningBackend::MlDsa(PqdsaKeyPair::from_pkcs8(signing, pkcs8).map_err(rejected)?),
                0,
            ),
            SignatureScheme::VerifyOnly(_) => {
                return Err(Error::invalid_input(format!(
                    "{algorithm} only verifies existing signatures; Regula creates no SHA-1 \
                     signature"
                )));
            }
        })
    }

    /// Whether this is an SM2 key (which signs as a user ID).
    pub(crate) fn is_sm2(&self) -> bool {
        matches!(self, SigningBackend::Sm2(_))
    }

    /// The public key as DER SubjectPublicKeyInfo.
    pub(crate) fn public_key_der(&self) -> Result<Vec<u8>> {
        let der: std::result::Result<PublicKeyX509Der<'static>, _> = match self {
            SigningBackend::Ecdsa(key) => key.public_key().as_der(),
            SigningBackend::Ed25519(key) => key.public_key().as_der(),
            SigningBackend::Rsa(key) => key.public_key().as_der(),
            SigningBackend::MlDsa(key) => key.public_key().as_der(),
            SigningBackend::Sm2(key) => {
                return key
                    .public_key()
                    .to_spki_der()
                    .map_err(|_| Error::CryptoFailure);
            }
        };
        Ok(der.map_err(|_| Error::CryptoFailure)?.as_ref().to_vec())
    }

    /// The private key as PKCS#8 v1 DER, wiped from memory when dropped.
    pub(crate) fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        let der = match self {
            SigningBackend::Ecdsa(key) => {
                key.to_pkcs8v1().map(|document| document.as_ref().to_vec())
            }
            SigningBackend::Ed25519(key) => {
                key.to_pkcs8v1().map(|document| document.as_ref().to_vec())
            }
            SigningBackend::Rsa(key) => {
                let der: std::result::Result<Pkcs8V1Der<'static>, _> = key.as_der();
                der.map(|der| der.as_ref().to_vec())
            }
            SigningBackend::MlDsa(key) => {
                key.to_pkcs8v1().map(|document| document.as_ref().to_vec())
            }
            SigningBackend::Sm2(key) => {
                return key.to_pkcs8_der().map_err(|_| Error::CryptoFailure);
            }
        };
        Ok(Zeroizing::new(der.map_err(|_| Error::CryptoFailure)?))
    }

    /// An ML-DSA key's expanded private key (FIPS 204 skEncode), wiped when dropped; `None`
    /// for a key of another scheme.
    pub(crate) fn ml_dsa_expanded_private_key(&self) -> Option<Result<Zeroizing<Vec<u8>>>> {
        let SigningBackend::MlDsa(key) = self else {
            return None;
        };
        let raw: std::result::Result<PqdsaPrivateKeyRaw<'static>, _> =
            key.private_key().as_raw_bytes();
        Some(
            raw.map(|raw| Zeroizing::new(raw.as_ref().to_vec()))
                .map_err(|_| Error::CryptoFailure),
        )
    }

    /// Signs `message` as the SM2 signer `id`; `None` for a key that is not SM2's.
    pub(crate) fn sign_sm2_with_id(
        &self,
        algorithm: Algorithm,
        id: &[u8],
        message: &[u8],
        random: &mut impl FnMut(&mut [u8]) -> Result<()>,
    ) -> Option<Result<Vec<u8>>> {
        let SigningBackend::Sm2(key) = self else {
            return None;
        };
        Some(
            sm2::sign(key, id, message, &mut sm2_random(random))
                .map(|signature| signature.to_der())
                .map_err(|e| sm2_error(algorithm, e)),
        )
    }

    /// Signs `message` (hashing it with the scheme's digest; SM2 with the default user ID).
    pub(crate) fn sign(
        &self,
        algorithm: Algorithm,
        message: &[u8],
        random: &mut impl FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<Vec<u8>> {
        let rng = SystemRandom::new();
        match self {
            SigningBackend::Sm2(key) => {
                Ok(
                    sm2::sign(key, SM2_DEFAULT_ID, message, &mut sm2_random(random))
                        .map_err(|e| sm2_error(algorithm, e))?
                        .to_der(),
                )
            }
            SigningBackend::Ecdsa(key) => Ok(key
                .sign(&rng, message)
                .map_err(|_| Error::CryptoFailure)?
                .as_ref()
                .to_vec()),
            SigningBackend::Ed25519(key) => Ok(key
                .try_sign(message)
                .map_err(|_| Error::CryptoFailure)?
                .as_ref()
                .to_vec()),
            SigningBackend::MlDsa(key) => {
                let mut signature = vec![0u8; key.algorithm().signature_len()];
                let written = key
                    .sign(message, &mut signature)
                    .map_err(|_| Error::CryptoFailure)?;
                signature.truncate(written);
                Ok(signature)
            }
            SigningBackend::Rsa(key) => {
                let SignatureScheme::Rsa(encoding, _) = awslc::signature(algorithm)? else {
                    return Err(Error::CryptoFailure);
                };
                let mut signature = vec![0u8; key.public_modulus_len()];
                key.sign(encoding, &rng, message, &mut signature)
                    .map_err(|_| Error::CryptoFailure)?;
                Ok(signature)
            }
        }
    }

    /// Signs a digest the caller computed, with an ECDSA key (DER `SEQUENCE { r, s }`). The
    /// digest is brought to the length of the key's own hash as ECDSA reads it (FIPS 186-5
    /// §6.4.1: its leftmost bits, or the same integer with leading zeros), which is exact for
    /// P-256, P-384 and, with digests of at most 64 bytes, P-521. `None` for other keys.
    pub(crate) fn sign_digest(
        &self,
        algorithm: Algorithm,
        digest: &[u8],
    ) -> Option<Result<Vec<u8>>> {
        let SigningBackend::Ecdsa(key) = self else {
            return None;
        };
        let hash = match algorithm {
            Algorithm::EcdsaP256 => &aws_lc_rs::digest::SHA256,
            Algorithm::EcdsaP384 => &aws_lc_rs::digest::SHA384,
            Algorithm::EcdsaP521 => &aws_lc_rs::digest::SHA512,
            _ => return None,
        };
        let len = hash.output_len();
        let mut value = [0u8; 64];
        if digest.len() >= len {
            value[..len].copy_from_slice(&digest[..len]);
        } else {
            value[len - digest.len()..len].copy_from_slice(digest);
        }
        Some(
            aws_lc_rs::digest::Digest::import_less_safe(&value[..len], hash)
                .and_then(|digest| key.sign_digest(&digest))
                .map(|signature| signature.as_ref().to_vec())
                .map_err(|_| Error::CryptoFailure),
        )
    }

    /// Verifies a signature of this key's own (the pairwise consistency test).
    pub(crate) fn verify_own(
        &self,
        algorithm: Algorithm,
        message: &[u8],
        signature: &[u8],
    ) -> Result<()> {
        if let SigningBackend::Sm2(key) = self {
            let signature = sm2::Signature::from_der(signature).map_err(|_| Error::BadSignature)?;
            return sm2::verify(key.public_key(), SM2_DEFAULT_ID, message, &signature)
                .map_err(|_| Error::BadSignature);
        }
        let public_key = self.public_key_der()?;
        let Verifier(verification) = verifier(algorithm)?;
        ParsedPublicKey::new(verification, &public_key)
            .map_err(|_| Error::CryptoFailure)?
            .verify_sig(message, signature)
            .map_err(|_| Error::BadSignature)
    }
}
