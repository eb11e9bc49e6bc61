//! Modes of operation on top of [`Sm4`](super::Sm4) (NIST SP 800-38A; GB/T 17964-2021).
//!
//! * ECB — whole blocks, no padding.
//! * CBC — encryption is sequential; decryption runs through the wide backend. With or without
//!   PKCS#7 padding (RFC 5652, 6.3).
//! * CTR — the whole 16-byte IV is a 128-bit big-endian counter that wraps modulo 2^128 (as in
//!   OpenSSL's `sm4-ctr`); any length; the keystream is made many blocks at a time.
//! * OFB and CFB-128 ([`ofb_apply_keystream`], [`cfb_encrypt`], [`cfb_decrypt`]) — any length;
//!   CFB decryption runs through the wide backend.
//! * GCM ([`Sm4Gcm`]) — NIST SP 800-38D with SM4 (RFC 8998): any IV length, tags of 16..=12, 8
//!   or 4 bytes; also incremental ([`Sm4GcmEncryptor`], [`Sm4GcmDecryptor`]); GHASH by carry-less multiplication (PCLMULQDQ, or VPCLMULQDQ with AVX-512;
//!   RustCrypto `ghash` elsewhere).
//! * CCM ([`Sm4Ccm`]) — NIST SP 800-38C with SM4 (RFC 8998): 7..=13-byte nonces, even tags of
//!   4..=16 bytes.
//! * XTS ([`Xts`]) — IEEE Std 1619-2018 and GB/T 17964-2021 ([`XtsStandard`]), which differ in
//!   the tweak's ⊗α; ciphertext stealing; tweaks batched through the wide backend.
//! * CBC-CS3 ([`cbc_cs3_encrypt`]) — NIST SP 800-38A Addendum, as Linux `cts(cbc(sm4))`.
//! * MACs: [`Cmac`] (NIST SP 800-38B), [`Xcbc`] (RFC 3566 construction), [`CbcMac`] (ISO/IEC
//!   9797-1 algorithm 1, padding method 1; fixed-length messages only).
//!
//! Bad input lengths and bad padding are reported as [`Error`]s, never as panics.

mod cbc;
mod ccm;
mod cs3;
mod ctr;
mod ecb;
mod feedback;
mod gcm;
mod mac;
mod xts;

pub use cbc::{
    cbc_decrypt, cbc_decrypt_padded, cbc_decrypt_padded_in_place, cbc_encrypt, cbc_encrypt_padded,
    cbc_encrypt_padded_in_place,
};
pub use ccm::Sm4Ccm;
pub use cs3::{Cs3Error, cbc_cs3_decrypt, cbc_cs3_encrypt};
pub use ctr::{Ctr, ctr_apply_keystream};
pub use ecb::{ecb_decrypt, ecb_encrypt};
pub use feedback::{cfb_decrypt, cfb_encrypt, ofb_apply_keystream};
pub use gcm::{
    Sm4Gcm, Sm4GcmDecryptor, Sm4GcmEncryptor, ghash_implementation, ghash_implementations,
    ghash_selection,
};
pub use mac::{CbcMac, Cmac, MIN_TAG_SIZE, MacError, MacStream, TAG_SIZE, Xcbc};
pub use xts::{XTS_KEY_SIZE, XTS_MAX_BLOCKS, Xts, XtsError, XtsStandard};

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
    /// AEAD decryption: the tag does not match; no plaintext was released.
    AuthenticationFailed,
    /// AEAD: the nonce (IV) length is not allowed by the mode; `len` is the length given.
    InvalidNonceLength {
        /// The rejected nonce length in bytes.
        len: usize,
    },
    /// AEAD: the tag length is not allowed by the mode; `len` is the length given.
    InvalidTagLength {
        /// The rejected tag length in bytes.
        len: usize,
    },
    /// AEAD: the plaintext or associated data is longer than the mode allows (for CCM, with this
    /// nonce length); `len` is the length given.
    MessageTooLong {
        /// The rejected length in bytes.
        len: usize,
    },
    /// AEAD stream: associated data after the first data call (GCM hashes all of it first).
    AadAfterData,
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::InvalidLength { len } => write!(
                f,
                "input length {len} is not a whole number of {BLOCK_SIZE}-byte SM4 blocks"
            ),
            Error::BadPadding => f.write_str("invalid PKCS#7 padding"),
            Error::AuthenticationFailed => f.write_str("authentication failed: tag mismatch"),
            Error::InvalidNonceLength { len } => write!(f, "nonce length {len} is not allowed"),
            Error::InvalidTagLength { len } => write!(f, "tag length {len} is not allowed"),
            Error::MessageTooLong { len } => {
                write!(f, "input length {len} exceeds the mode's limit")
            }
            Error::AadAfterData => {
                f.write_str("associated data must come before the first data call")
            }
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
