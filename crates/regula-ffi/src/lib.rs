//! The C ABI of Regula (`libregula`, `regula.h`).
//!
//! Every function here is a thin shim over the `regula` crate's public API: it checks the C
//! arguments, calls the core, and turns the result into a status code, output bytes and a
//! service indicator. Approval, the error state and the indicator are the core's decisions, so a
//! C caller sees exactly what a Rust caller sees. No cryptography and no policy live here.
//!
//! Conventions, documented once for the whole header (`include/regula.h`):
//! - every function returns `REGULA_OK` (0) or a `REGULA_ERR_*` code, and on failure sets the
//!   thread's `regula_last_error_message()`;
//! - a NULL pointer with a non-zero length, a NULL handle or out-parameter, a misaligned
//!   pointer, or an impossible length is `REGULA_ERR_INVALID_INPUT`;
//! - a panic inside the library is caught at the boundary and returned as
//!   `REGULA_ERR_INTERNAL`; the module keeps serving;
//! - on failure, output buffers are wiped and output lengths are 0 (for
//!   `REGULA_ERR_BUFFER_TOO_SMALL`, the length needed), so nothing partial is ever returned;
//! - the optional `regula_indicator *` out-parameter is written only on success.
//!
//! Safety: the caller guarantees that pointers are valid for the lengths given and that handles
//! are live; the library checks everything it can (NULL, alignment, impossible lengths).

#![deny(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types)]
// The safety contract is the same for every entry point and is stated once in the header.
#![allow(clippy::missing_safety_doc)]

mod boundary;

// The header lists the entry points in this order: module, registry, symmetric, asymmetric.
mod module;

mod registry;

mod symmetric;

mod asymmetric;

#[cfg(feature = "bench")]
mod bench;

use std::ffi::{c_char, c_int};

pub use asymmetric::*;
pub use module::*;
pub use registry::*;
pub use symmetric::*;

/// Success.
pub const REGULA_OK: c_int = 0;
/// A cryptographic failure: an AEAD tag, MAC or signature did not verify, or the backend failed.
/// Deliberately says nothing more (CLI exit code 1).
pub const REGULA_ERR_CRYPTO: c_int = 1;
/// A usage or input error: NULL or misaligned pointer, impossible length, unknown algorithm,
/// wrong key or nonce length, an algorithm of another family, a policy file that does not
/// parse (CLI exit code 2).
pub const REGULA_ERR_INVALID_INPUT: c_int = 2;
/// The active policy does not allow this use of the algorithm (CLI exit code 3).
pub const REGULA_ERR_NOT_APPROVED: c_int = 3;
/// The module is in its error state after a failed self-test; every service is refused
/// (CLI exit code 4).
pub const REGULA_ERR_ERROR_STATE: c_int = 4;
/// The output buffer is too small; `*out_len` holds the size needed and nothing was written.
pub const REGULA_ERR_BUFFER_TOO_SMALL: c_int = 5;
/// An internal error (a panic caught at the C boundary). The module keeps serving.
pub const REGULA_ERR_INTERNAL: c_int = 6;

/// `regula_module_state`: the self-tests passed; services are offered as the policy allows.
pub const REGULA_STATE_OPERATIONAL: c_int = 1;
/// `regula_module_state`: a self-test failed; every service returns `REGULA_ERR_ERROR_STATE`.
pub const REGULA_STATE_ERROR: c_int = 2;

/// `regula_scope_indicator_state`: no operation since the last reset.
pub const REGULA_INDICATOR_UNSET: c_int = 0;
/// `regula_scope_indicator_state`: every operation since the last reset was approved.
pub const REGULA_INDICATOR_APPROVED: c_int = 1;
/// `regula_scope_indicator_state`: at least one operation was not approved (sticky until reset).
pub const REGULA_INDICATOR_NOT_APPROVED: c_int = 2;

/// The nonce the module generates, and the one every AEAD takes but AES-CCM (7 to 13 bytes).
pub const REGULA_AEAD_NONCE_LEN: usize = 12;
/// The default and largest AEAD tag (128 bits); AES-CCM keys may be made with a shorter one.
pub const REGULA_AEAD_TAG_LEN: usize = 16;
/// The largest digest (SHA-512, SHA3-512).
pub const REGULA_MAX_DIGEST_LEN: usize = 64;
/// The largest MAC tag (HMAC-SHA-512).
pub const REGULA_MAX_MAC_LEN: usize = 64;
/// Enough for any signature: ML-DSA-87's 4627 bytes (FIPS 204 Table 2) is the largest; RSA-8192
/// takes 1024, ECDSA and SM2 signatures are DER of at most 139 bytes.
pub const REGULA_MAX_SIGNATURE_LEN: usize = 4627;
/// The block-cipher IV length (AES and SM4; XTS tweak).
pub const REGULA_CIPHER_IV_LEN: usize = 16;

/// SM2 ciphertext layout (`regula_encrypt_to_public_key`, `regula_decrypt`): the DER
/// `SM2Cipher` of GM/T 0009-2012, what OpenSSL's `pkeyutl -encrypt` writes. The default.
pub const REGULA_SM2_CIPHERTEXT_ASN1: c_int = 0;
/// SM2 ciphertext layout: `04 ‖ x ‖ y ‖ C3 ‖ C2` (GB/T 32918.4-2016).
pub const REGULA_SM2_CIPHERTEXT_C1C3C2: c_int = 1;

/// The service indicator of one operation. The strings are static: valid for the life of the
/// process, never freed by the caller.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct regula_indicator {
    /// The algorithm's registry name, e.g. `"aes-128-gcm"`.
    pub algorithm: *const c_char,
    /// The service, e.g. `"encrypt"`, `"mac-generate"`, `"key-derivation"`.
    pub service: *const c_char,
    /// The name of the policy the module was loaded with, e.g. `"fips-140-3"`.
    pub policy: *const c_char,
    /// 1 when this use was approved by the policy, 0 when it was served but not approved.
    pub approved: c_int,
}

/// One fragment of a scatter/gather buffer (the layout of POSIX `struct iovec`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct regula_iovec {
    /// The fragment's first byte (may be NULL when `len` is 0).
    pub base: *mut u8,
    /// The fragment's length in bytes.
    pub len: usize,
}

/// The build: which AWS-LC, whether the FIPS 140-3 validated module is linked and in FIPS
/// mode. The strings are static.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct regula_info {
    /// Regula's version, e.g. `"0.1.0"`.
    pub version: *const c_char,
    /// The cryptographic backend, e.g. `"AWS-LC 5.12.0"` or `"AWS-LC FIPS 3.0.0"`.
    pub backend: *const c_char,
    /// 1 for the FIPS build (`--features fips`, aws-lc-fips-sys), 0 for the default build.
    pub fips_module_linked: c_int,
    /// 1 when AWS-LC runs in FIPS mode (`aws_lc_rs::try_fips_mode()`), i.e. the validated
    /// module is in use.
    pub fips_mode: c_int,
    /// The FIPS module version this build corresponds to, 0 if none.
    pub fips_module_version: u32,
}

/// The header promises that module, scope and key handles may be shared between threads, and
/// that a digest context may move between them; this fails to compile if that stops being so.
#[allow(dead_code)]
fn handles_are_thread_safe() {
    fn shared<T: Send + Sync>() {}
    fn movable<T: Send>() {}
    shared::<regula_module>();
    shared::<regula_scope>();
    shared::<regula_mac_key>();
    shared::<regula_aead_key>();
    shared::<regula_cipher_key>();
    shared::<regula_signing_key>();
    shared::<regula_agreement_key>();
    shared::<regula_kem_key>();
    movable::<regula_digest_ctx>();
}
