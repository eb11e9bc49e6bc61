//! SM4 on the Armv8.2 SM4 Crypto Extension (`sm4-ce`).
//!
//! `SM4E Vd.4S, Vn.4S` runs four rounds: Vd holds X_i..X_(i+3) (lane 0 = X_i), Vn the round
//! keys rk_i..rk_(i+3), and the result is X_(i+4)..X_(i+7). Eight instructions make the 32
//! rounds of a block; eight blocks are kept in flight so that the instruction's latency is
//! hidden. The key schedule is the portable one (it runs once per key). The instruction takes
//! no table in memory, so the backend is constant time.

use core::arch::aarch64::*;
use core::arch::asm;

use super::super::{Block, RoundKeys};
use super::BATCH;

/// Proof that the CPU has NEON and the SM4 instructions; only [`Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Token(());

impl Token {
    /// Checks the CPU for the features this backend uses.
    pub(crate) fn detect() -> Option<Self> {
        // The loads and lane orders assume little-endian lanes: off on aarch64_be.
        let supported = cfg!(target_endian = "little")
            && std::arch::is_aarch64_feature_detected!("neon")
            && std::arch::is_aarch64_feature_detected!("sm4");
        supported.then_some(Token(()))
    }
}

/// Four rounds with the round keys in `keys`.
#[inline]
#[target_feature(enable = "neon,sm4")]
fn sm4e(state: uint32x4_t, keys: uint32x4_t) -> uint32x4_t {
    let mut state = state;
    // SAFETY: SM4E reads and writes registers only; this function is compiled for (and only
    // called on CPUs with) the SM4 extension.
    unsafe {
        asm!(
            "sm4e {state:v}.4s, {keys:v}.4s",
            state = inout(vreg) state,
            keys = in(vreg) keys,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    state
}

/// The block's words X_0..X_3 as lanes 0..3 (SM4 words are big-endian, GB/T 32907, 5.1).
#[inline]
#[target_feature(enable = "neon")]
fn load(block: &Block) -> uint32x4_t {
    // SAFETY: `block` is 16 readable bytes; `vld1q_u8` has no alignment requirement.
    let bytes = unsafe { vld1q_u8(block.as_ptr()) };
    vreinterpretq_u32_u8(vrev32q_u8(bytes))
}

/// Stores X_32..X_35 (lanes 0..3) through the reverse transform R: (X_35, X_34, X_33, X_32).
#[inline]
#[target_feature(enable = "neon")]
fn store(state: uint32x4_t, block: &mut Block) {
    let swapped = vrev64q_u32(state);
    let reversed = vextq_u32::<2>(swapped, swapped);
    let bytes = vrev32q_u8(vreinterpretq_u8_u32(reversed));
    // SAFETY: `block` is 16 writable bytes; `vst1q_u8` has no alignment requirement.
    unsafe { vst1q_u8(block.as_mut_ptr(), bytes) }
}

/// Runs the 32 rounds over `N` blocks, all in flight together.
#[inline]
#[target_feature(enable = "neon,sm4")]
fn crypt_n<const N: usize>(keys: &[uint32x4_t; 8], blocks: &mut [Block; N]) {
    let mut states: [uint32x4_t; N] = core::array::from_fn(|i| load(&blocks[i]));
    for &key in keys {
        for state in &mut states {
            *state = sm4e(*state, key);
        }
    }
    for (state, block) in states.iter().zip(blocks.iter_mut()) {
        store(*state, block);
    }
}

/// Runs the 32 rounds over up to [`BATCH`] blocks: a whole batch in flight together, a
/// shorter one four and then one at a time (one block alone is the one-block path).
#[inline]
#[target_feature(enable = "neon,sm4")]
fn crypt_batch(keys: &[uint32x4_t; 8], blocks: &mut [Block]) {
    debug_assert!(blocks.len() <= BATCH);
    if let Ok(batch) = <&mut [Block; BATCH]>::try_from(&mut *blocks) {
        crypt_n(keys, batch);
        return;
    }
    let (fours, rest) = blocks.as_chunks_mut::<4>();
    for four in fours {
        crypt_n(keys, four);
    }
    for block in rest {
        crypt_n::<1>(keys, core::array::from_mut(block));
    }
}

/// The round keys, four per register.
#[inline]
#[target_feature(enable = "neon")]
fn load_keys(round_keys: &RoundKeys) -> [uint32x4_t; 8] {
    // SAFETY: each load reads round keys 4i..4i + 3, inside the 32-entry array.
    core::array::from_fn(|i| unsafe { vld1q_u32(round_keys[4 * i..].as_ptr()) })
}

/// # Safety
/// The CPU must support NEON and the SM4 instructions.
#[target_feature(enable = "neon,sm4")]
unsafe fn crypt_blocks_inner(round_keys: &RoundKeys, blocks: &mut [Block]) {
    let keys = load_keys(round_keys);
    for chunk in blocks.chunks_mut(BATCH) {
        crypt_batch(&keys, chunk);
    }
}

/// # Safety
/// The CPU must support NEON and the SM4 instructions.
#[target_feature(enable = "neon,sm4")]
unsafe fn ctr_xor_blocks_inner(round_keys: &RoundKeys, counter: u128, blocks: &mut [Block]) {
    let keys = load_keys(round_keys);
    super::ctr_xor_blocks(|batch| crypt_batch(&keys, batch), counter, blocks);
}

/// # Safety
/// The CPU must support NEON and the SM4 instructions.
#[target_feature(enable = "neon,sm4")]
unsafe fn cbc_decrypt_blocks_inner(round_keys: &RoundKeys, iv: &Block, blocks: &mut [Block]) {
    let keys = load_keys(round_keys);
    super::cbc_decrypt_blocks(|batch| crypt_batch(&keys, batch), iv, blocks);
}

/// Encrypts (or, with reversed round keys, decrypts) every block in place.
pub(crate) fn crypt_blocks(_token: Token, round_keys: &RoundKeys, blocks: &mut [Block]) {
    // SAFETY: a `Token` exists only after `Token::detect` saw NEON and SM4.
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
