//! Standard vectors through the public API (`Module` methods only), under the default
//! profile. Every expected value is copied from the cited standard; none comes from running
//! Regula.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::unhex;
use regula::{Algorithm, Error, Module, Policy, Profile, Service};

fn module() -> Module {
    Module::load(Policy::builtin(Profile::Default))
}

// ---------------------------------------------------------------------------------------------
// AES-GCM: "The Galois/Counter Mode of Operation (GCM)", McGrew & Viega, Appendix B test cases
// 1–4 (AES-128) and 13–16 (AES-256). All use 96-bit IVs and 128-bit tags.
// ---------------------------------------------------------------------------------------------

struct AeadVector {
    name: &'static str,
    algorithm: Algorithm,
    key: &'static str,
    nonce: &'static str,
    aad: &'static str,
    plaintext: &'static str,
    ciphertext: &'static str,
    tag: &'static str,
}

const GCM_P: &str = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
                     1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
const GCM_P60: &str = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
                       1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
const GCM_A: &str = "feedfacedeadbeeffeedfacedeadbeefabaddad2";

const GCM_VECTORS: &[AeadVector] = &[
    AeadVector {
        name: "GCM test case 1",
        algorithm: Algorithm::Aes128Gcm,
        key: "00000000000000000000000000000000",
        nonce: "000000000000000000000000",
        aad: "",
        plaintext: "",
        ciphertext: "",
        tag: "58e2fccefa7e3061367f1d57a4e7455a",
    },
    AeadVector {
        name: "GCM test case 2",
        algorithm: Algorithm::Aes128Gcm,
        key: "00000000000000000000000000000000",
        nonce: "000000000000000000000000",
        aad: "",
        plaintext: "00000000000000000000000000000000",
        ciphertext: "0388dace60b6a392f328c2b971b2fe78",
        tag: "ab6e47d42cec13bdf53a67b21257bddf",
    },
    AeadVector {
        name: "GCM test case 3",
        algorithm: Algorithm::Aes128Gcm,
        key: "feffe9928665731c6d6a8f9467308308",
        nonce: "cafebabefacedbaddecaf888",
        aad: "",
        plaintext: GCM_P,
        ciphertext: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e\
                     21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
        tag: "4d5c2af327cd64a62cf35abd2ba6fab4",
    },
    AeadVector {
        name: "GCM test case 4",
        algorithm: Algorithm::Aes128Gcm,
        key: "feffe9928665731c6d6a8f9467308308",
        nonce: "cafebabefacedbaddecaf888",
        aad: GCM_A,
        plaintext: GCM_P60,
        ciphertext: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e\
                     21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
        tag: "5bc94fbc3221a5db94fae95ae7121a47",
    },
    AeadVector {
        name: "GCM test case 13",
        algorithm: Algorithm::Aes256Gcm,
        key: "0000000000000000000000000000000000000000000000000000000000000000",
        nonce: "000000000000000000000000",
        aad: "",
        plaintext: "",
        ciphertext: "",
        tag: "530f8afbc74536b9a963b4f1c4cb738b",
    },
    AeadVector {
        name: "GCM test case 14",
        algorithm: Algorithm::Aes256Gcm,
        key: "0000000000000000000000000000000000000000000000000000000000000000",
        nonce: "000000000000000000000000",
        aad: "",
        plaintext: "00000000000000000000000000000000",
        ciphertext: "cea7403d4d606b6e074ec5d3baf39d18",
        tag: "d0d1c8a799996bf0265b98b5d48ab919",
    },
    AeadVector {
        name: "GCM test case 15",
        algorithm: Algorithm::Aes256Gcm,
        key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
        nonce: "cafebabefacedbaddecaf888",
        aad: "",
        plaintext: GCM_P,
        ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
                     8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
        tag: "b094dac5d93471bdec1a502270e3cc6c",
    },
    AeadVector {
        name: "GCM test case 16",
        algorithm: Algorithm::Aes256Gcm,
        key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
        nonce: "cafebabefacedbaddecaf888",
        aad: GCM_A,
        plaintext: GCM_P60,
        ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
                     8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
        tag: "76fc6ece0f4e1768cddf8853bb2d551b",
    },
];

/// RFC 8439 §2.8.2.
const CHACHA20_POLY1305_RFC8439: AeadVector = AeadVector {
    name: "RFC 8439 §2.8.2",
    algorithm: Algorithm::ChaCha20Poly1305,
    key: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
    nonce: "070000004041424344454647",
    aad: "50515253c0c1c2c3c4c5c6c7",
    // "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the
    // future, sunscreen would be it."
    plaintext: "4c616469657320616e642047656e746c656d656e206f662074686520636c6173\
                73206f66202739393a204966204920636f756c64206f6666657220796f75206f\
                6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73\
                637265656e20776f756c642062652069742e",
    ciphertext: "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6\
                 3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36\
                 92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc\
                 3ff4def08e4b7a9de576d26586cec64b6116",
    tag: "1ae10b594f09e26a7e902ecbd0600691",
};

fn check_aead_vector(module: &Module, vector: &AeadVector) {
    let name = vector.name;
    let key = module
        .aead_key(vector.algorithm, &unhex(vector.key))
        .unwrap();
    assert_eq!(key.tag_len(), 16);
    let nonce = unhex(vector.nonce);
    let aad = unhex(vector.aad);
    let plaintext = unhex(vector.plaintext);
    let mut sealed = unhex(vector.ciphertext);
    sealed.extend(unhex(vector.tag));

    let opened = key.open(&nonce, &aad, &sealed).unwrap();
    assert_eq!(*opened, plaintext, "{name}: open");
    assert_eq!(opened.indicator().service, Service::Decrypt);
    assert_eq!(opened.indicator().algorithm, vector.algorithm);

    let mut buffer = sealed.clone();
    key.open_in_place(&nonce, &aad, &mut buffer).unwrap();
    assert_eq!(buffer, plaintext, "{name}: open_in_place");

    let resealed = key.seal_with_nonce(&nonce, &aad, &plaintext).unwrap();
    assert_eq!(*resealed, sealed, "{name}: seal_with_nonce");
    assert_eq!(resealed.indicator().service, Service::Encrypt);

    let mut buffer = plaintext.clone();
    key.seal_in_place_with_nonce(&nonce, &aad, &mut buffer)
        .unwrap();
    assert_eq!(buffer, sealed, "{name}: seal_in_place_with_nonce");

    // The module-generated nonce round-trips too.
    let fresh = key.seal(&aad, &plaintext).unwrap();
    assert_eq!(fresh.ciphertext.len(), sealed.len());
    let opened = key.open(&fresh.nonce, &aad, &fresh.ciphertext).unwrap();
    assert_eq!(*opened, plaintext, "{name}: fresh nonce round trip");
}

#[test]
fn aes_gcm_spec_test_cases() {
    let module = module();
    for vector in GCM_VECTORS {
        check_aead_vector(&module, vector);
    }
}

#[test]
fn chacha20_poly1305_rfc8439() {
    check_aead_vector(&module(), &CHACHA20_POLY1305_RFC8439);
}

/// Module-generated nonces are 96 bits and do not repeat.
#[test]
fn aead_generated_nonces_differ() {
    let module = module();
    for algorithm in [
        Algorithm::Aes128Gcm,
        Algorithm::Aes256Gcm,
        Algorithm::ChaCha20Poly1305,
    ] {
        let key = module
            .aead_key(algorithm, &vec![9; common::key_len(algorithm)])
            .unwrap();
        let first = key.seal(b"", b"same").unwrap();
        let second = key.seal(b"", b"same").unwrap();
        assert_ne!(first.nonce, second.nonce, "{algorithm}");
        assert_ne!(first.ciphertext, second.ciphertext, "{algorithm}");
    }
}

// ---------------------------------------------------------------------------------------------
// AES-CBC and AES-CTR: SP 800-38A Appendix F (F.2.1, F.2.5, F.5.1, F.5.5).
// ---------------------------------------------------------------------------------------------

const SP800_38A_PLAINTEXT: &str = "6bc1bee22e409f96e93d7e117393172a\
                                   ae2d8a571e03ac9c9eb76fac45af8e51\
                                   30c81c46a35ce411e5fbc1191a0a52ef\
                                   f69f2445df4f9b17ad2b417be66c3710";
const SP800_38A_KEY128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const SP800_38A_KEY256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const SP800_38A_CBC_IV: &str = "000102030405060708090a0b0c0d0e0f";
const SP800_38A_CTR_BLOCK: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

#[test]
fn aes_ctr_sp800_38a() {
    let module = module();
    for (name, algorithm, key, ciphertext) in [
        (
            "F.5.1 CTR-AES128",
            Algorithm::Aes128Ctr,
            SP800_38A_KEY128,
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff\
             5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
        ),
        (
            "F.5.5 CTR-AES256",
            Algorithm::Aes256Ctr,
            SP800_38A_KEY256,
            "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5\
             2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
        ),
    ] {
        let key = module.cipher_key(algorithm, &unhex(key)).unwrap();
        let counter = unhex(SP800_38A_CTR_BLOCK);
        let plaintext = unhex(SP800_38A_PLAINTEXT);
        let encrypted = key.encrypt(Some(&counter), &plaintext).unwrap();
        assert_eq!(encrypted.iv.as_slice(), counter, "{name}");
        assert_eq!(encrypted.ciphertext, unhex(ciphertext), "{name}: encrypt");
        let decrypted = key.decrypt(&counter, &unhex(ciphertext)).unwrap();
        assert_eq!(*decrypted, plaintext, "{name}: decrypt");
        // CTR is a stream mode: a prefix encrypts to the ciphertext's prefix.
        let partial = key.encrypt(Some(&counter), &plaintext[..21]).unwrap();
        assert_eq!(
            partial.ciphertext,
            unhex(ciphertext)[..21],
            "{name}: prefix"
        );
    }
}

/// The CBC service pads with PKCS#7 (RFC 5652 §6.3): a 64-byte plaintext gains a whole
/// block of 0x10 bytes, so the first four ciphertext blocks are SP 800-38A's and a fifth
/// follows.
#[test]
fn aes_cbc_sp800_38a_with_pkcs7_padding() {
    let module = module();
    for (name, algorithm, key, ciphertext) in [
        (
            "F.2.1 CBC-AES128",
            Algorithm::Aes128Cbc,
            SP800_38A_KEY128,
            "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2\
             73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
        ),
        (
            "F.2.5 CBC-AES256",
            Algorithm::Aes256Cbc,
            SP800_38A_KEY256,
            "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d\
             39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
        ),
    ] {
        let key = module.cipher_key(algorithm, &unhex(key)).unwrap();
        let iv = unhex(SP800_38A_CBC_IV);
        let plaintext = unhex(SP800_38A_PLAINTEXT);
        let expected = unhex(ciphertext);
        let encrypted = key.encrypt(Some(&iv), &plaintext).unwrap();
        assert_eq!(encrypted.ciphertext.len(), 80, "{name}: one padding block");
        assert_eq!(encrypted.ciphertext[..64], expected[..], "{name}: encrypt");
        // The padding block is CBC of sixteen 0x10 bytes chained from the last standard
        // block, i.e. what encrypting an empty message with IV = C4 gives.
        let padding_only = key.encrypt(Some(&expected[48..64]), b"").unwrap();
        assert_eq!(padding_only.ciphertext.len(), 16);
        assert_eq!(
            encrypted.ciphertext[64..],
            padding_only.ciphertext[..],
            "{name}"
        );

        let decrypted = key.decrypt(&iv, &encrypted.ciphertext).unwrap();
        assert_eq!(*decrypted, plaintext, "{name}: decrypt");
        // The bare SP 800-38A ciphertext ends in plaintext byte 0x10, which is not valid
        // PKCS#7 for a 16-byte block: refused, nothing returned.
        let error = key.decrypt(&iv, &expected).unwrap_err();
        assert_eq!(error.kind(), regula::ErrorKind::Cryptographic, "{error:?}");
        // Prefixes of the standard ciphertext decrypt, with chaining, to the standard
        // plaintext blocks (checked through a re-encryption with padding).
        let two_blocks = key.encrypt(Some(&iv), &plaintext[..32]).unwrap();
        assert_eq!(two_blocks.ciphertext[..32], expected[..32], "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// AES-CMAC: RFC 4493 §4 examples 1–4 (AES-128, = SP 800-38B D.1) and SP 800-38B D.3 (AES-256).
// ---------------------------------------------------------------------------------------------

#[test]
fn aes_cmac_rfc4493_and_sp800_38b() {
    let module = module();
    let messages = [
        "",
        "6bc1bee22e409f96e93d7e117393172a",
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411",
        SP800_38A_PLAINTEXT,
    ];
    for (algorithm, key, tags) in [
        (
            Algorithm::Aes128Cmac,
            SP800_38A_KEY128,
            [
                "bb1d6929e95937287fa37d129b756746",
                "070a16b46b4d4144f79bdd9dd04a287c",
                "dfa66747de9ae63030ca32611497c827",
                "51f0bebf7e3b9d92fc49741779363cfe",
            ],
        ),
        (
            Algorithm::Aes256Cmac,
            SP800_38A_KEY256,
            [
                "028962f61b7bf89efc6b551f4667d983",
                "28a7023f452e8f82bd4bf28d8c37c35c",
                "aaf3d8f1de5640c232f5b169b9c911e6",
                "e1992190549f6ed5696a2c056c315410",
            ],
        ),
    ] {
        let key = module.mac_key(algorithm, &unhex(key)).unwrap();
        for (index, (message, tag)) in messages.iter().zip(tags).enumerate() {
            let message = unhex(message);
            let tag = unhex(tag);
            let signed = key.sign(&message).unwrap();
            assert_eq!(*signed, tag, "{algorithm} example {}", index + 1);
            assert_eq!(signed.indicator().service, Service::MacGenerate);
            key.verify(&message, &tag).unwrap();
            // Incremental, split at an odd place.
            let mut context = key.context();
            let split = message.len() / 3;
            context.update(&message[..split]).unwrap();
            context.update(&message[split..]).unwrap();
            assert_eq!(*context.sign().unwrap(), tag, "{algorithm} incremental");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Digests: FIPS 180-4 examples (NIST "Examples with Intermediate Values": one-block and
// two-block messages) and FIPS 202 examples (SHA3-*: "abc", and 1600 bits of 0xa3).
// ---------------------------------------------------------------------------------------------

const MSG_448: &[u8] = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
const MSG_896: &[u8] = b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn\
                         hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

#[test]
fn sha_fips180_4_and_fips202_examples() {
    let module = module();
    let a3_1600 = [0xa3u8; 200];
    let cases: &[(Algorithm, &[u8], &str)] = &[
        (
            Algorithm::Sha1,
            b"abc",
            "a9993e364706816aba3e25717850c26c9cd0d89d",
        ),
        (
            Algorithm::Sha1,
            MSG_448,
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
        ),
        (
            Algorithm::Sha224,
            b"abc",
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
        ),
        (
            Algorithm::Sha224,
            MSG_448,
            "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525",
        ),
        (
            Algorithm::Sha256,
            b"abc",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
        (
            Algorithm::Sha256,
            MSG_448,
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        ),
        (
            Algorithm::Sha384,
            b"abc",
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed\
             8086072ba1e7cc2358baeca134c825a7",
        ),
        (
            Algorithm::Sha384,
            MSG_896,
            "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712\
             fcc7c71a557e2db966c3e9fa91746039",
        ),
        (
            Algorithm::Sha512,
            b"abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
             2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        ),
        (
            Algorithm::Sha512,
            MSG_896,
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018\
             501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
        ),
        (
            Algorithm::Sha3_256,
            b"",
            "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
        ),
        (
            Algorithm::Sha3_256,
            b"abc",
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
        ),
        (
            Algorithm::Sha3_256,
            &a3_1600,
            "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787",
        ),
        (
            Algorithm::Sha3_384,
            b"abc",
            "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b2\
             98d88cea927ac7f539f1edf228376d25",
        ),
        (
            Algorithm::Sha3_384,
            &a3_1600,
            "1881de2ca7e41ef95dc4732b8f5f002b189cc1e42b74168ed1732649ce1dbcdd\
             76197a31fd55ee989f2d7050dd473e8f",
        ),
        (
            Algorithm::Sha3_512,
            b"abc",
            "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e\
             10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0",
        ),
        (
            Algorithm::Sha3_512,
            &a3_1600,
            "e76dfad22084a8b1467fcf2ffa58361bec7628edf5f3fdc0e4805dc48caeeca8\
             1b7c13c30adf52a3659584739a2df46be589c51ca1a4a8416df6545a1ce8ba00",
        ),
    ];
    for &(algorithm, message, digest) in cases {
        let expected = unhex(digest);
        let served = module.digest(algorithm, message).unwrap();
        assert_eq!(*served, expected, "{algorithm} of {} bytes", message.len());
        // Incremental, byte by byte for short inputs and in two pieces otherwise.
        let mut context = module.digest_context(algorithm).unwrap();
        if message.len() <= 64 {
            for byte in message {
                context.update(std::slice::from_ref(byte));
            }
        } else {
            context.update(&message[..77]);
            context.update(&message[77..]);
        }
        assert_eq!(
            *context.finish().unwrap(),
            expected,
            "{algorithm} incremental"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// HMAC: RFC 4231 §4 test cases 1–4, 6, 7 for every SHA-2 size, and test case 5 (truncated).
// ---------------------------------------------------------------------------------------------

/// (test case, key, data, [HMAC-SHA-224, -256, -384, -512]).
type HmacCase = (&'static str, Vec<u8>, Vec<u8>, [&'static str; 4]);

#[test]
fn hmac_rfc4231() {
    let module = module();
    let tc7_data = b"This is a test using a larger than block-size key and a larger than \
                     block-size data. The key needs to be hashed before being used by the \
                     HMAC algorithm.";
    let cases: [HmacCase; 6] = [
        (
            "1",
            vec![0x0b; 20],
            b"Hi There".to_vec(),
            [
                "896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
                "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c\
                 faea9ea9076ede7f4af152e8b2fa9cb6",
                "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde\
                 daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854",
            ],
        ),
        (
            "2",
            b"Jefe".to_vec(),
            b"what do ya want for nothing?".to_vec(),
            [
                "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
                "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e\
                 8e2240ca5e69e2c78b3239ecfab21649",
                "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554\
                 9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
            ],
        ),
        (
            "3",
            vec![0xaa; 20],
            vec![0xdd; 50],
            [
                "7fb3cb3588c6c1f6ffa9694d7d6ad2649365b0c1f65d69d1ec8333ea",
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
                "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b\
                 2a5ab39dc13814b94e3ab6e101a34f27",
                "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39\
                 bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb",
            ],
        ),
        (
            "4",
            (1..=25).collect(),
            vec![0xcd; 50],
            [
                "6c11506874013cac6a2abc1bb382627cec6a90d86efc012de7afec5a",
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
                "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e\
                 6801dd23c4a7d679ccf8a386c674cffb",
                "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db\
                 a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd",
            ],
        ),
        (
            "6",
            vec![0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            [
                "95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
                "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c6\
                 0c2ef6ab4030fe8296248df163f44952",
                "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352\
                 6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598",
            ],
        ),
        (
            "7",
            vec![0xaa; 131],
            tc7_data.to_vec(),
            [
                "3a854166ac5d9f023f54d517d0b39dbd946770db9c2b95c9f6f565d1",
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
                "6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5\
                 a678cc31e799176d3860e6110c46523e",
                "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944\
                 b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58",
            ],
        ),
    ];
    assert_eq!(tc7_data.len(), 152);
    let algorithms = [
        Algorithm::HmacSha224,
        Algorithm::HmacSha256,
        Algorithm::HmacSha384,
        Algorithm::HmacSha512,
    ];
    for (case, key, data, tags) in &cases {
        for (algorithm, tag) in algorithms.iter().zip(tags) {
            let mac = module.mac_key(*algorithm, key).unwrap();
            let tag = unhex(tag);
            assert_eq!(
                *mac.sign(data).unwrap(),
                tag,
                "{algorithm} test case {case}"
            );
            mac.verify(data, &tag).unwrap();
        }
    }
    // Test case 5: output truncated to 128 bits.
    let mac = module.mac_key(Algorithm::HmacSha256, &[0x0c; 20]).unwrap();
    let tag = mac.sign(b"Test With Truncation").unwrap();
    assert_eq!(tag[..16], unhex("a3b6167473100ee06e0c796c2955552b"));
}

// ---------------------------------------------------------------------------------------------
// HKDF-SHA256: RFC 5869 Appendix A.1–A.3. PBKDF2-HMAC-SHA256: RFC 7914 §11.
// ---------------------------------------------------------------------------------------------

/// (appendix, IKM, salt, info, OKM).
type HkdfCase = (&'static str, Vec<u8>, Vec<u8>, Vec<u8>, &'static str);

#[test]
fn hkdf_sha256_rfc5869() {
    let module = module();
    let ikm_long: Vec<u8> = (0x00..=0x4f).collect();
    let salt_long: Vec<u8> = (0x60..=0xaf).collect();
    let info_long: Vec<u8> = (0xb0..=0xff).collect();
    let cases: [HkdfCase; 3] = [
        (
            "A.1",
            vec![0x0b; 22],
            (0x00..=0x0c).collect(),
            (0xf0..=0xf9).collect(),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf\
             34007208d5b887185865",
        ),
        (
            "A.2",
            ikm_long,
            salt_long,
            info_long,
            "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c\
             59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71\
             cc30c58179ec3e87c14c01d5c1f3434f1d87",
        ),
        (
            "A.3",
            vec![0x0b; 22],
            Vec::new(),
            Vec::new(),
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d\
             9d201395faa4b61a96c8",
        ),
    ];
    for (name, ikm, salt, info, okm) in &cases {
        let okm = unhex(okm);
        let derived = module
            .hkdf(Algorithm::HkdfSha256, ikm, salt, info, okm.len())
            .unwrap();
        assert_eq!(derived.as_slice(), okm, "RFC 5869 {name}");
        assert_eq!(derived.indicator().service, Service::KeyDerivation);
    }
    // RFC 5869 §2.3: L ≤ 255·HashLen.
    assert!(matches!(
        module.hkdf(Algorithm::HkdfSha256, &[1; 32], b"", b"", 255 * 32 + 1),
        Err(Error::InvalidInput { .. })
    ));
    assert!(
        module
            .hkdf(Algorithm::HkdfSha256, &[1; 32], b"", b"", 255 * 32)
            .is_ok()
    );
}

/// (appendix, IKM, salt, info, PRK, OKM).
type HkdfStepCase = (
    &'static str,
    Vec<u8>,
    Vec<u8>,
    Vec<u8>,
    &'static str,
    &'static str,
);

/// RFC 5869 A.1–A.3 through the two steps separately: extract gives the RFC's PRK, and expand
/// from that PRK gives the RFC's OKM.
#[test]
fn hkdf_sha256_extract_and_expand_rfc5869() {
    let module = module();
    let cases: [HkdfStepCase; 3] = [
        (
            "A.1",
            vec![0x0b; 22],
            (0x00..=0x0c).collect(),
            (0xf0..=0xf9).collect(),
            "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf\
             34007208d5b887185865",
        ),
        (
            "A.2",
            (0x00..=0x4f).collect(),
            (0x60..=0xaf).collect(),
            (0xb0..=0xff).collect(),
            "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
            "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c\
             59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71\
             cc30c58179ec3e87c14c01d5c1f3434f1d87",
        ),
        (
            "A.3",
            vec![0x0b; 22],
            Vec::new(),
            Vec::new(),
            "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d\
             9d201395faa4b61a96c8",
        ),
    ];
    for (name, ikm, salt, info, prk, okm) in &cases {
        let (prk, okm) = (unhex(prk), unhex(okm));
        let extracted = module
            .hkdf_extract(Algorithm::HkdfSha256, ikm, salt)
            .unwrap();
        assert_eq!(extracted.as_slice(), prk, "RFC 5869 {name} PRK");
        assert_eq!(extracted.indicator().service, Service::KeyDerivation);
        let expanded = module
            .hkdf_expand(Algorithm::HkdfSha256, &prk, info, okm.len())
            .unwrap();
        assert_eq!(expanded.as_slice(), okm, "RFC 5869 {name} OKM");
    }
    // RFC 5869 §2.3: L ≤ 255·HashLen; an empty PRK is refused.
    assert!(matches!(
        module.hkdf_expand(Algorithm::HkdfSha256, &[1; 32], b"", 255 * 32 + 1),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        module.hkdf_expand(Algorithm::HkdfSha256, &[], b"", 32),
        Err(Error::InvalidInput { .. })
    ));
    assert!(
        module
            .hkdf_extract(Algorithm::Pbkdf2Sha256, b"secret", b"salt")
            .is_err()
    );
}

/// NIST CAVP's TLS 1.2 KDF vector (SHA-256), as OpenSSL's evpkdf_tls12_prf.txt carries it: the
/// key block from the master secret, seed "key expansion" ‖ server random ‖ client random.
#[test]
fn tls12_prf_sha256_nist() {
    let module = module();
    let master = unhex(
        "202c88c00f84a17a20027079604787461176455539e705be730890602c289a50\
         01e34eeb3a043e5d52a65e66125188bf",
    );
    let seed = [
        &b"key expansion"[..],
        &unhex("ae6c806f8ad4d80784549dff28a4b58fd837681a51d928c3e30ee5ff14f39868"),
        &unhex("62e1fd91f23f558a605f28478c58cf72637b89784d959df7e946d3f07bd1b616"),
    ]
    .concat();
    let expected = unhex(
        "d06139889fffac1e3a71865f504aa5d0d2a2e89506c6f2279b670c3e1b74f531\
         016a2530c51a3a0f7e1d6590d0f0566b2f387f8d11fd4f731cdd572d2eae927f\
         6f2f81410b25e6960be68985add6c38445ad9f8c64bf8068bf9a6679485d966f\
         1ad6f68b43495b10a683755ea2b858d70ccac7ec8b053c6bd41ca299d4e51928",
    );
    let derived = module
        .tls12_prf(Algorithm::Tls12PrfSha256, &master, &seed, expected.len())
        .unwrap();
    assert_eq!(derived.as_slice(), expected);
    assert_eq!(derived.indicator().service, Service::KeyDerivation);
    assert!(matches!(
        module.tls12_prf(Algorithm::Tls12PrfSha256, &master, &seed, 0),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        module.tls12_prf(Algorithm::Tls12PrfSha256, &master, b"", 32),
        Err(Error::InvalidInput { .. })
    ));
}

/// FIPS 140-3 IG D.Q: under fips-140-3 the TLS 1.2 KDF derives a master secret only as RFC
/// 7627's extended master secret (label "extended master secret", seed the session hash); the
/// label "master secret" is refused there and served under the default policy.
#[test]
fn tls12_master_secret_only_extended_under_fips() {
    let pre_master = [0x42u8; 48];
    let randoms = [0x17u8; 64];
    let plain = [&b"master secret"[..], &randoms].concat();
    let extended = [&b"extended master secret"[..], &[0x5au8; 32]].concat();
    let fips = Module::load(Policy::builtin(Profile::Fips1403));
    match fips.tls12_prf(Algorithm::Tls12PrfSha256, &pre_master, &plain, 48) {
        Err(Error::NotApproved { reason, .. }) => {
            assert!(reason.contains("RFC 7627"), "{reason}")
        }
        other => panic!("a plain master secret under fips-140-3: {other:?}"),
    }
    for algorithm in [Algorithm::Tls12PrfSha256, Algorithm::Tls12PrfSha384] {
        let derived = fips
            .tls12_prf(algorithm, &pre_master, &extended, 48)
            .unwrap();
        assert!(derived.indicator().is_approved(), "{algorithm:?}");
    }
    // Key expansion from the master secret stays approved.
    let key_block = [&b"key expansion"[..], &randoms].concat();
    assert!(
        fips.tls12_prf(Algorithm::Tls12PrfSha256, &[0x33; 48], &key_block, 104)
            .unwrap()
            .indicator()
            .is_approved()
    );
    let default = module();
    let served = default
        .tls12_prf(Algorithm::Tls12PrfSha256, &pre_master, &plain, 48)
        .unwrap();
    assert!(served.indicator().is_approved());
}

#[test]
fn pbkdf2_sha256_rfc7914() {
    let module = module();
    let derived = module
        .pbkdf2(Algorithm::Pbkdf2Sha256, b"passwd", b"salt", 1, 64)
        .unwrap();
    assert_eq!(
        derived.as_slice(),
        unhex(
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
             49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        )
    );
    let derived = module
        .pbkdf2(Algorithm::Pbkdf2Sha256, b"Password", b"NaCl", 80000, 64)
        .unwrap();
    assert_eq!(
        derived.as_slice(),
        unhex(
            "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56\
             a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
        )
    );
    assert!(matches!(
        module.pbkdf2(Algorithm::Pbkdf2Sha256, b"p", b"s", 0, 32),
        Err(Error::InvalidInput { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// ECDSA: RFC 6979 A.2.5 (P-256) and A.2.6 (P-384), signatures with SHA-256 / SHA-384 over
// "sample" and "test", converted to DER (RFC 3279 Ecdsa-Sig-Value).
// ---------------------------------------------------------------------------------------------

fn der_integer(bytes: &[u8]) -> Vec<u8> {
    let first_nonzero = bytes
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(bytes.len() - 1);
    let mut value = bytes[first_nonzero..].to_vec();
    if value[0] & 0x80 != 0 {
        value.insert(0, 0);
    }
    let mut out = vec![0x02, u8::try_from(value.len()).unwrap()];
    out.extend(value);
    out
}

fn der_signature(r: &str, s: &str) -> Vec<u8> {
    let mut body = der_integer(&unhex(r));
    body.extend(der_integer(&unhex(s)));
    assert!(body.len() < 128);
    let mut out = vec![0x30, u8::try_from(body.len()).unwrap()];
    out.extend(body);
    out
}

struct EcdsaVector {
    algorithm: Algorithm,
    /// RFC 5480 SubjectPublicKeyInfo prefix for the curve.
    spki_prefix: &'static str,
    ux: &'static str,
    uy: &'static str,
    signatures: [(&'static [u8], &'static str, &'static str); 2],
}

const ECDSA_VECTORS: [EcdsaVector; 2] = [
    EcdsaVector {
        algorithm: Algorithm::EcdsaP256,
        spki_prefix: "3059301306072a8648ce3d020106082a8648ce3d030107034200",
        ux: "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6",
        uy: "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299",
        signatures: [
            (
                b"sample",
                "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
                "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8",
            ),
            (
                b"test",
                "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
                "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083",
            ),
        ],
    },
    EcdsaVector {
        algorithm: Algorithm::EcdsaP384,
        spki_prefix: "3076301006072a8648ce3d020106052b81040022036200",
        ux: "EC3A4E415B4E19A4568618029F427FA5DA9A8BC4AE92E02E06AAE5286B300C64\
             DEF8F0EA9055866064A254515480BC13",
        uy: "8015D9B72D7D57244EA8EF9AC0C621896708A59367F9DFB9F54CA84B3F1C9DB1\
             288B231C3AE0D4FE7344FD2533264720",
        signatures: [
            (
                b"sample",
                "94EDBB92A5ECB8AAD4736E56C691916B3F88140666CE9FA73D64C4EA95AD133C\
                 81A648152E44ACF96E36DD1E80FABE46",
                "99EF4AEB15F178CEA1FE40DB2603138F130E740A19624526203B6351D0A3A94F\
                 A329C145786E679E7B82C71A38628AC8",
            ),
            (
                b"test",
                "8203B63D3C853E8D77227FB377BCF7B7B772E97892A80F36AB775D509D7A5FEB\
                 0542A7F0812998DA8F1DD3CA3CF023DB",
                "DDD0760448D42D8A43AF45AF836FCE4DE8BE06B485E9B61B827C2F13173923E0\
                 6A739F040649A667BF3B828246BAA5A5",
            ),
        ],
    },
];

#[test]
fn ecdsa_rfc6979_signatures_verify() {
    let module = module();
    for vector in &ECDSA_VECTORS {
        let algorithm = vector.algorithm;
        let mut point = vec![0x04];
        point.extend(unhex(vector.ux));
        point.extend(unhex(vector.uy));
        let mut spki = unhex(vector.spki_prefix);
        spki.extend(&point);
        for (message, r, s) in vector.signatures {
            let signature = der_signature(r, s);
            for public_key in [&point, &spki] {
                let verified = module
                    .verify(algorithm, public_key, message, &signature)
                    .unwrap();
                assert_eq!(verified.indicator().service, Service::Verify);
                assert_eq!(verified.indicator().algorithm, algorithm);
            }
            // Another message, or a flipped bit in the signature, fails.
            assert_eq!(
                module
                    .verify(algorithm, &point, b"other", &signature)
                    .unwrap_err(),
                Error::BadSignature
            );
            for index in [5, signature.len() - 1] {
                let mut tampered = signature.clone();
                tampered[index] ^= 0x01;
                assert_eq!(
                    module
                        .verify(algorithm, &point, message, &tampered)
                        .unwrap_err(),
                    Error::BadSignature,
                    "{algorithm}: flipped byte {index}"
                );
            }
        }
    }
    // A P-256 signature is not a P-384 one.
    let p256 = &ECDSA_VECTORS[0];
    let mut point = vec![0x04];
    point.extend(unhex(p256.ux));
    point.extend(unhex(p256.uy));
    let signature = der_signature(p256.signatures[0].1, p256.signatures[0].2);
    assert!(
        module
            .verify(Algorithm::EcdsaP384, &point, b"sample", &signature)
            .is_err()
    );
}

#[test]
fn ecdsa_generated_keys_sign_and_verify() {
    let module = module();
    for (algorithm, point_len, oid) in [
        (Algorithm::EcdsaP256, 65, "06082a8648ce3d030107"),
        (Algorithm::EcdsaP384, 97, "06052b81040022"),
    ] {
        let key = module.generate_signing_key(algorithm, None).unwrap();
        let public_key = key.public_key_der().unwrap();
        // RFC 5480: id-ecPublicKey, the curve OID, then the uncompressed point.
        assert!(
            contains(&public_key, &unhex("06072a8648ce3d0201")),
            "{algorithm}"
        );
        assert!(contains(&public_key, &unhex(oid)), "{algorithm}");
        assert_eq!(
            public_key[public_key.len() - point_len],
            0x04,
            "{algorithm}"
        );
        let signature = key.sign(b"message").unwrap();
        module
            .verify(algorithm, &public_key, b"message", &signature)
            .unwrap();
        assert_eq!(
            module
                .verify(algorithm, &public_key, b"massage", &signature)
                .unwrap_err(),
            Error::BadSignature
        );
        // PKCS#8 export and import give the same public key.
        let pkcs8 = key.to_pkcs8_der().unwrap();
        let imported = module.signing_key_from_pkcs8(algorithm, &pkcs8).unwrap();
        assert_eq!(imported.public_key_der().unwrap(), public_key);
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

// ---------------------------------------------------------------------------------------------
// Ed25519: RFC 8032 §7.1 tests 1–3; PKCS#8 per RFC 8410 §7 / §10.3.
// ---------------------------------------------------------------------------------------------

const ED25519_TESTS: [(&str, &str, &str, &str); 3] = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155\
         5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da\
         085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac\
         18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
];

/// RFC 8410: OneAsymmetricKey v1 for Ed25519 is this prefix followed by the 32-byte seed.
const ED25519_PKCS8_PREFIX: &str = "302e020100300506032b657004220420";
/// RFC 8410: SubjectPublicKeyInfo for Ed25519 is this prefix followed by the public key.
const ED25519_SPKI_PREFIX: &str = "302a300506032b6570032100";

#[test]
fn ed25519_rfc8032_verify() {
    let module = module();
    for (index, (_, public_key, message, signature)) in ED25519_TESTS.iter().enumerate() {
        let public_key = unhex(public_key);
        let message = unhex(message);
        let signature = unhex(signature);
        let mut spki = unhex(ED25519_SPKI_PREFIX);
        spki.extend(&public_key);
        for key in [&public_key, &spki] {
            let verified = module
                .verify(Algorithm::Ed25519, key, &message, &signature)
                .unwrap();
            assert!(verified.is_approved(), "test {}", index + 1);
        }
        for bit in [0usize, 100, 511] {
            let mut tampered = signature.clone();
            tampered[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                module
                    .verify(Algorithm::Ed25519, &public_key, &message, &tampered)
                    .unwrap_err(),
                Error::BadSignature,
                "test {}: flipped bit {bit}",
                index + 1
            );
        }
    }
}

#[test]
fn ed25519_rfc8032_sign_from_pkcs8() {
    let module = module();
    for (index, (seed, public_key, message, signature)) in ED25519_TESTS.iter().enumerate() {
        let mut pkcs8 = unhex(ED25519_PKCS8_PREFIX);
        pkcs8.extend(unhex(seed));
        let key = module
            .signing_key_from_pkcs8(Algorithm::Ed25519, &pkcs8)
            .unwrap();
        let mut spki = unhex(ED25519_SPKI_PREFIX);
        spki.extend(unhex(public_key));
        assert_eq!(key.public_key_der().unwrap(), spki, "test {}", index + 1);
        // Ed25519 is deterministic: the RFC's signature, exactly.
        let signed = key.sign(&unhex(message)).unwrap();
        assert_eq!(*signed, unhex(signature), "test {}", index + 1);
        assert_eq!(signed.indicator().service, Service::Sign);
    }
    // A truncated PKCS#8 is an invalid key.
    let mut pkcs8 = unhex(ED25519_PKCS8_PREFIX);
    pkcs8.extend(&unhex(ED25519_TESTS[0].0)[..31]);
    assert!(matches!(
        module.signing_key_from_pkcs8(Algorithm::Ed25519, &pkcs8),
        Err(Error::InvalidKey { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Key agreement: X25519 (RFC 7748) and ECDH P-256/P-384 (SP 800-56A), round trips.
// ---------------------------------------------------------------------------------------------

#[test]
fn key_agreement_round_trips() {
    let module = module();
    // (algorithm, public key length, shared secret length): RFC 7748 §5, SEC 1 §2.3.3.
    for (algorithm, public_len, secret_len) in [
        (Algorithm::X25519, 32, 32),
        (Algorithm::EcdhP256, 65, 32),
        (Algorithm::EcdhP384, 97, 48),
    ] {
        let alice = module.generate_agreement_key(algorithm).unwrap();
        let bob = module.generate_agreement_key(algorithm).unwrap();
        let alice_public = alice.public_key().unwrap();
        let bob_public = bob.public_key().unwrap();
        assert_eq!(alice_public.len(), public_len, "{algorithm}");
        assert_ne!(alice_public, bob_public, "{algorithm}");
        if algorithm != Algorithm::X25519 {
            assert_eq!(alice_public[0], 0x04, "{algorithm}: uncompressed point");
        }
        let k1 = alice.agree(&bob_public).unwrap();
        let k2 = bob.agree(&alice_public).unwrap();
        assert_eq!(k1.len(), secret_len, "{algorithm}");
        assert_eq!(k1.as_slice(), k2.as_slice(), "{algorithm}");
        assert_eq!(k1.indicator().service, Service::KeyAgreement);
        let carol = module.generate_agreement_key(algorithm).unwrap();
        let k3 = alice.agree(&carol.public_key().unwrap()).unwrap();
        assert_ne!(k1.as_slice(), k3.as_slice(), "{algorithm}");
    }
}

/// Known answers with imported private keys: RFC 7748 §6.1 (X25519, both directions) and
/// RFC 5903 §8.1 (ECDH P-256, both directions; public keys as raw points and as
/// SubjectPublicKeyInfo).
#[test]
fn key_agreement_known_answers_with_imported_keys() {
    let module = module();
    let x25519 = |private: &str, public: &str| {
        let key = module
            .agreement_key_from_private_bytes(Algorithm::X25519, &unhex(private))
            .unwrap();
        assert_eq!(key.indicator().service, regula::Service::KeyImport);
        key.agree(&unhex(public)).unwrap().to_vec()
    };
    let alice = "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a";
    let alice_public = "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";
    let bob = "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb";
    let bob_public = "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f";
    let shared = unhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    assert_eq!(x25519(alice, bob_public), shared);
    assert_eq!(x25519(bob, alice_public), shared);

    let ecdh = |private: &str, public: &[u8]| {
        let key = module
            .agreement_key_from_private_bytes(Algorithm::EcdhP256, &unhex(private))
            .unwrap();
        key.agree(public).unwrap().to_vec()
    };
    let i = "c88f01f510d9ac3f70a292daa2316de544e9aab8afe84049c62a9c57862d1433";
    let gi = unhex(
        "04dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c37725811805271a0461cdb8252d61f1c456fa3e59ab1f45b33accf5f58389e0577b8990bb3",
    );
    let r = "c6ef9c5d78ae012a011164acb397ce2088685d8f06bf9be0b283ab46476bee53";
    let gr = unhex(
        "04d12dfb5289c8d4f81208b70270398c342296970a0bccb74c736fc7554494bf6356fbf3ca366cc23e8157854c13c58d6aac23f046ada30f8353e74f33039872ab",
    );
    let girx = unhex("d6840f6b42f6edafd13116e0e12565202fef8e9ece7dce03812464d04b9442de");
    assert_eq!(ecdh(i, &gr), girx);
    assert_eq!(ecdh(r, &gi), girx);
    // The same peer key as a namedCurve SubjectPublicKeyInfo (RFC 5480 §2).
    let spki = [
        unhex("3059301306072a8648ce3d020106082a8648ce3d030107034200"),
        gr.clone(),
    ]
    .concat();
    assert_eq!(ecdh(i, &spki), girx);
    // A SubjectPublicKeyInfo for another curve is refused, not reinterpreted.
    let key = module
        .agreement_key_from_private_bytes(Algorithm::EcdhP256, &unhex(i))
        .unwrap();
    let p384_spki = [
        unhex("3076301006072a8648ce3d020106052b81040022036200"),
        vec![4; 97],
    ]
    .concat();
    assert!(matches!(
        key.agree(&p384_spki),
        Err(Error::InvalidInput { .. })
    ));
    // A scalar of the wrong size is an invalid key.
    assert!(matches!(
        module.agreement_key_from_private_bytes(Algorithm::EcdhP256, &[1; 31]),
        Err(Error::InvalidKey { .. })
    ));
}

#[test]
fn key_agreement_rejects_invalid_peer_keys() {
    let module = module();
    let x25519 = module.generate_agreement_key(Algorithm::X25519).unwrap();
    let valid = x25519.public_key().unwrap();
    // RFC 7748 §6.1: the all-zero output of a small-order point must be rejected; u = 0
    // and u = 1 are such points. Wrong lengths are malformed.
    let mut u_one = vec![0u8; 32];
    u_one[0] = 1;
    for (name, peer) in [
        ("31 bytes", valid[..31].to_vec()),
        ("33 bytes", [valid.as_slice(), &[0]].concat()),
        ("empty", Vec::new()),
        ("u = 0", vec![0u8; 32]),
        ("u = 1", u_one),
    ] {
        assert!(
            matches!(x25519.agree(&peer), Err(Error::InvalidInput { .. })),
            "X25519 peer {name}"
        );
    }

    for algorithm in [Algorithm::EcdhP256, Algorithm::EcdhP384] {
        let key = module.generate_agreement_key(algorithm).unwrap();
        let peer = module
            .generate_agreement_key(algorithm)
            .unwrap()
            .public_key()
            .unwrap();
        let mut off_curve = peer.clone();
        *off_curve.last_mut().unwrap() ^= 0x01;
        let mut compressed_form_tag = peer.clone();
        compressed_form_tag[0] = 0x05;
        for (name, bad) in [
            ("off the curve", off_curve),
            ("truncated", peer[..peer.len() - 1].to_vec()),
            ("bad point tag", compressed_form_tag),
            ("empty", Vec::new()),
        ] {
            assert!(
                matches!(key.agree(&bad), Err(Error::InvalidInput { .. })),
                "{algorithm}: peer {name}"
            );
        }
        // A point of the other curve.
        let other = if algorithm == Algorithm::EcdhP256 {
            Algorithm::EcdhP384
        } else {
            Algorithm::EcdhP256
        };
        let foreign = module
            .generate_agreement_key(other)
            .unwrap()
            .public_key()
            .unwrap();
        assert!(matches!(
            key.agree(&foreign),
            Err(Error::InvalidInput { .. })
        ));
        assert!(key.agree(&peer).is_ok(), "{algorithm}: a valid peer");
    }
}

// ---------------------------------------------------------------------------------------------
// ML-KEM: FIPS 203 round trips; sizes per FIPS 203 Table 3.
// ---------------------------------------------------------------------------------------------

#[test]
fn ml_kem_round_trips() {
    let module = module();
    for (algorithm, ek_len, ct_len) in [
        (Algorithm::MlKem768, 1184, 1088),
        (Algorithm::MlKem1024, 1568, 1568),
    ] {
        let key = module.generate_kem_key(algorithm).unwrap();
        let encapsulation_key = key.encapsulation_key().unwrap();
        assert_eq!(encapsulation_key.len(), ek_len, "{algorithm}");
        let encapsulated = module.encapsulate(algorithm, &encapsulation_key).unwrap();
        assert_eq!(encapsulated.ciphertext.len(), ct_len, "{algorithm}");
        assert_eq!(encapsulated.shared_secret.len(), 32, "{algorithm}");
        let secret = key.decapsulate(&encapsulated.ciphertext).unwrap();
        assert_eq!(
            secret.as_slice(),
            encapsulated.shared_secret.as_slice(),
            "{algorithm}"
        );
        // Two encapsulations give different secrets.
        let again = module.encapsulate(algorithm, &encapsulation_key).unwrap();
        assert_ne!(again.shared_secret, encapsulated.shared_secret);
        // FIPS 203 §6.3 implicit rejection: a modified ciphertext decapsulates to some other
        // secret, without an error.
        let mut tampered = encapsulated.ciphertext.clone();
        tampered[0] ^= 0x01;
        let rejected = key.decapsulate(&tampered).unwrap();
        assert_ne!(rejected.as_slice(), encapsulated.shared_secret.as_slice());
        // Malformed inputs.
        assert!(
            key.decapsulate(&encapsulated.ciphertext[..ct_len - 1])
                .is_err()
        );
        assert!(matches!(
            module.encapsulate(algorithm, &encapsulation_key[..ek_len - 1]),
            Err(Error::InvalidKey { .. })
        ));
        // A stored decapsulation key, imported again, gives the same encapsulation key and
        // decapsulates what was encapsulated to it.
        let imported = module
            .kem_key_from_bytes(algorithm, &key.to_bytes().unwrap())
            .unwrap()
            .into_value();
        assert_eq!(imported.encapsulation_key().unwrap(), encapsulation_key);
        assert_eq!(
            imported
                .decapsulate(&encapsulated.ciphertext)
                .unwrap()
                .as_slice(),
            encapsulated.shared_secret.as_slice()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// RSA: RSASSA-PSS and RSASSA-PKCS1-v1_5 (RFC 8017) with generated 2048-bit keys.
// ---------------------------------------------------------------------------------------------

#[test]
fn rsa_sign_verify_round_trips() {
    let module = module();
    // RFC 8017 A.1 / RFC 3279: rsaEncryption OID 1.2.840.113549.1.1.1.
    let rsa_encryption_oid = unhex("06092a864886f70d010101");
    for algorithm in [Algorithm::RsaPssSha256, Algorithm::RsaPkcs1Sha256] {
        let key = module.generate_signing_key(algorithm, Some(2048)).unwrap();
        assert_eq!(key.key_bits(), 2048);
        let public_key = key.public_key_der().unwrap();
        assert_eq!(public_key[0], 0x30, "{algorithm}: DER SEQUENCE");
        assert!(contains(&public_key, &rsa_encryption_oid), "{algorithm}");
        // 2048-bit modulus plus exponent: about 294 bytes of SPKI.
        assert!(
            (290..=300).contains(&public_key.len()),
            "{}",
            public_key.len()
        );

        let first = key.sign(b"message").unwrap();
        let second = key.sign(b"message").unwrap();
        assert_eq!(first.len(), 256, "{algorithm}");
        if algorithm == Algorithm::RsaPkcs1Sha256 {
            assert_eq!(*first, *second, "PKCS#1 v1.5 signatures are deterministic");
        } else {
            assert_ne!(*first, *second, "PSS signatures are salted");
        }
        for signature in [&first, &second] {
            module
                .verify(algorithm, &public_key, b"message", signature)
                .unwrap();
        }
        let mut tampered = first.to_vec();
        tampered[128] ^= 0x04;
        assert_eq!(
            module
                .verify(algorithm, &public_key, b"message", &tampered)
                .unwrap_err(),
            Error::BadSignature
        );
        // The same key under another hash does not verify.
        let other = if algorithm == Algorithm::RsaPssSha256 {
            Algorithm::RsaPssSha384
        } else {
            Algorithm::RsaPkcs1Sha384
        };
        assert_eq!(
            module
                .verify(other, &public_key, b"message", &first)
                .unwrap_err(),
            Error::BadSignature
        );
        // Not an RSA public key.
        assert!(matches!(
            module.verify(algorithm, &public_key[..100], b"message", &first),
            Err(Error::InvalidKey { .. })
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// Random bits.
// ---------------------------------------------------------------------------------------------

#[test]
fn random_bytes_lengths_and_non_repetition() {
    let module = module();
    for len in [0, 1, 16, 32, 1000, 65536] {
        let bytes = module.random_bytes(len).unwrap();
        assert_eq!(bytes.len(), len);
        assert_eq!(bytes.indicator().algorithm, Algorithm::CtrDrbg);
    }
    let outputs: Vec<Vec<u8>> = (0..16)
        .map(|_| module.random_bytes(32).unwrap().into_value())
        .collect();
    for (index, output) in outputs.iter().enumerate() {
        assert_ne!(output, &vec![0u8; 32]);
        for other in &outputs[index + 1..] {
            assert_ne!(output, other);
        }
    }
    let mut buffer = [0u8; 64];
    module.fill_random(&mut buffer).unwrap();
    assert_ne!(buffer, [0u8; 64]);
    // 64 KiB of output should contain every byte value.
    let large = module.random_bytes(65536).unwrap();
    let mut seen = [false; 256];
    for &byte in large.iter() {
        seen[usize::from(byte)] = true;
    }
    assert!(seen.iter().all(|&s| s));
}

// ---------------------------------------------------------------------------------------------
// Tampering and malformed input.
// ---------------------------------------------------------------------------------------------

#[test]
fn aead_any_flipped_bit_fails_authentication_with_no_output() {
    let module = module();
    for vector in GCM_VECTORS
        .iter()
        .filter(|v| v.name.ends_with('4') || v.name.ends_with("16"))
        .chain([&CHACHA20_POLY1305_RFC8439])
    {
        let key = module
            .aead_key(vector.algorithm, &unhex(vector.key))
            .unwrap();
        let nonce = unhex(vector.nonce);
        let aad = unhex(vector.aad);
        let mut sealed = unhex(vector.ciphertext);
        sealed.extend(unhex(vector.tag));
        let ct_len = sealed.len() - 16;
        // A bit in the first and last ciphertext byte, and every byte of the tag.
        let positions: Vec<usize> = [0, ct_len - 1]
            .into_iter()
            .chain(ct_len..sealed.len())
            .collect();
        for position in positions {
            for bit in [0, 7] {
                let mut tampered = sealed.clone();
                tampered[position] ^= 1 << bit;
                assert_eq!(
                    key.open(&nonce, &aad, &tampered).unwrap_err(),
                    Error::AuthenticationFailed,
                    "{}: byte {position} bit {bit}",
                    vector.name
                );
                let mut buffer = tampered.clone();
                assert_eq!(
                    key.open_in_place(&nonce, &aad, &mut buffer).unwrap_err(),
                    Error::AuthenticationFailed
                );
                assert!(buffer.is_empty(), "{}: output left behind", vector.name);
            }
        }
        // Wrong AAD, wrong nonce.
        let mut other_aad = aad.clone();
        other_aad.push(0);
        assert_eq!(
            key.open(&nonce, &other_aad, &sealed).unwrap_err(),
            Error::AuthenticationFailed
        );
        let mut other_nonce = nonce.clone();
        other_nonce[11] ^= 1;
        assert_eq!(
            key.open(&other_nonce, &aad, &sealed).unwrap_err(),
            Error::AuthenticationFailed
        );
        // Truncated below the tag length.
        let mut buffer = sealed[..15].to_vec();
        assert!(matches!(
            key.open_in_place(&nonce, &aad, &mut buffer),
            Err(Error::InvalidInput { .. })
        ));
        assert!(buffer.is_empty());
    }
}

#[test]
fn mac_flipped_bit_fails() {
    let module = module();
    let key = module.mac_key(Algorithm::HmacSha256, &[0x0b; 20]).unwrap();
    let mut tag = unhex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    key.verify(b"Hi There", &tag).unwrap();
    tag[31] ^= 0x80;
    assert_eq!(
        key.verify(b"Hi There", &tag).unwrap_err(),
        Error::AuthenticationFailed
    );
    // A truncated tag is not accepted either.
    assert_eq!(
        key.verify(b"Hi There", &tag[..16]).unwrap_err(),
        Error::AuthenticationFailed
    );
    let cmac = module
        .mac_key(Algorithm::Aes128Cmac, &unhex(SP800_38A_KEY128))
        .unwrap();
    let mut tag = unhex("bb1d6929e95937287fa37d129b756746");
    tag[0] ^= 1;
    assert_eq!(
        cmac.verify(b"", &tag).unwrap_err(),
        Error::AuthenticationFailed
    );
}

#[test]
fn wrong_key_lengths_are_invalid_keys() {
    let module = module();
    for (algorithm, lengths) in [
        (Algorithm::Aes128Gcm, [0, 15, 17, 32]),
        (Algorithm::Aes256Gcm, [0, 16, 31, 33]),
        (Algorithm::ChaCha20Poly1305, [0, 16, 31, 33]),
    ] {
        for len in lengths {
            assert!(
                matches!(
                    module.aead_key(algorithm, &vec![0; len]),
                    Err(Error::InvalidKey { algorithm: a, .. }) if a == algorithm
                ),
                "{algorithm} with {len}-byte key"
            );
        }
    }
    for (algorithm, lengths) in [
        (Algorithm::Aes128Ctr, [0, 15, 17, 32]),
        (Algorithm::Aes256Ctr, [0, 16, 31, 33]),
        (Algorithm::Aes128Cbc, [0, 15, 17, 32]),
        (Algorithm::Aes256Cbc, [0, 16, 31, 33]),
    ] {
        for len in lengths {
            assert!(
                matches!(
                    module.cipher_key(algorithm, &vec![0; len]),
                    Err(Error::InvalidKey { .. })
                ),
                "{algorithm} with {len}-byte key"
            );
        }
    }
    for (algorithm, len) in [(Algorithm::Aes128Cmac, 32), (Algorithm::Aes256Cmac, 16)] {
        assert!(matches!(
            module.mac_key(algorithm, &vec![0; len]),
            Err(Error::InvalidKey { .. })
        ));
    }
    assert!(matches!(
        module.signing_key_from_pkcs8(Algorithm::EcdsaP256, b"not a key"),
        Err(Error::InvalidKey { .. })
    ));
}

#[test]
fn wrong_nonce_and_iv_lengths_are_invalid_input() {
    let module = module();
    let key = module.aead_key(Algorithm::Aes128Gcm, &[0; 16]).unwrap();
    let sealed = key.seal_with_nonce(&[0; 12], b"", b"x").unwrap();
    for len in [0, 8, 11, 13, 16] {
        let nonce = vec![0; len];
        assert!(
            matches!(
                key.seal_with_nonce(&nonce, b"", b"x"),
                Err(Error::InvalidInput { .. })
            ),
            "seal with {len}-byte nonce"
        );
        assert!(
            matches!(
                key.open(&nonce, b"", &sealed),
                Err(Error::InvalidInput { .. })
            ),
            "open with {len}-byte nonce"
        );
    }
    for algorithm in [Algorithm::Aes128Ctr, Algorithm::Aes128Cbc] {
        let key = module.cipher_key(algorithm, &[0; 16]).unwrap();
        for len in [0, 12, 15, 17] {
            let iv = vec![0; len];
            assert!(
                matches!(
                    key.encrypt(Some(&iv), b"x"),
                    Err(Error::InvalidInput { .. })
                ),
                "{algorithm} encrypt with {len}-byte IV"
            );
            assert!(
                matches!(key.decrypt(&iv, &[0; 16]), Err(Error::InvalidInput { .. })),
                "{algorithm} decrypt with {len}-byte IV"
            );
        }
    }
    let cbc = module.cipher_key(Algorithm::Aes128Cbc, &[0; 16]).unwrap();
    for len in [0, 15, 17] {
        assert!(matches!(
            cbc.decrypt(&[0; 16], &vec![0; len]),
            Err(Error::InvalidInput { .. })
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// NIST CAVP files and other standard vector files from the PyPI package `cryptography-vectors`
// (pinned 50.0.2 in TESTING.md), when installed; each test prints a note and passes when it is
// absent, since CI installs it. Point REGULA_CRYPTOGRAPHY_VECTORS at the package folder to
// use another copy.
// ---------------------------------------------------------------------------------------------

fn cryptography_vectors_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("REGULA_CRYPTOGRAPHY_VECTORS") {
        return Some(PathBuf::from(dir));
    }
    let output = Command::new("python3")
        .args([
            "-c",
            "import cryptography_vectors,os;print(os.path.dirname(cryptography_vectors.__file__))",
        ])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let dir = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    dir.is_dir().then_some(dir)
}

/// Reads one vector file, or prints why it is skipped.
fn read_vector_file(relative: &str) -> Option<String> {
    let Some(dir) = cryptography_vectors_dir() else {
        println!(
            "NOTE: skipping {relative}: the PyPI package cryptography-vectors is not installed \
             (pip install cryptography-vectors==50.0.2)"
        );
        return None;
    };
    let path = dir.join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(error) => {
            println!("NOTE: skipping {}: {error}", path.display());
            None
        }
    }
}

/// One record of a CAVP `.rsp` file (a block of `Name = value` lines), with the bracketed
/// section headers in force.
#[derive(Clone, Debug, Default)]
struct RspRecord {
    /// `[Keylen = 256]` → ("Keylen", "256"); `[P-256,SHA-256]` → ("", "P-256,SHA-256").
    headers: Vec<(String, String)>,
    fields: Vec<(String, String)>,
    /// A bare `FAIL` line (GCM decryption).
    fail: bool,
}

impl RspRecord {
    fn text(&self, name: &str) -> &str {
        self.fields
            .iter()
            .find(|(field, _)| field == name)
            .map(|(_, value)| value.as_str())
            .unwrap_or_else(|| panic!("record lacks {name}: {self:?}"))
    }

    fn bytes(&self, name: &str) -> Vec<u8> {
        unhex(self.text(name))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header == name)
            .map(|(_, value)| value.as_str())
    }
}

fn parse_rsp(text: &str) -> Vec<RspRecord> {
    let mut records = Vec::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut current = RspRecord::default();
    let mut flush = |current: &mut RspRecord, headers: &[(String, String)]| {
        if !current.fields.is_empty() {
            current.headers = headers.to_vec();
            records.push(std::mem::take(current));
        }
    };
    for line in text.lines().map(str::trim) {
        if line.is_empty() {
            flush(&mut current, &headers);
        } else if line.starts_with('#') {
            continue;
        } else if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            flush(&mut current, &headers);
            let (name, value) = inner.split_once('=').unwrap_or(("", inner));
            let (name, value) = (name.trim().to_string(), value.trim().to_string());
            headers.retain(|(known, _)| *known != name);
            headers.push((name, value));
        } else if line == "FAIL" {
            current.fail = true;
        } else if let Some((name, value)) = line.split_once('=') {
            current
                .fields
                .push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    flush(&mut current, &headers);
    records
}

/// SP 800-38D GCM validation files: decryption (with FAIL records) and encryption with an
/// external IV. Only 96-bit IVs with 128-bit tags apply: the API takes exactly those.
#[test]
fn cavp_gcm_files() {
    let module = module();
    let mut total = 0;
    for bits in ["128", "256"] {
        let algorithm = if bits == "128" {
            Algorithm::Aes128Gcm
        } else {
            Algorithm::Aes256Gcm
        };
        for (file, decrypt) in [
            (format!("gcmDecrypt{bits}.rsp"), true),
            (format!("gcmEncryptExtIV{bits}.rsp"), false),
        ] {
            let Some(text) = read_vector_file(&format!("ciphers/AES/GCM/{file}")) else {
                continue;
            };
            let records = parse_rsp(&text);
            assert!(!records.is_empty(), "{file}: no records parsed");
            let (mut ran, mut failures) = (0, 0);
            for record in records.iter().filter(|record| {
                record.header("Keylen") == Some(bits)
                    && record.header("IVlen") == Some("96")
                    && record.header("Taglen") == Some("128")
            }) {
                let key = module.aead_key(algorithm, &record.bytes("Key")).unwrap();
                let iv = record.bytes("IV");
                let aad = record.bytes("AAD");
                let mut sealed = record.bytes("CT");
                sealed.extend(record.bytes("Tag"));
                let count = record.text("Count");
                if decrypt && record.fail {
                    assert_eq!(
                        key.open(&iv, &aad, &sealed).unwrap_err(),
                        Error::AuthenticationFailed,
                        "{file} Count {count}: a FAIL record opened"
                    );
                    failures += 1;
                } else if decrypt {
                    let opened = key.open(&iv, &aad, &sealed).unwrap();
                    assert_eq!(*opened, record.bytes("PT"), "{file} Count {count}");
                } else {
                    let resealed = key.seal_with_nonce(&iv, &aad, &record.bytes("PT")).unwrap();
                    assert_eq!(*resealed, sealed, "{file} Count {count}");
                }
                ran += 1;
            }
            assert!(ran > 0, "{file}: no applicable record");
            println!("{file}: {ran} records ran ({failures} expected failures)");
            total += ran;
        }
    }
    println!("CAVP GCM: {total} records ran in total");
}

/// FIPS 180-4 / FIPS 202 validation files (byte-oriented ShortMsg and LongMsg).
#[test]
fn cavp_hash_files() {
    let module = module();
    let files = [
        (Algorithm::Sha1, "hashes/SHA1/SHA1"),
        (Algorithm::Sha224, "hashes/SHA2/SHA224"),
        (Algorithm::Sha256, "hashes/SHA2/SHA256"),
        (Algorithm::Sha384, "hashes/SHA2/SHA384"),
        (Algorithm::Sha512, "hashes/SHA2/SHA512"),
        (Algorithm::Sha3_256, "hashes/SHA3/SHA3_256"),
        (Algorithm::Sha3_384, "hashes/SHA3/SHA3_384"),
        (Algorithm::Sha3_512, "hashes/SHA3/SHA3_512"),
    ];
    let mut total = 0;
    for (algorithm, stem) in files {
        for kind in ["ShortMsg", "LongMsg"] {
            let file = format!("{stem}{kind}.rsp");
            let Some(text) = read_vector_file(&file) else {
                continue;
            };
            let records = parse_rsp(&text);
            assert!(!records.is_empty(), "{file}: no records parsed");
            for record in &records {
                let bits: usize = record.text("Len").parse().unwrap();
                assert_eq!(bits % 8, 0, "{file}: bit-oriented record");
                // `Len = 0` comes with `Msg = 00`: the message is the first Len bits.
                let message = &record.bytes("Msg")[..bits / 8];
                let digest = module.digest(algorithm, message).unwrap();
                assert_eq!(*digest, record.bytes("MD"), "{file} Len = {bits}");
            }
            println!("{file}: {} records ran", records.len());
            total += records.len();
        }
    }
    println!("CAVP hashes: {total} records ran in total");
}

/// FIPS 202 SHAKE validation files (byte-oriented): ShortMsg and LongMsg at the section's
/// `[Outputlen = …]`, VariableOut at each record's `Outputlen`, all through `Module::xof`; and
/// the streaming `XofContext` fed in odd-sized pieces for every record.
#[test]
fn cavp_shake_files() {
    let module = module();
    let mut total = 0;
    for (algorithm, stem) in [
        (Algorithm::Shake128, "hashes/SHAKE/SHAKE128"),
        (Algorithm::Shake256, "hashes/SHAKE/SHAKE256"),
    ] {
        for kind in ["ShortMsg", "LongMsg", "VariableOut"] {
            let file = format!("{stem}{kind}.rsp");
            let Some(text) = read_vector_file(&file) else {
                continue;
            };
            let records = parse_rsp(&text);
            assert!(!records.is_empty(), "{file}: no records parsed");
            for record in &records {
                let (message, output_bits) = if kind == "VariableOut" {
                    let bits: usize = record.text("Outputlen").parse().unwrap();
                    (record.bytes("Msg"), bits)
                } else {
                    let bits: usize = record.text("Len").parse().unwrap();
                    assert_eq!(bits % 8, 0, "{file}: bit-oriented record");
                    // `Len = 0` comes with `Msg = 00`: the message is the first Len bits.
                    let outlen = record.header("Outputlen").expect("[Outputlen = …]");
                    (
                        record.bytes("Msg")[..bits / 8].to_vec(),
                        outlen.parse().unwrap(),
                    )
                };
                assert_eq!(output_bits % 8, 0, "{file}: bit-oriented output");
                let expected = record.bytes("Output");
                let output = module.xof(algorithm, &message, output_bits / 8).unwrap();
                assert_eq!(*output, expected, "{file}: {record:?}");
                let mut context = module.xof_context(algorithm).unwrap();
                for piece in message.chunks(7) {
                    context.update(piece).unwrap();
                }
                let mut streamed = vec![0; expected.len()];
                context.finish_into(&mut streamed).unwrap();
                assert_eq!(streamed, expected, "{file}: streamed {record:?}");
            }
            println!("{file}: {} records ran", records.len());
            total += records.len();
        }
    }
    println!("CAVP SHAKE: {total} records ran in total");
}

/// FIPS 186-3 ECDSA signature verification (SigVer.rsp), for the curve/hash pairs the API
/// offers: P-256 with SHA-256 and P-384 with SHA-384. `Result = F` must be rejected.
#[test]
fn cavp_ecdsa_sigver() {
    let Some(text) = read_vector_file("asymmetric/ECDSA/FIPS_186-3/SigVer.rsp") else {
        return;
    };
    let module = module();
    let (mut passed, mut failed) = (0, 0);
    for record in parse_rsp(&text) {
        let algorithm = match record.header("") {
            Some("P-256,SHA-256") => Algorithm::EcdsaP256,
            Some("P-384,SHA-384") => Algorithm::EcdsaP384,
            _ => continue,
        };
        let mut point = vec![0x04];
        point.extend(record.bytes("Qx"));
        point.extend(record.bytes("Qy"));
        let signature = der_signature(record.text("R"), record.text("S"));
        let message = record.bytes("Msg");
        let result = record.text("Result");
        let outcome = module.verify(algorithm, &point, &message, &signature);
        if result.starts_with('P') {
            assert!(outcome.is_ok(), "{algorithm}: {result}: {outcome:?}");
            passed += 1;
        } else {
            // "4 - Q changed" may leave a point that is not on the curve.
            let acceptable = match outcome {
                Err(Error::BadSignature) => true,
                Err(Error::InvalidKey { .. }) => result.contains("Q changed"),
                _ => false,
            };
            assert!(acceptable, "{algorithm}: {result}: {outcome:?}");
            failed += 1;
        }
    }
    assert!(passed > 0 && failed > 0);
    println!("SigVer.rsp: {passed} valid and {failed} invalid signatures checked");
}

/// Ed25519 `sign.input` (the SUPERCOP/RFC 8032 list, 1024 lines): import the seed as PKCS#8,
/// sign deterministically, compare, and verify.
#[test]
fn ed25519_sign_input_file() {
    let Some(text) = read_vector_file("asymmetric/Ed25519/sign.input") else {
        return;
    };
    let module = module();
    let mut ran = 0;
    for (number, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split(':').collect();
        assert!(fields.len() >= 4, "line {number}");
        let secret = unhex(fields[0]);
        let public_key = unhex(fields[1]);
        let message = unhex(fields[2]);
        let signature = &unhex(fields[3])[..64];
        let mut pkcs8 = unhex(ED25519_PKCS8_PREFIX);
        pkcs8.extend(&secret[..32]);
        let key = module
            .signing_key_from_pkcs8(Algorithm::Ed25519, &pkcs8)
            .unwrap();
        let signed = key.sign(&message).unwrap();
        assert_eq!(signed.as_slice(), signature, "line {number}: sign");
        module
            .verify(Algorithm::Ed25519, &public_key, &message, signature)
            .unwrap();
        ran += 1;
    }
    assert!(ran > 0);
    println!("sign.input: {ran} Ed25519 vectors ran");
}
