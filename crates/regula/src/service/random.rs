//! Random bits: AWS-LC's SP 800-90A CTR_DRBG, or under a policy that approves them instead
//! (`gm`), Regula's GM/T 0105-2021 SM3 or SM4 generator, seeded from the operating system.
//! [`Policy::random_algorithm`](crate::Policy::random_algorithm) picks one; the same
//! generator serves [`Module::fill_random`] and the module's own keys, nonces and IVs.

use std::sync::Mutex;

use regula_sm::drbg::{DrbgError, Mechanism, Rng, SecurityLevel};

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::fork_detect;
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::Usage;

/// Personalization string of the module's GM/T 0105 generators (GM/T 0105 §5.6 recommends
/// one that tells instances apart; the process id does).
fn personalization() -> Vec<u8> {
    let mut p = b"regula gm/t 0105 ".to_vec();
    p.extend_from_slice(&std::process::id().to_be_bytes());
    p
}

/// The module's GM/T 0105 generator, instantiated on first use and shared by its threads, with
/// the fork generation it was instantiated in: a child process made by `fork` instantiates its
/// own from fresh entropy instead of repeating its parent's output
/// ([`fork_detect::generation`]).
#[derive(Default)]
pub(crate) struct GmRandom(Mutex<Option<(Rng, u64)>>);

impl GmRandom {
    fn fill(&self, algorithm: Algorithm, output: &mut [u8]) -> Result<()> {
        let mechanism = match algorithm {
            Algorithm::Sm3Drbg => Mechanism::Sm3,
            Algorithm::Sm4CtrDrbg => Mechanism::Sm4Ctr,
            _ => return Err(Error::CryptoFailure),
        };
        // A poisoned lock means a thread panicked mid-request; the state is still whole (the
        // generator updates it only after success), so carry on with it.
        let mut slot = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let generation = fork_detect::generation();
        if slot
            .as_ref()
            .is_none_or(|(rng, made_in)| rng.mechanism() != mechanism || *made_in != generation)
        {
            // Drop (and wipe) a copied parent state before drawing the child's.
            *slot = None;
            let entropy = Box::new(|out: &mut [u8]| {
                getrandom::fill(out).map_err(|_| DrbgError::EntropySource)
            });
            let rng = Rng::new(mechanism, SecurityLevel::One, &personalization(), entropy)
                .map_err(|_| Error::CryptoFailure)?;
            *slot = Some((rng, generation));
        }
        let (rng, _) = slot.as_mut().ok_or(Error::CryptoFailure)?;
        rng.fill(output).map_err(|_| Error::CryptoFailure)
    }
}

impl Module {
    /// Fills `output` from the policy's random bit generator.
    pub fn fill_random(&self, output: &mut [u8]) -> Result<Served<()>> {
        self.fill_random_with(self.random_algorithm(), output)
    }

    /// Fills `output` from a named generator (`ctr-drbg`, `sm3-drbg`, `sm4-ctr-drbg`), as the
    /// policy rules on it.
    pub fn fill_random_with(&self, algorithm: Algorithm, output: &mut [u8]) -> Result<Served<()>> {
        let approval = self.authorize(algorithm, Family::Random, &Usage::default())?;
        self.random_into(algorithm, output)?;
        Ok(self.serve(algorithm, Service::RandomGeneration, approval, ()))
    }

    /// `len` bytes from the policy's random bit generator.
    pub fn random_bytes(&self, len: usize) -> Result<Served<Vec<u8>>> {
        let mut output = vec![0u8; len];
        let ((), indicator) = self.fill_random(&mut output)?.into_parts();
        Ok(Served::new(output, indicator))
    }

    /// Random bytes from AWS-LC's DRBG for keys and salts that an application built on the
    /// module feeds to its services (the encrypted-file format's file keys, salts, nonce
    /// prefixes and key files): the CASTs of the random sources run first (see
    /// [`Module::random_source_self_test`]); the draw itself is no service and does not count,
    /// the services the bytes go to carry the indicator. The generator is AWS-LC's under every
    /// profile.
    pub fn fill_key_material(&self, output: &mut [u8]) -> Result<()> {
        self.ensure_operational()?;
        self.random_source_self_test()?;
        aws_lc_rs::rand::fill(output).map_err(|_| Error::CryptoFailure)
    }

    /// Randomness for the module's own use (private keys, nonces, IVs) from the policy's
    /// generator; the service that uses it carries the indicator.
    pub(crate) fn internal_random(&self, output: &mut [u8]) -> Result<()> {
        self.random_into(self.random_algorithm(), output)
    }

    fn random_into(&self, algorithm: Algorithm, output: &mut [u8]) -> Result<()> {
        match algorithm {
            Algorithm::Sm3Drbg | Algorithm::Sm4CtrDrbg => self.gm_random().fill(algorithm, output),
            _ => aws_lc_rs::rand::fill(output).map_err(|_| Error::CryptoFailure),
        }
    }

    /// [`Module::internal_random`] in the form regula-sm's SM2 takes.
    pub(crate) fn sm2_random(
        &self,
    ) -> impl FnMut(&mut [u8]) -> std::result::Result<(), regula_sm::sm2::Error> + '_ {
        |out| {
            self.internal_random(out)
                .map_err(|_| regula_sm::sm2::Error::Random)
        }
    }
}
