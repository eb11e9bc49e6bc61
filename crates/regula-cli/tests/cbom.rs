//! The runtime CBOM (`--cbom FILE`): every document is validated against the official
//! CycloneDX 1.6 JSON schema by an independent validator (`scripts/cbom-validator`: PyPI's
//! cyclonedx-python-lib with the published bom-1.6, spdx and jsf schemas, checked by
//! `jsonschema`), and lists exactly the algorithms the service indicator counted. A TLS
//! session under fips-140-3 also shows NIST IR 8547's dates for its certificate's signature
//! algorithm: RSA-2048 deprecated after 2030 and disallowed after 2035, ECDSA P-256
//! disallowed after 2035.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

/// The schema validator (built once into ~/.cache/regula by the script).
fn validator() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/cbom-validator");
        let output = Command::new(&script)
            .stderr(Stdio::inherit())
            .output()
            .expect("scripts/cbom-validator runs");
        assert!(output.status.success(), "scripts/cbom-validator failed");
        PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
    })
}

/// Runs the independent validator on a file: `Ok` with its line, or `Err` with its complaint.
fn validate(path: &Path) -> Result<String, String> {
    let output = Command::new(validator()).arg(path).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() {
        Ok(text)
    } else {
        Err(format!("{text}{}", String::from_utf8_lossy(&output.stderr)))
    }
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(REGULA)
        .args(args)
        .env_remove("REGULA_BREAK_SELFTEST")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn load(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn property<'a>(item: &'a Value, name: &str) -> Vec<&'a str> {
    item["properties"]
        .as_array()
        .map(|properties| {
            properties
                .iter()
                .filter(|property| property["name"] == name)
                .map(|property| property["value"].as_str().unwrap())
                .collect()
        })
        .unwrap_or_default()
}

fn component<'a>(cbom: &'a Value, algorithm: &str) -> &'a Value {
    cbom["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|component| component["bom-ref"] == format!("crypto/algorithm/{algorithm}"))
        .unwrap_or_else(|| panic!("no component for {algorithm}: {cbom:#}"))
}

/// Algorithm name → operations, from the components.
fn listed(cbom: &Value) -> BTreeSet<(String, u64)> {
    cbom["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|component| {
            assert_eq!(component["type"], "cryptographic-asset");
            assert_eq!(component["cryptoProperties"]["assetType"], "algorithm");
            let name = component["bom-ref"]
                .as_str()
                .unwrap()
                .trim_start_matches("crypto/algorithm/")
                .to_string();
            let operations = property(component, "regula:operations")[0].parse().unwrap();
            (name, operations)
        })
        .collect()
}

/// CLI commands under two policies: a valid document whose components are exactly the
/// algorithms of the indicator lines the command printed, with their operation counts.
#[test]
fn cli_commands_write_valid_cboms_of_what_they_used() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key.pem");
    let cases: Vec<(Vec<String>, &[u8])> = vec![
        (
            ["dgst", "-a", "sha256", "--policy", "fips-140-3"]
                .map(String::from)
                .to_vec(),
            b"abc",
        ),
        (
            ["dgst", "-a", "md5", "--policy", "default"]
                .map(String::from)
                .to_vec(),
            b"abc",
        ),
        (
            [
                "keygen",
                "-a",
                "ecdsa-p384",
                "--policy",
                "cnsa-2.0",
                "--out",
                key.to_str().unwrap(),
            ]
            .map(String::from)
            .to_vec(),
            b"",
        ),
        (
            [
                "sign",
                "-a",
                "ecdsa-p384",
                "--policy",
                "cnsa-2.0",
                "--key",
                key.to_str().unwrap(),
            ]
            .map(String::from)
            .to_vec(),
            b"message",
        ),
    ];
    for (index, (args, stdin)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("cbom-{index}.json"));
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend(["--indicator", "--cbom", path.to_str().unwrap()]);
        let output = run(&args, stdin);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report = validate(&path).unwrap_or_else(|error| panic!("{args:?}: {error}"));
        assert!(report.contains("valid CycloneDX 1.6"), "{report}");

        // The indicator lines (one JSON object per operation) against the components.
        let mut counted: std::collections::BTreeMap<String, u64> = Default::default();
        let mut approved = true;
        for line in String::from_utf8_lossy(&output.stderr).lines() {
            if let Ok(indicator) = serde_json::from_str::<Value>(line)
                && let Some(algorithm) = indicator["algorithm"].as_str()
            {
                *counted.entry(algorithm.to_string()).or_default() += 1;
                approved &= indicator["approval"] == "approved";
            }
        }
        assert!(!counted.is_empty(), "{args:?}: no indicator line");
        let cbom = load(&path);
        let expected: BTreeSet<(String, u64)> = counted.into_iter().collect();
        assert_eq!(listed(&cbom), expected, "{args:?}");
        assert_eq!(cbom["specVersion"], "1.6");
        assert_eq!(
            property(&cbom["metadata"], "regula:policy"),
            [args[args.iter().position(|&arg| arg == "--policy").unwrap() + 1]]
        );
        for component in cbom["components"].as_array().unwrap() {
            let flag = if approved { "true" } else { "false" };
            assert_eq!(property(component, "regula:approved"), [flag], "{args:?}");
        }
    }
    // MD5 under default: served, flagged not approved, listed as such.
    let md5 = load(&dir.path().join("cbom-1.json"));
    let md5 = component(&md5, "md5");
    assert_eq!(property(md5, "regula:approved"), ["false"]);
    assert_eq!(property(md5, "regula:status"), ["not-approved"]);
    assert_eq!(md5["cryptoProperties"]["oid"], "1.2.840.113549.2.5");
    // CNSA's P-384 signature: transitional, with CNSA 2.0's dates.
    let signed = load(&dir.path().join("cbom-3.json"));
    let p384 = component(&signed, "ecdsa-p384");
    assert_eq!(
        p384["cryptoProperties"]["algorithmProperties"]["curve"],
        "nist/P-384"
    );
    assert_eq!(property(p384, "regula:disallowed-from"), ["2034-01-01"]);
    assert!(
        property(p384, "regula:transition")
            .iter()
            .any(|text| text.contains("CNSA 2.0"))
    );
}

/// The validator is not a rubber stamp: a document with one field outside the schema fails.
#[test]
fn the_validator_rejects_a_document_outside_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cbom.json");
    let output = run(
        &["dgst", "-a", "sha384", "--cbom", path.to_str().unwrap()],
        b"abc",
    );
    assert!(output.status.success());
    validate(&path).unwrap();
    let mut cbom = load(&path);
    cbom["components"][0]["cryptoProperties"]["algorithmProperties"]["primitive"] =
        Value::from("sponge-of-wonder");
    std::fs::write(&path, serde_json::to_vec(&cbom).unwrap()).unwrap();
    let error = validate(&path).unwrap_err();
    assert!(error.contains("sponge-of-wonder"), "{error}");
}

struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(policy: &str, cert: &Path, key: &Path, cbom: &Path) -> Server {
        let mut child = Command::new(REGULA)
            .args([
                "tls", "serve", "--policy", policy, "--http", "--quiet", "--json",
            ])
            .args(["--listen", "127.0.0.1:0", "--cert"])
            .arg(cert)
            .arg("--key")
            .arg(key)
            .arg("--cbom")
            .arg(cbom)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let address = line
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("no listening line: {line:?}"))
            .trim()
            .to_string();
        Server { child, address }
    }

    /// SIGTERM, then the shutdown summary's JSON line (with the indicator's counts).
    fn stop(mut self) -> Value {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert!(self.child.wait().unwrap().success(), "{stderr}");
        assert!(stderr.contains("runtime CBOM written to"), "{stderr}");
        stderr
            .lines()
            .find_map(|line| {
                serde_json::from_str::<Value>(line)
                    .ok()
                    .filter(|value| value.get("indicator").is_some())
            })
            .unwrap_or_else(|| panic!("no JSON summary: {stderr}"))
    }
}

/// One HTTP request over TLS 1.3 with the OpenSSL CLI (an independent client).
fn openssl_request(address: &str, ca: &Path) {
    let mut child = Command::new("openssl")
        .args([
            "s_client",
            "-connect",
            address,
            "-tls1_3",
            "-servername",
            "localhost",
        ])
        .arg("-CAfile")
        .arg(ca)
        .args(["-quiet", "-verify_return_error"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("openssl runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"GET / HTTP/1.0\r\n\r\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let page = String::from_utf8_lossy(&output.stdout);
    assert!(
        page.contains("200"),
        "{page}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The CBOM of a TLS server under fips-140-3 lists exactly what its indicator counted, all
/// approved, and the dates at which its certificate's signature algorithm loses approval.
fn tls_session_cbom(cert: &Path, key: &Path, ca: &Path, dir: &Path) -> Value {
    let path = dir.join("tls-cbom.json");
    let server = Server::start("fips-140-3", cert, key, &path);
    openssl_request(&server.address, ca);
    std::thread::sleep(Duration::from_millis(200));
    let summary = server.stop();
    validate(&path).unwrap_or_else(|error| panic!("{error}"));
    let cbom = load(&path);
    let mut counted: std::collections::BTreeMap<String, u64> = Default::default();
    for row in summary["indicator"].as_array().unwrap() {
        assert_eq!(row["not_approved"], 0, "{row}");
        *counted
            .entry(row["algorithm"].as_str().unwrap().to_string())
            .or_default() += row["approved"].as_u64().unwrap();
    }
    assert_eq!(listed(&cbom), counted.into_iter().collect::<BTreeSet<_>>());
    // Every algorithm of the session is AWS-LC's: the validated module in the FIPS build.
    let level = if cfg!(feature = "fips") {
        "fips140-3-l1"
    } else {
        "none"
    };
    for component in cbom["components"].as_array().unwrap() {
        assert_eq!(property(component, "regula:approved"), ["true"]);
        assert_eq!(property(component, "regula:policy"), ["fips-140-3"]);
        assert_eq!(
            component["cryptoProperties"]["algorithmProperties"]["certificationLevel"],
            serde_json::json!([level]),
            "{component}"
        );
    }
    cbom
}

#[test]
fn tls_session_with_an_rsa_2048_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("rsa.pem"), dir.path().join("rsa.key"));
    // An RSA-2048 certificate from the OpenSSL CLI.
    let status = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let cbom = tls_session_cbom(&cert, &key, &cert, dir.path());
    // TLS 1.3 signs with RSA-PSS (the hash the server prefers); NIST IR 8547: 112-bit RSA
    // deprecated after 2030, all RSA disallowed after 2035.
    let signatures: Vec<&Value> = cbom["components"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|component| {
            component["cryptoProperties"]["algorithmProperties"]["primitive"] == "signature"
        })
        .collect();
    assert_eq!(signatures.len(), 1, "{signatures:?}");
    let rsa = signatures[0];
    assert!(
        rsa["name"].as_str().unwrap().starts_with("RSA-PSS-"),
        "{rsa}"
    );
    assert_eq!(rsa["cryptoProperties"]["oid"], "1.2.840.113549.1.1.10");
    assert_eq!(property(rsa, "regula:key-bits"), ["2048"]);
    assert_eq!(
        rsa["cryptoProperties"]["algorithmProperties"]["parameterSetIdentifier"],
        "2048"
    );
    assert_eq!(property(rsa, "regula:deprecated-from"), ["2031-01-01"]);
    assert_eq!(property(rsa, "regula:disallowed-from"), ["2036-01-01"]);
    let transitions = property(rsa, "regula:transition");
    assert_eq!(transitions.len(), 2, "{transitions:?}");
    assert!(transitions.iter().all(|text| text.contains("NIST IR 8547")));
    assert_eq!(
        rsa["cryptoProperties"]["algorithmProperties"]["cryptoFunctions"],
        serde_json::json!(["sign"])
    );
    // AES-256-GCM records have no dated end.
    let aes = component(&cbom, "aes-256-gcm");
    assert!(property(aes, "regula:disallowed-from").is_empty());
    assert_eq!(aes["cryptoProperties"]["oid"], "2.16.840.1.101.3.4.1.46");
}

#[test]
fn tls_session_with_an_ecdsa_p256_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let certs = dir.path().join("certs");
    let output = run(
        &[
            "tls",
            "certgen",
            "--policy",
            "fips-140-3",
            "--out",
            certs.to_str().unwrap(),
        ],
        b"",
    );
    assert!(output.status.success());
    let cbom = tls_session_cbom(
        &certs.join("server.pem"),
        &certs.join("server.key"),
        &certs.join("ca.pem"),
        dir.path(),
    );
    // NIST IR 8547: ECDSA at 128 bits of security disallowed after 2035, not deprecated first.
    let ecdsa = component(&cbom, "ecdsa-p256");
    assert_eq!(property(ecdsa, "regula:disallowed-from"), ["2036-01-01"]);
    assert!(property(ecdsa, "regula:deprecated-from").is_empty());
    assert!(property(ecdsa, "regula:transition")[0].contains("NIST IR 8547"));
    assert_eq!(
        ecdsa["cryptoProperties"]["algorithmProperties"]["curve"],
        "nist/P-256"
    );
}
