//! The encrypted-file reader on hostile input: `cargo +nightly fuzz run file_decrypt`.
//!
//! The input either is a whole file (first byte even) or edits a valid two-segment file made
//! at start-up (first byte odd): byte flips, insertions, deletions and truncations at offsets
//! taken from the input, which reach the segment layer past the header MAC. Properties: no
//! panic; every byte the reader releases is the original plaintext at that position (no
//! plaintext of a bad segment is ever released: a forged or moved segment cannot pass); and a
//! file that decrypts completely is the original file.

#![no_main]

use std::io::{Read, Write};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use regula::file_format::{Decryptor, Encryptor, Identity};
use regula::{Module, Policy, Profile};

const KEY: [u8; 32] = [0x42; 32];

struct Seed {
    module: Module,
    plaintext: Vec<u8>,
    file: Vec<u8>,
}

fn seed() -> &'static Seed {
    static SEED: OnceLock<Seed> = OnceLock::new();
    SEED.get_or_init(|| {
        let module = Module::load(Policy::builtin(Profile::Default));
        let plaintext: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
        let mut encryptor = Encryptor::new(&module).expect("encryptor");
        encryptor.add_key_file(&KEY).expect("key");
        encryptor.threads(1);
        let mut writer = encryptor.writer(Vec::new()).expect("writer");
        writer.write_all(&plaintext).expect("write");
        let (file, _) = writer.finish().expect("finish");
        Seed {
            module,
            plaintext,
            file,
        }
    })
}

fn mutate(file: &[u8], edits: &[u8]) -> Vec<u8> {
    let mut out = file.to_vec();
    for edit in edits.chunks_exact(4) {
        if out.is_empty() {
            break;
        }
        let at = usize::from(u16::from_le_bytes([edit[1], edit[2]])) * 4 % out.len();
        match edit[0] % 4 {
            0 => out[at] ^= edit[3] | 1,
            1 => out.insert(at, edit[3]),
            2 => {
                out.remove(at);
            }
            _ => out.truncate(at),
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let seed = seed();
    let file = match data.split_first() {
        Some((first, edits)) if first % 2 == 1 => mutate(&seed.file, edits),
        _ => data.to_vec(),
    };
    let Ok(decryptor) = Decryptor::new(&seed.module, file.as_slice()) else {
        return;
    };
    let _ = decryptor.header();
    let Ok(mut reader) = decryptor.unlock(&Identity::KeyFile(&KEY)) else {
        return;
    };
    let mut released = Vec::new();
    let mut buf = [0u8; 8192];
    let complete = loop {
        match reader.read(&mut buf) {
            Ok(0) => break true,
            Ok(n) => released.extend_from_slice(&buf[..n]),
            Err(_) => break false,
        }
    };
    assert!(
        seed.plaintext.starts_with(&released),
        "released bytes that are not the original plaintext"
    );
    if complete {
        assert_eq!(released, seed.plaintext);
        assert_eq!(file, seed.file);
    }
});
