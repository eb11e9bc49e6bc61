//! `regula keygen|sign|verify` with PKCS#8 / SubjectPublicKeyInfo keys in PEM or DER.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use regula::Family;
use regula::key_encoding::KeyKind;
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

#[derive(Clone, Copy, ValueEnum)]
enum KeyFormat {
    Pem,
    Der,
}

#[derive(Args)]
pub struct KeygenArgs {
    /// Signature algorithm: ecdsa-p256, ecdsa-p384, ecdsa-p521, ed25519, rsa-pss-sha256, rsa-pss-sha384,
    /// rsa-pss-sha512, rsa-pkcs1-sha256, rsa-pkcs1-sha384, rsa-pkcs1-sha512, ml-dsa-44|65|87,
    /// rsa-pkcs1-sha1 and ecdsa-p256-sha1 (verify only), sm2 (the key also
    /// serves `enc`/`dec -a sm2`).
    #[arg(short, long)]
    algorithm: String,
    /// RSA modulus size: 2048, 3072, 4096 or 8192 (RSA only; default 3072).
    #[arg(long)]
    bits: Option<u32>,
    /// Where to write the private key (PKCS#8, created with mode 0600).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Where to write the public key (SubjectPublicKeyInfo).
    #[arg(long, value_name = "FILE")]
    pubout: Option<PathBuf>,
    /// Key file format.
    #[arg(long, value_enum, default_value = "pem")]
    format: KeyFormat,
}

#[derive(Args)]
pub struct SignArgs {
    /// Signature algorithm (as for keygen).
    #[arg(short, long)]
    algorithm: String,
    /// Private key file: PKCS#8, PEM or DER.
    #[arg(long, value_name = "FILE")]
    key: String,
    /// Write the signature here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// SM2 signer ID (default 1234567812345678, GM/T 0009-2012); SM2 only.
    #[arg(long, value_name = "ID")]
    id: Option<String>,
    /// Message file; `-` or none for stdin.
    file: Option<String>,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// Signature algorithm (as for keygen).
    #[arg(short, long)]
    algorithm: String,
    /// Public key file: SubjectPublicKeyInfo, PEM or DER.
    #[arg(long, value_name = "FILE")]
    pubkey: String,
    /// File holding the raw signature.
    #[arg(long, value_name = "FILE")]
    signature: String,
    /// SM2 signer ID (default 1234567812345678, GM/T 0009-2012); SM2 only.
    #[arg(long, value_name = "ID")]
    id: Option<String>,
    /// Message file; `-` or none for stdin.
    file: Option<String>,
}

fn signature_algorithm(name: &str) -> Result<regula::Algorithm, Failure> {
    // `sm2` names the SM2 signature here, as `openssl genpkey -algorithm SM2` does.
    let name = if name.eq_ignore_ascii_case("sm2") {
        "sm2-sign"
    } else {
        name
    };
    input::algorithm(name, &[Family::Signature])
}

fn encode(der: &[u8], label: &str, format: KeyFormat) -> Vec<u8> {
    match format {
        KeyFormat::Pem => pem::encode(&pem::Pem::new(label, der)).into_bytes(),
        KeyFormat::Der => der.to_vec(),
    }
}

pub fn run_keygen(global: &GlobalOptions, args: KeygenArgs) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = signature_algorithm(&args.algorithm)?;
    let key = module.generate_signing_key(algorithm, args.bits)?;
    input::report(global, &key);
    let private = key.to_pkcs8_der()?;
    let public = key.public_key_der()?;
    let private_encoded = Zeroizing::new(encode(&private, "PRIVATE KEY", args.format));
    input::write_file(&args.out, &private_encoded, true)?;
    if let Some(pubout) = &args.pubout {
        input::write_file(pubout, &encode(&public, "PUBLIC KEY", args.format), false)?;
    }
    // ML-DSA keys have a parameter set, not a bit size.
    match key.key_bits() {
        0 => eprintln!("{algorithm} key written to {}", args.out.display()),
        bits => eprintln!(
            "{algorithm} key of {bits} bits written to {}",
            args.out.display()
        ),
    }
    Ok(())
}

pub fn run_sign(global: &GlobalOptions, args: SignArgs) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = signature_algorithm(&args.algorithm)?;
    let key_file = Zeroizing::new(input::read_all(&args.key)?);
    let pkcs8 = input::key(&key_file, KeyKind::Private, &args.key)?;
    let key = module.signing_key_from_pkcs8(algorithm, &pkcs8)?;
    input::report(global, &key);
    let message = input::read_all(args.file.as_deref().unwrap_or("-"))?;
    let signature = match &args.id {
        Some(id) => key.sign_with_id(&message, id.as_bytes())?,
        None => key.sign(&message)?,
    };
    input::report(global, &signature);
    match &args.out {
        Some(path) => input::write_file(path, &signature, false),
        None => input::write_stdout(&signature),
    }
}

pub fn run_verify(global: &GlobalOptions, args: VerifyArgs) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = signature_algorithm(&args.algorithm)?;
    let public_key = input::key(
        &input::read_all(&args.pubkey)?,
        KeyKind::Public,
        &args.pubkey,
    )?;
    let signature = input::read_all(&args.signature)?;
    let message = input::read_all(args.file.as_deref().unwrap_or("-"))?;
    let verified = match &args.id {
        Some(id) => {
            module.verify_with_id(algorithm, &public_key, &message, &signature, id.as_bytes())?
        }
        None => module.verify(algorithm, &public_key, &message, &signature)?,
    };
    input::report(global, &verified);
    println!("Verified OK");
    Ok(())
}
