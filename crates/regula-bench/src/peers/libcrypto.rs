//! An OpenSSL 3 libcrypto in-process, used the way a careful application would: key schedule
//! set once, only the IV re-initialised per message, the same empty AAD and tag work as
//! Regula's measurement. Symmetric algorithms only.
//!
//! The library is not linked into `regula`: it is loaded at run time with `libloading`, and only
//! when `--compare libcrypto` asks for it — the system `libcrypto.so.3` by default, or the file
//! `--libcrypto PATH` or `$REGULA_BENCH_LIBCRYPTO` names. Only the OpenSSL functions this peer
//! calls are declared below, with their C prototypes; a missing library or function is an
//! error naming the library. The report names the file loaded and its
//! `OpenSSL_version(OPENSSL_VERSION)`.
//!
//! AES-GCM and ChaCha20-Poly1305 draw a fresh 96-bit nonce from libcrypto's DRBG
//! (`RAND_bytes`) for every message, as Regula's module draws its nonce for every seal (the form
//! FIPS 140-3 approves for GCM, IG C.H): a fixed IV would leave the peer half the work at small
//! sizes.
//!
//! Per algorithm: AES-CCM with the 11-byte nonce and 16-byte tag SMB 3.x uses (message length
//! announced per message, as CCM requires); GMAC as AES-GCM over an empty plaintext with the
//! message as AAD; AES-XTS in 4096-byte data units, as Regula's measurement; DES and 3DES without
//! padding, as Regula serves them. HMAC and CMAC build the key (`EVP_PKEY`) once and a signing
//! context per message (`EVP_DigestSignInit`), which understates libcrypto at small sizes. A
//! digest is one `EVP_MD_CTX` per message. MD4 and RC4 live in OpenSSL 3's legacy provider,
//! which is loaded (beside the default one) only when they are measured.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_ulong, c_void};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};
use std::sync::{Mutex, OnceLock};

use libloading::Library;
use regula::Algorithm;

use crate::workload::{
    CCM_NONCE_LEN, GMAC_NONCE_LEN, Operation, Work, XTS_DATA_UNIT, unsupported_size,
};
use crate::{Impl, PeerSource};

/// Environment variable naming the libcrypto to load (a path, or a name the loader searches).
pub const LIBRARY_ENV: &str = "REGULA_BENCH_LIBCRYPTO";
/// What is loaded when neither `--libcrypto` nor `$REGULA_BENCH_LIBCRYPTO` names a library.
pub const DEFAULT_LIBRARY: &str = "libcrypto.so.3";

type Ptr = *mut c_void;
type ConstPtr = *const c_void;

/// `EVP_CTRL_AEAD_SET_IVLEN`, `EVP_CTRL_AEAD_GET_TAG`, `EVP_CTRL_AEAD_SET_TAG` (openssl/evp.h).
const EVP_CTRL_AEAD_SET_IVLEN: c_int = 0x9;
const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;
/// `EVP_PKEY_HMAC` (= `NID_hmac`, openssl/obj_mac.h).
const EVP_PKEY_HMAC: c_int = 855;
/// `OPENSSL_INIT_NO_ATEXIT` (openssl/crypto.h): the library is never unloaded, and its clean-up
/// must not run at exit under a thread still using it (what the `openssl` crate asks for too).
const OPENSSL_INIT_NO_ATEXIT: u64 = 0x0008_0000;
/// `OPENSSL_VERSION` for `OpenSSL_version`.
const OPENSSL_VERSION: c_int = 0;
/// `EVP_MAX_MD_SIZE`: the largest digest or MAC written here.
const EVP_MAX_MD_SIZE: usize = 64;
/// The AEAD tag computed per message, as Regula's.
const TAG_LEN: usize = 16;

macro_rules! api {
    ($($name:ident: fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// The libcrypto functions this peer calls.
        #[allow(non_snake_case)]
        struct Api {
            $($name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }

        impl Api {
            fn load(library: &Library, name: &str) -> Result<Api, String> {
                Ok(Api {
                    $($name: {
                        let symbol = concat!(stringify!($name), "\0").as_bytes();
                        // SAFETY: the symbol is the OpenSSL 3 function of that name, whose C
                        // prototype (openssl/*.h) the declaration in `api!` follows; the
                        // pointer is used only while `library` stays loaded (for ever: see
                        // `load`).
                        let function = unsafe {
                            library.get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(symbol)
                        };
                        *function.map_err(|error| format!(
                            "libcrypto `{name}` lacks {} (is it OpenSSL 3's libcrypto?): {error}",
                            stringify!($name)
                        ))?
                    },)*
                })
            }
        }
    };
}

api! {
    OpenSSL_version: fn(c_int) -> *const c_char;
    OPENSSL_init_crypto: fn(u64, ConstPtr) -> c_int;
    ERR_get_error: fn() -> c_ulong;
    ERR_error_string_n: fn(c_ulong, *mut c_char, usize);
    OSSL_PROVIDER_try_load: fn(Ptr, *const c_char, c_int) -> Ptr;
    RAND_bytes: fn(*mut u8, c_int) -> c_int;
    EVP_CIPHER_get_key_length: fn(ConstPtr) -> c_int;
    EVP_CIPHER_get_iv_length: fn(ConstPtr) -> c_int;
    EVP_CIPHER_get_block_size: fn(ConstPtr) -> c_int;
    EVP_CIPHER_CTX_new: fn() -> Ptr;
    EVP_CIPHER_CTX_free: fn(Ptr);
    EVP_EncryptInit_ex: fn(Ptr, ConstPtr, Ptr, *const u8, *const u8) -> c_int;
    EVP_CIPHER_CTX_ctrl: fn(Ptr, c_int, c_int, Ptr) -> c_int;
    EVP_CIPHER_CTX_set_padding: fn(Ptr, c_int) -> c_int;
    EVP_CipherUpdate: fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int;
    EVP_CipherFinal_ex: fn(Ptr, *mut u8, *mut c_int) -> c_int;
    EVP_MD_CTX_new: fn() -> Ptr;
    EVP_MD_CTX_free: fn(Ptr);
    EVP_DigestInit_ex: fn(Ptr, ConstPtr, Ptr) -> c_int;
    EVP_DigestUpdate: fn(Ptr, *const c_void, usize) -> c_int;
    EVP_DigestFinal_ex: fn(Ptr, *mut u8, *mut c_uint) -> c_int;
    EVP_PKEY_new_mac_key: fn(c_int, Ptr, *const u8, c_int) -> Ptr;
    EVP_PKEY_new_CMAC_key: fn(Ptr, *const u8, usize, ConstPtr) -> Ptr;
    EVP_PKEY_free: fn(Ptr);
    EVP_DigestSignInit: fn(Ptr, *mut Ptr, ConstPtr, Ptr, Ptr) -> c_int;
    EVP_DigestSign: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
    EVP_DigestSignFinal: fn(Ptr, *mut u8, *mut usize) -> c_int;
}

/// A loaded libcrypto: its functions, and what the report says of it.
pub struct Libcrypto {
    api: Api,
    /// The file the loader mapped and its `OpenSSL_version(OPENSSL_VERSION)`.
    pub source: PeerSource,
    /// MD4 and RC4: OpenSSL 3's legacy provider, loaded on first use.
    legacy: OnceLock<Result<(), String>>,
    library: Library,
}

/// The library to load: `--libcrypto` (`requested`), else `$REGULA_BENCH_LIBCRYPTO`, else the
/// system `libcrypto.so.3`.
pub fn library_name(requested: Option<&Path>) -> PathBuf {
    requested
        .map(Path::to_path_buf)
        .or_else(|| {
            std::env::var_os(LIBRARY_ENV)
                .filter(|name| !name.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LIBRARY))
}

/// Loads the libcrypto [`library_name`] picks, once per process and name; it stays loaded for
/// the rest of the process (OpenSSL does not support being unloaded).
pub fn load(requested: Option<&Path>) -> Result<&'static Libcrypto, String> {
    static LOADED: Mutex<Vec<(PathBuf, &'static Libcrypto)>> = Mutex::new(Vec::new());
    let name = library_name(requested);
    let mut loaded = LOADED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, libcrypto)) = loaded.iter().find(|(known, _)| *known == name) {
        return Ok(libcrypto);
    }
    let shown = name.display().to_string();
    // SAFETY: loading a libcrypto runs only its own (OpenSSL's) initialisers; a file that is
    // not a libcrypto is refused below when a function is missing, before anything is called.
    let library = unsafe { Library::new(&name) }.map_err(|error| {
        format!(
            "cannot load libcrypto `{shown}`: {error} (install OpenSSL 3's libcrypto — Debian: \
             libssl3 — or name one with --libcrypto PATH or {LIBRARY_ENV})"
        )
    })?;
    let api = Api::load(&library, &shown)?;
    // SAFETY: `OPENSSL_init_crypto(uint64_t, const OPENSSL_INIT_SETTINGS *)` with no settings.
    if unsafe { (api.OPENSSL_init_crypto)(OPENSSL_INIT_NO_ATEXIT, null()) } != 1 {
        return Err(format!("libcrypto `{shown}`: OPENSSL_init_crypto failed"));
    }
    // SAFETY: `OpenSSL_version` returns a pointer to a static NUL-terminated string (or null).
    let version = unsafe {
        let text = (api.OpenSSL_version)(OPENSSL_VERSION);
        if text.is_null() {
            return Err(format!(
                "libcrypto `{shown}`: OpenSSL_version returned nothing"
            ));
        }
        CStr::from_ptr(text).to_string_lossy().into_owned()
    };
    let path = mapped_file(api.OpenSSL_version as usize).unwrap_or(shown);
    let libcrypto: &'static Libcrypto = Box::leak(Box::new(Libcrypto {
        api,
        source: PeerSource {
            implementation: Impl::Libcrypto,
            kind: "library",
            path,
            version,
        },
        legacy: OnceLock::new(),
        library,
    }));
    loaded.push((name, libcrypto));
    Ok(libcrypto)
}

/// The file mapped at `address` in this process (`/proc/self/maps`), where the loader found
/// the library.
fn mapped_file(address: usize) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (start, end) = fields.next()?.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        let path = fields.nth(4)?;
        (start <= address && address < end && path.starts_with('/')).then(|| path.to_string())
    })
}

/// A cipher (`const EVP_CIPHER *`) and the lengths it takes, read once.
#[derive(Clone, Copy)]
struct Cipher {
    cipher: ConstPtr,
    key_len: usize,
    iv_len: usize,
    block_size: usize,
}

/// An `EVP_CIPHER_CTX` for encryption, with the lengths its buffers must have.
struct CipherCtx {
    libcrypto: &'static Libcrypto,
    context: Ptr,
    iv_len: usize,
    block_size: usize,
}

/// An `EVP_PKEY` (a MAC key).
struct PKey {
    libcrypto: &'static Libcrypto,
    key: Ptr,
}

/// An `EVP_MD_CTX`, freed on every path.
struct MdCtx {
    libcrypto: &'static Libcrypto,
    context: Ptr,
}

impl Libcrypto {
    /// `libcrypto: ` and the library's error queue (emptied), for a call that failed.
    fn failed(&self, what: &str) -> String {
        let mut errors = Vec::new();
        loop {
            // SAFETY: `unsigned long ERR_get_error(void)`.
            let code = unsafe { (self.api.ERR_get_error)() };
            if code == 0 {
                break;
            }
            let mut text = [0 as c_char; 256];
            // SAFETY: writes at most `text.len()` bytes, NUL-terminated, into `text`.
            let message = unsafe {
                (self.api.ERR_error_string_n)(code, text.as_mut_ptr(), text.len());
                CStr::from_ptr(text.as_ptr())
            };
            errors.push(message.to_string_lossy().into_owned());
        }
        if errors.is_empty() {
            format!("libcrypto: {what} failed")
        } else {
            format!("libcrypto: {what} failed: {}", errors.join("; "))
        }
    }

    /// `Ok` when an OpenSSL call returned success (a positive value).
    fn check(&self, result: c_int, what: &str) -> Result<(), String> {
        if result > 0 {
            Ok(())
        } else {
            Err(self.failed(what))
        }
    }

    /// The object an accessor without arguments (`EVP_aes_128_gcm`, `EVP_sha256`…) returns;
    /// looked up when used, so that a library built without an algorithm loses only it.
    fn object(&self, accessor: &str) -> Result<ConstPtr, String> {
        let symbol = CString::new(accessor).map_err(|_| format!("bad name {accessor}"))?;
        // SAFETY: every accessor named in this file is `const EVP_CIPHER *NAME(void)` or
        // `const EVP_MD *NAME(void)`; the library stays loaded.
        let object = unsafe {
            let function = self
                .library
                .get::<unsafe extern "C" fn() -> ConstPtr>(symbol.as_bytes_with_nul())
                .map_err(|error| {
                    format!("libcrypto {} has no {accessor}: {error}", self.source.path)
                })?;
            function()
        };
        if object.is_null() {
            return Err(format!("libcrypto: {accessor} returned nothing"));
        }
        Ok(object)
    }

    fn cipher(&self, accessor: &str) -> Result<Cipher, String> {
        let cipher = self.object(accessor)?;
        let length =
            |value: c_int| usize::try_from(value).map_err(|_| format!("{accessor}: bad length"));
        // SAFETY: `cipher` is a valid `const EVP_CIPHER *`.
        let (key_len, iv_len, block_size) = unsafe {
            (
                (self.api.EVP_CIPHER_get_key_length)(cipher),
                (self.api.EVP_CIPHER_get_iv_length)(cipher),
                (self.api.EVP_CIPHER_get_block_size)(cipher),
            )
        };
        Ok(Cipher {
            cipher,
            key_len: length(key_len)?,
            iv_len: length(iv_len)?,
            block_size: length(block_size)?,
        })
    }

    /// Loads OpenSSL 3's legacy provider (MD4, RC4) beside the default one, once per library.
    fn load_legacy_provider(&self) -> Result<(), String> {
        self.legacy
            .get_or_init(|| {
                // SAFETY: default library context, a static name, retain_fallbacks = 1 (keep the
                // default provider); the provider is kept loaded for the rest of the process.
                let provider =
                    unsafe { (self.api.OSSL_PROVIDER_try_load)(null_mut(), c"legacy".as_ptr(), 1) };
                if provider.is_null() {
                    Err(self.failed("loading the legacy provider"))
                } else {
                    Ok(())
                }
            })
            .clone()
    }

    /// `RAND_bytes` into `buffer`.
    fn random(&self, buffer: &mut [u8]) -> Result<(), String> {
        let len = c_int::try_from(buffer.len()).map_err(|_| "RAND_bytes: buffer too long")?;
        // SAFETY: writes exactly `len` bytes into `buffer`.
        let result = unsafe { (self.api.RAND_bytes)(buffer.as_mut_ptr(), len) };
        self.check(result, "RAND_bytes")
    }

    /// One digest of `data` in a fresh `EVP_MD_CTX`, as an application hashing a message does.
    fn digest(&'static self, md: ConstPtr, data: &[u8]) -> Result<(), String> {
        let context = MdCtx::new(self)?;
        let mut out = [0u8; EVP_MAX_MD_SIZE];
        let mut len: c_uint = 0;
        // SAFETY: `context` is a fresh `EVP_MD_CTX`, `md` a valid `const EVP_MD *`; `data` is
        // read for its length; `out` holds EVP_MAX_MD_SIZE bytes, the most a digest writes.
        unsafe {
            self.check(
                (self.api.EVP_DigestInit_ex)(context.context, md, null_mut()),
                "EVP_DigestInit_ex",
            )?;
            self.check(
                (self.api.EVP_DigestUpdate)(context.context, data.as_ptr().cast(), data.len()),
                "EVP_DigestUpdate",
            )?;
            self.check(
                (self.api.EVP_DigestFinal_ex)(context.context, out.as_mut_ptr(), &mut len),
                "EVP_DigestFinal_ex",
            )
        }
    }

    /// One MAC of `data` under `key`: a signing context per message (`md` null for CMAC).
    fn sign(&'static self, md: ConstPtr, key: &PKey, data: &[u8]) -> Result<(), String> {
        let context = MdCtx::new(self)?;
        let mut out = [0u8; EVP_MAX_MD_SIZE];
        let mut len = 0usize;
        // SAFETY: `context` is a fresh `EVP_MD_CTX`, `key` a live MAC key and `md` a valid
        // `const EVP_MD *` or null; the key context the init creates belongs to `context`;
        // `data` is read for its length; the first `EVP_DigestSign` only asks for the length,
        // checked against `out` before `EVP_DigestSignFinal` writes.
        unsafe {
            let mut key_context: Ptr = null_mut();
            self.check(
                (self.api.EVP_DigestSignInit)(
                    context.context,
                    &mut key_context,
                    md,
                    null_mut(),
                    key.key,
                ),
                "EVP_DigestSignInit",
            )?;
            self.check(
                (self.api.EVP_DigestUpdate)(context.context, data.as_ptr().cast(), data.len()),
                "EVP_DigestUpdate",
            )?;
            self.check(
                (self.api.EVP_DigestSign)(context.context, null_mut(), &mut len, null(), 0),
                "EVP_DigestSign (length)",
            )?;
            if len > out.len() {
                return Err(format!("libcrypto: a {len}-byte MAC"));
            }
            len = out.len();
            self.check(
                (self.api.EVP_DigestSignFinal)(context.context, out.as_mut_ptr(), &mut len),
                "EVP_DigestSignFinal",
            )
        }
    }
}

impl MdCtx {
    fn new(libcrypto: &'static Libcrypto) -> Result<MdCtx, String> {
        // SAFETY: `EVP_MD_CTX *EVP_MD_CTX_new(void)`.
        let context = unsafe { (libcrypto.api.EVP_MD_CTX_new)() };
        if context.is_null() {
            return Err(libcrypto.failed("EVP_MD_CTX_new"));
        }
        Ok(MdCtx { libcrypto, context })
    }
}

impl Drop for MdCtx {
    fn drop(&mut self) {
        // SAFETY: the context this value owns, freed once (with the key context it holds).
        unsafe { (self.libcrypto.api.EVP_MD_CTX_free)(self.context) }
    }
}

impl PKey {
    fn hmac(libcrypto: &'static Libcrypto, key: &[u8]) -> Result<PKey, String> {
        let len = c_int::try_from(key.len()).map_err(|_| "HMAC key too long")?;
        // SAFETY: reads `len` bytes of `key`; no engine.
        let key = unsafe {
            (libcrypto.api.EVP_PKEY_new_mac_key)(EVP_PKEY_HMAC, null_mut(), key.as_ptr(), len)
        };
        PKey::owned(libcrypto, key, "EVP_PKEY_new_mac_key")
    }

    fn cmac(libcrypto: &'static Libcrypto, cipher: Cipher, key: &[u8]) -> Result<PKey, String> {
        if key.len() != cipher.key_len {
            return Err(format!(
                "CMAC: a {}-byte key for a {}-byte cipher key",
                key.len(),
                cipher.key_len
            ));
        }
        // SAFETY: reads `key.len()` bytes of `key`, the cipher's key length; no engine.
        let key = unsafe {
            (libcrypto.api.EVP_PKEY_new_CMAC_key)(
                null_mut(),
                key.as_ptr(),
                key.len(),
                cipher.cipher,
            )
        };
        PKey::owned(libcrypto, key, "EVP_PKEY_new_CMAC_key")
    }

    fn owned(libcrypto: &'static Libcrypto, key: Ptr, what: &str) -> Result<PKey, String> {
        if key.is_null() {
            Err(libcrypto.failed(what))
        } else {
            Ok(PKey { libcrypto, key })
        }
    }
}

impl Drop for PKey {
    fn drop(&mut self) {
        // SAFETY: the key this value owns, freed once.
        unsafe { (self.libcrypto.api.EVP_PKEY_free)(self.key) }
    }
}

impl CipherCtx {
    /// A context set up for encryption with `cipher` (no key yet).
    fn new(libcrypto: &'static Libcrypto, cipher: Cipher) -> Result<CipherCtx, String> {
        // SAFETY: `EVP_CIPHER_CTX *EVP_CIPHER_CTX_new(void)`.
        let context = unsafe { (libcrypto.api.EVP_CIPHER_CTX_new)() };
        if context.is_null() {
            return Err(libcrypto.failed("EVP_CIPHER_CTX_new"));
        }
        let context = CipherCtx {
            libcrypto,
            context,
            iv_len: cipher.iv_len,
            block_size: cipher.block_size.max(1),
        };
        // SAFETY: a fresh context and a valid cipher; no engine, key or IV.
        let result = unsafe {
            (libcrypto.api.EVP_EncryptInit_ex)(
                context.context,
                cipher.cipher,
                null_mut(),
                null(),
                null(),
            )
        };
        libcrypto.check(result, "EVP_EncryptInit_ex")?;
        Ok(context)
    }

    /// Sets the key: exactly the cipher's key length.
    fn set_key(&mut self, cipher: Cipher, key: &[u8]) -> Result<(), String> {
        if key.len() != cipher.key_len {
            return Err(format!(
                "a {}-byte key for a {}-byte cipher key",
                key.len(),
                cipher.key_len
            ));
        }
        // SAFETY: the context was initialised with `cipher`, whose key length `key` has.
        let result = unsafe {
            (self.libcrypto.api.EVP_EncryptInit_ex)(
                self.context,
                null(),
                null_mut(),
                key.as_ptr(),
                null(),
            )
        };
        self.libcrypto.check(result, "EVP_EncryptInit_ex (key)")
    }

    /// Re-initialises with a new IV (the key schedule is kept): at least the IV length set.
    fn set_iv(&mut self, iv: &[u8]) -> Result<(), String> {
        if iv.len() < self.iv_len {
            return Err(format!(
                "a {}-byte IV for a {}-byte one",
                iv.len(),
                self.iv_len
            ));
        }
        // SAFETY: OpenSSL reads the context's IV length from `iv`, which holds at least that.
        let result = unsafe {
            (self.libcrypto.api.EVP_EncryptInit_ex)(
                self.context,
                null(),
                null_mut(),
                null(),
                iv.as_ptr(),
            )
        };
        self.libcrypto.check(result, "EVP_EncryptInit_ex (IV)")
    }

    /// An AEAD control without a buffer (`EVP_CTRL_AEAD_SET_IVLEN`, `…_SET_TAG` length).
    fn control(&mut self, control: c_int, value: usize) -> Result<(), String> {
        let value = c_int::try_from(value).map_err(|_| "control value too large")?;
        // SAFETY: these controls take an integer and no buffer.
        let result = unsafe {
            (self.libcrypto.api.EVP_CIPHER_CTX_ctrl)(self.context, control, value, null_mut())
        };
        self.libcrypto.check(result, "EVP_CIPHER_CTX_ctrl")
    }

    /// CCM: the nonce length, before the key.
    fn set_iv_length(&mut self, len: usize) -> Result<(), String> {
        self.control(EVP_CTRL_AEAD_SET_IVLEN, len)?;
        self.iv_len = len;
        Ok(())
    }

    fn set_padding(&mut self, padding: bool) {
        // SAFETY: a live context; always returns 1.
        unsafe {
            (self.libcrypto.api.EVP_CIPHER_CTX_set_padding)(self.context, c_int::from(padding))
        };
    }

    /// `EVP_CipherUpdate`: `input` encrypted into `output`, or, without output, taken as AAD.
    /// `output` must hold the input and a block more, the most one update writes.
    fn update(&mut self, input: &[u8], output: Option<&mut [u8]>) -> Result<usize, String> {
        let len =
            c_int::try_from(input.len()).map_err(|_| "message too long for EVP_CipherUpdate")?;
        let output = match output {
            Some(output) if output.len() >= input.len() + self.block_size => output.as_mut_ptr(),
            Some(_) => return Err("EVP_CipherUpdate: output buffer too short".into()),
            None => null_mut(),
        };
        let mut written: c_int = 0;
        // SAFETY: `input` is read for `len` bytes; `output`, when not null, holds more than one
        // update can write (checked above).
        let result = unsafe {
            (self.libcrypto.api.EVP_CipherUpdate)(
                self.context,
                output,
                &mut written,
                input.as_ptr(),
                len,
            )
        };
        self.libcrypto.check(result, "EVP_CipherUpdate")?;
        usize::try_from(written).map_err(|_| "EVP_CipherUpdate: negative length".into())
    }

    /// CCM: announces the message length (an update with neither input nor output).
    fn set_data_len(&mut self, len: usize) -> Result<(), String> {
        let len = c_int::try_from(len).map_err(|_| "message too long for CCM")?;
        let mut written: c_int = 0;
        // SAFETY: with null input and output, OpenSSL only records the length.
        let result = unsafe {
            (self.libcrypto.api.EVP_CipherUpdate)(
                self.context,
                null_mut(),
                &mut written,
                null(),
                len,
            )
        };
        self.libcrypto.check(result, "EVP_CipherUpdate (length)")
    }

    /// `EVP_CipherFinal_ex` into `output`, which must hold a block.
    fn finish(&mut self, output: &mut [u8]) -> Result<(), String> {
        if output.len() < self.block_size {
            return Err("EVP_CipherFinal_ex: output buffer too short".into());
        }
        let mut written: c_int = 0;
        // SAFETY: the final call writes at most one block, which `output` holds.
        let result = unsafe {
            (self.libcrypto.api.EVP_CipherFinal_ex)(self.context, output.as_mut_ptr(), &mut written)
        };
        self.libcrypto.check(result, "EVP_CipherFinal_ex")
    }

    /// The 16-byte AEAD tag of the message just finished.
    fn tag(&mut self, tag: &mut [u8; TAG_LEN]) -> Result<(), String> {
        // SAFETY: OpenSSL writes `TAG_LEN` bytes into `tag`, which holds them.
        let result = unsafe {
            (self.libcrypto.api.EVP_CIPHER_CTX_ctrl)(
                self.context,
                EVP_CTRL_AEAD_GET_TAG,
                TAG_LEN as c_int,
                tag.as_mut_ptr().cast(),
            )
        };
        self.libcrypto.check(result, "EVP_CIPHER_CTX_ctrl (tag)")
    }
}

impl Drop for CipherCtx {
    fn drop(&mut self) {
        // SAFETY: the context this value owns, freed once.
        unsafe { (self.libcrypto.api.EVP_CIPHER_CTX_free)(self.context) }
    }
}

/// libcrypto's accessor for a cipher Regula serves.
fn cipher_accessor(algorithm: Algorithm) -> Option<&'static str> {
    Some(match algorithm {
        Algorithm::Aes128Gcm | Algorithm::Aes128Gmac => "EVP_aes_128_gcm",
        Algorithm::Aes256Gcm | Algorithm::Aes256Gmac => "EVP_aes_256_gcm",
        Algorithm::Aes128Ccm => "EVP_aes_128_ccm",
        Algorithm::Aes256Ccm => "EVP_aes_256_ccm",
        Algorithm::ChaCha20Poly1305 => "EVP_chacha20_poly1305",
        Algorithm::Aes128Ctr => "EVP_aes_128_ctr",
        Algorithm::Aes256Ctr => "EVP_aes_256_ctr",
        Algorithm::Aes128Cbc | Algorithm::Aes128Cmac => "EVP_aes_128_cbc",
        Algorithm::Aes256Cbc | Algorithm::Aes256Cmac => "EVP_aes_256_cbc",
        Algorithm::Aes128Cfb8 => "EVP_aes_128_cfb8",
        Algorithm::Aes256Cfb8 => "EVP_aes_256_cfb8",
        Algorithm::Aes256Xts => "EVP_aes_256_xts",
        Algorithm::DesCbc => "EVP_des_cbc",
        Algorithm::DesEde3Cbc => "EVP_des_ede3_cbc",
        Algorithm::Rc4 => "EVP_rc4",
        Algorithm::Sm4Ecb => "EVP_sm4_ecb",
        Algorithm::Sm4Cbc => "EVP_sm4_cbc",
        Algorithm::Sm4Ctr => "EVP_sm4_ctr",
        _ => return None,
    })
}

/// libcrypto's accessor for a digest (or an HMAC's digest).
fn digest_accessor(algorithm: Algorithm) -> Option<&'static str> {
    Some(match algorithm {
        Algorithm::Md4 => "EVP_md4",
        Algorithm::Md5 | Algorithm::HmacMd5 => "EVP_md5",
        Algorithm::Sha1 | Algorithm::HmacSha1 => "EVP_sha1",
        Algorithm::Sha224 | Algorithm::HmacSha224 => "EVP_sha224",
        Algorithm::Sha256 | Algorithm::HmacSha256 => "EVP_sha256",
        Algorithm::Sha384 | Algorithm::HmacSha384 => "EVP_sha384",
        Algorithm::Sha512 | Algorithm::HmacSha512 => "EVP_sha512",
        Algorithm::Sha3_256 => "EVP_sha3_256",
        Algorithm::Sha3_384 => "EVP_sha3_384",
        Algorithm::Sha3_512 => "EVP_sha3_512",
        Algorithm::Sm3 | Algorithm::HmacSm3 => "EVP_sm3",
        _ => return None,
    })
}

/// Key bytes for a cipher: counting bytes, so that the two halves of an XTS key differ.
fn key_bytes(len: usize) -> Vec<u8> {
    (0..len).map(|index| index as u8 ^ 0x5a).collect()
}

/// What a reader of a libcrypto figure must know, where its work differs from Regula's.
pub fn caveat(algorithm: Algorithm, operation: Operation) -> Option<&'static str> {
    match (operation, algorithm) {
        (Operation::Mac, Algorithm::Aes128Gmac | Algorithm::Aes256Gmac) => None,
        (Operation::Mac, _)
            if digest_accessor(algorithm).is_some()
                || matches!(algorithm, Algorithm::Aes128Cmac | Algorithm::Aes256Cmac) =>
        {
            Some(
                "the key (EVP_PKEY) is made once but a signing context per message, whose set-up \
             (EVP_DigestSignInit, several µs in OpenSSL 3.0) dominates small sizes; the \
             `openssl` peer keeps the keyed context",
            )
        }
        (Operation::Encrypt, Algorithm::Rc4) => Some(
            "one RC4 keystream continues across messages; Regula's RC4 takes no IV, so each \
             message is keyed anew (the 256-step key schedule every time)",
        ),
        _ => None,
    }
}

impl Libcrypto {
    /// A prepared libcrypto measurement, or `None` when this peer does not cover the operation.
    pub fn workload(
        &'static self,
        algorithm: Algorithm,
        operation: Operation,
        size: usize,
    ) -> Result<Option<Work>, String> {
        if matches!(algorithm, Algorithm::Md4 | Algorithm::Rc4) {
            self.load_legacy_provider()?;
        }
        let data = vec![0xa5u8; size];
        let work: Work = match (operation, algorithm) {
            (Operation::Seal, Algorithm::Aes128Ccm | Algorithm::Aes256Ccm) => {
                let cipher = self.cipher(cipher_accessor(algorithm).ok_or("no CCM cipher")?)?;
                let key = key_bytes(cipher.key_len);
                let mut context = CipherCtx::new(self, cipher)?;
                context.set_iv_length(CCM_NONCE_LEN)?;
                context.control(EVP_CTRL_AEAD_SET_TAG, TAG_LEN)?;
                context.set_key(cipher, &key)?;
                let nonce = [9u8; CCM_NONCE_LEN];
                let mut output = vec![0u8; size + cipher.block_size.max(1)];
                let mut tag = [0u8; TAG_LEN];
                Box::new(move || {
                    context.set_iv(&nonce)?;
                    // CCM needs the message length before the data (it is in the first block).
                    context.set_data_len(data.len())?;
                    let written = context.update(&data, Some(&mut output))?;
                    context.finish(&mut output[written..])?;
                    context.tag(&mut tag)
                })
            }
            (Operation::Mac, Algorithm::Aes128Gmac | Algorithm::Aes256Gmac) => {
                let cipher = self.cipher(cipher_accessor(algorithm).ok_or("no GCM cipher")?)?;
                let key = key_bytes(cipher.key_len);
                let mut context = CipherCtx::new(self, cipher)?;
                context.set_key(cipher, &key)?;
                let nonce = [9u8; GMAC_NONCE_LEN];
                let mut tag = [0u8; TAG_LEN];
                let mut nothing = [0u8; 16];
                Box::new(move || {
                    context.set_iv(&nonce)?;
                    // No output buffer: the message is additional authenticated data.
                    context.update(&data, None)?;
                    context.finish(&mut nothing)?;
                    context.tag(&mut tag)
                })
            }
            (Operation::Encrypt, Algorithm::Aes256Xts) => {
                if let Some(reason) = unsupported_size(algorithm, size) {
                    return Err(reason);
                }
                let cipher = self.cipher("EVP_aes_256_xts")?;
                let key = key_bytes(cipher.key_len);
                let mut context = CipherCtx::new(self, cipher)?;
                context.set_key(cipher, &key)?;
                let mut output = vec![0u8; XTS_DATA_UNIT.min(size) + 16];
                Box::new(move || {
                    for (unit, chunk) in data.chunks(XTS_DATA_UNIT).enumerate() {
                        let tweak = (unit as u128).to_le_bytes();
                        context.set_iv(&tweak)?;
                        context.update(chunk, Some(&mut output))?;
                    }
                    Ok(())
                })
            }
            (Operation::Seal | Operation::Encrypt, _) => {
                let Some(accessor) = cipher_accessor(algorithm) else {
                    return Ok(None);
                };
                if let Some(reason) = unsupported_size(algorithm, size) {
                    return Err(reason);
                }
                let cipher = self.cipher(accessor)?;
                let key = key_bytes(cipher.key_len);
                let mut context = CipherCtx::new(self, cipher)?;
                context.set_key(cipher, &key)?;
                // Regula's DES and 3DES take whole blocks without padding; its CBC pads (PKCS#7).
                if matches!(algorithm, Algorithm::DesCbc | Algorithm::DesEde3Cbc) {
                    context.set_padding(false);
                }
                let mut iv = vec![7u8; cipher.iv_len];
                let aead = operation == Operation::Seal;
                let mut output = vec![0u8; size + cipher.block_size.max(1)];
                let mut tag = [0u8; TAG_LEN];
                Box::new(move || {
                    if aead {
                        self.random(&mut iv)?;
                    }
                    if !iv.is_empty() {
                        context.set_iv(&iv)?;
                    }
                    let written = context.update(&data, Some(&mut output))?;
                    context.finish(&mut output[written..])?;
                    if aead {
                        context.tag(&mut tag)?;
                    }
                    Ok(())
                })
            }
            (Operation::Digest, _) => {
                let Some(accessor) = digest_accessor(algorithm) else {
                    return Ok(None);
                };
                let md = self.object(accessor)?;
                // Fails here, not mid-measurement, when the digest is unavailable.
                self.digest(md, &data)?;
                Box::new(move || self.digest(md, &data))
            }
            (Operation::Mac, Algorithm::Aes128Cmac | Algorithm::Aes256Cmac) => {
                let accessor = cipher_accessor(algorithm).ok_or("no CMAC cipher")?;
                let cipher = self.cipher(accessor)?;
                let key = PKey::cmac(self, cipher, &key_bytes(cipher.key_len))?;
                Box::new(move || self.sign(null(), &key, &data))
            }
            (Operation::Mac, _) => {
                let Some(accessor) = digest_accessor(algorithm) else {
                    return Ok(None);
                };
                let key = PKey::hmac(self, &[0x5au8; 32])?;
                let md = self.object(accessor)?;
                Box::new(move || self.sign(md, &key, &data))
            }
            (Operation::Generate, Algorithm::CtrDrbg) => {
                let mut buffer = data;
                Box::new(move || self.random(&mut buffer))
            }
            _ => return Ok(None),
        };
        Ok(Some(work))
    }
}
