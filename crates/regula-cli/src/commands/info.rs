//! `regula info`: what this build is made of.

use clap::Args;

use crate::failure::Failure;

#[derive(Args)]
pub struct InfoArgs {
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: InfoArgs) -> Result<(), Failure> {
    let info = regula::info::build_info();
    if args.json {
        println!("{:#}", serde_json::to_value(&info).unwrap_or_default());
        return Ok(());
    }
    println!("regula {}", info.regula_version);
    println!("backend: {}", info.backend);
    println!("identity record: {}", regula::identity::record());
    println!(
        "FIPS module linked: {}",
        if info.fips_module_linked {
            "yes (aws-lc-fips-sys)"
        } else {
            "no (aws-lc-sys)"
        }
    );
    match info.fips_mode {
        Ok(()) => println!("FIPS mode: on (aws_lc_rs::try_fips_mode succeeded)"),
        Err(reason) => println!("FIPS mode: off ({reason})"),
    }
    if let Some(version) = info.fips_module_version {
        println!("FIPS module version: {version}");
    }
    println!("CPU features: {}", info.cpu_features.join(" "));
    println!("implementations:");
    for implementation in &info.implementations {
        println!(
            "  {:<20} {}",
            implementation.algorithm.name(),
            implementation.implementation
        );
    }
    Ok(())
}
