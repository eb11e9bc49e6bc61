//! `regula dgst`: sha256sum-style digests.

use std::io::Read;

use clap::Args;
use regula::{Family, Module};

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

#[derive(Args)]
pub struct DgstArgs {
    /// Digest algorithm: sha1, sha224, sha256, sha384, sha512, sha3-256, sha3-384, sha3-512.
    #[arg(short, long)]
    algorithm: String,
    /// Files to hash; `-` or none for stdin.
    files: Vec<String>,
}

pub fn run(global: &GlobalOptions, args: DgstArgs) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = input::algorithm(&args.algorithm, &[Family::Digest])?;
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files
    };
    // Like sha256sum: a file that can't be read is reported and the others still printed.
    let mut first_failure = None;
    for name in &files {
        match digest_file(&module, global, algorithm, name) {
            Ok(hex) => println!("{hex}  {name}"),
            Err(failure) if failure.code == crate::failure::INPUT_ERROR => {
                eprintln!("regula: {}", failure.message);
                first_failure.get_or_insert(failure);
            }
            Err(failure) => return Err(failure),
        }
    }
    match first_failure {
        None => Ok(()),
        Some(failure) => Err(Failure {
            code: failure.code,
            message: "some files could not be read".into(),
        }),
    }
}

fn digest_file(
    module: &Module,
    global: &GlobalOptions,
    algorithm: regula::Algorithm,
    name: &str,
) -> Result<String, Failure> {
    let mut context = module.digest_context(algorithm)?;
    let mut reader: Box<dyn Read> = if name == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(
            std::fs::File::open(name)
                .map_err(|error| Failure::input(format!("cannot read {name}: {error}")))?,
        )
    };
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = reader
            .read(&mut buffer)
            .map_err(|error| Failure::input(format!("cannot read {name}: {error}")))?;
        if read == 0 {
            break;
        }
        context.update(&buffer[..read]);
    }
    let digest = context.finish()?;
    input::report(global, &digest);
    Ok(hex::encode(&*digest))
}
