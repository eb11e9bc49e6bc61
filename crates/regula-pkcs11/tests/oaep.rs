//! `CKM_RSA_PKCS_OAEP` through the exported functions: ciphertexts OpenSSL made decrypt with a
//! `C_CreateObject` private key, ciphertexts the token makes decrypt with `openssl pkeyutl`,
//! the label, the length protocol, typed refusals of bad data and bad parameters, and the
//! indicator (validation flags) on the fips-140-3 slot.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::ptr::null_mut;

use common::*;
use cryptoki_sys::*;
use regula_pkcs11::*;

const LABEL: &[u8] = b"Regula label";

/// The core's fixtures: OpenSSL's throw-away RSA-2048 key and the OAEP ciphertexts OpenSSL made
/// to it (`crates/regula/tests/data/rsa-oaep/README.md`).
fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../regula/tests/data")
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(data().join(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn oaep(hash: CK_MECHANISM_TYPE, mgf: CK_ULONG, label: &[u8]) -> CK_RSA_PKCS_OAEP_PARAMS {
    CK_RSA_PKCS_OAEP_PARAMS {
        hashAlg: hash,
        mgf,
        source: CKZ_DATA_SPECIFIED,
        pSourceData: if label.is_empty() {
            null_mut()
        } else {
            label.as_ptr().cast_mut().cast()
        },
        ulSourceDataLen: label.len() as CK_ULONG,
    }
}

fn sha256(label: &[u8]) -> CK_RSA_PKCS_OAEP_PARAMS {
    oaep(CKM_SHA256, CKG_MGF1_SHA256, label)
}

/// OpenSSL's key as a private key object permitted `CKA_DECRYPT`, and its public key
/// permitted `CKA_ENCRYPT`.
fn import_openssl_key(session: CK_SESSION_HANDLE) -> (CK_OBJECT_HANDLE, CK_OBJECT_HANDLE) {
    let parts = openssl_rsa_components(&data().join("keys/rsa2048.pem"));
    let key_type = CKK_RSA;
    let kinds = [
        CKA_MODULUS,
        CKA_PUBLIC_EXPONENT,
        CKA_PRIVATE_EXPONENT,
        CKA_PRIME_1,
        CKA_PRIME_2,
        CKA_EXPONENT_1,
        CKA_EXPONENT_2,
        CKA_COEFFICIENT,
    ];
    let private_class = CKO_PRIVATE_KEY;
    let mut private = vec![
        attribute(CKA_CLASS, &private_class),
        attribute(CKA_KEY_TYPE, &key_type),
        attribute(CKA_DECRYPT, &TRUE),
    ];
    private.extend(
        kinds
            .iter()
            .zip(&parts)
            .map(|(kind, part)| bytes(*kind, part)),
    );
    let public_class = CKO_PUBLIC_KEY;
    let mut public = vec![
        attribute(CKA_CLASS, &public_class),
        attribute(CKA_KEY_TYPE, &key_type),
        attribute(CKA_ENCRYPT, &TRUE),
        bytes(CKA_MODULUS, &parts[0]),
        bytes(CKA_PUBLIC_EXPONENT, &parts[1]),
    ];
    (
        create_object(session, &mut public),
        create_object(session, &mut private),
    )
}

/// `openssl pkeyutl -decrypt` with OpenSSL's own private key.
fn openssl_decrypt(ciphertext: &[u8], md: &str, label: &[u8]) -> Vec<u8> {
    let mut command = Command::new("openssl");
    command
        .args(["pkeyutl", "-decrypt", "-inkey"])
        .arg(data().join("keys/rsa2048.pem"))
        .args(["-pkeyopt", "rsa_padding_mode:oaep"])
        .args(["-pkeyopt", &format!("rsa_oaep_md:{md}")])
        .args(["-pkeyopt", &format!("rsa_mgf1_md:{md}")]);
    if !label.is_empty() {
        command.args([
            "-pkeyopt",
            &format!(
                "rsa_oaep_label:{}",
                label.iter().map(|b| format!("{b:02x}")).collect::<String>()
            ),
        ]);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("openssl runs");
    child.stdin.take().unwrap().write_all(ciphertext).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "openssl: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

#[test]
fn openssl_ciphertexts_decrypt_with_a_created_private_key() {
    let message = fixture("rsa-oaep/message.txt");
    with_token(|_| {
        let session = open(FIPS);
        let (_, private) = import_openssl_key(session);
        for (hash, mgf, file) in [
            (CKM_SHA256, CKG_MGF1_SHA256, "sha256"),
            (CKM_SHA384, CKG_MGF1_SHA384, "sha384"),
            (CKM_SHA512, CKG_MGF1_SHA512, "sha512"),
        ] {
            let mut params = oaep(hash, mgf, b"");
            let mut mechanism = with_param(CKM_RSA_PKCS_OAEP, &mut params);
            let ciphertext = fixture(&format!("rsa-oaep/{file}.bin"));
            let plaintext = crypt(session, &mut mechanism, private, &ciphertext, false);
            assert_eq!(plaintext, Ok(message.clone()), "{file}");
            assert_eq!(
                validation_flags(session),
                VALIDATION_FLAG_POLICY,
                "{file}: approved under fips-140-3"
            );
        }
        let mut params = sha256(LABEL);
        let mut labelled = with_param(CKM_RSA_PKCS_OAEP, &mut params);
        let ciphertext = fixture("rsa-oaep/sha256-label.bin");
        assert_eq!(
            crypt(session, &mut labelled, private, &ciphertext, false),
            Ok(message.clone())
        );
        // The wrong label, or none, is a bad ciphertext.
        let mut params = sha256(b"Regula label!");
        let mut wrong = with_param(CKM_RSA_PKCS_OAEP, &mut params);
        assert_eq!(
            crypt(session, &mut wrong, private, &ciphertext, false),
            Err(CKR_ENCRYPTED_DATA_INVALID)
        );
        let mut params = sha256(b"");
        let mut none = with_param(CKM_RSA_PKCS_OAEP, &mut params);
        assert_eq!(
            crypt(session, &mut none, private, &ciphertext, false),
            Err(CKR_ENCRYPTED_DATA_INVALID)
        );
        // SHA-1 OAEP is not served by fips-140-3, but by the default slot.
        let mut params = oaep(CKM_SHA_1, CKG_MGF1_SHA1, b"");
        let mut sha1 = with_param(CKM_RSA_PKCS_OAEP, &mut params);
        let ciphertext = fixture("rsa-oaep/sha1.bin");
        assert_eq!(
            crypt(session, &mut sha1, private, &ciphertext, false),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let default = open(DEFAULT);
        let (_, private) = import_openssl_key(default);
        assert_eq!(
            crypt(default, &mut sha1, private, &ciphertext, false),
            Ok(message.clone())
        );
    });
}

#[test]
fn openssl_decrypts_what_the_token_encrypts() {
    with_token(|_| {
        let session = open(FIPS);
        let (public, _) = import_openssl_key(session);
        let message = b"from the token to OpenSSL";
        for (hash, mgf, md) in [
            (CKM_SHA256, CKG_MGF1_SHA256, "sha256"),
            (CKM_SHA384, CKG_MGF1_SHA384, "sha384"),
            (CKM_SHA512, CKG_MGF1_SHA512, "sha512"),
        ] {
            for label in [&b""[..], LABEL] {
                let mut params = oaep(hash, mgf, label);
                let mut mechanism = with_param(CKM_RSA_PKCS_OAEP, &mut params);
                let ciphertext = crypt(session, &mut mechanism, public, message, true).unwrap();
                assert_eq!(ciphertext.len(), 256);
                assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
                assert_eq!(openssl_decrypt(&ciphertext, md, label), message, "{md}");
            }
        }
    });
}

#[test]
fn a_generated_pair_round_trips_and_the_length_protocol_holds() {
    with_token(|_| {
        let session = open(FIPS);
        let key_type = CKK_RSA;
        let bits: CK_ULONG = 2048;
        let mut public = [
            attribute(CKA_KEY_TYPE, &key_type),
            attribute(CKA_MODULUS_BITS, &bits),
            attribute(CKA_ENCRYPT, &TRUE),
        ];
        let mut private = [
            attribute(CKA_KEY_TYPE, &key_type),
            attribute(CKA_PRIVATE, &TRUE),
            attribute(CKA_DECRYPT, &TRUE),
        ];
        let mut generator = mechanism(CKM_RSA_PKCS_KEY_PAIR_GEN);
        let (public, private) =
            generate_key_pair(session, &mut generator, &mut public, &mut private).unwrap();
        let mut params = sha256(LABEL);
        let mut mechanism = with_param(CKM_RSA_PKCS_OAEP, &mut params);
        // The longest message: k - 2·hLen - 2 = 190 bytes; one more is refused.
        let message = [0x5a; 190];
        // SAFETY: live locals and buffers of the lengths given.
        unsafe {
            assert_eq!(C_EncryptInit(session, &mut mechanism, public), CKR_OK);
            let mut len = 0;
            let data = message.as_ptr().cast_mut();
            assert_eq!(C_Encrypt(session, data, 190, null_mut(), &mut len), CKR_OK);
            assert_eq!(len, 256);
            let mut small = [0u8; 255];
            len = 255;
            assert_eq!(
                C_Encrypt(session, data, 190, small.as_mut_ptr(), &mut len),
                CKR_BUFFER_TOO_SMALL
            );
            assert_eq!(len, 256);
            // The operation goes on after a length answer.
            let mut ciphertext = [0u8; 300];
            len = 300;
            assert_eq!(
                C_Encrypt(session, data, 190, ciphertext.as_mut_ptr(), &mut len),
                CKR_OK
            );
            assert_eq!(len, 256);
            let ciphertext = &ciphertext[..256];

            assert_eq!(C_DecryptInit(session, &mut mechanism, private), CKR_OK);
            let input = ciphertext.as_ptr().cast_mut();
            len = 0;
            assert_eq!(C_Decrypt(session, input, 256, null_mut(), &mut len), CKR_OK);
            assert_eq!(len, 190, "the exact plaintext length");
            let mut small = [0u8; 189];
            len = 189;
            assert_eq!(
                C_Decrypt(session, input, 256, small.as_mut_ptr(), &mut len),
                CKR_BUFFER_TOO_SMALL
            );
            assert_eq!(small, [0u8; 189], "nothing written to a short buffer");
            let mut plaintext = [0u8; 190];
            len = 190;
            assert_eq!(
                C_Decrypt(session, input, 256, plaintext.as_mut_ptr(), &mut len),
                CKR_OK
            );
            assert_eq!(&plaintext[..len as usize], &message[..]);
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);

            // 191 bytes are too many for SHA-256 under a 2048-bit key.
            let long = [0u8; 191];
            assert_eq!(C_EncryptInit(session, &mut mechanism, public), CKR_OK);
            len = 0;
            assert_eq!(
                C_Encrypt(session, long.as_ptr().cast_mut(), 191, null_mut(), &mut len),
                CKR_DATA_LEN_RANGE
            );
            // RSA-OAEP is single-part: an update is refused and ends the operation.
            assert_eq!(C_EncryptInit(session, &mut mechanism, public), CKR_OK);
            len = 0;
            let mut out = [0u8; 256];
            assert_eq!(
                C_EncryptUpdate(
                    session,
                    long.as_ptr().cast_mut(),
                    10,
                    out.as_mut_ptr(),
                    &mut len
                ),
                CKR_MECHANISM_INVALID
            );
            assert_eq!(
                C_Encrypt(session, long.as_ptr().cast_mut(), 10, null_mut(), &mut len),
                CKR_OPERATION_NOT_INITIALIZED
            );
        }
    });
}

#[test]
fn a_bad_ciphertext_is_refused_whole() {
    with_token(|_| {
        let session = open(DEFAULT);
        let (_, private) = import_openssl_key(session);
        let mut params = sha256(b"");
        let mut mechanism = with_param(CKM_RSA_PKCS_OAEP, &mut params);
        let mut ciphertext = fixture("rsa-oaep/sha256.bin");
        ciphertext[40] ^= 0x01;
        // SAFETY: live locals and buffers of the lengths given.
        unsafe {
            assert_eq!(C_DecryptInit(session, &mut mechanism, private), CKR_OK);
            let mut plaintext = [0xEEu8; 256];
            let mut len = 256;
            assert_eq!(
                C_Decrypt(
                    session,
                    ciphertext.as_mut_ptr(),
                    256,
                    plaintext.as_mut_ptr(),
                    &mut len
                ),
                CKR_ENCRYPTED_DATA_INVALID
            );
            assert_eq!(plaintext, [0xEE; 256], "no partial output");
            // The failure ended the operation.
            assert_eq!(
                C_Decrypt(session, ciphertext.as_mut_ptr(), 256, null_mut(), &mut len),
                CKR_OPERATION_NOT_INITIALIZED
            );
            // A ciphertext shorter than the modulus.
            assert_eq!(C_DecryptInit(session, &mut mechanism, private), CKR_OK);
            assert_eq!(
                C_Decrypt(session, ciphertext.as_mut_ptr(), 255, null_mut(), &mut len),
                CKR_ENCRYPTED_DATA_LEN_RANGE
            );
        }
    });
}

#[test]
fn bad_parameters_keys_and_slots_are_refused() {
    with_token(|_| {
        let session = open(FIPS);
        let (public, private) = import_openssl_key(session);
        let init = |mechanism: &mut CK_MECHANISM, key, encrypt: bool| {
            // SAFETY: live locals.
            let rv = unsafe {
                if encrypt {
                    C_EncryptInit(session, mechanism, key)
                } else {
                    C_DecryptInit(session, mechanism, key)
                }
            };
            if rv == CKR_OK {
                // End the operation, so that the next init may start one.
                let mut len = 0;
                let data = [0u8; 1];
                // SAFETY: live locals.
                unsafe {
                    if encrypt {
                        C_Encrypt(session, data.as_ptr().cast_mut(), 1, null_mut(), &mut len);
                        let mut out = [0u8; 256];
                        len = 256;
                        C_Encrypt(
                            session,
                            data.as_ptr().cast_mut(),
                            1,
                            out.as_mut_ptr(),
                            &mut len,
                        );
                    } else {
                        C_Decrypt(session, data.as_ptr().cast_mut(), 1, null_mut(), &mut len);
                    }
                }
            }
            rv
        };
        let bad = [
            oaep(CKM_SHA256, CKG_MGF1_SHA1, b""),
            oaep(CKM_SHA384, CKG_MGF1_SHA256, b""),
            oaep(CKM_SHA224, CKG_MGF1_SHA224, b""),
            CK_RSA_PKCS_OAEP_PARAMS {
                source: 0,
                ..sha256(b"")
            },
            CK_RSA_PKCS_OAEP_PARAMS {
                ulSourceDataLen: 8,
                ..sha256(b"")
            },
        ];
        for mut params in bad {
            let mut mechanism = with_param(CKM_RSA_PKCS_OAEP, &mut params);
            assert_eq!(
                init(&mut mechanism, public, true),
                CKR_MECHANISM_PARAM_INVALID,
                "{:#x} {:#x} {}",
                params.hashAlg,
                params.mgf,
                params.source
            );
        }
        let mut no_params = mechanism(CKM_RSA_PKCS_OAEP);
        assert_eq!(
            init(&mut no_params, private, false),
            CKR_MECHANISM_PARAM_INVALID
        );
        let mut params = sha256(b"");
        let mut short = with_param(CKM_RSA_PKCS_OAEP, &mut params);
        short.ulParameterLen -= 1;
        assert_eq!(init(&mut short, public, true), CKR_MECHANISM_PARAM_INVALID);
        // The public key does not decrypt, the private key does not encrypt.
        let mut params = sha256(b"");
        let mut good = with_param(CKM_RSA_PKCS_OAEP, &mut params);
        assert_eq!(init(&mut good, public, false), CKR_KEY_TYPE_INCONSISTENT);
        assert_eq!(init(&mut good, private, true), CKR_KEY_TYPE_INCONSISTENT);
        assert_eq!(init(&mut good, public, true), CKR_OK);
        // A key not permitted CKA_ENCRYPT.
        let parts = openssl_rsa_components(&data().join("keys/rsa2048.pem"));
        let (class, key_type) = (CKO_PUBLIC_KEY, CKK_RSA);
        let mut template = [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            attribute(CKA_VERIFY, &TRUE),
            bytes(CKA_MODULUS, &parts[0]),
            bytes(CKA_PUBLIC_EXPONENT, &parts[1]),
        ];
        let verify_only = create_object(session, &mut template);
        assert_eq!(
            init(&mut good, verify_only, true),
            CKR_KEY_FUNCTION_NOT_PERMITTED
        );
        // The gm slot serves no RSA-OAEP, and does not list it.
        let gm = open(GM);
        assert_eq!(init_on(gm, &mut good, 1), CKR_MECHANISM_INVALID);
        let mut info = CK_MECHANISM_INFO {
            ulMinKeySize: 0,
            ulMaxKeySize: 0,
            flags: 0,
        };
        // SAFETY: a pointer to a local.
        unsafe {
            assert_eq!(
                C_GetMechanismInfo(GM, CKM_RSA_PKCS_OAEP, &mut info),
                CKR_MECHANISM_INVALID
            );
            assert_eq!(
                C_GetMechanismInfo(FIPS, CKM_RSA_PKCS_OAEP, &mut info),
                CKR_OK
            );
        }
        assert_eq!((info.ulMinKeySize, info.ulMaxKeySize), (2048, 4096));
        assert_eq!(info.flags, CKF_ENCRYPT | CKF_DECRYPT);
    });
}

/// `C_EncryptInit` on another session with a handle that may not be its slot's.
fn init_on(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
) -> CK_RV {
    // SAFETY: live locals.
    unsafe { C_EncryptInit(session, mechanism, key) }
}
