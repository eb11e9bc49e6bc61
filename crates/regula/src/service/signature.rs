//! Digital signatures: ECDSA P-256/P-384/P-521, Ed25519, RSA-PSS, RSA PKCS#1 v1.5 and ML-DSA
//! (FIPS 204) from AWS-LC, and SM2 (GB/T 32918.2) from regula-sm. SHA-1 signatures
//! (`rsa-pkcs1-sha1`, `ecdsa-p256-sha1`) can only be verified.
//!
//! SM2 signatures bind a signer's user ID. [`SigningKey::sign`] and [`Module::verify`] use the
//! default ID of GM/T 0009-2012 (`1234567812345678`); [`SigningKey::sign_with_id`] and
//! [`Module::verify_with_id`] take another, e.g. RFC 8998's `TLSv1.3+GM+Cipher+Suite` for TLS 1.3
//! CertificateVerify ([`regula_sm::sm2::TLS13_ID`]). SM2 signatures are DER
//! `SEQUENCE { r, s }` and public keys DER SubjectPublicKeyInfo or an uncompressed point.

use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der, PublicKeyX509Der};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::rsa::{KeySize, PublicEncryptingKey};
use aws_lc_rs::signature::{
    self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, ParsedPublicKey, PqdsaKeyPair, RsaKeyPair,
    VerificationAlgorithm,
};
use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc::{self, SignatureScheme};
use crate::provider::sm::sm2_error;
use crate::selftest::Fault;

use regula_sm::sm2;

enum KeyPairInner {
    Ecdsa(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
    Rsa(RsaKeyPair),
    MlDsa(PqdsaKeyPair),
    /// Wiped on drop by regula-sm.
    Sm2(Box<sm2::PrivateKey>),
}

/// curveSM2 keys are 256 bits.
const SM2_KEY_BITS: u32 = 256;

fn sm2_usage() -> Usage {
    Usage {
        key_bits: Some(SM2_KEY_BITS),
        ..Usage::default()
    }
}

/// A private signing key bound to a module. AWS-LC wipes it on drop; exports are zeroized.
pub struct SigningKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    key_bits: u32,
    key: KeyPairInner,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("algorithm", &self.algorithm)
            .field("key_bits", &self.key_bits)
            .finish_non_exhaustive()
    }
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

/// The refusal for a scheme that only verifies (SHA-1 signatures), in a permissive policy that
/// let the request through: Regula creates no such signature in any profile.
fn verify_only(algorithm: Algorithm) -> Error {
    Error::invalid_input(format!(
        "{algorithm} only verifies existing signatures; Regula creates no SHA-1 signature"
    ))
}

/// The usage a signing key is checked against.
fn signing_usage(key_bits: Option<u32>) -> Usage {
    Usage {
        key_bits,
        signing: true,
        ..Usage::default()
    }
}

/// The modulus size of an RSA public key given as DER SubjectPublicKeyInfo, or `None` when it
/// is not one (for adapters such as `regula-tls` that hold a certificate's key).
pub fn rsa_public_key_bits(public_key: &[u8]) -> Option<u32> {
    rsa_key_bits(Algorithm::RsaPssSha256, public_key).ok()
}

/// The modulus size of an RSA public key given as DER SubjectPublicKeyInfo.
fn rsa_key_bits(algorithm: Algorithm, public_key: &[u8]) -> Result<u32> {
    PublicEncryptingKey::from_der(public_key)
        .map(|key| u32::try_from(key.key_size_bits()).unwrap_or(u32::MAX))
        .map_err(|_| Error::invalid_key(algorithm, "not a DER SubjectPublicKeyInfo RSA public key"))
}

fn curve_bits(algorithm: Algorithm) -> u32 {
    match algorithm {
        Algorithm::EcdsaP384 => 384,
        Algorithm::EcdsaP521 => 521,
        _ => 256,
    }
}

impl Module {
    /// Generates a key pair and runs its pairwise consistency test. `rsa_bits` applies to RSA
    /// only (default 3072).
    pub fn generate_signing_key(
        &self,
        algorithm: Algorithm,
        rsa_bits: Option<u32>,
    ) -> Result<Served<SigningKey>> {
        if algorithm == Algorithm::Sm2Sign {
            return self.generate_sm2_signing_key(rsa_bits);
        }
        let scheme = awslc::signature(algorithm)?;
        if let SignatureScheme::VerifyOnly(_) = scheme {
            self.authorize(algorithm, Family::Signature, &signing_usage(None))?;
            return Err(verify_only(algorithm));
        }
        let key_bits = match (scheme, rsa_bits) {
            (SignatureScheme::Rsa(..), bits) => bits.unwrap_or(3072),
            (SignatureScheme::MlDsa(..), None) => 0,
            (_, None) => curve_bits(algorithm),
            (_, Some(_)) => {
                return Err(Error::invalid_input(format!(
                    "a key size applies to RSA only, not to {algorithm}"
                )));
            }
        };
        let usage = signing_usage((key_bits != 0).then_some(key_bits));
        let approval = self.authorize(algorithm, Family::Signature, &usage)?;
        let backend = |_| Error::CryptoFailure;
        let key = match scheme {
            SignatureScheme::MlDsa(signing, _) => {
                KeyPairInner::MlDsa(PqdsaKeyPair::generate(signing).map_err(backend)?)
            }
            SignatureScheme::VerifyOnly(_) => return Err(verify_only(algorithm)),
            SignatureScheme::Ecdsa(signing, _) => {
                KeyPairInner::Ecdsa(EcdsaKeyPair::generate(signing).map_err(backend)?)
            }
            SignatureScheme::Ed25519 => {
                KeyPairInner::Ed25519(Ed25519KeyPair::generate().map_err(backend)?)
            }
            SignatureScheme::Rsa(..) => {
                let size = rsa_key_size(key_bits).ok_or_else(|| {
                    Error::invalid_input(format!(
                        "RSA key size must be 2048, 3072, 4096 or 8192 bits, got {key_bits}"
                    ))
                })?;
                KeyPairInner::Rsa(RsaKeyPair::generate(size).map_err(backend)?)
            }
        };
        let key = SigningKey {
            module: self.clone(),
            algorithm,
            approval,
            key_bits,
            key,
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }

    fn generate_sm2_signing_key(&self, rsa_bits: Option<u32>) -> Result<Served<SigningKey>> {
        let algorithm = Algorithm::Sm2Sign;
        if rsa_bits.is_some() {
            return Err(Error::invalid_input(format!(
                "a key size applies to RSA only, not to {algorithm}"
            )));
        }
        let approval = self.authorize(algorithm, Family::Signature, &sm2_usage())?;
        let key = sm2::PrivateKey::generate(&mut self.sm2_random())
            .map_err(|e| sm2_error(algorithm, e))?;
        let key = SigningKey {
            module: self.clone(),
            algorithm,
            approval,
            key_bits: SM2_KEY_BITS,
            key: KeyPairInner::Sm2(Box::new(key)),
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }

    /// Imports a PKCS#8 (DER) private key for `algorithm`. The policy is consulted before the
    /// key is parsed, and again with its size. SM2 keys are `id-ecPublicKey` on the named curve
    /// 1.2.156.10197.1.301, as `openssl genpkey -algorithm SM2` writes them.
    pub fn signing_key_from_pkcs8(
        &self,
        algorithm: Algorithm,
        pkcs8: &[u8],
    ) -> Result<Served<SigningKey>> {
        self.authorize(algorithm, Family::Signature, &Usage::default())?;
        if algorithm == Algorithm::Sm2Sign {
            let approval = self.authorize(algorithm, Family::Signature, &sm2_usage())?;
            let key = sm2::PrivateKey::from_pkcs8_der(pkcs8).map_err(|_| {
                Error::invalid_key(algorithm, "not a PKCS#8 SM2 private key on curveSM2")
            })?;
            let key = SigningKey {
                module: self.clone(),
                algorithm,
                approval,
                key_bits: SM2_KEY_BITS,
                key: KeyPairInner::Sm2(Box::new(key)),
            };
            return Ok(self.serve(algorithm, Service::KeyImport, approval, key));
        }
        let scheme = awslc::signature(algorithm)?;
        if let SignatureScheme::VerifyOnly(_) = scheme {
            self.authorize(algorithm, Family::Signature, &signing_usage(None))?;
            return Err(verify_only(algorithm));
        }
        let rejected = |error: aws_lc_rs::error::KeyRejected| {
            Error::invalid_key(
                algorithm,
                format!("not a PKCS#8 {algorithm} private key ({error})"),
            )
        };
        let (key, key_bits) = match scheme {
            SignatureScheme::Ecdsa(signing, _) => (
                KeyPairInner::Ecdsa(EcdsaKeyPair::from_pkcs8(signing, pkcs8).map_err(rejected)?),
                curve_bits(algorithm),
            ),
            SignatureScheme::Ed25519 => (
                KeyPairInner::Ed25519(Ed25519KeyPair::from_pkcs8(pkcs8).map_err(rejected)?),
                256,
            ),
            SignatureScheme::Rsa(..) => {
                let key = RsaKeyPair::from_pkcs8(pkcs8).map_err(rejected)?;
                let bits = u32::try_from(key.public_modulus_len() * 8).unwrap_or(u32::MAX);
                (KeyPairInner::Rsa(key), bits)
            }
            SignatureScheme::MlDsa(signing, _) => (
                KeyPairInner::MlDsa(PqdsaKeyPair::from_pkcs8(signing, pkcs8).map_err(rejected)?),
                0,
            ),
            SignatureScheme::VerifyOnly(_) => return Err(verify_only(algorithm)),
        };
        let usage = signing_usage((key_bits != 0).then_some(key_bits));
        let approval = self.authorize(algorithm, Family::Signature, &usage)?;
        let key = SigningKey {
            module: self.clone(),
            algorithm,
            approval,
            key_bits,
            key,
        };
        Ok(self.serve(algorithm, Service::KeyImport, approval, key))
    }

    /// Verifies `signature` over `message` with a public key given as DER SubjectPublicKeyInfo
    /// (or, for ECDSA and Ed25519, the raw public key).
    pub fn verify(
        &self,
        algorithm: Algorithm,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<Served<()>> {
        self.ensure_operational()?;
        if algorithm == Algorithm::Sm2Sign {
            return self.verify_with_id(algorithm, public_key, message, signature, sm2::DEFAULT_ID);
        }
        let scheme = awslc::signature(algorithm)?;
        let (verification, key_bits): (&'static dyn VerificationAlgorithm, u32) = match scheme {
            SignatureScheme::Ecdsa(_, verification) => (verification, curve_bits(algorithm)),
            SignatureScheme::Ed25519 => (&signature::ED25519, 256),
            SignatureScheme::MlDsa(_, verification) => (verification, 0),
            SignatureScheme::VerifyOnly(verification) if algorithm == Algorithm::EcdsaP256Sha1 => {
                (verification, 256)
            }
            SignatureScheme::Rsa(_, verification) => {
                (verification, rsa_key_bits(algorithm, public_key)?)
            }
            // The verify-only ECDSA scheme is matched above; this is RSA PKCS#1 v1.5 with SHA-1.
            SignatureScheme::VerifyOnly(verification) => {
                (verification, rsa_key_bits(algorithm, public_key)?)
            }
        };
        let usage = Usage {
            key_bits: (key_bits != 0).then_some(key_bits),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Signature, &usage)?;
        let key = ParsedPublicKey::new(verification, public_key).map_err(|error| {
            Error::invalid_key(algorithm, format!("public key does not parse ({error})"))
        })?;
        key.verify_sig(message, signature)
            .map_err(|_| Error::BadSignature)?;
        Ok(self.serve(algorithm, Service::Verify, approval, ()))
    }

    /// Verifies an SM2 signature (DER) made by the signer `id` (at most 8191 bytes) holding
    /// `public_key` (DER SubjectPublicKeyInfo or an uncompressed point `04 ‖ x ‖ y`).
    /// Only SM2 signatures carry an ID.
    pub fn verify_with_id(
        &self,
        algorithm: Algorithm,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
        id: &[u8],
    ) -> Result<Served<()>> {
        self.ensure_operational()?;
        if algorithm != Algorithm::Sm2Sign {
            return Err(Error::invalid_input(format!(
                "a user ID applies to SM2 signatures only, not to {algorithm}"
            )));
        }
        let approval = self.authorize(algorithm, Family::Signature, &sm2_usage())?;
        let public_key = sm2::PublicKey::from_sec1_or_spki_der(public_key).map_err(|_| {
            Error::invalid_key(
                algorithm,
                "not a curveSM2 SubjectPublicKeyInfo or uncompressed point",
            )
        })?;
        let signature = sm2::Signature::from_der(signature).map_err(|_| Error::BadSignature)?;
        sm2::verify(&public_key, id, message, &signature).map_err(|e| sm2_error(algorithm, e))?;
        Ok(self.serve(algorithm, Service::Verify, approval, ()))
    }

    /// Verifies an SM2 signature (DER) over `digest` = SM3(Z_A ‖ M), 32 bytes, computed by the
    /// caller (OpenSSL's `EVP_PKEY_verify` with an SM2 key); `public_key` as for
    /// [`Module::verify_with_id`].
    pub fn verify_sm2_digest(
        &self,
        public_key: &[u8],
        digest: &[u8],
        signature: &[u8],
    ) -> Result<Served<()>> {
        let algorithm = Algorithm::Sm2Sign;
        self.ensure_operational()?;
        let approval = self.authorize(algorithm, Family::Signature, &sm2_usage())?;
        let digest: &[u8; 32] = digest.try_into().map_err(|_| {
            Error::invalid_input(format!(
                "an SM2 digest is SM3(Z_A || M), 32 bytes; got {} bytes",
                digest.len()
            ))
        })?;
        let public_key = sm2::PublicKey::from_sec1_or_spki_der(public_key).map_err(|_| {
            Error::invalid_key(
                algorithm,
                "not a curveSM2 SubjectPublicKeyInfo or uncompressed point",
            )
        })?;
        let signature = sm2::Signature::from_der(signature).map_err(|_| Error::BadSignature)?;
        sm2::verify_digest(&public_key, digest, &signature).map_err(|e| sm2_error(algorithm, e))?;
        Ok(self.serve(algorithm, Service::Verify, approval, ()))
    }
}

impl SigningKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The key size in bits (RSA modulus, curve order); 0 for ML-DSA, which has a parameter set
    /// instead.
    pub fn key_bits(&self) -> u32 {
        self.key_bits
    }

    /// The public key as DER SubjectPublicKeyInfo.
    pub fn public_key_der(&self) -> Result<Vec<u8>> {
        self.module.ensure_operational()?;
        let der: Result<PublicKeyX509Der<'static>, _> = match &self.key {
            KeyPairInner::Ecdsa(key) => key.public_key().as_der(),
            KeyPairInner::Ed25519(key) => key.public_key().as_der(),
            KeyPairInner::Rsa(key) => key.public_key().as_der(),
            KeyPairInner::MlDsa(key) => key.public_key().as_der(),
            KeyPairInner::Sm2(key) => {
                return key
                    .public_key()
                    .to_spki_der()
                    .map_err(|_| Error::CryptoFailure);
            }
        };
        Ok(der.map_err(|_| Error::CryptoFailure)?.as_ref().to_vec())
    }

    /// The private key as PKCS#8 v1 DER, wiped from memory when dropped.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        // No key leaves a module in its error state.
        self.module.ensure_operational()?;
        let der = match &self.key {
            KeyPairInner::Ecdsa(key) => key.to_pkcs8v1().map(|document| document.as_ref().to_vec()),
            KeyPairInner::Ed25519(key) => {
                key.to_pkcs8v1().map(|document| document.as_ref().to_vec())
            }
            KeyPairInner::Rsa(key) => {
                let der: Result<Pkcs8V1Der<'static>, _> = key.as_der();
                der.map(|der| der.as_ref().to_vec())
            }
            KeyPairInner::MlDsa(key) => key.to_pkcs8v1().map(|document| document.as_ref().to_vec()),
            KeyPairInner::Sm2(key) => {
                return key.to_pkcs8_der().map_err(|_| Error::CryptoFailure);
            }
        };
        Ok(Zeroizing::new(der.map_err(|_| Error::CryptoFailure)?))
    }

    /// Signs `message` (hashing it with the scheme's digest).
    pub fn sign(&self, message: &[u8]) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let signature = self.raw_sign(message)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Sign, self.approval, signature))
    }

    /// Signs `message` as the SM2 signer `id` (at most 8191 bytes); DER `SEQUENCE { r, s }`.
    /// Only SM2 signatures carry an ID.
    pub fn sign_with_id(&self, message: &[u8], id: &[u8]) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let KeyPairInner::Sm2(key) = &self.key else {
            return Err(Error::invalid_input(format!(
                "a user ID applies to SM2 signatures only, not to {}",
                self.algorithm
            )));
        };
        let signature = sm2::sign(key, id, message, &mut self.module.sm2_random())
            .map_err(|e| sm2_error(self.algorithm, e))?
            .to_der();
        Ok(self
            .module
            .serve(self.algorithm, Service::Sign, self.approval, signature))
    }

    fn raw_sign(&self, message: &[u8]) -> Result<Vec<u8>> {
        let rng = SystemRandom::new();
        match &self.key {
            KeyPairInner::Sm2(key) => {
                Ok(
                    sm2::sign(key, sm2::DEFAULT_ID, message, &mut self.module.sm2_random())
                        .map_err(|e| sm2_error(self.algorithm, e))?
                        .to_der(),
                )
            }
            KeyPairInner::Ecdsa(key) => Ok(key
                .sign(&rng, message)
                .map_err(|_| Error::CryptoFailure)?
                .as_ref()
                .to_vec()),
            KeyPairInner::Ed25519(key) => Ok(key
                .try_sign(message)
                .map_err(|_| Error::CryptoFailure)?
                .as_ref()
                .to_vec()),
            KeyPairInner::MlDsa(key) => {
                let mut signature = vec![0u8; key.algorithm().signature_len()];
                let written = key
                    .sign(message, &mut signature)
                    .map_err(|_| Error::CryptoFailure)?;
                signature.truncate(written);
                Ok(signature)
            }
            KeyPairInner::Rsa(key) => {
                let SignatureScheme::Rsa(encoding, _) = awslc::signature(self.algorithm)? else {
                    return Err(Error::CryptoFailure);
                };
                let mut signature = vec![0u8; key.public_modulus_len()];
                key.sign(encoding, &rng, message, &mut signature)
                    .map_err(|_| Error::CryptoFailure)?;
                Ok(signature)
            }
        }
    }

    fn raw_verify(&self, message: &[u8], signature: &[u8]) -> Result<()> {
        if let KeyPairInner::Sm2(key) = &self.key {
            let signature = sm2::Signature::from_der(signature).map_err(|_| Error::BadSignature)?;
            return sm2::verify(key.public_key(), sm2::DEFAULT_ID, message, &signature)
                .map_err(|_| Error::BadSignature);
        }
        let public_key = self.public_key_der()?;
        let verification: &'static dyn VerificationAlgorithm =
            match awslc::signature(self.algorithm)? {
                SignatureScheme::Ecdsa(_, verification) => verification,
                SignatureScheme::Ed25519 => &signature::ED25519,
                SignatureScheme::Rsa(_, verification) => verification,
                SignatureScheme::MlDsa(_, verification) => verification,
                SignatureScheme::VerifyOnly(verification) => verification,
            };
        ParsedPublicKey::new(verification, &public_key)
            .map_err(|_| Error::CryptoFailure)?
            .verify_sig(message, signature)
            .map_err(|_| Error::BadSignature)
    }

    /// FIPS 140-3 IG 10.3.A: sign and verify with a freshly generated key before releasing it.
    fn pairwise_consistency_test(&self) -> Result<()> {
        let name = crate::registry::entry(self.algorithm)
            .pct
            .unwrap_or("PCT-SIGNATURE");
        self.module
            .pairwise_consistency_test(self.algorithm, name, |fault: Fault| {
                const MESSAGE: &[u8] = b"Regula pairwise consistency test";
                let mut signature = self.raw_sign(MESSAGE).map_err(drop)?;
                fault.corrupt(&mut signature);
                self.raw_verify(MESSAGE, &signature).map_err(drop)
            })
    }
}
