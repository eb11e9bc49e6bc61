//! Timing-leak test of the SM2 multiplications by secret scalars, after dudect (Reparaz,
//! Balasch, Verbauwhede, "Dude, is my code constant time?", DATE 2017): time one operation on
//! two classes of secret inputs, a fixed scalar (d = 1: every signed digit but one is zero) and
//! random scalars, drawn in a random interleaving so that drifts of the machine hit both
//! classes alike; compare the two timing distributions with Welch's t-test, on all samples and
//! on samples cropped above several percentiles (interrupts and migrations only add time); a
//! |t| of 4.5 or more on any of them means the timing depends on the scalar.
//!
//! The machine is shared and noisy, so a verdict of "leaks" is only given when two further,
//! independent measurements agree. The same detector, with the same rule, must find the leak of
//! a deliberately variable-time double-and-add (a branch on each scalar bit), measured the same
//! way: that is the evidence that the test can fail.
//!
//! Timing is meaningless in a debug build: run with
//! `cargo test --release -p regula-sm --test sm2_timing -- --nocapture --test-threads=1`.

use std::hint::black_box;

#[path = "common/dudect.rs"]
mod dudect;
use dudect::{leaks, measure};

use ::sm2::elliptic_curve::Group;
use ::sm2::elliptic_curve::ff::PrimeField;
use ::sm2::{ProjectivePoint, Scalar};
use regula_sm::sm2::{self as ours, PrivateKey};

fn random(out: &mut [u8]) -> Result<(), ours::Error> {
    rand::fill(out);
    Ok(())
}

/// The fixed class: d = 1.
fn fixed_key() -> PrivateKey {
    let mut one = [0u8; 32];
    one[31] = 1;
    PrivateKey::from_bytes(&one).unwrap()
}

fn key_of_class(fixed: &PrivateKey, random_class: bool) -> PrivateKey {
    if random_class {
        PrivateKey::generate(&mut random).unwrap()
    } else {
        fixed.clone()
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timing test: run in release")]
fn ecdh_variable_base_multiplication_shows_no_timing_difference() {
    let fixed = fixed_key();
    let peer = PrivateKey::generate(&mut random).unwrap();
    let peer = *peer.public_key();
    let leak = leaks("[d]Q (ECDH)", || {
        measure(
            40_000,
            |class| key_of_class(&fixed, class),
            |key| {
                black_box(ours::ecdh(black_box(key), &peer).unwrap());
            },
        )
    });
    assert!(!leak, "[d]Q timing depends on d");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timing test: run in release")]
fn fixed_base_multiplication_shows_no_timing_difference() {
    let fixed = fixed_key();
    let leak = leaks("[d]G (public-key recomputation)", || {
        measure(
            100_000,
            |class| key_of_class(&fixed, class),
            |key| {
                black_box(black_box(key).recompute_public_key());
            },
        )
    });
    assert!(!leak, "[d]G timing depends on d");
}

/// Left-to-right double-and-add that adds only for one bits: its time grows with the
/// scalar's Hamming weight. A negative control; never use such code on secrets.
fn variable_time_mul(scalar: &[u8; 32], point: &ProjectivePoint) -> ProjectivePoint {
    let mut acc = ProjectivePoint::IDENTITY;
    for byte in scalar {
        for bit in (0..8).rev() {
            acc = acc.double();
            if (byte >> bit) & 1 == 1 {
                acc += point;
            }
        }
    }
    acc
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timing test: run in release")]
fn the_detector_finds_a_variable_time_multiplication() {
    let point = ProjectivePoint::GENERATOR * Scalar::from(0x5eed_u64);
    let leak = leaks("variable-time double-and-add (negative control)", || {
        measure(
            4_000,
            |random_class| {
                let mut scalar = [0u8; 32];
                if random_class {
                    rand::fill(&mut scalar[..]);
                    let reduced: Option<Scalar> = Scalar::from_repr(scalar.into()).into();
                    scalar = reduced.unwrap_or(Scalar::ONE).to_repr().into();
                } else {
                    scalar[31] = 1;
                }
                scalar
            },
            |scalar| {
                black_box(variable_time_mul(black_box(scalar), &point));
            },
        )
    });
    assert!(
        leak,
        "the detector did not see the variable-time multiplication"
    );
    // The control itself computes [d]P: it is a real multiplication, only a leaky one.
    assert_eq!(
        variable_time_mul(&Scalar::from(12_345u64).to_repr().into(), &point),
        point * Scalar::from(12_345u64)
    );
    assert!(bool::from(
        variable_time_mul(&[0; 32], &point).is_identity()
    ));
}
