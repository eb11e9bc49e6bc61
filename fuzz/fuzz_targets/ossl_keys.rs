//! The OpenSSL provider's keys under fuzzed input. Loaded beside OpenSSL's `base` provider,
//! Regula receives every key a PEM or DER decoder read as `OSSL_PARAM`s through its key
//! managers' `import` (and a TLS peer's key share through `set_params`); this target feeds
//! those entry points what a hostile file or peer could make them carry — any group name,
//! points and scalars of any length and value, RSA integers of any size, any selection — then
//! uses the keys as libcrypto would: `has`, `validate`, `match`, `get_params` with buffers of any
//! size, `export`, `dup`, and the signature and key-exchange operations the key manager names
//! (`query_operation_name`, as `EVP_PKEY_sign_init` finds them). Keys are also generated, so
//! that valid keys meet hostile peers and signatures. Refusals are expected; a caught panic
//! (the provider's `internal error` reason) or a memory error (AddressSanitizer) is a failure.

#![no_main]

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Mutex;

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
    "group",
    "pub",
    "priv",
    "encoded-pub-key",
    "point-format",
    "n",
    "e",
    "d",
    "rsa-factor1",
    "rsa-factor2",
    "rsa-exponent1",
    "rsa-exponent2",
    "rsa-coefficient1",
    "bits",
    "primes",
    "digest",
    "properties",
    "pad-mode",
    "saltlen",
    "mgf1-digest",
    "max-size",
    "security-bits",
    "default-digest",
    "algorithm-id",
    "pad",
    "kdf-type",
    "kdf-digest",
    "kdf-outlen",
    "kdf-ukm",
    "use-cofactor-flag",
    "rsa-factor3",
    "encoding",
    "decoded-from-explicit",
    "dhkem-ikm",
    // ML-DSA and ML-KEM keys: the seed they are generated or imported from.
    "seed",
    "security-category",
    "mandatory-digest",
    // ML-DSA signature parameters (and "signature", the one a message verification checks).
    "signature",
    "context-string",
    "deterministic",
    "test-entropy",
    "mu",
    "message-encoding",
    // SM2 signature parameters.
    "distid",
    "sm2-za",
    "digest-size",
    "no-such-parameter",
];
const TEXTS: &[&str] = &[
    "P-256",
    "prime256v1",
    "secp384r1",
    "P-521",
    "X25519",
    "ED25519",
    "SM2",
    "brainpoolP256r1",
    "SHA256",
    "SHA384",
    "SHA1",
    "SM3",
    "pss",
    "pkcs1",
    "none",
    "uncompressed",
    "compressed",
    "",
];
const SELECTIONS: &[c_int] = &[
    KEYPAIR,
    ffi::SELECT_PUBLIC_KEY | ffi::SELECT_DOMAIN_PARAMETERS,
    ffi::SELECT_PRIVATE_KEY,
    ffi::SELECT_DOMAIN_PARAMETERS,
    0x87,
    0,
];

type New = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type SignatureNew = unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void;
type Free = unsafe extern "C" fn(*mut c_void);
type GenInit = unsafe extern "C" fn(*mut c_void, c_int, *const Param) -> *mut c_void;
type Gen = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void) -> *mut c_void;
type Import = unsafe extern "C" fn(*mut c_void, c_int, *const Param) -> c_int;
type Export = unsafe extern "C" fn(*mut c_void, c_int, ffi::Callback, *mut c_void) -> c_int;
type Has = unsafe extern "C" fn(*const c_void, c_int) -> c_int;
type Validate = unsafe extern "C" fn(*const c_void, c_int, c_int) -> c_int;
type Match = unsafe extern "C" fn(*const c_void, *const c_void, c_int) -> c_int;
type Dup = unsafe extern "C" fn(*const c_void, c_int) -> *mut c_void;
type GetParams = unsafe extern "C" fn(*mut c_void, *mut Param) -> c_int;
type SetParams = unsafe extern "C" fn(*mut c_void, *const Param) -> c_int;
type QueryName = unsafe extern "C" fn(c_int) -> *const c_char;
type DigestSignInit =
    unsafe extern "C" fn(*mut c_void, *const c_char, *mut c_void, *const Param) -> c_int;
type Update = unsafe extern "C" fn(*mut c_void, *const u8, usize) -> c_int;
type SetCtxParams = unsafe extern "C" fn(*mut c_void, *const Param) -> c_int;
type SignFinal = unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize) -> c_int;
type VerifyFinal = unsafe extern "C" fn(*mut c_void, *const u8, usize) -> c_int;
type KeyInit = unsafe extern "C" fn(*mut c_void, *mut c_void, *const Param) -> c_int;
type SetPeer = unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int;
type Derive = unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize) -> c_int;

thread_local! {
    /// The permissive policy (every key type) and fips-140-3 (its limits: no RSA below 2048
    /// bits, no X25519).
    static HOSTS: [Host; 2] = [
        Host::load("default").expect("the provider loads"),
        Host::load("fips-140-3").expect("the provider loads under fips-140-3"),
    ];
}

fuzz_target!(|data: &[u8]| {
    HOSTS.with(|hosts| {
        let mut input = Input(data);
        let host = input.pick(hosts);
        drive(host, &mut input)
    });
    assert!(
        !host::take_reasons().contains(&(Reason::Internal as u32)),
        "the provider caught a panic"
    );
});

/// Reads every value an exported parameter array points to, so AddressSanitizer sees any
/// length that overstates its buffer.
unsafe extern "C" fn read_all(params: *const Param, _arg: *mut c_void) -> c_int {
    let mut cursor = params;
    let mut sum = 0u8;
    // SAFETY: a terminated array from the provider, each entry's data `data_size` bytes long.
    unsafe {
        while !(*cursor).key.is_null() {
            let param = &*cursor;
            if !param.data.is_null() {
                let bytes = std::slice::from_raw_parts(param.data as *const u8, param.data_size);
                sum ^= bytes.iter().fold(0, |acc, b| acc ^ b);
            }
            cursor = cursor.add(1);
        }
    }
    std::hint::black_box(sum);
    1
}

/// A valid key pair of each key manager, generated once per process (RSA generation is far
/// too slow to repeat for every input): inputs get copies of it through `dup`. Kept for the
/// life of the process (a static, so the leak checker sees them reachable), by key manager
/// table and provider context.
static GENERATED: Mutex<Vec<((usize, usize), usize)>> = Mutex::new(Vec::new());

/// The key manager's generated key pair (P-256 for "EC"), or null if it makes none.
unsafe fn generated(table: *const ffi::Dispatch, host: &Host) -> *mut c_void {
    let slot = (table as usize, host.provctx() as usize);
    let mut cache = GENERATED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&(_, key)) = cache.iter().find(|(known, _)| *known == slot) {
        return key as *mut c_void;
    }
    let group = CString::new("group").unwrap_or_default();
    let p256 = CString::new("P-256").unwrap_or_default();
    let with_group = [
        Param {
            key: group.as_ptr(),
            data_type: ffi::PARAM_UTF8_STRING,
            data: p256.as_ptr() as *mut c_void,
            data_size: 5,
            return_size: ffi::PARAM_UNMODIFIED,
        },
        Param::END,
    ];
    let mut key = std::ptr::null_mut();
    // SAFETY: libcrypto's calls: the provider's own context, terminated arrays.
    unsafe {
        if let (Some(init), Some(gen_key), Some(cleanup)) = (
            get::<GenInit>(table, ffi::KEYMGMT_GEN_INIT),
            get::<Gen>(table, ffi::KEYMGMT_GEN),
            get::<Free>(table, ffi::KEYMGMT_GEN_CLEANUP),
        ) {
            for params in [with_group.as_ptr(), [Param::END].as_ptr()] {
                let genctx = init(host.provctx(), KEYPAIR, params);
                if !genctx.is_null() {
                    key = gen_key(genctx, std::ptr::null_mut(), std::ptr::null_mut());
                    cleanup(genctx);
                }
                if !key.is_null() {
                    break;
                }
            }
        }
    }
    cache.push((slot, key as usize));
    key
}

const KEYPAIR: c_int =
    ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY | ffi::SELECT_DOMAIN_PARAMETERS;

/// A key of `table`'s key manager: a copy of its generated key pair, a key generated with
/// fuzzed parameters (not RSA: too slow), or one imported from fuzzed parameters; null when the
/// provider refused.
unsafe fn make_key(
    table: *const ffi::Dispatch,
    host: &Host,
    names: &str,
    input: &mut Input<'_>,
) -> *mut c_void {
    // SAFETY: libcrypto's calls: the provider's own context, terminated arrays.
    unsafe {
        let selection = *input.pick(SELECTIONS);
        let array = params(input, KEYS, TEXTS);
        let how = input.byte() % 8;
        if how < 3 {
            let key = generated(table, host);
            return match (key.is_null(), get::<Dup>(table, ffi::KEYMGMT_DUP)) {
                (false, Some(dup)) => dup(key, selection),
                _ => std::ptr::null_mut(),
            };
        }
        if how == 3 && !names.contains("RSA") {
            let (Some(init), Some(gen_key)) = (
                get::<GenInit>(table, ffi::KEYMGMT_GEN_INIT),
                get::<Gen>(table, ffi::KEYMGMT_GEN),
            ) else {
                return std::ptr::null_mut();
            };
            let genctx = init(host.provctx(), selection, array.params.as_ptr());
            if genctx.is_null() {
                return std::ptr::null_mut();
            }
            if input.byte() % 2 == 0 {
                let more = params(input, KEYS, TEXTS);
                if let Some(set) = get::<SetParams>(table, ffi::KEYMGMT_GEN_SET_PARAMS) {
                    set(genctx, more.params.as_ptr());
                }
            }
            let key = gen_key(genctx, std::ptr::null_mut(), std::ptr::null_mut());
            if let Some(cleanup) = get::<Free>(table, ffi::KEYMGMT_GEN_CLEANUP) {
                cleanup(genctx);
            }
            key
        } else {
            let (Some(new), Some(import), Some(free)) = (
                get::<New>(table, ffi::KEYMGMT_NEW),
                get::<Import>(table, ffi::KEYMGMT_IMPORT),
                get::<Free>(table, ffi::KEYMGMT_FREE),
            ) else {
                return std::ptr::null_mut();
            };
            let key = new(host.provctx());
            if key.is_null() {
                return key;
            }
            if import(key, selection, array.params.as_ptr()) != 1 && input.byte() % 2 == 0 {
                // libcrypto frees a key whose import failed; sometimes keep using it, as a
                // key manager must stay safe on a half-filled key.
                free(key);
                return std::ptr::null_mut();
            }
            key
        }
    }
}

/// The provider's implementation of `operation` that a key of this key manager is used with:
/// the name `query_operation_name` answers, or the key manager's own first name.
fn operation_for(
    host: &Host,
    keymgmt: &host::Offered,
    operation: c_int,
) -> Option<*const ffi::Dispatch> {
    let own = keymgmt.names.split(':').next()?.to_owned();
    let name = host::function(keymgmt.dispatch, ffi::KEYMGMT_QUERY_OPERATION_NAME)
        .map(|f| {
            // SAFETY: the signature core_dispatch.h gives this id.
            let query = unsafe { std::mem::transmute::<unsafe extern "C" fn(), QueryName>(f) };
            // SAFETY: a static C string or null.
            let name = unsafe { query(operation) };
            if name.is_null() {
                own.clone()
            } else {
                // SAFETY: non-null, a C string the provider owns.
                unsafe { CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned()
            }
        })
        .unwrap_or(own);
    host.offered(operation)
        .into_iter()
        .find(|offer| {
            offer
                .names
                .split(':')
                .any(|n| n.eq_ignore_ascii_case(&name))
        })
        .map(|offer| offer.dispatch)
}

fn drive(host: &Host, input: &mut Input<'_>) {
    let keymgmts = host.offered(ffi::OP_KEYMGMT);
    if keymgmts.is_empty() {
        return;
    }
    let keymgmt = input.pick(&keymgmts);
    let table = keymgmt.dispatch;
    // SAFETY: every call below passes what libcrypto would: keys of this key manager, live
    // contexts, terminated parameter arrays, buffers of exactly the sizes claimed.
    unsafe {
        let Some(free) = get::<Free>(table, ffi::KEYMGMT_FREE) else {
            return;
        };
        let mut key = make_key(table, host, &keymgmt.names, input);
        if key.is_null() {
            return;
        }
        let other = make_key(table, host, &keymgmt.names, input);
        for _ in 0..(input.byte() % 8) {
            match input.byte() % 9 {
                0 => {
                    if let Some(has) = get::<Has>(table, ffi::KEYMGMT_HAS) {
                        has(key, *input.pick(SELECTIONS));
                    }
                }
                1 => {
                    if let Some(validate) = get::<Validate>(table, ffi::KEYMGMT_VALIDATE) {
                        validate(key, *input.pick(SELECTIONS), c_int::from(input.byte() % 2));
                    }
                }
                2 => {
                    if let (Some(matches), false) =
                        (get::<Match>(table, ffi::KEYMGMT_MATCH), other.is_null())
                    {
                        matches(key, other, *input.pick(SELECTIONS));
                    }
                }
                3 => {
                    let mut array = params(input, KEYS, TEXTS);
                    if let Some(get_params) = get::<GetParams>(table, ffi::KEYMGMT_GET_PARAMS) {
                        get_params(key, array.params.as_mut_ptr());
                    }
                }
                4 => {
                    let array = params(input, KEYS, TEXTS);
                    if let Some(set) = get::<SetParams>(table, ffi::KEYMGMT_SET_PARAMS) {
                        set(key, array.params.as_ptr());
                    }
                }
                5 => {
                    if let Some(export) = get::<Export>(table, ffi::KEYMGMT_EXPORT) {
                        export(key, *input.pick(SELECTIONS), read_all, std::ptr::null_mut());
                    }
                }
                6 => {
                    if let Some(dup) = get::<Dup>(table, ffi::KEYMGMT_DUP) {
                        let copy = dup(key, *input.pick(SELECTIONS));
                        if !copy.is_null() {
                            free(key);
                            key = copy;
                        }
                    }
                }
                7 => sign_and_verify(host, keymgmt, key, input),
                _ => {
                    if !other.is_null() {
                        derive(host, keymgmt, key, other, input);
                    }
                }
            }
        }
        free(key);
        if !other.is_null() {
            free(other);
        }
    }
}

/// A digest-sign of fuzzed data (sizes asked first, as libcrypto does), then a verification of
/// the signature, or of fuzzed bytes.
unsafe fn sign_and_verify(
    host: &Host,
    keymgmt: &host::Offered,
    key: *mut c_void,
    input: &mut Input<'_>,
) {
    let Some(table) = operation_for(host, keymgmt, ffi::OP_SIGNATURE) else {
        return;
    };
    // SAFETY: as in `drive`.
    unsafe {
        let (Some(new), Some(free)) = (
            get::<SignatureNew>(table, 1),
            get::<Free>(table, ffi::SIGNATURE_FREECTX),
        ) else {
            return;
        };
        let digest = CString::new(*input.pick(TEXTS)).unwrap_or_default();
        let digest_ptr = if input.byte() % 3 == 0 {
            std::ptr::null()
        } else {
            digest.as_ptr()
        };
        let message = input.bytes(200);
        let array = params(input, KEYS, TEXTS);
        let mut signature = Vec::new();
        let ctx = new(host.provctx(), std::ptr::null());
        if ctx.is_null() {
            return;
        }
        if let (Some(init), Some(update), Some(finish)) = (
            get::<DigestSignInit>(table, ffi::SIGNATURE_DIGEST_SIGN_INIT),
            get::<Update>(table, ffi::SIGNATURE_DIGEST_SIGN_UPDATE),
            get::<SignFinal>(table, ffi::SIGNATURE_DIGEST_SIGN_FINAL),
        ) {
            if init(ctx, digest_ptr, key, array.params.as_ptr()) == 1 {
                // Sometimes parameters between init and the message, as
                // EVP_PKEY_CTX_set_params passes them.
                if input.byte() % 2 == 0
                    && let Some(set) = get::<SetCtxParams>(table, ffi::SIGNATURE_SET_CTX_PARAMS)
                {
                    let more = params(input, KEYS, TEXTS);
                    set(ctx, more.params.as_ptr());
                }
                update(ctx, message.as_ptr(), message.len());
                let mut length = 0usize;
                if finish(ctx, std::ptr::null_mut(), &mut length, 0) == 1 && length <= 1 << 16 {
                    // Sometimes a buffer too small by the fuzzed amount.
                    let room = length.saturating_sub(usize::from(input.byte() % 4));
                    signature = vec![0u8; room];
                    let mut written = 0usize;
                    if finish(ctx, signature.as_mut_ptr(), &mut written, room) == 1 {
                        assert!(written <= room, "signature longer than its buffer");
                        signature.truncate(written);
                    } else {
                        signature.clear();
                    }
                }
            }
        }
        free(ctx);
        if input.byte() % 2 == 0 {
            signature = input.bytes(200).to_vec();
        }
        let ctx = new(host.provctx(), std::ptr::null());
        if ctx.is_null() {
            return;
        }
        if let (Some(init), Some(update), Some(verify)) = (
            get::<DigestSignInit>(table, ffi::SIGNATURE_DIGEST_VERIFY_INIT),
            get::<Update>(table, ffi::SIGNATURE_DIGEST_VERIFY_UPDATE),
            get::<VerifyFinal>(table, ffi::SIGNATURE_DIGEST_VERIFY_FINAL),
        ) {
            if init(ctx, digest_ptr, key, array.params.as_ptr()) == 1 {
                update(ctx, message.as_ptr(), message.len());
                verify(ctx, signature.as_ptr(), signature.len());
            }
        }
        free(ctx);
    }
}

/// A key agreement between two keys of the key manager (the second maybe public only, or
/// malformed), the output size asked first.
unsafe fn derive(
    host: &Host,
    keymgmt: &host::Offered,
    key: *mut c_void,
    peer: *mut c_void,
    input: &mut Input<'_>,
) {
    let Some(table) = operation_for(host, keymgmt, ffi::OP_KEYEXCH) else {
        return;
    };
    // SAFETY: as in `drive`.
    unsafe {
        let (Some(new), Some(free), Some(init), Some(set_peer), Some(derive)) = (
            get::<New>(table, ffi::KEYEXCH_NEWCTX),
            get::<Free>(table, ffi::KEYEXCH_FREECTX),
            get::<KeyInit>(table, ffi::KEYEXCH_INIT),
            get::<SetPeer>(table, ffi::KEYEXCH_SET_PEER),
            get::<Derive>(table, ffi::KEYEXCH_DERIVE),
        ) else {
            return;
        };
        let ctx = new(host.provctx());
        if ctx.is_null() {
            return;
        }
        let array = params(input, KEYS, TEXTS);
        if init(ctx, key, array.params.as_ptr()) == 1 && set_peer(ctx, peer) == 1 {
            let mut length = 0usize;
            if derive(ctx, std::ptr::null_mut(), &mut length, 0) == 1 && length <= 1 << 12 {
                let room = length.saturating_sub(usize::from(input.byte() % 4));
                let mut secret = vec![0u8; room];
                let mut written = 0usize;
                if derive(ctx, secret.as_mut_ptr(), &mut written, room) == 1 {
                    assert!(written <= room, "secret longer than its buffer");
                }
            }
        }
        free(ctx);
    }
}
