//! SM4 with VAES and AVX2 (`sm4-vaes-avx2`), for CPUs with VAES but neither GFNI nor AVX-512
//! (AMD Zen 3, Intel client cores before GFNI).
//!
//! The eight-lane path is `x86_64/avx2.rs`, as for `sm4-aesni-avx2`, but the S-box runs
//! `vaesenclast` on the whole `ymm` register: no split into 128-bit halves and no join, which
//! shortens every round's critical path by the extract and insert and halves the AES
//! instructions. One block at a time and a few blocks take `sm4-aesni-avx2`'s 128-bit paths:
//! a `ymm` would only carry copies there.

use core::arch::x86_64::*;

use super::aesni;
use super::avx2::{
    Constants, FieldKeys, GROUPS, LANES, cbc_store, counter_words, from_field, load_words,
    store_words, to_field, xor_store_words,
};
use crate::sm4::{Block, RoundKeys};

/// Proof that the CPU supports VAES, AES-NI and AVX2; only [`Token::detect`] makes one.
#[derive(Clone, Copy)]
pub(crate) struct Token(aesni::Token);

impl Token {
    /// Checks the CPU for the features this backend uses.
    pub(crate) fn detect() -> Option<Self> {
        let aesni = aesni::Token::detect()?;
        std::arch::is_x86_feature_detected!("vaes").then_some(Token(aesni))
    }

    /// The AES-NI proof this one includes, for the 128-bit paths.
    pub(crate) fn aesni(self) -> aesni::Token {
        self.0
    }
}

wide_entry_points!("vaes,aes,avx2");

/// AES SubBytes of all 32 bytes (after ShiftRows' inverse): `vaesenclast` with a zero round
/// key on the whole register.
#[inline]
#[target_feature(enable = "vaes,aes,avx2")]
fn aes_sbox_256(y: __m256i) -> __m256i {
    _mm256_aesenclast_epi128(y, _mm256_setzero_si256())
}
