//! SM2 differential tests against independent implementations, each skipped with a note when
//! the peer is missing:
//! - the OpenSSL 3 command line: PKCS#8/SPKI PEM both ways, `pkeyutl -sign/-verify -rawin
//!   -digest sm3 -pkeyopt distid:ID` both ways, `pkeyutl -encrypt/-decrypt` (GM/T 0009 ASN.1
//!   ciphertexts) both ways;
//! - PyPI `gmssl` (pure Python): `C1 ‖ C3 ‖ C2` encryption both ways.

mod common;

use std::path::PathBuf;
use std::process::Command;

use regula_sm::sm2::{self, CiphertextFormat, DEFAULT_ID, Error, PrivateKey, PublicKey, Signature};

fn random(out: &mut [u8]) -> Result<(), Error> {
    rand::fill(out);
    Ok(())
}

/// Runs a command with `input` on stdin; its stdout if it exited 0.
fn run(program: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    common::run_with_input(Command::new(program).args(args), input)
}

/// A scratch directory unique to this process and test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("regula-sm2-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn openssl_has_sm2() -> bool {
    let available = run("openssl", &["genpkey", "-algorithm", "SM2"], b"").is_some();
    if !available {
        println!("note: skipped, `openssl genpkey -algorithm SM2` is unavailable on this machine");
    }
    available
}

fn path(dir: &std::path::Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn openssl_keys_are_read_and_ours_are_read_by_openssl() {
    if !openssl_has_sm2() {
        return;
    }
    let pem = run("openssl", &["genpkey", "-algorithm", "SM2"], b"").unwrap();
    let pem = String::from_utf8(pem).unwrap();
    let key = PrivateKey::from_pkcs8_pem(&pem).unwrap();
    let their_spki = run(
        "openssl",
        &["pkey", "-pubout", "-outform", "DER"],
        pem.as_bytes(),
    )
    .unwrap();
    assert_eq!(key.public_key().to_spki_der().unwrap(), their_spki);
    assert_eq!(
        &PublicKey::from_spki_der(&their_spki).unwrap(),
        key.public_key()
    );

    let ours = PrivateKey::generate(&mut random).unwrap();
    let our_pem = ours.to_pkcs8_pem().unwrap();
    let their_view = run(
        "openssl",
        &["pkey", "-pubout", "-outform", "DER"],
        our_pem.as_bytes(),
    )
    .expect("openssl reads our PKCS#8 PEM");
    assert_eq!(their_view, ours.public_key().to_spki_der().unwrap());
    let our_der = ours.to_pkcs8_der().unwrap();
    // `pkey -outform DER` would write SEC 1; `pkcs8 -topk8` writes PKCS#8.
    let their_der = run(
        "openssl",
        &[
            "pkcs8", "-topk8", "-nocrypt", "-inform", "DER", "-outform", "DER",
        ],
        &our_der,
    )
    .expect("openssl reads our PKCS#8 DER");
    assert_eq!(PrivateKey::from_pkcs8_der(&their_der).unwrap(), ours);
    let spki_pem = ours.public_key().to_spki_pem().unwrap();
    run(
        "openssl",
        &["pkey", "-pubin", "-noout"],
        spki_pem.as_bytes(),
    )
    .expect("openssl reads our SPKI PEM");
}

#[test]
fn signatures_verify_both_ways_with_openssl() {
    if !openssl_has_sm2() {
        return;
    }
    let dir = scratch("sign");
    let key = PrivateKey::generate(&mut random).unwrap();
    std::fs::write(dir.join("key.pem"), key.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
    std::fs::write(dir.join("pub.pem"), key.public_key().to_spki_pem().unwrap()).unwrap();
    let (key_file, pub_file, sig_file) = (
        path(&dir, "key.pem"),
        path(&dir, "pub.pem"),
        path(&dir, "sig.der"),
    );
    for (id, message) in [
        (DEFAULT_ID, &b"message digest"[..]),
        (&b"TLSv1.3+GM+Cipher+Suite"[..], &[0x5au8; 1000][..]),
    ] {
        let distid = format!("distid:{}", std::str::from_utf8(id).unwrap());
        // Ours → OpenSSL.
        let signature = sm2::sign(&key, id, message, &mut random).unwrap();
        std::fs::write(&sig_file, signature.to_der()).unwrap();
        let verified = run(
            "openssl",
            &[
                "pkeyutl", "-verify", "-rawin", "-digest", "sm3", "-pubin", "-inkey", &pub_file,
                "-pkeyopt", &distid, "-sigfile", &sig_file,
            ],
            message,
        );
        assert!(verified.is_some(), "openssl rejected our signature");
        // OpenSSL → ours.
        let theirs = run(
            "openssl",
            &[
                "pkeyutl", "-sign", "-rawin", "-digest", "sm3", "-inkey", &key_file, "-pkeyopt",
                &distid,
            ],
            message,
        )
        .unwrap();
        let parsed = Signature::from_der(&theirs).unwrap();
        sm2::verify(key.public_key(), id, message, &parsed).unwrap();
        assert_eq!(
            sm2::verify(key.public_key(), b"wrong id", message, &parsed),
            Err(Error::BadSignature)
        );
    }
    // A flipped bit in our signature is rejected by OpenSSL too (the test can fail).
    let signature = sm2::sign(&key, DEFAULT_ID, b"m", &mut random).unwrap();
    let mut der = signature.to_der();
    let last = der.len() - 1;
    der[last] ^= 1;
    std::fs::write(&sig_file, der).unwrap();
    let verified = run(
        "openssl",
        &[
            "pkeyutl",
            "-verify",
            "-rawin",
            "-digest",
            "sm3",
            "-pubin",
            "-inkey",
            &pub_file,
            "-pkeyopt",
            "distid:1234567812345678",
            "-sigfile",
            &sig_file,
        ],
        b"m",
    );
    assert!(verified.is_none(), "openssl accepted a corrupted signature");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn encryption_interoperates_with_openssl_asn1() {
    if !openssl_has_sm2() {
        return;
    }
    let dir = scratch("encrypt");
    let key = PrivateKey::generate(&mut random).unwrap();
    std::fs::write(dir.join("key.pem"), key.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
    std::fs::write(dir.join("pub.pem"), key.public_key().to_spki_pem().unwrap()).unwrap();
    let (key_file, pub_file) = (path(&dir, "key.pem"), path(&dir, "pub.pem"));
    for len in [1usize, 32, 33, 1000] {
        let message: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
        let theirs = run(
            "openssl",
            &["pkeyutl", "-encrypt", "-pubin", "-inkey", &pub_file],
            &message,
        )
        .unwrap();
        assert_eq!(
            sm2::decrypt(&key, &theirs, CiphertextFormat::Asn1).unwrap(),
            message
        );
        let ours = sm2::encrypt(
            key.public_key(),
            &message,
            CiphertextFormat::Asn1,
            &mut random,
        )
        .unwrap();
        let decrypted = run(
            "openssl",
            &["pkeyutl", "-decrypt", "-inkey", &key_file],
            &ours,
        )
        .expect("openssl decrypts our ciphertext");
        assert_eq!(decrypted, message);
    }
    std::fs::remove_dir_all(dir).ok();
}

/// Runs a Python snippet that imports gmssl; `None` (with a note) when python3 or gmssl is
/// missing.
fn gmssl(script: &str) -> Option<String> {
    let output = run("python3", &["-c", script], b"");
    if output.is_none() {
        println!("note: skipped, python3 with the `gmssl` package is unavailable");
    }
    output.map(|out| String::from_utf8(out).unwrap().trim().to_string())
}

#[test]
fn c1c3c2_encryption_interoperates_with_python_gmssl() {
    let key = PrivateKey::generate(&mut random).unwrap();
    let private_hex = hex::encode(*key.to_bytes());
    // gmssl writes and reads C1 without the 04 prefix; mode=1 is C1 ‖ C3 ‖ C2.
    let public_hex = hex::encode(&key.public_key().to_uncompressed()[1..]);
    let message = b"regula sm2 differential test against gmssl";
    let ours = sm2::encrypt(
        key.public_key(),
        message,
        CiphertextFormat::C1C3C2,
        &mut random,
    )
    .unwrap();
    let script = format!(
        "from gmssl import sm2\n\
         c = sm2.CryptSM2(private_key='{private_hex}', public_key='{public_hex}', mode=1)\n\
         print(c.decrypt(bytes.fromhex('{}')).hex())\n\
         print(c.encrypt(bytes.fromhex('{}')).hex())",
        hex::encode(&ours[1..]),
        hex::encode(message),
    );
    let Some(output) = gmssl(&script) else {
        return;
    };
    let mut lines = output.lines();
    assert_eq!(
        lines.next().unwrap(),
        hex::encode(message),
        "gmssl decrypted ours"
    );
    let theirs = hex::decode(lines.next().unwrap()).unwrap();
    let theirs = [&[0x04][..], &theirs].concat();
    assert_eq!(
        sm2::decrypt(&key, &theirs, CiphertextFormat::C1C3C2).unwrap(),
        message
    );
}
