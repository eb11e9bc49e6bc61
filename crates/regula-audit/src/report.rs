//! The report model: what an audit finds in one binary, serialised as is by `regula audit
//! --json` (field names and enum spellings are that document's).

use std::collections::BTreeMap;

use serde::Serialize;

/// Whether a module found is a validated FIPS 140 module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FipsStatus {
    /// A validated module (AWS-LC's FIPS module, Go's certified snapshot, Go's BoringCrypto).
    Validated,
    /// Its FIPS use depends on the machine or cannot be read from the file.
    Unknown,
    /// Not a validated module.
    NotValidated,
}

/// How a module reaches the binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Linkage {
    /// Linked into the binary itself.
    Static,
    /// In a library the loader maps for it (DT_NEEDED, followed).
    Dynamic,
}

/// One cryptographic module recognised in the binary or a library it loads.
#[derive(Clone, Debug, Serialize)]
pub struct ModuleFinding {
    /// `AWS-LC FIPS`, `OpenSSL libcrypto`, `Go FIPS 140-3 module`, `RustCrypto`, …
    pub name: String,
    pub version: Option<String>,
    pub fips: FipsStatus,
    pub linkage: Linkage,
    /// The file it was found in (the binary itself, or a library it loads).
    pub file: String,
    /// Why this FIPS status.
    pub detail: String,
    /// What in the file showed it (strings, symbols, build settings, DT_NEEDED names).
    pub evidence: Vec<String>,
}

/// A library the loader would map: its DT_NEEDED name, where it was found and who needs it.
#[derive(Clone, Debug, Serialize)]
pub struct Loaded {
    pub name: String,
    /// `None`: not found on this system.
    pub path: Option<String>,
    /// The file name of the binary or library that names it in DT_NEEDED.
    pub needed_by: String,
}

/// The Go build info of a Go program.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GoInfo {
    /// The toolchain version, e.g. `go1.26.0`.
    pub version: Option<String>,
    /// The main module's path.
    pub path: Option<String>,
    /// `build KEY=VALUE` settings (`GOFIPS140`, `GOEXPERIMENT`, `DefaultGODEBUG`, `-tags`, …).
    pub settings: BTreeMap<String, String>,
    /// Versions of `crypto/internal/fips140/vX…` snapshot packages found in the binary.
    pub fips140_packages: Vec<String>,
}

impl GoInfo {
    /// The `fips140` mode the binary's DefaultGODEBUG sets (`on`, `only`, `off`), if any.
    pub fn fips140_godebug(&self) -> Option<String> {
        self.settings.get("DefaultGODEBUG").and_then(|d| {
            d.split(',')
                .find_map(|kv| kv.strip_prefix("fips140=").map(str::to_string))
        })
    }
}

/// The answer to "is a validated FIPS module linked or loaded?" for one binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Yes,
    No,
    /// The evidence cannot settle it.
    Unknown,
    /// The file could not be read as ELF.
    Error,
}

/// Everything an audit says about one file.
#[derive(Clone, Debug, Serialize)]
pub struct BinaryReport {
    /// The path as given.
    pub path: String,
    /// Why the file could not be audited (then the fields read from the file are empty).
    pub error: Option<String>,
    /// `ELF64 x86-64`, …
    pub format: Option<String>,
    /// `executable`, `pie-executable`, `shared-library`, …
    pub kind: Option<&'static str>,
    /// `static` or `dynamic`.
    pub linking: Option<&'static str>,
    /// No `.symtab`.
    pub stripped: Option<bool>,
    /// PT_INTERP.
    pub interpreter: Option<String>,
    /// Its own DT_NEEDED names.
    pub needed: Vec<String>,
    /// Every library the loader would map, breadth first.
    pub loads: Vec<Loaded>,
    pub go: Option<GoInfo>,
    /// Regula's identity record, from the binary or a library it loads.
    pub regula: Option<regula::identity::Identity>,
    pub modules: Vec<ModuleFinding>,
    pub verdict: Verdict,
    /// The verdict's explanation, one line.
    pub reason: String,
}
