//! Signed self-test reports (`regula selftest --json --sign KEY --out FILE`): the signature is
//! checked by independent tools — the OpenSSL CLI for ECDSA P-384 (fips-140-3) and Ed25519
//! (default), Tongsuo for SM2 with SM3 and the default ID (gm) — and by `regula selftest
//! --verify-report`; a report with one byte changed fails in both. Under cnsa-2.0 the report
//! is signed with ML-DSA-87, which Tongsuo 8.5 (OpenSSL 3.5 based) verifies too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

fn regula(args: &[&str]) -> Output {
    Command::new(REGULA)
        .args(args)
        .env_remove("REGULA_BREAK_SELFTEST")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn tongsuo() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/tongsuo");
        let output = Command::new("bash").arg(script).output().unwrap();
        assert!(
            output.status.success(),
            "scripts/tongsuo failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
    })
}

/// The independent verifier's command for a profile's signature algorithm.
fn peer_verifies(policy: &str, public: &Path, report: &Path, signature: &Path) -> bool {
    let mut command = match policy {
        "fips-140-3" => {
            let mut command = Command::new("openssl");
            command.args(["dgst", "-sha384", "-verify"]).arg(public);
            command.arg("-signature").arg(signature).arg(report);
            command
        }
        "default" => {
            let mut command = Command::new("openssl");
            command.args(["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey"]);
            command
                .arg(public)
                .arg("-in")
                .arg(report)
                .arg("-sigfile")
                .arg(signature);
            command
        }
        "cnsa-2.0" => {
            let mut command = Command::new(tongsuo());
            command.args(["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey"]);
            command
                .arg(public)
                .arg("-in")
                .arg(report)
                .arg("-sigfile")
                .arg(signature);
            command
        }
        "gm" => {
            let mut command = Command::new(tongsuo());
            command.args(["dgst", "-sm3", "-verify"]).arg(public);
            command.args(["-sigopt", "distid:1234567812345678", "-signature"]);
            command.arg(signature).arg(report);
            command
        }
        other => panic!("no peer for {other}"),
    };
    let output = command.output().expect("peer runs");
    let text = String::from_utf8_lossy(&output.stdout);
    // `dgst -verify` prints "Verified OK", `pkeyutl -verify` "Signature Verified Successfully".
    output.status.success() && (text.contains("Verified OK") || text.contains("Verified Success"))
}

/// The names of the self-tests a plain `regula selftest --json` runs under the policy.
fn casts_run(policy: &str) -> Vec<String> {
    let output = regula(&["selftest", "--policy", policy, "--json"]);
    assert!(output.status.success());
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|test| test["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn reports_are_signed_per_profile_and_an_edited_byte_fails_everywhere() {
    for (policy, algorithm, key_algorithm) in [
        ("fips-140-3", "ecdsa-p384", "ecdsa-p384"),
        ("default", "ed25519", "ed25519"),
        ("gm", "sm2-sign", "sm2"),
        ("cnsa-2.0", "ml-dsa-87", "ml-dsa-87"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        let (key, public, report, signature) = (
            path("key.pem"),
            path("pub.pem"),
            path("report.json"),
            path("report.json.sig"),
        );
        let keygen = regula(&[
            "keygen",
            "--policy",
            "default",
            "-a",
            key_algorithm,
            "--out",
            key.to_str().unwrap(),
            "--pubout",
            public.to_str().unwrap(),
        ]);
        assert!(keygen.status.success(), "{policy}: keygen");
        let signed = regula(&[
            "selftest",
            "--policy",
            policy,
            "--json",
            "--sign",
            key.to_str().unwrap(),
            "--out",
            report.to_str().unwrap(),
        ]);
        assert!(
            signed.status.success(),
            "{policy}: {}",
            String::from_utf8_lossy(&signed.stderr)
        );

        // What the report says.
        let bytes = std::fs::read(&report).unwrap();
        let parsed: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(parsed["format"], "regula-selftest-report/1");
        assert_eq!(parsed["policy"]["name"], policy);
        assert_eq!(parsed["state"], "operational");
        assert_eq!(parsed["signature"]["algorithm"], algorithm);
        assert_eq!(parsed["module"]["name"], "regula");
        assert!(parsed["module"]["fips_module_linked"].is_boolean());
        let names: Vec<String> = parsed["self_tests"]
            .as_array()
            .unwrap()
            .iter()
            .inspect(|test| {
                assert_eq!(test["result"], "passed", "{test}");
                assert!(test["micros"].is_u64());
            })
            .map(|test| test["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, casts_run(policy), "{policy}");
        let pcts = parsed["pairwise_consistency_tests"].as_array().unwrap();
        assert!(!pcts.is_empty(), "{policy}");
        assert!(pcts.iter().all(|pct| pct["result"] == "passed"), "{pcts:?}");
        let time = parsed["time"].as_str().unwrap();
        assert!(time.len() == 20 && time.ends_with('Z'), "{time}");
        assert!(!parsed["host"]["name"].as_str().unwrap().is_empty());
        assert!(parsed["cpu_features"].is_array());

        // The signature, checked by the peer and by regula.
        assert!(
            peer_verifies(policy, &public, &report, &signature),
            "{policy}: the independent verifier rejects the report"
        );
        let verify = || {
            regula(&[
                "selftest",
                "--verify-report",
                report.to_str().unwrap(),
                "--pubkey",
                public.to_str().unwrap(),
            ])
        };
        let ok = verify();
        assert_eq!(ok.status.code(), Some(0), "{policy}");
        assert!(String::from_utf8_lossy(&ok.stdout).contains("signature OK"));

        // One edited byte, at the start, in the middle and at the end: both reject it.
        for position in [0, bytes.len() / 2, bytes.len() - 2] {
            let mut edited = bytes.clone();
            edited[position] ^= 0x01;
            std::fs::write(&report, &edited).unwrap();
            assert!(
                !peer_verifies(policy, &public, &report, &signature),
                "{policy}: the peer accepts a report edited at byte {position}"
            );
            let rejected = verify();
            assert_eq!(rejected.status.code(), Some(1), "{policy} byte {position}");
            assert!(rejected.stdout.is_empty());
            assert!(
                String::from_utf8_lossy(&rejected.stderr).contains("REJECTED"),
                "{}",
                String::from_utf8_lossy(&rejected.stderr)
            );
        }
        std::fs::write(&report, &bytes).unwrap();
        assert_eq!(verify().status.code(), Some(0));
    }
}

/// A key of the wrong type for the profile is an input error naming the expected algorithm.
#[test]
fn a_key_of_another_algorithm_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("ed.pem");
    let keygen = regula(&["keygen", "-a", "ed25519", "--out", key.to_str().unwrap()]);
    assert!(keygen.status.success());
    let report = dir.path().join("report.json");
    let output = regula(&[
        "selftest",
        "--policy",
        "fips-140-3",
        "--json",
        "--sign",
        key.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("ecdsa-p384"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!report.exists(), "no partial report");
}
