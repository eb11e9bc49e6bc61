//! Electronic codebook mode (NIST SP 800-38A, 6.1), without padding.

use super::{Error, as_blocks_mut};
use crate::sm4::Sm4;

/// Encrypts `data` in place; its length must be a multiple of 16 bytes.
pub fn ecb_encrypt(cipher: &Sm4, data: &mut [u8]) -> Result<(), Error> {
    cipher.encrypt_blocks(as_blocks_mut(data)?);
    Ok(())
}

/// Decrypts `data` in place; its length must be a multiple of 16 bytes.
pub fn ecb_decrypt(cipher: &Sm4, data: &mut [u8]) -> Result<(), Error> {
    cipher.decrypt_blocks(as_blocks_mut(data)?);
    Ok(())
}
