//! Which cryptographic modules an ELF executable or shared library links or loads, and whether
//! one of them is a validated FIPS 140 module: the analysis behind `regula audit`.
//!
//! Evidence comes only from the files: the dynamic section (DT_NEEDED, RUNPATH), followed to the
//! libraries the system loader would pick; the symbol tables; strings in the read-only data
//! (version strings, Rust crate source paths, Go package names); the Go build info; and Regula's
//! own identity record. Nothing is run. Where the evidence says nothing — a stripped static
//! binary with no recognisable string — the verdict is "unknown", never a guess.
//!
//! ```no_run
//! use std::path::Path;
//!
//! use regula_audit::{FipsStatus, Verdict, audit};
//!
//! let report = audit(Path::new("/usr/bin/curl"));
//! if let Some(error) = &report.error {
//!     eprintln!("{}: {error}", report.path);
//! }
//! for module in report.modules.iter().filter(|m| m.fips == FipsStatus::Validated) {
//!     println!("validated: {} in {}", module.name, module.file);
//! }
//! let linked = matches!(report.verdict, Verdict::Yes);
//! println!("validated FIPS module linked: {linked} — {}", report.reason);
//! // The `--json` document of `regula audit` serialises reports as they are.
//! let json = serde_json::to_string(&report).expect("a report serialises");
//! # let _ = json;
//! ```
//!
//! Files: reading the ELF (`elf.rs`), the loader's search path (`loader.rs`), string search
//! in data sections (`strings.rs`), the Go build info (`go.rs`), recognising libraries
//! (`detect.rs`), the verdict (`verdict.rs`) and the report model (`report.rs`).

#![forbid(unsafe_code)]

mod detect;
mod elf;
mod go;
mod loader;
mod report;
mod strings;
mod verdict;

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

pub use report::{BinaryReport, FipsStatus, GoInfo, Linkage, Loaded, ModuleFinding, Verdict};

use detect::{scan, soname_finding};
use elf::read_elf;
use go::go_info;
use loader::{ElfNeeds, SearchPath};
use strings::Strings;
use verdict::verdict;

fn error_report(path: &Path, error: String) -> BinaryReport {
    BinaryReport {
        path: path.display().to_string(),
        reason: "the file could not be audited".to_string(),
        error: Some(error),
        format: None,
        kind: None,
        linking: None,
        stripped: None,
        interpreter: None,
        needed: Vec::new(),
        loads: Vec::new(),
        go: None,
        regula: None,
        modules: Vec::new(),
        verdict: Verdict::Error,
    }
}

/// Audits one file: reads it as ELF, follows the libraries the loader would map, recognises the
/// cryptographic modules in each and gives the verdict. Never fails: a file that cannot be read
/// or is not ELF gives a report with `error` set and [`Verdict::Error`].
pub fn audit(path: &Path) -> BinaryReport {
    let data = match std::fs::read(path) {
        Ok(data) => data,
        Err(error) => return error_report(path, format!("cannot read: {error}")),
    };
    let facts = match read_elf(&data) {
        Ok(facts) => facts,
        Err(error) => return error_report(path, error),
    };
    let display = path.display().to_string();
    let mut findings = Vec::new();
    let strings = Strings::new(&data, &facts.data_regions);
    let regula = strings.regula_identity();
    let go = go_info(&data, &facts, &strings);
    scan(
        &display,
        Linkage::Static,
        &facts,
        &strings,
        go.as_ref(),
        &mut findings,
    );

    // The libraries the loader maps, breadth first, each scanned like the binary.
    let mut loads = Vec::new();
    let origin = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let search = SearchPath::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut queue: VecDeque<(String, Option<PathBuf>, ElfNeeds)> = VecDeque::new();
    queue.push_back((
        file_name(path),
        origin,
        ElfNeeds {
            needed: facts.needed.clone(),
            rpath: facts.rpath.clone(),
            runpath: facts.runpath.clone(),
        },
    ));
    let mut regula = regula;
    while let Some((parent, parent_dir, needs)) = queue.pop_front() {
        for name in &needs.needed {
            if !seen.insert(name.clone()) || loads.len() >= 512 {
                continue;
            }
            let found = search.find(name, &needs, parent_dir.as_deref(), &facts);
            let Some((lib_path, lib_data, lib_facts)) = found else {
                loads.push(Loaded {
                    name: name.clone(),
                    path: None,
                    needed_by: parent.clone(),
                });
                soname_finding(name, None, &mut findings);
                continue;
            };
            let lib_display = lib_path.display().to_string();
            loads.push(Loaded {
                name: name.clone(),
                path: Some(lib_display.clone()),
                needed_by: parent.clone(),
            });
            let lib_strings = Strings::new(&lib_data, &lib_facts.data_regions);
            if regula.is_none() {
                regula = lib_strings.regula_identity();
            }
            let before = findings.len();
            scan(
                &lib_display,
                Linkage::Dynamic,
                &lib_facts,
                &lib_strings,
                None,
                &mut findings,
            );
            if findings.len() == before {
                soname_finding(name, Some(&lib_path), &mut findings);
            }
            queue.push_back((
                name.clone(),
                std::fs::canonicalize(&lib_path)
                    .ok()
                    .and_then(|p| p.parent().map(Path::to_path_buf)),
                ElfNeeds {
                    needed: lib_facts.needed.clone(),
                    rpath: lib_facts.rpath.clone(),
                    runpath: lib_facts.runpath.clone(),
                },
            ));
        }
    }

    let (verdict, reason) = verdict(&facts, &findings, go.as_ref(), regula.as_ref());
    BinaryReport {
        path: display,
        error: None,
        format: Some(facts.format.clone()),
        kind: Some(facts.kind),
        linking: Some(if facts.needed.is_empty() && facts.interpreter.is_none() {
            "static"
        } else {
            "dynamic"
        }),
        stripped: Some(!facts.has_symtab),
        interpreter: facts.interpreter.clone(),
        needed: facts.needed.clone(),
        loads,
        go,
        regula,
        modules: findings,
        verdict,
        reason,
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_an_error_report() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent");
        let report = audit(&path);
        assert_eq!(report.verdict, Verdict::Error);
        assert_eq!(report.path, path.display().to_string());
        let error = report.error.expect("an error");
        assert!(error.starts_with("cannot read: "), "{error}");
        assert_eq!(report.reason, "the file could not be audited");
        assert_eq!(report.format, None);
        assert!(report.modules.is_empty() && report.loads.is_empty());
    }

    #[test]
    fn a_text_file_is_not_elf() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let report = audit(&path);
        assert_eq!(report.verdict, Verdict::Error);
        assert_eq!(
            report.error.as_deref(),
            Some(
                "not an ELF file (no ELF header); regula audit reads ELF executables and shared libraries"
            )
        );
    }

    /// The test binary: an unstripped, dynamically linked executable that loads libc.
    #[test]
    #[cfg(target_os = "linux")]
    fn this_test_binary_is_audited_end_to_end() {
        let exe = std::env::current_exe().unwrap();
        let report = audit(&exe);
        assert_eq!(report.error, None);
        assert_eq!(report.stripped, Some(false));
        assert_eq!(report.linking, Some("dynamic"));
        assert!(
            report
                .loads
                .iter()
                .any(|l| l.name.starts_with("libc.so") && l.path.is_some()),
            "{:?}",
            report.loads
        );
        assert_ne!(report.verdict, Verdict::Error);
        let json = serde_json::to_value(&report).unwrap();
        for key in [
            "path",
            "error",
            "format",
            "kind",
            "linking",
            "stripped",
            "interpreter",
            "needed",
            "loads",
            "go",
            "regula",
            "modules",
            "verdict",
            "reason",
        ] {
            assert!(json.get(key).is_some(), "--json field {key}");
        }
    }
}
