//! Asymmetric keys: `SigningKey`, `AgreementKey`, `KemKey` (ML-KEM), `DecryptionKey` (SM2).
//!
//! Each carries ``indicator``: the record of its generation or import. Private keys are never
//! shown by ``repr()``; exports are explicit (``private_bytes``).

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::convert::{encoded, encoding as parse_encoding, served};
use crate::errors::{err, invalid_input};
use crate::indicator::Indicator;

pub(crate) fn ciphertext_format(name: &str) -> PyResult<regula::CiphertextFormat> {
    match name.to_ascii_lowercase().as_str() {
        "asn1" | "der" => Ok(regula::CiphertextFormat::Asn1),
        "c1c3c2" => Ok(regula::CiphertextFormat::C1C3C2),
        _ => Err(invalid_input(format!(
            "SM2 ciphertext format must be \"asn1\" or \"c1c3c2\", got {name:?}"
        ))),
    }
}

/// A private signing key bound to a module (from ``Module.generate_signing_key`` or
/// ``Module.load_signing_key``).
#[pyclass(frozen, module = "regula", name = "SigningKey")]
pub struct SigningKey {
    key: regula::SigningKey,
    indicator: regula::Indicator,
    /// The module that verifies with this key's public half.
    module: regula::Module,
}

impl SigningKey {
    pub(crate) fn from_served(
        module: &regula::Module,
        served: regula::Served<regula::SigningKey>,
    ) -> SigningKey {
        let (key, indicator) = served.into_parts();
        SigningKey {
            key,
            indicator,
            module: module.clone(),
        }
    }
}

#[pymethods]
impl SigningKey {
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.key.algorithm().name()
    }

    /// RSA modulus or curve size in bits; 0 for ML-DSA.
    #[getter]
    fn key_bits(&self) -> u32 {
        self.key.key_bits()
    }

    /// The indicator of this key's generation or import.
    #[getter]
    fn indicator(&self) -> Indicator {
        Indicator(self.indicator)
    }

    /// The public key as SubjectPublicKeyInfo, ``"der"`` or ``"pem"``.
    #[pyo3(signature = (encoding = "der"))]
    fn public_key<'py>(&self, py: Python<'py>, encoding: &str) -> PyResult<Bound<'py, PyBytes>> {
        let encoding = parse_encoding(encoding)?;
        let der = self.key.public_key_der().map_err(err)?;
        Ok(encoded(py, &der, "PUBLIC KEY", encoding))
    }

    /// The private key as unencrypted PKCS#8, ``"der"`` or ``"pem"``.
    #[pyo3(signature = (encoding = "der"))]
    fn private_bytes<'py>(&self, py: Python<'py>, encoding: &str) -> PyResult<Bound<'py, PyBytes>> {
        let encoding = parse_encoding(encoding)?;
        let der = self.key.to_pkcs8_der().map_err(err)?;
        Ok(encoded(py, &der, "PRIVATE KEY", encoding))
    }

    /// Signs ``data`` (hashed with the scheme's digest): ECDSA and SM2 signatures are DER,
    /// Ed25519 64 bytes, RSA the modulus length. ``id`` is the SM2 signer ID.
    #[pyo3(signature = (data, *, id = None))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        id: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let message = crate::convert::data(data, "data")?;
        let id = id.map(|id| crate::convert::data(id, "id")).transpose()?;
        let (message, id) = (message.as_slice(), id.as_ref().map(|id| id.as_slice()));
        let result = py.detach(|| match id {
            Some(id) => self.key.sign_with_id(message, id),
            None => self.key.sign(message),
        });
        let (signature, indicator) = result.map_err(err)?.into_parts();
        served(py, &signature, indicator, false)
    }

    /// Verifies ``signature`` over ``data`` with this key's public half (through
    /// ``Module.verify``): returns the ``Indicator`` or raises ``InvalidSignature``.
    #[pyo3(signature = (data, signature, *, id = None))]
    fn verify(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        signature: &Bound<'_, PyAny>,
        id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Indicator> {
        let public_key = self.key.public_key_der().map_err(err)?;
        let message = crate::convert::data(data, "data")?;
        let signature = crate::convert::data(signature, "signature")?;
        let id = id.map(|id| crate::convert::data(id, "id")).transpose()?;
        let (message, signature) = (message.as_slice(), signature.as_slice());
        let id = id.as_ref().map(|id| id.as_slice());
        let module = &self.module;
        let algorithm = self.key.algorithm();
        let result = py.detach(|| match id {
            Some(id) => module.verify_with_id(algorithm, &public_key, message, signature, id),
            None => module.verify(algorithm, &public_key, message, signature),
        });
        Ok(Indicator(result.map_err(err)?.indicator()))
    }

    fn __repr__(&self) -> String {
        format!(
            "<regula.SigningKey {} ({} bits)>",
            self.algorithm(),
            self.key_bits()
        )
    }
}

/// A key-agreement private key (from ``Module.generate_agreement_key`` or
/// ``Module.load_agreement_key``); ``exchange(peer_public_key)`` as in pyca/cryptography.
#[pyclass(frozen, module = "regula", name = "AgreementKey")]
pub struct AgreementKey {
    key: regula::AgreementKey,
    indicator: regula::Indicator,
}

impl AgreementKey {
    pub(crate) fn from_served(served: regula::Served<regula::AgreementKey>) -> AgreementKey {
        let (key, indicator) = served.into_parts();
        AgreementKey { key, indicator }
    }
}

#[pymethods]
impl AgreementKey {
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.key.algorithm().name()
    }

    #[getter]
    fn indicator(&self) -> Indicator {
        Indicator(self.indicator)
    }

    /// The public key: an uncompressed point ``04 || x || y`` (ECDH, SM2) or 32 bytes (X25519).
    fn public_key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let key = self.key.public_key().map_err(err)?;
        Ok(PyBytes::new(py, &key))
    }

    /// The shared secret with a peer's public key (raw, as ``public_key()`` gives it, or DER
    /// SubjectPublicKeyInfo), as ``Secret``.
    fn exchange<'py>(
        &self,
        py: Python<'py>,
        peer_public_key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let peer = crate::convert::data(peer_public_key, "peer_public_key")?;
        let peer = crate::convert::key_der(peer.as_slice(), regula::key_encoding::KeyKind::Public)?;
        let (secret, indicator) = py
            .detach(|| self.key.agree(&peer))
            .map_err(err)?
            .into_parts();
        served(py, &secret, indicator, true)
    }

    fn __repr__(&self) -> String {
        format!("<regula.AgreementKey {}>", self.algorithm())
    }
}

/// An ML-KEM decapsulation key (from ``Module.generate_kem_key``).
#[pyclass(frozen, module = "regula", name = "KemKey")]
pub struct KemKey {
    key: regula::KemPrivateKey,
    indicator: regula::Indicator,
}

impl KemKey {
    pub(crate) fn from_served(served: regula::Served<regula::KemPrivateKey>) -> KemKey {
        let (key, indicator) = served.into_parts();
        KemKey { key, indicator }
    }
}

#[pymethods]
impl KemKey {
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.key.algorithm().name()
    }

    #[getter]
    fn indicator(&self) -> Indicator {
        Indicator(self.indicator)
    }

    /// The encoded encapsulation (public) key to hand to peers.
    fn encapsulation_key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let key = self.key.encapsulation_key().map_err(err)?;
        Ok(PyBytes::new(py, &key))
    }

    /// The shared secret inside ``ciphertext``, as ``Secret``.
    fn decapsulate<'py>(
        &self,
        py: Python<'py>,
        ciphertext: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ciphertext = crate::convert::data(ciphertext, "ciphertext")?;
        let (secret, indicator) = self
            .key
            .decapsulate(ciphertext.as_slice())
            .map_err(err)?
            .into_parts();
        served(py, &secret, indicator, true)
    }

    fn __repr__(&self) -> String {
        format!("<regula.KemKey {}>", self.algorithm())
    }
}

/// An SM2 decryption key (from ``Module.generate_decryption_key`` or
/// ``Module.load_decryption_key``).
#[pyclass(frozen, module = "regula", name = "DecryptionKey")]
pub struct DecryptionKey {
    key: regula::DecryptionKey,
    indicator: regula::Indicator,
}

impl DecryptionKey {
    pub(crate) fn from_served(served: regula::Served<regula::DecryptionKey>) -> DecryptionKey {
        let (key, indicator) = served.into_parts();
        DecryptionKey { key, indicator }
    }
}

#[pymethods]
impl DecryptionKey {
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.key.algorithm().name()
    }

    #[getter]
    fn indicator(&self) -> Indicator {
        Indicator(self.indicator)
    }

    /// The public key as SubjectPublicKeyInfo, ``"der"`` or ``"pem"``.
    #[pyo3(signature = (encoding = "der"))]
    fn public_key<'py>(&self, py: Python<'py>, encoding: &str) -> PyResult<Bound<'py, PyBytes>> {
        let encoding = parse_encoding(encoding)?;
        let der = self.key.public_key_der().map_err(err)?;
        Ok(encoded(py, &der, "PUBLIC KEY", encoding))
    }

    /// The private key as unencrypted PKCS#8, ``"der"`` or ``"pem"``.
    #[pyo3(signature = (encoding = "der"))]
    fn private_bytes<'py>(&self, py: Python<'py>, encoding: &str) -> PyResult<Bound<'py, PyBytes>> {
        let encoding = parse_encoding(encoding)?;
        let der = self.key.to_pkcs8_der().map_err(err)?;
        Ok(encoded(py, &der, "PRIVATE KEY", encoding))
    }

    /// Decrypts an SM2 ciphertext (``format``: ``"asn1"`` or ``"c1c3c2"``); any malformed or
    /// altered ciphertext raises ``InvalidTag``.
    #[pyo3(signature = (ciphertext, *, format = "asn1"))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ciphertext: &Bound<'py, PyAny>,
        format: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let format = ciphertext_format(format)?;
        let ciphertext = crate::convert::data(ciphertext, "ciphertext")?;
        let ciphertext = ciphertext.as_slice();
        let (plaintext, indicator) = py
            .detach(|| self.key.decrypt(ciphertext, format))
            .map_err(err)?
            .into_parts();
        served(py, &plaintext, indicator, false)
    }

    fn __repr__(&self) -> String {
        format!("<regula.DecryptionKey {}>", self.algorithm())
    }
}
