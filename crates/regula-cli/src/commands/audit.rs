//! `regula audit`: which cryptographic modules an ELF executable or shared library links or
//! loads, and whether one of them is a validated FIPS 140 module.
//!
//! Evidence comes only from the files: the dynamic section (DT_NEEDED, RUNPATH), followed to the
//! libraries the system loader would pick; the symbol tables; strings in the read-only data
//! (version strings, Rust crate source paths, Go package names); the Go build info; and Regula's
//! own identity record. Nothing is run. Where the evidence says nothing — a stripped static
//! binary with no recognisable string — the verdict is "unknown", never a guess.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use clap::Args;
use memchr::memmem;
use object::read::elf::{Dyn, ElfFile, FileHeader, ProgramHeader};
use object::{Endianness, FileKind, Object, ObjectSection, ObjectSymbol, SectionKind, elf};
use serde::Serialize;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FipsStatus {
    Validated,
    Unknown,
    NotValidated,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Linkage {
    Static,
    Dynamic,
}

#[derive(Clone, Debug, Serialize)]
pub struct ModuleFinding {
    pub name: String,
    pub version: Option<String>,
    pub fips: FipsStatus,
    pub linkage: Linkage,
    /// The file it was found in (the binary itself, or a library it loads).
    pub file: String,
    /// Why this FIPS status.
    pub detail: String,
    pub evidence: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Loaded {
    pub name: String,
    pub path: Option<String>,
    pub needed_by: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct GoInfo {
    pub version: Option<String>,
    pub path: Option<String>,
    pub settings: BTreeMap<String, String>,
    /// Versions of `crypto/internal/fips140/vX…` snapshot packages found in the binary.
    pub fips140_packages: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Yes,
    No,
    Unknown,
    Error,
}

#[derive(Clone, Debug, Serialize)]
pub struct BinaryReport {
    pub path: String,
    pub error: Option<String>,
    pub format: Option<String>,
    pub kind: Option<&'static str>,
    pub linking: Option<&'static str>,
    pub stripped: Option<bool>,
    pub interpreter: Option<String>,
    pub needed: Vec<String>,
    pub loads: Vec<Loaded>,
    pub go: Option<GoInfo>,
    pub regula: Option<regula::identity::Identity>,
    pub modules: Vec<ModuleFinding>,
    pub verdict: Verdict,
    pub reason: String,
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
        if let Some(mode) = go_fips140_godebug(go) {
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

/// Everything read from one ELF file.
struct ElfFacts {
    format: String,
    kind: &'static str,
    class64: bool,
    machine: u16,
    interpreter: Option<String>,
    needed: Vec<String>,
    rpath: Vec<String>,
    runpath: Vec<String>,
    has_symtab: bool,
    has_sections: bool,
    symbols: Vec<String>,
    /// Read-only and data sections (or the whole file when it has no section headers).
    data_regions: Vec<(usize, usize)>,
    go_buildinfo: Option<(usize, usize)>,
}

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

fn read_elf(data: &[u8]) -> Result<ElfFacts, String> {
    match FileKind::parse(data) {
        Ok(FileKind::Elf32) => read_elf_as::<elf::FileHeader32<Endianness>>(data, false),
        Ok(FileKind::Elf64) => read_elf_as::<elf::FileHeader64<Endianness>>(data, true),
        Ok(other) => Err(format!(
            "not an ELF file ({other:?}); regula audit reads ELF executables and shared libraries"
        )),
        Err(_) => Err(
            "not an ELF file (no ELF header); regula audit reads ELF executables and shared libraries"
                .to_string(),
        ),
    }
}

fn read_elf_as<Elf: FileHeader<Endian = Endianness>>(
    data: &[u8],
    class64: bool,
) -> Result<ElfFacts, String> {
    let file = ElfFile::<Elf>::parse(data).map_err(|e| format!("malformed ELF file: {e}"))?;
    let endian = file.endian();
    let header = file.elf_header();
    let machine = header.e_machine(endian);
    let mut interpreter = None;
    let mut has_dynamic_segment = false;
    for segment in file.elf_program_headers() {
        match segment.p_type(endian) {
            elf::PT_INTERP => {
                if let Ok(bytes) = segment.data(endian, data) {
                    let bytes = bytes.split(|&b| b == 0).next().unwrap_or(bytes);
                    interpreter = Some(String::from_utf8_lossy(bytes).into_owned());
                }
            }
            elf::PT_DYNAMIC => has_dynamic_segment = true,
            _ => {}
        }
    }
    let mut needed = Vec::new();
    let mut rpath = Vec::new();
    let mut runpath = Vec::new();
    let sections = file.elf_section_table();
    if let Ok(Some((entries, link))) = sections.dynamic(endian, data)
        && let Ok(strings) = sections.strings(endian, data, link)
    {
        for entry in entries {
            let Some(tag) = entry.tag32(endian) else {
                continue;
            };
            let target = match tag {
                elf::DT_NEEDED => &mut needed,
                elf::DT_RPATH => &mut rpath,
                elf::DT_RUNPATH => &mut runpath,
                _ => continue,
            };
            if let Ok(value) = entry.string(endian, strings) {
                target.push(String::from_utf8_lossy(value).into_owned());
            }
        }
    }
    let e_type = header.e_type(endian);
    let kind = match e_type {
        elf::ET_EXEC => "executable",
        elf::ET_DYN if interpreter.is_some() => "pie-executable",
        elf::ET_DYN => "shared-library",
        elf::ET_REL => "relocatable object",
        elf::ET_CORE => "core dump",
        _ => "ELF file",
    };
    let _ = has_dynamic_segment;
    let has_symtab = file.symbol_table().is_some();
    let mut symbols: Vec<String> = Vec::new();
    // Defined symbols only: an import names what another file provides.
    for symbol in file.symbols().chain(file.dynamic_symbols()) {
        if symbol.is_undefined() {
            continue;
        }
        if let Ok(name) = symbol.name()
            && !name.is_empty()
        {
            symbols.push(name.to_string());
        }
    }
    let mut data_regions = Vec::new();
    let mut go_buildinfo = None;
    let mut section_count = 0;
    for section in file.sections() {
        section_count += 1;
        let Some((offset, size)) = section.file_range() else {
            continue;
        };
        let (offset, size) = (offset as usize, size as usize);
        if offset.checked_add(size).is_none_or(|end| end > data.len()) {
            continue;
        }
        if section.name() == Ok(".go.buildinfo") {
            go_buildinfo = Some((offset, size));
        }
        if matches!(
            section.kind(),
            SectionKind::Data
                | SectionKind::ReadOnlyData
                | SectionKind::ReadOnlyDataWithRel
                | SectionKind::ReadOnlyString
        ) {
            data_regions.push((offset, size));
        }
    }
    if section_count == 0 {
        data_regions.push((0, data.len()));
    }
    Ok(ElfFacts {
        format: format!(
            "ELF{} {}",
            if class64 { 64 } else { 32 },
            machine_name(machine)
        ),
        kind,
        class64,
        machine,
        interpreter,
        needed,
        rpath,
        runpath,
        has_symtab,
        has_sections: section_count > 0,
        symbols,
        data_regions,
        go_buildinfo,
    })
}

fn machine_name(machine: u16) -> String {
    match machine {
        elf::EM_X86_64 => "x86-64".into(),
        elf::EM_386 => "i386".into(),
        elf::EM_AARCH64 => "aarch64".into(),
        elf::EM_ARM => "arm".into(),
        elf::EM_RISCV => "riscv".into(),
        elf::EM_PPC64 => "ppc64".into(),
        elf::EM_S390 => "s390".into(),
        other => format!("machine {other}"),
    }
}

/// The data regions of one file, searched for strings.
struct Strings<'a> {
    regions: Vec<&'a [u8]>,
}

impl<'a> Strings<'a> {
    fn new(data: &'a [u8], regions: &[(usize, usize)]) -> Strings<'a> {
        Strings {
            regions: regions
                .iter()
                .map(|&(offset, size)| &data[offset..offset + size])
                .collect(),
        }
    }

    /// Every occurrence of `needle`, as the bytes that follow it (up to `after` of them).
    fn find_after(&self, needle: &[u8], after: usize) -> Vec<&'a [u8]> {
        let finder = memmem::Finder::new(needle);
        let mut found = Vec::new();
        for region in &self.regions {
            for at in finder.find_iter(region) {
                let start = at + needle.len();
                let end = (start + after).min(region.len());
                found.push(&region[start..end]);
                if found.len() > 10_000 {
                    return found;
                }
            }
        }
        found
    }

    fn contains(&self, needle: &[u8]) -> bool {
        let finder = memmem::Finder::new(needle);
        self.regions.iter().any(|r| finder.find(r).is_some())
    }

    fn regula_identity(&self) -> Option<regula::identity::Identity> {
        let marker = regula::identity::MARKER.as_bytes();
        self.find_after(marker, 300).into_iter().find_map(|rest| {
            let mut record = marker.to_vec();
            record.extend_from_slice(rest);
            regula::identity::parse(&record)
        })
    }

    /// Crates whose source paths (`…/registry/src/<index>/<crate>-<version>/…`, kept in panic
    /// locations even in stripped Rust binaries) appear, with their versions.
    fn rust_crates(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut crates: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for rest in self.find_after(b"/registry/src/", 200) {
            let Some(slash) = rest.iter().position(|&b| b == b'/') else {
                continue;
            };
            let rest = &rest[slash + 1..];
            let end = rest
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b"-_.+".contains(&b)))
                .unwrap_or(rest.len());
            if rest.get(end) != Some(&b'/') {
                continue;
            }
            let Ok(dir) = std::str::from_utf8(&rest[..end]) else {
                continue;
            };
            if let Some((name, version)) = split_crate_dir(dir) {
                crates
                    .entry(name.replace('-', "_"))
                    .or_default()
                    .insert(version.to_string());
            }
        }
        crates
    }
}

/// `aes-gcm-0.10.3` → (`aes-gcm`, `0.10.3`).
fn split_crate_dir(dir: &str) -> Option<(&str, &str)> {
    let mut search = dir;
    while let Some(dash) = search.rfind('-') {
        let (name, version) = (&dir[..dash], &dir[dash + 1..]);
        if version.starts_with(|c: char| c.is_ascii_digit()) && version.contains('.') {
            if name.is_empty() {
                return None;
            }
            return Some((name, version));
        }
        search = &dir[..dash];
    }
    None
}

/// Crate names in legacy-mangled Rust symbols (`_ZN4sha26…`, `_ZN…_$LT$sha2..`).
fn rust_symbol_crates(symbols: &[String]) -> BTreeSet<String> {
    let mut crates = BTreeSet::new();
    for symbol in symbols {
        let Some(rest) = symbol.strip_prefix("_ZN") else {
            continue;
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(len) = rest[..digits].parse::<usize>() else {
            continue;
        };
        let Some(first) = rest.get(digits..digits + len) else {
            continue;
        };
        if let Some(generic) = first.strip_prefix("_$LT$") {
            if let Some(end) = generic.find("..") {
                crates.insert(generic[..end].to_string());
            }
        } else if first
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            crates.insert(first.to_string());
        }
    }
    crates
}

/// RustCrypto algorithm crates (crate names with underscores).
const RUSTCRYPTO_CRATES: &[&str] = &[
    "aes",
    "aes_gcm",
    "aes_gcm_siv",
    "aes_siv",
    "ccm",
    "chacha20",
    "chacha20poly1305",
    "poly1305",
    "des",
    "sm4",
    "sha1",
    "sha2",
    "sha3",
    "md5",
    "md4",
    "sm3",
    "blake2",
    "hmac",
    "cmac",
    "hkdf",
    "pbkdf2",
    "scrypt",
    "argon2",
    "p256",
    "p384",
    "p521",
    "k256",
    "sm2",
    "ecdsa",
    "ed25519",
    "rsa",
    "ml_kem",
    "ml_dsa",
    "slh_dsa",
];

/// Go FIPS 140-3 module snapshots, as the Go toolchain's `lib/fips140/certified.txt` and
/// `inprocess.txt` name them (Go 1.26).
const GO_FIPS_CERTIFIED: &[&str] = &["v1.0.0-c2097c7c"];
const GO_FIPS_IN_PROCESS: &[&str] = &["v1.26.0"];

fn push_finding(findings: &mut Vec<ModuleFinding>, finding: ModuleFinding) {
    if !findings
        .iter()
        .any(|f| f.name == finding.name && f.file == finding.file)
    {
        findings.push(finding);
    }
}

/// Detects the modules in one file (the binary or a library it loads).
fn scan(
    file: &str,
    linkage: Linkage,
    facts: &ElfFacts,
    strings: &Strings<'_>,
    go: Option<&GoInfo>,
    findings: &mut Vec<ModuleFinding>,
) {
    let finding =
        |name: &str, version: Option<String>, fips, detail: String, evidence| ModuleFinding {
            name: name.to_string(),
            version,
            fips,
            linkage,
            file: file.to_string(),
            detail,
            evidence,
        };
    let symbols = &facts.symbols;
    let crates = strings.rust_crates();
    let symbol_crates = rust_symbol_crates(symbols);
    let has_crate = |name: &str| crates.contains_key(name) || symbol_crates.contains(name);
    let crate_versions = |name: &str| {
        crates
            .get(name)
            .map(|v| v.iter().cloned().collect::<Vec<_>>().join(", "))
    };

    // AWS-LC: its version string, and the symbol prefixes the -sys crates give it.
    let fips_version = version_after(strings, b"AWS-LC FIPS ");
    let plain_version = version_after(strings, b"AWS-LC ");
    let fips_prefix = symbols
        .iter()
        .find(|s| s.starts_with("aws_lc_fips_"))
        .map(|s| symbol_prefix(s, "aws_lc_fips_"));
    let plain_prefix = symbols
        .iter()
        .find(|s| s.starts_with("aws_lc_0_") || s.starts_with("aws_lc_1_"))
        .map(|s| symbol_prefix(s, "aws_lc_"));
    if fips_version.is_some() || fips_prefix.is_some() || has_crate("aws_lc_fips_sys") {
        let mut evidence = Vec::new();
        if let Some(v) = &fips_version {
            evidence.push(format!("string \"AWS-LC FIPS {v}\""));
        }
        if let Some(p) = &fips_prefix {
            evidence.push(format!("symbols prefixed {p}"));
        }
        if let Some(v) = crate_versions("aws_lc_fips_sys") {
            evidence.push(format!("aws-lc-fips-sys {v} source paths"));
        }
        findings.push(finding(
            "AWS-LC FIPS",
            fips_version,
            FipsStatus::Validated,
            "AWS-LC's FIPS 140-3 module (the validated FIPS branch, as aws-lc-fips-sys builds it)"
                .into(),
            evidence,
        ));
    } else if plain_version.is_some() || plain_prefix.is_some() || has_crate("aws_lc_sys") {
        let mut evidence = Vec::new();
        if let Some(v) = &plain_version {
            evidence.push(format!("string \"AWS-LC {v}\""));
        }
        if let Some(p) = &plain_prefix {
            evidence.push(format!("symbols prefixed {p}"));
        }
        if let Some(v) = crate_versions("aws_lc_sys") {
            evidence.push(format!("aws-lc-sys {v} source paths"));
        }
        findings.push(finding(
            "AWS-LC",
            plain_version,
            FipsStatus::NotValidated,
            "ordinary AWS-LC (aws-lc-sys), not its FIPS module".into(),
            evidence,
        ));
    }

    // Go: BoringCrypto, or the native FIPS 140-3 module.
    let boring_symbol = symbols.iter().any(|s| s.contains("_goboringcrypto_"));
    // Only in Go binaries: this very program holds the name as a search string.
    let boring_string = go.is_some() && strings.contains(b"_goboringcrypto_");
    let boring_experiment = go
        .and_then(|g| g.settings.get("GOEXPERIMENT"))
        .is_some_and(|e| e.split(',').any(|x| x == "boringcrypto"));
    if boring_symbol || boring_string || boring_experiment {
        let mut evidence = Vec::new();
        if boring_symbol {
            evidence.push("_goboringcrypto_ symbols".to_string());
        } else if boring_string {
            evidence.push("_goboringcrypto_ names in the data".to_string());
        }
        if boring_experiment {
            evidence.push("build setting GOEXPERIMENT=boringcrypto".to_string());
        }
        findings.push(finding(
            "Go BoringCrypto",
            None,
            FipsStatus::Validated,
            "Go's BoringCrypto: a FIPS 140 validated BoringSSL module linked through cgo".into(),
            evidence,
        ));
    } else if let Some(go) = go {
        go_native_finding(go, strings, &finding, findings);
    } else if !symbols.iter().any(|s| s.starts_with("aws_lc_"))
        && symbols
            .iter()
            .any(|s| s == "BORINGSSL_self_test" || s == "BORINGSSL_integrity_test")
    {
        let fips = symbols.iter().any(|s| s == "BORINGSSL_integrity_test");
        findings.push(finding(
            "BoringSSL",
            None,
            if fips {
                FipsStatus::Unknown
            } else {
                FipsStatus::NotValidated
            },
            if fips {
                "a FIPS build of BoringSSL (integrity test present); whether this version is validated cannot be read from the binary".into()
            } else {
                "BoringSSL, not a FIPS build".into()
            },
            vec!["BORINGSSL_ symbols".into()],
        ));
    }

    // OpenSSL libcrypto: "OpenSSL 3.0.19 27 Jan 2026" (AWS-LC and BoringSSL say "compatible").
    // A program that loads libcrypto also holds the text its headers gave it (`openssl
    // version` prints both): only the library then counts.
    let needs_libcrypto = facts.needed.iter().any(|n| n.starts_with("libcrypto.so"));
    if let Some(version) = openssl_version(strings).filter(|_| !needs_libcrypto) {
        let dir = Path::new(file).parent().map(Path::to_path_buf);
        let provider = dir
            .map(|d| d.join("ossl-modules/fips.so"))
            .filter(|p| p.exists());
        let (fips, detail) = match &provider {
            Some(p) => (
                FipsStatus::Unknown,
                format!(
                    "OpenSSL's FIPS provider is installed ({}); it is used only where openssl.cnf or the program loads it",
                    p.display()
                ),
            ),
            None => (
                FipsStatus::NotValidated,
                "OpenSSL's default provider; no FIPS provider (ossl-modules/fips.so) is installed beside it"
                    .into(),
            ),
        };
        findings.push(finding(
            "OpenSSL libcrypto",
            Some(version.clone()),
            fips,
            detail,
            vec![format!("string \"OpenSSL {version}\"")],
        ));
    }

    // GnuTLS, Nettle, libgcrypt: by their exported functions.
    for (name, probe, what) in [
        ("GnuTLS", "gnutls_global_init", "GnuTLS"),
        ("Nettle", "nettle_sha256_init", "Nettle"),
        ("libgcrypt", "gcry_check_version", "libgcrypt"),
    ] {
        if symbols.iter().any(|s| s == probe) {
            let (fips, detail) = hmac_status(file, what);
            findings.push(finding(
                name,
                None,
                fips,
                detail,
                vec![format!("symbol {probe}")],
            ));
        }
    }

    // ring.
    let ring_prefix = symbols
        .iter()
        .find(|s| s.starts_with("ring_core_"))
        .map(|s| symbol_prefix(s, "ring_core_"));
    if has_crate("ring") || ring_prefix.is_some() {
        let mut evidence = Vec::new();
        if let Some(p) = ring_prefix {
            evidence.push(format!("symbols prefixed {p}"));
        }
        if crates.contains_key("ring") {
            evidence.push("ring source paths".into());
        } else if symbol_crates.contains("ring") {
            evidence.push("ring:: symbols".into());
        }
        findings.push(finding(
            "ring",
            crate_versions("ring"),
            FipsStatus::NotValidated,
            "ring is not a FIPS 140 validated module".into(),
            evidence,
        ));
    }

    // RustCrypto.
    let rustcrypto: Vec<String> = RUSTCRYPTO_CRATES
        .iter()
        .filter(|name| has_crate(name))
        .map(|name| match crates.get(*name) {
            Some(versions) => format!(
                "{} {}",
                name.replace('_', "-"),
                versions.iter().cloned().collect::<Vec<_>>().join("/")
            ),
            None => name.replace('_', "-"),
        })
        .collect();
    if !rustcrypto.is_empty() {
        findings.push(finding(
            "RustCrypto",
            None,
            FipsStatus::NotValidated,
            format!(
                "RustCrypto crates ({}), not a FIPS 140 validated module",
                rustcrypto.join(", ")
            ),
            vec!["crate symbols or source paths".into()],
        ));
    }
}

/// A module recognised by its library name alone: a needed library not found on this system,
/// or found but with no recognisable content.
fn soname_finding(name: &str, path: Option<&Path>, findings: &mut Vec<ModuleFinding>) {
    let module = if name.starts_with("libcrypto.so") || name.starts_with("libssl.so") {
        "OpenSSL libcrypto"
    } else if name.starts_with("libgnutls.so") {
        "GnuTLS"
    } else if name.starts_with("libnettle.so") || name.starts_with("libhogweed.so") {
        "Nettle"
    } else if name.starts_with("libgcrypt.so") {
        "libgcrypt"
    } else {
        return;
    };
    if path.is_some() && (name.starts_with("libssl.so") || name.starts_with("libhogweed.so")) {
        // Their libcrypto or libnettle, loaded beside them, carries the evidence.
        return;
    }
    let (fips, detail) = match path {
        None => (
            FipsStatus::Unknown,
            format!(
                "{name} is needed but not found on this system, so which build it will be cannot be told"
            ),
        ),
        Some(_) => (
            FipsStatus::NotValidated,
            format!("{name} carries no FIPS module evidence"),
        ),
    };
    push_finding(
        findings,
        ModuleFinding {
            name: module.to_string(),
            version: None,
            fips,
            linkage: Linkage::Dynamic,
            file: path
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| name.to_string()),
            detail,
            evidence: vec![format!("DT_NEEDED {name}")],
        },
    );
}

/// GnuTLS, Nettle and libgcrypt built with a FIPS 140 mode install a `.<file>.hmac` beside the
/// library; without it they are plain builds.
fn hmac_status(file: &str, what: &str) -> (FipsStatus, String) {
    let path = Path::new(file);
    let mut candidates = Vec::new();
    if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
        candidates.push(dir.join(format!(".{}.hmac", name.to_string_lossy())));
        if let Ok(real) = std::fs::canonicalize(path)
            && let (Some(dir), Some(name)) = (real.parent(), real.file_name())
        {
            candidates.push(dir.join(format!(".{}.hmac", name.to_string_lossy())));
        }
    }
    match candidates.iter().find(|c| c.exists()) {
        Some(hmac) => (
            FipsStatus::Unknown,
            format!(
                "{what} built with a FIPS 140 mode ({} installed); whether this build is validated depends on its vendor's certificate",
                hmac.display()
            ),
        ),
        None => (
            FipsStatus::NotValidated,
            format!("{what} without a FIPS 140 mode (no .hmac integrity file installed beside it)"),
        ),
    }
}

/// Makes a finding in the file being scanned: name, version, status, detail, evidence.
type MakeFinding<'a> =
    dyn Fn(&str, Option<String>, FipsStatus, String, Vec<String>) -> ModuleFinding + 'a;

fn go_native_finding(
    go: &GoInfo,
    strings: &Strings<'_>,
    finding: &MakeFinding<'_>,
    findings: &mut Vec<ModuleFinding>,
) {
    let setting = go.settings.get("GOFIPS140").cloned();
    let godebug = go_fips140_godebug(go);
    let snapshot = setting
        .clone()
        .filter(|s| s.starts_with('v'))
        .or_else(|| go.fips140_packages.first().cloned());
    let in_tree = strings.contains(b"crypto/internal/fips140/");
    if snapshot.is_none() && setting.is_none() && !in_tree {
        return;
    }
    let mut evidence = Vec::new();
    if let Some(s) = &setting {
        evidence.push(format!("build setting GOFIPS140={s}"));
    }
    if let Some(mode) = &godebug {
        evidence.push(format!("DefaultGODEBUG fips140={mode}"));
    }
    if !go.fips140_packages.is_empty() {
        evidence.push(format!(
            "packages crypto/internal/fips140/{}",
            go.fips140_packages.join(", ")
        ));
    } else if in_tree {
        evidence.push("packages crypto/internal/fips140/… (in-tree)".into());
    }
    let mode = match godebug.as_deref() {
        Some("on") | Some("only") => "FIPS mode on by default",
        _ => "FIPS mode off unless GODEBUG=fips140=on",
    };
    let (fips, detail) = match &snapshot {
        Some(v) if GO_FIPS_CERTIFIED.contains(&v.as_str()) => (
            FipsStatus::Validated,
            format!(
                "Go Cryptographic Module {v}, the snapshot the Go toolchain lists as certified; {mode}"
            ),
        ),
        Some(v) if GO_FIPS_IN_PROCESS.contains(&v.as_str()) => (
            FipsStatus::NotValidated,
            format!(
                "Go Cryptographic Module {v} is in the validation process, not yet validated; {mode}"
            ),
        ),
        Some(v) => (
            FipsStatus::NotValidated,
            format!(
                "Go Cryptographic Module snapshot {v} is not one known to be certified; {mode}"
            ),
        ),
        None => (
            FipsStatus::NotValidated,
            format!(
                "Go's in-tree crypto/internal/fips140 ({}), not a frozen validated snapshot; build with GOFIPS140=v1.0.0 for the certified one; {mode}",
                setting.as_deref().unwrap_or("GOFIPS140 unset")
            ),
        ),
    };
    findings.push(finding(
        "Go FIPS 140-3 module",
        snapshot,
        fips,
        detail,
        evidence,
    ));
}

fn go_fips140_godebug(go: &GoInfo) -> Option<String> {
    go.settings.get("DefaultGODEBUG").and_then(|d| {
        d.split(',')
            .find_map(|kv| kv.strip_prefix("fips140=").map(str::to_string))
    })
}

/// `aws_lc_fips_0_14_4_EVP_…` → `aws_lc_fips_0_14_4_`.
fn symbol_prefix(symbol: &str, head: &str) -> String {
    let rest = &symbol[head.len()..];
    let mut end = 0;
    for part in rest.split_inclusive('_') {
        if part
            .trim_end_matches('_')
            .bytes()
            .all(|b| b.is_ascii_digit())
            && part.len() > 1
        {
            end += part.len();
        } else {
            break;
        }
    }
    format!("{head}{}", &rest[..end])
}

/// A dotted version number right after `needle`, e.g. `5.12.0`.
fn version_after(strings: &Strings<'_>, needle: &[u8]) -> Option<String> {
    strings.find_after(needle, 24).into_iter().find_map(|rest| {
        let end = rest
            .iter()
            .position(|&b| !(b.is_ascii_digit() || b == b'.'))
            .unwrap_or(rest.len());
        let version = std::str::from_utf8(&rest[..end]).ok()?;
        let parts: Vec<&str> = version.split('.').collect();
        (parts.len() >= 2 && parts.iter().all(|p| !p.is_empty())).then(|| version.to_string())
    })
}

/// OpenSSL's version text: `OpenSSL 3.0.19 27 Jan 2026` (a date after the version).
fn openssl_version(strings: &Strings<'_>) -> Option<String> {
    strings
        .find_after(b"OpenSSL ", 40)
        .into_iter()
        .find_map(|rest| {
            let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            let text = std::str::from_utf8(&rest[..end]).ok()?;
            let mut words = text.split(' ');
            let version = words.next()?;
            let numeric = version.trim_end_matches(|c: char| c.is_ascii_lowercase() || c == '-');
            let parts: Vec<&str> = numeric.split('.').collect();
            if parts.len() != 3
                || !parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            {
                return None;
            }
            let rest: Vec<&str> = words.collect();
            let dated = rest.len() >= 3
                && rest[0].bytes().all(|b| b.is_ascii_digit())
                && rest[1].len() == 3
                && rest[2].len() == 4
                && rest[2].bytes().all(|b| b.is_ascii_digit());
            dated.then(|| version.to_string())
        })
}

/// The Go build info (`.go.buildinfo`, Go 1.18 and later layout) and the FIPS snapshot
/// packages named in the binary.
fn go_info(data: &[u8], facts: &ElfFacts, strings: &Strings<'_>) -> Option<GoInfo> {
    const MAGIC: &[u8] = b"\xff Go buildinf:";
    let region = match facts.go_buildinfo {
        Some((offset, size)) => &data[offset..offset + size],
        // Without section headers (sstrip), search the file; with them, a binary that has no
        // .go.buildinfo is no Go program (and may hold the magic as a search string, as this one does).
        None if !facts.has_sections => {
            let at = memmem::find(data, MAGIC)?;
            &data[at..]
        }
        None => return None,
    };
    if !region.starts_with(MAGIC) || region.len() < 32 {
        return None;
    }
    let mut info = GoInfo::default();
    let flags = region[15];
    if flags & 2 != 0 {
        let mut rest = &region[32..];
        let version = read_varint_string(&mut rest);
        let modinfo = read_varint_string(&mut rest);
        info.version = version.map(|v| String::from_utf8_lossy(v).into_owned());
        if let Some(mut modinfo) = modinfo {
            if modinfo.len() >= 33 && modinfo[modinfo.len() - 17] == b'\n' {
                modinfo = &modinfo[16..modinfo.len() - 16];
            }
            for line in String::from_utf8_lossy(modinfo).lines() {
                let mut fields = line.splitn(2, '\t');
                match (fields.next(), fields.next()) {
                    (Some("path"), Some(path)) => info.path = Some(path.to_string()),
                    (Some("build"), Some(setting)) => {
                        let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
                        info.settings.insert(key.to_string(), value.to_string());
                    }
                    _ => {}
                }
            }
        }
    }
    let mut versions = BTreeSet::new();
    for rest in strings.find_after(b"crypto/internal/fips140/v", 40) {
        let end = rest
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'%'))
            .unwrap_or(rest.len());
        let raw = String::from_utf8_lossy(&rest[..end]).replace("%2e", ".");
        let raw = raw.trim_end_matches('.');
        if raw.starts_with(|c: char| c.is_ascii_digit()) {
            versions.insert(format!("v{raw}"));
        }
    }
    info.fips140_packages = versions.into_iter().collect();
    Some(info)
}

fn read_varint_string<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let mut value: u64 = 0;
    let mut shift = 0;
    let mut used: usize = 0;
    for &byte in rest.iter() {
        used += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
    let len = usize::try_from(value).ok()?;
    let string = rest.get(used..used.checked_add(len)?)?;
    *rest = &rest[used + len..];
    Some(string)
}

struct ElfNeeds {
    needed: Vec<String>,
    rpath: Vec<String>,
    runpath: Vec<String>,
}

/// Where the loader looks for a DT_NEEDED name.
struct SearchPath {
    ld_library_path: Vec<PathBuf>,
    conf_dirs: Vec<PathBuf>,
}

impl SearchPath {
    fn new() -> SearchPath {
        let ld_library_path = std::env::var("LD_LIBRARY_PATH")
            .map(|v| {
                v.split(':')
                    .filter(|s| !s.is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        let mut conf_dirs = Vec::new();
        read_ld_so_conf(Path::new("/etc/ld.so.conf"), &mut conf_dirs, 0);
        SearchPath {
            ld_library_path,
            conf_dirs,
        }
    }

    /// The library the loader would map for `name`, read as ELF of the binary's class and
    /// machine (other candidates are skipped, as the loader skips them).
    fn find(
        &self,
        name: &str,
        needs: &ElfNeeds,
        origin: Option<&Path>,
        binary: &ElfFacts,
    ) -> Option<(PathBuf, Vec<u8>, ElfFacts)> {
        let expand = |dir: &str| -> PathBuf {
            let origin = origin
                .map(|o| o.display().to_string())
                .unwrap_or_else(|| ".".into());
            PathBuf::from(
                dir.replace("${ORIGIN}", &origin)
                    .replace("$ORIGIN", &origin),
            )
        };
        let mut candidates: Vec<PathBuf> = Vec::new();
        if name.contains('/') {
            candidates.push(PathBuf::from(name));
        } else {
            let split = |list: &[String]| -> Vec<PathBuf> {
                list.iter()
                    .flat_map(|l| l.split(':').map(str::to_string).collect::<Vec<_>>())
                    .filter(|d| !d.is_empty())
                    .map(|d| expand(&d))
                    .collect()
            };
            let mut dirs = Vec::new();
            if needs.runpath.is_empty() {
                dirs.extend(split(&needs.rpath));
            }
            dirs.extend(self.ld_library_path.iter().cloned());
            dirs.extend(split(&needs.runpath));
            dirs.extend(self.conf_dirs.iter().cloned());
            let defaults: &[&str] = if binary.class64 {
                &["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
            } else {
                &["/lib32", "/usr/lib32", "/lib", "/usr/lib"]
            };
            dirs.extend(defaults.iter().map(PathBuf::from));
            candidates.extend(dirs.into_iter().map(|d| d.join(name)));
        }
        for candidate in candidates {
            let Ok(data) = std::fs::read(&candidate) else {
                continue;
            };
            let Ok(facts) = read_elf(&data) else {
                continue;
            };
            if facts.class64 == binary.class64 && facts.machine == binary.machine {
                return Some((candidate, data, facts));
            }
        }
        None
    }
}

/// Directories from /etc/ld.so.conf and the files it includes (what ldconfig caches).
fn read_ld_so_conf(path: &Path, dirs: &mut Vec<PathBuf>, depth: usize) {
    if depth > 8 {
        return;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(pattern) = line.strip_prefix("include").map(str::trim) {
            let pattern = if pattern.starts_with('/') {
                PathBuf::from(pattern)
            } else {
                path.parent().unwrap_or(Path::new("/")).join(pattern)
            };
            for file in expand_glob(&pattern) {
                read_ld_so_conf(&file, dirs, depth + 1);
            }
        } else if line.starts_with('/') {
            let dir = PathBuf::from(line);
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
}

/// `dir/*.conf`-style patterns: a `*` in the file name only, as ld.so.conf uses them.
fn expand_glob(pattern: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (pattern.parent(), pattern.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy();
    let Some((head, tail)) = name.split_once('*') else {
        return vec![pattern.to_path_buf()];
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    n.starts_with(head) && n.ends_with(tail) && n.len() >= head.len() + tail.len()
                })
                .map(|n| dir.join(n))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn verdict(
    facts: &ElfFacts,
    findings: &[ModuleFinding],
    go: Option<&GoInfo>,
    regula: Option<&regula::identity::Identity>,
) -> (Verdict, String) {
    let describe = |f: &ModuleFinding| {
        let version = f
            .version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default();
        match f.linkage {
            Linkage::Static => format!("{}{version} (linked in)", f.name),
            Linkage::Dynamic => format!("{}{version} (loads {})", f.name, f.file),
        }
    };
    let list = |status: FipsStatus| -> Vec<String> {
        findings
            .iter()
            .filter(|f| f.fips == status)
            .map(describe)
            .collect()
    };
    let validated = list(FipsStatus::Validated);
    let unknown = list(FipsStatus::Unknown);
    let not_validated = list(FipsStatus::NotValidated);
    let regula_note = regula
        .map(|r| {
            format!(
                "; Regula {} ({} build)",
                r.version,
                if r.fips { "FIPS" } else { "default, non-FIPS" }
            )
        })
        .unwrap_or_default();
    if !validated.is_empty() {
        let mut reason = validated.join(", ");
        reason.push_str(if validated.len() == 1 {
            " is a validated FIPS module"
        } else {
            " are validated FIPS modules"
        });
        if !not_validated.is_empty() || !unknown.is_empty() {
            let others: Vec<String> = unknown.iter().chain(&not_validated).cloned().collect();
            reason.push_str(&format!(
                "; also present, not validated: {}",
                others.join(", ")
            ));
        }
        reason.push_str(&regula_note);
        return (Verdict::Yes, reason);
    }
    if !unknown.is_empty() {
        let details: Vec<String> = findings
            .iter()
            .filter(|f| f.fips == FipsStatus::Unknown)
            .map(|f| format!("{}: {}", describe(f), f.detail))
            .collect();
        return (Verdict::Unknown, details.join("; "));
    }
    if !not_validated.is_empty() {
        let mut reason = format!(
            "{} {} not validated FIPS modules",
            not_validated.join(", "),
            if not_validated.len() == 1 {
                "is"
            } else {
                "are"
            }
        );
        reason = reason.replacen(
            " is not validated FIPS modules",
            " is not a validated FIPS module",
            1,
        );
        reason.push_str(&regula_note);
        return (Verdict::No, reason);
    }
    if let Some(go) = go {
        return (
            Verdict::No,
            format!(
                "a Go program ({}) with no cryptographic packages in it",
                go.version.as_deref().unwrap_or("version unknown")
            ),
        );
    }
    if facts.has_symtab {
        (
            Verdict::No,
            format!(
                "no cryptographic module among its {} symbols, its strings or the libraries it loads (libraries opened with dlopen cannot be seen)",
                facts.symbols.len()
            ),
        )
    } else {
        (
            Verdict::Unknown,
            format!(
                "stripped {} binary: no symbol table, and neither its strings nor {} show a cryptographic module, so whether one is linked cannot be told",
                if facts.needed.is_empty() {
                    "static"
                } else {
                    "dynamic"
                },
                if facts.needed.is_empty() {
                    "a dynamic dependency"
                } else {
                    "the libraries it loads"
                }
            ),
        )
    }
}
