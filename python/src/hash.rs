//! `regula.Hash`: a hashlib-style streaming digest.

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;

use crate::convert::{DETACH_THRESHOLD, served};
use crate::errors::{err, invalid_input};

/// A running digest (from ``Module.hash``), with hashlib's ``update``, ``digest``,
/// ``hexdigest``, ``copy``, ``name``, ``digest_size`` and ``block_size``. ``digest()`` does not
/// end the computation: more data can follow. Safe to share between threads (updates are
/// serialised).
#[pyclass(frozen, module = "regula", name = "Hash")]
pub struct Hash {
    algorithm: regula::Algorithm,
    context: Mutex<regula::DigestContext>,
}

/// One of the digest's sizes from its registry row; a digest always has both, so a missing
/// one is an error naming the algorithm rather than a made-up value.
fn size(algorithm: regula::Algorithm, what: &str, size: Option<usize>) -> PyResult<usize> {
    size.ok_or_else(|| {
        invalid_input(format!(
            "the registry has no {what} for {}",
            algorithm.name()
        ))
    })
}

impl Hash {
    pub(crate) fn new(module: &regula::Module, algorithm: regula::Algorithm) -> PyResult<Hash> {
        let context = module.digest_context(algorithm).map_err(err)?;
        Ok(Hash {
            algorithm,
            context: Mutex::new(context),
        })
    }

    /// Locked only for the duration of one call and never while waiting for the GIL, so no
    /// deadlock: a thread holding it with the GIL released never needs the GIL to let go.
    fn lock(&self) -> MutexGuard<'_, regula::DigestContext> {
        self.context
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[pymethods]
impl Hash {
    /// Feeds ``data`` (bytes-like). Large buffers are hashed with the GIL released.
    pub(crate) fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let input = crate::convert::data(data, "data")?;
        let input = input.as_slice();
        if input.len() >= DETACH_THRESHOLD {
            py.detach(|| self.lock().update(input));
        } else {
            self.lock().update(input);
        }
        Ok(())
    }

    /// The digest of everything fed so far, as ``Served``.
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let snapshot = self.lock().try_clone().map_err(err)?;
        let (output, indicator) = snapshot.finish().map_err(err)?.into_parts();
        served(py, &output, indicator, false)
    }

    /// ``digest()`` as lowercase hex (a plain ``str``; use ``digest().indicator`` for the
    /// indicator).
    fn hexdigest(&self) -> PyResult<String> {
        let snapshot = self.lock().try_clone().map_err(err)?;
        let output = snapshot.finish().map_err(err)?;
        Ok(output.iter().map(|byte| format!("{byte:02x}")).collect())
    }

    /// An independent copy of the running state.
    fn copy(&self) -> PyResult<Hash> {
        let context = self.lock().try_clone().map_err(err)?;
        Ok(Hash {
            algorithm: self.algorithm,
            context: Mutex::new(context),
        })
    }

    /// The algorithm's Regula name, e.g. ``"sha256"``, ``"sha3-256"``, ``"sm3"``.
    #[getter]
    fn name(&self) -> &'static str {
        self.algorithm.name()
    }

    /// The digest's length in bytes, from the algorithm's registry row.
    #[getter]
    fn digest_size(&self) -> PyResult<usize> {
        let sizes = self.algorithm.entry().sizes;
        size(self.algorithm, "digest size", sizes.output)
    }

    /// The hash function's input block in bytes (HMAC's key block), from the registry row.
    #[getter]
    fn block_size(&self) -> PyResult<usize> {
        let sizes = self.algorithm.entry().sizes;
        size(self.algorithm, "block size", sizes.block)
    }

    fn __repr__(&self) -> String {
        format!("<regula.Hash {}>", self.algorithm.name())
    }
}
