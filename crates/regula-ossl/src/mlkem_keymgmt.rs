//! `OSSL_OP_KEYMGMT` for ML-KEM (FIPS 203) and the hybrid TLS groups that pair it with a
//! classical key agreement, as OpenSSL 3.5's providers/implementations/keymgmt/ml_kem_kmgmt.c
//! and mlx_kmgmt.c behave for libssl and for `EVP_PKEY`: generate a key (the core's, with its
//! pairwise consistency test), give its encapsulation key as `encoded-pub-key`, take the peer's
//! the same way (libssl's server side), import and export `pub` and `priv`, compare, check.
//!
//! "ML-KEM-768" and "ML-KEM-1024" are the registry rows (their names, and their TLS group name
//! and code point from the rows' `openssl` parameters). The hybrids are [`HYBRIDS`]: one key
//! manager (and KEM, `kem.rs`) named like the TLS group, whose public key, ciphertext and shared
//! secret are the two halves concatenated in draft-ietf-tls-ecdhe-mlkem's order. The classical
//! half goes through the core's key agreement service; the approval is the ML-KEM row's (the
//! classical secret is auxiliary input, SP 800-227 §4.6), but a hybrid is offered only when the
//! policy serves both halves: the provider computes each through the core, so under
//! fips-140-3, which does not serve X25519, X25519MLKEM768 is not offered and
//! SecP256r1MLKEM768 and SecP384r1MLKEM1024 are.
//!
//! A `seed` (FIPS 203's d ‖ z) is taken on generation and import through the core's
//! ML-KEM.KeyGen_internal (`Module::known_answer_kem_keygen`, same gate, PCT and indicator);
//! the core does not keep a key's seed, so none is exported.

use std::os::raw::{c_int, c_void};
use std::sync::Arc;

use regula::{AgreementKey, Algorithm, KemPrivateKey, Module, Policy, registry};
use zeroize::Zeroizing;

use crate::context::construct;
use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::keydata_calls::{
    self, Exported, Importer, KEYPAIR, KeyData, answer_if_held, module_of, selects,
};
use crate::params::{self, Params};
use crate::provider_context::Offer;

/// One hybrid group of draft-ietf-tls-ecdhe-mlkem: its TLS name (also the OpenSSL key manager
/// and KEM name, as OpenSSL 3.5 names them), code point, and the two algorithms.
pub struct Hybrid {
    pub name: &'static str,
    pub tls_id: u32,
    pub kem: Algorithm,
    pub classical: Algorithm,
    /// Whether the classical half comes first in the public key, ciphertext and secret
    /// (the SecP* groups: the EC point first; X25519MLKEM768: ML-KEM first).
    pub classical_first: bool,
}

/// The hybrid groups, in OpenSSL 3.5's order of preference.
pub const HYBRIDS: [Hybrid; 3] = [
    Hybrid {
        name: "X25519MLKEM768",
        tls_id: 0x11EC,
        kem: Algorithm::MlKem768,
        classical: Algorithm::X25519,
        classical_first: false,
    },
    Hybrid {
        name: "SecP256r1MLKEM768",
        tls_id: 0x11EB,
        kem: Algorithm::MlKem768,
        classical: Algorithm::EcdhP256,
        classical_first: true,
    },
    Hybrid {
        name: "SecP384r1MLKEM1024",
        tls_id: 0x11ED,
        kem: Algorithm::MlKem1024,
        classical: Algorithm::EcdhP384,
        classical_first: true,
    },
];

/// The ML-KEM rows offered alone.
const PURE: [Algorithm; 2] = [Algorithm::MlKem768, Algorithm::MlKem1024];

/// The number of key managers (and KEMs): the pure rows, then the hybrids.
pub const VARIANT_COUNT: usize = PURE.len() + HYBRIDS.len();

/// One key manager's algorithm: ML-KEM alone or a hybrid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub index: usize,
    pub kem: Algorithm,
    /// The classical half and whether it comes first.
    pub classical: Option<(Algorithm, bool)>,
}

pub fn variant(index: usize) -> Option<Variant> {
    if let Some(&kem) = PURE.get(index) {
        return Some(Variant {
            index,
            kem,
            classical: None,
        });
    }
    let hybrid = HYBRIDS.get(index - PURE.len())?;
    Some(Variant {
        index,
        kem: hybrid.kem,
        classical: Some((hybrid.classical, hybrid.classical_first)),
    })
}

/// FIPS 203's sizes of an ML-KEM row, from the registry (decapsulation key: dk_PKE ‖ ek ‖
/// H(ek) ‖ z, 2·|ek| + 32 bytes).
fn kem_sizes(kem: Algorithm) -> (usize, usize, usize, usize) {
    let sizes = registry::entry(kem).sizes;
    let public = sizes.public_key.unwrap_or(0);
    (
        public,
        2 * public + 32,
        sizes.ciphertext.unwrap_or(0),
        sizes.output.unwrap_or(0),
    )
}

/// A classical half's public key, private key and secret sizes (the secret: the field size).
fn classical_sizes(classical: Algorithm) -> (usize, usize, usize) {
    let sizes = registry::entry(classical).sizes;
    let field = sizes.output.unwrap_or(0);
    (sizes.public_key.unwrap_or(0), field, field)
}

impl Variant {
    pub fn hybrid(self) -> Option<&'static Hybrid> {
        self.index
            .checked_sub(PURE.len())
            .and_then(|at| HYBRIDS.get(at))
    }

    /// The OpenSSL name: the row's canonical name ("ML-KEM-768") or the hybrid's.
    pub fn label(self) -> &'static str {
        match self.hybrid() {
            Some(hybrid) => hybrid.name,
            None => registry::entry(self.kem)
                .openssl
                .as_ref()
                .map_or(registry::entry(self.kem).name, |name| name.canonical()),
        }
    }

    /// Every OpenSSL name (the row's, with its OID, for ML-KEM alone).
    fn names(self) -> &'static str {
        match self.hybrid() {
            Some(hybrid) => hybrid.name,
            None => registry::entry(self.kem)
                .openssl
                .as_ref()
                .map_or(registry::entry(self.kem).name, |name| name.names),
        }
    }

    /// Whether the policy serves every algorithm the variant computes.
    pub fn served(self, policy: &Policy) -> bool {
        policy.serves(self.kem) && self.classical.is_none_or(|(c, _)| policy.serves(c))
    }

    /// The rows whose use the variant counts: the KEM, and the classical half.
    pub fn rows(self) -> Vec<&'static registry::Entry> {
        std::iter::once(self.kem)
            .chain(self.classical.map(|(c, _)| c))
            .map(registry::entry)
            .collect()
    }

    fn classical_sizes(self) -> (usize, usize, usize) {
        self.classical
            .map_or((0, 0, 0), |(classical, _)| classical_sizes(classical))
    }

    pub fn public_len(self) -> usize {
        kem_sizes(self.kem).0 + self.classical_sizes().0
    }

    pub fn private_len(self) -> usize {
        kem_sizes(self.kem).1 + self.classical_sizes().1
    }

    pub fn ciphertext_len(self) -> usize {
        // The classical half's "ciphertext" is the ephemeral public key.
        kem_sizes(self.kem).2 + self.classical_sizes().0
    }

    pub fn secret_len(self) -> usize {
        kem_sizes(self.kem).3 + self.classical_sizes().2
    }

    /// FIPS 203's parameter set (768, 1024), what OpenSSL answers as `bits`.
    pub fn bits(self) -> usize {
        match self.kem {
            Algorithm::MlKem1024 => 1024,
            _ => 768,
        }
    }

    /// NIST's security category in bits (ML_KEM_*_SECBITS: 192, 256); the hybrid's is ML-KEM's.
    pub fn security_bits(self) -> usize {
        match self.kem {
            Algorithm::MlKem1024 => 256,
            _ => 192,
        }
    }

    /// Splits a concatenation into (ML-KEM part, classical part), the classical part being
    /// `classical_len` bytes; for ML-KEM alone the classical part is empty.
    pub fn split(self, joined: &[u8], classical_len: usize) -> (&[u8], &[u8]) {
        match self.classical {
            None => (joined, &[]),
            Some((_, true)) => {
                let (classical, kem) = joined.split_at(classical_len.min(joined.len()));
                (kem, classical)
            }
            Some((_, false)) => {
                let (kem, classical) = joined.split_at(joined.len().saturating_sub(classical_len));
                (kem, classical)
            }
        }
    }

    /// The concatenation of an ML-KEM part and a classical part in the variant's order.
    pub fn join(self, kem: &[u8], classical: &[u8]) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(kem.len() + classical.len()));
        let (first, second) = match self.classical {
            Some((_, true)) => (classical, kem),
            _ => (kem, classical),
        };
        out.extend_from_slice(first);
        out.extend_from_slice(second);
        out
    }

    /// Checks a classical public key (or ephemeral share): its length, and for a curve the
    /// uncompressed form TLS uses; the core checks the point is on the curve when it is used.
    pub fn check_classical_public(self, encoded: &[u8]) -> Result<(), Failure> {
        let Some((classical, _)) = self.classical else {
            return Ok(());
        };
        let expected = classical_sizes(classical).0;
        let point = classical != Algorithm::X25519;
        if encoded.len() != expected || (point && encoded.first() != Some(&0x04)) {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "the {classical} half of a {} key is {expected} bytes{}; got {} bytes",
                    self.label(),
                    if point {
                        ", an uncompressed point (04 || x || y)"
                    } else {
                        ""
                    },
                    encoded.len()
                ),
            ));
        }
        Ok(())
    }

    /// Checks a whole encoded public key: its length and its classical half.
    fn checked_public(self, encoded: &[u8]) -> Result<Vec<u8>, Failure> {
        if encoded.len() != self.public_len() {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "a {} public key is {} bytes, not {}",
                    self.label(),
                    self.public_len(),
                    encoded.len()
                ),
            ));
        }
        let (_, classical) = self.split(encoded, self.classical_sizes().0);
        self.check_classical_public(classical)?;
        Ok(encoded.to_vec())
    }
}

/// The variants the policy serves.
pub fn served_variants(policy: &Policy) -> impl Iterator<Item = Variant> + '_ {
    (0..VARIANT_COUNT)
        .filter_map(variant)
        .filter(|variant| variant.served(policy))
}

/// One variant's offer under an operation (`what`: "key management", "KEM"); approved when
/// the policy approves the ML-KEM row (the classical half is auxiliary).
pub fn offer(
    policy: &Policy,
    variant: Variant,
    what: &str,
    dispatch: &'static [Dispatch],
) -> Offer {
    Offer {
        names: variant.names().to_owned(),
        approved: policy.approves(variant.kem),
        dispatch,
        description: format!(
            "Regula {} {what} ({})",
            variant.label(),
            variant
                .rows()
                .iter()
                .map(|row| row.name)
                .collect::<Vec<_>>()
                .join(" + ")
        ),
    }
}

/// The key managers the policy serves.
pub fn offers(policy: &Policy) -> Vec<Offer> {
    served_variants(policy)
        .map(|variant| offer(policy, variant, "key management", &TABLES.0[variant.index]))
        .collect()
}

/// One ML-KEM or hybrid key (`EVP_PKEY`'s provider half): the public key (the two halves
/// concatenated for a hybrid), and the private halves when held.
pub struct KemKey {
    pub(crate) module: Module,
    pub(crate) variant: Variant,
    pub(crate) public: Option<Vec<u8>>,
    pub(crate) kem_private: Option<Arc<KemPrivateKey>>,
    pub(crate) classical_private: Option<Arc<AgreementKey>>,
}

impl KemKey {
    fn new(module: Module, variant: Variant) -> KemKey {
        KemKey {
            module,
            variant,
            public: None,
            kem_private: None,
            classical_private: None,
        }
    }

    pub(crate) fn has_private(&self) -> bool {
        self.kem_private.is_some()
            && (self.variant.classical.is_none() || self.classical_private.is_some())
    }

    /// The private key: FIPS 203's decapsulation key, then (for a hybrid, in the variant's
    /// order) the classical private key; wiped on drop.
    fn private_bytes(&self) -> Result<Option<Zeroizing<Vec<u8>>>, Failure> {
        let Some(kem) = &self.kem_private else {
            return Ok(None);
        };
        let kem = kem.to_bytes()?;
        let classical = match &self.classical_private {
            Some(classical) => classical.private_key_bytes()?,
            None => Zeroizing::new(Vec::new()),
        };
        Ok(Some(self.variant.join(&kem, &classical)))
    }
}

/// The encapsulation key of a decapsulation key: the core's answer, or, for an imported key
/// whose backend keeps none, the copy FIPS 203's encoding holds (dk = dk_PKE ‖ ek ‖ H(ek) ‖ z,
/// ek at 384k = |ek| − 32).
fn encapsulation_key_of(kem: &KemPrivateKey) -> Result<Vec<u8>, Failure> {
    if let Ok(public) = kem.encapsulation_key() {
        return Ok(public);
    }
    let public_len = kem_sizes(kem.algorithm()).0;
    let private = kem.to_bytes()?;
    let start = public_len.saturating_sub(32);
    private
        .get(start..start + public_len)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| fail(Reason::Internal, "decapsulation key of the wrong size"))
}

/// The pairwise test OpenSSL runs on an imported ML-KEM private key (ml_kem_kmgmt.c): a secret
/// encapsulated to the key's encapsulation key decapsulates to the same secret.
fn imported_pair_test(module: &Module, kem: &KemPrivateKey, public: &[u8]) -> Result<(), Failure> {
    let encapsulated = module.encapsulate(kem.algorithm(), public)?.into_value();
    let secret = kem.decapsulate(&encapsulated.ciphertext)?.into_value();
    if same_secret(&secret, &encapsulated.shared_secret) {
        Ok(())
    } else {
        Err(fail(
            Reason::InvalidInput,
            format!(
                "the {} private key fails its pairwise test: its encapsulation key is not its own",
                kem.algorithm()
            ),
        ))
    }
}

/// The key behind OpenSSL's `keydata`.
///
/// # Safety
/// `keydata` is null or a pointer this module made, not yet freed.
pub(crate) unsafe fn key<'a>(keydata: *mut c_void) -> Result<&'a mut KemKey, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(keydata, "ML-KEM key") }
}

type Tables = ffi::SyncTable<[[Dispatch; 21]; VARIANT_COUNT]>;

static TABLES: Tables = ffi::SyncTable([
    table::<0>(),
    table::<1>(),
    table::<2>(),
    table::<3>(),
    table::<4>(),
]);

const fn table<const K: usize>() -> [Dispatch; 21] {
    ffi::joined(&[
        &[
            crate::dispatch_fn!(ffi::KEYMGMT_NEW, new::<K>),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN_INIT, gen_init::<K>),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN_SET_PARAMS, gen_set_params),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN, generate),
            crate::dispatch_fn!(ffi::KEYMGMT_GEN_CLEANUP, crate::context::free::<GenContext>),
            crate::dispatch_fn!(ffi::KEYMGMT_VALIDATE, validate),
            crate::dispatch_fn!(ffi::KEYMGMT_QUERY_OPERATION_NAME, query_operation_name::<K>),
        ],
        &keydata_calls::key_calls::<KemKey>(),
        &keydata_calls::list_calls::<KemKey>(),
    ])
}

fn variant_of<const K: usize>() -> Result<Variant, Failure> {
    variant(K).ok_or_else(|| fail(Reason::Internal, "ML-KEM variant"))
}

/// Refuses a variant the loaded policy does not serve.
fn served(module: &Module, variant: Variant) -> Result<(), Failure> {
    keydata_calls::refuse_unserved(module, variant.served(module.policy()), variant.label())
}

unsafe extern "C" fn new<const K: usize>(provctx: *mut c_void) -> *mut c_void {
    construct(|| {
        // SAFETY: OpenSSL passes the provctx it was given.
        let module = unsafe { module_of(provctx) }?;
        let variant = variant_of::<K>()?;
        served(&module, variant)?;
        Ok(KemKey::new(module, variant))
    })
}

/// A key generation in progress: what to make, and a caller's seed (d ‖ z), wiped on drop.
struct GenContext {
    module: Module,
    variant: Variant,
    selection: c_int,
    seed: Option<Zeroizing<Vec<u8>>>,
}

unsafe extern "C" fn gen_init<const K: usize>(
    provctx: *mut c_void,
    selection: c_int,
    params: *const Param,
) -> *mut c_void {
    construct(|| {
        // SAFETY: OpenSSL passes the provctx it was given and a terminated array (or null).
        let (module, params) = unsafe { (module_of(provctx)?, Params::new(params)) };
        let variant = variant_of::<K>()?;
        served(&module, variant)?;
        let mut context = GenContext {
            module,
            variant,
            selection,
            seed: None,
        };
        apply_gen_params(&mut context, &params)?;
        Ok(context)
    })
}

/// `seed` (64 bytes, ML-KEM alone); `group` (libssl sets the TLS group's internal name, empty
/// for these groups) and `properties` change nothing.
fn apply_gen_params(context: &mut GenContext, params: &Params) -> Result<(), Failure> {
    if let Some(param) = params.locate("seed") {
        let seed = param.get_octets()?;
        if context.variant.classical.is_some() {
            return Err(fail(
                Reason::BadParameter,
                format!(
                    "\"seed\": a {} key is generated from fresh randomness only",
                    context.variant.label()
                ),
            ));
        }
        if seed.len() != 64 {
            return Err(fail(
                Reason::InvalidInput,
                format!("\"seed\" is d || z, 64 bytes; got {} bytes", seed.len()),
            ));
        }
        context.seed = Some(Zeroizing::new(seed.to_vec()));
    }
    Ok(())
}

/// # Safety
/// `genctx` is null or a live generation context of this module.
unsafe fn gen_context<'a>(genctx: *mut c_void) -> Result<&'a mut GenContext, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(genctx, "ML-KEM key generation context") }
}

unsafe extern "C" fn gen_set_params(genctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live generation context and a terminated array (or null).
        let (context, params) = unsafe { (gen_context(genctx)?, Params::new(params)) };
        apply_gen_params(context, &params)
    })
}

static GEN_SETTABLE: params::ParamList = crate::param_list![("seed", params::OCTETS)];

/// A new ML-KEM key: fresh, or from a seed; the core runs its pairwise consistency test.
fn kem_key(module: &Module, kem: Algorithm, seed: Option<&[u8]>) -> Result<KemPrivateKey, Failure> {
    Ok(match seed {
        Some(seed) => module.known_answer_kem_keygen(kem, seed)?.into_value(),
        None => module.generate_kem_key(kem)?.into_value(),
    })
}

/// `gen`: a key pair (both halves for a hybrid), or, when only parameters are asked for (as
/// libssl's server makes the key to set the client's share on), an empty key.
unsafe extern "C" fn generate(
    genctx: *mut c_void,
    _callback: *mut c_void,
    _argument: *mut c_void,
) -> *mut c_void {
    construct(|| {
        // SAFETY: a live generation context.
        let context = unsafe { gen_context(genctx) }?;
        let variant = context.variant;
        let mut key = KemKey::new(context.module.clone(), variant);
        if !selects(context.selection, KEYPAIR) {
            return Ok(key);
        }
        let seed = context.seed.take();
        let kem = kem_key(
            &context.module,
            variant.kem,
            seed.as_deref().map(|s| &s[..]),
        )?;
        let kem_public = encapsulation_key_of(&kem)?;
        let classical_public = match variant.classical {
            Some((classical, _)) => {
                let private = context
                    .module
                    .generate_agreement_key(classical)?
                    .into_value();
                let public = private.public_key()?;
                key.classical_private = Some(Arc::new(private));
                public
            }
            None => Vec::new(),
        };
        key.public = Some(variant.join(&kem_public, &classical_public).to_vec());
        key.kem_private = Some(Arc::new(kem));
        Ok(key)
    })
}

/// `validate`: what is asked for is held; a key pair's halves agree (the encapsulation key is
/// the decapsulation key's, and each classical public key its private key's).
unsafe extern "C" fn validate(keydata: *const c_void, selection: c_int, _check: c_int) -> c_int {
    error::entry(|| {
        // SAFETY: a key of this key manager.
        let key = unsafe { key(keydata as *mut c_void) }?;
        if !key.holds(selection) {
            return Err(fail(
                Reason::InvalidInput,
                format!("the {} key lacks what is asked for", key.variant.label()),
            ));
        }
        if selection & KEYPAIR == KEYPAIR {
            let (Some(public), Some(kem)) = (&key.public, &key.kem_private) else {
                return Err(fail(Reason::InvalidInput, "no key pair"));
            };
            let classical_public = match &key.classical_private {
                Some(classical) => classical.public_key()?,
                None => Vec::new(),
            };
            if key
                .variant
                .join(&encapsulation_key_of(kem)?, &classical_public)[..]
                != public[..]
            {
                return Err(fail(
                    Reason::InvalidInput,
                    "the public key is not the private key's",
                ));
            }
        }
        Ok(())
    })
}

/// Equal byte strings, in time that depends only on their lengths.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

static TYPES: params::ParamList = crate::param_list![
    ("seed", params::OCTETS),
    ("priv", params::OCTETS),
    ("pub", params::OCTETS),
];

static GETTABLE: params::ParamList = crate::param_list![
    ("bits", params::INT),
    ("security-bits", params::INT),
    ("max-size", params::INT),
    ("priv", params::OCTETS),
    ("pub", params::OCTETS),
    ("encoded-pub-key", params::OCTETS),
];

impl keydata_calls::KeyParamLists for KemKey {
    const GETTABLE: &'static params::ParamList = &GETTABLE;
    const KEY_TYPES: &'static params::ParamList = &TYPES;
    const GEN_SETTABLE: &'static params::ParamList = &GEN_SETTABLE;
}

/// The KEM of each key manager has the key manager's name.
unsafe extern "C" fn query_operation_name<const K: usize>(
    _operation: c_int,
) -> *const std::os::raw::c_char {
    static NAMES: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    error::guard(std::ptr::null(), || {
        let names = NAMES.get_or_init(|| {
            (0..VARIANT_COUNT)
                .filter_map(variant)
                .map(|variant| std::ffi::CString::new(variant.label()).unwrap_or_default())
                .collect()
        });
        names.get(K).map_or(std::ptr::null(), |name| name.as_ptr())
    })
}

impl KeyData for KemKey {
    unsafe fn from_keydata<'a>(keydata: *const c_void) -> Result<&'a mut KemKey, Failure> {
        // SAFETY: the caller's contract.
        unsafe { key(keydata as *mut c_void) }
    }

    /// As ml_kem_has: a private key, or a public key.
    fn holds(&self, selection: c_int) -> bool {
        match selection & KEYPAIR {
            0 => true,
            ffi::SELECT_PUBLIC_KEY => self.public.is_some(),
            _ => self.has_private(),
        }
    }

    /// The same variant, and (when key material is asked about) the same public key.
    fn same_as(&self, other: &KemKey, selection: c_int) -> bool {
        self.variant == other.variant
            && (!selects(selection, KEYPAIR) || self.public == other.public)
    }

    fn copy(&self, selection: c_int) -> Result<KemKey, Failure> {
        let mut copy = KemKey::new(self.module.clone(), self.variant);
        if selects(selection, KEYPAIR) {
            copy.public = self.public.clone();
        }
        if selects(selection, ffi::SELECT_PRIVATE_KEY) {
            copy.kem_private = self.kem_private.clone();
            copy.classical_private = self.classical_private.clone();
        }
        Ok(copy)
    }

    /// A `seed` (ML-KEM alone) or `priv` (with `pub`, checked against it) when the private key
    /// is selected, otherwise `pub`. A key that holds a key already is not changed.
    fn import(&mut self, selection: c_int, params: &Params) -> Result<(), Failure> {
        let key = self;
        let variant = key.variant;
        if !selects(selection, KEYPAIR) {
            return Err(fail(
                Reason::InvalidInput,
                "nothing to import: select the public or private key",
            ));
        }
        if key.public.is_some() {
            return Err(fail(
                Reason::InvalidInput,
                format!("{} keys cannot be changed once set", variant.label()),
            ));
        }
        let public = params
            .locate("pub")
            .map(|param| param.get_octets().map(<[u8]>::to_vec))
            .transpose()?
            .filter(|public| !public.is_empty());
        let public = public
            .map(|public| variant.checked_public(&public))
            .transpose()?;
        let private_selected = selects(selection, ffi::SELECT_PRIVATE_KEY);
        let seed = params
            .locate("seed")
            .filter(|_| private_selected)
            .map(|param| param.get_octets().map(|s| Zeroizing::new(s.to_vec())))
            .transpose()?
            .filter(|seed| !seed.is_empty());
        let private = params
            .locate("priv")
            .filter(|_| private_selected)
            .map(|param| param.get_octets().map(|s| Zeroizing::new(s.to_vec())))
            .transpose()?
            .filter(|private| !private.is_empty());
        if let Some(private) = &private
            && private.len() != variant.private_len()
        {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "a {} private key is {} bytes, not {}",
                    variant.label(),
                    variant.private_len(),
                    private.len()
                ),
            ));
        }
        if seed.is_some() && variant.classical.is_some() {
            return Err(fail(
                Reason::BadParameter,
                format!(
                    "\"seed\": a {} key is imported as \"priv\"",
                    variant.label()
                ),
            ));
        }
        let (kem_private, classical_private) = match (seed, private) {
            (None, None) => (None, None),
            (Some(seed), private) => {
                let kem = kem_key(&key.module, variant.kem, Some(&seed))?;
                if let Some(private) = private
                    && !same_secret(&kem.to_bytes()?, &private)
                {
                    return Err(fail(
                        Reason::InvalidInput,
                        "the private key given is not the seed's",
                    ));
                }
                (Some(kem), None)
            }
            (None, Some(private)) => {
                let classical_len = variant.classical_sizes().1;
                let (kem_bytes, classical_bytes) = variant.split(&private, classical_len);
                let kem = key
                    .module
                    .kem_key_from_bytes(variant.kem, kem_bytes)?
                    .into_value();
                let classical = match variant.classical {
                    Some((classical, _)) => Some(
                        key.module
                            .agreement_key_from_private_bytes(classical, classical_bytes)?
                            .into_value(),
                    ),
                    None => None,
                };
                (Some(kem), classical)
            }
        };
        match kem_private {
            Some(kem) => {
                let classical_public = match &classical_private {
                    Some(classical) => classical.public_key()?,
                    None => Vec::new(),
                };
                let kem_public = encapsulation_key_of(&kem)?;
                imported_pair_test(&key.module, &kem, &kem_public)?;
                let derived = variant.join(&kem_public, &classical_public).to_vec();
                if public.is_some_and(|public| public != derived) {
                    return Err(fail(
                        Reason::InvalidInput,
                        format!(
                            "the {} public key given is not the private key's",
                            variant.label()
                        ),
                    ));
                }
                key.public = Some(derived);
                key.kem_private = Some(Arc::new(kem));
                key.classical_private = classical_private.map(Arc::new);
            }
            None => {
                let public = public.ok_or_else(|| {
                    fail(
                        Reason::InvalidInput,
                        "no key to import: none of \"seed\", \"priv\", \"pub\" given",
                    )
                })?;
                key.public = Some(public);
            }
        }
        Ok(())
    }

    /// `pub`, and `priv` when selected and held (no `seed`: the core keeps none).
    fn export(&self, selection: c_int, importer: Importer) -> Result<(), Failure> {
        if !selects(selection, KEYPAIR) {
            return Err(fail(Reason::InvalidInput, "nothing to export"));
        }
        let private = if selects(selection, ffi::SELECT_PRIVATE_KEY) {
            self.private_bytes()?
        } else {
            None
        };
        let mut exported = Exported::new();
        if let Some(public) = &self.public {
            exported.octets(c"pub", public);
        }
        if let Some(private) = &private {
            exported.octets(c"priv", private);
        }
        if exported.is_empty() {
            return Err(fail(Reason::InvalidInput, "the key holds no key to export"));
        }
        exported.hand_to_importer(importer)
    }

    /// `bits`, `security-bits`, `max-size` (the ciphertext's length, as ml_kem_kmgmt.c and
    /// mlx_kmgmt.c answer), the public key as `encoded-pub-key` and `pub`, and `priv`; what the
    /// key does not hold is not answered.
    fn answer(&self, params: &Params) -> Result<(), Failure> {
        let variant = self.variant;
        for mut param in params.iter() {
            match param.key {
                "bits" => param.set_usize(variant.bits())?,
                "security-bits" => param.set_usize(variant.security_bits())?,
                "max-size" => param.set_usize(variant.ciphertext_len())?,
                "encoded-pub-key" | "pub" => answer_if_held(&mut param, self.public.as_deref())?,
                "priv" => {
                    if let Some(private) = self.private_bytes()? {
                        param.set_octets(&private)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// `encoded-pub-key`: the peer's share, set on an empty key (libssl's server side).
    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        if let Some(param) = params.locate("encoded-pub-key") {
            let encoded = param.get_octets()?;
            let public = self.variant.checked_public(encoded)?;
            if self.public.is_some() {
                return Err(fail(
                    Reason::InvalidInput,
                    format!("{} keys cannot be changed once set", self.variant.label()),
                ));
            }
            self.public = Some(public);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// draft-ietf-tls-ecdhe-mlkem §4: X25519MLKEM768 is 1184 + 32 bytes with ML-KEM first;
    /// SecP256r1MLKEM768 is 65 + 1184 bytes with the point first; ciphertexts 1088 + 32 and
    /// 65 + 1088; secrets 32 + 32. SecP384r1MLKEM1024: 97 + 1568, ciphertext 97 + 1568,
    /// secret 48 + 32.
    #[test]
    fn hybrid_sizes_and_order_follow_the_draft() {
        let x = variant(2).expect("X25519MLKEM768");
        assert_eq!(x.label(), "X25519MLKEM768");
        assert_eq!(
            (x.public_len(), x.ciphertext_len(), x.secret_len()),
            (1216, 1120, 64)
        );
        let joined = x.join(b"kem", b"x");
        assert_eq!(&joined[..], b"kemx");
        assert_eq!(x.split(&joined, 1), (&b"kem"[..], &b"x"[..]));
        let p = variant(3).expect("SecP256r1MLKEM768");
        assert_eq!(p.label(), "SecP256r1MLKEM768");
        assert_eq!(
            (p.public_len(), p.ciphertext_len(), p.secret_len()),
            (1249, 1153, 64)
        );
        let joined = p.join(b"kem", b"ec");
        assert_eq!(&joined[..], b"eckem");
        assert_eq!(p.split(&joined, 2), (&b"kem"[..], &b"ec"[..]));
        let q = variant(4).expect("SecP384r1MLKEM1024");
        assert_eq!(
            (q.public_len(), q.ciphertext_len(), q.secret_len()),
            (1665, 1665, 80)
        );
        let pure = variant(0).expect("ML-KEM-768");
        assert_eq!(
            (pure.label(), pure.public_len(), pure.private_len()),
            ("ML-KEM-768", 1184, 2400)
        );
        assert_eq!(variant(1).map(|v| v.private_len()), Some(3168));
        assert_eq!(variant(VARIANT_COUNT), None);
    }
}
