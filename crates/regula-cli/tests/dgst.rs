//! `regula dgst` over many files (SM3 multi-buffer against the single-stream path and the
//! GB/T 32905 example) and `dgst --check` against coreutils' `sha256sum -c`: same files, same
//! lists, same OK/FAILED lines, summary warnings and exit codes.

use std::path::Path;
use std::process::{Command, Output};

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

/// GB/T 32905-2016 Appendix A, example 1: SM3("abc").
const SM3_ABC: &str = "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0";

fn run_in(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(program);
    command.args(args).current_dir(dir);
    command
        .env_remove("REGULA_BREAK_SELFTEST")
        .env_remove("REGULA_SM3_SINGLE");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn many_files_multi_buffer_equal_single_stream() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for i in 0..41usize {
        let name = format!("f{i:02}");
        // Ragged sizes: 0..=5 blocks and the padding boundaries; file 7 is "abc".
        let data: Vec<u8> = if i == 7 {
            b"abc".to_vec()
        } else {
            (0..(i * 37 + [0, 55, 56, 63, 64][i % 5]))
                .map(|b| b as u8 ^ i as u8)
                .collect()
        };
        std::fs::write(dir.path().join(&name), data).unwrap();
        names.push(name);
    }
    names.push("missing".into());
    let mut args = vec!["dgst", "-a", "sm3"];
    args.extend(names.iter().map(String::as_str));
    let many = run_in(dir.path(), REGULA, &args, &[]);
    let single = run_in(dir.path(), REGULA, &args, &[("REGULA_SM3_SINGLE", "1")]);
    let mut flag = args.clone();
    flag.push("--no-multi-buffer");
    let flagged = run_in(dir.path(), REGULA, &flag, &[]);
    assert_eq!(many.status.code(), Some(2), "{}", text(&many.stderr));
    assert_eq!(single.status.code(), Some(2));
    assert_eq!(text(&many.stdout), text(&single.stdout));
    assert_eq!(text(&many.stdout), text(&flagged.stdout));
    let lines: Vec<String> = text(&many.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 41);
    assert_eq!(lines[7], format!("{SM3_ABC}  f07"));
    assert!(text(&many.stderr).contains("missing"));
}

#[test]
fn tag_format_round_trips_and_help_lists_the_registry() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("abc"), b"abc").unwrap();
    let tagged = run_in(
        dir.path(),
        REGULA,
        &["dgst", "-a", "sm3", "--tag", "abc"],
        &[],
    );
    assert_eq!(text(&tagged.stdout), format!("SM3 (abc) = {SM3_ABC}\n"));
    std::fs::write(dir.path().join("SUMS"), &tagged.stdout).unwrap();
    let checked = run_in(
        dir.path(),
        REGULA,
        &["dgst", "-a", "sm3", "-c", "SUMS"],
        &[],
    );
    assert_eq!(text(&checked.stdout), "abc: OK\n");
    assert_eq!(checked.status.code(), Some(0));

    let help = text(&run_in(dir.path(), REGULA, &["dgst", "--help"], &[]).stdout);
    for name in ["sm3", "sha256", "sha3-512"] {
        assert!(help.contains(name), "{name} missing from dgst --help");
    }
}

/// The same `--check` run by `regula dgst -a sha256` and `sha256sum`.
#[test]
fn check_matches_coreutils_sha256sum() {
    if Command::new("sha256sum").arg("--version").output().is_err() {
        eprintln!("sha256sum not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    for (name, data) in [
        ("a", &b"abc"[..]),
        ("b", b"hello\n"),
        ("c d", b""),
        ("e", b"x"),
    ] {
        std::fs::write(path.join(name), data).unwrap();
    }
    let listed = run_in(path, "sha256sum", &["a", "b", "c d", "e"], &[]);
    let good = text(&listed.stdout);
    std::fs::write(path.join("good"), &good).unwrap();
    let tagged = text(&run_in(path, "sha256sum", &["--tag", "a", "b"], &[]).stdout);
    std::fs::write(path.join("tagged"), &tagged).unwrap();
    // A changed file, a missing file, two malformed lines.
    let bad = format!(
        "{good}{}  missing\nnot a checksum line\n0123  short\n",
        "0".repeat(64)
    );
    std::fs::write(path.join("bad"), &bad).unwrap();
    std::fs::write(path.join("e"), b"y").unwrap();
    std::fs::write(path.join("empty"), "nothing here\n").unwrap();

    let cases: &[&[&str]] = &[
        &["-c", "good"],
        &["-c", "tagged"],
        &["-c", "bad"],
        &["-c", "--quiet", "bad"],
        &["-c", "--status", "bad"],
        &["-c", "--strict", "tagged"],
        &["-c", "--warn", "bad"],
        &["-c", "empty"],
        &["-c", "good", "tagged"],
    ];
    for case in cases {
        let ours = {
            let mut args = vec!["dgst", "-a", "sha256"];
            args.extend_from_slice(case);
            run_in(path, REGULA, &args, &[])
        };
        let theirs = run_in(path, "sha256sum", case, &[]);
        assert_eq!(
            ours.status.code(),
            theirs.status.code(),
            "{case:?}: {}",
            text(&ours.stderr)
        );
        assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{case:?}");
        // Same warnings, our program name in place of theirs.
        let warnings = |stderr: &[u8], program: &str| -> Vec<String> {
            text(stderr)
                .lines()
                .filter(|line| line.contains("WARNING"))
                .map(|line| line.replacen(program, "", 1))
                .collect()
        };
        assert_eq!(
            warnings(&ours.stderr, "regula"),
            warnings(&theirs.stderr, "sha256sum"),
            "{case:?}"
        );
        if case.contains(&"--status") {
            assert!(ours.stdout.is_empty());
        }
    }
}

/// `policy list` says what gm approves from the registry: the same names as
/// `policy show gm --json`, nothing announced as pending.
#[test]
fn policy_list_comes_from_the_registry() {
    let dir = tempfile::tempdir().unwrap();
    let list = text(&run_in(dir.path(), REGULA, &["policy", "list"], &[]).stdout);
    let gm = list
        .lines()
        .find(|line| line.starts_with("gm "))
        .expect("gm line");
    assert!(!gm.contains("pending"), "{gm}");
    let show = run_in(dir.path(), REGULA, &["policy", "show", "gm", "--json"], &[]);
    let summary: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    let approved: Vec<&str> = summary["algorithms"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["status"] == "approved")
        .map(|row| row["algorithm"].as_str().unwrap())
        .collect();
    assert!(approved.contains(&"sm2-sign") && approved.contains(&"sm3"));
    assert!(gm.ends_with(&approved.join(", ")), "{gm}");
}
