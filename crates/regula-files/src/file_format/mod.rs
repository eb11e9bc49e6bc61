//! Encrypted files: a streaming, segmented AEAD format whose algorithms follow the policy.
//!
//! The format is specified in `docs/file-format.md` (version 1), with test vectors in
//! `docs/file-format-vectors/`. In short: a header names the AEAD, the PRF, the policy the file
//! was written under and one stanza per key source (passphrase, raw key file), each wrapping the
//! same random 256-bit file key; an HMAC over the header, keyed from the file key, binds it; the
//! payload key is derived from the file key and that MAC; the payload is cut into 64 KiB
//! segments sealed in the STREAM construction (Hoang, Reyhanitabar, Rogaway, Vizár, "Online
//! Authenticated-Encryption and its Nonce-Reuse Misuse-Resistance", CRYPTO 2015): the nonce of
//! segment *i* is `prefix(7) ‖ i (32-bit big-endian) ‖ last-segment flag (1)`.
//!
//! Truncation, reordering, segment swaps between files, header edits and trailing data are all
//! detected; no plaintext of a segment is released before its tag verifies.
//!
//! ```
//! use std::io::{Read, Write};
//! use regula::{Module, Policy, Profile};
//! use regula_files::file_format::{Decryptor, Encryptor, Identity};
//!
//! let module = Module::load(Policy::builtin(Profile::Fips1403));
//! let mut encryptor = Encryptor::new(&module).unwrap();
//! encryptor.add_passphrase(b"correct horse battery staple", 1000).unwrap();
//! let mut writer = encryptor.writer(Vec::new()).unwrap();
//! writer.write_all(b"attack at dawn").unwrap();
//! let (file, _summary) = writer.finish().unwrap();
//!
//! let decryptor = Decryptor::new(&module, file.as_slice()).unwrap();
//! assert_eq!(decryptor.header().aead, regula::Algorithm::Aes256Gcm);
//! let mut reader = decryptor
//!     .unlock(&Identity::Passphrase(b"correct horse battery staple"))
//!     .unwrap();
//! let mut plaintext = Vec::new();
//! reader.read_to_end(&mut plaintext).unwrap();
//! assert_eq!(plaintext, b"attack at dawn");
//! ```

mod header;
mod keys;
mod recipients;
mod stream;

use std::fmt;

use regula::{Algorithm, Error, ErrorKind, Policy};

pub use header::{HeaderInfo, StanzaInfo};
pub use keys::{Identity, KEY_FILE_LEN, new_key};
pub use recipients::{Recipient, RecipientIdentity, RecipientKind};
pub use stream::{DecryptingReader, Decryptor, EncryptingWriter, Encryptor, Summary};

/// The format version this code writes and reads.
pub const VERSION: u8 = 1;
/// Plaintext bytes per segment (the last one may be shorter).
pub const SEGMENT_SIZE: usize = 1 << 16;
/// Every AEAD the format admits has a 16-byte tag.
pub const TAG_LEN: usize = 16;
/// Ciphertext bytes per full segment.
pub const SEALED_SEGMENT_SIZE: usize = SEGMENT_SIZE + TAG_LEN;
/// The iteration count `regula encrypt` uses for passphrases (OWASP's 2023 figure for
/// PBKDF2-HMAC-SHA-256); the library accepts down to [`MIN_ITERATIONS`].
pub const DEFAULT_ITERATIONS: u32 = 600_000;
/// SP 800-132 §5.2's floor; a header asking for fewer is refused.
pub const MIN_ITERATIONS: u32 = 1000;
/// A header asking for more is refused, so that a hostile file cannot pin a CPU for hours.
pub const MAX_ITERATIONS: u32 = 100_000_000;

/// The AEADs a file may use, in the order the writer prefers them: the first one the policy
/// approves is chosen. AES-256-GCM comes first so that files written under `default` open under
/// `fips-140-3` (and with AES-NI/VAES it is the fastest here); SM4-GCM is what `gm` approves;
/// ChaCha20-Poly1305 serves a user policy that excludes both.
pub const AEAD_PREFERENCE: [Algorithm; 3] = [
    Algorithm::Aes256Gcm,
    Algorithm::Sm4Gcm,
    Algorithm::ChaCha20Poly1305,
];

/// The PRF behind every derivation of a file (PBKDF2, the SP 800-108 KBKDF, the header MAC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Prf {
    HmacSha256,
    HmacSha384,
    HmacSm3,
}

impl Prf {
    /// In the writer's order of preference; the first the policy approves is chosen.
    pub const PREFERENCE: [Prf; 3] = [Prf::HmacSha256, Prf::HmacSha384, Prf::HmacSm3];

    pub fn name(self) -> &'static str {
        match self {
            Prf::HmacSha256 => "hmac-sha256",
            Prf::HmacSha384 => "hmac-sha384",
            Prf::HmacSm3 => "hmac-sm3",
        }
    }

    /// The registry's MAC algorithm.
    pub fn mac(self) -> Algorithm {
        match self {
            Prf::HmacSha256 => Algorithm::HmacSha256,
            Prf::HmacSha384 => Algorithm::HmacSha384,
            Prf::HmacSm3 => Algorithm::HmacSm3,
        }
    }

    /// The registry's PBKDF2 and KBKDF rows for this PRF; none for HMAC-SM3, for which the
    /// format builds both constructions over the HMAC-SM3 service.
    fn kdfs(self) -> Option<(Algorithm, Algorithm)> {
        match self {
            Prf::HmacSha256 => Some((Algorithm::Pbkdf2Sha256, Algorithm::KbkdfCtrHmacSha256)),
            Prf::HmacSha384 => Some((Algorithm::Pbkdf2Sha384, Algorithm::KbkdfCtrHmacSha384)),
            Prf::HmacSm3 => None,
        }
    }

    /// Every registry algorithm the PRF's constructions use.
    fn algorithms(self) -> Vec<Algorithm> {
        let mut algorithms = vec![self.mac()];
        if let Some((pbkdf2, kbkdf)) = self.kdfs() {
            algorithms.extend([pbkdf2, kbkdf]);
        }
        algorithms
    }

    pub fn output_len(self) -> usize {
        match self {
            Prf::HmacSha256 | Prf::HmacSm3 => 32,
            Prf::HmacSha384 => 48,
        }
    }

    fn id(self) -> u8 {
        match self {
            Prf::HmacSha256 => 1,
            Prf::HmacSha384 => 2,
            Prf::HmacSm3 => 3,
        }
    }

    fn from_id(id: u8) -> Option<Prf> {
        Prf::PREFERENCE.into_iter().find(|prf| prf.id() == id)
    }
}

impl fmt::Display for Prf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn aead_id(aead: Algorithm) -> Option<u8> {
    match aead {
        Algorithm::Aes256Gcm => Some(1),
        Algorithm::ChaCha20Poly1305 => Some(2),
        Algorithm::Sm4Gcm => Some(3),
        _ => None,
    }
}

fn aead_from_id(id: u8) -> Option<Algorithm> {
    AEAD_PREFERENCE
        .into_iter()
        .find(|aead| aead_id(*aead) == Some(id))
}

/// The AEAD's key length, from its registry row (every AEAD of the format has one size).
fn aead_key_len(aead: Algorithm) -> usize {
    aead.entry().sizes.key.map_or(32, |lengths| lengths.max)
}

/// The algorithms of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suite {
    pub aead: Algorithm,
    pub prf: Prf,
}

impl Suite {
    /// The suite a policy writes: its first approved AEAD in [`AEAD_PREFERENCE`] and its first
    /// approved PRF in [`Prf::PREFERENCE`] — looked up in the policy's rules, so a new profile
    /// needs no change here.
    pub fn for_policy(policy: &Policy) -> Result<Suite, FileError> {
        let aead = AEAD_PREFERENCE
            .into_iter()
            .find(|aead| policy.approves(*aead))
            .ok_or_else(|| {
                FileError::Format(format!(
                    "policy {} approves none of the file format's AEADs ({})",
                    policy.name(),
                    names(&AEAD_PREFERENCE)
                ))
            })?;
        Suite::with_aead(policy, aead)
    }

    /// `aead` (one of [`AEAD_PREFERENCE`]) with the policy's PRF.
    pub fn with_aead(policy: &Policy, aead: Algorithm) -> Result<Suite, FileError> {
        if aead_id(aead).is_none() {
            return Err(FileError::Format(format!(
                "{aead} is not an AEAD of the file format (use one of {})",
                names(&AEAD_PREFERENCE)
            )));
        }
        let prf = Prf::PREFERENCE
            .into_iter()
            .find(|prf| prf.algorithms().iter().all(|a| policy.approves(*a)))
            .ok_or_else(|| {
                FileError::Format(format!(
                    "policy {} approves none of the file format's PRFs (HMAC-SHA-256 with \
                     PBKDF2 and KBKDF, HMAC-SHA-384 with both, HMAC-SM3)",
                    policy.name()
                ))
            })?;
        Ok(Suite { aead, prf })
    }
}

fn names(algorithms: &[Algorithm]) -> String {
    algorithms
        .iter()
        .map(|algorithm| algorithm.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// [`Error::InvalidInput`] with `reason`.
fn invalid_input(reason: impl Into<String>) -> Error {
    Error::InvalidInput {
        reason: reason.into(),
    }
}

/// Why reading or writing an encrypted file failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileError {
    /// The module refused or failed: not approved by the policy, error state, a bad key.
    Module(Error),
    /// Not a file of this format, an unsupported version, or a malformed header.
    Format(String),
    /// The contents do not authenticate: truncated, reordered, swapped, edited, extended.
    /// Nothing of the failing segment was released.
    Tampered(String),
    /// None of the file's key stanzas opens with the key given.
    NoMatchingKey,
    /// Reading the input failed.
    Io(std::io::Error),
    /// Writing the output failed (disk full, closed pipe).
    Output(std::io::Error),
}

impl FileError {
    /// The coarse class, for exit codes: tampering and a wrong key are cryptographic failures.
    pub fn kind(&self) -> ErrorKind {
        match self {
            FileError::Module(error) => error.kind(),
            FileError::Format(_) | FileError::Io(_) | FileError::Output(_) => ErrorKind::Input,
            FileError::Tampered(_) | FileError::NoMatchingKey => ErrorKind::Cryptographic,
        }
    }

    /// Recovers a [`FileError`] that travelled through an [`std::io::Error`] (from the
    /// [`std::io::Read`] and [`std::io::Write`] implementations), or wraps a plain I/O error.
    pub fn from_io(error: std::io::Error) -> FileError {
        if error
            .get_ref()
            .is_some_and(|inner| inner.downcast_ref::<FileError>().is_some())
        {
            match error
                .into_inner()
                .map(|inner| inner.downcast::<FileError>())
            {
                Some(Ok(file_error)) => return *file_error,
                _ => return FileError::Tampered("unrecoverable error".into()),
            }
        }
        FileError::Io(error)
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Module(error) => error.fmt(f),
            FileError::Format(reason) => write!(f, "not a valid encrypted file: {reason}"),
            FileError::Tampered(reason) => write!(f, "authentication failed: {reason}"),
            FileError::NoMatchingKey => f.write_str(
                "no key stanza of the file opens with the key given (wrong passphrase or key)",
            ),
            FileError::Io(error) => write!(f, "cannot read the input: {error}"),
            FileError::Output(error) => write!(f, "cannot write the output: {error}"),
        }
    }
}

impl std::error::Error for FileError {}

impl From<Error> for FileError {
    fn from(error: Error) -> FileError {
        FileError::Module(error)
    }
}

impl From<FileError> for std::io::Error {
    fn from(error: FileError) -> std::io::Error {
        match error {
            FileError::Io(error) | FileError::Output(error) => error,
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other),
        }
    }
}
