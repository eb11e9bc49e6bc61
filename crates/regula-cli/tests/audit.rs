//! `regula audit` on real binaries built or installed here: Go programs with and without the
//! certified FIPS snapshot, the regula binary under test (and the FIPS build when
//! REGULA_FIPS_BIN names it), OpenSSL, GnuTLS and curl from Debian, and stripped static
//! binaries. Where possible the expectations are checked against independent tools (`go version
//! -m`, `openssl version`, `ldd`) rather than written down.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

fn audit(args: &[&Path]) -> Output {
    Command::new(REGULA)
        .arg("audit")
        .args(args)
        .output()
        .expect("regula runs")
}

fn audit_json(path: &Path) -> (i32, Value) {
    let output = Command::new(REGULA)
        .args(["audit", "--json"])
        .arg(path)
        .output()
        .expect("regula runs");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "--json output parses ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    let report = json["binaries"][0].clone();
    assert_eq!(report["path"], path.display().to_string());
    (output.status.code().expect("exit code"), report)
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The verdict line of a one-binary text report.
fn verdict_line(path: &Path) -> (i32, String) {
    let output = audit(&[path]);
    let out = text(&output);
    let line = out
        .lines()
        .find(|l| l.starts_with("validated FIPS module linked: "))
        .unwrap_or_else(|| panic!("no verdict line in:\n{out}"))
        .to_string();
    println!("{}\n  {line}", path.display());
    (output.status.code().expect("exit code"), line)
}

fn module<'a>(report: &'a Value, name: &str) -> Option<&'a Value> {
    report["modules"]
        .as_array()
        .expect("modules")
        .iter()
        .find(|m| m["name"] == name)
}

fn run_ok(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Builds a stdlib-only Go program that hashes with crypto/sha256, with `GOFIPS140` as given.
fn go_program(dir: &Path, name: &str, gofips140: Option<&str>, ldflags: &str) -> PathBuf {
    std::fs::write(
        dir.join("main.go"),
        "package main\n\nimport (\n\t\"crypto/sha256\"\n\t\"fmt\"\n)\n\nfunc main() { fmt.Printf(\"%x\\n\", sha256.Sum256([]byte(\"abc\"))) }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("go.mod"),
        "module example.com/fipsprobe\n\ngo 1.24\n",
    )
    .unwrap();
    let out = dir.join(name);
    let mut command = Command::new("go");
    command
        .current_dir(dir)
        .args(["build", "-trimpath", "-ldflags", ldflags, "-o"])
        .arg(&out)
        .arg(".")
        .env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "")
        .env_remove("GOFIPS140");
    if let Some(value) = gofips140 {
        command.env("GOFIPS140", value);
    }
    run_ok(&mut command);
    out
}

/// `go version -m`'s `build GOFIPS140=…` line: the independent reading of the build info.
fn go_version_m_setting(binary: &Path, key: &str) -> Option<String> {
    let out = run_ok(Command::new("go").arg("version").arg("-m").arg(binary));
    out.lines().find_map(|line| {
        let setting = line.trim().strip_prefix("build")?.trim();
        setting.strip_prefix(&format!("{key}=")).map(str::to_string)
    })
}

#[test]
fn go_programs_with_and_without_the_certified_fips_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let fips = go_program(dir.path(), "fips", Some("v1.0.0"), "");
    let fips_stripped = go_program(dir.path(), "fips-stripped", Some("v1.0.0"), "-s -w");
    let latest = go_program(dir.path(), "latest", Some("latest"), "");
    let plain = go_program(dir.path(), "plain", None, "");

    // GOFIPS140=v1.0.0 selects the certified snapshot; -s -w strips symbols, not the build info.
    for binary in [&fips, &fips_stripped] {
        let setting = go_version_m_setting(binary, "GOFIPS140").expect("go version -m shows it");
        let (code, report) = audit_json(binary);
        assert_eq!(code, 0, "{report:#}");
        assert_eq!(report["verdict"], "yes");
        assert_eq!(report["go"]["settings"]["GOFIPS140"], setting.as_str());
        let go = module(&report, "Go FIPS 140-3 module").expect("Go's module found");
        assert_eq!(go["fips"], "validated");
        assert_eq!(go["version"], setting.as_str());
        assert!(setting.starts_with("v1.0.0-"), "{setting}");
        let (_, line) = verdict_line(binary);
        assert!(
            line.starts_with("validated FIPS module linked: yes — Go FIPS 140-3 module v1.0.0-")
        );
    }
    assert_eq!(
        audit_json(&fips_stripped).1["stripped"],
        true,
        "-s drops the symbol table"
    );

    // GOFIPS140=latest turns FIPS mode on but uses the in-tree, unvalidated source.
    assert_eq!(
        go_version_m_setting(&latest, "GOFIPS140").as_deref(),
        Some("latest")
    );
    let (code, report) = audit_json(&latest);
    assert_eq!(
        (code, &report["verdict"]),
        (3, &Value::from("no")),
        "{report:#}"
    );
    let go = module(&report, "Go FIPS 140-3 module").unwrap();
    assert_eq!(go["fips"], "not-validated");
    assert!(
        go["detail"]
            .as_str()
            .unwrap()
            .contains("FIPS mode on by default")
    );

    // No GOFIPS140: Go's crypto is there, the validated snapshot is not.
    assert_eq!(go_version_m_setting(&plain, "GOFIPS140"), None);
    let (code, report) = audit_json(&plain);
    assert_eq!(
        (code, &report["verdict"]),
        (3, &Value::from("no")),
        "{report:#}"
    );
    assert_eq!(
        module(&report, "Go FIPS 140-3 module").unwrap()["fips"],
        "not-validated"
    );
    let (_, line) = verdict_line(&plain);
    assert!(
        line.starts_with("validated FIPS module linked: no — "),
        "{line}"
    );

    // The worst binary decides the exit code.
    assert_eq!(audit(&[&fips, &plain]).status.code(), Some(3));
}

/// Regula's cryptography and nothing else: `expected` (AWS-LC, FIPS or not) and the RustCrypto
/// SM crates, both linked into the binary itself; no module found in another file, such as a
/// libcrypto the benchmark's peer once pulled in.
fn assert_only_regulas_own_crypto(report: &Value, path: &Path, expected: &str) {
    let modules: Vec<(&str, &str)> = report["modules"]
        .as_array()
        .expect("modules")
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["file"].as_str().unwrap()))
        .collect();
    let path = path.display().to_string();
    let mut names: Vec<&str> = modules.iter().map(|(name, _)| *name).collect();
    names.sort_unstable();
    let mut want = vec![expected, "RustCrypto"];
    want.sort_unstable();
    assert_eq!(names, want, "{report:#}");
    assert!(
        modules.iter().all(|(_, file)| *file == path),
        "a module outside {path}: {modules:?}"
    );
    let needed: Vec<&str> = report["needed"]
        .as_array()
        .expect("needed")
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        !needed
            .iter()
            .any(|n| n.starts_with("libcrypto.so") || n.starts_with("libssl.so")),
        "{needed:?}"
    );
}

#[test]
fn the_regula_binary_under_test_reports_its_own_build() {
    let fips_build = cfg!(feature = "fips");
    let (code, report) = audit_json(Path::new(REGULA));
    // Independent of the record: the build's own `regula info`.
    let info = run_ok(Command::new(REGULA).arg("info"));
    assert_eq!(
        info.contains("FIPS module linked: yes"),
        fips_build,
        "{info}"
    );
    assert_eq!(report["regula"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(report["regula"]["fips"], fips_build);
    // What the binary says of itself at run time is what audit read from its bytes.
    let info_json: Value =
        serde_json::from_str(&run_ok(Command::new(REGULA).args(["info", "--json"]))).unwrap();
    assert_eq!(info_json["identity"], report["regula"]);
    if fips_build {
        assert_eq!(
            (code, &report["verdict"]),
            (0, &Value::from("yes")),
            "{report:#}"
        );
        assert_eq!(module(&report, "AWS-LC FIPS").unwrap()["fips"], "validated");
    } else {
        assert_eq!(
            (code, &report["verdict"]),
            (3, &Value::from("no")),
            "{report:#}"
        );
        let awslc = module(&report, "AWS-LC").expect("AWS-LC found");
        assert_eq!(awslc["fips"], "not-validated");
        assert_eq!(awslc["linkage"], "static");
        assert!(module(&report, "AWS-LC FIPS").is_none());
    }
    let name = if fips_build { "AWS-LC FIPS" } else { "AWS-LC" };
    assert_only_regulas_own_crypto(&report, Path::new(REGULA), name);
    // The AWS-LC version the binary reports about itself.
    let backend = info
        .lines()
        .find_map(|l| l.strip_prefix("backend: "))
        .expect("backend line");
    let version = module(&report, name).unwrap()["version"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(backend, format!("{name} {version}"));
    // SM2/SM3 come from RustCrypto crates, which audit names too.
    assert_eq!(
        module(&report, "RustCrypto").unwrap()["fips"],
        "not-validated"
    );
    verdict_line(Path::new(REGULA));
}

#[test]
fn the_fips_build_of_regula_links_the_validated_module() {
    let Some(path) = std::env::var_os("REGULA_FIPS_BIN") else {
        eprintln!("REGULA_FIPS_BIN unset: the FIPS build is checked in scripts/test's FIPS step");
        return;
    };
    let path = PathBuf::from(path);
    let (code, report) = audit_json(&path);
    assert_eq!(
        (code, &report["verdict"]),
        (0, &Value::from("yes")),
        "{report:#}"
    );
    assert_eq!(report["regula"]["fips"], true);
    assert_eq!(report["regula"]["module"], "aws-lc-fips-sys");
    let awslc = module(&report, "AWS-LC FIPS").expect("the FIPS module found");
    assert_eq!(awslc["fips"], "validated");
    // The validated module alone: no second cryptographic library beside it, and the verdict
    // names nothing else present.
    assert_only_regulas_own_crypto(&report, &path, "AWS-LC FIPS");
    let reason = report["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("AWS-LC FIPS ") && !reason.contains("OpenSSL"),
        "{reason}"
    );
    let info = run_ok(Command::new(&path).arg("info"));
    assert!(
        info.contains(&format!(
            "backend: AWS-LC FIPS {}",
            awslc["version"].as_str().unwrap()
        )),
        "{info}"
    );
    verdict_line(&path);
}

#[test]
fn a_stripped_rust_binary_keeps_the_identity_record() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("regula-stripped");
    run_ok(Command::new("strip").arg("-o").arg(&copy).arg(REGULA));
    let (_, report) = audit_json(&copy);
    assert_eq!(report["stripped"], true);
    assert_eq!(report["regula"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(report["regula"]["fips"], cfg!(feature = "fips"));
    let name = if cfg!(feature = "fips") {
        "AWS-LC FIPS"
    } else {
        "AWS-LC"
    };
    assert!(
        module(&report, name).unwrap()["version"].is_string(),
        "{report:#}"
    );
}

/// `ldd`'s resolution of every library a binary loads: name → canonical path.
fn ldd(binary: &Path) -> Vec<(String, PathBuf)> {
    let out = run_ok(Command::new("ldd").arg(binary));
    let mut libraries: Vec<(String, PathBuf)> = out
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.trim().split_once(" => ")?;
            let path = rest.split(" (").next()?;
            Some((name.to_string(), std::fs::canonicalize(path).ok()?))
        })
        .collect();
    libraries.sort();
    libraries
}

fn loads(report: &Value) -> Vec<(String, PathBuf)> {
    let mut libraries: Vec<(String, PathBuf)> = report["loads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let path = l["path"]
                .as_str()
                .unwrap_or_else(|| panic!("{l} not found"));
            (
                l["name"].as_str().unwrap().to_string(),
                std::fs::canonicalize(path).unwrap(),
            )
        })
        .filter(|(name, _)| !name.starts_with("ld-linux"))
        .collect();
    libraries.sort();
    libraries
}

#[test]
fn debian_openssl_gnutls_and_curl_load_no_validated_module() {
    let openssl = Path::new("/usr/bin/openssl");
    let (code, report) = audit_json(openssl);
    assert_eq!(
        (code, &report["verdict"]),
        (3, &Value::from("no")),
        "{report:#}"
    );
    let libcrypto = module(&report, "OpenSSL libcrypto").expect("libcrypto found");
    assert_eq!(libcrypto["linkage"], "dynamic");
    assert_eq!(libcrypto["fips"], "not-validated");
    // `openssl version` prints the library's version text: "OpenSSL 3.0.19 27 Jan 2026 (…)".
    let version = run_ok(Command::new(openssl).arg("version"));
    let library_version = version.split(' ').nth(1).unwrap();
    assert_eq!(libcrypto["version"], library_version);
    assert_eq!(loads(&report), ldd(openssl));
    verdict_line(openssl);

    let gnutls_cli = which("gnutls-cli");
    let (code, report) = audit_json(&gnutls_cli);
    assert_eq!(
        (code, &report["verdict"]),
        (3, &Value::from("no")),
        "{report:#}"
    );
    let gnutls = module(&report, "GnuTLS").expect("GnuTLS found");
    assert!(gnutls["file"].as_str().unwrap().contains("libgnutls.so"));
    assert_eq!(gnutls["fips"], "not-validated");
    assert!(module(&report, "Nettle").is_some());
    assert_eq!(loads(&report), ldd(&gnutls_cli));
    verdict_line(&gnutls_cli);

    // curl → libcurl → libssl/libcrypto, and through librtmp/libldap, GnuTLS.
    let curl = which("curl");
    let (code, report) = audit_json(&curl);
    assert_eq!(
        (code, &report["verdict"]),
        (3, &Value::from("no")),
        "{report:#}"
    );
    let loaded = report["loads"].as_array().unwrap();
    let by = |name: &str| {
        loaded
            .iter()
            .find(|l| l["name"].as_str().unwrap().starts_with(name))
            .unwrap_or_else(|| panic!("{name} not loaded: {report:#}"))
    };
    assert_eq!(by("libcurl.so")["needed_by"], "curl");
    assert!(
        by("libssl.so")["needed_by"]
            .as_str()
            .unwrap()
            .starts_with("libcurl")
    );
    assert!(module(&report, "OpenSSL libcrypto").is_some());
    assert_eq!(loads(&report), ldd(&curl));
    verdict_line(&curl);
}

fn which(name: &str) -> PathBuf {
    let out = run_ok(
        Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {name}")),
    );
    PathBuf::from(out.trim())
}

#[test]
fn a_stripped_static_binary_is_unknown_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("hello.c");
    std::fs::write(
        &source,
        "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n",
    )
    .unwrap();
    let binary = dir.path().join("hello");
    run_ok(
        Command::new("cc")
            .args(["-static", "-O2", "-o"])
            .arg(&binary)
            .arg(&source),
    );
    // With its symbol table the absence of crypto is visible: no.
    let (code, report) = audit_json(&binary);
    assert_eq!(
        (code, &report["verdict"]),
        (3, &Value::from("no")),
        "{report:#}"
    );
    assert_eq!(report["linking"], "static");
    // Stripped, nothing is left to tell: unknown, exit 5, and the reason says so.
    let stripped = dir.path().join("hello-stripped");
    run_ok(Command::new("strip").arg("-o").arg(&stripped).arg(&binary));
    let (code, report) = audit_json(&stripped);
    assert_eq!(
        (code, &report["verdict"]),
        (5, &Value::from("unknown")),
        "{report:#}"
    );
    assert_eq!(report["stripped"], true);
    assert!(report["modules"].as_array().unwrap().is_empty());
    let (_, line) = verdict_line(&stripped);
    assert!(
        line.starts_with("validated FIPS module linked: unknown — stripped static binary"),
        "{line}"
    );
    // "no" outranks "unknown" in the exit code.
    assert_eq!(audit(&[&stripped, &binary]).status.code(), Some(3));
}

#[test]
fn non_elf_and_missing_files_are_input_errors() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.sh");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    let output = audit(&[&script]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output).contains("not an ELF file"),
        "{}",
        text(&output)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("could not be read as ELF"));
    let (code, report) = audit_json(&script);
    assert_eq!((code, &report["verdict"]), (2, &Value::from("error")));
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains("not an ELF file")
    );

    let missing = dir.path().join("missing");
    let output = audit(&[&missing]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output).contains("cannot read"), "{}", text(&output));

    // An unreadable file outranks every verdict: the audit is incomplete.
    assert_eq!(audit(&[Path::new(REGULA), &script]).status.code(), Some(2));
    // And no file at all is a usage error.
    let output = Command::new(REGULA).arg("audit").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn help_documents_the_exit_codes_and_json_shape() {
    let help = run_ok(Command::new(REGULA).args(["audit", "--help"]));
    for needle in [
        "2  a file could not be read or is not ELF",
        "3  a binary links or loads no validated FIPS module",
        "5  no evidence either way",
        "0  every binary links or loads a validated FIPS module",
        "--json prints {\"binaries\"",
    ] {
        assert!(help.contains(needle), "{needle} missing from:\n{help}");
    }
    let top = run_ok(Command::new(REGULA).arg("--help"));
    assert!(top.contains("5  undetermined (regula audit"), "{top}");
}
