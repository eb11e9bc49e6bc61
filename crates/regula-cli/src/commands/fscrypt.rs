//! `regula fscrypt`: the Linux fscrypt v2 key hierarchy, contents and file names, for scripts
//! that read or write what the kernel stores (see `regula_files::fscrypt`).

use clap::{Args, Subcommand};
use regula::{Indicator, Module};
use regula_files::fscrypt::{ContentsMode, FilenamesMode, MasterKey, NamePadding};
use serde_json::json;
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

pub const AFTER_HELP: &str = "\
Linux fscrypt v2 policies, as the kernel stores them: every key comes from the master key by
HKDF-SHA512 (key identifier; per-file keys from the file's 16-byte nonce); contents are encrypted
per data unit with AES-256-XTS (mode 1) or SM4-XTS (mode 7), the tweak being the data unit's
index; file names with AES-256-CTS-CBC (mode 4) or SM4-CTS-CBC (mode 8), zero-padded to the
policy's 4, 8, 16 or 32 bytes and to at least 16. DIRECT_KEY and IV_INO_LBLK policies are not
offered. The master key is the raw key given to the kernel (16 to 64 bytes; 64 for AES-256-XTS).

Under --policy gm the kernel's HKDF-SHA512 is served but flagged not approved (the indicator says
so); SM4-XTS and SM4-CTS-CBC are approved. AES-256-CTS-CBC is never approved (Regula steals
ciphertext around AWS-LC's CBC), so fips-140-3 refuses file names (exit 3).

Examples:
  regula fscrypt key-id --master-key-file master.key
  regula fscrypt encrypt-block --master-key-file master.key --nonce NONCEHEX --index 7 < plain.4k > cipher.4k
  regula fscrypt decrypt-block --master-key-file master.key --nonce NONCEHEX --index 7 < cipher.4k
  regula fscrypt encrypt-name --master-key-file master.key --nonce DIRNONCEHEX --padding 32 hello.txt
  regula fscrypt decrypt-name --policy gm --mode sm4-cts --master-key-file master.key --nonce DIRNONCEHEX CIPHERHEX

Exit codes:
  0  success
  2  usage or input error (key or nonce length, data not whole data units, bad hex)
  3  not approved by the policy (e.g. AES modes under gm, SM4 or file names under fips-140-3)
  4  module in error state (a self-test failed)";

#[derive(Subcommand)]
pub enum FscryptCommand {
    /// Print the master key's 16-byte identifier (what `fscrypt status` shows), in hex.
    #[command(after_help = AFTER_HELP)]
    KeyId(KeyIdArgs),
    /// Encrypt whole data units of a file (stdin to stdout, raw or --hex).
    #[command(after_help = AFTER_HELP)]
    EncryptBlock(BlockArgs),
    /// Decrypt whole data units of a file (stdin to stdout, raw or --hex).
    #[command(after_help = AFTER_HELP)]
    DecryptBlock(BlockArgs),
    /// Encrypt a file name as the kernel stores it; prints the ciphertext in hex.
    #[command(after_help = AFTER_HELP)]
    EncryptName(NameArgs),
    /// Decrypt a stored file name given in hex; prints the name.
    #[command(after_help = AFTER_HELP)]
    DecryptName(NameArgs),
}

#[derive(Args)]
struct MasterKeyArgs {
    /// The master key, in hex.
    #[arg(long, value_name = "HEX", conflicts_with = "master_key_file")]
    master_key: Option<String>,
    /// A file holding the raw master key (16 to 64 bytes, as `fscryptctl add_key` reads it;
    /// `-` for stdin where the command reads nothing else).
    #[arg(long, value_name = "FILE")]
    master_key_file: Option<String>,
}

#[derive(Args)]
pub struct KeyIdArgs {
    #[command(flatten)]
    key: MasterKeyArgs,
    /// Print a JSON object with the identifier and the service indicator.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct BlockArgs {
    #[command(flatten)]
    key: MasterKeyArgs,
    /// The file's 16-byte nonce (from its encryption context), in hex.
    #[arg(long, value_name = "HEX")]
    nonce: String,
    /// Contents mode: aes-256-xts (1) or sm4-xts (7).
    #[arg(long, default_value = "aes-256-xts", value_name = "MODE")]
    mode: String,
    /// Index of the first data unit of the input within the file.
    #[arg(long, default_value_t = 0, value_name = "N")]
    index: u64,
    /// Data-unit size in bytes: a power of two from 512 to 65536 (the filesystem block size).
    #[arg(long, default_value_t = 4096, value_name = "BYTES")]
    data_unit_size: usize,
    /// Read hex from stdin and write hex to stdout instead of raw bytes.
    #[arg(long)]
    hex: bool,
    /// Print a JSON object (output in hex, mode, data units, indicator) instead.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct NameArgs {
    #[command(flatten)]
    key: MasterKeyArgs,
    /// The directory's 16-byte nonce, in hex.
    #[arg(long, value_name = "HEX")]
    nonce: String,
    /// File-name mode: aes-256-cts (4) or sm4-cts (8).
    #[arg(long, default_value = "aes-256-cts", value_name = "MODE")]
    mode: String,
    /// encrypt-name: pad names to a multiple of 4, 8, 16 or 32 bytes (the policy's flags).
    #[arg(long, default_value_t = 32, value_name = "BYTES")]
    padding: usize,
    /// encrypt-name: the name is given in hex; decrypt-name: print the name in hex.
    #[arg(long)]
    hex: bool,
    /// Print a JSON object (name and ciphertext in hex, mode, indicator) instead.
    #[arg(long)]
    json: bool,
    /// encrypt-name: the file name; decrypt-name: the stored name in hex.
    name: String,
}

pub fn run(global: &GlobalOptions, command: FscryptCommand) -> Result<(), Failure> {
    match command {
        FscryptCommand::KeyId(args) => key_id(global, args),
        FscryptCommand::EncryptBlock(args) => block(global, args, true),
        FscryptCommand::DecryptBlock(args) => block(global, args, false),
        FscryptCommand::EncryptName(args) => name(global, args, true),
        FscryptCommand::DecryptName(args) => name(global, args, false),
    }
}

fn master_key(module: &Module, args: &MasterKeyArgs) -> Result<MasterKey, Failure> {
    let secret = Zeroizing::new(match (&args.master_key, &args.master_key_file) {
        (Some(hex), None) => input::hex_arg("--master-key", hex)?,
        (None, Some(path)) => input::read_all(path)?,
        _ => {
            return Err(Failure::input(
                "give the master key with --master-key HEX or --master-key-file FILE",
            ));
        }
    });
    Ok(MasterKey::new(module, &secret)?)
}

fn nonce(text: &str) -> Result<Vec<u8>, Failure> {
    input::hex_arg("--nonce", text)
}

fn contents_mode(name: &str) -> Result<ContentsMode, Failure> {
    match name.to_ascii_lowercase().as_str() {
        "aes-256-xts" | "1" => Ok(ContentsMode::Aes256Xts),
        "sm4-xts" | "7" => Ok(ContentsMode::Sm4Xts),
        other => Err(Failure::input(format!(
            "unknown contents mode `{other}`: aes-256-xts (1) or sm4-xts (7)"
        ))),
    }
}

fn filenames_mode(name: &str) -> Result<FilenamesMode, Failure> {
    match name.to_ascii_lowercase().as_str() {
        "aes-256-cts" | "aes-256-cts-cbc" | "4" => Ok(FilenamesMode::Aes256Cts),
        "sm4-cts" | "sm4-cts-cbc" | "8" => Ok(FilenamesMode::Sm4Cts),
        other => Err(Failure::input(format!(
            "unknown file-name mode `{other}`: aes-256-cts (4) or sm4-cts (8)"
        ))),
    }
}

fn print_json(value: &serde_json::Value) -> Result<(), Failure> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|error| Failure::input(format!("cannot encode JSON: {error}")))?;
    text.push('\n');
    input::write_stdout(text.as_bytes())
}

fn indicator_json(indicator: Indicator) -> serde_json::Value {
    serde_json::to_value(indicator).unwrap_or(serde_json::Value::Null)
}

fn key_id(global: &GlobalOptions, args: KeyIdArgs) -> Result<(), Failure> {
    let module = input::operational_module(global)?;
    let master = master_key(&module, &args.key)?;
    let identifier = master.key_identifier()?;
    input::report(global, &identifier);
    if args.json {
        print_json(&json!({
            "key_identifier": hex::encode(*identifier),
            "master_key_bytes": master.len(),
            "indicator": indicator_json(identifier.indicator()),
        }))
    } else {
        input::write_stdout(format!("{}\n", hex::encode(*identifier)).as_bytes())
    }
}

fn block(global: &GlobalOptions, args: BlockArgs, encrypt: bool) -> Result<(), Failure> {
    let module = input::operational_module(global)?;
    let mode = contents_mode(&args.mode)?;
    let nonce = nonce(&args.nonce)?;
    if args.key.master_key_file.as_deref() == Some("-") {
        return Err(Failure::input(
            "the data comes from stdin, so the master key cannot: use --master-key or a file",
        ));
    }
    let master = master_key(&module, &args.key)?;
    let data = input::read_all("-")?;
    let data = if args.hex {
        let text = String::from_utf8_lossy(&data);
        let cleaned: String = text.split_whitespace().collect();
        input::hex_arg("stdin", &cleaned)?
    } else {
        data
    };
    let key = master.contents_key(mode, &nonce)?;
    let output = if encrypt {
        key.encrypt(args.index, args.data_unit_size, &data)?
    } else {
        key.decrypt(args.index, args.data_unit_size, &data)?
    };
    input::report(global, &output);
    if args.json {
        let field = if encrypt { "ciphertext" } else { "plaintext" };
        print_json(&json!({
            "mode": mode.name(),
            "mode_number": mode.number(),
            "first_index": args.index,
            "data_unit_size": args.data_unit_size,
            "data_units": data.len() / args.data_unit_size,
            field: hex::encode(output.as_slice()),
            "indicator": indicator_json(output.indicator()),
        }))
    } else if args.hex {
        input::write_stdout(format!("{}\n", hex::encode(output.as_slice())).as_bytes())
    } else {
        input::write_stdout(&output)
    }
}

fn name(global: &GlobalOptions, args: NameArgs, encrypt: bool) -> Result<(), Failure> {
    let module = input::operational_module(global)?;
    let mode = filenames_mode(&args.mode)?;
    let nonce = nonce(&args.nonce)?;
    let padding = NamePadding::new(args.padding)?;
    let master = master_key(&module, &args.key)?;
    let key = master.filenames_key(mode, &nonce)?;
    let (name, ciphertext, indicator) = if encrypt {
        let name = if args.hex {
            input::hex_arg("the name", &args.name)?
        } else {
            args.name.into_bytes()
        };
        let ciphertext = key.encrypt(&name, padding)?;
        input::report(global, &ciphertext);
        let indicator = ciphertext.indicator();
        (name, ciphertext.into_value(), indicator)
    } else {
        let ciphertext = input::hex_arg("the stored name", &args.name)?;
        let name = key.decrypt(&ciphertext)?;
        input::report(global, &name);
        let indicator = name.indicator();
        (name.into_value(), ciphertext, indicator)
    };
    if args.json {
        return print_json(&json!({
            "mode": mode.name(),
            "mode_number": mode.number(),
            "padding": padding.bytes(),
            "name": String::from_utf8_lossy(&name),
            "name_hex": hex::encode(&name),
            "ciphertext": hex::encode(&ciphertext),
            "indicator": indicator_json(indicator),
        }));
    }
    let mut line = if encrypt || args.hex {
        hex::encode(if encrypt { &ciphertext } else { &name }).into_bytes()
    } else {
        name
    };
    line.push(b'\n');
    input::write_stdout(&line)
}
