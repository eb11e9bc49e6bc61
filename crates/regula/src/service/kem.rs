//! Key encapsulation: ML-KEM-768 and ML-KEM-1024 (FIPS 203).

use aws_lc_rs::kem::{Ciphertext, DecapsulationKey, EncapsulationKey};
use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc;
use crate::selftest::Fault;

/// The output of encapsulation: send `ciphertext`, keep `shared_secret`.
#[derive(Debug)]
pub struct Encapsulated {
    pub ciphertext: Vec<u8>,
    pub shared_secret: Zeroizing<Vec<u8>>,
}

/// An ML-KEM decapsulation (private) key bound to a module; AWS-LC wipes it on drop.
pub struct KemPrivateKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    key: DecapsulationKey,
}

impl std::fmt::Debug for KemPrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KemPrivateKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

fn encapsulate_to(key: &EncapsulationKey) -> Result<Encapsulated> {
    let (ciphertext, secret) = key.encapsulate().map_err(|_| Error::CryptoFailure)?;
    Ok(Encapsulated {
        ciphertext: ciphertext.as_ref().to_vec(),
        shared_secret: Zeroizing::new(secret.as_ref().to_vec()),
    })
}

impl Module {
    /// Generates a decapsulation key and runs its pairwise consistency test.
    pub fn generate_kem_key(&self, algorithm: Algorithm) -> Result<Served<KemPrivateKey>> {
        let approval = self.authorize(algorithm, Family::Kem, &Usage::default())?;
        let key =
            DecapsulationKey::generate(awslc::kem(algorithm)?).map_err(|_| Error::CryptoFailure)?;
        let key = KemPrivateKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }

    /// Encapsulates a fresh shared secret to an encoded encapsulation (public) key.
    /// Imports a decapsulation key in FIPS 203's encoding (as [`KemPrivateKey::to_bytes`]
    /// gives it).
    pub fn kem_key_from_bytes(
        &self,
        algorithm: Algorithm,
        decapsulation_key: &[u8],
    ) -> Result<Served<KemPrivateKey>> {
        let approval = self.authorize(algorithm, Family::Kem, &Usage::default())?;
        let key = DecapsulationKey::new(awslc::kem(algorithm)?, decapsulation_key)
            .map_err(|_| Error::invalid_key(algorithm, "not an encoded decapsulation key"))?;
        let key = KemPrivateKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        };
        Ok(self.serve(algorithm, Service::KeyImport, approval, key))
    }

    pub fn encapsulate(
        &self,
        algorithm: Algorithm,
        encapsulation_key: &[u8],
    ) -> Result<Served<Encapsulated>> {
        let approval = self.authorize(algorithm, Family::Kem, &Usage::default())?;
        let key = EncapsulationKey::new(awslc::kem(algorithm)?, encapsulation_key)
            .map_err(|_| Error::invalid_key(algorithm, "not an encoded encapsulation key"))?;
        let encapsulated = encapsulate_to(&key)?;
        Ok(self.serve(algorithm, Service::Encapsulate, approval, encapsulated))
    }
}

impl KemPrivateKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The encoded encapsulation (public) key to hand to peers.
    pub fn encapsulation_key(&self) -> Result<Vec<u8>> {
        self.module.ensure_operational()?;
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

    /// The decapsulation key in FIPS 203's encoding, for storing a long-term key; wiped on
    /// drop.
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>> {
        self.module.ensure_operational()?;
        let bytes = self.key.key_bytes().map_err(|_| Error::CryptoFailure)?;
        Ok(Zeroizing::new(bytes.as_ref().to_vec()))
    }

    pub fn decapsulate(&self, ciphertext: &[u8]) -> Result<Served<Zeroizing<Vec<u8>>>> {
        self.module.ensure_operational()?;
        let secret = self.raw_decapsulate(ciphertext)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Decapsulate, self.approval, secret))
    }

    fn raw_decapsulate(&self, ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let secret = self
            .key
            .decapsulate(Ciphertext::from(ciphertext))
            .map_err(|_| Error::invalid_input(format!("not a {} ciphertext", self.algorithm)))?;
        Ok(Zeroizing::new(secret.as_ref().to_vec()))
    }

    /// FIPS 203 / IG 10.3.A: encapsulate to the new key and decapsulate the same secret.
    fn pairwise_consistency_test(&self) -> Result<()> {
        let name = crate::registry::entry(self.algorithm)
            .pct
            .unwrap_or("PCT-ML-KEM");
        self.module
            .pairwise_consistency_test(self.algorithm, name, |fault: Fault| {
                let public = self.key.encapsulation_key().map_err(drop)?;
                let mut encapsulated = encapsulate_to(&public).map_err(drop)?;
                fault.corrupt(&mut encapsulated.shared_secret);
                let decapsulated = self
                    .raw_decapsulate(&encapsulated.ciphertext)
                    .map_err(drop)?;
                if decapsulated == encapsulated.shared_secret {
                    Ok(())
                } else {
                    Err(())
                }
            })
    }
}
