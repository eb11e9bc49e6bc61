//! Regula: a cryptographic module with a policy in front of it.
//!
//! An application loads a [`Policy`] (a built-in profile — `default`, `fips-140-3`, `gm` — or a
//! TOML file narrowing one) into a [`Module`]. Loading runs the power-on self-tests; the module
//! then serves only what the policy allows, and every operation returns its service
//! [`Indicator`] (algorithm, service, approved or not, policy).
//!
//! ```
//! use regula::{Algorithm, Module, Policy, Profile};
//!
//! let module = Module::load(Policy::builtin(Profile::Fips1403));
//! let digest = module.digest(Algorithm::Sha256, b"abc").unwrap();
//! assert!(digest.is_approved());
//! assert!(module.digest(Algorithm::Md5, b"abc").is_err()); // strict: MD5 is refused
//! ```
//!
//! The primitives come from AWS-LC through aws-lc-rs (the FIPS 140-3 validated module when built
//! with the `fips` feature). Regula implements none of them. Applications of the module — the
//! encrypted-file format and Linux fscrypt — live in the `regula-files` crate and use only this
//! crate's public API.

// The one exception is `provider::awslc_sys`: AWS-LC's own C functions where aws-lc-rs has no API.
#![deny(unsafe_code)]

pub mod algorithm;
pub mod cbom;
pub mod error;
#[allow(unsafe_code)]
mod fork_detect;
pub mod identity;
pub mod indicator;
pub mod info;
pub mod key_encoding;
pub mod module;
pub mod policy;
mod provider;
pub mod selftest;
pub mod service;

pub use algorithm::{Algorithm, Family, Service};
pub use error::{Error, ErrorKind, Result};
pub use indicator::{CounterRow, Indicator, IndicatorState, Served};
pub use module::{BREAK_SELFTEST_ENV, Module, ModuleState};
pub use policy::registry;
pub use policy::{
    Approval, Mode, Policy, PolicyFileError, Profile, Validation, ValidationAuthority,
};
/// AWS-LC's own service indicator in the FIPS build, for tests that check Regula's indicator
/// agrees with the validated module's.
#[cfg(feature = "fips")]
#[doc(hidden)]
pub use provider::awslc_sys::{fips_service_indicator_approved, fips_service_indicator_counter};
pub use provider::sm::KeyExchangeRole;
pub use service::aead::{AeadKey, Sealed, StreamPrefix};
pub use service::aead_stream::{AeadStream, Tag};
pub use service::agreement::AgreementKey;
pub use service::cipher::{CipherKey, Encrypted};
pub use service::cipher_stream::{CipherStream, Direction};
pub use service::digest::{DigestContext, Digester, XofContext};
pub use service::kem::{Encapsulated, KemPrivateKey};
pub use service::key_exchange::{ExchangedKey, KeyExchange};
pub use service::known_answer_drbg::KnownAnswerCtrDrbg;
pub use service::mac::{MacContext, MacKey};
pub use service::pke::{CiphertextFormat, DecryptionKey};
pub use service::signature::SigningKey;
pub use service::tls12_gcm::{TLS12_EXPLICIT_LEN, TLS12_FIXED_LEN, Tls12GcmSealer};
pub use service::tls13_nonce::Tls13NonceSequence;

/// Whether `a` and `b` are equal, in a time that depends only on their lengths (AWS-LC's
/// `CRYPTO_memcmp`, the comparison the module's own tag checks use): for adapters that compare
/// keys or tags they hold.
pub fn equal_in_constant_time(a: &[u8], b: &[u8]) -> bool {
    provider::mac::verify_equal(a, b).is_ok()
}
