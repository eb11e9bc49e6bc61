//! One key harness over libcrypto's `EVP_PKEY` API for the tests that make, import, move and
//! read keys: keys generated or imported (`EVP_PKEY_fromdata`) with the provider a property
//! query selects, moved between providers through their parameters (`EVP_PKEY_todata`), their
//! parameters read back as libssl and applications read them, and libcrypto's error queue read
//! as "reason | provider's message".

use std::ffi::{CStr, CString, c_char, c_int, c_ulong};

use libloading::Library;
use regula_ossl::ffi::{PARAM_UNSIGNED_INTEGER, Param};

use super::{Ptr, copy};

/// The libcrypto functions the harness calls, and the library context its keys live in.
pub struct Keys {
    libctx: usize,
    ctx_new_from_name: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    keygen_init: unsafe extern "C" fn(Ptr) -> c_int,
    ctx_set_params: unsafe extern "C" fn(Ptr, *const Param) -> c_int,
    generate: unsafe extern "C" fn(Ptr, *mut Ptr) -> c_int,
    fromdata_init: unsafe extern "C" fn(Ptr) -> c_int,
    pkey_fromdata: unsafe extern "C" fn(Ptr, *mut Ptr, c_int, *const Param) -> c_int,
    todata: unsafe extern "C" fn(Ptr, c_int, *mut *mut Param) -> c_int,
    params_free: unsafe extern "C" fn(*mut Param),
    get_octets: unsafe extern "C" fn(Ptr, *const c_char, *mut u8, usize, *mut usize) -> c_int,
    get_bn: unsafe extern "C" fn(Ptr, *const c_char, *mut Ptr) -> c_int,
    bn_num_bits: unsafe extern "C" fn(Ptr) -> c_int,
    bn_to_bin: unsafe extern "C" fn(Ptr, *mut u8) -> c_int,
    bn_clear_free: unsafe extern "C" fn(Ptr),
    set_encoded: unsafe extern "C" fn(Ptr, *const u8, usize) -> c_int,
    get_provider: unsafe extern "C" fn(Ptr) -> Ptr,
    provider_name: unsafe extern "C" fn(Ptr) -> *const c_char,
    pkey_free: unsafe extern "C" fn(Ptr),
    err_get: unsafe extern "C" fn() -> c_ulong,
    err_peek_data: unsafe extern "C" fn(*mut *const c_char, *mut c_int) -> c_ulong,
    err_string: unsafe extern "C" fn(c_ulong, *mut c_char, usize),
    err_clear: unsafe extern "C" fn(),
}

impl Keys {
    /// The harness over `library` (an OpenSSL 3 libcrypto) with keys made in `libctx`.
    pub fn load(library: &'static Library, libctx: Ptr) -> Keys {
        macro_rules! symbol {
            ($name:literal) => {
                // SAFETY: each symbol is declared with the signature of OpenSSL 3's headers.
                *unsafe { library.get(concat!($name, "\0").as_bytes()) }
                    .expect(concat!("libcrypto has ", $name))
            };
        }
        Keys {
            libctx: libctx as usize,
            ctx_new_from_name: symbol!("EVP_PKEY_CTX_new_from_name"),
            ctx_free: symbol!("EVP_PKEY_CTX_free"),
            keygen_init: symbol!("EVP_PKEY_keygen_init"),
            ctx_set_params: symbol!("EVP_PKEY_CTX_set_params"),
            generate: symbol!("EVP_PKEY_generate"),
            fromdata_init: symbol!("EVP_PKEY_fromdata_init"),
            pkey_fromdata: symbol!("EVP_PKEY_fromdata"),
            todata: symbol!("EVP_PKEY_todata"),
            params_free: symbol!("OSSL_PARAM_free"),
            get_octets: symbol!("EVP_PKEY_get_octet_string_param"),
            get_bn: symbol!("EVP_PKEY_get_bn_param"),
            bn_num_bits: symbol!("BN_num_bits"),
            bn_to_bin: symbol!("BN_bn2bin"),
            bn_clear_free: symbol!("BN_clear_free"),
            set_encoded: symbol!("EVP_PKEY_set1_encoded_public_key"),
            get_provider: symbol!("EVP_PKEY_get0_provider"),
            provider_name: symbol!("OSSL_PROVIDER_get0_name"),
            pkey_free: symbol!("EVP_PKEY_free"),
            err_get: symbol!("ERR_get_error"),
            err_peek_data: symbol!("ERR_peek_error_data"),
            err_string: symbol!("ERR_error_string_n"),
            err_clear: symbol!("ERR_clear_error"),
        }
    }

    pub fn libctx(&self) -> Ptr {
        self.libctx as Ptr
    }

    /// The first error on this thread's queue as "reason text | provider's message", then
    /// clears the queue ("" when nothing is on it).
    pub fn take_error(&self) -> String {
        let mut data: *const c_char = std::ptr::null();
        let mut flags: c_int = 0;
        let mut text = [0 as c_char; 256];
        // SAFETY: libcrypto's error functions with valid out-pointers and buffer sizes.
        unsafe {
            let code = (self.err_peek_data)(&mut data, &mut flags);
            if code == 0 {
                return String::new();
            }
            let message = if data.is_null() {
                String::new()
            } else {
                CStr::from_ptr(data).to_string_lossy().into_owned()
            };
            (self.err_string)((self.err_get)(), text.as_mut_ptr(), text.len());
            (self.err_clear)();
            format!(
                "{} | {message}",
                CStr::from_ptr(text.as_ptr()).to_string_lossy()
            )
        }
    }

    /// A key context of `algorithm` from the provider `properties` selects.
    fn context(&self, algorithm: &CStr, properties: &CStr) -> Ptr {
        // SAFETY: a live library context and NUL-terminated strings.
        let ctx = unsafe {
            (self.ctx_new_from_name)(self.libctx(), algorithm.as_ptr(), properties.as_ptr())
        };
        assert!(
            !ctx.is_null(),
            "{algorithm:?} key context: {}",
            self.take_error()
        );
        ctx
    }

    /// A key pair of `algorithm` from the provider `properties` selects, generated with
    /// `params` set on the context (`group`, `bits`, ...), or the error.
    pub fn generate(
        &'static self,
        algorithm: &CStr,
        properties: &CStr,
        params: &[Param],
    ) -> Result<Key, String> {
        let mut array: Vec<Param> = params.iter().map(copy).collect();
        array.push(Param::END);
        let ctx = self.context(algorithm, properties);
        // SAFETY: libcrypto calls with a live context and a terminated array whose data
        // outlives the calls.
        unsafe {
            assert_eq!(
                (self.keygen_init)(ctx),
                1,
                "keygen_init: {}",
                self.take_error()
            );
            let mut key = std::ptr::null_mut();
            let ok = (params.is_empty() || (self.ctx_set_params)(ctx, array.as_ptr()) == 1)
                && (self.generate)(ctx, &mut key) == 1;
            (self.ctx_free)(ctx);
            if ok {
                Ok(Key(key, self))
            } else {
                Err(self.take_error())
            }
        }
    }

    /// A key of `algorithm` from parameters (`EVP_PKEY_fromdata` of `selection`) in the
    /// provider `properties` selects, or the error.
    pub fn fromdata(
        &'static self,
        algorithm: &CStr,
        properties: &CStr,
        selection: c_int,
        params: &[Param],
    ) -> Result<Key, String> {
        let mut array: Vec<Param> = params.iter().map(copy).collect();
        array.push(Param::END);
        // SAFETY: a terminated array whose data outlives the call.
        unsafe { self.fromdata_array(algorithm, properties, selection, array.as_ptr()) }
    }

    /// # Safety
    /// `params` is a terminated `OSSL_PARAM` array whose data outlives the call.
    unsafe fn fromdata_array(
        &'static self,
        algorithm: &CStr,
        properties: &CStr,
        selection: c_int,
        params: *const Param,
    ) -> Result<Key, String> {
        let ctx = self.context(algorithm, properties);
        // SAFETY: libcrypto calls with a live context; the caller's array.
        unsafe {
            assert_eq!(
                (self.fromdata_init)(ctx),
                1,
                "fromdata_init: {}",
                self.take_error()
            );
            let mut key = std::ptr::null_mut();
            let ok = (self.pkey_fromdata)(ctx, &mut key, selection, params);
            (self.ctx_free)(ctx);
            if ok == 1 {
                Ok(Key(key, self))
            } else {
                Err(self.take_error())
            }
        }
    }
}

/// `provider=<name>` as a property query.
pub fn properties(provider: &str) -> CString {
    CString::new(format!("provider={provider}")).unwrap()
}

/// An `EVP_PKEY`, freed on drop, and the harness that made it.
pub struct Key(pub Ptr, &'static Keys);

impl Drop for Key {
    fn drop(&mut self) {
        // SAFETY: a key libcrypto made, freed once.
        unsafe { (self.1.pkey_free)(self.0) }
    }
}

impl Key {
    /// The name of the provider holding the key.
    pub fn provider(&self) -> String {
        // SAFETY: a live key; the provider's name is a C string it owns.
        unsafe {
            let provider = (self.1.get_provider)(self.0);
            assert!(!provider.is_null());
            CStr::from_ptr((self.1.provider_name)(provider))
                .to_string_lossy()
                .into_owned()
        }
    }

    /// The octet-string parameter `name` (`EVP_PKEY_get_octet_string_param`, its size asked
    /// first), or the error.
    pub fn octets_param(&self, name: &CStr) -> Result<Vec<u8>, String> {
        let mut len = 0usize;
        // SAFETY: a live key, and a buffer of the size given (none when asking the size).
        unsafe {
            if (self.1.get_octets)(self.0, name.as_ptr(), std::ptr::null_mut(), 0, &mut len) != 1 {
                return Err(format!("{name:?}: {}", self.1.take_error()));
            }
            let mut out = vec![0u8; len];
            if (self.1.get_octets)(self.0, name.as_ptr(), out.as_mut_ptr(), out.len(), &mut len)
                != 1
            {
                return Err(format!("{name:?}: {}", self.1.take_error()));
            }
            out.truncate(len);
            Ok(out)
        }
    }

    /// The integer parameter `name` as `EVP_PKEY_get_bn_param` gives it, big-endian without
    /// leading zeros, or the error.
    pub fn bn_param(&self, name: &CStr) -> Result<Vec<u8>, String> {
        let mut bn = std::ptr::null_mut();
        // SAFETY: a live key; the BIGNUM libcrypto allocates is read into a buffer of its
        // size and freed once.
        unsafe {
            if (self.1.get_bn)(self.0, name.as_ptr(), &mut bn) != 1 {
                return Err(format!("{name:?}: {}", self.1.take_error()));
            }
            let bits = (self.1.bn_num_bits)(bn);
            let mut out = vec![0u8; (bits as usize).div_ceil(8)];
            let written = (self.1.bn_to_bin)(bn, out.as_mut_ptr());
            (self.1.bn_clear_free)(bn);
            out.truncate(written as usize);
            Ok(out)
        }
    }

    /// The public key as libssl sends it (`encoded-pub-key`).
    pub fn encoded_public_key(&self) -> Vec<u8> {
        self.octets_param(c"encoded-pub-key")
            .unwrap_or_else(|e| panic!("encoded-pub-key: {e}"))
    }

    /// The public key (`pub`: an uncompressed point, or the 32 bytes of X25519 and Ed25519).
    pub fn public_bytes(&self) -> Vec<u8> {
        self.octets_param(c"pub")
            .unwrap_or_else(|e| panic!("pub: {e}"))
    }

    /// Sets the public key as libssl sets a peer's key share
    /// (`EVP_PKEY_set1_encoded_public_key`), or the error.
    pub fn set_encoded_public_key(&self, share: &[u8]) -> Result<(), String> {
        // SAFETY: a live key and the bytes given.
        let ok = unsafe { (self.1.set_encoded)(self.0, share.as_ptr(), share.len()) };
        if ok == 1 {
            Ok(())
        } else {
            Err(self.1.take_error())
        }
    }

    /// This key's `selection` moved into `provider` through its parameters
    /// (`EVP_PKEY_todata`, then `EVP_PKEY_fromdata` as `algorithm`), or the error.
    pub fn moved_to(
        &self,
        algorithm: &CStr,
        provider: &str,
        selection: c_int,
    ) -> Result<Key, String> {
        let keys = self.1;
        // SAFETY: a live key; the exported array is freed once, after the import.
        unsafe {
            let mut params = std::ptr::null_mut();
            assert_eq!(
                (keys.todata)(self.0, selection, &mut params),
                1,
                "todata: {}",
                keys.take_error()
            );
            let key = keys.fromdata_array(algorithm, &properties(provider), selection, params);
            (keys.params_free)(params);
            key
        }
    }
}

/// A `size_t` parameter (as `EVP_PKEY_CTX_set_rsa_keygen_bits` sets `bits`).
pub fn size(key: &'static CStr, value: &usize) -> Param {
    Param {
        key: key.as_ptr(),
        data_type: PARAM_UNSIGNED_INTEGER,
        data: value as *const usize as *mut std::ffi::c_void,
        data_size: size_of::<usize>(),
        return_size: usize::MAX,
    }
}
