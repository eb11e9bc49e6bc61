//! SM3 compression on the Armv8.2 SM3 Crypto Extension (`sm3-ce`).
//!
//! The working variables live in two registers with A (resp. E) in lane 3, B in lane 2, C in
//! lane 1 and D in lane 0, the layout the instructions expect:
//!
//! - `SM3SS1` gives SS1 = ((A <<< 12) + E + T_j) <<< 7 in lane 3;
//! - `SM3TT1A`/`SM3TT1B` (FF as XOR for rounds 0..15, majority after) compute
//!   TT1 = FF(A, B, C) + D + (SS1 ^ (A <<< 12)) + W'_j and shift ABCD, rotating B by 9;
//! - `SM3TT2A`/`SM3TT2B` compute TT2 = GG(E, F, G) + H + SS1 + W_j and shift EFGH with
//!   P0(TT2) and F <<< 19;
//! - `SM3PARTW1`/`SM3PARTW2` expand four message words at a time (GB/T 32905-2016, 5.3.2).
//!
//! The instructions touch registers only and SM3 has no table lookups or secret-dependent
//! branches, so this is constant time.

use core::arch::aarch64::*;
use core::arch::asm;

use super::BLOCK_LEN;

/// Proof that the CPU has NEON and the SM3 instructions; only [`Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(super) struct Token(());

impl Token {
    /// Checks the CPU for the features this backend uses (Rust's `sm4` feature covers the SM3
    /// and SM4 instructions together).
    pub(super) fn detect() -> Option<Self> {
        // The loads and lane orders assume little-endian lanes: off on aarch64_be.
        let supported = cfg!(target_endian = "little")
            && std::arch::is_aarch64_feature_detected!("neon")
            && std::arch::is_aarch64_feature_detected!("sm4");
        supported.then_some(Token(()))
    }
}

/// T_j <<< (j mod 32) for every round (GB/T 32905-2016, 4.2 and 5.3.3).
const ROUND_CONSTANTS: [u32; 64] = {
    let mut constants = [0u32; 64];
    let mut j = 0;
    while j < 64 {
        let t: u32 = if j < 16 { 0x79cc_4519 } else { 0x7a87_9d8a };
        constants[j] = t.rotate_left((j % 32) as u32);
        j += 1;
    }
    constants
};

/// SS1 in lane 3 from A (lane 3 of `abcd`), E (lane 3 of `efgh`) and T_j (lane 3 of `t`).
#[inline]
#[target_feature(enable = "neon,sm4")]
fn ss1(abcd: uint32x4_t, efgh: uint32x4_t, t: uint32x4_t) -> uint32x4_t {
    let out;
    // SAFETY: SM3SS1 reads and writes registers only; compiled for the SM3 extension.
    unsafe {
        asm!(
            "sm3ss1 {out:v}.4s, {a:v}.4s, {e:v}.4s, {t:v}.4s",
            out = lateout(vreg) out,
            a = in(vreg) abcd,
            e = in(vreg) efgh,
            t = in(vreg) t,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// Defines `$name(state, ss1, words)` running `$instruction state, ss1, words.s[LANE]` for
/// the lane given as a literal (the instructions take the lane as an immediate).
macro_rules! lane_instruction {
    ($name:ident, $instruction:literal) => {
        #[inline]
        #[target_feature(enable = "neon,sm4")]
        fn $name<const LANE: usize>(
            state: uint32x4_t,
            ss1: uint32x4_t,
            words: uint32x4_t,
        ) -> uint32x4_t {
            let mut state = state;
            macro_rules! run {
                ($lane:literal) => {
                    // SAFETY: the SM3 round instructions read and write registers only;
                    // compiled for the SM3 extension.
                    unsafe {
                        asm!(
                            concat!($instruction, " {s:v}.4s, {n:v}.4s, {m:v}.s[", $lane, "]"),
                            s = inout(vreg) state,
                            n = in(vreg) ss1,
                            m = in(vreg) words,
                            options(pure, nomem, nostack, preserves_flags),
                        )
                    }
                };
            }
            match LANE {
                0 => run!("0"),
                1 => run!("1"),
                2 => run!("2"),
                _ => run!("3"),
            }
            state
        }
    };
}

lane_instruction!(tt1a, "sm3tt1a");
lane_instruction!(tt1b, "sm3tt1b");
lane_instruction!(tt2a, "sm3tt2a");
lane_instruction!(tt2b, "sm3tt2b");

/// W_(j)..W_(j+3) from the sixteen words before them, `w` = [W_(j-16..j-13), .., W_(j-4..j-1)].
#[inline]
#[target_feature(enable = "neon,sm4")]
fn expand(w: [uint32x4_t; 4]) -> uint32x4_t {
    // W_j = P1(W_(j-16) ^ W_(j-9) ^ (W_(j-3) <<< 15)) ^ (W_(j-13) <<< 7) ^ W_(j-6).
    let minus9 = vextq_u32::<3>(w[1], w[2]);
    let minus6 = vextq_u32::<2>(w[2], w[3]);
    let minus13 = vextq_u32::<3>(w[0], w[1]);
    let mut partial = w[0];
    // SAFETY: SM3PARTW1/SM3PARTW2 read and write registers only; compiled for the SM3
    // extension. PARTW1 takes W_(j-3..j-1) from lanes 1..3 of its last operand and fixes up
    // lane 3 (which needs W_j) with PARTW2's correction term.
    unsafe {
        asm!(
            "sm3partw1 {d:v}.4s, {n:v}.4s, {m:v}.4s",
            d = inout(vreg) partial,
            n = in(vreg) minus9,
            m = in(vreg) w[3],
            options(pure, nomem, nostack, preserves_flags),
        );
        asm!(
            "sm3partw2 {d:v}.4s, {n:v}.4s, {m:v}.4s",
            d = inout(vreg) partial,
            n = in(vreg) minus6,
            m = in(vreg) minus13,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    partial
}

/// Four rounds j..j+3 with the words W_j..W_(j+3) in `w` and W_(j+4)..W_(j+7) in `next`.
macro_rules! four_rounds {
    ($name:ident, $tt1:ident, $tt2:ident) => {
        #[inline]
        #[target_feature(enable = "neon,sm4")]
        fn $name(state: &mut (uint32x4_t, uint32x4_t), j: usize, w: uint32x4_t, next: uint32x4_t) {
            let w_prime = veorq_u32(w, next);
            let (mut abcd, mut efgh) = *state;
            macro_rules! round {
                ($lane:literal) => {
                    let t = vdupq_n_u32(ROUND_CONSTANTS[j + $lane]);
                    let ss1 = ss1(abcd, efgh, t);
                    abcd = $tt1::<$lane>(abcd, ss1, w_prime);
                    efgh = $tt2::<$lane>(efgh, ss1, w);
                };
            }
            round!(0);
            round!(1);
            round!(2);
            round!(3);
            *state = (abcd, efgh);
        }
    };
}

four_rounds!(four_rounds_a, tt1a, tt2a);
four_rounds!(four_rounds_b, tt1b, tt2b);

/// Reverses the four lanes.
#[inline]
#[target_feature(enable = "neon")]
fn reverse_lanes(x: uint32x4_t) -> uint32x4_t {
    let swapped = vrev64q_u32(x);
    vextq_u32::<2>(swapped, swapped)
}

/// # Safety
/// The CPU must support NEON and the SM3 instructions.
#[target_feature(enable = "neon,sm4")]
unsafe fn compress_inner(state: &mut [u32; 8], blocks: &[[u8; BLOCK_LEN]]) {
    // SAFETY: each load reads four words inside the eight-word state.
    let (abcd, efgh) = unsafe { (vld1q_u32(state.as_ptr()), vld1q_u32(state[4..].as_ptr())) };
    let mut v = (reverse_lanes(abcd), reverse_lanes(efgh));
    for block in blocks {
        let start = v;
        // W_0..W_15: big-endian words (GB/T 32905-2016, 5.3.2).
        let mut w: [uint32x4_t; 4] = core::array::from_fn(|i| {
            // SAFETY: reads 16 bytes at offset 16i inside the 64-byte block.
            let bytes = unsafe { vld1q_u8(block[16 * i..].as_ptr()) };
            vreinterpretq_u32_u8(vrev32q_u8(bytes))
        });
        for group in 0..16 {
            // Rounds 4·group.. need W up to 4·group + 7; W_64..W_67 is the last vector used.
            let next = if group < 13 { expand(w) } else { w[3] };
            if group < 4 {
                four_rounds_a(&mut v, 4 * group, w[0], w[1]);
            } else {
                four_rounds_b(&mut v, 4 * group, w[0], w[1]);
            }
            w = [w[1], w[2], w[3], next];
        }
        v = (veorq_u32(v.0, start.0), veorq_u32(v.1, start.1));
    }
    // SAFETY: each store writes four words inside the eight-word state.
    unsafe {
        vst1q_u32(state.as_mut_ptr(), reverse_lanes(v.0));
        vst1q_u32(state[4..].as_mut_ptr(), reverse_lanes(v.1));
    }
}

/// Compresses `blocks` into `state` (GB/T 32905-2016, 5.3).
pub(super) fn compress(_token: Token, state: &mut [u32; 8], blocks: &[[u8; BLOCK_LEN]]) {
    // SAFETY: a `Token` exists only after `Token::detect` saw NEON and the SM3 instructions.
    unsafe { compress_inner(state, blocks) }
}
