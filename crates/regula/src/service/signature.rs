//! Digital signatures: ECDSA P-256/P-384/P-521, Ed25519, RSA-PSS, RSA PKCS#1 v1.5 and ML-DSA
//! (FIPS 204) from AWS-LC, and SM2 (GB/T 32918.2) from regula-sm. SHA-1 signatures
//! (`rsa-pkcs1-sha1`, `ecdsa-p256-sha1`) can only be verified.
//!
//! SM2 signatures bind a signer's user ID. [`SigningKey::sign`] and [`Module::verify`] use the
//! default ID of GM/T 0009-2012 (`1234567812345678`); [`SigningKey::sign_with_id`] and
//! [`Module::verify_with_id`] take another, e.g. RFC 8998's `TLSv1.3+GM+Cipher+Suite` for TLS 1.3
//! CertificateVerify (`TLSv1.3+GM+Cipher+Suite`). SM2 signatures are DER
//! `SEQUENCE { r, s }` and public keys DER SubjectPublicKeyInfo or an uncompressed point.

use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Mode, Usage};
use crate::provider::awslc_sys::{self, MlDsaFailure};
use crate::provider::signature::{self as backend, SchemeKind, SigningBackend};
use crate::provider::sm::SM2_DEFAULT_ID;
use crate::selftest::Fault;

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
    key: SigningBackend,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("algorithm", &self.algorithm)
            .field("key_bits", &self.key_bits)
            .finish_non_exhaustive()
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
    backend::rsa_key_bits(algorithm, public_key)
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
        let scheme = backend::scheme_kind(algorithm)?;
        if scheme == SchemeKind::VerifyOnly {
            self.authorize(algorithm, Family::Signature, &signing_usage(None))?;
            return Err(verify_only(algorithm));
        }
        let key_bits = match (scheme, rsa_bits) {
            (SchemeKind::Rsa, bits) => bits.unwrap_or(3072),
            (SchemeKind::MlDsa, None) => 0,
            (_, None) => curve_bits(algorithm),
            (_, Some(_)) => {
                return Err(Error::invalid_input(format!(
                    "a key size applies to RSA only, not to {algorithm}"
                )));
            }
        };
        let usage = signing_usage((key_bits != 0).then_some(key_bits));
        let approval = self.authorize(algorithm, Family::Signature, &usage)?;
        let key = SigningBackend::generate(algorithm, key_bits)?;
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
        let key = SigningBackend::generate_sm2(algorithm, &mut |out| self.internal_random(out))?;
        let key = SigningKey {
            module: self.clone(),
            algorithm,
            approval,
            key_bits: SM2_KEY_BITS,
            key,
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
            let key = SigningBackend::sm2_from_pkcs8(algorithm, pkcs8)?;
            let key = SigningKey {
                module: self.clone(),
                algorithm,
                approval,
                key_bits: SM2_KEY_BITS,
                key,
            };
            return Ok(self.serve(algorithm, Service::KeyImport, approval, key));
        }
        if backend::scheme_kind(algorithm)? == SchemeKind::VerifyOnly {
            self.authorize(algorithm, Family::Signature, &signing_usage(None))?;
            return Err(verify_only(algorithm));
        }
        let (key, key_bits) = SigningBackend::from_pkcs8(algorithm, pkcs8, curve_bits(algorithm))?;
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
            return self.verify_with_id(algorithm, public_key, message, signature, SM2_DEFAULT_ID);
        }
        let scheme = backend::scheme_kind(algorithm)?;
        let key_bits = match scheme {
            SchemeKind::Ecdsa => curve_bits(algorithm),
            SchemeKind::Ed25519 => 256,
            SchemeKind::MlDsa => 0,
            SchemeKind::VerifyOnly if algorithm == Algorithm::EcdsaP256Sha1 => 256,
            SchemeKind::Rsa => rsa_key_bits(algorithm, public_key)?,
            // The verify-only ECDSA scheme is matched above; this is RSA PKCS#1 v1.5 with SHA-1.
            SchemeKind::VerifyOnly => rsa_key_bits(algorithm, public_key)?,
        };
        let verifier = backend::verifier(algorithm)?;
        let usage = Usage {
            key_bits: (key_bits != 0).then_some(key_bits),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Signature, &usage)?;
        verifier.verify(algorithm, public_key, message, signature)?;
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
        backend::sm2_verify(algorithm, public_key, id, message, signature)?;
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
        backend::sm2_verify_digest(algorithm, public_key, digest, signature)?;
        Ok(self.serve(algorithm, Service::Verify, approval, ()))
    }
}

/// FIPS 204 caps a context string at 255 bytes.
pub const ML_DSA_MAX_CONTEXT: usize = 255;

/// Whether this build's AWS-LC takes a non-empty ML-DSA context string
/// ([`SigningKey::sign_with_context`], [`Module::verify_with_context`]): the ordinary build
/// (aws-lc-sys) does; the FIPS build's validated module (aws-lc-fips-sys 0.14) handles
/// `EVP_PKEY_CTX_set_signature_context` for Ed25519ph only, so there both refuse a non-empty
/// context with an input error.
pub const ML_DSA_CONTEXT_STRINGS: bool = cfg!(not(feature = "fips"));

fn ml_dsa_set(algorithm: Algorithm) -> Result<awslc_sys::MlDsa> {
    match algorithm {
        Algorithm::MlDsa44 => Ok(awslc_sys::MlDsa::MlDsa44),
        Algorithm::MlDsa65 => Ok(awslc_sys::MlDsa::MlDsa65),
        Algorithm::MlDsa87 => Ok(awslc_sys::MlDsa::MlDsa87),
        other => Err(Error::invalid_input(format!(
            "a context string and an external mu apply to ML-DSA only, not to {other}"
        ))),
    }
}

fn check_context(context: &[u8]) -> Result<()> {
    if context.len() > ML_DSA_MAX_CONTEXT {
        return Err(Error::invalid_input(format!(
            "an ML-DSA context string is at most {ML_DSA_MAX_CONTEXT} bytes (FIPS 204); got {}",
            context.len()
        )));
    }
    Ok(())
}

/// The error of a failed ML-DSA call with a context string or an external mu; `failed` is
/// what a failed operation means (a bad signature when verifying).
fn ml_dsa_error(algorithm: Algorithm, failure: MlDsaFailure, failed: Error) -> Error {
    match failure {
        MlDsaFailure::Key => Error::invalid_key(
            algorithm,
            format!("not an {algorithm} key in the expected encoding"),
        ),
        MlDsaFailure::ContextUnsupported => Error::invalid_input(format!(
            "this build's AWS-LC takes no context string for {algorithm}; only the empty one"
        )),
        MlDsaFailure::Operation => failed,
    }
}

impl Module {
    /// Verifies an ML-DSA signature over `message` made with the context string `context`
    /// (FIPS 204 ML-DSA.Verify, at most 255 bytes; empty is what [`Module::verify`] uses).
    /// `public_key` is DER SubjectPublicKeyInfo, as for [`Module::verify`]. A FIPS build whose
    /// AWS-LC takes no ML-DSA context string refuses a non-empty one with an input error.
    pub fn verify_with_context(
        &self,
        algorithm: Algorithm,
        public_key: &[u8],
        message: &[u8],
        context: &[u8],
        signature: &[u8],
    ) -> Result<Served<()>> {
        self.ensure_operational()?;
        let set = ml_dsa_set(algorithm)?;
        check_context(context)?;
        let approval = self.authorize(algorithm, Family::Signature, &Usage::default())?;
        awslc_sys::ml_dsa_verify_with_context(set, public_key, message, context, signature)
            .map_err(|failure| ml_dsa_error(algorithm, failure, Error::BadSignature))?;
        Ok(self.serve(algorithm, Service::Verify, approval, ()))
    }

    /// Verifies an ML-DSA signature over an external mu (FIPS 204 section 6.3's
    /// ML-DSA.Verify_internal with `mu = H(tr || M', 64)` computed by the caller, 64 bytes):
    /// ACVP's "internal" interface with `externalMu`. `public_key` as for [`Module::verify`].
    pub fn verify_external_mu(
        &self,
        algorithm: Algorithm,
        public_key: &[u8],
        mu: &[u8],
        signature: &[u8],
    ) -> Result<Served<()>> {
        self.ensure_operational()?;
        let set = ml_dsa_set(algorithm)?;
        let mu: &[u8; 64] = mu.try_into().map_err(|_| {
            Error::invalid_input(format!(
                "an ML-DSA external mu is 64 bytes; got {} bytes",
                mu.len()
            ))
        })?;
        let approval = self.authorize(algorithm, Family::Signature, &Usage::default())?;
        awslc_sys::ml_dsa_verify_external_mu(set, public_key, mu, signature)
            .map_err(|failure| ml_dsa_error(algorithm, failure, Error::BadSignature))?;
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
        self.key.public_key_der()
    }

    /// The private key as PKCS#8 v1 DER, wiped from memory when dropped.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        // No key leaves a module in its error state.
        self.module.ensure_operational()?;
        self.key.to_pkcs8_der()
    }

    /// An ML-DSA key's expanded private key (FIPS 204 skEncode, 2560/4032/4896 bytes), as
    /// OpenSSL's "priv" key parameter and NIST's ACVP data carry it; wiped when dropped. A key
    /// of another scheme is refused.
    pub fn ml_dsa_expanded_private_key(&self) -> Result<Zeroizing<Vec<u8>>> {
        // No key leaves a module in its error state.
        self.module.ensure_operational()?;
        self.key.ml_dsa_expanded_private_key().unwrap_or_else(|| {
            Err(Error::invalid_input(format!(
                "an expanded ML-DSA private key was asked of a {} key",
                self.algorithm
            )))
        })
    }

    /// Signs `message` (hashing it with the scheme's digest).
    pub fn sign(&self, message: &[u8]) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let signature = self.raw_sign(message)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Sign, self.approval, signature))
    }

    /// Signs a digest the caller computed (ECDSA keys only; PKCS#11's `CKM_ECDSA`, which GnuTLS
    /// and OpenSSL's PKCS#11 engine ask a token for): 28, 32, 48 or 64 bytes, the sizes of
    /// SHA-224/256/384/512 and SHA3's, read as ECDSA reads a hash (its leftmost bits where it is
    /// longer than the curve's order; a SHA-1 digest is refused: Regula creates no SHA-1
    /// signature). The module did not compute the hash, so the service is not approved: a strict
    /// policy refuses it, a permissive one serves it with the indicator saying not approved.
    pub fn sign_digest(&self, digest: &[u8]) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        if backend::scheme_kind(self.algorithm)? != SchemeKind::Ecdsa {
            return Err(Error::invalid_input(format!(
                "only ECDSA keys sign a digest the caller computed, not {} keys",
                self.algorithm
            )));
        }
        if !matches!(digest.len(), 28 | 32 | 48 | 64) {
            return Err(Error::invalid_input(format!(
                "an ECDSA digest is 28, 32, 48 or 64 bytes (SHA-224 to SHA-512), not {}",
                digest.len()
            )));
        }
        let policy = self.module.policy();
        if policy.mode() == Mode::Strict {
            return Err(Error::NotApproved {
                algorithm: self.algorithm,
                policy: policy.name().to_string(),
                reason: "signing a digest computed outside the module is not approved".into(),
                alternative: Some("the ECDSA scheme with its hash (the module hashes the message)"),
            });
        }
        let signature = self
            .key
            .sign_digest(self.algorithm, digest)
            .ok_or(Error::CryptoFailure)??;
        Ok(self.module.serve(
            self.algorithm,
            Service::Sign,
            Approval::NotApproved,
            signature,
        ))
    }

    /// Signs `message` with ML-DSA and the context string `context` (FIPS 204 ML-DSA.Sign,
    /// hedged with AWS-LC's own randomness; at most 255 bytes, empty being what
    /// [`SigningKey::sign`] uses). Only ML-DSA keys take a context string; a FIPS build whose
    /// AWS-LC takes no ML-DSA context string refuses a non-empty one with an input error.
    pub fn sign_with_context(&self, message: &[u8], context: &[u8]) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let set = ml_dsa_set(self.algorithm)?;
        check_context(context)?;
        let pkcs8 = self.key.to_pkcs8_der()?;
        let signature = awslc_sys::ml_dsa_sign_with_context(set, &pkcs8, message, context)
            .map_err(|failure| ml_dsa_error(self.algorithm, failure, Error::CryptoFailure))?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Sign, self.approval, signature))
    }

    /// Signs `message` as the SM2 signer `id` (at most 8191 bytes); DER `SEQUENCE { r, s }`.
    /// Only SM2 signatures carry an ID.
    pub fn sign_with_id(&self, message: &[u8], id: &[u8]) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let random = &mut |out: &mut [u8]| self.module.internal_random(out);
        let Some(signature) = self
            .key
            .sign_sm2_with_id(self.algorithm, id, message, random)
        else {
            return Err(Error::invalid_input(format!(
                "a user ID applies to SM2 signatures only, not to {}",
                self.algorithm
            )));
        };
        let signature = signature?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Sign, self.approval, signature))
    }

    fn raw_sign(&self, message: &[u8]) -> Result<Vec<u8>> {
        let random = &mut |out: &mut [u8]| self.module.internal_random(out);
        self.key.sign(self.algorithm, message, random)
    }

    fn raw_verify(&self, message: &[u8], signature: &[u8]) -> Result<()> {
        // The public key is read as `public_key_der` reads it: only in an operational module.
        if !self.key.is_sm2() {
            self.module.ensure_operational()?;
        }
        self.key.verify_own(self.algorithm, message, signature)
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
