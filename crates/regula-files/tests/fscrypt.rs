//! Linux fscrypt v2 compatibility (`regula_files::fscrypt`).
//!
//! Expected values come only from outside Regula:
//!
//! * `shared/vectors/fscrypt/fscrypt-v2-aes.txt`: key identifiers, AES-256-XTS contents and
//!   AES-256-CTS-CBC file names produced by the kernel's reference user-space tool (xfstests
//!   `fscrypt-crypt-util`). Every stanza and every field is used, in both directions.
//! * SM4-XTS (mode 7) and SM4-CTS-CBC (mode 8) have no kernel-tool vectors. The key derivation
//!   is the one the AES vectors check; the SM4 side is checked against RustCrypto `sm4` with
//!   `xts-mode` (IEEE Std 1619, the kernel's XTS) and `cts` (CBC-CS3), with the tweak and padding
//!   rules of the kernel built by the test itself, plus round trips. The SM4-XTS/CBC-CS3
//!   primitives themselves meet the GB/T and OpenSSL vectors in regula-sm's tests.

use cipher::generic_array::GenericArray;
use cipher::{KeyInit, KeyIvInit};
use regula::{Algorithm, Approval, Error, Module, Policy, Profile};
use regula_files::fscrypt::{
    ContentsKey, ContentsMode, FilenamesKey, FilenamesMode, MasterKey, NamePadding,
};

const VECTORS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/vectors/fscrypt/fscrypt-v2-aes.txt"
));

fn unhex(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap_or_else(|error| panic!("bad hex {text:?}: {error}"))
}

/// One `[section]` of the vector file with its fields; each field must be taken exactly once.
struct Stanza {
    section: String,
    line: usize,
    fields: Vec<(String, String, bool)>,
}

impl Stanza {
    fn take(&mut self, name: &str) -> String {
        let field = self
            .fields
            .iter_mut()
            .find(|(key, _, _)| key == name)
            .unwrap_or_else(|| panic!("line {}: [{}] lacks {name}", self.line, self.section));
        assert!(!field.2, "line {}: {name} used twice", self.line);
        field.2 = true;
        field.1.clone()
    }

    fn hex(&mut self, name: &str) -> Vec<u8> {
        unhex(&self.take(name))
    }

    fn number<T: std::str::FromStr>(&mut self, name: &str) -> T {
        let text = self.take(name);
        text.parse()
            .unwrap_or_else(|_| panic!("line {}: {name} = {text} is no number", self.line))
    }

    fn finish(self) {
        for (name, _, used) in &self.fields {
            assert!(used, "line {}: field {name} was not checked", self.line);
        }
    }
}

fn stanzas() -> Vec<Stanza> {
    let mut stanzas: Vec<Stanza> = Vec::new();
    for (index, line) in VECTORS.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            stanzas.push(Stanza {
                section: section.to_string(),
                line: index + 1,
                fields: Vec::new(),
            });
            continue;
        }
        let (key, value) = line
            .split_once(" = ")
            .unwrap_or_else(|| panic!("line {}: not `KEY = VALUE`", index + 1));
        stanzas
            .last_mut()
            .expect("a field before the first section")
            .fields
            .push((key.to_string(), value.to_string(), false));
    }
    stanzas
}

fn module(profile: Profile) -> Module {
    Module::load(Policy::builtin(profile))
}

#[test]
fn kernel_vectors_reproduced_in_both_directions() {
    let module = module(Profile::Default);
    let (mut identifiers, mut contents, mut names) = (0, 0, 0);
    for mut stanza in stanzas() {
        let master = MasterKey::new(&module, &stanza.hex("MASTER_KEY")).unwrap();
        let section = stanza.section.clone();
        match section.as_str() {
            "key-identifier" => {
                let expected = stanza.hex("KEY_IDENTIFIER");
                let identifier = master.key_identifier().unwrap();
                assert_eq!(identifier.to_vec(), expected, "line {}", stanza.line);
                identifiers += 1;
            }
            "contents AES-256-XTS" => {
                let nonce = stanza.hex("FILE_NONCE");
                let mode = ContentsMode::from_number(stanza.number("MODE")).unwrap();
                assert_eq!(mode, ContentsMode::Aes256Xts);
                let unit: usize = stanza.number("DATA_UNIT_SIZE");
                let index: u64 = stanza.number("DATA_UNIT_INDEX");
                let plaintext = stanza.hex("PLAINTEXT");
                let ciphertext = stanza.hex("CIPHERTEXT");
                let key = master.contents_key(mode, &nonce).unwrap();
                let encrypted = key.encrypt(index, unit, &plaintext).unwrap();
                assert!(
                    encrypted.as_slice() == ciphertext,
                    "line {}: contents ciphertext differs",
                    stanza.line
                );
                assert_eq!(encrypted.indicator().algorithm, Algorithm::Aes256Xts);
                let decrypted = key.decrypt(index, unit, &ciphertext).unwrap();
                assert!(decrypted.as_slice() == plaintext, "line {}", stanza.line);
                // Data units are independent: the second unit alone, with its own index.
                if plaintext.len() > unit {
                    let second = key.encrypt(index + 1, unit, &plaintext[unit..2 * unit]);
                    assert_eq!(second.unwrap().as_slice(), &ciphertext[unit..2 * unit]);
                }
                contents += 1;
            }
            "filename AES-256-CTS-CBC" => {
                let nonce = stanza.hex("FILE_NONCE");
                let mode = FilenamesMode::from_number(stanza.number("MODE")).unwrap();
                assert_eq!(mode, FilenamesMode::Aes256Cts);
                let padding = NamePadding::new(stanza.number("PADDING")).unwrap();
                let name = stanza.hex("PLAINTEXT");
                let expected = stanza.hex("CIPHERTEXT");
                let key = master.filenames_key(mode, &nonce).unwrap();
                let encrypted = key.encrypt(&name, padding).unwrap();
                assert_eq!(encrypted.to_vec(), expected, "line {}", stanza.line);
                assert_eq!(encrypted.indicator().algorithm, Algorithm::Aes256CbcCs3);
                let decrypted = key.decrypt(&expected).unwrap();
                assert_eq!(decrypted.to_vec(), name, "line {}", stanza.line);
                names += 1;
            }
            other => panic!("line {}: unknown section [{other}]", stanza.line),
        }
        stanza.finish();
    }
    // The file's own census: 4 identifiers, 4 contents, 6 names.
    assert_eq!((identifiers, contents, names), (4, 4, 6));
}

/// What each profile makes of the construction.
#[test]
fn approval_per_profile() {
    let master_bytes = [0x5a; 64];
    // default: derivation and XTS approved, the AES name mode flagged (Regula's stealing).
    let default = module(Profile::Default);
    let master = MasterKey::new(&default, &master_bytes).unwrap();
    assert!(master.key_identifier().unwrap().is_approved());
    let names = master
        .filenames_key(FilenamesMode::Aes256Cts, &[1; 16])
        .unwrap();
    let name = names.encrypt(b"a", NamePadding::DEFAULT).unwrap();
    assert_eq!(name.indicator().approval, Approval::NotApproved);

    // fips-140-3: key identifier and AES-256-XTS approved; AES-256-CBC-CS3 and SM4 refused.
    let fips = module(Profile::Fips1403);
    let master = MasterKey::new(&fips, &master_bytes).unwrap();
    assert!(master.key_identifier().unwrap().is_approved());
    let contents = master
        .contents_key(ContentsMode::Aes256Xts, &[1; 16])
        .unwrap();
    assert!(contents.encrypt(0, 4096, &[0; 4096]).unwrap().is_approved());
    for refused in [
        master
            .filenames_key(FilenamesMode::Aes256Cts, &[1; 16])
            .map(drop),
        master
            .contents_key(ContentsMode::Sm4Xts, &[1; 16])
            .map(drop),
    ] {
        assert!(
            matches!(refused, Err(Error::NotApproved { .. })),
            "{refused:?}"
        );
    }

    // gm: the kernel's HKDF-SHA512 served flagged, SM4-XTS and SM4-CTS approved, AES refused.
    let gm = module(Profile::Gm);
    let master = MasterKey::new(&gm, &master_bytes).unwrap();
    let identifier = master.key_identifier().unwrap();
    assert_eq!(
        identifier.indicator().algorithm,
        Algorithm::FscryptHkdfSha512
    );
    assert_eq!(identifier.indicator().approval, Approval::NotApproved);
    let contents = master.contents_key(ContentsMode::Sm4Xts, &[1; 16]).unwrap();
    assert!(contents.encrypt(0, 4096, &[0; 4096]).unwrap().is_approved());
    let names = master
        .filenames_key(FilenamesMode::Sm4Cts, &[1; 16])
        .unwrap();
    assert!(
        names
            .encrypt(b"a", NamePadding::DEFAULT)
            .unwrap()
            .is_approved()
    );
    assert!(matches!(
        master.contents_key(ContentsMode::Aes256Xts, &[1; 16]),
        Err(Error::NotApproved { .. })
    ));
    // The flagged derivation makes the scope's aggregate not approved.
    assert_eq!(gm.indicator_state(), regula::IndicatorState::NotApproved);
    // It is not a general HKDF-SHA512 under gm.
    assert!(
        gm.hkdf(Algorithm::HkdfSha512, &[1; 32], b"", b"", 32)
            .is_err()
    );
    assert!(
        gm.hkdf(Algorithm::FscryptHkdfSha512, &[1; 32], b"", b"", 32)
            .is_err()
    );
}

/// A deterministic byte pattern (the test needs no randomness).
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// SM4-XTS contents: RustCrypto `xts-mode` over `sm4` with the kernel's tweak, under the key
/// the (AES-checked) derivation gives; both directions, several data-unit sizes and indexes.
#[test]
fn sm4_xts_contents_match_rustcrypto() {
    let module = module(Profile::Gm);
    for (seed, unit, index, units) in [
        (1u8, 4096usize, 0u64, 1usize),
        (2, 4096, 7, 3),
        (3, 512, 4_294_967_295, 2),
        (4, 65536, 1 << 40, 1),
        (5, 1024, u64::MAX - 1, 2),
    ] {
        let master = MasterKey::new(&module, &pattern(64, seed)).unwrap();
        let nonce = pattern(16, seed ^ 0x80);
        let per_file = master.per_file_key(&nonce, 32).unwrap();
        let key = master.contents_key(ContentsMode::Sm4Xts, &nonce).unwrap();
        let plaintext = pattern(unit * units, seed.wrapping_add(9));

        let reference = xts_mode::Xts128::new(
            sm4::Sm4::new(GenericArray::from_slice(&per_file[..16])),
            sm4::Sm4::new(GenericArray::from_slice(&per_file[16..])),
        );
        let mut expected = plaintext.clone();
        for (offset, chunk) in expected.chunks_mut(unit).enumerate() {
            let mut tweak = [0u8; 16];
            tweak[..8].copy_from_slice(&(index + offset as u64).to_le_bytes());
            reference.encrypt_sector(chunk, tweak);
        }
        let encrypted = key.encrypt(index, unit, &plaintext).unwrap();
        assert!(
            encrypted.as_slice() == expected,
            "unit {unit}, index {index}"
        );
        assert!(key.decrypt(index, unit, &expected).unwrap().as_slice() == plaintext);
    }
}

/// SM4-CTS-CBC names: RustCrypto `cts` (CBC-CS3) over `sm4`, zero IV, the kernel's padding.
#[test]
fn sm4_cts_names_match_rustcrypto() {
    use cts::{Decrypt, Encrypt};
    let module = module(Profile::Gm);
    let master = MasterKey::new(&module, &pattern(32, 0x33)).unwrap();
    let nonce = pattern(16, 0x44);
    let per_dir = master.per_file_key(&nonce, 16).unwrap();
    let key = master.filenames_key(FilenamesMode::Sm4Cts, &nonce).unwrap();
    let sm4_key: [u8; 16] = per_dir[..].try_into().unwrap();
    for padding in [4, 8, 16, 32] {
        let padding = NamePadding::new(padding).unwrap();
        for len in [1usize, 9, 15, 16, 17, 31, 33, 56, 100, 200, 250, 254, 255] {
            let name: Vec<u8> = pattern(len, len as u8)
                .into_iter()
                .map(|byte| b'a' + byte % 26)
                .collect();
            let mut expected = name.clone();
            expected.resize(padding.encrypted_len(len), 0);
            if expected.len() > 16 {
                cts::CbcCs3Enc::<sm4::Sm4>::new(&sm4_key.into(), &[0u8; 16].into())
                    .encrypt(&mut expected)
                    .unwrap();
            } else {
                // One block: CS3 is plain CBC, i.e. SM4 of the block under a zero IV.
                use cipher::BlockEncrypt;
                let cipher = sm4::Sm4::new(&sm4_key.into());
                cipher.encrypt_block(GenericArray::from_mut_slice(&mut expected));
            }
            let encrypted = key.encrypt(&name, padding).unwrap();
            assert_eq!(encrypted.to_vec(), expected, "{len} bytes, {padding:?}");
            assert_eq!(key.decrypt(&expected).unwrap().to_vec(), name);
            if expected.len() > 16 {
                let mut reference = expected.clone();
                cts::CbcCs3Dec::<sm4::Sm4>::new(&sm4_key.into(), &[0u8; 16].into())
                    .decrypt(&mut reference)
                    .unwrap();
                assert_eq!(&reference[..len], &name[..]);
            }
        }
    }
}

/// Raw-key forms agree with the derived ones, and every mode round-trips.
#[test]
fn raw_keys_and_round_trips() {
    let module = module(Profile::Default);
    let master = MasterKey::new(&module, &pattern(64, 0x11)).unwrap();
    let nonce = pattern(16, 0x22);
    for mode in ContentsMode::ALL {
        let derived = master.contents_key(mode, &nonce).unwrap();
        let raw = ContentsKey::from_raw(
            &module,
            mode,
            &master.per_file_key(&nonce, mode.key_len()).unwrap(),
        )
        .unwrap();
        let data = pattern(8192, 3);
        let encrypted = derived.encrypt(9, 4096, &data).unwrap();
        assert_eq!(raw.encrypt(9, 4096, &data).unwrap().to_vec(), *encrypted);
        assert_ne!(encrypted.to_vec(), data);
        assert_eq!(raw.decrypt(9, 4096, &encrypted).unwrap().to_vec(), data);
    }
    for mode in FilenamesMode::ALL {
        let derived = master.filenames_key(mode, &nonce).unwrap();
        let raw = FilenamesKey::from_raw(
            &module,
            mode,
            &master.per_file_key(&nonce, mode.key_len()).unwrap(),
        )
        .unwrap();
        for name in [
            &b"x"[..],
            b"Makefile",
            b"a name with spaces.tar.gz",
            &[b'z'; 255],
        ] {
            let encrypted = derived.encrypt(name, NamePadding::DEFAULT).unwrap();
            assert_eq!(
                raw.encrypt(name, NamePadding::DEFAULT).unwrap().to_vec(),
                *encrypted
            );
            assert_eq!(raw.decrypt(&encrypted).unwrap().to_vec(), name);
        }
    }
}

/// Bad lengths are typed input errors, never panics or partial output.
#[test]
fn bad_input_is_refused_with_a_typed_error() {
    let module = module(Profile::Default);
    let input_error = |result: Result<(), Error>| {
        let error = result.expect_err("should be refused");
        assert_eq!(error.kind(), regula::ErrorKind::Input, "{error}");
    };
    for len in [0usize, 15, 65, 128] {
        input_error(MasterKey::new(&module, &vec![1; len]).map(drop));
    }
    // AES-256-XTS needs a 64-byte master key, SM4-XTS 32 (fs/crypto/keysetup.c).
    let short = MasterKey::new(&module, &[1; 32]).unwrap();
    input_error(
        short
            .contents_key(ContentsMode::Aes256Xts, &[0; 16])
            .map(drop),
    );
    assert!(short.contents_key(ContentsMode::Sm4Xts, &[0; 16]).is_ok());

    let master = MasterKey::new(&module, &[1; 64]).unwrap();
    for nonce in [&[0u8; 15][..], &[0; 17], &[]] {
        input_error(
            master
                .contents_key(ContentsMode::Aes256Xts, nonce)
                .map(drop),
        );
        input_error(
            master
                .filenames_key(FilenamesMode::Aes256Cts, nonce)
                .map(drop),
        );
    }
    let contents = master
        .contents_key(ContentsMode::Aes256Xts, &[0; 16])
        .unwrap();
    for (unit, len) in [
        (4096, 0),
        (4096, 4095),
        (4096, 4097),
        (1000, 1000),
        (256, 256),
    ] {
        input_error(contents.encrypt(0, unit, &vec![0; len]).map(drop));
        input_error(contents.decrypt(0, unit, &vec![0; len]).map(drop));
    }
    input_error(contents.encrypt(u64::MAX, 512, &[0; 1024]).map(drop));
    assert!(contents.encrypt(u64::MAX, 512, &[0; 512]).is_ok());

    let names = master
        .filenames_key(FilenamesMode::Aes256Cts, &[0; 16])
        .unwrap();
    input_error(names.encrypt(b"", NamePadding::DEFAULT).map(drop));
    input_error(names.encrypt(&[b'a'; 256], NamePadding::DEFAULT).map(drop));
    input_error(
        names
            .encrypt(b"nul\0inside", NamePadding::DEFAULT)
            .map(drop),
    );
    for len in [0usize, 15, 256] {
        input_error(names.decrypt(&vec![0; len]).map(drop));
    }
    input_error(NamePadding::new(64).map(drop));
}

#[test]
fn debug_output_never_shows_the_master_key() {
    let module = module(Profile::Default);
    let master = MasterKey::new(&module, &[0xab; 64]).unwrap();
    let shown = format!("{master:?}");
    assert!(!shown.contains("ab") && !shown.contains("171"), "{shown}");
}

/// AES-256-CBC-CS3 is Regula's own stealing around AWS-LC's CBC: every length from 17 to 300
/// bytes (and a few around 4 KiB), varied keys and IVs, against RustCrypto `cts` over RustCrypto
/// `aes`, both directions, through the public cipher service. One block is plain CBC (as the
/// kernel's `cts(cbc(aes))` and the 16-byte kernel vectors have it), where `cts` 0.6 encrypts
/// once more, so that length is checked against AWS-LC's CBC instead.
#[test]
fn aes_256_cbc_cs3_matches_rustcrypto() {
    use cts::{Decrypt, Encrypt};
    let module = module(Profile::Default);
    let mut lengths: Vec<usize> = (17..=300).collect();
    lengths.extend([4095, 4096, 4097, 4111]);
    for len in lengths {
        let seed = len as u8;
        let key_bytes = pattern(32, seed);
        let iv: [u8; 16] = pattern(16, seed ^ 0x5c).try_into().unwrap();
        let plaintext = pattern(len, seed ^ 0xa3);
        let mut expected = plaintext.clone();
        let key_array: [u8; 32] = key_bytes.clone().try_into().unwrap();
        cts::CbcCs3Enc::<aes::Aes256>::new(&key_array.into(), &iv.into())
            .encrypt(&mut expected)
            .unwrap();
        let key = module
            .cipher_key(Algorithm::Aes256CbcCs3, &key_bytes)
            .unwrap();
        let encrypted = key.encrypt(Some(&iv), &plaintext).unwrap();
        assert_eq!(encrypted.ciphertext, expected, "{len} bytes");
        assert_eq!(encrypted.indicator().approval, Approval::NotApproved);
        let decrypted = key.decrypt(&iv, &expected).unwrap();
        assert_eq!(decrypted.as_slice(), plaintext, "{len} bytes");
        let mut reference = expected.clone();
        cts::CbcCs3Dec::<aes::Aes256>::new(&key_array.into(), &iv.into())
            .decrypt(&mut reference)
            .unwrap();
        assert_eq!(reference, plaintext);
    }
    let key = module
        .cipher_key(Algorithm::Aes256CbcCs3, &[1; 32])
        .unwrap();
    let cbc = module.cipher_key(Algorithm::Aes256Cbc, &[1; 32]).unwrap();
    let block = pattern(16, 0x77);
    let one = key.encrypt(Some(&[3; 16]), &block).unwrap();
    // PKCS#7 CBC of one block is that block's CBC followed by a padding block.
    let padded = cbc.encrypt(Some(&[3; 16]), &block).unwrap();
    assert_eq!(one.ciphertext, padded.ciphertext[..16]);
    for len in [0usize, 1, 15] {
        let error = key.encrypt(Some(&[0; 16]), &vec![0; len]).unwrap_err();
        assert_eq!(error.kind(), regula::ErrorKind::Input, "{error}");
        let error = key.decrypt(&[0; 16], &vec![0; len]).unwrap_err();
        assert_eq!(error.kind(), regula::ErrorKind::Input, "{error}");
    }
}

/// Arbitrary bytes of every length into every entry point: a result or a typed input error,
/// never a panic (a deterministic sweep standing in for a fuzzer over these small parsers).
#[test]
fn arbitrary_input_never_panics() {
    for profile in [Profile::Default, Profile::Gm] {
        let module = module(profile);
        for len in 0..=70 {
            match MasterKey::new(&module, &pattern(len, len as u8)) {
                Ok(_) => assert!((16..=64).contains(&len), "{len}"),
                Err(error) => assert_eq!(error.kind(), regula::ErrorKind::Input, "{len}"),
            }
        }
        let master = MasterKey::new(&module, &pattern(64, 1)).unwrap();
        let allowed = |result: Result<(), Error>| {
            if let Err(error) = result {
                assert!(
                    matches!(
                        error.kind(),
                        regula::ErrorKind::Input | regula::ErrorKind::NotApproved
                    ),
                    "{error}"
                );
            }
        };
        for mode in FilenamesMode::ALL {
            let Ok(names) = master.filenames_key(mode, &[2; 16]) else {
                continue;
            };
            for len in 0..=300 {
                let bytes = pattern(len, (len * 3) as u8);
                allowed(names.decrypt(&bytes).map(drop));
                allowed(names.encrypt(&bytes, NamePadding::DEFAULT).map(drop));
            }
        }
        for mode in ContentsMode::ALL {
            let Ok(contents) = master.contents_key(mode, &[3; 16]) else {
                continue;
            };
            for (unit, len) in [
                (512, 0),
                (512, 511),
                (512, 513),
                (512, 1536),
                (0, 512),
                (3, 3),
            ] {
                for index in [0, 1, u64::MAX - 1, u64::MAX] {
                    let bytes = pattern(len, index as u8);
                    allowed(contents.decrypt(index, unit, &bytes).map(drop));
                    allowed(contents.encrypt(index, unit, &bytes).map(drop));
                }
            }
        }
    }
}
