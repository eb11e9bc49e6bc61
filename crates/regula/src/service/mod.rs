//! The services, one file per family. Each binds keys through [`crate::Module`]'s gate and
//! records every completed operation in the service indicator.

pub mod aead;
pub mod aead_stream;
pub mod agreement;
pub mod cipher;
pub mod cipher_stream;
pub mod digest;
pub mod kdf;
pub mod kem;
pub mod key_exchange;
pub mod known_answer_drbg;
pub mod mac;
pub(crate) mod nonce_sequence;
pub mod pke;
pub mod random;
pub mod signature;
pub mod tls12_gcm;
pub mod tls13_nonce;

use zeroize::Zeroize;

use crate::error::Error;

/// Wipes and empties a buffer whose processing failed, so that no partial output is released;
/// out of line, off the per-call path.
#[cold]
#[inline(never)]
pub(crate) fn wipe_and_fail(in_out: &mut Vec<u8>, error: Error) -> Error {
    in_out.zeroize();
    in_out.clear();
    error
}
