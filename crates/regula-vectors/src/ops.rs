//! One vector through Regula's public API, whatever file it came from.

use regula::{Algorithm, Error, Module};

use crate::tally::{Outcome, attempt};

/// The nonce length every Regula AEAD takes (SP 800-38D §8.2, RFC 8439).
pub(crate) const AEAD_NONCE_LEN: usize = 12;
/// The only tag length Regula's AEAD API produces and checks.
pub(crate) const AEAD_TAG_LEN: usize = 16;

/// Looks an algorithm up by its Regula name; a name the module does not know is a skip.
pub(crate) fn algorithm(name: &str) -> Result<Algorithm, Outcome> {
    Algorithm::from_name(name).ok_or_else(|| Outcome::not_offered(name))
}

pub(crate) struct AeadVector<'a> {
    pub key: &'a [u8],
    pub nonce: &'a [u8],
    pub aad: &'a [u8],
    pub plaintext: &'a [u8],
    pub ciphertext: &'a [u8],
    pub tag: &'a [u8],
}

impl AeadVector<'_> {
    fn sealed(&self) -> Vec<u8> {
        let mut sealed = self.ciphertext.to_vec();
        sealed.extend_from_slice(self.tag);
        sealed
    }

    /// Why the API cannot express this vector's shape, if it cannot. AES-CCM takes the
    /// nonces and tags SP 800-38C §A.1 allows (7 to 13 bytes; 4 to 16 bytes, even); every
    /// other AEAD a 96-bit nonce and a 128-bit tag.
    fn unsupported_shape(&self, name: &str, nonce_kind: &str) -> Option<Outcome> {
        if is_aes_ccm(name) {
            if !CCM_NONCE_LENS.contains(&self.nonce.len()) {
                return Some(Outcome::unsupported(format!(
                    "{}-bit CCM nonce",
                    self.nonce.len() * 8
                )));
            }
            if !(4..=16).contains(&self.tag.len()) || self.tag.len() % 2 == 1 {
                return Some(Outcome::unsupported(format!(
                    "{}-bit CCM tag",
                    self.tag.len() * 8
                )));
            }
            return None;
        }
        if self.nonce.len() != AEAD_NONCE_LEN {
            return Some(Outcome::unsupported(format!(
                "{}-bit {nonce_kind}",
                self.nonce.len() * 8
            )));
        }
        if self.tag.len() < AEAD_TAG_LEN {
            return Some(Outcome::unsupported("truncated tag"));
        }
        if self.tag.len() > AEAD_TAG_LEN {
            return Some(Outcome::unsupported(format!(
                "{}-bit tag",
                self.tag.len() * 8
            )));
        }
        None
    }
}

/// SP 800-38C §A.1: a CCM nonce has 7 to 13 bytes.
const CCM_NONCE_LENS: std::ops::RangeInclusive<usize> = 7..=13;

fn is_aes_ccm(name: &str) -> bool {
    name.starts_with("aes-") && name.ends_with("-ccm")
}

/// An AEAD key whose tag has the vector's length: AES-CCM binds the tag length to the key
/// (`Module::aead_key_with_tag_len`); the other AEADs take the default.
fn aead_key(
    module: &Module,
    algorithm: Algorithm,
    name: &str,
    key: &[u8],
    tag_len: usize,
) -> Result<regula::AeadKey, Error> {
    if is_aes_ccm(name) {
        module.aead_key_with_tag_len(algorithm, key, tag_len)
    } else {
        module.aead_key(algorithm, key)
    }
}

/// Checks an AEAD vector by decrypting (tag and plaintext must match) and, where the policy
/// lets the caller choose the nonce, by encrypting too.
///
/// A nonce or tag of a length the API does not take makes the vector a skip — unless
/// `shape_is_the_flaw`, i.e. the vector must be rejected *because of* that length, in which
/// case it runs and must be refused.
pub(crate) fn aead_check(
    module: &Module,
    name: &str,
    vector: &AeadVector<'_>,
    nonce_kind: &str,
    shape_is_the_flaw: bool,
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    if !shape_is_the_flaw && let Some(skip) = vector.unsupported_shape(name, nonce_kind) {
        return skip;
    }
    attempt(|| {
        let key = aead_key(module, algorithm, name, vector.key, vector.tag.len())?;
        let sealed = vector.sealed();
        let plaintext = key.open(vector.nonce, vector.aad, &sealed)?.into_value();
        if plaintext != vector.plaintext {
            return Ok(Outcome::WrongOutput(
                "decryption succeeded but the plaintext differs from the vector".to_string(),
            ));
        }
        match key.seal_with_nonce(vector.nonce, vector.aad, vector.plaintext) {
            Ok(ciphertext) if *ciphertext != sealed => Ok(Outcome::WrongOutput(
                "encryption with the vector's nonce gives a different ciphertext or tag"
                    .to_string(),
            )),
            // A policy that refuses caller-chosen nonces leaves the decryption check alone.
            Ok(_) | Err(Error::NotApproved { .. }) => Ok(Outcome::Accepted),
            Err(error) => Ok(Outcome::WrongOutput(format!(
                "encryption with the vector's nonce failed: {error}"
            ))),
        }
    })
}

/// An encryption-only vector (CAVP `gcmEncryptExtIV`, CCM `VADT`/`VNT`/`VPT`/`VTT`): needs a
/// caller-chosen nonce.
pub(crate) fn aead_seal(module: &Module, name: &str, vector: &AeadVector<'_>) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    if let Some(skip) = vector.unsupported_shape(name, "GCM IV") {
        return skip;
    }
    attempt(|| {
        let key = aead_key(module, algorithm, name, vector.key, vector.tag.len())?;
        let sealed = key
            .seal_with_nonce(vector.nonce, vector.aad, vector.plaintext)?
            .into_value();
        Ok(if sealed == vector.sealed() {
            Outcome::Accepted
        } else {
            Outcome::WrongOutput("ciphertext or tag differs from the vector".to_string())
        })
    })
}

pub(crate) fn digest(module: &Module, name: &str, message: &[u8], expected: &[u8]) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        // An XOF (SHAKE) gives as many bytes as the vector expects, as OpenSSL's evp_test asks.
        let output = if algorithm.is_xof() {
            module.xof(algorithm, message, expected.len())?
        } else {
            module.digest(algorithm, message)?
        };
        Ok(compare_output(&output.into_value(), expected, "digest"))
    })
}

fn compare_output(output: &[u8], expected: &[u8], what: &str) -> Outcome {
    if output == expected {
        Outcome::Accepted
    } else {
        Outcome::WrongOutput(format!("{what} differs from the vector"))
    }
}

/// The SHAVS / SHA3VS Monte Carlo step from `seed`: 1000 chained digests (SHA-1/SHA-2:
/// `MDi = H(MDi-3 || MDi-2 || MDi-1)`; SHA-3: `MDi = H(MDi-1)`), each through the module.
pub(crate) fn monte(module: &Module, name: &str, seed: &[u8], expected: &[u8]) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    let sha3 = name.starts_with("sha3-");
    attempt(|| {
        let output = if sha3 {
            let mut md = seed.to_vec();
            for _ in 0..1000 {
                md = module.digest(algorithm, &md)?.into_value();
            }
            md
        } else {
            let mut window = [seed.to_vec(), seed.to_vec(), seed.to_vec()];
            for _ in 3..1003 {
                let message = window.concat();
                let next = module.digest(algorithm, &message)?.into_value();
                window = [
                    std::mem::take(&mut window[1]),
                    std::mem::take(&mut window[2]),
                    next,
                ];
            }
            std::mem::take(&mut window[2])
        };
        Ok(compare_output(&output, expected, "Monte Carlo checkpoint"))
    })
}

/// A MAC tag check. Full-length tags go through `MacKey::verify`; a shorter (truncated) tag is
/// compared with the same-length prefix of `MacKey::sign`.
pub(crate) fn mac(module: &Module, name: &str, key: &[u8], message: &[u8], tag: &[u8]) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        let mac_key = module.mac_key(algorithm, key)?;
        let full = mac_key.sign(message)?.into_value();
        if tag.len() == full.len() {
            mac_key.verify(message, tag)?;
            return Ok(Outcome::Accepted);
        }
        if tag.is_empty() || tag.len() > full.len() {
            return Ok(Outcome::Rejected(format!(
                "a {}-byte tag cannot be a {}-byte {name} tag",
                tag.len(),
                full.len()
            )));
        }
        Ok(Outcome::compare(full[..tag.len()] == *tag, "truncated tag"))
    })
}

pub(crate) fn hkdf(
    module: &Module,
    name: &str,
    ikm: &[u8],
    salt: &[u8],
    info: &[u8],
    expected: &[u8],
    len: usize,
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        let okm = module.hkdf(algorithm, ikm, salt, info, len)?.into_value();
        Ok(compare_output(&okm, expected, "derived key"))
    })
}

pub(crate) fn pbkdf2(
    module: &Module,
    name: &str,
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    expected: &[u8],
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        let derived = module
            .pbkdf2(algorithm, password, salt, iterations, expected.len())?
            .into_value();
        Ok(compare_output(&derived, expected, "derived key"))
    })
}

/// Signature verification with a public key the module parses (SPKI DER or raw point).
pub(crate) fn verify(
    module: &Module,
    name: &str,
    public_key: &[u8],
    message: &[u8],
    signature: &[u8],
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        module.verify(algorithm, public_key, message, signature)?;
        Ok(Outcome::Accepted)
    })
}

/// Public-key validation (CAVP PKV) through the only door the API has for a bare public key:
/// `Module::verify` parses and validates the key before it looks at the signature, so
/// `InvalidKey` means the key was rejected and `BadSignature` means it was accepted.
pub(crate) fn public_key_check(module: &Module, name: &str, public_key: &[u8]) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    let placeholder = der_signature(&[1], &[1]);
    match module.verify(algorithm, public_key, b"", &placeholder) {
        Ok(_) | Err(Error::BadSignature) => Outcome::Accepted,
        Err(error @ Error::InvalidKey { .. }) => Outcome::Rejected(error.to_string()),
        Err(error) => Outcome::from_error(&error),
    }
}

/// Block-cipher modes the API has. Exact both ways: CTR, ECB, CFB8, XTS (the IV is the
/// tweak), DES/3DES-CBC (whole blocks, no padding) and RC4 (no IV). CBC with AES or SM4 is
/// checked by encryption only: the API pads with PKCS#7, so unpadded CBC vectors are compared
/// on the ciphertext prefix.
pub(crate) fn cipher(
    module: &Module,
    name: &str,
    key: &[u8],
    iv: &[u8],
    plaintext: &[u8],
    ciphertext: &[u8],
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    let no_iv = name.ends_with("-ecb") || name == "rc4";
    let exact = no_iv
        || name.ends_with("-ctr")
        || name.ends_with("-cfb8")
        || name.ends_with("-cfb")
        || name.ends_with("-ofb")
        || name.ends_with("-xts")
        || name.ends_with("-xts-gb")
        || name.starts_with("des-");
    if !exact && !name.ends_with("-cbc") {
        return Outcome::unsupported(format!("{name} mode"));
    }
    let whole_blocks = plaintext.len().is_multiple_of(16) && plaintext.len() == ciphertext.len();
    if !exact && !whole_blocks {
        return Outcome::unsupported("CBC without padding on a partial block");
    }
    let iv = if no_iv { &[][..] } else { iv };
    attempt(|| {
        let cipher_key = module.cipher_key(algorithm, key)?;
        let encrypted = cipher_key
            .encrypt((!no_iv).then_some(iv), plaintext)?
            .into_value();
        let matches = if exact {
            encrypted.ciphertext == ciphertext
        } else {
            encrypted.ciphertext.get(..ciphertext.len()) == Some(ciphertext)
        };
        if !matches {
            return Ok(Outcome::WrongOutput(
                "ciphertext differs from the vector".to_string(),
            ));
        }
        if exact {
            let decrypted = cipher_key.decrypt(iv, ciphertext)?.into_value();
            if decrypted != plaintext {
                return Ok(Outcome::WrongOutput(
                    "decrypted plaintext differs from the vector".to_string(),
                ));
            }
        }
        Ok(Outcome::Accepted)
    })
}

/// An RC4 keystream vector (RFC 6229 as cryptography-vectors writes it): `plaintext`
/// encrypted at `offset` bytes into the keystream, i.e. the tail of the encryption of
/// `offset` zero bytes followed by `plaintext`.
pub(crate) fn rc4_at(
    module: &Module,
    key: &[u8],
    offset: usize,
    plaintext: &[u8],
    ciphertext: &[u8],
) -> Outcome {
    let algorithm = match algorithm("rc4") {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    let mut input = vec![0u8; offset];
    input.extend_from_slice(plaintext);
    attempt(|| {
        let cipher_key = module.cipher_key(algorithm, key)?;
        let stream = cipher_key.encrypt(None, &input)?.into_value().ciphertext;
        if stream.get(offset..) != Some(ciphertext) {
            return Ok(Outcome::WrongOutput(
                "ciphertext differs from the vector".to_string(),
            ));
        }
        let decrypted = cipher_key.decrypt(&[], &stream)?.into_value();
        Ok(compare_output(&decrypted, &input, "decrypted plaintext"))
    })
}

/// AES key wrapping (SP 800-38F KW or KWP). With the plaintext key (a vector that must
/// succeed) the wrapping must give `wrapped` and the unwrapping the key back; without it (a
/// vector that must fail) only the unwrapping runs, and it must refuse `wrapped`.
pub(crate) fn key_wrap(
    module: &Module,
    name: &str,
    kek: &[u8],
    plaintext: Option<&[u8]>,
    wrapped: &[u8],
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        let cipher_key = module.cipher_key(algorithm, kek)?;
        if let Some(plaintext) = plaintext {
            let ours = cipher_key.encrypt(None, plaintext)?.into_value().ciphertext;
            if ours != wrapped {
                return Ok(Outcome::WrongOutput(
                    "wrapped key differs from the vector".to_string(),
                ));
            }
        }
        let unwrapped = cipher_key.decrypt(&[], wrapped)?.into_value();
        Ok(match plaintext {
            Some(plaintext) => compare_output(&unwrapped, plaintext, "unwrapped key"),
            None => Outcome::Accepted,
        })
    })
}

/// SP 800-108 KBKDF in counter mode (32-bit counter before the fixed input).
pub(crate) fn kbkdf(
    module: &Module,
    name: &str,
    key: &[u8],
    fixed_input: &[u8],
    expected: &[u8],
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        let derived = module
            .kbkdf(algorithm, key, fixed_input, expected.len())?
            .into_value();
        Ok(compare_output(&derived, expected, "derived key"))
    })
}

/// A MAC that takes a nonce (GMAC): full-length tags through `verify_with_nonce`, shorter
/// ones against the prefix of `sign_with_nonce`.
pub(crate) fn mac_with_nonce(
    module: &Module,
    name: &str,
    key: &[u8],
    nonce: &[u8],
    message: &[u8],
    tag: &[u8],
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        let mac_key = module.mac_key(algorithm, key)?;
        let full = mac_key.sign_with_nonce(nonce, message)?.into_value();
        if tag.len() == full.len() {
            mac_key.verify_with_nonce(nonce, message, tag)?;
            return Ok(Outcome::Accepted);
        }
        if tag.is_empty() || tag.len() > full.len() {
            return Ok(Outcome::Rejected(format!(
                "a {}-byte tag cannot be a {}-byte {name} tag",
                tag.len(),
                full.len()
            )));
        }
        Ok(Outcome::compare(full[..tag.len()] == *tag, "truncated tag"))
    })
}

/// The DER object identifier of an ML-DSA parameter set (FIPS 204; NIST CSOR
/// 2.16.840.1.101.3.4.3.17/18/19), as in an AlgorithmIdentifier without parameters.
fn mldsa_algorithm_identifier(name: &str) -> Vec<u8> {
    let last = match name {
        "ml-dsa-44" => 0x11,
        "ml-dsa-65" => 0x12,
        _ => 0x13,
    };
    let oid = [
        0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, last,
    ];
    der_wrap(0x30, &oid)
}

fn der_wrap(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend(der_length(content.len()));
    out.extend_from_slice(content);
    out
}

/// `SubjectPublicKeyInfo` of a raw ML-DSA public key (RFC 9881).
pub(crate) fn mldsa_spki(name: &str, public_key: &[u8]) -> Vec<u8> {
    let mut bits = vec![0u8];
    bits.extend_from_slice(public_key);
    let mut body = mldsa_algorithm_identifier(name);
    body.extend(der_wrap(0x03, &bits));
    der_wrap(0x30, &body)
}

/// Seed-only PKCS#8 `OneAsymmetricKey` of an ML-DSA key (RFC 9881: the private key is the
/// `seed [0]` choice).
pub(crate) fn mldsa_seed_pkcs8(name: &str, seed: &[u8]) -> Vec<u8> {
    let mut body = vec![0x02, 0x01, 0x00];
    body.extend(mldsa_algorithm_identifier(name));
    body.extend(der_wrap(0x04, &der_wrap(0x80, seed)));
    der_wrap(0x30, &body)
}

/// PKCS#8 `OneAsymmetricKey` of an expanded ML-DSA private key (RFC 9881: the
/// `expandedKey OCTET STRING` choice).
pub(crate) fn mldsa_expanded_pkcs8(name: &str, private_key: &[u8]) -> Vec<u8> {
    let mut body = vec![0x02, 0x01, 0x00];
    body.extend(mldsa_algorithm_identifier(name));
    body.extend(der_wrap(0x04, &der_wrap(0x04, private_key)));
    der_wrap(0x30, &body)
}

/// DER `SEQUENCE { INTEGER r, INTEGER s }` from big-endian r and s.
pub(crate) fn der_signature(r: &[u8], s: &[u8]) -> Vec<u8> {
    let mut body = der_integer(r);
    body.extend(der_integer(s));
    let mut out = vec![0x30];
    out.extend(der_length(body.len()));
    out.extend(body);
    out
}

fn der_integer(value: &[u8]) -> Vec<u8> {
    let start = value
        .iter()
        .position(|&byte| byte != 0)
        .unwrap_or(value.len());
    let mut content = value[start..].to_vec();
    if content.first().is_none_or(|&byte| byte & 0x80 != 0) {
        content.insert(0, 0);
    }
    let mut out = vec![0x02];
    out.extend(der_length(content.len()));
    out.extend(content);
    out
}

fn der_length(len: usize) -> Vec<u8> {
    if len < 0x80 {
        return vec![len as u8];
    }
    let bytes: Vec<u8> = len
        .to_be_bytes()
        .into_iter()
        .skip_while(|&byte| byte == 0)
        .collect();
    let mut out = vec![0x80 | bytes.len() as u8];
    out.extend(bytes);
    out
}

/// The uncompressed SEC 1 point `04 || X || Y`, coordinates left-padded to the field size.
pub(crate) fn uncompressed_point(x: &[u8], y: &[u8], field_len: usize) -> Vec<u8> {
    let pad = |coordinate: &[u8]| {
        let mut out = vec![0u8; field_len.saturating_sub(coordinate.len())];
        out.extend_from_slice(coordinate);
        out
    };
    let mut point = vec![0x04];
    point.extend(pad(x));
    point.extend(pad(y));
    point
}

/// Key agreement with an imported private key: the secret must equal `shared`; an invalid
/// public key must be refused.
pub(crate) fn key_agreement(
    module: &Module,
    name: &str,
    private_key: &[u8],
    public_key: &[u8],
    shared: &[u8],
) -> Outcome {
    let algorithm = match algorithm(name) {
        Ok(algorithm) => algorithm,
        Err(skip) => return skip,
    };
    attempt(|| {
        let key = module
            .agreement_key_from_private_bytes(algorithm, private_key)?
            .into_value();
        let secret = key.agree(public_key)?;
        Ok(if secret.as_slice() == shared {
            Outcome::Accepted
        } else {
            Outcome::WrongOutput("shared secret differs from the vector".into())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_encoding_of_integers_and_lengths() {
        assert_eq!(
            der_signature(&[1], &[0x80]),
            [0x30, 7, 2, 1, 1, 2, 2, 0, 0x80]
        );
        assert_eq!(der_integer(&[0, 0, 5]), [2, 1, 5]);
        assert_eq!(der_integer(&[]), [2, 1, 0]);
        assert_eq!(der_length(200), [0x81, 200]);
        assert_eq!(der_length(300), [0x82, 1, 44]);
    }

    #[test]
    fn points_are_padded() {
        assert_eq!(uncompressed_point(&[1], &[2, 3], 3), [4, 0, 0, 1, 0, 2, 3]);
    }
}
