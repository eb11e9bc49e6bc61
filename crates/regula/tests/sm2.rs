//! SM2 through the module's services: the calls a TLS 1.3 stack with RFC 8998 needs (key
//! generation and PKCS#8 import, signatures with the TLS ID, verification from SPKI or a raw
//! point, ephemeral ECDH on curveSM2), encryption, the key exchange, and the policy's verdicts.

use regula::{
    Algorithm, CiphertextFormat, Error, ErrorKind, KeyExchangeRole, Module, ModuleState, Policy,
    Profile,
};

const TLS13_ID: &[u8] = b"TLSv1.3+GM+Cipher+Suite";

fn gm() -> Module {
    let module = Module::load(Policy::builtin(Profile::Gm));
    assert_eq!(module.state(), ModuleState::Operational);
    module
}

#[test]
fn signatures_with_an_id_round_trip_through_pkcs8_and_both_key_forms() {
    let module = gm();
    let generated = module
        .generate_signing_key(Algorithm::Sm2Sign, None)
        .unwrap();
    assert!(generated.is_approved());
    let pkcs8 = generated.to_pkcs8_der().unwrap();
    let key = module
        .signing_key_from_pkcs8(Algorithm::Sm2Sign, &pkcs8)
        .unwrap()
        .into_value();
    let spki = key.public_key_der().unwrap();
    // The uncompressed point is the SPKI's last 65 bytes.
    let point = &spki[spki.len() - 65..];
    assert_eq!(point[0], 0x04);

    let signature = key.sign_with_id(b"transcript hash", TLS13_ID).unwrap();
    assert!(signature.is_approved());
    for public_key in [&spki[..], point] {
        let verified = module
            .verify_with_id(
                Algorithm::Sm2Sign,
                public_key,
                b"transcript hash",
                &signature,
                TLS13_ID,
            )
            .unwrap();
        assert!(verified.is_approved());
        // The default ID is a different signer.
        assert!(matches!(
            module.verify(
                Algorithm::Sm2Sign,
                public_key,
                b"transcript hash",
                &signature
            ),
            Err(Error::BadSignature)
        ));
    }
    // sign/verify without an ID use the default one.
    let signature = key.sign(b"m").unwrap();
    module
        .verify(Algorithm::Sm2Sign, &spki, b"m", &signature)
        .unwrap();
    module
        .verify_with_id(
            Algorithm::Sm2Sign,
            &spki,
            b"m",
            &signature,
            b"1234567812345678",
        )
        .unwrap();
    let mut corrupted = signature.into_value();
    let last = corrupted.len() - 1;
    corrupted[last] ^= 1;
    assert!(matches!(
        module.verify(Algorithm::Sm2Sign, &spki, b"m", &corrupted),
        Err(Error::BadSignature)
    ));
}

#[test]
fn ids_apply_to_sm2_only_and_are_limited() {
    let module = gm();
    let key = module
        .generate_signing_key(Algorithm::Sm2Sign, None)
        .unwrap();
    let error = key.sign_with_id(b"m", &vec![b'x'; 8192]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input);
    let default = Module::load(Policy::builtin(Profile::Default));
    let ecdsa = default
        .generate_signing_key(Algorithm::EcdsaP256, None)
        .unwrap();
    assert_eq!(
        ecdsa.sign_with_id(b"m", TLS13_ID).unwrap_err().kind(),
        ErrorKind::Input
    );
    assert_eq!(
        default
            .verify_with_id(Algorithm::EcdsaP256, &[4; 65], b"m", &[0; 70], TLS13_ID)
            .unwrap_err()
            .kind(),
        ErrorKind::Input
    );
    assert!(matches!(
        module.generate_signing_key(Algorithm::Sm2Sign, Some(2048)),
        Err(Error::InvalidInput { .. })
    ));
}

#[test]
fn ephemeral_ecdh_on_curve_sm2_agrees_and_refuses_bad_points() {
    let module = gm();
    let client = module.generate_agreement_key(Algorithm::Sm2Ecdh).unwrap();
    let server = module.generate_agreement_key(Algorithm::Sm2Ecdh).unwrap();
    let client_share = client.public_key().unwrap();
    let server_share = server.public_key().unwrap();
    assert_eq!(client_share.len(), 65);
    assert_eq!(client_share[0], 0x04);
    let a = client.agree(&server_share).unwrap();
    let b = server.agree(&client_share).unwrap();
    assert!(a.is_approved());
    assert_eq!(a.len(), 32);
    assert_eq!(a.as_slice(), b.as_slice());
    let mut off_curve = server_share.clone();
    off_curve[64] ^= 1;
    for bad in [&off_curve[..], &[0u8][..], &server_share[..64], &[][..]] {
        assert_eq!(client.agree(bad).unwrap_err().kind(), ErrorKind::Input);
    }
    // A key imported from its scalar; n - 1 is refused.
    let n_minus_1 =
        hex_literal::hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54122");
    assert!(
        module
            .agreement_key_from_private_bytes(Algorithm::Sm2Ecdh, &n_minus_1)
            .is_err()
    );
    let mut scalar = [0x11u8; 32];
    scalar[0] = 0x01;
    let imported = module
        .agreement_key_from_private_bytes(Algorithm::Sm2Ecdh, &scalar)
        .unwrap();
    assert_eq!(
        imported.agree(&server_share).unwrap().as_slice(),
        server
            .agree(&imported.public_key().unwrap())
            .unwrap()
            .as_slice()
    );
}

#[test]
fn encryption_round_trips_in_both_formats_and_fails_closed() {
    let module = gm();
    let key = module
        .generate_decryption_key(Algorithm::Sm2Encrypt)
        .unwrap()
        .into_value();
    let pkcs8 = key.to_pkcs8_der().unwrap();
    let key = module
        .decryption_key_from_pkcs8(Algorithm::Sm2Encrypt, &pkcs8)
        .unwrap()
        .into_value();
    let spki = key.public_key_der().unwrap();
    for format in [CiphertextFormat::Asn1, CiphertextFormat::C1C3C2] {
        let ciphertext = module
            .encrypt_to_public_key(Algorithm::Sm2Encrypt, &spki, b"secret", format)
            .unwrap();
        assert!(ciphertext.is_approved());
        assert_eq!(
            key.decrypt(&ciphertext, format).unwrap().as_slice(),
            b"secret"
        );
        let mut corrupted = ciphertext.into_value();
        let last = corrupted.len() - 1;
        corrupted[last] ^= 0x80;
        assert!(matches!(
            key.decrypt(&corrupted, format),
            Err(Error::AuthenticationFailed)
        ));
    }
    assert_eq!(
        module
            .encrypt_to_public_key(Algorithm::Sm2Encrypt, &spki, b"", CiphertextFormat::Asn1)
            .unwrap_err()
            .kind(),
        ErrorKind::Input
    );
}

#[test]
fn key_exchange_agrees_confirms_and_refuses_bad_points() {
    let module = gm();
    let a = module
        .generate_signing_key(Algorithm::Sm2Sign, None)
        .unwrap()
        .into_value();
    let b = module
        .generate_signing_key(Algorithm::Sm2Sign, None)
        .unwrap()
        .into_value();
    let start = |role,
                 own: &regula::SigningKey,
                 own_id: &[u8],
                 peer: &regula::SigningKey,
                 peer_id: &[u8]| {
        module
            .start_sm2_key_exchange(
                Algorithm::Sm2KeyExchange,
                role,
                &own.to_pkcs8_der().unwrap(),
                own_id,
                &peer.public_key_der().unwrap(),
                peer_id,
            )
            .unwrap()
    };
    let initiator = start(KeyExchangeRole::Initiator, &a, b"a", &b, b"b");
    let responder = start(KeyExchangeRole::Responder, &b, b"b", &a, b"a");
    let r_a = initiator.ephemeral_public_key().unwrap();
    let r_b = responder.ephemeral_public_key().unwrap();
    let k_a = initiator.finish(&r_b, 48).unwrap();
    let k_b = responder.finish(&r_a, 48).unwrap();
    assert!(k_a.is_approved());
    assert_eq!(k_a.key().len(), 48);
    assert_eq!(*k_a.key(), *k_b.key());
    k_a.verify_peer_confirmation(&k_b.confirmation()).unwrap();
    k_b.verify_peer_confirmation(&k_a.confirmation()).unwrap();
    assert!(matches!(
        k_a.verify_peer_confirmation(&k_a.confirmation()),
        Err(Error::AuthenticationFailed)
    ));
    let fresh = start(KeyExchangeRole::Responder, &b, b"b", &a, b"a");
    let mut off_curve = r_a.clone();
    off_curve[64] ^= 1;
    assert_eq!(
        fresh.finish(&off_curve, 16).unwrap_err().kind(),
        ErrorKind::Input
    );
}

/// GM/T 0003.5-2012 Annex B's key-exchange inputs on the recommended curve; the 16-byte key
/// from the independent pure-Python implementation gmalg 1.1.2 (PyPI), as regula-sm's tests.
const KX_D_A: [u8; 32] =
    hex_literal::hex!("6FCBA2EF9AE0AB902BC3BDE3FF915D44BA4CC78F88E2F8E7F8996D3B8CCEEDEE");
const KX_D_B: [u8; 32] =
    hex_literal::hex!("5E35D7D3F3C54DBAC72E61819E730B019A84208CA3A35E4C2E353DFCCB2A3B53");
const KX_R_A: [u8; 32] =
    hex_literal::hex!("83A2C9C8B96E5AF70BD480B472409A9A327257F1EBB73F5B073354B248668563");
const KX_R_B: [u8; 32] =
    hex_literal::hex!("33FE21940342161C55619C4A0C060293D543C80AF19748CE176D83477DE71C80");
const KX_ID_A: &[u8] = b"ALICE123@YAHOO.COM";
const KX_ID_B: &[u8] = b"BILL456@YAHOO.COM";
const KX_P_B: [u8; 65] = hex_literal::hex!(
    "049eafb2cef3c95526c686a6c961a247a1aee7fc2e802454227a012b083ac553f5"
    "e30eb411162cd81274bdaff97896f264171cad0743dfa5ad39dfe0d924b167f9"
);
const KX_EPHEMERAL_B: [u8; 65] = hex_literal::hex!(
    "0426891afec73a32fa5bf2cbe91acded37cac48621d85d5965a5044a84dbda5988"
    "c2f8f5ddd6190244d5aa85feb8e9cbc583c75401e37d8811d47a800f0d96796f"
);
const KX_KEY: [u8; 16] = hex_literal::hex!("f02f9068ad13e14f2b2602e0dfb2504f");

/// PKCS#8 of a curveSM2 scalar (RFC 5208 PrivateKeyInfo, id-ecPublicKey with the SM2 OID,
/// RFC 5915 ECPrivateKey without the public key), written out by hand.
fn sm2_pkcs8(scalar: &[u8; 32]) -> Vec<u8> {
    let mut der = hex_literal::hex!(
        "3041020100301306072a8648ce3d020106082a811ccf5501822d"
        "042730250201010420"
    )
    .to_vec();
    der.extend_from_slice(scalar);
    der
}

#[test]
fn key_exchange_with_an_ephemeral_made_beforehand_matches_the_independent_answer() {
    let module = gm();
    let a_public = module
        .signing_key_from_pkcs8(Algorithm::Sm2Sign, &sm2_pkcs8(&KX_D_A))
        .unwrap()
        .into_value()
        .public_key_der()
        .unwrap();
    let start = |role, own: &[u8; 32], own_id, peer: &[u8], peer_id, ephemeral: &[u8; 32]| {
        module.start_sm2_key_exchange_with_ephemeral(
            Algorithm::Sm2KeyExchange,
            role,
            &sm2_pkcs8(own),
            own_id,
            peer,
            peer_id,
            &sm2_pkcs8(ephemeral),
        )
    };
    let initiator = start(
        KeyExchangeRole::Initiator,
        &KX_D_A,
        KX_ID_A,
        &KX_P_B,
        KX_ID_B,
        &KX_R_A,
    )
    .unwrap();
    let responder = start(
        KeyExchangeRole::Responder,
        &KX_D_B,
        KX_ID_B,
        &a_public,
        KX_ID_A,
        &KX_R_B,
    )
    .unwrap();
    assert_eq!(responder.ephemeral_public_key().unwrap(), KX_EPHEMERAL_B);
    let r_a = initiator.ephemeral_public_key().unwrap();
    let k_a = initiator.finish(&KX_EPHEMERAL_B, 16).unwrap();
    let k_b = responder.finish(&r_a, 16).unwrap();
    assert!(k_a.is_approved() && k_b.is_approved());
    assert_eq!(*k_a.key(), KX_KEY);
    assert_eq!(*k_b.key(), KX_KEY);
    assert_eq!(k_a.expected_peer_confirmation(), k_b.confirmation());
    assert_eq!(k_b.expected_peer_confirmation(), k_a.confirmation());
    k_a.verify_peer_confirmation(&k_b.confirmation()).unwrap();

    // The static key is no ephemeral, a non-key is refused, and fips-140-3 serves none of it.
    let reused = start(
        KeyExchangeRole::Initiator,
        &KX_D_A,
        KX_ID_A,
        &KX_P_B,
        KX_ID_B,
        &KX_D_A,
    );
    assert!(matches!(reused, Err(Error::InvalidKey { .. })));
    let not_a_key = module.start_sm2_key_exchange_with_ephemeral(
        Algorithm::Sm2KeyExchange,
        KeyExchangeRole::Initiator,
        &sm2_pkcs8(&KX_D_A),
        KX_ID_A,
        &KX_P_B,
        KX_ID_B,
        b"not PKCS#8",
    );
    assert!(matches!(not_a_key, Err(Error::InvalidKey { .. })));
    let fips = Module::load(Policy::builtin(Profile::Fips1403));
    assert!(matches!(
        fips.start_sm2_key_exchange_with_ephemeral(
            Algorithm::Sm2KeyExchange,
            KeyExchangeRole::Initiator,
            &sm2_pkcs8(&KX_D_A),
            KX_ID_A,
            &KX_P_B,
            KX_ID_B,
            &sm2_pkcs8(&KX_R_A),
        ),
        Err(Error::NotApproved { .. })
    ));
}

#[test]
fn fips_refuses_sm2_and_wrong_families_are_reported() {
    let fips = Module::load(Policy::builtin(Profile::Fips1403));
    assert!(matches!(
        fips.generate_signing_key(Algorithm::Sm2Sign, None),
        Err(Error::NotApproved { .. })
    ));
    assert!(matches!(
        fips.generate_agreement_key(Algorithm::Sm2Ecdh),
        Err(Error::NotApproved { .. })
    ));
    assert!(matches!(
        fips.generate_decryption_key(Algorithm::Sm2Encrypt),
        Err(Error::NotApproved { .. })
    ));
    let module = gm();
    assert!(matches!(
        module.generate_decryption_key(Algorithm::Sm2Sign),
        Err(Error::WrongFamily { .. })
    ));
    assert!(matches!(
        module.generate_agreement_key(Algorithm::Sm2Encrypt),
        Err(Error::WrongFamily { .. })
    ));
}
