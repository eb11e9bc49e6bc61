//! Loading a module, its state and build information, indicator scopes, and error messages.

use std::ffi::{CStr, CString, c_char, c_int};
use std::sync::{Mutex, OnceLock};

use regula::{Algorithm, Indicator, IndicatorState, Module, ModuleState, Service};

use crate::boundary::{Fail, Outcome, free_handle, guard, handle, out_param, put_handle, string};
use crate::{
    REGULA_ERR_ERROR_STATE, REGULA_INDICATOR_APPROVED, REGULA_INDICATOR_NOT_APPROVED,
    REGULA_INDICATOR_UNSET, REGULA_STATE_ERROR, REGULA_STATE_OPERATIONAL, regula_indicator,
    regula_info,
};

/// A loaded module (policy, self-test state, counters) and its indicator scope.
/// Thread-safe: any number of threads may use one module handle at once.
pub struct regula_module {
    pub(crate) module: Module,
    /// The policy name for indicators, as a C string that lives as long as the process.
    pub(crate) policy: &'static CStr,
    failed_test: OnceLock<CString>,
}

/// A handle on the same module with its own sticky indicator state, e.g. one per request.
/// Keys made through `regula_scope_module(scope)` record into this scope. It is not tied to a
/// thread, so it stays right when an event loop moves a request between threads.
/// Thread-safe like a module.
pub struct regula_scope {
    inner: regula_module,
}

impl regula_module {
    pub(crate) fn wrap(module: Module) -> regula_module {
        regula_module {
            policy: intern_policy(module.policy().name()),
            module,
            failed_test: OnceLock::new(),
        }
    }
}

/// Policy names as C strings for the life of the process; a process loads few policies.
fn intern_policy(name: &str) -> &'static CStr {
    static NAMES: Mutex<Vec<&'static CStr>> = Mutex::new(Vec::new());
    let mut names = NAMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&known) = names
        .iter()
        .find(|known| known.to_bytes() == name.as_bytes())
    {
        return known;
    }
    let name = CString::new(name.replace('\0', "")).unwrap_or_default();
    let leaked: &'static CStr = Box::leak(name.into_boxed_c_str());
    names.push(leaked);
    leaked
}

/// Registry names as C strings, indexed like `Algorithm::ALL`; new algorithms appear here
/// without a change to this crate.
fn algorithm_name(algorithm: Algorithm) -> *const c_char {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        Algorithm::ALL
            .iter()
            .map(|algorithm| CString::new(algorithm.name()).unwrap_or_default())
            .collect()
    });
    names
        .get(algorithm.index())
        .map_or(c"".as_ptr(), |name| name.as_ptr())
}

fn service_name(service: Service) -> *const c_char {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        Service::ALL
            .iter()
            .map(|service| CString::new(service.name()).unwrap_or_default())
            .collect()
    });
    names
        .get(service.index())
        .map_or(c"".as_ptr(), |name| name.as_ptr())
}

/// Writes an operation's indicator if the caller asked for it.
///
/// # Safety
/// `out` must be NULL or point to a writable `regula_indicator`.
pub(crate) unsafe fn report(out: *mut regula_indicator, indicator: Indicator, policy: &CStr) {
    if out.is_null() || !(out as usize).is_multiple_of(align_of::<regula_indicator>()) {
        return;
    }
    let value = regula_indicator {
        algorithm: algorithm_name(indicator.algorithm),
        service: service_name(indicator.service),
        policy: policy.as_ptr(),
        approved: c_int::from(indicator.is_approved()),
    };
    // SAFETY: non-null, aligned, writable by the caller's promise.
    unsafe { out.write(value) };
}

/// Looks an algorithm up by its registry name (`"aes-128-gcm"`, case-insensitive).
///
/// # Safety
/// `name` must be NULL or NUL-terminated.
pub(crate) unsafe fn algorithm(name: *const c_char) -> Outcome<Algorithm> {
    // SAFETY: the caller's promise.
    let name = unsafe { string(name, "algorithm name") }?;
    Algorithm::from_name(name).ok_or_else(|| {
        regula::Error::UnknownAlgorithm {
            name: name.to_string(),
        }
        .into()
    })
}

/// Loads a policy — a built-in profile name (`"default"`, `"fips-140-3"`, `"gm"`, `"cnsa-2.0"`) or
/// the path of a TOML policy file — and runs the power-on self-tests. NULL means `"default"`.
///
/// Returns `REGULA_OK` with `*out` set when the module is operational.
/// If a self-test failed, returns `REGULA_ERR_ERROR_STATE` and still sets `*out` (query it,
/// then free it): every service of that module is refused.
/// A policy that does not load returns `REGULA_ERR_INVALID_INPUT` with `*out` NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_module_load(
    policy_name_or_file: *const c_char,
    out: *mut *mut regula_module,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise.
        let out = unsafe { out_param(out, "out") }?;
        *out = std::ptr::null_mut();
        let name = if policy_name_or_file.is_null() {
            "default"
        } else {
            // SAFETY: the caller's promise.
            unsafe { string(policy_name_or_file, "policy name") }?
        };
        let module = Module::load_named(name).map_err(|error| Fail::invalid(error.to_string()))?;
        // Runs every CAST the policy needs now, so that a failure is reported here, as this
        // function documents (the Rust API runs each before its algorithm's first use).
        drop(module.run_self_tests());
        let state = module.state();
        let failed = module.failed_test().map(str::to_string);
        put_handle(out, regula_module::wrap(module));
        match state {
            ModuleState::Operational => Ok(()),
            _ => Err(Box::new(Fail {
                status: REGULA_ERR_ERROR_STATE,
                message: format!(
                    "module is in the error state (self-test {} failed); every cryptographic \
                     service is refused",
                    failed.as_deref().unwrap_or("unknown")
                ),
                needed: None,
            })),
        }
    })
}

/// Frees a module handle. Keys and contexts made from it stay usable (they hold the module).
/// NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_module_free(module: *mut regula_module) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(module) }
}

/// `REGULA_STATE_OPERATIONAL` or `REGULA_STATE_ERROR`; 0 for a NULL handle. The state can change
/// to error after load when a pairwise consistency test fails at key generation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_module_state(module: *const regula_module) -> c_int {
    // SAFETY: the caller's promise.
    match unsafe { handle(module, "module") } {
        Ok(module) => match module.module.state() {
            ModuleState::Operational => REGULA_STATE_OPERATIONAL,
            ModuleState::Error => REGULA_STATE_ERROR,
        },
        Err(_) => 0,
    }
}

/// The name of the self-test that put the module in its error state, or NULL if none failed.
/// The string lives as long as the module handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_module_failed_selftest(
    module: *const regula_module,
) -> *const c_char {
    // SAFETY: the caller's promise.
    let Ok(module) = (unsafe { handle(module, "module") }) else {
        return std::ptr::null();
    };
    match module.module.failed_test() {
        Some(name) => module
            .failed_test
            .get_or_init(|| CString::new(name.replace('\0', "")).unwrap_or_default())
            .as_ptr(),
        None => std::ptr::null(),
    }
}

/// The policy's name (e.g. `"fips-140-3"`, or the `name` of a policy file); static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_module_policy(module: *const regula_module) -> *const c_char {
    // SAFETY: the caller's promise.
    match unsafe { handle(module, "module") } {
        Ok(module) => module.policy.as_ptr(),
        Err(_) => std::ptr::null(),
    }
}

/// Describes the build: default or FIPS, the AWS-LC version, FIPS mode. `module` may be NULL
/// (the build does not depend on it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_module_info(
    module: *const regula_module,
    out: *mut regula_info,
) -> c_int {
    let _ = module;
    guard(|| {
        // SAFETY: the caller's promise.
        let out = unsafe { out_param(out, "out") }?;
        *out = *build_info();
        Ok(())
    })
}

struct StaticInfo {
    info: regula_info,
}

// SAFETY: the pointers in `info` point into leaked, immutable C strings.
unsafe impl Send for StaticInfo {}
// SAFETY: as above.
unsafe impl Sync for StaticInfo {}

fn build_info() -> &'static regula_info {
    static INFO: OnceLock<StaticInfo> = OnceLock::new();
    &INFO
        .get_or_init(|| {
            let info = regula::info::build_info();
            let leak = |text: &str| -> *const c_char {
                Box::leak(
                    CString::new(text.replace('\0', ""))
                        .unwrap_or_default()
                        .into_boxed_c_str(),
                )
                .as_ptr()
            };
            StaticInfo {
                info: regula_info {
                    version: leak(info.regula_version),
                    backend: leak(&info.backend),
                    fips_module_linked: c_int::from(info.fips_module_linked),
                    fips_mode: c_int::from(info.fips_mode.is_ok()),
                    fips_module_version: info.fips_module_version.unwrap_or(0),
                },
            }
        })
        .info
}

fn indicator_state(module: &Module) -> c_int {
    match module.indicator_state() {
        IndicatorState::Unset => REGULA_INDICATOR_UNSET,
        IndicatorState::Approved => REGULA_INDICATOR_APPROVED,
        IndicatorState::NotApproved => REGULA_INDICATOR_NOT_APPROVED,
    }
}

/// Makes a new scope on `module`: a handle on the same loaded module whose sticky indicator
/// starts unset. Use `regula_scope_module(scope)` wherever a `regula_module *` is taken.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_scope_new(
    module: *const regula_module,
    out: *mut *mut regula_scope,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise.
        let out = unsafe { out_param(out, "out") }?;
        *out = std::ptr::null_mut();
        // SAFETY: the caller's promise.
        let module = unsafe { handle(module, "module") }?;
        put_handle(
            out,
            regula_scope {
                inner: regula_module::wrap(module.module.scope()),
            },
        );
        Ok(())
    })
}

/// The scope as a module handle, owned by the scope (do not free it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_scope_module(scope: *const regula_scope) -> *const regula_module {
    // SAFETY: the caller's promise.
    match unsafe { handle(scope, "scope") } {
        Ok(scope) => &scope.inner,
        Err(_) => std::ptr::null(),
    }
}

/// The aggregate over the scope's operations since its last reset:
/// `REGULA_INDICATOR_UNSET`, `_APPROVED` or `_NOT_APPROVED` (sticky). -1 for NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_scope_indicator_state(scope: *const regula_scope) -> c_int {
    // SAFETY: the caller's promise.
    match unsafe { handle(scope, "scope") } {
        Ok(scope) => indicator_state(&scope.inner.module),
        Err(_) => -1,
    }
}

/// Resets the scope's sticky indicator to unset.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_scope_reset(scope: *const regula_scope) {
    // SAFETY: the caller's promise.
    if let Ok(scope) = unsafe { handle(scope, "scope") } {
        scope.inner.module.reset_indicator();
    }
}

/// Frees a scope; keys made through it stay usable. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_scope_free(scope: *mut regula_scope) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(scope) }
}

/// The indicator state of the module handle's own scope (shared by everything made directly
/// from this handle); see `regula_scope_indicator_state`. -1 for NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_module_indicator_state(module: *const regula_module) -> c_int {
    // SAFETY: the caller's promise.
    match unsafe { handle(module, "module") } {
        Ok(module) => indicator_state(&module.module),
        Err(_) => -1,
    }
}

/// The message of the last failed call on this thread, or `""`. Never contains key material,
/// plaintext or other secret bytes. Valid until the next failing call on the same thread.
#[unsafe(no_mangle)]
pub extern "C" fn regula_last_error_message() -> *const c_char {
    crate::boundary::last_error()
}

/// For tests of the boundary: panics inside the library. The panic is caught and this returns
/// `REGULA_ERR_INTERNAL`; everything else keeps working.
#[unsafe(no_mangle)]
pub extern "C" fn regula_debug_panic() -> c_int {
    guard(|| panic!("regula_debug_panic was called"))
}
