//! Policies: which algorithms a profile approves, within which limits, and what happens to the
//! rest.
//!
//! The rules themselves are data in [`crate::registry::REGISTRY`] (one row per algorithm, one
//! column per built-in profile). A [`Policy`] is a profile resolved into a table, possibly
//! narrowed by a user's TOML file (see [`file`]).

mod calendar;
pub mod file;
mod profile;
pub mod protocols;
pub mod registry;
mod resolved;
mod rules;
#[cfg(test)]
mod tests;
pub mod tls;

pub use calendar::Date;
pub use file::PolicyFileError;
pub use profile::{Mode, Profile, Validation, ValidationAuthority};
pub use resolved::{AlgorithmSummary, Policy, PolicySummary};
pub use rules::{Approval, Limits, Rule, Status, Transition, TransitionStatus, Usage};
pub use tls::TlsRules;
