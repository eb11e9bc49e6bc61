//! Fail-closed behaviour, end to end: for every self-test in `regula::selftest::list()`, a
//! child process of this test binary runs with `REGULA_BREAK_SELFTEST=<name>` and checks that
//! the module refuses everything (CASTs at load; PCTs from the first key generation of a
//! covered algorithm on). Go's `failfipscast` loop is the model.
//!
//! The child test is a no-op without the variable; the parent checks that it really ran by
//! looking for its marker line on stdout.

mod common;

use std::collections::BTreeSet;
use std::process::Command;
use std::time::Instant;

use common::{exercise, unhex};
use regula::selftest::{self, Runner, SelfTestKind, Trigger};
use regula::{
    Algorithm, BREAK_SELFTEST_ENV, Error, Family, IndicatorState, Module, ModuleState, Policy,
    Profile,
};

/// The child test's name, for `--exact`.
const CHILD: &str = "child_with_broken_selftest";
/// For a PCT: the algorithm whose key generation must trip it.
const ENV_ALGORITHM: &str = "REGULA_TEST_PCT_ALGORITHM";
/// The built-in profile the child loads (default: `default`, which serves everything).
const ENV_PROFILE: &str = "REGULA_TEST_PROFILE";
/// `operational` when the broken test must not run at all under the child's profile.
const ENV_EXPECT: &str = "REGULA_TEST_EXPECT";
const MARKER: &str = "REGULA-BREAK-SELFTEST-CHILD-OK";

/// RFC 8410 PKCS#8 of the RFC 8032 test 1 seed: a key to import in the error state.
const ED25519_PKCS8: &str = "302e020100300506032b657004220420\
                             9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

fn assert_in_error_state(error: Error, name: &str, what: &str) {
    assert_eq!(
        error,
        Error::ModuleInErrorState {
            failed_test: name.to_string()
        },
        "{what}"
    );
}

/// Every entry point of every family refuses with `ModuleInErrorState` naming the test.
fn assert_refuses_everything(module: &Module, name: &str) {
    assert_eq!(module.state(), ModuleState::Error);
    assert_eq!(module.failed_test(), Some(name));
    for algorithm in Algorithm::ALL {
        match exercise(module, algorithm) {
            Err(error) => assert_in_error_state(error, name, algorithm.name()),
            Ok(indicators) => panic!("{algorithm} was served in the error state: {indicators:?}"),
        }
    }
    let refusals: Vec<(&str, Error)> = vec![
        (
            "digest_context",
            module
                .digest_context(Algorithm::Sha256)
                .expect_err("digest_context refused"),
        ),
        (
            "signing_key_from_pkcs8",
            module
                .signing_key_from_pkcs8(Algorithm::Ed25519, &unhex(ED25519_PKCS8))
                .unwrap_err(),
        ),
        (
            "verify",
            module
                .verify(Algorithm::Ed25519, &[0; 32], b"", &[0; 64])
                .unwrap_err(),
        ),
        (
            "encapsulate",
            module
                .encapsulate(Algorithm::MlKem768, &[0; 1184])
                .unwrap_err(),
        ),
        ("fill_random", module.fill_random(&mut [0; 8]).unwrap_err()),
    ];
    for (what, error) in refusals {
        assert_in_error_state(error, name, what);
    }
    // Other handles on the same module refuse too.
    let scope = module.scope();
    assert_in_error_state(
        scope.digest(Algorithm::Sha256, b"abc").unwrap_err(),
        name,
        "a fresh scope",
    );
    assert_eq!(scope.indicator_state(), IndicatorState::Unset);
}

/// The key size to ask for: RSA's modulus; fixed-size keys take none.
fn rsa_bits(algorithm: Algorithm) -> Option<u32> {
    algorithm.name().starts_with("rsa-").then_some(2048)
}

fn generate(module: &Module, algorithm: Algorithm) -> Result<(), Error> {
    match algorithm.family() {
        Family::Signature => module
            .generate_signing_key(algorithm, rsa_bits(algorithm))
            .map(drop),
        Family::KeyAgreement => module.generate_agreement_key(algorithm).map(drop),
        Family::Kem => module.generate_kem_key(algorithm).map(drop),
        Family::PublicKeyEncryption => module.generate_decryption_key(algorithm).map(drop),
        other => panic!("{algorithm} ({other}) has no key generation"),
    }
}

/// A CAST runs before the first use of an algorithm it covers, not at load: the module loads
/// operational with no CAST run; the first request for a covered algorithm runs the broken
/// CAST, fails, and from then on the module refuses everything.
fn child_cast(module: &Module, name: &str, covered: &[Algorithm]) {
    assert_eq!(
        module.state(),
        ModuleState::Operational,
        "CAST {name} ran at load"
    );
    assert_eq!(module.failed_test(), None);
    let status = module.self_test_status();
    assert!(
        status.iter().any(|test| test.name == name),
        "{name} does not apply: {status:?}"
    );
    assert!(
        status.iter().all(|test| test.result.is_none()),
        "a CAST ran at load: {status:?}"
    );
    let algorithm = covered
        .iter()
        .copied()
        .find(|&algorithm| module.policy().serves(algorithm))
        .expect("the policy serves an algorithm the CAST covers");
    // Key generation where there is one (`exercise` would import a shared RSA key made by
    // another module of this process, which would fail the same CAST).
    let first_use = match algorithm.family() {
        Family::Signature | Family::KeyAgreement | Family::Kem | Family::PublicKeyEncryption => {
            generate(module, algorithm).map(|()| Vec::new())
        }
        _ => exercise(module, algorithm),
    };
    match first_use {
        Err(error) => assert_in_error_state(error, name, "the first use of a covered algorithm"),
        Ok(indicators) => panic!("{algorithm} was served although {name} failed: {indicators:?}"),
    }
    assert_eq!(module.state(), ModuleState::Error);
    assert_eq!(module.failed_test(), Some(name));
    let ran: Vec<_> = module
        .self_test_status()
        .into_iter()
        .filter_map(|test| test.result)
        .collect();
    let broken: Vec<_> = ran.iter().filter(|result| !result.passed).collect();
    assert_eq!(broken.len(), 1, "{ran:?}");
    assert_eq!(broken[0].name, name);
    assert_eq!(broken[0].ran, Trigger::FirstUse);
    assert_refuses_everything(module, name);
    let results = module.run_self_tests();
    let broken: Vec<_> = results.iter().filter(|result| !result.passed).collect();
    assert_eq!(broken.len(), 1, "{results:?}");
    assert_eq!(broken[0].name, name);
    assert!(module.counters().is_empty());
    assert_eq!(module.indicator_state(), IndicatorState::Unset);
}

/// A generated key of `family` whose generation does not run the PCT under test.
fn unrelated(family: Family, covered: &[Algorithm]) -> Option<Algorithm> {
    Algorithm::ALL
        .into_iter()
        .find(|algorithm| algorithm.family() == family && !covered.contains(algorithm))
}

fn child_pct(module: &Module, name: &str, algorithm: Algorithm, covered: &[Algorithm]) {
    assert_eq!(
        module.state(),
        ModuleState::Operational,
        "PCT {name} at load"
    );
    assert_eq!(module.failed_test(), None);
    assert!(module.run_self_tests().iter().all(|result| result.passed));
    // Services work until the PCT runs, including key generation not covered by it.
    module.digest(Algorithm::Sha256, b"abc").unwrap();
    let signature_algorithm = unrelated(Family::Signature, covered).expect("a signature");
    let earlier_key = module
        .generate_signing_key(signature_algorithm, rsa_bits(signature_algorithm))
        .unwrap()
        .into_value();
    earlier_key.sign(b"before").unwrap();
    // Keys and contexts bound before the failure.
    let mut digest = module.digest_context(Algorithm::Sha256).unwrap();
    digest.update(b"started before the failure");
    let mac = module.mac_key(Algorithm::HmacSha256, &[1; 32]).unwrap();
    let aead = module.aead_key(Algorithm::Aes256Gcm, &[2; 32]).unwrap();
    let sealed = aead.seal(b"", b"before").unwrap().into_value();
    let cipher = module.cipher_key(Algorithm::Aes128Cbc, &[3; 16]).unwrap();
    let encrypted = cipher.encrypt(None, b"before").unwrap().into_value();
    let agreement = unrelated(Family::KeyAgreement, covered)
        .map(|other| module.generate_agreement_key(other).unwrap().into_value());
    let kem = unrelated(Family::Kem, covered)
        .map(|other| module.generate_kem_key(other).unwrap().into_value());

    let error = generate(module, algorithm).unwrap_err();
    assert_in_error_state(error, name, "the key generation that ran the PCT");

    assert_in_error_state(digest.finish().unwrap_err(), name, "digest started before");
    assert_in_error_state(mac.sign(b"m").unwrap_err(), name, "mac key");
    assert_in_error_state(aead.seal(b"", b"m").unwrap_err(), name, "aead seal");
    let mut buffer = sealed.ciphertext.clone();
    assert_in_error_state(
        aead.open_in_place(&sealed.nonce, b"", &mut buffer)
            .unwrap_err(),
        name,
        "aead open",
    );
    assert!(
        buffer.is_empty(),
        "no plaintext released in the error state"
    );
    assert_in_error_state(
        cipher
            .decrypt(&encrypted.iv, &encrypted.ciphertext)
            .unwrap_err(),
        name,
        "cipher decrypt",
    );
    let mut in_place = b"after".to_vec();
    assert_in_error_state(
        cipher
            .encrypt_in_place(&encrypted.iv, &mut in_place)
            .unwrap_err(),
        name,
        "cipher encrypt in place",
    );
    assert_eq!(in_place, b"after", "nothing encrypted in the error state");
    let mut in_place = encrypted.ciphertext.clone();
    assert_in_error_state(
        cipher
            .decrypt_in_place(&encrypted.iv, &mut in_place)
            .unwrap_err(),
        name,
        "cipher decrypt in place",
    );
    assert_eq!(
        in_place, encrypted.ciphertext,
        "nothing decrypted in the error state"
    );
    if let Some(agreement) = agreement {
        // Not even public keys leave a module in its error state.
        assert_in_error_state(
            agreement.public_key().unwrap_err(),
            name,
            "public key export",
        );
        assert_in_error_state(agreement.agree(&[4; 65]).unwrap_err(), name, "agree");
    }
    if let Some(kem) = kem {
        assert_in_error_state(
            kem.decapsulate(&[0; 1088]).unwrap_err(),
            name,
            "decapsulate",
        );
    }

    assert_refuses_everything(module, name);
    assert_in_error_state(
        earlier_key.sign(b"after").unwrap_err(),
        name,
        "a key generated before the failure",
    );
    assert_in_error_state(
        earlier_key.to_pkcs8_der().unwrap_err(),
        name,
        "private key export",
    );
    assert_in_error_state(
        earlier_key.public_key_der().unwrap_err(),
        name,
        "public key export",
    );
    assert_in_error_state(
        generate(module, algorithm).unwrap_err(),
        name,
        "a second key generation",
    );
}

/// Runs only as a child of the tests below (see the module docs).
#[test]
fn child_with_broken_selftest() {
    let Some(name) = std::env::var(BREAK_SELFTEST_ENV)
        .ok()
        .filter(|name| !name.is_empty())
    else {
        return;
    };
    let profile_name = std::env::var(ENV_PROFILE).unwrap_or_else(|_| "default".to_string());
    let profile = Profile::from_name(&profile_name).expect("known profile");
    let module = Module::load(Policy::builtin(profile));
    let algorithm = std::env::var(ENV_ALGORITHM).ok();
    if std::env::var(ENV_EXPECT).as_deref() == Ok("operational") {
        let results = module.run_self_tests();
        assert!(results.iter().all(|result| result.passed), "{results:?}");
        assert!(results.iter().all(|result| result.name != name));
        assert_eq!(module.state(), ModuleState::Operational);
        assert_eq!(module.failed_test(), None);
    } else {
        let Some(info) = selftest::list()
            .into_iter()
            .find(|info| info.name == name && info.runner == Runner::Regula)
        else {
            // A break switch naming no self-test fails closed, so a typo cannot make a
            // failure-path test pass without testing anything.
            assert_eq!(module.state(), ModuleState::Error);
            assert!(module.failed_test().unwrap_or("").contains("unknown name"));
            assert!(matches!(
                module.digest(Algorithm::Sha256, b"abc"),
                Err(Error::ModuleInErrorState { .. })
            ));
            println!("{MARKER} {name} - {profile_name}");
            return;
        };
        match info.kind {
            SelfTestKind::Cast => child_cast(&module, &name, &info.algorithms),
            SelfTestKind::Pct => {
                let algorithm = algorithm
                    .as_deref()
                    .and_then(Algorithm::from_name)
                    .expect("PCT child needs an algorithm");
                assert!(info.algorithms.contains(&algorithm));
                child_pct(&module, &name, algorithm, &info.algorithms);
            }
        }
    }
    println!(
        "{MARKER} {name} {} {profile_name}",
        algorithm.as_deref().unwrap_or("-")
    );
}

/// Spawns the child and checks it ran and passed.
fn run_child(name: &str, algorithm: Option<Algorithm>, profile: &str, expect_operational: bool) {
    let exe = std::env::current_exe().expect("current test binary");
    let mut command = Command::new(exe);
    command
        .args(["--exact", CHILD, "--nocapture", "--test-threads=1"])
        .env(BREAK_SELFTEST_ENV, name)
        .env(ENV_PROFILE, profile)
        .env_remove(ENV_ALGORITHM)
        .env_remove(ENV_EXPECT);
    if let Some(algorithm) = algorithm {
        command.env(ENV_ALGORITHM, algorithm.name());
    }
    if expect_operational {
        command.env(ENV_EXPECT, "operational");
    }
    let output = command.output().expect("spawn child test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let label = format!(
        "{name} / {} / {profile}",
        algorithm.map_or("-", Algorithm::name)
    );
    assert!(
        output.status.success(),
        "child for {label} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let marker = format!(
        "{MARKER} {name} {} {profile}",
        algorithm.map_or("-", Algorithm::name)
    );
    assert!(
        // libtest prints "test NAME ... " before the child's output on the same line.
        stdout.contains(&format!("{marker}\n")),
        "child for {label} did not run its checks (no marker):\n{stdout}\n{stderr}"
    );
}

#[test]
fn every_selftest_break_fails_closed() {
    if std::env::var_os(BREAK_SELFTEST_ENV).is_some() {
        return; // We are a child.
    }
    let tests = selftest::list();
    let casts = tests
        .iter()
        .filter(|info| info.kind == SelfTestKind::Cast)
        .count();
    let pcts = tests.len() - casts;
    assert!(casts > 0 && pcts > 0, "{tests:?}");
    let started = Instant::now();
    let mut children = 0;
    for info in &tests {
        assert!(!info.algorithms.is_empty(), "{} covers nothing", info.name);
        if info.runner == Runner::AwsLcValidatedModule {
            continue; // only an AWS-LC break-test build can break these
        }
        match info.kind {
            SelfTestKind::Cast => {
                run_child(info.name, None, "default", false);
                children += 1;
            }
            SelfTestKind::Pct => {
                for &algorithm in &info.algorithms {
                    run_child(info.name, Some(algorithm), "default", false);
                    children += 1;
                }
            }
        }
    }
    println!(
        "{children} children ({casts} CASTs, {pcts} PCTs) in {:?}",
        started.elapsed()
    );
}

/// Every key-generating algorithm is covered by some PCT, and every algorithm by some CAST.
#[test]
fn every_algorithm_is_covered() {
    let tests = selftest::list();
    for algorithm in Algorithm::ALL {
        let cast = tests
            .iter()
            .any(|info| info.kind == SelfTestKind::Cast && info.algorithms.contains(&algorithm));
        assert!(cast, "{algorithm} has no CAST");
        // SHA-1 signature schemes only verify: no key is ever generated for them.
        let verify_only = matches!(
            algorithm,
            Algorithm::RsaPkcs1Sha1 | Algorithm::EcdsaP256Sha1
        );
        if !verify_only
            && matches!(
                algorithm.family(),
                Family::Signature
                    | Family::KeyAgreement
                    | Family::Kem
                    | Family::PublicKeyEncryption
            )
        {
            let pct = tests
                .iter()
                .any(|info| info.kind == SelfTestKind::Pct && info.algorithms.contains(&algorithm));
            assert!(pct, "{algorithm} has no PCT");
        }
    }
}

/// A CAST only runs for what the policy serves, so breaking one the policy does not need
/// leaves the module operational; an unknown name breaks nothing.
#[test]
fn breaking_a_test_the_policy_does_not_run_changes_nothing() {
    if std::env::var_os(BREAK_SELFTEST_ENV).is_some() {
        return;
    }
    for name in ["MD5", "CHACHA20-POLY1305", "X25519"] {
        run_child(name, None, "fips-140-3", true);
    }
    run_child("AES-GCM", None, "gm", true);
    // An unknown name is a typo, not a test the policy skips: it fails closed.
    run_child("NO-SUCH-TEST", None, "default", false);
    // And the same break under a profile that serves the algorithm does fail.
    run_child("MD5", None, "default", false);
}

/// Without a break every built-in profile loads operational, running exactly the CASTs for
/// what it serves. Timing is printed, never asserted.
#[test]
fn no_break_is_operational_under_every_profile() {
    if std::env::var_os(BREAK_SELFTEST_ENV).is_some() {
        return;
    }
    let all_casts: BTreeSet<&str> = selftest::list()
        .iter()
        .filter(|info| info.kind == SelfTestKind::Cast)
        .map(|info| info.name)
        .collect();
    // FIPS 140-3 serves neither the legacy set, ChaCha20-Poly1305, X25519, what AWS-LC's
    // validated module does not flag (AES-CCM through the cipher interface, CFB8, GMAC with a
    // caller's nonce), AES-CBC-CS3 (Regula's stealing) nor any SM algorithm; GM/T serves only
    // the SM algorithms, and the HKDF of the kernel's fscrypt key hierarchy (flagged).
    let sm_casts: BTreeSet<&str> = all_casts
        .iter()
        .copied()
        .filter(|name| name.starts_with("SM") || *name == "HMAC-SM3")
        .collect();
    let gm_casts: BTreeSet<&str> = sm_casts.iter().copied().chain(["HKDF-SHA2-256"]).collect();
    let fips_skips: BTreeSet<&str> = sm_casts
        .iter()
        .copied()
        .chain([
            "MD4",
            "MD5",
            "HMAC-MD5",
            "RC4",
            "DES-CBC",
            "TDES-CBC",
            "AES-CCM",
            "AES-CFB8",
            "AES-GMAC",
            "CHACHA20-POLY1305",
            "X25519",
            "AES-CBC-CS3",
        ])
        .collect();
    for profile in Profile::ALL {
        let started = Instant::now();
        let module = Module::load(Policy::builtin(profile));
        let elapsed = started.elapsed();
        assert_eq!(module.state(), ModuleState::Operational, "{profile}");
        assert_eq!(module.failed_test(), None);
        assert!(
            module
                .self_test_status()
                .iter()
                .all(|test| test.result.is_none()),
            "{profile}: a CAST ran at load"
        );
        let started = Instant::now();
        let results = module.run_self_tests();
        let all_casts_took = started.elapsed();
        assert!(results.iter().all(|result| result.passed), "{results:?}");
        let ran: BTreeSet<&str> = results.iter().map(|result| result.name).collect();
        assert_eq!(ran.len(), results.len(), "{profile}: a CAST ran twice");
        let expected: BTreeSet<&str> = match profile {
            Profile::Default => all_casts.clone(),
            Profile::Fips1403 => all_casts.difference(&fips_skips).copied().collect(),
            // CNSA 2.0's AES-256, SHA-384/512 and what is built on them, P-384, RSA,
            // ML-DSA-87 and ML-KEM-1024: each algorithm's CAST (the ECDSA, ECDH, HKDF, KBKDF,
            // RSA, ML-DSA and ML-KEM CASTs run on one parameter set of the family).
            Profile::Cnsa20 => [
                "AES-GCM",
                "AES-CTR",
                "AES-CBC",
                "AES-XTS",
                "AES-KW",
                "AES-KWP",
                "AES-CMAC",
                "SHA2-384",
                "SHA2-512",
                "HMAC-SHA2-384",
                "HMAC-SHA2-512",
                "HKDF-SHA2-256",
                "PBKDF2",
                "KBKDF-CTR-HMAC-SHA2-256",
                "TLS12-PRF",
                "ECDSA-P256-SHA2-256",
                "RSA-SHA2-256",
                "RSA-OAEP",
                "ML-DSA-44",
                "ECDH-P256",
                "ML-KEM-768",
                "CTR_DRBG",
            ]
            .into_iter()
            .collect(),
            _ => gm_casts.clone(),
        };
        assert_eq!(ran, expected, "{profile}");
        let micros: u64 = results.iter().map(|result| result.micros).sum();
        let mut slowest: Vec<_> = results.iter().collect();
        slowest.sort_by_key(|result| std::cmp::Reverse(result.micros));
        let slowest: Vec<String> = slowest
            .iter()
            .take(3)
            .map(|result| format!("{} {} µs", result.name, result.micros))
            .collect();
        println!(
            "CASTs {profile}: {} CASTs, {micros} µs in the tests, {all_casts_took:?} for all, \
             {elapsed:?} for Module::load; slowest: {}",
            results.len(),
            slowest.join(", ")
        );
    }
}

/// The FIPS build leaves the PCT of every key AWS-LC's validated module generates to that
/// module (it runs its own inside key generation), and runs its own for the rest; the
/// ordinary build runs all of them itself.
#[test]
fn pcts_are_run_once_per_key() {
    let tests = selftest::list();
    let validated: Vec<_> = tests
        .iter()
        .filter(|info| info.runner == Runner::AwsLcValidatedModule)
        .collect();
    let runs_own = |algorithm| {
        tests.iter().any(|info| {
            info.kind == SelfTestKind::Pct
                && info.runner == Runner::Regula
                && info.algorithms.contains(&algorithm)
        })
    };
    if cfg!(feature = "fips") {
        let names: BTreeSet<&str> = validated.iter().map(|info| info.name).collect();
        let expected: BTreeSet<&str> = [
            "EC_PWCT",
            "EDDSA_PWCT",
            "MLDSA_PWCT",
            "MLKEM_PWCT",
            "RSA_PWCT",
        ]
        .into();
        assert_eq!(names, expected);
        for algorithm in [
            Algorithm::EcdsaP256,
            Algorithm::EcdhP384,
            Algorithm::Ed25519,
            Algorithm::MlKem768,
        ] {
            assert!(!runs_own(algorithm), "{algorithm} would be tested twice");
        }
        // Our own break switch cannot reach AWS-LC's tests: naming one fails closed as a typo.
        run_child("EC_PWCT", None, "default", false);
    } else {
        assert!(validated.is_empty(), "{validated:?}");
        assert!(runs_own(Algorithm::EcdsaP256) && runs_own(Algorithm::EcdhP256));
    }
    // X25519 and SM2 keys are Regula's to test in every build.
    assert!(runs_own(Algorithm::X25519) && runs_own(Algorithm::Sm2Sign));
}

/// Which CASTs have run, and what made each run.
fn ran(module: &Module) -> Vec<(&'static str, Trigger)> {
    module
        .self_test_status()
        .into_iter()
        .filter_map(|test| test.result)
        .inspect(|result| assert!(result.passed, "{result:?}"))
        .map(|result| (result.name, result.ran))
        .collect()
}

/// Each CAST runs once, before the first use of an algorithm it covers; the CASTs of algorithms
/// never used never run, until every self-test is asked for.
#[test]
fn a_cast_runs_before_first_use_and_unused_ones_never_run() {
    if std::env::var_os(BREAK_SELFTEST_ENV).is_some() {
        return;
    }
    let module = Module::load(Policy::builtin(Profile::Gm));
    assert_eq!(ran(&module), []);
    let applicable = module.self_test_status().len();
    assert!(applicable > 10, "{applicable}");

    // GB/T 32905 A.1: SM3("abc").
    let digest = module.digest(Algorithm::Sm3, b"abc").unwrap().into_value();
    assert_eq!(
        digest,
        unhex("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")
    );
    assert_eq!(ran(&module), [("SM3", Trigger::FirstUse)]);
    // Running once: a second use and another scope reuse the result.
    module.scope().digest(Algorithm::Sm3, b"abc").unwrap();
    assert_eq!(ran(&module), [("SM3", Trigger::FirstUse)]);

    // SM2 signing draws random bits: the policy's generator is tested first.
    let key = module
        .generate_signing_key(Algorithm::Sm2Sign, None)
        .unwrap();
    key.sign(b"message").unwrap();
    let after_sm2 = ran(&module);
    for expected in [
        ("SM3", Trigger::FirstUse),
        ("SM2-SIGN", Trigger::FirstUse),
        (
            selftest_name(module.policy().random_algorithm()),
            Trigger::FirstUse,
        ),
    ] {
        assert!(
            after_sm2.contains(&expected),
            "{expected:?} in {after_sm2:?}"
        );
    }
    assert!(
        after_sm2.iter().all(|(name, _)| !name.starts_with("SM4")),
        "{after_sm2:?}"
    );

    // Asking for all of them runs the rest, and keeps what made the earlier ones run.
    let results = module.run_self_tests();
    assert_eq!(results.len(), applicable);
    assert!(results.iter().all(|result| result.passed));
    let all = ran(&module);
    assert_eq!(all.len(), applicable);
    for (name, trigger) in &all {
        let expected = if after_sm2.iter().any(|(earlier, _)| earlier == name) {
            Trigger::FirstUse
        } else {
            Trigger::Requested
        };
        assert_eq!(*trigger, expected, "{name}");
    }
    assert_eq!(module.state(), ModuleState::Operational);
}

/// The name of the CAST covering `algorithm`, from the public self-test list.
fn selftest_name(algorithm: Algorithm) -> &'static str {
    selftest::list()
        .into_iter()
        .find(|info| info.kind == SelfTestKind::Cast && info.algorithms.contains(&algorithm))
        .map(|info| info.name)
        .expect("every algorithm has a CAST")
}

/// A request the policy refuses runs no CAST: the test of an algorithm is for serving it. A
/// family that may draw random bits runs the DRBG's CAST before its own.
#[test]
fn a_refused_request_runs_no_cast() {
    if std::env::var_os(BREAK_SELFTEST_ENV).is_some() {
        return;
    }
    let module = Module::load(Policy::builtin(Profile::Fips1403));
    assert!(module.digest(Algorithm::Md5, b"abc").is_err());
    assert_eq!(ran(&module), []);
    module.digest(Algorithm::Sha256, b"abc").unwrap();
    assert_eq!(ran(&module), [("SHA2-256", Trigger::FirstUse)]);
    // An AEAD key may draw its nonces from the DRBG: the DRBG's CAST runs first.
    let key = module.aead_key(Algorithm::Aes256Gcm, &[7; 32]).unwrap();
    key.seal(b"", b"message").unwrap();
    let mut after = ran(&module);
    after.sort_by_key(|(name, _)| *name);
    assert_eq!(
        after,
        [
            ("AES-GCM", Trigger::FirstUse),
            ("CTR_DRBG", Trigger::FirstUse),
            ("SHA2-256", Trigger::FirstUse)
        ]
    );
}
