//! Known-answer self-tests (CASTs) and the pairwise consistency tests (PCTs) run after key
//! generation.
//!
//! FIPS 140-3 IG 10.3.A lets each CAST run before the first use of its algorithm rather than
//! all at power-on; Regula does so ([`Casts`]), so that a process pays only for the tests of the
//! algorithms it uses: `regula dgst -a sm3` runs the SM3 test alone. The gate in front of every
//! service ([`crate::Module`]'s `authorize` and `account_usage`) runs the covering CAST first;
//! a failure puts the module in its error state, refusing that request and every later one.
//! Services of the families that may draw random bits first run the CASTs of the random bit
//! generators too. [`crate::Module::run_self_tests`] runs every CAST the policy needs at once.
//!
//! One CAST per algorithm implementation, as FIPS 140-3 IG 10.3.A allows: e.g. the ECDSA test
//! on P-256/SHA-256 covers P-384, because both run through the same AWS-LC code. The registry
//! names, for every algorithm, the CAST that covers it; a test checks that the two agree.
//!
//! For testing, [`crate::module::BREAK_SELFTEST_ENV`] names one test whose computed output is
//! corrupted before comparison, so that its failure path runs end to end.

mod casts;
pub(crate) mod vectors;

use std::sync::OnceLock;
use std::time::Instant;

use serde::Serialize;

use crate::algorithm::Algorithm;
use crate::policy::Policy;
use crate::registry::REGISTRY;

/// Whether a self-test should fail on purpose (see [`crate::module::BREAK_SELFTEST_ENV`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fault(bool);

impl Fault {
    pub(crate) fn injected(injected: bool) -> Fault {
        Fault(injected)
    }

    /// Whether this test is the one being broken.
    pub(crate) fn is_injected(self) -> bool {
        self.0
    }

    /// Flips one bit of `bytes` when this test is the one being broken.
    pub(crate) fn corrupt(self, bytes: &mut [u8]) {
        if self.0
            && let Some(first) = bytes.first_mut()
        {
            *first ^= 0x01;
        }
    }
}

/// When a self-test runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SelfTestKind {
    /// Cryptographic algorithm self-test (known answer), run before the first use of an
    /// algorithm it covers, or when every self-test is requested.
    Cast,
    /// Pairwise consistency test, run after every key generation.
    Pct,
}

/// Who runs a self-test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runner {
    /// Regula, which can be made to fail it on purpose ([`crate::module::BREAK_SELFTEST_ENV`]).
    Regula,
    /// AWS-LC's validated module, inside its key generation (FIPS build); named as AWS-LC's
    /// own break-test switch names it, and breakable only in an AWS-LC break-test build.
    AwsLcValidatedModule,
}

/// A self-test and the algorithms it covers.
#[derive(Clone, Debug, Serialize)]
pub struct SelfTestInfo {
    pub name: &'static str,
    pub kind: SelfTestKind,
    pub algorithms: Vec<Algorithm>,
    pub runner: Runner,
}

/// The outcome of one CAST.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SelfTestResult {
    pub name: &'static str,
    pub passed: bool,
    pub micros: u64,
    /// What made it run.
    pub ran: Trigger,
}

/// What made a CAST run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// The first request for an algorithm it covers, which waited for it.
    FirstUse,
    /// A request for every self-test ([`crate::Module::run_self_tests`]: `regula selftest`,
    /// `regula check`, and the C, Python and Go bindings when they load a module).
    Requested,
}

impl Trigger {
    pub fn name(self) -> &'static str {
        match self {
            Trigger::FirstUse => "first-use",
            Trigger::Requested => "requested",
        }
    }
}

/// A CAST that applies to a loaded module's policy, and its result once it has run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SelfTestStatus {
    pub name: &'static str,
    /// `None` while it has not run: no algorithm it covers has been used yet.
    pub result: Option<SelfTestResult>,
}

/// A known-answer test: computes, lets the fault corrupt its output, compares.
pub(crate) struct Cast {
    pub(crate) name: &'static str,
    pub(crate) run: fn(Fault) -> Result<(), ()>,
}

/// Every self-test the module has, CASTs first, in a stable order.
pub fn list() -> Vec<SelfTestInfo> {
    let delegated = |algorithm| crate::provider::awslc::validated_module_pct(algorithm);
    let covered = |kind, name: &str| {
        REGISTRY
            .iter()
            .filter(|entry| match kind {
                SelfTestKind::Cast => entry.self_test == name,
                SelfTestKind::Pct => {
                    entry.pct == Some(name) && delegated(entry.algorithm).is_none()
                }
            })
            .map(|entry| entry.algorithm)
            .collect()
    };
    let mut tests: Vec<SelfTestInfo> = casts::ALL_CASTS
        .iter()
        .map(|cast| SelfTestInfo {
            name: cast.name,
            kind: SelfTestKind::Cast,
            algorithms: covered(SelfTestKind::Cast, cast.name),
            runner: Runner::Regula,
        })
        .collect();
    let mut pct_names: Vec<&'static str> = Vec::new();
    for name in REGISTRY.iter().filter_map(|entry| entry.pct) {
        if !pct_names.contains(&name) {
            pct_names.push(name);
        }
    }
    tests.extend(
        pct_names
            .into_iter()
            .map(|name| SelfTestInfo {
                name,
                kind: SelfTestKind::Pct,
                algorithms: covered(SelfTestKind::Pct, name),
                runner: Runner::Regula,
            })
            .filter(|info| !info.algorithms.is_empty()),
    );
    // In the FIPS build, the PCTs AWS-LC's validated module runs in place of ours.
    let mut validated: Vec<SelfTestInfo> = Vec::new();
    for entry in REGISTRY.iter() {
        let Some(name) = delegated(entry.algorithm) else {
            continue;
        };
        match validated.iter_mut().find(|info| info.name == name) {
            Some(info) => info.algorithms.push(entry.algorithm),
            None => validated.push(SelfTestInfo {
                name,
                kind: SelfTestKind::Pct,
                algorithms: vec![entry.algorithm],
                runner: Runner::AwsLcValidatedModule,
            }),
        }
    }
    tests.extend(validated);
    tests
}

/// A policy's CASTs and what each has shown so far. Each CAST runs at most once per loaded
/// module: before the first service of an algorithm it covers (FIPS 140-3 IG 10.3.A's
/// conditional CASTs), or when every self-test is asked for ([`crate::Module::run_self_tests`]),
/// whichever comes first. Concurrent first users wait for the one run; nothing is served
/// before it passed.
pub(crate) struct Casts {
    slots: Vec<Slot>,
    /// For each algorithm (by index), the slot of the CAST that covers it.
    covering: Vec<usize>,
}

struct Slot {
    cast: &'static Cast,
    /// Whether the policy serves an algorithm this CAST covers; [`Casts::run_all`] runs
    /// exactly these.
    applies: bool,
    result: OnceLock<SelfTestResult>,
}

impl Casts {
    pub(crate) fn new(policy: &Policy) -> Casts {
        let slots: Vec<Slot> = casts::ALL_CASTS
            .iter()
            .map(|cast| Slot {
                cast,
                applies: REGISTRY
                    .iter()
                    .any(|entry| entry.self_test == cast.name && policy.serves(entry.algorithm)),
                result: OnceLock::new(),
            })
            .collect();
        // The registry is checked against ALL_CASTS by a unit test; an entry naming no CAST
        // would map to an out-of-range slot, which `run_for` treats as a failed self-test.
        let covering = REGISTRY
            .iter()
            .map(|entry| {
                slots
                    .iter()
                    .position(|slot| slot.cast.name == entry.self_test)
                    .unwrap_or(usize::MAX)
            })
            .collect();
        Casts { slots, covering }
    }

    /// The result of the CAST covering `algorithm`, running it first if it has not run yet.
    pub(crate) fn run_for(&self, algorithm: Algorithm, broken_test: Option<&str>) -> Outcome {
        match self
            .covering
            .get(algorithm.index())
            .and_then(|&index| self.slots.get(index))
        {
            Some(slot) => slot.run(broken_test, Trigger::FirstUse).into(),
            None => Outcome::Failed(crate::registry::entry(algorithm).self_test),
        }
    }

    /// Runs every CAST that applies to the policy and has not run yet, in the stable order;
    /// returns the results of those that apply (and of any other that ran).
    pub(crate) fn run_all(&self, broken_test: Option<&str>) -> Vec<SelfTestResult> {
        self.slots
            .iter()
            .filter_map(|slot| {
                if slot.applies {
                    Some(slot.run(broken_test, Trigger::Requested).clone())
                } else {
                    slot.result.get().cloned()
                }
            })
            .collect()
    }

    /// Every CAST that applies to the policy or has run, with its result if it ran; runs
    /// nothing.
    pub(crate) fn status(&self) -> Vec<SelfTestStatus> {
        self.slots
            .iter()
            .filter(|slot| slot.applies || slot.result.get().is_some())
            .map(|slot| SelfTestStatus {
                name: slot.cast.name,
                result: slot.result.get().cloned(),
            })
            .collect()
    }
}

impl Slot {
    fn run(&self, broken_test: Option<&str>, trigger: Trigger) -> &SelfTestResult {
        self.result.get_or_init(|| {
            let started = Instant::now();
            let passed =
                (self.cast.run)(Fault::injected(broken_test == Some(self.cast.name))).is_ok();
            let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            SelfTestResult {
                name: self.cast.name,
                passed,
                micros,
                ran: trigger,
            }
        })
    }
}

/// What [`Casts::run_for`] found.
pub(crate) enum Outcome {
    Passed,
    Failed(&'static str),
}

impl From<&SelfTestResult> for Outcome {
    fn from(result: &SelfTestResult) -> Outcome {
        if result.passed {
            Outcome::Passed
        } else {
            Outcome::Failed(result.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_self_test_exists_and_every_cast_is_used() {
        let names: Vec<_> = casts::ALL_CASTS.iter().map(|cast| cast.name).collect();
        for entry in &REGISTRY {
            assert!(
                names.contains(&entry.self_test),
                "{} names missing CAST {}",
                entry.name,
                entry.self_test
            );
        }
        for info in list() {
            assert!(
                !info.algorithms.is_empty(),
                "self-test {} covers no algorithm",
                info.name
            );
        }
    }

    #[test]
    fn names_are_unique_and_use_the_documented_charset() {
        let tests = list();
        for (index, test) in tests.iter().enumerate() {
            assert!(
                test.name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-' || c == '_'),
                "{} uses characters outside [A-Z0-9_-]",
                test.name
            );
            assert!(
                tests[index + 1..]
                    .iter()
                    .all(|other| other.name != test.name),
                "{} is listed twice",
                test.name
            );
        }
    }

    #[test]
    fn every_cast_passes_and_fails_when_broken() {
        for cast in casts::ALL_CASTS {
            assert_eq!(
                (cast.run)(Fault::injected(false)),
                Ok(()),
                "{} failed",
                cast.name
            );
            assert_eq!(
                (cast.run)(Fault::injected(true)),
                Err(()),
                "{} ignored its fault",
                cast.name
            );
        }
    }

    /// Go's TestAllCASTs idea: a CAST function in the sources but missing from ALL_CASTS would
    /// never run.
    #[test]
    fn all_casts_lists_every_cast_in_the_sources() {
        let source = include_str!("../provider/self_test.rs");
        let defined = source.matches("(fault: Fault) -> Result<(), ()>").count();
        assert_eq!(defined, casts::ALL_CASTS.len());
    }
}
