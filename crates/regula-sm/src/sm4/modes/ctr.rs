//! Counter mode (NIST SP 800-38A, 6.5) with a 128-bit big-endian counter.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::sm4::{BLOCK_SIZE, Block, Sm4};

/// A CTR keystream that can be applied across several calls.
///
/// The whole initial counter block is incremented as one 128-bit big-endian integer, wrapping
/// modulo 2^128. Splitting the data over calls gives the same result as one call.
pub struct Ctr<'a> {
    cipher: &'a Sm4,
    /// The counter block the next keystream block is made from.
    counter: u128,
    /// Keystream left over from the last partial block.
    leftover: Block,
    /// How many bytes of `leftover` have been used (16 when none remain).
    leftover_used: usize,
}

impl<'a> Ctr<'a> {
    /// Starts a keystream at the initial counter block `iv`.
    pub fn new(cipher: &'a Sm4, iv: &Block) -> Self {
        Self {
            cipher,
            counter: u128::from_be_bytes(*iv),
            leftover: [0; BLOCK_SIZE],
            leftover_used: BLOCK_SIZE,
        }
    }

    /// XORs the next `data.len()` keystream bytes into `data` (encrypts or decrypts).
    pub fn apply_keystream(&mut self, data: &mut [u8]) {
        let from_leftover = data.len().min(BLOCK_SIZE - self.leftover_used);
        let (head, rest) = data.split_at_mut(from_leftover);
        for (byte, key) in head.iter_mut().zip(&self.leftover[self.leftover_used..]) {
            *byte ^= key;
        }
        self.leftover_used += from_leftover;

        let (blocks, tail) = rest.as_chunks_mut::<BLOCK_SIZE>();
        self.cipher.ctr_xor_blocks(self.counter, blocks);
        // The counter is modulo 2^128 and a slice never holds 2^128 blocks.
        self.counter = self.counter.wrapping_add(blocks.len() as u128);

        if !tail.is_empty() {
            self.leftover = self.counter.to_be_bytes();
            self.counter = self.counter.wrapping_add(1);
            self.cipher.encrypt_block(&mut self.leftover);
            for (byte, key) in tail.iter_mut().zip(&self.leftover) {
                *byte ^= key;
            }
            self.leftover_used = tail.len();
        }
    }
}

impl Drop for Ctr<'_> {
    fn drop(&mut self) {
        self.leftover.zeroize();
    }
}

impl ZeroizeOnDrop for Ctr<'_> {}

impl core::fmt::Debug for Ctr<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ctr")
            .field("cipher", self.cipher)
            .finish_non_exhaustive()
    }
}

/// One-shot CTR: XORs the keystream starting at counter block `iv` into `data`.
pub fn ctr_apply_keystream(cipher: &Sm4, iv: &Block, data: &mut [u8]) {
    Ctr::new(cipher, iv).apply_keystream(data);
}
