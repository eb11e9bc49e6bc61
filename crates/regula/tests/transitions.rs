//! Dated rules: every transition in the registry, checked the day before and the day it takes
//! effect, against the date its source document gives (written out here by hand, not read from
//! the registry).
//!
//! Sources:
//! - NIST SP 800-131A Rev. 3 ipd (October 2024) and NIST's announcement of 15 December 2022:
//!   SHA-1 disallowed after 31 December 2030.
//! - NIST SP 800-131A (2011) and Rev. 2, §9: SHA-1 signature generation disallowed after 2013,
//!   verification legacy use.
//! - NIST IR 8547 ipd (November 2024): 112-bit RSA deprecated after 2030; RSA, ECDSA, EdDSA and
//!   ECDH disallowed after 2035.
//! - NSA CNSA 2.0 (September 2022, FAQ December 2024): web browsers, servers and cloud
//!   services support and prefer CNSA 2.0 by 2025 and use it exclusively by 2033; the CNSA 1.0
//!   algorithms (P-384, RSA >= 3072) are transitional until then.

use regula::policy::{Date, TransitionStatus, Usage};
use regula::{Algorithm, Approval, Error, Module, ModuleState, Policy, Profile};

/// What the policy does with a request on a day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Approved,
    /// Approved, with a deprecation in force.
    Deprecated,
    /// Served but flagged (permissive profile).
    Flagged,
    Refused,
}

use Verdict::{Approved as A, Deprecated as D, Flagged as F, Refused as R};

#[derive(Clone, Copy, Debug)]
enum Request {
    Plain,
    Key(u32),
    Sign(u32),
    Verify(u32),
    Secret(u32),
}

impl Request {
    fn usage(self) -> Usage {
        match self {
            Request::Plain => Usage::default(),
            Request::Key(bits) | Request::Verify(bits) => Usage {
                key_bits: Some(bits),
                ..Usage::default()
            },
            Request::Sign(bits) => Usage {
                key_bits: Some(bits),
                signing: true,
                ..Usage::default()
            },
            Request::Secret(bytes) => Usage {
                secret_bytes: Some(bytes),
                ..Usage::default()
            },
        }
    }
}

/// (profile, algorithm, request, first day of the new rule, verdict the day before, verdict
/// on that day, words of the source the refusal or transition must cite)
const TABLE: &[(Profile, Algorithm, Request, &str, Verdict, Verdict, &str)] = &[
    // SHA-1's end.
    (
        Profile::Fips1403,
        Algorithm::Sha1,
        Request::Plain,
        "2031-01-01",
        A,
        R,
        "SP 800-131A Rev. 3",
    ),
    (
        Profile::Fips1403,
        Algorithm::HmacSha1,
        Request::Secret(20),
        "2031-01-01",
        A,
        R,
        "SP 800-131A Rev. 3",
    ),
    (
        Profile::Default,
        Algorithm::Sha1,
        Request::Plain,
        "2031-01-01",
        A,
        F,
        "SP 800-131A Rev. 3",
    ),
    (
        Profile::Fips1403,
        Algorithm::RsaPkcs1Sha1,
        Request::Verify(2048),
        "2031-01-01",
        A,
        R,
        "SP 800-131A Rev. 3",
    ),
    (
        Profile::Fips1403,
        Algorithm::EcdsaP256Sha1,
        Request::Verify(256),
        "2031-01-01",
        A,
        R,
        "SP 800-131A Rev. 3",
    ),
    // SP 800-131A's legacy-use period: SHA-1 signing ends after 2013, verifying goes on.
    (
        Profile::Fips1403,
        Algorithm::EcdsaP256Sha1,
        Request::Sign(256),
        "2014-01-01",
        A,
        R,
        "SP 800-131A (January 2011)",
    ),
    (
        Profile::Fips1403,
        Algorithm::RsaPkcs1Sha1,
        Request::Sign(2048),
        "2014-01-01",
        A,
        R,
        "SP 800-131A (January 2011)",
    ),
    (
        Profile::Fips1403,
        Algorithm::RsaPkcs1Sha1,
        Request::Verify(1024),
        "2014-01-01",
        A,
        A,
        "",
    ),
    // NIST IR 8547: 112-bit RSA deprecated after 2030, all RSA/ECC disallowed after 2035.
    (
        Profile::Fips1403,
        Algorithm::RsaPssSha256,
        Request::Sign(2048),
        "2031-01-01",
        A,
        D,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::RsaPkcs1Sha256,
        Request::Verify(2048),
        "2031-01-01",
        A,
        D,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::RsaPssSha256,
        Request::Sign(3072),
        "2031-01-01",
        A,
        A,
        "",
    ),
    (
        Profile::Fips1403,
        Algorithm::RsaPssSha256,
        Request::Sign(2048),
        "2036-01-01",
        D,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::RsaPkcs1Sha384,
        Request::Sign(3072),
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::RsaPssSha512,
        Request::Key(4096),
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::EcdsaP256,
        Request::Sign(256),
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::EcdsaP384,
        Request::Verify(384),
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::EcdsaP521,
        Request::Plain,
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::Ed25519,
        Request::Plain,
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::EcdhP256,
        Request::Plain,
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::EcdhP384,
        Request::Plain,
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Fips1403,
        Algorithm::EcdhP521,
        Request::Plain,
        "2036-01-01",
        A,
        R,
        "NIST IR 8547",
    ),
    (
        Profile::Default,
        Algorithm::X25519,
        Request::Plain,
        "2036-01-01",
        A,
        F,
        "NIST IR 8547",
    ),
    (
        Profile::Default,
        Algorithm::RsaPssSha256,
        Request::Sign(2048),
        "2031-01-01",
        A,
        D,
        "NIST IR 8547",
    ),
    // CNSA 2.0's milestones for the CNSA 1.0 set (web servers and cloud services).
    (
        Profile::Cnsa20,
        Algorithm::EcdsaP384,
        Request::Sign(384),
        "2026-01-01",
        A,
        D,
        "CNSA 2.0",
    ),
    (
        Profile::Cnsa20,
        Algorithm::EcdhP384,
        Request::Plain,
        "2026-01-01",
        A,
        D,
        "CNSA 2.0",
    ),
    (
        Profile::Cnsa20,
        Algorithm::RsaPssSha384,
        Request::Sign(3072),
        "2026-01-01",
        A,
        D,
        "CNSA 2.0",
    ),
    (
        Profile::Cnsa20,
        Algorithm::EcdsaP384,
        Request::Sign(384),
        "2034-01-01",
        D,
        R,
        "CNSA 2.0",
    ),
    (
        Profile::Cnsa20,
        Algorithm::EcdhP384,
        Request::Plain,
        "2034-01-01",
        D,
        R,
        "CNSA 2.0",
    ),
    (
        Profile::Cnsa20,
        Algorithm::RsaPkcs1Sha512,
        Request::Verify(4096),
        "2034-01-01",
        D,
        R,
        "CNSA 2.0",
    ),
    // What has no end date stays approved.
    (
        Profile::Cnsa20,
        Algorithm::MlKem1024,
        Request::Plain,
        "2100-01-01",
        A,
        A,
        "",
    ),
    (
        Profile::Cnsa20,
        Algorithm::MlDsa87,
        Request::Sign(0),
        "2100-01-01",
        A,
        A,
        "",
    ),
    (
        Profile::Cnsa20,
        Algorithm::Aes256Gcm,
        Request::Plain,
        "2100-01-01",
        A,
        A,
        "",
    ),
    (
        Profile::Fips1403,
        Algorithm::MlKem768,
        Request::Plain,
        "2100-01-01",
        A,
        A,
        "",
    ),
    (
        Profile::Fips1403,
        Algorithm::Sha256,
        Request::Plain,
        "2100-01-01",
        A,
        A,
        "",
    ),
];

fn verdict(policy: &Policy, algorithm: Algorithm, request: Request) -> (Verdict, String) {
    let usage = request.usage();
    match policy.evaluate(algorithm, &usage) {
        Ok(Approval::Approved) => {
            let deprecated = policy.rule(algorithm).transitions.iter().any(|transition| {
                transition.status == TransitionStatus::Deprecated
                    && transition.applies(policy.date(), &usage)
            });
            (if deprecated { D } else { A }, String::new())
        }
        Ok(Approval::NotApproved) => (F, String::new()),
        Err(Error::NotApproved { reason, .. }) => (R, reason),
        Err(other) => panic!("{algorithm}: unexpected {other:?}"),
    }
}

/// The source a deprecation cites: the transition in force for this request.
fn deprecation_source(policy: &Policy, algorithm: Algorithm, request: Request) -> &'static str {
    let usage = request.usage();
    policy
        .rule(algorithm)
        .transitions
        .iter()
        .rev()
        .find(|transition| transition.applies(policy.date(), &usage))
        .map_or("", |transition| transition.source)
}

#[test]
fn every_dated_rule_the_day_before_and_the_day_after() {
    for &(profile, algorithm, request, from, before, after, source) in TABLE {
        let day = Date::parse(from).unwrap();
        let context = format!("{profile}/{algorithm}/{request:?} around {from}");
        let (got, _) = verdict(
            &Policy::builtin(profile).as_of(day.previous_day()),
            algorithm,
            request,
        );
        assert_eq!(got, before, "{context}: the day before");
        let policy = Policy::builtin(profile).as_of(day);
        let (got, reason) = verdict(&policy, algorithm, request);
        assert_eq!(got, after, "{context}: the day itself");
        match after {
            R => {
                assert!(reason.contains(source), "{context}: {reason}");
                assert!(reason.contains(from), "{context}: {reason}");
            }
            D | F => assert!(
                deprecation_source(&policy, algorithm, request).contains(source),
                "{context}: source"
            ),
            A => {}
        }
    }
}

/// Every dated rule in the registry (each distinct date and source, in any built-in profile)
/// has a row in the table above that checks it around that date.
#[test]
fn the_table_covers_every_dated_rule_in_the_registry() {
    for profile in Profile::ALL {
        let policy = Policy::builtin(profile);
        for algorithm in Algorithm::ALL {
            for transition in policy.rule(algorithm).transitions {
                assert!(
                    TABLE.iter().any(|row| row.3 == transition.from
                        && !row.6.is_empty()
                        && transition.source.contains(row.6)
                        && Policy::builtin(row.0)
                            .rule(row.1)
                            .transitions
                            .contains(transition)),
                    "{profile}/{algorithm}: no row checks the transition from {} ({}): {}",
                    transition.from,
                    transition.status,
                    transition.source
                );
                assert!(Date::parse(transition.from).is_ok(), "{}", transition.from);
            }
        }
    }
}

/// The module itself follows the as-of day: a FIPS module evaluated on 1 January 2031 refuses
/// SHA-1 hashing, and one on 31 December 2030 serves it approved.
#[test]
fn a_module_loaded_as_of_a_day_serves_as_on_that_day() {
    let before =
        Module::load(Policy::builtin(Profile::Fips1403).as_of(Date::parse("2030-12-31").unwrap()));
    assert_eq!(before.state(), ModuleState::Operational);
    assert!(
        before
            .digest(Algorithm::Sha1, b"abc")
            .unwrap()
            .is_approved()
    );
    let after =
        Module::load(Policy::builtin(Profile::Fips1403).as_of(Date::parse("2031-01-01").unwrap()));
    assert_eq!(after.state(), ModuleState::Operational);
    assert!(!after.policy().approves(Algorithm::Sha1));
    assert!(!after.policy().serves(Algorithm::Sha1));
    match after.digest(Algorithm::Sha1, b"abc") {
        Err(Error::NotApproved { reason, .. }) => {
            assert!(reason.contains("2031-01-01"), "{reason}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(
        after
            .digest(Algorithm::Sha256, b"abc")
            .unwrap()
            .is_approved()
    );
}
