//! `Module::cbom()`: one component per algorithm used, exactly those the counters saw, and
//! OIDs checked against independent object tables: the OpenSSL CLI's, then for what it lacks
//! (ML-KEM, ML-DSA, SM4-GCM/CCM) Tongsuo's, an OpenSSL 3.5 fork (`asn1parse -genstr OID:…`
//! names the object). The schema itself is validated in
//! crates/regula-cli/tests/cbom.rs.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::exercise;
use regula::{Algorithm, Module, Policy, Profile};
use serde_json::Value;

fn tongsuo() -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/tongsuo");
    let output = Command::new("bash").arg(script).output().unwrap();
    assert!(
        output.status.success(),
        "scripts/tongsuo failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

/// The name OpenSSL's object table gives each OID the CBOM writes. `None`: an OID the table
/// lacks, from RFC 8103 (ChaCha20-Poly1305), RFC 9044 (AES-GMAC) and RFC 8619 (HKDF).
fn expected_name(algorithm: Algorithm) -> Option<&'static str> {
    use Algorithm as A;
    Some(match algorithm {
        A::Aes128Gcm => "aes-128-gcm",
        A::Aes256Gcm => "aes-256-gcm",
        A::Aes128Ccm => "aes-128-ccm",
        A::Aes256Ccm => "aes-256-ccm",
        A::Aes128Cbc => "aes-128-cbc",
        A::Aes256Cbc => "aes-256-cbc",
        // IEEE 1619 aes256-XTS, named by OpenSSL.
        A::Aes256Xts => "aes-256-xts",
        A::Aes128Kw => "id-aes128-wrap",
        A::Aes256Kw => "id-aes256-wrap",
        A::Aes128Kwp => "id-aes128-wrap-pad",
        A::Aes256Kwp => "id-aes256-wrap-pad",
        A::Rc4 => "rc4",
        A::DesCbc => "des-cbc",
        A::DesEde3Cbc => "des-ede3-cbc",
        A::Md4 => "md4",
        A::Md5 => "md5",
        A::Sha1 => "sha1",
        A::Sha224 => "sha224",
        A::Sha256 => "sha256",
        A::Sha384 => "sha384",
        A::Sha512 => "sha512",
        A::Sha512_256 => "sha512-256",
        A::Sha3_256 => "sha3-256",
        A::Sha3_384 => "sha3-384",
        A::Sha3_512 => "sha3-512",
        A::Shake128 => "shake128",
        A::Shake256 => "shake256",
        A::HmacMd5 => "hmac-md5",
        A::HmacSha1 => "hmacWithSHA1",
        A::HmacSha224 => "hmacWithSHA224",
        A::HmacSha256 => "hmacWithSHA256",
        A::HmacSha384 => "hmacWithSHA384",
        A::HmacSha512 => "hmacWithSHA512",
        A::Pbkdf2Sha256 | A::Pbkdf2Sha384 | A::Pbkdf2Sha512 => "PBKDF2",
        A::EcdsaP256 => "ecdsa-with-SHA256",
        A::EcdsaP384 => "ecdsa-with-SHA384",
        A::EcdsaP521 => "ecdsa-with-SHA512",
        A::EcdsaP256Sha1 => "ecdsa-with-SHA1",
        A::Ed25519 => "ED25519",
        A::RsaPssSha256 | A::RsaPssSha384 | A::RsaPssSha512 => "rsassaPss",
        A::RsaPkcs1Sha256 => "sha256WithRSAEncryption",
        A::RsaPkcs1Sha384 => "sha384WithRSAEncryption",
        A::RsaPkcs1Sha512 => "sha512WithRSAEncryption",
        A::RsaPkcs1Sha1 => "sha1WithRSAEncryption",
        A::RsaOaepSha1 | A::RsaOaepSha256 | A::RsaOaepSha384 | A::RsaOaepSha512 => "rsaesOaep",
        A::MlDsa44 => "ML-DSA-44",
        A::MlDsa65 => "ML-DSA-65",
        A::MlDsa87 => "ML-DSA-87",
        A::EcdhP256 => "prime256v1",
        A::EcdhP384 => "secp384r1",
        A::EcdhP521 => "secp521r1",
        A::X25519 => "X25519",
        A::MlKem768 => "ML-KEM-768",
        A::MlKem1024 => "ML-KEM-1024",
        A::Sm3 => "sm3",
        A::Sm4Ecb => "sm4-ecb",
        A::Sm4Cbc => "sm4-cbc",
        A::Sm4Ctr => "sm4-ctr",
        A::Sm4Ofb => "sm4-ofb",
        A::Sm4Cfb => "sm4-cfb",
        A::Sm4Gcm => "sm4-gcm",
        // GB/T 17964 SM4-XTS, named by Tongsuo.
        A::Sm4Xts => "sm4-xts",
        A::Sm4Ccm => "sm4-ccm",
        A::Sm2Sign => "SM2-with-SM3",
        _ => return None,
    })
}

#[test]
fn every_algorithm_used_is_listed_once_with_an_oid_the_peer_names() {
    let module = Module::load(Policy::builtin(Profile::Default));
    for algorithm in Algorithm::ALL {
        exercise(&module, algorithm).unwrap_or_else(|error| panic!("{algorithm}: {error}"));
    }
    let cbom = module.cbom();
    assert_eq!(cbom["bomFormat"], "CycloneDX");
    assert_eq!(cbom["specVersion"], "1.6");
    let components = cbom["components"].as_array().unwrap();
    let listed: BTreeSet<String> = components
        .iter()
        .map(|component| component["bom-ref"].as_str().unwrap().to_string())
        .collect();
    let counted: BTreeSet<String> = module
        .counters()
        .iter()
        .map(|row| format!("crypto/algorithm/{}", row.algorithm))
        .collect();
    assert_eq!(listed, counted);
    assert_eq!(listed.len(), Algorithm::ALL.len());

    let tongsuo = tongsuo();
    for component in components {
        let name = component["bom-ref"]
            .as_str()
            .unwrap()
            .trim_start_matches("crypto/algorithm/");
        let algorithm = Algorithm::from_name(name).unwrap();
        let oid = component["cryptoProperties"]["oid"].as_str();
        match (oid, expected_name(algorithm)) {
            (Some(oid), expected) => {
                let name_of = |tool: &Path| {
                    let output = Command::new(tool)
                        .args(["asn1parse", "-genstr", &format!("OID:{oid}")])
                        .output()
                        .unwrap();
                    let text = String::from_utf8_lossy(&output.stdout).into_owned();
                    text.rsplit(':').next().unwrap_or("").trim().to_string()
                };
                let mut named = name_of(Path::new("openssl"));
                if named == oid {
                    named = name_of(&tongsuo);
                }
                match expected {
                    Some(expected) => assert_eq!(named, expected, "{algorithm}: OID {oid}"),
                    // Not in OpenSSL's table: printed back as the dotted number.
                    None => assert_eq!(named, oid, "{algorithm}: OID {oid}"),
                }
            }
            (None, Some(expected)) => panic!("{algorithm}: no OID, expected {expected}'s"),
            (None, None) => {}
        }
    }

    // A fresh module lists nothing; the default profile's MD5 is listed, flagged.
    assert!(
        Module::load(Policy::builtin(Profile::Default)).cbom()["components"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let md5 = components
        .iter()
        .find(|component| component["bom-ref"] == "crypto/algorithm/md5")
        .unwrap();
    let approved: Vec<&Value> = md5["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|property| property["name"] == "regula:approved")
        .collect();
    assert_eq!(approved.len(), 1);
    assert_eq!(approved[0]["value"], "false");
}
