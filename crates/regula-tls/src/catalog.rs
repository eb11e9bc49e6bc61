//! What each TLS building block needs from the policy.
//!
//! A cipher suite, key-exchange group or signature scheme is offered only when the policy serves
//! every algorithm it is built from. This file is the only place that says what those are; the
//! algorithms' own rules live in the core registry.

use regula::Algorithm;
use rustls::SignatureScheme;
use rustls::SupportedCipherSuite;
use rustls::crypto::SupportedKxGroup;
use rustls::crypto::aws_lc_rs::{cipher_suite as suite, kx_group};
use rustls::pki_types::SignatureVerificationAlgorithm;
use webpki::aws_lc_rs as webpki_algs;

/// Where a suite's implementation comes from.
pub enum SuiteImpl {
    /// rustls' aws-lc-rs suite, wrapped so that each step passes the module's gate.
    AwsLc(SupportedCipherSuite),
    /// RFC 8998, built on the module's SM services (see `rfc8998.rs`).
    Sm4Gcm,
    Sm4Ccm,
}

/// A cipher suite and the algorithms it runs on.
pub struct SuiteRow {
    pub suite: SuiteImpl,
    /// Record protection.
    pub aead: Algorithm,
    /// Key schedule: HKDF for TLS 1.3, the HMAC-based PRF (SP 800-135 §4.2) for TLS 1.2.
    pub kdf: Algorithm,
}

/// In preference order (a server picks the first the client also offers).
pub static SUITES: &[SuiteRow] = &[
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS13_AES_256_GCM_SHA384),
        aead: Algorithm::Aes256Gcm,
        kdf: Algorithm::HkdfSha384,
    },
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS13_AES_128_GCM_SHA256),
        aead: Algorithm::Aes128Gcm,
        kdf: Algorithm::HkdfSha256,
    },
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS13_CHACHA20_POLY1305_SHA256),
        aead: Algorithm::ChaCha20Poly1305,
        kdf: Algorithm::HkdfSha256,
    },
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384),
        aead: Algorithm::Aes256Gcm,
        kdf: Algorithm::HmacSha384,
    },
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256),
        aead: Algorithm::Aes128Gcm,
        kdf: Algorithm::HmacSha256,
    },
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256),
        aead: Algorithm::ChaCha20Poly1305,
        kdf: Algorithm::HmacSha256,
    },
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384),
        aead: Algorithm::Aes256Gcm,
        kdf: Algorithm::HmacSha384,
    },
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256),
        aead: Algorithm::Aes128Gcm,
        kdf: Algorithm::HmacSha256,
    },
    SuiteRow {
        suite: SuiteImpl::AwsLc(suite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256),
        aead: Algorithm::ChaCha20Poly1305,
        kdf: Algorithm::HmacSha256,
    },
    // RFC 8998 §2: TLS 1.3 only; the key schedule is HKDF over HMAC-SM3.
    SuiteRow {
        suite: SuiteImpl::Sm4Gcm,
        aead: Algorithm::Sm4Gcm,
        kdf: Algorithm::HmacSm3,
    },
    SuiteRow {
        suite: SuiteImpl::Sm4Ccm,
        aead: Algorithm::Sm4Ccm,
        kdf: Algorithm::HmacSm3,
    },
];

/// Where a group's implementation comes from.
pub enum GroupImpl {
    AwsLc(&'static dyn SupportedKxGroup),
    /// RFC 8998 curveSM2 through the module's SM2 ECDH.
    CurveSm2,
}

/// A key-exchange group and the algorithms it runs on.
pub struct GroupRow {
    pub group: GroupImpl,
    /// Every one of these must be served, and each key exchange counts against them.
    pub needs: &'static [Algorithm],
    /// A hybrid's classical half: its secret is only auxiliary input to the approved KEM's key
    /// derivation (SP 800-56C Rev. 2 §2, SP 800-227 §4.6), so it decides nothing about approval.
    /// It is gated and counted when a client completes it alone (the server chose the classical
    /// group from the shares the client sent).
    pub auxiliary: Option<Algorithm>,
}

/// In preference order: a client sends its key share for the first one.
pub static GROUPS: &[GroupRow] = &[
    GroupRow {
        group: GroupImpl::AwsLc(kx_group::X25519MLKEM768),
        needs: &[Algorithm::MlKem768],
        auxiliary: Some(Algorithm::X25519),
    },
    GroupRow {
        group: GroupImpl::AwsLc(kx_group::SECP256R1MLKEM768),
        needs: &[Algorithm::MlKem768],
        auxiliary: Some(Algorithm::EcdhP256),
    },
    // FIPS 203 ML-KEM-1024 alone, CNSA 2.0's key establishment: after the hybrids, so that a
    // client under a profile that serves them still sends its first key share for one; first
    // under cnsa-2.0, where P-384 (CNSA 1.0) is the only other group.
    GroupRow {
        group: GroupImpl::AwsLc(kx_group::MLKEM1024),
        needs: &[Algorithm::MlKem1024],
        auxiliary: None,
    },
    GroupRow {
        group: GroupImpl::AwsLc(kx_group::X25519),
        needs: &[Algorithm::X25519],
        auxiliary: None,
    },
    GroupRow {
        group: GroupImpl::AwsLc(kx_group::SECP256R1),
        needs: &[Algorithm::EcdhP256],
        auxiliary: None,
    },
    GroupRow {
        group: GroupImpl::AwsLc(kx_group::SECP384R1),
        needs: &[Algorithm::EcdhP384],
        auxiliary: None,
    },
    GroupRow {
        group: GroupImpl::CurveSm2,
        needs: &[Algorithm::Sm2Ecdh],
        auxiliary: None,
    },
];

/// The algorithm behind a TLS handshake signature scheme, if the module has it.
pub fn scheme_algorithm(scheme: SignatureScheme) -> Option<Algorithm> {
    Some(match scheme {
        SignatureScheme::ECDSA_NISTP256_SHA256 => Algorithm::EcdsaP256,
        SignatureScheme::ECDSA_NISTP384_SHA384 => Algorithm::EcdsaP384,
        SignatureScheme::ECDSA_NISTP521_SHA512 => Algorithm::EcdsaP521,
        SignatureScheme::ED25519 => Algorithm::Ed25519,
        SignatureScheme::RSA_PSS_SHA256 => Algorithm::RsaPssSha256,
        SignatureScheme::RSA_PSS_SHA384 => Algorithm::RsaPssSha384,
        SignatureScheme::RSA_PSS_SHA512 => Algorithm::RsaPssSha512,
        SignatureScheme::RSA_PKCS1_SHA256 => Algorithm::RsaPkcs1Sha256,
        SignatureScheme::RSA_PKCS1_SHA384 => Algorithm::RsaPkcs1Sha384,
        SignatureScheme::RSA_PKCS1_SHA512 => Algorithm::RsaPkcs1Sha512,
        crate::rfc8998::SM2SIG_SM3 => Algorithm::Sm2Sign,
        _ => return None,
    })
}

/// Where a signature verifier comes from.
pub enum VerifierImpl {
    AwsLc(&'static dyn SignatureVerificationAlgorithm),
    /// SM2-with-SM3 through the module, with this signer ID.
    Sm2 {
        id: &'static [u8],
    },
}

/// A certificate or handshake signature verifier and the algorithm behind it.
pub struct VerifierRow {
    pub verifier: VerifierImpl,
    /// Used for certificate-chain signatures (otherwise only for handshake signatures).
    pub certificates: bool,
    pub algorithm: Algorithm,
    /// The hash, where the signature algorithm's row does not name it (ECDSA): it must be
    /// served too (cnsa-2.0 serves P-384 with SHA-384 only).
    pub digest: Option<Algorithm>,
    /// The handshake signature schemes this verifier serves (TLS 1.2 does not bind the curve to
    /// the scheme, so one scheme maps to several verifiers).
    pub schemes: &'static [SignatureScheme],
}

/// Certificate-chain and handshake signature verifiers.
pub static VERIFIERS: &[VerifierRow] = &[
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::ECDSA_P256_SHA256),
        certificates: true,
        algorithm: Algorithm::EcdsaP256,
        digest: Some(Algorithm::Sha256),
        schemes: &[SignatureScheme::ECDSA_NISTP256_SHA256],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::ECDSA_P256_SHA384),
        certificates: true,
        algorithm: Algorithm::EcdsaP256,
        digest: Some(Algorithm::Sha384),
        schemes: &[SignatureScheme::ECDSA_NISTP384_SHA384],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::ECDSA_P384_SHA256),
        certificates: true,
        algorithm: Algorithm::EcdsaP384,
        digest: Some(Algorithm::Sha256),
        schemes: &[SignatureScheme::ECDSA_NISTP256_SHA256],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::ECDSA_P384_SHA384),
        certificates: true,
        algorithm: Algorithm::EcdsaP384,
        digest: Some(Algorithm::Sha384),
        schemes: &[SignatureScheme::ECDSA_NISTP384_SHA384],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::ECDSA_P521_SHA512),
        certificates: true,
        algorithm: Algorithm::EcdsaP521,
        digest: Some(Algorithm::Sha512),
        schemes: &[SignatureScheme::ECDSA_NISTP521_SHA512],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::ED25519),
        certificates: true,
        algorithm: Algorithm::Ed25519,
        digest: None,
        schemes: &[SignatureScheme::ED25519],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::RSA_PSS_2048_8192_SHA256_LEGACY_KEY),
        certificates: true,
        algorithm: Algorithm::RsaPssSha256,
        digest: None,
        schemes: &[SignatureScheme::RSA_PSS_SHA256],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::RSA_PSS_2048_8192_SHA384_LEGACY_KEY),
        certificates: true,
        algorithm: Algorithm::RsaPssSha384,
        digest: None,
        schemes: &[SignatureScheme::RSA_PSS_SHA384],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::RSA_PSS_2048_8192_SHA512_LEGACY_KEY),
        certificates: true,
        algorithm: Algorithm::RsaPssSha512,
        digest: None,
        schemes: &[SignatureScheme::RSA_PSS_SHA512],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::RSA_PKCS1_2048_8192_SHA256),
        certificates: true,
        algorithm: Algorithm::RsaPkcs1Sha256,
        digest: None,
        schemes: &[SignatureScheme::RSA_PKCS1_SHA256],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::RSA_PKCS1_2048_8192_SHA384),
        certificates: true,
        algorithm: Algorithm::RsaPkcs1Sha384,
        digest: None,
        schemes: &[SignatureScheme::RSA_PKCS1_SHA384],
    },
    VerifierRow {
        verifier: VerifierImpl::AwsLc(webpki_algs::RSA_PKCS1_2048_8192_SHA512),
        certificates: true,
        algorithm: Algorithm::RsaPkcs1Sha512,
        digest: None,
        schemes: &[SignatureScheme::RSA_PKCS1_SHA512],
    },
    // SM2 certificates are signed with the GM/T 0003.2 default ID, CertificateVerify with the
    // RFC 8998 §3.2.1 ID: the same key, two verifiers.
    VerifierRow {
        verifier: VerifierImpl::Sm2 {
            id: crate::rfc8998::DEFAULT_SIGNER_ID,
        },
        certificates: true,
        algorithm: Algorithm::Sm2Sign,
        digest: None,
        schemes: &[],
    },
    VerifierRow {
        verifier: VerifierImpl::Sm2 {
            id: crate::rfc8998::TLS13_SIGNER_ID,
        },
        certificates: false,
        algorithm: Algorithm::Sm2Sign,
        digest: None,
        schemes: &[crate::rfc8998::SM2SIG_SM3],
    },
];

/// The service indicator's verdict for a connection that negotiated `suite` and `group`: true
/// when the policy approves every algorithm they run on (record protection, key schedule, key
/// exchange); `None` for a suite or group this catalog does not know.
pub fn connection_approved(
    policy: &regula::Policy,
    suite: rustls::CipherSuite,
    group: Option<rustls::NamedGroup>,
) -> Option<bool> {
    let row = SUITES.iter().find(|row| {
        let id = match &row.suite {
            SuiteImpl::AwsLc(supported) => supported.suite(),
            SuiteImpl::Sm4Gcm => crate::rfc8998::TLS_SM4_GCM_SM3,
            SuiteImpl::Sm4Ccm => crate::rfc8998::TLS_SM4_CCM_SM3,
        };
        id == suite
    })?;
    let mut approved = policy.approves(row.aead) && policy.approves(row.kdf);
    if let Some(group) = group {
        let row = GROUPS.iter().find(|row| {
            let name = match &row.group {
                GroupImpl::AwsLc(supported) => supported.name(),
                GroupImpl::CurveSm2 => crate::rfc8998::CURVE_SM2,
            };
            name == group
        })?;
        approved &= row
            .needs
            .iter()
            .all(|algorithm| policy.approves(*algorithm));
    }
    Some(approved)
}
