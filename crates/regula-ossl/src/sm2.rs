//! SM2 keys and signatures (GB/T 32918.2-2016, GM/T 0003.2-2012) as OpenSSL's and Tongsuo's
//! providers name them: the key manager "SM2" (alias 1.2.156.10197.1.301, the curveSM2 OID
//! `id-ecPublicKey` keys are on) and the signature "SM2", over SM3 with a distinguishing ID
//! (`distid`, default GM/T 0009-2012's `1234567812345678`; Tongsuo's libssl sets RFC 8998's
//! `TLSv1.3+GM+Cipher+Suite` for TLS 1.3 CertificateVerify).
//!
//! A private key is the core's [`SigningKey`] for the `sm2-sign` row (generated with its
//! pairwise consistency test, or imported through the core from a PKCS#8 made of the scalar);
//! a public key is the uncompressed point `04 ‖ x ‖ y`. The signature hashes Z_A ‖ M in the
//! core (`EVP_DigestSign`/`EVP_DigestVerify`); `EVP_PKEY_verify` over a digest the caller
//! computed goes to the core's digest verification; `EVP_PKEY_sign` over such a digest is
//! refused, as the core signs only messages.
//!
//! curveSM2 key exchange in TLS 1.3 (RFC 8998 §3.1) is not here: libssl makes those shares as
//! "EC" keys on group "SM2" (keymgmt.rs, keyexch.rs). An SM2 key names no key exchange, so it
//! is not taken for GB/T 32918.3's key exchange protocol (Tongsuo's "SM2DH").

use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;

use regula::{Algorithm, Family, Indicator, Module, Policy, Served, SigningKey, registry};
use zeroize::Zeroizing;

use crate::context::construct;
use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator;
use crate::keydata_calls::{self, Exported, Importer, KEYPAIR, KeyData, answer_if_held, selects};
use crate::params::{self, Params};
use crate::provider_context::{Offer, served_rows};
use crate::signature_calls::{self, Mode, SignatureContext, Steps};

/// The signature row.
const ROW: Algorithm = Algorithm::Sm2Sign;
/// GM/T 0009-2012's default distinguishing ID.
pub const DEFAULT_ID: &[u8] = b"1234567812345678";
/// curveSM2: 32-byte field, uncompressed point of 65 bytes.
const FIELD: usize = 32;
const POINT: usize = 1 + 2 * FIELD;
/// The group's names OpenSSL and Tongsuo use for it.
const GROUP_NAMES: [&str; 4] = ["SM2", "curveSM2", "1.2.156.10197.1.301", "sm2p256v1"];
/// AlgorithmIdentifier { SM2-with-SM3 (1.2.156.10197.1.501) }, as Tongsuo writes it.
const SM2_SM3_ALGORITHM_ID: [u8; 12] = [
    0x30, 0x0a, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75,
];
/// Marks a key made here, so that a pointer of another key manager is refused, not misread.
const KEY_TAG: u64 = 0x5245_4755_4c41_534d;

/// The key manager and signature offers, where the policy serves SM2 signatures.
pub fn keymgmt_offers(policy: &Policy) -> Vec<Offer> {
    offer(policy, "SM2 key management", &KEYMGMT.0)
}

pub fn signature_offers(policy: &Policy) -> Vec<Offer> {
    offer(policy, "SM2", &SIGNATURE.0)
}

fn offer(policy: &Policy, what: &str, dispatch: &'static [Dispatch]) -> Vec<Offer> {
    let rows: Vec<_> = served_rows(policy, Family::Signature)
        .filter(|row| row.algorithm == ROW)
        .collect();
    Offer::named_by_first_row(policy, &rows, what, dispatch)
}

/// One SM2 key: a private key (with its public key), a public key, or only the group.
#[repr(C)]
pub struct Key {
    tag: u64,
    module: Module,
    pub(crate) signing: Option<Arc<SigningKey>>,
    pub(crate) public: Option<Vec<u8>>,
}

impl Key {
    fn new(module: Module) -> Key {
        Key {
            tag: KEY_TAG,
            module,
            signing: None,
            public: None,
        }
    }
}

/// The SM2 key behind OpenSSL's `keydata`.
///
/// # Safety
/// `keydata` is null or a pointer a key manager of this provider made, not yet freed.
pub(crate) unsafe fn key<'a>(keydata: *const c_void) -> Result<&'a mut Key, Failure> {
    // SAFETY: the caller's contract; every SM2 key starts with `KEY_TAG` (`repr(C)`).
    unsafe { keydata_calls::tagged_key(keydata, KEY_TAG, "an SM2 key") }
}

/// The uncompressed point of a signing key: the end of its SubjectPublicKeyInfo.
fn point_of(signing: &SigningKey) -> Result<Vec<u8>, Failure> {
    let spki = signing.public_key_der()?;
    match spki.len().checked_sub(POINT) {
        Some(start) if spki[start] == 0x04 => Ok(spki[start..].to_vec()),
        _ => Err(fail(Reason::Internal, "unexpected SM2 public key encoding")),
    }
}

/// An encoded public key: an uncompressed curveSM2 point (on the curve: checked by the core
/// when it verifies).
fn checked_point(encoded: &[u8]) -> Result<Vec<u8>, Failure> {
    if encoded.len() != POINT || encoded[0] != 0x04 {
        let what = match encoded.first() {
            Some(0x04) | None => format!("{} bytes", encoded.len()),
            Some(first) => format!("{} bytes starting {first:#04x}", encoded.len()),
        };
        return Err(fail(
            Reason::InvalidInput,
            format!(
                "an SM2 public key is an uncompressed point (04 || x || y) of {POINT} bytes, \
                 not {what}"
            ),
        ));
    }
    Ok(encoded.to_vec())
}

/// RFC 5208 PrivateKeyInfo { 0, id-ecPublicKey + curveSM2, ECPrivateKey (RFC 5915) { 1,
/// scalar } } for the core; wiped on drop.
pub(crate) fn pkcs8(scalar: &[u8]) -> Zeroizing<Vec<u8>> {
    const HEAD: &[u8] = &[
        0x30, 0x41, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02,
        0x01, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d, 0x04, 0x27, 0x30, 0x25,
        0x02, 0x01, 0x01, 0x04, 0x20,
    ];
    let mut der = Zeroizing::new(Vec::with_capacity(HEAD.len() + FIELD));
    der.extend_from_slice(HEAD);
    der.extend_from_slice(scalar);
    der
}

/// One DER element of `tag`: its body and what follows.
fn der_read(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&first, rest) = input.split_first()?;
    if first != tag {
        return None;
    }
    let (&len_byte, rest) = rest.split_first()?;
    let (len, rest) = match len_byte {
        0..=0x7f => (usize::from(len_byte), rest),
        0x81 => (usize::from(*rest.first()?), &rest[1..]),
        0x82 if rest.len() >= 2 => (usize::from(rest[0]) << 8 | usize::from(rest[1]), &rest[2..]),
        _ => return None,
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// The 32-byte scalar of a signing key, from the core's PKCS#8; wiped on drop.
pub(crate) fn scalar_of(signing: &SigningKey) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let pkcs8 = signing.to_pkcs8_der()?;
    let scalar = (|| {
        let (info, _) = der_read(&pkcs8, 0x30)?;
        let (_, rest) = der_read(info, 0x02)?;
        let (_, rest) = der_read(rest, 0x30)?;
        let (octets, _) = der_read(rest, 0x04)?;
        let (private_key, _) = der_read(octets, 0x30)?;
        let (_, rest) = der_read(private_key, 0x02)?;
        let (scalar, _) = der_read(rest, 0x04)?;
        Some(scalar)
    })()
    .ok_or_else(|| fail(Reason::Internal, "unexpected SM2 private key encoding"))?;
    let mut out = Zeroizing::new(vec![0u8; FIELD]);
    if scalar.len() > FIELD {
        return Err(fail(Reason::Internal, "SM2 private key of the wrong size"));
    }
    out[FIELD - scalar.len()..].copy_from_slice(scalar);
    Ok(out)
}

fn check_group(name: &str) -> Result<(), Failure> {
    if GROUP_NAMES.iter().any(|n| n.eq_ignore_ascii_case(name)) {
        Ok(())
    } else {
        Err(fail(
            Reason::InvalidInput,
            format!("an SM2 key is on curveSM2 (group \"SM2\"), not \"{name}\""),
        ))
    }
}

/// The provider context's module, if it serves SM2.
///
/// # Safety
/// `provctx` is the provider context OpenSSL was given.
unsafe fn module_of(provctx: *mut c_void) -> Result<Module, Failure> {
    // SAFETY: the caller's contract.
    let module = unsafe { keydata_calls::module_of(provctx) }?;
    keydata_calls::refuse_unserved(&module, module.policy().serves(ROW), ROW)?;
    Ok(module)
}

// --- KEYMGMT ---------------------------------------------------------------------------------

static KEYMGMT: ffi::SyncTable<[Dispatch; 22]> = ffi::SyncTable(ffi::joined(&[
    &[
        crate::dispatch_fn!(ffi::KEYMGMT_NEW, new),
        crate::dispatch_fn!(ffi::KEYMGMT_GEN_INIT, gen_init),
        crate::dispatch_fn!(ffi::KEYMGMT_GEN_SET_TEMPLATE, gen_set_template),
        crate::dispatch_fn!(ffi::KEYMGMT_GEN_SET_PARAMS, gen_set_params),
        crate::dispatch_fn!(ffi::KEYMGMT_GEN, generate),
        crate::dispatch_fn!(ffi::KEYMGMT_GEN_CLEANUP, crate::context::free::<GenContext>),
        crate::dispatch_fn!(ffi::KEYMGMT_VALIDATE, keydata_calls::validate::<Key>),
        crate::dispatch_fn!(ffi::KEYMGMT_QUERY_OPERATION_NAME, query_operation_name),
    ],
    &keydata_calls::key_calls::<Key>(),
    &keydata_calls::list_calls::<Key>(),
]));

unsafe extern "C" fn new(provctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes the provctx it was given.
    construct(|| Ok(Key::new(unsafe { module_of(provctx) }?)))
}

struct GenContext {
    module: Module,
    selection: c_int,
}

fn apply_gen_params(params: &Params) -> Result<(), Failure> {
    for param in params.iter() {
        if param.key == "group" {
            check_group(&param.get_utf8()?)?;
        }
    }
    Ok(())
}

unsafe extern "C" fn gen_init(
    provctx: *mut c_void,
    selection: c_int,
    params: *const Param,
) -> *mut c_void {
    construct(|| {
        // SAFETY: OpenSSL passes the provctx it was given and a terminated array (or null).
        let (module, params) = unsafe { (module_of(provctx)?, Params::new(params)) };
        apply_gen_params(&params)?;
        Ok(GenContext { module, selection })
    })
}

unsafe extern "C" fn gen_set_template(genctx: *mut c_void, template: *mut c_void) -> c_int {
    error::entry(|| {
        // SAFETY: a live generation context and a key of this key manager.
        unsafe {
            crate::context::borrow::<GenContext>(genctx, "key generation context")?;
            key(template)?;
        }
        Ok(())
    })
}

unsafe extern "C" fn gen_set_params(genctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live generation context and a terminated array (or null).
        let params = unsafe {
            crate::context::borrow::<GenContext>(genctx, "key generation context")?;
            Params::new(params)
        };
        apply_gen_params(&params)
    })
}

/// `gen`: a key pair from the core (with its pairwise consistency test), or a key holding only
/// the group when no key was asked for.
unsafe extern "C" fn generate(
    genctx: *mut c_void,
    _callback: *mut c_void,
    _argument: *mut c_void,
) -> *mut c_void {
    construct(|| {
        // SAFETY: a live generation context.
        let context =
            unsafe { crate::context::borrow::<GenContext>(genctx, "key generation context") }?;
        let mut key = Key::new(context.module.clone());
        if selects(
            context.selection,
            ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY,
        ) {
            let signing = context.module.generate_signing_key(ROW, None)?.into_value();
            key.public = Some(point_of(&signing)?);
            key.signing = Some(Arc::new(signing));
        }
        Ok(key)
    })
}

/// An SM2 key is an EC key on curveSM2 (`group` "SM2"): it is described as one.
impl keydata_calls::KeyParamLists for Key {
    const GETTABLE: &'static params::ParamList = &crate::keymgmt::EC_GETTABLE;
    const KEY_TYPES: &'static params::ParamList = &crate::keymgmt::EC_TYPES;
    const GEN_SETTABLE: &'static params::ParamList = &crate::keymgmt::GEN_SETTABLE;
}

/// The signature is "SM2"; no key exchange is named (GB/T 32918.3's protocol is not offered,
/// and curveSM2 ECDHE uses "EC" keys).
unsafe extern "C" fn query_operation_name(operation: c_int) -> *const c_char {
    match operation {
        ffi::OP_SIGNATURE => c"SM2".as_ptr(),
        _ => std::ptr::null(),
    }
}

/// `validate` is [`keydata_calls::validate`]: a private key was checked by the core as it took
/// it (and its public key is the one the core computed); a public point is checked on the curve
/// when it verifies. What remains is that the key holds what is asked for.
impl KeyData for Key {
    unsafe fn from_keydata<'a>(keydata: *const c_void) -> Result<&'a mut Key, Failure> {
        // SAFETY: the caller's contract.
        unsafe { key(keydata) }
    }

    fn holds(&self, selection: c_int) -> bool {
        keydata_calls::holds_halves(selection, self.signing.is_some(), self.public.is_some())
    }

    /// Both are on curveSM2; a private key always comes with its public key here.
    fn same_as(&self, other: &Key, selection: c_int) -> bool {
        !selects(selection, KEYPAIR) || (self.public.is_some() && self.public == other.public)
    }

    fn copy(&self, selection: c_int) -> Result<Key, Failure> {
        let mut copy = Key::new(self.module.clone());
        if selects(selection, KEYPAIR) {
            copy.public = self.public.clone();
        }
        if selects(selection, ffi::SELECT_PRIVATE_KEY) {
            copy.signing = self.signing.clone();
        }
        Ok(copy)
    }

    fn import(&mut self, selection: c_int, params: &Params) -> Result<(), Failure> {
        let key = self;
        if let Some(param) = params.locate("group") {
            check_group(&param.get_utf8()?)?;
        }
        if !selects(selection, KEYPAIR) {
            return Ok(());
        }
        let public = match params.locate("pub") {
            Some(param) => Some(checked_point(param.get_octets()?)?),
            None => None,
        };
        let private = match params.locate("priv") {
            Some(param) if selects(selection, ffi::SELECT_PRIVATE_KEY) => {
                let scalar = keydata_calls::fixed_scalar(
                    &param.get_unsigned_be()?,
                    FIELD,
                    "the SM2 private key",
                )?;
                // The core checks the scalar's range and counts the import under the policy.
                let signing = key
                    .module
                    .signing_key_from_pkcs8(ROW, &pkcs8(&scalar))?
                    .into_value();
                Some(signing)
            }
            _ => None,
        };
        match (private, public) {
            (Some(signing), public) => {
                let point = point_of(&signing)?;
                if public.as_ref().is_some_and(|public| *public != point) {
                    return Err(fail(
                        Reason::InvalidInput,
                        "the SM2 public key \"pub\" is not the private key's",
                    ));
                }
                key.public = Some(point);
                key.signing = Some(Arc::new(signing));
            }
            (None, Some(public)) => {
                key.public = Some(public);
                key.signing = None;
            }
            (None, None) => {
                return Err(fail(
                    Reason::InvalidInput,
                    "no SM2 key to import: neither \"pub\" nor \"priv\" given",
                ));
            }
        }
        Ok(())
    }

    /// The group "SM2", the public point, and the private scalar when asked for and held (an
    /// unsigned integer in the machine's byte order, as OpenSSL writes a BIGNUM).
    fn export(&self, selection: c_int, importer: Importer) -> Result<(), Failure> {
        let scalar = match &self.signing {
            Some(signing) if selects(selection, ffi::SELECT_PRIVATE_KEY) => {
                Some(keydata_calls::native_order(scalar_of(signing)?))
            }
            _ => None,
        };
        let mut exported = Exported::new();
        if selects(
            selection,
            ffi::SELECT_DOMAIN_PARAMETERS | ffi::SELECT_OTHER_PARAMETERS,
        ) {
            exported.utf8(c"group", c"SM2");
        }
        if selects(selection, KEYPAIR)
            && let Some(public) = &self.public
        {
            exported.octets(c"pub", public);
        }
        if let Some(scalar) = &scalar {
            exported.unsigned(c"priv", scalar);
        }
        exported.hand_to_importer(importer)
    }

    /// `bits` 256, `security-bits` 128, `max-size` (the longest DER signature, 72 bytes),
    /// `encoded-pub-key` and `pub`, `group` "SM2", `default-digest` "SM3" (as Tongsuo's SM2 key
    /// manager answers), point format and encoding, `decoded-from-explicit` 0.
    fn answer(&self, params: &Params) -> Result<(), Failure> {
        let max_size = registry::entry(ROW).sizes.signature.unwrap_or(72);
        for mut param in params.iter() {
            match param.key {
                "bits" => param.set_usize(FIELD * 8)?,
                "security-bits" => param.set_usize(FIELD * 4)?,
                "max-size" => param.set_usize(max_size)?,
                "encoded-pub-key" | "pub" => answer_if_held(&mut param, self.public.as_deref())?,
                "group" => param.set_utf8("SM2")?,
                "point-format" => param.set_utf8("uncompressed")?,
                "encoding" => param.set_utf8("named_curve")?,
                "decoded-from-explicit" => param.set_i64(0)?,
                "default-digest" => param.set_utf8("SM3")?,
                _ => {}
            }
        }
        Ok(())
    }

    /// `encoded-pub-key`: a public key set on a key holding none
    /// (`EVP_PKEY_set1_encoded_public_key`).
    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        if let Some(param) = params.locate("encoded-pub-key") {
            if self.signing.is_some() {
                return Err(fail(
                    Reason::InvalidInput,
                    "the key holds a private key: its public key cannot be replaced",
                ));
            }
            self.public = Some(checked_point(param.get_octets()?)?);
        }
        Ok(())
    }
}

// --- SIGNATURE -------------------------------------------------------------------------------

#[derive(Clone)]
struct Context {
    module: Module,
    signing: Option<Arc<SigningKey>>,
    public: Option<Vec<u8>>,
    /// The distinguishing ID; `None` is the default.
    id: Option<Vec<u8>>,
    steps: Steps,
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "SM2 signature context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(self.clone())
    }
}

static SIGNATURE: ffi::SyncTable<[Dispatch; 20]> =
    ffi::SyncTable(signature_calls::table::<Context>(
        newctx,
        params::gettable_ctx_params::<Context>,
        params::settable_ctx_params::<Context>,
    ));

unsafe extern "C" fn newctx(provctx: *mut c_void, _properties: *const c_char) -> *mut c_void {
    construct(|| {
        // SAFETY: OpenSSL passes the provctx it was given.
        let module = unsafe { module_of(provctx) }?;
        Ok(Context {
            module,
            signing: None,
            public: None,
            id: None,
            steps: Steps::default(),
        })
    })
}

/// The digest named for an SM2 signature: SM3 only (GB/T 32918.2 hashes with SM3).
fn check_digest(name: &str) -> Result<(), Failure> {
    if name.is_empty() || crate::names::row_named_in(Family::Digest, name) == Some(Algorithm::Sm3) {
        return Ok(());
    }
    Err(fail(
        Reason::NotApproved,
        format!("SM2 signs with SM3 only (GB/T 32918.2); \"{name}\" was named"),
    ))
}

impl Context {
    fn id(&self) -> &[u8] {
        self.id.as_deref().unwrap_or(DEFAULT_ID)
    }

    fn public(&self) -> Result<&[u8], Failure> {
        self.public
            .as_deref()
            .ok_or_else(|| fail(Reason::OutOfOrder, "verify before init"))
    }
}

impl SignatureContext for Context {
    fn steps(&self) -> &Steps {
        &self.steps
    }

    fn steps_mut(&mut self) -> &mut Steps {
        &mut self.steps
    }

    /// `EVP_PKEY_sign` is refused: the module signs messages only. `EVP_PKEY_verify` takes
    /// SM3(Z_A ‖ M) computed by the caller.
    unsafe fn init(
        &mut self,
        provkey: *mut c_void,
        digest: Option<&str>,
        mode: Mode,
        params: &Params,
    ) -> Result<(), Failure> {
        if mode == Mode::Sign {
            return Err(fail(
                Reason::NotApproved,
                "SM2 signing over a digest computed by the caller is not offered by the Regula \
                 provider: the module computes Z_A and SM3 itself; use EVP_DigestSign",
            ));
        }
        if !provkey.is_null() {
            // SAFETY: a key of this provider (refused unless it is an SM2 key).
            let key = unsafe { key(provkey)? };
            self.signing = key.signing.clone();
            self.public = key.public.clone();
        }
        if self.public.is_none() {
            return Err(fail(
                Reason::OutOfOrder,
                "no SM2 key: initialise with a key first",
            ));
        }
        if mode == Mode::DigestSign && self.signing.is_none() {
            return Err(fail(
                Reason::InvalidInput,
                "signing needs a private key; this SM2 key has none",
            ));
        }
        if let Some(digest) = digest {
            check_digest(digest)?;
        }
        apply(self, params)
    }

    fn max_signature_len(&self) -> Result<usize, Failure> {
        Ok(registry::entry(ROW).sizes.signature.unwrap_or(72))
    }

    fn sign_message(&mut self, message: &[u8]) -> Result<Served<Vec<u8>>, Failure> {
        let signing = self
            .signing
            .clone()
            .ok_or_else(|| fail(Reason::OutOfOrder, "sign before init"))?;
        Ok(signing.sign_with_id(message, self.id())?)
    }

    fn verify_message(&mut self, message: &[u8], signature: &[u8]) -> Result<Indicator, Failure> {
        Ok(self
            .module
            .verify_with_id(ROW, self.public()?, message, signature, self.id())?
            .indicator())
    }

    fn verify_one_shot(&mut self, digest: &[u8], signature: &[u8]) -> Result<Indicator, Failure> {
        Ok(self
            .module
            .verify_sm2_digest(self.public()?, digest, signature)?
            .indicator())
    }

    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        apply(self, params)
    }

    fn answer(&self, params: &Params) -> Result<(), Failure> {
        answer_params(self, params)
    }
}

/// `distid` (empty: the default ID, as Tongsuo takes it), `digest` (SM3 only), `digest-size`
/// (32 only), `properties`, and `sm2-za` (computing Z_A cannot be turned off: the core hashes
/// Z_A ‖ M).
fn apply(context: &mut Context, params: &Params) -> Result<(), Failure> {
    for param in params.iter() {
        match param.key {
            "distid" => {
                context.steps.before_message(param.key)?;
                let id = param.get_octets()?;
                context.id = (!id.is_empty()).then(|| id.to_vec());
            }
            "digest" => check_digest(&param.get_utf8()?)?,
            "digest-size" => {
                let size = param.get_usize()?;
                if size != FIELD {
                    return Err(fail(
                        Reason::BadParameter,
                        format!("\"digest-size\" {size}: SM2 signs an SM3 digest of 32 bytes"),
                    ));
                }
            }
            "properties" => {
                param.get_utf8()?;
            }
            "sm2-za" => {
                let za = param.get_utf8()?;
                if za.eq_ignore_ascii_case("no") {
                    return Err(fail(
                        Reason::NotApproved,
                        "\"sm2-za\" no: the Regula provider always hashes Z_A with the message \
                         (GB/T 32918.2 §6.1)",
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

static SETTABLE_CTX: params::ParamList = crate::param_list![
    ("digest", params::UTF8),
    ("digest-size", params::UINT),
    ("distid", params::OCTETS),
    ("sm2-za", params::UTF8),
    ("properties", params::UTF8),
];

static GETTABLE_CTX: params::ParamList = crate::param_list![
    ("algorithm-id", params::OCTETS),
    ("digest", params::UTF8),
    ("digest-size", params::UINT),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

impl params::CtxParamLists for Context {
    const GETTABLE: &'static params::ParamList = &GETTABLE_CTX;
    const SETTABLE: &'static params::ParamList = &SETTABLE_CTX;
}

/// `algorithm-id` (SM2-with-SM3, for X.509 and CMS writers), `digest` SM3, `digest-size` 32,
/// and the indicator.
fn answer_params(context: &Context, params: &Params) -> Result<(), Failure> {
    for mut param in params.iter() {
        match param.key {
            "algorithm-id" => param.set_octets(&SM2_SM3_ALGORITHM_ID)?,
            "digest" => param.set_utf8("SM3")?,
            "digest-size" => param.set_usize(FIELD)?,
            _ => indicator::answer_param(context.steps.last, &mut param)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generated key's scalar, put into the PKCS#8 template the core is given, is the same
    /// key (the core derives the same public point from it).
    #[test]
    fn a_scalar_goes_through_pkcs8_and_back() {
        let module = Module::load_named("gm").expect("gm policy");
        let signing = module
            .generate_signing_key(ROW, None)
            .expect("SM2 key")
            .into_value();
        let Ok(scalar) = scalar_of(&signing) else {
            panic!("the generated key's scalar")
        };
        let again = module
            .signing_key_from_pkcs8(ROW, &pkcs8(&scalar))
            .expect("import")
            .into_value();
        let (Ok(again), Ok(original)) = (point_of(&again), point_of(&signing)) else {
            panic!("the public points")
        };
        assert_eq!(again, original);
    }

    #[test]
    fn sm2_is_offered_where_the_policy_serves_it() {
        for (policy, offered) in [("gm", 1), ("default", 1), ("fips-140-3", 0)] {
            let module = Module::load_named(policy).expect("policy");
            assert_eq!(keymgmt_offers(module.policy()).len(), offered, "{policy}");
            assert_eq!(signature_offers(module.policy()).len(), offered, "{policy}");
        }
    }

    #[test]
    fn a_group_other_than_curve_sm2_is_refused() {
        assert!(check_group("SM2").is_ok());
        assert!(check_group("P-256").is_err());
    }
}
