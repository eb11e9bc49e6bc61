//! The C types and numbers of OpenSSL 3's provider interface (`openssl/core.h`,
//! `core_dispatch.h`, `core_names.h`), written out so that the provider links no libcrypto: the
//! library that loads it hands over every function it may call.

use std::os::raw::{c_char, c_int, c_uint, c_void};

/// `OSSL_DISPATCH`: one function of a table, ended by a zero `function_id`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Dispatch {
    pub function_id: c_int,
    pub function: Option<unsafe extern "C" fn()>,
}

/// `OSSL_PARAM`.
#[repr(C)]
pub struct Param {
    pub key: *const c_char,
    pub data_type: c_uint,
    pub data: *mut c_void,
    pub data_size: usize,
    pub return_size: usize,
}

impl Param {
    /// The entry that ends an `OSSL_PARAM` array (a null key).
    pub const END: Param = Param {
        key: std::ptr::null(),
        data_type: 0,
        data: std::ptr::null_mut(),
        data_size: 0,
        return_size: 0,
    };
}

/// `OSSL_ALGORITHM`.
#[repr(C)]
pub struct Algorithm {
    pub names: *const c_char,
    pub properties: *const c_char,
    pub implementation: *const Dispatch,
    pub description: *const c_char,
}

/// `OSSL_ITEM` (reason strings).
#[repr(C)]
pub struct Item {
    pub id: c_uint,
    pub ptr: *mut c_void,
}

pub type CoreHandle = c_void;

// OSSL_PARAM data types.
pub const PARAM_INTEGER: c_uint = 1;
pub const PARAM_UNSIGNED_INTEGER: c_uint = 2;
pub const PARAM_UTF8_STRING: c_uint = 4;
pub const PARAM_OCTET_STRING: c_uint = 5;
pub const PARAM_UTF8_PTR: c_uint = 6;
/// `OSSL_PARAM_UNMODIFIED`: `return_size` before anyone set the parameter.
pub const PARAM_UNMODIFIED: usize = usize::MAX;

// Functions the core offers the provider.
pub const CORE_GET_PARAMS: c_int = 2;
pub const CORE_GET_LIBCTX: c_int = 4;
pub const CORE_NEW_ERROR: c_int = 5;
pub const CORE_SET_ERROR_DEBUG: c_int = 6;
pub const CORE_VSET_ERROR: c_int = 7;
/// OpenSSL 3.4+: the application's indicator callback (`OSSL_INDICATOR_set_callback`).
pub const CORE_INDICATOR_CB: c_int = 95;

// Functions of the provider itself.
pub const PROVIDER_TEARDOWN: c_int = 1024;
pub const PROVIDER_GETTABLE_PARAMS: c_int = 1025;
pub const PROVIDER_GET_PARAMS: c_int = 1026;
pub const PROVIDER_QUERY_OPERATION: c_int = 1027;
pub const PROVIDER_GET_REASON_STRINGS: c_int = 1029;
pub const PROVIDER_GET_CAPABILITIES: c_int = 1030;
pub const PROVIDER_SELF_TEST: c_int = 1031;

// Operations.
pub const OP_DIGEST: c_int = 1;
pub const OP_CIPHER: c_int = 2;
pub const OP_MAC: c_int = 3;
pub const OP_KDF: c_int = 4;
pub const OP_RAND: c_int = 5;
pub const OP_KEYMGMT: c_int = 10;
pub const OP_KEYEXCH: c_int = 11;
pub const OP_SIGNATURE: c_int = 12;

// OSSL_OP_DIGEST.
pub const DIGEST_NEWCTX: c_int = 1;
pub const DIGEST_INIT: c_int = 2;
pub const DIGEST_UPDATE: c_int = 3;
pub const DIGEST_FINAL: c_int = 4;
pub const DIGEST_DIGEST: c_int = 5;
pub const DIGEST_FREECTX: c_int = 6;
pub const DIGEST_DUPCTX: c_int = 7;
pub const DIGEST_GET_PARAMS: c_int = 8;
pub const DIGEST_SET_CTX_PARAMS: c_int = 9;
pub const DIGEST_GET_CTX_PARAMS: c_int = 10;
pub const DIGEST_GETTABLE_PARAMS: c_int = 11;
pub const DIGEST_SETTABLE_CTX_PARAMS: c_int = 12;
pub const DIGEST_GETTABLE_CTX_PARAMS: c_int = 13;
/// OpenSSL 3.3+: more XOF output, any number of times (`EVP_DigestSqueeze`).
pub const DIGEST_SQUEEZE: c_int = 14;

// OSSL_OP_CIPHER.
pub const CIPHER_NEWCTX: c_int = 1;
pub const CIPHER_ENCRYPT_INIT: c_int = 2;
pub const CIPHER_DECRYPT_INIT: c_int = 3;
pub const CIPHER_UPDATE: c_int = 4;
pub const CIPHER_FINAL: c_int = 5;
pub const CIPHER_CIPHER: c_int = 6;
pub const CIPHER_FREECTX: c_int = 7;
pub const CIPHER_DUPCTX: c_int = 8;
pub const CIPHER_GET_PARAMS: c_int = 9;
pub const CIPHER_GET_CTX_PARAMS: c_int = 10;
pub const CIPHER_SET_CTX_PARAMS: c_int = 11;
pub const CIPHER_GETTABLE_PARAMS: c_int = 12;
pub const CIPHER_GETTABLE_CTX_PARAMS: c_int = 13;
pub const CIPHER_SETTABLE_CTX_PARAMS: c_int = 14;

// OSSL_OP_MAC.
pub const MAC_NEWCTX: c_int = 1;
pub const MAC_DUPCTX: c_int = 2;
pub const MAC_FREECTX: c_int = 3;
pub const MAC_INIT: c_int = 4;
pub const MAC_UPDATE: c_int = 5;
pub const MAC_FINAL: c_int = 6;
pub const MAC_GET_PARAMS: c_int = 7;
pub const MAC_GET_CTX_PARAMS: c_int = 8;
pub const MAC_SET_CTX_PARAMS: c_int = 9;
pub const MAC_GETTABLE_PARAMS: c_int = 10;
pub const MAC_GETTABLE_CTX_PARAMS: c_int = 11;
pub const MAC_SETTABLE_CTX_PARAMS: c_int = 12;

// OSSL_OP_KDF.
pub const KDF_NEWCTX: c_int = 1;
pub const KDF_DUPCTX: c_int = 2;
pub const KDF_FREECTX: c_int = 3;
pub const KDF_RESET: c_int = 4;
pub const KDF_DERIVE: c_int = 5;
pub const KDF_GETTABLE_PARAMS: c_int = 6;
pub const KDF_GETTABLE_CTX_PARAMS: c_int = 7;
pub const KDF_SETTABLE_CTX_PARAMS: c_int = 8;
pub const KDF_GET_PARAMS: c_int = 9;
pub const KDF_GET_CTX_PARAMS: c_int = 10;
pub const KDF_SET_CTX_PARAMS: c_int = 11;

// OSSL_OP_RAND.
pub const RAND_NEWCTX: c_int = 1;
pub const RAND_FREECTX: c_int = 2;
pub const RAND_INSTANTIATE: c_int = 3;
pub const RAND_UNINSTANTIATE: c_int = 4;
pub const RAND_GENERATE: c_int = 5;
pub const RAND_RESEED: c_int = 6;
pub const RAND_ENABLE_LOCKING: c_int = 8;
pub const RAND_LOCK: c_int = 9;
pub const RAND_UNLOCK: c_int = 10;
pub const RAND_GETTABLE_CTX_PARAMS: c_int = 12;
pub const RAND_GET_CTX_PARAMS: c_int = 15;

// OSSL_OP_KEYMGMT.
pub const KEYMGMT_NEW: c_int = 1;
pub const KEYMGMT_GEN_INIT: c_int = 2;
pub const KEYMGMT_GEN_SET_TEMPLATE: c_int = 3;
pub const KEYMGMT_GEN_SET_PARAMS: c_int = 4;
pub const KEYMGMT_GEN_SETTABLE_PARAMS: c_int = 5;
pub const KEYMGMT_GEN: c_int = 6;
pub const KEYMGMT_GEN_CLEANUP: c_int = 7;
pub const KEYMGMT_FREE: c_int = 10;
pub const KEYMGMT_GET_PARAMS: c_int = 11;
pub const KEYMGMT_GETTABLE_PARAMS: c_int = 12;
pub const KEYMGMT_SET_PARAMS: c_int = 13;
pub const KEYMGMT_SETTABLE_PARAMS: c_int = 14;
pub const KEYMGMT_QUERY_OPERATION_NAME: c_int = 20;
pub const KEYMGMT_HAS: c_int = 21;
pub const KEYMGMT_VALIDATE: c_int = 22;
pub const KEYMGMT_MATCH: c_int = 23;
pub const KEYMGMT_IMPORT: c_int = 40;
pub const KEYMGMT_IMPORT_TYPES: c_int = 41;
pub const KEYMGMT_EXPORT: c_int = 42;
pub const KEYMGMT_EXPORT_TYPES: c_int = 43;
pub const KEYMGMT_DUP: c_int = 44;

// OSSL_KEYMGMT_SELECT_* bits.
pub const SELECT_PRIVATE_KEY: c_int = 0x01;
pub const SELECT_PUBLIC_KEY: c_int = 0x02;
pub const SELECT_DOMAIN_PARAMETERS: c_int = 0x04;
pub const SELECT_OTHER_PARAMETERS: c_int = 0x80;

// OSSL_OP_KEYEXCH.
pub const KEYEXCH_NEWCTX: c_int = 1;
pub const KEYEXCH_INIT: c_int = 2;
pub const KEYEXCH_DERIVE: c_int = 3;
pub const KEYEXCH_SET_PEER: c_int = 4;
pub const KEYEXCH_FREECTX: c_int = 5;
pub const KEYEXCH_DUPCTX: c_int = 6;
pub const KEYEXCH_SET_CTX_PARAMS: c_int = 7;
pub const KEYEXCH_SETTABLE_CTX_PARAMS: c_int = 8;
pub const KEYEXCH_GET_CTX_PARAMS: c_int = 9;
pub const KEYEXCH_GETTABLE_CTX_PARAMS: c_int = 10;

// OSSL_OP_SIGNATURE.
pub const SIGNATURE_NEWCTX: c_int = 1;
pub const SIGNATURE_SIGN_INIT: c_int = 2;
pub const SIGNATURE_SIGN: c_int = 3;
pub const SIGNATURE_VERIFY_INIT: c_int = 4;
pub const SIGNATURE_VERIFY: c_int = 5;
pub const SIGNATURE_DIGEST_SIGN_INIT: c_int = 8;
pub const SIGNATURE_DIGEST_SIGN_UPDATE: c_int = 9;
pub const SIGNATURE_DIGEST_SIGN_FINAL: c_int = 10;
pub const SIGNATURE_DIGEST_SIGN: c_int = 11;
pub const SIGNATURE_DIGEST_VERIFY_INIT: c_int = 12;
pub const SIGNATURE_DIGEST_VERIFY_UPDATE: c_int = 13;
pub const SIGNATURE_DIGEST_VERIFY_FINAL: c_int = 14;
pub const SIGNATURE_DIGEST_VERIFY: c_int = 15;
pub const SIGNATURE_FREECTX: c_int = 16;
pub const SIGNATURE_DUPCTX: c_int = 17;
pub const SIGNATURE_GET_CTX_PARAMS: c_int = 18;
pub const SIGNATURE_GETTABLE_CTX_PARAMS: c_int = 19;
pub const SIGNATURE_SET_CTX_PARAMS: c_int = 20;
pub const SIGNATURE_SETTABLE_CTX_PARAMS: c_int = 21;
// OpenSSL 3.4's message signatures (EVP_PKEY_sign_message_init and its kin).
pub const SIGNATURE_SIGN_MESSAGE_INIT: c_int = 27;
pub const SIGNATURE_SIGN_MESSAGE_UPDATE: c_int = 28;
pub const SIGNATURE_SIGN_MESSAGE_FINAL: c_int = 29;
pub const SIGNATURE_VERIFY_MESSAGE_INIT: c_int = 30;
pub const SIGNATURE_VERIFY_MESSAGE_UPDATE: c_int = 31;
pub const SIGNATURE_VERIFY_MESSAGE_FINAL: c_int = 32;

/// `OSSL_CALLBACK`: how key export and capabilities hand parameter arrays back.
pub type Callback = unsafe extern "C" fn(*const Param, *mut c_void) -> c_int;

// TLS versions as libssl numbers them (`TLS1_VERSION`, `DTLS1_VERSION`).
pub const TLS1_VERSION: c_int = 0x0301;
pub const DTLS1_VERSION: c_int = 0xFEFF;

/// `EVP_RAND_STATE_READY`.
pub const RAND_STATE_READY: c_int = 1;

/// `OSSL_FUNC_core_get_params`.
pub type CoreGetParams = unsafe extern "C" fn(*const CoreHandle, *mut Param) -> c_int;
/// `OSSL_FUNC_core_new_error`.
pub type CoreNewError = unsafe extern "C" fn(*const CoreHandle);
/// `OSSL_FUNC_core_set_error_debug`.
pub type CoreSetErrorDebug =
    unsafe extern "C" fn(*const CoreHandle, *const c_char, c_int, *const c_char);
/// `OSSL_FUNC_core_vset_error`. The `va_list` is never read: the format given has no
/// conversions (see `error::raise`), so a zeroed stand-in of the right size is passed. On
/// x86-64 `va_list` is an array and decays to a pointer; on aarch64 it is a 32-byte struct,
/// which AAPCS64 passes by reference. A pointer is right for both.
pub type CoreVsetError =
    unsafe extern "C" fn(*const CoreHandle, u32, *const c_char, *mut VaListStandIn);

/// Zeroed storage the size of the largest `va_list` of the supported targets.
#[repr(C, align(16))]
pub struct VaListStandIn(pub [u64; 4]);

/// Casts any `extern "C"` function to the untyped pointer a [`Dispatch`] holds.
#[macro_export]
macro_rules! dispatch_fn {
    ($id:expr, $f:expr) => {
        $crate::ffi::Dispatch {
            function_id: $id,
            function: Some({
                let address = $f as *const ();
                // SAFETY: `address` is the address of an `extern "C"` function.
                unsafe { $crate::ffi::untyped(address) }
            }),
        }
    };
}

/// The untyped function pointer of a [`Dispatch`] entry, from a function's address.
///
/// # Safety
/// `function` is the address of an `extern "C"` function. OpenSSL casts it back to the
/// signature the entry's id names, so each table must pair an id with a function of exactly
/// that signature.
pub const unsafe fn untyped(function: *const ()) -> unsafe extern "C" fn() {
    // SAFETY: by the contract above.
    unsafe { std::mem::transmute::<*const (), unsafe extern "C" fn()>(function) }
}

/// The end of a dispatch table.
pub const DISPATCH_END: Dispatch = Dispatch {
    function_id: 0,
    function: None,
};

/// A dispatch table made of parts (a module's own entries and the shared ones), ended by
/// [`DISPATCH_END`]; `N` is the entries' count plus one, checked when the table is built.
pub const fn joined<const N: usize>(parts: &[&[Dispatch]]) -> [Dispatch; N] {
    let mut table = [DISPATCH_END; N];
    let mut at = 0;
    let mut part = 0;
    while part < parts.len() {
        let mut i = 0;
        while i < parts[part].len() {
            table[at] = parts[part][i];
            at += 1;
            i += 1;
        }
        part += 1;
    }
    assert!(
        at + 1 == N,
        "a dispatch table's size is its entries and the end"
    );
    table
}

/// A table of pointers that are only read, shared between threads.
pub struct SyncTable<T>(pub T);
// SAFETY: the tables hold pointers to 'static, immutable data (names, function pointers).
unsafe impl<T> Sync for SyncTable<T> {}
// SAFETY: as above.
unsafe impl<T> Send for SyncTable<T> {}

pub type Void = c_void;
