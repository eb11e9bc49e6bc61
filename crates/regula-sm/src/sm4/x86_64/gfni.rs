//! SM4 with GFNI and AVX-512 (`sm4-gfni-avx512`).
//!
//! Sixteen blocks share a set of four `zmm` registers, one 32-bit lane per block and one register
//! per state word; four such groups are interleaved to hide the latency of a round. The S-box
//! is two instructions on 64 bytes: `gf2p8affine` maps SM4's field into the AES field and
//! `gf2p8affineinv` inverts there and maps back (see `x86_64/mod.rs` for the derivation).
//! `vprold` and `vpternlogd` make the linear transform L, with the XOR into the state, seven
//! instructions.

use core::arch::x86_64::*;

use super::{AES_INVERSE_TO_SM4, BSWAP_WORDS, SM4_TO_AES_FIELD, halves};
use crate::sm4::{Block, RoundKeys};

/// Blocks per register set (sixteen 32-bit lanes in a `zmm`).
const LANES: usize = 16;
/// Register sets interleaved in the main loop.
const GROUPS: usize = 4;

/// `vpternlogd` truth table for a ^ b ^ c.
const XOR3: i32 = 0x96;

/// Proof that the CPU supports GFNI, AVX-512F and AVX-512BW; only [`Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Token(());

impl Token {
    /// Checks the CPU for the features this backend uses.
    pub(crate) fn detect() -> Option<Self> {
        let supported = std::arch::is_x86_feature_detected!("gfni")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw");
        supported.then_some(Token(()))
    }
}

/// Runs the 32 rounds with `round_keys` over every block.
pub(crate) fn crypt_blocks(_token: Token, round_keys: &RoundKeys, blocks: &mut [Block]) {
    // SAFETY: a `Token` exists only after `Token::detect` saw GFNI, AVX-512F and AVX-512BW.
    unsafe { crypt_blocks_gfni_avx512(round_keys, blocks) }
}

/// # Safety
/// The CPU must support GFNI, AVX-512F and AVX-512BW.
#[target_feature(enable = "gfni,avx512f,avx512bw")]
unsafe fn crypt_blocks_gfni_avx512(round_keys: &RoundKeys, blocks: &mut [Block]) {
    let mut wide = blocks.chunks_exact_mut(LANES * GROUPS);
    for chunk in &mut wide {
        crypt_groups::<GROUPS>(round_keys, chunk);
    }
    let rest = wide.into_remainder();
    crypt_sets(round_keys, rest.len().div_ceil(LANES), rest);
}

/// XORs the CTR keystream E(counter), E(counter + 1), ... into `blocks`.
pub(crate) fn ctr_xor_blocks(
    _token: Token,
    round_keys: &RoundKeys,
    counter: u128,
    blocks: &mut [Block],
) {
    // SAFETY: a `Token` exists only after `Token::detect` saw GFNI, AVX-512F and AVX-512BW.
    unsafe { ctr_xor_blocks_gfni_avx512(round_keys, counter, blocks) }
}

/// # Safety
/// The CPU must support GFNI, AVX-512F and AVX-512BW.
#[target_feature(enable = "gfni,avx512f,avx512bw")]
unsafe fn ctr_xor_blocks_gfni_avx512(
    round_keys: &RoundKeys,
    mut counter: u128,
    blocks: &mut [Block],
) {
    let mut wide = blocks.chunks_exact_mut(LANES * GROUPS);
    for chunk in &mut wide {
        ctr_groups::<GROUPS>(round_keys, counter, chunk);
        counter = counter.wrapping_add((LANES * GROUPS) as u128);
    }
    let rest = wide.into_remainder();
    ctr_sets(round_keys, rest.len().div_ceil(LANES), counter, rest);
}

const _: () = assert!(
    GROUPS == 4,
    "the set dispatchers below handle 1..=4 register sets"
);

/// Encrypts at most `sets * LANES` blocks with `sets` (at most [`GROUPS`]) register sets
/// interleaved; the last set may be partly empty.
#[target_feature(enable = "gfni,avx512f,avx512bw")]
fn crypt_sets(round_keys: &RoundKeys, sets: usize, blocks: &mut [Block]) {
    match sets {
        0 => {}
        1 => crypt_groups::<1>(round_keys, blocks),
        2 => crypt_groups::<2>(round_keys, blocks),
        3 => crypt_groups::<3>(round_keys, blocks),
        _ => crypt_groups::<GROUPS>(round_keys, blocks),
    }
}

/// CTR over at most `sets * LANES` blocks with `sets` (at most [`GROUPS`]) register sets
/// interleaved; the last set may be partly empty.
#[target_feature(enable = "gfni,avx512f,avx512bw")]
fn ctr_sets(round_keys: &RoundKeys, sets: usize, counter: u128, blocks: &mut [Block]) {
    match sets {
        0 => {}
        1 => ctr_groups::<1>(round_keys, counter, blocks),
        2 => ctr_groups::<2>(round_keys, counter, blocks),
        3 => ctr_groups::<3>(round_keys, counter, blocks),
        _ => ctr_groups::<GROUPS>(round_keys, counter, blocks),
    }
}

/// CBC decryption (NIST SP 800-38A, 6.2): P_i = D(C_i) ^ C_(i-1), C_(-1) = `iv`, with the
/// decryption round keys.
pub(crate) fn cbc_decrypt_blocks(
    _token: Token,
    round_keys: &RoundKeys,
    iv: &Block,
    blocks: &mut [Block],
) {
    // SAFETY: a `Token` exists only after `Token::detect` saw GFNI, AVX-512F and AVX-512BW.
    unsafe { cbc_decrypt_blocks_gfni_avx512(round_keys, iv, blocks) }
}

/// # Safety
/// The CPU must support GFNI, AVX-512F and AVX-512BW.
#[target_feature(enable = "gfni,avx512f,avx512bw")]
unsafe fn cbc_decrypt_blocks_gfni_avx512(round_keys: &RoundKeys, iv: &Block, blocks: &mut [Block]) {
    let mut previous = *iv;
    for chunk in blocks.chunks_mut(LANES * GROUPS) {
        previous = match chunk.len().div_ceil(LANES) {
            1 => cbc_decrypt_groups::<1>(round_keys, &previous, chunk),
            2 => cbc_decrypt_groups::<2>(round_keys, &previous, chunk),
            3 => cbc_decrypt_groups::<3>(round_keys, &previous, chunk),
            _ => cbc_decrypt_groups::<GROUPS>(round_keys, &previous, chunk),
        };
    }
}

/// Constant vectors, built once per call.
struct Constants {
    /// Block index of each 32-bit lane after `transpose` (register r, 128-bit lane l holds
    /// block 4r + l), for building counter words in place.
    lane_offsets: __m512i,
    to_aes_field: __m512i,
    inverse_to_sm4: __m512i,
    bswap: __m512i,
}

impl Constants {
    #[target_feature(enable = "avx512f")]
    fn new() -> Self {
        let (high, low) = halves(BSWAP_WORDS);
        Self {
            lane_offsets: _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15),
            to_aes_field: _mm512_set1_epi64(SM4_TO_AES_FIELD.gfni_matrix()),
            inverse_to_sm4: _mm512_set1_epi64(AES_INVERSE_TO_SM4.gfni_matrix()),
            bswap: _mm512_set_epi64(high, low, high, low, high, low, high, low),
        }
    }
}

/// The S-box on all 64 bytes: `A·phi^-1·inv_aes(phi·A·x + phi(0xD3)) + 0xD3`.
#[inline]
#[target_feature(enable = "gfni,avx512f")]
fn sbox(x: __m512i, c: &Constants) -> __m512i {
    const TO_AES_CONSTANT: i32 = SM4_TO_AES_FIELD.gfni_constant();
    const TO_SM4_CONSTANT: i32 = AES_INVERSE_TO_SM4.gfni_constant();
    let y = _mm512_gf2p8affine_epi64_epi8::<TO_AES_CONSTANT>(x, c.to_aes_field);
    _mm512_gf2p8affineinv_epi64_epi8::<TO_SM4_CONSTANT>(y, c.inverse_to_sm4)
}

/// One round: returns X_i ^ L(S(X_{i+1} ^ X_{i+2} ^ X_{i+3} ^ rk_i)) (GB/T 32907-2016, 7.1),
/// with L(B) = B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24) (6.2.2).
#[inline]
#[target_feature(enable = "gfni,avx512f")]
fn round(
    x0: __m512i,
    x1: __m512i,
    x2: __m512i,
    x3: __m512i,
    rk: __m512i,
    c: &Constants,
) -> __m512i {
    // `x3` is the word the previous round produced: XOR it last to shorten the critical path.
    let t = _mm512_xor_si512(_mm512_ternarylogic_epi32::<XOR3>(x1, x2, rk), x3);
    let b = sbox(t, c);
    let partial = _mm512_ternarylogic_epi32::<XOR3>(x0, b, _mm512_rol_epi32::<2>(b));
    let rotated = _mm512_ternarylogic_epi32::<XOR3>(
        _mm512_rol_epi32::<10>(b),
        _mm512_rol_epi32::<18>(b),
        _mm512_rol_epi32::<24>(b),
    );
    _mm512_xor_si512(partial, rotated)
}

/// 4x4 transpose of 32-bit words inside each 128-bit lane; its own inverse.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose(rows: [__m512i; 4]) -> [__m512i; 4] {
    let t0 = _mm512_unpacklo_epi32(rows[0], rows[1]);
    let t1 = _mm512_unpacklo_epi32(rows[2], rows[3]);
    let t2 = _mm512_unpackhi_epi32(rows[0], rows[1]);
    let t3 = _mm512_unpackhi_epi32(rows[2], rows[3]);
    [
        _mm512_unpacklo_epi64(t0, t1),
        _mm512_unpackhi_epi64(t0, t1),
        _mm512_unpacklo_epi64(t2, t3),
        _mm512_unpackhi_epi64(t2, t3),
    ]
}

/// Loads up to four blocks into a `zmm`; lanes past `quad.len()` are zero.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_quad(quad: &[Block]) -> __m512i {
    if let [_, _, _, _] = quad {
        // SAFETY: `quad` is four contiguous blocks, so 64 bytes are readable from its start;
        // `loadu` has no alignment requirement.
        unsafe { _mm512_loadu_si512(quad.as_ptr().cast()) }
    } else {
        // SAFETY: the mask selects exactly the 4 * quad.len() 32-bit lanes inside `quad`;
        // AVX-512 neither reads nor faults on masked-off lanes, and needs no alignment.
        unsafe { _mm512_maskz_loadu_epi32(lane_mask(quad.len()), quad.as_ptr().cast()) }
    }
}

/// Stores the first `quad.len()` (at most four) blocks of a `zmm` into `quad`.
#[inline]
#[target_feature(enable = "avx512f")]
fn store_quad(quad: &mut [Block], value: __m512i) {
    if let [_, _, _, _] = quad {
        // SAFETY: `quad` is four contiguous, exclusively borrowed blocks, so 64 bytes are
        // writable from its start; `storeu` has no alignment requirement.
        unsafe { _mm512_storeu_si512(quad.as_mut_ptr().cast(), value) }
    } else {
        // SAFETY: the mask selects exactly the 4 * quad.len() 32-bit lanes inside the
        // exclusively borrowed `quad`; masked-off lanes are not written and cannot fault.
        unsafe { _mm512_mask_storeu_epi32(quad.as_mut_ptr().cast(), lane_mask(quad.len()), value) }
    }
}

/// One mask bit per 32-bit lane, four lanes per block, for the first `blocks` (0..=4) blocks.
#[inline]
fn lane_mask(blocks: usize) -> __mmask16 {
    ((1u32 << (4 * blocks)) - 1) as __mmask16
}

/// Loads up to sixteen blocks as four registers of state words (word w of every block in
/// register w); lanes past `group.len()` are zero.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_words(group: &[Block], c: &Constants) -> [__m512i; 4] {
    let mut rows = [_mm512_setzero_si512(); 4];
    for (row, quad) in rows.iter_mut().zip(group.chunks(4)) {
        *row = _mm512_shuffle_epi8(load_quad(quad), c.bswap);
    }
    transpose(rows)
}

/// Stores four registers of state words back as `group.len()` (at most 16) blocks.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn store_words(words: [__m512i; 4], group: &mut [Block], c: &Constants) {
    let rows = transpose(words);
    for (row, quad) in rows.iter().zip(group.chunks_mut(4)) {
        store_quad(quad, _mm512_shuffle_epi8(*row, c.bswap));
    }
}

/// XORs four registers of state words, as blocks, into `group` (at most 16 blocks).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn xor_store_words(words: [__m512i; 4], group: &mut [Block], c: &Constants) {
    let rows = transpose(words);
    for (row, quad) in rows.iter().zip(group.chunks_mut(4)) {
        let key = _mm512_shuffle_epi8(*row, c.bswap);
        let data = load_quad(quad);
        store_quad(quad, _mm512_xor_si512(data, key));
    }
}

/// Encrypts up to `G * LANES` blocks, `G` register sets interleaved (unused lanes are zero).
#[target_feature(enable = "gfni,avx512f,avx512bw")]
fn crypt_groups<const G: usize>(round_keys: &RoundKeys, blocks: &mut [Block]) {
    assert!(blocks.len() <= G * LANES);
    let c = Constants::new();
    let mut state = [[_mm512_setzero_si512(); 4]; G];
    for (words, group) in state.iter_mut().zip(blocks.chunks(LANES)) {
        *words = load_words(group, &c);
    }
    rounds(round_keys, &mut state, &c);
    for (x, group) in state.iter().zip(blocks.chunks_mut(LANES)) {
        // Reverse transform R: the output is (X35, X34, X33, X32) (GB/T 32907-2016, 7.1).
        store_words([x[3], x[2], x[1], x[0]], group, &c);
    }
}

/// The 32 rounds (GB/T 32907-2016, 7.1) on `G` interleaved register sets.
#[inline]
#[target_feature(enable = "gfni,avx512f")]
fn rounds<const G: usize>(round_keys: &RoundKeys, state: &mut [[__m512i; 4]; G], c: &Constants) {
    for rk in round_keys.chunks_exact(4) {
        let rk0 = _mm512_set1_epi32(rk[0] as i32);
        for x in state.iter_mut() {
            x[0] = round(x[0], x[1], x[2], x[3], rk0, c);
        }
        let rk1 = _mm512_set1_epi32(rk[1] as i32);
        for x in state.iter_mut() {
            x[1] = round(x[1], x[2], x[3], x[0], rk1, c);
        }
        let rk2 = _mm512_set1_epi32(rk[2] as i32);
        for x in state.iter_mut() {
            x[2] = round(x[2], x[3], x[0], x[1], rk2, c);
        }
        let rk3 = _mm512_set1_epi32(rk[3] as i32);
        for x in state.iter_mut() {
            x[3] = round(x[3], x[0], x[1], x[2], rk3, c);
        }
    }
}

/// Encrypts the counter blocks counter, counter + 1, ... and XORs them into up to `G * LANES`
/// blocks.
#[target_feature(enable = "gfni,avx512f,avx512bw")]
fn ctr_groups<const G: usize>(round_keys: &RoundKeys, counter: u128, blocks: &mut [Block]) {
    assert!(blocks.len() <= G * LANES);
    let c = Constants::new();
    let mut state = [[_mm512_setzero_si512(); 4]; G];
    let low_word = counter as u32;
    if low_word.checked_add((G * LANES - 1) as u32).is_some() {
        // No carry out of the low word: words 0..=2 are the same in every block.
        let word = |shift: u32| _mm512_set1_epi32((counter >> shift) as u32 as i32);
        for (group, x) in state.iter_mut().enumerate() {
            let first = _mm512_set1_epi32((low_word + (group * LANES) as u32) as i32);
            *x = [
                word(96),
                word(64),
                word(32),
                _mm512_add_epi32(first, c.lane_offsets),
            ];
        }
    } else {
        // The low word wraps inside this chunk (rare): build the counter blocks in memory.
        let mut counters = [[0u8; 16]; LANES];
        for (group, x) in state.iter_mut().enumerate() {
            for (offset, block) in counters.iter_mut().enumerate() {
                *block = counter
                    .wrapping_add((group * LANES + offset) as u128)
                    .to_be_bytes();
            }
            *x = load_words(&counters, &c);
        }
    }
    rounds(round_keys, &mut state, &c);
    for (x, group) in state.iter().zip(blocks.chunks_mut(LANES)) {
        xor_store_words([x[3], x[2], x[1], x[0]], group, &c);
    }
}

/// CBC-decrypts 1..=`G * LANES` blocks in place, `G` register sets interleaved; returns the
/// last ciphertext block, the IV of the next chunk.
#[target_feature(enable = "gfni,avx512f,avx512bw")]
fn cbc_decrypt_groups<const G: usize>(
    round_keys: &RoundKeys,
    iv: &Block,
    blocks: &mut [Block],
) -> Block {
    assert!(!blocks.is_empty() && blocks.len() <= G * LANES);
    let c = Constants::new();
    let mut state = [[_mm512_setzero_si512(); 4]; G];
    for (words, group) in state.iter_mut().zip(blocks.chunks(LANES)) {
        *words = load_words(group, &c);
    }
    rounds(round_keys, &mut state, &c);
    let last_ciphertext = blocks[blocks.len() - 1];
    // Write back from the end, so that each C_(i-1) is read before it is overwritten.
    for (set, x) in state.iter().enumerate().rev() {
        // Reverse transform R: the output is (X35, X34, X33, X32) (GB/T 32907-2016, 7.1).
        let rows = transpose([x[3], x[2], x[1], x[0]]);
        for (index, row) in rows.iter().enumerate().rev() {
            let first = set * LANES + index * 4;
            let end = blocks.len().min(first + 4);
            if first >= end {
                continue;
            }
            let decrypted = _mm512_shuffle_epi8(*row, c.bswap);
            let previous = if first == 0 {
                let mut shifted = [*iv; 4];
                shifted[1..end].copy_from_slice(&blocks[..end - 1]);
                load_quad(&shifted[..end])
            } else {
                load_quad(&blocks[first - 1..end - 1])
            };
            store_quad(
                &mut blocks[first..end],
                _mm512_xor_si512(decrypted, previous),
            );
        }
    }
    last_ciphertext
}
