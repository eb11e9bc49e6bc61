//! An in-process stand-in for OpenSSL's core: loads the provider through
//! `OSSL_provider_init` with a dispatch table of its own and calls the provider's functions by
//! their ids, as libcrypto does. The fuzz target over the provider's parameter handling and the
//! unit tests use it; it records the reason of every error the provider raises, so a caller
//! can tell a refused input (expected) from an internal fault (a caught panic: never expected).

use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};

use crate::ffi::{self, CoreHandle, Dispatch, Param, VaListStandIn};

thread_local! {
    static REASONS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// The reasons of the errors raised on this thread since the last call, oldest first.
pub fn take_reasons() -> Vec<u32> {
    REASONS.with(|reasons| std::mem::take(&mut *reasons.borrow_mut()))
}

/// The provider, loaded under a policy.
pub struct Host {
    provctx: *mut c_void,
    out: *const Dispatch,
    /// Kept alive for the core's `get_params` answer.
    _policy: Box<CString>,
}

/// One algorithm the provider offers for an operation.
pub struct Offered {
    pub names: String,
    pub properties: String,
    pub dispatch: *const Dispatch,
}

unsafe extern "C" fn core_get_params(handle: *const CoreHandle, params: *mut Param) -> c_int {
    // SAFETY: the handle is the `Box<CString>` of the policy name that `Host::load` passed.
    let policy = unsafe { &*(handle as *const CString) };
    let mut cursor = params;
    loop {
        // SAFETY: a terminated parameter array from the provider.
        let param = unsafe { &mut *cursor };
        if param.key.is_null() {
            return 1;
        }
        // SAFETY: parameter keys are C strings.
        let key = unsafe { CStr::from_ptr(param.key) };
        if key == c"policy" && param.data_type == ffi::PARAM_UTF8_PTR {
            // SAFETY: a UTF8_PTR entry holds a `const char **`.
            unsafe { *(param.data as *mut *const c_char) = policy.as_ptr() };
        }
        // SAFETY: not past the terminating entry.
        cursor = unsafe { cursor.add(1) };
    }
}

unsafe extern "C" fn core_new_error(_handle: *const CoreHandle) {}

unsafe extern "C" fn core_set_error_debug(
    _handle: *const CoreHandle,
    _file: *const c_char,
    _line: c_int,
    _function: *const c_char,
) {
}

unsafe extern "C" fn core_vset_error(
    _handle: *const CoreHandle,
    reason: u32,
    _format: *const c_char,
    _arguments: *mut VaListStandIn,
) {
    REASONS.with(|reasons| reasons.borrow_mut().push(reason));
}

static CORE_DISPATCH: ffi::SyncTable<[Dispatch; 5]> = ffi::SyncTable([
    crate::dispatch_fn!(ffi::CORE_GET_PARAMS, core_get_params),
    crate::dispatch_fn!(ffi::CORE_NEW_ERROR, core_new_error),
    crate::dispatch_fn!(ffi::CORE_SET_ERROR_DEBUG, core_set_error_debug),
    crate::dispatch_fn!(ffi::CORE_VSET_ERROR, core_vset_error),
    ffi::DISPATCH_END,
]);

impl Host {
    /// Loads the provider under `policy` (a built-in name or a policy file).
    pub fn load(policy: &str) -> Option<Host> {
        let policy = Box::new(CString::new(policy).ok()?);
        let mut out: *const Dispatch = std::ptr::null();
        let mut provctx: *mut c_void = std::ptr::null_mut();
        // SAFETY: the arguments are what the core passes: a handle (here the policy string,
        // which only `core_get_params` reads), the core's dispatch table and two out-pointers.
        let loaded = unsafe {
            crate::provider::OSSL_provider_init(
                &*policy as *const CString as *const CoreHandle,
                CORE_DISPATCH.0.as_ptr(),
                &mut out,
                &mut provctx,
            )
        };
        (loaded == 1).then_some(Host {
            provctx,
            out,
            _policy: policy,
        })
    }

    pub fn provctx(&self) -> *mut c_void {
        self.provctx
    }

    /// A function of the provider's own table.
    pub fn provider_function(&self, id: c_int) -> Option<unsafe extern "C" fn()> {
        function(self.out, id)
    }

    /// What the provider offers for `operation` (`ffi::OP_*`).
    pub fn offered(&self, operation: c_int) -> Vec<Offered> {
        type Query = unsafe extern "C" fn(*mut c_void, c_int, *mut c_int) -> *const ffi::Algorithm;
        let Some(query) = self.provider_function(ffi::PROVIDER_QUERY_OPERATION) else {
            return Vec::new();
        };
        // SAFETY: the query function's signature, per its id.
        let query = unsafe { std::mem::transmute::<unsafe extern "C" fn(), Query>(query) };
        let mut no_store = 0;
        // SAFETY: the provctx the provider gave; the list lives until teardown.
        let mut cursor = unsafe { query(self.provctx, operation, &mut no_store) };
        let mut offered = Vec::new();
        while !cursor.is_null() {
            // SAFETY: a list ended by an entry with null names.
            let algorithm = unsafe { &*cursor };
            if algorithm.names.is_null() {
                break;
            }
            // SAFETY: names and properties are C strings the provider owns.
            let (names, properties) = unsafe {
                (
                    CStr::from_ptr(algorithm.names)
                        .to_string_lossy()
                        .into_owned(),
                    CStr::from_ptr(algorithm.properties)
                        .to_string_lossy()
                        .into_owned(),
                )
            };
            offered.push(Offered {
                names,
                properties,
                dispatch: algorithm.implementation,
            });
            // SAFETY: not past the terminating entry.
            cursor = unsafe { cursor.add(1) };
        }
        offered
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        type Teardown = unsafe extern "C" fn(*mut c_void);
        if let Some(teardown) = self.provider_function(ffi::PROVIDER_TEARDOWN) {
            // SAFETY: the teardown function's signature, per its id; called once.
            unsafe {
                std::mem::transmute::<unsafe extern "C" fn(), Teardown>(teardown)(self.provctx)
            };
        }
    }
}

/// The function with `id` in a dispatch table.
pub fn function(table: *const Dispatch, id: c_int) -> Option<unsafe extern "C" fn()> {
    let mut cursor = table;
    while !cursor.is_null() {
        // SAFETY: a table ended by a zero id.
        let entry = unsafe { &*cursor };
        if entry.function_id == 0 {
            return None;
        }
        if entry.function_id == id {
            return entry.function;
        }
        // SAFETY: not past the terminating entry.
        cursor = unsafe { cursor.add(1) };
    }
    None
}
