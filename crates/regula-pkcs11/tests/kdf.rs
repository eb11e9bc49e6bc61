//! Key derivation through the token's exported C functions: HKDF (`CKM_HKDF_DERIVE`), SP 800-108
//! counter mode (`CKM_SP800_108_COUNTER_KDF`) and PBKDF2 (`CKM_PKCS5_PBKD2`). Known answers:
//! RFC 5869 Appendix A test cases 1 to 3 (HKDF-SHA256), NIST CAVP KBKDF counter mode
//! (HMAC_SHA256, counter before the fixed input, 32 bits; as cryptography-vectors'
//! nist-800-108-KBKDF-CTR.txt holds them), RFC 7914 §11 (PBKDF2-HMAC-SHA256), and
//! pyca/cryptography's PBKDF2HMAC for inputs `fips-140-3` approves. The configuration is the
//! README's example (a `fips-140-3` and a `default` slot) plus `gm`.

use std::ptr::null_mut;

use hex_literal::hex;
use regula_pkcs11::*;

mod common;
use common::*;

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

/// A session secret key of `key_type` holding `value`, allowed to derive when `derive`.
fn base_key(
    session: CK_SESSION_HANDLE,
    key_type: CK_KEY_TYPE,
    value: &[u8],
    derive: bool,
) -> CK_OBJECT_HANDLE {
    let class = CKO_SECRET_KEY;
    let derive = if derive { TRUE } else { FALSE };
    create(
        session,
        &mut [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            bytes(CKA_VALUE, value),
            attribute(CKA_DERIVE, &derive),
        ],
    )
    .unwrap()
}

/// `C_DeriveKey` into a readable session secret key of `key_type` (`len` bytes if given): its
/// handle.
fn derive(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    base: CK_OBJECT_HANDLE,
    key_type: CK_KEY_TYPE,
    len: Option<CK_ULONG>,
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
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
    let mut key = 0;
    // SAFETY: the mechanism, template and handle are live locals.
    let rv = unsafe {
        C_DeriveKey(
            session,
            mechanism,
            base,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            &mut key,
        )
    };
    if rv == CKR_OK { Ok(key) } else { Err(rv) }
}

/// [`derive`] of a generic secret; its value.
fn derive_value(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    base: CK_OBJECT_HANDLE,
    len: Option<CK_ULONG>,
) -> Result<Vec<u8>, CK_RV> {
    let key = derive(session, mechanism, base, CKK_GENERIC_SECRET, len)?;
    Ok(read(session, key, CKA_VALUE).unwrap())
}

fn mechanism_list(slot: CK_SLOT_ID) -> Vec<CK_MECHANISM_TYPE> {
    let mut count = 0;
    // SAFETY: the length protocol with live locals.
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

// ---- HKDF ----------------------------------------------------------------------------------

/// `CK_HKDF_PARAMS` over buffers that must outlive its use: the salt as data (`Some`), or none
/// (`CKF_HKDF_SALT_NULL`).
fn hkdf_params(
    extract: bool,
    expand: bool,
    prf: CK_MECHANISM_TYPE,
    salt: Option<&[u8]>,
    info: &[u8],
) -> CK_HKDF_PARAMS {
    let (salt_type, salt) = match salt {
        Some(salt) => (CKF_HKDF_SALT_DATA, salt),
        None => (CKF_HKDF_SALT_NULL, &[][..]),
    };
    CK_HKDF_PARAMS {
        bExtract: extract.into(),
        bExpand: expand.into(),
        prfHashMechanism: prf,
        ulSaltType: salt_type,
        pSalt: salt.as_ptr().cast_mut(),
        ulSaltLen: salt.len() as CK_ULONG,
        hSaltKey: 0,
        pInfo: info.as_ptr().cast_mut(),
        ulInfoLen: info.len() as CK_ULONG,
    }
}

/// RFC 5869 Appendix A: IKM, salt (`None`: not provided), info, L, PRK, OKM.
struct HkdfCase {
    ikm: Vec<u8>,
    salt: Option<Vec<u8>>,
    info: Vec<u8>,
    prk: Vec<u8>,
    okm: Vec<u8>,
}

fn rfc5869_cases() -> [HkdfCase; 3] {
    [
        HkdfCase {
            ikm: vec![0x0b; 22],
            salt: Some((0x00..=0x0c).collect()),
            info: (0xf0..=0xf9).collect(),
            prk: hex!("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5").to_vec(),
            okm: hex!(
                "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                "34007208d5b887185865"
            )
            .to_vec(),
        },
        HkdfCase {
            ikm: (0x00..=0x4f).collect(),
            salt: Some((0x60..=0xaf).collect()),
            info: (0xb0..=0xff).collect(),
            prk: hex!("06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244").to_vec(),
            okm: hex!(
                "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                "cc30c58179ec3e87c14c01d5c1f3434f1d87"
            )
            .to_vec(),
        },
        HkdfCase {
            ikm: vec![0x0b; 22],
            salt: None,
            info: Vec::new(),
            prk: hex!("19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04").to_vec(),
            okm: hex!(
                "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
                "9d201395faa4b61a96c8"
            )
            .to_vec(),
        },
    ]
}

#[test]
fn hkdf_gives_rfc_5869s_answers_extracting_expanding_or_both() {
    with_token(|_| {
        let session = open(DEFAULT);
        for (number, case) in rfc5869_cases().iter().enumerate() {
            let base = base_key(session, CKK_GENERIC_SECRET, &case.ikm, true);
            let salt = case.salt.as_deref();
            let mut params = hkdf_params(true, true, CKM_SHA256, salt, &case.info);
            let mut both = with_param(CKM_HKDF_DERIVE, &mut params);
            let okm_len = Some(case.okm.len() as CK_ULONG);
            assert_eq!(
                derive_value(session, &mut both, base, okm_len).as_deref(),
                Ok(&case.okm[..]),
                "test case {}",
                number + 1
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);

            // Extract alone gives the PRK (HashLen bytes; a template may not ask for more).
            let mut params = hkdf_params(true, false, CKM_SHA256, salt, &case.info);
            let mut extract = with_param(CKM_HKDF_DERIVE, &mut params);
            let prk = derive(session, &mut extract, base, CKK_HKDF, None).unwrap();
            assert_eq!(read(session, prk, CKA_VALUE).unwrap(), case.prk);
            assert_eq!(
                derive(session, &mut extract, base, CKK_GENERIC_SECRET, Some(48)),
                Err(CKR_TEMPLATE_INCONSISTENT)
            );

            // Expand alone from the PRK, now a CKK_HKDF key that may derive.
            let prk = base_key(session, CKK_HKDF, &case.prk, true);
            let mut params = hkdf_params(false, true, CKM_SHA256, None, &case.info);
            let mut expand = with_param(CKM_HKDF_DERIVE, &mut params);
            assert_eq!(
                derive_value(session, &mut expand, prk, okm_len).as_deref(),
                Ok(&case.okm[..])
            );
        }
    });
}

#[test]
fn hkdf_takes_its_salt_from_a_key_and_makes_keys_of_other_types() {
    with_token(|_| {
        let session = open(FIPS);
        let [case, ..] = rfc5869_cases();
        let base = base_key(session, CKK_GENERIC_SECRET, &case.ikm, true);
        let salt_key = base_key(
            session,
            CKK_GENERIC_SECRET,
            case.salt.as_deref().unwrap(),
            false,
        );
        let mut params = hkdf_params(true, true, CKM_SHA256, None, &case.info);
        params.ulSaltType = CKF_HKDF_SALT_KEY;
        params.hSaltKey = salt_key;
        let mut mechanism = with_param(CKM_HKDF_DERIVE, &mut params);
        let okm = derive_value(session, &mut mechanism, base, Some(42)).unwrap();
        assert_eq!(okm, case.okm);
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);

        // An AES key: the first 32 bytes of the same output (HKDF's output is a prefix).
        let aes = derive(session, &mut mechanism, base, CKK_AES, Some(32)).unwrap();
        assert_eq!(read(session, aes, CKA_VALUE).unwrap(), case.okm[..32]);
        // A key length AES does not have, and none at all.
        assert_eq!(
            derive(session, &mut mechanism, base, CKK_AES, Some(20)),
            Err(CKR_TEMPLATE_INCONSISTENT)
        );
        assert_eq!(
            derive(session, &mut mechanism, base, CKK_AES, None),
            Err(CKR_TEMPLATE_INCOMPLETE)
        );
        // A salt key that is not a secret key handle.
        params.hSaltKey = 0xdead;
        let mut mechanism = with_param(CKM_HKDF_DERIVE, &mut params);
        assert_eq!(
            derive_value(session, &mut mechanism, base, Some(42)),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
    });
}

#[test]
fn hkdf_approval_follows_the_slot_policy_and_bad_parameters_are_refused() {
    with_token(|_| {
        let fips = open(FIPS);
        let default = open(DEFAULT);
        let gm = open(GM);
        let [_, _, case3] = rfc5869_cases();
        // Test case 3 has no salt and no info: SP 800-56C as fips-140-3 applies it wants both,
        // so that slot refuses; the default slot serves it, approved.
        let fips_base = base_key(fips, CKK_GENERIC_SECRET, &case3.ikm, true);
        let mut params = hkdf_params(true, true, CKM_SHA256, None, &case3.info);
        let mut mechanism = with_param(CKM_HKDF_DERIVE, &mut params);
        assert_eq!(
            derive_value(fips, &mut mechanism, fips_base, Some(42)),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let default_base = base_key(default, CKK_GENERIC_SECRET, &case3.ikm, true);
        assert_eq!(
            derive_value(default, &mut mechanism, default_base, Some(42)),
            Ok(case3.okm.clone())
        );
        assert_eq!(validation_flags(default), VALIDATION_FLAG_POLICY);

        let salt = [7u8; 16];
        let info = b"regula pkcs11 kdf";
        let good = || hkdf_params(true, true, CKM_SHA384, Some(&salt), info);
        let refused = |params: &mut CK_HKDF_PARAMS, len| {
            let mut mechanism = with_param(CKM_HKDF_DERIVE, params);
            derive_value(fips, &mut mechanism, fips_base, len).unwrap_err()
        };
        // SHA-384 serves; SHA-1 and SHA3 have no HKDF row.
        let mut params = good();
        let mut mechanism = with_param(CKM_HKDF_DERIVE, &mut params);
        assert_eq!(
            derive_value(fips, &mut mechanism, fips_base, Some(48)).map(|okm| okm.len()),
            Ok(48)
        );
        for prf in [CKM_SHA_1, CKM_SHA3_256, CKM_AES_CMAC] {
            let mut params = good();
            params.prfHashMechanism = prf;
            assert_eq!(refused(&mut params, Some(32)), CKR_MECHANISM_PARAM_INVALID);
        }
        // Neither step, an unknown salt type, a salt pointer missing.
        let mut params = good();
        params.bExtract = FALSE;
        params.bExpand = FALSE;
        assert_eq!(refused(&mut params, Some(32)), CKR_MECHANISM_PARAM_INVALID);
        let mut params = good();
        params.ulSaltType = 8;
        assert_eq!(refused(&mut params, Some(32)), CKR_MECHANISM_PARAM_INVALID);
        let mut params = good();
        params.pSalt = null_mut();
        assert_eq!(refused(&mut params, Some(32)), CKR_MECHANISM_PARAM_INVALID);
        // A parameter of the wrong size, and none.
        let mut short = 0u64;
        let mut mechanism = with_param(CKM_HKDF_DERIVE, &mut short);
        assert_eq!(
            derive_value(fips, &mut mechanism, fips_base, Some(32)),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let mut mechanism = common::mechanism(CKM_HKDF_DERIVE);
        assert_eq!(
            derive_value(fips, &mut mechanism, fips_base, Some(32)),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // The expansion step's length: none given, and more than the token keeps.
        assert_eq!(refused(&mut good(), None), CKR_TEMPLATE_INCOMPLETE);
        assert_eq!(refused(&mut good(), Some(513)), CKR_TEMPLATE_INCONSISTENT);
        // A base key without CKA_DERIVE, and an AES base key.
        let mut params = good();
        let mut mechanism = with_param(CKM_HKDF_DERIVE, &mut params);
        let no_derive = base_key(fips, CKK_GENERIC_SECRET, &case3.ikm, false);
        assert_eq!(
            derive_value(fips, &mut mechanism, no_derive, Some(32)),
            Err(CKR_KEY_FUNCTION_NOT_PERMITTED)
        );
        let aes = base_key(fips, CKK_AES, &[1; 32], true);
        assert_eq!(
            derive_value(fips, &mut mechanism, aes, Some(32)),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        // gm serves no HKDF row.
        let gm_base = base_key(gm, CKK_GENERIC_SECRET, &case3.ikm, true);
        assert_eq!(
            derive_value(gm, &mut mechanism, gm_base, Some(32)),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}

#[test]
fn a_derived_key_inherits_sensitivity_from_its_base_key() {
    with_token(|_| {
        let session = open(FIPS);
        // A generated base key, sensitive and never extractable from the start.
        let (len, class, key_type) = (32 as CK_ULONG, CKO_SECRET_KEY, CKK_GENERIC_SECRET);
        let mut template = [
            attribute(CKA_VALUE_LEN, &len),
            attribute(CKA_SENSITIVE, &TRUE),
            attribute(CKA_EXTRACTABLE, &FALSE),
            attribute(CKA_DERIVE, &TRUE),
        ];
        let mut generate = mechanism(CKM_GENERIC_SECRET_KEY_GEN);
        let mut base = 0;
        // SAFETY: live locals.
        let rv = unsafe {
            C_GenerateKey(
                session,
                &mut generate,
                template.as_mut_ptr(),
                template.len() as CK_ULONG,
                &mut base,
            )
        };
        assert_eq!(rv, CKR_OK);
        let (salt, info) = ([1u8; 16], [2u8; 16]);
        let mut params = hkdf_params(true, true, CKM_SHA256, Some(&salt), &info);
        let mut hkdf = with_param(CKM_HKDF_DERIVE, &mut params);
        let mut derive_with = |sensitive: &CK_BBOOL, extractable: &CK_BBOOL| {
            let mut template = [
                attribute(CKA_CLASS, &class),
                attribute(CKA_KEY_TYPE, &key_type),
                attribute(CKA_VALUE_LEN, &len),
                attribute(CKA_SENSITIVE, sensitive),
                attribute(CKA_EXTRACTABLE, extractable),
            ];
            let mut key = 0;
            // SAFETY: live locals.
            let rv = unsafe {
                C_DeriveKey(
                    session,
                    &mut hkdf,
                    base,
                    template.as_mut_ptr(),
                    template.len() as CK_ULONG,
                    &mut key,
                )
            };
            assert_eq!(rv, CKR_OK);
            key
        };
        let kept = derive_with(&TRUE, &FALSE);
        assert_eq!(read(session, kept, CKA_ALWAYS_SENSITIVE), Ok(vec![TRUE]));
        assert_eq!(read(session, kept, CKA_NEVER_EXTRACTABLE), Ok(vec![TRUE]));
        assert_eq!(read(session, kept, CKA_LOCAL), Ok(vec![FALSE]));
        assert_eq!(read(session, kept, CKA_VALUE), Err(CKR_ATTRIBUTE_SENSITIVE));
        let open_key = derive_with(&FALSE, &TRUE);
        assert_eq!(
            read(session, open_key, CKA_ALWAYS_SENSITIVE),
            Ok(vec![FALSE])
        );
        assert_eq!(
            read(session, open_key, CKA_NEVER_EXTRACTABLE),
            Ok(vec![FALSE])
        );
        // A created base key was never sensitive: nothing derived from it is "always".
        let created = base_key(session, CKK_GENERIC_SECRET, &[9; 32], true);
        let mut template = [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            attribute(CKA_VALUE_LEN, &len),
            attribute(CKA_SENSITIVE, &TRUE),
        ];
        let mut key = 0;
        // SAFETY: live locals.
        let rv = unsafe {
            C_DeriveKey(
                session,
                &mut hkdf,
                created,
                template.as_mut_ptr(),
                template.len() as CK_ULONG,
                &mut key,
            )
        };
        assert_eq!(rv, CKR_OK);
        assert_eq!(read(session, key, CKA_ALWAYS_SENSITIVE), Ok(vec![FALSE]));
    });
}

// ---- SP 800-108 counter mode ---------------------------------------------------------------

/// A 32-bit big-endian counter (the one layout the module computes).
const BE32: CK_SP800_108_COUNTER_FORMAT = CK_SP800_108_COUNTER_FORMAT {
    bLittleEndian: 0,
    ulWidthInBits: 32,
};

fn data_param<T>(kind: CK_ULONG, value: &T) -> CK_PRF_DATA_PARAM {
    CK_PRF_DATA_PARAM {
        type_: kind,
        pValue: (value as *const T).cast_mut().cast(),
        ulValueLen: size_of::<T>() as CK_ULONG,
    }
}

fn byte_array(value: &[u8]) -> CK_PRF_DATA_PARAM {
    CK_PRF_DATA_PARAM {
        type_: CK_SP800_108_BYTE_ARRAY,
        pValue: value.as_ptr().cast_mut().cast(),
        ulValueLen: value.len() as CK_ULONG,
    }
}

fn kbkdf_params(prf: CK_MECHANISM_TYPE, data: &mut [CK_PRF_DATA_PARAM]) -> CK_SP800_108_KDF_PARAMS {
    CK_SP800_108_KDF_PARAMS {
        prfType: prf,
        ulNumberOfDataParams: data.len() as CK_ULONG,
        pDataParams: data.as_mut_ptr(),
        ulAdditionalDerivedKeys: 0,
        pAdditionalDerivedKeys: null_mut(),
    }
}

/// NIST CAVP KBKDF, [PRF=HMAC_SHA256] [CTRLOCATION=BEFORE_FIXED] [RLEN=32_BITS]: COUNT=0
/// (L = 128) and the first L = 320 case (two PRF blocks).
const CAVP_KBKDF: [(&[u8], &[u8], &[u8]); 2] = [
    (
        &hex!("dd1d91b7d90b2bd3138533ce92b272fbf8a369316aefe242e659cc0ae238afe0"),
        &hex!(
            "01322b96b30acd197979444e468e1c5c6859bf1b1cf951b7e725303e237e46b8"
            "64a145fab25e517b08f8683d0315bb2911d80a0e8aba17f3b413faac"
        ),
        &hex!("10621342bfb0fd40046c0e29f2cfdbf0"),
    ),
    (
        &hex!("c4bedbddb66493e7c7259a3bbbc25f8c7e0ca7fe284d92d431d9cd99a0d214ac"),
        &hex!(
            "1c69c54766791e315c2cc5c47ecd3ffab87d0d273dd920e70955814c220eacac"
            "e6a5946542da3dfe24ff626b4897898cafb7db83bdff3c14fa46fd4b"
        ),
        &hex!(
            "1da47638d6c9c4d04d74d4640bbd42ab814d9e8cc22f4326695239f96b0693f1"
            "2d0dd1152cf44430"
        ),
    ),
];

#[test]
fn sp800_108_counter_mode_gives_the_cavp_answers() {
    with_token(|_| {
        let session = open(FIPS);
        for (ki, fixed, ko) in CAVP_KBKDF {
            let base = base_key(session, CKK_GENERIC_SECRET, ki, true);
            let mut data = [
                data_param(CK_SP800_108_ITERATION_VARIABLE, &BE32),
                byte_array(fixed),
            ];
            let mut params = kbkdf_params(CKM_SHA256_HMAC, &mut data);
            let mut mechanism = with_param(CKM_SP800_108_COUNTER_KDF, &mut params);
            assert_eq!(
                derive_value(session, &mut mechanism, base, Some(ko.len() as CK_ULONG)).as_deref(),
                Ok(ko)
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        }
    });
}

#[test]
fn sp800_108_layouts_the_module_cannot_compute_are_refused() {
    with_token(|_| {
        let session = open(FIPS);
        let (ki, fixed, _) = CAVP_KBKDF[0];
        let base = base_key(session, CKK_GENERIC_SECRET, ki, true);
        let refused = |data: &mut [CK_PRF_DATA_PARAM], prf| {
            let mut params = kbkdf_params(prf, data);
            let mut mechanism = with_param(CKM_SP800_108_COUNTER_KDF, &mut params);
            derive_value(session, &mut mechanism, base, Some(16)).unwrap_err()
        };
        let little = CK_SP800_108_COUNTER_FORMAT {
            bLittleEndian: 1,
            ulWidthInBits: 32,
        };
        let narrow = CK_SP800_108_COUNTER_FORMAT {
            bLittleEndian: 0,
            ulWidthInBits: 16,
        };
        let counter = |format| data_param(CK_SP800_108_ITERATION_VARIABLE, format);
        for mut data in [
            // A little-endian or 16-bit counter, the counter after the fixed input, two
            // counters, no counter, the optional counter of the other modes.
            vec![counter(&little), byte_array(fixed)],
            vec![counter(&narrow), byte_array(fixed)],
            vec![byte_array(fixed), counter(&BE32)],
            vec![counter(&BE32), byte_array(fixed), counter(&BE32)],
            vec![byte_array(fixed)],
            vec![
                counter(&BE32),
                data_param(CK_SP800_108_OPTIONAL_COUNTER, &BE32),
            ],
            vec![],
        ] {
            assert_eq!(
                refused(&mut data, CKM_SHA256_HMAC),
                CKR_MECHANISM_PARAM_INVALID
            );
        }
        // A PRF with no KBKDF row (CMAC), or not a MAC at all.
        for prf in [CKM_AES_CMAC, CKM_SHA256, CKM_SHA_1_HMAC] {
            let mut data = [counter(&BE32), byte_array(fixed)];
            assert_eq!(refused(&mut data, prf), CKR_MECHANISM_PARAM_INVALID);
        }
        // A DKM length of 12 bits, of an unknown method; additional derived keys.
        let odd_width = CK_SP800_108_DKM_LENGTH_FORMAT {
            dkmLengthMethod: CK_SP800_108_DKM_LENGTH_SUM_OF_KEYS,
            bLittleEndian: 0,
            ulWidthInBits: 12,
        };
        let mut data = [
            counter(&BE32),
            data_param(CK_SP800_108_DKM_LENGTH, &odd_width),
        ];
        assert_eq!(
            refused(&mut data, CKM_SHA256_HMAC),
            CKR_MECHANISM_PARAM_INVALID
        );
        let unknown_method = CK_SP800_108_DKM_LENGTH_FORMAT {
            dkmLengthMethod: 3,
            bLittleEndian: 0,
            ulWidthInBits: 32,
        };
        let mut data = [
            counter(&BE32),
            data_param(CK_SP800_108_DKM_LENGTH, &unknown_method),
        ];
        assert_eq!(
            refused(&mut data, CKM_SHA256_HMAC),
            CKR_MECHANISM_PARAM_INVALID
        );
        let mut data = [counter(&BE32), byte_array(fixed)];
        let mut params = kbkdf_params(CKM_SHA256_HMAC, &mut data);
        let mut extra_key = 0;
        let mut extra = CK_DERIVED_KEY {
            pTemplate: null_mut(),
            ulAttributeCount: 0,
            phKey: &mut extra_key,
        };
        params.ulAdditionalDerivedKeys = 1;
        params.pAdditionalDerivedKeys = &mut extra;
        let mut mechanism = with_param(CKM_SP800_108_COUNTER_KDF, &mut params);
        assert_eq!(
            derive_value(session, &mut mechanism, base, Some(16)),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // gm serves no KBKDF row.
        let gm = open(GM);
        let gm_base = base_key(gm, CKK_GENERIC_SECRET, ki, true);
        let mut data = [counter(&BE32), byte_array(fixed)];
        let mut params = kbkdf_params(CKM_SHA256_HMAC, &mut data);
        let mut mechanism = with_param(CKM_SP800_108_COUNTER_KDF, &mut params);
        assert_eq!(
            derive_value(gm, &mut mechanism, gm_base, Some(16)),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}

// ---- PBKDF2 --------------------------------------------------------------------------------

fn pbkdf2_params(
    prf: CK_ULONG,
    password: &[u8],
    salt: &[u8],
    iterations: CK_ULONG,
) -> CK_PKCS5_PBKD2_PARAMS2 {
    CK_PKCS5_PBKD2_PARAMS2 {
        saltSource: CKZ_SALT_SPECIFIED,
        pSaltSourceData: salt.as_ptr().cast_mut().cast(),
        ulSaltSourceDataLen: salt.len() as CK_ULONG,
        iterations,
        prf,
        pPrfData: null_mut(),
        ulPrfDataLen: 0,
        pPassword: password.as_ptr().cast_mut(),
        ulPasswordLen: password.len() as CK_ULONG,
    }
}

/// `C_GenerateKey` with `mechanism` into a readable session key of `key_type` (none: the
/// template names no type) and `len` bytes; its value.
fn pbkdf2_value(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    key_type: Option<CK_KEY_TYPE>,
    len: CK_ULONG,
) -> Result<Vec<u8>, CK_RV> {
    let key_type_value = key_type.unwrap_or(0);
    let mut template = vec![
        attribute(CKA_VALUE_LEN, &len),
        attribute(CKA_SENSITIVE, &FALSE),
        attribute(CKA_EXTRACTABLE, &TRUE),
    ];
    if key_type.is_some() {
        template.push(attribute(CKA_KEY_TYPE, &key_type_value));
    }
    let mut key = 0;
    // SAFETY: live locals.
    let rv = unsafe {
        C_GenerateKey(
            session,
            mechanism,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            &mut key,
        )
    };
    if rv != CKR_OK {
        return Err(rv);
    }
    assert_eq!(read(session, key, CKA_LOCAL), Ok(vec![TRUE]));
    assert_eq!(
        read(session, key, CKA_KEY_GEN_MECHANISM),
        Ok(CKM_PKCS5_PBKD2.to_ne_bytes().to_vec())
    );
    read(session, key, CKA_VALUE)
}

/// A PBKDF2 example: password, salt, rounds, 64-byte derived key.
type Pbkdf2Example = (&'static [u8], &'static [u8], CK_ULONG, [u8; 64]);

/// RFC 7914 §11's PBKDF2-HMAC-SHA-256 examples.
const RFC7914_PBKDF2: [Pbkdf2Example; 2] = [
    (
        b"passwd",
        b"salt",
        1,
        hex!(
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
            "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        ),
    ),
    (
        b"Password",
        b"NaCl",
        80000,
        hex!(
            "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
            "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
        ),
    ),
];

#[test]
fn pbkdf2_gives_rfc_7914s_answers_on_default_and_fips_refuses_their_inputs() {
    with_token(|_| {
        let default = open(DEFAULT);
        let fips = open(FIPS);
        for (password, salt, iterations, dk) in RFC7914_PBKDF2 {
            let mut params = pbkdf2_params(CKP_PKCS5_PBKD2_HMAC_SHA256, password, salt, iterations);
            let mut mechanism = with_param(CKM_PKCS5_PBKD2, &mut params);
            assert_eq!(
                pbkdf2_value(default, &mut mechanism, None, 64),
                Ok(dk.to_vec())
            );
            assert_eq!(validation_flags(default), VALIDATION_FLAG_POLICY);
            // Short passwords and salts (and one round): SP 800-132 as fips-140-3 applies it.
            assert_eq!(
                pbkdf2_value(fips, &mut mechanism, None, 64),
                Err(CKR_MECHANISM_PARAM_INVALID)
            );
        }
    });
}

#[test]
fn pbkdf2_under_fips_with_approved_inputs_and_the_older_parameter_structure() {
    with_token(|_| {
        let session = open(FIPS);
        let (password, salt) = (b"correct horse battery staple", b"sixteen byte sal");
        // pyca/cryptography: PBKDF2HMAC(SHA256() / SHA512(), 32, salt, 1000).derive(password).
        let expected = [
            (
                CKP_PKCS5_PBKD2_HMAC_SHA256,
                hex!("60bc70b594f26a3cd755f0bf33ce0b01b65c775df719c9a9c079d992b581980a"),
            ),
            (
                CKP_PKCS5_PBKD2_HMAC_SHA512,
                hex!("61aa7ecc7838dcca13e80a2f9f1d1e2f07744d71588349d33289fac6c2e22395"),
            ),
        ];
        for (prf, dk) in expected {
            let mut params = pbkdf2_params(prf, password, salt, 1000);
            let mut mechanism = with_param(CKM_PKCS5_PBKD2, &mut params);
            assert_eq!(
                pbkdf2_value(session, &mut mechanism, Some(CKK_AES), 32),
                Ok(dk.to_vec())
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        }
        // CK_PKCS5_PBKD2_PARAMS: the same fields, the password's length behind a pointer.
        let password_len = password.len() as CK_ULONG;
        let params2 = pbkdf2_params(CKP_PKCS5_PBKD2_HMAC_SHA256, password, salt, 1000);
        let mut old = CK_PKCS5_PBKD2_PARAMS {
            saltSource: params2.saltSource,
            pSaltSourceData: params2.pSaltSourceData,
            ulSaltSourceDataLen: params2.ulSaltSourceDataLen,
            iterations: params2.iterations,
            prf: params2.prf,
            pPrfData: null_mut(),
            ulPrfDataLen: 0,
            pPassword: params2.pPassword,
            ulPasswordLen: (&password_len as *const CK_ULONG).cast_mut(),
        };
        let mut mechanism = with_param(CKM_PKCS5_PBKD2, &mut old);
        assert_eq!(
            pbkdf2_value(session, &mut mechanism, Some(CKK_GENERIC_SECRET), 32),
            Ok(expected[0].1.to_vec())
        );

        // PRFs with no PBKDF2 row, no rounds, another salt source, a PRF parameter, the
        // parameter's size, a length the key type does not have.
        let refused = |params: &mut CK_PKCS5_PBKD2_PARAMS2, key_type, len| {
            let mut mechanism = with_param(CKM_PKCS5_PBKD2, params);
            pbkdf2_value(session, &mut mechanism, key_type, len).unwrap_err()
        };
        let good = || pbkdf2_params(CKP_PKCS5_PBKD2_HMAC_SHA256, password, salt, 1000);
        for prf in [
            CKP_PKCS5_PBKD2_HMAC_SHA1,
            CKP_PKCS5_PBKD2_HMAC_GOSTR3411,
            99,
        ] {
            let mut params = good();
            params.prf = prf;
            assert_eq!(refused(&mut params, None, 32), CKR_MECHANISM_PARAM_INVALID);
        }
        let mut params = good();
        params.iterations = 0;
        assert_eq!(refused(&mut params, None, 32), CKR_MECHANISM_PARAM_INVALID);
        let mut params = good();
        params.saltSource = 2;
        assert_eq!(refused(&mut params, None, 32), CKR_MECHANISM_PARAM_INVALID);
        let mut params = good();
        params.ulPrfDataLen = 4;
        assert_eq!(refused(&mut params, None, 32), CKR_MECHANISM_PARAM_INVALID);
        assert_eq!(refused(&mut good(), Some(CKK_AES), 20), CKR_KEY_SIZE_RANGE);
        let mut short = [0u8; 16];
        let mut mechanism = with_param(CKM_PKCS5_PBKD2, &mut short);
        assert_eq!(
            pbkdf2_value(session, &mut mechanism, None, 32),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // gm serves no PBKDF2 row.
        let gm = open(GM);
        let mut params = good();
        let mut mechanism = with_param(CKM_PKCS5_PBKD2, &mut params);
        assert_eq!(
            pbkdf2_value(gm, &mut mechanism, None, 32),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}

#[test]
fn each_slot_lists_the_kdfs_its_policy_serves() {
    with_token(|_| {
        let kdfs = [CKM_HKDF_DERIVE, CKM_SP800_108_COUNTER_KDF, CKM_PKCS5_PBKD2];
        let fips = mechanism_list(FIPS);
        let default = mechanism_list(DEFAULT);
        let gm = mechanism_list(GM);
        for kdf in kdfs {
            assert!(fips.contains(&kdf), "fips-140-3 lacks {kdf:#x}");
            assert!(default.contains(&kdf), "default lacks {kdf:#x}");
            assert!(!gm.contains(&kdf), "gm lists {kdf:#x}");
        }
        let mut info = CK_MECHANISM_INFO {
            ulMinKeySize: 0,
            ulMaxKeySize: 0,
            flags: 0,
        };
        // SAFETY: a pointer to a local.
        unsafe {
            assert_eq!(C_GetMechanismInfo(FIPS, CKM_HKDF_DERIVE, &mut info), CKR_OK);
            assert_eq!(info.flags, CKF_DERIVE);
            assert_eq!(C_GetMechanismInfo(FIPS, CKM_PKCS5_PBKD2, &mut info), CKR_OK);
            assert_eq!(info.flags, CKF_GENERATE);
        }
    });
}
