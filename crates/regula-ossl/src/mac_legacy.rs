//! The "HMAC" key manager and signature: HMAC reached as `EVP_DigestSign` over an HMAC
//! `EVP_PKEY` (`EVP_PKEY_new_raw_private_key_ex(…, "HMAC", …)`), as OpenSSL's providers offer
//! it beside `EVP_MAC`. libssl computes TLS 1.3 PSK binders this way, so a server or client
//! that resumes a session needs it from the provider that serves everything else. The MAC
//! itself is the MAC operation's HMAC ([`mac::Context`]): same rows, policy and indicator.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uchar, c_void};

use regula::{Family, Module, Policy};
use zeroize::Zeroizing;

use crate::context::Duplicate;
use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::mac;
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};

/// The key manager's and the signature's offer, when the policy serves an HMAC row.
pub fn offers(policy: &Policy) -> (Vec<Offer>, Vec<Offer>) {
    let rows: Vec<_> = served_rows(policy, Family::Mac)
        .filter(|row| {
            row.openssl
                .as_ref()
                .is_some_and(|name| name.canonical().eq_ignore_ascii_case("HMAC"))
        })
        .collect();
    if rows.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let offer = |what: &str, dispatch: &'static [Dispatch]| {
        Offer::for_rows(policy, &rows, "HMAC".to_owned(), what, dispatch)
    };
    (
        vec![offer("HMAC key management", &KEYMGMT.0)],
        vec![offer("HMAC as a signature", &SIGNATURE.0)],
    )
}

static KEYMGMT: ffi::SyncTable<[Dispatch; 10]> = ffi::SyncTable([
    crate::dispatch_fn!(ffi::KEYMGMT_NEW, new_key),
    crate::dispatch_fn!(ffi::KEYMGMT_FREE, crate::context::free::<Key>),
    crate::dispatch_fn!(ffi::KEYMGMT_QUERY_OPERATION_NAME, operation_name),
    crate::dispatch_fn!(ffi::KEYMGMT_HAS, has),
    crate::dispatch_fn!(ffi::KEYMGMT_MATCH, matches),
    crate::dispatch_fn!(ffi::KEYMGMT_IMPORT, import),
    crate::dispatch_fn!(ffi::KEYMGMT_IMPORT_TYPES, key_types),
    crate::dispatch_fn!(ffi::KEYMGMT_GET_PARAMS, get_params),
    crate::dispatch_fn!(ffi::KEYMGMT_GETTABLE_PARAMS, gettable_params),
    ffi::DISPATCH_END,
]);

static SIGNATURE: ffi::SyncTable<[Dispatch; 9]> = ffi::SyncTable([
    crate::dispatch_fn!(ffi::SIGNATURE_NEWCTX, new_signature),
    crate::dispatch_fn!(ffi::SIGNATURE_FREECTX, crate::context::free::<Signing>),
    crate::dispatch_fn!(ffi::SIGNATURE_DUPCTX, crate::context::duplicate::<Signing>),
    crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_SIGN_INIT, digest_sign_init),
    crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_SIGN_UPDATE, digest_sign_update),
    crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_SIGN_FINAL, digest_sign_final),
    crate::dispatch_fn!(ffi::SIGNATURE_GET_CTX_PARAMS, get_ctx_params),
    crate::dispatch_fn!(ffi::SIGNATURE_GETTABLE_CTX_PARAMS, gettable_ctx_params),
    ffi::DISPATCH_END,
]);

/// An HMAC key: its secret bytes, once imported.
struct Key {
    secret: Option<Zeroizing<Vec<u8>>>,
}

unsafe extern "C" fn new_key(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        match unsafe { ProviderContext::from_ptr(provctx) } {
            Some(_) => crate::context::into_raw(Key { secret: None }),
            None => std::ptr::null_mut(),
        }
    })
}

/// # Safety
/// As for [`crate::context::borrow`].
unsafe fn key<'a>(keydata: *const c_void) -> Result<&'a mut Key, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(keydata as *mut c_void, "HMAC key") }
}

unsafe extern "C" fn operation_name(operation: c_int) -> *const c_char {
    if operation == ffi::OP_SIGNATURE {
        c"HMAC".as_ptr()
    } else {
        std::ptr::null()
    }
}

/// An HMAC key is all private: it has what is asked when it holds its secret, or when only
/// the (absent) domain parameters are asked.
unsafe extern "C" fn has(keydata: *const c_void, selection: c_int) -> c_int {
    error::guard(0, || {
        // SAFETY: a key of this key manager.
        let Ok(key) = (unsafe { key(keydata) }) else {
            return 0;
        };
        let wants_key = selection & (ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY) != 0;
        c_int::from(!wants_key || key.secret.is_some())
    })
}

unsafe extern "C" fn matches(
    first: *const c_void,
    second: *const c_void,
    selection: c_int,
) -> c_int {
    error::guard(0, || {
        // SAFETY: two keys of this key manager.
        let (Ok(first), Ok(second)) = (unsafe { key(first) }, unsafe { key(second) }) else {
            return 0;
        };
        if selection & (ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY) == 0 {
            return 1;
        }
        match (&first.secret, &second.secret) {
            (Some(a), Some(b)) => c_int::from(constant_time_eq(a, b)),
            _ => 0,
        }
    })
}

/// Equal secrets, compared without an early exit.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `priv`: the secret (what `EVP_PKEY_new_raw_private_key_ex` passes).
unsafe extern "C" fn import(keydata: *mut c_void, selection: c_int, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a key of this key manager and a terminated array (or null).
        let (key, params) = unsafe { (key(keydata)?, Params::new(params)) };
        if selection & ffi::SELECT_PRIVATE_KEY == 0 {
            return Err(fail(
                Reason::InvalidInput,
                "an HMAC key is imported as a private key (its secret)",
            ));
        }
        let secret = params.locate("priv").ok_or_else(|| {
            fail(
                Reason::InvalidInput,
                "an HMAC key needs its secret as \"priv\"",
            )
        })?;
        key.secret = Some(Zeroizing::new(secret.get_octets()?.to_vec()));
        Ok(())
    })
}

static KEY_TYPES: params::ParamList = crate::param_list![("priv", params::OCTETS)];

unsafe extern "C" fn key_types(_selection: c_int) -> *const Param {
    KEY_TYPES.as_ptr()
}

static GETTABLE: params::ParamList = crate::param_list![("max-size", params::UINT)];

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const Param {
    GETTABLE.as_ptr()
}

/// `max-size`: 0, as OpenSSL's own HMAC key answers (the tag length depends on the digest the
/// signature is given).
unsafe extern "C" fn get_params(keydata: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a key of this key manager and a terminated array.
        let (_, params) = unsafe { (key(keydata)?, Params::new(params)) };
        if let Some(mut size) = params.locate("max-size") {
            size.set_usize(0)?;
        }
        Ok(())
    })
}

/// A digest-sign in progress, and whether the last one was approved.
struct Signing {
    module: Module,
    mac: Option<mac::Context>,
    last: LastOperation,
}

impl Signing {
    /// The MAC `digest_sign_init` started, or an out-of-order error naming the `step`.
    fn running(&mut self, step: &str) -> Result<&mut mac::Context, Failure> {
        self.mac.as_mut().ok_or_else(|| {
            fail(
                Reason::OutOfOrder,
                format!("HMAC signature {step} before init"),
            )
        })
    }
}

impl Duplicate for Signing {
    const WHAT: &'static str = "HMAC signature context";

    fn duplicate(&self) -> Result<Signing, Failure> {
        Ok(Signing {
            module: self.module.clone(),
            mac: self.mac.as_ref().map(Duplicate::duplicate).transpose()?,
            last: self.last,
        })
    }
}

unsafe extern "C" fn new_signature(
    provctx: *mut c_void,
    _properties: *const c_char,
) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        match unsafe { ProviderContext::from_ptr(provctx) } {
            Some(provider) => crate::context::into_raw(Signing {
                module: provider.module.clone(),
                mac: None,
                last: LastOperation::default(),
            }),
            None => std::ptr::null_mut(),
        }
    })
}

/// # Safety
/// As for [`crate::context::borrow`].
unsafe fn signing<'a>(ctx: *mut c_void) -> Result<&'a mut Signing, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, Signing::WHAT) }
}

unsafe extern "C" fn digest_sign_init(
    ctx: *mut c_void,
    digest: *const c_char,
    keydata: *mut c_void,
    _params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a key of this provider's HMAC key manager.
        let (signing, key) = unsafe { (signing(ctx)?, key(keydata)?) };
        if digest.is_null() {
            return Err(fail(
                Reason::InvalidInput,
                "HMAC as a signature needs a digest name",
            ));
        }
        // SAFETY: a C string from OpenSSL.
        let digest = unsafe { CStr::from_ptr(digest) }.to_string_lossy();
        let secret = key
            .secret
            .as_ref()
            .ok_or_else(|| fail(Reason::InvalidInput, "the HMAC key has no secret"))?;
        signing.mac = None;
        signing.mac = Some(mac::Context::hmac(signing.module.clone(), &digest, secret)?);
        Ok(())
    })
}

unsafe extern "C" fn digest_sign_update(
    ctx: *mut c_void,
    data: *const c_uchar,
    len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let signing = unsafe { signing(ctx) }?;
        // SAFETY: OpenSSL passes `len` readable bytes at `data`.
        signing
            .running("update")?
            .absorb(unsafe { crate::input(data, len) })
    })
}

/// The tag; with no output buffer, only its length (libcrypto asks that first).
unsafe extern "C" fn digest_sign_final(
    ctx: *mut c_void,
    out: *mut c_uchar,
    outl: *mut usize,
    outsize: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let signing = unsafe { signing(ctx) }?;
        let mac = signing.running("final")?;
        let written = if out.is_null() {
            mac.output_len()
        } else {
            // SAFETY: OpenSSL passes `outsize` writable bytes at `out`.
            let written =
                mac.finish_into(unsafe { std::slice::from_raw_parts_mut(out, outsize) })?;
            signing.last = mac.last();
            signing.mac = None;
            written
        };
        // SAFETY: OpenSSL passes a writable `outl` or null.
        unsafe { crate::report_len(outl, written) };
        Ok(())
    })
}

static GETTABLE_CTX: params::ParamList = crate::param_list![
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

unsafe extern "C" fn gettable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    GETTABLE_CTX.as_ptr()
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (signing, params) = unsafe { (signing(ctx)?, Params::new(params)) };
        for mut param in params.iter() {
            indicator::answer_param(signing.last, &mut param)?;
        }
        Ok(())
    })
}
