//! `regula kdf`: HKDF and PBKDF2.

use clap::Args;
use regula::{Algorithm, Family};
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

#[derive(Args)]
#[command(
    after_help = "Examples:\n  regula kdf -a hkdf-sha256 --secret 0b0b0b0b0b0b0b0b0b0b0b0b0b0b --salt 0001 --info f0f1 --length 42\n  regula kdf -a pbkdf2-sha256 --password-hex 70617373776f7264 --salt 73616c7473616c7473616c7473616c74 --iterations 10000 --length 32"
)]
pub struct KdfArgs {
    /// hkdf-sha256, hkdf-sha384, hkdf-sha512, pbkdf2-sha256, pbkdf2-sha384, pbkdf2-sha512.
    #[arg(short, long)]
    algorithm: String,
    /// HKDF input keying material, in hex.
    #[arg(long, value_name = "HEX")]
    secret: Option<String>,
    /// PBKDF2 password, in hex (so that it never has to be a shell word).
    #[arg(long, value_name = "HEX")]
    password_hex: Option<String>,
    /// Salt, in hex (HKDF: optional, default empty).
    #[arg(long, value_name = "HEX", default_value = "")]
    salt: String,
    /// HKDF context info, in hex.
    #[arg(long, value_name = "HEX", default_value = "")]
    info: String,
    /// PBKDF2 iteration count.
    #[arg(long)]
    iterations: Option<u32>,
    /// Output length in bytes.
    #[arg(long, short = 'l')]
    length: usize,
}

pub fn run(global: &GlobalOptions, args: KdfArgs) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = input::algorithm(&args.algorithm, &[Family::Kdf])?;
    let salt = input::hex_arg("--salt", &args.salt)?;
    let is_hkdf = matches!(
        algorithm,
        Algorithm::HkdfSha256 | Algorithm::HkdfSha384 | Algorithm::HkdfSha512
    );
    let output = if is_hkdf {
        let secret = args
            .secret
            .ok_or_else(|| Failure::input(format!("{algorithm} needs --secret HEX")))?;
        let secret = Zeroizing::new(input::hex_arg("--secret", &secret)?);
        let info = input::hex_arg("--info", &args.info)?;
        module.hkdf(algorithm, &secret, &salt, &info, args.length)?
    } else {
        let password = args
            .password_hex
            .ok_or_else(|| Failure::input(format!("{algorithm} needs --password-hex HEX")))?;
        let password = Zeroizing::new(input::hex_arg("--password-hex", &password)?);
        let iterations = args
            .iterations
            .ok_or_else(|| Failure::input(format!("{algorithm} needs --iterations N")))?;
        module.pbkdf2(algorithm, &password, &salt, iterations, args.length)?
    };
    input::report(global, &output);
    println!("{}", hex::encode(&**output));
    Ok(())
}
