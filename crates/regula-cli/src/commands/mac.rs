//! `regula mac`: HMAC, CMAC, GMAC and the SM4 MACs.

use clap::Args;
use regula::Family;
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

#[derive(Args)]
#[command(after_help = format!("{}\n\n{}", "Algorithms: every `mac` row of `regula policy show default` (hmac-sha256, aes-128-cmac, aes-128-gmac, hmac-sm3, hmac-md5, ...).\n\nExamples:\n  regula mac -a hmac-sha256 -k 0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b data.bin\n  regula mac -a aes-128-gmac -k 000102030405060708090a0b0c0d0e0f --iv 000000000000000000000001 message.bin   # SMB 3.1.1 signing", crate::EXIT_CODES))]
pub struct MacArgs {
    /// MAC algorithm (a `mac` row of `regula policy show default`).
    #[arg(short, long)]
    algorithm: String,
    /// The key, in hex.
    #[arg(short, long, value_name = "HEX")]
    key: String,
    /// GMAC only: the nonce, in hex (12 bytes is the usual; SMB 3.1.1 builds it from the
    /// MessageId). FIPS 140-3 does not approve a caller-chosen GCM/GMAC nonce.
    #[arg(long, value_name = "HEX")]
    iv: Option<String>,
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
    let nonce = args.iv.map(|iv| input::hex_arg("--iv", &iv)).transpose()?;
    match (&nonce, key.takes_nonce()) {
        (None, true) => return Err(Failure::input(format!("{algorithm} needs --iv HEX"))),
        (Some(_), false) => {
            return Err(Failure::input(format!("{algorithm} takes no --iv")));
        }
        _ => {}
    }
    let data = input::read_all(args.file.as_deref().unwrap_or("-"))?;
    match args.verify {
        Some(tag) => {
            let tag = input::hex_arg("--verify", &tag)?;
            let verified = match &nonce {
                Some(nonce) => key.verify_with_nonce(nonce, &data, &tag)?,
                None => key.verify(&data, &tag)?,
            };
            input::report(global, &verified);
            println!("OK");
        }
        None => {
            let tag = match &nonce {
                Some(nonce) => key.sign_with_nonce(nonce, &data)?,
                None => key.sign(&data)?,
            };
            input::report(global, &tag);
            println!("{}", hex::encode(&*tag));
        }
    }
    Ok(())
}
