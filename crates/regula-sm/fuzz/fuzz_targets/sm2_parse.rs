//! SM2 key and signature parsers on arbitrary bytes, and signature verification with a fixed
//! public key.
//!
//! Properties checked:
//! - PKCS#8 (DER, PEM), SubjectPublicKeyInfo (DER, PEM), SEC 1 points, `from_sec1_or_spki_der`,
//!   DER and raw `r ‖ s` signatures: a value or an error, never a panic;
//! - whatever parses re-encodes and parses back to the same value: keys through
//!   `to_pkcs8_der`/`to_spki_der`/`to_uncompressed`, a DER signature re-encodes to exactly the
//!   input (strict DER), a raw one likewise; a parsed PKCS#8 key's public key is valid;
//! - `from_sec1_or_spki_der` is `from_spki_der` for input starting with 0x30, `from_sec1`
//!   otherwise;
//! - verification of arbitrary (r, s) over an arbitrary message and ID under the fixed key is
//!   `BadSignature` (a forgery would be a finding), never a panic; a signature made over the
//!   same message with the matching private key verifies, in both encodings, and fails for a
//!   message with one bit flipped.

#![no_main]
#![forbid(unsafe_code)]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use regula_sm::sm2::{self, Error, PrivateKey, PublicKey, Signature};
use regula_sm_fuzz::{Reader, deterministic_random};

/// GB/T 32918.5-2017 Annex A example key (as in the crate's tests).
const D: [u8; 32] = [
    0x39, 0x45, 0x20, 0x8F, 0x7B, 0x21, 0x44, 0xB1, 0x3F, 0x36, 0xE3, 0x8A, 0xC6, 0xD3, 0x9F, 0x95,
    0x88, 0x93, 0x93, 0x69, 0x28, 0x60, 0xB5, 0x1A, 0x42, 0xFB, 0x81, 0xEF, 0x4D, 0xF7, 0xC5, 0xB8,
];

static KEY: LazyLock<PrivateKey> = LazyLock::new(|| PrivateKey::from_bytes(&D).unwrap());

fn check_private(parsed: Result<PrivateKey, Error>, what: &str) {
    match parsed {
        Ok(key) => {
            let der = key
                .to_pkcs8_der()
                .unwrap_or_else(|e| panic!("{what}: re-encode: {e}"));
            let again = PrivateKey::from_pkcs8_der(&der)
                .unwrap_or_else(|e| panic!("{what}: re-encoded key does not parse: {e}"));
            assert!(again == key, "{what}: re-encoded key differs");
            let pem = key
                .to_pkcs8_pem()
                .unwrap_or_else(|e| panic!("{what}: PEM: {e}"));
            assert!(
                PrivateKey::from_pkcs8_pem(&pem).unwrap() == key,
                "{what}: PEM round trip"
            );
            let public = key.public_key();
            assert_eq!(
                PublicKey::from_sec1(&public.to_uncompressed()).as_ref(),
                Ok(public)
            );
            assert_eq!(
                PrivateKey::from_bytes(key.to_bytes().as_slice())
                    .ok()
                    .as_ref(),
                Some(&key)
            );
        }
        Err(error) => assert!(
            matches!(error, Error::Encoding | Error::InvalidPrivateKey),
            "{what}: unexpected error {error:?}"
        ),
    }
}

fn check_public(parsed: Result<PublicKey, Error>, what: &str) {
    match parsed {
        Ok(key) => {
            let der = key
                .to_spki_der()
                .unwrap_or_else(|e| panic!("{what}: re-encode: {e}"));
            assert_eq!(
                PublicKey::from_spki_der(&der),
                Ok(key),
                "{what}: SPKI round trip"
            );
            let pem = key
                .to_spki_pem()
                .unwrap_or_else(|e| panic!("{what}: PEM: {e}"));
            assert_eq!(
                PublicKey::from_spki_pem(&pem),
                Ok(key),
                "{what}: PEM round trip"
            );
            assert_eq!(
                PublicKey::from_sec1(&key.to_uncompressed()),
                Ok(key),
                "{what}: SEC 1"
            );
        }
        Err(error) => assert!(
            matches!(error, Error::Encoding | Error::InvalidPublicKey),
            "{what}: unexpected error {error:?}"
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    // 1. Parsers on the whole input.
    check_private(PrivateKey::from_pkcs8_der(data), "PKCS#8 DER");
    check_public(PublicKey::from_spki_der(data), "SPKI DER");
    let sec1 = PublicKey::from_sec1(data);
    check_public(sec1, "SEC 1");
    if let Ok(point) = sec1 {
        assert!(
            matches!(data.len(), 33 | 65),
            "SEC 1 point of {} bytes",
            data.len()
        );
        if data.len() == 65 {
            assert_eq!(point.to_uncompressed()[..], data[..], "SEC 1 re-encoding");
        } else {
            assert_eq!(point.to_uncompressed()[1..33], data[1..], "compressed x");
        }
    }
    let either = PublicKey::from_sec1_or_spki_der(data);
    if data.first() == Some(&0x30) {
        assert_eq!(
            either,
            PublicKey::from_spki_der(data),
            "from_sec1_or_spki_der (SPKI)"
        );
    } else {
        assert_eq!(either, sec1, "from_sec1_or_spki_der (SEC 1)");
    }
    if let Ok(text) = std::str::from_utf8(data) {
        check_private(PrivateKey::from_pkcs8_pem(text), "PKCS#8 PEM");
        check_public(PublicKey::from_spki_pem(text), "SPKI PEM");
    }
    match Signature::from_der(data) {
        Ok(signature) => {
            assert_eq!(
                signature.to_der(),
                data,
                "DER signature does not re-encode to itself"
            );
            assert_eq!(Signature::from_bytes(&signature.to_bytes()), Ok(signature));
        }
        Err(error) => assert_eq!(error, Error::BadSignature),
    }
    match Signature::from_bytes(data) {
        Ok(signature) => {
            assert_eq!(signature.to_bytes()[..], data[..]);
            assert_eq!(Signature::from_der(&signature.to_der()), Ok(signature));
        }
        Err(error) => assert_eq!(error, Error::BadSignature),
    }

    // 2. Verification: flags, an ID, a raw (r, s) or DER signature, then the message.
    let mut input = Reader::new(data);
    let flags = input.byte();
    let id_len = usize::from(input.byte());
    let id = input.bytes(id_len);
    let public = KEY.public_key();
    let parsed = if flags & 1 == 0 {
        Signature::from_bytes(input.bytes(64))
    } else {
        let der_len = usize::from(input.byte());
        Signature::from_der(input.bytes(der_len))
    };
    let message = input.rest();
    if let Ok(signature) = parsed {
        assert_eq!(
            sm2::verify(public, id, message, &signature),
            Err(Error::BadSignature),
            "arbitrary signature verified: forgery?"
        );
    }

    // 3. A real signature over the same message verifies; a flipped message bit does not.
    if flags & 2 != 0 {
        let mut random = deterministic_random(data);
        let signature = sm2::sign(&KEY, id, message, &mut random).expect("sign");
        assert_eq!(
            sm2::verify(public, id, message, &signature),
            Ok(()),
            "own signature"
        );
        let der = Signature::from_der(&signature.to_der()).expect("own DER signature");
        let raw = Signature::from_bytes(&signature.to_bytes()).expect("own raw signature");
        assert_eq!(der, signature);
        assert_eq!(raw, signature);
        if !message.is_empty() {
            let mut flipped = message.to_vec();
            let bit = usize::from(flags >> 2) % (8 * flipped.len());
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                sm2::verify(public, id, &flipped, &signature),
                Err(Error::BadSignature),
                "signature verified for a flipped message"
            );
        }
    }
});
