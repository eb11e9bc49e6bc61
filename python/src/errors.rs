//! Regula's errors as the Python exceptions of `regula/_types.py`, which mirror the exit codes of
//! the `regula` command: `InvalidTag` / `InvalidSignature` (1), `InvalidInput` (2, also a
//! `ValueError`), `NotApproved` (3), `ModuleErrorState` (4), all under `RegulaError`.
//!
//! Messages are the core's `Display`, which never carries key material or plaintext.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// The classes defined in Python, looked up once.
pub(crate) struct Types {
    pub served: Py<PyType>,
    pub secret: Py<PyType>,
    regula_error: Py<PyType>,
    invalid_tag: Py<PyType>,
    invalid_signature: Py<PyType>,
    invalid_input: Py<PyType>,
    not_approved: Py<PyType>,
    module_error_state: Py<PyType>,
}

static TYPES: PyOnceLock<Types> = PyOnceLock::new();

pub(crate) fn types(py: Python<'_>) -> PyResult<&Types> {
    TYPES.get_or_try_init(py, || {
        let module = py.import("regula._types")?;
        let class = |name: &str| -> PyResult<Py<PyType>> {
            Ok(module.getattr(name)?.cast_into::<PyType>()?.unbind())
        };
        Ok(Types {
            served: class("Served")?,
            secret: class("Secret")?,
            regula_error: class("RegulaError")?,
            invalid_tag: class("InvalidTag")?,
            invalid_signature: class("InvalidSignature")?,
            invalid_input: class("InvalidInput")?,
            not_approved: class("NotApproved")?,
            module_error_state: class("ModuleErrorState")?,
        })
    })
}

/// Converts a core error into the matching Python exception.
pub(crate) fn err(error: regula::Error) -> PyErr {
    Python::attach(|py| convert(py, &error).unwrap_or_else(|failure| failure))
}

fn convert(py: Python<'_>, error: &regula::Error) -> PyResult<PyErr> {
    use regula::Error;
    let types = types(py)?;
    let class = match error {
        Error::NotApproved { .. } => &types.not_approved,
        Error::ModuleInErrorState { .. } => &types.module_error_state,
        Error::AuthenticationFailed => &types.invalid_tag,
        Error::BadSignature => &types.invalid_signature,
        _ => match error.kind() {
            regula::ErrorKind::Input => &types.invalid_input,
            regula::ErrorKind::NotApproved => &types.not_approved,
            regula::ErrorKind::ModuleState => &types.module_error_state,
            regula::ErrorKind::Cryptographic => &types.regula_error,
        },
    };
    let exception = class.bind(py).call1((error.to_string(),))?;
    match error {
        Error::NotApproved {
            algorithm,
            policy,
            reason,
            alternative,
        } => {
            exception.setattr("algorithm", algorithm.name())?;
            exception.setattr("policy", policy)?;
            exception.setattr("reason", reason)?;
            exception.setattr("alternative", *alternative)?;
        }
        Error::ModuleInErrorState { failed_test } => {
            exception.setattr("failed_test", failed_test)?;
        }
        _ => {}
    }
    Ok(PyErr::from_value(exception))
}

/// `regula.InvalidInput` with a message of the binding's own (argument checks).
pub(crate) fn invalid_input(message: impl Into<String>) -> PyErr {
    err(regula::Error::InvalidInput {
        reason: message.into(),
    })
}

/// For arguments of the wrong Python type.
pub(crate) fn type_error(message: impl Into<String>) -> PyErr {
    PyTypeError::new_err(message.into())
}
