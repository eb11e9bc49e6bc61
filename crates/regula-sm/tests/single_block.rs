//! The one-block paths (`encrypt_block`/`decrypt_block`, which CBC encryption and the CBC-MACs
//! chain through) against the portable backend, on every backend this CPU supports.
//!
//! The SIMD backends run single blocks on a separate latency-optimised path (the GFNI one keeps
//! its state in a transformed domain with its own key layout), so this checks that path on
//! its own rather than through the multi-block calls.

mod common;

use common::{backends, cipher};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regula_sm::sm4::backend::Backend;
use regula_sm::sm4::modes::{cbc_decrypt, cbc_encrypt};

/// Random keys and blocks: each backend's one-block encryption and decryption equal the
/// portable backend's, and its own multi-block path.
#[test]
fn one_block_path_matches_portable_backend() {
    let mut rng = StdRng::seed_from_u64(0x5111_4b10);
    for _ in 0..200 {
        let key: [u8; 16] = rng.random();
        let reference = cipher(&key, Backend::Soft);
        let blocks: Vec<[u8; 16]> = (0..8).map(|_| rng.random()).collect();
        let mut encrypted = blocks.clone();
        reference.encrypt_blocks(&mut encrypted);
        let mut decrypted = blocks.clone();
        reference.decrypt_blocks(&mut decrypted);
        for backend in backends() {
            let sm4 = cipher(&key, backend);
            for (i, block) in blocks.iter().enumerate() {
                let mut one = *block;
                sm4.encrypt_block(&mut one);
                assert_eq!(one, encrypted[i], "{backend} encrypt, key {key:02x?}");
                sm4.decrypt_block(&mut one);
                assert_eq!(one, *block, "{backend} round trip, key {key:02x?}");
                let mut one = *block;
                sm4.decrypt_block(&mut one);
                assert_eq!(one, decrypted[i], "{backend} decrypt, key {key:02x?}");
            }
        }
    }
}

/// Edge-case keys and blocks (all zero, all ones, single bits), where a wrong constant or byte
/// order in a transformed key schedule would show.
#[test]
fn one_block_path_on_structured_inputs() {
    let mut patterns: Vec<[u8; 16]> = vec![[0; 16], [0xff; 16]];
    for bit in [0, 7, 8, 31, 32, 63, 64, 95, 96, 127] {
        let mut block = [0u8; 16];
        block[bit / 8] = 1 << (bit % 8);
        patterns.push(block);
    }
    for key in &patterns {
        let reference = cipher(key, Backend::Soft);
        for block in &patterns {
            let mut expected = *block;
            reference.encrypt_block(&mut expected);
            for backend in backends() {
                let mut one = *block;
                cipher(key, backend).encrypt_block(&mut one);
                assert_eq!(
                    one, expected,
                    "{backend}, key {key:02x?}, block {block:02x?}"
                );
            }
        }
    }
}

/// Feeding each output back in, 10,000 times (like the GB/T 32907 example 2, shorter), on
/// every backend: the chained one-block path equals the portable backend's.
#[test]
fn chained_one_block_calls_match_portable_backend() {
    let mut rng = StdRng::seed_from_u64(2);
    let key: [u8; 16] = rng.random();
    let start: [u8; 16] = rng.random();
    let mut expected = start;
    let reference = cipher(&key, Backend::Soft);
    for _ in 0..10_000 {
        reference.encrypt_block(&mut expected);
    }
    for backend in backends() {
        let sm4 = cipher(&key, backend);
        let mut block = start;
        for _ in 0..10_000 {
            sm4.encrypt_block(&mut block);
        }
        assert_eq!(block, expected, "{backend}");
        for _ in 0..10_000 {
            sm4.decrypt_block(&mut block);
        }
        assert_eq!(block, start, "{backend}");
    }
}

/// CBC encryption (one block at a time) agrees across backends, and each backend's parallel
/// CBC decryption undoes it.
#[test]
fn cbc_encryption_matches_portable_backend() {
    let mut rng = StdRng::seed_from_u64(3);
    for len in [1, 2, 15, 16, 17, 64, 65, 100] {
        let key: [u8; 16] = rng.random();
        let iv: [u8; 16] = rng.random();
        let mut plaintext = vec![0u8; 16 * len];
        rng.fill(&mut plaintext[..]);
        let mut expected = plaintext.clone();
        cbc_encrypt(&cipher(&key, Backend::Soft), &iv, &mut expected).unwrap();
        for backend in backends() {
            let sm4 = cipher(&key, backend);
            let mut data = plaintext.clone();
            cbc_encrypt(&sm4, &iv, &mut data).unwrap();
            assert_eq!(data, expected, "{backend}, {len} blocks");
            cbc_decrypt(&sm4, &iv, &mut data).unwrap();
            assert_eq!(data, plaintext, "{backend}, {len} blocks");
        }
    }
}
