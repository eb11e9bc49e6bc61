//! RSA: key pairs (`CKM_RSA_PKCS_KEY_PAIR_GEN`) and their attributes, PKCS#1 v1.5 and PSS
//! signatures checked by the OpenSSL command line, Wycheproof (C2SP) PKCS#1 v1.5 vectors
//! verified through a `C_CreateObject` public key, a private key imported from the components
//! OpenSSL gives, tampering refused, the indicator, and bad parameters refused.

mod common;

use std::path::Path;

use common::*;
use cryptoki_sys::*;
use regula_pkcs11::*;

const F4: [u8; 3] = [0x01, 0x00, 0x01];

/// The values of `tests/data/rsa-2048-sha256-wycheproof.txt`, by name.
fn wycheproof(name: &str) -> Vec<u8> {
    let text = include_str!("data/rsa-2048-sha256-wycheproof.txt");
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (key, value) = line.split_once(" =")?;
            (key == name).then(|| unhex(value.trim()))
        })
        .unwrap_or_else(|| panic!("{name} is in the vector file"))
}

fn rsa_key_pair(
    session: CK_SESSION_HANDLE,
    bits: CK_ULONG,
    exponent: &[u8],
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE), CK_RV> {
    let key_type = CKK_RSA;
    let mut public = [
        attribute(CKA_KEY_TYPE, &key_type),
        attribute(CKA_MODULUS_BITS, &bits),
        bytes(CKA_PUBLIC_EXPONENT, exponent),
        attribute(CKA_VERIFY, &TRUE),
        bytes(CKA_LABEL, b"rsa key"),
        bytes(CKA_ID, &[7]),
    ];
    let mut private = [
        attribute(CKA_KEY_TYPE, &key_type),
        attribute(CKA_PRIVATE, &TRUE),
        attribute(CKA_SENSITIVE, &TRUE),
        attribute(CKA_SIGN, &TRUE),
        attribute(CKA_DECRYPT, &TRUE),
        bytes(CKA_LABEL, b"rsa key"),
        bytes(CKA_ID, &[7]),
    ];
    let mut mechanism = mechanism(CKM_RSA_PKCS_KEY_PAIR_GEN);
    generate_key_pair(session, &mut mechanism, &mut public, &mut private)
}

fn sign(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    message: &[u8],
) -> Result<Vec<u8>, CK_RV> {
    sign_with(session, mechanism, key, message)
}

fn verify(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    message: &[u8],
    signature: &[u8],
) -> CK_RV {
    verify_with(session, mechanism, key, message, signature)
}

fn pss(hash: CK_MECHANISM_TYPE, mgf: CK_ULONG, salt: CK_ULONG) -> CK_RSA_PKCS_PSS_PARAMS {
    CK_RSA_PKCS_PSS_PARAMS {
        hashAlg: hash,
        mgf,
        sLen: salt,
    }
}

/// Whether `openssl dgst -sha256 -verify` accepts `signature` over `message` with the public
/// key `spki` (DER), with `sigopts` (e.g. PSS padding).
fn openssl_verifies(spki: &[u8], sigopts: &[&str], message: &[u8], signature: &[u8]) -> bool {
    let dir = fresh_dir("openssl-rsa");
    std::fs::write(dir.join("public.der"), spki).unwrap();
    std::fs::write(dir.join("signature"), signature).unwrap();
    std::fs::write(dir.join("message"), message).unwrap();
    let mut command = std::process::Command::new("openssl");
    command.current_dir(&dir).args([
        "dgst",
        "-sha256",
        "-verify",
        "public.der",
        "-keyform",
        "DER",
    ]);
    for option in sigopts {
        command.args(["-sigopt", option]);
    }
    let output = command
        .args(["-signature", "signature", "message"])
        .output()
        .expect("openssl runs");
    let _ = std::fs::remove_dir_all(&dir);
    output.status.success() && String::from_utf8_lossy(&output.stdout).contains("Verified OK")
}

/// OpenSSL's DER SubjectPublicKeyInfo of the public key (`n`, `e`), made by `openssl pkey`
/// from a key OpenSSL itself parses (`openssl asn1parse -genconf`), not by the token.
fn openssl_spki(modulus: &[u8], exponent: &[u8]) -> Vec<u8> {
    let dir = fresh_dir("openssl-spki");
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02X}")).collect::<String>();
    let conf = format!(
        "asn1=SEQUENCE:spki\n[spki]\nalgorithm=SEQUENCE:algorithm\nkey=BITWRAP,SEQUENCE:key\n\
         [algorithm]\noid=OID:rsaEncryption\nparams=NULL\n\
         [key]\nn=INTEGER:0x{}\ne=INTEGER:0x{}\n",
        hex(modulus),
        hex(exponent)
    );
    std::fs::write(dir.join("spki.conf"), conf).unwrap();
    let status = std::process::Command::new("openssl")
        .current_dir(&dir)
        .args([
            "asn1parse",
            "-genconf",
            "spki.conf",
            "-noout",
            "-out",
            "spki.der",
        ])
        .status()
        .expect("openssl runs");
    assert!(status.success());
    let output = std::process::Command::new("openssl")
        .current_dir(&dir)
        .args(["pkey", "-pubin", "-inform", "DER", "-in", "spki.der"])
        .args(["-pubout", "-outform", "DER"])
        .output()
        .expect("openssl runs");
    assert!(output.status.success(), "openssl pkey takes the key");
    let _ = std::fs::remove_dir_all(&dir);
    output.stdout
}

#[test]
fn rsa_key_pairs_sign_and_openssl_verifies() {
    with_token(|_| {
        for slot in [FIPS, DEFAULT] {
            let session = open(slot);
            let (public, private) = rsa_key_pair(session, 2048, &F4).unwrap();
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY, "keygen");
            let ulong = |value: CK_ULONG| value.to_ne_bytes().to_vec();
            let read = |object, kind| read(session, object, kind);
            assert_eq!(read(private, CKA_KEY_TYPE), Ok(ulong(CKK_RSA)));
            assert_eq!(read(public, CKA_MODULUS_BITS), Ok(ulong(2048)));
            assert_eq!(read(public, CKA_PUBLIC_EXPONENT), Ok(F4.to_vec()));
            assert_eq!(
                read(private, CKA_KEY_GEN_MECHANISM),
                Ok(ulong(CKM_RSA_PKCS_KEY_PAIR_GEN))
            );
            for kind in [CKA_SENSITIVE, CKA_ALWAYS_SENSITIVE, CKA_NEVER_EXTRACTABLE] {
                assert_eq!(read(private, kind), Ok(vec![TRUE]), "{kind:#x}");
            }
            // The private key is never given out.
            for kind in [CKA_PRIVATE_EXPONENT, CKA_PRIME_1, CKA_COEFFICIENT] {
                assert_eq!(
                    read(private, kind),
                    Err(CKR_ATTRIBUTE_SENSITIVE),
                    "{kind:#x}"
                );
            }
            let modulus = read(public, CKA_MODULUS).unwrap();
            assert_eq!(modulus.len(), 256);
            assert_eq!(read(private, CKA_MODULUS), Ok(modulus.clone()));
            let spki = openssl_spki(&modulus, &F4);
            assert_eq!(read(public, CKA_PUBLIC_KEY_INFO), Ok(spki.clone()));

            let message = b"the token signs this with RSA";
            let mut pkcs1 = mechanism(CKM_SHA256_RSA_PKCS);
            let signature = sign(session, &mut pkcs1, private, message).unwrap();
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY, "sign");
            assert_eq!(signature.len(), 256);
            assert!(openssl_verifies(&spki, &[], message, &signature));
            assert_eq!(
                verify(session, &mut pkcs1, public, message, &signature),
                CKR_OK
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY, "verify");
            // PKCS#1 v1.5 is deterministic: the same signature part by part.
            // SAFETY: live locals.
            unsafe {
                assert_eq!(C_SignInit(session, &mut pkcs1, private), CKR_OK);
                for part in message.chunks(7) {
                    let rv = C_SignUpdate(session, part.as_ptr().cast_mut(), part.len() as _);
                    assert_eq!(rv, CKR_OK);
                }
                let mut parts = vec![0u8; 256];
                let mut len = 1;
                let rv = C_SignFinal(session, parts.as_mut_ptr(), &mut len);
                assert_eq!((rv, len), (CKR_BUFFER_TOO_SMALL, 256));
                let rv = C_SignFinal(session, parts.as_mut_ptr(), &mut len);
                assert_eq!(rv, CKR_OK);
                assert_eq!(parts, signature);
            }
            let mut tampered = signature.clone();
            tampered[100] ^= 1;
            assert_eq!(
                verify(session, &mut pkcs1, public, message, &tampered),
                CKR_SIGNATURE_INVALID
            );
            assert_eq!(
                verify(session, &mut pkcs1, public, message, &signature[1..]),
                CKR_SIGNATURE_LEN_RANGE
            );

            let mut params = pss(CKM_SHA256, CKG_MGF1_SHA256, 32);
            let mut pss = with_param(CKM_SHA256_RSA_PKCS_PSS, &mut params);
            let signature = sign(session, &mut pss, private, message).unwrap();
            assert_eq!(
                validation_flags(session),
                VALIDATION_FLAG_POLICY,
                "PSS sign"
            );
            let options = ["rsa_padding_mode:pss", "rsa_pss_saltlen:32"];
            assert!(openssl_verifies(&spki, &options, message, &signature));
            assert!(!openssl_verifies(&spki, &[], message, &signature));
            assert_eq!(
                verify(session, &mut pss, public, message, &signature),
                CKR_OK
            );
            assert_eq!(
                verify(session, &mut pss, public, b"another message", &signature),
                CKR_SIGNATURE_INVALID
            );
            assert_eq!(C_CloseSession(session), CKR_OK);
        }
    });
}

#[test]
fn wycheproof_pkcs1_vectors_verify_with_a_created_public_key() {
    with_token(|_| {
        let session = open(FIPS);
        let (class, key_type) = (CKO_PUBLIC_KEY, CKK_RSA);
        let (modulus, exponent) = (wycheproof("n"), wycheproof("e"));
        let mut template = [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            bytes(CKA_MODULUS, &modulus),
            bytes(CKA_PUBLIC_EXPONENT, &exponent),
            attribute(CKA_VERIFY, &TRUE),
        ];
        let mut public = 0;
        // SAFETY: a template and a handle of live locals.
        let rv = unsafe {
            C_CreateObject(
                session,
                template.as_mut_ptr(),
                template.len() as _,
                &mut public,
            )
        };
        assert_eq!(rv, CKR_OK);
        assert_eq!(
            read(session, public, CKA_MODULUS_BITS),
            Ok(2048u64.to_ne_bytes().to_vec())
        );
        let mut pkcs1 = mechanism(CKM_SHA256_RSA_PKCS);
        for case in ["1", "3"] {
            let message = wycheproof(&format!("valid {case} msg"));
            let signature = wycheproof(&format!("valid {case} sig"));
            assert_eq!(
                verify(session, &mut pkcs1, public, &message, &signature),
                CKR_OK,
                "tcId {case}"
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            let mut tampered = signature.clone();
            tampered[255] ^= 0x80;
            assert_eq!(
                verify(session, &mut pkcs1, public, &message, &tampered),
                CKR_SIGNATURE_INVALID,
                "tcId {case} tampered"
            );
        }
        let message = wycheproof("invalid 9 msg");
        let signature = wycheproof("invalid 9 sig");
        assert_eq!(
            verify(session, &mut pkcs1, public, &message, &signature),
            CKR_SIGNATURE_INVALID
        );
        // The same signatures are not PSS signatures.
        let mut params = pss(CKM_SHA256, CKG_MGF1_SHA256, 32);
        let mut pss = with_param(CKM_SHA256_RSA_PKCS_PSS, &mut params);
        let message = wycheproof("valid 3 msg");
        let signature = wycheproof("valid 3 sig");
        assert_eq!(
            verify(session, &mut pss, public, &message, &signature),
            CKR_SIGNATURE_INVALID
        );
        // A public key does not sign.
        assert_eq!(
            sign(session, &mut pkcs1, public, &message),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
    });
}

#[test]
fn a_private_key_from_openssl_components_signs() {
    let keys = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regula/tests/data/keys");
    let parts = openssl_rsa_components(&keys.join("rsa2048.pem"));
    let spki = std::fs::read(keys.join("rsa2048.pub.der")).unwrap();
    with_token(|_| {
        let session = open(DEFAULT);
        let (class, key_type) = (CKO_PRIVATE_KEY, CKK_RSA);
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
        let mut template = vec![
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            attribute(CKA_SIGN, &TRUE),
        ];
        template.extend(
            kinds
                .iter()
                .zip(&parts)
                .map(|(kind, part)| bytes(*kind, part)),
        );
        let create = |template: &mut [CK_ATTRIBUTE]| {
            let mut handle = 0;
            // SAFETY: a template and a handle of live locals.
            let rv = unsafe {
                C_CreateObject(
                    session,
                    template.as_mut_ptr(),
                    template.len() as _,
                    &mut handle,
                )
            };
            (rv, handle)
        };
        let (rv, private) = create(&mut template);
        assert_eq!(rv, CKR_OK);
        assert_eq!(
            read(session, private, CKA_PUBLIC_KEY_INFO),
            Ok(spki.clone())
        );
        assert_eq!(
            read(session, private, CKA_ALWAYS_SENSITIVE),
            Ok(vec![FALSE])
        );
        let message = b"signed with a key OpenSSL made";
        let mut pkcs1 = mechanism(CKM_SHA256_RSA_PKCS);
        let signature = sign(session, &mut pkcs1, private, message).unwrap();
        assert!(openssl_verifies(&spki, &[], message, &signature));
        // A component that does not belong to the key is refused by the module's check.
        let mut wrong = parts[2].clone();
        wrong[10] ^= 1;
        let mut bad = template.clone();
        bad[5] = bytes(CKA_PRIVATE_EXPONENT, &wrong);
        assert_eq!(create(&mut bad).0, CKR_ATTRIBUTE_VALUE_INVALID);
        let long = vec![0x5a; 300];
        let mut bad = template.clone();
        bad[5] = bytes(CKA_PRIVATE_EXPONENT, &long);
        assert_eq!(create(&mut bad).0, CKR_ATTRIBUTE_VALUE_INVALID);
        // All eight components, or none.
        assert_eq!(create(&mut template[..10]).0, CKR_TEMPLATE_INCOMPLETE);
    });
}

#[test]
fn bad_sizes_exponents_and_parameters_are_refused() {
    with_token(|_| {
        let fips = open(FIPS);
        assert_eq!(
            rsa_key_pair(fips, 2048, &[0x03]),
            Err(CKR_ATTRIBUTE_VALUE_INVALID)
        );
        assert_eq!(rsa_key_pair(fips, 1024, &F4), Err(CKR_KEY_SIZE_RANGE));
        assert_eq!(rsa_key_pair(fips, 8192, &F4), Err(CKR_KEY_SIZE_RANGE));
        assert_eq!(rsa_key_pair(fips, 2047, &F4), Err(CKR_KEY_SIZE_RANGE));
        let gm = open(GM);
        assert_eq!(rsa_key_pair(gm, 2048, &F4), Err(CKR_MECHANISM_INVALID));

        let (public, private) = rsa_key_pair(fips, 2048, &F4).unwrap();
        let message = b"message";
        let refused = |mechanism: &mut CK_MECHANISM| sign(fips, mechanism, private, message);
        for (hash, mgf, salt) in [
            (CKM_SHA384, CKG_MGF1_SHA256, 32),
            (CKM_SHA256, CKG_MGF1_SHA384, 32),
            (CKM_SHA256, CKG_MGF1_SHA256, 20),
            (CKM_SHA256, CKG_MGF1_SHA256, 0),
        ] {
            let mut params = pss(hash, mgf, salt);
            assert_eq!(
                refused(&mut with_param(CKM_SHA256_RSA_PKCS_PSS, &mut params)),
                Err(CKR_MECHANISM_PARAM_INVALID),
                "{hash:#x} {mgf:#x} {salt}"
            );
        }
        assert_eq!(
            refused(&mut mechanism(CKM_SHA256_RSA_PKCS_PSS)),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let mut params = pss(CKM_SHA256, CKG_MGF1_SHA256, 32);
        assert_eq!(
            refused(&mut with_param(CKM_SHA256_RSA_PKCS, &mut params)),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // No SHA-1 signature, no raw RSA on a strict slot, no ECDSA with an RSA key.
        for kind in [
            CKM_SHA1_RSA_PKCS,
            CKM_RSA_PKCS,
            CKM_RSA_X_509,
            CKM_ECDSA_SHA256,
        ] {
            assert!(refused(&mut mechanism(kind)).is_err(), "{kind:#x}");
        }
        for kind in [CKM_SHA1_RSA_PKCS, CKM_RSA_PKCS, CKM_RSA_X_509] {
            assert_eq!(
                refused(&mut mechanism(kind)),
                Err(CKR_MECHANISM_INVALID),
                "{kind:#x}"
            );
        }
        // The other hashes sign with the same key.
        for kind in [CKM_SHA384_RSA_PKCS, CKM_SHA512_RSA_PKCS] {
            let signature = refused(&mut mechanism(kind)).unwrap();
            assert_eq!(
                verify(fips, &mut mechanism(kind), public, message, &signature),
                CKR_OK
            );
        }
        let mut params = pss(CKM_SHA512, CKG_MGF1_SHA512, 64);
        let signature = refused(&mut with_param(CKM_SHA512_RSA_PKCS_PSS, &mut params)).unwrap();
        assert_eq!(
            verify(
                fips,
                &mut with_param(CKM_SHA512_RSA_PKCS_PSS, &mut params),
                public,
                message,
                &signature
            ),
            CKR_OK
        );
        // A public key from a short modulus or an even exponent is not created.
        let (class, key_type) = (CKO_PUBLIC_KEY, CKK_RSA);
        for (modulus, exponent) in [(vec![0xc5; 128], F4.to_vec()), (vec![0xc5; 256], vec![4])] {
            let mut template = [
                attribute(CKA_CLASS, &class),
                attribute(CKA_KEY_TYPE, &key_type),
                bytes(CKA_MODULUS, &modulus),
                bytes(CKA_PUBLIC_EXPONENT, &exponent),
            ];
            let mut handle = 0;
            // SAFETY: a template and a handle of live locals.
            let rv = unsafe {
                C_CreateObject(
                    fips,
                    template.as_mut_ptr(),
                    template.len() as _,
                    &mut handle,
                )
            };
            assert_eq!(rv, CKR_ATTRIBUTE_VALUE_INVALID);
        }
    });
}
