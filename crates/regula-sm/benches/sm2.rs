//! SM2 operation rates: key generation, signing, verification and ECDH derive through the
//! public API, beside a baseline ECDH derive on RustCrypto's `sm2` crate arithmetic
//! (`ProjectivePoint * Scalar`, the generic field and the crate's own constant-time
//! multiplication) measured in the same process.
//!
//! Each round measures every operation for `--seconds` in turn (the operations are
//! interleaved round by round, so a drift of the machine hits all of them), and each figure is
//! the median of `--rounds` rounds with its min–max. `ecdh/ratio` is the median over rounds of
//! ECDH derive divided by the baseline of the same round.
//!
//! Run with `cargo bench -p regula-sm --bench sm2 -- --rounds 9 --seconds 0.3`. Only the
//! public API is used, so the same file also measures an older version of the crate.
//! `--only NAME` measures one operation alone (for a profiler).

use std::hint::black_box;
use std::time::{Duration, Instant};

use ::sm2::elliptic_curve::ff::PrimeField;
use ::sm2::elliptic_curve::sec1::{FromSec1Point, ToSec1Point};
use ::sm2::{AffinePoint, ProjectivePoint, Scalar};
use regula_sm::sm2::{self as ours, DEFAULT_ID, PrivateKey};

/// A measured operation.
type Operation<'a> = Box<dyn FnMut() + 'a>;

fn random(out: &mut [u8]) -> Result<(), ours::Error> {
    rand::fill(out);
    Ok(())
}

/// Operations per second of `operation` over about `seconds`.
fn rate(seconds: f64, operation: &mut dyn FnMut()) -> f64 {
    let budget = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut count = 0u64;
    while start.elapsed() < budget {
        for _ in 0..8 {
            operation();
        }
        count += 8;
    }
    count as f64 / start.elapsed().as_secs_f64()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn argument(name: &str, default: f64) -> f64 {
    let arguments: Vec<String> = std::env::args().collect();
    arguments
        .iter()
        .position(|argument| argument == name)
        .and_then(|index| arguments.get(index + 1))
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let rounds = argument("--rounds", 7.0).max(1.0) as usize;
    let seconds = argument("--seconds", 0.3);
    let key = PrivateKey::generate(&mut random).unwrap();
    let peer = PrivateKey::generate(&mut random).unwrap();
    let peer_public = *peer.public_key();
    let message = [0x5au8; 32];
    let signature = ours::sign(&key, DEFAULT_ID, &message, &mut random).unwrap();

    // The baseline's inputs: the same scalar and point in the `sm2` crate's types.
    let scalar: Scalar =
        Option::from(Scalar::from_repr((*key.to_bytes()).into())).expect("a valid scalar");
    let encoded = ::sm2::Sec1Point::from_bytes(peer_public.to_uncompressed()).unwrap();
    let point: AffinePoint = Option::from(AffinePoint::from_sec1_point(&encoded)).unwrap();

    let mut operations: Vec<(&str, Operation)> = vec![
        (
            "keygen",
            Box::new(|| {
                black_box(PrivateKey::generate(&mut random).unwrap());
            }),
        ),
        (
            "sign",
            Box::new(|| {
                black_box(ours::sign(&key, DEFAULT_ID, black_box(&message), &mut random).unwrap());
            }),
        ),
        (
            "verify",
            Box::new(|| {
                black_box(ours::verify(
                    key.public_key(),
                    DEFAULT_ID,
                    black_box(&message),
                    &signature,
                ))
                .unwrap();
            }),
        ),
        (
            "ecdh",
            Box::new(|| {
                black_box(ours::ecdh(black_box(&key), &peer_public).unwrap());
            }),
        ),
        (
            "ecdh-baseline",
            Box::new(|| {
                let shared = (ProjectivePoint::from(point) * black_box(&scalar)).to_affine();
                black_box(shared.to_sec1_point(false));
            }),
        ),
    ];
    // `--only NAME` keeps one operation (for a profiler).
    let arguments: Vec<String> = std::env::args().collect();
    if let Some(index) = arguments.iter().position(|argument| argument == "--only") {
        let wanted = arguments.get(index + 1).cloned().unwrap_or_default();
        operations.retain(|(name, _)| *name == wanted);
    }
    let mut figures = vec![Vec::with_capacity(rounds); operations.len()];
    for _ in 0..rounds {
        for ((_, operation), figure) in operations.iter_mut().zip(&mut figures) {
            figure.push(rate(seconds, operation.as_mut()));
        }
    }
    println!("SM2 operations per second, median [min–max] of {rounds} rounds of {seconds} s");
    for ((name, _), figure) in operations.iter().zip(&figures) {
        let (low, high) = figure.iter().fold((f64::MAX, 0f64), |(low, high), x| {
            (low.min(*x), high.max(*x))
        });
        let mut sorted = figure.clone();
        println!(
            "{name:<14} {:>9.0}/s [{low:.0}–{high:.0}]",
            median(&mut sorted)
        );
    }
    let index = |wanted: &str| operations.iter().position(|(name, _)| *name == wanted);
    if let (Some(ours), Some(baseline)) = (index("ecdh"), index("ecdh-baseline")) {
        let mut ratios: Vec<f64> = figures[ours]
            .iter()
            .zip(&figures[baseline])
            .map(|(a, b)| a / b)
            .collect();
        let (low, high) = ratios.iter().fold((f64::MAX, 0f64), |(low, high), x| {
            (low.min(*x), high.max(*x))
        });
        println!(
            "ecdh/ratio     {:>9.2}× [{low:.2}–{high:.2}] (ECDH derive / sm2-crate baseline, per round)",
            median(&mut ratios)
        );
    }
}
