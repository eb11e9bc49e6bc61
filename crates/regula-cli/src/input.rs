//! Reading what commands consume: the module, algorithm names, hex, files, keys.

use std::io::{Read, Write};
use std::path::Path;

use regula::key_encoding::{KeyDer, KeyKind};
use regula::{Algorithm, Family, Indicator, Module, Served};

use crate::GlobalOptions;
use crate::failure::Failure;

/// Loads the policy and runs the self-tests. A module in its error state is still returned:
/// its services refuse with exit code 4.
pub fn module(global: &GlobalOptions) -> Result<Module, Failure> {
    let module = Module::load(policy(global, &global.policy)?);
    // The module a `--cbom` document describes once the command is done.
    let _ = LOADED.set(module.clone());
    Ok(module)
}

static LOADED: std::sync::OnceLock<Module> = std::sync::OnceLock::new();

/// The module this command loaded, if it loaded one.
pub fn loaded_module() -> Option<&'static Module> {
    LOADED.get()
}

/// A policy by name or path, evaluated on the `--as-of` day when one was given.
pub fn policy(global: &GlobalOptions, name_or_path: &str) -> Result<regula::Policy, Failure> {
    let policy = regula::Policy::load(name_or_path)?;
    Ok(match global.as_of {
        Some(date) => policy.as_of(date),
        None => policy,
    })
}

/// [`module`], refusing (exit code 4) when a self-test failed: for commands that would otherwise
/// report every operation as refused one by one.
pub fn operational_module(global: &GlobalOptions) -> Result<Module, Failure> {
    let module = module(global)?;
    still_operational(&module)?;
    Ok(module)
}

/// The module's error state as the command's failure (exit 4, naming the self-test). Self-tests
/// also run before each algorithm's first use: a command that ran many operations asks again at
/// the end, as one that failed midway turned every later operation into a refusal.
pub fn still_operational(module: &Module) -> Result<(), Failure> {
    if module.state() != regula::ModuleState::Operational {
        let failed_test = module.failed_test().unwrap_or("unknown").to_string();
        return Err(regula::Error::ModuleInErrorState { failed_test }.into());
    }
    Ok(())
}

/// Parses an algorithm name and checks it belongs to one of the families the command serves.
pub fn algorithm(name: &str, families: &[Family]) -> Result<Algorithm, Failure> {
    let algorithm = Algorithm::from_name(name).ok_or_else(|| regula::Error::UnknownAlgorithm {
        name: name.to_string(),
    })?;
    if !families.contains(&algorithm.family()) {
        let expected = families
            .iter()
            .map(|family| family.name())
            .collect::<Vec<_>>()
            .join(" or ");
        return Err(Failure::input(format!(
            "{algorithm} is a {} algorithm; this command takes a {expected} algorithm ({})",
            algorithm.family(),
            names_in(families)
        )));
    }
    Ok(algorithm)
}

/// The registry's names of every algorithm in `families`, comma-separated: choice lists in
/// errors come from the registry, so they cannot go stale.
pub fn names_in(families: &[Family]) -> String {
    Algorithm::ALL
        .iter()
        .filter(|algorithm| families.contains(&algorithm.family()))
        .map(|algorithm| algorithm.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Decodes a hex argument, naming it in the error (never echoing its value: it may be a key).
pub fn hex_arg(what: &str, value: &str) -> Result<Vec<u8>, Failure> {
    hex::decode(value.trim())
        .map_err(|error| Failure::input(format!("{what} is not valid hex ({error})")))
}

/// Reads a whole file, or stdin for `-`.
pub fn read_all(path: &str) -> Result<Vec<u8>, Failure> {
    let mut data = Vec::new();
    if path == "-" {
        std::io::stdin()
            .read_to_end(&mut data)
            .map_err(|error| Failure::input(format!("cannot read stdin: {error}")))?;
    } else {
        data = std::fs::read(path)
            .map_err(|error| Failure::input(format!("cannot read {path}: {error}")))?;
    }
    Ok(data)
}

/// Writes all of `bytes` to stdout at once; called only after every check has passed.
pub fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(|error| Failure::input(format!("cannot write to stdout: {error}")))
}

/// Writes a file, private to the owner when it holds a secret.
pub fn write_file(path: &Path, bytes: &[u8], secret: bool) -> Result<(), Failure> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let _ = secret;
    options
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|error| Failure::input(format!("cannot write {}: {error}", path.display())))
}

/// Prints the indicator of an operation to stderr when `--indicator` was given.
pub fn report<T>(global: &GlobalOptions, served: &Served<T>) {
    report_indicator(global, served.indicator());
}

pub fn report_indicator(global: &GlobalOptions, indicator: Indicator) {
    if global.indicator
        && let Ok(line) = serde_json::to_string(&indicator)
    {
        eprintln!("{line}");
    }
}

/// A key file's contents, PEM or DER, decoded by the core's one decoder
/// (`regula::key_encoding`): a private key is PKCS#8 (`PRIVATE KEY`), a public key
/// SubjectPublicKeyInfo (`PUBLIC KEY`) or, as DER, a raw public key. An error names the file
/// (`what`) and says what was wrong, never quoting the key; the bytes are wiped when dropped.
pub fn key(bytes: &[u8], kind: KeyKind, what: &str) -> Result<KeyDer, Failure> {
    regula::key_encoding::decode(bytes, kind)
        .map_err(|error| Failure::input(format!("{what}: {error}")))
}
