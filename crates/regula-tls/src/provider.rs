//! A rustls `CryptoProvider` assembled from a module's policy.

use std::sync::{Arc, Mutex};

use regula::Module;
use rustls::crypto::{
    CryptoProvider, KeyProvider, SupportedKxGroup, WebPkiSupportedAlgorithms, aws_lc_rs,
};
use rustls::pki_types::{PrivateKeyDer, SignatureVerificationAlgorithm};
use rustls::sign::SigningKey;
use rustls::{
    CipherSuite, NamedGroup, SignatureScheme, SupportedCipherSuite, SupportedProtocolVersion,
    Tls12CipherSuite, Tls13CipherSuite,
};

use crate::TlsError;
use crate::accounting::{
    AccountedHkdf, AccountedKxGroup, AccountedPrf, AccountedSigningKey, AccountedTls12Aead,
    AccountedTls13Aead, AccountedVerifier,
};
use crate::catalog::{GROUPS, GroupImpl, SUITES, SuiteImpl, VERIFIERS, VerifierImpl};
use crate::rfc8998;

/// Everything a TLS endpoint may use under one module's policy.
#[derive(Clone)]
pub struct TlsPolicy {
    pub(crate) module: Module,
    pub(crate) provider: Arc<CryptoProvider>,
    pub(crate) versions: Vec<&'static SupportedProtocolVersion>,
    pub(crate) require_ems: bool,
}

impl std::fmt::Debug for TlsPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsPolicy")
            .field("policy", &self.module.policy().name())
            .field("versions", &self.version_names())
            .field("suites", &self.suite_names())
            .field("groups", &self.group_names())
            .finish()
    }
}

impl TlsPolicy {
    /// What `module`'s policy allows. The provider tables live for the rest of the process
    /// (rustls wants `'static` parts), so they are built once per module and reused.
    pub fn for_module(module: &Module) -> Result<TlsPolicy, TlsError> {
        static BUILT: Mutex<Vec<TlsPolicy>> = Mutex::new(Vec::new());
        if module.state() != regula::ModuleState::Operational {
            return Err(TlsError::ModuleInErrorState(
                module.failed_test().unwrap_or("unknown").to_string(),
            ));
        }
        let mut built = BUILT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(known) = built.iter().find(|known| known.module.same_module(module)) {
            return Ok(known.clone());
        }
        let policy = build(module)?;
        built.push(policy.clone());
        Ok(policy)
    }

    pub fn module(&self) -> &Module {
        &self.module
    }

    pub fn provider(&self) -> &Arc<CryptoProvider> {
        &self.provider
    }

    pub fn version_names(&self) -> Vec<&'static str> {
        self.versions
            .iter()
            .map(|version| match version.version {
                rustls::ProtocolVersion::TLSv1_2 => "TLSv1.2",
                rustls::ProtocolVersion::TLSv1_3 => "TLSv1.3",
                _ => "other",
            })
            .collect()
    }

    pub fn suite_names(&self) -> Vec<String> {
        self.provider
            .cipher_suites
            .iter()
            .map(|suite| suite_name(suite.suite()))
            .collect()
    }

    pub fn group_names(&self) -> Vec<String> {
        self.provider
            .kx_groups
            .iter()
            .map(|group| group_name(group.name()))
            .collect()
    }

    pub fn signature_scheme_names(&self) -> Vec<String> {
        self.provider
            .signature_verification_algorithms
            .mapping
            .iter()
            .map(|(scheme, _)| scheme_name(*scheme))
            .collect()
    }

    pub fn require_extended_master_secret(&self) -> bool {
        self.require_ems
    }
}

/// IANA-style names, as scanners print them.
pub fn suite_name(suite: CipherSuite) -> String {
    match suite {
        rfc8998::TLS_SM4_GCM_SM3 => return "TLS_SM4_GCM_SM3".to_string(),
        rfc8998::TLS_SM4_CCM_SM3 => return "TLS_SM4_CCM_SM3".to_string(),
        _ => {}
    }
    format!("{suite:?}").replace("TLS13_", "TLS_")
}

pub fn group_name(group: NamedGroup) -> String {
    match group {
        NamedGroup::secp256r1 => "P-256".to_string(),
        NamedGroup::secp384r1 => "P-384".to_string(),
        NamedGroup::secp521r1 => "P-521".to_string(),
        rfc8998::CURVE_SM2 => "curveSM2".to_string(),
        other => format!("{other:?}"),
    }
}

pub fn scheme_name(scheme: SignatureScheme) -> String {
    if scheme == rfc8998::SM2SIG_SM3 {
        return "sm2sig_sm3".to_string();
    }
    format!("{scheme:?}").to_lowercase()
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn build(module: &Module) -> Result<TlsPolicy, TlsError> {
    let policy = module.policy();
    let rules = policy.tls();
    let mut versions = Vec::new();
    if rules.tls13 {
        versions.push(&rustls::version::TLS13);
    }
    if rules.tls12 {
        versions.push(&rustls::version::TLS12);
    }

    let cipher_suites: Vec<SupportedCipherSuite> = SUITES
        .iter()
        .filter(|row| policy.serves(row.aead) && policy.serves(row.kdf))
        .filter_map(|row| match row.suite {
            SuiteImpl::Sm4Gcm | SuiteImpl::Sm4Ccm if rules.tls13 => {
                let suite = match row.suite {
                    SuiteImpl::Sm4Gcm => rfc8998::TLS_SM4_GCM_SM3,
                    _ => rfc8998::TLS_SM4_CCM_SM3,
                };
                let hmac: &'static dyn rustls::crypto::hmac::Hmac = leak(rfc8998::HmacSm3 {
                    module: module.clone(),
                });
                Some(SupportedCipherSuite::Tls13(leak(Tls13CipherSuite {
                    common: rustls::CipherSuiteCommon {
                        suite,
                        hash_provider: leak(rfc8998::Sm3Hash {
                            module: module.clone(),
                        }),
                        // SM4 has AES's 128-bit block: the same bound as AES-GCM (2^24 full
                        // records per key).
                        confidentiality_limit: 1 << 24,
                    },
                    hkdf_provider: leak(rustls::crypto::tls13::HkdfUsingHmac(hmac)),
                    aead_alg: leak(rfc8998::Sm4Aead {
                        module: module.clone(),
                        algorithm: row.aead,
                    }),
                    quic: None,
                })))
            }
            SuiteImpl::AwsLc(SupportedCipherSuite::Tls13(suite)) if rules.tls13 => {
                Some(SupportedCipherSuite::Tls13(leak(Tls13CipherSuite {
                    common: common(&suite.common),
                    hkdf_provider: leak(AccountedHkdf {
                        inner: suite.hkdf_provider,
                        module: module.clone(),
                        algorithm: row.kdf,
                    }),
                    aead_alg: leak(AccountedTls13Aead {
                        inner: suite.aead_alg,
                        module: module.clone(),
                        algorithm: row.aead,
                    }),
                    quic: suite.quic,
                })))
            }
            SuiteImpl::AwsLc(SupportedCipherSuite::Tls12(suite)) if rules.tls12 => {
                Some(SupportedCipherSuite::Tls12(leak(Tls12CipherSuite {
                    common: common(&suite.common),
                    prf_provider: leak(AccountedPrf {
                        inner: suite.prf_provider,
                        module: module.clone(),
                        algorithm: row.kdf,
                    }),
                    kx: suite.kx,
                    sign: suite.sign,
                    aead_alg: leak(AccountedTls12Aead {
                        inner: suite.aead_alg,
                        module: module.clone(),
                        algorithm: row.aead,
                    }),
                })))
            }
            _ => None,
        })
        .collect();
    if cipher_suites.is_empty() {
        return Err(TlsError::NothingToOffer(format!(
            "policy `{}` serves no TLS cipher suite for TLS {}",
            policy.name(),
            rules.versions().join("/")
        )));
    }

    let kx_groups: Vec<&'static dyn SupportedKxGroup> = GROUPS
        .iter()
        .filter(|row| row.needs.iter().all(|&algorithm| policy.serves(algorithm)))
        .map(|row| -> &'static dyn SupportedKxGroup {
            match row.group {
                GroupImpl::AwsLc(group) => leak(AccountedKxGroup {
                    inner: group,
                    module: module.clone(),
                    needs: row.needs,
                    classical: row.auxiliary,
                }),
                GroupImpl::CurveSm2 => leak(rfc8998::CurveSm2 {
                    module: module.clone(),
                }),
            }
        })
        .collect();
    if kx_groups.is_empty() {
        return Err(TlsError::NothingToOffer(format!(
            "policy `{}` serves no TLS key-exchange group",
            policy.name()
        )));
    }

    let verifiers: Vec<(
        &crate::catalog::VerifierRow,
        &'static dyn SignatureVerificationAlgorithm,
    )> = VERIFIERS
        .iter()
        .filter(|row| {
            policy.serves(row.algorithm) && row.digest.is_none_or(|digest| policy.serves(digest))
        })
        .map(|row| -> (_, &'static dyn SignatureVerificationAlgorithm) {
            let verifier: &'static dyn SignatureVerificationAlgorithm = match row.verifier {
                VerifierImpl::AwsLc(inner) => leak(AccountedVerifier {
                    inner,
                    module: module.clone(),
                    algorithm: row.algorithm,
                }),
                VerifierImpl::Sm2 { id } => leak(rfc8998::Sm2Verifier {
                    module: module.clone(),
                    id,
                }),
            };
            (row, verifier)
        })
        .collect();
    let all: Vec<&'static dyn SignatureVerificationAlgorithm> = verifiers
        .iter()
        .filter(|(row, _)| row.certificates)
        .map(|(_, verifier)| *verifier)
        .collect();
    let mut schemes: Vec<SignatureScheme> = Vec::new();
    for (row, _) in &verifiers {
        for scheme in row.schemes {
            if !schemes.contains(scheme) {
                schemes.push(*scheme);
            }
        }
    }
    let mapping: Vec<(
        SignatureScheme,
        &'static [&'static dyn SignatureVerificationAlgorithm],
    )> = schemes
        .into_iter()
        .map(|scheme| {
            let for_scheme: Vec<&'static dyn SignatureVerificationAlgorithm> = verifiers
                .iter()
                .filter(|(row, _)| row.schemes.contains(&scheme))
                .map(|(_, verifier)| *verifier)
                .collect();
            (scheme, &*Box::leak(for_scheme.into_boxed_slice()))
        })
        .collect();
    if mapping.is_empty() {
        return Err(TlsError::NothingToOffer(format!(
            "policy `{}` serves no TLS signature scheme",
            policy.name()
        )));
    }

    let base = aws_lc_rs::default_provider();
    let provider = CryptoProvider {
        cipher_suites,
        kx_groups,
        signature_verification_algorithms: WebPkiSupportedAlgorithms {
            all: Box::leak(all.into_boxed_slice()),
            mapping: Box::leak(mapping.into_boxed_slice()),
        },
        secure_random: base.secure_random,
        key_provider: leak(PolicyKeyProvider {
            inner: base.key_provider,
            module: module.clone(),
        }),
    };
    Ok(TlsPolicy {
        module: module.clone(),
        provider: Arc::new(provider),
        versions,
        require_ems: rules.require_extended_master_secret,
    })
}

fn common(common: &rustls::CipherSuiteCommon) -> rustls::CipherSuiteCommon {
    rustls::CipherSuiteCommon {
        suite: common.suite,
        hash_provider: common.hash_provider,
        confidentiality_limit: common.confidentiality_limit,
    }
}

/// Loads private keys with AWS-LC and wraps them so that they sign only with schemes the policy
/// serves, each signature counted.
#[derive(Debug)]
struct PolicyKeyProvider {
    inner: &'static dyn KeyProvider,
    module: Module,
}

impl KeyProvider for PolicyKeyProvider {
    fn load_private_key(
        &self,
        key_der: PrivateKeyDer<'static>,
    ) -> Result<Arc<dyn SigningKey>, rustls::Error> {
        if let PrivateKeyDer::Pkcs8(pkcs8) = &key_der
            && rfc8998::is_sm2_pkcs8(pkcs8.secret_pkcs8_der())
        {
            let key = self
                .module
                .signing_key_from_pkcs8(regula::Algorithm::Sm2Sign, pkcs8.secret_pkcs8_der())
                .map_err(|error| rustls::Error::General(format!("regula: {error}")))?
                .into_value();
            return Ok(Arc::new(rfc8998::Sm2SigningKey { key: Arc::new(key) }));
        }
        let inner = self.inner.load_private_key(key_der)?;
        Ok(Arc::new(AccountedSigningKey {
            inner,
            module: self.module.clone(),
        }))
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }
}
