//! Per-profile approval tables, written out by hand and checked against what the services
//! really do, plus the limits each profile applies.
//!
//! Sources of the expectations:
//! - `fips-140-3`: SP 800-140C/D (approved security functions), SP 800-131A Rev. 2 (SHA-1
//!   acceptable for hashing and HMAC, SHA-1 signatures verification only, ≥ 112-bit keys),
//!   IG C.H (AES-GCM and GMAC IV generated inside the module), AWS-LC's validated module's own
//!   indicator (AES-CCM through the cipher interface and AES-CFB8 not flagged),
//!   SP 800-132 (PBKDF2), FIPS 186-5 (RSA ≥ 2048), SP 800-56A Rev. 3 (no X25519),
//!   FIPS 203 (ML-KEM).
//! - `gm`: GM/T approves only SM2/SM3/SM4 (and GM/T 0105's generators); the kernel's fscrypt
//!   HKDF-SHA512 is served flagged.
//! - AES-256-CBC-CS3: Regula's ciphertext stealing over AWS-LC's CBC, never approved.
//! - `cnsa-2.0`: NSA's CNSA 2.0 (September 2022; FAQ December 2024): AES-256, SHA-384/512,
//!   ML-KEM-1024, ML-DSA-87; CNSA 1.0's ECDH/ECDSA on P-384 and RSA >= 3072 (with SHA-384/512)
//!   transitional. Built on FIPS-validated modules, so the FIPS refusals of AES-CCM, CFB8 and
//!   GMAC and the IV rule of IG C.H carry over.
//! - `default`: everything implemented; the legacy set (MD4, MD5, HMAC-MD5, RC4, DES, 3DES)
//!   served but never approved.

mod common;

use common::{exercise, rsa2048_pkcs8, unhex};
use regula::policy::file;
use regula::{
    Algorithm, Approval, Error, ErrorKind, Family, Mode, Module, ModuleState, Policy, Profile,
    Service,
};

/// What a profile does with one algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Served, indicator approved.
    Approved,
    /// Served (permissive mode), indicator not approved.
    Flagged,
    /// Refused with `Error::NotApproved`.
    Refused,
}

use Expect::{Approved as A, Flagged as F, Refused as R};

/// (algorithm, default, fips-140-3, gm, cnsa-2.0)
const TABLE: &[(Algorithm, Expect, Expect, Expect, Expect)] = &[
    (Algorithm::Aes128Gcm, A, A, R, R),
    (Algorithm::Aes256Gcm, A, A, R, A),
    (Algorithm::Aes128Ccm, A, R, R, R),
    (Algorithm::Aes256Ccm, A, R, R, R),
    (Algorithm::ChaCha20Poly1305, A, R, R, R),
    (Algorithm::Aes128Ctr, A, A, R, R),
    (Algorithm::Aes256Ctr, A, A, R, A),
    (Algorithm::Aes128Cbc, A, A, R, R),
    (Algorithm::Aes256Cbc, A, A, R, A),
    (Algorithm::Aes256Xts, A, A, R, A),
    // Regula's ciphertext stealing around AWS-LC's CBC: outside the validated boundary.
    (Algorithm::Aes256CbcCs3, F, R, R, R),
    (Algorithm::Aes128Cfb8, A, R, R, R),
    (Algorithm::Aes256Cfb8, A, R, R, R),
    (Algorithm::Aes128Kw, A, A, R, R),
    (Algorithm::Aes256Kw, A, A, R, A),
    (Algorithm::Aes128Kwp, A, A, R, R),
    (Algorithm::Aes256Kwp, A, A, R, A),
    (Algorithm::Rc4, F, R, R, R),
    (Algorithm::DesCbc, F, R, R, R),
    (Algorithm::DesEde3Cbc, F, R, R, R),
    (Algorithm::Md4, F, R, R, R),
    (Algorithm::Md5, F, R, R, R),
    (Algorithm::Sha1, A, A, R, R),
    (Algorithm::Sha224, A, A, R, R),
    (Algorithm::Sha256, A, A, R, R),
    (Algorithm::Sha384, A, A, R, A),
    (Algorithm::Sha512, A, A, R, A),
    (Algorithm::Sha512_256, A, A, R, R),
    (Algorithm::Sha3_256, A, A, R, R),
    (Algorithm::Sha3_384, A, A, R, R),
    (Algorithm::Sha3_512, A, A, R, R),
    (Algorithm::Shake128, A, A, R, R),
    (Algorithm::Shake256, A, A, R, R),
    (Algorithm::HmacMd5, F, R, R, R),
    (Algorithm::HmacSha1, A, A, R, R),
    (Algorithm::HmacSha224, A, A, R, R),
    (Algorithm::HmacSha256, A, A, R, R),
    (Algorithm::HmacSha384, A, A, R, A),
    (Algorithm::HmacSha512, A, A, R, A),
    (Algorithm::Aes128Cmac, A, A, R, R),
    (Algorithm::Aes256Cmac, A, A, R, A),
    // GMAC always takes the caller's nonce, which FIPS does not approve for GCM (IG C.H).
    (Algorithm::Aes128Gmac, A, R, R, R),
    (Algorithm::Aes256Gmac, A, R, R, R),
    (Algorithm::HkdfSha256, A, A, R, R),
    (Algorithm::HkdfSha384, A, A, R, A),
    (Algorithm::HkdfSha512, A, A, R, A),
    (Algorithm::Pbkdf2Sha256, A, A, R, R),
    (Algorithm::Pbkdf2Sha384, A, A, R, A),
    (Algorithm::Pbkdf2Sha512, A, A, R, A),
    (Algorithm::KbkdfCtrHmacSha256, A, A, R, R),
    (Algorithm::KbkdfCtrHmacSha384, A, A, R, A),
    (Algorithm::KbkdfCtrHmacSha512, A, A, R, A),
    // The kernel's fscrypt HKDF-SHA512: served flagged even by strict `gm` (SM4 fscrypt needs it).
    (Algorithm::FscryptHkdfSha512, A, A, F, A),
    // SP 800-135 Rev. 1 §4.2.2 (TLS 1.2 KDF); CNSA 2.0 with SHA-384 only.
    (Algorithm::Tls12PrfSha256, A, A, R, R),
    (Algorithm::Tls12PrfSha384, A, A, R, A),
    (Algorithm::EcdsaP256, A, A, R, R),
    (Algorithm::EcdsaP384, A, A, R, A),
    (Algorithm::EcdsaP521, A, A, R, R),
    (Algorithm::Ed25519, A, A, R, R),
    (Algorithm::RsaPssSha256, A, A, R, R),
    (Algorithm::RsaPssSha384, A, A, R, A),
    (Algorithm::RsaPssSha512, A, A, R, A),
    (Algorithm::RsaPkcs1Sha256, A, A, R, R),
    (Algorithm::RsaPkcs1Sha384, A, A, R, A),
    (Algorithm::RsaPkcs1Sha512, A, A, R, A),
    // Verification of existing SHA-1 signatures is legacy use, still approved.
    (Algorithm::RsaPkcs1Sha1, A, A, R, R),
    (Algorithm::EcdsaP256Sha1, A, A, R, R),
    // RSA-OAEP (SP 800-56B Rev. 2): SHA-1 not claimed approved under FIPS; CNSA 1.0's RSA with
    // SHA-384/512 transitional in CNSA 2.0, as for the signatures.
    (Algorithm::RsaOaepSha1, A, R, R, R),
    (Algorithm::RsaOaepSha256, A, A, R, R),
    (Algorithm::RsaOaepSha384, A, A, R, A),
    (Algorithm::RsaOaepSha512, A, A, R, A),
    (Algorithm::MlDsa44, A, A, R, R),
    (Algorithm::MlDsa65, A, A, R, R),
    (Algorithm::MlDsa87, A, A, R, A),
    (Algorithm::EcdhP256, A, A, R, R),
    (Algorithm::EcdhP384, A, A, R, A),
    (Algorithm::EcdhP521, A, A, R, R),
    (Algorithm::X25519, A, R, R, R),
    (Algorithm::MlKem768, A, A, R, R),
    (Algorithm::MlKem1024, A, A, R, A),
    (Algorithm::CtrDrbg, A, A, R, A),
    (Algorithm::Sm3, A, R, A, R),
    (Algorithm::HmacSm3, A, R, A, R),
    (Algorithm::Sm4Ecb, A, R, A, R),
    (Algorithm::Sm4Cbc, A, R, A, R),
    (Algorithm::Sm4Ctr, A, R, A, R),
    (Algorithm::Sm4Ofb, A, R, A, R),
    (Algorithm::Sm4Cfb, A, R, A, R),
    (Algorithm::Sm4Gcm, A, R, A, R),
    (Algorithm::Sm4Ccm, A, R, A, R),
    (Algorithm::Sm4Xts, A, R, A, R),
    (Algorithm::Sm4XtsGb, A, R, A, R),
    (Algorithm::Sm4CbcCs3, A, R, A, R),
    (Algorithm::Sm4Cmac, A, R, A, R),
    (Algorithm::Sm4XcbcMac, A, R, A, R),
    (Algorithm::Sm4CbcMac, A, R, A, R),
    // SM2 (GB/T 32918): signature, encryption, ECDH on curveSM2 (RFC 8998), key exchange.
    (Algorithm::Sm2Sign, A, R, A, R),
    (Algorithm::Sm2Encrypt, A, R, A, R),
    (Algorithm::Sm2Ecdh, A, R, A, R),
    (Algorithm::Sm2KeyExchange, A, R, A, R),
    // GM/T 0105-2021 random bit generators (SM3, SM4 CTR).
    (Algorithm::Sm3Drbg, A, R, A, R),
    (Algorithm::Sm4CtrDrbg, A, R, A, R),
];

fn expected(profile: Profile, algorithm: Algorithm) -> Expect {
    let row = TABLE
        .iter()
        .find(|row| row.0 == algorithm)
        .unwrap_or_else(|| panic!("{algorithm} is missing from the test's table"));
    match profile {
        Profile::Default => row.1,
        Profile::Fips1403 => row.2,
        Profile::Gm => row.3,
        Profile::Cnsa20 => row.4,
        other => panic!("no column for profile {other}"),
    }
}

fn load(profile: Profile) -> Module {
    let module = Module::load(Policy::builtin(profile));
    assert_eq!(module.state(), ModuleState::Operational, "{profile}");
    module
}

#[test]
fn table_lists_every_algorithm_once() {
    assert_eq!(TABLE.len(), Algorithm::ALL.len());
    for algorithm in Algorithm::ALL {
        let rows = TABLE.iter().filter(|row| row.0 == algorithm).count();
        assert_eq!(rows, 1, "{algorithm} appears {rows} times in the table");
    }
}

#[test]
fn builtin_modes() {
    assert_eq!(Policy::builtin(Profile::Default).mode(), Mode::Permissive);
    assert_eq!(Policy::builtin(Profile::Fips1403).mode(), Mode::Strict);
    assert_eq!(Policy::builtin(Profile::Gm).mode(), Mode::Strict);
    for profile in Profile::ALL {
        let policy = Policy::builtin(profile);
        assert_eq!(policy.name(), profile.name());
        assert_eq!(policy.profile(), profile);
        assert_eq!(Policy::load(profile.name()).unwrap(), policy);
    }
}

/// The policy object's own view agrees with the table.
#[test]
fn policy_approves_and_serves_per_table() {
    for profile in Profile::ALL {
        let policy = Policy::builtin(profile);
        let summary = policy.summary();
        assert_eq!(summary.algorithms.len(), Algorithm::ALL.len());
        for algorithm in Algorithm::ALL {
            let expect = expected(profile, algorithm);
            assert_eq!(
                policy.approves(algorithm),
                expect == A,
                "{profile}: approves({algorithm})"
            );
            assert_eq!(
                policy.serves(algorithm),
                expect != R,
                "{profile}: serves({algorithm})"
            );
            let row = summary
                .algorithms
                .iter()
                .find(|row| row.algorithm == algorithm.name())
                .unwrap_or_else(|| panic!("{profile}: summary lacks {algorithm}"));
            let status = if expect == A {
                "approved"
            } else {
                "not-approved"
            };
            assert_eq!(row.status, status, "{profile}: summary of {algorithm}");
            assert_eq!(row.served, expect != R, "{profile}: summary of {algorithm}");
            assert_eq!(row.family, algorithm.family().name());
        }
    }
}

/// The services themselves: every algorithm, every built-in profile, one real operation.
#[test]
fn services_follow_the_table_in_every_profile() {
    for profile in Profile::ALL {
        let module = load(profile);
        for algorithm in Algorithm::ALL {
            let expect = expected(profile, algorithm);
            match (expect, exercise(&module, algorithm)) {
                (A | F, Ok(indicators)) => {
                    assert!(!indicators.is_empty());
                    for indicator in indicators {
                        assert_eq!(indicator.algorithm, algorithm, "{profile}");
                        assert_eq!(indicator.policy, profile.name(), "{profile}/{algorithm}");
                        assert_eq!(
                            indicator.is_approved(),
                            expect == A,
                            "{profile}/{algorithm}: {:?} has approval {:?}",
                            indicator.service,
                            indicator.approval
                        );
                    }
                }
                (
                    R,
                    Err(Error::NotApproved {
                        algorithm: refused,
                        policy,
                        reason,
                        ..
                    }),
                ) => {
                    assert_eq!(refused, algorithm, "{profile}");
                    assert_eq!(policy, profile.name(), "{profile}/{algorithm}");
                    assert!(!reason.is_empty(), "{profile}/{algorithm}: empty reason");
                }
                (expect, outcome) => {
                    panic!("{profile}/{algorithm}: expected {expect:?}, got {outcome:?}")
                }
            }
        }
    }
}

#[test]
fn fips_refuses_md5_naming_the_policy_and_suggesting_sha256() {
    let module = load(Profile::Fips1403);
    let error = module.digest(Algorithm::Md5, b"abc").unwrap_err();
    let Error::NotApproved {
        algorithm,
        ref policy,
        ref reason,
        alternative,
    } = error
    else {
        panic!("expected NotApproved, got {error:?}");
    };
    assert_eq!(algorithm, Algorithm::Md5);
    assert_eq!(policy, "fips-140-3");
    assert!(!reason.is_empty());
    assert_eq!(alternative, Some("sha256"));
    assert_eq!(error.kind(), ErrorKind::NotApproved);
    let message = error.to_string();
    assert!(message.contains("md5"), "{message}");
    assert!(message.contains("fips-140-3"), "{message}");
    assert!(message.contains("sha256"), "{message}");
    // The incremental interface is gated the same way.
    assert!(matches!(
        module.digest_context(Algorithm::Md5),
        Err(Error::NotApproved { .. })
    ));
    // A refusal is not an operation: nothing counted, scope untouched.
    assert!(module.counters().is_empty());
    assert_eq!(module.indicator_state(), regula::IndicatorState::Unset);
}

#[test]
fn fips_alternatives_for_chacha_and_x25519() {
    let module = load(Profile::Fips1403);
    match module.aead_key(Algorithm::ChaCha20Poly1305, &[0; 32]) {
        Err(Error::NotApproved {
            alternative,
            policy,
            ..
        }) => {
            assert_eq!(alternative, Some("aes-256-gcm"));
            assert_eq!(policy, "fips-140-3");
        }
        other => panic!("expected NotApproved, got {other:?}"),
    }
    match module.generate_agreement_key(Algorithm::X25519) {
        Err(Error::NotApproved { alternative, .. }) => assert_eq!(alternative, Some("ecdh-p256")),
        other => panic!("expected NotApproved, got {other:?}"),
    }
}

/// Default (permissive) serves MD5, flagged, and the digest is RFC 1321's.
#[test]
fn default_serves_md5_flagged() {
    let module = load(Profile::Default);
    let digest = module.digest(Algorithm::Md5, b"abc").unwrap();
    // RFC 1321 §A.5, MD5 ("abc").
    assert_eq!(digest.as_slice(), unhex("900150983cd24fb0d6963f7d28e17f72"));
    assert_eq!(digest.indicator().approval, Approval::NotApproved);
    assert_eq!(digest.indicator().policy, "default");
}

/// SP 800-131A Rev. 2 §9: SHA-1 hashing is approved under FIPS, with NIST's dated end, and the
/// digest is FIPS 180-4's.
#[test]
fn fips_approves_sha1_hashing_until_its_transition_date() {
    let module = load(Profile::Fips1403);
    let digest = module.digest(Algorithm::Sha1, b"abc").unwrap();
    // FIPS 180-4 example (SHA1ShortMsg "abc").
    assert_eq!(
        digest.as_slice(),
        unhex("a9993e364706816aba3e25717850c26c9cd0d89d")
    );
    assert!(digest.is_approved());
    let rule = module.policy().rule(Algorithm::Sha1);
    assert_eq!(rule.transitions.last().map(|t| t.from), Some("2031-01-01"));
}

/// IG C.H: AES-GCM encryption with a caller-chosen IV is refused under FIPS; the module-
/// generated-IV seal is approved, and decryption is approved whoever chose the IV.
#[test]
fn fips_aes_gcm_caller_nonce_refused_generated_nonce_approved() {
    let module = load(Profile::Fips1403);
    for algorithm in [Algorithm::Aes128Gcm, Algorithm::Aes256Gcm] {
        let key = module
            .aead_key(algorithm, &vec![7; common::key_len(algorithm)])
            .unwrap();
        let nonce = [1u8; 12];
        match key.seal_with_nonce(&nonce, b"", b"plaintext") {
            Err(Error::NotApproved {
                algorithm: refused,
                policy,
                reason,
                ..
            }) => {
                assert_eq!(refused, algorithm);
                assert_eq!(policy, "fips-140-3");
                assert!(reason.contains("nonce"), "{reason}");
            }
            other => panic!("{algorithm}: expected NotApproved, got {other:?}"),
        }
        // The in-place form refuses before touching the buffer.
        let mut buffer = b"plaintext".to_vec();
        assert!(matches!(
            key.seal_in_place_with_nonce(&nonce, b"", &mut buffer),
            Err(Error::NotApproved { .. })
        ));
        assert_eq!(buffer, b"plaintext");

        let sealed = key.seal(b"header", b"plaintext").unwrap();
        assert!(sealed.is_approved());
        assert_eq!(sealed.indicator().service, Service::Encrypt);
        assert_eq!(sealed.ciphertext.len(), b"plaintext".len() + 16);
        let opened = key
            .open(&sealed.nonce, b"header", &sealed.ciphertext)
            .unwrap();
        assert!(opened.is_approved());
        assert_eq!(opened.as_slice(), b"plaintext");
    }

    // Under default the caller's nonce is fine.
    let default = load(Profile::Default);
    let key = default.aead_key(Algorithm::Aes128Gcm, &[7; 16]).unwrap();
    assert!(
        key.seal_with_nonce(&[1; 12], b"", b"plaintext")
            .unwrap()
            .is_approved()
    );
}

/// GCM spec test case 2 (McGrew & Viega): decrypting a ciphertext made with an external IV
/// is approved under FIPS.
#[test]
fn fips_decrypts_external_iv_ciphertext() {
    let module = load(Profile::Fips1403);
    let key = module.aead_key(Algorithm::Aes128Gcm, &[0; 16]).unwrap();
    let opened = key
        .open(
            &[0; 12],
            b"",
            &unhex("0388dace60b6a392f328c2b971b2fe78 ab6e47d42cec13bdf53a67b21257bddf"),
        )
        .unwrap();
    assert_eq!(opened.as_slice(), [0u8; 16]);
    assert!(opened.is_approved());
}

/// SP 800-131A Rev. 2: HMAC keys need ≥ 112 bits (14 bytes) under FIPS.
#[test]
fn hmac_key_length_limit() {
    let fips = load(Profile::Fips1403);
    for algorithm in [
        Algorithm::HmacSha224,
        Algorithm::HmacSha256,
        Algorithm::HmacSha384,
        Algorithm::HmacSha512,
    ] {
        match fips.mac_key(algorithm, &[0xaa; 10]) {
            Err(Error::NotApproved {
                algorithm: refused,
                policy,
                reason,
                ..
            }) => {
                assert_eq!(refused, algorithm);
                assert_eq!(policy, "fips-140-3");
                assert!(reason.contains("10"), "{reason}");
                assert!(reason.contains("14"), "{reason}");
            }
            other => panic!("{algorithm}: expected NotApproved, got {other:?}"),
        }
        let boundary = fips.mac_key(algorithm, &[0xaa; 14]).unwrap();
        assert!(boundary.sign(b"data").unwrap().is_approved());
        assert!(fips.mac_key(algorithm, &[0xaa; 13]).is_err());
    }

    let default = load(Profile::Default);
    let key = default.mac_key(Algorithm::HmacSha256, &[0xaa; 10]).unwrap();
    let tag = key.sign(b"data").unwrap();
    assert!(tag.is_approved());
    assert_eq!(tag.len(), 32);

    // A permissive file on top of FIPS serves the short key, flagged.
    let lenient = Module::load(
        file::parse(
            "base = \"fips-140-3\"\nmode = \"permissive\"\nname = \"lenient\"\n",
            "lenient.toml",
        )
        .unwrap(),
    );
    let key = lenient.mac_key(Algorithm::HmacSha256, &[0xaa; 10]).unwrap();
    let tag = key.sign(b"data").unwrap();
    assert_eq!(tag.indicator().approval, Approval::NotApproved);
    assert_eq!(tag.indicator().policy, "lenient");
}

/// The same 112-bit rule for HKDF input keying material, and the salt and info that AWS-LC's
/// validated module requires before it flags HKDF approved (its `HKDF_verify_service_indicator`;
/// tests/fips_indicator_agreement.rs measures the same calls).
#[test]
fn hkdf_limits() {
    let fips = load(Profile::Fips1403);
    let refused = |secret: &[u8], salt: &[u8], info: &[u8]| {
        matches!(
            fips.hkdf(Algorithm::HkdfSha256, secret, salt, info, 32),
            Err(Error::NotApproved { .. })
        )
    };
    assert!(refused(&[1; 13], b"salt", b"info"));
    assert!(refused(&[1; 14], b"", b"info"));
    assert!(refused(&[1; 14], b"salt", b""));
    assert!(
        fips.hkdf(Algorithm::HkdfSha256, &[1; 14], b"s", b"i", 32)
            .unwrap()
            .is_approved()
    );
    let default = load(Profile::Default);
    assert!(
        default
            .hkdf(Algorithm::HkdfSha256, &[1; 13], b"", b"", 32)
            .unwrap()
            .is_approved()
    );
}

/// SP 800-132: salt ≥ 16 bytes, ≥ 1000 iterations, output ≥ 14 bytes, password ≥ 14 bytes.
#[test]
fn pbkdf2_limits() {
    let fips = load(Profile::Fips1403);
    let password = b"correct horse battery";
    let ok = fips
        .pbkdf2(Algorithm::Pbkdf2Sha256, password, &[0; 16], 1000, 14)
        .unwrap();
    assert!(ok.is_approved());
    for (what, password, salt_len, iterations, len) in [
        ("short salt", &password[..], 15, 1000, 32),
        ("few iterations", &password[..], 16, 999, 32),
        ("short output", &password[..], 16, 1000, 13),
        ("short password", &b"thirteen byte"[..], 16, 1000, 32),
    ] {
        let salt = vec![0u8; salt_len];
        match fips.pbkdf2(Algorithm::Pbkdf2Sha256, password, &salt, iterations, len) {
            Err(Error::NotApproved { policy, .. }) => assert_eq!(policy, "fips-140-3", "{what}"),
            other => panic!("{what}: expected NotApproved, got {other:?}"),
        }
        let default = load(Profile::Default);
        assert!(
            default
                .pbkdf2(Algorithm::Pbkdf2Sha256, password, &salt, iterations, len)
                .unwrap()
                .is_approved(),
            "{what} under default"
        );
    }
}

/// FIPS 186-5 / SP 800-131A: RSA ≥ 2048 bits; AWS-LC's validated generation stops at 4096.
#[test]
fn rsa_key_size_limits() {
    let fips = load(Profile::Fips1403);
    for (bits, bound) in [(1024, "2048"), (8192, "4096")] {
        match fips.generate_signing_key(Algorithm::RsaPssSha256, Some(bits)) {
            Err(Error::NotApproved {
                algorithm,
                policy,
                reason,
                ..
            }) => {
                assert_eq!(algorithm, Algorithm::RsaPssSha256);
                assert_eq!(policy, "fips-140-3");
                assert!(reason.contains(bound), "{bits}: {reason}");
            }
            other => panic!("{bits} bits: expected NotApproved, got {other:?}"),
        }
    }
    // A size inside the limits that AWS-LC does not generate is an input error.
    assert!(matches!(
        fips.generate_signing_key(Algorithm::RsaPssSha256, Some(3000)),
        Err(Error::InvalidInput { .. })
    ));
    // Even the permissive default cannot generate RSA-1024.
    let default = load(Profile::Default);
    assert!(
        default
            .generate_signing_key(Algorithm::RsaPkcs1Sha256, Some(1024))
            .is_err()
    );

    // RSA-2048 is approved for every RSA scheme in both profiles (import and sign).
    for module in [&fips, &default] {
        for algorithm in [
            Algorithm::RsaPssSha256,
            Algorithm::RsaPssSha384,
            Algorithm::RsaPssSha512,
            Algorithm::RsaPkcs1Sha256,
            Algorithm::RsaPkcs1Sha384,
            Algorithm::RsaPkcs1Sha512,
        ] {
            let key = module
                .signing_key_from_pkcs8(algorithm, rsa2048_pkcs8())
                .unwrap();
            assert_eq!(key.key_bits(), 2048);
            let signature = key.sign(b"message").unwrap();
            assert!(signature.is_approved(), "{algorithm}");
            assert_eq!(signature.len(), 256, "{algorithm}");
        }
    }
}

/// A policy file may raise the RSA minimum; a 2048-bit key is then refused for signing and
/// verification alike.
#[test]
fn policy_file_raises_rsa_minimum() {
    let policy = file::parse(
        "base = \"fips-140-3\"\nname = \"rsa3k\"\n[limits.rsa-pss-sha256]\nmin_key_bits = 3072\n",
        "rsa3k.toml",
    )
    .unwrap();
    let module = Module::load(policy);
    match module.signing_key_from_pkcs8(Algorithm::RsaPssSha256, rsa2048_pkcs8()) {
        Err(Error::NotApproved { policy, reason, .. }) => {
            assert_eq!(policy, "rsa3k");
            assert!(reason.contains("3072"), "{reason}");
        }
        other => panic!("expected NotApproved, got {other:?}"),
    }
    // Other schemes keep the base limits.
    let key = module
        .signing_key_from_pkcs8(Algorithm::RsaPkcs1Sha256, rsa2048_pkcs8())
        .unwrap();
    let signature = key.sign(b"m").unwrap();
    let public_key = key.public_key_der().unwrap();
    assert!(
        module
            .verify(Algorithm::RsaPkcs1Sha256, &public_key, b"m", &signature)
            .unwrap()
            .is_approved()
    );
    // Verification with the same 2048-bit public key under PSS-SHA256 is refused too.
    assert!(matches!(
        module.verify(Algorithm::RsaPssSha256, &public_key, b"m", &signature),
        Err(Error::NotApproved { .. })
    ));
}

/// A permissive policy file serves SHA-1 with the indicator saying "not approved".
#[test]
fn permissive_policy_file_serves_md5_not_approved() {
    let policy = file::parse(
        "base = \"fips-140-3\"\nname = \"legacy-check\"\nmode = \"permissive\"\n",
        "legacy.toml",
    )
    .unwrap();
    assert_eq!(policy.mode(), Mode::Permissive);
    assert_eq!(policy.origin(), "legacy.toml");
    let module = Module::load(policy);
    assert_eq!(module.state(), ModuleState::Operational);

    let digest = module.digest(Algorithm::Md5, b"abc").unwrap();
    assert_eq!(digest.as_slice(), unhex("900150983cd24fb0d6963f7d28e17f72"));
    let indicator = digest.indicator();
    assert_eq!(indicator.algorithm, Algorithm::Md5);
    assert_eq!(indicator.service, Service::Digest);
    assert_eq!(indicator.approval, Approval::NotApproved);
    assert_eq!(indicator.policy, "legacy-check");

    // Permissive never widens approval: FIPS's non-approved algorithms stay flagged.
    for algorithm in [Algorithm::ChaCha20Poly1305, Algorithm::X25519] {
        for indicator in exercise(&module, algorithm).unwrap() {
            assert_eq!(indicator.approval, Approval::NotApproved, "{algorithm}");
        }
    }
    assert!(
        module
            .digest(Algorithm::Sha256, b"abc")
            .unwrap()
            .is_approved()
    );
    // And the caller-nonce rule still marks GCM encryption as not approved.
    let key = module.aead_key(Algorithm::Aes256Gcm, &[3; 32]).unwrap();
    let sealed = key.seal_with_nonce(&[0; 12], b"", b"x").unwrap();
    assert_eq!(sealed.indicator().approval, Approval::NotApproved);
}

/// `allow` and `deny` exclude algorithms, whatever the mode.
#[test]
fn policy_file_allow_and_deny() {
    let policy = file::parse(
        "base = \"default\"\nname = \"narrow\"\nmode = \"permissive\"\n\
         allow = [\"sha256\", \"sha1\", \"aes-256-gcm\"]\ndeny = [\"sha1\"]\n",
        "narrow.toml",
    )
    .unwrap();
    let module = Module::load(policy);
    assert!(
        module
            .digest(Algorithm::Sha256, b"abc")
            .unwrap()
            .is_approved()
    );
    for algorithm in [Algorithm::Md5, Algorithm::Sha384] {
        match module.digest(algorithm, b"abc") {
            Err(Error::NotApproved { policy, .. }) => assert_eq!(policy, "narrow"),
            other => panic!("{algorithm}: expected refusal, got {other:?}"),
        }
    }
    assert!(module.aead_key(Algorithm::Aes256Gcm, &[0; 32]).is_ok());
    assert!(matches!(
        module.aead_key(Algorithm::Aes128Gcm, &[0; 16]),
        Err(Error::NotApproved { .. })
    ));
}

#[test]
fn policy_file_cannot_loosen_fips() {
    let error = file::parse(
        "base = \"fips-140-3\"\n[limits.aes-128-gcm]\ncaller_nonce_approved = true\n",
        "loose.toml",
    )
    .unwrap_err();
    assert!(error.message.contains("loosen"), "{error}");
    let error = file::parse(
        "base = \"fips-140-3\"\n[limits.hmac-sha256]\nmin_secret_bytes = 8\n",
        "loose.toml",
    )
    .unwrap_err();
    assert!(error.message.contains("loosen"), "{error}");
}

/// An algorithm handed to the wrong family's entry point is an input error, not a refusal.
#[test]
fn wrong_family_is_reported() {
    let module = load(Profile::Default);
    assert_eq!(
        module.digest(Algorithm::Aes128Gcm, b"abc").unwrap_err(),
        Error::WrongFamily {
            algorithm: Algorithm::Aes128Gcm,
            expected: Family::Digest,
        }
    );
    assert!(matches!(
        module.aead_key(Algorithm::Sha256, &[0; 32]),
        Err(Error::WrongFamily { .. })
    ));
    assert!(matches!(
        module.generate_kem_key(Algorithm::EcdhP256),
        Err(Error::WrongFamily { .. })
    ));
}

/// `Module::load_named` takes a built-in profile name or a policy file path.
#[test]
fn load_named_profiles_and_files() {
    for profile in Profile::ALL {
        let module = Module::load_named(profile.name()).unwrap();
        assert_eq!(module.policy(), &Policy::builtin(profile));
    }
    let path = std::env::temp_dir().join(format!(
        "regula-approval-tables-{}.toml",
        std::process::id()
    ));
    std::fs::write(
        &path,
        "base = \"fips-140-3\"\nname = \"from-file\"\nallow = [\"sha256\"]\n",
    )
    .unwrap();
    let loaded = Module::load_named(path.to_str().unwrap());
    std::fs::remove_file(&path).unwrap();
    let module = loaded.unwrap();
    assert_eq!(module.policy().name(), "from-file");
    assert_eq!(module.policy().origin(), path.to_str().unwrap());
    let digest = module.digest(Algorithm::Sha256, b"abc").unwrap();
    assert_eq!(digest.indicator().policy, "from-file");
    assert!(digest.is_approved());
    assert!(matches!(
        module.digest(Algorithm::Sha384, b"abc"),
        Err(Error::NotApproved { .. })
    ));

    let error = Module::load_named("fips").unwrap_err();
    assert_eq!(error.origin, "fips");
    assert!(error.message.contains("fips-140-3"), "{error}");
}

/// Error kinds: the CLI maps them to exit codes.
#[test]
fn error_kinds() {
    let fips = load(Profile::Fips1403);
    assert_eq!(
        fips.digest(Algorithm::Md5, b"").unwrap_err().kind(),
        ErrorKind::NotApproved
    );
    assert_eq!(
        fips.aead_key(Algorithm::Aes128Gcm, &[0; 3])
            .unwrap_err()
            .kind(),
        ErrorKind::Input
    );
    let key = fips.aead_key(Algorithm::Aes128Gcm, &[0; 16]).unwrap();
    assert_eq!(
        key.open(&[0; 12], b"", &[0; 32]).unwrap_err().kind(),
        ErrorKind::Cryptographic
    );
    assert_eq!(
        Error::ModuleInErrorState {
            failed_test: "AES-GCM".into()
        }
        .kind(),
        ErrorKind::ModuleState
    );
}

/// Every refusal's suggested alternative is approved by the same profile (a cnsa-2.0 refusal
/// points at AES-256, SHA-384, ML-KEM-1024 or ML-DSA-87, never at something it refuses too).
#[test]
fn alternatives_are_approved_by_the_same_profile() {
    for profile in Profile::ALL {
        let policy = Policy::builtin(profile);
        for algorithm in Algorithm::ALL {
            if let regula::policy::Status::NotApproved {
                alternative: Some(alternative),
                ..
            } = policy.rule(algorithm).status
            {
                let suggested = Algorithm::from_name(alternative)
                    .unwrap_or_else(|| panic!("{profile}/{algorithm}: unknown {alternative}"));
                assert!(
                    policy.approves(suggested),
                    "{profile}/{algorithm}: the alternative {alternative} is not approved"
                );
            }
        }
    }
}
