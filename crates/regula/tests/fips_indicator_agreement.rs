//! Regula's `fips-140-3` service indicator against AWS-LC's own, in the FIPS build: for every
//! algorithm and parameter set issue 13 added (plus approved controls), the validated module's
//! indicator (`FIPS_service_indicator_before_call`/`_after_call` around the call, as AWS-LC's own
//! tests use it) and Regula's must give the same verdict.
//!
//! The policy is `fips-140-3` in permissive mode, so that what the profile refuses is still served
//! and flagged, and both verdicts exist for every row. Run with the table printed:
//!
//! ```text
//! CARGO_TARGET_DIR=target/fips cargo test -p regula --features fips \
//!     --test fips_indicator_agreement -- --nocapture
//! ```
#![cfg(feature = "fips")]

use regula::{Algorithm, Module, Policy, Served};

/// One measured service call.
struct Row {
    algorithm: Algorithm,
    parameters: &'static str,
    service: &'static str,
    /// AWS-LC's verdict: did its indicator counter move during the call?
    awslc: bool,
    /// Regula's verdict, or why Regula did not serve the call.
    regula: Result<bool, String>,
}

/// Where Regula is deliberately stricter than AWS-LC's indicator, which does not check HMAC key
/// lengths: SP 800-131A Rev. 2 §10 (Table 9) disallows HMAC generation with keys under 112 bits,
/// and Regula's `fips-140-3` rows carry that limit (as for KBKDF, where AWS-LC checks it too).
/// Stricter is allowed; the opposite — Regula approving what AWS-LC does not — never is.
///
/// AES-256-CBC-CS3 (fscrypt file names) is the other case: AWS-LC flags each AES-CBC call the
/// stealing makes, but the stealing itself is Regula's, outside the validated boundary.
const REGULA_STRICTER: &[(Algorithm, &str, &str)] = &[
    (
        Algorithm::HmacSha1,
        "10-byte key (< 112 bits)",
        "SP 800-131A",
    ),
    (
        Algorithm::HmacSha256,
        "10-byte key (< 112 bits)",
        "SP 800-131A",
    ),
    (
        Algorithm::Aes256CbcCs3,
        "fscrypt name, pad 32",
        "stealing outside AWS-LC",
    ),
];

impl Row {
    fn agrees(&self) -> bool {
        self.regula
            .as_ref()
            .is_ok_and(|approved| *approved == self.awslc)
    }

    /// A documented case of Regula saying "not approved" where AWS-LC says "approved".
    fn documented_stricter(&self) -> Option<&'static str> {
        if !self.awslc || self.regula != Ok(false) {
            return None;
        }
        REGULA_STRICTER
            .iter()
            .find(|(algorithm, parameters, _)| {
                (*algorithm, *parameters) == (self.algorithm, self.parameters)
            })
            .map(|(_, _, why)| *why)
    }

    /// Regula approved a call AWS-LC's validated module did not.
    fn regula_approves_more(&self) -> bool {
        !self.awslc && self.regula == Ok(true)
    }
}

fn verdict(approved: bool) -> &'static str {
    if approved { "approved" } else { "not approved" }
}

struct Table {
    rows: Vec<Row>,
}

impl Table {
    /// Runs `call` between AWS-LC's counter readings on this thread and records both verdicts.
    fn measure<T>(
        &mut self,
        algorithm: Algorithm,
        parameters: &'static str,
        service: &'static str,
        call: impl FnOnce() -> regula::Result<Served<T>>,
    ) -> Option<T> {
        let before = regula::fips_service_indicator_counter();
        let result = call();
        let awslc = regula::fips_service_indicator_approved(before);
        let (regula, value) = match result {
            Ok(served) => {
                let approved = served.is_approved();
                (Ok(approved), Some(served.into_value()))
            }
            Err(error) => (Err(error.to_string()), None),
        };
        self.rows.push(Row {
            algorithm,
            parameters,
            service,
            awslc,
            regula,
        });
        value
    }
}

/// `fips-140-3`, permissive: refused algorithms are served and flagged not approved.
fn permissive_fips_module() -> Module {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fips-permissive.toml");
    std::fs::write(&path, "base = \"fips-140-3\"\nmode = \"permissive\"\n").expect("write policy");
    let policy = Policy::load(path.to_str().expect("utf-8 path")).expect("policy loads");
    let module = Module::load(policy);
    assert!(module.failed_test().is_none(), "self-tests pass");
    module
}

#[test]
fn regula_fips_indicator_agrees_with_aws_lc() {
    let module = permissive_fips_module();
    let mut table = Table { rows: Vec::new() };
    let t = &mut table;
    let data = [0x5au8; 100];

    // Controls: approved by both, or the measurement itself is broken.
    t.measure(Algorithm::Sha256, "-", "digest", || {
        module.digest(Algorithm::Sha256, &data)
    });
    let key = module.mac_key(Algorithm::HmacSha256, &[7; 32]).unwrap();
    t.measure(Algorithm::HmacSha256, "32-byte key", "mac", || {
        key.sign(&data)
    });

    // AES-CCM: SMB3's 11-byte nonce with a 16-byte tag, and the 13-byte nonce of RFC 4309/802.15.4.
    for (algorithm, key_len) in [(Algorithm::Aes128Ccm, 16), (Algorithm::Aes256Ccm, 32)] {
        let key = module.aead_key(algorithm, &vec![1; key_len]).unwrap();
        for (nonce_len, parameters) in [
            (11, "nonce 11 B (SMB3), tag 16 B"),
            (13, "nonce 13 B, tag 16 B"),
        ] {
            let nonce = vec![2; nonce_len];
            let sealed = t.measure(algorithm, parameters, "encrypt", || {
                key.seal_with_nonce(&nonce, b"aad", &data)
            });
            if let Some(sealed) = sealed {
                t.measure(algorithm, parameters, "decrypt", || {
                    key.open(&nonce, b"aad", &sealed)
                });
            }
        }
    }

    // AES-GCM: nonce generated inside the module (IG C.H) or chosen by the caller (SMB 3.1.1).
    for (algorithm, key_len) in [(Algorithm::Aes128Gcm, 16), (Algorithm::Aes256Gcm, 32)] {
        let key = module.aead_key(algorithm, &vec![3; key_len]).unwrap();
        let sealed = t.measure(algorithm, "module nonce", "encrypt", || {
            key.seal(b"aad", &data)
        });
        if let Some(sealed) = sealed {
            t.measure(algorithm, "module nonce", "decrypt", || {
                key.open(&sealed.nonce, b"aad", &sealed.ciphertext)
            });
        }
        let nonce = [4u8; 12];
        let sealed = t.measure(algorithm, "caller nonce 12 B", "encrypt", || {
            key.seal_with_nonce(&nonce, b"aad", &data)
        });
        if let Some(sealed) = sealed {
            t.measure(algorithm, "caller nonce 12 B", "decrypt", || {
                key.open(&nonce, b"aad", &sealed)
            });
        }
    }

    // AES-CMAC (SMB 3.0/3.1.1 signing) and AES-GMAC (SMB 3.1.1 signing, 12-byte nonce).
    for (algorithm, key_len) in [(Algorithm::Aes128Cmac, 16), (Algorithm::Aes256Cmac, 32)] {
        let key = module.mac_key(algorithm, &vec![5; key_len]).unwrap();
        let tag = t.measure(algorithm, "-", "mac", || key.sign(&data));
        if let Some(tag) = tag {
            t.measure(algorithm, "-", "verify", || key.verify(&data, &tag));
        }
    }
    for (algorithm, key_len) in [(Algorithm::Aes128Gmac, 16), (Algorithm::Aes256Gmac, 32)] {
        let key = module.mac_key(algorithm, &vec![6; key_len]).unwrap();
        let nonce = [7u8; 12];
        let tag = t.measure(algorithm, "nonce 12 B", "mac", || {
            key.sign_with_nonce(&nonce, &data)
        });
        if let Some(tag) = tag {
            t.measure(algorithm, "nonce 12 B", "verify", || {
                key.verify_with_nonce(&nonce, &data, &tag)
            });
        }
    }

    // SP 800-56C Rev. 2 HKDF: with a salt and info, with an empty salt, with empty info.
    for algorithm in [
        Algorithm::HkdfSha256,
        Algorithm::HkdfSha384,
        Algorithm::HkdfSha512,
    ] {
        t.measure(algorithm, "32-byte secret, salt, info", "derive", || {
            module.hkdf(algorithm, &[13; 32], &[14; 16], b"info", 32)
        });
        t.measure(algorithm, "32-byte secret, empty salt", "derive", || {
            module.hkdf(algorithm, &[13; 32], &[], b"info", 32)
        });
        t.measure(algorithm, "32-byte secret, empty info", "derive", || {
            module.hkdf(algorithm, &[13; 32], &[14; 16], &[], 32)
        });
    }

    // SP 800-108 KBKDF in counter mode, SMB3's use: a 16-byte SessionKey, L = 128.
    for algorithm in [
        Algorithm::KbkdfCtrHmacSha256,
        Algorithm::KbkdfCtrHmacSha384,
        Algorithm::KbkdfCtrHmacSha512,
    ] {
        t.measure(algorithm, "16-byte key, 16-byte output", "derive", || {
            module.kbkdf_label_context(algorithm, &[8; 16], b"SMBC2SCipherKey\0", &[9; 64], 16)
        });
    }

    // AES-256-XTS, a 512-byte data unit, Key1 != Key2.
    let mut xts_key = vec![10u8; 32];
    xts_key.extend_from_slice(&[11u8; 32]);
    let key = module.cipher_key(Algorithm::Aes256Xts, &xts_key).unwrap();
    let tweak = [12u8; 16];
    let sector = [13u8; 512];
    let encrypted = t.measure(
        Algorithm::Aes256Xts,
        "512-byte data unit",
        "encrypt",
        || key.encrypt(Some(&tweak), &sector),
    );
    if let Some(encrypted) = encrypted {
        t.measure(
            Algorithm::Aes256Xts,
            "512-byte data unit",
            "decrypt",
            || key.decrypt(&tweak, &encrypted.ciphertext),
        );
    }

    // XTS with Key1 = Key2 is an error (SP 800-38E; IG C.I), never a flagged success.
    let equal_halves = [10u8; 64];
    let refused = module
        .cipher_key(Algorithm::Aes256Xts, &equal_halves)
        .and_then(|key| key.encrypt(Some(&tweak), &sector));
    assert!(
        refused.is_err(),
        "aes-256-xts with equal key halves must be refused, even in permissive mode"
    );

    // AES key wrap (SP 800-38F): KW wraps whole 8-byte blocks, KWP any length.
    for (algorithm, key_len, key_data_len) in [
        (Algorithm::Aes128Kw, 16, 32),
        (Algorithm::Aes256Kw, 32, 32),
        (Algorithm::Aes128Kwp, 16, 20),
        (Algorithm::Aes256Kwp, 32, 20),
    ] {
        let key = module.cipher_key(algorithm, &vec![14; key_len]).unwrap();
        let key_data = vec![15u8; key_data_len];
        let parameters = if key_data_len == 32 {
            "32-byte key data"
        } else {
            "20-byte key data"
        };
        let wrapped = t.measure(algorithm, parameters, "wrap", || {
            key.encrypt(None, &key_data)
        });
        if let Some(wrapped) = wrapped {
            t.measure(algorithm, parameters, "unwrap", || {
                key.decrypt(&[], &wrapped.ciphertext)
            });
        }
    }

    // AES-CFB8 (netlogon).
    for (algorithm, key_len) in [(Algorithm::Aes128Cfb8, 16), (Algorithm::Aes256Cfb8, 32)] {
        let key = module.cipher_key(algorithm, &vec![16; key_len]).unwrap();
        let iv = [17u8; 16];
        let encrypted = t.measure(algorithm, "-", "encrypt", || key.encrypt(Some(&iv), &data));
        if let Some(encrypted) = encrypted {
            t.measure(algorithm, "-", "decrypt", || {
                key.decrypt(&iv, &encrypted.ciphertext)
            });
        }
    }

    // SHA-1 and HMAC-SHA-1 (SP 800-131A Rev. 2 §9: acceptable outside signature generation).
    t.measure(Algorithm::Sha1, "-", "digest", || {
        module.digest(Algorithm::Sha1, &data)
    });
    for (key_len, parameters) in [(20, "20-byte key"), (10, "10-byte key (< 112 bits)")] {
        let key = module
            .mac_key(Algorithm::HmacSha1, &vec![18; key_len])
            .unwrap();
        let tag = t.measure(Algorithm::HmacSha1, parameters, "mac", || key.sign(&data));
        if let Some(tag) = tag {
            t.measure(Algorithm::HmacSha1, parameters, "verify", || {
                key.verify(&data, &tag)
            });
        }
    }
    // The same key-length question for an HMAC that predates issue 13, and for KBKDF.
    let key = module.mac_key(Algorithm::HmacSha256, &[18; 10]).unwrap();
    t.measure(
        Algorithm::HmacSha256,
        "10-byte key (< 112 bits)",
        "mac",
        || key.sign(&data),
    );
    t.measure(
        Algorithm::KbkdfCtrHmacSha256,
        "8-byte key (< 112 bits), 16-byte output",
        "derive",
        || module.kbkdf_label_context(Algorithm::KbkdfCtrHmacSha256, &[8; 8], b"L\0", b"C", 16),
    );

    // SHA-1 signatures are verify-only (SP 800-131A Rev. 2 §9: legacy use); the signatures come
    // from the OpenSSL CLI.
    for (algorithm, keygen) in [
        (
            Algorithm::EcdsaP256Sha1,
            &[
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
            ][..],
        ),
        (
            Algorithm::RsaPkcs1Sha1,
            &[
                "genpkey",
                "-algorithm",
                "RSA",
                "-pkeyopt",
                "rsa_keygen_bits:2048",
            ][..],
        ),
    ] {
        let (public_key, signature) = openssl_sha1_signature(algorithm.name(), keygen, &data);
        t.measure(algorithm, "signature by OpenSSL", "verify", || {
            module.verify(algorithm, &public_key, &data, &signature)
        });
    }

    // ML-DSA (FIPS 204).
    for algorithm in [Algorithm::MlDsa44, Algorithm::MlDsa65, Algorithm::MlDsa87] {
        let key = t.measure(algorithm, "-", "keygen (with PCT)", || {
            module.generate_signing_key(algorithm, None)
        });
        let Some(key) = key else { continue };
        let signature = t.measure(algorithm, "-", "sign", || key.sign(&data));
        let public_key = key.public_key_der().unwrap();
        if let Some(signature) = signature {
            t.measure(algorithm, "-", "verify", || {
                module.verify(algorithm, &public_key, &data, &signature)
            });
        }
    }

    // The legacy set: never approved.
    for algorithm in [Algorithm::Md5, Algorithm::Md4] {
        t.measure(algorithm, "-", "digest", || module.digest(algorithm, &data));
    }
    if let Ok(key) = module.mac_key(Algorithm::HmacMd5, &[19; 16]) {
        t.measure(Algorithm::HmacMd5, "16-byte key", "mac", || key.sign(&data));
    }
    if let Ok(key) = module.cipher_key(Algorithm::Rc4, &[20; 16]) {
        let encrypted = t.measure(Algorithm::Rc4, "16-byte key", "encrypt", || {
            key.encrypt(None, &data)
        });
        if let Some(encrypted) = encrypted {
            t.measure(Algorithm::Rc4, "16-byte key", "decrypt", || {
                key.decrypt(&[], &encrypted.ciphertext)
            });
        }
    }
    for (algorithm, key_len) in [(Algorithm::DesCbc, 8), (Algorithm::DesEde3Cbc, 24)] {
        let Ok(key) = module.cipher_key(algorithm, &(1..=key_len).collect::<Vec<u8>>()) else {
            continue;
        };
        let iv = [21u8; 8];
        let blocks = [22u8; 64];
        let encrypted = t.measure(algorithm, "-", "encrypt", || {
            key.encrypt(Some(&iv), &blocks)
        });
        if let Some(encrypted) = encrypted {
            t.measure(algorithm, "-", "decrypt", || {
                key.decrypt(&iv, &encrypted.ciphertext)
            });
        }
    }

    // fscrypt v2 (the module's calls under `regula_files::fscrypt`): the kernel's HKDF-SHA512
    // key hierarchy, AES-256-XTS data units, AES-256-CBC-CS3 file names.
    let master = [23u8; 64];
    t.measure(
        Algorithm::FscryptHkdfSha512,
        "key identifier",
        "derive",
        || module.fscrypt_hkdf_sha512(&master, 1, &[], 16),
    );
    let per_file = t.measure(
        Algorithm::FscryptHkdfSha512,
        "per-file key",
        "derive",
        || module.fscrypt_hkdf_sha512(&master, 2, &[24; 16], 64),
    );
    let contents = module
        .cipher_key(Algorithm::Aes256Xts, &per_file.expect("per-file key"))
        .unwrap();
    // Data unit 7: the index little-endian in a 16-byte tweak.
    let mut tweak = [0u8; 16];
    tweak[..8].copy_from_slice(&7u64.to_le_bytes());
    let block = [25u8; 4096];
    let encrypted = t.measure(Algorithm::Aes256Xts, "fscrypt data unit", "encrypt", || {
        contents.encrypt(Some(&tweak), &block)
    });
    if let Some(encrypted) = encrypted {
        t.measure(Algorithm::Aes256Xts, "fscrypt data unit", "decrypt", || {
            contents.decrypt(&tweak, &encrypted.ciphertext)
        });
    }
    let names_key = module
        .fscrypt_hkdf_sha512(&master, 2, &[26; 16], 32)
        .unwrap();
    let names = module
        .cipher_key(Algorithm::Aes256CbcCs3, &names_key)
        .unwrap();
    // A 15-byte name zero-padded to 32 bytes (FSCRYPT_POLICY_FLAGS_PAD_32), zero IV.
    let mut padded = b"a-file-name.txt".to_vec();
    padded.resize(32, 0);
    let stored = t.measure(
        Algorithm::Aes256CbcCs3,
        "fscrypt name, pad 32",
        "encrypt",
        || names.encrypt(Some(&[0; 16]), &padded),
    );
    if let Some(stored) = stored {
        t.measure(
            Algorithm::Aes256CbcCs3,
            "fscrypt name, pad 32",
            "decrypt",
            || names.decrypt(&[0; 16], &stored.ciphertext),
        );
    }

    // The table (Markdown, for the README).
    println!("\n| algorithm | parameters | service | AWS-LC | Regula | |");
    println!("|---|---|---|---|---|---|");
    for row in &table.rows {
        let regula = match &row.regula {
            Ok(approved) => verdict(*approved).to_string(),
            Err(error) => format!("refused: {error}"),
        };
        let mark = if row.agrees() {
            String::new()
        } else if let Some(why) = row.documented_stricter() {
            format!("Regula stricter ({why})")
        } else {
            "**differs**".to_string()
        };
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            row.algorithm.name(),
            row.parameters,
            row.service,
            verdict(row.awslc),
            regula,
            mark
        );
    }

    for control in &table.rows[..2] {
        assert!(
            control.awslc,
            "AWS-LC's indicator did not approve the control {} {}: the measurement is broken",
            control.algorithm.name(),
            control.service
        );
    }
    let more: Vec<&Row> = table
        .rows
        .iter()
        .filter(|row| row.regula_approves_more())
        .collect();
    assert!(
        more.is_empty(),
        "Regula approves {} call(s) AWS-LC's validated module does not flag",
        more.len()
    );
    let disagreements: Vec<String> = table
        .rows
        .iter()
        .filter(|row| !row.agrees() && row.documented_stricter().is_none())
        .map(|row| {
            format!(
                "{} ({}, {}): AWS-LC {}, Regula {}",
                row.algorithm.name(),
                row.parameters,
                row.service,
                verdict(row.awslc),
                match &row.regula {
                    Ok(approved) => verdict(*approved).to_string(),
                    Err(error) => format!("refused ({error})"),
                }
            )
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "Regula's fips-140-3 indicator disagrees with AWS-LC's on {} of {} calls:\n  {}",
        disagreements.len(),
        table.rows.len(),
        disagreements.join("\n  ")
    );
}

/// A fresh key from `openssl <keygen>` and its SHA-1 signature of `message`: (SPKI DER,
/// signature).
fn openssl_sha1_signature(name: &str, keygen: &[&str], message: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let key = dir.join(format!("{name}.key.pem"));
    let public_key = dir.join(format!("{name}.spki.der"));
    let data = dir.join(format!("{name}.msg"));
    let signature = dir.join(format!("{name}.sig"));
    std::fs::write(&data, message).expect("write message");
    let openssl = |args: &[&str]| {
        let output = std::process::Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl runs");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let path = |path: &std::path::Path| path.to_str().expect("utf-8 path").to_string();
    let mut args = keygen.to_vec();
    let key_path = path(&key);
    args.extend(["-out", &key_path]);
    openssl(&args);
    let public_path = path(&public_key);
    openssl(&[
        "pkey",
        "-in",
        &key_path,
        "-pubout",
        "-outform",
        "DER",
        "-out",
        &public_path,
    ]);
    let signature_path = path(&signature);
    openssl(&[
        "dgst",
        "-sha1",
        "-sign",
        &key_path,
        "-out",
        &signature_path,
        &path(&data),
    ]);
    (
        std::fs::read(&public_key).expect("public key"),
        std::fs::read(&signature).expect("signature"),
    )
}
