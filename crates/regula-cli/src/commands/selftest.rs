//! `regula selftest`: run and report the power-on self-tests.

use clap::Args;
use regula::ModuleState;
use regula::selftest::{self, Runner, SelfTestKind};
use serde_json::json;

use crate::GlobalOptions;
use crate::failure::{Failure, MODULE_ERROR_STATE};
use crate::input;

#[derive(Args)]
pub struct SelftestArgs {
    /// List the power-on self-tests (the known-answer tests this command runs) with the
    /// algorithms each covers, without running anything.
    #[arg(long)]
    list: bool,
    /// With --list: also list the pairwise consistency tests run after every key generation.
    #[arg(long, requires = "list")]
    all: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(global: &GlobalOptions, args: SelftestArgs) -> Result<(), Failure> {
    if args.list {
        return list(args.json, args.all);
    }
    let module = input::module(global)?;
    let results = module.self_test_results();
    let operational = module.state() == ModuleState::Operational;
    if args.json {
        let tests: Vec<_> = results
            .iter()
            .map(|result| {
                json!({
                    "name": result.name,
                    "result": if result.passed { "passed" } else { "failed" },
                    "micros": result.micros,
                })
            })
            .collect();
        let report = json!({
            "policy": module.policy().name(),
            "state": if operational { "operational" } else { "error" },
            "tests": tests,
        });
        println!("{report:#}");
    } else {
        for result in results {
            let verdict = if result.passed { "passed" } else { "FAILED" };
            println!("{} self-test {verdict}", result.name);
        }
        if results.is_empty() {
            println!(
                "policy {} serves no algorithm, so no self-test applies",
                module.policy().name()
            );
        }
    }
    if operational {
        Ok(())
    } else {
        Err(Failure {
            code: MODULE_ERROR_STATE,
            message: format!(
                "self-test {} failed: the module is in the error state and refuses every service",
                module.failed_test().unwrap_or("unknown")
            ),
        })
    }
}

fn list(json: bool, all: bool) -> Result<(), Failure> {
    let tests: Vec<_> = selftest::list()
        .into_iter()
        .filter(|test| all || test.kind == SelfTestKind::Cast)
        .collect();
    if json {
        println!("{:#}", serde_json::to_value(&tests).unwrap_or_default());
        return Ok(());
    }
    for test in tests {
        let kind = match (test.kind, test.runner) {
            (SelfTestKind::Cast, _) => "power-on",
            (SelfTestKind::Pct, Runner::Regula) => "key generation",
            (SelfTestKind::Pct, Runner::AwsLcValidatedModule) => "key gen (AWS-LC)",
        };
        let algorithms: Vec<_> = test
            .algorithms
            .iter()
            .map(|algorithm| algorithm.name())
            .collect();
        println!("{:<22} {:<15} {}", test.name, kind, algorithms.join(", "));
    }
    Ok(())
}
