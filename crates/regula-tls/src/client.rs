//! The client side: certificate verification that records the server's signature scheme, and
//! a connect helper that reports what was negotiated.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use crate::provider::{group_name, scheme_name, suite_name};
use crate::{TlsError, TlsPolicy};

/// WebPKI verification with the policy's verifiers, remembering the scheme the server signed
/// its handshake with (rustls does not report it).
#[derive(Debug)]
pub struct RecordingVerifier {
    inner: Arc<WebPkiServerVerifier>,
    last_scheme: Mutex<Option<SignatureScheme>>,
}

impl RecordingVerifier {
    pub fn new(policy: &TlsPolicy, roots: Arc<RootCertStore>) -> Result<Self, TlsError> {
        let inner =
            WebPkiServerVerifier::builder_with_provider(roots, Arc::clone(&policy.provider))
                .build()
                .map_err(|error| {
                    TlsError::NothingToOffer(format!("certificate verifier: {error}"))
                })?;
        Ok(RecordingVerifier {
            inner,
            last_scheme: Mutex::new(None),
        })
    }

    /// The scheme of the last handshake signature this verifier checked.
    pub fn last_scheme(&self) -> Option<SignatureScheme> {
        *self.last_scheme.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn note(&self, scheme: SignatureScheme) {
        *self.last_scheme.lock().unwrap_or_else(|p| p.into_inner()) = Some(scheme);
    }
}

impl ServerCertVerifier for RecordingVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.inner
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.note(dss.scheme);
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.note(dss.scheme);
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// What a handshake settled on.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Negotiated {
    pub protocol: String,
    pub cipher_suite: String,
    pub group: Option<String>,
    pub signature_scheme: Option<String>,
    pub resumed: bool,
    /// `None` when no early data was offered.
    pub early_data_accepted: Option<bool>,
    pub fips: bool,
}

/// A client for one server, keeping resumption tickets between its connections.
pub struct Client {
    policy_name: String,
    config: Arc<rustls::ClientConfig>,
    verifier: Arc<RecordingVerifier>,
}

impl Client {
    /// `early_data`: offer 0-RTT on resumed TLS 1.3 connections.
    pub fn new(
        policy: &TlsPolicy,
        roots: RootCertStore,
        early_data: bool,
    ) -> Result<Self, TlsError> {
        Client::with_identity(policy, roots, early_data, None)
    }

    /// [`Client::new`] presenting a client certificate when the server asks for one.
    pub fn with_identity(
        policy: &TlsPolicy,
        roots: RootCertStore,
        early_data: bool,
        identity: Option<crate::ClientIdentity>,
    ) -> Result<Self, TlsError> {
        let verifier = Arc::new(RecordingVerifier::new(policy, Arc::new(roots))?);
        let mut config =
            crate::client_config_with_verifier(policy, Arc::clone(&verifier), identity)?;
        config.enable_early_data = early_data;
        Ok(Client {
            policy_name: policy.module().policy().name().to_string(),
            config: Arc::new(config),
            verifier,
        })
    }

    /// The configuration, shared by this client's connections (and its resumption tickets).
    pub fn config(&self) -> Arc<rustls::ClientConfig> {
        Arc::clone(&self.config)
    }

    /// Connects and completes the handshake, sending `early_data` as 0-RTT if a ticket allows
    /// it (if the server rejects it, it is sent again after the handshake, so it is never lost).
    pub async fn connect(
        &self,
        address: &str,
        server_name: ServerName<'static>,
        early_data: Option<&[u8]>,
    ) -> Result<(TlsStream<TcpStream>, Negotiated), TlsError> {
        let tcp = TcpStream::connect(address).await?;
        tcp.set_nodelay(true)?;
        let connector =
            TlsConnector::from(Arc::clone(&self.config)).early_data(early_data.is_some());
        let mut stream = connector.connect(server_name, tcp).await.map_err(|error| {
            let incompatible = crate::rustls_error(&error).is_some_and(|inner| {
                matches!(
                    inner,
                    rustls::Error::PeerIncompatible(_)
                        | rustls::Error::AlertReceived(rustls::AlertDescription::HandshakeFailure)
                )
            });
            if incompatible {
                TlsError::NothingToOffer(format!(
                    "handshake refused: the server accepts no version, suite, group or signature \
                     scheme that policy `{}` serves ({error})",
                    self.policy_name
                ))
            } else {
                TlsError::Io(error)
            }
        })?;
        let mut early_data_accepted = None;
        if let Some(data) = early_data {
            use tokio::io::AsyncWriteExt;
            // Before the handshake completes, tokio-rustls sends writes as early data if the
            // session allows it; flushing completes the handshake.
            stream.write_all(data).await?;
            stream.flush().await?;
            let accepted = stream.get_ref().1.is_early_data_accepted();
            if !accepted {
                stream.write_all(data).await?;
            }
            early_data_accepted = Some(accepted);
        }
        let negotiated = self.describe(&stream, early_data_accepted);
        Ok((stream, negotiated))
    }

    /// Runs one full handshake and waits briefly for the server's session tickets, so that the
    /// next connection can resume (and send early data).
    pub async fn prime_session(
        &self,
        address: &str,
        server_name: ServerName<'static>,
    ) -> Result<Negotiated, TlsError> {
        let (mut stream, negotiated) = self.connect(address, server_name, None).await?;
        let mut buffer = [0u8; 1024];
        // Tickets follow the handshake; a short read processes them without waiting for data.
        let _ = tokio::time::timeout(Duration::from_millis(300), stream.read(&mut buffer)).await;
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut stream).await;
        Ok(negotiated)
    }

    fn describe(
        &self,
        stream: &TlsStream<TcpStream>,
        early_data_accepted: Option<bool>,
    ) -> Negotiated {
        let connection = stream.get_ref().1;
        Negotiated {
            protocol: crate::server::protocol_name(connection.protocol_version()),
            cipher_suite: connection
                .negotiated_cipher_suite()
                .map(|suite| suite_name(suite.suite()))
                .unwrap_or_default(),
            group: connection
                .negotiated_key_exchange_group()
                .map(|group| group_name(group.name())),
            signature_scheme: match connection.handshake_kind() {
                Some(rustls::HandshakeKind::Resumed) => None,
                _ => self.verifier.last_scheme().map(scheme_name),
            },
            resumed: connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed),
            early_data_accepted,
            fips: connection.fips(),
        }
    }
}
