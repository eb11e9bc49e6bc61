//! Recognising cryptographic libraries in one file (the binary or a library it loads): AWS-LC,
//! BoringSSL and Go's BoringCrypto, Go's FIPS 140-3 module, OpenSSL, GnuTLS, Nettle, libgcrypt,
//! ring and RustCrypto, by symbols, strings and library names.

use std::collections::BTreeSet;
use std::path::Path;

use crate::elf::ElfFacts;
use crate::strings::{Strings, openssl_version, version_after};
use crate::{FipsStatus, GoInfo, Linkage, ModuleFinding};

/// Crate names in legacy-mangled Rust symbols (`_ZN4sha26…`, `_ZN…_$LT$sha2..`).
fn rust_symbol_crates(symbols: &[String]) -> BTreeSet<String> {
    let mut crates = BTreeSet::new();
    for symbol in symbols {
        let Some(rest) = symbol.strip_prefix("_ZN") else {
            continue;
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(len) = rest[..digits].parse::<usize>() else {
            continue;
        };
        let Some(first) = rest.get(digits..digits + len) else {
            continue;
        };
        if let Some(generic) = first.strip_prefix("_$LT$") {
            if let Some(end) = generic.find("..") {
                crates.insert(generic[..end].to_string());
            }
        } else if first
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            crates.insert(first.to_string());
        }
    }
    crates
}

/// RustCrypto algorithm crates (crate names with underscores).
const RUSTCRYPTO_CRATES: &[&str] = &[
    "aes",
    "aes_gcm",
    "aes_gcm_siv",
    "aes_siv",
    "ccm",
    "chacha20",
    "chacha20poly1305",
    "poly1305",
    "des",
    "sm4",
    "sha1",
    "sha2",
    "sha3",
    "md5",
    "md4",
    "sm3",
    "blake2",
    "hmac",
    "cmac",
    "hkdf",
    "pbkdf2",
    "scrypt",
    "argon2",
    "p256",
    "p384",
    "p521",
    "k256",
    "sm2",
    "ecdsa",
    "ed25519",
    "rsa",
    "ml_kem",
    "ml_dsa",
    "slh_dsa",
];

/// Go FIPS 140-3 module snapshots, as the Go toolchain's `lib/fips140/certified.txt` and
/// `inprocess.txt` name them (Go 1.26).
const GO_FIPS_CERTIFIED: &[&str] = &["v1.0.0-c2097c7c"];
const GO_FIPS_IN_PROCESS: &[&str] = &["v1.26.0"];

fn push_finding(findings: &mut Vec<ModuleFinding>, finding: ModuleFinding) {
    if !findings
        .iter()
        .any(|f| f.name == finding.name && f.file == finding.file)
    {
        findings.push(finding);
    }
}

/// Detects the modules in one file (the binary or a library it loads).
pub(crate) fn scan(
    file: &str,
    linkage: Linkage,
    facts: &ElfFacts,
    strings: &Strings<'_>,
    go: Option<&GoInfo>,
    findings: &mut Vec<ModuleFinding>,
) {
    let finding =
        |name: &str, version: Option<String>, fips, detail: String, evidence| ModuleFinding {
            name: name.to_string(),
            version,
            fips,
            linkage,
            file: file.to_string(),
            detail,
            evidence,
        };
    let symbols = &facts.symbols;
    let crates = strings.rust_crates();
    let symbol_crates = rust_symbol_crates(symbols);
    let has_crate = |name: &str| crates.contains_key(name) || symbol_crates.contains(name);
    let crate_versions = |name: &str| {
        crates
            .get(name)
            .map(|v| v.iter().cloned().collect::<Vec<_>>().join(", "))
    };

    // AWS-LC: its version string, and the symbol prefixes the -sys crates give it.
    let fips_version = version_after(strings, b"AWS-LC FIPS ");
    let plain_version = version_after(strings, b"AWS-LC ");
    let fips_prefix = symbols
        .iter()
        .find(|s| s.starts_with("aws_lc_fips_"))
        .map(|s| symbol_prefix(s, "aws_lc_fips_"));
    let plain_prefix = symbols
        .iter()
        .find(|s| s.starts_with("aws_lc_0_") || s.starts_with("aws_lc_1_"))
        .map(|s| symbol_prefix(s, "aws_lc_"));
    if fips_version.is_some() || fips_prefix.is_some() || has_crate("aws_lc_fips_sys") {
        let mut evidence = Vec::new();
        if let Some(v) = &fips_version {
            evidence.push(format!("string \"AWS-LC FIPS {v}\""));
        }
        if let Some(p) = &fips_prefix {
            evidence.push(format!("symbols prefixed {p}"));
        }
        if let Some(v) = crate_versions("aws_lc_fips_sys") {
            evidence.push(format!("aws-lc-fips-sys {v} source paths"));
        }
        findings.push(finding(
            "AWS-LC FIPS",
            fips_version,
            FipsStatus::Validated,
            "AWS-LC's FIPS 140-3 module (the validated FIPS branch, as aws-lc-fips-sys builds it)"
                .into(),
            evidence,
        ));
    } else if plain_version.is_some() || plain_prefix.is_some() || has_crate("aws_lc_sys") {
        let mut evidence = Vec::new();
        if let Some(v) = &plain_version {
            evidence.push(format!("string \"AWS-LC {v}\""));
        }
        if let Some(p) = &plain_prefix {
            evidence.push(format!("symbols prefixed {p}"));
        }
        if let Some(v) = crate_versions("aws_lc_sys") {
            evidence.push(format!("aws-lc-sys {v} source paths"));
        }
        findings.push(finding(
            "AWS-LC",
            plain_version,
            FipsStatus::NotValidated,
            "ordinary AWS-LC (aws-lc-sys), not its FIPS module".into(),
            evidence,
        ));
    }

    // Go: BoringCrypto, or the native FIPS 140-3 module.
    let boring_symbol = symbols.iter().any(|s| s.contains("_goboringcrypto_"));
    // Only in Go binaries: this very program holds the name as a search string.
    let boring_string = go.is_some() && strings.contains(b"_goboringcrypto_");
    let boring_experiment = go
        .and_then(|g| g.settings.get("GOEXPERIMENT"))
        .is_some_and(|e| e.split(',').any(|x| x == "boringcrypto"));
    if boring_symbol || boring_string || boring_experiment {
        let mut evidence = Vec::new();
        if boring_symbol {
            evidence.push("_goboringcrypto_ symbols".to_string());
        } else if boring_string {
            evidence.push("_goboringcrypto_ names in the data".to_string());
        }
        if boring_experiment {
            evidence.push("build setting GOEXPERIMENT=boringcrypto".to_string());
        }
        findings.push(finding(
            "Go BoringCrypto",
            None,
            FipsStatus::Validated,
            "Go's BoringCrypto: a FIPS 140 validated BoringSSL module linked through cgo".into(),
            evidence,
        ));
    } else if let Some(go) = go {
        go_native_finding(go, strings, &finding, findings);
    } else if !symbols.iter().any(|s| s.starts_with("aws_lc_"))
        && symbols
            .iter()
            .any(|s| s == "BORINGSSL_self_test" || s == "BORINGSSL_integrity_test")
    {
        let fips = symbols.iter().any(|s| s == "BORINGSSL_integrity_test");
        findings.push(finding(
            "BoringSSL",
            None,
            if fips {
                FipsStatus::Unknown
            } else {
                FipsStatus::NotValidated
            },
            if fips {
                "a FIPS build of BoringSSL (integrity test present); whether this version is validated cannot be read from the binary".into()
            } else {
                "BoringSSL, not a FIPS build".into()
            },
            vec!["BORINGSSL_ symbols".into()],
        ));
    }

    // OpenSSL libcrypto: "OpenSSL 3.0.19 27 Jan 2026" (AWS-LC and BoringSSL say "compatible").
    // A program that loads libcrypto also holds the text its headers gave it (`openssl
    // version` prints both): only the library then counts.
    let needs_libcrypto = facts.needed.iter().any(|n| n.starts_with("libcrypto.so"));
    if let Some(version) = openssl_version(strings).filter(|_| !needs_libcrypto) {
        let dir = Path::new(file).parent().map(Path::to_path_buf);
        let provider = dir
            .map(|d| d.join("ossl-modules/fips.so"))
            .filter(|p| p.exists());
        let (fips, detail) = match &provider {
            Some(p) => (
                FipsStatus::Unknown,
                format!(
                    "OpenSSL's FIPS provider is installed ({}); it is used only where openssl.cnf or the program loads it",
                    p.display()
                ),
            ),
            None => (
                FipsStatus::NotValidated,
                "OpenSSL's default provider; no FIPS provider (ossl-modules/fips.so) is installed beside it"
                    .into(),
            ),
        };
        findings.push(finding(
            "OpenSSL libcrypto",
            Some(version.clone()),
            fips,
            detail,
            vec![format!("string \"OpenSSL {version}\"")],
        ));
    }

    // GnuTLS, Nettle, libgcrypt: by their exported functions.
    for (name, probe, what) in [
        ("GnuTLS", "gnutls_global_init", "GnuTLS"),
        ("Nettle", "nettle_sha256_init", "Nettle"),
        ("libgcrypt", "gcry_check_version", "libgcrypt"),
    ] {
        if symbols.iter().any(|s| s == probe) {
            let (fips, detail) = hmac_status(file, what);
            findings.push(finding(
                name,
                None,
                fips,
                detail,
                vec![format!("symbol {probe}")],
            ));
        }
    }

    // ring.
    let ring_prefix = symbols
        .iter()
        .find(|s| s.starts_with("ring_core_"))
        .map(|s| symbol_prefix(s, "ring_core_"));
    if has_crate("ring") || ring_prefix.is_some() {
        let mut evidence = Vec::new();
        if let Some(p) = ring_prefix {
            evidence.push(format!("symbols prefixed {p}"));
        }
        if crates.contains_key("ring") {
            evidence.push("ring source paths".into());
        } else if symbol_crates.contains("ring") {
            evidence.push("ring:: symbols".into());
        }
        findings.push(finding(
            "ring",
            crate_versions("ring"),
            FipsStatus::NotValidated,
            "ring is not a FIPS 140 validated module".into(),
            evidence,
        ));
    }

    // RustCrypto.
    let rustcrypto: Vec<String> = RUSTCRYPTO_CRATES
        .iter()
        .filter(|name| has_crate(name))
        .map(|name| match crates.get(*name) {
            Some(versions) => format!(
                "{} {}",
                name.replace('_', "-"),
                versions.iter().cloned().collect::<Vec<_>>().join("/")
            ),
            None => name.replace('_', "-"),
        })
        .collect();
    if !rustcrypto.is_empty() {
        findings.push(finding(
            "RustCrypto",
            None,
            FipsStatus::NotValidated,
            format!(
                "RustCrypto crates ({}), not a FIPS 140 validated module",
                rustcrypto.join(", ")
            ),
            vec!["crate symbols or source paths".into()],
        ));
    }
}

/// A module recognised by its library name alone: a needed library not found on this system,
/// or found but with no recognisable content.
pub(crate) fn soname_finding(name: &str, path: Option<&Path>, findings: &mut Vec<ModuleFinding>) {
    let module = if name.starts_with("libcrypto.so") || name.starts_with("libssl.so") {
        "OpenSSL libcrypto"
    } else if name.starts_with("libgnutls.so") {
        "GnuTLS"
    } else if name.starts_with("libnettle.so") || name.starts_with("libhogweed.so") {
        "Nettle"
    } else if name.starts_with("libgcrypt.so") {
        "libgcrypt"
    } else {
        return;
    };
    if path.is_some() && (name.starts_with("libssl.so") || name.starts_with("libhogweed.so")) {
        // Their libcrypto or libnettle, loaded beside them, carries the evidence.
        return;
    }
    let (fips, detail) = match path {
        None => (
            FipsStatus::Unknown,
            format!(
                "{name} is needed but not found on this system, so which build it will be cannot be told"
            ),
        ),
        Some(_) => (
            FipsStatus::NotValidated,
            format!("{name} carries no FIPS module evidence"),
        ),
    };
    push_finding(
        findings,
        ModuleFinding {
            name: module.to_string(),
            version: None,
            fips,
            linkage: Linkage::Dynamic,
            file: path
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| name.to_string()),
            detail,
            evidence: vec![format!("DT_NEEDED {name}")],
        },
    );
}

/// GnuTLS, Nettle and libgcrypt built with a FIPS 140 mode install a `.<file>.hmac` beside the
/// library; without it they are plain builds.
fn hmac_status(file: &str, what: &str) -> (FipsStatus, String) {
    let path = Path::new(file);
    let mut candidates = Vec::new();
    if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
        candidates.push(dir.join(format!(".{}.hmac", name.to_string_lossy())));
        if let Ok(real) = std::fs::canonicalize(path)
            && let (Some(dir), Some(name)) = (real.parent(), real.file_name())
        {
            candidates.push(dir.join(format!(".{}.hmac", name.to_string_lossy())));
        }
    }
    match candidates.iter().find(|c| c.exists()) {
        Some(hmac) => (
            FipsStatus::Unknown,
            format!(
                "{what} built with a FIPS 140 mode ({} installed); whether this build is validated depends on its vendor's certificate",
                hmac.display()
            ),
        ),
        None => (
            FipsStatus::NotValidated,
            format!("{what} without a FIPS 140 mode (no .hmac integrity file installed beside it)"),
        ),
    }
}

/// Makes a finding in the file being scanned: name, version, status, detail, evidence.
type MakeFinding<'a> =
    dyn Fn(&str, Option<String>, FipsStatus, String, Vec<String>) -> ModuleFinding + 'a;

fn go_native_finding(
    go: &GoInfo,
    strings: &Strings<'_>,
    finding: &MakeFinding<'_>,
    findings: &mut Vec<ModuleFinding>,
) {
    let setting = go.settings.get("GOFIPS140").cloned();
    let godebug = go.fips140_godebug();
    let snapshot = setting
        .clone()
        .filter(|s| s.starts_with('v'))
        .or_else(|| go.fips140_packages.first().cloned());
    let in_tree = strings.contains(b"crypto/internal/fips140/");
    if snapshot.is_none() && setting.is_none() && !in_tree {
        return;
    }
    let mut evidence = Vec::new();
    if let Some(s) = &setting {
        evidence.push(format!("build setting GOFIPS140={s}"));
    }
    if let Some(mode) = &godebug {
        evidence.push(format!("DefaultGODEBUG fips140={mode}"));
    }
    if !go.fips140_packages.is_empty() {
        evidence.push(format!(
            "packages crypto/internal/fips140/{}",
            go.fips140_packages.join(", ")
        ));
    } else if in_tree {
        evidence.push("packages crypto/internal/fips140/… (in-tree)".into());
    }
    let mode = match godebug.as_deref() {
        Some("on") | Some("only") => "FIPS mode on by default",
        _ => "FIPS mode off unless GODEBUG=fips140=on",
    };
    let (fips, detail) = match &snapshot {
        Some(v) if GO_FIPS_CERTIFIED.contains(&v.as_str()) => (
            FipsStatus::Validated,
            format!(
                "Go Cryptographic Module {v}, the snapshot the Go toolchain lists as certified; {mode}"
            ),
        ),
        Some(v) if GO_FIPS_IN_PROCESS.contains(&v.as_str()) => (
            FipsStatus::NotValidated,
            format!(
                "Go Cryptographic Module {v} is in the validation process, not yet validated; {mode}"
            ),
        ),
        Some(v) => (
            FipsStatus::NotValidated,
            format!(
                "Go Cryptographic Module snapshot {v} is not one known to be certified; {mode}"
            ),
        ),
        None => (
            FipsStatus::NotValidated,
            format!(
                "Go's in-tree crypto/internal/fips140 ({}), not a frozen validated snapshot; build with GOFIPS140=v1.0.0 for the certified one; {mode}",
                setting.as_deref().unwrap_or("GOFIPS140 unset")
            ),
        ),
    };
    findings.push(finding(
        "Go FIPS 140-3 module",
        snapshot,
        fips,
        detail,
        evidence,
    ));
}

/// `aws_lc_fips_0_14_4_EVP_…` → `aws_lc_fips_0_14_4_`.
fn symbol_prefix(symbol: &str, head: &str) -> String {
    let rest = &symbol[head.len()..];
    let mut end = 0;
    for part in rest.split_inclusive('_') {
        if part
            .trim_end_matches('_')
            .bytes()
            .all(|b| b.is_ascii_digit())
            && part.len() > 1
        {
            end += part.len();
        } else {
            break;
        }
    }
    format!("{head}{}", &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_one(data: &[u8], symbols: &[&str], go: Option<&GoInfo>) -> Vec<ModuleFinding> {
        let facts = ElfFacts::for_test(data, symbols, true);
        let strings = Strings::new(data, &facts.data_regions);
        let mut findings = Vec::new();
        scan(
            "/opt/app",
            Linkage::Static,
            &facts,
            &strings,
            go,
            &mut findings,
        );
        findings
    }

    #[test]
    fn symbol_prefixes_keep_the_version_digits() {
        assert_eq!(
            symbol_prefix("aws_lc_fips_0_14_4_EVP_DigestInit", "aws_lc_fips_"),
            "aws_lc_fips_0_14_4_"
        );
        assert_eq!(
            symbol_prefix(
                "ring_core_0_17_14__x25519_ge_frombytes_vartime",
                "ring_core_"
            ),
            "ring_core_0_17_14_"
        );
        assert_eq!(symbol_prefix("aws_lc_EVP_foo", "aws_lc_"), "aws_lc_");
    }

    #[test]
    fn crate_names_from_legacy_mangled_symbols() {
        let symbols: Vec<String> = [
            "_ZN4sha26digest17h0123456789abcdefE",
            "_ZN18_$LT$ring..Foo$GT$3new17h0123456789abcdefE",
            "_ZN99short",
            "_ZNx",
            "main",
        ]
        .map(String::from)
        .to_vec();
        let crates: Vec<String> = rust_symbol_crates(&symbols).into_iter().collect();
        assert_eq!(crates, ["ring", "sha2"]);
    }

    #[test]
    fn aws_lc_fips_by_its_version_string_and_symbol_prefix() {
        let findings = scan_one(
            b"\0AWS-LC FIPS 3.0.0\0",
            &["aws_lc_fips_0_14_4_EVP_DigestInit"],
            None,
        );
        assert_eq!(findings.len(), 1, "{findings:?}");
        let f = &findings[0];
        assert_eq!(f.name, "AWS-LC FIPS");
        assert_eq!(f.version.as_deref(), Some("3.0.0"));
        assert_eq!(f.fips, FipsStatus::Validated);
        assert_eq!(f.linkage, Linkage::Static);
        assert_eq!(f.file, "/opt/app");
        assert_eq!(
            f.evidence,
            [
                "string \"AWS-LC FIPS 3.0.0\"",
                "symbols prefixed aws_lc_fips_0_14_4_"
            ]
        );
    }

    #[test]
    fn ordinary_aws_lc_ring_and_rustcrypto_are_not_validated() {
        let findings = scan_one(
            b"\0AWS-LC 1.66.2\0/x/registry/src/index/sha2-0.10.9/src/lib.rs\0",
            &[
                "aws_lc_0_47_0_EVP_DigestInit",
                "ring_core_0_17_14__x25519_ge_frombytes_vartime",
            ],
            None,
        );
        let names: Vec<(&str, FipsStatus)> =
            findings.iter().map(|f| (f.name.as_str(), f.fips)).collect();
        assert_eq!(
            names,
            [
                ("AWS-LC", FipsStatus::NotValidated),
                ("ring", FipsStatus::NotValidated),
                ("RustCrypto", FipsStatus::NotValidated),
            ]
        );
        assert_eq!(findings[0].version.as_deref(), Some("1.66.2"));
        assert_eq!(
            findings[2].detail,
            "RustCrypto crates (sha2 0.10.9), not a FIPS 140 validated module"
        );
    }

    #[test]
    fn boringcrypto_names_count_only_in_go_programs() {
        let data = b"\0_goboringcrypto_SHA256\0";
        assert!(scan_one(data, &[], None).is_empty());
        let go = GoInfo::default();
        let findings = scan_one(data, &[], Some(&go));
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].name, "Go BoringCrypto");
        assert_eq!(findings[0].fips, FipsStatus::Validated);
        assert_eq!(findings[0].evidence, ["_goboringcrypto_ names in the data"]);
    }

    #[test]
    fn go_snapshots_certified_in_process_and_in_tree() {
        let go = |setting: Option<&str>| {
            let mut go = GoInfo::default();
            if let Some(value) = setting {
                go.settings.insert("GOFIPS140".into(), value.into());
            }
            go
        };
        let certified = scan_one(b"", &[], Some(&go(Some("v1.0.0-c2097c7c"))));
        assert_eq!(certified[0].name, "Go FIPS 140-3 module");
        assert_eq!(certified[0].fips, FipsStatus::Validated);
        assert_eq!(certified[0].version.as_deref(), Some("v1.0.0-c2097c7c"));
        let in_process = scan_one(b"", &[], Some(&go(Some("v1.26.0"))));
        assert_eq!(in_process[0].fips, FipsStatus::NotValidated);
        assert!(in_process[0].detail.contains("in the validation process"));
        let in_tree = scan_one(b"\0crypto/internal/fips140/aes\0", &[], Some(&go(None)));
        assert_eq!(in_tree[0].fips, FipsStatus::NotValidated);
        assert_eq!(in_tree[0].version, None);
        assert!(scan_one(b"", &[], Some(&go(None))).is_empty());
    }

    #[test]
    fn library_names_alone() {
        let mut findings = Vec::new();
        soname_finding("libcrypto.so.3", None, &mut findings);
        soname_finding("libcrypto.so.3", None, &mut findings);
        soname_finding("libz.so.1", None, &mut findings);
        soname_finding(
            "libssl.so.3",
            Some(Path::new("/lib/libssl.so.3")),
            &mut findings,
        );
        soname_finding(
            "libgnutls.so.30",
            Some(Path::new("/lib/libgnutls.so.30")),
            &mut findings,
        );
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert_eq!(findings[0].name, "OpenSSL libcrypto");
        assert_eq!(findings[0].fips, FipsStatus::Unknown);
        assert_eq!(findings[0].file, "libcrypto.so.3");
        assert_eq!(findings[0].evidence, ["DT_NEEDED libcrypto.so.3"]);
        assert_eq!(findings[1].name, "GnuTLS");
        assert_eq!(findings[1].fips, FipsStatus::NotValidated);
        assert_eq!(findings[1].linkage, Linkage::Dynamic);
        assert_eq!(findings[1].file, "/lib/libgnutls.so.30");
    }
}
