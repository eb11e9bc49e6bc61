//! The crate's run-time dependency list is an allow-list (after Go's
//! `crypto/internal/fips140deps`): adding a dependency to the cryptographic code must be a
//! deliberate change to this test. Dev-dependencies (references, benchmarks) are not checked.

/// Crates the library may depend on, and why.
const ALLOWED: &[&str] = &[
    // Wiping key schedules and keystream buffers.
    "zeroize",
    // SM3 (GB/T 32905) from RustCrypto: a vetted implementation, the portable SM3 backend.
    "sm3",
    // GHASH (NIST SP 800-38D, 6.4) from RustCrypto for SM4-GCM: carry-less multiplication
    // chosen at run time, constant-time portable fallback.
    "ghash",
    // SM2 curve arithmetic (GB/T 32918.1) from RustCrypto: constant-time field and scalar
    // arithmetic and point multiplication, plus PKCS#8/SPKI key encodings. The SM2 protocols
    // (signature with user ID, encryption, key exchange) are ours.
    "sm2",
    // DER (X.690) from RustCrypto, already under `sm2`'s PKCS#8: SM2 signatures and GM/T 0009
    // ciphertexts.
    "der",
];

#[test]
fn runtime_dependencies_are_allow_listed() {
    let manifest = include_str!("../Cargo.toml");
    let mut in_dependencies = false;
    let mut found = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            // Also catches `[target.'cfg(..)'.dependencies]` and `[build-dependencies]`.
            in_dependencies = line.ends_with("dependencies]") && !line.contains("dev-dependencies");
            continue;
        }
        if in_dependencies && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.']).next().unwrap_or_default().trim();
            found.push(name.to_owned());
        }
    }
    for name in &found {
        assert!(
            ALLOWED.contains(&name.as_str()),
            "dependency `{name}` is not allow-listed"
        );
    }
    assert!(found.iter().any(|name| name == "zeroize"), "{found:?}");
}
