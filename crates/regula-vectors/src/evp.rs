//! OpenSSL / Tongsuo `evp_test` files: blank-line separated stanzas of `Key = Value` lines,
//! opened by `Cipher =`, `Digest =`, `MAC =`, … (`Title =` stanzas only name a section).
//! `Result = …` marks a stanza that must fail.

use regula::{Algorithm, Family, Module, Profile, registry};

use crate::kv::{self, Field};
use crate::ops::{self, AeadVector};
use crate::tally::{Expect, Outcome, Tally, attempt};
use crate::{FileReport, Format, VectorError, evp_kdf};

pub(crate) struct Stanza {
    line: usize,
    pub(crate) fields: Vec<Field>,
    /// The PEM block of a key stanza (`PrivateKey = NAME` / `PublicKey = NAME`).
    pem: String,
}

impl Stanza {
    pub(crate) fn get(&self, key: &str) -> Option<&Field> {
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
            if let Some(stanza) = current.as_mut() {
                stanza.pem.push_str(line);
                stanza.pem.push('\n');
            }
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
                pem: String::new(),
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
    // Named keys of `PrivateKey =` / `PublicKey =` stanzas: (is private, DER).
    let mut keys: Vec<(String, bool, Vec<u8>)> = Vec::new();
    for stanza in &stanzas {
        let Some(kind) = stanza.kind() else { continue };
        if kind.key == "Title" {
            continue;
        }
        if matches!(kind.key.as_str(), "PrivateKey" | "PublicKey") {
            // Key definitions are not tests; a key that does not parse fails the stanzas
            // that use it.
            if let Ok(block) = pem::parse(&stanza.pem) {
                keys.push((
                    kind.value.clone(),
                    kind.key == "PrivateKey",
                    block.into_contents(),
                ));
            }
            continue;
        }
        let id = format!("stanza at line {}", stanza.line);
        let result = stanza.get("Result").map(|field| field.value.as_str());
        let expect = if result.is_some() {
            Expect::Invalid
        } else {
            Expect::Valid
        };
        if let Some(reason) = unavailable(module, stanza) {
            let name = kind.value.to_ascii_lowercase();
            if !algorithms.contains(&name) {
                algorithms.push(name);
            }
            tally.skip(reason);
            continue;
        }
        let run = match kind.key.as_str() {
            "Cipher" => cipher(module, label, stanza, &kind.value),
            "Digest" => digest(module, label, stanza, &kind.value),
            "MAC" => mac(module, label, stanza, &kind.value),
            "KDF" => evp_kdf::run(module, label, stanza, &kind.value).map(|derivation| {
                if derivation.approved == Some(true)
                    && stands_for_fips(module)
                    && stanza
                        .get("Unapproved")
                        .is_some_and(|field| field.value.trim() == "1")
                {
                    tally.note(format!(
                        "{id}: OpenSSL's FIPS provider flags this derivation unapproved; \
                         the module served it as approved"
                    ));
                }
                // `KDF_MISMATCH`: the derivation runs and must not give the stanza's output.
                let outcome = match derivation.outcome {
                    Outcome::WrongOutput(why) if result == Some("KDF_MISMATCH") => {
                        Outcome::Rejected(why)
                    }
                    other => other,
                };
                (derivation.name, outcome)
            }),
            "Decrypt" | "Verify" | "Sign" | "KeyGen"
                if ec_curve_of(&keys, &kind.value).is_none() =>
            {
                pkey(module, label, stanza, &kind.key, &kind.value, &keys)
            }
            "Verify"
            | "Sign"
            | "DigestVerify"
            | "OneShotDigestVerify"
            | "DigestSign"
            | "PrivPubKeyPair" => ecdsa(module, label, stanza, &kind.key, &kind.value, &keys),
            other => Ok((
                other.to_ascii_lowercase(),
                Outcome::Skip(format!("unsupported evp_test stanza: {other}")),
            )),
        };
        // A stanza without a field this reader needs (a MAC stanza without `Output`, say) is
        // skipped with the reason and the file goes on; a malformed value (bad hex) still makes
        // the whole file malformed.
        let (name, outcome) = match run {
            Ok(result) => result,
            Err(error) if error.message.starts_with(MISSING_FIELD) => (
                kind.value.to_ascii_lowercase(),
                Outcome::Skip(format!(
                    "evp_test stanza without a field Regula checks: {}",
                    error.message
                )),
            ),
            Err(error) => return Err(error),
        };
        // A stanza written for OpenSSL's FIPS provider that expects a refusal is answered by
        // the policy's refusal: that is the check (a TLS 1.2 master secret without EMS, say).
        let outcome = match outcome {
            Outcome::Skip(reason)
                if expect == Expect::Invalid
                    && stands_for_fips(module)
                    && written_for_fips(stanza)
                    && reason.starts_with("not approved by policy") =>
            {
                Outcome::Rejected(reason)
            }
            other => other,
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

/// Whether a stanza is written for OpenSSL's FIPS provider: `Availablein = fips`, or a
/// `FIPSversion` condition (which evp_test reads only with that provider loaded).
fn written_for_fips(stanza: &Stanza) -> bool {
    stanza.fields.iter().any(|field| {
        field.key == "FIPSversion"
            || (field.key == "Availablein"
                && field
                    .value
                    .split_whitespace()
                    .any(|provider| provider == "fips"))
    })
}

/// Whether the loaded policy stands for OpenSSL's FIPS provider (`fips-140-3`, and
/// `cnsa-2.0`, a subset of the FIPS-approved algorithms) rather than its default and legacy
/// providers (`default`, `gm`).
fn stands_for_fips(module: &Module) -> bool {
    matches!(
        module.policy().profile(),
        Profile::Fips1403 | Profile::Cnsa20
    )
}

/// The OpenSSL FIPS provider version a FIPS policy is judged as by `FIPSversion`: that of the
/// OpenSSL release the newest conditions of the data name (4.0). OpenSSL's `evp_test` only
/// looks at `FIPSversion` when its FIPS provider is loaded, and so does this runner.
const FIPS_PROVIDER_VERSION: [u32; 3] = [4, 0, 0];

/// Why a stanza is not for the loaded policy, judged as OpenSSL's `evp_test` judges
/// `Availablein = PROVIDER …` (run when one of them is loaded) and `FIPSversion = COND …`
/// (every condition must hold for the FIPS provider's version).
fn unavailable(module: &Module, stanza: &Stanza) -> Option<String> {
    let fips = stands_for_fips(module);
    let policy = module.policy().name();
    if let Some(field) = stanza.get("Availablein") {
        let providers: Vec<String> = field
            .value
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let loaded = providers.iter().any(|provider| {
            if fips {
                provider == "fips"
            } else {
                provider == "default" || provider == "legacy"
            }
        });
        if !loaded {
            let stands_for = if fips {
                "its fips provider"
            } else {
                "its default and legacy providers"
            };
            return Some(format!(
                "evp_test stanza for OpenSSL's {} provider only (policy {policy} stands for \
                 {stands_for})",
                field.value.trim()
            ));
        }
    }
    if fips
        && let Some(field) = stanza.get("FIPSversion")
        && !field.value.split_whitespace().all(fips_version_holds)
    {
        let [major, minor, patch] = FIPS_PROVIDER_VERSION;
        return Some(format!(
            "evp_test stanza for OpenSSL FIPS provider versions {} (policy {policy} is judged \
             as the {major}.{minor}.{patch} provider)",
            field.value.trim()
        ));
    }
    None
}

/// One `FIPSversion` condition (`>=3.4.0`, `<3.1.0`, `!3.0.0`, `3.2.0`) against
/// [`FIPS_PROVIDER_VERSION`]; a condition that does not parse does not hold.
fn fips_version_holds(condition: &str) -> bool {
    let (op, version) = match condition.find(|c: char| c.is_ascii_digit()) {
        Some(index) => condition.split_at(index),
        None => return false,
    };
    let parts: Vec<u32> = version
        .split('.')
        .map_while(|part| part.parse().ok())
        .collect();
    let Ok(version) = <[u32; 3]>::try_from(parts.as_slice()) else {
        return false;
    };
    let ours = FIPS_PROVIDER_VERSION;
    match op {
        "" | "=" | "==" => ours == version,
        "!" | "!=" => ours != version,
        ">=" => ours >= version,
        "<=" => ours <= version,
        ">" => ours > version,
        "<" => ours < version,
        _ => false,
    }
}

/// The registry row of `family` that OpenSSL calls `name` (any of its OpenSSL names and
/// aliases, case-insensitively: `id-aes128-wrap`, `SHA2-256`, `AES128`).
pub(crate) fn row_by_openssl_name(family: Family, name: &str) -> Option<Algorithm> {
    Algorithm::ALL.into_iter().find(|&algorithm| {
        let entry = registry::entry(algorithm);
        entry.family == family
            && entry.openssl.as_ref().is_some_and(|openssl| {
                openssl
                    .names
                    .split(':')
                    .any(|alias| alias.eq_ignore_ascii_case(name))
            })
    })
}

/// How the error of a missing field starts (see `run`).
const MISSING_FIELD: &str = "stanza has no `";

fn bytes(label: &str, stanza: &Stanza, key: &str) -> Result<Vec<u8>, VectorError> {
    let field = stanza.get(key).ok_or_else(|| {
        VectorError::malformed(label, stanza.line, format!("{MISSING_FIELD}{key}`"))
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

/// The Regula name of an OpenSSL cipher name: itself when Regula uses it, else the row that
/// has it among its OpenSSL names and aliases (`id-aes128-wrap` is `aes-128-kw`).
fn cipher_name(openssl: &str) -> String {
    let lower = openssl.to_ascii_lowercase();
    if Algorithm::from_name(&lower).is_some() {
        return lower;
    }
    [Family::Cipher, Family::Aead]
        .into_iter()
        .find_map(|family| row_by_openssl_name(family, openssl))
        .map_or(lower, |row| row.name().to_string())
}

fn cipher(module: &Module, label: &str, stanza: &Stanza, openssl: &str) -> Run {
    let name = cipher_name(openssl);
    let key = bytes(label, stanza, "Key")?;
    let iv = optional(label, stanza, "IV")?;
    let plaintext = optional(label, stanza, "Plaintext")?;
    let ciphertext = optional(label, stanza, "Ciphertext")?;
    // SP 800-38F key wrap: a stanza that must fail gives a wrapped key the unwrapping must
    // refuse (OpenSSL's `Result = CIPHERUPDATE_ERROR`).
    if name.ends_with("-kw") || name.ends_with("-kwp") {
        let plaintext = stanza
            .get("Result")
            .is_none()
            .then_some(plaintext.as_slice());
        let outcome = ops::key_wrap(module, &name, &key, plaintext, &ciphertext);
        return Ok((name, outcome));
    }
    // OpenSSL's and Tongsuo's SM4-XTS follows GB/T 17964-2021 unless `XTSStandard = IEEE`
    // (their `xts_standard` parameter defaults to "GB"); Regula names the two apart.
    let name = match stanza.get("XTSStandard") {
        _ if name != "sm4-xts" => name,
        Some(standard) if standard.value.eq_ignore_ascii_case("IEEE") => name,
        _ => "sm4-xts-gb".to_string(),
    };
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
    let mut name = digest_name(openssl);
    if Algorithm::from_name(&name).is_none()
        && let Some(row) = row_by_openssl_name(Family::Digest, openssl)
    {
        name = row.name().to_string();
    }
    // As evp_test reads them: each `Input` line is one more piece of the message; `Ncopy`
    // repeats the last piece's bytes, `Count` the last piece (given to the digest that many
    // times).
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    for field in &stanza.fields {
        let number = || {
            field.value.parse::<usize>().map_err(|_| {
                VectorError::malformed(
                    label,
                    field.line,
                    format!("`{}` is not a number", field.key),
                )
            })
        };
        if field.key.eq_ignore_ascii_case("Input") {
            pieces.push(kv::decode(label, field)?);
        } else if field.key.eq_ignore_ascii_case("Ncopy") || field.key.eq_ignore_ascii_case("Count")
        {
            let times = number()?;
            if let Some(last) = pieces.last_mut() {
                *last = last.repeat(times);
            }
        }
    }
    let input = pieces.concat();
    let expected = bytes(label, stanza, "Output")?;
    let outcome = ops::digest(module, &name, &input, &expected);
    Ok((name, outcome))
}

fn mac(module: &Module, label: &str, stanza: &Stanza, kind: &str) -> Run {
    // `HMAC by EVP_PKEY` is the same MAC through OpenSSL's EVP_PKEY interface.
    let kind = kind.strip_suffix(" by EVP_PKEY").unwrap_or(kind).trim();
    // The cipher or digest is named by `Algorithm =` or by a `Ctrl = cipher:…` /
    // `Ctrl = digest:…` parameter.
    let algorithm = stanza
        .get("Algorithm")
        .map(|field| field.value.clone())
        .or_else(|| {
            stanza
                .fields
                .iter()
                .filter(|field| field.key.eq_ignore_ascii_case("Ctrl"))
                .find_map(|field| {
                    field
                        .value
                        .strip_prefix("cipher:")
                        .or_else(|| field.value.strip_prefix("digest:"))
                        .map(str::to_string)
                })
        })
        .unwrap_or_default();
    if kind.eq_ignore_ascii_case("GMAC") {
        let cipher = algorithm.to_ascii_lowercase();
        let name = match cipher.strip_suffix("-gcm") {
            Some(base) => format!("{base}-gmac"),
            None => format!("gmac with {cipher}"),
        };
        let key = bytes(label, stanza, "Key")?;
        let iv = bytes(label, stanza, "IV")?;
        let input = optional(label, stanza, "Input")?;
        let tag = bytes(label, stanza, "Output")?;
        let outcome = ops::mac_with_nonce(module, &name, &key, &iv, &input, &tag);
        return Ok((name, outcome));
    }
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

/// The digest of a `Ctrl = digest:NAME` line, if any.
fn ctrl_digest(stanza: &Stanza) -> Option<String> {
    stanza
        .fields
        .iter()
        .filter(|field| field.key.eq_ignore_ascii_case("Ctrl"))
        .find_map(|field| field.value.strip_prefix("digest:"))
        .map(str::to_ascii_uppercase)
}

/// Public-key stanzas: SM2 decryption (GM/T 0009 ASN.1 ciphertexts) and key generation run;
/// the others are skipped with the reason.
fn pkey(
    module: &Module,
    label: &str,
    stanza: &Stanza,
    kind: &str,
    value: &str,
    keys: &[(String, bool, Vec<u8>)],
) -> Run {
    if kind == "KeyGen" {
        let name = value.to_ascii_lowercase();
        if name != "sm2" {
            return Ok((
                name,
                Outcome::unsupported(format!("key generation of {value}")),
            ));
        }
        let outcome = attempt(|| {
            module.generate_decryption_key(regula::Algorithm::Sm2Encrypt)?;
            Ok(Outcome::Accepted)
        });
        return Ok(("sm2".to_string(), outcome));
    }
    let Some((_, private, der)) = keys.iter().find(|(name, ..)| name == value) else {
        return Ok((
            kind.to_ascii_lowercase(),
            Outcome::Skip(format!("key {value} is not defined in this file")),
        ));
    };
    // Only SM2 keys (id-ecPublicKey on curveSM2) are Regula's to judge here.
    const SM2_CURVE_OID: &[u8] = &[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d];
    if !der
        .windows(SM2_CURVE_OID.len())
        .any(|window| window == SM2_CURVE_OID)
    {
        return Ok((
            kind.to_ascii_lowercase(),
            Outcome::unsupported(format!("{kind} with a non-SM2 key")),
        ));
    }
    let digest = ctrl_digest(stanza);
    match kind {
        "Decrypt" => {
            let input = bytes(label, stanza, "Input")?;
            if !*private {
                return Ok((
                    "sm2-encrypt".into(),
                    Outcome::Skip("Decrypt with a public key".into()),
                ));
            }
            // GB/T 32918.4 uses SM3 for C3; any other digest is refused, as by OpenSSL.
            if digest.as_deref().is_some_and(|digest| digest != "SM3") {
                return Ok((
                    "sm2-encrypt".into(),
                    Outcome::Rejected(format!(
                        "SM2 decryption with {}",
                        digest.unwrap_or_default()
                    )),
                ));
            }
            let expected = optional(label, stanza, "Output")?;
            let outcome = attempt(|| {
                let key = module
                    .decryption_key_from_pkcs8(regula::Algorithm::Sm2Encrypt, der)?
                    .into_value();
                let plaintext = key.decrypt(&input, regula::CiphertextFormat::Asn1)?;
                Ok(if plaintext.as_slice() == expected.as_slice() {
                    Outcome::Accepted
                } else {
                    Outcome::WrongOutput("plaintext differs from the vector".into())
                })
            });
            Ok(("sm2-encrypt".into(), outcome))
        }
        "Verify" if digest.as_deref().is_none_or(|digest| digest == "SM3") => {
            let input = bytes(label, stanza, "Input")?;
            let signature = bytes(label, stanza, "Output")?;
            let outcome = attempt(|| {
                let public_key = if *private {
                    module
                        .signing_key_from_pkcs8(regula::Algorithm::Sm2Sign, der)?
                        .public_key_der()?
                } else {
                    der.clone()
                };
                module.verify_sm2_digest(&public_key, &input, &signature)?;
                Ok(Outcome::Accepted)
            });
            Ok(("sm2-sign".into(), outcome))
        }
        // A digest control other than SM3: the two peers differ, and each file says what its
        // library does. Tongsuo refuses the control (`Result = PKEY_CTRL_ERROR`), as Regula's
        // SM2 service does; OpenSSL verifies over e = the digest as an integer modulo n, which
        // a hazmat entry of regula-sm reproduces.
        "Verify" => {
            let digest = digest.unwrap_or_default();
            if stanza
                .get("Result")
                .is_some_and(|result| result.value.eq_ignore_ascii_case("PKEY_CTRL_ERROR"))
            {
                return Ok((
                    "sm2-sign".into(),
                    Outcome::Rejected(format!(
                        "digest control {digest} refused: SM2 signatures hash with SM3 (GB/T 32918.2)"
                    )),
                ));
            }
            let input = bytes(label, stanza, "Input")?;
            let signature = bytes(label, stanza, "Output")?;
            let outcome = attempt(|| {
                module.account(regula::Algorithm::Sm2Sign, regula::Service::Verify)?;
                let Some(public_key) = sm2_public_key(der, *private) else {
                    return Ok(Outcome::Rejected("not an SM2 key".into()));
                };
                let Ok(signature) = regula_sm::sm2::Signature::from_der(&signature) else {
                    return Ok(Outcome::Rejected("malformed signature".into()));
                };
                Ok(
                    match regula_sm::sm2::signature::verify_prehash_for_interop_test(
                        &public_key,
                        &input,
                        &signature,
                    ) {
                        Ok(()) => Outcome::Accepted,
                        Err(error) => Outcome::Rejected(format!(
                            "SM2 over a {digest} digest (e = digest mod n): {error}"
                        )),
                    },
                )
            });
            Ok(("sm2-sign".into(), outcome))
        }
        // Sign over a caller-supplied SM3 digest (EVP_PKEY_sign): k is random, so a signature
        // never equals the file's (the stanza expects `KEYOP_MISMATCH`). Ours is first checked
        // to verify over the same digest, so a wrong signature fails the stanza.
        "Sign" if digest.as_deref().is_none_or(|digest| digest == "SM3") => {
            let input = bytes(label, stanza, "Input")?;
            let expected = optional(label, stanza, "Output")?;
            let outcome = attempt(|| {
                module.account(regula::Algorithm::Sm2Sign, regula::Service::Sign)?;
                let Ok(digest) = <[u8; 32]>::try_from(input.as_slice()) else {
                    return Ok(Outcome::Rejected(format!(
                        "an SM3 digest is 32 bytes; got {}",
                        input.len()
                    )));
                };
                if !*private {
                    return Ok(Outcome::Skip("Sign with a public key".into()));
                }
                let Ok(key) = regula_sm::sm2::PrivateKey::from_pkcs8_der(der) else {
                    return Ok(Outcome::Rejected("not an SM2 private key".into()));
                };
                let mut random = |out: &mut [u8]| {
                    module
                        .fill_random(out)
                        .map(|_| ())
                        .map_err(|_| regula_sm::sm2::Error::Random)
                };
                let signature = match regula_sm::sm2::signature::sign_digest_for_interop_test(
                    &key,
                    &digest,
                    &mut random,
                ) {
                    Ok(signature) => signature,
                    Err(error) => return Ok(Outcome::Rejected(format!("SM2 sign: {error}"))),
                };
                if regula_sm::sm2::verify_digest(key.public_key(), &digest, &signature).is_err() {
                    return Ok(Outcome::WrongOutput(
                        "the signature does not verify over the digest".into(),
                    ));
                }
                Ok(if signature.to_der() == expected {
                    Outcome::Accepted
                } else {
                    Outcome::Rejected("a fresh signature (random k) differs from the file's".into())
                })
            });
            Ok(("sm2-sign".into(), outcome))
        }
        _ => Ok((
            "sm2-sign".into(),
            Outcome::unsupported(format!(
                "SM2 {kind} with digest {}",
                digest.unwrap_or_default()
            )),
        )),
    }
}

/// The NIST curves the module signs on, by the named-curve OID a key's DER carries.
const EC_CURVES: &[(&str, &[u8])] = &[
    (
        "P-256",
        &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07],
    ),
    ("P-384", &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22]),
    ("P-521", &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23]),
];

/// id-ecPublicKey (1.2.840.10045.2.1): the key algorithm of every EC key, SM2's included.
const EC_PUBLIC_KEY_OID: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];

fn contains(der: &[u8], needle: &[u8]) -> bool {
    der.windows(needle.len()).any(|window| window == needle)
}

/// For an `id-ecPublicKey` key of this file that is not SM2: its NIST curve, or `"other"`
/// (explicit parameters, binary curves, secp256k1). `None` for SM2 and non-EC keys, which
/// [`pkey`] judges.
fn ec_curve_of(keys: &[(String, bool, Vec<u8>)], name: &str) -> Option<&'static str> {
    const SM2_CURVE_OID: &[u8] = &[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d];
    // `PrivPubKeyPair = PRIVATE:PUBLIC` names two keys; the first decides.
    let name = name.split(':').next().unwrap_or(name);
    let (_, _, der) = keys.iter().find(|(key, ..)| key == name)?;
    if !contains(der, EC_PUBLIC_KEY_OID) || contains(der, SM2_CURVE_OID) {
        return None;
    }
    Some(
        EC_CURVES
            .iter()
            .find(|(_, oid)| contains(der, oid))
            .map_or("other", |(curve, _)| curve),
    )
}

/// The module's ECDSA scheme for a curve and digest: each curve with its own hash
/// (FIPS 186-5 pairs P-256/SHA-256, P-384/SHA-384, P-521/SHA-512), and P-256 with SHA-1 for
/// verification only.
fn ecdsa_algorithm(curve: &str, digest: &str) -> Option<Algorithm> {
    match (curve, digest.to_ascii_uppercase().replace('-', "").as_str()) {
        ("P-256", "SHA256") => Some(Algorithm::EcdsaP256),
        ("P-384", "SHA384") => Some(Algorithm::EcdsaP384),
        ("P-521", "SHA512") => Some(Algorithm::EcdsaP521),
        ("P-256", "SHA1") => Some(Algorithm::EcdsaP256Sha1),
        _ => None,
    }
}

/// ECDSA stanzas of `evppkey_ecdsa.txt`: `DigestVerify`/`OneShotDigestVerify` (hash and
/// verify a message), `DigestSign` (a fresh signature, random k: it must verify, and it never
/// equals a file's), `PrivPubKeyPair`. `Sign`/`Verify` over a caller-computed digest have no
/// module service for ECDSA and are skipped with that reason.
fn ecdsa(
    module: &Module,
    label: &str,
    stanza: &Stanza,
    kind: &str,
    value: &str,
    keys: &[(String, bool, Vec<u8>)],
) -> Run {
    let key_name = match kind {
        "Verify" | "Sign" | "PrivPubKeyPair" => value.split(':').next().unwrap_or(value),
        _ => stanza.get("Key").map_or("", |field| field.value.as_str()),
    };
    let Some((_, private, der)) = keys.iter().find(|(name, ..)| name == key_name) else {
        return Ok((
            "ecdsa".into(),
            Outcome::Skip(format!("key {key_name} is not defined in this file")),
        ));
    };
    let curve = match ec_curve_of(keys, key_name) {
        Some("other") => "other",
        Some(curve) => curve,
        None => {
            return Ok((
                kind.to_ascii_lowercase(),
                Outcome::unsupported(format!("{kind} with a key that is not ECDSA's")),
            ));
        }
    };
    if curve == "other" {
        // Where OpenSSL's FIPS provider must refuse such a key, show that the module refuses
        // it too: it imports named NIST curves only.
        if stanza.get("Result").is_some() && *private {
            let outcome = attempt(|| {
                module.signing_key_from_pkcs8(Algorithm::EcdsaP256, der)?;
                Ok(Outcome::Accepted)
            });
            return Ok(("ecdsa".into(), outcome));
        }
        return Ok((
            "ecdsa".into(),
            Outcome::unsupported(
                "an EC key on explicit parameters, a binary curve or secp256k1 \
                 (the module takes the named curves P-256, P-384 and P-521)",
            ),
        ));
    }
    if kind == "PrivPubKeyPair" {
        let public_name = value.split(':').nth(1).unwrap_or_default();
        let Some((_, _, public_der)) = keys.iter().find(|(name, ..)| name == public_name) else {
            return Ok((
                "ecdsa".into(),
                Outcome::Skip(format!("key {public_name} is not defined in this file")),
            ));
        };
        let own_hash = match curve {
            "P-256" => "SHA256",
            "P-384" => "SHA384",
            _ => "SHA512",
        };
        let Some(algorithm) = ecdsa_algorithm(curve, own_hash) else {
            return Ok((
                "ecdsa".into(),
                Outcome::unsupported(format!("ECDSA on {curve}")),
            ));
        };
        let outcome = attempt(|| {
            let ours = module
                .signing_key_from_pkcs8(algorithm, der)?
                .public_key_der()?;
            Ok(if &ours == public_der {
                Outcome::Accepted
            } else {
                Outcome::WrongOutput("the private key's public key differs from the file's".into())
            })
        });
        return Ok((algorithm.name().to_string(), outcome));
    }
    let digest = match kind {
        "Verify" | "Sign" => {
            return Ok((
                "ecdsa".into(),
                Outcome::unsupported(format!(
                    "ECDSA {kind} over a caller-computed digest (the module hashes the message itself)"
                )),
            ));
        }
        _ => value,
    };
    let Some(algorithm) = ecdsa_algorithm(curve, digest) else {
        return Ok((
            "ecdsa".into(),
            Outcome::unsupported(format!(
                "ECDSA on {curve} with {digest} (the module pairs each curve with its own hash)"
            )),
        ));
    };
    let input = optional(label, stanza, "Input")?;
    let expected = optional(label, stanza, "Output")?;
    let outcome = if kind == "DigestSign" {
        if algorithm == Algorithm::EcdsaP256Sha1 {
            return Ok((
                algorithm.name().to_string(),
                Outcome::unsupported(
                    "ECDSA signing with SHA-1 (the module verifies SHA-1 signatures only, \
                     as SP 800-131A allows)",
                ),
            ));
        }
        if !*private {
            return Ok((
                algorithm.name().to_string(),
                Outcome::Skip("DigestSign with a public key".into()),
            ));
        }
        // RFC 6979's deterministic k (`NonceType = deterministic`): the module signs with a
        // random k, so the file's signature cannot be reproduced.
        if stanza
            .get("NonceType")
            .is_some_and(|field| field.value.trim() == "deterministic")
        {
            return Ok((
                algorithm.name().to_string(),
                Outcome::unsupported(
                    "deterministic ECDSA signing (RFC 6979, NonceType = deterministic): the \
                     module signs with a random k",
                ),
            ));
        }
        attempt(|| {
            let key = module.signing_key_from_pkcs8(algorithm, der)?.into_value();
            let signature = key.sign(&input)?.into_value();
            if module
                .verify(algorithm, &key.public_key_der()?, &input, &signature)
                .is_err()
            {
                return Ok(Outcome::WrongOutput(
                    "the module's signature does not verify".into(),
                ));
            }
            Ok(if signature == expected {
                Outcome::Accepted
            } else {
                Outcome::Rejected("a fresh signature (random k) differs from the file's".into())
            })
        })
    } else {
        attempt(|| {
            let public_key = if *private {
                module
                    .signing_key_from_pkcs8(algorithm, der)?
                    .public_key_der()?
            } else {
                der.clone()
            };
            module.verify(algorithm, &public_key, &input, &expected)?;
            Ok(Outcome::Accepted)
        })
    };
    Ok((algorithm.name().to_string(), outcome))
}

/// The SM2 public key of a PKCS#8 private key or SubjectPublicKeyInfo (DER).
fn sm2_public_key(der: &[u8], private: bool) -> Option<regula_sm::sm2::PublicKey> {
    if private {
        regula_sm::sm2::PrivateKey::from_pkcs8_der(der)
            .ok()
            .map(|key| *key.public_key())
    } else {
        regula_sm::sm2::PublicKey::from_spki_der(der).ok()
    }
}
