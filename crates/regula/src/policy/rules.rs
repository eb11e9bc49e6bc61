//! Rules and limits: a profile's verdict on one algorithm, the conditions under which an
//! approved algorithm stays approved, and the dated transitions that change it.

use std::fmt;

use serde::Serialize;

use super::calendar::Date;

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
    /// TLS 1.2 KDF: the master secret only as RFC 7627's extended master secret (FIPS 140-3
    /// IG D.Q); the label `master secret` is not approved.
    pub extended_master_secret_only: bool,
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
        extended_master_secret_only: false,
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
            extended_master_secret_only,
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
        if usage.tls12_plain_master_secret && extended_master_secret_only {
            return Err(
                "a TLS 1.2 master secret without the extended master secret (RFC 7627) is not \
                 approved (FIPS 140-3 IG D.Q); derive it with the label \"extended master secret\""
                    .to_string(),
            );
        }
        Ok(())
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
    /// A TLS 1.2 PRF call with the label `master secret`: a master secret without RFC 7627's
    /// extended master secret.
    pub tls12_plain_master_secret: bool,
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
