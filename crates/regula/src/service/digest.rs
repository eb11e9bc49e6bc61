//! Message digests: SHA-1, SHA-2, SHA-3 and the legacy MD4 and MD5 (AWS-LC), SM3 (regula-sm);
//! and the FIPS 202 extendable-output functions SHAKE128 and SHAKE256 (AWS-LC), which are
//! digests of their row's default length and, through [`Module::xof`] and [`XofContext`], give
//! output of any length.

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::digest::{self as backend, Hasher, OneShot, Xof};

/// An incremental digest computation; recorded when it finishes.
pub struct DigestContext {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    hasher: Hasher,
    /// An update failed in AWS-LC; `finish` refuses to return a digest.
    poisoned: bool,
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
    /// SHA-2 hashed by AWS-LC straight into the caller's buffer, the rest one call each.
    hasher: OneShot,
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
        self.hasher.hash_into(data, out)?;
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
        Ok(Digester {
            module: self.clone(),
            algorithm,
            approval,
            hasher: OneShot::new(algorithm),
            output_len,
        })
    }

    /// Hashes `data` in one call.
    pub fn digest(&self, algorithm: Algorithm, data: &[u8]) -> Result<Served<Vec<u8>>> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        let mut output = vec![0; output_len(algorithm)?];
        backend::hash_into(algorithm, data, &mut output)?;
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
        if !backend::hashes_many_at_once(algorithm) {
            return messages
                .iter()
                .map(|message| self.digest(algorithm, message))
                .collect();
        }
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        Ok(backend::hash_many(messages)
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
        // AWS-LC's MD4/MD5 update cannot fail on a live context; if it ever did, the state
        // is poisoned so that `finish` fails instead of returning a wrong digest.
        if self.hasher.update(data).is_err() {
            self.poisoned = true;
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
        let output = self.hasher.finish()?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Digest, self.approval, output))
    }
}

/// An incremental SHAKE computation: absorb with [`XofContext::update`], then either finish
/// once, any length, with [`XofContext::finish_into`], or squeeze output in as many pieces as
/// needed with [`XofContext::squeeze`]. Each finish or squeeze is recorded as one digest
/// operation.
///
/// ```
/// # use regula::{Algorithm, Module};
/// let module = Module::load_named("default")?;
/// let mut shake = module.xof_context(Algorithm::Shake128)?;
/// shake.update(b"")?;
/// let mut out = [0u8; 16];
/// let served = shake.finish_into(&mut out)?;
/// assert_eq!((*served, served.is_approved()), (16, true));
/// assert_eq!(out[..4], [0x7f, 0x9c, 0x2b, 0xa4]); // CAVP SHAKE128ShortMsg, Len = 0
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct XofContext {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    xof: Xof,
    /// Output has been squeezed: the sponge takes no more input and cannot be finished.
    squeezed: bool,
    /// An AWS-LC call failed; no more output is returned.
    poisoned: bool,
}

impl std::fmt::Debug for XofContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XofContext")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

/// Refuses a digest row that is not an extendable-output function.
fn ensure_xof(algorithm: Algorithm) -> Result<()> {
    if algorithm.is_xof() {
        Ok(())
    } else {
        Err(Error::invalid_input(format!(
            "{algorithm} is not an extendable-output function (SHAKE128, SHAKE256)"
        )))
    }
}

impl Module {
    /// SHAKE128 or SHAKE256 of `data`, `output_len` bytes long.
    pub fn xof(
        &self,
        algorithm: Algorithm,
        data: &[u8],
        output_len: usize,
    ) -> Result<Served<Vec<u8>>> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        ensure_xof(algorithm)?;
        let mut output = vec![0; output_len];
        backend::xof_into(algorithm, data, &mut output)?;
        Ok(self.serve(algorithm, Service::Digest, approval, output))
    }

    /// Starts an incremental SHAKE128 or SHAKE256 computation; see [`XofContext`].
    pub fn xof_context(&self, algorithm: Algorithm) -> Result<XofContext> {
        let approval = self.authorize(algorithm, Family::Digest, &Usage::default())?;
        ensure_xof(algorithm)?;
        Ok(XofContext {
            module: self.clone(),
            algorithm,
            approval,
            xof: Xof::new(algorithm)?,
            squeezed: false,
            poisoned: false,
        })
    }
}

impl XofContext {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Absorbs `data`; refused once output has been squeezed.
    pub fn update(&mut self, data: &[u8]) -> Result<()> {
        if self.squeezed {
            return Err(Error::invalid_input(format!(
                "{}: no more input once output has been squeezed",
                self.algorithm
            )));
        }
        // AWS-LC's update cannot fail on a live, absorbing context; if it ever did, the state
        // is poisoned so that no output is returned.
        self.xof.update(data).inspect_err(|_| self.poisoned = true)
    }

    /// A copy of the computation so far (OpenSSL's `EVP_MD_CTX_copy`).
    pub fn try_clone(&self) -> Result<XofContext> {
        self.module.ensure_operational()?;
        Ok(XofContext {
            module: self.module.clone(),
            algorithm: self.algorithm,
            approval: self.approval,
            xof: self.xof.try_clone()?,
            squeezed: self.squeezed,
            poisoned: self.poisoned,
        })
    }

    /// Fills all of `out` with the next bytes of output and returns its length; the output of
    /// successive calls is one continuous stream, the same bytes one `finish_into` of their total
    /// length gives. After the first squeeze, `update` and `finish_into` fail (the sponge has
    /// left its absorbing phase). On an error nothing is written and the context is spent.
    pub fn squeeze(&mut self, out: &mut [u8]) -> Result<Served<usize>> {
        self.module.ensure_operational()?;
        if self.poisoned {
            return Err(Error::CryptoFailure);
        }
        let mut output = zeroize::Zeroizing::new(vec![0; out.len()]);
        self.squeezed = true;
        self.xof
            .squeeze(&mut output)
            .inspect_err(|_| self.poisoned = true)?;
        out.copy_from_slice(&output);
        Ok(self
            .module
            .serve(self.algorithm, Service::Digest, self.approval, out.len()))
    }

    /// Fills all of `out` with output and returns its length. On an error nothing is written.
    pub fn finish_into(self, out: &mut [u8]) -> Result<Served<usize>> {
        self.module.ensure_operational()?;
        if self.poisoned {
            return Err(Error::CryptoFailure);
        }
        if self.squeezed {
            return Err(Error::invalid_input(format!(
                "{}: output already squeezed; squeeze the rest",
                self.algorithm
            )));
        }
        // Squeezed into a scratch buffer first, so that a failure leaves `out` untouched.
        let mut output = zeroize::Zeroizing::new(vec![0; out.len()]);
        self.xof.finish_into(&mut output)?;
        out.copy_from_slice(&output);
        Ok(self
            .module
            .serve(self.algorithm, Service::Digest, self.approval, out.len()))
    }
}
