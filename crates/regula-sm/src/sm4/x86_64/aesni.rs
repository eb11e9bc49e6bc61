//! SM4 with AES-NI and AVX2 (`sm4-aesni-avx2`).
//!
//! Eight blocks share a set of four `ymm` registers, one 32-bit lane per block and one register
//! per state word; four such groups are interleaved to hide latency. The S-box runs on all 32
//! bytes of a register at once: a nibble-table affine map into the AES field, `aesenclast` with
//! a zero round key on each 128-bit half (after undoing the ShiftRows it applies), and a second
//! nibble-table affine map back (see `x86_64/mod.rs` for the derivation).
//!
//! One block at a time (CBC encryption, the CBC-MACs) is latency bound, so it has its own path,
//! [`crypt_block`]; see there for its per-round critical path.

use core::arch::x86_64::*;

use super::{AES_SBOX_TO_SM4, AESNI_L_TERMS, Affine, BSWAP_WORDS, SM4_TO_AES_FIELD, halves};
use crate::sm4::{Block, BlockKeys, RoundKeys};

/// Blocks per register set (eight 32-bit lanes in a `ymm`).
const LANES: usize = 8;
/// Register sets interleaved in the main loop.
const GROUPS: usize = 4;

/// Proof that the CPU supports AES-NI and AVX2; only [`Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Token(());

impl Token {
    /// Checks the CPU for the features this backend uses.
    pub(crate) fn detect() -> Option<Self> {
        let supported = std::arch::is_x86_feature_detected!("aes")
            && std::arch::is_x86_feature_detected!("avx2");
        supported.then_some(Token(()))
    }
}

/// Runs the 32 rounds with `round_keys` over every block.
pub(crate) fn crypt_blocks(_token: Token, round_keys: &RoundKeys, blocks: &mut [Block]) {
    // SAFETY: a `Token` exists only after `Token::detect` saw AES-NI and AVX2.
    unsafe { crypt_blocks_aesni_avx2(round_keys, blocks) }
}

/// # Safety
/// The CPU must support AES-NI and AVX2.
#[target_feature(enable = "aes,avx2")]
unsafe fn crypt_blocks_aesni_avx2(round_keys: &RoundKeys, blocks: &mut [Block]) {
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
    // SAFETY: a `Token` exists only after `Token::detect` saw AES-NI and AVX2.
    unsafe { ctr_xor_blocks_aesni_avx2(round_keys, counter, blocks) }
}

/// # Safety
/// The CPU must support AES-NI and AVX2.
#[target_feature(enable = "aes,avx2")]
unsafe fn ctr_xor_blocks_aesni_avx2(
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
#[target_feature(enable = "aes,avx2")]
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
#[target_feature(enable = "aes,avx2")]
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
    // SAFETY: a `Token` exists only after `Token::detect` saw AES-NI and AVX2.
    unsafe { cbc_decrypt_blocks_aesni_avx2(round_keys, iv, blocks) }
}

/// # Safety
/// The CPU must support AES-NI and AVX2.
#[target_feature(enable = "aes,avx2")]
unsafe fn cbc_decrypt_blocks_aesni_avx2(round_keys: &RoundKeys, iv: &Block, blocks: &mut [Block]) {
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
    /// block 2r + l), for building counter words in place.
    lane_offsets: __m256i,
    nibble_mask: __m256i,
    to_aes_low: __m256i,
    to_aes_high: __m256i,
    to_sm4_low: __m256i,
    to_sm4_high: __m256i,
    inverse_shift_rows: __m256i,
    rotate_8: __m256i,
    rotate_16: __m256i,
    rotate_24: __m256i,
    bswap: __m256i,
}

/// Inverse AES ShiftRows as a `pshufb` control (FIPS 197, 5.3.1): `aesenclast` applies
/// ShiftRows, so pre-applying its inverse keeps every byte in its lane.
const INVERSE_SHIFT_ROWS: [u8; 16] = [0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3];

/// `pshufb` controls rotating each little-endian 32-bit lane left by 8, 16 and 24 bits.
const ROTATE_8: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
const ROTATE_16: [u8; 16] = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
const ROTATE_24: [u8; 16] = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];

#[target_feature(enable = "avx2")]
fn broadcast(bytes: [u8; 16]) -> __m256i {
    let (high, low) = halves(bytes);
    _mm256_set_epi64x(high, low, high, low)
}

impl Constants {
    #[target_feature(enable = "avx2")]
    fn new() -> Self {
        let low = |map: &Affine| broadcast(map.low_nibble_table());
        let high = |map: &Affine| broadcast(map.high_nibble_table());
        Self {
            lane_offsets: _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7),
            nibble_mask: _mm256_set1_epi8(0x0f),
            to_aes_low: low(&SM4_TO_AES_FIELD),
            to_aes_high: high(&SM4_TO_AES_FIELD),
            to_sm4_low: low(&AES_SBOX_TO_SM4),
            to_sm4_high: high(&AES_SBOX_TO_SM4),
            inverse_shift_rows: broadcast(INVERSE_SHIFT_ROWS),
            rotate_8: broadcast(ROTATE_8),
            rotate_16: broadcast(ROTATE_16),
            rotate_24: broadcast(ROTATE_24),
            bswap: broadcast(BSWAP_WORDS),
        }
    }
}

/// Applies a byte-wise affine map given as low- and high-nibble `pshufb` tables.
#[inline]
#[target_feature(enable = "avx2")]
fn affine(x: __m256i, low_table: __m256i, high_table: __m256i, nibble_mask: __m256i) -> __m256i {
    let low = _mm256_and_si256(x, nibble_mask);
    let high = _mm256_and_si256(_mm256_srli_epi32::<4>(x), nibble_mask);
    _mm256_xor_si256(
        _mm256_shuffle_epi8(low_table, low),
        _mm256_shuffle_epi8(high_table, high),
    )
}

/// The S-box on all 32 bytes.
#[inline]
#[target_feature(enable = "aes,avx2")]
fn sbox(x: __m256i, c: &Constants) -> __m256i {
    let y = affine(x, c.to_aes_low, c.to_aes_high, c.nibble_mask);
    let y = _mm256_shuffle_epi8(y, c.inverse_shift_rows);
    let zero = _mm_setzero_si128();
    let low = _mm_aesenclast_si128(_mm256_castsi256_si128(y), zero);
    let high = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(y), zero);
    let z = _mm256_set_m128i(high, low);
    affine(z, c.to_sm4_low, c.to_sm4_high, c.nibble_mask)
}

/// L(B) = B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24) (GB/T 32907-2016, 6.2.2),
/// computed as B ^ (B <<< 24) ^ ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2).
#[inline]
#[target_feature(enable = "avx2")]
fn linear(b: __m256i, c: &Constants) -> __m256i {
    let spread = _mm256_xor_si256(
        _mm256_xor_si256(b, _mm256_shuffle_epi8(b, c.rotate_8)),
        _mm256_shuffle_epi8(b, c.rotate_16),
    );
    let spread_2 = _mm256_or_si256(
        _mm256_slli_epi32::<2>(spread),
        _mm256_srli_epi32::<30>(spread),
    );
    _mm256_xor_si256(
        _mm256_xor_si256(b, _mm256_shuffle_epi8(b, c.rotate_24)),
        spread_2,
    )
}

/// One round: returns X_i ^ T(X_{i+1} ^ X_{i+2} ^ X_{i+3} ^ rk_i) (GB/T 32907-2016, 7.1).
#[inline]
#[target_feature(enable = "aes,avx2")]
fn round(
    x0: __m256i,
    x1: __m256i,
    x2: __m256i,
    x3: __m256i,
    rk: __m256i,
    c: &Constants,
) -> __m256i {
    // `x3` is the word the previous round produced: XOR it last to shorten the critical path.
    let t = _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(x1, x2), rk), x3);
    _mm256_xor_si256(x0, linear(sbox(t, c), c))
}

/// 4x4 transpose of 32-bit words inside each 128-bit lane; its own inverse.
#[inline]
#[target_feature(enable = "avx2")]
fn transpose(rows: [__m256i; 4]) -> [__m256i; 4] {
    let t0 = _mm256_unpacklo_epi32(rows[0], rows[1]);
    let t1 = _mm256_unpacklo_epi32(rows[2], rows[3]);
    let t2 = _mm256_unpackhi_epi32(rows[0], rows[1]);
    let t3 = _mm256_unpackhi_epi32(rows[2], rows[3]);
    [
        _mm256_unpacklo_epi64(t0, t1),
        _mm256_unpackhi_epi64(t0, t1),
        _mm256_unpacklo_epi64(t2, t3),
        _mm256_unpackhi_epi64(t2, t3),
    ]
}

/// Loads up to two blocks into a `ymm`; the upper half is zero when `pair` has one block.
#[inline]
#[target_feature(enable = "avx2")]
fn load_pair(pair: &[Block]) -> __m256i {
    match pair {
        [_, _] => {
            // SAFETY: `pair` is two contiguous blocks, so 32 bytes are readable from its start;
            // `loadu` has no alignment requirement.
            unsafe { _mm256_loadu_si256(pair.as_ptr().cast()) }
        }
        [block] => {
            // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
            let low = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
            _mm256_set_m128i(_mm_setzero_si128(), low)
        }
        _ => _mm256_setzero_si256(),
    }
}

/// Stores the first `pair.len()` (at most two) blocks of a `ymm` into `pair`.
#[inline]
#[target_feature(enable = "avx2")]
fn store_pair(pair: &mut [Block], value: __m256i) {
    match pair {
        [_, _] => {
            // SAFETY: `pair` is two contiguous, exclusively borrowed blocks, so 32 bytes are
            // writable from its start; `storeu` has no alignment requirement.
            unsafe { _mm256_storeu_si256(pair.as_mut_ptr().cast(), value) }
        }
        [block] => {
            // SAFETY: `block` is 16 exclusively borrowed bytes; `storeu` needs no alignment.
            unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), _mm256_castsi256_si128(value)) }
        }
        _ => {}
    }
}

/// Loads up to eight blocks as four registers of state words (word w of every block in
/// register w); lanes past `group.len()` are zero.
#[inline]
#[target_feature(enable = "avx2")]
fn load_words(group: &[Block], c: &Constants) -> [__m256i; 4] {
    let mut rows = [_mm256_setzero_si256(); 4];
    for (row, pair) in rows.iter_mut().zip(group.chunks(2)) {
        *row = _mm256_shuffle_epi8(load_pair(pair), c.bswap);
    }
    transpose(rows)
}

/// Stores four registers of state words back as `group.len()` (at most 8) blocks.
#[inline]
#[target_feature(enable = "avx2")]
fn store_words(words: [__m256i; 4], group: &mut [Block], c: &Constants) {
    let rows = transpose(words);
    for (row, pair) in rows.iter().zip(group.chunks_mut(2)) {
        store_pair(pair, _mm256_shuffle_epi8(*row, c.bswap));
    }
}

/// XORs four registers of state words, as blocks, into `group` (at most 8 blocks).
#[inline]
#[target_feature(enable = "avx2")]
fn xor_store_words(words: [__m256i; 4], group: &mut [Block], c: &Constants) {
    let rows = transpose(words);
    for (row, pair) in rows.iter().zip(group.chunks_mut(2)) {
        let key = _mm256_shuffle_epi8(*row, c.bswap);
        let data = load_pair(pair);
        store_pair(pair, _mm256_xor_si256(data, key));
    }
}

/// Encrypts up to `G * LANES` blocks, `G` register sets interleaved (unused lanes are zero).
#[target_feature(enable = "aes,avx2")]
fn crypt_groups<const G: usize>(round_keys: &RoundKeys, blocks: &mut [Block]) {
    assert!(blocks.len() <= G * LANES);
    let c = Constants::new();
    let mut state = [[_mm256_setzero_si256(); 4]; G];
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
#[target_feature(enable = "aes,avx2")]
fn rounds<const G: usize>(round_keys: &RoundKeys, state: &mut [[__m256i; 4]; G], c: &Constants) {
    for rk in round_keys.chunks_exact(4) {
        let rk0 = _mm256_set1_epi32(rk[0] as i32);
        for x in state.iter_mut() {
            x[0] = round(x[0], x[1], x[2], x[3], rk0, c);
        }
        let rk1 = _mm256_set1_epi32(rk[1] as i32);
        for x in state.iter_mut() {
            x[1] = round(x[1], x[2], x[3], x[0], rk1, c);
        }
        let rk2 = _mm256_set1_epi32(rk[2] as i32);
        for x in state.iter_mut() {
            x[2] = round(x[2], x[3], x[0], x[1], rk2, c);
        }
        let rk3 = _mm256_set1_epi32(rk[3] as i32);
        for x in state.iter_mut() {
            x[3] = round(x[3], x[0], x[1], x[2], rk3, c);
        }
    }
}

/// Encrypts the counter blocks counter, counter + 1, ... and XORs them into up to `G * LANES`
/// blocks.
#[target_feature(enable = "aes,avx2")]
fn ctr_groups<const G: usize>(round_keys: &RoundKeys, counter: u128, blocks: &mut [Block]) {
    assert!(blocks.len() <= G * LANES);
    let c = Constants::new();
    let mut state = [[_mm256_setzero_si256(); 4]; G];
    let low_word = counter as u32;
    if low_word.checked_add((G * LANES - 1) as u32).is_some() {
        // No carry out of the low word: words 0..=2 are the same in every block.
        let word = |shift: u32| _mm256_set1_epi32((counter >> shift) as u32 as i32);
        for (group, x) in state.iter_mut().enumerate() {
            let first = _mm256_set1_epi32((low_word + (group * LANES) as u32) as i32);
            *x = [
                word(96),
                word(64),
                word(32),
                _mm256_add_epi32(first, c.lane_offsets),
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
#[target_feature(enable = "aes,avx2")]
fn cbc_decrypt_groups<const G: usize>(
    round_keys: &RoundKeys,
    iv: &Block,
    blocks: &mut [Block],
) -> Block {
    assert!(!blocks.is_empty() && blocks.len() <= G * LANES);
    let c = Constants::new();
    let mut state = [[_mm256_setzero_si256(); 4]; G];
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
            let first = set * LANES + index * 2;
            let end = blocks.len().min(first + 2);
            if first >= end {
                continue;
            }
            let decrypted = _mm256_shuffle_epi8(*row, c.bswap);
            let previous = if first == 0 {
                let mut shifted = [*iv; 2];
                shifted[1..end].copy_from_slice(&blocks[..end - 1]);
                load_pair(&shifted[..end])
            } else {
                load_pair(&blocks[first - 1..end - 1])
            };
            store_pair(
                &mut blocks[first..end],
                _mm256_xor_si256(decrypted, previous),
            );
        }
    }
    last_ciphertext
}

// One block at a time.
//
// The wide path puts one block in each 32-bit lane, so a single block would pay for eight, and
// its round is a long chain: XOR, nibble-table map into the AES field, `aesenclast`, map back,
// then L (about 34 cycles). This path keeps the state in the `Mx` domain like the GFNI one (see
// `gfni.rs`): the round keys carry the map into the AES field, so `y~` goes straight into
// `aesenclast`, and `Mx·L(S(y))` is three nibble-table maps of its result plus byte rotations
// (`AESNI_L_TERMS`, `x86_64/mod.rs`). Each word is broadcast to the four lanes of an `xmm`, so
// the ShiftRows inside `aesenclast` only moves bytes between equal columns (no fix-up shuffle)
// and the output words blend without shuffles.
//
// Critical path per round: `aesenclast` (4) + nibble split (4) + `pshufb` and XOR (4) +
// rotation `pshufb` (2) + two XORs (4) = 18 cycles. The next input is
// `y~_(i+1) = Q_i ^ Mx·L(S(y_i))` with `Q_i` built from older words while `aesenclast` runs.
// `pshufb` looks up registers, not memory, so nothing secret indexes memory.

one_block_entry_points!("aes,avx2");

/// `pshufb` tables for the low and high nibble of a byte-wise affine map.
const fn nibble_tables(map: &Affine) -> [[u8; 16]; 2] {
    [map.low_nibble_table(), map.high_nibble_table()]
}

/// The one-block path's byte maps, evaluated at compile time.
const TO_AES_NIBBLES: [[u8; 16]; 2] = nibble_tables(&SM4_TO_AES_FIELD.linear_part());
const FROM_AES_NIBBLES: [[u8; 16]; 2] = nibble_tables(&SM4_TO_AES_FIELD.inverse_linear());
const TERM_NIBBLES: [[[u8; 16]; 2]; 3] = [
    nibble_tables(&AESNI_L_TERMS[0]),
    nibble_tables(&AESNI_L_TERMS[1]),
    nibble_tables(&AESNI_L_TERMS[2]),
];

/// 16 bytes as an `xmm`.
#[inline]
#[target_feature(enable = "avx2")]
fn bytes_to_xmm(bytes: [u8; 16]) -> __m128i {
    let (high, low) = halves(bytes);
    _mm_set_epi64x(high, low)
}

/// A byte-wise affine map as `pshufb` tables for the low and high nibble.
#[derive(Clone, Copy)]
struct NibbleTables {
    low: __m128i,
    high: __m128i,
}

impl NibbleTables {
    #[target_feature(enable = "avx2")]
    fn new([low, high]: [[u8; 16]; 2]) -> Self {
        Self {
            low: bytes_to_xmm(low),
            high: bytes_to_xmm(high),
        }
    }

    /// Applies the map to every byte, given `x`'s low and high nibbles.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn apply(&self, low: __m128i, high: __m128i) -> __m128i {
        _mm_xor_si128(
            _mm_shuffle_epi8(self.low, low),
            _mm_shuffle_epi8(self.high, high),
        )
    }
}

/// Constant vectors of the one-block path.
struct BlockConstants {
    nibble_mask: __m128i,
    to_aes: NibbleTables,
    from_aes: NibbleTables,
    terms: [NibbleTables; 3],
    rotate_8: __m128i,
    rotate_16: __m128i,
    rotate_24: __m128i,
    bswap: __m128i,
}

impl BlockConstants {
    #[target_feature(enable = "avx2")]
    fn new() -> Self {
        Self {
            nibble_mask: _mm_set1_epi8(0x0f),
            to_aes: NibbleTables::new(TO_AES_NIBBLES),
            from_aes: NibbleTables::new(FROM_AES_NIBBLES),
            terms: TERM_NIBBLES.map(|tables| NibbleTables::new(tables)),
            rotate_8: bytes_to_xmm(ROTATE_8),
            rotate_16: bytes_to_xmm(ROTATE_16),
            rotate_24: bytes_to_xmm(ROTATE_24),
            bswap: bytes_to_xmm(BSWAP_WORDS),
        }
    }

    /// Splits every byte into its low and high nibble.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn nibbles(&self, x: __m128i) -> (__m128i, __m128i) {
        (
            _mm_and_si128(x, self.nibble_mask),
            _mm_and_si128(_mm_srli_epi32::<4>(x), self.nibble_mask),
        )
    }

    /// Loads a block as its four words x~_0..x~_3, each broadcast to all lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load_words(&self, block: &Block) -> [__m128i; 4] {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        let bytes = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
        let (low, high) = self.nibbles(bytes);
        let transformed = self.to_aes.apply(low, high);
        // Word j is bytes 4j..4j+4, big-endian (GB/T 32907-2016, 5.1).
        core::array::from_fn(|j| {
            let j = 4 * j as u8;
            let control = u32::from_le_bytes([j + 3, j + 2, j + 1, j]);
            _mm_shuffle_epi8(transformed, _mm_set1_epi32(control as i32))
        })
    }

    /// Stores (X35, X34, X33, X32), given x~_32..x~_35, as the output block.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_words(&self, [x32, x33, x34, x35]: [__m128i; 4], block: &mut Block) {
        // Reverse transform R (GB/T 32907-2016, 7.1); blend the newest word last.
        let words = _mm_blend_epi32::<0b0100>(x32, x33);
        let words = _mm_blend_epi32::<0b0010>(words, x34);
        let words = _mm_blend_epi32::<0b0001>(words, x35);
        let (low, high) = self.nibbles(words);
        let output = _mm_shuffle_epi8(self.from_aes.apply(low, high), self.bswap);
        // SAFETY: `block` is 16 exclusively borrowed bytes; `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), output) }
    }
}

/// `a ^ b ^ c ^ d`, the first round's input.
#[inline]
#[target_feature(enable = "aes,avx2")]
fn xor4(a: __m128i, b: __m128i, c: __m128i, d: __m128i) -> __m128i {
    _mm_xor_si128(_mm_xor_si128(_mm_xor_si128(a, b), d), c)
}

/// Round i: from y~_i, x~_i and x~_(i+1), returns (y~_(i+1), x~_(i+4)).
#[inline]
#[target_feature(enable = "aes,avx2")]
fn block_round(
    y: __m128i,
    oldest: __m128i,
    next: __m128i,
    keys: &[u32; 2],
    c: &BlockConstants,
) -> (__m128i, __m128i) {
    // ShiftRows permutes bytes between the four equal columns: a no-op here.
    let sbox = _mm_aesenclast_si128(y, _mm_setzero_si128());
    let (low, high) = c.nibbles(sbox);
    let [term_0, term_1, term_3] = c.terms.each_ref().map(|term| term.apply(low, high));
    // Q_i = y~_i ^ x~_i ^ x~_(i+1) ^ rk~_i ^ rk~_(i+1), ready long before the terms.
    let chained_key = _mm_set1_epi32(keys[1] as i32);
    let q = _mm_xor_si128(y, _mm_xor_si128(_mm_xor_si128(oldest, next), chained_key));
    let y_next = _mm_xor_si128(
        _mm_xor_si128(
            _mm_xor_si128(q, term_0),
            _mm_shuffle_epi8(term_1, c.rotate_8),
        ),
        _mm_xor_si128(
            _mm_shuffle_epi8(term_1, c.rotate_16),
            _mm_shuffle_epi8(term_3, c.rotate_24),
        ),
    );
    // x~_(i+4) = x~_i ^ Mx·L(S(y_i)) = x~_i ^ Q_i ^ y~_(i+1); off the critical path.
    (y_next, _mm_xor_si128(_mm_xor_si128(oldest, q), y_next))
}
