//! The published file-format vectors (docs/file-format-vectors/vectors.json), written by the
//! default build and by the FIPS build: every valid one decrypts, in whichever build runs this
//! test, under each built-in profile that approves its algorithms, and is refused as not
//! approved under the others; every damaged one fails the way the vector says.
//!
//! Run in the default build and in the FIPS build (scripts/test), this is the cross-build check:
//! files written by either build read in the other.

use std::path::PathBuf;

use regula::{Error, Module, Policy, Profile};
use regula_files::file_format::{Decryptor, FileError, Identity, RecipientIdentity};
use serde_json::Value;

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/file-format-vectors")
}

/// Which built-in profiles may open a vector, from the format document's table (not from the
/// code under test): AES-256-GCM with HMAC-SHA-256 under default and fips-140-3 (not the X25519
/// hybrid under fips-140-3), SM4-GCM with HMAC-SM3 under default and gm, ChaCha20-Poly1305
/// under default only.
fn opens_under(vector: &Value) -> Vec<Profile> {
    let hybrid = vector["key"]["kind"] == "mlkem768-x25519";
    match (vector["aead"].as_str(), vector["prf"].as_str()) {
        (Some("aes-256-gcm"), Some("hmac-sha256")) if hybrid => vec![Profile::Default],
        (Some("aes-256-gcm"), Some("hmac-sha256")) => vec![Profile::Default, Profile::Fips1403],
        (Some("sm4-gcm"), Some("hmac-sm3")) => vec![Profile::Default, Profile::Gm],
        (Some("chacha20-poly1305"), Some("hmac-sha256")) => vec![Profile::Default],
        other => panic!(
            "vector {} has an unexpected suite {other:?}",
            vector["name"]
        ),
    }
}

fn decrypt(module: &Module, vector: &Value) -> Result<Vec<u8>, FileError> {
    let file = std::fs::read(vectors_dir().join(vector["file"].as_str().unwrap())).unwrap();
    let key = &vector["key"];
    let secret = |field: &str| hex::decode(key[field].as_str().unwrap()).unwrap();
    let decryptor = Decryptor::new(module, file.as_slice())?;
    let mut reader = match key["type"].as_str().unwrap() {
        "passphrase" => decryptor.unlock(&Identity::Passphrase(
            key["passphrase"].as_str().unwrap().as_bytes(),
        ))?,
        "key-file" => decryptor.unlock(&Identity::KeyFile(&secret("key_hex")))?,
        "identity" => {
            let identity = RecipientIdentity::from_bytes(&secret("identity_hex")).unwrap();
            decryptor.unlock(&Identity::Recipient(&identity))?
        }
        other => panic!("unknown key type {other}"),
    };
    let mut out = Vec::new();
    reader.read_to(&mut out)?;
    Ok(out)
}

#[test]
fn published_vectors_from_both_builds() {
    let index: Value = serde_json::from_slice(
        &std::fs::read(vectors_dir().join("vectors.json")).expect("vectors.json"),
    )
    .unwrap();
    assert_eq!(index["format_version"], 1);
    let vectors = index["vectors"].as_array().unwrap();
    let modules: Vec<(Profile, Module)> = Profile::ALL
        .into_iter()
        .map(|profile| (profile, Module::load(Policy::builtin(profile))))
        .collect();
    let mut counts = std::collections::BTreeMap::<(String, String), usize>::new();
    for vector in vectors {
        let name = vector["name"].as_str().unwrap();
        let written_by = vector["written_by"].as_str().unwrap().to_string();
        *counts
            .entry((written_by, vector["expect"].as_str().unwrap().to_string()))
            .or_default() += 1;
        match vector["expect"].as_str().unwrap() {
            "ok" => {
                let plaintext =
                    std::fs::read(vectors_dir().join(vector["plaintext"].as_str().unwrap()))
                        .unwrap();
                let allowed = opens_under(vector);
                for (profile, module) in &modules {
                    let result = decrypt(module, vector);
                    if allowed.contains(profile) {
                        let out = result
                            .unwrap_or_else(|error| panic!("{name} under {profile}: {error}"));
                        assert!(out == plaintext, "{name} under {profile}: wrong plaintext");
                    } else {
                        assert!(
                            matches!(result, Err(FileError::Module(Error::NotApproved { .. }))),
                            "{name} under {profile}: expected NotApproved, got {:?}",
                            result.map(|out| out.len())
                        );
                    }
                }
            }
            expect => {
                let result = decrypt(&modules[0].1, vector);
                let ok = matches!(
                    (expect, &result),
                    ("tampered", Err(FileError::Tampered(_)))
                        | ("format", Err(FileError::Format(_)))
                );
                assert!(
                    ok,
                    "{name}: expected {expect}, got {:?}",
                    result.map(|o| o.len())
                );
            }
        }
    }
    // Both builds contributed valid and damaged files.
    for build in ["default build", "fips build"] {
        for expect in ["ok", "tampered"] {
            assert!(
                counts
                    .get(&(build.into(), expect.into()))
                    .copied()
                    .unwrap_or(0)
                    >= 2,
                "too few `{expect}` vectors written by the {build}: {counts:?}"
            );
        }
    }
}
