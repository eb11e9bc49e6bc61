//! Backend selection, cross-backend agreement, round trips and error handling.

mod common;

use common::{backends, cipher};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regula_sm::sm4::backend::{self, Backend};
use regula_sm::sm4::modes::{
    Ctr, cbc_decrypt, cbc_decrypt_padded, cbc_encrypt, cbc_encrypt_padded, ctr_apply_keystream,
    ecb_decrypt, ecb_encrypt,
};
use regula_sm::{Error, Sm4};

#[test]
fn backend_names_match_proc_crypto_style() {
    let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
    assert_eq!(
        names,
        [
            "sm4-soft",
            "sm4-aesni-avx2",
            "sm4-vaes-avx2",
            "sm4-gfni-avx512",
            "sm4-neon",
            "sm4-ce"
        ]
    );
    println!(
        "available: {:?}, active: {}",
        backend::available(),
        backend::active()
    );
}

#[test]
fn active_is_the_fastest_available_and_default() {
    let available = backends();
    assert_eq!(Some(&backend::active()), available.last());
    assert_eq!(Sm4::new(&[0; 16]).backend(), backend::active());
    for candidate in Backend::ALL {
        let forced = Sm4::with_backend(&[0; 16], candidate);
        assert_eq!(
            forced.is_some(),
            available.contains(&candidate),
            "{candidate}"
        );
        assert_eq!(forced.is_some(), candidate.is_available(), "{candidate}");
    }
}

/// On aarch64 the dispatch follows the CPU: the Crypto Extension where `sm4e` exists (QEMU's
/// `-cpu max`), NEON where it does not (`-cpu cortex-a72`), and so for SM3 and GHASH.
#[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
#[test]
fn aarch64_dispatch_follows_the_cpu() {
    use regula_sm::sm3::backend::{self as sm3_backend, Backend as Sm3Backend};
    let has_sm4 = std::arch::is_aarch64_feature_detected!("sm4");
    let expected = if has_sm4 { Backend::Ce } else { Backend::Neon };
    assert_eq!(backend::active(), expected);
    assert!(backend::available().contains(&Backend::Neon));
    assert_eq!(Backend::Ce.is_available(), has_sm4);
    assert_eq!(sm3_backend::active() == Sm3Backend::Ce, has_sm4);
    let ghash = regula_sm::sm4::modes::ghash_implementation();
    if std::arch::is_aarch64_feature_detected!("aes") {
        assert_eq!(ghash, "ghash-pmull");
    }
    println!(
        "sm4 {} sm3 {} {ghash}",
        backend::active(),
        sm3_backend::active()
    );
}

#[test]
fn cipher_types_are_thread_safe_and_wipe_on_drop() {
    fn assert_traits<T: Send + Sync + Clone + zeroize::ZeroizeOnDrop>() {}
    assert_traits::<Sm4>();
    fn assert_ctr<T: Send + Sync + zeroize::ZeroizeOnDrop>() {}
    assert_ctr::<Ctr<'static>>();
    for backend in backends() {
        let sm4 = std::sync::Arc::new(cipher(&[9; 16], backend));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let sm4 = std::sync::Arc::clone(&sm4);
                std::thread::spawn(move || {
                    let mut blocks = [[0u8; 16]; 70];
                    sm4.encrypt_blocks(&mut blocks);
                    (backend::active(), blocks)
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert!(
            results.windows(2).all(|pair| pair[0] == pair[1]),
            "{backend}"
        );
    }
}

#[test]
fn debug_output_hides_the_key() {
    for backend in backends() {
        let sm4 = cipher(&[0x42; 16], backend);
        let text = format!("{sm4:?} {:?}", Ctr::new(&sm4, &[0; 16]));
        assert!(text.contains(backend.name()), "{text}");
        assert!(!text.contains("42") && !text.contains("66"), "{text}");
    }
}

/// Single-block calls and one multi-block call agree on 101 blocks, on every backend, and all
/// backends agree with each other (after `cipher/src/dev/block_cipher.rs`).
#[test]
fn backends_agree_on_101_blocks() {
    let mut rng = StdRng::seed_from_u64(101);
    for _ in 0..4 {
        let key: [u8; 16] = rng.random();
        let plaintext: Vec<[u8; 16]> = (0..101).map(|_| rng.random()).collect();
        let mut results = Vec::new();
        for backend in backends() {
            let sm4 = cipher(&key, backend);
            let mut together = plaintext.clone();
            sm4.encrypt_blocks(&mut together);
            let mut one_by_one = plaintext.clone();
            for block in &mut one_by_one {
                sm4.encrypt_block(block);
            }
            assert_eq!(together, one_by_one, "{backend}");
            sm4.decrypt_blocks(&mut together);
            assert_eq!(together, plaintext, "{backend}");
            results.push((backend, one_by_one));
        }
        for (backend, result) in &results[1..] {
            assert_eq!(result, &results[0].1, "{backend} vs {}", results[0].0);
        }
    }
}

/// Short inputs (the GFNI backend runs up to four blocks on its latency-optimised rounds, one
/// block per lane) agree with single-block calls and with the portable backend: ECB both ways
/// and CTR, for 0 to 20 blocks and counters that carry across words and wrap modulo 2^128.
#[test]
fn backends_agree_on_short_inputs() {
    let mut rng = StdRng::seed_from_u64(4);
    let key: [u8; 16] = rng.random();
    let reference = cipher(&key, Backend::Soft);
    for blocks in 0..=20 {
        let plaintext: Vec<[u8; 16]> = (0..blocks).map(|_| rng.random()).collect();
        for backend in backends() {
            let sm4 = cipher(&key, backend);
            let mut together = plaintext.clone();
            sm4.encrypt_blocks(&mut together);
            let mut expected = plaintext.clone();
            for block in &mut expected {
                reference.encrypt_block(block);
            }
            assert_eq!(together, expected, "encrypt {backend} {blocks}");
            sm4.decrypt_blocks(&mut together);
            assert_eq!(together, plaintext, "decrypt {backend} {blocks}");

            for iv in [[0u8; 16], [0xff; 16], {
                let mut near_carry = [0x33u8; 16];
                near_carry[12..].copy_from_slice(&(u32::MAX - 1).to_be_bytes());
                near_carry
            }] {
                let mut data = plaintext.as_flattened().to_vec();
                ctr_apply_keystream(&sm4, &iv, &mut data);
                let mut keystream = Vec::new();
                for i in 0..blocks as u128 {
                    let mut block = u128::from_be_bytes(iv).wrapping_add(i).to_be_bytes();
                    reference.encrypt_block(&mut block);
                    keystream.extend_from_slice(&block);
                }
                let expected: Vec<u8> = plaintext
                    .as_flattened()
                    .iter()
                    .zip(&keystream)
                    .map(|(p, k)| p ^ k)
                    .collect();
                assert_eq!(data, expected, "CTR {backend} {blocks} {iv:02x?}");
            }
        }
    }
}

/// decrypt(encrypt(x)) = x for every mode, backend and length up to 80 blocks.
#[test]
fn round_trips() {
    let mut rng = StdRng::seed_from_u64(7);
    for backend in backends() {
        for len in (0..=16 * 80).step_by(16) {
            let key: [u8; 16] = rng.random();
            let iv: [u8; 16] = rng.random();
            let mut plaintext = vec![0u8; len];
            rng.fill(&mut plaintext[..]);
            let sm4 = cipher(&key, backend);

            let mut data = plaintext.clone();
            ecb_encrypt(&sm4, &mut data).unwrap();
            assert!(len == 0 || data != plaintext);
            ecb_decrypt(&sm4, &mut data).unwrap();
            assert_eq!(data, plaintext, "ECB {backend} {len}");

            cbc_encrypt(&sm4, &iv, &mut data).unwrap();
            cbc_decrypt(&sm4, &iv, &mut data).unwrap();
            assert_eq!(data, plaintext, "CBC {backend} {len}");

            let odd = &plaintext[..len.saturating_sub(len / 33)];
            let ciphertext = cbc_encrypt_padded(&sm4, &iv, odd);
            assert_eq!(ciphertext.len(), (odd.len() / 16 + 1) * 16);
            assert_eq!(
                cbc_decrypt_padded(&sm4, &iv, &ciphertext).unwrap(),
                odd,
                "CBC-PKCS7 {backend}"
            );

            let mut data = odd.to_vec();
            ctr_apply_keystream(&sm4, &iv, &mut data);
            ctr_apply_keystream(&sm4, &iv, &mut data);
            assert_eq!(data, odd, "CTR {backend} {}", odd.len());
        }
    }
}

#[test]
fn partial_blocks_are_rejected_without_panicking() {
    let iv = [2; 16];
    for backend in backends() {
        let sm4 = cipher(&[1; 16], backend);
        for len in [1, 15, 17, 31, 33, 1000] {
            let mut data = vec![0u8; len];
            let expected = Err(Error::InvalidLength { len });
            assert_eq!(ecb_encrypt(&sm4, &mut data), expected, "{backend}");
            assert_eq!(ecb_decrypt(&sm4, &mut data), expected, "{backend}");
            assert_eq!(cbc_encrypt(&sm4, &iv, &mut data), expected, "{backend}");
            assert_eq!(cbc_decrypt(&sm4, &iv, &mut data), expected, "{backend}");
            let padded = cbc_decrypt_padded(&sm4, &iv, &data);
            assert_eq!(padded, Err(Error::InvalidLength { len }), "{backend}");
            assert!(
                data.iter().all(|&b| b == 0),
                "rejected input is left untouched"
            );
        }
        let empty = cbc_decrypt_padded(&sm4, &iv, &[]);
        assert_eq!(empty, Err(Error::InvalidLength { len: 0 }), "{backend}");
    }
    let message = Error::InvalidLength { len: 17 }.to_string();
    assert!(message.contains("17"), "{message}");
}

#[test]
fn bad_padding_is_an_error() {
    let iv = [4; 16];
    let inconsistent = {
        let mut block = [0x03; 16];
        block[13] = 0x02;
        block
    };
    for backend in backends() {
        let sm4 = cipher(&[3; 16], backend);
        // Final plaintext blocks ending in 0x00, in 0x11 (> 16), and with an inconsistent pad,
        // after a valid first block.
        for last_block in [[0u8; 16], [0x11; 16], inconsistent] {
            let mut ciphertext = [[0x10; 16], last_block].concat();
            cbc_encrypt(&sm4, &iv, &mut ciphertext).unwrap();
            let result = cbc_decrypt_padded(&sm4, &iv, &ciphertext);
            assert_eq!(result, Err(Error::BadPadding), "{backend}");
        }
    }
    let error: Box<dyn std::error::Error> = Box::new(Error::BadPadding);
    assert_eq!(error.to_string(), "invalid PKCS#7 padding");
}

#[test]
fn ctr_streaming_equals_one_shot_for_every_split() {
    let iv = [0xff; 16];
    let plaintext: Vec<u8> = (0..100u8).collect();
    for backend in backends() {
        let sm4 = cipher(&[5; 16], backend);
        let mut expected = plaintext.clone();
        ctr_apply_keystream(&sm4, &iv, &mut expected);
        for split in 0..=plaintext.len() {
            let mut data = plaintext.clone();
            let mut ctr = Ctr::new(&sm4, &iv);
            let (head, tail) = data.split_at_mut(split);
            ctr.apply_keystream(head);
            ctr.apply_keystream(&mut []);
            ctr.apply_keystream(tail);
            assert_eq!(data, expected, "{backend}, split at {split}");
        }
    }
}
