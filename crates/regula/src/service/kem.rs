//! Key encapsulation: ML-KEM-768 and ML-KEM-1024 (FIPS 203).

use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::kem::{self as backend, KemBackend};
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
    key: KemBackend,
}

impl std::fmt::Debug for KemPrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KemPrivateKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl Module {
    /// Generates a decapsulation key and runs its pairwise consistency test.
    pub fn generate_kem_key(&self, algorithm: Algorithm) -> Result<Served<KemPrivateKey>> {
        let approval = self.authorize(algorithm, Family::Kem, &Usage::default())?;
        let key = KemBackend::generate(algorithm)?;
        let key = KemPrivateKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }

    /// Known-answer testing only: FIPS 203's ML-KEM.KeyGen_internal(d, z), the key generation
    /// whose randomness is the caller's 64-byte `seed` = `d ‖ z` (ACVP's ML-KEM keyGen cases).
    /// A key for use comes from [`Module::generate_kem_key`], which draws `d` and `z` itself.
    /// The same policy gate, pairwise consistency test and indicator as key generation; the
    /// result is the module's ordinary [`KemPrivateKey`].
    pub fn known_answer_kem_keygen(
        &self,
        algorithm: Algorithm,
        seed: &[u8],
    ) -> Result<Served<KemPrivateKey>> {
        let approval = self.authorize(algorithm, Family::Kem, &Usage::default())?;
        let seed: &[u8; 64] = seed.try_into().map_err(|_| {
            Error::invalid_input(format!(
                "an {algorithm} key generation seed is d || z, 64 bytes; got {} bytes",
                seed.len()
            ))
        })?;
        let key = KemBackend::from_seed(algorithm, seed)?;
        let key = KemPrivateKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }

    /// Known-answer testing only: FIPS 203's ML-KEM.Encaps_internal(ek, m), encapsulation whose
    /// randomness is the caller's 32-byte `m` (ACVP's ML-KEM encapsulation cases). To share a
    /// secret use [`Module::encapsulate`], which draws `m` itself.
    pub fn known_answer_encapsulate(
        &self,
        algorithm: Algorithm,
        encapsulation_key: &[u8],
        m: &[u8],
    ) -> Result<Served<Encapsulated>> {
        let approval = self.authorize(algorithm, Family::Kem, &Usage::default())?;
        let m: &[u8; 32] = m.try_into().map_err(|_| {
            Error::invalid_input(format!(
                "{algorithm} encapsulation randomness m is 32 bytes; got {} bytes",
                m.len()
            ))
        })?;
        let encapsulated = backend::encapsulate_with_m(algorithm, encapsulation_key, m)?;
        Ok(self.serve(algorithm, Service::Encapsulate, approval, encapsulated))
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
        let key = KemBackend::from_bytes(algorithm, decapsulation_key)?;
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
        let encapsulated = backend::encapsulate(algorithm, encapsulation_key)?;
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
        self.key.encapsulation_key()
    }

    /// The decapsulation key in FIPS 203's encoding, for storing a long-term key; wiped on
    /// drop.
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>> {
        self.module.ensure_operational()?;
        self.key.to_bytes()
    }

    pub fn decapsulate(&self, ciphertext: &[u8]) -> Result<Served<Zeroizing<Vec<u8>>>> {
        self.module.ensure_operational()?;
        let secret = self.raw_decapsulate(ciphertext)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Decapsulate, self.approval, secret))
    }

    fn raw_decapsulate(&self, ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        self.key.decapsulate(self.algorithm, ciphertext)
    }

    /// FIPS 203 / IG 10.3.A: encapsulate to the new key and decapsulate the same secret.
    fn pairwise_consistency_test(&self) -> Result<()> {
        let name = crate::registry::entry(self.algorithm)
            .pct
            .unwrap_or("PCT-ML-KEM");
        self.module
            .pairwise_consistency_test(self.algorithm, name, |fault: Fault| {
                let mut encapsulated = self.key.encapsulate_to_self().map_err(drop)?;
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
