//! The digests the digest service computes: SHA-1, SHA-2 and SHA-3 (aws-lc-rs, SHA-2 one-shot
//! through AWS-LC's C functions), MD4, MD5, SHAKE128 and SHAKE256 (AWS-LC's C interface), SM3
//! (regula-sm). The registry row's provider decides which backend serves an algorithm.

use aws_lc_rs::digest;
use regula_sm::sm3::Sm3;

use super::awslc;
use super::awslc_sys::{self, DigestCtx, Sha2, XofCtx};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::registry::{self, Provider};

/// Whether regula-sm serves `algorithm` (SM3).
fn served_by_regula_sm(algorithm: Algorithm) -> bool {
    registry::entry(algorithm).provider == Provider::RegulaSm
}

/// An incremental digest state.
pub(crate) enum Hasher {
    AwsLc(digest::Context),
    Sm3(Box<Sm3>),
    /// MD4 and MD5 through AWS-LC's C interface.
    Legacy(DigestCtx),
    /// SHAKE through AWS-LC's C interface, finished at its row's default length.
    Xof(Xof, usize),
}

impl Hasher {
    pub(crate) fn new(algorithm: Algorithm) -> Result<Hasher> {
        if let Some(legacy) = awslc::legacy_digest(algorithm) {
            return DigestCtx::new(legacy)
                .map(Hasher::Legacy)
                .map_err(|_| Error::CryptoFailure);
        }
        if awslc::shake(algorithm).is_some() {
            let default_len = registry::entry(algorithm).sizes.output.unwrap_or(0);
            return Ok(Hasher::Xof(Xof::new(algorithm)?, default_len));
        }
        Ok(match algorithm {
            _ if served_by_regula_sm(algorithm) => Hasher::Sm3(Box::default()),
            _ => Hasher::AwsLc(digest::Context::new(awslc::digest(algorithm)?)),
        })
    }

    pub(crate) fn try_clone(&self) -> Result<Hasher> {
        Ok(match self {
            Hasher::AwsLc(context) => Hasher::AwsLc(context.clone()),
            Hasher::Sm3(hash) => Hasher::Sm3(hash.clone()),
            Hasher::Legacy(context) => {
                Hasher::Legacy(context.try_clone().map_err(|_| Error::CryptoFailure)?)
            }
            Hasher::Xof(xof, len) => Hasher::Xof(xof.try_clone()?, *len),
        })
    }

    /// Feeds `data`. Only AWS-LC's MD4/MD5/SHAKE update can fail (it never does on a live context);
    /// the caller then refuses to finish.
    #[inline]
    pub(crate) fn update(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Hasher::AwsLc(context) => context.update(data),
            Hasher::Sm3(hash) => hash.update(data),
            Hasher::Legacy(context) => {
                return context.update(data).map_err(|_| Error::CryptoFailure);
            }
            Hasher::Xof(xof, _) => return xof.update(data),
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<Vec<u8>> {
        Ok(match self {
            Hasher::AwsLc(context) => context.finish().as_ref().to_vec(),
            Hasher::Sm3(hash) => hash.finalize().to_vec(),
            Hasher::Legacy(context) => context.finish().map_err(|_| Error::CryptoFailure)?,
            Hasher::Xof(xof, len) => {
                let mut output = vec![0; len];
                xof.finish_into(&mut output)?;
                output
            }
        })
    }
}

/// An incremental SHAKE computation: absorb, then squeeze once into a buffer of any length.
pub(crate) struct Xof(XofCtx);

impl Xof {
    /// Fails for an algorithm that is not an extendable-output function.
    pub(crate) fn new(algorithm: Algorithm) -> Result<Xof> {
        let shake = awslc::shake(algorithm).ok_or(Error::CryptoFailure)?;
        XofCtx::new(shake)
            .map(Xof)
            .map_err(|_| Error::CryptoFailure)
    }

    pub(crate) fn update(&mut self, data: &[u8]) -> Result<()> {
        self.0.update(data).map_err(|_| Error::CryptoFailure)
    }

    /// Fills all of `out` with output.
    pub(crate) fn finish_into(self, out: &mut [u8]) -> Result<()> {
        self.0.finish_into(out).map_err(|_| Error::CryptoFailure)
    }

    /// Fills all of `out` with the next output bytes; may be called again.
    pub(crate) fn squeeze(&mut self, out: &mut [u8]) -> Result<()> {
        self.0.squeeze(out).map_err(|_| Error::CryptoFailure)
    }

    pub(crate) fn try_clone(&self) -> Result<Xof> {
        self.0
            .try_clone()
            .map(Xof)
            .map_err(|_| Error::CryptoFailure)
    }
}

/// SHAKE of `data` in one call, filling all of `out`.
pub(crate) fn xof_into(algorithm: Algorithm, data: &[u8], out: &mut [u8]) -> Result<()> {
    let mut xof = Xof::new(algorithm)?;
    xof.update(data)?;
    xof.finish_into(out)
}

/// Hashes `data` in one call into `out`, which holds exactly the digest: MD4 and MD5 through
/// AWS-LC's legacy functions, SHAKE through AWS-LC's XOF functions (`out`'s length), SM3 through regula-sm, the rest through aws-lc-rs.
pub(crate) fn hash_into(algorithm: Algorithm, data: &[u8], out: &mut [u8]) -> Result<()> {
    match algorithm {
        _ if let Some(legacy) = awslc::legacy_digest(algorithm) => {
            let mut context = DigestCtx::new(legacy).map_err(|_| Error::CryptoFailure)?;
            context.update(data).map_err(|_| Error::CryptoFailure)?;
            let output = context.finish().map_err(|_| Error::CryptoFailure)?;
            out.copy_from_slice(output.get(..out.len()).ok_or(Error::CryptoFailure)?);
        }
        _ if awslc::shake(algorithm).is_some() => xof_into(algorithm, data, out)?,
        Algorithm::Sm3 => out.copy_from_slice(&regula_sm::sm3::sm3(data)),
        _ => out.copy_from_slice(digest::digest(awslc::digest(algorithm)?, data).as_ref()),
    }
    Ok(())
}

/// Whether `algorithm` hashes many messages side by side on SIMD lanes ([`hash_many`]).
pub(crate) fn hashes_many_at_once(algorithm: Algorithm) -> bool {
    algorithm == Algorithm::Sm3
}

/// SM3 of many independent messages side by side, in order.
pub(crate) fn hash_many(messages: &[&[u8]]) -> Vec<[u8; 32]> {
    regula_sm::sm3::hash_many(messages)
}

/// One-shot digests of one algorithm into the caller's buffers: SHA-2 hashed by AWS-LC
/// straight into the buffer, the rest through [`hash_into`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct OneShot {
    algorithm: Algorithm,
    sha2: Option<Sha2>,
}

impl OneShot {
    pub(crate) fn new(algorithm: Algorithm) -> OneShot {
        let sha2 = match algorithm {
            Algorithm::Sha224 => Some(Sha2::Sha224),
            Algorithm::Sha256 => Some(Sha2::Sha256),
            Algorithm::Sha384 => Some(Sha2::Sha384),
            Algorithm::Sha512 => Some(Sha2::Sha512),
            _ => None,
        };
        OneShot { algorithm, sha2 }
    }

    /// Hashes `data` into `out`, which holds exactly the digest.
    #[inline]
    pub(crate) fn hash_into(&self, data: &[u8], out: &mut [u8]) -> Result<()> {
        match self.sha2 {
            Some(sha2) => awslc_sys::sha2_into(sha2, data, out).map_err(|_| Error::CryptoFailure),
            None => hash_into(self.algorithm, data, out),
        }
    }
}
