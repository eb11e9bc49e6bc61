//! `updated-iv`, `iv` and `num` of the stream and chaining modes, against OpenSSL's own default
//! provider in the same libcrypto: the same key, IV and data through both, in odd-sized
//! chunks, separate buffers and in place, compared after every chunk.
//!
//! Where Regula does not keep the state OpenSSL reports (OFB's register after data is
//! keystream; 128-bit CFB's register inside a segment holds keystream too), the provider must
//! refuse the parameter — never answer with another value — and only there.

use std::ffi::{CStr, CString, c_char, c_int};

use libloading::Library;
use regula_ossl::ffi::Param;

mod common;

use common::Ptr;

/// The key, IV and data every run takes, and the chunks the data is given in.
struct Case<'a> {
    key: &'a [u8],
    iv: &'a [u8],
    data: &'a [u8],
    chunks: &'a [usize],
}

struct Crypto {
    library: &'static Library,
    libctx: Ptr,
}

/// What a context reports after a chunk: the original IV, the updated IV (None: refused)
/// and `num`.
#[derive(Debug, PartialEq)]
struct State {
    original: Vec<u8>,
    updated: Option<Vec<u8>>,
    num: c_int,
}

impl Crypto {
    fn load() -> Crypto {
        let path = std::env::var("REGULA_TEST_LIBCRYPTO").unwrap_or("libcrypto.so.3".into());
        let library = common::libcrypto(&path);
        let libctx = common::libctx_with(
            library,
            &common::provider_dir("updated-iv"),
            &[c"regula", c"default"],
        );
        Crypto { library, libctx }
    }

    fn symbol<T: Copy>(&self, name: &str) -> T {
        let name = CString::new(name).unwrap();
        // SAFETY: the caller names a libcrypto function and gives its signature as `T`.
        unsafe { *self.library.get::<T>(name.as_bytes_with_nul()).unwrap() }
    }

    /// Runs `data` through `cipher` from `provider` in `chunks`, giving the output and the
    /// state after each chunk.
    fn run(
        &self,
        case: &Case<'_>,
        cipher: &CStr,
        provider: &CStr,
        encrypt: bool,
        in_place: bool,
    ) -> (Vec<u8>, Vec<State>) {
        let Case {
            key,
            iv,
            data,
            chunks,
        } = *case;
        let fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr =
            self.symbol("EVP_CIPHER_fetch");
        let ctx_new: unsafe extern "C" fn() -> Ptr = self.symbol("EVP_CIPHER_CTX_new");
        let ctx_free: unsafe extern "C" fn(Ptr) = self.symbol("EVP_CIPHER_CTX_free");
        let cipher_free: unsafe extern "C" fn(Ptr) = self.symbol("EVP_CIPHER_free");
        let init: unsafe extern "C" fn(
            Ptr,
            Ptr,
            *const u8,
            *const u8,
            c_int,
            *const Param,
        ) -> c_int = self.symbol("EVP_CipherInit_ex2");
        let set_padding: unsafe extern "C" fn(Ptr, c_int) -> c_int =
            self.symbol("EVP_CIPHER_CTX_set_padding");
        let update: unsafe extern "C" fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int =
            self.symbol("EVP_CipherUpdate");
        let get_updated: unsafe extern "C" fn(Ptr, *mut u8, usize) -> c_int =
            self.symbol("EVP_CIPHER_CTX_get_updated_iv");
        let get_original: unsafe extern "C" fn(Ptr, *mut u8, usize) -> c_int =
            self.symbol("EVP_CIPHER_CTX_get_original_iv");
        let get_num: unsafe extern "C" fn(Ptr) -> c_int = self.symbol("EVP_CIPHER_CTX_get_num");
        let clear_errors: unsafe extern "C" fn() = self.symbol("ERR_clear_error");
        let query = CString::new(format!("provider={}", provider.to_str().unwrap())).unwrap();
        let mut output = Vec::new();
        let mut states = Vec::new();
        // SAFETY: libcrypto calls with live objects and in-bounds buffers (each output buffer
        // has room for the chunk and a block).
        unsafe {
            let fetched = fetch(self.libctx, cipher.as_ptr(), query.as_ptr());
            assert!(!fetched.is_null(), "{provider:?} offers {cipher:?}");
            let ctx = ctx_new();
            let direction = c_int::from(encrypt);
            assert_eq!(
                init(
                    ctx,
                    fetched,
                    key.as_ptr(),
                    iv.as_ptr(),
                    direction,
                    std::ptr::null()
                ),
                1,
                "{provider:?} {cipher:?} init"
            );
            assert_eq!(set_padding(ctx, 0), 1);
            let mut at = 0;
            for &chunk in chunks {
                let input = &data[at..at + chunk];
                at += chunk;
                let mut buffer = vec![0u8; chunk + 32];
                buffer[..chunk].copy_from_slice(input);
                let mut written: c_int = 0;
                let source = if in_place {
                    buffer.as_ptr()
                } else {
                    input.as_ptr()
                };
                assert_eq!(
                    update(
                        ctx,
                        buffer.as_mut_ptr(),
                        &mut written,
                        source,
                        chunk as c_int
                    ),
                    1,
                    "{provider:?} {cipher:?} update"
                );
                output.extend_from_slice(&buffer[..written as usize]);
                let mut original = vec![0u8; iv.len()];
                assert_eq!(get_original(ctx, original.as_mut_ptr(), original.len()), 1);
                let mut updated = vec![0u8; iv.len()];
                let updated =
                    (get_updated(ctx, updated.as_mut_ptr(), updated.len()) == 1).then_some(updated);
                clear_errors();
                states.push(State {
                    original,
                    updated,
                    num: get_num(ctx),
                });
            }
            ctx_free(ctx);
            cipher_free(fetched);
        }
        (output, states)
    }
}

#[test]
fn updated_iv_and_num_are_openssl_s_or_refused() {
    let crypto = Crypto::load();
    let key: Vec<u8> = (0u8..16).map(|i| i.wrapping_mul(29) ^ 0x5c).collect();
    let iv: Vec<u8> = (0u8..16).map(|i| i.wrapping_mul(53) ^ 0xa7).collect();
    let data: Vec<u8> = (0u32..200).map(|i| (i * 151 + 7) as u8).collect();
    // Totals after each chunk: 16, 21, 32, 64, 71, 72, 80, 83, 96.
    let chunks = [16, 5, 11, 32, 7, 1, 8, 3, 13];
    let case = Case {
        key: &key,
        iv: &iv,
        data: &data,
        chunks: &chunks,
    };
    for name in [
        c"AES-128-CFB8",
        c"SM4-CFB",
        c"SM4-OFB",
        c"SM4-CTR",
        c"SM4-CBC",
    ] {
        for encrypt in [true, false] {
            for in_place in [false, true] {
                let what = format!("{name:?} encrypt={encrypt} in_place={in_place}");
                let (ours, our_states) = crypto.run(&case, name, c"regula", encrypt, in_place);
                let (theirs, their_states) = crypto.run(&case, name, c"default", encrypt, in_place);
                assert_eq!(ours, theirs, "{what}: output");
                let mut taken = 0;
                for ((chunk, ours), theirs) in chunks.iter().zip(&our_states).zip(&their_states) {
                    taken += chunk;
                    let at = format!("{what} after {taken} bytes");
                    assert_eq!(ours.original, iv, "{at}: original IV");
                    assert_eq!(ours.num, theirs.num, "{at}: num");
                    let refused = match name.to_bytes() {
                        b"SM4-OFB" => true,
                        b"SM4-CFB" => taken % 16 != 0,
                        _ => false,
                    };
                    if refused {
                        assert_eq!(ours.updated, None, "{at}: refused, not answered");
                    } else {
                        assert!(theirs.updated.is_some(), "{at}: OpenSSL answers");
                        assert_eq!(ours.updated, theirs.updated, "{at}: updated IV");
                    }
                }
            }
        }
    }
}
