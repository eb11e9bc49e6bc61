//! Message digests: SHA-1 (legacy), SHA-2, SHA-3.

use aws_lc_rs::digest;
use regula_sm::sm3::Sm3;

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
    hasher: Hasher,
}

/// The provider's incremental state.
enum Hasher {
    AwsLc(digest::Context),
    Sm3(Box<Sm3>),
}

impl Hasher {
    fn new(algorithm: Algorithm) -> Result<Hasher> {
        Ok(match algorithm {
            Algorithm::Sm3 => Hasher::Sm3(Box::default()),
            _ => Hasher::AwsLc(digest::Context::new(awslc::digest(algorithm)?)),
        })
    }
}

impl Module {
    /// Hashes `data` in one call.
    pub fn digest(&self, algorithm: Algorithm, data: &[u8]) -> Result<Served<Vec<u8>>> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        let output = match algorithm {
            Algorithm::Sm3 => regula_sm::sm3::sm3(data).to_vec(),
            _ => digest::digest(awslc::digest(algorithm)?, data)
                .as_ref()
                .to_vec(),
        };
        Ok(self.serve(algorithm, Service::Digest, approval, output))
    }

    /// Starts an incremental digest, for data that arrives in pieces.
    pub fn digest_context(&self, algorithm: Algorithm) -> Result<DigestContext> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        let hasher = Hasher::new(algorithm)?;
        Ok(DigestContext {
            module: self.clone(),
            algorithm,
            approval,
            hasher,
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
        match &mut self.hasher {
            Hasher::AwsLc(context) => context.update(data),
            Hasher::Sm3(hash) => hash.update(data),
        }
    }

    pub fn finish(self) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let output = match self.hasher {
            Hasher::AwsLc(context) => context.finish().as_ref().to_vec(),
            Hasher::Sm3(hash) => hash.finalize().to_vec(),
        };
        Ok(self
            .module
            .serve(self.algorithm, Service::Digest, self.approval, output))
    }
}
