//! The token configuration: a TOML file named by `REGULA_PKCS11_CONF` (default
//! [`DEFAULT_CONF`]) with one `[[token]]` table per slot.
//!
//! ```toml
//! [[token]]
//! label = "regula-fips"
//! policy = "fips-140-3"        # a built-in profile name or a policy file path
//! storage = "/var/lib/regula/pkcs11/fips.db"
//! max_pin_attempts = 10          # optional: failed logins before the PIN locks
//! pbkdf2_iterations = 100000     # optional: PBKDF2 rounds deriving the PIN keys
//! ```
//!
//! The file holds no secret, so its errors can be shown in full.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The environment variable naming the configuration file.
pub const CONF_ENV: &str = "REGULA_PKCS11_CONF";

/// Where the configuration is read from when [`CONF_ENV`] is not set.
pub const DEFAULT_CONF: &str = "/etc/regula/pkcs11.toml";

/// The longest token label PKCS#11 can show (`CK_TOKEN_INFO.label`).
const LABEL_MAX: usize = 32;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub token: Vec<TokenConfig>,
}

/// One `[[token]]`: one slot.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    pub label: String,
    /// A built-in profile name (`default`, `fips-140-3`, `gm`, `cnsa-2.0`) or a policy file.
    pub policy: String,
    /// The token's SQLite database (created with its directory when missing).
    pub storage: PathBuf,
    /// Consecutive failed logins after which a PIN is locked ([`DEFAULT_MAX_PIN_ATTEMPTS`]).
    #[serde(default = "default_max_pin_attempts")]
    pub max_pin_attempts: u32,
    /// PBKDF2 iterations for the keys derived from the PINs ([`DEFAULT_PBKDF2_ITERATIONS`]; at
    /// least [`MIN_PBKDF2_ITERATIONS`], SP 800-132 §5.2). A wrap keeps the count it was made
    /// with, so a change applies from the next PIN change.
    #[serde(default = "default_pbkdf2_iterations")]
    pub pbkdf2_iterations: u32,
}

/// Failed logins before a PIN locks, when the configuration does not say.
pub const DEFAULT_MAX_PIN_ATTEMPTS: u32 = 10;
/// PBKDF2 iterations, when the configuration does not say.
pub const DEFAULT_PBKDF2_ITERATIONS: u32 = 100_000;
/// SP 800-132 §5.2's minimum, which `fips-140-3` enforces.
pub const MIN_PBKDF2_ITERATIONS: u32 = 1000;

fn default_max_pin_attempts() -> u32 {
    DEFAULT_MAX_PIN_ATTEMPTS
}

fn default_pbkdf2_iterations() -> u32 {
    DEFAULT_PBKDF2_ITERATIONS
}

/// Why the configuration could not be used.
#[derive(Debug)]
pub struct ConfigError {
    pub path: PathBuf,
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "regula-pkcs11: configuration {}: {} (the file is named by {CONF_ENV}, default {DEFAULT_CONF})",
            self.path.display(),
            self.reason
        )
    }
}

/// The configuration file's path: `REGULA_PKCS11_CONF`, else [`DEFAULT_CONF`].
pub fn path() -> PathBuf {
    std::env::var_os(CONF_ENV)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_CONF))
}

/// Reads and checks the file at `path`.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let fail = |reason: String| ConfigError {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|error| fail(error.to_string()))?;
    parse(&text).map_err(fail)
}

/// Parses and checks a configuration's text.
pub fn parse(text: &str) -> Result<Config, String> {
    let config: Config = toml::from_str(text).map_err(|error| error.message().to_string())?;
    if config.token.is_empty() {
        return Err("no [[token]] entry".into());
    }
    for (index, token) in config.token.iter().enumerate() {
        if token.label.is_empty() || token.label.len() > LABEL_MAX {
            return Err(format!(
                "token {}: label must be 1 to {LABEL_MAX} bytes, got {}",
                index + 1,
                token.label.len()
            ));
        }
        if config.token[..index]
            .iter()
            .any(|other| other.label == token.label)
        {
            return Err(format!("token label `{}` is used twice", token.label));
        }
        if token.policy.is_empty() {
            return Err(format!("token `{}`: empty policy", token.label));
        }
        if !(1..=100).contains(&token.max_pin_attempts) {
            return Err(format!(
                "token `{}`: max_pin_attempts must be 1 to 100, got {}",
                token.label, token.max_pin_attempts
            ));
        }
        if token.pbkdf2_iterations < MIN_PBKDF2_ITERATIONS {
            return Err(format!(
                "token `{}`: pbkdf2_iterations must be at least {MIN_PBKDF2_ITERATIONS} \
                 (SP 800-132), got {}",
                token.label, token.pbkdf2_iterations
            ));
        }
        if config.token[..index]
            .iter()
            .any(|other| other.storage == token.storage)
        {
            return Err(format!(
                "token `{}`: storage {} is another token's",
                token.label,
                token.storage.display()
            ));
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_configuration_is_an_error_with_its_reason() {
        assert!(parse("").unwrap_err().contains("token"));
        let unknown = "[[token]]\nlabel='a'\npolicy='default'\nstorage='/x'\npin='1234'\n";
        assert!(parse(unknown).unwrap_err().contains("pin"));
        let twice = "[[token]]\nlabel='a'\npolicy='default'\nstorage='/x'\n\
                     [[token]]\nlabel='a'\npolicy='gm'\nstorage='/y'\n";
        assert!(parse(twice).unwrap_err().contains("twice"));
        let long = format!(
            "[[token]]\nlabel='{}'\npolicy='default'\nstorage='/x'\n",
            "x".repeat(33)
        );
        assert!(parse(&long).unwrap_err().contains("label"));
        let good = "[[token]]\nlabel='a'\npolicy='default'\nstorage='/x'\n";
        let parsed = parse(good).unwrap();
        assert_eq!(parsed.token[0].policy, "default");
        assert_eq!(parsed.token[0].max_pin_attempts, DEFAULT_MAX_PIN_ATTEMPTS);
        let few = format!("{good}pbkdf2_iterations = 999\n");
        assert!(parse(&few).unwrap_err().contains("pbkdf2_iterations"));
        let none = format!("{good}max_pin_attempts = 0\n");
        assert!(parse(&none).unwrap_err().contains("max_pin_attempts"));
        let shared = "[[token]]\nlabel='a'\npolicy='default'\nstorage='/x'\n\
                      [[token]]\nlabel='b'\npolicy='gm'\nstorage='/x'\n";
        assert!(parse(shared).unwrap_err().contains("storage"));
    }
}
