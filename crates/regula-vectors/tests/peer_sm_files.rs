//! OpenSSL's and Tongsuo's own SM test files (`test/recipes/30-test_evp_data/`, copies in
//! `tests/data/{openssl,tongsuo}/`, see the README there) run whole under the default policy:
//! no stanza may fail, and none may be skipped.

use std::path::Path;

use regula::{Module, Policy, Profile};
use regula_vectors::run_path;

#[test]
fn peer_sm_files_run_whole() {
    let module = Module::load(Policy::builtin(Profile::Default));
    for peer in ["openssl", "tongsuo"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(peer);
        let reports = run_path(&module, &dir).unwrap_or_else(|error| panic!("{peer}: {error}"));
        assert_eq!(reports.len(), 4, "{peer}: four SM files");
        for report in &reports {
            eprintln!(
                "{}: {} passed, {} failed, {} skipped {:?}",
                report.path, report.passed, report.failed, report.skipped, report.skip_reasons
            );
            assert_eq!(report.failed, 0, "{}: {:?}", report.path, report.failures);
            assert!(report.passed > 0, "{}", report.path);
            assert_eq!(
                report.skipped, 0,
                "{}: {:?}",
                report.path, report.skip_reasons
            );
        }
    }
}

/// A stanza the reader cannot check (a MAC without `Output`, a stanza kind Regula does not
/// serve) is skipped with its reason; the stanzas after it still run.
#[test]
fn a_stanza_without_output_is_skipped_not_fatal() {
    let module = Module::load(Policy::builtin(Profile::Default));
    let text = "MAC = HMAC\nAlgorithm = SM3\nKey = 00\nInput = 00\n\n\
                PrivPubKeyPair = a:b\n\n\
                Digest = SM3\nInput = 616263\n\
                Output = 66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0\n";
    let report = regula_vectors::run_source(&module, "partial.txt", text).unwrap();
    assert_eq!((report.passed, report.failed, report.skipped), (1, 0, 2));
    assert!(
        report
            .skip_reasons
            .keys()
            .any(|reason| reason.contains("`Output`")),
        "{:?}",
        report.skip_reasons
    );
}

/// The SM2 digest verification can fail: a changed digest bit in OpenSSL's first Verify stanza
/// must fail it, and passes only when the stanza says it expects an error.
#[test]
fn a_changed_sm2_digest_fails_verification() {
    let module = Module::load(Policy::builtin(Profile::Default));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/openssl/evppkey_sm2.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let original =
        "Input = D7AD397F6FFA5D4F7F11E7217F241607DC30618C236D2C09C1B9EA8FDADEE2E8\nOutput";
    assert!(text.contains(original));
    let changed =
        "Input = D7AD397F6FFA5D4F7F11E7217F241607DC30618C236D2C09C1B9EA8FDADEE2E9\nOutput";
    let report =
        regula_vectors::run_source(&module, "changed.txt", &text.replacen(original, changed, 1))
            .unwrap();
    assert_eq!(report.failed, 1, "{:?}", report.failures);
    let expected_error = text.replacen(
        original,
        &changed.replace("\nOutput", "\nResult = VERIFY_ERROR\nOutput"),
        1,
    );
    let report = regula_vectors::run_source(&module, "expected.txt", &expected_error).unwrap();
    assert_eq!(report.failed, 0, "{:?}", report.failures);
}

/// OpenSSL's SM2 Verify over a SHA-512 digest (e = the 64-byte digest modulo n) fails when a
/// digest bit changes; Tongsuo's copy of the stanza, which expects the digest control to be
/// refused, fails if the reader verified it instead.
#[test]
fn the_sha512_sm2_stanza_can_fail() {
    let module = Module::load(Policy::builtin(Profile::Default));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let openssl = std::fs::read_to_string(dir.join("openssl/evppkey_sm2.txt")).unwrap();
    let original = "Input = 40AA1B203C9D8EE150B21C3C7CDA8261492E5420C5F2B9F7380700E094C303B48E62F319C1DA0E32EB40D113C5F1749CC61AEB499167890AB82F2CC9BB706971";
    assert!(openssl.contains(original));
    let changed = original.replace("6971", "6970");
    let report = regula_vectors::run_source(
        &module,
        "sha512.txt",
        &openssl.replacen(original, &changed, 1),
    )
    .unwrap();
    assert_eq!(report.failed, 1, "{:?}", report.failures);

    // Tongsuo's stanza without its `Result = PKEY_CTRL_ERROR` is OpenSSL's: it verifies.
    let tongsuo = std::fs::read_to_string(dir.join("tongsuo/evppkey_sm2.txt")).unwrap();
    let without = tongsuo.replacen("Result = PKEY_CTRL_ERROR\n", "", 1);
    assert_ne!(without, tongsuo);
    let report = regula_vectors::run_source(&module, "tongsuo.txt", &without).unwrap();
    assert_eq!(
        (report.failed, report.skipped),
        (0, 0),
        "{:?}",
        report.failures
    );
}

/// The Sign stanza over a given digest passes only because a fresh signature differs from the
/// file's: without the stanza's `Result = KEYOP_MISMATCH` it fails.
#[test]
fn the_sm2_sign_stanza_expects_a_mismatch() {
    let module = Module::load(Policy::builtin(Profile::Default));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/openssl/evppkey_sm2.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let without = text.replacen("Result = KEYOP_MISMATCH\n", "", 1);
    assert_ne!(without, text);
    let report = regula_vectors::run_source(&module, "sign.txt", &without).unwrap();
    assert_eq!(report.failed, 1, "{:?}", report.failures);
    assert!(
        report
            .failures
            .iter()
            .any(|failure| failure.contains("differs")),
        "{:?}",
        report.failures
    );
}
