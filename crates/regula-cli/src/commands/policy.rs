//! `regula policy list|show|check`.

use clap::Subcommand;
use regula::policy::{Date, Limits, Status, TransitionStatus};
use regula::{Algorithm, Policy, Profile};

use crate::GlobalOptions;
use crate::failure::Failure;

#[derive(Subcommand)]
pub enum PolicyCommand {
    /// List the built-in profiles.
    List {
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show every algorithm's status, limits and dated transitions under a policy; with the
    /// global --as-of DATE, as on that day, listing what it would refuse then that it approves
    /// today.
    Show {
        /// Built-in profile or policy file (default: the --policy value).
        name: Option<String>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Validate a policy file; errors name the line and column.
    Check {
        /// The TOML policy file.
        file: String,
    },
}

/// The profile's line in `policy list`: for a profile that approves only a few algorithms
/// (gm), the list itself, from the registry.
fn listed_description(profile: Profile) -> String {
    let approved = profile.approved_names();
    if profile == Profile::Gm {
        format!("{}: {}", profile.description(), approved.join(", "))
    } else {
        profile.description().to_string()
    }
}

pub fn run(global: &GlobalOptions, command: PolicyCommand) -> Result<(), Failure> {
    match command {
        PolicyCommand::List { json } => {
            if json {
                let profiles: Vec<_> = Profile::ALL
                    .iter()
                    .map(|profile| {
                        serde_json::json!({
                            "name": profile.name(),
                            "mode": profile.default_mode().name(),
                            "description": listed_description(*profile),
                            "approved": profile.approved_names(),
                        })
                    })
                    .collect();
                println!("{:#}", serde_json::Value::from(profiles));
            } else {
                for profile in Profile::ALL {
                    println!(
                        "{:<11} {:<10} {}",
                        profile.name(),
                        profile.default_mode().name(),
                        listed_description(profile)
                    );
                }
            }
            Ok(())
        }
        PolicyCommand::Show { name, json } => {
            let policy = crate::input::policy(global, name.as_deref().unwrap_or(&global.policy))?;
            let smb = policy.judge(regula::policy::protocols::SMB);
            let lost = lost_by(&policy);
            if json {
                let mut summary = serde_json::to_value(policy.summary()).unwrap_or_default();
                summary["parameter_sets"] = serde_json::to_value(&smb).unwrap_or_default();
                if policy.fixed_date().is_some() {
                    summary["refused_then_approved_today"] = serde_json::to_value(
                        lost.iter()
                            .map(|algorithm| algorithm.name())
                            .collect::<Vec<_>>(),
                    )
                    .unwrap_or_default();
                }
                println!("{summary:#}");
            } else {
                show(&policy);
                if let Some(date) = policy.fixed_date() {
                    println!();
                    if lost.is_empty() {
                        println!(
                            "On {date}, {} approves everything it approves today ({}).",
                            policy.name(),
                            Date::today()
                        );
                    } else {
                        println!(
                            "On {date}, {} would no longer approve {} algorithms it approves \
                             today ({}): {}",
                            policy.name(),
                            lost.len(),
                            Date::today(),
                            lost.iter()
                                .map(|algorithm| algorithm.name())
                                .collect::<Vec<_>>()
                                .join(", ")
                        );
                    }
                }
                print_sources(&policy);
                println!();
                println!("SMB 2/3 and NTLMv2 parameter sets under {}:", policy.name());
                for verdict in &smb {
                    let reason = verdict
                        .reason
                        .as_deref()
                        .map_or(String::new(), |reason| format!(" — {reason}"));
                    println!(
                        "  {:<10} {:<62} {}{reason}",
                        verdict.set.protocol, verdict.set.usage, verdict.verdict
                    );
                }
            }
            Ok(())
        }
        PolicyCommand::Check { file } => {
            let policy = regula::policy::file::load(std::path::Path::new(&file))?;
            let served = Algorithm::ALL
                .iter()
                .filter(|&&algorithm| policy.serves(algorithm))
                .count();
            let approved = Algorithm::ALL
                .iter()
                .filter(|&&algorithm| policy.approves(algorithm))
                .count();
            println!(
                "{file}: ok: policy \"{}\" narrows {} ({} mode); {served} algorithms served, {approved} approved",
                policy.name(),
                policy.profile(),
                policy.mode().name()
            );
            Ok(())
        }
    }
}

/// Algorithms approved today that the policy, evaluated on its fixed day, no longer approves.
fn lost_by(policy: &Policy) -> Vec<Algorithm> {
    let today = Date::today();
    Algorithm::ALL
        .into_iter()
        .filter(|&algorithm| {
            let rule = policy.rule(algorithm);
            rule.approved_on(today) && !policy.approves(algorithm)
        })
        .collect()
}

/// The documents the dated rules come from, once each.
fn print_sources(policy: &Policy) {
    let mut sources: Vec<&str> = Vec::new();
    for algorithm in Algorithm::ALL {
        for transition in policy.rule(algorithm).transitions {
            if !sources.contains(&transition.source) {
                sources.push(transition.source);
            }
        }
    }
    if sources.is_empty() {
        return;
    }
    println!();
    println!("Sources of the dated rules:");
    for source in sources {
        println!("  - {source}");
    }
}

fn show(policy: &Policy) {
    let date = policy.date();
    println!(
        "policy {} ({}; profile {}, {} mode), as of {date}",
        policy.name(),
        policy.origin(),
        policy.profile(),
        policy.mode().name()
    );
    // Wide enough for the longest family name ("public-key-encryption").
    let family_width = Algorithm::ALL
        .iter()
        .map(|algorithm| algorithm.family().name().len())
        .max()
        .unwrap_or(0);
    println!(
        "{:<20} {:<family_width$} {:<13} {:<7} limits / reason",
        "algorithm", "family", "status", "served"
    );
    for algorithm in Algorithm::ALL {
        let rule = policy.rule(algorithm);
        let (status, note) = match rule.status {
            Status::Approved => {
                let status = match rule.transition_on(date).map(|transition| transition.status) {
                    None => "approved",
                    Some(TransitionStatus::Deprecated) => "deprecated",
                    Some(TransitionStatus::LegacyUseOnly) => "legacy-use",
                    Some(TransitionStatus::Disallowed) => "disallowed",
                };
                let mut notes = vec![describe_limits(&rule.limits)];
                notes.extend(rule.transitions.iter().map(|transition| {
                    let keys = transition
                        .below_key_bits
                        .map_or(String::new(), |bits| format!(" (keys < {bits} bits)"));
                    format!("{} from {}{keys}", transition.status, transition.from)
                }));
                notes.retain(|note| !note.is_empty());
                (status, notes.join("; "))
            }
            Status::NotApproved {
                reason,
                alternative,
            }
            | Status::Flagged {
                reason,
                alternative,
            } => (
                "not-approved",
                match alternative {
                    Some(alternative) => format!("{reason}; use {alternative}"),
                    None => reason.to_string(),
                },
            ),
            Status::Excluded => ("excluded", String::new()),
        };
        let served = if policy.serves(algorithm) {
            "yes"
        } else {
            "no"
        };
        println!(
            "{:<20} {:<family_width$} {:<13} {:<7} {note}",
            algorithm.name(),
            algorithm.family().name(),
            status,
            served
        );
    }
}

fn describe_limits(limits: &Limits) -> String {
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
    } = *limits;
    let mut parts = Vec::new();
    match (min_key_bits, max_key_bits) {
        (Some(min), Some(max)) => parts.push(format!("key {min}-{max} bits")),
        (Some(min), None) => parts.push(format!("key >= {min} bits")),
        (None, Some(max)) => parts.push(format!("key <= {max} bits")),
        (None, None) => {}
    }
    if !caller_nonce_approved {
        parts.push("module-generated IV only".to_string());
    }
    let mut at_least = |what: &str, value: Option<u32>| {
        if let Some(value) = value {
            parts.push(format!("{what} >= {value}"));
        }
    };
    at_least("secret bytes", min_secret_bytes);
    at_least("salt bytes", min_salt_bytes);
    at_least("info bytes", min_info_bytes);
    at_least("iterations", min_iterations);
    at_least("output bytes", min_output_bytes);
    if !signing_approved {
        parts.push("verification only".to_string());
    }
    if extended_master_secret_only {
        parts.push("extended master secret only".to_string());
    }
    parts.join(", ")
}
