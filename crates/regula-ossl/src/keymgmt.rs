//! `OSSL_OP_KEYMGMT` for the key-exchange and signature keys: "EC" on the named groups P-256,
//! P-384 and P-521 (ECDH and ECDSA), "X25519" and "ED25519", with the semantics of OpenSSL's
//! providers/implementations/keymgmt/ec_kmgmt.c and ecx_kmgmt.c that libssl relies on:
//! generate a key for a `group`, give its share as `encoded-pub-key`, take the peer's share the
//! same way, copy the group from one key to another (export/import or dup), and import or
//! export a key pair (as `base`'s decoders do with a PEM private key or a certificate's key).
//!
//! An EC or X25519 private key is the core's [`AgreementKey`] (generated under the policy with
//! its pairwise consistency test, or imported through the core). An EC key signs through the
//! core's [`SigningKey`] made from the same scalar the first time it signs: the core takes a
//! signing key as PKCS#8, so the scalar and public point go into a fixed RFC 5915 / RFC 5208
//! template (zeroized) and through `signing_key_from_pkcs8`. An Ed25519 private key is a
//! [`SigningKey`] from the start (RFC 8410 template). A public-only key is the peer's encoded
//! point or key. Which groups there are, and their OpenSSL and TLS names, are the registry rows'.

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::{Arc, OnceLock};

use regula::{AgreementKey, Algorithm, Family, Module, Policy, SigningKey, registry};
use zeroize::Zeroizing;

use crate::context::construct;
use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::keydata_calls::{
    self, Exported, Importer, KEYPAIR, KeyData, answer_if_held, module_of, selects,
};
use crate::params::{self, Params};
use crate::provider_context::{Offer, served_rows};

/// The key types offered; the discriminant is the const parameter of the entry points that
/// OpenSSL calls without a key or provider context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    Ec = 0,
    X25519 = 1,
    Ed25519 = 2,
    Rsa = 3,
    /// RSASSA-PSS keys (RFC 4055 id-RSASSA-PSS): offered so that libssl enables the TLS 1.3
    /// `rsa_pss_rsae_*` schemes (it fetches this key manager to decide); such keys themselves
    /// are refused (sign with an rsaEncryption key and `pad-mode` pss).
    RsaPss = 4,
}

pub const KEY_TYPES: [KeyType; 5] = [
    KeyType::Ec,
    KeyType::X25519,
    KeyType::Ed25519,
    KeyType::Rsa,
    KeyType::RsaPss,
];

impl KeyType {
    pub fn from_index(index: usize) -> Option<KeyType> {
        KEY_TYPES.get(index).copied()
    }

    /// The key manager's canonical OpenSSL name ("EC", "X25519", "ED25519"), as the rows'
    /// `keymgmt` parameter gives it.
    /// An RSA key serves the rows OpenSSL names "RSA" (RSA-PSS and PKCS#1 v1.5 signatures).
    pub fn serves(self, row: &registry::Entry) -> bool {
        if matches!(self, KeyType::Rsa | KeyType::RsaPss) {
            return row.family == Family::Signature
                && row
                    .openssl
                    .as_ref()
                    .is_some_and(|name| name.canonical() == "RSA")
                && (self == KeyType::Rsa || openssl_param(row, "pad-mode") == Some("pss"));
        }
        let name = openssl_param(row, "keymgmt").and_then(|names| names.split(':').next());
        name == Some(self.label())
    }

    /// The key manager's OpenSSL names: the rows' `keymgmt` parameter, or for RSA the rows'
    /// own names ("RSA:rsaEncryption:1.2.840.113549.1.1.1", as OpenSSL's default provider).
    fn keymgmt_names(self, row: &registry::Entry) -> Option<&'static str> {
        match self {
            KeyType::Rsa => row.openssl.as_ref().map(|name| name.names),
            KeyType::RsaPss => Some("RSA-PSS:RSASSA-PSS:1.2.840.113549.1.1.10"),
            _ => openssl_param(row, "keymgmt"),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            KeyType::Ec => "EC",
            KeyType::X25519 => "X25519",
            KeyType::Ed25519 => "ED25519",
            KeyType::Rsa => "RSA",
            KeyType::RsaPss => "RSA-PSS",
        }
    }
}

/// The value of one of a row's OpenSSL parameters (`group`, `keymgmt`, `tls-group`, …).
pub fn openssl_param(row: &registry::Entry, key: &str) -> Option<&'static str> {
    row.openssl
        .as_ref()
        .and_then(|name| name.params.iter().find(|(k, _)| *k == key).map(|(_, v)| *v))
}

/// Every key-agreement row a key type serves, whether or not the policy serves it.
fn rows_of(kind: KeyType) -> impl Iterator<Item = Algorithm> {
    rows_in(kind, Family::KeyAgreement)
}

/// Every row of `family` whose keys are `kind`'s, whether or not the policy serves it.
fn rows_in(kind: KeyType, family: Family) -> impl Iterator<Item = Algorithm> {
    Algorithm::ALL.into_iter().filter(move |&algorithm| {
        let row = registry::entry(algorithm);
        row.family == family && kind.serves(row)
    })
}

/// The signature row of a key's group: ECDSA on the group's curve (the row whose `group` is
/// the key-agreement row's), or Ed25519.
pub fn signature_row(kind: KeyType, group: Algorithm) -> Option<Algorithm> {
    match kind {
        KeyType::X25519 | KeyType::Rsa | KeyType::RsaPss => None,
        KeyType::Ed25519 => Some(Algorithm::Ed25519),
        KeyType::Ec => {
            let curve = openssl_param(registry::entry(group), "group")?;
            rows_in(kind, Family::Signature)
                .find(|&row| openssl_param(registry::entry(row), "group") == Some(curve))
        }
    }
}

/// The group (row) an OpenSSL group name means for `kind`: "P-256", "prime256v1" and
/// "secp256r1" are one curve; an X25519 key's only group is "X25519".
pub fn group_named(kind: KeyType, name: &str) -> Option<Algorithm> {
    rows_of(kind).find(|&algorithm| {
        let row = registry::entry(algorithm);
        let names = match kind {
            KeyType::Ec => [
                openssl_param(row, "group"),
                openssl_param(row, "group-aliases"),
            ],
            KeyType::X25519 | KeyType::Ed25519 | KeyType::Rsa | KeyType::RsaPss => {
                [row.openssl.as_ref().map(|name| name.names), None]
            }
        };
        names
            .into_iter()
            .flatten()
            .flat_map(|names| names.split(':'))
            .any(|n| n.eq_ignore_ascii_case(name))
    })
}

/// The name OpenSSL gives the group (`OBJ_nid2sn`: "prime256v1", "secp384r1", "X25519").
pub fn group_short_name(algorithm: Algorithm) -> &'static str {
    let row = registry::entry(algorithm);
    openssl_param(row, "group-aliases")
        .or_else(|| openssl_param(row, "group"))
        .or_else(|| row.openssl.as_ref().map(|name| name.canonical()))
        .and_then(|names| names.split(':').next())
        .unwrap_or(row.name)
}

/// The group's facts OpenSSL asks for: field size in bytes, `bits`, `security-bits` and
/// `max-size` (for EC the longest ECDSA signature, as ec_kmgmt.c answers; for X25519 the
/// shared secret).
pub struct GroupFacts {
    pub field: usize,
    pub bits: usize,
    pub security_bits: usize,
    pub max_size: usize,
}

pub fn facts(algorithm: Algorithm) -> GroupFacts {
    if algorithm == Algorithm::Ed25519 {
        // RFC 8032 §5.1: 32-byte keys, 64-byte signatures; ecx_kmgmt.c's ED25519_BITS (256)
        // and ED25519_SECURITY_BITS (128).
        return GroupFacts {
            field: 32,
            bits: 256,
            security_bits: 128,
            max_size: registry::entry(algorithm).sizes.signature.unwrap_or(64),
        };
    }
    let field = registry::entry(algorithm).sizes.output.unwrap_or(0);
    if algorithm == Algorithm::X25519 {
        // RFC 7748 §5: a 255-bit field, the 253 bits of OpenSSL's X25519_BITS; ~128-bit security.
        return GroupFacts {
            field,
            bits: 253,
            security_bits: 128,
            max_size: field,
        };
    }
    // P-521's field is 521 bits in 66 bytes; its security strength 256 bits (SP 800-57).
    let bits = if algorithm == Algorithm::EcdhP521 {
        521
    } else {
        field * 8
    };
    // SEQUENCE { INTEGER r, INTEGER s }, each integer at most field + 1 bytes long.
    let body = 2 * (field + 3);
    GroupFacts {
        field,
        bits,
        security_bits: bits.min(512) / 2,
        max_size: body + if body < 128 { 2 } else { 3 },
    }
}

pub fn offers(policy: &Policy) -> Vec<Offer> {
    KEY_TYPES
        .iter()
        .filter_map(|&kind| {
            // The key manager serves the key exchange and the signature rows of its keys.
            let rows: Vec<_> = served_rows(policy, Family::KeyAgreement)
                .chain(served_rows(policy, Family::Signature))
                .filter(|row| kind.serves(row))
                .collect();
            let first = rows.first()?;
            Some(Offer::for_rows(
                policy,
                &rows,
                kind.keymgmt_names(first)?.to_owned(),
                format!("{} key management", kind.label()),
                &TABLES.0[kind as usize],
            ))
        })
        .collect()
}

/// One key (`EVP_PKEY`'s provider half): a group, and a private key, a public key, both or
/// neither (a key holding only its group, as libssl makes for the peer's share).
pub struct Key {
    pub(crate) module: Module,
    pub(crate) kind: KeyType,
    pub(crate) group: Option<Algorithm>,
    /// The private key of an EC or X25519 key.
    pub(crate) private: Option<Arc<AgreementKey>>,
    /// The signing key: an Ed25519 key's private key; an EC key's, made from `private` when
    /// it first signs.
    pub(crate) signing: OnceLock<Arc<SigningKey>>,
    /// The encoded public key: an uncompressed point (EC) or 32 bytes (X25519, Ed25519).
    pub(crate) public: Option<Vec<u8>>,
    /// An RSA key's public and (when held) private halves.
    pub(crate) rsa: Option<RsaKey>,
}

impl Key {
    fn new(module: Module, kind: KeyType) -> Key {
        Key {
            module,
            kind,
            group: initial_group(kind),
            private: None,
            signing: OnceLock::new(),
            public: None,
            rsa: None,
        }
    }

    fn group(&self) -> Result<Algorithm, Failure> {
        self.group.ok_or_else(|| {
            fail(
                Reason::OutOfOrder,
                "the EC key has no group: set \"group\" first (P-256, P-384 or P-521)",
            )
        })
    }

    fn has_private(&self) -> bool {
        self.private.is_some()
            || self.signing.get().is_some()
            || self.rsa.as_ref().is_some_and(|rsa| rsa.private.is_some())
    }

    /// The key's signing key, made from an EC key's scalar the first time (counted by the
    /// core as a key import of the ECDSA row, under the policy).
    pub(crate) fn signing_key(&self) -> Result<Arc<SigningKey>, Failure> {
        if let Some(signing) = self.signing.get() {
            return Ok(Arc::clone(signing));
        }
        let (Some(group), Some(private), Some(public)) = (self.group, &self.private, &self.public)
        else {
            return Err(fail(
                Reason::InvalidInput,
                "signing needs a private key; this key has none",
            ));
        };
        let row = signature_row(self.kind, group).ok_or_else(|| {
            fail(
                Reason::NotApproved,
                format!("no signature of the Regula provider takes a {group} key"),
            )
        })?;
        let scalar = private.private_key_bytes()?;
        let pkcs8 = ec_pkcs8(group, &scalar, public)?;
        let signing = Arc::new(
            self.module
                .signing_key_from_pkcs8(row, &pkcs8)?
                .into_value(),
        );
        // Two threads signing first at once make two equal keys; either one is kept.
        Ok(Arc::clone(self.signing.get_or_init(|| signing)))
    }
}

/// RFC 5208 PrivateKeyInfo { 0, id-ecPublicKey + named curve, ECPrivateKey (RFC 5915) { 1,
/// scalar, [1] public point } }, from fixed templates (as OpenSSL writes them) for P-256,
/// P-384 and P-521; wiped on drop.
fn ec_pkcs8(group: Algorithm, scalar: &[u8], public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Failure> {
    // The headers up to the scalar, and between the scalar and the point.
    const P256_HEAD: &[u8] = &[
        0x30, 0x81, 0x87, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d,
        0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x04, 0x6d, 0x30,
        0x6b, 0x02, 0x01, 0x01, 0x04, 0x20,
    ];
    const P256_MIDDLE: &[u8] = &[0xa1, 0x44, 0x03, 0x42, 0x00];
    const P384_HEAD: &[u8] = &[
        0x30, 0x81, 0xb6, 0x02, 0x01, 0x00, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d,
        0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22, 0x04, 0x81, 0x9e, 0x30, 0x81, 0x9b,
        0x02, 0x01, 0x01, 0x04, 0x30,
    ];
    const P384_MIDDLE: &[u8] = &[0xa1, 0x64, 0x03, 0x62, 0x00];
    const P521_HEAD: &[u8] = &[
        0x30, 0x81, 0xee, 0x02, 0x01, 0x00, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d,
        0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23, 0x04, 0x81, 0xd6, 0x30, 0x81, 0xd3,
        0x02, 0x01, 0x01, 0x04, 0x42,
    ];
    const P521_MIDDLE: &[u8] = &[0xa1, 0x81, 0x89, 0x03, 0x81, 0x86, 0x00];
    let (head, middle) = match group {
        Algorithm::EcdhP256 => (P256_HEAD, P256_MIDDLE),
        Algorithm::EcdhP384 => (P384_HEAD, P384_MIDDLE),
        Algorithm::EcdhP521 => (P521_HEAD, P521_MIDDLE),
        _ => {
            return Err(fail(
                Reason::NotApproved,
                format!("{group} keys do not sign in the Regula provider"),
            ));
        }
    };
    let field = facts(group).field;
    if scalar.len() != field || public.len() != 2 * field + 1 {
        return Err(fail(Reason::Internal, "EC key of the wrong size"));
    }
    let mut der = Zeroizing::new(Vec::with_capacity(
        head.len() + field + middle.len() + public.len(),
    ));
    der.extend_from_slice(head);
    der.extend_from_slice(scalar);
    der.extend_from_slice(middle);
    der.extend_from_slice(public);
    Ok(der)
}

/// RFC 8410 §7 OneAsymmetricKey v1 { 0, id-Ed25519, CurvePrivateKey (the 32-byte seed) }, as
/// OpenSSL writes it; wiped on drop.
fn ed25519_pkcs8(seed: &[u8]) -> Zeroizing<Vec<u8>> {
    const HEAD: &[u8] = &[
        0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04,
        0x20,
    ];
    let mut der = Zeroizing::new(Vec::with_capacity(HEAD.len() + seed.len()));
    der.extend_from_slice(HEAD);
    der.extend_from_slice(seed);
    der
}

/// The raw 32-byte public key of an Ed25519 signing key (the end of its SubjectPublicKeyInfo,
/// RFC 8410 §4).
fn ed25519_public(key: &SigningKey) -> Result<Vec<u8>, Failure> {
    let spki = key.public_key_der()?;
    match spki.len().checked_sub(32) {
        Some(start) if spki.len() == 44 => Ok(spki[start..].to_vec()),
        _ => Err(fail(
            Reason::Internal,
            "unexpected Ed25519 public key encoding",
        )),
    }
}

/// The 32-byte seed of an Ed25519 signing key, from its PKCS#8 (v1 or v2, RFC 8410 §7: the
/// CurvePrivateKey follows a fixed 16-byte header); wiped on drop.
fn ed25519_seed(key: &SigningKey) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let pkcs8 = key.to_pkcs8_der()?;
    match pkcs8.get(12..48) {
        Some([0x04, 0x22, 0x04, 0x20, seed @ ..]) => Ok(Zeroizing::new(seed.to_vec())),
        _ => Err(fail(
            Reason::Internal,
            "unexpected Ed25519 private key encoding",
        )),
    }
}

/// The key behind OpenSSL's `keydata`.
///
/// # Safety
/// `keydata` is null or a pointer this module's `new`, `gen`, `dup` made, not yet freed.
pub(crate) unsafe fn key<'a>(keydata: *mut c_void) -> Result<&'a mut Key, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(keydata, "key") }
}

type Tables = ffi::SyncTable<[[Dispatch; 22]; 5]>;

static TABLES: Tables = ffi::SyncTable([
    table::<0>(),
    table::<1>(),
    table::<2>(),
    table::<3>(),
    table::<4>(),
]);

const fn table<const K: usize>() -> [Dispatch; 22] {
    ffi::joined(&[
        &[
            crate::dispatch_fn!(ffi::KEYMGMT_NEW, new::<K>),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN_INIT, gen_init::<K>),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN_SET_TEMPLATE, gen_set_template),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN_SET_PARAMS, gen_set_params),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN_SETTABLE_PARAMS, gen_settable_params::<K>),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN, generate),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN_CLEANUP, crate::context::free::<GenContext>),
            crate::dispatch_fn!(ffi::KEYMGMT_GETTABLE_PARAMS, gettable_params::<K>),
            crate::dispatch_fn!(ffi::KEYMGMT_QUERY_OPERATION_NAME, query_operation_name::<K>),
            crate::dispatch_fn!(ffi::KEYMGMT_VALIDATE, keydata_calls::validate::<Key>),
            crate::dispatch_fn!(ffi::KEYMGMT_IMPORT_TYPES, key_types::<K>),
            crate::dispatch_fn!(ffi::KEYMGMT_EXPORT_TYPES, key_types::<K>),
        ],
        &keydata_calls::key_calls::<Key>(),
    ])
}

unsafe extern "C" fn new<const K: usize>(provctx: *mut c_void) -> *mut c_void {
    construct(|| {
        let kind = KeyType::from_index(K).ok_or_else(|| fail(Reason::Internal, "key type"))?;
        // SAFETY: OpenSSL passes the provctx it was given.
        Ok(Key::new(unsafe { module_of(provctx) }?, kind))
    })
}

/// A key generation in progress: the group and what to make (a key pair, or the group only).
struct GenContext {
    module: Module,
    kind: KeyType,
    selection: c_int,
    group: Option<Algorithm>,
    /// An RSA key's modulus size (OpenSSL's default, 2048, unless `bits` says otherwise).
    rsa_bits: u32,
}

unsafe extern "C" fn gen_init<const K: usize>(
    provctx: *mut c_void,
    selection: c_int,
    params: *const Param,
) -> *mut c_void {
    construct(|| {
        let kind = KeyType::from_index(K).ok_or_else(|| fail(Reason::Internal, "key type"))?;
        if kind == KeyType::RsaPss {
            return Err(rsa_pss_refused());
        }
        // SAFETY: OpenSSL passes the provctx it was given and a terminated array (or null).
        let (module, params) = unsafe { (module_of(provctx)?, Params::new(params)) };
        let mut context = GenContext {
            module,
            kind,
            selection,
            group: initial_group(kind),
            rsa_bits: RSA_DEFAULT_BITS,
        };
        apply_gen_params(&mut context, &params)?;
        Ok(context)
    })
}

/// The group a fresh key of `kind` starts with: X25519 and Ed25519 have one; an EC key's is
/// chosen.
fn initial_group(kind: KeyType) -> Option<Algorithm> {
    match kind {
        KeyType::Ec => None,
        KeyType::X25519 => Some(Algorithm::X25519),
        KeyType::Ed25519 => Some(Algorithm::Ed25519),
        KeyType::Rsa | KeyType::RsaPss => None,
    }
}

/// # Safety
/// `genctx` is null or a live generation context of this module.
unsafe fn gen_context<'a>(genctx: *mut c_void) -> Result<&'a mut GenContext, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(genctx, "key generation context") }
}

fn apply_gen_params(context: &mut GenContext, params: &Params) -> Result<(), Failure> {
    if context.kind == KeyType::Rsa {
        return apply_rsa_gen_params(context, params);
    }
    for param in params.iter() {
        match param.key {
            "group" => {
                let name = param.get_utf8()?;
                let group = group_named(context.kind, &name).ok_or_else(|| unknown_group(&name))?;
                served_group(&context.module, group)?;
                context.group = Some(group);
            }
            // A deterministic key from input keying material (RFC 9180's DeriveKeyPair): not
            // a service of the module, so not silently ignored either.
            "dhkem-ikm" => {
                return Err(fail(
                    Reason::NotApproved,
                    "\"dhkem-ikm\": deriving a key pair from input keying material is not \
                     offered by the Regula provider",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

fn unknown_group(name: &str) -> Failure {
    fail(
        Reason::NotApproved,
        format!("group \"{name}\" is not a key-exchange group of the Regula provider"),
    )
}

/// Refuses a group the loaded policy does not serve, before any key is made.
fn served_group(module: &Module, group: Algorithm) -> Result<(), Failure> {
    keydata_calls::refuse_unserved(module, module.policy().serves(group), group)
}

unsafe extern "C" fn gen_set_template(genctx: *mut c_void, template: *mut c_void) -> c_int {
    error::entry(|| {
        // SAFETY: a live generation context and a key of this key manager.
        let (context, template) = unsafe { (gen_context(genctx)?, key(template)?) };
        if template.kind != context.kind {
            return Err(fail(Reason::InvalidInput, "template key of another type"));
        }
        if let Some(group) = template.group {
            served_group(&context.module, group)?;
            context.group = Some(group);
        }
        Ok(())
    })
}

unsafe extern "C" fn gen_set_params(genctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live generation context and a terminated array (or null).
        let (context, params) = unsafe { (gen_context(genctx)?, Params::new(params)) };
        apply_gen_params(context, &params)
    })
}

/// What generating an EC, X25519, Ed25519 (or SM2: sm2.rs) key takes.
pub(crate) static GEN_SETTABLE: params::ParamList = crate::param_list![("group", params::UTF8)];
static RSA_GEN_SETTABLE: params::ParamList = crate::param_list![
    ("bits", params::UINT),
    ("primes", params::UINT),
    ("e", params::UINT),
];

unsafe extern "C" fn gen_settable_params<const K: usize>(
    _genctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    match KeyType::from_index(K) {
        Some(KeyType::Rsa | KeyType::RsaPss) => RSA_GEN_SETTABLE.as_ptr(),
        _ => GEN_SETTABLE.as_ptr(),
    }
}

/// `gen`: a key pair under the policy (the core runs its pairwise consistency test), or, when
/// only parameters were asked for, a key holding the group.
unsafe extern "C" fn generate(
    genctx: *mut c_void,
    _callback: *mut c_void,
    _argument: *mut c_void,
) -> *mut c_void {
    construct(|| {
        // SAFETY: a live generation context.
        let context = unsafe { gen_context(genctx) }?;
        if context.kind == KeyType::Rsa {
            let mut key = Key::new(context.module.clone(), KeyType::Rsa);
            if selects(
                context.selection,
                ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY,
            ) {
                key.rsa = Some(generate_rsa(&context.module, context.rsa_bits)?);
            }
            return Ok(key);
        }
        let group = context.group.ok_or_else(|| {
            fail(
                Reason::OutOfOrder,
                "no group to generate an EC key on: set \"group\" (P-256, P-384 or P-521)",
            )
        })?;
        let mut key = Key::new(context.module.clone(), context.kind);
        key.group = Some(group);
        if context.selection & (ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY) == 0 {
            return Ok(key);
        }
        if context.kind == KeyType::Ed25519 {
            let signing = context
                .module
                .generate_signing_key(Algorithm::Ed25519, None)?
                .into_value();
            key.public = Some(ed25519_public(&signing)?);
            let _ = key.signing.set(Arc::new(signing));
        } else {
            let private = context.module.generate_agreement_key(group)?.into_value();
            key.public = Some(private.public_key()?);
            key.private = Some(Arc::new(private));
        }
        Ok(key)
    })
}

/// Checks an encoded public key of `group`: X25519's 32 bytes, or an uncompressed point of the
/// curve's size (the form TLS uses, RFC 8446 §4.2.8.2). Whether the point is on the curve is
/// checked by the core when the key is used.
fn checked_public(group: Algorithm, encoded: &[u8]) -> Result<Vec<u8>, Failure> {
    let expected = registry::entry(group).sizes.public_key.unwrap_or(0);
    let point = !matches!(group, Algorithm::X25519 | Algorithm::Ed25519);
    let form_ok = !point || encoded.first() == Some(&0x04);
    if encoded.len() != expected || !form_ok {
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "a {group} public key is {} of {expected} bytes, not {} bytes{}",
                if !point {
                    "a key"
                } else {
                    "an uncompressed point (04 || x || y)"
                },
                encoded.len(),
                match encoded.first() {
                    Some(&first) if point && first != 0x04 => format!(" starting {first:02x}"),
                    _ => String::new(),
                }
            ),
        ));
    }
    Ok(encoded.to_vec())
}

/// An imported private key: a key-agreement key (EC, X25519) or an Ed25519 signing key.
enum Private {
    Agreement(AgreementKey),
    Signing(SigningKey),
}

/// What an EC (or SM2: sm2.rs) key is imported from and exported as.
pub(crate) static EC_TYPES: params::ParamList = crate::param_list![
    ("group", params::UTF8),
    ("pub", params::OCTETS),
    ("priv", params::UINT),
];
static X25519_TYPES: params::ParamList =
    crate::param_list![("pub", params::OCTETS), ("priv", params::OCTETS)];

unsafe extern "C" fn key_types<const K: usize>(_selection: c_int) -> *const Param {
    match KeyType::from_index(K) {
        Some(KeyType::Ec) => EC_TYPES.as_ptr(),
        Some(KeyType::Rsa | KeyType::RsaPss) => RSA_TYPES.as_ptr(),
        _ => X25519_TYPES.as_ptr(),
    }
}

fn cstring(text: &str) -> CString {
    CString::new(text).unwrap_or_default()
}

/// What an EC key answers (an SM2 key too: sm2.rs).
pub(crate) static EC_GETTABLE: params::ParamList = crate::param_list![
    ("bits", params::INT),
    ("security-bits", params::INT),
    ("max-size", params::INT),
    ("encoded-pub-key", params::OCTETS),
    ("group", params::UTF8),
    ("pub", params::OCTETS),
    ("point-format", params::UTF8),
    ("encoding", params::UTF8),
    ("default-digest", params::UTF8),
    ("decoded-from-explicit", params::INT),
];
static ED25519_GETTABLE: params::ParamList = crate::param_list![
    ("bits", params::INT),
    ("security-bits", params::INT),
    ("max-size", params::INT),
    ("encoded-pub-key", params::OCTETS),
    ("pub", params::OCTETS),
    ("mandatory-digest", params::UTF8),
];
static X25519_GETTABLE: params::ParamList = crate::param_list![
    ("bits", params::INT),
    ("security-bits", params::INT),
    ("max-size", params::INT),
    ("encoded-pub-key", params::OCTETS),
    ("pub", params::OCTETS),
];

unsafe extern "C" fn gettable_params<const K: usize>(_provctx: *mut c_void) -> *const Param {
    match KeyType::from_index(K) {
        Some(KeyType::Ec) => EC_GETTABLE.as_ptr(),
        Some(KeyType::Ed25519) => ED25519_GETTABLE.as_ptr(),
        Some(KeyType::Rsa | KeyType::RsaPss) => RSA_GETTABLE.as_ptr(),
        _ => X25519_GETTABLE.as_ptr(),
    }
}

/// The key-exchange and signature algorithms of each key type: the name of its rows ("ECDH"
/// and "ECDSA" for EC, "X25519", "ED25519"); null for an operation the key type has not.
unsafe extern "C" fn query_operation_name<const K: usize>(operation: c_int) -> *const c_char {
    static NAMES: OnceLock<Vec<[Option<CString>; 2]>> = OnceLock::new();
    error::guard(std::ptr::null(), || {
        let slot = match operation {
            ffi::OP_KEYEXCH => 0,
            ffi::OP_SIGNATURE => 1,
            _ => return std::ptr::null(),
        };
        let names = NAMES.get_or_init(|| {
            KEY_TYPES
                .iter()
                .map(|&kind| {
                    [Family::KeyAgreement, Family::Signature].map(|family| {
                        rows_in(kind, family)
                            .next()
                            .and_then(|algorithm| registry::entry(algorithm).openssl.as_ref())
                            .map(|name| cstring(name.canonical()))
                    })
                })
                .collect()
        });
        names
            .get(K)
            .and_then(|names| names[slot].as_ref())
            .map_or(std::ptr::null(), |name| name.as_ptr())
    })
}

/// `validate` is [`keydata_calls::validate`]: a key imported or set here has been checked
/// already (its point's encoding and length; a private key through the core), and the peer's
/// point is checked on the curve when it is used; what remains is that the key holds what is
/// asked for.
impl KeyData for Key {
    unsafe fn from_keydata<'a>(keydata: *const c_void) -> Result<&'a mut Key, Failure> {
        // SAFETY: the caller's contract.
        unsafe { key(keydata as *mut c_void) }
    }

    fn holds(&self, selection: c_int) -> bool {
        if self.kind == KeyType::Rsa {
            // An RSA key has no domain parameters: only its halves are asked about.
            return keydata_calls::holds_halves(selection, self.has_private(), self.rsa.is_some());
        }
        keydata_calls::holds_halves(selection, self.has_private(), self.public.is_some())
            && (!selects(selection, ffi::SELECT_DOMAIN_PARAMETERS) || self.group.is_some())
    }

    fn same_as(&self, other: &Key, selection: c_int) -> bool {
        let (a, b) = (self, other);
        let mut same = a.kind == b.kind;
        if a.kind == KeyType::Rsa {
            // The modulus and exponent decide (a private key comes with its public half).
            if selects(selection, KEYPAIR) {
                same &= match (&a.rsa, &b.rsa) {
                    (Some(a), Some(b)) => a.public.n == b.public.n && a.public.e == b.public.e,
                    _ => false,
                };
            }
            return same;
        }
        if selects(selection, ffi::SELECT_DOMAIN_PARAMETERS) {
            same &= a.group.is_some() && a.group == b.group;
        }
        // A private key always comes with its public key here, so the public keys decide.
        if selects(selection, KEYPAIR) {
            same &= a.group == b.group && a.public.is_some() && a.public == b.public;
        }
        same
    }

    /// What `selection` names of the key (libssl copies a key's group this way).
    fn copy(&self, selection: c_int) -> Result<Key, Failure> {
        let source = self;
        let mut copy = Key::new(source.module.clone(), source.kind);
        copy.group = source.group;
        if let Some(rsa) = &source.rsa
            && selects(selection, KEYPAIR)
        {
            copy.rsa = Some(RsaKey {
                public: Arc::clone(&rsa.public),
                private: rsa
                    .private
                    .as_ref()
                    .filter(|_| selects(selection, ffi::SELECT_PRIVATE_KEY))
                    .map(Arc::clone),
            });
        }
        if selects(selection, KEYPAIR) {
            copy.public = source.public.clone();
        }
        if selects(selection, ffi::SELECT_PRIVATE_KEY) {
            copy.private = source.private.clone();
            if let Some(signing) = source.signing.get() {
                let _ = copy.signing.set(Arc::clone(signing));
            }
        }
        Ok(copy)
    }

    fn import(&mut self, selection: c_int, params: &Params) -> Result<(), Failure> {
        let key = self;
        if key.kind == KeyType::Rsa {
            return import_rsa(key, selection, params);
        }
        if key.kind == KeyType::RsaPss {
            return Err(rsa_pss_refused());
        }
        if key.kind == KeyType::Ec
            && let Some(param) = params.locate("group")
        {
            let name = param.get_utf8()?;
            key.group = Some(group_named(KeyType::Ec, &name).ok_or_else(|| unknown_group(&name))?);
        }
        if !selects(selection, ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY) {
            return Ok(());
        }
        let group = key.group()?;
        let public = match params.locate("pub") {
            Some(param) if selects(selection, ffi::SELECT_PUBLIC_KEY | ffi::SELECT_PRIVATE_KEY) => {
                Some(checked_public(group, param.get_octets()?)?)
            }
            _ => None,
        };
        let private = match params.locate("priv") {
            Some(param) if selects(selection, ffi::SELECT_PRIVATE_KEY) => {
                let field = facts(group).field;
                let bytes = match key.kind {
                    KeyType::Ec => keydata_calls::fixed_scalar(
                        &param.get_unsigned_be()?,
                        field,
                        "the private key",
                    )?,
                    KeyType::X25519 | KeyType::Ed25519 | KeyType::Rsa | KeyType::RsaPss => {
                        let bytes = param.get_octets()?;
                        if bytes.len() != field {
                            return Err(fail(
                                Reason::InvalidInput,
                                format!(
                                    "an {} private key is {field} bytes, not {}",
                                    key.kind.label(),
                                    bytes.len()
                                ),
                            ));
                        }
                        Zeroizing::new(bytes.to_vec())
                    }
                };
                Some(match key.kind {
                    KeyType::Ed25519 => Private::Signing(
                        key.module
                            .signing_key_from_pkcs8(Algorithm::Ed25519, &ed25519_pkcs8(&bytes))?
                            .into_value(),
                    ),
                    _ => Private::Agreement(
                        key.module
                            .agreement_key_from_private_bytes(group, &bytes)?
                            .into_value(),
                    ),
                })
            }
            _ => None,
        };
        match (private, public) {
            (Some(private), public) => {
                let derived = match &private {
                    Private::Agreement(private) => private.public_key()?,
                    Private::Signing(signing) => ed25519_public(signing)?,
                };
                if public.is_some_and(|public| public != derived) {
                    return Err(fail(
                        Reason::InvalidInput,
                        "the public key given is not the private key's",
                    ));
                }
                key.public = Some(derived);
                key.signing = OnceLock::new();
                match private {
                    Private::Agreement(private) => key.private = Some(Arc::new(private)),
                    Private::Signing(signing) => {
                        key.private = None;
                        let _ = key.signing.set(Arc::new(signing));
                    }
                }
            }
            (None, Some(public)) => {
                key.public = Some(public);
                key.private = None;
                key.signing = OnceLock::new();
            }
            (None, None) => {
                return Err(fail(
                    Reason::InvalidInput,
                    "no key to import: neither \"pub\" nor \"priv\" given",
                ));
            }
        }
        Ok(())
    }

    /// The group (EC), the public key, and the private key when asked for and held (an EC
    /// scalar as an unsigned integer in the machine's byte order, as OpenSSL writes a BIGNUM).
    fn export(&self, selection: c_int, importer: Importer) -> Result<(), Failure> {
        let key = self;
        if key.kind == KeyType::Rsa {
            return export_rsa(key, selection, importer);
        }
        let private = if !selects(selection, ffi::SELECT_PRIVATE_KEY) {
            None
        } else if let (KeyType::Ed25519, Some(signing)) = (key.kind, key.signing.get()) {
            Some((ed25519_seed(signing)?, false))
        } else if let Some(private) = &key.private {
            let bytes = private.private_key_bytes()?;
            Some(match key.kind {
                KeyType::Ec => (keydata_calls::native_order(bytes), true),
                KeyType::X25519 | KeyType::Ed25519 | KeyType::Rsa | KeyType::RsaPss => {
                    (bytes, false)
                }
            })
        } else {
            None
        };
        let group_name = key.group.map(|group| cstring(group_short_name(group)));
        let mut exported = Exported::new();
        if key.kind == KeyType::Ec
            && selects(
                selection,
                ffi::SELECT_DOMAIN_PARAMETERS | ffi::SELECT_OTHER_PARAMETERS,
            )
            && let Some(name) = &group_name
        {
            exported.utf8(c"group", name);
        }
        if selects(selection, KEYPAIR)
            && let Some(public) = &key.public
        {
            exported.octets(c"pub", public);
        }
        match &private {
            Some((scalar, true)) => exported.unsigned(c"priv", scalar),
            Some((bytes, false)) => exported.octets(c"priv", bytes),
            None => {}
        }
        exported.hand_to_importer(importer)
    }

    /// `bits`, `security-bits`, `max-size`, `encoded-pub-key` (and `pub`), the EC `group`,
    /// point format, encoding and default digest (the ECDSA row's), `decoded-from-explicit`
    /// (always 0: a key is imported by its named `group` only, so never from explicit curve
    /// parameters; certificate verification asks it of every EC key in a chain and fails the
    /// chain unanswered), and Ed25519's mandatory digest (none: "", as ecx_kmgmt.c answers);
    /// what the key does not have yet is not answered, as OpenSSL's key managers do.
    fn answer(&self, params: &Params) -> Result<(), Failure> {
        let key = self;
        if key.kind == KeyType::Rsa {
            return rsa_get_params(key, params);
        }
        let Some(group) = key.group else {
            return Ok(());
        };
        let facts = facts(group);
        for mut param in params.iter() {
            match param.key {
                "bits" => param.set_usize(facts.bits)?,
                "security-bits" => param.set_usize(facts.security_bits)?,
                "max-size" => param.set_usize(facts.max_size)?,
                "encoded-pub-key" | "pub" => answer_if_held(&mut param, key.public.as_deref())?,
                "group" if key.kind == KeyType::Ec => {
                    param.set_utf8(group_short_name(group))?;
                }
                "point-format" if key.kind == KeyType::Ec => param.set_utf8("uncompressed")?,
                "encoding" if key.kind == KeyType::Ec => param.set_utf8("named_curve")?,
                "decoded-from-explicit" if key.kind == KeyType::Ec => param.set_i64(0)?,
                "default-digest" if key.kind == KeyType::Ec => {
                    let digest = signature_row(key.kind, group)
                        .and_then(|row| registry::entry(row).hash)
                        .and_then(|hash| registry::entry(hash).openssl.as_ref())
                        .map(|name| name.canonical());
                    if let Some(digest) = digest {
                        param.set_utf8(digest)?;
                    }
                }
                "mandatory-digest" if key.kind == KeyType::Ed25519 => param.set_utf8("")?,
                _ => {}
            }
        }
        Ok(())
    }

    /// `encoded-pub-key`: the peer's key share, set on a key holding only the group (libssl's
    /// `EVP_PKEY_set1_encoded_public_key`).
    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        if let Some(param) = params.locate("encoded-pub-key") {
            let group = self.group()?;
            if self.has_private() {
                return Err(fail(
                    Reason::InvalidInput,
                    "the key holds a private key: its public key cannot be replaced",
                ));
            }
            self.public = Some(checked_public(group, param.get_octets()?)?);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// RSA keys ("RSA", alias rsaEncryption), as OpenSSL's providers/implementations/keymgmt/
// rsa_kmgmt.c offers them: n and e, and the private exponent with the two-prime CRT values
// (`rsa-factor1/2`, `rsa-exponent1/2`, `rsa-coefficient1`), imported and exported as unsigned
// integers. The core takes an RSA private key as PKCS#8, so the integers go into an RFC 8017
// RSAPrivateKey inside an RFC 5208 PrivateKeyInfo (wiped on drop) and through
// `signing_key_from_pkcs8`, once per signature row the key signs with; a generated key comes
// from the core's `generate_signing_key` and is read back from its PKCS#8. The public key is
// given to the core's `verify` as an RFC 5280 SubjectPublicKeyInfo.
// ---------------------------------------------------------------------------------------------

/// Why an RSASSA-PSS key (RFC 4055 id-RSASSA-PSS, possibly restricted to one digest and salt)
/// is neither imported nor generated.
fn rsa_pss_refused() -> Failure {
    fail(
        Reason::NotApproved,
        "RSASSA-PSS keys (id-RSASSA-PSS) are not offered by the Regula provider: use an RSA \
         (rsaEncryption) key with pad-mode pss",
    )
}

/// The modulus size OpenSSL generates when `bits` is not given.
const RSA_DEFAULT_BITS: u32 = 2048;

/// An RSA key's halves; the private half is shared by the copies OpenSSL makes of the key.
#[derive(Clone)]
pub(crate) struct RsaKey {
    pub(crate) public: Arc<RsaPublic>,
    pub(crate) private: Option<Arc<RsaPrivate>>,
}

/// n and e (big-endian, no leading zeros), the modulus size, and the SubjectPublicKeyInfo.
pub(crate) struct RsaPublic {
    n: Vec<u8>,
    e: Vec<u8>,
    pub(crate) bits: u32,
    pub(crate) spki: Vec<u8>,
}

impl RsaPublic {
    fn new(n: Vec<u8>, e: Vec<u8>) -> Result<RsaPublic, Failure> {
        let n = strip_zeros(&n).to_vec();
        let e = strip_zeros(&e).to_vec();
        if n.is_empty() || e.is_empty() {
            return Err(fail(
                Reason::InvalidInput,
                "an RSA key needs a nonzero modulus \"n\" and exponent \"e\"",
            ));
        }
        let bits =
            u32::try_from((n.len() - 1) * 8).unwrap_or(u32::MAX) + (8 - n[0].leading_zeros());
        let public_key = der(0x30, &[der_uint(&n), der_uint(&e)].concat());
        let mut bit_string = vec![0u8];
        bit_string.extend_from_slice(&public_key);
        let spki = der(
            0x30,
            &[RSA_ALGORITHM.to_vec(), der(0x03, &bit_string)].concat(),
        );
        Ok(RsaPublic { n, e, bits, spki })
    }

    /// The signature size: the modulus in bytes.
    pub(crate) fn size(&self) -> usize {
        self.n.len()
    }
}

/// The private integers d, p, q, dp, dq, qinv (as [`RSA_PRIVATE_NAMES`]), the PKCS#8 made of
/// them, and the core's signing key for each row it has signed with. All wiped on drop (the
/// core's keys by AWS-LC).
pub(crate) struct RsaPrivate {
    parts: Vec<Zeroizing<Vec<u8>>>,
    pkcs8: Zeroizing<Vec<u8>>,
    signing: std::sync::Mutex<Vec<(Algorithm, Arc<SigningKey>)>>,
}

impl RsaPrivate {
    /// The core's signing key for `row` (one key import under the policy per row).
    pub(crate) fn signing_key(
        &self,
        module: &Module,
        row: Algorithm,
    ) -> Result<Arc<SigningKey>, Failure> {
        let mut keys = self
            .signing
            .lock()
            .map_err(|_| fail(Reason::Internal, "RSA key lock poisoned"))?;
        if let Some((_, key)) = keys.iter().find(|(r, _)| *r == row) {
            return Ok(Arc::clone(key));
        }
        let key = Arc::new(
            module
                .signing_key_from_pkcs8(row, &self.pkcs8)?
                .into_value(),
        );
        keys.push((row, Arc::clone(&key)));
        Ok(key)
    }

    /// The key as RFC 5208 PKCS#8, for the core's RSA-OAEP decryption key (rsa_oaep.rs).
    pub(crate) fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }
}

/// OpenSSL's names for the private integers, in RSAPrivateKey's order after n and e.
const RSA_PRIVATE_NAMES: [&CStr; 6] = [
    c"d",
    c"rsa-factor1",
    c"rsa-factor2",
    c"rsa-exponent1",
    c"rsa-exponent2",
    c"rsa-coefficient1",
];

/// AlgorithmIdentifier { rsaEncryption (1.2.840.113549.1.1.1), NULL } (RFC 8017 §A.1).
const RSA_ALGORITHM: [u8; 15] = [
    0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
];

fn strip_zeros(value: &[u8]) -> &[u8] {
    let start = value.iter().position(|&b| b != 0).unwrap_or(value.len());
    &value[start..]
}

/// A DER tag-length-value.
fn der(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 6);
    out.push(tag);
    let len = body.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes
            .iter()
            .position(|&b| b != 0)
            .unwrap_or(bytes.len() - 1);
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(body);
    out
}

/// A DER INTEGER of an unsigned big-endian value (the TLV wiped by the caller when secret).
fn der_uint(value: &[u8]) -> Vec<u8> {
    let value = strip_zeros(value);
    let mut body = Vec::with_capacity(value.len() + 1);
    if value.first().is_none_or(|&b| b & 0x80 != 0) {
        body.push(0);
    }
    body.extend_from_slice(value);
    let out = der(0x02, &body);
    zeroize::Zeroize::zeroize(&mut body);
    out
}

/// Reads one DER element of `tag`: its body and what follows.
fn der_read(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&first, rest) = input.split_first()?;
    if first != tag {
        return None;
    }
    let (&len_byte, rest) = rest.split_first()?;
    let (len, rest) = if len_byte < 0x80 {
        (usize::from(len_byte), rest)
    } else {
        let count = usize::from(len_byte & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let len = rest[..count]
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, &rest[count..])
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// RFC 5208 PrivateKeyInfo { 0, rsaEncryption, RSAPrivateKey { 0, n, e, d, p, q, dp, dq,
/// qinv } }; wiped on drop.
fn rsa_pkcs8(public: &RsaPublic, parts: &[Zeroizing<Vec<u8>>]) -> Zeroizing<Vec<u8>> {
    // Every buffer holding secret bytes is allocated once at its final size: a Vec that grew
    // would leave unwiped copies behind.
    let integers: usize = parts.iter().map(|part| part.len() + 7).sum();
    let capacity = 3 + public.n.len() + public.e.len() + 14 + integers;
    let mut body = Zeroizing::new(Vec::with_capacity(capacity));
    body.extend(der_uint(&[0]));
    body.extend(der_uint(&public.n));
    body.extend(der_uint(&public.e));
    for part in parts {
        body.extend_from_slice(&Zeroizing::new(der_uint(part)));
    }
    let private_key = Zeroizing::new(der(0x30, &body));
    let octets = Zeroizing::new(der(0x04, &private_key));
    let mut info = Zeroizing::new(Vec::with_capacity(3 + RSA_ALGORITHM.len() + octets.len()));
    info.extend(der_uint(&[0]));
    info.extend_from_slice(&RSA_ALGORITHM);
    info.extend_from_slice(&octets);
    Zeroizing::new(der(0x30, &info))
}

/// An RSA private key's integers after n and e (as [`RSA_PRIVATE_NAMES`]), each wiped on drop.
type PrivateParts = Vec<Zeroizing<Vec<u8>>>;

/// The key in an RSA PKCS#8 PrivateKeyInfo (as the core writes it).
fn rsa_from_pkcs8(pkcs8: Zeroizing<Vec<u8>>) -> Result<(RsaPublic, PrivateParts), Failure> {
    let malformed = || fail(Reason::Internal, "unexpected RSA private key encoding");
    let (info, _) = der_read(&pkcs8, 0x30).ok_or_else(malformed)?;
    let (_, rest) = der_read(info, 0x02).ok_or_else(malformed)?;
    let (_, rest) = der_read(rest, 0x30).ok_or_else(malformed)?;
    let (octets, _) = der_read(rest, 0x04).ok_or_else(malformed)?;
    let (private_key, _) = der_read(octets, 0x30).ok_or_else(malformed)?;
    let (_, mut rest) = der_read(private_key, 0x02).ok_or_else(malformed)?;
    let mut integers = Vec::with_capacity(8);
    for _ in 0..8 {
        let (value, next) = der_read(rest, 0x02).ok_or_else(malformed)?;
        integers.push(Zeroizing::new(strip_zeros(value).to_vec()));
        rest = next;
    }
    let parts = integers.split_off(2);
    let public = RsaPublic::new(integers[0].to_vec(), integers[1].to_vec())?;
    Ok((public, parts))
}

/// The RSA rows a key of `bits` may be used with under the policy (`signing`: to sign, which
/// leaves out the rows that only verify), or the policy's refusal of the first row served.
fn rsa_rows_for(module: &Module, bits: u32, signing: bool) -> Result<Vec<Algorithm>, Failure> {
    let usage = regula::policy::Usage {
        key_bits: Some(bits),
        signing,
        ..regula::policy::Usage::default()
    };
    let policy = module.policy();
    let mut allowed = Vec::new();
    let mut refusal = None;
    for row in rows_in(KeyType::Rsa, Family::Signature) {
        if !policy.serves(row) || (signing && row == Algorithm::RsaPkcs1Sha1) {
            continue;
        }
        match policy.evaluate(row, &usage) {
            Ok(_) => allowed.push(row),
            Err(error) => {
                refusal.get_or_insert(error);
            }
        }
    }
    if !allowed.is_empty() {
        return Ok(allowed);
    }
    Err(match refusal {
        Some(error) => Failure::from(error),
        None => fail(
            Reason::NotApproved,
            format!(
                "no RSA signature is served under the Regula policy {}",
                policy.name()
            ),
        ),
    })
}

fn generate_rsa(module: &Module, bits: u32) -> Result<RsaKey, Failure> {
    let row = rsa_rows_for(module, bits, true)?[0];
    let signing = module.generate_signing_key(row, Some(bits))?.into_value();
    let (public, parts) = rsa_from_pkcs8(signing.to_pkcs8_der()?)?;
    let pkcs8 = rsa_pkcs8(&public, &parts);
    Ok(RsaKey {
        public: Arc::new(public),
        private: Some(Arc::new(RsaPrivate {
            parts,
            pkcs8,
            signing: std::sync::Mutex::new(vec![(row, Arc::new(signing))]),
        })),
    })
}

/// `bits` (2048, 3072, 4096 or 8192: what the core generates), `primes` (2 only) and `e`
/// (65537 only: the exponent the core uses); other values are refused, not ignored.
fn apply_rsa_gen_params(context: &mut GenContext, params: &Params) -> Result<(), Failure> {
    for param in params.iter() {
        match param.key {
            "bits" => {
                let bits = param.get_usize()?;
                context.rsa_bits = u32::try_from(bits).map_err(|_| {
                    fail(
                        Reason::BadParameter,
                        format!("\"bits\" {bits} is too large"),
                    )
                })?;
                // The policy's reason (e.g. too small under fips-140-3) before any work.
                rsa_rows_for(&context.module, context.rsa_bits, true)?;
            }
            "primes" => {
                let primes = param.get_usize()?;
                if primes != 2 {
                    return Err(fail(
                        Reason::NotApproved,
                        format!(
                            "\"primes\" {primes}: the Regula provider makes two-prime RSA keys \
                             only (FIPS 186-5 §A.1)"
                        ),
                    ));
                }
            }
            "e" => {
                let e = param.get_unsigned_be()?;
                if strip_zeros(&e) != [0x01, 0x00, 0x01] {
                    return Err(fail(
                        Reason::NotApproved,
                        "\"e\": the Regula provider generates RSA keys with the public exponent \
                         65537 only",
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn import_rsa(key: &mut Key, selection: c_int, params: &Params) -> Result<(), Failure> {
    if !selects(selection, ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY) {
        return Ok(());
    }
    let integer = |name: &str| -> Result<Option<Zeroizing<Vec<u8>>>, Failure> {
        params
            .locate(name)
            .map(|param| param.get_unsigned_be())
            .transpose()
            .map_err(Failure::from)
    };
    let (Some(n), Some(e)) = (integer("n")?, integer("e")?) else {
        return Err(fail(
            Reason::InvalidInput,
            "an RSA key needs its modulus \"n\" and public exponent \"e\"",
        ));
    };
    let public = RsaPublic::new(n.to_vec(), e.to_vec())?;
    if params.locate("rsa-factor3").is_some() {
        return Err(fail(
            Reason::NotApproved,
            "multi-prime RSA keys are not offered by the Regula provider (two primes only)",
        ));
    }
    let private = if selects(selection, ffi::SELECT_PRIVATE_KEY) && params.locate("d").is_some() {
        let rows = rsa_rows_for(&key.module, public.bits, true)?;
        let mut parts = Vec::with_capacity(RSA_PRIVATE_NAMES.len());
        for name in RSA_PRIVATE_NAMES {
            let name = name.to_str().unwrap_or_default();
            parts.push(integer(name)?.ok_or_else(|| {
                fail(
                    Reason::InvalidInput,
                    format!(
                        "an RSA private key is imported with its CRT values (rsa-factor1/2, \
                         rsa-exponent1/2, rsa-coefficient1); \"{name}\" is missing"
                    ),
                )
            })?);
        }
        let pkcs8 = rsa_pkcs8(&public, &parts);
        // The core checks the key as it takes it (and counts the import under the policy).
        let signing = key
            .module
            .signing_key_from_pkcs8(rows[0], &pkcs8)?
            .into_value();
        Some(Arc::new(RsaPrivate {
            parts,
            pkcs8,
            signing: std::sync::Mutex::new(vec![(rows[0], Arc::new(signing))]),
        }))
    } else {
        rsa_rows_for(&key.module, public.bits, false)?;
        None
    };
    key.rsa = Some(RsaKey {
        public: Arc::new(public),
        private,
    });
    Ok(())
}

static RSA_TYPES: params::ParamList = crate::param_list![
    ("n", params::UINT),
    ("e", params::UINT),
    ("d", params::UINT),
    ("rsa-factor1", params::UINT),
    ("rsa-factor2", params::UINT),
    ("rsa-exponent1", params::UINT),
    ("rsa-exponent2", params::UINT),
    ("rsa-coefficient1", params::UINT),
];

/// `export`: n and e, and the private integers when asked for and held, as unsigned integers
/// in the machine's byte order (as OpenSSL writes a BIGNUM).
fn export_rsa(key: &Key, selection: c_int, importer: Importer) -> Result<(), Failure> {
    let Some(rsa) = &key.rsa else {
        return Err(fail(Reason::InvalidInput, "the RSA key holds no key yet"));
    };
    let native = |value: &[u8]| keydata_calls::native_order(Zeroizing::new(value.to_vec()));
    let mut values: Vec<(&'static CStr, Zeroizing<Vec<u8>>)> = Vec::new();
    if selects(selection, KEYPAIR) {
        values.push((c"n", native(&rsa.public.n)));
        values.push((c"e", native(&rsa.public.e)));
    }
    if selects(selection, ffi::SELECT_PRIVATE_KEY)
        && let Some(private) = &rsa.private
    {
        for (name, part) in RSA_PRIVATE_NAMES.iter().zip(&private.parts) {
            values.push((name, native(part)));
        }
    }
    let mut exported = Exported::new();
    for (name, value) in &values {
        exported.unsigned(name, value);
    }
    exported.hand_to_importer(importer)
}

static RSA_GETTABLE: params::ParamList = crate::param_list![
    ("bits", params::INT),
    ("n", params::UINT),
    ("e", params::UINT),
    ("security-bits", params::INT),
    ("max-size", params::INT),
    ("default-digest", params::UTF8),
];

/// The security strength of an RSA modulus: SP 800-56B Rev. 2 Appendix D's values for the
/// sizes listed there, SP 800-57 Part 1 Rev. 5 Table 2's steps between them.
fn rsa_security_bits(bits: u32) -> u32 {
    match bits {
        15360.. => 256,
        8192.. => 200,
        7680.. => 192,
        6144.. => 176,
        4096.. => 152,
        3072.. => 128,
        2048.. => 112,
        1024.. => 80,
        _ => 0,
    }
}

/// `bits`, `security-bits`, `max-size` (the modulus in bytes), `default-digest` (SHA256, as
/// rsa_kmgmt.c answers) and the public key, `n` and `e` (`EVP_PKEY_get_bn_param`); nothing for
/// a key that holds none yet. The private values are given by `export` only, never here
/// (rsa_kmgmt.c answers `d` and the CRT values here too: a secret read as a parameter is one
/// an application may print or keep unwiped).
fn rsa_get_params(key: &Key, params: &Params) -> Result<(), Failure> {
    let Some(rsa) = &key.rsa else {
        return Ok(());
    };
    for mut param in params.iter() {
        match param.key {
            "bits" => param.set_usize(rsa.public.bits as usize)?,
            "security-bits" => param.set_usize(rsa_security_bits(rsa.public.bits) as usize)?,
            "max-size" => param.set_usize(rsa.public.size())?,
            "default-digest" => param.set_utf8("SHA256")?,
            "n" => param.set_unsigned_be(&rsa.public.n)?,
            "e" => param.set_unsigned_be(&rsa.public.e)?,
            _ => {}
        }
    }
    Ok(())
}
