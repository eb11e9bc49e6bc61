//! Verdicts: what a vector expects, what Regula did, and the per-file counts.

use crate::{FileReport, MAX_LISTED_FAILURES};

/// What a vector expects of the implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// Must be accepted and produce the stated output.
    Valid,
    /// Must be rejected (CAVP `FAIL`, `Result = F`, Wycheproof `invalid`, evp `Result = …`).
    Invalid,
    /// Wycheproof `acceptable`: either answer is fine.
    Acceptable,
}

/// What running one vector through Regula gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The operation succeeded and matched the vector (or, for key checks, accepted the key).
    Accepted,
    /// The operation refused the input (bad tag, bad signature, invalid key, …), or a
    /// verification-style comparison (MAC tag, digest) did not match.
    Rejected(String),
    /// The operation succeeded but produced something other than the vector's output.
    WrongOutput(String),
    /// Not run; the reason says why.
    Skip(String),
}

impl Outcome {
    pub(crate) fn not_offered(name: &str) -> Outcome {
        Outcome::Skip(format!("algorithm not offered by this module: {name}"))
    }

    pub(crate) fn unsupported(what: impl std::fmt::Display) -> Outcome {
        Outcome::Skip(format!("unsupported parameter: {what}"))
    }

    pub(crate) fn unsupported_operation(what: impl std::fmt::Display) -> Outcome {
        Outcome::Skip(format!("unsupported operation: {what}"))
    }

    /// How a refusal by the module counts. A policy refusal is a skip (the vector says nothing
    /// about it); so is a module in its error state, which answers nothing at all.
    pub(crate) fn from_error(error: &regula::Error) -> Outcome {
        match error {
            regula::Error::NotApproved { policy, .. } => {
                Outcome::Skip(format!("not approved by policy {policy}"))
            }
            regula::Error::ModuleInErrorState { .. } => {
                Outcome::Skip("module is in its error state".to_string())
            }
            regula::Error::UnknownAlgorithm { name } => Outcome::not_offered(name),
            regula::Error::WrongFamily { algorithm, .. } => Outcome::Skip(format!(
                "the vector runner has no {} runner for {algorithm}",
                algorithm.family()
            )),
            other => Outcome::Rejected(other.to_string()),
        }
    }

    /// A comparison in a verification-style check (MAC tag, digest output).
    pub(crate) fn compare(equal: bool, what: &str) -> Outcome {
        if equal {
            Outcome::Accepted
        } else {
            Outcome::Rejected(format!("{what} differs from the vector"))
        }
    }
}

/// Runs a body that uses `?` on Regula results; errors become outcomes.
pub(crate) fn attempt(body: impl FnOnce() -> Result<Outcome, regula::Error>) -> Outcome {
    body().unwrap_or_else(|error| Outcome::from_error(&error))
}

/// Counts for one file.
pub(crate) struct Tally {
    report: FileReport,
    acceptable_accepted: u64,
    acceptable_rejected: u64,
}

impl Tally {
    pub(crate) fn new(report: FileReport) -> Tally {
        Tally {
            report,
            acceptable_accepted: 0,
            acceptable_rejected: 0,
        }
    }

    pub(crate) fn set_algorithm(&mut self, algorithm: impl Into<String>) {
        self.report.algorithm = algorithm.into();
    }

    pub(crate) fn note(&mut self, note: impl Into<String>) {
        let note = note.into();
        if !self.report.notes.contains(&note) {
            self.report.notes.push(note);
        }
    }

    pub(crate) fn skip(&mut self, reason: impl Into<String>) {
        self.report.skipped += 1;
        *self.report.skip_reasons.entry(reason.into()).or_default() += 1;
    }

    fn pass(&mut self) {
        self.report.passed += 1;
    }

    fn fail(&mut self, id: &str, message: &str) {
        self.report.failed += 1;
        if self.report.failures.len() < MAX_LISTED_FAILURES {
            self.report.failures.push(format!("{id}: {message}"));
        }
    }

    /// Records the verdict for one vector.
    pub(crate) fn record(&mut self, id: &str, expect: Expect, outcome: Outcome) {
        match (expect, outcome) {
            (_, Outcome::Skip(reason)) => self.skip(reason),
            (Expect::Valid, Outcome::Accepted) => self.pass(),
            (Expect::Valid, Outcome::Rejected(why)) => {
                self.fail(id, &format!("valid vector rejected: {why}"))
            }
            (Expect::Valid, Outcome::WrongOutput(why)) => self.fail(id, &why),
            (Expect::Invalid, Outcome::Rejected(_)) => self.pass(),
            (Expect::Invalid, Outcome::Accepted) => {
                self.fail(id, "accepted a vector that must be rejected")
            }
            (Expect::Invalid, Outcome::WrongOutput(why)) => self.fail(
                id,
                &format!("accepted a vector that must be rejected ({why})"),
            ),
            (Expect::Acceptable, Outcome::Accepted) => {
                self.acceptable_accepted += 1;
                self.pass();
            }
            (Expect::Acceptable, Outcome::Rejected(_)) => {
                self.acceptable_rejected += 1;
                self.pass();
            }
            (Expect::Acceptable, Outcome::WrongOutput(why)) => self.fail(id, &why),
        }
    }

    pub(crate) fn finish(mut self) -> FileReport {
        let acceptable = self.acceptable_accepted + self.acceptable_rejected;
        if acceptable > 0 {
            self.report.notes.push(format!(
                "{acceptable} `acceptable` vectors counted as passed: {} accepted, {} rejected",
                self.acceptable_accepted, self.acceptable_rejected
            ));
        }
        self.report
    }
}
