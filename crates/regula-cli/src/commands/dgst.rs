//! `regula dgst`: sha256sum/sm3sum-style digests, and `--check` of such lists.

use std::io::{BufRead, Read};

use clap::Args;
use regula::{Algorithm, Family, Module};

use crate::GlobalOptions;
use crate::failure::{CRYPTO_FAILURE, Failure};
use crate::input;

/// Files up to this size are read whole and hashed in batches (SM3: side by side on SIMD lanes);
/// larger ones are streamed one at a time.
const SMALL_FILE: u64 = 1 << 20;
/// A batch ends after this many files or bytes, whichever comes first: memory stays bounded.
const BATCH_FILES: usize = 256;
const BATCH_BYTES: usize = 32 << 20;

pub const AFTER_HELP: &str = "\
Output: one `DIGEST  NAME` line per file (coreutils sha256sum/sm3sum format), or with --tag the
BSD format `SM3 (NAME) = DIGEST`. --check reads such lines (either format) and prints
`NAME: OK` or `NAME: FAILED` per line, then a warning on stderr for mismatches, unreadable files
and improperly formatted lines.

Many files are hashed in batches; with SM3, a batch is hashed side by side on SIMD lanes
(AVX-512: 16 at a time, AVX2: 8). REGULA_SM3_SINGLE=1 forces one file at a time.

Examples:
  regula dgst -a sm3 *.tar.gz > SM3SUMS
  regula dgst -a sm3 --check SM3SUMS
  regula dgst -a sha256 --tag file.iso

Exit codes:
  0  success (with --check: every listed file matched)
  1  --check: a checksum did not match, a listed file could not be read, no properly formatted
     line was found, or (with --strict) a line was improperly formatted
  2  usage or input error (bad arguments, unreadable file)
  3  not approved by the policy
  4  module in error state (a self-test failed)";

#[derive(Args)]
pub struct DgstArgs {
    #[arg(short, long, help = algorithm_help())]
    algorithm: String,
    /// Files to hash (with --check: checksum lists to verify); `-` or none for stdin.
    files: Vec<String>,
    /// Print BSD-style lines: `ALGORITHM (NAME) = DIGEST`.
    #[arg(long, conflicts_with = "check")]
    tag: bool,
    /// Read `DIGEST  NAME` (or BSD `ALGORITHM (NAME) = DIGEST`) lines and check each file.
    #[arg(short, long)]
    check: bool,
    /// With --check: do not print OK for each file that matches.
    #[arg(long, requires = "check")]
    quiet: bool,
    /// With --check: print nothing; the exit code tells.
    #[arg(long, requires = "check")]
    status: bool,
    /// With --check: fail (exit 1) on improperly formatted lines.
    #[arg(long, requires = "check")]
    strict: bool,
    /// With --check: warn about each improperly formatted line.
    #[arg(short, long, requires = "check")]
    warn: bool,
    /// Hash one file at a time (as REGULA_SM3_SINGLE=1); for comparisons.
    #[arg(long, hide = true)]
    no_multi_buffer: bool,
}

/// The algorithm list comes from the registry, so it cannot go stale.
fn algorithm_help() -> String {
    format!("Digest algorithm: {}", input::names_in(&[Family::Digest]))
}

/// The BSD tag of an algorithm: its name upper-cased (SHA256, SHA3-256, SM3).
fn bsd_tag(algorithm: Algorithm) -> String {
    algorithm.name().to_ascii_uppercase()
}

pub fn run(global: &GlobalOptions, args: DgstArgs) -> Result<(), Failure> {
    let module = input::module(global)?;
    let algorithm = input::algorithm(&args.algorithm, &[Family::Digest])?;
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let hasher = Hasher {
        module: &module,
        global,
        algorithm,
        batched: !args.no_multi_buffer
            && std::env::var_os("REGULA_SM3_SINGLE").is_none_or(|value| value != "1"),
        buffer: std::cell::RefCell::new(Vec::new()),
    };
    if args.check {
        return check(&hasher, &args, &files);
    }
    // Like sha256sum: a file that can't be read is reported and the others still printed.
    let mut first_failure = None;
    hasher.hash_all(&files, |name, result| {
        match result {
            Ok(hex) if args.tag => println!("{} ({name}) = {hex}", bsd_tag(algorithm)),
            Ok(hex) => println!("{hex}  {name}"),
            Err(failure) if failure.code == crate::failure::INPUT_ERROR => {
                eprintln!("regula: {}", failure.message);
                first_failure.get_or_insert(failure);
            }
            Err(failure) => return Err(failure),
        }
        Ok(())
    })?;
    match first_failure {
        None => Ok(()),
        Some(failure) => Err(Failure {
            code: failure.code,
            message: "some files could not be read".into(),
        }),
    }
}

struct Hasher<'a> {
    module: &'a Module,
    global: &'a GlobalOptions,
    algorithm: Algorithm,
    /// Small files are hashed in batches (`Module::digest_many`).
    batched: bool,
    /// The read buffer of [`Hasher::stream`], allocated once for all files.
    buffer: std::cell::RefCell<Vec<u8>>,
}

/// A file read whole, or why not.
enum Read1 {
    Whole(Vec<u8>),
    /// Too large (or stdin): stream it.
    Stream,
    Failed(Failure),
}

impl Hasher<'_> {
    /// Hashes every file, calling `emit` with each file's hex digest or failure, in order.
    fn hash_all(
        &self,
        names: &[String],
        mut emit: impl FnMut(&str, Result<String, Failure>) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        if !self.batched || names.len() < 2 {
            for name in names {
                emit(name, self.stream(name))?;
            }
            return Ok(());
        }
        let mut batch: Vec<(&str, Read1)> = Vec::new();
        let mut bytes = 0;
        for name in names {
            let read = self.read_small(name);
            if let Read1::Whole(data) = &read {
                bytes += data.len();
            }
            batch.push((name, read));
            if batch.len() == BATCH_FILES || bytes >= BATCH_BYTES {
                self.flush(&mut batch, &mut emit)?;
                bytes = 0;
            }
        }
        self.flush(&mut batch, &mut emit)
    }

    /// Hashes the files read whole together, streams the others, and emits all in order.
    fn flush(
        &self,
        batch: &mut Vec<(&str, Read1)>,
        emit: &mut impl FnMut(&str, Result<String, Failure>) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let whole: Vec<&[u8]> = batch
            .iter()
            .filter_map(|(_, read)| match read {
                Read1::Whole(data) => Some(data.as_slice()),
                _ => None,
            })
            .collect();
        let digests = self.module.digest_many(self.algorithm, &whole)?;
        let mut digests = digests.into_iter();
        for (name, read) in batch.drain(..) {
            let result = match read {
                Read1::Whole(_) => {
                    let digest = digests
                        .next()
                        .ok_or_else(|| Failure::from(regula::Error::CryptoFailure))?;
                    input::report(self.global, &digest);
                    Ok(hex::encode(&*digest))
                }
                Read1::Stream => self.stream(name),
                Read1::Failed(failure) => Err(failure),
            };
            emit(name, result)?;
        }
        Ok(())
    }

    /// Reads a regular file of at most [`SMALL_FILE`] bytes whole.
    fn read_small(&self, name: &str) -> Read1 {
        if name == "-" {
            return Read1::Stream;
        }
        let file = match std::fs::File::open(name) {
            Ok(file) => file,
            Err(error) => return Read1::Failed(cannot_read(name, &error)),
        };
        let len = match file.metadata() {
            Ok(metadata) if metadata.is_file() && metadata.len() <= SMALL_FILE => metadata.len(),
            Ok(_) => return Read1::Stream,
            Err(error) => return Read1::Failed(cannot_read(name, &error)),
        };
        // Sized from the metadata, so that a file is one read (and one at its end) rather than
        // a probe and a read per doubling of the buffer.
        let mut data = Vec::with_capacity(usize::try_from(len).map_or(0, |len| len + 1));
        match file.take(SMALL_FILE + 1).read_to_end(&mut data) {
            // The file grew past the limit while read: stream it instead.
            Ok(_) if data.len() as u64 > SMALL_FILE => Read1::Stream,
            Ok(_) => Read1::Whole(data),
            Err(error) => Read1::Failed(cannot_read(name, &error)),
        }
    }

    /// Hashes one file (or stdin) as it is read.
    fn stream(&self, name: &str) -> Result<String, Failure> {
        let mut context = self.module.digest_context(self.algorithm)?;
        let mut reader: Box<dyn Read> = if name == "-" {
            Box::new(std::io::stdin().lock())
        } else {
            Box::new(std::fs::File::open(name).map_err(|error| cannot_read(name, &error))?)
        };
        let mut buffer = self.buffer.borrow_mut();
        buffer.resize(64 * 1024, 0);
        loop {
            let read = reader
                .read(&mut buffer[..])
                .map_err(|error| cannot_read(name, &error))?;
            if read == 0 {
                break;
            }
            context.update(&buffer[..read]);
        }
        let digest = context.finish()?;
        input::report(self.global, &digest);
        Ok(hex::encode(&*digest))
    }
}

fn cannot_read(name: &str, error: &std::io::Error) -> Failure {
    Failure::input(format!("cannot read {name}: {error}"))
}

/// One properly formatted line of a checksum list.
struct Listed {
    name: String,
    expected: String,
}

/// Parses `DIGEST  NAME`, `DIGEST *NAME` (binary mode) or `TAG (NAME) = DIGEST`; a leading
/// backslash marks a name with `\\` and `\n` escapes (coreutils).
fn parse_line(line: &str, tag: &str, hex_len: usize) -> Option<Listed> {
    let (escaped, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let is_digest =
        |text: &str| text.len() == hex_len && text.bytes().all(|b| b.is_ascii_hexdigit());
    let (name, expected) = if let Some(rest) = line
        .get(..tag.len())
        .filter(|prefix| prefix.eq_ignore_ascii_case(tag))
        .and_then(|_| line[tag.len()..].strip_prefix(" ("))
    {
        let (name, digest) = rest.rsplit_once(") = ")?;
        (name, digest)
    } else {
        let (digest, rest) = line.split_at_checked(hex_len)?;
        let name = rest
            .strip_prefix("  ")
            .or_else(|| rest.strip_prefix(" *"))?;
        (name, digest)
    };
    if !is_digest(expected) || name.is_empty() {
        return None;
    }
    let name = if escaped {
        unescape(name)?
    } else {
        name.to_string()
    };
    Some(Listed {
        name,
        expected: expected.to_ascii_lowercase(),
    })
}

fn unescape(name: &str) -> Option<String> {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `--check`: coreutils' `sha256sum -c` behaviour and messages.
fn check(hasher: &Hasher<'_>, args: &DgstArgs, lists: &[String]) -> Result<(), Failure> {
    let tag = bsd_tag(hasher.algorithm);
    let hex_len = 2 * hasher.module.digest(hasher.algorithm, b"")?.len();
    let mut failed_any = false;
    for list in lists {
        let reader: Box<dyn BufRead> = if list == "-" {
            Box::new(std::io::stdin().lock())
        } else {
            match std::fs::File::open(list) {
                Ok(file) => Box::new(std::io::BufReader::new(file)),
                Err(error) => {
                    eprintln!("regula: {list}: {error}");
                    failed_any = true;
                    continue;
                }
            }
        };
        let mut listed = Vec::new();
        let mut malformed = 0usize;
        for (number, line) in reader.split(b'\n').enumerate() {
            let line = match line {
                Ok(line) => line,
                Err(error) => {
                    eprintln!("regula: {list}: {error}");
                    failed_any = true;
                    break;
                }
            };
            let line = String::from_utf8_lossy(&line);
            let line = line.strip_suffix('\r').unwrap_or(&line);
            if line.starts_with('#') {
                continue;
            }
            match parse_line(line, &tag, hex_len) {
                Some(entry) => listed.push(entry),
                None => {
                    malformed += 1;
                    if args.warn {
                        eprintln!(
                            "regula: {list}: {}: improperly formatted {tag} checksum line",
                            number + 1
                        );
                    }
                }
            }
        }
        if listed.is_empty() {
            eprintln!("regula: {list}: no properly formatted checksum lines found");
            failed_any = true;
            continue;
        }
        let names: Vec<String> = listed.iter().map(|entry| entry.name.clone()).collect();
        let (mut mismatched, mut unreadable) = (0usize, 0usize);
        let mut index = 0;
        hasher.hash_all(&names, |name, result| {
            let expected = &listed[index].expected;
            index += 1;
            match result {
                Ok(hex) if hex == *expected => {
                    if !args.quiet && !args.status {
                        println!("{name}: OK");
                    }
                }
                Ok(_) => {
                    mismatched += 1;
                    if !args.status {
                        println!("{name}: FAILED");
                    }
                }
                Err(failure) if failure.code == crate::failure::INPUT_ERROR => {
                    unreadable += 1;
                    if !args.status {
                        eprintln!("regula: {}", failure.message);
                        println!("{name}: FAILED open or read");
                    }
                }
                Err(failure) => return Err(failure),
            }
            Ok(())
        })?;
        if !args.status {
            if malformed > 0 {
                eprintln!(
                    "regula: WARNING: {} improperly formatted",
                    plural(malformed, "line is", "lines are")
                );
            }
            if unreadable > 0 {
                eprintln!(
                    "regula: WARNING: {} could not be read",
                    plural(unreadable, "listed file", "listed files")
                );
            }
            if mismatched > 0 {
                eprintln!(
                    "regula: WARNING: {} did NOT match",
                    plural(mismatched, "computed checksum", "computed checksums")
                );
            }
        }
        failed_any |= mismatched > 0 || unreadable > 0 || (args.strict && malformed > 0);
    }
    if failed_any {
        // The lines above said why; no further message.
        Err(Failure {
            code: CRYPTO_FAILURE,
            message: String::new(),
        })
    } else {
        Ok(())
    }
}
