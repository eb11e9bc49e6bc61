//! The slice of libcrypto's C API the host uses, resolved at run time with `libloading`, and the
//! library context with its providers.

use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::ptr;

use libloading::Library;

pub type Ptr = *mut c_void;

/// `OSSL_PARAM` as laid out in `<openssl/core.h>`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct OsslParam {
    pub key: *const c_char,
    pub data_type: c_uint,
    pub data: *mut c_void,
    pub data_size: usize,
    pub return_size: usize,
}

pub const PARAM_INTEGER: c_uint = 1;
pub const PARAM_UNSIGNED_INTEGER: c_uint = 2;
pub const PARAM_UTF8_STRING: c_uint = 4;
pub const PARAM_OCTET_STRING: c_uint = 5;
pub const PARAM_UTF8_PTR: c_uint = 6;
/// `OSSL_PARAM_UNMODIFIED`: a getter left the parameter alone (the provider does not know it).
pub const PARAM_UNMODIFIED: usize = usize::MAX;

impl OsslParam {
    pub const END: OsslParam = OsslParam {
        key: ptr::null(),
        data_type: 0,
        data: ptr::null_mut(),
        data_size: 0,
        return_size: 0,
    };
}

pub const EVP_MD_FLAG_XOF: u64 = 0x2;
pub const EVP_CIPH_STREAM_CIPHER: c_int = 0x0;
pub const EVP_CIPH_CBC_MODE: c_int = 0x2;
pub const EVP_CIPH_GCM_MODE: c_int = 0x6;
pub const EVP_CIPH_CCM_MODE: c_int = 0x7;
pub const EVP_CIPH_XTS_MODE: c_int = 0x10001;
pub const EVP_CIPH_WRAP_MODE: c_int = 0x10002;
pub const EVP_CIPH_OCB_MODE: c_int = 0x10003;
pub const EVP_CIPH_SIV_MODE: c_int = 0x10004;
pub const EVP_CIPH_GCM_SIV_MODE: c_int = 0x10005;
pub const EVP_CIPH_CUSTOM_IV: u64 = 0x10;
pub const EVP_CIPH_FLAG_CTS: u64 = 0x4000;
pub const EVP_CIPH_FLAG_AEAD_CIPHER: u64 = 0x0020_0000;
pub const EVP_CIPHER_CTX_FLAG_WRAP_ALLOW: c_int = 0x1;
pub const EVP_CTRL_AEAD_SET_IVLEN: c_int = 0x9;
pub const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
pub const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;

macro_rules! api {
    (
        required { $( $name:ident : fn($($arg:ty),*) -> $ret:ty ; )* }
        optional { $( $oname:ident : fn($($oarg:ty),*) -> $oret:ty ; )* }
    ) => {
        /// Function pointers into one loaded libcrypto; `_lib` keeps the library mapped.
        #[allow(non_snake_case)]
        pub struct Api {
            _lib: Library,
            $( pub $name: unsafe extern "C" fn($($arg),*) -> $ret, )*
            $( pub $oname: Option<unsafe extern "C" fn($($oarg),*) -> $oret>, )*
        }

        impl Api {
            #[allow(non_snake_case)]
            pub fn load(path: &str) -> Result<Api, String> {
                // SAFETY: loading libcrypto runs its ELF constructors, which only set up
                // OpenSSL's own global state; the path is the caller's choice of an OpenSSL 3.
                let lib = unsafe { Library::new(path) }
                    .map_err(|e| format!("cannot load {path}: {e}"))?;
                $(
                    // SAFETY: the symbol's C prototype (OpenSSL 3 headers) is the declared type.
                    let $name = unsafe {
                        *lib.get::<unsafe extern "C" fn($($arg),*) -> $ret>(
                            concat!(stringify!($name), "\0").as_bytes(),
                        )
                        .map_err(|e| format!("{path}: no {}: {e}", stringify!($name)))?
                    };
                )*
                $(
                    // SAFETY: as above; absent in older releases, hence optional.
                    let $oname = unsafe {
                        lib.get::<unsafe extern "C" fn($($oarg),*) -> $oret>(
                            concat!(stringify!($oname), "\0").as_bytes(),
                        )
                        .ok()
                        .map(|symbol| *symbol)
                    };
                )*
                Ok(Api { _lib: lib, $( $name, )* $( $oname, )* })
            }
        }
    };
}

type Cs = *const c_char;
type PCb = unsafe extern "C" fn(Ptr, Ptr) -> c_int;

api! {
    required {
        OpenSSL_version: fn(c_int) -> Cs;
        OSSL_LIB_CTX_new: fn() -> Ptr;
        OSSL_LIB_CTX_free: fn(Ptr) -> ();
        OSSL_LIB_CTX_load_config: fn(Ptr, Cs) -> c_int;
        OSSL_PROVIDER_set_default_search_path: fn(Ptr, Cs) -> c_int;
        OSSL_PROVIDER_load: fn(Ptr, Cs) -> Ptr;
        OSSL_PROVIDER_available: fn(Ptr, Cs) -> c_int;
        OSSL_PROVIDER_get0_name: fn(Ptr) -> Cs;
        OSSL_PROVIDER_get_params: fn(Ptr, *mut OsslParam) -> c_int;
        OSSL_PROVIDER_do_all: fn(Ptr, PCb, Ptr) -> c_int;
        OSSL_PARAM_allocate_from_text:
            fn(*mut OsslParam, *const OsslParam, Cs, Cs, usize, *mut c_int) -> c_int;
        OSSL_PARAM_locate_const: fn(*const OsslParam, Cs) -> *const OsslParam;
        CRYPTO_free: fn(Ptr, Cs, c_int) -> ();
        ERR_get_error: fn() -> u64;
        ERR_peek_error: fn() -> u64;
        ERR_peek_error_data: fn(*mut Cs, *mut c_int) -> u64;
        ERR_clear_error: fn() -> ();
        ERR_error_string_n: fn(u64, *mut c_char, usize) -> ();
        ERR_reason_error_string: fn(u64) -> Cs;

        EVP_MD_fetch: fn(Ptr, Cs, Cs) -> Ptr;
        EVP_MD_free: fn(Ptr) -> ();
        EVP_MD_get0_provider: fn(Ptr) -> Ptr;
        EVP_MD_get0_name: fn(Ptr) -> Cs;
        EVP_MD_get_flags: fn(Ptr) -> u64;
        EVP_MD_settable_ctx_params: fn(Ptr) -> *const OsslParam;
        EVP_MD_CTX_new: fn() -> Ptr;
        EVP_MD_CTX_free: fn(Ptr) -> ();
        EVP_MD_CTX_copy_ex: fn(Ptr, Ptr) -> c_int;
        EVP_DigestInit_ex2: fn(Ptr, Ptr, *const OsslParam) -> c_int;
        EVP_DigestUpdate: fn(Ptr, *const u8, usize) -> c_int;
        EVP_DigestFinal_ex: fn(Ptr, *mut u8, *mut c_uint) -> c_int;
        EVP_DigestFinalXOF: fn(Ptr, *mut u8, usize) -> c_int;
        EVP_Q_digest: fn(Ptr, Cs, Cs, *const u8, usize, *mut u8, *mut usize) -> c_int;

        EVP_CIPHER_fetch: fn(Ptr, Cs, Cs) -> Ptr;
        EVP_CIPHER_free: fn(Ptr) -> ();
        EVP_CIPHER_get0_provider: fn(Ptr) -> Ptr;
        EVP_CIPHER_get_mode: fn(Ptr) -> c_int;
        EVP_CIPHER_get_flags: fn(Ptr) -> u64;
        EVP_CIPHER_get_iv_length: fn(Ptr) -> c_int;
        EVP_CIPHER_CTX_new: fn() -> Ptr;
        EVP_CIPHER_CTX_free: fn(Ptr) -> ();
        EVP_CIPHER_CTX_set_flags: fn(Ptr, c_int) -> ();
        EVP_CIPHER_CTX_copy: fn(Ptr, Ptr) -> c_int;
        EVP_CIPHER_CTX_ctrl: fn(Ptr, c_int, c_int, Ptr) -> c_int;
        EVP_CIPHER_CTX_set_params: fn(Ptr, *const OsslParam) -> c_int;
        EVP_CIPHER_CTX_get_params: fn(Ptr, *mut OsslParam) -> c_int;
        EVP_CIPHER_CTX_get_iv_length: fn(Ptr) -> c_int;
        EVP_CIPHER_CTX_set_key_length: fn(Ptr, c_int) -> c_int;
        EVP_CIPHER_CTX_get_updated_iv: fn(Ptr, *mut u8, usize) -> c_int;
        EVP_CIPHER_CTX_set_padding: fn(Ptr, c_int) -> c_int;
        EVP_CipherInit_ex2: fn(Ptr, Ptr, *const u8, *const u8, c_int, *const OsslParam) -> c_int;
        EVP_CipherInit_ex: fn(Ptr, Ptr, Ptr, *const u8, *const u8, c_int) -> c_int;
        EVP_CipherUpdate: fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int;
        EVP_CipherFinal_ex: fn(Ptr, *mut u8, *mut c_int) -> c_int;

        EVP_MAC_fetch: fn(Ptr, Cs, Cs) -> Ptr;
        EVP_MAC_free: fn(Ptr) -> ();
        EVP_MAC_get0_provider: fn(Ptr) -> Ptr;
        EVP_MAC_settable_ctx_params: fn(Ptr) -> *const OsslParam;
        EVP_MAC_CTX_new: fn(Ptr) -> Ptr;
        EVP_MAC_CTX_free: fn(Ptr) -> ();
        EVP_MAC_CTX_get_mac_size: fn(Ptr) -> usize;
        EVP_MAC_CTX_get_params: fn(Ptr, *mut OsslParam) -> c_int;
        EVP_MAC_init: fn(Ptr, *const u8, usize, *const OsslParam) -> c_int;
        EVP_MAC_update: fn(Ptr, *const u8, usize) -> c_int;
        EVP_MAC_final: fn(Ptr, *mut u8, *mut usize, usize) -> c_int;
        EVP_MAC_finalXOF: fn(Ptr, *mut u8, usize) -> c_int;
        EVP_Q_mac: fn(Ptr, Cs, Cs, Cs, *const OsslParam, *const u8, usize, *const u8, usize,
                      *mut u8, usize, *mut usize) -> *mut u8;

        EVP_KDF_fetch: fn(Ptr, Cs, Cs) -> Ptr;
        EVP_KDF_free: fn(Ptr) -> ();
        EVP_KDF_get0_provider: fn(Ptr) -> Ptr;
        EVP_KDF_settable_ctx_params: fn(Ptr) -> *const OsslParam;
        EVP_KDF_CTX_new: fn(Ptr) -> Ptr;
        EVP_KDF_CTX_free: fn(Ptr) -> ();
        EVP_KDF_CTX_set_params: fn(Ptr, *const OsslParam) -> c_int;
        EVP_KDF_CTX_get_params: fn(Ptr, *mut OsslParam) -> c_int;
        EVP_KDF_derive: fn(Ptr, *mut u8, usize, *const OsslParam) -> c_int;
        EVP_KDF_CTX_dup: fn(Ptr) -> Ptr;

        BIO_new_mem_buf: fn(*const c_void, c_int) -> Ptr;
        BIO_free_all: fn(Ptr) -> ();
        PEM_read_bio_PrivateKey_ex: fn(Ptr, *mut Ptr, Ptr, Ptr, Ptr, Cs) -> Ptr;
        PEM_read_bio_PUBKEY_ex: fn(Ptr, *mut Ptr, Ptr, Ptr, Ptr, Cs) -> Ptr;
        EVP_PKEY_new_raw_private_key_ex: fn(Ptr, Cs, Cs, *const u8, usize) -> Ptr;
        EVP_PKEY_new_raw_public_key_ex: fn(Ptr, Cs, Cs, *const u8, usize) -> Ptr;
        EVP_PKEY_free: fn(Ptr) -> ();
        EVP_PKEY_eq: fn(Ptr, Ptr) -> c_int;
        EVP_PKEY_get0_provider: fn(Ptr) -> Ptr;
        EVP_PKEY_CTX_new_from_pkey: fn(Ptr, Ptr, Cs) -> Ptr;
        EVP_PKEY_CTX_free: fn(Ptr) -> ();
        EVP_PKEY_CTX_dup: fn(Ptr) -> Ptr;
        EVP_PKEY_CTX_get0_provider: fn(Ptr) -> Ptr;
        EVP_PKEY_CTX_ctrl_str: fn(Ptr, Cs, Cs) -> c_int;
        EVP_PKEY_sign_init_ex: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_verify_init_ex: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_derive_init_ex: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_decrypt_init_ex: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_decrypt: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_sign: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_verify: fn(Ptr, *const u8, usize, *const u8, usize) -> c_int;
        EVP_SIGNATURE_fetch: fn(Ptr, Cs, Cs) -> Ptr;
        EVP_SIGNATURE_free: fn(Ptr) -> ();
        EVP_PKEY_derive_set_peer_ex: fn(Ptr, Ptr, c_int) -> c_int;
        EVP_PKEY_derive: fn(Ptr, *mut u8, *mut usize) -> c_int;
        EVP_PKEY_encapsulate_init: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_encapsulate: fn(Ptr, *mut u8, *mut usize, *mut u8, *mut usize) -> c_int;
        EVP_PKEY_decapsulate_init: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_decapsulate: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_CTX_new_from_name: fn(Ptr, Cs, Cs) -> Ptr;
        EVP_PKEY_keygen_init: fn(Ptr) -> c_int;
        EVP_PKEY_CTX_set_params: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_generate: fn(Ptr, *mut Ptr) -> c_int;
        EVP_PKEY_get_octet_string_param: fn(Ptr, Cs, *mut u8, usize, *mut usize) -> c_int;
        EVP_DigestSignInit_ex: fn(Ptr, *mut Ptr, Cs, Ptr, Cs, Ptr, *const OsslParam) -> c_int;
        EVP_DigestSignUpdate: fn(Ptr, *const u8, usize) -> c_int;
        EVP_DigestSignFinal: fn(Ptr, *mut u8, *mut usize) -> c_int;
        EVP_DigestSign: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_DigestVerifyInit_ex: fn(Ptr, *mut Ptr, Cs, Ptr, Cs, Ptr, *const OsslParam) -> c_int;
        EVP_DigestVerifyUpdate: fn(Ptr, *const u8, usize) -> c_int;
        EVP_DigestVerifyFinal: fn(Ptr, *const u8, usize) -> c_int;
        EVP_DigestVerify: fn(Ptr, *const u8, usize, *const u8, usize) -> c_int;
    }
    optional {
        // OpenSSL 3.1 and later.
        EVP_MD_CTX_dup: fn(Ptr) -> Ptr;
        EVP_CIPHER_CTX_dup: fn(Ptr) -> Ptr;
        // OpenSSL 3.4 and later: message signatures.
        EVP_PKEY_sign_message_init: fn(Ptr, Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_verify_message_init: fn(Ptr, Ptr, *const OsslParam) -> c_int;
    }
}

/// A C string for a name read from the data files or the command line.
pub fn cstring(text: &str) -> Result<CString, String> {
    CString::new(text).map_err(|_| format!("`{text}` contains a NUL byte"))
}

/// # Safety
/// `p` is null or a NUL-terminated string that outlives the call.
pub unsafe fn text(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// A provider's name and `version` parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderInfo {
    pub name: String,
    pub version: Option<String>,
}

/// One library context with its providers, over one loaded libcrypto.
pub struct Ossl {
    pub api: Api,
    pub libctx: Ptr,
    pub propq: Option<CString>,
    /// `--stand-in OPENSSL=NAME`: provider NAME answers the stanzas `Availablein` reserves for
    /// OpenSSL's provider OPENSSL.
    pub stand_ins: Vec<(String, String)>,
}

impl Drop for Ossl {
    fn drop(&mut self) {
        // SAFETY: `libctx` came from OSSL_LIB_CTX_new and is freed once, here.
        unsafe { (self.api.OSSL_LIB_CTX_free)(self.libctx) }
    }
}

impl Ossl {
    pub fn new(api: Api) -> Result<Ossl, String> {
        // SAFETY: no arguments; the result is checked for null.
        let libctx = unsafe { (api.OSSL_LIB_CTX_new)() };
        if libctx.is_null() {
            return Err("OSSL_LIB_CTX_new failed".into());
        }
        Ok(Ossl {
            api,
            libctx,
            propq: None,
            stand_ins: Vec::new(),
        })
    }

    pub fn propq_ptr(&self) -> *const c_char {
        self.propq.as_ref().map_or(ptr::null(), |p| p.as_ptr())
    }

    pub fn version(&self) -> String {
        // SAFETY: OPENSSL_VERSION (0) returns a static string.
        unsafe { text((self.api.OpenSSL_version)(0)) }.unwrap_or_default()
    }

    /// Drains OpenSSL's error queue into one line (empty when the queue is empty).
    pub fn errors(&self) -> String {
        let mut lines = Vec::new();
        loop {
            // SAFETY: plain queue access on this thread.
            let code = unsafe { (self.api.ERR_get_error)() };
            if code == 0 {
                break;
            }
            let mut buf = [0 as c_char; 256];
            // SAFETY: `buf` is writable for its length; OpenSSL NUL-terminates within it.
            unsafe { (self.api.ERR_error_string_n)(code, buf.as_mut_ptr(), buf.len()) };
            // SAFETY: NUL-terminated by ERR_error_string_n.
            lines.extend(unsafe { text(buf.as_ptr()) });
        }
        lines.join("; ")
    }

    pub fn clear_errors(&self) {
        // SAFETY: plain queue access on this thread.
        unsafe { (self.api.ERR_clear_error)() }
    }

    /// The reason string of the error on top of the queue, without removing it.
    pub fn peek_reason(&self) -> Option<String> {
        // SAFETY: plain queue access; the reason string is static.
        unsafe {
            let code = (self.api.ERR_peek_error)();
            if code == 0 {
                return None;
            }
            text((self.api.ERR_reason_error_string)(code))
        }
    }

    /// The text attached to the error on top of the queue (a provider's own message), without
    /// removing it.
    pub fn peek_data(&self) -> Option<String> {
        let mut data: Cs = ptr::null();
        let mut flags: c_int = 0;
        // SAFETY: plain queue access; `data` points into the queue's entry, read at once.
        unsafe {
            if (self.api.ERR_peek_error_data)(&mut data, &mut flags) == 0 {
                return None;
            }
            text(data)
        }
    }

    pub fn provider_info(&self, prov: Ptr) -> Option<ProviderInfo> {
        if prov.is_null() {
            return None;
        }
        // SAFETY: `prov` is a live provider handle of this context.
        let name = unsafe { text((self.api.OSSL_PROVIDER_get0_name)(prov)) }?;
        let mut version: *const c_char = ptr::null();
        let key = c"version";
        let mut params = [
            OsslParam {
                key: key.as_ptr(),
                data_type: PARAM_UTF8_PTR,
                data: (&raw mut version).cast(),
                data_size: 0,
                return_size: PARAM_UNMODIFIED,
            },
            OsslParam::END,
        ];
        // SAFETY: `params` is END-terminated and `version` outlives the call; the provider
        // stores a pointer to its own static string.
        let ok = unsafe { (self.api.OSSL_PROVIDER_get_params)(prov, params.as_mut_ptr()) };
        let version = if ok == 1 && params[0].return_size != PARAM_UNMODIFIED {
            // SAFETY: set by the provider to a NUL-terminated string it owns.
            unsafe { text(version) }
        } else {
            None
        };
        Some(ProviderInfo { name, version })
    }

    pub fn load_provider(&self, name: &str) -> Result<ProviderInfo, String> {
        let cname = cstring(name)?;
        // SAFETY: valid context and C string; the result is checked for null.
        let prov = unsafe { (self.api.OSSL_PROVIDER_load)(self.libctx, cname.as_ptr()) };
        if prov.is_null() {
            return Err(format!("cannot load provider `{name}`: {}", self.errors()));
        }
        self.provider_info(prov)
            .ok_or_else(|| format!("provider `{name}` has no name"))
    }

    /// The provider that answers for `name` in `Availablein`: its stand-in, if one is given.
    pub fn stand_in_for<'a>(&'a self, name: &'a str) -> &'a str {
        self.stand_ins
            .iter()
            .find(|(openssl, _)| openssl == name)
            .map_or(name, |(_, stand_in)| stand_in.as_str())
    }

    pub fn provider_available(&self, name: &str) -> bool {
        let Ok(cname) = cstring(name) else {
            return false;
        };
        // SAFETY: valid context and C string.
        unsafe { (self.api.OSSL_PROVIDER_available)(self.libctx, cname.as_ptr()) == 1 }
    }

    /// Every provider activated in the context.
    pub fn providers(&self) -> Vec<ProviderInfo> {
        struct Collect<'a> {
            ossl: &'a Ossl,
            found: Vec<ProviderInfo>,
        }
        unsafe extern "C" fn each(prov: Ptr, data: Ptr) -> c_int {
            // SAFETY: `data` is the `Collect` passed to OSSL_PROVIDER_do_all below, alive for
            // the whole call.
            let collect = unsafe { &mut *data.cast::<Collect>() };
            collect.found.extend(collect.ossl.provider_info(prov));
            1
        }
        let mut collect = Collect {
            ossl: self,
            found: Vec::new(),
        };
        // SAFETY: the callback matches OSSL_PROVIDER_do_all's prototype and `collect` lives
        // across the call.
        unsafe {
            (self.api.OSSL_PROVIDER_do_all)(self.libctx, each, (&raw mut collect).cast());
        }
        collect.found
    }
}

/// An END-terminated `OSSL_PARAM` array whose keys and data it owns.
pub struct Params {
    items: Vec<OsslParam>,
    keys: Vec<CString>,
    data: Vec<Box<[u8]>>,
    /// Data allocated by OSSL_PARAM_allocate_from_text, freed with CRYPTO_free.
    allocated: Vec<Ptr>,
    free: Option<unsafe extern "C" fn(Ptr, *const c_char, c_int)>,
}

impl Drop for Params {
    fn drop(&mut self) {
        if let Some(free) = self.free {
            for p in self.allocated.drain(..) {
                // SAFETY: `p` was allocated by OpenSSL's allocator and is freed once.
                unsafe { free(p, c"evp-host".as_ptr(), 0) };
            }
        }
    }
}

impl Params {
    pub fn new() -> Params {
        Params {
            items: vec![OsslParam::END],
            keys: Vec::new(),
            data: Vec::new(),
            allocated: Vec::new(),
            free: None,
        }
    }

    pub fn len(&self) -> usize {
        self.items.len() - 1
    }

    pub fn as_ptr(&self) -> *const OsslParam {
        self.items.as_ptr()
    }

    fn push_raw(&mut self, key: &str, data_type: c_uint, bytes: Box<[u8]>, size: usize) {
        let key = CString::new(key).unwrap_or_default();
        let mut bytes = bytes;
        let param = OsslParam {
            key: key.as_ptr(),
            data_type,
            data: bytes.as_mut_ptr().cast(),
            data_size: size,
            return_size: PARAM_UNMODIFIED,
        };
        self.keys.push(key);
        self.data.push(bytes);
        let end = self.items.len() - 1;
        self.items.insert(end, param);
    }

    pub fn octets(&mut self, key: &str, value: &[u8]) {
        // One spare byte so that an empty string still has an address.
        let mut bytes = value.to_vec();
        bytes.push(0);
        self.push_raw(key, PARAM_OCTET_STRING, bytes.into(), value.len());
    }

    pub fn utf8(&mut self, key: &str, value: &str) {
        let mut bytes = value.as_bytes().to_vec();
        bytes.push(0);
        self.push_raw(key, PARAM_UTF8_STRING, bytes.into(), value.len());
    }

    pub fn int(&mut self, key: &str, value: c_int) {
        let bytes = value.to_ne_bytes().to_vec();
        self.push_raw(key, PARAM_INTEGER, bytes.into(), size_of::<c_int>());
    }

    pub fn size_t(&mut self, key: &str, value: usize) {
        let bytes = value.to_ne_bytes().to_vec();
        self.push_raw(
            key,
            PARAM_UNSIGNED_INTEGER,
            bytes.into(),
            size_of::<usize>(),
        );
    }

    /// `name:value` through OSSL_PARAM_allocate_from_text against `settables` (OpenSSL's own
    /// text conversions: `hexkey:`, numbers, strings). `Err` when OpenSSL refuses it.
    pub fn push_text(
        &mut self,
        api: &Api,
        settables: *const OsslParam,
        name: &str,
        value: &str,
    ) -> Result<(), ()> {
        self.free = Some(api.CRYPTO_free);
        let key = cstring(name).map_err(|_| ())?;
        let val = cstring(value).map_err(|_| ())?;
        let param = OsslParam::END;
        let mut param = param;
        let mut found: c_int = 0;
        // SAFETY: `settables` is an END-terminated array owned by the algorithm; `param` is
        // written by OpenSSL, which allocates its data (freed in Drop).
        let ok = unsafe {
            (api.OSSL_PARAM_allocate_from_text)(
                &mut param,
                settables,
                key.as_ptr(),
                val.as_ptr(),
                value.len(),
                &mut found,
            )
        };
        if ok != 1 {
            return Err(());
        }
        // OpenSSL copies the definition, so the key points into the algorithm's own table.
        self.allocated.push(param.data);
        let end = self.items.len() - 1;
        self.items.insert(end, param);
        Ok(())
    }

    /// The value of a `size_t`/integer parameter named `key`, if present.
    pub fn get_size(&self, key: &str) -> Option<usize> {
        self.items[..self.len()].iter().find_map(|p| {
            // SAFETY: every key is a live C string owned by `self`.
            let name = unsafe { CStr::from_ptr(p.key) };
            if name.to_bytes() != key.as_bytes() || p.data.is_null() {
                return None;
            }
            let bytes = match p.data_size {
                // SAFETY: data holds `data_size` bytes (owned here or by OpenSSL).
                n @ (4 | 8) => unsafe { std::slice::from_raw_parts(p.data.cast::<u8>(), n) },
                _ => return None,
            };
            Some(if bytes.len() == 8 {
                u64::from_ne_bytes(bytes.try_into().ok()?) as usize
            } else {
                u32::from_ne_bytes(bytes.try_into().ok()?) as usize
            })
        })
    }
}

/// Is `name` among an algorithm's settable parameters?
pub fn settable(api: &Api, settables: *const OsslParam, name: &str) -> bool {
    let Ok(cname) = cstring(name) else {
        return false;
    };
    if settables.is_null() {
        return false;
    }
    // SAFETY: END-terminated array from the algorithm, C string alive across the call.
    !unsafe { (api.OSSL_PARAM_locate_const)(settables, cname.as_ptr()) }.is_null()
}

/// Reads an `int` parameter through a getter; `None` when the provider leaves it unset.
pub fn get_int(getter: impl FnOnce(*mut OsslParam) -> c_int, key: &CStr) -> Option<c_int> {
    let mut value: c_int = 0;
    let mut params = [
        OsslParam {
            key: key.as_ptr(),
            data_type: PARAM_INTEGER,
            data: (&raw mut value).cast(),
            data_size: size_of::<c_int>(),
            return_size: PARAM_UNMODIFIED,
        },
        OsslParam::END,
    ];
    let ok = getter(params.as_mut_ptr());
    (ok == 1 && params[0].return_size != PARAM_UNMODIFIED).then_some(value)
}
