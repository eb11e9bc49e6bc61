//! PKCS#11 3.2 ML-KEM: key pairs, `C_EncapsulateKey` / `C_DecapsulateKey` round trips, and
//! NIST ACVP decapsulation known answers (ML-KEM-768 and -1024, as OpenSSL's evp_test carries
//! them in crates/regula-vectors) through decapsulation keys given to `C_CreateObject`.

mod common;

use std::ptr::null_mut;

use common::*;
use cryptoki_sys::*;
use regula_pkcs11::*;

/// An ACVP encapDecap "decapsulation" case: parameter set, dk, ciphertext, shared secret.
type DecapsulationCase = (CK_ULONG, Vec<u8>, Vec<u8>, Vec<u8>);

fn acvp_decapsulation_cases() -> Vec<DecapsulationCase> {
    let text = include_str!(
        "../../regula-vectors/tests/data/openssl-ml-kem/evppkey_ml_kem_encap_decap.txt"
    );
    let mut cases = Vec::new();
    let (mut set, mut dk, mut ct) = (None, None, None);
    for line in text.lines() {
        let Some((key, value)) = line.split_once(" = ") else {
            continue;
        };
        match key {
            "Kem" => {
                set = match value {
                    "ML-KEM-768" => Some(CKP_ML_KEM_768),
                    "ML-KEM-1024" => Some(CKP_ML_KEM_1024),
                    _ => None,
                };
                (dk, ct) = (None, None);
            }
            "EncodedPrivateKey" => dk = Some(unhex(value)),
            "Input" => ct = Some(unhex(value)),
            "Output" => {
                if let (Some(set), Some(dk), Some(ct)) = (set, dk.take(), ct.take()) {
                    cases.push((set, dk, ct, unhex(value)));
                }
            }
            _ => {}
        }
    }
    cases
}

fn ml_kem_key_pair(
    session: CK_SESSION_HANDLE,
    parameter_set: CK_ULONG,
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE), CK_RV> {
    ml_kem_pair_kept(session, parameter_set, false)
}

/// A key pair, kept on the token (`CKA_TOKEN`) if `token`.
fn ml_kem_pair_kept(
    session: CK_SESSION_HANDLE,
    parameter_set: CK_ULONG,
    token: bool,
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE), CK_RV> {
    let token = if token { TRUE } else { FALSE };
    let mut public = [
        attribute(CKA_PARAMETER_SET, &parameter_set),
        attribute(CKA_ENCAPSULATE, &TRUE),
        attribute(CKA_TOKEN, &token),
    ];
    let mut private = [
        attribute(CKA_KEY_TYPE, &CKK_ML_KEM),
        attribute(CKA_SENSITIVE, &TRUE),
        attribute(CKA_DECAPSULATE, &TRUE),
        attribute(CKA_TOKEN, &token),
    ];
    let mut mechanism = mechanism(CKM_ML_KEM_KEY_PAIR_GEN);
    generate_key_pair(session, &mut mechanism, &mut public, &mut private)
}

/// The template of the shared secret's key: a generic secret, extractable so the test can
/// compare it.
fn secret_template() -> [CK_ATTRIBUTE; 4] {
    [
        attribute(CKA_CLASS, &CKO_SECRET_KEY),
        attribute(CKA_KEY_TYPE, &CKK_GENERIC_SECRET),
        attribute(CKA_SENSITIVE, &FALSE),
        attribute(CKA_EXTRACTABLE, &TRUE),
    ]
}

fn encapsulate(
    session: CK_SESSION_HANDLE,
    public: CK_OBJECT_HANDLE,
) -> Result<(Vec<u8>, CK_OBJECT_HANDLE), CK_RV> {
    let mut mechanism = mechanism(CKM_ML_KEM);
    let mut template = secret_template();
    let (mut len, mut key) = (0, 0);
    // SAFETY: live locals; the length protocol.
    unsafe {
        let rv = C_EncapsulateKey(
            session,
            &mut mechanism,
            public,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            null_mut(),
            &mut len,
            &mut key,
        );
        if rv != CKR_OK {
            return Err(rv);
        }
        let mut ciphertext = vec![0u8; len as usize];
        let rv = C_EncapsulateKey(
            session,
            &mut mechanism,
            public,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            ciphertext.as_mut_ptr(),
            &mut len,
            &mut key,
        );
        if rv != CKR_OK {
            return Err(rv);
        }
        ciphertext.truncate(len as usize);
        Ok((ciphertext, key))
    }
}

fn decapsulate(
    session: CK_SESSION_HANDLE,
    private: CK_OBJECT_HANDLE,
    ciphertext: &[u8],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let mut mechanism = mechanism(CKM_ML_KEM);
    let mut template = secret_template();
    let mut key = 0;
    // SAFETY: live locals.
    let rv = unsafe {
        C_DecapsulateKey(
            session,
            &mut mechanism,
            private,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            ciphertext.as_ptr().cast_mut(),
            ciphertext.len() as CK_ULONG,
            &mut key,
        )
    };
    if rv != CKR_OK {
        return Err(rv);
    }
    Ok(key)
}

#[test]
fn ml_kem_encapsulates_and_decapsulates_the_same_secret() {
    with_token(|_| {
        let session = open(FIPS);
        for (set, public_len, ciphertext_len) in
            [(CKP_ML_KEM_768, 1184, 1088), (CKP_ML_KEM_1024, 1568, 1568)]
        {
            let (public, private) = ml_kem_key_pair(session, set).unwrap();
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY, "keygen");
            assert_eq!(read(session, public, CKA_VALUE).unwrap().len(), public_len);
            assert_eq!(
                read(session, private, CKA_VALUE),
                Err(CKR_ATTRIBUTE_SENSITIVE)
            );
            assert_eq!(
                read(session, private, CKA_PARAMETER_SET).unwrap(),
                set.to_ne_bytes()
            );
            let (ciphertext, sent) = encapsulate(session, public).unwrap();
            assert_eq!(
                validation_flags(session),
                VALIDATION_FLAG_POLICY,
                "encapsulate"
            );
            assert_eq!(ciphertext.len(), ciphertext_len);
            let received = decapsulate(session, private, &ciphertext).unwrap();
            assert_eq!(
                validation_flags(session),
                VALIDATION_FLAG_POLICY,
                "decapsulate"
            );
            let secret = read(session, sent, CKA_VALUE).unwrap();
            assert_eq!(secret.len(), 32);
            assert_eq!(read(session, received, CKA_VALUE).unwrap(), secret);
            // A changed ciphertext gives another secret (FIPS 203's implicit rejection).
            let mut tampered = ciphertext.clone();
            tampered[0] ^= 1;
            let other = decapsulate(session, private, &tampered).unwrap();
            assert_ne!(read(session, other, CKA_VALUE).unwrap(), secret);
            assert_eq!(
                decapsulate(session, private, &ciphertext[1..]),
                Err(CKR_ENCRYPTED_DATA_LEN_RANGE)
            );
            // The keys' roles are not swapped.
            assert_eq!(
                decapsulate(session, public, &ciphertext),
                Err(CKR_KEY_TYPE_INCONSISTENT)
            );
            assert_eq!(
                encapsulate(session, private),
                Err(CKR_KEY_TYPE_INCONSISTENT)
            );
        }
        // gm serves no ML-KEM.
        let gm = open(GM);
        assert_eq!(
            ml_kem_key_pair(gm, CKP_ML_KEM_768),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}

#[test]
fn ml_kem_decapsulates_acvp_ciphertexts() {
    with_token(|_| {
        let session = open(DEFAULT);
        let cases = acvp_decapsulation_cases();
        assert_eq!(cases.len(), 20);
        for (set, dk, ciphertext, shared_secret) in cases {
            let mut template = [
                attribute(CKA_CLASS, &CKO_PRIVATE_KEY),
                attribute(CKA_KEY_TYPE, &CKK_ML_KEM),
                attribute(CKA_PARAMETER_SET, &set),
                bytes(CKA_VALUE, &dk),
            ];
            let mut private = 0;
            // SAFETY: a template of live locals.
            let rv = unsafe {
                C_CreateObject(
                    session,
                    template.as_mut_ptr(),
                    template.len() as CK_ULONG,
                    &mut private,
                )
            };
            assert_eq!(rv, CKR_OK);
            let key = decapsulate(session, private, &ciphertext).unwrap();
            assert_eq!(read(session, key, CKA_VALUE).unwrap(), shared_secret);
        }
    });
}

#[test]
fn ml_kem_token_keys_survive_a_restart_and_decapsulate_what_was_sent_before() {
    with_token(|_| {
        let session = open(FIPS);
        let (public, _) = ml_kem_pair_kept(session, CKP_ML_KEM_1024, true).unwrap();
        let encapsulation_key = read(session, public, CKA_VALUE).unwrap();
        let (ciphertext, sent) = encapsulate(session, public).unwrap();
        let secret = read(session, sent, CKA_VALUE).unwrap();
        // SAFETY: NULL arguments.
        unsafe {
            assert_eq!(C_Finalize(null_mut()), CKR_OK);
            assert_eq!(C_Initialize(null_mut()), CKR_OK);
        }
        let session = open(FIPS);
        let find = |class: CK_OBJECT_CLASS| {
            let mut template = [
                attribute(CKA_KEY_TYPE, &CKK_ML_KEM),
                attribute(CKA_CLASS, &class),
            ];
            let mut found = [0; 4];
            let mut count = 0;
            // SAFETY: live locals.
            unsafe {
                assert_eq!(C_FindObjectsInit(session, template.as_mut_ptr(), 2), CKR_OK);
                assert_eq!(
                    C_FindObjects(session, found.as_mut_ptr(), 4, &mut count),
                    CKR_OK
                );
                assert_eq!(C_FindObjectsFinal(session), CKR_OK);
            }
            assert_eq!(count, 1, "one kept key of class {class}");
            found[0]
        };
        let (public, private) = (find(CKO_PUBLIC_KEY), find(CKO_PRIVATE_KEY));
        assert_eq!(read(session, public, CKA_VALUE).unwrap(), encapsulation_key);
        assert_eq!(
            read(session, private, CKA_PARAMETER_SET).unwrap(),
            CKP_ML_KEM_1024.to_ne_bytes()
        );
        assert_eq!(read(session, private, CKA_DECAPSULATE).unwrap(), [TRUE]);
        assert_eq!(
            read(session, private, CKA_VALUE),
            Err(CKR_ATTRIBUTE_SENSITIVE)
        );
        let received = decapsulate(session, private, &ciphertext).unwrap();
        assert_eq!(read(session, received, CKA_VALUE).unwrap(), secret);
        // A read-only session keeps no token key.
        let mut read_only = 0;
        // SAFETY: a live local.
        unsafe {
            assert_eq!(
                C_OpenSession(FIPS, CKF_SERIAL_SESSION, null_mut(), None, &mut read_only),
                CKR_OK
            );
        }
        assert_eq!(
            ml_kem_pair_kept(read_only, CKP_ML_KEM_768, true),
            Err(CKR_SESSION_READ_ONLY)
        );
    });
}
