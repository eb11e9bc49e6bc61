//! The feedback modes of NIST SP 800-38A and GB/T 17964-2021: OFB (6.4) and CFB with 128-bit
//! segments (6.3, OpenSSL's `sm4-cfb`/`sm4-cfb128`). Both take any length: the last block may
//! be partial, as in OpenSSL.
//!
//! OFB's keystream and CFB encryption are sequential (each block needs the previous output);
//! CFB decryption encrypts known ciphertext blocks, so it runs many blocks at a time through the
//! wide backend.

use zeroize::Zeroize;

use crate::sm4::{BLOCK_SIZE, Block, Sm4};

/// OFB: XORs the keystream E(IV), E(E(IV)), … into `data` (encrypts or decrypts).
pub fn ofb_apply_keystream(cipher: &Sm4, iv: &Block, data: &mut [u8]) {
    let mut register = *iv;
    for chunk in data.chunks_mut(BLOCK_SIZE) {
        cipher.encrypt_block(&mut register);
        for (byte, key) in chunk.iter_mut().zip(&register) {
            *byte ^= key;
        }
    }
    register.zeroize();
}

/// CFB-128 encryption in place: C_i = P_i ⊕ E(C_(i-1)), C_0 = IV.
pub fn cfb_encrypt(cipher: &Sm4, iv: &Block, data: &mut [u8]) {
    let mut register = *iv;
    for chunk in data.chunks_mut(BLOCK_SIZE) {
        cipher.encrypt_block(&mut register);
        for (byte, key) in chunk.iter_mut().zip(&mut register) {
            *byte ^= *key;
            *key = *byte;
        }
    }
    register.zeroize();
}

/// Blocks of CFB decryption per batch through the wide backend.
const BATCH: usize = 64;

/// CFB-128 decryption in place: P_i = C_i ⊕ E(C_(i-1)), C_0 = IV.
pub fn cfb_decrypt(cipher: &Sm4, iv: &Block, data: &mut [u8]) {
    let mut previous = *iv;
    let mut keystream = [[0u8; BLOCK_SIZE]; BATCH];
    for batch in data.chunks_mut(BATCH * BLOCK_SIZE) {
        let blocks = batch.len().div_ceil(BLOCK_SIZE);
        // The inputs: the IV or last ciphertext block of the previous batch, then this
        // batch's ciphertext blocks but its last.
        keystream[0] = previous;
        for (input, block) in keystream[1..blocks]
            .iter_mut()
            .zip(batch.chunks(BLOCK_SIZE))
        {
            *input = block.try_into().unwrap_or([0; BLOCK_SIZE]);
        }
        if let Ok(last) = <[u8; BLOCK_SIZE]>::try_from(&batch[(blocks - 1) * BLOCK_SIZE..]) {
            previous = last;
        }
        cipher.encrypt_blocks(&mut keystream[..blocks]);
        for (chunk, key) in batch.chunks_mut(BLOCK_SIZE).zip(&keystream) {
            for (byte, key) in chunk.iter_mut().zip(key) {
                *byte ^= key;
            }
        }
    }
    keystream.as_flattened_mut().zeroize();
    previous.zeroize();
}
