//! The operation contexts as OpenSSL holds them: each operation's `Context` lives in a `Box`
//! behind the `void *` OpenSSL passes back. Creating, borrowing, freeing and duplicating one is
//! the same for every operation, so it is written once here; each operation module says only
//! how its own context is copied ([`Duplicate`]).

use std::os::raw::c_void;

use crate::error::{self, Failure, Reason, fail};

/// Hands a new context to OpenSSL.
pub fn into_raw<T>(context: T) -> *mut c_void {
    Box::into_raw(Box::new(context)) as *mut c_void
}

/// Runs a constructor's body (`newctx`, `dupctx`, a key manager's `new`, `gen_init`, `gen`,
/// `dup`): the new object handed to OpenSSL, or null with the reason on the error queue.
pub fn construct<T>(body: impl FnOnce() -> Result<T, Failure>) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || match body() {
        Ok(value) => into_raw(value),
        Err(failure) => {
            error::finish(Err(failure));
            std::ptr::null_mut()
        }
    })
}

/// The context behind `ctx`, or an out-of-order error naming `what` when OpenSSL passes none.
///
/// # Safety
/// `ctx` is null or a pointer [`into_raw`] made from a `T` that OpenSSL has not freed; OpenSSL
/// does not use one context from two threads at once.
pub unsafe fn borrow<'a, T>(ctx: *mut c_void, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: by the contract above.
    unsafe { (ctx as *mut T).as_mut() }
        .ok_or_else(|| fail(Reason::OutOfOrder, format!("no {what}")))
}

/// The `freectx` of every operation.
///
/// # Safety
/// As for [`borrow`]; OpenSSL frees each context once.
pub unsafe extern "C" fn free<T>(ctx: *mut c_void) {
    error::guard((), || {
        if !ctx.is_null() {
            // SAFETY: made by `into_raw` from a `T`, freed once by OpenSSL.
            drop(unsafe { Box::from_raw(ctx as *mut T) });
        }
    })
}

/// A context OpenSSL can duplicate mid-operation (`EVP_*_CTX_dup`).
pub trait Duplicate: Sized {
    /// Names the context in errors ("digest context").
    const WHAT: &'static str;

    fn duplicate(&self) -> Result<Self, Failure>;
}

/// The `dupctx` of every operation: a copy, or null with the reason on the error queue.
///
/// # Safety
/// As for [`borrow`].
pub unsafe extern "C" fn duplicate<T: Duplicate>(ctx: *mut c_void) -> *mut c_void {
    construct(|| {
        // SAFETY: a live context (the contract above).
        unsafe { borrow::<T>(ctx, T::WHAT) }?.duplicate()
    })
}

/// `per_algorithm_tables!(table)`: `fn tables()`, the dispatch tables `table::<N>()` builds for
/// every registry index N, built once. OpenSSL hands a context constructor only the provider
/// context, so the algorithm is in the monomorphised `newctx::<N>` of each table.
#[macro_export]
macro_rules! per_algorithm_tables {
    ($table:ident) => {
        fn tables() -> &'static [Box<[$crate::ffi::Dispatch]>] {
            static TABLES: std::sync::OnceLock<Vec<Box<[$crate::ffi::Dispatch]>>> =
                std::sync::OnceLock::new();
            TABLES.get_or_init(|| seq_macro::seq!(N in 0..128 { vec![#($table::<N>(),)*] }))
        }
    };
}
