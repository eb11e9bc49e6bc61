//! The `OSSL_OP_SIGNATURE` entry points every signature module shares. OpenSSL drives each
//! signature the same way — init for a mode, the message whole or in pieces, a size query
//! before the signature, parameters in between — so the calls are written once here, generic
//! over a module's context ([`SignatureContext`]); a module says only how it takes a key,
//! signs, verifies and reads its parameters (signature.rs: ECDSA, Ed25519, RSA; sm2.rs;
//! mldsa.rs). [`table_with_messages`] adds OpenSSL 3.4's message signatures
//! (`EVP_PKEY_sign_message_init` and its kin), for algorithms that sign the message itself.

use std::os::raw::{c_char, c_int, c_uchar, c_void};

use regula::{Indicator, Served};
use zeroize::Zeroizing;

use crate::context::Duplicate;
use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::params::Params;

/// What a signature context was initialised for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    None,
    /// `EVP_PKEY_sign`/`EVP_PKEY_verify`: what the caller passes in one call (the whole message
    /// for Ed25519 and ML-DSA, a digest for SM2's verify).
    Sign,
    Verify,
    /// `EVP_DigestSign*`/`EVP_DigestVerify*`: the message in pieces or in one call.
    DigestSign,
    DigestVerify,
    /// `EVP_PKEY_sign_message_*`/`EVP_PKEY_verify_message_*` (OpenSSL 3.4): the message in
    /// pieces, or whole through `EVP_PKEY_sign`/`EVP_PKEY_verify`.
    SignMessage,
    VerifyMessage,
}

impl Mode {
    /// The mode an init entry point was monomorphised for (`init::<T, { Mode::Sign as u8 }>`).
    const fn from_code(code: u8) -> Mode {
        match code {
            c if c == Mode::Sign as u8 => Mode::Sign,
            c if c == Mode::Verify as u8 => Mode::Verify,
            c if c == Mode::DigestSign as u8 => Mode::DigestSign,
            c if c == Mode::DigestVerify as u8 => Mode::DigestVerify,
            c if c == Mode::SignMessage as u8 => Mode::SignMessage,
            c if c == Mode::VerifyMessage as u8 => Mode::VerifyMessage,
            _ => Mode::None,
        }
    }

    /// Whether the mode makes signatures (and so needs a private key).
    pub fn signs(self) -> bool {
        matches!(self, Mode::Sign | Mode::DigestSign | Mode::SignMessage)
    }
}

/// The part of a signature context the shared calls keep.
#[derive(Clone)]
pub struct Steps {
    pub mode: Mode,
    /// The message so far of a digest-sign or digest-verify.
    pub message: Zeroizing<Vec<u8>>,
    /// The last operation's indicator, for the "regula-indicator" parameters.
    pub last: LastOperation,
    /// The signature a message verification checks at its end ("signature", set before
    /// `EVP_PKEY_verify_message_final`).
    pub signature: Option<Vec<u8>>,
}

impl Steps {
    /// Refuses a parameter that shapes what is signed (an ML-DSA context string, an SM2
    /// distinguishing ID) once the message has started: it would apply to part of it only.
    pub fn before_message(&self, key: &str) -> Result<(), Failure> {
        if self.message.is_empty() {
            return Ok(());
        }
        Err(fail(
            Reason::OutOfOrder,
            format!("\"{key}\" set after the message was started"),
        ))
    }
}

impl Default for Steps {
    fn default() -> Steps {
        Steps {
            mode: Mode::None,
            message: Zeroizing::new(Vec::new()),
            last: LastOperation::default(),
            signature: None,
        }
    }
}

/// A signature module's context, as the shared calls drive it. `Duplicate::WHAT` names it in
/// errors ("SM2 signature context").
pub trait SignatureContext: Duplicate + 'static {
    fn steps(&self) -> &Steps;
    fn steps_mut(&mut self) -> &mut Steps;

    /// Takes the key (null: keep the one already taken), the digest a digest-sign or
    /// digest-verify names, and the parameters, for `mode`. A mode the algorithm does not
    /// offer is refused here.
    ///
    /// # Safety
    /// `provkey` is null or a key of this provider's key managers.
    unsafe fn init(
        &mut self,
        provkey: *mut c_void,
        digest: Option<&str>,
        mode: Mode,
        params: &Params,
    ) -> Result<(), Failure>;

    /// The longest signature the context's key makes: the answer to a size query.
    fn max_signature_len(&self) -> Result<usize, Failure>;

    /// Signs a whole message (or, in `Mode::Sign`, what `EVP_PKEY_sign` passes).
    fn sign_message(&mut self, message: &[u8]) -> Result<Served<Vec<u8>>, Failure>;

    /// Verifies over a whole message: Ok only when the signature verifies.
    fn verify_message(&mut self, message: &[u8], signature: &[u8]) -> Result<Indicator, Failure>;

    /// `EVP_PKEY_verify`'s input: the message, unless the algorithm takes a digest there.
    fn verify_one_shot(&mut self, input: &[u8], signature: &[u8]) -> Result<Indicator, Failure> {
        self.verify_message(input, signature)
    }

    /// `set_ctx_params`.
    fn apply(&mut self, params: &Params) -> Result<(), Failure>;

    /// `get_ctx_params`: the module's parameters and the indicator.
    fn answer(&self, params: &Params) -> Result<(), Failure>;
}

/// The dispatch table of a signature module: its context constructor and parameter lists
/// (OpenSSL may ask for those without a context), and the shared calls.
pub const fn table<T: SignatureContext>(
    newctx: unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void,
    gettable_ctx_params: unsafe extern "C" fn(*mut c_void, *mut c_void) -> *const Param,
    settable_ctx_params: unsafe extern "C" fn(*mut c_void, *mut c_void) -> *const Param,
) -> [Dispatch; 20] {
    [
        crate::dispatch_fn!(ffi::SIGNATURE_NEWCTX, newctx),
        crate::dispatch_fn!(ffi::SIGNATURE_SIGN_INIT, init::<T, { Mode::Sign as u8 }>),
        crate::dispatch_fn!(ffi::SIGNATURE_SIGN, sign::<T>),
        crate::dispatch_fn!(
            ffi::SIGNATURE_VERIFY_INIT,
            init::<T, { Mode::Verify as u8 }>
        ),
        crate::dispatch_fn!(ffi::SIGNATURE_VERIFY, verify::<T>),
        crate::dispatch_fn!(
            ffi::SIGNATURE_DIGEST_SIGN_INIT,
            digest_init::<T, { Mode::DigestSign as u8 }>
        ),
        crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_SIGN_UPDATE, update::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_SIGN_FINAL, sign_final::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_SIGN, digest_sign::<T>),
        crate::dispatch_fn!(
            ffi::SIGNATURE_DIGEST_VERIFY_INIT,
            digest_init::<T, { Mode::DigestVerify as u8 }>
        ),
        crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_VERIFY_UPDATE, update::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_VERIFY_FINAL, digest_verify_final::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_DIGEST_VERIFY, digest_verify::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_FREECTX, crate::context::free::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_DUPCTX, crate::context::duplicate::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_GET_CTX_PARAMS, get_ctx_params::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_GETTABLE_CTX_PARAMS, gettable_ctx_params),
        crate::dispatch_fn!(ffi::SIGNATURE_SET_CTX_PARAMS, set_ctx_params::<T>),
        crate::dispatch_fn!(ffi::SIGNATURE_SETTABLE_CTX_PARAMS, settable_ctx_params),
        ffi::DISPATCH_END,
    ]
}

/// [`table`] with OpenSSL 3.4's message signatures as well.
pub const fn table_with_messages<T: SignatureContext>(
    newctx: unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void,
    gettable_ctx_params: unsafe extern "C" fn(*mut c_void, *mut c_void) -> *const Param,
    settable_ctx_params: unsafe extern "C" fn(*mut c_void, *mut c_void) -> *const Param,
) -> [Dispatch; 26] {
    let base = table::<T>(newctx, gettable_ctx_params, settable_ctx_params);
    let mut all = [ffi::DISPATCH_END; 26];
    let mut i = 0;
    while i < 19 {
        all[i] = base[i];
        i += 1;
    }
    all[19] = crate::dispatch_fn!(
        ffi::SIGNATURE_SIGN_MESSAGE_INIT,
        init::<T, { Mode::SignMessage as u8 }>
    );
    all[20] = crate::dispatch_fn!(ffi::SIGNATURE_SIGN_MESSAGE_UPDATE, update::<T>);
    all[21] = crate::dispatch_fn!(ffi::SIGNATURE_SIGN_MESSAGE_FINAL, sign_final::<T>);
    all[22] = crate::dispatch_fn!(
        ffi::SIGNATURE_VERIFY_MESSAGE_INIT,
        init::<T, { Mode::VerifyMessage as u8 }>
    );
    all[23] = crate::dispatch_fn!(ffi::SIGNATURE_VERIFY_MESSAGE_UPDATE, update::<T>);
    all[24] = crate::dispatch_fn!(
        ffi::SIGNATURE_VERIFY_MESSAGE_FINAL,
        verify_message_final::<T>
    );
    all
}

/// The context behind OpenSSL's pointer.
///
/// # Safety
/// As for [`crate::context::borrow`].
pub unsafe fn context<'a, T: SignatureContext>(ctx: *mut c_void) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, T::WHAT) }
}

/// The C string OpenSSL passes as a digest name, or `None` for a null pointer.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
unsafe fn digest_argument(name: *const c_char) -> Option<String> {
    if name.is_null() {
        return None;
    }
    // SAFETY: the caller's contract.
    Some(
        unsafe { std::ffi::CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// Every init: the state reset, the module's own part, then the mode.
///
/// # Safety
/// `ctx` a live context of `T`; `provkey` null or a key of this provider; `params` a terminated
/// array or null.
unsafe fn begin<T: SignatureContext>(
    ctx: *mut c_void,
    provkey: *mut c_void,
    digest: Option<&str>,
    mode: Mode,
    params: *const Param,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    let (context, params) = unsafe { (context::<T>(ctx)?, Params::new(params)) };
    let steps = context.steps_mut();
    steps.message = Zeroizing::new(Vec::new());
    steps.mode = Mode::None;
    steps.signature = None;
    // SAFETY: the caller's contract for `provkey`.
    unsafe { context.init(provkey, digest, mode, &params)? };
    context.steps_mut().mode = mode;
    Ok(())
}

fn expect_mode<T: SignatureContext>(
    context: &T,
    modes: &[Mode],
    call: &str,
) -> Result<(), Failure> {
    if modes.contains(&context.steps().mode) {
        Ok(())
    } else {
        Err(fail(
            Reason::OutOfOrder,
            format!("{call} on a {} not initialised for it", T::WHAT),
        ))
    }
}

/// Signs `message` into OpenSSL's buffer; with no buffer, gives the longest signature's size.
///
/// # Safety
/// `signature` is null or has `size` writable bytes; `length` is null or a writable
/// out-pointer.
unsafe fn emit<T: SignatureContext>(
    context: &mut T,
    message: &[u8],
    signature: *mut c_uchar,
    length: *mut usize,
    size: usize,
) -> Result<(), Failure> {
    if length.is_null() {
        return Err(fail(Reason::OutOfOrder, "no signature length pointer"));
    }
    if signature.is_null() {
        let longest = context.max_signature_len()?;
        // SAFETY: OpenSSL's out-pointer.
        unsafe { *length = longest };
        return Ok(());
    }
    debug_assert!(context.steps().mode.signs());
    let (made, indicator) = context.sign_message(message)?.into_parts();
    if made.len() > size {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "the signature is {} bytes; the buffer holds {size}",
                made.len()
            ),
        ));
    }
    context.steps_mut().last = indicator::settle(indicator)?;
    // SAFETY: `size` >= the signature's length writable bytes at `signature`, and the
    // out-pointer for the length.
    unsafe {
        std::ptr::copy_nonoverlapping(made.as_ptr(), signature, made.len());
        *length = made.len();
    }
    Ok(())
}

fn settle_verified<T: SignatureContext>(
    context: &mut T,
    verified: Result<Indicator, Failure>,
) -> Result<(), Failure> {
    context.steps_mut().last = indicator::settle(verified?)?;
    Ok(())
}

/// `sign_init`, `verify_init` and the message-signature inits: `MODE` is a [`Mode`]'s code.
unsafe extern "C" fn init<T: SignatureContext, const MODE: u8>(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `begin` takes them.
    error::entry(|| unsafe { begin::<T>(ctx, provkey, None, Mode::from_code(MODE), params) })
}

/// `digest_sign_init` and `digest_verify_init`: `MODE` is a [`Mode`]'s code.
unsafe extern "C" fn digest_init<T: SignatureContext, const MODE: u8>(
    ctx: *mut c_void,
    digest: *const c_char,
    provkey: *mut c_void,
    params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: OpenSSL's arguments: a digest name or null, and as `begin` takes the rest.
        unsafe {
            let digest = digest_argument(digest);
            begin::<T>(
                ctx,
                provkey,
                digest.as_deref(),
                Mode::from_code(MODE),
                params,
            )
        }
    })
}

/// `EVP_PKEY_sign`.
unsafe extern "C" fn sign<T: SignatureContext>(
    ctx: *mut c_void,
    signature: *mut c_uchar,
    length: *mut usize,
    size: usize,
    input: *const c_uchar,
    input_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context; OpenSSL's buffers as `emit` and `input` take them.
        unsafe {
            let context = context::<T>(ctx)?;
            expect_mode(context, &[Mode::Sign, Mode::SignMessage], "sign")?;
            emit(
                context,
                crate::input(input, input_len),
                signature,
                length,
                size,
            )
        }
    })
}

/// `EVP_PKEY_verify`.
unsafe extern "C" fn verify<T: SignatureContext>(
    ctx: *mut c_void,
    signature: *const c_uchar,
    signature_len: usize,
    input: *const c_uchar,
    input_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and OpenSSL's input buffers.
        let (context, signature, input) = unsafe {
            (
                context::<T>(ctx)?,
                crate::input(signature, signature_len),
                crate::input(input, input_len),
            )
        };
        expect_mode(context, &[Mode::Verify, Mode::VerifyMessage], "verify")?;
        let verified = if context.steps().mode == Mode::VerifyMessage {
            context.verify_message(input, signature)
        } else {
            context.verify_one_shot(input, signature)
        };
        settle_verified(context, verified)
    })
}

/// The message in pieces: a digest-sign or digest-verify, or a message signature.
unsafe extern "C" fn update<T: SignatureContext>(
    ctx: *mut c_void,
    data: *const c_uchar,
    len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and OpenSSL's input buffer.
        let (context, data) = unsafe { (context::<T>(ctx)?, crate::input(data, len)) };
        expect_mode(
            context,
            &[
                Mode::DigestSign,
                Mode::DigestVerify,
                Mode::SignMessage,
                Mode::VerifyMessage,
            ],
            "update",
        )?;
        context.steps_mut().message.extend_from_slice(data);
        Ok(())
    })
}

/// The end of a streamed signature (`EVP_DigestSignFinal`, `EVP_PKEY_sign_message_final`).
unsafe extern "C" fn sign_final<T: SignatureContext>(
    ctx: *mut c_void,
    signature: *mut c_uchar,
    length: *mut usize,
    size: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context::<T>(ctx)? };
        expect_mode(
            context,
            &[Mode::DigestSign, Mode::SignMessage],
            "sign final",
        )?;
        let message = std::mem::take(&mut context.steps_mut().message);
        // SAFETY: OpenSSL's buffers as `emit` takes them.
        let result = unsafe { emit(context, &message, signature, length, size) };
        if signature.is_null() {
            // Only the size was asked for: the message is still to be signed.
            context.steps_mut().message = message;
        }
        result
    })
}

unsafe extern "C" fn digest_sign<T: SignatureContext>(
    ctx: *mut c_void,
    signature: *mut c_uchar,
    length: *mut usize,
    size: usize,
    message: *const c_uchar,
    message_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context; OpenSSL's buffers as `emit` and `input` take them.
        unsafe {
            let context = context::<T>(ctx)?;
            expect_mode(context, &[Mode::DigestSign], "digest sign")?;
            let message = crate::input(message, message_len);
            emit(context, message, signature, length, size)
        }
    })
}

unsafe extern "C" fn digest_verify_final<T: SignatureContext>(
    ctx: *mut c_void,
    signature: *const c_uchar,
    signature_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and OpenSSL's input buffer.
        let (context, signature) =
            unsafe { (context::<T>(ctx)?, crate::input(signature, signature_len)) };
        expect_mode(context, &[Mode::DigestVerify], "digest verify final")?;
        let message = std::mem::take(&mut context.steps_mut().message);
        let verified = context.verify_message(&message, signature);
        settle_verified(context, verified)
    })
}

unsafe extern "C" fn digest_verify<T: SignatureContext>(
    ctx: *mut c_void,
    signature: *const c_uchar,
    signature_len: usize,
    message: *const c_uchar,
    message_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and OpenSSL's input buffers.
        let (context, signature, message) = unsafe {
            (
                context::<T>(ctx)?,
                crate::input(signature, signature_len),
                crate::input(message, message_len),
            )
        };
        expect_mode(context, &[Mode::DigestVerify], "digest verify")?;
        let verified = context.verify_message(message, signature);
        settle_verified(context, verified)
    })
}

unsafe extern "C" fn set_ctx_params<T: SignatureContext>(
    ctx: *mut c_void,
    params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated array (or null).
        let (context, params) = unsafe { (context::<T>(ctx)?, Params::new(params)) };
        if let Some(param) = params.locate("signature") {
            context.steps_mut().signature = Some(param.get_octets()?.to_vec());
        }
        context.apply(&params)
    })
}

unsafe extern "C" fn get_ctx_params<T: SignatureContext>(
    ctx: *mut c_void,
    params: *mut Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated array.
        let (context, params) = unsafe { (context::<T>(ctx)?, Params::new(params)) };
        context.answer(&params)
    })
}

/// Checks the signature set as "signature" over the message streamed in.
unsafe extern "C" fn verify_message_final<T: SignatureContext>(ctx: *mut c_void) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context::<T>(ctx)? };
        expect_mode(context, &[Mode::VerifyMessage], "verify message final")?;
        let signature = context.steps_mut().signature.take().ok_or_else(|| {
            fail(
                Reason::OutOfOrder,
                "no signature to verify: set \"signature\" (EVP_PKEY_CTX_set_signature) first",
            )
        })?;
        let message = std::mem::take(&mut context.steps_mut().message);
        let verified = context.verify_message(&message, &signature);
        settle_verified(context, verified)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each init entry point gets the mode its table names.
    #[test]
    fn every_mode_comes_back_from_its_code() {
        for mode in [
            Mode::None,
            Mode::Sign,
            Mode::Verify,
            Mode::DigestSign,
            Mode::DigestVerify,
            Mode::SignMessage,
            Mode::VerifyMessage,
        ] {
            assert_eq!(Mode::from_code(mode as u8), mode);
        }
    }
}
