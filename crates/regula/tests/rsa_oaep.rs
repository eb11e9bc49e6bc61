//! RSA-OAEP through the public API: ciphertexts made by OpenSSL's `openssl pkeyutl` (an
//! independent peer, `tests/data/rsa-oaep/README.md`) decrypt; ciphertexts made here decrypt
//! with OpenSSL; a wrong label, a tampered ciphertext and a policy's refusal are typed errors.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use regula::{Algorithm, CiphertextFormat, Error, Module, Policy, Profile};

const ALL_OAEP: [(Algorithm, &str); 4] = [
    (Algorithm::RsaOaepSha1, "sha1"),
    (Algorithm::RsaOaepSha256, "sha256"),
    (Algorithm::RsaOaepSha384, "sha384"),
    (Algorithm::RsaOaepSha512, "sha512"),
];

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn module(profile: Profile) -> Module {
    Module::load(Policy::builtin(profile))
}

fn peer_key(module: &Module, algorithm: Algorithm) -> regula::DecryptionKey {
    module
        .decryption_key_from_pkcs8(algorithm, &read("keys/rsa2048.der"))
        .unwrap_or_else(|error| panic!("{algorithm}: {error}"))
        .into_value()
}

#[test]
fn ciphertexts_made_by_openssl_decrypt() {
    let module = module(Profile::Default);
    let message = read("rsa-oaep/message.txt");
    for (algorithm, md) in ALL_OAEP {
        let key = peer_key(&module, algorithm);
        assert_eq!(key.key_bits(), 2048);
        let plaintext = key
            .decrypt(
                &read(&format!("rsa-oaep/{md}.bin")),
                CiphertextFormat::default(),
            )
            .unwrap_or_else(|error| panic!("{algorithm}: {error}"));
        assert_eq!(plaintext.as_slice(), message.as_slice(), "{algorithm}");
        // Another hash than the one the peer used fails the padding check.
        let other = if algorithm == Algorithm::RsaOaepSha256 {
            "sha384"
        } else {
            "sha256"
        };
        assert_eq!(
            key.decrypt_with_label(&read(&format!("rsa-oaep/{other}.bin")), b"")
                .map(drop),
            Err(Error::AuthenticationFailed),
            "{algorithm} given a {other} ciphertext"
        );
    }
}

#[test]
fn the_label_must_match() {
    let module = module(Profile::Fips1403);
    let key = peer_key(&module, Algorithm::RsaOaepSha256);
    let ciphertext = read("rsa-oaep/sha256-label.bin");
    let plaintext = key
        .decrypt_with_label(&ciphertext, b"Regula label")
        .unwrap();
    assert_eq!(plaintext.as_slice(), read("rsa-oaep/message.txt"));
    assert!(plaintext.is_approved(), "RSA-OAEP-SHA256 under fips-140-3");
    for wrong in [&b""[..], b"Regula label!", b"regula label"] {
        assert_eq!(
            key.decrypt_with_label(&ciphertext, wrong).map(drop),
            Err(Error::AuthenticationFailed),
            "label {wrong:?}"
        );
    }
    // A ciphertext with the empty label is refused under a label.
    assert_eq!(
        key.decrypt_with_label(&read("rsa-oaep/sha256.bin"), b"Regula label")
            .map(drop),
        Err(Error::AuthenticationFailed)
    );
}

#[test]
fn a_tampered_ciphertext_is_refused_with_nothing_released() {
    let module = module(Profile::Default);
    let key = peer_key(&module, Algorithm::RsaOaepSha256);
    let ciphertext = read("rsa-oaep/sha256.bin");
    for position in [0, 1, 100, ciphertext.len() - 1] {
        let mut tampered = ciphertext.clone();
        tampered[position] ^= 0x40;
        assert_eq!(
            key.decrypt_with_label(&tampered, b"").map(drop),
            Err(Error::AuthenticationFailed),
            "byte {position} flipped"
        );
    }
    // A ciphertext longer or shorter than the modulus is malformed input.
    for length in [0, ciphertext.len() - 1, ciphertext.len() + 1] {
        let mut wrong = ciphertext.clone();
        wrong.resize(length, 0);
        assert!(
            matches!(
                key.decrypt_with_label(&wrong, b""),
                Err(Error::InvalidInput { .. })
            ),
            "{length} bytes"
        );
    }
}

#[test]
fn round_trip_with_a_generated_key_and_the_size_limit() {
    let module = module(Profile::Fips1403);
    let key = module
        .generate_rsa_oaep_key(Algorithm::RsaOaepSha256, 2048)
        .unwrap();
    assert!(key.is_approved());
    let key = key.into_value();
    let public_key = key.public_key_der().unwrap();
    let max = key.max_plaintext_len().unwrap();
    assert_eq!(max, 256 - 2 * 32 - 2);
    for length in [0, 1, max] {
        let message = vec![0xA5; length];
        let ciphertext = module
            .rsa_oaep_encrypt(Algorithm::RsaOaepSha256, &public_key, &message, b"ctx")
            .unwrap();
        assert!(ciphertext.is_approved());
        assert_eq!(ciphertext.len(), 256);
        let plaintext = key.decrypt_with_label(&ciphertext, b"ctx").unwrap();
        assert_eq!(plaintext.as_slice(), message.as_slice(), "{length} bytes");
    }
    assert!(matches!(
        module.rsa_oaep_encrypt(
            Algorithm::RsaOaepSha256,
            &public_key,
            &vec![0; max + 1],
            b""
        ),
        Err(Error::InvalidInput { .. })
    ));
    // The PKCS#8 export imports back to the same key.
    let again = module
        .decryption_key_from_pkcs8(Algorithm::RsaOaepSha256, &key.to_pkcs8_der().unwrap())
        .unwrap()
        .into_value();
    assert_eq!(again.public_key_der().unwrap(), public_key);
}

#[test]
fn policies_refuse_what_they_do_not_serve() {
    let pkcs8 = read("keys/rsa2048.der");
    let public_key = read("keys/rsa2048.pub.der");
    // GM/T serves no RSA.
    let gm = module(Profile::Gm);
    assert!(matches!(
        gm.decryption_key_from_pkcs8(Algorithm::RsaOaepSha256, &pkcs8),
        Err(Error::NotApproved { .. })
    ));
    assert!(matches!(
        gm.rsa_oaep_encrypt(Algorithm::RsaOaepSha256, &public_key, b"m", b""),
        Err(Error::NotApproved { .. })
    ));
    // fips-140-3 does not serve the SHA-1 variant, nor moduli above 4096 bits.
    let fips = module(Profile::Fips1403);
    assert!(matches!(
        fips.rsa_oaep_encrypt(Algorithm::RsaOaepSha1, &public_key, b"m", b""),
        Err(Error::NotApproved { .. })
    ));
    assert!(matches!(
        fips.generate_rsa_oaep_key(Algorithm::RsaOaepSha256, 8192),
        Err(Error::NotApproved { .. })
    ));
    // cnsa-2.0: SHA-384/512 with RSA-3072 and up only.
    let cnsa = module(Profile::Cnsa20);
    assert!(matches!(
        cnsa.rsa_oaep_encrypt(Algorithm::RsaOaepSha384, &public_key, b"m", b""),
        Err(Error::NotApproved { .. })
    ));
    assert!(matches!(
        cnsa.rsa_oaep_encrypt(Algorithm::RsaOaepSha256, &public_key, b"m", b""),
        Err(Error::NotApproved { .. })
    ));
    // Not a key size AWS-LC generates.
    assert!(matches!(
        module(Profile::Default).generate_rsa_oaep_key(Algorithm::RsaOaepSha256, 3000),
        Err(Error::InvalidInput { .. })
    ));
    // An SM2 key is no RSA-OAEP key, and an RSA key no SM2 key.
    assert!(matches!(
        module(Profile::Default).rsa_oaep_encrypt(Algorithm::Sm2Encrypt, &public_key, b"m", b""),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        module(Profile::Default).decryption_key_from_pkcs8(Algorithm::Sm2Encrypt, &pkcs8),
        Err(Error::InvalidKey { .. })
    ));
}

/// `openssl pkeyutl -decrypt` with the fixture's private key, or `None` without the command.
fn openssl_decrypt(ciphertext: &[u8], md: &str, label: &[u8]) -> Option<Vec<u8>> {
    let mut command = Command::new("openssl");
    command
        .args(["pkeyutl", "-decrypt", "-inkey"])
        .arg(data("keys/rsa2048.pem"))
        .args(["-pkeyopt", "rsa_padding_mode:oaep"])
        .args(["-pkeyopt", &format!("rsa_oaep_md:{md}")])
        .args(["-pkeyopt", &format!("rsa_mgf1_md:{md}")]);
    if !label.is_empty() {
        command.args([
            "-pkeyopt",
            &format!("rsa_oaep_label:{}", hex::encode(label)),
        ]);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(ciphertext).ok()?;
    let output = child.wait_with_output().ok()?;
    assert!(
        output.status.success(),
        "openssl: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(output.stdout)
}

#[test]
fn openssl_decrypts_what_regula_encrypts() {
    let module = module(Profile::Default);
    let public_key = read("keys/rsa2048.pub.der");
    let message = b"from Regula to OpenSSL";
    for (algorithm, md) in ALL_OAEP {
        for label in [&b""[..], b"Regula label"] {
            let ciphertext = module
                .rsa_oaep_encrypt(algorithm, &public_key, message, label)
                .unwrap();
            let Some(plaintext) = openssl_decrypt(&ciphertext, md, label) else {
                assert_ne!(
                    std::env::var("CI").as_deref(),
                    Ok("true"),
                    "the openssl command is needed in CI"
                );
                eprintln!("skipped: no openssl command");
                return;
            };
            assert_eq!(plaintext, message, "{algorithm} label {label:?}");
        }
    }
}
