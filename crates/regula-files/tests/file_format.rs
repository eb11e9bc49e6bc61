//! The encrypted-file format: round trips under each profile, the policy's choice of
//! algorithms, refusal of files the policy does not approve, and every tampering case
//! (truncation, reordering, swaps between files, header edits, flipped tags, trailing data).

use std::io::{Read, Write};

use regula::{Algorithm, Error, ErrorKind, Module, Policy, Profile};
use regula_files::file_format::{
    Decryptor, Encryptor, FileError, Identity, Prf, SEALED_SEGMENT_SIZE, SEGMENT_SIZE, Summary,
};

const KEY: [u8; 32] = [7u8; 32];
const OTHER_KEY: [u8; 32] = [8u8; 32];
/// Well under `regula encrypt`'s 600,000, to keep the debug test fast; the library's floor.
const ITERATIONS: u32 = 1000;
const PASSPHRASE: &[u8] = b"a passphrase of more than fourteen bytes";

fn module(profile: Profile) -> Module {
    Module::load(Policy::builtin(profile))
}

fn plaintext(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 + i / 251) as u8).collect()
}

fn encrypt_with(module: &Module, data: &[u8], threads: usize) -> (Vec<u8>, Summary) {
    let mut encryptor = Encryptor::new(module).unwrap();
    encryptor.add_key_file(&KEY).unwrap();
    encryptor.threads(threads);
    let mut writer = encryptor.writer(Vec::new()).unwrap();
    // Odd-sized writes, to cross segment and batch boundaries anywhere.
    for chunk in data.chunks(50_000) {
        writer.write_all(chunk).unwrap();
    }
    writer.finish().unwrap()
}

fn encrypt(module: &Module, data: &[u8]) -> (Vec<u8>, Summary) {
    encrypt_with(module, data, 2)
}

fn decrypt(module: &Module, file: &[u8], identity: &Identity<'_>) -> Result<Vec<u8>, FileError> {
    let mut reader = Decryptor::new(module, file)?.unlock(identity)?;
    let mut out = Vec::new();
    reader.read_to(&mut out)?;
    Ok(out)
}

fn decrypt_key(module: &Module, file: &[u8]) -> Result<Vec<u8>, FileError> {
    decrypt(module, file, &Identity::KeyFile(&KEY))
}

fn expect_tampered(result: Result<Vec<u8>, FileError>, needle: &str) {
    match result {
        Err(FileError::Tampered(reason)) => {
            assert!(reason.contains(needle), "`{reason}` lacks `{needle}`")
        }
        Err(error) => panic!("expected tampering ({needle}), got {error}"),
        Ok(_) => panic!("tampered file decrypted ({needle})"),
    }
}

/// Offset of segment `index` in a file whose header is `header_len` bytes.
fn segment_at(summary: &Summary, index: usize) -> usize {
    summary.header.header_len + index * SEALED_SEGMENT_SIZE
}

#[test]
fn round_trips_across_segment_and_batch_boundaries() {
    let module = module(Profile::Default);
    for len in [
        0,
        1,
        SEGMENT_SIZE - 1,
        SEGMENT_SIZE,
        SEGMENT_SIZE + 1,
        32 * SEGMENT_SIZE,
        32 * SEGMENT_SIZE + 1,
        70 * SEGMENT_SIZE + 5,
    ] {
        let data = plaintext(len);
        for threads in [1, 3] {
            let (file, summary) = encrypt_with(&module, &data, threads);
            assert_eq!(summary.plaintext_bytes, len as u64);
            assert_eq!(summary.file_bytes, file.len() as u64);
            assert_eq!(summary.segments, len.div_ceil(SEGMENT_SIZE).max(1) as u64);
            assert_eq!(decrypt_key(&module, &file).unwrap(), data, "length {len}");
            // Through the `Read` implementation with small reads as well.
            let mut reader = Decryptor::new(&module, file.as_slice())
                .unwrap()
                .unlock(&Identity::KeyFile(&KEY))
                .unwrap();
            let mut out = Vec::new();
            let mut buf = [0u8; 4093];
            loop {
                let read = reader.read(&mut buf).unwrap();
                if read == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..read]);
            }
            assert_eq!(out, data);
        }
    }
}

/// `write_from` (what `regula encrypt` uses) on inputs that end exactly at a segment or a batch
/// boundary, read in small and large pieces: one final segment, never an extra empty one.
#[test]
fn write_from_ends_on_segment_and_batch_boundaries() {
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.1).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let module = module(Profile::Default);
    for len in [
        0,
        SEGMENT_SIZE,
        32 * SEGMENT_SIZE,
        64 * SEGMENT_SIZE,
        64 * SEGMENT_SIZE + 1,
    ] {
        let data = plaintext(len);
        for piece in [1000, 1 << 20, usize::MAX] {
            let mut encryptor = Encryptor::new(&module).unwrap();
            encryptor.add_key_file(&KEY).unwrap();
            let mut writer = encryptor.writer(Vec::new()).unwrap();
            assert_eq!(
                writer.write_from(&mut Trickle(&data, piece)).unwrap(),
                len as u64
            );
            let (file, summary) = writer.finish().unwrap();
            assert_eq!(
                summary.segments,
                len.div_ceil(SEGMENT_SIZE).max(1) as u64,
                "{len}"
            );
            assert_eq!(
                decrypt_key(&module, &file).unwrap(),
                data,
                "{len} by {piece}"
            );
        }
    }
}

#[test]
fn each_profile_picks_its_algorithms_from_the_policy() {
    for (profile, aead, prf) in [
        (Profile::Default, Algorithm::Aes256Gcm, Prf::HmacSha256),
        (Profile::Fips1403, Algorithm::Aes256Gcm, Prf::HmacSha256),
        (Profile::Gm, Algorithm::Sm4Gcm, Prf::HmacSm3),
    ] {
        let module = module(profile);
        let data = plaintext(100_000);
        let mut encryptor = Encryptor::new(&module).unwrap();
        encryptor.add_passphrase(PASSPHRASE, ITERATIONS).unwrap();
        encryptor.add_key_file(&KEY).unwrap();
        let mut writer = encryptor.writer(Vec::new()).unwrap();
        writer.write_all(&data).unwrap();
        let (file, summary) = writer.finish().unwrap();
        assert_eq!(summary.header.aead, aead, "{profile}");
        assert_eq!(summary.header.prf, prf, "{profile}");
        assert_eq!(summary.header.policy, profile.name());
        // Either key source opens it.
        assert_eq!(
            decrypt(&module, &file, &Identity::Passphrase(PASSPHRASE)).unwrap(),
            data
        );
        assert_eq!(decrypt_key(&module, &file).unwrap(), data);
        // A wrong key opens nothing.
        assert!(matches!(
            decrypt(
                &module,
                &file,
                &Identity::Passphrase(b"wrong passphrase, long enough")
            ),
            Err(FileError::NoMatchingKey)
        ));
        assert!(matches!(
            decrypt(&module, &file, &Identity::KeyFile(&OTHER_KEY)),
            Err(FileError::NoMatchingKey)
        ));
        // Every operation of a strict profile was approved.
        if profile != Profile::Default {
            assert_eq!(
                module.indicator_state(),
                regula::IndicatorState::Approved,
                "{profile}"
            );
        }
    }
}

#[test]
fn a_policy_that_does_not_approve_the_file_refuses_it() {
    let gm = module(Profile::Gm);
    let fips = module(Profile::Fips1403);
    let default = module(Profile::Default);
    let data = plaintext(1000);
    let (gm_file, _) = encrypt(&gm, &data);
    let (fips_file, _) = encrypt(&fips, &data);
    for (file, reader) in [(&gm_file, &fips), (&fips_file, &gm)] {
        match Decryptor::new(reader, file.as_slice()) {
            Err(error @ FileError::Module(Error::NotApproved { .. })) => {
                assert_eq!(error.kind(), ErrorKind::NotApproved);
                assert!(error.to_string().contains("is not approved by policy"));
            }
            Err(error) => panic!("expected NotApproved, got {error}"),
            Ok(_) => panic!("a strict policy accepted a file it does not approve"),
        }
    }
    // The default profile reads both, and FIPS reads what default writes (AES-256-GCM).
    assert_eq!(decrypt_key(&default, &gm_file).unwrap(), data);
    assert_eq!(decrypt_key(&default, &fips_file).unwrap(), data);
    let (default_file, _) = encrypt(&default, &data);
    assert_eq!(decrypt_key(&fips, &default_file).unwrap(), data);
}

#[test]
fn truncation_at_a_segment_boundary_and_inside_a_segment() {
    let module = module(Profile::Default);
    let data = plaintext(3 * SEGMENT_SIZE + 100);
    let (file, summary) = encrypt(&module, &data);
    // Whole segments cut off.
    for kept in 1..=3 {
        expect_tampered(
            decrypt_key(&module, &file[..segment_at(&summary, kept)]),
            "truncated",
        );
    }
    // Nothing after the header.
    expect_tampered(
        decrypt_key(&module, &file[..summary.header.header_len]),
        "before its first segment",
    );
    // Inside a segment, inside a tag, one byte short.
    for cut in [
        segment_at(&summary, 1) + 1000,
        segment_at(&summary, 2) + 5,
        file.len() - 1,
    ] {
        assert!(matches!(
            decrypt_key(&module, &file[..cut]),
            Err(FileError::Tampered(_))
        ));
    }
    // Inside the header.
    assert!(matches!(
        decrypt_key(&module, &file[..20]),
        Err(FileError::Format(_))
    ));
    // A file that is a whole number of segments, cut at its last boundary.
    let (exact, summary) = encrypt(&module, &plaintext(2 * SEGMENT_SIZE));
    expect_tampered(
        decrypt_key(&module, &exact[..segment_at(&summary, 1)]),
        "truncated",
    );
}

#[test]
fn reordered_and_swapped_segments() {
    let module = module(Profile::Default);
    let data = plaintext(3 * SEGMENT_SIZE + 100);
    let (file, summary) = encrypt(&module, &data);
    let (a, b) = (segment_at(&summary, 0), segment_at(&summary, 1));
    let mut reordered = file.clone();
    reordered[a..b].copy_from_slice(&file[b..b + SEALED_SEGMENT_SIZE]);
    reordered[b..b + SEALED_SEGMENT_SIZE].copy_from_slice(&file[a..b]);
    expect_tampered(decrypt_key(&module, &reordered), "segment 0");

    // Two files under the same key file: same sizes, same positions, different file keys.
    let (other, other_summary) = encrypt(&module, &data);
    assert_eq!(other_summary.header.header_len, summary.header.header_len);
    let mut swapped = file.clone();
    swapped[b..b + SEALED_SEGMENT_SIZE].copy_from_slice(&other[b..b + SEALED_SEGMENT_SIZE]);
    expect_tampered(decrypt_key(&module, &swapped), "segment 1");
    // The header of one with the payload of the other.
    let mut spliced = file[..a].to_vec();
    spliced.extend_from_slice(&other[a..]);
    expect_tampered(decrypt_key(&module, &spliced), "segment 0");
}

#[test]
fn header_edits_are_detected() {
    let module = module(Profile::Default);
    let (file, summary) = encrypt(&module, &plaintext(5000));
    let header_len = summary.header.header_len;
    for position in 0..header_len {
        let mut edited = file.clone();
        edited[position] ^= 0x01;
        let result = decrypt_key(&module, &edited);
        assert!(result.is_err(), "header byte {position} edited unnoticed");
    }
    // The policy name: only the MAC notices.
    let mut edited = file.clone();
    let policy_at = 20;
    edited[policy_at] ^= 0x20;
    expect_tampered(decrypt_key(&module, &edited), "header was modified");
}

#[test]
fn flipped_tag_and_ciphertext_bits() {
    let module = module(Profile::Default);
    let (file, summary) = encrypt(&module, &plaintext(2 * SEGMENT_SIZE + 10));
    for position in [
        segment_at(&summary, 1) - 1, // last tag byte of segment 0
        segment_at(&summary, 1),     // first ciphertext byte of segment 1
        file.len() - 16,             // first tag byte of the final segment
    ] {
        let mut flipped = file.clone();
        flipped[position] ^= 0x80;
        expect_tampered(decrypt_key(&module, &flipped), "does not authenticate");
    }
}

#[test]
fn trailing_data_is_rejected() {
    let module = module(Profile::Default);
    for len in [100, SEGMENT_SIZE, 2 * SEGMENT_SIZE] {
        let (file, summary) = encrypt(&module, &plaintext(len));
        for extra in [1usize, 15, 16, 17, 1000, SEALED_SEGMENT_SIZE] {
            let mut extended = file.clone();
            extended.extend(std::iter::repeat_n(0xA5, extra));
            assert!(
                matches!(decrypt_key(&module, &extended), Err(FileError::Tampered(_))),
                "{extra} bytes after a {len}-byte file"
            );
        }
        // A copy of the final segment appended.
        let last = segment_at(&summary, (summary.segments - 1) as usize);
        let mut doubled = file.clone();
        doubled.extend_from_slice(&file[last..]);
        assert!(matches!(
            decrypt_key(&module, &doubled),
            Err(FileError::Tampered(_))
        ));
    }
    let (file, _) = encrypt(&module, &plaintext(SEGMENT_SIZE));
    let mut extended = file.clone();
    extended.extend_from_slice(&[0u8; 100]);
    expect_tampered(decrypt_key(&module, &extended), "follows the final segment");
}

/// A reader releases nothing of a batch in which a segment fails, and nothing after it.
#[test]
fn no_plaintext_of_a_bad_segment_is_released() {
    let module = module(Profile::Default);
    let data = plaintext(40 * SEGMENT_SIZE);
    let (file, summary) = encrypt(&module, &data);
    for (bad, released) in [(5usize, 0usize), (35, 32 * SEGMENT_SIZE)] {
        let mut corrupted = file.clone();
        corrupted[segment_at(&summary, bad) + 10] ^= 1;
        let mut reader = Decryptor::new(&module, corrupted.as_slice())
            .unwrap()
            .unlock(&Identity::KeyFile(&KEY))
            .unwrap();
        let mut out = Vec::new();
        let error = reader.read_to_end(&mut out).unwrap_err();
        assert!(matches!(FileError::from_io(error), FileError::Tampered(_)));
        assert_eq!(out.len(), released, "segment {bad}");
        assert_eq!(out, data[..released]);
        // And it stays failed.
        assert!(reader.read(&mut [0u8; 16]).is_err());
    }
}

/// Random mutations of small files (fixed seed, bounded): the in-tree smoke run of the
/// `fuzz/` target `file_decrypt`. No panic, no released byte that is not the original's, and a
/// file that decrypts must be the original.
#[test]
fn mutated_files_never_panic_or_decrypt_wrongly() {
    let module = module(Profile::Default);
    let data = plaintext(SEGMENT_SIZE + 300);
    let (file, _) = encrypt_with(&module, &data, 1);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..300 {
        let mut mutated = file.clone();
        match next() % 4 {
            0 => {
                let at = (next() as usize) % mutated.len();
                mutated[at] ^= 1 << (next() % 8);
            }
            1 => mutated.truncate((next() as usize) % mutated.len()),
            2 => {
                let at = (next() as usize) % mutated.len();
                mutated.insert(at, next() as u8);
            }
            _ => {
                let at = (next() as usize) % mutated.len();
                mutated.remove(at);
            }
        }
        // What the reader releases is always the original plaintext's prefix (no byte of a bad
        // segment), and a complete decryption means the file was not changed.
        let Ok(decryptor) = Decryptor::new(&module, mutated.as_slice()) else {
            continue;
        };
        let Ok(mut reader) = decryptor.unlock(&Identity::KeyFile(&KEY)) else {
            continue;
        };
        let mut released = Vec::new();
        let complete = reader.read_to_end(&mut released).is_ok();
        assert!(data.starts_with(&released));
        if complete {
            assert_eq!(mutated, file);
            assert_eq!(released, data);
        }
    }
}

#[test]
fn recipients_of_every_kind_and_several_per_file() {
    use regula_files::file_format::{Recipient, RecipientIdentity, RecipientKind};
    for (profile, preferred) in [
        (Profile::Default, RecipientKind::MlKem768X25519),
        (Profile::Fips1403, RecipientKind::MlKem1024),
        (Profile::Gm, RecipientKind::Sm2),
    ] {
        assert_eq!(
            RecipientKind::for_policy(&Policy::builtin(profile)),
            Some(preferred),
            "{profile}"
        );
    }
    let fips = module(Profile::Fips1403);
    let default = module(Profile::Default);
    let data = plaintext(SEGMENT_SIZE + 77);
    for (module, kinds) in [
        (
            &default,
            vec![
                RecipientKind::MlKem768X25519,
                RecipientKind::MlKem1024,
                RecipientKind::EcdhP384,
                RecipientKind::Sm2,
            ],
        ),
        (
            &fips,
            vec![RecipientKind::MlKem1024, RecipientKind::EcdhP384],
        ),
        (&self::module(Profile::Gm), vec![RecipientKind::Sm2]),
    ] {
        let identities: Vec<RecipientIdentity> = kinds
            .iter()
            .flat_map(|kind| {
                // Two of each kind: every stanza is tried, and each opens for its own key only.
                [0, 1].map(|_| RecipientIdentity::generate(module, *kind).unwrap())
            })
            .collect();
        let mut encryptor = Encryptor::new(module).unwrap();
        for identity in &identities {
            // Through the public encoding, as a recipient file carries it.
            let recipient = Recipient::from_bytes(&identity.recipient().to_bytes()).unwrap();
            encryptor.add_recipient(&recipient).unwrap();
        }
        let mut writer = encryptor.writer(Vec::new()).unwrap();
        writer.write_all(&data).unwrap();
        let (file, summary) = writer.finish().unwrap();
        assert_eq!(summary.header.stanzas.len(), identities.len());
        for identity in &identities {
            let identity = RecipientIdentity::from_bytes(&identity.to_bytes()).unwrap();
            assert_eq!(
                decrypt(module, &file, &Identity::Recipient(&identity)).unwrap(),
                data,
                "{}",
                identity.kind()
            );
        }
        let stranger = RecipientIdentity::generate(module, kinds[0]).unwrap();
        assert!(matches!(
            decrypt(module, &file, &Identity::Recipient(&stranger)),
            Err(FileError::NoMatchingKey)
        ));
    }
    // X25519 is not FIPS-approved: the hybrid is refused under fips-140-3, to write or to read.
    let hybrid = RecipientIdentity::generate(&default, RecipientKind::MlKem768X25519).unwrap();
    let mut encryptor = Encryptor::new(&fips).unwrap();
    assert!(matches!(
        encryptor.add_recipient(&hybrid.recipient()),
        Err(FileError::Module(Error::NotApproved { .. }))
    ));
    assert!(matches!(
        RecipientIdentity::generate(&fips, RecipientKind::MlKem768X25519),
        Err(FileError::Module(Error::NotApproved { .. }))
    ));
}

/// A writer that accepts `limit` bytes, then fails like a full disk.
struct FullAfter {
    written: Vec<u8>,
    limit: usize,
}

impl Write for FullAfter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.written.len() + data.len() > self.limit {
            return Err(std::io::Error::from_raw_os_error(28)); // ENOSPC
        }
        self.written.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `read_to` (what `regula decrypt` uses), pipelined over several batches: a bad segment in a
/// later batch stops it with only the earlier, authenticated batches written; a failing output
/// stops it with an output error; in both cases the reader refuses to go on.
#[test]
fn read_to_stops_at_a_bad_segment_or_a_failing_output() {
    let module = module(Profile::Default);
    let data = plaintext(100 * SEGMENT_SIZE + 7);
    let (file, summary) = encrypt(&module, &data);
    for threads in [1, 2, 3] {
        for bad in [0usize, 17, 40, 100] {
            let mut corrupted = file.clone();
            corrupted[segment_at(&summary, bad) + 3] ^= 0x20;
            let mut reader = Decryptor::new(&module, corrupted.as_slice())
                .unwrap()
                .unlock(&Identity::KeyFile(&KEY))
                .unwrap();
            reader.threads(threads);
            let mut out = Vec::new();
            let error = reader.read_to(&mut out).unwrap_err();
            assert!(matches!(error, FileError::Tampered(_)), "{error}");
            // Only whole batches before the bad segment's batch (16 segments each).
            assert_eq!(out.len() % (16 * SEGMENT_SIZE), 0, "segment {bad}");
            assert!(out.len() <= bad * SEGMENT_SIZE, "segment {bad}");
            assert_eq!(out, data[..out.len()]);
            assert!(reader.read_to(&mut Vec::new()).is_err());
        }
        let mut reader = Decryptor::new(&module, file.as_slice())
            .unwrap()
            .unlock(&Identity::KeyFile(&KEY))
            .unwrap();
        reader.threads(threads);
        let mut out = FullAfter {
            written: Vec::new(),
            limit: 50 * SEGMENT_SIZE,
        };
        let error = reader.read_to(&mut out).unwrap_err();
        assert!(matches!(error, FileError::Output(_)), "{error}");
        assert_eq!(out.written, data[..out.written.len()]);
        assert!(reader.read(&mut [0u8; 16]).is_err());
    }
}

/// `write_from` (what `regula encrypt` uses) into an output that fills up: an output error,
/// and the writer refuses to finish an incomplete file.
#[test]
fn write_from_reports_a_failing_output() {
    let module = module(Profile::Default);
    let data = plaintext(100 * SEGMENT_SIZE);
    for threads in [1, 2] {
        let mut encryptor = Encryptor::new(&module).unwrap();
        encryptor.add_key_file(&KEY).unwrap();
        encryptor.threads(threads);
        let mut writer = encryptor
            .writer(FullAfter {
                written: Vec::new(),
                limit: 40 * SEALED_SEGMENT_SIZE,
            })
            .unwrap();
        let error = writer.write_from(&mut data.as_slice()).unwrap_err();
        assert!(matches!(error, FileError::Output(_)), "{error}");
        assert!(writer.finish().is_err());
    }
}
