//! SM2 known-answer tests and negative tests.
//!
//! Provenance of the vectors (all on the recommended curve curveSM2):
//! - Signature: GB/T 32918.5-2017 Annex A (= GM/T 0003.5 recommended-curve example), as also
//!   used by OpenSSL's `test/sm2_internal_test.c`: d, k, "message digest", default ID, Z_A, e,
//!   r, s.
//! - Encryption: GB/T 32918.5-2017 Annex C with the same d and k, "encryption standard"; the
//!   ASN.1 (GM/T 0009) serialisation as written in OpenSSL's `test/sm2_internal_test.c`.
//! - Key exchange and ECDH: GM/T 0003.5-2012 Annex B keys and ephemerals (that annex uses a test
//!   curve, so its outputs do not apply), with the results on curveSM2 computed by the
//!   independent pure-Python implementation `gmalg` 1.1.2 (PyPI): `SM2.begin_key_exchange` /
//!   `end_key_exchange` and its `ecdlp.ec.mul`.

use hex_literal::hex;
use regula_sm::sm2::encryption::encrypt_with_fixed_k_for_self_test;
use regula_sm::sm2::exchange::{KeyExchange, KeyExchangeRole};
use regula_sm::sm2::signature::{message_digest, sign_with_fixed_k_for_self_test};
use regula_sm::sm2::{
    self, CiphertextFormat, DEFAULT_ID, Error, MAX_ID_LEN, PrivateKey, PublicKey, Signature,
};

fn random(out: &mut [u8]) -> Result<(), Error> {
    rand::fill(out);
    Ok(())
}

const D: [u8; 32] = hex!("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
const PUBLIC: [u8; 65] = hex!(
    "04"
    "09F9DF311E5421A150DD7D161E4BC5C672179FAD1833FC076BB08FF356F35020"
    "CCEA490CE26775A52DC6EA718CC1AA600AED05FBF35E084A6632F6072DA9AD13"
);
const K: [u8; 32] = hex!("59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21");
const Z_A: [u8; 32] = hex!("B2E14C5C79C6DF5B85F4FE7ED8DB7A262B9DA7E07CCB0EA9F4747B8CCDA8A4F3");
const E: [u8; 32] = hex!("F0B43E94BA45ACCAACE692ED534382EB17E6AB5A19CE7B31F4486FDFC0D28640");
const R: [u8; 32] = hex!("F5A03B0648D2C4630EEAC513E1BB81A15944DA3827D5B74143AC7EACEEE720B3");
const S: [u8; 32] = hex!("B1B6AA29DF212FD8763182BC0D421CA1BB9038FD1F7F42D4840B69C485BBC1AA");

const PLAINTEXT: &[u8] = b"encryption standard";
const C1: [u8; 65] = hex!(
    "04"
    "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
);
const C3: [u8; 32] = hex!("59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766");
const C2: [u8; 19] = hex!("21886CA989CA9C7D58087307CA93092D651EFA");
const CIPHERTEXT_ASN1: [u8; 126] = hex!(
    "307C"
    "0220" "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "0221" "00" "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "0420" "59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "0413" "21886CA989CA9C7D58087307CA93092D651EFA"
);

const N: [u8; 32] = hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");

fn example_key() -> PrivateKey {
    PrivateKey::from_bytes(&D).unwrap()
}

#[test]
fn public_key_z_and_digest_match_the_standard() {
    let key = example_key();
    assert_eq!(key.public_key().to_uncompressed(), PUBLIC);
    assert_eq!(key.recompute_public_key(), PUBLIC);
    assert_eq!(key.public_key().z(DEFAULT_ID).unwrap(), Z_A);
    assert_eq!(
        message_digest(key.public_key(), DEFAULT_ID, b"message digest").unwrap(),
        E
    );
}

#[test]
fn signature_with_fixed_k_matches_the_standard() {
    let key = example_key();
    let signature =
        sign_with_fixed_k_for_self_test(&key, DEFAULT_ID, b"message digest", &K).unwrap();
    assert_eq!(signature.r(), &R);
    assert_eq!(signature.s(), &S);
    let public = PublicKey::from_sec1(&PUBLIC).unwrap();
    sm2::verify(&public, DEFAULT_ID, b"message digest", &signature).unwrap();
    let parsed = Signature::from_bytes(&[R, S].concat()).unwrap();
    assert_eq!(parsed, signature);
    assert_eq!(Signature::from_der(&signature.to_der()), Ok(signature));
}

#[test]
fn signature_binds_message_id_and_key() {
    let key = example_key();
    let public = *key.public_key();
    let signature = sm2::sign(&key, DEFAULT_ID, b"message", &mut random).unwrap();
    sm2::verify(&public, DEFAULT_ID, b"message", &signature).unwrap();
    assert_eq!(
        sm2::verify(&public, DEFAULT_ID, b"messagE", &signature),
        Err(Error::BadSignature)
    );
    assert_eq!(
        sm2::verify(&public, b"1234567812345679", b"message", &signature),
        Err(Error::BadSignature)
    );
    let other = PrivateKey::generate(&mut random).unwrap();
    assert_eq!(
        sm2::verify(other.public_key(), DEFAULT_ID, b"message", &signature),
        Err(Error::BadSignature)
    );
    // An empty ID and an empty message are legal.
    let signature = sm2::sign(&key, b"", b"", &mut random).unwrap();
    sm2::verify(&public, b"", b"", &signature).unwrap();
}

#[test]
fn every_flipped_signature_bit_fails() {
    let key = example_key();
    let public = *key.public_key();
    let signature = sm2::sign(&key, DEFAULT_ID, b"flip", &mut random).unwrap();
    let raw = signature.to_bytes();
    for bit in 0..raw.len() * 8 {
        let mut flipped = raw;
        flipped[bit / 8] ^= 1 << (bit % 8);
        let verdict = Signature::from_bytes(&flipped)
            .and_then(|parsed| sm2::verify(&public, DEFAULT_ID, b"flip", &parsed));
        assert_eq!(verdict, Err(Error::BadSignature), "raw bit {bit}");
    }
    let der = signature.to_der();
    for bit in 0..der.len() * 8 {
        let mut flipped = der.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        let verdict = Signature::from_der(&flipped)
            .and_then(|parsed| sm2::verify(&public, DEFAULT_ID, b"flip", &parsed));
        assert_eq!(verdict, Err(Error::BadSignature), "DER bit {bit}");
    }
}

#[test]
fn user_id_length_is_limited_by_entl() {
    let key = example_key();
    let longest = vec![b'a'; MAX_ID_LEN];
    let signature = sm2::sign(&key, &longest, b"m", &mut random).unwrap();
    sm2::verify(key.public_key(), &longest, b"m", &signature).unwrap();
    let too_long = vec![b'a'; MAX_ID_LEN + 1];
    assert_eq!(
        sm2::sign(&key, &too_long, b"m", &mut random),
        Err(Error::IdTooLong)
    );
    assert_eq!(
        sm2::verify(key.public_key(), &too_long, b"m", &signature),
        Err(Error::IdTooLong)
    );
    assert_eq!(key.public_key().z(&too_long), Err(Error::IdTooLong));
}

#[test]
fn private_keys_outside_one_to_n_minus_two_are_refused() {
    let mut n_minus_1 = N;
    n_minus_1[31] -= 1;
    let mut n_minus_2 = N;
    n_minus_2[31] -= 2;
    for bad in [[0u8; 32], n_minus_1, N, [0xff; 32]] {
        assert_eq!(
            PrivateKey::from_bytes(&bad).unwrap_err(),
            Error::InvalidPrivateKey
        );
    }
    assert_eq!(
        PrivateKey::from_bytes(&D[..31]).unwrap_err(),
        Error::InvalidPrivateKey
    );
    let mut one = [0u8; 32];
    one[31] = 1;
    for good in [one, n_minus_2] {
        let key = PrivateKey::from_bytes(&good).unwrap();
        assert_eq!(*key.to_bytes(), good);
    }
}

#[test]
fn generated_keys_differ_and_debug_hides_the_scalar() {
    let first = PrivateKey::generate(&mut random).unwrap();
    let second = PrivateKey::generate(&mut random).unwrap();
    assert_ne!(first, second);
    let debug = format!("{first:?}");
    let secret = hex::encode(*first.to_bytes());
    assert!(!debug.to_lowercase().contains(&secret), "{debug}");
    assert!(debug.contains(&hex::encode(first.public_key().to_uncompressed())));
}

#[test]
fn a_failing_random_source_is_reported() {
    let mut broken = |_: &mut [u8]| Err(Error::Random);
    assert_eq!(
        PrivateKey::generate(&mut broken).unwrap_err(),
        Error::Random
    );
    assert_eq!(
        sm2::sign(&example_key(), DEFAULT_ID, b"m", &mut broken),
        Err(Error::Random)
    );
}

#[test]
fn invalid_public_keys_are_refused() {
    let mut off_curve = PUBLIC;
    off_curve[64] ^= 1;
    let mut x_too_big = PUBLIC;
    x_too_big[1..33].fill(0xff);
    for bad in [
        &[0u8][..],
        &[][..],
        &off_curve[..],
        &x_too_big[..],
        &PUBLIC[..64],
        &[PUBLIC.as_slice(), &[0]].concat()[..],
    ] {
        assert_eq!(
            PublicKey::from_sec1(bad).unwrap_err(),
            Error::InvalidPublicKey,
            "{}",
            hex::encode(bad)
        );
    }
    // Compressed form of the same point is accepted.
    let mut compressed = [0u8; 33];
    compressed[0] = 0x02 | (PUBLIC[64] & 1);
    compressed[1..].copy_from_slice(&PUBLIC[1..33]);
    assert_eq!(
        PublicKey::from_sec1(&compressed).unwrap().to_uncompressed(),
        PUBLIC
    );
}

#[test]
fn encryption_with_fixed_k_matches_the_standard() {
    let key = example_key();
    let c1c3c2 = encrypt_with_fixed_k_for_self_test(
        key.public_key(),
        PLAINTEXT,
        CiphertextFormat::C1C3C2,
        &K,
    )
    .unwrap();
    assert_eq!(c1c3c2, [&C1[..], &C3, &C2].concat());
    let c1c2c3 = encrypt_with_fixed_k_for_self_test(
        key.public_key(),
        PLAINTEXT,
        CiphertextFormat::C1C2C3,
        &K,
    )
    .unwrap();
    assert_eq!(c1c2c3, [&C1[..], &C2, &C3].concat());
    let asn1 =
        encrypt_with_fixed_k_for_self_test(key.public_key(), PLAINTEXT, CiphertextFormat::Asn1, &K)
            .unwrap();
    assert_eq!(asn1, CIPHERTEXT_ASN1);
    for (ciphertext, format) in [
        (&c1c3c2, CiphertextFormat::C1C3C2),
        (&c1c2c3, CiphertextFormat::C1C2C3),
        (&asn1, CiphertextFormat::Asn1),
    ] {
        assert_eq!(sm2::decrypt(&key, ciphertext, format).unwrap(), PLAINTEXT);
    }
}

#[test]
fn encryption_round_trips_at_many_lengths() {
    let key = PrivateKey::generate(&mut random).unwrap();
    for len in [1, 2, 31, 32, 33, 64, 100, 1000, 8193] {
        let message: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
        for format in [
            CiphertextFormat::C1C3C2,
            CiphertextFormat::C1C2C3,
            CiphertextFormat::Asn1,
        ] {
            let ciphertext = sm2::encrypt(key.public_key(), &message, format, &mut random).unwrap();
            assert_eq!(sm2::decrypt(&key, &ciphertext, format).unwrap(), message);
        }
    }
    assert_eq!(
        sm2::encrypt(key.public_key(), b"", CiphertextFormat::C1C3C2, &mut random),
        Err(Error::EmptyMessage)
    );
}

#[test]
fn every_flipped_ciphertext_bit_fails() {
    let key = example_key();
    for format in [CiphertextFormat::C1C3C2, CiphertextFormat::Asn1] {
        let ciphertext =
            encrypt_with_fixed_k_for_self_test(key.public_key(), PLAINTEXT, format, &K).unwrap();
        for bit in 0..ciphertext.len() * 8 {
            let mut flipped = ciphertext.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                sm2::decrypt(&key, &flipped, format),
                Err(Error::DecryptionFailed),
                "{format:?} bit {bit}"
            );
        }
        // Truncated and extended ciphertexts.
        assert!(sm2::decrypt(&key, &ciphertext[..ciphertext.len() - 1], format).is_err());
        assert!(sm2::decrypt(&key, &[ciphertext.as_slice(), &[0]].concat(), format).is_err());
    }
}

#[test]
fn decryption_with_another_key_fails() {
    let ciphertext = encrypt_with_fixed_k_for_self_test(
        &PublicKey::from_sec1(&PUBLIC).unwrap(),
        PLAINTEXT,
        CiphertextFormat::C1C3C2,
        &K,
    )
    .unwrap();
    let other = PrivateKey::generate(&mut random).unwrap();
    assert_eq!(
        sm2::decrypt(&other, &ciphertext, CiphertextFormat::C1C3C2),
        Err(Error::DecryptionFailed)
    );
}

// Key exchange (see the header for provenance).
const KX_D_A: [u8; 32] = hex!("6FCBA2EF9AE0AB902BC3BDE3FF915D44BA4CC78F88E2F8E7F8996D3B8CCEEDEE");
const KX_D_B: [u8; 32] = hex!("5E35D7D3F3C54DBAC72E61819E730B019A84208CA3A35E4C2E353DFCCB2A3B53");
const KX_R_A: [u8; 32] = hex!("83A2C9C8B96E5AF70BD480B472409A9A327257F1EBB73F5B073354B248668563");
const KX_R_B: [u8; 32] = hex!("33FE21940342161C55619C4A0C060293D543C80AF19748CE176D83477DE71C80");
const KX_ID_A: &[u8] = b"ALICE123@YAHOO.COM";
const KX_ID_B: &[u8] = b"BILL456@YAHOO.COM";
const KX_P_B: [u8; 65] = hex!(
    "049eafb2cef3c95526c686a6c961a247a1aee7fc2e802454227a012b083ac553f5"
    "e30eb411162cd81274bdaff97896f264171cad0743dfa5ad39dfe0d924b167f9"
);
const KX_EPHEMERAL_B: [u8; 65] = hex!(
    "0426891afec73a32fa5bf2cbe91acded37cac48621d85d5965a5044a84dbda5988"
    "c2f8f5ddd6190244d5aa85feb8e9cbc583c75401e37d8811d47a800f0d96796f"
);
const KX_KEY_48: [u8; 48] = hex!(
    "f02f9068ad13e14f2b2602e0dfb2504ff5fabef8555364b7374436e8566d02aa"
    "5704021bc20a93dbefc42d1978da9b68"
);

fn example_exchange(key_len: usize) -> (regula_sm::sm2::SharedKey, regula_sm::sm2::SharedKey) {
    let a = PrivateKey::from_bytes(&KX_D_A).unwrap();
    let b = PrivateKey::from_bytes(&KX_D_B).unwrap();
    assert_eq!(b.public_key().to_uncompressed(), KX_P_B);
    let initiator = KeyExchange::with_fixed_ephemeral_for_self_test(
        KeyExchangeRole::Initiator,
        &a,
        KX_ID_A,
        b.public_key(),
        KX_ID_B,
        &KX_R_A,
    )
    .unwrap();
    let responder = KeyExchange::with_fixed_ephemeral_for_self_test(
        KeyExchangeRole::Responder,
        &b,
        KX_ID_B,
        a.public_key(),
        KX_ID_A,
        &KX_R_B,
    )
    .unwrap();
    assert_eq!(responder.ephemeral_public_key(), KX_EPHEMERAL_B);
    let r_a = initiator.ephemeral_public_key();
    let r_b = responder.ephemeral_public_key();
    (
        initiator.finish(&r_b, key_len).unwrap(),
        responder.finish(&r_a, key_len).unwrap(),
    )
}

#[test]
fn key_exchange_matches_an_independent_implementation() {
    for len in [16, 48] {
        let (initiator, responder) = example_exchange(len);
        assert_eq!(initiator.key(), &KX_KEY_48[..len]);
        assert_eq!(responder.key(), &KX_KEY_48[..len]);
        // S_B checked by A, S_A checked by B; the two hashes differ.
        initiator
            .verify_peer_confirmation(responder.confirmation())
            .unwrap();
        responder
            .verify_peer_confirmation(initiator.confirmation())
            .unwrap();
        assert_ne!(initiator.confirmation(), responder.confirmation());
        let mut wrong = *responder.confirmation();
        wrong[0] ^= 1;
        assert_eq!(
            initiator.verify_peer_confirmation(&wrong),
            Err(Error::ConfirmationFailed)
        );
        assert_eq!(
            initiator.verify_peer_confirmation(initiator.confirmation()),
            Err(Error::ConfirmationFailed)
        );
    }
}

#[test]
fn key_exchange_with_ephemeral_keys_made_beforehand_matches_the_independent_answer() {
    let a = PrivateKey::from_bytes(&KX_D_A).unwrap();
    let b = PrivateKey::from_bytes(&KX_D_B).unwrap();
    let (r_a, r_b) = (
        PrivateKey::from_bytes(&KX_R_A).unwrap(),
        PrivateKey::from_bytes(&KX_R_B).unwrap(),
    );
    let initiator = KeyExchange::with_ephemeral_key(
        KeyExchangeRole::Initiator,
        &a,
        KX_ID_A,
        b.public_key(),
        KX_ID_B,
        &r_a,
    )
    .unwrap();
    let responder = KeyExchange::with_ephemeral_key(
        KeyExchangeRole::Responder,
        &b,
        KX_ID_B,
        a.public_key(),
        KX_ID_A,
        &r_b,
    )
    .unwrap();
    // R is the ephemeral key pair's own public key.
    assert_eq!(
        initiator.ephemeral_public_key(),
        r_a.public_key().to_uncompressed()
    );
    assert_eq!(responder.ephemeral_public_key(), KX_EPHEMERAL_B);
    let r_a_point = initiator.ephemeral_public_key();
    let k_a = initiator.finish(&KX_EPHEMERAL_B, 16).unwrap();
    let k_b = responder.finish(&r_a_point, 16).unwrap();
    assert_eq!(k_a.key(), &KX_KEY_48[..16]);
    assert_eq!(k_b.key(), &KX_KEY_48[..16]);
    // S_A and S_B (GB/T 32918.3 §6.1 A9, B8) from gmalg 1.1.2's point arithmetic, Z and SM3,
    // the formula written out in Python (its KDF gives the key above from the same point).
    let s_a = hex!("daefca6c32f53c48444d4ef35f98471e5d1cd1e3b5b8e3322dede310306689f6");
    let s_b = hex!("b93374ade30a74e12ddb40e4c03d0c6fcf61badbf2c2c5cc39a91201d9228e2e");
    assert_eq!(k_a.confirmation(), &s_a);
    assert_eq!(k_a.expected_peer_confirmation(), &s_b);
    assert_eq!(k_b.confirmation(), &s_b);
    assert_eq!(k_b.expected_peer_confirmation(), &s_a);
}

#[test]
fn key_exchange_with_random_ephemerals_agrees_and_refuses_bad_points() {
    let a = PrivateKey::generate(&mut random).unwrap();
    let b = PrivateKey::generate(&mut random).unwrap();
    let start = |role, own: &PrivateKey, peer: &PrivateKey| {
        KeyExchange::new(
            role,
            own,
            DEFAULT_ID,
            peer.public_key(),
            DEFAULT_ID,
            &mut random,
        )
        .unwrap()
    };
    let initiator = start(KeyExchangeRole::Initiator, &a, &b);
    let responder = start(KeyExchangeRole::Responder, &b, &a);
    let (r_a, r_b) = (
        initiator.ephemeral_public_key(),
        responder.ephemeral_public_key(),
    );
    let k_a = initiator.finish(&r_b, 32).unwrap();
    let k_b = responder.finish(&r_a, 32).unwrap();
    assert_eq!(k_a.key(), k_b.key());
    let mut off_curve = r_a;
    off_curve[64] ^= 1;
    let fresh = start(KeyExchangeRole::Responder, &b, &a);
    assert_eq!(
        fresh.finish(&off_curve, 32).unwrap_err(),
        Error::InvalidPublicKey
    );
    let fresh = start(KeyExchangeRole::Responder, &b, &a);
    assert_eq!(fresh.finish(&[0], 32).unwrap_err(), Error::InvalidPublicKey);
    let fresh = start(KeyExchangeRole::Responder, &b, &a);
    assert_eq!(fresh.finish(&r_a, 0).unwrap_err(), Error::InvalidLength);
    // Mismatched IDs give different keys.
    let initiator = start(KeyExchangeRole::Initiator, &a, &b);
    let responder = KeyExchange::new(
        KeyExchangeRole::Responder,
        &b,
        b"other",
        a.public_key(),
        DEFAULT_ID,
        &mut random,
    )
    .unwrap();
    let (r_a, r_b) = (
        initiator.ephemeral_public_key(),
        responder.ephemeral_public_key(),
    );
    assert_ne!(
        initiator.finish(&r_b, 32).unwrap().key(),
        responder.finish(&r_a, 32).unwrap().key()
    );
}

#[test]
fn ecdh_matches_an_independent_implementation_and_is_symmetric() {
    // x([d] P_B) with d from the signature example and P_B from the key-exchange set.
    let expected = hex!("b59c6a4b5cf708257e56d3b8d3b2aaca08b56c2bbe77df34b84d2b07501bd93d");
    let a = example_key();
    let b = PrivateKey::from_bytes(&KX_D_B).unwrap();
    assert_eq!(*sm2::ecdh(&a, b.public_key()).unwrap(), expected);
    assert_eq!(*sm2::ecdh(&b, a.public_key()).unwrap(), expected);
    let c = PrivateKey::generate(&mut random).unwrap();
    assert_eq!(
        *sm2::ecdh(&c, a.public_key()).unwrap(),
        *sm2::ecdh(&a, c.public_key()).unwrap()
    );
}

#[test]
fn kdf_matches_an_independent_implementation() {
    // `sm3.sm3_kdf` of PyPI gmssl 3.2.2 over these 32 bytes, 70 bytes out (three SM3 blocks,
    // the last truncated).
    let z = hex!("04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73");
    let expected = hex!(
        "9d1825ce422dca217f28b5c4162a679c33c7eee58551ad6249015fb455f1baa8"
        "94e33f32953c573a6575121ae6fd77dbd46e47d437d066ae46199824650f49a5"
        "250a4c0d4713"
    );
    let mut out = [0u8; 70];
    sm2::kdf(&z, &mut out).unwrap();
    assert_eq!(out, expected);
}

#[test]
fn keys_round_trip_through_pkcs8_and_spki() {
    let key = example_key();
    let der = key.to_pkcs8_der().unwrap();
    assert_eq!(PrivateKey::from_pkcs8_der(&der).unwrap(), key);
    let pem = key.to_pkcs8_pem().unwrap();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----\n"));
    assert_eq!(PrivateKey::from_pkcs8_pem(&pem).unwrap(), key);
    let spki = key.public_key().to_spki_der().unwrap();
    // SEQUENCE { SEQUENCE { id-ecPublicKey, 1.2.156.10197.1.301 }, BIT STRING 04 ‖ x ‖ y }
    assert_eq!(
        spki[..27],
        hex!("3059301306072a8648ce3d020106082a811ccf5501822d03420004")
    );
    assert_eq!(&PublicKey::from_spki_der(&spki).unwrap(), key.public_key());
    let spki_pem = key.public_key().to_spki_pem().unwrap();
    assert_eq!(
        &PublicKey::from_spki_pem(&spki_pem).unwrap(),
        key.public_key()
    );
    assert_eq!(
        &PublicKey::from_sec1_or_spki_der(&spki).unwrap(),
        key.public_key()
    );
    assert_eq!(
        &PublicKey::from_sec1_or_spki_der(&PUBLIC).unwrap(),
        key.public_key()
    );
    // A P-256 SPKI is refused.
    let mut p256 = spki.clone();
    p256[17..27].copy_from_slice(&hex!("06082a8648ce3d030107"));
    assert_eq!(PublicKey::from_spki_der(&p256), Err(Error::Encoding));
    assert_eq!(
        PrivateKey::from_pkcs8_der(&der[..der.len() - 1]),
        Err(Error::Encoding)
    );
}

/// The evp_test hooks: a 32-byte digest verifies through the any-length path exactly as through
/// `verify_digest`; a digest with n added (e mod n unchanged) still verifies, another does
/// not; a signature over a given digest verifies over it and no other.
#[test]
fn interop_hooks_for_evp_test_stanzas() {
    use regula_sm::sm2::signature::{
        sign_digest_for_interop_test, verify_prehash_for_interop_test,
    };
    // The order n of curveSM2 (GB/T 32918.5).
    const N: [u8; 32] = hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
    let key = PrivateKey::generate(&mut random).unwrap();
    let digest: [u8; 32] = rand::random();
    let signature = sign_digest_for_interop_test(&key, &digest, &mut random).unwrap();
    let public = key.public_key();
    assert_eq!(
        regula_sm::sm2::verify_digest(public, &digest, &signature),
        Ok(())
    );
    assert_eq!(
        verify_prehash_for_interop_test(public, &digest, &signature),
        Ok(())
    );
    // e + n as a 33-byte integer, and with 32 zero bytes in front (a 64-byte digest).
    let mut sum = [0u8; 33];
    let mut carry = 0u16;
    for i in (0..32).rev() {
        let total = u16::from(digest[i]) + u16::from(N[i]) + carry;
        sum[i + 1] = total as u8;
        carry = total >> 8;
    }
    sum[0] = carry as u8;
    assert_eq!(
        verify_prehash_for_interop_test(public, &sum, &signature),
        Ok(())
    );
    let mut wide = [0u8; 64];
    wide[32..].copy_from_slice(&digest);
    assert_eq!(
        verify_prehash_for_interop_test(public, &wide, &signature),
        Ok(())
    );
    wide[0] = 1;
    assert!(verify_prehash_for_interop_test(public, &wide, &signature).is_err());
    let mut other = digest;
    other[31] ^= 1;
    assert!(regula_sm::sm2::verify_digest(public, &other, &signature).is_err());
}
