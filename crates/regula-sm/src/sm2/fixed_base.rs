//! Constant-time `[k]G` for secret `k` (signing, key generation, encryption's `C1`, the key
//! exchange's ephemeral point).
//!
//! Fixed-base windowing with signed radix-2^5 digits (|d| ≤ 16): `k = Σ d_i·2^(5i)`, so
//! `[k]G = Σ [d_i](2^(5i)G)`, read from a table of affine multiples `j·2^(5i)G` (j = 1…16)
//! computed once: 52 complete mixed additions and no doubling. The addition is Algorithm 5 of
//! Renes, Costello and Batina, "Complete addition formulas for prime order elliptic curves"
//! (EUROCRYPT 2016, a = -3), which has no exceptional case to branch on. Each table read
//! touches all 16 entries of its row with constant-time selection, the digit recoding has no
//! secret-dependent branch or index, and the final inversion is a fixed Fermat exponentiation.
//! Field arithmetic is the `sm2` crate's (fiat-crypto, constant-time).

use std::sync::OnceLock;

use sm2::elliptic_curve::Group;
use sm2::elliptic_curve::ff::PrimeField;
use sm2::elliptic_curve::group::Curve;
use sm2::elliptic_curve::hazmat::FieldArithmetic;
use sm2::elliptic_curve::subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use super::{AffinePoint, CURVE_B, ProjectivePoint, SCALAR_LEN, Scalar, coordinates};

type Fe = <sm2::Sm2 as FieldArithmetic>::FieldElement;

const WIDTH: usize = 5;
/// 52 digits of 5 bits cover 260 bits; the top one absorbs the last carry.
const DIGITS: usize = 52;
/// Multiples 1…16 of each row's base.
const ROW: usize = 16;

struct Table {
    rows: Vec<[(Fe, Fe); ROW]>,
    b: Fe,
}

fn fe(bytes: &[u8; SCALAR_LEN]) -> Fe {
    // Coordinates of valid points and b are below p.
    Option::from(Fe::from_repr((*bytes).into())).unwrap_or(Fe::ZERO)
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut projective = Vec::with_capacity(DIGITS * ROW);
        let mut base = ProjectivePoint::GENERATOR;
        for _ in 0..DIGITS {
            let mut multiple = base;
            for _ in 0..ROW {
                projective.push(multiple);
                multiple += base;
            }
            for _ in 0..WIDTH {
                base = base.double();
            }
        }
        let mut affine = vec![AffinePoint::IDENTITY; projective.len()];
        ProjectivePoint::batch_normalize(&projective, &mut affine);
        let rows = affine
            .chunks_exact(ROW)
            .map(|row| {
                core::array::from_fn(|index| {
                    let (x, y) = coordinates(&row[index]);
                    (fe(&x), fe(&y))
                })
            })
            .collect();
        Table {
            rows,
            b: fe(&CURVE_B),
        }
    })
}

/// Homogeneous projective (X : Y : Z) for (X/Z, Y/Z); the identity is (0 : 1 : 0).
struct Projective {
    x: Fe,
    y: Fe,
    z: Fe,
}

impl Drop for Projective {
    fn drop(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.z.zeroize();
    }
}

/// `p + (x2, y2)` by Renes–Costello–Batina Algorithm 5 (a = -3); complete for any `p` and any
/// affine point (x2, y2) of the curve.
fn add_mixed(p: &Projective, x2: &Fe, y2: &Fe, b: &Fe) -> Projective {
    let t0 = p.x * x2;
    let t1 = p.y * y2;
    let t3 = (*x2 + y2) * (p.x + p.y) - (t0 + t1);
    let t4 = *y2 * p.z + p.y;
    let y3 = *x2 * p.z + p.x;
    let x3 = y3 - *b * p.z;
    let x3 = x3.double() + x3;
    let z3 = t1 - x3;
    let x3 = t1 + x3;
    let t2 = p.z.double() + p.z;
    let y3 = *b * y3 - t2 - t0;
    let y3 = y3.double() + y3;
    let t0 = t0.double() + t0 - t2;
    Projective {
        x: t3 * x3 - t4 * y3,
        y: x3 * z3 + t0 * y3,
        z: t4 * z3 + t3 * t0,
    }
}

/// Signed radix-2^5 digits of `k`, least significant first, each in [-16, 15] (the top one in
/// [0, 2]). Branch-free: `k` is secret.
fn recode(k: &Scalar) -> [i8; DIGITS] {
    let mut big_endian: [u8; 32] = k.to_repr().into();
    // Little-endian with two bytes of padding for the last window.
    let mut bytes = [0u8; 34];
    for (index, byte) in big_endian.iter().rev().enumerate() {
        bytes[index] = *byte;
    }
    let mut digits = [0i8; DIGITS];
    let mut carry = 0u16;
    for (index, digit) in digits.iter_mut().enumerate() {
        let bit = index * WIDTH;
        let pair = u16::from(bytes[bit / 8]) | (u16::from(bytes[bit / 8 + 1]) << 8);
        let raw = ((pair >> (bit % 8)) & 0x1f) + carry;
        // raw ≥ 16 becomes raw - 32 with a carry into the next window.
        carry = (raw + 16) >> 5;
        // raw - 32·carry lies in [-16, 15]: the casts only reinterpret the low byte.
        *digit = (raw.wrapping_sub(carry << 5)) as u8 as i8;
    }
    big_endian.zeroize();
    bytes.zeroize();
    digits
}

/// `[k]G` in homogeneous projective coordinates, constant-time.
fn mul(k: &Scalar) -> Projective {
    let table = table();
    let mut digits = recode(k);
    let mut acc = Projective {
        x: Fe::ZERO,
        y: Fe::ONE,
        z: Fe::ZERO,
    };
    for (row, digit) in table.rows.iter().zip(digits.iter()) {
        let negative = Choice::from(((*digit as u8) >> 7) & 1);
        let magnitude = digit.unsigned_abs();
        // Entry 1 stands in for a zero digit; its sum is then discarded by the selection below.
        let (mut x, mut y) = row[0];
        for (index, entry) in (1u8..).zip(row.iter()) {
            let chosen = magnitude.ct_eq(&index);
            x.conditional_assign(&entry.0, chosen);
            y.conditional_assign(&entry.1, chosen);
        }
        y.conditional_assign(&-y, negative);
        let sum = add_mixed(&acc, &x, &y, &table.b);
        let keep = magnitude.ct_eq(&0);
        acc.x = Fe::conditional_select(&sum.x, &acc.x, keep);
        acc.y = Fe::conditional_select(&sum.y, &acc.y, keep);
        acc.z = Fe::conditional_select(&sum.z, &acc.z, keep);
        x.zeroize();
        y.zeroize();
    }
    digits.zeroize();
    acc
}

/// `z^(p-2)`: 1/z for z ≠ 0 (0 for 0) by a fixed addition chain, 256 squarings and 15
/// multiplications. p - 2 in binary is 1^31 0 1^128 0^32 1^62 0 1.
fn invert(z: &Fe) -> Fe {
    let square_times = |mut value: Fe, times: usize| {
        for _ in 0..times {
            value = value.square();
        }
        value
    };
    // x_k = z^(2^k - 1)
    let x1 = *z;
    let x2 = x1.square() * x1;
    let x3 = x2.square() * x1;
    let x6 = square_times(x3, 3) * x3;
    let x12 = square_times(x6, 6) * x6;
    let x24 = square_times(x12, 12) * x12;
    let x30 = square_times(x24, 6) * x6;
    let x31 = x30.square() * x1;
    let x32 = x31.square() * x1;
    let mut t = x31.square();
    for _ in 0..4 {
        t = square_times(t, 32) * x32;
    }
    t = square_times(t, 32);
    t = square_times(t, 32) * x32;
    t = square_times(t, 30) * x30;
    t = t.square();
    t.square() * x1
}

/// The affine x-coordinate of `[k]G` (big-endian), for signing.
pub(crate) fn mul_by_generator_x(k: &Scalar) -> [u8; SCALAR_LEN] {
    let point = mul(k);
    (point.x * invert(&point.z)).to_repr().into()
}

/// `[k]G` as an affine point (the identity for k = 0).
pub(crate) fn mul_by_generator(k: &Scalar) -> AffinePoint {
    let point = mul(k);
    let z_inverse = invert(&point.z);
    let x: [u8; SCALAR_LEN] = (point.x * z_inverse).to_repr().into();
    let y: [u8; SCALAR_LEN] = (point.y * z_inverse).to_repr().into();
    let mut encoded = [0u8; 65];
    encoded[0] = 0x04;
    encoded[1..33].copy_from_slice(&x);
    encoded[33..].copy_from_slice(&y);
    let point = sm2::Sec1Point::from_bytes(encoded)
        .ok()
        .and_then(|encoded| {
            Option::<AffinePoint>::from(<AffinePoint as sm2::elliptic_curve::sec1::FromSec1Point<
                sm2::Sm2,
            >>::from_sec1_point(&encoded))
        })
        .unwrap_or(AffinePoint::IDENTITY);
    encoded.zeroize();
    point
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm2::{decode_hex32, reduce};

    fn scalars() -> Vec<Scalar> {
        let n_minus_1 =
            decode_hex32("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54122");
        let mut scalars = vec![
            Scalar::ONE,
            reduce(&n_minus_1),
            reduce(&[0xff; 32]),
            reduce(&[0x88; 32]),
            Scalar::from(16u64),
            Scalar::from(17u64),
            Scalar::from(1u64 << 40),
        ];
        let mut state = 0x1234_5678_9abc_def1u64;
        for _ in 0..100 {
            let mut bytes = [0u8; 32];
            for byte in bytes.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *byte = state as u8;
            }
            scalars.push(reduce(&bytes));
        }
        scalars
    }

    #[test]
    fn matches_the_crate_multiplication_on_edge_and_random_scalars() {
        for k in scalars() {
            let expected = ProjectivePoint::mul_by_generator(&k).to_affine();
            assert_eq!(mul_by_generator(&k), expected, "{:?}", k.to_repr());
            assert_eq!(mul_by_generator_x(&k), coordinates(&expected).0);
        }
        assert_eq!(mul_by_generator(&Scalar::ZERO), AffinePoint::IDENTITY);
    }

    #[test]
    fn fermat_inversion_inverts() {
        for k in scalars() {
            let z = fe(&k.to_repr().into());
            assert_eq!(invert(&z) * z, Fe::ONE);
        }
        assert_eq!(invert(&Fe::ZERO), Fe::ZERO);
    }

    #[test]
    fn digits_recompose_the_scalar() {
        for k in scalars() {
            let mut value = Scalar::ZERO;
            for digit in recode(&k).iter().rev() {
                for _ in 0..WIDTH {
                    value = value.double();
                }
                let magnitude = Scalar::from(u64::from(digit.unsigned_abs()));
                value += if *digit < 0 { -magnitude } else { magnitude };
            }
            assert_eq!(value, k);
        }
    }
}
