//! `OSSL_OP_RAND`: the module's random bit generator (AWS-LC's CTR_DRBG, or the GM/T 0105
//! generator the `gm` policy names) as an OpenSSL RAND, so `RAND_bytes` and every key OpenSSL
//! generates draw from it when `openssl.cnf`'s `[random]` section names it.
//!
//! The generator seeds and reseeds itself: OpenSSL's parent chain (seed source, primary
//! DRBG) is not consulted, and entropy or personalisation given by the caller is refused
//! rather than ignored.

use std::os::raw::{c_int, c_uchar, c_uint, c_void};

use regula::{Module, Policy, registry};

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext};

/// Largest request served in one call (SP 800-90A's 2^19 bits for CTR_DRBG).
const MAX_REQUEST: usize = 1 << 16;
/// Security strength in bits.
const STRENGTH: c_uint = 256;

pub fn offers(policy: &Policy) -> Vec<Offer> {
    let algorithm = policy.random_algorithm();
    let row = registry::entry(algorithm);
    match &row.openssl {
        Some(name) if policy.serves(algorithm) => vec![Offer {
            names: name.names.to_owned(),
            approved: policy.approves(algorithm),
            dispatch: &DISPATCH.0,
            description: format!("Regula {}", row.name),
        }],
        _ => Vec::new(),
    }
}

static DISPATCH: ffi::SyncTable<[Dispatch; 12]> = ffi::SyncTable([
    crate::dispatch_fn!(ffi::RAND_NEWCTX, newctx),
    crate::dispatch_fn!(ffi::RAND_FREECTX, crate::context::free::<Context>),
    crate::dispatch_fn!(ffi::RAND_INSTANTIATE, instantiate),
    crate::dispatch_fn!(ffi::RAND_UNINSTANTIATE, uninstantiate),
    crate::dispatch_fn!(ffi::RAND_GENERATE, generate),
    crate::dispatch_fn!(ffi::RAND_RESEED, reseed),
    crate::dispatch_fn!(ffi::RAND_ENABLE_LOCKING, enable_locking),
    crate::dispatch_fn!(ffi::RAND_LOCK, lock),
    crate::dispatch_fn!(ffi::RAND_UNLOCK, unlock),
    crate::dispatch_fn!(ffi::RAND_GETTABLE_CTX_PARAMS, gettable_ctx_params),
    crate::dispatch_fn!(ffi::RAND_GET_CTX_PARAMS, get_ctx_params),
    ffi::DISPATCH_END,
]);

struct Context {
    module: Module,
    instantiated: bool,
    last: LastOperation,
}

/// # Safety
/// As for [`context::borrow`].
unsafe fn context<'a>(ctx: *mut c_void) -> Result<&'a mut Context, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, "random generator context") }
}

unsafe extern "C" fn newctx(
    provctx: *mut c_void,
    _parent: *mut c_void,
    _parent_dispatch: *const Dispatch,
) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        crate::context::into_raw(Context {
            module: provider.module.clone(),
            instantiated: false,
            last: LastOperation::default(),
        })
    })
}

unsafe extern "C" fn instantiate(
    ctx: *mut c_void,
    strength: c_uint,
    _prediction_resistance: c_int,
    personalisation: *const c_uchar,
    personalisation_len: usize,
    _params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        if strength > STRENGTH {
            return Err(fail(
                Reason::InvalidInput,
                format!("requested strength {strength} exceeds the generator's {STRENGTH} bits"),
            ));
        }
        if !personalisation.is_null() && personalisation_len != 0 {
            return Err(fail(
                Reason::InvalidInput,
                "the module's generator takes no personalisation string",
            ));
        }
        context.module.ensure_operational()?;
        context.instantiated = true;
        Ok(())
    })
}

unsafe extern "C" fn uninstantiate(ctx: *mut c_void) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        unsafe { context(ctx) }?.instantiated = false;
        Ok(())
    })
}

unsafe extern "C" fn generate(
    ctx: *mut c_void,
    out: *mut c_uchar,
    outlen: usize,
    strength: c_uint,
    _prediction_resistance: c_int,
    additional: *const c_uchar,
    additional_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        if !context.instantiated {
            return Err(fail(Reason::OutOfOrder, "generate before instantiate"));
        }
        if strength > STRENGTH {
            return Err(fail(
                Reason::InvalidInput,
                format!("requested strength {strength} exceeds the generator's {STRENGTH} bits"),
            ));
        }
        if !additional.is_null() && additional_len != 0 {
            return Err(fail(
                Reason::InvalidInput,
                "the module's generator takes no additional input",
            ));
        }
        if outlen == 0 {
            return Ok(());
        }
        if out.is_null() {
            return Err(fail(Reason::InvalidInput, "no output buffer"));
        }
        // SAFETY: OpenSSL passes `outlen` writable bytes at `out`.
        let output = unsafe { std::slice::from_raw_parts_mut(out, outlen) };
        for chunk in output.chunks_mut(MAX_REQUEST) {
            let served = context.module.fill_random(chunk)?;
            match crate::indicator::settle(served.indicator()) {
                Ok(last) => context.last = last,
                Err(refused) => {
                    // The application's indicator callback refused: no output.
                    zeroize::Zeroize::zeroize(output);
                    return Err(refused);
                }
            }
        }
        Ok(())
    })
}

unsafe extern "C" fn reseed(
    ctx: *mut c_void,
    _prediction_resistance: c_int,
    entropy: *const c_uchar,
    entropy_len: usize,
    _additional: *const c_uchar,
    _additional_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        if !entropy.is_null() && entropy_len != 0 {
            return Err(fail(
                Reason::InvalidInput,
                "the module's generator seeds itself and takes no caller entropy",
            ));
        }
        context.module.ensure_operational()?;
        Ok(())
    })
}

/// The module's generator is safe to call from several threads: no lock is needed.
unsafe extern "C" fn enable_locking(_ctx: *mut c_void) -> c_int {
    1
}

unsafe extern "C" fn lock(_ctx: *mut c_void) -> c_int {
    1
}

unsafe extern "C" fn unlock(_ctx: *mut c_void) {}

static GETTABLE: params::ParamList = crate::param_list![
    ("state", params::INT),
    ("strength", params::UINT),
    ("max_request", params::UINT),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

unsafe extern "C" fn gettable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    GETTABLE.as_ptr()
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        for mut param in params.iter() {
            match param.key {
                "state" => param.set_i64(if context.instantiated {
                    i64::from(ffi::RAND_STATE_READY)
                } else {
                    0
                })?,
                "strength" => param.set_i64(i64::from(STRENGTH))?,
                "max_request" => param.set_usize(MAX_REQUEST)?,
                _ => indicator::answer_param(context.last, &mut param)?,
            }
        }
        Ok(())
    })
}
