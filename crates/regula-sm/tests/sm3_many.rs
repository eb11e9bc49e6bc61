//! Multi-buffer SM3 (`hash_many`, `hmac_sm3_many`) on every multi-buffer backend this CPU
//! supports, each forced so that every lane runs through it, and on the automatic choice:
//!
//! * every SM3 stanza of `shared/vectors/sm3-evp.txt` (GB/T 32905-2016 Appendix A and the
//!   drafts' examples) in every lane position of batches of 1..=40 messages;
//! * ragged batches (0..=5 blocks, lengths around the 55/56/64-byte padding boundaries, 1..=40
//!   messages) against RustCrypto `sm3`, an independent implementation;
//! * HMAC-SM3 of ragged batches against RustCrypto `hmac` over `sm3`, keys of 0..=200 bytes.

mod common;

use common::{parse_evp, unhex};
use hmac::{KeyInit, Mac};
use rand::{Rng, SeedableRng};
use regula_sm::sm3::many_backend::{self, ManyBackend};
use regula_sm::sm3::{HmacSm3, hash_many, hash_many_with, hmac_sm3_many};
use sm3::Digest;

const SM3_VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/vectors/sm3-evp.txt"
);

fn backends() -> Vec<ManyBackend> {
    let available = many_backend::available();
    assert_eq!(available[0], ManyBackend::Single);
    assert_eq!(available.last(), Some(&many_backend::active()));
    // On x86-64 with AVX2, the 8-lane kernel must be there (the portable-only build has none).
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    if std::arch::is_x86_feature_detected!("avx2") {
        assert!(available.contains(&ManyBackend::Avx2x8), "{available:?}");
    }
    eprintln!("multi-buffer SM3 backends: {available:?}");
    available
}

fn reference(message: &[u8]) -> [u8; 32] {
    sm3::Sm3::digest(message).into()
}

fn refs(messages: &[Vec<u8>]) -> Vec<&[u8]> {
    messages.iter().map(Vec::as_slice).collect()
}

/// A field value: hex, or a "quoted" ASCII string.
fn value(text: &str) -> Vec<u8> {
    match text
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    {
        Some(ascii) => ascii.as_bytes().to_vec(),
        None => unhex(text),
    }
}

#[test]
fn standard_vectors_in_every_lane() {
    let text = std::fs::read_to_string(SM3_VECTORS).expect(SM3_VECTORS);
    let vectors: Vec<(Vec<u8>, Vec<u8>)> = parse_evp(&text)
        .iter()
        .filter(|stanza| stanza.get("Digest") == Some("SM3"))
        .map(|stanza| {
            (
                value(stanza.get("Input").unwrap()),
                unhex(stanza.get("Output").unwrap()),
            )
        })
        .collect();
    assert_eq!(vectors.len(), 8, "SM3 stanzas in {SM3_VECTORS}");
    let filler: Vec<Vec<u8>> = (0..40).map(|i| vec![i as u8; 37 * i]).collect();
    for backend in backends() {
        for (input, output) in &vectors {
            for count in [1usize, 2, 7, 8, 9, 16, 17, 40] {
                for position in 0..count {
                    let mut messages = filler[..count].to_vec();
                    messages[position] = input.clone();
                    let digests = hash_many_with(backend, &refs(&messages)).unwrap();
                    assert_eq!(digests.len(), count);
                    assert_eq!(
                        digests[position].to_vec(),
                        *output,
                        "{backend}: {count} messages, vector at {position}"
                    );
                    for (i, (digest, message)) in digests.iter().zip(&messages).enumerate() {
                        assert_eq!(*digest, reference(message), "{backend}: lane {i}");
                    }
                }
            }
        }
    }
}

/// Lengths of 0..=5 blocks, the padding boundaries (55, 56, 63, 64 mod 64) overrepresented.
fn ragged(rng: &mut impl Rng, count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            let len = if rng.random_bool(0.5) {
                64 * rng.random_range(0..=5) + [0, 1, 55, 56, 57, 63][rng.random_range(0..6)]
            } else {
                rng.random_range(0..=320)
            };
            let mut message = vec![0u8; len];
            rng.fill(&mut message[..]);
            message
        })
        .collect()
}

#[test]
fn ragged_batches_match_single_stream() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5303_0a11);
    for backend in backends() {
        for count in 0..=40 {
            for _ in 0..4 {
                let messages = ragged(&mut rng, count);
                let expected: Vec<[u8; 32]> = messages.iter().map(|m| reference(m)).collect();
                assert_eq!(
                    hash_many_with(backend, &refs(&messages)).unwrap(),
                    expected,
                    "{backend}, {count} messages"
                );
                assert_eq!(hash_many(&refs(&messages)), expected, "auto, {count}");
            }
        }
    }
}

/// One long message among short ones: the long lane keeps running after the queue is empty
/// (and, automatically, finishes single-stream).
#[test]
fn one_long_message_among_short_ones() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5303_0a12);
    let mut messages = ragged(&mut rng, 30);
    let mut long = vec![0u8; 64 * 1024 + 13];
    rng.fill(&mut long[..]);
    messages.insert(5, long);
    let expected: Vec<[u8; 32]> = messages.iter().map(|m| reference(m)).collect();
    for backend in backends() {
        assert_eq!(
            hash_many_with(backend, &refs(&messages)).unwrap(),
            expected,
            "{backend}"
        );
    }
    assert_eq!(hash_many(&refs(&messages)), expected);
}

#[test]
fn hmac_batches_match_rustcrypto_hmac() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5303_0a13);
    for key_len in [0usize, 1, 16, 32, 63, 64, 65, 200] {
        let mut key = vec![0u8; key_len];
        rng.fill(&mut key[..]);
        for count in [1usize, 3, 8, 15, 16, 17, 40] {
            let messages = ragged(&mut rng, count);
            let expected: Vec<[u8; 32]> = messages
                .iter()
                .map(|message| {
                    let mut mac = hmac::Hmac::<sm3::Sm3>::new_from_slice(&key).unwrap();
                    mac.update(message);
                    mac.finalize().into_bytes().into()
                })
                .collect();
            let keyed = HmacSm3::new(&key).unwrap();
            for backend in backends() {
                assert_eq!(
                    keyed.mac_many_with(backend, &refs(&messages)).unwrap(),
                    expected,
                    "{backend}, key {key_len}, {count} messages"
                );
            }
            assert_eq!(hmac_sm3_many(&key, &refs(&messages)), expected);
            assert_eq!(keyed.mac_many(&refs(&messages)), expected);
        }
    }
}
