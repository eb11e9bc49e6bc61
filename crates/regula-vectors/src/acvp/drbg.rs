//! ctrDRBG (SP 800-90A CTR_DRBG) through `Module::known_answer_ctr_drbg`: AWS-LC's AES-256
//! CTR_DRBG without a derivation function, instantiated from the case's entropy input and
//! personalization string, reseeded and asked for bits with the case's additional inputs in
//! the order of `otherInput`; the answer is the last generate's `returnedBits`.
//!
//! Other framings are skipped with their reason: another block cipher, a derivation function,
//! a nonce (SP 800-90A 10.2.1.3.1: without a derivation function no nonce is used), and
//! prediction resistance.

use serde_json::Value;

use super::{Case, Verdict, hex_field, text_field, through_module, unsupported};
use crate::tally::{Expect, Outcome};

pub(super) fn ctr_drbg(case: &Case<'_>) -> Verdict {
    let mode = case.group_text("mode")?;
    if mode != "AES-256" {
        return Ok(unsupported(format!(
            "ctrDRBG {mode} (AWS-LC's CTR_DRBG is AES-256)"
        )));
    }
    if case.group.get("derFunc").and_then(Value::as_bool) != Some(false) {
        return Ok(unsupported(
            "ctrDRBG with a derivation function (AWS-LC's CTR_DRBG has none)",
        ));
    }
    if case.group.get("predResistance").and_then(Value::as_bool) != Some(false) {
        return Ok(unsupported("ctrDRBG with prediction resistance"));
    }
    let nonce = match case.test.get("nonce") {
        Some(_) => case.hex("nonce")?,
        None => Vec::new(),
    };
    if !nonce.is_empty() {
        return Ok(unsupported(
            "ctrDRBG without a derivation function given a nonce (SP 800-90A uses none)",
        ));
    }
    let bits = case.group_number("returnedBitsLen")?;
    if bits % 8 != 0 {
        return Ok(unsupported("ctrDRBG output that is not whole bytes"));
    }
    let len = usize::try_from(bits / 8).map_err(|_| "`returnedBitsLen` is too large")?;
    let entropy = case.hex("entropyInput")?;
    let personalization = match case.test.get("persoString") {
        Some(_) => case.hex("persoString")?,
        None => Vec::new(),
    };
    let steps = case
        .test
        .get("otherInput")
        .and_then(Value::as_array)
        .ok_or("no array `otherInput`")?;
    let mut plan = Vec::with_capacity(steps.len());
    for step in steps {
        let additional = hex_field(step, "additionalInput")?;
        let step_entropy = hex_field(step, "entropyInput")?;
        match text_field(step, "intendedUse")? {
            "reSeed" => plan.push((true, step_entropy, additional)),
            "generate" => plan.push((false, step_entropy, additional)),
            other => return Err(format!("`intendedUse` {other}")),
        }
    }
    if !plan.iter().any(|(reseed, _, _)| !reseed) {
        return Err("`otherInput` has no generate step".into());
    }
    let expected = case.expected_hex("returnedBits")?;
    Ok(through_module(Expect::Valid, || {
        let mut drbg = case
            .module
            .known_answer_ctr_drbg(&entropy, &personalization)?;
        let mut output = vec![0u8; len];
        for (reseed, step_entropy, additional) in &plan {
            if *reseed {
                drbg.reseed(step_entropy, additional)?;
            } else {
                drbg.generate(&mut output, additional)?;
            }
        }
        Ok(if output == expected {
            Outcome::Accepted
        } else {
            Outcome::WrongOutput("`returnedBits` differs from the expected answer".into())
        })
    }))
}
