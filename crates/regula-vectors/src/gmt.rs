//! The worked examples of the GM/T standards' appendices (GB/T 32905 SM3, GB/T 32907 SM4,
//! GB/T 32918.5 SM2 on curveSM2), written as blank-line separated stanzas of `Key = Value`
//! lines. A file opens with `Example = …` (the standard and annex the values come from); each
//! stanza says what runs with `Algorithm = sm3 | sm4 | sm2-curve | sm2-sign | sm2-encrypt |
//! sm2-key-exchange`. Values are hex, `"text"`, or (for `Iterations`, `KeyLength`) decimal.
//!
//! Every stanza is one vector, passed only when every check of it holds:
//!
//! - `sm3`: the module's SM3 digest of `Message` is `Digest`.
//! - `sm4`: `Iterations` SM4-ECB encryptions of `Plaintext` under `Key`, one block per call
//!   to the module's cipher service, give `Ciphertext`; as many decryptions give it back.
//! - `sm2-curve`: importing the private key 1 gives the public key G = (`Gx`, `Gy`); the key
//!   `N` - 2 is taken and `N` - 1 refused (GB/T 32918.1 §6.1: d in [1, n-2]), which pins n;
//!   the module encrypts to -G = (`Gx`, `P` - `Gy`), which pins p given G.
//! - `sm2-sign`: the module derives `PublicKey` from `PrivateKey` and verifies (`R`, `S`) by
//!   `ID` over `Message`; signing with the fixed `K` gives (`R`, `S`).
//! - `sm2-encrypt`: the module derives `PublicKey` and decrypts `C1 ‖ C3 ‖ C2` to `Message`;
//!   encrypting with the fixed `K` gives `C1 ‖ C3 ‖ C2`.
//! - `sm2-key-exchange`: both parties' static keys derive as written, the fixed ephemerals give
//!   `EphemeralPublicA`/`B`, both parties derive `Key`, the responder's confirmation is `SB`
//!   (= S1), the initiator's `SA` (= S2), and each party accepts the other's.
//!
//! Signing, encrypting and exchanging with a *given* k or ephemeral is no Regula service. Those
//! checks first ask the module whether the policy in force serves the algorithm
//! ([`regula::Module::account`]) and then run regula-sm's known-answer entries
//! (`*_for_self_test`, the ones the module's own self-tests use); everything else — key
//! import and public-key derivation, verification, decryption, SM3, SM4 — goes through the
//! module's public API.

use regula::{Algorithm, CiphertextFormat, Module, Service};
use regula_sm::sm2;

use crate::kv::{self, Field};
use crate::tally::{Expect, Outcome, Tally, attempt};
use crate::{FileReport, Format, VectorError};

/// The key of a file's first statement, by which the format is recognised.
pub(crate) const OPENING_KEY: &str = "Example";

struct Stanza {
    line: usize,
    fields: Vec<Field>,
}

fn parse(label: &str, text: &str) -> Result<Vec<Stanza>, VectorError> {
    let mut stanzas = Vec::new();
    let mut current: Option<Stanza> = None;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() {
            stanzas.extend(current.take());
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let (key, value) = kv::split_key_value(line).ok_or_else(|| {
            let shown: String = line.chars().take(40).collect();
            VectorError::malformed(
                label,
                line_no,
                format!("unrecognised line `{shown}` (expected `Key = Value`)"),
            )
        })?;
        let stanza = current.get_or_insert_with(|| Stanza {
            line: line_no,
            fields: Vec::new(),
        });
        if stanza.fields.iter().any(|field| field.key == key) {
            return Err(VectorError::malformed(
                label,
                line_no,
                format!("`{key}` given twice in one example"),
            ));
        }
        stanza.fields.push(Field {
            key: key.to_string(),
            value: value.to_string(),
            line: line_no,
        });
    }
    stanzas.extend(current.take());
    Ok(stanzas)
}

/// Reads one stanza's fields; a missing or malformed one makes the file malformed.
struct Reader<'a> {
    label: &'a str,
    stanza: &'a Stanza,
}

impl Reader<'_> {
    fn field(&self, key: &str) -> Result<&Field, VectorError> {
        self.stanza
            .fields
            .iter()
            .find(|field| field.key == key)
            .ok_or_else(|| {
                VectorError::malformed(
                    self.label,
                    self.stanza.line,
                    format!("example has no `{key}`"),
                )
            })
    }

    fn bytes(&self, key: &str) -> Result<Vec<u8>, VectorError> {
        kv::decode(self.label, self.field(key)?)
    }

    fn number(&self, key: &str) -> Result<usize, VectorError> {
        let field = self.field(key)?;
        field.value.parse().map_err(|_| {
            VectorError::malformed(
                self.label,
                field.line,
                format!("`{key}` is not a decimal number"),
            )
        })
    }

    /// A 32-byte scalar or coordinate.
    fn scalar(&self, key: &str) -> Result<[u8; 32], VectorError> {
        let bytes = self.bytes(key)?;
        bytes.as_slice().try_into().map_err(|_| {
            VectorError::malformed(
                self.label,
                self.field(key).map_or(self.stanza.line, |field| field.line),
                format!("`{key}` must be 32 bytes, got {}", bytes.len()),
            )
        })
    }
}

pub(crate) fn run(module: &Module, label: &str, text: &str) -> Result<FileReport, VectorError> {
    let stanzas = parse(label, text)?;
    let mut tally = Tally::new(FileReport::new(label, Format::GmtAppendix));
    let mut algorithms: Vec<String> = Vec::new();
    for stanza in &stanzas {
        let reader = Reader { label, stanza };
        let example = reader.field(OPENING_KEY)?.value.clone();
        let algorithm = reader.field("Algorithm")?.value.to_ascii_lowercase();
        let outcome = match algorithm.as_str() {
            "sm3" => sm3(module, &reader)?,
            "sm4" => sm4(module, &reader)?,
            "sm2-curve" => sm2_curve(module, &reader)?,
            "sm2-sign" => sm2_sign(module, &reader)?,
            "sm2-encrypt" => sm2_encrypt(module, &reader)?,
            "sm2-key-exchange" => sm2_key_exchange(module, &reader)?,
            other => {
                return Err(VectorError::malformed(
                    label,
                    reader.field("Algorithm")?.line,
                    format!("unknown `Algorithm = {other}`"),
                ));
            }
        };
        if !algorithms.contains(&algorithm) {
            algorithms.push(algorithm);
        }
        let id = format!("{example} (line {})", stanza.line);
        tally.record(&id, Expect::Valid, outcome);
    }
    if algorithms.is_empty() {
        return Err(VectorError::malformed(label, 0, "no examples found"));
    }
    tally.set_algorithm(algorithms.join(", "));
    Ok(tally.finish())
}

type Checked = Result<Outcome, VectorError>;

fn mismatch(what: &str) -> Outcome {
    Outcome::WrongOutput(format!("{what} differs from the standard's"))
}

fn sm3(module: &Module, reader: &Reader<'_>) -> Checked {
    let message = reader.bytes("Message")?;
    let digest = reader.bytes("Digest")?;
    Ok(crate::ops::digest(module, "sm3", &message, &digest))
}

fn sm4(module: &Module, reader: &Reader<'_>) -> Checked {
    let key = reader.bytes("Key")?;
    let plaintext = reader.bytes("Plaintext")?;
    let iterations = reader.number("Iterations")?;
    let expected = reader.bytes("Ciphertext")?;
    Ok(attempt(|| {
        let key = module.cipher_key(Algorithm::Sm4Ecb, &key)?;
        // One block per call to the service, the same buffer each time.
        let mut block = plaintext.clone();
        for _ in 0..iterations {
            key.encrypt_in_place(&[], &mut block)?;
        }
        if block != expected {
            return Ok(mismatch("ciphertext"));
        }
        for _ in 0..iterations {
            key.decrypt_in_place(&[], &mut block)?;
        }
        Ok(if block == plaintext {
            Outcome::Accepted
        } else {
            Outcome::WrongOutput(
                "decrypting the ciphertext as often does not give the plaintext".into(),
            )
        })
    }))
}

/// A PKCS#8 `PrivateKeyInfo` (RFC 5208) holding the SM2 private key `d` and no public key, so
/// that the public key the module reports is derived by it: id-ecPublicKey on curveSM2
/// (1.2.156.10197.1.301), `ECPrivateKey { version 1, privateKey d }` (RFC 5915).
fn pkcs8(d: &[u8; 32]) -> Vec<u8> {
    let mut der = Vec::with_capacity(67);
    der.extend_from_slice(&[0x30, 0x41, 0x02, 0x01, 0x00]);
    der.extend_from_slice(&[
        0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x81,
        0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d,
    ]);
    der.extend_from_slice(&[0x04, 0x27, 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20]);
    der.extend_from_slice(d);
    der
}

/// An SM2 signature as DER `SEQUENCE { r INTEGER, s INTEGER }` (GM/T 0009 §7.3) from the two
/// 32-byte values of an example.
fn signature_der(r: &[u8; 32], s: &[u8; 32]) -> Vec<u8> {
    fn integer(value: &[u8; 32]) -> Vec<u8> {
        let start = value
            .iter()
            .position(|&byte| byte != 0)
            .unwrap_or(value.len() - 1);
        let digits = &value[start..];
        let pad = digits[0] & 0x80 != 0;
        let len = digits.len() + usize::from(pad);
        let mut out = vec![0x02, len as u8];
        if pad {
            out.push(0);
        }
        out.extend_from_slice(digits);
        out
    }
    let (r, s) = (integer(r), integer(s));
    let mut der = vec![0x30, (r.len() + s.len()) as u8];
    der.extend(r);
    der.extend(s);
    der
}

/// Imports `d` through the module (as a signing key) and returns the uncompressed public key
/// it derives: the last 65 bytes of its SubjectPublicKeyInfo.
fn derived_public_key(module: &Module, d: &[u8; 32]) -> Result<Vec<u8>, regula::Error> {
    let key = module
        .signing_key_from_pkcs8(Algorithm::Sm2Sign, &pkcs8(d))?
        .into_value();
    let spki = key.public_key_der()?;
    Ok(spki[spki.len().saturating_sub(65)..].to_vec())
}

/// A regula-sm error of a known-answer entry, as an outcome.
fn sm2_refused(what: &str, error: sm2::Error) -> Outcome {
    Outcome::Rejected(format!("{what}: {error}"))
}

/// Big-endian `a - b` of two 32-byte values; `None` when `b > a`.
fn subtract(a: &[u8; 32], b: &[u8; 32]) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for index in (0..32).rev() {
        let mut digit = i16::from(a[index]) - i16::from(b[index]) - borrow;
        borrow = i16::from(digit < 0);
        if digit < 0 {
            digit += 256;
        }
        out[index] = digit as u8;
    }
    (borrow == 0).then_some(out)
}

fn sm2_curve(module: &Module, reader: &Reader<'_>) -> Checked {
    let p = reader.scalar("P")?;
    let n = reader.scalar("N")?;
    let gx = reader.scalar("Gx")?;
    let gy = reader.scalar("Gy")?;
    let mut one = [0u8; 32];
    one[31] = 1;
    let two = {
        let mut two = [0u8; 32];
        two[31] = 2;
        two
    };
    Ok(attempt(|| {
        let mut generator = vec![0x04];
        generator.extend_from_slice(&gx);
        generator.extend_from_slice(&gy);
        if derived_public_key(module, &one)? != generator {
            return Ok(mismatch("the public key of d = 1, G,"));
        }
        let (Some(n_minus_1), Some(n_minus_2)) = (subtract(&n, &one), subtract(&n, &two)) else {
            return Ok(Outcome::WrongOutput("n is smaller than 2".into()));
        };
        if let Err(error) = derived_public_key(module, &n_minus_2) {
            return Ok(Outcome::WrongOutput(format!(
                "the private key n - 2 is refused ({error}); GB/T 32918.1 allows d up to n - 2"
            )));
        }
        if derived_public_key(module, &n_minus_1).is_ok() {
            return Ok(Outcome::WrongOutput(
                "the private key n - 1 is taken; GB/T 32918.1 allows d up to n - 2".into(),
            ));
        }
        let Some(minus_gy) = subtract(&p, &gy) else {
            return Ok(Outcome::WrongOutput("p is smaller than Gy".into()));
        };
        let mut negated = vec![0x04];
        negated.extend_from_slice(&gx);
        negated.extend_from_slice(&minus_gy);
        if let Err(error) = module.encrypt_to_public_key(
            Algorithm::Sm2Encrypt,
            &negated,
            b"curveSM2",
            CiphertextFormat::C1C3C2,
        ) {
            return Ok(Outcome::WrongOutput(format!(
                "encrypting to -G = (Gx, p - Gy) is refused: {error}"
            )));
        }
        Ok(Outcome::Accepted)
    }))
}

fn sm2_sign(module: &Module, reader: &Reader<'_>) -> Checked {
    let d = reader.scalar("PrivateKey")?;
    let public_key = reader.bytes("PublicKey")?;
    let id = reader.bytes("ID")?;
    let message = reader.bytes("Message")?;
    let k = reader.scalar("K")?;
    let r = reader.scalar("R")?;
    let s = reader.scalar("S")?;
    Ok(attempt(|| {
        if derived_public_key(module, &d)? != public_key {
            return Ok(mismatch("the public key derived from the private key"));
        }
        module.verify_with_id(
            Algorithm::Sm2Sign,
            &public_key,
            &message,
            &signature_der(&r, &s),
            &id,
        )?;
        module.account(Algorithm::Sm2Sign, Service::Sign)?;
        let key = match sm2::PrivateKey::from_bytes(&d) {
            Ok(key) => key,
            Err(error) => return Ok(sm2_refused("private key", error)),
        };
        let signature =
            match sm2::signature::sign_with_fixed_k_for_self_test(&key, &id, &message, &k) {
                Ok(signature) => signature.to_bytes(),
                Err(error) => return Ok(sm2_refused("signing with the example's k", error)),
            };
        Ok(if signature[..32] == r && signature[32..] == s {
            Outcome::Accepted
        } else {
            mismatch("the signature (r, s) made with the example's k")
        })
    }))
}

fn sm2_encrypt(module: &Module, reader: &Reader<'_>) -> Checked {
    let d = reader.scalar("PrivateKey")?;
    let public_key = reader.bytes("PublicKey")?;
    let message = reader.bytes("Message")?;
    let k = reader.scalar("K")?;
    let ciphertext = [
        reader.bytes("C1")?,
        reader.bytes("C3")?,
        reader.bytes("C2")?,
    ]
    .concat();
    Ok(attempt(|| {
        if derived_public_key(module, &d)? != public_key {
            return Ok(mismatch("the public key derived from the private key"));
        }
        let key = module
            .decryption_key_from_pkcs8(Algorithm::Sm2Encrypt, &pkcs8(&d))?
            .into_value();
        let plaintext = key.decrypt(&ciphertext, CiphertextFormat::C1C3C2)?;
        if plaintext.as_slice() != message.as_slice() {
            return Ok(mismatch("the decrypted message"));
        }
        module.account(Algorithm::Sm2Encrypt, Service::Encrypt)?;
        let public_key = match sm2::PublicKey::from_sec1(&public_key) {
            Ok(public_key) => public_key,
            Err(error) => return Ok(sm2_refused("public key", error)),
        };
        let ours = match sm2::encryption::encrypt_with_fixed_k_for_self_test(
            &public_key,
            &message,
            sm2::CiphertextFormat::C1C3C2,
            &k,
        ) {
            Ok(ours) => ours,
            Err(error) => return Ok(sm2_refused("encrypting with the example's k", error)),
        };
        Ok(if ours == ciphertext {
            Outcome::Accepted
        } else {
            mismatch("the ciphertext C1 || C3 || C2 made with the example's k")
        })
    }))
}

fn sm2_key_exchange(module: &Module, reader: &Reader<'_>) -> Checked {
    use sm2::exchange::{KeyExchange, KeyExchangeRole};
    let d_a = reader.scalar("PrivateKeyA")?;
    let p_a = reader.bytes("PublicKeyA")?;
    let id_a = reader.bytes("IDA")?;
    let r_a = reader.scalar("EphemeralA")?;
    let big_r_a = reader.bytes("EphemeralPublicA")?;
    let d_b = reader.scalar("PrivateKeyB")?;
    let p_b = reader.bytes("PublicKeyB")?;
    let id_b = reader.bytes("IDB")?;
    let r_b = reader.scalar("EphemeralB")?;
    let big_r_b = reader.bytes("EphemeralPublicB")?;
    let key_len = reader.number("KeyLength")?;
    let expected_key = reader.bytes("Key")?;
    let s_b = reader.bytes("SB")?;
    let s_a = reader.bytes("SA")?;
    Ok(attempt(|| {
        if derived_public_key(module, &d_a)? != p_a {
            return Ok(mismatch("user A's public key derived from its private key"));
        }
        if derived_public_key(module, &d_b)? != p_b {
            return Ok(mismatch("user B's public key derived from its private key"));
        }
        module.account(Algorithm::Sm2KeyExchange, Service::KeyAgreement)?;
        let run = || -> Result<Outcome, sm2::Error> {
            let a = sm2::PrivateKey::from_bytes(&d_a)?;
            let b = sm2::PrivateKey::from_bytes(&d_b)?;
            let initiator = KeyExchange::with_fixed_ephemeral_for_self_test(
                KeyExchangeRole::Initiator,
                &a,
                &id_a,
                b.public_key(),
                &id_b,
                &r_a,
            )?;
            let responder = KeyExchange::with_fixed_ephemeral_for_self_test(
                KeyExchangeRole::Responder,
                &b,
                &id_b,
                a.public_key(),
                &id_a,
                &r_b,
            )?;
            if initiator.ephemeral_public_key()[..] != big_r_a[..] {
                return Ok(mismatch("R_A = [r_A]G"));
            }
            if responder.ephemeral_public_key()[..] != big_r_b[..] {
                return Ok(mismatch("R_B = [r_B]G"));
            }
            let k_a = initiator.finish(&big_r_b, key_len)?;
            let k_b = responder.finish(&big_r_a, key_len)?;
            if k_a.key() != expected_key.as_slice() {
                return Ok(mismatch("user A's shared key K_A"));
            }
            if k_b.key() != expected_key.as_slice() {
                return Ok(mismatch("user B's shared key K_B"));
            }
            if k_b.confirmation()[..] != s_b[..] {
                return Ok(mismatch("S_B (user B's confirmation, = S_1)"));
            }
            if k_a.confirmation()[..] != s_a[..] {
                return Ok(mismatch("S_A (user A's confirmation, = S_2)"));
            }
            k_a.verify_peer_confirmation(&s_b)?;
            k_b.verify_peer_confirmation(&s_a)?;
            Ok(Outcome::Accepted)
        };
        Ok(run().unwrap_or_else(|error| sm2_refused("key exchange", error)))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_der_pads_high_bits_and_strips_leading_zeros() {
        let mut r = [0u8; 32];
        r[0] = 0x80;
        let mut s = [0u8; 32];
        s[1] = 0x01;
        let der = signature_der(&r, &s);
        assert_eq!(&der[..5], &[0x30, 33 + 2 + 31 + 2, 0x02, 33, 0x00]);
        assert_eq!(&der[37..40], &[0x02, 31, 0x01]);
    }

    #[test]
    fn subtraction_borrows_and_refuses_negative_results() {
        let mut a = [0u8; 32];
        a[30] = 1;
        let mut b = [0u8; 32];
        b[31] = 1;
        let mut expected = [0u8; 32];
        expected[31] = 0xff;
        assert_eq!(subtract(&a, &b), Some(expected));
        assert_eq!(subtract(&b, &a), None);
    }

    #[test]
    fn a_repeated_key_or_unknown_algorithm_is_malformed() {
        let module = Module::load(regula::Policy::builtin(regula::Profile::Default));
        let error = run(
            &module,
            "f",
            "Example = x\nAlgorithm = sm3\nAlgorithm = sm4\n",
        )
        .unwrap_err();
        assert_eq!(error.line, 3);
        let error = run(&module, "f", "Example = x\nAlgorithm = md5\n").unwrap_err();
        assert!(error.message.contains("unknown `Algorithm = md5`"));
        let error = run(
            &module,
            "f",
            "Example = x\nAlgorithm = sm3\nMessage = \"abc\"\n",
        )
        .unwrap_err();
        assert!(error.message.contains("no `Digest`"));
    }
}
