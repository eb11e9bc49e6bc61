//! `OSSL_OP_KEM`: "ML-KEM-768", "ML-KEM-1024" and the hybrids of `mlkem_keymgmt.rs`
//! ("X25519MLKEM768", "SecP256r1MLKEM768", "SecP384r1MLKEM1024"), over that module's keys, as
//! OpenSSL 3.5's providers/implementations/kem/ml_kem_kem.c and mlx_kem.c behave:
//! `encapsulate` (with no output buffer, the lengths) gives the ciphertext and the shared
//! secret; `decapsulate` the secret. ML-KEM is the core's `encapsulate` / `decapsulate`; a
//! hybrid's classical half is an ephemeral key of the core's key agreement whose public key is
//! that half's ciphertext, agreed with the peer's public key. The indicator is the ML-KEM
//! operation's: the classical secret is auxiliary input (SP 800-227 §4.6).
//!
//! `ikme` (ML-KEM's 32-byte encapsulation randomness m, for known-answer tests) goes to the
//! core's ML-KEM.Encaps_internal for ML-KEM alone; a hybrid refuses it.

use std::os::raw::{c_int, c_uchar, c_void};
use std::sync::Arc;

use regula::{AgreementKey, KemPrivateKey, Module, Policy};
use zeroize::Zeroizing;

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::mlkem_keymgmt::{self, VARIANT_COUNT, Variant, variant};
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext};

/// `OSSL_OP_KEM` and its function ids (core_dispatch.h).
pub const OP_KEM: c_int = 14;
const KEM_NEWCTX: c_int = 1;
const KEM_ENCAPSULATE_INIT: c_int = 2;
const KEM_ENCAPSULATE: c_int = 3;
const KEM_DECAPSULATE_INIT: c_int = 4;
const KEM_DECAPSULATE: c_int = 5;
const KEM_FREECTX: c_int = 6;
const KEM_DUPCTX: c_int = 7;
const KEM_GET_CTX_PARAMS: c_int = 8;
const KEM_GETTABLE_CTX_PARAMS: c_int = 9;
const KEM_SET_CTX_PARAMS: c_int = 10;
const KEM_SETTABLE_CTX_PARAMS: c_int = 11;

pub fn offers(policy: &Policy) -> Vec<Offer> {
    mlkem_keymgmt::served_variants(policy)
        .map(|variant| mlkem_keymgmt::offer(policy, variant, "KEM", &TABLES.0[variant.index]))
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Operation {
    Encapsulate,
    Decapsulate,
}

/// One KEM operation (`EVP_PKEY_CTX`'s provider half).
#[derive(Clone)]
struct Context {
    module: Module,
    variant: Variant,
    operation: Option<Operation>,
    /// The peer's public key (encapsulation).
    public: Option<Vec<u8>>,
    /// Our private halves (decapsulation).
    kem_private: Option<Arc<KemPrivateKey>>,
    classical_private: Option<Arc<AgreementKey>>,
    /// A caller's one-shot encapsulation randomness m.
    ikme: Option<Zeroizing<Vec<u8>>>,
    last: LastOperation,
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "KEM context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(self.clone())
    }
}

type Tables = ffi::SyncTable<[[Dispatch; 12]; VARIANT_COUNT]>;

static TABLES: Tables = ffi::SyncTable([
    table::<0>(),
    table::<1>(),
    table::<2>(),
    table::<3>(),
    table::<4>(),
]);

const fn table<const K: usize>() -> [Dispatch; 12] {
    [
        crate::dispatch_fn!(KEM_NEWCTX, newctx::<K>),
        crate::dispatch_fn!(KEM_ENCAPSULATE_INIT, encapsulate_init),
        crate::dispatch_fn!(KEM_ENCAPSULATE, encapsulate),
        crate::dispatch_fn!(KEM_DECAPSULATE_INIT, decapsulate_init),
        crate::dispatch_fn!(KEM_DECAPSULATE, decapsulate),
        crate::dispatch_fn!(KEM_FREECTX, crate::context::free::<Context>),
        crate::dispatch_fn!(KEM_DUPCTX, crate::context::duplicate::<Context>),
        crate::dispatch_fn!(KEM_GET_CTX_PARAMS, get_ctx_params),
        crate::dispatch_fn!(KEM_GETTABLE_CTX_PARAMS, gettable_ctx_params),
        crate::dispatch_fn!(KEM_SET_CTX_PARAMS, set_ctx_params),
        crate::dispatch_fn!(KEM_SETTABLE_CTX_PARAMS, settable_ctx_params),
        ffi::DISPATCH_END,
    ]
}

unsafe extern "C" fn newctx<const K: usize>(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        let Some(variant) = variant(K) else {
            return std::ptr::null_mut();
        };
        if let Err(problem) = provider.module.ensure_operational() {
            error::raise_regula(&problem);
            return std::ptr::null_mut();
        }
        crate::context::into_raw(Context {
            module: provider.module.clone(),
            variant,
            operation: None,
            public: None,
            kem_private: None,
            classical_private: None,
            ikme: None,
            last: LastOperation::default(),
        })
    })
}

/// # Safety
/// As for [`crate::context::borrow`].
unsafe fn context<'a>(ctx: *mut c_void) -> Result<&'a mut Context, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, "KEM context") }
}

/// `encapsulate_init` / `decapsulate_init`: a key of this variant holding what the operation
/// needs (a public key; a private key).
///
/// # Safety
/// `ctx` a live context, `provkey` a key of `mlkem_keymgmt.rs`, `params` terminated or null.
unsafe fn init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
    operation: Operation,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract (OpenSSL hands a KEM only keys of its own provider's key
    // manager of the same name).
    let (context, key, params) = unsafe {
        (
            context(ctx)?,
            mlkem_keymgmt::key(provkey)?,
            Params::new(params),
        )
    };
    if key.variant != context.variant {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "a {} key, not {}",
                key.variant.label(),
                context.variant.label()
            ),
        ));
    }
    context.ikme = None;
    context.operation = Some(operation);
    match operation {
        Operation::Encapsulate => {
            let public = key.public.clone().ok_or_else(|| {
                fail(
                    Reason::InvalidInput,
                    "encapsulation needs a public key; this key has none",
                )
            })?;
            context.public = Some(public);
            context.kem_private = None;
            context.classical_private = None;
        }
        Operation::Decapsulate => {
            if !key.has_private() {
                return Err(fail(
                    Reason::InvalidInput,
                    "decapsulation needs a private key; this key has none",
                ));
            }
            context.public = None;
            context.kem_private = key.kem_private.clone();
            context.classical_private = key.classical_private.clone();
        }
    }
    apply(context, &params)
}

unsafe extern "C" fn encapsulate_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `init` needs them.
    error::entry(|| unsafe { init(ctx, provkey, params, Operation::Encapsulate) })
}

unsafe extern "C" fn decapsulate_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `init` needs them.
    error::entry(|| unsafe { init(ctx, provkey, params, Operation::Decapsulate) })
}

/// A ciphertext, its shared secret, and the indicator of the ML-KEM operation.
type Encapsulation = (Vec<u8>, Zeroizing<Vec<u8>>, regula::Indicator);

/// The ML-KEM ciphertext and secret, and the indicator of the ML-KEM operation.
fn kem_encapsulate(context: &mut Context, kem_public: &[u8]) -> Result<Encapsulation, Failure> {
    let kem = context.variant.kem;
    let served = match context.ikme.take() {
        Some(m) => context
            .module
            .known_answer_encapsulate(kem, kem_public, &m)?,
        None => context.module.encapsulate(kem, kem_public)?,
    };
    let (encapsulated, indicator) = served.into_parts();
    Ok((
        encapsulated.ciphertext,
        encapsulated.shared_secret,
        indicator,
    ))
}

/// Writes `value` to OpenSSL's buffer of `room` bytes and its length to `length`.
///
/// # Safety
/// `out` holds `room` writable bytes; `length` is writable.
unsafe fn write_out(out: *mut c_uchar, room: usize, length: *mut usize, value: &[u8]) {
    debug_assert!(room >= value.len());
    // SAFETY: the caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(value.as_ptr(), out, value.len());
        *length = value.len();
    }
}

/// `encapsulate`: with no ciphertext buffer, the ciphertext and secret lengths; otherwise a
/// fresh secret and its ciphertext, each buffer large enough for the whole.
unsafe extern "C" fn encapsulate(
    ctx: *mut c_void,
    out: *mut c_uchar,
    out_len: *mut usize,
    secret: *mut c_uchar,
    secret_len: *mut usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx)? };
        if context.operation != Some(Operation::Encapsulate) {
            return Err(fail(
                Reason::OutOfOrder,
                "encapsulate before encapsulate_init",
            ));
        }
        let variant = context.variant;
        let (ciphertext_len, shared_len) = (variant.ciphertext_len(), variant.secret_len());
        if out.is_null() {
            if out_len.is_null() && secret_len.is_null() {
                return Err(fail(Reason::OutOfOrder, "no length pointers"));
            }
            // SAFETY: OpenSSL's out-pointers, when not null.
            unsafe {
                if !out_len.is_null() {
                    *out_len = ciphertext_len;
                }
                if !secret_len.is_null() {
                    *secret_len = shared_len;
                }
            }
            return Ok(());
        }
        if secret.is_null() || out_len.is_null() || secret_len.is_null() {
            return Err(fail(
                Reason::OutOfOrder,
                "no shared-secret buffer or length pointer",
            ));
        }
        // SAFETY: OpenSSL's in/out lengths.
        let (out_room, secret_room) = unsafe { (*out_len, *secret_len) };
        if out_room < ciphertext_len || secret_room < shared_len {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "the {} ciphertext is {ciphertext_len} bytes and the secret \
                     {shared_len}; the buffers hold {out_room} and {secret_room}",
                    variant.label()
                ),
            ));
        }
        let public = context
            .public
            .clone()
            .ok_or_else(|| fail(Reason::OutOfOrder, "encapsulate before encapsulate_init"))?;
        let (ciphertext, shared, indicator) = match variant.classical {
            None => kem_encapsulate(context, &public)?,
            Some((classical, _)) => {
                if context.ikme.is_some() {
                    return Err(ikme_refused(variant));
                }
                let classical_len = registry_public_len(classical);
                let (kem_public, classical_public) = variant.split(&public, classical_len);
                let (kem_ciphertext, kem_secret, indicator) = kem_encapsulate(context, kem_public)?;
                let ephemeral = context
                    .module
                    .generate_agreement_key(classical)?
                    .into_value();
                let ephemeral_public = ephemeral.public_key()?;
                let classical_secret = ephemeral.agree(classical_public)?.into_value();
                (
                    variant.join(&kem_ciphertext, &ephemeral_public).to_vec(),
                    variant.join(&kem_secret, &classical_secret),
                    indicator,
                )
            }
        };
        if ciphertext.len() != ciphertext_len || shared.len() != shared_len {
            return Err(fail(Reason::Internal, "KEM output of the wrong length"));
        }
        context.last = indicator::settle(indicator)?;
        // SAFETY: both buffers hold at least the lengths checked above.
        unsafe {
            write_out(out, out_room, out_len, &ciphertext);
            write_out(secret, secret_room, secret_len, &shared);
        }
        Ok(())
    })
}

fn registry_public_len(algorithm: regula::Algorithm) -> usize {
    regula::registry::entry(algorithm)
        .sizes
        .public_key
        .unwrap_or(0)
}

/// `decapsulate`: with no output buffer, the secret's length; otherwise the secret.
unsafe extern "C" fn decapsulate(
    ctx: *mut c_void,
    out: *mut c_uchar,
    out_len: *mut usize,
    ciphertext: *const c_uchar,
    ciphertext_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx)? };
        if context.operation != Some(Operation::Decapsulate) {
            return Err(fail(
                Reason::OutOfOrder,
                "decapsulate before decapsulate_init",
            ));
        }
        let variant = context.variant;
        let shared_len = variant.secret_len();
        if out_len.is_null() {
            return Err(fail(Reason::OutOfOrder, "no secret length pointer"));
        }
        if out.is_null() {
            // SAFETY: OpenSSL's out-pointer.
            unsafe { *out_len = shared_len };
            return Ok(());
        }
        // SAFETY: OpenSSL's in/out length.
        let room = unsafe { *out_len };
        if room < shared_len {
            return Err(fail(
                Reason::InvalidInput,
                format!("the shared secret is {shared_len} bytes; the buffer holds {room}"),
            ));
        }
        // SAFETY: OpenSSL passes `ciphertext_len` readable bytes.
        let ciphertext = unsafe { crate::input(ciphertext, ciphertext_len) };
        if ciphertext.len() != variant.ciphertext_len() {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "a {} ciphertext is {} bytes, not {}",
                    variant.label(),
                    variant.ciphertext_len(),
                    ciphertext.len()
                ),
            ));
        }
        let kem = context
            .kem_private
            .as_ref()
            .ok_or_else(|| fail(Reason::OutOfOrder, "decapsulate before decapsulate_init"))?;
        let (shared, indicator) = match variant.classical {
            None => kem.decapsulate(ciphertext)?.into_parts(),
            Some((classical, _)) => {
                let (kem_ciphertext, ephemeral_public) =
                    variant.split(ciphertext, registry_public_len(classical));
                variant.check_classical_public(ephemeral_public)?;
                let (kem_secret, indicator) = kem.decapsulate(kem_ciphertext)?.into_parts();
                let classical_private = context.classical_private.as_ref().ok_or_else(|| {
                    fail(Reason::OutOfOrder, "decapsulate before decapsulate_init")
                })?;
                let classical_secret = classical_private.agree(ephemeral_public)?.into_value();
                (variant.join(&kem_secret, &classical_secret), indicator)
            }
        };
        if shared.len() != shared_len {
            return Err(fail(Reason::Internal, "KEM secret of the wrong length"));
        }
        context.last = indicator::settle(indicator)?;
        // SAFETY: `room` >= the secret's length, checked above.
        unsafe { write_out(out, room, out_len, &shared) };
        Ok(())
    })
}

fn ikme_refused(variant: Variant) -> Failure {
    fail(
        Reason::BadParameter,
        format!(
            "\"ikme\": a {} encapsulation uses fresh randomness only",
            variant.label()
        ),
    )
}

/// `ikme` for an encapsulation of ML-KEM alone (32 bytes); a decapsulation is deterministic
/// and drops any.
fn apply(context: &mut Context, params: &Params) -> Result<(), Failure> {
    if context.operation == Some(Operation::Decapsulate) {
        context.ikme = None;
    }
    if let Some(param) = params.locate("ikme")
        && context.operation == Some(Operation::Encapsulate)
    {
        if context.variant.classical.is_some() {
            return Err(ikme_refused(context.variant));
        }
        let m = param.get_octets()?;
        if m.len() != 32 {
            return Err(fail(
                Reason::InvalidInput,
                format!("\"ikme\" is 32 bytes; got {}", m.len()),
            ));
        }
        context.ikme = Some(Zeroizing::new(m.to_vec()));
    }
    Ok(())
}

unsafe extern "C" fn set_ctx_params(ctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated array (or null).
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        apply(context, &params)
    })
}

static SETTABLE: params::ParamList = crate::param_list![("ikme", params::OCTETS)];

unsafe extern "C" fn settable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    SETTABLE.as_ptr()
}

unsafe extern "C" fn gettable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    indicator::GETTABLE.as_ptr()
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        Ok(indicator::answer(context.last, &params)?)
    })
}
