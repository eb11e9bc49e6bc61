//! `regula acvp run` end to end: both layouts, the JSON rows and the exit codes. The case is
//! SHA3-256 tgId 1 tcId 11 of NIST's recorded set (Go's acvp-testdata module,
//! v0.0.0-20251201200548-d893de8b8b1c, vectors/SHA3-256 and expected/SHA3-256); the answer is
//! NIST's. The whole recorded sets run in scripts/test.

use std::path::Path;
use std::process::{Command, Output};

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

const PROMPT: &str = r#"{"vsId": 2599070, "algorithm": "SHA3-256", "revision": "2.0", "testGroups": [
  {"tgId": 1, "testType": "AFT", "tests": [{"tcId": 11, "len": 504,
   "msg": "6B21B1E705D923A3EACBD7626B7454A8F07025025A7D4AB4BC9D1688FFC7649F545A86139C5F317B0A166F3F3D0AE1F8A306D3D8CB6259F2354D4737552EB9"}]}]}"#;

fn answers(md: &str) -> String {
    format!(
        r#"{{"vsId": 2599070, "algorithm": "SHA3-256", "testGroups": [{{"tgId": 1, "tests": [{{"tcId": 11, "md": "{md}"}}]}}]}}"#
    )
}

const MD: &str = "88085177e4122e62f3acb3c45f572b2058f5acd1445827fdcf16fe82cb52982c";
const WRONG_MD: &str = "88085177e4122e62f3acb3c45f572b2058f5acd1445827fdcf16fe82cb52982d";

fn regula(args: &[&str]) -> Output {
    Command::new(REGULA)
        .args(args)
        .env_remove("REGULA_BREAK_SELFTEST")
        .output()
        .expect("regula runs")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn prompt_and_expected_results_pass_and_report_json_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("SHA3-256-2.0");
    write(&set.join("prompt.json"), PROMPT);
    write(&set.join("expectedResults.json"), &answers(MD));
    let dir_arg = dir.path().to_str().expect("utf-8 path");
    let output = regula(&["acvp", "run", "--policy", "fips-140-3", "--json", dir_arg]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["policy"], "fips-140-3");
    let rows = json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{json}");
    assert_eq!(rows[0]["algorithm"], "SHA3-256");
    assert_eq!(rows[0]["test_type"], "AFT");
    assert_eq!(
        (&rows[0]["passed"], &rows[0]["failed"], &rows[0]["skipped"]),
        (&1.into(), &0.into(), &0.into())
    );
}

#[test]
fn a_wrong_expected_answer_exits_1_and_names_the_case() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Go's layout, here uncompressed (the reader goes by content, not by name).
    write(&dir.path().join("vectors/SHA3-256.bz2"), PROMPT);
    write(
        &dir.path().join("expected/SHA3-256.bz2"),
        &answers(WRONG_MD),
    );
    let output = regula(&["acvp", "run", dir.path().to_str().expect("utf-8 path")]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    assert!(text.contains("FAIL"), "{text}");
    assert!(text.contains("tgId 1 tcId 11"), "{text}");
    assert!(text.contains("1 failed"), "{text}");
}

#[test]
fn unreadable_or_unpaired_sets_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let prompt = dir.path().join("elsewhere.json");
    write(&prompt, PROMPT);
    let prompt_arg = prompt.to_str().expect("utf-8 path");
    // No way to tell where the answers are.
    let output = regula(&["acvp", "run", prompt_arg]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("--expected"));
    // Given explicitly, it runs.
    let expected = dir.path().join("answers.json");
    write(&expected, &answers(MD));
    let output = regula(&[
        "acvp",
        "run",
        "--expected",
        expected.to_str().expect("utf-8 path"),
        prompt_arg,
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    // Malformed JSON.
    write(&expected, "{\"testGroups\": [");
    let output = regula(&[
        "acvp",
        "run",
        "--expected",
        expected.to_str().expect("utf-8 path"),
        prompt_arg,
    ]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid JSON"));
}

/// ACVP-AES-GCM tgId 17 tcId 251 of NIST's recorded set, as a decryption: the AES-GCM
/// self-test runs before it, and a broken one must end the run with exit code 4, the case
/// skipped, not passed.
#[test]
fn a_self_test_failing_during_the_run_exits_4() {
    let prompt = r#"{"vsId": 1, "algorithm": "ACVP-AES-GCM", "testGroups": [{"tgId": 17,
        "testType": "AFT", "direction": "decrypt", "ivGen": "external", "ivLen": 96,
        "keyLen": 256, "tagLen": 128, "tests": [{"tcId": 251,
        "key": "179BC9E1B0C6699E045C8B06DC1E6CD62084B4E3BAA1BF6275DE161F6F85F549",
        "iv": "BEC101F97EC77F957DFDE8D9", "aad": "", "ct": "",
        "tag": "B748B73140453C30E27C41D0CA3DE697"}]}]}"#;
    let answers =
        r#"{"vsId": 1, "testGroups": [{"tgId": 17, "tests": [{"tcId": 251, "pt": ""}]}]}"#;
    let dir = tempfile::tempdir().expect("tempdir");
    write(&dir.path().join("prompt.json"), prompt);
    write(&dir.path().join("expectedResults.json"), answers);
    let dir_arg = dir.path().to_str().expect("utf-8 path");
    let output = regula(&["acvp", "run", "--policy", "fips-140-3", dir_arg]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(stdout(&output).contains("passed 1  failed 0"), "{output:?}");
    let output = Command::new(REGULA)
        .args(["acvp", "run", "--policy", "fips-140-3", dir_arg])
        .env("REGULA_BREAK_SELFTEST", "AES-GCM")
        .output()
        .expect("regula runs");
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let text = stdout(&output);
    assert!(text.contains("passed 0  failed 0  skipped 1"), "{text}");
    assert!(text.contains("module is in its error state"), "{text}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("AES-GCM"),
        "{output:?}"
    );
}

/// `regula check` runs no ACVP set unless given one (they are fetched, not built in) and says
/// how; with `--acvp` it adds the totals, and a failed case fails the check.
#[test]
fn check_runs_acvp_sets_when_given() {
    let output = regula(&["check", "--policy", "fips-140-3", "--no-bench"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let acvp_line = |text: &str| {
        text.lines()
            .find(|line| line.trim_start().starts_with("acvp"))
            .unwrap_or_else(|| panic!("no acvp line in:\n{text}"))
            .to_string()
    };
    let line = acvp_line(&stdout(&output));
    assert!(
        line.contains("regula check --acvp \"$(scripts/acvp-testdata)\""),
        "{line}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("SHA3-256-2.0");
    write(&set.join("prompt.json"), PROMPT);
    write(&set.join("expectedResults.json"), &answers(MD));
    let dir_arg = dir.path().to_str().expect("utf-8 path");
    let output = regula(&[
        "check",
        "--policy",
        "fips-140-3",
        "--no-bench",
        "--acvp",
        dir_arg,
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let line = acvp_line(&stdout(&output));
    assert!(line.contains("1 passed, 0 failed, 0 skipped"), "{line}");

    write(&set.join("expectedResults.json"), &answers(WRONG_MD));
    let output = regula(&[
        "check",
        "--policy",
        "fips-140-3",
        "--no-bench",
        "--json",
        "--acvp",
        dir_arg,
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["verdict"], "FAIL");
    assert_eq!(json["acvp"]["failed"], 1);
}

/// `--out` writes the response file: the vector set's `vsId`, `algorithm` and `revision`, and
/// for tgId 1 tcId 11 the module's `md`, which is NIST's recorded answer.
#[test]
fn out_writes_the_answers_in_acvps_response_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("SHA3-256-2.0");
    write(&set.join("prompt.json"), PROMPT);
    write(&set.join("expectedResults.json"), &answers(MD));
    let out = dir.path().join("responses.json");
    let output = regula(&[
        "acvp",
        "run",
        "--policy",
        "fips-140-3",
        "--out",
        out.to_str().expect("utf-8 path"),
        set.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("written")).expect("JSON");
    let sets = written.as_array().expect("an array of vector sets");
    assert_eq!(sets.len(), 1, "{written}");
    assert_eq!(sets[0]["vsId"], 2599070);
    assert_eq!(sets[0]["algorithm"], "SHA3-256");
    assert_eq!(sets[0]["revision"], "2.0");
    let group = &sets[0]["testGroups"][0];
    assert_eq!(group["tgId"], 1, "{written}");
    let test = &group["tests"][0];
    assert_eq!(test["tcId"], 11, "{written}");
    assert_eq!(
        test["md"].as_str().map(str::to_ascii_lowercase).as_deref(),
        Some(MD),
        "{written}"
    );
}
