//! The service indicator: per operation (`Served<T>`), per scope (sticky `IndicatorState`),
//! per module (counters), and per async task on a multi-threaded runtime.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::{rsa2048_pkcs8, unhex};
use regula::policy::file;
use regula::{
    Algorithm, Approval, CounterRow, Error, Indicator, IndicatorState, Module, Policy, Profile,
    Service,
};

fn default_module() -> Module {
    Module::load(Policy::builtin(Profile::Default))
}

/// FIPS 140-3 rules, but serving what it does not approve (flagged), so that one run shows
/// both verdicts.
fn permissive_fips_module() -> Module {
    Module::load(
        file::parse(
            "base = \"fips-140-3\"\nname = \"fips-permissive\"\nmode = \"permissive\"\n",
            "fips-permissive.toml",
        )
        .unwrap(),
    )
}

/// One recorded operation and what its indicator must say.
struct Case {
    label: &'static str,
    indicator: Indicator,
    algorithm: Algorithm,
    service: Service,
    /// Expected approval under `default`.
    under_default: Approval,
    /// Expected approval under FIPS 140-3 rules.
    under_fips: Approval,
}

/// Calls every service entry point once and collects the indicators.
fn call_every_service(module: &Module) -> Vec<Case> {
    use Algorithm as A;
    use Approval::{Approved as Y, NotApproved as N};
    use Service as S;
    let mut cases = Vec::new();
    let mut push = |label, served: Indicator, algorithm, service, under_default, under_fips| {
        cases.push(Case {
            label,
            indicator: served,
            algorithm,
            service,
            under_default,
            under_fips,
        });
    };

    // Digests.
    let d = module.digest(A::Sha256, b"abc").unwrap();
    push("digest", d.indicator(), A::Sha256, S::Digest, Y, Y);
    let mut context = module.digest_context(A::Sha3_384).unwrap();
    context.update(b"a");
    context.update(b"bc");
    let d = context.finish().unwrap();
    push(
        "digest_context",
        d.indicator(),
        A::Sha3_384,
        S::Digest,
        Y,
        Y,
    );
    let d = module.digest(A::Md5, b"abc").unwrap();
    push("digest md5", d.indicator(), A::Md5, S::Digest, N, N);

    // MACs.
    let key = module.mac_key(A::HmacSha512, &[0x0b; 20]).unwrap();
    let tag = key.sign(b"Hi There").unwrap();
    push(
        "hmac sign",
        tag.indicator(),
        A::HmacSha512,
        S::MacGenerate,
        Y,
        Y,
    );
    let v = key.verify(b"Hi There", &tag).unwrap();
    push(
        "hmac verify",
        v.indicator(),
        A::HmacSha512,
        S::MacVerify,
        Y,
        Y,
    );
    let mut context = key.context();
    context.update(b"Hi ").unwrap();
    context.update(b"There").unwrap();
    let v = context.verify(&tag).unwrap();
    push(
        "hmac context",
        v.indicator(),
        A::HmacSha512,
        S::MacVerify,
        Y,
        Y,
    );
    let short = module.mac_key(A::HmacSha256, &[0x0b; 10]).unwrap();
    let t = short.sign(b"x").unwrap();
    push(
        "hmac short key",
        t.indicator(),
        A::HmacSha256,
        S::MacGenerate,
        Y,
        N,
    );
    let key = module.mac_key(A::Aes256Cmac, &[1; 32]).unwrap();
    let tag = key.sign(b"m").unwrap();
    push(
        "cmac sign",
        tag.indicator(),
        A::Aes256Cmac,
        S::MacGenerate,
        Y,
        Y,
    );
    let mut context = key.context();
    context.update(b"m").unwrap();
    let t = context.sign().unwrap();
    assert_eq!(t.as_slice(), tag.as_slice());
    push(
        "cmac context",
        t.indicator(),
        A::Aes256Cmac,
        S::MacGenerate,
        Y,
        Y,
    );

    // AEAD.
    let key = module.aead_key(A::Aes128Gcm, &[2; 16]).unwrap();
    let sealed = key.seal(b"", b"p").unwrap();
    push(
        "gcm seal",
        sealed.indicator(),
        A::Aes128Gcm,
        S::Encrypt,
        Y,
        Y,
    );
    let mut buffer = b"p".to_vec();
    let nonce = key.seal_in_place(b"", &mut buffer).unwrap();
    push(
        "gcm seal_in_place",
        nonce.indicator(),
        A::Aes128Gcm,
        S::Encrypt,
        Y,
        Y,
    );
    let opened = key.open_in_place(&*nonce, b"", &mut buffer).unwrap();
    assert_eq!(buffer, b"p");
    push(
        "gcm open_in_place",
        opened.indicator(),
        A::Aes128Gcm,
        S::Decrypt,
        Y,
        Y,
    );
    let c = key.seal_with_nonce(&[9; 12], b"", b"p").unwrap();
    push(
        "gcm caller nonce",
        c.indicator(),
        A::Aes128Gcm,
        S::Encrypt,
        Y,
        N,
    );
    let mut buffer = b"p".to_vec();
    let c2 = key
        .seal_in_place_with_nonce(&[9; 12], b"", &mut buffer)
        .unwrap();
    assert_eq!(buffer, *c);
    push(
        "gcm in place caller nonce",
        c2.indicator(),
        A::Aes128Gcm,
        S::Encrypt,
        Y,
        N,
    );
    let o = key.open(&[9; 12], b"", &c).unwrap();
    push("gcm open", o.indicator(), A::Aes128Gcm, S::Decrypt, Y, Y);
    let key = module.aead_key(A::ChaCha20Poly1305, &[3; 32]).unwrap();
    let sealed = key.seal(b"a", b"p").unwrap();
    push(
        "chacha seal",
        sealed.indicator(),
        A::ChaCha20Poly1305,
        S::Encrypt,
        Y,
        N,
    );
    let o = key.open(&sealed.nonce, b"a", &sealed.ciphertext).unwrap();
    push(
        "chacha open",
        o.indicator(),
        A::ChaCha20Poly1305,
        S::Decrypt,
        Y,
        N,
    );

    // Block-cipher modes.
    let key = module.cipher_key(A::Aes256Cbc, &[4; 32]).unwrap();
    let e = key.encrypt(Some(&[0; 16]), b"0123456789").unwrap();
    push("cbc encrypt", e.indicator(), A::Aes256Cbc, S::Encrypt, Y, Y);
    let d = key.decrypt(&e.iv, &e.ciphertext).unwrap();
    push("cbc decrypt", d.indicator(), A::Aes256Cbc, S::Decrypt, Y, Y);
    let key = module.cipher_key(A::Aes128Ctr, &[4; 16]).unwrap();
    let e = key.encrypt(None, b"0123456789").unwrap();
    push("ctr encrypt", e.indicator(), A::Aes128Ctr, S::Encrypt, Y, Y);

    // KDFs.
    let k = module
        .hkdf(A::HkdfSha384, &[0x0b; 22], b"s", b"i", 48)
        .unwrap();
    push("hkdf", k.indicator(), A::HkdfSha384, S::KeyDerivation, Y, Y);
    let k = module
        .pbkdf2(
            A::Pbkdf2Sha512,
            b"a long enough password",
            &[0; 16],
            1000,
            64,
        )
        .unwrap();
    push(
        "pbkdf2",
        k.indicator(),
        A::Pbkdf2Sha512,
        S::KeyDerivation,
        Y,
        Y,
    );
    let k = module
        .pbkdf2(A::Pbkdf2Sha256, b"a long enough password", b"salt", 1, 32)
        .unwrap();
    push(
        "pbkdf2 weak",
        k.indicator(),
        A::Pbkdf2Sha256,
        S::KeyDerivation,
        Y,
        N,
    );

    // Signatures.
    let key = module.generate_signing_key(A::EcdsaP384, None).unwrap();
    push(
        "ecdsa keygen",
        key.indicator(),
        A::EcdsaP384,
        S::KeyGeneration,
        Y,
        Y,
    );
    let signature = key.sign(b"m").unwrap();
    push(
        "ecdsa sign",
        signature.indicator(),
        A::EcdsaP384,
        S::Sign,
        Y,
        Y,
    );
    let public_key = key.public_key_der().unwrap();
    let v = module
        .verify(A::EcdsaP384, &public_key, b"m", &signature)
        .unwrap();
    push("ecdsa verify", v.indicator(), A::EcdsaP384, S::Verify, Y, Y);
    let key = module
        .signing_key_from_pkcs8(A::RsaPssSha384, rsa2048_pkcs8())
        .unwrap();
    let signature = key.sign(b"m").unwrap();
    push(
        "rsa sign",
        signature.indicator(),
        A::RsaPssSha384,
        S::Sign,
        Y,
        Y,
    );

    // Key agreement.
    let ours = module.generate_agreement_key(A::X25519).unwrap();
    push(
        "x25519 keygen",
        ours.indicator(),
        A::X25519,
        S::KeyGeneration,
        Y,
        N,
    );
    let theirs = module.generate_agreement_key(A::X25519).unwrap();
    let s = ours.agree(&theirs.public_key().unwrap()).unwrap();
    push(
        "x25519 agree",
        s.indicator(),
        A::X25519,
        S::KeyAgreement,
        Y,
        N,
    );
    let ours = module.generate_agreement_key(A::EcdhP256).unwrap();
    let theirs = module.generate_agreement_key(A::EcdhP256).unwrap();
    let s = ours.agree(&theirs.public_key().unwrap()).unwrap();
    push(
        "ecdh agree",
        s.indicator(),
        A::EcdhP256,
        S::KeyAgreement,
        Y,
        Y,
    );

    // KEM.
    let key = module.generate_kem_key(A::MlKem1024).unwrap();
    push(
        "ml-kem keygen",
        key.indicator(),
        A::MlKem1024,
        S::KeyGeneration,
        Y,
        Y,
    );
    let e = module
        .encapsulate(A::MlKem1024, &key.encapsulation_key().unwrap())
        .unwrap();
    push(
        "ml-kem encapsulate",
        e.indicator(),
        A::MlKem1024,
        S::Encapsulate,
        Y,
        Y,
    );
    let s = key.decapsulate(&e.ciphertext).unwrap();
    push(
        "ml-kem decapsulate",
        s.indicator(),
        A::MlKem1024,
        S::Decapsulate,
        Y,
        Y,
    );

    // Random.
    let r = module.random_bytes(16).unwrap();
    push(
        "random_bytes",
        r.indicator(),
        A::CtrDrbg,
        S::RandomGeneration,
        Y,
        Y,
    );
    let mut output = [0u8; 16];
    let r = module.fill_random(&mut output).unwrap();
    push(
        "fill_random",
        r.indicator(),
        A::CtrDrbg,
        S::RandomGeneration,
        Y,
        Y,
    );
    cases
}

fn check_cases(module: &Module, policy: &'static str, fips_rules: bool) {
    let cases = call_every_service(module);
    let services: HashSet<Service> = cases.iter().map(|case| case.service).collect();
    // Every service the indicator knows is exercised, except key import, which returns a
    // plain key (see the report on `signing_key_from_pkcs8`).
    for service in Service::ALL {
        assert!(
            services.contains(&service) || service == Service::KeyImport,
            "no case for {service}"
        );
    }
    for case in cases {
        let expected = if fips_rules {
            case.under_fips
        } else {
            case.under_default
        };
        assert_eq!(
            case.indicator,
            Indicator {
                algorithm: case.algorithm,
                service: case.service,
                approval: expected,
                policy,
            },
            "{}",
            case.label
        );
    }
}

#[test]
fn every_service_returns_its_indicator_under_default() {
    check_cases(&default_module(), "default", false);
}

#[test]
fn every_service_returns_its_indicator_under_fips_rules() {
    check_cases(&permissive_fips_module(), "fips-permissive", true);
}

#[test]
fn served_wraps_value_and_indicator() {
    let module = default_module();
    let served = module.digest(Algorithm::Sha256, b"abc").unwrap();
    // FIPS 180-4 "abc".
    let expected = unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(served.len(), 32); // Deref to the value
    assert!(served.is_approved());
    assert_eq!(served.indicator().algorithm, Algorithm::Sha256);
    let (value, indicator) = served.clone().into_parts();
    assert_eq!(value, expected);
    assert_eq!(indicator, served.indicator());
    assert_eq!(served.into_value(), expected);
}

#[test]
fn indicator_serializes_with_names() {
    let module = default_module();
    let indicator = module.digest(Algorithm::Md5, b"").unwrap().indicator();
    assert_eq!(
        serde_json::to_value(indicator).unwrap(),
        serde_json::json!({
            "algorithm": "md5",
            "service": "digest",
            "approval": "not-approved",
            "policy": "default",
        })
    );
    assert_eq!(
        serde_json::to_value(IndicatorState::NotApproved).unwrap(),
        serde_json::json!("not-approved")
    );
}

#[test]
fn scope_is_sticky_until_reset() {
    let module = default_module();
    let scope = module.scope();
    assert_eq!(scope.indicator_state(), IndicatorState::Unset);
    scope.digest(Algorithm::Sha256, b"a").unwrap();
    assert_eq!(scope.indicator_state(), IndicatorState::Approved);
    scope.digest(Algorithm::Sha512, b"a").unwrap();
    assert_eq!(scope.indicator_state(), IndicatorState::Approved);
    let flagged = scope.digest(Algorithm::Md5, b"a").unwrap();
    assert!(!flagged.is_approved());
    assert_eq!(scope.indicator_state(), IndicatorState::NotApproved);
    for _ in 0..3 {
        scope.digest(Algorithm::Sha256, b"a").unwrap();
        scope.random_bytes(8).unwrap();
        assert_eq!(scope.indicator_state(), IndicatorState::NotApproved);
    }
    scope.reset_indicator();
    assert_eq!(scope.indicator_state(), IndicatorState::Unset);
    scope.digest(Algorithm::Sha256, b"a").unwrap();
    assert_eq!(scope.indicator_state(), IndicatorState::Approved);
    // The parent handle has its own scope, untouched by all of this.
    assert_eq!(module.indicator_state(), IndicatorState::Unset);
}

#[test]
fn clones_share_a_scope_and_scopes_are_independent() {
    let module = default_module();
    let a = module.scope();
    let b = module.scope();
    let a_clone = a.clone();
    a_clone.digest(Algorithm::Md5, b"").unwrap();
    assert_eq!(a.indicator_state(), IndicatorState::NotApproved);
    assert_eq!(b.indicator_state(), IndicatorState::Unset);
    b.digest(Algorithm::Sha256, b"").unwrap();
    assert_eq!(b.indicator_state(), IndicatorState::Approved);
    assert_eq!(a.indicator_state(), IndicatorState::NotApproved);
    a.reset_indicator();
    assert_eq!(a_clone.indicator_state(), IndicatorState::Unset);
    assert_eq!(b.indicator_state(), IndicatorState::Approved);
}

/// A key records into the scope of the handle it was bound through.
#[test]
fn keys_record_into_the_scope_they_were_bound_in() {
    let module = default_module();
    let a = module.scope();
    let b = module.scope();
    let key = a.aead_key(Algorithm::Aes256Gcm, &[0; 32]).unwrap();
    b.digest(Algorithm::Md5, b"").unwrap();
    key.seal(b"", b"x").unwrap();
    assert_eq!(a.indicator_state(), IndicatorState::Approved);
    assert_eq!(b.indicator_state(), IndicatorState::NotApproved);
}

/// Failed and refused operations are not operations: no state change, no count.
#[test]
fn failures_and_refusals_record_nothing() {
    let module = default_module();
    let key = module.aead_key(Algorithm::Aes128Gcm, &[5; 16]).unwrap();
    let mut sealed = key
        .seal_with_nonce(&[0; 12], b"", b"secret")
        .unwrap()
        .into_value();
    module.reset_indicator();
    let before = module.counters();
    sealed[0] ^= 1;
    assert_eq!(
        key.open(&[0; 12], b"", &sealed).unwrap_err(),
        Error::AuthenticationFailed
    );
    assert!(module.aead_key(Algorithm::Aes128Gcm, &[5; 15]).is_err());
    assert!(key.open(&[0; 11], b"", &sealed).is_err());
    let mac = module.mac_key(Algorithm::HmacSha256, &[1; 32]).unwrap();
    assert_eq!(
        mac.verify(b"data", &[0; 32]).unwrap_err(),
        Error::AuthenticationFailed
    );
    assert_eq!(module.indicator_state(), IndicatorState::Unset);
    assert_eq!(module.counters(), before);

    let fips = Module::load(Policy::builtin(Profile::Fips1403));
    assert!(fips.digest(Algorithm::Md5, b"").is_err());
    assert_eq!(fips.indicator_state(), IndicatorState::Unset);
    assert!(fips.counters().is_empty());
}

#[test]
fn counters_count_per_algorithm_service_and_approval() {
    let module = permissive_fips_module();
    assert!(module.counters().is_empty());
    let scope = module.scope();
    for _ in 0..3 {
        scope.digest(Algorithm::Sha256, b"x").unwrap();
    }
    for _ in 0..2 {
        module.digest(Algorithm::Md5, b"x").unwrap();
    }
    let key = scope.aead_key(Algorithm::Aes256Gcm, &[1; 32]).unwrap();
    let sealed = key.seal(b"", b"x").unwrap();
    let with_nonce = key.seal_with_nonce(&[2; 12], b"", b"x").unwrap();
    key.open(&sealed.nonce, b"", &sealed.ciphertext).unwrap();
    key.open(&[2; 12], b"", &with_nonce).unwrap();
    let mut tampered = with_nonce.to_vec();
    tampered[0] ^= 0x80;
    assert!(key.open(&[2; 12], b"", &tampered).is_err()); // not counted
    let mac = module.mac_key(Algorithm::HmacSha256, &[1; 10]).unwrap();
    let tag = mac.sign(b"m").unwrap();
    mac.verify(b"m", &tag).unwrap();
    module.random_bytes(1).unwrap();

    let row = |algorithm, service, approved, not_approved| CounterRow {
        algorithm,
        service,
        approved,
        not_approved,
    };
    // Rows in Algorithm::ALL order, then Service::ALL order; zero rows omitted.
    assert_eq!(
        module.counters(),
        vec![
            row(Algorithm::Aes256Gcm, Service::Encrypt, 1, 1),
            row(Algorithm::Aes256Gcm, Service::Decrypt, 2, 0),
            row(Algorithm::Md5, Service::Digest, 0, 2),
            row(Algorithm::Sha256, Service::Digest, 3, 0),
            row(Algorithm::HmacSha256, Service::MacGenerate, 0, 1),
            row(Algorithm::HmacSha256, Service::MacVerify, 0, 1),
            row(Algorithm::CtrDrbg, Service::RandomGeneration, 1, 0),
        ]
    );
    // Counters are module-wide: every handle sees the same table.
    assert_eq!(scope.counters(), module.counters());
    // A separately loaded module has its own.
    assert!(permissive_fips_module().counters().is_empty());
}

/// What one task does, step by step, and the scope state expected after each step.
#[derive(Clone, Copy, Debug)]
enum Step {
    Approved,
    NotApproved,
    Reset,
}

fn plan(task: usize) -> Vec<Step> {
    use Step::*;
    match task % 5 {
        0 => vec![Approved, Approved, Approved, Approved],
        1 => vec![Approved, NotApproved, Approved, Approved, Approved],
        2 => vec![NotApproved, Approved, Reset, Approved, Approved],
        3 => vec![Approved, Approved, Approved, NotApproved],
        _ => vec![NotApproved, Reset],
    }
}

fn expected_after(steps: &[Step]) -> IndicatorState {
    let mut state = IndicatorState::Unset;
    for step in steps {
        state = match (step, state) {
            (Step::Reset, _) => IndicatorState::Unset,
            (Step::NotApproved, _) | (Step::Approved, IndicatorState::NotApproved) => {
                IndicatorState::NotApproved
            }
            (Step::Approved, _) => IndicatorState::Approved,
        };
    }
    state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_tasks_keep_their_own_scope_across_threads() {
    const TASKS: usize = 40;
    let module = default_module();
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let scope = module.scope();
        handles.push(tokio::spawn(async move {
            let steps = plan(task);
            let mut threads = HashSet::new();
            for (index, step) in steps.iter().enumerate() {
                threads.insert(std::thread::current().id());
                match step {
                    Step::Approved => {
                        // Hold an incremental context across an await point.
                        let mut context = scope.digest_context(Algorithm::Sha256).unwrap();
                        context.update(b"part one");
                        tokio::task::yield_now().await;
                        context.update(b"part two");
                        assert!(context.finish().unwrap().is_approved());
                    }
                    Step::NotApproved => {
                        let served = scope.digest(Algorithm::Md5, b"legacy").unwrap();
                        assert!(!served.is_approved());
                    }
                    Step::Reset => scope.reset_indicator(),
                }
                if (task + index) % 2 == 0 {
                    tokio::task::yield_now().await;
                } else {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                threads.insert(std::thread::current().id());
                assert_eq!(
                    scope.indicator_state(),
                    expected_after(&steps[..=index]),
                    "task {task} after step {index}"
                );
            }
            (task, scope.indicator_state(), threads.len())
        }));
    }
    let mut migrated = 0;
    for handle in handles {
        let (task, state, threads) = handle.await.unwrap();
        assert_eq!(state, expected_after(&plan(task)), "task {task}");
        if threads > 1 {
            migrated += 1;
        }
    }
    println!("{migrated} of {TASKS} tasks ran on more than one worker thread");

    // The module-wide counters saw every task's operations.
    let count = |wanted: Step| -> u64 {
        (0..TASKS)
            .flat_map(plan)
            .filter(|step| std::mem::discriminant(step) == std::mem::discriminant(&wanted))
            .count() as u64
    };
    let counters = module.counters();
    let sha256 = counters
        .iter()
        .find(|row| row.algorithm == Algorithm::Sha256)
        .unwrap();
    assert_eq!(
        (sha256.approved, sha256.not_approved),
        (count(Step::Approved), 0)
    );
    let md5 = counters
        .iter()
        .find(|row| row.algorithm == Algorithm::Md5)
        .unwrap();
    assert_eq!(
        (md5.approved, md5.not_approved),
        (0, count(Step::NotApproved))
    );
    // The handle the tasks were scoped from never operated.
    assert_eq!(module.indicator_state(), IndicatorState::Unset);
}

/// Two tasks sharing one scope (clones) both feed it: one non-approved operation anywhere
/// makes the shared scope non-approved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_sharing_a_scope_aggregate() {
    let module = default_module();
    let shared = module.scope();
    let first = shared.clone();
    let second = shared.clone();
    let a = tokio::spawn(async move {
        for _ in 0..5 {
            first.digest(Algorithm::Sha256, b"x").unwrap();
            tokio::task::yield_now().await;
        }
    });
    let b = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(2)).await;
        second.digest(Algorithm::Md5, b"x").unwrap();
    });
    a.await.unwrap();
    b.await.unwrap();
    assert_eq!(shared.indicator_state(), IndicatorState::NotApproved);
}

/// Handles and keys move between threads and tasks (the async test above depends on it).
#[test]
fn handles_and_keys_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Module>();
    send_sync::<regula::AeadKey>();
    send_sync::<regula::CipherKey>();
    send_sync::<regula::MacKey>();
    send_sync::<regula::SigningKey>();
    send_sync::<regula::AgreementKey>();
    send_sync::<regula::KemPrivateKey>();
    send_sync::<regula::Served<Vec<u8>>>();
    send::<regula::DigestContext>();
    send::<regula::MacContext<'static>>();
}

/// Incremental operations are recorded once, when they finish, not when they start.
#[test]
fn incremental_operations_record_at_finish() {
    let module = default_module();
    let mut context = module.digest_context(Algorithm::Md5).unwrap();
    context.update(b"abc");
    assert_eq!(module.indicator_state(), IndicatorState::Unset);
    assert!(module.counters().is_empty());
    let digest = context.finish().unwrap();
    // RFC 1321 §A.5, MD5 ("abc").
    assert_eq!(*digest, unhex("900150983cd24fb0d6963f7d28e17f72"));
    assert_eq!(module.indicator_state(), IndicatorState::NotApproved);
    let key = module.mac_key(Algorithm::HmacSha256, &[1; 32]).unwrap();
    let mut mac = key.context();
    mac.update(b"x").unwrap();
    let rows = module.counters();
    assert_eq!(rows.len(), 1, "{rows:?}");
    mac.sign().unwrap();
    assert_eq!(module.counters().len(), 2);
}

/// `digest_many` and `sign_many` give the one-at-a-time results, and each message counts as
/// one operation (SM3 and HMAC-SM3 run multi-buffer; others one after another).
#[test]
fn batches_count_one_operation_per_message() {
    let module = Module::load(Policy::builtin(Profile::Gm));
    let messages: Vec<Vec<u8>> = (0..21u8).map(|i| vec![i; 97 * i as usize]).collect();
    let refs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
    let digests = module.digest_many(Algorithm::Sm3, &refs).unwrap();
    let mac = module.mac_key(Algorithm::HmacSm3, b"batch key").unwrap();
    let tags = mac.sign_many(&refs).unwrap();
    assert_eq!(digests.len(), 21);
    for ((digest, tag), message) in digests.iter().zip(&tags).zip(&refs) {
        assert!(digest.is_approved() && tag.is_approved());
        assert_eq!(
            **digest,
            *module.digest(Algorithm::Sm3, message).unwrap().into_value()
        );
        assert_eq!(**tag, *mac.sign(message).unwrap().into_value());
    }
    let count = |algorithm, service| {
        module
            .counters()
            .iter()
            .find(|row: &&CounterRow| row.algorithm == algorithm && row.service == service)
            .map_or(0, |row| row.approved)
    };
    assert_eq!(count(Algorithm::Sm3, Service::Digest), 42);
    assert_eq!(count(Algorithm::HmacSm3, Service::MacGenerate), 42);
    assert_eq!(
        module
            .digest_many(Algorithm::Sha256, &refs[..0])
            .unwrap()
            .len(),
        0
    );
}
