//! `regula.Indicator`: the service indicator of one operation.

use std::hash::{Hash, Hasher};

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The record of one operation: which algorithm and service ran, under which policy, and
/// whether that use was approved. Immutable, hashable, comparable.
#[pyclass(frozen, module = "regula", name = "Indicator")]
#[derive(Clone, Copy)]
pub struct Indicator(pub regula::Indicator);

#[pymethods]
impl Indicator {
    /// The algorithm's Regula name, e.g. ``"aes-256-gcm"``.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.0.algorithm.name()
    }

    /// The service, e.g. ``"encrypt"``, ``"digest"``, ``"mac-generate"``, ``"sign"``.
    #[getter]
    fn service(&self) -> &'static str {
        self.0.service.name()
    }

    /// Whether the policy approved this use.
    #[getter]
    fn approved(&self) -> bool {
        self.0.is_approved()
    }

    /// The name of the policy the module was loaded with.
    #[getter]
    fn policy(&self) -> &'static str {
        self.0.policy
    }

    /// The four fields as a ``dict``, e.g. for logging or JSON.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("algorithm", self.algorithm())?;
        dict.set_item("service", self.service())?;
        dict.set_item("approved", self.approved())?;
        dict.set_item("policy", self.policy())?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "Indicator(algorithm='{}', service='{}', approved={}, policy='{}')",
            self.algorithm(),
            self.service(),
            if self.approved() { "True" } else { "False" },
            self.policy()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Indicator>()
            .is_ok_and(|other| other.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.0.algorithm.hash(&mut hasher);
        self.0.service.hash(&mut hasher);
        self.0.is_approved().hash(&mut hasher);
        self.0.policy.hash(&mut hasher);
        hasher.finish()
    }
}
