//! `regula.Cipher`: unauthenticated block-cipher modes (AES-CTR/CBC/XTS/CFB8, key wrap, SM4).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::convert::{DETACH_THRESHOLD, optional_data, served};
use crate::errors::err;

/// A cipher key bound to a module (from ``Module.cipher``). Prefer an ``AEAD``: these modes
/// do not detect tampering.
#[pyclass(frozen, module = "regula", name = "Cipher")]
pub struct Cipher {
    pub(crate) key: regula::CipherKey,
}

#[pymethods]
impl Cipher {
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.key.algorithm().name()
    }

    /// The IV (or XTS tweak) length in bytes; 0 for ECB, RC4 and key wrapping.
    #[getter]
    fn iv_length(&self) -> usize {
        self.key.iv_len()
    }

    /// Encrypts ``data`` with ``iv``, or with a random IV from the module's DRBG when ``iv`` is
    /// ``None``: returns ``(iv, ciphertext)``, the ciphertext as ``Served``.
    #[pyo3(signature = (data, *, iv = None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        iv: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let plaintext = crate::convert::data(data, "data")?;
        let iv = match iv {
            Some(iv) if !iv.is_none() => Some(crate::convert::data(iv, "iv")?),
            _ => None,
        };
        let (plaintext, iv) = (plaintext.as_slice(), iv.as_ref().map(|iv| iv.as_slice()));
        let encrypt = || self.key.encrypt(iv, plaintext);
        let result = if plaintext.len() >= DETACH_THRESHOLD {
            py.detach(encrypt)
        } else {
            encrypt()
        };
        let (encrypted, indicator) = result.map_err(err)?.into_parts();
        let iv = PyBytes::new(py, &encrypted.iv);
        let ciphertext = served(py, &encrypted.ciphertext, indicator, false)?;
        PyTuple::new(py, [iv.into_any(), ciphertext])
    }

    /// Decrypts ``data`` (for CBC, checks and strips the padding); ``iv`` is ``None`` or empty
    /// for modes without one.
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        iv: Option<&Bound<'py, PyAny>>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let iv = optional_data(iv, "iv")?;
        let ciphertext = crate::convert::data(data, "data")?;
        let (iv, ciphertext) = (iv.as_slice(), ciphertext.as_slice());
        let decrypt = || self.key.decrypt(iv, ciphertext);
        let result = if ciphertext.len() >= DETACH_THRESHOLD {
            py.detach(decrypt)
        } else {
            decrypt()
        };
        let (plaintext, indicator) = result.map_err(err)?.into_parts();
        served(py, &plaintext, indicator, false)
    }

    fn __repr__(&self) -> String {
        format!("<regula.Cipher {}>", self.algorithm())
    }
}
