//! The eight-lane AVX2 path shared by `sm4-aesni-avx2` and `sm4-vaes-avx2`.
//!
//! Eight blocks share a set of four `ymm` registers, one 32-bit lane per block and one register
//! per state word; four such groups are interleaved to hide latency. As in the one-block paths,
//! the state words stay in the `Mx` domain (`x~ = Mx·x` byte-wise, `Mx` the linear part of
//! `SM4_TO_AES_FIELD`) for all 32 rounds, and the round keys carry that map's constant, so
//! `x~1 ^ x~2 ^ x~3 ^ rk~` is already the AES-field input of every S-box byte: it goes through
//! the inverse ShiftRows straight into `aesenclast` with a zero round key. From that AES S-box
//! output `h`, `Mx·L(S(x)) = T0(h) ^ rot8(T1(h)) ^ rot16(T1(h)) ^ rot24(T0(h) ^ T1(h))`
//! (`WIDE_L_TERMS`, see `x86_64/mod.rs`): two nibble-table maps, one XOR and three byte
//! rotations, where the plain path needed two nibble-table maps around the S-box and L with
//! three rotations and a shift-or on top. Words enter the domain after loading and leave it
//! before storing (one nibble-table map each).
//!
//! The two backends differ only in that `aesenclast`: AES-NI has it on 128-bit registers, so
//! each `ymm` is split into halves and joined again; VAES runs it on the whole `ymm`
//! (`vaesenclast`). [`wide_entry_points`] builds the rounds and entry points around a backend's
//! `aes_sbox_256`; the helpers here need AVX2 alone.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::{Affine, BSWAP_WORDS, SM4_TO_AES_FIELD, WIDE_L_TERMS, halves};
use crate::sm4::{Block, ROUNDS, RoundKeys};

/// Blocks per register set (eight 32-bit lanes in a `ymm`).
pub(super) const LANES: usize = 8;
/// Register sets interleaved in the main loop.
pub(super) const GROUPS: usize = 4;

const _: () = assert!(
    GROUPS == 4,
    "the set dispatchers of `wide_entry_points` handle 1..=4 register sets"
);

/// The wide (eight blocks per register set) path of an AVX2 backend: `crypt_blocks`,
/// `ctr_xor_blocks` and `cbc_decrypt_blocks` taking the backend's `Token`, over the module's
/// `aes_sbox_256` (AES SubBytes of every byte, input already through the inverse ShiftRows),
/// with `$features` as the `#[target_feature]` list.
macro_rules! wide_entry_points {
    ($features:literal) => {
        /// Runs the 32 rounds with `round_keys` over every block.
        pub(crate) fn crypt_blocks(_token: Token, round_keys: &RoundKeys, blocks: &mut [Block]) {
            // SAFETY: a `Token` exists only after `Token::detect` saw every feature this macro
            // was given as `$features`, the list `crypt_blocks_inner` is compiled with.
            unsafe { crypt_blocks_inner(round_keys, blocks) }
        }

        /// # Safety
        /// The CPU must support `$features`.
        #[target_feature(enable = $features)]
        unsafe fn crypt_blocks_inner(round_keys: &RoundKeys, blocks: &mut [Block]) {
            let c = Constants::new();
            let keys = FieldKeys::new(round_keys, &c);
            let mut wide = blocks.chunks_exact_mut(LANES * GROUPS);
            for chunk in &mut wide {
                crypt_groups::<GROUPS>(&keys, chunk, &c);
            }
            let rest = wide.into_remainder();
            match rest.len().div_ceil(LANES) {
                0 => {}
                1 => crypt_groups::<1>(&keys, rest, &c),
                2 => crypt_groups::<2>(&keys, rest, &c),
                3 => crypt_groups::<3>(&keys, rest, &c),
                _ => crypt_groups::<GROUPS>(&keys, rest, &c),
            }
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

        /// # Safety
        /// The CPU must support `$features`.
        #[target_feature(enable = $features)]
        unsafe fn ctr_xor_blocks_inner(
            round_keys: &RoundKeys,
            mut counter: u128,
            blocks: &mut [Block],
        ) {
            let c = Constants::new();
            let keys = FieldKeys::new(round_keys, &c);
            let mut wide = blocks.chunks_exact_mut(LANES * GROUPS);
            for chunk in &mut wide {
                ctr_groups::<GROUPS>(&keys, counter, chunk, &c);
                counter = counter.wrapping_add((LANES * GROUPS) as u128);
            }
            let rest = wide.into_remainder();
            match rest.len().div_ceil(LANES) {
                0 => {}
                1 => ctr_groups::<1>(&keys, counter, rest, &c),
                2 => ctr_groups::<2>(&keys, counter, rest, &c),
                3 => ctr_groups::<3>(&keys, counter, rest, &c),
                _ => ctr_groups::<GROUPS>(&keys, counter, rest, &c),
            }
        }

        /// CBC decryption (NIST SP 800-38A, 6.2): P_i = D(C_i) ^ C_(i-1), C_(-1) = `iv`, with
        /// the decryption round keys.
        pub(crate) fn cbc_decrypt_blocks(
            _token: Token,
            round_keys: &RoundKeys,
            iv: &Block,
            blocks: &mut [Block],
        ) {
            // SAFETY: as in `crypt_blocks`.
            unsafe { cbc_decrypt_blocks_inner(round_keys, iv, blocks) }
        }

        /// # Safety
        /// The CPU must support `$features`.
        #[target_feature(enable = $features)]
        unsafe fn cbc_decrypt_blocks_inner(
            round_keys: &RoundKeys,
            iv: &Block,
            blocks: &mut [Block],
        ) {
            let c = Constants::new();
            let keys = FieldKeys::new(round_keys, &c);
            let mut previous = *iv;
            for chunk in blocks.chunks_mut(LANES * GROUPS) {
                previous = match chunk.len().div_ceil(LANES) {
                    1 => cbc_decrypt_groups::<1>(&keys, &previous, chunk, &c),
                    2 => cbc_decrypt_groups::<2>(&keys, &previous, chunk, &c),
                    3 => cbc_decrypt_groups::<3>(&keys, &previous, chunk, &c),
                    _ => cbc_decrypt_groups::<GROUPS>(&keys, &previous, chunk, &c),
                };
            }
        }

        /// `Mx·T(x)` for `y = Mx·x + phi(0xD3)` byte-wise, T the round's mixer-substitution
        /// (GB/T 32907-2016, 6.2): the AES S-box on `y`, then the [`WIDE_L_TERMS`] maps and
        /// byte rotations.
        #[inline]
        #[target_feature(enable = $features)]
        fn field_t(y: __m256i, c: &Constants) -> __m256i {
            let h = aes_sbox_256(_mm256_shuffle_epi8(y, c.inverse_shift_rows));
            let low = _mm256_and_si256(h, c.nibble_mask);
            let high = _mm256_and_si256(_mm256_srli_epi32::<4>(h), c.nibble_mask);
            let term_0 = _mm256_xor_si256(
                _mm256_shuffle_epi8(c.term_0_low, low),
                _mm256_shuffle_epi8(c.term_0_high, high),
            );
            let term_1 = _mm256_xor_si256(
                _mm256_shuffle_epi8(c.term_1_low, low),
                _mm256_shuffle_epi8(c.term_1_high, high),
            );
            let term_3 = _mm256_xor_si256(term_0, term_1);
            _mm256_xor_si256(
                _mm256_xor_si256(term_0, _mm256_shuffle_epi8(term_3, c.rotate_24)),
                _mm256_xor_si256(
                    _mm256_shuffle_epi8(term_1, c.rotate_8),
                    _mm256_shuffle_epi8(term_1, c.rotate_16),
                ),
            )
        }

        /// One round in the `Mx` domain: returns x~_i ^ Mx·T(X_{i+1} ^ X_{i+2} ^ X_{i+3} ^ rk_i)
        /// (GB/T 32907-2016, 7.1), `rk` being rk~_i.
        #[inline]
        #[target_feature(enable = $features)]
        fn round(
            x0: __m256i,
            x1: __m256i,
            x2: __m256i,
            x3: __m256i,
            rk: __m256i,
            c: &Constants,
        ) -> __m256i {
            // `x3` is the word the previous round produced: XOR it last to shorten the
            // critical path.
            let y = _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(x1, x2), rk), x3);
            _mm256_xor_si256(x0, field_t(y, c))
        }

        /// The 32 rounds (GB/T 32907-2016, 7.1) on `G` interleaved register sets of words in
        /// the `Mx` domain.
        #[inline]
        #[target_feature(enable = $features)]
        fn rounds<const G: usize>(keys: &FieldKeys, state: &mut [[__m256i; 4]; G], c: &Constants) {
            for rk in keys.0.chunks_exact(4) {
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

        /// Encrypts up to `G * LANES` blocks, `G` register sets interleaved (unused lanes are
        /// zero).
        #[target_feature(enable = $features)]
        fn crypt_groups<const G: usize>(keys: &FieldKeys, blocks: &mut [Block], c: &Constants) {
            assert!(blocks.len() <= G * LANES);
            let mut state = [[_mm256_setzero_si256(); 4]; G];
            for (words, group) in state.iter_mut().zip(blocks.chunks(LANES)) {
                *words = to_field(load_words(group, c), c);
            }
            rounds(keys, &mut state, c);
            for (x, group) in state.iter().zip(blocks.chunks_mut(LANES)) {
                // Reverse transform R: the output is (X35, X34, X33, X32) (GB/T 32907-2016, 7.1).
                store_words(from_field([x[3], x[2], x[1], x[0]], c), group, c);
            }
        }

        /// Encrypts the counter blocks counter, counter + 1, ... and XORs them into up to
        /// `G * LANES` blocks.
        #[target_feature(enable = $features)]
        fn ctr_groups<const G: usize>(
            keys: &FieldKeys,
            counter: u128,
            blocks: &mut [Block],
            c: &Constants,
        ) {
            assert!(blocks.len() <= G * LANES);
            let mut state = counter_words::<G>(counter, c);
            for words in state.iter_mut() {
                *words = to_field(*words, c);
            }
            rounds(keys, &mut state, c);
            for (x, group) in state.iter().zip(blocks.chunks_mut(LANES)) {
                xor_store_words(from_field([x[3], x[2], x[1], x[0]], c), group, c);
            }
        }

        /// CBC-decrypts 1..=`G * LANES` blocks in place, `G` register sets interleaved; returns
        /// the last ciphertext block, the IV of the next chunk.
        #[target_feature(enable = $features)]
        fn cbc_decrypt_groups<const G: usize>(
            keys: &FieldKeys,
            iv: &Block,
            blocks: &mut [Block],
            c: &Constants,
        ) -> Block {
            assert!(!blocks.is_empty() && blocks.len() <= G * LANES);
            let mut state = [[_mm256_setzero_si256(); 4]; G];
            for (words, group) in state.iter_mut().zip(blocks.chunks(LANES)) {
                *words = to_field(load_words(group, c), c);
            }
            rounds(keys, &mut state, c);
            for words in state.iter_mut() {
                *words = from_field(*words, c);
            }
            cbc_store(&state, iv, blocks, c)
        }
    };
}

/// Constant vectors, built once per call.
pub(super) struct Constants {
    /// Block index of each 32-bit lane after `transpose` (register r, 128-bit lane l holds
    /// block 2r + l), for building counter words in place.
    lane_offsets: __m256i,
    pub(super) nibble_mask: __m256i,
    /// `Mx` and its inverse as nibble tables: into and out of the state domain.
    to_field_low: __m256i,
    to_field_high: __m256i,
    from_field_low: __m256i,
    from_field_high: __m256i,
    /// [`WIDE_L_TERMS`] as nibble tables.
    pub(super) term_0_low: __m256i,
    pub(super) term_0_high: __m256i,
    pub(super) term_1_low: __m256i,
    pub(super) term_1_high: __m256i,
    pub(super) inverse_shift_rows: __m256i,
    pub(super) rotate_8: __m256i,
    pub(super) rotate_16: __m256i,
    pub(super) rotate_24: __m256i,
    bswap: __m256i,
}

/// Inverse AES ShiftRows as a `pshufb` control (FIPS 197, 5.3.1): `aesenclast` applies
/// ShiftRows, so pre-applying its inverse keeps every byte in its lane.
pub(super) const INVERSE_SHIFT_ROWS: [u8; 16] =
    [0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3];

/// `pshufb` controls rotating each little-endian 32-bit lane left by 8, 16 and 24 bits.
pub(super) const ROTATE_8: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
pub(super) const ROTATE_16: [u8; 16] = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
pub(super) const ROTATE_24: [u8; 16] = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];

#[target_feature(enable = "avx2")]
fn broadcast(bytes: [u8; 16]) -> __m256i {
    let (high, low) = halves(bytes);
    _mm256_set_epi64x(high, low, high, low)
}

/// Nibble tables `[low, high]` of a byte-wise map, evaluated at compile time: built at run time
/// (`inverse_linear` searches every column), they cost microseconds on every call.
const fn nibble_tables(map: &Affine) -> [[u8; 16]; 2] {
    [map.low_nibble_table(), map.high_nibble_table()]
}
const TO_FIELD_TABLES: [[u8; 16]; 2] = nibble_tables(&SM4_TO_AES_FIELD.linear_part());
const FROM_FIELD_TABLES: [[u8; 16]; 2] = nibble_tables(&SM4_TO_AES_FIELD.inverse_linear());
const TERM_0_TABLES: [[u8; 16]; 2] = nibble_tables(&WIDE_L_TERMS[0]);
const TERM_1_TABLES: [[u8; 16]; 2] = nibble_tables(&WIDE_L_TERMS[1]);

impl Constants {
    #[target_feature(enable = "avx2")]
    pub(super) fn new() -> Self {
        Self {
            lane_offsets: _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7),
            nibble_mask: _mm256_set1_epi8(0x0f),
            to_field_low: broadcast(TO_FIELD_TABLES[0]),
            to_field_high: broadcast(TO_FIELD_TABLES[1]),
            from_field_low: broadcast(FROM_FIELD_TABLES[0]),
            from_field_high: broadcast(FROM_FIELD_TABLES[1]),
            term_0_low: broadcast(TERM_0_TABLES[0]),
            term_0_high: broadcast(TERM_0_TABLES[1]),
            term_1_low: broadcast(TERM_1_TABLES[0]),
            term_1_high: broadcast(TERM_1_TABLES[1]),
            inverse_shift_rows: broadcast(INVERSE_SHIFT_ROWS),
            rotate_8: broadcast(ROTATE_8),
            rotate_16: broadcast(ROTATE_16),
            rotate_24: broadcast(ROTATE_24),
            bswap: broadcast(BSWAP_WORDS),
        }
    }
}

/// The round keys of the wide path: `rk~_i = Mx·rk_i + phi(0xD3)` byte-wise (the first entries
/// of `x86_64::one_block_keys`), so that `x~1 ^ x~2 ^ x~3 ^ rk~_i` is the AES-field input of
/// the S-box. Zeroized on drop.
pub(super) struct FieldKeys(pub(super) [u32; ROUNDS]);

impl FieldKeys {
    #[target_feature(enable = "avx2")]
    pub(super) fn new(round_keys: &RoundKeys, c: &Constants) -> Self {
        let constant = _mm256_set1_epi8(SM4_TO_AES_FIELD.constant as i8);
        let mut keys = Self([0; ROUNDS]);
        for (from, to) in round_keys
            .chunks_exact(LANES)
            .zip(keys.0.chunks_exact_mut(LANES))
        {
            // SAFETY: `from` and `to` are eight `u32`s, 32 bytes each, `to` exclusively
            // borrowed; `loadu` and `storeu` have no alignment requirement.
            unsafe {
                let words = _mm256_loadu_si256(from.as_ptr().cast());
                let field = affine(words, c.to_field_low, c.to_field_high, c.nibble_mask);
                _mm256_storeu_si256(to.as_mut_ptr().cast(), _mm256_xor_si256(field, constant));
            }
        }
        keys
    }
}

impl Drop for FieldKeys {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// Maps four registers of state words into the `Mx` domain.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn to_field(words: [__m256i; 4], c: &Constants) -> [__m256i; 4] {
    words.map(|x| affine(x, c.to_field_low, c.to_field_high, c.nibble_mask))
}

/// Maps four registers of state words out of the `Mx` domain.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn from_field(words: [__m256i; 4], c: &Constants) -> [__m256i; 4] {
    words.map(|x| affine(x, c.from_field_low, c.from_field_high, c.nibble_mask))
}

/// Applies a byte-wise affine map given as low- and high-nibble `pshufb` tables.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn affine(
    x: __m256i,
    low_table: __m256i,
    high_table: __m256i,
    nibble_mask: __m256i,
) -> __m256i {
    let low = _mm256_and_si256(x, nibble_mask);
    let high = _mm256_and_si256(_mm256_srli_epi32::<4>(x), nibble_mask);
    _mm256_xor_si256(
        _mm256_shuffle_epi8(low_table, low),
        _mm256_shuffle_epi8(high_table, high),
    )
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
pub(super) fn load_words(group: &[Block], c: &Constants) -> [__m256i; 4] {
    let mut rows = [_mm256_setzero_si256(); 4];
    for (row, pair) in rows.iter_mut().zip(group.chunks(2)) {
        *row = _mm256_shuffle_epi8(load_pair(pair), c.bswap);
    }
    transpose(rows)
}

/// Stores four registers of state words back as `group.len()` (at most 8) blocks.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn store_words(words: [__m256i; 4], group: &mut [Block], c: &Constants) {
    let rows = transpose(words);
    for (row, pair) in rows.iter().zip(group.chunks_mut(2)) {
        store_pair(pair, _mm256_shuffle_epi8(*row, c.bswap));
    }
}

/// XORs four registers of state words, as blocks, into `group` (at most 8 blocks).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn xor_store_words(words: [__m256i; 4], group: &mut [Block], c: &Constants) {
    let rows = transpose(words);
    for (row, pair) in rows.iter().zip(group.chunks_mut(2)) {
        let key = _mm256_shuffle_epi8(*row, c.bswap);
        let data = load_pair(pair);
        store_pair(pair, _mm256_xor_si256(data, key));
    }
}

/// The state words of the counter blocks counter, counter + 1, ..., `G * LANES` of them.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn counter_words<const G: usize>(counter: u128, c: &Constants) -> [[__m256i; 4]; G] {
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
            *x = load_words(&counters, c);
        }
    }
    state
}

/// Writes the CBC plaintexts P_i = D(C_i) ^ C_(i-1) of `blocks` (1..=`G * LANES`), given the
/// decrypted state words; returns the last ciphertext block.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn cbc_store<const G: usize>(
    state: &[[__m256i; 4]; G],
    iv: &Block,
    blocks: &mut [Block],
    c: &Constants,
) -> Block {
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
