//! The header: its encoding, parsing and MAC.

use std::io::Read;

use serde::Serialize;

use super::keys::{KEY_FILE_BODY_LEN, KIND_KEY_FILE, KIND_PASSPHRASE, PASSPHRASE_BODY_LEN};
use super::recipients::RecipientKind;
use super::{FileError, Prf, SEGMENT_SIZE, Suite, VERSION, aead_from_id, aead_id};
use regula::Algorithm;

/// The first eight bytes of every file: a non-ASCII byte, then "RGF", CR LF, Ctrl-Z, LF, so that
/// a file mangled by a text-mode transfer is recognised as such (the PNG signature's idea).
pub const MAGIC: [u8; 8] = *b"\x89RGF\r\n\x1a\n";
/// Bytes of the nonce prefix; with the 32-bit counter and the flag byte, a 96-bit nonce.
pub(super) const PREFIX_LEN: usize = regula::service::aead::STREAM_PREFIX_LEN;
/// Segment size, as a power of two, written in the header (version 1 knows only 2^16).
const SEGMENT_LOG2: u8 = 16;
/// Limits that keep a hostile header small.
const MAX_POLICY_NAME: usize = 64;
const MAX_STANZAS: usize = 16;

/// One key stanza, as stored.
#[derive(Clone, Debug)]
pub(super) struct Stanza {
    pub kind: u8,
    pub body: Vec<u8>,
}

/// A parsed header.
#[derive(Clone, Debug)]
pub(super) struct Header {
    pub suite: Suite,
    pub nonce_prefix: [u8; PREFIX_LEN],
    pub policy: String,
    pub stanzas: Vec<Stanza>,
    /// Every byte before the MAC: what the MAC covers.
    pub authenticated: Vec<u8>,
    pub mac: Vec<u8>,
}

/// What a header says, for display (`regula decrypt --json`) and checks before unlocking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderInfo {
    pub version: u8,
    #[serde(serialize_with = "algorithm_name")]
    pub aead: Algorithm,
    #[serde(serialize_with = "prf_name")]
    pub prf: Prf,
    /// The policy the file was written under (informational; authenticated by the header MAC).
    pub policy: String,
    pub segment_size: usize,
    pub stanzas: Vec<StanzaInfo>,
    /// Header length in bytes, MAC included.
    pub header_len: usize,
}

/// One key stanza, for display.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StanzaInfo {
    /// PBKDF2 with the file's PRF.
    Passphrase {
        kdf: String,
        iterations: u32,
    },
    KeyFile,
    /// A public-key recipient of the kind named.
    Recipient {
        recipient: String,
    },
}

fn algorithm_name<S: serde::Serializer>(algorithm: &Algorithm, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(algorithm.name())
}

fn prf_name<S: serde::Serializer>(prf: &Prf, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(prf.name())
}

impl Header {
    /// Encodes everything but the MAC.
    pub fn encode(
        suite: Suite,
        nonce_prefix: [u8; PREFIX_LEN],
        policy: &str,
        stanzas: &[Stanza],
    ) -> Result<Vec<u8>, FileError> {
        let aead = aead_id(suite.aead).ok_or_else(|| {
            FileError::Format(format!("{} is not an AEAD of the format", suite.aead))
        })?;
        // A user's policy file may have a long name; the header keeps its first 64 bytes.
        let mut policy = policy.as_bytes();
        if policy.len() > MAX_POLICY_NAME {
            let mut end = MAX_POLICY_NAME;
            while std::str::from_utf8(&policy[..end]).is_err() {
                end -= 1;
            }
            policy = &policy[..end];
        }
        if stanzas.is_empty() || stanzas.len() > MAX_STANZAS {
            return Err(FileError::Format(format!(
                "a file needs 1 to {MAX_STANZAS} key sources, got {}",
                stanzas.len()
            )));
        }
        let mut out = Vec::with_capacity(64 + stanzas.len() * 96);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&[VERSION, aead, suite.prf.id(), SEGMENT_LOG2]);
        out.extend_from_slice(&nonce_prefix);
        out.push(policy.len() as u8);
        out.extend_from_slice(policy);
        out.push(stanzas.len() as u8);
        for stanza in stanzas {
            let len = u16::try_from(stanza.body.len())
                .map_err(|_| FileError::Format("key stanza too long".into()))?;
            out.push(stanza.kind);
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(&stanza.body);
        }
        Ok(out)
    }

    /// Reads and parses a header (MAC included) from the start of `input`, consuming exactly
    /// its bytes. Nothing is authenticated yet: that needs the file key.
    pub fn read(input: &mut impl Read) -> Result<Header, FileError> {
        let mut reader = Recording {
            input,
            bytes: Vec::with_capacity(256),
        };
        let magic: [u8; 8] = reader.array()?;
        if magic != MAGIC {
            return Err(FileError::Format(
                "no Regula encrypted-file signature at the start".into(),
            ));
        }
        let [version, aead, prf, segment_log2] = reader.array()?;
        if version != VERSION {
            return Err(FileError::Format(format!(
                "format version {version} is not supported (this build reads version {VERSION})"
            )));
        }
        let aead = aead_from_id(aead)
            .ok_or_else(|| FileError::Format(format!("unknown AEAD identifier {aead}")))?;
        let prf = Prf::from_id(prf)
            .ok_or_else(|| FileError::Format(format!("unknown PRF identifier {prf}")))?;
        if segment_log2 != SEGMENT_LOG2 || 1usize << segment_log2 != SEGMENT_SIZE {
            return Err(FileError::Format(format!(
                "segment size 2^{segment_log2} is not supported (version 1: 2^16)"
            )));
        }
        let nonce_prefix: [u8; PREFIX_LEN] = reader.array()?;
        let [policy_len] = reader.array()?;
        let policy_len = usize::from(policy_len);
        if policy_len > MAX_POLICY_NAME {
            return Err(FileError::Format("policy name too long".into()));
        }
        let policy = String::from_utf8(reader.bytes(policy_len)?)
            .map_err(|_| FileError::Format("policy name is not UTF-8".into()))?;
        let [count] = reader.array()?;
        let count = usize::from(count);
        if count == 0 || count > MAX_STANZAS {
            return Err(FileError::Format(format!(
                "{count} key stanzas (1 to {MAX_STANZAS} allowed)"
            )));
        }
        let mut stanzas = Vec::with_capacity(count);
        for _ in 0..count {
            let [kind, len_hi, len_lo] = reader.array()?;
            let len = usize::from(u16::from_be_bytes([len_hi, len_lo]));
            let expected = match kind {
                KIND_PASSPHRASE => Some(PASSPHRASE_BODY_LEN),
                KIND_KEY_FILE => Some(KEY_FILE_BODY_LEN),
                _ => RecipientKind::from_id(kind).map(RecipientKind::body_len),
            };
            if expected.is_some_and(|expected| expected != len) {
                return Err(FileError::Format(format!(
                    "key stanza of kind {kind} has {len} bytes"
                )));
            }
            // Unknown kinds (a newer writer's recipients) are kept and skipped when unlocking.
            let body = reader.bytes(len)?;
            stanzas.push(Stanza { kind, body });
        }
        let authenticated = std::mem::take(&mut reader.bytes);
        let mac = reader.bytes(prf.output_len())?;
        Ok(Header {
            suite: Suite { aead, prf },
            nonce_prefix,
            policy,
            stanzas,
            authenticated,
            mac,
        })
    }

    pub fn info(&self) -> HeaderInfo {
        let stanzas = self
            .stanzas
            .iter()
            .filter_map(|stanza| match stanza.kind {
                KIND_PASSPHRASE => Some(StanzaInfo::Passphrase {
                    kdf: format!("pbkdf2-{}", self.suite.prf.name()),
                    iterations: u32::from_be_bytes(stanza.body.get(..4)?.try_into().ok()?),
                }),
                KIND_KEY_FILE => Some(StanzaInfo::KeyFile),
                kind => RecipientKind::from_id(kind).map(|kind| StanzaInfo::Recipient {
                    recipient: kind.name().to_string(),
                }),
            })
            .collect();
        HeaderInfo {
            version: VERSION,
            aead: self.suite.aead,
            prf: self.suite.prf,
            policy: self.policy.clone(),
            segment_size: SEGMENT_SIZE,
            stanzas,
            header_len: self.authenticated.len() + self.mac.len(),
        }
    }
}

/// A reader that keeps what it read, so that the MAC can be checked over the exact bytes.
struct Recording<'a, R: Read> {
    input: &'a mut R,
    bytes: Vec<u8>,
}

impl<R: Read> Recording<'_, R> {
    fn bytes(&mut self, len: usize) -> Result<Vec<u8>, FileError> {
        let mut out = vec![0u8; len];
        self.input.read_exact(&mut out).map_err(|error| {
            if error.kind() == std::io::ErrorKind::UnexpectedEof {
                FileError::Format("the header is truncated".into())
            } else {
                FileError::Io(error)
            }
        })?;
        self.bytes.extend_from_slice(&out);
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FileError> {
        let bytes = self.bytes(N)?;
        bytes
            .try_into()
            .map_err(|_| FileError::Format("the header is truncated".into()))
    }
}
