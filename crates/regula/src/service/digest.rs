//! Message digests: SHA-1 (legacy), SHA-2, SHA-3.

use aws_lc_rs::digest;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::Result;
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc;

/// An incremental digest computation; recorded when it finishes.
pub struct DigestContext {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    context: digest::Context,
}

impl Module {
    /// Hashes `data` in one call.
    pub fn digest(&self, algorithm: Algorithm, data: &[u8]) -> Result<Served<Vec<u8>>> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        let output = digest::digest(awslc::digest(algorithm)?, data)
            .as_ref()
            .to_vec();
        Ok(self.serve(algorithm, Service::Digest, approval, output))
    }

    /// Starts an incremental digest, for data that arrives in pieces.
    pub fn digest_context(&self, algorithm: Algorithm) -> Result<DigestContext> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        let context = digest::Context::new(awslc::digest(algorithm)?);
        Ok(DigestContext {
            module: self.clone(),
            algorithm,
            approval,
            context,
        })
    }
}

impl std::fmt::Debug for DigestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DigestContext")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl DigestContext {
    pub fn update(&mut self, data: &[u8]) {
        self.context.update(data);
    }

    pub fn finish(self) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let output = self.context.finish().as_ref().to_vec();
        Ok(self
            .module
            .serve(self.algorithm, Service::Digest, self.approval, output))
    }
}
