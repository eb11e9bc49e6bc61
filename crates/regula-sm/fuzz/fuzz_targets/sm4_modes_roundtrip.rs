//! The unauthenticated SM4 modes with arbitrary key, IV/tweak and data.
//!
//! Properties checked, each mode on the active (fastest) backend against the portable one:
//! - ECB, CBC: whole-block lengths encrypt and decrypt back (decrypt(encrypt(x)) == x), both
//!   backends agree, and the result equals a one-block-at-a-time reference built on
//!   `Sm4::encrypt_block`; other lengths give `InvalidLength { len }` and leave the data alone.
//! - CBC with PKCS#7: any length round-trips, the ciphertext is the next whole block up;
//!   decrypting arbitrary bytes never panics, and when it returns plaintext, padding and
//!   encrypting it again gives the same bytes back (the padding is canonical).
//! - CTR: any length round-trips, equals a reference keystream E(IV + i) with the 128-bit
//!   counter wrapping, and the incremental `Ctr` fed fuzz-chosen pieces equals one shot.
//! - XTS (IEEE 1619 and GB/T 17964): equal key halves are refused; shorter than a block gives
//!   `TooShort`; otherwise round trip, same length, backends agree, and both standards agree
//!   on the first block (they differ only in the tweak's ⊗α).
//! - CBC-CS3: shorter than a block gives `TooShort`; otherwise round trip; one block is plain
//!   CBC, and for whole-block lengths the output is CBC with the last two blocks swapped.

#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use regula_sm::sm4::backend::Backend;
use regula_sm::sm4::modes::{
    Cs3Error, Ctr, Xts, XtsError, XtsStandard, cbc_cs3_decrypt, cbc_cs3_encrypt, cbc_decrypt,
    cbc_decrypt_padded, cbc_encrypt, cbc_encrypt_padded, ctr_apply_keystream, ecb_decrypt,
    ecb_encrypt,
};
use regula_sm::{Error, Sm4};
use regula_sm_fuzz::{Reader, split_points};

fn xor(a: &mut [u8; 16], b: &[u8; 16]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x ^= y;
    }
}

/// ECB / CBC references, one block at a time with `encrypt_block`.
fn reference_cbc(sm4: &Sm4, iv: Option<&[u8; 16]>, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut chain = iv.copied();
    for block in data.chunks_exact(16) {
        let mut b: [u8; 16] = block.try_into().unwrap();
        if let Some(c) = &chain {
            xor(&mut b, c);
        }
        sm4.encrypt_block(&mut b);
        if chain.is_some() {
            chain = Some(b);
        }
        out.extend_from_slice(&b);
    }
    out
}

/// CTR reference: E(IV + i mod 2^128).
fn reference_ctr(sm4: &Sm4, iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut counter = u128::from_be_bytes(*iv);
    let mut out = Vec::with_capacity(data.len());
    for piece in data.chunks(16) {
        let mut keystream = counter.to_be_bytes();
        sm4.encrypt_block(&mut keystream);
        out.extend(piece.iter().zip(keystream).map(|(d, k)| d ^ k));
        counter = counter.wrapping_add(1);
    }
    out
}

fn check_ecb_cbc(fast: &Sm4, soft: &Sm4, iv: &[u8; 16], data: &[u8]) {
    let len = data.len();
    let whole = len.is_multiple_of(16);

    for (name, cbc) in [("ECB", false), ("CBC", true)] {
        let mut outputs = Vec::new();
        for sm4 in [fast, soft] {
            let mut buffer = data.to_vec();
            let result = if cbc {
                cbc_encrypt(sm4, iv, &mut buffer)
            } else {
                ecb_encrypt(sm4, &mut buffer)
            };
            if !whole {
                assert_eq!(result, Err(Error::InvalidLength { len }), "{name} encrypt");
                assert_eq!(buffer, data, "{name}: refused encrypt changed the data");
                let mut buffer = data.to_vec();
                let result = if cbc {
                    cbc_decrypt(sm4, iv, &mut buffer)
                } else {
                    ecb_decrypt(sm4, &mut buffer)
                };
                assert_eq!(result, Err(Error::InvalidLength { len }), "{name} decrypt");
                assert_eq!(buffer, data, "{name}: refused decrypt changed the data");
                continue;
            }
            assert_eq!(result, Ok(()), "{name} encrypt of {len} bytes");
            let ciphertext = buffer.clone();
            let result = if cbc {
                cbc_decrypt(sm4, iv, &mut buffer)
            } else {
                ecb_decrypt(sm4, &mut buffer)
            };
            assert_eq!(result, Ok(()), "{name} decrypt");
            assert_eq!(buffer, data, "{name}: decrypt(encrypt(x)) != x");
            // Decrypting the data as ciphertext and encrypting back also round-trips.
            let mut buffer = data.to_vec();
            if cbc {
                cbc_decrypt(sm4, iv, &mut buffer).unwrap();
                cbc_encrypt(sm4, iv, &mut buffer).unwrap();
            } else {
                ecb_decrypt(sm4, &mut buffer).unwrap();
                ecb_encrypt(sm4, &mut buffer).unwrap();
            }
            assert_eq!(buffer, data, "{name}: encrypt(decrypt(x)) != x");
            outputs.push(ciphertext);
        }
        if whole {
            assert_eq!(outputs[0], outputs[1], "{name}: backends disagree");
            let reference = reference_cbc(soft, cbc.then_some(iv), data);
            assert_eq!(
                outputs[0], reference,
                "{name}: differs from block reference"
            );
        }
    }

    // CBC with PKCS#7.
    let mut padded_outputs = Vec::new();
    for sm4 in [fast, soft] {
        let ciphertext = cbc_encrypt_padded(sm4, iv, data);
        assert_eq!(ciphertext.len(), (len / 16 + 1) * 16, "PKCS#7 length");
        let plaintext = cbc_decrypt_padded(sm4, iv, &ciphertext).expect("PKCS#7 round trip");
        assert_eq!(plaintext, data, "PKCS#7: decrypt(encrypt(x)) != x");
        // The padded ciphertext's prefix is raw CBC of the whole blocks of `data`.
        let mut raw = data[..len - len % 16].to_vec();
        cbc_encrypt(sm4, iv, &mut raw).unwrap();
        assert_eq!(
            &ciphertext[..raw.len()],
            &raw[..],
            "PKCS#7 prefix differs from CBC"
        );
        padded_outputs.push(ciphertext);

        // Arbitrary bytes as a padded ciphertext.
        match cbc_decrypt_padded(sm4, iv, data) {
            Ok(plaintext) => {
                assert!(whole && len > 0, "PKCS#7 accepted {len} bytes");
                assert!(len - plaintext.len() >= 1 && len - plaintext.len() <= 16);
                assert_eq!(
                    cbc_encrypt_padded(sm4, iv, &plaintext),
                    data,
                    "PKCS#7 re-encryption differs"
                );
            }
            Err(Error::InvalidLength { len: l }) => {
                assert_eq!(l, len);
                assert!(!whole || len == 0, "PKCS#7 refused length {len}");
            }
            Err(Error::BadPadding) => {
                assert!(whole && len > 0);
                // The last plaintext byte really is a bad pad, or the pad bytes differ.
                let mut raw = data.to_vec();
                cbc_decrypt(sm4, iv, &mut raw).unwrap();
                let pad = *raw.last().unwrap();
                let good = (1..=16).contains(&pad)
                    && raw[len - usize::from(pad)..].iter().all(|&b| b == pad);
                assert!(!good, "PKCS#7 refused good padding");
            }
            Err(other) => panic!("PKCS#7 unexpected error {other:?}"),
        }
    }
    assert_eq!(
        padded_outputs[0], padded_outputs[1],
        "PKCS#7: backends disagree"
    );
}

fn check_ctr(fast: &Sm4, soft: &Sm4, iv: &[u8; 16], data: &[u8], cuts: &[u8]) {
    let reference = reference_ctr(soft, iv, data);
    for sm4 in [fast, soft] {
        let mut buffer = data.to_vec();
        ctr_apply_keystream(sm4, iv, &mut buffer);
        assert_eq!(
            buffer, reference,
            "CTR differs from reference (IV {iv:02x?})"
        );
        ctr_apply_keystream(sm4, iv, &mut buffer);
        assert_eq!(buffer, data, "CTR: decrypt(encrypt(x)) != x");

        let mut pieces = data.to_vec();
        let mut ctr = Ctr::new(sm4, iv);
        let mut offset = 0;
        for piece in split_points(data, cuts) {
            ctr.apply_keystream(&mut pieces[offset..offset + piece.len()]);
            offset += piece.len();
        }
        assert_eq!(pieces, reference, "incremental CTR differs from one shot");
    }
}

fn check_xts(key: &[u8; 32], tweak: &[u8; 16], data: &[u8]) {
    let len = data.len();
    let mut first_blocks = Vec::new();
    for standard in [XtsStandard::Ieee1619, XtsStandard::GbT17964] {
        let fast = Xts::new(key, standard);
        let soft = Xts::with_backend(key, standard, Backend::Soft).expect("soft backend");
        if key[..16] == key[16..] {
            assert_eq!(fast.err(), Some(XtsError::EqualKeyHalves));
            assert_eq!(soft.err(), Some(XtsError::EqualKeyHalves));
            return;
        }
        let (fast, soft) = (fast.expect("XTS key"), soft.expect("XTS key"));
        let mut outputs = Vec::new();
        for xts in [&fast, &soft] {
            let mut buffer = data.to_vec();
            let result = xts.encrypt(tweak, &mut buffer);
            if len < 16 {
                assert_eq!(result, Err(XtsError::TooShort { len }));
                assert_eq!(buffer, data);
                assert_eq!(
                    xts.decrypt(tweak, &mut buffer),
                    Err(XtsError::TooShort { len })
                );
                assert_eq!(buffer, data);
                continue;
            }
            assert_eq!(result, Ok(()), "{standard:?} encrypt of {len} bytes");
            let ciphertext = buffer.clone();
            xts.decrypt(tweak, &mut buffer).expect("XTS decrypt");
            assert_eq!(buffer, data, "{standard:?}: decrypt(encrypt(x)) != x");
            // And the other way round.
            let mut buffer = data.to_vec();
            xts.decrypt(tweak, &mut buffer).expect("XTS decrypt");
            xts.encrypt(tweak, &mut buffer).expect("XTS encrypt");
            assert_eq!(buffer, data, "{standard:?}: encrypt(decrypt(x)) != x");
            outputs.push(ciphertext);
        }
        if len >= 16 {
            assert_eq!(outputs[0], outputs[1], "{standard:?}: backends disagree");
            if len >= 32 {
                // Stealing rewrites block m-1 when the length is not whole, so compare the
                // first block only when it is not the stolen-from one.
                first_blocks.push(outputs[0][..16].to_vec());
            }
        }
    }
    if first_blocks.len() == 2 {
        assert_eq!(
            first_blocks[0], first_blocks[1],
            "XTS standards differ on block 0"
        );
    }
}

fn check_cs3(fast: &Sm4, soft: &Sm4, iv: &[u8; 16], data: &[u8]) {
    let len = data.len();
    let mut outputs = Vec::new();
    for sm4 in [fast, soft] {
        let mut buffer = data.to_vec();
        let result = cbc_cs3_encrypt(sm4, iv, &mut buffer);
        if len < 16 {
            assert_eq!(result, Err(Cs3Error::TooShort { len }));
            assert_eq!(buffer, data);
            assert_eq!(
                cbc_cs3_decrypt(sm4, iv, &mut buffer),
                Err(Cs3Error::TooShort { len })
            );
            assert_eq!(buffer, data);
            continue;
        }
        assert_eq!(result, Ok(()), "CS3 encrypt of {len} bytes");
        let ciphertext = buffer.clone();
        cbc_cs3_decrypt(sm4, iv, &mut buffer).expect("CS3 decrypt");
        assert_eq!(buffer, data, "CS3: decrypt(encrypt(x)) != x");
        let mut buffer = data.to_vec();
        cbc_cs3_decrypt(sm4, iv, &mut buffer).expect("CS3 decrypt");
        cbc_cs3_encrypt(sm4, iv, &mut buffer).expect("CS3 encrypt");
        assert_eq!(buffer, data, "CS3: encrypt(decrypt(x)) != x");
        outputs.push(ciphertext);
    }
    if len < 16 {
        return;
    }
    assert_eq!(outputs[0], outputs[1], "CS3: backends disagree");
    if len.is_multiple_of(16) {
        let mut cbc = reference_cbc(soft, Some(iv), data);
        if len >= 32 {
            // CS3 always swaps the last two blocks.
            let (head, last) = cbc.split_at_mut(len - 16);
            head[len - 32..].swap_with_slice(last);
        }
        assert_eq!(
            outputs[0], cbc,
            "CS3 of whole blocks is not CBC with the last two swapped"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Reader::new(data);
    let key: [u8; 32] = input.array();
    let mut iv: [u8; 16] = input.array();
    let flags = input.byte();
    let cut_count = usize::from(input.byte() % 8);
    let cuts = input.bytes(cut_count);
    let data = input.rest();

    // Bias the counter towards the 2^128 and 2^64 wrap-arounds now and then.
    match flags & 3 {
        1 => iv[..15].fill(0xff),
        2 => iv[8..15].fill(0xff),
        _ => {}
    }
    // Equal XTS key halves now and then.
    let mut xts_key = key;
    if flags & 4 != 0 {
        xts_key.copy_within(..16, 16);
    }

    let sm4_key: [u8; 16] = key[..16].try_into().unwrap();
    let fast = Sm4::new(&sm4_key);
    let soft = Sm4::with_backend(&sm4_key, Backend::Soft).expect("soft backend");

    // Block cipher itself: decrypt(encrypt(b)) == b, both backends agree on many blocks.
    let mut blocks: Vec<[u8; 16]> = data
        .chunks_exact(16)
        .map(|b| b.try_into().unwrap())
        .collect();
    let original = blocks.clone();
    let mut soft_blocks = blocks.clone();
    fast.encrypt_blocks(&mut blocks);
    soft.encrypt_blocks(&mut soft_blocks);
    assert_eq!(blocks, soft_blocks, "encrypt_blocks: backends disagree");
    fast.decrypt_blocks(&mut blocks);
    assert_eq!(blocks, original, "decrypt_blocks(encrypt_blocks(x)) != x");

    check_ecb_cbc(&fast, &soft, &iv, data);
    check_ctr(&fast, &soft, &iv, data, cuts);
    check_xts(&xts_key, &iv, data);
    check_cs3(&fast, &soft, &iv, data);
});
