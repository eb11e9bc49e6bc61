//! GHASH with the aarch64 carry-less multiply (`PMULL`/`PMULL2`, FEAT_PMULL).
//!
//! The same arithmetic as `clmul.rs`: POLYVAL's dot(a, b) = a·b·x^-128 mod
//! P = x^128 + x^127 + x^126 + x^121 + 1 (RFC 8452, 3), with a GHASH block read as the
//! byte-reversed POLYVAL element (RFC 8452, Appendix A). Eight blocks are multiplied by
//! H^8..H^1, their Karatsuba products summed unreduced, and the sum reduced once.
//!
//! Only carry-less multiplications, XORs and fixed permutations touch the data and H: no table
//! lookups and no branches on secrets.

use core::arch::aarch64::*;

use zeroize::Zeroize;

use crate::sm4::Block;

/// Powers of H kept, and blocks per reduction.
const POWERS: usize = 8;

/// x^63 + x^62 + x^57: with P = x^128 + x^64·(this) + 1, the Montgomery folding constant.
const POLY_FOLD: u64 = 0xc200_0000_0000_0000;

/// Proof that the CPU has NEON and PMULL; only [`Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Token(());

impl Token {
    /// Checks the CPU for NEON and PMULL (which Rust reports as part of `aes`).
    pub(crate) fn detect() -> Option<Self> {
        // The loads and lane orders assume little-endian lanes: off on aarch64_be.
        let supported = cfg!(target_endian = "little")
            && std::arch::is_aarch64_feature_detected!("neon")
            && std::arch::is_aarch64_feature_detected!("aes");
        supported.then_some(Token(()))
    }
}

/// H^8, ..., H^1 in POLYVAL form (`h[POWERS - k]` is H^k), and for each the XOR of its two
/// 64-bit halves in both halves, the middle operand of a Karatsuba product.
#[derive(Clone)]
struct Powers {
    h: [u128; POWERS],
    folded: [u128; POWERS],
}

/// The hash key, wiped on drop.
#[derive(Clone)]
pub(crate) struct Key {
    powers: Powers,
    _token: Token,
}

impl Key {
    /// Expands the GHASH subkey `h` (SP 800-38D, 6.4).
    pub(crate) fn new(token: Token, h: &Block) -> Self {
        // mulX_POLYVAL(ByteReverse(H)) (RFC 8452, Appendix A), in constant time.
        let mut h = u128::from_be_bytes(*h);
        let carry = 0u128.wrapping_sub(h >> 127);
        let mut h_polyval = (h << 1) ^ (carry & ((0b11 << 126) | (1 << 121) | 1));
        // SAFETY: a `Token` exists only after `Token::detect` saw NEON and PMULL.
        let powers = unsafe { powers_of(h_polyval) };
        h.zeroize();
        h_polyval.zeroize();
        Self {
            powers,
            _token: token,
        }
    }

    /// Absorbs `blocks` into the POLYVAL-form accumulator `acc`.
    pub(crate) fn update(&self, acc: &mut u128, blocks: &[Block]) {
        // SAFETY: as in `Key::new`; `self` holds the token.
        unsafe { update_inner(&self.powers, acc, blocks) }
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.powers.h.zeroize();
        self.powers.folded.zeroize();
    }
}

#[inline]
#[target_feature(enable = "neon")]
fn from_u128(x: u128) -> uint64x2_t {
    vcombine_u64(vcreate_u64(x as u64), vcreate_u64((x >> 64) as u64))
}

#[inline]
#[target_feature(enable = "neon")]
fn to_u128(x: uint64x2_t) -> u128 {
    (u128::from(vgetq_lane_u64::<1>(x)) << 64) | u128::from(vgetq_lane_u64::<0>(x))
}

/// Loads one 16-byte entry of a power table.
#[inline]
#[target_feature(enable = "neon")]
fn load_u128(x: &u128) -> uint64x2_t {
    // SAFETY: `x` is 16 readable bytes; `vld1q_u64` needs only 8-byte alignment, which u128 has.
    unsafe { vld1q_u64((x as *const u128).cast()) }
}

/// A GHASH block as a POLYVAL element: its 16 bytes reversed.
#[inline]
#[target_feature(enable = "neon")]
fn load_block(block: &Block) -> uint64x2_t {
    // SAFETY: `block` is 16 readable bytes; `vld1q_u8` has no alignment requirement.
    let bytes = unsafe { vld1q_u8(block.as_ptr()) };
    let swapped = vreinterpretq_u64_u8(vrev64q_u8(bytes));
    vextq_u64::<1>(swapped, swapped)
}

/// The two 64-bit halves exchanged.
#[inline]
#[target_feature(enable = "neon")]
fn swap_halves(x: uint64x2_t) -> uint64x2_t {
    vextq_u64::<1>(x, x)
}

/// The 128-bit carry-less product of the low halves of `a` and `b` (`PMULL`).
#[inline]
#[target_feature(enable = "neon,aes")]
fn mul_low(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<0>(a), vgetq_lane_u64::<0>(b)))
}

/// The 128-bit carry-less product of the high halves of `a` and `b` (`PMULL2`).
#[inline]
#[target_feature(enable = "neon,aes")]
fn mul_high(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_high_p64(
        vreinterpretq_p64_u64(a),
        vreinterpretq_p64_u64(b),
    ))
}

/// Products summed without reduction: the 256-bit value is
/// high·x^128 ^ (middle ^ low ^ high)·x^64 ^ low (Karatsuba).
#[derive(Clone, Copy)]
struct Sum {
    low: uint64x2_t,
    middle: uint64x2_t,
    high: uint64x2_t,
}

impl Sum {
    /// The product of `a` with the power `(h, folded)`.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    fn product(a: uint64x2_t, h: uint64x2_t, folded: uint64x2_t) -> Self {
        let a_folded = veorq_u64(a, swap_halves(a));
        Self {
            low: mul_low(a, h),
            middle: mul_low(a_folded, folded),
            high: mul_high(a, h),
        }
    }

    #[inline]
    #[target_feature(enable = "neon")]
    fn add(self, other: Self) -> Self {
        Self {
            low: veorq_u64(self.low, other.low),
            middle: veorq_u64(self.middle, other.middle),
            high: veorq_u64(self.high, other.high),
        }
    }

    /// Montgomery reduction: value·x^-128 mod P (see `clmul.rs`).
    #[inline]
    #[target_feature(enable = "neon,aes")]
    fn reduce(self) -> uint64x2_t {
        let zero = vdupq_n_u64(0);
        let middle = veorq_u64(self.middle, veorq_u64(self.low, self.high));
        let t0 = veorq_u64(self.low, vextq_u64::<1>(zero, middle));
        let t1 = veorq_u64(self.high, vextq_u64::<1>(middle, zero));
        let poly = vdupq_n_u64(POLY_FOLD);
        let t0 = veorq_u64(swap_halves(t0), mul_low(t0, poly));
        let t0 = veorq_u64(swap_halves(t0), mul_low(t0, poly));
        veorq_u64(t1, t0)
    }
}

/// The XOR of the two halves of `x`, in both halves.
fn fold_halves(x: u128) -> u128 {
    let folded = (x ^ (x >> 64)) as u64;
    (u128::from(folded) << 64) | u128::from(folded)
}

/// H^8, ..., H^1 under dot, from H in POLYVAL form.
///
/// # Safety
/// The CPU must support NEON and PMULL.
#[target_feature(enable = "neon,aes")]
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
#[target_feature(enable = "neon,aes")]
fn times_power(powers: &Powers, a: uint64x2_t, k: usize) -> Sum {
    let slot = POWERS - k;
    Sum::product(
        a,
        load_u128(&powers.h[slot]),
        load_u128(&powers.folded[slot]),
    )
}

/// Y' = dot(Y ^ X_1, H^n) ^ ... ^ dot(X_n, H) for n = `blocks.len()` ≤ [`POWERS`], with one
/// reduction.
#[inline]
#[target_feature(enable = "neon,aes")]
fn absorb(powers: &Powers, acc: uint64x2_t, blocks: &[Block]) -> uint64x2_t {
    debug_assert!(!blocks.is_empty() && blocks.len() <= POWERS);
    let n = blocks.len();
    let first = veorq_u64(load_block(&blocks[0]), acc);
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

/// Absorbs `blocks` eight at a time.
///
/// # Safety
/// The CPU must support NEON and PMULL.
#[target_feature(enable = "neon,aes")]
unsafe fn update_inner(powers: &Powers, acc: &mut u128, blocks: &[Block]) {
    let mut y = from_u128(*acc);
    let (batches, rest) = blocks.as_chunks::<POWERS>();
    for batch in batches {
        y = absorb(powers, y, batch);
    }
    if !rest.is_empty() {
        y = absorb(powers, y, rest);
    }
    *acc = to_u128(y);
}
