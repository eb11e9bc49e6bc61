//! Wrappers that put every TLS cryptographic step through the module's gate: each record
//! encryption or decryption, key-schedule step, key exchange and signature is refused once the
//! module is in its error state (or if the policy stops serving the algorithm) and otherwise
//! counts in the module's service indicator and counters. The cryptography itself is AWS-LC's,
//! through rustls' aws-lc-rs provider — the validated module in a `fips` build.

use regula::{Algorithm, Module, Service};
use rustls::crypto::cipher::{
    AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, KeyBlockShape, MessageDecrypter,
    MessageEncrypter, OutboundOpaqueMessage, OutboundPlainMessage, Tls12AeadAlgorithm,
    Tls13AeadAlgorithm, UnsupportedOperationError,
};
use rustls::crypto::tls13::{Hkdf, HkdfExpander, OkmBlock};
use rustls::crypto::{
    ActiveKeyExchange, CompletedKeyExchange, SharedSecret, SupportedKxGroup, hmac, tls12,
};
use rustls::pki_types::{AlgorithmIdentifier, InvalidSignature, SignatureVerificationAlgorithm};
use rustls::sign::{Signer, SigningKey};
use rustls::{ConnectionTrafficSecrets, Error, NamedGroup, SignatureAlgorithm, SignatureScheme};
use std::fmt;
use std::sync::Arc;

/// Asks the module for leave to run one operation; a refusal becomes a TLS error that names why.
fn gate(module: &Module, algorithm: Algorithm, service: Service) -> Result<(), Error> {
    module
        .account(algorithm, service)
        .map(drop)
        .map_err(|refusal| {
            Error::General(format!("regula refused {algorithm} {service}: {refusal}"))
        })
}

// ---- record protection ----

pub(crate) struct AccountedTls13Aead {
    pub inner: &'static dyn Tls13AeadAlgorithm,
    pub module: Module,
    pub algorithm: Algorithm,
}

impl Tls13AeadAlgorithm for AccountedTls13Aead {
    fn encrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageEncrypter> {
        Box::new(AccountedEncrypter {
            inner: self.inner.encrypter(key, iv),
            module: self.module.clone(),
            algorithm: self.algorithm,
        })
    }

    fn decrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageDecrypter> {
        Box::new(AccountedDecrypter {
            inner: self.inner.decrypter(key, iv),
            module: self.module.clone(),
            algorithm: self.algorithm,
        })
    }

    fn key_len(&self) -> usize {
        self.inner.key_len()
    }

    fn extract_keys(
        &self,
        key: AeadKey,
        iv: Iv,
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        self.inner.extract_keys(key, iv)
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }
}

pub(crate) struct AccountedTls12Aead {
    pub inner: &'static dyn Tls12AeadAlgorithm,
    pub module: Module,
    pub algorithm: Algorithm,
}

impl Tls12AeadAlgorithm for AccountedTls12Aead {
    fn encrypter(&self, key: AeadKey, iv: &[u8], extra: &[u8]) -> Box<dyn MessageEncrypter> {
        Box::new(AccountedEncrypter {
            inner: self.inner.encrypter(key, iv, extra),
            module: self.module.clone(),
            algorithm: self.algorithm,
        })
    }

    fn decrypter(&self, key: AeadKey, iv: &[u8]) -> Box<dyn MessageDecrypter> {
        Box::new(AccountedDecrypter {
            inner: self.inner.decrypter(key, iv),
            module: self.module.clone(),
            algorithm: self.algorithm,
        })
    }

    fn key_block_shape(&self) -> KeyBlockShape {
        self.inner.key_block_shape()
    }

    fn extract_keys(
        &self,
        key: AeadKey,
        iv: &[u8],
        explicit: &[u8],
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        self.inner.extract_keys(key, iv, explicit)
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }
}

struct AccountedEncrypter {
    inner: Box<dyn MessageEncrypter>,
    module: Module,
    algorithm: Algorithm,
}

impl MessageEncrypter for AccountedEncrypter {
    fn encrypt(
        &mut self,
        message: OutboundPlainMessage<'_>,
        sequence: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        gate(&self.module, self.algorithm, Service::Encrypt)?;
        self.inner.encrypt(message, sequence)
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        self.inner.encrypted_payload_len(payload_len)
    }
}

struct AccountedDecrypter {
    inner: Box<dyn MessageDecrypter>,
    module: Module,
    algorithm: Algorithm,
}

impl MessageDecrypter for AccountedDecrypter {
    fn decrypt<'a>(
        &mut self,
        message: InboundOpaqueMessage<'a>,
        sequence: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        gate(&self.module, self.algorithm, Service::Decrypt)?;
        self.inner.decrypt(message, sequence)
    }
}

// ---- key schedule ----

pub(crate) struct AccountedHkdf {
    pub inner: &'static dyn Hkdf,
    pub module: Module,
    pub algorithm: Algorithm,
}

impl AccountedHkdf {
    /// HKDF-Extract steps are what the key schedule counts as key derivations; a refusal here
    /// cannot be returned (rustls' trait is infallible), so it is reported when the derived keys
    /// are first used: the record layer's gate refuses them too.
    fn note(&self) {
        let _ = self.module.account(self.algorithm, Service::KeyDerivation);
    }
}

impl Hkdf for AccountedHkdf {
    fn extract_from_zero_ikm(&self, salt: Option<&[u8]>) -> Box<dyn HkdfExpander> {
        self.note();
        self.inner.extract_from_zero_ikm(salt)
    }

    fn extract_from_secret(&self, salt: Option<&[u8]>, secret: &[u8]) -> Box<dyn HkdfExpander> {
        self.note();
        self.inner.extract_from_secret(salt, secret)
    }

    fn expander_for_okm(&self, okm: &OkmBlock) -> Box<dyn HkdfExpander> {
        self.inner.expander_for_okm(okm)
    }

    fn hmac_sign(&self, key: &OkmBlock, message: &[u8]) -> hmac::Tag {
        self.inner.hmac_sign(key, message)
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }
}

pub(crate) struct AccountedPrf {
    pub inner: &'static dyn tls12::Prf,
    pub module: Module,
    pub algorithm: Algorithm,
}

impl tls12::Prf for AccountedPrf {
    fn for_key_exchange(
        &self,
        output: &mut [u8; 48],
        kx: Box<dyn ActiveKeyExchange>,
        peer_pub_key: &[u8],
        label: &[u8],
        seed: &[u8],
    ) -> Result<(), Error> {
        gate(&self.module, self.algorithm, Service::KeyDerivation)?;
        self.inner
            .for_key_exchange(output, kx, peer_pub_key, label, seed)
    }

    fn for_secret(&self, output: &mut [u8], secret: &[u8], label: &[u8], seed: &[u8]) {
        let _ = self.module.account(self.algorithm, Service::KeyDerivation);
        self.inner.for_secret(output, secret, label, seed)
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }
}

// ---- key exchange ----

pub(crate) struct AccountedKxGroup {
    pub inner: &'static dyn SupportedKxGroup,
    pub module: Module,
    pub needs: &'static [Algorithm],
    /// A hybrid's classical half, which a client completes alone when the server picks it.
    pub classical: Option<Algorithm>,
}

/// Gates every algorithm a group is built from. ML-KEM is encapsulated by the server and
/// decapsulated by the client; the rest agree.
fn gate_key_exchange(module: &Module, needs: &[Algorithm], server: bool) -> Result<(), Error> {
    needs.iter().try_for_each(|&algorithm| {
        let service = match (algorithm, server) {
            (Algorithm::MlKem768 | Algorithm::MlKem1024, true) => Service::Encapsulate,
            (Algorithm::MlKem768 | Algorithm::MlKem1024, false) => Service::Decapsulate,
            _ => Service::KeyAgreement,
        };
        gate(module, algorithm, service)
    })
}

impl fmt::Debug for AccountedKxGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl SupportedKxGroup for AccountedKxGroup {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        if self.module.state() != regula::ModuleState::Operational {
            return Err(Error::General(
                "regula refused key exchange: the module is in its error state".into(),
            ));
        }
        Ok(Box::new(AccountedKeyExchange {
            inner: self.inner.start()?,
            module: self.module.clone(),
            needs: self.needs,
            classical: self.classical,
        }))
    }

    fn start_and_complete(&self, peer_pub_key: &[u8]) -> Result<CompletedKeyExchange, Error> {
        gate_key_exchange(&self.module, self.needs, true)?;
        self.inner.start_and_complete(peer_pub_key)
    }

    fn name(&self) -> NamedGroup {
        self.inner.name()
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }

    fn usable_for_version(&self, version: rustls::ProtocolVersion) -> bool {
        self.inner.usable_for_version(version)
    }
}

struct AccountedKeyExchange {
    inner: Box<dyn ActiveKeyExchange>,
    module: Module,
    needs: &'static [Algorithm],
    classical: Option<Algorithm>,
}

impl ActiveKeyExchange for AccountedKeyExchange {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, Error> {
        gate_key_exchange(&self.module, self.needs, false)?;
        self.inner.complete(peer_pub_key)
    }

    fn complete_for_tls_version(
        self: Box<Self>,
        peer_pub_key: &[u8],
        tls_version: &rustls::SupportedProtocolVersion,
    ) -> Result<SharedSecret, Error> {
        gate_key_exchange(&self.module, self.needs, false)?;
        self.inner
            .complete_for_tls_version(peer_pub_key, tls_version)
    }

    fn hybrid_component(&self) -> Option<(NamedGroup, &[u8])> {
        self.inner.hybrid_component()
    }

    fn complete_hybrid_component(
        self: Box<Self>,
        peer_pub_key: &[u8],
    ) -> Result<SharedSecret, Error> {
        // Only the classical group runs: it is what the policy must serve and what counts.
        if let Some(classical) = self.classical {
            gate(&self.module, classical, Service::KeyAgreement)?;
        }
        self.inner.complete_hybrid_component(peer_pub_key)
    }

    fn pub_key(&self) -> &[u8] {
        self.inner.pub_key()
    }

    fn group(&self) -> NamedGroup {
        self.inner.group()
    }
}

// ---- signatures ----

pub(crate) struct AccountedVerifier {
    pub inner: &'static dyn SignatureVerificationAlgorithm,
    pub module: Module,
    pub algorithm: Algorithm,
}

impl fmt::Debug for AccountedVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl SignatureVerificationAlgorithm for AccountedVerifier {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        self.module
            .account(self.algorithm, Service::Verify)
            .map_err(|_| InvalidSignature)?;
        self.inner.verify_signature(public_key, message, signature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        self.inner.public_key_alg_id()
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        self.inner.signature_alg_id()
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }
}

/// A private key that offers only the schemes the policy serves, and signs through the gate.
#[derive(Debug)]
pub(crate) struct AccountedSigningKey {
    pub inner: Arc<dyn SigningKey>,
    pub module: Module,
}

impl SigningKey for AccountedSigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        let served: Vec<SignatureScheme> = offered
            .iter()
            .copied()
            .filter(|&scheme| {
                crate::catalog::scheme_algorithm(scheme)
                    .is_some_and(|algorithm| self.module.policy().serves(algorithm))
            })
            .collect();
        let inner = self.inner.choose_scheme(&served)?;
        let algorithm = crate::catalog::scheme_algorithm(inner.scheme())?;
        // The certificate key's size, for the policy's key limits and dated transitions (RSA
        // below 3072 bits: NIST IR 8547's 112-bit row; CNSA's RSA >= 3072).
        let key_bits = match inner.scheme() {
            SignatureScheme::RSA_PSS_SHA256
            | SignatureScheme::RSA_PSS_SHA384
            | SignatureScheme::RSA_PSS_SHA512
            | SignatureScheme::RSA_PKCS1_SHA256
            | SignatureScheme::RSA_PKCS1_SHA384
            | SignatureScheme::RSA_PKCS1_SHA512 => self
                .inner
                .public_key()
                .and_then(|spki| regula::service::signature::rsa_public_key_bits(spki.as_ref())),
            _ => None,
        };
        Some(Box::new(AccountedSigner {
            inner,
            module: self.module.clone(),
            algorithm,
            key_bits,
        }))
    }

    fn public_key(&self) -> Option<rustls::pki_types::SubjectPublicKeyInfoDer<'_>> {
        self.inner.public_key()
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        self.inner.algorithm()
    }
}

#[derive(Debug)]
struct AccountedSigner {
    inner: Box<dyn Signer>,
    module: Module,
    algorithm: Algorithm,
    key_bits: Option<u32>,
}

impl Signer for AccountedSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let usage = regula::policy::Usage {
            key_bits: self.key_bits,
            signing: true,
            ..Default::default()
        };
        self.module
            .account_usage(self.algorithm, Service::Sign, &usage)
            .map_err(|refusal| {
                Error::General(format!(
                    "regula refused {} {}: {refusal}",
                    self.algorithm,
                    Service::Sign
                ))
            })?;
        self.inner.sign(message)
    }

    fn scheme(&self) -> SignatureScheme {
        self.inner.scheme()
    }
}
