//! `regula encrypt` / `regula decrypt`: exit codes, fail-closed output (nothing left at the
//! output path after any failure), disk full, unwritable directories, policy refusal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const REGULA: &str = env!("CARGO_BIN_EXE_regula");
const PASSPHRASE: &str = "correct horse battery staple";
/// Header (under 200 bytes) plus a few segments.
const SIZE: usize = 3 * 65536 + 1234;

fn regula(args: &[&str], env_passphrase: Option<&str>) -> Output {
    let mut command = Command::new(REGULA);
    command.args(args).stdin(Stdio::null());
    command.env_remove("REGULA_PASSPHRASE");
    if let Some(passphrase) = env_passphrase {
        command.env("REGULA_PASSPHRASE", passphrase);
    }
    command.output().expect("run regula")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn setup() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..SIZE).map(|i| (i * 7 + i / 300) as u8).collect();
    let plain = dir.path().join("plain.bin");
    std::fs::write(&plain, &data).unwrap();
    (dir, plain, data)
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Only the files named remain in the directory: no output, no temporary file.
fn assert_only(dir: &Path, names: &[&str]) {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut expected: Vec<String> = names.iter().map(|name| name.to_string()).collect();
    expected.sort();
    assert_eq!(found, expected);
}

fn encrypt_key(dir: &Path, plain: &Path, policy: &str) -> (PathBuf, PathBuf) {
    let key = dir.join(format!("{policy}.key"));
    let file = dir.join(format!("{policy}.rgf"));
    let output = regula(
        &[
            "--policy",
            policy,
            "encrypt",
            "--new-key-file",
            s(&key),
            "-o",
            s(&file),
            s(plain),
        ],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    (file, key)
}

#[test]
fn passphrase_round_trip_under_each_profile_with_json_summary() {
    let (dir, plain, data) = setup();
    for (policy, aead, kdf) in [
        ("default", "aes-256-gcm", "pbkdf2-hmac-sha256"),
        ("fips-140-3", "aes-256-gcm", "pbkdf2-hmac-sha256"),
        ("gm", "sm4-gcm", "pbkdf2-hmac-sm3"),
    ] {
        let file = dir.path().join(format!("{policy}.rgf"));
        let out = dir.path().join(format!("{policy}.out"));
        let output = regula(
            &[
                "--policy",
                policy,
                "encrypt",
                "--passphrase",
                "--json",
                "-o",
                s(&file),
                s(&plain),
            ],
            Some(PASSPHRASE),
        );
        assert!(output.status.success(), "{policy}: {}", stderr(&output));
        let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(summary["header"]["aead"], aead);
        assert_eq!(summary["header"]["stanzas"][0]["kdf"], kdf);
        assert_eq!(summary["header"]["stanzas"][0]["iterations"], 600_000);
        assert_eq!(summary["plaintext_bytes"], SIZE);
        assert_eq!(summary["approved"], true);
        let output = regula(
            &[
                "--policy",
                policy,
                "decrypt",
                "--json",
                "-o",
                s(&out),
                s(&file),
            ],
            Some(PASSPHRASE),
        );
        assert!(output.status.success(), "{policy}: {}", stderr(&output));
        assert_eq!(std::fs::read(&out).unwrap(), data);
        // Wrong passphrase: exit 1, nothing written.
        let wrong = dir.path().join("wrong.out");
        let output = regula(
            &["--policy", policy, "decrypt", "-o", s(&wrong), s(&file)],
            Some("not the passphrase at all"),
        );
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(!wrong.exists());
    }
}

#[test]
fn passphrase_from_a_file_and_never_from_argv() {
    let (dir, plain, data) = setup();
    let passphrase_file = dir.path().join("pass");
    std::fs::write(&passphrase_file, format!("{PASSPHRASE}\n")).unwrap();
    let file = dir.path().join("p.rgf");
    let output = regula(
        &[
            "encrypt",
            "--passphrase-file",
            s(&passphrase_file),
            "-o",
            s(&file),
            s(&plain),
        ],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    // The environment variable holds the same passphrase (without the newline).
    let output = regula(&["decrypt", s(&file)], Some(PASSPHRASE));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(output.stdout, data);
    // No terminal, no file, no variable: a clear refusal rather than a hang (`setsid` drops
    // the controlling terminal, should the test run from one).
    let output = Command::new("setsid")
        .args([REGULA, "decrypt", s(&file)])
        .env_remove("REGULA_PASSPHRASE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("REGULA_PASSPHRASE"),
        "{}",
        stderr(&output)
    );
    // Too few iterations for the command.
    let output = regula(
        &[
            "encrypt",
            "--passphrase",
            "--iterations",
            "1000",
            "-o",
            s(&file),
            s(&plain),
        ],
        Some(PASSPHRASE),
    );
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn truncated_or_tampered_files_exit_1_and_leave_nothing() {
    let (dir, plain, _) = setup();
    let (file, key) = encrypt_key(dir.path(), &plain, "default");
    let full = std::fs::read(&file).unwrap();
    let bad = dir.path().join("bad.rgf");
    let out = dir.path().join("out.bin");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "truncated at a segment boundary",
            full[..full.len() - 1234 - 16].to_vec(),
        ),
        ("truncated mid-segment", full[..full.len() - 5000].to_vec()),
        ("flipped tag", {
            let mut bytes = full.clone();
            *bytes.last_mut().unwrap() ^= 1;
            bytes
        }),
        ("trailing data", [full.as_slice(), b"junk"].concat()),
    ];
    for (what, bytes) in cases {
        std::fs::write(&bad, &bytes).unwrap();
        let output = regula(&["decrypt", "-k", s(&key), "-o", s(&out), s(&bad)], None);
        assert_eq!(output.status.code(), Some(1), "{what}: {}", stderr(&output));
        assert!(stderr(&output).contains("authentication failed"), "{what}");
        assert_only(
            dir.path(),
            &["plain.bin", "default.key", "default.rgf", "bad.rgf"],
        );
    }
    // An existing output is left as it was.
    std::fs::write(&out, b"previous").unwrap();
    let output = regula(&["decrypt", "-k", s(&key), "-o", s(&out), s(&bad)], None);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
    // Not a Regula file at all: an input error.
    let output = regula(&["decrypt", "-k", s(&key), "-o", s(&out), s(&plain)], None);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_file_the_policy_does_not_approve_exits_3() {
    let (dir, plain, data) = setup();
    let (gm_file, gm_key) = encrypt_key(dir.path(), &plain, "gm");
    let out = dir.path().join("out.bin");
    let output = regula(
        &[
            "--policy",
            "fips-140-3",
            "decrypt",
            "-k",
            s(&gm_key),
            "-o",
            s(&out),
            s(&gm_file),
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(stderr(&output).contains("sm4-gcm is not approved by policy fips-140-3"));
    assert!(!out.exists());
    // The default profile reads it.
    let output = regula(
        &["decrypt", "-k", s(&gm_key), "-o", s(&out), s(&gm_file)],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(std::fs::read(&out).unwrap(), data);
    // FIPS refuses a short passphrase (SP 800-132 via the policy's PBKDF2 limits).
    let output = regula(
        &[
            "--policy",
            "fips-140-3",
            "encrypt",
            "--passphrase",
            "-o",
            s(&out),
            s(&plain),
        ],
        Some("short"),
    );
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
}

#[test]
fn disk_full_and_unwritable_output() {
    let (dir, plain, _) = setup();
    let (file, key) = encrypt_key(dir.path(), &plain, "default");
    for args in [
        vec!["encrypt", "-k", s(&key), "-o", "/dev/full", s(&plain)],
        vec!["decrypt", "-k", s(&key), "-o", "/dev/full", s(&file)],
    ] {
        let output = regula(&args, None);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("No space left"),
            "{}",
            stderr(&output)
        );
    }
    // stdout on a full disk.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = Command::new(REGULA)
        .args(["decrypt", "-k", s(&key), s(&file)])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    // A directory that does not exist, a "directory" that is a file, and (unless running as
    // root, whom permissions do not stop) a read-only directory.
    let read_only = dir.path().join("read-only");
    std::fs::create_dir(&read_only).unwrap();
    let mut permissions = std::fs::metadata(&read_only).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o555);
    std::fs::set_permissions(&read_only, permissions).unwrap();
    let root = std::fs::write(read_only.join("probe"), b"").is_ok();
    let _ = std::fs::remove_file(read_only.join("probe"));
    let mut targets = vec![
        dir.path().join("missing/out.bin"),
        dir.path().join("plain.bin/out.bin"),
    ];
    if !root {
        targets.push(read_only.join("out.bin"));
    }
    for target in targets {
        let output = regula(
            &["decrypt", "-k", s(&key), "-o", s(&target), s(&file)],
            None,
        );
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(!target.exists());
    }
    assert_only(
        dir.path(),
        &["plain.bin", "default.key", "default.rgf", "read-only"],
    );
}

/// The output's file system fills up in the middle of a multi-batch file: simulated with a
/// file-size limit (`ulimit -f`, SIGXFSZ ignored, so that `write` fails with EFBIG as it would
/// with ENOSPC). Exit 2, and neither the target nor the temporary file is left.
#[test]
fn output_full_in_the_middle_of_a_large_file() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..5 * 1024 * 1024 + 77)
        .map(|i: usize| (i * 13 + i / 999) as u8)
        .collect();
    let plain = dir.path().join("plain.bin");
    std::fs::write(&plain, &data).unwrap();
    let (file, key) = encrypt_key(dir.path(), &plain, "default");
    let out = dir.path().join("out.bin");
    for (command, input) in [("encrypt", &plain), ("decrypt", &file)] {
        // 2 MiB (in 1024-byte blocks): two batches and a half of the file's 5 MiB.
        let script = format!(
            "trap '' XFSZ; ulimit -f 2048; exec \"$0\" {command} -k \"$1\" -o \"$2\" \"$3\""
        );
        let output = Command::new("bash")
            .args(["-c", &script, REGULA, s(&key), s(&out), s(input)])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{command}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("cannot write"),
            "{}",
            stderr(&output)
        );
        assert_only(dir.path(), &["plain.bin", "default.key", "default.rgf"]);
    }
}

#[test]
fn recipients_from_keygen_to_decrypt() {
    let (dir, plain, data) = setup();
    for (policy, kinds) in [
        ("default", vec!["mlkem768-x25519", "sm2"]),
        ("fips-140-3", vec!["mlkem1024", "ecdh-p384"]),
    ] {
        let mut recipients = Vec::new();
        for kind in &kinds {
            let identity = dir.path().join(format!("{policy}-{kind}.identity"));
            let recipient = dir.path().join(format!("{policy}-{kind}.recipient"));
            let output = regula(
                &[
                    "--policy",
                    policy,
                    "recipient-keygen",
                    "--kind",
                    kind,
                    "-o",
                    s(&identity),
                    "--recipient-out",
                    s(&recipient),
                ],
                None,
            );
            assert!(output.status.success(), "{}", stderr(&output));
            recipients.push((identity, recipient));
        }
        let file = dir.path().join(format!("{policy}.rgf"));
        let mut args = vec!["--policy", policy, "encrypt", "-o", s(&file)];
        for (_, recipient) in &recipients {
            args.extend(["-r", s(recipient)]);
        }
        args.push(s(&plain));
        let output = regula(&args, None);
        assert!(output.status.success(), "{}", stderr(&output));
        for (identity, _) in &recipients {
            let output = regula(
                &["--policy", policy, "decrypt", "-i", s(identity), s(&file)],
                None,
            );
            assert!(output.status.success(), "{}", stderr(&output));
            assert_eq!(output.stdout, data);
        }
    }
    // The hybrid needs X25519, which fips-140-3 does not approve.
    let output = regula(
        &[
            "--policy",
            "fips-140-3",
            "encrypt",
            "-r",
            s(&dir.path().join("default-mlkem768-x25519.recipient")),
            "-o",
            s(&dir.path().join("x.rgf")),
            s(&plain),
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
}

/// The README's "Encrypting files" example, run as written with this build's `regula` first on
/// the PATH.
#[test]
fn readme_worked_example_runs() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let start = readme
        .find("<!-- encrypting-files:begin -->")
        .expect("README has the encrypting-files block");
    let end = readme.find("<!-- encrypting-files:end -->").unwrap();
    let block: String = readme[start..end]
        .lines()
        .filter(|line| !line.starts_with("<!--") && !line.starts_with("```"))
        .map(|line| format!("{line}\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(REGULA).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &block])
        .current_dir(dir.path())
        .env("PATH", path)
        .env_remove("REGULA_PASSPHRASE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", stderr(&output));
    assert!(stdout.contains("exit 3"), "{stdout}");
    assert!(stdout.contains("exit 1"), "{stdout}");
    assert!(stdout.contains("\"aead\":\"aes-256-gcm\""), "{stdout}");
}
