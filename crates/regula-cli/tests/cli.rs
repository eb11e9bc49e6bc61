//! End-to-end tests of the `regula` binary: outputs against standard vectors and peers (the
//! OpenSSL CLI), and every documented exit code.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

/// Runs `regula` with `args`, feeding `stdin`, with extra environment variables.
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
    // A command that fails before reading stdin closes it; that is not a test failure.
    if let Err(error) = child.stdin.take().expect("stdin").write_all(stdin) {
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {error}"
        );
    }
    child.wait_with_output().expect("regula finishes")
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_env(args, stdin, &[])
}

fn code(output: &Output) -> i32 {
    output
        .status
        .code()
        .expect("exited normally, not by a signal")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts an exit code and that a failing command wrote nothing to stdout.
#[track_caller]
fn assert_fails(output: &Output, expected_code: i32, stderr_contains: &str) {
    assert_eq!(code(output), expected_code, "stderr: {}", stderr(output));
    assert!(
        output.stdout.is_empty(),
        "partial output on failure: {:?}",
        stdout(output)
    );
    assert!(
        stderr(output).contains(stderr_contains),
        "stderr {:?} does not mention {stderr_contains:?}",
        stderr(output)
    );
    assert_eq!(
        stderr(output).lines().count(),
        1,
        "one clear line expected: {}",
        stderr(output)
    );
}

fn openssl_available() -> bool {
    Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|output| output.status.success())
}

// FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA512.pdf"): digests of "abc".
const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const SHA512_ABC: &str = "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
                          2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f";

#[test]
fn dgst_prints_the_fips_180_value_sha256sum_style() {
    let output = run(&["dgst", "-a", "sha256"], b"abc");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), format!("{SHA256_ABC}  -\n"));

    let output = run(&["dgst", "-a", "sha512", "--policy", "fips-140-3"], b"abc");
    assert_eq!(stdout(&output), format!("{SHA512_ABC}  -\n"));
}

#[test]
fn dgst_hashes_several_files_and_reports_unreadable_ones() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("abc.txt");
    std::fs::write(&file, b"abc").unwrap();
    let file = file.to_str().unwrap();
    let output = run(&["dgst", "-a", "sha256", file, "-"], b"abc");
    assert_eq!(
        stdout(&output),
        format!("{SHA256_ABC}  {file}\n{SHA256_ABC}  -\n")
    );

    let output = run(&["dgst", "-a", "sha256", file, "/nonexistent/file"], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stdout(&output), format!("{SHA256_ABC}  {file}\n"));
    assert!(stderr(&output).contains("/nonexistent/file"));
}

#[test]
fn md5_under_fips_and_gm_exits_3_naming_the_policy_and_the_alternative() {
    let output = run(&["dgst", "-a", "md5", "--policy", "fips-140-3"], b"abc");
    assert_fails(&output, 3, "fips-140-3");
    assert!(stderr(&output).contains("RFC 6151"), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("use sha256 instead"),
        "{}",
        stderr(&output)
    );
    let output = run(&["dgst", "-a", "md5", "--policy", "gm"], b"abc");
    assert_fails(&output, 3, "gm");
    assert!(
        stderr(&output).contains("use sm3 instead"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn md5_under_default_is_served_but_flagged_not_approved() {
    let output = run(&["dgst", "-a", "md5", "--indicator"], b"abc");
    assert_eq!(code(&output), 0);
    // RFC 1321 §A.5: MD5 ("abc").
    assert_eq!(stdout(&output), "900150983cd24fb0d6963f7d28e17f72  -\n");
    let indicator: serde_json::Value = serde_json::from_str(stderr(&output).trim()).unwrap();
    assert_eq!(indicator["approval"], "not-approved");
    assert_eq!(indicator["policy"], "default");
    assert_eq!(indicator["algorithm"], "md5");
}

/// SP 800-131A Rev. 2 §9: SHA-1 is approved for hashing under FIPS; SHA-1 signatures are never
/// created.
#[test]
fn sha1_hashing_is_approved_under_fips_and_sha1_signing_exits_3() {
    let output = run(
        &[
            "dgst",
            "-a",
            "sha1",
            "--policy",
            "fips-140-3",
            "--indicator",
        ],
        b"abc",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // FIPS 180-4 example: SHA-1("abc").
    assert_eq!(
        stdout(&output),
        "a9993e364706816aba3e25717850c26c9cd0d89d  -\n"
    );
    let indicator: serde_json::Value = serde_json::from_str(stderr(&output).trim()).unwrap();
    assert_eq!(indicator["approval"], "approved");
    assert_eq!(indicator["policy"], "fips-140-3");
    for algorithm in ["rsa-pkcs1-sha1", "ecdsa-p256-sha1"] {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.pem");
        let output = run(
            &[
                "keygen",
                "-a",
                algorithm,
                "--policy",
                "fips-140-3",
                "--out",
                key.to_str().unwrap(),
            ],
            b"",
        );
        assert_fails(&output, 3, "signature generation is disallowed");
    }
}

fn self_test_names(kind: &str) -> Vec<String> {
    let output = run(&["selftest", "--list", "--all", "--json"], b"");
    let list: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .filter(|test| test["kind"] == kind)
        .map(|test| test["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_known_answer_self_test_can_be_broken_where_it_runs_and_then_exits_4() {
    // `--list` names exactly the known-answer tests (CASTs). Each runs before the first use of
    // an algorithm it covers: a broken one fails `dgst` only when `dgst` uses such an algorithm
    // (the tests of unused algorithms never run), and always fails `selftest`, which runs all.
    let listed: Vec<String> = stdout(&run(&["selftest", "--list"], b""))
        .lines()
        .map(|line| line.split_whitespace().next().unwrap().to_string())
        .collect();
    let names = self_test_names("cast");
    assert_eq!(
        listed, names,
        "`--list` shows the power-on tests, `--list --all` adds the PCTs"
    );
    assert!(
        names.len() >= 20,
        "expected the full CAST list, got {names:?}"
    );
    for name in names {
        let env = [("REGULA_BREAK_SELFTEST", name.as_str())];
        for (algorithm, cast) in [("sha256", "SHA2-256"), ("sm3", "SM3")] {
            let output = run_env(&["dgst", "-a", algorithm], b"abc", &env);
            if name == cast {
                assert_fails(&output, 4, &name);
            } else {
                assert_eq!(code(&output), 0, "{name} ran for dgst -a {algorithm}");
            }
        }

        let output = run_env(&["selftest", "--json"], b"", &env);
        assert_eq!(code(&output), 4);
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["state"], "error");
        let failed: Vec<_> = report["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|test| test["result"] == "failed")
            .map(|test| test["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(failed, vec![name.clone()]);
    }
}

#[test]
fn breaking_a_key_generation_self_test_fails_keygen_with_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("key.pem");
    let out = out.to_str().unwrap();
    // The CLI generates signature keys; the key-agreement and KEM PCTs are exercised through
    // the library's own tests. In the FIPS build, AWS-LC's validated module tests the keys it
    // generates itself (listed under its own names), and Regula does not test them twice.
    let listed = |runner: &str| -> Vec<String> {
        let output = run(&["selftest", "--list", "--all", "--json"], b"");
        let list: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        list.as_array()
            .unwrap()
            .iter()
            .filter(|test| test["kind"] == "pct" && test["runner"] == runner)
            .map(|test| test["name"].as_str().unwrap().to_string())
            .collect()
    };
    let (ours, validated) = (listed("regula"), listed("aws-lc-validated-module"));
    for (name, algorithm, validated_module_test) in [
        ("PCT-ECDSA", "ecdsa-p256", "EC_PWCT"),
        ("PCT-ED25519", "ed25519", "EDDSA_PWCT"),
        ("PCT-RSA", "rsa-pss-sha256", "RSA_PWCT"),
        ("PCT-SM2-SIGN", "sm2", ""),
        ("PCT-ML-DSA", "ml-dsa-44", "MLDSA_PWCT"),
    ] {
        if cfg!(feature = "fips") && !validated_module_test.is_empty() {
            assert!(!ours.contains(&name.to_string()), "{name} would run twice");
            assert!(validated.contains(&validated_module_test.to_string()));
            continue;
        }
        assert!(ours.contains(&name.to_string()), "{name} is not listed");
        let env = [("REGULA_BREAK_SELFTEST", name)];
        let mut args = vec!["keygen", "-a", algorithm, "--out", out];
        if algorithm.starts_with("rsa") {
            args.extend(["--bits", "2048"]);
        }
        let output = run_env(&args, b"", &env);
        assert_fails(&output, 4, name);
    }
}

#[test]
fn selftest_json_has_the_documented_shape() {
    let output = run(&["selftest", "--policy", "fips-140-3", "--json"], b"");
    assert_eq!(code(&output), 0);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["policy"], "fips-140-3");
    assert_eq!(report["state"], "operational");
    let tests = report["tests"].as_array().unwrap();
    assert!(
        tests
            .iter()
            .all(|test| test["result"] == "passed" && test["name"].is_string())
    );
    let names: Vec<_> = tests
        .iter()
        .map(|test| test["name"].as_str().unwrap())
        .collect();
    // FIPS serves neither MD5 nor ChaCha20-Poly1305 nor X25519, so their tests don't run.
    assert!(names.contains(&"AES-GCM") && names.contains(&"ML-KEM-768"));
    assert!(
        !names.contains(&"MD5")
            && !names.contains(&"CHACHA20-POLY1305")
            && !names.contains(&"X25519")
    );

    let text = run(&["selftest", "--policy", "fips-140-3"], b"");
    assert!(
        stdout(&text)
            .lines()
            .all(|line| line.ends_with(" self-test passed"))
    );
    assert_eq!(stdout(&text).lines().count(), tests.len());
}

#[test]
fn mac_matches_rfc_4231_and_verify_exits_1_on_mismatch() {
    // RFC 4231 §4.3, test case 2: key "Jefe", data "what do ya want for nothing?".
    let tag = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    let data = b"what do ya want for nothing?";
    let output = run(&["mac", "-a", "hmac-sha256", "-k", "4a656665"], data);
    assert_eq!(stdout(&output), format!("{tag}\n"));

    let output = run(
        &[
            "mac",
            "-a",
            "hmac-sha256",
            "-k",
            "4a656665",
            "--verify",
            tag,
        ],
        data,
    );
    assert_eq!(code(&output), 0);
    let wrong = tag.replace("5bdc", "5bdd");
    let output = run(
        &[
            "mac",
            "-a",
            "hmac-sha256",
            "-k",
            "4a656665",
            "--verify",
            &wrong,
        ],
        data,
    );
    assert_fails(&output, 1, "authentication failed");

    // A 4-byte HMAC key is below FIPS's 112-bit minimum.
    let output = run(
        &[
            "mac",
            "-a",
            "hmac-sha256",
            "-k",
            "4a656665",
            "--policy",
            "fips-140-3",
        ],
        data,
    );
    assert_fails(&output, 3, "below the minimum of 14 bytes");
}

#[test]
fn kdf_matches_rfc_5869_and_rfc_7914() {
    // RFC 5869 Appendix A.1.
    let output = run(
        &[
            "kdf",
            "-a",
            "hkdf-sha256",
            "--secret",
            "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
            "--salt",
            "000102030405060708090a0b0c",
            "--info",
            "f0f1f2f3f4f5f6f7f8f9",
            "--length",
            "42",
        ],
        b"",
    );
    assert_eq!(
        stdout(&output),
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865\n"
    );
    // RFC 7914 §11, first PBKDF2-HMAC-SHA256 vector: P="passwd", S="salt", c=1, dkLen=64.
    let output = run(
        &[
            "kdf",
            "-a",
            "pbkdf2-sha256",
            "--password-hex",
            "706173737764",
            "--salt",
            "73616c74",
            "--iterations",
            "1",
            "-l",
            "64",
        ],
        b"",
    );
    assert_eq!(
        stdout(&output),
        "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
         49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783\n"
    );
    // The same request violates SP 800-132 (salt, iterations, password length) under FIPS.
    let output = run(
        &[
            "kdf",
            "-a",
            "pbkdf2-sha256",
            "--password-hex",
            "706173737764",
            "--salt",
            "73616c74",
            "--iterations",
            "1",
            "-l",
            "64",
            "--policy",
            "fips-140-3",
        ],
        b"",
    );
    assert_fails(&output, 3, "not approved by policy fips-140-3");
}

#[test]
fn aead_round_trip_and_fips_nonce_rule() {
    let key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    for policy in ["default", "fips-140-3"] {
        let sealed = run(
            &[
                "enc",
                "-a",
                "aes-256-gcm",
                "-k",
                key,
                "--aad",
                "abcd",
                "--policy",
                policy,
            ],
            b"secret data",
        );
        assert_eq!(code(&sealed), 0, "{}", stderr(&sealed));
        assert_eq!(
            sealed.stdout.len(),
            12 + 11 + 16,
            "nonce || ciphertext || tag"
        );
        let opened = run(
            &[
                "dec",
                "-a",
                "aes-256-gcm",
                "-k",
                key,
                "--aad",
                "abcd",
                "--policy",
                policy,
            ],
            &sealed.stdout,
        );
        assert_eq!(opened.stdout, b"secret data");

        // Any flipped bit, anywhere, fails authentication and prints nothing.
        for position in [0, 12, 12 + 5, sealed.stdout.len() - 1] {
            let mut tampered = sealed.stdout.clone();
            tampered[position] ^= 0x80;
            let output = run(
                &[
                    "dec",
                    "-a",
                    "aes-256-gcm",
                    "-k",
                    key,
                    "--aad",
                    "abcd",
                    "--policy",
                    policy,
                ],
                &tampered,
            );
            assert_fails(&output, 1, "authentication failed");
        }
        let output = run(
            &[
                "dec",
                "-a",
                "aes-256-gcm",
                "-k",
                key,
                "--aad",
                "abce",
                "--policy",
                policy,
            ],
            &sealed.stdout,
        );
        assert_fails(&output, 1, "authentication failed");
    }
    // A caller-chosen GCM IV is served by default, refused by FIPS (IG C.H).
    let iv = "cafebabefacedbaddecaf888";
    assert_eq!(
        code(&run(
            &["enc", "-a", "aes-256-gcm", "-k", key, "--iv", iv],
            b"x"
        )),
        0
    );
    let output = run(
        &[
            "enc",
            "-a",
            "aes-256-gcm",
            "-k",
            key,
            "--iv",
            iv,
            "--policy",
            "fips-140-3",
        ],
        b"x",
    );
    assert_fails(&output, 3, "caller-supplied nonce");
    // ChaCha20-Poly1305 is not FIPS-approved.
    let output = run(
        &[
            "enc",
            "-a",
            "chacha20-poly1305",
            "-k",
            key,
            "--policy",
            "fips-140-3",
        ],
        b"x",
    );
    assert_fails(&output, 3, "use aes-256-gcm instead");
}

#[test]
fn gcm_spec_test_case_16_through_the_cli() {
    // McGrew & Viega, "The Galois/Counter Mode of Operation", test case 16.
    let key = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
    let iv = "cafebabefacedbaddecaf888";
    let aad = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
    let plaintext = hex::decode(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525\
         b16aedf5aa0de657ba637b39",
    )
    .unwrap();
    let expected = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838\
                    c5f61e6393ba7a0abcc9f66276fc6ece0f4e1768cddf8853bb2d551b";
    let output = run(
        &[
            "enc",
            "-a",
            "aes-256-gcm",
            "-k",
            key,
            "--iv",
            iv,
            "--aad",
            aad,
        ],
        &plaintext,
    );
    assert_eq!(hex::encode(&output.stdout), expected);
    let output = run(
        &[
            "dec",
            "-a",
            "aes-256-gcm",
            "-k",
            key,
            "--iv",
            iv,
            "--aad",
            aad,
        ],
        &hex::decode(expected).unwrap(),
    );
    assert_eq!(output.stdout, plaintext);
}

#[test]
fn ctr_and_cbc_agree_with_the_openssl_cli() {
    if !openssl_available() {
        eprintln!("SKIPPED: openssl CLI not found");
        return;
    }
    let key = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
    let iv = "000102030405060708090a0b0c0d0e0f";
    for (ours, theirs) in [
        ("aes-256-ctr", "-aes-256-ctr"),
        ("aes-256-cbc", "-aes-256-cbc"),
    ] {
        for len in [0usize, 1, 15, 16, 17, 100] {
            let plaintext: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let regula = run(&["enc", "-a", ours, "-k", key, "--iv", iv], &plaintext);
            let mut openssl = Command::new("openssl")
                .args(["enc", theirs, "-K", key, "-iv", iv])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            openssl.stdin.take().unwrap().write_all(&plaintext).unwrap();
            let openssl = openssl.wait_with_output().unwrap();
            assert_eq!(
                regula.stdout, openssl.stdout,
                "{ours} with {len} bytes differs from openssl"
            );
            let back = run(&["dec", "-a", ours, "-k", key, "--iv", iv], &regula.stdout);
            assert_eq!(back.stdout, plaintext);
        }
    }
}

#[test]
fn signatures_interoperate_with_openssl() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(path("msg"), b"message to sign").unwrap();
    for (algorithm, bits, openssl_digest) in [
        ("ecdsa-p256", None, Some("-sha256")),
        ("ecdsa-p384", None, Some("-sha384")),
        ("ed25519", None, None),
        ("rsa-pkcs1-sha256", Some("2048"), Some("-sha256")),
    ] {
        let mut args = vec!["keygen", "-a", algorithm, "--policy", "fips-140-3"];
        let (key, public) = (path("key.pem"), path("pub.pem"));
        args.extend(["--out", &key, "--pubout", &public]);
        if let Some(bits) = bits {
            args.extend(["--bits", bits]);
        }
        assert_eq!(code(&run(&args, b"")), 0, "keygen {algorithm}");
        let signature = run(
            &[
                "sign",
                "-a",
                algorithm,
                "--key",
                &key,
                &path("msg"),
                "--policy",
                "fips-140-3",
            ],
            b"",
        );
        assert_eq!(code(&signature), 0, "{}", stderr(&signature));
        std::fs::write(path("sig"), &signature.stdout).unwrap();
        let verified = run(
            &[
                "verify",
                "-a",
                algorithm,
                "--pubkey",
                &public,
                "--signature",
                &path("sig"),
                &path("msg"),
            ],
            b"",
        );
        assert_eq!(code(&verified), 0, "{}", stderr(&verified));

        let mut tampered = signature.stdout.clone();
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        std::fs::write(path("bad-sig"), &tampered).unwrap();
        let output = run(
            &[
                "verify",
                "-a",
                algorithm,
                "--pubkey",
                &public,
                "--signature",
                &path("bad-sig"),
                &path("msg"),
            ],
            b"",
        );
        assert_fails(&output, 1, "signature verification failed");

        if openssl_available() {
            let mut command = Command::new("openssl");
            match openssl_digest {
                Some(digest) => command.args([
                    "dgst",
                    digest,
                    "-verify",
                    &public,
                    "-signature",
                    &path("sig"),
                    &path("msg"),
                ]),
                None => command.args([
                    "pkeyutl",
                    "-verify",
                    "-pubin",
                    "-inkey",
                    &public,
                    "-rawin",
                    "-in",
                    &path("msg"),
                    "-sigfile",
                    &path("sig"),
                ]),
            };
            let openssl = command.output().unwrap();
            assert!(
                openssl.status.success(),
                "openssl rejects our {algorithm} signature: {}",
                String::from_utf8_lossy(&openssl.stdout)
            );
        }
    }
}

#[test]
fn input_errors_exit_2_with_one_clear_line() {
    let key = "000102030405060708090a0b0c0d0e0f";
    assert_fails(
        &run(&["dgst", "-a", "sha-256"], b""),
        2,
        "unknown algorithm `sha-256`",
    );
    assert_fails(
        &run(&["dgst", "-a", "aes-256-gcm"], b""),
        2,
        "aead algorithm",
    );
    assert_fails(
        &run(&["enc", "-a", "aes-128-gcm", "-k", "abc"], b"x"),
        2,
        "--key is not valid hex",
    );
    assert_fails(
        &run(&["enc", "-a", "aes-128-gcm", "-k", "00"], b"x"),
        2,
        "expected 16 bytes, got 1",
    );
    assert_fails(
        &run(
            &["enc", "-a", "aes-128-ctr", "-k", key, "--aad", "00"],
            b"x",
        ),
        2,
        "AEAD algorithms only",
    );
    assert_fails(
        &run(&["dec", "-a", "aes-128-gcm", "-k", key], b"short"),
        2,
        "too short",
    );
    assert_fails(
        &run(
            &[
                "dec",
                "-a",
                "aes-128-gcm",
                "-k",
                key,
                "--iv",
                "000000000000000000000000",
            ],
            b"x",
        ),
        2,
        "shorter than the 16-byte tag",
    );
    assert_fails(
        &run(
            &[
                "dec",
                "-a",
                "aes-128-cbc",
                "-k",
                key,
                "--iv",
                "000102030405060708090a0b0c0d0e0f",
            ],
            b"0123456789",
        ),
        2,
        "multiple of 16",
    );
    assert_fails(
        &run(
            &["mac", "-a", "hmac-sha256", "-k", "00", "/no/such/file"],
            b"",
        ),
        2,
        "cannot read /no/such/file",
    );
    assert_fails(
        &run(&["dgst", "-a", "sha256", "--policy", "no-such-policy"], b""),
        2,
        "no such built-in profile or policy file",
    );

    let dir = tempfile::tempdir().unwrap();
    let bad_pem = dir.path().join("bad.pem");
    std::fs::write(
        &bad_pem,
        "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let output = run(
        &[
            "sign",
            "-a",
            "ecdsa-p256",
            "--key",
            bad_pem.to_str().unwrap(),
        ],
        b"m",
    );
    assert_fails(&output, 2, "bad PEM");
    let wrong_label = dir.path().join("cert.pem");
    std::fs::write(
        &wrong_label,
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let output = run(
        &[
            "sign",
            "-a",
            "ecdsa-p256",
            "--key",
            wrong_label.to_str().unwrap(),
        ],
        b"m",
    );
    assert_fails(&output, 2, "PEM label is `CERTIFICATE`");

    // clap's own usage errors also use exit code 2.
    assert_eq!(code(&run(&["dgst"], b"")), 2);
    assert_eq!(code(&run(&["no-such-command"], b"")), 2);
}

#[test]
fn policy_commands() {
    let list = run(&["policy", "list"], b"");
    for name in ["default", "fips-140-3", "gm"] {
        assert!(stdout(&list).contains(name));
    }
    let show = run(&["policy", "show", "fips-140-3", "--json"], b"");
    let summary: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    let status = |name: &str| {
        summary["algorithms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["algorithm"] == name)
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(status("md5"), "not-approved");
    assert_eq!(status("sha1"), "approved");
    assert_eq!(status("aes-256-gcm"), "approved");
    assert_eq!(summary["mode"], "strict");

    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(
        &good,
        "base = \"fips-140-3\"\nallow = [\"sha256\", \"aes-256-gcm\"]\n",
    )
    .unwrap();
    let output = run(&["policy", "check", good.to_str().unwrap()], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        stdout(&output).contains("2 algorithms served"),
        "{}",
        stdout(&output)
    );

    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "base = \"fips-140-3\"\n\nallow = [\"sha256\", \"md2\"]\n",
    )
    .unwrap();
    let output = run(&["policy", "check", bad.to_str().unwrap()], b"");
    assert_fails(&output, 2, "bad.toml:3:");
    assert!(stderr(&output).contains("unknown algorithm `md2`"));

    // A narrowed policy file in use: sha384 is excluded, sha256 still approved.
    let output = run(
        &["dgst", "-a", "sha384", "--policy", good.to_str().unwrap()],
        b"abc",
    );
    assert_fails(&output, 3, "excluded");
    let output = run(
        &["dgst", "-a", "sha256", "--policy", good.to_str().unwrap()],
        b"abc",
    );
    assert_eq!(code(&output), 0);
}

#[test]
fn info_reports_the_backend() {
    let output = run(&["info", "--json"], b"");
    assert_eq!(code(&output), 0);
    let info: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(info["fips_module_linked"], cfg!(feature = "fips"));
    assert!(info["backend"].as_str().unwrap().starts_with("AWS-LC"));
    assert_eq!(
        info["implementations"].as_array().unwrap().len(),
        regula_algorithm_count()
    );
    if cfg!(feature = "fips") {
        assert_eq!(info["fips_mode"], serde_json::json!({"Ok": null}));
    }
}

fn regula_algorithm_count() -> usize {
    let show = run(&["policy", "show", "default", "--json"], b"");
    let summary: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    summary["algorithms"].as_array().unwrap().len()
}

#[test]
fn help_documents_exit_codes() {
    for command in [
        vec!["--help"],
        vec!["dgst", "--help"],
        vec!["enc", "--help"],
    ] {
        let output = run(&command, b"");
        assert!(
            stdout(&output).contains("3  not approved by the policy"),
            "{command:?}"
        );
    }
    let selftest = stdout(&run(&["selftest", "--help"], b""));
    assert!(
        selftest.contains("REGULA_BREAK_SELFTEST") && selftest.contains("4  a self-test failed")
    );
}

#[test]
fn bench_json_rows_let_a_script_compute_ratios() {
    let output = run(
        &[
            "bench",
            "--alg",
            "sha256,ed25519",
            "--sizes",
            "16,64",
            "--seconds",
            "0.01",
            "--runs",
            "2",
            "--compare",
            "raw",
            "--json",
        ],
        b"",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let find =
        |algorithm: &str, operation: &str, bytes: serde_json::Value, implementation: &str| {
            rows.iter().find(|row| {
                row["algorithm"] == algorithm
                    && row["operation"] == operation
                    && row["bytes"] == bytes
                    && row["impl"] == implementation
            })
        };
    for bytes in [16, 64] {
        let ours = find("sha256", "digest", bytes.into(), "regula").expect("regula row");
        let raw = find("sha256", "digest", bytes.into(), "raw").expect("raw row");
        assert_eq!(ours["unit"], "MB/s");
        assert_eq!(ours["runs"], 2);
        assert!(ours["median"].as_f64().unwrap() > 0.0 && raw["median"].as_f64().unwrap() > 0.0);
        assert!(
            ours["min"].as_f64() <= ours["median"].as_f64()
                && ours["median"].as_f64() <= ours["max"].as_f64()
        );
    }
    let sign = find("ed25519", "sign", serde_json::Value::Null, "regula")
        .expect("public-key rows have no size");
    assert_eq!(sign["unit"], "ops/s");
}

#[test]
fn bench_argument_errors_exit_2() {
    assert_fails(
        &run(&["bench", "--alg", "sha-256"], b""),
        2,
        "unknown algorithm `sha-256`",
    );
    assert_fails(
        &run(&["bench", "--alg", "sha256", "--compare", "boringssl"], b""),
        2,
        "unknown peer `boringssl`",
    );
    assert_fails(
        &run(&["bench", "--alg", "sha256", "--seconds", "0"], b""),
        2,
        "--seconds",
    );
    assert_fails(
        &run(&["bench", "--alg", "sha256", "--sizes", "0"], b""),
        2,
        "--sizes",
    );
    let output = run(
        &[
            "bench",
            "--alg",
            "sha256",
            "--sizes",
            "16",
            "--seconds",
            "0.01",
            "--runs",
            "1",
            "--plot",
            "out.png",
        ],
        b"",
    );
    assert_fails(&output, 2, "ending in .svg");
}

#[test]
fn check_passes_under_gm_and_fips_with_a_readable_summary() {
    for policy in ["gm", "fips-140-3", "default"] {
        let output = run(&["check", "--policy", policy, "--no-bench"], b"");
        assert_eq!(
            code(&output),
            0,
            "{policy}: {}{}",
            stdout(&output),
            stderr(&output)
        );
        let summary = stdout(&output);
        assert!(summary.contains(&format!(
            "Verdict: PASS — every self-test and every known-answer vector passed under {policy}"
        )));
        for section in ["module", "self-tests", "vectors", "benchmark", "CPU"] {
            assert!(
                summary.contains(&format!("  {section}")),
                "{policy}: no {section} line in\n{summary}"
            );
        }
    }
}

#[test]
fn check_json_and_failure_exit_codes() {
    let output = run(
        &["check", "--policy", "fips-140-3", "--no-bench", "--json"],
        b"",
    );
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["verdict"], "PASS");
    assert_eq!(result["module_state"], "operational");
    assert_eq!(result["vector_totals"]["failed"], 0);
    assert!(result["vector_totals"]["passed"].as_u64().unwrap() > 1000);
    assert!(result["benchmark"].is_null());

    let env = [("REGULA_BREAK_SELFTEST", "AES-GCM")];
    let output = run_env(
        &["check", "--policy", "fips-140-3", "--no-bench"],
        b"",
        &env,
    );
    assert_eq!(code(&output), 4);
    assert!(
        stdout(&output).contains("Verdict: FAIL — self-test AES-GCM failed"),
        "{}",
        stdout(&output)
    );

    assert_fails(
        &run(&["check", "--report", "report.pdf"], b""),
        2,
        "ending in .html",
    );
}

/// Renders the HTML report in headless Chromium and checks the screenshot shows something.
#[test]
fn check_html_report_renders_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.html");
    let output = run(
        &[
            "check",
            "--policy",
            "fips-140-3",
            "--report",
            report.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg") && html.contains("PASS"));
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "no external resources"
    );
    assert!(
        !html.contains("<script") && !html.contains("<link"),
        "the report must be self-contained"
    );

    if Command::new("chromium").arg("--version").output().is_err() {
        eprintln!("SKIPPED: chromium not installed (scripts/setup-test installs it)");
        return;
    }
    let screenshot = dir.path().join("report.png");
    let profile = dir.path().join("chromium-profile");
    let rendered = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg(format!("file://{}", report.display()))
        .output()
        .unwrap();
    assert!(
        screenshot.exists(),
        "chromium wrote no screenshot: {}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&screenshot).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let bytes_per_pixel = frame.line_size / frame.width as usize;
    let pixels: Vec<&[u8]> = pixels[..frame.buffer_size()]
        .chunks(bytes_per_pixel)
        .collect();
    let background = pixels[pixels.len() - 1];
    let drawn = pixels.iter().filter(|pixel| **pixel != background).count();
    let mut colors: Vec<&[u8]> = pixels.clone();
    colors.sort_unstable();
    colors.dedup();
    assert!(
        drawn * 50 > pixels.len(),
        "only {drawn} of {} pixels differ from the background",
        pixels.len()
    );
    assert!(
        colors.len() > 20,
        "only {} distinct colours: the page looks blank",
        colors.len()
    );
    // The PASS badge is green: some pixels must be clearly green.
    assert!(
        pixels
            .iter()
            .any(|pixel| pixel[1] > 100 && pixel[0] < 80 && pixel[2] < 80),
        "no green PASS badge"
    );
}

#[test]
fn vectors_command_reports_and_fails_on_a_wrong_vector() {
    let dir = tempfile::tempdir().unwrap();
    // FIPS 180-4 example, once right and once with a flipped last digit.
    let good = dir.path().join("good.txt");
    std::fs::write(
        &good,
        format!("Digest = SHA256\nInput = 616263\nOutput = {SHA256_ABC}\n"),
    )
    .unwrap();
    let output = run(&["vectors", good.to_str().unwrap()], b"");
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
    assert!(
        stdout(&output).contains("passed 1  failed 0"),
        "{}",
        stdout(&output)
    );

    let bad = dir.path().join("bad.txt");
    let wrong = format!("{}c", &SHA256_ABC[..63]);
    std::fs::write(
        &bad,
        format!("Digest = SHA256\nInput = 616263\nOutput = {wrong}\n"),
    )
    .unwrap();
    let output = run(&["vectors", bad.to_str().unwrap()], b"");
    assert_eq!(code(&output), 1, "{}", stdout(&output));
    assert!(stdout(&output).contains("FAIL"));

    let malformed = dir.path().join("malformed.txt");
    std::fs::write(&malformed, "Digest = SHA256\nInput = 6162zz\nOutput = 00\n").unwrap();
    let output = run(&["vectors", malformed.to_str().unwrap()], b"");
    assert_fails(&output, 2, "malformed.txt:2");

    assert_fails(&run(&["vectors"], b""), 2, "--suite");
}

/// A self-test that fails during the run (before SHA-256's first use) leaves the vectors
/// skipped, not passed, and the run ends with exit 4 naming the test, not 0.
#[test]
fn vectors_command_exits_4_when_a_self_test_fails_during_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sha256.txt");
    std::fs::write(
        &file,
        format!("Digest = SHA256\nInput = 616263\nOutput = {SHA256_ABC}\n"),
    )
    .unwrap();
    let output = run_env(
        &["vectors", file.to_str().unwrap()],
        b"",
        &[("REGULA_BREAK_SELFTEST", "SHA2-256")],
    );
    assert_eq!(code(&output), 4, "{}{}", stdout(&output), stderr(&output));
    assert!(
        stdout(&output).contains("passed 0  failed 0  skipped 1"),
        "{}",
        stdout(&output)
    );
    assert!(stderr(&output).contains("SHA2-256"), "{}", stderr(&output));
}

/// SM2 through the CLI: keygen, sign/verify with and without `--id`, enc/dec in both formats,
/// OpenSSL verifying our signatures and decrypting our ciphertexts, and the exit codes.
#[test]
fn sm2_keygen_sign_verify_enc_dec_interoperate_with_openssl() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (key, public, message, signature) = (
        path("sm2.pem"),
        path("sm2.pub.pem"),
        path("message"),
        path("signature"),
    );
    std::fs::write(&message, b"message digest").unwrap();
    let output = run(
        &[
            "keygen", "--policy", "gm", "-a", "sm2", "--out", &key, "--pubout", &public,
        ],
        b"",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        std::fs::read_to_string(&key)
            .unwrap()
            .starts_with("-----BEGIN PRIVATE KEY-----")
    );

    for id in [None, Some("TLSv1.3+GM+Cipher+Suite")] {
        let mut sign = vec!["sign", "--policy", "gm", "-a", "sm2", "--key", &key];
        sign.extend(["--out", &signature, &message]);
        let mut verify = vec!["verify", "--policy", "gm", "-a", "sm2", "--pubkey", &public];
        verify.extend(["--signature", &signature, &message]);
        // The signer ID is part of what is signed.
        let mut wrong_id = verify.clone();
        wrong_id.extend(["--id", "someone else"]);
        if let Some(id) = id {
            sign.extend(["--id", id]);
            verify.extend(["--id", id]);
        }
        let output = run(&sign, b"");
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let output = run(&verify, b"");
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_eq!(stdout(&output), "Verified OK\n");
        assert_fails(&run(&wrong_id, b""), 1, "signature");

        if openssl_available() {
            let distid = format!("distid:{}", id.unwrap_or("1234567812345678"));
            let openssl = Command::new("openssl")
                .args(["pkeyutl", "-verify", "-rawin", "-digest", "sm3", "-pubin"])
                .args([
                    "-inkey", &public, "-pkeyopt", &distid, "-sigfile", &signature,
                ])
                .args(["-in", &message])
                .output()
                .unwrap();
            assert!(
                openssl.status.success(),
                "openssl rejects our SM2 signature: {}",
                String::from_utf8_lossy(&openssl.stdout)
            );
        } else {
            eprintln!("SKIPPED: openssl CLI not found");
        }
    }

    // Encryption: ASN.1 by default (OpenSSL's form), C1C3C2 on request.
    for extra in [&[][..], &["--c1c3c2"][..]] {
        let mut enc = vec!["enc", "--policy", "gm", "-a", "sm2", "--key", &public];
        enc.extend(extra);
        let ciphertext = run(&enc, b"secret message");
        assert_eq!(code(&ciphertext), 0, "{}", stderr(&ciphertext));
        let mut dec = vec!["dec", "--policy", "gm", "-a", "sm2", "--key", &key];
        dec.extend(extra);
        let plaintext = run(&dec, &ciphertext.stdout);
        assert_eq!(plaintext.stdout, b"secret message");
        let mut corrupted = ciphertext.stdout.clone();
        let last = corrupted.len() - 1;
        corrupted[last] ^= 1;
        assert_fails(&run(&dec, &corrupted), 1, "");
        if extra.is_empty() && openssl_available() {
            let ciphertext_file = path("ciphertext");
            std::fs::write(&ciphertext_file, &ciphertext.stdout).unwrap();
            let openssl = Command::new("openssl")
                .args([
                    "pkeyutl",
                    "-decrypt",
                    "-inkey",
                    &key,
                    "-in",
                    &ciphertext_file,
                ])
                .output()
                .unwrap();
            assert_eq!(openssl.stdout, b"secret message", "openssl decrypts ours");
        }
    }

    // SM2 is not FIPS-approved; --id is SM2-only; a symmetric algorithm takes no --c1c3c2.
    let fips = run(
        &[
            "keygen",
            "--policy",
            "fips-140-3",
            "-a",
            "sm2",
            "--out",
            &path("x"),
        ],
        b"",
    );
    assert_fails(&fips, 3, "fips-140-3");
    let ecdsa_key = path("ecdsa.pem");
    let output = run(&["keygen", "-a", "ecdsa-p256", "--out", &ecdsa_key], b"");
    assert_eq!(code(&output), 0);
    let output = run(
        &[
            "sign",
            "-a",
            "ecdsa-p256",
            "--key",
            &ecdsa_key,
            "--id",
            "x",
            &message,
        ],
        b"",
    );
    assert_fails(&output, 2, "SM2");
    let output = run(
        &[
            "enc",
            "-a",
            "sm4-ctr",
            "--key",
            "00112233445566778899aabbccddeeff",
            "--c1c3c2",
        ],
        b"x",
    );
    assert_fails(&output, 2, "sm2");
}

/// FIPS 204 through the CLI: keygen (with its pairwise test), sign, verify, a forged message
/// fails with exit 1, and `gm` refuses ML-DSA with exit 3.
#[test]
fn ml_dsa_keygen_sign_verify_under_fips() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (key, public, message, forged, signature) = (
        path("ml-dsa.pem"),
        path("ml-dsa.pub.pem"),
        path("message"),
        path("forged"),
        path("signature"),
    );
    std::fs::write(&message, b"SMB3 is not post-quantum yet").unwrap();
    std::fs::write(&forged, b"SMB3 is not post-quantum yet!").unwrap();
    for algorithm in ["ml-dsa-44", "ml-dsa-65", "ml-dsa-87"] {
        let fips = ["--policy", "fips-140-3", "-a", algorithm];
        let mut keygen = vec!["keygen"];
        keygen.extend(fips);
        keygen.extend(["--out", &key, "--pubout", &public]);
        let output = run(&keygen, b"");
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let mut sign = vec!["sign", "--indicator"];
        sign.extend(fips);
        sign.extend(["--key", &key, "--out", &signature, &message]);
        let output = run(&sign, b"");
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert!(stderr(&output).contains("\"approval\":\"approved\""));
        // FIPS 204 Table 2: signature sizes 2420, 3309 and 4627 bytes.
        let expected_len = match algorithm {
            "ml-dsa-44" => 2420,
            "ml-dsa-65" => 3309,
            _ => 4627,
        };
        assert_eq!(std::fs::read(&signature).unwrap().len(), expected_len);
        let mut verify = vec!["verify"];
        verify.extend(fips);
        verify.extend(["--pubkey", &public, "--signature", &signature]);
        let output = run(&[verify.as_slice(), &[message.as_str()]].concat(), b"");
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_fails(
            &run(&[verify.as_slice(), &[forged.as_str()]].concat(), b""),
            1,
            "signature",
        );
    }
    let output = run(
        &["keygen", "--policy", "gm", "-a", "ml-dsa-65", "--out", &key],
        b"",
    );
    assert_fails(&output, 3, "gm");
}

/// `--as-of`: NIST's SHA-1 end (SP 800-131A Rev. 3 ipd: disallowed after 31 December 2030)
/// and NIST IR 8547's end of RSA/ECC after 2035, through the CLI.
#[test]
fn as_of_answers_what_the_policy_would_refuse_on_a_day() {
    let show = |date: &str| {
        let output = run(
            &["policy", "show", "fips-140-3", "--as-of", date, "--json"],
            b"",
        );
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    let status = |summary: &serde_json::Value, name: &str| {
        summary["algorithms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["algorithm"] == name)
            .unwrap()["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let before = show("2030-12-31");
    assert_eq!(before["as_of"], "2030-12-31");
    assert_eq!(status(&before, "sha1"), "approved");
    let after = show("2031-01-01");
    assert_eq!(status(&after, "sha1"), "not-approved");
    assert_eq!(status(&after, "ecdsa-p256"), "approved");
    let refused: Vec<&str> = after["refused_then_approved_today"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    assert_eq!(
        refused,
        ["sha1", "hmac-sha1", "rsa-pkcs1-sha1", "ecdsa-p256-sha1"]
    );
    assert_eq!(status(&show("2036-01-01"), "ecdsa-p256"), "not-approved");

    let text = run(
        &["policy", "show", "fips-140-3", "--as-of", "2031-01-01"],
        b"",
    );
    assert!(
        stdout(&text).contains("as of 2031-01-01"),
        "{}",
        stdout(&text)
    );
    assert!(stdout(&text).contains("SP 800-131A Rev. 3"));
    assert!(stdout(&text).contains("would no longer approve 4 algorithms"));

    // Services follow the day.
    let refused = run(
        &[
            "dgst",
            "-a",
            "sha1",
            "--policy",
            "fips-140-3",
            "--as-of",
            "2031-01-01",
        ],
        b"abc",
    );
    assert_fails(&refused, 3, "2031-01-01");
    let served = run(
        &[
            "dgst",
            "-a",
            "sha1",
            "--policy",
            "fips-140-3",
            "--as-of",
            "2030-12-31",
        ],
        b"abc",
    );
    assert_eq!(code(&served), 0, "{}", stderr(&served));

    let check = run(
        &[
            "check",
            "--policy",
            "fips-140-3",
            "--as-of",
            "2036-01-01",
            "--no-bench",
            "--json",
        ],
        b"",
    );
    assert_eq!(code(&check), 0, "{}", stderr(&check));
    let result: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(result["verdict"], "PASS");
    let refused = result["refused_as_of"].as_array().unwrap();
    for name in [
        "sha1",
        "ecdsa-p256",
        "ecdh-p384",
        "rsa-pss-sha256",
        "ed25519",
    ] {
        assert!(refused.iter().any(|row| row == name), "{name}: {refused:?}");
    }
    assert!(!refused.iter().any(|row| row == "ml-kem-768"));

    // A malformed day is a usage error.
    assert_eq!(
        code(&run(&["policy", "show", "--as-of", "2031-02-30"], b"")),
        2
    );
    assert_eq!(
        code(&run(&["policy", "show", "--as-of", "tomorrow"], b"")),
        2
    );
}

/// The cnsa-2.0 profile: listed, strict, AES-256/SHA-384 only; `regula check` passes.
#[test]
fn cnsa_2_0_profile_through_the_cli() {
    let list = run(&["policy", "list"], b"");
    assert!(stdout(&list).contains("cnsa-2.0"));
    let refused = run(&["dgst", "-a", "sha256", "--policy", "cnsa-2.0"], b"abc");
    assert_fails(&refused, 3, "sha384");
    let served = run(
        &[
            "dgst",
            "-a",
            "sha384",
            "--policy",
            "cnsa-2.0",
            "--indicator",
        ],
        b"abc",
    );
    assert_eq!(code(&served), 0, "{}", stderr(&served));
    assert!(
        stderr(&served).contains("\"approved\""),
        "{}",
        stderr(&served)
    );
    let check = run(&["check", "--policy", "cnsa-2.0", "--no-bench"], b"");
    assert_eq!(code(&check), 0, "{}{}", stdout(&check), stderr(&check));
    assert!(stdout(&check).contains("Verdict: PASS"));
}

/// `REGULA_SM4_BACKEND` forces an SM4 backend: each one this machine runs gives the
/// GB/T 32907-2016 Appendix A example 1 ciphertext and is the one `regula info` names; a backend
/// it cannot run, or an unknown name, makes the module refuse SM4 (exit 2, the variable named),
/// never a silent run on another backend. `REGULA_GHASH_BACKEND` likewise for SM4-GCM.
#[test]
fn forced_sm4_backends_run_or_are_refused() {
    let key = "0123456789abcdeffedcba9876543210";
    let plaintext = hex::decode(key).unwrap();
    let enc = ["enc", "--policy", "gm", "-a", "sm4-ecb", "-k", key];
    let mut ran = Vec::new();
    for name in [
        "sm4-soft",
        "sm4-aesni-avx2",
        "sm4-vaes-avx2",
        "sm4-gfni-avx512",
        "sm4-neon",
        "sm4-ce",
    ] {
        let env = [("REGULA_SM4_BACKEND", name)];
        let output = run_env(&enc, &plaintext, &env);
        if code(&output) == 0 {
            assert_eq!(
                hex::encode(&output.stdout),
                "681edf34d206965e86b3e94f536e4246",
                "{name}"
            );
            let info = stdout(&run_env(&["info"], b"", &env));
            assert!(
                info.lines().any(|line| line.contains("sm4-ecb")
                    && line.trim_end().ends_with(&format!("regula-sm {name}"))),
                "{name}: {info}"
            );
            ran.push(name);
        } else {
            assert_fails(
                &output,
                2,
                &format!("REGULA_SM4_BACKEND=\"{name}\" is not supported by this CPU or build"),
            );
        }
    }
    assert!(
        ran.contains(&"sm4-soft"),
        "the portable backend always runs"
    );
    let output = run_env(&enc, &plaintext, &[("REGULA_SM4_BACKEND", "sm4-fastest")]);
    assert_fails(
        &output,
        2,
        "REGULA_SM4_BACKEND=\"sm4-fastest\" is not an implementation name",
    );
    let gcm = [
        "enc",
        "--policy",
        "gm",
        "-a",
        "sm4-gcm",
        "-k",
        key,
        "--iv",
        "000000000000000000000000",
    ];
    let output = run_env(&gcm, b"", &[("REGULA_GHASH_BACKEND", "ghash-fastest")]);
    assert_fails(
        &output,
        2,
        "REGULA_GHASH_BACKEND=\"ghash-fastest\" is not an implementation name",
    );
    // SM4-GCM with an empty message is E_K(J0): the same tag on every GHASH implementation.
    let reference = run_env(&gcm, b"", &[("REGULA_GHASH_BACKEND", "ghash-rustcrypto")]);
    assert_eq!(code(&reference), 0, "{}", stderr(&reference));
    let tag = run(&gcm, b"");
    assert_eq!(tag.stdout, reference.stdout);
}

/// A reader that stops early (`regula info | grep -q ...`, `| head -n 1`) must not make
/// `regula` panic: it ends on SIGPIPE, quietly, as `cat` does.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_regula_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(REGULA)
        .args(["info"])
        .env_remove("REGULA_BREAK_SELFTEST")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("regula binary runs");
    // Close the read end before `regula` writes: its first write meets a closed pipe.
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("regula finishes");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "regula panicked: {stderr}");
    assert_eq!(
        output.status.signal(),
        Some(libc::SIGPIPE),
        "expected the end by SIGPIPE, got {:?}; stderr: {stderr}",
        output.status
    );
}
