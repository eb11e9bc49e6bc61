//! `regula enc` / `regula dec`: raw bytes from stdin to stdout.
//!
//! Without `--iv`, `enc` lets the module generate the nonce/IV (the only approved way to use
//! AES-GCM under FIPS 140-3) and writes it in front of the output; `dec` without `--iv` reads
//! it back from there.
//!
//! `-a sm2` is SM2 public-key encryption: `--key` then names a key file (`enc`: the public key,
//! SubjectPublicKeyInfo PEM or DER; `dec`: the PKCS#8 private key, e.g. from `keygen -a sm2`),
//! and the ciphertext is GM/T 0009's ASN.1 form (what OpenSSL writes) or, with `--c1c3c2`,
//! `C1 ‖ C3 ‖ C2`.

use clap::Args;
use regula::service::{aead::NONCE_LEN, cipher::IV_LEN};
use regula::{Algorithm, CiphertextFormat, Family, Module};
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

const ALGORITHMS: &str = "aes-128-gcm, aes-256-gcm, chacha20-poly1305, aes-128-ctr, aes-256-ctr, \
     aes-128-cbc, aes-256-cbc (PKCS#7), sm4-ecb (whole blocks), sm4-cbc (PKCS#7), sm4-ctr, \
     sm2 (= sm2-encrypt, public-key encryption)";

#[derive(Args)]
pub struct EncArgs {
    #[command(flatten)]
    common: CipherArgs,
}

#[derive(Args)]
pub struct DecArgs {
    #[command(flatten)]
    common: CipherArgs,
}

#[derive(Args)]
struct CipherArgs {
    /// Algorithm: aes-128-gcm, aes-256-gcm, chacha20-poly1305, aes-128-ctr, aes-256-ctr,
    /// aes-128-cbc, aes-256-cbc, sm4-ecb, sm4-cbc, sm4-ctr, sm2.
    #[arg(short, long)]
    algorithm: String,
    /// The key, in hex; for sm2 a key file (enc: public key, dec: PKCS#8 private key; PEM or
    /// DER).
    #[arg(short, long, value_name = "HEX|FILE")]
    key: String,
    /// SM2 only: `C1 ‖ C3 ‖ C2` ciphertexts instead of GM/T 0009 ASN.1.
    #[arg(long)]
    c1c3c2: bool,
    /// Nonce (AEAD, 12 bytes) or IV (CTR/CBC, 16 bytes) in hex. Omit it to have the module
    /// generate one and put it in front of the ciphertext.
    #[arg(long, value_name = "HEX")]
    iv: Option<String>,
    /// Additional authenticated data in hex (AEAD only).
    #[arg(long, value_name = "HEX")]
    aad: Option<String>,
}

struct Prepared {
    module: Module,
    algorithm: Algorithm,
    key: Zeroizing<Vec<u8>>,
    iv: Option<Vec<u8>>,
    aad: Vec<u8>,
    input: Vec<u8>,
}

fn cipher_algorithm(name: &str) -> Result<Algorithm, Failure> {
    let name = if name.eq_ignore_ascii_case("sm2") {
        "sm2-encrypt"
    } else {
        name
    };
    let families = [Family::Aead, Family::Cipher, Family::PublicKeyEncryption];
    input::algorithm(name, &families).map_err(|failure| Failure {
        message: format!("{} (choose from {ALGORITHMS})", failure.message),
        ..failure
    })
}

/// SM2 encryption or decryption of stdin with the key file `--key`.
fn run_public_key(global: &GlobalOptions, args: CipherArgs, encrypt: bool) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = cipher_algorithm(&args.algorithm)?;
    if args.iv.is_some() || args.aad.is_some() {
        return Err(Failure::input(format!(
            "--iv and --aad do not apply to {algorithm}"
        )));
    }
    let format = if args.c1c3c2 {
        CiphertextFormat::C1C3C2
    } else {
        CiphertextFormat::Asn1
    };
    let key_file = Zeroizing::new(input::read_all(&args.key)?);
    let data = input::read_all("-")?;
    if encrypt {
        let public_key = input::pem_or_der(&key_file, &["PUBLIC KEY"], &args.key)?;
        let ciphertext = module.encrypt_to_public_key(algorithm, &public_key, &data, format)?;
        input::report(global, &ciphertext);
        input::write_stdout(&ciphertext)
    } else {
        let pkcs8 = Zeroizing::new(input::pem_or_der(&key_file, &["PRIVATE KEY"], &args.key)?);
        let key = module.decryption_key_from_pkcs8(algorithm, &pkcs8)?;
        input::report(global, &key);
        let plaintext = key.decrypt(&data, format)?;
        input::report(global, &plaintext);
        input::write_stdout(&plaintext)
    }
}

fn prepare(global: &GlobalOptions, args: CipherArgs) -> Result<Prepared, Failure> {
    let module = input::module(global)?;
    let algorithm = cipher_algorithm(&args.algorithm)?;
    if args.c1c3c2 {
        return Err(Failure::input(format!(
            "--c1c3c2 applies to sm2 only, not {algorithm}"
        )));
    }
    let key = Zeroizing::new(input::hex_arg("--key", &args.key)?);
    let iv = args.iv.map(|iv| input::hex_arg("--iv", &iv)).transpose()?;
    let aad = match args.aad {
        Some(_) if algorithm.family() != Family::Aead => {
            return Err(Failure::input(format!(
                "--aad applies to AEAD algorithms only, not {algorithm}"
            )));
        }
        Some(aad) => input::hex_arg("--aad", &aad)?,
        None => Vec::new(),
    };
    let input = input::read_all("-")?;
    Ok(Prepared {
        module,
        algorithm,
        key,
        iv,
        aad,
        input,
    })
}

pub fn run_enc(global: &GlobalOptions, args: EncArgs) -> Result<(), Failure> {
    if cipher_algorithm(&args.common.algorithm)?.family() == Family::PublicKeyEncryption {
        return run_public_key(global, args.common, true);
    }
    let Prepared {
        module,
        algorithm,
        key,
        iv,
        aad,
        input,
    } = prepare(global, args.common)?;
    let output = if algorithm.family() == Family::Aead {
        let key = module.aead_key(algorithm, &key)?;
        match iv {
            Some(nonce) => {
                let sealed = key.seal_with_nonce(&nonce, &aad, &input)?;
                input::report(global, &sealed);
                sealed.into_value()
            }
            None => {
                let sealed = key.seal(&aad, &input)?;
                input::report(global, &sealed);
                let sealed = sealed.into_value();
                [&sealed.nonce[..], &sealed.ciphertext].concat()
            }
        }
    } else {
        let key = module.cipher_key(algorithm, &key)?;
        let encrypted = key.encrypt(iv.as_deref(), &input)?;
        input::report(global, &encrypted);
        let encrypted = encrypted.into_value();
        if iv.is_some() {
            encrypted.ciphertext
        } else {
            [&encrypted.iv[..], &encrypted.ciphertext].concat()
        }
    };
    input::write_stdout(&output)
}

pub fn run_dec(global: &GlobalOptions, args: DecArgs) -> Result<(), Failure> {
    if cipher_algorithm(&args.common.algorithm)?.family() == Family::PublicKeyEncryption {
        return run_public_key(global, args.common, false);
    }
    let Prepared {
        module,
        algorithm,
        key,
        iv,
        aad,
        input,
    } = prepare(global, args.common)?;
    let aead_key = match algorithm.family() {
        Family::Aead => Some(module.aead_key(algorithm, &key)?),
        _ => None,
    };
    let cipher_key = match algorithm.family() {
        Family::Cipher => Some(module.cipher_key(algorithm, &key)?),
        _ => None,
    };
    // The nonce/IV `enc` put in front when the module chose it; ECB has none.
    let prefix_len = match &cipher_key {
        None => NONCE_LEN,
        Some(key) if key.takes_iv() => IV_LEN,
        Some(_) => 0,
    };
    let (iv, body) = match &iv {
        Some(iv) => (iv.as_slice(), input.as_slice()),
        None => {
            if input.len() < prefix_len {
                return Err(Failure::input(format!(
                    "input of {} bytes is too short to hold the {prefix_len}-byte nonce/IV prefix (or pass --iv)",
                    input.len()
                )));
            }
            input.split_at(prefix_len)
        }
    };
    let plaintext = match (aead_key, cipher_key) {
        (Some(key), _) => key.open(iv, &aad, body)?,
        (None, Some(key)) => key.decrypt(iv, body)?,
        (None, None) => return Err(Failure::input(format!("{algorithm} is not a cipher"))),
    };
    input::report(global, &plaintext);
    input::write_stdout(&plaintext)
}
