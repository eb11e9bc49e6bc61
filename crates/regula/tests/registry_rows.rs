//! The registry's rows checked against independent sources: the sizes against what AWS-LC and
//! regula-sm actually produce and accept through the module, the OpenSSL names against what the
//! `openssl` command lists, and the PKCS#11 values against their range.

use std::collections::BTreeSet;
use std::process::Command;

use regula::registry::{self, REGISTRY};
use regula::{Algorithm, Family, Module, Policy, Profile};

fn module() -> Module {
    Module::load(Policy::builtin(Profile::Default))
}

/// A key of `len` bytes whose two XTS halves differ.
fn key(len: usize) -> Vec<u8> {
    (0..len).map(|i| i as u8 ^ 0x5c).collect()
}

#[test]
fn sizes_are_what_the_implementations_produce_and_accept() {
    let module = module();
    let mut checked = 0;
    for entry in REGISTRY.iter() {
        let algorithm = entry.algorithm;
        let sizes = entry.sizes;
        let name = entry.name;
        match entry.family {
            Family::Digest => {
                let digest = module.digest(algorithm, b"abc").unwrap();
                assert_eq!(Some(digest.len()), sizes.output, "{name}: digest length");
                assert!(sizes.block.is_some(), "{name}: a digest has a block size");
            }
            Family::Mac => {
                let key_len = sizes.key.map_or(32, |lengths| lengths.max);
                let mac = module.mac_key(algorithm, &key(key_len)).unwrap();
                let tag = if mac.takes_nonce() {
                    let nonce = sizes.nonce.expect("a MAC with a nonce lists its length");
                    mac.sign_with_nonce(&key(nonce.max), b"abc").unwrap()
                } else {
                    mac.sign(b"abc").unwrap()
                };
                assert_eq!(Some(tag.len()), sizes.output, "{name}: tag length");
                if let Some(lengths) = sizes.key {
                    assert!(
                        module.mac_key(algorithm, &key(lengths.max + 1)).is_err(),
                        "{name}: a key longer than the row allows is accepted"
                    );
                }
            }
            Family::Aead => {
                let lengths = sizes.key.expect("an AEAD has a key length");
                let key_bytes = key(lengths.max);
                let aead = module.aead_key(algorithm, &key_bytes).unwrap();
                let nonce = sizes.nonce.expect("an AEAD has nonce lengths");
                let tag = sizes.tag.expect("an AEAD has tag lengths");
                assert_eq!(aead.tag_len(), tag.max, "{name}: default tag length");
                assert_eq!(
                    (*aead.nonce_lens().start(), *aead.nonce_lens().end()),
                    (nonce.min, nonce.max),
                    "{name}: nonce lengths"
                );
                let sealed = aead.seal(b"", b"sixteen byte msg").unwrap();
                assert_eq!(
                    sealed.ciphertext.len(),
                    16 + tag.max,
                    "{name}: sealed length"
                );
                if tag.min != tag.max {
                    assert!(
                        module
                            .aead_key_with_tag_len(algorithm, &key_bytes, tag.min)
                            .is_ok()
                    );
                    assert!(
                        module
                            .aead_key_with_tag_len(algorithm, &key_bytes, tag.min - 1)
                            .is_err()
                    );
                }
                assert!(
                    module.aead_key(algorithm, &key(lengths.max + 1)).is_err(),
                    "{name}: a longer key is accepted"
                );
            }
            Family::Cipher => {
                let lengths = sizes.key.expect("a cipher has a key length");
                for len in [lengths.min, lengths.max] {
                    let cipher = module.cipher_key(algorithm, &key(len)).unwrap();
                    assert_eq!(cipher.iv_len(), sizes.iv.unwrap_or(0), "{name}: IV length");
                }
                for len in [lengths.min - 1, lengths.max + 1] {
                    assert!(
                        module.cipher_key(algorithm, &key(len)).is_err(),
                        "{name}: a {len}-byte key is accepted"
                    );
                }
            }
            Family::Kem => {
                let private = module.generate_kem_key(algorithm).unwrap();
                let public = private.encapsulation_key().unwrap();
                assert_eq!(
                    Some(public.len()),
                    sizes.public_key,
                    "{name}: encapsulation key"
                );
                let sent = module.encapsulate(algorithm, &public).unwrap();
                assert_eq!(Some(sent.ciphertext.len()), sizes.ciphertext, "{name}");
                assert_eq!(Some(sent.shared_secret.len()), sizes.output, "{name}");
            }
            Family::Signature if entry.pct.is_some() => {
                let rsa_bits = name.starts_with("rsa-").then_some(2048);
                let signer = module.generate_signing_key(algorithm, rsa_bits).unwrap();
                let signature = signer.sign(b"abc").unwrap();
                match sizes.signature {
                    // Fixed-size signatures: Ed25519 and ML-DSA.
                    Some(max) if matches!(name, "ed25519") || name.starts_with("ml-dsa") => {
                        assert_eq!(signature.len(), max, "{name}: signature length")
                    }
                    Some(max) => assert!(signature.len() <= max, "{name}: signature too long"),
                    None => assert!(name.starts_with("rsa-"), "{name}: no signature size"),
                }
            }
            Family::KeyAgreement => {
                let ours = module.generate_agreement_key(algorithm).unwrap();
                let theirs = module.generate_agreement_key(algorithm).unwrap();
                let public = theirs.public_key().unwrap();
                assert_eq!(Some(public.len()), sizes.public_key, "{name}: public key");
                let secret = ours.agree(&public).unwrap();
                assert_eq!(Some(secret.len()), sizes.output, "{name}: shared secret");
            }
            _ => continue,
        }
        checked += 1;
    }
    // Every digest, MAC, AEAD, cipher, KEM, generated signature and key agreement (76 rows).
    assert!(checked >= 75, "only {checked} rows checked");
}

#[test]
fn the_hash_of_a_row_is_a_digest_whose_name_the_row_names() {
    for entry in REGISTRY.iter() {
        if let Some(hash) = entry.hash {
            assert_eq!(hash.family(), Family::Digest, "{}", entry.name);
            // hmac-sha256, pbkdf2-sha256, rsa-pss-sha256, hmac-sm3, ...; ECDSA names its curve.
            let short = hash.name();
            assert!(
                entry.name.ends_with(short)
                    || entry.name.starts_with("ecdsa-p")
                    || entry.name.starts_with("sm"),
                "{}: hash {short}",
                entry.name
            );
        }
    }
}

#[test]
fn pkcs11_mechanisms_are_in_their_range() {
    for entry in REGISTRY.iter() {
        for mechanism in entry.pkcs11 {
            let vendor = mechanism.name.starts_with("CKM_REGULA_");
            assert_eq!(mechanism.is_vendor_defined(), vendor, "{}", mechanism.name);
            assert!(mechanism.name.starts_with("CKM_"), "{}", mechanism.name);
        }
        if entry.provider == registry::Provider::RegulaSm {
            assert!(
                entry.pkcs11.iter().all(|m| m.is_vendor_defined()),
                "{}: the standard names no SM mechanism",
                entry.name
            );
        }
    }
    // One value, one name.
    let mut seen = std::collections::BTreeMap::new();
    for mechanism in REGISTRY.iter().flat_map(|entry| entry.pkcs11) {
        let name = *seen.entry(mechanism.value).or_insert(mechanism.name);
        assert_eq!(name, mechanism.name, "value {:#x}", mechanism.value);
    }
}

/// OpenSSL's own name groups: `{ OID, NAME, ALIAS } @ provider` or `NAME @ provider`.
fn openssl_name_groups() -> Option<Vec<BTreeSet<String>>> {
    let output = Command::new("openssl")
        .args([
            "list",
            "-digest-algorithms",
            "-cipher-algorithms",
            "-mac-algorithms",
            "-kdf-algorithms",
            "-signature-algorithms",
            "-key-exchange-algorithms",
            "-key-managers",
            "-random-generators",
            "-provider",
            "default",
            "-provider",
            "legacy",
        ])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Some(
        text.lines()
            .filter_map(|line| line.split_once(" @ ").map(|(names, _)| names.trim()))
            .map(|names| names.trim_start_matches("IDs:").trim())
            .map(|names| {
                names
                    .trim_start_matches('{')
                    .trim_end_matches('}')
                    .split(',')
                    .map(|name| name.trim().to_ascii_uppercase())
                    .filter(|name| !name.is_empty())
                    .collect()
            })
            .collect(),
    )
}

#[test]
fn openssl_names_are_the_ones_openssl_lists() {
    let Some(groups) = openssl_name_groups() else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "the openssl command is needed in CI (scripts/setup-test installs it)"
        );
        eprintln!("skipped: no openssl command");
        return;
    };
    let mut matched = 0;
    let mut absent = Vec::new();
    for entry in REGISTRY.iter() {
        let Some(openssl) = entry.openssl else {
            continue;
        };
        let ours: BTreeSet<String> = openssl
            .names
            .split(':')
            .map(str::to_ascii_uppercase)
            .collect();
        match groups.iter().find(|group| !group.is_disjoint(&ours)) {
            // Every name of ours is one OpenSSL gives the algorithm; for digests and ciphers,
            // which it names most fully, the lists are the same.
            Some(group) => {
                let complete =
                    matches!(entry.family, Family::Digest | Family::Cipher | Family::Aead);
                assert!(
                    ours.is_subset(group) && (!complete || ours == *group),
                    "{}: ours {ours:?}, OpenSSL's {group:?}",
                    entry.name
                );
                matched += 1;
            }
            // Newer than this OpenSSL (ML-KEM, ML-DSA and SM4-GCM/CCM/XTS before 3.2-3.5).
            None => absent.push(entry.name),
        }
        if let Some(oid) = openssl
            .names
            .split(':')
            .find(|name| name.starts_with(|c: char| c.is_ascii_digit()))
            && openssl.params.is_empty()
            && matches!(entry.family, Family::Digest | Family::Cipher | Family::Aead)
        {
            assert_eq!(Some(oid), entry.oid, "{}: OpenSSL's OID", entry.name);
        }
    }
    eprintln!(
        "{matched} rows named as this OpenSSL names them; not in it: {}",
        absent.join(", ")
    );
    assert!(matched >= 60, "only {matched} rows matched OpenSSL's names");
}

#[test]
fn every_algorithm_has_a_row_that_names_it() {
    for algorithm in Algorithm::ALL {
        assert_eq!(algorithm.entry().algorithm, algorithm);
        assert_eq!(Algorithm::from_name(algorithm.name()), Some(algorithm));
    }
}
