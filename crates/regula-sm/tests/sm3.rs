//! SM3 and HMAC-SM3 on every SM3 backend this CPU supports:
//!
//! * every SM3 stanza of `shared/vectors/sm3-evp.txt` (OpenSSL `evp_test` format: GB/T
//!   32905-2016 Appendix A, draft-shen-sm3-hash and draft-shen-sm2-ecdsa) and `shared/vectors/hmac-sm3-evp.txt` (GM/T 0042-2015
//!   Appendix D.3 and RFC 2202-style keys), absorbed whole and byte by byte;
//! * differential tests against RustCrypto `sm3` and `hmac` on random messages of 0..=4 KiB
//!   (lengths around the 55/56/64-byte padding boundaries included), absorbed in random
//!   pieces, and HMAC keys of 0..=200 bytes (around the 64-byte block).

mod common;

use common::{parse_evp, unhex};
use hmac::{KeyInit, Mac};
use rand::{Rng, SeedableRng};
use regula_sm::sm3::backend::{self, Backend};
use regula_sm::sm3::{HmacSm3, Sm3, sm3};
use sm3::Digest;

const SM3_VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/vectors/sm3-evp.txt"
);
const HMAC_VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/vectors/hmac-sm3-evp.txt"
);

fn backends() -> Vec<Backend> {
    let available = backend::available();
    assert!(available.contains(&Backend::RustCrypto));
    assert_eq!(available.last(), Some(&backend::active()));
    available
}

fn hash(backend: Backend) -> Sm3 {
    let hash = Sm3::with_backend(backend).expect("available backend");
    assert_eq!(hash.backend(), backend);
    hash
}

/// A field value: hex, or a "quoted" ASCII string.
fn value(text: &str) -> Vec<u8> {
    match text
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    {
        Some(ascii) => ascii.as_bytes().to_vec(),
        None => unhex(text),
    }
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn sm3_evp_vectors() {
    let stanzas = parse_evp(&read(SM3_VECTORS));
    let mut checked = 0;
    // The file ends with OpenSSL's case-insensitive name tests for other digests.
    for stanza in stanzas
        .iter()
        .filter(|stanza| stanza.get("Digest") == Some("SM3"))
    {
        assert_eq!(
            stanza.fields.len(),
            3,
            "line {}: unexpected fields",
            stanza.line
        );
        let input = value(stanza.get("Input").unwrap());
        let output = unhex(stanza.get("Output").unwrap());
        for backend in backends() {
            let context = format!("line {}, {backend}", stanza.line);
            let mut whole = hash(backend);
            whole.update(&input);
            assert_eq!(whole.finalize().to_vec(), output, "{context}");
            let mut bytewise = hash(backend);
            for byte in &input {
                bytewise.update(std::slice::from_ref(byte));
            }
            assert_eq!(
                bytewise.finalize().to_vec(),
                output,
                "{context}, byte by byte"
            );
        }
        assert_eq!(sm3(&input).to_vec(), output, "line {}", stanza.line);
        checked += 1;
    }
    assert_eq!(checked, 8, "SM3 stanzas in {SM3_VECTORS}");
}

#[test]
fn hmac_sm3_evp_vectors() {
    let stanzas = parse_evp(&read(HMAC_VECTORS));
    let mut checked = 0;
    for stanza in stanzas.iter().filter(|stanza| stanza.get("MAC").is_some()) {
        assert_eq!(stanza.get("MAC"), Some("HMAC"), "line {}", stanza.line);
        assert_eq!(stanza.get("Algorithm"), Some("SM3"), "line {}", stanza.line);
        assert_eq!(
            stanza.fields.len(),
            5,
            "line {}: unexpected fields",
            stanza.line
        );
        let key = value(stanza.get("Key").unwrap());
        let input = value(stanza.get("Input").unwrap());
        let output = unhex(stanza.get("Output").unwrap());
        for backend in backends() {
            let context = format!("line {}, {backend}", stanza.line);
            let mut mac = HmacSm3::with_backend(&key, backend).unwrap();
            mac.update(&input);
            assert_eq!(mac.finalize().to_vec(), output, "{context}");
            let mut bytewise = HmacSm3::with_backend(&key, backend).unwrap();
            for byte in &input {
                bytewise.update(std::slice::from_ref(byte));
            }
            assert_eq!(
                bytewise.finalize().to_vec(),
                output,
                "{context}, byte by byte"
            );
        }
        let mut mac = HmacSm3::new(&key).unwrap();
        mac.update(&input);
        assert_eq!(mac.finalize().to_vec(), output, "line {}", stanza.line);
        checked += 1;
    }
    assert_eq!(checked, 4, "stanzas in {HMAC_VECTORS}");
}

/// Message lengths: a sweep to 4 KiB and every length around the padding boundaries of the
/// first blocks.
fn lengths() -> Vec<usize> {
    let mut lengths: Vec<usize> = (0..=4096).step_by(53).collect();
    for blocks in [0usize, 1, 2, 7, 63] {
        for offset in [0usize, 1, 54, 55, 56, 57, 63] {
            lengths.push(64 * blocks + offset);
        }
    }
    lengths.push(4096);
    lengths
}

/// Feeds `data` to `update` in random pieces (empty ones included).
fn in_pieces(rng: &mut impl Rng, data: &[u8], mut update: impl FnMut(&[u8])) {
    let mut rest = data;
    while !rest.is_empty() {
        let take = rng.random_range(0..=rest.len().min(200));
        update(&rest[..take]);
        rest = &rest[take..];
    }
}

#[test]
fn sm3_matches_rustcrypto() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5303_0101);
    for len in lengths() {
        let mut data = vec![0u8; len];
        rng.fill(&mut data[..]);
        let expected: [u8; 32] = sm3::Sm3::digest(&data).into();
        for backend in backends() {
            let mut whole = hash(backend);
            whole.update(&data);
            assert_eq!(whole.finalize(), expected, "{backend}, len {len}");
            let mut pieces = hash(backend);
            in_pieces(&mut rng, &data, |piece| pieces.update(piece));
            assert_eq!(
                pieces.finalize(),
                expected,
                "{backend}, len {len} in pieces"
            );
        }
    }
}

#[test]
fn hmac_sm3_matches_rustcrypto() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5303_0102);
    let key_lengths = [0usize, 1, 16, 32, 63, 64, 65, 100, 128, 200];
    for (i, len) in lengths().into_iter().enumerate() {
        let mut key = vec![0u8; key_lengths[i % key_lengths.len()]];
        rng.fill(&mut key[..]);
        let mut data = vec![0u8; len];
        rng.fill(&mut data[..]);
        let mut reference = hmac::Hmac::<sm3::Sm3>::new_from_slice(&key).unwrap();
        reference.update(&data);
        let expected: [u8; 32] = reference.finalize().into_bytes().into();
        for backend in backends() {
            let keyed = HmacSm3::with_backend(&key, backend).unwrap();
            let mut whole = keyed.clone();
            whole.update(&data);
            assert_eq!(
                whole.finalize(),
                expected,
                "{backend}, key {}, len {len}",
                key.len()
            );
            let mut pieces = keyed.clone();
            in_pieces(&mut rng, &data, |piece| pieces.update(piece));
            assert_eq!(
                pieces.finalize(),
                expected,
                "{backend}, len {len} in pieces"
            );
        }
    }
}

/// A state cloned mid-message continues independently (TLS transcript hashes rely on it).
#[test]
fn clone_forks_the_state() {
    for backend in backends() {
        let mut first = hash(backend);
        first.update(b"abc, then ");
        let mut second = first.clone();
        first.update(b"more");
        second.update(b"other");
        assert_eq!(first.finalize(), sm3(b"abc, then more"), "{backend}");
        assert_eq!(second.finalize(), sm3(b"abc, then other"), "{backend}");
    }
}
