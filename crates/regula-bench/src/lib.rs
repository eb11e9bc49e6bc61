//! `regula bench`: Regula's throughput and operation rates beside peers measured on the same
//! machine in the same run, reported as ratios.
//!
//! Every Regula figure goes through the public API (policy decision and service indicator
//! included), exactly as an application calls it. Runs are interleaved — for each run, every
//! algorithm and size is measured on every implementation in turn — so that all see the same
//! machine state; the median of the runs is reported with its min–max. Regula and one
//! in-process peer (raw aws-lc-rs when compared, else libcrypto) are measured in alternating
//! batches, so that their ratio holds on a busy machine.
//!
//! No peer is linked into the program: `openssl`, `gnutls` and `tongsuo` run as separate
//! programs, and the `libcrypto` peer is loaded at run time, only when compared (see
//! [`peers::libcrypto`], the one module with `unsafe` code).

#![deny(unsafe_code)]

pub mod measure;
pub mod peers;
pub mod plot;
pub mod report;
pub mod workload;

use std::collections::BTreeMap;
use std::path::PathBuf;
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
    /// An OpenSSL 3 libcrypto loaded in-process at run time, key set once.
    Libcrypto,
    /// `gnutls-cli --benchmark-ciphers` (16384-byte payload only).
    Gnutls,
    /// Tongsuo's `speed` (the cached build of `scripts/tongsuo`), AEADs in its TLS-like
    /// `-aead` sequence.
    Tongsuo,
}

impl Impl {
    pub fn name(self) -> &'static str {
        match self {
            Impl::Regula => "regula",
            Impl::Raw => "raw",
            Impl::Openssl => "openssl",
            Impl::Libcrypto => "libcrypto",
            Impl::Gnutls => "gnutls",
            Impl::Tongsuo => "tongsuo",
        }
    }

    pub fn from_name(name: &str) -> Option<Impl> {
        [
            Impl::Regula,
            Impl::Raw,
            Impl::Openssl,
            Impl::Libcrypto,
            Impl::Gnutls,
            Impl::Tongsuo,
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
    /// The libcrypto the `libcrypto` peer loads; `None`: `$REGULA_BENCH_LIBCRYPTO`, else the
    /// system `libcrypto.so.3` (see [`peers::libcrypto::library_name`]).
    pub libcrypto: Option<PathBuf>,
}

/// Where a peer's figures come from: the library loaded into this process, or the program run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PeerSource {
    #[serde(skip)]
    pub implementation: Impl,
    /// `library` (loaded in-process) or `program` (run once per measurement).
    pub kind: &'static str,
    /// The file: the library as the loader mapped it, or the program.
    pub path: String,
    /// The version it reports (`OpenSSL_version(OPENSSL_VERSION)`, `openssl version`).
    pub version: String,
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
    /// What serves each measured algorithm in this process (`regula-sm sm4-vaes-avx2 +
    /// ghash-vpclmulqdq-avx2`, the AWS-LC build…), as `regula info` names it.
    pub implementations: BTreeMap<String, String>,
    /// Backend-forcing variables set for this run (`REGULA_SM4_BACKEND=…`): a figure measured on
    /// a forced backend says so.
    pub forced: Vec<String>,
    /// The library or program behind each peer that has one.
    pub peers: Vec<PeerSource>,
}

impl Report {
    /// Where `peer`'s figures come from, when it is a library or program.
    pub fn source(&self, peer: Impl) -> Option<&PeerSource> {
        self.peers
            .iter()
            .find(|source| source.implementation == peer)
    }
}

/// The environment variables that force an implementation (read by regula-sm at first use).
const FORCING_VARIABLES: [&str; 2] = ["REGULA_SM4_BACKEND", "REGULA_GHASH_BACKEND"];

/// Spread above which a row is flagged as noisy.
pub const NOISY_SPREAD: f64 = 0.15;

type Key = (Algorithm, Operation, Option<usize>, Impl);
/// One measurement of a run: algorithm, operation, buffer size (throughput operations).
type Planned = (Algorithm, Operation, Option<usize>);

/// The measurements a configuration asks for, in the order one run performs them, and a note
/// for every size an algorithm cannot take (XTS below one block, DES not in whole blocks).
fn plan(config: &Config) -> (Vec<Planned>, Vec<String>) {
    let mut plan = Vec::new();
    let mut notes = Vec::new();
    for &algorithm in &config.algorithms {
        for &operation in workload::operations(algorithm) {
            if operation.is_throughput() {
                for &size in &config.sizes {
                    match workload::unsupported_size(algorithm, size) {
                        Some(reason) => notes.push(format!(
                            "{} {} {size} B: not measured: {reason}",
                            algorithm.name(),
                            operation.name()
                        )),
                        None => plan.push((algorithm, operation, Some(size))),
                    }
                }
            } else {
                plan.push((algorithm, operation, None));
            }
        }
    }
    (plan, notes)
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
    // Loaded only now that it is compared, and named in the report.
    let libcrypto = if config.compare.contains(&Impl::Libcrypto) {
        Some(peers::libcrypto::load(config.libcrypto.as_deref())?)
    } else {
        None
    };
    let build = regula::info::build_info();
    let mut report = Report {
        cpu_features: regula::info::cpu_features(),
        implementations: build
            .implementations
            .iter()
            .filter(|served| config.algorithms.contains(&served.algorithm))
            .map(|served| {
                (
                    served.algorithm.name().to_owned(),
                    served.implementation.clone(),
                )
            })
            .collect(),
        forced: FORCING_VARIABLES
            .iter()
            .filter_map(|name| {
                std::env::var(name)
                    .ok()
                    .map(|value| format!("{name}={value}"))
            })
            .collect(),
        backend: build.backend,
        ..Report::default()
    };
    report
        .peers
        .extend(libcrypto.map(|libcrypto| libcrypto.source.clone()));
    report.peers.extend(
        openssl
            .as_ref()
            .map(|openssl| openssl.source(Impl::Openssl)),
    );
    // Tongsuo is a test-time build; without it the run goes on and says why it is missing.
    let tongsuo = if config.compare.contains(&Impl::Tongsuo) {
        match peers::openssl::OpensslCli::locate_tongsuo() {
            Ok(tongsuo) => {
                report.peers.push(tongsuo.source(Impl::Tongsuo));
                Some(tongsuo)
            }
            Err(reason) => {
                report.notes.push(format!("tongsuo skipped: {reason}"));
                None
            }
        }
    } else {
        None
    };
    let gnutls = if config.compare.contains(&Impl::Gnutls) {
        Some(peers::gnutls::run()?)
    } else {
        None
    };
    // GnuTLS measures one payload size only; measure it too so that its figures have a
    // Regula figure to stand beside.
    let mut config = config.clone();
    if gnutls.is_some() && !config.sizes.contains(&peers::gnutls::PAYLOAD) {
        config.sizes.push(peers::gnutls::PAYLOAD);
        config.sizes.sort_unstable();
        report.notes.push(format!(
            "sizes: {} B added, the only payload `gnutls-cli --benchmark-ciphers` measures",
            peers::gnutls::PAYLOAD
        ));
    }
    let config = &config;

    let (plan, size_notes) = plan(config);
    report.notes.extend(size_notes);
    let implementations: Vec<Impl> = std::iter::once(Impl::Regula)
        .chain(
            config
                .compare
                .iter()
                .copied()
                .filter(|&peer| peer != Impl::Gnutls && peer != Impl::Regula)
                .filter(|&peer| peer != Impl::Tongsuo || tongsuo.is_some()),
        )
        .collect();
    let total = plan.len() * implementations.len() * config.runs;
    // Regula and one in-process peer — raw aws-lc-rs, or else libcrypto — are measured
    // together, in alternating batches (see `measure::paired_ops_per_second`), so that their
    // ratio survives a noisy machine.
    let partner = if implementations.contains(&Impl::Raw) {
        Some(Impl::Raw)
    } else if implementations.contains(&Impl::Libcrypto) {
        Some(Impl::Libcrypto)
    } else {
        None
    };
    let mut samples: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    let mut skipped: BTreeMap<Key, String> = BTreeMap::new();
    let mut done = 0;
    for _run in 0..config.runs {
        for &(algorithm, operation, bytes) in &plan {
            let mut partner_measured = false;
            for &implementation in &implementations {
                let key = (algorithm, operation, bytes, implementation);
                done += 1;
                if skipped.contains_key(&key)
                    || (partner_measured && Some(implementation) == partner)
                {
                    progress(done, total);
                    continue;
                }
                if implementation == Impl::Regula
                    && let Some(partner) = partner
                {
                    partner_measured = true;
                    let partner_key = (algorithm, operation, bytes, partner);
                    let (ours, theirs) =
                        measure_pair(module, libcrypto, config.duration, key, partner);
                    for (side, result) in [(key, ours), (partner_key, theirs)] {
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
                let clis = [openssl.as_ref(), tongsuo.as_ref()];
                match measure_one(module, libcrypto, clis, config.duration, key) {
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

    if config.compare.contains(&Impl::Libcrypto) {
        let mut seen = std::collections::BTreeSet::new();
        for &(algorithm, operation, _) in &plan {
            if let Some(caveat) = peers::libcrypto::caveat(algorithm, operation)
                && seen.insert((algorithm, operation))
            {
                report.notes.push(format!(
                    "libcrypto {} {}: {caveat}",
                    algorithm.name(),
                    operation.name()
                ));
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

/// Regula and an in-process peer (raw aws-lc-rs or libcrypto) measured together; when only one
/// side can run, it is measured alone. Each side's `Err` says why it could not run.
fn measure_pair(
    module: &Module,
    libcrypto: Option<&'static peers::libcrypto::Libcrypto>,
    duration: Duration,
    (algorithm, operation, bytes, _): Key,
    partner: Impl,
) -> (Result<f64, String>, Result<f64, String>) {
    let size = bytes.unwrap_or(0);
    let rate = |ops_per_second| operation.rate(ops_per_second, size);
    let alone = |work| measure::ops_per_second(duration, work).map(rate);
    let theirs = match partner {
        Impl::Raw => workload::raw(algorithm, operation, size),
        Impl::Libcrypto => libcrypto
            .ok_or_else(|| "libcrypto not loaded".to_string())
            .and_then(|libcrypto| libcrypto.workload(algorithm, operation, size))
            .and_then(|work| work.ok_or_else(|| "libcrypto does not measure this".to_string())),
        _ => Err(format!("{} is not measured in-process", partner.name())),
    };
    match (workload::regula(module, algorithm, operation, size), theirs) {
        (Ok(ours), Ok(theirs)) => match measure::paired_ops_per_second(duration, ours, theirs) {
            Ok((ours, theirs)) => (Ok(rate(ours)), Ok(rate(theirs))),
            Err(reason) => (Err(reason.clone()), Err(reason)),
        },
        (Ok(ours), Err(reason)) => (alone(ours), Err(reason)),
        (Err(reason), Ok(theirs)) => (Err(reason), alone(theirs)),
        (Err(ours), Err(theirs)) => (Err(ours), Err(theirs)),
    }
}

/// One measurement; `Ok(None)` when the implementation lacks the operation.
fn measure_one(
    module: &Module,
    libcrypto: Option<&'static peers::libcrypto::Libcrypto>,
    [openssl, tongsuo]: [Option<&peers::openssl::OpensslCli>; 2],
    duration: Duration,
    (algorithm, operation, bytes, implementation): Key,
) -> Result<Option<f64>, String> {
    let size = bytes.unwrap_or(0);
    let to_rate = |ops_per_second| operation.rate(ops_per_second, size);
    let work = match implementation {
        Impl::Regula => Some(workload::regula(module, algorithm, operation, size)?),
        Impl::Raw => Some(workload::raw(algorithm, operation, size)?),
        Impl::Libcrypto => libcrypto
            .ok_or("libcrypto not loaded")?
            .workload(algorithm, operation, size)?,
        Impl::Openssl | Impl::Tongsuo => {
            let cli = if implementation == Impl::Openssl {
                openssl
            } else {
                tongsuo
            };
            let cli = cli.ok_or("peer not located")?;
            return if operation.is_throughput() {
                cli.symmetric(algorithm, size, duration)
            } else {
                cli.public_key(algorithm, operation, duration)
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

    /// Whether the system libcrypto.so.3 loads; without it the libcrypto checks are skipped
    /// with a note, except under CI=true, where they must run.
    fn system_libcrypto() -> bool {
        match peers::libcrypto::load(Some(std::path::Path::new(
            peers::libcrypto::DEFAULT_LIBRARY,
        ))) {
            Ok(_) => true,
            Err(reason) => {
                assert!(std::env::var("CI").as_deref() != Ok("true"), "{reason}");
                eprintln!("SKIPPED: the libcrypto peer ({reason})");
                false
            }
        }
    }

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
            libcrypto: None,
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

    /// The workloads added for the SMB3, disk-encryption, post-quantum and legacy algorithms
    /// run on Regula and on every peer that has them, and the ones a peer lacks become notes.
    #[test]
    fn new_algorithms_measure_on_regula_and_their_peers() {
        let module = Module::load(Policy::builtin(Profile::Default));
        let mut compare = vec![Impl::Raw];
        if system_libcrypto() {
            compare.push(Impl::Libcrypto);
        }
        let config = Config {
            algorithms: vec![
                Algorithm::Aes128Ccm,
                Algorithm::Aes256Ccm,
                Algorithm::Aes128Gmac,
                Algorithm::Aes256Gmac,
                Algorithm::Aes128Cmac,
                Algorithm::KbkdfCtrHmacSha256,
                Algorithm::Aes256Xts,
                Algorithm::Aes128Kw,
                Algorithm::Aes256Kwp,
                Algorithm::Aes128Cfb8,
                Algorithm::MlDsa44,
                Algorithm::Md4,
                Algorithm::Md5,
                Algorithm::HmacMd5,
                Algorithm::HmacSha1,
                Algorithm::Rc4,
                Algorithm::DesEde3Cbc,
            ],
            // 12: below an XTS block and not whole DES blocks; 8192: two XTS data units.
            sizes: vec![12, 64, 8192],
            duration: Duration::from_millis(3),
            runs: 1,
            compare: compare.clone(),
            libcrypto: Some(peers::libcrypto::DEFAULT_LIBRARY.into()),
        };
        let report = run(&module, &config, |_, _| {}).unwrap();
        let has = |algorithm: &str, operation: Operation, bytes: Option<usize>, peer: Impl| {
            report.rows.iter().any(|row| {
                row.algorithm == algorithm
                    && row.operation == operation
                    && row.bytes == bytes
                    && row.implementation == peer
                    && row.median > 0.0
            })
        };
        let throughput = [
            ("aes-128-ccm", Operation::Seal),
            ("aes-256-ccm", Operation::Seal),
            ("aes-128-gmac", Operation::Mac),
            ("aes-256-gmac", Operation::Mac),
            ("aes-128-cmac", Operation::Mac),
            ("aes-256-xts", Operation::Encrypt),
            ("aes-128-cfb8", Operation::Encrypt),
            ("md4", Operation::Digest),
            ("md5", Operation::Digest),
            ("hmac-md5", Operation::Mac),
            ("hmac-sha1", Operation::Mac),
            ("rc4", Operation::Encrypt),
            ("des-ede3-cbc", Operation::Encrypt),
        ];
        for (algorithm, operation) in throughput {
            for bytes in [64, 8192] {
                assert!(
                    has(algorithm, operation, Some(bytes), Impl::Regula),
                    "{algorithm} {bytes}: {:?}",
                    report.notes
                );
                if compare.contains(&Impl::Libcrypto) {
                    assert!(
                        has(algorithm, operation, Some(bytes), Impl::Libcrypto),
                        "libcrypto {algorithm} {bytes}: {:?}",
                        report.notes
                    );
                }
            }
        }
        // aws-lc-rs has these; CCM, XTS, MD4, MD5, HMAC-MD5, RC4 and 3DES only in AWS-LC's C API.
        for (algorithm, operation, bytes) in [
            ("aes-128-gmac", Operation::Mac, Some(64)),
            ("aes-128-cfb8", Operation::Encrypt, Some(64)),
            ("hmac-sha1", Operation::Mac, Some(64)),
            ("kbkdf-ctr-hmac-sha256", Operation::Derive, None),
            ("aes-128-kw", Operation::Wrap, None),
            ("aes-256-kwp", Operation::Wrap, None),
            ("ml-dsa-44", Operation::Keygen, None),
            ("ml-dsa-44", Operation::Sign, None),
            ("ml-dsa-44", Operation::Verify, None),
        ] {
            for peer in [Impl::Regula, Impl::Raw] {
                assert!(
                    has(algorithm, operation, bytes, peer),
                    "{} {algorithm}: {:?}",
                    peer.name(),
                    report.notes
                );
            }
        }
        for (algorithm, operation) in [
            ("aes-128-ccm", Operation::Seal),
            ("aes-256-xts", Operation::Encrypt),
        ] {
            assert!(!has(algorithm, operation, Some(64), Impl::Raw));
            let operation = operation.name();
            assert!(
                report.notes.iter().any(|note| note.starts_with(&format!(
                    "raw {algorithm} {operation} 64 B: no raw aws-lc-rs"
                ))),
                "{algorithm}: {:?}",
                report.notes
            );
        }
        // Sizes an algorithm cannot take are notes, not failures.
        for (algorithm, operation) in [("aes-256-xts", "encrypt"), ("des-ede3-cbc", "encrypt")] {
            assert!(
                report
                    .notes
                    .iter()
                    .any(|note| note
                        .starts_with(&format!("{algorithm} {operation} 12 B: not measured"))),
                "{algorithm}: {:?}",
                report.notes
            );
        }
        assert!(
            report
                .rows
                .iter()
                .filter(|row| row.operation == Operation::Wrap
                    || row.operation == Operation::Derive)
                .all(|row| row.unit == "ops/s" && row.bytes.is_none())
        );
    }

    /// Without raw, Regula pairs with libcrypto; every run gives both a sample, and an algorithm
    /// libcrypto lacks is measured on Regula alone with a note for libcrypto.
    #[test]
    fn regula_pairs_with_libcrypto_when_raw_is_not_compared() {
        if !system_libcrypto() {
            return;
        }
        let module = Module::load(Policy::builtin(Profile::Default));
        let config = Config {
            algorithms: vec![
                Algorithm::Aes128Ccm,
                Algorithm::KbkdfCtrHmacSha256,
                Algorithm::Aes128Cmac,
            ],
            sizes: vec![1024],
            duration: Duration::from_millis(3),
            runs: 3,
            compare: vec![Impl::Libcrypto],
            libcrypto: Some(peers::libcrypto::DEFAULT_LIBRARY.into()),
        };
        let report = run(&module, &config, |_, _| {}).unwrap();
        // The report names the library loaded: a file the loader mapped, and its version text.
        let source = report
            .source(Impl::Libcrypto)
            .expect("the libcrypto source");
        assert_eq!(source.kind, "library");
        assert!(
            source.path.starts_with('/') && source.path.contains("libcrypto.so"),
            "{source:?}"
        );
        assert!(std::path::Path::new(&source.path).is_file(), "{source:?}");
        assert!(source.version.starts_with("OpenSSL 3."), "{source:?}");
        // Where libcrypto's work differs from Regula's, the report says so once.
        assert_eq!(
            report
                .notes
                .iter()
                .filter(|note| note.starts_with("libcrypto aes-128-cmac mac: the key (EVP_PKEY)"))
                .count(),
            1,
            "{:?}",
            report.notes
        );
        assert!(
            !report
                .notes
                .iter()
                .any(|note| note.starts_with("libcrypto aes-128-ccm"))
        );
        for implementation in [Impl::Regula, Impl::Libcrypto] {
            assert!(
                report.rows.iter().any(|row| row.algorithm == "aes-128-ccm"
                    && row.implementation == implementation
                    && row.runs == 3),
                "{:?}",
                report.rows
            );
        }
        assert!(report.rows.iter().any(|row| {
            row.algorithm == "kbkdf-ctr-hmac-sha256"
                && row.implementation == Impl::Regula
                && row.runs == 3
        }));
        assert!(
            report.notes.iter().any(|note| note
                == "libcrypto kbkdf-ctr-hmac-sha256 derive: libcrypto does not measure this"),
            "{:?}",
            report.notes
        );
    }

    #[test]
    fn the_kbkdf_fixed_input_is_smb3s() {
        // MS-SMB2 §3.2.5.3.1 (SMB 3.0 signing key): Label "SMB2AESCMAC\0", Context "SmbSign\0",
        // L = 128, assembled as SP 800-108r1 §4 has it: Label ‖ 0x00 ‖ Context ‖ [L]₃₂.
        let mut expected = b"SMB2AESCMAC\0\0SmbSign\0".to_vec();
        expected.extend_from_slice(&[0, 0, 0, 0x80]);
        assert_eq!(workload::kbkdf_fixed_input(), expected);
    }

    #[test]
    fn the_plan_leaves_out_sizes_an_algorithm_cannot_take() {
        let config = Config {
            algorithms: vec![Algorithm::Aes256Xts, Algorithm::Aes128Kw],
            sizes: vec![8, 64],
            duration: Duration::from_millis(1),
            runs: 1,
            compare: vec![],
            libcrypto: None,
        };
        let (plan, notes) = plan(&config);
        assert_eq!(
            plan,
            vec![
                (Algorithm::Aes256Xts, Operation::Encrypt, Some(64)),
                (Algorithm::Aes128Kw, Operation::Wrap, None),
            ]
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
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
            libcrypto: None,
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
