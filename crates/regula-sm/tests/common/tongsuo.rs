//! Tongsuo's libcrypto (an OpenSSL 3 fork with SM2, SM3 and SM4) as an in-process peer, loaded
//! at run time with `libloading` from the shared library `scripts/tongsuo-lib` builds and names
//! in `REGULA_TONGSUO_LIB`. Only the EVP calls the differential tests need are declared here.
//!
//! [`load`] returns `None` (after saying so on stderr) when the variable is unset, and panics
//! when it is set to something unloadable, or when it is unset under `CI=true`: a CI run must
//! not pass without the peer. Set but empty says on purpose that there is no Tongsuo for this
//! target (the aarch64 run under QEMU, where the cached library is an x86-64 one): a skip
//! with a note, under CI too.

#![allow(dead_code)]

use std::ffi::{CStr, c_char, c_int, c_long, c_uint, c_ulong, c_void};
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

use libloading::Library;

type Ptr = *mut c_void;

/// `OSSL_PARAM` (openssl/core.h).
#[repr(C)]
struct OsslParam {
    key: *const c_char,
    data_type: c_uint,
    data: *mut c_void,
    data_size: usize,
    return_size: usize,
}

/// `OSSL_PARAM_UTF8_STRING`.
const UTF8_STRING: c_uint = 4;
/// `OSSL_PARAM_UNMODIFIED`.
const UNMODIFIED: usize = usize::MAX;

impl OsslParam {
    /// A UTF-8 string parameter; both strings must outlive the call it is passed to.
    fn utf8(key: &'static CStr, value: &'static CStr) -> OsslParam {
        OsslParam {
            key: key.as_ptr(),
            data_type: UTF8_STRING,
            data: value.as_ptr() as *mut c_void,
            data_size: value.to_bytes().len(),
            return_size: UNMODIFIED,
        }
    }

    fn end() -> OsslParam {
        OsslParam {
            key: null(),
            data_type: 0,
            data: null_mut(),
            data_size: 0,
            return_size: 0,
        }
    }
}

const EVP_CTRL_AEAD_SET_IVLEN: c_int = 0x9;
const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;

macro_rules! api {
    ($($name:ident: fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        #[allow(non_snake_case)]
        struct Api {
            $($name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }

        impl Api {
            fn load(lib: &Library) -> Result<Api, String> {
                Ok(Api {
                    $($name: {
                        let name = concat!(stringify!($name), "\0").as_bytes();
                        // SAFETY: the symbol is the OpenSSL 3 function of that name, whose C
                        // prototype the declaration above follows.
                        let symbol = unsafe {
                            lib.get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(name)
                        };
                        *symbol.map_err(|e| format!("{}: {e}", stringify!($name)))?
                    },)*
                })
            }
        }
    };
}

api! {
    OpenSSL_version: fn(c_int) -> *const c_char;
    ERR_get_error: fn() -> c_ulong;
    ERR_error_string_n: fn(c_ulong, *mut c_char, usize);
    EVP_get_digestbyname: fn(*const c_char) -> Ptr;
    EVP_MD_CTX_new: fn() -> Ptr;
    EVP_MD_CTX_free: fn(Ptr);
    EVP_DigestInit_ex: fn(Ptr, Ptr, Ptr) -> c_int;
    EVP_DigestUpdate: fn(Ptr, *const c_void, usize) -> c_int;
    EVP_DigestFinal_ex: fn(Ptr, *mut u8, *mut c_uint) -> c_int;
    EVP_CIPHER_fetch: fn(Ptr, *const c_char, *const c_char) -> Ptr;
    EVP_CIPHER_free: fn(Ptr);
    EVP_CIPHER_CTX_new: fn() -> Ptr;
    EVP_CIPHER_CTX_free: fn(Ptr);
    EVP_CipherInit_ex2: fn(Ptr, Ptr, *const u8, *const u8, c_int, *const OsslParam) -> c_int;
    EVP_CIPHER_CTX_set_padding: fn(Ptr, c_int) -> c_int;
    EVP_CIPHER_CTX_ctrl: fn(Ptr, c_int, c_int, *mut c_void) -> c_int;
    EVP_CipherUpdate: fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int;
    EVP_CipherFinal_ex: fn(Ptr, *mut u8, *mut c_int) -> c_int;
    EVP_MAC_fetch: fn(Ptr, *const c_char, *const c_char) -> Ptr;
    EVP_MAC_free: fn(Ptr);
    EVP_MAC_CTX_new: fn(Ptr) -> Ptr;
    EVP_MAC_CTX_free: fn(Ptr);
    EVP_MAC_init: fn(Ptr, *const u8, usize, *const OsslParam) -> c_int;
    EVP_MAC_update: fn(Ptr, *const u8, usize) -> c_int;
    EVP_MAC_final: fn(Ptr, *mut u8, *mut usize, usize) -> c_int;
    d2i_AutoPrivateKey: fn(*mut Ptr, *mut *const u8, c_long) -> Ptr;
    d2i_PUBKEY: fn(*mut Ptr, *mut *const u8, c_long) -> Ptr;
    EVP_PKEY_free: fn(Ptr);
    EVP_PKEY_CTX_new: fn(Ptr, Ptr) -> Ptr;
    EVP_PKEY_CTX_free: fn(Ptr);
    EVP_PKEY_CTX_set1_id: fn(Ptr, *const c_void, c_int) -> c_int;
    EVP_MD_CTX_set_pkey_ctx: fn(Ptr, Ptr);
    EVP_DigestSignInit: fn(Ptr, *mut Ptr, Ptr, Ptr, Ptr) -> c_int;
    EVP_DigestSign: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
    EVP_DigestVerifyInit: fn(Ptr, *mut Ptr, Ptr, Ptr, Ptr) -> c_int;
    EVP_DigestVerify: fn(Ptr, *const u8, usize, *const u8, usize) -> c_int;
    EVP_PKEY_encrypt_init: fn(Ptr) -> c_int;
    EVP_PKEY_encrypt: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
    EVP_PKEY_decrypt_init: fn(Ptr) -> c_int;
    EVP_PKEY_decrypt: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
}

/// The loaded library and its functions, with the fetched algorithms the tests reuse.
pub struct Tongsuo {
    api: Api,
    sm3: Ptr,
    /// Kept loaded for the life of the process.
    _library: Library,
}

// SAFETY: OpenSSL 3's fetched algorithm objects (`EVP_MD`, `EVP_CIPHER`) are immutable and
// reference counted, and may be shared between threads; every context is per call.
unsafe impl Send for Tongsuo {}
// SAFETY: as above.
unsafe impl Sync for Tongsuo {}

/// The peer, loaded once per process; see the module documentation for `None`.
pub fn load() -> Option<&'static Tongsuo> {
    static PEER: OnceLock<Option<Tongsuo>> = OnceLock::new();
    PEER.get_or_init(|| {
        let Some(path) = std::env::var_os("REGULA_TONGSUO_LIB") else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "REGULA_TONGSUO_LIB is unset under CI=true: run scripts/tongsuo-lib and point it \
                 at the printed libcrypto.so.3"
            );
            eprintln!(
                "SKIPPED: Tongsuo differential checks (set REGULA_TONGSUO_LIB to the path \
                 scripts/tongsuo-lib prints); only the RustCrypto peer ran"
            );
            return None;
        };
        if path.is_empty() {
            eprintln!(
                "SKIPPED: Tongsuo differential checks (REGULA_TONGSUO_LIB is empty: no Tongsuo \
                 for this target); only the RustCrypto peer ran"
            );
            return None;
        }
        // SAFETY: loading libcrypto runs only its (OpenSSL's) initialisers.
        let library = unsafe { Library::new(&path) }
            .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.to_string_lossy()));
        let api = Api::load(&library).unwrap_or_else(|e| panic!("{e}"));
        // SAFETY: a static NUL-terminated name.
        let sm3 = unsafe { (api.EVP_get_digestbyname)(c"SM3".as_ptr()) };
        assert!(!sm3.is_null(), "Tongsuo has no SM3");
        let peer = Tongsuo {
            api,
            sm3,
            _library: library,
        };
        eprintln!(
            "peer: Tongsuo libcrypto, {} ({})",
            peer.version(),
            path.to_string_lossy()
        );
        Some(peer)
    })
    .as_ref()
}

/// Panics with the library's error queue when `ok` is false.
macro_rules! check {
    ($self:ident, $ok:expr, $what:expr) => {
        if !$ok {
            panic!("Tongsuo {}: {}", $what, $self.errors());
        }
    };
}

impl Tongsuo {
    /// `OpenSSL_version(OPENSSL_VERSION)`.
    pub fn version(&self) -> String {
        // SAFETY: returns a static string.
        unsafe { CStr::from_ptr((self.api.OpenSSL_version)(0)) }
            .to_string_lossy()
            .into_owned()
    }

    /// Drains the error queue into one line.
    fn errors(&self) -> String {
        let mut out = Vec::new();
        loop {
            // SAFETY: no arguments; thread-local queue.
            let code = unsafe { (self.api.ERR_get_error)() };
            if code == 0 {
                break;
            }
            let mut buf = [0 as c_char; 256];
            // SAFETY: the buffer and its length.
            unsafe { (self.api.ERR_error_string_n)(code, buf.as_mut_ptr(), buf.len()) };
            // SAFETY: ERR_error_string_n NUL-terminates within the buffer.
            out.push(
                unsafe { CStr::from_ptr(buf.as_ptr()) }
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        out.join("; ")
    }

    /// SM3 of `data`.
    pub fn sm3(&self, data: &[u8]) -> [u8; 32] {
        let mut out = [0u8; 32];
        let mut len: c_uint = 0;
        // SAFETY: a fresh context, freed below; pointers and lengths from live slices.
        unsafe {
            let ctx = (self.api.EVP_MD_CTX_new)();
            check!(self, !ctx.is_null(), "EVP_MD_CTX_new");
            let ok = (self.api.EVP_DigestInit_ex)(ctx, self.sm3, null_mut()) == 1
                && (self.api.EVP_DigestUpdate)(ctx, data.as_ptr().cast(), data.len()) == 1
                && (self.api.EVP_DigestFinal_ex)(ctx, out.as_mut_ptr(), &mut len) == 1;
            (self.api.EVP_MD_CTX_free)(ctx);
            check!(self, ok && len == 32, "SM3");
        }
        out
    }

    /// A MAC (`"HMAC"` with `digest`, or `"CMAC"` with `cipher`) of `data` under `key`.
    pub fn mac(
        &self,
        name: &CStr,
        param: (&'static CStr, &'static CStr),
        key: &[u8],
        data: &[u8],
    ) -> Vec<u8> {
        let params = [OsslParam::utf8(param.0, param.1), OsslParam::end()];
        let mut out = vec![0u8; 64];
        let mut len = 0usize;
        // SAFETY: fetched objects and contexts freed below; slices outlive the calls.
        unsafe {
            let mac = (self.api.EVP_MAC_fetch)(null_mut(), name.as_ptr(), null());
            check!(self, !mac.is_null(), "EVP_MAC_fetch");
            let ctx = (self.api.EVP_MAC_CTX_new)(mac);
            let ok = !ctx.is_null()
                && (self.api.EVP_MAC_init)(ctx, key.as_ptr(), key.len(), params.as_ptr()) == 1
                && (self.api.EVP_MAC_update)(ctx, data.as_ptr(), data.len()) == 1
                && (self.api.EVP_MAC_final)(ctx, out.as_mut_ptr(), &mut len, out.len()) == 1;
            (self.api.EVP_MAC_CTX_free)(ctx);
            (self.api.EVP_MAC_free)(mac);
            check!(self, ok, "EVP_MAC");
        }
        out.truncate(len);
        out
    }

    /// Runs a cipher context through `body`, then frees it and the fetched cipher.
    fn with_cipher<T>(&self, name: &CStr, body: impl FnOnce(Ptr, Ptr) -> T) -> T {
        // SAFETY: the fetched cipher and the context are freed after `body`.
        unsafe {
            let cipher = (self.api.EVP_CIPHER_fetch)(null_mut(), name.as_ptr(), null());
            check!(
                self,
                !cipher.is_null(),
                format!("EVP_CIPHER_fetch({name:?})")
            );
            let ctx = (self.api.EVP_CIPHER_CTX_new)();
            check!(self, !ctx.is_null(), "EVP_CIPHER_CTX_new");
            let result = body(ctx, cipher);
            (self.api.EVP_CIPHER_CTX_free)(ctx);
            (self.api.EVP_CIPHER_free)(cipher);
            result
        }
    }

    /// One update (and final) over `data`; `None` when the library refuses it.
    ///
    /// # Safety
    /// `ctx` is an initialised cipher context.
    unsafe fn update_final(&self, ctx: Ptr, data: &[u8]) -> Option<Vec<u8>> {
        let mut out = vec![0u8; data.len() + 32];
        let mut len: c_int = 0;
        let mut tail: c_int = 0;
        // SAFETY: `out` has room for the data plus a block; lengths fit in c_int (≤ 64 KiB + 1).
        let ok = unsafe {
            (self.api.EVP_CipherUpdate)(
                ctx,
                out.as_mut_ptr(),
                &mut len,
                data.as_ptr(),
                data.len() as c_int,
            ) == 1
                && (self.api.EVP_CipherFinal_ex)(ctx, out.as_mut_ptr().add(len as usize), &mut tail)
                    == 1
        };
        if !ok {
            self.errors();
            return None;
        }
        out.truncate((len + tail) as usize);
        Some(out)
    }

    /// A block or stream cipher mode (`SM4-ECB`, `-CBC`, `-CTR`, `-CFB`, `-OFB`, `-XTS`), no
    /// padding; for XTS `xts_standard` is `GB` or `IEEE`. `None` when the library refuses.
    pub fn cipher(
        &self,
        name: &CStr,
        encrypt: bool,
        key: &[u8],
        iv: &[u8],
        xts_standard: Option<&'static CStr>,
        data: &[u8],
    ) -> Option<Vec<u8>> {
        let params: Vec<OsslParam> = xts_standard
            .map(|standard| OsslParam::utf8(c"xts_standard", standard))
            .into_iter()
            .chain([OsslParam::end()])
            .collect();
        self.with_cipher(name, |ctx, cipher| {
            let iv = if iv.is_empty() { null() } else { iv.as_ptr() };
            // SAFETY: key and IV of the cipher's lengths (checked by the callers' choice of
            // cipher); the parameter array is END-terminated.
            unsafe {
                let ok = (self.api.EVP_CipherInit_ex2)(
                    ctx,
                    cipher,
                    key.as_ptr(),
                    iv,
                    encrypt as c_int,
                    params.as_ptr(),
                ) == 1
                    && (self.api.EVP_CIPHER_CTX_set_padding)(ctx, 0) == 1;
                check!(self, ok, "EVP_CipherInit_ex2");
                self.update_final(ctx, data)
            }
        })
    }

    /// SM4-GCM or SM4-CCM encryption: (ciphertext, tag of `tag_len` bytes).
    pub fn aead_encrypt(
        &self,
        ccm: bool,
        key: &[u8; 16],
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        tag_len: usize,
    ) -> (Vec<u8>, Vec<u8>) {
        let name = if ccm { c"SM4-CCM" } else { c"SM4-GCM" };
        self.with_cipher(name, |ctx, cipher| {
            let mut tag = vec![0u8; tag_len];
            // SAFETY: lengths from live slices; the tag buffer has `tag_len` bytes.
            unsafe {
                self.aead_init(
                    ctx,
                    cipher,
                    ccm,
                    true,
                    key,
                    nonce,
                    aad,
                    plaintext.len(),
                    tag_len,
                    null_mut(),
                );
                let out = self
                    .aead_body(ctx, ccm, plaintext)
                    .expect("Tongsuo AEAD encryption");
                let ok = (self.api.EVP_CIPHER_CTX_ctrl)(
                    ctx,
                    EVP_CTRL_AEAD_GET_TAG,
                    tag_len as c_int,
                    tag.as_mut_ptr().cast(),
                ) == 1;
                check!(self, ok, "EVP_CTRL_AEAD_GET_TAG");
                (out, tag)
            }
        })
    }

    /// SM4-GCM or SM4-CCM decryption; `None` when the tag does not verify.
    pub fn aead_decrypt(
        &self,
        ccm: bool,
        key: &[u8; 16],
        nonce: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
    ) -> Option<Vec<u8>> {
        let name = if ccm { c"SM4-CCM" } else { c"SM4-GCM" };
        self.with_cipher(name, |ctx, cipher| {
            let mut tag = tag.to_vec();
            // SAFETY: as in `aead_encrypt`; the library copies the tag.
            unsafe {
                self.aead_init(
                    ctx,
                    cipher,
                    ccm,
                    false,
                    key,
                    nonce,
                    aad,
                    ciphertext.len(),
                    tag.len(),
                    tag.as_mut_ptr(),
                );
                self.aead_body(ctx, ccm, ciphertext)
            }
        })
    }

    /// # Safety
    /// `ctx` is a fresh context, `cipher` SM4-GCM or SM4-CCM; `tag` is null or has `tag_len` bytes.
    #[allow(clippy::too_many_arguments)]
    unsafe fn aead_init(
        &self,
        ctx: Ptr,
        cipher: Ptr,
        ccm: bool,
        encrypt: bool,
        key: &[u8; 16],
        nonce: &[u8],
        aad: &[u8],
        payload_len: usize,
        tag_len: usize,
        tag: *mut u8,
    ) {
        let end = [OsslParam::end()];
        let mut len: c_int = 0;
        // SAFETY: the caller's contract; every pointer comes from a live slice.
        unsafe {
            let api = &self.api;
            let mut ok = (api.EVP_CipherInit_ex2)(
                ctx,
                cipher,
                null(),
                null(),
                encrypt as c_int,
                end.as_ptr(),
            ) == 1
                && (api.EVP_CIPHER_CTX_ctrl)(
                    ctx,
                    EVP_CTRL_AEAD_SET_IVLEN,
                    nonce.len() as c_int,
                    null_mut(),
                ) == 1;
            // CCM fixes the tag length before the key; GCM takes the expected tag at decryption.
            if ccm || !tag.is_null() {
                ok = ok
                    && (api.EVP_CIPHER_CTX_ctrl)(
                        ctx,
                        EVP_CTRL_AEAD_SET_TAG,
                        tag_len as c_int,
                        tag.cast(),
                    ) == 1;
            }
            ok = ok
                && (api.EVP_CipherInit_ex2)(
                    ctx,
                    null_mut(),
                    key.as_ptr(),
                    nonce.as_ptr(),
                    encrypt as c_int,
                    end.as_ptr(),
                ) == 1;
            if ccm {
                // CCM needs the payload length before the associated data.
                ok = ok
                    && (api.EVP_CipherUpdate)(
                        ctx,
                        null_mut(),
                        &mut len,
                        null(),
                        payload_len as c_int,
                    ) == 1;
            }
            if !aad.is_empty() {
                ok = ok
                    && (api.EVP_CipherUpdate)(
                        ctx,
                        null_mut(),
                        &mut len,
                        aad.as_ptr(),
                        aad.len() as c_int,
                    ) == 1;
            }
            check!(self, ok, "AEAD set-up");
        }
    }

    /// # Safety
    /// `ctx` was set up by `aead_init`.
    unsafe fn aead_body(&self, ctx: Ptr, ccm: bool, data: &[u8]) -> Option<Vec<u8>> {
        let mut out = vec![0u8; data.len() + 16];
        let mut len: c_int = 0;
        let mut tail: c_int = 0;
        // SAFETY: `out` has room for the data.
        unsafe {
            let updated = (self.api.EVP_CipherUpdate)(
                ctx,
                out.as_mut_ptr(),
                &mut len,
                data.as_ptr(),
                data.len() as c_int,
            ) == 1;
            // CCM checks the tag in the update and has nothing to finish.
            let ok = if ccm {
                updated
            } else {
                updated
                    && (self.api.EVP_CipherFinal_ex)(
                        ctx,
                        out.as_mut_ptr().add(len as usize),
                        &mut tail,
                    ) == 1
            };
            if !ok {
                self.errors();
                return None;
            }
        }
        out.truncate((len + tail) as usize);
        Some(out)
    }

    /// Parses a PKCS#8 private key (DER).
    fn private_key(&self, pkcs8: &[u8]) -> Ptr {
        let mut p = pkcs8.as_ptr();
        // SAFETY: `p` walks `pkcs8` only.
        let key =
            unsafe { (self.api.d2i_AutoPrivateKey)(null_mut(), &mut p, pkcs8.len() as c_long) };
        check!(self, !key.is_null(), "d2i_AutoPrivateKey");
        key
    }

    /// Parses a SubjectPublicKeyInfo (DER).
    fn public_key(&self, spki: &[u8]) -> Ptr {
        let mut p = spki.as_ptr();
        // SAFETY: `p` walks `spki` only.
        let key = unsafe { (self.api.d2i_PUBKEY)(null_mut(), &mut p, spki.len() as c_long) };
        check!(self, !key.is_null(), "d2i_PUBKEY");
        key
    }

    /// Signs with or verifies through an SM3 digest context with distinguishing ID `id`.
    fn with_sm2_digest<T>(&self, key: Ptr, id: &[u8], body: impl FnOnce(Ptr) -> T) -> T {
        // SAFETY: contexts and the key are freed below; the key context is kept by the caller
        // (EVP_MD_CTX_set_pkey_ctx does not transfer ownership).
        unsafe {
            let pctx = (self.api.EVP_PKEY_CTX_new)(key, null_mut());
            check!(self, !pctx.is_null(), "EVP_PKEY_CTX_new");
            check!(
                self,
                (self.api.EVP_PKEY_CTX_set1_id)(pctx, id.as_ptr().cast(), id.len() as c_int) == 1,
                "EVP_PKEY_CTX_set1_id"
            );
            let mctx = (self.api.EVP_MD_CTX_new)();
            check!(self, !mctx.is_null(), "EVP_MD_CTX_new");
            (self.api.EVP_MD_CTX_set_pkey_ctx)(mctx, pctx);
            let result = body(mctx);
            (self.api.EVP_MD_CTX_free)(mctx);
            (self.api.EVP_PKEY_CTX_free)(pctx);
            (self.api.EVP_PKEY_free)(key);
            result
        }
    }

    /// An SM2 signature (DER) over SM3(Z_A ‖ message) with the PKCS#8 key `pkcs8`.
    pub fn sm2_sign(&self, pkcs8: &[u8], id: &[u8], message: &[u8]) -> Vec<u8> {
        let key = self.private_key(pkcs8);
        self.with_sm2_digest(key, id, |mctx| {
            let mut signature = vec![0u8; 80];
            let mut len = signature.len();
            // SAFETY: the signature buffer holds the largest DER SM2 signature (72 bytes).
            unsafe {
                let ok = (self.api.EVP_DigestSignInit)(mctx, null_mut(), self.sm3, null_mut(), key)
                    == 1
                    && (self.api.EVP_DigestSign)(
                        mctx,
                        signature.as_mut_ptr(),
                        &mut len,
                        message.as_ptr(),
                        message.len(),
                    ) == 1;
                check!(self, ok, "SM2 sign");
            }
            signature.truncate(len);
            signature
        })
    }

    /// Whether `signature` (DER) verifies over `message` with the SPKI key `spki`.
    pub fn sm2_verify(&self, spki: &[u8], id: &[u8], message: &[u8], signature: &[u8]) -> bool {
        let key = self.public_key(spki);
        self.with_sm2_digest(key, id, |mctx| {
            // SAFETY: slices outlive the calls.
            let verified = unsafe {
                check!(
                    self,
                    (self.api.EVP_DigestVerifyInit)(mctx, null_mut(), self.sm3, null_mut(), key)
                        == 1,
                    "EVP_DigestVerifyInit"
                );
                (self.api.EVP_DigestVerify)(
                    mctx,
                    signature.as_ptr(),
                    signature.len(),
                    message.as_ptr(),
                    message.len(),
                ) == 1
            };
            self.errors();
            verified
        })
    }

    /// Encrypts or decrypts with an SM2 key context (GM/T 0009 ASN.1 ciphertexts).
    fn sm2_crypt(&self, key: Ptr, encrypt: bool, input: &[u8]) -> Option<Vec<u8>> {
        // SAFETY: the context and key are freed below; the output is sized by the first call.
        unsafe {
            let pctx = (self.api.EVP_PKEY_CTX_new)(key, null_mut());
            check!(self, !pctx.is_null(), "EVP_PKEY_CTX_new");
            let (init, run) = if encrypt {
                (self.api.EVP_PKEY_encrypt_init, self.api.EVP_PKEY_encrypt)
            } else {
                (self.api.EVP_PKEY_decrypt_init, self.api.EVP_PKEY_decrypt)
            };
            let mut len = 0usize;
            let mut out = Vec::new();
            let mut ok = init(pctx) == 1
                && run(pctx, null_mut(), &mut len, input.as_ptr(), input.len()) == 1;
            if ok {
                out = vec![0u8; len];
                ok = run(
                    pctx,
                    out.as_mut_ptr(),
                    &mut len,
                    input.as_ptr(),
                    input.len(),
                ) == 1;
                out.truncate(len);
            }
            (self.api.EVP_PKEY_CTX_free)(pctx);
            (self.api.EVP_PKEY_free)(key);
            if !ok {
                self.errors();
                return None;
            }
            Some(out)
        }
    }

    /// SM2 encryption to the SPKI key `spki`: a GM/T 0009 ASN.1 ciphertext.
    pub fn sm2_encrypt(&self, spki: &[u8], message: &[u8]) -> Vec<u8> {
        let key = self.public_key(spki);
        self.sm2_crypt(key, true, message)
            .unwrap_or_else(|| panic!("Tongsuo SM2 encrypt"))
    }

    /// SM2 decryption of a GM/T 0009 ASN.1 ciphertext; `None` when it fails.
    pub fn sm2_decrypt(&self, pkcs8: &[u8], ciphertext: &[u8]) -> Option<Vec<u8>> {
        let key = self.private_key(pkcs8);
        self.sm2_crypt(key, false, ciphertext)
    }
}
