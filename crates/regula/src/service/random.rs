//! Random bits: AWS-LC's SP 800-90A CTR_DRBG, or under a policy that approves them instead
//! (`gm`), Regula's GM/T 0105-2021 SM3 or SM4 generator, seeded from the operating system.
//! [`Policy::random_algorithm`](crate::Policy::random_algorithm) picks one; the same
//! generator serves [`Module::fill_random`] and the module's own keys, nonces and IVs.

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::Result;
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::Usage;
use crate::provider::random as backend;

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
        crate::provider::random::aws_lc_fill(output)
    }

    /// Randomness for the module's own use (private keys, nonces, IVs) from the policy's
    /// generator; the service that uses it carries the indicator.
    pub(crate) fn internal_random(&self, output: &mut [u8]) -> Result<()> {
        self.random_into(self.random_algorithm(), output)
    }

    fn random_into(&self, algorithm: Algorithm, output: &mut [u8]) -> Result<()> {
        match algorithm {
            Algorithm::Sm3Drbg | Algorithm::Sm4CtrDrbg => self.gm_random().fill(algorithm, output),
            _ => backend::aws_lc_fill(output),
        }
    }
}
