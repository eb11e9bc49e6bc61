//! The `OSSL_OP_KEYMGMT` entry points every key manager shares (keymgmt.rs: EC, X25519,
//! Ed25519, RSA; mldsa.rs; mlkem_keymgmt.rs; sm2.rs). OpenSSL asks each key the same things —
//! does it hold a part (`has`, `validate`), is it another key's equal (`match`), copy it (`dup`),
//! fill it (`import`, `set_params`), read it (`export`, `get_params`) — so the `extern "C"`
//! shells are written once here, generic over a module's key ([`KeyData`]); a module says only
//! what its key answers. [`Exported`] is the one way a key's parts reach OpenSSL's importer.

use std::ffi::CStr;
use std::marker::PhantomData;
use std::os::raw::{c_int, c_void};

use regula::Module;
use zeroize::Zeroizing;

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::params::{ParamList, ParamRef, ParamResult, Params};
use crate::provider_context::ProviderContext;

/// The private and public key together (`OSSL_KEYMGMT_SELECT_KEYPAIR`).
pub const KEYPAIR: c_int = ffi::SELECT_PRIVATE_KEY | ffi::SELECT_PUBLIC_KEY;

/// Whether `selection` names any of `bits`.
pub fn selects(selection: c_int, bits: c_int) -> bool {
    selection & bits != 0
}

/// Whether a key holds what `selection` names of its private and public halves (`private`,
/// `public`: whether it holds each).
pub fn holds_halves(selection: c_int, private: bool, public: bool) -> bool {
    (!selects(selection, ffi::SELECT_PRIVATE_KEY) || private)
        && (!selects(selection, ffi::SELECT_PUBLIC_KEY) || public)
}

/// The provider context's module, or why there is none (no context, or a module that is not
/// operational).
///
/// # Safety
/// `provctx` is the provider context OpenSSL was given.
pub unsafe fn module_of(provctx: *mut c_void) -> Result<Module, Failure> {
    // SAFETY: the caller's contract.
    let provider = unsafe { ProviderContext::from_ptr(provctx) }
        .ok_or_else(|| fail(Reason::OutOfOrder, "no provider context"))?;
    provider.module.ensure_operational()?;
    Ok(provider.module.clone())
}

/// The key behind `keydata` for a key manager whose keys are `repr(C)` and start with the `u64`
/// `tag`, so that another key manager's key is refused rather than misread (`what`: "an SM2
/// key").
///
/// # Safety
/// `keydata` is null or a pointer a key manager of this provider made, not yet freed; every key
/// of this provider is a boxed value at least 8 bytes long, and only a `T` starts with `tag`.
pub unsafe fn tagged_key<'a, T>(
    keydata: *const c_void,
    tag: u64,
    what: &str,
) -> Result<&'a mut T, Failure> {
    if keydata.is_null() {
        return Err(fail(Reason::OutOfOrder, "no key"));
    }
    // SAFETY: at least 8 readable bytes (the caller's contract), read unaligned.
    let found = unsafe { std::ptr::read_unaligned(keydata as *const u64) };
    if found != tag {
        return Err(fail(
            Reason::InvalidInput,
            format!("not {what} of the Regula provider"),
        ));
    }
    // SAFETY: the caller's contract, and the tag says it is a `T`.
    unsafe { crate::context::borrow(keydata as *mut c_void, "key") }
}

/// A private scalar of any length as the field-sized big-endian string the core takes; extra
/// leading bytes must be zero (checked without a branch on their values). `what` names the key
/// in the refusal ("the SM2 private key").
pub fn fixed_scalar(value: &[u8], field: usize, what: &str) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let mut out = Zeroizing::new(vec![0u8; field]);
    let (excess, low) = if value.len() > field {
        value.split_at(value.len() - field)
    } else {
        (&[][..], value)
    };
    let high = excess.iter().fold(0u8, |acc, &b| acc | b);
    out[field - low.len()..].copy_from_slice(low);
    if high != 0 {
        return Err(fail(
            Reason::InvalidInput,
            format!("{what} is larger than the group's order"),
        ));
    }
    Ok(out)
}

/// Refuses what the loaded policy does not serve (`served` false), before any key is made:
/// "`what` is not served under the Regula policy …".
pub fn refuse_unserved(
    module: &Module,
    served: bool,
    what: impl std::fmt::Display,
) -> Result<(), Failure> {
    if served {
        return Ok(());
    }
    Err(fail(
        Reason::NotApproved,
        format!(
            "{what} is not served under the Regula policy {}",
            module.policy().name()
        ),
    ))
}

/// Answers a key's value that it may not hold yet (`pub`, `priv`, `seed`): what the key does
/// not hold is left unanswered, as OpenSSL's key managers do.
pub fn answer_if_held(param: &mut ParamRef<'_>, value: Option<&[u8]>) -> ParamResult<()> {
    match value {
        Some(value) => param.set_octets(value),
        None => Ok(()),
    }
}

/// A big-endian unsigned integer (an EC scalar, an RSA integer) in the machine's byte order, as
/// OpenSSL writes a `BIGNUM` into a parameter; reversed in place, so no unwiped copy is left.
pub fn native_order(mut big_endian: Zeroizing<Vec<u8>>) -> Zeroizing<Vec<u8>> {
    if cfg!(target_endian = "little") {
        big_endian.reverse();
    }
    big_endian
}

/// The parameters an `export` hands to OpenSSL's importer. Each entry points at a value the
/// builder borrows, so the values outlive the array and the importer's call.
pub struct Exported<'a> {
    entries: Vec<Param>,
    values: PhantomData<&'a [u8]>,
}

impl<'a> Exported<'a> {
    pub fn new() -> Exported<'a> {
        Exported {
            entries: Vec::new(),
            values: PhantomData,
        }
    }

    fn push(&mut self, key: &'static CStr, data_type: u32, value: &'a [u8]) {
        self.entries.push(Param {
            key: key.as_ptr(),
            data_type,
            data: value.as_ptr() as *mut c_void,
            data_size: value.len(),
            return_size: ffi::PARAM_UNMODIFIED,
        });
    }

    /// An octet string (a public key, an X25519 or Ed25519 private key, an ML-DSA seed).
    pub fn octets(&mut self, key: &'static CStr, value: &'a [u8]) {
        self.push(key, ffi::PARAM_OCTET_STRING, value);
    }

    /// An unsigned integer already in the machine's byte order ([`native_order`]).
    pub fn unsigned(&mut self, key: &'static CStr, native: &'a [u8]) {
        self.push(key, ffi::PARAM_UNSIGNED_INTEGER, native);
    }

    /// A UTF-8 string (a group name), its NUL not counted.
    pub fn utf8(&mut self, key: &'static CStr, value: &'a CStr) {
        self.push(key, ffi::PARAM_UTF8_STRING, value.to_bytes());
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Terminates the array and calls OpenSSL's export callback with it; a refusal (0) is the
    /// importer's, reported as such.
    pub fn hand_to_importer(mut self, importer: Importer) -> Result<(), Failure> {
        self.entries.push(Param::END);
        // SAFETY: OpenSSL's callback and argument, with a terminated array whose values are
        // borrowed for 'a and so outlive the call.
        if unsafe { (importer.callback)(self.entries.as_ptr(), importer.argument) } == 0 {
            return Err(fail(Reason::InvalidInput, "the key's importer refused it"));
        }
        Ok(())
    }
}

impl Default for Exported<'_> {
    fn default() -> Self {
        Exported::new()
    }
}

/// OpenSSL's export callback and its argument, as `export` was given them.
#[derive(Clone, Copy)]
pub struct Importer {
    callback: ffi::Callback,
    argument: *mut c_void,
}

/// A key manager's key, as the shared calls drive it. Every method runs inside the entry
/// point's catch ([`error::entry`] or [`error::guard`]), so none panics across the C boundary.
pub trait KeyData: Sized + 'static {
    /// The key behind OpenSSL's `keydata`, refused when it is null (or, where the module can
    /// tell, another key manager's key).
    ///
    /// # Safety
    /// `keydata` is null or a pointer a key manager of this provider made, not yet freed.
    unsafe fn from_keydata<'a>(keydata: *const c_void) -> Result<&'a mut Self, Failure>;

    /// Whether the key holds what `selection` names (`has`, and `validate` unless the module
    /// checks more).
    fn holds(&self, selection: c_int) -> bool;

    /// Whether `other` is the same key in what `selection` names (`match`).
    fn same_as(&self, other: &Self, selection: c_int) -> bool;

    /// A copy of what `selection` names of the key (`dup`).
    fn copy(&self, selection: c_int) -> Result<Self, Failure>;

    /// Fills the key from OpenSSL's parameters (`import`).
    fn import(&mut self, selection: c_int, params: &Params) -> Result<(), Failure>;

    /// Hands what `selection` names of the key to `importer` (`export`), through [`Exported`].
    fn export(&self, selection: c_int, importer: Importer) -> Result<(), Failure>;

    /// `get_params`.
    fn answer(&self, params: &Params) -> Result<(), Failure>;

    /// `set_params`.
    fn apply(&mut self, params: &Params) -> Result<(), Failure>;
}

/// The lists a key manager describes its parameters with, when they are the same for every key
/// of it (mldsa.rs, mlkem_keymgmt.rs, sm2.rs): the dispatch table takes [`gettable_params`],
/// [`key_types`] (import and export) and [`gen_settable_params`] of the key type.
pub trait KeyParamLists {
    /// What `get_params` answers.
    const GETTABLE: &'static ParamList;
    /// What `import` takes and `export` gives.
    const KEY_TYPES: &'static ParamList;
    /// What key generation takes.
    const GEN_SETTABLE: &'static ParamList;
}

pub extern "C" fn gettable_params<T: KeyParamLists>(_provctx: *mut c_void) -> *const Param {
    T::GETTABLE.as_ptr()
}

pub extern "C" fn key_types<T: KeyParamLists>(_selection: c_int) -> *const Param {
    T::KEY_TYPES.as_ptr()
}

pub extern "C" fn gen_settable_params<T: KeyParamLists>(
    _genctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    T::GEN_SETTABLE.as_ptr()
}

static SETTABLE: ParamList = crate::param_list![("encoded-pub-key", crate::params::OCTETS)];

/// `settable_params` of every key manager: a public key (the peer's share) set as
/// `encoded-pub-key` (`EVP_PKEY_set1_encoded_public_key`).
pub extern "C" fn settable_params(_provctx: *mut c_void) -> *const Param {
    SETTABLE.as_ptr()
}

/// The entries of a key manager's dispatch table that are the same for every key manager:
/// `free`, `has`, `match`, `dup`, `import`, `export`, `get_params`, `set_params` and
/// `settable_params` (`validate` is the module's choice: [`validate`] or its own checks).
pub const fn key_calls<T: KeyData>() -> [Dispatch; 9] {
    [
        crate::dispatch_fn!(ffi::KEYMGMT_FREE, crate::context::free::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_HAS, has::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_MATCH, matches::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_DUP, dup::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_IMPORT, import::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_EXPORT, export::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_GET_PARAMS, get_params::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_SET_PARAMS, set_params::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_SETTABLE_PARAMS, settable_params),
    ]
}

/// The list entries of a key manager whose lists are fixed ([`KeyParamLists`]).
pub const fn list_calls<T: KeyParamLists>() -> [Dispatch; 4] {
    [
        crate::dispatch_fn!(ffi::KEYMGMT_GETTABLE_PARAMS, gettable_params::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_IMPORT_TYPES, key_types::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_EXPORT_TYPES, key_types::<T>),
        crate::dispatch_fn!(ffi::KEYMGMT_GEN_SETTABLE_PARAMS, gen_settable_params::<T>),
    ]
}

/// `has`: 1 when the key holds what `selection` names; 0 for no key, with nothing raised.
///
/// # Safety
/// `keydata` is null or a key of `T`'s key manager.
pub unsafe extern "C" fn has<T: KeyData>(keydata: *const c_void, selection: c_int) -> c_int {
    error::guard(0, || {
        // SAFETY: the caller's contract.
        match unsafe { T::from_keydata(keydata) } {
            Ok(key) => c_int::from(key.holds(selection)),
            Err(_) => 0,
        }
    })
}

/// `validate`, for a key manager whose keys were checked as they were made or taken (by the
/// core, or for a peer's public key when it is used): what remains is that the key holds what
/// is asked for.
///
/// # Safety
/// As for [`has`].
pub unsafe extern "C" fn validate<T: KeyData>(
    keydata: *const c_void,
    selection: c_int,
    _check: c_int,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { has::<T>(keydata, selection) }
}

/// `match`: 0 when either key is missing or of another key manager.
///
/// # Safety
/// `a` and `b` are null or keys of `T`'s key manager.
pub unsafe extern "C" fn matches<T: KeyData>(
    a: *const c_void,
    b: *const c_void,
    selection: c_int,
) -> c_int {
    error::guard(0, || {
        // A key compared with itself is borrowed once (two `&mut` to one key would alias).
        // SAFETY: the caller's contract.
        let Ok(first) = (unsafe { T::from_keydata(a) }) else {
            return 0;
        };
        if std::ptr::eq(a, b) {
            return c_int::from(first.same_as(first, selection));
        }
        // SAFETY: the caller's contract; `b` is another key than `a`.
        let Ok(second) = (unsafe { T::from_keydata(b) }) else {
            return 0;
        };
        c_int::from(first.same_as(second, selection))
    })
}

/// `dup`.
///
/// # Safety
/// As for [`has`].
pub unsafe extern "C" fn dup<T: KeyData>(keydata: *const c_void, selection: c_int) -> *mut c_void {
    crate::context::construct(|| {
        // SAFETY: the caller's contract.
        unsafe { T::from_keydata(keydata) }?.copy(selection)
    })
}

/// `import`.
///
/// # Safety
/// `keydata` as for [`has`]; `params` terminated or null.
pub unsafe extern "C" fn import<T: KeyData>(
    keydata: *mut c_void,
    selection: c_int,
    params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: the caller's contract.
        let (key, params) = unsafe { (T::from_keydata(keydata)?, Params::new(params)) };
        key.import(selection, &params)
    })
}

/// `export`: refused without a callback.
///
/// # Safety
/// `keydata` as for [`has`]; `callback` OpenSSL's, to be called with `argument`.
pub unsafe extern "C" fn export<T: KeyData>(
    keydata: *mut c_void,
    selection: c_int,
    callback: Option<ffi::Callback>,
    argument: *mut c_void,
) -> c_int {
    error::entry(|| {
        // SAFETY: the caller's contract.
        let key = unsafe { T::from_keydata(keydata)? };
        let callback = callback.ok_or_else(|| fail(Reason::OutOfOrder, "no export callback"))?;
        key.export(selection, Importer { callback, argument })
    })
}

/// `get_params`.
///
/// # Safety
/// `keydata` as for [`has`]; `params` a terminated array.
pub unsafe extern "C" fn get_params<T: KeyData>(keydata: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: the caller's contract.
        let (key, params) = unsafe { (T::from_keydata(keydata)?, Params::new(params)) };
        key.answer(&params)
    })
}

/// `set_params`.
///
/// # Safety
/// `keydata` as for [`has`]; `params` terminated or null.
pub unsafe extern "C" fn set_params<T: KeyData>(
    keydata: *mut c_void,
    params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: the caller's contract.
        let (key, params) = unsafe { (T::from_keydata(keydata)?, Params::new(params)) };
        key.apply(&params)
    })
}
