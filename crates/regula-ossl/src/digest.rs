//! `OSSL_OP_DIGEST`: every digest the policy serves, streaming, duplicable, each context
//! answering whether its last digest was approved. SHAKE128/SHAKE256 are XOF digests: their
//! output length is the context's `xoflen` (or `size`, as OpenSSL 3.4+ also names it), their
//! row's default length until set; `EVP_DigestFinalXOF` sets it and finishes once, or OpenSSL
//! 3.3+'s `EVP_DigestSqueeze` takes the output in pieces (OpenSSL 3.5's ML-KEM and ML-DSA
//! expand their matrices so, with SHAKE fetched from the library context, Regula's when it is
//! preferred or alone beside `base`).

use std::os::raw::{c_int, c_uchar, c_void};

use regula::{Algorithm, DigestContext, Family, Module, Policy, XofContext, registry};

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};

pub fn offers(policy: &Policy) -> Vec<Offer> {
    served_rows(policy, Family::Digest)
        .map(|row| Offer {
            names: row
                .openssl
                .as_ref()
                .map(|name| name.names)
                .unwrap_or(row.name)
                .to_owned(),
            approved: policy.approves(row.algorithm),
            dispatch: &tables()[row.algorithm.index()],
            description: format!("Regula {}", row.name),
        })
        .collect()
}

/// One digest context (`EVP_MD_CTX`'s provider half).
pub struct Context {
    module: Module,
    algorithm: Algorithm,
    state: Option<State>,
    /// The output length of an XOF row (`xoflen`); `None` for a fixed-length digest.
    xof_len: Option<usize>,
    last: LastOperation,
}

/// A running computation: a fixed-length digest, or an XOF squeezed once at `xof_len`.
enum State {
    Digest(DigestContext),
    Xof(XofContext),
}

/// Whether table `A` is an XOF row's.
fn is_xof<const A: usize>() -> bool {
    Algorithm::ALL
        .get(A)
        .is_some_and(|algorithm| algorithm.is_xof())
}

crate::per_algorithm_tables!(table);

fn table<const A: usize>() -> Box<[Dispatch]> {
    let mut table = vec![
        crate::dispatch_fn!(ffi::DIGEST_NEWCTX, newctx::<A>),
        crate::dispatch_fn!(ffi::DIGEST_INIT, init),
        crate::dispatch_fn!(ffi::DIGEST_UPDATE, update),
        crate::dispatch_fn!(ffi::DIGEST_FINAL, finalize),
        crate::dispatch_fn!(ffi::DIGEST_FREECTX, crate::context::free::<Context>),
        crate::dispatch_fn!(ffi::DIGEST_DUPCTX, crate::context::duplicate::<Context>),
        crate::dispatch_fn!(ffi::DIGEST_GET_PARAMS, get_params::<A>),
        crate::dispatch_fn!(ffi::DIGEST_GETTABLE_PARAMS, gettable_params),
        crate::dispatch_fn!(ffi::DIGEST_GET_CTX_PARAMS, get_ctx_params),
        crate::dispatch_fn!(ffi::DIGEST_GETTABLE_CTX_PARAMS, gettable_ctx_params::<A>),
    ];
    if is_xof::<A>() {
        table.extend([
            crate::dispatch_fn!(ffi::DIGEST_SET_CTX_PARAMS, set_ctx_params),
            crate::dispatch_fn!(ffi::DIGEST_SETTABLE_CTX_PARAMS, settable_ctx_params),
            crate::dispatch_fn!(ffi::DIGEST_SQUEEZE, squeeze),
        ]);
    }
    table.push(ffi::DISPATCH_END);
    table.into_boxed_slice()
}

unsafe extern "C" fn newctx<const A: usize>(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        let Some(&algorithm) = Algorithm::ALL.get(A) else {
            return std::ptr::null_mut();
        };
        crate::context::into_raw(Context {
            module: provider.module.clone(),
            algorithm,
            state: None,
            xof_len: algorithm
                .is_xof()
                .then(|| registry::entry(algorithm).sizes.output.unwrap_or(0)),
            last: LastOperation::default(),
        })
    })
}

/// # Safety
/// As for [`context::borrow`].
unsafe fn context<'a>(ctx: *mut c_void) -> Result<&'a mut Context, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, "digest context") }
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "digest context";

    fn duplicate(&self) -> Result<Context, Failure> {
        let state = match &self.state {
            None => None,
            Some(State::Digest(digest)) => Some(State::Digest(digest.try_clone()?)),
            Some(State::Xof(xof)) => Some(State::Xof(xof.try_clone()?)),
        };
        Ok(Context {
            module: self.module.clone(),
            algorithm: self.algorithm,
            state,
            xof_len: self.xof_len,
            last: self.last,
        })
    }
}

impl Context {
    /// `xoflen` or `size` (the first given) sets an XOF's output length; a fixed-length
    /// digest has no settable parameters.
    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        if self.xof_len.is_none() {
            return Ok(());
        }
        let chosen = params.locate("xoflen").or_else(|| params.locate("size"));
        if let Some(param) = chosen {
            self.xof_len = Some(param.get_usize()?);
        }
        Ok(())
    }
}

unsafe extern "C" fn init(ctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context; `params` is NULL or a terminated array (EVP_DigestInit_ex2).
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        context.apply(&params)?;
        context.state = Some(if context.xof_len.is_some() {
            State::Xof(context.module.xof_context(context.algorithm)?)
        } else {
            State::Digest(context.module.digest_context(context.algorithm)?)
        });
        Ok(())
    })
}

unsafe extern "C" fn update(ctx: *mut c_void, data: *const c_uchar, len: usize) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        let state = context.state.as_mut().ok_or_else(|| {
            fail(
                Reason::OutOfOrder,
                "digest update before init or after final",
            )
        })?;
        // SAFETY: OpenSSL passes `len` readable bytes at `data` (or len 0).
        let data = unsafe { crate::input(data, len) };
        match state {
            State::Digest(digest) => digest.update(data),
            State::Xof(xof) => xof.update(data)?,
        }
        Ok(())
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
        let state = context
            .state
            .take()
            .ok_or_else(|| fail(Reason::OutOfOrder, "digest final before init or twice"))?;
        let output_len = context
            .xof_len
            .unwrap_or_else(|| registry::entry(context.algorithm).sizes.output.unwrap_or(0));
        if outsize < output_len || (out.is_null() && output_len > 0) {
            return Err(fail(
                Reason::InvalidInput,
                format!("digest output needs {output_len} bytes, got room for {outsize}"),
            ));
        }
        let (indicator, written) = match state {
            State::Digest(digest) => {
                let served = digest.finish()?;
                // SAFETY: `out` has room for `outsize` >= digest length bytes (checked above).
                unsafe { std::ptr::copy_nonoverlapping(served.as_ptr(), out, served.len()) };
                (served.indicator(), served.len())
            }
            State::Xof(xof) => {
                let destination: &mut [u8] = if output_len == 0 {
                    &mut []
                } else {
                    // SAFETY: `out` is non-null with room for `outsize` >= `output_len` bytes
                    // (checked above), and nothing else refers to it during this call.
                    unsafe { std::slice::from_raw_parts_mut(out, output_len) }
                };
                // Writes all of `destination` or, on an error, none of it.
                let served = xof.finish_into(destination)?;
                (served.indicator(), *served)
            }
        };
        context.last = crate::indicator::settle(indicator)?;
        // SAFETY: OpenSSL passes a writable `outl` or null.
        unsafe { crate::report_len(outl, written) };
        Ok(())
    })
}

/// `OSSL_FUNC_digest_squeeze`: the next `outsize` bytes of an XOF's output; again and again
/// until the context is initialised afresh (no update or final after it).
unsafe extern "C" fn squeeze(
    ctx: *mut c_void,
    out: *mut c_uchar,
    outl: *mut usize,
    outsize: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        let Some(State::Xof(xof)) = context.state.as_mut() else {
            return Err(fail(
                Reason::OutOfOrder,
                "squeeze before init, after final, or on a fixed-length digest",
            ));
        };
        if out.is_null() && outsize > 0 {
            return Err(fail(Reason::InvalidInput, "squeeze into a null buffer"));
        }
        let destination: &mut [u8] = if outsize == 0 {
            &mut []
        } else {
            // SAFETY: OpenSSL passes `outsize` writable bytes at the non-null `out`, not
            // otherwise referred to during this call.
            unsafe { std::slice::from_raw_parts_mut(out, outsize) }
        };
        let served = match xof.squeeze(destination) {
            Ok(served) => served,
            Err(error) => {
                // The sponge is spent: a later squeeze or final fails too.
                context.state = None;
                return Err(error.into());
            }
        };
        context.last = crate::indicator::settle(served.indicator())?;
        // SAFETY: OpenSSL passes a writable `outl` or null.
        unsafe { crate::report_len(outl, *served) };
        Ok(())
    })
}

static GETTABLE: params::ParamList = crate::param_list![
    ("blocksize", params::UINT),
    ("size", params::UINT),
    ("xof", params::INT),
    ("algid-absent", params::INT),
];

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const Param {
    GETTABLE.as_ptr()
}

unsafe extern "C" fn get_params<const A: usize>(params: *mut Param) -> c_int {
    error::entry(|| {
        let Some(&algorithm) = Algorithm::ALL.get(A) else {
            return Err(fail(Reason::Internal, "no such digest"));
        };
        let sizes = registry::entry(algorithm).sizes;
        // SAFETY: a terminated parameter array from OpenSSL.
        let params = unsafe { Params::new(params) };
        for mut param in params.iter() {
            match param.key {
                "blocksize" => param.set_usize(sizes.block.unwrap_or(0))?,
                "size" => param.set_usize(sizes.output.unwrap_or(0))?,
                "xof" => param.set_i64(i64::from(algorithm.is_xof()))?,
                // SHA-1/2/3, SHAKE and SM3 AlgorithmIdentifiers carry no parameters (RFC 5754
                // §2, RFC 8702 §2).
                "algid-absent" => param.set_i64(1)?,
                _ => {}
            }
        }
        Ok(())
    })
}

/// An XOF context's parameters: its output length under both names, and the indicator.
static XOF_GETTABLE_CTX: params::ParamList = crate::param_list![
    ("xoflen", params::UINT),
    ("size", params::UINT),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

static XOF_SETTABLE_CTX: params::ParamList =
    crate::param_list![("xoflen", params::UINT), ("size", params::UINT)];

unsafe extern "C" fn gettable_ctx_params<const A: usize>(
    _ctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    if is_xof::<A>() {
        XOF_GETTABLE_CTX.as_ptr()
    } else {
        indicator::GETTABLE.as_ptr()
    }
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        for mut param in params.iter() {
            match (param.key, context.xof_len) {
                ("xoflen" | "size", Some(len)) => param.set_usize(len)?,
                _ => indicator::answer_param(context.last, &mut param)?,
            }
        }
        Ok(())
    })
}

unsafe extern "C" fn settable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    XOF_SETTABLE_CTX.as_ptr()
}

unsafe extern "C" fn set_ctx_params(ctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array (or NULL).
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        context.apply(&params)
    })
}
