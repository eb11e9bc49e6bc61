//! `regula kdf`: HKDF, PBKDF2 and SP 800-108 KBKDF (counter mode, as SMB3 derives its keys).

use clap::Args;
use regula::{Algorithm, Family};
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

#[derive(Args)]
#[command(after_help = format!("{}\n\n{}", "Examples:\n  regula kdf -a hkdf-sha256 --secret 0b0b0b0b0b0b0b0b0b0b0b0b0b0b --salt 0001 --info f0f1 --length 42\n  regula kdf -a pbkdf2-sha256 --password-hex 70617373776f7264 --salt 73616c7473616c7473616c7473616c74 --iterations 10000 --length 32\n  # SMB 3.0 signing key: label \"SMB2AESCMAC\\0\", context \"SmbSign\\0\"\n  regula kdf -a kbkdf-ctr-hmac-sha256 --secret SESSIONKEYHEX --label 534d4232414553434d414300 --context 536d625369676e00 --length 16", crate::EXIT_CODES))]
pub struct KdfArgs {
    /// hkdf-sha256|384|512, pbkdf2-sha256|384|512, kbkdf-ctr-hmac-sha256|384|512.
    #[arg(short, long)]
    algorithm: String,
    /// HKDF input keying material or KBKDF key (K_IN), in hex.
    #[arg(long, value_name = "HEX")]
    secret: Option<String>,
    /// KBKDF: the label, in hex; the fixed input is then Label ‖ 00 ‖ Context ‖ [L]₃₂ (SP 800-108
    /// §4, as SMB3 uses it). Without --label, KBKDF takes --info as the whole fixed input.
    #[arg(long, value_name = "HEX")]
    label: Option<String>,
    /// KBKDF: the context, in hex (with --label).
    #[arg(long, value_name = "HEX")]
    context: Option<String>,
    /// PBKDF2 password, in hex (so that it never has to be a shell word).
    #[arg(long, value_name = "HEX")]
    password_hex: Option<String>,
    /// Salt, in hex (HKDF: optional, default empty).
    #[arg(long, value_name = "HEX", default_value = "")]
    salt: String,
    /// HKDF context info, or the whole KBKDF fixed input, in hex.
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
    let is_kbkdf = matches!(
        algorithm,
        Algorithm::KbkdfCtrHmacSha256
            | Algorithm::KbkdfCtrHmacSha384
            | Algorithm::KbkdfCtrHmacSha512
    );
    if !is_kbkdf && (args.label.is_some() || args.context.is_some()) {
        return Err(Failure::input(format!(
            "--label and --context apply to KBKDF only, not {algorithm}"
        )));
    }
    let output = if is_kbkdf {
        let secret = args
            .secret
            .ok_or_else(|| Failure::input(format!("{algorithm} needs --secret HEX")))?;
        let secret = Zeroizing::new(input::hex_arg("--secret", &secret)?);
        match args.label {
            Some(label) => {
                if !args.info.is_empty() {
                    return Err(Failure::input(
                        "give either --label/--context or --info (the whole fixed input)",
                    ));
                }
                let label = input::hex_arg("--label", &label)?;
                let context = input::hex_arg("--context", args.context.as_deref().unwrap_or(""))?;
                module.kbkdf_label_context(algorithm, &secret, &label, &context, args.length)?
            }
            None => {
                if args.context.is_some() {
                    return Err(Failure::input("--context needs --label"));
                }
                let info = input::hex_arg("--info", &args.info)?;
                module.kbkdf(algorithm, &secret, &info, args.length)?
            }
        }
    } else if is_hkdf {
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
