//! The services that known-answer tests of approved algorithms need (ACVP's framing): ML-KEM
//! key generation from `d ‖ z` and encapsulation from a given `m` (FIPS 203's internal
//! functions), ML-DSA verification with a context string and over an external μ (FIPS 204),
//! ML-DSA signing with a context string, and a CTR_DRBG instantiated from given entropy
//! (SP 800-90A, AES-256 without a derivation function).
//!
//! Every expected value is in `tests/data/known-answer-api.json`, copied from NIST's recorded
//! ACVP sets and from Wycheproof (the file names its sources and each case's ids); none was
//! produced by Regula.

mod common;

use common::unhex;
use regula::{Algorithm, Error, ErrorKind, Module, Policy, Profile};
use serde_json::Value;

fn data() -> Value {
    let text = include_str!("data/known-answer-api.json");
    serde_json::from_str(text).expect("known-answer-api.json is JSON")
}

fn hex_of(value: &Value, key: &str) -> Vec<u8> {
    unhex(value[key].as_str().expect("a hex field of the test data"))
}

fn fips() -> Module {
    Module::load(Policy::builtin(Profile::Fips1403))
}

fn ml_kem(set: &str) -> Algorithm {
    match set {
        "ML-KEM-768" => Algorithm::MlKem768,
        "ML-KEM-1024" => Algorithm::MlKem1024,
        other => panic!("test data names {other}"),
    }
}

fn ml_dsa(set: &str) -> Algorithm {
    match set {
        "ML-DSA-44" => Algorithm::MlDsa44,
        "ML-DSA-65" => Algorithm::MlDsa65,
        "ML-DSA-87" => Algorithm::MlDsa87,
        other => panic!("test data names {other}"),
    }
}

/// RFC 9881's SubjectPublicKeyInfo for an ML-DSA public key: the AlgorithmIdentifier of
/// id-ml-dsa-{44,65,87} (2.16.840.1.101.3.4.3.{17,18,19}, no parameters) and the key.
fn ml_dsa_spki(algorithm: Algorithm, public_key: &[u8]) -> Vec<u8> {
    let last = match algorithm {
        Algorithm::MlDsa44 => 0x11,
        Algorithm::MlDsa65 => 0x12,
        _ => 0x13,
    };
    let oid = [
        0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, last,
    ];
    let mut bits = vec![0x03];
    der_len(public_key.len() + 1, &mut bits);
    bits.push(0);
    bits.extend_from_slice(public_key);
    let mut spki = vec![0x30];
    der_len(oid.len() + bits.len(), &mut spki);
    spki.extend_from_slice(&oid);
    spki.extend(bits);
    spki
}

fn der_len(len: usize, out: &mut Vec<u8>) {
    assert!(len < 0x1_0000, "test keys are shorter than 64 KiB");
    out.extend_from_slice(&[0x82, (len >> 8) as u8, len as u8]);
}

#[test]
fn ml_kem_keygen_from_d_and_z_gives_acvps_keys() {
    let case = &data()["ml_kem_keygen"];
    let algorithm = ml_kem(case["parameterSet"].as_str().unwrap());
    let mut seed = hex_of(case, "d");
    seed.extend(hex_of(case, "z"));
    let module = fips();
    let key = module.known_answer_kem_keygen(algorithm, &seed).unwrap();
    assert!(key.is_approved());
    let key = key.into_value();
    assert_eq!(key.encapsulation_key().unwrap(), hex_of(case, "ek"));
    assert_eq!(*key.to_bytes().unwrap(), hex_of(case, "dk"));
    // z ‖ d is another key: the layout is d first.
    let mut swapped = hex_of(case, "z");
    swapped.extend(hex_of(case, "d"));
    let other = module.known_answer_kem_keygen(algorithm, &swapped).unwrap();
    assert_ne!(
        other.into_value().encapsulation_key().unwrap(),
        hex_of(case, "ek")
    );
    // A seed that is not 64 bytes is an input error, never a panic.
    let error = module
        .known_answer_kem_keygen(algorithm, &seed[..63])
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input, "{error}");
}

#[test]
fn ml_kem_encapsulation_with_m_gives_acvps_ciphertext_and_secret() {
    let case = &data()["ml_kem_encapsulation"];
    let algorithm = ml_kem(case["parameterSet"].as_str().unwrap());
    let module = fips();
    let (ek, m) = (hex_of(case, "ek"), hex_of(case, "m"));
    let encapsulated = module.known_answer_encapsulate(algorithm, &ek, &m).unwrap();
    assert!(encapsulated.is_approved());
    let encapsulated = encapsulated.into_value();
    assert_eq!(encapsulated.ciphertext, hex_of(case, "c"));
    assert_eq!(*encapsulated.shared_secret, hex_of(case, "k"));
    // A wrong m, a truncated key, a key of the other parameter set: no such answer.
    let mut other_m = m.clone();
    other_m[0] ^= 1;
    let other = module
        .known_answer_encapsulate(algorithm, &ek, &other_m)
        .unwrap()
        .into_value();
    assert_ne!(other.ciphertext, hex_of(case, "c"));
    for (ek, m) in [(&ek[..ek.len() - 1], &m[..]), (&ek[..], &m[..31])] {
        let error = module
            .known_answer_encapsulate(algorithm, ek, m)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Input, "{error}");
    }
    let other_set = if algorithm == Algorithm::MlKem768 {
        Algorithm::MlKem1024
    } else {
        Algorithm::MlKem768
    };
    let error = module
        .known_answer_encapsulate(other_set, &ek, &m)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input, "{error}");
}

#[test]
fn ml_kem_known_answer_services_follow_the_policy() {
    // CNSA 2.0 approves ML-KEM-1024 only.
    let cnsa = Module::load(Policy::builtin(Profile::Cnsa20));
    let seed = [7u8; 64];
    let error = cnsa
        .known_answer_kem_keygen(Algorithm::MlKem768, &seed)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotApproved, "{error}");
    let key = cnsa
        .known_answer_kem_keygen(Algorithm::MlKem1024, &seed)
        .unwrap()
        .into_value();
    let ek = key.encapsulation_key().unwrap();
    // The generated key is the module's ordinary key: a secret encapsulated to it with a
    // given m decapsulates to the same secret.
    let encapsulated = cnsa
        .known_answer_encapsulate(Algorithm::MlKem1024, &ek, &[9u8; 32])
        .unwrap()
        .into_value();
    let shared = key.decapsulate(&encapsulated.ciphertext).unwrap();
    assert_eq!(*shared.into_value(), *encapsulated.shared_secret);
    // Not the KEM family: refused by name.
    let error = cnsa
        .known_answer_kem_keygen(Algorithm::Sha384, &seed)
        .unwrap_err();
    assert!(matches!(error, Error::WrongFamily { .. }), "{error}");
}

/// The FIPS build's AWS-LC (aws-lc-fips-sys) signs and verifies ML-DSA with the empty context
/// only: there a non-empty context is an input error that says so, never a silent fallback.
fn context_strings_refused_by_this_build(module: &Module) -> bool {
    if !regula::info::build_info().fips_module_linked {
        return false;
    }
    let key = module
        .generate_signing_key(Algorithm::MlDsa44, None)
        .unwrap()
        .into_value();
    let error = key.sign_with_context(b"message", b"ctx").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input, "{error}");
    assert!(error.to_string().contains("no context string"), "{error}");
    true
}

#[test]
fn ml_dsa_verifies_wycheproofs_signatures_with_a_context() {
    let module = fips();
    if context_strings_refused_by_this_build(&module) {
        return;
    }
    let cases = data()["ml_dsa_44_context"].as_array().unwrap().clone();
    let mut checked = 0;
    for case in &cases {
        let id = case["wycheproof"].as_str().unwrap();
        let (spki, msg, ctx, sig) = (
            hex_of(case, "publicKeyDer"),
            hex_of(case, "msg"),
            hex_of(case, "ctx"),
            hex_of(case, "sig"),
        );
        let verdict = module.verify_with_context(Algorithm::MlDsa44, &spki, &msg, &ctx, &sig);
        match case["result"].as_str().unwrap() {
            "valid" => {
                assert!(verdict.unwrap().is_approved(), "{id}");
                // The same signature under the empty context or a changed one does not verify.
                let error = module
                    .verify(Algorithm::MlDsa44, &spki, &msg, &sig)
                    .unwrap_err();
                assert_eq!(error, Error::BadSignature, "{id}");
                let mut other = ctx.clone();
                other[0] ^= 1;
                let error = module
                    .verify_with_context(Algorithm::MlDsa44, &spki, &msg, &other, &sig)
                    .unwrap_err();
                assert_eq!(error, Error::BadSignature, "{id}");
            }
            _ => {
                // The only invalid case kept is the 256-byte context: refused before AWS-LC.
                let error = verdict.unwrap_err();
                assert_eq!(error.kind(), ErrorKind::Input, "{id}: {error}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 3);
}

#[test]
fn ml_dsa_signs_with_a_context_that_binds_the_signature() {
    let module = fips();
    if context_strings_refused_by_this_build(&module) {
        return;
    }
    let key = module
        .generate_signing_key(Algorithm::MlDsa65, None)
        .unwrap()
        .into_value();
    let spki = key.public_key_der().unwrap();
    let context = b"Regula context";
    let signature = key.sign_with_context(b"message", context).unwrap();
    assert!(signature.is_approved());
    let signature = signature.into_value();
    module
        .verify_with_context(Algorithm::MlDsa65, &spki, b"message", context, &signature)
        .unwrap();
    let error = module
        .verify(Algorithm::MlDsa65, &spki, b"message", &signature)
        .unwrap_err();
    assert_eq!(error, Error::BadSignature);
    // The empty context is what `sign` uses.
    let plain = key.sign_with_context(b"message", b"").unwrap().into_value();
    module
        .verify(Algorithm::MlDsa65, &spki, b"message", &plain)
        .unwrap();
    // A 256-byte context, or a context on a scheme without one, is an input error.
    let error = key.sign_with_context(b"message", &[0u8; 256]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input, "{error}");
    let ecdsa = module
        .generate_signing_key(Algorithm::EcdsaP256, None)
        .unwrap()
        .into_value();
    let error = ecdsa.sign_with_context(b"message", b"").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input, "{error}");
}

#[test]
fn ml_dsa_verifies_acvps_external_mu_cases() {
    let module = fips();
    let cases = data()["ml_dsa_external_mu"].as_array().unwrap().clone();
    let mut seen = [false; 2];
    for case in &cases {
        let id = case["acvp"].as_str().unwrap();
        let algorithm = ml_dsa(case["parameterSet"].as_str().unwrap());
        let spki = ml_dsa_spki(algorithm, &hex_of(case, "pk"));
        let (mu, sig) = (hex_of(case, "mu"), hex_of(case, "signature"));
        let verdict = module.verify_external_mu(algorithm, &spki, &mu, &sig);
        if case["testPassed"].as_bool().unwrap() {
            assert!(verdict.unwrap().is_approved(), "{id}");
            let mut other = mu.clone();
            other[63] ^= 1;
            let error = module
                .verify_external_mu(algorithm, &spki, &other, &sig)
                .unwrap_err();
            assert_eq!(error, Error::BadSignature, "{id}");
            seen[0] = true;
        } else {
            assert_eq!(verdict.unwrap_err(), Error::BadSignature, "{id}");
            seen[1] = true;
        }
        let error = module
            .verify_external_mu(algorithm, &spki, &mu[..32], &sig)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Input, "{id}: {error}");
    }
    assert_eq!(seen, [true, true]);
}

#[test]
fn ctr_drbg_with_given_entropy_gives_acvps_returned_bits() {
    let case = &data()["ctr_drbg"];
    let module = fips();
    let mut drbg = module
        .known_answer_ctr_drbg(&hex_of(case, "entropyInput"), &hex_of(case, "persoString"))
        .unwrap();
    let len = case["returnedBitsLen"].as_u64().unwrap() as usize / 8;
    let mut output = vec![0u8; len];
    let mut generated = 0;
    for step in case["otherInput"].as_array().unwrap() {
        let additional = hex_of(step, "additionalInput");
        match step["intendedUse"].as_str().unwrap() {
            "reSeed" => drbg
                .reseed(&hex_of(step, "entropyInput"), &additional)
                .unwrap(),
            "generate" => {
                assert!(
                    drbg.generate(&mut output, &additional)
                        .unwrap()
                        .is_approved()
                );
                generated += 1;
            }
            other => panic!("test data names {other}"),
        }
    }
    assert_eq!(generated, 2);
    // ACVP answers with the second generate's bits.
    assert_eq!(output, hex_of(case, "returnedBits"));
}

#[test]
fn ctr_drbg_known_answer_instance_checks_its_inputs_and_the_policy() {
    let module = fips();
    for (entropy, personalization) in [(&[1u8; 47][..], &[][..]), (&[1u8; 48], &[2u8; 49])] {
        let error = module
            .known_answer_ctr_drbg(entropy, personalization)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Input, "{error}");
    }
    let mut drbg = module.known_answer_ctr_drbg(&[1u8; 48], &[]).unwrap();
    let error = drbg.reseed(&[1u8; 48], &[0u8; 49]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input, "{error}");
    let mut big = vec![0u8; 65537];
    let error = drbg.generate(&mut big, &[]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input, "{error}");
    // Same entropy, same output; the instance says nothing of its state.
    let mut again = module.known_answer_ctr_drbg(&[1u8; 48], &[]).unwrap();
    let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
    drbg.generate(&mut a, &[]).unwrap();
    again.generate(&mut b, &[]).unwrap();
    assert_eq!(a, b);
    assert_eq!(format!("{drbg:?}"), "KnownAnswerCtrDrbg { .. }");
    // The GM/T profile serves its own generators, not AWS-LC's CTR_DRBG.
    let gm = Module::load(Policy::builtin(Profile::Gm));
    let error = gm.known_answer_ctr_drbg(&[1u8; 48], &[]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotApproved, "{error}");
}
