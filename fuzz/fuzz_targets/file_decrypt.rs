//! The encrypted-file reader on hostile input: `cargo +nightly fuzz run file_decrypt`.
//!
//! The input's first byte chooses the case. Bit 0: the rest is a whole file (0) or edits (1)
//! of a valid file made at start-up: byte flips, insertions, deletions and truncations at
//! offsets taken from the input, which reach the segment layer past the header MAC. Bit 1: the
//! file is read with `Read::read` (0) or with `read_to` (1), which beyond one batch reads and
//! opens on a second thread while the caller writes. Bit 2: the edited file has two segments
//! (0) or 35, three batches (1). Properties: no panic; every byte the reader releases is the
//! original plaintext at that position (no plaintext of a bad segment is ever released: a
//! forged or moved segment cannot pass); and a file that decrypts completely is the original
//! file.

#![no_main]
#![forbid(unsafe_code)]

use std::io::{Read, Write};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use regula::{Module, Policy, Profile};
use regula_files::file_format::{Decryptor, Encryptor, Identity};

const KEY: [u8; 32] = [0x42; 32];

struct Seed {
    plaintext: Vec<u8>,
    file: Vec<u8>,
}

struct Seeds {
    module: Module,
    small: Seed,
    large: Seed,
}

fn sealed(module: &Module, len: u32) -> Seed {
    let plaintext: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    let mut encryptor = Encryptor::new(module).expect("encryptor");
    encryptor.add_key_file(&KEY).expect("key");
    encryptor.threads(1);
    let mut writer = encryptor.writer(Vec::new()).expect("writer");
    writer.write_all(&plaintext).expect("write");
    let (file, _) = writer.finish().expect("finish");
    Seed { plaintext, file }
}

fn seeds() -> &'static Seeds {
    static SEEDS: OnceLock<Seeds> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let module = Module::load(Policy::builtin(Profile::Default));
        let small = sealed(&module, 70_000);
        let large = sealed(&module, 35 * 65_536 - 1000);
        Seeds {
            module,
            small,
            large,
        }
    })
}

fn mutate(file: &[u8], edits: &[u8]) -> Vec<u8> {
    let mut out = file.to_vec();
    for edit in edits.chunks_exact(4) {
        if out.is_empty() {
            break;
        }
        // Anywhere in the file, in 2^16 steps.
        let at = (usize::from(u16::from_le_bytes([edit[1], edit[2]])) * out.len()) >> 16;
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
    let seeds = seeds();
    let first = data.first().copied().unwrap_or(0);
    let seed = if first & 4 == 0 {
        &seeds.small
    } else {
        &seeds.large
    };
    let file = match data.split_first() {
        Some((_, edits)) if first & 1 == 1 => mutate(&seed.file, edits),
        _ => data.to_vec(),
    };
    let Ok(decryptor) = Decryptor::new(&seeds.module, file.as_slice()) else {
        return;
    };
    let _ = decryptor.header();
    let Ok(mut reader) = decryptor.unlock(&Identity::KeyFile(&KEY)) else {
        return;
    };
    let mut released = Vec::new();
    let complete = if first & 2 == 0 {
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break true,
                Ok(n) => released.extend_from_slice(&buf[..n]),
                Err(_) => break false,
            }
        }
    } else {
        reader.threads(2);
        let complete = reader.read_to(&mut released).is_ok();
        // A reader that stopped stays stopped.
        assert!(complete || reader.read(&mut [0u8; 16]).is_err());
        complete
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
