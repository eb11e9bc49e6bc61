//! evp_test `KDF =` stanzas (OpenSSL's `evpkdf_*.txt`): HKDF, TLS13-KDF, TLS1-PRF, PBKDF2 and
//! KBKDF, with their `Ctrl.* = name:value` parameters (`hexname:` for hex), run through the
//! module's public KDF services with OpenSSL's semantics (providers/implementations/kdfs).
//!
//! The KDF row is chosen from OpenSSL's KDF name and its `digest` parameter through the
//! registry's OpenSSL names, as the OpenSSL provider does. What the module does not serve — a
//! digest it has no row for (HKDF with SHA-1, SHAKE), KBKDF with CMAC, in feedback mode or
//! with a counter other than 32 bits, SSHKDF, X9.63 — is a skip with the reason. A stanza
//! that leaves out an input the module's API always takes (no key, no digest) only tests
//! OpenSSL's parameter checks and is skipped too.

use regula::{Algorithm, Family, Module, registry};

use crate::kv;
use crate::tally::{Outcome, attempt};
use crate::{VectorError, evp::Stanza};

/// OpenSSL's EVP_KDF_HKDF_MODE_* names and numbers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HkdfMode {
    ExtractAndExpand,
    ExtractOnly,
    ExpandOnly,
}

/// The parameters of one stanza, as OpenSSL's KDF context would hold them.
#[derive(Default)]
struct Params {
    digest: Option<String>,
    key: Option<Vec<u8>>,
    salt: Option<Vec<u8>>,
    /// `info` (HKDF, KBKDF's context) or `seed` (TLS1-PRF): several lines concatenate.
    info: Vec<u8>,
    mode: Option<String>,
    prefix: Vec<u8>,
    label: Vec<u8>,
    data: Vec<u8>,
    iter: Option<u64>,
    mac: Option<String>,
    cipher: Option<String>,
    use_l: Option<bool>,
    use_separator: Option<bool>,
    r: Option<u64>,
}

/// Parameters that only switch an OpenSSL FIPS provider check off (the derivation is then
/// flagged `Unapproved`) or choose a provider; they do not change the derived bytes.
const INDICATOR_SWITCHES: &[&str] = &[
    "key-check",
    "digest-check",
    "ems_check",
    "pkcs5",
    "properties",
];

/// The outcome of one KDF stanza and the name it is reported under.
pub(crate) struct Derivation {
    pub name: String,
    pub outcome: Outcome,
    /// The module served the derivation as approved (for `Unapproved = 1` stanzas).
    pub approved: Option<bool>,
}

impl Derivation {
    fn new(name: impl Into<String>, outcome: Outcome) -> Derivation {
        Derivation {
            name: name.into(),
            outcome,
            approved: None,
        }
    }
}

/// Runs one `KDF = NAME` stanza.
pub(crate) fn run(
    module: &Module,
    label: &str,
    stanza: &Stanza,
    openssl: &str,
) -> Result<Derivation, VectorError> {
    let upper = openssl.to_ascii_uppercase();
    // OpenSSL 3.6's fixed-digest names: HKDF-SHA256 is HKDF with digest SHA256.
    let (kind, fixed_digest) = match upper.as_str() {
        "HKDF" | "TLS13-KDF" | "TLS1-PRF" | "PBKDF2" | "KBKDF" => (upper.clone(), None),
        _ => match upper.strip_prefix("HKDF-") {
            Some(digest) => ("HKDF".to_string(), Some(digest.to_string())),
            None => {
                return Ok(Derivation::new(
                    openssl.to_ascii_lowercase(),
                    Outcome::not_offered(openssl),
                ));
            }
        },
    };
    let display = kind.to_ascii_lowercase();
    let mut params = match parse_params(label, stanza, &kind)? {
        Ok(params) => params,
        Err(skip) => return Ok(Derivation::new(display, skip)),
    };
    if fixed_digest.is_some() {
        params.digest = fixed_digest;
    }
    // OpenSSL's PBKDF2 defaults to SHA-1.
    if kind == "PBKDF2" && params.digest.is_none() {
        params.digest = Some("SHA1".to_string());
    }
    let expected = match stanza.get("Output") {
        Some(field) => Some(kv::decode(label, field)?),
        None => None,
    };
    if kind == "KBKDF"
        && let Some(skip) = kbkdf_unsupported(&params)
    {
        return Ok(Derivation::new(display, skip));
    }
    let Some(digest_name) = params.digest.clone() else {
        return Ok(Derivation::new(
            display,
            Outcome::unsupported_operation(format!(
                "{kind} with no digest named (the stanza tests OpenSSL's missing-parameter \
                 check; each Regula KDF names its digest)"
            )),
        ));
    };
    let Some(row) = kdf_row(&kind, &digest_name) else {
        return Ok(Derivation::new(
            display,
            Outcome::not_offered(&format!("{kind} with digest {digest_name}")),
        ));
    };
    let name = row.name().to_string();
    let hash_len = registry::entry(row)
        .hash
        .and_then(|digest| registry::entry(digest).sizes.output)
        .unwrap_or(32);
    // Without `Output`, evp_test derives zero bytes, which every KDF refuses: that is what a
    // `KDF_DERIVE_ERROR` stanza without output tests. A `KDF_CTRL_ERROR` one expects its
    // parameters to be refused, so it asks for one hash length and the module must refuse them.
    let derive_error = stanza
        .get("Result")
        .is_some_and(|result| result.value.trim() == "KDF_DERIVE_ERROR");
    let len = match &expected {
        Some(expected) => expected.len(),
        None if derive_error => 0,
        None => hash_len,
    };
    let mode = match hkdf_mode(&kind, params.mode.as_deref()) {
        Ok(mode) => mode,
        Err(skip) => return Ok(Derivation::new(name, skip)),
    };
    if params.key.is_none() && !(kind == "TLS13-KDF" && mode == HkdfMode::ExtractOnly) {
        return Ok(Derivation::new(
            name,
            Outcome::unsupported_operation(format!(
                "{kind} with no key set (the stanza tests OpenSSL's missing-parameter check; \
                 the module's API always takes one)"
            )),
        ));
    }
    let mut approved = None;
    let outcome = attempt(|| {
        let key = params.key.as_deref().unwrap_or_default();
        let (served_approved, output) = match kind.as_str() {
            "HKDF" => derived(match mode {
                HkdfMode::ExtractOnly => {
                    module.hkdf_extract(row, key, params.salt.as_deref().unwrap_or_default())?
                }
                HkdfMode::ExpandOnly => module.hkdf_expand(row, key, &params.info, len)?,
                HkdfMode::ExtractAndExpand => module.hkdf(
                    row,
                    key,
                    params.salt.as_deref().unwrap_or_default(),
                    &params.info,
                    len,
                )?,
            }),
            "TLS13-KDF" => match tls13(module, row, &params, mode, hash_len, len)? {
                Ok(served) => served,
                Err(refusal) => return Ok(refusal),
            },
            "TLS1-PRF" => derived(module.tls12_prf(row, key, &params.info, len)?),
            "PBKDF2" => {
                let iterations = params.iter.unwrap_or(2048);
                let Ok(iterations) = u32::try_from(iterations) else {
                    return Ok(Outcome::unsupported(format!(
                        "PBKDF2 iteration count {iterations} above 2^32 - 1"
                    )));
                };
                let Some(salt) = params.salt.as_deref() else {
                    return Ok(Outcome::unsupported_operation(
                        "PBKDF2 with no salt set (the module's API always takes one)",
                    ));
                };
                derived(module.pbkdf2(row, key, salt, iterations, len)?)
            }
            _ => {
                let fixed_input = kbkdf_fixed_input(&params, len);
                derived(module.kbkdf(row, key, &fixed_input, len)?)
            }
        };
        approved = Some(served_approved);
        Ok(match &expected {
            None => Outcome::Accepted,
            // HKDF's and TLS13-KDF's extract give exactly HashLen bytes; OpenSSL refuses an
            // output buffer of any other size.
            Some(expected) if output.len() != expected.len() => Outcome::Rejected(format!(
                "the derivation gives {} bytes, the stanza asks for {}",
                output.len(),
                expected.len()
            )),
            Some(expected) if output.as_slice() == expected.as_slice() => Outcome::Accepted,
            Some(_) => Outcome::WrongOutput("derived key differs from the vector".to_string()),
        })
    });
    Ok(Derivation {
        name,
        outcome,
        approved,
    })
}

/// `Ctrl.* = name:value` and `CtrlInit = name:value` lines into OpenSSL's parameters; a
/// parameter this runner does not know is a skip naming it.
fn parse_params(
    label: &str,
    stanza: &Stanza,
    kind: &str,
) -> Result<Result<Params, Outcome>, VectorError> {
    let mut params = Params::default();
    for field in &stanza.fields {
        if !field.key.to_ascii_lowercase().starts_with("ctrl") {
            continue;
        }
        let (raw_name, raw_value) = field.value.split_once(':').ok_or_else(|| {
            VectorError::malformed(
                label,
                field.line,
                format!("`{}` is not `name:value`", field.key),
            )
        })?;
        let (name, value) = match raw_name.strip_prefix("hex") {
            Some(name) => (
                name,
                hex::decode(raw_value).map_err(|error| {
                    VectorError::malformed(
                        label,
                        field.line,
                        format!("`{}` is not hex ({error})", field.key),
                    )
                })?,
            ),
            None => (raw_name, raw_value.as_bytes().to_vec()),
        };
        let text = || String::from_utf8_lossy(&value).into_owned();
        let number = || {
            text().parse::<u64>().map_err(|_| {
                VectorError::malformed(
                    label,
                    field.line,
                    format!("parameter `{name}` is not a number"),
                )
            })
        };
        match (kind, name) {
            (_, name) if INDICATOR_SWITCHES.contains(&name) => {}
            (_, "digest") => params.digest = Some(text()),
            ("TLS1-PRF", "secret") | ("PBKDF2", "pass") | (_, "key") => {
                params.key = Some(value);
            }
            ("HKDF" | "TLS13-KDF" | "PBKDF2" | "KBKDF", "salt") => params.salt = Some(value),
            ("HKDF" | "KBKDF", "info") | ("TLS1-PRF", "seed") => params.info.extend(value),
            ("HKDF" | "TLS13-KDF" | "KBKDF", "mode") => params.mode = Some(text()),
            ("TLS13-KDF", "prefix") => params.prefix = value,
            ("TLS13-KDF", "label") => params.label = value,
            ("TLS13-KDF", "data") => params.data = value,
            ("PBKDF2", "iter") => params.iter = Some(number()?),
            ("KBKDF", "mac") => params.mac = Some(text()),
            ("KBKDF", "cipher") => params.cipher = Some(text()),
            ("KBKDF", "use-l") => params.use_l = Some(number()? != 0),
            ("KBKDF", "use-separator") => params.use_separator = Some(number()? != 0),
            ("KBKDF", "r") => params.r = Some(number()?),
            // The feedback-mode IV: counter mode ignores it, as OpenSSL does.
            ("KBKDF", "seed") => {}
            (kind, name) => {
                return Ok(Err(Outcome::unsupported(format!(
                    "{kind} parameter `{name}`"
                ))));
            }
        }
    }
    Ok(Ok(params))
}

/// What of an OpenSSL KBKDF the module's counter-mode HMAC KBKDF cannot express.
fn kbkdf_unsupported(params: &Params) -> Option<Outcome> {
    if let Some(mode) = &params.mode
        && !mode.eq_ignore_ascii_case("counter")
    {
        return Some(Outcome::unsupported(format!("KBKDF {mode} mode")));
    }
    match params.mac.as_deref() {
        Some(mac) if mac.eq_ignore_ascii_case("HMAC") => {}
        Some(mac) => {
            let with = params
                .cipher
                .as_deref()
                .map_or(String::new(), |cipher| format!("-{cipher}"));
            return Some(Outcome::not_offered(&format!("KBKDF with {mac}{with}")));
        }
        None => {
            return Some(Outcome::unsupported_operation(
                "KBKDF with no mac named (the stanza tests OpenSSL's missing-parameter check)",
            ));
        }
    }
    match params.r {
        None | Some(32) => None,
        Some(r) => Some(Outcome::unsupported(format!(
            "KBKDF with an {r}-bit counter"
        ))),
    }
}

/// SP 800-108r1 §4.1's fixed input after the counter, as OpenSSL's kbkdf.c lays it out:
/// label (`salt`) ‖ [0x00] ‖ context (`info`) ‖ [[L]₃₂].
fn kbkdf_fixed_input(params: &Params, len: usize) -> Vec<u8> {
    let mut fixed_input = params.salt.clone().unwrap_or_default();
    if params.use_separator.unwrap_or(true) {
        fixed_input.push(0);
    }
    fixed_input.extend_from_slice(&params.info);
    if params.use_l.unwrap_or(true) {
        let bits = u32::try_from(len.saturating_mul(8)).unwrap_or(u32::MAX);
        fixed_input.extend_from_slice(&bits.to_be_bytes());
    }
    fixed_input
}

fn hkdf_mode(kind: &str, mode: Option<&str>) -> Result<HkdfMode, Outcome> {
    let mode = match mode.map(str::to_ascii_uppercase).as_deref() {
        None | Some("EXTRACT_AND_EXPAND" | "0") => HkdfMode::ExtractAndExpand,
        Some("EXTRACT_ONLY" | "1") => HkdfMode::ExtractOnly,
        Some("EXPAND_ONLY" | "2") => HkdfMode::ExpandOnly,
        // KBKDF's mode (counter, feedback) is judged elsewhere.
        Some(_) if kind == "KBKDF" => HkdfMode::ExtractAndExpand,
        Some(other) => return Err(Outcome::unsupported(format!("{kind} mode {other}"))),
    };
    if kind == "TLS13-KDF" && mode == HkdfMode::ExtractAndExpand {
        // RFC 8446 §7.1 has an extract step and HKDF-Expand-Label, nothing that does both.
        return Err(Outcome::unsupported(
            "TLS13-KDF in EXTRACT_AND_EXPAND mode (RFC 8446 §7.1 defines extract and \
             expand-label steps only)",
        ));
    }
    Ok(mode)
}

/// RFC 8446 §7.1's HkdfLabel: length ‖ ⟨prefix ‖ label⟩₈ ‖ ⟨context⟩₈; `None` when a field
/// does not fit its length byte.
fn hkdf_label(len: usize, prefix: &[u8], label: &[u8], data: &[u8]) -> Option<Vec<u8>> {
    let length = u16::try_from(len).ok()?;
    let label_len = u8::try_from(prefix.len() + label.len()).ok()?;
    let data_len = u8::try_from(data.len()).ok()?;
    let mut encoded = Vec::with_capacity(4 + prefix.len() + label.len() + data.len());
    encoded.extend_from_slice(&length.to_be_bytes());
    encoded.push(label_len);
    encoded.extend_from_slice(prefix);
    encoded.extend_from_slice(label);
    encoded.push(data_len);
    encoded.extend_from_slice(data);
    Some(encoded)
}

/// What a served derivation gave: whether the indicator said approved, and the bytes.
type Derived = (bool, Vec<u8>);

fn derived<T: std::ops::Deref<Target = Vec<u8>>>(served: regula::Served<T>) -> Derived {
    let approved = served.is_approved();
    (approved, served.into_value().to_vec())
}

/// OpenSSL's TLS13-KDF over the module's HKDF: `EXPAND_ONLY` is HKDF-Expand-Label(key,
/// prefix ‖ label, data, L); `EXTRACT_ONLY` is HKDF-Extract(salt = Derive-Secret(salt,
/// prefix ‖ label, "") or zeros, IKM = key or zeros), as prov_tls13_hkdf_generate_secret.
fn tls13(
    module: &Module,
    row: Algorithm,
    params: &Params,
    mode: HkdfMode,
    hash_len: usize,
    len: usize,
) -> Result<Result<Derived, Outcome>, regula::Error> {
    let too_long = || Outcome::Rejected("TLS13-KDF label fields exceed their length bytes".into());
    if mode == HkdfMode::ExpandOnly {
        let secret = params.key.as_deref().unwrap_or_default();
        let Some(info) = hkdf_label(len, &params.prefix, &params.label, &params.data) else {
            return Ok(Err(too_long()));
        };
        return Ok(Ok(derived(module.hkdf_expand(row, secret, &info, len)?)));
    }
    let zeros = vec![0u8; hash_len];
    let secret = params.key.clone().unwrap_or_else(|| zeros.clone());
    let previous = match &params.salt {
        None => zeros,
        Some(salt) => {
            let digest = registry::entry(row).hash.unwrap_or(Algorithm::Sha256);
            let empty_hash = module.digest(digest, b"")?.into_value();
            let Some(info) = hkdf_label(hash_len, &params.prefix, &params.label, &empty_hash)
            else {
                return Ok(Err(too_long()));
            };
            module
                .hkdf_expand(row, salt, &info, hash_len)?
                .into_value()
                .to_vec()
        }
    };
    Ok(Ok(derived(module.hkdf_extract(row, &secret, &previous)?)))
}

/// The KDF row serving OpenSSL's `kind` over the digest OpenSSL calls `digest`: the registry
/// row of family KDF whose OpenSSL name is the KDF's (TLS13-KDF runs on HKDF's rows) and whose
/// hash is that digest. The fscrypt row shares HKDF's name but serves the kernel only.
fn kdf_row(kind: &str, digest: &str) -> Option<Algorithm> {
    let digest = digest_row(digest)?;
    let row_name = if kind == "TLS13-KDF" { "HKDF" } else { kind };
    Algorithm::ALL.into_iter().find(|&algorithm| {
        let entry = registry::entry(algorithm);
        algorithm != Algorithm::FscryptHkdfSha512
            && entry.family == Family::Kdf
            && entry.hash == Some(digest)
            && entry
                .openssl
                .as_ref()
                .is_some_and(|name| name.canonical().eq_ignore_ascii_case(row_name))
    })
}

/// The digest row OpenSSL names `name` (`SHA256`, `SHA2-256`, `sha1`).
fn digest_row(name: &str) -> Option<Algorithm> {
    crate::evp::row_by_openssl_name(Family::Digest, name)
}
