//! PKCS#11 3.2 validation objects (`CKO_VALIDATION`, PKCS#11 3.2 §4.15): the `fips-140-3` slot
//! describes FIPS 140-3 under NIST's CMVP and the `gm` slot GM/T 0028, each object's
//! `CKA_VALIDATION_FLAG` is the bit `C_GetSessionValidationFlags` reports after an approved
//! operation, the objects are read-only public token objects, and a `default` slot has none.

use std::ptr::null_mut;

use hex_literal::hex;
use regula_pkcs11::*;

mod common;
use common::*;

/// The handles `C_FindObjects` gives for `template` (up to 16).
fn find(session: CK_SESSION_HANDLE, template: &mut [CK_ATTRIBUTE]) -> Vec<CK_OBJECT_HANDLE> {
    let mut found = [0; 16];
    let mut count = 0;
    // SAFETY: live locals.
    unsafe {
        assert_eq!(
            C_FindObjectsInit(session, template.as_mut_ptr(), template.len() as CK_ULONG),
            CKR_OK
        );
        assert_eq!(
            C_FindObjects(session, found.as_mut_ptr(), 16, &mut count),
            CKR_OK
        );
        assert_eq!(C_FindObjectsFinal(session), CKR_OK);
    }
    found[..count as usize].to_vec()
}

fn validation_objects(session: CK_SESSION_HANDLE) -> Vec<CK_OBJECT_HANDLE> {
    let class = CKO_VALIDATION;
    find(session, &mut [attribute(CKA_CLASS, &class)])
}

fn ulong(
    session: CK_SESSION_HANDLE,
    object: CK_OBJECT_HANDLE,
    kind: CK_ATTRIBUTE_TYPE,
) -> CK_ULONG {
    let value = read(session, object, kind).unwrap();
    CK_ULONG::from_ne_bytes(value.try_into().expect("a CK_ULONG"))
}

/// SHA-256("abc") through the session (FIPS 180-4's example): an operation every slot here
/// but `gm` approves.
fn digest_abc(session: CK_SESSION_HANDLE) -> Vec<u8> {
    let mut mechanism = mechanism(CKM_SHA256);
    let mut out = [0u8; 32];
    let mut len = 32;
    // SAFETY: live locals.
    unsafe {
        assert_eq!(C_DigestInit(session, &mut mechanism), CKR_OK);
        let rv = C_Digest(
            session,
            b"abc".as_ptr().cast_mut(),
            3,
            out.as_mut_ptr(),
            &mut len,
        );
        assert_eq!(rv, CKR_OK);
    }
    out[..len as usize].to_vec()
}

#[test]
fn the_fips_slot_describes_fips_140_3_and_its_flag_is_the_indicators() {
    with_token(|_| {
        // Public objects: seen before anyone logs in.
        let session = open_session(FIPS);
        let found = validation_objects(session);
        assert_eq!(
            found.len(),
            1,
            "one validation object on the fips-140-3 slot"
        );
        let object = found[0];
        assert_eq!(ulong(session, object, CKA_CLASS), CKO_VALIDATION);
        assert_eq!(
            ulong(session, object, CKA_VALIDATION_TYPE),
            CKV_TYPE_SOFTWARE
        );
        assert_eq!(
            ulong(session, object, CKA_VALIDATION_AUTHORITY_TYPE),
            CKV_AUTHORITY_TYPE_NIST_CMVP
        );
        // CK_VERSION { major 3, minor 0 }: FIPS 140-3.
        assert_eq!(
            read(session, object, CKA_VALIDATION_VERSION).unwrap(),
            [3, 0]
        );
        assert_eq!(ulong(session, object, CKA_VALIDATION_LEVEL), 1);
        assert_eq!(
            read(session, object, CKA_VALIDATION_COUNTRY).unwrap(),
            b"US"
        );
        assert_eq!(
            read(session, object, CKA_VALIDATION_PROFILE).unwrap(),
            b"fips-140-3"
        );
        let module_id = read(session, object, CKA_VALIDATION_MODULE_ID).unwrap();
        assert!(String::from_utf8(module_id).unwrap().starts_with("Regula "));
        // No certificate is claimed.
        for kind in [
            CKA_VALIDATION_CERTIFICATE_IDENTIFIER,
            CKA_VALIDATION_CERTIFICATE_URI,
            CKA_VALIDATION_VENDOR_URI,
        ] {
            assert_eq!(read(session, object, kind).unwrap(), b"");
        }
        for (kind, value) in [
            (CKA_TOKEN, TRUE),
            (CKA_PRIVATE, FALSE),
            (CKA_MODIFIABLE, FALSE),
            (CKA_DESTROYABLE, FALSE),
        ] {
            assert_eq!(read(session, object, kind).unwrap(), [value], "{kind:#x}");
        }
        assert_eq!(
            read(session, object, CKA_VALUE),
            Err(CKR_ATTRIBUTE_TYPE_INVALID)
        );

        // The object's flag is the bit an approved operation sets in the session.
        assert_eq!(
            digest_abc(session),
            hex!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        let flag = ulong(session, object, CKA_VALIDATION_FLAG);
        assert_ne!(flag, 0);
        assert_eq!(validation_flags(session), flag);

        // Found by its own attributes too, and by a mismatching one not at all.
        let authority = CKV_AUTHORITY_TYPE_NIST_CMVP;
        assert_eq!(
            find(
                session,
                &mut [attribute(CKA_VALIDATION_AUTHORITY_TYPE, &authority)]
            ),
            [object]
        );
        let other = CKV_AUTHORITY_TYPE_COMMON_CRITERIA;
        assert!(
            find(
                session,
                &mut [attribute(CKA_VALIDATION_AUTHORITY_TYPE, &other)]
            )
            .is_empty()
        );

        // Read only, even for the SO in a read-write session.
        assert_eq!(login(session, CKU_SO, SO_PIN), CKR_OK);
        let label = b"changed";
        let mut template = [bytes(CKA_LABEL, label)];
        // SAFETY: live locals.
        unsafe {
            assert_eq!(
                C_SetAttributeValue(session, object, template.as_mut_ptr(), 1),
                CKR_ACTION_PROHIBITED
            );
            assert_eq!(C_DestroyObject(session, object), CKR_ACTION_PROHIBITED);
        }
        assert_eq!(validation_objects(session), [object]);

        // Another slot's session does not see it, and it is no key.
        let default = open_session(DEFAULT);
        assert!(
            validation_objects(default).is_empty(),
            "default follows no scheme"
        );
        assert_eq!(
            read(default, object, CKA_CLASS),
            Err(CKR_OBJECT_HANDLE_INVALID)
        );
        let mut sha = mechanism(CKM_SHA256_HMAC);
        // SAFETY: live locals.
        let rv = unsafe { C_SignInit(session, &mut sha, object) };
        assert!(
            rv == CKR_KEY_HANDLE_INVALID || rv == CKR_OBJECT_HANDLE_INVALID,
            "{rv:#x}"
        );
    });
}

#[test]
fn the_gm_slot_describes_gm_t_0028() {
    with_token(|_| {
        let session = open_session(GM);
        let found = validation_objects(session);
        assert_eq!(found.len(), 1);
        let object = found[0];
        assert_eq!(
            read(session, object, CKA_VALIDATION_COUNTRY).unwrap(),
            b"CN"
        );
        assert_eq!(
            read(session, object, CKA_VALIDATION_PROFILE).unwrap(),
            b"gm"
        );
        assert_eq!(read(session, object, CKA_LABEL).unwrap(), b"GM/T 0028-2014");
        // PKCS#11 has no code for China's certification authority.
        assert_eq!(
            ulong(session, object, CKA_VALIDATION_AUTHORITY_TYPE),
            CKV_AUTHORITY_TYPE_UNSPECIFIED
        );
        // The length protocol: a NULL value gives the length, a short buffer
        // CKR_BUFFER_TOO_SMALL.
        let mut country = [0u8; 1];
        let mut template = [CK_ATTRIBUTE {
            type_: CKA_VALIDATION_COUNTRY,
            pValue: null_mut(),
            ulValueLen: 0,
        }];
        // SAFETY: live locals.
        unsafe {
            assert_eq!(
                C_GetAttributeValue(session, object, template.as_mut_ptr(), 1),
                CKR_OK
            );
            assert_eq!(template[0].ulValueLen, 2);
            template[0].pValue = country.as_mut_ptr().cast();
            template[0].ulValueLen = 1;
            assert_eq!(
                C_GetAttributeValue(session, object, template.as_mut_ptr(), 1),
                CKR_BUFFER_TOO_SMALL
            );
        }
        assert_eq!(template[0].ulValueLen, CK_UNAVAILABLE_INFORMATION);
        assert_eq!(country, [0]);
    });
}
