//! `regula bench`: Regula's throughput and operation rates beside peers measured on the same
//! machine in the same run, reported as ratios.
//!
//! Every Regula figure goes through the public API (policy decision and service indicator
//! included), exactly as an application calls it. Runs are interleaved — for each run, every
//! algorithm and size is measured on every implementation in turn — so that all see the same
//! machine state; the median of the runs is reported with its min–max.

#![forbid(unsafe_code)]

pub mod measure;
pub mod peers;
pub mod plot;
pub mod report;
pub mod workload;

use std::collections::BTreeMap;
use std::time::Duration;

use regula::{Algorithm, Module};
use serde::Serialize;

pub use workload::Operation;

/// Who performed a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Impl {
    Regula,
    /// aws-lc-rs called directly: the cost of Regula's layer is the difference.
    Raw,
    /// `openssl speed` (CLI), re-initialising the context per message.
    Openssl,
    /// The system libcrypto in-process, key set once.
    Libcrypto,
    /// `gnutls-cli --benchmark-ciphers` (16384-byte payload only).
    Gnutls,
}

impl Impl {
    pub fn name(self) -> &'static str {
        match self {
            Impl::Regula => "regula",
            Impl::Raw => "raw",
            Impl::Openssl => "openssl",
            Impl::Libcrypto => "libcrypto",
            Impl::Gnutls => "gnutls",
        }
    }

    pub fn from_name(name: &str) -> Option<Impl> {
        [
            Impl::Regula,
            Impl::Raw,
            Impl::Openssl,
            Impl::Libcrypto,
            Impl::Gnutls,
        ]
        .into_iter()
        .find(|candidate| candidate.name() == name)
    }
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct Config {
    pub algorithms: Vec<Algorithm>,
    /// Buffer sizes for throughput operations; public-key operations ignore them.
    pub sizes: Vec<usize>,
    /// Time per measurement.
    pub duration: Duration,
    pub runs: usize,
    /// Peers to measure beside Regula.
    pub compare: Vec<Impl>,
}

/// Sizes tcrypt and `openssl speed` tables use.
pub const DEFAULT_SIZES: [usize; 6] = [16, 64, 256, 1024, 8192, 16384];

/// One row of the result: the median of `runs` measurements with their range.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub algorithm: String,
    pub operation: Operation,
    /// Buffer size, for throughput rows.
    pub bytes: Option<usize>,
    #[serde(rename = "impl")]
    pub implementation: Impl,
    pub runs: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// `MB/s` (10^6 bytes per second) or `ops/s`.
    pub unit: &'static str,
}

impl Report {
    /// The row measuring the same algorithm, operation and size as `row` on `peer`.
    pub fn peer_row(&self, row: &Row, peer: Impl) -> Option<&Row> {
        self.rows.iter().find(|other| {
            other.implementation == peer
                && other.algorithm == row.algorithm
                && other.operation == row.operation
                && other.bytes == row.bytes
        })
    }
}

/// Everything a benchmark produced.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub rows: Vec<Row>,
    /// Measurements that could not run, and why (peer lacks the algorithm, policy refuses…).
    pub notes: Vec<String>,
    /// Rows whose min–max spread exceeds 15% of the median.
    pub warnings: Vec<String>,
    /// The CPU features the run had, for anyone comparing figures across machines.
    pub cpu_features: Vec<&'static str>,
    pub backend: String,
}

/// Spread above which a row is flagged as noisy.
pub const NOISY_SPREAD: f64 = 0.15;

type Key = (Algorithm, Operation, Option<usize>, Impl);

/// The measurements a configuration asks for, in the order one run performs them.
fn plan(config: &Config) -> Vec<(Algorithm, Operation, Option<usize>)> {
    let mut plan = Vec::new();
    for &algorithm in &config.algorithms {
        for &operation in workload::operations(algorithm) {
            if operation.is_throughput() {
                plan.extend(
                    config
                        .sizes
                        .iter()
                        .map(|&size| (algorithm, operation, Some(size))),
                );
            } else {
                plan.push((algorithm, operation, None));
            }
        }
    }
    plan
}

/// Runs the benchmark. `progress` is called after every measurement with (done, total).
pub fn run(
    module: &Module,
    config: &Config,
    mut progress: impl FnMut(usize, usize),
) -> Result<Report, String> {
    let openssl = if config.compare.contains(&Impl::Openssl) {
        Some(peers::openssl::OpensslCli::locate()?)
    } else {
        None
    };
    if config.compare.contains(&Impl::Libcrypto) && !cfg!(feature = "libcrypto") {
        return Err(
            "this build has no libcrypto peer (build regula-bench with the `libcrypto` feature)"
                .into(),
        );
    }
    let mut report = Report {
        cpu_features: regula::info::cpu_features(),
        backend: regula::info::build_info().backend,
        ..Report::default()
    };
    let gnutls = if config.compare.contains(&Impl::Gnutls) {
        Some(peers::gnutls::run()?)
    } else {
        None
    };

    let plan = plan(config);
    let implementations: Vec<Impl> = std::iter::once(Impl::Regula)
        .chain(
            config
                .compare
                .iter()
                .copied()
                .filter(|&peer| peer != Impl::Gnutls && peer != Impl::Regula),
        )
        .collect();
    let total = plan.len() * implementations.len() * config.runs;
    // Regula and raw aws-lc-rs are measured together, in alternating batches (see
    // `measure::paired_ops_per_second`), so that their ratio survives a noisy machine.
    let paired = implementations.contains(&Impl::Raw);
    let mut samples: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    let mut skipped: BTreeMap<Key, String> = BTreeMap::new();
    let mut done = 0;
    for _run in 0..config.runs {
        for &(algorithm, operation, bytes) in &plan {
            for &implementation in &implementations {
                let key = (algorithm, operation, bytes, implementation);
                done += 1;
                if skipped.contains_key(&key) || (paired && implementation == Impl::Raw) {
                    progress(done, total);
                    continue;
                }
                if paired && implementation == Impl::Regula {
                    let raw_key = (algorithm, operation, bytes, Impl::Raw);
                    let (ours, raw) = measure_pair(module, config.duration, key);
                    for (side, result) in [(key, ours), (raw_key, raw)] {
                        match result {
                            Ok(rate) => samples.entry(side).or_default().push(rate),
                            Err(reason) => {
                                skipped.insert(side, reason);
                            }
                        }
                    }
                    progress(done, total);
                    continue;
                }
                match measure_one(module, openssl.as_ref(), config.duration, key) {
                    Ok(Some(rate)) => samples.entry(key).or_default().push(rate),
                    Ok(None) => {
                        skipped.insert(
                            key,
                            format!("{} does not measure this", implementation.name()),
                        );
                    }
                    Err(reason) => {
                        skipped.insert(key, reason);
                    }
                }
                progress(done, total);
            }
        }
    }

    for (&(algorithm, operation, bytes, implementation), values) in &samples {
        let (median, min, max) = measure::summarize(values);
        if median > 0.0 && (max - min) / median > NOISY_SPREAD {
            report.warnings.push(format!(
                "{} {} {} {}: runs spread {:.0}% (min {min:.1}, max {max:.1}); the machine is noisy, consider more --runs",
                algorithm.name(),
                operation.name(),
                bytes.map_or(String::new(), |bytes| format!("{bytes} B")),
                implementation.name(),
                (max - min) / median * 100.0
            ));
        }
        report.rows.push(Row {
            algorithm: algorithm.name().to_string(),
            operation,
            bytes,
            implementation,
            runs: values.len(),
            median,
            min,
            max,
            unit: if operation.is_throughput() {
                "MB/s"
            } else {
                "ops/s"
            },
        });
    }
    if let Some(gnutls) = gnutls {
        for &(algorithm, operation, bytes) in &plan {
            if bytes != Some(peers::gnutls::PAYLOAD) {
                continue;
            }
            match peers::gnutls::name(algorithm)
                .and_then(|(section, name)| gnutls.get(&(section.into(), name.into())))
            {
                Some(&rate) => report.rows.push(Row {
                    algorithm: algorithm.name().to_string(),
                    operation,
                    bytes,
                    implementation: Impl::Gnutls,
                    runs: 1,
                    median: rate,
                    min: rate,
                    max: rate,
                    unit: "MB/s",
                }),
                None => report.notes.push(format!(
                    "gnutls {} {}: gnutls does not measure this",
                    algorithm.name(),
                    operation.name()
                )),
            }
        }
    }
    report.notes.extend(skipped.into_iter().map(
        |((algorithm, operation, bytes, implementation), reason)| {
            let bytes = bytes.map_or(String::new(), |bytes| format!(" {bytes} B"));
            format!(
                "{} {} {}{bytes}: {reason}",
                implementation.name(),
                algorithm.name(),
                operation.name()
            )
        },
    ));
    report.notes.dedup();
    Ok(report)
}

/// Regula and raw aws-lc-rs measured together; when only one side can run, it is measured
/// alone. Each side's `Err` says why it could not run.
fn measure_pair(
    module: &Module,
    duration: Duration,
    (algorithm, operation, bytes, _): Key,
) -> (Result<f64, String>, Result<f64, String>) {
    let size = bytes.unwrap_or(0);
    let rate = |ops_per_second| operation.rate(ops_per_second, size);
    let alone = |work| measure::ops_per_second(duration, work).map(rate);
    match (
        workload::regula(module, algorithm, operation, size),
        workload::raw(algorithm, operation, size),
    ) {
        (Ok(ours), Ok(raw)) => match measure::paired_ops_per_second(duration, ours, raw) {
            Ok((ours, raw)) => (Ok(rate(ours)), Ok(rate(raw))),
            Err(reason) => (Err(reason.clone()), Err(reason)),
        },
        (Ok(ours), Err(reason)) => (alone(ours), Err(reason)),
        (Err(reason), Ok(raw)) => (Err(reason), alone(raw)),
        (Err(ours), Err(raw)) => (Err(ours), Err(raw)),
    }
}

/// One measurement; `Ok(None)` when the implementation lacks the operation.
fn measure_one(
    module: &Module,
    openssl: Option<&peers::openssl::OpensslCli>,
    duration: Duration,
    (algorithm, operation, bytes, implementation): Key,
) -> Result<Option<f64>, String> {
    let size = bytes.unwrap_or(0);
    let to_rate = |ops_per_second| operation.rate(ops_per_second, size);
    let work = match implementation {
        Impl::Regula => Some(workload::regula(module, algorithm, operation, size)?),
        Impl::Raw => Some(workload::raw(algorithm, operation, size)?),
        #[cfg(feature = "libcrypto")]
        Impl::Libcrypto => peers::libcrypto::workload(algorithm, operation, size)?,
        #[cfg(not(feature = "libcrypto"))]
        Impl::Libcrypto => None,
        Impl::Openssl => {
            let openssl = openssl.ok_or("openssl peer not located")?;
            return if operation.is_throughput() {
                openssl.symmetric(algorithm, size, duration)
            } else {
                openssl.public_key(algorithm, operation, duration)
            };
        }
        Impl::Gnutls => None,
    };
    match work {
        Some(work) => measure::ops_per_second(duration, work).map(|rate| Some(to_rate(rate))),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regula::{Policy, Profile};

    #[test]
    fn every_row_has_its_peer_or_a_note() {
        let module = Module::load(Policy::builtin(Profile::Default));
        let config = Config {
            algorithms: vec![
                Algorithm::Aes256Gcm,
                Algorithm::Sha256,
                Algorithm::MlKem768,
                Algorithm::CtrDrbg,
            ],
            sizes: vec![16, 1024],
            duration: Duration::from_millis(5),
            runs: 2,
            compare: vec![Impl::Raw],
        };
        let report = run(&module, &config, |_, _| {}).unwrap();
        let has =
            |algorithm: &str, operation: Operation, bytes: Option<usize>, implementation: Impl| {
                report.rows.iter().any(|row| {
                    row.algorithm == algorithm
                        && row.operation == operation
                        && row.bytes == bytes
                        && row.implementation == implementation
                        && row.runs == 2
                        && row.min <= row.median
                        && row.median <= row.max
                        && row.median > 0.0
                })
            };
        for implementation in [Impl::Regula, Impl::Raw] {
            assert!(has(
                "aes-256-gcm",
                Operation::Seal,
                Some(16),
                implementation
            ));
            assert!(has("sha256", Operation::Digest, Some(1024), implementation));
            assert!(has(
                "ml-kem-768",
                Operation::Encapsulate,
                None,
                implementation
            ));
            assert!(has(
                "ctr-drbg",
                Operation::Generate,
                Some(16),
                implementation
            ));
        }
        assert!(
            report
                .rows
                .iter()
                .all(|row| (row.unit == "ops/s") == row.bytes.is_none())
        );
    }

    #[test]
    fn refused_algorithms_become_notes_not_rows() {
        let module = Module::load(Policy::builtin(Profile::Fips1403));
        let config = Config {
            algorithms: vec![Algorithm::ChaCha20Poly1305],
            sizes: vec![16],
            duration: Duration::from_millis(5),
            runs: 1,
            compare: vec![Impl::Raw],
        };
        let report = run(&module, &config, |_, _| {}).unwrap();
        assert!(
            report
                .rows
                .iter()
                .all(|row| row.implementation != Impl::Regula)
        );
        assert!(
            report
                .notes
                .iter()
                .any(|note| note.contains("not approved by policy fips-140-3")),
            "{:?}",
            report.notes
        );
    }
}
