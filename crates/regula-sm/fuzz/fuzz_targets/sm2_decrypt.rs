//! SM2 decryption (GB/T 32918.4) of arbitrary bytes under a fixed key, in all three ciphertext
//! formats, and round trips of fuzz-chosen messages.
//!
//! Properties checked:
//! - arbitrary bytes as `C1C3C2`, `C1C2C3` or ASN.1 (GM/T 0009) ciphertext: plaintext or
//!   `DecryptionFailed` (the only error `decrypt` may give), never a panic; a plaintext from a
//!   concatenated format is non-empty and `len - 97` bytes long. The same bytes are also tried
//!   behind a valid `C1` point, so that the KDF and the `C3` check are reached, not only the
//!   point check;
//! - the fuzz input as a message: empty gives `EmptyMessage`; otherwise encryption (with a
//!   deterministic `k` drawn from the input) in each format decrypts back to the message, the
//!   three formats carry the same parts (`C1C2C3` is `C1C3C2` reordered), a fuzz-chosen bit
//!   flip makes decryption fail, and another key cannot decrypt.

#![no_main]
#![forbid(unsafe_code)]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use regula_sm::sm2::{self, CiphertextFormat, Error, PrivateKey};
use regula_sm_fuzz::{Reader, deterministic_random};

/// GB/T 32918.5-2017 Annex A/C example key (as in the crate's tests).
const D: [u8; 32] = [
    0x39, 0x45, 0x20, 0x8F, 0x7B, 0x21, 0x44, 0xB1, 0x3F, 0x36, 0xE3, 0x8A, 0xC6, 0xD3, 0x9F, 0x95,
    0x88, 0x93, 0x93, 0x69, 0x28, 0x60, 0xB5, 0x1A, 0x42, 0xFB, 0x81, 0xEF, 0x4D, 0xF7, 0xC5, 0xB8,
];

static KEY: LazyLock<PrivateKey> = LazyLock::new(|| PrivateKey::from_bytes(&D).unwrap());
static OTHER: LazyLock<PrivateKey> = LazyLock::new(|| {
    let mut d = D;
    d[31] ^= 1;
    PrivateKey::from_bytes(&d).unwrap()
});

const FORMATS: [CiphertextFormat; 3] = [
    CiphertextFormat::C1C3C2,
    CiphertextFormat::C1C2C3,
    CiphertextFormat::Asn1,
];
const POINT_LEN: usize = 65;
const HASH_LEN: usize = 32;

/// Arbitrary bytes as a ciphertext: plaintext or `DecryptionFailed`, nothing else.
fn decrypt_arbitrary(bytes: &[u8], format: CiphertextFormat) {
    match sm2::decrypt(&KEY, bytes, format) {
        Ok(plaintext) => {
            assert!(
                !plaintext.is_empty(),
                "{format:?}: empty plaintext released"
            );
            if format != CiphertextFormat::Asn1 {
                assert_eq!(
                    plaintext.len(),
                    bytes.len() - POINT_LEN - HASH_LEN,
                    "{format:?}"
                );
            }
        }
        Err(error) => assert_eq!(error, Error::DecryptionFailed, "{format:?}: wrong error"),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Reader::new(data);
    let flags = input.byte();
    let flip = input.u16();
    let message = input.rest();

    // 1. Arbitrary bytes (the whole input) as a ciphertext.
    for format in FORMATS {
        decrypt_arbitrary(data, format);
    }

    // 2. The rest of the input as a message.
    let mut random = deterministic_random(data);
    if message.is_empty() {
        for format in FORMATS {
            assert_eq!(
                sm2::encrypt(KEY.public_key(), message, format, &mut random),
                Err(Error::EmptyMessage)
            );
        }
        return;
    }
    // The same `k` for all three formats, so that their parts can be compared.
    let ciphertexts: Vec<Vec<u8>> = FORMATS
        .iter()
        .map(|&format| {
            let mut random = deterministic_random(data);
            sm2::encrypt(KEY.public_key(), message, format, &mut random)
                .unwrap_or_else(|e| panic!("{format:?}: encrypt failed: {e}"))
        })
        .collect();
    let c1c3c2 = &ciphertexts[0];
    let c1c2c3 = &ciphertexts[1];
    assert_eq!(c1c3c2.len(), POINT_LEN + HASH_LEN + message.len());
    assert_eq!(c1c3c2[0], 0x04, "C1 is not an uncompressed point");
    let (c1, rest) = c1c3c2.split_at(POINT_LEN);
    let (c3, c2) = rest.split_at(HASH_LEN);
    assert_eq!(
        *c1c2c3,
        [c1, c2, c3].concat(),
        "C1C2C3 is not C1C3C2 reordered"
    );

    for (&format, ciphertext) in FORMATS.iter().zip(&ciphertexts) {
        let plaintext = sm2::decrypt(&KEY, ciphertext, format)
            .unwrap_or_else(|e| panic!("{format:?}: valid ciphertext does not decrypt: {e}"));
        assert_eq!(plaintext, message, "{format:?}: decrypt(encrypt(m)) != m");

        // Only the key it was made for decrypts it (one format is enough: same parts).
        if format == CiphertextFormat::C1C3C2 && flags & 1 != 0 {
            assert_eq!(
                sm2::decrypt(&OTHER, ciphertext, format),
                Err(Error::DecryptionFailed),
                "{format:?}: another key decrypted"
            );
        }

        // A flipped bit anywhere makes it fail.
        let mut tampered = ciphertext.clone();
        let bit = usize::from(flip) % (8 * tampered.len());
        tampered[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(
            sm2::decrypt(&KEY, &tampered, format),
            Err(Error::DecryptionFailed),
            "{format:?}: ciphertext with bit {bit} flipped decrypted"
        );
    }

    // 3. The message as C3 || C2 (or C2 || C3) behind a valid C1, so that decryption gets past
    //    the point check into the KDF and the hash comparison.
    if flags & 2 != 0 {
        let forged = [c1, message].concat();
        decrypt_arbitrary(&forged, CiphertextFormat::C1C3C2);
        decrypt_arbitrary(&forged, CiphertextFormat::C1C2C3);
    }
});
