//! Errors: opaque for cryptographic failures, rich for policy and input problems.
//!
//! No variant ever carries key material, plaintext or any other secret.

use std::fmt;

use crate::algorithm::{Algorithm, Family};
use crate::key_encoding::KeyEncodingError;

/// Everything a Regula service can refuse with.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The active policy does not allow this use of the algorithm (strict mode, an excluded
    /// algorithm, or a limit such as key size that the request violates).
    NotApproved {
        algorithm: Algorithm,
        policy: String,
        reason: String,
        /// What the policy would approve instead, when there is an obvious substitute.
        alternative: Option<&'static str>,
    },
    /// A self-test failed earlier; the module refuses every cryptographic service.
    ModuleInErrorState { failed_test: String },
    /// The algorithm exists but belongs to another service family (e.g. `sha256` given to `enc`).
    WrongFamily {
        algorithm: Algorithm,
        expected: Family,
    },
    /// A name that is not an algorithm of this module.
    UnknownAlgorithm { name: String },
    /// A key that has the wrong length or does not parse.
    InvalidKey {
        algorithm: Algorithm,
        reason: String,
    },
    /// Any other malformed input: wrong nonce length, truncated ciphertext, bad parameters.
    InvalidInput { reason: String },
    /// A key given as PEM or DER that is not of the kind needed, or whose PEM is malformed
    /// (see [`crate::key_encoding`]).
    KeyEncoding(KeyEncodingError),
    /// An AEAD tag or MAC did not verify. Deliberately says nothing more.
    AuthenticationFailed,
    /// A signature did not verify. Deliberately says nothing more.
    BadSignature,
    /// The backend reported an unspecified failure.
    CryptoFailure,
}

/// The coarse class of an [`Error`]; the CLI maps it to an exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad tag, bad signature, backend failure.
    Cryptographic,
    /// Usage or input error.
    Input,
    /// Refused by the policy.
    NotApproved,
    /// The module is in its error state.
    ModuleState,
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotApproved { .. } => ErrorKind::NotApproved,
            Error::ModuleInErrorState { .. } => ErrorKind::ModuleState,
            Error::WrongFamily { .. }
            | Error::UnknownAlgorithm { .. }
            | Error::InvalidKey { .. }
            | Error::InvalidInput { .. }
            | Error::KeyEncoding(_) => ErrorKind::Input,
            Error::AuthenticationFailed | Error::BadSignature | Error::CryptoFailure => {
                ErrorKind::Cryptographic
            }
        }
    }

    pub(crate) fn invalid_input(reason: impl Into<String>) -> Error {
        Error::InvalidInput {
            reason: reason.into(),
        }
    }

    pub(crate) fn invalid_key(algorithm: Algorithm, reason: impl Into<String>) -> Error {
        Error::InvalidKey {
            algorithm,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotApproved {
                algorithm,
                policy,
                reason,
                alternative,
            } => {
                write!(
                    f,
                    "{algorithm} is not approved by policy {policy}: {reason}"
                )?;
                if let Some(alternative) = alternative {
                    write!(f, "; use {alternative} instead")?;
                }
                Ok(())
            }
            Error::ModuleInErrorState { failed_test } => write!(
                f,
                "module is in the error state (self-test {failed_test} failed); \
                 every cryptographic service is refused"
            ),
            Error::WrongFamily {
                algorithm,
                expected,
            } => write!(
                f,
                "{algorithm} is a {} algorithm, not a {expected} algorithm",
                algorithm.family()
            ),
            Error::UnknownAlgorithm { name } => {
                write!(
                    f,
                    "unknown algorithm `{name}` (see `regula policy show default`)"
                )
            }
            Error::InvalidKey { algorithm, reason } => {
                write!(f, "invalid {algorithm} key: {reason}")
            }
            Error::InvalidInput { reason } => write!(f, "invalid input: {reason}"),
            Error::KeyEncoding(error) => write!(f, "invalid key: {error}"),
            Error::AuthenticationFailed => f.write_str("authentication failed"),
            Error::BadSignature => f.write_str("signature verification failed"),
            Error::CryptoFailure => f.write_str("cryptographic operation failed"),
        }
    }
}

impl std::error::Error for Error {}

impl From<KeyEncodingError> for Error {
    fn from(error: KeyEncodingError) -> Error {
        Error::KeyEncoding(error)
    }
}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
