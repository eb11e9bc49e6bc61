//! `regula-evp-test` over OpenSSL's evp_test data (tests/openssl-evp-data) against the system
//! OpenSSL 3 with its default provider: nothing fails, and each file passes at least the
//! stanzas it passed when this test was written (so a parser that silently drops stanzas
//! fails here). A stanza with one expected byte changed must be reported failed.

use std::path::{Path, PathBuf};
use std::process::Command;

const LIBCRYPTO: &str = "/usr/lib/x86_64-linux-gnu/libcrypto.so.3";

/// Stanzas passed per file with `--provider default` against OpenSSL 3.0.19 (Debian).
const MIN_PASSED: &[(&str, u64)] = &[
    ("evpciph_aes_ccm_cavs.txt", 2865),
    ("evpciph_aes_common.txt", 296),
    ("evpciph_aes_cts.txt", 42),
    ("evpciph_aes_wrap.txt", 26),
    ("evpciph_chacha.txt", 8),
    ("evpciph_des3_common.txt", 3),
    ("evpciph_rc4.txt", 0),
    ("evpciph_sm4.txt", 8),
    ("evpkdf_hkdf.txt", 31),
    ("evpkdf_kbkdf_counter.txt", 0),
    ("evpkdf_pbkdf2.txt", 23),
    ("evpkdf_ss.txt", 164),
    ("evpkdf_ssh.txt", 606),
    ("evpkdf_tls12_prf.txt", 4),
    ("evpkdf_tls13_kdf.txt", 562),
    ("evpkdf_x963.txt", 16),
    ("evpmac_common.txt", 67),
    ("evpmac_poly1305.txt", 42),
    ("evpmac_sm3.txt", 4),
    ("evpmd_blake.txt", 18),
    ("evpmd_md.txt", 10),
    ("evpmd_ripemd.txt", 8),
    ("evpmd_sha.txt", 59),
    ("evpmd_sm3.txt", 10),
    // Public-key stanzas (keys decoded and stanzas run through EVP_PKEY/EVP_DigestSign*).
    ("evppkey_ecdh.txt", 305),
    ("evppkey_ecdsa.txt", 16),
    ("evppkey_ecx.txt", 98),
    ("evppkey_rsa.txt", 58),
    // With its Decrypt stanzas (RSA PKCS#1 v1.5 and OAEP decryption).
    ("evppkey_rsa_common.txt", 165),
];

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/openssl-evp-data")
}

fn host(args: &[&str]) -> (i32, serde_json::Value) {
    assert!(
        Path::new(LIBCRYPTO).exists(),
        "{LIBCRYPTO} is needed (Debian package libssl3)"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_regula-evp-test"))
        .args(["--libcrypto", LIBCRYPTO, "--provider", "default", "--json"])
        .args(args)
        .output()
        .expect("run regula-evp-test");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), report)
}

fn count(v: &serde_json::Value, what: &str) -> u64 {
    v["counts"][what]
        .as_u64()
        .or_else(|| v[what].as_u64())
        .unwrap_or(u64::MAX)
}

#[test]
fn openssl_data_passes_with_the_default_provider() {
    let dir = data_dir();
    let (code, report) = host(&[dir.to_str().unwrap()]);
    let failed: Vec<&serde_json::Value> = report["stanzas"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] == "failed")
        .collect();
    assert!(failed.is_empty(), "failed stanzas: {failed:#?}");
    assert_eq!(code, 0);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), MIN_PASSED.len(), "data files run: {files:#?}");
    for (name, min) in MIN_PASSED {
        let file = files
            .iter()
            .find(|f| f["file"] == *name)
            .unwrap_or_else(|| panic!("{name} not run"));
        assert_eq!(count(file, "failed"), 0, "{name}");
        assert!(
            count(file, "passed") >= *min,
            "{name}: {} passed, at least {min} expected",
            count(file, "passed")
        );
    }
    // Every stanza that ran names the provider that answered its fetch.
    for s in report["stanzas"].as_array().unwrap() {
        if s["status"] == "passed" {
            assert_eq!(s["provider"], "default", "{s}");
        }
    }
}

/// The stanza of `file` that starts at `line`, as text.
fn stanza(file: &str, line: usize) -> String {
    let text = std::fs::read_to_string(data_dir().join(file)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for l in &lines[line - 1..] {
        if l.is_empty() {
            break;
        }
        out.push(*l);
    }
    out.join("\n") + "\n"
}

/// Flips the last hex digit of the stanza's `key` line.
fn corrupt(stanza: &str, key: &str) -> String {
    let mut done = false;
    let out: Vec<String> = stanza
        .lines()
        .map(|l| {
            if !done && l.split('=').next().map(str::trim) == Some(key) {
                done = true;
                let mut s = l.trim_end().to_string();
                let last = s.pop().unwrap();
                s.push(if last == '0' { '1' } else { '0' });
                s
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(done, "no {key} line in {stanza}");
    out.join("\n") + "\n"
}

#[test]
fn a_changed_expected_byte_is_a_failure() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("evp-host-negative");
    std::fs::create_dir_all(&dir).unwrap();
    // One stanza of each kind: (file, first line, line whose value is changed).
    let cases = [
        ("evpmd_sha.txt", "Digest = SHA256", "Output"),
        (
            "evpciph_aes_common.txt",
            "Cipher = aes-128-gcm",
            "Ciphertext",
        ),
        ("evpciph_aes_common.txt", "Cipher = aes-128-gcm", "Tag"),
        ("evpmac_common.txt", "MAC = HMAC", "Output"),
        ("evpkdf_hkdf.txt", "KDF = HKDF", "Output"),
    ];
    for (file, head, key) in cases {
        // The first such stanza with a non-empty `key` value and no expected error.
        let text = std::fs::read_to_string(data_dir().join(file)).unwrap();
        let original = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.eq_ignore_ascii_case(head))
            .map(|(i, _)| stanza(file, i + 1))
            .find(|s| {
                !s.contains("Result =")
                    && s.lines().any(|l| {
                        l.split_once('=')
                            .is_some_and(|(k, v)| k.trim() == key && !v.trim().is_empty())
                    })
            })
            .unwrap_or_else(|| panic!("no {head} stanza with a {key} in {file}"));
        let path = dir.join(format!("evp-original-{key}.txt"));
        std::fs::write(&path, &original).unwrap();
        let (code, report) = host(&[path.to_str().unwrap()]);
        assert_eq!(
            (code, count(&report["total"], "passed")),
            (0, 1),
            "{original}"
        );

        let changed = corrupt(&original, key);
        let path = dir.join(format!("evp-changed-{key}.txt"));
        std::fs::write(&path, &changed).unwrap();
        let (code, report) = host(&[path.to_str().unwrap()]);
        assert_eq!(code, 1, "{changed}");
        assert_eq!(count(&report["total"], "failed"), 1, "{changed}");
        assert_eq!(count(&report["total"], "passed"), 0, "{changed}");
    }
}

/// Public-key stanzas need the keys defined before them: the file up to the first stanza that
/// starts with `head`, then that stanza, is run as is and with one hex digit of `key` changed.
#[test]
fn a_changed_public_key_answer_is_a_failure() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("evp-host-negative-pkey");
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("evppkey_rsa_common.txt", "Verify = RSA-2048", "Output"),
        ("evppkey_rsa_common.txt", "Sign = RSA-2048", "Output"),
        ("evppkey_ecx.txt", "Derive=Alice-25519", "SharedSecret"),
    ];
    for (file, head, key) in cases {
        let text = std::fs::read_to_string(data_dir().join(file)).unwrap();
        let line = text
            .lines()
            .position(|l| l == head)
            .unwrap_or_else(|| panic!("no `{head}` in {file}"))
            + 1;
        let prefix: String = text
            .lines()
            .take(line - 1)
            .map(|l| format!("{l}\n"))
            .collect();
        let original = stanza(file, line);
        let path = dir.join("pkey-original.txt");
        std::fs::write(&path, format!("{prefix}{original}")).unwrap();
        let (code, report) = host(&[path.to_str().unwrap()]);
        assert_eq!(code, 0, "{original}");
        let passed = count(&report["total"], "passed");
        assert!(passed > 0, "{original}");

        let changed = corrupt(&original, key);
        std::fs::write(&path, format!("{prefix}{changed}")).unwrap();
        let (code, report) = host(&[path.to_str().unwrap()]);
        assert_eq!(code, 1, "{changed}");
        assert_eq!(count(&report["total"], "failed"), 1, "{changed}");
        assert_eq!(count(&report["total"], "passed"), passed - 1, "{changed}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_regula-evp-test"))
        .args([
            "--provider",
            "no-such-provider",
            data_dir().to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_regula-evp-test"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// OpenSSL 3.5's libcrypto and providers (scripts/openssl35), or None when not built.
fn openssl35() -> Option<PathBuf> {
    let prefix = std::env::var_os("REGULA_OPENSSL35")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|home| PathBuf::from(home).join(".cache/regula/openssl-3.5.4"))
        })?;
    prefix.join("lib/libcrypto.so.3").exists().then_some(prefix)
}

/// Runs `files` through OpenSSL 3.5 (at `prefix`) with its own default provider: (passed, failed).
fn passed_and_failed_with_3_5_default(prefix: &Path, files: &[PathBuf]) -> (u64, u64) {
    let out = Command::new(env!("CARGO_BIN_EXE_regula-evp-test"))
        .arg("--libcrypto")
        .arg(prefix.join("lib/libcrypto.so.3"))
        .arg("--provider-path")
        .arg(prefix.join("lib/ossl-modules"))
        .args(["--provider", "default", "--json"])
        .args(files)
        .output()
        .expect("run regula-evp-test");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        count(&report["total"], "passed"),
        count(&report["total"], "failed"),
    )
}

/// `Kem` and `KeyGen` stanzas: OpenSSL's ML-KEM data (NIST ACVP keyGen and encapDecap, kept in
/// crates/regula-vectors/tests/data/openssl-ml-kem) against OpenSSL 3.5's own default provider pass
/// whole (the 6 stanzas for 3.6's security category skipped), and a changed byte of an
/// expected decapsulation secret fails.
#[test]
fn ml_kem_data_passes_with_openssl_3_5_default_provider() {
    let Some(prefix) = openssl35() else {
        eprintln!("skipped: no OpenSSL 3.5 build (scripts/openssl35 makes one)");
        return;
    };
    let data =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../regula-vectors/tests/data/openssl-ml-kem");
    let run = |files: &[PathBuf]| passed_and_failed_with_3_5_default(&prefix, files);
    let files = [
        data.join("evppkey_ml_kem_keygen.txt"),
        data.join("evppkey_ml_kem_encap_decap.txt"),
    ];
    assert_eq!(run(&files), (180, 0));
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let stanza = text
        .find("EncodedPrivateKey")
        .expect("a decapsulation stanza");
    let output = stanza + text[stanza..].find("\nOutput = ").unwrap() + 10;
    let mut changed = text.clone();
    let flipped = if &text[output..output + 1] == "0" {
        "1"
    } else {
        "0"
    };
    changed.replace_range(output..output + 1, flipped);
    let path = std::env::temp_dir().join(format!("ml-kem-changed-{}.txt", std::process::id()));
    std::fs::write(&path, changed).unwrap();
    let (_, failed) = run(std::slice::from_ref(&path));
    let _ = std::fs::remove_file(&path);
    assert_eq!(failed, 1, "the changed secret must fail");
}

/// `KeyGen`, `Verify-Message-Public` and the Sign-Message forms: OpenSSL's ML-DSA data (NIST
/// ACVP keyGen and sigVer, Wycheproof's verification sets, kept in
/// crates/regula-vectors/tests/data/openssl-ml-dsa) against OpenSSL 3.5's own default provider
/// pass whole (the stanzas for 3.6's security category and the key-from-data stanzas skipped),
/// and a changed byte of a valid signature fails.
#[test]
fn ml_dsa_data_passes_with_openssl_3_5_default_provider() {
    let Some(prefix) = openssl35() else {
        eprintln!("skipped: no OpenSSL 3.5 build (scripts/openssl35 makes one)");
        return;
    };
    let data =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../regula-vectors/tests/data/openssl-ml-dsa");
    let run = |files: &[PathBuf]| passed_and_failed_with_3_5_default(&prefix, files);
    let files: Vec<PathBuf> = [
        "keygen",
        "sigver",
        "44_wycheproof_verify",
        "65_wycheproof_verify",
        "87_wycheproof_verify",
    ]
    .iter()
    .map(|name| data.join(format!("evppkey_ml_dsa_{name}.txt")))
    .collect();
    assert_eq!(run(&files), (398, 0));
    // The first stanza of sigVer expecting a valid signature ("# valid signature and message"
    // above it), with one byte of the signature changed.
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let stanza = text
        .split("\n\n")
        .find(|s| {
            s.contains("\nVerify-Message-Public = ")
                && !s.contains("Result =")
                && !s.contains("mu:1")
        })
        .expect("a valid sigVer stanza");
    let output = stanza.find("\nOutput = ").unwrap() + 10;
    let mut changed = stanza.to_string();
    let flipped = if &stanza[output..output + 1] == "0" {
        "1"
    } else {
        "0"
    };
    changed.replace_range(output..output + 1, flipped);
    // The key definitions before the stanza, then the changed stanza.
    let keys: String = text
        .split("\n\n")
        .filter(|s| s.lines().any(|line| line.starts_with("PublicKeyRaw = ")))
        .collect::<Vec<_>>()
        .join("\n\n");
    let path = std::env::temp_dir().join(format!("ml-dsa-changed-{}.txt", std::process::id()));
    std::fs::write(&path, format!("{keys}\n\n{changed}\n")).unwrap();
    let (passed, failed) = run(std::slice::from_ref(&path));
    let _ = std::fs::remove_file(&path);
    assert_eq!((passed, failed), (0, 1), "the changed signature must fail");
}
