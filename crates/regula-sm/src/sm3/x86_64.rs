//! SM3 compression with the message expansion on 128-bit SIMD registers.
//!
//! W_j = P1(W_(j-16) ^ W_(j-9) ^ (W_(j-3) <<< 15)) ^ (W_(j-13) <<< 7) ^ W_(j-6)
//! (GB/T 32905-2016, 5.3.2) is computed four words at a time. The last of the four needs
//! W_j, the first of the same four, so it is computed with 0 in its place and then corrected:
//! P1 is linear over XOR, so the missing term is P1(W_j <<< 15). W'_j = W_j ^ W_(j+4) is four
//! XORs per vector. The rounds stay scalar (they are one long dependency chain); taking the
//! expansion off the scalar ports shortens each round.
//!
//! Two backends: with AVX-512VL and BMI2, the whole compression is the assembly of
//! `avx512_asm.rs` (the same expansion with `vprold`/`vpternlogd`, rounds with `rorx`); with
//! SSSE3 only, the expansion below (rotations by two shifts and an OR) feeds the compiled
//! rounds of `rounds.rs`.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::avx512_asm;
use super::rounds::{Schedule, rounds};

/// Proof that the CPU supports AVX-512F, AVX-512VL and BMI2; only [`Avx512Token::detect`]
/// makes one.
#[derive(Clone, Copy)]
pub(crate) struct Avx512Token(());

impl Avx512Token {
    /// Checks the CPU for the features this backend uses.
    pub(crate) fn detect() -> Option<Self> {
        let supported = std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("bmi2");
        supported.then_some(Avx512Token(()))
    }
}

/// Proof that the CPU supports SSSE3; only [`Ssse3Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Ssse3Token(());

impl Ssse3Token {
    /// Checks the CPU for the features this backend uses.
    pub(crate) fn detect() -> Option<Self> {
        std::arch::is_x86_feature_detected!("ssse3").then_some(Ssse3Token(()))
    }
}

/// Compresses every block into `state` (the assembly of `avx512_asm.rs`).
pub(crate) fn compress_avx512(_token: Avx512Token, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    if blocks.is_empty() {
        return;
    }
    // SAFETY: an `Avx512Token` exists only after `Avx512Token::detect` saw AVX-512F, AVX-512VL
    // and BMI2; `state` is 8 writable words and `blocks` holds `blocks.len()` ≥ 1 readable
    // blocks.
    unsafe { avx512_asm::compress(state, blocks.as_ptr(), blocks.len()) }
}

/// Compresses every block into `state` (SSSE3 expansion).
pub(crate) fn compress_ssse3(_token: Ssse3Token, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    // SAFETY: an `Ssse3Token` exists only after `Ssse3Token::detect` saw SSSE3.
    unsafe { compress_ssse3_inner(state, blocks) }
}

/// `pshufb` control that byte-swaps each 32-bit word: SM3 words are big-endian.
#[inline]
#[target_feature(enable = "sse2")]
fn bswap_words() -> __m128i {
    _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3)
}

#[inline]
fn store4(words: &mut [u32; 4], x: __m128i) {
    // SAFETY: `words` is 16 writable bytes; `storeu` has no alignment requirement; SSE2 is
    // part of the x86-64 baseline.
    unsafe { _mm_storeu_si128(words.as_mut_ptr().cast(), x) }
}

/// Rotation of each 32-bit lane with two shifts and an OR.
macro_rules! rol_sse {
    ($x:expr, $n:literal) => {{
        let x = $x;
        _mm_or_si128(_mm_slli_epi32::<$n>(x), _mm_srli_epi32::<{ 32 - $n }>(x))
    }};
}

/// One step of the expansion: from `x` = W_(j-16..j-1) in four registers, W_(j..j+3);
/// `x` moves on by four words.
#[inline]
#[target_feature(enable = "ssse3")]
fn step_ssse3(x: &mut [__m128i; 4]) {
    let [x0, x1, x2, x3] = *x;
    let w9 = _mm_alignr_epi8::<12>(x2, x1);
    let w13 = _mm_alignr_epi8::<12>(x1, x0);
    let w6 = _mm_alignr_epi8::<8>(x3, x2);
    // W_(j-3), W_(j-2), W_(j-1), and 0 where W_j belongs.
    let w3 = _mm_srli_si128::<4>(x3);
    let t = xor3_sse(x0, w9, rol_sse!(w3, 15));
    let p1 = xor3_sse(t, rol_sse!(t, 15), rol_sse!(t, 23));
    let partial = xor3_sse(p1, rol_sse!(w13, 7), w6);
    // Lane 3 lacks P1(W_j <<< 15); W_j is lane 0.
    let missing = rol_sse!(_mm_slli_si128::<12>(partial), 15);
    let new = xor3_sse(
        partial,
        missing,
        _mm_xor_si128(rol_sse!(missing, 15), rol_sse!(missing, 23)),
    );
    *x = [x1, x2, x3, new];
}

/// The expansion of one block, kept four words ahead of the rounds.
struct Ssse3Schedule {
    /// The last sixteen words expanded.
    x: [__m128i; 4],
    w: [u32; 68],
    w_prime: [u32; 64],
}

impl Ssse3Schedule {
    /// Loads W_0..W_15 from `block` (big-endian words).
    ///
    /// # Safety
    /// The CPU must support SSSE3: the schedule's methods
    /// rely on it.
    #[inline]
    #[target_feature(enable = "ssse3")]
    unsafe fn load(&mut self, block: &[u8; 64]) {
        let (chunks, _) = block.as_chunks::<16>();
        for (i, chunk) in chunks.iter().enumerate() {
            // SAFETY: `chunk` is 16 readable bytes; `loadu` has no alignment
            // requirement.
            let words = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
            self.x[i] = _mm_shuffle_epi8(words, bswap_words());
            store4(
                (&mut self.w[4 * i..4 * i + 4]).try_into().unwrap(),
                self.x[i],
            );
        }
    }
}

impl Ssse3Schedule {
    /// [`Schedule::prepare`] with SSSE3 enabled.
    ///
    /// The expansion runs two groups ahead of the rounds: W_(4g+8..4g+11) here, for
    /// group g + 2. The step is tied to `after` (by an empty `asm!`) so that the
    /// compiler keeps it among the rounds instead of hoisting all steps before them,
    /// which would leave the out-of-order window full of expansion.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn prepare_group(&mut self, group: usize, after: u32) {
        // W_(4g..4g+3) and W_(4g+4..4g+7) are in adjacent registers.
        let now = group.min(2);
        let w_prime = _mm_xor_si128(self.x[now], self.x[now + 1]);
        let at = 4 * group;
        store4((&mut self.w_prime[at..at + 4]).try_into().unwrap(), w_prime);
        let first = 4 * group + 8;
        if (16..68).contains(&first) {
            let mut last = self.x[3];
            // SAFETY: the template is empty: it only reads `after` and `last` and
            // writes `last`, in registers; no memory, stack or flags.
            unsafe {
                core::arch::asm!(
                    "/* {0:e} {1} */",
                    in(reg) after,
                    inout(xmm_reg) last,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            self.x[3] = last;
            step_ssse3(&mut self.x);
            store4(
                (&mut self.w[first..first + 4]).try_into().unwrap(),
                self.x[3],
            );
        }
    }
}

impl Schedule for Ssse3Schedule {
    #[inline(always)]
    fn prepare(&mut self, group: usize, after: u32) {
        // SAFETY: a schedule is loaded only through `load`, whose callers guarantee
        // SSSE3.
        unsafe { self.prepare_group(group, after) }
    }

    #[inline(always)]
    fn w(&self, j: usize) -> u32 {
        self.w[j]
    }

    #[inline(always)]
    fn w_prime(&self, j: usize) -> u32 {
        self.w_prime[j]
    }
}

impl Drop for Ssse3Schedule {
    fn drop(&mut self) {
        self.w.zeroize();
        self.w_prime.zeroize();
        // SAFETY: SSE2 is part of the x86-64 baseline.
        self.x = [unsafe { _mm_setzero_si128() }; 4];
    }
}

/// # Safety
/// The CPU must support SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn compress_ssse3_inner(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let mut schedule = Ssse3Schedule {
        x: [_mm_setzero_si128(); 4],
        w: [0; 68],
        w_prime: [0; 64],
    };
    for block in blocks {
        // SAFETY: this function's callers guarantee the target features.
        unsafe { schedule.load(block) };
        rounds(state, &mut schedule, opaque);
    }
}

#[inline]
#[target_feature(enable = "sse2")]
fn xor3_sse(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
    _mm_xor_si128(_mm_xor_si128(a, b), c)
}

/// Returns `x` through an empty `asm!` block: no instruction, but the optimiser can no longer
/// see through it, so the sums in `rounds` keep the order that shortens the critical path.
#[inline(always)]
fn opaque(mut x: u32) -> u32 {
    // SAFETY: the template is empty: it reads and writes only the register holding `x`, and
    // touches no memory, stack or flags.
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}
