//! SM4 with AES-NI and AVX2 (`sm4-aesni-avx2`).
//!
//! The eight-lane path is `x86_64/avx2.rs`; here its S-box runs `aesenclast` with a zero round
//! key on each 128-bit half of a `ymm` register.
//!
//! One block at a time (CBC encryption, the CBC-MACs) is latency bound, so it has its own path,
//! [`crypt_block`]; see there for its per-round critical path.

use core::arch::x86_64::*;

use super::avx2::{
    Constants, FieldKeys, GROUPS, INVERSE_SHIFT_ROWS, LANES, ROTATE_8, ROTATE_16, ROTATE_24,
    cbc_store, counter_words, from_field, load_words, store_words, to_field, xor_store_words,
};
use super::{AESNI_L_TERMS, Affine, BSWAP_WORDS, SM4_TO_AES_FIELD, halves};
use crate::sm4::{Block, BlockKeys, RoundKeys};

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

wide_entry_points!("aes,avx2");

/// AES SubBytes of all 32 bytes (after ShiftRows' inverse): `aesenclast` with a zero round key
/// on each 128-bit half.
#[inline]
#[target_feature(enable = "aes,avx2")]
fn aes_sbox_256(y: __m256i) -> __m256i {
    let zero = _mm_setzero_si128();
    let low = _mm_aesenclast_si128(_mm256_castsi256_si128(y), zero);
    let high = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(y), zero);
    _mm256_set_m128i(high, low)
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

/// Returns `x` unchanged through an empty `asm!` block, which LLVM cannot see through: it
/// keeps a round's XOR tree in the shape written. Left free, LLVM reassociated
/// `Q_i ^ terms` into a chain that added two XORs to every round's critical path.
#[inline(always)]
fn keep(mut x: __m128i) -> __m128i {
    // SAFETY: an empty assembly block that names one vector register, reads no memory, writes
    // none and leaves the flags and the stack alone.
    unsafe {
        core::arch::asm!(
            "/* {0} */",
            inout(xmm_reg) x,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    x
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
    // Q_i = y~_i ^ x~_i ^ x~_(i+1) ^ rk~_i ^ rk~_(i+1), ready long before the terms.
    let chained_key = _mm_set1_epi32(keys[1] as i32);
    let q = keep(_mm_xor_si128(
        y,
        _mm_xor_si128(_mm_xor_si128(oldest, next), chained_key),
    ));
    let [term_0, term_1, term_3] = &c.terms;
    // Q_i joins the unrotated term with its low-nibble half, which is ready a cycle before the
    // high-nibble half, so it costs no latency; the four terms then meet in a tree of depth 2.
    let term_0 = _mm_xor_si128(
        keep(_mm_xor_si128(q, _mm_shuffle_epi8(term_0.low, low))),
        _mm_shuffle_epi8(term_0.high, high),
    );
    let term_1 = term_1.apply(low, high);
    let term_3 = term_3.apply(low, high);
    let y_next = _mm_xor_si128(
        keep(_mm_xor_si128(term_0, _mm_shuffle_epi8(term_1, c.rotate_8))),
        keep(_mm_xor_si128(
            _mm_shuffle_epi8(term_1, c.rotate_16),
            _mm_shuffle_epi8(term_3, c.rotate_24),
        )),
    );
    // x~_(i+4) = x~_i ^ Mx·L(S(y_i)) = x~_i ^ Q_i ^ y~_(i+1); off the critical path.
    (y_next, _mm_xor_si128(_mm_xor_si128(oldest, q), y_next))
}

// A few blocks at a time.
//
// The rounds of the one-block path are lane-wise but for the ShiftRows inside `aesenclast`,
// which only moves bytes between the four 32-bit columns: with a word broadcast to every lane
// it does nothing, with a different block in each lane it mixes them. Undoing it after the
// S-box costs no latency: the three rotations of L become one `pshufb` each with the inverse
// ShiftRows folded into the control, and the unrotated term takes a `pshufb` of its own that
// runs beside them. So up to four blocks (one per lane) take the one-block path's 18-cycle
// round instead of a whole eight-lane pass: a CTR or GCM message of one to four blocks, CBC
// decryption and XTS of a few blocks.

/// Most blocks [`crypt_few`] and [`ctr_xor_few`] take: one per 32-bit lane of an `xmm`.
pub(crate) const FEW_BLOCKS: usize = 4;

/// `first` after `second` as one `pshufb` control: `pshufb(pshufb(v, second), first)`.
const fn compose(first: [u8; 16], second: [u8; 16]) -> [u8; 16] {
    let mut control = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        control[i] = second[first[i] as usize];
        i += 1;
    }
    control
}

/// The rotations of L with the inverse ShiftRows folded in, composed at compile time: a
/// `const fn` called while building [`FewConstants`] ran on every call (three 16-step loops).
const FEW_ROTATE_8: [u8; 16] = compose(ROTATE_8, INVERSE_SHIFT_ROWS);
const FEW_ROTATE_16: [u8; 16] = compose(ROTATE_16, INVERSE_SHIFT_ROWS);
const FEW_ROTATE_24: [u8; 16] = compose(ROTATE_24, INVERSE_SHIFT_ROWS);

/// Constant vectors of the few-block path.
struct FewConstants {
    block: BlockConstants,
    inverse_shift_rows: __m128i,
    shift_rows: __m128i,
    rotate_8: __m128i,
    rotate_16: __m128i,
    rotate_24: __m128i,
}

impl FewConstants {
    #[target_feature(enable = "avx2")]
    fn new() -> Self {
        Self {
            block: BlockConstants::new(),
            inverse_shift_rows: bytes_to_xmm(INVERSE_SHIFT_ROWS),
            shift_rows: bytes_to_xmm(SHIFT_ROWS),
            rotate_8: bytes_to_xmm(FEW_ROTATE_8),
            rotate_16: bytes_to_xmm(FEW_ROTATE_16),
            rotate_24: bytes_to_xmm(FEW_ROTATE_24),
        }
    }

    /// Bytes through `map`, then each 32-bit word byte-swapped.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn map_rows(&self, rows: [__m128i; 4], map: &NibbleTables) -> [__m128i; 4] {
        rows.map(|row| {
            let (low, high) = self.block.nibbles(row);
            _mm_shuffle_epi8(map.apply(low, high), self.block.bswap)
        })
    }
}

/// Runs the 32 rounds over 1..=[`FEW_BLOCKS`] blocks, one per 32-bit lane, on the one-block
/// path's rounds with keys from `x86_64::one_block_keys`.
pub(crate) fn crypt_few(_token: Token, keys: &BlockKeys, blocks: &mut [Block]) {
    assert!(blocks.len() <= FEW_BLOCKS);
    // SAFETY: a `Token` exists only after `Token::detect` saw AES-NI and AVX2, the features
    // `crypt_few_inner` is compiled with.
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
/// The CPU must support AES-NI and AVX2.
#[target_feature(enable = "aes,avx2")]
unsafe fn crypt_few_inner(keys: &BlockKeys, blocks: &mut [Block]) {
    let c = FewConstants::new();
    let rows = few_rounds(load_rows(blocks), keys, &c);
    store_rows(&rows, blocks);
}

/// # Safety
/// The CPU must support AES-NI and AVX2.
#[target_feature(enable = "aes,avx2")]
unsafe fn ctr_xor_few_inner(keys: &BlockKeys, counter: u128, blocks: &mut [Block]) {
    let c = FewConstants::new();
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

/// Up to [`FEW_BLOCKS`] blocks as rows of bytes; missing rows are zero.
#[inline]
#[target_feature(enable = "avx2")]
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

/// Stores the first `blocks.len()` ≤ [`FEW_BLOCKS`] rows into `blocks`.
#[inline]
#[target_feature(enable = "avx2")]
fn store_rows(rows: &[__m128i; FEW_BLOCKS], blocks: &mut [Block]) {
    // SAFETY: `block` is 16 exclusively borrowed bytes; `storeu` needs no alignment.
    let store = |block: &mut Block, row: __m128i| unsafe {
        _mm_storeu_si128(block.as_mut_ptr().cast(), row)
    };
    // One arm per count: a loop over the rows became a call to `memcpy` from the stack.
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
#[target_feature(enable = "avx2")]
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
#[target_feature(enable = "aes,avx2")]
fn few_rounds(rows: [__m128i; 4], keys: &BlockKeys, c: &FewConstants) -> [__m128i; 4] {
    // Bytes into the Mx domain, words to native order (GB/T 32907-2016, 5.1: big-endian),
    // then register j holds word j of block k in lane k.
    let [mut x0, mut x1, mut x2, mut x3] = transpose_xmm(c.map_rows(rows, &c.block.to_aes));
    let mut y = xor4(x1, x2, x3, _mm_set1_epi32(keys[0][0] as i32));
    for keys in keys.chunks_exact(4) {
        (y, x0) = few_round(y, x0, x1, &keys[0], c);
        (y, x1) = few_round(y, x1, x2, &keys[1], c);
        (y, x2) = few_round(y, x2, x3, &keys[2], c);
        (y, x3) = few_round(y, x3, x0, &keys[3], c);
    }
    // Reverse transform R: block k is (X35, X34, X33, X32) (GB/T 32907-2016, 7.1).
    c.map_rows(transpose_xmm([x3, x2, x1, x0]), &c.block.from_aes)
}

/// [`block_round`] with a different block in each lane: the ShiftRows of `aesenclast` undone
/// inside the term shuffles.
#[inline]
#[target_feature(enable = "aes,avx2")]
fn few_round(
    y: __m128i,
    oldest: __m128i,
    next: __m128i,
    keys: &[u32; 2],
    c: &FewConstants,
) -> (__m128i, __m128i) {
    let sbox = _mm_aesenclast_si128(y, _mm_setzero_si128());
    let (low, high) = c.block.nibbles(sbox);
    let chained_key = _mm_set1_epi32(keys[1] as i32);
    let q = keep(_mm_xor_si128(
        y,
        _mm_xor_si128(_mm_xor_si128(oldest, next), chained_key),
    ));
    // As in `block_round`, Q_i joins the unrotated term's low-nibble half; that term is then
    // shuffled by the inverse ShiftRows, so Q_i goes in through ShiftRows (computed early).
    let q_rows = _mm_shuffle_epi8(q, c.shift_rows);
    let [term_0, term_1, term_3] = &c.block.terms;
    let term_0 = _mm_xor_si128(
        keep(_mm_xor_si128(q_rows, _mm_shuffle_epi8(term_0.low, low))),
        _mm_shuffle_epi8(term_0.high, high),
    );
    let term_1 = term_1.apply(low, high);
    let term_3 = term_3.apply(low, high);
    let y_next = _mm_xor_si128(
        keep(_mm_xor_si128(
            _mm_shuffle_epi8(term_0, c.inverse_shift_rows),
            _mm_shuffle_epi8(term_1, c.rotate_8),
        )),
        keep(_mm_xor_si128(
            _mm_shuffle_epi8(term_1, c.rotate_16),
            _mm_shuffle_epi8(term_3, c.rotate_24),
        )),
    );
    (y_next, _mm_xor_si128(_mm_xor_si128(oldest, q), y_next))
}

/// The `pshufb` control that undoes the permutation `control`.
const fn inverse_permutation(control: [u8; 16]) -> [u8; 16] {
    let mut inverse = [0u8; 16];
    let mut seen = 0u32;
    let mut i = 0;
    while i < 16 {
        inverse[control[i] as usize] = i as u8;
        seen |= 1 << control[i];
        i += 1;
    }
    assert!(seen == 0xffff, "not a permutation of the 16 bytes");
    inverse
}

/// AES ShiftRows as a `pshufb` control: `INVERSE_SHIFT_ROWS` after it leaves bytes in place.
const SHIFT_ROWS: [u8; 16] = inverse_permutation(INVERSE_SHIFT_ROWS);
