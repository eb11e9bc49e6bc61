//! `regula vectors`: standard vectors through the module, per-file verdicts.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use regula_vectors::{FileReport, Totals};

use crate::GlobalOptions;
use crate::failure::{CRYPTO_FAILURE, Failure};
use crate::input;

pub const AFTER_HELP: &str = "\
Formats are detected from content: NIST CAVP .rsp, the cryptography-vectors text files (CMAC,
HKDF, ChaCha20-Poly1305, SM3, SM4, RFC 8998), OpenSSL/Tongsuo evp_test files, Wycheproof JSON and
the GM/T standards' appendix examples (crates/regula-vectors/tests/data/gmt).
Directories are walked recursively (.rsp, .txt, .json, .input files).

A vector that must be rejected (CAVP FAIL, Result = F, Wycheproof invalid) passes only when
Regula rejects it. A skipped vector is never counted as passed; every skip has a reason (not
approved by the policy, algorithm not offered, unsupported parameter).

Examples:
  regula vectors --policy fips-140-3 \"$(python3 -c 'import cryptography_vectors,os;print(os.path.dirname(cryptography_vectors.__file__))')/ciphers/AES/GCM\"
  regula vectors --suite wycheproof --json
  regula vectors --policy gm crates/regula-vectors/tests/data/gmt

Exit codes: 0 nothing failed, 1 a vector failed, 2 a file could not be read or parsed
(the message names file and line), 4 module in error state.";

#[derive(Clone, Copy, ValueEnum)]
enum Suite {
    /// Every Wycheproof set bundled with Regula.
    Wycheproof,
    /// The Wycheproof sets for the algorithms the policy serves (what `regula check` runs).
    Builtin,
}

#[derive(Args)]
pub struct VectorsArgs {
    /// Run a bundled suite (besides any files given).
    #[arg(long, value_enum)]
    suite: Option<Suite>,
    /// Print the per-file reports as JSON.
    #[arg(long)]
    json: bool,
    /// Vector files or directories.
    paths: Vec<PathBuf>,
}

pub fn run(global: &GlobalOptions, args: VectorsArgs) -> Result<(), Failure> {
    if args.paths.is_empty() && args.suite.is_none() {
        return Err(Failure::input(
            "give vector files or directories, or --suite wycheproof|builtin",
        ));
    }
    let module = input::operational_module(global)?;
    let mut reports: Vec<FileReport> = match args.suite {
        Some(Suite::Wycheproof) => regula_vectors::run_wycheproof(&module),
        Some(Suite::Builtin) => regula_vectors::run_builtin(&module),
        None => Vec::new(),
    };
    for path in &args.paths {
        reports.extend(
            regula_vectors::run_path(&module, path)
                .map_err(|error| Failure::input(error.to_string()))?,
        );
    }
    let totals = Totals::of(&reports);
    if args.json {
        let output = serde_json::json!({ "policy": module.policy().name(), "files": reports, "totals": totals });
        println!(
            "{}",
            serde_json::to_string_pretty(&output).unwrap_or_default()
        );
    } else {
        print_text(&reports, &totals, module.policy().name());
    }
    // A self-test that failed during the run left later vectors skipped: not a result.
    input::still_operational(&module)?;
    if totals.failed > 0 {
        return Err(Failure {
            code: CRYPTO_FAILURE,
            message: format!("{} vectors failed", totals.failed),
        });
    }
    Ok(())
}

fn print_text(reports: &[FileReport], totals: &Totals, policy: &str) {
    for report in reports {
        let verdict = if report.failed > 0 { "FAIL" } else { "ok" };
        println!(
            "{verdict:<4} {}  [{} {}]  passed {}  failed {}  skipped {}",
            report.path,
            report.format,
            report.algorithm,
            report.passed,
            report.failed,
            report.skipped
        );
        for failure in &report.failures {
            println!("       failed: {failure}");
        }
        for (reason, count) in &report.skip_reasons {
            println!("       skipped {count}: {reason}");
        }
        for note in &report.notes {
            println!("       note: {note}");
        }
    }
    println!(
        "total under {policy}: {} files, {} passed, {} failed, {} skipped",
        totals.files, totals.passed, totals.failed, totals.skipped
    );
}
