//! A TLS server and terminating proxy: one accept loop, three ways to answer (echo, a small
//! HTTP page, or forwarding to a plain TCP backend). Each connection runs in its own task; its
//! errors are logged and never stop the loop. Shutdown stops accepting, lets open connections
//! finish for a grace period, and returns a summary.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rustls::ServerConfig;
use rustls::server::ServerConnection;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_rustls::server::TlsStream;

use crate::provider::{group_name, suite_name};
use crate::wire::{self, Refusal, Verdict};

/// What the server does with a connection once the handshake is done.
#[derive(Clone, Debug)]
pub enum Responder {
    /// Send back every byte received (early data included).
    Echo,
    /// Answer one HTTP request with a page naming the negotiated parameters.
    Http,
    /// Read and drop everything (bulk-transfer benchmarks).
    Discard,
    /// Forward bytes both ways to a plain TCP service (TLS termination).
    Forward(SocketAddr),
}

/// Accept-loop settings.
#[derive(Clone, Debug)]
pub struct LoopOptions {
    /// At most this many connections at once; further clients wait in the listen backlog.
    pub max_connections: usize,
    /// How long open connections may run on after shutdown is requested.
    pub grace: Duration,
    /// A handshake that takes longer is abandoned (slow or stalled clients).
    pub handshake_timeout: Duration,
    /// Print one line per connection event on stderr.
    pub log: bool,
    /// When forwarding, open each backend connection with a PROXY protocol v2 header naming
    /// the client's address and the TLS parameters (PP2_TYPE_SSL with version, cipher suite,
    /// signature and key algorithms and the client certificate's common name) and the SNI.
    pub proxy_protocol: bool,
    /// The policy the server runs under, for the service indicator's verdict on each
    /// connection (the `--http` page and the log).
    pub policy: Option<regula::Policy>,
    /// Count handshakes, failures and early data for the Prometheus exposition.
    pub metrics: Option<Arc<crate::metrics::Metrics>>,
}

impl Default for LoopOptions {
    fn default() -> LoopOptions {
        LoopOptions {
            max_connections: 1024,
            grace: Duration::from_secs(10),
            handshake_timeout: Duration::from_secs(10),
            log: true,
            proxy_protocol: false,
            policy: None,
            metrics: None,
        }
    }
}

/// Totals over the server's lifetime.
#[derive(Debug, Default, serde::Serialize)]
pub struct Summary {
    pub connections: u64,
    pub handshakes: u64,
    pub handshake_failures: u64,
    pub connection_errors: u64,
    pub early_data_accepted: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Connections still open when the grace period ended.
    pub abandoned: u64,
}

#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    handshakes: AtomicU64,
    handshake_failures: AtomicU64,
    connection_errors: AtomicU64,
    early_data_accepted: AtomicU64,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
}

/// What new connections are served with; replaced as a whole on reload.
#[derive(Clone, Debug)]
pub struct Serving {
    pub config: Arc<ServerConfig>,
    /// The policy behind `config`, for the indicator's verdict on each connection.
    pub policy: Option<regula::Policy>,
}

/// Runs the accept loop until `shutdown` resolves.
pub async fn run(
    listener: TcpListener,
    config: Arc<ServerConfig>,
    responder: Responder,
    options: LoopOptions,
    shutdown: impl std::future::Future<Output = ()>,
) -> Summary {
    let (_keep, serving) = tokio::sync::watch::channel(Serving {
        config,
        policy: options.policy.clone(),
    });
    run_reloadable(listener, serving, responder, options, shutdown).await
}

/// [`run`] with a configuration that can change while it runs: each new connection takes the
/// latest value of `serving` (certificates, keys, client CAs, policy); connections already
/// open keep the configuration they started with.
pub async fn run_reloadable(
    listener: TcpListener,
    serving: tokio::sync::watch::Receiver<Serving>,
    responder: Responder,
    options: LoopOptions,
    shutdown: impl std::future::Future<Output = ()>,
) -> Summary {
    let counters = Arc::new(Counters::default());
    let permits = Arc::new(Semaphore::new(options.max_connections.max(1)));
    let mut tasks = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            _ = &mut shutdown => break,
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let (tcp, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // E.g. out of file descriptors: keep serving the connections we have.
                    if options.log {
                        eprintln!("accept failed: {error}");
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // Reap finished tasks so the set does not grow with the connection count.
        while tasks.try_join_next().is_some() {}
        let number = counters.connections.fetch_add(1, Ordering::Relaxed) + 1;
        let current = serving.borrow().clone();
        let config = current.config;
        let counters = Arc::clone(&counters);
        let responder = responder.clone();
        let mut options = options.clone();
        options.policy = current.policy;
        tasks.spawn(async move {
            let _permit = permit;
            let outcome = serve_connection(tcp, config, &responder, &options, &counters).await;
            if let Err(error) = outcome
                && options.log
            {
                eprintln!("connection {number} from {peer}: {error}");
            }
        });
    }
    drop(listener);
    let grace = tokio::time::sleep(options.grace);
    tokio::pin!(grace);
    let mut abandoned = 0;
    loop {
        tokio::select! {
            next = tasks.join_next() => if next.is_none() { break },
            _ = &mut grace => {
                abandoned = tasks.len() as u64;
                tasks.abort_all();
                break;
            }
        }
    }
    Summary {
        connections: counters.connections.load(Ordering::Relaxed),
        handshakes: counters.handshakes.load(Ordering::Relaxed),
        handshake_failures: counters.handshake_failures.load(Ordering::Relaxed),
        connection_errors: counters.connection_errors.load(Ordering::Relaxed),
        early_data_accepted: counters.early_data_accepted.load(Ordering::Relaxed),
        bytes_in: counters.bytes_in.load(Ordering::Relaxed),
        bytes_out: counters.bytes_out.load(Ordering::Relaxed),
        abandoned,
    }
}

async fn serve_connection(
    tcp: TcpStream,
    config: Arc<ServerConfig>,
    responder: &Responder,
    options: &LoopOptions,
    counters: &Counters,
) -> Result<(), String> {
    let _ = tcp.set_nodelay(true);
    let handshake = tokio::time::timeout(options.handshake_timeout, accept(tcp, config)).await;
    let mut stream = match handshake {
        Ok(Ok(stream)) => stream,
        Ok(Err(Failed::Refused(refusal))) => {
            counters.handshake_failures.fetch_add(1, Ordering::Relaxed);
            if let Some(metrics) = &options.metrics {
                metrics.failure(
                    if refusal.alert == rustls::AlertDescription::HandshakeFailure {
                        "policy"
                    } else {
                        "protocol"
                    },
                );
            }
            return Err(format!("handshake refused: {refusal}"));
        }
        Ok(Err(Failed::Tls(error))) => {
            counters.handshake_failures.fetch_add(1, Ordering::Relaxed);
            if let Some(metrics) = &options.metrics {
                metrics.failure(failure_reason(&error));
            }
            let incompatible = crate::rustls_error(&error)
                .is_some_and(|inner| matches!(inner, rustls::Error::PeerIncompatible(_)));
            let hint = if incompatible {
                " (the client's offer does not meet the policy: versions, suites, groups, \
                 signature schemes, extended master secret)"
            } else {
                ""
            };
            return Err(format!("handshake failed: {error}{hint}"));
        }
        Err(_) => {
            counters.handshake_failures.fetch_add(1, Ordering::Relaxed);
            if let Some(metrics) = &options.metrics {
                metrics.failure("timeout");
            }
            return Err("handshake timed out".to_string());
        }
    };
    counters.handshakes.fetch_add(1, Ordering::Relaxed);
    if let Some(metrics) = &options.metrics {
        let connection = stream.get_ref().1;
        metrics.handshake(
            &protocol_name(connection.protocol_version()),
            &connection
                .negotiated_cipher_suite()
                .map(|suite| suite_name(suite.suite()))
                .unwrap_or_else(|| "none".to_string()),
            &connection
                .negotiated_key_exchange_group()
                .map(|group| group_name(group.name()))
                .unwrap_or_else(|| "none".to_string()),
            connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed),
        );
    }
    if options.log {
        eprintln!("{}", describe(stream.get_ref().1, options.policy.as_ref()));
    }

    // 0-RTT data arrived with the ClientHello and is buffered in the connection.
    let early = take_early_data(stream.get_mut().1);
    if let Some(early) = &early {
        counters.early_data_accepted.fetch_add(1, Ordering::Relaxed);
        if let Some(metrics) = &options.metrics {
            metrics.early_data_accepted();
        }
        counters
            .bytes_in
            .fetch_add(early.len() as u64, Ordering::Relaxed);
        if options.log {
            eprintln!("early data accepted: {} bytes", early.len());
        }
    }
    let early = early.unwrap_or_default();

    let result = match responder {
        Responder::Echo => echo(&mut stream, &early, counters).await,
        Responder::Http => http(&mut stream, &early, counters, options.policy.as_ref()).await,
        Responder::Discard => discard(&mut stream, counters).await,
        Responder::Forward(backend) => {
            let header = if options.proxy_protocol {
                Some(proxy_header(&stream)?)
            } else {
                None
            };
            forward(stream, *backend, header, &early, counters).await
        }
    };
    if let Err(error) = &result {
        counters.connection_errors.fetch_add(1, Ordering::Relaxed);
        return Err(error.clone());
    }
    Ok(())
}

/// Why a handshake did not complete.
enum Failed {
    /// Refused on the first flight's bytes, with a plaintext alert (see [`crate::wire`]).
    Refused(Refusal),
    /// rustls refused (its alert, if any, was written) or the socket failed.
    Tls(std::io::Error),
}

/// How long a refused connection is read from (and the bytes dropped) after the alert, so that
/// closing with unread input does not turn into a TCP reset that destroys the alert.
const LINGER: Duration = Duration::from_millis(500);

/// Reads the first flight, checks it (see [`crate::wire`]), then hands every byte read to
/// rustls and completes the handshake.
async fn accept(
    mut tcp: TcpStream,
    config: Arc<ServerConfig>,
) -> Result<TlsStream<TcpStream>, Failed> {
    let tls13 = config
        .crypto_provider()
        .cipher_suites
        .iter()
        .any(|suite| matches!(suite, rustls::SupportedCipherSuite::Tls13(_)));
    let (bytes, verdict) = read_first_flight(&mut tcp, tls13)
        .await
        .map_err(Failed::Tls)?;
    let summary = match verdict {
        Verdict::Refuse(refusal) => return Err(refuse(tcp, refusal).await),
        Verdict::Pass(summary) => summary,
        Verdict::NeedMore => None,
    };
    let mut acceptor = rustls::server::Acceptor::default();
    let mut unread = &bytes[..];
    let accepted = loop {
        if !unread.is_empty() {
            match acceptor.read_tls(&mut unread) {
                Ok(_) => {}
                // More than rustls buffers before a handshake message: let it refuse below.
                Err(_) => unread = &[],
            }
        }
        match acceptor.accept() {
            Ok(Some(accepted)) => break tokio_rustls::StartHandshake::from_parts(accepted, tcp),
            Ok(None) if !unread.is_empty() => continue,
            Ok(None) => {
                break tokio_rustls::LazyConfigAcceptor::new(acceptor, tcp)
                    .await
                    .map_err(Failed::Tls)?;
            }
            Err((error, mut alert)) => {
                let mut record = Vec::new();
                let _ = alert.write_all(&mut record);
                let _ = tcp.write_all(&record).await;
                linger(tcp).await;
                return Err(Failed::Tls(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    error,
                )));
            }
        }
    };
    if let Some(summary) =
        summary.filter(|summary| tls13 && summary.offers_tls13 && !summary.has_pre_shared_key)
        && let Some(certified) = config.cert_resolver.resolve(accepted.client_hello())
        && certified
            .key
            .choose_scheme(&summary.tls13_schemes())
            .is_none()
    {
        let refusal = Refusal {
            alert: rustls::AlertDescription::HandshakeFailure,
            reason: format!(
                "no offered signature scheme fits the certificate's {:?} key (RFC 8446 §4.2.3)",
                certified.key.algorithm()
            ),
        };
        return Err(refuse(accepted.io, refusal).await);
    }
    // The bytes read after the ClientHello (0-RTT records, or early data a server that rejects
    // it must skip, RFC 8446 §4.2.10) go to the connection before it reads the socket again.
    let mut fed = Ok(());
    let handshake = accepted
        .into_stream_with(config, |connection| fed = feed(connection, unread))
        .into_fallible();
    if let Err(error) = fed {
        // rustls has queued its alert: the handshake future writes it on its first poll, then
        // waits for input it will refuse.
        let _ = tokio::time::timeout(LINGER, handshake).await;
        return Err(Failed::Tls(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            error,
        )));
    }
    match handshake.await {
        Ok(stream) => Ok(stream),
        Err((error, tcp)) => {
            linger(tcp).await;
            Err(Failed::Tls(error))
        }
    }
}

/// Hands `bytes` (already read from the socket) to `connection`: as many as rustls buffers,
/// then processed, until none are left. (Filling first means fewer processing passes: rustls
/// charges records it skips as rejected early data again on each pass, see the README.)
fn feed(connection: &mut ServerConnection, mut bytes: &[u8]) -> Result<(), rustls::Error> {
    while !bytes.is_empty() {
        let before = bytes.len();
        while !bytes.is_empty() && matches!(connection.read_tls(&mut bytes), Ok(read) if read > 0) {
        }
        connection.process_new_packets()?;
        if bytes.len() == before && !bytes.is_empty() {
            // rustls' buffer is full of a message it cannot process yet (more than it holds).
            return Err(rustls::Error::General(
                "more data after the ClientHello than rustls buffers".to_string(),
            ));
        }
    }
    Ok(())
}

/// Reads until the ClientHello is complete, the checks refuse it, or the peer stops sending.
/// A hello that fits one segment takes one read.
async fn read_first_flight(
    tcp: &mut TcpStream,
    tls13: bool,
) -> std::io::Result<(Vec<u8>, Verdict)> {
    let mut bytes = Vec::with_capacity(wire::MAX_PLAINTEXT_FRAGMENT + 5);
    loop {
        if bytes.len() == bytes.capacity() {
            bytes.reserve(wire::MAX_PLAINTEXT_FRAGMENT + 5);
        }
        if tcp.read_buf(&mut bytes).await? == 0 {
            return Ok((bytes, Verdict::NeedMore));
        }
        let verdict = wire::examine(&bytes, tls13);
        if verdict != Verdict::NeedMore || bytes.len() > wire::MAX_CLIENT_HELLO + 1024 {
            return Ok((bytes, verdict));
        }
    }
}

/// Sends the refusal's alert in plaintext and closes.
async fn refuse(mut tcp: TcpStream, refusal: Refusal) -> Failed {
    let _ = tcp.write_all(&refusal.record()).await;
    linger(tcp).await;
    Failed::Refused(refusal)
}

/// Closes the sending side and drops what the peer still sends, for a short while.
async fn linger(mut tcp: TcpStream) {
    let _ = tcp.shutdown().await;
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(LINGER, async {
        while matches!(tcp.read(&mut sink).await, Ok(read) if read > 0) {}
    })
    .await;
}

/// Whether an HTTP request head is complete: an empty line ends it, with CRLF or a bare LF
/// (RFC 9112 §2.2 lets a recipient accept LF alone as a line terminator).
fn head_complete(request: &[u8]) -> bool {
    request.windows(4).any(|window| window == b"\r\n\r\n")
        || request.windows(2).any(|window| window == b"\n\n")
        || request.windows(3).any(|window| window == b"\n\r\n")
}

/// A short word for why a handshake failed, for the failure metric.
fn failure_reason(error: &std::io::Error) -> &'static str {
    match crate::rustls_error(error) {
        Some(rustls::Error::PeerIncompatible(_))
        | Some(rustls::Error::AlertReceived(rustls::AlertDescription::HandshakeFailure)) => {
            "policy"
        }
        Some(rustls::Error::InvalidCertificate(_))
        | Some(rustls::Error::NoCertificatesPresented) => "certificate",
        Some(rustls::Error::AlertReceived(_)) => "alert",
        Some(_) => "protocol",
        None if error.kind() == std::io::ErrorKind::UnexpectedEof => "closed",
        None => "io",
    }
}

fn take_early_data(connection: &mut ServerConnection) -> Option<Vec<u8>> {
    let mut reader = connection.early_data()?;
    let mut data = Vec::new();
    std::io::Read::read_to_end(&mut reader, &mut data).ok()?;
    Some(data)
}

async fn echo<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    early: &[u8],
    counters: &Counters,
) -> Result<(), String> {
    let io = |error: std::io::Error| error.to_string();
    if !early.is_empty() {
        stream.write_all(early).await.map_err(io)?;
        counters
            .bytes_out
            .fetch_add(early.len() as u64, Ordering::Relaxed);
    }
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match stream.read(&mut buffer).await {
            Ok(0) => break,
            Ok(read) => read,
            // A peer that closes without close_notify ends its own connection only.
            Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(error) => return Err(io(error)),
        };
        counters.bytes_in.fetch_add(read as u64, Ordering::Relaxed);
        stream.write_all(&buffer[..read]).await.map_err(io)?;
        counters.bytes_out.fetch_add(read as u64, Ordering::Relaxed);
    }
    let _ = stream.shutdown().await;
    Ok(())
}

async fn discard<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    counters: &Counters,
) -> Result<(), String> {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) => break,
            Ok(read) => {
                counters.bytes_in.fetch_add(read as u64, Ordering::Relaxed);
            }
            Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(error) => return Err(error.to_string()),
        }
    }
    let _ = stream.shutdown().await;
    Ok(())
}

async fn http(
    stream: &mut TlsStream<TcpStream>,
    early: &[u8],
    counters: &Counters,
    policy: Option<&regula::Policy>,
) -> Result<(), String> {
    const MAX_REQUEST_HEAD: usize = 16 * 1024;
    let mut request = early.to_vec();
    let mut buffer = [0u8; 4096];
    while !head_complete(&request) {
        if request.len() > MAX_REQUEST_HEAD {
            return Err("HTTP request head larger than 16 KiB".to_string());
        }
        match stream.read(&mut buffer).await {
            Ok(0) => break,
            Ok(read) => request.extend_from_slice(&buffer[..read]),
            Err(error) => return Err(error.to_string()),
        }
    }
    counters
        .bytes_in
        .fetch_add(request.len() as u64, Ordering::Relaxed);
    let connection = stream.get_ref().1;
    let suite = connection
        .negotiated_cipher_suite()
        .map(|suite| suite.suite());
    let group = connection
        .negotiated_key_exchange_group()
        .map(|group| group.name());
    let verdict = match (suite, policy) {
        (Some(suite), Some(policy)) => {
            match crate::catalog::connection_approved(policy, suite, group) {
                Some(true) => "approved".to_string(),
                Some(false) => format!("not approved under policy {}", policy.name()),
                None => "unknown".to_string(),
            }
        }
        _ => "unknown".to_string(),
    };
    let body = format!(
        "regula tls serve\nprotocol: {}\ncipher suite: {}\ngroup: {}\nresumed: {}\n\
         validated module (FIPS 140-3, AWS-LC): {}\nservice indicator: {}\n",
        protocol_name(connection.protocol_version()),
        suite.map(suite_name).unwrap_or_else(|| "none".to_string()),
        group.map(group_name).unwrap_or_else(|| "none".to_string()),
        if connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed) {
            "yes"
        } else {
            "no"
        },
        if connection.fips() { "yes" } else { "no" },
        verdict,
    );
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(response.as_bytes())
        .await
        .map_err(|error| error.to_string())?;
    counters
        .bytes_out
        .fetch_add(response.len() as u64, Ordering::Relaxed);
    let _ = stream.shutdown().await;
    Ok(())
}

async fn forward(
    mut stream: TlsStream<TcpStream>,
    backend: SocketAddr,
    header: Option<Vec<u8>>,
    early: &[u8],
    counters: &Counters,
) -> Result<(), String> {
    let mut upstream = TcpStream::connect(backend)
        .await
        .map_err(|error| format!("backend {backend}: {error}"))?;
    let _ = upstream.set_nodelay(true);
    if let Some(header) = header {
        upstream
            .write_all(&header)
            .await
            .map_err(|error| format!("backend {backend}: {error}"))?;
    }
    if !early.is_empty() {
        upstream
            .write_all(early)
            .await
            .map_err(|error| format!("backend {backend}: {error}"))?;
    }
    match tokio::io::copy_bidirectional(&mut stream, &mut upstream).await {
        Ok((to_backend, to_client)) => {
            counters.bytes_in.fetch_add(to_backend, Ordering::Relaxed);
            counters.bytes_out.fetch_add(to_client, Ordering::Relaxed);
            Ok(())
        }
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => Ok(()),
        Err(error) => Err(error.to_string()),
    }
}

/// One line naming what a connection negotiated, in the names people use (`TLSv1.3`,
/// `TLS_AES_256_GCM_SHA384`, `P-256`), with the module and the indicator's verdict.
pub fn describe(connection: &ServerConnection, policy: Option<&regula::Policy>) -> String {
    let suite = connection
        .negotiated_cipher_suite()
        .map(|suite| suite.suite());
    let group = connection
        .negotiated_key_exchange_group()
        .map(|group| group.name());
    let verdict = match (suite, policy) {
        (Some(suite), Some(policy)) => {
            match crate::catalog::connection_approved(policy, suite, group) {
                Some(true) => "approved",
                Some(false) => "not approved",
                None => "unknown",
            }
        }
        _ => "unknown",
    };
    format!(
        "handshake: {} {} {} {}{}, validated module: {}, indicator: {verdict}",
        protocol_name(connection.protocol_version()),
        suite.map(suite_name).unwrap_or_else(|| "none".to_string()),
        group.map(group_name).unwrap_or_else(|| "none".to_string()),
        if connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed) {
            "resumed"
        } else {
            "full"
        },
        if connection.peer_certificates().is_some() {
            ", client certificate verified"
        } else {
            ""
        },
        if connection.fips() { "yes" } else { "no" },
    )
}

/// PP2_CLIENT_SSL, PP2_CLIENT_CERT_CONN, PP2_CLIENT_CERT_SESS (the PROXY protocol, §2.2.5).
const PP2_CLIENT_SSL: u8 = 0x01;
const PP2_CLIENT_CERT_CONN: u8 = 0x02;
const PP2_CLIENT_CERT_SESS: u8 = 0x04;
const PP2_SUBTYPE_SSL_VERSION: u8 = 0x21;
const PP2_SUBTYPE_SSL_CN: u8 = 0x22;
const PP2_SUBTYPE_SSL_CIPHER: u8 = 0x23;

/// The PROXY protocol v2 header for a terminated connection: client and proxy addresses, the
/// SNI as PP2_TYPE_AUTHORITY, and PP2_TYPE_SSL with the negotiated version and suite and, for
/// a client that presented a (verified) certificate, its common name.
fn proxy_header(stream: &TlsStream<TcpStream>) -> Result<Vec<u8>, String> {
    use ppp::v2::{Builder, Command, Protocol, Type, Version};
    let (tcp, connection) = stream.get_ref();
    let addresses = (
        tcp.peer_addr().map_err(|error| error.to_string())?,
        tcp.local_addr().map_err(|error| error.to_string())?,
    );
    let certificates = connection.peer_certificates().unwrap_or_default();
    let mut client = PP2_CLIENT_SSL;
    if !certificates.is_empty() {
        client |= PP2_CLIENT_CERT_SESS;
        if connection.handshake_kind() != Some(rustls::HandshakeKind::Resumed) {
            client |= PP2_CLIENT_CERT_CONN;
        }
    }
    let mut ssl = vec![client];
    // verify: 0 = the client certificate (if any) was verified; rustls refuses otherwise.
    ssl.extend_from_slice(&0u32.to_be_bytes());
    let mut sub_tlv = |kind: u8, value: &[u8]| {
        ssl.push(kind);
        ssl.extend_from_slice(&(value.len().min(u16::MAX as usize) as u16).to_be_bytes());
        ssl.extend_from_slice(&value[..value.len().min(u16::MAX as usize)]);
    };
    sub_tlv(
        PP2_SUBTYPE_SSL_VERSION,
        protocol_name(connection.protocol_version()).as_bytes(),
    );
    if let Some(suite) = connection.negotiated_cipher_suite() {
        sub_tlv(PP2_SUBTYPE_SSL_CIPHER, suite_name(suite.suite()).as_bytes());
    }
    if let Some(name) = certificates
        .first()
        .and_then(|leaf| crate::x509::subject_common_name(leaf))
    {
        sub_tlv(PP2_SUBTYPE_SSL_CN, &name);
    }
    let mut builder =
        Builder::with_addresses(Version::Two | Command::Proxy, Protocol::Stream, addresses);
    if let Some(sni) = connection.server_name() {
        builder = builder
            .write_tlv(Type::Authority, sni.as_bytes())
            .map_err(|error| error.to_string())?;
    }
    builder
        .write_tlv(Type::SSL, &ssl)
        .and_then(|builder| builder.build())
        .map_err(|error| format!("PROXY protocol header: {error}"))
}

/// `TLSv1.3`, `TLSv1.2`: the names OpenSSL and the PROXY protocol use.
pub fn protocol_name(version: Option<rustls::ProtocolVersion>) -> String {
    match version {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_string(),
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_string(),
        Some(other) => format!("{other:?}"),
        None => "none".to_string(),
    }
}
