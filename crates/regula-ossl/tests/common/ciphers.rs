//! libcrypto's `EVP_CIPHER` API as the cipher tests drive it, loaded at run time, and the two
//! providers they compare.

use std::ffi::{CStr, c_char, c_int, c_ulong, c_void};
use std::path::PathBuf;

use libloading::Library;
use regula_ossl::ffi::Param;

use super::Ptr;

/// The provider a context is fetched from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Peer {
    Regula,
    Default,
}

impl Peer {
    /// The fetch properties that pick this provider.
    pub fn properties(self) -> &'static CStr {
        match self {
            Peer::Regula => c"provider=regula",
            Peer::Default => c"provider=default",
        }
    }
}

/// A libcrypto, a library context of it with `regula` and `default` loaded, and its cipher
/// functions.
pub struct Ciphers {
    pub library: &'static Library,
    pub libctx: usize,
    /// The directory holding `regula.so`.
    pub dir: PathBuf,
    pub get_params: unsafe extern "C" fn(Ptr, *mut Param) -> c_int,
    pub fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr,
    pub cipher_free: unsafe extern "C" fn(Ptr),
    pub ctx_new: unsafe extern "C" fn() -> Ptr,
    pub ctx_free: unsafe extern "C" fn(Ptr),
    pub init: unsafe extern "C" fn(Ptr, Ptr, *const u8, *const u8, c_int, *const c_void) -> c_int,
    pub ctrl: unsafe extern "C" fn(Ptr, c_int, c_int, *mut c_void) -> c_int,
    pub cipher: unsafe extern "C" fn(Ptr, *mut u8, *const u8, u32) -> c_int,
    pub update: unsafe extern "C" fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int,
    pub finalize: unsafe extern "C" fn(Ptr, *mut u8, *mut c_int) -> c_int,
    err_get: unsafe extern "C" fn() -> c_ulong,
    err_string: unsafe extern "C" fn(c_ulong, *mut c_char, usize),
    err_clear: unsafe extern "C" fn(),
}

impl Ciphers {
    /// The libcrypto at `path`, with the provider in a directory named after `test`.
    pub fn load(path: &str, test: &str) -> Ciphers {
        let library = super::libcrypto(path);
        macro_rules! symbol {
            ($name:literal) => {
                // SAFETY: each symbol is declared with the signature of OpenSSL 3's headers.
                *unsafe { library.get(concat!($name, "\0").as_bytes()) }
                    .expect(concat!("libcrypto has ", $name))
            };
        }
        let dir = super::provider_dir(test);
        let libctx = super::libctx_with(library, &dir, &[c"regula", c"default"]);
        Ciphers {
            library,
            libctx: libctx as usize,
            dir,
            get_params: symbol!("EVP_CIPHER_CTX_get_params"),
            fetch: symbol!("EVP_CIPHER_fetch"),
            cipher_free: symbol!("EVP_CIPHER_free"),
            ctx_new: symbol!("EVP_CIPHER_CTX_new"),
            ctx_free: symbol!("EVP_CIPHER_CTX_free"),
            init: symbol!("EVP_CipherInit_ex2"),
            ctrl: symbol!("EVP_CIPHER_CTX_ctrl"),
            cipher: symbol!("EVP_Cipher"),
            update: symbol!("EVP_CipherUpdate"),
            finalize: symbol!("EVP_CipherFinal_ex"),
            err_get: symbol!("ERR_get_error"),
            err_string: symbol!("ERR_error_string_n"),
            err_clear: symbol!("ERR_clear_error"),
        }
    }

    /// The first error on libcrypto's queue as text; the queue is then cleared.
    pub fn take_error(&self) -> String {
        let mut text = [0 as c_char; 256];
        // SAFETY: libcrypto's error functions with a valid buffer.
        unsafe {
            (self.err_string)((self.err_get)(), text.as_mut_ptr(), text.len());
            (self.err_clear)();
            CStr::from_ptr(text.as_ptr()).to_string_lossy().into_owned()
        }
    }
}
