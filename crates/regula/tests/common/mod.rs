//! Helpers shared by the integration tests: one minimal, valid use of every algorithm through
//! the public API, so that tables can be checked against what the services really do.

#![allow(dead_code)] // Each test crate uses a different subset.

use std::sync::OnceLock;

use regula::{Algorithm, Error, Family, Indicator, Module, ModuleState, Policy, Profile};

/// Decodes a hex literal written in a test; panics on a typo in the test itself.
pub fn unhex(text: &str) -> Vec<u8> {
    let cleaned: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(cleaned).expect("test vector is not valid hex")
}

/// A PKCS#8 RSA-2048 private key, generated once per test binary through the default
/// profile, so that every RSA scheme can be exercised without generating a key each time.
pub fn rsa2048_pkcs8() -> &'static [u8] {
    static KEY: OnceLock<Vec<u8>> = OnceLock::new();
    KEY.get_or_init(|| {
        let module = Module::load(Policy::builtin(Profile::Default));
        let key = module
            .generate_signing_key(Algorithm::RsaPkcs1Sha256, Some(2048))
            .expect("RSA-2048 key generation under the default profile");
        key.to_pkcs8_der().expect("PKCS#8 export").to_vec()
    })
}

/// A PKCS#8 RSA-3072 private key, for profiles that refuse RSA-2048 (CNSA: RSA >= 3072).
pub fn rsa3072_pkcs8() -> &'static [u8] {
    static KEY: OnceLock<Vec<u8>> = OnceLock::new();
    KEY.get_or_init(|| {
        let module = Module::load(Policy::builtin(Profile::Default));
        let key = module
            .generate_signing_key(Algorithm::RsaPkcs1Sha256, Some(3072))
            .expect("RSA-3072 key generation under the default profile");
        key.to_pkcs8_der().expect("PKCS#8 export").to_vec()
    })
}

/// The key length in bytes an AEAD, cipher or CMAC algorithm takes.
pub fn key_len(algorithm: Algorithm) -> usize {
    match algorithm {
        Algorithm::Aes128Gcm | Algorithm::Aes128Ctr | Algorithm::Aes128Cbc => 16,
        Algorithm::Aes128Cmac | Algorithm::Aes128Gmac | Algorithm::Aes128Ccm => 16,
        Algorithm::Aes128Cfb8 | Algorithm::Aes128Kw | Algorithm::Aes128Kwp => 16,
        Algorithm::Aes256Xts => 64,
        Algorithm::Rc4 => 16,
        Algorithm::DesCbc => 8,
        Algorithm::DesEde3Cbc => 24,
        Algorithm::Sm4Ecb
        | Algorithm::Sm4Cbc
        | Algorithm::Sm4Ctr
        | Algorithm::Sm4Ofb
        | Algorithm::Sm4Cfb
        | Algorithm::Sm4CbcCs3 => 16,
        Algorithm::Sm4Gcm | Algorithm::Sm4Ccm => 16,
        Algorithm::Sm4Cmac | Algorithm::Sm4XcbcMac | Algorithm::Sm4CbcMac => 16,
        _ => 32,
    }
}

/// Performs one complete, valid use of `algorithm` through the public API and returns the
/// indicators of every operation it made, or the first refusal.
///
/// Inputs respect every FIPS 140-3 limit (HMAC keys ≥ 14 bytes, PBKDF2 salt ≥ 16 bytes and
/// ≥ 1000 iterations, RSA 2048), so that only the algorithm itself decides the outcome.
pub fn exercise(module: &Module, algorithm: Algorithm) -> Result<Vec<Indicator>, Error> {
    const MESSAGE: &[u8] = b"Regula approval table";
    let mut indicators = Vec::new();
    match algorithm.family() {
        Family::Aead => {
            let key = module.aead_key(algorithm, &vec![0x42; key_len(algorithm)])?;
            let sealed = key.seal(b"aad", MESSAGE)?;
            indicators.push(sealed.indicator());
            let opened = key.open(&sealed.nonce, b"aad", &sealed.ciphertext)?;
            assert_eq!(opened.as_slice(), MESSAGE, "{algorithm} round trip");
            indicators.push(opened.indicator());
        }
        Family::Cipher => {
            // XTS refuses a key whose two halves are equal, so count up instead.
            let key_bytes: Vec<u8> = (0..key_len(algorithm) as u8).collect();
            let key = module.cipher_key(algorithm, &key_bytes)?;
            // ECB, DES and key wrap take whole blocks only.
            let whole_blocks =
                !key.takes_iv() || matches!(algorithm, Algorithm::DesCbc | Algorithm::DesEde3Cbc);
            let message: &[u8] = if whole_blocks {
                b"two whole sixteen-byte blocks!!!"
            } else {
                MESSAGE
            };
            let encrypted = key.encrypt(None, message)?;
            indicators.push(encrypted.indicator());
            let decrypted = key.decrypt(&encrypted.iv, &encrypted.ciphertext)?;
            assert_eq!(decrypted.as_slice(), message, "{algorithm} round trip");
            indicators.push(decrypted.indicator());
        }
        Family::Digest => {
            indicators.push(module.digest(algorithm, MESSAGE)?.indicator());
        }
        Family::Mac => {
            let key = module.mac_key(algorithm, &vec![0x42; key_len(algorithm)])?;
            if key.takes_nonce() {
                let nonce = [0x24; 12];
                let tag = key.sign_with_nonce(&nonce, MESSAGE)?;
                indicators.push(tag.indicator());
                indicators.push(key.verify_with_nonce(&nonce, MESSAGE, &tag)?.indicator());
            } else {
                let tag = key.sign(MESSAGE)?;
                indicators.push(tag.indicator());
                indicators.push(key.verify(MESSAGE, &tag)?.indicator());
            }
        }
        Family::Kdf => {
            if algorithm == Algorithm::FscryptHkdfSha512 {
                // Served only for the fscrypt key hierarchy: a key identifier (context 1).
                let identifier = module.fscrypt_hkdf_sha512(&[0x42; 64], 1, &[], 16)?;
                indicators.push(identifier.indicator());
                return Ok(indicators);
            }
            let served = match algorithm {
                Algorithm::HkdfSha256 | Algorithm::HkdfSha384 | Algorithm::HkdfSha512 => {
                    module.hkdf(algorithm, &[0x0b; 22], b"salt", b"info", 42)?
                }
                Algorithm::KbkdfCtrHmacSha256
                | Algorithm::KbkdfCtrHmacSha384
                | Algorithm::KbkdfCtrHmacSha512 => {
                    module.kbkdf_label_context(algorithm, &[0x0b; 16], b"label", b"context", 32)?
                }
                Algorithm::Tls12PrfSha256 | Algorithm::Tls12PrfSha384 => {
                    module.tls12_prf(algorithm, &[0x0b; 48], b"key expansion seed", 32)?
                }
                _ => module.pbkdf2(algorithm, b"correct horse battery", &[0x5a; 16], 1000, 32)?,
            };
            indicators.push(served.indicator());
        }
        Family::Signature => {
            // SHA-1 signatures can only be verified: one made by OpenSSL (tests/data).
            let sha1_signature = match algorithm {
                Algorithm::EcdsaP256Sha1 => Some((
                    &include_bytes!("../data/sha1-signatures/ec.spki")[..],
                    &include_bytes!("../data/sha1-signatures/ec.sig")[..],
                )),
                Algorithm::RsaPkcs1Sha1 => Some((
                    &include_bytes!("../data/sha1-signatures/rsa.spki")[..],
                    &include_bytes!("../data/sha1-signatures/rsa.sig")[..],
                )),
                _ => None,
            };
            if let Some((public_key, signature)) = sha1_signature {
                let verified = module.verify(algorithm, public_key, MESSAGE, signature)?;
                indicators.push(verified.indicator());
                return Ok(indicators);
            }
            let key = match algorithm {
                Algorithm::EcdsaP256
                | Algorithm::EcdsaP384
                | Algorithm::EcdsaP521
                | Algorithm::Ed25519
                | Algorithm::MlDsa44
                | Algorithm::MlDsa65
                | Algorithm::MlDsa87
                | Algorithm::Sm2Sign => {
                    let generated = module.generate_signing_key(algorithm, None)?;
                    indicators.push(generated.indicator());
                    generated.into_value()
                }
                // The shared key comes from a default-profile module, which cannot generate
                // it while a self-test is being broken; a module in its error state refuses
                // before parsing the key anyway.
                _ if module.state() == ModuleState::Error => {
                    module.signing_key_from_pkcs8(algorithm, &[])?.into_value()
                }
                _ => {
                    let pkcs8 = if module.policy().profile() == Profile::Cnsa20 {
                        rsa3072_pkcs8()
                    } else {
                        rsa2048_pkcs8()
                    };
                    let imported = module.signing_key_from_pkcs8(algorithm, pkcs8)?;
                    indicators.push(imported.indicator());
                    imported.into_value()
                }
            };
            let signature = key.sign(MESSAGE)?;
            indicators.push(signature.indicator());
            let public_key = key.public_key_der().expect("public key export");
            indicators.push(
                module
                    .verify(algorithm, &public_key, MESSAGE, &signature)?
                    .indicator(),
            );
        }
        Family::KeyAgreement => {
            let ours = module.generate_agreement_key(algorithm)?;
            let theirs = module.generate_agreement_key(algorithm)?;
            indicators.push(ours.indicator());
            indicators.push(theirs.indicator());
            let a = ours.agree(&theirs.public_key().expect("public key"))?;
            let b = theirs.agree(&ours.public_key().expect("public key"))?;
            assert_eq!(a.as_slice(), b.as_slice(), "{algorithm} agreement");
            indicators.push(a.indicator());
            indicators.push(b.indicator());
        }
        Family::Kem => {
            let key = module.generate_kem_key(algorithm)?;
            indicators.push(key.indicator());
            let encapsulated =
                module.encapsulate(algorithm, &key.encapsulation_key().expect("ek"))?;
            indicators.push(encapsulated.indicator());
            let secret = key.decapsulate(&encapsulated.ciphertext)?;
            assert_eq!(
                secret.as_slice(),
                encapsulated.shared_secret.as_slice(),
                "{algorithm} round trip"
            );
            indicators.push(secret.indicator());
        }
        Family::Random => {
            let mut bytes = [0u8; 32];
            indicators.push(module.fill_random_with(algorithm, &mut bytes)?.indicator());
        }
        Family::KeyExchange => {
            // Static keys made outside the module, so that only this algorithm is exercised.
            let static_key = |byte: u8| {
                let key = regula_sm::sm2::PrivateKey::from_bytes(&[byte; 32]).unwrap();
                let public_key = key.public_key().to_spki_der().unwrap();
                (key.to_pkcs8_der().unwrap(), public_key)
            };
            let ((a_private, a_public), (b_private, b_public)) = (static_key(1), static_key(2));
            let initiator = module.start_sm2_key_exchange(
                algorithm,
                regula::KeyExchangeRole::Initiator,
                &a_private,
                b"alice",
                &b_public,
                b"bob",
            )?;
            let responder = module.start_sm2_key_exchange(
                algorithm,
                regula::KeyExchangeRole::Responder,
                &b_private,
                b"bob",
                &a_public,
                b"alice",
            )?;
            let r_a = initiator.ephemeral_public_key()?;
            let r_b = responder.ephemeral_public_key()?;
            let k_a = initiator.finish(&r_b, 16)?;
            let k_b = responder.finish(&r_a, 16)?;
            assert_eq!(*k_a.key(), *k_b.key(), "{algorithm} agreement");
            k_a.verify_peer_confirmation(&k_b.confirmation())?;
            k_b.verify_peer_confirmation(&k_a.confirmation())?;
            indicators.push(k_a.indicator());
            indicators.push(k_b.indicator());
        }
        Family::PublicKeyEncryption => {
            let key = module.generate_decryption_key(algorithm)?;
            indicators.push(key.indicator());
            let public_key = key.public_key_der().expect("public key export");
            let ciphertext = module.encrypt_to_public_key(
                algorithm,
                &public_key,
                MESSAGE,
                regula::CiphertextFormat::default(),
            )?;
            indicators.push(ciphertext.indicator());
            let plaintext = key.decrypt(&ciphertext, regula::CiphertextFormat::default())?;
            assert_eq!(plaintext.as_slice(), MESSAGE, "{algorithm} round trip");
            indicators.push(plaintext.indicator());
        }
        other => panic!("no exercise for family {other}"),
    }
    Ok(indicators)
}
