//! Which registry rows the recorded ACVP data exercises under fips-140-3, and why the others
//! are not. The tests hold these tables to the registry: every row the fips-140-3 column
//! approves is either run by a recorded set or has its reason here, in one sentence.
//!
//! The recorded data is Go's (fetched by `scripts/acvp-testdata`, [`RECORDED`]) together with
//! the sets it lacks ([`SUPPLEMENT`]): NIST ACVP-Server excerpts kept in
//! `crates/regula-vectors/tests/data/acvp-server/`, and BoringSSL's recorded acvptool sets in
//! `crates/regula-vectors/tests/data/acvp-boringssl/`.

/// The vector sets (ACVP algorithm names) of the recorded data `scripts/acvp-testdata` pins
/// (Go's `github.com/geomys/acvp-testdata` v0.0.0-20251201200548-d893de8b8b1c).
pub const RECORDED: &[&str] = &[
    "ACVP-AES-CBC",
    "ACVP-AES-CTR",
    "ACVP-AES-ECB",
    "ACVP-AES-GCM",
    "CMAC-AES",
    "DetECDSA",
    "ECDSA",
    "EDDSA",
    "HMAC-SHA2-224",
    "HMAC-SHA2-256",
    "HMAC-SHA2-384",
    "HMAC-SHA2-512",
    "HMAC-SHA2-512/224",
    "HMAC-SHA2-512/256",
    "HMAC-SHA3-224",
    "HMAC-SHA3-256",
    "HMAC-SHA3-384",
    "HMAC-SHA3-512",
    "KAS-ECC-SSC",
    "KDA",
    "KTS-IFC",
    "ML-DSA",
    "ML-KEM",
    "PBKDF",
    "RSA",
    "SHA2-224",
    "SHA2-256",
    "SHA2-384",
    "SHA2-512",
    "SHA2-512/224",
    "SHA2-512/256",
    "SHA3-224",
    "SHA3-256",
    "SHA3-384",
    "SHA3-512",
    "SHAKE-128",
    "SHAKE-256",
    "TLS-v1.2",
    "TLS-v1.3",
    "cSHAKE-128",
    "cSHAKE-256",
    "ctrDRBG",
    "hmacDRBG",
    "kdf-components",
];

/// The vector sets of the supplement: NIST ACVP-Server excerpts (AES-CCM, GMAC, KDF) and
/// BoringSSL's recorded sets (AES-CCM, AES-KW, AES-KWP, AES-XTS, GMAC).
pub const SUPPLEMENT: &[&str] = &[
    "ACVP-AES-CCM",
    "ACVP-AES-GMAC",
    "ACVP-AES-KW",
    "ACVP-AES-KWP",
    "ACVP-AES-XTS",
    "KDF",
];

/// Registry rows the fips-140-3 column does not approve but `default` does, whose supplement
/// sets run under `default` (under fips-140-3 their cases are skipped with the policy's reason).
pub const RUN_UNDER_DEFAULT: &[&str] =
    &["aes-128-ccm", "aes-256-ccm", "aes-128-gmac", "aes-256-gmac"];

/// Registry rows (by name) the fips-140-3 column approves and that the recorded data runs:
/// at least one case of the row's ACVP set is answered through that row's approved service.
pub const RUN: &[&str] = &[
    "aes-128-gcm",
    "aes-256-gcm",
    "aes-128-ctr",
    "aes-256-ctr",
    "aes-128-cbc",
    "aes-256-cbc",
    "aes-256-xts",
    "aes-128-kw",
    "aes-256-kw",
    "aes-128-kwp",
    "aes-256-kwp",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha512-256",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "shake128",
    "shake256",
    "hmac-sha224",
    "hmac-sha256",
    "hmac-sha384",
    "hmac-sha512",
    "aes-128-cmac",
    "aes-256-cmac",
    "hkdf-sha256",
    "hkdf-sha384",
    "hkdf-sha512",
    "pbkdf2-sha256",
    "pbkdf2-sha384",
    "pbkdf2-sha512",
    "ecdsa-p256",
    "ecdsa-p384",
    "ecdsa-p521",
    "ed25519",
    "rsa-pss-sha256",
    "rsa-pss-sha384",
    "rsa-pss-sha512",
    "rsa-pkcs1-sha256",
    "rsa-pkcs1-sha384",
    "rsa-pkcs1-sha512",
    "ml-dsa-44",
    "ml-dsa-65",
    "ml-dsa-87",
    "ecdh-p256",
    "ml-kem-768",
    "ml-kem-1024",
    "tls12-prf-sha256",
    "tls12-prf-sha384",
    "kbkdf-ctr-hmac-sha256",
    "kbkdf-ctr-hmac-sha384",
    "kbkdf-ctr-hmac-sha512",
    "ctr-drbg",
];

/// Rows the fips-140-3 column approves that no recorded set runs, with the reason.
pub const NOT_RUN: &[(&str, &str)] = &[
    ("sha1", "The recorded data has no SHA-1 set."),
    ("hmac-sha1", "The recorded data has no HMAC-SHA-1 set."),
    (
        "fscrypt-hkdf-sha512",
        "ACVP has no fscrypt set; its HKDF-SHA512 is the KDA HKDF that hkdf-sha512 runs.",
    ),
    (
        "ecdh-p384",
        "The recorded KAS-ECC-SSC set has no P-384 VAL case (AFT cases are judged by the server).",
    ),
    (
        "ecdh-p521",
        "The recorded KAS-ECC-SSC set's P-521 case is AFT, judged by the server.",
    ),
    (
        "ecdsa-p256-sha1",
        "The recorded ECDSA sigVer set (FIPS 186-5) has no SHA-1 groups.",
    ),
    (
        "rsa-pkcs1-sha1",
        "The recorded RSA sigVer set (FIPS 186-5) has no SHA-1 groups.",
    ),
    (
        "rsa-oaep-sha256",
        "The recorded data has no KTS-IFC (RSA-OAEP key transport) set.",
    ),
    (
        "rsa-oaep-sha384",
        "The recorded data has no KTS-IFC (RSA-OAEP key transport) set.",
    ),
    (
        "rsa-oaep-sha512",
        "The recorded data has no KTS-IFC (RSA-OAEP key transport) set.",
    ),
];

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use regula::policy::Status;
    use regula::registry::REGISTRY;
    use serde_json::json;

    use super::*;

    fn approved() -> BTreeSet<&'static str> {
        REGISTRY
            .iter()
            .filter(|entry| entry.fips_140_3.status == Status::Approved)
            .map(|entry| entry.name)
            .collect()
    }

    /// Every row fips-140-3 approves is run by a recorded set or has a stated reason, never
    /// both; neither table names a row that is not approved.
    #[test]
    fn every_approved_row_is_run_or_has_a_reason() {
        let approved = approved();
        let run: BTreeSet<&str> = RUN.iter().copied().collect();
        let not_run: BTreeSet<&str> = NOT_RUN.iter().map(|(name, _)| *name).collect();
        assert_eq!(run.len(), RUN.len(), "a row listed twice in RUN");
        assert_eq!(
            not_run.len(),
            NOT_RUN.len(),
            "a row listed twice in NOT_RUN"
        );
        let missing: Vec<_> = approved
            .iter()
            .filter(|name| !run.contains(*name) && !not_run.contains(*name))
            .collect();
        assert!(
            missing.is_empty(),
            "approved by fips-140-3, with no recorded ACVP set run and no reason: {missing:?}"
        );
        let both: Vec<_> = run.intersection(&not_run).collect();
        assert!(both.is_empty(), "both run and not run: {both:?}");
        let stale: Vec<_> = run
            .union(&not_run)
            .filter(|name| !approved.contains(*name))
            .collect();
        assert!(
            stale.is_empty(),
            "not an approved row of fips-140-3: {stale:?}"
        );
        for (name, reason) in NOT_RUN {
            assert!(
                reason.ends_with('.') && reason.len() < 160,
                "{name}: one short sentence"
            );
        }
    }

    /// The rows run under `default` only are the ones fips-140-3 does not approve and `default`
    /// does.
    #[test]
    fn rows_run_under_default_only_are_not_approved_by_fips_140_3() {
        for name in RUN_UNDER_DEFAULT {
            let entry = regula::Algorithm::from_name(name)
                .expect("a registry row")
                .entry();
            assert_ne!(entry.fips_140_3.status, Status::Approved, "{name}");
            assert_eq!(entry.default.status, Status::Approved, "{name}");
            assert!(!RUN.contains(name), "{name} is in RUN too");
        }
    }

    /// A row said to run names, in the registry, an ACVP set that the recorded data holds and
    /// that the runner answers (it does not fall through to "not yet answered").
    #[test]
    fn rows_run_name_a_recorded_set_the_runner_answers() {
        let module = regula::Module::load_named("fips-140-3").expect("built-in policy");
        for name in RUN.iter().chain(RUN_UNDER_DEFAULT) {
            let algorithm = regula::Algorithm::from_name(name).expect("a registry row");
            let acvp = algorithm
                .entry()
                .acvp
                .unwrap_or_else(|| panic!("{name} has no ACVP identity in the registry"));
            assert!(
                RECORDED.contains(&acvp.algorithm) || SUPPLEMENT.contains(&acvp.algorithm),
                "{name}: {} is not in the recorded data",
                acvp.algorithm
            );
            let empty = json!({});
            let case = super::super::Case {
                module: &module,
                algorithm: acvp.algorithm,
                mode: acvp.modes.first().copied().unwrap_or(""),
                group: &empty,
                test: &empty,
                expected: &empty,
                response: Default::default(),
            };
            let verdict = super::super::answer(&case);
            assert!(
                !matches!(&verdict, Ok((_, crate::tally::Outcome::Skip(reason)))
                    if reason == super::super::NOT_YET),
                "{name}: {} is not answered by the runner",
                acvp.algorithm
            );
        }
    }

    /// Against the recorded data itself (`REGULA_ACVP_TESTDATA=$(scripts/acvp-testdata)`, run
    /// with `--ignored`) and the supplement: a row is run when the module served it, approved,
    /// for a case (ML-DSA keyGen is answered by importing the seed), and no row said not to run
    /// was served.
    #[test]
    #[ignore = "needs the recorded data: REGULA_ACVP_TESTDATA=$(scripts/acvp-testdata)"]
    fn the_recorded_data_runs_exactly_the_rows_listed() {
        let dir = std::env::var_os("REGULA_ACVP_TESTDATA")
            .expect("REGULA_ACVP_TESTDATA names the recorded data's directory");
        let module = regula::Module::load_named("fips-140-3").expect("built-in policy");
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut rows = super::super::run_path(&module, std::path::Path::new(&dir), None)
            .expect("the recorded data reads");
        for supplement in [
            manifest.join("tests/data/acvp-server"),
            manifest.join("tests/data/acvp-boringssl"),
        ] {
            rows.extend(
                super::super::run_path(&module, &supplement, None).expect("the supplement reads"),
            );
        }
        assert_eq!(super::super::AcvpTotals::of(&rows).failed, 0, "{rows:?}");
        let served: BTreeSet<&str> = module
            .counters()
            .iter()
            .filter(|row| row.approved > 0)
            .map(|row| row.algorithm.name())
            .collect();
        // Rows whose recorded cases are all `testPassed: false`: answered by a refusal, which
        // the indicator does not count as a service.
        const BY_REFUSALS_ONLY: &[&str] = &[
            "aes-128-gcm",
            "ecdsa-p256",
            "ecdsa-p384",
            "ed25519",
            "rsa-pss-sha512",
        ];
        let run: BTreeSet<&str> = RUN
            .iter()
            .copied()
            .filter(|name| !BY_REFUSALS_ONLY.contains(name))
            .collect();
        assert!(
            BY_REFUSALS_ONLY
                .iter()
                .all(|name| RUN.contains(name) && !served.contains(name)),
            "BY_REFUSALS_ONLY is stale: {served:?}"
        );
        let not_served: Vec<_> = run.difference(&served).collect();
        assert!(
            not_served.is_empty(),
            "listed as run, never served: {not_served:?}"
        );
        let served_anyway: Vec<_> = NOT_RUN
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| served.contains(name))
            .collect();
        assert!(
            served_anyway.is_empty(),
            "listed as not run, yet served: {served_anyway:?}"
        );
    }
}
