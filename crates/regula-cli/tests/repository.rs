//! The repository holds sources, not build outputs: no committed file is an ELF object or an
//! archive (ar, zip, gzip, bzip2, xz) unless it lives in a test-data folder (`tests/data/`,
//! `testdata/`) or is listed in [`EXCEPTIONS`] with its reason. A binary committed by mistake
//! (a Go test binary, a built example, a wheel) fails here, by name.
//!
//! The files are those `git ls-files` lists, read from the work tree; without `git` or a `.git`
//! (a source tarball) the test says so and checks nothing.

use std::io::Read;
use std::path::Path;
use std::process::Command;

/// Committed binaries outside a test-data folder, each with the reason it is committed. Empty:
/// none is.
const EXCEPTIONS: &[(&str, &str)] = &[];

/// Magic numbers at the start of a file, and what they mean.
const MAGICS: &[(&[u8], &str)] = &[
    (b"\x7fELF", "ELF object"),
    (b"!<arch>\n", "ar archive"),
    (b"PK\x03\x04", "zip archive"),
    (b"PK\x05\x06", "zip archive (empty)"),
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
];

fn binary_kind(head: &[u8]) -> Option<&'static str> {
    MAGICS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .map(|&(_, kind)| kind)
}

/// Under a `tests/data/` or `testdata/` folder (at any depth).
fn in_test_data(path: &str) -> bool {
    let dirs: Vec<&str> = path.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    dirs.contains(&"testdata") || dirs.windows(2).any(|w| w == ["tests", "data"])
}

#[test]
fn magic_numbers_and_test_data_folders() {
    assert_eq!(binary_kind(b"\x7fELF\x02\x01\x01\0"), Some("ELF object"));
    assert_eq!(
        binary_kind(b"!<arch>\n/               "),
        Some("ar archive")
    );
    assert_eq!(binary_kind(b"PK\x03\x04\x14\0"), Some("zip archive"));
    assert_eq!(binary_kind(b"\x1f\x8b\x08\0"), Some("gzip"));
    assert_eq!(binary_kind(b"BZh91AY"), Some("bzip2"));
    assert_eq!(binary_kind(b"\xfd7zXZ\0\0\x04"), Some("xz"));
    assert_eq!(binary_kind(b"#!/bin/sh\n"), None);
    assert_eq!(binary_kind(b"\x7fEL"), None);
    assert_eq!(binary_kind(b""), None);

    assert!(in_test_data("crates/regula-bench/tests/data/x.gz"));
    assert!(in_test_data("go/testdata/a/b.bin"));
    assert!(in_test_data("testdata/x"));
    assert!(!in_test_data("go/regula.test"));
    assert!(!in_test_data("tests/data"));
    assert!(!in_test_data("crates/x/tests/datafile.gz"));
    assert!(!in_test_data("crates/x/testdata"));
}

#[test]
fn no_committed_executable_or_archive_outside_test_data() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if !root.join(".git").exists() {
        println!(
            "skipped: {} has no .git (not a git checkout)",
            root.display()
        );
        return;
    }
    let output = match Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output()
    {
        Ok(output) => output,
        Err(error) => {
            println!("skipped: git cannot be run ({error})");
            return;
        }
    };
    assert!(
        output.status.success(),
        "git ls-files: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let files: Vec<String> = output
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    assert!(
        files.iter().any(|f| f == "Cargo.toml"),
        "git ls-files lists the workspace"
    );

    let mut checked = 0;
    let mut offending = Vec::new();
    for file in &files {
        let path = root.join(file);
        // Regular files only: a symbolic link or a file deleted in the work tree has no bytes.
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !metadata.is_file() {
            continue;
        }
        let mut head = Vec::with_capacity(8);
        std::fs::File::open(&path)
            .and_then(|f| f.take(8).read_to_end(&mut head))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        checked += 1;
        let Some(kind) = binary_kind(&head) else {
            continue;
        };
        if in_test_data(file) || EXCEPTIONS.iter().any(|(path, _)| path == file) {
            continue;
        }
        offending.push(format!("  {file}: {kind}, {} bytes", metadata.len()));
    }
    println!("{checked} committed files checked");
    assert!(
        offending.is_empty(),
        "committed build outputs (remove them with `git rm --cached` and ignore them in \
         .gitignore, or move real test data under tests/data/ or testdata/):\n{}",
        offending.join("\n")
    );
}
