//! GHASH with carry-less multiplication: PCLMULQDQ on 128-bit registers, VPCLMULQDQ with AVX2
//! on 256-bit registers (two blocks per instruction), and VPCLMULQDQ with AVX-512 on 512-bit
//! registers (four blocks per instruction).
//!
//! The arithmetic is POLYVAL's (RFC 8452, 3), which suits little-endian carry-less multipliers:
//! GHASH_H(X_1..X_n) = ByteReverse(POLYVAL_{mulX(ByteReverse(H))}(ByteReverse(X_1), ...))
//! (RFC 8452, Appendix A). Read as a big-endian `u128`, a GHASH block is the byte-reversed
//! POLYVAL element, so a block load is a load and one byte shuffle.
//!
//! POLYVAL multiplies with dot(a, b) = a·b·x^-128 mod P, P = x^128 + x^127 + x^126 + x^121 + 1.
//! Since dot is bilinear, n blocks are absorbed with one reduction:
//! Y' = dot(Y ^ X_1, H^n) ^ dot(X_2, H^(n-1)) ^ ... ^ dot(X_n, H), where H^k is the k-th power
//! under dot. The 256-bit products are summed unreduced and reduced once per batch: every 8
//! blocks on 128-bit registers, every 16 on 512-bit ones.
//!
//! Only carry-less multiplications, XORs and fixed shuffles touch the data and H: no table
//! lookups and no branches on secrets.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::sm4::Block;

/// Powers of H kept: H^16 (one batch of the 512-bit path) down to H^1.
const POWERS: usize = 16;

/// Blocks per reduction on 128-bit registers.
const NARROW_BATCH: usize = 8;

/// Blocks per reduction on 512-bit registers (four registers of four blocks).
const WIDE_BATCH: usize = 16;

/// x^63 + x^62 + x^57: with P = x^128 + x^64·(this) + 1, the Montgomery folding constant.
const POLY_FOLD: i64 = 0xc200_0000_0000_0000_u64 as i64;

/// Proof that the CPU supports PCLMULQDQ and SSSE3; only [`Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Token(());

impl Token {
    /// Checks the CPU for the features the 128-bit path uses.
    pub(crate) fn detect() -> Option<Self> {
        let supported = std::arch::is_x86_feature_detected!("pclmulqdq")
            && std::arch::is_x86_feature_detected!("ssse3");
        supported.then_some(Token(()))
    }
}

/// Proof that the CPU supports VPCLMULQDQ, AVX-512F and AVX-512BW as well as what [`Token`]
/// needs; only [`WideToken::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct WideToken(());

impl WideToken {
    /// Checks the CPU for the features the 512-bit path uses.
    pub(crate) fn detect() -> Option<Self> {
        let supported = Token::detect().is_some()
            && std::arch::is_x86_feature_detected!("vpclmulqdq")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw");
        supported.then_some(WideToken(()))
    }
}

/// Proof that the CPU supports VPCLMULQDQ and AVX2 as well as what [`Token`] needs; only
/// [`Avx2Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Avx2Token(());

impl Avx2Token {
    /// Checks the CPU for the features the 256-bit path uses.
    pub(crate) fn detect() -> Option<Self> {
        let supported = Token::detect().is_some()
            && std::arch::is_x86_feature_detected!("vpclmulqdq")
            && std::arch::is_x86_feature_detected!("avx2");
        supported.then_some(Avx2Token(()))
    }
}

/// Which register width absorbs the bulk of a message.
#[derive(Clone, Copy)]
pub(crate) enum Width {
    /// PCLMULQDQ, eight blocks per reduction.
    Narrow(Token),
    /// VPCLMULQDQ + AVX2, sixteen blocks per reduction.
    Avx2(Avx2Token),
    /// VPCLMULQDQ + AVX-512, sixteen blocks per reduction.
    Wide(WideToken),
}

/// H^16, H^15, ..., H^1 in POLYVAL form (`h[POWERS - k]` is H^k), and for each the XOR of its
/// two 64-bit halves in both halves (`folded`), the middle operand of a Karatsuba product.
#[derive(Clone)]
struct Powers {
    h: [u128; POWERS],
    folded: [u128; POWERS],
}

/// The hash key, wiped on drop.
#[derive(Clone)]
pub(crate) struct Key {
    powers: Powers,
    width: Width,
}

impl Key {
    /// Expands the GHASH subkey `h` (SP 800-38D, 6.4).
    pub(crate) fn new(width: Width, h: &Block) -> Self {
        // mulX_POLYVAL(ByteReverse(H)) (RFC 8452, Appendix A), in constant time.
        let mut h = u128::from_be_bytes(*h);
        let carry = 0u128.wrapping_sub(h >> 127);
        let mut h_polyval = (h << 1) ^ (carry & ((0b11 << 126) | (1 << 121) | 1));
        let powers = match width {
            Width::Narrow(_) | Width::Avx2(_) | Width::Wide(_) => {
                // SAFETY: every width holds a `Token` proof (an `Avx2Token` or `WideToken` is
                // made only after `Token::detect` succeeded), i.e. PCLMULQDQ and SSSE3 were
                // detected.
                unsafe { powers_of(h_polyval) }
            }
        };
        h.zeroize();
        h_polyval.zeroize();
        Self { powers, width }
    }

    /// Absorbs `blocks` into the POLYVAL-form accumulator `acc`.
    pub(crate) fn update(&self, acc: &mut u128, blocks: &[Block]) {
        match self.width {
            // SAFETY: a `Token` exists only after `Token::detect` saw PCLMULQDQ and SSSE3.
            Width::Narrow(_) => unsafe { update_narrow(&self.powers, acc, blocks) },
            // SAFETY: an `Avx2Token` exists only after `Avx2Token::detect` saw VPCLMULQDQ, AVX2,
            // PCLMULQDQ and SSSE3.
            Width::Avx2(_) => unsafe { update_avx2(&self.powers, acc, blocks) },
            // SAFETY: a `WideToken` exists only after `WideToken::detect` saw VPCLMULQDQ,
            // AVX-512F, AVX-512BW, PCLMULQDQ and SSSE3.
            Width::Wide(_) => unsafe { update_wide(&self.powers, acc, blocks) },
        }
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.powers.h.zeroize();
        self.powers.folded.zeroize();
    }
}

/// `pshufb` control reversing the 16 bytes of a register.
#[inline]
#[target_feature(enable = "sse2")]
fn byte_reverse_mask() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

#[inline]
#[target_feature(enable = "sse2")]
fn from_u128(x: u128) -> __m128i {
    _mm_set_epi64x((x >> 64) as i64, x as i64)
}

#[inline]
#[target_feature(enable = "sse2")]
fn to_u128(x: __m128i) -> u128 {
    let low = _mm_cvtsi128_si64(x) as u64;
    let high = _mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)) as u64;
    (u128::from(high) << 64) | u128::from(low)
}

/// Loads one 16-byte entry of a power table.
#[inline]
#[target_feature(enable = "sse2")]
fn load_u128(x: &u128) -> __m128i {
    // SAFETY: `x` is 16 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128((x as *const u128).cast()) }
}

/// A GHASH block as a POLYVAL element.
#[inline]
#[target_feature(enable = "ssse3")]
fn load_block(block: &Block) -> __m128i {
    // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
    let x = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
    _mm_shuffle_epi8(x, byte_reverse_mask())
}

/// Products summed without reduction: the 256-bit value is
/// high·x^128 ^ (middle ^ low ^ high)·x^64 ^ low (Karatsuba: `middle` sums
/// (a_lo ^ a_hi)·(b_lo ^ b_hi)).
#[derive(Clone, Copy)]
struct Sum {
    low: __m128i,
    middle: __m128i,
    high: __m128i,
}

impl Sum {
    /// The product of `a` with the power `(h, folded)`.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    fn product(a: __m128i, h: __m128i, folded: __m128i) -> Self {
        let a_folded = _mm_xor_si128(a, _mm_shuffle_epi32(a, 0x4e));
        Self {
            low: _mm_clmulepi64_si128(a, h, 0x00),
            middle: _mm_clmulepi64_si128(a_folded, folded, 0x00),
            high: _mm_clmulepi64_si128(a, h, 0x11),
        }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn add(self, other: Self) -> Self {
        Self {
            low: _mm_xor_si128(self.low, other.low),
            middle: _mm_xor_si128(self.middle, other.middle),
            high: _mm_xor_si128(self.high, other.high),
        }
    }

    /// Montgomery reduction: value·x^-128 mod P.
    ///
    /// With T = T1·x^128 + T0 and P = x^128 + c·x^64 + 1, adding T0's low half times P, then
    /// the new second half times x^64·P, clears the low 128 bits; what remains above them,
    /// divided by x^128, is T·x^-128 mod P, of degree < 128.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    fn reduce(self) -> __m128i {
        let middle = _mm_xor_si128(self.middle, _mm_xor_si128(self.low, self.high));
        let t0 = _mm_xor_si128(self.low, _mm_slli_si128(middle, 8));
        let t1 = _mm_xor_si128(self.high, _mm_srli_si128(middle, 8));
        let poly = _mm_set_epi64x(0, POLY_FOLD);
        let fold = _mm_clmulepi64_si128(t0, poly, 0x00);
        let t0 = _mm_xor_si128(_mm_shuffle_epi32(t0, 0x4e), fold);
        let fold = _mm_clmulepi64_si128(t0, poly, 0x00);
        let t0 = _mm_xor_si128(_mm_shuffle_epi32(t0, 0x4e), fold);
        _mm_xor_si128(t1, t0)
    }
}

/// The XOR of the two halves of `x`, in both halves.
fn fold_halves(x: u128) -> u128 {
    let folded = (x ^ (x >> 64)) as u64;
    (u128::from(folded) << 64) | u128::from(folded)
}

/// H^16, ..., H^1 under dot, from H in POLYVAL form.
///
/// # Safety
/// The CPU must support PCLMULQDQ and SSSE3.
#[target_feature(enable = "pclmulqdq,ssse3")]
unsafe fn powers_of(h: u128) -> Powers {
    let mut powers = Powers {
        h: [0; POWERS],
        folded: [0; POWERS],
    };
    let base = from_u128(h);
    let base_folded = from_u128(fold_halves(h));
    let mut power = base;
    powers.h[POWERS - 1] = h;
    for slot in powers.h[..POWERS - 1].iter_mut().rev() {
        power = Sum::product(power, base, base_folded).reduce();
        *slot = to_u128(power);
    }
    for (folded, h) in powers.folded.iter_mut().zip(&powers.h) {
        *folded = fold_halves(*h);
    }
    powers
}

/// The product of `a` with H^k.
#[inline]
#[target_feature(enable = "pclmulqdq,sse2")]
fn times_power(powers: &Powers, a: __m128i, k: usize) -> Sum {
    let slot = POWERS - k;
    Sum::product(
        a,
        load_u128(&powers.h[slot]),
        load_u128(&powers.folded[slot]),
    )
}

/// Y' = dot(Y ^ X_1, H^n) ^ ... ^ dot(X_n, H) for n = `blocks.len()` ≤ [`POWERS`], with one
/// reduction. Y enters last, so only one multiplication and the reduction wait for it.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
fn absorb(powers: &Powers, acc: __m128i, blocks: &[Block]) -> __m128i {
    debug_assert!(!blocks.is_empty() && blocks.len() <= POWERS);
    let n = blocks.len();
    let first = _mm_xor_si128(load_block(&blocks[0]), acc);
    blocks
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, block)| times_power(powers, load_block(block), n - i))
        .fold(times_power(powers, first, n), |sum, product| {
            sum.add(product)
        })
        .reduce()
}

/// Absorbs `blocks` eight at a time on 128-bit registers.
///
/// # Safety
/// The CPU must support PCLMULQDQ and SSSE3.
#[target_feature(enable = "pclmulqdq,ssse3")]
unsafe fn update_narrow(powers: &Powers, acc: &mut u128, blocks: &[Block]) {
    let mut y = from_u128(*acc);
    let (batches, rest) = blocks.as_chunks::<NARROW_BATCH>();
    for batch in batches {
        y = absorb(powers, y, batch);
    }
    if !rest.is_empty() {
        y = absorb(powers, y, rest);
    }
    *acc = to_u128(y);
}

/// XOR of the four 128-bit lanes of `x`.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_lanes(x: __m512i) -> __m128i {
    let half = _mm256_xor_si256(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64(x, 1));
    _mm_xor_si128(
        _mm256_castsi256_si128(half),
        _mm256_extracti128_si256(half, 1),
    )
}

/// Absorbs `blocks` sixteen at a time on 512-bit registers, the rest on 128-bit ones.
///
/// # Safety
/// The CPU must support VPCLMULQDQ, AVX-512F, AVX-512BW, PCLMULQDQ and SSSE3.
#[target_feature(enable = "vpclmulqdq,avx512f,avx512bw,pclmulqdq,ssse3")]
unsafe fn update_wide(powers: &Powers, acc: &mut u128, blocks: &[Block]) {
    let mut y = from_u128(*acc);
    let (batches, rest) = blocks.as_chunks::<WIDE_BATCH>();
    if !batches.is_empty() {
        let swap = _mm512_broadcast_i32x4(byte_reverse_mask());
        // Register k holds H^(16-4k), ..., H^(13-4k), the keys of blocks 4k..4k+3 of a batch,
        // and their folded halves.
        // SAFETY: each load reads entries 4k..4k + 3, 64 bytes inside a 256-byte array;
        // `loadu` has no alignment requirement.
        let keys: [__m512i; 4] = core::array::from_fn(|k| unsafe {
            _mm512_loadu_si512(powers.h[4 * k..].as_ptr().cast())
        });
        // SAFETY: as above.
        let folded: [__m512i; 4] = core::array::from_fn(|k| unsafe {
            _mm512_loadu_si512(powers.folded[4 * k..].as_ptr().cast())
        });
        for batch in batches {
            let data: [__m512i; 4] = core::array::from_fn(|k| {
                // SAFETY: each load reads blocks 4k..4k + 3, 64 bytes inside the 256-byte
                // batch; `loadu` has no alignment requirement.
                let x = unsafe { _mm512_loadu_si512(batch[4 * k..].as_ptr().cast()) };
                _mm512_shuffle_epi8(x, swap)
            });
            // dot(Y ^ X_1, H^16) = dot(X_1, H^16) ^ dot(Y, H^16): the wide products do not
            // wait for Y; only one 128-bit product and the reduction do.
            let product = |k: usize| {
                let a_folded = _mm512_xor_si512(data[k], _mm512_shuffle_epi32(data[k], 0x4e));
                (
                    _mm512_clmulepi64_epi128(data[k], keys[k], 0x00),
                    _mm512_clmulepi64_epi128(a_folded, folded[k], 0x00),
                    _mm512_clmulepi64_epi128(data[k], keys[k], 0x11),
                )
            };
            let (mut low, mut middle, mut high) = product(0);
            for k in 1..4 {
                let (l, m, h) = product(k);
                low = _mm512_xor_si512(low, l);
                middle = _mm512_xor_si512(middle, m);
                high = _mm512_xor_si512(high, h);
            }
            let wide = Sum {
                low: fold_lanes(low),
                middle: fold_lanes(middle),
                high: fold_lanes(high),
            };
            y = wide.add(times_power(powers, y, WIDE_BATCH)).reduce();
        }
    }
    let (narrow, tail) = rest.as_chunks::<NARROW_BATCH>();
    for batch in narrow {
        y = absorb(powers, y, batch);
    }
    if !tail.is_empty() {
        y = absorb(powers, y, tail);
    }
    *acc = to_u128(y);
}

/// XOR of the two 128-bit lanes of `x`.
#[inline]
#[target_feature(enable = "avx2")]
fn fold_halves_256(x: __m256i) -> __m128i {
    _mm_xor_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x))
}

/// Absorbs `blocks` sixteen at a time on 256-bit registers (eight registers of two blocks),
/// the rest on 128-bit ones.
///
/// # Safety
/// The CPU must support VPCLMULQDQ, AVX2, PCLMULQDQ and SSSE3.
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
unsafe fn update_avx2(powers: &Powers, acc: &mut u128, blocks: &[Block]) {
    const PAIRS: usize = WIDE_BATCH / 2;
    let mut y = from_u128(*acc);
    let (batches, rest) = blocks.as_chunks::<WIDE_BATCH>();
    if !batches.is_empty() {
        let swap = _mm256_broadcastsi128_si256(byte_reverse_mask());
        // Register k holds H^(16-2k) and H^(15-2k), the keys of blocks 2k and 2k+1 of a
        // batch, and their folded halves.
        // SAFETY: each load reads entries 2k..2k + 1, 32 bytes inside a 256-byte array;
        // `loadu` has no alignment requirement.
        let keys: [__m256i; PAIRS] = core::array::from_fn(|k| unsafe {
            _mm256_loadu_si256(powers.h[2 * k..].as_ptr().cast())
        });
        // SAFETY: as above.
        let folded: [__m256i; PAIRS] = core::array::from_fn(|k| unsafe {
            _mm256_loadu_si256(powers.folded[2 * k..].as_ptr().cast())
        });
        for batch in batches {
            // dot(Y ^ X_1, H^16) = dot(X_1, H^16) ^ dot(Y, H^16): the wide products do not
            // wait for Y; only one 128-bit product and the reduction do.
            let product = |k: usize| {
                // SAFETY: the load reads blocks 2k..2k + 1, 32 bytes inside the 256-byte
                // batch; `loadu` has no alignment requirement.
                let x = unsafe { _mm256_loadu_si256(batch[2 * k..].as_ptr().cast()) };
                let data = _mm256_shuffle_epi8(x, swap);
                let data_folded = _mm256_xor_si256(data, _mm256_shuffle_epi32::<0x4e>(data));
                (
                    _mm256_clmulepi64_epi128::<0x00>(data, keys[k]),
                    _mm256_clmulepi64_epi128::<0x00>(data_folded, folded[k]),
                    _mm256_clmulepi64_epi128::<0x11>(data, keys[k]),
                )
            };
            let (mut low, mut middle, mut high) = product(0);
            for k in 1..PAIRS {
                let (l, m, h) = product(k);
                low = _mm256_xor_si256(low, l);
                middle = _mm256_xor_si256(middle, m);
                high = _mm256_xor_si256(high, h);
            }
            let wide = Sum {
                low: fold_halves_256(low),
                middle: fold_halves_256(middle),
                high: fold_halves_256(high),
            };
            y = wide.add(times_power(powers, y, WIDE_BATCH)).reduce();
        }
    }
    let (narrow, tail) = rest.as_chunks::<NARROW_BATCH>();
    for batch in narrow {
        y = absorb(powers, y, batch);
    }
    if !tail.is_empty() {
        y = absorb(powers, y, tail);
    }
    *acc = to_u128(y);
}
