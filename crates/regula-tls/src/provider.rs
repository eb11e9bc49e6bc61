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
use crate::catalog::{GROUPS, SUITES, VERIFIERS};

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
    format!("{suite:?}").replace("TLS13_", "TLS_")
}

pub fn group_name(group: NamedGroup) -> String {
    match group {
        NamedGroup::secp256r1 => "P-256".to_string(),
        NamedGroup::secp384r1 => "P-384".to_string(),
        NamedGroup::secp521r1 => "P-521".to_string(),
        other => format!("{other:?}"),
    }
}

pub fn scheme_name(scheme: SignatureScheme) -> String {
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
            SupportedCipherSuite::Tls13(suite) if rules.tls13 => {
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
            SupportedCipherSuite::Tls12(suite) if rules.tls12 => {
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
            leak(AccountedKxGroup {
                inner: row.group,
                module: module.clone(),
                needs: row.needs,
            })
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
        .filter(|row| policy.serves(row.algorithm))
        .map(|row| -> (_, &'static dyn SignatureVerificationAlgorithm) {
            (
                row,
                leak(AccountedVerifier {
                    inner: row.verifier,
                    module: module.clone(),
                    algorithm: row.algorithm,
                }),
            )
        })
        .collect();
    let all: Vec<&'static dyn SignatureVerificationAlgorithm> =
        verifiers.iter().map(|(_, verifier)| *verifier).collect();
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
