//! `OSSL_OP_ASYM_CIPHER` "SM2": GB/T 32918.4-2016 public-key encryption over the keys of the
//! SM2 key manager (sm2.rs), as OpenSSL's and Tongsuo's providers offer it to
//! `EVP_PKEY_encrypt` / `EVP_PKEY_decrypt` (`openssl pkeyutl -encrypt/-decrypt`). The
//! ciphertext is GM/T 0009-2012's ASN.1 `SM2Cipher` (what OpenSSL writes and reads); the hash
//! is SM3 (`digest` may name it; another digest is refused when the operation runs, as
//! OpenSSL's own provider refuses an XOF there). Encryption is the core's
//! `encrypt_to_public_key`; decryption imports the key's scalar into the core's `sm2-encrypt`
//! row once per init.

use std::os::raw::{c_int, c_uchar, c_void};
use std::sync::Arc;

use regula::{Algorithm, CiphertextFormat, DecryptionKey, Family, Module, Policy};

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};
use crate::sm2;

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

/// The encryption row; its keys come from the SM2 key manager, which the signature row offers.
const ROW: Algorithm = Algorithm::Sm2Encrypt;
/// SM3's output, the `C3` of a ciphertext.
const HASH_LEN: usize = 32;
/// curveSM2's field in bytes.
const FIELD: usize = 32;

/// "SM2" where the policy serves SM2 encryption and the SM2 key manager (SM2 signatures) too.
pub fn offers(policy: &Policy) -> Vec<Offer> {
    if !policy.serves(Algorithm::Sm2Sign) {
        return Vec::new();
    }
    let rows: Vec<_> = served_rows(policy, Family::PublicKeyEncryption)
        .filter(|row| row.algorithm == ROW)
        .collect();
    let Some(names) = rows
        .first()
        .and_then(|row| row.openssl.as_ref())
        .map(|name| name.names.to_owned())
    else {
        return Vec::new();
    };
    vec![Offer::for_rows(
        policy,
        &rows,
        names,
        "SM2 encryption",
        &TABLE.0,
    )]
}

static TABLE: ffi::SyncTable<[Dispatch; 12]> = ffi::SyncTable([
    crate::dispatch_fn!(NEWCTX, newctx),
    crate::dispatch_fn!(ENCRYPT_INIT, encrypt_init),
    crate::dispatch_fn!(ENCRYPT, encrypt),
    crate::dispatch_fn!(DECRYPT_INIT, decrypt_init),
    crate::dispatch_fn!(DECRYPT, decrypt),
    crate::dispatch_fn!(FREECTX, crate::context::free::<Context>),
    crate::dispatch_fn!(DUPCTX, crate::context::duplicate::<Context>),
    crate::dispatch_fn!(GET_CTX_PARAMS, get_ctx_params),
    crate::dispatch_fn!(GETTABLE_CTX_PARAMS, gettable_ctx_params),
    crate::dispatch_fn!(SET_CTX_PARAMS, set_ctx_params),
    crate::dispatch_fn!(SETTABLE_CTX_PARAMS, settable_ctx_params),
    ffi::DISPATCH_END,
]);

/// What an init prepared: the recipient's point, or our decryption key.
#[derive(Clone)]
enum Operation {
    Encrypt { point: Vec<u8> },
    Decrypt { key: Arc<DecryptionKey> },
}

/// One encryption or decryption (`EVP_PKEY_CTX`'s provider half).
#[derive(Clone)]
struct Context {
    module: Module,
    operation: Option<Operation>,
    /// The digest `digest` named (empty: SM3 by default).
    digest: String,
    last: LastOperation,
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "SM2 encryption context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(self.clone())
    }
}

unsafe extern "C" fn newctx(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        if let Err(problem) = provider.module.ensure_operational() {
            error::raise_regula(&problem);
            return std::ptr::null_mut();
        }
        crate::context::into_raw(Context {
            module: provider.module.clone(),
            operation: None,
            digest: String::new(),
            last: LastOperation::default(),
        })
    })
}

/// # Safety
/// As for [`crate::context::borrow`].
unsafe fn context<'a>(ctx: *mut c_void) -> Result<&'a mut Context, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, "SM2 encryption context") }
}

/// # Safety
/// `ctx` a live context, `provkey` a key of this provider's key managers (or null), `params`
/// terminated or null.
unsafe fn init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
    encrypts: bool,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract; `sm2::key` refuses another key manager's key.
    let (context, key, params) =
        unsafe { (context(ctx)?, sm2::key(provkey)?, Params::new(params)) };
    context.operation = None;
    context.digest.clear();
    let operation = if encrypts {
        let point = key.public.clone().ok_or_else(|| {
            fail(
                Reason::InvalidInput,
                "SM2 encryption needs a public key; this key has none",
            )
        })?;
        Operation::Encrypt { point }
    } else {
        let signing = key.signing.as_ref().ok_or_else(|| {
            fail(
                Reason::InvalidInput,
                "SM2 decryption needs a private key; this key has none",
            )
        })?;
        let scalar = sm2::scalar_of(signing)?;
        let key = context
            .module
            .decryption_key_from_pkcs8(ROW, &sm2::pkcs8(&scalar))?
            .into_value();
        Operation::Decrypt { key: Arc::new(key) }
    };
    context.operation = Some(operation);
    apply(context, &params)
}

unsafe extern "C" fn encrypt_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `init` needs them.
    error::entry(|| unsafe { init(ctx, provkey, params, true) })
}

unsafe extern "C" fn decrypt_init(
    ctx: *mut c_void,
    provkey: *mut c_void,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `init` needs them.
    error::entry(|| unsafe { init(ctx, provkey, params, false) })
}

/// Refuses a digest other than SM3, which is all GB/T 32918.4 here hashes with.
fn check_digest(context: &Context) -> Result<(), Failure> {
    let name = context.digest.as_str();
    if name.is_empty() || crate::names::row_named_in(Family::Digest, name) == Some(Algorithm::Sm3) {
        return Ok(());
    }
    Err(fail(
        Reason::NotApproved,
        format!("SM2 encryption hashes with SM3 only (GB/T 32918.4); \"{name}\" was named"),
    ))
}

/// The DER length of a length-`len` content's header (tag and length bytes).
fn der_header_len(len: usize) -> usize {
    match len {
        0..=0x7f => 2,
        0x80..=0xff => 3,
        0x100..=0xffff => 4,
        _ => 5,
    }
}

/// The longest `SM2Cipher` of a `plaintext_len`-byte message: two INTEGER coordinates (with a
/// sign byte), the hash and the ciphertext as OCTET STRINGs, in a SEQUENCE.
fn ciphertext_bound(plaintext_len: usize) -> usize {
    let coordinate = der_header_len(FIELD + 1) + FIELD + 1;
    let body = 2 * coordinate
        + der_header_len(HASH_LEN)
        + HASH_LEN
        + der_header_len(plaintext_len)
        + plaintext_len;
    der_header_len(body) + body
}

/// The common end of `encrypt` and `decrypt`: OpenSSL's length protocol (a null `out` asks for
/// the bound), then the operation into a buffer of `room` bytes.
///
/// # Safety
/// `out` null or `room` writable bytes; `out_len` writable; `input` `input_len` readable bytes.
unsafe fn run(
    ctx: *mut c_void,
    out: *mut c_uchar,
    out_len: *mut usize,
    room: usize,
    input: *const c_uchar,
    input_len: usize,
    encrypts: bool,
) -> Result<(), Failure> {
    // SAFETY: a live context.
    let context = unsafe { context(ctx)? };
    let call = if encrypts { "encrypt" } else { "decrypt" };
    let operation = match (&context.operation, encrypts) {
        (Some(operation @ Operation::Encrypt { .. }), true)
        | (Some(operation @ Operation::Decrypt { .. }), false) => operation.clone(),
        _ => {
            return Err(fail(
                Reason::OutOfOrder,
                format!("{call} before {call}_init"),
            ));
        }
    };
    if out_len.is_null() {
        return Err(fail(Reason::OutOfOrder, "no output length pointer"));
    }
    let bound = if encrypts {
        ciphertext_bound(input_len)
    } else {
        input_len
    };
    if out.is_null() {
        // SAFETY: OpenSSL's out-pointer, checked above.
        unsafe { *out_len = bound };
        return Ok(());
    }
    // Checked here, not at the length query, as OpenSSL's own provider does.
    check_digest(context)?;
    // SAFETY: OpenSSL passes `input_len` readable bytes.
    let input = unsafe { crate::input(input, input_len) };
    let (output, indicator) = match operation {
        Operation::Encrypt { point } => {
            let (ciphertext, indicator) = context
                .module
                .encrypt_to_public_key(ROW, &point, input, CiphertextFormat::Asn1)?
                .into_parts();
            (zeroize::Zeroizing::new(ciphertext), indicator)
        }
        Operation::Decrypt { key } => key.decrypt(input, CiphertextFormat::Asn1)?.into_parts(),
    };
    if output.len() > room {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "the {call}ed message is {} bytes; the buffer holds {room}",
                output.len()
            ),
        ));
    }
    context.last = indicator::settle(indicator)?;
    // SAFETY: `out` holds `room` >= `output.len()` bytes; `out_len` is writable.
    unsafe {
        std::ptr::copy_nonoverlapping(output.as_ptr(), out, output.len());
        *out_len = output.len();
    }
    Ok(())
}

unsafe extern "C" fn encrypt(
    ctx: *mut c_void,
    out: *mut c_uchar,
    out_len: *mut usize,
    out_size: usize,
    input: *const c_uchar,
    input_len: usize,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `run` needs them.
    error::entry(|| unsafe { run(ctx, out, out_len, out_size, input, input_len, true) })
}

unsafe extern "C" fn decrypt(
    ctx: *mut c_void,
    out: *mut c_uchar,
    out_len: *mut usize,
    out_size: usize,
    input: *const c_uchar,
    input_len: usize,
) -> c_int {
    // SAFETY: OpenSSL's arguments, as `run` needs them.
    error::entry(|| unsafe { run(ctx, out, out_len, out_size, input, input_len, false) })
}

/// `digest` (a name; checked when the operation runs) and `digest-props` (ignored: the
/// module's SM3 is the only one used).
fn apply(context: &mut Context, params: &Params) -> Result<(), Failure> {
    if let Some(param) = params.locate("digest") {
        context.digest = param.get_utf8()?;
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

static SETTABLE: params::ParamList =
    crate::param_list![("digest", params::UTF8), ("digest-props", params::UTF8),];

unsafe extern "C" fn settable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    SETTABLE.as_ptr()
}

static GETTABLE: params::ParamList = crate::param_list![
    ("digest", params::UTF8),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

unsafe extern "C" fn gettable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    GETTABLE.as_ptr()
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        for mut param in params.iter() {
            if param.key == "digest" {
                param.set_utf8(if context.digest.is_empty() {
                    "SM3"
                } else {
                    &context.digest
                })?;
            } else {
                indicator::answer_param(context.last, &mut param)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_covers_the_longest_ciphertext() {
        // 30 81 xx | 02 21 00 x | 02 21 00 y | 04 20 hash | 04 len message.
        assert_eq!(ciphertext_bound(34), 3 + 35 + 35 + 34 + 36);
        // A 200-byte message: its OCTET STRING's length takes two bytes, the SEQUENCE's three.
        assert_eq!(ciphertext_bound(200), 4 + 35 + 35 + 34 + 203);
    }
}
