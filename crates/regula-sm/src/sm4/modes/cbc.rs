//! Cipher block chaining mode (NIST SP 800-38A, 6.2), with optional PKCS#7 padding.

use zeroize::Zeroize;

use super::{Error, as_blocks_mut};
use crate::sm4::{BLOCK_SIZE, Block, Sm4};

/// Encrypts `data` in place; its length must be a multiple of 16 bytes.
///
/// Each block depends on the previous ciphertext, so this runs one block at a time.
pub fn cbc_encrypt(cipher: &Sm4, iv: &Block, data: &mut [u8]) -> Result<(), Error> {
    encrypt_chain(cipher, iv, as_blocks_mut(data)?);
    Ok(())
}

/// C_i = E(P_i ^ C_{i-1}) with C_{-1} = IV (NIST SP 800-38A, 6.2), on the backend's one-block
/// path (the GFNI backend also keeps the chaining value in its internal domain).
fn encrypt_chain(cipher: &Sm4, iv: &Block, blocks: &mut [Block]) {
    cipher.cbc_encrypt_blocks(iv, blocks);
}

/// Decrypts `data` in place; its length must be a multiple of 16 bytes.
///
/// P_i = D(C_i) ^ C_{i-1} has no chaining dependency, so the backend decrypts many blocks at
/// once and XORs in the previous ciphertexts before storing.
pub fn cbc_decrypt(cipher: &Sm4, iv: &Block, data: &mut [u8]) -> Result<(), Error> {
    cipher.cbc_decrypt_blocks(iv, as_blocks_mut(data)?);
    Ok(())
}

/// Pads `plaintext` with PKCS#7 (RFC 5652, 6.3: 1..=16 bytes, each the pad length) and encrypts.
pub fn cbc_encrypt_padded(cipher: &Sm4, iv: &Block, plaintext: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(plaintext.len() + BLOCK_SIZE);
    data.extend_from_slice(plaintext);
    cbc_encrypt_padded_in_place(cipher, iv, &mut data);
    data
}

/// [`cbc_encrypt_padded`] in the caller's buffer: appends the PKCS#7 padding to `data` and
/// encrypts it where it lies. With 16 bytes of spare capacity nothing is allocated.
pub fn cbc_encrypt_padded_in_place(cipher: &Sm4, iv: &Block, data: &mut Vec<u8>) {
    let len = data.len();
    let pad = BLOCK_SIZE - len % BLOCK_SIZE;
    // `pad` is 1..=16, so it fits in a byte.
    data.resize(len + pad, pad as u8);
    // The padded length is a whole number of blocks, so nothing is left over.
    let (blocks, _) = data.as_chunks_mut::<BLOCK_SIZE>();
    encrypt_chain(cipher, iv, blocks);
}

/// Decrypts and strips PKCS#7 padding.
///
/// The padding is checked without data-dependent branches; a malformed pad gives
/// [`Error::BadPadding`] (and no plaintext).
pub fn cbc_decrypt_padded(cipher: &Sm4, iv: &Block, ciphertext: &[u8]) -> Result<Vec<u8>, Error> {
    let mut data = ciphertext.to_vec();
    cbc_decrypt_padded_in_place(cipher, iv, &mut data)?;
    Ok(data)
}

/// [`cbc_decrypt_padded`] in the caller's buffer: decrypts `data` where it lies and truncates
/// the padding. A length that is not a non-zero multiple of 16 leaves `data` as it was; on a
/// malformed pad the decrypted bytes are wiped and `data` is emptied (no plaintext).
pub fn cbc_decrypt_padded_in_place(
    cipher: &Sm4,
    iv: &Block,
    data: &mut Vec<u8>,
) -> Result<(), Error> {
    let len = data.len();
    if len == 0 || !len.is_multiple_of(BLOCK_SIZE) {
        return Err(Error::InvalidLength { len });
    }
    cbc_decrypt(cipher, iv, data)?;
    let pad = match data.last_chunk::<BLOCK_SIZE>() {
        Some(last) => padding_length(last),
        None => None,
    };
    match pad {
        Some(pad) => {
            data.truncate(len - pad);
            Ok(())
        }
        None => {
            // Do not leave the rejected plaintext behind.
            data.as_mut_slice().zeroize();
            data.clear();
            Err(Error::BadPadding)
        }
    }
}

/// Length of the PKCS#7 padding at the end of `last`, if well formed; constant time in the
/// block's contents.
fn padding_length(last: &Block) -> Option<usize> {
    let pad = last[BLOCK_SIZE - 1];
    // 0xFF when the pad length is 1..=16, else 0x00.
    let mut good = range_mask(pad);
    for (distance_from_end, &byte) in last.iter().rev().enumerate() {
        // Bytes closer to the end than `pad` must equal `pad`.
        let inside = less_than_mask(distance_from_end as u8, pad);
        let differs = nonzero_mask(byte ^ pad);
        good &= !(inside & differs);
    }
    (good == 0xff).then_some(usize::from(pad))
}

/// 0xFF if `a < b`, else 0x00, without branches (both at most 0xFF, computed in 16 bits).
fn less_than_mask(a: u8, b: u8) -> u8 {
    let difference = u16::from(a).wrapping_sub(u16::from(b));
    (difference >> 8) as u8
}

/// 0xFF if `x != 0`, else 0x00, without branches.
fn nonzero_mask(x: u8) -> u8 {
    let widened = u16::from(x).wrapping_neg();
    (widened >> 8) as u8
}

/// 0xFF if `1 <= pad <= 16`, else 0x00, without branches.
fn range_mask(pad: u8) -> u8 {
    nonzero_mask(pad) & less_than_mask(pad, BLOCK_SIZE as u8 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        for a in 0..=255u8 {
            assert_eq!(nonzero_mask(a), if a != 0 { 0xff } else { 0 });
            assert_eq!(range_mask(a), if (1..=16).contains(&a) { 0xff } else { 0 });
            for b in 0..=255u8 {
                assert_eq!(less_than_mask(a, b), if a < b { 0xff } else { 0 });
            }
        }
    }

    #[test]
    fn padding_lengths() {
        for pad in 1..=16u8 {
            let mut block = [0xaa; BLOCK_SIZE];
            block[BLOCK_SIZE - usize::from(pad)..].fill(pad);
            assert_eq!(padding_length(&block), Some(usize::from(pad)));
            if pad > 1 {
                block[BLOCK_SIZE - usize::from(pad)] ^= 1;
                assert_eq!(padding_length(&block), None);
            }
        }
        assert_eq!(padding_length(&[0; BLOCK_SIZE]), None);
        assert_eq!(padding_length(&[17; BLOCK_SIZE]), None);
    }
}
