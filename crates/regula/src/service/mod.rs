//! The services, one file per family. Each binds keys through [`crate::Module`]'s gate and
//! records every completed operation in the service indicator.

pub mod aead;
pub mod agreement;
pub mod cipher;
pub mod digest;
pub mod kdf;
pub mod kem;
pub mod mac;
pub mod random;
pub mod signature;
