//! The services, one file per family. Each binds keys through [`crate::Module`]'s gate and
//! records every completed operation in the service indicator.

pub mod aead;
pub mod agreement;
pub(crate) mod cbc_cs3;
pub mod cipher;
pub mod digest;
pub mod kdf;
pub mod kem;
pub mod key_exchange;
pub mod mac;
pub(crate) mod nonce_sequence;
pub mod pke;
pub mod random;
pub mod signature;

use zeroize::{Zeroize, Zeroizing};

use crate::algorithm::Algorithm;
use crate::error::{Error, Result};

/// A key that must be exactly `N` bytes, copied into memory wiped on drop, for the backends
/// (regula-sm) that take fixed-size key arrays.
pub(crate) fn fixed_size_key<const N: usize>(
    algorithm: Algorithm,
    key: &[u8],
) -> Result<Zeroizing<[u8; N]>> {
    key.try_into().map(Zeroizing::new).map_err(|_| {
        Error::invalid_key(algorithm, format!("expected {N} bytes, got {}", key.len()))
    })
}

/// Wipes and empties a buffer whose processing failed, so that no partial output is released;
/// out of line, off the per-call path.
#[cold]
#[inline(never)]
pub(crate) fn wipe_and_fail(in_out: &mut Vec<u8>, error: Error) -> Error {
    in_out.zeroize();
    in_out.clear();
    error
}
