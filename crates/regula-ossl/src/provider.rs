//! The provider itself: `OSSL_provider_init`, its parameters, and the algorithm tables
//! OpenSSL queries — built from the registry rows the loaded policy serves.

use std::ffi::{CStr, CString};
use std::os::raw::{c_int, c_void};
use std::path::PathBuf;

use regula::{Module, ModuleState};

use crate::error::{self, Reason};
use crate::ffi::{self, CoreGetParams, CoreHandle, Dispatch, Param};
use crate::params::{self, Params};
use crate::provider_context::{ProviderContext, Tables};
use crate::{capabilities, cipher, digest, kdf, keyexch, keymgmt, mac, rand, signature, sm2};

/// Which policy the configuration names (`policy = fips-140-3` or a TOML path) and where to
/// write the CBOM (`cbom = /path`): read from the provider's section of `openssl.cnf`.
struct Configuration {
    policy: String,
    cbom: Option<PathBuf>,
}

/// The policy used when the configuration names none.
pub const DEFAULT_POLICY: &str = "default";

fn read_configuration(
    handle: *const CoreHandle,
    get_params: Option<CoreGetParams>,
) -> Configuration {
    let mut policy: *const std::os::raw::c_char = std::ptr::null();
    let mut cbom: *const std::os::raw::c_char = std::ptr::null();
    let mut request = [
        utf8_ptr_request(c"policy", &mut policy),
        utf8_ptr_request(c"cbom", &mut cbom),
        Param::END,
    ];
    if let Some(get_params) = get_params {
        // SAFETY: the core's get_params fills UTF8_PTR entries with pointers to its own
        // configuration strings, which live as long as the provider.
        unsafe { get_params(handle, request.as_mut_ptr()) };
    }
    // SAFETY: the request array is ended by a null key and is not otherwise accessed.
    let request = unsafe { Params::new(request.as_ptr()) };
    let read = |key: &str| {
        request
            .locate(key)
            .and_then(|param| param.get_utf8().ok())
            .filter(|value| !value.is_empty())
    };
    Configuration {
        policy: read("policy").unwrap_or_else(|| DEFAULT_POLICY.to_owned()),
        cbom: read("cbom").map(PathBuf::from),
    }
}

fn utf8_ptr_request(
    key: &'static std::ffi::CStr,
    target: &mut *const std::os::raw::c_char,
) -> Param {
    Param {
        key: key.as_ptr(),
        data_type: ffi::PARAM_UTF8_PTR,
        data: target as *mut _ as *mut c_void,
        data_size: 0,
        return_size: ffi::PARAM_UNMODIFIED,
    }
}

/// The entry point OpenSSL looks for in a provider module.
///
/// # Safety
/// Called by libcrypto with the arguments `OSSL_provider_init_fn` documents.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn OSSL_provider_init(
    handle: *const CoreHandle,
    input: *const Dispatch,
    out: *mut *const Dispatch,
    provctx: *mut *mut c_void,
) -> c_int {
    error::guard(0, || {
        let mut get_params = None;
        let mut new_error = None;
        let mut set_error_debug = None;
        let mut vset_error = None;
        let mut get_libctx = None;
        let mut indicator_cb = None;
        let mut cursor = input;
        while !cursor.is_null() {
            // SAFETY: `input` is the core's dispatch table, ended by a zero id.
            let entry = unsafe { &*cursor };
            if entry.function_id == 0 {
                break;
            }
            // SAFETY: each id's function has the signature core_dispatch.h gives for it.
            unsafe {
                match entry.function_id {
                    ffi::CORE_GET_PARAMS => {
                        get_params = entry.function.map(|f| std::mem::transmute(f))
                    }
                    ffi::CORE_NEW_ERROR => {
                        new_error = entry.function.map(|f| std::mem::transmute(f))
                    }
                    ffi::CORE_SET_ERROR_DEBUG => {
                        set_error_debug = entry.function.map(|f| std::mem::transmute(f))
                    }
                    ffi::CORE_VSET_ERROR => {
                        vset_error = entry.function.map(|f| std::mem::transmute(f))
                    }
                    ffi::CORE_GET_LIBCTX => {
                        get_libctx = entry.function.map(|f| std::mem::transmute(f))
                    }
                    ffi::CORE_INDICATOR_CB => {
                        indicator_cb = entry.function.map(|f| std::mem::transmute(f))
                    }
                    _ => {}
                }
            }
            // SAFETY: not past the terminating entry (checked above).
            cursor = unsafe { cursor.add(1) };
        }
        error::install(handle, new_error, set_error_debug, vset_error);
        crate::indicator::install(handle, get_libctx, indicator_cb);
        let configuration = read_configuration(handle, get_params);
        let module = match Module::load_named(&configuration.policy) {
            Ok(module) => module,
            Err(problem) => {
                error::raise(
                    Reason::BadParameter,
                    &format!("policy \"{}\": {problem}", configuration.policy),
                );
                return 0;
            }
        };
        // Loading runs every self-test; a failure leaves the module in its error state, in
        // which it reports status 0 and refuses every service (FIPS 140-3 §7.10).
        module.run_self_tests();
        let context = Box::new(ProviderContext {
            tables: build_tables(&module),
            build: cstring(&build_description(&module)),
            policy_name: cstring(module.policy().name()),
            module,
            cbom: configuration.cbom,
        });
        // SAFETY: `out` and `provctx` are the core's out-pointers.
        unsafe {
            *out = PROVIDER_DISPATCH.0.as_ptr();
            *provctx = Box::into_raw(context) as *mut c_void;
        }
        1
    })
}

static PROVIDER_DISPATCH: ffi::SyncTable<[Dispatch; 8]> = ffi::SyncTable([
    crate::dispatch_fn!(ffi::PROVIDER_TEARDOWN, teardown),
    crate::dispatch_fn!(ffi::PROVIDER_GETTABLE_PARAMS, gettable_params),
    crate::dispatch_fn!(ffi::PROVIDER_GET_PARAMS, get_params),
    crate::dispatch_fn!(ffi::PROVIDER_QUERY_OPERATION, query_operation),
    crate::dispatch_fn!(ffi::PROVIDER_GET_REASON_STRINGS, reason_strings),
    crate::dispatch_fn!(ffi::PROVIDER_SELF_TEST, self_test),
    crate::dispatch_fn!(
        ffi::PROVIDER_GET_CAPABILITIES,
        capabilities::get_capabilities
    ),
    ffi::DISPATCH_END,
]);

unsafe extern "C" fn teardown(provctx: *mut c_void) {
    error::guard((), || {
        if provctx.is_null() {
            return;
        }
        // SAFETY: the pointer OSSL_provider_init made from a Box; OpenSSL tears down once.
        let context = unsafe { Box::from_raw(provctx as *mut ProviderContext) };
        if let Some(template) = &context.cbom {
            let path = cbom_path(template, std::process::id());
            let document = context.module.cbom();
            let text = serde_json::to_string_pretty(&document).unwrap_or_default();
            if let Err(problem) = std::fs::write(&path, text + "\n") {
                error::raise(
                    Reason::InvalidInput,
                    &format!("cannot write the CBOM to {}: {problem}", path.display()),
                );
            }
        }
    })
}

/// The file the CBOM goes to: the configured path with each `%p` replaced by the process id.
/// A program that forks workers after loading the provider (nginx's master and its workers)
/// unloads it in every process, each with its own counters; with `%p` each writes its own file
/// instead of the last to exit overwriting the others'.
fn cbom_path(template: &std::path::Path, pid: u32) -> PathBuf {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let bytes = template.as_os_str().as_bytes();
    let mut path = Vec::with_capacity(bytes.len() + 8);
    let mut rest = bytes;
    while let Some(at) = rest.windows(2).position(|pair| pair == b"%p") {
        path.extend_from_slice(&rest[..at]);
        path.extend_from_slice(pid.to_string().as_bytes());
        rest = &rest[at + 2..];
    }
    path.extend_from_slice(rest);
    PathBuf::from(std::ffi::OsString::from_vec(path))
}

static PROVIDER_PARAMS: params::ParamList = crate::param_list![
    ("name", params::UTF8),
    ("version", params::UTF8),
    ("buildinfo", params::UTF8),
    ("status", params::INT),
    ("regula-policy", params::UTF8),
    ("regula-validated-module", params::INT),
    ("regula-approved-operations", params::UINT),
    ("regula-unapproved-operations", params::UINT),
    ("regula-counters", params::UTF8),
];

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const Param {
    PROVIDER_PARAMS.as_ptr()
}

/// `name`, `version`, `buildinfo`, `status`, and the module's policy, build and counters.
unsafe extern "C" fn get_params(provctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: OpenSSL passes the provctx it was given and a terminated parameter array.
        let (context, params) =
            unsafe { (ProviderContext::from_ptr(provctx), Params::new(params)) };
        let Some(context) = context else {
            return Err(error::fail(Reason::OutOfOrder, "no provider context"));
        };
        let module = &context.module;
        let info = regula::info::build_info();
        let validated = info.fips_module_linked && info.fips_mode.is_ok();
        let (approved, unapproved) = module.counters().iter().fold((0u64, 0u64), |sum, row| {
            (sum.0 + row.approved, sum.1 + row.not_approved)
        });
        // SAFETY: the context's strings live until teardown, after which OpenSSL asks nothing.
        let (build, policy_name): (&'static CStr, &'static CStr) = unsafe {
            (
                &*(context.build.as_c_str() as *const CStr),
                &*(context.policy_name.as_c_str() as *const CStr),
            )
        };
        for mut param in params.iter() {
            match param.key {
                "name" => param.set_text(c"Regula")?,
                "version" => param.set_text(VERSION)?,
                "buildinfo" => param.set_text(build)?,
                "status" => param.set_i64(i64::from(module.state() == ModuleState::Operational))?,
                "regula-policy" => param.set_text(policy_name)?,
                "regula-validated-module" => param.set_i64(i64::from(validated))?,
                "regula-approved-operations" => param.set_i64(approved as i64)?,
                "regula-unapproved-operations" => param.set_i64(unapproved as i64)?,
                "regula-counters" => param
                    .set_utf8(&serde_json::to_string(&module.counters()).unwrap_or_default())?,
                _ => {}
            }
        }
        Ok(())
    })
}

/// The crate version as a C string.
const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => c"unknown",
    };

/// What `openssl list -providers -verbose` prints as the build: backend, the SM4 and GHASH
/// code this CPU runs, whether it is the validated module, and the policy.
pub fn build_description(module: &Module) -> String {
    let info = regula::info::build_info();
    // SM4-GCM's implementation names both the SM4 backend and the GHASH one.
    let sm4 = info
        .implementations
        .iter()
        .find(|implementation| implementation.algorithm == regula::Algorithm::Sm4Gcm)
        .map(|implementation| format!(", SM4: {}", implementation.implementation))
        .unwrap_or_default();
    let validated = if info.fips_module_linked && info.fips_mode.is_ok() {
        "FIPS 140-3 validated module"
    } else {
        "not a validated module"
    };
    let state = match module.failed_test() {
        Some(test) => format!("; ERROR STATE: self-test {test} failed"),
        None => String::new(),
    };
    format!(
        "Regula {} on {}{sm4} ({validated}); policy {}{state}",
        info.regula_version,
        info.backend,
        module.policy().name()
    )
}

unsafe extern "C" fn query_operation(
    provctx: *mut c_void,
    operation: c_int,
    no_store: *mut c_int,
) -> *const ffi::Algorithm {
    error::guard(std::ptr::null(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(context) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null();
        };
        if !no_store.is_null() {
            // SAFETY: an out-pointer from the core. The tables never change: OpenSSL may cache.
            unsafe { *no_store = 0 };
        }
        context.tables.for_operation(operation)
    })
}

unsafe extern "C" fn reason_strings(_provctx: *mut c_void) -> *const ffi::Item {
    error::REASON_STRINGS.0.as_ptr()
}

/// `OSSL_PROVIDER_self_test`: runs every self-test again.
unsafe extern "C" fn self_test(provctx: *mut c_void) -> c_int {
    error::entry(|| {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(context) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return Err(error::fail(Reason::OutOfOrder, "no provider context"));
        };
        context.module.run_self_tests();
        context.module.ensure_operational()?;
        Ok(())
    })
}

/// The `OSSL_ALGORITHM` list of every operation, from the offers of each operation module.
fn build_tables(module: &Module) -> Tables {
    let mut strings = Vec::new();
    let mut operations = Vec::new();
    let policy = module.policy();
    let (hmac_keys, hmac_signatures) = crate::mac_legacy::offers(policy);
    for (operation, offers) in [
        (ffi::OP_DIGEST, digest::offers(policy)),
        (ffi::OP_CIPHER, cipher::offers(policy)),
        (ffi::OP_MAC, mac::offers(policy)),
        (ffi::OP_RAND, rand::offers(policy)),
        (ffi::OP_KDF, kdf::offers(policy)),
        (
            ffi::OP_KEYMGMT,
            [
                keymgmt::offers(policy),
                crate::mlkem_keymgmt::offers(policy),
                sm2::keymgmt_offers(policy),
                crate::mldsa::keymgmt_offers(policy),
                hmac_keys,
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
        (crate::kem::OP_KEM, crate::kem::offers(policy)),
        (
            crate::asym_cipher_calls::OP_ASYM_CIPHER,
            [
                crate::sm2_cipher::offers(policy),
                crate::rsa_oaep::offers(policy),
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
        (ffi::OP_KEYEXCH, keyexch::offers(policy)),
        (
            ffi::OP_SIGNATURE,
            [
                signature::offers(policy),
                sm2::signature_offers(policy),
                crate::mldsa::signature_offers(policy),
                hmac_signatures,
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
    ] {
        let mut list = Vec::new();
        for offer in offers {
            let names = cstring(&offer.names);
            let properties = cstring(&format!(
                "provider=regula,fips={}",
                if offer.approved { "yes" } else { "no" }
            ));
            let description = cstring(&offer.description);
            list.push(ffi::Algorithm {
                names: names.as_ptr(),
                properties: properties.as_ptr(),
                implementation: offer.dispatch.as_ptr(),
                description: description.as_ptr(),
            });
            strings.extend([names, properties, description]);
        }
        list.push(ffi::Algorithm {
            names: std::ptr::null(),
            properties: std::ptr::null(),
            implementation: std::ptr::null(),
            description: std::ptr::null(),
        });
        operations.push((operation, list));
    }
    Tables {
        operations,
        _strings: strings,
    }
}

/// One operation's offers followed by another module's.
fn cstring(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbom_path_puts_the_process_id_for_each_percent_p() {
        let path = |template: &str| cbom_path(std::path::Path::new(template), 4242);
        assert_eq!(path("/tmp/cbom.json"), PathBuf::from("/tmp/cbom.json"));
        assert_eq!(
            path("/tmp/cbom-%p.json"),
            PathBuf::from("/tmp/cbom-4242.json")
        );
        assert_eq!(path("/%p/cbom-%p"), PathBuf::from("/4242/cbom-4242"));
        assert_eq!(path("/tmp/100%.json"), PathBuf::from("/tmp/100%.json"));
    }
}
