//! Arguments in, results out: bytes-like inputs, algorithm names, PEM, and `regula.Served`.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

use regula::key_encoding::{KeyDer, KeyKind};

use crate::errors::{err, invalid_input, type_error, types};
use crate::indicator::Indicator;

/// Buffers at least this long are processed with the GIL released, so that other Python
/// threads run meanwhile. Below it, releasing and re-taking the GIL costs more than it frees
/// (hashlib uses 2 KiB for the same decision).
pub(crate) const DETACH_THRESHOLD: usize = 4096;

/// A bytes-like argument. `bytes` is borrowed without a copy (it is immutable, so it may be read
/// with the GIL released); `bytearray`, `memoryview` and other buffers are copied first, because
/// another thread could change them while the GIL is released.
pub(crate) enum Data<'py> {
    Borrowed(Bound<'py, PyBytes>),
    Owned(Vec<u8>),
}

impl Data<'_> {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Data::Borrowed(bytes) => bytes.as_bytes(),
            Data::Owned(vec) => vec,
        }
    }
}

/// Accepts `bytes`, `bytearray`, `regula.Served`, or any object with the buffer protocol
/// (`memoryview`, `array.array`, ...); refuses `str`, `int` and the rest with `TypeError`.
pub(crate) fn data<'py>(object: &Bound<'py, PyAny>, what: &str) -> PyResult<Data<'py>> {
    if let Ok(bytes) = object.cast::<PyBytes>() {
        return Ok(Data::Borrowed(bytes.clone()));
    }
    if let Ok(array) = object.cast::<PyByteArray>() {
        return Ok(Data::Owned(array.to_vec()));
    }
    let py = object.py();
    let types = types(py)?;
    if object.is_instance(types.served.bind(py))? {
        let data = object.getattr(intern!(py, "data"))?;
        return Ok(Data::Borrowed(data.cast_into::<PyBytes>()?));
    }
    // memoryview, array.array, numpy arrays...: anything with the buffer protocol, copied.
    let not_bytes_like = || {
        let name = object
            .get_type()
            .name()
            .map(|name| name.to_string())
            .unwrap_or_default();
        type_error(format!("{what} must be bytes-like, not {name}"))
    };
    let view = py
        .get_type::<PyMemoryView>()
        .call1((object,))
        .map_err(|_| not_bytes_like())?;
    let copied = py.get_type::<PyBytes>().call1((view,))?;
    Ok(Data::Borrowed(copied.cast_into::<PyBytes>()?))
}

/// An optional bytes-like argument; `None` means empty.
pub(crate) fn optional_data<'py>(
    object: Option<&Bound<'py, PyAny>>,
    what: &str,
) -> PyResult<Data<'py>> {
    match object {
        Some(object) if !object.is_none() => data(object, what),
        _ => Ok(Data::Owned(Vec::new())),
    }
}

/// An algorithm by its Regula name (`aes-256-gcm`, `sha256`, `sm3`, ...; case-insensitive).
pub(crate) fn algorithm(name: &str) -> PyResult<regula::Algorithm> {
    regula::Algorithm::from_name(name).ok_or_else(|| {
        err(regula::Error::UnknownAlgorithm {
            name: name.to_string(),
        })
    })
}

/// Wraps an operation's output as `regula.Served` (or, for key material, `regula.Secret`).
pub(crate) fn served<'py>(
    py: Python<'py>,
    output: &[u8],
    indicator: regula::Indicator,
    secret: bool,
) -> PyResult<Bound<'py, PyAny>> {
    wrap(py, PyBytes::new(py, output), indicator, secret)
}

/// [`served`] for output already written into a `bytes` object, with the indicator its
/// producer recorded: no copy.
pub(crate) fn into_served<'py>(
    py: Python<'py>,
    output: Bound<'py, PyBytes>,
    indicator: Option<regula::Indicator>,
) -> PyResult<Bound<'py, PyAny>> {
    let indicator = indicator.ok_or_else(|| invalid_input("operation produced no indicator"))?;
    wrap(py, output, indicator, false)
}

fn wrap<'py>(
    py: Python<'py>,
    output: Bound<'py, PyBytes>,
    indicator: regula::Indicator,
    secret: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let types = types(py)?;
    let class = if secret { &types.secret } else { &types.served };
    class
        .bind(py)
        .call1((output, Bound::new(py, Indicator(indicator))?))
}

/// Key and public-key encodings.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Der,
    Pem,
}

pub(crate) fn encoding(name: &str) -> PyResult<Encoding> {
    match name.to_ascii_lowercase().as_str() {
        "der" => Ok(Encoding::Der),
        "pem" => Ok(Encoding::Pem),
        _ => Err(invalid_input(format!(
            "encoding must be \"der\" or \"pem\", got {name:?}"
        ))),
    }
}

/// A key given as PEM or DER, decoded by the core's one decoder (`regula::key_encoding`): a
/// private key is PKCS#8 (`PRIVATE KEY`), a public key SubjectPublicKeyInfo (`PUBLIC KEY`) or,
/// as DER, a raw public key. Another PEM label is refused with a hint; the key itself never
/// appears in a message, and the decoded bytes are wiped when dropped.
pub(crate) fn key_der(input: &[u8], kind: KeyKind) -> PyResult<KeyDer> {
    regula::key_encoding::decode(input, kind).map_err(|error| err(regula::Error::from(error)))
}

pub(crate) fn pem_encode(label: &str, der: &[u8]) -> String {
    pem::encode_config(
        &pem::Pem::new(label, der),
        pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF),
    )
}

/// A key or public key in the requested encoding, as `bytes`.
pub(crate) fn encoded<'py>(
    py: Python<'py>,
    der: &[u8],
    label: &str,
    encoding: Encoding,
) -> Bound<'py, PyBytes> {
    match encoding {
        Encoding::Der => PyBytes::new(py, der),
        Encoding::Pem => PyBytes::new(py, pem_encode(label, der).as_bytes()),
    }
}

/// A path or name for `Module(...)`: `str` or `os.PathLike`.
pub(crate) fn fspath(object: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = object.cast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    let os = object.py().import(intern!(object.py(), "os"))?;
    let path = os.call_method1(intern!(object.py(), "fspath"), (object,))?;
    match path.cast::<PyString>() {
        Ok(text) => Ok(text.to_cow()?.into_owned()),
        Err(_) => Err(type_error("policy path must be str or a str path")),
    }
}
