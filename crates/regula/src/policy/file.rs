//! User policy files: TOML that narrows a built-in profile.
//!
//! ```toml
//! base = "fips-140-3"          # required: the profile to narrow
//! name = "payments"            # optional: shown in the indicator and in errors
//! mode = "permissive"          # optional: "strict" or "permissive" (default: the base's)
//! allow = ["aes-256-gcm", "sha256", "ecdsa-p256"]   # optional: offer only these
//! deny = ["sha1"]              # optional: never offer these
//!
//! [limits.rsa-pss-sha256]      # optional: tighten an algorithm's limits
//! min_key_bits = 3072
//!
//! [tls]                        # optional: narrow the TLS protocol rules
//! versions = ["1.3"]           # a subset of the base's versions
//! require_extended_master_secret = true
//! ```
//!
//! A file can only narrow: it can remove algorithms and tighten limits, never approve what the
//! base profile does not. Choosing `permissive` serves non-approved algorithms but the service
//! indicator still reports them as not approved, so approval itself is never widened.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::profile::{Mode, Profile};
use super::resolved::Policy;
use super::rules::{Limits, Status};
use crate::algorithm::Algorithm;

/// A policy that could not be loaded, with the place in the file where that was noticed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyFileError {
    /// The file path, or the name that was neither a profile nor a file.
    pub origin: String,
    /// 1-based line and column, when the problem has a place.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for PolicyFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => {
                write!(f, "{}:{line}:{column}: {}", self.origin, self.message)
            }
            (Some(line), None) => write!(f, "{}:{line}: {}", self.origin, self.message),
            _ => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for PolicyFileError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    base: Spanned<String>,
    name: Option<Spanned<String>>,
    mode: Option<Spanned<String>>,
    allow: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    deny: Vec<Spanned<String>>,
    #[serde(default)]
    limits: BTreeMap<String, Spanned<LimitsFile>>,
    tls: Option<Spanned<TlsFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TlsFile {
    versions: Option<Vec<Spanned<String>>>,
    require_extended_master_secret: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    min_key_bits: Option<u32>,
    max_key_bits: Option<u32>,
    caller_nonce_approved: Option<bool>,
    min_secret_bytes: Option<u32>,
    min_salt_bytes: Option<u32>,
    min_info_bytes: Option<u32>,
    min_iterations: Option<u32>,
    min_output_bytes: Option<u32>,
}

/// Reads and resolves a policy file.
pub fn load(path: &Path) -> Result<Policy, PolicyFileError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| PolicyFileError {
        origin: origin.clone(),
        line: None,
        column: None,
        message: if error.kind() == std::io::ErrorKind::NotFound {
            format!(
                "no such built-in profile or policy file (built-in profiles: {})",
                Profile::ALL.map(Profile::name).join(", ")
            )
        } else {
            format!("cannot read policy file: {error}")
        },
    })?;
    parse(&text, &origin)
}

/// Resolves policy-file text; `origin` names it in errors and in the policy's origin.
pub fn parse(text: &str, origin: &str) -> Result<Policy, PolicyFileError> {
    let error_at = |span: Option<Range<usize>>, message: String| {
        let (line, column) = match span {
            Some(span) => {
                let (line, column) = line_and_column(text, span.start);
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        PolicyFileError {
            origin: origin.to_string(),
            line,
            column,
            message,
        }
    };

    let file: PolicyFile = toml::from_str(text)
        .map_err(|error| error_at(error.span(), error.message().to_string()))?;

    let profile = Profile::from_name(file.base.get_ref()).ok_or_else(|| {
        error_at(
            Some(file.base.span()),
            format!(
                "unknown base profile `{}` (expected one of: {})",
                file.base.get_ref(),
                Profile::ALL.map(Profile::name).join(", ")
            ),
        )
    })?;
    let mut policy = Policy::builtin(profile);
    policy.origin = origin.to_string();
    policy.name = match file.name {
        // Indicators carry the policy name; a file must not pass itself off as a built-in.
        Some(name) if Profile::from_name(name.get_ref()).is_some() => {
            return Err(error_at(
                Some(name.span()),
                format!(
                    "name `{}` is a built-in profile's; choose another name",
                    name.get_ref()
                ),
            ));
        }
        Some(name) => name.into_inner(),
        None => format!("{origin} (based on {profile})"),
    };

    if let Some(mode) = &file.mode {
        policy.mode = match mode.get_ref().as_str() {
            "strict" => Mode::Strict,
            "permissive" => Mode::Permissive,
            other => {
                return Err(error_at(
                    Some(mode.span()),
                    format!("unknown mode `{other}` (expected `strict` or `permissive`)"),
                ));
            }
        };
    }

    let algorithm_named = |name: &Spanned<String>| {
        Algorithm::from_name(name.get_ref()).ok_or_else(|| {
            error_at(
                Some(name.span()),
                format!("unknown algorithm `{}`", name.get_ref()),
            )
        })
    };

    if let Some(allow) = &file.allow {
        let allowed = allow
            .iter()
            .map(algorithm_named)
            .collect::<Result<Vec<_>, _>>()?;
        for algorithm in Algorithm::ALL {
            if !allowed.contains(&algorithm) {
                policy.rules[algorithm.index()].status = Status::Excluded;
            }
        }
    }
    for name in &file.deny {
        let algorithm = algorithm_named(name)?;
        policy.rules[algorithm.index()].status = Status::Excluded;
    }

    for (name, limits) in &file.limits {
        let algorithm = Algorithm::from_name(name).ok_or_else(|| {
            error_at(
                Some(limits.span()),
                format!("unknown algorithm `{name}` in [limits.{name}]"),
            )
        })?;
        let rule = &mut policy.rules[algorithm.index()];
        rule.limits = narrow(rule.limits, limits.get_ref()).map_err(|message| {
            error_at(Some(limits.span()), format!("[limits.{name}]: {message}"))
        })?;
    }

    if let Some(tls) = &file.tls {
        let base = policy.tls;
        if let Some(versions) = &tls.get_ref().versions {
            policy.tls.tls12 = false;
            policy.tls.tls13 = false;
            for version in versions {
                let (offered_by_base, slot) = match version.get_ref().as_str() {
                    "1.2" => (base.tls12, &mut policy.tls.tls12),
                    "1.3" => (base.tls13, &mut policy.tls.tls13),
                    other => {
                        return Err(error_at(
                            Some(version.span()),
                            format!("unknown TLS version `{other}` (expected \"1.2\" or \"1.3\")"),
                        ));
                    }
                };
                if !offered_by_base {
                    return Err(error_at(
                        Some(version.span()),
                        format!(
                            "TLS {} would widen the base profile, which offers only TLS {}",
                            version.get_ref(),
                            base.versions().join(" and ")
                        ),
                    ));
                }
                *slot = true;
            }
            if !policy.tls.tls12 && !policy.tls.tls13 {
                return Err(error_at(
                    Some(tls.span()),
                    "[tls] versions is empty: no TLS version would be left".to_string(),
                ));
            }
        }
        match tls.get_ref().require_extended_master_secret {
            Some(false) if base.require_extended_master_secret => {
                return Err(error_at(
                    Some(tls.span()),
                    "require_extended_master_secret = false would loosen the base profile"
                        .to_string(),
                ));
            }
            Some(value) => policy.tls.require_extended_master_secret = value,
            None => {}
        }
    }
    Ok(policy)
}

/// Applies a file's limits on top of the base's, refusing any that would loosen them.
fn narrow(base: Limits, file: &LimitsFile) -> Result<Limits, String> {
    let LimitsFile {
        min_key_bits,
        max_key_bits,
        caller_nonce_approved,
        min_secret_bytes,
        min_salt_bytes,
        min_info_bytes,
        min_iterations,
        min_output_bytes,
    } = *file;
    fn raise(field: &str, base: Option<u32>, file: Option<u32>) -> Result<Option<u32>, String> {
        match (base, file) {
            (Some(base), Some(file)) if file < base => Err(format!(
                "{field} = {file} would loosen the base profile's {field} = {base}"
            )),
            (_, Some(file)) => Ok(Some(file)),
            (base, None) => Ok(base),
        }
    }
    let max_key_bits = match (base.max_key_bits, max_key_bits) {
        (Some(base), Some(file)) if file > base => {
            return Err(format!(
                "max_key_bits = {file} would loosen the base profile's max_key_bits = {base}"
            ));
        }
        (_, Some(file)) => Some(file),
        (base, None) => base,
    };
    let caller_nonce_approved = match caller_nonce_approved {
        Some(true) if !base.caller_nonce_approved => {
            return Err("caller_nonce_approved = true would loosen the base profile".to_string());
        }
        Some(value) => value,
        None => base.caller_nonce_approved,
    };
    Ok(Limits {
        min_key_bits: raise("min_key_bits", base.min_key_bits, min_key_bits)?,
        max_key_bits,
        caller_nonce_approved,
        min_secret_bytes: raise("min_secret_bytes", base.min_secret_bytes, min_secret_bytes)?,
        min_salt_bytes: raise("min_salt_bytes", base.min_salt_bytes, min_salt_bytes)?,
        min_info_bytes: raise("min_info_bytes", base.min_info_bytes, min_info_bytes)?,
        min_iterations: raise("min_iterations", base.min_iterations, min_iterations)?,
        min_output_bytes: raise("min_output_bytes", base.min_output_bytes, min_output_bytes)?,
        // These two cannot be loosened, so a file does not set them.
        signing_approved: base.signing_approved,
        extended_master_secret_only: base.extended_master_secret_only,
    })
}

/// 1-based line and column (in characters) of a byte offset.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    (line, before[line_start..].chars().count() + 1)
}

impl Policy {
    /// A built-in profile by name, or else a TOML policy file at that path.
    pub fn load(name_or_path: &str) -> Result<Policy, PolicyFileError> {
        match Profile::from_name(name_or_path) {
            Some(profile) => Ok(Policy::builtin(profile)),
            None => load(Path::new(name_or_path)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Approval, Usage};

    #[test]
    fn narrows_a_profile() {
        let policy = parse(
            "base = \"fips-140-3\"\nname = \"payments\"\nallow = [\"aes-256-gcm\", \"sha256\", \
             \"rsa-pss-sha256\"]\n[limits.rsa-pss-sha256]\nmin_key_bits = 3072\n",
            "payments.toml",
        )
        .unwrap();
        assert_eq!(policy.name(), "payments");
        assert_eq!(policy.mode(), Mode::Strict);
        assert!(policy.serves(Algorithm::Sha256));
        assert!(!policy.serves(Algorithm::Sha384));
        let small_key = Usage {
            key_bits: Some(2048),
            ..Usage::default()
        };
        assert!(
            policy
                .evaluate(Algorithm::RsaPssSha256, &small_key)
                .is_err()
        );
        let big_key = Usage {
            key_bits: Some(3072),
            ..Usage::default()
        };
        assert_eq!(
            policy.evaluate(Algorithm::RsaPssSha256, &big_key),
            Ok(Approval::Approved)
        );
    }

    #[test]
    fn tls_section_narrows_versions_and_never_widens() {
        let only_13 = parse(
            "base = \"fips-140-3\"\n[tls]\nversions = [\"1.3\"]\n",
            "t.toml",
        )
        .unwrap();
        assert!(!only_13.tls().tls12 && only_13.tls().tls13);
        assert!(only_13.tls().require_extended_master_secret);

        let widen = parse("base = \"gm\"\n[tls]\nversions = [\"1.2\"]\n", "t.toml").unwrap_err();
        assert_eq!((widen.line, widen.column), (Some(3), Some(13)));
        assert!(widen.message.contains("would widen"), "{}", widen.message);

        let loosen = parse(
            "base = \"fips-140-3\"\n[tls]\nrequire_extended_master_secret = false\n",
            "t.toml",
        )
        .unwrap_err();
        assert!(loosen.message.contains("loosen"), "{}", loosen.message);

        let empty = parse("base = \"default\"\n[tls]\nversions = []\n", "t.toml").unwrap_err();
        assert!(
            empty.message.contains("no TLS version"),
            "{}",
            empty.message
        );

        let unknown = parse(
            "base = \"default\"\n[tls]\nversions = [\"1.1\"]\n",
            "t.toml",
        )
        .unwrap_err();
        assert!(
            unknown.message.contains("unknown TLS version `1.1`"),
            "{}",
            unknown.message
        );
    }

    #[test]
    fn permissive_serves_but_never_approves_more() {
        let policy = parse("base = \"fips-140-3\"\nmode = \"permissive\"\n", "p.toml").unwrap();
        assert_eq!(
            policy.evaluate(Algorithm::Md5, &Usage::default()),
            Ok(Approval::NotApproved)
        );
        assert_eq!(
            policy.evaluate(Algorithm::Sha256, &Usage::default()),
            Ok(Approval::Approved)
        );
    }

    #[test]
    fn denied_algorithms_are_refused_even_when_permissive() {
        let policy = parse(
            "base = \"default\"\nmode = \"permissive\"\ndeny = [\"sha1\"]\n",
            "p.toml",
        )
        .unwrap();
        assert!(policy.evaluate(Algorithm::Sha1, &Usage::default()).is_err());
    }

    #[test]
    fn errors_point_at_the_line() {
        let error = parse(
            "base = \"fips-140-3\"\n\nallow = [\"sha-256\"]\n",
            "bad.toml",
        )
        .unwrap_err();
        assert_eq!(error.line, Some(3));
        assert!(error.to_string().starts_with("bad.toml:3:"), "{error}");
        assert!(error.message.contains("unknown algorithm `sha-256`"));

        let error = parse("base = \"fips\"\n", "bad.toml").unwrap_err();
        assert_eq!(error.line, Some(1));
        assert!(error.message.contains("unknown base profile"));

        let error = parse("base = \"gm\"\nstrictness = 1\n", "bad.toml").unwrap_err();
        assert_eq!(error.line, Some(2));

        let error = parse("base = \"gm\"\nallow = [\n", "bad.toml").unwrap_err();
        assert!(error.line.is_some(), "{error}");

        let error = parse("mode = \"strict\"\n", "bad.toml").unwrap_err();
        assert!(error.message.contains("base"), "{error}");
    }

    #[test]
    fn a_file_cannot_take_a_built_in_name() {
        let error = parse("base = \"default\"\nname = \"fips-140-3\"\n", "p.toml").unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(error.message.contains("built-in profile"), "{error}");
    }

    #[test]
    fn limits_cannot_be_loosened() {
        let error = parse(
            "base = \"fips-140-3\"\n[limits.rsa-pkcs1-sha256]\nmin_key_bits = 1024\n",
            "bad.toml",
        )
        .unwrap_err();
        assert_eq!(error.line, Some(2), "{error}"); // the table header
        assert!(error.message.contains("would loosen"), "{error}");

        let error = parse(
            "base = \"fips-140-3\"\n[limits.aes-256-gcm]\ncaller_nonce_approved = true\n",
            "bad.toml",
        )
        .unwrap_err();
        assert!(error.message.contains("would loosen"), "{error}");
    }
}
