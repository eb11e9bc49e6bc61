//! Errors on OpenSSL's error queue: a reason code OpenSSL can name (the provider's reason
//! strings) and Regula's own message as the error's data. Secrets never reach a message: the
//! core's errors carry none.

use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use regula::{Error, ErrorKind};

use crate::ffi::{
    CoreHandle, CoreNewError, CoreSetErrorDebug, CoreVsetError, Item, SyncTable, VaListStandIn,
};
use crate::params::ParamError;

/// The provider's reason codes (`ERR_GET_REASON`), named by [`REASON_STRINGS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Reason {
    /// A self-test failed: the module refuses every service.
    ModuleInErrorState = 1,
    /// The loaded policy does not serve this algorithm, key size or use.
    NotApproved = 2,
    /// A key, IV, tag or other input of the wrong size or form.
    InvalidInput = 3,
    /// A tag or signature that does not verify; a backend failure.
    Cryptographic = 4,
    /// An unknown, malformed or out-of-range parameter.
    BadParameter = 5,
    /// A call OpenSSL's state machine should not have made now (e.g. update before init).
    OutOfOrder = 6,
    /// A fault inside the provider itself (a caught panic).
    Internal = 7,
    /// A key the algorithm does not take; OpenSSL's own text for it, which programs and
    /// OpenSSL's evp_test data match on.
    InvalidKeyLength = 8,
}

/// `OSSL_ITEM` list returned by `OSSL_FUNC_provider_get_reason_strings`.
pub static REASON_STRINGS: SyncTable<[Item; 9]> = SyncTable([
    reason_item(Reason::ModuleInErrorState, c"Regula module in error state"),
    reason_item(Reason::NotApproved, c"not allowed by the Regula policy"),
    reason_item(Reason::InvalidInput, c"invalid input"),
    reason_item(Reason::Cryptographic, c"cryptographic failure"),
    reason_item(Reason::BadParameter, c"bad parameter"),
    reason_item(Reason::OutOfOrder, c"call out of order"),
    reason_item(Reason::Internal, c"internal error in the Regula provider"),
    reason_item(Reason::InvalidKeyLength, c"invalid key length"),
    Item {
        id: 0,
        ptr: std::ptr::null_mut(),
    },
]);

const fn reason_item(reason: Reason, text: &'static std::ffi::CStr) -> Item {
    Item {
        id: reason as u32,
        ptr: text.as_ptr() as *mut _,
    }
}

/// The core's error functions and the handle errors are raised against (the first instance's).
struct Core {
    handle: usize,
    new_error: CoreNewError,
    set_error_debug: CoreSetErrorDebug,
    vset_error: CoreVsetError,
}

static CORE: OnceLock<Core> = OnceLock::new();

/// Remembers the core's error functions (called by `OSSL_provider_init`).
pub fn install(
    handle: *const CoreHandle,
    new_error: Option<CoreNewError>,
    set_error_debug: Option<CoreSetErrorDebug>,
    vset_error: Option<CoreVsetError>,
) {
    if let (Some(new_error), Some(set_error_debug), Some(vset_error)) =
        (new_error, set_error_debug, vset_error)
    {
        let _ = CORE.set(Core {
            handle: handle as usize,
            new_error,
            set_error_debug,
            vset_error,
        });
    }
}

/// Puts an error on the calling thread's OpenSSL error queue.
pub fn raise(reason: Reason, message: &str) {
    let Some(core) = CORE.get() else { return };
    // The format is the message itself, so `%` has to be doubled; no conversion remains, so
    // the va_list stand-in is never read.
    let format = CString::new(message.replace('%', "%%").replace('\0', " "))
        .unwrap_or_else(|_| c"invalid message".to_owned());
    let mut no_arguments = VaListStandIn([0; 4]);
    let handle = core.handle as *const CoreHandle;
    // SAFETY: the functions come from the core's dispatch table with the signatures
    // `core_dispatch.h` gives; the strings are NUL-terminated and outlive the calls.
    unsafe {
        (core.new_error)(handle);
        (core.set_error_debug)(handle, c"regula-ossl".as_ptr(), 0, c"regula".as_ptr());
        (core.vset_error)(
            handle,
            reason as u32,
            format.as_ptr() as *const c_char,
            &mut no_arguments,
        );
    }
}

/// Raises one of the core's errors with its own message.
pub fn raise_regula(error: &Error) {
    let reason = match error.kind() {
        _ if matches!(error, Error::InvalidKey { .. }) => Reason::InvalidKeyLength,
        ErrorKind::ModuleState => Reason::ModuleInErrorState,
        ErrorKind::NotApproved => Reason::NotApproved,
        ErrorKind::Input => Reason::InvalidInput,
        ErrorKind::Cryptographic => Reason::Cryptographic,
    };
    raise(reason, &error.to_string());
}

pub fn raise_param(error: &ParamError) {
    raise(Reason::BadParameter, &error.0);
}

/// Runs an entry point's body, turning a panic into [`Reason::Internal`] and the failure value:
/// no panic crosses into C.
pub fn guard<T>(failure: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| {
        raise(Reason::Internal, "internal error (a panic was caught)");
        failure
    })
}

/// The result type of entry-point bodies: `Err` has been raised already or is raised by
/// [`finish`].
pub enum Failure {
    Regula(Error),
    Param(ParamError),
    Other(Reason, String),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure::Regula(error)
    }
}

impl From<ParamError> for Failure {
    fn from(error: ParamError) -> Failure {
        Failure::Param(error)
    }
}

pub fn fail(reason: Reason, message: impl Into<String>) -> Failure {
    Failure::Other(reason, message.into())
}

/// Raises a failure and gives OpenSSL's 1 (success) or 0.
#[inline]
pub fn finish(result: Result<(), Failure>) -> c_int {
    match result {
        Ok(()) => 1,
        Err(failure) => {
            raise_failure(failure);
            0
        }
    }
}

// Out of line: the success path of every entry point stays short.
#[cold]
fn raise_failure(failure: Failure) {
    match failure {
        Failure::Regula(error) => raise_regula(&error),
        Failure::Param(error) => raise_param(&error),
        Failure::Other(reason, message) => raise(reason, &message),
    }
}

/// [`guard`] and [`finish`] together: the usual shape of an entry point returning `int`.
pub fn entry(body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    guard(0, || finish(body()))
}
