//! The ACVP vector sets that Go's recorded data lacks (AES-CCM, AES-KW/KWP, AES-XTS, GMAC,
//! KBKDF), answered through the module:
//!
//! * NIST ACVP-Server excerpts kept in this repository (`tests/data/acvp-server/`, NIST's own
//!   answers in `internalProjection.json`);
//! * BoringSSL's recorded acvptool sets with BoringSSL's module's answers
//!   (`tests/data/acvp-boringssl/`).
//!
//! Every set runs with 0 failures, at least one case of each new family passes, and a changed
//! byte of an expected answer (in a temporary copy) fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regula::Module;
use regula_vectors::acvp::{AcvpRow, run_path};
use serde_json::Value;

fn server_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/acvp-server")
}

fn boringssl_data() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/acvp-boringssl");
    assert!(
        dir.join("vectors").is_dir() && dir.join("expected").is_dir(),
        "BoringSSL's recorded ACVP sets are expected in {} (see its README.md)",
        dir.display()
    );
    dir
}

/// (passed, failed, skipped) per ACVP algorithm.
fn per_algorithm(rows: &[AcvpRow]) -> BTreeMap<String, (u64, u64, u64)> {
    let mut counts = BTreeMap::new();
    for row in rows {
        let entry = counts.entry(row.algorithm.clone()).or_insert((0, 0, 0));
        entry.0 += row.passed;
        entry.1 += row.failed;
        entry.2 += row.skipped;
    }
    counts
}

fn run(policy: &str, dir: &Path) -> Vec<AcvpRow> {
    let module = Module::load_named(policy).expect("built-in policy");
    let rows = run_path(&module, dir, None).expect("the sets read");
    for row in &rows {
        println!(
            "{policy} {} {} {} {}: passed {} failed {} skipped {} {:?} {:?}",
            row.file.rsplit('/').next().unwrap_or_default(),
            row.algorithm,
            row.mode,
            row.test_type,
            row.passed,
            row.failed,
            row.skipped,
            row.skip_reasons,
            row.failures
        );
    }
    rows
}

fn assert_passes(rows: &[AcvpRow], algorithms: &[&str]) {
    let counts = per_algorithm(rows);
    for (algorithm, (_, failed, _)) in &counts {
        assert_eq!(*failed, 0, "{algorithm} failed: {rows:?}");
    }
    for algorithm in algorithms {
        let passed = counts.get(*algorithm).map_or(0, |counts| counts.0);
        assert!(passed > 0, "no {algorithm} case passed: {counts:?}");
    }
}

#[test]
fn nist_server_excerpts_pass_under_default() {
    let rows = run("default", &server_data());
    assert_passes(&rows, &["ACVP-AES-CCM", "ACVP-AES-GMAC", "KDF"]);
}

/// fips-140-3 approves KBKDF; AES-CCM and GMAC with a caller's nonce it does not, so those
/// cases are skipped with the policy's reason, never failed.
#[test]
fn nist_server_excerpts_under_fips_140_3() {
    let rows = run("fips-140-3", &server_data());
    assert_passes(&rows, &["KDF"]);
    let counts = per_algorithm(&rows);
    for refused in ["ACVP-AES-CCM", "ACVP-AES-GMAC"] {
        let (passed, _, skipped) = counts[refused];
        assert_eq!(passed, 0, "{refused}");
        assert!(skipped > 0, "{refused}");
    }
    let reasons: Vec<&String> = rows
        .iter()
        .flat_map(|row| row.skip_reasons.keys())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|reason| reason.contains("not approved by policy fips-140-3")),
        "{reasons:?}"
    );
}

#[test]
fn boringssl_recorded_sets_pass_under_default() {
    let rows = run("default", &boringssl_data());
    assert_passes(
        &rows,
        &[
            "ACVP-AES-CCM",
            "ACVP-AES-GMAC",
            "ACVP-AES-KW",
            "ACVP-AES-KWP",
            "ACVP-AES-XTS",
        ],
    );
}

#[test]
fn boringssl_recorded_sets_under_fips_140_3() {
    let rows = run("fips-140-3", &boringssl_data());
    assert_passes(&rows, &["ACVP-AES-KW", "ACVP-AES-KWP", "ACVP-AES-XTS"]);
}

/// Copies `file` (decompressing bzip2) into `dir`, changes one hex digit of the first value of
/// `field` in its expected answers, and returns the copy's path.
fn mutate(value: &mut Value, field: &str) -> bool {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get_mut(field)
                && !text.is_empty()
            {
                let flipped = if text.starts_with('0') { "1" } else { "0" };
                text.replace_range(0..1, flipped);
                return true;
            }
            map.values_mut().any(|value| mutate(value, field))
        }
        Value::Array(items) => items.iter_mut().any(|value| mutate(value, field)),
        _ => false,
    }
}

fn read_json(path: &Path) -> Value {
    let raw = std::fs::read(path).expect("readable");
    let mut text = Vec::new();
    if raw.starts_with(b"BZh") {
        use std::io::Read;
        bzip2::read::BzDecoder::new(raw.as_slice())
            .read_to_end(&mut text)
            .expect("bzip2");
    } else {
        text = raw;
    }
    serde_json::Deserializer::from_slice(&text)
        .into_iter::<Value>()
        .next()
        .expect("a JSON value")
        .expect("valid JSON")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("regula-acvp-sets-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn failed(rows: &[AcvpRow]) -> u64 {
    rows.iter().map(|row| row.failed).sum()
}

#[test]
fn a_changed_nist_answer_fails() {
    for (folder, field) in [
        ("KDF-1.0", "keyOut"),
        ("ACVP-AES-CCM-1.0", "ct"),
        ("ACVP-AES-GMAC-1.0", "tag"),
    ] {
        let dir = temp_dir(folder);
        let mut json = read_json(&server_data().join(folder).join("internalProjection.json"));
        let original = run("default", &server_data().join(folder));
        assert_eq!(failed(&original), 0);
        // The first group of each excerpt is one the module answers under `default`.
        let first_group = &mut json["testGroups"][if folder == "KDF-1.0" { 1 } else { 0 }];
        assert!(mutate(first_group, field), "{folder}: no `{field}`");
        std::fs::write(
            dir.join("internalProjection.json"),
            serde_json::to_vec(&json).expect("json"),
        )
        .expect("write");
        let rows = run("default", &dir);
        assert_eq!(failed(&rows), 1, "{folder}: {rows:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_changed_boringssl_answer_fails() {
    for (name, field) in [
        ("ACVP-AES-KW", "ct"),
        ("ACVP-AES-KWP", "ct"),
        ("ACVP-AES-XTS", "ct"),
    ] {
        let dir = temp_dir(name);
        std::fs::create_dir_all(dir.join("vectors")).expect("dir");
        std::fs::create_dir_all(dir.join("expected")).expect("dir");
        std::fs::copy(
            boringssl_data().join("vectors").join(format!("{name}.bz2")),
            dir.join("vectors").join(name),
        )
        .expect("copy");
        let mut expected = read_json(
            &boringssl_data()
                .join("expected")
                .join(format!("{name}.bz2")),
        );
        // For XTS the first group is AES-128-XTS (skipped): change the AES-256 group's answer.
        let group = if name == "ACVP-AES-XTS" { 1 } else { 0 };
        assert!(
            mutate(&mut expected[1]["testGroups"][group], field),
            "{name}"
        );
        std::fs::write(
            dir.join("expected").join(name),
            serde_json::to_vec(&expected).expect("json"),
        )
        .expect("write");
        let rows = run("default", &dir);
        assert_eq!(failed(&rows), 1, "{name}: {rows:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
