//! Constant-time `[k]G` for secret `k` (signing, key generation, encryption's `C1`, the key
//! exchange's ephemeral point, the public-key recomputation of a consistency test).
//!
//! Fixed-base windowing with signed radix-2^5 digits (|d| ≤ 16, [`point::recode`]):
//! `k = Σ d_i·2^(5i)`, so `[k]G = Σ [d_i](2^(5i)G)`, read from a table of affine multiples
//! `j·2^(5i)G` (j = 1…16) computed once: 52 complete mixed additions (Renes–Costello–Batina
//! Algorithm 5, [`Projective::add_affine`]) and no doubling. Each table read touches all 16
//! entries of its row with mask selection; a zero digit adds entry 1 and the sum is discarded
//! by a mask. The final inversion is a fixed Fermat exponentiation. Field arithmetic is
//! [`super::field`], specialised to curveSM2's prime.

use std::sync::OnceLock;

use super::field::{FieldElement as Fe, mask_if_zero};
use super::point::{self, Affine, DIGITS, Projective, WIDTH};
use super::{AffinePoint, GENERATOR_X, GENERATOR_Y, SCALAR_LEN, Scalar};
use zeroize::Zeroize;

/// Multiples 1…16 of each row's base.
const ROW: usize = 16;

struct Table {
    rows: Vec<[Affine; ROW]>,
    b: Fe,
}

/// Projective points to affine with one inversion (Montgomery's trick); none is the identity.
fn normalize_all(points: &[Projective]) -> Vec<Affine> {
    let mut prefix = Vec::with_capacity(points.len());
    let mut product = Fe::ONE;
    for point in points {
        prefix.push(product);
        product = product.mul(&point.z);
    }
    let mut inverse = product.invert();
    let mut affine = vec![
        Affine {
            x: Fe::ZERO,
            y: Fe::ZERO
        };
        points.len()
    ];
    for (index, point) in points.iter().enumerate().rev() {
        // inverse = 1 / (z_0 ⋯ z_index) here.
        let z_inverse = inverse.mul(&prefix[index]);
        inverse = inverse.mul(&point.z);
        affine[index] = Affine {
            x: point.x.mul(&z_inverse),
            y: point.y.mul(&z_inverse),
        };
    }
    affine
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let b = point::b();
        // The generator's coordinates are below p.
        let generator = Affine {
            x: Fe::from_bytes(&GENERATOR_X).unwrap_or(Fe::ZERO),
            y: Fe::from_bytes(&GENERATOR_Y).unwrap_or(Fe::ZERO),
        };
        let mut projective = Vec::with_capacity(DIGITS * ROW);
        let mut base = Projective::from_affine(&generator);
        for _ in 0..DIGITS {
            let mut multiple = base;
            for _ in 0..ROW {
                projective.push(multiple);
                multiple = multiple.add(&base, &b);
            }
            for _ in 0..WIDTH {
                base = base.double(&b);
            }
        }
        let rows = normalize_all(&projective)
            .chunks_exact(ROW)
            .map(|row| core::array::from_fn(|index| row[index]))
            .collect();
        Table { rows, b }
    })
}

/// `[k]G` in homogeneous projective coordinates, constant-time.
fn mul(k: &Scalar) -> Projective {
    let table = table();
    let mut digits = point::recode(k);
    let mut acc = Projective::IDENTITY;
    for (row, digit) in table.rows.iter().zip(digits.iter()) {
        let (magnitude, negative) = point::magnitude_and_sign(*digit);
        // Entry 1 stands in for a zero digit; its sum is then discarded by the mask below.
        let mut entry = row[0];
        for (index, candidate) in (1u64..).zip(row.iter()) {
            let chosen = mask_if_zero(magnitude ^ index);
            entry.x.assign_if(chosen, &candidate.x);
            entry.y.assign_if(chosen, &candidate.y);
        }
        let negated = entry.y.neg();
        entry.y.assign_if(negative, &negated);
        let sum = acc.add_affine(&entry, &table.b);
        let keep = mask_if_zero(magnitude);
        acc.x = Fe::select(keep, &acc.x, &sum.x);
        acc.y = Fe::select(keep, &acc.y, &sum.y);
        acc.z = Fe::select(keep, &acc.z, &sum.z);
        entry.x.wipe();
        entry.y.wipe();
    }
    digits.zeroize();
    acc
}

/// The affine coordinates of `[k]G` (big-endian), `None` for k = 0.
pub(crate) fn mul_by_generator_coordinates(
    k: &Scalar,
) -> Option<([u8; SCALAR_LEN], [u8; SCALAR_LEN])> {
    let mut point = mul(k);
    let result = point.affine_coordinates();
    point.wipe();
    result
}

/// The affine x-coordinate of `[k]G` (big-endian), for signing; k is never 0 there (0 gives 0).
pub(crate) fn mul_by_generator_x(k: &Scalar) -> [u8; SCALAR_LEN] {
    let mut point = mul(k);
    let mut z_inverse = point.z.invert();
    let x = point.x.mul(&z_inverse).to_bytes();
    z_inverse.wipe();
    point.wipe();
    x
}

/// `[k]G` as an affine point (the identity for k = 0).
pub(crate) fn mul_by_generator(k: &Scalar) -> AffinePoint {
    let Some((x, y)) = mul_by_generator_coordinates(k) else {
        return AffinePoint::IDENTITY;
    };
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
    use crate::sm2::{ProjectivePoint, coordinates, test_scalars};
    use sm2::elliptic_curve::Group;
    use sm2::elliptic_curve::ff::PrimeField;

    #[test]
    fn matches_the_crate_multiplication_on_edge_and_random_scalars() {
        // Zero, whose multiple is the identity (no coordinates), is checked last.
        for k in test_scalars(100)
            .into_iter()
            .filter(|k| !bool::from(k.is_zero()))
        {
            let expected = ProjectivePoint::mul_by_generator(&k).to_affine();
            assert_eq!(mul_by_generator(&k), expected, "{:?}", k.to_repr());
            assert_eq!(mul_by_generator_x(&k), coordinates(&expected).0);
            assert_eq!(
                mul_by_generator_coordinates(&k),
                Some(coordinates(&expected))
            );
        }
        assert_eq!(mul_by_generator(&Scalar::ZERO), AffinePoint::IDENTITY);
        assert_eq!(mul_by_generator_coordinates(&Scalar::ZERO), None);
    }
}
