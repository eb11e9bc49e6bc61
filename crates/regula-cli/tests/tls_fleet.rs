//! A fleet of `regula tls proxy` instances sharing single-use tickets through Redis: every first
//! flight carrying early data is replayed to each other instance and must resume nowhere; with
//! Redis killed, every connection is a full handshake and nothing crashes; with Redis back,
//! resumption and 0-RTT return without restarting the proxies.
//!
//! A replay counts as accepted if the server's ServerHello selects the pre-shared key (the
//! server resumed the ticket, the precondition for taking early data), read from the raw bytes
//! the server answers with; the echo backend also counts every payload it receives, so early
//! data delivered twice would show there. `REGULA_FLEET_CONNECTIONS` sets the number of original
//! connections per policy (default 2000).

// Shared with the other TLS tests; this one uses only part of it.
#[allow(dead_code)]
mod tls_support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use regula_tls::rustls;
use rustls::pki_types::ServerName;
use tls_support::{certgen, free_port, regula, spawn_listening, terminate};

/// `redis-server` on a loopback port, without persistence; killed on drop.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    fn start(port: u16) -> Redis {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is not installed (scripts/setup --test installs it)");
        let redis = Redis { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !redis.ping() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        redis
    }

    fn ping(&self) -> bool {
        Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "ping"])
            .output()
            .is_ok_and(|output| output.stdout.starts_with(b"PONG"))
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The PROXY protocol v2 signature.
const PP2_SIGNATURE: &[u8] = b"\r\n\r\n\0\r\nQUIT\n";

/// A plain TCP echo service that keeps every byte it received, per connection.
struct Backend {
    port: u16,
    received: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl Backend {
    fn start() -> Backend {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let log = Arc::clone(&log);
                std::thread::spawn(move || {
                    let mut seen = Vec::new();
                    let mut buffer = [0u8; 4096];
                    while let Ok(read) = stream.read(&mut buffer) {
                        // A PROXY v2 header (first in the connection) is kept, not echoed.
                        let skip = if seen.is_empty() && buffer[..read].starts_with(PP2_SIGNATURE) {
                            (16 + u16::from_be_bytes([buffer[14], buffer[15]]) as usize).min(read)
                        } else {
                            0
                        };
                        if read == 0 || stream.write_all(&buffer[skip..read]).is_err() {
                            break;
                        }
                        seen.extend_from_slice(&buffer[..read]);
                    }
                    log.lock().unwrap().push(seen);
                });
            }
        });
        Backend { port, received }
    }

    /// How many times each `PAYLOAD` line reached the backend, once `expected` distinct lines
    /// have (or 10 s have passed): a connection's lines are logged when the proxy closes it,
    /// which may come a little after the client has its answer.
    fn counts_of(&self, expected: usize) -> HashMap<String, usize> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let counts = self.counts();
            if counts.len() >= expected || Instant::now() >= deadline {
                return counts;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// How many times each `PAYLOAD` line reached the backend.
    fn counts(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for connection in self.received.lock().unwrap().iter() {
            for line in String::from_utf8_lossy(connection).lines() {
                *counts.entry(line.to_string()).or_insert(0) += 1;
            }
        }
        counts
    }
}

/// One `regula tls proxy` with the Redis store; killed on drop if not stopped.
struct Proxy {
    child: Child,
    port: u16,
}

impl Proxy {
    fn start(
        policy: &str,
        cert: &Path,
        key: &Path,
        backend: u16,
        store: &str,
        fleet_key: &Path,
    ) -> Proxy {
        let backend = format!("127.0.0.1:{backend}");
        let mut command = regula(&[
            "tls",
            "proxy",
            "--policy",
            policy,
            "--listen",
            "127.0.0.1:0",
            "--backend",
            &backend,
            "--early-data",
            "--session-store",
            store,
            "--quiet",
            "--json",
        ]);
        command
            .arg("--session-key")
            .arg(fleet_key)
            .arg("--cert")
            .arg(cert)
            .arg("--key")
            .arg(key);
        let (child, port) = spawn_listening(&mut command);
        Proxy { child, port }
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// SIGTERM; the exit code and the JSON summary.
    fn stop(mut self) -> (i32, serde_json::Value, String) {
        let (code, log) = terminate(&mut self.child, Duration::from_secs(30), "proxy");
        let summary = log
            .lines()
            .rev()
            .find_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .unwrap_or_default();
        (code, summary, log)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one client connection saw.
#[derive(Default)]
struct Original {
    offered_early_data: bool,
    early_data_accepted: bool,
    resumed: bool,
    psk_selected: bool,
    first_flight: Vec<u8>,
}

/// Connects, offers `payload` as early data when a ticket allows, completes the handshake,
/// and checks the echo. The first flight (ClientHello and early data) is kept for replays.
fn original(config: &Arc<rustls::ClientConfig>, port: u16, payload: &[u8]) -> Original {
    let mut socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket.set_nodelay(true).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let mut connection = rustls::ClientConnection::new(Arc::clone(config), name).unwrap();
    let mut outcome = Original::default();
    if let Some(mut early) = connection.early_data() {
        assert!(early.bytes_left() >= payload.len());
        early.write_all(payload).unwrap();
        outcome.offered_early_data = true;
    }
    while connection.wants_write() {
        connection.write_tls(&mut outcome.first_flight).unwrap();
    }
    socket.write_all(&outcome.first_flight).unwrap();
    // The server's first record, kept to read its ServerHello.
    let mut server_first = RecordingReader {
        inner: &mut socket,
        seen: Vec::new(),
    };
    while connection.is_handshaking() {
        if connection.wants_write() {
            connection.write_tls(server_first.inner).unwrap();
        }
        if connection.is_handshaking() && connection.wants_read() {
            connection.read_tls(&mut server_first).unwrap();
            connection.process_new_packets().unwrap();
        }
    }
    outcome.psk_selected = server_hello_selects_psk(&server_first.seen);
    outcome.early_data_accepted = connection.is_early_data_accepted();
    outcome.resumed = connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
    if !outcome.early_data_accepted {
        connection.writer().write_all(payload).unwrap();
    }
    let mut echoed = Vec::new();
    let mut buffer = [0u8; 4096];
    while echoed.len() < payload.len() {
        match connection.reader().read(&mut buffer) {
            Ok(0) => panic!("closed before the echo"),
            Ok(read) => echoed.extend_from_slice(&buffer[..read]),
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                connection.complete_io(&mut socket).unwrap();
            }
            Err(error) => panic!("{error}"),
        }
    }
    assert_eq!(echoed, payload);
    connection.send_close_notify();
    let _ = connection.complete_io(&mut socket);
    outcome
}

struct RecordingReader<'a> {
    inner: &'a mut TcpStream,
    seen: Vec<u8>,
}

impl Read for RecordingReader<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        if self.seen.len() < 4096 {
            self.seen.extend_from_slice(&buffer[..read]);
        }
        Ok(read)
    }
}

/// Whether the first handshake record is a ServerHello carrying `pre_shared_key` (RFC 8446
/// §4.2.11: the server resumed a ticket). Parsed by hand so the verdict is independent of the
/// TLS stack under test.
fn server_hello_selects_psk(bytes: &[u8]) -> bool {
    const PRE_SHARED_KEY: u16 = 41;
    let take = |at: usize, len: usize| bytes.get(at..at + len);
    let u16_at = |at: usize| take(at, 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    // Record header: type 22 (handshake); handshake header: type 2 (server_hello).
    if take(0, 1) != Some(&[22]) || take(5, 1) != Some(&[2]) {
        return false;
    }
    // legacy_version (2) + random (32), then the session id.
    let mut at = 9 + 2 + 32;
    let Some(session_id_len) = take(at, 1).map(|b| b[0] as usize) else {
        return false;
    };
    at += 1 + session_id_len + 2 + 1; // session id, cipher suite, compression
    let Some(extensions_len) = u16_at(at) else {
        return false;
    };
    at += 2;
    let end = at + extensions_len as usize;
    while at + 4 <= end {
        let (Some(kind), Some(len)) = (u16_at(at), u16_at(at + 2)) else {
            return false;
        };
        if kind == PRE_SHARED_KEY {
            return true;
        }
        at += 4 + len as usize;
    }
    false
}

/// Sends a captured first flight to a server as a fresh connection; true if the server resumed
/// the session (and so could take the early data).
fn replay(port: u16, first_flight: &[u8]) -> bool {
    let mut socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    socket.write_all(first_flight).unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    // The server's first record: 5-byte header, then its length.
    loop {
        let complete = answer.len() >= 5
            && answer.len() >= 5 + u16::from_be_bytes([answer[3], answer[4]]) as usize;
        if complete {
            break;
        }
        match socket.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => answer.extend_from_slice(&buffer[..read]),
        }
    }
    server_hello_selects_psk(&answer)
}

#[derive(Default)]
struct Tally {
    originals: usize,
    offered: usize,
    accepted: usize,
    resumed: usize,
    replays: usize,
    replays_accepted: usize,
}

/// `count` originals spread round robin over `ports` on `threads` threads, each replayed to
/// every other instance.
fn run_phase(
    config: &Arc<rustls::ClientConfig>,
    ports: &[u16],
    label: &str,
    count: usize,
) -> Tally {
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count {
                        break;
                    }
                    let target = index % ports.len();
                    let payload = format!("{label}-{index:06}\n");
                    let outcome = original(config, ports[target], payload.as_bytes());
                    assert_eq!(
                        outcome.resumed, outcome.psk_selected,
                        "rustls and the ServerHello disagree on resumption"
                    );
                    let mut replays_accepted = 0;
                    let mut replays = 0;
                    if outcome.offered_early_data {
                        for (other, port) in ports.iter().enumerate() {
                            if other != target {
                                replays += 1;
                                replays_accepted +=
                                    usize::from(replay(*port, &outcome.first_flight));
                            }
                        }
                    }
                    let mut tally = tally.lock().unwrap();
                    tally.originals += 1;
                    tally.offered += usize::from(outcome.offered_early_data);
                    tally.accepted += usize::from(outcome.early_data_accepted);
                    tally.resumed += usize::from(outcome.resumed);
                    tally.replays += replays;
                    tally.replays_accepted += replays_accepted;
                }
            });
        }
    });
    tally.into_inner().unwrap()
}

fn connections() -> usize {
    std::env::var("REGULA_FLEET_CONNECTIONS")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(2000)
}

fn fleet(policy: &str, profile: regula::Profile, key_len: usize) {
    let (_dir, ca, cert, key) = certgen(policy);
    let fleet_key: PathBuf = _dir.path().join("fleet.key");
    let mut random = vec![0u8; key_len];
    std::fs::File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut random)
        .unwrap();
    std::fs::write(&fleet_key, random).unwrap();
    let redis_port = free_port();
    let redis = Redis::start(redis_port);
    let backend = Backend::start();
    let mut proxies: Vec<Proxy> = (0..3)
        .map(|_| Proxy::start(policy, &cert, &key, backend.port, &redis.url(), &fleet_key))
        .collect();
    let ports: Vec<u16> = proxies.iter().map(|proxy| proxy.port).collect();

    let module = regula::Module::load(regula::Policy::builtin(profile));
    let roots = regula_tls::load_roots(&ca).unwrap();
    let mut config = regula_tls::client_config(&module, roots).unwrap();
    config.enable_early_data = true;
    let config = Arc::new(config);

    // 1. The fleet with its store: originals resume across instances with 0-RTT; no replay
    //    resumes anywhere.
    let count = connections();
    let started = Instant::now();
    let normal = run_phase(&config, &ports, "normal", count);
    eprintln!(
        "{policy}: {} originals ({} with early data, {} accepted, {} resumed), {} replays, {} \
         accepted, in {:?}",
        normal.originals,
        normal.offered,
        normal.accepted,
        normal.resumed,
        normal.replays,
        normal.replays_accepted,
        started.elapsed()
    );
    assert_eq!(normal.originals, count);
    assert_eq!(
        normal.replays_accepted, 0,
        "a replayed first flight resumed"
    );
    assert_eq!(
        normal.accepted, normal.offered,
        "an original's early data was refused"
    );
    // Only the first connection of each client thread has no ticket.
    assert!(
        normal.offered + 4 >= count,
        "too few resumptions: {}",
        normal.offered
    );
    assert_eq!(normal.replays, 2 * normal.offered);

    // 2. Redis killed mid-run: full handshakes, nothing accepted twice, no crash.
    drop(redis);
    let outage = run_phase(&config, &ports, "outage", 60);
    assert_eq!(outage.originals, 60);
    assert_eq!(outage.resumed, 0, "resumed without the store");
    assert_eq!(outage.accepted, 0, "early data taken without the store");
    assert_eq!(outage.replays_accepted, 0);
    for proxy in &mut proxies {
        assert!(proxy.alive(), "a proxy died with the store");
    }

    // 3. Redis back on the same address: resumption and 0-RTT return by themselves.
    let redis = Redis::start(redis_port);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut round = 0;
    let mut recovery_accepted = 0;
    let recovered = loop {
        round += 1;
        let tally = run_phase(&config, &ports, &format!("recovery{round}"), 12);
        assert_eq!(tally.replays_accepted, 0);
        recovery_accepted += tally.accepted;
        if tally.accepted == 12 {
            break tally;
        }
        assert!(
            Instant::now() < deadline,
            "resumption did not come back with Redis"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(recovered.resumed, 12);

    // Every payload reached the backend exactly once: no early data was delivered twice.
    let total = count + 60 + 12 * round;
    let counts = backend.counts_of(total);
    assert_eq!(counts.len(), total, "payloads missing at the backend");
    let duplicated: Vec<_> = counts.iter().filter(|(_, seen)| **seen != 1).collect();
    assert!(
        duplicated.is_empty(),
        "delivered more than once: {duplicated:?}"
    );

    let mut early_accepted = 0;
    let mut outages = 0;
    for proxy in proxies {
        let (code, summary, log) = proxy.stop();
        assert_eq!(code, 0, "{log}");
        early_accepted += summary["early_data_accepted"].as_u64().unwrap();
        outages += summary["session_store"]["outages"].as_u64().unwrap();
        assert!(log.contains("unavailable"), "outage not logged: {log}");
        assert!(
            log.contains("reachable again"),
            "recovery not logged: {log}"
        );
    }
    assert_eq!(early_accepted as usize, normal.accepted + recovery_accepted);
    assert!(outages >= 3, "each proxy counts its outage");
    drop(redis);
}

#[test]
fn fleet_refuses_replayed_early_data_fips() {
    fleet("fips-140-3", regula::Profile::Fips1403, 32);
}

#[test]
fn fleet_refuses_replayed_early_data_gm() {
    fleet("gm", regula::Profile::Gm, 16);
}

/// `--proxy-protocol` with mutual TLS: the backend learns the client's address, the SNI, the
/// TLS version and suite and the client certificate's name from a PROXY v2 header, read here
/// with an independent parser.
#[test]
fn proxy_protocol_v2_tells_the_backend_who_connected() {
    let (dir, ca, cert, key) = certgen("fips-140-3");
    let backend = Backend::start();
    let backend_address = format!("127.0.0.1:{}", backend.port);
    let ca_arg = ca.display().to_string();
    let mut child = regula(&[
        "tls",
        "proxy",
        "--policy",
        "fips-140-3",
        "--listen",
        "127.0.0.1:0",
        "--backend",
        &backend_address,
        "--proxy-protocol",
        "--client-ca",
        &ca_arg,
        "--quiet",
    ])
    .arg("--cert")
    .arg(&cert)
    .arg("--key")
    .arg(&key)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let proxy = Proxy {
        port: line.trim().rsplit(':').next().unwrap().parse().unwrap(),
        child,
    };
    let module = regula::Module::load(regula::Policy::builtin(regula::Profile::Fips1403));
    let policy = regula_tls::TlsPolicy::for_module(&module).unwrap();
    let identity = regula_tls::load_identity(
        &dir.path().join("client.pem"),
        &dir.path().join("client.key"),
    )
    .unwrap();
    let client = regula_tls::client::Client::with_identity(
        &policy,
        regula_tls::load_roots(&ca).unwrap(),
        false,
        Some(identity),
    )
    .unwrap();
    original(&client.config(), proxy.port, b"behind the proxy\n");
    let (code, _, log) = proxy.stop();
    assert_eq!(code, 0, "{log}");

    let received = backend.received.lock().unwrap().clone();
    assert_eq!(received.len(), 1);
    let header = ppp::v2::Header::try_from(received[0].as_slice()).expect("a PROXY v2 header");
    match header.addresses {
        ppp::v2::Addresses::IPv4(addresses) => {
            assert_eq!(addresses.source_address, std::net::Ipv4Addr::LOCALHOST);
            assert_eq!(
                addresses.destination_port,
                line.trim()
                    .rsplit(':')
                    .next()
                    .unwrap()
                    .parse::<u16>()
                    .unwrap()
            );
        }
        other => panic!("unexpected addresses {other:?}"),
    }
    let mut authority = None;
    let mut ssl = None;
    for tlv in header.tlvs() {
        let tlv = tlv.unwrap();
        match tlv.kind {
            0x02 => authority = Some(tlv.value.to_vec()),
            0x20 => ssl = Some(tlv.value.to_vec()),
            _ => {}
        }
    }
    assert_eq!(authority.as_deref(), Some(b"localhost".as_slice()));
    let ssl = ssl.expect("PP2_TYPE_SSL");
    // client: SSL | CERT_CONN | CERT_SESS; verify: 0 (verified).
    assert_eq!(ssl[0], 0x07);
    assert_eq!(&ssl[1..5], &[0, 0, 0, 0]);
    let mut sub = HashMap::new();
    let mut at = 5;
    while at + 3 <= ssl.len() {
        let len = u16::from_be_bytes([ssl[at + 1], ssl[at + 2]]) as usize;
        sub.insert(
            ssl[at],
            String::from_utf8_lossy(&ssl[at + 3..at + 3 + len]).to_string(),
        );
        at += 3 + len;
    }
    assert_eq!(sub.get(&0x21).map(String::as_str), Some("TLSv1.3"));
    assert_eq!(
        sub.get(&0x22).map(String::as_str),
        Some("Regula test client")
    );
    assert_eq!(
        sub.get(&0x23).map(String::as_str),
        Some("TLS_AES_256_GCM_SHA384")
    );
    assert!(received[0].ends_with(b"behind the proxy\n"));
}

/// Parses an OpenMetrics exposition with PyPI prometheus-client's parser (an independent
/// reader): every sample as (name, labels, value).
fn parse_openmetrics(text: &str) -> Vec<(String, HashMap<String, String>, f64)> {
    const SCRIPT: &str = "\
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
samples = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for sample in family.samples:
        samples.append([sample.name, sample.labels, sample.value])
print(json.dumps(samples))
";
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the prometheus-client parser refused the exposition (scripts/setup installs it): {}\n{text}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn scrape(port: u16) -> String {
    let mut socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200 OK"), "{response}");
    assert!(
        response.contains("application/openmetrics-text"),
        "{response}"
    );
    response.split_once("\r\n\r\n").unwrap().1.to_string()
}

#[test]
fn metrics_are_scraped_and_parsed_by_prometheus_client() {
    let (dir, ca, cert, key) = certgen("fips-140-3");
    let fleet_key = dir.path().join("fleet.key");
    std::fs::write(&fleet_key, [7u8; 32]).unwrap();
    let redis = Redis::start(free_port());
    let backend = Backend::start();
    let metrics_port = free_port();
    let backend_address = format!("127.0.0.1:{}", backend.port);
    let metrics_address = format!("127.0.0.1:{metrics_port}");
    let mut child = regula(&[
        "tls",
        "proxy",
        "--policy",
        "fips-140-3",
        "--listen",
        "127.0.0.1:0",
        "--backend",
        &backend_address,
        "--early-data",
        "--session-store",
        &redis.url(),
        "--metrics",
        &metrics_address,
        "--quiet",
    ])
    .arg("--session-key")
    .arg(&fleet_key)
    .arg("--cert")
    .arg(&cert)
    .arg("--key")
    .arg(&key)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let proxy = Proxy {
        port: line.trim().rsplit(':').next().unwrap().parse().unwrap(),
        child,
    };
    let module = regula::Module::load(regula::Policy::builtin(regula::Profile::Fips1403));
    let mut config =
        regula_tls::client_config(&module, regula_tls::load_roots(&ca).unwrap()).unwrap();
    config.enable_early_data = true;
    let config = Arc::new(config);
    for index in 0..5 {
        original(&config, proxy.port, format!("metrics-{index}\n").as_bytes());
    }
    // A client the policy refuses: TLS 1.3 with ChaCha20 only is not what fips-140-3 serves.
    let _ = Command::new("timeout")
        .args([
            "10",
            "openssl",
            "s_client",
            "-connect",
            &format!("127.0.0.1:{}", proxy.port),
        ])
        .args(["-tls1_3", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"])
        .stdin(Stdio::null())
        .output();

    let samples = parse_openmetrics(&scrape(metrics_port));
    let value = |name: &str, labels: &[(&str, &str)]| -> f64 {
        samples
            .iter()
            .filter(|(sample, sample_labels, _)| {
                sample == name
                    && labels.iter().all(|(key, value)| {
                        sample_labels.get(*key).map(String::as_str) == Some(*value)
                    })
            })
            .map(|(_, _, value)| value)
            .sum()
    };
    let tls13 = [("protocol", "TLSv1.3"), ("suite", "TLS_AES_256_GCM_SHA384")];
    assert_eq!(
        value("regula_tls_handshakes_total", &tls13),
        5.0,
        "{samples:?}"
    );
    assert_eq!(
        value("regula_tls_handshakes_total", &[("kind", "resumed")]),
        4.0
    );
    assert_eq!(value("regula_tls_resumptions_total", &[]), 4.0);
    assert_eq!(
        value("regula_tls_early_data_total", &[("outcome", "accepted")]),
        4.0
    );
    assert_eq!(
        value(
            "regula_tls_handshake_failures_total",
            &[("reason", "policy")]
        ),
        1.0
    );
    assert!(value("regula_tls_store_operations_total", &[]) >= 9.0);
    assert_eq!(value("regula_tls_store_errors_total", &[]), 0.0);
    assert_eq!(value("regula_tls_store_up", &[]), 1.0);
    assert!(value("regula_tls_store_latency_seconds_count", &[]) >= 9.0);
    assert!(
        value(
            "regula_module_operations_total",
            &[("algorithm", "aes-256-gcm"), ("indicator", "approved")]
        ) > 0.0,
        "{samples:?}"
    );
    assert_eq!(
        value(
            "regula_module_operations_total",
            &[("indicator", "not_approved")]
        ),
        0.0
    );
    let (code, _, log) = proxy.stop();
    assert_eq!(code, 0, "{log}");
}

/// Two instances sharing one Redis under different fleet keys: a ticket sealed by one does not
/// open at the other, which drops it and runs a full handshake (no early data, no failure).
#[test]
fn an_entry_sealed_under_another_fleet_key_gives_a_full_handshake() {
    let (dir, ca, cert, key) = certgen("fips-140-3");
    let (key_a, key_b) = (dir.path().join("a.key"), dir.path().join("b.key"));
    std::fs::write(&key_a, [1u8; 32]).unwrap();
    // The same key as hex: the file format takes both.
    std::fs::write(&key_b, format!("{}\n", "02".repeat(32))).unwrap();
    let redis = Redis::start(free_port());
    let backend = Backend::start();
    let a = Proxy::start(
        "fips-140-3",
        &cert,
        &key,
        backend.port,
        &redis.url(),
        &key_a,
    );
    let b = Proxy::start(
        "fips-140-3",
        &cert,
        &key,
        backend.port,
        &redis.url(),
        &key_b,
    );
    let module = regula::Module::load(regula::Policy::builtin(regula::Profile::Fips1403));
    let mut config =
        regula_tls::client_config(&module, regula_tls::load_roots(&ca).unwrap()).unwrap();
    config.enable_early_data = true;
    let config = Arc::new(config);
    let first = original(&config, a.port, b"first\n");
    assert!(!first.resumed);
    let at_b = original(&config, b.port, b"second\n");
    assert!(
        !at_b.resumed,
        "resumed from an entry sealed under another key"
    );
    assert!(at_b.offered_early_data && !at_b.early_data_accepted);
    let (code_b, summary_b, log_b) = b.stop();
    assert_eq!(code_b, 0, "{log_b}");
    assert_eq!(summary_b["session_store"]["unopenable"], 1, "{summary_b}");
    let (code_a, _, log_a) = a.stop();
    assert_eq!(code_a, 0, "{log_a}");
}

/// Tongsuo's own path (scripts/tongsuo builds it once into a cache).
fn tongsuo() -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/tongsuo");
    let output = Command::new("bash").arg(script).output().unwrap();
    assert!(output.status.success(), "scripts/tongsuo failed");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

/// A one-connection TCP relay to `target` that keeps what the client sent before the server's
/// first byte: the client's first flight (ClientHello and early data).
fn capturing_relay(target: u16) -> (u16, std::thread::JoinHandle<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let (client, _) = listener.accept().unwrap();
        let server = TcpStream::connect(("127.0.0.1", target)).unwrap();
        let first_flight = Arc::new(Mutex::new(Vec::new()));
        let server_spoke = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let upstream = {
            let (mut from, mut to) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (flight, spoke) = (Arc::clone(&first_flight), Arc::clone(&server_spoke));
            std::thread::spawn(move || {
                let mut buffer = [0u8; 16384];
                while let Ok(read @ 1..) = from.read(&mut buffer) {
                    if !spoke.load(Ordering::SeqCst) {
                        flight.lock().unwrap().extend_from_slice(&buffer[..read]);
                    }
                    if to.write_all(&buffer[..read]).is_err() {
                        break;
                    }
                }
                let _ = to.shutdown(std::net::Shutdown::Write);
            })
        };
        let (mut from, mut to) = (server, client);
        let mut buffer = [0u8; 16384];
        while let Ok(read @ 1..) = from.read(&mut buffer) {
            server_spoke.store(true, Ordering::SeqCst);
            if to.write_all(&buffer[..read]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(std::net::Shutdown::Both);
        let _ = upstream.join();
        first_flight.lock().unwrap().clone()
    });
    (port, handle)
}

/// The `gm` fleet with Tongsuo as the client (RFC 8998 suites with 0-RTT): each connection
/// resumes with the ticket of the previous one, on the next instance, sending early data; its
/// first flight, captured on the way, is replayed to the two other instances and resumes
/// nowhere. `REGULA_FLEET_TONGSUO_CONNECTIONS` sets the count (default 100: one process each).
#[test]
fn fleet_refuses_replayed_tongsuo_early_data_gm() {
    let count: usize = std::env::var("REGULA_FLEET_TONGSUO_CONNECTIONS")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(100);
    let tongsuo = tongsuo();
    let (dir, ca, cert, key) = certgen("gm");
    let fleet_key = dir.path().join("fleet.key");
    std::fs::write(&fleet_key, [9u8; 16]).unwrap();
    let redis = Redis::start(free_port());
    let backend = Backend::start();
    let proxies: Vec<Proxy> = (0..3)
        .map(|_| Proxy::start("gm", &cert, &key, backend.port, &redis.url(), &fleet_key))
        .collect();
    let session = dir.path().join("session.pem");
    let run = |port: u16, early: Option<&Path>, expected: &str| -> String {
        let mut command = Command::new(&tongsuo);
        command
            .args([
                "s_client",
                "-connect",
                &format!("127.0.0.1:{port}"),
                "-tls1_3",
                "-ign_eof",
            ])
            .args(["-ciphersuites", "TLS_SM4_GCM_SM3", "-groups", "curveSM2"])
            .args(["-sigalgs", "sm2sig_sm3", "-CAfile"])
            .arg(&ca)
            .arg("-sess_out")
            .arg(&session);
        if let Some(early) = early {
            command
                .arg("-sess_in")
                .arg(&session)
                .arg("-early_data")
                .arg(early);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        if early.is_none() {
            input.write_all(expected.as_bytes()).unwrap();
        }
        // Wait for the echo (it follows the new tickets, which -sess_out then holds).
        let mut stdout = child.stdout.take().unwrap();
        let mut seen = Vec::new();
        let mut buffer = [0u8; 4096];
        let deadline = Instant::now() + Duration::from_secs(20);
        while !String::from_utf8_lossy(&seen).contains(expected) && Instant::now() < deadline {
            match stdout.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => seen.extend_from_slice(&buffer[..read]),
            }
        }
        drop(input);
        let _ = child.kill();
        let output = child.wait_with_output().unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&seen),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let primed = run(proxies[0].port, None, "tongsuo-prime\n");
    assert!(
        primed.contains("New, TLSv1.3, Cipher is TLS_SM4_GCM_SM3"),
        "{primed}"
    );

    let mut replays_accepted = 0;
    for index in 0..count {
        let target = (index + 1) % 3;
        let payload = format!("tongsuo-{index:04}\n");
        let early = dir.path().join("early.txt");
        std::fs::write(&early, &payload).unwrap();
        let (relay, captured) = capturing_relay(proxies[target].port);
        let transcript = run(relay, Some(&early), payload.trim());
        assert!(
            transcript.contains("Reused, TLSv1.3"),
            "{index}: {transcript}"
        );
        assert!(
            transcript.contains("Early data was accepted"),
            "{index}: {transcript}"
        );
        let first_flight = captured.join().unwrap();
        assert_eq!(
            first_flight.first(),
            Some(&22),
            "not a captured ClientHello"
        );
        // ClientHello, then (after a compatibility ChangeCipherSpec) the early data record.
        assert!(
            first_flight.windows(3).any(|w| w == [23, 3, 3]),
            "no early data captured"
        );
        for (other, proxy) in proxies.iter().enumerate() {
            if other != target {
                replays_accepted += usize::from(replay(proxy.port, &first_flight));
            }
        }
    }
    assert_eq!(
        replays_accepted, 0,
        "a replayed Tongsuo first flight resumed"
    );
    let counts = backend.counts_of(count);
    for index in 0..count {
        assert_eq!(
            counts.get(&format!("tongsuo-{index:04}")),
            Some(&1),
            "{counts:?}"
        );
    }
    let mut early_accepted = 0;
    for proxy in proxies {
        let (code, summary, log) = proxy.stop();
        assert_eq!(code, 0, "{log}");
        early_accepted += summary["early_data_accepted"].as_u64().unwrap();
    }
    assert_eq!(early_accepted as usize, count);
}

/// A hung Redis (SIGSTOP: every call times out) keeps its entries. Tickets presented while it
/// hangs are refused (full handshakes) and, once it answers again, deleted by the instance that
/// saw them, so replaying those first flights afterwards resumes nowhere.
#[test]
fn tickets_seen_while_the_store_hangs_cannot_be_replayed_after_it_recovers() {
    let (dir, ca, cert, key) = certgen("fips-140-3");
    let fleet_key = dir.path().join("fleet.key");
    std::fs::write(&fleet_key, [5u8; 32]).unwrap();
    let redis = Redis::start(free_port());
    let backend = Backend::start();
    let proxies: Vec<Proxy> = (0..3)
        .map(|_| {
            Proxy::start(
                "fips-140-3",
                &cert,
                &key,
                backend.port,
                &redis.url(),
                &fleet_key,
            )
        })
        .collect();
    let module = regula::Module::load(regula::Policy::builtin(regula::Profile::Fips1403));
    let roots = regula_tls::load_roots(&ca).unwrap();
    let client = |early: bool| {
        let mut config = regula_tls::client_config(&module, roots.clone()).unwrap();
        config.enable_early_data = early;
        Arc::new(config)
    };
    let config = client(true);
    for index in 0..6 {
        original(
            &config,
            proxies[index % 3].port,
            format!("warm-{index}\n").as_bytes(),
        );
    }
    let signal = |name: &str| {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &redis.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    };
    signal("STOP");
    let mut flights = Vec::new();
    for index in 0..4 {
        let outcome = original(
            &config,
            proxies[index % 3].port,
            format!("hung-{index}\n").as_bytes(),
        );
        assert!(
            outcome.offered_early_data,
            "{index}: the client had a ticket"
        );
        assert!(!outcome.resumed && !outcome.early_data_accepted);
        flights.push(outcome.first_flight);
    }
    signal("CONT");
    // Past the retry interval, one connection per instance finds the store back.
    std::thread::sleep(Duration::from_millis(700));
    let fresh = client(false);
    for proxy in &proxies {
        original(&fresh, proxy.port, b"recovery\n");
    }
    let mut accepted = 0;
    for flight in &flights {
        for proxy in &proxies {
            accepted += usize::from(replay(proxy.port, flight));
        }
    }
    assert_eq!(
        accepted, 0,
        "a ticket seen during the outage resumed after it"
    );
    for proxy in proxies {
        let (code, summary, log) = proxy.stop();
        assert_eq!(code, 0, "{log}");
        assert!(log.contains("unavailable"), "{log}");
        assert!(
            summary["session_store"]["errors"].as_u64().unwrap() > 0,
            "{summary}"
        );
    }
}
