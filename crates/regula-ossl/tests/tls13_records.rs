//! TLS 1.3 records under fips-140-3, driven through the system's libcrypto as libssl drives
//! them: the write IV from the provider's TLS13-KDF (`HKDF-Expand-Label(secret, "iv", "", 12)`),
//! then one `EVP_CipherInit_ex2` per record with `write_iv XOR sequence number` as the IV, the
//! record header as AAD, the inner plaintext, and the tag read at the end.
//!
//! Known answers: RFC 8448 §3 (simple 1-RTT handshake), the client's application traffic
//! secret, its write key and IV, and its records 0 (application data: bytes 00..31 and content
//! type 23) and 1 (close_notify: 01 00 and content type 21).
//!
//! The module counts the nonce sequence only from a write IV its TLS13-KDF derived: those
//! records are approved; an IV off the sequence is a caller's nonce and refused under
//! fips-140-3, and so is every later record under that key; a second context starting from the
//! same derived IV does not get the sequence again.

use std::ffi::{CStr, CString, c_char, c_int, c_void};

use regula_ossl::ffi::{PARAM_INTEGER, PARAM_OCTET_STRING, PARAM_UTF8_STRING, Param};

mod common;

use common::{Ptr, unhex};

const SECRET: &str = "9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5";
const KEY: &str = "17422dda596ed5d9acd890e3c63f5051";
const IV: &str = "5b78923dee08579033e523d9";
const RECORD_0: &str = "a23f7054b62c94d0affafe8228ba55cbefacea42f914aa66bcab3f2b9819a8a5\
                        b46b395bd54a9a20441e2b62974e1f5a6292a2977014bd1e3deae63aeebb2169\
                        4915e4";
const RECORD_1: &str = "c9872760655666b74d7ff1153efd6db6d0b0e3";

fn param(key: &'static CStr, data_type: u32, data: *const c_void, size: usize) -> Param {
    Param {
        key: key.as_ptr(),
        data_type,
        data: data.cast_mut(),
        data_size: size,
        return_size: 0,
    }
}

struct Crypto {
    library: &'static libloading::Library,
    libctx: Ptr,
}

impl Crypto {
    /// A library context with Regula under fips-140-3 (from a configuration file, as a
    /// program's `openssl.cnf` loads it) and OpenSSL's default provider.
    fn load() -> Crypto {
        let library = common::libcrypto("libcrypto.so.3");
        let dir = common::provider_dir("tls13-records");
        let libctx = common::libctx_with_policy(library, &dir, "fips-140-3");
        Crypto { library, libctx }
    }

    fn symbol<T: Copy>(&self, name: &str) -> T {
        let name = CString::new(name).unwrap();
        // SAFETY: the caller names a libcrypto function and gives its signature as `T`.
        unsafe { *self.library.get::<T>(name.as_bytes_with_nul()).unwrap() }
    }

    /// HKDF-Expand-Label(secret, "iv", "", 12) through Regula's TLS13-KDF.
    fn write_iv(&self, secret: &[u8]) -> Vec<u8> {
        let fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr =
            self.symbol("EVP_KDF_fetch");
        let ctx_new: unsafe extern "C" fn(Ptr) -> Ptr = self.symbol("EVP_KDF_CTX_new");
        let ctx_free: unsafe extern "C" fn(Ptr) = self.symbol("EVP_KDF_CTX_free");
        let kdf_free: unsafe extern "C" fn(Ptr) = self.symbol("EVP_KDF_free");
        let derive: unsafe extern "C" fn(Ptr, *mut u8, usize, *const Param) -> c_int =
            self.symbol("EVP_KDF_derive");
        let mut iv = vec![0u8; 12];
        let (mode, digest, prefix, label) = (c"EXPAND_ONLY", c"SHA256", b"tls13 ", b"iv");
        let params = [
            param(c"mode", PARAM_UTF8_STRING, mode.as_ptr().cast(), 11),
            param(c"digest", PARAM_UTF8_STRING, digest.as_ptr().cast(), 6),
            param(
                c"key",
                PARAM_OCTET_STRING,
                secret.as_ptr().cast(),
                secret.len(),
            ),
            param(c"prefix", PARAM_OCTET_STRING, prefix.as_ptr().cast(), 6),
            param(c"label", PARAM_OCTET_STRING, label.as_ptr().cast(), 2),
            param(c"data", PARAM_OCTET_STRING, b"".as_ptr().cast(), 0),
            Param::END,
        ];
        // SAFETY: libcrypto calls with live objects; the parameters outlive the derivation.
        unsafe {
            let kdf = fetch(
                self.libctx,
                c"TLS13-KDF".as_ptr(),
                c"provider=regula".as_ptr(),
            );
            assert!(!kdf.is_null(), "Regula's TLS13-KDF under fips-140-3");
            let ctx = ctx_new(kdf);
            assert_eq!(derive(ctx, iv.as_mut_ptr(), iv.len(), params.as_ptr()), 1);
            ctx_free(ctx);
            kdf_free(kdf);
        }
        iv
    }
}

/// One AES-128-GCM encryption context of Regula's, keyed once, as libssl keys it.
struct Sealer<'a> {
    crypto: &'a Crypto,
    ctx: Ptr,
}

impl<'a> Sealer<'a> {
    fn new(crypto: &'a Crypto, key: &[u8]) -> Sealer<'a> {
        let fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr =
            crypto.symbol("EVP_CIPHER_fetch");
        let ctx_new: unsafe extern "C" fn() -> Ptr = crypto.symbol("EVP_CIPHER_CTX_new");
        let cipher_free: unsafe extern "C" fn(Ptr) = crypto.symbol("EVP_CIPHER_free");
        let init: unsafe extern "C" fn(
            Ptr,
            Ptr,
            *const u8,
            *const u8,
            c_int,
            *const Param,
        ) -> c_int = crypto.symbol("EVP_CipherInit_ex2");
        // SAFETY: libcrypto calls with live objects; the context keeps its own reference to
        // the cipher.
        unsafe {
            let cipher = fetch(
                crypto.libctx,
                c"AES-128-GCM".as_ptr(),
                c"provider=regula".as_ptr(),
            );
            assert!(!cipher.is_null());
            let ctx = ctx_new();
            assert_eq!(
                init(
                    ctx,
                    cipher,
                    key.as_ptr(),
                    std::ptr::null(),
                    1,
                    std::ptr::null()
                ),
                1
            );
            cipher_free(cipher);
            Sealer { crypto, ctx }
        }
    }

    /// One record: ciphertext and tag, and the context's `regula-approved`; or why it was
    /// refused.
    fn seal(&self, nonce: &[u8], aad: &[u8], text: &[u8]) -> Result<(Vec<u8>, i32), ()> {
        let c = self.crypto;
        let init: unsafe extern "C" fn(
            Ptr,
            Ptr,
            *const u8,
            *const u8,
            c_int,
            *const Param,
        ) -> c_int = c.symbol("EVP_CipherInit_ex2");
        let update: unsafe extern "C" fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int =
            c.symbol("EVP_CipherUpdate");
        let finish: unsafe extern "C" fn(Ptr, *mut u8, *mut c_int) -> c_int =
            c.symbol("EVP_CipherFinal_ex");
        let ctrl: unsafe extern "C" fn(Ptr, c_int, c_int, *mut c_void) -> c_int =
            c.symbol("EVP_CIPHER_CTX_ctrl");
        let get_params: unsafe extern "C" fn(Ptr, *mut Param) -> c_int =
            c.symbol("EVP_CIPHER_CTX_get_params");
        let clear_errors: unsafe extern "C" fn() = c.symbol("ERR_clear_error");
        let mut out = vec![0u8; text.len() + 16];
        let (mut written, mut last) = (0 as c_int, 0 as c_int);
        // SAFETY: libcrypto calls with a live context and in-bounds buffers.
        unsafe {
            let sealed = init(
                self.ctx,
                std::ptr::null_mut(),
                std::ptr::null(),
                nonce.as_ptr(),
                1,
                std::ptr::null(),
            ) == 1
                && update(
                    self.ctx,
                    std::ptr::null_mut(),
                    &mut written,
                    aad.as_ptr(),
                    aad.len() as c_int,
                ) == 1
                && update(
                    self.ctx,
                    out.as_mut_ptr(),
                    &mut written,
                    text.as_ptr(),
                    text.len() as c_int,
                ) == 1
                && finish(self.ctx, out.as_mut_ptr().add(text.len()), &mut last) == 1
                // EVP_CTRL_AEAD_GET_TAG
                && ctrl(self.ctx, 0x10, 16, out.as_mut_ptr().add(text.len()).cast()) == 1;
            if !sealed {
                clear_errors();
                return Err(());
            }
            let mut approved: i32 = -1;
            let mut params = [
                param(
                    c"regula-approved",
                    PARAM_INTEGER,
                    (&mut approved as *mut i32).cast(),
                    4,
                ),
                Param::END,
            ];
            assert_eq!(get_params(self.ctx, params.as_mut_ptr()), 1);
            Ok((out, approved))
        }
    }
}

impl Drop for Sealer<'_> {
    fn drop(&mut self) {
        let ctx_free: unsafe extern "C" fn(Ptr) = self.crypto.symbol("EVP_CIPHER_CTX_free");
        // SAFETY: the context this sealer owns.
        unsafe { ctx_free(self.ctx) };
    }
}

fn nonce(iv: &[u8], sequence: u64) -> Vec<u8> {
    let mut nonce = iv.to_vec();
    for (byte, count) in nonce[4..].iter_mut().zip(sequence.to_be_bytes()) {
        *byte ^= count;
    }
    nonce
}

#[test]
fn tls13_records_follow_the_module_s_sequence_under_fips() {
    let crypto = Crypto::load();
    let iv = crypto.write_iv(&unhex(SECRET));
    assert_eq!(
        iv,
        unhex(IV),
        "RFC 8448 §3: the client's application write IV"
    );
    let key = unhex(KEY);
    let mut application_data: Vec<u8> = (0u8..50).collect();
    application_data.push(23);

    let sealer = Sealer::new(&crypto, &key);
    let (record, approved) = sealer
        .seal(&nonce(&iv, 0), &unhex("1703030043"), &application_data)
        .expect("record 0 sealed under fips-140-3");
    assert_eq!(record, unhex(RECORD_0));
    assert_eq!(approved, 1);
    let (record, approved) = sealer
        .seal(&nonce(&iv, 1), &unhex("1703030013"), &[0x01, 0x00, 21])
        .expect("record 1 sealed under fips-140-3");
    assert_eq!(record, unhex(RECORD_1));
    assert_eq!(approved, 1);
    // An IV off the sequence is a caller's nonce: refused, and the sequence ends for the key.
    assert!(sealer.seal(&nonce(&iv, 5), b"", b"x").is_err());
    assert!(sealer.seal(&nonce(&iv, 2), b"", b"x").is_err());

    // The derived IV was taken by the first context: another starting from it is refused.
    let second = Sealer::new(&crypto, &key);
    assert!(second.seal(&nonce(&iv, 0), b"", b"x").is_err());
    // So is a context whose first IV the TLS13-KDF never derived.
    let third = Sealer::new(&crypto, &key);
    assert!(third.seal(&[0x42; 12], b"", b"x").is_err());
}
