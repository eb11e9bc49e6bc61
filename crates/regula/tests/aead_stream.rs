//! Streaming AEAD ([`regula::AeadStream`]) for AES-128/256-GCM, ChaCha20-Poly1305 (AWS-LC's
//! `EVP_CIPHER`) and SM4-GCM (regula-sm's incremental GCM):
//!
//! * known answers: the GCM specification's test cases 4 and 16 (McGrew and Viega, "The
//!   Galois/Counter Mode of Operation", 2005), RFC 8439 §2.8.2, RFC 8998 Appendix A.1, fed in
//!   chunks of every size from 0 to 17 bytes;
//! * random nonces, AAD and data split into random chunks (0- and 1-byte chunks included, AAD
//!   split too): ciphertext and tag equal the one-shot `seal_with_nonce` (aws-lc-rs's `EVP_AEAD`
//!   for AES-GCM and ChaCha20-Poly1305, a separate path from the streamed `EVP_CIPHER`), and the
//!   decrypting stream recovers the plaintext;
//! * a stream restarted for the next message (`AeadKey::restart_stream`, which keeps AWS-LC's
//!   keyed context) after a finished, an abandoned and a failed message gives the same known
//!   answers, and random messages restarted one after another equal the one-shot seal;
//! * a wrong tag, a tag length the registry row refuses, AAD after data, a second finish,
//!   clones mid-stream, CCM refused, the FIPS policy's caller-nonce rule, the indicator, and
//!   the module's error state.

mod common;

use common::unhex;
use regula::{
    AeadKey, AeadStream, Algorithm, BREAK_SELFTEST_ENV, Error, Module, Policy, Profile, Service,
};

const STREAMED: [(Algorithm, usize); 4] = [
    (Algorithm::Aes128Gcm, 16),
    (Algorithm::Aes256Gcm, 32),
    (Algorithm::ChaCha20Poly1305, 32),
    (Algorithm::Sm4Gcm, 16),
];

fn module() -> Module {
    Module::load(Policy::builtin(Profile::Default))
}

/// A small deterministic generator (SplitMix64), enough to vary lengths and splits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }

    /// Random chunk lengths summing to `len`, with many 0- and 1-byte chunks.
    fn split(&mut self, len: usize) -> Vec<usize> {
        let mut chunks = Vec::new();
        let mut left = len;
        while left > 0 {
            let chunk = match self.below(6) {
                0 => 0,
                1 => 1,
                2 => 2 + self.below(16),
                3 => 16 * (1 + self.below(4)),
                _ => self.below(left.min(5000) + 1),
            }
            .min(left);
            chunks.push(chunk);
            left -= chunk;
        }
        if self.below(2) == 0 {
            chunks.push(0);
        }
        chunks
    }
}

/// Feeds `aad` and `input` in the given chunks and returns the output. Alternates between
/// `update` into a separate buffer and `update_in_place`.
fn run(
    stream: &mut AeadStream,
    aad: &[u8],
    aad_split: &[usize],
    input: &[u8],
    split: &[usize],
) -> Vec<u8> {
    let mut at = 0;
    for &len in aad_split {
        stream.aad(&aad[at..at + len]).unwrap();
        at += len;
    }
    assert_eq!(at, aad.len());
    let mut output = Vec::with_capacity(input.len());
    let mut at = 0;
    for (i, &len) in split.iter().enumerate() {
        let piece = &input[at..at + len];
        if i % 2 == 0 {
            // A longer output buffer: exactly `len` bytes are written, the rest untouched.
            let mut out = vec![0xA5; len + 3];
            assert_eq!(stream.update(piece, &mut out).unwrap(), len);
            assert_eq!(&out[len..], &[0xA5; 3]);
            output.extend_from_slice(&out[..len]);
        } else {
            let mut buffer = piece.to_vec();
            stream.update_in_place(&mut buffer).unwrap();
            output.extend_from_slice(&buffer);
        }
        at += len;
    }
    assert_eq!(at, input.len());
    output
}

fn chunks_of(size: usize, len: usize) -> Vec<usize> {
    if size == 0 {
        return vec![0, len, 0];
    }
    let mut split = vec![size; len / size];
    split.push(len % size);
    split
}

struct Vector {
    name: &'static str,
    algorithm: Algorithm,
    key: &'static str,
    nonce: &'static str,
    aad: &'static str,
    plaintext: &'static str,
    ciphertext: &'static str,
    tag: &'static str,
}

const GCM_P60: &str = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
                       1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
const GCM_A: &str = "feedfacedeadbeeffeedfacedeadbeefabaddad2";

const VECTORS: [Vector; 4] = [
    Vector {
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
    Vector {
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
    Vector {
        name: "RFC 8439 §2.8.2",
        algorithm: Algorithm::ChaCha20Poly1305,
        key: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
        nonce: "070000004041424344454647",
        aad: "50515253c0c1c2c3c4c5c6c7",
        plaintext: "4c616469657320616e642047656e746c656d656e206f662074686520636c6173\
                    73206f66202739393a204966204920636f756c64206f6666657220796f75206f\
                    6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73\
                    637265656e20776f756c642062652069742e",
        ciphertext: "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6\
                     3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36\
                     92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc\
                     3ff4def08e4b7a9de576d26586cec64b6116",
        tag: "1ae10b594f09e26a7e902ecbd0600691",
    },
    Vector {
        name: "RFC 8998 A.1",
        algorithm: Algorithm::Sm4Gcm,
        key: "0123456789abcdeffedcba9876543210",
        nonce: "00001234567800000000abcd",
        aad: GCM_A,
        plaintext: "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd\
                    eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa",
        ciphertext: "17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735\
                     d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d",
        tag: "83de3541e4c2b58177e065a9bf7b62ec",
    },
];

/// A vector's fields, decoded.
struct Known {
    nonce: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    ciphertext: Vec<u8>,
    tag: Vec<u8>,
}

impl Vector {
    fn key(&self, module: &Module) -> AeadKey {
        module.aead_key(self.algorithm, &unhex(self.key)).unwrap()
    }

    fn known(&self) -> Known {
        Known {
            nonce: unhex(self.nonce),
            aad: unhex(self.aad),
            plaintext: unhex(self.plaintext),
            ciphertext: unhex(self.ciphertext),
            tag: unhex(self.tag),
        }
    }
}

/// Runs the known answer through `encrypting` and `decrypting` (started under its nonce) in
/// chunks of `size`, and checks ciphertext, tag, plaintext and the services counted.
fn check_known(
    known: &Known,
    encrypting: &mut AeadStream,
    decrypting: &mut AeadStream,
    size: usize,
    context: &str,
) {
    let through = |stream: &mut AeadStream, input: &[u8]| {
        let aad_split = chunks_of(size, known.aad.len());
        run(
            stream,
            &known.aad,
            &aad_split,
            input,
            &chunks_of(size, input.len()),
        )
    };
    let out = through(encrypting, &known.plaintext);
    let served = encrypting.finish_encrypt().unwrap();
    assert_eq!(out, known.ciphertext, "{context}: ciphertext");
    assert_eq!(served.to_vec(), known.tag, "{context}: tag");
    assert_eq!(served.indicator().service, Service::Encrypt);

    let out = through(decrypting, &known.ciphertext);
    let served = decrypting.finish_decrypt(&known.tag).unwrap();
    assert_eq!(out, known.plaintext, "{context}: plaintext");
    assert_eq!(served.indicator().service, Service::Decrypt);
}

#[test]
fn known_answers_in_every_chunk_size() {
    let module = module();
    for vector in &VECTORS {
        let (key, known) = (vector.key(&module), vector.known());
        for size in 0..=17 {
            let mut encrypting = key.encrypt_stream(&known.nonce).unwrap();
            let mut decrypting = key.decrypt_stream(&known.nonce).unwrap();
            let context = format!("{}, chunks of {size}", vector.name);
            check_known(&known, &mut encrypting, &mut decrypting, size, &context);
        }
    }
}

/// Random messages in random chunks equal the one-shot seal, and open back.
#[test]
fn random_chunks_match_the_one_shot_seal() {
    let module = module();
    let mut rng = Rng(0xae5d_0001);
    let mut checked = 0;
    for (algorithm, key_len) in STREAMED {
        for round in 0..40 {
            let key = module.aead_key(algorithm, &rng.bytes(key_len)).unwrap();
            let nonce = rng.bytes(12);
            let aad_len = rng.below(80);
            let aad = rng.bytes(aad_len);
            let len = match round % 4 {
                0 => rng.below(40),
                1 => rng.below(300),
                2 => 4000 + rng.below(5000),
                _ => 64 * (60 + rng.below(300)),
            };
            let plaintext = rng.bytes(len);
            let sealed = key.seal_with_nonce(&nonce, &aad, &plaintext).unwrap();
            let (expected, expected_tag) = sealed.split_at(len);

            let (aad_split, split) = (rng.split(aad.len()), rng.split(len));
            let context = format!("{algorithm}, {len} bytes, AAD {aad_split:?}, data {split:?}");
            let mut stream = key.encrypt_stream(&nonce).unwrap();
            let ciphertext = run(&mut stream, &aad, &aad_split, &plaintext, &split);
            let tag = stream.finish_encrypt().unwrap();
            assert!(ciphertext == expected, "{context}: ciphertext");
            assert_eq!(&tag[..], expected_tag, "{context}: tag");
            assert_eq!(tag.indicator(), sealed.indicator(), "{context}: indicator");

            let (aad_split, split) = (rng.split(aad.len()), rng.split(len));
            let mut stream = key.decrypt_stream(&nonce).unwrap();
            let opened = run(&mut stream, &aad, &aad_split, &ciphertext, &split);
            stream.finish_decrypt(&tag[..]).unwrap();
            assert!(opened == plaintext, "{context}: plaintext");
            checked += 1;
        }
    }
    assert_eq!(checked, 160);
}

/// One stream carries message after message: the known answers come out after a finished,
/// an abandoned and a failed message (whose stream holds no keyed context any more), in both
/// directions.
#[test]
fn restarted_streams_give_the_known_answers() {
    let module = module();
    for vector in &VECTORS {
        let (key, known) = (vector.key(&module), vector.known());
        let mut encrypting = key.encrypt_stream(&[7; 12]).unwrap();
        let mut decrypting = key.decrypt_stream(&[7; 12]).unwrap();
        for (round, before) in ["finished", "abandoned", "failed"].iter().enumerate() {
            let context = format!("{}, after a {before} message", vector.name);
            // The message before, under another nonce and with other data.
            key.restart_stream(&mut encrypting, &[8; 12]).unwrap();
            key.restart_stream(&mut decrypting, &[8; 12]).unwrap();
            encrypting.aad(b"other").unwrap();
            encrypting.update_in_place(&mut [1; 40]).unwrap();
            decrypting.update_in_place(&mut [2; 40]).unwrap();
            match *before {
                "finished" => {
                    encrypting.finish_encrypt().unwrap();
                    key.restart_stream(&mut decrypting, &[9; 12]).unwrap();
                    decrypting.finish_decrypt(&right_tag(&key)).unwrap();
                }
                // A tag that does not verify leaves the stream without its keyed context.
                "failed" => assert!(matches!(
                    decrypting.finish_decrypt(&[0; 16]),
                    Err(Error::AuthenticationFailed)
                )),
                _ => {}
            }
            key.restart_stream(&mut encrypting, &known.nonce).unwrap();
            key.restart_stream(&mut decrypting, &known.nonce).unwrap();
            let size = [1, 5, 16][round];
            check_known(&known, &mut encrypting, &mut decrypting, size, &context);
        }
    }
}

/// The tag of the empty message under nonce 0x09.. with no AAD, by the one-shot seal.
fn right_tag(key: &AeadKey) -> Vec<u8> {
    key.seal_with_nonce(&[9; 12], b"", b"").unwrap().to_vec()
}

/// Random messages, each in the stream the last one ran in, equal the one-shot seal.
#[test]
fn restarted_streams_match_the_one_shot_seal() {
    let module = module();
    let mut rng = Rng(0xae5d_0002);
    for (algorithm, key_len) in STREAMED {
        let key = module.aead_key(algorithm, &rng.bytes(key_len)).unwrap();
        let mut encrypting = key.encrypt_stream(&rng.bytes(12)).unwrap();
        let mut decrypting = key.decrypt_stream(&rng.bytes(12)).unwrap();
        for round in 0..30 {
            let nonce = rng.bytes(12);
            let (aad_len, len) = (rng.below(40), rng.below(600));
            let aad = rng.bytes(aad_len);
            let plaintext = rng.bytes(len);
            let sealed = key.seal_with_nonce(&nonce, &aad, &plaintext).unwrap();
            let (expected, expected_tag) = sealed.split_at(plaintext.len());
            let context = format!("{algorithm}, message {round}");

            key.restart_stream(&mut encrypting, &nonce).unwrap();
            let split = rng.split(plaintext.len());
            let ciphertext = run(&mut encrypting, &aad, &[aad.len()], &plaintext, &split);
            let tag = encrypting.finish_encrypt().unwrap();
            assert!(ciphertext == expected, "{context}: ciphertext");
            assert_eq!(&tag[..], expected_tag, "{context}: tag");
            assert_eq!(tag.indicator(), sealed.indicator(), "{context}: indicator");

            key.restart_stream(&mut decrypting, &nonce).unwrap();
            let split = rng.split(plaintext.len());
            let opened = run(&mut decrypting, &aad, &[aad.len()], &ciphertext, &split);
            decrypting.finish_decrypt(expected_tag).unwrap();
            assert!(opened == plaintext, "{context}: plaintext");
        }
    }
}

/// A stream is restarted only by the key that started it, under a nonce that key takes.
#[test]
fn restart_takes_the_same_key_and_a_valid_nonce() {
    let module = module();
    for (algorithm, key_len) in STREAMED {
        let first = module.aead_key(algorithm, &vec![1; key_len]).unwrap();
        let second = module.aead_key(algorithm, &vec![1; key_len]).unwrap();
        let mut stream = first.encrypt_stream(&[0; 12]).unwrap();
        let refused = second.restart_stream(&mut stream, &[1; 12]).unwrap_err();
        assert!(
            refused.to_string().contains("another key"),
            "{algorithm}: {refused}"
        );
        assert!(matches!(
            first.restart_stream(&mut stream, &[]),
            Err(Error::InvalidInput { .. })
        ));
        // A failed restart finishes the stream; a valid one starts it again.
        assert!(stream.update_in_place(&mut [0; 4]).is_err(), "{algorithm}");
        first.restart_stream(&mut stream, &[1; 12]).unwrap();
        stream.update_in_place(&mut [0; 4]).unwrap();
    }
}

fn key(module: &Module, algorithm: Algorithm, key_len: usize) -> AeadKey {
    module.aead_key(algorithm, &vec![0x42; key_len]).unwrap()
}

/// Ciphertext and tag of `plaintext` under nonce 0x24.. and AAD "aad", by the one-shot seal.
fn sealed(key: &AeadKey, plaintext: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut sealed = key
        .seal_with_nonce(&[0x24; 12], b"aad", plaintext)
        .unwrap()
        .into_parts()
        .0;
    let tag = sealed.split_off(plaintext.len());
    (sealed, tag)
}

fn decrypting(key: &AeadKey, ciphertext: &[u8]) -> AeadStream {
    let mut stream = key.decrypt_stream(&[0x24; 12]).unwrap();
    stream.aad(b"aad").unwrap();
    let mut out = vec![0; ciphertext.len()];
    stream.update(ciphertext, &mut out).unwrap();
    stream
}

#[test]
fn wrong_tags_and_refused_tag_lengths() {
    let module = module();
    for (algorithm, key_len) in STREAMED {
        let key = key(&module, algorithm, key_len);
        let (ciphertext, tag) = sealed(&key, b"thirty-three bytes of plain text!");
        for position in [0, 7, 15] {
            let mut bad = tag.clone();
            bad[position] ^= 0x01;
            assert_eq!(
                decrypting(&key, &ciphertext).finish_decrypt(&bad),
                Err(Error::AuthenticationFailed),
                "{algorithm}: flipped tag byte {position}"
            );
        }
        let mut tampered = ciphertext.clone();
        tampered[32] ^= 0x80;
        assert_eq!(
            decrypting(&key, &tampered).finish_decrypt(&tag),
            Err(Error::AuthenticationFailed),
            "{algorithm}: tampered ciphertext"
        );
        // The row takes 16-byte tags only: a truncated one (which OpenSSL would accept) is
        // refused by length, and the stream can still finish with the right one.
        for len in [0, 1, 4, 8, 12, 15, 17] {
            let mut stream = decrypting(&key, &ciphertext);
            let long = [tag.clone(), vec![0]].concat();
            assert!(
                matches!(
                    stream.finish_decrypt(&long[..len]),
                    Err(Error::InvalidInput { .. })
                ),
                "{algorithm}: {len}-byte tag"
            );
            stream.finish_decrypt(&tag).unwrap();
        }
    }
}

#[test]
fn order_finish_twice_and_direction() {
    let module = module();
    for (algorithm, key_len) in STREAMED {
        let key = key(&module, algorithm, key_len);
        let mut stream = key.encrypt_stream(&[1; 12]).unwrap();
        stream.aad(b"first").unwrap();
        stream.aad(b"").unwrap();
        stream.update(b"data", &mut [0; 4]).unwrap();
        assert!(
            matches!(stream.aad(b"late"), Err(Error::InvalidInput { .. })),
            "{algorithm}: AAD after data"
        );
        // An empty data call starts the data too.
        let mut empty = key.encrypt_stream(&[1; 12]).unwrap();
        empty.update(b"", &mut []).unwrap();
        assert!(empty.aad(b"late").is_err(), "{algorithm}");
        assert!(
            matches!(
                stream.update(b"toolong", &mut [0; 3]),
                Err(Error::InvalidInput { .. })
            ),
            "{algorithm}: short output"
        );
        assert!(matches!(
            stream.finish_decrypt(&[0; 16]),
            Err(Error::InvalidInput { .. })
        ));
        let tag = stream.finish_encrypt().unwrap();
        // The failed calls above changed nothing: the tag is the one-shot's.
        let expected = key.seal_with_nonce(&[1; 12], b"first", b"data").unwrap();
        assert_eq!(&tag[..], &expected[4..], "{algorithm}");
        assert!(
            stream.finish_encrypt().is_err(),
            "{algorithm}: second finish"
        );
        assert!(stream.update(b"x", &mut [0]).is_err());
        assert!(stream.aad(b"").is_err());
        assert!(stream.try_clone().is_err());

        let (ciphertext, tag) = sealed(&key, b"abc");
        let mut stream = decrypting(&key, &ciphertext);
        assert!(
            stream.finish_encrypt().is_err(),
            "{algorithm}: wrong direction"
        );
        stream.finish_decrypt(&tag).unwrap();
        assert!(
            stream.finish_decrypt(&tag).is_err(),
            "{algorithm}: second finish"
        );
        let mut bad = tag.clone();
        bad[0] ^= 1;
        let mut stream = decrypting(&key, &ciphertext);
        assert_eq!(
            stream.finish_decrypt(&bad),
            Err(Error::AuthenticationFailed)
        );
        assert!(
            matches!(stream.finish_decrypt(&tag), Err(Error::InvalidInput { .. })),
            "{algorithm}: a failed finish ends the stream"
        );

        for nonce_len in [0, 8, 11, 13, 16] {
            assert!(
                matches!(
                    key.encrypt_stream(&vec![0; nonce_len]),
                    Err(Error::InvalidInput { .. })
                ),
                "{algorithm}: {nonce_len}-byte nonce"
            );
            assert!(key.decrypt_stream(&vec![0; nonce_len]).is_err());
        }
        assert_eq!(stream.algorithm(), algorithm);
    }
}

/// A clone taken inside a partial block of data goes on independently; the original too.
#[test]
fn clone_mid_stream() {
    let module = module();
    for (algorithm, key_len) in STREAMED {
        let key = key(&module, algorithm, key_len);
        let head: Vec<u8> = (0..37).collect();
        let tails: [Vec<u8>; 2] = [(100..171).collect(), vec![9]];
        for encrypt in [true, false] {
            let mut first = if encrypt {
                key.encrypt_stream(&[7; 12]).unwrap()
            } else {
                key.decrypt_stream(&[7; 12]).unwrap()
            };
            first.aad(b"shared").unwrap();
            let mut head_out = vec![0; head.len()];
            first.update(&head, &mut head_out).unwrap();
            let second = first.try_clone().unwrap();
            for (mut stream, tail) in [(first, &tails[0]), (second, &tails[1])] {
                let mut tail_out = vec![0; tail.len()];
                stream.update(tail, &mut tail_out).unwrap();
                let input = [&head[..], &tail[..]].concat();
                let output = [&head_out[..], &tail_out[..]].concat();
                let context = format!("{algorithm}, encrypt {encrypt}, tail {}", tail.len());
                if encrypt {
                    let tag = stream.finish_encrypt().unwrap();
                    let expected = key.seal_with_nonce(&[7; 12], b"shared", &input).unwrap();
                    assert_eq!([&output[..], &tag[..]].concat(), *expected, "{context}");
                } else {
                    // `input` read as ciphertext: its plaintext and tag from the one-shot seal
                    // of the output (GCM and ChaCha20 encrypt and decrypt alike).
                    let expected = key.seal_with_nonce(&[7; 12], b"shared", &output).unwrap();
                    assert_eq!(expected[..input.len()], input[..], "{context}");
                    stream.finish_decrypt(&expected[input.len()..]).unwrap();
                }
            }
        }
    }
}

#[test]
fn ccm_is_not_streamed() {
    let module = module();
    for (algorithm, key_len) in [
        (Algorithm::Aes128Ccm, 16),
        (Algorithm::Aes256Ccm, 32),
        (Algorithm::Sm4Ccm, 16),
    ] {
        let key = key(&module, algorithm, key_len);
        assert!(
            matches!(
                key.encrypt_stream(&[0; 12]),
                Err(Error::InvalidInput { .. })
            ),
            "{algorithm}"
        );
        assert!(matches!(
            key.decrypt_stream(&[0; 12]),
            Err(Error::InvalidInput { .. })
        ));
    }
}

/// FIPS 140-3 refuses AES-GCM encryption under a caller's nonce, streamed as one-shot;
/// decryption is approved and the indicator says so.
#[test]
fn fips_policy_applies_to_streams() {
    let module = Module::load(Policy::builtin(Profile::Fips1403));
    let key = key(&module, Algorithm::Aes256Gcm, 32);
    assert!(matches!(
        key.seal_with_nonce(&[0; 12], b"", b"x"),
        Err(Error::NotApproved { .. })
    ));
    assert!(matches!(
        key.encrypt_stream(&[0; 12]),
        Err(Error::NotApproved { .. })
    ));
    let sealed = module
        .aead_key(Algorithm::Aes256Gcm, &[0x42; 32])
        .unwrap()
        .seal(b"aad", b"plain")
        .unwrap();
    let mut stream = key.decrypt_stream(&sealed.nonce).unwrap();
    stream.aad(b"aad").unwrap();
    let mut out = [0; 5];
    stream.update(&sealed.ciphertext[..5], &mut out).unwrap();
    let served = stream.finish_decrypt(&sealed.ciphertext[5..]).unwrap();
    assert_eq!(&out, b"plain");
    assert!(served.indicator().is_approved());
    assert_eq!(served.indicator().algorithm, Algorithm::Aes256Gcm);
}

/// Once a self-test fails, a stream started before refuses every further call and no new
/// stream starts. Runs in a child process with the SHA3-256 self-test broken, which fails when
/// SHA3-256 is first used, after the stream has started.
#[test]
fn error_state_refuses_streams() {
    const CHILD: &str = "REGULA_AEAD_STREAM_CHILD";
    if std::env::var_os(CHILD).is_none() {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "error_state_refuses_streams", "--nocapture"])
            .env(CHILD, "1")
            .env(BREAK_SELFTEST_ENV, "SHA3-256")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("AEAD-STREAM-CHILD-OK"),
            "child failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        return;
    }
    let module = module();
    let started: Vec<_> = STREAMED
        .into_iter()
        .map(|(algorithm, key_len)| {
            let key = key(&module, algorithm, key_len);
            let mut encrypting = key.encrypt_stream(&[3; 12]).unwrap();
            encrypting.update(b"before", &mut [0; 6]).unwrap();
            let decrypting = key.decrypt_stream(&[3; 12]).unwrap();
            (key, encrypting, decrypting)
        })
        .collect();
    // The first use of SHA3-256 runs its (broken) self-test: the module enters its error state.
    assert!(module.digest(Algorithm::Sha3_256, b"").is_err());
    for (key, encrypting, decrypting) in started {
        streams_after_failure(&key, encrypting, decrypting);
    }
    println!("AEAD-STREAM-CHILD-OK");
}

fn streams_after_failure(key: &AeadKey, mut encrypting: AeadStream, mut decrypting: AeadStream) {
    let refused = |result: Result<(), Error>| {
        assert!(
            matches!(result, Err(Error::ModuleInErrorState { .. })),
            "{result:?}"
        );
    };
    let mut out = [0u8; 5];
    refused(encrypting.update(b"after", &mut out).map(drop));
    assert_eq!(out, [0; 5], "nothing written");
    refused(encrypting.aad(b"").map(drop));
    refused(encrypting.try_clone().map(drop));
    refused(encrypting.finish_encrypt().map(drop));
    refused(decrypting.update_in_place(&mut [1, 2, 3]).map(drop));
    refused(decrypting.finish_decrypt(&[0; 16]).map(drop));
    refused(key.encrypt_stream(&[4; 12]).map(drop));
    refused(key.restart_stream(&mut encrypting, &[4; 12]));
    refused(key.restart_stream(&mut decrypting, &[4; 12]));
    refused(key.decrypt_stream(&[4; 12]).map(drop));
}
