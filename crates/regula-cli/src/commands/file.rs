//! `regula encrypt` and `regula decrypt`: files in Regula's streaming AEAD format
//! (docs/file-format.md), with the algorithms of the active policy.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use regula::{Family, IndicatorState, Module};
use regula_files::file_format::{
    DEFAULT_ITERATIONS, Decryptor, Encryptor, FileError, Identity, Recipient, RecipientIdentity,
    RecipientKind, Suite, Summary,
};
use serde::Serialize;
use zeroize::Zeroizing;

use crate::GlobalOptions;
use crate::failure::{CRYPTO_FAILURE, Failure, INPUT_ERROR, NOT_APPROVED};
use crate::input;

const RECIPIENT_LABEL: &str = "REGULA FILE RECIPIENT";
const IDENTITY_LABEL: &str = "REGULA FILE IDENTITY";

/// The environment variable a passphrase may come from (for scripts; never the command line).
pub const PASSPHRASE_ENV: &str = "REGULA_PASSPHRASE";
/// Inputs at least this large get a progress bar (when stderr is a terminal).
const PROGRESS_MIN_BYTES: u64 = 64 << 20;

pub const ENCRYPT_HELP: &str = "\
The format (docs/file-format.md): a header naming the AEAD, the PRF and the policy, one stanza per
key source (passphrase, key file, recipients' public keys) wrapping a random file key, an HMAC over the header, then 64 KiB segments sealed in
the STREAM construction. Truncation, reordering, swapped segments, header edits and trailing data
are all detected on decryption.

Algorithms follow the policy: AES-256-GCM with HMAC-SHA-256 under default and fips-140-3,
SM4-GCM with HMAC-SM3 under gm. Passphrases go through PBKDF2 (600,000 iterations by default).

The passphrase comes from --passphrase-file, the REGULA_PASSPHRASE environment variable, or a
prompt on the terminal (asked twice) — never from the command line.

Output goes to a temporary file beside OUT, renamed to OUT only once everything is written;
without -o it goes to stdout (refused when stdout is a terminal).

Examples:
  regula encrypt --passphrase -o notes.txt.rgf notes.txt
  regula encrypt --new-key-file backup.key -o db.tar.rgf db.tar
  regula encrypt -r alice.recipient -r bob.recipient -o report.pdf.rgf report.pdf
  tar c data | regula --policy fips-140-3 encrypt --key-file backup.key > data.tar.rgf

Exit codes:
  0  success
  2  usage or input error (unreadable input, unwritable output, bad key file, disk full)
  3  not approved by the policy (e.g. a passphrase shorter than 14 bytes under fips-140-3)
  4  module in error state (a self-test failed)";

pub const DECRYPT_HELP: &str = "\
Decrypts a file written by `regula encrypt`. The file's algorithms must be approved by the
active policy: a gm (SM4-GCM) file is refused under fips-140-3 with exit code 3. Files written by
the FIPS build and the default build are the same format; either build reads the other's.

With -o OUT, the plaintext goes to a temporary file beside OUT, renamed to OUT only after the
final segment has authenticated: on any failure nothing is left at OUT. To stdout, plaintext is
released batch by batch (2 MiB) as each authenticates, like age: if a later segment fails, what
was already written stays written and the exit code is 1 — use -o when that matters.

Examples:
  regula decrypt -o notes.txt notes.txt.rgf            # prompts for the passphrase
  regula decrypt --key-file backup.key -o db.tar db.tar.rgf
  regula decrypt -i alice.identity -o report.pdf report.pdf.rgf
  REGULA_PASSPHRASE=... regula decrypt --json -o out.bin in.rgf

Exit codes:
  0  success
  1  authentication failed: wrong key or passphrase, or the file is truncated, reordered,
     edited or extended
  2  usage or input error (not a Regula file, unreadable input, unwritable output, disk full)
  3  the policy does not approve the file's algorithms
  4  module in error state (a self-test failed)";

#[derive(Args)]
#[command(after_help = ENCRYPT_HELP)]
pub struct EncryptArgs {
    /// The file to encrypt (stdin when absent or `-`).
    file: Option<PathBuf>,
    /// Where to write the encrypted file (stdout when absent).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Protect the file with a passphrase (prompted unless --passphrase-file or
    /// REGULA_PASSPHRASE gives it).
    #[arg(short, long)]
    passphrase: bool,
    /// Read the passphrase from the first line of this file.
    #[arg(long, value_name = "FILE")]
    passphrase_file: Option<PathBuf>,
    /// A raw 32-byte key (binary, or 64 hex digits); may be given several times.
    #[arg(short = 'k', long, value_name = "FILE")]
    key_file: Vec<PathBuf>,
    /// A recipient's public key (PEM `REGULA FILE RECIPIENT`, from `regula recipient-keygen`);
    /// may be given several times.
    #[arg(short, long, value_name = "FILE")]
    recipient: Vec<PathBuf>,
    /// Generate a fresh random 32-byte key into FILE (created owner-only; never overwritten)
    /// and encrypt to it.
    #[arg(long, value_name = "FILE")]
    new_key_file: Option<PathBuf>,
    /// PBKDF2 iterations for the passphrase (at least 600000).
    #[arg(long, default_value_t = DEFAULT_ITERATIONS)]
    iterations: u32,
    /// The AEAD instead of the policy's choice: aes-256-gcm, sm4-gcm or chacha20-poly1305.
    #[arg(long, value_name = "NAME")]
    aead: Option<String>,
    /// Threads that seal segments (default: every CPU, at most 8).
    #[arg(long)]
    threads: Option<usize>,
    /// Print a JSON summary (to stdout, or to stderr when the file goes to stdout).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(after_help = DECRYPT_HELP)]
pub struct DecryptArgs {
    /// The file to decrypt (stdin when absent or `-`).
    file: Option<PathBuf>,
    /// Where to write the plaintext (stdout when absent).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Read the passphrase from the first line of this file.
    #[arg(long, value_name = "FILE")]
    passphrase_file: Option<PathBuf>,
    /// The raw 32-byte key the file was encrypted to.
    #[arg(short = 'k', long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// A recipient's private key (PEM `REGULA FILE IDENTITY`).
    #[arg(short, long, value_name = "FILE")]
    identity: Option<PathBuf>,
    /// Threads that open segments (default: every CPU, at most 8).
    #[arg(long)]
    threads: Option<usize>,
    /// Print a JSON summary (to stdout, or to stderr when the plaintext goes to stdout).
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    operation: &'static str,
    input: String,
    output: String,
    #[serde(flatten)]
    summary: &'a Summary,
    /// The active policy (the header's `policy` is the writer's).
    active_policy: &'a str,
    approved: bool,
    seconds: f64,
    mb_per_second: f64,
}

fn file_failure(error: FileError) -> Failure {
    let code = match error.kind() {
        regula::ErrorKind::Cryptographic => CRYPTO_FAILURE,
        regula::ErrorKind::NotApproved => NOT_APPROVED,
        regula::ErrorKind::ModuleState => crate::failure::MODULE_ERROR_STATE,
        regula::ErrorKind::Input => INPUT_ERROR,
    };
    Failure {
        code,
        message: error.to_string(),
    }
}

/// Where the output goes: a temporary file beside the target, or stdout.
enum Sink {
    Temp {
        file: tempfile::NamedTempFile,
        target: PathBuf,
    },
    /// An existing device or pipe named by -o (such as /dev/null): written in place, since it
    /// cannot be replaced by a rename.
    Device {
        file: File,
        target: PathBuf,
    },
    Stdout(io::StdoutLock<'static>),
}

impl Sink {
    fn open(output: Option<&Path>) -> Result<Sink, Failure> {
        let Some(target) = output else {
            return Ok(Sink::Stdout(io::stdout().lock()));
        };
        if let Ok(metadata) = std::fs::metadata(target)
            && !metadata.is_file()
            && !metadata.is_dir()
        {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(target)
                .map_err(|error| output_failure(target, error))?;
            return Ok(Sink::Device {
                file,
                target: target.to_path_buf(),
            });
        }
        let directory = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let file = tempfile::Builder::new()
            .prefix(".regula-")
            .suffix(".partial")
            .tempfile_in(directory)
            .map_err(|error| {
                Failure::input(format!(
                    "cannot create a temporary file in {}: {error}",
                    directory.display()
                ))
            })?;
        Ok(Sink::Temp {
            file,
            target: target.to_path_buf(),
        })
    }

    fn name(&self) -> String {
        match self {
            Sink::Temp { target, .. } | Sink::Device { target, .. } => target.display().to_string(),
            Sink::Stdout(_) => "-".into(),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Temp { file, .. } => file.as_file_mut(),
            Sink::Device { file, .. } => file,
            Sink::Stdout(stdout) => stdout,
        }
    }

    /// Makes the output durable and puts it in place; the temporary file vanishes on failure.
    fn commit(self) -> Result<(), Failure> {
        match self {
            Sink::Temp { file, target } => {
                file.as_file()
                    .sync_all()
                    .map_err(|error| output_failure(&target, error))?;
                file.persist(&target)
                    .map_err(|error| output_failure(&target, error.error))?;
                Ok(())
            }
            Sink::Device { mut file, target } => {
                file.flush().map_err(|error| output_failure(&target, error))
            }
            Sink::Stdout(mut stdout) => stdout
                .flush()
                .map_err(|error| Failure::input(format!("cannot write to stdout: {error}"))),
        }
    }
}

fn output_failure(target: &Path, error: io::Error) -> Failure {
    Failure::input(format!("cannot write {}: {error}", target.display()))
}

/// The input, its display name and its size when known.
type Input = (Box<dyn Read + Send>, String, Option<u64>);

fn open_input(file: Option<&Path>) -> Result<Input, Failure> {
    match file {
        None => Ok((Box::new(io::stdin()), "-".into(), None)),
        Some(path) if path.as_os_str() == "-" => Ok((Box::new(io::stdin()), "-".into(), None)),
        Some(path) => {
            let file = File::open(path).map_err(|error| {
                Failure::input(format!("cannot read {}: {error}", path.display()))
            })?;
            let size = file
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            Ok((Box::new(file), path.display().to_string(), size))
        }
    }
}

/// A progress bar on stderr for large inputs, only when stderr is a terminal.
fn progress(size: Option<u64>, json: bool) -> Option<ProgressBar> {
    if json || !io::stderr().is_terminal() || size.is_some_and(|size| size < PROGRESS_MIN_BYTES) {
        return None;
    }
    let bar = match size {
        Some(size) => ProgressBar::new(size),
        None => ProgressBar::new_spinner(),
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {bytes}/{total_bytes} [{bar:30}] {binary_bytes_per_sec} ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

fn read_input_with_progress<'a>(
    input: Box<dyn Read + Send + 'a>,
    bar: &Option<ProgressBar>,
) -> Box<dyn Read + Send + 'a> {
    match bar {
        Some(bar) => Box::new(bar.wrap_read(input)),
        None => input,
    }
}

/// The first line of a passphrase file, without its line ending.
fn passphrase_from_file(path: &Path) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let contents = Zeroizing::new(
        std::fs::read(path)
            .map_err(|error| Failure::input(format!("cannot read {}: {error}", path.display())))?,
    );
    let line = contents.split(|byte| *byte == b'\n').next().unwrap_or(&[]);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    Ok(Zeroizing::new(line.to_vec()))
}

/// The passphrase from --passphrase-file, the environment or the terminal.
fn passphrase(file: Option<&Path>, confirm: bool) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let passphrase = if let Some(path) = file {
        passphrase_from_file(path)?
    } else if let Some(value) = std::env::var_os(PASSPHRASE_ENV) {
        Zeroizing::new(value.into_encoded_bytes())
    } else {
        let first =
            Zeroizing::new(rpassword::prompt_password("Passphrase: ").map_err(|error| {
                Failure::input(format!(
                    "cannot prompt for a passphrase ({error}); use --passphrase-file or \
                 {PASSPHRASE_ENV}"
                ))
            })?);
        if confirm {
            let second = Zeroizing::new(
                rpassword::prompt_password("Passphrase again: ")
                    .map_err(|error| Failure::input(format!("cannot prompt: {error}")))?,
            );
            if *first != *second {
                return Err(Failure::input("the passphrases differ"));
            }
        }
        Zeroizing::new(first.as_bytes().to_vec())
    };
    if passphrase.is_empty() {
        return Err(Failure::input("the passphrase is empty"));
    }
    Ok(passphrase)
}

/// A key file: 32 bytes, or 64 hex digits with optional surrounding whitespace.
fn read_key_file(path: &Path) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let contents = Zeroizing::new(std::fs::read(path).map_err(|error| {
        Failure::input(format!("cannot read key file {}: {error}", path.display()))
    })?);
    if contents.len() == 32 {
        return Ok(contents);
    }
    let text = std::str::from_utf8(&contents).unwrap_or("").trim();
    if text.len() == 64
        && let Ok(key) = hex::decode(text)
    {
        return Ok(Zeroizing::new(key));
    }
    Err(Failure::input(format!(
        "key file {} must hold 32 bytes or 64 hex digits",
        path.display()
    )))
}

/// Writes a fresh key (module randomness) to a new owner-only file, as 64 hex digits.
fn new_key_file(module: &Module, path: &Path) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let key = regula_files::file_format::new_key(module).map_err(Failure::from)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let text = Zeroizing::new(format!("{}\n", hex::encode(&*key)));
    options
        .open(path)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
        })
        .map_err(|error| {
            Failure::input(format!(
                "cannot create key file {}: {error}",
                path.display()
            ))
        })?;
    Ok(key)
}

fn report(
    operation: &'static str,
    input: String,
    sink_name: String,
    summary: &Summary,
    module: &Module,
    started: Instant,
) -> Result<(), Failure> {
    let seconds = started.elapsed().as_secs_f64();
    let report = Report {
        operation,
        input,
        output: sink_name.clone(),
        summary,
        active_policy: module.policy().name(),
        approved: module.indicator_state() == IndicatorState::Approved,
        seconds,
        mb_per_second: summary.plaintext_bytes as f64 / 1e6 / seconds.max(1e-9),
    };
    let line = serde_json::to_string(&report)
        .map_err(|error| Failure::input(format!("cannot encode the summary: {error}")))?;
    if sink_name == "-" {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    Ok(())
}

pub fn run_encrypt(global: &GlobalOptions, args: EncryptArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let module = input::operational_module(global)?.scope();
    if args.output.is_none() && io::stdout().is_terminal() {
        return Err(Failure::input(
            "refusing to write an encrypted file to a terminal; use -o OUT or redirect stdout",
        ));
    }
    let wants_passphrase = args.passphrase || args.passphrase_file.is_some();
    if !wants_passphrase
        && args.key_file.is_empty()
        && args.new_key_file.is_none()
        && args.recipient.is_empty()
    {
        return Err(Failure::input(
            "give a key source: --passphrase, --passphrase-file, --key-file, --new-key-file \
             or --recipient",
        ));
    }
    if wants_passphrase && args.iterations < DEFAULT_ITERATIONS {
        return Err(Failure::input(format!(
            "--iterations must be at least {DEFAULT_ITERATIONS}"
        )));
    }
    let suite = match &args.aead {
        Some(name) => {
            let aead = input::algorithm(name, &[Family::Aead])?;
            Suite::with_aead(module.policy(), aead).map_err(file_failure)?
        }
        None => Suite::for_policy(module.policy()).map_err(file_failure)?,
    };
    let mut encryptor = Encryptor::with_suite(&module, suite).map_err(file_failure)?;
    if let Some(threads) = args.threads {
        encryptor.threads(threads);
    }
    if wants_passphrase {
        let passphrase = passphrase(args.passphrase_file.as_deref(), true)?;
        encryptor
            .add_passphrase(&passphrase, args.iterations)
            .map_err(file_failure)?;
    }
    for path in &args.key_file {
        let key = read_key_file(path)?;
        encryptor.add_key_file(&key).map_err(file_failure)?;
    }
    for path in &args.recipient {
        let bytes = read_pem(path, RECIPIENT_LABEL)?;
        let recipient = Recipient::from_bytes(&bytes).map_err(file_failure)?;
        encryptor.add_recipient(&recipient).map_err(file_failure)?;
    }
    let (input, input_name, size) = open_input(args.file.as_deref())?;
    if let Some(path) = &args.new_key_file {
        let key = new_key_file(&module, path)?;
        encryptor.add_key_file(&key).map_err(file_failure)?;
    }
    let bar = progress(size, args.json);
    let mut input = read_input_with_progress(input, &bar);
    let mut sink = Sink::open(args.output.as_deref())?;
    let sink_name = sink.name();
    let summary = {
        let failure = |error| stream_failure(error, &input_name, &sink_name);
        let mut writer = encryptor.writer(sink.writer()).map_err(failure)?;
        writer.write_from(&mut input).map_err(failure)?;
        writer.finish().map_err(failure)?.1
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    sink.commit()?;
    if args.json {
        report("encrypt", input_name, sink_name, &summary, &module, started)?;
    }
    Ok(())
}

/// I/O errors name the file; others are the format's.
fn stream_failure(error: FileError, input_name: &str, sink_name: &str) -> Failure {
    let name = |name: &str| {
        if name == "-" {
            "stdout".to_string()
        } else {
            name.to_string()
        }
    };
    match error {
        FileError::Io(error) => Failure::input(format!(
            "cannot read {}: {error}",
            if input_name == "-" {
                "stdin".to_string()
            } else {
                input_name.to_string()
            }
        )),
        FileError::Output(error) => {
            Failure::input(format!("cannot write {}: {error}", name(sink_name)))
        }
        other => file_failure(other),
    }
}

pub fn run_decrypt(global: &GlobalOptions, args: DecryptArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let module = input::operational_module(global)?.scope();
    let (input, input_name, size) = open_input(args.file.as_deref())?;
    let bar = progress(size, args.json);
    let input = read_input_with_progress(input, &bar);
    let decryptor = Decryptor::new(&module, input).map_err(|error| match error {
        FileError::Module(regula::Error::NotApproved { .. }) => Failure {
            code: NOT_APPROVED,
            message: format!("cannot decrypt {input_name}: {error}"),
        },
        other => file_failure(other),
    })?;
    let key = args.key_file.as_deref().map(read_key_file).transpose()?;
    let recipient_identity = match &args.identity {
        Some(path) => Some(
            RecipientIdentity::from_bytes(&read_pem(path, IDENTITY_LABEL)?)
                .map_err(file_failure)?,
        ),
        None => None,
    };
    let passphrase = match (&key, &recipient_identity) {
        (None, None) => Some(passphrase(args.passphrase_file.as_deref(), false)?),
        _ => None,
    };
    let identity = match (&key, &recipient_identity, &passphrase) {
        (Some(key), _, _) => Identity::KeyFile(key),
        (None, Some(identity), _) => Identity::Recipient(identity),
        (None, None, Some(passphrase)) => Identity::Passphrase(passphrase),
        (None, None, None) => return Err(Failure::input("no key given")),
    };
    let mut reader = decryptor.unlock(&identity).map_err(file_failure)?;
    if let Some(threads) = args.threads {
        reader.threads(threads);
    }
    let mut sink = Sink::open(args.output.as_deref())?;
    let sink_name = sink.name();
    let summary = reader
        .read_to(sink.writer())
        .map_err(|error| stream_failure(error, &input_name, &sink_name))?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    sink.commit()?;
    if args.json {
        report("decrypt", input_name, sink_name, &summary, &module, started)?;
    }
    Ok(())
}

/// A PEM file's contents under the expected label.
fn read_pem(path: &Path, label: &str) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let text = Zeroizing::new(
        std::fs::read(path)
            .map_err(|error| Failure::input(format!("cannot read {}: {error}", path.display())))?,
    );
    let parsed = pem::parse(&*text)
        .map_err(|error| Failure::input(format!("{}: bad PEM ({error})", path.display())))?;
    if parsed.tag() != label {
        return Err(Failure::input(format!(
            "{}: PEM label is `{}`, expected `{label}`",
            path.display(),
            parsed.tag()
        )));
    }
    Ok(Zeroizing::new(parsed.into_contents()))
}

pub const KEYGEN_HELP: &str = "\
Writes the private key (PEM `REGULA FILE IDENTITY`, owner-only, never overwriting) to -o and
prints the public key (PEM `REGULA FILE RECIPIENT`) to stdout or --recipient-out; give the
latter to `regula encrypt -r`, the former to `regula decrypt -i`.

Kinds: mlkem768-x25519 (hybrid; the default under `default`), mlkem1024 (under fips-140-3),
ecdh-p384 (fips-140-3), sm2 (SM2 encryption; under gm).

Examples:
  regula recipient-keygen -o alice.identity > alice.recipient
  regula --policy fips-140-3 recipient-keygen --kind ecdh-p384 -o bob.identity --recipient-out bob.recipient

Exit codes:
  0  success
  2  usage or input error (output exists, unknown kind)
  3  the kind's algorithms are not approved by the policy
  4  module in error state (a self-test failed)";

#[derive(Args)]
#[command(after_help = KEYGEN_HELP)]
pub struct RecipientKeygenArgs {
    /// Where to write the private key.
    #[arg(short, long, value_name = "IDENTITY")]
    output: PathBuf,
    /// Where to write the public key (stdout when absent).
    #[arg(long, value_name = "FILE")]
    recipient_out: Option<PathBuf>,
    /// mlkem768-x25519, mlkem1024, ecdh-p384 or sm2 (default: the policy's first choice).
    #[arg(long)]
    kind: Option<String>,
}

pub fn run_recipient_keygen(
    global: &GlobalOptions,
    args: RecipientKeygenArgs,
) -> Result<(), Failure> {
    let module = input::operational_module(global)?;
    let kind = match &args.kind {
        Some(name) => RecipientKind::from_name(name).ok_or_else(|| {
            Failure::input(format!(
                "unknown recipient kind `{name}` (mlkem768-x25519, mlkem1024, ecdh-p384, sm2)"
            ))
        })?,
        None => RecipientKind::for_policy(module.policy()).ok_or_else(|| {
            Failure::input(format!(
                "policy {} approves no recipient kind",
                module.policy().name()
            ))
        })?,
    };
    let identity = RecipientIdentity::generate(&module, kind).map_err(file_failure)?;
    let private = Zeroizing::new(pem::encode(&pem::Pem::new(
        IDENTITY_LABEL,
        identity.to_bytes().to_vec(),
    )));
    let public = pem::encode(&pem::Pem::new(
        RECIPIENT_LABEL,
        identity.recipient().to_bytes(),
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
        .open(&args.output)
        .and_then(|mut file| file.write_all(private.as_bytes()))
        .map_err(|error| {
            Failure::input(format!("cannot create {}: {error}", args.output.display()))
        })?;
    match &args.recipient_out {
        Some(path) => input::write_file(path, public.as_bytes(), false)?,
        None => input::write_stdout(public.as_bytes())?,
    }
    Ok(())
}
