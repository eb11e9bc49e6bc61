//! A known-answer CTR_DRBG: AWS-LC's SP 800-90A CTR_DRBG (AES-256, no derivation function)
//! instantiated from entropy the caller gives, for answering ACVP's ctrDRBG cases and other
//! published known-answer tests.
//!
//! [`KnownAnswerCtrDrbg`] is a type of its own: nothing in the module draws from it, and it
//! cannot stand in for the module's random bit generator ([`Module::fill_random`]), whose
//! entropy only the operating system gives. Its state is cleansed when it is dropped.
//!
//! SP 800-90A 10.2.1.3.1: without a derivation function the seed material is
//! `entropy_input ⊕ personalization_string` (the string padded with zeros to the 48-byte seed
//! length) and no nonce is used; entropy inputs are exactly 48 bytes, the personalization
//! string and each additional input at most 48.

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc_sys::{
    CTR_DRBG_MAX_GENERATE, CTR_DRBG_SEED_LEN, KnownAnswerCtrDrbgState,
};

/// AWS-LC's AES-256 CTR_DRBG (no derivation function) seeded by the caller, for known-answer
/// tests only. Obtained from [`Module::known_answer_ctr_drbg`]; never the module's generator.
pub struct KnownAnswerCtrDrbg {
    module: Module,
    approval: Approval,
    state: KnownAnswerCtrDrbgState,
}

impl std::fmt::Debug for KnownAnswerCtrDrbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnownAnswerCtrDrbg").finish_non_exhaustive()
    }
}

fn entropy_input(entropy: &[u8]) -> Result<&[u8; CTR_DRBG_SEED_LEN]> {
    entropy.try_into().map_err(|_| {
        Error::invalid_input(format!(
            "CTR_DRBG (AES-256, no derivation function) takes {CTR_DRBG_SEED_LEN} bytes of \
             entropy input; got {} bytes",
            entropy.len()
        ))
    })
}

fn at_most_seed_len(what: &str, input: &[u8]) -> Result<()> {
    if input.len() > CTR_DRBG_SEED_LEN {
        return Err(Error::invalid_input(format!(
            "a CTR_DRBG {what} is at most {CTR_DRBG_SEED_LEN} bytes without a derivation \
             function; got {} bytes",
            input.len()
        )));
    }
    Ok(())
}

impl Module {
    /// Known-answer testing only: instantiates AWS-LC's CTR_DRBG (AES-256, no derivation
    /// function) from the caller's 48-byte `entropy_input` and `personalization` (at most 48
    /// bytes). The policy rules on `ctr-drbg` and its self-test runs first; every generate is
    /// recorded in the indicator. The instance never serves the module's own randomness.
    pub fn known_answer_ctr_drbg(
        &self,
        entropy: &[u8],
        personalization: &[u8],
    ) -> Result<KnownAnswerCtrDrbg> {
        let approval = self.authorize(Algorithm::CtrDrbg, Family::Random, &Usage::default())?;
        let entropy = entropy_input(entropy)?;
        at_most_seed_len("personalization string", personalization)?;
        let state = KnownAnswerCtrDrbgState::new(entropy, personalization)
            .map_err(|_| Error::CryptoFailure)?;
        Ok(KnownAnswerCtrDrbg {
            module: self.clone(),
            approval,
            state,
        })
    }
}

impl KnownAnswerCtrDrbg {
    /// Reseeds with the caller's 48-byte `entropy_input` and `additional_input` (at most 48
    /// bytes).
    pub fn reseed(&mut self, entropy: &[u8], additional_input: &[u8]) -> Result<()> {
        self.module.ensure_operational()?;
        let entropy = entropy_input(entropy)?;
        at_most_seed_len("additional input", additional_input)?;
        self.state
            .reseed(entropy, additional_input)
            .map_err(|_| Error::CryptoFailure)
    }

    /// Fills `output` (at most 65536 bytes a call) after absorbing `additional_input` (at most
    /// 48 bytes).
    pub fn generate(&mut self, output: &mut [u8], additional_input: &[u8]) -> Result<Served<()>> {
        self.module.ensure_operational()?;
        at_most_seed_len("additional input", additional_input)?;
        if output.len() > CTR_DRBG_MAX_GENERATE {
            return Err(Error::invalid_input(format!(
                "CTR_DRBG generates at most {CTR_DRBG_MAX_GENERATE} bytes a call; asked for {}",
                output.len()
            )));
        }
        self.state
            .generate(output, additional_input)
            .map_err(|_| Error::CryptoFailure)?;
        Ok(self.module.serve(
            Algorithm::CtrDrbg,
            Service::RandomGeneration,
            self.approval,
            (),
        ))
    }
}
