//! Signatures: ECDSA, EdDSA, RSA and ML-DSA, through `Module::verify` (ML-DSA through
//! `Module::verify_with_context` and `Module::verify_external_mu`, and ML-DSA seeds through
//! `Module::signing_key_from_pkcs8`).
//!
//! sigVer imports the group's (or case's) public key in an encoding the module's verify takes —
//! the uncompressed point `04 ‖ x ‖ y` for ECDSA, the 32-byte key for Ed25519, a DER
//! SubjectPublicKeyInfo built from `n` and `e` for RSA, RFC 9881's for ML-DSA — and compares
//! the verdict with `testPassed`. ECDSA's `r` and `s` become the DER `SEQUENCE { r, s }` the
//! module verifies. ML-DSA keyGen from a seed is answered by importing the seed.
//!
//! No other recorded sigGen or keyGen answer can be compared: the key pair, and for ECDSA and
//! RSA-PSS the nonce or salt, are the implementation's own random choices, which the ACVP
//! server judges by verifying. Those cases are skipped with that reason rather than answered by
//! a self-consistency check that would say nothing the recorded answers do.

use regula::Algorithm;
use serde_json::Value;

use super::{Case, Verdict, through_module, unsupported, valid};
use crate::tally::{Expect, Outcome};

/// The skip reason of sigGen and keyGen cases.
pub(super) const JUDGED_BY_SERVER: &str = "sigGen and keyGen answers come from the \
implementation's own random keys (and nonces), which the ACVP server judges; no recorded \
answer can be compared";

/// Verifies through the module; a refusal of the signature (or of the key) is a rejection.
fn verify(
    case: &Case<'_>,
    expect: Expect,
    algorithm: Algorithm,
    public_key: &[u8],
    message: &[u8],
    signature: &[u8],
) -> Verdict {
    Ok(through_module(expect, || {
        case.module
            .verify(algorithm, public_key, message, signature)?;
        Ok(Outcome::Accepted)
    }))
}

/// DER: a definite length.
fn der_length(len: usize, out: &mut Vec<u8>) {
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|byte| **byte == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
}

fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    der_length(content.len(), &mut out);
    out.extend_from_slice(content);
    out
}

/// DER INTEGER of a non-negative big-endian number (leading zeros dropped, one added when the
/// top bit is set).
pub(super) fn der_unsigned(bytes: &[u8]) -> Vec<u8> {
    let first = bytes
        .iter()
        .position(|byte| *byte != 0)
        .unwrap_or(bytes.len());
    let mut content = Vec::with_capacity(bytes.len() - first + 1);
    match bytes.get(first) {
        None => content.push(0),
        Some(top) if top & 0x80 != 0 => content.push(0),
        Some(_) => {}
    }
    content.extend_from_slice(&bytes[first..]);
    der(0x02, &content)
}

/// RFC 8017 A.1.1 `RSAPublicKey` inside an RFC 5280 SubjectPublicKeyInfo (rsaEncryption, NULL
/// parameters).
pub(super) fn rsa_spki(n: &[u8], e: &[u8]) -> Vec<u8> {
    const RSA_ENCRYPTION: &[u8] = &[
        0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    ];
    let key = der(0x30, &[der_unsigned(n), der_unsigned(e)].concat());
    let mut bits = vec![0u8];
    bits.extend(key);
    der(0x30, &[RSA_ENCRYPTION, &der(0x03, &bits)].concat())
}

/// ACVP ECDSA (FIPS 186-5): sigVer and keyVer; keyGen and sigGen are skipped with the reason.
pub(super) fn ecdsa(case: &Case<'_>) -> Verdict {
    match case.mode {
        "sigVer" => {}
        "keyVer" => return ecdsa_key_ver(case),
        "keyGen" | "sigGen" => return Ok(valid(Outcome::Skip(JUDGED_BY_SERVER.into()))),
        other => return Ok(unsupported(format!("ECDSA {other}"))),
    }
    let curve = case.group_text("curve")?;
    let hash = case.group_text("hashAlg")?;
    let name = match (curve, hash) {
        ("P-256", "SHA2-256") => "ecdsa-p256",
        ("P-384", "SHA2-384") => "ecdsa-p384",
        ("P-521", "SHA2-512") => "ecdsa-p521",
        // SHA-1 signatures are verified only (the FIPS 186-4 legacy sets), on P-256.
        ("P-256", "SHA-1") => "ecdsa-p256-sha1",
        ("P-256" | "P-384" | "P-521", _) => {
            return Ok(unsupported(
                "ECDSA with another hash than the curve's own (P-256/SHA2-256, P-384/SHA2-384, \
                 P-521/SHA2-512)",
            ));
        }
        (other, _) => return Ok(unsupported(format!("ECDSA on {other}"))),
    };
    let Some(algorithm) = Algorithm::from_name(name) else {
        return Ok(unsupported(name));
    };
    let expect = case.verdict_expect()?;
    let mut point = vec![0x04];
    point.extend(case.hex_in_case_or_group("qx")?);
    point.extend(case.hex_in_case_or_group("qy")?);
    let signature = crate::ops::der_signature(&case.hex("r")?, &case.hex("s")?);
    let message = case.hex("message")?;
    verify(case, expect, algorithm, &point, &message, &signature)
}

/// ECDSA keyVer (FIPS 186-5 public-key validation): the module validates a public key when
/// `Module::verify` imports it, before it looks at the signature, so a refused key is an
/// invalid key and a refused placeholder signature a valid one (as the CAVP PKV runner reads
/// it).
fn ecdsa_key_ver(case: &Case<'_>) -> Verdict {
    let curve = case.group_text("curve")?;
    let name = match curve {
        "P-256" => "ecdsa-p256",
        "P-384" => "ecdsa-p384",
        "P-521" => "ecdsa-p521",
        other => return Ok(unsupported(format!("ECDSA on {other}"))),
    };
    let expect = case.verdict_expect()?;
    let mut point = vec![0x04];
    point.extend(case.hex("qx")?);
    point.extend(case.hex("qy")?);
    Ok((
        expect,
        crate::ops::public_key_check(case.module, name, &point),
    ))
}

/// ACVP EDDSA: sigVer of pure Ed25519; HashEdDSA, Ed448 and keyVer are skipped with reasons.
pub(super) fn eddsa(case: &Case<'_>) -> Verdict {
    match case.mode {
        "sigVer" => {}
        "keyVer" => {
            return Ok(unsupported(
                "EdDSA keyVer (no public-key validation service)",
            ));
        }
        "keyGen" | "sigGen" => return Ok(valid(Outcome::Skip(JUDGED_BY_SERVER.into()))),
        other => return Ok(unsupported(format!("EdDSA {other}"))),
    }
    let curve = case.group_text("curve")?;
    if curve != "ED-25519" {
        return Ok(unsupported(format!("EdDSA on {curve}")));
    }
    if case.group.get("preHash").and_then(Value::as_bool) == Some(true) {
        return Ok(unsupported("HashEdDSA (Ed25519ph)"));
    }
    let expect = case.verdict_expect()?;
    let public_key = case.hex_in_case_or_group("q")?;
    let message = case.hex("message")?;
    let signature = case.hex("signature")?;
    verify(
        case,
        expect,
        Algorithm::Ed25519,
        &public_key,
        &message,
        &signature,
    )
}

/// ACVP RSA (FIPS 186-5): sigVer with PKCS#1 v1.5 and PSS (MGF1 with the message's hash, salt
/// as long as the hash, which is what the module verifies).
pub(super) fn rsa(case: &Case<'_>) -> Verdict {
    match case.mode {
        "sigVer" => {}
        "keyGen" | "sigGen" => return Ok(valid(Outcome::Skip(JUDGED_BY_SERVER.into()))),
        other => return Ok(unsupported(format!("RSA {other}"))),
    }
    let sig_type = case.group_text("sigType")?;
    let hash = case.group_text("hashAlg")?;
    let (bits, hash_len) = match hash {
        "SHA-1" if sig_type == "pkcs1v1.5" => ("1", 20),
        "SHA2-256" => ("256", 32),
        "SHA2-384" => ("384", 48),
        "SHA2-512" => ("512", 64),
        other => return Ok(unsupported(format!("RSA signatures with {other}"))),
    };
    let name = match sig_type {
        "pkcs1v1.5" => format!("rsa-pkcs1-sha{bits}"),
        "pss" => {
            let mask = case
                .group
                .get("maskFunction")
                .and_then(Value::as_str)
                .unwrap_or("mgf1");
            if mask != "mgf1" {
                return Ok(unsupported(format!("RSA-PSS with {mask}")));
            }
            let salt = case.group_number("saltLen")?;
            if salt != hash_len {
                return Ok(unsupported(
                    "RSA-PSS with a salt length other than the hash's",
                ));
            }
            format!("rsa-pss-sha{bits}")
        }
        other => return Ok(unsupported(format!("RSA {other} signatures"))),
    };
    let Some(algorithm) = Algorithm::from_name(&name) else {
        return Ok(unsupported(name));
    };
    let expect = case.verdict_expect()?;
    let public_key = rsa_spki(
        &case.hex_in_case_or_group("n")?,
        &case.hex_in_case_or_group("e")?,
    );
    let message = case.hex("message")?;
    let signature = case.hex("signature")?;
    verify(case, expect, algorithm, &public_key, &message, &signature)
}

/// What deterministic or given-`rnd` ML-DSA signing would need: AWS-LC signs hedged, with its
/// own randomness, in every public function; the functions that take `rnd` are internal.
const ML_DSA_SIGN_INTERNAL: &str = "AWS-LC's public API signs hedged with its own \
randomness; this needs ml_dsa_{44,65,87}_sign_internal or ml_dsa_extmu_*_sign_internal \
(crypto/fipsmodule/ml_dsa/ml_dsa.h), bound by neither aws-lc-sys nor aws-lc-fips-sys";

/// ACVP ML-DSA (FIPS 204): keyGen from a seed; sigVer of pure ML-DSA with its context string
/// (`Module::verify_with_context`) and of the internal interface over an external mu
/// (`Module::verify_external_mu`), the public key as an RFC 9881 SubjectPublicKeyInfo. sigGen
/// cases fix the signing randomness (`deterministic`, or a given `rnd`), which AWS-LC's public
/// API does not take: they are skipped with that reason, as are HashML-DSA and the internal
/// interface over a message.
pub(super) fn ml_dsa(case: &Case<'_>) -> Verdict {
    let set = case.group_text("parameterSet")?;
    let name = match set {
        "ML-DSA-44" => "ml-dsa-44",
        "ML-DSA-65" => "ml-dsa-65",
        "ML-DSA-87" => "ml-dsa-87",
        other => return Ok(unsupported(other)),
    };
    let Some(algorithm) = Algorithm::from_name(name) else {
        return Ok(unsupported(name));
    };
    let mode = case.mode;
    if mode == "keyGen" {
        return ml_dsa_key_gen(case, algorithm);
    }
    match mode {
        "sigVer" => {}
        "sigGen" => {
            let deterministic = case.group.get("deterministic").and_then(Value::as_bool);
            return Ok(unsupported(if deterministic == Some(true) {
                format!("deterministic ML-DSA signing ({ML_DSA_SIGN_INTERNAL})")
            } else {
                format!("ML-DSA signing with a given rnd ({ML_DSA_SIGN_INTERNAL})")
            }));
        }
        other => return Ok(unsupported(format!("ML-DSA {other}"))),
    }
    let interface = case
        .group
        .get("signatureInterface")
        .and_then(Value::as_str)
        .unwrap_or("external");
    if interface == "internal" {
        return ml_dsa_internal_sig_ver(case, algorithm, name);
    }
    let pre_hash = case
        .group
        .get("preHash")
        .and_then(Value::as_str)
        .unwrap_or("pure");
    if pre_hash != "pure" {
        return Ok(unsupported("HashML-DSA"));
    }
    let context = match case.test.get("context") {
        Some(_) => case.hex("context")?,
        None => Vec::new(),
    };
    if !context.is_empty() && !regula::service::signature::ML_DSA_CONTEXT_STRINGS {
        return Ok(unsupported(
            "ML-DSA with a context string (this build's AWS-LC, the FIPS module, takes none)",
        ));
    }
    let expect = case.verdict_expect()?;
    let public_key = crate::ops::mldsa_spki(name, &case.hex_in_case_or_group("pk")?);
    let message = case.hex("message")?;
    let signature = case.hex("signature")?;
    Ok(through_module(expect, || {
        case.module
            .verify_with_context(algorithm, &public_key, &message, &context, &signature)?;
        Ok(Outcome::Accepted)
    }))
}

/// ML-DSA sigVer through the internal interface: over an external mu (FIPS 204 Algorithm 8
/// from its line 7, mu given) when `externalMu` is set; over a message without the domain
/// separation of section 5.4 otherwise, which AWS-LC's public API does not offer.
fn ml_dsa_internal_sig_ver(case: &Case<'_>, algorithm: Algorithm, name: &str) -> Verdict {
    if case.group.get("externalMu").and_then(Value::as_bool) != Some(true) {
        return Ok(unsupported(
            "ML-DSA's internal interface over a message (ML-DSA.Verify_internal without domain \
             separation: ml_dsa_{44,65,87}_verify_internal is not in AWS-LC's public API)",
        ));
    }
    let expect = case.verdict_expect()?;
    let public_key = crate::ops::mldsa_spki(name, &case.hex_in_case_or_group("pk")?);
    let mu = case.hex("mu")?;
    let signature = case.hex("signature")?;
    Ok(through_module(expect, || {
        case.module
            .verify_external_mu(algorithm, &public_key, &mu, &signature)?;
        Ok(Outcome::Accepted)
    }))
}

/// ML-DSA keyGen from the 32-byte seed ξ: the module imports the seed (RFC 9881's seed-only
/// PKCS#8) and expands it (FIPS 204 ML-DSA.KeyGen_internal); its public key must be the
/// expected `pk`. The expected expanded `sk` is not compared: the module does not export a
/// private key in that form.
fn ml_dsa_key_gen(case: &Case<'_>, algorithm: Algorithm) -> Verdict {
    let name = algorithm.name();
    let pkcs8 = crate::ops::mldsa_seed_pkcs8(name, &case.hex("seed")?);
    let expected = crate::ops::mldsa_spki(name, &case.expected_hex("pk")?);
    Ok(through_module(Expect::Valid, || {
        let key = case
            .module
            .signing_key_from_pkcs8(algorithm, &pkcs8)?
            .into_value();
        Ok(if key.public_key_der()? == expected {
            Outcome::Accepted
        } else {
            Outcome::WrongOutput("`pk` differs from the expected answer".into())
        })
    }))
}
