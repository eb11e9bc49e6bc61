//! `regula.MacKey` and `regula.MacContext`: HMAC, CMAC and GMAC through one API.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use self_cell::self_cell;

use crate::convert::{DETACH_THRESHOLD, served};
use crate::errors::{err, invalid_input};
use crate::indicator::Indicator;

/// A MAC key bound to a module (from ``Module.mac`` or ``Module.hmac``).
///
/// ``sign(data)`` returns the tag as ``Served``; ``verify(data, tag)`` returns the
/// ``Indicator`` or raises ``InvalidTag``. GMAC (``aes-128-gmac``, ``aes-256-gmac``) needs a
/// ``nonce``; the others refuse one. ``context()`` starts a streaming computation.
#[pyclass(frozen, module = "regula", name = "MacKey")]
pub struct MacKey {
    key: Arc<regula::MacKey>,
}

impl MacKey {
    pub(crate) fn new(key: regula::MacKey) -> MacKey {
        MacKey { key: Arc::new(key) }
    }
}

#[pymethods]
impl MacKey {
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.key.algorithm().name()
    }

    /// Whether this MAC takes a nonce (GMAC).
    #[getter]
    fn takes_nonce(&self) -> bool {
        self.key.takes_nonce()
    }

    /// The tag over ``data``, as ``Served``.
    #[pyo3(signature = (data, *, nonce = None))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        nonce: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let message = crate::convert::data(data, "data")?;
        let nonce = nonce
            .map(|nonce| crate::convert::data(nonce, "nonce"))
            .transpose()?;
        let (message, nonce) = (message.as_slice(), nonce.as_ref().map(|n| n.as_slice()));
        let sign = || match nonce {
            Some(nonce) => self.key.sign_with_nonce(nonce, message),
            None => self.key.sign(message),
        };
        let result = if message.len() >= DETACH_THRESHOLD {
            py.detach(sign)
        } else {
            sign()
        };
        let (tag, indicator) = result.map_err(err)?.into_parts();
        served(py, &tag, indicator, false)
    }

    /// Checks ``tag`` over ``data`` in constant time: returns the ``Indicator``, or raises
    /// ``InvalidTag``.
    #[pyo3(signature = (data, tag, *, nonce = None))]
    fn verify(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        tag: &Bound<'_, PyAny>,
        nonce: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Indicator> {
        let message = crate::convert::data(data, "data")?;
        let tag = crate::convert::data(tag, "tag")?;
        let nonce = nonce
            .map(|nonce| crate::convert::data(nonce, "nonce"))
            .transpose()?;
        let (message, tag) = (message.as_slice(), tag.as_slice());
        let nonce = nonce.as_ref().map(|n| n.as_slice());
        let verify = || match nonce {
            Some(nonce) => self.key.verify_with_nonce(nonce, message, tag),
            None => self.key.verify(message, tag),
        };
        let result = if message.len() >= DETACH_THRESHOLD {
            py.detach(verify)
        } else {
            verify()
        };
        Ok(Indicator(result.map_err(err)?.indicator()))
    }

    /// A streaming computation: ``update(data)`` any number of times, then ``finalize()`` or
    /// ``verify(tag)`` once.
    #[pyo3(signature = (*, nonce = None))]
    fn context(&self, nonce: Option<&Bound<'_, PyAny>>) -> PyResult<MacContext> {
        let nonce = nonce
            .map(|nonce| crate::convert::data(nonce, "nonce"))
            .transpose()?;
        let stream = Stream::try_new(Arc::clone(&self.key), |key| match &nonce {
            Some(nonce) => key.context_with_nonce(nonce.as_slice()).map(Some),
            None => Ok(Some(key.context())),
        })
        .map_err(err)?;
        Ok(MacContext {
            algorithm: self.key.algorithm(),
            stream: Mutex::new(Some(stream)),
        })
    }

    fn __repr__(&self) -> String {
        format!("<regula.MacKey {}>", self.algorithm())
    }
}

/// The core's streaming context, which borrows its key; `None` once finalized.
type OptionalContext<'key> = Option<regula::MacContext<'key>>;

self_cell!(
    struct Stream {
        owner: Arc<regula::MacKey>,
        #[covariant]
        dependent: OptionalContext,
    }
);

/// A streaming MAC computation (from ``MacKey.context``), like pyca/cryptography's ``HMAC``:
/// ``update`` then one ``finalize`` or ``verify``.
#[pyclass(frozen, module = "regula", name = "MacContext")]
pub struct MacContext {
    algorithm: regula::Algorithm,
    stream: Mutex<Option<Stream>>,
}

impl MacContext {
    /// Feeds the live context. Returns the core's error unconverted: converting needs the GIL,
    /// which must never be awaited while the lock is held (another thread may hold the GIL
    /// while waiting for the lock).
    fn feed(&self, input: &[u8]) -> Result<(), Option<regula::Error>> {
        let mut guard = self
            .stream
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let stream = guard.as_mut().ok_or(None)?;
        stream.with_dependent_mut(|_, context| match context {
            Some(context) => context.update(input).map_err(Some),
            None => Err(None),
        })
    }

    fn take(&self) -> PyResult<Stream> {
        let stream = self
            .stream
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        stream.ok_or_else(finalized)
    }
}

fn finalized() -> PyErr {
    invalid_input("this MAC context was already finalized")
}

#[pymethods]
impl MacContext {
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.algorithm.name()
    }

    fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let input = crate::convert::data(data, "data")?;
        let input = input.as_slice();
        let result = if input.len() >= DETACH_THRESHOLD {
            py.detach(|| self.feed(input))
        } else {
            self.feed(input)
        };
        match result {
            Ok(()) => Ok(()),
            Err(Some(error)) => Err(err(error)),
            Err(None) => Err(finalized()),
        }
    }

    /// The tag, as ``Served``. The context cannot be used afterwards.
    fn finalize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut stream = self.take()?;
        let result = stream.with_dependent_mut(|_, context| {
            context.take().ok_or_else(finalized)?.sign().map_err(err)
        });
        let (tag, indicator) = result?.into_parts();
        served(py, &tag, indicator, false)
    }

    /// Checks ``tag`` in constant time: returns the ``Indicator`` or raises ``InvalidTag``. The
    /// context cannot be used afterwards.
    fn verify(&self, tag: &Bound<'_, PyAny>) -> PyResult<Indicator> {
        let tag = crate::convert::data(tag, "tag")?;
        let mut stream = self.take()?;
        let result = stream.with_dependent_mut(|_, context| {
            context
                .take()
                .ok_or_else(finalized)?
                .verify(tag.as_slice())
                .map_err(err)
        });
        Ok(Indicator(result?.indicator()))
    }

    fn __repr__(&self) -> String {
        format!("<regula.MacContext {}>", self.algorithm())
    }
}
