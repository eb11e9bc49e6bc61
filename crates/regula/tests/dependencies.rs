//! Only `src/provider/` may reach the backends (after Go's `crypto/internal/fips140deps` and
//! regula-sm's own `tests/dependencies.rs`): a file of the core outside it that names
//! `aws_lc_rs`, `aws_lc_sys`, `aws_lc_fips_sys` or `regula_sm` in code — a `use`, an
//! `extern crate`, a fully-qualified path — fails this test, which names the file and the line.
//! Comments (doc comments included) and string literals are not code and are not checked.

use std::path::{Path, PathBuf};

/// The backend crates, as Rust code names them.
const BACKENDS: &[&str] = &["aws_lc_rs", "aws_lc_sys", "aws_lc_fips_sys", "regula_sm"];

/// The one directory allowed to name them, relative to `src/`.
const PROVIDER: &str = "provider";

/// Files outside `provider/` that may still name a backend, and why.
const EXCEPTIONS: &[&str] = &[];

/// `source` with its comments and the contents of its string and character literals replaced by
/// spaces (line breaks kept, so that line numbers still hold).
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0usize;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && matches!(next, Some('"') | Some('#'))
            && !chars
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string r"…" or r#"…"#, or an identifier starting with r (kept).
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            for _ in i..=j {
                out.push(' ');
            }
            i = j + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += hashes + 1;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if let Some(&escaped) = chars.get(i) {
                    out.push(blank(escaped));
                }
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\''); a lifetime ('a) is kept.
            out.push(' ');
            i += 1;
            if chars.get(i) == Some(&'\\') {
                out.push(' ');
                i += 1;
            }
            while i < chars.len() && chars[i] != '\'' {
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The (line, backend) of every backend `code` names, lines counted from 1.
fn backend_mentions(code: &str) -> Vec<(usize, &'static str)> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut found = Vec::new();
    for (index, line) in code_only(code).lines().enumerate() {
        for backend in BACKENDS {
            let whole_word = line.match_indices(backend).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + backend.len()..].chars().next();
                !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
            });
            if whole_word {
                found.push((index + 1, *backend));
            }
        }
    }
    found
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn only_the_provider_names_a_backend() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut offences = Vec::new();
    let mut provider_mentions = 0;
    for path in &files {
        let relative = path.strip_prefix(&src).expect("a file under src/");
        let first = relative
            .components()
            .next()
            .and_then(|part| part.as_os_str().to_str())
            .unwrap_or_default();
        let source = std::fs::read_to_string(path).expect("a readable source file");
        let mentions = backend_mentions(&source);
        if first == PROVIDER {
            provider_mentions += mentions.len();
            continue;
        }
        if EXCEPTIONS.contains(&first) {
            continue;
        }
        for (line, backend) in mentions {
            offences.push(format!("src/{}:{line}: {backend}", relative.display()));
        }
    }
    assert!(files.len() > 20, "found only {} source files", files.len());
    // The scan sees the imports where they belong, so an empty list below means something.
    assert!(
        provider_mentions > 20,
        "{provider_mentions} mentions in provider/"
    );
    assert!(
        offences.is_empty(),
        "only src/{PROVIDER}/ may name a backend crate; move these behind the provider:\n{}",
        offences.join("\n")
    );
}

/// The scanner itself: code is caught however it names a backend; comments and strings are not.
#[test]
fn the_scan_catches_code_and_ignores_comments_and_strings() {
    let caught = "use aws_lc_rs::aead;\n\
                  extern crate regula_sm;\n\
                  fn f() { ::aws_lc_sys::ERR_clear_error(); }\n\
                  type T = aws_lc_fips_sys::EVP_MD;\n\
                  let x = regula_sm::sm3::sm3(b\"a\");\n\
                  use {zeroize, aws_lc_rs as backend};\n";
    assert_eq!(
        backend_mentions(caught),
        [
            (1, "aws_lc_rs"),
            (2, "regula_sm"),
            (3, "aws_lc_sys"),
            (4, "aws_lc_fips_sys"),
            (5, "regula_sm"),
            (6, "aws_lc_rs"),
        ]
    );
    let ignored = "//! Maps onto aws_lc_rs.\n\
                   /// See [`regula_sm::sm2`].\n\
                   // use aws_lc_rs::aead;\n\
                   /* regula_sm /* nested aws_lc_sys */ still a comment */\n\
                   let s = \"aws_lc_rs \\\" regula_sm\";\n\
                   let r = r#\"use regula_sm::x; \"# ;\n\
                   let c = '\"'; let not_a_backend = my_regula_sm_helper + regula_smx;\n\
                   fn f<'a>(x: &'a str) {}\n";
    assert_eq!(backend_mentions(ignored), []);
}
