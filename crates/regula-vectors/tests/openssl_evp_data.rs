//! OpenSSL's evp_test data files (`tests/openssl-evp-data/`, OpenSSL's
//! test/recipes/30-test_evp_data) read whole: KDF stanzas, `Availablein`/`FIPSversion`, the
//! key wrap aliases, GMAC, and the licence beside them.

use std::path::{Path, PathBuf};

use regula::{Module, Policy, Profile};
use regula_vectors::{Format, run_path, run_source};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/openssl-evp-data")
}

fn module(profile: Profile) -> Module {
    Module::load(Policy::builtin(profile))
}

/// The whole directory under `default` and `fips-140-3`: nothing fails, every skip has a
/// reason, the licence is noted, and the files the issue names run vectors.
#[test]
fn the_directory_runs_whole_under_default_and_fips() {
    for profile in [Profile::Default, Profile::Fips1403] {
        let reports = run_path(&module(profile), &data_dir())
            .unwrap_or_else(|error| panic!("{profile:?}: {error}"));
        for report in &reports {
            assert_eq!(report.failed, 0, "{}: {:?}", report.path, report.failures);
            assert_eq!(
                report.skip_reasons.values().sum::<u64>(),
                report.skipped,
                "{}",
                report.path
            );
        }
        let licence = reports
            .iter()
            .find(|report| report.path.ends_with("LICENSE.txt"))
            .expect("the licence is listed");
        assert_eq!(licence.format, Format::NotVectors);
        assert!(licence.notes[0].contains("not a vector file"));
        for file in [
            "evpkdf_hkdf.txt",
            "evpkdf_kbkdf_counter.txt",
            "evpkdf_pbkdf2.txt",
            "evpkdf_tls12_prf.txt",
            "evpkdf_tls13_kdf.txt",
            "evpciph_aes_wrap.txt",
            "evpmac_common.txt",
            "evppkey_ecdsa.txt",
        ] {
            let report = reports
                .iter()
                .find(|report| report.path.ends_with(file))
                .unwrap_or_else(|| panic!("{file} is run"));
            assert!(report.passed > 0, "{profile:?} {file}: {report:?}");
        }
    }
}

/// The first stanza of each KDF file, with one byte of its `Output` changed, fails.
#[test]
fn a_mutated_kdf_output_byte_fails() {
    let module = module(Profile::Default);
    for file in [
        "evpkdf_hkdf.txt",
        "evpkdf_tls13_kdf.txt",
        "evpkdf_pbkdf2.txt",
        "evpkdf_kbkdf_counter.txt",
    ] {
        let text = std::fs::read_to_string(data_dir().join(file)).unwrap();
        let original = run_source(&module, file, &text).unwrap();
        assert_eq!(original.failed, 0, "{file}: {:?}", original.failures);
        // The first `Output` of a stanza that runs: flip the last hex digit.
        let start = text
            .match_indices("\nOutput = ")
            .map(|(index, _)| index)
            .find(|&index| {
                let stanza_start = text[..index].rfind("\n\n").unwrap_or(0);
                let stanza = &text[stanza_start..index];
                // Skip stanzas this module does not serve (SHA-1, CMAC, short counters, …).
                !stanza.contains("SHA1")
                    && !stanza.contains("sha1")
                    && !stanza.contains("Availablein")
                    && !stanza.contains("CMAC")
                    && !stanza.contains("SHA224")
                    && !stanza.contains("r:8")
                    && !stanza.contains("r:16")
                    && !stanza.contains("r:24")
            })
            .unwrap_or_else(|| panic!("{file}: a served stanza"));
        let end = start + 1 + text[start + 1..].find('\n').unwrap();
        let mut mutated = text.clone();
        let last = &text[end - 1..end];
        let flipped = if last == "0" { "1" } else { "0" };
        mutated.replace_range(end - 1..end, flipped);
        let report = run_source(&module, file, &mutated).unwrap();
        assert_eq!(report.failed, 1, "{file}: {:?}", report.failures);
        assert!(
            report.failures[0].contains("derived key differs"),
            "{file}: {:?}",
            report.failures
        );
    }
}

/// OpenSSL's P-256 `DigestVerify` signature with one bit of `r` flipped fails; so does a
/// `PrivPubKeyPair` whose public key is another key's.
#[test]
fn a_mutated_ecdsa_stanza_fails() {
    let module = module(Profile::Default);
    let text = std::fs::read_to_string(data_dir().join("evppkey_ecdsa.txt")).unwrap();
    let signature = "3046022100e7515177ec3817b77a4a94066ab3070817b7aa9d44a8a09f040da250116e8972";
    assert_eq!(
        text.matches(signature).count(),
        2,
        "the DigestVerify and one-shot stanzas"
    );
    let mutated = text.replace(
        signature,
        &format!("{}3", &signature[..signature.len() - 1]),
    );
    let report = run_source(&module, "evppkey_ecdsa.txt", &mutated).unwrap();
    assert_eq!(report.failed, 2, "{:?}", report.failures);
    assert!(report.failures[0].contains("signature verification failed"));

    // P-384-PUBLIC is defined further down the file; the pair goes at its end.
    let mismatched = format!("{text}\nPrivPubKeyPair = P-256:P-384-PUBLIC\n");
    let report = run_source(&module, "evppkey_ecdsa.txt", &mismatched).unwrap();
    assert_eq!(report.failed, 1, "{:?}", report.failures);
}

/// `Availablein` and `FIPSversion` are judged against the loaded policy.
#[test]
fn availablein_and_fipsversion_follow_the_policy() {
    let stanza = |qualifiers: &str| {
        format!(
            "{qualifiers}KDF = HKDF\nCtrl.digest = digest:SHA256\n\
             Ctrl.IKM = hexkey:0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b\n\
             Ctrl.salt = hexsalt:000102030405060708090a0b0c\n\
             Ctrl.info = hexinfo:f0f1f2f3f4f5f6f7f8f9\n\
             Output = 3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf\
             34007208d5b887185865\n"
        )
    };
    let run = |profile, qualifiers: &str| {
        let report = run_source(&module(profile), "t", &stanza(qualifiers)).unwrap();
        (report.passed, report.failed, report.skip_reasons)
    };
    // RFC 5869 A.1 runs under both policies without qualifiers.
    assert_eq!(run(Profile::Default, "").0, 1);
    assert_eq!(run(Profile::Fips1403, "").0, 1);
    let (passed, _, reasons) = run(Profile::Fips1403, "Availablein = default\n");
    assert_eq!(passed, 0);
    assert!(
        reasons
            .keys()
            .any(|reason| reason.contains("default provider only")),
        "{reasons:?}"
    );
    let (passed, _, reasons) = run(Profile::Default, "Availablein = fips\n");
    assert_eq!(passed, 0);
    assert!(
        reasons
            .keys()
            .any(|reason| reason.contains("fips provider only")),
        "{reasons:?}"
    );
    // FIPSversion concerns the FIPS provider only.
    assert_eq!(run(Profile::Default, "FIPSversion = <3.0.0\n").0, 1);
    assert_eq!(run(Profile::Fips1403, "FIPSversion = >=3.4.0\n").0, 1);
    let (passed, _, reasons) = run(Profile::Fips1403, "FIPSversion = <3.4.0\n");
    assert_eq!(passed, 0);
    assert!(
        reasons
            .keys()
            .any(|reason| reason.contains("versions <3.4.0")),
        "{reasons:?}"
    );
}

/// A stanza that must fail passes only when the module refuses: HKDF asked for more than
/// 255·HashLen bytes is refused; the same request marked as a valid vector fails.
#[test]
fn a_negative_kdf_stanza_passes_only_when_refused() {
    let module = module(Profile::Default);
    let too_long = "00".repeat(255 * 32 + 1);
    let stanza = format!(
        "KDF = HKDF\nCtrl.digest = digest:SHA256\nCtrl.IKM = hexkey:0b0b\n\
         Output = {too_long}\n"
    );
    let refused = run_source(
        &module,
        "t",
        &format!("{stanza}Result = KDF_DERIVE_ERROR\n"),
    )
    .unwrap();
    assert_eq!((refused.passed, refused.failed), (1, 0));
    let valid = run_source(&module, "t", &stanza).unwrap();
    assert_eq!((valid.passed, valid.failed), (0, 1));
}
