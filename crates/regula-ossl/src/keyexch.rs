//! `OSSL_OP_KEYEXCH`: "ECDH" (P-256, P-384, P-521) and "X25519" over the keys of `keymgmt.rs`, as
//! OpenSSL's providers/implementations/exchange/{ecdh_exch,ecx_exch}.c behave for libssl's
//! (EC)DHE: `init` with our private key, `set_peer` with the peer's public key of the same
//! group, `derive` giving the shared secret (the x-coordinate, or X25519's 32 bytes). The
//! agreement is the core's, so it passes the policy and is counted by the service indicator;
//! the core refuses a peer point off the curve.
//!
//! What OpenSSL's ECDH offers beyond the raw secret, the X9.63 KDF, is refused with a reason
//! rather than ignored. Cofactor ECDH is the same computation on these curves (cofactor 1).

use std::os::raw::{c_int, c_uchar, c_void};
use std::sync::Arc;

use regula::{AgreementKey, Algorithm, Family, Policy};

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::keymgmt::{self, KEY_TYPES, KeyType};
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};

pub fn offers(policy: &Policy) -> Vec<Offer> {
    KEY_TYPES
        .iter()
        .filter_map(|&kind| {
            let rows: Vec<_> = served_rows(policy, Family::KeyAgreement)
                .filter(|row| kind.serves(row))
                .collect();
            let first = rows.first()?;
            let openssl = first.openssl.as_ref()?;
            Some(Offer::for_rows(
                policy,
                &rows,
                openssl.names.to_owned(),
                openssl.canonical(),
                &TABLES.0[kind as usize],
            ))
        })
        .collect()
}

/// One key exchange (`EVP_PKEY_CTX`'s provider half for derive).
#[derive(Clone)]
struct Context {
    kind: KeyType,
    /// Our private key and its group.
    key: Option<(Algorithm, Arc<AgreementKey>)>,
    /// The peer's encoded public key.
    peer: Option<Vec<u8>>,
    last: LastOperation,
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "key exchange context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(self.clone())
    }
}

type Tables = ffi::SyncTable<[[Dispatch; 11]; 2]>;

static TABLES: Tables = ffi::SyncTable([table::<0>(), table::<1>()]);

const fn table<const K: usize>() -> [Dispatch; 11] {
    [
        crate::dispatch_fn!(ffi::KEYEXCH_NEWCTX, newctx::<K>),
        crate::dispatch_fn!(ffi::KEYEXCH_INIT, init),
        crate::dispatch_fn!(ffi::KEYEXCH_DERIVE, derive),
        crate::dispatch_fn!(ffi::KEYEXCH_SET_PEER, set_peer),
        crate::dispatch_fn!(ffi::KEYEXCH_FREECTX, crate::context::free::<Context>),
        crate::dispatch_fn!(ffi::KEYEXCH_DUPCTX, crate::context::duplicate::<Context>),
        crate::dispatch_fn!(ffi::KEYEXCH_SET_CTX_PARAMS, set_ctx_params),
        crate::dispatch_fn!(ffi::KEYEXCH_SETTABLE_CTX_PARAMS, settable_ctx_params::<K>),
        crate::dispatch_fn!(ffi::KEYEXCH_GET_CTX_PARAMS, get_ctx_params),
        crate::dispatch_fn!(ffi::KEYEXCH_GETTABLE_CTX_PARAMS, gettable_ctx_params::<K>),
        ffi::DISPATCH_END,
    ]
}

unsafe extern "C" fn newctx<const K: usize>(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        let Some(&kind) = KEY_TYPES.get(K) else {
            return std::ptr::null_mut();
        };
        if let Err(problem) = provider.module.ensure_operational() {
            error::raise_regula(&problem);
            return std::ptr::null_mut();
        }
        crate::context::into_raw(Context {
            kind,
            key: None,
            peer: None,
            last: LastOperation::default(),
        })
    })
}

/// # Safety
/// As for [`crate::context::borrow`].
unsafe fn context<'a>(ctx: *mut c_void) -> Result<&'a mut Context, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, "key exchange context") }
}

fn other_type(context: &Context) -> Failure {
    fail(
        Reason::InvalidInput,
        format!("not an {} key", context.kind.label()),
    )
}

/// `init`: our private key (a key of this provider's key manager), and any parameters.
unsafe extern "C" fn init(ctx: *mut c_void, provkey: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context, a key of this provider's key manager (OpenSSL hands an
        // exchange only keys of its own provider's key manager), a terminated array or null.
        let (context, key, params) =
            unsafe { (context(ctx)?, keymgmt::key(provkey)?, Params::new(params)) };
        if key.kind != context.kind {
            return Err(other_type(context));
        }
        let (Some(group), Some(private)) = (key.group, &key.private) else {
            return Err(fail(
                Reason::InvalidInput,
                "key exchange needs a private key; this key has none",
            ));
        };
        context.key = Some((group, Arc::clone(private)));
        context.peer = None;
        apply(context, &params)
    })
}

/// `set_peer`: the peer's public key, of our key's group.
unsafe extern "C" fn set_peer(ctx: *mut c_void, provkey: *mut c_void) -> c_int {
    error::entry(|| {
        // SAFETY: as for `init`.
        let (context, peer) = unsafe { (context(ctx)?, keymgmt::key(provkey)?) };
        if peer.kind != context.kind {
            return Err(other_type(context));
        }
        let Some((group, _)) = &context.key else {
            return Err(fail(Reason::OutOfOrder, "set_peer before init"));
        };
        if peer.group != Some(*group) {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "the peer's key is not on {}",
                    keymgmt::group_short_name(*group)
                ),
            ));
        }
        let public = peer
            .public
            .as_ref()
            .ok_or_else(|| fail(Reason::InvalidInput, "the peer's key has no public key"))?;
        context.peer = Some(public.clone());
        Ok(())
    })
}

/// `derive`: with no output buffer, the secret's length; otherwise the secret, which needs
/// room for the whole of it (the field size: ECDH's x-coordinate keeps its leading zeros).
unsafe extern "C" fn derive(
    ctx: *mut c_void,
    secret: *mut c_uchar,
    secret_len: *mut usize,
    out_len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx)? };
        let Some((group, key)) = &context.key else {
            return Err(fail(Reason::OutOfOrder, "derive before init"));
        };
        let length = keymgmt::facts(*group).field;
        if secret_len.is_null() {
            return Err(fail(Reason::OutOfOrder, "no secret length pointer"));
        }
        if secret.is_null() {
            // SAFETY: OpenSSL's out-pointer.
            unsafe { *secret_len = length };
            return Ok(());
        }
        let peer = context
            .peer
            .as_ref()
            .ok_or_else(|| fail(Reason::OutOfOrder, "derive before set_peer"))?;
        if out_len < length {
            return Err(fail(
                Reason::InvalidInput,
                format!("the shared secret is {length} bytes; the buffer holds {out_len}"),
            ));
        }
        let (shared, indicator) = key.agree(peer)?.into_parts();
        if shared.len() != length {
            return Err(fail(Reason::Internal, "shared secret of the wrong length"));
        }
        context.last = indicator::settle(indicator)?;
        // SAFETY: OpenSSL passes `out_len` >= `length` writable bytes at `secret`, and the
        // out-pointer for the length.
        unsafe {
            std::ptr::copy_nonoverlapping(shared.as_ptr(), secret, length);
            *secret_len = length;
        }
        Ok(())
    })
}

unsafe extern "C" fn set_ctx_params(ctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated array (or null).
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        apply(context, &params)
    })
}

/// ECDH's context parameters (ecdh_exch.c): `pad` changes nothing (the secret always has the
/// field's length); the cofactor mode is the same computation on curves of cofactor 1; the
/// X9.63 KDF is not served, so asking for it is an error rather than a silently raw secret.
fn apply(context: &mut Context, params: &Params) -> Result<(), Failure> {
    if context.kind != KeyType::Ec {
        return Ok(());
    }
    for param in params.iter() {
        match param.key {
            "pad" => {
                param.get_i64()?;
            }
            "use-cofactor-flag" => {
                let mode = param.get_i64()?;
                if !(-1..=1).contains(&mode) {
                    return Err(fail(
                        Reason::BadParameter,
                        format!("\"use-cofactor-flag\" is -1, 0 or 1, not {mode}"),
                    ));
                }
            }
            "kdf-type" => {
                let kdf = param.get_utf8()?;
                if !kdf.is_empty() {
                    return Err(kdf_refused(&format!("\"kdf-type\" {kdf}")));
                }
            }
            "kdf-digest" | "kdf-digest-props" | "kdf-outlen" | "kdf-ukm" => {
                return Err(kdf_refused(&format!("\"{}\"", param.key)));
            }
            _ => {}
        }
    }
    Ok(())
}

fn kdf_refused(what: &str) -> Failure {
    fail(
        Reason::BadParameter,
        format!(
            "{what}: the Regula provider's ECDH gives the raw shared secret only (no X9.63 KDF); \
             derive keys from it with a KDF"
        ),
    )
}

static ECDH_SETTABLE: params::ParamList = crate::param_list![
    ("pad", params::UINT),
    ("use-cofactor-flag", params::INT),
    ("kdf-type", params::UTF8),
];
static NONE: params::ParamList = crate::param_list![];

unsafe extern "C" fn settable_ctx_params<const K: usize>(
    _ctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    if K == KeyType::Ec as usize {
        ECDH_SETTABLE.as_ptr()
    } else {
        NONE.as_ptr()
    }
}

static ECDH_GETTABLE: params::ParamList = crate::param_list![
    ("use-cofactor-flag", params::INT),
    ("kdf-type", params::UTF8),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

unsafe extern "C" fn gettable_ctx_params<const K: usize>(
    _ctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    if K == KeyType::Ec as usize {
        ECDH_GETTABLE.as_ptr()
    } else {
        indicator::GETTABLE.as_ptr()
    }
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        for mut param in params.iter() {
            match (context.kind, param.key) {
                (KeyType::Ec, "use-cofactor-flag") => param.set_i64(0)?,
                (KeyType::Ec, "kdf-type") => param.set_utf8("")?,
                _ => indicator::answer_param(context.last, &mut param)?,
            }
        }
        Ok(())
    })
}
