//! What the `regula` binary links and loads: Regula's own cryptography (AWS-LC, linked in, and
//! the SM crates) and no second cryptographic library. The benchmark's in-process libcrypto
//! peer is loaded at run time, only when `regula bench --compare libcrypto` asks for it.
//!
//! The dynamic section is read here with the `object` crate, not with `regula audit` (the
//! code under test elsewhere), and the libraries a run loaded are read from
//! `/proc/<pid>/maps` of a live process, which is what the system loader mapped.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use object::read::elf::{Dyn, ElfFile64, FileHeader};
use object::{Endianness, elf};
use serde_json::Value;

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

/// The DT_NEEDED entries of a 64-bit ELF file.
fn needed(path: &Path) -> Vec<String> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = ElfFile64::<Endianness>::parse(&*data).expect("a 64-bit ELF file");
    let endian = file.endian();
    let sections = file.elf_section_table();
    let (entries, link) = sections
        .dynamic(endian, &*data)
        .expect("a readable dynamic section")
        .expect("a dynamically linked binary");
    let strings = sections
        .strings(endian, &*data, link)
        .expect("the dynamic string table");
    assert!(file.elf_header().is_type_64());
    entries
        .iter()
        .filter(|entry| entry.tag32(endian) == Some(elf::DT_NEEDED))
        .map(|entry| {
            String::from_utf8_lossy(entry.string(endian, strings).expect("a DT_NEEDED name"))
                .into_owned()
        })
        .collect()
}

/// Names of cryptographic libraries a program could need beside Regula's own AWS-LC.
fn is_crypto_library(name: &str) -> bool {
    [
        "libssl.so",
        "libcrypto.so",
        "libgnutls.so",
        "libnettle.so",
        "libgcrypt.so",
        "libaws_lc",
        "libtongsuo",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
}

#[test]
fn the_regula_binary_needs_no_second_crypto_library() {
    let needed = needed(Path::new(REGULA));
    // The dynamic section was read: a Rust binary on glibc needs libc.
    assert!(
        needed.iter().any(|name| name.starts_with("libc.so")),
        "{needed:?}"
    );
    let crypto: Vec<&String> = needed
        .iter()
        .filter(|name| is_crypto_library(name))
        .collect();
    assert!(
        crypto.is_empty(),
        "{REGULA} needs {crypto:?} (all DT_NEEDED: {needed:?}): a second cryptographic library \
         would be loaded into every run of Regula"
    );
}

/// A plain command, here `regula dgst`, maps no libcrypto into the process: read from the
/// process's own memory map while it waits on standard input.
#[test]
fn a_plain_regula_process_maps_no_libcrypto() {
    let mut child = Command::new(REGULA)
        .args(["dgst", "-a", "sha256"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("regula runs");
    // While `regula dgst` reads standard input, its libraries are all mapped.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", child.id()))
        .expect("the process's memory map");
    drop(child.stdin.take());
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(child.wait().unwrap().success());
    // SHA-256 of the empty input (FIPS 180-4), so the process did its work after the map was read.
    assert!(
        stdout.contains("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        "{stdout}"
    );
    assert!(maps.contains("libc.so"), "{maps}");
    let crypto: Vec<&str> = maps
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|path| {
            Path::new(path)
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(is_crypto_library)
        })
        .collect();
    assert!(crypto.is_empty(), "regula mapped {crypto:?}");
}

/// The system's OpenSSL 3 libcrypto, where the loader would find it.
fn system_libcrypto() -> Option<std::path::PathBuf> {
    [
        "/lib/x86_64-linux-gnu/libcrypto.so.3",
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
        "/lib/aarch64-linux-gnu/libcrypto.so.3",
        "/usr/lib/aarch64-linux-gnu/libcrypto.so.3",
        "/usr/lib64/libcrypto.so.3",
        "/usr/lib/libcrypto.so.3",
    ]
    .into_iter()
    .map(Path::new)
    .find(|path| path.exists())
    .map(Path::to_path_buf)
}

fn bench(args: &[&str], env: Option<(&str, &str)>) -> std::process::Output {
    let mut command = Command::new(REGULA);
    command
        .args(["bench", "--alg", "aes-256-gcm,sha256", "--sizes", "16"])
        .args(["--seconds", "0.01", "--runs", "1"])
        .args(args)
        .env_remove("REGULA_BENCH_LIBCRYPTO");
    if let Some((key, value)) = env {
        command.env(key, value);
    }
    command.output().expect("regula runs")
}

/// `regula bench --compare openssl,libcrypto` still measures both OpenSSL peers, and names the
/// library it loaded into the process: its path and `OpenSSL_version(OPENSSL_VERSION)`, checked
/// against what `openssl version` (a separate program on the same library) prints.
#[test]
fn the_benchmark_loads_libcrypto_at_run_time_and_names_it() {
    let Some(library) = system_libcrypto() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no libcrypto.so.3 on this machine under CI=true: install OpenSSL 3 (Debian: libssl3)"
        );
        eprintln!("SKIPPED: no libcrypto.so.3 on this machine, so no libcrypto peer to load");
        return;
    };
    let library = std::fs::canonicalize(&library).unwrap();
    let output = bench(&["--compare", "openssl,libcrypto", "--json"], None);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rows: Value = serde_json::from_slice(&output.stdout).expect("JSON rows");
    let rows = rows.as_array().expect("a list of rows");
    let openssl_version = String::from_utf8(
        Command::new("openssl")
            .arg("version")
            .output()
            .expect("openssl runs")
            .stdout,
    )
    .unwrap();
    // `openssl version` prints "OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)".
    let library_version = openssl_version
        .split("(Library: ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or(openssl_version.trim());
    for (algorithm, bytes) in [("aes-256-gcm", 16), ("sha256", 16)] {
        for peer in ["regula", "libcrypto", "openssl"] {
            let row = rows
                .iter()
                .find(|row| {
                    row["algorithm"] == algorithm && row["bytes"] == bytes && row["impl"] == peer
                })
                .unwrap_or_else(|| panic!("no {peer} {algorithm} row in {rows:#?}"));
            assert!(row["median"].as_f64().unwrap() > 0.0, "{row}");
            if peer == "libcrypto" {
                assert_eq!(row["source"]["kind"], "library", "{row}");
                assert_eq!(
                    row["source"]["path"],
                    library.display().to_string(),
                    "{row}"
                );
                assert_eq!(row["source"]["version"], library_version, "{row}");
            }
        }
    }
    // The text table says the same above the figures.
    let output = bench(&["--compare", "libcrypto"], None);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(
        text.lines().any(|line| line
            == format!(
                "peer libcrypto: {} ({library_version}), loaded into this process",
                library.display()
            )),
        "{text}"
    );
}

/// A library that cannot be loaded is a clear error naming it (exit 2), never a panic, whether
/// named by --libcrypto or by REGULA_BENCH_LIBCRYPTO; a library without the EVP functions is
/// refused by name too.
#[test]
fn an_unloadable_libcrypto_is_an_error_naming_it() {
    let missing = "/nonexistent/libcrypto.so.3";
    for (args, env) in [
        (vec!["--compare", "libcrypto", "--libcrypto", missing], None),
        (
            vec!["--compare", "libcrypto"],
            Some(("REGULA_BENCH_LIBCRYPTO", missing)),
        ),
    ] {
        let output = bench(&args, env);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("cannot load libcrypto `{missing}`")),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // libc is a loadable library with none of libcrypto's functions.
    let libc = [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/lib/aarch64-linux-gnu/libc.so.6",
    ]
    .into_iter()
    .find(|path| Path::new(path).exists());
    if let Some(libc) = libc {
        let output = bench(&["--compare", "libcrypto", "--libcrypto", libc], None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("libcrypto `{libc}` lacks OpenSSL_version")),
            "{stderr}"
        );
    }
    // Without --compare libcrypto nothing is loaded, so a bad name does not matter.
    let output = bench(&["--compare", "raw", "--libcrypto", missing], None);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
