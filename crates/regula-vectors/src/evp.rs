//! OpenSSL / Tongsuo `evp_test` files: blank-line separated stanzas of `Key = Value` lines,
//! opened by `Cipher =`, `Digest =`, `MAC =`, … (`Title =` stanzas only name a section).
//! `Result = …` marks a stanza that must fail.

use regula::Module;

use crate::kv::{self, Field};
use crate::ops::{self, AeadVector};
use crate::tally::{Expect, Outcome, Tally};
use crate::{FileReport, Format, VectorError};

struct Stanza {
    line: usize,
    fields: Vec<Field>,
}

impl Stanza {
    fn get(&self, key: &str) -> Option<&Field> {
        self.fields
            .iter()
            .find(|field| field.key.eq_ignore_ascii_case(key))
    }

    /// The stanza's kind and its argument (`Cipher`, `SM4-GCM`), skipping `Availablein` and
    /// `FIPSversion` qualifiers.
    fn kind(&self) -> Option<&Field> {
        self.fields
            .iter()
            .find(|field| !matches!(field.key.as_str(), "Availablein" | "FIPSversion"))
    }
}

fn parse(label: &str, text: &str) -> Result<Vec<Stanza>, VectorError> {
    let mut stanzas = Vec::new();
    let mut current: Option<Stanza> = None;
    // evp_test key stanzas (`PrivateKey = NAME`) carry a PEM block on the lines that follow;
    // its lines belong to the stanza and hold no `Key = Value`.
    let mut in_pem = false;
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
        if line.starts_with("-----BEGIN ") {
            in_pem = true;
        }
        if in_pem {
            in_pem = !line.starts_with("-----END ");
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
        current
            .get_or_insert_with(|| Stanza {
                line: line_no,
                fields: Vec::new(),
            })
            .fields
            .push(Field {
                key: key.to_string(),
                value: value.to_string(),
                line: line_no,
            });
    }
    stanzas.extend(current.take());
    Ok(stanzas)
}

pub(crate) fn run(module: &Module, label: &str, text: &str) -> Result<FileReport, VectorError> {
    let stanzas = parse(label, text)?;
    let mut tally = Tally::new(FileReport::new(label, Format::EvpTest));
    let mut algorithms: Vec<String> = Vec::new();
    for stanza in &stanzas {
        let Some(kind) = stanza.kind() else { continue };
        if kind.key == "Title" {
            continue;
        }
        let id = format!("stanza at line {}", stanza.line);
        let expect = if stanza.get("Result").is_some() {
            Expect::Invalid
        } else {
            Expect::Valid
        };
        let (name, outcome) = match kind.key.as_str() {
            "Cipher" => cipher(module, label, stanza, &kind.value)?,
            "Digest" => digest(module, label, stanza, &kind.value)?,
            "MAC" => mac(module, label, stanza, &kind.value)?,
            other => (
                other.to_ascii_lowercase(),
                Outcome::Skip(format!("unsupported evp_test stanza: {other}")),
            ),
        };
        if !algorithms.contains(&name) {
            algorithms.push(name);
        }
        tally.record(&id, expect, outcome);
    }
    if algorithms.is_empty() {
        return Err(VectorError::malformed(
            label,
            0,
            "no evp_test stanzas found",
        ));
    }
    tally.set_algorithm(algorithms.join(", "));
    Ok(tally.finish())
}

fn bytes(label: &str, stanza: &Stanza, key: &str) -> Result<Vec<u8>, VectorError> {
    let field = stanza.get(key).ok_or_else(|| {
        VectorError::malformed(label, stanza.line, format!("stanza has no `{key}`"))
    })?;
    kv::decode(label, field)
}

fn optional(label: &str, stanza: &Stanza, key: &str) -> Result<Vec<u8>, VectorError> {
    match stanza.get(key) {
        Some(field) => kv::decode(label, field),
        None => Ok(Vec::new()),
    }
}

/// Every `AAD =` line, concatenated (evp_test allows several).
fn all_aad(label: &str, stanza: &Stanza) -> Result<Vec<u8>, VectorError> {
    let mut aad = Vec::new();
    for field in stanza
        .fields
        .iter()
        .filter(|field| field.key.eq_ignore_ascii_case("AAD"))
    {
        aad.extend(kv::decode(label, field)?);
    }
    Ok(aad)
}

/// OpenSSL digest names → Regula names (`SHA256`, `SHA2-256` → `sha256`; `SHA3-256`; `SM3`).
fn digest_name(openssl: &str) -> String {
    let lower = openssl.to_ascii_lowercase();
    let lower = lower
        .strip_prefix("sha2-")
        .map_or(lower.clone(), |rest| format!("sha{rest}"));
    match lower.as_str() {
        "sha-1" => "sha1".to_string(),
        "sha512-224" | "sha512/224" => "sha512-224".to_string(),
        "sha512-256" | "sha512/256" => "sha512-256".to_string(),
        _ => lower,
    }
}

type Run = Result<(String, Outcome), VectorError>;

fn cipher(module: &Module, label: &str, stanza: &Stanza, openssl: &str) -> Run {
    let name = openssl.to_ascii_lowercase();
    let key = bytes(label, stanza, "Key")?;
    let iv = optional(label, stanza, "IV")?;
    let plaintext = optional(label, stanza, "Plaintext")?;
    let ciphertext = optional(label, stanza, "Ciphertext")?;
    let aead = name.ends_with("-gcm") || name.ends_with("-ccm") || name.contains("poly1305");
    let outcome = if aead {
        let tag = bytes(label, stanza, "Tag")?;
        let aad = all_aad(label, stanza)?;
        let vector = AeadVector {
            key: &key,
            nonce: &iv,
            aad: &aad,
            plaintext: &plaintext,
            ciphertext: &ciphertext,
            tag: &tag,
        };
        let nonce_kind = if name.ends_with("-gcm") {
            "GCM IV"
        } else {
            "nonce"
        };
        ops::aead_check(module, &name, &vector, nonce_kind, false)
    } else {
        ops::cipher(module, &name, &key, &iv, &plaintext, &ciphertext)
    };
    Ok((name, outcome))
}

fn digest(module: &Module, label: &str, stanza: &Stanza, openssl: &str) -> Run {
    let name = digest_name(openssl);
    let mut input = optional(label, stanza, "Input")?;
    let copies = match stanza.get("Ncopy") {
        Some(field) => field
            .value
            .parse::<usize>()
            .map_err(|_| VectorError::malformed(label, field.line, "`Ncopy` is not a number"))?,
        None => 1,
    };
    input = input.repeat(copies);
    let expected = bytes(label, stanza, "Output")?;
    if let Some(count) = stanza.get("Count") {
        let times = count
            .value
            .parse::<usize>()
            .map_err(|_| VectorError::malformed(label, count.line, "`Count` is not a number"))?;
        input = input.repeat(times);
    }
    let outcome = ops::digest(module, &name, &input, &expected);
    Ok((name, outcome))
}

fn mac(module: &Module, label: &str, stanza: &Stanza, kind: &str) -> Run {
    let algorithm = stanza
        .get("Algorithm")
        .map(|field| field.value.clone())
        .unwrap_or_default();
    let name = match kind.to_ascii_uppercase().as_str() {
        "HMAC" => format!("hmac-{}", digest_name(&algorithm)),
        "CMAC" => {
            let cipher = algorithm.to_ascii_lowercase();
            match cipher.strip_suffix("-cbc") {
                Some(base) => format!("{base}-cmac"),
                None => format!("{cipher}-cmac"),
            }
        }
        other => other.to_ascii_lowercase(),
    };
    let key = bytes(label, stanza, "Key")?;
    let input = optional(label, stanza, "Input")?;
    let tag = bytes(label, stanza, "Output")?;
    let outcome = ops::mac(module, &name, &key, &input, &tag);
    Ok((name, outcome))
}
