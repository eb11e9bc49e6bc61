//! TLS whose protocols, cipher suites, key-exchange groups and signature schemes come from a
//! Regula policy.
//!
//! ```no_run
//! # fn main() -> Result<(), regula_tls::TlsError> {
//! let module = regula::Module::load(regula::Policy::builtin(regula::Profile::Fips1403));
//! let (certs, key) = regula_tls::load_identity("server.pem".as_ref(), "server.key".as_ref())?;
//! let config = regula_tls::server_config(&module, certs, key)?;
//! // In a `fips` build, every primitive is the validated AWS-LC module's:
//! # let _ = config.fips();
//! # Ok(()) }
//! ```
//!
//! Under `fips-140-3` a server offers TLS 1.2 (with the extended master secret required) and
//! TLS 1.3, AES-GCM suites, P-256/P-384 and the ML-KEM hybrids, and ECDSA/RSA-PSS/RSA/Ed25519
//! signatures; under `default` rustls' own defaults; a policy file narrows either. Every record,
//! key-schedule step, key exchange and signature passes the module's gate: it counts in the
//! service indicator and counters, and is refused once the module is in its error state.

#![forbid(unsafe_code)]

pub mod accounting;
pub mod catalog;
pub mod certgen;
pub mod client;
pub mod metrics;
pub mod provider;
pub mod rfc8998;
pub mod server;
pub mod store;
pub mod wire;
mod x509;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use regula::Module;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore, ServerConfig};

pub use provider::TlsPolicy;

/// Why a TLS configuration or endpoint could not be set up.
#[derive(Debug)]
pub enum TlsError {
    /// The module failed a self-test and serves nothing.
    ModuleInErrorState(String),
    /// The policy leaves no suite, group or signature scheme to offer.
    NothingToOffer(String),
    /// rustls refused the configuration (e.g. a key the policy's schemes cannot use).
    Rustls(rustls::Error),
    /// A certificate or key file could not be read or parsed.
    File { path: PathBuf, message: String },
    /// Socket-level failure.
    Io(std::io::Error),
    /// The session store could not be set up (bad address, unusable fleet key).
    Store(String),
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlsError::ModuleInErrorState(test) => write!(
                f,
                "the module is in its error state (self-test {test} failed) and serves no TLS"
            ),
            TlsError::NothingToOffer(message) => f.write_str(message),
            TlsError::Rustls(error) => write!(f, "TLS configuration refused: {error}"),
            TlsError::File { path, message } => write!(f, "{}: {message}", path.display()),
            TlsError::Io(error) => write!(f, "{error}"),
            TlsError::Store(message) => write!(f, "session store: {message}"),
        }
    }
}

impl std::error::Error for TlsError {}

impl From<rustls::Error> for TlsError {
    fn from(error: rustls::Error) -> TlsError {
        TlsError::Rustls(error)
    }
}

impl From<std::io::Error> for TlsError {
    fn from(error: std::io::Error) -> TlsError {
        TlsError::Io(error)
    }
}

/// The rustls error behind an I/O error from tokio-rustls, if that is what it carries.
pub(crate) fn rustls_error(error: &std::io::Error) -> Option<&rustls::Error> {
    error.get_ref()?.downcast_ref::<rustls::Error>()
}

/// Session-level options of a server; the protocol itself comes from the policy.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Accept up to this many bytes of TLS 1.3 0-RTT data on resumed sessions (0 = off).
    /// Tickets are then single-use entries in a server-side store, so a replayed ClientHello
    /// cannot resume and its early data is rejected.
    pub max_early_data: u32,
    /// How many sessions the in-memory ticket store holds; the oldest are dropped first.
    pub session_store_size: usize,
    /// A store shared by a fleet (e.g. [`store::RedisSessionStore`]) instead of the in-memory
    /// one: a ticket taken by one server is gone for all of them.
    pub session_store: Option<Arc<dyn rustls::server::StoresServerSessions>>,
    /// Require a client certificate chaining to one of these anchors (mutual TLS), verified
    /// with the policy's signature algorithms.
    pub client_ca: Option<Arc<RootCertStore>>,
    /// TLS 1.3 tickets sent after each handshake (each is single-use; with a shared store each
    /// costs one write).
    pub tls13_tickets: usize,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            max_early_data: 0,
            session_store_size: 256,
            session_store: None,
            client_ca: None,
            tls13_tickets: 2,
        }
    }
}

/// A server configuration that offers only what `module`'s policy serves.
pub fn server_config(
    module: &Module,
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<ServerConfig, TlsError> {
    server_config_with(module, certs, key, &ServerOptions::default())
}

/// [`server_config`] with session options.
pub fn server_config_with(
    module: &Module,
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    options: &ServerOptions,
) -> Result<ServerConfig, TlsError> {
    let policy = TlsPolicy::for_module(module)?;
    let builder = ServerConfig::builder_with_provider(Arc::clone(&policy.provider))
        .with_protocol_versions(&policy.versions)?;
    let builder = match &options.client_ca {
        Some(roots) => {
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::clone(roots),
                Arc::clone(&policy.provider),
            )
            .build()
            .map_err(|error| {
                TlsError::NothingToOffer(format!("client certificate verifier: {error}"))
            })?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_single_cert(certs, key)?;
    config.require_ems = policy.require_ems;
    config.send_tls13_tickets = options.tls13_tickets;
    // Stateful tickets only (rustls' default ticketer is off): a stateless ticket could be
    // replayed, so rustls accepts 0-RTT only when sessions are taken from this store.
    config.session_storage = match &options.session_store {
        Some(store) => Arc::clone(store),
        None => rustls::server::ServerSessionMemoryCache::new(options.session_store_size.max(1)),
    };
    if options.max_early_data > 0 && policy.versions.contains(&&rustls::version::TLS13) {
        config.max_early_data_size = options.max_early_data;
    }
    Ok(config)
}

/// A client configuration that offers only what `module`'s policy serves, trusting `roots`.
pub fn client_config(module: &Module, roots: RootCertStore) -> Result<ClientConfig, TlsError> {
    let policy = TlsPolicy::for_module(module)?;
    let verifier = client::RecordingVerifier::new(&policy, Arc::new(roots))?;
    client_config_with_verifier(&policy, Arc::new(verifier), None)
}

/// A client certificate chain and its key, for mutual TLS.
pub type ClientIdentity = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

pub(crate) fn client_config_with_verifier(
    policy: &TlsPolicy,
    verifier: Arc<client::RecordingVerifier>,
    identity: Option<ClientIdentity>,
) -> Result<ClientConfig, TlsError> {
    let builder = ClientConfig::builder_with_provider(Arc::clone(&policy.provider))
        .with_protocol_versions(&policy.versions)?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut config = match identity {
        Some((certs, key)) => builder.with_client_auth_cert(certs, key)?,
        None => builder.with_no_client_auth(),
    };
    config.require_ems = policy.require_ems;
    Ok(config)
}

/// Reads a PEM certificate chain and a PEM private key (PKCS#8, SEC1 or PKCS#1).
pub fn load_identity(
    cert_path: &Path,
    key_path: &Path,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), TlsError> {
    let certs = load_certs(cert_path)?;
    let key = PrivateKeyDer::from_pem_file(key_path).map_err(|error| TlsError::File {
        path: key_path.to_path_buf(),
        message: format!("no usable PEM private key: {error}"),
    })?;
    Ok((certs, key))
}

/// Reads every certificate of a PEM file; at least one must be there.
pub fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let file_error = |message: String| TlsError::File {
        path: path.to_path_buf(),
        message,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|error| file_error(format!("cannot read certificates: {error}")))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| file_error(format!("bad PEM certificate: {error}")))?;
    if certs.is_empty() {
        return Err(file_error("no CERTIFICATE block found".to_string()));
    }
    Ok(certs)
}

/// Trust anchors from a PEM file.
pub fn load_roots(path: &Path) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for cert in load_certs(path)? {
        roots.add(cert).map_err(|error| TlsError::File {
            path: path.to_path_buf(),
            message: format!("not a usable trust anchor: {error}"),
        })?;
    }
    Ok(roots)
}

/// The rustls version these configurations are built for.
pub use rustls;
