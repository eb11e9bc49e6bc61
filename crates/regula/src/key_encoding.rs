//! Keys as applications hand them over: PEM or DER, detected.
//!
//! One decoder for every front end (C ABI, Python, CLI). It removes the PEM armour and checks
//! that the key is of the kind the caller needs — a private key as PKCS#8 (`PRIVATE KEY`) or a
//! public key as SubjectPublicKeyInfo (`PUBLIC KEY`) — and nothing more: the key's contents are
//! parsed only by the module's key-import services (AWS-LC, `regula-sm`).
//!
//! Input that does not begin (after ASCII whitespace) with `-----BEGIN` is taken as DER and
//! returned unchanged, because the services also take raw public keys (an ECDSA point, an
//! X25519 or Ed25519 key) where a public key is expected. The only DER check is on the outer
//! shape: a DER document that is plainly a PKCS#8 private key where a public key is expected
//! (or an SPKI public key where a private key is expected) is refused here, so that a private
//! key handed to a public-key slot is named for what it is.
//!
//! Errors never carry key bytes: PEM problems are described in fixed words (the `pem` crate's
//! own messages may quote a base64 byte or a body line), and a label is quoted only shortened.
//! Decoded private keys are held in [`Zeroizing`] buffers. (The `pem` crate keeps a transient
//! whitespace-free copy of the base64 text while decoding, which it does not wipe.)

use std::fmt;

use zeroize::Zeroizing;

/// Which kind of key a caller needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyKind {
    /// A PKCS#8 `PrivateKeyInfo` (RFC 5208 / 5958), PEM label `PRIVATE KEY`.
    Private,
    /// A `SubjectPublicKeyInfo` (RFC 5280), PEM label `PUBLIC KEY`; as DER, also a raw public
    /// key where the service takes one.
    Public,
}

impl KeyKind {
    /// The RFC 7468 PEM label of this kind.
    pub const fn pem_label(self) -> &'static str {
        match self {
            KeyKind::Private => "PRIVATE KEY",
            KeyKind::Public => "PUBLIC KEY",
        }
    }

    /// The other kind.
    const fn other(self) -> KeyKind {
        match self {
            KeyKind::Private => KeyKind::Public,
            KeyKind::Public => KeyKind::Private,
        }
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyKind::Private => "private key",
            KeyKind::Public => "public key",
        })
    }
}

/// How the key was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyForm {
    /// A PEM block (RFC 7468).
    Pem,
    /// DER (or, for public keys, possibly a raw key), passed on unchanged.
    Der,
}

/// A decoded key: its DER bytes (wiped when dropped), its kind and the form it came in.
pub struct KeyDer {
    kind: KeyKind,
    form: KeyForm,
    der: Zeroizing<Vec<u8>>,
}

impl KeyDer {
    /// The kind the caller asked for (and the PEM label or DER shape did not contradict).
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// Whether the key came as PEM or as DER.
    pub fn form(&self) -> KeyForm {
        self.form
    }

    /// The DER bytes, for the module's key-import or public-key services.
    pub fn as_bytes(&self) -> &[u8] {
        &self.der
    }

    /// The DER bytes, still wiped when dropped.
    pub fn into_der(self) -> Zeroizing<Vec<u8>> {
        self.der
    }
}

impl std::ops::Deref for KeyDer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.der
    }
}

impl fmt::Debug for KeyDer {
    /// Never the key bytes, only what they are.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyDer")
            .field("kind", &self.kind)
            .field("form", &self.form)
            .field("len", &self.der.len())
            .finish()
    }
}

/// What is wrong with a PEM block, in words that never quote its body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PemProblem {
    /// No `-----BEGIN …-----` … `-----END …-----` pair.
    Framing,
    /// `-----BEGIN -----` with an empty label.
    MissingBeginLabel,
    /// `-----END -----` with an empty label.
    MissingEndLabel,
    /// The BEGIN and END labels differ.
    MismatchedLabels,
    /// The body is not valid base64.
    Base64,
    /// A line before a blank line inside the block is not a `Name: value` header.
    Header,
    /// The armour or body is not UTF-8.
    NotUtf8,
    /// The block holds no data.
    NoData,
}

impl fmt::Display for PemProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PemProblem::Framing => "no complete -----BEGIN/-----END armour",
            PemProblem::MissingBeginLabel => "the BEGIN line has no label",
            PemProblem::MissingEndLabel => "the END line has no label",
            PemProblem::MismatchedLabels => "the BEGIN and END labels differ",
            PemProblem::Base64 => "the body is not valid base64",
            PemProblem::Header => "a malformed header line, or a blank line inside the body",
            PemProblem::NotUtf8 => "not UTF-8 text",
            PemProblem::NoData => "the block holds no data",
        })
    }
}

impl From<&pem::PemError> for PemProblem {
    fn from(error: &pem::PemError) -> PemProblem {
        match error {
            pem::PemError::MismatchedTags(..) => PemProblem::MismatchedLabels,
            pem::PemError::MalformedFraming => PemProblem::Framing,
            pem::PemError::MissingBeginTag => PemProblem::MissingBeginLabel,
            pem::PemError::MissingEndTag => PemProblem::MissingEndLabel,
            pem::PemError::MissingData => PemProblem::NoData,
            pem::PemError::InvalidData(_) => PemProblem::Base64,
            pem::PemError::InvalidHeader(_) => PemProblem::Header,
            pem::PemError::NotUtf8(_) => PemProblem::NotUtf8,
        }
    }
}

/// Why a key could not be decoded. Never carries key material.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyEncodingError {
    /// Nothing (or only whitespace) was given.
    Empty { expected: KeyKind },
    /// The input begins like PEM but is not a well-formed PEM block.
    Pem { problem: PemProblem },
    /// A PEM block whose label is neither key kind Regula takes (`CERTIFICATE`,
    /// `EC PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, ...). The label is shortened to 64 characters
    /// and control characters are replaced.
    UnsupportedLabel { label: String, expected: KeyKind },
    /// A key of the other kind: a private key where a public key is needed, or the reverse.
    WrongKind {
        found: KeyKind,
        expected: KeyKind,
        form: KeyForm,
    },
}

impl KeyEncodingError {
    /// How to turn a key under `label` into what Regula takes, when there is a usual way.
    fn hint(label: &str, expected: KeyKind) -> &'static str {
        match (label, expected) {
            ("EC PRIVATE KEY" | "RSA PRIVATE KEY" | "DSA PRIVATE KEY", KeyKind::Private) => {
                "; convert it to PKCS#8 (`openssl pkcs8 -topk8 -nocrypt`)"
            }
            ("ENCRYPTED PRIVATE KEY", KeyKind::Private) => {
                "; encrypted keys are not supported: decrypt it first \
                 (`openssl pkcs8 -topk8 -nocrypt`)"
            }
            ("RSA PUBLIC KEY", KeyKind::Public) => {
                "; convert it to SubjectPublicKeyInfo (`openssl rsa -RSAPublicKey_in -pubout`)"
            }
            ("CERTIFICATE", KeyKind::Public) => {
                "; extract its public key (`openssl x509 -pubkey -noout`)"
            }
            _ => "",
        }
    }
}

impl fmt::Display for KeyEncodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyEncodingError::Empty { expected } => {
                write!(f, "the {expected} is empty (expected PEM or DER)")
            }
            KeyEncodingError::Pem { problem } => write!(f, "bad PEM ({problem})"),
            KeyEncodingError::UnsupportedLabel { label, expected } => write!(
                f,
                "PEM label is `{label}`, expected `{}`{}",
                expected.pem_label(),
                KeyEncodingError::hint(label, *expected)
            ),
            KeyEncodingError::WrongKind {
                found,
                expected,
                form: KeyForm::Pem,
            } => write!(
                f,
                "PEM label is `{}`, expected `{}`: a {found} was given where a {expected} \
                 is needed",
                found.pem_label(),
                expected.pem_label()
            ),
            KeyEncodingError::WrongKind {
                found,
                expected,
                form: KeyForm::Der,
            } => write!(
                f,
                "the DER is a {}, expected a {}: a {found} was given where a {expected} is needed",
                der_name(*found),
                der_name(*expected)
            ),
        }
    }
}

impl std::error::Error for KeyEncodingError {}

fn der_name(kind: KeyKind) -> &'static str {
    match kind {
        KeyKind::Private => "PKCS#8 private key",
        KeyKind::Public => "SubjectPublicKeyInfo public key",
    }
}

/// A label as it may appear in a message: at most 64 characters, no control characters.
fn printable_label(label: &str) -> String {
    const MAX: usize = 64;
    let mut printable: String = label
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if label.chars().count() > MAX {
        printable.push('…');
    }
    printable
}

/// Decodes a key of `expected` kind given as PEM or DER (see the module documentation).
pub fn decode(input: &[u8], expected: KeyKind) -> Result<KeyDer, KeyEncodingError> {
    let text = input.trim_ascii_start();
    if text.is_empty() {
        return Err(KeyEncodingError::Empty { expected });
    }
    if text.starts_with(b"-----BEGIN") {
        return decode_pem(text, expected);
    }
    if der_shape(input) == Some(expected.other()) {
        return Err(KeyEncodingError::WrongKind {
            found: expected.other(),
            expected,
            form: KeyForm::Der,
        });
    }
    Ok(KeyDer {
        kind: expected,
        form: KeyForm::Der,
        der: Zeroizing::new(input.to_vec()),
    })
}

/// [`decode`] for a PKCS#8 private key.
pub fn decode_private_key(input: &[u8]) -> Result<KeyDer, KeyEncodingError> {
    decode(input, KeyKind::Private)
}

/// [`decode`] for a SubjectPublicKeyInfo public key (or, as DER, a raw public key).
pub fn decode_public_key(input: &[u8]) -> Result<KeyDer, KeyEncodingError> {
    decode(input, KeyKind::Public)
}

/// The first PEM block of `text` (text after it is ignored, as every front end did), checked
/// against the expected label.
fn decode_pem(text: &[u8], expected: KeyKind) -> Result<KeyDer, KeyEncodingError> {
    let block = pem::parse(text).map_err(|error| KeyEncodingError::Pem {
        problem: PemProblem::from(&error),
    })?;
    let found = if block.tag() == expected.pem_label() {
        expected
    } else if block.tag() == expected.other().pem_label() {
        return Err(KeyEncodingError::WrongKind {
            found: expected.other(),
            expected,
            form: KeyForm::Pem,
        });
    } else {
        return Err(KeyEncodingError::UnsupportedLabel {
            label: printable_label(block.tag()),
            expected,
        });
    };
    let der = Zeroizing::new(block.into_contents());
    if der.is_empty() {
        return Err(KeyEncodingError::Pem {
            problem: PemProblem::NoData,
        });
    }
    Ok(KeyDer {
        kind: found,
        form: KeyForm::Pem,
        der,
    })
}

// ---------------------------------------------------------------------------------------------
// The outer DER shape only: tags and lengths, never the key inside.

const INTEGER: u8 = 0x02;
const BIT_STRING: u8 = 0x03;
const OCTET_STRING: u8 = 0x04;
const OBJECT_IDENTIFIER: u8 = 0x06;
const SEQUENCE: u8 = 0x30;

/// One DER element: its tag (single-byte tags only), its contents and what follows it.
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    if tag & 0x1f == 0x1f {
        return None; // a multi-byte tag: not part of either shape
    }
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = match first {
        0..=0x7f => (usize::from(first), rest),
        0x81..=0x84 => {
            let count = usize::from(first & 0x7f);
            if rest.len() < count {
                return None;
            }
            let (bytes, rest) = rest.split_at(count);
            let len = bytes
                .iter()
                .fold(0usize, |len, &byte| (len << 8) | usize::from(byte));
            (len, rest)
        }
        _ => return None, // indefinite or absurd lengths are not DER keys
    };
    if rest.len() < len {
        return None;
    }
    let (contents, rest) = rest.split_at(len);
    Some((tag, contents, rest))
}

/// An `AlgorithmIdentifier`: a SEQUENCE that starts with an OBJECT IDENTIFIER.
fn is_algorithm_identifier(tag: u8, contents: &[u8]) -> bool {
    tag == SEQUENCE && matches!(element(contents), Some((OBJECT_IDENTIFIER, _, _)))
}

/// Which key structure `der` plainly is, if either: exactly one SEQUENCE holding
/// `INTEGER, AlgorithmIdentifier, OCTET STRING, ...` (PKCS#8 `PrivateKeyInfo` /
/// `OneAsymmetricKey`) or exactly `AlgorithmIdentifier, BIT STRING` (SubjectPublicKeyInfo).
fn der_shape(der: &[u8]) -> Option<KeyKind> {
    let (SEQUENCE, body, []) = element(der)? else {
        return None;
    };
    let (first_tag, first, rest) = element(body)?;
    let (second_tag, second, rest) = element(rest)?;
    if first_tag == INTEGER && is_algorithm_identifier(second_tag, second) {
        let (OCTET_STRING, _, _) = element(rest)? else {
            return None;
        };
        return Some(KeyKind::Private);
    }
    if is_algorithm_identifier(first_tag, first) && second_tag == BIT_STRING && rest.is_empty() {
        return Some(KeyKind::Public);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_in_long_form_and_bad_lengths() {
        let mut long = vec![SEQUENCE, 0x82, 0x01, 0x00];
        long.extend_from_slice(&[0u8; 256]);
        let (tag, contents, rest) = element(&long).unwrap();
        assert_eq!((tag, contents.len(), rest.len()), (SEQUENCE, 256, 0));
        assert_eq!(element(&[SEQUENCE, 0x82, 0x01]), None);
        assert_eq!(element(&[SEQUENCE, 0x80]), None);
        assert_eq!(element(&[SEQUENCE, 0x85, 1, 1, 1, 1, 1]), None);
        assert_eq!(element(&[SEQUENCE, 0x03, 0x00]), None);
        assert_eq!(element(&[0x1f, 0x00]), None);
        assert_eq!(element(&[]), None);
    }

    #[test]
    fn shapes() {
        // SEQUENCE { INTEGER 0, SEQUENCE { OID 1.2 }, OCTET STRING {} }
        let private = [
            0x30, 0x0a, 0x02, 0x01, 0x00, 0x30, 0x03, 0x06, 0x01, 0x2a, 0x04, 0x00,
        ];
        assert_eq!(der_shape(&private), Some(KeyKind::Private));
        // SEQUENCE { SEQUENCE { OID 1.2 }, BIT STRING { 0 unused bits } }
        let public = [0x30, 0x08, 0x30, 0x03, 0x06, 0x01, 0x2a, 0x03, 0x01, 0x00];
        assert_eq!(der_shape(&public), Some(KeyKind::Public));
        // Trailing bytes, a missing OID, or SEC 1's INTEGER, OCTET STRING: neither shape.
        assert_eq!(der_shape(&[&public[..], &[0][..]].concat()), None);
        let no_oid = [0x30, 0x07, 0x30, 0x02, 0x05, 0x00, 0x03, 0x01, 0x00];
        assert_eq!(der_shape(&no_oid), None);
        let sec1 = [0x30, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x00];
        assert_eq!(der_shape(&sec1), None);
        assert_eq!(der_shape(&[0x04; 65]), None);
    }

    #[test]
    fn labels_in_messages_are_short_and_printable() {
        assert_eq!(printable_label("CERTIFICATE"), "CERTIFICATE");
        assert_eq!(printable_label("A\u{7}B"), "A?B");
        let long = "X".repeat(100);
        assert_eq!(printable_label(&long), format!("{}…", "X".repeat(64)));
    }

    #[test]
    fn debug_never_shows_the_key() {
        let key = decode(&[0x30, 0x01, 0xaa], KeyKind::Private).unwrap();
        let debug = format!("{key:?}");
        assert!(!debug.contains("aa") && !debug.contains("170"), "{debug}");
        assert!(debug.contains("len: 3"), "{debug}");
    }
}
