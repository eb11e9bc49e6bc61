//! The GM/T standards' appendix examples (`tests/data/gmt/appendix_examples.txt`, provenance
//! in the README there) run under the gm policy with every example passed; and every value of
//! the file, with one bit changed, makes its example fail.

use std::path::{Path, PathBuf};

use regula::{Module, Policy, Profile};
use regula_vectors::{Format, run_path, run_source};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gmt")
}

fn file_text() -> String {
    std::fs::read_to_string(data_dir().join("appendix_examples.txt")).unwrap()
}

/// The stanzas of the file (comment lines dropped), each as its own text.
fn stanzas(text: &str) -> Vec<String> {
    text.split("\n\n")
        .map(|block| {
            block
                .lines()
                .filter(|line| !line.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|block| !block.trim().is_empty())
        .collect()
}

#[test]
fn every_appendix_example_passes_under_gm() {
    let module = Module::load(Policy::builtin(Profile::Gm));
    let reports = run_path(&module, &data_dir()).unwrap();
    assert_eq!(reports.len(), 1, "one vector file; README.md is not read");
    let report = &reports[0];
    assert_eq!(report.format, Format::GmtAppendix);
    assert_eq!(report.failed, 0, "{:?}", report.failures);
    assert_eq!(report.skipped, 0, "{:?}", report.skip_reasons);
    let examples = file_text()
        .lines()
        .filter(|line| line.starts_with("Example ="))
        .count();
    assert_eq!(examples, 8);
    assert_eq!(report.passed, 8);
}

/// Under a policy that serves no SM algorithm every example is skipped with the policy's
/// reason, never passed.
#[test]
fn a_policy_without_sm_skips_every_example() {
    let module = Module::load(Policy::builtin(Profile::Fips1403));
    let report = &run_path(&module, &data_dir()).unwrap()[0];
    assert_eq!((report.passed, report.failed, report.skipped), (0, 0, 8));
    assert_eq!(
        report.skip_reasons.get("not approved by policy fips-140-3"),
        Some(&8)
    );
}

/// The kinds of value a stanza holds.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Hex,
    Decimal,
}

fn kind(key: &str, value: &str) -> Kind {
    if value.starts_with('"') {
        Kind::Text
    } else if key == "Iterations" || key == "KeyLength" {
        Kind::Decimal
    } else {
        Kind::Hex
    }
}

/// Flips one bit of one character of a value, keeping it of its kind: the lowest bit of its
/// last character (`last`) or of its first, where a hex value's first digit has its bit 3
/// flipped instead (the top bit of the value).
fn mutate(kind: Kind, value: &str, last: bool) -> String {
    let mut chars: Vec<char> = value.chars().collect();
    let (first, end) = match kind {
        Kind::Text => (1, chars.len() - 2),
        _ => (0, chars.len() - 1),
    };
    let index = if last { end } else { first };
    let c = chars[index];
    chars[index] = match kind {
        Kind::Text => char::from_u32(c as u32 ^ 1).unwrap(),
        Kind::Decimal => char::from_digit(c.to_digit(10).unwrap() ^ 1, 10).unwrap(),
        Kind::Hex => {
            let bit = if last { 1 } else { 8 };
            char::from_digit(c.to_digit(16).unwrap() ^ bit, 16)
                .unwrap()
                .to_ascii_uppercase()
        }
    };
    chars.into_iter().collect()
}

#[test]
fn every_answer_with_one_bit_changed_fails_its_example() {
    let module = Module::load(Policy::builtin(Profile::Gm));
    let mut mutations = 0;
    for stanza in stanzas(&file_text()) {
        let lines: Vec<&str> = stanza.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let (key, value) = line.split_once(" = ").unwrap();
            if matches!(key, "Example" | "Algorithm") {
                continue;
            }
            let kind = kind(key, value);
            for mutated in [mutate(kind, value, true), mutate(kind, value, false)] {
                assert_ne!(mutated, value);
                let mut changed = lines.clone();
                let new_line = format!("{key} = {mutated}");
                changed[index] = &new_line;
                let text = changed.join("\n");
                let report = run_source(&module, "mutated", &text)
                    .unwrap_or_else(|error| panic!("{key} = {mutated}: {error}"));
                assert_eq!(
                    (report.passed, report.failed, report.skipped),
                    (0, 1, 0),
                    "{} with {key} = {mutated} was not reported failed",
                    lines[0]
                );
                mutations += 1;
            }
        }
    }
    // 2 × 2 (SM3) + 2 × 4 (SM4) + 4 (curve) + 7 (signature) + 14 (key exchange) + 7
    // (encryption) values, two mutations each.
    assert_eq!(mutations, 2 * (4 + 8 + 4 + 7 + 14 + 7));
}

/// Every example of the file is named in the README, with where its values come from.
#[test]
fn the_readme_names_every_example() {
    let readme = std::fs::read_to_string(data_dir().join("README.md")).unwrap();
    for line in file_text().lines() {
        if let Some(example) = line.strip_prefix("Example = ") {
            let standard = example.split(" (").next().unwrap();
            assert!(readme.contains(standard), "README.md lacks `{standard}`");
        }
    }
}
