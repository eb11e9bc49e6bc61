//! `regula audit`: which cryptographic modules an ELF executable or shared library links or
//! loads, and whether one of them is a validated FIPS 140 module. The analysis is the
//! `regula_audit` crate's; this is its front: arguments, text or JSON, exit codes.

use std::path::PathBuf;

use clap::Args;
use regula_audit::{BinaryReport, FipsStatus, Linkage, Verdict, audit};

use crate::failure::{Failure, INPUT_ERROR};

/// At least one binary links or loads no validated FIPS module.
pub const NO_VALIDATED_MODULE: u8 = 3;
/// At least one binary gives no evidence either way (and none is a "no").
pub const UNDETERMINED: u8 = 5;

pub const AFTER_HELP: &str = "\
What is recognised, statically linked or loaded through DT_NEEDED (followed to the files the
system loader would pick: RPATH, LD_LIBRARY_PATH, RUNPATH, /etc/ld.so.conf, the default
directories): AWS-LC (FIPS or not, version), BoringSSL and Go's BoringCrypto, Go's native
FIPS 140-3 module (crypto/internal/fips140, GOFIPS140 and the fips140 GODEBUG from the Go build
info), OpenSSL libcrypto (version; an installed FIPS provider), GnuTLS, Nettle, libgcrypt, ring,
RustCrypto crates, and Regula's identity record (version, FIPS build, default policy).
Libraries opened with dlopen() cannot be seen.

Verdict per binary, `validated FIPS module linked: yes|no|unknown — why`:
  yes      a validated module is linked or loaded (AWS-LC's FIPS module, Go's certified
           GOFIPS140 snapshot, Go's BoringCrypto)
  no       cryptographic modules were found and none is validated, or a binary with a symbol
           table shows none
  unknown  the evidence cannot settle it: a stripped binary with nothing recognisable, or a
           module whose FIPS use depends on the machine (an OpenSSL FIPS provider installed,
           a library shipped with a FIPS .hmac file)

--json prints {\"binaries\": [BINARY…]}, each BINARY an object with: path; error (null, or why
the file could not be read); format (\"ELF64 x86-64\"); kind (executable, pie-executable,
shared-library); linking (static, dynamic); stripped (no .symtab); interpreter; needed (its
DT_NEEDED names); loads ([{name, path (null: not found), needed_by}], every library the loader
would map); go (null, or {version, path, settings {KEY: VALUE}, fips140_packages [versions]});
regula (null, or {version, fips, module, policy}); modules ([{name, version, fips (validated,
not-validated, unknown), linkage (static, dynamic), file, detail, evidence [..]}]); verdict
(yes, no, unknown, error); reason.

Examples:
  regula audit /usr/bin/curl ./myserver
  regula audit --json build/app | jq '.binaries[].verdict'

Exit codes (the worst binary decides, in this order):
  2  a file could not be read or is not ELF
  3  a binary links or loads no validated FIPS module
  5  no evidence either way for a binary (e.g. stripped and static)
  0  every binary links or loads a validated FIPS module";

#[derive(Args)]
pub struct AuditArgs {
    /// ELF executables or shared libraries.
    #[arg(required = true, value_name = "BINARY")]
    binaries: Vec<PathBuf>,
    /// Print one JSON document (shape in --help).
    #[arg(long)]
    json: bool,
}

pub fn run(args: AuditArgs) -> Result<(), Failure> {
    let reports: Vec<BinaryReport> = args.binaries.iter().map(|path| audit(path)).collect();
    if args.json {
        let document = serde_json::json!({ "binaries": reports });
        println!("{document:#}");
    } else {
        for (i, report) in reports.iter().enumerate() {
            if i > 0 {
                println!();
            }
            print_text(report);
        }
    }
    let count = |verdict| reports.iter().filter(|r| r.verdict == verdict).count();
    let total = reports.len();
    let (errors, noes, unknowns) = (
        count(Verdict::Error),
        count(Verdict::No),
        count(Verdict::Unknown),
    );
    if errors > 0 {
        Err(Failure {
            code: INPUT_ERROR,
            message: format!("audit: {errors} of {total} files could not be read as ELF"),
        })
    } else if noes > 0 {
        Err(Failure {
            code: NO_VALIDATED_MODULE,
            message: format!("audit: {noes} of {total} binaries link no validated FIPS module"),
        })
    } else if unknowns > 0 {
        Err(Failure {
            code: UNDETERMINED,
            message: format!(
                "audit: for {unknowns} of {total} binaries the evidence cannot tell whether a validated FIPS module is linked"
            ),
        })
    } else {
        Ok(())
    }
}

fn print_text(report: &BinaryReport) {
    let Some(format) = &report.format else {
        println!("{}: {}", report.path, report.error.as_deref().unwrap_or(""));
        println!("validated FIPS module linked: unknown — {}", report.reason);
        return;
    };
    println!(
        "{}: {} {}, {}, {}",
        report.path,
        format,
        report.kind.unwrap_or("ELF file"),
        match report.linking {
            Some("static") => "statically linked",
            _ => "dynamically linked",
        },
        if report.stripped == Some(true) {
            "stripped"
        } else {
            "not stripped"
        }
    );
    for loaded in &report.loads {
        match &loaded.path {
            Some(path) => println!(
                "  loads {} ({path}, needed by {})",
                loaded.name, loaded.needed_by
            ),
            None => println!(
                "  loads {} (not found on this system, needed by {})",
                loaded.name, loaded.needed_by
            ),
        }
    }
    if let Some(identity) = &report.regula {
        println!(
            "  Regula {} (FIPS build: {}, {}, default policy {})",
            identity.version,
            if identity.fips { "yes" } else { "no" },
            identity.module,
            identity.policy
        );
    }
    if let Some(go) = &report.go {
        let mut line = format!(
            "  Go {} ({})",
            go.version.as_deref().unwrap_or("version unknown"),
            go.path.as_deref().unwrap_or("no main module path")
        );
        for key in ["GOFIPS140", "GOEXPERIMENT", "-tags"] {
            if let Some(value) = go.settings.get(key) {
                line.push_str(&format!(", {key}={value}"));
            }
        }
        if let Some(mode) = go.fips140_godebug() {
            line.push_str(&format!(", DefaultGODEBUG fips140={mode}"));
        }
        println!("{line}");
    }
    for module in &report.modules {
        let status = match module.fips {
            FipsStatus::Validated => "validated",
            FipsStatus::NotValidated => "not validated",
            FipsStatus::Unknown => "FIPS use unknown",
        };
        let linkage = match module.linkage {
            Linkage::Static => "static".to_string(),
            Linkage::Dynamic => format!("loaded from {}", module.file),
        };
        println!(
            "  {}{} [{linkage}; {status}]: {}",
            module.name,
            module
                .version
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default(),
            module.detail
        );
    }
    let verdict = match report.verdict {
        Verdict::Yes => "yes",
        Verdict::No => "no",
        Verdict::Unknown | Verdict::Error => "unknown",
    };
    println!(
        "validated FIPS module linked: {verdict} — {}",
        report.reason
    );
}
