//! Known answers taken from NIST's recorded ACVP sets (Go's `acvp-testdata` module,
//! v0.0.0-20251201200548-d893de8b8b1c: `vectors/` and `expected/` files named below); the
//! expected answers are NIST's, not produced by this code.

use serde_json::{Value, json};

use super::*;

fn module(policy: &str) -> Module {
    Module::load_named(policy).expect("built-in policy")
}

fn set(algorithm: &str, groups: Value) -> Value {
    json!([{"acvVersion": "1.0"}, {"vsId": 1, "algorithm": algorithm, "revision": "1.0", "testGroups": groups}])
}

fn run(policy: &str, prompt: Value, expected: Value) -> Vec<AcvpRow> {
    run_json(&module(policy), "test", &prompt, &expected).expect("well-formed sets")
}

fn only(rows: &[AcvpRow]) -> &AcvpRow {
    assert_eq!(rows.len(), 1, "{rows:?}");
    &rows[0]
}

/// SHA3-256 tgId 1 tcId 11 (AFT, 504-bit message).
fn sha3_256(md: &str) -> (Value, Value) {
    (
        set(
            "SHA3-256",
            json!([{"tgId": 1, "testType": "AFT", "tests": [{"tcId": 11, "len": 504,
                "msg": "6B21B1E705D923A3EACBD7626B7454A8F07025025A7D4AB4BC9D1688FFC7649F545A86139C5F317B0A166F3F3D0AE1F8A306D3D8CB6259F2354D4737552EB9"}]}]),
        ),
        set(
            "SHA3-256",
            json!([{"tgId": 1, "tests": [{"tcId": 11, "md": md}]}]),
        ),
    )
}

#[test]
fn sha3_aft_passes_and_a_mutated_answer_fails() {
    let (prompt, expected) =
        sha3_256("88085177e4122e62f3acb3c45f572b2058f5acd1445827fdcf16fe82cb52982c");
    let rows = run("fips-140-3", prompt, expected);
    let row = only(&rows);
    assert_eq!(
        (row.algorithm.as_str(), row.test_type.as_str()),
        ("SHA3-256", "AFT")
    );
    assert_eq!((row.passed, row.failed, row.skipped), (1, 0, 0));

    // The same answer with its last bit flipped.
    let (prompt, expected) =
        sha3_256("88085177e4122e62f3acb3c45f572b2058f5acd1445827fdcf16fe82cb52982d");
    let rows = run("fips-140-3", prompt, expected);
    let row = only(&rows);
    assert_eq!((row.passed, row.failed, row.skipped), (0, 1, 0));
    assert!(row.failures[0].starts_with("tgId 1 tcId 11"), "{row:?}");
}

/// HMAC-SHA2-256 tgId 3 tcId 161: an 8-bit key, which FIPS 140-3 refuses (SP 800-131A's
/// 112-bit floor) and the default policy serves.
#[test]
fn hmac_answers_and_policy_refusals_are_skips() {
    let prompt = set(
        "HMAC-SHA2-256",
        json!([{"tgId": 3, "testType": "AFT", "keyLen": 8, "macLen": 256, "msgLen": 128,
            "tests": [{"tcId": 161, "key": "C0", "msg": "F3E6F1BABA286D90A8A2F62D26770CD1"}]}]),
    );
    let expected = set(
        "HMAC-SHA2-256",
        json!([{"tgId": 3, "tests": [{"tcId": 161,
            "mac": "df36953967a3c6da35aea0891779e86c80479e21f7d88420603dc498a2e4d3ad"}]}]),
    );
    let rows = run("default", prompt.clone(), expected.clone());
    assert_eq!((only(&rows).passed, only(&rows).failed), (1, 0), "{rows:?}");
    let rows = run("fips-140-3", prompt, expected);
    let row = only(&rows);
    assert_eq!((row.passed, row.failed, row.skipped), (0, 0, 1), "{row:?}");
    assert_eq!(
        row.skip_reasons.get("not approved by policy fips-140-3"),
        Some(&1),
        "{row:?}"
    );
}

/// ACVP-AES-CBC tgId 1 tcId 7 (encrypt) and CMAC-AES tgId 1 tcId 8 (gen), tgId 7 tcId 59
/// (ver, `testPassed: true`); the same ver case with one bit of its tag flipped must be
/// refused, and is counted as passed only because it is.
#[test]
fn cbc_and_cmac_known_answers() {
    let prompt = set(
        "ACVP-AES-CBC",
        json!([{"tgId": 1, "testType": "AFT", "direction": "encrypt", "keyLen": 128,
            "tests": [{"tcId": 7, "key": "00000000000000000000000000000000",
                "iv": "00000000000000000000000000000000", "pt": "58C8E00B2631686D54EAB84B91F0ACA1"}]}]),
    );
    let expected = set(
        "ACVP-AES-CBC",
        json!([{"tgId": 1, "tests": [{"tcId": 7, "ct": "08a4e2efec8a8e3312ca7460b9040bbf"}]}]),
    );
    let rows = run("fips-140-3", prompt, expected);
    assert_eq!((only(&rows).passed, only(&rows).failed), (1, 0), "{rows:?}");

    let cmac = |mac: &str, passed: bool| {
        (
            set(
                "CMAC-AES",
                json!([
                    {"tgId": 1, "testType": "AFT", "direction": "gen", "keyLen": 128, "macLen": 128,
                     "msgLen": 0, "tests": [{"tcId": 8, "key": "931FB0B3465DA3CA786FA0EF0BC53856", "message": ""}]},
                    {"tgId": 7, "testType": "AFT", "direction": "ver", "keyLen": 128, "macLen": 128,
                     "msgLen": 0, "tests": [{"tcId": 59, "key": "422D51782A626C6180FDB45AFCBF47F0",
                     "mac": mac, "message": ""}]}
                ]),
            ),
            set(
                "CMAC-AES",
                json!([
                    {"tgId": 1, "tests": [{"tcId": 8, "mac": "cae6f6fe6c19b5faf6183490d3958feb"}]},
                    {"tgId": 7, "tests": [{"tcId": 59, "testPassed": passed}]}
                ]),
            ),
        )
    };
    let (prompt, expected) = cmac("D21AAA1FF7F0EAAC3121DEEDBC893154", true);
    let rows = run("fips-140-3", prompt, expected);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows.iter().all(|row| row.passed == 1 && row.failed == 0),
        "{rows:?}"
    );
    // A flipped tag that the recorded answer still calls good: the module refuses it, so
    // the case fails.
    let (prompt, expected) = cmac("D21AAA1FF7F0EAAC3121DEEDBC893155", true);
    let rows = run("fips-140-3", prompt, expected);
    assert_eq!(rows[1].failed, 1, "{rows:?}");
    // The same flipped tag answered `testPassed: false`: refusing it passes.
    let (prompt, expected) = cmac("D21AAA1FF7F0EAAC3121DEEDBC893155", false);
    let rows = run("fips-140-3", prompt, expected);
    assert_eq!((rows[1].passed, rows[1].failed), (1, 0), "{rows:?}");
}

/// ACVP-AES-GCM tgId 17 tcId 251 (encrypt, empty plaintext, AES-256). Under fips-140-3 the
/// caller's IV is refused: a skip with the policy's reason. Run as a decryption, NIST's tag
/// must open, and a flipped tag must be refused (`testPassed: false`).
#[test]
fn gcm_encrypt_is_a_policy_skip_and_decrypt_checks_tags() {
    let key = "179BC9E1B0C6699E045C8B06DC1E6CD62084B4E3BAA1BF6275DE161F6F85F549";
    let group = |direction: &str, test: Value| {
        json!([{"tgId": 17, "testType": "AFT", "direction": direction, "ivGen": "external",
            "ivLen": 96, "keyLen": 256, "tagLen": 128, "payloadLen": 0, "aadLen": 0, "tests": [test]}])
    };
    let prompt = set(
        "ACVP-AES-GCM",
        group(
            "encrypt",
            json!({"tcId": 251, "key": key, "iv": "BEC101F97EC77F957DFDE8D9", "aad": "", "pt": ""}),
        ),
    );
    let expected = set(
        "ACVP-AES-GCM",
        json!([{"tgId": 17, "tests": [{"tcId": 251, "ct": "", "tag": "b748b73140453c30e27c41d0ca3de697"}]}]),
    );
    let rows = run("fips-140-3", prompt.clone(), expected.clone());
    let row = only(&rows);
    assert_eq!((row.passed, row.failed, row.skipped), (0, 0, 1), "{row:?}");
    assert!(
        row.skip_reasons
            .keys()
            .all(|reason| reason.starts_with("not approved by policy fips-140-3")),
        "{row:?}"
    );
    let rows = run("default", prompt, expected);
    assert_eq!((only(&rows).passed, only(&rows).failed), (1, 0), "{rows:?}");

    let decrypt = |tag: &str, answer: Value| {
        run(
            "fips-140-3",
            set(
                "ACVP-AES-GCM",
                group(
                    "decrypt",
                    json!({"tcId": 251, "key": key, "iv": "BEC101F97EC77F957DFDE8D9", "aad": "",
                        "ct": "", "tag": tag}),
                ),
            ),
            set("ACVP-AES-GCM", json!([{"tgId": 17, "tests": [answer]}])),
        )
    };
    let good = "B748B73140453C30E27C41D0CA3DE697";
    let flipped = "B748B73140453C30E27C41D0CA3DE696";
    let rows = decrypt(good, json!({"tcId": 251, "pt": ""}));
    assert_eq!((only(&rows).passed, only(&rows).failed), (1, 0), "{rows:?}");
    let rows = decrypt(flipped, json!({"tcId": 251, "testPassed": false}));
    assert_eq!((only(&rows).passed, only(&rows).failed), (1, 0), "{rows:?}");
    let rows = decrypt(flipped, json!({"tcId": 251, "pt": ""}));
    assert_eq!((only(&rows).passed, only(&rows).failed), (0, 1), "{rows:?}");
    let rows = decrypt(good, json!({"tcId": 251, "testPassed": false}));
    assert_eq!((only(&rows).passed, only(&rows).failed), (0, 1), "{rows:?}");
}

#[test]
fn sets_not_answered_yet_are_skipped_with_a_reason() {
    let prompt = set(
        "ML-KEM",
        json!([{"tgId": 1, "testType": "AFT", "tests": [{"tcId": 1}]}]),
    );
    let expected = set("ML-KEM", json!([{"tgId": 1, "tests": [{"tcId": 1}]}]));
    let rows = run("fips-140-3", prompt, expected);
    let row = only(&rows);
    assert_eq!((row.passed, row.failed, row.skipped), (0, 0, 1));
    assert_eq!(row.skip_reasons.get(NOT_YET), Some(&1));
}

#[test]
fn malformed_cases_are_errors_naming_the_case() {
    let prompt = set(
        "SHA2-256",
        json!([{"tgId": 4, "testType": "AFT", "tests": [{"tcId": 9, "len": 8, "msg": "zz"}]}]),
    );
    let expected = set(
        "SHA2-256",
        json!([{"tgId": 4, "tests": [{"tcId": 9, "md": "00"}]}]),
    );
    let error = run_json(&module("default"), "f.json", &prompt, &expected).unwrap_err();
    assert!(error.to_string().contains("tgId 4 tcId 9"), "{error}");
    assert!(error.to_string().contains("not hex"), "{error}");
}

/// LDT through the streaming digest: FIPS 180-4's example of one million `a` (SHA-256
/// cdc76e5c…, NIST's "SHA256.pdf" example values), framed as an ACVP large-data case.
#[test]
fn ldt_streams_the_expanded_message() {
    let case_of = |content: &str, full_bits: u64, md: &str| {
        let prompt = set(
            "SHA2-256",
            json!([{"tgId": 3, "testType": "LDT", "tests": [{"tcId": 1,
                "largeMsg": {"content": content, "contentLength": content.len() * 4,
                    "fullLength": full_bits, "expansionTechnique": "repeating"}}]}]),
        );
        let expected = set(
            "SHA2-256",
            json!([{"tgId": 3, "tests": [{"tcId": 1, "md": md}]}]),
        );
        run("fips-140-3", prompt, expected)
    };
    let case = |md: &str| case_of("6161616161", 8_000_000, md);
    let rows = case("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    assert_eq!((only(&rows).passed, only(&rows).failed), (1, 0), "{rows:?}");
    let rows = case("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd1");
    assert_eq!((only(&rows).passed, only(&rows).failed), (0, 1), "{rows:?}");
    // Three million `a`: more than one 1 MiB buffer and a remainder (answer from Python's
    // hashlib, an independent SHA-256).
    let rows = case_of(
        "61",
        24_000_000,
        "2a152c894398719c0570f83fac34ac03a0f6e8e474b995c2403aa5434f7b9dd4",
    );
    assert_eq!((only(&rows).passed, only(&rows).failed), (1, 0), "{rows:?}");
}
