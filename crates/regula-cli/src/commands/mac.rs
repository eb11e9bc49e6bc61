//! `regula mac`: HMAC and CMAC tags.

use clap::Args;
use regula::Family;
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

#[derive(Args)]
pub struct MacArgs {
    /// MAC algorithm: hmac-sha224, hmac-sha256, hmac-sha384, hmac-sha512, aes-128-cmac, aes-256-cmac.
    #[arg(short, long)]
    algorithm: String,
    /// The key, in hex.
    #[arg(short, long, value_name = "HEX")]
    key: String,
    /// Check this tag (hex) instead of printing one; exit 1 if it does not match.
    #[arg(long, value_name = "HEX")]
    verify: Option<String>,
    /// Input file; `-` or none for stdin.
    file: Option<String>,
}

pub fn run(global: &GlobalOptions, args: MacArgs) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = input::algorithm(&args.algorithm, &[Family::Mac])?;
    let key = Zeroizing::new(input::hex_arg("--key", &args.key)?);
    let key = module.mac_key(algorithm, &key)?;
    let data = input::read_all(args.file.as_deref().unwrap_or("-"))?;
    match args.verify {
        Some(tag) => {
            let tag = input::hex_arg("--verify", &tag)?;
            let verified = key.verify(&data, &tag)?;
            input::report(global, &verified);
            println!("OK");
        }
        None => {
            let tag = key.sign(&data)?;
            input::report(global, &tag);
            println!("{}", hex::encode(&*tag));
        }
    }
    Ok(())
}
