//! Known answers from the standards for the algorithms Samba, SMB3 and the legacy protocols call,
//! through the public API. Each value is cited; none was produced by Regula.

mod common;

use common::unhex;
use regula::{Algorithm, ErrorKind, Module, Policy, Profile};

fn default_module() -> Module {
    Module::load(Policy::builtin(Profile::Default))
}

#[test]
fn md4_and_md5_of_abc() {
    let module = default_module();
    // RFC 1320 §A.5: MD4 ("abc").
    let md4 = module.digest(Algorithm::Md4, b"abc").unwrap();
    assert_eq!(*md4, unhex("a448017aaf21d8525fc10ae87aa6729d"));
    assert!(!md4.is_approved());
    // RFC 1321 §A.5: MD5 ("abc").
    let md5 = module.digest(Algorithm::Md5, b"abc").unwrap();
    assert_eq!(*md5, unhex("900150983cd24fb0d6963f7d28e17f72"));
    assert!(!md5.is_approved());
    // Incremental, and a copy taken half-way goes on independently.
    let mut context = module.digest_context(Algorithm::Md5).unwrap();
    context.update(b"a");
    let copy = context.try_clone().unwrap();
    context.update(b"bc");
    assert_eq!(*context.finish().unwrap(), *md5);
    // RFC 1321 §A.5: MD5 ("a").
    assert_eq!(
        *copy.finish().unwrap(),
        unhex("0cc175b9c0f1b6a831c399e269772661")
    );
}

#[test]
fn sha512_256_of_abc_is_fips_180_4s_example() {
    // NIST's FIPS 180-4 example (SHA512_256.pdf, "abc"), approved under fips-140-3.
    let module = Module::load(Policy::builtin(Profile::Fips1403));
    let digest = module.digest(Algorithm::Sha512_256, b"abc").unwrap();
    assert_eq!(
        *digest,
        unhex("53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23")
    );
    assert!(digest.is_approved());
}

#[test]
fn hmac_md5_and_hmac_sha1_rfc2202_case_1() {
    let module = default_module();
    // RFC 2202 §2, test_case 1: key = 0x0b × 16, data = "Hi There".
    let key = module.mac_key(Algorithm::HmacMd5, &[0x0b; 16]).unwrap();
    let tag = key.sign(b"Hi There").unwrap();
    assert_eq!(*tag, unhex("9294727a3638bb1c13f48ef8158bfc9d"));
    assert!(!tag.is_approved());
    // RFC 2202 §3, test_case 1: key = 0x0b × 20, data = "Hi There".
    let fips = Module::load(Policy::builtin(Profile::Fips1403));
    let key = fips.mac_key(Algorithm::HmacSha1, &[0x0b; 20]).unwrap();
    let tag = key.sign(b"Hi There").unwrap();
    assert_eq!(*tag, unhex("b617318655057264e28bc0b6fb378c8ef146be00"));
    assert!(tag.is_approved());
}

#[test]
fn aes_ccm_sp800_38c_example_1() {
    // SP 800-38C Appendix C.1, Example 1: Tlen = 32, Nlen = 56, Alen = 64, Plen = 32.
    let module = default_module();
    let key = module
        .aead_key_with_tag_len(
            Algorithm::Aes128Ccm,
            &unhex("404142434445464748494a4b4c4d4e4f"),
            4,
        )
        .unwrap();
    let nonce = unhex("10111213141516");
    let aad = unhex("0001020304050607");
    let sealed = key
        .seal_with_nonce(&nonce, &aad, &unhex("20212223"))
        .unwrap();
    assert_eq!(*sealed, unhex("7162015b4dac255d"));
    let opened = key.open(&nonce, &aad, &sealed).unwrap();
    assert_eq!(*opened, unhex("20212223"));
    let mut forged = sealed.to_vec();
    forged[5] ^= 1;
    assert_eq!(
        key.open(&nonce, &aad, &forged).unwrap_err().kind(),
        ErrorKind::Cryptographic
    );
}

#[test]
fn gmac_is_gcm_over_an_empty_plaintext() {
    // McGrew–Viega, "The Galois/Counter Mode of Operation", Appendix B, Test Case 1: K = 0^128,
    // IV = 0^96, P and A empty, T = 58e2fccefa7e3061367f1d57a4e7455a.
    let module = default_module();
    let key = module.mac_key(Algorithm::Aes128Gmac, &[0; 16]).unwrap();
    let tag = key.sign_with_nonce(&[0; 12], b"").unwrap();
    assert_eq!(*tag, unhex("58e2fccefa7e3061367f1d57a4e7455a"));
    // The same key through AES-128-GCM with the message as AAD gives the same tag.
    let gcm = module.aead_key(Algorithm::Aes128Gcm, &[0x24; 16]).unwrap();
    let gmac = module.mac_key(Algorithm::Aes128Gmac, &[0x24; 16]).unwrap();
    let nonce = [7u8; 12];
    let sealed = gcm.seal_with_nonce(&nonce, b"signed header", b"").unwrap();
    let tag = gmac.sign_with_nonce(&nonce, b"signed header").unwrap();
    assert_eq!(*tag, *sealed);
    gmac.verify_with_nonce(&nonce, b"signed header", &tag)
        .unwrap();
    assert_eq!(key.sign(b"no nonce").unwrap_err().kind(), ErrorKind::Input);
}

#[test]
fn aes_key_wrap_rfc3394_4_1() {
    // RFC 3394 §4.1: wrap 128 bits of key data with a 128-bit KEK.
    let module = default_module();
    let kek = module
        .cipher_key(
            Algorithm::Aes128Kw,
            &unhex("000102030405060708090A0B0C0D0E0F"),
        )
        .unwrap();
    let wrapped = kek
        .encrypt(None, &unhex("00112233445566778899AABBCCDDEEFF"))
        .unwrap();
    assert_eq!(
        wrapped.ciphertext,
        unhex("1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5")
    );
    assert!(wrapped.iv.is_empty());
    let unwrapped = kek.decrypt(&[], &wrapped.ciphertext).unwrap();
    assert_eq!(*unwrapped, unhex("00112233445566778899AABBCCDDEEFF"));
    let mut forged = wrapped.ciphertext.clone();
    forged[0] ^= 1;
    assert_eq!(
        kek.decrypt(&[], &forged).unwrap_err().kind(),
        ErrorKind::Cryptographic
    );
}

#[test]
fn aes_cfb8_sp800_38a_f3_7() {
    // SP 800-38A Appendix F.3.7, CFB8-AES128.Encrypt (18 segments).
    let module = default_module();
    let key = module
        .cipher_key(
            Algorithm::Aes128Cfb8,
            &unhex("2b7e151628aed2a6abf7158809cf4f3c"),
        )
        .unwrap();
    let iv = unhex("000102030405060708090a0b0c0d0e0f");
    let plaintext = unhex("6bc1bee22e409f96e93d7e117393172aae2d");
    let encrypted = key.encrypt(Some(&iv), &plaintext).unwrap();
    assert_eq!(
        encrypted.ciphertext,
        unhex("3b79424c9c0dd436bace9e0ed4586a4f32b9")
    );
    assert_eq!(*key.decrypt(&iv, &encrypted.ciphertext).unwrap(), plaintext);
}

#[test]
fn rc4_rfc6229_40_bit_key_offset_0() {
    // RFC 6229 §2, key 0x0102030405, keystream bytes at offset 0.
    let module = default_module();
    let key = module
        .cipher_key(Algorithm::Rc4, &unhex("0102030405"))
        .unwrap();
    let keystream = key.encrypt(None, &[0u8; 16]).unwrap();
    assert_eq!(
        keystream.ciphertext,
        unhex("b2396305f03dc027ccc3524a0a1118a8")
    );
    assert!(!keystream.is_approved());
}

#[test]
fn des_cbc_fips81_appendix_c() {
    // FIPS 81 Appendix C, Table C1: CBC encryption of "Now is the time for all " with key
    // 0123456789abcdef and IV 1234567890abcdef.
    let module = default_module();
    let key = module
        .cipher_key(Algorithm::DesCbc, &unhex("0123456789abcdef"))
        .unwrap();
    let iv = unhex("1234567890abcdef");
    let encrypted = key.encrypt(Some(&iv), b"Now is the time for all ").unwrap();
    assert_eq!(
        encrypted.ciphertext,
        unhex("e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6")
    );
    assert_eq!(
        key.encrypt(Some(&iv), b"not a block").unwrap_err().kind(),
        ErrorKind::Input
    );
}

#[test]
fn aes_xts_refuses_equal_key_halves_in_every_profile() {
    for profile in [Profile::Default, Profile::Fips1403] {
        let module = Module::load(Policy::builtin(profile));
        let error = module
            .cipher_key(Algorithm::Aes256Xts, &[0x11; 64])
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Input, "{profile}");
        let key: Vec<u8> = (0..64).collect();
        let key = module.cipher_key(Algorithm::Aes256Xts, &key).unwrap();
        let encrypted = key.encrypt(Some(&[0; 16]), &[0x5a; 4096]).unwrap();
        assert!(encrypted.is_approved(), "{profile}");
        assert_eq!(
            key.encrypt(Some(&[0; 16]), &[0; 15]).unwrap_err().kind(),
            ErrorKind::Input
        );
    }
}

#[test]
fn legacy_algorithms_are_refused_under_fips_and_gm() {
    for profile in [Profile::Fips1403, Profile::Gm] {
        let module = Module::load(Policy::builtin(profile));
        for algorithm in [Algorithm::Md4, Algorithm::Md5] {
            let error = module.digest(algorithm, b"abc").unwrap_err();
            assert_eq!(
                error.kind(),
                ErrorKind::NotApproved,
                "{algorithm} {profile}"
            );
        }
        assert_eq!(
            module
                .mac_key(Algorithm::HmacMd5, &[0; 16])
                .unwrap_err()
                .kind(),
            ErrorKind::NotApproved
        );
        for algorithm in [Algorithm::Rc4, Algorithm::DesCbc, Algorithm::DesEde3Cbc] {
            let error = module.cipher_key(algorithm, &[1; 24]).unwrap_err();
            assert_eq!(
                error.kind(),
                ErrorKind::NotApproved,
                "{algorithm} {profile}"
            );
        }
    }
}

#[test]
fn ml_dsa_keys_sign_verify_and_round_trip_through_pkcs8() {
    let module = Module::load(Policy::builtin(Profile::Fips1403));
    for algorithm in [Algorithm::MlDsa44, Algorithm::MlDsa65, Algorithm::MlDsa87] {
        let key = module.generate_signing_key(algorithm, None).unwrap();
        assert!(key.is_approved());
        let signature = key.sign(b"message").unwrap();
        let public_key = key.public_key_der().unwrap();
        module
            .verify(algorithm, &public_key, b"message", &signature)
            .unwrap();
        assert_eq!(
            module
                .verify(algorithm, &public_key, b"massage", &signature)
                .unwrap_err()
                .kind(),
            ErrorKind::Cryptographic
        );
        let imported = module
            .signing_key_from_pkcs8(algorithm, &key.to_pkcs8_der().unwrap())
            .unwrap();
        assert_eq!(imported.public_key_der().unwrap(), public_key);
    }
}

#[test]
fn sha1_signatures_verify_but_are_never_created() {
    let fips = Module::load(Policy::builtin(Profile::Fips1403));
    let error = fips
        .generate_signing_key(Algorithm::RsaPkcs1Sha1, Some(2048))
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotApproved);
    let error = fips
        .generate_signing_key(Algorithm::EcdsaP256Sha1, None)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotApproved);
    let permissive = default_module();
    let error = permissive
        .generate_signing_key(Algorithm::RsaPkcs1Sha1, None)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input);
}
