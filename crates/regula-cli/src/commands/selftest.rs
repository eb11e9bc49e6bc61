//! `regula selftest`: run and report the known-answer self-tests (CASTs).

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use regula::key_encoding::KeyKind;
use regula::selftest::{self, Runner, SelfTestKind};
use regula::{Algorithm, Family, Module, ModuleState, Profile};
use serde_json::{Value, json};
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::{CRYPTO_FAILURE, Failure, MODULE_ERROR_STATE};
use crate::input;

pub const AFTER_HELP: &str = "\
Signed reports (evidence for an auditor):
  regula selftest --policy fips-140-3 --json --sign key.pem --out report.json
writes the report (module identity and build, policy, every known-answer self-test and every
pairwise consistency test with its time in microseconds, CPU features, time and host) to
report.json exactly as signed, and a detached signature of those bytes to report.json.sig
(--signature to choose). The signature algorithm follows the policy's profile: ECDSA P-384
with SHA-384 (DER) under fips-140-3, SM2 with SM3 and the default ID 1234567812345678 (DER)
under gm, ML-DSA-87 under cnsa-2.0, Ed25519 under default. The key is PKCS#8 (PEM or DER), as
`regula keygen` writes it, e.g. `regula keygen -a ecdsa-p384 --out key.pem --pubout pub.pem`.

Anyone can check a report with OpenSSL:
  openssl dgst -sha384 -verify pub.pem -signature report.json.sig report.json      (ECDSA P-384)
  openssl pkeyutl -verify -rawin -pubin -inkey pub.pem -in report.json \\
      -sigfile report.json.sig                                                    (Ed25519)
  tongsuo dgst -sm3 -verify pub.pem -sigopt distid:1234567812345678 \\
      -signature report.json.sig report.json                                      (SM2)
or with regula:
  regula selftest --verify-report report.json --pubkey pub.pem

When the self-tests run (FIPS 140-3 IG 10.3.A conditional self-tests):
  known-answer tests (CASTs, `--list`)   each runs once per process, before the first service of
      an algorithm it covers, which waits for it; a service of a family that may draw random
      bits (AEAD and ciphers for IVs and nonces, signatures, key agreement, KEM, SM2) first
      runs the tests of the random bit generators too. Nothing is served before its test
      passed: `regula dgst -a sm3` runs the SM3 test alone, and the tests of unused algorithms
      never run. This command and `regula check` run every test the policy needs (JSON:
      \"ran\": \"first-use\" or \"requested\"); the C, Python and Go bindings run them all
      when they load a module.
  pairwise consistency tests (`--list --all`)   after every key generation of a covered key.
  AWS-LC's own power-on tests (FIPS build)      when the validated module loads, as it decides.
A failed test puts the module in its error state: the request that ran it and every later one
is refused (exit 4).

Failure testing: REGULA_BREAK_SELFTEST=<NAME> corrupts one self-test, which fails where it runs:
a name from `--list` at the first use of an algorithm it covers (or in this command), a name from
`--list --all` that is not in `--list` (a pairwise consistency test) at the next key generation
of an algorithm it covers; from then on every service exits 4. A name that is no self-test at all
puts the module in its error state at load, so that a typo cannot pass for a working failure
path.

Exit codes:
  0  every self-test passed (with --verify-report: the signature is valid)
  1  --verify-report: the signature does not match the report (an edited byte, another key)
  2  usage error, unreadable policy, key or report
  3  the policy does not approve the report's signature algorithm or key
  4  a self-test failed: the module is in its error state";

#[derive(Args)]
pub struct SelftestArgs {
    /// List the known-answer self-tests (the CASTs this command runs; each otherwise runs before
    /// the first use of its algorithms) with the
    /// algorithms each covers, without running anything.
    #[arg(long)]
    list: bool,
    /// With --list: also list the pairwise consistency tests run after every key generation.
    #[arg(long, requires = "list")]
    all: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// Sign the JSON report with this private key (PKCS#8, PEM or DER): see below.
    #[arg(long, value_name = "KEY", requires_all = ["json", "out"], conflicts_with = "list")]
    sign: Option<String>,
    /// With --sign: write the report here (exactly the signed bytes).
    #[arg(long, value_name = "FILE", requires = "sign")]
    out: Option<PathBuf>,
    /// With --sign or --verify-report: the detached signature file (default: the report's
    /// path with `.sig` appended).
    #[arg(long, value_name = "FILE")]
    signature: Option<PathBuf>,
    /// Check a signed report instead of running the self-tests; needs --pubkey.
    #[arg(long, value_name = "FILE", requires = "pubkey", conflicts_with_all = ["list", "sign"])]
    verify_report: Option<PathBuf>,
    /// With --verify-report: the signer's public key (SubjectPublicKeyInfo, PEM or DER).
    #[arg(long, value_name = "PEM", requires = "verify_report")]
    pubkey: Option<String>,
}

pub fn run(global: &GlobalOptions, args: SelftestArgs) -> Result<(), Failure> {
    if args.list {
        return list(args.json, args.all);
    }
    if let Some(report) = &args.verify_report {
        let signature = signature_path(report, args.signature.as_deref());
        return verify_report(
            global,
            report,
            &signature,
            args.pubkey.as_deref().unwrap_or(""),
        );
    }
    let module = input::module(global)?;
    if let (Some(key), Some(out)) = (&args.sign, &args.out) {
        let signature = signature_path(out, args.signature.as_deref());
        return signed_report(global, &module, key, out, &signature);
    }
    let results = module.run_self_tests();
    let operational = module.state() == ModuleState::Operational;
    if args.json {
        let tests: Vec<_> = results
            .iter()
            .map(|result| {
                json!({
                    "name": result.name,
                    "result": if result.passed { "passed" } else { "failed" },
                    "micros": result.micros,
                    "ran": result.ran.name(),
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
        for result in &results {
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
            (SelfTestKind::Cast, _) => "first-use",
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

fn signature_path(report: &Path, explicit: Option<&Path>) -> PathBuf {
    explicit.map_or_else(
        || {
            let mut path = report.as_os_str().to_owned();
            path.push(".sig");
            PathBuf::from(path)
        },
        Path::to_path_buf,
    )
}

/// The signature algorithm a profile's reports are signed with.
fn report_algorithm(profile: Profile) -> Algorithm {
    match profile {
        Profile::Fips1403 => Algorithm::EcdsaP384,
        Profile::Gm => Algorithm::Sm2Sign,
        Profile::Cnsa20 => Algorithm::MlDsa87,
        _ => Algorithm::Ed25519,
    }
}

/// The RFC 3339 UTC time now.
fn now_utc() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let day = regula::policy::Date::from_days_since_epoch(seconds / 86_400);
    let in_day = seconds % 86_400;
    format!(
        "{day}T{:02}:{:02}:{:02}Z",
        in_day / 3600,
        in_day / 60 % 60,
        in_day % 60
    )
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_string())
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".to_string())
}

/// Runs every pairwise consistency test the policy's key types have, by generating one key of
/// the first algorithm each covers that the policy serves; the time includes the key
/// generation the test belongs to.
fn run_pcts(module: &Module) -> Vec<Value> {
    let policy = module.policy();
    selftest::list()
        .into_iter()
        .filter(|test| test.kind == SelfTestKind::Pct)
        .filter_map(|test| {
            let algorithm = test
                .algorithms
                .iter()
                .copied()
                .find(|&algorithm| policy.approves(algorithm))?;
            let started = Instant::now();
            let outcome = match algorithm.family() {
                Family::Signature => module.generate_signing_key(algorithm, None).map(drop),
                Family::KeyAgreement => module.generate_agreement_key(algorithm).map(drop),
                Family::Kem => module.generate_kem_key(algorithm).map(drop),
                Family::PublicKeyEncryption => module.generate_decryption_key(algorithm).map(drop),
                _ => return None,
            };
            let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            Some(json!({
                "name": test.name,
                "kind": "pct",
                "algorithm": algorithm.name(),
                "result": if outcome.is_ok() { "passed" } else { "failed" },
                "micros_with_key_generation": micros,
            }))
        })
        .collect()
}

fn signed_report(
    global: &GlobalOptions,
    module: &Module,
    key_path: &str,
    out: &Path,
    signature_out: &Path,
) -> Result<(), Failure> {
    if module.state() != ModuleState::Operational {
        let failed_test = module.failed_test().unwrap_or("unknown").to_string();
        return Err(regula::Error::ModuleInErrorState { failed_test }.into());
    }
    let algorithm = report_algorithm(module.policy().profile());
    let key_file = Zeroizing::new(input::read_all(key_path)?);
    let pkcs8 = input::key(&key_file, KeyKind::Private, key_path)?;
    let key = module
        .signing_key_from_pkcs8(algorithm, &pkcs8)
        .map_err(|error| {
            let mut failure = Failure::from(error);
            failure.message = format!(
                "{key_path}: reports under {} are signed with {algorithm}: {}",
                module.policy().name(),
                failure.message
            );
            failure
        })?;
    input::report(global, &key);
    let public_key = key.public_key_der()?;
    let fingerprint = module
        .digest(Algorithm::Sha384, &public_key)
        .or_else(|_| module.digest(Algorithm::Sm3, &public_key))?;

    let info = regula::info::build_info();
    let results = module.run_self_tests();
    let casts: Vec<Value> = results
        .iter()
        .map(|result| {
            json!({
                "name": result.name,
                "kind": "cast",
                "result": if result.passed { "passed" } else { "failed" },
                "micros": result.micros,
                "ran": result.ran.name(),
            })
        })
        .collect();
    let pcts = run_pcts(module);
    let all_passed = results.iter().all(|result| result.passed)
        && pcts.iter().all(|pct| pct["result"] == "passed");
    let policy = module.policy();
    let report = json!({
        "format": "regula-selftest-report/1",
        "module": {
            "name": "regula",
            "version": info.regula_version,
            "backend": info.backend,
            "fips_module_linked": info.fips_module_linked,
            "fips_mode": info.fips_mode.is_ok(),
            "fips_module_version": info.fips_module_version,
        },
        "policy": {
            "name": policy.name(),
            "profile": policy.profile().name(),
            "mode": policy.mode().name(),
            "origin": policy.origin(),
            "as_of": policy.date().to_string(),
        },
        "state": if module.state() == ModuleState::Operational && all_passed {
            "operational"
        } else {
            "error"
        },
        "self_tests": casts,
        "pairwise_consistency_tests": pcts,
        "cpu_features": info.cpu_features,
        "time": now_utc(),
        "host": {
            "name": hostname(),
            "os": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
        },
        "signature": {
            "algorithm": algorithm.name(),
            "detached": true,
            "public_key_fingerprint": format!(
                "{}:{}",
                fingerprint.indicator().algorithm,
                fingerprint.iter().map(|byte| format!("{byte:02x}")).collect::<String>()
            ),
        },
    });
    let bytes = format!("{report:#}\n").into_bytes();
    let signature = key.sign(&bytes)?;
    input::report(global, &signature);
    input::write_file(out, &bytes, false)?;
    input::write_file(signature_out, &signature, false)?;
    eprintln!(
        "self-test report written to {} and its {algorithm} signature to {}",
        out.display(),
        signature_out.display()
    );
    if module.state() != ModuleState::Operational || !all_passed {
        return Err(Failure {
            code: MODULE_ERROR_STATE,
            message: "a self-test failed: the module is in the error state".into(),
        });
    }
    Ok(())
}

fn verify_report(
    global: &GlobalOptions,
    report_path: &Path,
    signature_path: &Path,
    pubkey: &str,
) -> Result<(), Failure> {
    let module = input::module(global)?;
    let report = input::read_all(&report_path.display().to_string())?;
    let signature = input::read_all(&signature_path.display().to_string())?;
    let public_key = input::key(&input::read_all(pubkey)?, KeyKind::Public, pubkey)?;
    // The algorithm is read from the report; if an edit broke the JSON or changed it, the
    // signature cannot match anyway: the check is over the bytes exactly as signed.
    let rejected = |why: String| Failure {
        code: CRYPTO_FAILURE,
        message: format!(
            "{}: REJECTED: {why}; the report is not exactly what was signed",
            report_path.display()
        ),
    };
    let parsed: Value = serde_json::from_slice(&report)
        .map_err(|error| rejected(format!("not a JSON report ({error})")))?;
    let name = parsed["signature"]["algorithm"]
        .as_str()
        .ok_or_else(|| rejected("no signature.algorithm in the report".into()))?;
    let algorithm = input::algorithm(name, &[Family::Signature])
        .map_err(|_| rejected(format!("unknown signature algorithm {name:?}")))?;
    let verified = match module.verify(algorithm, &public_key, &report, &signature) {
        Ok(verified) => verified,
        Err(error)
            if matches!(
                error.kind(),
                regula::ErrorKind::Cryptographic | regula::ErrorKind::Input
            ) =>
        {
            return Err(rejected(format!(
                "the {algorithm} signature in {} does not verify with {pubkey}",
                signature_path.display()
            )));
        }
        Err(error) => return Err(error.into()),
    };
    input::report(global, &verified);
    println!(
        "{}: signature OK ({algorithm}); policy {}, state {}, {} self-tests, signed at {} on {}",
        report_path.display(),
        parsed["policy"]["name"].as_str().unwrap_or("?"),
        parsed["state"].as_str().unwrap_or("?"),
        parsed["self_tests"].as_array().map_or(0, Vec::len)
            + parsed["pairwise_consistency_tests"]
                .as_array()
                .map_or(0, Vec::len),
        parsed["time"].as_str().unwrap_or("?"),
        parsed["host"]["name"].as_str().unwrap_or("?"),
    );
    Ok(())
}
