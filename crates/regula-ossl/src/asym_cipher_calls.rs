//! The `OSSL_OP_ASYM_CIPHER` entry points every public-key encryption module shares: init for
//! a direction, OpenSSL's length protocol (a null output asks for a bound), the operation into
//! the caller's buffer only when the whole result fits, and the parameter calls. They are
//! generic over a module's context ([`AsymCipherContext`]); a module says how it takes a key,
//! bounds and runs its operation and reads its parameters (sm2_cipher.rs, rsa_oaep.rs).

use std::os::raw::{c_int, c_uchar, c_void};

use regula::Indicator;
use zeroize::Zeroizing;

use crate::context::Duplicate;
use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::params::{self, Params};

/// `OSSL_OP_ASYM_CIPHER` and its function ids (core_dispatch.h).
pub const OP_ASYM_CIPHER: c_int = 13;
const NEWCTX: c_int = 1;
const ENCRYPT_INIT: c_int = 2;
const ENCRYPT: c_int = 3;
const DECRYPT_INIT: c_int = 4;
const DECRYPT: c_int = 5;
const FREECTX: c_int = 6;
const DUPCTX: c_int = 7;
const GET_CTX_PARAMS: c_int = 8;
const GETTABLE_CTX_PARAMS: c_int = 9;
const SET_CTX_PARAMS: c_int = 10;
const SETTABLE_CTX_PARAMS: c_int = 11;

/// A public-key encryption module's context, as the shared calls drive it. `Duplicate::WHAT`
/// names it in errors ("RSA-OAEP context").
pub trait AsymCipherContext: Duplicate + 'static {
    /// Takes the key (encryption needs its public half, decryption its private one) and the
    /// parameters.
    ///
    /// # Safety
    /// `provkey` is null or a key of this provider's key managers.
    unsafe fn init(
        &mut self,
        provkey: *mut c_void,
        decrypts: bool,
        params: &Params,
    ) -> Result<(), Failure>;

    /// Whether the last init was for this direction (and succeeded).
    fn ready_for(&self, decrypts: bool) -> bool;

    /// The answer to a length query: the most the operation writes for `input_len` bytes in.
    fn output_bound(&self, decrypts: bool, input_len: usize) -> usize;

    /// Encrypts or decrypts `input`; `room` is the caller's buffer, which a module may check
    /// before any work (the shared call checks the result against it too).
    fn run(
        &mut self,
        decrypts: bool,
        input: &[u8],
        room: usize,
    ) -> Result<(Zeroizing<Vec<u8>>, Indicator), Failure>;

    /// `set_ctx_params`.
    fn apply(&mut self, params: &Params) -> Result<(), Failure>;

    /// `get_ctx_params`: the module's parameters, and the indicator through
    /// [`indicator::answer_param`] with [`AsymCipherContext::last`].
    ///
    /// # Safety
    /// `params` is a terminated array.
    unsafe fn answer(&self, params: *mut Param) -> Result<(), Failure>;

    fn last_mut(&mut self) -> &mut LastOperation;
}

/// The dispatch table of a public-key encryption module: its context constructor and
/// parameter lists (OpenSSL may ask for those without a context), and the shared calls.
pub const fn table<T: AsymCipherContext + params::CtxParamLists>(
    newctx: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
) -> [Dispatch; 12] {
    [
        crate::dispatch_fn!(NEWCTX, newctx),
        crate::dispatch_fn!(ENCRYPT_INIT, encrypt_init::<T>),
        crate::dispatch_fn!(ENCRYPT, encrypt::<T>),
        crate::dispatch_fn!(DECRYPT_INIT, decrypt_init::<T>),
        crate::dispatch_fn!(DECRYPT, decrypt::<T>),
        crate::dispatch_fn!(FREECTX, crate::context::free::<T>),
        crate::dispatch_fn!(DUPCTX, crate::context::duplicate::<T>),
        crate::dispatch_fn!(GET_CTX_PARAMS, get_ctx_params::<T>),
        crate::dispatch_fn!(GETTABLE_CTX_PARAMS, params::gettable_ctx_params::<T>),
        crate::dispatch_fn!(SET_CTX_PARAMS, set_ctx_params::<T>),
        crate::dispatch_fn!(SETTABLE_CTX_PARAMS, params::settable_ctx_params::<T>),
        ffi::DISPATCH_END,
    ]
}

/// # Safety
/// As for [`crate::context::borrow`].
unsafe fn context<'a, T: AsymCipherContext>(ctx: *mut c_void) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, T::WHAT) }
}

/// # Safety
/// `ctx` a live context, `provkey` a key of this provider's key managers (or null), `params`
/// terminated or null.
unsafe fn init<T: AsymCipherContext>(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
    decrypts: bool,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    let (context, params) = unsafe { (context::<T>(ctx)?, Params::new(params)) };
    // SAFETY: the caller's contract for `provkey`.
    unsafe { context.init(provkey, decrypts, &params) }
}

unsafe extern "C" fn encrypt_init<T: AsymCipherContext>(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `init` needs them.
    error::entry(|| unsafe { init::<T>(ctx, provkey, params, false) })
}

unsafe extern "C" fn decrypt_init<T: AsymCipherContext>(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `init` needs them.
    error::entry(|| unsafe { init::<T>(ctx, provkey, params, true) })
}

/// The common end of `encrypt` and `decrypt`: OpenSSL's length protocol (a null `out` asks for
/// the bound), then the operation into a buffer of `room` bytes; nothing is written unless the
/// whole result fits.
///
/// # Safety
/// `out` null or `room` writable bytes; `out_len` writable; `input` `input_len` readable bytes.
unsafe fn run<T: AsymCipherContext>(
    ctx: *mut c_void,
    out: *mut c_uchar,
    out_len: *mut usize,
    room: usize,
    input: *const c_uchar,
    input_len: usize,
    decrypts: bool,
) -> Result<(), Failure> {
    // SAFETY: a live context.
    let context = unsafe { context::<T>(ctx)? };
    let call = if decrypts { "decrypt" } else { "encrypt" };
    if !context.ready_for(decrypts) {
        return Err(fail(
            Reason::OutOfOrder,
            format!("{call} before {call}_init"),
        ));
    }
    if out_len.is_null() {
        return Err(fail(Reason::OutOfOrder, "no output length pointer"));
    }
    if out.is_null() {
        // SAFETY: OpenSSL's out-pointer, checked above.
        unsafe { *out_len = context.output_bound(decrypts, input_len) };
        return Ok(());
    }
    // SAFETY: OpenSSL passes `input_len` readable bytes.
    let input = unsafe { crate::input(input, input_len) };
    let (output, indicator) = context.run(decrypts, input, room)?;
    if output.len() > room {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "the {call}ed message is {} bytes; the buffer holds {room}",
                output.len()
            ),
        ));
    }
    *context.last_mut() = indicator::settle(indicator)?;
    // SAFETY: `out` holds `room` >= `output.len()` bytes; `out_len` is writable.
    unsafe {
        std::ptr::copy_nonoverlapping(output.as_ptr(), out, output.len());
        *out_len = output.len();
    }
    Ok(())
}

unsafe extern "C" fn encrypt<T: AsymCipherContext>(
    ctx: *mut c_void,
    out: *mut c_uchar,
    out_len: *mut usize,
    out_size: usize,
    input: *const c_uchar,
    input_len: usize,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `run` needs them.
    error::entry(|| unsafe { run::<T>(ctx, out, out_len, out_size, input, input_len, false) })
}

unsafe extern "C" fn decrypt<T: AsymCipherContext>(
    ctx: *mut c_void,
    out: *mut c_uchar,
    out_len: *mut usize,
    out_size: usize,
    input: *const c_uchar,
    input_len: usize,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `run` needs them.
    error::entry(|| unsafe { run::<T>(ctx, out, out_len, out_size, input, input_len, true) })
}

unsafe extern "C" fn set_ctx_params<T: AsymCipherContext>(
    ctx: *mut c_void,
    params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated array (or null).
        let (context, params) = unsafe { (context::<T>(ctx)?, Params::new(params)) };
        context.apply(&params)
    })
}

unsafe extern "C" fn get_ctx_params<T: AsymCipherContext>(
    ctx: *mut c_void,
    params: *mut Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and OpenSSL's terminated array.
        unsafe { context::<T>(ctx)?.answer(params) }
    })
}
