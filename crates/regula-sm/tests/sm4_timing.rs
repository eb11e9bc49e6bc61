//! Timing-leak test of the SM4 backends, after dudect (Reparaz, Balasch, Verbauwhede, "Dude,
//! is my code constant time?", DATE 2017), with the detector in `common/dudect.rs` (shared
//! with `sm2_timing.rs`): time one operation on two classes of secret inputs, an all-zero key
//! and message against random ones, drawn in a random interleaving; compare the two timing
//! distributions with Welch's t-test on all samples and on samples cropped above several
//! percentiles; |t| ≥ 4.5 at the same crop in three independent measurements means the
//! timing depends on the secrets.
//!
//! Every backend this CPU runs is measured on each of its paths: the one-block path
//! (`encrypt_block`), the few-block path (CTR of one and three blocks, CBC decryption of two),
//! the wide path (CTR of 32 blocks), and SM4-GCM on one block and on 16 blocks with every GHASH
//! implementation. A negative control, an SM4 call followed by work for each set key bit, must
//! be found by the same detector.
//!
//! Timing is meaningless in a debug build: run with
//! `cargo test --release -p regula-sm --test sm4_timing -- --nocapture --test-threads=1`.

use std::hint::black_box;

#[path = "common/dudect.rs"]
mod dudect;
use dudect::{leaks, measure};

use regula_sm::Sm4;
use regula_sm::sm4::backend;
use regula_sm::sm4::modes::{Sm4Gcm, cbc_decrypt, ctr_apply_keystream, ghash_implementations};

/// Samples per measurement.
const SAMPLES: usize = 20_000;

/// A key and message of a class: all zero (false) or random (true).
fn secrets(random_class: bool, len: usize) -> ([u8; 16], Vec<u8>) {
    let mut key = [0u8; 16];
    let mut message = vec![0u8; len];
    if random_class {
        rand::fill(&mut key);
        rand::fill(&mut message[..]);
    }
    (key, message)
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timing test: run in release")]
fn every_backend_and_path_shows_no_timing_difference() {
    let mut leaking = Vec::new();
    for backend in backend::available() {
        let cipher = |key: &[u8; 16]| Sm4::with_backend(key, backend).expect("available");
        let mut check = |label: String, run: &mut dyn FnMut() -> Vec<(bool, u64)>| {
            if leaks(&label, run) {
                leaking.push(label);
            }
        };
        check(format!("{backend} one block"), &mut || {
            measure(
                SAMPLES,
                |class| {
                    let (key, message) = secrets(class, 16);
                    (cipher(&key), <[u8; 16]>::try_from(message).unwrap())
                },
                |(sm4, block)| sm4.encrypt_block(black_box(block)),
            )
        });
        for blocks in [1, 3, 32] {
            check(format!("{backend} CTR {blocks} blocks"), &mut || {
                measure(
                    SAMPLES,
                    |class| {
                        let (key, message) = secrets(class, 16 * blocks);
                        (cipher(&key), message)
                    },
                    |(sm4, data)| ctr_apply_keystream(sm4, &[7; 16], black_box(data)),
                )
            });
        }
        check(format!("{backend} CBC decryption 2 blocks"), &mut || {
            measure(
                SAMPLES,
                |class| {
                    let (key, message) = secrets(class, 32);
                    (cipher(&key), message)
                },
                |(sm4, data)| cbc_decrypt(sm4, &[7; 16], black_box(data)).unwrap(),
            )
        });
        for ghash in ghash_implementations() {
            for blocks in [1, 16] {
                check(
                    format!("{backend} + {ghash} GCM {blocks} blocks"),
                    &mut || {
                        measure(
                            SAMPLES,
                            |class| {
                                let (key, message) = secrets(class, 16 * blocks);
                                let gcm =
                                    Sm4Gcm::with_backends(&key, backend, ghash).expect("available");
                                (gcm, message)
                            },
                            |(gcm, data)| {
                                black_box(gcm.encrypt(&[9; 12], b"", black_box(data)).unwrap());
                            },
                        )
                    },
                );
            }
        }
    }
    assert!(
        leaking.is_empty(),
        "timing depends on the secrets: {leaking:?}"
    );
}

/// SM4 on the fastest backend, then extra work for each set bit of the key: a negative
/// control that leaks the key's Hamming weight; never write such code.
fn leaky_encrypt(sm4: &Sm4, key: &[u8; 16], block: &mut [u8; 16]) {
    sm4.encrypt_block(block);
    for byte in key {
        for bit in 0..8 {
            if (byte >> bit) & 1 == 1 {
                sm4.encrypt_block(black_box(block));
            }
        }
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "timing test: run in release")]
fn the_detector_finds_a_key_dependent_branch() {
    let leak = leaks("SM4 with a branch per key bit (negative control)", || {
        measure(
            SAMPLES,
            |class| {
                let (key, message) = secrets(class, 16);
                (Sm4::new(&key), key, <[u8; 16]>::try_from(message).unwrap())
            },
            |(sm4, key, block)| leaky_encrypt(sm4, key, black_box(block)),
        )
    });
    assert!(leak, "the detector did not see the key-dependent branch");
}
