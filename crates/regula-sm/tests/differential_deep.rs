//! Deep differential tests: every SM primitive and mode against two independent implementations
//! in the same process, RustCrypto's crates and Tongsuo's libcrypto (a C implementation, loaded
//! at run time; see `common/tongsuo.rs` and `scripts/tongsuo-lib`).
//!
//! Each case draws a random key, IV or nonce and a length from 0 to 64 KiB, biased to short
//! messages and to lengths around block and batch boundaries (1, 2, 4, 8, 16, 32, 64 blocks ± 1
//! byte), places the data at a random offset in its buffer (so it is not 16-byte aligned), and
//! runs it on every SM4, SM3 and GHASH backend this CPU has, against both peers' results.
//!
//! Cases per primitive: `REGULA_DIFF_CASES` (default 10,000 in an optimised build, 500 in a
//! debug build, where the peers' Rust code runs unoptimised; `scripts/test` runs this file in
//! release). The seed is printed, and `REGULA_DIFF_SEED` replays a run.
//! `REGULA_DIFF_SM4_BACKENDS` limits the SM4 backends (see [`sm4_backends`]). Without
//! `REGULA_TONGSUO_LIB` the Tongsuo half is skipped with a note on stderr, and under `CI=true`
//! it fails instead.
//!
//! Where Tongsuo lacks a mode (SM4 CBC-CS3, CBC-MAC and XCBC-MAC), its expected value is built
//! from Tongsuo's SM4-CBC/ECB by the standard's definition, written here in a few lines.

mod common;
use common::{random_bytes, reference_ecb};
#[path = "common/tongsuo.rs"]
mod tongsuo;

use std::ffi::CStr;
use std::time::Instant;

use cipher::generic_array::GenericArray;
use cipher::{BlockEncrypt, KeyInit, KeyIvInit, StreamCipher};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regula_sm::Sm4;
use regula_sm::sm3::backend::Backend as Sm3Backend;
use regula_sm::sm4::backend::Backend;
use regula_sm::sm4::modes::{self, Sm4Ccm, Sm4Gcm, Xts, XtsStandard};
use tongsuo::Tongsuo;

/// Cases per primitive; see the module documentation.
fn cases() -> usize {
    match std::env::var("REGULA_DIFF_CASES") {
        Ok(text) => text.parse().expect("REGULA_DIFF_CASES is a number"),
        Err(_) if cfg!(debug_assertions) => 500,
        Err(_) => 10_000,
    }
}

/// The run's seed: `REGULA_DIFF_SEED`, or fresh (printed, to replay a failure).
fn seed(primitive: &str) -> u64 {
    let base = std::env::var("REGULA_DIFF_SEED")
        .map(|text| text.parse::<u64>().expect("REGULA_DIFF_SEED is a number"))
        .unwrap_or_else(|_| rand::random());
    eprintln!("{primitive}: REGULA_DIFF_SEED={base}");
    // Each primitive gets its own stream from the one seed.
    base ^ primitive.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Runs `body` for each case and reports the count and time on stderr.
fn run(primitive: &str, mut body: impl FnMut(&mut StdRng, usize)) {
    let mut rng = StdRng::seed_from_u64(seed(primitive));
    let count = cases();
    let start = Instant::now();
    for case in 0..count {
        body(&mut rng, case);
    }
    eprintln!(
        "{primitive}: {count} cases on {} in {:.1} s ({})",
        backend_names(primitive),
        start.elapsed().as_secs_f64(),
        if tongsuo::load().is_some() {
            "RustCrypto + Tongsuo"
        } else {
            "RustCrypto only: Tongsuo SKIPPED"
        }
    );
}

/// The SM4 backends each case runs on: every one this CPU has, or only those named in
/// `REGULA_DIFF_SM4_BACKENDS` (comma-separated, e.g. `sm4-aesni-avx2,sm4-gfni-avx512`). The
/// portable backend computes its S-box and takes about 80% of a run, so a long run can give the
/// fast backends 10⁶ cases and the portable one fewer, in two invocations.
fn sm4_backends() -> Vec<Backend> {
    let available = common::backends();
    let Ok(list) = std::env::var("REGULA_DIFF_SM4_BACKENDS") else {
        return available;
    };
    let names: Vec<&str> = available.iter().map(|backend| backend.name()).collect();
    let chosen: Vec<Backend> = list
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            *available
                .iter()
                .find(|backend| backend.name() == name)
                .unwrap_or_else(|| {
                    panic!(
                        "REGULA_DIFF_SM4_BACKENDS: {name:?} is not an SM4 backend of this CPU ({})",
                        names.join(", ")
                    )
                })
        })
        .collect();
    assert!(
        !chosen.is_empty(),
        "REGULA_DIFF_SM4_BACKENDS names no backend"
    );
    chosen
}

/// The backends a primitive's cases ran on.
fn backend_names(primitive: &str) -> String {
    let names = |list: Vec<&'static str>| list.join(", ");
    if primitive.contains("SM3") {
        names(
            regula_sm::sm3::backend::available()
                .iter()
                .map(|b| b.name())
                .collect(),
        )
    } else {
        let sm4 = names(sm4_backends().iter().map(|b| b.name()).collect());
        if primitive.contains("GCM") {
            format!("{sm4} x {}", names(modes::ghash_implementations()))
        } else {
            sm4
        }
    }
}

/// A length in 0..=`max`: a third short (≤ 256 bytes), a quarter near a block or batch
/// boundary, most of the rest up to 4 KiB, one in twenty up to `max`.
fn length(rng: &mut StdRng, max: usize) -> usize {
    let len = match rng.random_range(0..20) {
        0..=6 => rng.random_range(0..=256),
        7..=11 => {
            let blocks = [
                1usize, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 128, 256, 4096,
            ];
            let base = 16 * blocks[rng.random_range(0..blocks.len())];
            (base + rng.random_range(0..=2)).saturating_sub(1)
        }
        12..=18 => rng.random_range(0..=4096),
        _ => rng.random_range(0..=max),
    };
    len.min(max)
}

/// `data` copied to a random offset 0..16 of a fresh buffer: (buffer, offset).
fn misaligned(rng: &mut StdRng, data: &[u8]) -> (Vec<u8>, usize) {
    let offset = rng.random_range(0..16);
    let mut buffer = vec![0u8; offset + data.len()];
    buffer[offset..].copy_from_slice(data);
    (buffer, offset)
}

/// Applies `f` to a misaligned copy of `data` and returns the result.
fn on_misaligned(rng: &mut StdRng, data: &[u8], f: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let (mut buffer, offset) = misaligned(rng, data);
    f(&mut buffer[offset..]);
    buffer.split_off(offset)
}

fn sm4(key: &[u8; 16], backend: Backend) -> Sm4 {
    common::cipher(key, backend)
}

fn peer() -> Option<&'static Tongsuo> {
    tongsuo::load()
}

const MAX: usize = 64 * 1024;

/// One direction of an unpadded SM4 mode, checked in full: Tongsuo's cipher `name` must give
/// `expected` (RustCrypto's result) from `data`, and so must `ours` on every SM4 backend, each
/// time on a misaligned copy of `data`.
fn check_sm4_mode(
    rng: &mut StdRng,
    case: usize,
    (name, encrypt): (&CStr, bool),
    (key, iv): (&[u8; 16], &[u8]),
    data: &[u8],
    expected: &[u8],
    ours: impl Fn(&Sm4, &mut [u8]),
) {
    if let Some(peer) = peer() {
        assert_eq!(
            peer.cipher(name, encrypt, key, iv, None, data).unwrap(),
            expected,
            "case {case}: Tongsuo {name:?}"
        );
    }
    for backend in sm4_backends() {
        let cipher = sm4(key, backend);
        let result = on_misaligned(rng, data, |d| ours(&cipher, d));
        assert_eq!(
            result,
            expected,
            "case {case}: {name:?} on {backend}, {} bytes",
            data.len()
        );
    }
}

#[test]
fn sm3_and_hmac_sm3() {
    use hmac::{Mac, digest::Digest};
    let backends = regula_sm::sm3::backend::available();
    run("SM3", |rng, case| {
        let message = {
            let len = length(rng, MAX);
            random_bytes(rng, len)
        };
        let expected: [u8; 32] = sm3::Sm3::digest(&message).into();
        if let Some(peer) = peer() {
            assert_eq!(
                peer.sm3(&message),
                expected,
                "case {case}: Tongsuo vs RustCrypto SM3"
            );
        }
        let split = rng.random_range(0..=message.len());
        let (buffer, offset) = misaligned(rng, &message);
        for &backend in &backends {
            let mut hash = regula_sm::sm3::Sm3::with_backend(backend).unwrap();
            hash.update(&buffer[offset..offset + split]);
            hash.update(&buffer[offset + split..]);
            assert_eq!(
                hash.finalize(),
                expected,
                "case {case}: {backend}, {} bytes",
                message.len()
            );
        }
    });
    run("HMAC-SM3", |rng, case| {
        // Keys around the 64-byte block: shorter ones are padded, longer ones hashed first.
        let key = {
            let len = rng.random_range(0..=160);
            random_bytes(rng, len)
        };
        let message = {
            let len = length(rng, MAX);
            random_bytes(rng, len)
        };
        let mut reference = <hmac::Hmac<sm3::Sm3> as hmac::KeyInit>::new_from_slice(&key).unwrap();
        reference.update(&message);
        let expected: [u8; 32] = reference.finalize().into_bytes().into();
        if let Some(peer) = peer() {
            let theirs = peer.mac(c"HMAC", (c"digest", c"SM3"), &key, &message);
            assert_eq!(
                theirs, expected,
                "case {case}: Tongsuo vs RustCrypto HMAC-SM3"
            );
        }
        let (buffer, offset) = misaligned(rng, &message);
        for &backend in &backends {
            let mut mac = regula_sm::sm3::HmacSm3::with_backend(&key, backend).unwrap();
            mac.update(&buffer[offset..]);
            assert_eq!(
                mac.finalize(),
                expected,
                "case {case}: {backend}, key {} bytes",
                key.len()
            );
        }
    });
    // The chosen backend is among those tested.
    assert!(backends.contains(&regula_sm::sm3::backend::active()));
    assert!(backends.contains(&Sm3Backend::RustCrypto));
}

#[test]
fn sm4_ecb_and_cbc() {
    use cipher::block_padding::NoPadding;
    use cipher::{BlockDecryptMut, BlockEncryptMut};
    run("SM4-ECB", |rng, case| {
        let key: [u8; 16] = rng.random();
        let data = {
            let len = length(rng, MAX) / 16 * 16;
            random_bytes(rng, len)
        };
        let encrypted = reference_ecb(&key, &data, true);
        let decrypted = reference_ecb(&key, &data, false);
        let keys = (&key, &[][..]);
        check_sm4_mode(
            rng,
            case,
            (c"SM4-ECB", true),
            keys,
            &data,
            &encrypted,
            |c, d| modes::ecb_encrypt(c, d).unwrap(),
        );
        check_sm4_mode(
            rng,
            case,
            (c"SM4-ECB", false),
            keys,
            &data,
            &decrypted,
            |c, d| modes::ecb_decrypt(c, d).unwrap(),
        );
    });
    run("SM4-CBC", |rng, case| {
        let key: [u8; 16] = rng.random();
        let iv: [u8; 16] = rng.random();
        let data = {
            let len = length(rng, MAX) / 16 * 16;
            random_bytes(rng, len)
        };
        let encrypted = cbc::Encryptor::<sm4::Sm4>::new(&key.into(), &iv.into())
            .encrypt_padded_vec_mut::<NoPadding>(&data);
        // Decrypting random data checks the parallel path independently of our encryption.
        let decrypted = cbc::Decryptor::<sm4::Sm4>::new(&key.into(), &iv.into())
            .decrypt_padded_vec_mut::<NoPadding>(&data)
            .unwrap();
        let keys = (&key, &iv[..]);
        check_sm4_mode(
            rng,
            case,
            (c"SM4-CBC", true),
            keys,
            &data,
            &encrypted,
            |c, d| modes::cbc_encrypt(c, &iv, d).unwrap(),
        );
        check_sm4_mode(
            rng,
            case,
            (c"SM4-CBC", false),
            keys,
            &data,
            &decrypted,
            |c, d| modes::cbc_decrypt(c, &iv, d).unwrap(),
        );
    });
}

#[test]
fn sm4_ctr_cfb_ofb() {
    run("SM4-CTR", |rng, case| {
        let key: [u8; 16] = rng.random();
        // One case in eight starts just below a 32-, 64- or 128-bit counter wrap.
        let iv: [u8; 16] = if rng.random_range(0..8) == 0 {
            let below = rng.random_range(0..80u128);
            let wrap = [u32::MAX as u128, u64::MAX as u128, u128::MAX][rng.random_range(0..3)];
            let high = if wrap == u128::MAX {
                0
            } else {
                rng.random::<u128>() & !wrap
            };
            (high | (wrap - below)).to_be_bytes()
        } else {
            rng.random()
        };
        let data = {
            let len = length(rng, MAX);
            random_bytes(rng, len)
        };
        let mut expected = data.clone();
        ctr::Ctr128BE::<sm4::Sm4>::new(&key.into(), &iv.into()).apply_keystream(&mut expected);
        let keys = (&key, &iv[..]);
        check_sm4_mode(
            rng,
            case,
            (c"SM4-CTR", true),
            keys,
            &data,
            &expected,
            |c, d| modes::ctr_apply_keystream(c, &iv, d),
        );
    });
    run("SM4-CFB128", |rng, case| {
        use cipher::AsyncStreamCipher;
        let key: [u8; 16] = rng.random();
        let iv: [u8; 16] = rng.random();
        let data = {
            let len = length(rng, MAX);
            random_bytes(rng, len)
        };
        let mut encrypted = data.clone();
        cfb_mode::Encryptor::<sm4::Sm4>::new(&key.into(), &iv.into()).encrypt(&mut encrypted);
        let mut decrypted = data.clone();
        cfb_mode::Decryptor::<sm4::Sm4>::new(&key.into(), &iv.into()).decrypt(&mut decrypted);
        let keys = (&key, &iv[..]);
        check_sm4_mode(
            rng,
            case,
            (c"SM4-CFB", true),
            keys,
            &data,
            &encrypted,
            |c, d| modes::cfb_encrypt(c, &iv, d),
        );
        check_sm4_mode(
            rng,
            case,
            (c"SM4-CFB", false),
            keys,
            &data,
            &decrypted,
            |c, d| modes::cfb_decrypt(c, &iv, d),
        );
    });
    run("SM4-OFB", |rng, case| {
        let key: [u8; 16] = rng.random();
        let iv: [u8; 16] = rng.random();
        let data = {
            let len = length(rng, MAX);
            random_bytes(rng, len)
        };
        let mut expected = data.clone();
        ofb::Ofb::<sm4::Sm4>::new(&key.into(), &iv.into()).apply_keystream(&mut expected);
        let keys = (&key, &iv[..]);
        check_sm4_mode(
            rng,
            case,
            (c"SM4-OFB", true),
            keys,
            &data,
            &expected,
            |c, d| modes::ofb_apply_keystream(c, &iv, d),
        );
    });
}

#[test]
fn sm4_gcm() {
    use aes_gcm::AesGcm;
    use aes_gcm::aead::consts::U12;
    use aes_gcm::aead::{AeadInPlace, KeyInit as _};
    let ghashes = modes::ghash_implementations();
    run("SM4-GCM", |rng, case| {
        let key: [u8; 16] = rng.random();
        // The recommended 96-bit nonce mostly; other lengths go through GHASH (Tongsuo only).
        let nonce = {
            let len = if rng.random_range(0..4) == 0 {
                rng.random_range(1..=64)
            } else {
                12
            };
            random_bytes(rng, len)
        };
        let aad = {
            let len = if rng.random_range(0..4) == 0 {
                length(rng, 4096)
            } else {
                rng.random_range(0..=40)
            };
            random_bytes(rng, len)
        };
        let plaintext = {
            let len = length(rng, MAX);
            random_bytes(rng, len)
        };
        let tag_len = [16, 16, 16, 15, 14, 13, 12, 8, 4][rng.random_range(0..9)];

        let mut expected: Option<(Vec<u8>, Vec<u8>)> = None;
        if nonce.len() == 12 {
            let reference = AesGcm::<sm4::Sm4, U12>::new(GenericArray::from_slice(&key));
            let mut ciphertext = plaintext.clone();
            let tag = reference
                .encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut ciphertext)
                .unwrap();
            expected = Some((ciphertext, tag[..tag_len].to_vec()));
        }
        if let Some(peer) = peer() {
            let theirs = peer.aead_encrypt(false, &key, &nonce, &aad, &plaintext, tag_len);
            if let Some(expected) = &expected {
                assert_eq!(&theirs, expected, "case {case}: Tongsuo vs RustCrypto");
            }
            expected = Some(theirs);
        }
        let Some((ciphertext, tag)) = expected else {
            return; // a non-96-bit nonce without Tongsuo: no peer
        };
        for backend in sm4_backends() {
            for ghash in &ghashes {
                let gcm = Sm4Gcm::with_backends(&key, backend, ghash).unwrap();
                let context = format!(
                    "case {case}: {backend} {ghash}, {} bytes, nonce {}",
                    plaintext.len(),
                    nonce.len()
                );
                let mut ours_tag = vec![0u8; tag_len];
                let ours = on_misaligned(rng, &plaintext, |d| {
                    gcm.encrypt_with_tag_len(&nonce, &aad, d, &mut ours_tag)
                        .unwrap()
                });
                assert_eq!((&ours, &ours_tag), (&ciphertext, &tag), "{context}");
                let ours = on_misaligned(rng, &ciphertext, |d| {
                    gcm.decrypt(&nonce, &aad, d, &tag).unwrap()
                });
                assert_eq!(ours, plaintext, "{context}");
                // Out of place: the input read where it lies, the output misaligned and
                // starting as the input (never as the answer).
                let mut ours_tag = vec![0u8; tag_len];
                let ours = on_misaligned(rng, &plaintext, |d| {
                    gcm.encrypt_into(&nonce, &aad, &plaintext, d, &mut ours_tag)
                        .unwrap()
                });
                assert_eq!((&ours, &ours_tag), (&ciphertext, &tag), "{context}, into");
                let ours = on_misaligned(rng, &ciphertext, |d| {
                    gcm.decrypt_into(&nonce, &aad, &ciphertext, &tag, d)
                        .unwrap()
                });
                assert_eq!(ours, plaintext, "{context}, into");
            }
        }
        // A flipped tag bit is refused by Tongsuo as by us.
        if let Some(peer) = peer() {
            let mut bad = tag.clone();
            bad[rng.random_range(0..tag_len)] ^= 1 << rng.random_range(0..8);
            assert!(
                peer.aead_decrypt(false, &key, &nonce, &aad, &ciphertext, &bad)
                    .is_none()
            );
            assert_eq!(
                peer.aead_decrypt(false, &key, &nonce, &aad, &ciphertext, &tag)
                    .as_deref(),
                Some(&plaintext[..])
            );
            let mut data = ciphertext.clone();
            assert!(
                Sm4Gcm::new(&key)
                    .decrypt(&nonce, &aad, &mut data, &bad)
                    .is_err()
            );
        }
    });
}

#[test]
fn sm4_ccm() {
    use aes_gcm::aead::consts::{U12, U16};
    use aes_gcm::aead::{AeadInPlace, KeyInit as _};
    run("SM4-CCM", |rng, case| {
        let key: [u8; 16] = rng.random();
        // Nonces of 7..=13 bytes (SP 800-38C); RustCrypto is instantiated for 12 and 16.
        let nonce = {
            let len = if rng.random_range(0..2) == 0 {
                12
            } else {
                rng.random_range(7..=13)
            };
            random_bytes(rng, len)
        };
        let tag_len = if nonce.len() == 12 && rng.random_range(0..2) == 0 {
            16
        } else {
            2 * rng.random_range(2..=8)
        };
        let aad = {
            let len = if rng.random_range(0..4) == 0 {
                length(rng, 4096)
            } else {
                rng.random_range(0..=40)
            };
            random_bytes(rng, len)
        };
        // A 13-byte nonce leaves 2 length bytes: at most 65,535 bytes of payload.
        let plaintext = {
            let len = length(rng, MAX - 1);
            random_bytes(rng, len)
        };

        let mut expected: Option<(Vec<u8>, Vec<u8>)> = None;
        if nonce.len() == 12 && tag_len == 16 {
            let reference = ccm::Ccm::<sm4::Sm4, U16, U12>::new(GenericArray::from_slice(&key));
            let mut ciphertext = plaintext.clone();
            let tag = reference
                .encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut ciphertext)
                .unwrap();
            expected = Some((ciphertext, tag.to_vec()));
        }
        if let Some(peer) = peer() {
            let theirs = peer.aead_encrypt(true, &key, &nonce, &aad, &plaintext, tag_len);
            if let Some(expected) = &expected {
                assert_eq!(&theirs, expected, "case {case}: Tongsuo vs RustCrypto");
            }
            assert_eq!(
                peer.aead_decrypt(true, &key, &nonce, &aad, &theirs.0, &theirs.1)
                    .as_deref(),
                Some(&plaintext[..])
            );
            expected = Some(theirs);
        }
        let Some((ciphertext, tag)) = expected else {
            return;
        };
        for backend in sm4_backends() {
            let ccm = Sm4Ccm::with_backend(&key, backend).unwrap();
            let context = format!(
                "case {case}: {backend}, {} bytes, nonce {} tag {tag_len}",
                plaintext.len(),
                nonce.len()
            );
            let mut ours_tag = vec![0u8; tag_len];
            let ours = on_misaligned(rng, &plaintext, |d| {
                ccm.encrypt_with_tag_len(&nonce, &aad, d, &mut ours_tag)
                    .unwrap()
            });
            assert_eq!((&ours, &ours_tag), (&ciphertext, &tag), "{context}");
            let ours = on_misaligned(rng, &ciphertext, |d| {
                ccm.decrypt(&nonce, &aad, d, &tag).unwrap()
            });
            assert_eq!(ours, plaintext, "{context}");
        }
    });
}

#[test]
fn sm4_xts_both_standards() {
    for (name, standard, gb) in [
        ("SM4-XTS-GB", XtsStandard::GbT17964, true),
        ("SM4-XTS-IEEE", XtsStandard::Ieee1619, false),
    ] {
        if gb && peer().is_none() {
            // RustCrypto's xts-mode follows IEEE 1619 only: GB/T 17964 has no peer here.
            eprintln!("{name}: SKIPPED, no peer without Tongsuo");
            continue;
        }
        run(name, |rng, case| {
            let mut key: [u8; 32] = rng.random();
            while key[..16] == key[16..] {
                key = rng.random();
            }
            let tweak: [u8; 16] = rng.random();
            let plaintext = {
                let len = length(rng, MAX).max(16);
                random_bytes(rng, len)
            };
            let mut expected: Option<Vec<u8>> = None;
            if !gb {
                // RustCrypto's xts-mode follows IEEE 1619 only.
                let reference = xts_mode::Xts128::new(
                    sm4::Sm4::new(GenericArray::from_slice(&key[..16])),
                    sm4::Sm4::new(GenericArray::from_slice(&key[16..])),
                );
                let mut ciphertext = plaintext.clone();
                reference.encrypt_sector(&mut ciphertext, tweak);
                expected = Some(ciphertext);
            }
            if let Some(peer) = peer() {
                let label = if gb { c"GB" } else { c"IEEE" };
                let theirs = peer
                    .cipher(c"SM4-XTS", true, &key, &tweak, Some(label), &plaintext)
                    .unwrap();
                if let Some(expected) = &expected {
                    assert_eq!(&theirs, expected, "case {case}: Tongsuo vs RustCrypto");
                }
                let back = peer
                    .cipher(c"SM4-XTS", false, &key, &tweak, Some(label), &theirs)
                    .unwrap();
                assert_eq!(back, plaintext, "case {case}: Tongsuo round trip");
                expected = Some(theirs);
            }
            let Some(ciphertext) = expected else {
                return;
            };
            for backend in sm4_backends() {
                let xts = Xts::with_backend(&key, standard, backend).unwrap().unwrap();
                let context = format!("case {case}: {backend}, {} bytes", plaintext.len());
                let ours = on_misaligned(rng, &plaintext, |d| xts.encrypt(&tweak, d).unwrap());
                assert_eq!(ours, ciphertext, "{context}");
                let ours = on_misaligned(rng, &ciphertext, |d| xts.decrypt(&tweak, d).unwrap());
                assert_eq!(ours, plaintext, "{context}");
            }
        });
    }
}

/// NIST SP 800-38A Addendum, CBC-CS3, from Tongsuo's SM4-CBC: CBC over the zero-padded
/// message, the last two blocks swapped and the (new) last one cut to the message's tail.
/// One block is plain CBC.
fn cs3_from_cbc(peer: &Tongsuo, key: &[u8; 16], iv: &[u8; 16], plaintext: &[u8]) -> Vec<u8> {
    let len = plaintext.len();
    let mut padded = plaintext.to_vec();
    padded.resize(len.div_ceil(16) * 16, 0);
    let mut cbc = peer
        .cipher(c"SM4-CBC", true, key, iv, None, &padded)
        .unwrap();
    if len > 16 {
        let n = cbc.len();
        let last = cbc[n - 16..].to_vec();
        let before = cbc[n - 32..n - 16].to_vec();
        cbc[n - 32..n - 16].copy_from_slice(&last);
        cbc[n - 16..].copy_from_slice(&before);
        cbc.truncate(len);
    }
    cbc
}

#[test]
fn sm4_cbc_cs3() {
    use cts::{Decrypt, Encrypt};
    run("SM4-CBC-CS3", |rng, case| {
        let key: [u8; 16] = rng.random();
        let iv: [u8; 16] = rng.random();
        let plaintext = {
            let len = length(rng, MAX).max(16);
            random_bytes(rng, len)
        };
        let mut expected = plaintext.clone();
        if plaintext.len() > 16 {
            cts::CbcCs3Enc::<sm4::Sm4>::new(&key.into(), &iv.into())
                .encrypt(&mut expected)
                .unwrap();
        } else {
            // RustCrypto `cts` steals even for one block; CS3 leaves it as plain CBC.
            use cipher::BlockEncryptMut;
            use cipher::block_padding::NoPadding;
            expected = cbc::Encryptor::<sm4::Sm4>::new(&key.into(), &iv.into())
                .encrypt_padded_vec_mut::<NoPadding>(&plaintext);
        }
        if let Some(peer) = peer() {
            assert_eq!(
                cs3_from_cbc(peer, &key, &iv, &plaintext),
                expected,
                "case {case}: Tongsuo CBC vs RustCrypto cts"
            );
        }
        if plaintext.len() > 16 {
            let mut back = expected.clone();
            cts::CbcCs3Dec::<sm4::Sm4>::new(&key.into(), &iv.into())
                .decrypt(&mut back)
                .unwrap();
            assert_eq!(back, plaintext);
        }
        for backend in sm4_backends() {
            let cipher = sm4(&key, backend);
            let context = format!("case {case}: {backend}, {} bytes", plaintext.len());
            let ours = on_misaligned(rng, &plaintext, |d| {
                modes::cbc_cs3_encrypt(&cipher, &iv, d).unwrap()
            });
            assert_eq!(ours, expected, "{context}");
            let ours = on_misaligned(rng, &expected, |d| {
                modes::cbc_cs3_decrypt(&cipher, &iv, d).unwrap()
            });
            assert_eq!(ours, plaintext, "{context}");
        }
    });
}

/// RFC 3566 XCBC from a peer's SM4 (`encrypt_block`) and CBC-MAC (`cbc_mac`).
fn xcbc_from(
    encrypt_block: impl Fn(&mut [u8; 16]),
    cbc_mac: impl Fn(&[u8; 16], &[u8]) -> [u8; 16],
    message: &[u8],
) -> [u8; 16] {
    let mut subkeys = [[1u8; 16], [2; 16], [3; 16]];
    for subkey in &mut subkeys {
        encrypt_block(subkey);
    }
    let [k1, k2, k3] = subkeys;
    let mut transformed = message.to_vec();
    let complete = !message.is_empty() && message.len().is_multiple_of(16);
    if !complete {
        transformed.push(0x80);
        transformed.resize(transformed.len().div_ceil(16) * 16, 0);
    }
    let start = transformed.len() - 16;
    for (byte, mask) in transformed[start..]
        .iter_mut()
        .zip(if complete { k2 } else { k3 })
    {
        *byte ^= mask;
    }
    cbc_mac(&k1, &transformed)
}

fn rustcrypto_cbc_mac(key: &[u8; 16], message: &[u8]) -> [u8; 16] {
    use cmac::Mac;
    let mut mac = <cbc_mac::CbcMac<sm4::Sm4> as KeyInit>::new(key.into());
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// ISO/IEC 9797-1 MAC algorithm 1, padding method 1, from Tongsuo's SM4-CBC with a zero IV.
fn tongsuo_cbc_mac(peer: &Tongsuo, key: &[u8; 16], message: &[u8]) -> [u8; 16] {
    let mut padded = message.to_vec();
    padded.resize(message.len().div_ceil(16) * 16, 0);
    let cbc = peer
        .cipher(c"SM4-CBC", true, key, &[0; 16], None, &padded)
        .unwrap();
    cbc[cbc.len() - 16..].try_into().unwrap()
}

#[test]
fn sm4_macs() {
    use cmac::Mac;
    run("SM4-CMAC", |rng, case| {
        let key: [u8; 16] = rng.random();
        let message = {
            let len = length(rng, MAX);
            random_bytes(rng, len)
        };
        let mut reference = <cmac::Cmac<sm4::Sm4> as KeyInit>::new(&key.into());
        reference.update(&message);
        let expected: [u8; 16] = reference.finalize().into_bytes().into();
        if let Some(peer) = peer() {
            assert_eq!(
                peer.mac(c"CMAC", (c"cipher", c"SM4-CBC"), &key, &message),
                expected,
                "case {case}"
            );
        }
        let (buffer, offset) = misaligned(rng, &message);
        for backend in sm4_backends() {
            let mac = modes::Cmac::with_backend(&key, backend).unwrap();
            assert_eq!(
                mac.compute(&buffer[offset..]),
                Ok(expected),
                "case {case}: {backend}, {} bytes",
                message.len()
            );
        }
    });
    run("SM4-CBC-MAC", |rng, case| {
        let key: [u8; 16] = rng.random();
        let message = {
            let len = length(rng, MAX).max(1);
            random_bytes(rng, len)
        };
        let expected = rustcrypto_cbc_mac(&key, &message);
        if let Some(peer) = peer() {
            assert_eq!(
                tongsuo_cbc_mac(peer, &key, &message),
                expected,
                "case {case}"
            );
        }
        let (buffer, offset) = misaligned(rng, &message);
        for backend in sm4_backends() {
            let mac = modes::CbcMac::with_backend(&key, backend).unwrap();
            assert_eq!(
                mac.compute(&buffer[offset..]),
                Ok(expected),
                "case {case}: {backend}, {} bytes",
                message.len()
            );
        }
    });
    run("SM4-XCBC-MAC", |rng, case| {
        let key: [u8; 16] = rng.random();
        let message = {
            let len = length(rng, MAX);
            random_bytes(rng, len)
        };
        let reference = sm4::Sm4::new(&key.into());
        let expected = xcbc_from(
            |block| reference.encrypt_block(GenericArray::from_mut_slice(block)),
            rustcrypto_cbc_mac,
            &message,
        );
        if let Some(peer) = peer() {
            let theirs = xcbc_from(
                |block| {
                    let out = peer
                        .cipher(c"SM4-ECB", true, &key, &[], None, block)
                        .unwrap();
                    block.copy_from_slice(&out);
                },
                |k1, data| tongsuo_cbc_mac(peer, k1, data),
                &message,
            );
            assert_eq!(theirs, expected, "case {case}");
        }
        let (buffer, offset) = misaligned(rng, &message);
        for backend in sm4_backends() {
            let mac = modes::Xcbc::with_backend(&key, backend).unwrap();
            assert_eq!(
                mac.compute(&buffer[offset..]),
                Ok(expected),
                "case {case}: {backend}, {} bytes",
                message.len()
            );
        }
    });
}

/// SM2 cases: `REGULA_DIFF_SM2_CASES` (default 10,000 optimised, 50 in a debug build, where
/// RustCrypto's curve arithmetic runs unoptimised); `REGULA_DIFF_CASES` does not change it.
fn sm2_cases() -> usize {
    match std::env::var("REGULA_DIFF_SM2_CASES") {
        Ok(text) => text.parse().expect("REGULA_DIFF_SM2_CASES is a number"),
        Err(_) if cfg!(debug_assertions) => 50,
        Err(_) => 10_000,
    }
}

/// A `rand_core` 0.10 generator (what RustCrypto's `sm2` 0.14 takes) over the test's `StdRng`.
struct PeerRng<'a>(&'a mut StdRng);

impl sm2::elliptic_curve::rand_core::TryRng for PeerRng<'_> {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.random())
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0.random())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.0.fill(dst);
        Ok(())
    }
}

impl sm2::elliptic_curve::rand_core::TryCryptoRng for PeerRng<'_> {}

/// SM2 signatures (SM3, distinguishing ID) and encryption (SM3 KDF and C3) between Regula,
/// RustCrypto's `sm2` (`dsa`, `pke`) and Tongsuo: each side's signatures verify on the other
/// two, each side decrypts the others' ciphertexts (GM/T 0009 ASN.1 with Tongsuo, C1‖C3‖C2
/// with RustCrypto), and a changed message fails everywhere.
#[test]
fn sm2_sign_verify_encrypt_decrypt() {
    use regula_sm::sm2::{self as ours, CiphertextFormat, PrivateKey, Signature};
    use sm2::dsa::signature::{Signer, Verifier};
    let count = sm2_cases();
    let mut rng = StdRng::seed_from_u64(seed("SM2"));
    let start = Instant::now();
    for case in 0..count {
        let rng = &mut rng;
        let key = loop {
            if let Ok(key) = PrivateKey::from_bytes(&rng.random::<[u8; 32]>()) {
                break key;
            }
        };
        let public = key.public_key();
        let pkcs8 = key.to_pkcs8_der().unwrap();
        let spki = public.to_spki_der().unwrap();
        // The default ID mostly; one case in eight a random printable one (RustCrypto takes
        // the ID as a `str`).
        let id: Vec<u8> = if rng.random_range(0..8) == 0 {
            // Not empty: OpenSSL-based peers take an empty ID as "no ID", i.e. the default.
            let len = rng.random_range(1..=40);
            (0..len).map(|_| rng.random_range(b' '..=b'~')).collect()
        } else {
            ours::DEFAULT_ID.to_vec()
        };
        let id_str = std::str::from_utf8(&id).unwrap();
        let message = {
            let len = length(rng, 2048);
            random_bytes(rng, len)
        };
        let mut random = |out: &mut [u8]| {
            rng.fill(out);
            Ok(())
        };
        let context = format!(
            "case {case}: id {} bytes, message {} bytes",
            id.len(),
            message.len()
        );

        let rc_signer = sm2::dsa::SigningKey::from_slice(id_str, &key.to_bytes()[..]).unwrap();
        let rc_verifier = rc_signer.verifying_key().clone();

        // Ours → both peers.
        let signature = ours::sign(&key, &id, &message, &mut random).unwrap();
        let rc_signature = sm2::dsa::Signature::from_slice(&signature.to_bytes()).unwrap();
        assert!(
            rc_verifier.verify(&message, &rc_signature).is_ok(),
            "{context}: RustCrypto rejects ours"
        );
        // Peers → ours.
        let theirs = rc_signer.sign(&message);
        let theirs = Signature::from_bytes(&theirs.to_bytes()).unwrap();
        assert_eq!(
            ours::verify(public, &id, &message, &theirs),
            Ok(()),
            "{context}: RustCrypto's"
        );
        // A changed message fails on both.
        let mut other = message.clone();
        other.push(rng.random());
        assert!(
            ours::verify(public, &id, &other, &signature).is_err(),
            "{context}"
        );
        assert!(
            rc_verifier.verify(&other, &rc_signature).is_err(),
            "{context}"
        );

        // Encryption needs a message of at least one byte.
        let mut plaintext = message.clone();
        if plaintext.is_empty() {
            plaintext.push(rng.random());
        }
        let mut random = |out: &mut [u8]| {
            rng.fill(out);
            Ok(())
        };
        let ciphertext =
            ours::encrypt(public, &plaintext, CiphertextFormat::C1C3C2, &mut random).unwrap();
        let rc_decrypter = sm2::pke::DecryptingKey::from_slice(&key.to_bytes()[..]).unwrap();
        assert_eq!(
            rc_decrypter.decrypt(&ciphertext).unwrap(),
            plaintext,
            "{context}: RustCrypto decrypts ours"
        );
        let theirs = rc_decrypter
            .encrypting_key()
            .encrypt(&mut PeerRng(rng), &plaintext)
            .unwrap();
        assert_eq!(
            ours::decrypt(&key, &theirs, CiphertextFormat::C1C3C2).unwrap(),
            plaintext,
            "{context}: RustCrypto's"
        );

        if let Some(peer) = peer() {
            assert!(
                peer.sm2_verify(&spki, &id, &message, &signature.to_der()),
                "{context}: Tongsuo rejects ours"
            );
            assert!(
                !peer.sm2_verify(&spki, &id, &other, &signature.to_der()),
                "{context}"
            );
            let theirs = Signature::from_der(&peer.sm2_sign(&pkcs8, &id, &message)).unwrap();
            assert_eq!(
                ours::verify(public, &id, &message, &theirs),
                Ok(()),
                "{context}: Tongsuo's"
            );
            let mut random = |out: &mut [u8]| {
                rng.fill(out);
                Ok(())
            };
            let ciphertext =
                ours::encrypt(public, &plaintext, CiphertextFormat::Asn1, &mut random).unwrap();
            assert_eq!(
                peer.sm2_decrypt(&pkcs8, &ciphertext).as_deref(),
                Some(&plaintext[..]),
                "{context}: Tongsuo decrypts ours"
            );
            let theirs = peer.sm2_encrypt(&spki, &plaintext);
            assert_eq!(
                ours::decrypt(&key, &theirs, CiphertextFormat::Asn1).unwrap(),
                plaintext,
                "{context}: Tongsuo's"
            );
        }
    }
    eprintln!(
        "SM2: {count} cases (sign, verify, encrypt, decrypt each way) in {:.1} s ({})",
        start.elapsed().as_secs_f64(),
        if peer().is_some() {
            "RustCrypto + Tongsuo"
        } else {
            "RustCrypto only: Tongsuo SKIPPED"
        }
    );
}
