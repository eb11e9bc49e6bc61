//! Multi-buffer SM3 compression: 16 messages at once in AVX-512 registers, 8 in AVX2 registers.
//!
//! Lane i of every vector belongs to message i: the state words A..H, the expanded words W_j.
//! The rounds are the same dependency chain as single-stream SM3, but each operation now
//! advances 8 or 16 messages, so the throughput grows with the lane count. Message words are
//! gathered from the lanes' blocks (one 32-bit word of each lane per gather), byte-swapped
//! (SM3 words are big-endian), and expanded in full before the rounds.
//!
//! Only additions, XORs, ANDs and fixed rotations: no table lookups, no data-dependent branches.

use core::arch::x86_64::*;

use super::many::{Kernel, LaneStates, MAX_LANES};
use super::rounds::T;

/// Proof that the CPU supports AVX-512F and AVX-512BW; only [`Avx512Lanes::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Avx512Lanes(());

impl Avx512Lanes {
    pub(crate) fn detect() -> Option<Self> {
        let supported = std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw");
        supported.then_some(Avx512Lanes(()))
    }
}

/// Proof that the CPU supports AVX2; only [`Avx2Lanes::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Avx2Lanes(());

impl Avx2Lanes {
    pub(crate) fn detect() -> Option<Self> {
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2Lanes(()))
    }
}

impl Kernel for Avx512Lanes {
    const LANES: usize = 16;

    fn compress(self, states: &mut LaneStates, blocks: &[*const u8; MAX_LANES], count: usize) {
        // SAFETY: an `Avx512Lanes` exists only after `detect` saw AVX-512F and AVX-512BW; the
        // caller (`many::run`) passes 16 lane pointers each with `count` readable blocks.
        unsafe { compress_avx512(states, blocks, count) }
    }
}

impl Kernel for Avx2Lanes {
    const LANES: usize = 8;

    fn compress(self, states: &mut LaneStates, blocks: &[*const u8; MAX_LANES], count: usize) {
        // SAFETY: an `Avx2Lanes` exists only after `detect` saw AVX2; the caller passes 8 lane
        // pointers each with `count` readable blocks.
        unsafe { compress_avx2(states, blocks, count) }
    }
}

/// The operations the compression needs, on one vector of lanes.
///
/// Every method is `unsafe` and `inline(always)`: they are only called from the
/// `#[target_feature]` functions below, into which they are inlined.
trait Lanes: Copy {
    const N: usize;
    unsafe fn splat(x: u32) -> Self;
    unsafe fn load(words: &[u32; MAX_LANES]) -> Self;
    unsafe fn store(self, words: &mut [u32; MAX_LANES]);
    unsafe fn add(self, other: Self) -> Self;
    unsafe fn xor(self, other: Self) -> Self;
    unsafe fn xor3(self, b: Self, c: Self) -> Self;
    /// Rotation left by `L`; `R` = 32 − `L`.
    unsafe fn rol<const L: i32, const R: i32>(self) -> Self;
    /// (X & Y) | (X & Z) | (Y & Z).
    unsafe fn majority(self, y: Self, z: Self) -> Self;
    /// (X & Y) | (!X & Z).
    unsafe fn choose(self, y: Self, z: Self) -> Self;
    /// Word `word` of every lane's block, from big-endian bytes; `offsets` locate the lanes'
    /// blocks relative to `base`.
    unsafe fn gather(offsets: &[i64; MAX_LANES], base: *const u8, word: usize) -> Self;
}

#[derive(Clone, Copy)]
struct Zmm(__m512i);

impl Lanes for Zmm {
    const N: usize = 16;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Zmm(_mm512_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    unsafe fn load(words: &[u32; MAX_LANES]) -> Self {
        // SAFETY: 16 readable words; `loadu` has no alignment requirement.
        Zmm(unsafe { _mm512_loadu_si512(words.as_ptr().cast()) })
    }
    #[inline(always)]
    unsafe fn store(self, words: &mut [u32; MAX_LANES]) {
        // SAFETY: 16 writable words; `storeu` has no alignment requirement.
        unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Zmm(_mm512_add_epi32(self.0, other.0)) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Zmm(_mm512_xor_si512(self.0, other.0)) }
    }
    #[inline(always)]
    unsafe fn xor3(self, b: Self, c: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Zmm(_mm512_ternarylogic_epi32::<0x96>(self.0, b.0, c.0)) }
    }
    #[inline(always)]
    unsafe fn rol<const L: i32, const R: i32>(self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Zmm(_mm512_rol_epi32::<L>(self.0)) }
    }
    #[inline(always)]
    unsafe fn majority(self, y: Self, z: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Zmm(_mm512_ternarylogic_epi32::<0xe8>(self.0, y.0, z.0)) }
    }
    #[inline(always)]
    unsafe fn choose(self, y: Self, z: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Zmm(_mm512_ternarylogic_epi32::<0xca>(self.0, y.0, z.0)) }
    }
    #[inline(always)]
    unsafe fn gather(offsets: &[i64; MAX_LANES], base: *const u8, word: usize) -> Self {
        // SAFETY: (callers) `base + offsets[i] + 4·word` is a readable word of lane i's block.
        unsafe {
            let low = _mm512_loadu_si512(offsets.as_ptr().cast());
            let high = _mm512_loadu_si512(offsets[8..].as_ptr().cast());
            let at = base.wrapping_add(4 * word);
            let low = _mm512_i64gather_epi32::<1>(low, at.cast());
            let high = _mm512_i64gather_epi32::<1>(high, at.cast());
            let words = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high);
            Zmm(_mm512_shuffle_epi8(words, bswap512()))
        }
    }
}

#[inline(always)]
unsafe fn bswap512() -> __m512i {
    // SAFETY: (callers) the target features of this type are enabled.
    unsafe {
        _mm512_broadcast_i32x4(_mm_set_epi8(
            12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
        ))
    }
}

#[derive(Clone, Copy)]
struct Ymm(__m256i);

impl Lanes for Ymm {
    const N: usize = 8;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Ymm(_mm256_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    unsafe fn load(words: &[u32; MAX_LANES]) -> Self {
        // SAFETY: 8 readable words; `loadu` has no alignment requirement.
        Ymm(unsafe { _mm256_loadu_si256(words.as_ptr().cast()) })
    }
    #[inline(always)]
    unsafe fn store(self, words: &mut [u32; MAX_LANES]) {
        // SAFETY: 8 writable words; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Ymm(_mm256_add_epi32(self.0, other.0)) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Ymm(_mm256_xor_si256(self.0, other.0)) }
    }
    #[inline(always)]
    unsafe fn xor3(self, b: Self, c: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe { Ymm(_mm256_xor_si256(_mm256_xor_si256(self.0, b.0), c.0)) }
    }
    #[inline(always)]
    unsafe fn rol<const L: i32, const R: i32>(self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe {
            Ymm(_mm256_or_si256(
                _mm256_slli_epi32::<L>(self.0),
                _mm256_srli_epi32::<R>(self.0),
            ))
        }
    }
    #[inline(always)]
    unsafe fn majority(self, y: Self, z: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe {
            // ((Y ^ Z) & X) ^ (Y & Z)
            Ymm(_mm256_xor_si256(
                _mm256_and_si256(_mm256_xor_si256(y.0, z.0), self.0),
                _mm256_and_si256(y.0, z.0),
            ))
        }
    }
    #[inline(always)]
    unsafe fn choose(self, y: Self, z: Self) -> Self {
        // SAFETY: (callers) the target features of this type are enabled.
        unsafe {
            // ((Y ^ Z) & X) ^ Z
            Ymm(_mm256_xor_si256(
                _mm256_and_si256(_mm256_xor_si256(y.0, z.0), self.0),
                z.0,
            ))
        }
    }
    #[inline(always)]
    unsafe fn gather(offsets: &[i64; MAX_LANES], base: *const u8, word: usize) -> Self {
        // SAFETY: (callers) `base + offsets[i] + 4·word` is a readable word of lane i's block.
        unsafe {
            let low = _mm256_loadu_si256(offsets.as_ptr().cast());
            let high = _mm256_loadu_si256(offsets[4..].as_ptr().cast());
            let at = base.wrapping_add(4 * word);
            let low = _mm256_i64gather_epi32::<1>(at.cast(), low);
            let high = _mm256_i64gather_epi32::<1>(at.cast(), high);
            let words = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(low), high);
            let bswap = _mm256_broadcastsi128_si256(_mm_set_epi8(
                12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
            ));
            Ymm(_mm256_shuffle_epi8(words, bswap))
        }
    }
}

/// # Safety
/// The CPU must support AVX-512F and AVX-512BW; `blocks[..16]` each point to `count` readable
/// blocks.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress_avx512(states: &mut LaneStates, blocks: &[*const u8; MAX_LANES], count: usize) {
    // SAFETY: forwarded from this function's contract.
    unsafe { compress_generic::<Zmm>(states, blocks, count) }
}

/// # Safety
/// The CPU must support AVX2; `blocks[..8]` each point to `count` readable blocks.
#[target_feature(enable = "avx2")]
unsafe fn compress_avx2(states: &mut LaneStates, blocks: &[*const u8; MAX_LANES], count: usize) {
    // SAFETY: forwarded from this function's contract.
    unsafe { compress_generic::<Ymm>(states, blocks, count) }
}

/// P0(X) = X ^ (X <<< 9) ^ (X <<< 17).
#[inline(always)]
unsafe fn p0<V: Lanes>(x: V) -> V {
    // SAFETY: (callers) the target features of `V` are enabled.
    unsafe { x.xor3(x.rol::<9, 23>(), x.rol::<17, 15>()) }
}

/// P1(X) = X ^ (X <<< 15) ^ (X <<< 23).
#[inline(always)]
unsafe fn p1<V: Lanes>(x: V) -> V {
    // SAFETY: (callers) the target features of `V` are enabled.
    unsafe { x.xor3(x.rol::<15, 17>(), x.rol::<23, 9>()) }
}

/// CF (GB/T 32905-2016, 5.3) applied `count` times to each lane's state.
///
/// # Safety
/// The target features of `V` must be enabled; `blocks[..V::N]` each point to `count` readable
/// blocks.
#[inline(always)]
unsafe fn compress_generic<V: Lanes>(
    states: &mut LaneStates,
    blocks: &[*const u8; MAX_LANES],
    count: usize,
) {
    // The lanes' blocks as offsets from lane 0's: one base pointer moves by a block at a time.
    let base = blocks[0];
    let mut offsets = [0i64; MAX_LANES];
    for (offset, block) in offsets.iter_mut().zip(&blocks[..V::N]) {
        *offset = (*block as i64).wrapping_sub(base as i64);
    }
    // SAFETY: the whole body only runs the operations of `V`, whose features the caller
    // enabled; every gather reads within a lane's block (the caller's contract).
    unsafe {
        let mut v: [V; 8] = [V::splat(0); 8];
        for (word, lanes) in v.iter_mut().zip(states.iter()) {
            *word = V::load(lanes);
        }
        let mut w = [V::splat(0); 68];
        for block in 0..count {
            let at = base.wrapping_add(64 * block);
            for (j, word) in w[..16].iter_mut().enumerate() {
                *word = V::gather(&offsets, at, j);
            }
            for j in 16..68 {
                let t = w[j - 16].xor3(w[j - 9], w[j - 3].rol::<15, 17>());
                w[j] = p1(t).xor3(w[j - 13].rol::<7, 25>(), w[j - 6]);
            }
            let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = v;
            // One round; the callers rename the registers instead of moving them: after a
            // round, (A, B, C, D, E, F, G, H) is (TT1, A, B <<< 9, C, P0(TT2), E, F <<< 19, G).
            macro_rules! round {
                ($j:expr, $ff:ident, $gg:ident, $a:ident, $b:ident, $c:ident, $d:ident,
                 $e:ident, $f:ident, $g:ident, $h:ident) => {{
                    let j = $j;
                    let a12 = $a.rol::<12, 20>();
                    let ss1 = a12.add($e).add(V::splat(T[j])).rol::<7, 25>();
                    let ss2 = ss1.xor(a12);
                    let tt1 = $a.$ff($b, $c).add($d).add(ss2).add(w[j].xor(w[j + 4]));
                    let tt2 = $e.$gg($f, $g).add($h).add(ss1).add(w[j]);
                    $d = tt1;
                    $b = $b.rol::<9, 23>();
                    $h = p0(tt2);
                    $f = $f.rol::<19, 13>();
                }};
            }
            macro_rules! four_rounds {
                ($j:expr, $ff:ident, $gg:ident) => {{
                    round!($j, $ff, $gg, a, b, c, d, e, f, g, h);
                    round!($j + 1, $ff, $gg, d, a, b, c, h, e, f, g);
                    round!($j + 2, $ff, $gg, c, d, a, b, g, h, e, f);
                    round!($j + 3, $ff, $gg, b, c, d, a, f, g, h, e);
                }};
            }
            for j in (0..16).step_by(4) {
                four_rounds!(j, xor3, xor3);
            }
            for j in (16..64).step_by(4) {
                four_rounds!(j, majority, choose);
            }
            for (word, new) in v.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                *word = word.xor(new);
            }
        }
        for (word, lanes) in v.iter().zip(states.iter_mut()) {
            word.store(lanes);
        }
    }
}
