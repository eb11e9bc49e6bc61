//! `OSSL_OP_KDF`: HKDF, the TLS 1.3 KDF, the TLS 1.2 PRF, PBKDF2 and KBKDF, with OpenSSL's
//! parameters and semantics (providers/implementations/kdfs/{hkdf,tls1_prf,pbkdf2,kbkdf}.c).
//!
//! One OpenSSL algorithm per OpenSSL name; the registry row is chosen at derive time from the
//! `digest` parameter, and every derivation is a call to the core's public API, so it passes the
//! policy and is counted by the indicator. The TLS 1.3 KDF is formatting over HKDF extract and
//! expand (RFC 8446 §7.1's HkdfLabel); KBKDF's fixed input (label, separator, context, L) is
//! built here for the core's counter-mode KBKDF, and what it cannot express is refused.

use std::os::raw::{c_int, c_uchar, c_void};

use regula::{Algorithm, Family, Indicator, Module, Policy, registry};
use zeroize::Zeroizing;

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::params::{self, ParamRef, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};

/// The OpenSSL KDFs the provider can offer; the discriminant is the const parameter of
/// `newctx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Hkdf = 0,
    Tls13 = 1,
    Tls1Prf = 2,
    Pbkdf2 = 3,
    Kbkdf = 4,
}

const KINDS: [Kind; 5] = [
    Kind::Hkdf,
    Kind::Tls13,
    Kind::Tls1Prf,
    Kind::Pbkdf2,
    Kind::Kbkdf,
];

impl Kind {
    /// The first OpenSSL name of the registry rows serving this KDF.
    fn row_name(self) -> &'static str {
        match self {
            Kind::Hkdf | Kind::Tls13 => "HKDF",
            Kind::Tls1Prf => "TLS1-PRF",
            Kind::Pbkdf2 => "PBKDF2",
            Kind::Kbkdf => "KBKDF",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Kind::Tls13 => "TLS13-KDF",
            other => other.row_name(),
        }
    }

    fn from_index(index: usize) -> Option<Kind> {
        KINDS.get(index).copied()
    }
}

/// Whether a KDF row serves `kind` (by its first OpenSSL name). The fscrypt row shares HKDF's
/// name but is served only through the module's fscrypt derivation.
fn row_serves(row: &registry::Entry, kind: Kind) -> bool {
    row.algorithm != Algorithm::FscryptHkdfSha512
        && row
            .openssl
            .as_ref()
            .is_some_and(|name| name.names.split(':').next() == Some(kind.row_name()))
}

pub fn offers(policy: &Policy) -> Vec<Offer> {
    KINDS
        .iter()
        .filter_map(|&kind| {
            let rows: Vec<_> = served_rows(policy, Family::Kdf)
                .filter(|row| row_serves(row, kind))
                .collect();
            let first = rows.first()?;
            let names = match kind {
                Kind::Tls13 => "TLS13-KDF".to_owned(),
                _ => first.openssl.as_ref()?.names.to_owned(),
            };
            Some(Offer::for_rows(
                policy,
                &rows,
                names,
                kind.label(),
                &TABLES.0[kind as usize],
            ))
        })
        .collect()
}

/// The KDF row of `kind` over `digest`, or why there is none.
fn row_for(kind: Kind, digest: Algorithm, digest_name: &str) -> Result<Algorithm, Failure> {
    Algorithm::ALL
        .into_iter()
        .find(|&algorithm| {
            let row = registry::entry(algorithm);
            row.family == Family::Kdf && row.hash == Some(digest) && row_serves(row, kind)
        })
        .ok_or_else(|| {
            fail(
                Reason::NotApproved,
                format!(
                    "{} with digest {digest_name} is not an algorithm of the Regula module",
                    kind.label()
                ),
            )
        })
}

fn digest_len(digest: Algorithm) -> usize {
    registry::entry(digest).sizes.output.unwrap_or(0)
}

// OpenSSL's EVP_KDF_HKDF_MODE_* numbers.
const MODE_EXTRACT_AND_EXPAND: i64 = 0;
const MODE_EXTRACT_ONLY: i64 = 1;
const MODE_EXPAND_ONLY: i64 = 2;

/// PBKDF2's defaults and lower bounds (OpenSSL's pbkdf2.c, SP 800-132).
const PKCS5_DEFAULT_ITER: u64 = 2048;
const PBKDF2_MIN_KEY_BITS: usize = 112;
const PBKDF2_MIN_SALT_BYTES: usize = 128 / 8;
const PBKDF2_MIN_ITERATIONS: u64 = 1000;
const PBKDF2_MIN_PASSWORD_BYTES: usize = 1;

/// One KDF context (`EVP_KDF_CTX`'s provider half). Secrets are zeroized when dropped.
#[derive(Clone)]
struct Context {
    module: Module,
    kind: Kind,
    /// The digest named by `digest`, with the name as given (for messages).
    digest: Option<(Algorithm, String)>,
    /// `key` (HKDF, TLS13-KDF, KBKDF), `secret` (TLS1-PRF), `pass` (PBKDF2).
    key: Option<Zeroizing<Vec<u8>>>,
    /// `salt` (HKDF, TLS13-KDF, PBKDF2; KBKDF's label).
    salt: Option<Vec<u8>>,
    /// `info` (HKDF; KBKDF's context), `seed` (TLS1-PRF).
    info: Zeroizing<Vec<u8>>,
    mode: i64,
    // TLS13-KDF.
    prefix: Vec<u8>,
    label: Vec<u8>,
    data: Vec<u8>,
    // PBKDF2.
    iterations: u64,
    lower_bound_checks: bool,
    // KBKDF.
    feedback: bool,
    mac: Option<String>,
    use_l: bool,
    use_separator: bool,
    r: i64,
    last: LastOperation,
    /// The first step of the last derivation that was not approved, for the application's
    /// indicator callback.
    unapproved_step: Option<Algorithm>,
}

impl Context {
    fn new(module: Module, kind: Kind) -> Context {
        let sha1 = (kind == Kind::Pbkdf2)
            .then(|| {
                crate::names::row_named_in(Family::Digest, "SHA1")
                    .map(|digest| (digest, "SHA1".to_owned()))
            })
            .flatten();
        Context {
            module,
            kind,
            // OpenSSL's PBKDF2 defaults to SHA-1; the others need a digest set.
            digest: sha1,
            key: None,
            salt: None,
            info: Zeroizing::new(Vec::new()),
            mode: MODE_EXTRACT_AND_EXPAND,
            prefix: Vec::new(),
            label: Vec::new(),
            data: Vec::new(),
            iterations: PKCS5_DEFAULT_ITER,
            lower_bound_checks: false,
            feedback: false,
            mac: None,
            use_l: true,
            use_separator: true,
            r: 32,
            last: LastOperation::default(),
            unapproved_step: None,
        }
    }

    /// Notes the indicator of one step of a derivation: the whole is approved only if every
    /// step was.
    fn note(&mut self, indicator: Indicator, first: bool) {
        if first {
            self.unapproved_step = None;
        }
        if !indicator.is_approved() && self.unapproved_step.is_none() {
            self.unapproved_step = Some(indicator.algorithm);
        }
        let step = LastOperation::from(indicator);
        self.last = if first || self.last == LastOperation::Approved {
            step
        } else {
            LastOperation::NotApproved
        };
    }
}

type Tables = ffi::SyncTable<[[Dispatch; 12]; 5]>;

static TABLES: Tables = ffi::SyncTable([
    table::<0>(),
    table::<1>(),
    table::<2>(),
    table::<3>(),
    table::<4>(),
]);

const fn table<const K: usize>() -> [Dispatch; 12] {
    [
        crate::dispatch_fn!(ffi::KDF_NEWCTX, newctx::<K>),
        crate::dispatch_fn!(ffi::KDF_DUPCTX, crate::context::duplicate::<Context>),
        crate::dispatch_fn!(ffi::KDF_FREECTX, crate::context::free::<Context>),
        crate::dispatch_fn!(ffi::KDF_RESET, reset),
        crate::dispatch_fn!(ffi::KDF_DERIVE, derive),
        crate::dispatch_fn!(ffi::KDF_GETTABLE_PARAMS, gettable_params),
        crate::dispatch_fn!(ffi::KDF_GET_PARAMS, get_params),
        crate::dispatch_fn!(ffi::KDF_GETTABLE_CTX_PARAMS, gettable_ctx_params),
        crate::dispatch_fn!(ffi::KDF_GET_CTX_PARAMS, get_ctx_params),
        crate::dispatch_fn!(ffi::KDF_SETTABLE_CTX_PARAMS, settable_ctx_params::<K>),
        crate::dispatch_fn!(ffi::KDF_SET_CTX_PARAMS, set_ctx_params),
        ffi::DISPATCH_END,
    ]
}

unsafe extern "C" fn newctx<const K: usize>(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        let Some(kind) = Kind::from_index(K) else {
            return std::ptr::null_mut();
        };
        if let Err(problem) = provider.module.ensure_operational() {
            error::raise_regula(&problem);
            return std::ptr::null_mut();
        }
        crate::context::into_raw(Context::new(provider.module.clone(), kind))
    })
}

/// # Safety
/// As for [`context::borrow`].
unsafe fn context<'a>(ctx: *mut c_void) -> Result<&'a mut Context, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, "KDF context") }
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "KDF context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(self.clone())
    }
}

/// `EVP_KDF_CTX_reset`: every parameter back to its default, secrets zeroized.
unsafe extern "C" fn reset(ctx: *mut c_void) {
    error::guard((), || {
        // SAFETY: a live context.
        if let Ok(context) = unsafe { context(ctx) } {
            *context = Context::new(context.module.clone(), context.kind);
        }
    })
}

unsafe extern "C" fn set_ctx_params(ctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array (or null).
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        apply(context, &params)
    })
}

/// Every parameter OpenSSL defines for the context's KDF; others are ignored, as OpenSSL does.
fn apply(context: &mut Context, params: &Params) -> Result<(), Failure> {
    let kind = context.kind;
    // Several `info` (HKDF, KBKDF) or `seed` (TLS1-PRF) parameters concatenate; HKDF's and
    // KBKDF's replace what an earlier call set.
    let concatenated = match kind {
        Kind::Hkdf | Kind::Kbkdf => Some("info"),
        Kind::Tls1Prf => Some("seed"),
        _ => None,
    };
    // OpenSSL reads PBKDF2's `pkcs5` before the values it governs, wherever it stands.
    if kind == Kind::Pbkdf2
        && let Some(pkcs5) = params.locate("pkcs5")
    {
        context.lower_bound_checks = pkcs5.get_i64()? == 0;
    }
    let mut pieces: Option<Zeroizing<Vec<u8>>> = None;
    for param in params.iter() {
        if Some(param.key) == concatenated {
            pieces
                .get_or_insert_with(|| Zeroizing::new(Vec::new()))
                .extend_from_slice(param.get_octets()?);
            continue;
        }
        match (kind, param.key) {
            (_, "properties") => {}
            (_, "digest") => {
                let name = param.get_utf8()?;
                let digest =
                    crate::names::row_named_in(Family::Digest, &name).ok_or_else(|| {
                        fail(
                            Reason::NotApproved,
                            format!("digest \"{name}\" is not served by the Regula module"),
                        )
                    })?;
                context.digest = Some((digest, name));
            }
            (Kind::Hkdf | Kind::Tls13 | Kind::Kbkdf, "key")
            | (Kind::Tls1Prf, "secret")
            | (Kind::Pbkdf2, "pass") => {
                let key = param.get_octets()?;
                if kind == Kind::Pbkdf2
                    && context.lower_bound_checks
                    && key.len() < PBKDF2_MIN_PASSWORD_BYTES
                {
                    return Err(fail(
                        Reason::InvalidInput,
                        format!(
                            "password length {} should be at least {PBKDF2_MIN_PASSWORD_BYTES}",
                            key.len()
                        ),
                    ));
                }
                context.key = Some(Zeroizing::new(key.to_vec()));
            }
            (Kind::Hkdf | Kind::Tls13 | Kind::Pbkdf2 | Kind::Kbkdf, "salt") => {
                let salt = param.get_octets()?;
                if kind == Kind::Pbkdf2 && context.lower_bound_checks {
                    pbkdf2_bounds(salt.len(), PBKDF2_MIN_ITERATIONS, usize::MAX)?;
                }
                context.salt = Some(salt.to_vec());
            }
            (Kind::Hkdf | Kind::Tls13, "mode") => context.mode = hkdf_mode(&param)?,
            (Kind::Tls13, "prefix") => context.prefix = param.get_octets()?.to_vec(),
            (Kind::Tls13, "label") => context.label = param.get_octets()?.to_vec(),
            (Kind::Tls13, "data") => context.data = param.get_octets()?.to_vec(),
            (Kind::Pbkdf2, "iter") => {
                let iterations = param.get_i64()?;
                let iterations = u64::try_from(iterations)
                    .map_err(|_| fail(Reason::BadParameter, "parameter \"iter\" is negative"))?;
                if context.lower_bound_checks {
                    pbkdf2_bounds(PBKDF2_MIN_SALT_BYTES, iterations, usize::MAX)?;
                }
                context.iterations = iterations;
            }
            (Kind::Kbkdf, "mode") => {
                let mode = param.get_utf8()?;
                context.feedback = if mode.eq_ignore_ascii_case("counter") {
                    false
                } else if mode.eq_ignore_ascii_case("feedback") {
                    true
                } else {
                    return Err(fail(
                        Reason::BadParameter,
                        format!("KBKDF mode \"{mode}\" is not counter or feedback"),
                    ));
                };
            }
            (Kind::Kbkdf, "mac") => context.mac = Some(param.get_utf8()?),
            (Kind::Kbkdf, "cipher") => {
                return Err(fail(
                    Reason::NotApproved,
                    "KBKDF with a CMAC PRF (parameter \"cipher\") is not served by the Regula \
                     module; use mac=HMAC with a digest",
                ));
            }
            (Kind::Kbkdf, "seed") => {
                // The feedback-mode IV; counter mode has none and ignores it, as OpenSSL does.
                param.get_octets()?;
            }
            (Kind::Kbkdf, "use-l") => context.use_l = param.get_i64()? != 0,
            (Kind::Kbkdf, "use-separator") => context.use_separator = param.get_i64()? != 0,
            (Kind::Kbkdf, "r") => {
                let r = param.get_i64()?;
                if ![8, 16, 24, 32].contains(&r) {
                    return Err(fail(
                        Reason::BadParameter,
                        format!("KBKDF counter length r = {r} is not 8, 16, 24 or 32 bits"),
                    ));
                }
                context.r = r;
            }
            _ => {}
        }
    }
    if let Some(pieces) = pieces {
        if kind == Kind::Tls1Prf {
            // TLS1-PRF's seeds concatenate across calls too (OpenSSL's tls1_prf.c).
            context.info.extend_from_slice(&pieces);
        } else {
            context.info = pieces;
        }
    }
    // OpenSSL's TLS13-KDF has no extract-and-expand mode: any setting that leaves it there fails.
    if kind == Kind::Tls13 && context.mode == MODE_EXTRACT_AND_EXPAND {
        return Err(fail(
            Reason::BadParameter,
            "TLS13-KDF mode must be EXTRACT_ONLY or EXPAND_ONLY",
        ));
    }
    Ok(())
}

/// HKDF's `mode`: a name (any case) or OpenSSL's number.
fn hkdf_mode(param: &ParamRef<'_>) -> Result<i64, Failure> {
    let mode = match param.get_utf8() {
        Ok(name) => match name.to_ascii_uppercase().as_str() {
            "EXTRACT_AND_EXPAND" => MODE_EXTRACT_AND_EXPAND,
            "EXTRACT_ONLY" => MODE_EXTRACT_ONLY,
            "EXPAND_ONLY" => MODE_EXPAND_ONLY,
            _ => -1,
        },
        Err(_) => param.get_i64()?,
    };
    if (MODE_EXTRACT_AND_EXPAND..=MODE_EXPAND_ONLY).contains(&mode) {
        Ok(mode)
    } else {
        Err(fail(
            Reason::BadParameter,
            "invalid mode: use EXTRACT_AND_EXPAND, EXTRACT_ONLY or EXPAND_ONLY (0, 1 or 2)",
        ))
    }
}

/// OpenSSL's PBKDF2 lower-bound checks (SP 800-132), on when `pkcs5` is 0.
fn pbkdf2_bounds(salt_len: usize, iterations: u64, key_len: usize) -> Result<(), Failure> {
    if key_len.saturating_mul(8) < PBKDF2_MIN_KEY_BITS {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "key size {} bits should be at least {PBKDF2_MIN_KEY_BITS} bits (or set pkcs5=1)",
                key_len * 8
            ),
        ));
    }
    if salt_len < PBKDF2_MIN_SALT_BYTES {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "salt length {salt_len} bytes should be at least {PBKDF2_MIN_SALT_BYTES} (or set pkcs5=1)"
            ),
        ));
    }
    if iterations < PBKDF2_MIN_ITERATIONS {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "iteration count {iterations} should be at least {PBKDF2_MIN_ITERATIONS} (or set pkcs5=1)"
            ),
        ));
    }
    Ok(())
}

unsafe extern "C" fn derive(
    ctx: *mut c_void,
    key: *mut c_uchar,
    keylen: usize,
    params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array (or null).
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        context.module.ensure_operational()?;
        apply(context, &params)?;
        if keylen == 0 {
            return Err(fail(
                Reason::InvalidInput,
                "invalid key length: the output size is 0",
            ));
        }
        if key.is_null() {
            return Err(fail(Reason::InvalidInput, "no output buffer"));
        }
        let output = match context.kind {
            Kind::Hkdf => derive_hkdf(context, keylen)?,
            Kind::Tls13 => derive_tls13(context, keylen)?,
            Kind::Tls1Prf => derive_tls1_prf(context, keylen)?,
            Kind::Pbkdf2 => derive_pbkdf2(context, keylen)?,
            Kind::Kbkdf => derive_kbkdf(context, keylen)?,
        };
        if output.len() != keylen {
            return Err(fail(Reason::Internal, "derived output of the wrong length"));
        }
        if let Some(algorithm) = context.unapproved_step {
            crate::indicator::permit_unapproved(algorithm, "key-derivation")?;
        }
        // SAFETY: OpenSSL passes `keylen` writable bytes at `key`.
        unsafe { std::ptr::copy_nonoverlapping(output.as_ptr(), key, keylen) };
        Ok(())
    })
}

/// The row of the context's KDF over its digest, and the digest.
fn chosen_row(context: &Context) -> Result<(Algorithm, Algorithm), Failure> {
    let (digest, name) = context
        .digest
        .as_ref()
        .ok_or_else(|| fail(Reason::BadParameter, "missing message digest"))?;
    Ok((row_for(context.kind, *digest, name)?, *digest))
}

fn required<'a>(value: &'a Option<Zeroizing<Vec<u8>>>, what: &str) -> Result<&'a [u8], Failure> {
    value
        .as_deref()
        .map(Vec::as_slice)
        .ok_or_else(|| fail(Reason::BadParameter, format!("missing {what}")))
}

type Derived = Zeroizing<Vec<u8>>;

fn derive_hkdf(context: &mut Context, len: usize) -> Result<Derived, Failure> {
    let (row, digest) = chosen_row(context)?;
    let key = required(&context.key, "key")?;
    let salt = context.salt.as_deref().unwrap_or(&[]);
    let served = match context.mode {
        MODE_EXTRACT_ONLY => {
            let size = digest_len(digest);
            if len != size {
                return Err(fail(
                    Reason::InvalidInput,
                    format!(
                        "wrong output buffer size: HKDF extract gives {size} bytes, asked for {len}"
                    ),
                ));
            }
            context.module.hkdf_extract(row, key, salt)?
        }
        MODE_EXPAND_ONLY => context.module.hkdf_expand(row, key, &context.info, len)?,
        _ => context.module.hkdf(row, key, salt, &context.info, len)?,
    };
    context.note(served.indicator(), true);
    Ok(Zeroizing::new(served.to_vec()))
}

/// RFC 8446 §7.1's HkdfLabel: length ‖ ⟨prefix ‖ label⟩₈ ‖ ⟨context⟩₈.
fn hkdf_label(len: usize, prefix: &[u8], label: &[u8], data: &[u8]) -> Result<Vec<u8>, Failure> {
    let length = u16::try_from(len).map_err(|_| {
        fail(
            Reason::InvalidInput,
            format!("TLS13-KDF output of {len} bytes exceeds 65535"),
        )
    })?;
    let label_len = u8::try_from(prefix.len() + label.len()).map_err(|_| {
        fail(
            Reason::InvalidInput,
            "TLS13-KDF prefix and label exceed 255 bytes",
        )
    })?;
    let data_len = u8::try_from(data.len())
        .map_err(|_| fail(Reason::InvalidInput, "TLS13-KDF data exceeds 255 bytes"))?;
    let mut encoded = Vec::with_capacity(4 + prefix.len() + label.len() + data.len());
    encoded.extend_from_slice(&length.to_be_bytes());
    encoded.push(label_len);
    encoded.extend_from_slice(prefix);
    encoded.extend_from_slice(label);
    encoded.push(data_len);
    encoded.extend_from_slice(data);
    Ok(encoded)
}

fn derive_tls13(context: &mut Context, len: usize) -> Result<Derived, Failure> {
    let (row, digest) = chosen_row(context)?;
    let module = context.module.clone();
    if context.mode == MODE_EXPAND_ONLY {
        // HKDF-Expand-Label(Secret = key, Label = prefix ‖ label, Context = data, Length).
        let secret = required(&context.key, "key")?;
        let info = hkdf_label(len, &context.prefix, &context.label, &context.data)?;
        let served = module.hkdf_expand(row, secret, &info, len)?;
        context.note(served.indicator(), true);
        if crate::tls13_ivs::is_write_iv(&context.prefix, &context.label, &context.data, len) {
            crate::tls13_ivs::record(&served);
        }
        return Ok(Zeroizing::new(served.to_vec()));
    }
    // Extract: HKDF-Extract(Derive-Secret(salt, label, "") or zeros, key or zeros), as
    // OpenSSL's prov_tls13_hkdf_generate_secret.
    let size = digest_len(digest);
    if len != size {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "wrong output buffer size: TLS13-KDF extract gives {size} bytes, asked for {len}"
            ),
        ));
    }
    let zeros = vec![0u8; size];
    let secret: Zeroizing<Vec<u8>> = Zeroizing::new(
        context
            .key
            .as_deref()
            .map_or_else(|| zeros.clone(), Vec::clone),
    );
    let (previous, derived_salt): (Zeroizing<Vec<u8>>, Option<Indicator>) = match &context.salt {
        None => (Zeroizing::new(zeros), None),
        Some(salt) => {
            let empty_hash = module.digest(digest, b"")?;
            let info = hkdf_label(size, &context.prefix, &context.label, &empty_hash)?;
            let served = module.hkdf_expand(row, salt, &info, size)?;
            (Zeroizing::new(served.to_vec()), Some(served.indicator()))
        }
    };
    let served = module.hkdf_extract(row, &secret, &previous)?;
    if let Some(indicator) = derived_salt {
        context.note(indicator, true);
    }
    context.note(served.indicator(), derived_salt.is_none());
    Ok(Zeroizing::new(served.to_vec()))
}

fn derive_tls1_prf(context: &mut Context, len: usize) -> Result<Derived, Failure> {
    let (row, _) = chosen_row(context)?;
    let secret = required(&context.key, "secret")?;
    if context.info.is_empty() {
        return Err(fail(Reason::BadParameter, "missing seed"));
    }
    let served = context.module.tls12_prf(row, secret, &context.info, len)?;
    context.note(served.indicator(), true);
    Ok(Zeroizing::new(served.to_vec()))
}

fn derive_pbkdf2(context: &mut Context, len: usize) -> Result<Derived, Failure> {
    let password = required(&context.key, "pass")?;
    let salt = context
        .salt
        .as_deref()
        .ok_or_else(|| fail(Reason::BadParameter, "missing salt"))?;
    if context.lower_bound_checks {
        pbkdf2_bounds(salt.len(), context.iterations, len)?;
    }
    let (row, _) = chosen_row(context)?;
    let iterations = u32::try_from(context.iterations).map_err(|_| {
        fail(
            Reason::InvalidInput,
            format!("iteration count {} exceeds 2^32 - 1", context.iterations),
        )
    })?;
    let served = context
        .module
        .pbkdf2(row, password, salt, iterations, len)?;
    context.note(served.indicator(), true);
    Ok(Zeroizing::new(served.to_vec()))
}

fn derive_kbkdf(context: &mut Context, len: usize) -> Result<Derived, Failure> {
    match context.mac.as_deref() {
        None => return Err(fail(Reason::BadParameter, "missing mac")),
        Some(mac) if mac.eq_ignore_ascii_case("HMAC") => {}
        Some(mac) => {
            return Err(fail(
                Reason::NotApproved,
                format!("KBKDF with mac {mac} is not served by the Regula module; use HMAC"),
            ));
        }
    }
    if context.feedback {
        return Err(fail(
            Reason::NotApproved,
            "KBKDF feedback mode is not served by the Regula module; use counter mode",
        ));
    }
    if context.r != 32 {
        return Err(fail(
            Reason::NotApproved,
            format!(
                "KBKDF with an {}-bit counter is not served by the Regula module; use r=32",
                context.r
            ),
        ));
    }
    let (row, _) = chosen_row(context)?;
    let key = context
        .key
        .as_deref()
        .ok_or_else(|| fail(Reason::BadParameter, "no key set"))?;
    // SP 800-108r1 §4.1's fixed input after the counter: label ‖ [0x00] ‖ context ‖ [[L]₃₂].
    let label = context.salt.as_deref().unwrap_or(&[]);
    let mut fixed_input = Zeroizing::new(Vec::with_capacity(label.len() + 5 + context.info.len()));
    fixed_input.extend_from_slice(label);
    if context.use_separator {
        fixed_input.push(0);
    }
    fixed_input.extend_from_slice(&context.info);
    if context.use_l {
        let bits = len
            .checked_mul(8)
            .and_then(|bits| u32::try_from(bits).ok())
            .ok_or_else(|| {
                fail(
                    Reason::InvalidInput,
                    format!("KBKDF output of {len} bytes is too long"),
                )
            })?;
        fixed_input.extend_from_slice(&bits.to_be_bytes());
    }
    let served = context.module.kbkdf(row, key, &fixed_input, len)?;
    context.note(served.indicator(), true);
    Ok(Zeroizing::new(served.to_vec()))
}

static NO_PARAMS: params::ParamList = crate::param_list![];

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const Param {
    NO_PARAMS.as_ptr()
}

unsafe extern "C" fn get_params(_params: *mut Param) -> c_int {
    params::OK
}

static GETTABLE_CTX: params::ParamList = crate::param_list![
    ("size", params::UINT),
    ("mode", params::UTF8),
    ("digest", params::UTF8),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

unsafe extern "C" fn gettable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    GETTABLE_CTX.as_ptr()
}

/// `size` (HKDF extract: the digest length; otherwise unbounded, `SIZE_MAX`), HKDF's `mode`
/// and `digest`, and the indicator of the last derivation.
unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        let hkdf = matches!(context.kind, Kind::Hkdf | Kind::Tls13);
        for mut param in params.iter() {
            match param.key {
                "size" => {
                    if hkdf && context.mode == MODE_EXTRACT_ONLY {
                        let (digest, _) = context
                            .digest
                            .as_ref()
                            .ok_or_else(|| fail(Reason::BadParameter, "missing message digest"))?;
                        param.set_usize(digest_len(*digest))?;
                    } else {
                        param.set_u64(u64::MAX)?;
                    }
                }
                "mode" if hkdf => match param.set_utf8(match context.mode {
                    MODE_EXTRACT_ONLY => "EXTRACT_ONLY",
                    MODE_EXPAND_ONLY => "EXPAND_ONLY",
                    _ => "EXTRACT_AND_EXPAND",
                }) {
                    Ok(()) => {}
                    Err(_) => param.set_i64(context.mode)?,
                },
                "digest" => {
                    if let Some((digest, _)) = &context.digest
                        && let Some(openssl) = &registry::entry(*digest).openssl
                    {
                        let name = openssl.names.split(':').next().unwrap_or_default();
                        param.set_utf8(name)?;
                    }
                }
                _ => indicator::answer_param(context.last, &mut param)?,
            }
        }
        Ok(())
    })
}

static SETTABLE_HKDF: params::ParamList = crate::param_list![
    ("mode", params::UTF8),
    ("mode", params::INT),
    ("properties", params::UTF8),
    ("digest", params::UTF8),
    ("key", params::OCTETS),
    ("salt", params::OCTETS),
    ("info", params::OCTETS),
];

static SETTABLE_TLS13: params::ParamList = crate::param_list![
    ("mode", params::UTF8),
    ("mode", params::INT),
    ("properties", params::UTF8),
    ("digest", params::UTF8),
    ("key", params::OCTETS),
    ("salt", params::OCTETS),
    ("prefix", params::OCTETS),
    ("label", params::OCTETS),
    ("data", params::OCTETS),
];

static SETTABLE_TLS1_PRF: params::ParamList = crate::param_list![
    ("properties", params::UTF8),
    ("digest", params::UTF8),
    ("secret", params::OCTETS),
    ("seed", params::OCTETS),
];

static SETTABLE_PBKDF2: params::ParamList = crate::param_list![
    ("properties", params::UTF8),
    ("digest", params::UTF8),
    ("pass", params::OCTETS),
    ("salt", params::OCTETS),
    ("iter", params::UINT),
    ("pkcs5", params::INT),
];

static SETTABLE_KBKDF: params::ParamList = crate::param_list![
    ("mode", params::UTF8),
    ("mac", params::UTF8),
    ("digest", params::UTF8),
    ("cipher", params::UTF8),
    ("properties", params::UTF8),
    ("key", params::OCTETS),
    ("salt", params::OCTETS),
    ("info", params::OCTETS),
    ("seed", params::OCTETS),
    ("use-l", params::INT),
    ("use-separator", params::INT),
    ("r", params::INT),
];

unsafe extern "C" fn settable_ctx_params<const K: usize>(
    _ctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    match Kind::from_index(K) {
        Some(Kind::Hkdf) => SETTABLE_HKDF.as_ptr(),
        Some(Kind::Tls13) => SETTABLE_TLS13.as_ptr(),
        Some(Kind::Tls1Prf) => SETTABLE_TLS1_PRF.as_ptr(),
        Some(Kind::Pbkdf2) => SETTABLE_PBKDF2.as_ptr(),
        Some(Kind::Kbkdf) | None => SETTABLE_KBKDF.as_ptr(),
    }
}
