//! Power-on known-answer self-tests (CASTs) and the pairwise consistency tests (PCTs) run after
//! key generation.
//!
//! One CAST per algorithm implementation, as FIPS 140-3 IG 10.3.A allows: e.g. the ECDSA test
//! on P-256/SHA-256 covers P-384, because both run through the same AWS-LC code. The registry
//! names, for every algorithm, the CAST that covers it; a test checks that the two agree.
//!
//! For testing, [`crate::module::BREAK_SELFTEST_ENV`] names one test whose computed output is
//! corrupted before comparison, so that its failure path runs end to end.

mod casts;
mod vectors;

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
    /// Cryptographic algorithm self-test, run at load (power-on).
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

/// The outcome of one power-on self-test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SelfTestResult {
    pub name: &'static str,
    pub passed: bool,
    pub micros: u64,
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

/// Runs, in order, every CAST that covers an algorithm the policy serves.
pub(crate) fn power_on(policy: &Policy, broken_test: Option<&str>) -> Vec<SelfTestResult> {
    // AWS-LC seeds its DRBG from the entropy source on first use (tens of milliseconds with
    // jitter entropy). Any application pays that once; doing it here keeps it out of the
    // timing of whichever test happens to draw randomness first. A failure here surfaces in
    // the CTR_DRBG test.
    let _ = aws_lc_rs::rand::fill(&mut [0u8; 1]);
    casts::ALL_CASTS
        .iter()
        .filter(|cast| {
            REGISTRY
                .iter()
                .any(|entry| entry.self_test == cast.name && policy.serves(entry.algorithm))
        })
        .map(|cast| {
            let started = Instant::now();
            let passed = (cast.run)(Fault::injected(broken_test == Some(cast.name))).is_ok();
            let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            SelfTestResult {
                name: cast.name,
                passed,
                micros,
            }
        })
        .collect()
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
        let source = include_str!("casts.rs");
        let defined = source.matches("(fault: Fault) -> Result<(), ()>").count();
        assert_eq!(defined, casts::ALL_CASTS.len());
    }
}
