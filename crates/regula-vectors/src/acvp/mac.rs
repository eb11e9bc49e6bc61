//! HMAC, CMAC-AES and AES-GMAC through `Module::mac_key`.

use regula::Algorithm;

use super::{Case, Verdict, through_module, unsupported};
use crate::tally::{Expect, Outcome};

/// ACVP's HMAC names → Regula's; `None` for an HMAC the module does not offer.
fn hmac_name(acvp: &str) -> Option<&'static str> {
    Some(match acvp {
        "HMAC-SHA-1" => "hmac-sha1",
        "HMAC-SHA2-224" => "hmac-sha224",
        "HMAC-SHA2-256" => "hmac-sha256",
        "HMAC-SHA2-384" => "hmac-sha384",
        "HMAC-SHA2-512" => "hmac-sha512",
        _ => return None,
    })
}

/// The MAC length in bytes from the group's `macLen` (bits).
fn mac_len(case: &Case<'_>) -> Result<Result<usize, Outcome>, String> {
    let bits = case.group_number("macLen")?;
    if bits == 0 || !bits.is_multiple_of(8) {
        return Ok(Err(Outcome::Skip(format!(
            "unsupported by this module: {bits}-bit MAC"
        ))));
    }
    Ok(Ok((bits / 8) as usize))
}

pub(super) fn hmac(case: &Case<'_>) -> Verdict {
    let Some(algorithm) = hmac_name(case.algorithm).and_then(Algorithm::from_name) else {
        return Ok(unsupported(case.algorithm));
    };
    let len = match mac_len(case)? {
        Ok(len) => len,
        Err(skip) => return Ok((Expect::Valid, skip)),
    };
    let key = case.hex("key")?;
    let msg = case.hex("msg")?;
    let expected = case.expected_hex("mac")?;
    Ok(through_module(Expect::Valid, || {
        let tag = case
            .module
            .mac_key(algorithm, &key)?
            .sign(&msg)?
            .into_value();
        if let Some(ours) = tag.get(..len) {
            case.respond_hex("mac", ours);
        }
        Ok(match tag.get(..len) {
            Some(ours) if ours == expected.as_slice() => Outcome::Accepted,
            Some(_) => Outcome::WrongOutput("`mac` differs from the expected answer".to_string()),
            None => Outcome::Skip(format!(
                "unsupported by this module: a {len}-byte tag from a {}-byte MAC",
                tag.len()
            )),
        })
    }))
}

/// CMAC-AES generation (`mac` to produce) and verification (`testPassed`).
pub(super) fn cmac(case: &Case<'_>) -> Verdict {
    let key = case.hex("key")?;
    let name = match key.len() {
        16 => "aes-128-cmac",
        32 => "aes-256-cmac",
        other => return Ok(unsupported(format!("AES-{} CMAC", other * 8))),
    };
    let Some(algorithm) = Algorithm::from_name(name) else {
        return Ok(unsupported(name));
    };
    let len = match mac_len(case)? {
        Ok(len) => len,
        Err(skip) => return Ok((Expect::Valid, skip)),
    };
    let message = case.hex("message")?;
    match case.group_text("direction")? {
        "gen" => {
            let expected = case.expected_hex("mac")?;
            Ok(through_module(Expect::Valid, || {
                let tag = case
                    .module
                    .mac_key(algorithm, &key)?
                    .sign(&message)?
                    .into_value();
                if let Some(ours) = tag.get(..len) {
                    case.respond_hex("mac", ours);
                }
                Ok(if tag.get(..len) == Some(expected.as_slice()) {
                    Outcome::Accepted
                } else {
                    Outcome::WrongOutput("`mac` differs from the expected answer".to_string())
                })
            }))
        }
        "ver" => {
            let tag = case.hex("mac")?;
            let expect = case.verdict_expect()?;
            Ok(through_module(expect, || {
                let mac_key = case.module.mac_key(algorithm, &key)?;
                if tag.len() == 16 {
                    // The module's own verification service (constant-time comparison).
                    mac_key.verify(&message, &tag)?;
                    return Ok(Outcome::Accepted);
                }
                let full = mac_key.sign(&message)?.into_value();
                Ok(if full.get(..tag.len()) == Some(tag.as_slice()) {
                    Outcome::Accepted
                } else {
                    Outcome::Rejected("truncated tag does not verify".to_string())
                })
            }))
        }
        other => Err(format!("unknown CMAC direction `{other}`")),
    }
}

/// ACVP-AES-GMAC (SP 800-38D with an empty plaintext) through `MacKey::sign_with_nonce`:
/// `encrypt` produces the tag (cut to the group's `tagLen`, SP 800-38D §7.1 MSB_t), `decrypt`
/// says whether the given tag is right: a full tag through `MacKey::verify_with_nonce`
/// (constant-time), a shorter one against the leading bytes of the computed tag. Only
/// external IVs of whole bytes are taken.
pub(super) fn gmac(case: &Case<'_>) -> Verdict {
    let key = case.hex("key")?;
    let name = match key.len() {
        16 => "aes-128-gmac",
        32 => "aes-256-gmac",
        other => return Ok(unsupported(format!("AES-{} GMAC", other * 8))),
    };
    let Some(algorithm) = Algorithm::from_name(name) else {
        return Ok(unsupported(name));
    };
    let iv_gen = case
        .group
        .get("ivGen")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("external");
    if iv_gen != "external" {
        return Ok(unsupported(
            "GMAC with an IV generated inside the module (its answer needs the server's check)",
        ));
    }
    let tag_bits = case.group_number("tagLen")?;
    if tag_bits == 0 || !tag_bits.is_multiple_of(8) || tag_bits > 128 {
        return Ok(unsupported(format!("{tag_bits}-bit GMAC tag")));
    }
    let tag_len = (tag_bits / 8) as usize;
    let iv = case.hex("iv")?;
    let aad = case.hex("aad")?;
    match case.group_text("direction")? {
        "encrypt" => {
            let expected = case.expected_hex("tag")?;
            Ok(through_module(Expect::Valid, || {
                let tag = case
                    .module
                    .mac_key(algorithm, &key)?
                    .sign_with_nonce(&iv, &aad)?
                    .into_value();
                let ours = tag.get(..tag_len).unwrap_or(&tag);
                case.respond_hex("tag", ours);
                Ok(if ours == expected.as_slice() {
                    Outcome::Accepted
                } else {
                    Outcome::WrongOutput("`tag` differs from the expected answer".to_string())
                })
            }))
        }
        "decrypt" => {
            let tag = case.hex("tag")?;
            let expect = case.verdict_expect()?;
            Ok(through_module(expect, || {
                let mac_key = case.module.mac_key(algorithm, &key)?;
                if tag.len() == 16 {
                    mac_key.verify_with_nonce(&iv, &aad, &tag)?;
                    return Ok(Outcome::Accepted);
                }
                let full = mac_key.sign_with_nonce(&iv, &aad)?.into_value();
                Ok(if full.get(..tag.len()) == Some(tag.as_slice()) {
                    Outcome::Accepted
                } else {
                    Outcome::Rejected("truncated tag does not verify".to_string())
                })
            }))
        }
        other => Err(format!("unknown GMAC direction `{other}`")),
    }
}
