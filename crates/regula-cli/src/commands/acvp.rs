//! `regula acvp run`: recorded NIST ACVP vector sets through the module, per algorithm / mode /
//! test type. `regula acvp wrapper`: the module-wrapper protocol that BoringSSL's acvptool
//! drives over stdin/stdout.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use regula_vectors::acvp::{AcvpRow, AcvpTotals};

use crate::GlobalOptions;
use crate::failure::{CRYPTO_FAILURE, Failure};
use crate::input;

pub const AFTER_HELP: &str = "\
Reads recorded ACVP vector sets with their expected answers: a directory with vectors/ and
expected/ (Go's github.com/geomys/acvp-testdata module, bzip2 JSON; scripts/acvp-testdata
fetches it), a directory of NIST ACVP-Server prompt.json / expectedResults.json pairs or
internalProjection.json files (the server's answers inside each case), or one prompt file (its
answers found beside it, or given with --expected).

Every case is answered through the module's services under the policy. A skipped case is
never counted as passed; every skip has a reason (not approved by the policy, unsupported by
this module, not yet answered by regula acvp). A case whose expected answer is `testPassed:
false` passes only when the module refuses it.

--out FILE writes the module's answers in ACVP's response format: a JSON array with one
{vsId, algorithm, mode, revision, testGroups: [{tgId, tests: [{tcId, ...}]}]} per vector set,
holding the fields each family compared (and testPassed where the expected answer is a
verdict). Skipped cases are absent, as a real response would omit them; so are Monte Carlo
results and the TLS KDFs' answers, which are compared but not written.

Examples:
  regula acvp run --policy fips-140-3 \"$(scripts/acvp-testdata)\"
  regula acvp run --json gen-val/json-files/SHA2-256-1.0/prompt.json
  regula acvp run --out responses.json crates/regula-vectors/tests/data/acvp-server

Exit codes: 0 nothing failed, 1 a case failed, 2 a file could not be read or parsed
(the message names the file and the case), 4 module in error state (also when a self-test
that runs before an algorithm's first use fails during the run).";

#[derive(Subcommand)]
pub enum AcvpCommand {
    /// Answer recorded vector sets and compare with the expected answers.
    #[command(after_help = AFTER_HELP)]
    Run(RunArgs),
    /// Speak the ACVP module-wrapper protocol on stdin/stdout, for BoringSSL's acvptool.
    #[command(after_help = WRAPPER_AFTER_HELP)]
    Wrapper,
}

pub const WRAPPER_AFTER_HELP: &str = "\
The length-prefixed protocol of BoringSSL's and AWS-LC's acvptool (a little-endian u32 count
of fields, their u32 lengths, then their bytes; replies the same way). `getConfig` answers the
capabilities the loaded policy approves; every other command goes to one of the module's
services under that policy. acvptool (util/fipstools/acvp/acvptool of a BoringSSL checkout,
built there with `go build`; Regula does not ship it) starts the wrapper itself, as a single
program:

  printf '#!/bin/sh\\nexec regula --policy fips-140-3 acvp wrapper\\n' > wrapper.sh
  chmod +x wrapper.sh
  acvptool -wrapper ./wrapper.sh -json VECTOR-SET.json

Exit codes: 0 the input ended between messages, 2 a malformed message, an unknown command,
bad arguments, or a request the policy or the module refused (the message on stderr names the
command), 4 module in error state.";

#[derive(Args)]
pub struct RunArgs {
    /// Print the rows as JSON.
    #[arg(long)]
    json: bool,
    /// The expected answers of a single prompt file, when they are not where the layouts put
    /// them.
    #[arg(long, value_name = "FILE")]
    expected: Option<PathBuf>,
    /// Write the module's answers to FILE in ACVP's response format.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Directories or prompt files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

pub fn run(global: &GlobalOptions, command: AcvpCommand) -> Result<(), Failure> {
    let args = match command {
        AcvpCommand::Run(args) => args,
        AcvpCommand::Wrapper => return wrapper(global),
    };
    if args.expected.is_some() && args.paths.len() != 1 {
        return Err(Failure::input(
            "--expected goes with exactly one prompt file",
        ));
    }
    let module = input::operational_module(global)?;
    let mut rows: Vec<AcvpRow> = Vec::new();
    let mut responses = Vec::new();
    for path in &args.paths {
        let (path_rows, path_responses) =
            regula_vectors::acvp::run_path_with_responses(&module, path, args.expected.as_deref())
                .map_err(|error| Failure::input(error.to_string()))?;
        rows.extend(path_rows);
        responses.extend(path_responses);
    }
    if let Some(out) = &args.out {
        regula_vectors::acvp::write_responses(out, &responses)
            .map_err(|error| Failure::input(error.to_string()))?;
    }
    let totals = AcvpTotals::of(&rows);
    if args.json {
        let output =
            serde_json::json!({ "policy": module.policy().name(), "rows": rows, "totals": totals });
        println!(
            "{}",
            serde_json::to_string_pretty(&output).unwrap_or_default()
        );
    } else {
        print_text(&rows, &totals, module.policy().name());
    }
    // A self-test that failed during the run left later cases skipped: not a result.
    input::still_operational(&module)?;
    if totals.failed > 0 {
        return Err(Failure {
            code: CRYPTO_FAILURE,
            message: format!("{} ACVP test cases failed", totals.failed),
        });
    }
    Ok(())
}

fn wrapper(global: &GlobalOptions) -> Result<(), Failure> {
    let module = input::operational_module(global)?;
    let served = regula_vectors::acvp::wrapper::serve(
        &module,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    );
    input::still_operational(&module)?;
    served
        .map(|_| ())
        .map_err(|error| Failure::input(format!("acvp wrapper: {error}")))
}

fn print_text(rows: &[AcvpRow], totals: &AcvpTotals, policy: &str) {
    let mut file = "";
    for row in rows {
        if row.file != file {
            file = &row.file;
            println!("{file}");
        }
        let verdict = if row.failed > 0 { "FAIL" } else { "ok" };
        let mode = if row.mode.is_empty() { "-" } else { &row.mode };
        println!(
            "  {verdict:<4} {:<18} {:<16} {:<4}  passed {}  failed {}  skipped {}",
            row.algorithm, mode, row.test_type, row.passed, row.failed, row.skipped
        );
        for failure in &row.failures {
            println!("         failed: {failure}");
        }
        for (reason, count) in &row.skip_reasons {
            println!("         skipped {count}: {reason}");
        }
    }
    let mut reasons: Vec<(&String, &u64)> = totals.skip_reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (reason, count) in reasons {
        println!("skipped {count}: {reason}");
    }
    println!(
        "total under {policy}: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.skipped
    );
}
