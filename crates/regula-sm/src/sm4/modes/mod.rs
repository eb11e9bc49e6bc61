//! Modes of operation on top of [`Sm4`](super::Sm4) (NIST SP 800-38A; GB/T 17964-2021).
//!
//! * ECB — whole blocks, no padding.
//! * CBC — encryption is sequential; decryption runs through the wide backend. With or without
//!   PKCS#7 padding (RFC 5652, 6.3).
//! * CTR — the whole 16-byte IV is a 128-bit big-endian counter that wraps modulo 2^128 (as in
//!   OpenSSL's `sm4-ctr`); any length; the keystream is made many blocks at a time.
//!
//! Bad input lengths and bad padding are reported as [`Error`]s, never as panics.

mod cbc;
mod ctr;
mod ecb;

pub use cbc::{cbc_decrypt, cbc_decrypt_padded, cbc_encrypt, cbc_encrypt_padded};
pub use ctr::{Ctr, ctr_apply_keystream};
pub use ecb::{ecb_decrypt, ecb_encrypt};

use super::{BLOCK_SIZE, Block};

/// Why a mode rejected its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The input must be a whole number of 16-byte blocks (and, for padded decryption, at least
    /// one block); `len` is the length that was given.
    InvalidLength {
        /// The rejected length in bytes.
        len: usize,
    },
    /// The decrypted PKCS#7 padding is malformed.
    BadPadding,
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::InvalidLength { len } => write!(
                f,
                "input length {len} is not a whole number of {BLOCK_SIZE}-byte SM4 blocks"
            ),
            Error::BadPadding => f.write_str("invalid PKCS#7 padding"),
        }
    }
}

impl std::error::Error for Error {}

/// Views `data` as whole blocks, or says why it cannot.
fn as_blocks_mut(data: &mut [u8]) -> Result<&mut [Block], Error> {
    let len = data.len();
    match data.as_chunks_mut::<BLOCK_SIZE>() {
        (blocks, []) => Ok(blocks),
        _ => Err(Error::InvalidLength { len }),
    }
}

/// `target ^= mask`, a block at a time.
#[inline]
fn xor_block(target: &mut Block, mask: &Block) {
    let value = u128::from_ne_bytes(*target) ^ u128::from_ne_bytes(*mask);
    *target = value.to_ne_bytes();
}
