//! `regula`, the Python binding of the Regula cryptographic module (PyO3, abi3).
//!
//! A translation layer only: every decision — approval, service indicator, error state — is the
//! core crate's, made through its public API, so a Python caller sees exactly what a Rust caller
//! sees. This crate holds no cryptography of its own.
//!
//! Results are returned as `regula.Served` (a `bytes` subclass defined in `regula/_types.py`)
//! carrying the operation's `regula.Indicator`. Work on large buffers runs with the GIL released.

// The one exception is `output`: new `bytes` objects filled with the GIL released.
#![deny(unsafe_code)]

mod aead;
mod cipher;
mod convert;
mod errors;
mod hash;
mod indicator;
mod keys;
mod mac;
mod module;
mod output;
mod registry;

use pyo3::prelude::*;

#[pymodule]
fn _regula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<module::Module>()?;
    m.add_class::<indicator::Indicator>()?;
    m.add_class::<aead::Aead>()?;
    m.add_class::<cipher::Cipher>()?;
    m.add_class::<hash::Hash>()?;
    m.add_class::<mac::MacKey>()?;
    m.add_class::<mac::MacContext>()?;
    m.add_class::<keys::SigningKey>()?;
    m.add_class::<keys::AgreementKey>()?;
    m.add_class::<keys::KemKey>()?;
    m.add_class::<keys::DecryptionKey>()?;
    m.add_class::<registry::AlgorithmInfo>()?;
    m.add_function(wrap_pyfunction!(module::build_info, m)?)?;
    m.add_function(wrap_pyfunction!(module::algorithms, m)?)?;
    Ok(())
}
