//! The checks `regula tls serve` makes on a client's first flight before rustls sees it
//! (RFC 8446 §5.1, §4.2.3, §9.2, App. D.5), under every built-in TLS policy, `gm` included (no
//! Python TLS stack speaks RFC 8998, so these are its conformance probes). Each flight is a
//! rustls client's own ClientHello, edited; the expected alerts are the RFC's.

use std::sync::Arc;
use std::time::Duration;

use regula::{Module, Policy, Profile};
use regula_tls::rustls::ClientConnection;
use regula_tls::rustls::pki_types::ServerName;
use regula_tls::server::{LoopOptions, Responder};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const HANDSHAKE: u8 = 22;
const UNEXPECTED_MESSAGE: u8 = 10;
const RECORD_OVERFLOW: u8 = 22;
const HANDSHAKE_FAILURE: u8 = 40;
const PROTOCOL_VERSION: u8 = 70;
const MISSING_EXTENSION: u8 = 109;

#[derive(Debug, PartialEq)]
enum Answer {
    ServerHello,
    Alert(u8),
    Other(String),
}

struct Server {
    address: std::net::SocketAddr,
    _dir: tempfile::TempDir,
    ca: std::path::PathBuf,
    module: Module,
}

async fn serve(profile: Profile) -> Server {
    let module = Module::load(Policy::builtin(profile));
    let dir = tempfile::tempdir().unwrap();
    let issued = regula_tls::certgen::certgen(&module, dir.path()).unwrap();
    let (certs, key) = regula_tls::load_identity(&issued.server_cert, &issued.server_key).unwrap();
    let config = regula_tls::server_config(&module, certs, key).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let options = LoopOptions {
        log: false,
        handshake_timeout: Duration::from_secs(5),
        ..LoopOptions::default()
    };
    tokio::spawn(regula_tls::server::run(
        listener,
        Arc::new(config),
        Responder::Echo,
        options,
        std::future::pending::<()>(),
    ));
    Server {
        address,
        _dir: dir,
        ca: issued.ca_cert,
        module,
    }
}

/// The ClientHello handshake message (with its header) a rustls client under the policy sends.
fn client_hello(server: &Server) -> Vec<u8> {
    let roots = regula_tls::load_roots(&server.ca).unwrap();
    let config = regula_tls::client_config(&server.module, roots).unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let mut connection = ClientConnection::new(Arc::new(config), name).unwrap();
    let mut wire = Vec::new();
    while connection.wants_write() {
        connection.write_tls(&mut wire).unwrap();
    }
    let mut message = Vec::new();
    let mut rest = &wire[..];
    while rest.len() >= 5 {
        let length = usize::from(u16::from_be_bytes([rest[3], rest[4]]));
        assert_eq!(rest[0], HANDSHAKE);
        message.extend_from_slice(&rest[5..5 + length]);
        rest = &rest[5 + length..];
    }
    message
}

fn record(content_type: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![content_type, 3, 1];
    out.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// The ClientHello with its extensions replaced by `edit`'s result (lengths recomputed).
fn edit_extensions(
    message: &[u8],
    edit: impl Fn(Vec<(u16, Vec<u8>)>) -> Vec<(u16, Vec<u8>)>,
) -> Vec<u8> {
    let body = &message[4..];
    let mut at = 2 + 32;
    at += 1 + usize::from(body[at]);
    at += 2 + usize::from(u16::from_be_bytes([body[at], body[at + 1]]));
    at += 1 + usize::from(body[at]);
    let mut extensions = Vec::new();
    let mut rest = &body[at + 2..];
    while !rest.is_empty() {
        let kind = u16::from_be_bytes([rest[0], rest[1]]);
        let length = usize::from(u16::from_be_bytes([rest[2], rest[3]]));
        extensions.push((kind, rest[4..4 + length].to_vec()));
        rest = &rest[4 + length..];
    }
    let mut encoded = Vec::new();
    for (kind, data) in edit(extensions) {
        encoded.extend_from_slice(&kind.to_be_bytes());
        encoded.extend_from_slice(&(data.len() as u16).to_be_bytes());
        encoded.extend_from_slice(&data);
    }
    let mut new_body = body[..at].to_vec();
    new_body.extend_from_slice(&(encoded.len() as u16).to_be_bytes());
    new_body.extend_from_slice(&encoded);
    let mut out = vec![1];
    out.extend_from_slice(&(new_body.len() as u32).to_be_bytes()[1..]);
    out.extend_from_slice(&new_body);
    out
}

async fn answer(server: &Server, flight: &[u8]) -> Answer {
    let mut tcp = TcpStream::connect(server.address).await.unwrap();
    tcp.write_all(flight).await.unwrap();
    let mut header = [0u8; 5];
    let read = tokio::time::timeout(Duration::from_secs(10), tcp.read_exact(&mut header)).await;
    match read {
        Ok(Ok(_)) => {}
        Ok(Err(error)) => return Answer::Other(format!("closed: {error}")),
        Err(_) => return Answer::Other("timeout".to_string()),
    }
    let mut body = vec![0u8; usize::from(u16::from_be_bytes([header[3], header[4]]))];
    if tcp.read_exact(&mut body).await.is_err() {
        return Answer::Other("closed mid-record".to_string());
    }
    match (header[0], body.as_slice()) {
        (HANDSHAKE, [2, ..]) => Answer::ServerHello,
        (21, [_, description]) => Answer::Alert(*description),
        (other, _) => Answer::Other(format!("record type {other}")),
    }
}

async fn check_policy(profile: Profile) {
    let server = serve(profile).await;
    let hello = client_hello(&server);
    let name = format!("{profile:?}");

    // The unedited hello is answered, in one record or split over two.
    assert_eq!(
        answer(&server, &record(HANDSHAKE, &hello)).await,
        Answer::ServerHello,
        "{name}"
    );
    let split = [
        record(HANDSHAKE, &hello[..10]),
        record(HANDSHAKE, &hello[10..]),
    ]
    .concat();
    assert_eq!(answer(&server, &split).await, Answer::ServerHello, "{name}");

    // App. D.5: legacy_version 0x0300 or less.
    for version in [[0, 0], [2, 0], [3, 0]] {
        let mut old = hello.clone();
        old[4..6].copy_from_slice(&version);
        assert_eq!(
            answer(&server, &record(HANDSHAKE, &old)).await,
            Answer::Alert(PROTOCOL_VERSION),
            "{name} legacy_version {version:?}"
        );
    }

    // §5.1: a plaintext record over 2^14 bytes (the hello and trailing bytes in one record).
    let mut long = hello.clone();
    long.resize(16385, 0);
    assert_eq!(
        answer(&server, &record(HANDSHAKE, &long)).await,
        Answer::Alert(RECORD_OVERFLOW),
        "{name}"
    );

    // §5.1: zero-length handshake records, and other records between the hello's fragments.
    let empty_first = [record(HANDSHAKE, &[]), record(HANDSHAKE, &hello)].concat();
    assert_eq!(
        answer(&server, &empty_first).await,
        Answer::Alert(UNEXPECTED_MESSAGE),
        "{name}"
    );
    for middle in [
        record(HANDSHAKE, &[]),
        record(20, &[1]),
        record(23, b"data"),
        record(21, &[1, 0]),
    ] {
        let flight = [
            record(HANDSHAKE, &hello[..10]),
            middle.clone(),
            record(HANDSHAKE, &hello[10..]),
        ]
        .concat();
        assert_eq!(
            answer(&server, &flight).await,
            Answer::Alert(UNEXPECTED_MESSAGE),
            "{name} {middle:?}"
        );
    }
    // §5: an empty alert record before any handshake.
    let flight = [record(21, &[]), record(HANDSHAKE, &hello)].concat();
    assert_eq!(
        answer(&server, &flight).await,
        Answer::Alert(UNEXPECTED_MESSAGE),
        "{name}"
    );

    // §9.2: supported_groups without key_share.
    let no_share = edit_extensions(&hello, |extensions| {
        extensions
            .into_iter()
            .filter(|(kind, _)| *kind != 51)
            .collect()
    });
    assert_eq!(
        answer(&server, &record(HANDSHAKE, &no_share)).await,
        Answer::Alert(MISSING_EXTENSION),
        "{name}"
    );

    // §4.2.3: only ecdsa_sha1 and rsa_pss_pss_sha256 offered: nothing the certificate's key
    // signs with in TLS 1.3; refused before any ServerHello.
    let no_scheme = edit_extensions(&hello, |extensions| {
        extensions
            .into_iter()
            .map(|(kind, data)| match kind {
                13 => (kind, vec![0, 4, 2, 3, 8, 9]),
                _ => (kind, data),
            })
            .collect()
    });
    assert_eq!(
        answer(&server, &record(HANDSHAKE, &no_scheme)).await,
        Answer::Alert(HANDSHAKE_FAILURE),
        "{name}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_flight_checks_under_fips_140_3() {
    check_policy(Profile::Fips1403).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_flight_checks_under_default() {
    check_policy(Profile::Default).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_flight_checks_under_gm() {
    check_policy(Profile::Gm).await;
}
