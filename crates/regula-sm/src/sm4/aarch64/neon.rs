//! SM4 on NEON alone (`sm4-neon`), for aarch64 CPUs without the SM4 Crypto Extension.
//!
//! Four blocks are transposed so that each register holds one word position of all four
//! (`vld4q_u32`), and two such sets run side by side. The S-box is the 256-byte table of
//! GB/T 32907-2016, 6.2.1, held in sixteen registers: `TBL` with four registers looks up 64
//! entries and yields 0 for an index past them, `TBX` leaves such lanes alone, so one `TBL` and
//! three `TBX` on the index minus 0, 64, 128 and 192 look up all 256 entries. The lookups read
//! registers, not memory, and every lane runs all four, so no memory access, timing or branch
//! depends on the data. L is shifts and XORs.

use core::arch::aarch64::*;

use zeroize::Zeroize;

use super::super::{Block, RoundKeys};
use super::BATCH;

/// Proof that the CPU has NEON; only [`Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Token(());

impl Token {
    /// Checks the CPU for NEON (AdvSIMD).
    pub(crate) fn detect() -> Option<Self> {
        // The loads and lane orders assume little-endian lanes: off on aarch64_be.
        let supported =
            cfg!(target_endian = "little") && std::arch::is_aarch64_feature_detected!("neon");
        supported.then_some(Token(()))
    }
}

/// The S-box (GB/T 32907-2016, 6.2.1); the unit test below derives every entry again from
/// the portable backend's arithmetic.
#[rustfmt::skip]
const SBOX: [u8; 256] = [
    0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05,
    0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99,
    0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed, 0xcf, 0xac, 0x62,
    0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa, 0x75, 0x8f, 0x3f, 0xa6,
    0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c, 0x19, 0xe6, 0x85, 0x4f, 0xa8,
    0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb, 0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35,
    0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25, 0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87,
    0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52, 0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4, 0xc8, 0x9e,
    0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38, 0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1,
    0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34, 0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3,
    0x1d, 0xf6, 0xe2, 0x2e, 0x82, 0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f,
    0xd5, 0xdb, 0x37, 0x45, 0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51,
    0x8d, 0x1b, 0xaf, 0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8,
    0x0a, 0xc1, 0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0,
    0x89, 0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84,
    0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39, 0x48,];

/// The S-box in sixteen registers, four per `TBL` lookup.
#[derive(Clone, Copy)]
struct Table([uint8x16x4_t; 4]);

impl Table {
    #[inline]
    #[target_feature(enable = "neon")]
    fn load() -> Self {
        // SAFETY: each load reads 64 bytes at offset 64q inside the 256-byte table.
        Table(core::array::from_fn(|q| unsafe {
            vld1q_u8_x4(SBOX[64 * q..].as_ptr())
        }))
    }

    /// The S-box on every byte of `x`.
    #[inline]
    #[target_feature(enable = "neon")]
    fn sbox(&self, x: uint8x16_t) -> uint8x16_t {
        let step = vdupq_n_u8(64);
        let mut out = vqtbl4q_u8(self.0[0], x);
        let mut index = vsubq_u8(x, step);
        out = vqtbx4q_u8(out, self.0[1], index);
        index = vsubq_u8(index, step);
        out = vqtbx4q_u8(out, self.0[2], index);
        index = vsubq_u8(index, step);
        vqtbx4q_u8(out, self.0[3], index)
    }
}

/// Rotates every lane left by `K` bits (`R` = 32 - `K`).
#[inline]
#[target_feature(enable = "neon")]
fn rotate<const K: i32, const R: i32>(x: uint32x4_t) -> uint32x4_t {
    vsriq_n_u32::<R>(vshlq_n_u32::<K>(x), x)
}

/// The round function T = L∘tau on four words (GB/T 32907-2016, 6.2).
#[inline]
#[target_feature(enable = "neon")]
fn round_function(table: &Table, x: uint32x4_t) -> uint32x4_t {
    let b = vreinterpretq_u32_u8(table.sbox(vreinterpretq_u8_u32(x)));
    // L(B) = B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24), written as
    // B ^ (B <<< 24) ^ ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2).
    let b8 = rotate::<8, 24>(b);
    let b16 = vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(b)));
    let inner = veorq_u32(veorq_u32(b, b8), b16);
    veorq_u32(veorq_u32(b, rotate::<24, 8>(b)), rotate::<2, 30>(inner))
}

/// Four blocks transposed: `words[j]` holds word j of each block.
type Set = [uint32x4_t; 4];

/// Loads four blocks transposed, words as numbers (SM4 words are big-endian).
#[inline]
#[target_feature(enable = "neon")]
fn load_set(blocks: &[Block; 4]) -> Set {
    // SAFETY: `blocks` is 64 readable bytes; `vld4q_u32` has no alignment requirement.
    let words = unsafe { vld4q_u32(blocks.as_ptr().cast()) };
    let swap = |w: uint32x4_t| vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(w)));
    [swap(words.0), swap(words.1), swap(words.2), swap(words.3)]
}

/// Stores X_32..X_35 of four blocks through the reverse transform R.
#[inline]
#[target_feature(enable = "neon")]
fn store_set(set: Set, blocks: &mut [Block; 4]) {
    let swap = |w: uint32x4_t| vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(w)));
    let words = uint32x4x4_t(swap(set[3]), swap(set[2]), swap(set[1]), swap(set[0]));
    // SAFETY: `blocks` is 64 writable bytes; `vst4q_u32` has no alignment requirement.
    unsafe { vst4q_u32(blocks.as_mut_ptr().cast(), words) }
}

/// The 32 rounds on `S` sets of four blocks, side by side.
#[inline]
#[target_feature(enable = "neon")]
fn rounds<const S: usize>(table: &Table, round_keys: &RoundKeys, sets: &mut [Set; S]) {
    for &rk in round_keys {
        let rk = vdupq_n_u32(rk);
        for x in sets.iter_mut() {
            let input = veorq_u32(veorq_u32(x[1], x[2]), veorq_u32(x[3], rk));
            let next = veorq_u32(x[0], round_function(table, input));
            *x = [x[1], x[2], x[3], next];
        }
    }
}

/// Runs the 32 rounds over `S` sets of four blocks.
#[inline]
#[target_feature(enable = "neon")]
fn crypt_sets<const S: usize>(table: &Table, round_keys: &RoundKeys, sets: &mut [[Block; 4]; S]) {
    let mut words: [Set; S] = core::array::from_fn(|i| load_set(&sets[i]));
    rounds(table, round_keys, &mut words);
    for (words, blocks) in words.iter().zip(sets.iter_mut()) {
        store_set(*words, blocks);
    }
}

/// Runs the 32 rounds over up to eight blocks: two sets of four side by side, or one set for
/// up to four blocks (the one-block path); a partial set goes through a copy.
#[inline]
#[target_feature(enable = "neon")]
fn crypt_batch(table: &Table, round_keys: &RoundKeys, blocks: &mut [Block]) {
    debug_assert!(blocks.len() <= BATCH);
    if blocks.len() == BATCH
        && let Ok(sets) = <&mut [[Block; 4]; 2]>::try_from(blocks.as_chunks_mut::<4>().0)
    {
        crypt_sets(table, round_keys, sets);
    } else if blocks.len() <= 4 {
        let mut buffer = [[[0u8; 16]; 4]; 1];
        buffer[0][..blocks.len()].copy_from_slice(blocks);
        crypt_sets(table, round_keys, &mut buffer);
        blocks.copy_from_slice(&buffer[0][..blocks.len()]);
        buffer.as_flattened_mut().as_flattened_mut().zeroize();
    } else {
        let mut buffer = [[[0u8; 16]; 4]; 2];
        buffer.as_flattened_mut()[..blocks.len()].copy_from_slice(blocks);
        crypt_sets(table, round_keys, &mut buffer);
        blocks.copy_from_slice(&buffer.as_flattened()[..blocks.len()]);
        buffer.as_flattened_mut().as_flattened_mut().zeroize();
    }
}

/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
unsafe fn crypt_blocks_inner(round_keys: &RoundKeys, blocks: &mut [Block]) {
    let table = Table::load();
    for chunk in blocks.chunks_mut(BATCH) {
        crypt_batch(&table, round_keys, chunk);
    }
}

/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
unsafe fn ctr_xor_blocks_inner(round_keys: &RoundKeys, counter: u128, blocks: &mut [Block]) {
    let table = Table::load();
    super::ctr_xor_blocks(
        |batch| crypt_batch(&table, round_keys, batch),
        counter,
        blocks,
    );
}

/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
unsafe fn cbc_decrypt_blocks_inner(round_keys: &RoundKeys, iv: &Block, blocks: &mut [Block]) {
    let table = Table::load();
    super::cbc_decrypt_blocks(|batch| crypt_batch(&table, round_keys, batch), iv, blocks);
}

/// Encrypts (or, with reversed round keys, decrypts) every block in place.
pub(crate) fn crypt_blocks(_token: Token, round_keys: &RoundKeys, blocks: &mut [Block]) {
    // SAFETY: a `Token` exists only after `Token::detect` saw NEON.
    unsafe { crypt_blocks_inner(round_keys, blocks) }
}

/// XORs the CTR keystream E(counter), E(counter + 1), ... into `blocks`.
pub(crate) fn ctr_xor_blocks(
    _token: Token,
    round_keys: &RoundKeys,
    counter: u128,
    blocks: &mut [Block],
) {
    // SAFETY: as in `crypt_blocks`.
    unsafe { ctr_xor_blocks_inner(round_keys, counter, blocks) }
}

/// CBC-decrypts `blocks` in place with the decryption `round_keys`.
pub(crate) fn cbc_decrypt_blocks(
    _token: Token,
    round_keys: &RoundKeys,
    iv: &Block,
    blocks: &mut [Block],
) {
    // SAFETY: as in `crypt_blocks`.
    unsafe { cbc_decrypt_blocks_inner(round_keys, iv, blocks) }
}

#[cfg(test)]
mod tests {
    use super::SBOX;

    #[test]
    fn sbox_table_matches_the_portable_arithmetic() {
        for (x, &entry) in SBOX.iter().enumerate() {
            // tau applies the S-box to every byte of a word; the upper three here are S(0).
            let word = crate::sm4::soft::tau(x as u32);
            assert_eq!(u32::from(entry), word & 0xff, "S({x:#04x})");
        }
    }
}
