//! NIST ACVP vector sets, as recorded from the ACVP server (the JSON prompts and the expected
//! answers), answered through the module's public services under its policy.
//!
//! Two layouts are read:
//!
//! * a directory with `vectors/NAME` and `expected/NAME` (Go's `acvp-testdata` module: each
//!   file a bzip2-compressed JSON array `[ {session header}, {vector set}, … ]`);
//! * NIST ACVP-Server `gen-val/json-files/…/prompt.json` beside `expectedResults.json` (one
//!   uncompressed vector set, no header);
//! * NIST ACVP-Server `internalProjection.json` alone: the prompt with the server's answers
//!   (`ct`, `pt`, `testPassed`, …) inside each test case, so it is its own expected file.
//!
//! Files are recognised by content: bzip2 by its `BZh` magic, JSON otherwise (text after the
//! first JSON value is ignored: BoringSSL's recorded AES-XTS answers end with `EOF.`); a vector
//! set is any object with `algorithm` and `testGroups`. Expected answers are matched by `vsId`,
//! then `tgId` and `tcId`.
//!
//! [`run_path_with_responses`] also gives the module's answers in ACVP's response format (one
//! `{vsId, algorithm, mode, revision, testGroups: [{tgId, tests: [{tcId, …}]}]}` per vector
//! set): the fields each family compared, and `testPassed` where the expected answer is a
//! verdict. Skipped cases are absent, as a real response would omit them.
//!
//! Every test case ends up passed, failed or skipped, counted per algorithm / mode (the set's
//! `mode`, or the group's `direction`) / test type. A case the module cannot frame is skipped
//! with a reason — `not approved by policy fips-140-3`, `unsupported by this module: 112-bit GCM
//! tag`, `not yet answered by regula acvp` — and never counted as passed. A case whose expected
//! answer says `testPassed: false` passes only when the module refuses it (a GCM tag mismatch,
//! a CMAC that does not verify).
//!
//! Families: hashes, HMAC, CMAC, GMAC, AES-CBC/CTR/GCM/CCM/XTS, AES-KW/KWP, PBKDF, KBKDF
//! (SP 800-108 counter mode, HMAC), KDA HKDF and the TLS KDFs; ECDSA, EdDSA, RSA and ML-DSA
//! sigVer (ML-DSA with its context string or over an external mu) and ML-DSA keyGen from a seed
//! (`sig`); KAS-ECC-SSC VAL, ML-KEM keyGen from seeds, encapsulation with a given `m` and
//! decapsulation (`pk`); ctrDRBG with given entropy through the module's known-answer CTR_DRBG
//! (`drbg`). Other sigGen, keyGen and KAS AFT answers are the
//! implementation's own random keys and nonces, judged by the ACVP server rather than by
//! recorded answers: they are skipped with that reason. [`coverage`] says which registry rows
//! the recorded data runs, and why the others are not. [`wrapper`] answers the same services
//! over the module-wrapper protocol of BoringSSL's `acvptool`.

mod aes;
pub mod coverage;
mod drbg;
mod hash;
mod kdf;
mod mac;
mod pk;
mod sig;
pub mod wrapper;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use regula::Module;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::tally::{Expect, Outcome, Tally};
use crate::{FileReport, Format, VectorError, VectorErrorKind};

/// Never read more than this from one (decompressed) file: the largest recorded set is a few
/// MB; a bzip2 bomb must not take the machine's memory.
const MAX_FILE_BYTES: u64 = 512 << 20;

/// The counts for one algorithm / mode / test type of one vector-set file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AcvpRow {
    /// The prompt file the cases came from.
    pub file: String,
    /// ACVP's name, e.g. `SHA2-256`, `ACVP-AES-GCM`, `KDA`.
    pub algorithm: String,
    /// The set's `mode` (`sigVer`, `HKDF`) or the group's `direction` (`encrypt`, `gen`);
    /// empty when there is neither.
    pub mode: String,
    /// `AFT`, `MCT`, `LDT`, `VAL`, `CTR`, …
    pub test_type: String,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    /// Why cases were skipped, with counts; the counts add up to `skipped`.
    pub skip_reasons: BTreeMap<String, u64>,
    /// The first failures, each naming its `tgId`/`tcId` and what differed.
    pub failures: Vec<String>,
}

impl AcvpRow {
    fn from_report(
        file: &str,
        algorithm: &str,
        mode: &str,
        test_type: &str,
        report: FileReport,
    ) -> AcvpRow {
        AcvpRow {
            file: file.to_string(),
            algorithm: algorithm.to_string(),
            mode: mode.to_string(),
            test_type: test_type.to_string(),
            passed: report.passed,
            failed: report.failed,
            skipped: report.skipped,
            skip_reasons: report.skip_reasons,
            failures: report.failures,
        }
    }
}

/// One test case, with its group and expected answer, handed to a family's runner.
pub(crate) struct Case<'a> {
    pub module: &'a Module,
    /// ACVP's algorithm name.
    pub algorithm: &'a str,
    /// The set's `mode` (`sigVer`, `keyGen`), or the group's `direction`; empty when neither.
    pub mode: &'a str,
    pub group: &'a Value,
    pub test: &'a Value,
    pub expected: &'a Value,
    /// The module's answer fields for the response file, filled by the runner.
    pub response: RefCell<Map<String, Value>>,
}

/// What a runner decided for one case. `Err` is a malformed case (missing field, bad hex).
pub(crate) type Verdict = Result<(Expect, Outcome), String>;

impl Case<'_> {
    pub fn hex(&self, key: &str) -> Result<Vec<u8>, String> {
        hex_field(self.test, key)
    }

    /// A hex field of the test case, or else of its group (ACVP puts keys in either).
    pub fn hex_in_case_or_group(&self, key: &str) -> Result<Vec<u8>, String> {
        if self.test.get(key).is_some() {
            self.hex(key)
        } else {
            hex_field(self.group, key).map_err(|error| format!("group: {error}"))
        }
    }

    pub fn expected_hex(&self, key: &str) -> Result<Vec<u8>, String> {
        hex_field(self.expected, key).map_err(|error| format!("expected answer: {error}"))
    }

    pub fn group_number(&self, key: &str) -> Result<u64, String> {
        number_field(self.group, key).map_err(|error| format!("group: {error}"))
    }

    pub fn group_text(&self, key: &str) -> Result<&str, String> {
        text_field(self.group, key).map_err(|error| format!("group: {error}"))
    }

    /// The expected `testPassed`, when the answer is a verdict rather than a value.
    pub fn expected_verdict(&self) -> Option<bool> {
        self.expected.get("testPassed").and_then(Value::as_bool)
    }

    /// What a verdict case expects of the module: `testPassed: true` a valid input, `false`
    /// one the module must refuse.
    pub fn verdict_expect(&self) -> Result<Expect, String> {
        match self.expected_verdict() {
            Some(true) => Ok(Expect::Valid),
            Some(false) => Ok(Expect::Invalid),
            None => Err("expected answer: no boolean field `testPassed`".into()),
        }
    }

    /// Records an answer field (hex, upper case as the ACVP server writes it) for the response
    /// file.
    pub fn respond_hex(&self, key: &str, bytes: &[u8]) {
        self.response
            .borrow_mut()
            .insert(key.to_string(), Value::String(hex::encode_upper(bytes)));
    }
}

pub(crate) fn hex_field(value: &Value, key: &str) -> Result<Vec<u8>, String> {
    let text = text_field(value, key)?;
    hex::decode(text).map_err(|error| format!("`{key}` is not hex ({error})"))
}

pub(crate) fn number_field(value: &Value, key: &str) -> Result<u64, String> {
    value
        .get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("no number field `{key}`"))
}

pub(crate) fn text_field<'v>(value: &'v Value, key: &str) -> Result<&'v str, String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no string field `{key}`"))
}

/// A case that must succeed, with this outcome.
pub(crate) fn valid(outcome: Outcome) -> (Expect, Outcome) {
    (Expect::Valid, outcome)
}

/// A case the module cannot frame.
pub(crate) fn unsupported(what: impl std::fmt::Display) -> (Expect, Outcome) {
    valid(Outcome::Skip(format!("unsupported by this module: {what}")))
}

/// The skip reason of every set this runner does not answer yet.
pub const NOT_YET: &str = "not yet answered by regula acvp";

/// Runs every vector set under `path`: a directory with `vectors/` and `expected/`, a
/// directory holding `prompt.json` and `expectedResults.json` (or folders of them, as NIST's
/// `gen-val/json-files`), or one prompt file whose expected answers are `expected` or found by
/// the same conventions (`…/vectors/NAME` → `…/expected/NAME`, `prompt.json` →
/// `expectedResults.json`).
pub fn run_path(
    module: &Module,
    path: &Path,
    expected: Option<&Path>,
) -> Result<Vec<AcvpRow>, VectorError> {
    run_path_with_responses(module, path, expected).map(|(rows, _)| rows)
}

/// [`run_path`], with the module's answers: one ACVP response object per vector set.
pub fn run_path_with_responses(
    module: &Module,
    path: &Path,
    expected: Option<&Path>,
) -> Result<(Vec<AcvpRow>, Vec<Value>), VectorError> {
    let pairs = if path.is_dir() {
        if expected.is_some() {
            return Err(io_error(
                path,
                "--expected goes with a single prompt file, not a directory",
            ));
        }
        let mut pairs = Vec::new();
        find_pairs(path, &mut pairs)?;
        if pairs.is_empty() {
            return Err(VectorError::new(
                &path.display().to_string(),
                0,
                VectorErrorKind::UnknownFormat,
                "no ACVP vector sets here (expected `vectors/` and `expected/`, `prompt.json` \
                 and `expectedResults.json`, or `internalProjection.json`)",
            ));
        }
        pairs
    } else {
        let expected = match expected {
            Some(expected) => expected.to_path_buf(),
            None => expected_for(path)?,
        };
        vec![(path.to_path_buf(), expected)]
    };
    let mut rows = Vec::new();
    let mut responses = Vec::new();
    for (prompt, expected) in pairs {
        let label = prompt.display().to_string();
        let prompt_json = read_json(&prompt)?;
        let expected_json = if expected == prompt {
            prompt_json.clone()
        } else {
            read_json(&expected)?
        };
        rows.extend(run_json_into(
            module,
            &label,
            &prompt_json,
            &expected_json,
            &mut responses,
        )?);
    }
    Ok((rows, responses))
}

/// Writes response objects (from [`run_path_with_responses`]) as a JSON array.
pub fn write_responses(path: &Path, responses: &[Value]) -> Result<(), VectorError> {
    let text = serde_json::to_string_pretty(responses)
        .map_err(|error| io_error(path, error.to_string()))?;
    std::fs::write(path, text + "\n").map_err(|error| io_error(path, error.to_string()))
}

fn io_error(path: &Path, message: impl Into<String>) -> VectorError {
    VectorError::new(&path.display().to_string(), 0, VectorErrorKind::Io, message)
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, VectorError> {
    let io = |error: std::io::Error| io_error(dir, error.to_string());
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort();
    Ok(entries)
}

fn find_pairs(dir: &Path, pairs: &mut Vec<(PathBuf, PathBuf)>) -> Result<(), VectorError> {
    let vectors = dir.join("vectors");
    let expected = dir.join("expected");
    if vectors.is_dir() && expected.is_dir() {
        for prompt in sorted_entries(&vectors)? {
            if prompt.is_file() {
                let answers = expected_for(&prompt)?;
                pairs.push((prompt, answers));
            }
        }
        return Ok(());
    }
    let prompt = dir.join("prompt.json");
    if prompt.is_file() {
        let answers = expected_for(&prompt)?;
        pairs.push((prompt, answers));
        return Ok(());
    }
    let projection = dir.join(PROJECTION);
    if projection.is_file() {
        pairs.push((projection.clone(), projection));
        return Ok(());
    }
    for entry in sorted_entries(dir)? {
        if entry.is_dir() {
            find_pairs(&entry, pairs)?;
        }
    }
    Ok(())
}

/// NIST ACVP-Server's file holding a vector set with the server's answers inside its cases.
const PROJECTION: &str = "internalProjection.json";

/// Where the expected answers of a prompt file are, by the layouts' conventions (an
/// `internalProjection.json` holds its own).
fn expected_for(prompt: &Path) -> Result<PathBuf, VectorError> {
    let name = prompt.file_name().unwrap_or_default();
    let candidate = if name == PROJECTION {
        Some(prompt.to_path_buf())
    } else if name == "prompt.json" {
        Some(prompt.with_file_name("expectedResults.json"))
    } else {
        prompt
            .parent()
            .filter(|parent| parent.file_name().is_some_and(|dir| dir == "vectors"))
            .and_then(Path::parent)
            .map(|root| root.join("expected").join(name))
    };
    match candidate {
        Some(path) if path.is_file() => Ok(path),
        Some(path) => Err(io_error(
            prompt,
            format!("its expected answers {} do not exist", path.display()),
        )),
        None => Err(io_error(
            prompt,
            "cannot tell where its expected answers are: give --expected FILE",
        )),
    }
}

/// Reads a file, decompressing bzip2 (by its magic), and parses it as JSON.
fn read_json(path: &Path) -> Result<Value, VectorError> {
    let label = path.display().to_string();
    let io = |error: std::io::Error| io_error(path, error.to_string());
    let raw = std::fs::read(path).map_err(io)?;
    let bytes = if raw.starts_with(b"BZh") {
        let mut out = Vec::new();
        bzip2::read::BzDecoder::new(raw.as_slice())
            .take(MAX_FILE_BYTES)
            .read_to_end(&mut out)
            .map_err(|error| {
                VectorError::malformed(&label, 0, format!("bad bzip2 data: {error}"))
            })?;
        if out.len() as u64 >= MAX_FILE_BYTES {
            return Err(VectorError::malformed(
                &label,
                0,
                format!("decompresses to more than {} MiB", MAX_FILE_BYTES >> 20),
            ));
        }
        out
    } else {
        raw
    };
    // The first JSON value; trailing text is ignored (BoringSSL's recorded AES-XTS answers end
    // with `EOF.`), but an empty or unparsable start is an error.
    let mut values = serde_json::Deserializer::from_slice(&bytes).into_iter::<Value>();
    match values.next() {
        Some(Ok(value)) => Ok(value),
        Some(Err(error)) => Err(VectorError::malformed(
            &label,
            error.line(),
            format!("invalid JSON: {error}"),
        )),
        None => Err(VectorError::malformed(
            &label,
            0,
            "empty file: no JSON value",
        )),
    }
}

/// The vector sets in a parsed file: the elements of a top-level array (or the object itself)
/// that have `testGroups`; the session header has none.
fn vector_sets(root: &Value) -> Vec<&Value> {
    let is_set = |value: &&Value| value.get("testGroups").is_some();
    match root {
        Value::Array(items) => items.iter().filter(is_set).collect(),
        other => std::iter::once(other).filter(is_set).collect(),
    }
}

/// Runs prompt and expected JSON already parsed; `label` names the prompt in rows and errors.
pub fn run_json(
    module: &Module,
    label: &str,
    prompt: &Value,
    expected: &Value,
) -> Result<Vec<AcvpRow>, VectorError> {
    run_json_into(module, label, prompt, expected, &mut Vec::new())
}

/// [`run_json`], appending one ACVP response object per vector set to `responses`.
pub fn run_json_into(
    module: &Module,
    label: &str,
    prompt: &Value,
    expected: &Value,
    responses: &mut Vec<Value>,
) -> Result<Vec<AcvpRow>, VectorError> {
    let answer_sets = vector_sets(expected);
    let prompt_sets = vector_sets(prompt);
    if prompt_sets.is_empty() {
        return Err(VectorError::new(
            label,
            0,
            VectorErrorKind::UnknownFormat,
            "no ACVP vector set (an object with `algorithm` and `testGroups`)",
        ));
    }
    let mut rows: Vec<(String, String, String, Tally)> = Vec::new();
    for (index, set) in prompt_sets.iter().enumerate() {
        let algorithm = text_field(set, "algorithm")
            .map_err(|error| VectorError::malformed(label, 0, error))?;
        let vs_id = set.get("vsId").and_then(Value::as_u64);
        let answers = answer_sets
            .iter()
            .find(|answer| vs_id.is_some() && answer.get("vsId").and_then(Value::as_u64) == vs_id)
            .or_else(|| answer_sets.get(index).filter(|_| vs_id.is_none()))
            .ok_or_else(|| {
                VectorError::malformed(
                    label,
                    0,
                    format!("no expected answers for vector set {}", vs_id.unwrap_or(0)),
                )
            })?;
        // NIST's projections carry `"mode": ""`: no mode, so the group's direction names rows.
        let set_mode = set
            .get("mode")
            .and_then(Value::as_str)
            .filter(|mode| !mode.is_empty());
        let mut response = Map::new();
        response.insert(
            "vsId".into(),
            set.get("vsId").cloned().unwrap_or(Value::from(0)),
        );
        response.insert("algorithm".into(), Value::from(algorithm));
        for key in ["mode", "revision"] {
            if let Some(value) = set.get(key) {
                response.insert(key.into(), value.clone());
            }
        }
        let mut response_groups = Vec::new();
        let groups = set
            .get("testGroups")
            .and_then(Value::as_array)
            .ok_or_else(|| VectorError::malformed(label, 0, "`testGroups` is not an array"))?;
        for group in groups {
            let tg_id = number_field(group, "tgId")
                .map_err(|error| VectorError::malformed(label, 0, error))?;
            let test_type = group
                .get("testType")
                .and_then(Value::as_str)
                .unwrap_or("AFT");
            let mode = set_mode
                .or_else(|| group.get("direction").and_then(Value::as_str))
                .unwrap_or("");
            let expected_group = answers
                .get("testGroups")
                .and_then(Value::as_array)
                .and_then(|groups| {
                    groups
                        .iter()
                        .find(|answer| answer.get("tgId").and_then(Value::as_u64) == Some(tg_id))
                });
            let position = rows
                .iter()
                .position(|(a, m, t, _)| a == algorithm && m == mode && t == test_type)
                .unwrap_or_else(|| {
                    rows.push((
                        algorithm.to_string(),
                        mode.to_string(),
                        test_type.to_string(),
                        Tally::new(FileReport::new(label, Format::Acvp)),
                    ));
                    rows.len() - 1
                });
            let tally = &mut rows[position].3;
            let tests = group
                .get("tests")
                .and_then(Value::as_array)
                .ok_or_else(|| {
                    VectorError::malformed(
                        label,
                        0,
                        format!("tgId {tg_id}: `tests` is not an array"),
                    )
                })?;
            let mut response_tests = Vec::new();
            for test in tests {
                let tc_id = number_field(test, "tcId").map_err(|error| {
                    VectorError::malformed(label, 0, format!("tgId {tg_id}: {error}"))
                })?;
                let id = format!("tgId {tg_id} tcId {tc_id}");
                let expected_test = expected_group
                    .and_then(|answer| answer.get("tests"))
                    .and_then(Value::as_array)
                    .and_then(|tests| {
                        tests.iter().find(|answer| {
                            answer.get("tcId").and_then(Value::as_u64) == Some(tc_id)
                        })
                    });
                let Some(expected_test) = expected_test else {
                    tally.skip("no expected answer recorded for this case");
                    continue;
                };
                let case = Case {
                    module,
                    algorithm,
                    mode,
                    group,
                    test,
                    expected: expected_test,
                    response: RefCell::default(),
                };
                let (expect, outcome) = answer(&case)
                    .map_err(|error| VectorError::malformed(label, 0, format!("{id}: {error}")))?;
                if let Some(answer) = response_test(tc_id, &case, &outcome) {
                    response_tests.push(answer);
                }
                tally.record(&id, expect, outcome);
            }
            if !response_tests.is_empty() {
                response_groups.push(serde_json::json!({"tgId": tg_id, "tests": response_tests}));
            }
        }
        response.insert("testGroups".into(), Value::Array(response_groups));
        responses.push(Value::Object(response));
    }
    Ok(rows
        .into_iter()
        .map(|(algorithm, mode, test_type, tally)| {
            AcvpRow::from_report(label, &algorithm, &mode, &test_type, tally.finish())
        })
        .collect())
}

/// One test case of the response: `tcId`, the fields the runner recorded, and `testPassed`
/// where the expected answer is a verdict (true when the module accepted the case). `None` for
/// a skipped case, or one whose family records no answer fields (Monte Carlo results, the TLS
/// KDFs).
fn response_test(tc_id: u64, case: &Case<'_>, outcome: &Outcome) -> Option<Value> {
    if matches!(outcome, Outcome::Skip(_)) {
        return None;
    }
    let mut fields = case.response.borrow().clone();
    if case.expected_verdict().is_some() {
        fields.insert(
            "testPassed".into(),
            Value::Bool(matches!(outcome, Outcome::Accepted)),
        );
    }
    if fields.is_empty() {
        return None;
    }
    let mut test = Map::new();
    test.insert("tcId".into(), Value::from(tc_id));
    test.extend(fields);
    Some(Value::Object(test))
}

/// Dispatch on ACVP's algorithm name.
fn answer(case: &Case<'_>) -> Verdict {
    let name = case.algorithm;
    if name.starts_with("SHA2-")
        || name.starts_with("SHA3-")
        || name.starts_with("SHAKE-")
        || name == "SHA-1"
    {
        return hash::answer(case);
    }
    if name.starts_with("cSHAKE-") {
        return Ok(unsupported("cSHAKE (no customizable SHAKE service)"));
    }
    if name.starts_with("HMAC-") {
        return mac::hmac(case);
    }
    match name {
        "CMAC-AES" => mac::cmac(case),
        "ACVP-AES-ECB" => Ok(unsupported("AES-ECB (no ECB mode for AES)")),
        "ACVP-AES-CBC" | "ACVP-AES-CTR" => aes::block_mode(case),
        "ACVP-AES-GCM" => aes::gcm(case),
        "ACVP-AES-CCM" => aes::ccm(case),
        "ACVP-AES-KW" | "ACVP-AES-KWP" => aes::key_wrap(case),
        "ACVP-AES-XTS" => aes::xts(case),
        "ACVP-AES-GMAC" => mac::gmac(case),
        "KDF" => kdf::kbkdf(case),
        "PBKDF" => kdf::pbkdf(case),
        "KDA" => kdf::kda(case),
        "TLS-v1.2" => kdf::tls12(case),
        "TLS-v1.3" => kdf::tls13(case),
        "ECDSA" => sig::ecdsa(case),
        "DetECDSA" => Ok(valid(Outcome::Skip(sig::JUDGED_BY_SERVER.into()))),
        "EDDSA" => sig::eddsa(case),
        "RSA" => sig::rsa(case),
        "ML-DSA" => sig::ml_dsa(case),
        "KAS-ECC-SSC" => pk::kas_ecc_ssc(case),
        "ML-KEM" => pk::ml_kem(case),
        "KTS-IFC" => Ok(unsupported(
            "KTS-IFC (RSA key transport: no RSA-OAEP service)",
        )),
        "ctrDRBG" => drbg::ctr_drbg(case),
        "hmacDRBG" => Ok(unsupported("hmacDRBG (no HMAC_DRBG in this module)")),
        "kdf-components" => Ok(unsupported(format!(
            "kdf-components {} (no such KDF service)",
            case.group
                .get("kdfType")
                .and_then(Value::as_str)
                .unwrap_or("ssh")
        ))),
        _ => Ok(valid(Outcome::Skip(NOT_YET.to_string()))),
    }
}

/// A case answered through the module: errors become outcomes (a policy refusal is a skip).
pub(crate) fn through_module(
    expect: Expect,
    body: impl FnOnce() -> Result<Outcome, regula::Error>,
) -> (Expect, Outcome) {
    (expect, crate::tally::attempt(body))
}

/// Totals over rows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AcvpTotals {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    /// Why cases were skipped, with counts over all rows.
    pub skip_reasons: BTreeMap<String, u64>,
}

impl AcvpTotals {
    pub fn of(rows: &[AcvpRow]) -> AcvpTotals {
        let mut totals = AcvpTotals::default();
        for row in rows {
            totals.passed += row.passed;
            totals.failed += row.failed;
            totals.skipped += row.skipped;
            for (reason, count) in &row.skip_reasons {
                *totals.skip_reasons.entry(reason.clone()).or_default() += count;
            }
        }
        totals
    }
}

#[cfg(test)]
mod tests;
