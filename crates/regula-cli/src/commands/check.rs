//! `regula check`: the whole picture in one command — self-tests, the built-in vector pass for
//! the policy, a short benchmark, the backend and CPU, and a verdict.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use regula::{Algorithm, Module, ModuleState};
use regula_bench::{Config, Impl};
use regula_vectors::acvp::AcvpTotals;
use regula_vectors::{FileReport, Totals};
use serde::Serialize;

use crate::GlobalOptions;
use crate::failure::{CRYPTO_FAILURE, Failure, MODULE_ERROR_STATE};
use crate::input;

pub const AFTER_HELP: &str = "\
What it runs:
  1. every known-answer self-test of the policy (as `regula selftest`)
  2. the built-in vector pass: Wycheproof sets for every algorithm the policy serves
     (as `regula vectors --suite builtin`)
  3. a short benchmark of the main algorithms against raw aws-lc-rs (as `regula bench`)
  4. the backend (AWS-LC, FIPS or not) and the CPU features it ran with

Verdict PASS when the module is operational and no vector failed.

With the global --as-of YYYY-MM-DD, the policy is evaluated as on that day: the self-tests and
vectors run over what it would serve then, and the summary lists the algorithms approved today
that it would refuse on that day (SHA-1 after 2030, RSA/ECC after 2035 under fips-140-3, ...).

Exit codes:
  0  PASS
  1  a known-answer vector failed
  2  usage or input error
  4  module in error state (a self-test failed)";

#[derive(Args)]
pub struct CheckArgs {
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML report (with a throughput chart) to this file.
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// Skip the benchmark section (e.g. on a loaded machine).
    #[arg(long)]
    no_bench: bool,
    /// Also answer recorded NIST ACVP sets (as `regula acvp run` reads them; repeatable),
    /// e.g. `--acvp "$(scripts/acvp-testdata)"`. A failed case fails the check.
    #[arg(long, value_name = "PATH")]
    acvp: Vec<PathBuf>,
}

/// The algorithms the short benchmark measures, when the policy serves them.
const BENCH_ALGORITHMS: [Algorithm; 4] = [
    Algorithm::Aes256Gcm,
    Algorithm::Sha256,
    Algorithm::HmacSha256,
    Algorithm::EcdsaP256,
];

/// Everything `check` found, as printed with `--json`.
#[derive(Serialize)]
pub struct CheckResult {
    pub verdict: &'static str,
    pub reasons: Vec<String>,
    pub policy: String,
    pub profile: &'static str,
    pub mode: &'static str,
    /// The day the policy was evaluated on (today unless `--as-of` fixed one).
    pub as_of: String,
    /// With `--as-of`: algorithms approved today that the policy no longer approves that day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_as_of: Option<Vec<&'static str>>,
    pub module_state: ModuleState,
    pub backend: String,
    pub fips_module_linked: bool,
    pub fips_mode: bool,
    pub cpu_features: Vec<&'static str>,
    pub self_tests: Vec<regula::selftest::SelfTestResult>,
    pub vectors: Vec<FileReport>,
    pub vector_totals: Totals,
    /// With `--acvp`: the totals over the recorded ACVP sets read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acvp: Option<AcvpTotals>,
    /// `None` when skipped (`--no-bench` or the module is in its error state).
    pub benchmark: Option<regula_bench::Report>,
}

pub fn run(global: &GlobalOptions, args: CheckArgs) -> Result<(), Failure> {
    if let Some(path) = &args.report
        && path.extension().and_then(|extension| extension.to_str()) != Some("html")
    {
        return Err(Failure::input(format!(
            "{}: --report writes HTML; give a file name ending in .html",
            path.display()
        )));
    }
    let module = input::module(global)?;
    let mut result = check(&module, !args.no_bench);
    if !args.acvp.is_empty() && result.module_state == ModuleState::Operational {
        let mut rows = Vec::new();
        for path in &args.acvp {
            rows.extend(
                regula_vectors::acvp::run_path(&module, path, None)
                    .map_err(|error| Failure::input(error.to_string()))?,
            );
        }
        let totals = AcvpTotals::of(&rows);
        if totals.failed > 0 {
            result.verdict = "FAIL";
            result
                .reasons
                .push(format!("{} ACVP test cases failed", totals.failed));
        }
        result.acvp = Some(totals);
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&result).unwrap_or_default()
        );
    } else {
        print!("{}", summary(&result));
    }
    if let Some(path) = &args.report {
        let html = crate::html::report(&result);
        std::fs::write(path, html)
            .map_err(|error| Failure::input(format!("cannot write {}: {error}", path.display())))?;
        eprintln!("report written to {}", path.display());
    }
    let acvp_failed = result.acvp.as_ref().map_or(0, |totals| totals.failed);
    match (
        result.module_state,
        result.vector_totals.failed + acvp_failed,
    ) {
        (ModuleState::Error, _) => Err(Failure {
            code: MODULE_ERROR_STATE,
            message: "check failed: module in error state".into(),
        }),
        (_, 0) => Ok(()),
        (_, failed) => Err(Failure {
            code: CRYPTO_FAILURE,
            message: format!("check failed: {failed} vectors or ACVP cases failed"),
        }),
    }
}

fn check(module: &Module, with_bench: bool) -> CheckResult {
    let self_tests = module.run_self_tests();
    let info = regula::info::build_info();
    let operational = module.state() == ModuleState::Operational;
    let vectors = if operational {
        regula_vectors::run_builtin(module)
    } else {
        Vec::new()
    };
    let vector_totals = Totals::of(&vectors);
    let benchmark = (operational && with_bench).then(|| {
        let config = Config {
            algorithms: BENCH_ALGORITHMS
                .into_iter()
                .filter(|&algorithm| module.policy().serves(algorithm))
                .collect(),
            sizes: vec![16, 1024, 8192],
            duration: Duration::from_millis(100),
            runs: 3,
            compare: vec![Impl::Raw],
            libcrypto: None,
        };
        regula_bench::run(module, &config, |_, _| {}).unwrap_or_default()
    });
    let mut reasons = Vec::new();
    if !operational {
        reasons.push(format!(
            "self-test {} failed: the module refuses every service",
            module.failed_test().unwrap_or("unknown")
        ));
    }
    if vector_totals.failed > 0 {
        reasons.push(format!(
            "{} known-answer vectors failed",
            vector_totals.failed
        ));
    }
    let policy = module.policy();
    let today = regula::policy::Date::today();
    let refused_as_of = policy.fixed_date().map(|_| {
        Algorithm::ALL
            .into_iter()
            .filter(|&algorithm| {
                policy.rule(algorithm).approved_on(today) && !policy.approves(algorithm)
            })
            .map(Algorithm::name)
            .collect()
    });
    CheckResult {
        verdict: if reasons.is_empty() { "PASS" } else { "FAIL" },
        reasons,
        policy: policy.name().to_string(),
        profile: policy.profile().name(),
        mode: policy.mode().name(),
        as_of: policy.date().to_string(),
        refused_as_of,
        module_state: module.state(),
        backend: info.backend,
        fips_module_linked: info.fips_module_linked,
        fips_mode: info.fips_mode.is_ok(),
        cpu_features: info.cpu_features,
        self_tests,
        vectors,
        vector_totals,
        acvp: None,
        benchmark,
    }
}

/// The summary a newcomer reads: one line per section, then the verdict.
fn summary(result: &CheckResult) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Regula check under policy {} ({} profile, {} mode)",
        result.policy, result.profile, result.mode
    );
    if let Some(refused) = &result.refused_as_of {
        let list = if refused.is_empty() {
            "nothing approved today".to_string()
        } else {
            refused.join(", ")
        };
        let _ = writeln!(
            out,
            "  as of       {}: the policy would refuse {} ({} algorithms approved today)",
            result.as_of,
            list,
            refused.len()
        );
    }
    let fips = match (result.fips_module_linked, result.fips_mode) {
        (true, true) => "validated FIPS module linked, FIPS mode on",
        (true, false) => "validated FIPS module linked, but FIPS mode is OFF",
        (false, _) => "ordinary build (not the validated FIPS module)",
    };
    let _ = writeln!(
        out,
        "  module      {:?}; {}; {fips}",
        result.module_state, result.backend
    );
    let passed = result.self_tests.iter().filter(|test| test.passed).count();
    let micros: u64 = result.self_tests.iter().map(|test| test.micros).sum();
    let _ = writeln!(
        out,
        "  self-tests  {passed} passed, {} failed ({:.1} ms) — known-answer tests of every algorithm the policy serves",
        result.self_tests.len() - passed,
        micros as f64 / 1000.0
    );
    let totals = &result.vector_totals;
    let _ = writeln!(
        out,
        "  vectors     {} passed, {} failed, {} skipped in {} sets (Wycheproof; `regula vectors` for more)",
        totals.passed, totals.failed, totals.skipped, totals.files
    );
    for (reason, count) in totals.top_skip_reasons().into_iter().take(3) {
        let _ = writeln!(out, "                skipped {count}: {reason}");
    }
    for report in result.vectors.iter().filter(|report| report.failed > 0) {
        let _ = writeln!(
            out,
            "                FAILED {} ({}): {}",
            report.path,
            report.failed,
            report.failures.join("; ")
        );
    }
    match &result.acvp {
        Some(totals) => {
            let _ = writeln!(
                out,
                "  acvp        {} passed, {} failed, {} skipped (NIST's recorded ACVP sets; `regula acvp run` lists them)",
                totals.passed, totals.failed, totals.skipped
            );
            let mut reasons: Vec<(&String, &u64)> = totals.skip_reasons.iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(a.1));
            for (reason, count) in reasons.into_iter().take(3) {
                let _ = writeln!(out, "                skipped {count}: {reason}");
            }
        }
        None => {
            let _ = writeln!(
                out,
                "  acvp        not run (NIST's recorded sets are fetched, not built in): regula check --acvp \"$(scripts/acvp-testdata)\""
            );
        }
    }
    match &result.benchmark {
        Some(benchmark) => {
            for row in benchmark
                .rows
                .iter()
                .filter(|row| row.implementation == Impl::Regula)
            {
                let raw = benchmark.peer_row(row, Impl::Raw);
                if row.bytes.is_some_and(|bytes| bytes != 8192) {
                    continue;
                }
                let size = row
                    .bytes
                    .map_or(String::new(), |bytes| format!(" {bytes} B"));
                let ratio = raw.map_or(String::new(), |raw| {
                    format!(" ({:.2}× raw aws-lc-rs)", row.median / raw.median)
                });
                let _ = writeln!(
                    out,
                    "  benchmark   {} {}{size}: {:.0} {}{ratio}",
                    row.algorithm,
                    row.operation.name(),
                    row.median,
                    row.unit
                );
            }
        }
        None => {
            let _ = writeln!(out, "  benchmark   skipped");
        }
    }
    let _ = writeln!(out, "  CPU         {}", result.cpu_features.join(" "));
    if result.verdict == "PASS" {
        let _ = writeln!(
            out,
            "Verdict: PASS — every self-test and every known-answer vector passed under {}.",
            result.policy
        );
    } else {
        let _ = writeln!(out, "Verdict: FAIL — {}.", result.reasons.join("; "));
    }
    out
}
