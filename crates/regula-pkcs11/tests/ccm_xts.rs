//! CCM and XTS through the token's exported C functions. Known answers: RFC 3610 packet vector
//! #1 and SP 800-38C Appendix C examples 1 and 2 (AES-CCM), RFC 8998 Appendix A.2 (SM4-CCM),
//! IEEE Std 1619-2007's AES-256-XTS vectors as OpenSSL's evpciph_aes_common.txt holds them
//! (tests/openssl-evp-data), and the SM4-XTS vectors of crates/regula-sm/tests/data/sm4_xts.txt
//! (GB/T 17964-2021 and IEEE 1619 tweaks). The configuration is the README's example plus `gm`.

use std::ptr::null_mut;

use hex_literal::hex;
use regula::registry::pkcs11 as registry;
use regula_pkcs11::*;

mod common;
use common::*;

const AES_EVP: &str = include_str!("../../../tests/openssl-evp-data/evpciph_aes_common.txt");
const SM4_XTS: &str = include_str!("../../regula-sm/tests/data/sm4_xts.txt");

fn vendor(mechanism: registry::Mechanism) -> CK_MECHANISM_TYPE {
    CK_MECHANISM_TYPE::from(mechanism.value)
}

/// The stanzas of an OpenSSL evp_test file whose `Cipher` is `cipher` (any case), as
/// name-value pairs.
fn stanzas(file: &str, cipher: &str) -> Vec<Vec<(String, String)>> {
    file.split("\n\n")
        .map(|stanza| {
            stanza
                .lines()
                .filter(|line| !line.starts_with('#'))
                .filter_map(|line| line.split_once(" = "))
                .map(|(name, value)| (name.trim().to_string(), value.trim().to_string()))
                .collect::<Vec<_>>()
        })
        .filter(|stanza| {
            stanza
                .iter()
                .any(|(name, value)| name == "Cipher" && value.eq_ignore_ascii_case(cipher))
        })
        .collect()
}

fn field<'a>(stanza: &'a [(String, String)], name: &str) -> &'a str {
    &stanza.iter().find(|(key, _)| key == name).unwrap().1
}

fn secret(session: CK_SESSION_HANDLE, key_type: CK_KEY_TYPE, value: &[u8]) -> CK_OBJECT_HANDLE {
    let class = CKO_SECRET_KEY;
    let mut template = [
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
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
    assert_eq!(rv, CKR_OK, "C_CreateObject");
    handle
}

/// Multi-part encryption: `data` in two updates, then the final part; everything given.
fn encrypt_in_parts(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    data: &[u8],
    split: usize,
) -> Result<Vec<u8>, CK_RV> {
    let mut output = Vec::new();
    // SAFETY: live locals, each output buffer as long as the length given with it.
    unsafe {
        let rv = C_EncryptInit(session, mechanism, key);
        if rv != CKR_OK {
            return Err(rv);
        }
        for part in [&data[..split], &data[split..]] {
            let mut buffer = vec![0u8; part.len() + 32];
            let mut len = buffer.len() as CK_ULONG;
            let rv = C_EncryptUpdate(
                session,
                part.as_ptr().cast_mut(),
                part.len() as CK_ULONG,
                buffer.as_mut_ptr(),
                &mut len,
            );
            if rv != CKR_OK {
                return Err(rv);
            }
            output.extend_from_slice(&buffer[..len as usize]);
        }
        let mut buffer = vec![0u8; data.len() + 32];
        let mut len = buffer.len() as CK_ULONG;
        let rv = C_EncryptFinal(session, buffer.as_mut_ptr(), &mut len);
        if rv != CKR_OK {
            return Err(rv);
        }
        output.extend_from_slice(&buffer[..len as usize]);
    }
    Ok(output)
}

fn ccm_params(data_len: usize, nonce: &[u8], aad: &[u8], mac_len: usize) -> CK_CCM_PARAMS {
    CK_CCM_PARAMS {
        ulDataLen: data_len as CK_ULONG,
        pNonce: nonce.as_ptr().cast_mut(),
        ulNonceLen: nonce.len() as CK_ULONG,
        pAAD: aad.as_ptr().cast_mut(),
        ulAADLen: aad.len() as CK_ULONG,
        ulMACLen: mac_len as CK_ULONG,
    }
}

/// AES-CCM examples: key, nonce, AAD, plaintext, MAC length, ciphertext ‖ MAC.
struct CcmCase {
    key: Vec<u8>,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    mac_len: usize,
    sealed: Vec<u8>,
}

fn aes_ccm_cases() -> [CcmCase; 3] {
    [
        // RFC 3610 §8, packet vector #1.
        CcmCase {
            key: (0xc0..=0xcf).collect(),
            nonce: hex!("00000003020100a0a1a2a3a4a5").to_vec(),
            aad: (0x00..=0x07).collect(),
            plaintext: (0x08..=0x1e).collect(),
            mac_len: 8,
            sealed: hex!("588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0").to_vec(),
        },
        // SP 800-38C Appendix C, example 1.
        CcmCase {
            key: (0x40..=0x4f).collect(),
            nonce: (0x10..=0x16).collect(),
            aad: (0x00..=0x07).collect(),
            plaintext: (0x20..=0x23).collect(),
            mac_len: 4,
            sealed: hex!("7162015b4dac255d").to_vec(),
        },
        // SP 800-38C Appendix C, example 2.
        CcmCase {
            key: (0x40..=0x4f).collect(),
            nonce: (0x10..=0x17).collect(),
            aad: (0x00..=0x0f).collect(),
            plaintext: (0x20..=0x2f).collect(),
            mac_len: 6,
            sealed: hex!("d2a1f0e051ea5f62081a7792073d593d1fc64fbfaccd").to_vec(),
        },
    ]
}

#[test]
fn aes_ccm_gives_the_rfc_3610_and_sp800_38c_answers() {
    with_token(|_| {
        let session = open(DEFAULT);
        for case in aes_ccm_cases() {
            let key = secret(session, CKK_AES, &case.key);
            let len = case.plaintext.len();
            let mut params = ccm_params(len, &case.nonce, &case.aad, case.mac_len);
            let mut ccm = with_param(CKM_AES_CCM, &mut params);
            assert_eq!(
                crypt(session, &mut ccm, key, &case.plaintext, true),
                Ok(case.sealed.clone())
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            assert_eq!(
                encrypt_in_parts(session, &mut ccm, key, &case.plaintext, len / 2),
                Ok(case.sealed.clone())
            );
            assert_eq!(
                crypt(session, &mut ccm, key, &case.sealed, false),
                Ok(case.plaintext.clone())
            );
            let mut forged = case.sealed.clone();
            *forged.last_mut().unwrap() ^= 1;
            assert_eq!(
                crypt(session, &mut ccm, key, &forged, false),
                Err(CKR_ENCRYPTED_DATA_INVALID)
            );
        }
    });
}

#[test]
fn ccm_parameters_outside_what_the_module_takes_are_refused() {
    with_token(|_| {
        let session = open(DEFAULT);
        let case = &aes_ccm_cases()[0];
        let key = secret(session, CKK_AES, &case.key);
        let len = case.plaintext.len();
        let init = |params: &mut CK_CCM_PARAMS| {
            let mut ccm = with_param(CKM_AES_CCM, params);
            crypt(session, &mut ccm, key, &case.plaintext, true)
        };
        // Nonces of 6 and 14 bytes; MACs of 2, 5 and 18 bytes.
        for nonce_len in [6, 14] {
            let nonce = vec![1u8; nonce_len];
            let mut params = ccm_params(len, &nonce, &case.aad, 8);
            assert_eq!(init(&mut params), Err(CKR_MECHANISM_PARAM_INVALID));
        }
        for mac_len in [2, 5, 18] {
            let mut params = ccm_params(len, &case.nonce, &case.aad, mac_len);
            assert_eq!(init(&mut params), Err(CKR_MECHANISM_PARAM_INVALID));
        }
        // A 13-byte nonce leaves 2 bytes for the length: 65536 does not fit.
        let mut params = ccm_params(65536, &case.nonce, &case.aad, 8);
        assert_eq!(init(&mut params), Err(CKR_MECHANISM_PARAM_INVALID));
        // The data is not the length announced.
        let mut params = ccm_params(len + 1, &case.nonce, &case.aad, 8);
        assert_eq!(init(&mut params), Err(CKR_DATA_LEN_RANGE));
        let mut params = ccm_params(len, &case.nonce, &case.aad, 8);
        let mut ccm = with_param(CKM_AES_CCM, &mut params);
        assert_eq!(
            crypt(session, &mut ccm, key, &case.sealed[1..], false),
            Err(CKR_ENCRYPTED_DATA_LEN_RANGE)
        );
        assert_eq!(
            encrypt_in_parts(
                session,
                &mut ccm,
                key,
                &[case.plaintext.clone(), vec![0]].concat(),
                4
            ),
            Err(CKR_DATA_LEN_RANGE)
        );
        // A parameter of another size, and none.
        let mut short = [0u8; 40];
        let mut wrong = with_param(CKM_AES_CCM, &mut short);
        assert_eq!(
            crypt(session, &mut wrong, key, &case.plaintext, true),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let mut none = mechanism(CKM_AES_CCM);
        assert_eq!(
            crypt(session, &mut none, key, &case.plaintext, true),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // fips-140-3 does not serve AES-CCM (AWS-LC's module approves only its fixed sets).
        let fips = open(FIPS);
        let fips_key = secret(fips, CKK_AES, &case.key);
        let mut params = ccm_params(len, &case.nonce, &case.aad, 8);
        let mut ccm = with_param(CKM_AES_CCM, &mut params);
        assert_eq!(
            crypt(fips, &mut ccm, fips_key, &case.plaintext, true),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}

#[test]
fn aes_xts_gives_the_ieee_1619_answers() {
    with_token(|_| {
        let session = open(FIPS);
        let vectors = stanzas(AES_EVP, "aes-256-xts");
        assert!(vectors.len() >= 8, "{} AES-256-XTS vectors", vectors.len());
        for stanza in &vectors {
            let key = secret(session, CKK_AES_XTS, &unhex(field(stanza, "Key")));
            let mut tweak = unhex(field(stanza, "IV"));
            let plaintext = unhex(field(stanza, "Plaintext"));
            let ciphertext = unhex(field(stanza, "Ciphertext"));
            let mut xts = CK_MECHANISM {
                mechanism: CKM_AES_XTS,
                pParameter: tweak.as_mut_ptr().cast(),
                ulParameterLen: tweak.len() as CK_ULONG,
            };
            assert_eq!(
                crypt(session, &mut xts, key, &plaintext, true),
                Ok(ciphertext.clone())
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            assert_eq!(
                crypt(session, &mut xts, key, &ciphertext, false),
                Ok(plaintext.clone())
            );
            // One data unit per operation: the whole unit in one update, then the final part.
            assert_eq!(
                encrypt_in_parts(session, &mut xts, key, &plaintext, plaintext.len()),
                Ok(ciphertext)
            );
        }
    });
}

#[test]
fn xts_refuses_wrong_keys_tweaks_and_data_units() {
    with_token(|_| {
        let session = open(FIPS);
        let mut tweak = [0u8; 16];
        let xts = |tweak: &mut [u8]| CK_MECHANISM {
            mechanism: CKM_AES_XTS,
            pParameter: tweak.as_mut_ptr().cast(),
            ulParameterLen: tweak.len() as CK_ULONG,
        };
        let key: Vec<u8> = (0..64).collect();
        let xts_key = secret(session, CKK_AES_XTS, &key);
        // AES-128-XTS (a 32-byte key) has no row; an AES key is not an XTS key.
        let short = secret(session, CKK_AES_XTS, &key[..32]);
        assert_eq!(
            crypt(session, &mut xts(&mut tweak), short, &[0; 32], true),
            Err(CKR_KEY_SIZE_RANGE)
        );
        let aes = secret(session, CKK_AES, &key[..32]);
        assert_eq!(
            crypt(session, &mut xts(&mut tweak), aes, &[0; 32], true),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        // An 8-byte tweak, a 15-byte data unit, two data units in one operation.
        assert_eq!(
            crypt(session, &mut xts(&mut tweak[..8]), xts_key, &[0; 32], true),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        assert_eq!(
            crypt(session, &mut xts(&mut tweak), xts_key, &[0; 15], true),
            Err(CKR_DATA_LEN_RANGE)
        );
        assert_eq!(
            encrypt_in_parts(session, &mut xts(&mut tweak), xts_key, &[0; 64], 32),
            Err(CKR_DATA_LEN_RANGE)
        );
        // CKM_AES_XTS_KEY_GEN makes 64-byte CKK_AES_XTS keys only.
        let generate = |len: CK_ULONG| {
            let mut mechanism = mechanism(CKM_AES_XTS_KEY_GEN);
            let mut template = [attribute(CKA_VALUE_LEN, &len)];
            let mut key = 0;
            // SAFETY: live locals.
            let rv = unsafe {
                C_GenerateKey(session, &mut mechanism, template.as_mut_ptr(), 1, &mut key)
            };
            if rv == CKR_OK { Ok(key) } else { Err(rv) }
        };
        assert_eq!(generate(32), Err(CKR_KEY_SIZE_RANGE));
        let generated = generate(64).unwrap();
        assert_eq!(
            read(session, generated, CKA_KEY_TYPE),
            Ok(CKK_AES_XTS.to_ne_bytes().to_vec())
        );
        let data = [5u8; 48];
        let sealed = crypt(session, &mut xts(&mut tweak), generated, &data, true).unwrap();
        assert_ne!(sealed, data);
        assert_eq!(
            crypt(session, &mut xts(&mut tweak), generated, &sealed, false),
            Ok(data.to_vec())
        );
    });
}

#[test]
fn sm4_ccm_and_xts_give_the_published_answers_on_gm() {
    with_token(|_| {
        let session = open(GM);
        // RFC 8998 Appendix A.2.
        let key = secret(
            session,
            CKK_REGULA_SM4,
            &hex!("0123456789abcdeffedcba9876543210"),
        );
        let nonce = hex!("00001234567800000000abcd");
        let aad = hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2");
        let plaintext = hex!(
            "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
            "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa"
        );
        let sealed = hex!(
            "48af93501fa62adbcd414cce6034d895dda1bf8f132f042098661572e7483094"
            "fd12e518ce062c98acee28d95df4416bed31a2f04476c18bb40c84a74b97dc5b"
            "16842d4fa186f56ab33256971fa110f4"
        );
        let sm4_ccm = vendor(registry::CKM_REGULA_SM4_CCM);
        let mut params = ccm_params(plaintext.len(), &nonce, &aad, 16);
        let mut ccm = with_param(sm4_ccm, &mut params);
        assert_eq!(
            crypt(session, &mut ccm, key, &plaintext, true),
            Ok(sealed.to_vec())
        );
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        assert_eq!(
            crypt(session, &mut ccm, key, &sealed, false),
            Ok(plaintext.to_vec())
        );
        // RFC 8998's SM4-CCM: a 12-byte nonce and a 16-byte MAC only.
        let mut params = ccm_params(plaintext.len(), &nonce, &aad, 8);
        let mut ccm = with_param(sm4_ccm, &mut params);
        assert_eq!(
            crypt(session, &mut ccm, key, &plaintext, true),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let mut params = ccm_params(plaintext.len(), &nonce[..11], &aad, 16);
        let mut ccm = with_param(sm4_ccm, &mut params);
        assert_eq!(
            crypt(session, &mut ccm, key, &plaintext, true),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );

        // SM4-XTS: a 32-byte SM4 key (key1 ‖ key2), the IEEE and the GB/T tweak.
        let vectors = stanzas(SM4_XTS, "SM4-XTS");
        assert!(vectors.len() >= 4, "{} SM4-XTS vectors", vectors.len());
        for stanza in &vectors {
            let mechanism = match field(stanza, "XTSStandard") {
                "IEEE" => vendor(registry::CKM_REGULA_SM4_XTS),
                "GB" => vendor(registry::CKM_REGULA_SM4_XTS_GB),
                other => panic!("XTSStandard = {other}"),
            };
            let key = secret(session, CKK_REGULA_SM4, &unhex(field(stanza, "Key")));
            let mut tweak = unhex(field(stanza, "IV"));
            let plaintext = unhex(field(stanza, "Plaintext"));
            let ciphertext = unhex(field(stanza, "Ciphertext"));
            let mut xts = CK_MECHANISM {
                mechanism,
                pParameter: tweak.as_mut_ptr().cast(),
                ulParameterLen: tweak.len() as CK_ULONG,
            };
            assert_eq!(
                crypt(session, &mut xts, key, &plaintext, true),
                Ok(ciphertext.clone())
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            assert_eq!(
                crypt(session, &mut xts, key, &ciphertext, false),
                Ok(plaintext)
            );
        }
        // A 16-byte SM4 key is not an XTS key; SM4-CBC does not take a 32-byte one.
        let sm4 = secret(session, CKK_REGULA_SM4, &[3; 16]);
        let mut tweak = [0u8; 16];
        let mut xts = CK_MECHANISM {
            mechanism: vendor(registry::CKM_REGULA_SM4_XTS),
            pParameter: tweak.as_mut_ptr().cast(),
            ulParameterLen: 16,
        };
        assert_eq!(
            crypt(session, &mut xts, sm4, &[0; 32], true),
            Err(CKR_KEY_SIZE_RANGE)
        );
        let double = secret(session, CKK_REGULA_SM4, &[3; 32]);
        let mut iv = [0u8; 16];
        let mut cbc = CK_MECHANISM {
            mechanism: vendor(registry::CKM_REGULA_SM4_CBC_PAD),
            pParameter: iv.as_mut_ptr().cast(),
            ulParameterLen: 16,
        };
        assert_eq!(
            crypt(session, &mut cbc, double, &[0; 32], true),
            Err(CKR_KEY_SIZE_RANGE)
        );
    });
}

#[test]
fn each_slot_lists_the_ccm_and_xts_its_policy_serves() {
    with_token(|_| {
        let listed = |slot: CK_SLOT_ID| {
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
        };
        let (fips, default, gm) = (listed(FIPS), listed(DEFAULT), listed(GM));
        let sm4 = [
            vendor(registry::CKM_REGULA_SM4_CCM),
            vendor(registry::CKM_REGULA_SM4_XTS),
            vendor(registry::CKM_REGULA_SM4_XTS_GB),
        ];
        assert!(!fips.contains(&CKM_AES_CCM) && default.contains(&CKM_AES_CCM));
        assert!(!gm.contains(&CKM_AES_CCM) && !gm.contains(&CKM_AES_XTS));
        for xts in [CKM_AES_XTS, CKM_AES_XTS_KEY_GEN] {
            assert!(fips.contains(&xts) && default.contains(&xts), "{xts:#x}");
        }
        for mechanism in sm4 {
            assert!(gm.contains(&mechanism), "gm lacks {mechanism:#x}");
            assert!(
                !fips.contains(&mechanism),
                "fips-140-3 lists {mechanism:#x}"
            );
        }
        let mut info = CK_MECHANISM_INFO {
            ulMinKeySize: 0,
            ulMaxKeySize: 0,
            flags: 0,
        };
        // SAFETY: a pointer to a local.
        unsafe {
            assert_eq!(C_GetMechanismInfo(FIPS, CKM_AES_XTS, &mut info), CKR_OK);
            assert_eq!((info.ulMinKeySize, info.ulMaxKeySize), (64, 64));
            assert_eq!(info.flags, CKF_ENCRYPT | CKF_DECRYPT);
            assert_eq!(C_GetMechanismInfo(DEFAULT, CKM_AES_CCM, &mut info), CKR_OK);
            assert_eq!((info.ulMinKeySize, info.ulMaxKeySize), (16, 32));
        }
    });
}
