//! A TLS 1.3 handshake with an RSA certificate between the unchanged `openssl s_server` and
//! `s_client`, each loading only `regula` and `base` under fips-140-3 (the README's
//! configuration), with the CBOM of each process: the server signs its CertificateVerify with
//! rsa_pss_rsae_sha256 through Regula, the client verifies it (and the chain) through Regula,
//! and neither counts an operation that is not approved. The certificate is made by the
//! system's OpenSSL with its default provider, the independent peer.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

mod common;

fn config(dir: &Path, cbom: &Path) -> String {
    format!(
        "openssl_conf = openssl_init\n\
         [openssl_init]\nproviders = provider_sect\nalg_section = algorithm_sect\n\
         [provider_sect]\nregula = regula_sect\nbase = base_sect\n\
         [regula_sect]\nmodule = {}\npolicy = fips-140-3\ncbom = {}\nactivate = 1\n\
         [base_sect]\nactivate = 1\n\
         [algorithm_sect]\ndefault_properties = fips=yes\n",
        dir.join("regula.so").display(),
        cbom.display()
    )
}

/// `(operations, not approved)` of a row's component in a CBOM, by service name.
fn counts(cbom: &Path, row: &str, service: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(cbom).unwrap_or_else(|e| panic!("{cbom:?}: {e}"));
    let document: serde_json::Value = serde_json::from_str(&text).expect("CBOM is JSON");
    let mut not_approved_anywhere = 0;
    let mut used = 0;
    for component in document["components"].as_array().into_iter().flatten() {
        let property = |name: &str| {
            component["properties"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|p| p["name"] == name)
                .and_then(|p| p["value"].as_str()?.parse::<u64>().ok())
                .unwrap_or(0)
        };
        not_approved_anywhere += property("regula:operations:not-approved");
        if component["bom-ref"] == format!("crypto/algorithm/{row}") {
            used = property(&format!("regula:operations:{service}"));
        }
    }
    (used, not_approved_anywhere)
}

#[test]
fn tls13_with_an_rsa_certificate_is_approved_under_fips_140_3() {
    if Command::new("openssl").arg("version").output().is_err() {
        panic!("the openssl program is needed (Debian package openssl)");
    }
    let dir = common::provider_dir("rsa-tls");
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .env_remove("OPENSSL_CONF")
        .output()
        .expect("openssl req");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let (server_cbom, client_cbom) = (dir.join("cbom-server.json"), dir.join("cbom-client.json"));
    for (role, cbom) in [("server", &server_cbom), ("client", &client_cbom)] {
        let _ = std::fs::remove_file(cbom);
        std::fs::write(dir.join(format!("{role}.cnf")), config(&dir, cbom)).unwrap();
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let mut server = Command::new("timeout")
        .args([
            "20", "openssl", "s_server", "-naccept", "1", "-tls1_3", "-www",
        ])
        .args(["-accept", &format!("127.0.0.1:{port}")])
        .arg("-cert")
        .arg(&cert)
        .arg("-key")
        .arg(&key)
        .env("OPENSSL_CONF", dir.join("server.cnf"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("openssl s_server");
    // s_server prints ACCEPT once it listens (a probe connection would use up -naccept 1).
    let mut server_out = std::io::BufReader::new(server.stdout.take().unwrap());
    let mut server_text = String::new();
    while !server_text.contains("ACCEPT") {
        let read = std::io::BufRead::read_line(&mut server_out, &mut server_text).unwrap();
        assert!(read > 0, "s_server ended before listening: {server_text}");
    }
    let mut client = Command::new("timeout")
        .args([
            "20",
            "openssl",
            "s_client",
            "-brief",
            "-tls1_3",
            "-ign_eof",
            "-verify_return_error",
        ])
        .args(["-connect", &format!("127.0.0.1:{port}")])
        .arg("-CAfile")
        .arg(&cert)
        .env("OPENSSL_CONF", dir.join("client.cnf"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("openssl s_client");
    client
        .stdin
        .take()
        .unwrap()
        .write_all(b"GET / HTTP/1.0\r\n\r\n")
        .unwrap();
    let client = client.wait_with_output().unwrap();
    std::io::Read::read_to_string(&mut server_out, &mut server_text).unwrap();
    let server = server.wait_with_output().unwrap();
    let client_err = String::from_utf8_lossy(&client.stderr);
    let context = format!(
        "client: {client_err}\nserver: {server_text}{}",
        String::from_utf8_lossy(&server.stderr)
    );
    assert!(
        client_err.contains("Protocol version: TLSv1.3"),
        "{context}"
    );
    assert!(client_err.contains("Signature type: RSA-PSS"), "{context}");
    assert!(client_err.contains("Verification: OK"), "{context}");
    assert!(
        String::from_utf8_lossy(&client.stdout).contains("HTTP/1.0 200 ok"),
        "{context}"
    );
    let (signed, server_flagged) = counts(&server_cbom, "rsa-pss-sha256", "sign");
    let (verified, client_flagged) = counts(&client_cbom, "rsa-pss-sha256", "verify");
    assert!(
        signed >= 1,
        "the server signed no rsa-pss-sha256: {context}"
    );
    assert!(
        verified >= 1,
        "the client verified no rsa-pss-sha256: {context}"
    );
    assert_eq!((server_flagged, client_flagged), (0, 0), "not approved");
}
