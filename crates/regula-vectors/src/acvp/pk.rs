//! Key agreement and key encapsulation: KAS-ECC-SSC (SP 800-56A Rev. 3 shared secret Z)
//! through `Module::agreement_key_from_private_bytes` and `AgreementKey::agree`; ML-KEM
//! decapsulation through `Module::kem_key_from_bytes` and `KemPrivateKey::decapsulate`, keyGen
//! from the seeds `d` and `z` through `Module::known_answer_kem_keygen` and encapsulation with
//! a given `m` through `Module::known_answer_encapsulate` (FIPS 203's internal functions).
//!
//! KAS-ECC-SSC's VAL cases give the implementation's private key, the server's public key and
//! a Z to judge (`testPassed`); its AFT cases ask the implementation for its own random key
//! pair, which only the ACVP server can judge.

use regula::Algorithm;

use super::{Case, Verdict, through_module, unsupported, valid};
use crate::tally::{Expect, Outcome};

/// ACVP's `domainParameterGenerationMode` → Regula's ECDH row.
fn ecdh_name(curve: &str) -> Option<&'static str> {
    Some(match curve {
        "P-256" => "ecdh-p256",
        "P-384" => "ecdh-p384",
        "P-521" => "ecdh-p521",
        _ => return None,
    })
}

pub(super) fn kas_ecc_ssc(case: &Case<'_>) -> Verdict {
    let curve = case.group_text("domainParameterGenerationMode")?;
    let Some(algorithm) = ecdh_name(curve).and_then(Algorithm::from_name) else {
        return Ok(unsupported(format!("ECC CDH on {curve}")));
    };
    match case.group_text("testType")? {
        "VAL" => {}
        "AFT" => {
            return Ok(valid(Outcome::Skip(
                "KAS AFT answers come from the implementation's own random key pair, which the \
                 ACVP server judges; no recorded answer can be compared"
                    .into(),
            )));
        }
        other => return Ok(unsupported(format!("KAS-ECC-SSC {other} tests"))),
    }
    // One key pair per party: ephemeral or static, as the scheme has it.
    let role = if case.test.get("ephemeralPrivateIut").is_some() {
        "ephemeral"
    } else {
        "static"
    };
    if case.test.get("z").is_none() {
        return Ok(unsupported("KAS-ECC-SSC VAL with a hashed Z"));
    }
    let expect = case.verdict_expect()?;
    let private_key = case.hex(&format!("{role}PrivateIut"))?;
    let mut own_public = vec![0x04];
    own_public.extend(case.hex(&format!("{role}PublicIutX"))?);
    own_public.extend(case.hex(&format!("{role}PublicIutY"))?);
    let mut peer = vec![0x04];
    peer.extend(case.hex(&format!("{role}PublicServerX"))?);
    peer.extend(case.hex(&format!("{role}PublicServerY"))?);
    let z = case.hex("z")?;
    Ok(through_module(expect, || {
        let key = case
            .module
            .agreement_key_from_private_bytes(algorithm, &private_key)?
            .into_value();
        if key.public_key()? != own_public {
            return Ok(Outcome::Rejected(
                "the implementation's public key is not its private key's".into(),
            ));
        }
        let shared = key.agree(&peer)?.into_value();
        Ok(Outcome::compare(*shared == z, "`z`"))
    }))
}

pub(super) fn ml_kem(case: &Case<'_>) -> Verdict {
    let set = case.group_text("parameterSet")?;
    let name = match set {
        "ML-KEM-768" => "ml-kem-768",
        "ML-KEM-1024" => "ml-kem-1024",
        other => return Ok(unsupported(other)),
    };
    let Some(algorithm) = Algorithm::from_name(name) else {
        return Ok(unsupported(name));
    };
    if case.mode == "keyGen" {
        return ml_kem_key_gen(case, algorithm);
    }
    match case.group_text("function")? {
        "decapsulation" => {}
        "encapsulation" => return ml_kem_encapsulation(case, algorithm),
        other => return Ok(unsupported(format!("ML-KEM {other}"))),
    }
    let decapsulation_key = case.hex_in_case_or_group("dk")?;
    let ciphertext = case.hex("c")?;
    let expected = case.expected_hex("k")?;
    Ok(through_module(Expect::Valid, || {
        let key = case
            .module
            .kem_key_from_bytes(algorithm, &decapsulation_key)?
            .into_value();
        let shared = key.decapsulate(&ciphertext)?.into_value();
        Ok(if *shared == expected {
            Outcome::Accepted
        } else {
            Outcome::WrongOutput("`k` differs from the expected answer".into())
        })
    }))
}

/// ML-KEM keyGen: FIPS 203 ML-KEM.KeyGen_internal(d, z); both keys must be the expected `ek`
/// and `dk`.
fn ml_kem_key_gen(case: &Case<'_>, algorithm: Algorithm) -> Verdict {
    let mut seed = case.hex("d")?;
    seed.extend(case.hex("z")?);
    let expected_ek = case.expected_hex("ek")?;
    let expected_dk = case.expected_hex("dk")?;
    Ok(through_module(Expect::Valid, || {
        let key = case
            .module
            .known_answer_kem_keygen(algorithm, &seed)?
            .into_value();
        Ok(if key.encapsulation_key()? != expected_ek {
            Outcome::WrongOutput("`ek` differs from the expected answer".into())
        } else if *key.to_bytes()? != expected_dk {
            Outcome::WrongOutput("`dk` differs from the expected answer".into())
        } else {
            Outcome::Accepted
        })
    }))
}

/// ML-KEM encapsulation: FIPS 203 ML-KEM.Encaps_internal(ek, m); the ciphertext and shared
/// secret must be the expected `c` and `k`.
fn ml_kem_encapsulation(case: &Case<'_>, algorithm: Algorithm) -> Verdict {
    let encapsulation_key = case.hex_in_case_or_group("ek")?;
    let m = case.hex("m")?;
    let expected_c = case.expected_hex("c")?;
    let expected_k = case.expected_hex("k")?;
    Ok(through_module(Expect::Valid, || {
        let encapsulated = case
            .module
            .known_answer_encapsulate(algorithm, &encapsulation_key, &m)?
            .into_value();
        Ok(if encapsulated.ciphertext != expected_c {
            Outcome::WrongOutput("`c` differs from the expected answer".into())
        } else if *encapsulated.shared_secret != expected_k {
            Outcome::WrongOutput("`k` differs from the expected answer".into())
        } else {
            Outcome::Accepted
        })
    }))
}
