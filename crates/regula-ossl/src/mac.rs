//! `OSSL_OP_MAC`: HMAC (`digest`), CMAC (`cipher`) and GMAC (`cipher`, `iv`), as OpenSSL's own
//! MACs take them. The row is chosen by the parameter, so the policy rules on the exact MAC
//! (`hmac-sha256`, `sm4-cmac`, …) when the key is set.

use std::os::raw::{c_int, c_uchar, c_void};
use std::sync::Arc;

use regula::{Algorithm, Family, MacContext, MacKey, Module, Policy, registry};

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::names;
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};

/// One offer per OpenSSL MAC name (`HMAC`, `CMAC`, `GMAC`) with at least one served row;
/// `fips=yes` when the policy approves some row under it (the context's indicator then says
/// whether the MAC actually computed was approved).
pub fn offers(policy: &Policy) -> Vec<Offer> {
    let mut offers: Vec<Offer> = Vec::new();
    for row in served_rows(policy, Family::Mac) {
        let Some(openssl) = &row.openssl else {
            continue;
        };
        let name = openssl.canonical();
        if let Some(offer) = offers
            .iter_mut()
            .find(|offer| offer.names.starts_with(name))
        {
            offer.approved |= policy.approves(row.algorithm);
            continue;
        }
        offers.push(Offer {
            names: openssl.names.to_owned(),
            approved: policy.approves(row.algorithm),
            dispatch: &tables()[row.algorithm.index()],
            description: format!("Regula {name}"),
        });
    }
    offers
}

crate::per_algorithm_tables!(table);

fn table<const A: usize>() -> Box<[Dispatch]> {
    Box::new([
        crate::dispatch_fn!(ffi::MAC_NEWCTX, newctx::<A>),
        crate::dispatch_fn!(ffi::MAC_DUPCTX, crate::context::duplicate::<Context>),
        crate::dispatch_fn!(ffi::MAC_FREECTX, crate::context::free::<Context>),
        crate::dispatch_fn!(ffi::MAC_INIT, init),
        crate::dispatch_fn!(ffi::MAC_UPDATE, update),
        crate::dispatch_fn!(ffi::MAC_FINAL, finalize),
        crate::dispatch_fn!(ffi::MAC_GET_CTX_PARAMS, get_ctx_params),
        crate::dispatch_fn!(ffi::MAC_GETTABLE_CTX_PARAMS, gettable_ctx_params),
        crate::dispatch_fn!(ffi::MAC_SET_CTX_PARAMS, set_ctx_params),
        crate::dispatch_fn!(ffi::MAC_SETTABLE_CTX_PARAMS, settable_ctx_params),
        ffi::DISPATCH_END,
    ])
}

/// Which parameter chooses the row: `digest` for HMAC, `cipher` for CMAC and GMAC.
fn choosing_param(operation: &str) -> &'static str {
    if operation.eq_ignore_ascii_case("HMAC") {
        "digest"
    } else {
        "cipher"
    }
}

/// One MAC context. `state` borrows the key inside `key`'s allocation, so it is declared (and
/// dropped) first; the `Arc` keeps that allocation alive for every duplicate of the context.
pub struct Context {
    state: Option<MacContext<'static>>,
    key: Option<Arc<MacKey>>,
    module: Module,
    /// `HMAC`, `CMAC` or `GMAC`.
    operation: &'static str,
    /// The MAC row the `digest`/`cipher` parameter chose.
    row: Option<Algorithm>,
    /// GMAC's nonce.
    iv: Option<Vec<u8>>,
    last: LastOperation,
}

unsafe extern "C" fn newctx<const A: usize>(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        let Some(openssl) = Algorithm::ALL
            .get(A)
            .and_then(|&algorithm| registry::entry(algorithm).openssl.as_ref())
        else {
            return std::ptr::null_mut();
        };
        crate::context::into_raw(Context {
            state: None,
            key: None,
            module: provider.module.clone(),
            operation: openssl.canonical(),
            row: None,
            iv: None,
            last: LastOperation::default(),
        })
    })
}

/// # Safety
/// As for [`context::borrow`].
unsafe fn context<'a>(ctx: *mut c_void) -> Result<&'a mut Context, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, "MAC context") }
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "MAC context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(Context {
            state: self.state.as_ref().map(MacContext::try_clone).transpose()?,
            key: self.key.clone(),
            module: self.module.clone(),
            operation: self.operation,
            row: self.row,
            iv: self.iv.clone(),
            last: self.last,
        })
    }
}

impl Context {
    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        let choosing = choosing_param(self.operation);
        for param in params.iter() {
            match param.key {
                key if key == choosing => {
                    let name = param.get_utf8()?;
                    let row = names::row_with_param(self.operation, choosing, &name).ok_or_else(
                        || {
                            fail(
                                Reason::NotApproved,
                                format!("{} over {name} is not served by Regula", self.operation),
                            )
                        },
                    )?;
                    if self.row != Some(row) {
                        self.drop_key();
                        self.row = Some(row);
                    }
                }
                "key" => {
                    let key = param.get_octets()?.to_vec();
                    self.set_key(&zeroize::Zeroizing::new(key))?;
                }
                "iv" if self.operation.eq_ignore_ascii_case("GMAC") => {
                    self.iv = Some(param.get_octets()?.to_vec());
                }
                // Fetch properties for the digest or cipher: Regula serves its own.
                "properties" => {}
                _ => {}
            }
        }
        Ok(())
    }

    fn drop_key(&mut self) {
        self.state = None;
        self.key = None;
    }

    fn set_key(&mut self, key: &[u8]) -> Result<(), Failure> {
        let row = self.row.ok_or_else(|| {
            fail(
                Reason::OutOfOrder,
                format!(
                    "{}: set the {} before the key",
                    self.operation,
                    choosing_param(self.operation)
                ),
            )
        })?;
        self.drop_key();
        self.key = Some(Arc::new(self.module.mac_key(row, key)?));
        Ok(())
    }

    /// Starts a computation under the current key.
    fn start(&mut self) -> Result<(), Failure> {
        self.state = None;
        let key = self.key.as_ref().ok_or_else(|| {
            fail(
                Reason::OutOfOrder,
                format!("{}: no key set", self.operation),
            )
        })?;
        // SAFETY: the MacKey lives in the Arc's allocation, which this context
        // holds for as long as `state` exists (`state` is dropped first, and replaced before
        // the key is); duplicates hold the same Arc.
        let key: &'static MacKey = unsafe { &*Arc::as_ptr(key) };
        let state = if key.takes_nonce() {
            let iv = self
                .iv
                .as_deref()
                .ok_or_else(|| fail(Reason::OutOfOrder, "GMAC: set the iv before init"))?;
            key.context_with_nonce(iv)?
        } else {
            key.context()
        };
        self.state = Some(state);
        Ok(())
    }

    pub(crate) fn output_len(&self) -> usize {
        self.row
            .and_then(|row| registry::entry(row).sizes.output)
            .unwrap_or(0)
    }

    /// A started HMAC over the digest OpenSSL names `digest`, keyed with `key`: what the
    /// "HMAC" signature (`EVP_DigestSign` with an HMAC `EVP_PKEY`, as libssl computes TLS 1.3
    /// PSK binders) runs on.
    pub(crate) fn hmac(module: Module, digest: &str, key: &[u8]) -> Result<Context, Failure> {
        let row = names::row_with_param("HMAC", "digest", digest).ok_or_else(|| {
            fail(
                Reason::NotApproved,
                format!("HMAC over {digest} is not served by Regula"),
            )
        })?;
        let mut context = Context {
            state: None,
            key: None,
            module,
            operation: "HMAC",
            row: Some(row),
            iv: None,
            last: LastOperation::default(),
        };
        context.set_key(key)?;
        context.start()?;
        Ok(context)
    }

    /// Feeds the running MAC.
    pub(crate) fn absorb(&mut self, data: &[u8]) -> Result<(), Failure> {
        let state = self
            .state
            .as_mut()
            .ok_or_else(|| fail(Reason::OutOfOrder, "MAC update before init or after final"))?;
        state.update(data)?;
        Ok(())
    }

    /// Ends the MAC into `out` (at least [`Context::output_len`] bytes); the tag's length.
    pub(crate) fn finish_into(&mut self, out: &mut [u8]) -> Result<usize, Failure> {
        let needed = self.output_len();
        if out.len() < needed {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "MAC output needs {needed} bytes, got room for {}",
                    out.len()
                ),
            ));
        }
        let state = self
            .state
            .take()
            .ok_or_else(|| fail(Reason::OutOfOrder, "MAC final before init or twice"))?;
        let served = state.sign()?;
        self.last = crate::indicator::settle(served.indicator())?;
        let tag = out
            .get_mut(..served.len())
            .ok_or_else(|| fail(Reason::InvalidInput, "MAC output buffer too small"))?;
        tag.copy_from_slice(&served);
        Ok(served.len())
    }

    /// Whether the last MAC computed was approved.
    pub(crate) fn last(&self) -> LastOperation {
        self.last
    }
}

unsafe extern "C" fn init(
    ctx: *mut c_void,
    key: *const c_uchar,
    key_len: usize,
    params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        context.apply(&params)?;
        if !key.is_null() {
            // SAFETY: OpenSSL passes `key_len` readable bytes at `key`.
            let key = unsafe { crate::input(key, key_len) };
            context.set_key(key)?;
        }
        context.start()
    })
}

unsafe extern "C" fn update(ctx: *mut c_void, data: *const c_uchar, len: usize) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        // SAFETY: OpenSSL passes `len` readable bytes at `data`.
        context.absorb(unsafe { crate::input(data, len) })
    })
}

unsafe extern "C" fn finalize(
    ctx: *mut c_void,
    out: *mut c_uchar,
    outl: *mut usize,
    outsize: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        if out.is_null() {
            return Err(fail(
                Reason::InvalidInput,
                format!("MAC output needs {} bytes, got none", context.output_len()),
            ));
        }
        // SAFETY: OpenSSL passes `outsize` writable bytes at `out`.
        let out = unsafe { std::slice::from_raw_parts_mut(out, outsize) };
        let written = context.finish_into(out)?;
        // SAFETY: OpenSSL passes a writable `outl` or null.
        unsafe { crate::report_len(outl, written) };
        Ok(())
    })
}

static GETTABLE_CTX: params::ParamList = crate::param_list![
    ("size", params::UINT),
    ("block-size", params::UINT),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

unsafe extern "C" fn gettable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    GETTABLE_CTX.as_ptr()
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        for mut param in params.iter() {
            match param.key {
                "size" => param.set_usize(context.output_len())?,
                "block-size" => {
                    let row = context.row.map(registry::entry);
                    let block = row
                        .and_then(|row| row.hash)
                        .and_then(|hash| registry::entry(hash).sizes.block)
                        .or_else(|| row.and_then(|row| row.sizes.block))
                        .unwrap_or(0);
                    param.set_usize(block)?
                }
                _ => indicator::answer_param(context.last, &mut param)?,
            }
        }
        Ok(())
    })
}

static SETTABLE_CTX: params::ParamList = crate::param_list![
    ("digest", params::UTF8),
    ("cipher", params::UTF8),
    ("properties", params::UTF8),
    ("key", params::OCTETS),
    ("iv", params::OCTETS),
];

unsafe extern "C" fn settable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    SETTABLE_CTX.as_ptr()
}

unsafe extern "C" fn set_ctx_params(ctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        context.apply(&params)
    })
}
