//! Checks made on the bytes of a connection's first flight, before rustls sees them.
//!
//! rustls 0.23 accepts some ClientHello flights that RFC 8446 says to refuse, or refuses them
//! with another alert or none. The server reads the records that carry the ClientHello itself
//! (in one buffered read when the hello fits one segment, which is the common case), checks
//! them here, and either answers with a plaintext alert or hands every byte read to rustls.
//!
//! What is checked here (each refusal names the RFC section):
//! - record version major byte other than 3: `protocol_version` (RFC 8446 §5.1, App. D.5);
//! - a handshake record longer than 2^14 bytes: `record_overflow` (§5.1);
//! - a zero-length handshake record, or a record of another type between the fragments of the
//!   ClientHello: `unexpected_message` (§5.1);
//! - `ClientHello.legacy_version` of 0x0300 or less: `protocol_version` (App. D.5);
//! - a TLS 1.3 ClientHello with `supported_groups` but no `key_share` (or the reverse), or with
//!   neither `pre_shared_key` nor `signature_algorithms`: `missing_extension` (§9.2);
//! - a ClientHello over 65,535 bytes, which rustls cannot take: `handshake_failure` (a
//!   deviation, documented in the README);
//! - no offered signature scheme the certificate's key can sign with: `handshake_failure`
//!   before the ServerHello (§4.2.3), decided in [`crate::server`] with the certificate rustls
//!   would use.
//!
//! Anything else (including a ClientHello that does not parse) is left to rustls.

use rustls::{AlertDescription, SignatureScheme};

/// The largest plaintext record fragment (RFC 8446 §5.1).
pub const MAX_PLAINTEXT_FRAGMENT: usize = 1 << 14;

/// The largest ClientHello rustls takes: it refuses handshake messages over 2^16 − 1 bytes.
/// A longer one is refused here with `handshake_failure` (a deviation: RFC 8446 sets no such
/// limit), and the server drains the rest so that the alert is not lost to a TCP reset.
pub const MAX_CLIENT_HELLO: usize = 0xffff;

const CONTENT_HANDSHAKE: u8 = 22;
const HANDSHAKE_CLIENT_HELLO: u8 = 1;
const EXT_SUPPORTED_GROUPS: u16 = 10;
const EXT_SIGNATURE_ALGORITHMS: u16 = 13;
const EXT_PRE_SHARED_KEY: u16 = 41;
const EXT_SUPPORTED_VERSIONS: u16 = 43;
const EXT_KEY_SHARE: u16 = 51;
const TLS13: u16 = 0x0304;

/// A refused first flight: the alert to send and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub alert: AlertDescription,
    pub reason: String,
}

impl Refusal {
    fn new(alert: AlertDescription, reason: impl Into<String>) -> Refusal {
        Refusal {
            alert,
            reason: reason.into(),
        }
    }

    /// The alert as a plaintext TLS record (level fatal).
    pub fn record(&self) -> [u8; 7] {
        [21, 3, 3, 0, 2, 2, u8::from(self.alert)]
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?} alert sent)", self.reason, self.alert)
    }
}

/// What a well-formed ClientHello offers, as far as the checks here need it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelloSummary {
    pub legacy_version: u16,
    pub offers_tls13: bool,
    /// `None` when the extension is absent.
    pub signature_schemes: Option<Vec<SignatureScheme>>,
    pub has_supported_groups: bool,
    pub has_key_share: bool,
    pub has_pre_shared_key: bool,
}

impl HelloSummary {
    /// The offered schemes rustls would consider for a TLS 1.3 CertificateVerify (no SHA-1,
    /// SHA-224, MD5, RSA PKCS#1 v1.5 or DSA; RFC 8446 §4.2.3).
    pub fn tls13_schemes(&self) -> Vec<SignatureScheme> {
        self.signature_schemes
            .iter()
            .flatten()
            .copied()
            .filter(|scheme| {
                let [hash, sign] = u16::from(*scheme).to_be_bytes();
                // Hash: none, MD5, SHA-1, SHA-224; signature: anonymous, RSA PKCS#1, DSA.
                !matches!(hash, 0..=3) && !matches!(sign, 0..=2)
            })
            .collect()
    }
}

/// The outcome of examining the bytes read so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The ClientHello is not complete yet: read more.
    NeedMore,
    /// Hand the bytes to rustls; with the ClientHello's summary when it parsed.
    Pass(Option<HelloSummary>),
    /// Answer with this alert and close.
    Refuse(Refusal),
}

fn record_name(content_type: u8) -> &'static str {
    match content_type {
        20 => "change_cipher_spec",
        21 => "alert",
        22 => "handshake",
        23 => "application_data",
        _ => "unknown-type",
    }
}

/// Examines the first bytes a client sent. `tls13` says whether the server offers TLS 1.3 (the
/// §9.2 extension rules apply only then).
pub fn examine(bytes: &[u8], tls13: bool) -> Verdict {
    let mut position = 0;
    let mut handshake: Vec<u8> = Vec::new();
    loop {
        let Some(header) = bytes.get(position..position + 5) else {
            return Verdict::NeedMore;
        };
        let content_type = header[0];
        let length = usize::from(u16::from_be_bytes([header[3], header[4]]));
        if content_type != CONTENT_HANDSHAKE {
            if position == 0 && !matches!(content_type, 20 | 21 | 23) {
                // Not TLS at all: rustls answers it.
                return Verdict::Pass(None);
            }
            if position == 0 {
                return Verdict::Refuse(Refusal::new(
                    AlertDescription::UnexpectedMessage,
                    format!(
                        "a {} record before the ClientHello (RFC 8446 §5)",
                        record_name(content_type)
                    ),
                ));
            }
            return Verdict::Refuse(Refusal::new(
                AlertDescription::UnexpectedMessage,
                format!(
                    "a {} record between the fragments of the ClientHello (RFC 8446 §5.1)",
                    record_name(content_type)
                ),
            ));
        }
        if header[1] != 3 {
            return Verdict::Refuse(Refusal::new(
                AlertDescription::ProtocolVersion,
                format!(
                    "record version {}.{} is not TLS (RFC 8446 §5.1, App. D.5)",
                    header[1], header[2]
                ),
            ));
        }
        if length == 0 {
            return Verdict::Refuse(Refusal::new(
                AlertDescription::UnexpectedMessage,
                "a zero-length handshake record (RFC 8446 §5.1)",
            ));
        }
        if length > MAX_PLAINTEXT_FRAGMENT {
            return Verdict::Refuse(Refusal::new(
                AlertDescription::RecordOverflow,
                format!(
                    "a {length}-byte plaintext record, over the 2^14-byte limit (RFC 8446 §5.1)"
                ),
            ));
        }
        let Some(fragment) = bytes.get(position + 5..position + 5 + length) else {
            return Verdict::NeedMore;
        };
        position += 5 + length;
        if position == 5 + length && length >= 4 {
            // The common case, a ClientHello in one record: no copy.
            if let Some(verdict) = complete_hello(fragment, tls13) {
                return verdict;
            }
        }
        handshake.extend_from_slice(fragment);
        if let Some(verdict) = complete_hello(&handshake, tls13) {
            return verdict;
        }
    }
}

/// The verdict once `handshake` holds a whole ClientHello; `None` while it does not.
fn complete_hello(handshake: &[u8], tls13: bool) -> Option<Verdict> {
    let header = handshake.get(..4)?;
    if header[0] != HANDSHAKE_CLIENT_HELLO {
        // rustls answers an unexpected handshake message.
        return Some(Verdict::Pass(None));
    }
    let length = u32::from_be_bytes([0, header[1], header[2], header[3]]) as usize;
    if length > MAX_CLIENT_HELLO {
        return Some(Verdict::Refuse(Refusal::new(
            AlertDescription::HandshakeFailure,
            format!(
                "a {length}-byte ClientHello, over the 65,535-byte limit rustls sets on handshake \
                 messages (a documented deviation: RFC 8446 sets none)"
            ),
        )));
    }
    let body = handshake.get(4..4 + length)?;
    Some(check_hello(body, tls13))
}

/// A cursor over a ClientHello; every read fails softly (rustls reports malformed input).
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Option<&'a [u8]> {
        if self.0.len() < count {
            return None;
        }
        let (head, rest) = self.0.split_at(count);
        self.0 = rest;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u16(&mut self) -> Option<u16> {
        let bytes = self.take(2)?;
        Some(u16::from_be_bytes([bytes[0], bytes[1]]))
    }

    fn vector8(&mut self) -> Option<&'a [u8]> {
        let length = usize::from(self.u8()?);
        self.take(length)
    }

    fn vector16(&mut self) -> Option<&'a [u8]> {
        let length = usize::from(self.u16()?);
        self.take(length)
    }
}

fn check_hello(body: &[u8], tls13: bool) -> Verdict {
    let mut reader = Reader(body);
    let Some(legacy_version) = reader.u16() else {
        return Verdict::Pass(None);
    };
    if legacy_version <= 0x0300 {
        return Verdict::Refuse(Refusal::new(
            AlertDescription::ProtocolVersion,
            format!(
                "ClientHello.legacy_version {}.{} (0x0300 or less: RFC 8446 App. D.5)",
                legacy_version >> 8,
                legacy_version & 0xff
            ),
        ));
    }
    match summarize(reader, legacy_version) {
        Some(summary) => match extension_rules(&summary, tls13) {
            Some(refusal) => Verdict::Refuse(refusal),
            None => Verdict::Pass(Some(summary)),
        },
        None => Verdict::Pass(None),
    }
}

fn summarize(mut reader: Reader<'_>, legacy_version: u16) -> Option<HelloSummary> {
    reader.take(32)?; // random
    reader.vector8()?; // legacy_session_id
    reader.vector16()?; // cipher_suites
    reader.vector8()?; // legacy_compression_methods
    let mut summary = HelloSummary {
        legacy_version,
        ..HelloSummary::default()
    };
    if reader.0.is_empty() {
        return Some(summary);
    }
    let mut extensions = Reader(reader.vector16()?);
    if !reader.0.is_empty() {
        return None;
    }
    while !extensions.0.is_empty() {
        let kind = extensions.u16()?;
        let mut data = Reader(extensions.vector16()?);
        match kind {
            EXT_SUPPORTED_VERSIONS => {
                let mut versions = Reader(data.vector8()?);
                while let Some(version) = versions.u16() {
                    summary.offers_tls13 |= version == TLS13;
                }
            }
            EXT_SIGNATURE_ALGORITHMS => {
                let mut schemes = Reader(data.vector16()?);
                let mut list = Vec::with_capacity(schemes.0.len() / 2);
                while let Some(scheme) = schemes.u16() {
                    list.push(SignatureScheme::from(scheme));
                }
                summary.signature_schemes = Some(list);
            }
            EXT_SUPPORTED_GROUPS => summary.has_supported_groups = true,
            EXT_KEY_SHARE => summary.has_key_share = true,
            EXT_PRE_SHARED_KEY => summary.has_pre_shared_key = true,
            _ => {}
        }
    }
    Some(summary)
}

/// RFC 8446 §9.2's rules for a TLS 1.3 ClientHello.
fn extension_rules(summary: &HelloSummary, tls13: bool) -> Option<Refusal> {
    if !(tls13 && summary.offers_tls13) {
        return None;
    }
    let missing = |what: &str| {
        Some(Refusal::new(
            AlertDescription::MissingExtension,
            format!("a TLS 1.3 ClientHello {what} (RFC 8446 §9.2)"),
        ))
    };
    if summary.has_supported_groups && !summary.has_key_share {
        return missing("with supported_groups but no key_share");
    }
    if summary.has_key_share && !summary.has_supported_groups {
        return missing("with key_share but no supported_groups");
    }
    if !summary.has_pre_shared_key && summary.signature_schemes.is_none() {
        return missing("without pre_shared_key or signature_algorithms");
    }
    if !summary.has_pre_shared_key && !summary.has_supported_groups {
        return missing("without pre_shared_key or supported_groups");
    }
    None
}
