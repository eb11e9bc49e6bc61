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
    /// NSA CNSA 2.0: AES-256, SHA-384/512, ML-KEM-1024, ML-DSA-87, with the CNSA 1.0 set
    /// (ECDH/ECDSA P-384, RSA ≥ 3072) as transitional until its dated end.
    #[serde(rename = "cnsa-2.0")]
    Cnsa20,
}

impl Profile {
    pub const ALL: [Profile; 4] = [
        Profile::Default,
        Profile::Fips1403,
        Profile::Gm,
        Profile::Cnsa20,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Fips1403 => "fips-140-3",
            Profile::Gm => "gm",
            Profile::Cnsa20 => "cnsa-2.0",
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
            Profile::Cnsa20 => {
                "NSA CNSA 2.0: AES-256, SHA-384/512, ML-KEM-1024, ML-DSA-87; P-384 and RSA >= 3072 \
                 transitional"
            }
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
            Profile::Fips1403 | Profile::Gm | Profile::Cnsa20 => Mode::Strict,
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
    /// Not approved, yet served (flagged) even by a strict policy: a fixed part of an
    /// interoperable construction whose other parts the profile approves, such as the HKDF-SHA512
    /// of the kernel's fscrypt key hierarchy under `gm`. A policy file can still exclude it.
    Flagged {
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
    /// Minimum length of a KDF's context/info input, in bytes.
    pub min_info_bytes: Option<u32>,
    pub min_iterations: Option<u32>,
    pub min_output_bytes: Option<u32>,
    /// May keys of this algorithm create signatures? (SHA-1 signatures: verification only.)
    pub signing_approved: bool,
}

impl Limits {
    /// No limits at all.
    pub const NONE: Limits = Limits {
        min_key_bits: None,
        max_key_bits: None,
        caller_nonce_approved: true,
        min_secret_bytes: None,
        min_salt_bytes: None,
        min_info_bytes: None,
        min_iterations: None,
        min_output_bytes: None,
        signing_approved: true,
    };

    /// Checks a request against the limits; the error is the reason it falls outside them.
    pub fn check(&self, usage: &Usage) -> Result<(), String> {
        let Limits {
            min_key_bits,
            max_key_bits,
            caller_nonce_approved,
            min_secret_bytes,
            min_salt_bytes,
            min_info_bytes,
            min_iterations,
            min_output_bytes,
            signing_approved,
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
        at_least("info", "bytes", usage.info_bytes, min_info_bytes)?;
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
        Ok(())
    }
}

/// A calendar day (UTC), the clock policies are evaluated against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// Parses `YYYY-MM-DD` (a real calendar day, years 1970 to 9999).
    pub fn parse(text: &str) -> Result<Date, String> {
        let invalid = || format!("{text:?} is not a date of the form YYYY-MM-DD");
        let bytes = text.as_bytes();
        if bytes.len() != 10
            || bytes[4] != b'-'
            || bytes[7] != b'-'
            || !bytes
                .iter()
                .enumerate()
                .all(|(index, byte)| index == 4 || index == 7 || byte.is_ascii_digit())
        {
            return Err(invalid());
        }
        let year: u16 = text[0..4].parse().map_err(|_| invalid())?;
        let month: u8 = text[5..7].parse().map_err(|_| invalid())?;
        let day: u8 = text[8..10].parse().map_err(|_| invalid())?;
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days_in_month = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return Err(format!("{text:?}: month {month} does not exist")),
        };
        if year < 1970 || day == 0 || day > days_in_month {
            return Err(format!("{text:?}: no such day"));
        }
        Ok(Date { year, month, day })
    }

    /// A date written in the registry; a malformed one is a bug caught by the registry's tests.
    pub(crate) fn of_static(text: &'static str) -> Date {
        Date::parse(text).unwrap_or(Date {
            year: 1970,
            month: 1,
            day: 1,
        })
    }

    /// Today (UTC) from the system clock.
    pub fn today() -> Date {
        today_utc()
    }

    /// The day before (for "approved until" displays of a transition starting on `self`).
    pub fn previous_day(self) -> Date {
        if self.day > 1 {
            return Date {
                day: self.day - 1,
                ..self
            };
        }
        if self.month > 1 {
            let month = self.month - 1;
            let mut day = 31;
            while Date::parse(&format!("{:04}-{month:02}-{day:02}", self.year)).is_err() {
                day -= 1;
            }
            return Date { month, day, ..self };
        }
        Date {
            year: self.year.saturating_sub(1),
            month: 12,
            day: 31,
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Serialize for Date {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// What a dated transition changes an approved algorithm into (SP 800-131A's vocabulary).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TransitionStatus {
    /// Still approved, at the user's risk; plan the replacement.
    Deprecated,
    /// Only processing already-protected data (verifying signatures) stays approved.
    LegacyUseOnly,
    /// No longer approved for any use.
    Disallowed,
}

impl TransitionStatus {
    pub fn name(self) -> &'static str {
        match self {
            TransitionStatus::Deprecated => "deprecated",
            TransitionStatus::LegacyUseOnly => "legacy-use-only",
            TransitionStatus::Disallowed => "disallowed",
        }
    }
}

impl fmt::Display for TransitionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dated change of one profile's rule for one algorithm, with the document that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Transition {
    /// The first day (`YYYY-MM-DD`, UTC) on which the new status applies.
    pub from: &'static str,
    pub status: TransitionStatus,
    /// Applies only to keys shorter than this many bits (NIST IR 8547's 112-bit row: RSA
    /// below 3072 bits); `None`: to every key.
    pub below_key_bits: Option<u32>,
    /// The rule's source, as a citation.
    pub source: &'static str,
}

impl Transition {
    /// The first day of the new status.
    pub fn date(&self) -> Date {
        Date::of_static(self.from)
    }

    /// Whether this transition is in force on `date` for a request with these parameters. A
    /// key-size condition applies only when the key size is known.
    pub fn applies(&self, date: Date, usage: &Usage) -> bool {
        self.date() <= date
            && match (self.below_key_bits, usage.key_bits) {
                (None, _) => true,
                (Some(bound), Some(bits)) => bits < bound,
                (Some(_), None) => false,
            }
    }

    /// Checks a request on `date`; the error says which transition refuses it.
    fn check(&self, date: Date, usage: &Usage) -> Result<(), String> {
        if !self.applies(date, usage) {
            return Ok(());
        }
        let keys = self
            .below_key_bits
            .map_or(String::new(), |bits| format!(" for keys below {bits} bits"));
        match self.status {
            TransitionStatus::Deprecated => Ok(()),
            TransitionStatus::LegacyUseOnly if !usage.signing => Ok(()),
            TransitionStatus::LegacyUseOnly => Err(format!(
                "signature generation is disallowed{keys} since {} (legacy use only: \
                 verifying existing signatures): {}",
                self.from, self.source
            )),
            TransitionStatus::Disallowed => Err(format!(
                "disallowed{keys} since {}: {}",
                self.from, self.source
            )),
        }
    }
}

/// Today's date (UTC), from the system clock.
/// The random bit generators a policy can draw from, in order of preference (see
/// [`Policy::random_algorithm`]).
const GENERATORS: [Algorithm; 3] = [
    Algorithm::CtrDrbg,
    Algorithm::Sm3Drbg,
    Algorithm::Sm4CtrDrbg,
];

fn today_utc() -> Date {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    Date::from_days_since_epoch(seconds / 86_400)
}

impl Date {
    /// The day `days` after 1970-01-01 (civil-from-days, H. Hinnant).
    pub fn from_days_since_epoch(days: u64) -> Date {
        civil_from_days(days)
    }
}

fn civil_from_days(days: u64) -> Date {
    let days = i64::try_from(days).unwrap_or(0) + 719_468;
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
    Date {
        year: u16::try_from(year).unwrap_or(9999),
        month: u8::try_from(month).unwrap_or(1),
        day: u8::try_from(day).unwrap_or(1),
    }
}

/// A profile's full rule for one algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub status: Status,
    pub limits: Limits,
    /// Dated changes of an approved rule, in date order.
    pub transitions: &'static [Transition],
}

impl Rule {
    pub const fn approved(limits: Limits) -> Rule {
        Rule {
            status: Status::Approved,
            limits,
            transitions: &[],
        }
    }

    pub const fn not_approved(reason: &'static str, alternative: Option<&'static str>) -> Rule {
        Rule {
            status: Status::NotApproved {
                reason,
                alternative,
            },
            limits: Limits::NONE,
            transitions: &[],
        }
    }

    /// Not approved, but served flagged in every mode (see [`Status::Flagged`]).
    pub const fn flagged(reason: &'static str, alternative: Option<&'static str>) -> Rule {
        Rule {
            status: Status::Flagged {
                reason,
                alternative,
            },
            limits: Limits::NONE,
            transitions: &[],
        }
    }

    /// The same rule with these dated transitions.
    pub const fn with_transitions(self, transitions: &'static [Transition]) -> Rule {
        Rule {
            transitions,
            ..self
        }
    }

    /// The transition in force on `date` for every key (the rule's unconditional status then).
    pub fn transition_on(&self, date: Date) -> Option<&'static Transition> {
        self.transitions
            .iter()
            .rev()
            .find(|transition| transition.below_key_bits.is_none() && transition.date() <= date)
    }

    /// Whether the algorithm is approved on `date` for a request whose parameters are unknown.
    pub fn approved_on(&self, date: Date) -> bool {
        self.status == Status::Approved
            && self
                .transition_on(date)
                .is_none_or(|transition| transition.status != TransitionStatus::Disallowed)
    }

    /// Checks a request's parameters on `date`: the limits, then every dated transition.
    pub fn check(&self, date: Date, usage: &Usage) -> Result<(), String> {
        self.limits.check(usage)?;
        self.transitions
            .iter()
            .try_for_each(|transition| transition.check(date, usage))
    }
}

/// The parameters of one request that limits are checked against. Unset fields don't apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub key_bits: Option<u32>,
    pub caller_nonce: bool,
    pub secret_bytes: Option<u32>,
    pub salt_bytes: Option<u32>,
    pub info_bytes: Option<u32>,
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
    /// The day the policy is evaluated on; `None`: today, from the system clock.
    as_of: Option<Date>,
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
            as_of: None,
        }
    }

    /// The same policy evaluated on a fixed day instead of today: "what would this policy
    /// approve on that date". Dated transitions (SHA-1's end, NIST IR 8547, CNSA 2.0) apply as
    /// on that day.
    pub fn as_of(mut self, date: Date) -> Policy {
        self.as_of = Some(date);
        self
    }

    /// The day rules are evaluated on: the fixed `as_of` day, or else today.
    pub fn date(&self) -> Date {
        self.as_of.unwrap_or_else(Date::today)
    }

    /// The fixed evaluation day, if one was set.
    pub fn fixed_date(&self) -> Option<Date> {
        self.as_of
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
        let rule = self.rule(algorithm);
        match rule.status {
            Status::Approved if rule.approved_on(self.date()) => true,
            Status::Approved => self.mode == Mode::Permissive,
            Status::Flagged { .. } => true,
            Status::NotApproved { .. } => self.mode == Mode::Permissive,
            Status::Excluded => false,
        }
    }

    pub fn approves(&self, algorithm: Algorithm) -> bool {
        self.rule(algorithm).approved_on(self.date())
    }

    /// The random bit generator this policy's keys, nonces and IVs come from: the first of
    /// AWS-LC's CTR_DRBG and the GM/T 0105 SM3 and SM4 generators that the policy approves,
    /// else the first it serves (the services then say it is not approved or refuse).
    pub fn random_algorithm(&self) -> Algorithm {
        GENERATORS
            .into_iter()
            .find(|&g| self.approves(g))
            .or_else(|| GENERATORS.into_iter().find(|&g| self.serves(g)))
            .unwrap_or(Algorithm::CtrDrbg)
    }

    /// Whether [`Policy::random_algorithm`] can change with the date: a dated transition on a
    /// generator's row and no fixed evaluation day. When it cannot, a module asks once.
    pub fn random_algorithm_is_dated(&self) -> bool {
        self.as_of.is_none()
            && GENERATORS
                .into_iter()
                .any(|generator| !self.rule(generator).transitions.is_empty())
    }

    /// Decides one request: approved, served but not approved, or refused.
    pub fn evaluate(&self, algorithm: Algorithm, usage: &Usage) -> Result<Approval, Error> {
        let rule = self.rule(algorithm);
        let (reason, alternative) = match rule.status {
            Status::Approved => match rule.check(self.date(), usage) {
                Ok(()) => return Ok(Approval::Approved),
                Err(reason) => (reason, None),
            },
            Status::NotApproved {
                reason,
                alternative,
            } => (reason.to_string(), alternative),
            Status::Flagged { .. } => return Ok(Approval::NotApproved),
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
            as_of: self.date(),
            algorithms: Algorithm::ALL
                .iter()
                .map(|&algorithm| {
                    let rule = self.rule(algorithm);
                    let date = self.date();
                    let (status, reason, alternative) = match rule.status {
                        Status::Approved => match rule.transition_on(date) {
                            Some(transition)
                                if transition.status == TransitionStatus::Disallowed =>
                            {
                                ("not-approved", Some(transition.source), None)
                            }
                            _ => ("approved", None, None),
                        },
                        Status::NotApproved {
                            reason,
                            alternative,
                        }
                        | Status::Flagged {
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
                        transitions: rule.transitions,
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
    /// The day the statuses hold on (today unless `--as-of` fixed one).
    pub as_of: Date,
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
    /// Dated changes of the rule, each with its source.
    pub transitions: &'static [Transition],
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
        let today = Date::today();
        assert!(
            today > Date::parse("2025-01-01").unwrap()
                && today < Date::parse("2100-01-01").unwrap(),
            "{today}"
        );
        assert_eq!(Date::parse(&today.to_string()), Ok(today));
    }

    #[test]
    fn dates_parse_strictly() {
        assert_eq!(Date::parse("2024-02-29").unwrap().to_string(), "2024-02-29");
        for bad in [
            "2023-02-29",
            "2031-13-01",
            "2031-00-10",
            "2031-1-01",
            "31-01-2031",
            "2031-01-32",
            "",
            "２０３１-01-01",
        ] {
            assert!(Date::parse(bad).is_err(), "{bad}");
        }
        let day = |text| Date::parse(text).unwrap();
        assert_eq!(day("2031-01-01").previous_day(), day("2030-12-31"));
        assert_eq!(day("2024-03-01").previous_day(), day("2024-02-29"));
        assert_eq!(day("2031-05-01").previous_day(), day("2031-04-30"));
    }

    #[test]
    fn dated_and_verify_only_rules() {
        const ENDS: &[Transition] = &[
            Transition {
                from: "2031-01-01",
                status: TransitionStatus::Deprecated,
                below_key_bits: Some(3072),
                source: "deprecation",
            },
            Transition {
                from: "2036-01-01",
                status: TransitionStatus::Disallowed,
                below_key_bits: None,
                source: "the end",
            },
        ];
        let rule = Rule::approved(Limits {
            signing_approved: false,
            ..Limits::NONE
        })
        .with_transitions(ENDS);
        let day = |text| Date::parse(text).unwrap();
        let key = Usage {
            key_bits: Some(2048),
            ..Usage::default()
        };
        assert_eq!(rule.check(day("2035-12-31"), &key), Ok(()));
        assert!(rule.approved_on(day("2035-12-31")));
        let refused = rule.check(day("2036-01-01"), &key).unwrap_err();
        assert!(refused.contains("since 2036-01-01: the end"), "{refused}");
        assert!(!rule.approved_on(day("2036-01-01")));
        assert_eq!(
            rule.transition_on(day("2036-01-01")).map(|t| t.status),
            Some(TransitionStatus::Disallowed)
        );
        assert!(ENDS[0].applies(day("2031-01-01"), &key));
        assert!(!ENDS[0].applies(day("2030-12-31"), &key));
        let large = Usage {
            key_bits: Some(3072),
            ..Usage::default()
        };
        assert!(!ENDS[0].applies(day("2031-01-01"), &large));
        let signing = Usage {
            signing: true,
            ..Usage::default()
        };
        assert!(
            rule.check(day("2020-01-01"), &signing)
                .unwrap_err()
                .contains("disallowed")
        );
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
