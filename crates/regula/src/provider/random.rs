//! The random bit generators: AWS-LC's SP 800-90A CTR_DRBG, and regula-sm's GM/T 0105-2021
//! SM3 and SM4 generators, seeded from the operating system.

use std::sync::Mutex;

use regula_sm::drbg::{DrbgError, Mechanism, Rng, SecurityLevel};

use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::fork_detect;

/// Fills `output` from AWS-LC's generator (inside the validated boundary in a `fips` build).
#[inline]
pub(crate) fn aws_lc_fill(output: &mut [u8]) -> Result<()> {
    aws_lc_rs::rand::fill(output).map_err(|_| Error::CryptoFailure)
}

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
    pub(crate) fn fill(&self, algorithm: Algorithm, output: &mut [u8]) -> Result<()> {
        let mechanism = match algorithm {
            Algorithm::Sm3Drbg => Mechanism::Sm3,
            Algorithm::Sm4CtrDrbg => Mechanism::Sm4Ctr,
            _ => return Err(Error::CryptoFailure),
        };
        if mechanism == Mechanism::Sm4Ctr {
            super::sm::forced_backends(algorithm)?;
        }
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
