//! RFC 8998: the ShangMi suites for TLS 1.3, built on the module's SM services.
//!
//! - TLS_SM4_GCM_SM3 (0x00C6) and TLS_SM4_CCM_SM3 (0x00C7): record protection with SM4-GCM or
//!   SM4-CCM (RFC 8446 §5.3 nonces, 16-byte tags), key schedule HKDF over HMAC-SM3.
//! - curveSM2 (NamedGroup 0x0029): ephemeral SM2 ECDH, shared secret the x-coordinate.
//! - sm2sig_sm3 (SignatureScheme 0x0708): SM2 signatures whose signer ID is
//!   "TLSv1.3+GM+Cipher+Suite" in CertificateVerify (RFC 8998 §3.2.1), while certificate
//!   signatures use the GM/T 0003 default ID.
//!
//! Every primitive call goes through the module, so each one is gated and counted by it.

use std::sync::Arc;

use regula::{Algorithm, Module};
use rustls::crypto::cipher::{
    AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, MessageDecrypter, MessageEncrypter,
    Nonce, OutboundOpaqueMessage, OutboundPlainMessage, PrefixedPayload, Tls13AeadAlgorithm,
    UnsupportedOperationError, make_tls13_aad,
};
use rustls::crypto::hash::{self, HashAlgorithm};
use rustls::crypto::{ActiveKeyExchange, SharedSecret, SupportedKxGroup, hmac};
use rustls::pki_types::{AlgorithmIdentifier, InvalidSignature, SignatureVerificationAlgorithm};
use rustls::sign::{Signer, SigningKey};
use rustls::{
    CipherSuite, ConnectionTrafficSecrets, ContentType, Error, NamedGroup, ProtocolVersion,
    SignatureAlgorithm, SignatureScheme,
};

pub const TLS_SM4_GCM_SM3: CipherSuite = CipherSuite::Unknown(0x00c6);
pub const TLS_SM4_CCM_SM3: CipherSuite = CipherSuite::Unknown(0x00c7);
pub const CURVE_SM2: NamedGroup = NamedGroup::Unknown(0x0029);
pub const SM2SIG_SM3: SignatureScheme = SignatureScheme::Unknown(0x0708);

/// The signer ID of TLS 1.3 CertificateVerify signatures (RFC 8998 §3.2.1).
pub const TLS13_SIGNER_ID: &[u8] = b"TLSv1.3+GM+Cipher+Suite";
/// The GM/T 0003.2 default signer ID, used for certificate signatures.
pub const DEFAULT_SIGNER_ID: &[u8] = b"1234567812345678";

/// The DER contents (inside the SEQUENCE) of the SPKI algorithm of an SM2 key:
/// id-ecPublicKey (1.2.840.10045.2.1) with the named curve 1.2.156.10197.1.301.
pub const SM2_PUBLIC_KEY_ALGORITHM: &[u8] = &[
    0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55,
    0x01, 0x82, 0x2d,
];
/// The DER contents of the SM2-with-SM3 signature algorithm (1.2.156.10197.1.501), no
/// parameters.
pub const SM2_WITH_SM3: &[u8] = &[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75];

/// Whether a PKCS#8 key is on curveSM2 (its algorithm names the SM2 curve OID).
pub fn is_sm2_pkcs8(der: &[u8]) -> bool {
    let curve_oid = &SM2_PUBLIC_KEY_ALGORITHM[9..];
    der.windows(curve_oid.len())
        .take(64)
        .any(|window| window == curve_oid)
}

fn refused(error: regula::Error) -> Error {
    Error::General(format!("regula: {error}"))
}

// ---- SM3 transcript hash ----

/// SM3 through the module. A transcript is a few kilobytes, so a context keeps the bytes and
/// hashes them on demand; that makes `fork` trivial without exposing digest state.
pub(crate) struct Sm3Hash {
    pub module: Module,
}

struct Sm3Context {
    module: Module,
    data: Vec<u8>,
}

fn sm3(module: &Module, data: &[u8]) -> hash::Output {
    match module.digest(Algorithm::Sm3, data) {
        Ok(digest) => hash::Output::new(&digest),
        // The trait cannot fail: an all-zero transcript hash makes the handshake's Finished
        // check fail, so a refused digest still ends the connection.
        Err(_) => hash::Output::new(&[0u8; 32]),
    }
}

impl hash::Hash for Sm3Hash {
    fn start(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context {
            module: self.module.clone(),
            data: Vec::new(),
        })
    }

    fn hash(&self, data: &[u8]) -> hash::Output {
        sm3(&self.module, data)
    }

    fn output_len(&self) -> usize {
        32
    }

    fn algorithm(&self) -> HashAlgorithm {
        // No TLS HashAlgorithm code point exists for SM3; it is only used for TLS 1.2.
        HashAlgorithm::Unknown(0x07)
    }
}

impl hash::Context for Sm3Context {
    fn fork_finish(&self) -> hash::Output {
        sm3(&self.module, &self.data)
    }

    fn fork(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context {
            module: self.module.clone(),
            data: self.data.clone(),
        })
    }

    fn finish(self: Box<Self>) -> hash::Output {
        sm3(&self.module, &self.data)
    }

    fn update(&mut self, data: &[u8]) {
        self.data.extend_from_slice(data);
    }
}

// ---- HMAC-SM3 for HKDF ----

pub(crate) struct HmacSm3 {
    pub module: Module,
}

struct HmacSm3Key {
    key: Option<regula::MacKey>,
}

impl hmac::Hmac for HmacSm3 {
    fn with_key(&self, key: &[u8]) -> Box<dyn hmac::Key> {
        Box::new(HmacSm3Key {
            key: self.module.mac_key(Algorithm::HmacSm3, key).ok(),
        })
    }

    fn hash_output_len(&self) -> usize {
        32
    }
}

impl hmac::Key for HmacSm3Key {
    fn sign_concat(&self, first: &[u8], middle: &[&[u8]], last: &[u8]) -> hmac::Tag {
        let tag = self.key.as_ref().and_then(|key| {
            let mut context = key.context();
            context.update(first).ok()?;
            for part in middle {
                context.update(part).ok()?;
            }
            context.update(last).ok()?;
            context.sign().ok()
        });
        // A refused HMAC (module error state) yields a zero tag: every key derived from it is
        // wrong, so the handshake fails at Finished rather than continuing with real keys.
        match tag {
            Some(tag) => hmac::Tag::new(&tag),
            None => hmac::Tag::new(&[0u8; 32]),
        }
    }

    fn tag_len(&self) -> usize {
        32
    }
}

// ---- SM4-GCM / SM4-CCM record protection ----

pub(crate) struct Sm4Aead {
    pub module: Module,
    pub algorithm: Algorithm,
}

const TAG_LEN: usize = 16;

impl Tls13AeadAlgorithm for Sm4Aead {
    fn encrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageEncrypter> {
        Box::new(Sm4RecordKey {
            key: self.module.aead_key(self.algorithm, key.as_ref()),
            iv,
        })
    }

    fn decrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageDecrypter> {
        Box::new(Sm4RecordKey {
            key: self.module.aead_key(self.algorithm, key.as_ref()),
            iv,
        })
    }

    fn key_len(&self) -> usize {
        16
    }

    fn extract_keys(
        &self,
        _key: AeadKey,
        _iv: Iv,
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        // Keys stay inside the module (no kTLS for SM4).
        Err(UnsupportedOperationError)
    }
}

struct Sm4RecordKey {
    key: regula::Result<regula::AeadKey>,
    iv: Iv,
}

impl Sm4RecordKey {
    fn key(&self) -> Result<&regula::AeadKey, Error> {
        self.key
            .as_ref()
            .map_err(|error| Error::General(format!("regula: {error}")))
    }
}

impl MessageEncrypter for Sm4RecordKey {
    fn encrypt(
        &mut self,
        message: OutboundPlainMessage<'_>,
        sequence: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        let total_len = self.encrypted_payload_len(message.payload.len());
        // The record's chunks go straight into the buffer the module seals in place.
        let mut record = Vec::with_capacity(total_len);
        message.payload.copy_to_vec(&mut record);
        record.push(u8::from(message.typ));
        seal_inner_plaintext(self.key()?, &self.iv, sequence, &mut record)?;
        let mut payload = PrefixedPayload::with_capacity(total_len);
        payload.extend_from_slice(&record);
        Ok(OutboundOpaqueMessage::new(
            ContentType::ApplicationData,
            // TLS 1.3 records carry the legacy version 0x0303 (RFC 8446 §5.1).
            ProtocolVersion::TLSv1_2,
            payload,
        ))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + 1 + TAG_LEN
    }
}

impl MessageDecrypter for Sm4RecordKey {
    fn decrypt<'a>(
        &mut self,
        mut message: InboundOpaqueMessage<'a>,
        sequence: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        let payload = &mut message.payload;
        if payload.len() < TAG_LEN {
            return Err(Error::DecryptError);
        }
        let record = open_record(self.key()?, &self.iv, sequence, payload)?;
        payload[..record.len()].copy_from_slice(&record);
        payload.truncate(record.len());
        message.into_tls13_unpadded_message()
    }
}

/// Protects one TLS 1.3 record (RFC 8446 §5.2): seals `plaintext ‖ content type` under the
/// nonce `iv ⊕ sequence` with the record header as associated data; returns ciphertext ‖ tag.
pub fn seal_record(
    key: &regula::AeadKey,
    iv: &Iv,
    sequence: u64,
    plaintext: &[u8],
    content_type: u8,
) -> Result<Vec<u8>, Error> {
    let mut record = Vec::with_capacity(plaintext.len() + 1 + TAG_LEN);
    record.extend_from_slice(plaintext);
    record.push(content_type);
    seal_inner_plaintext(key, iv, sequence, &mut record)?;
    Ok(record)
}

/// Seals a TLSInnerPlaintext (`plaintext ‖ content type`) in place, appending the tag.
fn seal_inner_plaintext(
    key: &regula::AeadKey,
    iv: &Iv,
    sequence: u64,
    record: &mut Vec<u8>,
) -> Result<(), Error> {
    let nonce = Nonce::new(iv, sequence);
    let aad = make_tls13_aad(record.len() + TAG_LEN);
    key.seal_in_place_with_nonce(&nonce.0, &aad, record)
        .map(drop)
        .map_err(refused)
}

/// Opens one TLS 1.3 record body (ciphertext ‖ tag); returns `plaintext ‖ content type ‖
/// padding`. Any failure is `DecryptError` and returns nothing.
pub fn open_record(
    key: &regula::AeadKey,
    iv: &Iv,
    sequence: u64,
    record: &[u8],
) -> Result<Vec<u8>, Error> {
    let nonce = Nonce::new(iv, sequence);
    let mut plaintext = record.to_vec();
    key.open_in_place(&nonce.0, &make_tls13_aad(record.len()), &mut plaintext)
        .map_err(|_| Error::DecryptError)?;
    Ok(plaintext)
}

// ---- curveSM2 key exchange ----

#[derive(Debug)]
pub(crate) struct CurveSm2 {
    pub module: Module,
}

impl SupportedKxGroup for CurveSm2 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let key = self
            .module
            .generate_agreement_key(Algorithm::Sm2Ecdh)
            .map_err(refused)?
            .into_value();
        let public = key.public_key().map_err(refused)?;
        Ok(Box::new(CurveSm2Exchange { key, public }))
    }

    fn name(&self) -> NamedGroup {
        CURVE_SM2
    }

    fn usable_for_version(&self, version: ProtocolVersion) -> bool {
        version == ProtocolVersion::TLSv1_3
    }
}

struct CurveSm2Exchange {
    key: regula::AgreementKey,
    public: Vec<u8>,
}

impl ActiveKeyExchange for CurveSm2Exchange {
    fn complete(self: Box<Self>, peer_public_key: &[u8]) -> Result<SharedSecret, Error> {
        let secret = self
            .key
            .agree(peer_public_key)
            .map_err(|_| Error::PeerMisbehaved(rustls::PeerMisbehaved::InvalidKeyShare))?;
        Ok(SharedSecret::from(&secret[..]))
    }

    fn pub_key(&self) -> &[u8] {
        &self.public
    }

    fn group(&self) -> NamedGroup {
        CURVE_SM2
    }
}

// ---- sm2sig_sm3 ----

/// Verifies SM2-with-SM3 signatures with a fixed signer ID: the default ID for certificate
/// chains, the RFC 8998 ID for CertificateVerify.
#[derive(Debug)]
pub(crate) struct Sm2Verifier {
    pub module: Module,
    pub id: &'static [u8],
}

impl SignatureVerificationAlgorithm for Sm2Verifier {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        self.module
            .verify_with_id(Algorithm::Sm2Sign, public_key, message, signature, self.id)
            .map(drop)
            .map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        AlgorithmIdentifier::from_slice(SM2_PUBLIC_KEY_ALGORITHM)
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        AlgorithmIdentifier::from_slice(SM2_WITH_SM3)
    }
}

/// An SM2 private key held by the module, signing CertificateVerify with the RFC 8998 ID.
pub(crate) struct Sm2SigningKey {
    pub key: Arc<regula::SigningKey>,
}

impl std::fmt::Debug for Sm2SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sm2SigningKey")
    }
}

impl SigningKey for Sm2SigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        offered.contains(&SM2SIG_SM3).then(|| {
            Box::new(Sm2Signer {
                key: Arc::clone(&self.key),
            }) as Box<dyn Signer>
        })
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SignatureAlgorithm::Unknown(0x08)
    }
}

struct Sm2Signer {
    key: Arc<regula::SigningKey>,
}

impl std::fmt::Debug for Sm2Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sm2Signer")
    }
}

impl Signer for Sm2Signer {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        self.key
            .sign_with_id(message, TLS13_SIGNER_ID)
            .map(regula::Served::into_value)
            .map_err(refused)
    }

    fn scheme(&self) -> SignatureScheme {
        SM2SIG_SM3
    }
}
