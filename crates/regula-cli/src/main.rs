//! `regula`: policies, self-tests and cryptographic primitives from the command line.

#![forbid(unsafe_code)]

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
  4  module in error state (a self-test failed)";

const SELFTEST_HELP: &str = "\
Failure testing: REGULA_BREAK_SELFTEST=<NAME> corrupts one self-test. A name from `--list` fails at
load, so every command then exits 4; a name from `--list --all` that is not in `--list` (a
pairwise consistency test) fails at the next key generation of an algorithm it covers. A name
that is no self-test at all also puts the module in its error state, so that a typo cannot pass
for a working failure path.

Exit codes:
  0  every self-test passed
  2  usage error or unreadable policy
  4  a self-test failed: the module is in its error state";

/// A cryptographic module with a policy in front of it.
///
/// Pick a policy with --policy: a built-in profile (default, fips-140-3, gm) or a TOML policy
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
    /// Built-in profile (default, fips-140-3, gm) or path to a TOML policy file.
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
}

#[derive(Subcommand)]
enum Command {
    /// The main job: self-tests, the built-in vector pass, a short benchmark, the backend and
    /// CPU, and a verdict; optionally an HTML report.
    #[command(after_help = commands::check::AFTER_HELP)]
    Check(commands::check::CheckArgs),
    /// Run the power-on self-tests of the policy and report each one.
    #[command(after_help = SELFTEST_HELP)]
    Selftest(commands::selftest::SelftestArgs),
    /// Show versions, the linked AWS-LC (FIPS or not), CPU features and implementations.
    Info(commands::info::InfoArgs),
    /// List, show and check policies.
    #[command(subcommand)]
    Policy(commands::policy::PolicyCommand),
    /// Hash files or stdin, printing `sha256sum`-style lines.
    #[command(after_help = EXIT_CODES)]
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
    /// Measure throughput (MB/s) and operation rates beside OpenSSL, GnuTLS, libcrypto and raw
    /// aws-lc-rs, in the same run, as ratios.
    #[command(after_help = commands::bench::AFTER_HELP)]
    Bench(commands::bench::BenchArgs),
    /// Encrypt a file or stdin into Regula's streaming AEAD format (algorithms from the policy).
    Encrypt(commands::file::EncryptArgs),
    /// Decrypt a file written by `regula encrypt`; with -o, nothing is left behind on failure.
    Decrypt(commands::file::DecryptArgs),
    /// Generate a recipient key pair for `regula encrypt -r` / `regula decrypt -i`.
    RecipientKeygen(commands::file::RecipientKeygenArgs),
    /// TLS from the policy: show the offer, issue test certificates, serve, connect, proxy.
    #[command(subcommand, after_help = commands::tls::AFTER_HELP)]
    Tls(commands::tls::TlsCommand),
}

fn run(cli: Cli) -> Result<(), Failure> {
    let global = &cli.global;
    match cli.command {
        Command::Check(args) => commands::check::run(global, args),
        Command::Vectors(args) => commands::vectors::run(global, args),
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
        Command::Encrypt(args) => commands::file::run_encrypt(global, args),
        Command::Decrypt(args) => commands::file::run_decrypt(global, args),
        Command::RecipientKeygen(args) => commands::file::run_recipient_keygen(global, args),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("regula: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
