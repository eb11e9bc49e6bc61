//! The module boundary is this crate: every crate it links is part of what it asks users to
//! trust. This test fails when a new normal (non-dev) dependency appears, so that adding one is a
//! deliberate, reviewed change (the idea of Go's `fips140deps` test).

use std::process::Command;

/// Direct dependencies of `regula` and why each is inside the boundary.
const ALLOWED: &[&str] = &[
    // AWS-LC's own C functions where aws-lc-rs has no API: the same copy aws-lc-rs links,
    // the validated module (`fips`) or the ordinary build, one per build.
    "aws-lc-fips-sys",
    "aws-lc-rs", // every FIPS-approved primitive (AWS-LC; the validated module with `fips`)
    "aws-lc-sys",
    // The operating system's entropy (getrandom(2)), seeding the GM/T 0105 generators that
    // serve `gm`; a thin system-call wrapper, no cryptography.
    "getrandom",
    "hex-literal", // compile-time known-answer vectors
    // pthread_atfork only (fork_detect.rs): a forked child draws its own GM/T 0105 state and
    // nonce counters; a system-interface binding, no cryptography (getrandom links it too).
    "libc",
    "pem",        // the PEM armour of keys (key_encoding.rs): base64, no cryptography
    "regula-sm",  // SM2/SM3/SM4: our own code, inside the boundary
    "serde",      // serialising reports and indicators
    "serde_json", // the runtime CBOM, a CycloneDX JSON document (cbom.rs); no cryptography
    "toml",       // policy files
    "zeroize",    // wiping secrets
];

#[test]
fn regula_depends_only_on_the_allow_list() {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let regula = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|package| package["name"] == "regula")
        .expect("regula is in the workspace");
    let mut normal: Vec<&str> = regula["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|dependency| dependency["kind"].is_null())
        .map(|dependency| dependency["name"].as_str().unwrap())
        .collect();
    normal.sort_unstable();
    assert_eq!(
        normal, ALLOWED,
        "regula's dependencies changed: review the module boundary"
    );
}
