//! `regula.Module`: a loaded policy, its self-test state, and the entry point of every service.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use regula::registry::pkcs11;

use crate::aead::Aead;
use crate::cipher::Cipher;
use crate::convert::{DETACH_THRESHOLD, algorithm, data, fspath, key_der, optional_data, served};
use crate::errors::{err, invalid_input};
use crate::hash::Hash;
use crate::indicator::Indicator;
use crate::keys::{AgreementKey, DecryptionKey, KemKey, SigningKey, ciphertext_format};
use crate::mac::MacKey;
use regula::key_encoding::KeyKind;

/// A loaded Regula module.
///
/// ``Module(policy)`` loads a built-in policy (``"default"``, ``"fips-140-3"``, ``"gm"``,
/// ``"cnsa-2.0"``) or a TOML policy file and runs the power-on self-tests. If one fails, the module is still
/// returned, with ``state == "error"``, and every service raises ``ModuleErrorState``.
///
/// A module is safe to share between threads. Every service result carries the operation's
/// ``Indicator``; ``scope()`` gives a handle with its own aggregate ``indicator_state``.
#[pyclass(frozen, module = "regula", name = "Module")]
pub struct Module {
    pub(crate) inner: regula::Module,
}

#[pymethods]
impl Module {
    #[new]
    #[pyo3(signature = (policy = None))]
    fn new(py: Python<'_>, policy: Option<&Bound<'_, PyAny>>) -> PyResult<Module> {
        let name = match policy {
            Some(policy) => fspath(policy)?,
            None => "default".to_string(),
        };
        let inner = py
            .detach(|| {
                // A library module runs every CAST its policy needs here, so that a failure
                // shows at construction, as it always has.
                regula::Module::load_named(&name).inspect(|module| drop(module.run_self_tests()))
            })
            .map_err(|error| invalid_input(error.to_string()))?;
        Ok(Module { inner })
    }

    /// ``"operational"``, or ``"error"`` after a failed self-test.
    #[getter]
    fn state(&self) -> &'static str {
        match self.inner.state() {
            regula::ModuleState::Operational => "operational",
            _ => "error",
        }
    }

    /// The name of the loaded policy (a built-in profile's name or the file's ``name``).
    #[getter]
    fn policy(&self) -> String {
        self.inner.policy().name().to_string()
    }

    /// The built-in profile the policy is based on.
    #[getter]
    fn profile(&self) -> &'static str {
        self.inner.policy().profile().name()
    }

    /// ``"strict"`` (refuse what is not approved) or ``"permissive"`` (serve it, flagged).
    #[getter]
    fn mode(&self) -> &'static str {
        self.inner.policy().mode().name()
    }

    /// The self-test that put the module in its error state, or ``None``.
    #[getter]
    fn failed_test(&self) -> Option<String> {
        self.inner.failed_test().map(str::to_string)
    }

    /// The power-on self-tests run at load: a list of ``(name, passed, microseconds)``.
    fn self_tests<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = self
            .inner
            .run_self_tests()
            .iter()
            .map(|result| (result.name, result.passed, result.micros))
            .collect::<Vec<_>>();
        PyList::new(py, rows)
    }

    /// Whether the policy approves ``algorithm`` (within its limits).
    fn approves(&self, algorithm_name: &str) -> PyResult<bool> {
        Ok(self.inner.policy().approves(algorithm(algorithm_name)?))
    }

    /// Whether the policy serves ``algorithm`` at all (approved, or flagged in permissive mode).
    fn serves(&self, algorithm_name: &str) -> PyResult<bool> {
        Ok(self.inner.policy().serves(algorithm(algorithm_name)?))
    }

    /// A handle on the same loaded module with its own indicator scope (e.g. one per request).
    fn scope(&self) -> Module {
        Module {
            inner: self.inner.scope(),
        }
    }

    /// The aggregate of this scope's operations since its last reset: ``"unset"``,
    /// ``"approved"``, or ``"not-approved"`` (sticky once any operation was not approved).
    #[getter]
    fn indicator_state(&self) -> &'static str {
        match self.inner.indicator_state() {
            regula::IndicatorState::Unset => "unset",
            regula::IndicatorState::Approved => "approved",
            _ => "not-approved",
        }
    }

    fn reset_indicator(&self) {
        self.inner.reset_indicator();
    }

    /// Module-wide operation counts over all scopes: a list of dicts with ``algorithm``,
    /// ``service``, ``approved`` and ``not_approved``.
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for row in self.inner.counters() {
            let dict = PyDict::new(py);
            dict.set_item("algorithm", row.algorithm.name())?;
            dict.set_item("service", row.service.name())?;
            dict.set_item("approved", row.approved)?;
            dict.set_item("not_approved", row.not_approved)?;
            list.append(dict)?;
        }
        Ok(list)
    }

    /// An AEAD key: ``aes-128-gcm``, ``aes-256-gcm``, ``aes-128-ccm``, ``aes-256-ccm``,
    /// ``chacha20-poly1305``, ``sm4-gcm``, ``sm4-ccm``. ``tag_length`` other than 16 is for
    /// AES-CCM only (4 to 16, even).
    #[pyo3(signature = (algorithm_name, key, *, tag_length = 16))]
    fn aead(
        &self,
        algorithm_name: &str,
        key: &Bound<'_, PyAny>,
        tag_length: usize,
    ) -> PyResult<Aead> {
        let key = data(key, "key")?;
        let key = self
            .inner
            .aead_key_with_tag_len(algorithm(algorithm_name)?, key.as_slice(), tag_length)
            .map_err(err)?;
        Ok(Aead { key })
    }

    /// An unauthenticated cipher key: AES-CTR/CBC/XTS/CFB8, key wrap, SM4 modes, legacy
    /// ciphers (``default`` policy only).
    fn cipher(&self, algorithm_name: &str, key: &Bound<'_, PyAny>) -> PyResult<Cipher> {
        let key = data(key, "key")?;
        let key = self
            .inner
            .cipher_key(algorithm(algorithm_name)?, key.as_slice())
            .map_err(err)?;
        Ok(Cipher { key })
    }

    /// A hashlib-style hash object (``update``, ``digest``, ``hexdigest``, ``copy``), optionally
    /// fed ``data`` first.
    #[pyo3(signature = (algorithm_name, data = None))]
    fn hash(&self, algorithm_name: &str, data: Option<&Bound<'_, PyAny>>) -> PyResult<Hash> {
        let hash = Hash::new(&self.inner, algorithm(algorithm_name)?)?;
        if let Some(data) = data {
            hash.update(data.py(), data)?;
        }
        Ok(hash)
    }

    /// The digest of ``data`` in one call, as ``Served``.
    fn digest<'py>(
        &self,
        py: Python<'py>,
        algorithm_name: &str,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let algorithm = algorithm(algorithm_name)?;
        let input = crate::convert::data(data, "data")?;
        let input = input.as_slice();
        let result = if input.len() >= DETACH_THRESHOLD {
            py.detach(|| self.inner.digest(algorithm, input))
        } else {
            self.inner.digest(algorithm, input)
        };
        let (output, indicator) = result.map_err(err)?.into_parts();
        served(py, &output, indicator, false)
    }

    /// A MAC key: ``hmac-sha256`` (and the other HMACs, ``hmac-sm3``), ``aes-128-cmac``,
    /// ``aes-256-cmac``, ``aes-128-gmac``, ``aes-256-gmac`` (these take a nonce),
    /// ``sm4-cmac``, ...
    fn mac(&self, algorithm_name: &str, key: &Bound<'_, PyAny>) -> PyResult<MacKey> {
        let key = data(key, "key")?;
        let key = self
            .inner
            .mac_key(algorithm(algorithm_name)?, key.as_slice())
            .map_err(err)?;
        Ok(MacKey::new(key))
    }

    /// ``mac("hmac-" + digest, key)``: ``hmac("sha256", key)``; ``"hmac-sha256"`` works too.
    fn hmac(&self, digest: &str, key: &Bound<'_, PyAny>) -> PyResult<MacKey> {
        let lower = digest.to_ascii_lowercase();
        let name = if lower.starts_with("hmac-") {
            lower
        } else {
            format!("hmac-{lower}")
        };
        self.mac(&name, key)
    }

    /// Derives ``length`` bytes of key material, returned as ``Secret``.
    ///
    /// - ``hkdf-sha256|384|512`` (RFC 5869): ``salt`` and ``info`` (both optional);
    /// - ``pbkdf2-sha256|384|512`` (SP 800-132): ``salt`` and ``iterations``;
    /// - ``kbkdf-ctr-hmac-sha256|384|512`` (SP 800-108r1 counter mode): ``fixed_input``, or
    ///   ``label`` and ``context``, from which ``Label || 0x00 || Context || [L]32`` is built.
    #[pyo3(signature = (
        algorithm_name, secret, length, *,
        salt = None, info = None, iterations = None, fixed_input = None, label = None,
        context = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn kdf<'py>(
        &self,
        py: Python<'py>,
        algorithm_name: &str,
        secret: &Bound<'py, PyAny>,
        length: usize,
        salt: Option<&Bound<'py, PyAny>>,
        info: Option<&Bound<'py, PyAny>>,
        iterations: Option<u32>,
        fixed_input: Option<&Bound<'py, PyAny>>,
        label: Option<&Bound<'py, PyAny>>,
        context: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let algorithm = algorithm(algorithm_name)?;
        let name = algorithm.name();
        let secret = data(secret, "secret")?;
        let secret = secret.as_slice();
        let refuse = |given: &[(&str, bool)]| -> PyResult<()> {
            match given.iter().find(|(_, present)| *present) {
                Some((parameter, _)) => Err(invalid_input(format!(
                    "{name} takes no {parameter} argument"
                ))),
                None => Ok(()),
            }
        };
        // The row says which KDF it is: PKCS#11 names PBKDF2 and SP 800-108 KDFs by their own
        // mechanisms. Anything else (HKDF, or not a KDF at all) goes to `hkdf`, for the core to
        // refuse with its own message.
        let entry = algorithm.entry();
        let mechanism = match entry.family {
            regula::Family::Kdf => entry.pkcs11.first().copied(),
            _ => None,
        };
        let result = if mechanism == Some(pkcs11::CKM_PKCS5_PBKD2) {
            refuse(&[
                ("info", info.is_some()),
                ("fixed_input", fixed_input.is_some()),
                ("label", label.is_some()),
                ("context", context.is_some()),
            ])?;
            let salt = optional_data(salt, "salt")?;
            let salt = salt.as_slice();
            let iterations =
                iterations.ok_or_else(|| invalid_input(format!("{name} needs iterations")))?;
            py.detach(|| {
                self.inner
                    .pbkdf2(algorithm, secret, salt, iterations, length)
            })
        } else if mechanism == Some(pkcs11::CKM_SP800_108_COUNTER_KDF) {
            refuse(&[
                ("salt", salt.is_some()),
                ("info", info.is_some()),
                ("iterations", iterations.is_some()),
            ])?;
            match fixed_input {
                Some(fixed_input) => {
                    refuse(&[("label", label.is_some()), ("context", context.is_some())])?;
                    let fixed_input = data(fixed_input, "fixed_input")?;
                    self.inner
                        .kbkdf(algorithm, secret, fixed_input.as_slice(), length)
                }
                None => {
                    let label = optional_data(label, "label")?;
                    let context = optional_data(context, "context")?;
                    self.inner.kbkdf_label_context(
                        algorithm,
                        secret,
                        label.as_slice(),
                        context.as_slice(),
                        length,
                    )
                }
            }
        } else {
            // HKDF, and everything else, for the core to refuse with its own message.
            refuse(&[
                ("iterations", iterations.is_some()),
                ("fixed_input", fixed_input.is_some()),
                ("label", label.is_some()),
                ("context", context.is_some()),
            ])?;
            let salt = optional_data(salt, "salt")?;
            let info = optional_data(info, "info")?;
            self.inner
                .hkdf(algorithm, secret, salt.as_slice(), info.as_slice(), length)
        };
        let (output, indicator) = result.map_err(err)?.into_parts();
        served(py, &output, indicator, true)
    }

    /// ``n`` bytes from the module's DRBG (AWS-LC's CTR_DRBG), as ``Secret``.
    fn random<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyAny>> {
        let result = if n >= DETACH_THRESHOLD {
            py.detach(|| self.inner.random_bytes(n))
        } else {
            self.inner.random_bytes(n)
        };
        let (output, indicator) = result.map_err(err)?.into_parts();
        served(py, &output, indicator, true)
    }

    /// Generates a signing key (``ecdsa-p256``, ``ecdsa-p384``, ``ecdsa-p521``, ``ed25519``,
    /// ``rsa-pss-sha256``..., ``rsa-pkcs1-sha256``..., ``ml-dsa-44|65|87``, ``sm2-sign``) and
    /// runs its pairwise consistency test. ``rsa_bits`` (RSA only): 2048, 3072, 4096, 8192.
    #[pyo3(signature = (algorithm_name, *, rsa_bits = None))]
    fn generate_signing_key(
        &self,
        py: Python<'_>,
        algorithm_name: &str,
        rsa_bits: Option<u32>,
    ) -> PyResult<SigningKey> {
        let algorithm = algorithm(algorithm_name)?;
        let key = py
            .detach(|| self.inner.generate_signing_key(algorithm, rsa_bits))
            .map_err(err)?;
        Ok(SigningKey::from_served(&self.inner, key))
    }

    /// Loads a PKCS#8 private key (PEM ``PRIVATE KEY`` or DER) for ``algorithm``.
    fn load_signing_key(
        &self,
        algorithm_name: &str,
        private_key: &Bound<'_, PyAny>,
    ) -> PyResult<SigningKey> {
        let algorithm = algorithm(algorithm_name)?;
        let input = data(private_key, "private_key")?;
        let der = key_der(input.as_slice(), KeyKind::Private)?;
        let key = self
            .inner
            .signing_key_from_pkcs8(algorithm, &der)
            .map_err(err)?;
        Ok(SigningKey::from_served(&self.inner, key))
    }

    /// Verifies ``signature`` over ``data`` with ``public_key`` (PEM ``PUBLIC KEY``, DER
    /// SubjectPublicKeyInfo, or for ECDSA, Ed25519 and SM2 the raw key). Returns the
    /// ``Indicator``; raises ``InvalidSignature`` if it does not verify. ``id`` is the SM2
    /// signer ID (default ``b"1234567812345678"``).
    #[pyo3(signature = (algorithm_name, public_key, data, signature, *, id = None))]
    fn verify(
        &self,
        py: Python<'_>,
        algorithm_name: &str,
        public_key: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        signature: &Bound<'_, PyAny>,
        id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Indicator> {
        let algorithm = algorithm(algorithm_name)?;
        let public_key = crate::convert::data(public_key, "public_key")?;
        let public_key = key_der(public_key.as_slice(), KeyKind::Public)?;
        let message = crate::convert::data(data, "data")?;
        let signature = crate::convert::data(signature, "signature")?;
        let id = id.map(|id| crate::convert::data(id, "id")).transpose()?;
        let (message, signature) = (message.as_slice(), signature.as_slice());
        let id = id.as_ref().map(|id| id.as_slice());
        let result = py.detach(|| match id {
            Some(id) => self
                .inner
                .verify_with_id(algorithm, &public_key, message, signature, id),
            None => self
                .inner
                .verify(algorithm, &public_key, message, signature),
        });
        Ok(Indicator(result.map_err(err)?.indicator()))
    }

    /// Generates a key-agreement key (``ecdh-p256``, ``ecdh-p384``, ``ecdh-p521``, ``x25519``,
    /// ``sm2-ecdh``) and runs its pairwise consistency test.
    fn generate_agreement_key(
        &self,
        py: Python<'_>,
        algorithm_name: &str,
    ) -> PyResult<AgreementKey> {
        let algorithm = algorithm(algorithm_name)?;
        let key = py
            .detach(|| self.inner.generate_agreement_key(algorithm))
            .map_err(err)?;
        Ok(AgreementKey::from_served(key))
    }

    /// Loads a key-agreement private key from its raw bytes: the big-endian scalar (ECDH) or
    /// the 32-byte X25519 key.
    fn load_agreement_key(
        &self,
        algorithm_name: &str,
        private_key: &Bound<'_, PyAny>,
    ) -> PyResult<AgreementKey> {
        let algorithm = algorithm(algorithm_name)?;
        let input = data(private_key, "private_key")?;
        let key = self
            .inner
            .agreement_key_from_private_bytes(algorithm, input.as_slice())
            .map_err(err)?;
        Ok(AgreementKey::from_served(key))
    }

    /// Generates an ML-KEM decapsulation key (``ml-kem-768``, ``ml-kem-1024``) and runs its
    /// pairwise consistency test.
    fn generate_kem_key(&self, py: Python<'_>, algorithm_name: &str) -> PyResult<KemKey> {
        let algorithm = algorithm(algorithm_name)?;
        let key = py
            .detach(|| self.inner.generate_kem_key(algorithm))
            .map_err(err)?;
        Ok(KemKey::from_served(key))
    }

    /// Encapsulates a fresh shared secret to an encapsulation key: returns
    /// ``(ciphertext, shared_secret)``, the secret as ``Secret`` carrying the indicator.
    fn encapsulate<'py>(
        &self,
        py: Python<'py>,
        algorithm_name: &str,
        encapsulation_key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let algorithm = algorithm(algorithm_name)?;
        let key = data(encapsulation_key, "encapsulation_key")?;
        let (encapsulated, indicator) = self
            .inner
            .encapsulate(algorithm, key.as_slice())
            .map_err(err)?
            .into_parts();
        let ciphertext = pyo3::types::PyBytes::new(py, &encapsulated.ciphertext);
        let secret = served(py, &encapsulated.shared_secret, indicator, true)?;
        PyTuple::new(py, [ciphertext.into_any(), secret])
    }

    /// Generates an SM2 encryption key pair (``sm2-encrypt``) and runs its pairwise
    /// consistency test.
    fn generate_decryption_key(
        &self,
        py: Python<'_>,
        algorithm_name: &str,
    ) -> PyResult<DecryptionKey> {
        let algorithm = algorithm(algorithm_name)?;
        let key = py
            .detach(|| self.inner.generate_decryption_key(algorithm))
            .map_err(err)?;
        Ok(DecryptionKey::from_served(key))
    }

    /// Loads an SM2 encryption private key (PKCS#8, PEM or DER).
    fn load_decryption_key(
        &self,
        algorithm_name: &str,
        private_key: &Bound<'_, PyAny>,
    ) -> PyResult<DecryptionKey> {
        let algorithm = algorithm(algorithm_name)?;
        let input = data(private_key, "private_key")?;
        let der = key_der(input.as_slice(), KeyKind::Private)?;
        let key = self
            .inner
            .decryption_key_from_pkcs8(algorithm, &der)
            .map_err(err)?;
        Ok(DecryptionKey::from_served(key))
    }

    /// Encrypts ``plaintext`` to an SM2 public key (PEM, DER SubjectPublicKeyInfo or the
    /// uncompressed point). ``format``: ``"asn1"`` (GM/T 0009, as OpenSSL writes) or
    /// ``"c1c3c2"`` (GB/T 32918.4).
    #[pyo3(signature = (algorithm_name, public_key, plaintext, *, format = "asn1"))]
    fn encrypt_to_public_key<'py>(
        &self,
        py: Python<'py>,
        algorithm_name: &str,
        public_key: &Bound<'py, PyAny>,
        plaintext: &Bound<'py, PyAny>,
        format: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let algorithm = algorithm(algorithm_name)?;
        let format = ciphertext_format(format)?;
        let public_key = data(public_key, "public_key")?;
        let public_key = key_der(public_key.as_slice(), KeyKind::Public)?;
        let plaintext = data(plaintext, "plaintext")?;
        let plaintext = plaintext.as_slice();
        let (ciphertext, indicator) = py
            .detach(|| {
                self.inner
                    .encrypt_to_public_key(algorithm, &public_key, plaintext, format)
            })
            .map_err(err)?
            .into_parts();
        served(py, &ciphertext, indicator, false)
    }

    fn __repr__(&self) -> String {
        format!(
            "<regula.Module policy='{}' state='{}'>",
            self.inner.policy().name(),
            self.state()
        )
    }
}

/// The build: Regula's version, the AWS-LC it links (and whether that is the validated FIPS
/// module in FIPS mode), the CPU features AWS-LC and regula-sm dispatch on.
#[pyfunction]
pub fn build_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let info = regula::info::build_info();
    let dict = PyDict::new(py);
    dict.set_item("regula_version", info.regula_version)?;
    dict.set_item("backend", info.backend)?;
    dict.set_item("fips_module_linked", info.fips_module_linked)?;
    dict.set_item("fips_mode", info.fips_mode.is_ok())?;
    dict.set_item("cpu_features", info.cpu_features)?;
    Ok(dict)
}

/// The names of every algorithm Regula has, whatever the policy.
#[pyfunction]
pub fn algorithms() -> Vec<&'static str> {
    regula::Algorithm::ALL
        .iter()
        .map(|algorithm| algorithm.name())
        .collect()
}
