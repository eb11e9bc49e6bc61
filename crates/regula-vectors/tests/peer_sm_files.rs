//! OpenSSL's and Tongsuo's own SM test files (`test/recipes/30-test_evp_data/`, copies in
//! `tests/data/{openssl,tongsuo}/`, see the README there) run whole under the default policy:
//! no stanza may fail, and the only skips allowed are the ones listed here with their reason.

use std::path::Path;

use regula::{Module, Policy, Profile};
use regula_vectors::run_path;

/// Skips that remain, by reason prefix: SM2 `Sign`/`Verify` over a digest the caller computed
/// (EVP_PKEY_sign/verify), which Regula's message-level SM2 API does not take, and the
/// case-insensitive name tests of non-SM digests.
const ALLOWED_SKIPS: &[&str] = &[
    "SM2 Verify over a caller-supplied digest",
    "SM2 Sign over a caller-supplied digest",
];

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
            for reason in report.skip_reasons.keys() {
                assert!(
                    ALLOWED_SKIPS
                        .iter()
                        .any(|allowed| reason.starts_with(allowed)),
                    "{}: unexpected skip: {reason}",
                    report.path
                );
            }
        }
    }
}
