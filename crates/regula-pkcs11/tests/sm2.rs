//! SM2 through the token's exported C functions: `CKK_EC` keys on curveSM2, signatures with a
//! distinguishing ID (`CKM_REGULA_SM2_SM3`), encryption (`CKM_REGULA_SM2_ENCRYPT`) and ECDH
//! (`CKM_REGULA_SM2_ECDH`) on the `gm` slot.
//!
//! Known answers: GB/T 32918.5-2017 Annex A (key d, its public point, the signature of
//! "message digest" under the default ID) and Annex C (the encryption of "encryption standard"
//! as C1 ‖ C3 ‖ C2, and its GM/T 0009 ASN.1 form as OpenSSL's `test/sm2_internal_test.c`
//! writes it), the values copied from `crates/regula-sm/tests/sm2.rs`; the ECDH answer
//! x([d]P_B) is the pure-Python `gmalg` 1.1.2's (same file). The independent peer is the
//! OpenSSL 3 command line (`pkeyutl -sign/-verify -rawin -digest sm3 -pkeyopt distid:…`,
//! `-encrypt`, `-decrypt`) on keys it made itself.

use std::path::Path;
use std::process::Command;
use std::ptr::null_mut;

use hex_literal::hex;
use regula_pkcs11::*;

mod common;
use common::*;

const CKM_REGULA_SM2_KEY_PAIR_GEN: CK_MECHANISM_TYPE = 0x8052_4711;
const CKM_REGULA_SM2_SM3: CK_MECHANISM_TYPE = 0x8052_4712;
const CKM_REGULA_SM2_ENCRYPT: CK_MECHANISM_TYPE = 0x8052_4713;
const CKM_REGULA_SM2_ECDH: CK_MECHANISM_TYPE = 0x8052_4714;
const CKM_REGULA_SM2_KEY_EXCHANGE: CK_MECHANISM_TYPE = 0x8052_4715;

/// The header's `CK_REGULA_SM2_ENCRYPT_PARAMS` and its two formats.
#[repr(C)]
struct EncryptParams {
    ul_ciphertext_format: CK_ULONG,
}
const ASN1: CK_ULONG = 0;
const C1C3C2: CK_ULONG = 1;

/// curveSM2 (1.2.156.10197.1.301) as `CKA_EC_PARAMS`.
const SM2_PARAMS: [u8; 10] = hex!("06082a811ccf5501822d");

// GB/T 32918.5-2017 Annex A and C.
const D: [u8; 32] = hex!("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
const PUBLIC: [u8; 65] = hex!(
    "04"
    "09F9DF311E5421A150DD7D161E4BC5C672179FAD1833FC076BB08FF356F35020"
    "CCEA490CE26775A52DC6EA718CC1AA600AED05FBF35E084A6632F6072DA9AD13"
);
const R: [u8; 32] = hex!("F5A03B0648D2C4630EEAC513E1BB81A15944DA3827D5B74143AC7EACEEE720B3");
const S: [u8; 32] = hex!("B1B6AA29DF212FD8763182BC0D421CA1BB9038FD1F7F42D4840B69C485BBC1AA");
const PLAINTEXT: &[u8] = b"encryption standard";
const C1C3C2_CIPHERTEXT: [u8; 116] = hex!(
    "04"
    "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "21886CA989CA9C7D58087307CA93092D651EFA"
);
const ASN1_CIPHERTEXT: [u8; 126] = hex!(
    "307C"
    "0220" "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "0221" "00" "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "0420" "59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "0413" "21886CA989CA9C7D58087307CA93092D651EFA"
);
/// GM/T 0003.5-2012 Annex B's P_B (on curveSM2) and x([D] P_B) by `gmalg`.
const PEER: [u8; 65] = hex!(
    "049eafb2cef3c95526c686a6c961a247a1aee7fc2e802454227a012b083ac553f5"
    "e30eb411162cd81274bdaff97896f264171cad0743dfa5ad39dfe0d924b167f9"
);
const SHARED_X: [u8; 32] = hex!("b59c6a4b5cf708257e56d3b8d3b2aaca08b56c2bbe77df34b84d2b07501bd93d");

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

/// An SM2 public key from its uncompressed point, permitted to verify and encrypt.
fn public_key(session: CK_SESSION_HANDLE, point: &[u8]) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let (class, key_type) = (CKO_PUBLIC_KEY, CKK_EC);
    let ec_point = [&[0x04, point.len() as u8][..], point].concat();
    create(
        session,
        &mut [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            bytes(CKA_EC_PARAMS, &SM2_PARAMS),
            bytes(CKA_EC_POINT, &ec_point),
            attribute(CKA_ENCRYPT, &TRUE),
        ],
    )
}

/// An SM2 private key from its scalar, permitted to sign, decrypt and derive.
fn private_key(session: CK_SESSION_HANDLE, scalar: &[u8]) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let (class, key_type) = (CKO_PRIVATE_KEY, CKK_EC);
    create(
        session,
        &mut [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            bytes(CKA_EC_PARAMS, &SM2_PARAMS),
            bytes(CKA_VALUE, scalar),
            attribute(CKA_DECRYPT, &TRUE),
            attribute(CKA_DERIVE, &TRUE),
        ],
    )
}

/// A session key pair made with `CKM_REGULA_SM2_KEY_PAIR_GEN`; `token`: a token object.
fn generate(
    session: CK_SESSION_HANDLE,
    token: bool,
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE), CK_RV> {
    let token = if token { TRUE } else { FALSE };
    let mut public = [
        bytes(CKA_EC_PARAMS, &SM2_PARAMS),
        attribute(CKA_ENCRYPT, &TRUE),
        attribute(CKA_TOKEN, &token),
    ];
    let mut private = [
        attribute(CKA_DECRYPT, &TRUE),
        attribute(CKA_DERIVE, &TRUE),
        attribute(CKA_TOKEN, &token),
        bytes(CKA_LABEL, b"sm2-test"),
    ];
    let mut mechanism = mechanism(CKM_REGULA_SM2_KEY_PAIR_GEN);
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
    if rv == CKR_OK {
        Ok((public_key, private_key))
    } else {
        Err(rv)
    }
}

/// `CKM_REGULA_SM2_SM3` with the ID as the parameter (`None`: no parameter).
fn sign_mechanism(id: Option<&[u8]>) -> CK_MECHANISM {
    match id {
        None => mechanism(CKM_REGULA_SM2_SM3),
        Some(id) => CK_MECHANISM {
            mechanism: CKM_REGULA_SM2_SM3,
            pParameter: id.as_ptr().cast_mut().cast(),
            ulParameterLen: id.len() as CK_ULONG,
        },
    }
}

fn sign(
    session: CK_SESSION_HANDLE,
    key: CK_OBJECT_HANDLE,
    id: Option<&[u8]>,
    message: &[u8],
) -> Result<Vec<u8>, CK_RV> {
    let mut mechanism = sign_mechanism(id);
    let signature = sign_with(session, &mut mechanism, key, message)?;
    assert_eq!(signature.len(), 64, "r ‖ s");
    Ok(signature)
}

fn verify(
    session: CK_SESSION_HANDLE,
    key: CK_OBJECT_HANDLE,
    id: Option<&[u8]>,
    message: &[u8],
    signature: &[u8],
) -> CK_RV {
    let mut mechanism = sign_mechanism(id);
    verify_with(session, &mut mechanism, key, message, signature)
}

/// Single-part `C_Encrypt` (`encrypts`) or `C_Decrypt` with `CKM_REGULA_SM2_ENCRYPT`, a length
/// query first; `format`: the parameter, if any.
fn crypt(
    session: CK_SESSION_HANDLE,
    key: CK_OBJECT_HANDLE,
    encrypts: bool,
    format: Option<CK_ULONG>,
    input: &[u8],
) -> Result<Vec<u8>, CK_RV> {
    let mut params = EncryptParams {
        ul_ciphertext_format: format.unwrap_or(ASN1),
    };
    let mut mechanism = match format {
        Some(_) => with_param(CKM_REGULA_SM2_ENCRYPT, &mut params),
        None => mechanism(CKM_REGULA_SM2_ENCRYPT),
    };
    let (init, run): (
        unsafe extern "C" fn(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE) -> CK_RV,
        unsafe extern "C" fn(CK_SESSION_HANDLE, *mut u8, CK_ULONG, *mut u8, *mut CK_ULONG) -> CK_RV,
    ) = if encrypts {
        (C_EncryptInit, C_Encrypt)
    } else {
        (C_DecryptInit, C_Decrypt)
    };
    // SAFETY: live locals; the length protocol.
    unsafe {
        let rv = init(session, &mut mechanism, key);
        if rv != CKR_OK {
            return Err(rv);
        }
        let data = input.as_ptr().cast_mut();
        let mut len = 0;
        let rv = run(session, data, input.len() as CK_ULONG, null_mut(), &mut len);
        if rv != CKR_OK {
            return Err(rv);
        }
        let mut output = vec![0u8; len as usize];
        let rv = run(
            session,
            data,
            input.len() as CK_ULONG,
            output.as_mut_ptr(),
            &mut len,
        );
        if rv != CKR_OK {
            return Err(rv);
        }
        output.truncate(len as usize);
        Ok(output)
    }
}

/// `C_DeriveKey` with `CKM_REGULA_SM2_ECDH` (`CK_ECDH1_DERIVE_PARAMS`, `CKD_NULL`) into a
/// readable generic secret.
fn derive(
    session: CK_SESSION_HANDLE,
    mechanism_type: CK_MECHANISM_TYPE,
    base: CK_OBJECT_HANDLE,
    peer: &[u8],
) -> Result<Vec<u8>, CK_RV> {
    let mut params = CK_ECDH1_DERIVE_PARAMS {
        kdf: CKD_NULL,
        ulSharedDataLen: 0,
        pSharedData: null_mut(),
        ulPublicDataLen: peer.len() as CK_ULONG,
        pPublicData: peer.as_ptr().cast_mut(),
    };
    let mut mechanism = with_param(mechanism_type, &mut params);
    let (class, key_type) = (CKO_SECRET_KEY, CKK_GENERIC_SECRET);
    let mut template = [
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
        attribute(CKA_SENSITIVE, &FALSE),
        attribute(CKA_EXTRACTABLE, &TRUE),
    ];
    let key = derive_key(session, &mut mechanism, base, &mut template)?;
    read(session, key, CKA_VALUE)
}

/// The uncompressed point of a key's `CKA_EC_POINT` (a DER OCTET STRING).
fn point_of(session: CK_SESSION_HANDLE, key: CK_OBJECT_HANDLE) -> Vec<u8> {
    let ec_point = read(session, key, CKA_EC_POINT).unwrap();
    assert_eq!(&ec_point[..2], &[0x04, 0x41], "an OCTET STRING of 65 bytes");
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

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

/// An SM2 SubjectPublicKeyInfo (id-ecPublicKey on curveSM2) of a point, as OpenSSL reads it.
fn spki(point: &[u8]) -> Vec<u8> {
    [
        &hex!("3059301306072a8648ce3d020106082a811ccf5501822d034200")[..],
        point,
    ]
    .concat()
}

/// `r ‖ s` as DER `SEQUENCE { r, s }`, and back (the test's own, short-form lengths).
fn der_of(raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    for half in raw.chunks(32) {
        let start = half.iter().position(|byte| *byte != 0).unwrap_or(31);
        let digits = &half[start..];
        let pad = digits[0] & 0x80 != 0;
        body.push(0x02);
        body.push((digits.len() + usize::from(pad)) as u8);
        if pad {
            body.push(0);
        }
        body.extend_from_slice(digits);
    }
    [&[0x30, body.len() as u8][..], &body].concat()
}

fn raw_of(der: &[u8]) -> Vec<u8> {
    assert_eq!(der[0], 0x30);
    let mut raw = Vec::new();
    let mut rest = &der[2..];
    for _ in 0..2 {
        assert_eq!(rest[0], 0x02);
        let len = rest[1] as usize;
        let integer = &rest[2..2 + len];
        let digits = &integer[integer.len().saturating_sub(32)..];
        raw.extend(std::iter::repeat_n(0, 32 - digits.len()));
        raw.extend_from_slice(digits);
        rest = &rest[2 + len..];
    }
    raw
}

/// An SM2 key made by OpenSSL in `dir`: its PEM file, its private scalar and its point.
fn openssl_key(dir: &Path, name: &str) -> (String, Vec<u8>, Vec<u8>) {
    let pem = path(dir, &format!("{name}.pem"));
    openssl(&["genpkey", "-algorithm", "SM2", "-out", &pem]);
    let der = openssl(&["pkey", "-in", &pem, "-outform", "DER"]);
    // ECPrivateKey (RFC 5915): version 1, then the 32-byte OCTET STRING.
    let at = der
        .windows(5)
        .position(|window| window == [0x02, 0x01, 0x01, 0x04, 0x20])
        .expect("an ECPrivateKey");
    let scalar = der[at + 5..at + 37].to_vec();
    let public = openssl(&["pkey", "-in", &pem, "-pubout", "-outform", "DER"]);
    let point = public[public.len() - 65..].to_vec();
    assert_eq!(spki(&point), public);
    (pem, scalar, point)
}

/// The one private key labelled `label` (a login gives token objects new handles).
fn find_private(session: CK_SESSION_HANDLE, label: &[u8]) -> CK_OBJECT_HANDLE {
    let class = CKO_PRIVATE_KEY;
    let mut template = [attribute(CKA_CLASS, &class), bytes(CKA_LABEL, label)];
    let (mut found, mut count) = ([0; 2], 0);
    // SAFETY: live locals.
    unsafe {
        assert_eq!(C_FindObjectsInit(session, template.as_mut_ptr(), 2), CKR_OK);
        assert_eq!(
            C_FindObjects(session, found.as_mut_ptr(), 2, &mut count),
            CKR_OK
        );
        assert_eq!(C_FindObjectsFinal(session), CKR_OK);
    }
    assert_eq!(count, 1);
    found[0]
}

#[test]
fn the_gm_slot_lists_sm2_from_the_rows_and_fips_does_not() {
    with_token(|_| {
        let info = |slot, mechanism| {
            let mut info = CK_MECHANISM_INFO {
                ulMinKeySize: 0,
                ulMaxKeySize: 0,
                flags: 0,
            };
            // SAFETY: a local.
            let rv = unsafe { C_GetMechanismInfo(slot, mechanism, &mut info) };
            (rv, info)
        };
        for (mechanism, flags) in [
            (CKM_REGULA_SM2_KEY_PAIR_GEN, CKF_GENERATE_KEY_PAIR),
            (CKM_REGULA_SM2_SM3, CKF_SIGN | CKF_VERIFY),
            (CKM_REGULA_SM2_ENCRYPT, CKF_ENCRYPT | CKF_DECRYPT),
            (CKM_REGULA_SM2_ECDH, CKF_DERIVE),
            (CKM_REGULA_SM2_KEY_EXCHANGE, CKF_DERIVE),
        ] {
            for slot in [GM, DEFAULT] {
                let (rv, found) = info(slot, mechanism);
                assert_eq!(rv, CKR_OK, "{mechanism:#x} on {slot}");
                assert_eq!(found.flags & flags, flags, "{mechanism:#x}");
                assert_eq!((found.ulMinKeySize, found.ulMaxKeySize), (256, 256));
            }
            assert_eq!(info(FIPS, mechanism).0, CKR_MECHANISM_INVALID);
        }
        // The fips-140-3 slot makes no SM2 key and signs with none.
        let session = open(FIPS);
        assert_eq!(generate(session, false), Err(CKR_MECHANISM_INVALID));
        let public = public_key(session, &PUBLIC).unwrap();
        let signature = [R, S].concat();
        assert_eq!(
            verify(session, public, None, b"message digest", &signature),
            CKR_MECHANISM_INVALID
        );
        assert_eq!(
            private_key(session, &D),
            Err(CKR_CURVE_NOT_SUPPORTED),
            "the fips-140-3 module imports no SM2 key"
        );
    });
}

#[test]
fn the_published_signature_verifies_and_a_tampered_one_does_not() {
    with_token(|_| {
        let session = open(GM);
        // Annex A's key: the token computes the standard's public point from d.
        let private = private_key(session, &D).unwrap();
        assert_eq!(point_of(session, private), PUBLIC);
        assert_eq!(
            read(session, private, CKA_VALUE),
            Err(CKR_ATTRIBUTE_SENSITIVE)
        );
        assert_eq!(read(session, private, CKA_EC_PARAMS).unwrap(), SM2_PARAMS);
        let key_type = read(session, private, CKA_KEY_TYPE).unwrap();
        assert_eq!(key_type, CKK_EC.to_ne_bytes());
        let public = public_key(session, &PUBLIC).unwrap();
        let signature = [R, S].concat();
        let message = b"message digest";
        // No parameter is the default ID, which the example signs with.
        assert_eq!(verify(session, public, None, message, &signature), CKR_OK);
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        let default_id = b"1234567812345678";
        assert_eq!(
            verify(session, public, Some(default_id), message, &signature),
            CKR_OK
        );
        for bit in [0, 100, 255, 256, 511] {
            let mut tampered = signature.clone();
            tampered[bit / 8] ^= 0x80 >> (bit % 8);
            assert_eq!(
                verify(session, public, None, message, &tampered),
                CKR_SIGNATURE_INVALID,
                "bit {bit}"
            );
        }
        assert_eq!(
            verify(
                session,
                public,
                Some(b"another signer"),
                message,
                &signature
            ),
            CKR_SIGNATURE_INVALID
        );
        assert_eq!(
            verify(session, public, None, b"message digesT", &signature),
            CKR_SIGNATURE_INVALID
        );
        assert_eq!(
            verify(session, public, None, message, &signature[..63]),
            CKR_SIGNATURE_LEN_RANGE
        );
        // The token's own signatures with the example key verify under the published point.
        let made = sign(session, private, Some(b"ALICE123@YAHOO.COM"), message).unwrap();
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        assert_eq!(
            verify(session, public, Some(b"ALICE123@YAHOO.COM"), message, &made),
            CKR_OK
        );
        assert_eq!(
            verify(session, public, None, message, &made),
            CKR_SIGNATURE_INVALID
        );
    });
}

#[test]
fn openssl_verifies_the_tokens_signatures_and_the_token_verifies_openssls() {
    with_token(|dir| {
        let session = open(GM);
        let (public, private) = generate(session, false).unwrap();
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        let mechanism = read(session, private, CKA_KEY_GEN_MECHANISM).unwrap();
        assert_eq!(mechanism, CKM_REGULA_SM2_KEY_PAIR_GEN.to_ne_bytes());
        let point = point_of(session, public);
        assert_eq!(point_of(session, private), point);
        let message = b"The token signs as ALICE; OpenSSL checks it.";
        std::fs::write(dir.join("message"), message).unwrap();
        std::fs::write(dir.join("token.der"), spki(&point)).unwrap();
        for id in [&b"1234567812345678"[..], b"ALICE123@YAHOO.COM"] {
            let parameter = (id != b"1234567812345678").then_some(id);
            let signature = sign(session, private, parameter, message).unwrap();
            std::fs::write(dir.join("signature"), der_of(&signature)).unwrap();
            let distid = format!("distid:{}", String::from_utf8_lossy(id));
            let verified = openssl(&[
                "pkeyutl",
                "-verify",
                "-pubin",
                "-keyform",
                "DER",
                "-inkey",
                &path(dir, "token.der"),
                "-in",
                &path(dir, "message"),
                "-rawin",
                "-digest",
                "sm3",
                "-pkeyopt",
                &distid,
                "-sigfile",
                &path(dir, "signature"),
            ]);
            assert!(String::from_utf8_lossy(&verified).contains("Verified Successfully"));
            assert_eq!(
                verify(session, public, parameter, message, &signature),
                CKR_OK
            );
        }
        // OpenSSL signs with its own key; the token verifies with the public key imported.
        let (pem, _, point) = openssl_key(dir, "openssl");
        let der = openssl(&[
            "pkeyutl",
            "-sign",
            "-inkey",
            &pem,
            "-in",
            &path(dir, "message"),
            "-rawin",
            "-digest",
            "sm3",
            "-pkeyopt",
            "distid:BILL456@YAHOO.COM",
        ]);
        let signature = raw_of(&der);
        let imported = public_key(session, &point).unwrap();
        let id = Some(&b"BILL456@YAHOO.COM"[..]);
        assert_eq!(verify(session, imported, id, message, &signature), CKR_OK);
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        assert_eq!(
            verify(session, imported, None, message, &signature),
            CKR_SIGNATURE_INVALID
        );
    });
}

#[test]
fn encryption_decrypts_the_standards_and_openssls_ciphertexts() {
    with_token(|dir| {
        let session = open(GM);
        // Annex C: C1 ‖ C3 ‖ C2 with the parameter, the ASN.1 form without it.
        let private = private_key(session, &D).unwrap();
        assert_eq!(
            crypt(session, private, false, Some(C1C3C2), &C1C3C2_CIPHERTEXT).unwrap(),
            PLAINTEXT
        );
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        assert_eq!(
            crypt(session, private, false, None, &ASN1_CIPHERTEXT).unwrap(),
            PLAINTEXT
        );
        assert_eq!(
            crypt(session, private, false, Some(ASN1), &ASN1_CIPHERTEXT).unwrap(),
            PLAINTEXT
        );
        // The wrong layout, a changed C3 or C2, a short ciphertext: refused, nothing given.
        assert_eq!(
            crypt(session, private, false, None, &C1C3C2_CIPHERTEXT),
            Err(CKR_ENCRYPTED_DATA_INVALID)
        );
        for at in [70, 100, 115] {
            let mut tampered = C1C3C2_CIPHERTEXT;
            tampered[at] ^= 1;
            assert_eq!(
                crypt(session, private, false, Some(C1C3C2), &tampered),
                Err(CKR_ENCRYPTED_DATA_INVALID),
                "byte {at}"
            );
        }
        assert_eq!(
            crypt(
                session,
                private,
                false,
                Some(C1C3C2),
                &C1C3C2_CIPHERTEXT[..97]
            ),
            Err(CKR_ENCRYPTED_DATA_LEN_RANGE)
        );
        // OpenSSL encrypts (ASN.1) to its own key, imported into the token, which decrypts;
        // the token encrypts to that key's point and OpenSSL decrypts.
        let (pem, scalar, point) = openssl_key(dir, "recipient");
        let message = b"OpenSSL and the token agree on GB/T 32918.4";
        std::fs::write(dir.join("plain"), message).unwrap();
        let public_der = path(dir, "recipient.der");
        std::fs::write(&public_der, spki(&point)).unwrap();
        let ciphertext = openssl(&[
            "pkeyutl",
            "-encrypt",
            "-pubin",
            "-keyform",
            "DER",
            "-inkey",
            &public_der,
            "-in",
            &path(dir, "plain"),
        ]);
        let recipient = private_key(session, &scalar).unwrap();
        assert_eq!(
            crypt(session, recipient, false, None, &ciphertext).unwrap(),
            message
        );
        let public = public_key(session, &point).unwrap();
        let sealed = crypt(session, public, true, None, message).unwrap();
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        std::fs::write(dir.join("sealed"), &sealed).unwrap();
        let opened = openssl(&[
            "pkeyutl",
            "-decrypt",
            "-inkey",
            &pem,
            "-in",
            &path(dir, "sealed"),
        ]);
        assert_eq!(opened, message);
        // C1C3C2 is exactly 97 bytes longer than the plaintext.
        let sealed = crypt(session, public, true, Some(C1C3C2), message).unwrap();
        assert_eq!(sealed.len(), 97 + message.len());
        assert_eq!(
            crypt(session, recipient, false, Some(C1C3C2), &sealed).unwrap(),
            message
        );
    });
}

#[test]
fn generated_keys_encrypt_and_persist_and_bad_requests_are_refused() {
    with_token(|_| {
        let session = open(GM);
        let (public, private) = generate(session, true).unwrap();
        for format in [None, Some(ASN1), Some(C1C3C2)] {
            for len in [1, 31, 32, 200] {
                let message = vec![0x5a; len];
                let sealed = crypt(session, public, true, format, &message).unwrap();
                assert_ne!(sealed[..], message[..]);
                assert_eq!(
                    crypt(session, private, false, format, &sealed).unwrap(),
                    message
                );
                assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            }
        }
        // The token key survives a new login (sealed at rest as PKCS#8) and still signs.
        assert_eq!(C_Logout(session), CKR_OK);
        let session = open(GM);
        let private = find_private(session, b"sm2-test");
        let signature = sign(session, private, None, b"after a new login").unwrap();
        assert_eq!(
            verify(session, public, None, b"after a new login", &signature),
            CKR_OK
        );

        // Bad requests.
        assert_eq!(
            crypt(session, public, true, None, b""),
            Err(CKR_DATA_LEN_RANGE)
        );
        assert_eq!(
            crypt(session, public, true, Some(7), b"data"),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // Encryption takes the public key, decryption the private one.
        assert_eq!(
            crypt(session, private, true, None, b"data"),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        let long_id = vec![b'a'; 8192];
        assert_eq!(
            sign(session, private, Some(&long_id), b"data"),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let longest_id = vec![b'a'; 8191];
        let signature = sign(session, private, Some(&longest_id), b"data").unwrap();
        assert_eq!(
            verify(session, public, Some(&longest_id), b"data", &signature),
            CKR_OK
        );
        // An SM2 key signs with SM2 only; a P-256 key does not sign with SM2.
        let mut ecdsa = mechanism(CKM_ECDSA_SHA256);
        // SAFETY: live locals.
        let rv = unsafe { C_SignInit(session, &mut ecdsa, private) };
        assert_eq!(rv, CKR_MECHANISM_INVALID, "gm lists no ECDSA");
        let other = open(DEFAULT);
        let mut p256_public = [bytes(CKA_EC_PARAMS, &P256_PARAMS)];
        let mut p256_private: [CK_ATTRIBUTE; 0] = [];
        let mut pair_gen = mechanism(CKM_EC_KEY_PAIR_GEN);
        let (mut p256, mut p256_key) = (0, 0);
        // SAFETY: live locals.
        let rv = unsafe {
            C_GenerateKeyPair(
                other,
                &mut pair_gen,
                p256_public.as_mut_ptr(),
                1,
                p256_private.as_mut_ptr(),
                0,
                &mut p256,
                &mut p256_key,
            )
        };
        assert_eq!(rv, CKR_OK);
        assert_eq!(
            sign(other, p256_key, None, b"data"),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        let (_, sm2_key) = generate(other, false).unwrap();
        let mut ecdsa = mechanism(CKM_ECDSA_SHA256);
        // SAFETY: live locals.
        let rv = unsafe { C_SignInit(other, &mut ecdsa, sm2_key) };
        assert_eq!(rv, CKR_KEY_TYPE_INCONSISTENT);
        let mut raw = mechanism(CKM_ECDSA);
        // SAFETY: live locals.
        let rv = unsafe { C_SignInit(other, &mut raw, sm2_key) };
        assert_eq!(rv, CKR_KEY_TYPE_INCONSISTENT);
        // The key-pair generator makes SM2 keys only.
        let mut p256_params = [bytes(CKA_EC_PARAMS, &P256_PARAMS)];
        let mut sm2_gen = mechanism(CKM_REGULA_SM2_KEY_PAIR_GEN);
        // SAFETY: live locals.
        let rv = unsafe {
            C_GenerateKeyPair(
                other,
                &mut sm2_gen,
                p256_params.as_mut_ptr(),
                1,
                p256_private.as_mut_ptr(),
                0,
                &mut p256,
                &mut p256_key,
            )
        };
        assert_eq!(rv, CKR_TEMPLATE_INCONSISTENT);
    });
}

#[test]
fn ecdh_gives_the_independent_answer_and_both_sides_agree() {
    with_token(|_| {
        let session = open(GM);
        let private = private_key(session, &D).unwrap();
        // The peer's point as a DER OCTET STRING and bare.
        let wrapped = [&[0x04, 0x41][..], &PEER].concat();
        for peer in [&PEER[..], &wrapped] {
            assert_eq!(
                derive(session, CKM_REGULA_SM2_ECDH, private, peer).unwrap(),
                SHARED_X
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        }
        let (a_public, a_private) = generate(session, false).unwrap();
        let (b_public, b_private) = generate(session, false).unwrap();
        let a = derive(
            session,
            CKM_REGULA_SM2_ECDH,
            a_private,
            &point_of(session, b_public),
        );
        let b = derive(
            session,
            CKM_REGULA_SM2_ECDH,
            b_private,
            &point_of(session, a_public),
        );
        assert_eq!(a.unwrap(), b.unwrap());
        // A point off the curve, a P-256 mechanism, no parameter.
        let mut off = PEER;
        off[64] ^= 1;
        assert_eq!(
            derive(session, CKM_REGULA_SM2_ECDH, private, &off),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        assert_eq!(
            derive(session, CKM_ECDH1_DERIVE, private, &PEER),
            Err(CKR_MECHANISM_INVALID)
        );
        let other = open(DEFAULT);
        let (_, sm2_key) = generate(other, false).unwrap();
        assert_eq!(
            derive(other, CKM_ECDH1_DERIVE, sm2_key, &PEER),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        let mut bare = mechanism(CKM_REGULA_SM2_ECDH);
        let class = CKO_SECRET_KEY;
        let mut template = [attribute(CKA_CLASS, &class)];
        let mut key = 0;
        // SAFETY: live locals.
        let rv = unsafe {
            C_DeriveKey(
                session,
                &mut bare,
                private,
                template.as_mut_ptr(),
                1,
                &mut key,
            )
        };
        assert_eq!(rv, CKR_MECHANISM_PARAM_INVALID);
    });
}

/// `C_EncryptUpdate` or `C_DecryptUpdate` (which give nothing: SM2 is single-part, the parts
/// are gathered) then the final call, with its length query.
fn crypt_in_parts(
    session: CK_SESSION_HANDLE,
    key: CK_OBJECT_HANDLE,
    encrypts: bool,
    parts: &[&[u8]],
) -> Result<Vec<u8>, CK_RV> {
    let mut mechanism = mechanism(CKM_REGULA_SM2_ENCRYPT);
    // SAFETY: live locals; the length protocol.
    unsafe {
        let rv = if encrypts {
            C_EncryptInit(session, &mut mechanism, key)
        } else {
            C_DecryptInit(session, &mut mechanism, key)
        };
        assert_eq!(rv, CKR_OK);
        for part in parts {
            let mut len = 0;
            let (data, data_len) = (part.as_ptr().cast_mut(), part.len() as CK_ULONG);
            let mut out = [0u8; 1];
            let rv = if encrypts {
                C_EncryptUpdate(session, data, data_len, out.as_mut_ptr(), &mut len)
            } else {
                C_DecryptUpdate(session, data, data_len, out.as_mut_ptr(), &mut len)
            };
            assert_eq!((rv, len), (CKR_OK, 0));
        }
        let finish = |output: *mut u8, len: &mut CK_ULONG| {
            if encrypts {
                C_EncryptFinal(session, output, len)
            } else {
                C_DecryptFinal(session, output, len)
            }
        };
        let mut len = 0;
        let rv = finish(null_mut(), &mut len);
        if rv != CKR_OK {
            return Err(rv);
        }
        let mut output = vec![0u8; len as usize];
        let rv = finish(output.as_mut_ptr(), &mut len);
        if rv != CKR_OK {
            return Err(rv);
        }
        output.truncate(len as usize);
        Ok(output)
    }
}

#[test]
fn parts_are_gathered_and_encrypted_at_the_end() {
    with_token(|_| {
        let session = open(GM);
        let private = private_key(session, &D).unwrap();
        let (head, tail) = ASN1_CIPHERTEXT.split_at(50);
        assert_eq!(
            crypt_in_parts(session, private, false, &[head, tail]).unwrap(),
            PLAINTEXT
        );
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        let public = public_key(session, &PUBLIC).unwrap();
        let sealed = crypt_in_parts(session, public, true, &[b"encryption ", b"standard"]).unwrap();
        assert_eq!(
            crypt(session, private, false, None, &sealed).unwrap(),
            PLAINTEXT
        );
        // Nothing to encrypt: refused at the end.
        assert_eq!(
            crypt_in_parts(session, public, true, &[]),
            Err(CKR_DATA_LEN_RANGE)
        );
    });
}
