//! The one door to the backends: AWS-LC (through aws-lc-rs and, where it has no API, AWS-LC's C
//! functions) and regula-sm. Only this module names them; the services hold the keyed objects
//! made here, each served by the backend its algorithm's registry row names, and keep the
//! policy, the indicator, argument checks, nonces and wiping to themselves
//! (`tests/dependencies.rs` checks that no other file of the core imports a backend).

pub(crate) mod aead;
pub(crate) mod aead_stream;
pub(crate) mod agreement;
pub mod awslc;
#[allow(unsafe_code)]
pub mod awslc_sys;
pub(crate) mod cbc_cs3;
pub(crate) mod cipher;
pub(crate) mod cipher_stream;
pub(crate) mod digest;
pub(crate) mod kdf;
pub(crate) mod kem;
pub(crate) mod key_exchange;
pub(crate) mod mac;
pub(crate) mod pke;
pub(crate) mod random;
pub(crate) mod rsa_oaep;
pub(crate) mod self_test;
pub(crate) mod signature;
pub mod sm;
