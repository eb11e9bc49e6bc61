//! New `bytes` objects filled with the GIL released.
//!
//! `PyBytes::new_with` zeroes the buffer before handing it out, with the GIL held: for bulk
//! encryption that is a pass over megabytes (and their page faults) during which no other
//! Python thread runs. Here the GIL is held only to allocate; the buffer is initialised (zeroes
//! for out-of-place encryption, the plaintext for in-place `seal`) and filled after the GIL is
//! released. The one module of the binding with `unsafe` code: CPython's C API, as pyo3's own
//! `new_with` uses it.
#![allow(unsafe_code)]

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::convert::DETACH_THRESHOLD;

/// The buffer of a `bytes` object that only this function's caller can see yet.
struct Buffer {
    start: *mut u8,
    len: usize,
}

// SAFETY: the buffer belongs to a `bytes` object created in `bytes_filled` and not yet shared
// with any other code: no other thread can read or write it while `fill` runs, and the object
// outlives `fill` (it is held, with a strong reference, across the call).
unsafe impl Send for Buffer {}

impl Buffer {
    /// Initialises the buffer with `prefix` followed by zeroes, and lends it out.
    fn initialised(&mut self, prefix: &[u8]) -> &mut [u8] {
        let copied = prefix.len().min(self.len);
        // SAFETY: `start` points at `len` writable bytes owned by the new `bytes` object (see
        // `bytes_filled`), which `prefix` (borrowed from another object) cannot overlap; every
        // byte is written before a `&mut [u8]` to them exists.
        unsafe {
            std::ptr::copy_nonoverlapping(prefix.as_ptr(), self.start, copied);
            std::ptr::write_bytes(self.start.add(copied), 0, self.len - copied);
            std::slice::from_raw_parts_mut(self.start, self.len)
        }
    }
}

/// A new `bytes` of `len` bytes that starts as `prefix` (at most `len` bytes of it) followed by
/// zeroes and is then finished by `fill`, all with the GIL released when `len` reaches
/// [`DETACH_THRESHOLD`]: for in-place encryption, `prefix` is the plaintext. `fill` must leave
/// no byte it did not mean to (the core's AEAD functions encrypt every byte, or wipe them all on
/// failure).
pub(crate) fn bytes_filled<'py, T: Send>(
    py: Python<'py>,
    len: usize,
    prefix: &[u8],
    fill: impl FnOnce(&mut [u8]) -> T + Send,
) -> PyResult<(Bound<'py, PyBytes>, T)> {
    let size = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("output too large"))?;
    // SAFETY: a NULL source asks CPython for an uninitialised `bytes` of `size` bytes (plus the
    // trailing NUL it writes itself); the result is a new reference, or NULL with an exception
    // set, which `from_owned_ptr_or_err` turns into `Err`.
    let object = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyBytes_FromStringAndSize(std::ptr::null(), size))?
            .cast_into_unchecked::<PyBytes>()
    };
    // SAFETY: `object` is a `bytes` object, for which `PyBytes_AsString` returns its internal
    // buffer of `len` bytes; it cannot fail or move while we hold `object`.
    let start = unsafe { ffi::PyBytes_AsString(object.as_ptr()) }.cast::<u8>();
    let mut buffer = Buffer { start, len };
    let result = if len >= DETACH_THRESHOLD {
        py.detach(move || fill(buffer.initialised(prefix)))
    } else {
        fill(buffer.initialised(prefix))
    };
    Ok((object, result))
}
