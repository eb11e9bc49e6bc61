//! `regula tls` against independent TLS stacks: the OpenSSL and GnuTLS command-line clients
//! connect to `regula tls serve`, and `regula tls connect` talks to `openssl s_server`. Needs
//! `openssl` and `gnutls-cli` (Debian `openssl`, `gnutls-bin`; scripts/setup-test installs them).

mod tls_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use tls_support::{Server, certgen, free_port, regula, text, with_stdin};

fn require(tool: &str) {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .or_else(|_| Command::new(tool).arg("version").output())
        .is_ok();
    assert!(
        found,
        "`{tool}` is needed for TLS interop tests: run scripts/setup-test"
    );
}

const REQUEST: &[u8] = b"GET / HTTP/1.0\r\n\r\n";

fn openssl_client(port: u16, ca: &Path, extra: &[&str]) -> String {
    let mut command = Command::new("timeout");
    command
        .args(["20", "openssl", "s_client", "-connect"])
        .arg(format!("127.0.0.1:{port}"))
        // -ign_eof: wait for the server's answer instead of closing at the end of stdin.
        .args(["-ign_eof", "-servername", "localhost", "-CAfile"])
        .arg(ca)
        .args(extra);
    text(&with_stdin(command, REQUEST))
}

fn gnutls_client(port: u16, ca: &Path, priority: &str) -> String {
    let mut command = Command::new("timeout");
    command
        .args(["20", "gnutls-cli", "--x509cafile"])
        .arg(ca)
        .args(["--priority", priority, "-p", &port.to_string(), "localhost"]);
    text(&with_stdin(command, REQUEST))
}

#[test]
fn openssl_and_gnutls_clients_connect_under_fips_and_default() {
    require("openssl");
    require("gnutls-cli");
    for policy in ["fips-140-3", "default"] {
        let (_dir, ca, cert, key) = certgen(policy);
        let server = Server::start(policy, &cert, &key, "--http");

        let tls13 = openssl_client(server.port, &ca, &["-tls1_3"]);
        assert!(tls13.contains("HTTP/1.1 200 OK"), "{policy}: {tls13}");
        assert!(
            tls13.contains("Verify return code: 0 (ok)"),
            "{policy}: {tls13}"
        );
        assert!(tls13.contains("TLSv1.3"), "{policy}: {tls13}");
        // The page speaks TLS names, not Rust's, and gives the indicator's verdict.
        assert!(tls13.contains("protocol: TLSv1.3\n"), "{policy}: {tls13}");
        assert!(
            tls13.contains("cipher suite: TLS_AES_256_GCM_SHA384\n"),
            "{policy}: {tls13}"
        );
        assert!(
            tls13.contains("service indicator: approved\n"),
            "{policy}: {tls13}"
        );
        assert!(!tls13.contains("Some("), "{policy}: {tls13}");

        let tls12 = openssl_client(server.port, &ca, &["-tls1_2"]);
        assert!(tls12.contains("HTTP/1.1 200 OK"), "{policy}: {tls12}");
        assert!(
            tls12.contains("Extended master secret: yes"),
            "{policy}: {tls12}"
        );

        let gnutls = gnutls_client(server.port, &ca, "NORMAL");
        assert!(gnutls.contains("HTTP/1.1 200 OK"), "{policy}: {gnutls}");
        assert!(gnutls.contains("(TLS1.3"), "{policy}: {gnutls}");

        let chacha = openssl_client(
            server.port,
            &ca,
            &["-tls1_3", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"],
        );
        match policy {
            "default" => assert!(chacha.contains("HTTP/1.1 200 OK"), "{chacha}"),
            _ => assert!(
                !chacha.contains("200 OK") && chacha.contains("alert"),
                "{chacha}"
            ),
        }

        let (status, log) = server.stop();
        assert_eq!(status, 0, "{log}");
        assert!(log.contains("summary:"), "{log}");
        assert!(
            log.contains("handshake: TLSv1.3 TLS_AES_256_GCM_SHA384 "),
            "{log}"
        );
        assert!(log.contains("handshake: TLSv1.2 TLS_ECDHE_"), "{log}");
        assert!(!log.contains("Some("), "{log}");
        if policy == "fips-140-3" {
            assert!(
                log.contains("handshake failed") && log.contains("does not meet the policy"),
                "the refused ChaCha20 client is logged with a reason: {log}"
            );
        }
        // The service indicator saw the sessions, all approved under the policy.
        assert!(log.contains(", 0 not approved"), "{log}");
    }
}

/// `openssl s_server` for one connection, ready once it printed ACCEPT. Its stdin stays open
/// (it closes the connection at end of stdin); what it received is in its stdout.
struct PeerServer {
    child: Child,
    port: u16,
    _stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl PeerServer {
    fn start(cert: &Path, key: &Path, extra: &[&str]) -> PeerServer {
        let port = free_port();
        let mut child = Command::new("openssl")
            .args(["s_server", "-naccept", "1", "-accept", &port.to_string()])
            .arg("-cert")
            .arg(cert)
            .arg("-key")
            .arg(key)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.starts_with("ACCEPT") {
            line.clear();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "openssl s_server exited before accepting"
            );
        }
        PeerServer {
            child,
            port,
            _stdin: stdin,
            stdout,
        }
    }

    /// Everything s_server printed after ACCEPT.
    fn finish(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut self.stdout, &mut rest);
        rest
    }
}

fn regula_connect(port: u16, ca: &Path, stdin: &[u8]) -> Output {
    let mut connect = regula(&[
        "tls",
        "connect",
        &format!("127.0.0.1:{port}"),
        "--policy",
        "fips-140-3",
        "--ca",
    ]);
    connect.arg(ca);
    with_stdin(connect, stdin)
}

#[test]
fn regula_connect_talks_to_openssl_s_server() {
    require("openssl");
    let (_dir, ca, cert, key) = certgen("fips-140-3");
    let server = PeerServer::start(&cert, &key, &[]);
    let output = regula_connect(server.port, &ca, b"hello from regula\n");
    let received = server.finish();
    let report = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{report}");
    assert!(report.contains("protocol: TLSv1.3"), "{report}");
    assert!(
        report.contains("cipher suite: TLS_AES_256_GCM_SHA384"),
        "{report}"
    );
    assert!(
        report.contains("signature scheme: ecdsa_nistp256_sha256"),
        "{report}"
    );
    assert!(report.contains("group: "), "{report}");
    assert!(
        received.contains("hello from regula"),
        "s_server received: {received}"
    );
}

#[test]
fn a_fips_client_refuses_a_chacha20_only_server_with_a_clear_error() {
    require("openssl");
    let (_dir, ca, cert, key) = certgen("default");
    let server = PeerServer::start(
        &cert,
        &key,
        &["-tls1_3", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"],
    );
    let output = regula_connect(server.port, &ca, b"x");
    server.finish();
    assert_eq!(output.status.code(), Some(1));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("handshake refused") && message.contains("fips-140-3"),
        "{message}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn tls_commands_refuse_in_the_error_state() {
    // A break switch naming no self-test puts the module in its error state at load (a broken
    // CAST fails at the first use of its algorithm instead, which `tls show` does not make).
    let output = regula(&["tls", "show", "--policy", "fips-140-3"])
        .env("REGULA_BREAK_SELFTEST", "NO-SUCH-SELF-TEST")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn mutual_tls_with_openssl_clients_under_fips() {
    require("openssl");
    let (dir, ca, cert, key) = certgen("fips-140-3");
    let (other_dir, _, _, _) = certgen("fips-140-3");
    let ca_arg = ca.display().to_string();
    let server = Server::start_with(
        "fips-140-3",
        &cert,
        &key,
        &["--http", "--client-ca", &ca_arg],
    );
    let client_cert = dir.path().join("client.pem").display().to_string();
    let client_key = dir.path().join("client.key").display().to_string();
    let with_cert = openssl_client(
        server.port,
        &ca,
        &["-cert", &client_cert, "-key", &client_key],
    );
    assert!(with_cert.contains("HTTP/1.1 200 OK"), "{with_cert}");
    assert!(
        with_cert.contains("Verify return code: 0 (ok)"),
        "{with_cert}"
    );

    let without_cert = openssl_client(server.port, &ca, &[]);
    assert!(!without_cert.contains("200 OK"), "{without_cert}");
    assert!(
        without_cert.contains("certificate required"),
        "{without_cert}"
    );

    let foreign_cert = other_dir.path().join("client.pem").display().to_string();
    let foreign_key = other_dir.path().join("client.key").display().to_string();
    let foreign = openssl_client(
        server.port,
        &ca,
        &["-cert", &foreign_cert, "-key", &foreign_key],
    );
    assert!(!foreign.contains("200 OK"), "{foreign}");
    // Both test CAs bear the same name, so the chain is built and its signature fails.
    assert!(
        foreign.contains("alert unknown ca") || foreign.contains("alert decrypt error"),
        "{foreign}"
    );

    // `regula tls connect --cert --key` is let in; without them it is refused.
    let connect = |extra: &[&str]| {
        let mut command = regula(&["tls", "connect", "--policy", "fips-140-3", "--ca", &ca_arg]);
        command
            .arg(format!("127.0.0.1:{}", server.port))
            .args(extra);
        with_stdin(command, REQUEST)
    };
    let ours = connect(&["--cert", &client_cert, "--key", &client_key]);
    assert!(ours.status.success(), "{}", text(&ours));
    assert!(text(&ours).contains("200 OK"), "{}", text(&ours));
    let ours_without = connect(&[]);
    assert!(
        !text(&ours_without).contains("200 OK"),
        "{}",
        text(&ours_without)
    );

    let (status, log) = server.stop();
    assert_eq!(status, 0, "{log}");
    assert!(log.contains("2 handshakes"), "{log}");
}
