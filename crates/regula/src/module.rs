//! The module: a loaded policy, its self-test state, and the gate every service passes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::{CounterRow, Counters, Indicator, IndicatorState, ScopeState, Served};
use crate::policy::{Approval, Policy, PolicyFileError, Usage};
use crate::selftest::{self, Casts, Fault, SelfTestResult, SelfTestStatus};

/// Names the one self-test to corrupt, so that its failure path can be exercised end to end.
pub const BREAK_SELFTEST_ENV: &str = "REGULA_BREAK_SELFTEST";

/// Whether the module serves anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModuleState {
    /// No self-test has failed; services are offered as the policy allows (each algorithm's
    /// CAST runs before its first use).
    Operational,
    /// A self-test failed; every cryptographic service is refused.
    Error,
}

/// A handle on a loaded module. Cheap to clone; clones share everything including the
/// indicator scope, while [`Module::scope`] makes a handle with a fresh scope.
#[derive(Clone)]
pub struct Module {
    core: Arc<Core>,
    scope: Arc<ScopeState>,
}

struct Core {
    policy: Policy,
    /// The policy's name, interned so that every [`Indicator`] can carry it by reference.
    policy_name: &'static str,
    failed: AtomicBool,
    /// The first self-test that failed, kept for error messages.
    failure: OnceLock<String>,
    /// The policy's CASTs, each run before the first use of an algorithm it covers.
    casts: Casts,
    counters: Counters,
    /// Value of [`BREAK_SELFTEST_ENV`] at load time.
    broken_test: Option<String>,
    /// The policy's random bit generator when no date can change it: asking the policy reads
    /// the clock, a cost on every nonce and IV. `None`: asked per request.
    fixed_generator: Option<Algorithm>,
    /// The GM/T 0105 generator, instantiated on first use when the policy's random algorithm
    /// is one (see [`Policy::random_algorithm`]).
    gm_random: crate::provider::random::GmRandom,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("policy", &self.core.policy_name)
            .field("state", &self.state())
            .finish_non_exhaustive()
    }
}

impl Module {
    /// Loads a policy. No CAST runs here: each runs before the first service of an algorithm it
    /// covers (FIPS 140-3 IG 10.3.A), and [`Module::run_self_tests`] runs them all. The module is
    /// always returned; check [`Module::state`]: after a self-test failure (or a break switch
    /// naming no self-test) it refuses every service.
    pub fn load(policy: Policy) -> Module {
        // Keeps the identity record in every program that loads a module (see `identity`).
        std::hint::black_box(crate::identity::record());
        let broken_test = std::env::var(BREAK_SELFTEST_ENV)
            .ok()
            .filter(|name| !name.is_empty());
        let failure = OnceLock::new();
        // Fail closed on a typo: a break switch naming no self-test would otherwise let a
        // failure-path test pass without testing anything.
        if let Some(name) = &broken_test
            && !selftest::list()
                .iter()
                .any(|test| test.name == name && test.runner == selftest::Runner::Regula)
        {
            let _ = failure.set(format!("{name} (unknown name in {BREAK_SELFTEST_ENV})"));
        }
        let core = Core {
            policy_name: intern(policy.name()),
            failed: AtomicBool::new(failure.get().is_some()),
            failure,
            casts: Casts::new(&policy),
            counters: Counters::new(),
            broken_test,
            fixed_generator: (!policy.random_algorithm_is_dated())
                .then(|| policy.random_algorithm()),
            gm_random: Default::default(),
            policy,
        };
        Module {
            core: Arc::new(core),
            scope: Arc::default(),
        }
    }

    /// [`Module::load`] for a built-in profile name or a policy file path.
    pub fn load_named(name_or_path: &str) -> Result<Module, PolicyFileError> {
        Ok(Module::load(Policy::load(name_or_path)?))
    }

    pub fn policy(&self) -> &Policy {
        &self.core.policy
    }

    pub(crate) fn gm_random(&self) -> &crate::provider::random::GmRandom {
        &self.core.gm_random
    }

    pub fn state(&self) -> ModuleState {
        if self.core.failed.load(Ordering::Acquire) {
            ModuleState::Error
        } else {
            ModuleState::Operational
        }
    }

    /// The self-test that put the module in its error state, if any.
    pub fn failed_test(&self) -> Option<&str> {
        self.core.failure.get().map(String::as_str)
    }

    /// Runs every CAST the policy needs that has not run yet, then returns the result of each
    /// (in a stable order), with what made it run. A failure puts the module in its error
    /// state. `regula selftest` and `regula check` call this, and so do the C, Python and Go
    /// bindings when they load a module.
    pub fn run_self_tests(&self) -> Vec<SelfTestResult> {
        let results = self.core.casts.run_all(self.core.broken_test.as_deref());
        if let Some(failed) = results.iter().find(|result| !result.passed) {
            self.enter_error_state(failed.name);
        }
        results
    }

    /// Each CAST the policy needs, with its result if it has run; runs nothing. Right after
    /// load none has run; a CAST whose algorithms were never used never runs.
    pub fn self_test_status(&self) -> Vec<SelfTestStatus> {
        self.core.casts.status()
    }

    fn enter_error_state(&self, failed_test: &str) {
        let _ = self.core.failure.set(failed_test.to_string());
        self.core.failed.store(true, Ordering::Release);
    }

    /// Runs the CAST covering `algorithm` unless it already ran, and for a family whose
    /// services may draw random bits (IVs and nonces, key generation, signing, encapsulation,
    /// key agreement and exchange, SM2 encryption), first the CASTs of the random bit
    /// generators (see [`Module::random_source_self_test`]). This is the one place where a CAST
    /// runs before first use; a failure enters the error state and refuses this request.
    fn self_test(&self, algorithm: Algorithm) -> Result<()> {
        let draws_random = matches!(
            algorithm.family(),
            Family::Aead
                | Family::Cipher
                | Family::Signature
                | Family::KeyAgreement
                | Family::Kem
                | Family::PublicKeyEncryption
                | Family::KeyExchange
        );
        if draws_random {
            self.random_source_self_test()?;
        }
        self.run_cast(algorithm)
    }

    /// Runs, unless they already ran, the CASTs of the random bit generators services draw
    /// from: AWS-LC's CTR_DRBG (when the policy serves it) and the policy's own generator.
    /// For code that draws from AWS-LC's DRBG without a service of its own (file keys, salts).
    pub(crate) fn random_source_self_test(&self) -> Result<()> {
        let policy = &self.core.policy;
        for generator in [Algorithm::CtrDrbg, self.random_algorithm()] {
            if policy.serves(generator) {
                self.run_cast(generator)?;
            }
        }
        Ok(())
    }

    fn run_cast(&self, algorithm: Algorithm) -> Result<()> {
        let broken = self.core.broken_test.as_deref();
        if let selftest::Outcome::Failed(name) = self.core.casts.run_for(algorithm, broken) {
            self.enter_error_state(name);
        }
        self.ensure_operational()
    }

    /// A handle on the same module with its own indicator scope, e.g. one per request or task.
    pub fn scope(&self) -> Module {
        Module {
            core: Arc::clone(&self.core),
            scope: Arc::default(),
        }
    }

    /// Whether two handles share one loaded module (the scopes of one module do).
    pub fn same_module(&self, other: &Module) -> bool {
        Arc::ptr_eq(&self.core, &other.core)
    }

    /// The aggregate approval of the operations made through this scope since its last reset.
    pub fn indicator_state(&self) -> IndicatorState {
        self.scope.get()
    }

    pub fn reset_indicator(&self) {
        self.scope.reset();
    }

    /// Module-wide operation counts, over all scopes.
    pub fn counters(&self) -> Vec<CounterRow> {
        self.core.counters.snapshot()
    }

    /// The random bit generator the module's keys, nonces and IVs come from
    /// ([`Policy::random_algorithm`], today).
    #[inline]
    pub(crate) fn random_algorithm(&self) -> Algorithm {
        self.core
            .fixed_generator
            .unwrap_or_else(|| self.core.policy.random_algorithm())
    }

    /// Refuses everything once a self-test has failed ([`Error::ModuleInErrorState`]). Inlined
    /// into every service call: one load and a predicted branch, the error built out of line.
    /// Applications built on the module call it before work that uses no service yet.
    #[inline]
    pub fn ensure_operational(&self) -> Result<()> {
        if self.core.failed.load(Ordering::Acquire) {
            return Err(self.error_state());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn error_state(&self) -> Error {
        Error::ModuleInErrorState {
            failed_test: self.failed_test().unwrap_or("unknown").to_string(),
        }
    }

    /// The gate in front of every service: module state, algorithm family, the policy's verdict
    /// for this use, then the algorithm's CAST if it has not run yet.
    pub(crate) fn authorize(
        &self,
        algorithm: Algorithm,
        family: Family,
        usage: &Usage,
    ) -> Result<Approval> {
        self.ensure_operational()?;
        if algorithm.family() != family {
            return Err(Error::WrongFamily {
                algorithm,
                expected: family,
            });
        }
        let approval = self.core.policy.evaluate(algorithm, usage)?;
        self.self_test(algorithm)?;
        if let Some(bits) = usage.key_bits {
            self.core.counters.note_key_bits(algorithm, bits);
        }
        Ok(approval)
    }

    /// The smallest key size (bits) of the requests this module let through for an algorithm,
    /// where the request named one (key generation, import, signing, TLS certificates).
    pub fn smallest_key_bits(&self, algorithm: Algorithm) -> Option<u32> {
        self.core.counters.smallest_key_bits(algorithm)
    }

    /// Records a completed operation and wraps its result.
    #[inline]
    pub(crate) fn serve<T>(
        &self,
        algorithm: Algorithm,
        service: Service,
        approval: Approval,
        value: T,
    ) -> Served<T> {
        self.core.counters.increment(algorithm, service, approval);
        self.scope.record(approval);
        Served::new(
            value,
            Indicator {
                algorithm,
                service,
                approval,
                policy: self.core.policy_name,
            },
        )
    }

    /// Accounts for one operation that an adapter built on this module performs itself, such as
    /// `regula-tls` running a TLS record or handshake step through the same AWS-LC provider: the
    /// module must be operational and the policy must serve the algorithm; the operation then
    /// counts in the service indicator and the counters like any other.
    pub fn account(&self, algorithm: Algorithm, service: Service) -> Result<Indicator> {
        self.account_usage(algorithm, service, &Usage::default())
    }

    /// [`Module::account`] for a request whose parameters are known (a TLS certificate key's
    /// size), so that the policy's key limits and dated transitions apply to it.
    pub fn account_usage(
        &self,
        algorithm: Algorithm,
        service: Service,
        usage: &Usage,
    ) -> Result<Indicator> {
        self.ensure_operational()?;
        let approval = self.core.policy.evaluate(algorithm, usage)?;
        self.self_test(algorithm)?;
        if let Some(bits) = usage.key_bits {
            self.core.counters.note_key_bits(algorithm, bits);
        }
        Ok(self.serve(algorithm, service, approval, ()).indicator())
    }

    /// Runs a pairwise consistency test after key generation; on failure the whole module
    /// enters its error state.
    /// Runs a freshly generated key's pairwise consistency test, unless the validated AWS-LC
    /// module already ran its own on this key while generating it (FIPS build): FIPS 140-3
    /// asks for one PCT per key, and a second one only costs time.
    pub(crate) fn pairwise_consistency_test(
        &self,
        algorithm: Algorithm,
        name: &'static str,
        test: impl FnOnce(Fault) -> std::result::Result<(), ()>,
    ) -> Result<()> {
        if crate::provider::awslc::validated_module_pct(algorithm).is_some() {
            return Ok(());
        }
        let fault = Fault::injected(self.core.broken_test.as_deref() == Some(name));
        if test(fault).is_err() {
            self.enter_error_state(name);
            self.ensure_operational()?;
        }
        Ok(())
    }
}

/// Policy names live as long as the process so that indicators can be `Copy`; a process loads
/// few distinct policies, so this table stays small.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&known) = names.iter().find(|&&known| known == name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;

    /// The generator a module fixes at load is the one its policy names, in every profile;
    /// profiles whose generator rows have no dated transition fix it.
    #[test]
    fn the_fixed_generator_is_the_policys() {
        for profile in Profile::ALL {
            let module = Module::load(Policy::builtin(profile));
            let policy = &module.core.policy;
            assert_eq!(
                module.random_algorithm(),
                policy.random_algorithm(),
                "{profile:?}"
            );
            assert_eq!(
                module.core.fixed_generator.is_some(),
                !policy.random_algorithm_is_dated(),
                "{profile:?}"
            );
        }
    }
}
