//! SHA-1, SHA-2 and SHA-3: AFT, MCT and LDT, through `Module::digester` and
//! `Module::digest_context`; SHAKE-128 and SHAKE-256: AFT and VOT through `Module::xof` (their
//! MCT, whose output length varies along the chain, is not answered yet).
//!
//! The Monte Carlo loops are those of the ACVP specifications (draft-celi-acvp-sha's
//! "standard" MCT, draft-celi-acvp-sha3's MCT): 100 checkpoints of 1000 chained digests.

use regula::{Algorithm, Module};
use serde_json::Value;

use super::{Case, Verdict, hex_field, number_field, through_module, unsupported, valid};
use crate::tally::{Expect, Outcome};

/// ACVP's digest names → Regula's; `None` for a digest the module does not offer.
pub(crate) fn regula_name(acvp: &str) -> Option<&'static str> {
    Some(match acvp {
        "SHA-1" => "sha1",
        "SHA2-224" => "sha224",
        "SHA2-256" => "sha256",
        "SHA2-384" => "sha384",
        "SHA2-512" => "sha512",
        "SHA2-512/256" => "sha512-256",
        "SHA3-256" => "sha3-256",
        "SHA3-384" => "sha3-384",
        "SHA3-512" => "sha3-512",
        "SHAKE-128" => "shake128",
        "SHAKE-256" => "shake256",
        _ => return None,
    })
}

pub(super) fn answer(case: &Case<'_>) -> Verdict {
    let Some(algorithm) = regula_name(case.algorithm).and_then(Algorithm::from_name) else {
        return Ok(unsupported(case.algorithm));
    };
    let test_type = case.group_text("testType")?;
    if algorithm.is_xof() {
        return xof(case, algorithm, test_type);
    }
    match test_type {
        "AFT" => {
            let len = number_field(case.test, "len")?;
            if !len.is_multiple_of(8) {
                return Ok(unsupported("bit-oriented messages"));
            }
            let msg = case.hex("msg")?;
            let message = msg
                .get(..usize::try_from(len / 8).unwrap_or(usize::MAX))
                .ok_or("`len` is longer than `msg`")?;
            let expected = case.expected_hex("md")?;
            Ok(through_module(Expect::Valid, || {
                let md = case.module.digest(algorithm, message)?.into_value();
                case.respond_hex("md", &md);
                Ok(compare(&md, &expected, "md"))
            }))
        }
        "LDT" => large_data(case, algorithm),
        "MCT" => monte_carlo(case, algorithm),
        other => Ok(unsupported(format!("{other} tests for {}", case.algorithm))),
    }
}

/// SHAKE AFT and VOT: `msg` of `len` bits, `outLen` bits of output, both whole bytes.
fn xof(case: &Case<'_>, algorithm: Algorithm, test_type: &str) -> Verdict {
    if !matches!(test_type, "AFT" | "VOT") {
        return Ok(unsupported(format!(
            "{test_type} tests for {}",
            case.algorithm
        )));
    }
    let len = number_field(case.test, "len")?;
    let out_len = number_field(case.test, "outLen")?;
    if !len.is_multiple_of(8) || !out_len.is_multiple_of(8) {
        return Ok(unsupported("bit-oriented messages or output"));
    }
    let msg = case.hex("msg")?;
    let message = msg
        .get(..usize::try_from(len / 8).unwrap_or(usize::MAX))
        .ok_or("`len` is longer than `msg`")?;
    let out_bytes = usize::try_from(out_len / 8).map_err(|_| "`outLen` is too large")?;
    let expected = case.expected_hex("md")?;
    Ok(through_module(Expect::Valid, || {
        let md = case.module.xof(algorithm, message, out_bytes)?.into_value();
        case.respond_hex("md", &md);
        Ok(compare(&md, &expected, "md"))
    }))
}

fn compare(ours: &[u8], expected: &[u8], what: &str) -> Outcome {
    if ours == expected {
        Outcome::Accepted
    } else {
        Outcome::WrongOutput(format!("`{what}` differs from the expected answer"))
    }
}

/// LDT: `largeMsg.content` repeated up to `fullLength` bits, streamed through one digest
/// context (the message can be several GiB; it is never held in memory).
fn large_data(case: &Case<'_>, algorithm: Algorithm) -> Verdict {
    let large = case
        .test
        .get("largeMsg")
        .ok_or("no object field `largeMsg`")?;
    let technique = large
        .get("expansionTechnique")
        .and_then(Value::as_str)
        .unwrap_or("repeating");
    if technique != "repeating" {
        return Ok(unsupported(format!(
            "LDT expansion technique `{technique}`"
        )));
    }
    let content = hex_field(large, "content")?;
    let content_bits = number_field(large, "contentLength")?;
    let full_bits = number_field(large, "fullLength")?;
    if content_bits == 0
        || !content_bits.is_multiple_of(8)
        || !full_bits.is_multiple_of(content_bits)
        || content_bits / 8 != content.len() as u64
    {
        return Ok(unsupported(
            "LDT whose length is not whole repetitions of whole bytes",
        ));
    }
    let repetitions = full_bits / content_bits;
    let expected = case.expected_hex("md")?;
    // Fewer calls: the content repeated into a buffer of about 1 MiB.
    let per_chunk = ((1 << 20) / content.len()).max(1).min(repetitions as usize);
    let chunk = content.repeat(per_chunk);
    Ok(through_module(Expect::Valid, || {
        let mut context = case.module.digest_context(algorithm)?;
        let mut left = repetitions;
        while left > 0 {
            let now = left.min(per_chunk as u64);
            context.update(&chunk[..now as usize * content.len()]);
            left -= now;
        }
        let md = context.finish()?.into_value();
        Ok(compare(&md, &expected, "md"))
    }))
}

/// MCT: the expected answer is 100 checkpoints (`resultsArray[j].md`); the case passes only if
/// every checkpoint matches.
fn monte_carlo(case: &Case<'_>, algorithm: Algorithm) -> Verdict {
    let version = case
        .group
        .get("mctVersion")
        .and_then(Value::as_str)
        .unwrap_or("standard");
    if version != "standard" {
        return Ok(unsupported(format!("`{version}` Monte Carlo tests")));
    }
    let seed = case.hex("msg")?;
    let checkpoints = case
        .expected
        .get("resultsArray")
        .and_then(Value::as_array)
        .ok_or("expected answer: no array field `resultsArray`")?
        .iter()
        .map(|result| hex_field(result, "md"))
        .collect::<Result<Vec<_>, _>>()?;
    let sha3 = case.algorithm.starts_with("SHA3-");
    Ok(valid(crate::tally::attempt(|| {
        let ours = if sha3 {
            sha3_monte(case.module, algorithm, &seed, checkpoints.len())?
        } else {
            sha2_monte(case.module, algorithm, &seed, checkpoints.len())?
        };
        Ok(
            match ours.iter().zip(&checkpoints).position(|(a, b)| a != b) {
                None => Outcome::Accepted,
                Some(j) => Outcome::WrongOutput(format!(
                    "Monte Carlo checkpoint {j} differs from the expected answer"
                )),
            },
        )
    })))
}

/// SHA-1/SHA-2 standard MCT: `A = B = C = seed`; 1000 times `MD = H(A || B || C)`, shift;
/// checkpoint `MD`, which seeds the next round.
pub(crate) fn sha2_monte(
    module: &Module,
    algorithm: Algorithm,
    seed: &[u8],
    rounds: usize,
) -> Result<Vec<Vec<u8>>, regula::Error> {
    let digester = module.digester(algorithm)?;
    let len = digester.output_len();
    if seed.len() != len {
        return Err(regula::Error::InvalidInput {
            reason: format!("an MCT seed must be {len} bytes, got {}", seed.len()),
        });
    }
    let mut checkpoints = Vec::with_capacity(rounds);
    let mut seed = seed.to_vec();
    // window = A || B || C
    let mut window = vec![0u8; 3 * len];
    let mut md = vec![0u8; len];
    for _ in 0..rounds {
        for part in window.chunks_mut(len) {
            part.copy_from_slice(&seed);
        }
        for _ in 0..1000 {
            digester.digest_into(&window, &mut md)?;
            window.copy_within(len.., 0);
            window[2 * len..].copy_from_slice(&md);
        }
        checkpoints.push(md.clone());
        seed.copy_from_slice(&md);
    }
    Ok(checkpoints)
}

/// SHA-3 standard MCT: 1000 times `MD = H(MD)` from the seed; checkpoint, continue.
pub(crate) fn sha3_monte(
    module: &Module,
    algorithm: Algorithm,
    seed: &[u8],
    rounds: usize,
) -> Result<Vec<Vec<u8>>, regula::Error> {
    let digester = module.digester(algorithm)?;
    let len = digester.output_len();
    let mut checkpoints = Vec::with_capacity(rounds);
    let mut md = seed.to_vec();
    let mut next = vec![0u8; len];
    for _ in 0..rounds {
        for _ in 0..1000 {
            digester.digest_into(&md, &mut next)?;
            md.clear();
            md.extend_from_slice(&next);
        }
        checkpoints.push(md.clone());
    }
    Ok(checkpoints)
}
