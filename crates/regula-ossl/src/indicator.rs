//! The service indicator of a context: whether its last operation was approved, answered as
//! `regula-approved` and as OpenSSL 3.4+'s `fips-indicator` context parameter; and OpenSSL
//! 3.4+'s indicator callback, which an application sets with `OSSL_INDICATOR_set_callback` to
//! hear of, and veto, operations that are not approved.

use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::OnceLock;

use regula::{Algorithm, Indicator};

use crate::error::{Failure, Reason, fail};
use crate::ffi::{CoreHandle, Param};
use crate::params::{self, ParamRef, ParamResult, Params};

/// A context's last completed operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LastOperation {
    /// Nothing completed yet.
    #[default]
    None,
    Approved,
    NotApproved,
}

impl From<Indicator> for LastOperation {
    fn from(indicator: Indicator) -> LastOperation {
        if indicator.is_approved() {
            LastOperation::Approved
        } else {
            LastOperation::NotApproved
        }
    }
}

/// The indicator parameters every context offers.
pub static GETTABLE: params::ParamList = crate::param_list![
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

/// Answers the indicator parameters among `params`: `regula-approved` is 1, 0, or -1 before
/// any operation; `fips-indicator` is 1 only after an approved operation.
pub fn answer(last: LastOperation, params: &Params) -> ParamResult<()> {
    for mut param in params.iter() {
        answer_param(last, &mut param)?;
    }
    Ok(())
}

/// [`answer`] for one parameter, for a `get_ctx_params` that reads its other parameters in the
/// same pass (nothing for a key that is not an indicator's).
pub fn answer_param(last: LastOperation, param: &mut ParamRef<'_>) -> ParamResult<()> {
    match param.key {
        "regula-approved" => param.set_i64(match last {
            LastOperation::None => -1,
            LastOperation::Approved => 1,
            LastOperation::NotApproved => 0,
        }),
        "fips-indicator" => param.set_i64(i64::from(last == LastOperation::Approved)),
        _ => Ok(()),
    }
}

/// `OSSL_INDICATOR_CALLBACK`: the algorithm, a description, no parameters; 0 refuses.
type ApplicationCallback =
    unsafe extern "C" fn(*const c_char, *const c_char, *const Param) -> c_int;
/// `OSSL_FUNC_core_get_libctx`.
pub type CoreGetLibctx = unsafe extern "C" fn(*const CoreHandle) -> *mut c_void;
/// `OSSL_FUNC_indicator_cb`: the callback set on a library context, or null.
pub type CoreIndicatorCb = unsafe extern "C" fn(*mut c_void, *mut Option<ApplicationCallback>);

/// Where the application's callback is found: the core's functions, present from 3.4 on.
struct CallbackSource {
    handle: usize,
    get_libctx: CoreGetLibctx,
    indicator_cb: CoreIndicatorCb,
}

static CALLBACK_SOURCE: OnceLock<CallbackSource> = OnceLock::new();

/// Remembers the core's functions (called by `OSSL_provider_init`; a libcrypto before 3.4
/// offers no indicator callback, and then there is nothing to ask).
pub fn install(
    handle: *const CoreHandle,
    get_libctx: Option<CoreGetLibctx>,
    indicator_cb: Option<CoreIndicatorCb>,
) {
    if let (Some(get_libctx), Some(indicator_cb)) = (get_libctx, indicator_cb) {
        let _ = CALLBACK_SOURCE.set(CallbackSource {
            handle: handle as usize,
            get_libctx,
            indicator_cb,
        });
    }
}

/// Asks the application's indicator callback, if it set one, whether an operation the policy
/// serves but does not approve may go ahead, as OpenSSL's FIPS provider does in its tolerant
/// mode: `type` is the algorithm, `desc` what is not approved. A callback returning 0 refuses
/// the operation, before it gives any output.
pub fn permit_unapproved(algorithm: Algorithm, operation: &str) -> Result<(), Failure> {
    let Some(source) = CALLBACK_SOURCE.get() else {
        return Ok(());
    };
    let mut callback: Option<ApplicationCallback> = None;
    // SAFETY: the core's own functions with the handle it gave the provider; the callback
    // slot is written by the core (null when the application set none).
    unsafe {
        let libctx = (source.get_libctx)(source.handle as *const CoreHandle);
        (source.indicator_cb)(libctx, &mut callback);
    }
    let Some(callback) = callback else {
        return Ok(());
    };
    let kind = CString::new(algorithm.name()).unwrap_or_default();
    let description =
        CString::new(format!("{operation} not approved by the Regula policy")).unwrap_or_default();
    // SAFETY: the application's callback with two NUL-terminated strings that outlive the
    // call and no parameters, as OpenSSL's FIPS provider calls it.
    let allowed = unsafe { callback(kind.as_ptr(), description.as_ptr(), std::ptr::null()) };
    if allowed != 0 {
        Ok(())
    } else {
        Err(fail(
            Reason::NotApproved,
            format!(
                "{algorithm}: {operation} is not approved, and the application's indicator \
                 callback refused it"
            ),
        ))
    }
}

/// The indicator of an operation that has completed but not yet given its output: a
/// non-approved one first goes to [`permit_unapproved`].
pub fn settle(indicator: Indicator) -> Result<LastOperation, Failure> {
    if !indicator.is_approved() {
        permit_unapproved(indicator.algorithm, indicator.service.name())?;
    }
    Ok(LastOperation::from(indicator))
}
