//! Unit tests of the rules, the calendar and policy evaluation.

use super::*;

#[test]
fn limits_name_the_violated_bound() {
    let limits = Limits {
        min_key_bits: Some(2048),
        max_key_bits: Some(4096),
        ..Limits::NONE
    };
    let small = Usage {
        key_bits: Some(1024),
        ..Usage::default()
    };
    let large = Usage {
        key_bits: Some(8192),
        ..Usage::default()
    };
    let fine = Usage {
        key_bits: Some(3072),
        ..Usage::default()
    };
    assert!(
        limits
            .check(&small)
            .unwrap_err()
            .contains("below the minimum of 2048")
    );
    assert!(
        limits
            .check(&large)
            .unwrap_err()
            .contains("above the maximum of 4096")
    );
    assert_eq!(limits.check(&fine), Ok(()));
}

#[test]
fn caller_nonce_rule() {
    let limits = Limits {
        caller_nonce_approved: false,
        ..Limits::NONE
    };
    assert!(
        limits
            .check(&Usage {
                caller_nonce: true,
                ..Usage::default()
            })
            .is_err()
    );
    assert!(limits.check(&Usage::default()).is_ok());
}

#[test]
fn today_is_a_plausible_date() {
    let today = Date::today();
    assert!(
        today > Date::parse("2025-01-01").unwrap() && today < Date::parse("2100-01-01").unwrap(),
        "{today}"
    );
    assert_eq!(Date::parse(&today.to_string()), Ok(today));
}

#[test]
fn dates_parse_strictly() {
    assert_eq!(Date::parse("2024-02-29").unwrap().to_string(), "2024-02-29");
    for bad in [
        "2023-02-29",
        "2031-13-01",
        "2031-00-10",
        "2031-1-01",
        "31-01-2031",
        "2031-01-32",
        "",
        "２０３１-01-01",
    ] {
        assert!(Date::parse(bad).is_err(), "{bad}");
    }
    let day = |text| Date::parse(text).unwrap();
    assert_eq!(day("2031-01-01").previous_day(), day("2030-12-31"));
    assert_eq!(day("2024-03-01").previous_day(), day("2024-02-29"));
    assert_eq!(day("2031-05-01").previous_day(), day("2031-04-30"));
}

#[test]
fn dated_and_verify_only_rules() {
    const ENDS: &[Transition] = &[
        Transition {
            from: "2031-01-01",
            status: TransitionStatus::Deprecated,
            below_key_bits: Some(3072),
            source: "deprecation",
        },
        Transition {
            from: "2036-01-01",
            status: TransitionStatus::Disallowed,
            below_key_bits: None,
            source: "the end",
        },
    ];
    let rule = Rule::approved(Limits {
        signing_approved: false,
        ..Limits::NONE
    })
    .with_transitions(ENDS);
    let day = |text| Date::parse(text).unwrap();
    let key = Usage {
        key_bits: Some(2048),
        ..Usage::default()
    };
    assert_eq!(rule.check(day("2035-12-31"), &key), Ok(()));
    assert!(rule.approved_on(day("2035-12-31")));
    let refused = rule.check(day("2036-01-01"), &key).unwrap_err();
    assert!(refused.contains("since 2036-01-01: the end"), "{refused}");
    assert!(!rule.approved_on(day("2036-01-01")));
    assert_eq!(
        rule.transition_on(day("2036-01-01")).map(|t| t.status),
        Some(TransitionStatus::Disallowed)
    );
    assert!(ENDS[0].applies(day("2031-01-01"), &key));
    assert!(!ENDS[0].applies(day("2030-12-31"), &key));
    let large = Usage {
        key_bits: Some(3072),
        ..Usage::default()
    };
    assert!(!ENDS[0].applies(day("2031-01-01"), &large));
    let signing = Usage {
        signing: true,
        ..Usage::default()
    };
    assert!(
        rule.check(day("2020-01-01"), &signing)
            .unwrap_err()
            .contains("disallowed")
    );
}

#[test]
fn approval_aggregates_with_min() {
    assert_eq!(
        Approval::Approved.min(Approval::NotApproved),
        Approval::NotApproved
    );
    assert_eq!(
        Approval::Approved.min(Approval::Approved),
        Approval::Approved
    );
}

/// Only a rule with dated transitions, judged on the clock's day, can change its decision
/// while a module runs (SHA-1's end in 2030); a fixed evaluation day fixes every decision.
#[test]
fn only_dated_rules_on_the_clock_change_their_decisions() {
    use crate::algorithm::Algorithm;
    use crate::policy::{Policy, Profile};
    let policy = Policy::builtin(Profile::Default);
    assert!(policy.decision_is_dated(Algorithm::Sha1));
    assert!(!policy.decision_is_dated(Algorithm::Aes256Gcm));
    let fixed = policy.as_of(Date::parse("2030-06-01").unwrap());
    assert!(!fixed.decision_is_dated(Algorithm::Sha1));
}
