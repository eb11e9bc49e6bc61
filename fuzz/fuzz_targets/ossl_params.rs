//! The OpenSSL provider's parameter handling and call sequences under fuzzed input: the
//! target loads the provider through its in-process core stand-in (`regula_ossl::host`), picks
//! an algorithm of any operation, and drives a context as libcrypto could — parameters of any
//! key, type and size (`OSSL_PARAM` arrays built from the input), init with keys and IVs of any
//! length, updates with output buffers of the size claimed, finals, getters with buffers of any
//! size, duplication — in any order. Refusals are expected; a caught panic (the provider's
//! `internal error` reason) or a memory error (AddressSanitizer) is a failure.

#![no_main]

use std::os::raw::{c_int, c_uint, c_void};

use libfuzzer_sys::fuzz_target;
use regula_ossl::error::Reason;
use regula_ossl::ffi::{self, Param};
use regula_ossl::host::{self, Host};

#[path = "input.rs"]
mod input;
#[path = "ossl_common.rs"]
mod ossl_common;
use ossl_common::{Input, get, params};

const KEYS: &[&str] = &[
    "digest",
    "cipher",
    "properties",
    "key",
    "iv",
    "ivlen",
    "keylen",
    "tag",
    "taglen",
    "padding",
    "num",
    "xts_standard",
    "cts_mode",
    "mode",
    "salt",
    "info",
    "pass",
    "iter",
    "pkcs5",
    "prefix",
    "label",
    "data",
    "secret",
    "seed",
    "mac",
    "use-l",
    "use-separator",
    "r",
    "size",
    "state",
    "strength",
    "max_request",
    "regula-approved",
    "fips-indicator",
    "updated-iv",
    "blocksize",
    // SHAKE digests: the output length, and what a digest answers about itself.
    "xoflen",
    "xof",
    "algid-absent",
    "block-size",
    // A cipher's TLS record parameters (tls_record.rs), and what it answers about itself.
    "tlsaad",
    "tlsaadpad",
    "tlsivfixed",
    "tlsivinv",
    "tlsivgen",
    "tls-multi",
    "custom-iv",
    "has-randkey",
    "no-such-parameter",
];
const TEXTS: &[&str] = &[
    "SHA256",
    "sha384",
    "SM3",
    "SHA3-256",
    "MD5",
    "AES-128-CBC",
    "AES-256-GCM",
    "SM4-CBC",
    "HMAC",
    "CMAC",
    "GB",
    "IEEE",
    "CS3",
    "CS1",
    "EXTRACT_ONLY",
    "EXPAND_ONLY",
    "COUNTER",
    "FEEDBACK",
    "",
];

type NewCtx = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type RandNewCtx =
    unsafe extern "C" fn(*mut c_void, *mut c_void, *const ffi::Dispatch) -> *mut c_void;
type Free = unsafe extern "C" fn(*mut c_void);
type Dup = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type SetParams = unsafe extern "C" fn(*mut c_void, *const Param) -> c_int;
type GetParams = unsafe extern "C" fn(*mut c_void, *mut Param) -> c_int;
type CipherInit =
    unsafe extern "C" fn(*mut c_void, *const u8, usize, *const u8, usize, *const Param) -> c_int;
type MacInit = unsafe extern "C" fn(*mut c_void, *const u8, usize, *const Param) -> c_int;
type DigestInit = unsafe extern "C" fn(*mut c_void, *const Param) -> c_int;
type Update = unsafe extern "C" fn(*mut c_void, *const u8, usize) -> c_int;
type CipherUpdate =
    unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize, *const u8, usize) -> c_int;
type Final = unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize) -> c_int;
type Derive = unsafe extern "C" fn(*mut c_void, *mut u8, usize, *const Param) -> c_int;
type Generate =
    unsafe extern "C" fn(*mut c_void, *mut u8, usize, c_uint, c_int, *const u8, usize) -> c_int;

thread_local! {
    static HOST: Host = Host::load("default").expect("the provider loads");
}

fuzz_target!(|data: &[u8]| {
    HOST.with(|host| drive(host, &mut Input(data)));
    assert!(
        !host::take_reasons().contains(&(Reason::Internal as u32)),
        "the provider caught a panic"
    );
});

fn drive(host: &Host, input: &mut Input<'_>) {
    let operation = *input.pick(&[
        ffi::OP_DIGEST,
        ffi::OP_CIPHER,
        ffi::OP_MAC,
        ffi::OP_KDF,
        ffi::OP_RAND,
    ]);
    let offered = host.offered(operation);
    if offered.is_empty() {
        return;
    }
    let table = input.pick(&offered).dispatch;
    // SAFETY: every call below passes what libcrypto would: live contexts, terminated parameter
    // arrays, and buffers of exactly the sizes claimed.
    unsafe {
        let mut ctx = if operation == ffi::OP_RAND {
            match get::<RandNewCtx>(table, ffi::RAND_NEWCTX) {
                Some(new) => new(host.provctx(), std::ptr::null_mut(), std::ptr::null()),
                None => return,
            }
        } else {
            match get::<NewCtx>(table, 1) {
                Some(new) => new(host.provctx()),
                None => return,
            }
        };
        if ctx.is_null() {
            return;
        }
        let (set_id, get_id, dup_id, free_id) = match operation {
            ffi::OP_DIGEST => (
                0,
                ffi::DIGEST_GET_CTX_PARAMS,
                ffi::DIGEST_DUPCTX,
                ffi::DIGEST_FREECTX,
            ),
            ffi::OP_CIPHER => (
                ffi::CIPHER_SET_CTX_PARAMS,
                ffi::CIPHER_GET_CTX_PARAMS,
                ffi::CIPHER_DUPCTX,
                ffi::CIPHER_FREECTX,
            ),
            ffi::OP_MAC => (
                ffi::MAC_SET_CTX_PARAMS,
                ffi::MAC_GET_CTX_PARAMS,
                ffi::MAC_DUPCTX,
                ffi::MAC_FREECTX,
            ),
            ffi::OP_KDF => (
                ffi::KDF_SET_CTX_PARAMS,
                ffi::KDF_GET_CTX_PARAMS,
                ffi::KDF_DUPCTX,
                ffi::KDF_FREECTX,
            ),
            _ => (0, ffi::RAND_GET_CTX_PARAMS, 0, ffi::RAND_FREECTX),
        };
        for _ in 0..(input.byte() % 12) {
            match input.byte() % 7 {
                0 => {
                    let array = params(input, KEYS, TEXTS);
                    if let Some(set) = get::<SetParams>(table, set_id) {
                        set(ctx, array.params.as_ptr());
                    }
                }
                1 => {
                    let mut array = params(input, KEYS, TEXTS);
                    if let Some(get_params) = get::<GetParams>(table, get_id) {
                        get_params(ctx, array.params.as_mut_ptr());
                    }
                }
                2 => {
                    let key = input.bytes(80);
                    let iv = input.bytes(40);
                    let array = params(input, KEYS, TEXTS);
                    let null_key = input.byte() % 4 == 0;
                    let key_ptr = if null_key {
                        std::ptr::null()
                    } else {
                        key.as_ptr()
                    };
                    match operation {
                        ffi::OP_CIPHER => {
                            let id = if input.byte() % 2 == 0 {
                                ffi::CIPHER_ENCRYPT_INIT
                            } else {
                                ffi::CIPHER_DECRYPT_INIT
                            };
                            if let Some(init) = get::<CipherInit>(table, id) {
                                init(
                                    ctx,
                                    key_ptr,
                                    key.len(),
                                    iv.as_ptr(),
                                    iv.len(),
                                    array.params.as_ptr(),
                                );
                            }
                        }
                        ffi::OP_MAC => {
                            if let Some(init) = get::<MacInit>(table, ffi::MAC_INIT) {
                                init(ctx, key_ptr, key.len(), array.params.as_ptr());
                            }
                        }
                        ffi::OP_DIGEST => {
                            if let Some(init) = get::<DigestInit>(table, ffi::DIGEST_INIT) {
                                init(ctx, array.params.as_ptr());
                            }
                        }
                        _ => {}
                    }
                }
                3 => {
                    let data = input.bytes(200);
                    match operation {
                        ffi::OP_CIPHER => {
                            let room = data.len() + (input.byte() % 40) as usize;
                            let mut out = vec![0u8; room];
                            let mut written = 0usize;
                            let no_output = input.byte() % 5 == 0;
                            if let Some(update) = get::<CipherUpdate>(table, ffi::CIPHER_UPDATE) {
                                let out_ptr = if no_output {
                                    std::ptr::null_mut()
                                } else {
                                    out.as_mut_ptr()
                                };
                                update(
                                    ctx,
                                    out_ptr,
                                    &mut written,
                                    if no_output { 0 } else { room },
                                    data.as_ptr(),
                                    data.len(),
                                );
                                assert!(written <= room || no_output);
                            }
                        }
                        ffi::OP_DIGEST | ffi::OP_MAC => {
                            let id = if operation == ffi::OP_DIGEST {
                                ffi::DIGEST_UPDATE
                            } else {
                                ffi::MAC_UPDATE
                            };
                            if let Some(update) = get::<Update>(table, id) {
                                update(ctx, data.as_ptr(), data.len());
                            }
                        }
                        _ => {}
                    }
                }
                4 => {
                    let room = (input.byte() % 80) as usize;
                    let mut out = vec![0u8; room];
                    let mut written = 0usize;
                    match operation {
                        ffi::OP_KDF => {
                            let array = params(input, KEYS, TEXTS);
                            if let Some(derive) = get::<Derive>(table, ffi::KDF_DERIVE) {
                                derive(ctx, out.as_mut_ptr(), room, array.params.as_ptr());
                            }
                        }
                        ffi::OP_RAND => {
                            if let Some(generate) = get::<Generate>(table, ffi::RAND_GENERATE) {
                                generate(ctx, out.as_mut_ptr(), room, 128, 0, std::ptr::null(), 0);
                            }
                        }
                        _ => {
                            let id = match operation {
                                ffi::OP_CIPHER => ffi::CIPHER_FINAL,
                                ffi::OP_MAC => ffi::MAC_FINAL,
                                _ => ffi::DIGEST_FINAL,
                            };
                            if let Some(finalize) = get::<Final>(table, id) {
                                if finalize(ctx, out.as_mut_ptr(), &mut written, room) == 1 {
                                    assert!(written <= room);
                                }
                            }
                        }
                    }
                }
                5 => {
                    if let Some(dup) = get::<Dup>(table, dup_id) {
                        let copy = dup(ctx);
                        if !copy.is_null() {
                            if let Some(free) = get::<Free>(table, free_id) {
                                free(ctx);
                            }
                            ctx = copy;
                        }
                    }
                }
                _ => {
                    if operation == ffi::OP_RAND {
                        type Instantiate = unsafe extern "C" fn(
                            *mut c_void,
                            c_uint,
                            c_int,
                            *const u8,
                            usize,
                            *const Param,
                        ) -> c_int;
                        if let Some(instantiate) = get::<Instantiate>(table, ffi::RAND_INSTANTIATE)
                        {
                            instantiate(ctx, 256, 0, std::ptr::null(), 0, std::ptr::null());
                        }
                    }
                }
            }
        }
        if let Some(free) = get::<Free>(table, free_id) {
            free(ctx);
        }
    }
}
