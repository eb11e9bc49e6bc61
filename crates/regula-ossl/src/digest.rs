//! `OSSL_OP_DIGEST`: every digest the policy serves, streaming, duplicable, each context
//! answering whether its last digest was approved.

use std::os::raw::{c_int, c_uchar, c_void};

use regula::{Algorithm, DigestContext, Family, Module, Policy, registry};

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
    state: Option<DigestContext>,
    last: LastOperation,
}

crate::per_algorithm_tables!(table);

fn table<const A: usize>() -> Box<[Dispatch]> {
    Box::new([
        crate::dispatch_fn!(ffi::DIGEST_NEWCTX, newctx::<A>),
        crate::dispatch_fn!(ffi::DIGEST_INIT, init),
        crate::dispatch_fn!(ffi::DIGEST_UPDATE, update),
        crate::dispatch_fn!(ffi::DIGEST_FINAL, finalize),
        crate::dispatch_fn!(ffi::DIGEST_FREECTX, crate::context::free::<Context>),
        crate::dispatch_fn!(ffi::DIGEST_DUPCTX, crate::context::duplicate::<Context>),
        crate::dispatch_fn!(ffi::DIGEST_GET_PARAMS, get_params::<A>),
        crate::dispatch_fn!(ffi::DIGEST_GETTABLE_PARAMS, gettable_params),
        crate::dispatch_fn!(ffi::DIGEST_GET_CTX_PARAMS, get_ctx_params),
        crate::dispatch_fn!(ffi::DIGEST_GETTABLE_CTX_PARAMS, gettable_ctx_params),
        ffi::DISPATCH_END,
    ])
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
        Ok(Context {
            module: self.module.clone(),
            algorithm: self.algorithm,
            state: self
                .state
                .as_ref()
                .map(DigestContext::try_clone)
                .transpose()?,
            last: self.last,
        })
    }
}

unsafe extern "C" fn init(ctx: *mut c_void, _params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        context.state = Some(context.module.digest_context(context.algorithm)?);
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
        state.update(data);
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
        let output_len = registry::entry(context.algorithm).sizes.output.unwrap_or(0);
        if outsize < output_len || out.is_null() {
            return Err(fail(
                Reason::InvalidInput,
                format!("digest output needs {output_len} bytes, got room for {outsize}"),
            ));
        }
        let served = state.finish()?;
        context.last = crate::indicator::settle(served.indicator())?;
        // SAFETY: `out` has room for `outsize` >= digest length bytes (checked above).
        unsafe {
            std::ptr::copy_nonoverlapping(served.as_ptr(), out, served.len());
            if !outl.is_null() {
                *outl = served.len();
            }
        }
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
                "xof" => param.set_i64(0)?,
                // SHA-1/2/3 and SM3 AlgorithmIdentifiers carry no parameters (RFC 5754 §2).
                "algid-absent" => param.set_i64(1)?,
                _ => {}
            }
        }
        Ok(())
    })
}

unsafe extern "C" fn gettable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    indicator::GETTABLE.as_ptr()
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        indicator::answer(context.last, &params)?;
        Ok(())
    })
}
