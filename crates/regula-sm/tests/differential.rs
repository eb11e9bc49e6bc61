//! Differential tests against RustCrypto's `sm4`, `cbc` and `ctr` crates, an independent
//! implementation used only as a reference here.
//!
//! Random keys, IVs and data from a fixed seed; every length from 0 to 70 blocks and around 128
//! (around every backend's parallel widths: 2 for soft, 8/32 for AES-NI, 16/64 for GFNI), byte
//! lengths 0..=1200 for CTR, and random lengths up to 4096 bytes.

mod common;

use cipher::block_padding::{NoPadding, Pkcs7};
use cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit, StreamCipher};
use common::{backends, cipher, random_bytes, reference_ecb};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regula_sm::sm4::backend::Backend;
use regula_sm::sm4::modes::{
    Ctr, cbc_decrypt, cbc_decrypt_padded, cbc_encrypt, cbc_encrypt_padded, ctr_apply_keystream,
    ecb_decrypt, ecb_encrypt,
};

type ReferenceCbcEncryptor = cbc::Encryptor<sm4::Sm4>;
type ReferenceCbcDecryptor = cbc::Decryptor<sm4::Sm4>;
type ReferenceCtr = ctr::Ctr128BE<sm4::Sm4>;

/// Block counts: every count up to 70, around 128, and a full 4096-byte buffer.
fn block_counts() -> impl Iterator<Item = usize> {
    (0..=70).chain(126..=130).chain([256])
}

fn for_each_backend(test: impl Fn(Backend, &mut StdRng)) {
    for (index, backend) in backends().into_iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(0x5e4_0000 + index as u64);
        test(backend, &mut rng);
    }
}

#[test]
fn ecb_matches_reference() {
    for_each_backend(|backend, rng| {
        for blocks in block_counts() {
            let key: [u8; 16] = rng.random();
            let plaintext = random_bytes(rng, 16 * blocks);
            let sm4 = cipher(&key, backend);

            let mut data = plaintext.clone();
            ecb_encrypt(&sm4, &mut data).unwrap();
            assert_eq!(
                data,
                reference_ecb(&key, &plaintext, true),
                "{backend}, {blocks} blocks"
            );

            let mut data = plaintext.clone();
            ecb_decrypt(&sm4, &mut data).unwrap();
            assert_eq!(
                data,
                reference_ecb(&key, &plaintext, false),
                "{backend}, {blocks} blocks"
            );
        }
    });
}

#[test]
fn cbc_matches_reference() {
    for_each_backend(|backend, rng| {
        for blocks in block_counts() {
            let key: [u8; 16] = rng.random();
            let iv: [u8; 16] = rng.random();
            let plaintext = random_bytes(rng, 16 * blocks);
            let sm4 = cipher(&key, backend);
            let context = format!("{backend}, {blocks} blocks");

            let expected = ReferenceCbcEncryptor::new(&key.into(), &iv.into())
                .encrypt_padded_vec_mut::<NoPadding>(&plaintext);
            let mut data = plaintext.clone();
            cbc_encrypt(&sm4, &iv, &mut data).unwrap();
            assert_eq!(data, expected, "{context}");

            // Decrypting random data checks the parallel path independently of our encryption.
            let expected = ReferenceCbcDecryptor::new(&key.into(), &iv.into())
                .decrypt_padded_vec_mut::<NoPadding>(&plaintext)
                .unwrap();
            let mut data = plaintext.clone();
            cbc_decrypt(&sm4, &iv, &mut data).unwrap();
            assert_eq!(data, expected, "{context}");
        }
    });
}

#[test]
fn cbc_pkcs7_matches_reference() {
    for_each_backend(|backend, rng| {
        let lengths = (0..=100)
            .chain((0..20).map(|_| rng.random_range(0..=4096)))
            .collect::<Vec<_>>();
        for len in lengths {
            let key: [u8; 16] = rng.random();
            let iv: [u8; 16] = rng.random();
            let plaintext = random_bytes(rng, len);
            let sm4 = cipher(&key, backend);

            let expected = ReferenceCbcEncryptor::new(&key.into(), &iv.into())
                .encrypt_padded_vec_mut::<Pkcs7>(&plaintext);
            let ciphertext = cbc_encrypt_padded(&sm4, &iv, &plaintext);
            assert_eq!(ciphertext, expected, "{backend}, {len} bytes");
            assert_eq!(
                cbc_decrypt_padded(&sm4, &iv, &ciphertext).unwrap(),
                plaintext
            );
        }
    });
}

#[test]
fn ctr_matches_reference() {
    for_each_backend(|backend, rng| {
        let lengths = (0..=1200)
            .chain((0..20).map(|_| rng.random_range(0..=4096)))
            .chain([4096])
            .collect::<Vec<_>>();
        for len in lengths {
            let key: [u8; 16] = rng.random();
            let iv: [u8; 16] = rng.random();
            let plaintext = random_bytes(rng, len);
            let sm4 = cipher(&key, backend);

            let mut expected = plaintext.clone();
            ReferenceCtr::new(&key.into(), &iv.into()).apply_keystream(&mut expected);
            let mut data = plaintext.clone();
            ctr_apply_keystream(&sm4, &iv, &mut data);
            assert_eq!(data, expected, "{backend}, {len} bytes");
        }
    });
}

/// The 128-bit counter wraps from ff..ff to 00..00, as in the reference and in OpenSSL.
#[test]
fn ctr_counter_wraps_like_reference() {
    for_each_backend(|backend, rng| {
        for start in [
            u128::MAX,
            u128::MAX - 5,
            u64::MAX as u128,
            u32::MAX as u128 - 2,
        ] {
            let key: [u8; 16] = rng.random();
            let iv = start.to_be_bytes();
            let plaintext = random_bytes(rng, 16 * 60 + 5);
            let sm4 = cipher(&key, backend);

            let mut expected = plaintext.clone();
            ReferenceCtr::new(&key.into(), &iv.into()).apply_keystream(&mut expected);
            let mut data = plaintext.clone();
            ctr_apply_keystream(&sm4, &iv, &mut data);
            assert_eq!(data, expected, "{backend}, counter {start:#x}");
        }
    });
}

/// Streaming CTR over random split points equals the reference on the whole buffer.
#[test]
fn ctr_streaming_matches_reference() {
    for_each_backend(|backend, rng| {
        for _ in 0..50 {
            let key: [u8; 16] = rng.random();
            let iv: [u8; 16] = rng.random();
            let len = rng.random_range(0..=4096);
            let plaintext = random_bytes(rng, len);
            let sm4 = cipher(&key, backend);

            let mut expected = plaintext.clone();
            ReferenceCtr::new(&key.into(), &iv.into()).apply_keystream(&mut expected);

            let mut data = plaintext.clone();
            let mut ctr = Ctr::new(&sm4, &iv);
            let mut rest = &mut data[..];
            while !rest.is_empty() {
                let take = rng.random_range(0..=rest.len().min(300));
                let (piece, after) = rest.split_at_mut(take);
                ctr.apply_keystream(piece);
                rest = after;
            }
            assert_eq!(data, expected, "{backend}, {} bytes", plaintext.len());
        }
    });
}
