//! ECDH key derivation, Ed25519 and AES key wrapping through the token's exported C functions.
//! Known answers: RFC 8032 §7.1 (Ed25519 tests 1 and 2), RFC 3394 §4.1 and §4.6 (AES-KW), NIST
//! CAVP KWP_AE_128.txt (AES-KWP, 72-bit plaintext, COUNT = 0); the independent peer is the
//! OpenSSL command line (`pkeyutl -derive`, `pkeyutl -verify -rawin`) on keys it made itself.
//! The configuration is the README's example (a `fips-140-3` and a `default` slot) plus `gm`.

use std::process::Command;
use std::ptr::null_mut;

use hex_literal::hex;
use regula_pkcs11::*;

mod common;
use common::*;

/// id-Ed25519 (RFC 8410), and the name PKCS#11 3.0 §2.3.10 allows for edwards25519 (a
/// PrintableString).
const ED25519_OID: [u8; 5] = hex!("06032b6570");
const ED25519_NAME: &[u8] = b"\x13\x0cedwards25519";

fn create(
    session: CK_SESSION_HANDLE,
    template: &mut [CK_ATTRIBUTE],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let mut handle = 0;
    // SAFETY: a template of live locals.
    let rv = unsafe {
        C_CreateObject(
            session,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            &mut handle,
        )
    };
    if rv == CKR_OK { Ok(handle) } else { Err(rv) }
}

/// An extractable, readable secret key; `wrap`: it may wrap and unwrap.
fn secret(session: CK_SESSION_HANDLE, key_type: CK_KEY_TYPE, value: &[u8]) -> CK_OBJECT_HANDLE {
    let class = CKO_SECRET_KEY;
    create(
        session,
        &mut [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            bytes(CKA_VALUE, value),
            attribute(CKA_SENSITIVE, &FALSE),
            attribute(CKA_EXTRACTABLE, &TRUE),
        ],
    )
    .unwrap()
}

// ---- ECDH ------------------------------------------------------------------------------------

/// A session key pair made by the token whose private half may derive.
fn derive_pair(
    session: CK_SESSION_HANDLE,
    params: &[u8],
    derive: bool,
) -> (CK_OBJECT_HANDLE, CK_OBJECT_HANDLE) {
    let derive = if derive { TRUE } else { FALSE };
    let mut public = [bytes(CKA_EC_PARAMS, params)];
    let mut private = [attribute(CKA_DERIVE, &derive), attribute(CKA_SIGN, &FALSE)];
    let mut mechanism = mechanism(CKM_EC_KEY_PAIR_GEN);
    let (mut public_key, mut private_key) = (0, 0);
    // SAFETY: templates and handles of live locals.
    let rv = unsafe {
        C_GenerateKeyPair(
            session,
            &mut mechanism,
            public.as_mut_ptr(),
            public.len() as CK_ULONG,
            private.as_mut_ptr(),
            private.len() as CK_ULONG,
            &mut public_key,
            &mut private_key,
        )
    };
    assert_eq!(rv, CKR_OK);
    (public_key, private_key)
}

/// `C_DeriveKey` with `CKM_ECDH1_DERIVE` (CKD_NULL) into a readable secret key.
fn derive(
    session: CK_SESSION_HANDLE,
    base: CK_OBJECT_HANDLE,
    peer: &[u8],
    key_type: CK_KEY_TYPE,
    len: Option<CK_ULONG>,
) -> Result<Vec<u8>, CK_RV> {
    let mut params = CK_ECDH1_DERIVE_PARAMS {
        kdf: CKD_NULL,
        ulSharedDataLen: 0,
        pSharedData: null_mut(),
        ulPublicDataLen: peer.len() as CK_ULONG,
        pPublicData: peer.as_ptr().cast_mut(),
    };
    let mut mechanism = CK_MECHANISM {
        mechanism: CKM_ECDH1_DERIVE,
        pParameter: (&raw mut params).cast(),
        ulParameterLen: std::mem::size_of::<CK_ECDH1_DERIVE_PARAMS>() as CK_ULONG,
    };
    let class = CKO_SECRET_KEY;
    let len = len.unwrap_or(0);
    let mut template = vec![
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
        attribute(CKA_SENSITIVE, &FALSE),
        attribute(CKA_EXTRACTABLE, &TRUE),
    ];
    if len != 0 {
        template.push(attribute(CKA_VALUE_LEN, &len));
    }
    let key = derive_key(session, &mut mechanism, base, &mut template)?;
    read(session, key, CKA_VALUE)
}

/// The uncompressed point of a `CKA_EC_POINT` (a DER OCTET STRING).
fn point_of(session: CK_SESSION_HANDLE, public: CK_OBJECT_HANDLE) -> Vec<u8> {
    let ec_point = read(session, public, CKA_EC_POINT).unwrap();
    assert_eq!(ec_point[0], 0x04, "CKA_EC_POINT is an OCTET STRING");
    ec_point[2..].to_vec()
}

fn openssl(args: &[&str]) -> Vec<u8> {
    let output = Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The SubjectPublicKeyInfo of a point (RFC 5480).
fn spki(params: &[u8], point: &[u8]) -> Vec<u8> {
    let algorithm = [&hex!("06072a8648ce3d0201")[..], params].concat();
    let mut bit_string = vec![0x03, (point.len() + 1) as u8, 0x00];
    bit_string.extend_from_slice(point);
    let mut body = vec![0x30, algorithm.len() as u8];
    body.extend_from_slice(&algorithm);
    body.extend_from_slice(&bit_string);
    let mut der = vec![0x30, body.len() as u8];
    der.extend_from_slice(&body);
    der
}

#[test]
fn ecdh_gives_both_sides_and_openssl_the_same_secret() {
    with_token(|dir| {
        let session = open(FIPS);
        for (params, curve, width) in [
            (&P256_PARAMS[..], "P-256", 32),
            (&P384_PARAMS[..], "P-384", 48),
        ] {
            let (a_public, a_private) = derive_pair(session, params, true);
            let (b_public, b_private) = derive_pair(session, params, true);
            let (a_point, b_point) = (point_of(session, a_public), point_of(session, b_public));
            // The raw point on one side, the DER OCTET STRING on the other.
            let ab = derive(session, a_private, &b_point, CKK_GENERIC_SECRET, None).unwrap();
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            let a_ec_point = read(session, a_public, CKA_EC_POINT).unwrap();
            assert_eq!(a_ec_point.len(), 2 + a_point.len());
            let ba = derive(session, b_private, &a_ec_point, CKK_GENERIC_SECRET, None).unwrap();
            assert_eq!(ab.len(), width);
            assert_eq!(ab, ba);

            // OpenSSL's own key O: it derives with A's public key; the token with O's point.
            let o_pem = dir.join(format!("o-{curve}.pem"));
            let o_pem = o_pem.to_str().unwrap();
            openssl(&[
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                &format!("ec_paramgen_curve:{curve}"),
                "-out",
                o_pem,
            ]);
            let o_spki = openssl(&["pkey", "-in", o_pem, "-pubout", "-outform", "DER"]);
            let o_point = &o_spki[o_spki.len() - (1 + 2 * width)..];
            let a_der = dir.join(format!("a-{curve}.der"));
            std::fs::write(&a_der, spki(params, &a_point)).unwrap();
            let z = openssl(&[
                "pkeyutl",
                "-derive",
                "-inkey",
                o_pem,
                "-peerkey",
                a_der.to_str().unwrap(),
                "-peerform",
                "DER",
            ]);
            assert_eq!(z.len(), width);
            assert_eq!(
                derive(session, a_private, o_point, CKK_GENERIC_SECRET, None).unwrap(),
                z
            );
            // An AES key takes Z's leftmost bytes.
            assert_eq!(
                derive(session, a_private, o_point, CKK_AES, Some(16)).unwrap(),
                z[..16]
            );

            // O's private scalar imported (RFC 5915's privateKey) derives the same with A's point.
            let ec_private = openssl(&["ec", "-in", o_pem, "-outform", "DER", "-no_public"]);
            assert_eq!(ec_private[5..7], [0x04, width as u8]);
            let scalar = &ec_private[7..7 + width];
            let (class, key_type) = (CKO_PRIVATE_KEY, CKK_EC);
            let imported = create(
                session,
                &mut [
                    attribute(CKA_CLASS, &class),
                    attribute(CKA_KEY_TYPE, &key_type),
                    bytes(CKA_EC_PARAMS, params),
                    bytes(CKA_VALUE, scalar),
                    attribute(CKA_DERIVE, &TRUE),
                ],
            )
            .unwrap();
            assert_eq!(
                derive(session, imported, &a_point, CKK_GENERIC_SECRET, None).unwrap(),
                z
            );
            // The module computed the imported key's point: OpenSSL's.
            assert_eq!(
                read(session, imported, CKA_EC_POINT).unwrap()[2..],
                *o_point
            );
            assert_eq!(
                read(session, imported, CKA_VALUE),
                Err(CKR_ATTRIBUTE_SENSITIVE)
            );

            // A point off the curve, a length beyond Z, a key that may not derive.
            let mut off = o_point.to_vec();
            off[width] ^= 1;
            assert_eq!(
                derive(session, a_private, &off, CKK_GENERIC_SECRET, None),
                Err(CKR_MECHANISM_PARAM_INVALID)
            );
            assert_eq!(
                derive(
                    session,
                    a_private,
                    o_point,
                    CKK_GENERIC_SECRET,
                    Some(width as CK_ULONG + 1)
                ),
                Err(CKR_TEMPLATE_INCONSISTENT)
            );
            let (_, no_derive) = derive_pair(session, params, false);
            assert_eq!(
                derive(session, no_derive, o_point, CKK_GENERIC_SECRET, None),
                Err(CKR_KEY_FUNCTION_NOT_PERMITTED)
            );
        }
    });
}

// ---- Ed25519 ---------------------------------------------------------------------------------

fn sign(session: CK_SESSION_HANDLE, key: CK_OBJECT_HANDLE, message: &[u8]) -> Vec<u8> {
    let mut mechanism = mechanism(CKM_EDDSA);
    let mut signature = [0u8; 64];
    let mut len = 64;
    // SAFETY: live locals.
    unsafe {
        assert_eq!(C_SignInit(session, &mut mechanism, key), CKR_OK);
        let rv = C_Sign(
            session,
            message.as_ptr().cast_mut(),
            message.len() as CK_ULONG,
            signature.as_mut_ptr(),
            &mut len,
        );
        assert_eq!(rv, CKR_OK);
    }
    signature[..len as usize].to_vec()
}

fn verify(
    session: CK_SESSION_HANDLE,
    key: CK_OBJECT_HANDLE,
    message: &[u8],
    signature: &[u8],
) -> CK_RV {
    let mut mechanism = mechanism(CKM_EDDSA);
    // SAFETY: live locals.
    unsafe {
        assert_eq!(C_VerifyInit(session, &mut mechanism, key), CKR_OK);
        C_Verify(
            session,
            message.as_ptr().cast_mut(),
            message.len() as CK_ULONG,
            signature.as_ptr().cast_mut(),
            signature.len() as CK_ULONG,
        )
    }
}

#[test]
fn ed25519_signs_rfc_8032s_answers_and_openssl_verifies_a_generated_key() {
    // RFC 8032 §7.1, TEST 1 (empty message) and TEST 2 (one byte, 0x72).
    type Test<'a> = (&'a [u8], [u8; 32], [u8; 32], &'a [u8], [u8; 64]);
    let tests: [Test; 2] = [
        (
            ED25519_NAME,
            hex!("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"),
            hex!("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
            b"",
            hex!(
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
            ),
        ),
        (
            &ED25519_OID,
            hex!("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"),
            hex!("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"),
            &[0x72],
            hex!(
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
            ),
        ),
    ];
    with_token(|dir| {
        let session = open(FIPS);
        let key_type = CKK_EC_EDWARDS;
        for (params, secret, public, message, expected) in tests {
            let class = CKO_PRIVATE_KEY;
            let private = create(
                session,
                &mut [
                    attribute(CKA_CLASS, &class),
                    attribute(CKA_KEY_TYPE, &key_type),
                    bytes(CKA_EC_PARAMS, params),
                    bytes(CKA_VALUE, &secret),
                ],
            )
            .unwrap();
            let mut ec_point = vec![0x04, 0x20];
            ec_point.extend_from_slice(&public);
            let class = CKO_PUBLIC_KEY;
            let verifier = create(
                session,
                &mut [
                    attribute(CKA_CLASS, &class),
                    attribute(CKA_KEY_TYPE, &key_type),
                    bytes(CKA_EC_PARAMS, params),
                    bytes(CKA_EC_POINT, &ec_point),
                ],
            )
            .unwrap();
            // The module computed the public key from the private one: the RFC's.
            assert_eq!(read(session, private, CKA_EC_POINT).unwrap(), ec_point);
            assert_eq!(
                read(session, private, CKA_KEY_TYPE).unwrap(),
                key_type.to_ne_bytes()
            );
            assert_eq!(sign(session, private, message), expected);
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            assert_eq!(verify(session, verifier, message, &expected), CKR_OK);
            let mut mutated = expected;
            mutated[17] ^= 0x20;
            assert_eq!(
                verify(session, verifier, message, &mutated),
                CKR_SIGNATURE_INVALID
            );
            assert_eq!(
                verify(session, verifier, b"another message", &expected),
                CKR_SIGNATURE_INVALID
            );
        }

        // A pair the token makes; OpenSSL verifies its signature with the exported key.
        let mut public = [bytes(CKA_EC_PARAMS, ED25519_NAME)];
        let mut private = [attribute(CKA_SIGN, &TRUE)];
        let mut generate = mechanism(CKM_EC_EDWARDS_KEY_PAIR_GEN);
        let (mut public_key, mut private_key) = (0, 0);
        // SAFETY: templates and handles of live locals.
        let rv = unsafe {
            C_GenerateKeyPair(
                session,
                &mut generate,
                public.as_mut_ptr(),
                1,
                private.as_mut_ptr(),
                1,
                &mut public_key,
                &mut private_key,
            )
        };
        assert_eq!(rv, CKR_OK);
        assert_eq!(
            read(session, private_key, CKA_KEY_GEN_MECHANISM).unwrap(),
            CKM_EC_EDWARDS_KEY_PAIR_GEN.to_ne_bytes()
        );
        let message = b"the token signs this with Ed25519";
        let signature = sign(session, private_key, message);
        assert_eq!(verify(session, public_key, message, &signature), CKR_OK);
        let point = read(session, public_key, CKA_EC_POINT).unwrap();
        assert_eq!(point[..2], [0x04, 0x20]);
        let spki = [&hex!("302a300506032b6570032100")[..], &point[2..]].concat();
        let (pub_path, msg_path, sig_path) =
            (dir.join("ed.der"), dir.join("ed.msg"), dir.join("ed.sig"));
        std::fs::write(&pub_path, spki).unwrap();
        std::fs::write(&msg_path, message).unwrap();
        std::fs::write(&sig_path, &signature).unwrap();
        let openssl_verifies = |message: &std::path::Path| {
            Command::new("openssl")
                .args([
                    "pkeyutl", "-verify", "-pubin", "-keyform", "DER", "-rawin", "-inkey",
                ])
                .arg(&pub_path)
                .arg("-in")
                .arg(message)
                .arg("-sigfile")
                .arg(&sig_path)
                .output()
                .unwrap()
                .status
                .success()
        };
        assert!(openssl_verifies(&msg_path));
        let tampered = dir.join("tampered.msg");
        std::fs::write(&tampered, b"tampered").unwrap();
        assert!(!openssl_verifies(&tampered));

        // CKM_EC_KEY_PAIR_GEN does not make Edwards keys.
        let mut ec = mechanism(CKM_EC_KEY_PAIR_GEN);
        // SAFETY: as above.
        let rv = unsafe {
            C_GenerateKeyPair(
                session,
                &mut ec,
                public.as_mut_ptr(),
                1,
                private.as_mut_ptr(),
                1,
                &mut public_key,
                &mut private_key,
            )
        };
        assert_eq!(rv, CKR_TEMPLATE_INCONSISTENT);
    });
}

// ---- AES key wrap ----------------------------------------------------------------------------

fn wrap(
    session: CK_SESSION_HANDLE,
    kind: CK_MECHANISM_TYPE,
    kek: CK_OBJECT_HANDLE,
    key: CK_OBJECT_HANDLE,
) -> Result<Vec<u8>, CK_RV> {
    let mut mechanism = mechanism(kind);
    let mut len = 0;
    // SAFETY: the length protocol with live buffers.
    unsafe {
        let rv = C_WrapKey(session, &mut mechanism, kek, key, null_mut(), &mut len);
        if rv != CKR_OK {
            return Err(rv);
        }
        let mut out = vec![0u8; len as usize];
        let rv = C_WrapKey(
            session,
            &mut mechanism,
            kek,
            key,
            out.as_mut_ptr(),
            &mut len,
        );
        if rv != CKR_OK {
            return Err(rv);
        }
        out.truncate(len as usize);
        Ok(out)
    }
}

fn unwrap(
    session: CK_SESSION_HANDLE,
    kind: CK_MECHANISM_TYPE,
    kek: CK_OBJECT_HANDLE,
    wrapped: &[u8],
    key_type: CK_KEY_TYPE,
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let mut mechanism = mechanism(kind);
    let class = CKO_SECRET_KEY;
    let mut template = [
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
        attribute(CKA_SENSITIVE, &FALSE),
        attribute(CKA_EXTRACTABLE, &TRUE),
    ];
    let mut key = 0;
    // SAFETY: live locals.
    let rv = unsafe {
        C_UnwrapKey(
            session,
            &mut mechanism,
            kek,
            wrapped.as_ptr().cast_mut(),
            wrapped.len() as CK_ULONG,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            &mut key,
        )
    };
    if rv == CKR_OK { Ok(key) } else { Err(rv) }
}

#[test]
fn aes_key_wrap_gives_rfc_3394_and_cavp_kwp_answers() {
    // RFC 3394 §4.1 (128-bit KEK, 128-bit key) and §4.6 (256-bit KEK, 256-bit key); NIST CAVP
    // KWP_AE_128.txt, [PLAINTEXT LENGTH = 72] COUNT = 0.
    type Case<'a> = (CK_MECHANISM_TYPE, &'a [u8], &'a [u8], CK_KEY_TYPE, &'a [u8]);
    let cases: [Case; 4] = [
        (
            CKM_AES_KEY_WRAP,
            &hex!("000102030405060708090a0b0c0d0e0f"),
            &hex!("00112233445566778899aabbccddeeff"),
            CKK_AES,
            &hex!("1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"),
        ),
        (
            CKM_AES_KEY_WRAP,
            &hex!("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
            &hex!("00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f"),
            CKK_AES,
            &hex!(
                "28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21"
            ),
        ),
        (
            CKM_AES_KEY_WRAP_KWP,
            &hex!("7865e20f3c21659ab4690b629cdf3cc4"),
            &hex!("bd6843d420378dc896"),
            CKK_GENERIC_SECRET,
            &hex!("41eca956d4aa047eb5cf4efe659661e74db6f8c564e23500"),
        ),
        (
            CKM_AES_KEY_WRAP_PAD,
            &hex!("7865e20f3c21659ab4690b629cdf3cc4"),
            &hex!("bd6843d420378dc896"),
            CKK_GENERIC_SECRET,
            &hex!("41eca956d4aa047eb5cf4efe659661e74db6f8c564e23500"),
        ),
    ];
    with_token(|_| {
        let session = open(FIPS);
        for (kind, kek, key, key_type, expected) in cases {
            let kek = secret(session, CKK_AES, kek);
            let target = secret(session, key_type, key);
            assert_eq!(wrap(session, kind, kek, target).unwrap(), expected);
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            let unwrapped = unwrap(session, kind, kek, expected, key_type).unwrap();
            assert_eq!(read(session, unwrapped, CKA_VALUE).unwrap(), key);
            assert_eq!(read(session, unwrapped, CKA_LOCAL).unwrap(), [FALSE]);
            for at in [0, expected.len() / 2, expected.len() - 1] {
                let mut flipped = expected.to_vec();
                flipped[at] ^= 0x01;
                assert_eq!(
                    unwrap(session, kind, kek, &flipped, key_type),
                    Err(CKR_WRAPPED_KEY_INVALID)
                );
            }
            assert_eq!(
                unwrap(
                    session,
                    kind,
                    kek,
                    &expected[..expected.len() - 8],
                    key_type
                )
                .err(),
                Some(
                    if expected.len() - 8 < 16
                        || (kind == CKM_AES_KEY_WRAP && expected.len() - 8 < 24)
                    {
                        CKR_WRAPPED_KEY_LEN_RANGE
                    } else {
                        CKR_WRAPPED_KEY_INVALID
                    }
                )
            );
        }
    });
}

#[test]
fn wrapping_honours_extractable_wrap_and_trusted() {
    with_token(|_| {
        let session = open(FIPS);
        let kek_value = [0x11u8; 32];
        let kek = secret(session, CKK_AES, &kek_value);
        let (class, aes) = (CKO_SECRET_KEY, CKK_AES);
        let key = |extra: &mut Vec<CK_ATTRIBUTE>| {
            let mut template = vec![
                attribute(CKA_CLASS, &class),
                attribute(CKA_KEY_TYPE, &aes),
                bytes(CKA_VALUE, &[0x22; 16]),
            ];
            template.append(extra);
            create(session, &mut template)
        };
        let unextractable = key(&mut vec![attribute(CKA_EXTRACTABLE, &FALSE)]).unwrap();
        assert_eq!(
            wrap(session, CKM_AES_KEY_WRAP, kek, unextractable),
            Err(CKR_KEY_UNEXTRACTABLE)
        );
        let no_wrap = key(&mut vec![
            attribute(CKA_WRAP, &FALSE),
            attribute(CKA_UNWRAP, &FALSE),
        ])
        .unwrap();
        let plain = key(&mut vec![]).unwrap();
        assert_eq!(
            wrap(session, CKM_AES_KEY_WRAP, no_wrap, plain),
            Err(CKR_KEY_FUNCTION_NOT_PERMITTED)
        );
        assert_eq!(
            unwrap(session, CKM_AES_KEY_WRAP, no_wrap, &[0; 24], CKK_AES),
            Err(CKR_KEY_FUNCTION_NOT_PERMITTED)
        );
        // A generic secret that is no whole number of semiblocks takes KWP, not KW.
        let odd = secret(session, CKK_GENERIC_SECRET, &[0x33; 20]);
        assert_eq!(
            wrap(session, CKM_AES_KEY_WRAP, kek, odd),
            Err(CKR_KEY_SIZE_RANGE)
        );
        assert_eq!(
            wrap(session, CKM_AES_KEY_WRAP_KWP, kek, odd).map(|w| w.len()),
            Ok(32)
        );
        // Only the SO marks a key trusted.
        assert_eq!(
            key(&mut vec![attribute(CKA_TRUSTED, &TRUE)]),
            Err(CKR_ATTRIBUTE_READ_ONLY)
        );
        let guarded = key(&mut vec![attribute(CKA_WRAP_WITH_TRUSTED, &TRUE)]).unwrap();
        assert_eq!(
            wrap(session, CKM_AES_KEY_WRAP, kek, guarded),
            Err(CKR_KEY_NOT_WRAPPABLE)
        );
        let mut trust = [attribute(CKA_TRUSTED, &TRUE)];
        // SAFETY: a template of live locals.
        let rv = unsafe { C_SetAttributeValue(session, kek, trust.as_mut_ptr(), 1) };
        assert_eq!(rv, CKR_ATTRIBUTE_READ_ONLY);
        // CKA_WRAP_WITH_TRUSTED, once true, stays true.
        let mut untrust = [attribute(CKA_WRAP_WITH_TRUSTED, &FALSE)];
        // SAFETY: as above.
        let rv = unsafe { C_SetAttributeValue(session, guarded, untrust.as_mut_ptr(), 1) };
        assert_eq!(rv, CKR_ATTRIBUTE_READ_ONLY);

        // A public token KEK the SO then trusts wraps the guarded key.
        let token_kek = create(
            session,
            &mut [
                attribute(CKA_CLASS, &class),
                attribute(CKA_KEY_TYPE, &aes),
                bytes(CKA_VALUE, &kek_value),
                attribute(CKA_TOKEN, &TRUE),
                attribute(CKA_PRIVATE, &FALSE),
            ],
        )
        .unwrap();
        // SAFETY: live sessions.
        unsafe {
            assert_eq!(C_Logout(session), CKR_OK);
            assert_eq!(login(session, CKU_SO, SO_PIN), CKR_OK);
            assert_eq!(
                C_SetAttributeValue(session, token_kek, trust.as_mut_ptr(), 1),
                CKR_OK
            );
            assert_eq!(C_Logout(session), CKR_OK);
        }
        let session = open(FIPS);
        let guarded = key(&mut vec![attribute(CKA_WRAP_WITH_TRUSTED, &TRUE)]).unwrap();
        assert_eq!(read(session, token_kek, CKA_TRUSTED).unwrap(), [TRUE]);
        let wrapped = wrap(session, CKM_AES_KEY_WRAP, token_kek, guarded).unwrap();
        let unwrapped = unwrap(session, CKM_AES_KEY_WRAP, token_kek, &wrapped, CKK_AES).unwrap();
        assert_eq!(read(session, unwrapped, CKA_VALUE).unwrap(), [0x22; 16]);
    });
}

// ---- Policy ----------------------------------------------------------------------------------

fn listed(slot: CK_SLOT_ID) -> Vec<CK_MECHANISM_TYPE> {
    let mut count = 0;
    // SAFETY: the length protocol with a live buffer.
    unsafe {
        assert_eq!(C_GetMechanismList(slot, null_mut(), &mut count), CKR_OK);
        let mut list = vec![0; count as usize];
        assert_eq!(
            C_GetMechanismList(slot, list.as_mut_ptr(), &mut count),
            CKR_OK
        );
        list
    }
}

#[test]
fn the_policy_decides_what_is_listed_and_served() {
    with_token(|_| {
        let served = [
            CKM_ECDH1_DERIVE,
            CKM_EC_EDWARDS_KEY_PAIR_GEN,
            CKM_EDDSA,
            CKM_AES_KEY_WRAP,
            CKM_AES_KEY_WRAP_KWP,
            CKM_AES_KEY_WRAP_PAD,
        ];
        let fips = listed(FIPS);
        for kind in served {
            assert!(fips.contains(&kind), "fips-140-3 lists {kind:#x}");
        }
        let mut info = CK_MECHANISM_INFO {
            ulMinKeySize: 0,
            ulMaxKeySize: 0,
            flags: 0,
        };
        assert_eq!(
            // SAFETY: a pointer to a local.
            unsafe { C_GetMechanismInfo(FIPS, CKM_ECDH1_DERIVE, &mut info) },
            CKR_OK
        );
        assert_eq!((info.ulMinKeySize, info.ulMaxKeySize), (256, 384));
        assert_ne!(info.flags & CKF_DERIVE, 0);
        assert_eq!(
            // SAFETY: a pointer to a local.
            unsafe { C_GetMechanismInfo(FIPS, CKM_AES_KEY_WRAP, &mut info) },
            CKR_OK
        );
        assert_eq!(info.flags, CKF_WRAP | CKF_UNWRAP);
        // fips-140-3 refuses X25519 key agreement: no Montgomery key pairs.
        assert!(!fips.contains(&CKM_EC_MONTGOMERY_KEY_PAIR_GEN));

        // gm serves none of them, and refuses them when asked.
        let gm_list = listed(GM);
        for kind in served {
            assert!(!gm_list.contains(&kind), "gm lists {kind:#x}");
        }
        let gm = open(GM);
        let kek = secret(gm, CKK_AES, &[0x44; 16]);
        let key = secret(gm, CKK_AES, &[0x55; 16]);
        assert_eq!(
            wrap(gm, CKM_AES_KEY_WRAP, kek, key),
            Err(CKR_MECHANISM_INVALID)
        );
        assert_eq!(
            unwrap(gm, CKM_AES_KEY_WRAP_PAD, kek, &[0; 24], CKK_AES),
            Err(CKR_MECHANISM_INVALID)
        );
        assert_eq!(
            derive(gm, key, &[0x04; 65], CKK_GENERIC_SECRET, None),
            Err(CKR_MECHANISM_INVALID)
        );
        let mut public = [bytes(CKA_EC_PARAMS, &ED25519_OID)];
        let mut private = [attribute(CKA_SIGN, &TRUE)];
        let mut generate = mechanism(CKM_EC_EDWARDS_KEY_PAIR_GEN);
        let (mut a, mut b) = (0, 0);
        // SAFETY: templates and handles of live locals.
        let rv = unsafe {
            C_GenerateKeyPair(
                gm,
                &mut generate,
                public.as_mut_ptr(),
                1,
                private.as_mut_ptr(),
                1,
                &mut a,
                &mut b,
            )
        };
        assert_eq!(rv, CKR_MECHANISM_INVALID);
    });
}
