//! Variable-time `[u1]G + [u2]P` for signature verification, where every input is public.
//!
//! Interleaved width-w NAF (Hankerson, Menezes, Vanstone, "Guide to Elliptic Curve
//! Cryptography", Alg. 3.51 with the joint loop of §3.3.3): odd multiples of G come from a table
//! of affine points computed once (w = 8), odd multiples of P from a per-call Jacobian table
//! (w = 5). Jacobian coordinates with an a = -3 doubling (4M + 4S) replace the complete
//! projective formulas the constant-time code uses, and the final comparison is done without
//! an inversion. Field arithmetic is [`super::field`], specialised to p: its reduction and
//! additions are cheaper than those of the `sm2` crate's generic Montgomery code, which
//! dominated verification time.
//!
//! Never use this with a secret scalar or point: its running time depends on both.

use std::sync::OnceLock;

use sm2::elliptic_curve::Group;
use sm2::elliptic_curve::group::Curve;

use super::field::FieldElement as Fe;
use super::{AffinePoint, ProjectivePoint, PublicKey, SCALAR_LEN, coordinates, decode_hex32};

/// Window width for the fixed base G: 64 precomputed odd multiples (1, 3, …, 127).
const G_WINDOW: u32 = 8;
/// Window width for the variable point P: 8 odd multiples (1, 3, …, 15).
const P_WINDOW: u32 = 5;

/// p - n, to know when x ≡ r - e (mod n) has a second representative below p.
const P_MINUS_N: [u8; 32] =
    decode_hex32("000000000000000000000000000000008DFC2093DE39FAD5AC440BF6C62ABEDC");
const N: [u8; 32] =
    decode_hex32("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");

#[derive(Clone, Copy)]
struct Affine {
    x: Fe,
    y: Fe,
}

/// (X, Y, Z) stands for (X/Z², Y/Z³); Z = 0 is the point at infinity.
#[derive(Clone, Copy)]
struct Jacobian {
    x: Fe,
    y: Fe,
    z: Fe,
}

fn fe(bytes: &[u8; 32]) -> Option<Fe> {
    Fe::from_bytes(bytes)
}

fn affine(point: &AffinePoint) -> Option<Affine> {
    let (x, y) = coordinates(point);
    Some(Affine {
        x: fe(&x)?,
        y: fe(&y)?,
    })
}

impl Jacobian {
    const INFINITY: Jacobian = Jacobian {
        x: Fe::ONE,
        y: Fe::ONE,
        z: Fe::ZERO,
    };

    fn from_affine(point: &Affine) -> Jacobian {
        Jacobian {
            x: point.x,
            y: point.y,
            z: Fe::ONE,
        }
    }

    fn is_infinity(&self) -> bool {
        self.z.is_zero()
    }

    fn neg(&self) -> Jacobian {
        Jacobian {
            y: self.y.neg(),
            ..*self
        }
    }

    /// Doubling for a = -3 in 4M + 4S and a halving (Hankerson, Menezes, Vanstone, "Guide to
    /// Elliptic Curve Cryptography", Alg. 3.21; the EFD lists it among the a = -3 Jacobian
    /// doublings). It computes what EFD dbl-2001-b does, but from 2·Y1, so that Z3 = 2·Y1·Z1 is
    /// one multiplication and 8·Y1⁴ is half of (4·Y1²)²: fewer additions, which matter once
    /// multiplications are cheap. The curve has prime order, so no point has Y = 0.
    fn double(&self) -> Jacobian {
        if self.is_infinity() {
            return *self;
        }
        let delta = self.z.square();
        let alpha = self.x.sub(&delta).mul(&self.x.add(&delta));
        let alpha = alpha.double().add(&alpha); // 3·(X1 - Z1²)·(X1 + Z1²)
        let y2 = self.y.double();
        let z = y2.mul(&self.z);
        let y2_squared = y2.square(); // 4·Y1²
        let beta4 = self.x.mul(&y2_squared); // 4·X1·Y1²
        let x = alpha.square().sub(&beta4.double());
        let y = alpha.mul(&beta4.sub(&x)).sub(&y2_squared.square().halve()); // 8·Y1⁴
        Jacobian { x, y, z }
    }

    /// madd-2007-bl: self + (x2, y2), with the exceptional cases handled.
    fn add_affine(&self, other: &Affine) -> Jacobian {
        if self.is_infinity() {
            return Jacobian::from_affine(other);
        }
        let z1z1 = self.z.square();
        let u2 = other.x.mul(&z1z1);
        let s2 = other.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&self.x);
        let r = s2.sub(&self.y).double();
        if h.is_zero() {
            return if r.is_zero() {
                self.double()
            } else {
                Jacobian::INFINITY
            };
        }
        let hh = h.square();
        let i = hh.double().double();
        let j = h.mul(&i);
        let v = self.x.mul(&i);
        let x = r.square().sub(&j).sub(&v.double());
        let y = r.mul(&v.sub(&x)).sub(&self.y.mul(&j).double());
        let z = self.z.add(&h).square().sub(&z1z1).sub(&hh);
        Jacobian { x, y, z }
    }

    /// add-2007-bl: self + other, with the exceptional cases handled.
    fn add(&self, other: &Jacobian) -> Jacobian {
        if self.is_infinity() {
            return *other;
        }
        if other.is_infinity() {
            return *self;
        }
        let z1z1 = self.z.square();
        let z2z2 = other.z.square();
        let u1 = self.x.mul(&z2z2);
        let u2 = other.x.mul(&z1z1);
        let s1 = self.y.mul(&other.z).mul(&z2z2);
        let s2 = other.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&u1);
        let r = s2.sub(&s1).double();
        if h.is_zero() {
            return if r.is_zero() {
                self.double()
            } else {
                Jacobian::INFINITY
            };
        }
        let i = h.double().square();
        let j = h.mul(&i);
        let v = u1.mul(&i);
        let x = r.square().sub(&j).sub(&v.double());
        let y = r.mul(&v.sub(&x)).sub(&s1.mul(&j).double());
        let z = self.z.add(&other.z).square().sub(&z1z1).sub(&z2z2).mul(&h);
        Jacobian { x, y, z }
    }
}

/// Odd multiples G, 3G, …, (2^(G_WINDOW-1) - 1)G in affine form, computed on first use.
fn g_table() -> &'static [Affine] {
    static TABLE: OnceLock<Vec<Affine>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let count = 1usize << (G_WINDOW - 2);
        let g = ProjectivePoint::GENERATOR;
        let g2 = g.double();
        let mut projective = Vec::with_capacity(count);
        let mut multiple = g;
        for _ in 0..count {
            projective.push(multiple);
            multiple += g2;
        }
        let mut normalized = vec![AffinePoint::IDENTITY; count];
        ProjectivePoint::batch_normalize(&projective, &mut normalized);
        // Multiples of G below n are never the point at infinity.
        normalized.iter().filter_map(affine).collect()
    })
}

/// Width-w NAF of a 256-bit big-endian integer, least significant digit first: every non-zero
/// digit is odd and below 2^(w-1) in magnitude, and any w consecutive digits hold at most one
/// non-zero.
fn wnaf(scalar: &[u8; SCALAR_LEN], width: u32) -> [i8; 257] {
    let mut limbs = [0u64; 5];
    for (index, chunk) in scalar.rchunks_exact(8).enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        limbs[index] = u64::from_be_bytes(word);
    }
    let mut digits = [0i8; 257];
    let window = 1i64 << width;
    for digit in digits.iter_mut() {
        if limbs.iter().all(|&limb| limb == 0) {
            break;
        }
        if limbs[0] & 1 == 1 {
            let mut value = (limbs[0] & (window as u64 - 1)) as i64;
            if value >= window / 2 {
                value -= window;
            }
            // value fits in i8 for widths up to 8.
            *digit = value as i8;
            if value > 0 {
                sub_small(&mut limbs, value as u64);
            } else {
                add_small(&mut limbs, value.unsigned_abs());
            }
        }
        // limbs >>= 1
        for index in 0..limbs.len() {
            let next = limbs.get(index + 1).copied().unwrap_or(0);
            limbs[index] = (limbs[index] >> 1) | (next << 63);
        }
    }
    digits
}

fn sub_small(limbs: &mut [u64; 5], value: u64) {
    let mut borrow = value;
    for limb in limbs.iter_mut() {
        let (result, overflow) = limb.overflowing_sub(borrow);
        *limb = result;
        borrow = u64::from(overflow);
        if borrow == 0 {
            break;
        }
    }
}

fn add_small(limbs: &mut [u64; 5], value: u64) {
    let mut carry = value;
    for limb in limbs.iter_mut() {
        let (result, overflow) = limb.overflowing_add(carry);
        *limb = result;
        carry = u64::from(overflow);
        if carry == 0 {
            break;
        }
    }
}

fn joint_mul(u1: &[u8; SCALAR_LEN], u2: &[u8; SCALAR_LEN], point: &PublicKey) -> Option<Jacobian> {
    let g_table = g_table();
    let base = Jacobian::from_affine(&affine(point.point())?);
    let twice = base.double();
    let mut p_table = [base; 1 << (P_WINDOW - 2)];
    for index in 1..p_table.len() {
        p_table[index] = p_table[index - 1].add(&twice);
    }
    let g_digits = wnaf(u1, G_WINDOW);
    let p_digits = wnaf(u2, P_WINDOW);
    let mut acc = Jacobian::INFINITY;
    for index in (0..257).rev() {
        acc = acc.double();
        let digit = g_digits[index];
        if digit != 0 {
            let entry = g_table.get(usize::from(digit.unsigned_abs() / 2))?;
            acc = if digit > 0 {
                acc.add_affine(entry)
            } else {
                acc.add_affine(&Affine {
                    x: entry.x,
                    y: entry.y.neg(),
                })
            };
        }
        let digit = p_digits[index];
        if digit != 0 {
            let entry = p_table[usize::from(digit.unsigned_abs() / 2)];
            acc = acc.add(&if digit > 0 { entry } else { entry.neg() });
        }
    }
    Some(acc)
}

/// Whether the x-coordinate of `[u1]G + [u2]P`, reduced mod n, equals `target` (an integer
/// below n, big-endian). False for the point at infinity. Compares `X = x·Z²` for both
/// representatives `x = target` and `x = target + n` (when below p), avoiding an inversion.
pub(crate) fn joint_mul_x_matches(
    u1: &[u8; SCALAR_LEN],
    u2: &[u8; SCALAR_LEN],
    point: &PublicKey,
    target: &[u8; SCALAR_LEN],
) -> bool {
    let Some(result) = joint_mul(u1, u2, point) else {
        return false;
    };
    if result.is_infinity() {
        return false;
    }
    let z2 = result.z.square();
    let Some(candidate) = fe(target) else {
        return false;
    };
    if candidate.mul(&z2) == result.x {
        return true;
    }
    // Big-endian byte order compares like the integers.
    if *target < P_MINUS_N
        && let Some(n) = fe(&N)
    {
        return candidate.add(&n).mul(&z2) == result.x;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm2::{PrivateKey, Scalar, reduce};
    use sm2::elliptic_curve::ff::PrimeField;
    use sm2::elliptic_curve::ops::MulByGeneratorVartime;

    fn to_affine_x(point: &Jacobian) -> [u8; 32] {
        point.x.mul(&point.z.invert().square()).to_bytes()
    }

    fn pseudo_random(seed: u64) -> [u8; 32] {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut out = [0u8; 32];
        for byte in out.iter_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *byte = state as u8;
        }
        out
    }

    #[test]
    fn wnaf_digits_recompose_the_scalar() {
        for seed in 0..200 {
            let mut scalar = pseudo_random(seed);
            if seed == 0 {
                scalar = [0xff; 32];
            }
            for width in [P_WINDOW, G_WINDOW] {
                let digits = wnaf(&scalar, width);
                // Horner evaluation modulo n through the scalar field.
                let mut value = Scalar::ZERO;
                for digit in digits.iter().rev() {
                    value = value.double();
                    let magnitude = Scalar::from(u64::from(digit.unsigned_abs()));
                    value += if *digit < 0 { -magnitude } else { magnitude };
                    assert!(*digit == 0 || digit % 2 != 0);
                    assert!(i32::from(digit.unsigned_abs()) < 1 << (width - 1));
                }
                assert_eq!(value, reduce(&scalar), "width {width}");
            }
        }
    }

    #[test]
    fn joint_multiplication_matches_the_constant_time_arithmetic() {
        for seed in 0..64u64 {
            let key = PrivateKey::from_bytes(&reduce(&pseudo_random(seed + 1000)).to_repr())
                .unwrap_or_else(|_| PrivateKey::from_bytes(&[1; 32]).unwrap());
            let mut u1 = reduce(&pseudo_random(seed)).to_repr().into();
            let mut u2: [u8; 32] = reduce(&pseudo_random(seed + 500)).to_repr().into();
            // Edge cases: zero or tiny scalars, and u2 = u1 with P = G.
            match seed {
                0 => u1 = [0; 32],
                1 => u2 = [0; 32],
                2 => {
                    u1 = [0; 32];
                    u1[31] = 1;
                    u2 = u1;
                }
                _ => {}
            }
            let expected = ProjectivePoint::mul_by_generator_and_mul_add_vartime(
                &reduce(&u1),
                &reduce(&u2),
                &ProjectivePoint::from(*key.public_key().point()),
            );
            let actual = joint_mul(&u1, &u2, key.public_key()).unwrap();
            let expected_x = coordinates(&expected.to_affine()).0;
            assert_eq!(to_affine_x(&actual), expected_x, "seed {seed}");
            let target = reduce(&expected_x).to_repr().into();
            assert!(joint_mul_x_matches(&u1, &u2, key.public_key(), &target));
        }
        // P = G and u1 = -u2: the sum is the point at infinity.
        let one = PrivateKey::from_bytes(&{
            let mut one = [0u8; 32];
            one[31] = 1;
            one
        })
        .unwrap();
        let u1: [u8; 32] = (-Scalar::ONE).to_repr().into();
        let mut u2 = [0u8; 32];
        u2[31] = 1;
        let result = joint_mul(&u1, &u2, one.public_key()).unwrap();
        assert!(result.is_infinity());
        assert!(!joint_mul_x_matches(&u1, &u2, one.public_key(), &[0; 32]));
    }
}
