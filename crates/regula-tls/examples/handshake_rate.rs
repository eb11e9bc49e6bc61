//! Handshakes per second against a TLS echo server, full or resumed, with per-connection
//! latency percentiles; the client of `scripts/bench-tls-store`.
//!
//! ```text
//! handshake_rate ADDR CA_PEM POLICY full|resumed SECONDS THREADS
//! ```
//!
//! Each connection: TCP connect, handshake, one echoed byte, close. `resumed` keeps each
//! thread's tickets (single-use: every connection spends one and receives new ones); `full`
//! disables resumption. Prints one JSON line.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use regula_tls::rustls;
use rustls::pki_types::ServerName;

fn one(config: &Arc<rustls::ClientConfig>, address: &str) -> Result<bool, String> {
    let mut socket = TcpStream::connect(address).map_err(|e| e.to_string())?;
    socket.set_nodelay(true).map_err(|e| e.to_string())?;
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let name = ServerName::try_from("localhost").map_err(|e| e.to_string())?;
    let mut connection =
        rustls::ClientConnection::new(Arc::clone(config), name).map_err(|e| e.to_string())?;
    let mut stream = rustls::Stream::new(&mut connection, &mut socket);
    stream.write_all(b"x").map_err(|e| e.to_string())?;
    let mut reply = [0u8; 1];
    // The echo follows the server's tickets, so reading it also stores them.
    stream.read_exact(&mut reply).map_err(|e| e.to_string())?;
    let resumed = connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
    connection.send_close_notify();
    let _ = connection.complete_io(&mut socket);
    Ok(resumed)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 7 {
        eprintln!("usage: handshake_rate ADDR CA_PEM POLICY full|resumed SECONDS THREADS");
        std::process::exit(2);
    }
    let (address, ca, policy, mode) = (&args[1], &args[2], &args[3], &args[4]);
    let seconds: f64 = args[5].parse().expect("SECONDS");
    let threads: usize = args[6].parse().expect("THREADS");
    let module = regula::Module::load_named(policy).expect("policy");
    let roots = regula_tls::load_roots(ca.as_ref()).expect("CA");
    let resumed_mode = match mode.as_str() {
        "full" => false,
        "resumed" => true,
        other => panic!("mode {other}: full or resumed"),
    };
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(seconds);
    let results: Vec<(Vec<f64>, usize, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let mut config = regula_tls::client_config(&module, roots.clone()).expect("config");
                if !resumed_mode {
                    config.resumption = rustls::client::Resumption::disabled();
                }
                let config = Arc::new(config);
                scope.spawn(move || {
                    // A first full handshake gives a resuming thread its tickets.
                    if resumed_mode {
                        one(&config, address).expect("first connection");
                    }
                    let (mut latencies, mut resumed, mut failed) = (Vec::new(), 0, 0);
                    while Instant::now() < deadline {
                        let t0 = Instant::now();
                        match one(&config, address) {
                            Ok(was_resumed) => {
                                latencies.push(t0.elapsed().as_secs_f64() * 1e3);
                                resumed += usize::from(was_resumed);
                            }
                            Err(_) => failed += 1,
                        }
                    }
                    (latencies, resumed, failed)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let mut latencies: Vec<f64> = results.iter().flat_map(|r| r.0.clone()).collect();
    latencies.sort_by(|a, b| a.total_cmp(b));
    let resumed: usize = results.iter().map(|r| r.1).sum();
    let failed: usize = results.iter().map(|r| r.2).sum();
    let percentile = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or(f64::NAN)
    };
    println!(
        "{{\"mode\":\"{mode}\",\"connections\":{},\"resumed\":{resumed},\"failed\":{failed},\
         \"per_second\":{:.1},\"p50_ms\":{:.3},\"p99_ms\":{:.3}}}",
        latencies.len(),
        latencies.len() as f64 / elapsed,
        percentile(0.50),
        percentile(0.99)
    );
}
