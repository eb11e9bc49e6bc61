//! `regula enc|dec -a rsa-oaep-*` against OpenSSL's `pkeyutl` as the peer, both ways, on the
//! core's fixture key (`crates/regula/tests/data/keys`, made by OpenSSL).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

fn keys() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../regula/tests/data/keys")
}

/// Runs `program args` with `input` on stdin.
fn run(program: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .env_remove("REGULA_BREAK_SELFTEST")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{program}: {error}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn openssl_available() -> bool {
    let found = Command::new("openssl").arg("version").output().is_ok();
    if !found {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "the openssl command is needed in CI"
        );
        eprintln!("skipped: no openssl command");
    }
    found
}

fn oaep_options(md: &str) -> Vec<String> {
    [
        "rsa_padding_mode:oaep".to_string(),
        format!("rsa_oaep_md:{md}"),
        format!("rsa_mgf1_md:{md}"),
    ]
    .into_iter()
    .flat_map(|option| ["-pkeyopt".to_string(), option])
    .collect()
}

#[test]
fn regula_and_openssl_decrypt_each_others_ciphertexts() {
    if !openssl_available() {
        return;
    }
    let public = keys().join("rsa2048.pub.pem");
    let private = keys().join("rsa2048.pem");
    let (public, private) = (public.to_str().unwrap(), private.to_str().unwrap());
    let message = b"regula enc with RSA-OAEP";
    for (row, md) in [("rsa-oaep-sha256", "sha256"), ("rsa-oaep-sha512", "sha512")] {
        let sealed = run(REGULA, &["enc", "-a", row, "--key", public], message);
        assert!(
            sealed.status.success(),
            "{}",
            String::from_utf8_lossy(&sealed.stderr)
        );
        assert_eq!(sealed.stdout.len(), 256);
        let mut args = vec!["pkeyutl", "-decrypt", "-inkey", private];
        let options = oaep_options(md);
        args.extend(options.iter().map(String::as_str));
        let opened = run("openssl", &args, &sealed.stdout);
        assert!(
            opened.status.success(),
            "{}",
            String::from_utf8_lossy(&opened.stderr)
        );
        assert_eq!(opened.stdout, message, "{row}: OpenSSL decrypts regula's");

        let mut args = vec!["pkeyutl", "-encrypt", "-pubin", "-inkey", public];
        args.extend(options.iter().map(String::as_str));
        let sealed = run("openssl", &args, message);
        assert!(sealed.status.success());
        let opened = run(
            REGULA,
            &["dec", "-a", row, "--key", private],
            &sealed.stdout,
        );
        assert!(
            opened.status.success(),
            "{}",
            String::from_utf8_lossy(&opened.stderr)
        );
        assert_eq!(opened.stdout, message, "{row}: regula decrypts OpenSSL's");

        // A changed ciphertext is refused, nothing written.
        let mut changed = sealed.stdout.clone();
        changed[7] ^= 0x10;
        let refused = run(REGULA, &["dec", "-a", row, "--key", private], &changed);
        assert!(!refused.status.success());
        assert!(refused.stdout.is_empty());
    }
    // --c1c3c2 is SM2's.
    let refused = run(
        REGULA,
        &["enc", "-a", "rsa-oaep-sha256", "--c1c3c2", "--key", public],
        message,
    );
    assert!(!refused.status.success());
}
