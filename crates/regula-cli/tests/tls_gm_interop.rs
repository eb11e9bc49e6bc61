//! RFC 8998 TLS 1.3 against Tongsuo 8.5, the independent peer that speaks it: Tongsuo's
//! s_client against `regula tls serve --policy gm` and `regula tls connect --policy gm` against
//! Tongsuo's s_server, for TLS_SM4_GCM_SM3 and TLS_SM4_CCM_SM3, with curveSM2 and sm2sig_sm3 and
//! an SM2 certificate chain issued by `regula tls certgen --policy gm`. `scripts/tongsuo`
//! builds Tongsuo once (a few minutes) into a cache outside the repository.

mod tls_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tls_support::{Server, certgen, free_port, regula, text, with_stdin};

const SUITES: [&str; 2] = ["TLS_SM4_GCM_SM3", "TLS_SM4_CCM_SM3"];

fn tongsuo() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/tongsuo");
        let output = Command::new("bash").arg(script).output().unwrap();
        assert!(
            output.status.success(),
            "scripts/tongsuo failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
    })
}

/// Tongsuo's s_client sending `stdin`. With `-ign_eof` it would wait for a close the echo
/// server never sends first, so it is stopped as soon as the echo of `stdin` has come back (or
/// it has exited on its own, as a refused client does), at most 20 s.
fn tongsuo_client(port: u16, ca: &Path, extra: &[&str], stdin: &[u8]) -> String {
    let mut child = Command::new(tongsuo())
        .args([
            "s_client",
            "-connect",
            &format!("127.0.0.1:{port}"),
            "-tls1_3",
            "-ign_eof",
        ])
        .arg("-CAfile")
        .arg(ca)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin);
    let stdout = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let stdout = Arc::clone(&stdout);
        let mut pipe = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(read @ 1..) = pipe.read(&mut chunk) {
                stdout.lock().unwrap().extend_from_slice(&chunk[..read]);
            }
        })
    };
    let expected = String::from_utf8_lossy(stdin).trim().to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        let echoed = !expected.is_empty()
            && String::from_utf8_lossy(&stdout.lock().unwrap()).contains(&expected);
        if echoed {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(input);
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    reader.join().unwrap();
    let stdout = stdout.lock().unwrap().clone();
    text(&Output { stdout, ..output })
}

#[test]
fn tongsuo_clients_talk_to_a_regula_gm_server_and_others_are_refused() {
    let (_dir, ca, cert, key) = certgen("gm");
    let server = Server::start("gm", &cert, &key, "--echo");
    for suite in SUITES {
        let message = format!("hello over {suite}\n");
        let transcript = tongsuo_client(
            server.port,
            &ca,
            &[
                "-ciphersuites",
                suite,
                "-groups",
                "curveSM2",
                "-sigalgs",
                "sm2sig_sm3",
            ],
            message.as_bytes(),
        );
        assert!(
            transcript.contains(&format!("Cipher is {suite}")),
            "{transcript}"
        );
        assert!(
            transcript.contains("Verify return code: 0 (ok)"),
            "{transcript}"
        );
        assert!(
            transcript.contains("Peer signature type: sm2sig_sm3"),
            "{transcript}"
        );
        // The echo came back through SM4 record protection both ways.
        assert!(transcript.contains(message.trim()), "{transcript}");
    }
    // Offers the gm policy does not serve: AES suites only, or X25519 only.
    let aes_only = tongsuo_client(
        server.port,
        &ca,
        &[
            "-ciphersuites",
            "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384",
        ],
        b"",
    );
    assert!(aes_only.contains("alert handshake failure"), "{aes_only}");
    let x25519_only = tongsuo_client(
        server.port,
        &ca,
        &["-ciphersuites", "TLS_SM4_GCM_SM3", "-groups", "X25519"],
        b"",
    );
    assert!(
        x25519_only.contains("alert handshake failure"),
        "{x25519_only}"
    );
    let (status, log) = server.stop();
    assert_eq!(status, 0, "{log}");
    assert!(log.contains("2 handshakes, 2 handshake failures"), "{log}");
    assert!(log.contains(", 0 not approved"), "{log}");
}

#[test]
fn regula_connect_talks_to_a_tongsuo_server() {
    let (_dir, ca, cert, key) = certgen("gm");
    for suite in SUITES {
        let port = free_port();
        // -www: s_server answers "GET /" with a status page, so data flows both ways.
        let mut server = Command::new(tongsuo())
            .args([
                "s_server",
                "-www",
                "-naccept",
                "1",
                "-accept",
                &port.to_string(),
                "-tls1_3",
            ])
            .args([
                "-ciphersuites",
                suite,
                "-groups",
                "curveSM2",
                "-sigalgs",
                "sm2sig_sm3",
            ])
            .arg("-cert")
            .arg(&cert)
            .arg("-key")
            .arg(&key)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(server.stdout.take().unwrap());
        let mut line = String::new();
        while !line.starts_with("ACCEPT") {
            line.clear();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "s_server exited early"
            );
        }
        let mut connect = regula(&[
            "tls",
            "connect",
            &format!("127.0.0.1:{port}"),
            "--policy",
            "gm",
            "--ca",
        ]);
        connect.arg(&ca);
        let output = with_stdin(connect, b"GET / HTTP/1.0\r\n\r\n");
        let _ = server.kill();
        let _ = server.wait();
        let report = String::from_utf8_lossy(&output.stderr);
        let page = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{report}");
        assert!(report.contains("protocol: TLSv1.3"), "{report}");
        assert!(
            report.contains(&format!("cipher suite: {suite}")),
            "{report}"
        );
        assert!(report.contains("group: curveSM2"), "{report}");
        assert!(report.contains("signature scheme: sm2sig_sm3"), "{report}");
        assert!(page.contains("HTTP/1.0 200 ok"), "{page}");
        assert!(
            page.contains(suite),
            "the status page names the suite: {page}"
        );
    }
}

#[test]
fn mutual_tls_with_a_tongsuo_sm2_client_certificate() {
    let (dir, ca, cert, key) = certgen("gm");
    let (other_dir, _, _, _) = certgen("gm");
    let ca_arg = ca.display().to_string();
    let server = Server::start_with("gm", &cert, &key, &["--echo", "--client-ca", &ca_arg]);
    let sm2 = |dir: &tempfile::TempDir| {
        (
            dir.path().join("client.pem").display().to_string(),
            dir.path().join("client.key").display().to_string(),
        )
    };
    let offer = |cert: &str, key: &str, message: &[u8]| {
        let mut args = vec![
            "-ciphersuites",
            "TLS_SM4_GCM_SM3",
            "-groups",
            "curveSM2",
            "-sigalgs",
            "sm2sig_sm3",
        ];
        if !cert.is_empty() {
            args.extend(["-cert", cert, "-key", key]);
        }
        tongsuo_client(server.port, &ca, &args, message)
    };
    let (client_cert, client_key) = sm2(&dir);
    let ours = offer(
        &client_cert,
        &client_key,
        b"hello with an SM2 client certificate\n",
    );
    assert!(
        ours.contains("hello with an SM2 client certificate"),
        "{ours}"
    );
    assert!(ours.contains("Cipher is TLS_SM4_GCM_SM3"), "{ours}");

    let without = offer("", "", b"hello without a certificate\n");
    assert!(
        !without.contains("hello without a certificate\nhello without"),
        "{without}"
    );
    let (foreign_cert, foreign_key) = sm2(&other_dir);
    let foreign = offer(&foreign_cert, &foreign_key, b"hello from another CA\n");
    assert!(
        !foreign.contains("hello from another CA\nhello from"),
        "{foreign}"
    );

    let (status, log) = server.stop();
    assert_eq!(status, 0, "{log}");
    assert!(log.contains("1 handshakes, 2 handshake failures"), "{log}");
    assert!(log.contains(", 0 not approved"), "{log}");
}
