//! `regula enc` / `regula dec`: raw bytes from stdin to stdout.
//!
//! Without `--iv`, `enc` lets the module generate the nonce/IV (the only approved way to use
//! AES-GCM under FIPS 140-3) and writes it in front of the output; `dec` without `--iv` reads
//! it back from there.
//!
//! `-a sm2` is SM2 public-key encryption: `--key` then names a key file (`enc`: the public key,
//! SubjectPublicKeyInfo PEM or DER; `dec`: the PKCS#8 private key, e.g. from `keygen -a sm2`),
//! and the ciphertext is GM/T 0009's ASN.1 form (what OpenSSL writes) or, with `--c1c3c2`,
//! `C1 ‖ C3 ‖ C2`. `-a rsa-oaep-sha256` (and the other `rsa-oaep-*` rows) takes key files the
//! same way: RSA-OAEP with MGF1 on the same hash and the empty label, as
//! `openssl pkeyutl -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256` does.

use clap::Args;
use regula::key_encoding::KeyKind;
use regula::service::aead::NONCE_LEN;
use regula::{Algorithm, CiphertextFormat, Family, Module};
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

const CIPHER_HELP: &str = "Algorithms: every `aead` and `cipher` row of `regula policy show default`, sm2 (= sm2-encrypt) and the rsa-oaep-* rows (key files, no label). CBC modes of AES and SM4 pad with PKCS#7; sm4-ecb, des-cbc and des-ede3-cbc take whole blocks; aes-*-kw/kwp wrap key data (no IV); aes-256-xts takes a 64-byte key and the data-unit number as a 16-byte --iv.\n\nExamples:\n  regula enc -a aes-256-gcm -k KEYHEX < plain > sealed          # module-chosen nonce, prefixed\n  regula dec -a aes-128-ccm -k KEYHEX --iv 11BYTENONCEHEX --aad HEADERHEX < ciphertext_and_tag   # SMB 3.0 transform";

#[derive(Args)]
#[command(after_help = format!("{CIPHER_HELP}\n\n{}", crate::EXIT_CODES))]
pub struct EncArgs {
    #[command(flatten)]
    common: CipherArgs,
}

#[derive(Args)]
#[command(after_help = format!("{CIPHER_HELP}\n\n{}", crate::EXIT_CODES))]
pub struct DecArgs {
    #[command(flatten)]
    common: CipherArgs,
}

#[derive(Args)]
struct CipherArgs {
    /// Algorithm (an `aead` or `cipher` row of `regula policy show default`, or sm2).
    #[arg(short, long)]
    algorithm: String,
    /// The key, in hex; for sm2 a key file (enc: public key, dec: PKCS#8 private key; PEM or
    /// DER).
    #[arg(short, long, value_name = "HEX|FILE")]
    key: String,
    /// SM2 only: `C1 ‖ C3 ‖ C2` ciphertexts instead of GM/T 0009 ASN.1.
    #[arg(long)]
    c1c3c2: bool,
    /// Nonce (AEAD: 12 bytes; AES-CCM 7 to 13) or IV (16 bytes; DES 8; XTS: the tweak) in hex.
    /// Omit it to have the module generate one and put it in front of the ciphertext.
    #[arg(long, value_name = "HEX")]
    iv: Option<String>,
    /// AEAD tag length in bytes (AES-CCM: 4 to 16, even; other AEADs: 16).
    #[arg(long, value_name = "BYTES", default_value_t = 16)]
    tag_len: usize,
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
    tag_len: usize,
    input: Vec<u8>,
}

fn cipher_algorithm(name: &str) -> Result<Algorithm, Failure> {
    let name = if name.eq_ignore_ascii_case("sm2") {
        "sm2-encrypt"
    } else {
        name
    };
    let families = [Family::Aead, Family::Cipher, Family::PublicKeyEncryption];
    input::algorithm(name, &families)
}

/// SM2 or RSA-OAEP encryption or decryption of stdin with the key file `--key`.
fn run_public_key(global: &GlobalOptions, args: CipherArgs, encrypt: bool) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = cipher_algorithm(&args.algorithm)?;
    if args.iv.is_some() || args.aad.is_some() {
        return Err(Failure::input(format!(
            "--iv and --aad do not apply to {algorithm}"
        )));
    }
    if args.c1c3c2 && algorithm != Algorithm::Sm2Encrypt {
        return Err(Failure::input(format!(
            "--c1c3c2 applies to sm2 only, not {algorithm}"
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
        let public_key = input::key(&key_file, KeyKind::Public, &args.key)?;
        let ciphertext = module.encrypt_to_public_key(algorithm, &public_key, &data, format)?;
        input::report(global, &ciphertext);
        input::write_stdout(&ciphertext)
    } else {
        let pkcs8 = input::key(&key_file, KeyKind::Private, &args.key)?;
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
    if args.tag_len != 16 && algorithm.family() != Family::Aead {
        return Err(Failure::input(format!(
            "--tag-len applies to AEAD algorithms only, not {algorithm}"
        )));
    }
    let input = input::read_all("-")?;
    Ok(Prepared {
        module,
        algorithm,
        key,
        iv,
        aad,
        tag_len: args.tag_len,
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
        tag_len,
        input,
    } = prepare(global, args.common)?;
    let output = if algorithm.family() == Family::Aead {
        let key = module.aead_key_with_tag_len(algorithm, &key, tag_len)?;
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
        tag_len,
        input,
    } = prepare(global, args.common)?;
    let aead_key = match algorithm.family() {
        Family::Aead => Some(module.aead_key_with_tag_len(algorithm, &key, tag_len)?),
        _ => None,
    };
    let cipher_key = match algorithm.family() {
        Family::Cipher => Some(module.cipher_key(algorithm, &key)?),
        _ => None,
    };
    // The nonce/IV `enc` put in front when the module chose it; ECB, RC4 and key wrap have none.
    let prefix_len = match &cipher_key {
        None => NONCE_LEN,
        Some(key) => key.iv_len(),
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
