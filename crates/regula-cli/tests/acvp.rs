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

/// One message of the module-wrapper protocol: a little-endian u32 count of fields, their u32
/// lengths, then their bytes.
fn wrapper_message(fields: &[&[u8]]) -> Vec<u8> {
    let mut message = (fields.len() as u32).to_le_bytes().to_vec();
    for field in fields {
        message.extend_from_slice(&(field.len() as u32).to_le_bytes());
    }
    for field in fields {
        message.extend_from_slice(field);
    }
    message
}

/// Reads one reply off `bytes`, returning its fields and the rest.
fn wrapper_reply(bytes: &[u8]) -> (Vec<Vec<u8>>, &[u8]) {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let count = word(0) as usize;
    let lengths: Vec<usize> = (0..count).map(|i| word(4 + 4 * i) as usize).collect();
    let mut at = 4 + 4 * count;
    let mut fields = Vec::new();
    for length in lengths {
        fields.push(bytes[at..at + length].to_vec());
        at += length;
    }
    (fields, &bytes[at..])
}

/// Runs `regula --policy fips-140-3 acvp wrapper` with `input` on a pipe to its stdin.
fn wrapper(input: &[u8]) -> Output {
    wrapper_under("fips-140-3", input)
}

fn wrapper_under(policy: &str, input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(REGULA)
        .args(["--policy", policy, "acvp", "wrapper"])
        .env_remove("REGULA_BREAK_SELFTEST")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("regula runs");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input).expect("write the requests");
    drop(stdin);
    child.wait_with_output().expect("regula ends")
}

#[test]
fn wrapper_answers_get_config_and_sha256_over_a_pipe() {
    let mut input = wrapper_message(&[b"getConfig"]);
    input.extend(wrapper_message(&[b"SHA2-256", b"abc"]));
    let output = wrapper(&input);
    assert_eq!(output.status.code(), Some(0), "{output:?}");

    let (config, rest) = wrapper_reply(&output.stdout);
    assert_eq!(config.len(), 1, "getConfig answers one field");
    let config: serde_json::Value = serde_json::from_slice(&config[0]).expect("JSON");
    let algorithms: Vec<&str> = config
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|entry| entry["algorithm"].as_str())
        .collect();
    assert!(algorithms.contains(&"SHA2-256"), "{config}");
    // Not approved by fips-140-3, so not claimed.
    assert!(
        !algorithms.iter().any(|name| name.starts_with("SM")),
        "{config}"
    );

    let (digest, rest) = wrapper_reply(rest);
    assert!(rest.is_empty(), "nothing after the second reply");
    // FIPS 180-4's example (NIST's SHA256.pdf, "One-Block Message"): SHA-256("abc").
    assert_eq!(
        digest,
        [
            hex::decode("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
                .expect("hex")
        ]
    );
}

#[test]
fn wrapper_refuses_malformed_and_unknown_requests_with_an_error_exit() {
    // A message cut short: 2 fields announced, one length given.
    let truncated = [2u8, 0, 0, 0, 9, 0, 0, 0];
    // A count of zero fields, an unknown command, a hash with two arguments.
    let zero = [0u8, 0, 0, 0];
    let unknown = wrapper_message(&[b"NOT-A-COMMAND", b"x"]);
    let wrong_arity = wrapper_message(&[b"SHA2-256", b"a", b"b"]);
    for (input, says) in [
        (&truncated[..], "input ends inside a message"),
        (&zero[..], "count of 0 fields"),
        (&unknown[..], "unknown command"),
        (&wrong_arity[..], "takes 1 argument, got 2"),
    ] {
        let output = wrapper(input);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        assert!(stderr.contains(says), "{says}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn wrapper_claims_and_answers_only_what_the_policy_approves() {
    // The gm policy approves SM2, SM3 and SM4, none of which ACVP tests: getConfig claims
    // nothing but acvptool's own entry, and a SHA-256 request is refused, naming the policy.
    let mut input = wrapper_message(&[b"getConfig"]);
    input.extend(wrapper_message(&[b"SHA2-256", b"abc"]));
    let output = wrapper_under("gm", &input);
    let (config, rest) = wrapper_reply(&output.stdout);
    let config: serde_json::Value = serde_json::from_slice(&config[0]).expect("JSON");
    assert_eq!(
        config,
        serde_json::json!([{"algorithm": "acvptool", "features": ["batch"]}])
    );
    assert!(rest.is_empty(), "no answer to the refused request");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("sha256 is not approved by policy gm"),
        "{stderr}"
    );
}
