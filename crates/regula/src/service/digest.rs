//! Message digests: SHA-1, SHA-2, SHA-3 and the legacy MD4 and MD5 (AWS-LC), SM3 (regula-sm).

use aws_lc_rs::digest;
use regula_sm::sm3::Sm3;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc;
use crate::provider::awslc_sys::{self, DigestCtx, Sha2};

/// An incremental digest computation; recorded when it finishes.
pub struct DigestContext {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    hasher: Hasher,
    /// An update failed in AWS-LC; `finish` refuses to return a digest.
    poisoned: bool,
}

/// The provider's incremental state.
enum Hasher {
    AwsLc(digest::Context),
    Sm3(Box<Sm3>),
    /// MD4 and MD5 through AWS-LC's C interface.
    Legacy(DigestCtx),
}

impl Hasher {
    fn new(algorithm: Algorithm) -> Result<Hasher> {
        if let Some(legacy) = awslc::legacy_digest(algorithm) {
            return DigestCtx::new(legacy)
                .map(Hasher::Legacy)
                .map_err(|_| Error::CryptoFailure);
        }
        Ok(match algorithm {
            Algorithm::Sm3 => Hasher::Sm3(Box::default()),
            _ => Hasher::AwsLc(digest::Context::new(awslc::digest(algorithm)?)),
        })
    }

    fn try_clone(&self) -> Result<Hasher> {
        Ok(match self {
            Hasher::AwsLc(context) => Hasher::AwsLc(context.clone()),
            Hasher::Sm3(hash) => Hasher::Sm3(hash.clone()),
            Hasher::Legacy(context) => {
                Hasher::Legacy(context.try_clone().map_err(|_| Error::CryptoFailure)?)
            }
        })
    }
}

/// A digest algorithm bound to a module, for many one-shot digests into the caller's buffers.
/// Like a cipher key it takes the policy's verdict once, when it is made (dated rules apply as
/// on that day); each call then costs one check of the module state, the hash and its
/// indicator, with nothing allocated.
///
/// ```
/// # use regula::{Algorithm, Module};
/// let module = Module::load_named("default")?;
/// let sha256 = module.digester(Algorithm::Sha256)?;
/// let mut out = [0u8; 32];
/// let served = sha256.digest_into(b"abc", &mut out)?;
/// assert_eq!((*served, served.is_approved()), (32, true));
/// assert_eq!(out[..4], [0xba, 0x78, 0x16, 0xbf]); // FIPS 180-4 example
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Digester {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    /// SHA-2, hashed by AWS-LC straight into the caller's buffer; the rest through
    /// [`hash_into`].
    sha2: Option<Sha2>,
    output_len: usize,
}

/// The digest length of `algorithm` in bytes, from its registry row.
fn output_len(algorithm: Algorithm) -> Result<usize> {
    let entry = crate::registry::entry(algorithm);
    match (entry.family, entry.sizes.output) {
        (Family::Digest, Some(len)) => Ok(len),
        _ => Err(Error::WrongFamily {
            algorithm,
            expected: Family::Digest,
        }),
    }
}

/// Hashes `data` in one call into `out`, which holds exactly the digest: MD4 and MD5 through
/// AWS-LC's legacy functions, SM3 through regula-sm, the rest through aws-lc-rs.
fn hash_into(algorithm: Algorithm, data: &[u8], out: &mut [u8]) -> Result<()> {
    match algorithm {
        _ if let Some(legacy) = awslc::legacy_digest(algorithm) => {
            let mut context = DigestCtx::new(legacy).map_err(|_| Error::CryptoFailure)?;
            context.update(data).map_err(|_| Error::CryptoFailure)?;
            let output = context.finish().map_err(|_| Error::CryptoFailure)?;
            out.copy_from_slice(output.get(..out.len()).ok_or(Error::CryptoFailure)?);
        }
        Algorithm::Sm3 => out.copy_from_slice(&regula_sm::sm3::sm3(data)),
        _ => out.copy_from_slice(digest::digest(awslc::digest(algorithm)?, data).as_ref()),
    }
    Ok(())
}

impl std::fmt::Debug for Digester {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Digester")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl Digester {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The digest length in bytes.
    pub fn output_len(&self) -> usize {
        self.output_len
    }

    /// Hashes `data` into the first [`Digester::output_len`] bytes of `out` and returns that
    /// length. A shorter `out` is an input error and nothing is written.
    pub fn digest_into(&self, data: &[u8], out: &mut [u8]) -> Result<Served<usize>> {
        self.module.ensure_operational()?;
        let len = self.output_len;
        let given = out.len();
        let Some(out) = out.get_mut(..len) else {
            return Err(Error::invalid_input(format!(
                "{}: an output buffer of {given} bytes is shorter than the {len}-byte digest",
                self.algorithm
            )));
        };
        match self.sha2 {
            Some(sha2) => {
                awslc_sys::sha2_into(sha2, data, out).map_err(|_| Error::CryptoFailure)?;
            }
            None => hash_into(self.algorithm, data, out)?,
        }
        Ok(self
            .module
            .serve(self.algorithm, Service::Digest, self.approval, len))
    }
}

impl Module {
    /// Binds a digest algorithm for many one-shot digests into caller buffers; see
    /// [`Digester`].
    pub fn digester(&self, algorithm: Algorithm) -> Result<Digester> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        let output_len = output_len(algorithm)?;
        let sha2 = match algorithm {
            Algorithm::Sha224 => Some(Sha2::Sha224),
            Algorithm::Sha256 => Some(Sha2::Sha256),
            Algorithm::Sha384 => Some(Sha2::Sha384),
            Algorithm::Sha512 => Some(Sha2::Sha512),
            _ => None,
        };
        Ok(Digester {
            module: self.clone(),
            algorithm,
            approval,
            sha2,
            output_len,
        })
    }

    /// Hashes `data` in one call.
    pub fn digest(&self, algorithm: Algorithm, data: &[u8]) -> Result<Served<Vec<u8>>> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        let mut output = vec![0; output_len(algorithm)?];
        hash_into(algorithm, data, &mut output)?;
        Ok(self.serve(algorithm, Service::Digest, approval, output))
    }

    /// Hashes many independent messages, in order; each counts as one digest operation in the
    /// indicator and the counters. SM3 hashes them side by side on SIMD lanes (AVX-512: 16,
    /// AVX2: 8 at once), several times faster than one after another: use it for many files,
    /// records, or the levels of a Merkle tree.
    pub fn digest_many(
        &self,
        algorithm: Algorithm,
        messages: &[&[u8]],
    ) -> Result<Vec<Served<Vec<u8>>>> {
        if algorithm != Algorithm::Sm3 {
            return messages
                .iter()
                .map(|message| self.digest(algorithm, message))
                .collect();
        }
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        Ok(regula_sm::sm3::hash_many(messages)
            .into_iter()
            .map(|digest| self.serve(algorithm, Service::Digest, approval, digest.to_vec()))
            .collect())
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
            poisoned: false,
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
            // AWS-LC's MD4/MD5 update cannot fail on a live context; if it ever did, the state
            // is poisoned so that `finish` fails instead of returning a wrong digest.
            Hasher::Legacy(context) => {
                if context.update(data).is_err() {
                    self.poisoned = true;
                }
            }
        }
    }

    /// A copy of the computation so far, e.g. to read an intermediate hash and keep going (the
    /// SMB 3.1.1 pre-authentication integrity hash).
    pub fn try_clone(&self) -> Result<DigestContext> {
        self.module.ensure_operational()?;
        Ok(DigestContext {
            module: self.module.clone(),
            algorithm: self.algorithm,
            approval: self.approval,
            hasher: self.hasher.try_clone()?,
            poisoned: self.poisoned,
        })
    }

    pub fn finish(self) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        if self.poisoned {
            return Err(Error::CryptoFailure);
        }
        let output = match self.hasher {
            Hasher::AwsLc(context) => context.finish().as_ref().to_vec(),
            Hasher::Sm3(hash) => hash.finalize().to_vec(),
            Hasher::Legacy(context) => context.finish().map_err(|_| Error::CryptoFailure)?,
        };
        Ok(self
            .module
            .serve(self.algorithm, Service::Digest, self.approval, output))
    }
}
