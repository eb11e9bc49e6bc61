//! A TLS handshake load generator, the client of `scripts/bench-tls`: several threads, each
//! with its own session cache, connect to one or more servers until a time or a count runs out.
//!
//! ```text
//! handshake_load ADDR[,ADDR...] CA_PEM POLICY GROUP full|resumed SECONDS MAX_CONNECTIONS THREADS
//! ```
//!
//! GROUP (`P-256`, `curveSM2`, ...) is the one key-exchange group the load connections offer,
//! so that every server negotiates the same one without a HelloRetryRequest.
//!
//! Thread `i` always connects to `ADDR[i % n]` (so a resumed handshake presents its ticket to
//! the server that issued it). Each connection: TCP connect, handshake, `x\n` sent, one byte of
//! the reply read (an echo, or `s_server -rev`), close. The reply comes after the server has
//! read the client's Finished, so every counted connection is a handshake the server completed.
//!
//! The client is built to cost less than the server it measures. Its first connection to each
//! address verifies the server's chain and `CertificateVerify` signature with the policy's full
//! verifier; later connections accept only that same end-entity certificate (byte for byte) and
//! skip the public-key operations of verification. Each thread generates one key-agreement key
//! (through the module) and offers it in all its handshakes, so the client derives a shared
//! secret per handshake but generates no key. The server's work per handshake is the same
//! either way: it still generates a fresh key share, signs, and derives its shared secret.
//!
//! Prints one JSON line: connections, resumed, failed (and the first error), connections per
//! second, the client's own CPU seconds (from `/proc/self/stat`), and the suite and group the
//! load connections negotiated.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use regula_tls::rustls;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{ActiveKeyExchange, SharedSecret, SupportedKxGroup};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use rustls::{NamedGroup, ProtocolVersion};

/// Accepts exactly one end-entity certificate, already verified in full by the policy's
/// verifier on an earlier connection; no signature is checked.
#[derive(Debug)]
struct PinnedCertificate {
    certificate: Vec<u8>,
    schemes: Vec<SignatureScheme>,
}

impl ServerCertVerifier for PinnedCertificate {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.certificate.as_slice() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(
                "the server changed its certificate during the load test".into(),
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Ok(HandshakeSignatureValid::assertion())
    }

    fn verify_tls13_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Ok(HandshakeSignatureValid::assertion())
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.schemes.clone()
    }
}

/// A key-exchange group whose every key share is the same key pair (one per client thread).
#[derive(Debug)]
struct ReusedKeyShare {
    name: NamedGroup,
    key: Arc<regula::AgreementKey>,
    public: Vec<u8>,
}

impl SupportedKxGroup for ReusedKeyShare {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
        Ok(Box::new(ReusedExchange {
            name: self.name,
            key: Arc::clone(&self.key),
            public: self.public.clone(),
        }))
    }

    fn name(&self) -> NamedGroup {
        self.name
    }

    fn usable_for_version(&self, version: ProtocolVersion) -> bool {
        version == ProtocolVersion::TLSv1_3
    }
}

struct ReusedExchange {
    name: NamedGroup,
    key: Arc<regula::AgreementKey>,
    public: Vec<u8>,
}

impl ActiveKeyExchange for ReusedExchange {
    fn complete(self: Box<Self>, peer_public_key: &[u8]) -> Result<SharedSecret, rustls::Error> {
        let secret = self
            .key
            .agree(peer_public_key)
            .map_err(|_| rustls::Error::PeerMisbehaved(rustls::PeerMisbehaved::InvalidKeyShare))?
            .into_value();
        Ok(SharedSecret::from(&secret[..]))
    }

    fn pub_key(&self) -> &[u8] {
        &self.public
    }

    fn group(&self) -> NamedGroup {
        self.name
    }
}

/// The module's key-agreement algorithm behind a TLS group name, where there is one.
fn agreement_algorithm(group: &str) -> Option<regula::Algorithm> {
    match group {
        "P-256" => Some(regula::Algorithm::EcdhP256),
        "P-384" => Some(regula::Algorithm::EcdhP384),
        "P-521" => Some(regula::Algorithm::EcdhP521),
        "X25519" => Some(regula::Algorithm::X25519),
        "curveSM2" => Some(regula::Algorithm::Sm2Ecdh),
        _ => None,
    }
}

struct Outcome {
    resumed: bool,
    certificate: Vec<u8>,
    suite: String,
    group: String,
}

fn one(config: &Arc<rustls::ClientConfig>, address: &str) -> Result<Outcome, String> {
    let mut socket = TcpStream::connect(address).map_err(|e| e.to_string())?;
    socket.set_nodelay(true).map_err(|e| e.to_string())?;
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let name = ServerName::try_from("localhost").map_err(|e| e.to_string())?;
    let mut connection =
        rustls::ClientConnection::new(Arc::clone(config), name).map_err(|e| e.to_string())?;
    let mut stream = rustls::Stream::new(&mut connection, &mut socket);
    stream.write_all(b"x\n").map_err(|e| e.to_string())?;
    let mut reply = [0u8; 1];
    // The reply follows the server's tickets, so reading it also stores them.
    stream.read_exact(&mut reply).map_err(|e| e.to_string())?;
    let outcome = Outcome {
        resumed: connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed),
        certificate: connection
            .peer_certificates()
            .and_then(|chain| chain.first())
            .map(|c| c.as_ref().to_vec())
            .unwrap_or_default(),
        suite: connection
            .negotiated_cipher_suite()
            .map(|s| regula_tls::provider::suite_name(s.suite()))
            .unwrap_or_default(),
        group: connection
            .negotiated_key_exchange_group()
            .map(|g| regula_tls::provider::group_name(g.name()))
            .unwrap_or_default(),
    };
    connection.send_close_notify();
    let _ = connection.complete_io(&mut socket);
    Ok(outcome)
}

/// This process's user + system CPU seconds so far (Linux, USER_HZ = 100).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at the last ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the ')'.
    (ticks(11) + ticks(12)) / 100.0
}

fn usage() -> ! {
    eprintln!(
        "usage: handshake_load ADDR[,ADDR...] CA_PEM POLICY GROUP full|resumed SECONDS \
         MAX_CONNECTIONS THREADS"
    );
    std::process::exit(2);
}

fn fail(message: String) -> ! {
    eprintln!("handshake_load: {message}");
    std::process::exit(1);
}

/// The load connections' configuration: the policy's provider with only `group` for key
/// exchange, and `certificate` pinned.
fn load_config(
    module: &regula::Module,
    group: &str,
    certificate: Vec<u8>,
    resumption: bool,
) -> Result<Arc<rustls::ClientConfig>, String> {
    let policy = regula_tls::TlsPolicy::for_module(module).map_err(|e| e.to_string())?;
    let mut provider = rustls::crypto::CryptoProvider::clone(policy.provider());
    provider
        .kx_groups
        .retain(|g| regula_tls::provider::group_name(g.name()) == group);
    let Some(offered) = provider.kx_groups.first().copied() else {
        return Err(format!(
            "group {group} is not served under this policy (it serves {})",
            policy.group_names().join(", ")
        ));
    };
    // A group the module has no reusable key for (a hybrid) keeps a fresh key per handshake.
    if let Some(algorithm) = agreement_algorithm(group) {
        let key = module
            .generate_agreement_key(algorithm)
            .map_err(|e| format!("{group} key: {e}"))?
            .into_value();
        let public = key.public_key().map_err(|e| format!("{group} key: {e}"))?;
        let reused: &'static ReusedKeyShare = Box::leak(Box::new(ReusedKeyShare {
            name: offered.name(),
            key: Arc::new(key),
            public,
        }));
        provider.kx_groups = vec![reused];
    }
    let schemes = provider
        .signature_verification_algorithms
        .supported_schemes();
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(PinnedCertificate {
            certificate,
            schemes,
        }))
        .with_no_client_auth();
    if !resumption {
        config.resumption = rustls::client::Resumption::disabled();
    }
    Ok(Arc::new(config))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 9 {
        usage();
    }
    let addresses: Vec<String> = args[1].split(',').map(str::to_string).collect();
    let (ca, policy, group, mode) = (&args[2], &args[3], &args[4], &args[5]);
    let (Ok(seconds), Ok(max), Ok(threads)) = (
        args[6].parse::<f64>(),
        args[7].parse::<u64>(),
        args[8].parse::<usize>(),
    ) else {
        usage()
    };
    let resumed_mode = match mode.as_str() {
        "full" => false,
        "resumed" => true,
        _ => usage(),
    };
    if addresses.iter().any(String::is_empty)
        || threads == 0
        || !seconds.is_finite()
        || seconds <= 0.0
    {
        usage();
    }
    let module = regula::Module::load_named(policy)
        .unwrap_or_else(|error| fail(format!("policy {policy}: {error}")));
    let roots =
        regula_tls::load_roots(ca.as_ref()).unwrap_or_else(|error| fail(format!("{ca}: {error}")));
    let verifying = Arc::new(
        regula_tls::client_config(&module, roots)
            .unwrap_or_else(|error| fail(format!("client configuration: {error}"))),
    );

    // One fully verified connection per address, before the clock starts.
    let pinned: Vec<Vec<u8>> = addresses
        .iter()
        .map(|address| match one(&verifying, address) {
            Ok(outcome) => outcome.certificate,
            Err(error) => fail(format!("{address}: first connection failed: {error}")),
        })
        .collect();
    let configs: Vec<Arc<rustls::ClientConfig>> = (0..threads)
        .map(|i| {
            // Its own configuration per thread: its own session cache.
            load_config(
                &module,
                group,
                pinned[i % addresses.len()].clone(),
                resumed_mode,
            )
            .unwrap_or_else(|error| fail(error))
        })
        .collect();

    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(seconds);
    let cpu_before = cpu_seconds();
    let budget = AtomicU64::new(max);
    let first_error: Mutex<Option<String>> = Mutex::new(None);
    let negotiated: Mutex<Option<(String, String)>> = Mutex::new(None);
    let results: Vec<(u64, u64, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = configs
            .iter()
            .enumerate()
            .map(|(i, config)| {
                let address = &addresses[i % addresses.len()];
                let (budget, first_error, negotiated) = (&budget, &first_error, &negotiated);
                scope.spawn(move || {
                    // A resuming thread's first (uncounted) connection gets it a ticket.
                    if resumed_mode {
                        let _ = one(config, address);
                    }
                    let (mut done, mut resumed, mut failed) = (0, 0, 0);
                    while Instant::now() < deadline
                        && budget
                            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                                n.checked_sub(1)
                            })
                            .is_ok()
                    {
                        match one(config, address) {
                            Ok(outcome) => {
                                done += 1;
                                resumed += u64::from(outcome.resumed);
                                if done == 1 {
                                    let mut seen =
                                        negotiated.lock().unwrap_or_else(|p| p.into_inner());
                                    seen.get_or_insert((outcome.suite, outcome.group));
                                }
                            }
                            Err(error) => {
                                failed += 1;
                                let mut first =
                                    first_error.lock().unwrap_or_else(|p| p.into_inner());
                                first.get_or_insert(error);
                            }
                        }
                    }
                    (done, resumed, failed)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((0, 0, 0)))
            .collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let client_cpu = cpu_seconds() - cpu_before;
    let connections: u64 = results.iter().map(|r| r.0).sum();
    let resumed: u64 = results.iter().map(|r| r.1).sum();
    let failed: u64 = results.iter().map(|r| r.2).sum();
    let clean = |s: String| s.replace(['"', '\\'], "'");
    let error = clean(
        first_error
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .unwrap_or_default(),
    );
    let (suite, group) = negotiated
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .unwrap_or_default();
    println!(
        "{{\"mode\":\"{mode}\",\"connections\":{connections},\"resumed\":{resumed},\
         \"failed\":{failed},\"first_error\":\"{error}\",\"seconds\":{elapsed:.3},\
         \"per_second\":{:.1},\"client_cpu_seconds\":{client_cpu:.2},\
         \"suite\":\"{}\",\"group\":\"{}\"}}",
        connections as f64 / elapsed,
        clean(suite),
        clean(group)
    );
}
