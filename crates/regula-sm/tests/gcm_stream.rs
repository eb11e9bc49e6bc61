//! Incremental SM4-GCM ([`Sm4GcmEncryptor`], [`Sm4GcmDecryptor`]) on every SM4 backend and
//! every GHASH implementation this CPU supports:
//!
//! * RFC 8998 Appendix A.1, fed in chunks of every size from 0 to 17 bytes;
//! * random keys, nonces (96-bit and others), AAD and text split into random chunks (0- and
//!   1-byte chunks included, AAD split too): ciphertext and tag equal RustCrypto's generic
//!   `aes-gcm` over RustCrypto's `sm4` (an independent implementation) and the one-shot
//!   [`Sm4Gcm`], and the decryptor recovers the plaintext;
//! * truncated tags of the lengths SP 800-38D allows, refused lengths, wrong tags, AAD after
//!   data, and clones taken mid-stream that go on independently.

mod common;

use aes_gcm::AesGcm;
use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::generic_array::GenericArray;
use aes_gcm::aead::{AeadInPlace, KeyInit};
use common::{backends, random_bytes, unhex, unhex16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regula_sm::Error;
use regula_sm::sm4::modes::{Sm4Gcm, Sm4GcmDecryptor, Sm4GcmEncryptor, ghash_implementations};

/// Every (SM4 backend, GHASH implementation) pair this CPU supports, keyed with `key`.
fn every_implementation(key: &[u8; 16]) -> Vec<(String, Sm4Gcm)> {
    let mut all = Vec::new();
    for backend in backends() {
        for ghash in ghash_implementations() {
            let gcm = Sm4Gcm::with_backends(key, backend, ghash).expect("available");
            all.push((format!("{backend} + {ghash}"), gcm));
        }
    }
    // A build with only the portable SM4 backend (`--cfg sm4_backend="soft"`) has one pair.
    assert!(!all.is_empty(), "at least the portable backend and GHASH");
    all
}

/// Cuts `len` bytes into random chunk lengths, with many 0- and 1-byte chunks.
fn random_split(rng: &mut StdRng, len: usize) -> Vec<usize> {
    let mut chunks = Vec::new();
    let mut left = len;
    while left > 0 {
        let chunk = match rng.random_range(0..6) {
            0 => 0,
            1 => 1,
            2 => rng.random_range(2..=17),
            3 => 16 * rng.random_range(1..=4),
            _ => rng.random_range(0..=left.min(5000)),
        }
        .min(left);
        chunks.push(chunk);
        left -= chunk;
    }
    if rng.random_bool(0.5) {
        chunks.push(0);
    }
    chunks
}

fn seal_in_chunks(
    mut stream: Sm4GcmEncryptor,
    aad: &[u8],
    aad_split: &[usize],
    data: &mut [u8],
    split: &[usize],
) -> [u8; 16] {
    let mut at = 0;
    for &len in aad_split {
        stream.aad(&aad[at..at + len]).unwrap();
        at += len;
    }
    assert_eq!(at, aad.len());
    let mut at = 0;
    for &len in split {
        stream.update(&mut data[at..at + len]).unwrap();
        at += len;
    }
    assert_eq!(at, data.len());
    stream.finish()
}

fn open_in_chunks(
    mut stream: Sm4GcmDecryptor,
    aad: &[u8],
    aad_split: &[usize],
    data: &mut [u8],
    split: &[usize],
    tag: &[u8],
) -> Result<(), Error> {
    let mut at = 0;
    for &len in aad_split {
        stream.aad(&aad[at..at + len])?;
        at += len;
    }
    let mut at = 0;
    for &len in split {
        stream.update(&mut data[at..at + len])?;
        at += len;
    }
    stream.finish(tag)
}

/// RFC 8998 Appendix A.1 (also the `SM4-GCM` stanza of `shared/vectors/sm4-evp.txt`).
#[test]
fn rfc8998_a1_in_every_chunk_size() {
    let key = unhex16("0123456789abcdeffedcba9876543210");
    let nonce = unhex("00001234567800000000abcd");
    let aad = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    let plaintext = unhex(concat!(
        "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd",
        "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa"
    ));
    let ciphertext = unhex(concat!(
        "17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735",
        "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"
    ));
    let tag = unhex("83de3541e4c2b58177e065a9bf7b62ec");
    for (name, gcm) in every_implementation(&key) {
        for size in 0..=17usize {
            // A zero size still feeds everything: one empty call, then the whole input.
            let chunks = |len: usize| -> Vec<usize> {
                if size == 0 {
                    vec![0, len]
                } else {
                    let mut split = vec![size; len / size];
                    split.push(len % size);
                    split
                }
            };
            let mut data = plaintext.clone();
            let sealed = seal_in_chunks(
                gcm.encryptor(&nonce).unwrap(),
                &aad,
                &chunks(aad.len()),
                &mut data,
                &chunks(plaintext.len()),
            );
            assert_eq!(data, ciphertext, "{name}, chunks of {size}");
            assert_eq!(&sealed[..], &tag[..], "{name}, chunks of {size}");
            open_in_chunks(
                gcm.decryptor(&nonce).unwrap(),
                &aad,
                &chunks(aad.len()),
                &mut data,
                &chunks(plaintext.len()),
                &tag,
            )
            .unwrap_or_else(|e| panic!("{name}, chunks of {size}: {e}"));
            assert_eq!(data, plaintext, "{name}, chunks of {size}");
        }
    }
}

/// Random messages in random chunks: RustCrypto's `AesGcm<sm4::Sm4, U12>` (96-bit nonces) or
/// the one-shot `Sm4Gcm` (other nonce lengths, which RustCrypto's type fixes at compile time)
/// give the same ciphertext and tag, for every backend and GHASH implementation.
#[test]
fn random_chunks_match_one_shot_and_rustcrypto() {
    let mut rng = StdRng::seed_from_u64(0x57e4_0001);
    let mut checked = 0;
    for round in 0..24 {
        let key: [u8; 16] = rng.random();
        let nonce_len = [12, 12, 12, 1, 16, 60][round % 6];
        let nonce = random_bytes(&mut rng, nonce_len);
        let aad_len = rng.random_range(0..=70);
        let aad = random_bytes(&mut rng, aad_len);
        let len = match round % 4 {
            0 => rng.random_range(0..=40),
            1 => rng.random_range(0..=300),
            2 => rng.random_range(4000..=9000),
            _ => 16 * rng.random_range(60..=300),
        };
        let plaintext = random_bytes(&mut rng, len);

        let mut expected = plaintext.clone();
        let expected_tag = if nonce_len == 12 {
            let reference = AesGcm::<sm4::Sm4, U12, U16>::new(GenericArray::from_slice(&key));
            let tag = reference
                .encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut expected)
                .unwrap();
            tag.to_vec()
        } else {
            Sm4Gcm::new(&key)
                .encrypt(&nonce, &aad, &mut expected)
                .unwrap()
                .to_vec()
        };

        for (name, gcm) in every_implementation(&key) {
            let aad_split = random_split(&mut rng, aad.len());
            let split = random_split(&mut rng, len);
            let context = format!("{name}, nonce {nonce_len}, {len} bytes, split {split:?}");
            let mut data = plaintext.clone();
            let tag = seal_in_chunks(
                gcm.encryptor(&nonce).unwrap(),
                &aad,
                &aad_split,
                &mut data,
                &split,
            );
            assert!(data == expected, "{context}: ciphertext");
            assert_eq!(tag.to_vec(), expected_tag, "{context}: tag");

            let mut one_shot = plaintext.clone();
            assert_eq!(
                gcm.encrypt(&nonce, &aad, &mut one_shot).unwrap().to_vec(),
                expected_tag,
                "{context}: one-shot"
            );

            let split = random_split(&mut rng, len);
            let aad_split = random_split(&mut rng, aad.len());
            open_in_chunks(
                gcm.decryptor(&nonce).unwrap(),
                &aad,
                &aad_split,
                &mut data,
                &split,
                &tag,
            )
            .unwrap_or_else(|e| panic!("{context}: open: {e}"));
            assert!(data == plaintext, "{context}: plaintext");
            checked += 1;
        }
    }
    // Every round on every implementation pair (one pair in a portable-only build).
    let pairs = every_implementation(&[0; 16]).len();
    assert_eq!(checked, 24 * pairs, "{checked}");
}

/// An odd first piece (1..=300 bytes), then a long run of whole blocks and more (63 to 161
/// blocks: one, two and more 32-block batches of the wide backends, which also start off the
/// stream's first block boundary), then odd pieces: sealed and opened in place, in other odd
/// pieces, the result equals RustCrypto's `AesGcm<sm4::Sm4, U12>` on every backend and GHASH
/// implementation.
#[test]
fn odd_pieces_around_long_runs() {
    let mut rng = StdRng::seed_from_u64(0x57e4_0002);
    let key: [u8; 16] = rng.random();
    let reference = AesGcm::<sm4::Sm4, U12, U16>::new(GenericArray::from_slice(&key));
    let implementations = every_implementation(&key);
    let mut checked = 0;
    for (round, head) in [1usize, 3, 15, 17, 33, 101, 255, 299]
        .into_iter()
        .enumerate()
    {
        for blocks in [63usize, 64, 65, 96, 97, 161] {
            let len = head + 16 * blocks + [0, 7, 16, 29][(round + blocks) % 4];
            let nonce = random_bytes(&mut rng, 12);
            let aad = random_bytes(&mut rng, (round * 7) % 40);
            let plaintext = random_bytes(&mut rng, len);
            let mut expected = plaintext.clone();
            let expected_tag = reference
                .encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut expected)
                .unwrap();
            // The long run whole, then 5-byte pieces; to open, 13-byte pieces and the rest.
            let run = 16 * blocks + 9;
            let mut seal_split = vec![head, run.min(len - head)];
            let mut left = len - head - seal_split[1];
            while left > 0 {
                seal_split.push(left.min(5));
                left -= left.min(5);
            }
            let open_split = [13, 13, len - 26];
            for (name, gcm) in &implementations {
                let context = format!("{name}, {len} bytes, split {seal_split:?}");
                let mut data = plaintext.clone();
                let tag = seal_in_chunks(
                    gcm.encryptor(&nonce).unwrap(),
                    &aad,
                    &[aad.len()],
                    &mut data,
                    &seal_split,
                );
                assert!(data == expected, "{context}: ciphertext");
                assert_eq!(&tag[..], &expected_tag[..], "{context}: tag");
                open_in_chunks(
                    gcm.decryptor(&nonce).unwrap(),
                    &aad,
                    &[aad.len()],
                    &mut data,
                    &open_split,
                    &tag,
                )
                .unwrap_or_else(|e| panic!("{context}: open: {e}"));
                assert!(data == plaintext, "{context}: plaintext");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 8 * 6 * implementations.len());
}

/// Truncated tags of the lengths SP 800-38D allows verify; others are refused by length; a
/// flipped bit in the tag, the AAD or the ciphertext fails.
#[test]
fn tags_lengths_and_tampering() {
    let key = [0x11; 16];
    let nonce = [0x22; 12];
    let plaintext: Vec<u8> = (0..77u8).collect();
    for (name, gcm) in every_implementation(&key) {
        let mut ciphertext = plaintext.clone();
        let tag = gcm.encrypt(&nonce, b"aad", &mut ciphertext).unwrap();
        let open = |aad: &[u8], ciphertext: &[u8], tag: &[u8]| {
            let mut stream = gcm.decryptor(&nonce).unwrap();
            stream.aad(aad).unwrap();
            let mut data = ciphertext.to_vec();
            stream.update(&mut data).unwrap();
            stream.finish(tag).map(|()| data)
        };
        for len in [4, 8, 12, 13, 14, 15, 16] {
            assert_eq!(
                open(b"aad", &ciphertext, &tag[..len]).as_deref(),
                Ok(&plaintext[..]),
                "{name}, {len}-byte tag"
            );
            let mut bad = tag[..len].to_vec();
            bad[len - 1] ^= 0x80;
            assert_eq!(
                open(b"aad", &ciphertext, &bad),
                Err(Error::AuthenticationFailed),
                "{name}, flipped {len}-byte tag"
            );
        }
        for len in [0, 1, 3, 5, 7, 9, 11, 17] {
            let tag = [0u8; 17];
            assert_eq!(
                open(b"aad", &ciphertext, &tag[..len]),
                Err(Error::InvalidTagLength { len }),
                "{name}, {len}-byte tag"
            );
        }
        assert_eq!(
            open(b"aae", &ciphertext, &tag),
            Err(Error::AuthenticationFailed)
        );
        let mut tampered = ciphertext.clone();
        tampered[76] ^= 1;
        assert_eq!(
            open(b"aad", &tampered, &tag),
            Err(Error::AuthenticationFailed)
        );
    }
}

#[test]
fn aad_after_data_and_bad_nonce_are_refused() {
    let gcm = Sm4Gcm::new(&[3; 16]);
    let mut encryptor = gcm.encryptor(&[1; 12]).unwrap();
    encryptor.aad(b"first").unwrap();
    encryptor.update(&mut []).unwrap();
    assert_eq!(encryptor.aad(b"late"), Err(Error::AadAfterData));
    let mut decryptor = gcm.decryptor(&[1; 12]).unwrap();
    decryptor.update(&mut [0; 3]).unwrap();
    assert_eq!(decryptor.aad(b""), Err(Error::AadAfterData));
    assert_eq!(
        gcm.encryptor(&[]).unwrap_err(),
        Error::InvalidNonceLength { len: 0 }
    );
    assert_eq!(
        gcm.decryptor(&[]).unwrap_err(),
        Error::InvalidNonceLength { len: 0 }
    );
}

/// A clone taken mid-stream (inside a partial keystream block and a partial GHASH block) goes
/// on independently: both finish as the one-shot would for their own continuations.
#[test]
fn clone_mid_stream_continues_independently() {
    let key = [0x5a; 16];
    let nonce = [0x0f; 12];
    let head: Vec<u8> = (0..21u8).collect();
    let tails: [Vec<u8>; 2] = [(100..140u8).collect(), (7..10u8).collect()];
    for (name, gcm) in every_implementation(&key) {
        let mut first = gcm.encryptor(&nonce).unwrap();
        first.aad(b"shared header").unwrap();
        let mut head_out = head.clone();
        first.update(&mut head_out).unwrap();
        let second = first.clone();
        for (stream, tail) in [(first, &tails[0]), (second, &tails[1])] {
            let mut stream = stream;
            let mut tail_out = tail.clone();
            stream.update(&mut tail_out).unwrap();
            let tag = stream.finish();

            let mut expected = [&head[..], &tail[..]].concat();
            let expected_tag = gcm
                .encrypt(&nonce, b"shared header", &mut expected)
                .unwrap();
            assert_eq!([&head_out[..], &tail_out[..]].concat(), expected, "{name}");
            assert_eq!(tag, expected_tag, "{name}");
        }
    }
}
