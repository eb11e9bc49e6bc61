//! Constant-time point arithmetic on curveSM2 (y² = x³ - 3x + b) over [`super::field`], and the
//! variable-base multiplication `[k]P` for secret `k` (ECDH, the key exchange, decryption's
//! `[d]C1`, encryption's `[k]P_B`).
//!
//! Points are homogeneous projective (X : Y : Z) for (X/Z, Y/Z), the identity being (0 : 1 : 0).
//! Addition, mixed addition and doubling are Algorithms 4, 5 and 6 of Renes, Costello and
//! Batina, "Complete addition formulas for prime order elliptic curves" (EUROCRYPT 2016), for
//! a = -3: they hold for every pair of points, the identity and equal points included, so the
//! code never branches on an exceptional case.
//!
//! `[k]P` reads `k` as 52 signed radix-2^5 digits in [-16, 15] ([`recode`], branch-free) and
//! runs a fixed window from the top: five doublings and one complete addition of `[d]P` per
//! digit, 255 doublings and 52 additions whatever `k` is. The runs of five doublings are done
//! in Jacobian coordinates ([`Projective::double_times`]), whose a = -3 doubling is cheaper and
//! has no exceptional case on a prime-order curve. `[d]P` comes from a per-call table of 0…16 times
//! `P`; every read touches all 17 entries with mask selection ([`Projective::lookup`]) and
//! negates with a mask, so no secret chooses a branch or a memory address. The affine result
//! needs 1/Z, a fixed Fermat exponentiation ([`Fe::invert`]).

use zeroize::Zeroize;

use super::field::{FieldElement as Fe, mask_if_zero};
use super::{CURVE_B, PublicKey, SCALAR_LEN, Scalar, coordinates};
use sm2::elliptic_curve::ff::PrimeField;

/// Width of a signed window.
pub(crate) const WIDTH: usize = 5;
/// 52 digits of 5 bits cover 260 bits; the top one absorbs the last carry.
pub(crate) const DIGITS: usize = 52;

/// The curve coefficient b in Montgomery form.
pub(crate) fn b() -> Fe {
    // b is below p.
    Fe::from_bytes(&CURVE_B).unwrap_or(Fe::ZERO)
}

/// An affine point other than the identity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Affine {
    pub(crate) x: Fe,
    pub(crate) y: Fe,
}

impl Affine {
    /// The coordinates of a validated public key (never the identity).
    pub(crate) fn from_public(key: &PublicKey) -> Option<Affine> {
        let (x, y) = coordinates(key.point());
        Some(Affine {
            x: Fe::from_bytes(&x)?,
            y: Fe::from_bytes(&y)?,
        })
    }
}

/// Homogeneous projective (X : Y : Z); the identity is (0 : 1 : 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Projective {
    pub(crate) x: Fe,
    pub(crate) y: Fe,
    pub(crate) z: Fe,
}

impl Projective {
    pub(crate) const IDENTITY: Projective = Projective {
        x: Fe::ZERO,
        y: Fe::ONE,
        z: Fe::ZERO,
    };

    pub(crate) fn from_affine(point: &Affine) -> Projective {
        Projective {
            x: point.x,
            y: point.y,
            z: Fe::ONE,
        }
    }

    /// `self + other`, RCB Algorithm 4 (a = -3): 12M + 2 multiplications by b, complete.
    pub(crate) fn add(&self, other: &Projective, b: &Fe) -> Projective {
        let (x1, y1, z1) = (&self.x, &self.y, &self.z);
        let (x2, y2, z2) = (&other.x, &other.y, &other.z);
        let t0 = x1.mul(x2);
        let t1 = y1.mul(y2);
        let t2 = z1.mul(z2);
        // t3 = X1·Y2 + X2·Y1
        let t3 = x1.add(y1).mul(&x2.add(y2)).sub(&t0.add(&t1));
        // t4 = Y1·Z2 + Y2·Z1
        let t4 = y1.add(z1).mul(&y2.add(z2)).sub(&t1.add(&t2));
        // y3 = X1·Z2 + X2·Z1
        let y3 = x1.add(z1).mul(&x2.add(z2)).sub(&t0.add(&t2));
        let x3 = y3.sub(&b.mul(&t2));
        let x3 = x3.double().add(&x3);
        let z3 = t1.sub(&x3);
        let x3 = t1.add(&x3);
        let y3 = b.mul(&y3);
        let t2 = t2.double().add(&t2);
        let y3 = y3.sub(&t2).sub(&t0);
        let y3 = y3.double().add(&y3);
        let t0 = t0.double().add(&t0).sub(&t2);
        Projective {
            x: t3.mul(&x3).sub(&t4.mul(&y3)),
            y: x3.mul(&z3).add(&t0.mul(&y3)),
            z: t4.mul(&z3).add(&t3.mul(&t0)),
        }
    }

    /// `self + (x2, y2)` for an affine point, RCB Algorithm 5 (a = -3): 11M + 2 multiplications
    /// by b, complete for any `self`.
    pub(crate) fn add_affine(&self, other: &Affine, b: &Fe) -> Projective {
        let (x1, y1, z1) = (&self.x, &self.y, &self.z);
        let (x2, y2) = (&other.x, &other.y);
        let t0 = x1.mul(x2);
        let t1 = y1.mul(y2);
        let t3 = x2.add(y2).mul(&x1.add(y1)).sub(&t0.add(&t1));
        let t4 = y2.mul(z1).add(y1);
        let y3 = x2.mul(z1).add(x1);
        let x3 = y3.sub(&b.mul(z1));
        let x3 = x3.double().add(&x3);
        let z3 = t1.sub(&x3);
        let x3 = t1.add(&x3);
        let t2 = z1.double().add(z1);
        let y3 = b.mul(&y3).sub(&t2).sub(&t0);
        let y3 = y3.double().add(&y3);
        let t0 = t0.double().add(&t0).sub(&t2);
        Projective {
            x: t3.mul(&x3).sub(&t4.mul(&y3)),
            y: x3.mul(&z3).add(&t0.mul(&y3)),
            z: t4.mul(&z3).add(&t3.mul(&t0)),
        }
    }

    /// `2·self`, RCB Algorithm 6 (a = -3): 8M + 3S + 2 multiplications by b, complete.
    pub(crate) fn double(&self, b: &Fe) -> Projective {
        let (x, y, z) = (&self.x, &self.y, &self.z);
        let t0 = x.square();
        let t1 = y.square();
        let t2 = z.square();
        let t3 = x.mul(y).double();
        let z3 = x.mul(z).double();
        let y3 = b.mul(&t2).sub(&z3);
        let y3 = y3.double().add(&y3);
        let x3 = t1.sub(&y3);
        let y3 = t1.add(&y3);
        let y3 = x3.mul(&y3);
        let x3 = x3.mul(&t3);
        let t2 = t2.double().add(&t2);
        let z3 = b.mul(&z3).sub(&t2).sub(&t0);
        let z3 = z3.double().add(&z3);
        let t0 = t0.double().add(&t0).sub(&t2);
        let y3 = y3.add(&t0.mul(&z3));
        let t0 = y.mul(z).double();
        let x3 = x3.sub(&t0.mul(&z3));
        let z3 = t0.mul(&t1).double().double();
        Projective {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// `2^times · self`. The doublings run in Jacobian coordinates (X/Z², Y/Z³) with the a = -3
    /// doubling in 4M + 4S ([`double_jacobian`]), cheaper than Algorithm 6, converting in and
    /// out at 2M + 1S each way. That doubling has no exceptional case on this curve: the order
    /// is prime, so no point has Y = 0, and the identity, which enters as (0, 0, 0), stays
    /// (0, 0, 0); on the way out it becomes (0 : 1 : 0) again by a mask.
    pub(crate) fn double_times(&self, times: usize) -> Projective {
        // (X : Y : Z) is the Jacobian (X·Z, Y·Z², Z).
        let mut x = self.x.mul(&self.z);
        let mut y = self.y.mul(&self.z.square());
        let mut z = self.z;
        for _ in 0..times {
            (x, y, z) = double_jacobian(&x, &y, &z);
        }
        // The Jacobian (X, Y, Z) is (X·Z : Y : Z³).
        let identity = z.zero_mask();
        let mut result = Projective {
            x: x.mul(&z),
            y,
            z: z.square().mul(&z),
        };
        result.y.assign_if(identity, &Fe::ONE);
        result
    }

    /// `table[|digit|]`, negated when `digit < 0`, reading every entry (constant time in
    /// `digit`). `table` holds 0…16 times a point.
    fn lookup(table: &[Projective; 17], digit: i8) -> Projective {
        let (magnitude, negative) = magnitude_and_sign(digit);
        let mut chosen = Projective::IDENTITY;
        for (index, entry) in (0u64..).zip(table.iter()) {
            let mask = mask_if_zero(magnitude ^ index);
            chosen.x.assign_if(mask, &entry.x);
            chosen.y.assign_if(mask, &entry.y);
            chosen.z.assign_if(mask, &entry.z);
        }
        let negated = chosen.y.neg();
        chosen.y.assign_if(negative, &negated);
        chosen
    }

    /// The affine coordinates (big-endian), or `None` for the identity. Whether the result is
    /// the identity is the only thing this reveals.
    pub(crate) fn affine_coordinates(&self) -> Option<([u8; SCALAR_LEN], [u8; SCALAR_LEN])> {
        if self.z.is_zero() {
            return None;
        }
        let mut z_inverse = self.z.invert();
        let result = (
            self.x.mul(&z_inverse).to_bytes(),
            self.y.mul(&z_inverse).to_bytes(),
        );
        z_inverse.wipe();
        Some(result)
    }

    pub(crate) fn wipe(&mut self) {
        self.x.wipe();
        self.y.wipe();
        self.z.wipe();
    }
}

/// Jacobian doubling for a = -3 in 4M + 4S and a halving (Hankerson, Menezes, Vanstone,
/// "Guide to Elliptic Curve Cryptography", Alg. 3.21), computed from 2·Y1 so that
/// Z3 = 2·Y1·Z1 is one multiplication and 8·Y1⁴ is half of (4·Y1²)². No branch: Z1 = 0 gives
/// Z3 = 0.
#[inline(always)]
fn double_jacobian(x: &Fe, y: &Fe, z: &Fe) -> (Fe, Fe, Fe) {
    let delta = z.square();
    let alpha = x.sub(&delta).mul(&x.add(&delta));
    let alpha = alpha.double().add(&alpha); // 3·(X1 - Z1²)·(X1 + Z1²)
    let y2 = y.double();
    let z3 = y2.mul(z);
    let y2_squared = y2.square(); // 4·Y1²
    let beta4 = x.mul(&y2_squared); // 4·X1·Y1²
    let x3 = alpha.square().sub(&beta4.double());
    let y3 = alpha.mul(&beta4.sub(&x3)).sub(&y2_squared.square().halve()); // 8·Y1⁴
    (x3, y3, z3)
}

/// `(|digit|, mask)` with an all-ones mask when `digit < 0`, by arithmetic only.
#[inline(always)]
pub(crate) fn magnitude_and_sign(digit: i8) -> (u64, u64) {
    let wide = i64::from(digit);
    // wide >> 63 is -1 for a negative digit, 0 otherwise; (wide ^ s) - s is |wide|.
    let sign = wide >> 63;
    let magnitude = ((wide ^ sign) - sign) as u64;
    (magnitude, core::hint::black_box(sign as u64))
}

/// Signed radix-2^5 digits of `k`, least significant first, each in [-16, 15] (the top one in
/// [0, 2]), with `k = Σ d_i·2^(5i)`. Branch-free: `k` is secret.
pub(crate) fn recode(k: &Scalar) -> [i8; DIGITS] {
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

/// `[k]P` for a secret `k` and any point `P` (the identity included), constant time in `k`.
pub(crate) fn mul(k: &Scalar, point: &Projective) -> Projective {
    let b = b();
    // 0…16 times P: even multiples by doubling, odd ones by adding P.
    let mut table = [Projective::IDENTITY; 17];
    table[1] = *point;
    for index in 2..17 {
        table[index] = if index % 2 == 0 {
            table[index / 2].double(&b)
        } else {
            table[index - 1].add(point, &b)
        };
    }
    let mut digits = recode(k);
    let mut acc = Projective::lookup(&table, digits[DIGITS - 1]);
    for digit in digits[..DIGITS - 1].iter().rev() {
        acc = acc.double_times(WIDTH);
        let mut addend = Projective::lookup(&table, *digit);
        acc = acc.add(&addend, &b);
        addend.wipe();
    }
    digits.zeroize();
    acc
}

/// `[k]Q` for a secret `k` and a public key `Q`, as affine coordinates; `None` when the
/// result is the identity (only for `k ≡ 0`).
pub(crate) fn mul_public_key(
    k: &Scalar,
    key: &PublicKey,
) -> Option<([u8; SCALAR_LEN], [u8; SCALAR_LEN])> {
    let base = Projective::from_affine(&Affine::from_public(key)?);
    let mut product = mul(k, &base);
    let result = product.affine_coordinates();
    product.wipe();
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm2::{AffinePoint, ProjectivePoint, reduce, test_scalars};
    use sm2::elliptic_curve::Group;

    fn from_reference(point: &ProjectivePoint) -> Projective {
        let affine = point.to_affine();
        if bool::from(affine.is_identity()) {
            return Projective::IDENTITY;
        }
        let (x, y) = coordinates(&affine);
        Projective::from_affine(&Affine {
            x: Fe::from_bytes(&x).unwrap(),
            y: Fe::from_bytes(&y).unwrap(),
        })
    }

    fn bytes_of(point: &ProjectivePoint) -> Option<([u8; 32], [u8; 32])> {
        let affine: AffinePoint = point.to_affine();
        (!bool::from(affine.is_identity())).then(|| coordinates(&affine))
    }

    #[test]
    fn formulas_match_the_reference_including_identity_and_equal_points() {
        let b = b();
        let g = ProjectivePoint::GENERATOR;
        let mut points = vec![ProjectivePoint::IDENTITY, g, g.double(), -g];
        for k in test_scalars(40).iter().take(12) {
            points.push(g * k);
        }
        for p in &points {
            let ours_p = from_reference(p);
            assert_eq!(
                ours_p.double(&b).affine_coordinates(),
                bytes_of(&p.double())
            );
            let mut expected = *p;
            for times in 0..7 {
                assert_eq!(
                    ours_p.double_times(times).affine_coordinates(),
                    bytes_of(&expected)
                );
                expected = expected.double();
            }
            for q in &points {
                let ours_q = from_reference(q);
                let expected = bytes_of(&(*p + q));
                assert_eq!(ours_p.add(&ours_q, &b).affine_coordinates(), expected);
                if let Some((x, y)) = bytes_of(q) {
                    let affine = Affine {
                        x: Fe::from_bytes(&x).unwrap(),
                        y: Fe::from_bytes(&y).unwrap(),
                    };
                    assert_eq!(
                        ours_p.add_affine(&affine, &b).affine_coordinates(),
                        expected
                    );
                }
            }
        }
    }

    #[test]
    fn multiplication_matches_the_reference_on_edge_and_random_scalars() {
        let g = ProjectivePoint::GENERATOR;
        let bases = [
            g,
            g * Scalar::from(7u64),
            g * reduce(&[0x5a; 32]),
            ProjectivePoint::IDENTITY,
        ];
        for base in &bases {
            let ours = from_reference(base);
            for k in test_scalars(40) {
                assert_eq!(
                    mul(&k, &ours).affine_coordinates(),
                    bytes_of(&(*base * k)),
                    "{:?}",
                    k.to_repr()
                );
            }
        }
    }

    #[test]
    fn digits_recompose_the_scalar() {
        for k in test_scalars(40) {
            let mut value = Scalar::ZERO;
            for digit in recode(&k).iter().rev() {
                assert!((-16..=15).contains(digit));
                for _ in 0..WIDTH {
                    value = value.double();
                }
                let (magnitude, negative) = magnitude_and_sign(*digit);
                assert_eq!(magnitude, u64::from(digit.unsigned_abs()));
                assert_eq!(negative != 0, *digit < 0);
                let magnitude = Scalar::from(magnitude);
                value += if *digit < 0 { -magnitude } else { magnitude };
            }
            assert_eq!(value, k);
        }
    }
}
