//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

use regula_sm::sm4::Sm4;
use regula_sm::sm4::backend::{self, Backend};

/// Every backend this CPU supports; each test loops over them (like Go's
/// `cryptotest.TestAllImplementations`).
pub fn backends() -> Vec<Backend> {
    let available = backend::available();
    assert!(
        available.contains(&Backend::Soft),
        "the portable backend is always available"
    );
    available
}

/// `len` random bytes from `rng`.
pub fn random_bytes(rng: &mut impl rand::Rng, len: usize) -> Vec<u8> {
    let mut data = vec![0u8; len];
    rng.fill(&mut data[..]);
    data
}

/// SM4-ECB over whole blocks by RustCrypto's `sm4` crate, the independent reference for the
/// block cipher itself.
pub fn reference_ecb(key: &[u8; 16], data: &[u8], encrypt: bool) -> Vec<u8> {
    use cipher::generic_array::GenericArray;
    use cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
    let reference = sm4::Sm4::new(key.into());
    let mut out = data.to_vec();
    for block in out.chunks_exact_mut(16) {
        let block = GenericArray::from_mut_slice(block);
        if encrypt {
            reference.encrypt_block(block);
        } else {
            reference.decrypt_block(block);
        }
    }
    out
}

/// A cipher forced onto `backend`.
pub fn cipher(key: &[u8; 16], backend: Backend) -> Sm4 {
    let cipher = Sm4::with_backend(key, backend).expect("backend listed as available");
    assert_eq!(cipher.backend(), backend);
    cipher
}

/// Decodes hex test data (both cases).
pub fn unhex(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap_or_else(|e| panic!("bad hex {text:?}: {e}"))
}

/// Decodes exactly 16 bytes of hex.
pub fn unhex16(text: &str) -> [u8; 16] {
    unhex(text).try_into().expect("16 bytes")
}

/// One stanza of an OpenSSL `evp_test` file: `Name = value` lines between blank lines.
#[derive(Debug)]
pub struct Stanza {
    /// Line number of the stanza's first line, for messages.
    pub line: usize,
    pub fields: Vec<(String, String)>,
}

impl Stanza {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Parses the `evp_test` format: `#` comments, `Name = value` fields, blank-line separated.
pub fn parse_evp(text: &str) -> Vec<Stanza> {
    let mut stanzas = Vec::new();
    let mut current: Option<Stanza> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            stanzas.extend(current.take());
            continue;
        }
        let (name, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("line {}: expected `Name = value`: {raw:?}", index + 1));
        current
            .get_or_insert_with(|| Stanza {
                line: index + 1,
                fields: Vec::new(),
            })
            .fields
            .push((name.trim().to_owned(), value.trim().to_owned()));
    }
    stanzas.extend(current);
    stanzas
}

/// Runs `command` with `input` on stdin: its stdout if it exited 0, `None` if it could not run
/// or failed (the peer CLI tests then skip or fail as they choose).
pub fn run_with_input(command: &mut Command, input: &[u8]) -> Option<Vec<u8>> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(input).ok()?;
    let output = child.wait_with_output().ok()?;
    output.status.success().then_some(output.stdout)
}
