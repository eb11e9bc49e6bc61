//! OpenSSL 3.4+'s indicator callback (`OSSL_INDICATOR_set_callback`) through the provider: an
//! operation the default policy serves but does not approve (MD5, RC4) is put to the
//! application's callback, which lets it go ahead (returning 1) or refuses it (0, and then no
//! output and the provider's reason on the error queue); an approved one (SHA-256) never is.
//!
//! The libcrypto is `REGULA_TEST_LIBCRYPTO` (scripts/test-ossl-provider points it at OpenSSL
//! 3.5's) or the system's. A libcrypto before 3.4 has no callback: the test then checks that
//! the same operations run, not approved, with nothing to ask.
//!
//! Known answers: MD5("abc") from RFC 1321 §A.5; RC4 with key 0102030405 from RFC 6229 §2
//! (keystream at offset 0), SHA-256("abc") from FIPS 180-2 Appendix B.1.

use std::ffi::{CStr, CString, c_char, c_int, c_ulong};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

use libloading::Library;
use regula_ossl::ffi::Param;

mod common;

use common::{Ptr, unhex};
type IndicatorCallback = unsafe extern "C" fn(*const c_char, *const c_char, *const Param) -> c_int;

/// What the test's callback answers, and what it was asked.
static ANSWER: AtomicI32 = AtomicI32::new(1);
static ASKED: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn callback(kind: *const c_char, desc: *const c_char, _: *const Param) -> c_int {
    // SAFETY: the provider passes two NUL-terminated strings.
    let (kind, desc) = unsafe { (CStr::from_ptr(kind), CStr::from_ptr(desc)) };
    ASKED.lock().unwrap().push((
        kind.to_string_lossy().into_owned(),
        desc.to_string_lossy().into_owned(),
    ));
    ANSWER.load(Ordering::SeqCst)
}

struct Crypto {
    library: &'static Library,
    libctx: Ptr,
    /// `OSSL_INDICATOR_set_callback`, on 3.4 and later.
    set_callback: Option<unsafe extern "C" fn(Ptr, Option<IndicatorCallback>)>,
}

impl Crypto {
    fn load() -> Crypto {
        let path = std::env::var("REGULA_TEST_LIBCRYPTO").unwrap_or("libcrypto.so.3".into());
        let library = common::libcrypto(&path);
        let libctx = common::libctx_with(library, &common::provider_dir("indicator"), &[c"regula"]);
        // SAFETY: OSSL_INDICATOR_set_callback's signature (openssl/indicator.h), on 3.4+.
        let set_callback = unsafe {
            library
                .get::<unsafe extern "C" fn(Ptr, Option<IndicatorCallback>)>(
                    b"OSSL_INDICATOR_set_callback\0",
                )
                .ok()
                .map(|symbol| *symbol)
        };
        Crypto {
            library,
            libctx,
            set_callback,
        }
    }

    fn symbol<T: Copy>(&self, name: &str) -> T {
        let name = CString::new(name).unwrap();
        // SAFETY: the caller names a libcrypto function and gives its signature as `T`.
        unsafe { *self.library.get::<T>(name.as_bytes_with_nul()).unwrap() }
    }

    /// The digest of `data` by the provider's `name`, or the reason it was refused.
    fn digest(&self, name: &CStr, data: &[u8]) -> Result<Vec<u8>, String> {
        let fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr =
            self.symbol("EVP_MD_fetch");
        let ctx_new: unsafe extern "C" fn() -> Ptr = self.symbol("EVP_MD_CTX_new");
        let ctx_free: unsafe extern "C" fn(Ptr) = self.symbol("EVP_MD_CTX_free");
        let md_free: unsafe extern "C" fn(Ptr) = self.symbol("EVP_MD_free");
        let init: unsafe extern "C" fn(Ptr, Ptr, *const Param) -> c_int =
            self.symbol("EVP_DigestInit_ex2");
        let update: unsafe extern "C" fn(Ptr, *const u8, usize) -> c_int =
            self.symbol("EVP_DigestUpdate");
        let finish: unsafe extern "C" fn(Ptr, *mut u8, *mut u32) -> c_int =
            self.symbol("EVP_DigestFinal_ex");
        let mut out = [0u8; 64];
        let mut len = 0u32;
        // SAFETY: libcrypto calls with live objects and in-bounds buffers.
        unsafe {
            let md = fetch(self.libctx, name.as_ptr(), c"provider=regula".as_ptr());
            assert!(!md.is_null(), "regula offers {name:?}");
            let ctx = ctx_new();
            let ok = init(ctx, md, std::ptr::null()) == 1
                && update(ctx, data.as_ptr(), data.len()) == 1
                && finish(ctx, out.as_mut_ptr(), &mut len) == 1;
            ctx_free(ctx);
            md_free(md);
            if ok {
                Ok(out[..len as usize].to_vec())
            } else {
                Err(self.take_error())
            }
        }
    }

    /// `data` encrypted by the provider's `name` (no IV), or the reason it was refused.
    fn encrypt(&self, name: &CStr, key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
        let fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr =
            self.symbol("EVP_CIPHER_fetch");
        let ctx_new: unsafe extern "C" fn() -> Ptr = self.symbol("EVP_CIPHER_CTX_new");
        let ctx_free: unsafe extern "C" fn(Ptr) = self.symbol("EVP_CIPHER_CTX_free");
        let cipher_free: unsafe extern "C" fn(Ptr) = self.symbol("EVP_CIPHER_free");
        let set_key_length: unsafe extern "C" fn(Ptr, c_int) -> c_int =
            self.symbol("EVP_CIPHER_CTX_set_key_length");
        let init: unsafe extern "C" fn(Ptr, Ptr, *const u8, *const u8, *const Param) -> c_int =
            self.symbol("EVP_EncryptInit_ex2");
        let update: unsafe extern "C" fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int =
            self.symbol("EVP_EncryptUpdate");
        let mut out = vec![0xAAu8; data.len()];
        let mut len: c_int = 0;
        // SAFETY: libcrypto calls with live objects and in-bounds buffers.
        unsafe {
            let cipher = fetch(self.libctx, name.as_ptr(), c"provider=regula".as_ptr());
            assert!(!cipher.is_null(), "regula offers {name:?}");
            let ctx = ctx_new();
            let ok = init(
                ctx,
                cipher,
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
            ) == 1
                && set_key_length(ctx, key.len() as c_int) == 1
                && init(
                    ctx,
                    std::ptr::null_mut(),
                    key.as_ptr(),
                    std::ptr::null(),
                    std::ptr::null(),
                ) == 1
                && update(
                    ctx,
                    out.as_mut_ptr(),
                    &mut len,
                    data.as_ptr(),
                    data.len() as c_int,
                ) == 1;
            ctx_free(ctx);
            cipher_free(cipher);
            if ok {
                Ok(out[..len as usize].to_vec())
            } else {
                assert!(out.iter().all(|&b| b == 0xAA), "no output on refusal");
                Err(self.take_error())
            }
        }
    }

    /// The first queued error's text and data, then clears the queue.
    fn take_error(&self) -> String {
        let peek: unsafe extern "C" fn(*mut *const c_char, *mut c_int) -> c_ulong =
            self.symbol("ERR_peek_error_data");
        let string: unsafe extern "C" fn(c_ulong, *mut c_char, usize) =
            self.symbol("ERR_error_string_n");
        let clear: unsafe extern "C" fn() = self.symbol("ERR_clear_error");
        let mut data: *const c_char = std::ptr::null();
        let mut flags = 0;
        let mut text = [0 as c_char; 256];
        // SAFETY: libcrypto's error functions with valid out-pointers.
        unsafe {
            let code = peek(&mut data, &mut flags);
            string(code, text.as_mut_ptr(), text.len());
            let message = if data.is_null() {
                String::new()
            } else {
                CStr::from_ptr(data).to_string_lossy().into_owned()
            };
            clear();
            format!(
                "{} | {message}",
                CStr::from_ptr(text.as_ptr()).to_string_lossy()
            )
        }
    }
}

const MD5_ABC: &str = "900150983cd24fb0d6963f7d28e17f72";
const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const RC4_KEY: &str = "0102030405";
const RC4_KEYSTREAM: &str = "b2396305f03dc027ccc3524a0a1118a8";

fn asked() -> Vec<(String, String)> {
    std::mem::take(&mut *ASKED.lock().unwrap())
}

#[test]
fn the_application_callback_hears_of_and_vetoes_non_approved_operations() {
    let crypto = Crypto::load();
    let Some(set_callback) = crypto.set_callback else {
        // Before 3.4: no callback to ask; the operations run, not approved.
        assert_eq!(crypto.digest(c"MD5", b"abc").unwrap(), unhex(MD5_ABC));
        assert_eq!(
            crypto.encrypt(c"RC4", &unhex(RC4_KEY), &[0; 16]).unwrap(),
            unhex(RC4_KEYSTREAM)
        );
        println!("libcrypto before 3.4: no indicator callback; MD5 and RC4 run unasked");
        return;
    };
    // SAFETY: the test's callback has OSSL_INDICATOR_CALLBACK's signature.
    unsafe { set_callback(crypto.libctx, Some(callback)) };

    ANSWER.store(1, Ordering::SeqCst);
    assert_eq!(crypto.digest(c"SHA256", b"abc").unwrap(), unhex(SHA256_ABC));
    assert_eq!(
        asked(),
        vec![],
        "an approved digest is not put to the callback"
    );
    assert_eq!(crypto.digest(c"MD5", b"abc").unwrap(), unhex(MD5_ABC));
    let md5_asked = asked();
    assert_eq!(md5_asked.len(), 1, "{md5_asked:?}");
    assert_eq!(md5_asked[0].0, "md5");
    assert!(md5_asked[0].1.contains("digest"), "{md5_asked:?}");
    assert_eq!(
        crypto.encrypt(c"RC4", &unhex(RC4_KEY), &[0; 16]).unwrap(),
        unhex(RC4_KEYSTREAM)
    );
    assert_eq!(asked().len(), 1, "RC4 is put to the callback once");

    ANSWER.store(0, Ordering::SeqCst);
    let refused = crypto.digest(c"MD5", b"abc").unwrap_err();
    assert!(refused.contains("indicator callback refused"), "{refused}");
    let refused = crypto
        .encrypt(c"RC4", &unhex(RC4_KEY), &[0; 16])
        .unwrap_err();
    assert!(refused.contains("indicator callback refused"), "{refused}");
    assert_eq!(asked().len(), 2);
    // Approved operations go ahead whatever the callback would say.
    assert_eq!(crypto.digest(c"SHA256", b"abc").unwrap(), unhex(SHA256_ABC));
    assert_eq!(asked(), vec![]);
}
