//! `regula tls`: certificates, a server, a client and a terminating proxy whose protocols,
//! suites, groups and signature schemes all come from the policy.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use regula_tls::rustls::pki_types::ServerName;
use regula_tls::server::{LoopOptions, Responder, Serving};
use regula_tls::{ServerOptions, TlsError, TlsPolicy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::GlobalOptions;
use crate::failure::{self, Failure};
use crate::input;

pub const AFTER_HELP: &str = "\
The policy decides everything offered: fips-140-3 gives TLS 1.2 (extended master secret required)
and 1.3, AES-GCM suites, P-256, P-384 and the ML-KEM hybrids; default gives rustls' defaults
(ChaCha20-Poly1305 and X25519 included); a policy file narrows either ([tls] versions = [\"1.3\"]).
Every record, key exchange and signature counts in the module's service indicator.

Examples:
  regula tls certgen --policy fips-140-3 --out certs
  regula tls serve --policy fips-140-3 --cert certs/server.pem --key certs/server.key --http
  regula tls serve --policy fips-140-3 --cert certs/server.pem --key certs/server.key \
      --client-ca certs/ca.pem     # mutual TLS; connect with --cert certs/client.pem --key certs/client.key
  echo hello | regula tls connect 127.0.0.1:8443 --policy fips-140-3 --ca certs/ca.pem
  regula tls proxy --policy fips-140-3 --listen 127.0.0.1:8443 --backend 127.0.0.1:5432 \\
      --cert certs/server.pem --key certs/server.key

Exit codes:
  0  success
  1  TLS failure (handshake refused, connection failed)
  2  usage or input error (bad arguments, unreadable certificate or key)
  3  the policy leaves nothing to offer (no suite, group or signature scheme)
  4  module in error state (a self-test failed)";

#[derive(Subcommand)]
pub enum TlsCommand {
    /// Show what a TLS endpoint offers under the policy.
    Show(ShowArgs),
    /// Issue a test CA and a server certificate for localhost/127.0.0.1 (keys generated and
    /// certificates signed by the module): ca.pem, ca.key, server.pem, server.key.
    Certgen(CertgenArgs),
    /// Run a TLS server that echoes or answers HTTP; stops cleanly on SIGTERM or Ctrl-C;
    /// SIGHUP reloads certificate, key, client CAs and policy without dropping connections.
    Serve(ServeArgs),
    /// Connect, print what was negotiated (stderr), send stdin and print the reply (stdout).
    Connect(ConnectArgs),
    /// Terminate TLS and forward the bytes to a plain TCP backend; stops cleanly on SIGTERM;
    /// SIGHUP reloads certificate, key, client CAs and policy without dropping connections.
    Proxy(ProxyArgs),
}

#[derive(Args)]
pub struct ShowArgs {
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct CertgenArgs {
    /// Directory to write the certificates and keys into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Key type of the CA, server and client keys: rsa-2048, rsa-3072, rsa-4096, ecdsa-p256,
    /// ecdsa-p384, ed25519, ml-dsa or sm2 (gm). The policy must approve it. Default: the
    /// first of ECDSA P-256, P-384, Ed25519 the policy approves (SM2 under gm).
    #[arg(long, value_name = "TYPE")]
    key_type: Option<regula_tls::certgen::KeyType>,
}

#[derive(Args)]
pub struct ListenerArgs {
    /// Certificate chain (PEM), leaf first.
    #[arg(long, value_name = "FILE")]
    cert: PathBuf,
    /// Private key (PEM: PKCS#8, SEC1 or PKCS#1).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// Address to listen on; port 0 picks a free port (the chosen address is printed).
    #[arg(long, default_value = "127.0.0.1:8443", value_name = "ADDR")]
    listen: SocketAddr,
    /// Accept TLS 1.3 0-RTT early data, up to this many bytes per connection. Tickets are
    /// single-use and kept in a server-side store, so replayed early data is rejected.
    #[arg(long, value_name = "BYTES", num_args = 0..=1, default_missing_value = "16384")]
    early_data: Option<u32>,
    /// Sessions kept for resumption in memory (oldest dropped first); see --session-store.
    #[arg(long, default_value_t = 256, value_name = "N")]
    ticket_store: usize,
    /// Keep resumption state and single-use 0-RTT tickets in Redis, shared by every instance
    /// given the same store and key: a ticket is consumed fleet-wide with one atomic GETDEL, so
    /// early data replayed to another instance is rejected. Entries expire with the ticket
    /// lifetime. If Redis is down or slow, instances run full handshakes (no resumption, no
    /// 0-RTT) and recover by themselves. Needs --session-key.
    #[arg(long, value_name = "redis://HOST:PORT[/DB]", requires = "session_key")]
    session_store: Option<String>,
    /// Fleet key sealing the store's entries with the policy's AEAD (AES-256-GCM: 32 bytes;
    /// SM4-GCM under gm: 16 bytes), raw or hex; e.g. `head -c 32 /dev/urandom > fleet.key`.
    #[arg(long, value_name = "FILE", requires = "session_store")]
    session_key: Option<PathBuf>,
    /// Require client certificates issued by these CAs (PEM): mutual TLS, verified with the
    /// policy's signature algorithms; a client without one, or with another CA's, is refused.
    #[arg(long, value_name = "FILE")]
    client_ca: Option<PathBuf>,
    /// Serve Prometheus metrics (OpenMetrics text) over plain HTTP on this address: handshakes
    /// by protocol, suite and group, failures by reason, resumptions, early data, the session
    /// store's errors, outages and latency, and the module's indicator counters per algorithm.
    #[arg(long, value_name = "ADDR")]
    metrics: Option<SocketAddr>,
    /// TLS 1.3 session tickets sent after each handshake; each is single-use, and with
    /// --session-store each costs one store write (1 halves the writes of a resuming client).
    #[arg(long, default_value_t = 2, value_name = "N")]
    tls13_tickets: usize,
    /// Bound on each session-store call, in milliseconds; a slower store counts as down.
    #[arg(long, default_value_t = 50, value_name = "MS")]
    store_timeout: u64,
    /// At most N connections at once; more wait in the listen backlog.
    #[arg(long, default_value_t = 1024, value_name = "N")]
    max_conns: usize,
    /// Seconds open connections may finish in after SIGTERM.
    #[arg(long, default_value_t = 10, value_name = "SECONDS")]
    grace: u64,
    /// No per-connection log lines on stderr.
    #[arg(long)]
    quiet: bool,
    /// Print the exit summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    listener: ListenerArgs,
    /// Echo every byte back (the default).
    #[arg(long, conflicts_with_all = ["http", "discard"])]
    echo: bool,
    /// Answer each connection's HTTP request with a page naming the negotiated parameters.
    #[arg(long, conflicts_with = "discard")]
    http: bool,
    /// Read and drop everything (for bulk-transfer measurements).
    #[arg(long)]
    discard: bool,
}

#[derive(Args)]
pub struct ProxyArgs {
    #[command(flatten)]
    listener: ListenerArgs,
    /// The plain TCP service to forward to.
    #[arg(long, value_name = "ADDR")]
    backend: SocketAddr,
    /// Start each backend connection with a PROXY protocol v2 header: the client's address, the
    /// SNI (PP2_TYPE_AUTHORITY) and PP2_TYPE_SSL with the TLS version, cipher suite and, with
    /// --client-ca, the client certificate's common name.
    #[arg(long)]
    proxy_protocol: bool,
}

#[derive(Args)]
pub struct ConnectArgs {
    /// Server address.
    #[arg(value_name = "HOST:PORT")]
    address: String,
    /// Trust anchors (PEM).
    #[arg(long, value_name = "FILE")]
    ca: PathBuf,
    /// Client certificate chain (PEM) to present when the server asks for one (mutual TLS).
    #[arg(long, value_name = "FILE", requires = "key")]
    cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "cert")]
    key: Option<PathBuf>,
    /// Name to verify the certificate against (default: the host part of the address).
    #[arg(long, value_name = "NAME")]
    servername: Option<String>,
    /// Send this file as TLS 1.3 0-RTT data: a first connection gets a ticket, the second
    /// resumes with it and sends the file before the handshake completes (sent again after the
    /// handshake if the server rejects it).
    #[arg(long, value_name = "FILE")]
    early_data: Option<PathBuf>,
    /// Print what was negotiated as JSON (on stderr).
    #[arg(long)]
    json: bool,
}

pub fn run(global: &GlobalOptions, command: TlsCommand) -> Result<(), Failure> {
    let module = input::operational_module(global)?;
    let policy = TlsPolicy::for_module(&module).map_err(tls_failure)?;
    match command {
        TlsCommand::Show(args) => show(&policy, args),
        TlsCommand::Certgen(args) => {
            let issued = regula_tls::certgen::certgen_with(&module, &args.out, args.key_type)
                .map_err(tls_failure)?;
            println!(
                "issued with {}: {} {} {} {} {} {}",
                issued.key_algorithm,
                issued.ca_cert.display(),
                issued.ca_key.display(),
                issued.server_cert.display(),
                issued.server_key.display(),
                issued.client_cert.display(),
                issued.client_key.display()
            );
            Ok(())
        }
        TlsCommand::Serve(args) => {
            let responder = if args.http {
                Responder::Http
            } else if args.discard {
                Responder::Discard
            } else {
                Responder::Echo
            };
            listen(global, &module, &policy, args.listener, responder, false)
        }
        TlsCommand::Proxy(args) => {
            let proxy_protocol = args.proxy_protocol;
            listen(
                global,
                &module,
                &policy,
                args.listener,
                Responder::Forward(args.backend),
                proxy_protocol,
            )
        }
        TlsCommand::Connect(args) => connect(&policy, args),
    }
}

fn tls_failure(error: TlsError) -> Failure {
    let code = match &error {
        TlsError::ModuleInErrorState(_) => failure::MODULE_ERROR_STATE,
        TlsError::NothingToOffer(_) => failure::NOT_APPROVED,
        TlsError::File { .. } | TlsError::Rustls(_) | TlsError::Store(_) => failure::INPUT_ERROR,
        TlsError::Io(_) => failure::CRYPTO_FAILURE,
    };
    Failure {
        code,
        message: error.to_string(),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| Failure::input(format!("cannot start the async runtime: {error}")))
}

fn show(policy: &TlsPolicy, args: ShowArgs) -> Result<(), Failure> {
    let offer = serde_json::json!({
        "policy": policy.module().policy().name(),
        "versions": policy.version_names(),
        "require_extended_master_secret": policy.require_extended_master_secret(),
        "cipher_suites": policy.suite_names(),
        "groups": policy.group_names(),
        "signature_schemes": policy.signature_scheme_names(),
        "fips": policy.provider().fips(),
    });
    if args.json {
        println!("{offer:#}");
        return Ok(());
    }
    println!("policy: {}", policy.module().policy().name());
    println!("versions: {}", policy.version_names().join(" "));
    println!(
        "extended master secret required (TLS 1.2): {}",
        policy.require_extended_master_secret()
    );
    println!("cipher suites: {}", policy.suite_names().join(" "));
    println!("groups: {}", policy.group_names().join(" "));
    println!(
        "signature schemes: {}",
        policy.signature_scheme_names().join(" ")
    );
    println!("FIPS provider: {}", policy.provider().fips());
    Ok(())
}

/// What a reload reads again: certificates, keys, client CAs and the policy (the session
/// store and its fleet key stay).
struct Reloader {
    global: GlobalOptions,
    cert: PathBuf,
    key: PathBuf,
    client_ca: Option<PathBuf>,
    max_early_data: u32,
    tls13_tickets: usize,
    sessions: Arc<dyn regula_tls::rustls::server::StoresServerSessions>,
}

impl Reloader {
    fn build(&self, module: &regula::Module) -> Result<Serving, Failure> {
        let (certs, key) = regula_tls::load_identity(&self.cert, &self.key).map_err(tls_failure)?;
        let options = ServerOptions {
            max_early_data: self.max_early_data,
            tls13_tickets: self.tls13_tickets,
            session_store: Some(Arc::clone(&self.sessions)),
            client_ca: self
                .client_ca
                .as_ref()
                .map(|path| regula_tls::load_roots(path).map(Arc::new))
                .transpose()
                .map_err(tls_failure)?,
            ..ServerOptions::default()
        };
        let config =
            regula_tls::server_config_with(module, certs, key, &options).map_err(tls_failure)?;
        Ok(Serving {
            config: Arc::new(config),
            policy: Some(module.policy().clone()),
        })
    }

    /// Loads the policy again and rebuilds the configuration from the files.
    fn reload(&self) -> Result<Serving, Failure> {
        let module = input::operational_module(&self.global)?;
        self.build(&module)
    }
}

/// Reloads on each SIGHUP; a failed reload keeps the configuration in force and says why.
async fn reload_on_hangup(reloader: Reloader, sender: tokio::sync::watch::Sender<Serving>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut hangup) = signal(SignalKind::hangup()) else {
            eprintln!("SIGHUP cannot be watched: reload is off");
            return;
        };
        while hangup.recv().await.is_some() {
            match reloader.reload() {
                Ok(serving) => {
                    let policy = serving
                        .policy
                        .as_ref()
                        .map(|policy| policy.name().to_string())
                        .unwrap_or_default();
                    sender.send_replace(serving);
                    eprintln!(
                        "reloaded {} {}{} under policy {policy}; open connections keep theirs",
                        reloader.cert.display(),
                        reloader.key.display(),
                        reloader
                            .client_ca
                            .as_ref()
                            .map(|path| format!(" {}", path.display()))
                            .unwrap_or_default(),
                    );
                }
                Err(failure) => eprintln!(
                    "reload failed, still serving the previous configuration: {}",
                    failure.message
                ),
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (reloader, sender);
        std::future::pending::<()>().await;
    }
}

fn listen(
    global: &GlobalOptions,
    module: &regula::Module,
    policy: &TlsPolicy,
    args: ListenerArgs,
    responder: Responder,
    proxy_protocol: bool,
) -> Result<(), Failure> {
    let store = match (&args.session_store, &args.session_key) {
        (Some(url), Some(key_path)) => {
            let key = regula_tls::store::load_fleet_key(module, key_path).map_err(tls_failure)?;
            let store_options = regula_tls::store::StoreOptions {
                timeout: Duration::from_millis(args.store_timeout.max(1)),
                ..regula_tls::store::StoreOptions::default()
            };
            let store = regula_tls::store::RedisSessionStore::new(module, url, &key, store_options)
                .map_err(tls_failure)?;
            eprintln!("session store {url}: entries sealed with {}", store.aead());
            Some(Arc::new(store))
        }
        _ => None,
    };
    // One store for the server's lifetime, so a reload keeps the sessions.
    let sessions: Arc<dyn regula_tls::rustls::server::StoresServerSessions> = match &store {
        Some(store) => Arc::clone(store) as _,
        None => regula_tls::rustls::server::ServerSessionMemoryCache::new(args.ticket_store.max(1)),
    };
    let reloader = Reloader {
        global: global.clone(),
        cert: args.cert.clone(),
        key: args.key.clone(),
        client_ca: args.client_ca.clone(),
        max_early_data: args.early_data.unwrap_or(0),
        tls13_tickets: args.tls13_tickets,
        sessions,
    };
    let serving = reloader.build(module)?;
    let metrics = args
        .metrics
        .map(|_| Arc::new(regula_tls::metrics::Metrics::new(module, store.clone())));
    let loop_options = LoopOptions {
        max_connections: args.max_conns,
        grace: Duration::from_secs(args.grace),
        log: !args.quiet,
        proxy_protocol,
        policy: Some(module.policy().clone()),
        metrics: metrics.clone(),
        ..LoopOptions::default()
    };
    let runtime = runtime()?;
    let summary = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|error| {
                Failure::input(format!("cannot listen on {}: {error}", args.listen))
            })?;
        let address = listener
            .local_addr()
            .map_err(|error| Failure::input(error.to_string()))?;
        eprintln!(
            "policy {}: {} | {} | {}",
            policy.module().policy().name(),
            policy.version_names().join(" "),
            policy.suite_names().join(" "),
            policy.group_names().join(" ")
        );
        if let Responder::Forward(backend) = &responder {
            eprintln!("forwarding to {backend}");
        }
        if let (Some(metrics), Some(address)) = (&metrics, args.metrics) {
            let listener = tokio::net::TcpListener::bind(address)
                .await
                .map_err(|error| {
                    Failure::input(format!("cannot serve metrics on {address}: {error}"))
                })?;
            let bound = listener
                .local_addr()
                .map_err(|error| Failure::input(error.to_string()))?;
            eprintln!("metrics on http://{bound}/metrics");
            tokio::spawn(regula_tls::metrics::serve(listener, Arc::clone(metrics)));
        }
        // The one stdout line, for scripts that started the server on port 0.
        println!("listening {address}");
        let (sender, receiver) = tokio::sync::watch::channel(serving);
        let reloads = tokio::spawn(reload_on_hangup(reloader, sender));
        let summary = regula_tls::server::run_reloadable(
            listener,
            receiver,
            responder,
            loop_options,
            shutdown_signal(),
        )
        .await;
        reloads.abort();
        Ok::<_, Failure>(summary)
    })?;
    let counters = module.counters();
    let store_summary = store.as_ref().map(|store| {
        let stats = store.stats();
        let load = |counter: &std::sync::atomic::AtomicU64| {
            counter.load(std::sync::atomic::Ordering::Relaxed)
        };
        serde_json::json!({
            "operations": load(&stats.operations),
            "errors": load(&stats.errors),
            "outages": load(&stats.outages),
            "skipped": load(&stats.skipped),
            "hits": load(&stats.hits),
            "misses": load(&stats.misses),
            "unopenable": load(&stats.unopenable),
            "stored": load(&stats.stored),
        })
    });
    if args.json {
        // The connection summary, the session store's counts, and what the service indicator
        // counted, per algorithm and service (the same counts `--cbom` lists).
        let mut report = serde_json::to_value(&summary).unwrap_or_default();
        if let (Some(object), Some(store)) = (report.as_object_mut(), store_summary) {
            object.insert("session_store".to_string(), store);
        }
        report["indicator"] = serde_json::to_value(&counters).unwrap_or_default();
        eprintln!("{}", serde_json::to_string(&report).unwrap_or_default());
    } else {
        if let Some(store) = &store_summary {
            eprintln!("session store: {store}");
        }
        eprintln!(
            "summary: {} connections, {} handshakes, {} handshake failures, {} connection errors, \
             {} with early data, {} bytes in, {} bytes out, {} cut off at shutdown",
            summary.connections,
            summary.handshakes,
            summary.handshake_failures,
            summary.connection_errors,
            summary.early_data_accepted,
            summary.bytes_in,
            summary.bytes_out,
            summary.abandoned
        );
    }
    let not_approved: u64 = counters.iter().map(|row| row.not_approved).sum();
    let approved: u64 = counters.iter().map(|row| row.approved).sum();
    eprintln!("service indicator: {approved} approved operations, {not_approved} not approved");
    Ok(())
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => {},
                    _ = tokio::signal::ctrl_c() => {},
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn connect(policy: &TlsPolicy, args: ConnectArgs) -> Result<(), Failure> {
    let roots = regula_tls::load_roots(&args.ca).map_err(tls_failure)?;
    let host = args
        .servername
        .clone()
        .unwrap_or_else(|| match args.address.rsplit_once(':') {
            Some((host, _)) => host.trim_matches(['[', ']']).to_string(),
            None => args.address.clone(),
        });
    let server_name = ServerName::try_from(host.clone())
        .map_err(|_| Failure::input(format!("`{host}` is not a valid server name")))?;
    let early_data = args
        .early_data
        .as_ref()
        .map(|path| input::read_all(&path.display().to_string()))
        .transpose()?;
    let identity = match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => Some(regula_tls::load_identity(cert, key).map_err(tls_failure)?),
        _ => None,
    };
    let client =
        regula_tls::client::Client::with_identity(policy, roots, early_data.is_some(), identity)
            .map_err(tls_failure)?;
    let connection_failure = |error: TlsError| Failure {
        code: failure::CRYPTO_FAILURE,
        message: format!("{}: {error}", args.address),
    };
    runtime()?.block_on(async {
        if early_data.is_some() {
            client
                .prime_session(&args.address, server_name.clone())
                .await
                .map_err(connection_failure)?;
        }
        let (stream, negotiated) = client
            .connect(&args.address, server_name, early_data.as_deref())
            .await
            .map_err(connection_failure)?;
        if args.json {
            eprintln!("{}", serde_json::to_string(&negotiated).unwrap_or_default());
        } else {
            eprintln!("protocol: {}", negotiated.protocol);
            eprintln!("cipher suite: {}", negotiated.cipher_suite);
            eprintln!("group: {}", negotiated.group.as_deref().unwrap_or("none"));
            eprintln!(
                "signature scheme: {}",
                negotiated
                    .signature_scheme
                    .as_deref()
                    .unwrap_or("none (resumed session)")
            );
            if let Some(accepted) = negotiated.early_data_accepted {
                eprintln!(
                    "early data: {}",
                    if accepted {
                        "accepted"
                    } else {
                        "rejected (sent again after the handshake)"
                    }
                );
            }
        }
        let (mut reader, mut writer) = tokio::io::split(stream);
        let send = async {
            // Large reads let rustls fill whole 16 KiB records and cut per-read overhead.
            let mut stdin = tokio::io::BufReader::with_capacity(1 << 20, tokio::io::stdin());
            tokio::io::copy_buf(&mut stdin, &mut writer).await?;
            writer.shutdown().await
        };
        let receive = async {
            let mut stdout = tokio::io::stdout();
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut buffer).await {
                    Ok(0) => break,
                    Ok(read) => stdout.write_all(&buffer[..read]).await?,
                    Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(error) => return Err(error),
                }
            }
            stdout.flush().await
        };
        let (sent, received) = tokio::join!(send, receive);
        received
            .and(sent)
            .map_err(|error| connection_failure(TlsError::Io(error)))
    })
}
