//! SM3 and HMAC-SM3 fed in fuzz-chosen pieces.
//!
//! Properties checked:
//! - incremental SM3 over the pieces equals one-shot `sm3(data)`, on every SM3 backend this CPU
//!   has (RustCrypto, SSSE3, AVX-512/BMI2), and the backends agree with each other;
//! - a clone taken part-way finishes to the same digest as the original;
//! - incremental HMAC-SM3 with a fuzz-chosen key (any length, including longer than a block)
//!   equals one-shot HMAC-SM3, equals the RFC 2104 construction built from one-shot `sm3`,
//!   and agrees across backends.

#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use regula_sm::sm3::{HmacSm3, Sm3, backend, sm3};
use regula_sm_fuzz::{Reader, split_points};

/// RFC 2104 HMAC from one-shot SM3.
fn reference_hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block_key = [0u8; 64];
    if key.len() > 64 {
        block_key[..32].copy_from_slice(&sm3(key));
    } else {
        block_key[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block_key.iter().map(|k| k ^ byte).collect::<Vec<u8>>();
    let inner = sm3(&[pad(0x36).as_slice(), message].concat());
    sm3(&[pad(0x5c).as_slice(), &inner].concat())
}

fuzz_target!(|data: &[u8]| {
    let mut input = Reader::new(data);
    let cut_count = usize::from(input.byte() % 16);
    let cuts = input.bytes(cut_count);
    let key_len = usize::from(input.byte());
    let key = input.bytes(key_len);
    let clone_at = usize::from(input.byte());
    let message = input.rest();
    let pieces = split_points(message, cuts);

    let expected = sm3(message);
    let mut hmac_expected = None;
    for backend in backend::available() {
        // SM3.
        let mut hash = Sm3::with_backend(backend).expect("available backend");
        let mut fork = None;
        for (i, piece) in pieces.iter().enumerate() {
            if i == clone_at % pieces.len() {
                fork = Some((hash.clone(), i));
            }
            hash.update(piece);
        }
        assert_eq!(
            hash.finalize(),
            expected,
            "{backend}: incremental SM3 != one-shot"
        );
        let (mut fork, from) = fork.expect("clone point");
        for piece in &pieces[from..] {
            fork.update(piece);
        }
        assert_eq!(
            fork.finalize(),
            expected,
            "{backend}: cloned SM3 state diverged"
        );
        let mut whole = Sm3::with_backend(backend).unwrap();
        whole.update(message);
        assert_eq!(whole.finalize(), expected, "{backend}: one update != sm3()");

        // HMAC-SM3.
        let keyed = HmacSm3::with_backend(key, backend).expect("available backend");
        let mut one_shot = keyed.clone();
        one_shot.update(message);
        let one_shot = one_shot.finalize();
        let mut incremental = keyed;
        for piece in &pieces {
            incremental.update(piece);
        }
        assert_eq!(
            incremental.finalize(),
            one_shot,
            "{backend}: incremental HMAC != one-shot"
        );
        match hmac_expected {
            None => hmac_expected = Some(one_shot),
            Some(first) => assert_eq!(one_shot, first, "{backend}: HMAC backends disagree"),
        }
    }

    let mut default = HmacSm3::new(key).expect("HMAC accepts any key");
    default.update(message);
    let default = default.finalize();
    assert_eq!(
        Some(default),
        hmac_expected,
        "HmacSm3::new differs from the backends"
    );
    assert_eq!(
        default,
        reference_hmac(key, message),
        "HMAC-SM3 != RFC 2104 construction"
    );
});
