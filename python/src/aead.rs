//! `regula.AEAD`: authenticated encryption, shaped like pyca/cryptography's `AESGCM`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::convert::{into_served, optional_data};
use crate::errors::{err, invalid_input};
use crate::output::bytes_filled;

/// An AEAD key bound to a module (from ``Module.aead``).
///
/// ``encrypt(nonce, data, associated_data)`` and ``decrypt(...)`` take the caller's nonce, as
/// pyca/cryptography's ``AESGCM`` does; ``seal(data, associated_data)`` lets the module
/// generate the nonce, which is the only AES-GCM encryption FIPS 140-3 approves (IG C.H), so
/// ``fips-140-3`` refuses ``encrypt`` with ``NotApproved`` for AES-GCM and serves ``seal``.
#[pyclass(frozen, module = "regula", name = "AEAD")]
pub struct Aead {
    pub(crate) key: regula::AeadKey,
}

#[pymethods]
impl Aead {
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.key.algorithm().name()
    }

    /// The tag length in bytes (16 unless given for AES-CCM).
    #[getter]
    fn tag_length(&self) -> usize {
        self.key.tag_len()
    }

    /// The accepted nonce lengths as ``(min, max)``: ``(12, 12)``, or ``(7, 13)`` for AES-CCM.
    #[getter]
    fn nonce_lengths(&self) -> (usize, usize) {
        let lens = self.key.nonce_lens();
        (*lens.start(), *lens.end())
    }

    /// Encrypts with a nonce the caller chose (never repeat one under a key): returns the
    /// ciphertext followed by the tag, as ``Served``.
    #[pyo3(signature = (nonce, data, associated_data = None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let nonce = crate::convert::data(nonce, "nonce")?;
        let plaintext = crate::convert::data(data, "data")?;
        let aad = optional_data(associated_data, "associated_data")?;
        let (nonce, plaintext, aad) = (nonce.as_slice(), plaintext.as_slice(), aad.as_slice());
        // Encrypted from the argument straight into the new `bytes` object.
        let len = plaintext.len().saturating_add(self.key.tag_len());
        let (ciphertext, result) = bytes_filled(py, len, &[], |out| {
            self.key.seal_with_nonce_into(nonce, aad, plaintext, out)
        })?;
        let indicator = result.map_err(err)?.indicator();
        into_served(py, ciphertext, Some(indicator))
    }

    /// Checks the tag and decrypts ``data`` (ciphertext followed by tag); raises
    /// ``InvalidTag`` and releases nothing if the tag, nonce or associated data is wrong.
    #[pyo3(signature = (nonce, data, associated_data = None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let nonce = crate::convert::data(nonce, "nonce")?;
        let ciphertext = crate::convert::data(data, "data")?;
        let aad = optional_data(associated_data, "associated_data")?;
        let (nonce, ciphertext, aad) = (nonce.as_slice(), ciphertext.as_slice(), aad.as_slice());
        let Some(len) = ciphertext.len().checked_sub(self.key.tag_len()) else {
            // The core names the problem.
            let error = self.key.open(nonce, aad, ciphertext).err();
            return Err(error.map_or_else(|| invalid_input("ciphertext too short"), err));
        };
        let (plaintext, result) = bytes_filled(py, len, &[], |out| {
            self.key.open_into(nonce, aad, ciphertext, out)
        })?;
        let indicator = result.map_err(err)?.indicator();
        into_served(py, plaintext, Some(indicator))
    }

    /// Encrypts with a nonce the module generates: returns ``(nonce, ciphertext)``, the
    /// ciphertext (followed by the tag) as ``Served``. Decrypt with
    /// ``decrypt(nonce, ciphertext, associated_data)``.
    #[pyo3(signature = (data, associated_data = None))]
    fn seal<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let plaintext = crate::convert::data(data, "data")?;
        let aad = optional_data(associated_data, "associated_data")?;
        let (plaintext, aad) = (plaintext.as_slice(), aad.as_slice());
        // AWS-LC generates the nonce inside its random-nonce key, which encrypts in place: the
        // new `bytes` object starts as the plaintext.
        let len = plaintext.len().saturating_add(self.key.tag_len());
        let (ciphertext, result) = bytes_filled(py, len, plaintext, |out| {
            let (body, tag) = out.split_at_mut(plaintext.len());
            self.key.seal_detached(aad, body, tag)
        })?;
        let (nonce, indicator) = result.map_err(err)?.into_parts();
        let ciphertext = into_served(py, ciphertext, Some(indicator))?;
        PyTuple::new(py, [PyBytes::new(py, &nonce).into_any(), ciphertext])
    }

    fn __repr__(&self) -> String {
        format!("<regula.AEAD {}>", self.algorithm())
    }
}
