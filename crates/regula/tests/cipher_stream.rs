//! Cipher streams (`CipherKey::stream`): for every streamable cipher, random data split at
//! random chunk sizes (0 and 1 byte included) gives the one-shot `CipherKey::encrypt`/`decrypt`
//! result in both directions; known answers from SP 800-38A (AES CBC, CTR, CFB8), GB/T 32907 and
//! draft-ribose-cfrg-sm4 (SM4 ECB, CBC, OFB, CFB, CTR); the CTR counter wrapping at 2^128
//! against independent computations; OpenSSL's padding rules; finish-once; `try_clone`; the
//! indicator counting once per stream.

mod common;

use common::unhex;
use regula::{Algorithm, CipherKey, Direction, Error, ErrorKind, Module, Service};

fn module(name: &str) -> Module {
    Module::load_named(name).expect("built-in profile")
}

/// splitmix64: reproducible random inputs and chunk sizes (the seed is printed on failure).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }

    /// A chunk size: often 0 or 1, sometimes around a block, sometimes large.
    fn chunk(&mut self, left: usize) -> usize {
        let size = match self.below(6) {
            0 => 0,
            1 => 1,
            2 => self.below(17),
            3 => 15 + self.below(3),
            _ => self.below(200),
        };
        size.min(left)
    }
}

fn seed() -> u64 {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |elapsed| elapsed.as_nanos() as u64);
    eprintln!("cipher_stream seed: {seed:#x}");
    seed
}

/// Streams `input` through a new stream in random chunks, into output buffers of exactly
/// `update_len` bytes or generous ones, and finishes; returns all output.
fn stream(
    key: &CipherKey,
    direction: Direction,
    iv: &[u8],
    padding: bool,
    input: &[u8],
    rng: &mut Rng,
) -> Result<Vec<u8>, Error> {
    let mut stream = key.stream(direction, iv)?;
    stream.set_padding(padding)?;
    let mut output = Vec::new();
    feed(&mut stream, input, &mut output, rng)?;
    finish(&mut stream, &mut output)?;
    Ok(output)
}

fn feed(
    stream: &mut regula::CipherStream,
    input: &[u8],
    output: &mut Vec<u8>,
    rng: &mut Rng,
) -> Result<(), Error> {
    let xts = matches!(
        stream.algorithm(),
        Algorithm::Aes256Xts | Algorithm::Sm4Xts | Algorithm::Sm4XtsGb
    );
    let mut rest = input;
    loop {
        // XTS takes its one data unit whole (and empty updates around it).
        let take = if xts {
            if rng.below(2) == 0 { 0 } else { rest.len() }
        } else {
            rng.chunk(rest.len())
        };
        let (piece, tail) = rest.split_at(take);
        // The stream modes also work in place: every third piece goes that way.
        if stream.block_size() == 1 && rng.below(3) == 0 {
            let mut buffer = piece.to_vec();
            stream.update_in_place(&mut buffer)?;
            output.extend_from_slice(&buffer);
            rest = tail;
            if rest.is_empty() && rng.below(3) != 0 {
                return Ok(());
            }
            continue;
        }
        let exact = stream.update_len(piece.len());
        assert!(exact <= piece.len() + stream.block_size());
        let room = if rng.below(2) == 0 {
            exact
        } else {
            piece.len() + stream.block_size()
        };
        let mut out = vec![0xee; room];
        let written = stream.update(piece, &mut out)?;
        assert_eq!(written, exact, "{}: update_len", stream.algorithm());
        if stream.block_size() == 1 {
            assert_eq!(
                written,
                piece.len(),
                "{}: all output from update",
                stream.algorithm()
            );
        }
        output.extend_from_slice(&out[..written]);
        rest = tail;
        if rest.is_empty() && rng.below(3) != 0 {
            return Ok(());
        }
    }
}

fn finish(stream: &mut regula::CipherStream, output: &mut Vec<u8>) -> Result<(), Error> {
    let mut last = vec![0xee; stream.finish_len()];
    let written = *stream.finish(&mut last)?;
    output.extend_from_slice(&last[..written]);
    Ok(())
}

/// PKCS#7 (RFC 5652 §6.3), written here for the modes whose one-shot call takes whole blocks.
fn pkcs7(data: &[u8], block: usize) -> Vec<u8> {
    let pad = block - data.len() % block;
    let mut padded = data.to_vec();
    padded.resize(data.len() + pad, pad as u8);
    padded
}

/// How a cipher's one-shot call treats lengths.
#[derive(Clone, Copy, PartialEq)]
enum OneShot {
    /// PKCS#7 padding (AES-CBC, SM4-CBC).
    Padded,
    /// Whole blocks of this size, no padding (SM4-ECB, DES, 3DES).
    WholeBlocks(usize),
    /// Any length (stream modes).
    AnyLength,
    /// One XTS data unit: at least 16 bytes.
    Unit,
}

struct Case {
    profile: &'static str,
    algorithm: Algorithm,
    key_len: usize,
    one_shot: OneShot,
}

fn cases() -> Vec<Case> {
    use Algorithm::*;
    use OneShot::*;
    let case = |profile, algorithm, key_len, one_shot| Case {
        profile,
        algorithm,
        key_len,
        one_shot,
    };
    vec![
        case("default", Aes128Cbc, 16, Padded),
        case("default", Aes256Cbc, 32, Padded),
        case("default", Aes128Ctr, 16, AnyLength),
        case("default", Aes256Ctr, 32, AnyLength),
        case("default", Aes128Cfb8, 16, AnyLength),
        case("default", Aes256Cfb8, 32, AnyLength),
        case("default", Aes256Xts, 64, Unit),
        case("default", Rc4, 16, AnyLength),
        case("default", DesCbc, 8, WholeBlocks(8)),
        case("default", DesEde3Cbc, 24, WholeBlocks(8)),
        case("gm", Sm4Ecb, 16, WholeBlocks(16)),
        case("gm", Sm4Cbc, 16, Padded),
        case("gm", Sm4Ctr, 16, AnyLength),
        case("gm", Sm4Ofb, 16, AnyLength),
        case("gm", Sm4Cfb, 16, AnyLength),
        case("gm", Sm4Xts, 32, Unit),
        case("gm", Sm4XtsGb, 32, Unit),
    ]
}

fn random_key(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut key = rng.bytes(len);
    // XTS keys: the halves must differ.
    key[0] = 0;
    key[len / 2] = 1;
    key
}

/// Random data in random chunks through the stream equals the one-shot call, both directions,
/// padding on and off where the mode pads.
#[test]
fn random_chunks_equal_one_shot_for_every_cipher() {
    let mut rng = Rng(seed());
    for case in cases() {
        let module = module(case.profile);
        let algorithm = case.algorithm;
        for round in 0..24 {
            let key = module
                .cipher_key(algorithm, &random_key(&mut rng, case.key_len))
                .unwrap();
            let iv = rng.bytes(key.iv_len());
            let len = match (round, case.one_shot) {
                (0, OneShot::Unit) => 16,
                (0, _) => 0,
                (_, OneShot::Unit) => 16 + rng.below(600),
                _ => rng.below(700),
            };
            let plaintext = rng.bytes(len);
            let iv_arg = (!iv.is_empty()).then_some(&iv[..]);
            match case.one_shot {
                OneShot::Padded => {
                    let expected = key
                        .encrypt(iv_arg, &plaintext)
                        .unwrap()
                        .into_value()
                        .ciphertext;
                    let got = stream(&key, Direction::Encrypt, &iv, true, &plaintext, &mut rng);
                    assert_eq!(got.unwrap(), expected, "{algorithm} encrypt {len}");
                    let got = stream(&key, Direction::Decrypt, &iv, true, &expected, &mut rng);
                    assert_eq!(got.unwrap(), plaintext, "{algorithm} decrypt {len}");
                    // Padding off on whole blocks: CBC's ciphertext is the padded one less its
                    // last block.
                    let whole = &plaintext[..len - len % 16];
                    let padded = key.encrypt(iv_arg, whole).unwrap().into_value().ciphertext;
                    let prefix = &padded[..whole.len()];
                    let got = stream(&key, Direction::Encrypt, &iv, false, whole, &mut rng);
                    assert_eq!(got.unwrap(), prefix, "{algorithm} encrypt, no padding");
                    let got = stream(&key, Direction::Decrypt, &iv, false, prefix, &mut rng);
                    assert_eq!(got.unwrap(), whole, "{algorithm} decrypt, no padding");
                }
                OneShot::WholeBlocks(block) => {
                    let whole = &plaintext[..len - len % block];
                    let expected = key.encrypt(iv_arg, whole).unwrap().into_value().ciphertext;
                    let got = stream(&key, Direction::Encrypt, &iv, false, whole, &mut rng);
                    assert_eq!(got.unwrap(), expected, "{algorithm} encrypt {len}");
                    let got = stream(&key, Direction::Decrypt, &iv, false, &expected, &mut rng);
                    assert_eq!(got.unwrap(), whole, "{algorithm} decrypt {len}");
                    // Padding on (OpenSSL's default): the one-shot over the PKCS#7-padded data.
                    let expected = key
                        .encrypt(iv_arg, &pkcs7(&plaintext, block))
                        .unwrap()
                        .into_value()
                        .ciphertext;
                    let got = stream(&key, Direction::Encrypt, &iv, true, &plaintext, &mut rng);
                    assert_eq!(got.unwrap(), expected, "{algorithm} padded encrypt {len}");
                    let got = stream(&key, Direction::Decrypt, &iv, true, &expected, &mut rng);
                    assert_eq!(got.unwrap(), plaintext, "{algorithm} padded decrypt {len}");
                }
                OneShot::AnyLength | OneShot::Unit => {
                    let expected = key
                        .encrypt(iv_arg, &plaintext)
                        .unwrap()
                        .into_value()
                        .ciphertext;
                    for padding in [true, false] {
                        let got =
                            stream(&key, Direction::Encrypt, &iv, padding, &plaintext, &mut rng);
                        assert_eq!(got.unwrap(), expected, "{algorithm} encrypt {len}");
                        let got =
                            stream(&key, Direction::Decrypt, &iv, padding, &expected, &mut rng);
                        assert_eq!(got.unwrap(), plaintext, "{algorithm} decrypt {len}");
                    }
                }
            }
        }
    }
}

/// Streams a known answer in random chunks (padding off) both ways.
fn known_answer(
    profile: &str,
    algorithm: Algorithm,
    key: &str,
    iv: &str,
    plain: &str,
    cipher: &str,
) {
    let module = module(profile);
    let key = module.cipher_key(algorithm, &unhex(key)).unwrap();
    let (iv, plaintext, ciphertext) = (unhex(iv), unhex(plain), unhex(cipher));
    let mut rng = Rng(seed());
    for _ in 0..8 {
        let got = stream(&key, Direction::Encrypt, &iv, false, &plaintext, &mut rng).unwrap();
        assert_eq!(
            hex::encode(got),
            hex::encode(&ciphertext),
            "{algorithm} encrypt"
        );
        let got = stream(&key, Direction::Decrypt, &iv, false, &ciphertext, &mut rng).unwrap();
        assert_eq!(
            hex::encode(got),
            hex::encode(&plaintext),
            "{algorithm} decrypt"
        );
    }
}

/// NIST SP 800-38A Appendix F: the four-block examples (F.2.1, F.2.5 CBC; F.5.1, F.5.5 CTR) and
/// F.3.7 (CFB8-AES128, 18 segments).
#[test]
fn aes_sp800_38a_known_answers() {
    let plain = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                 30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
    let key128 = "2b7e151628aed2a6abf7158809cf4f3c";
    let key256 = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
    let cbc_iv = "000102030405060708090a0b0c0d0e0f";
    let ctr_iv = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    known_answer(
        "default",
        Algorithm::Aes128Cbc,
        key128,
        cbc_iv,
        plain,
        "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2\
         73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
    );
    known_answer(
        "default",
        Algorithm::Aes256Cbc,
        key256,
        cbc_iv,
        plain,
        "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d\
         39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
    );
    known_answer(
        "default",
        Algorithm::Aes128Ctr,
        key128,
        ctr_iv,
        plain,
        "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff\
         5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
    );
    known_answer(
        "default",
        Algorithm::Aes256Ctr,
        key256,
        ctr_iv,
        plain,
        "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5\
         2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
    );
    known_answer(
        "default",
        Algorithm::Aes128Cfb8,
        key128,
        cbc_iv,
        "6bc1bee22e409f96e93d7e117393172aae2d",
        "3b79424c9c0dd436bace9e0ed4586a4f32b9",
    );
}

/// SM4: GB/T 32907-2016 Appendix A example 1 (ECB); the CBC, OFB, CFB and CTR examples of
/// draft-ribose-cfrg-sm4 as in `shared/vectors/sm4-evp.txt` (OpenSSL's evp_test data).
#[test]
fn sm4_known_answers() {
    let key = "0123456789abcdeffedcba9876543210";
    let two_blocks = "0123456789abcdeffedcba98765432100123456789abcdeffedcba9876543210";
    known_answer(
        "gm",
        Algorithm::Sm4Ecb,
        key,
        "",
        key,
        "681edf34d206965e86b3e94f536e4246",
    );
    known_answer(
        "gm",
        Algorithm::Sm4Cbc,
        key,
        key,
        two_blocks,
        "2677f46b09c122cc975533105bd4a22af6125f7275ce552c3a2bbcf533de8a3b",
    );
    known_answer(
        "gm",
        Algorithm::Sm4Ofb,
        key,
        key,
        two_blocks,
        "693d9a535bad5bb1786f53d7253a7056f2075d28b5235f58d50027e4177d2bce",
    );
    known_answer(
        "gm",
        Algorithm::Sm4Cfb,
        key,
        key,
        two_blocks,
        "693d9a535bad5bb1786f53d7253a70569ed258a85a0467cc92aab393dd978995",
    );
    known_answer(
        "gm",
        Algorithm::Sm4Ctr,
        key,
        key,
        "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd\
         eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa",
        "c2b4759e78ac3cf43d0852f4e8d5f9fd7256e8a5fcb65a350ee00630912e4449\
         2a0b17e1b85b060d0fba612d8a95831638b361fd5ffacd942f081485a83ca35d",
    );
}

/// The 128-bit counter block wraps from ff…ff to 00…00, also inside a partial block carried
/// across calls: AES-CTR against AWS-LC's one-shot with the same IV; SM4-CTR against SM4-ECB
/// of the counter blocks ff…fe, ff…ff, 0…0, 0…1 (the keystream computed independently).
#[test]
fn ctr_counter_wraps_at_2_pow_128() {
    let mut rng = Rng(seed());
    let default = module("default");
    let gm = module("gm");
    let plaintext = rng.bytes(64);
    let iv = [0xff; 16];
    let mut iv_before = iv;
    iv_before[15] = 0xfe;
    for algorithm in [Algorithm::Aes128Ctr, Algorithm::Aes256Ctr] {
        let key_bytes = rng.bytes(if algorithm == Algorithm::Aes128Ctr {
            16
        } else {
            32
        });
        let key = default.cipher_key(algorithm, &key_bytes).unwrap();
        for iv in [iv, iv_before] {
            let expected = key
                .encrypt(Some(&iv), &plaintext)
                .unwrap()
                .into_value()
                .ciphertext;
            for _ in 0..16 {
                let got = stream(&key, Direction::Encrypt, &iv, true, &plaintext, &mut rng);
                assert_eq!(got.unwrap(), expected, "{algorithm}");
            }
        }
    }
    let key_bytes = rng.bytes(16);
    let ctr = gm.cipher_key(Algorithm::Sm4Ctr, &key_bytes).unwrap();
    let ecb = gm.cipher_key(Algorithm::Sm4Ecb, &key_bytes).unwrap();
    let mut counters = Vec::new();
    counters.extend_from_slice(&iv_before);
    counters.extend_from_slice(&iv);
    counters.extend_from_slice(&[0; 16]);
    let mut one = [0u8; 16];
    one[15] = 1;
    counters.extend_from_slice(&one);
    let keystream = ecb
        .encrypt(None, &counters)
        .unwrap()
        .into_value()
        .ciphertext;
    let expected: Vec<u8> = plaintext
        .iter()
        .zip(&keystream)
        .map(|(p, k)| p ^ k)
        .collect();
    for _ in 0..16 {
        let got = stream(
            &ctr,
            Direction::Encrypt,
            &iv_before,
            true,
            &plaintext,
            &mut rng,
        );
        assert_eq!(got.unwrap(), expected, "SM4-CTR across the wrap");
    }
}

/// OpenSSL's block-mode rules: padding off with a partial final block and a ciphertext that is
/// not whole blocks are input errors at finish; bad padding is a cryptographic failure with
/// nothing written; the stream is then over.
#[test]
fn padding_rules_and_final_errors() {
    let default = module("default");
    let gm = module("gm");
    let keys = [
        default.cipher_key(Algorithm::Aes128Cbc, &[1; 16]).unwrap(),
        default.cipher_key(Algorithm::DesEde3Cbc, &[3; 24]).unwrap(),
        gm.cipher_key(Algorithm::Sm4Cbc, &[2; 16]).unwrap(),
        gm.cipher_key(Algorithm::Sm4Ecb, &[4; 16]).unwrap(),
    ];
    for key in &keys {
        let algorithm = key.algorithm();
        let iv = vec![9; key.iv_len()];
        for direction in [Direction::Encrypt, Direction::Decrypt] {
            let mut stream = key.stream(direction, &iv).unwrap();
            let block = stream.block_size();
            assert!(stream.padding(), "{algorithm}: padding on by default");
            stream.set_padding(false).unwrap();
            let mut out = vec![0; 64];
            let written = stream.update(&[5; 21], &mut out).unwrap();
            assert_eq!(written, 16, "{algorithm}: whole blocks out");
            let error = stream.finish(&mut out).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Input, "{algorithm}: {error}");
            assert!(
                error.to_string().contains("wrong final block length"),
                "{error}"
            );
            assert!(stream.finish(&mut out).is_err(), "{algorithm}: stream over");
            assert!(
                stream.update(&[0; 8], &mut out).is_err(),
                "{algorithm}: stream over"
            );
            let _ = block;
        }
        // Decrypting with padding: a ciphertext of no block, or not whole blocks.
        for len in [0usize, 7, 17] {
            let mut stream = key.stream(Direction::Decrypt, &iv).unwrap();
            let mut out = vec![0; 64];
            stream.update(&vec![6; len], &mut out).unwrap();
            let error = stream.finish(&mut out).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Input, "{algorithm} {len}: {error}");
        }
        // Bad padding: a block whose plaintext ends in 0 (encrypted with padding off).
        let block = key.stream(Direction::Encrypt, &iv).unwrap().block_size();
        let mut encrypt = key.stream(Direction::Encrypt, &iv).unwrap();
        encrypt.set_padding(false).unwrap();
        let mut ciphertext = vec![0; 2 * block + block];
        let mut plain = vec![0x41; 2 * block];
        plain[2 * block - 1] = 0;
        let written = encrypt.update(&plain, &mut ciphertext).unwrap();
        ciphertext.truncate(written);
        assert_eq!(*encrypt.finish(&mut []).unwrap(), 0);
        let mut decrypt = key.stream(Direction::Decrypt, &iv).unwrap();
        let mut out = vec![0xee; 3 * block];
        let written = decrypt.update(&ciphertext, &mut out).unwrap();
        assert_eq!(written, block, "{algorithm}: last block held back");
        let mut last = vec![0xee; block];
        assert_eq!(
            decrypt.finish(&mut last).unwrap_err(),
            Error::CryptoFailure,
            "{algorithm}: bad padding"
        );
        assert!(
            last.iter().all(|&byte| byte == 0xee || byte == 0),
            "{algorithm}: nothing released: {last:02x?}"
        );
        // Padding cannot change once data has gone in.
        let mut stream = key.stream(Direction::Encrypt, &iv).unwrap();
        stream.update(&[1], &mut [0; 32]).unwrap();
        assert_eq!(
            stream.set_padding(false).unwrap_err().kind(),
            ErrorKind::Input
        );
    }
}

/// A second finish, and an update after finish, are typed errors; the indicator counts the
/// stream once, with the one-shot call's approval.
#[test]
fn finish_once_and_counted_once() {
    let mut rng = Rng(seed());
    for case in cases() {
        let module = module(case.profile);
        let algorithm = case.algorithm;
        let key = module
            .cipher_key(algorithm, &random_key(&mut rng, case.key_len))
            .unwrap();
        let iv = rng.bytes(key.iv_len());
        let data = rng.bytes(64);
        let iv_arg = (!iv.is_empty()).then_some(&iv[..]);
        let one_shot_approved = key.encrypt(iv_arg, &data).unwrap().is_approved();
        for (direction, service) in [
            (Direction::Encrypt, Service::Encrypt),
            (Direction::Decrypt, Service::Decrypt),
        ] {
            let before = count(&module, algorithm, service);
            let mut stream = key.stream(direction, &iv).unwrap();
            stream.set_padding(false).unwrap();
            let mut out = vec![0; 128];
            if matches!(case.one_shot, OneShot::Unit) {
                stream.update(&data, &mut out).unwrap();
            } else {
                for piece in data.chunks(8) {
                    stream.update(piece, &mut out).unwrap();
                }
            }
            assert_eq!(
                count(&module, algorithm, service),
                before,
                "{algorithm}: not yet"
            );
            let served = stream.finish(&mut out).unwrap();
            assert_eq!(served.is_approved(), one_shot_approved, "{algorithm}");
            assert_eq!(served.indicator().algorithm, algorithm);
            assert_eq!(served.indicator().service, service);
            assert_eq!(
                count(&module, algorithm, service),
                before + 1,
                "{algorithm}: once"
            );
            let error = stream.finish(&mut out).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Input, "{algorithm}: {error}");
            assert!(error.to_string().contains("already finished"), "{error}");
            assert!(stream.update(&[1], &mut out).is_err(), "{algorithm}");
            assert!(stream.try_clone().is_err(), "{algorithm}");
            assert_eq!(
                count(&module, algorithm, service),
                before + 1,
                "{algorithm}"
            );
        }
    }
}

/// All operations (approved or not) on `algorithm` for `service` in the module's counters.
fn count(module: &Module, algorithm: Algorithm, service: Service) -> u64 {
    module
        .counters()
        .iter()
        .filter(|row| row.algorithm == algorithm && row.service == service)
        .map(|row| row.approved + row.not_approved)
        .sum()
}

/// A copy made mid-stream gives the same remaining output as the original.
#[test]
fn try_clone_mid_stream_continues_identically() {
    let mut rng = Rng(seed());
    for case in cases() {
        if matches!(case.one_shot, OneShot::Unit) {
            continue; // One data unit per stream: nothing to continue.
        }
        let module = module(case.profile);
        let algorithm = case.algorithm;
        for direction in [Direction::Encrypt, Direction::Decrypt] {
            let key = module
                .cipher_key(algorithm, &random_key(&mut rng, case.key_len))
                .unwrap();
            let iv = rng.bytes(key.iv_len());
            let mut original = key.stream(direction, &iv).unwrap();
            // Whole blocks in all, so that padding off or on both finish.
            let blocks = 4 + rng.below(8);
            let data = rng.bytes(16 * blocks);
            let split = rng.below(data.len());
            let mut first = Vec::new();
            feed(&mut original, &data[..split], &mut first, &mut rng).unwrap();
            let mut copy = original.try_clone().unwrap();
            let (mut rest_original, mut rest_copy) = (Vec::new(), Vec::new());
            feed(&mut original, &data[split..], &mut rest_original, &mut rng).unwrap();
            feed(&mut copy, &data[split..], &mut rest_copy, &mut rng).unwrap();
            if direction == Direction::Encrypt || original.block_size() == 1 {
                finish(&mut original, &mut rest_original).unwrap();
                finish(&mut copy, &mut rest_copy).unwrap();
            } else {
                // Random data rarely carries valid padding: both refuse it the same way.
                let (a, b) = (
                    finish(&mut original, &mut rest_original),
                    finish(&mut copy, &mut rest_copy),
                );
                assert_eq!(a.is_ok(), b.is_ok(), "{algorithm}");
            }
            assert_eq!(rest_original, rest_copy, "{algorithm} {direction:?}");
            // And the whole equals an uninterrupted stream.
            let mut whole = first;
            whole.extend_from_slice(&rest_original);
            let mut uninterrupted = key.stream(direction, &iv).unwrap();
            let mut expected = Vec::new();
            feed(&mut uninterrupted, &data, &mut expected, &mut rng).unwrap();
            let _ = finish(&mut uninterrupted, &mut expected);
            assert_eq!(whole, expected, "{algorithm} {direction:?}");
        }
    }
}

/// Key wrapping and CBC-CS3 have no stream; the error names the one-shot calls.
/// A block mode buffers partial blocks: in place it is refused, and the stream goes on.
#[test]
fn block_modes_refuse_to_work_in_place() {
    for (profile, algorithm, key_len) in [
        ("default", Algorithm::Aes256Cbc, 32),
        ("default", Algorithm::DesEde3Cbc, 24),
        ("gm", Algorithm::Sm4Ecb, 16),
        ("gm", Algorithm::Sm4Cbc, 16),
    ] {
        let key = module(profile)
            .cipher_key(algorithm, &vec![7; key_len])
            .unwrap();
        let iv = vec![1; key.iv_len()];
        let mut stream = key.stream(Direction::Encrypt, &iv).unwrap();
        let refused = stream.update_in_place(&mut [0; 32]).unwrap_err();
        assert!(
            matches!(refused, Error::InvalidInput { .. }),
            "{algorithm}: {refused}"
        );
        let mut out = vec![0; 32 + stream.block_size()];
        assert_eq!(
            stream.update(&[0; 32], &mut out).unwrap(),
            32,
            "{algorithm}"
        );
    }
}

#[test]
fn one_shot_modes_have_no_stream() {
    let default = module("default");
    let gm = module("gm");
    let keys = [
        default.cipher_key(Algorithm::Aes128Kw, &[1; 16]).unwrap(),
        default.cipher_key(Algorithm::Aes256Kwp, &[1; 32]).unwrap(),
        default
            .cipher_key(Algorithm::Aes256CbcCs3, &[1; 32])
            .unwrap(),
        gm.cipher_key(Algorithm::Sm4CbcCs3, &[1; 16]).unwrap(),
    ];
    for key in &keys {
        let iv = vec![0; key.iv_len()];
        let error = key.stream(Direction::Encrypt, &iv).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Input, "{error}");
        assert!(error.to_string().contains("CipherKey::encrypt"), "{error}");
    }
}

/// Argument errors change nothing: a wrong IV length, a short output buffer (the call can be
/// retried), an XTS unit that is too short or a second unit.
#[test]
fn argument_errors_are_typed_and_change_nothing() {
    let default = module("default");
    let gm = module("gm");
    let ctr = default.cipher_key(Algorithm::Aes128Ctr, &[1; 16]).unwrap();
    assert_eq!(
        ctr.stream(Direction::Encrypt, &[0; 12]).unwrap_err().kind(),
        ErrorKind::Input
    );
    let rc4 = default.cipher_key(Algorithm::Rc4, &[1; 16]).unwrap();
    assert!(rc4.stream(Direction::Encrypt, &[0; 16]).is_err());

    let cbc = gm.cipher_key(Algorithm::Sm4Cbc, &[2; 16]).unwrap();
    let mut stream = cbc.stream(Direction::Encrypt, &[3; 16]).unwrap();
    stream.update(&[7; 10], &mut []).unwrap();
    let mut short = [0u8; 15];
    assert_eq!(
        stream.update(&[7; 10], &mut short).unwrap_err().kind(),
        ErrorKind::Input
    );
    let mut out = [0u8; 16];
    assert_eq!(stream.update(&[7; 10], &mut out).unwrap(), 16);
    let mut last = [0u8; 16];
    assert_eq!(*stream.finish(&mut last).unwrap(), 16);
    let expected = cbc
        .encrypt(Some(&[3; 16]), &[7; 20])
        .unwrap()
        .into_value()
        .ciphertext;
    assert_eq!([&out[..], &last[..]].concat(), expected);

    for (module, algorithm, key_len) in [
        (&default, Algorithm::Aes256Xts, 64),
        (&gm, Algorithm::Sm4Xts, 32),
        (&gm, Algorithm::Sm4XtsGb, 32),
    ] {
        let mut key_bytes = vec![1; key_len];
        key_bytes[key_len / 2..].fill(2);
        let key = module.cipher_key(algorithm, &key_bytes).unwrap();
        let mut stream = key.stream(Direction::Encrypt, &[4; 16]).unwrap();
        let mut out = [0u8; 64];
        assert_eq!(stream.update(&[], &mut out).unwrap(), 0);
        assert_eq!(
            stream.update(&[1; 15], &mut out).unwrap_err().kind(),
            ErrorKind::Input,
            "{algorithm}"
        );
        assert_eq!(stream.update(&[1; 40], &mut out).unwrap(), 40);
        let error = stream.update(&[1; 40], &mut out).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Input, "{algorithm}: {error}");
        assert_eq!(*stream.finish(&mut []).unwrap(), 0);
        let expected = key
            .encrypt(Some(&[4; 16]), &[1; 40])
            .unwrap()
            .into_value()
            .ciphertext;
        assert_eq!(out[..40], expected[..], "{algorithm}");
    }
}

/// The variable that makes [`child_in_error_state`] run (it is a no-op without it).
const CHILD_ENV: &str = "REGULA_TEST_CIPHER_STREAM_CHILD";
const CHILD_MARKER: &str = "REGULA-CIPHER-STREAM-ERROR-STATE-OK";

/// Once the module enters its error state (here: the SM3 self-test, broken on purpose, fails
/// at SM3's first use), open streams refuse update, finish and try_clone. Runs in a child
/// process, since the break switch is read when a module loads.
#[test]
fn streams_refuse_once_the_module_is_in_error_state() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_in_error_state", "--nocapture"])
        .env(CHILD_ENV, "1")
        .env(regula::BREAK_SELFTEST_ENV, "SM3")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains(CHILD_MARKER),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn child_in_error_state() {
    if std::env::var(CHILD_ENV).is_err() {
        return;
    }
    let module = module("default");
    let aes = module.cipher_key(Algorithm::Aes128Ctr, &[1; 16]).unwrap();
    let sm4 = module.cipher_key(Algorithm::Sm4Cbc, &[2; 16]).unwrap();
    let mut streams = [
        aes.stream(Direction::Encrypt, &[3; 16]).unwrap(),
        sm4.stream(Direction::Decrypt, &[4; 16]).unwrap(),
    ];
    let mut out = [0u8; 64];
    for stream in &mut streams {
        stream.update(&[5; 20], &mut out).unwrap();
    }
    assert!(module.digest(Algorithm::Sm3, b"abc").is_err());
    for stream in &mut streams {
        let refused = |result: Result<(), Error>| {
            assert!(
                matches!(result, Err(Error::ModuleInErrorState { .. })),
                "{result:?}"
            );
        };
        refused(stream.update(&[5; 20], &mut out).map(drop));
        refused(stream.finish(&mut out).map(drop));
        refused(stream.try_clone().map(drop));
    }
    assert!(aes.stream(Direction::Encrypt, &[3; 16]).is_err());
    println!("{CHILD_MARKER}");
}
