//! `regula policy list|show|check`.

use clap::Subcommand;
use regula::policy::{Limits, Status};
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
    /// Show every algorithm's status and limits under a policy.
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
            let policy = Policy::load(name.as_deref().unwrap_or(&global.policy))?;
            let smb = policy.judge(regula::policy::protocols::SMB);
            if json {
                let mut summary = serde_json::to_value(policy.summary()).unwrap_or_default();
                summary["parameter_sets"] = serde_json::to_value(&smb).unwrap_or_default();
                println!("{summary:#}");
            } else {
                show(&policy);
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

fn show(policy: &Policy) {
    println!(
        "policy {} ({}; profile {}, {} mode)",
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
            Status::Approved => ("approved", describe_limits(&rule.limits)),
            Status::NotApproved {
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
        min_iterations,
        min_output_bytes,
        signing_approved,
        approved_until,
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
    at_least("iterations", min_iterations);
    at_least("output bytes", min_output_bytes);
    if !signing_approved {
        parts.push("verification only".to_string());
    }
    if let Some(until) = approved_until {
        parts.push(format!("until {until}"));
    }
    parts.join(", ")
}
