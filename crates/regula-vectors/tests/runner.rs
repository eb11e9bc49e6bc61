//! The runner against deliberately wrong, expected-failure and malformed vectors of each
//! format, the built-in Wycheproof pass, and (when installed) the cryptography-vectors files.

use std::path::{Path, PathBuf};

use regula::{Module, Policy, Profile};
use regula_vectors::{FileReport, Format, VectorErrorKind, run_builtin, run_path, run_source};

fn module(profile: Profile) -> Module {
    Module::load(Policy::builtin(profile))
}

fn run(profile: Profile, label: &str, text: &str) -> FileReport {
    run_source(&module(profile), label, text).unwrap_or_else(|error| panic!("{error}"))
}

fn counts(report: &FileReport) -> (u64, u64, u64) {
    (report.passed, report.failed, report.skipped)
}

// ---- NIST CAVP .rsp (AES-GCM decrypt, from gcmDecrypt128.rsp COUNT 0) ----

const GCM_HEADER: &str = "# CAVS 14.0\n# GCM Decrypt with keysize 128 test information\n\n\
[Keylen = 128]\n[IVlen = 96]\n[PTlen = 0]\n[AADlen = 0]\n[Taglen = 128]\n\n";

fn gcm_decrypt(tag: &str, fail: bool) -> String {
    format!(
        "{GCM_HEADER}Count = 0\nKey = cf063a34d4a9a76c2c86787d3f96db71\nIV = 113b9785971864c83b01c787\n\
         CT = \nAAD = \nTag = {tag}\n{}\n",
        if fail { "FAIL" } else { "PT = " }
    )
}

const GOOD_TAG: &str = "72ac8493e3a5228b5d130a69d2510e42";
const BAD_TAG: &str = "72ac8493e3a5228b5d130a69d2510e43";

#[test]
fn cavp_gcm_decrypt_verdicts() {
    let good = run(Profile::Default, "good.rsp", &gcm_decrypt(GOOD_TAG, false));
    assert_eq!(good.format, Format::Cavp);
    assert_eq!(counts(&good), (1, 0, 0));

    // A corrupted tag not marked FAIL must be counted as failed, naming the vector.
    let corrupted = run(
        Profile::Fips1403,
        "corrupt.rsp",
        &gcm_decrypt(BAD_TAG, false),
    );
    assert_eq!(counts(&corrupted), (0, 1, 0));
    assert!(
        corrupted.failures[0].starts_with("COUNT 0 (line 10): valid vector rejected"),
        "{:?}",
        corrupted.failures
    );

    // FAIL vectors pass only when rejected.
    let expected_failure = run(Profile::Default, "fail.rsp", &gcm_decrypt(BAD_TAG, true));
    assert_eq!(counts(&expected_failure), (1, 0, 0));
    let wrongly_marked = run(Profile::Default, "fail.rsp", &gcm_decrypt(GOOD_TAG, true));
    assert_eq!(counts(&wrongly_marked), (0, 1, 0));
    assert!(wrongly_marked.failures[0].contains("must be rejected"));
}

#[test]
fn cavp_gcm_encrypt_needs_a_policy_that_allows_caller_nonces() {
    let text = "# CAVS 14.0\n# GCM Encrypt with keysize 128 test information\n\n\
        [Keylen = 128]\n[IVlen = 96]\n[PTlen = 0]\n[AADlen = 0]\n[Taglen = 128]\n\n\
        Count = 0\nKey = 11754cd72aec309bf52f7687212e8957\nIV = 3c819d9a9bed087615030b65\n\
        PT = \nAAD = \nCT = \nTag = 250327c674aaf477aef2675748cf6971\n\n\
        Count = 1\nKey = 11754cd72aec309bf52f7687212e8957\nIV = 3c819d9a9bed0876\n\
        PT = \nAAD = \nCT = \nTag = 250327c674aaf477aef2675748cf6971\n";
    let default = run(Profile::Default, "enc.rsp", text);
    assert_eq!(counts(&default), (1, 0, 1));
    assert_eq!(
        default
            .skip_reasons
            .get("unsupported parameter: 64-bit GCM IV"),
        Some(&1)
    );
    let fips = run(Profile::Fips1403, "enc.rsp", text);
    assert_eq!(counts(&fips), (0, 0, 2));
    assert_eq!(
        fips.skip_reasons.get("not approved by policy fips-140-3"),
        Some(&1)
    );
}

// ---- ECDSA SigVer (from SigVer.rsp [P-256,SHA-256]) ----

const SIGVER_PASS: &str = "Msg = e1130af6a38ccb412a9c8d13e15dbfc9e69a16385af3c3f1e5da954fd5e7c45fd75e2b8c36699228e92840c0562fbf3772f07e17f1add56588dd45f7450e1217ad239922dd9c32695dc71ff2424ca0dec1321aa47064a044b7fe3c2b97d03ce470a592304c5ef21eed9f93da56bb232d1eeb0035f9bf0dfafdcc4606272b20a3
Qx = e424dc61d4bb3cb7ef4344a7f8957a0c5134e16f7a67c074f82e6e12f49abf3c
Qy = 970eed7aa2bc48651545949de1dddaf0127e5965ac85d1243d6f60e7dfaee927
R = bf96b99aa49c705c910be33142017c642ff540c76349b9dab72f981fd9347f4f
S = 17c55095819089c2e03b9cd415abdf12444e323075d98f31920b9e0f57ec871c
";

const SIGVER_FAIL: &str = "Msg = e4796db5f785f207aa30d311693b3702821dff1168fd2e04c0836825aefd850d9aa60326d88cde1a23c7745351392ca2288d632c264f197d05cd424a30336c19fd09bb229654f0222fcb881a4b35c290a093ac159ce13409111ff0358411133c24f5b8e2090d6db6558afc36f06ca1f6ef779785adba68db27a409859fc4c4a0
Qx = 87f8f2b218f49845f6f10eec3877136269f5c1a54736dbdf69f89940cad41555
Qy = e15f369036f49842fac7a86c8a2b0557609776814448b8f5e84aa9f4395205e9
R = d19ff48b324915576416097d2544f7cbdf8768b1454ad20e0baac50e211f23b0
S = a3e81e59311cdfff2d4784949f7a2cb50ba6c3a91fa54710568e61aca3e847c6
";

#[test]
fn sigver_results_are_respected() {
    let header = "#  CAVS 11.0\n#  \"SigVer\" information\n\n[P-256,SHA-256]\n\n";
    let right = format!(
        "{header}{SIGVER_PASS}Result = P (0 )\n\n{SIGVER_FAIL}Result = F (3 - S changed)\n"
    );
    assert_eq!(
        counts(&run(Profile::Fips1403, "sigver.rsp", &right)),
        (2, 0, 0)
    );
    let swapped = format!(
        "{header}{SIGVER_PASS}Result = F (3 - S changed)\n\n{SIGVER_FAIL}Result = P (0 )\n"
    );
    let report = run(Profile::Default, "sigver.rsp", &swapped);
    assert_eq!(counts(&report), (0, 2, 0));
    // Another hash on the same curve is a skip with its reason, never a pass.
    let other_hash = format!("#  CAVS 11.0\n\n[P-256,SHA-512]\n\n{SIGVER_PASS}Result = P (0 )\n");
    let report = run(Profile::Default, "sigver.rsp", &other_hash);
    assert_eq!(counts(&report), (0, 0, 1));
    assert!(
        report
            .skip_reasons
            .keys()
            .all(|reason| reason.starts_with("unsupported parameter: ECDSA P-256 with sha512"))
    );
}

// ---- cryptography-vectors text (CMAC, from nist-800-38b-aes128.txt COUNT 0) ----

#[test]
fn cmac_text_with_a_wrong_tag_fails() {
    let text = |tag: &str| {
        format!(
            "# AES-128-CMAC Test Vectors\n# NIST SP_800-38B\n\nCOUNT = 0\n\
             KEY = 2b7e151628aed2a6abf7158809cf4f3c\nMESSAGE =\nOUTPUT = {tag}\n"
        )
    };
    let good = run(
        Profile::Default,
        "cmac.txt",
        &text("bb1d6929e95937287fa37d129b756746"),
    );
    assert_eq!(good.format, Format::NistText);
    assert_eq!(counts(&good), (1, 0, 0));
    let bad = run(
        Profile::Default,
        "cmac.txt",
        &text("bb1d6929e95937287fa37d129b756747"),
    );
    assert_eq!(counts(&bad), (0, 1, 0));
    assert!(bad.failures[0].starts_with("COUNT 0 (line 4)"));
}

// ---- CAVP HMAC.rsp shape (RFC 4231 test case 2 written as CAVP, truncated to 16 bytes) ----

#[test]
fn cavp_hmac_truncated_tags_and_policy_limits() {
    let text = |mac: &str| {
        format!(
            "#  CAVS 11.0\n#  \"HMAC\" information\n\n[L=32]\n\nCount = 0\nKlen = 4\nTlen = 16\n\
             Key = 4a656665\nMsg = 7768617420646f2079612077616e7420666f72206e6f7468696e673f\n\
             Mac = {mac}\n"
        )
    };
    let good = text("5bdcc146bf60754e6a042426089575c7");
    assert_eq!(counts(&run(Profile::Default, "HMAC.rsp", &good)), (1, 0, 0));
    let bad = text("5bdcc146bf60754e6a042426089575c8");
    assert_eq!(counts(&run(Profile::Default, "HMAC.rsp", &bad)), (0, 1, 0));
    // A 4-byte key is below FIPS 140-3's 112-bit minimum: skipped, not passed.
    let fips = run(Profile::Fips1403, "HMAC.rsp", &good);
    assert_eq!(counts(&fips), (0, 0, 1));
    assert_eq!(
        fips.skip_reasons.get("not approved by policy fips-140-3"),
        Some(&1)
    );
}

// ---- OpenSSL / Tongsuo evp_test ----

#[test]
fn evp_digest_with_a_wrong_output_fails_and_an_unoffered_one_is_skipped() {
    let text = "Title = test\n\nDigest = SHA256\nInput = \"abc\"\n\
        Output = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\n\
        Digest = SHA256\nInput = \"abc\"\n\
        Output = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ae\n\n\
        Digest = SHA512-224\nInput = 616263\n\
        Output = 4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa\n";
    let report = run(Profile::Default, "digest-evp.txt", text);
    assert_eq!(report.format, Format::EvpTest);
    assert_eq!(counts(&report), (1, 1, 1));
    assert!(report.failures[0].starts_with("stanza at line 7"));
    assert_eq!(
        report
            .skip_reasons
            .get("algorithm not offered by this module: sha512-224"),
        Some(&1)
    );
}

// ---- Wycheproof JSON ----

fn wycheproof_gcm(ct: &str, tag: &str, result: &str) -> String {
    format!(
        r#"{{"algorithm": "AES-GCM", "numberOfTests": 1, "testGroups": [{{
            "type": "AeadTest", "ivSize": 96, "keySize": 128, "tagSize": 128, "tests": [{{
            "tcId": 7, "comment": "", "flags": [],
            "key": "000102030405060708090a0b0c0d0e0f", "iv": "6465666768696a6b6c6d6e6f",
            "aad": "726567756c61", "msg": "766563746f722072756e6e65722074657374206d657373616765",
            "ct": "{ct}", "tag": "{tag}", "result": "{result}"}}]}}]}}"#
    )
}

const CT: &str = "6c072dd1b4709888ee503975f4ea5f8943fc5892f7daae3b930a";
const WRONG_CT: &str = "6c072dd1b4709888ee503975f4ea5f8943fc5892f7daae3b930b";
const TAG: &str = "b0ec3e602060c776793fcf98dfdf6d4f";

#[test]
fn wycheproof_json_verdicts() {
    let good = run(
        Profile::Default,
        "w.json",
        &wycheproof_gcm(CT, TAG, "valid"),
    );
    assert_eq!(good.format, Format::Wycheproof);
    assert_eq!(counts(&good), (1, 0, 0));
    let wrong = run(
        Profile::Default,
        "w.json",
        &wycheproof_gcm(WRONG_CT, TAG, "valid"),
    );
    assert_eq!(counts(&wrong), (0, 1, 0));
    assert!(wrong.failures[0].starts_with("tcId 7: valid vector rejected"));
    // `invalid` passes only when rejected.
    let rejected = run(
        Profile::Default,
        "w.json",
        &wycheproof_gcm(WRONG_CT, TAG, "invalid"),
    );
    assert_eq!(counts(&rejected), (1, 0, 0));
    let accepted = run(
        Profile::Default,
        "w.json",
        &wycheproof_gcm(CT, TAG, "invalid"),
    );
    assert_eq!(counts(&accepted), (0, 1, 0));
    // `acceptable` passes either way, with a note.
    for ct in [CT, WRONG_CT] {
        let report = run(
            Profile::Default,
            "w.json",
            &wycheproof_gcm(ct, TAG, "acceptable"),
        );
        assert_eq!(counts(&report), (1, 0, 0));
        assert!(report.notes[0].contains("acceptable"));
    }
}

// ---- Ed25519 sign.input (RFC 8032 test 2, from cryptography-vectors) ----

const SIGN_INPUT: &str = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb\
3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c:\
3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c:72:\
92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da\
085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c0072:\n";

#[test]
fn ed25519_sign_input_checks_signing_and_verification() {
    let good = run(Profile::Fips1403, "sign.input", SIGN_INPUT);
    assert_eq!(good.format, Format::SignInput);
    assert_eq!(counts(&good), (1, 0, 0));
    // A different message under the same signature: verification must refuse it.
    let wrong = SIGN_INPUT.replace(":72:", ":73:");
    let report = run(Profile::Default, "sign.input", &wrong);
    assert_eq!(counts(&report), (0, 1, 0));
    assert!(report.failures[0].starts_with("line 1: valid vector rejected"));
    let error = run_source(
        &module(Profile::Default),
        "sign.input",
        &format!("{SIGN_INPUT}00:11\n"),
    )
    .unwrap_err();
    assert_eq!(error.line, 2);
}

// ---- malformed files ----

#[test]
fn malformed_files_name_file_and_line() {
    let module = module(Profile::Default);
    let bad_hex =
        format!("{GCM_HEADER}Count = 0\nKey = cf06zz\nIV = 00\nCT = \nAAD = \nTag = 00\nPT = \n");
    let error = run_source(&module, "bad.rsp", &bad_hex).unwrap_err();
    assert_eq!((error.path.as_str(), error.line), ("bad.rsp", 11));
    assert_eq!(error.kind, VectorErrorKind::Malformed);
    assert!(
        error
            .to_string()
            .starts_with("bad.rsp:11: `Key` is not hex"),
        "{error}"
    );

    let stray = "COUNT = 0\nKEY = 00\n\nthis line is not a vector\n";
    let error = run_source(&module, "stray.txt", stray).unwrap_err();
    assert_eq!(error.line, 4);
    assert!(error.to_string().contains("unrecognised line"));

    let unknown = "\n\nhello, world\n";
    let error = run_source(&module, "unknown.dat", unknown).unwrap_err();
    assert_eq!(
        (error.line, error.kind),
        (3, VectorErrorKind::UnknownFormat)
    );

    let json = "{\"algorithm\": \"AES-GCM\",\n \"testGroups\": [\n  {,}\n]}";
    let error = run_source(&module, "broken.json", json).unwrap_err();
    assert_eq!(error.line, 3);

    let evp = "Digest = SHA256\nInput = 00\nOutput: 00\n";
    let error = run_source(&module, "broken-evp.txt", evp).unwrap_err();
    assert_eq!(error.line, 3);

    let no_algorithm = "COUNT = 0\nFOO = 00\nBAR = 11\n";
    let error = run_source(&module, "what.txt", no_algorithm).unwrap_err();
    assert_eq!(error.line, 1);
    assert!(error.to_string().contains("cannot tell which algorithm"));
}

#[test]
fn directories_are_walked_and_non_vector_files_ignored() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "not vectors").unwrap();
    std::fs::write(dir.path().join("Readme.txt"), "not vectors either").unwrap();
    std::fs::write(dir.path().join("tool.py"), "print('hi')").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/a.rsp"), gcm_decrypt(GOOD_TAG, false)).unwrap();
    std::fs::write(
        dir.path().join("sub/Monte.txt"),
        "[L = 32]\n\nSeed = 00\n\nCOUNT = 0\n\ti = 3\n\tMDi = 00\n",
    )
    .unwrap();
    let reports = run_path(&module(Profile::Default), dir.path()).unwrap();
    let formats: Vec<Format> = reports.iter().map(|report| report.format).collect();
    assert_eq!(formats, [Format::NotVectors, Format::Cavp]);
    assert_eq!(counts(&reports[1]), (1, 0, 0));
}

// ---- built-in pass ----

#[test]
fn builtin_pass_is_clean_under_every_policy() {
    for profile in [Profile::Default, Profile::Fips1403, Profile::Gm] {
        let reports = run_builtin(&module(profile));
        assert!(!reports.is_empty());
        for report in &reports {
            assert_eq!(report.failed, 0, "{profile}: {:?}", report.failures);
            assert_eq!(
                report.total(),
                report.skip_reasons.values().sum::<u64>() + report.passed
            );
        }
        let passed: u64 = reports.iter().map(|report| report.passed).sum();
        if profile == Profile::Gm {
            // HMAC-SM3, SM4-GCM and SM4-CCM run; the API takes 96-bit nonces and 128-bit tags
            // only, so the other shapes are skipped with that reason.
            // (All 174 HMAC-SM3 tests and most of the 104 SM4-GCM and 184 SM4-CCM ones.)
            assert!(passed >= 300, "gm: only {passed} passed");
            assert!(reports.iter().all(|report| {
                report
                    .skip_reasons
                    .keys()
                    .all(|reason| reason.starts_with("unsupported parameter: "))
            }));
        } else {
            assert!(passed > 5000, "{profile}: only {passed} passed");
        }
    }
}

// ---- cryptography-vectors, when installed ----

fn cryptography_vectors() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("REGULA_CRYPTOGRAPHY_VECTORS") {
        let dir = PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            "import cryptography_vectors,os;print(os.path.dirname(cryptography_vectors.__file__))",
        ])
        .output()
        .ok()?;
    let dir = String::from_utf8(output.stdout).ok()?;
    let dir = PathBuf::from(dir.trim());
    (output.status.success() && dir.is_dir()).then_some(dir)
}

#[test]
fn cryptography_vectors_gcm_decrypt_and_sigver_all_right() {
    let Some(root) = cryptography_vectors() else {
        eprintln!(
            "SKIPPED: cryptography-vectors is not installed (pip install cryptography-vectors==50.0.2)"
        );
        return;
    };
    let module = module(Profile::Default);
    let files = [
        "ciphers/AES/GCM/gcmDecrypt128.rsp",
        "ciphers/AES/GCM/gcmDecrypt256.rsp",
        "asymmetric/ECDSA/FIPS_186-3/SigVer.rsp",
        "asymmetric/ECDSA/FIPS_186-3/PKV.rsp",
        "hashes/SHA2/SHA256Monte.rsp",
        "hashes/SHA3/SHA3_256Monte.rsp",
        "CMAC/nist-800-38b-aes128.txt",
        "KDF/rfc-5869-HKDF-SHA256.txt",
        "ciphers/ChaCha20Poly1305",
        "asymmetric/Ed25519/sign.input",
    ];
    for file in files {
        let reports = run_path(&module, &root.join(Path::new(file))).unwrap();
        for report in reports {
            assert_eq!(report.failed, 0, "{file}: {:?}", report.failures);
            assert!(report.passed > 0, "{file}: nothing ran");
        }
    }
}
