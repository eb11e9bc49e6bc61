//! Random bits from AWS-LC's SP 800-90A CTR_DRBG.

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::Usage;

impl Module {
    /// Fills `output` with DRBG output.
    pub fn fill_random(&self, output: &mut [u8]) -> Result<Served<()>> {
        let approval = self.authorize(Algorithm::CtrDrbg, Family::Random, &Usage::default())?;
        aws_lc_rs::rand::fill(output).map_err(|_| Error::CryptoFailure)?;
        Ok(self.serve(Algorithm::CtrDrbg, Service::RandomGeneration, approval, ()))
    }

    /// `len` bytes of DRBG output.
    pub fn random_bytes(&self, len: usize) -> Result<Served<Vec<u8>>> {
        let mut output = vec![0u8; len];
        let ((), indicator) = self.fill_random(&mut output)?.into_parts();
        Ok(Served::new(output, indicator))
    }
}
