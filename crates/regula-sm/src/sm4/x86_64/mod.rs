//! x86-64 SIMD backends and the S-box constants they share.
//!
//! Both backends compute the SM4 S-box through inversion in the AES field GF(2^8)/0x11B, which
//! x86 exposes in hardware (`aesenclast`, `gf2p8affineinv`). SM4's S-box is
//! `S(x) = A·(A·x + 0xD3)^-1 + 0xD3` over GF(2^8)/0x1F5 (see `soft.rs`). The field isomorphism
//! phi: GF(2^8)/0x1F5 -> GF(2^8)/0x11B sends x to beta = 0x23, a root of
//! x^8+x^7+x^6+x^5+x^4+x^2+1 in the AES field, and commutes with inversion, so
//!
//! * `S(x) = (A·phi^-1)·inv_aes(phi·A·x + phi(0xD3)) + 0xD3` — the GFNI form, and
//! * with `SubBytes(y) = M_aes·inv_aes(y) + 0x63` (FIPS 197, 5.1.1),
//!   `S(x) = (A·phi^-1·M_aes^-1)·(SubBytes(phi·A·x + phi(0xD3)) + 0x63) + 0xD3` — the AES-NI form.
//!
//! The matrices below are those products; the unit test at the bottom re-derives every S-box
//! entry from them and compares with the portable implementation.

/// The one-block path of a SIMD backend: its 32-round loop and the entry points
/// `crypt_block` and `cbc_encrypt_blocks`, over that backend's `BlockConstants`, `block_round`
/// and `xor4` (words kept in the `Mx` domain), with `$features` as the backend's
/// `#[target_feature]` list.
macro_rules! one_block_entry_points {
    ($features:literal) => {
        /// The 32 rounds on x~_0..x~_3; returns x~_32..x~_35.
        #[inline]
        #[target_feature(enable = $features)]
        fn block_rounds(words: [__m128i; 4], keys: &BlockKeys, c: &BlockConstants) -> [__m128i; 4] {
            let [mut x0, mut x1, mut x2, mut x3] = words;
            let mut y = xor4(x1, x2, x3, _mm_set1_epi32(keys[0][0] as i32));
            // Unrolled by four so that the word window stays in registers.
            for keys in keys.chunks_exact(4) {
                (y, x0) = block_round(y, x0, x1, &keys[0], c);
                (y, x1) = block_round(y, x1, x2, &keys[1], c);
                (y, x2) = block_round(y, x2, x3, &keys[2], c);
                (y, x3) = block_round(y, x3, x0, &keys[3], c);
            }
            [x0, x1, x2, x3]
        }

        /// Runs the 32 rounds over one block with keys from `x86_64::one_block_keys`.
        pub(crate) fn crypt_block(_token: Token, keys: &BlockKeys, block: &mut Block) {
            // SAFETY: a `Token` exists only after `Token::detect` saw every feature this macro
            // was given as `$features`, the list `crypt_block_inner` is compiled with.
            unsafe { crypt_block_inner(keys, block) }
        }

        /// CBC encryption (NIST SP 800-38A, 6.2), C_i = E(P_i ^ C_(i-1)) with C_(-1) = `iv`,
        /// with keys from `x86_64::one_block_keys`. The chaining value stays in the `Mx`
        /// domain between blocks.
        pub(crate) fn cbc_encrypt_blocks(
            _token: Token,
            keys: &BlockKeys,
            iv: &Block,
            blocks: &mut [Block],
        ) {
            // SAFETY: as in `crypt_block`.
            unsafe { cbc_encrypt_blocks_inner(keys, iv, blocks) }
        }

        /// # Safety
        /// The CPU must support `$features`.
        #[target_feature(enable = $features)]
        unsafe fn crypt_block_inner(keys: &BlockKeys, block: &mut Block) {
            let c = BlockConstants::new();
            let words = block_rounds(c.load_words(block), keys, &c);
            c.store_words(words, block);
        }

        /// # Safety
        /// The CPU must support `$features`.
        #[target_feature(enable = $features)]
        unsafe fn cbc_encrypt_blocks_inner(keys: &BlockKeys, iv: &Block, blocks: &mut [Block]) {
            let c = BlockConstants::new();
            // Mx·(P ^ C) = Mx·P ^ Mx·C, and Mx·C_(i-1) is the previous block's final state.
            let mut previous = c.load_words(iv);
            for block in blocks {
                let input = c.load_words(block);
                let words = block_rounds(
                    core::array::from_fn(|j| _mm_xor_si128(input[j], previous[j])),
                    keys,
                    &c,
                );
                c.store_words(words, block);
                // Reverse transform R: ciphertext word j is X_(35-j) (GB/T 32907-2016, 7.1).
                previous = [words[3], words[2], words[1], words[0]];
            }
        }
    };
}

#[macro_use]
mod avx2;
pub(crate) mod aesni;
pub(crate) mod gfni;
pub(crate) mod vaes;

use zeroize::Zeroize;

use super::{BlockKeys, ROUNDS, RoundKeys};

/// An affine map on bytes over GF(2): `rows[i]` selects the input bits whose parity is output
/// bit i (bit 0 = least significant), then `constant` is added.
pub(super) struct Affine {
    rows: [u8; 8],
    constant: u8,
}

impl Affine {
    /// Applies the map to one byte.
    const fn apply(&self, x: u8) -> u8 {
        let mut out = self.constant;
        let mut bit = 0;
        while bit < 8 {
            out ^= (((self.rows[bit] & x).count_ones() & 1) as u8) << bit;
            bit += 1;
        }
        out
    }

    /// `pshufb` table for the low nibble: entry n is `apply(n)` (constant included).
    pub(super) const fn low_nibble_table(&self) -> [u8; 16] {
        let mut table = [0u8; 16];
        let mut n = 0;
        while n < 16 {
            table[n] = self.apply(n as u8);
            n += 1;
        }
        table
    }

    /// `pshufb` table for the high nibble: entry n is the linear part applied to `n << 4`.
    pub(super) const fn high_nibble_table(&self) -> [u8; 16] {
        let mut table = [0u8; 16];
        let mut n = 0;
        while n < 16 {
            table[n] = self.apply((n as u8) << 4) ^ self.constant;
            n += 1;
        }
        table
    }

    /// The matrix operand of `gf2p8affine(inv)_epi64_epi8`: output bit i uses byte 7 - i.
    pub(super) const fn gfni_matrix(&self) -> i64 {
        let mut matrix = 0u64;
        let mut bit = 0;
        while bit < 8 {
            matrix |= (self.rows[bit] as u64) << (8 * (7 - bit));
            bit += 1;
        }
        matrix as i64
    }

    /// The additive constant, as the `imm8` of the GFNI instructions.
    pub(super) const fn gfni_constant(&self) -> i32 {
        self.constant as i32
    }
}

impl Affine {
    /// The linear map whose output bit i is the parity of `x & rows[i]`.
    const fn linear(rows: [u8; 8]) -> Self {
        Self { rows, constant: 0 }
    }

    /// The linear part alone.
    pub(super) const fn linear_part(&self) -> Self {
        Self::linear(self.rows)
    }

    /// `x -> self(x) + other(x)`, linear parts only.
    const fn plus(&self, other: &Affine) -> Self {
        let mut rows = self.rows;
        let mut bit = 0;
        while bit < 8 {
            rows[bit] ^= other.rows[bit];
            bit += 1;
        }
        Self::linear(rows)
    }

    /// `x -> self(inner(x))`, linear parts only.
    const fn after(&self, inner: &Affine) -> Self {
        let mut rows = [0u8; 8];
        let mut bit = 0;
        while bit < 8 {
            // Output bit `bit` is the parity of the inner output bits that `rows[bit]` selects.
            let mut used = 0;
            while used < 8 {
                if self.rows[bit] >> used & 1 != 0 {
                    rows[bit] ^= inner.rows[used];
                }
                used += 1;
            }
            bit += 1;
        }
        Self::linear(rows)
    }

    /// The inverse of the linear part; panics (at compile time) if it is singular.
    pub(super) const fn inverse_linear(&self) -> Self {
        let linear = self.linear_part();
        let mut rows = [0u8; 8];
        let mut column = 0;
        while column < 8 {
            // Find the input that maps to the unit vector of `column`; it is column `column`
            // of the inverse.
            let mut x = 0;
            while linear.apply(x as u8) != 1 << column {
                x += 1;
                assert!(x < 256, "singular matrix");
            }
            let mut bit = 0;
            while bit < 8 {
                rows[bit] |= (((x >> bit) & 1) as u8) << column;
                bit += 1;
            }
            column += 1;
        }
        Self::linear(rows)
    }
}

/// `x -> phi·A·x + phi(0xD3)`: SM4's input affine map, carried into the AES field.
pub(super) const SM4_TO_AES_FIELD: Affine = Affine {
    rows: [0x4c, 0x28, 0x7d, 0xb9, 0x1a, 0x22, 0x50, 0x5d],
    constant: 0x3e,
};

/// `y -> A·phi^-1·y + 0xD3`: from an AES-field inverse to the SM4 S-box output (GFNI form).
pub(super) const AES_INVERSE_TO_SM4: Affine = Affine {
    rows: [0xf3, 0xab, 0x34, 0xa9, 0x74, 0xa6, 0xb5, 0x89],
    constant: 0xd3,
};

/// `z -> A·phi^-1·M_aes^-1·(z + 0x63) + 0xD3`: from an AES S-box output to the SM4 S-box output.
pub(super) const AES_SBOX_TO_SM4: Affine = Affine {
    rows: [0x48, 0x0e, 0x4c, 0x47, 0x65, 0x1d, 0xba, 0xd3],
    constant: 0x6c,
};

/// Byte-wise pieces of SM4's linear transform L (GB/T 32907-2016, 6.2.2) for the one-block
/// paths. Rotating a 32-bit word left by 2 moves bits 0..=5 of each byte up inside the byte
/// (`SHL2`) and bits 6..=7 into the next byte (`SHR6`, then a byte rotation), so with `rot8`
/// the word rotation by 8 bits,
/// `L(B) = N0·B ^ rot8(N1·B) ^ rot16(N1·B) ^ rot24(N3·B)` with the byte-wise maps
/// `N0 = I + SHL2`, `N1 = SHL2 + SHR6` (the rot8 and rot16 terms share it) and `N3 = SHR6 + I`.
const IDENTITY: Affine = Affine::linear([1, 2, 4, 8, 16, 32, 64, 128]);
const SHL2: Affine = Affine::linear([0, 0, 1, 2, 4, 8, 16, 32]);
const SHR6: Affine = Affine::linear([64, 128, 0, 0, 0, 0, 0, 0]);

/// `Mx·N·out`, linear parts only, where `Mx` is [`SM4_TO_AES_FIELD`]'s linear part.
const fn l_term(n: &Affine, out: &Affine) -> Affine {
    SM4_TO_AES_FIELD
        .linear_part()
        .after(&n.after(&out.linear_part()))
}

/// The byte-wise terms `[T0, T1, T3]` of `Mx·L(S(x))`, for the one-block paths that keep the
/// state in the `Mx` domain: with `h` the hardware result (AES-field inverse or AES S-box) and
/// `out` the map from it to the SM4 S-box output,
/// `Mx·L(S(x)) = T0(h) ^ rot8(T1(h)) ^ rot16(T1(h)) ^ rot24(T3(h))`.
///
/// `T0` carries the whole constant `Mx·L(c, c, c, c)` (`c` = `out`'s constant): it is the same
/// in every byte because L commutes with byte rotations, and equals `Mx·((SHL2 + SHR6)·c)`,
/// `Mx` applied to `c` rotated left by 2.
const fn l_terms(out: &Affine) -> [Affine; 3] {
    let term_0 = l_term(&IDENTITY.plus(&SHL2), out);
    let constant = SM4_TO_AES_FIELD
        .linear_part()
        .apply(out.constant.rotate_left(2));
    [
        Affine {
            rows: term_0.rows,
            constant,
        },
        l_term(&SHL2.plus(&SHR6), out),
        l_term(&SHR6.plus(&IDENTITY), out),
    ]
}

/// [`l_terms`] on the AES-field inverse (`gf2p8affineinv`).
pub(super) const GFNI_L_TERMS: [Affine; 3] = l_terms(&AES_INVERSE_TO_SM4);
/// [`l_terms`] on the AES S-box output (`aesenclast`).
pub(super) const AESNI_L_TERMS: [Affine; 3] = l_terms(&AES_SBOX_TO_SM4);

/// The byte-wise maps `[T0, T1]` of the eight-lane AVX2 path (`x86_64/avx2.rs`): with `h` the
/// AES S-box output, `Mx·L(S(x)) = T0(h) ^ rot8(T1(h)) ^ rot16(T1(h)) ^ rot24(T0(h) ^ T1(h))`.
/// [`AESNI_L_TERMS`]' third map is the sum of its first two (`N3 = N0 + N1`), so two tables
/// give all three terms. Its constant moves from `T0` to `T1`: `T1` enters three times, so the
/// sum keeps it once, and being the same in every byte it is not moved by the rotations.
pub(super) const WIDE_L_TERMS: [Affine; 2] = {
    let [term_0, term_1, _] = AESNI_L_TERMS;
    [
        term_0.linear_part(),
        Affine {
            rows: term_1.rows,
            constant: term_0.constant,
        },
    ]
};

/// The one-block round keys of both SIMD backends: entry i is `[rk~_i, rk~_i ^ rk~_(i+1)]`
/// (`rk~_32 = 0`), with `rk~_i = Mx·rk_i + phi(0xD3)` byte-wise, so that
/// `x~1 ^ x~2 ^ x~3 ^ rk~` is the AES-field input of the S-box when `x~ = Mx·x`.
pub(crate) fn one_block_keys(round_keys: &RoundKeys) -> BlockKeys {
    let mut transformed = round_keys
        .map(|rk| u32::from_le_bytes(rk.to_le_bytes().map(|byte| SM4_TO_AES_FIELD.apply(byte))));
    let mut keys = [[0u32; 2]; ROUNDS];
    for (i, entry) in keys.iter_mut().enumerate() {
        let next = transformed.get(i + 1).copied().unwrap_or(0);
        *entry = [transformed[i], transformed[i] ^ next];
    }
    transformed.zeroize();
    keys
}

/// Splits 16 bytes into the (high, low) little-endian halves `_mm_set_epi64x` takes.
pub(super) const fn halves(bytes: [u8; 16]) -> (i64, i64) {
    let mut low = [0u8; 8];
    let mut high = [0u8; 8];
    let mut i = 0;
    while i < 8 {
        low[i] = bytes[i];
        high[i] = bytes[8 + i];
        i += 1;
    }
    (i64::from_le_bytes(high), i64::from_le_bytes(low))
}

/// `pshufb` control that byte-swaps each 32-bit word: SM4 words are big-endian (GB/T 32907, 5.1).
pub(super) const BSWAP_WORDS: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];

#[cfg(test)]
mod tests {
    use super::*;

    /// Multiplication in the AES field GF(2^8)/0x11B (FIPS 197, 4.2).
    fn aes_field_mul(mut a: u8, mut b: u8) -> u8 {
        let mut product = 0;
        while b != 0 {
            if b & 1 != 0 {
                product ^= a;
            }
            a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
            b >>= 1;
        }
        product
    }

    fn aes_field_inv(a: u8) -> u8 {
        (0..254).fold(1, |acc, _| aes_field_mul(acc, a))
    }

    /// AES SubBytes (FIPS 197, 5.1.1).
    fn aes_sbox(y: u8) -> u8 {
        const M_AES: Affine = Affine {
            rows: [0xf1, 0xe3, 0xc7, 0x8f, 0x1f, 0x3e, 0x7c, 0xf8],
            constant: 0x63,
        };
        M_AES.apply(aes_field_inv(y))
    }

    fn sm4_sbox(x: u8) -> u8 {
        crate::sm4::soft::tau(u32::from(x)) as u8
    }

    #[test]
    fn aes_sbox_model_matches_fips197() {
        assert_eq!(aes_sbox(0x00), 0x63);
        assert_eq!(aes_sbox(0x53), 0xed);
    }

    #[test]
    fn gfni_decomposition_gives_sm4_sbox() {
        for x in 0..=255u8 {
            let inverse = aes_field_inv(SM4_TO_AES_FIELD.apply(x));
            assert_eq!(AES_INVERSE_TO_SM4.apply(inverse), sm4_sbox(x), "{x:#04x}");
        }
    }

    /// The one-block paths' round function, modelled byte by byte: with the state in the `Mx`
    /// domain, the terms applied to the hardware result (and byte rotations) give `Mx·L(S(x))`.
    #[test]
    fn l_terms_give_the_round_function() {
        let bytewise =
            |map: &Affine, word: u32| u32::from_le_bytes(word.to_le_bytes().map(|b| map.apply(b)));
        let to_aes = SM4_TO_AES_FIELD.linear_part();
        let terms_of = |[t0, t1, t3]: &[Affine; 3], h: u32| {
            bytewise(t0, h)
                ^ bytewise(t1, h).rotate_left(8)
                ^ bytewise(t1, h).rotate_left(16)
                ^ bytewise(t3, h).rotate_left(24)
        };
        let mut x = 0x0123_4567_u32;
        for _ in 0..2000 {
            // Pseudo-random words (xorshift).
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let tau = crate::sm4::soft::tau(x);
            let l = tau
                ^ tau.rotate_left(2)
                ^ tau.rotate_left(10)
                ^ tau.rotate_left(18)
                ^ tau.rotate_left(24);
            let expected = bytewise(&to_aes, l);
            let y = bytewise(&SM4_TO_AES_FIELD, x).to_le_bytes();
            let inverse = u32::from_le_bytes(y.map(aes_field_inv));
            assert_eq!(terms_of(&GFNI_L_TERMS, inverse), expected, "{x:#010x}");
            let sbox = u32::from_le_bytes(y.map(aes_sbox));
            assert_eq!(terms_of(&AESNI_L_TERMS, sbox), expected, "{x:#010x}");
            let [wide_0, wide_1] = &WIDE_L_TERMS;
            let (t0, t1) = (bytewise(wide_0, sbox), bytewise(wide_1, sbox));
            let wide = t0 ^ t1.rotate_left(8) ^ t1.rotate_left(16) ^ (t0 ^ t1).rotate_left(24);
            assert_eq!(wide, expected, "{x:#010x}");
        }
        let inverse = SM4_TO_AES_FIELD.inverse_linear();
        for b in 0..=255u8 {
            assert_eq!(inverse.apply(to_aes.apply(b)), b);
        }
    }

    #[test]
    fn aesni_decomposition_gives_sm4_sbox() {
        let (low_in, high_in) = (
            SM4_TO_AES_FIELD.low_nibble_table(),
            SM4_TO_AES_FIELD.high_nibble_table(),
        );
        let (low_out, high_out) = (
            AES_SBOX_TO_SM4.low_nibble_table(),
            AES_SBOX_TO_SM4.high_nibble_table(),
        );
        for x in 0..=255u8 {
            let y = low_in[usize::from(x & 15)] ^ high_in[usize::from(x >> 4)];
            let z = aes_sbox(y);
            let s = low_out[usize::from(z & 15)] ^ high_out[usize::from(z >> 4)];
            assert_eq!(s, sm4_sbox(x), "{x:#04x}");
        }
    }
}
