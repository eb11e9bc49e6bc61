//! `regula fscrypt`: the kernel tool's vectors (`shared/vectors/fscrypt/fscrypt-v2-aes.txt`)
//! through the binary in both directions, every documented exit code, `--json`, `--help`, and
//! the README's worked example run as written.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

const VECTORS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/vectors/fscrypt/fscrypt-v2-aes.txt"
));

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"));

fn run_env(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(REGULA);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.env_remove("REGULA_BREAK_SELFTEST");
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("regula binary runs");
    if let Err(error) = child.stdin.take().expect("stdin").write_all(stdin) {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    child.wait_with_output().expect("regula finishes")
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_env(args, stdin, &[])
}

#[track_caller]
fn succeeds(output: &Output) -> Vec<u8> {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout.clone()
}

#[track_caller]
fn fails(output: &Output, code: i32, stderr_contains: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "stderr: {stderr}");
    assert!(output.stdout.is_empty(), "partial output on failure");
    assert!(stderr.contains(stderr_contains), "{stderr}");
}

fn line(output: &Output) -> String {
    String::from_utf8(succeeds(output))
        .unwrap()
        .trim_end()
        .to_string()
}

/// The vector file's stanzas as (section, fields).
fn stanzas() -> Vec<(String, Vec<(String, String)>)> {
    let mut stanzas: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for text in VECTORS.lines().map(str::trim) {
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if let Some(section) = text.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            stanzas.push((section.to_string(), Vec::new()));
        } else {
            let (key, value) = text.split_once(" = ").expect("KEY = VALUE");
            let stanza = stanzas.last_mut().expect("a section first");
            stanza.1.push((key.to_string(), value.to_string()));
        }
    }
    stanzas
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    &fields
        .iter()
        .find(|(key, _)| key == name)
        .unwrap_or_else(|| panic!("no {name}"))
        .1
}

#[test]
fn kernel_vectors_through_the_cli() {
    let mut checked = 0;
    for (section, fields) in stanzas() {
        let key = field(&fields, "MASTER_KEY");
        let get = |name| field(&fields, name);
        match section.as_str() {
            "key-identifier" => {
                let output = run(&["fscrypt", "key-id", "--master-key", key], b"");
                assert_eq!(line(&output), get("KEY_IDENTIFIER"));
            }
            "contents AES-256-XTS" => {
                let common = [
                    "--master-key",
                    key,
                    "--nonce",
                    get("FILE_NONCE"),
                    "--mode",
                    get("MODE"),
                    "--index",
                    get("DATA_UNIT_INDEX"),
                    "--data-unit-size",
                    get("DATA_UNIT_SIZE"),
                ];
                let plaintext = hex::decode(get("PLAINTEXT")).unwrap();
                let ciphertext = hex::decode(get("CIPHERTEXT")).unwrap();
                let mut args = vec!["fscrypt", "encrypt-block"];
                args.extend(common);
                assert!(succeeds(&run(&args, &plaintext)) == ciphertext);
                args[1] = "decrypt-block";
                assert!(succeeds(&run(&args, &ciphertext)) == plaintext);
                // --hex in, hex out.
                args.push("--hex");
                let output = run(&args, get("CIPHERTEXT").as_bytes());
                assert_eq!(line(&output), get("PLAINTEXT"));
            }
            "filename AES-256-CTS-CBC" => {
                let common = [
                    "--master-key",
                    key,
                    "--nonce",
                    get("FILE_NONCE"),
                    "--mode",
                    get("MODE"),
                    "--padding",
                    get("PADDING"),
                ];
                let mut args = vec!["fscrypt", "encrypt-name", "--hex"];
                args.extend(common);
                args.push(get("PLAINTEXT"));
                assert_eq!(line(&run(&args, b"")), get("CIPHERTEXT"));
                let mut args = vec!["fscrypt", "decrypt-name", "--hex"];
                args.extend(common);
                args.push(get("CIPHERTEXT"));
                assert_eq!(line(&run(&args, b"")), get("PLAINTEXT"));
            }
            other => panic!("unknown section [{other}]"),
        }
        checked += 1;
    }
    assert_eq!(checked, 14);
}

const MASTER: &str = "5fea5d4617ae27f669bce2b5aefa9884fcffac9cf1c617fe564c0a630264e960\
                      d67705fe57caa09295fd71c22218f25c8440a888fb882ddbae69037f2d55a156";
const NONCE: &str = "70c86b76fa608917bdc31687abd3022b";

#[test]
fn json_output_and_indicator() {
    let output = run(
        &[
            "fscrypt",
            "key-id",
            "--policy",
            "gm",
            "--json",
            "--master-key",
            MASTER,
        ],
        b"",
    );
    let value: serde_json::Value = serde_json::from_slice(&succeeds(&output)).unwrap();
    assert_eq!(value["indicator"]["algorithm"], "fscrypt-hkdf-sha512");
    assert_eq!(value["indicator"]["approval"], "not-approved");
    assert_eq!(value["indicator"]["policy"], "gm");
    assert_eq!(value["master_key_bytes"], 64);
    assert_eq!(value["key_identifier"].as_str().unwrap().len(), 32);

    let output = run(
        &[
            "fscrypt",
            "encrypt-name",
            "--policy",
            "gm",
            "--mode",
            "sm4-cts",
            "--json",
            "--master-key",
            MASTER,
            "--nonce",
            NONCE,
            "hello.txt",
        ],
        b"",
    );
    let value: serde_json::Value = serde_json::from_slice(&succeeds(&output)).unwrap();
    assert_eq!(value["mode"], "SM4-CTS");
    assert_eq!(value["mode_number"], 8);
    assert_eq!(value["padding"], 32);
    assert_eq!(value["name"], "hello.txt");
    assert_eq!(value["ciphertext"].as_str().unwrap().len(), 64);
    assert_eq!(value["indicator"]["algorithm"], "sm4-cbc-cs3");
    assert_eq!(value["indicator"]["approval"], "approved");
    // And back.
    let ciphertext = value["ciphertext"].as_str().unwrap().to_string();
    let output = run(
        &[
            "fscrypt",
            "decrypt-name",
            "--policy",
            "gm",
            "--mode",
            "8",
            "--master-key",
            MASTER,
            "--nonce",
            NONCE,
            &ciphertext,
        ],
        b"",
    );
    assert_eq!(line(&output), "hello.txt");

    let block = vec![0x5a; 8192];
    let output = run(
        &[
            "fscrypt",
            "encrypt-block",
            "--policy",
            "gm",
            "--mode",
            "sm4-xts",
            "--json",
            "--index",
            "3",
            "--master-key",
            MASTER,
            "--nonce",
            NONCE,
        ],
        &block,
    );
    let value: serde_json::Value = serde_json::from_slice(&succeeds(&output)).unwrap();
    assert_eq!(value["data_units"], 2);
    assert_eq!(value["first_index"], 3);
    assert_eq!(value["indicator"]["algorithm"], "sm4-xts");
    assert_eq!(value["ciphertext"].as_str().unwrap().len(), 2 * 8192);
}

#[test]
fn exit_codes() {
    let name = |policy: &str, mode: &str| {
        run(
            &[
                "fscrypt",
                "encrypt-name",
                "--policy",
                policy,
                "--mode",
                mode,
                "--master-key",
                MASTER,
                "--nonce",
                NONCE,
                "a",
            ],
            b"",
        )
    };
    // 3: AES file names under fips-140-3 (Regula's stealing) and under gm; SM4 under FIPS.
    fails(&name("fips-140-3", "aes-256-cts"), 3, "aes-256-cbc-cs3");
    fails(&name("gm", "aes-256-cts"), 3, "not approved by policy gm");
    fails(&name("fips-140-3", "sm4-cts"), 3, "sm4-cbc-cs3");
    assert!(!succeeds(&name("default", "aes-256-cts")).is_empty());
    // 2: bad key, nonce, mode, padding, data length, hex.
    let bad = [
        vec!["key-id", "--master-key", "00"],
        vec!["key-id", "--master-key", "zz"],
        vec!["key-id"],
        vec![
            "encrypt-name",
            "--master-key",
            MASTER,
            "--nonce",
            "0011",
            "a",
        ],
        vec![
            "encrypt-name",
            "--master-key",
            MASTER,
            "--nonce",
            NONCE,
            "--padding",
            "12",
            "a",
        ],
        vec![
            "encrypt-name",
            "--master-key",
            MASTER,
            "--nonce",
            NONCE,
            "--mode",
            "aes-128-cts",
            "a",
        ],
        vec![
            "decrypt-name",
            "--master-key",
            MASTER,
            "--nonce",
            NONCE,
            "00",
        ],
        vec!["encrypt-block", "--master-key", MASTER, "--nonce", NONCE],
        vec![
            "encrypt-block",
            "--master-key",
            MASTER,
            "--nonce",
            NONCE,
            "--data-unit-size",
            "1000",
        ],
    ];
    for args in bad {
        let mut full = vec!["fscrypt"];
        full.extend(&args);
        let output = run(&full, &[0; 100]);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    // 4: a failed self-test refuses everything.
    let output = run_env(
        &["fscrypt", "key-id", "--master-key", MASTER],
        b"",
        &[("REGULA_BREAK_SELFTEST", "HKDF-SHA2-256")],
    );
    fails(&output, 4, "HKDF-SHA2-256");
}

/// `policy show` states each profile's rule for the two new rows.
#[test]
fn policy_show_lists_the_rows() {
    let row = |policy: &str, algorithm: &str| {
        let output = run(&["policy", "show", policy, "--json"], b"");
        let value: serde_json::Value = serde_json::from_slice(&succeeds(&output)).unwrap();
        value["algorithms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["algorithm"] == algorithm)
            .cloned()
            .unwrap_or_else(|| panic!("{policy} lacks {algorithm}"))
    };
    let gm = row("gm", "fscrypt-hkdf-sha512");
    assert_eq!(gm["status"], "not-approved");
    assert_eq!(gm["served"], true);
    assert!(gm["reason"].as_str().unwrap().contains("kernel"));
    assert_eq!(
        row("fips-140-3", "fscrypt-hkdf-sha512")["status"],
        "approved"
    );
    let cs3 = row("fips-140-3", "aes-256-cbc-cs3");
    assert_eq!(cs3["status"], "not-approved");
    assert_eq!(cs3["served"], false);
    assert!(cs3["reason"].as_str().unwrap().contains("stealing"));
    assert_eq!(row("default", "aes-256-cbc-cs3")["served"], true);
    assert_eq!(row("gm", "sm4-cbc-cs3")["status"], "approved");
}

#[test]
fn help_explains_with_examples() {
    for command in [
        "key-id",
        "encrypt-block",
        "decrypt-block",
        "encrypt-name",
        "decrypt-name",
    ] {
        let help = String::from_utf8(succeeds(&run(&["fscrypt", command, "--help"], b""))).unwrap();
        for needle in ["Examples:", "HKDF-SHA512", "SM4-XTS", "Exit codes:"] {
            assert!(help.contains(needle), "{command} --help lacks {needle}");
        }
    }
}

/// The README's fscrypt block, run line by line in a shell with `regula` on the PATH; each
/// command's output must be the lines that follow it.
#[test]
fn readme_example_runs_as_written() {
    let block = README
        .split("<!-- fscrypt-example:begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- fscrypt-example:end -->").next())
        .expect("README has the fscrypt example");
    let dir = tempfile::tempdir().unwrap();
    let bin_dir = std::path::Path::new(REGULA).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut steps: Vec<(String, String)> = Vec::new();
    for text in block.lines() {
        if text.starts_with("```") {
            continue;
        }
        if let Some(command) = text.strip_prefix("$ ") {
            steps.push((command.to_string(), String::new()));
        } else if let Some(step) = steps.last_mut() {
            step.1.push_str(text);
            step.1.push('\n');
        }
    }
    assert!(steps.len() >= 6, "{steps:?}");
    for (command, expected) in steps {
        let output = Command::new("sh")
            .arg("-c")
            .arg(&command)
            .current_dir(dir.path())
            .env("PATH", &path)
            .env_remove("REGULA_BREAK_SELFTEST")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            expected,
            "{command}"
        );
    }
}
