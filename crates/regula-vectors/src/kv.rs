//! Parser for `KEY = value` vector files: NIST CAVP `.rsp` and the cryptography-vectors text
//! files in the same shape.
//!
//! * `# …` lines are comments (kept: they often name the algorithm).
//! * `[…]` lines are section headers: `[Keylen = 128]`, `[Alen = 0, Plen = 0]`, or bare
//!   (`[P-256,SHA-256]`, `[ENCRYPT]`). A header replaces the earlier value of the same key.
//! * In files with `COUNT`/`Count` lines, a record runs from its `COUNT` to the next `COUNT` or
//!   header; `KEY = value` lines outside a record (after a header, before the first `COUNT`) are
//!   group values shared by the records that follow (CCM's `Key`, Monte's `Seed`).
//! * In files without `COUNT`, a record ends at a blank line or when a key repeats.
//! * A bare `FAIL` line marks the current record as one that must be rejected.

use crate::VectorError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    pub key: String,
    pub value: String,
    pub line: usize,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    /// 1-based line where the record starts.
    pub line: usize,
    pub headers: Vec<Field>,
    pub group: Vec<Field>,
    pub fields: Vec<Field>,
    pub fail: bool,
}

impl Record {
    fn new(line: usize, headers: &[Field], group: &[Field]) -> Record {
        Record {
            line,
            headers: headers.to_vec(),
            group: group.to_vec(),
            fields: Vec::new(),
            fail: false,
        }
    }

    /// A value from the record, else from its group, else from its section headers.
    pub fn get(&self, key: &str) -> Option<&Field> {
        self.fields
            .iter()
            .chain(&self.group)
            .chain(&self.headers)
            .find(|field| field.key.eq_ignore_ascii_case(key))
    }

    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// A value from the record itself (not inherited).
    pub fn own(&self, key: &str) -> Option<&Field> {
        self.fields
            .iter()
            .find(|field| field.key.eq_ignore_ascii_case(key))
    }

    /// Position of a key among the record's own lines.
    pub fn position(&self, key: &str) -> Option<usize> {
        self.fields
            .iter()
            .position(|field| field.key.eq_ignore_ascii_case(key))
    }

    /// The bare section header in effect (`P-256,SHA-256`), if any.
    pub fn bare_header(&self) -> Option<&str> {
        self.headers
            .iter()
            .find(|field| field.key.is_empty())
            .map(|field| field.value.as_str())
    }

    /// How failures name this record: `COUNT 3 (line 45)` or `line 45`.
    pub fn id(&self) -> String {
        match self.own("count") {
            Some(count) => format!("COUNT {} (line {})", count.value, self.line),
            None => format!("line {}", self.line),
        }
    }
}

#[derive(Debug)]
pub(crate) struct KvFile {
    pub comments: Vec<String>,
    pub records: Vec<Record>,
}

/// Splits `KEY = value` (also `KEY= value`, `KEY =`); `None` if the line has no such shape.
pub(crate) fn split_key_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once('=')?;
    let key = key.trim();
    let plausible = !key.is_empty()
        && key.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | '/' | '(' | ')' | '.')
        });
    plausible.then(|| (key, value.trim()))
}

fn set(fields: &mut Vec<Field>, field: Field) {
    match fields
        .iter_mut()
        .find(|existing| existing.key.eq_ignore_ascii_case(&field.key))
    {
        Some(existing) => *existing = field,
        None => fields.push(field),
    }
}

/// Ends a record of a file without `COUNT`s. A lone `KEY = value` between blank lines (the
/// `N = 10` of `KeyPair.rsp`) is not a vector but a value shared by the records after it.
fn close_uncounted(
    current: &mut Option<Record>,
    records: &mut Vec<Record>,
    group: &mut Vec<Field>,
) {
    match current.take() {
        Some(mut record) if record.fields.len() == 1 && !record.fail => {
            if let Some(field) = record.fields.pop() {
                set(group, field);
            }
        }
        Some(record) => records.push(record),
        None => {}
    }
}

pub(crate) fn parse(label: &str, text: &str) -> Result<KvFile, VectorError> {
    let is_count = |key: &str| key.eq_ignore_ascii_case("count");
    let uses_count = text.lines().any(|line| {
        let line = line.trim();
        !line.starts_with('#') && split_key_value(line).is_some_and(|(key, _)| is_count(key))
    });
    let mut comments = Vec::new();
    let mut headers: Vec<Field> = Vec::new();
    let mut group: Vec<Field> = Vec::new();
    let mut records = Vec::new();
    let mut current: Option<Record> = None;

    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        if raw.starts_with('\t') {
            // Indented lines are intermediate values printed under a vector (X9.63's
            // `\tK1 = …`, SP 800-108's `\tinstring = …`), not part of it.
            continue;
        }
        let line = raw.trim();
        if line.is_empty() {
            if !uses_count {
                close_uncounted(&mut current, &mut records, &mut group);
            }
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            comments.push(comment.trim().to_string());
            continue;
        }
        if line.starts_with('[') {
            let inner = line
                .strip_prefix('[')
                .and_then(|rest| rest.strip_suffix(']'))
                .ok_or_else(|| {
                    VectorError::malformed(label, line_no, "section header without closing `]`")
                })?;
            if uses_count {
                records.extend(current.take());
            } else {
                close_uncounted(&mut current, &mut records, &mut group);
            }
            if inner.contains('=') {
                for part in inner.split(',') {
                    let (key, value) = part.split_once('=').ok_or_else(|| {
                        VectorError::malformed(
                            label,
                            line_no,
                            format!("section header part `{}` is not `KEY = value`", part.trim()),
                        )
                    })?;
                    set(
                        &mut headers,
                        Field {
                            key: key.trim().to_string(),
                            value: value.trim().to_string(),
                            line: line_no,
                        },
                    );
                }
            } else {
                set(
                    &mut headers,
                    Field {
                        key: String::new(),
                        value: inner.trim().to_string(),
                        line: line_no,
                    },
                );
            }
            continue;
        }
        if let Some((key, value)) = split_key_value(line) {
            let field = Field {
                key: key.to_string(),
                value: value.to_string(),
                line: line_no,
            };
            if uses_count {
                if is_count(key) {
                    records.extend(current.take());
                    current = Some(Record::new(line_no, &headers, &group));
                }
                match current.as_mut() {
                    Some(record) => record.fields.push(field),
                    None => set(&mut group, field),
                }
            } else {
                let repeated = current.as_ref().is_some_and(|record| {
                    record
                        .fields
                        .iter()
                        .any(|existing| existing.key.eq_ignore_ascii_case(key))
                });
                if repeated {
                    close_uncounted(&mut current, &mut records, &mut group);
                }
                current
                    .get_or_insert_with(|| Record::new(line_no, &headers, &group))
                    .fields
                    .push(field);
            }
            continue;
        }
        if line.eq_ignore_ascii_case("FAIL") {
            match current.as_mut() {
                Some(record) => record.fail = true,
                None => {
                    return Err(VectorError::malformed(
                        label,
                        line_no,
                        "`FAIL` outside a vector",
                    ));
                }
            }
            continue;
        }
        let shown: String = line.chars().take(40).collect();
        return Err(VectorError::malformed(
            label,
            line_no,
            format!(
                "unrecognised line `{shown}` (expected `KEY = value`, `[section]`, `FAIL` or `# comment`)"
            ),
        ));
    }
    if uses_count {
        records.extend(current.take());
    } else {
        close_uncounted(&mut current, &mut records, &mut group);
    }
    Ok(KvFile { comments, records })
}

/// Decodes a big-endian integer written in hex, which CAVP sometimes writes with an odd number
/// of digits (`Qy = 1971…27e6` in `PKV.rsp`).
pub(crate) fn decode_integer(label: &str, field: &Field) -> Result<Vec<u8>, VectorError> {
    if field.value.len() % 2 == 1 {
        let padded = Field {
            value: format!("0{}", field.value),
            ..field.clone()
        };
        return decode(label, &padded);
    }
    decode(label, field)
}

/// Decodes a value: `"text"` as its bytes, otherwise hex (empty for an empty value).
pub(crate) fn decode(label: &str, field: &Field) -> Result<Vec<u8>, VectorError> {
    let value = field.value.as_str();
    if let Some(text) = value
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    {
        return Ok(text.as_bytes().to_vec());
    }
    hex::decode(value).map_err(|error| {
        VectorError::malformed(
            label,
            field.line,
            format!("`{}` is not hex ({error})", field.key),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_records_take_group_values_and_fail_marks() {
        let text = "# CAVS\n[Alen = 0, Tlen = 4]\n\nKey = 00ff\n\nCount = 0\nNonce = 01\n\nPRK = 02\nFAIL\n\nCount = 1\nNonce = 03\n";
        let file = parse("t", text).unwrap();
        assert_eq!(file.records.len(), 2);
        let first = &file.records[0];
        assert_eq!(first.get("key").unwrap().value, "00ff");
        assert_eq!(first.get("Tlen").unwrap().value, "4");
        assert_eq!(first.get("PRK").unwrap().value, "02");
        assert!(first.fail);
        assert!(!file.records[1].fail);
        assert_eq!(file.records[1].id(), "COUNT 1 (line 12)");
    }

    #[test]
    fn uncounted_records_split_on_repeats_and_blanks() {
        let text =
            "[P-256,SHA-256]\nN = 3\n\nMsg = 00\nQx = 01\nMsg = 02\nQx = 03\n\nMsg = 04\nQx = 05\n";
        let file = parse("t", text).unwrap();
        assert_eq!(file.records.len(), 3);
        assert_eq!(file.records[1].bare_header(), Some("P-256,SHA-256"));
        // A lone value between blank lines is shared, not a vector of its own.
        assert_eq!(file.records[2].get("N").unwrap().value, "3");
    }

    #[test]
    fn errors_name_the_line() {
        let error = parse("f.rsp", "COUNT = 0\nKey = 00\nthis is not a vector\n").unwrap_err();
        assert_eq!(error.line, 3);
        assert!(error.to_string().starts_with("f.rsp:3: unrecognised line"));
        let field = Field {
            key: "Key".into(),
            value: "0g".into(),
            line: 7,
        };
        assert_eq!(decode("f.rsp", &field).unwrap_err().line, 7);
    }
}
