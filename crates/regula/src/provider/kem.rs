//! ML-KEM (FIPS 203) keys for the KEM service, AWS-LC's.

use aws_lc_rs::kem::{Ciphertext, DecapsulationKey, EncapsulationKey};
use zeroize::Zeroizing;

use super::{awslc, awslc_sys};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::service::kem::Encapsulated;

/// An ML-KEM decapsulation key; AWS-LC wipes it on drop. A key generated from a seed keeps
/// its encapsulation key beside it: aws-lc-rs rebuilds a decapsulation key from its encoding
/// without one.
pub(crate) struct KemBackend {
    key: DecapsulationKey,
    encapsulation_key: Option<Vec<u8>>,
}

impl KemBackend {
    fn of(key: DecapsulationKey) -> KemBackend {
        KemBackend {
            key,
            encapsulation_key: None,
        }
    }
}

fn encapsulate_to(key: &EncapsulationKey) -> Result<Encapsulated> {
    let (ciphertext, secret) = key.encapsulate().map_err(|_| Error::CryptoFailure)?;
    Ok(Encapsulated {
        ciphertext: ciphertext.as_ref().to_vec(),
        shared_secret: Zeroizing::new(secret.as_ref().to_vec()),
    })
}

/// Encapsulates a fresh shared secret to an encoded encapsulation (public) key.
pub(crate) fn encapsulate(algorithm: Algorithm, encapsulation_key: &[u8]) -> Result<Encapsulated> {
    let key = EncapsulationKey::new(awslc::kem(algorithm)?, encapsulation_key)
        .map_err(|_| Error::invalid_key(algorithm, "not an encoded encapsulation key"))?;
    encapsulate_to(&key)
}

fn sys_kem(algorithm: Algorithm) -> Result<awslc_sys::MlKem> {
    match algorithm {
        Algorithm::MlKem768 => Ok(awslc_sys::MlKem::MlKem768),
        Algorithm::MlKem1024 => Ok(awslc_sys::MlKem::MlKem1024),
        other => Err(Error::WrongFamily {
            algorithm: other,
            expected: crate::algorithm::Family::Kem,
        }),
    }
}

/// FIPS 203 ML-KEM.Encaps_internal with the caller's `m` (known-answer testing).
pub(crate) fn encapsulate_with_m(
    algorithm: Algorithm,
    encapsulation_key: &[u8],
    m: &[u8; 32],
) -> Result<Encapsulated> {
    let kem = sys_kem(algorithm)?;
    let (ciphertext, shared_secret) =
        awslc_sys::ml_kem_encapsulate_with_m(kem, encapsulation_key, m)
            .map_err(|_| Error::invalid_key(algorithm, "not an encoded encapsulation key"))?;
    Ok(Encapsulated {
        ciphertext,
        shared_secret,
    })
}

impl KemBackend {
    /// FIPS 203 ML-KEM.KeyGen_internal from `d ‖ z` (known-answer testing).
    pub(crate) fn from_seed(algorithm: Algorithm, seed: &[u8; 64]) -> Result<KemBackend> {
        let kem = sys_kem(algorithm)?;
        let (decapsulation_key, encapsulation_key) =
            awslc_sys::ml_kem_keygen_from_seed(kem, seed).map_err(|_| Error::CryptoFailure)?;
        let mut backend = KemBackend::from_bytes(algorithm, &decapsulation_key)?;
        backend.encapsulation_key = Some(encapsulation_key);
        Ok(backend)
    }

    pub(crate) fn generate(algorithm: Algorithm) -> Result<KemBackend> {
        DecapsulationKey::generate(awslc::kem(algorithm)?)
            .map(KemBackend::of)
            .map_err(|_| Error::CryptoFailure)
    }

    /// A decapsulation key in FIPS 203's encoding.
    pub(crate) fn from_bytes(algorithm: Algorithm, decapsulation_key: &[u8]) -> Result<KemBackend> {
        let mut backend = DecapsulationKey::new(awslc::kem(algorithm)?, decapsulation_key)
            .map(KemBackend::of)
            .map_err(|_| Error::invalid_key(algorithm, "not an encoded decapsulation key"))?;
        // AWS-LC gives no encapsulation key for a decapsulation key it was handed; FIPS 203's
        // encoding carries it: dk = dk_PKE ‖ ek ‖ H(ek) ‖ z, with dk_PKE 384·k bytes and ek
        // 384·k + 32 (so dk is 768·k + 96).
        let pke_len = decapsulation_key.len().saturating_sub(96) / 2;
        backend.encapsulation_key = decapsulation_key
            .get(pke_len..2 * pke_len + 32)
            .map(<[u8]>::to_vec);
        Ok(backend)
    }

    /// The encoded encapsulation (public) key.
    pub(crate) fn encapsulation_key(&self) -> Result<Vec<u8>> {
        if let Some(encapsulation_key) = &self.encapsulation_key {
            return Ok(encapsulation_key.clone());
        }
        let key = self
            .key
            .encapsulation_key()
            .map_err(|_| Error::CryptoFailure)?;
        Ok(key
            .key_bytes()
            .map_err(|_| Error::CryptoFailure)?
            .as_ref()
            .to_vec())
    }

    /// The decapsulation key in FIPS 203's encoding, wiped on drop.
    pub(crate) fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>> {
        let bytes = self.key.key_bytes().map_err(|_| Error::CryptoFailure)?;
        Ok(Zeroizing::new(bytes.as_ref().to_vec()))
    }

    /// The shared secret in `ciphertext`; a malformed ciphertext is an input error naming
    /// `algorithm`.
    pub(crate) fn decapsulate(
        &self,
        algorithm: Algorithm,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        let secret = self
            .key
            .decapsulate(Ciphertext::from(ciphertext))
            .map_err(|_| Error::invalid_input(format!("not a {algorithm} ciphertext")))?;
        Ok(Zeroizing::new(secret.as_ref().to_vec()))
    }

    /// A fresh shared secret encapsulated to this key's own public key (the pairwise
    /// consistency test).
    pub(crate) fn encapsulate_to_self(&self) -> Result<Encapsulated> {
        let public = match &self.encapsulation_key {
            Some(bytes) => EncapsulationKey::new(self.key.algorithm(), bytes)
                .map_err(|_| Error::CryptoFailure)?,
            None => self
                .key
                .encapsulation_key()
                .map_err(|_| Error::CryptoFailure)?,
        };
        encapsulate_to(&public)
    }
}
