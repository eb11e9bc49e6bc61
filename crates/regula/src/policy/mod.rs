//! Policies: which algorithms a profile approves, within which limits, and what happens to the
//! rest.
//!
//! The rules themselves are data in [`crate::registry::REGISTRY`] (one row per algorithm, one
//! column per built-in profile). A [`Policy`] is a profile resolved into a table, possibly
//! narrowed by a user's TOML file (see [`file`]).

pub mod file;
pub mod protocols;
pub mod tls;

use std::fmt;
use std::path::Path;

use serde::Serialize;

use crate::algorithm::Algorithm;
use crate::error::Error;
use crate::registry;

pub use file::PolicyFileError;
pub use tls::TlsRules;

/// The built-in rulebooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum Profile {
    /// Everything the module implements; legacy algorithms are served but not approved.
    #[serde(rename = "default")]
    Default,
    /// FIPS 140-3: SP 800-140C/D approved security functions only.
    #[serde(rename = "fips-140-3")]
    Fips1403,
    /// Chinese commercial cryptography (GM/T): SM2, SM3, SM4.
    #[serde(rename = "gm")]
    Gm,
}

impl Profile {
    pub const ALL: [Profile; 3] = [Profile::Default, Profile::Fips1403, Profile::Gm];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Fips1403 => "fips-140-3",
            Profile::Gm => "gm",
        }
    }

    /// One line about the profile; listings append what it approves from the registry
    /// ([`Profile::approved_names`]), so they cannot go stale.
    pub fn description(self) -> &'static str {
        match self {
            Profile::Default => {
                "everything Regula implements; legacy algorithms served but marked not approved"
            }
            Profile::Fips1403 => {
                "FIPS 140-3: only SP 800-140C/D approved functions, within their limits"
            }
            Profile::Gm => "GM/T commercial cryptography",
        }
    }

    /// The registry names of every algorithm this profile approves, in registry order.
    pub fn approved_names(self) -> Vec<&'static str> {
        let policy = Policy::builtin(self);
        Algorithm::ALL
            .iter()
            .filter(|&&algorithm| matches!(policy.rule(algorithm).status, Status::Approved))
            .map(|algorithm| algorithm.name())
            .collect()
    }

    /// Built-in profiles that refuse non-approved services rather than serve them flagged.
    pub fn default_mode(self) -> Mode {
        match self {
            Profile::Default => Mode::Permissive,
            Profile::Fips1403 | Profile::Gm => Mode::Strict,
        }
    }

    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL
            .into_iter()
            .find(|profile| profile.name() == name)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a policy does with a service it does not approve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Refuse it with [`Error::NotApproved`].
    Strict,
    /// Serve it; the service indicator says "not approved".
    Permissive,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Strict => "strict",
            Mode::Permissive => "permissive",
        }
    }
}

/// A profile's verdict on one algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Approved, as long as the [`Limits`] hold.
    Approved,
    /// Not approved: refused by a strict policy, served and flagged by a permissive one.
    NotApproved {
        reason: &'static str,
        alternative: Option<&'static str>,
    },
    /// Removed by a policy file: never served, whatever the mode.
    Excluded,
}

/// Conditions under which an approved algorithm stays approved. `None` means no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    pub min_key_bits: Option<u32>,
    pub max_key_bits: Option<u32>,
    /// May the caller choose the nonce/IV when encrypting? (FIPS: no for AES-GCM, IG C.H.)
    pub caller_nonce_approved: bool,
    /// Minimum length of a secret key, IKM or password, in bytes.
    pub min_secret_bytes: Option<u32>,
    pub min_salt_bytes: Option<u32>,
    pub min_iterations: Option<u32>,
    pub min_output_bytes: Option<u32>,
    /// May keys of this algorithm create signatures? (SHA-1 signatures: verification only.)
    pub signing_approved: bool,
    /// The last day (`YYYY-MM-DD`, UTC) on which the algorithm stays approved, where a rule has
    /// a dated end (NIST's SHA-1 transition).
    pub approved_until: Option<&'static str>,
}

impl Limits {
    /// No limits at all.
    pub const NONE: Limits = Limits {
        min_key_bits: None,
        max_key_bits: None,
        caller_nonce_approved: true,
        min_secret_bytes: None,
        min_salt_bytes: None,
        min_iterations: None,
        min_output_bytes: None,
        signing_approved: true,
        approved_until: None,
    };

    /// Checks a request against the limits; the error is the reason it falls outside them.
    pub fn check(&self, usage: &Usage) -> Result<(), String> {
        let Limits {
            min_key_bits,
            max_key_bits,
            caller_nonce_approved,
            min_secret_bytes,
            min_salt_bytes,
            min_iterations,
            min_output_bytes,
            signing_approved,
            approved_until,
        } = *self;
        fn at_least(
            what: &str,
            unit: &str,
            actual: Option<u32>,
            min: Option<u32>,
        ) -> Result<(), String> {
            match (actual, min) {
                (Some(actual), Some(min)) if actual < min => Err(format!(
                    "{what} of {actual} {unit} is below the minimum of {min} {unit}"
                )),
                _ => Ok(()),
            }
        }
        at_least("key", "bits", usage.key_bits, min_key_bits)?;
        if let (Some(actual), Some(max)) = (usage.key_bits, max_key_bits)
            && actual > max
        {
            return Err(format!(
                "key of {actual} bits is above the maximum of {max} bits"
            ));
        }
        if usage.caller_nonce && !caller_nonce_approved {
            return Err(
                "a caller-supplied nonce/IV is not approved; let the module generate it"
                    .to_string(),
            );
        }
        at_least("secret", "bytes", usage.secret_bytes, min_secret_bytes)?;
        at_least("salt", "bytes", usage.salt_bytes, min_salt_bytes)?;
        at_least(
            "iteration count",
            "iterations",
            usage.iterations,
            min_iterations,
        )?;
        at_least("output", "bytes", usage.output_bytes, min_output_bytes)?;
        if usage.signing && !signing_approved {
            return Err(
                "signature generation is disallowed (SP 800-131A Rev. 2 §9); only verifying \
                 existing signatures is allowed"
                    .to_string(),
            );
        }
        if let Some(until) = approved_until
            && today_utc().as_str() > until
        {
            return Err(format!("approved only until {until}"));
        }
        Ok(())
    }
}

/// Today's date as `YYYY-MM-DD` (UTC), from the system clock (civil-from-days, H. Hinnant).
fn today_utc() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let days = i64::try_from(seconds / 86_400).unwrap_or(0) + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// A profile's full rule for one algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub status: Status,
    pub limits: Limits,
}

impl Rule {
    pub const fn approved(limits: Limits) -> Rule {
        Rule {
            status: Status::Approved,
            limits,
        }
    }

    pub const fn not_approved(reason: &'static str, alternative: Option<&'static str>) -> Rule {
        Rule {
            status: Status::NotApproved {
                reason,
                alternative,
            },
            limits: Limits::NONE,
        }
    }
}

/// The parameters of one request that limits are checked against. Unset fields don't apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub key_bits: Option<u32>,
    pub caller_nonce: bool,
    pub secret_bytes: Option<u32>,
    pub salt_bytes: Option<u32>,
    pub iterations: Option<u32>,
    pub output_bytes: Option<u32>,
    /// The request creates a signature (as opposed to verifying one).
    pub signing: bool,
}

/// Whether one operation was approved. Ordered so that `min` aggregates: one non-approved
/// operation makes the whole non-approved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    NotApproved,
    Approved,
}

impl Approval {
    pub fn is_approved(self) -> bool {
        self == Approval::Approved
    }
}

/// A profile resolved into one rule per algorithm, with its mode and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    name: String,
    profile: Profile,
    mode: Mode,
    /// Where it came from: `built-in` or the file path.
    origin: String,
    rules: [Rule; Algorithm::COUNT],
    tls: TlsRules,
}

impl Policy {
    /// One of the built-in profiles, in its default mode.
    pub fn builtin(profile: Profile) -> Policy {
        Policy {
            name: profile.name().to_string(),
            profile,
            mode: profile.default_mode(),
            origin: "built-in".to_string(),
            rules: Algorithm::ALL.map(|algorithm| registry::entry(algorithm).rule(profile)),
            tls: TlsRules::builtin(profile),
        }
    }

    /// A built-in profile by name, or else a TOML policy file at that path.
    pub fn load(name_or_path: &str) -> Result<Policy, PolicyFileError> {
        match Profile::from_name(name_or_path) {
            Some(profile) => Ok(Policy::builtin(profile)),
            None => file::load(Path::new(name_or_path)),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Protocol versions and handshake requirements for TLS endpoints built from this policy.
    pub fn tls(&self) -> &TlsRules {
        &self.tls
    }

    pub fn rule(&self, algorithm: Algorithm) -> &Rule {
        &self.rules[algorithm.index()]
    }

    /// Will this policy serve the algorithm at all (approved, or flagged in permissive mode)?
    pub fn serves(&self, algorithm: Algorithm) -> bool {
        match self.rule(algorithm).status {
            Status::Approved => true,
            Status::NotApproved { .. } => self.mode == Mode::Permissive,
            Status::Excluded => false,
        }
    }

    pub fn approves(&self, algorithm: Algorithm) -> bool {
        self.rule(algorithm).status == Status::Approved
    }

    /// Decides one request: approved, served but not approved, or refused.
    pub fn evaluate(&self, algorithm: Algorithm, usage: &Usage) -> Result<Approval, Error> {
        let rule = self.rule(algorithm);
        let (reason, alternative) = match rule.status {
            Status::Approved => match rule.limits.check(usage) {
                Ok(()) => return Ok(Approval::Approved),
                Err(reason) => (reason, None),
            },
            Status::NotApproved {
                reason,
                alternative,
            } => (reason.to_string(), alternative),
            Status::Excluded => {
                return Err(self.refusal(algorithm, format!("excluded by {}", self.origin), None));
            }
        };
        match self.mode {
            Mode::Permissive => Ok(Approval::NotApproved),
            Mode::Strict => Err(self.refusal(algorithm, reason, alternative)),
        }
    }

    fn refusal(
        &self,
        algorithm: Algorithm,
        reason: String,
        alternative: Option<&'static str>,
    ) -> Error {
        Error::NotApproved {
            algorithm,
            policy: self.name.clone(),
            reason,
            alternative,
        }
    }

    /// A serialisable view, for `regula policy show --json`.
    pub fn summary(&self) -> PolicySummary {
        PolicySummary {
            name: self.name.clone(),
            profile: self.profile,
            mode: self.mode,
            origin: self.origin.clone(),
            tls: self.tls,
            algorithms: Algorithm::ALL
                .iter()
                .map(|&algorithm| {
                    let rule = self.rule(algorithm);
                    let (status, reason, alternative) = match rule.status {
                        Status::Approved => ("approved", None, None),
                        Status::NotApproved {
                            reason,
                            alternative,
                        } => ("not-approved", Some(reason), alternative),
                        Status::Excluded => ("excluded", None, None),
                    };
                    AlgorithmSummary {
                        algorithm: algorithm.name(),
                        family: algorithm.family().name(),
                        status,
                        served: self.serves(algorithm),
                        reason,
                        alternative,
                        limits: rule.limits,
                    }
                })
                .collect(),
        }
    }
}

/// `regula policy show --json` output.
#[derive(Clone, Debug, Serialize)]
pub struct PolicySummary {
    pub name: String,
    pub profile: Profile,
    pub mode: Mode,
    pub origin: String,
    pub tls: TlsRules,
    pub algorithms: Vec<AlgorithmSummary>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AlgorithmSummary {
    pub algorithm: &'static str,
    pub family: &'static str,
    /// `approved`, `not-approved` or `excluded`.
    pub status: &'static str,
    /// Whether the policy serves it at all (approved, or not approved under a permissive mode).
    pub served: bool,
    pub reason: Option<&'static str>,
    /// What to use instead, for a non-approved algorithm.
    pub alternative: Option<&'static str>,
    pub limits: Limits,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_the_violated_bound() {
        let limits = Limits {
            min_key_bits: Some(2048),
            max_key_bits: Some(4096),
            ..Limits::NONE
        };
        let small = Usage {
            key_bits: Some(1024),
            ..Usage::default()
        };
        let large = Usage {
            key_bits: Some(8192),
            ..Usage::default()
        };
        let fine = Usage {
            key_bits: Some(3072),
            ..Usage::default()
        };
        assert!(
            limits
                .check(&small)
                .unwrap_err()
                .contains("below the minimum of 2048")
        );
        assert!(
            limits
                .check(&large)
                .unwrap_err()
                .contains("above the maximum of 4096")
        );
        assert_eq!(limits.check(&fine), Ok(()));
    }

    #[test]
    fn caller_nonce_rule() {
        let limits = Limits {
            caller_nonce_approved: false,
            ..Limits::NONE
        };
        assert!(
            limits
                .check(&Usage {
                    caller_nonce: true,
                    ..Usage::default()
                })
                .is_err()
        );
        assert!(limits.check(&Usage::default()).is_ok());
    }

    #[test]
    fn today_is_a_plausible_date() {
        let today = today_utc();
        assert_eq!(today.len(), 10, "{today}");
        assert!(
            today.as_str() > "2025-01-01" && today.as_str() < "2100-01-01",
            "{today}"
        );
    }

    #[test]
    fn dated_and_verify_only_rules() {
        let expired = Limits {
            approved_until: Some("2001-01-01"),
            ..Limits::NONE
        };
        assert!(
            expired
                .check(&Usage::default())
                .unwrap_err()
                .contains("until 2001-01-01")
        );
        let current = Limits {
            approved_until: Some("2999-12-31"),
            signing_approved: false,
            ..Limits::NONE
        };
        assert_eq!(current.check(&Usage::default()), Ok(()));
        let signing = Usage {
            signing: true,
            ..Usage::default()
        };
        assert!(current.check(&signing).unwrap_err().contains("disallowed"));
    }

    #[test]
    fn approval_aggregates_with_min() {
        assert_eq!(
            Approval::Approved.min(Approval::NotApproved),
            Approval::NotApproved
        );
        assert_eq!(
            Approval::Approved.min(Approval::Approved),
            Approval::Approved
        );
    }
}
