//! The PEM/DER key decoder against keys made by the `openssl` command (tests/data/keys/README.md):
//! every accepted form gives exactly the DER OpenSSL wrote, and every refusal is typed and says
//! what was wrong without quoting the key.

use regula::key_encoding::{
    KeyEncodingError, KeyForm, KeyKind, PemProblem, decode, decode_private_key, decode_public_key,
};
use regula::{Algorithm, Error, ErrorKind, Module, Policy, Profile};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/keys/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

const KEYS: [&str; 4] = ["ed25519", "p256", "sm2", "rsa2048"];

/// Pieces of the input that must never appear in an error message: the start of every base64
/// line of a PEM file, and the start of the input's hex.
fn secrets(input: &[u8]) -> Vec<String> {
    let mut secrets: Vec<String> = String::from_utf8_lossy(input)
        .lines()
        .filter(|line| !line.starts_with("-----") && line.is_ascii() && line.len() >= 16)
        .map(|line| line[..16].to_string())
        .collect();
    let hex = hex(input);
    if hex.len() >= 16 {
        secrets.push(hex[..16].to_string());
    }
    secrets
}

fn refused(input: &[u8], kind: KeyKind) -> KeyEncodingError {
    match decode(input, kind) {
        Ok(key) => panic!("accepted as a {kind}: {key:?}"),
        Err(error) => {
            let message = Error::from(error.clone()).to_string();
            for secret in secrets(input) {
                assert!(!message.contains(&secret), "{message} contains {secret}");
            }
            error
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[test]
fn pem_private_keys_decode_to_openssls_pkcs8_der() {
    for name in KEYS {
        let key = decode_private_key(&fixture(&format!("{name}.pem"))).unwrap();
        assert_eq!(key.as_bytes(), fixture(&format!("{name}.der")), "{name}");
        assert_eq!((key.kind(), key.form()), (KeyKind::Private, KeyForm::Pem));
    }
}

#[test]
fn pem_public_keys_decode_to_openssls_spki_der() {
    for name in KEYS {
        let key = decode_public_key(&fixture(&format!("{name}.pub.pem"))).unwrap();
        assert_eq!(
            key.as_bytes(),
            fixture(&format!("{name}.pub.der")),
            "{name}"
        );
        assert_eq!((key.kind(), key.form()), (KeyKind::Public, KeyForm::Pem));
    }
}

#[test]
fn der_is_passed_on_unchanged() {
    for name in KEYS {
        for (file, kind) in [
            (format!("{name}.der"), KeyKind::Private),
            (format!("{name}.pub.der"), KeyKind::Public),
        ] {
            let der = fixture(&file);
            let key = decode(&der, kind).unwrap();
            assert_eq!(*key, der[..], "{file}");
            assert_eq!((key.kind(), key.form()), (kind, KeyForm::Der));
            assert_eq!(*key.into_der(), der);
        }
    }
    // Raw public keys (an uncompressed P-256 point, a 32-byte Ed25519 key) are for the
    // services to judge, as are DER documents of neither shape (SEC 1).
    let spki = fixture("p256.pub.der");
    let point = &spki[spki.len() - 65..];
    assert_eq!(point[0], 0x04);
    assert_eq!(*decode_public_key(point).unwrap(), *point);
    let spki = fixture("ed25519.pub.der");
    let raw = &spki[spki.len() - 32..];
    assert_eq!(*decode_public_key(raw).unwrap(), *raw);
    let sec1 = fixture("p256.sec1.der");
    assert_eq!(*decode_private_key(&sec1).unwrap(), sec1[..]);
}

#[test]
fn pem_variations_every_front_end_accepted() {
    let pem = fixture("p256.pem");
    let der = fixture("p256.der");
    let text = String::from_utf8(pem.clone()).unwrap();
    // Leading whitespace, CRLF line ends, no final newline, a second block after the first.
    let crlf = text.replace('\n', "\r\n");
    let variants = [
        format!("\n \t{text}"),
        crlf.clone(),
        text.trim_end().to_string(),
        format!(
            "{text}{}",
            String::from_utf8(fixture("p256.cert.pem")).unwrap()
        ),
    ];
    for variant in variants {
        assert_eq!(*decode_private_key(variant.as_bytes()).unwrap(), der[..]);
    }
}

#[test]
fn the_decoded_keys_work_in_the_module() {
    let module = Module::load(Policy::builtin(Profile::Default));
    for (name, algorithm) in [
        ("ed25519", Algorithm::Ed25519),
        ("p256", Algorithm::EcdsaP256),
        ("sm2", Algorithm::Sm2Sign),
    ] {
        let private = decode_private_key(&fixture(&format!("{name}.pem"))).unwrap();
        let key = module.signing_key_from_pkcs8(algorithm, &private).unwrap();
        let signature = key.sign(b"message").unwrap();
        let public = decode_public_key(&fixture(&format!("{name}.pub.pem"))).unwrap();
        module
            .verify(algorithm, &public, b"message", &signature)
            .unwrap();
        assert_eq!(
            module
                .verify(algorithm, &public, b"messagf", &signature)
                .unwrap_err(),
            Error::BadSignature,
            "{name}"
        );
    }
}

#[test]
fn empty_input_is_refused() {
    for input in [&b""[..], b" \r\n\t"] {
        for kind in [KeyKind::Private, KeyKind::Public] {
            let error = refused(input, kind);
            assert_eq!(error, KeyEncodingError::Empty { expected: kind });
            assert!(error.to_string().contains(&format!("the {kind} is empty")));
        }
    }
}

#[test]
fn malformed_pem_is_refused_with_the_problem() {
    let text = String::from_utf8(fixture("p256.pem")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let body = &lines[1..lines.len() - 1];
    let cases: Vec<(String, PemProblem)> = vec![
        // Truncated: the END line is gone, or cut in the middle.
        (lines[..lines.len() - 1].join("\n"), PemProblem::Framing),
        (text[..text.len() - 12].to_string(), PemProblem::Framing),
        ("-----BEGIN junk".to_string(), PemProblem::Framing),
        (
            "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n".to_string(),
            PemProblem::Base64,
        ),
        // Characters lost in the middle leave base64 of the wrong length.
        (
            format!(
                "{}\n{}\n{}\n{}\n",
                lines[0],
                &body[0][..61],
                body[1..].join("\n"),
                lines[lines.len() - 1]
            ),
            PemProblem::Base64,
        ),
        (
            text.replace("END PRIVATE KEY", "END PUBLIC KEY"),
            PemProblem::MismatchedLabels,
        ),
        (
            format!("-----BEGIN -----\n{}\n-----END -----\n", body.join("\n")),
            PemProblem::MissingBeginLabel,
        ),
        (
            format!(
                "{}\n{}\n\n{}\n{}\n",
                lines[0],
                body[0],
                body[1..].join("\n"),
                lines[lines.len() - 1]
            ),
            PemProblem::Header,
        ),
        (
            "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n".to_string(),
            PemProblem::NoData,
        ),
    ];
    for (input, problem) in cases {
        let error = refused(input.as_bytes(), KeyKind::Private);
        assert_eq!(error, KeyEncodingError::Pem { problem }, "{input}");
        assert!(error.to_string().starts_with("bad PEM ("), "{error}");
    }
    let mut not_utf8 = b"-----BEGIN PRIVATE KEY-----\n".to_vec();
    not_utf8.extend_from_slice(&[0xff, 0xfe, b'\n']);
    not_utf8.extend_from_slice(b"-----END PRIVATE KEY-----\n");
    assert_eq!(
        refused(&not_utf8, KeyKind::Private),
        KeyEncodingError::Pem {
            problem: PemProblem::NotUtf8
        }
    );
}

#[test]
fn other_labels_are_refused_with_a_hint() {
    let cases = [
        (
            "p256.sec1.pem",
            KeyKind::Private,
            "EC PRIVATE KEY",
            "PKCS#8",
        ),
        (
            "p256.encrypted.pem",
            KeyKind::Private,
            "ENCRYPTED PRIVATE KEY",
            "decrypt it first",
        ),
        (
            "rsa2048.pkcs1.pub.pem",
            KeyKind::Public,
            "RSA PUBLIC KEY",
            "-RSAPublicKey_in -pubout",
        ),
        (
            "p256.cert.pem",
            KeyKind::Public,
            "CERTIFICATE",
            "x509 -pubkey",
        ),
        (
            "p256.cert.pem",
            KeyKind::Private,
            "CERTIFICATE",
            "PRIVATE KEY",
        ),
    ];
    for (file, kind, label, hint) in cases {
        let error = refused(&fixture(file), kind);
        assert_eq!(
            error,
            KeyEncodingError::UnsupportedLabel {
                label: label.to_string(),
                expected: kind
            }
        );
        let message = error.to_string();
        assert!(
            message.starts_with(&format!(
                "PEM label is `{label}`, expected `{}`",
                kind.pem_label()
            )),
            "{message}"
        );
        assert!(message.contains(hint), "{message}");
    }
}

#[test]
fn a_key_of_the_other_kind_is_named() {
    for name in KEYS {
        for (file, form) in [
            (format!("{name}.pem"), KeyForm::Pem),
            (format!("{name}.der"), KeyForm::Der),
        ] {
            let error = refused(&fixture(&file), KeyKind::Public);
            assert_eq!(
                error,
                KeyEncodingError::WrongKind {
                    found: KeyKind::Private,
                    expected: KeyKind::Public,
                    form
                },
                "{file}"
            );
            assert!(
                error
                    .to_string()
                    .contains("a private key was given where a public key is needed"),
                "{error}"
            );
        }
        for (file, form) in [
            (format!("{name}.pub.pem"), KeyForm::Pem),
            (format!("{name}.pub.der"), KeyForm::Der),
        ] {
            let error = refused(&fixture(&file), KeyKind::Private);
            assert_eq!(
                error,
                KeyEncodingError::WrongKind {
                    found: KeyKind::Public,
                    expected: KeyKind::Private,
                    form
                },
                "{file}"
            );
        }
    }
}

#[test]
fn errors_are_input_errors_of_the_core() {
    let error = Error::from(refused(b"-----BEGIN junk", KeyKind::Public));
    assert_eq!(error.kind(), ErrorKind::Input);
    assert_eq!(
        error.to_string(),
        "invalid key: bad PEM (no complete -----BEGIN/-----END armour)"
    );
}

#[test]
fn garbage_is_left_to_the_services() {
    // Bytes that are neither PEM nor a key of the other kind pass through; the service that
    // parses the key refuses them with its own input error.
    let module = Module::load(Policy::builtin(Profile::Default));
    let garbage = b"\x00\x01 this is not a key \xff";
    let private = decode_private_key(garbage).unwrap();
    let error = module
        .signing_key_from_pkcs8(Algorithm::EcdsaP256, &private)
        .err()
        .unwrap();
    assert_eq!(error.kind(), ErrorKind::Input);
    let public = decode_public_key(garbage).unwrap();
    let error = module
        .verify(Algorithm::EcdsaP256, &public, b"m", &[0; 64])
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input);
}
