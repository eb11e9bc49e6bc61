//! `regula`: policies, self-tests and cryptographic primitives from the command line.

// One function may use `unsafe`: restoring SIGPIPE (`end_quietly_on_closed_stdout`).
#![deny(unsafe_code)]

mod commands;
mod failure;
mod html;
mod input;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use failure::Failure;

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  cryptographic failure (bad tag, bad signature, failed decryption)
  2  usage or input error (bad arguments, unreadable file, malformed key or policy)
  3  not approved by the policy
  4  module in error state (a self-test failed)
  5  undetermined (regula audit: no evidence either way)";

/// A cryptographic module with a policy in front of it.
///
/// Pick a policy with --policy: a built-in profile (default, fips-140-3, gm, cnsa-2.0) or a TOML policy
/// file. Regula then serves only what the policy allows, runs its self-tests first, and can
/// report for every operation whether it was approved.
#[derive(Parser)]
#[command(name = "regula", version, after_help = EXIT_CODES, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    global: GlobalOptions,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Clone)]
pub struct GlobalOptions {
    /// Built-in profile (default, fips-140-3, gm, cnsa-2.0) or path to a TOML policy file.
    #[arg(
        long,
        global = true,
        default_value = "default",
        value_name = "NAME|FILE"
    )]
    pub policy: String,
    /// Print each operation's service indicator to stderr as a JSON line.
    #[arg(long, global = true)]
    pub indicator: bool,
    /// Evaluate the policy as on this day (YYYY-MM-DD) instead of today: dated rules (SHA-1's
    /// end, NIST IR 8547's RSA/ECC deprecations, CNSA 2.0's milestones) apply as on that day.
    #[arg(long, global = true, value_name = "YYYY-MM-DD", value_parser = parse_date)]
    pub as_of: Option<regula::policy::Date>,
    /// When the command ends (a server: at shutdown), write the runtime CBOM to FILE: a
    /// CycloneDX 1.6 document listing the algorithms this process actually used, approved or
    /// not, with operation counts and the dates their approval ends ("-" for stdout).
    #[arg(long, global = true, value_name = "FILE")]
    pub cbom: Option<std::path::PathBuf>,
}

fn parse_date(text: &str) -> Result<regula::policy::Date, String> {
    regula::policy::Date::parse(text)
}

#[derive(Subcommand)]
enum Command {
    /// The main job: self-tests, the built-in vector pass, a short benchmark, the backend and
    /// CPU, and a verdict; optionally an HTML report.
    #[command(after_help = commands::check::AFTER_HELP)]
    Check(commands::check::CheckArgs),
    /// Run every known-answer self-test of the policy and report each one.
    #[command(after_help = commands::selftest::AFTER_HELP)]
    Selftest(commands::selftest::SelftestArgs),
    /// Show versions, the linked AWS-LC (FIPS or not), CPU features and implementations.
    Info(commands::info::InfoArgs),
    /// List, show and check policies.
    #[command(subcommand)]
    Policy(commands::policy::PolicyCommand),
    /// Hash files or stdin, printing `sha256sum`-style lines, or check such lines (--check).
    #[command(after_help = commands::dgst::AFTER_HELP)]
    Dgst(commands::dgst::DgstArgs),
    /// Compute or verify a MAC (HMAC, CMAC, GMAC, SM4 MACs) over a file or stdin.
    // Examples and exit codes: the arguments struct's after_help.
    Mac(commands::mac::MacArgs),
    /// Derive key material with HKDF, PBKDF2 or KBKDF (SP 800-108); prints hex.
    // Examples and exit codes: the arguments struct's after_help.
    Kdf(commands::kdf::KdfArgs),
    /// Encrypt stdin to stdout (raw bytes); AEAD tags are appended.
    // Examples and exit codes: the arguments struct's after_help.
    Enc(commands::cipher::EncArgs),
    /// Decrypt stdin to stdout (raw bytes); nothing is written unless it all succeeds.
    // Examples and exit codes: the arguments struct's after_help.
    Dec(commands::cipher::DecArgs),
    /// Generate a signing key pair (PKCS#8 and SubjectPublicKeyInfo, PEM or DER).
    #[command(after_help = EXIT_CODES)]
    Keygen(commands::sign::KeygenArgs),
    /// Sign a file or stdin with a private key; writes the raw signature.
    #[command(after_help = EXIT_CODES)]
    Sign(commands::sign::SignArgs),
    /// Verify a signature over a file or stdin with a public key.
    #[command(after_help = EXIT_CODES)]
    Verify(commands::sign::VerifyArgs),
    /// Run test vectors (NIST CAVP, cryptography-vectors, evp_test, Wycheproof) through the
    /// module under the policy; report passed/failed/skipped per file.
    #[command(after_help = commands::vectors::AFTER_HELP)]
    Vectors(commands::vectors::VectorsArgs),
    /// NIST ACVP: answer recorded vector sets through the module under the policy and compare
    /// with the expected answers, per algorithm / mode / test type.
    #[command(subcommand)]
    Acvp(commands::acvp::AcvpCommand),
    /// Measure throughput (MB/s) and operation rates beside OpenSSL, GnuTLS, libcrypto and raw
    /// aws-lc-rs, in the same run, as ratios.
    #[command(after_help = commands::bench::AFTER_HELP)]
    Bench(commands::bench::BenchArgs),
    /// Which cryptographic modules ELF binaries link or load, and whether one is a validated
    /// FIPS module (AWS-LC, BoringCrypto, Go's FIPS module, OpenSSL, GnuTLS, ring, RustCrypto,
    /// Regula).
    #[command(after_help = commands::audit::AFTER_HELP)]
    Audit(commands::audit::AuditArgs),
    /// Encrypt a file or stdin into Regula's streaming AEAD format (algorithms from the policy).
    Encrypt(commands::file::EncryptArgs),
    /// Decrypt a file written by `regula encrypt`; with -o, nothing is left behind on failure.
    Decrypt(commands::file::DecryptArgs),
    /// Generate a recipient key pair for `regula encrypt -r` / `regula decrypt -i`.
    RecipientKeygen(commands::file::RecipientKeygenArgs),
    /// TLS from the policy: show the offer, issue test certificates, serve, connect, proxy.
    #[command(subcommand, after_help = commands::tls::AFTER_HELP)]
    Tls(commands::tls::TlsCommand),
    /// Linux fscrypt v2: key identifier, data units (AES/SM4-XTS) and file names
    /// (AES/SM4-CTS-CBC) as the kernel stores them.
    #[command(subcommand, after_help = commands::fscrypt::AFTER_HELP)]
    Fscrypt(commands::fscrypt::FscryptCommand),
}

fn run(cli: Cli) -> Result<(), Failure> {
    let global = &cli.global;
    match cli.command {
        Command::Check(args) => commands::check::run(global, args),
        Command::Vectors(args) => commands::vectors::run(global, args),
        Command::Acvp(command) => commands::acvp::run(global, command),
        Command::Selftest(args) => commands::selftest::run(global, args),
        Command::Info(args) => commands::info::run(args),
        Command::Policy(command) => commands::policy::run(global, command),
        Command::Dgst(args) => commands::dgst::run(global, args),
        Command::Mac(args) => commands::mac::run(global, args),
        Command::Kdf(args) => commands::kdf::run(global, args),
        Command::Enc(args) => commands::cipher::run_enc(global, args),
        Command::Dec(args) => commands::cipher::run_dec(global, args),
        Command::Keygen(args) => commands::sign::run_keygen(global, args),
        Command::Sign(args) => commands::sign::run_sign(global, args),
        Command::Verify(args) => commands::sign::run_verify(global, args),
        Command::Bench(args) => commands::bench::run(global, args),
        Command::Tls(command) => commands::tls::run(global, command),
        Command::Fscrypt(command) => commands::fscrypt::run(global, command),
        Command::Audit(args) => commands::audit::run(args),
        Command::Encrypt(args) => commands::file::run_encrypt(global, args),
        Command::Decrypt(args) => commands::file::run_decrypt(global, args),
        Command::RecipientKeygen(args) => commands::file::run_recipient_keygen(global, args),
    }
}

/// Writes the `--cbom` document of the module the command loaded, whatever the outcome: a
/// failed run's CBOM still says what was used before the failure.
fn write_cbom(path: &std::path::Path) -> Result<(), Failure> {
    let Some(module) = input::loaded_module() else {
        return Err(Failure::input(
            "--cbom: this command loads no cryptographic module, so there is nothing to list",
        ));
    };
    let text = format!("{:#}\n", module.cbom());
    if path.as_os_str() == "-" {
        print!("{text}");
        return Ok(());
    }
    std::fs::write(path, text)
        .map_err(|error| Failure::input(format!("cannot write {}: {error}", path.display())))?;
    eprintln!("runtime CBOM written to {}", path.display());
    Ok(())
}

/// Rust ignores SIGPIPE, so a closed stdout (`regula info | grep -q ...`, `| head`) turns every
/// later `println!` into a panic. A command-line tool should end quietly instead, as `cat` and
/// `openssl` do: restore the default action, under which the process ends on the signal.
#[cfg(unix)]
#[allow(unsafe_code)]
fn end_quietly_on_closed_stdout() {
    // SAFETY: called first thing in `main`, before any other thread exists; SIG_DFL is a valid
    // action for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_closed_stdout() {}

fn main() -> ExitCode {
    end_quietly_on_closed_stdout();
    let cli = Cli::parse();
    let cbom = cli.global.cbom.clone();
    let mut outcome = run(cli);
    if let Some(path) = cbom {
        let written = write_cbom(&path);
        if outcome.is_ok() {
            outcome = written;
        } else if let Err(failure) = written {
            eprintln!("regula: {}", failure.message);
        }
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // An empty message: the command already said why (e.g. `dgst --check`).
            if !failure.message.is_empty() {
                eprintln!("regula: {}", failure.message);
            }
            ExitCode::from(failure.code)
        }
    }
}
