//! Regula as an OpenSSL 3 provider.
//!
//! OpenSSL loads `regula.so` from `openssl.cnf` (or `-provider regula`) and calls
//! `OSSL_provider_init`. The provider loads the module under the configured policy (`policy =
//! fips-140-3`, `gm`, `default`, `cnsa-2.0` or a policy file), runs its self-tests, and offers
//! OpenSSL exactly the algorithms that policy serves, named as the registry rows name them for
//! OpenSSL, with `fips=yes` on those it approves. Every operation calls the core's public API, so
//! it passes the policy and is counted by the service indicator like any other caller's.
//!
//! The provider links no libcrypto: the functions it calls back (errors, configuration) come
//! from the core's dispatch table, and `OSSL_PARAM` arrays are read and written here.

pub mod asym_cipher_calls;
pub mod capabilities;
pub mod cipher;
pub mod context;
pub mod digest;
pub mod error;
pub mod ffi;
pub mod host;
pub mod indicator;
pub mod kdf;
pub mod kem;
pub mod keydata_calls;
pub mod keyexch;
pub mod keymgmt;
pub mod mac;
pub mod mac_legacy;
pub mod mldsa;
pub mod mlkem_keymgmt;
pub mod names;
pub mod params;
pub mod provider;
pub mod provider_context;
pub mod rand;
pub mod rsa_oaep;
pub mod signature;
pub mod signature_calls;
pub mod sm2;
pub mod sm2_cipher;
pub mod tls13_ivs;
pub mod tls_record;

/// The bytes OpenSSL passes as `(pointer, length)`; a null pointer is an empty input.
///
/// # Safety
/// When `len` is not 0, `data` points to `len` readable bytes that outlive the returned slice.
pub(crate) unsafe fn input<'a>(data: *const u8, len: usize) -> &'a [u8] {
    if data.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: by the contract above.
        unsafe { std::slice::from_raw_parts(data, len) }
    }
}

/// Tells OpenSSL how many bytes were written, through its out-pointer `outl` (which may be
/// null: then nobody asked).
///
/// # Safety
/// `outl` is null or points to a writable `usize`.
pub(crate) unsafe fn report_len(outl: *mut usize, len: usize) {
    if !outl.is_null() {
        // SAFETY: by the contract above.
        unsafe { *outl = len };
    }
}

/// Whether the `a_len` bytes at `a` and the `b_len` bytes at `b` share any address.
pub(crate) fn ranges_overlap(a: *const u8, a_len: usize, b: *const u8, b_len: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a < b.saturating_add(b_len) && b < a.saturating_add(a_len)
}
