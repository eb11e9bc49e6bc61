//! SIGHUP under load: `regula tls serve` swaps its certificate while clients keep connecting;
//! new handshakes see the new certificate, no connection fails, a connection opened before the
//! reload keeps working, and a reload from a broken key keeps the configuration in force.

// Shared with the other TLS tests; this one uses only part of it.
#[allow(dead_code)]
mod tls_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use regula_tls::rustls;
use rustls::pki_types::ServerName;
use tls_support::{Server, certgen};

/// A client connection: handshake, one echo; the leaf certificate the server presented.
fn echo_once(config: &Arc<rustls::ClientConfig>, port: u16) -> Result<Vec<u8>, String> {
    let mut socket = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let name = ServerName::try_from("localhost").unwrap();
    let mut connection =
        rustls::ClientConnection::new(Arc::clone(config), name).map_err(|e| e.to_string())?;
    let mut stream = rustls::Stream::new(&mut connection, &mut socket);
    stream.write_all(b"ping\n").map_err(|e| e.to_string())?;
    let mut reply = [0u8; 5];
    stream.read_exact(&mut reply).map_err(|e| e.to_string())?;
    if &reply != b"ping\n" {
        return Err(format!("bad echo {reply:?}"));
    }
    let leaf = connection.peer_certificates().unwrap()[0].to_vec();
    connection.send_close_notify();
    let _ = connection.complete_io(&mut socket);
    Ok(leaf)
}

#[test]
fn sighup_swaps_the_certificate_under_load_without_a_failed_connection() {
    let (old_dir, old_ca, old_cert, old_key) = certgen("fips-140-3");
    let (_new_dir, new_ca, new_cert, new_key) = certgen("fips-140-3");
    // The server reads these paths; the test replaces their contents.
    let cert = old_dir.path().join("live.pem");
    let key = old_dir.path().join("live.key");
    std::fs::copy(&old_cert, &cert).unwrap();
    std::fs::copy(&old_key, &key).unwrap();
    let server = Server::start_with("fips-140-3", &cert, &key, &["--echo", "--quiet"]);

    let module = regula::Module::load(regula::Policy::builtin(regula::Profile::Fips1403));
    let mut roots = regula_tls::load_roots(&old_ca).unwrap();
    for anchor in regula_tls::load_certs(&new_ca).unwrap() {
        roots.add(anchor).unwrap();
    }
    let mut config = regula_tls::client_config(&module, roots).unwrap();
    // Full handshakes only, so that each connection shows the certificate in force.
    config.resumption = rustls::client::Resumption::disabled();
    let config = Arc::new(config);
    let old_leaf = regula_tls::load_certs(&old_cert).unwrap()[0].to_vec();
    let new_leaf = regula_tls::load_certs(&new_cert).unwrap()[0].to_vec();

    // A connection opened before the reload, used again after it.
    let mut long_socket = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    long_socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut long_connection = rustls::ClientConnection::new(
        Arc::clone(&config),
        ServerName::try_from("localhost").unwrap(),
    )
    .unwrap();
    let mut echo_long = |message: &[u8]| {
        let mut stream = rustls::Stream::new(&mut long_connection, &mut long_socket);
        stream.write_all(message).unwrap();
        let mut reply = vec![0u8; message.len()];
        stream.read_exact(&mut reply).unwrap();
        assert_eq!(reply, message);
    };
    echo_long(b"before\n");

    let stop = AtomicBool::new(false);
    let failures = Mutex::new(Vec::new());
    let seen: Mutex<Vec<(Instant, bool)>> = Mutex::new(Vec::new());
    let total = AtomicUsize::new(0);
    let reload_at = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                let deadline = Instant::now() + Duration::from_secs(60);
                while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                    let started = Instant::now();
                    match echo_once(&config, server.port) {
                        Ok(leaf) => {
                            assert!(leaf == old_leaf || leaf == new_leaf);
                            seen.lock().unwrap().push((started, leaf == new_leaf));
                        }
                        Err(error) => failures.lock().unwrap().push(error),
                    }
                    total.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        std::thread::sleep(Duration::from_millis(700));
        std::fs::copy(&new_cert, &cert).unwrap();
        std::fs::copy(&new_key, &key).unwrap();
        server.signal("HUP");
        let signalled = Instant::now();
        *reload_at.lock().unwrap() = Some(signalled);
        // A reload from a broken key must keep the new configuration in force.
        std::thread::sleep(Duration::from_millis(700));
        std::fs::write(&key, b"not a key").unwrap();
        server.signal("HUP");
        std::thread::sleep(Duration::from_millis(700));
        stop.store(true, Ordering::Relaxed);
    });
    echo_long(b"after\n");
    long_connection.send_close_notify();
    let _ = long_connection.complete_io(&mut long_socket);
    drop(long_socket);

    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "failed connections: {failures:?}");
    let seen = seen.into_inner().unwrap();
    let signalled = reload_at.into_inner().unwrap().unwrap();
    assert!(
        seen.iter().any(|(_, new)| !new),
        "no connection before the reload"
    );
    // A handshake started well after the signal (the reload takes milliseconds) sees the new
    // certificate; so do all after the failed reload.
    let late: Vec<_> = seen
        .iter()
        .filter(|(at, _)| *at > signalled + Duration::from_millis(300))
        .collect();
    assert!(
        late.len() > 10,
        "too little load after the reload: {}",
        late.len()
    );
    assert!(
        late.iter().all(|(_, new)| *new),
        "old certificate after the reload"
    );

    let (status, log) = server.stop();
    assert_eq!(status, 0, "{log}");
    assert!(log.contains("reloaded "), "{log}");
    assert!(
        log.contains("reload failed, still serving the previous configuration"),
        "{log}"
    );
    assert!(log.contains("no usable PEM private key"), "{log}");
    eprintln!("{} connections, none failed", total.load(Ordering::Relaxed));
}
