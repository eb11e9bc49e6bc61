//! What every entry point shares: the panic guard, status codes from core errors, the
//! thread-local error message, and checked conversions of C pointers into Rust references.
//!
//! Nothing here knows about cryptography; it only turns C arguments into slices and handles,
//! and results back into status codes.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use regula::key_encoding::{KeyDer, KeyKind};
use regula::{Error, ErrorKind};
use zeroize::Zeroize;

use crate::{
    REGULA_ERR_BUFFER_TOO_SMALL, REGULA_ERR_CRYPTO, REGULA_ERR_ERROR_STATE, REGULA_ERR_INTERNAL,
    REGULA_ERR_INVALID_INPUT, REGULA_ERR_NOT_APPROVED, REGULA_OK, regula_iovec,
};

/// A failed call: its status code, a message for `regula_last_error_message`, and for
/// `REGULA_ERR_BUFFER_TOO_SMALL` the size the caller must provide.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) status: c_int,
    pub(crate) message: String,
    pub(crate) needed: Option<usize>,
}

/// Boxed, so that the success path of every layer moves a small `Result`.
pub(crate) type Outcome<T = ()> = Result<T, Box<Fail>>;

impl Fail {
    #[cold]
    pub(crate) fn invalid(message: impl Into<String>) -> Box<Fail> {
        Box::new(Fail {
            status: REGULA_ERR_INVALID_INPUT,
            message: message.into(),
            needed: None,
        })
    }

    #[cold]
    pub(crate) fn too_small(what: &str, needed: usize, given: usize) -> Box<Fail> {
        Box::new(Fail {
            status: REGULA_ERR_BUFFER_TOO_SMALL,
            message: format!("{what} needs {needed} bytes, the buffer has {given}"),
            needed: Some(needed),
        })
    }
}

impl From<Error> for Box<Fail> {
    /// Core errors never carry secret bytes (see `regula::error`), so their text is passed on.
    #[cold]
    fn from(error: Error) -> Box<Fail> {
        let status = match error.kind() {
            ErrorKind::Cryptographic => REGULA_ERR_CRYPTO,
            ErrorKind::Input => REGULA_ERR_INVALID_INPUT,
            ErrorKind::NotApproved => REGULA_ERR_NOT_APPROVED,
            ErrorKind::ModuleState => REGULA_ERR_ERROR_STATE,
        };
        Box::new(Fail {
            status,
            message: error.to_string(),
            needed: None,
        })
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A message with an interior NUL is cut there rather than lost.
    let bytes: Vec<u8> = message.bytes().take_while(|&byte| byte != 0).collect();
    let message = CString::new(bytes).unwrap_or_default();
    let _ = LAST_ERROR.try_with(|last| *last.borrow_mut() = message);
}

/// The message of the last failed call on this thread (empty if none). The pointer stays valid
/// until the next failing call on the same thread.
pub(crate) fn last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|last| last.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

/// Runs one entry point: a panic is caught here and becomes `REGULA_ERR_INTERNAL`, so it never
/// unwinds into C; the module's state is untouched by it and it keeps serving.
#[inline]
pub(crate) fn guard(body: impl FnOnce() -> Outcome) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => REGULA_OK,
        Ok(Err(fail)) => {
            set_last_error(&fail.message);
            fail.status
        }
        Err(_) => {
            set_last_error("internal error: a panic was caught at the C boundary");
            REGULA_ERR_INTERNAL
        }
    }
}

/// Rejects lengths no object can have (C callers passing a negative `int` cast to `size_t`).
#[inline]
fn check_len(ptr: *const u8, len: usize, what: &str) -> Outcome {
    if len > isize::MAX as usize || (ptr as usize).checked_add(len).is_none() {
        return Err(Fail::invalid(format!("{what}: impossible length {len}")));
    }
    Ok(())
}

/// A C input buffer as a slice; NULL is accepted only with length 0.
///
/// # Safety
/// `ptr` must point to `len` readable bytes that stay unchanged for `'a`.
#[inline]
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize, what: &str) -> Outcome<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Fail::invalid(format!("{what} is NULL with length {len}")));
    }
    check_len(ptr, len, what)?;
    // SAFETY: non-null, the length is possible, and the caller promises `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A C output buffer as a mutable slice; NULL is accepted only with length 0.
///
/// # Safety
/// `ptr` must point to `len` writable bytes that nothing else accesses for `'a`.
#[inline]
pub(crate) unsafe fn output<'a>(ptr: *mut u8, len: usize, what: &str) -> Outcome<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(Fail::invalid(format!("{what} is NULL with length {len}")));
    }
    check_len(ptr, len, what)?;
    // SAFETY: as in `input`, with exclusive access promised by the caller.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// A NUL-terminated UTF-8 string.
///
/// # Safety
/// `ptr` must be NULL or point to a NUL-terminated string.
pub(crate) unsafe fn string<'a>(ptr: *const c_char, what: &str) -> Outcome<&'a str> {
    if ptr.is_null() {
        return Err(Fail::invalid(format!("{what} is NULL")));
    }
    // SAFETY: non-null and NUL-terminated by the caller's promise.
    unsafe { CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| Fail::invalid(format!("{what} is not UTF-8")))
}

#[inline]
fn check_pointer<T>(ptr: *const T, what: &str) -> Outcome {
    if ptr.is_null() {
        return Err(Fail::invalid(format!("{what} is NULL")));
    }
    if !(ptr as usize).is_multiple_of(align_of::<T>()) {
        return Err(Fail::invalid(format!("{what} is misaligned")));
    }
    Ok(())
}

/// A handle passed in by the caller.
///
/// # Safety
/// `ptr` must be NULL or a live handle of this type made by this library.
#[inline]
pub(crate) unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Outcome<&'a T> {
    check_pointer(ptr, what)?;
    // SAFETY: checked non-null and aligned; the caller promises a live handle.
    Ok(unsafe { &*ptr })
}

/// A handle the call may change (digest contexts).
///
/// # Safety
/// As [`handle`], and no other thread may use it during the call.
#[inline]
pub(crate) unsafe fn handle_mut<'a, T>(ptr: *mut T, what: &str) -> Outcome<&'a mut T> {
    check_pointer(ptr, what)?;
    // SAFETY: checked non-null and aligned; exclusive use promised by the caller.
    Ok(unsafe { &mut *ptr })
}

/// An out-parameter the call writes one value to (`size_t *out_len`, `regula_x **out`).
///
/// # Safety
/// `ptr` must be NULL or point to writable memory for one `T`.
#[inline]
pub(crate) unsafe fn out_param<'a, T>(ptr: *mut T, what: &str) -> Outcome<&'a mut T> {
    check_pointer(ptr, what)?;
    // SAFETY: checked non-null and aligned; writable by the caller's promise.
    Ok(unsafe { &mut *ptr })
}

/// Writes a new handle to `*out` (which was set to NULL on entry).
pub(crate) fn put_handle<T>(out: &mut *mut T, value: T) {
    *out = Box::into_raw(Box::new(value));
}

/// Frees a handle made by [`put_handle`]; NULL is ignored. The value's `Drop` wipes keys.
///
/// # Safety
/// `ptr` must be NULL or a handle of this type not yet freed.
pub(crate) unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() && (ptr as usize).is_multiple_of(align_of::<T>()) {
        // SAFETY: made by `Box::into_raw` in `put_handle`, freed once by the caller's promise.
        drop(unsafe { Box::from_raw(ptr) });
    }
}

/// The entries of a `regula_iovec` array, checked.
///
/// # Safety
/// `iov` must point to `count` entries, each describing memory as `input`/`output` require.
pub(crate) unsafe fn iovecs<'a>(
    iov: *const regula_iovec,
    count: usize,
    what: &str,
) -> Outcome<&'a [regula_iovec]> {
    if count == 0 {
        return Ok(&[]);
    }
    check_pointer(iov, what)?;
    let bytes = count
        .checked_mul(size_of::<regula_iovec>())
        .ok_or_else(|| Fail::invalid(format!("{what}: impossible count {count}")))?;
    check_len(iov.cast(), bytes, what)?;
    // SAFETY: non-null, aligned, and `count` entries promised by the caller.
    let entries = unsafe { std::slice::from_raw_parts(iov, count) };
    let mut total = 0usize;
    for entry in entries {
        if entry.len > 0 && entry.base.is_null() {
            return Err(Fail::invalid(format!(
                "{what}: an entry is NULL with length {}",
                entry.len
            )));
        }
        check_len(entry.base, entry.len, what)?;
        total = total
            .checked_add(entry.len)
            .filter(|&total| total <= isize::MAX as usize)
            .ok_or_else(|| Fail::invalid(format!("{what}: impossible total length")))?;
    }
    Ok(entries)
}

/// The total length of checked iovecs.
pub(crate) fn iov_total(entries: &[regula_iovec]) -> usize {
    entries.iter().map(|entry| entry.len).sum()
}

/// Copies the iovecs' bytes, in order, into `into`.
pub(crate) fn gather(entries: &[regula_iovec], into: &mut Vec<u8>) {
    for entry in entries {
        if entry.len > 0 {
            // SAFETY: checked by `iovecs`: `base` points to `len` readable bytes.
            into.extend_from_slice(unsafe { std::slice::from_raw_parts(entry.base, entry.len) });
        }
    }
}

/// Copies `from` back over the iovecs, in order; `from` has their total length.
pub(crate) fn scatter(entries: &[regula_iovec], mut from: &[u8]) {
    for entry in entries {
        if entry.len > 0 {
            let (head, rest) = from.split_at(entry.len);
            // SAFETY: checked by `iovecs`: `base` points to `len` writable bytes.
            unsafe { std::ptr::copy_nonoverlapping(head.as_ptr(), entry.base, entry.len) };
            from = rest;
        }
    }
}

/// Wipes the memory the iovecs describe.
pub(crate) fn wipe_iovecs(entries: &[regula_iovec]) {
    for entry in entries {
        if entry.len > 0 {
            // SAFETY: checked by `iovecs`: `base` points to `len` writable bytes.
            unsafe { std::slice::from_raw_parts_mut(entry.base, entry.len) }.zeroize();
        }
    }
}

/// Runs a call that fills a caller buffer of `cap` bytes and reports the length in `*out_len`.
/// `*out_len` is 0 on entry; on failure the whole buffer is wiped and `*out_len` stays 0,
/// except for `REGULA_ERR_BUFFER_TOO_SMALL`, where it is the size needed.
///
/// # Safety
/// `out` must point to `cap` writable bytes (or be NULL with `cap` 0), `out_len` to a `size_t`.
#[inline]
pub(crate) unsafe fn with_output(
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
    fill: impl FnOnce(&mut [u8]) -> Outcome<usize>,
) -> Outcome {
    // SAFETY: the caller's promise.
    let out_len = unsafe { out_param(out_len, "out_len") }?;
    *out_len = 0;
    // SAFETY: the caller's promise.
    let buffer = unsafe { output(out, cap, "output buffer") }?;
    match fill(buffer) {
        Ok(len) => {
            *out_len = len;
            Ok(())
        }
        Err(fail) => {
            // SAFETY: as above; the slice from `fill` is gone.
            if let Ok(buffer) = unsafe { output(out, cap, "output buffer") } {
                buffer.zeroize();
            }
            if let Some(needed) = fail.needed {
                *out_len = needed;
            }
            Err(fail)
        }
    }
}

/// Copies a result into the output buffer, or asks for a larger one.
#[inline]
pub(crate) fn copy_out(buffer: &mut [u8], data: &[u8], what: &str) -> Outcome<usize> {
    let Some(target) = buffer.get_mut(..data.len()) else {
        return Err(Fail::too_small(what, data.len(), buffer.len()));
    };
    target.copy_from_slice(data);
    Ok(data.len())
}

/// A key given as PEM or DER, decoded by the core's one decoder (`regula::key_encoding`): a
/// private key is PKCS#8 (`PRIVATE KEY`), a public key SubjectPublicKeyInfo (`PUBLIC KEY`) or,
/// as DER, a raw public key. The decoded bytes are wiped when dropped.
pub(crate) fn decode_key(input: &[u8], kind: KeyKind) -> Outcome<KeyDer> {
    regula::key_encoding::decode(input, kind).map_err(|error| Box::<Fail>::from(Error::from(error)))
}
