//! aarch64 backends: the SM4 Crypto Extension (`ce.rs`) and plain NEON (`neon.rs`).
//!
//! Both run whole batches of blocks through a backend-specific `crypt_batch`; the modes that
//! need more than the block function (CTR, CBC decryption) are shared here and only build
//! counter blocks or keep ciphertexts around the batches.

pub(crate) mod ce;
pub(crate) mod neon;

use zeroize::Zeroize;

use super::Block;

/// Blocks both backends keep in flight: eight states in the CE backend, two sets of four
/// transposed blocks in the NEON one.
pub(super) const BATCH: usize = 8;

/// XORs the CTR keystream E(counter), E(counter + 1), ... into `blocks`, [`BATCH`] blocks at a
/// time through `crypt` (which encrypts up to [`BATCH`] blocks in place).
#[inline(always)]
pub(super) fn ctr_xor_blocks(
    mut crypt: impl FnMut(&mut [Block]),
    mut counter: u128,
    blocks: &mut [Block],
) {
    let mut keystream = [[0u8; 16]; BATCH];
    for chunk in blocks.chunks_mut(BATCH) {
        let keystream = &mut keystream[..chunk.len()];
        for (i, block) in keystream.iter_mut().enumerate() {
            *block = counter.wrapping_add(i as u128).to_be_bytes();
        }
        crypt(keystream);
        for (block, key) in chunk.iter_mut().zip(keystream.iter()) {
            *block = (u128::from_ne_bytes(*block) ^ u128::from_ne_bytes(*key)).to_ne_bytes();
        }
        counter = counter.wrapping_add(chunk.len() as u128);
    }
    keystream.as_flattened_mut().zeroize();
}

/// CBC decryption (NIST SP 800-38A, 6.2), P_i = D(C_i) ^ C_(i-1) with C_(-1) = `iv`, [`BATCH`]
/// blocks at a time through `crypt` (with the decryption round keys).
#[inline(always)]
pub(super) fn cbc_decrypt_blocks(
    mut crypt: impl FnMut(&mut [Block]),
    iv: &Block,
    blocks: &mut [Block],
) {
    let mut previous = *iv;
    let mut ciphertext = [[0u8; 16]; BATCH];
    for chunk in blocks.chunks_mut(BATCH) {
        let n = chunk.len();
        ciphertext[..n].copy_from_slice(chunk);
        crypt(chunk);
        for (i, block) in chunk.iter_mut().enumerate() {
            let mask = if i == 0 { previous } else { ciphertext[i - 1] };
            *block = (u128::from_ne_bytes(*block) ^ u128::from_ne_bytes(mask)).to_ne_bytes();
        }
        previous = ciphertext[n - 1];
    }
}
