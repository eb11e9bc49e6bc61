//! What the provider's libcrypto-driven tests share: the provider as `regula.so` in a
//! directory of its own, a libcrypto loaded at run time, and a library context with the
//! provider (and OpenSSL's peers) loaded.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::PathBuf;

pub mod ciphers;
pub mod pkey;

use libloading::Library;
use regula_ossl::ffi::{PARAM_OCTET_STRING, PARAM_UNSIGNED_INTEGER, PARAM_UTF8_STRING, Param};

pub type Ptr = *mut c_void;

/// A temporary directory named after `test` holding `regula.so`, a link to the cdylib cargo
/// built next to the test binary (target/<profile>/[deps/]libregula_ossl.so).
pub fn provider_dir(test: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    // `cargo test` builds the cdylib into deps/ (a `cargo build` also copies it up one level):
    // take the newer of the two.
    let cdylib = [
        profile_dir.join("deps").join("libregula_ossl.so"),
        profile_dir.join("libregula_ossl.so"),
    ]
    .into_iter()
    .filter_map(|path| Some((std::fs::metadata(&path).ok()?.modified().ok()?, path)))
    .max()
    .map(|(_, path)| path)
    .expect("libregula_ossl.so built next to the test binary (cargo test builds it)");
    let dir = std::env::temp_dir().join(format!("regula-ossl-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary provider directory");
    let link = dir.join("regula.so");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&cdylib, &link).expect("regula.so link");
    dir
}

/// The libcrypto at `path` (a file name is looked up as the dynamic loader does), kept loaded
/// for the rest of the process.
pub fn libcrypto(path: &str) -> &'static Library {
    // SAFETY: loading libcrypto runs its initialisers, which are sound.
    let library = unsafe { Library::new(path) }.unwrap_or_else(|e| panic!("{path}: {e}"));
    Box::leak(Box::new(library))
}

/// A new library context of `library` whose provider search path is `dir` (holding
/// `regula.so`), with each of `providers` loaded.
pub fn libctx_with(library: &Library, dir: &std::path::Path, providers: &[&CStr]) -> Ptr {
    let dir = CString::new(dir.to_str().expect("UTF-8 path")).unwrap();
    // SAFETY: OpenSSL 3 functions with the signatures of its headers; the strings outlive the
    // calls.
    unsafe {
        let libctx_new = library
            .get::<unsafe extern "C" fn() -> Ptr>(b"OSSL_LIB_CTX_new\0")
            .unwrap();
        let set_path = library
            .get::<unsafe extern "C" fn(Ptr, *const c_char) -> c_int>(
                b"OSSL_PROVIDER_set_default_search_path\0",
            )
            .unwrap();
        let load = library
            .get::<unsafe extern "C" fn(Ptr, *const c_char) -> Ptr>(b"OSSL_PROVIDER_load\0")
            .unwrap();
        let libctx = libctx_new();
        assert!(!libctx.is_null());
        assert_eq!(set_path(libctx, dir.as_ptr()), 1);
        for provider in providers {
            assert!(
                !load(libctx, provider.as_ptr()).is_null(),
                "OpenSSL loads {provider:?}"
            );
        }
        libctx
    }
}

/// A new library context of `library` whose configuration file (written into `dir`, which
/// holds `regula.so`) loads the provider under `policy`, as a program's `openssl.cnf` does,
/// with OpenSSL's default provider beside it.
pub fn libctx_with_policy(library: &Library, dir: &std::path::Path, policy: &str) -> Ptr {
    let config = dir.join(format!("openssl-{policy}.cnf"));
    std::fs::write(
        &config,
        format!(
            "openssl_conf = openssl_init\n\
             [openssl_init]\nproviders = provider_sect\n\
             [provider_sect]\nregula = regula_sect\ndefault = default_sect\n\
             [regula_sect]\nmodule = {}\npolicy = {policy}\nactivate = 1\n\
             [default_sect]\nactivate = 1\n",
            dir.join("regula.so").display()
        ),
    )
    .expect("configuration file");
    let path = CString::new(config.to_str().expect("UTF-8 path")).unwrap();
    // SAFETY: OpenSSL 3 functions with the signatures of its headers; a fresh library context
    // and a NUL-terminated path.
    unsafe {
        let libctx_new = library
            .get::<unsafe extern "C" fn() -> Ptr>(b"OSSL_LIB_CTX_new\0")
            .unwrap();
        let load_config = library
            .get::<unsafe extern "C" fn(Ptr, *const c_char) -> c_int>(b"OSSL_LIB_CTX_load_config\0")
            .unwrap();
        let libctx = libctx_new();
        assert!(!libctx.is_null());
        assert_eq!(load_config(libctx, path.as_ptr()), 1, "{policy}");
        libctx
    }
}

/// A copy of an `OSSL_PARAM` entry (pointing at the same value).
pub fn copy(p: &Param) -> Param {
    Param {
        key: p.key,
        data_type: p.data_type,
        data: p.data,
        data_size: p.data_size,
        return_size: p.return_size,
    }
}

/// An octet-string parameter over `value`.
pub fn octets(key: &'static CStr, value: &[u8]) -> Param {
    Param {
        key: key.as_ptr(),
        data_type: PARAM_OCTET_STRING,
        data: value.as_ptr() as *mut c_void,
        data_size: value.len(),
        return_size: usize::MAX,
    }
}

/// A UTF-8 string parameter over `value`.
pub fn utf8(key: &'static CStr, value: &'static CStr) -> Param {
    Param {
        key: key.as_ptr(),
        data_type: PARAM_UTF8_STRING,
        data: value.as_ptr() as *mut c_void,
        data_size: value.to_bytes().len(),
        return_size: usize::MAX,
    }
}

/// A `BIGNUM` parameter: the unsigned integer in the machine's byte order.
pub fn bignum(key: &'static CStr, native: &[u8]) -> Param {
    Param {
        key: key.as_ptr(),
        data_type: PARAM_UNSIGNED_INTEGER,
        data: native.as_ptr() as *mut c_void,
        data_size: native.len(),
        return_size: usize::MAX,
    }
}

/// A big-endian unsigned integer in the machine's byte order, as `BIGNUM` parameters hold it.
pub fn native_order(big_endian: &[u8]) -> Vec<u8> {
    let mut bytes = big_endian.to_vec();
    if cfg!(target_endian = "little") {
        bytes.reverse();
    }
    bytes
}

/// Hex, whitespace allowed, as bytes.
pub fn unhex(text: &str) -> Vec<u8> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}
