//! Portable, constant-time SM4.
//!
//! The S-box is computed, not looked up. The table of GB/T 32907-2016, 6.2.1 is an affine map
//! around inversion in GF(2^8): `S(x) = A·(A·x + C)^-1 + C` with the field polynomial
//! x^8+x^7+x^6+x^5+x^4+x^2+1 (0x1F5), `A` the circulant bit matrix whose first row is 0xA7 and
//! `C = 0xD3` (a published property of the SM4 S-box; here it is checked against the table by
//! the unit tests below, the standard's examples and the differential tests). The inversion is
//! x^254, computed with branch-free carry-less multiplications on eight bytes at once (SWAR: the
//! same word of two blocks in one `u64`), so no memory access or branch depends on secret data.
//! It is slow; it is the fallback.

#![deny(unsafe_code)]

use zeroize::Zeroize;

use super::{Block, RoundKeys};

/// Two SM4 words side by side: the low half belongs to one block, the high half to another.
type WordPair = u64;

/// Low seven bits of every byte.
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
/// Lowest bit of every byte.
const LSB: u64 = 0x0101_0101_0101_0101;
/// Reduction of x^8 modulo x^8+x^7+x^6+x^5+x^4+x^2+1: x^7+x^6+x^5+x^4+x^2+1 (0xF5).
const REDUCTION: u64 = 0xf5;
/// The affine constant C of the S-box decomposition, in every byte.
const AFFINE_CONSTANT: u64 = 0xd3d3_d3d3_d3d3_d3d3;

/// Multiplies every byte by x in GF(2^8) mod 0x1F5.
#[inline(always)]
fn times_x(a: u64) -> u64 {
    // Each byte's top bit selects the reduction; 0x01 * 0xF5 stays inside its byte.
    ((a & LOW7) << 1) ^ (((a >> 7) & LSB) * REDUCTION)
}

/// Byte-wise product in GF(2^8) mod 0x1F5, eight lanes at once, without branches.
#[inline(always)]
fn gf_mul(mut a: u64, b: u64) -> u64 {
    let mut product = 0;
    for bit in 0..8 {
        // 0xFF in each byte whose `bit` is set in `b`, else 0x00.
        let mask = ((b >> bit) & LSB) * 0xff;
        product ^= a & mask;
        a = times_x(a);
    }
    product
}

/// Column j of the squaring map: (x^j)^2 = x^(2j) reduced mod 0x1F5. Squaring is linear over
/// GF(2), so it is cheaper as a matrix than as a general product.
const SQUARE_COLUMNS: [u64; 8] = {
    let mut columns = [0u64; 8];
    let mut j = 0;
    while j < 8 {
        // x^(2j) by repeated multiplication by x, reducing with 0xF5 when bit 8 appears.
        let mut value: u64 = 1;
        let mut k = 0;
        while k < 2 * j {
            value <<= 1;
            if value & 0x100 != 0 {
                value = (value & 0xff) ^ REDUCTION;
            }
            k += 1;
        }
        columns[j] = value;
        j += 1;
    }
    columns
};

/// Byte-wise square in GF(2^8) mod 0x1F5.
#[inline(always)]
fn gf_square(x: u64) -> u64 {
    let mut square = 0;
    for (bit, column) in SQUARE_COLUMNS.iter().enumerate() {
        // Bit `bit` of each byte (0 or 1) times a byte-sized column stays inside its byte.
        square ^= ((x >> bit) & LSB) * column;
    }
    square
}

/// Byte-wise inverse (0 maps to 0): x^254, by 7 squarings and 4 products.
#[inline(always)]
fn gf_inv(x: u64) -> u64 {
    let x2 = gf_square(x);
    let x3 = gf_mul(x2, x);
    let x12 = gf_square(gf_square(x3));
    let x15 = gf_mul(x12, x3);
    let x240 = gf_square(gf_square(gf_square(gf_square(x15))));
    let x252 = gf_mul(x240, x12);
    gf_mul(x252, x2)
}

/// Rotates every byte right by `k` (1..=7) bits.
#[inline(always)]
fn rotate_bytes_right(x: u64, k: u32) -> u64 {
    let low_mask = (0xff >> k) * LSB;
    ((x >> k) & low_mask) | ((x << (8 - k)) & !low_mask)
}

/// The matrix A (first row 0xA7, each next row rotated left by one) applied to every byte:
/// output bit i is the parity of row_i & x, i.e. x ^ (x >>> 1) ^ (x >>> 2) ^ (x >>> 5) ^ (x >>> 7).
#[inline(always)]
fn affine_matrix(x: u64) -> u64 {
    x ^ rotate_bytes_right(x, 1)
        ^ rotate_bytes_right(x, 2)
        ^ rotate_bytes_right(x, 5)
        ^ rotate_bytes_right(x, 7)
}

/// The S-box on all eight bytes.
#[inline(always)]
fn sbox(x: u64) -> u64 {
    affine_matrix(gf_inv(affine_matrix(x) ^ AFFINE_CONSTANT)) ^ AFFINE_CONSTANT
}

/// The nonlinear transform tau: the S-box on each byte of a word (GB/T 32907-2016, 6.2.1).
#[inline]
pub(crate) fn tau(word: u32) -> u32 {
    sbox(u64::from(word)) as u32
}

/// Rotates both 32-bit halves left by `k` (1..=31) bits.
#[inline(always)]
fn rotate_halves_left(x: WordPair, k: u32) -> WordPair {
    let high_bits = (0xffff_ffff_u64 << k) & 0xffff_ffff;
    let high_bits = high_bits | (high_bits << 32);
    ((x << k) & high_bits) | ((x >> (32 - k)) & !high_bits)
}

/// The linear transform L on both halves (GB/T 32907-2016, 6.2.2):
/// B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24).
#[inline(always)]
fn linear(b: WordPair) -> WordPair {
    b ^ rotate_halves_left(b, 2)
        ^ rotate_halves_left(b, 10)
        ^ rotate_halves_left(b, 18)
        ^ rotate_halves_left(b, 24)
}

fn load_word(bytes: &[u8]) -> u64 {
    u64::from(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// One or two blocks through the 32 rounds and the reverse transform R
/// (GB/T 32907-2016, 7.1), the second block in the high halves.
fn crypt_one_or_two(round_keys: &RoundKeys, blocks: &mut [Block]) {
    debug_assert!(matches!(blocks.len(), 1 | 2));
    let mut x = [0u64; 4];
    for (b, block) in blocks.iter().enumerate() {
        for (word, bytes) in x.iter_mut().zip(block.chunks_exact(4)) {
            *word |= load_word(bytes) << (32 * b);
        }
    }
    for &rk in round_keys {
        let rk = u64::from(rk) * 0x1_0000_0001;
        let next = x[0] ^ linear(sbox(x[1] ^ x[2] ^ x[3] ^ rk));
        x = [x[1], x[2], x[3], next];
    }
    for (b, block) in blocks.iter_mut().enumerate() {
        for (bytes, word) in block.chunks_exact_mut(4).zip(x.iter().rev()) {
            bytes.copy_from_slice(&((word >> (32 * b)) as u32).to_be_bytes());
        }
    }
    x.zeroize();
}

/// Encrypts (or, with reversed round keys, decrypts) every block in place, two at a time.
pub(crate) fn crypt_blocks(round_keys: &RoundKeys, blocks: &mut [Block]) {
    for pair in blocks.chunks_mut(2) {
        crypt_one_or_two(round_keys, pair);
    }
}

/// XORs the CTR keystream E(counter), E(counter + 1), ... into `blocks`.
pub(crate) fn ctr_xor_blocks(round_keys: &RoundKeys, mut counter: u128, blocks: &mut [Block]) {
    for pair in blocks.chunks_mut(2) {
        let mut keystream = [counter.to_be_bytes(), counter.wrapping_add(1).to_be_bytes()];
        crypt_one_or_two(round_keys, &mut keystream[..pair.len()]);
        for (block, key) in pair.iter_mut().zip(keystream.iter()) {
            for (byte, key_byte) in block.iter_mut().zip(key) {
                *byte ^= key_byte;
            }
        }
        keystream.zeroize();
        counter = counter.wrapping_add(pair.len() as u128);
    }
}

/// CBC decryption (NIST SP 800-38A, 6.2): P_i = D(C_i) ^ C_(i-1), C_(-1) = `iv`, with the
/// decryption round keys.
pub(crate) fn cbc_decrypt_blocks(round_keys: &RoundKeys, iv: &Block, blocks: &mut [Block]) {
    let mut previous = *iv;
    for pair in blocks.chunks_mut(2) {
        let mut ciphertext = [[0u8; 16]; 2];
        ciphertext[..pair.len()].copy_from_slice(pair);
        crypt_one_or_two(round_keys, pair);
        let masks = [previous, ciphertext[0]];
        for (block, mask) in pair.iter_mut().zip(&masks) {
            for (byte, mask_byte) in block.iter_mut().zip(mask) {
                *byte ^= mask_byte;
            }
        }
        previous = ciphertext[pair.len() - 1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// First row of the S-box table (GB/T 32907-2016, 6.2.1).
    const SBOX_ROW_0: [u8; 16] = [
        0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c,
        0x05,
    ];

    #[test]
    fn sbox_first_row_matches_table() {
        for (input, expected) in SBOX_ROW_0.iter().enumerate() {
            let word = u32::from_be_bytes([input as u8; 4]);
            assert_eq!(
                tau(word),
                u32::from_be_bytes([*expected; 4]),
                "S({input:#04x})"
            );
        }
    }

    #[test]
    fn sbox_is_a_permutation() {
        let mut seen = [false; 256];
        for input in 0..=255u8 {
            let output = tau(u32::from(input)) as u8;
            assert!(!seen[usize::from(output)]);
            seen[usize::from(output)] = true;
        }
    }

    #[test]
    fn gf_square_matches_product() {
        for a in 0..=255u64 {
            assert_eq!(gf_square(a), gf_mul(a, a), "{a:#04x}");
        }
    }

    #[test]
    fn halves_rotate_independently() {
        let x = 0x8000_0001_1234_5678_u64;
        for k in 1..32 {
            let expected = (u64::from(0x8000_0001_u32.rotate_left(k)) << 32)
                | u64::from(0x1234_5678_u32.rotate_left(k));
            assert_eq!(rotate_halves_left(x, k), expected, "{k}");
        }
    }

    #[test]
    fn gf_inverse_is_inverse() {
        for a in 1..=255u64 {
            assert_eq!(gf_mul(a, gf_inv(a)), 1, "{a:#04x}");
        }
    }
}
