//! AES-CBC, AES-CTR (through `CipherKey::stream`, padding off) and AES-GCM (through
//! `AeadKey`).
//!
//! CBC's Monte Carlo test is the one of the ACVP AES specification (draft-celi-acvp-symmetric):
//! 100 rounds of 1000 chained blocks, the key and IV of the next round derived from the last
//! ciphertext (or plaintext) blocks.

use regula::{Algorithm, Direction, Module};
use serde_json::Value;

use super::{Case, Verdict, hex_field, number_field, through_module, unsupported, valid};
use crate::tally::{Expect, Outcome};

fn direction(case: &Case<'_>) -> Result<Direction, String> {
    match case.group_text("direction")? {
        "encrypt" => Ok(Direction::Encrypt),
        "decrypt" => Ok(Direction::Decrypt),
        other => Err(format!("unknown direction `{other}`")),
    }
}

/// Regula's algorithm for an AES mode and key; `Err` is the skip reason.
fn aes_algorithm(mode: &str, key: &[u8]) -> Result<Algorithm, (Expect, Outcome)> {
    let name = match key.len() {
        16 => format!("aes-128-{mode}"),
        32 => format!("aes-256-{mode}"),
        other => {
            return Err(unsupported(format!(
                "AES-{} (no {}-bit AES key)",
                other * 8,
                other * 8
            )));
        }
    };
    Algorithm::from_name(&name).ok_or_else(|| unsupported(name))
}

/// One call of a stream with padding off: the whole input in, the whole output out.
fn crypt(
    module: &Module,
    algorithm: Algorithm,
    key: &[u8],
    iv: &[u8],
    direction: Direction,
    input: &[u8],
) -> Result<Vec<u8>, regula::Error> {
    let cipher_key = module.cipher_key(algorithm, key)?;
    let mut stream = cipher_key.stream(direction, iv)?;
    stream.set_padding(false)?;
    let mut output = vec![0u8; input.len() + 2 * stream.block_size()];
    let written = stream.update(input, &mut output)?;
    let last = *stream.finish(&mut output[written..])?;
    output.truncate(written + last);
    Ok(output)
}

/// ACVP-AES-CBC and ACVP-AES-CTR: AFT (and CTR's counter tests, which have the same shape), and
/// CBC's MCT.
pub(super) fn block_mode(case: &Case<'_>) -> Verdict {
    let mode = if case.algorithm == "ACVP-AES-CBC" {
        "cbc"
    } else {
        "ctr"
    };
    let key = case.hex("key")?;
    let algorithm = match aes_algorithm(mode, &key) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    let direction = direction(case)?;
    let (input_key, output_key) = match direction {
        Direction::Encrypt => ("pt", "ct"),
        Direction::Decrypt => ("ct", "pt"),
    };
    match case.group_text("testType")? {
        "AFT" | "CTR" => {
            if let Some(bits) = case.test.get("payloadLen").and_then(Value::as_u64)
                && !bits.is_multiple_of(8)
            {
                return Ok(unsupported("partial-byte payloads"));
            }
            let iv = case.hex("iv")?;
            let input = case.hex(input_key)?;
            let expected = case.expected_hex(output_key)?;
            Ok(through_module(Expect::Valid, || {
                let ours = crypt(case.module, algorithm, &key, &iv, direction, &input)?;
                case.respond_hex(output_key, &ours);
                Ok(if ours == expected {
                    Outcome::Accepted
                } else {
                    Outcome::WrongOutput(format!("`{output_key}` differs from the expected answer"))
                })
            }))
        }
        "MCT" if mode == "cbc" => cbc_monte(case, algorithm, direction, key),
        other => Ok(unsupported(format!("{other} tests for {}", case.algorithm))),
    }
}

/// CBC MCT. Encryption: `CT[0] = E(K, IV, PT[0])`, `PT[1] = IV`; then `CT[j] = E(K, CT[j-1],
/// PT[j])` (chained), `PT[j+1] = CT[j-1]`. The next round: `K ^= tail of CT[998] || CT[999]`
/// (the key's length), `IV = CT[999]`, `PT[0] = CT[998]`. Decryption is the mirror image. Every
/// round's key, IV, input and output must match the expected `resultsArray`.
fn cbc_monte(case: &Case<'_>, algorithm: Algorithm, direction: Direction, key: Vec<u8>) -> Verdict {
    let (input_key, output_key) = match direction {
        Direction::Encrypt => ("pt", "ct"),
        Direction::Decrypt => ("ct", "pt"),
    };
    let iv: [u8; 16] = case
        .hex("iv")?
        .try_into()
        .map_err(|_| "`iv` is not 16 bytes")?;
    let input: [u8; 16] = case
        .hex(input_key)?
        .try_into()
        .map_err(|_| format!("`{input_key}` is not one block"))?;
    let results = case
        .expected
        .get("resultsArray")
        .and_then(Value::as_array)
        .ok_or("expected answer: no array field `resultsArray`")?;
    let mut expected = Vec::with_capacity(results.len());
    for result in results {
        expected.push([
            hex_field(result, "key")?,
            hex_field(result, "iv")?,
            hex_field(result, input_key)?,
            hex_field(result, output_key)?,
        ]);
    }
    Ok(valid(crate::tally::attempt(|| {
        let mut key = key;
        let mut iv = iv;
        let mut input = input;
        for (round, [want_key, want_iv, want_input, want_output]) in expected.iter().enumerate() {
            if (&key, &iv[..], &input[..]) != (want_key, &want_iv[..], &want_input[..]) {
                return Ok(Outcome::WrongOutput(format!(
                    "Monte Carlo round {round} starts from a different key, IV or `{input_key}`"
                )));
            }
            let cipher_key = case.module.cipher_key(algorithm, &key)?;
            let mut stream = cipher_key.stream(direction, &iv)?;
            stream.set_padding(false)?;
            // outputs[j] for the last two j; `previous` is output[j-1].
            let mut block_in = input;
            let mut previous = [0u8; 16];
            let mut output = [0u8; 16];
            for j in 0..1000 {
                let written = stream.update(&block_in, &mut output)?;
                if written != 16 {
                    return Err(regula::Error::CryptoFailure);
                }
                // With chaining carried by the stream, the next input is IV for j = 0 and
                // output[j-1] afterwards.
                block_in = if j == 0 { iv } else { previous };
                previous = output;
            }
            let mut tail = [0u8; 16];
            stream.finish(&mut tail)?;
            if output[..] != want_output[..] {
                return Ok(Outcome::WrongOutput(format!(
                    "Monte Carlo round {round}: `{output_key}` differs from the expected answer"
                )));
            }
            // `block_in` now holds output[998].
            let mut material = block_in.to_vec();
            material.extend_from_slice(&output);
            let offset = material.len() - key.len();
            for (k, m) in key.iter_mut().zip(&material[offset..]) {
                *k ^= m;
            }
            iv = output;
            input = block_in;
        }
        Ok(Outcome::Accepted)
    })))
}

/// ACVP-AES-GCM with an external IV: decryption through `AeadKey::open` of a key bound to the
/// group's tag length (`Module::aead_key_with_tag_len`; a tag mismatch must be refused:
/// `testPassed: false`), encryption through `AeadKey::seal_with_nonce` (which a FIPS policy
/// refuses: a caller's IV is not an approved way to make one), its tag cut to the group's
/// length.
pub(super) fn gcm(case: &Case<'_>) -> Verdict {
    let key = case.hex("key")?;
    let algorithm = match aes_algorithm("gcm", &key) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    let iv_gen = case
        .group
        .get("ivGen")
        .and_then(Value::as_str)
        .unwrap_or("external");
    if iv_gen != "external" {
        return Ok(unsupported(
            "GCM with an IV generated inside the module (its answer needs the server's check)",
        ));
    }
    let iv_bits = case.group_number("ivLen")?;
    if iv_bits != 96 {
        return Ok(unsupported(format!("{iv_bits}-bit GCM IV")));
    }
    let tag_bits = case.group_number("tagLen")?;
    let tag_unsupported = || {
        Outcome::Skip(format!(
            "unsupported by this module: {tag_bits}-bit GCM tag"
        ))
    };
    if !tag_bits.is_multiple_of(8) || !(32..=128).contains(&tag_bits) {
        return Ok((Expect::Valid, tag_unsupported()));
    }
    let tag_len = (tag_bits / 8) as usize;
    let iv = case.hex("iv")?;
    let aad = case.hex("aad")?;
    match direction(case)? {
        Direction::Encrypt => {
            let plaintext = case.hex("pt")?;
            let mut expected = case.expected_hex("ct")?;
            expected.extend(case.expected_hex("tag")?);
            Ok(through_module(Expect::Valid, || {
                let aead = case.module.aead_key(algorithm, &key)?;
                // Asked first, so that a policy that refuses a caller's IV says so for every
                // encryption group, whatever its tag length.
                let mut sealed = aead.seal_with_nonce(&iv, &aad, &plaintext)?.into_value();
                // A shorter GCM tag is the full tag's leading bytes (SP 800-38D §7.1, MSB_t).
                sealed.truncate(sealed.len() - (16 - tag_len));
                let (ct, tag) = sealed.split_at(plaintext.len());
                case.respond_hex("ct", ct);
                case.respond_hex("tag", tag);
                Ok(if sealed == expected {
                    Outcome::Accepted
                } else {
                    Outcome::WrongOutput("`ct` or `tag` differs from the expected answer".into())
                })
            }))
        }
        Direction::Decrypt => {
            let mut sealed = case.hex("ct")?;
            sealed.extend(case.hex("tag")?);
            let (expect, plaintext) = decrypt_expectation(case)?;
            Ok(through_module(expect, || {
                // The key bound to the group's tag length: a module that does not take it
                // refuses it as invalid input, which is a skip, not a rejection of the case.
                let aead = match case.module.aead_key_with_tag_len(algorithm, &key, tag_len) {
                    Ok(aead) => aead,
                    Err(regula::Error::InvalidInput { .. }) => return Ok(tag_unsupported()),
                    Err(error) => return Err(error),
                };
                let opened = aead.open(&iv, &aad, &sealed)?.into_value();
                Ok(decrypt_answer(case, &opened, plaintext.as_deref()))
            }))
        }
    }
}

/// Whole bytes from an ACVP bit length; `Err` is the skip for a partial byte.
fn whole_bytes(bits: u64, what: &str) -> Result<usize, (Expect, Outcome)> {
    if !bits.is_multiple_of(8) {
        return Err(unsupported(format!(
            "{what} of {bits} bits (not a whole number of bytes)"
        )));
    }
    usize::try_from(bits / 8).map_err(|_| unsupported(format!("{what} of {bits} bits")))
}

/// ACVP-AES-CCM (SP 800-38C) through `Module::aead_key_with_tag_len` with the group's tag
/// length: encryption by `AeadKey::seal_with_nonce` (`ct` is the ciphertext with the tag
/// appended), decryption by `AeadKey::open`, which must refuse a case whose expected answer is
/// `testPassed: false`. The module takes nonces of 7 to 13 bytes and tags of 4 to 16 bytes
/// (even); other lengths are skipped.
pub(super) fn ccm(case: &Case<'_>) -> Verdict {
    let key = case.hex("key")?;
    let algorithm = match aes_algorithm("ccm", &key) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    let tag_len = match whole_bytes(case.group_number("tagLen")?, "CCM tag") {
        Ok(len) => len,
        Err(skip) => return Ok(skip),
    };
    let iv = case.hex("iv")?;
    if !(7..=13).contains(&iv.len()) {
        return Ok(unsupported(format!(
            "{}-bit CCM nonce (the module takes 7 to 13 bytes)",
            iv.len() * 8
        )));
    }
    let aad = case.hex("aad")?;
    let tag_unsupported = || {
        Outcome::Skip(format!(
            "unsupported by this module: {}-bit CCM tag (the module takes 4 to 16 bytes, even)",
            tag_len * 8
        ))
    };
    let bind = || match case.module.aead_key_with_tag_len(algorithm, &key, tag_len) {
        Ok(aead) => Ok(Some(aead)),
        Err(regula::Error::InvalidInput { .. }) => Ok(None),
        Err(error) => Err(error),
    };
    match direction(case)? {
        Direction::Encrypt => {
            let plaintext = case.hex("pt")?;
            let expected = case.expected_hex("ct")?;
            Ok(through_module(Expect::Valid, || {
                let Some(aead) = bind()? else {
                    return Ok(tag_unsupported());
                };
                let sealed = aead.seal_with_nonce(&iv, &aad, &plaintext)?.into_value();
                case.respond_hex("ct", &sealed);
                Ok(if sealed == expected {
                    Outcome::Accepted
                } else {
                    Outcome::WrongOutput("`ct` differs from the expected answer".into())
                })
            }))
        }
        Direction::Decrypt => {
            let sealed = case.hex("ct")?;
            let (expect, plaintext) = decrypt_expectation(case)?;
            Ok(through_module(expect, || {
                let Some(aead) = bind()? else {
                    return Ok(tag_unsupported());
                };
                let opened = aead.open(&iv, &aad, &sealed)?.into_value();
                Ok(decrypt_answer(case, &opened, plaintext.as_deref()))
            }))
        }
    }
}

/// ACVP-AES-KW and ACVP-AES-KWP (SP 800-38F) with the forward cipher, through
/// `CipherKey::encrypt_in_place` / `decrypt_in_place` of `aes-*-kw` / `aes-*-kwp` (no IV). An
/// unwrap whose integrity check fails is refused, which a `testPassed: false` case expects.
pub(super) fn key_wrap(case: &Case<'_>) -> Verdict {
    let mode = if case.algorithm == "ACVP-AES-KWP" {
        "kwp"
    } else {
        "kw"
    };
    let cipher = case
        .group
        .get("kwCipher")
        .and_then(Value::as_str)
        .unwrap_or("cipher");
    if cipher != "cipher" {
        return Ok(unsupported(format!(
            "{} with the {cipher} function (the module wraps with the forward cipher)",
            case.algorithm
        )));
    }
    let key = case.hex("key")?;
    let algorithm = match aes_algorithm(mode, &key) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    if let Err(skip) = whole_bytes(case.group_number("payloadLen")?, "payload") {
        return Ok(skip);
    }
    match direction(case)? {
        Direction::Encrypt => {
            let plaintext = case.hex("pt")?;
            let expected = case.expected_hex("ct")?;
            Ok(through_module(Expect::Valid, || {
                let mut buffer = plaintext.clone();
                case.module
                    .cipher_key(algorithm, &key)?
                    .encrypt_in_place(&[], &mut buffer)?;
                case.respond_hex("ct", &buffer);
                Ok(if buffer == expected {
                    Outcome::Accepted
                } else {
                    Outcome::WrongOutput("`ct` differs from the expected answer".into())
                })
            }))
        }
        Direction::Decrypt => {
            let wrapped = case.hex("ct")?;
            let (expect, plaintext) = decrypt_expectation(case)?;
            Ok(through_module(expect, || {
                let mut buffer = wrapped.clone();
                case.module
                    .cipher_key(algorithm, &key)?
                    .decrypt_in_place(&[], &mut buffer)?;
                Ok(decrypt_answer(case, &buffer, plaintext.as_deref()))
            }))
        }
    }
}

/// ACVP-AES-XTS (SP 800-38E) revisions 1.0 and 2.0 through `CipherKey::encrypt_in_place` /
/// `decrypt_in_place` of `aes-256-xts`, the tweak given (`tweakMode: hex`) or made from the data
/// unit's sequence number (`number`: 128-bit little-endian, IEEE 1619 §5.1). ACVP's `keyLen`
/// is the AES key length: 256 means the 64-byte XTS key; AES-128-XTS is not served. The whole
/// payload is one data unit; a 2.0 group whose `dataUnitLen` is shorter, or not whole bytes, is
/// skipped.
pub(super) fn xts(case: &Case<'_>) -> Verdict {
    let key = case.hex("key")?;
    if key.len() != 64 {
        return Ok(unsupported(format!(
            "AES-{}-XTS (the module serves AES-256-XTS only)",
            key.len() * 4
        )));
    }
    let Some(algorithm) = Algorithm::from_name("aes-256-xts") else {
        return Ok(unsupported("aes-256-xts"));
    };
    let payload_bits = case
        .test
        .get("payloadLen")
        .or_else(|| case.group.get("payloadLen"))
        .and_then(Value::as_u64)
        .ok_or("no number field `payloadLen`")?;
    if let Err(skip) = whole_bytes(payload_bits, "XTS payload") {
        return Ok(skip);
    }
    if let Some(unit_bits) = case
        .test
        .get("dataUnitLen")
        .or_else(|| case.group.get("dataUnitLen"))
        .and_then(Value::as_u64)
    {
        if let Err(skip) = whole_bytes(unit_bits, "XTS data unit") {
            return Ok(skip);
        }
        if unit_bits != payload_bits {
            return Ok(unsupported(format!(
                "XTS data units of {unit_bits} bits in a {payload_bits}-bit payload (the module \
                 takes one data unit per call)"
            )));
        }
    }
    let tweak: [u8; 16] = match case.group_text("tweakMode")? {
        "hex" => case
            .hex("tweakValue")?
            .try_into()
            .map_err(|_| "`tweakValue` is not 16 bytes")?,
        "number" => u128::from(number_field(case.test, "sequenceNumber")?).to_le_bytes(),
        other => return Err(format!("unknown tweakMode `{other}`")),
    };
    let direction = direction(case)?;
    let (input_key, output_key) = match direction {
        Direction::Encrypt => ("pt", "ct"),
        Direction::Decrypt => ("ct", "pt"),
    };
    let input = case.hex(input_key)?;
    let expected = case.expected_hex(output_key)?;
    Ok(through_module(Expect::Valid, || {
        let cipher_key = case.module.cipher_key(algorithm, &key)?;
        let mut buffer = input.clone();
        match direction {
            Direction::Encrypt => cipher_key.encrypt_in_place(&tweak, &mut buffer)?,
            Direction::Decrypt => cipher_key.decrypt_in_place(&tweak, &mut buffer)?,
        };
        case.respond_hex(output_key, &buffer);
        Ok(if buffer == expected {
            Outcome::Accepted
        } else {
            Outcome::WrongOutput(format!("`{output_key}` differs from the expected answer"))
        })
    }))
}

/// A decryption case's expectation: `testPassed: false` the module must refuse it, otherwise
/// it opens to the expected `pt`.
fn decrypt_expectation(case: &Case<'_>) -> Result<(Expect, Option<Vec<u8>>), String> {
    match case.expected_verdict() {
        Some(false) => Ok((Expect::Invalid, None)),
        _ => Ok((Expect::Valid, Some(case.expected_hex("pt")?))),
    }
}

/// Records the module's plaintext as the answer and compares it with the expected `pt`.
fn decrypt_answer(case: &Case<'_>, opened: &[u8], plaintext: Option<&[u8]>) -> Outcome {
    case.respond_hex("pt", opened);
    match plaintext {
        Some(plaintext) if opened != plaintext => {
            Outcome::WrongOutput("`pt` differs from the expected answer".into())
        }
        _ => Outcome::Accepted,
    }
}
