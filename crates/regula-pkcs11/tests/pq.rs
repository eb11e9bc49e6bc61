//! PKCS#11 3.2 ML-DSA: key pairs, pure signing with and without a context string, known
//! answers from Wycheproof (C2SP) verified through `C_CreateObject` public keys, tampering
//! refused, the FIPS indicator, and keys kept on the token across a restart.

mod common;

use std::ptr::null_mut;

use common::*;
use cryptoki_sys::*;
use regula_pkcs11::*;

/// The Wycheproof cases of `tests/data/ml-dsa-44-wycheproof.txt`: (public key as
/// SubjectPublicKeyInfo, message, context, signature).
fn wycheproof_cases() -> Vec<[Vec<u8>; 4]> {
    let text = include_str!("data/ml-dsa-44-wycheproof.txt");
    let mut cases = Vec::new();
    let mut fields = Vec::new();
    for line in text.lines() {
        let Some((_, hex)) = line.split_once(" = ") else {
            continue;
        };
        fields.push(unhex(hex));
        if fields.len() == 4 {
            let [spki, msg, ctx, sig]: [Vec<u8>; 4] =
                std::mem::take(&mut fields).try_into().unwrap();
            cases.push([spki, msg, ctx, sig]);
        }
    }
    cases
}

fn ml_dsa_key_pair(
    session: CK_SESSION_HANDLE,
    parameter_set: CK_ULONG,
    token: bool,
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE), CK_RV> {
    let token = if token { TRUE } else { FALSE };
    let mut public = [
        attribute(CKA_TOKEN, &token),
        attribute(CKA_PARAMETER_SET, &parameter_set),
        attribute(CKA_VERIFY, &TRUE),
        bytes(CKA_LABEL, b"ml-dsa key"),
    ];
    let mut private = [
        attribute(CKA_TOKEN, &token),
        attribute(CKA_KEY_TYPE, &CKK_ML_DSA),
        attribute(CKA_SENSITIVE, &TRUE),
        attribute(CKA_SIGN, &TRUE),
        bytes(CKA_LABEL, b"ml-dsa key"),
    ];
    let mut mechanism = mechanism(CKM_ML_DSA_KEY_PAIR_GEN);
    generate_key_pair(session, &mut mechanism, &mut public, &mut private)
}

/// `CKM_ML_DSA`, with a `CK_SIGN_ADDITIONAL_CONTEXT` when `context` is given.
fn sign(
    session: CK_SESSION_HANDLE,
    key: CK_OBJECT_HANDLE,
    context: Option<(&[u8], CK_ULONG)>,
    message: &[u8],
) -> Result<Vec<u8>, CK_RV> {
    let mut params = context.map(|(context, hedge)| CK_SIGN_ADDITIONAL_CONTEXT {
        hedgeVariant: hedge,
        pContext: context.as_ptr().cast_mut(),
        ulContextLen: context.len() as CK_ULONG,
    });
    let mut mechanism = match &mut params {
        Some(params) => with_param(CKM_ML_DSA, params),
        None => mechanism(CKM_ML_DSA),
    };
    sign_with(session, &mut mechanism, key, message)
}

fn verify(
    session: CK_SESSION_HANDLE,
    key: CK_OBJECT_HANDLE,
    context: &[u8],
    message: &[u8],
    signature: &[u8],
) -> CK_RV {
    let mut params = CK_SIGN_ADDITIONAL_CONTEXT {
        hedgeVariant: CKH_HEDGE_PREFERRED,
        pContext: context.as_ptr().cast_mut(),
        ulContextLen: context.len() as CK_ULONG,
    };
    let mut mechanism = with_param(CKM_ML_DSA, &mut params);
    verify_with(session, &mut mechanism, key, message, signature)
}

/// `C_CreateObject` of an ML-DSA public key from its encoded value.
fn create_public(
    session: CK_SESSION_HANDLE,
    parameter_set: CK_ULONG,
    value: &[u8],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let mut template = [
        attribute(CKA_CLASS, &CKO_PUBLIC_KEY),
        attribute(CKA_KEY_TYPE, &CKK_ML_DSA),
        attribute(CKA_PARAMETER_SET, &parameter_set),
        attribute(CKA_VERIFY, &TRUE),
        bytes(CKA_VALUE, value),
    ];
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
    if rv != CKR_OK {
        return Err(rv);
    }
    Ok(handle)
}

fn mechanism_list(slot: CK_SLOT_ID) -> Vec<CK_MECHANISM_TYPE> {
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
fn ml_dsa_is_listed_where_the_policy_serves_it() {
    with_token(|_| {
        for slot in [FIPS, DEFAULT] {
            let list = mechanism_list(slot);
            assert!(list.contains(&CKM_ML_DSA), "slot {slot}");
            assert!(list.contains(&CKM_ML_DSA_KEY_PAIR_GEN), "slot {slot}");
        }
        let gm = mechanism_list(GM);
        assert!(!gm.contains(&CKM_ML_DSA) && !gm.contains(&CKM_ML_DSA_KEY_PAIR_GEN));
        let session = open(GM);
        assert_eq!(
            ml_dsa_key_pair(session, CKP_ML_DSA_44, false),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}

#[test]
fn ml_dsa_signs_and_verifies_on_every_parameter_set() {
    with_token(|_| {
        let session = open(FIPS);
        for (set, public_len, signature_len) in [
            (CKP_ML_DSA_44, 1312, 2420),
            (CKP_ML_DSA_65, 1952, 3309),
            (CKP_ML_DSA_87, 2592, 4627),
        ] {
            let (public, private) = ml_dsa_key_pair(session, set, false).unwrap();
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY, "keygen");
            assert_eq!(
                read(session, public, CKA_KEY_TYPE).unwrap(),
                CKK_ML_DSA.to_ne_bytes()
            );
            assert_eq!(
                read(session, private, CKA_PARAMETER_SET).unwrap(),
                set.to_ne_bytes()
            );
            assert_eq!(read(session, public, CKA_VALUE).unwrap().len(), public_len);
            assert_eq!(
                read(session, private, CKA_VALUE),
                Err(CKR_ATTRIBUTE_SENSITIVE)
            );
            let message = b"PKCS#11 3.2 ML-DSA";
            let signature = sign(session, private, None, message).unwrap();
            assert_eq!(signature.len(), signature_len);
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY, "sign");
            assert_eq!(verify(session, public, b"", message, &signature), CKR_OK);
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY, "verify");
            // Tampered message, signature, or another context: refused.
            assert_eq!(
                verify(session, public, b"", b"PKCS#11 3.2 ML-DSa", &signature),
                CKR_SIGNATURE_INVALID
            );
            let mut tampered = signature.clone();
            tampered[10] ^= 1;
            assert_eq!(
                verify(session, public, b"", message, &tampered),
                CKR_SIGNATURE_INVALID
            );
            assert_eq!(
                verify(session, public, b"x", message, &signature),
                CKR_SIGNATURE_INVALID
            );
            assert_eq!(
                verify(session, public, b"", message, &signature[1..]),
                CKR_SIGNATURE_LEN_RANGE
            );
            // The public key re-created from its CKA_VALUE verifies the same signature.
            let value = read(session, public, CKA_VALUE).unwrap();
            let created = create_public(session, set, &value).unwrap();
            assert_eq!(verify(session, created, b"", message, &signature), CKR_OK);
        }
    });
}

#[test]
fn ml_dsa_verifies_wycheproof_signatures_with_a_context() {
    with_token(|_| {
        let session = open(DEFAULT);
        let cases = wycheproof_cases();
        assert_eq!(cases.len(), 2);
        for [spki, msg, ctx, sig] in cases {
            // RFC 9881's SubjectPublicKeyInfo ends with the 1312-byte encoded key.
            let value = &spki[spki.len() - 1312..];
            let key = create_public(session, CKP_ML_DSA_44, value).unwrap();
            assert_eq!(verify(session, key, &ctx, &msg, &sig), CKR_OK);
            assert_eq!(verify(session, key, b"", &msg, &sig), CKR_SIGNATURE_INVALID);
            let mut other = ctx.clone();
            other[0] ^= 1;
            assert_eq!(
                verify(session, key, &other, &msg, &sig),
                CKR_SIGNATURE_INVALID
            );
        }
    });
}

#[test]
fn ml_dsa_context_and_hedging_parameters() {
    with_token(|_| {
        let session = open(DEFAULT);
        let (public, private) = ml_dsa_key_pair(session, CKP_ML_DSA_65, false).unwrap();
        let message = b"with a context";
        for hedge in [CKH_HEDGE_PREFERRED, CKH_HEDGE_REQUIRED] {
            let signature = sign(session, private, Some((b"ctx", hedge)), message).unwrap();
            assert_eq!(verify(session, public, b"ctx", message, &signature), CKR_OK);
            assert_eq!(
                verify(session, public, b"", message, &signature),
                CKR_SIGNATURE_INVALID
            );
        }
        // The module signs hedged only; a context string is at most 255 bytes (FIPS 204).
        assert_eq!(
            sign(
                session,
                private,
                Some((b"", CKH_DETERMINISTIC_REQUIRED)),
                message
            ),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        assert_eq!(
            sign(
                session,
                private,
                Some((&[7u8; 256], CKH_HEDGE_PREFERRED)),
                message
            ),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // A public key does not sign, a private key does not verify.
        assert_eq!(
            sign(session, public, None, message),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        assert_eq!(
            verify(session, private, b"", message, &[0; 3309]),
            CKR_KEY_TYPE_INCONSISTENT
        );
        // A public key of the wrong length, or an unknown parameter set, is refused.
        assert_eq!(
            create_public(session, CKP_ML_DSA_65, &[0; 1312]),
            Err(CKR_ATTRIBUTE_VALUE_INVALID)
        );
        assert_eq!(
            create_public(session, 9, &[0; 1312]),
            Err(CKR_ATTRIBUTE_VALUE_INVALID)
        );
    });
}

#[test]
fn ml_dsa_token_keys_survive_a_restart() {
    with_token(|_| {
        let session = open(FIPS);
        let (public, private) = ml_dsa_key_pair(session, CKP_ML_DSA_44, true).unwrap();
        let value = read(session, public, CKA_VALUE).unwrap();
        let message = b"kept on the token";
        let signature = sign(session, private, None, message).unwrap();
        // SAFETY: NULL arguments.
        unsafe {
            assert_eq!(C_Finalize(null_mut()), CKR_OK);
            assert_eq!(C_Initialize(null_mut()), CKR_OK);
        }
        let session = open(FIPS);
        let mut template = [attribute(CKA_KEY_TYPE, &CKK_ML_DSA)];
        let mut found = [0; 4];
        let mut count = 0;
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_FindObjectsInit(session, template.as_mut_ptr(), 1), CKR_OK);
            assert_eq!(
                C_FindObjects(session, found.as_mut_ptr(), 4, &mut count),
                CKR_OK
            );
            assert_eq!(C_FindObjectsFinal(session), CKR_OK);
        }
        assert_eq!(count, 2);
        let class_of = |handle| read(session, handle, CKA_CLASS).unwrap();
        let (public, private) = if class_of(found[0]) == CKO_PUBLIC_KEY.to_ne_bytes() {
            (found[0], found[1])
        } else {
            (found[1], found[0])
        };
        assert_eq!(read(session, public, CKA_VALUE).unwrap(), value);
        assert_eq!(
            read(session, private, CKA_PARAMETER_SET).unwrap(),
            CKP_ML_DSA_44.to_ne_bytes()
        );
        assert_eq!(verify(session, public, b"", message, &signature), CKR_OK);
        let again = sign(session, private, None, message).unwrap();
        assert_eq!(verify(session, public, b"", message, &again), CKR_OK);
    });
}
