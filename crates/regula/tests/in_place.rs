//! The caller-buffer cipher calls (`CipherKey::encrypt_in_place`, `decrypt_in_place`) and the
//! nonces the module makes for SM4-GCM under `gm`: known answers from the standards, the same
//! bytes as the allocating calls, typed errors with no partial output, and indicator counts.

mod common;

use std::collections::HashSet;

use common::unhex;
use regula::{Algorithm, Error, Module, Service};

fn module(name: &str) -> Module {
    Module::load_named(name).expect("built-in profile")
}

/// Approved `service` operations on `algorithm` in the module's counters.
fn approved_count(module: &Module, algorithm: Algorithm, service: Service) -> u64 {
    module
        .counters()
        .iter()
        .find(|row| row.algorithm == algorithm && row.service == service)
        .map_or(0, |row| row.approved)
}

/// Encrypts in place, checks the result against the allocating call and `expected` (a prefix
/// for CBC, whose PKCS#7 block follows), decrypts back in place, and counts both operations.
fn check(module: &Module, algorithm: Algorithm, key: &str, iv: &str, plain: &str, expected: &str) {
    let key = module.cipher_key(algorithm, &unhex(key)).unwrap();
    let (iv, plaintext, expected) = (unhex(iv), unhex(plain), unhex(expected));
    let before = approved_count(module, algorithm, Service::Encrypt);
    let mut buffer = plaintext.clone();
    let served = key.encrypt_in_place(&iv, &mut buffer).unwrap();
    assert!(served.is_approved(), "{algorithm}");
    assert_eq!(served.indicator().algorithm, algorithm);
    assert_eq!(served.indicator().service, Service::Encrypt);
    assert_eq!(buffer[..expected.len()], expected[..], "{algorithm}");
    let iv_arg = (!iv.is_empty()).then_some(&iv[..]);
    let allocated = key.encrypt(iv_arg, &plaintext).unwrap();
    assert_eq!(
        allocated.ciphertext, buffer,
        "{algorithm}: in place = allocating"
    );
    assert_eq!(
        approved_count(module, algorithm, Service::Encrypt),
        before + 2,
        "{algorithm}: one count per call"
    );
    let served = key.decrypt_in_place(&iv, &mut buffer).unwrap();
    assert_eq!(served.indicator().service, Service::Decrypt);
    assert_eq!(buffer, plaintext, "{algorithm}");
}

/// SM4 (`gm`): GB/T 32907-2016 Appendix A example 1 (ECB), and the CBC and CTR examples of
/// draft-ribose-cfrg-sm4 as in `shared/vectors/sm4-evp.txt`.
#[test]
fn sm4_known_answers_in_place() {
    let gm = module("gm");
    let key = "0123456789abcdeffedcba9876543210";
    check(
        &gm,
        Algorithm::Sm4Ecb,
        key,
        "",
        key,
        "681edf34d206965e86b3e94f536e4246",
    );
    check(
        &gm,
        Algorithm::Sm4Cbc,
        key,
        key,
        "0123456789abcdeffedcba98765432100123456789abcdeffedcba9876543210",
        "2677f46b09c122cc975533105bd4a22af6125f7275ce552c3a2bbcf533de8a3b",
    );
    check(
        &gm,
        Algorithm::Sm4Ctr,
        key,
        key,
        "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd\
         eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa",
        "c2b4759e78ac3cf43d0852f4e8d5f9fd7256e8a5fcb65a350ee00630912e4449\
         2a0b17e1b85b060d0fba612d8a95831638b361fd5ffacd942f081485a83ca35d",
    );
}

/// AES (`default`): NIST SP 800-38A F.5.5 (CTR-AES256) and F.2.1 (CBC-AES128) first blocks.
#[test]
fn aes_known_answers_in_place() {
    let default = module("default");
    check(
        &default,
        Algorithm::Aes256Ctr,
        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
        "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
        "6bc1bee22e409f96e93d7e117393172a",
        "601ec313775789a5b7a7f504bbf3d228",
    );
    check(
        &default,
        Algorithm::Aes128Cbc,
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "6bc1bee22e409f96e93d7e117393172a",
        "7649abac8119b246cee98e9b12e9197d",
    );
}

/// Short messages of every length up to 80 bytes: in place and allocating agree, and round trip.
#[test]
fn in_place_equals_allocating_for_short_messages() {
    let gm = module("gm");
    for algorithm in [Algorithm::Sm4Ctr, Algorithm::Sm4Cbc] {
        let key = gm.cipher_key(algorithm, &[0x42; 16]).unwrap();
        let iv = [9u8; 16];
        for len in 0..=80 {
            let plaintext: Vec<u8> = (0..len as u8).collect();
            let mut buffer = plaintext.clone();
            key.encrypt_in_place(&iv, &mut buffer).unwrap();
            let allocated = key.encrypt(Some(&iv), &plaintext).unwrap();
            assert_eq!(buffer, allocated.ciphertext, "{algorithm} {len}");
            key.decrypt_in_place(&iv, &mut buffer).unwrap();
            assert_eq!(buffer, plaintext, "{algorithm} {len}");
        }
    }
}

/// Wrong IV and ciphertext lengths are typed input errors that leave the buffer as it was and
/// count nothing; a failure during decryption (bad padding, a partial ECB block) wipes and
/// empties it.
#[test]
fn bad_input_gives_typed_errors_and_no_partial_output() {
    let gm = module("gm");
    let ctr = gm.cipher_key(Algorithm::Sm4Ctr, &[1; 16]).unwrap();
    let before = gm.counters();
    let mut buffer = b"unchanged".to_vec();
    for iv in [&[0u8; 15][..], &[0u8; 17][..], &[][..]] {
        let error = ctr.encrypt_in_place(iv, &mut buffer).unwrap_err();
        assert!(
            matches!(&error, Error::InvalidInput { reason } if reason.contains("IV")),
            "{error:?}"
        );
        assert_eq!(buffer, b"unchanged");
        ctr.decrypt_in_place(iv, &mut buffer).unwrap_err();
        assert_eq!(buffer, b"unchanged");
    }

    let ecb = gm.cipher_key(Algorithm::Sm4Ecb, &[1; 16]).unwrap();
    let error = ecb.encrypt_in_place(&[0; 16], &mut buffer).unwrap_err();
    assert!(
        matches!(&error, Error::InvalidInput { reason } if reason.contains("takes no IV")),
        "{error:?}"
    );
    assert_eq!(buffer, b"unchanged");
    let mut partial = vec![5u8; 17];
    let error = ecb.encrypt_in_place(&[], &mut partial).unwrap_err();
    assert!(matches!(error, Error::InvalidInput { .. }), "{error:?}");
    assert!(partial.is_empty(), "no partial output");

    let cbc = gm.cipher_key(Algorithm::Sm4Cbc, &[1; 16]).unwrap();
    let iv = [2u8; 16];
    let mut short = vec![0u8; 15];
    let error = cbc.decrypt_in_place(&iv, &mut short).unwrap_err();
    assert!(matches!(error, Error::InvalidInput { .. }), "{error:?}");
    assert_eq!(short, [0u8; 15], "a length error leaves the buffer");
    assert_eq!(gm.counters(), before, "failures count nothing");

    // A ciphertext whose padding cannot be valid under this key: no plaintext comes back.
    let mut ciphertext = b"sixteen byte msg".to_vec();
    cbc.encrypt_in_place(&iv, &mut ciphertext).unwrap();
    ciphertext.truncate(16);
    let mut tampered = ciphertext.clone();
    let error = loop {
        match cbc.decrypt_in_place(&iv, &mut tampered) {
            Err(error) => break error,
            // One block in 256 or so ends in valid padding; flip a byte and try again.
            Ok(_) => {
                ciphertext[0] ^= 1;
                tampered = ciphertext.clone();
            }
        }
    };
    assert!(matches!(error, Error::CryptoFailure), "{error:?}");
    assert!(tampered.is_empty(), "no plaintext after bad padding");
}

/// Under `gm` an SM4-GCM key's nonces follow SP 800-38D's deterministic construction from a
/// point drawn from the GM/T 0105 generator: consecutive invocation fields under one key, a
/// different starting point for a second key bound from the same bytes, every message opens,
/// and every seal is counted.
#[test]
fn gm_module_nonces_are_distinct_and_counted() {
    let gm = module("gm");
    let key = gm.aead_key(Algorithm::Sm4Gcm, &[7; 16]).unwrap();
    let other = gm.aead_key(Algorithm::Sm4Gcm, &[7; 16]).unwrap();
    let mut nonces = HashSet::new();
    for i in 0..200u32 {
        let message = i.to_be_bytes();
        let key = if i % 3 == 0 { &other } else { &key };
        let sealed = key.seal(b"aad", &message).unwrap();
        assert!(sealed.is_approved());
        assert!(nonces.insert(sealed.nonce), "nonce repeated at message {i}");
        let opened = key.open(&sealed.nonce, b"aad", &sealed.ciphertext).unwrap();
        assert_eq!(opened.into_value(), message);
    }
    assert_eq!(
        approved_count(&gm, Algorithm::Sm4Gcm, Service::Encrypt),
        200
    );
    let first = key.seal(b"", b"").unwrap().nonce;
    let second = key.seal(b"", b"").unwrap().nonce;
    assert_eq!(first[..4], second[..4], "fixed field");
    let invocation = |nonce: [u8; 12]| u64::from_be_bytes(nonce[4..].try_into().unwrap());
    assert_eq!(invocation(second), invocation(first).wrapping_add(1));
    let third_key = gm.aead_key(Algorithm::Sm4Gcm, &[7; 16]).unwrap();
    assert_ne!(
        third_key.seal(b"", b"").unwrap().nonce,
        first,
        "independent start"
    );
    assert_eq!(
        approved_count(&gm, Algorithm::Sm4Gcm, Service::Decrypt),
        200
    );
}

/// `Digester::digest_into`: FIPS 180-4 and GM/T 0004-2012 "abc" examples (and RFC 1321's MD5)
/// into a caller's buffer, the same bytes as `Module::digest`, one count per call, and a short
/// buffer refused with nothing written.
#[test]
fn digester_known_answers_into_caller_buffers() {
    let default = module("default");
    for (algorithm, expected) in [
        (
            Algorithm::Sha224,
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
        ),
        (
            Algorithm::Sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
        (
            Algorithm::Sha384,
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed\
             8086072ba1e7cc2358baeca134c825a7",
        ),
        (
            Algorithm::Sha512,
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
             2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        ),
        (
            Algorithm::Sm3,
            "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0",
        ),
        (Algorithm::Md5, "900150983cd24fb0d6963f7d28e17f72"),
    ] {
        let expected = unhex(expected);
        let digester = default.digester(algorithm).unwrap();
        assert_eq!(digester.output_len(), expected.len(), "{algorithm}");
        let before = default
            .counters()
            .iter()
            .find(|row| row.algorithm == algorithm && row.service == Service::Digest)
            .map_or(0, |row| row.approved + row.not_approved);
        let mut out = [0xeeu8; 80];
        let served = digester.digest_into(b"abc", &mut out).unwrap();
        assert_eq!(*served, expected.len());
        assert_eq!(served.indicator().algorithm, algorithm);
        assert_eq!(out[..expected.len()], expected[..], "{algorithm}");
        assert!(out[expected.len()..].iter().all(|&byte| byte == 0xee));
        let one_shot = default.digest(algorithm, b"abc").unwrap();
        assert_eq!(one_shot.into_value(), expected, "{algorithm}");
        let after = default
            .counters()
            .iter()
            .find(|row| row.algorithm == algorithm && row.service == Service::Digest)
            .map_or(0, |row| row.approved + row.not_approved);
        assert_eq!(after, before + 2, "{algorithm}: one count per call");

        let mut short = vec![0x11u8; expected.len() - 1];
        let error = digester.digest_into(b"abc", &mut short).unwrap_err();
        assert!(
            matches!(&error, Error::InvalidInput { reason } if reason.contains("shorter")),
            "{error:?}"
        );
        assert!(short.iter().all(|&byte| byte == 0x11), "nothing written");
    }
    // The policy's verdict is taken when the digester is made: MD5 is refused under FIPS rules.
    assert!(module("fips-140-3").digester(Algorithm::Md5).is_err());
}

/// Counts made on several threads at once add up: each thread counts in its own shard (or,
/// beyond the owned shards, in the shared one with atomic adds).
#[test]
fn counts_from_many_threads_add_up() {
    let default = module("default");
    let digester = default.digester(Algorithm::Sha256).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..40 {
            scope.spawn(|| {
                let mut out = [0u8; 32];
                for _ in 0..250 {
                    digester.digest_into(b"m", &mut out).unwrap();
                }
            });
        }
    });
    assert_eq!(
        approved_count(&default, Algorithm::Sha256, Service::Digest),
        40 * 250
    );
}
