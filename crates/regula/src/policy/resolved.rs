//! A [`Policy`]: a profile resolved into one rule per algorithm (from the registry, possibly
//! narrowed by a policy file), with its mode and evaluation day; it decides each request.

use serde::Serialize;

use super::calendar::Date;
use super::profile::{Mode, Profile};
use super::registry;
use super::rules::{Approval, Limits, Rule, Status, Transition, TransitionStatus, Usage};
use super::tls::TlsRules;
use crate::algorithm::Algorithm;
use crate::error::Error;

/// The random bit generators a policy can draw from, in order of preference (see
/// [`Policy::random_algorithm`]).
const GENERATORS: [Algorithm; 3] = [
    Algorithm::CtrDrbg,
    Algorithm::Sm3Drbg,
    Algorithm::Sm4CtrDrbg,
];

/// A profile resolved into one rule per algorithm, with its mode and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub(super) name: String,
    pub(super) profile: Profile,
    pub(super) mode: Mode,
    /// Where it came from: `built-in` or the file path.
    pub(super) origin: String,
    pub(super) rules: [Rule; Algorithm::COUNT],
    pub(super) tls: TlsRules,
    /// The day the policy is evaluated on; `None`: today, from the system clock.
    pub(super) as_of: Option<Date>,
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
            Status::Approved if rule.approved_on(self.date_for(rule)) => true,
            Status::Approved => self.mode == Mode::Permissive,
            Status::Flagged { .. } => true,
            Status::NotApproved { .. } => self.mode == Mode::Permissive,
            Status::Excluded => false,
        }
    }

    pub fn approves(&self, algorithm: Algorithm) -> bool {
        let rule = self.rule(algorithm);
        rule.approved_on(self.date_for(rule))
    }

    /// The day `rule` is judged on. Only a rule with dated transitions depends on the day, so
    /// only then is the clock read ([`Policy::serves`] and [`Policy::evaluate`] run on every
    /// operation).
    fn date_for(&self, rule: &Rule) -> Date {
        match self.as_of {
            Some(date) => date,
            None if rule.transitions.is_empty() => Date::EPOCH,
            None => Date::today(),
        }
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

    /// Whether this policy's decisions on `algorithm` can change while a module runs: only a
    /// rule with dated transitions, judged on the clock's day, can. A caller may keep any
    /// other decision for the same request.
    pub fn decision_is_dated(&self, algorithm: Algorithm) -> bool {
        self.as_of.is_none() && !self.rule(algorithm).transitions.is_empty()
    }

    /// Whether [`Policy::random_algorithm`] can change with the date: a dated transition on a
    /// generator's row and no fixed evaluation day. When it cannot, a module asks once.
    pub fn random_algorithm_is_dated(&self) -> bool {
        GENERATORS
            .into_iter()
            .any(|generator| self.decision_is_dated(generator))
    }

    /// Decides one request: approved, served but not approved, or refused.
    pub fn evaluate(&self, algorithm: Algorithm, usage: &Usage) -> Result<Approval, Error> {
        let rule = self.rule(algorithm);
        let (reason, alternative) = match rule.status {
            Status::Approved => match rule.check(self.date_for(rule), usage) {
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

impl Profile {
    /// The registry names of every algorithm this profile approves, in registry order.
    pub fn approved_names(self) -> Vec<&'static str> {
        let policy = Policy::builtin(self);
        Algorithm::ALL
            .iter()
            .filter(|&&algorithm| matches!(policy.rule(algorithm).status, Status::Approved))
            .map(|algorithm| algorithm.name())
            .collect()
    }
}
