//! SM4 with GFNI and AVX-512 (`sm4-gfni-avx512`).
//!
//! Sixteen blocks share a set of four `zmm` registers, one 32-bit lane per block and one register
//! per state word; four such groups are interleaved to hide the latency of a round. The S-box
//! is two instructions on 64 bytes: `gf2p8affine` maps SM4's field into the AES field and
//! `gf2p8affineinv` inverts there and maps back (see `x86_64/mod.rs` for the derivation).
//! `vprold` and `vpternlogd` make the linear transform L, with the XOR into the state, seven
//! instructions.
//!
//! One block at a time (CBC encryption, the CBC-MACs) is latency bound, so it has its own path,
//! [`crypt_block`]; see there for its per-round critical path.

use core::arch::x86_64::*;

use super::{AES_INVERSE_TO_SM4, BSWAP_WORDS, GFNI_L_TERMS, SM4_TO_AES_FIELD, halves};
use crate::sm4::{Block, BlockKeys, RoundKeys};

/// Blocks per register set (sixteen 32-bit lanes in a `zmm`).
const LANES: usize = 16;
/// Register sets interleaved in the main loop.
const GROUPS: usize = 4;

/// `vpternlogd` truth table for a ^ b ^ c.
const XOR3: i32 = 0x96;

/// Proof that the CPU supports GFNI, AVX-512F, AVX-512BW and AVX-512VL; only [`Token::detect`]
/// makes one.
#[derive(Clone, Copy)]
pub(crate) struct Token(());

impl Token {
    /// Checks the CPU for the features this backend uses (VL for the one-block path's `xmm`
    /// forms of `vpternlogd` and `vprold`).
    pub(crate) fn detect() -> Option<Self> {
        let supported = std::arch::is_x86_feature_detected!("gfni")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl");
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

// One block at a time.
//
// The plain round is XOR (2 cycles on Zen 5), `gf2p8affine` (3), `gf2p8affineinv` (3), then L:
// rotations (2), `vpternlogd` (2), XOR (2) — 14 cycles of dependent latency. This path
// shortens it to 9:
//
// * The state words are kept multiplied by `Mx`, the linear part of the map into the AES field
//   (`x~ = Mx·x` byte-wise, and the round keys are `rk~ = Mx·rk + phi(0xD3)`), so
//   `y~ = x~1 ^ x~2 ^ x~3 ^ rk~` is already the input of the AES-field inversion: no
//   `gf2p8affine` in the loop.
// * `Mx·L(S(y))` is split into byte-wise terms and byte rotations,
//   `T0 ^ rot8(T1) ^ rot16(T1) ^ rot24(T3)` with `Tk = GFNI_L_TERMS[k]·inv(y~)` (see
//   `x86_64/mod.rs`),
//   so each term is one `gf2p8affineinv`: three per round, and L shrinks to three `vprold`.
// * The next input is `y~_(i+1) = Q_i ^ Mx·L(S(y_i))` with
//   `Q_i = y~_i ^ x~_i ^ x~_(i+1) ^ rk~_i ^ rk~_(i+1)`: only old words and y~_i, ready while the
//   inversions run, so no XOR with the newest word opens the round.
//
// Critical path per round: `gf2p8affineinv` (3) + `vprold` (2) + two `vpternlogd` (4) = 9 cycles.
// Keeping the word also rotated by 16 bits would save one `vpternlogd` level (8 cycles), but
// needs five or six inversions a round; on two GFNI ports both variants measured slower.
// Each word is broadcast to all four 32-bit lanes, so the final blends need no shuffles. Nothing secret indexes memory or steers a
// branch.

one_block_entry_points!("gfni,avx512f,avx512bw,avx512vl");

/// `gf2p8affine(inv)` matrices of the one-block path, evaluated at compile time.
const TO_AES_MATRIX: i64 = SM4_TO_AES_FIELD.linear_part().gfni_matrix();
const FROM_AES_MATRIX: i64 = SM4_TO_AES_FIELD.inverse_linear().gfni_matrix();
const TERM_0_MATRIX: i64 = GFNI_L_TERMS[0].gfni_matrix();
const TERM_1_MATRIX: i64 = GFNI_L_TERMS[1].gfni_matrix();
const TERM_3_MATRIX: i64 = GFNI_L_TERMS[2].gfni_matrix();

/// Constant vectors of the one-block path.
struct BlockConstants {
    to_aes: __m128i,
    from_aes: __m128i,
    bswap: __m128i,
    term_0: __m128i,
    term_1: __m128i,
    term_3: __m128i,
}

impl BlockConstants {
    #[target_feature(enable = "avx512f,avx512vl")]
    fn new() -> Self {
        let (high, low) = halves(BSWAP_WORDS);
        Self {
            to_aes: _mm_set1_epi64x(TO_AES_MATRIX),
            from_aes: _mm_set1_epi64x(FROM_AES_MATRIX),
            bswap: _mm_set_epi64x(high, low),
            term_0: _mm_set1_epi64x(TERM_0_MATRIX),
            term_1: _mm_set1_epi64x(TERM_1_MATRIX),
            term_3: _mm_set1_epi64x(TERM_3_MATRIX),
        }
    }

    /// Loads a block as its four words x~_0..x~_3, each broadcast to all lanes.
    #[inline]
    #[target_feature(enable = "gfni,avx512f,avx512vl")]
    fn load_words(&self, block: &Block) -> [__m128i; 4] {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        let bytes = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
        let transformed = _mm_gf2p8affine_epi64_epi8::<0>(bytes, self.to_aes);
        // Word j is bytes 4j..4j+4, big-endian (GB/T 32907-2016, 5.1).
        core::array::from_fn(|j| {
            let j = 4 * j as u8;
            let control = u32::from_le_bytes([j + 3, j + 2, j + 1, j]);
            _mm_shuffle_epi8(transformed, _mm_set1_epi32(control as i32))
        })
    }

    /// Stores (X35, X34, X33, X32), given x~_32..x~_35, as the output block.
    #[inline]
    #[target_feature(enable = "gfni,avx512f,avx512vl")]
    fn store_words(&self, [x32, x33, x34, x35]: [__m128i; 4], block: &mut Block) {
        // Reverse transform R (GB/T 32907-2016, 7.1); blend the newest word last.
        let words = _mm_blend_epi32::<0b0100>(x32, x33);
        let words = _mm_blend_epi32::<0b0010>(words, x34);
        let words = _mm_blend_epi32::<0b0001>(words, x35);
        let words = _mm_gf2p8affine_epi64_epi8::<0>(words, self.from_aes);
        let output = _mm_shuffle_epi8(words, self.bswap);
        // SAFETY: `block` is 16 exclusively borrowed bytes; `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), output) }
    }
}

/// Most blocks [`crypt_few`] and [`ctr_xor_few`] take: one per 32-bit lane of an `xmm`.
pub(crate) const FEW_BLOCKS: usize = 4;

/// Runs the 32 rounds over 1..=[`FEW_BLOCKS`] blocks on the one-block path's latency-optimised
/// rounds, one block per 32-bit lane (those rounds are lane-wise, so the lanes the one-block
/// path fills with copies of a word can carry other blocks' words instead). Short messages
/// (a CTR block, GCM's keystream block and E_K(J0)) take this instead of a 16-lane set, whose
/// round has the longer critical path.
pub(crate) fn crypt_few(_token: Token, keys: &BlockKeys, blocks: &mut [Block]) {
    assert!(blocks.len() <= FEW_BLOCKS);
    // SAFETY: a `Token` exists only after `Token::detect` saw GFNI, AVX-512F, AVX-512BW and
    // AVX-512VL, the features `crypt_few_inner` is compiled with.
    unsafe { crypt_few_inner(keys, blocks) }
}

/// XORs E(counter), ..., E(counter + n − 1) (counter modulo 2^128) into 1..=[`FEW_BLOCKS`]
/// blocks, as [`crypt_few`] runs them; the keystream stays in registers.
pub(crate) fn ctr_xor_few(_token: Token, keys: &BlockKeys, counter: u128, blocks: &mut [Block]) {
    assert!(blocks.len() <= FEW_BLOCKS);
    // SAFETY: as in `crypt_few`.
    unsafe { ctr_xor_few_inner(keys, counter, blocks) }
}

/// # Safety
/// The CPU must support GFNI, AVX-512F, AVX-512BW and AVX-512VL.
#[target_feature(enable = "gfni,avx512f,avx512bw,avx512vl")]
unsafe fn crypt_few_inner(keys: &BlockKeys, blocks: &mut [Block]) {
    let c = BlockConstants::new();
    let rows = few_rounds(load_rows(blocks), keys, &c);
    store_rows(&rows, blocks);
}

/// # Safety
/// The CPU must support GFNI, AVX-512F, AVX-512BW and AVX-512VL.
#[target_feature(enable = "gfni,avx512f,avx512bw,avx512vl")]
unsafe fn ctr_xor_few_inner(keys: &BlockKeys, counter: u128, blocks: &mut [Block]) {
    let c = BlockConstants::new();
    // Counter blocks are public; only their encryptions, kept in registers, are keystream.
    let mut counters = [[0u8; 16]; FEW_BLOCKS];
    for (offset, block) in counters.iter_mut().enumerate().take(blocks.len()) {
        *block = counter.wrapping_add(offset as u128).to_be_bytes();
    }
    let rows = few_rounds(load_rows(&counters), keys, &c);
    for (row, block) in rows.iter().zip(blocks.iter_mut()) {
        // SAFETY: `block` is 16 exclusively borrowed bytes; `loadu`/`storeu` need no alignment.
        unsafe {
            let data = _mm_loadu_si128(block.as_ptr().cast());
            _mm_storeu_si128(block.as_mut_ptr().cast(), _mm_xor_si128(data, *row));
        }
    }
}

// `load_rows` and `store_rows` spell out one arm per block count.
const _: () = assert!(FEW_BLOCKS == 4);

/// Up to [`FEW_BLOCKS`] blocks as rows of bytes; missing rows are zero. One arm per count:
/// a loop over the slice compiled to a libc `memcpy` call into a stack array.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn load_rows(blocks: &[Block]) -> [__m128i; FEW_BLOCKS] {
    // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
    let load = |block: &Block| unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
    let zero = _mm_setzero_si128();
    match blocks {
        [] => [zero; FEW_BLOCKS],
        [a] => [load(a), zero, zero, zero],
        [a, b] => [load(a), load(b), zero, zero],
        [a, b, c] => [load(a), load(b), load(c), zero],
        [a, b, c, d, ..] => [load(a), load(b), load(c), load(d)],
    }
}

/// Stores the first `blocks.len()` ≤ [`FEW_BLOCKS`] rows into `blocks`, one arm per count as
/// in [`load_rows`].
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn store_rows(rows: &[__m128i; FEW_BLOCKS], blocks: &mut [Block]) {
    // SAFETY: `block` is 16 exclusively borrowed bytes; `storeu` needs no alignment.
    let store = |block: &mut Block, row: __m128i| unsafe {
        _mm_storeu_si128(block.as_mut_ptr().cast(), row)
    };
    match blocks {
        [] => {}
        [a] => store(a, rows[0]),
        [a, b] => {
            store(a, rows[0]);
            store(b, rows[1]);
        }
        [a, b, c] => {
            store(a, rows[0]);
            store(b, rows[1]);
            store(c, rows[2]);
        }
        [a, b, c, d, ..] => {
            store(a, rows[0]);
            store(b, rows[1]);
            store(c, rows[2]);
            store(d, rows[3]);
        }
    }
}

/// 4x4 transpose of 32-bit words; its own inverse.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn transpose_xmm(rows: [__m128i; 4]) -> [__m128i; 4] {
    let t0 = _mm_unpacklo_epi32(rows[0], rows[1]);
    let t1 = _mm_unpacklo_epi32(rows[2], rows[3]);
    let t2 = _mm_unpackhi_epi32(rows[0], rows[1]);
    let t3 = _mm_unpackhi_epi32(rows[2], rows[3]);
    [
        _mm_unpacklo_epi64(t0, t1),
        _mm_unpackhi_epi64(t0, t1),
        _mm_unpacklo_epi64(t2, t3),
        _mm_unpackhi_epi64(t2, t3),
    ]
}

/// The 32 rounds over four blocks given as rows of bytes (block k in row k); returns the output
/// blocks the same way.
#[inline]
#[target_feature(enable = "gfni,avx512f,avx512bw,avx512vl")]
fn few_rounds(rows: [__m128i; 4], keys: &BlockKeys, c: &BlockConstants) -> [__m128i; 4] {
    // Bytes into the Mx domain (byte-wise, so before or after the word byte swap alike), words
    // to native order (GB/T 32907-2016, 5.1: big-endian), then register j holds word j of
    // block k in lane k.
    let words = transpose_xmm(
        rows.map(|row| _mm_shuffle_epi8(_mm_gf2p8affine_epi64_epi8::<0>(row, c.to_aes), c.bswap)),
    );
    let [x32, x33, x34, x35] = block_rounds(words, keys, c);
    // Reverse transform R: block k is (X35, X34, X33, X32) (GB/T 32907-2016, 7.1).
    transpose_xmm([x35, x34, x33, x32])
        .map(|row| _mm_shuffle_epi8(_mm_gf2p8affine_epi64_epi8::<0>(row, c.from_aes), c.bswap))
}

/// `a ^ b ^ c ^ d`, the first round's input.
#[inline]
#[target_feature(enable = "gfni,avx512f,avx512vl")]
fn xor4(a: __m128i, b: __m128i, c: __m128i, d: __m128i) -> __m128i {
    _mm_xor_si128(_mm_ternarylogic_epi32::<XOR3>(a, b, c), d)
}

/// Round i: from y~_i, x~_i and x~_(i+1), returns (y~_(i+1), x~_(i+4)).
#[inline]
#[target_feature(enable = "gfni,avx512f,avx512vl")]
fn block_round(
    y: __m128i,
    oldest: __m128i,
    next: __m128i,
    keys: &[u32; 2],
    c: &BlockConstants,
) -> (__m128i, __m128i) {
    const TERM_0_CONSTANT: i32 = GFNI_L_TERMS[0].gfni_constant();
    // The two terms that get rotated first: they end the critical path.
    let t1 = _mm_gf2p8affineinv_epi64_epi8::<0>(y, c.term_1);
    let t3 = _mm_gf2p8affineinv_epi64_epi8::<0>(y, c.term_3);
    let t0 = _mm_gf2p8affineinv_epi64_epi8::<TERM_0_CONSTANT>(y, c.term_0);
    let chained_key = _mm_set1_epi32(keys[1] as i32);
    let q = _mm_xor_si128(y, _mm_ternarylogic_epi32::<XOR3>(oldest, next, chained_key));
    let y_next = _mm_ternarylogic_epi32::<XOR3>(
        _mm_ternarylogic_epi32::<XOR3>(q, t0, _mm_rol_epi32::<8>(t1)),
        _mm_rol_epi32::<16>(t1),
        _mm_rol_epi32::<24>(t3),
    );
    // x~_(i+4) = x~_i ^ Mx·L(S(y_i)) = x~_i ^ Q_i ^ y~_(i+1); off the critical path.
    (y_next, _mm_ternarylogic_epi32::<XOR3>(oldest, q, y_next))
}
