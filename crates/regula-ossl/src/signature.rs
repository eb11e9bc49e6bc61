//! `OSSL_OP_SIGNATURE`: "ECDSA" (P-256 with SHA-256, P-384 with SHA-384, P-521 with SHA-512)
//! and "ED25519" over the keys of `keymgmt.rs`, as OpenSSL's providers/implementations/signature/{ecdsa_sig,eddsa_sig}.c
//! behave for libssl and `EVP_DigestSign*`/`EVP_DigestVerify*`: the message goes to the core,
//! which hashes it with the row's digest (ECDSA) or signs it whole (Ed25519), so each signature
//! passes the policy and is counted by the service indicator. ECDSA signatures are DER
//! `SEQUENCE { r, s }`, Ed25519's the 64 bytes of RFC 8032, as OpenSSL's.
//!
//! ECDSA is served as digest-sign only: the core signs a message, not a digest the caller
//! computed, so `EVP_PKEY_sign`/`EVP_PKEY_verify` with an ECDSA key are refused with that
//! reason. The digest an ECDSA caller names must be its row's (SHA2-256 for a P-256 key,
//! SHA2-384 for P-384); another is refused rather than silently replaced.

use std::os::raw::{c_char, c_void};
use std::sync::Arc;

use regula::{Algorithm, Family, Indicator, Module, Policy, Served, SigningKey, registry};

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator;
use crate::keymgmt::{self, KeyType};
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};
use crate::signature_calls::{self, Mode, SignatureContext, Steps};

/// The key types that sign, in the order of [`TABLES`].
const SIGNING_KEY_TYPES: [KeyType; 3] = [KeyType::Ec, KeyType::Ed25519, KeyType::Rsa];

pub fn offers(policy: &Policy) -> Vec<Offer> {
    SIGNING_KEY_TYPES
        .iter()
        .enumerate()
        .filter_map(|(index, &kind)| {
            let rows: Vec<_> = served_rows(policy, Family::Signature)
                .filter(|row| kind.serves(row))
                .collect();
            let first = rows.first()?;
            let openssl = first.openssl.as_ref()?;
            Some(Offer::for_rows(
                policy,
                &rows,
                openssl.names.to_owned(),
                openssl.canonical(),
                &TABLES.0[index],
            ))
        })
        .collect()
}

/// One signature operation (`EVP_PKEY_CTX`'s provider half for signing and verifying).
#[derive(Clone)]
struct Context {
    module: Module,
    kind: KeyType,
    /// The signature row of the key (ecdsa-p256, ecdsa-p384, ed25519).
    row: Option<Algorithm>,
    signing: Option<Arc<SigningKey>>,
    /// The public key (an uncompressed point or Ed25519's 32 bytes) for verifying.
    public: Option<Vec<u8>>,
    steps: Steps,
    /// An RSA signature's key, and the choices that pick its row when it signs or verifies.
    rsa: Option<keymgmt::RsaKey>,
    rsa_choice: RsaChoice,
}

/// An RSA signature's parameters: `pad-mode`, `digest`, `mgf1-digest` and `saltlen`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RsaChoice {
    pss: bool,
    /// The message digest (SHA2-256 unless named, as OpenSSL's default for RSA keys).
    digest: Option<Algorithm>,
    mgf1: Option<Algorithm>,
    salt: Salt,
}

impl Default for RsaChoice {
    fn default() -> RsaChoice {
        RsaChoice {
            pss: false,
            digest: None,
            mgf1: None,
            salt: Salt::AutoDigestMax,
        }
    }
}

/// RSA-PSS salt lengths as OpenSSL names them (`saltlen`: "digest" or -1, "auto" or -2, "max"
/// or -3, "auto-digestmax" or -4, or a number of bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Salt {
    Digest,
    Auto,
    Max,
    AutoDigestMax,
    Bytes(i64),
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "signature context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(self.clone())
    }
}

type Tables = ffi::SyncTable<[[Dispatch; 20]; 3]>;

static TABLES: Tables = ffi::SyncTable([
    table::<{ KeyType::Ec as usize }>(),
    table::<{ KeyType::Ed25519 as usize }>(),
    table::<{ KeyType::Rsa as usize }>(),
]);

const fn table<const K: usize>() -> [Dispatch; 20] {
    signature_calls::table::<Context>(
        newctx::<K>,
        gettable_ctx_params::<K>,
        settable_ctx_params::<K>,
    )
}

unsafe extern "C" fn newctx<const K: usize>(
    provctx: *mut c_void,
    _properties: *const c_char,
) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        let Some(kind) = KeyType::from_index(K) else {
            return std::ptr::null_mut();
        };
        if let Err(problem) = provider.module.ensure_operational() {
            error::raise_regula(&problem);
            return std::ptr::null_mut();
        }
        crate::context::into_raw(Context {
            module: provider.module.clone(),
            kind,
            row: None,
            signing: None,
            public: None,
            steps: Steps::default(),
            rsa: None,
            rsa_choice: RsaChoice::default(),
        })
    })
}

/// The name of a digest row as OpenSSL names it first ("SHA2-256").
fn digest_name(digest: Algorithm) -> &'static str {
    registry::entry(digest)
        .openssl
        .as_ref()
        .map_or(registry::entry(digest).name, |name| name.canonical())
}

/// Checks a digest the caller names against the row: ECDSA's row fixes its digest; Ed25519
/// takes none (it hashes with SHA-512 itself, RFC 8032 §5.1.6).
fn check_digest(kind: KeyType, row: Option<Algorithm>, name: &str) -> Result<(), Failure> {
    if kind == KeyType::Ed25519 {
        if name.is_empty() {
            return Ok(());
        }
        return Err(fail(
            Reason::BadParameter,
            format!(
                "Ed25519 takes no digest (it hashes the message with SHA-512 itself); \
                 \"{name}\" was named"
            ),
        ));
    }
    let named = crate::names::row_named_in(Family::Digest, name).ok_or_else(|| {
        fail(
            Reason::BadParameter,
            format!("\"{name}\" is not a digest of the Regula provider"),
        )
    })?;
    let Some(row) = row else {
        return Ok(());
    };
    let wanted = registry::entry(row).hash;
    if wanted == Some(named) {
        return Ok(());
    }
    Err(fail(
        Reason::NotApproved,
        format!(
            "{row} signs with {} only; {} was named (the Regula provider serves ECDSA on \
             P-256 with SHA2-256, on P-384 with SHA2-384 and on P-521 with SHA2-512)",
            wanted.map_or("its own digest", digest_name),
            digest_name(named)
        ),
    ))
}

/// The module's part of every `*_init`: the key (kept when OpenSSL passes none to restart the
/// operation with the same key), and the parameters.
///
/// # Safety
/// `provkey` is null or a key of this provider's key manager.
unsafe fn take_key(
    context: &mut Context,
    provkey: *mut c_void,
    digest: Option<&str>,
    mode: Mode,
    params: &Params,
) -> Result<(), Failure> {
    if matches!(context.kind, KeyType::Ec | KeyType::Rsa)
        && matches!(mode, Mode::Sign | Mode::Verify)
    {
        return Err(fail(
            Reason::NotApproved,
            format!(
                "{} over a digest computed by the caller is not offered by the Regula provider: \
                 the module hashes the message itself; use EVP_DigestSign/EVP_DigestVerify",
                kind_label(context.kind)
            ),
        ));
    }
    if !provkey.is_null() {
        // SAFETY: OpenSSL hands a signature only keys of its own provider's key manager.
        let key = unsafe { keymgmt::key(provkey)? };
        if key.kind != context.kind {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "a {} signature needs an {} key, not an {} key",
                    kind_label(context.kind),
                    context.kind.label(),
                    key.kind.label()
                ),
            ));
        }
        if key.kind == KeyType::Rsa {
            return init_rsa(context, key, digest, mode, params);
        }
        let group = key
            .group
            .ok_or_else(|| fail(Reason::InvalidInput, "the EC key has no group"))?;
        let row = keymgmt::signature_row(key.kind, group).ok_or_else(|| {
            fail(
                Reason::NotApproved,
                format!(
                    "{} keys do not sign in the Regula provider",
                    keymgmt::group_short_name(group)
                ),
            )
        })?;
        if !context.module.policy().serves(row) {
            return Err(fail(
                Reason::NotApproved,
                format!(
                    "{row} is not served under the Regula policy {}",
                    context.module.policy().name()
                ),
            ));
        }
        context.row = Some(row);
        context.signing = None;
        context.public = key.public.clone();
        if mode.signs() {
            context.signing = Some(key.signing_key()?);
        } else if context.public.is_none() {
            return Err(fail(Reason::InvalidInput, "the key has no public key"));
        }
    }
    if context.kind == KeyType::Rsa {
        // Restarted with the key of the last init.
        let key = context.rsa.take();
        return match key {
            Some(key) => init_rsa_key(context, key, digest, mode, params),
            None => Err(fail(
                Reason::OutOfOrder,
                "no key: initialise with a key first",
            )),
        };
    }
    if context.row.is_none() {
        return Err(fail(
            Reason::OutOfOrder,
            "no key: initialise with a key first",
        ));
    }
    if mode.signs() && context.signing.is_none() {
        return Err(fail(
            Reason::InvalidInput,
            "signing needs a private key; this context's key has none",
        ));
    }
    if let Some(digest) = digest {
        check_digest(context.kind, context.row, digest)?;
    }
    apply(context, params)
}

/// The algorithm as an error message names it.
fn kind_label(kind: KeyType) -> &'static str {
    match kind {
        KeyType::Ec => "ECDSA",
        KeyType::Rsa => "RSA",
        _ => "ED25519",
    }
}

/// Every RSA signature row, whether or not the policy serves it.
fn rsa_rows() -> impl Iterator<Item = Algorithm> {
    Algorithm::ALL
        .into_iter()
        .filter(|&algorithm| KeyType::Rsa.serves(registry::entry(algorithm)))
}

/// The digest row an RSA caller names; one no RSA row hashes with is refused.
fn rsa_digest(name: &str) -> Result<Algorithm, Failure> {
    let digest = crate::names::row_named_in(Family::Digest, name);
    match digest {
        Some(digest) if rsa_rows().any(|row| registry::entry(row).hash == Some(digest)) => {
            Ok(digest)
        }
        _ => Err(fail(
            Reason::NotApproved,
            format!(
                "\"{name}\" is not a digest of the Regula provider's RSA signatures (SHA2-256, \
                 SHA2-384, SHA2-512; SHA1 to verify only)"
            ),
        )),
    }
}

fn init_rsa(
    context: &mut Context,
    key: &keymgmt::Key,
    digest: Option<&str>,
    mode: Mode,
    params: &Params,
) -> Result<(), Failure> {
    let rsa = key
        .rsa
        .clone()
        .ok_or_else(|| fail(Reason::InvalidInput, "the RSA key holds no key yet"))?;
    init_rsa_key(context, rsa, digest, mode, params)
}

/// An RSA init: the key, the digest (the caller's, else SHA2-256 as OpenSSL's default for RSA
/// keys), PKCS#1 v1.5 padding until `pad-mode` says otherwise, and the parameters.
fn init_rsa_key(
    context: &mut Context,
    rsa: keymgmt::RsaKey,
    digest: Option<&str>,
    mode: Mode,
    params: &Params,
) -> Result<(), Failure> {
    if mode.signs() && rsa.private.is_none() {
        return Err(fail(
            Reason::InvalidInput,
            "signing needs a private key; this context's key has none",
        ));
    }
    context.public = Some(rsa.public.spki.clone());
    context.signing = None;
    context.row = None;
    context.rsa = Some(rsa);
    context.rsa_choice = RsaChoice::default();
    if let Some(digest) = digest.filter(|digest| !digest.is_empty()) {
        context.rsa_choice.digest = Some(rsa_digest(digest)?);
    }
    apply(context, params)
}

/// The RSA row the context's choices name (e.g. `pss` + SHA2-256 is rsa-pss-sha256), served
/// by the policy. RSA-PSS is the core's: MGF1 with the message digest and a salt as long as the
/// digest (FIPS 186-5 §5.4 (g)), which is what TLS 1.3 asks (RFC 8446 §4.2.3); other salt
/// lengths and MGF1 digests are refused rather than signed or verified otherwise.
fn rsa_row(context: &Context, signing: bool) -> Result<Algorithm, Failure> {
    let choice = context.rsa_choice;
    let digest = choice.digest.unwrap_or(Algorithm::Sha256);
    let pad = if choice.pss { "pss" } else { "pkcs1" };
    let row = rsa_rows()
        .find(|&row| {
            let entry = registry::entry(row);
            entry.hash == Some(digest) && keymgmt::openssl_param(entry, "pad-mode") == Some(pad)
        })
        .ok_or_else(|| {
            fail(
                Reason::NotApproved,
                format!(
                    "RSA {pad} with {} is not offered by the Regula provider",
                    digest_name(digest)
                ),
            )
        })?;
    if choice.pss {
        if let Some(mgf1) = choice.mgf1.filter(|&mgf1| mgf1 != digest) {
            return Err(fail(
                Reason::NotApproved,
                format!(
                    "RSA-PSS with MGF1-{} over a {} digest is not offered: the Regula \
                     provider's MGF1 uses the message digest",
                    digest_name(mgf1),
                    digest_name(digest)
                ),
            ));
        }
        let hash_len = registry::entry(digest).sizes.output.unwrap_or(0) as i64;
        let fits = match choice.salt {
            Salt::Digest | Salt::AutoDigestMax => true,
            Salt::Bytes(bytes) => bytes == hash_len,
            // To verify, "auto" takes the salt from the signature: one as long as the digest
            // verifies, another does not.
            Salt::Auto => !signing,
            Salt::Max => false,
        };
        if !fits {
            return Err(fail(
                Reason::NotApproved,
                format!(
                    "RSA-PSS salt length {:?}: the Regula provider {} with a salt as long as the \
                     digest ({hash_len} bytes) only (saltlen \"digest\")",
                    choice.salt,
                    if signing { "signs" } else { "verifies" }
                ),
            ));
        }
    }
    if !context.module.policy().serves(row) {
        return Err(fail(
            Reason::NotApproved,
            format!(
                "{row} is not served under the Regula policy {}",
                context.module.policy().name()
            ),
        ));
    }
    Ok(row)
}

/// `pad-mode` as a name or OpenSSL's number: PKCS#1 v1.5 (1) and PSS (6) sign; none (3),
/// OAEP (4) and X9.31 (5) are refused.
fn rsa_pad(param: &params::ParamRef<'_>) -> Result<bool, Failure> {
    let name = match param.get_utf8() {
        Ok(name) => name,
        Err(_) => match param.get_i64()? {
            1 => "pkcs1".to_owned(),
            6 => "pss".to_owned(),
            3 => "none".to_owned(),
            4 => "oaep".to_owned(),
            5 => "x931".to_owned(),
            other => other.to_string(),
        },
    };
    match name.to_ascii_lowercase().as_str() {
        "pkcs1" => Ok(false),
        "pss" => Ok(true),
        _ => Err(fail(
            Reason::NotApproved,
            format!(
                "\"pad-mode\" {name}: the Regula provider signs RSA with PKCS#1 v1.5 (pkcs1) or \
                 PSS (pss) padding only; raw RSA, OAEP and X9.31 signatures are not offered"
            ),
        )),
    }
}

/// `saltlen` as a name or OpenSSL's number.
fn rsa_salt(param: &params::ParamRef<'_>) -> Result<Salt, Failure> {
    let number = match param.get_utf8() {
        Ok(name) => match name.as_str() {
            "digest" => return Ok(Salt::Digest),
            "auto" => return Ok(Salt::Auto),
            "max" => return Ok(Salt::Max),
            "auto-digestmax" => return Ok(Salt::AutoDigestMax),
            _ => name.parse::<i64>().map_err(|_| {
                fail(
                    Reason::BadParameter,
                    format!("\"saltlen\" {name} is not a salt length"),
                )
            })?,
        },
        Err(_) => param.get_i64()?,
    };
    Ok(match number {
        -1 => Salt::Digest,
        -2 => Salt::Auto,
        -3 => Salt::Max,
        -4 => Salt::AutoDigestMax,
        bytes if bytes >= 0 => Salt::Bytes(bytes),
        other => {
            return Err(fail(
                Reason::BadParameter,
                format!("\"saltlen\" {other} is not a salt length"),
            ));
        }
    })
}

impl SignatureContext for Context {
    fn steps(&self) -> &Steps {
        &self.steps
    }

    fn steps_mut(&mut self) -> &mut Steps {
        &mut self.steps
    }

    /// ECDSA and RSA hash the message themselves: `EVP_PKEY_sign`/`verify` over a caller's
    /// digest is refused.
    unsafe fn init(
        &mut self,
        provkey: *mut c_void,
        digest: Option<&str>,
        mode: Mode,
        params: &Params,
    ) -> Result<(), Failure> {
        // SAFETY: the caller's contract.
        unsafe { take_key(self, provkey, digest, mode, params) }
    }

    fn max_signature_len(&self) -> Result<usize, Failure> {
        match (&self.rsa, self.row) {
            (Some(rsa), _) => Ok(rsa.public.size()),
            (None, Some(row)) => Ok(registry::entry(row).sizes.signature.unwrap_or(0)),
            (None, None) => Err(fail(Reason::OutOfOrder, "sign before init")),
        }
    }

    fn sign_message(&mut self, message: &[u8]) -> Result<Served<Vec<u8>>, Failure> {
        let signing = match &self.rsa {
            Some(rsa) => {
                let row = rsa_row(self, true)?;
                let private = rsa.private.as_ref().ok_or_else(|| {
                    fail(
                        Reason::InvalidInput,
                        "signing needs a private key; this context's key has none",
                    )
                })?;
                let signing = private.signing_key(&self.module, row)?;
                self.row = Some(row);
                signing
            }
            None => self
                .signing
                .clone()
                .ok_or_else(|| fail(Reason::OutOfOrder, "sign before init"))?,
        };
        Ok(signing.sign(message)?)
    }

    /// Ok only when the signature verifies (the core's error names why not).
    fn verify_message(&mut self, message: &[u8], signature: &[u8]) -> Result<Indicator, Failure> {
        if self.rsa.is_some() {
            self.row = Some(rsa_row(self, false)?);
        }
        let (Some(row), Some(public)) = (self.row, &self.public) else {
            return Err(fail(Reason::OutOfOrder, "verify before init"));
        };
        Ok(self
            .module
            .verify(row, public, message, signature)?
            .indicator())
    }

    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        apply(self, params)
    }

    fn answer(&self, params: &Params) -> Result<(), Failure> {
        answer_params(self, params)
    }
}

/// ECDSA's `digest` (its row's only), `properties` and `nonce-type` (random k only: no
/// RFC 6979); Ed25519's `instance` (pure Ed25519 only) and `context-string` (none).
fn apply(context: &mut Context, params: &Params) -> Result<(), Failure> {
    for param in params.iter() {
        match (context.kind, param.key) {
            (KeyType::Ec, "digest") => check_digest(context.kind, context.row, &param.get_utf8()?)?,
            (KeyType::Ec | KeyType::Rsa, "properties") | (KeyType::Rsa, "mgf1-properties") => {
                param.get_utf8()?;
            }
            (KeyType::Rsa, "digest") => {
                context.rsa_choice.digest = Some(rsa_digest(&param.get_utf8()?)?);
            }
            (KeyType::Rsa, "mgf1-digest") => {
                context.rsa_choice.mgf1 = Some(rsa_digest(&param.get_utf8()?)?);
            }
            (KeyType::Rsa, "pad-mode") => context.rsa_choice.pss = rsa_pad(&param)?,
            (KeyType::Rsa, "saltlen") => context.rsa_choice.salt = rsa_salt(&param)?,
            (KeyType::Ec, "nonce-type") => {
                let nonce = param.get_i64()?;
                if nonce != 0 {
                    return Err(fail(
                        Reason::NotApproved,
                        format!(
                            "\"nonce-type\" {nonce}: the Regula provider's ECDSA draws k at \
                             random (0); deterministic ECDSA (RFC 6979) is not offered"
                        ),
                    ));
                }
            }
            (KeyType::Ed25519, "instance") => {
                let instance = param.get_utf8()?;
                if !instance.eq_ignore_ascii_case("Ed25519") {
                    return Err(fail(
                        Reason::NotApproved,
                        format!(
                            "\"instance\" {instance}: the Regula provider offers pure Ed25519 \
                             only (no Ed25519ctx or Ed25519ph)"
                        ),
                    ));
                }
            }
            (KeyType::Ed25519, "context-string") if !param.get_octets()?.is_empty() => {
                return Err(fail(
                    Reason::NotApproved,
                    "\"context-string\": pure Ed25519 takes no context (RFC 8032 §5.1)",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

static ECDSA_SETTABLE: params::ParamList = crate::param_list![
    ("digest", params::UTF8),
    ("properties", params::UTF8),
    ("nonce-type", params::UINT),
];
static ED25519_SETTABLE: params::ParamList = crate::param_list![
    ("instance", params::UTF8),
    ("context-string", params::OCTETS),
];

static RSA_SETTABLE: params::ParamList = crate::param_list![
    ("digest", params::UTF8),
    ("properties", params::UTF8),
    ("pad-mode", params::UTF8),
    ("saltlen", params::UTF8),
    ("mgf1-digest", params::UTF8),
    ("mgf1-properties", params::UTF8),
];

unsafe extern "C" fn settable_ctx_params<const K: usize>(
    _ctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    match KeyType::from_index(K) {
        Some(KeyType::Ec) => ECDSA_SETTABLE.as_ptr(),
        Some(KeyType::Rsa) => RSA_SETTABLE.as_ptr(),
        _ => ED25519_SETTABLE.as_ptr(),
    }
}

static ECDSA_GETTABLE: params::ParamList = crate::param_list![
    ("algorithm-id", params::OCTETS),
    ("digest", params::UTF8),
    ("digest-size", params::UINT),
    ("nonce-type", params::UINT),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];
static ED25519_GETTABLE: params::ParamList = crate::param_list![
    ("algorithm-id", params::OCTETS),
    ("instance", params::UTF8),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

static RSA_GETTABLE: params::ParamList = crate::param_list![
    ("algorithm-id", params::OCTETS),
    ("digest", params::UTF8),
    ("pad-mode", params::UTF8),
    ("saltlen", params::UTF8),
    ("mgf1-digest", params::UTF8),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

unsafe extern "C" fn gettable_ctx_params<const K: usize>(
    _ctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    match KeyType::from_index(K) {
        Some(KeyType::Ec) => ECDSA_GETTABLE.as_ptr(),
        Some(KeyType::Rsa) => RSA_GETTABLE.as_ptr(),
        _ => ED25519_GETTABLE.as_ptr(),
    }
}

/// A DER AlgorithmIdentifier with absent parameters, as RFC 5758 §3.2 (ecdsa-with-SHA256/384)
/// and RFC 8410 §3 (id-Ed25519) give them, from the row's dotted OID.
pub fn algorithm_identifier(oid: &str) -> Option<Vec<u8>> {
    let arcs: Vec<u64> = oid
        .split('.')
        .map(|arc| arc.parse().ok())
        .collect::<Option<_>>()?;
    let (&first, &second) = (arcs.first()?, arcs.get(1)?);
    if first > 2 || (first < 2 && second >= 40) {
        return None;
    }
    let mut body = Vec::new();
    for arc in std::iter::once(first * 40 + second).chain(arcs[2..].iter().copied()) {
        let mut groups = vec![(arc & 0x7f) as u8];
        let mut rest = arc >> 7;
        while rest != 0 {
            groups.push((rest & 0x7f) as u8 | 0x80);
            rest >>= 7;
        }
        body.extend(groups.into_iter().rev());
    }
    // Short-form lengths: every OID of the rows is far shorter than 127 bytes.
    let oid_len = u8::try_from(body.len()).ok().filter(|&len| len < 126)?;
    let mut der = vec![0x30, oid_len + 2, 0x06, oid_len];
    der.extend(body);
    Some(der)
}

fn answer_params(context: &Context, params: &Params) -> Result<(), Failure> {
    if context.kind == KeyType::Rsa {
        return rsa_get_ctx_params(context, params);
    }
    let row = context.row.map(registry::entry);
    let digest = row.and_then(|row| row.hash);
    for mut param in params.iter() {
        match (context.kind, param.key) {
            (_, "algorithm-id") => {
                if let Some(der) = row.and_then(|row| row.oid).and_then(algorithm_identifier) {
                    param.set_octets(&der)?;
                }
            }
            (KeyType::Ec, "digest") => {
                if let Some(digest) = digest {
                    param.set_utf8(digest_name(digest))?;
                }
            }
            (KeyType::Ec, "digest-size") => {
                if let Some(size) = digest.and_then(|digest| registry::entry(digest).sizes.output) {
                    param.set_usize(size)?;
                }
            }
            (KeyType::Ec, "nonce-type") => param.set_i64(0)?,
            (KeyType::Ed25519, "instance") => param.set_utf8("Ed25519")?,
            _ => indicator::answer_param(context.steps.last, &mut param)?,
        }
    }
    Ok(())
}

/// An RSA context's `algorithm-id` (PKCS#1 v1.5 only: `sha256WithRSAEncryption` and its
/// kin with NULL parameters, RFC 4055 §5; RSASSA-PSS parameters are not answered), `digest`,
/// `pad-mode`, `saltlen`, `mgf1-digest`, and the indicator.
fn rsa_get_ctx_params(context: &Context, params: &Params) -> Result<(), Failure> {
    let choice = context.rsa_choice;
    let digest = choice.digest.unwrap_or(Algorithm::Sha256);
    for mut param in params.iter() {
        match param.key {
            "algorithm-id" if !choice.pss => {
                let oid = rsa_row(context, false)
                    .ok()
                    .and_then(|row| registry::entry(row).oid);
                if let Some(absent) = oid.and_then(algorithm_identifier) {
                    // The same SEQUENCE with NULL parameters added (short lengths throughout).
                    let mut der = absent;
                    der[1] += 2;
                    der.extend_from_slice(&[0x05, 0x00]);
                    param.set_octets(&der)?;
                }
            }
            "digest" => param.set_utf8(digest_name(digest))?,
            "mgf1-digest" => param.set_utf8(digest_name(choice.mgf1.unwrap_or(digest)))?,
            "pad-mode" => {
                let (name, number) = if choice.pss { ("pss", 6) } else { ("pkcs1", 1) };
                if param.set_utf8(name).is_err() {
                    param.set_i64(number)?;
                }
            }
            "saltlen" => {
                let (name, number) = match choice.salt {
                    Salt::Digest => ("digest".to_owned(), -1),
                    Salt::Auto => ("auto".to_owned(), -2),
                    Salt::Max => ("max".to_owned(), -3),
                    Salt::AutoDigestMax => ("auto-digestmax".to_owned(), -4),
                    Salt::Bytes(bytes) => (bytes.to_string(), bytes),
                };
                if param.set_utf8(&name).is_err() {
                    param.set_i64(number)?;
                }
            }
            _ => indicator::answer_param(context.steps.last, &mut param)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::algorithm_identifier;

    #[test]
    fn algorithm_identifiers_are_those_of_the_rfcs() {
        // RFC 5758 §3.2: ecdsa-with-SHA256 and ecdsa-with-SHA384, parameters absent.
        assert_eq!(
            algorithm_identifier("1.2.840.10045.4.3.2").unwrap(),
            [
                0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02
            ]
        );
        assert_eq!(
            algorithm_identifier("1.2.840.10045.4.3.3").unwrap(),
            [
                0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03
            ]
        );
        // RFC 8410 §9: id-Ed25519 AlgorithmIdentifier, 30 05 06 03 2B 65 70.
        assert_eq!(
            algorithm_identifier("1.3.101.112").unwrap(),
            [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70]
        );
        assert_eq!(algorithm_identifier("3.1"), None);
        assert_eq!(algorithm_identifier("not an oid"), None);
    }
}
