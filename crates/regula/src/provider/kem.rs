//! ML-KEM (FIPS 203) keys for the KEM service, AWS-LC's.

use aws_lc_rs::kem::{Ciphertext, DecapsulationKey, EncapsulationKey};
use zeroize::Zeroizing;

use super::awslc;
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::service::kem::Encapsulated;

/// An ML-KEM decapsulation key; AWS-LC wipes it on drop.
pub(crate) struct KemBackend(DecapsulationKey);

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

impl KemBackend {
    pub(crate) fn generate(algorithm: Algorithm) -> Result<KemBackend> {
        DecapsulationKey::generate(awslc::kem(algorithm)?)
            .map(KemBackend)
            .map_err(|_| Error::CryptoFailure)
    }

    /// A decapsulation key in FIPS 203's encoding.
    pub(crate) fn from_bytes(algorithm: Algorithm, decapsulation_key: &[u8]) -> Result<KemBackend> {
        DecapsulationKey::new(awslc::kem(algorithm)?, decapsulation_key)
            .map(KemBackend)
            .map_err(|_| Error::invalid_key(algorithm, "not an encoded decapsulation key"))
    }

    /// The encoded encapsulation (public) key.
    pub(crate) fn encapsulation_key(&self) -> Result<Vec<u8>> {
        let key = self
            .0
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
        let bytes = self.0.key_bytes().map_err(|_| Error::CryptoFailure)?;
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
            .0
            .decapsulate(Ciphertext::from(ciphertext))
            .map_err(|_| Error::invalid_input(format!("not a {algorithm} ciphertext")))?;
        Ok(Zeroizing::new(secret.as_ref().to_vec()))
    }

    /// A fresh shared secret encapsulated to this key's own public key (the pairwise
    /// consistency test).
    pub(crate) fn encapsulate_to_self(&self) -> Result<Encapsulated> {
        let public = self
            .0
            .encapsulation_key()
            .map_err(|_| Error::CryptoFailure)?;
        encapsulate_to(&public)
    }
}
