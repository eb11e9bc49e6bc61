//! regula-tls end to end, in process: what each policy offers, that the module accounts for
//! every handshake and record, 0-RTT anti-replay, and the proxy under concurrent load with
//! misbehaving clients.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use regula::{Algorithm, Module, Policy, Profile, Service};
use regula_tls::client::Client;
use regula_tls::rustls::pki_types::ServerName;
use regula_tls::rustls::{self, ClientConnection};
use regula_tls::server::{LoopOptions, Responder, Summary};
use regula_tls::{ServerOptions, TlsPolicy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

fn module(profile: Profile) -> Module {
    Module::load(Policy::builtin(profile))
}

struct Identity {
    _dir: tempfile::TempDir,
    ca: std::path::PathBuf,
    cert: std::path::PathBuf,
    key: std::path::PathBuf,
}

fn identity(module: &Module) -> Identity {
    let dir = tempfile::tempdir().unwrap();
    let issued = regula_tls::certgen::certgen(module, dir.path()).unwrap();
    Identity {
        ca: issued.ca_cert,
        cert: issued.server_cert,
        key: issued.server_key,
        _dir: dir,
    }
}

struct RunningServer {
    address: SocketAddr,
    stop: oneshot::Sender<()>,
    done: tokio::task::JoinHandle<Summary>,
}

impl RunningServer {
    async fn stop(self) -> Summary {
        let _ = self.stop.send(());
        self.done.await.unwrap()
    }
}

async fn start(
    module: &Module,
    identity: &Identity,
    responder: Responder,
    options: ServerOptions,
) -> RunningServer {
    let (certs, key) = regula_tls::load_identity(&identity.cert, &identity.key).unwrap();
    let config = regula_tls::server_config_with(module, certs, key, &options).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel();
    let loop_options = LoopOptions {
        grace: Duration::from_secs(2),
        handshake_timeout: Duration::from_secs(5),
        log: false,
        ..LoopOptions::default()
    };
    let done = tokio::spawn(regula_tls::server::run(
        listener,
        Arc::new(config),
        responder,
        loop_options,
        async {
            let _ = stopped.await;
        },
    ));
    RunningServer {
        address,
        stop,
        done,
    }
}

fn localhost() -> ServerName<'static> {
    ServerName::try_from("localhost").unwrap()
}

#[test]
fn fips_offers_only_approved_suites_and_groups() {
    let policy = TlsPolicy::for_module(&module(Profile::Fips1403)).unwrap();
    let suites = policy.suite_names();
    assert!(!suites.is_empty());
    for suite in &suites {
        assert!(
            suite.contains("AES_128_GCM") || suite.contains("AES_256_GCM"),
            "{suite}"
        );
    }
    assert_eq!(
        policy.group_names(),
        [
            "X25519MLKEM768",
            "secp256r1MLKEM768",
            "MLKEM1024",
            "P-256",
            "P-384"
        ]
    );
    assert_eq!(policy.version_names(), ["TLSv1.3", "TLSv1.2"]);
    assert!(policy.require_extended_master_secret());

    let default = TlsPolicy::for_module(&module(Profile::Default)).unwrap();
    assert!(
        default
            .suite_names()
            .contains(&"TLS_CHACHA20_POLY1305_SHA256".to_string())
    );
    assert!(default.group_names().contains(&"X25519".to_string()));
    assert!(!default.require_extended_master_secret());
}

#[test]
fn a_policy_file_narrows_the_offer() {
    let policy = regula::policy::file::parse(
        "base = \"fips-140-3\"\nname = \"tls13-aes256\"\ndeny = [\"aes-128-gcm\", \"ml-kem-768\"]\n[tls]\nversions = [\"1.3\"]\n",
        "narrow.toml",
    )
    .unwrap();
    let policy = TlsPolicy::for_module(&Module::load(policy)).unwrap();
    assert_eq!(policy.version_names(), ["TLSv1.3"]);
    assert_eq!(policy.suite_names(), ["TLS_AES_256_GCM_SHA384"]);
    assert_eq!(policy.group_names(), ["MLKEM1024", "P-256", "P-384"]);
}

#[cfg(feature = "fips")]
#[test]
fn fips_build_configs_report_fips() {
    let module = module(Profile::Fips1403);
    let identity = identity(&module);
    let (certs, key) = regula_tls::load_identity(&identity.cert, &identity.key).unwrap();
    let config = regula_tls::server_config(&module, certs, key).unwrap();
    assert!(
        config.fips(),
        "ServerConfig::fips() must hold in a fips build"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshakes_and_records_are_counted_by_the_module() {
    let module = module(Profile::Fips1403);
    let identity = identity(&module);
    let server = start(
        &module,
        &identity,
        Responder::Echo,
        ServerOptions::default(),
    )
    .await;
    let client_module = self::module(Profile::Fips1403);
    let policy = TlsPolicy::for_module(&client_module).unwrap();
    let client = Client::new(
        &policy,
        regula_tls::load_roots(&identity.ca).unwrap(),
        false,
    )
    .unwrap();
    let before = module.counters();
    let (mut stream, negotiated) = client
        .connect(&server.address.to_string(), localhost(), None)
        .await
        .unwrap();
    assert_eq!(negotiated.protocol, "TLSv1.3");
    assert_eq!(
        negotiated.signature_scheme.as_deref(),
        Some("ecdsa_nistp256_sha256")
    );
    stream.write_all(b"ping").await.unwrap();
    let mut reply = [0u8; 4];
    stream.read_exact(&mut reply).await.unwrap();
    assert_eq!(&reply, b"ping");
    drop(stream);
    server.stop().await;

    let count = |rows: &[regula::CounterRow], algorithm, service| {
        rows.iter()
            .find(|row| row.algorithm == algorithm && row.service == service)
            .map_or(0, |row| row.approved)
    };
    let after = module.counters();
    // The server encapsulated to the client's ML-KEM share, signed once with its P-256 key, and
    // protected records with AES-256-GCM.
    assert_eq!(
        count(&after, Algorithm::MlKem768, Service::Encapsulate)
            - count(&before, Algorithm::MlKem768, Service::Encapsulate),
        1
    );
    assert_eq!(
        count(&after, Algorithm::EcdsaP256, Service::Sign)
            - count(&before, Algorithm::EcdsaP256, Service::Sign),
        1
    );
    assert!(count(&after, Algorithm::Aes256Gcm, Service::Encrypt) >= 2);
    assert!(count(&after, Algorithm::Aes256Gcm, Service::Decrypt) >= 2);
    assert!(count(&after, Algorithm::HkdfSha384, Service::KeyDerivation) >= 2);
    assert!(after.iter().all(|row| row.not_approved == 0));
    // The client's module verified the server's chain and handshake signature.
    assert!(
        count(
            &client_module.counters(),
            Algorithm::EcdsaP256,
            Service::Verify
        ) >= 2
    );
    assert!(
        count(
            &client_module.counters(),
            Algorithm::MlKem768,
            Service::Decapsulate
        ) >= 1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hybrid_offer_completed_with_its_classical_half_is_counted() {
    // A peer server that takes only X25519: a default-policy client offers X25519MLKEM768 with
    // an X25519 share beside it, and completes just the classical half.
    let module = module(Profile::Default);
    let identity = identity(&module);
    let (certs, key) = regula_tls::load_identity(&identity.cert, &identity.key).unwrap();
    let mut provider = rustls::crypto::aws_lc_rs::default_provider();
    provider.kx_groups = vec![rustls::crypto::aws_lc_rs::kx_group::X25519];
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut stream = tokio_rustls::TlsAcceptor::from(Arc::new(config))
            .accept(tcp)
            .await
            .unwrap();
        let mut byte = [0u8; 1];
        stream.read_exact(&mut byte).await.unwrap();
    });

    let client_module = self::module(Profile::Default);
    let policy = TlsPolicy::for_module(&client_module).unwrap();
    let client = Client::new(
        &policy,
        regula_tls::load_roots(&identity.ca).unwrap(),
        false,
    )
    .unwrap();
    let (mut stream, negotiated) = client
        .connect(&address.to_string(), localhost(), None)
        .await
        .unwrap();
    assert_eq!(negotiated.group.as_deref(), Some("X25519"));
    stream.write_all(b"x").await.unwrap();
    server.await.unwrap();
    let x25519_agreements = client_module
        .counters()
        .iter()
        .find(|row| row.algorithm == Algorithm::X25519 && row.service == Service::KeyAgreement)
        .map_or(0, |row| row.approved);
    assert_eq!(x25519_agreements, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chacha_only_client_is_refused_by_a_fips_server() {
    let module = module(Profile::Fips1403);
    let identity = identity(&module);
    let server = start(
        &module,
        &identity,
        Responder::Echo,
        ServerOptions::default(),
    )
    .await;

    let mut provider = rustls::crypto::aws_lc_rs::default_provider();
    provider.cipher_suites =
        vec![rustls::crypto::aws_lc_rs::cipher_suite::TLS13_CHACHA20_POLY1305_SHA256];
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(regula_tls::load_roots(&identity.ca).unwrap())
        .with_no_client_auth();
    let tcp = TcpStream::connect(server.address).await.unwrap();
    let result = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(localhost(), tcp)
        .await;
    let Err(error) = result else {
        panic!("the FIPS server must refuse ChaCha20-only clients");
    };
    assert!(error.to_string().contains("HandshakeFailure"), "{error}");

    // And a regula client under the default policy still gets AES-GCM from the same server.
    let policy = TlsPolicy::for_module(&self::module(Profile::Default)).unwrap();
    let client = Client::new(
        &policy,
        regula_tls::load_roots(&identity.ca).unwrap(),
        false,
    )
    .unwrap();
    let (_, negotiated) = client
        .connect(&server.address.to_string(), localhost(), None)
        .await
        .unwrap();
    assert!(
        negotiated.cipher_suite.contains("AES"),
        "{}",
        negotiated.cipher_suite
    );
    let summary = server.stop().await;
    assert_eq!(summary.handshake_failures, 1);
    assert_eq!(summary.handshakes, 1);
}

/// Drives a blocking rustls client over a TCP socket until its handshake completes.
fn complete_handshake(connection: &mut ClientConnection, socket: &mut std::net::TcpStream) {
    while connection.is_handshaking() {
        while connection.wants_write() {
            connection.write_tls(socket).unwrap();
        }
        if connection.is_handshaking() && connection.wants_read() {
            if connection.read_tls(socket).unwrap() == 0 {
                panic!("server closed during the handshake");
            }
            connection.process_new_packets().unwrap();
        }
    }
    while connection.wants_write() {
        connection.write_tls(socket).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayed_early_data_is_rejected_and_the_server_keeps_serving() {
    let module = module(Profile::Fips1403);
    let identity = identity(&module);
    let options = ServerOptions {
        max_early_data: 1024,
        session_store_size: 16,
        ..ServerOptions::default()
    };
    let server = start(&module, &identity, Responder::Echo, options).await;
    let address = server.address;
    let policy = TlsPolicy::for_module(&module).unwrap();
    let client = Client::new(&policy, regula_tls::load_roots(&identity.ca).unwrap(), true).unwrap();
    client
        .prime_session(&address.to_string(), localhost())
        .await
        .unwrap();
    let config = client.config();

    let replayed = tokio::task::spawn_blocking(move || {
        // The genuine client: ClientHello with early data, captured as sent.
        let mut connection = ClientConnection::new(config, localhost()).unwrap();
        connection
            .early_data()
            .expect("a ticket allowing 0-RTT")
            .write_all(b"GET /once")
            .unwrap();
        let mut first_flight = Vec::new();
        while connection.wants_write() {
            connection.write_tls(&mut first_flight).unwrap();
        }
        let mut socket = std::net::TcpStream::connect(address).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        socket.write_all(&first_flight).unwrap();
        complete_handshake(&mut connection, &mut socket);
        assert!(
            connection.is_early_data_accepted(),
            "first use of the ticket"
        );
        let mut echoed = [0u8; 9];
        let mut filled = 0;
        while filled < echoed.len() {
            match connection.reader().read(&mut echoed[filled..]) {
                Ok(read) => filled += read,
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                    connection.read_tls(&mut socket).unwrap();
                    connection.process_new_packets().unwrap();
                }
                Err(error) => panic!("{error}"),
            }
        }
        assert_eq!(&echoed, b"GET /once");

        // An attacker replays the same bytes on a new connection.
        let mut replay = std::net::TcpStream::connect(address).unwrap();
        replay
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        replay.write_all(&first_flight).unwrap();
        let mut answer = [0u8; 5];
        // The server answers with a full handshake (its ServerHello), not with the echo.
        replay.read_exact(&mut answer).unwrap();
        assert_eq!(answer[0], 0x16, "a handshake record");
        first_flight
    })
    .await
    .unwrap();
    assert!(!replayed.is_empty());

    // The server still serves new clients.
    let fresh = Client::new(
        &policy,
        regula_tls::load_roots(&identity.ca).unwrap(),
        false,
    )
    .unwrap();
    let (mut stream, _) = fresh
        .connect(&address.to_string(), localhost(), None)
        .await
        .unwrap();
    stream.write_all(b"still here").await.unwrap();
    let mut reply = [0u8; 10];
    stream.read_exact(&mut reply).await.unwrap();
    assert_eq!(&reply, b"still here");
    drop(stream);

    let summary = server.stop().await;
    assert_eq!(summary.early_data_accepted, 1, "{summary:?}");
}

/// Early data that arrives in the same read as the ClientHello, well past the first 4 KiB the
/// server hands rustls to find the hello, reaches the connection whole (none of it dropped).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn early_data_read_with_the_client_hello_is_kept_whole() {
    let module = module(Profile::Fips1403);
    let identity = identity(&module);
    let options = ServerOptions {
        max_early_data: 16384,
        session_store_size: 16,
        ..ServerOptions::default()
    };
    let server = start(&module, &identity, Responder::Echo, options).await;
    let address = server.address;
    let policy = TlsPolicy::for_module(&module).unwrap();
    let client = Client::new(&policy, regula_tls::load_roots(&identity.ca).unwrap(), true).unwrap();
    client
        .prime_session(&address.to_string(), localhost())
        .await
        .unwrap();
    let config = client.config();
    let early: Vec<u8> = (0..12_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let sent = early.clone();
    let echoed = tokio::task::spawn_blocking(move || {
        let mut connection = ClientConnection::new(config, localhost()).unwrap();
        connection
            .early_data()
            .expect("a ticket allowing 0-RTT")
            .write_all(&sent)
            .unwrap();
        let mut first_flight = Vec::new();
        while connection.wants_write() {
            connection.write_tls(&mut first_flight).unwrap();
        }
        assert!(first_flight.len() > 12_000, "{}", first_flight.len());
        let mut socket = std::net::TcpStream::connect(address).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        // One write: the server's first read takes the hello and the early data together.
        socket.write_all(&first_flight).unwrap();
        complete_handshake(&mut connection, &mut socket);
        assert!(connection.is_early_data_accepted());
        let mut echoed = vec![0u8; sent.len()];
        let mut filled = 0;
        while filled < echoed.len() {
            match connection.reader().read(&mut echoed[filled..]) {
                Ok(0) => panic!("server closed after {filled} bytes"),
                Ok(read) => filled += read,
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                    assert!(
                        connection.read_tls(&mut socket).unwrap() > 0,
                        "server closed"
                    );
                    connection.process_new_packets().unwrap();
                }
                Err(error) => panic!("{error}"),
            }
        }
        echoed
    })
    .await
    .unwrap();
    assert!(echoed == early, "the echo differs from the early data sent");
    let summary = server.stop().await;
    assert_eq!(summary.early_data_accepted, 1, "{summary:?}");
}

/// 0-RTT with a PSK the server does not know (a ticket from another server): RFC 8446 §4.2.10
/// has the server skip the undecryptable early data up to its max_early_data_size and finish a
/// full handshake. The first flight arrives in small pieces, so that the server reads it over
/// many passes; rustls 0.23.46 charged a skipped record again on each later pass and aborted with
/// bad_record_mac from about 8 KiB (vendor/rustls-regula.patch fixes it).
async fn early_data_under_an_unknown_psk_is_skipped_up_to_the_maximum(profile: Profile) {
    let module = module(profile);
    let identity = identity(&module);
    let options = || ServerOptions {
        max_early_data: 16384,
        session_store_size: 16,
        ..ServerOptions::default()
    };
    // Two servers with the same identity but their own ticket keys.
    let issuer = start(&module, &identity, Responder::Echo, options()).await;
    let server = start(&module, &identity, Responder::Echo, options()).await;
    let address = server.address;
    let policy = TlsPolicy::for_module(&module).unwrap();
    // 9,000 bytes in two records, the first skipped in an earlier pass than the second; then
    // the whole allowance, 16,384 bytes in one record.
    for records in [&[4500, 4500][..], &[16384][..]] {
        let size: usize = records.iter().sum();
        let client =
            Client::new(&policy, regula_tls::load_roots(&identity.ca).unwrap(), true).unwrap();
        client
            .prime_session(&issuer.address.to_string(), localhost())
            .await
            .unwrap();
        let config = client.config();
        let echoed = tokio::task::spawn_blocking(move || {
            let mut connection = ClientConnection::new(config, localhost()).unwrap();
            let mut early_data = connection.early_data().expect("a ticket allowing 0-RTT");
            assert_eq!(early_data.bytes_left(), 16384);
            for &record in records {
                assert_eq!(early_data.write(&vec![0x5a; record]).unwrap(), record);
            }
            let mut first_flight = Vec::new();
            while connection.wants_write() {
                connection.write_tls(&mut first_flight).unwrap();
            }
            assert!(first_flight.len() > size, "{}", first_flight.len());
            let mut socket = std::net::TcpStream::connect(address).unwrap();
            socket.set_nodelay(true).unwrap();
            socket
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            for piece in first_flight.chunks(1500) {
                socket.write_all(piece).unwrap();
                std::thread::sleep(Duration::from_millis(3));
            }
            complete_handshake(&mut connection, &mut socket);
            assert!(!connection.is_early_data_accepted());
            connection.writer().write_all(b"after 0-RTT").unwrap();
            while connection.wants_write() {
                connection.write_tls(&mut socket).unwrap();
            }
            let mut echoed = [0u8; 11];
            let mut filled = 0;
            while filled < echoed.len() {
                match connection.reader().read(&mut echoed[filled..]) {
                    Ok(0) => panic!("server closed after {filled} bytes"),
                    Ok(read) => filled += read,
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                        assert!(
                            connection.read_tls(&mut socket).unwrap() > 0,
                            "server closed"
                        );
                        connection.process_new_packets().unwrap();
                    }
                    Err(error) => panic!("{error}"),
                }
            }
            echoed
        })
        .await
        .unwrap();
        assert_eq!(&echoed, b"after 0-RTT", "{size} bytes of early data");
    }
    let summary = server.stop().await;
    assert_eq!(summary.early_data_accepted, 0, "{summary:?}");
    assert_eq!(summary.handshake_failures, 0, "{summary:?}");
    issuer.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fips_early_data_under_an_unknown_psk_is_skipped_up_to_the_maximum() {
    early_data_under_an_unknown_psk_is_skipped_up_to_the_maximum(Profile::Fips1403).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gm_early_data_under_an_unknown_psk_is_skipped_up_to_the_maximum() {
    early_data_under_an_unknown_psk_is_skipped_up_to_the_maximum(Profile::Gm).await;
}

async fn echo_backend() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (mut reader, mut writer) = socket.split();
                let _ = tokio::io::copy(&mut reader, &mut writer).await;
            });
        }
    });
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_carries_200_concurrent_connections_despite_bad_clients() {
    const CLIENTS: usize = 200;
    const BYTES: usize = 32 * 1024;
    let module = module(Profile::Fips1403);
    let identity = identity(&module);
    let backend = echo_backend().await;
    let server = start(
        &module,
        &identity,
        Responder::Forward(backend),
        ServerOptions::default(),
    )
    .await;
    let address = server.address.to_string();
    let policy = TlsPolicy::for_module(&module).unwrap();
    let client = Arc::new(
        Client::new(
            &policy,
            regula_tls::load_roots(&identity.ca).unwrap(),
            false,
        )
        .unwrap(),
    );

    let mut tasks = tokio::task::JoinSet::new();
    for index in 0..CLIENTS {
        let client = Arc::clone(&client);
        let address = address.clone();
        tasks.spawn(async move {
            let payload: Vec<u8> = (0..BYTES).map(|i| (i * 31 + index * 7) as u8).collect();
            let (stream, _) = client.connect(&address, localhost(), None).await.unwrap();
            let (mut reader, mut writer) = tokio::io::split(stream);
            let sent = payload.clone();
            let send = tokio::spawn(async move {
                writer.write_all(&sent).await.unwrap();
                // close_notify: the proxy half-closes the backend, which then ends the echo.
                writer.shutdown().await.unwrap();
            });
            let mut received = Vec::with_capacity(BYTES);
            reader.read_to_end(&mut received).await.unwrap();
            send.await.unwrap();
            assert!(
                received == payload,
                "connection {index} corrupted its bytes"
            );
        });
    }
    // Misbehaving clients at the same time: garbage records, a truncated ClientHello, and
    // connections dropped mid-handshake.
    for kind in 0..30 {
        let address = address.clone();
        tasks.spawn(async move {
            let mut socket = TcpStream::connect(&address).await.unwrap();
            match kind % 3 {
                0 => {
                    let _ = socket
                        .write_all(b"\x16\x03\x01\xff\xff this is not a TLS record")
                        .await;
                    let mut sink = Vec::new();
                    let _ = socket.read_to_end(&mut sink).await;
                }
                1 => {
                    let _ = socket.write_all(b"\x16\x03\x01\x00\x80\x01\x00\x00").await;
                }
                _ => drop(socket),
            }
        });
    }
    let all = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(result) = tasks.join_next().await {
            result.unwrap();
        }
    })
    .await;
    assert!(all.is_ok(), "the load did not finish within 120 s");
    let summary = server.stop().await;
    assert_eq!(summary.handshakes, CLIENTS as u64, "{summary:?}");
    assert_eq!(summary.bytes_in, (CLIENTS * BYTES) as u64, "{summary:?}");
    assert!(summary.handshake_failures >= 10, "{summary:?}");
}

#[test]
fn cnsa_offers_tls13_aes_256_gcm_with_ml_kem_1024_and_p384_only() {
    let policy = TlsPolicy::for_module(&module(Profile::Cnsa20)).unwrap();
    assert_eq!(policy.version_names(), ["TLSv1.3"]);
    assert_eq!(policy.suite_names(), ["TLS_AES_256_GCM_SHA384"]);
    assert_eq!(policy.group_names(), ["MLKEM1024", "P-384"]);
    for scheme in policy.signature_scheme_names() {
        assert!(
            scheme.contains("384") || scheme.contains("512") || scheme.contains("ml_dsa"),
            "{scheme}"
        );
    }
}

/// A client limited to these groups, with the CNSA suite, against `server`.
async fn connect_with_groups(
    address: SocketAddr,
    identity: &Identity,
    groups: Vec<&'static dyn rustls::crypto::SupportedKxGroup>,
) -> Result<String, std::io::Error> {
    let mut provider = rustls::crypto::aws_lc_rs::default_provider();
    provider.kx_groups = groups;
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_root_certificates(regula_tls::load_roots(&identity.ca).unwrap())
        .with_no_client_auth();
    let tcp = TcpStream::connect(address).await.unwrap();
    let stream = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(localhost(), tcp)
        .await?;
    let (_, connection) = stream.get_ref();
    Ok(connection
        .negotiated_key_exchange_group()
        .map(|group| format!("{:?}", group.name()))
        .unwrap_or_default())
}

/// CNSA 2.0: X25519-only and P-256-only clients are refused; ML-KEM-1024 and the transitional
/// P-384 are accepted, and every operation the server ran was approved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cnsa_server_refuses_x25519_and_p256_clients() {
    use rustls::crypto::aws_lc_rs::kx_group;
    let module = module(Profile::Cnsa20);
    let identity = identity(&module);
    let server = start(
        &module,
        &identity,
        Responder::Echo,
        ServerOptions::default(),
    )
    .await;
    for (group, name) in [(kx_group::X25519, "X25519"), (kx_group::SECP256R1, "P-256")] {
        let refused = connect_with_groups(server.address, &identity, vec![group]).await;
        assert!(refused.is_err(), "a {name}-only client must be refused");
    }
    assert_eq!(
        connect_with_groups(server.address, &identity, vec![kx_group::MLKEM1024])
            .await
            .unwrap(),
        "MLKEM1024"
    );
    assert_eq!(
        connect_with_groups(server.address, &identity, vec![kx_group::SECP384R1])
            .await
            .unwrap(),
        "secp384r1"
    );
    // A regula client under the same profile prefers ML-KEM-1024.
    let policy = TlsPolicy::for_module(&self::module(Profile::Cnsa20)).unwrap();
    let client = Client::new(
        &policy,
        regula_tls::load_roots(&identity.ca).unwrap(),
        false,
    )
    .unwrap();
    let (_, negotiated) = client
        .connect(&server.address.to_string(), localhost(), None)
        .await
        .unwrap();
    assert_eq!(negotiated.group.as_deref(), Some("MLKEM1024"));
    assert_eq!(negotiated.cipher_suite, "TLS_AES_256_GCM_SHA384");
    assert_eq!(
        negotiated.signature_scheme.as_deref(),
        Some("ecdsa_nistp384_sha384")
    );
    let summary = server.stop().await;
    assert_eq!(summary.handshake_failures, 2);
    assert_eq!(summary.handshakes, 3);
    let counters = module.counters();
    assert!(counters.iter().all(|row| row.not_approved == 0));
    assert!(
        counters
            .iter()
            .all(|row| module.policy().approves(row.algorithm))
    );
}

/// The `--http` page answers a request whose head ends in a bare LF ("\n\n"), which RFC 9112
/// §2.2 lets a recipient accept, as well as the CRLF form.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_page_answers_a_head_ended_by_bare_lf() {
    let module = module(Profile::Fips1403);
    let identity = identity(&module);
    let server = start(
        &module,
        &identity,
        Responder::Http,
        ServerOptions::default(),
    )
    .await;
    let roots = regula_tls::load_roots(&identity.ca).unwrap();
    let config = Arc::new(regula_tls::client_config(&module, roots).unwrap());
    for request in [
        &b"GET / HTTP/1.1\nHost: localhost\n\n"[..],
        b"GET / HTTP/1.1\r\n\r\n",
    ] {
        let tcp = TcpStream::connect(server.address).await.unwrap();
        let mut stream = tokio_rustls::TlsConnector::from(Arc::clone(&config))
            .connect(localhost(), tcp)
            .await
            .unwrap();
        stream.write_all(request).await.unwrap();
        let mut response = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut response));
        let _ = read
            .await
            .expect("the server must answer, not wait for more of the head");
        let response = String::from_utf8_lossy(&response);
        assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
        assert!(response.contains("protocol: TLSv1.3"), "{response}");
    }
    server.stop().await;
}

/// `certgen --key-type`: an RSA-2048 server certificate serves TLS 1.3 with RSA-PSS, and a key
/// type the policy does not approve is refused with a message naming the policy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certgen_issues_the_key_type_asked_for_and_refuses_what_the_policy_refuses() {
    use regula_tls::certgen::{KeyType, certgen_with};
    let module = module(Profile::Fips1403);
    let dir = tempfile::tempdir().unwrap();
    let issued = certgen_with(&module, dir.path(), Some(KeyType::Rsa(2048))).unwrap();
    assert_eq!(issued.key_algorithm, Algorithm::RsaPkcs1Sha256);
    let identity = Identity {
        ca: issued.ca_cert,
        cert: issued.server_cert,
        key: issued.server_key,
        _dir: dir,
    };
    let server = start(
        &module,
        &identity,
        Responder::Echo,
        ServerOptions::default(),
    )
    .await;
    let policy = TlsPolicy::for_module(&module).unwrap();
    let client = Client::new(
        &policy,
        regula_tls::load_roots(&identity.ca).unwrap(),
        false,
    )
    .unwrap();
    let (_, negotiated) = client
        .connect(&server.address.to_string(), localhost(), None)
        .await
        .unwrap();
    assert!(
        negotiated
            .signature_scheme
            .as_deref()
            .is_some_and(|scheme| scheme.starts_with("rsa_pss")),
        "{negotiated:?}"
    );
    server.stop().await;

    let gm = self::module(Profile::Gm);
    let refused = certgen_with(
        &gm,
        tempfile::tempdir().unwrap().path(),
        Some(KeyType::Rsa(2048)),
    )
    .unwrap_err()
    .to_string();
    assert!(
        refused.contains("policy `gm` does not approve"),
        "{refused}"
    );
    let refused = certgen_with(
        &module,
        tempfile::tempdir().unwrap().path(),
        Some(KeyType::Sm2),
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("does not approve"), "{refused}");
    assert!("rsa-1024".parse::<KeyType>().is_err());
}
