//! libregula-pkcs11: a PKCS#11 3.0 software token over the Regula module.
//!
//! One slot per `[[token]]` of the configuration ([`config`]), each with its own policy: the
//! mechanisms a slot lists are the registry rows its policy serves, and every operation runs
//! through the module's public services under that policy. After each completed operation
//! `C_GetSessionValidationFlags` (PKCS#11 3.2, in the 3.2 interface and exported) reports
//! [`state::VALIDATION_FLAG_POLICY`] exactly when the module's service indicator said approved.
//!
//! Objects are secret keys (AES, SM4, generic secrets for HMAC) and EC key pairs on P-256 and
//! P-384 (ECDSA with the registry rows' mechanisms) and curveSM2 (the vendor SM2 mechanisms,
//! [`sm2`]): session objects in memory,
//! token objects in the token's SQLite database ([`store`]) with their values sealed under a
//! token key that the user and SO PINs wrap ([`vault`]). The entry points it does not implement
//! yet answer `CKR_FUNCTION_NOT_SUPPORTED`. Every entry point is guarded: a panic becomes
//! `CKR_GENERAL_ERROR`, a NULL pointer or a bad length the standard's code.

#![allow(non_snake_case)]
// The exported functions are the C ABI: their safety contract is the PKCS#11 standard's.
#![allow(clippy::missing_safety_doc)]

mod ccm;
pub mod config;
mod ec;
mod functions;
mod kdf;
pub mod mech;
mod mldsa;
mod mlkem;
mod oaep;
mod object;
mod ops;
mod rsa;
mod sm2;
mod sm2_exchange;
mod spki;
mod state;
mod store;
mod validation;
mod vault;

use std::panic::{AssertUnwindSafe, catch_unwind};

pub use cryptoki_sys::*;
use regula::Direction;
use zeroize::Zeroizing;

pub use mech::CKK_REGULA_SM4;
pub use mlkem::{C_DecapsulateKey, C_EncapsulateKey};
use object::{Object, Origin, Read, TemplateAttribute, UNAVAILABLE};
use ops::{CryptOp, DigestOp, MacOp, Params, SignOp};
pub use sm2_exchange::CK_REGULA_SM2_KEY_EXCHANGE_PARAMS;
pub use state::VALIDATION_FLAG_POLICY;
use state::{Library, Session};

type Rv = Result<(), CK_RV>;

/// Runs an entry point's body: its error or `CKR_OK`, and `CKR_GENERAL_ERROR` for a panic.
fn guard(body: impl FnOnce() -> Rv) -> CK_RV {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CKR_OK,
        Ok(Err(rv)) => rv,
        Err(_) => CKR_GENERAL_ERROR,
    }
}

/// What an entry point the token does not implement answers.
fn not_implemented(rv: CK_RV) -> CK_RV {
    guard(|| state::with(|_| Err(rv)))
}

/// The caller's `len` bytes at `data` (NULL only with length 0).
unsafe fn input<'a>(data: *const u8, len: CK_ULONG) -> Result<&'a [u8], CK_RV> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(CKR_ARGUMENTS_BAD);
    }
    let len = usize::try_from(len).map_err(|_| CKR_ARGUMENTS_BAD)?;
    // SAFETY: the caller gives `len` readable bytes at `data` (PKCS#11's contract), non-null.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// A non-NULL pointer to write one value through.
unsafe fn out<'a, T>(pointer: *mut T) -> Result<&'a mut T, CK_RV> {
    // SAFETY: non-null and, by the standard's contract, valid for writing a `T`.
    unsafe { pointer.as_mut() }.ok_or(CKR_ARGUMENTS_BAD)
}

/// The output-length protocol, for bytes and for lists (slots, mechanisms, interfaces): NULL
/// `output` asks for the length; a buffer too small gives `CKR_BUFFER_TOO_SMALL` with the
/// length needed. `Ok(true)`: the data was written.
unsafe fn deliver<T: Copy>(
    output: *mut T,
    output_len: *mut CK_ULONG,
    data: &[T],
) -> Result<bool, CK_RV> {
    // SAFETY: as for `out`.
    let len = unsafe { out(output_len) }?;
    let capacity = *len;
    *len = data.len() as CK_ULONG;
    if output.is_null() {
        return Ok(false);
    }
    if (capacity as u128) < data.len() as u128 {
        return Err(CKR_BUFFER_TOO_SMALL);
    }
    // SAFETY: the caller's buffer holds `capacity` >= `data.len()` entries.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), output, data.len()) };
    Ok(true)
}

/// The length-only half of [`deliver`]: `Ok(true)` when `output` can take `len` bytes, else
/// the length is reported (and `CKR_BUFFER_TOO_SMALL` for a short buffer).
unsafe fn room(output: *mut u8, output_len: *mut CK_ULONG, len: usize) -> Result<bool, CK_RV> {
    // SAFETY: as for `out`.
    let slot = unsafe { out(output_len) }?;
    if output.is_null() {
        *slot = len as CK_ULONG;
        return Ok(false);
    }
    if (*slot as u128) < len as u128 {
        *slot = len as CK_ULONG;
        return Err(CKR_BUFFER_TOO_SMALL);
    }
    Ok(true)
}

/// Copies a template out of the caller's memory.
unsafe fn template(
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
) -> Result<Vec<TemplateAttribute>, CK_RV> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if attributes.is_null() {
        return Err(CKR_ARGUMENTS_BAD);
    }
    let count = usize::try_from(count).map_err(|_| CKR_ARGUMENTS_BAD)?;
    // SAFETY: the caller gives `count` CK_ATTRIBUTEs at a non-null `attributes`.
    let attributes = unsafe { std::slice::from_raw_parts(attributes, count) };
    attributes
        .iter()
        .map(|attribute| {
            // SAFETY: each attribute's value is `ulValueLen` readable bytes.
            let value = unsafe { input(attribute.pValue.cast::<u8>(), attribute.ulValueLen) }
                .map_err(|_| CKR_ATTRIBUTE_VALUE_INVALID)?;
            Ok(TemplateAttribute {
                kind: attribute.type_,
                value: Zeroizing::new(value.to_vec()),
            })
        })
        .collect()
}

/// Fills a fixed-width, blank-padded PKCS#11 text field.
fn padded<const N: usize>(text: &str) -> [u8; N] {
    let mut field = [b' '; N];
    let mut len = text.len().min(N);
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    field[..len].copy_from_slice(&text.as_bytes()[..len]);
    field
}

const MANUFACTURER: &str = "Regula";
const PIN_MIN: usize = 4;
const PIN_MAX: usize = 255;

// ---- General ------------------------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_Initialize(init_args: *mut std::os::raw::c_void) -> CK_RV {
    guard(|| {
        // SAFETY: a NULL or a CK_C_INITIALIZE_ARGS, as the standard says.
        if let Some(args) = unsafe { init_args.cast::<CK_C_INITIALIZE_ARGS>().as_ref() } {
            if !args.pReserved.is_null() {
                return Err(CKR_ARGUMENTS_BAD);
            }
            let given = [
                args.CreateMutex.is_some(),
                args.DestroyMutex.is_some(),
                args.LockMutex.is_some(),
                args.UnlockMutex.is_some(),
            ];
            if given.iter().any(|&g| g) && !given.iter().all(|&g| g) {
                return Err(CKR_ARGUMENTS_BAD);
            }
            // Only the application's own mutexes without OS locking cannot be served: this
            // library locks with the operating system's.
            if given[0] && args.flags & CKF_OS_LOCKING_OK == 0 {
                return Err(CKR_CANT_LOCK);
            }
        }
        state::initialize()
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_Finalize(reserved: *mut std::os::raw::c_void) -> CK_RV {
    guard(|| {
        if !reserved.is_null() {
            return Err(CKR_ARGUMENTS_BAD);
        }
        state::finalize()
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetInfo(info: *mut CK_INFO) -> CK_RV {
    guard(|| {
        state::with(|_| {
            // SAFETY: the caller's CK_INFO.
            let info = unsafe { out(info) }?;
            *info = CK_INFO {
                cryptokiVersion: CK_VERSION { major: 3, minor: 0 },
                manufacturerID: padded(MANUFACTURER),
                flags: 0,
                libraryDescription: padded("Regula PKCS#11 token"),
                libraryVersion: CK_VERSION { major: 0, minor: 1 },
            };
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetFunctionList(list: *mut *mut CK_FUNCTION_LIST) -> CK_RV {
    guard(|| {
        // SAFETY: the caller's pointer slot.
        let list = unsafe { out(list) }?;
        *list = (&raw const functions::FUNCTION_LIST_2_40).cast_mut();
        Ok(())
    })
}

/// The interface name every list carries.
static INTERFACE_NAME: &[u8] = b"PKCS 11\0";

struct Interface(CK_INTERFACE);
// SAFETY: the pointers are to immutable statics.
unsafe impl Sync for Interface {}

/// The interfaces `C_GetInterface` hands out, in writable memory: some proxies write into the
/// `CK_INTERFACE` a module returns (OpenSC's pkcs11-spy before 0.26 puts its own function list
/// there), which would crash on a read-only static. The entries are never read back.
struct HandedOut([std::cell::UnsafeCell<CK_INTERFACE>; 2]);
// SAFETY: Regula only takes pointers to the entries; only the caller writes through them.
unsafe impl Sync for HandedOut {}

static HANDED_OUT: HandedOut = HandedOut([
    std::cell::UnsafeCell::new(INTERFACES[0].0),
    std::cell::UnsafeCell::new(INTERFACES[1].0),
]);

static INTERFACES: [Interface; 2] = [
    Interface(CK_INTERFACE {
        pInterfaceName: INTERFACE_NAME.as_ptr().cast_mut(),
        pFunctionList: (&raw const functions::FUNCTION_LIST_3_0).cast_mut().cast(),
        flags: 0,
    }),
    Interface(CK_INTERFACE {
        pInterfaceName: INTERFACE_NAME.as_ptr().cast_mut(),
        pFunctionList: (&raw const functions::FUNCTION_LIST_3_2).cast_mut().cast(),
        flags: 0,
    }),
];

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetInterfaceList(
    list: *mut CK_INTERFACE,
    count: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        let interfaces: Vec<CK_INTERFACE> =
            INTERFACES.iter().map(|interface| interface.0).collect();
        // SAFETY: the caller's array and count, as the standard defines them.
        unsafe { deliver(list, count, &interfaces) }.map(|_| ())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetInterface(
    name: *mut CK_UTF8CHAR,
    version: *mut CK_VERSION,
    interface: *mut *mut CK_INTERFACE,
    flags: CK_FLAGS,
) -> CK_RV {
    guard(|| {
        // SAFETY: the caller's pointer slot.
        let interface = unsafe { out(interface) }?;
        if !name.is_null() {
            // SAFETY: a NUL-terminated string, as the standard says.
            let name = unsafe { std::ffi::CStr::from_ptr(name.cast()) };
            if name.to_bytes_with_nul() != INTERFACE_NAME {
                return Err(CKR_ARGUMENTS_BAD);
            }
        }
        // SAFETY: NULL or the caller's version.
        let wanted = unsafe { version.as_ref() };
        let found = INTERFACES.iter().position(|candidate| {
            // SAFETY: each list starts with its CK_VERSION.
            let list_version = unsafe { *candidate.0.pFunctionList.cast::<CK_VERSION>() };
            wanted.is_none_or(|wanted| {
                (wanted.major, wanted.minor) == (list_version.major, list_version.minor)
            }) && candidate.0.flags & flags == flags
        });
        let found = found.ok_or(CKR_ARGUMENTS_BAD)?;
        *interface = HANDED_OUT.0[found].get();
        Ok(())
    })
}

// ---- Slots and tokens -----------------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetSlotList(
    _token_present: CK_BBOOL,
    list: *mut CK_SLOT_ID,
    count: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let slots: Vec<CK_SLOT_ID> = (0..library.slots.len() as CK_SLOT_ID).collect();
            // SAFETY: the caller's array and count, as the standard defines them.
            unsafe { deliver(list, count, &slots) }.map(|_| ())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetSlotInfo(slot: CK_SLOT_ID, info: *mut CK_SLOT_INFO) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let slot = library.slot(slot)?;
            // SAFETY: the caller's CK_SLOT_INFO.
            let info = unsafe { out(info) }?;
            *info = CK_SLOT_INFO {
                slotDescription: padded(&format!(
                    "Regula token {} (policy {})",
                    slot.label, slot.policy_name
                )),
                manufacturerID: padded(MANUFACTURER),
                flags: CKF_TOKEN_PRESENT,
                hardwareVersion: CK_VERSION { major: 0, minor: 1 },
                firmwareVersion: CK_VERSION { major: 0, minor: 1 },
            };
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetTokenInfo(slot_id: CK_SLOT_ID, info: *mut CK_TOKEN_INFO) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let slot = library.slot(slot_id)?;
            let token = slot.store.token().map_err(state::store_rv)?;
            let user = slot.store.wrap(store::Who::User).map_err(state::store_rv)?;
            let so = slot.store.wrap(store::Who::So).map_err(state::store_rv)?;
            let mut flags = CKF_RNG | CKF_LOGIN_REQUIRED;
            if token.is_some() {
                flags |= CKF_TOKEN_INITIALIZED;
            }
            if user.is_some() {
                flags |= CKF_USER_PIN_INITIALIZED;
            }
            // PKCS#11 §5.8 (CK_TOKEN_INFO): COUNT_LOW after a failure, FINAL_TRY when one try
            // is left, LOCKED when none.
            let counted = |failures: u32, [low, final_try, locked]: [CK_FLAGS; 3]| {
                let max = slot.max_pin_attempts;
                if failures >= max {
                    locked
                } else if failures + 1 == max {
                    final_try | if failures > 0 { low } else { 0 }
                } else if failures > 0 {
                    low
                } else {
                    0
                }
            };
            if let Some((_, failures)) = user {
                flags |= counted(
                    failures,
                    [
                        CKF_USER_PIN_COUNT_LOW,
                        CKF_USER_PIN_FINAL_TRY,
                        CKF_USER_PIN_LOCKED,
                    ],
                );
            }
            if let Some((_, failures)) = so {
                flags |= counted(
                    failures,
                    [
                        CKF_SO_PIN_COUNT_LOW,
                        CKF_SO_PIN_FINAL_TRY,
                        CKF_SO_PIN_LOCKED,
                    ],
                );
            }
            let label = match &token {
                Some(token) => String::from_utf8_lossy(&token.label).trim_end().to_string(),
                None => slot.label.clone(),
            };
            let min_pin = slot.suite.min_pin;
            let sessions = library.sessions_on(slot_id as usize).count() as CK_ULONG;
            let rw = library
                .sessions_on(slot_id as usize)
                .filter(|session| session.rw)
                .count() as CK_ULONG;
            // SAFETY: the caller's CK_TOKEN_INFO.
            let info = unsafe { out(info) }?;
            *info = CK_TOKEN_INFO {
                label: padded(&label),
                manufacturerID: padded(MANUFACTURER),
                model: padded("Regula"),
                serialNumber: padded(&format!("{:016}", slot_id)),
                flags,
                ulMaxSessionCount: CK_EFFECTIVELY_INFINITE,
                ulSessionCount: sessions,
                ulMaxRwSessionCount: CK_EFFECTIVELY_INFINITE,
                ulRwSessionCount: rw,
                ulMaxPinLen: PIN_MAX as CK_ULONG,
                ulMinPinLen: min_pin as CK_ULONG,
                ulTotalPublicMemory: UNAVAILABLE,
                ulFreePublicMemory: UNAVAILABLE,
                ulTotalPrivateMemory: UNAVAILABLE,
                ulFreePrivateMemory: UNAVAILABLE,
                hardwareVersion: CK_VERSION { major: 0, minor: 1 },
                firmwareVersion: CK_VERSION { major: 0, minor: 1 },
                utcTime: padded(""),
            };
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetMechanismList(
    slot: CK_SLOT_ID,
    list: *mut CK_MECHANISM_TYPE,
    count: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let mechanisms: Vec<CK_MECHANISM_TYPE> =
                library.slot(slot)?.mechanisms.keys().copied().collect();
            // SAFETY: the caller's array and count, as the standard defines them.
            unsafe { deliver(list, count, &mechanisms) }.map(|_| ())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetMechanismInfo(
    slot: CK_SLOT_ID,
    mechanism: CK_MECHANISM_TYPE,
    info: *mut CK_MECHANISM_INFO,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let found = *library
                .slot(slot)?
                .mechanisms
                .get(&mechanism)
                .ok_or(CKR_MECHANISM_INVALID)?;
            // SAFETY: the caller's CK_MECHANISM_INFO.
            *unsafe { out(info) }? = found;
            Ok(())
        })
    })
}

// ---- Sessions -----------------------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_OpenSession(
    slot: CK_SLOT_ID,
    flags: CK_FLAGS,
    _application: *mut std::os::raw::c_void,
    _notify: CK_NOTIFY,
    session: *mut CK_SESSION_HANDLE,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            library.slot(slot)?;
            if flags & CKF_SERIAL_SESSION == 0 {
                return Err(CKR_SESSION_PARALLEL_NOT_SUPPORTED);
            }
            if flags & CKF_RW_SESSION == 0 && library.slots[slot as usize].login == Some(CKU_SO) {
                return Err(CKR_SESSION_READ_WRITE_SO_EXISTS);
            }
            // SAFETY: the caller's handle slot.
            let session = unsafe { out(session) }?;
            let handle = library.handle();
            library.sessions.insert(
                handle,
                Session {
                    slot: slot as usize,
                    rw: flags & CKF_RW_SESSION != 0,
                    find: None,
                    digest: None,
                    sign: None,
                    verify: None,
                    encrypt: None,
                    decrypt: None,
                    validation: 0,
                    gcm_keys: std::collections::HashMap::new(),
                    signing_keys: std::collections::HashMap::new(),
                },
            );
            *session = handle;
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn C_CloseSession(session: CK_SESSION_HANDLE) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let slot = library.session(session)?.slot;
            library.close_session(session)?;
            if library.sessions_on(slot).next().is_none() {
                library.logout(slot);
            }
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn C_CloseAllSessions(slot: CK_SLOT_ID) -> CK_RV {
    guard(|| {
        state::with(|library| {
            library.slot(slot)?;
            let handles: Vec<_> = library
                .sessions
                .iter()
                .filter(|(_, session)| session.slot == slot as usize)
                .map(|(handle, _)| *handle)
                .collect();
            for handle in handles {
                library.close_session(handle)?;
            }
            library.logout(slot as usize);
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetSessionInfo(
    session: CK_SESSION_HANDLE,
    info: *mut CK_SESSION_INFO,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let (session, slot) = library.session_and_slot(session)?;
            let state = match (session.rw, slot.login) {
                (_, Some(CKU_SO)) => CKS_RW_SO_FUNCTIONS,
                (false, None) => CKS_RO_PUBLIC_SESSION,
                (false, Some(_)) => CKS_RO_USER_FUNCTIONS,
                (true, None) => CKS_RW_PUBLIC_SESSION,
                (true, Some(_)) => CKS_RW_USER_FUNCTIONS,
            };
            let flags = CKF_SERIAL_SESSION | if session.rw { CKF_RW_SESSION } else { 0 };
            let slot_id = session.slot as CK_SLOT_ID;
            // SAFETY: the caller's CK_SESSION_INFO.
            *unsafe { out(info) }? = CK_SESSION_INFO {
                slotID: slot_id,
                state,
                flags,
                ulDeviceError: 0,
            };
            Ok(())
        })
    })
}

/// Checks `pin` against the wrap of `who`'s PIN and gives the token key it opens. A failure is
/// counted in the database before the answer is given; `max_pin_attempts` failures lock the
/// PIN, and a correct PIN is refused too once other processes' failures have locked it.
fn check_pin(
    slot: &mut state::Slot,
    who: store::Who,
    pin: &[u8],
) -> Result<Zeroizing<Vec<u8>>, CK_RV> {
    let (wrap, failures) = slot
        .store
        .wrap(who)
        .map_err(state::store_rv)?
        .ok_or(CKR_USER_PIN_NOT_INITIALIZED)?;
    if failures >= slot.max_pin_attempts {
        return Err(CKR_PIN_LOCKED);
    }
    // No PIN of a length the policy refuses was ever set: such a one is wrong.
    let key = if (slot.suite.min_pin..=PIN_MAX).contains(&pin.len()) {
        vault::unwrap(&slot.module, &slot.suite, who, pin, &wrap)?
    } else {
        None
    };
    let Some(key) = key else {
        slot.store.record_failure(who).map_err(state::store_rv)?;
        return Err(CKR_PIN_INCORRECT);
    };
    if !slot
        .store
        .record_success(who, slot.max_pin_attempts)
        .map_err(state::store_rv)?
    {
        return Err(CKR_PIN_LOCKED);
    }
    Ok(key)
}

/// A PIN about to be set: within the lengths the token and the slot's policy take.
fn new_pin_length(slot: &state::Slot, pin: &[u8]) -> Rv {
    if (slot.suite.min_pin..=PIN_MAX).contains(&pin.len()) {
        Ok(())
    } else {
        Err(CKR_PIN_LEN_RANGE)
    }
}

fn who(user_type: CK_USER_TYPE) -> Result<store::Who, CK_RV> {
    match user_type {
        CKU_USER => Ok(store::Who::User),
        CKU_SO => Ok(store::Who::So),
        _ => Err(CKR_USER_TYPE_INVALID),
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_Login(
    session: CK_SESSION_HANDLE,
    user_type: CK_USER_TYPE,
    pin: *mut CK_UTF8CHAR,
    pin_len: CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let slot_index = library.session(session)?.slot;
            let who = who(user_type)?;
            // SAFETY: `pin_len` bytes at `pin`.
            let pin = unsafe { input(pin, pin_len) }?;
            match library.slots[slot_index].login {
                Some(current) if current == user_type => return Err(CKR_USER_ALREADY_LOGGED_IN),
                Some(_) => return Err(CKR_USER_ANOTHER_ALREADY_LOGGED_IN),
                None => {}
            }
            if user_type == CKU_SO && library.sessions_on(slot_index).any(|session| !session.rw) {
                return Err(CKR_SESSION_READ_ONLY_EXISTS);
            }
            let slot = &mut library.slots[slot_index];
            let key = check_pin(slot, who, pin)?;
            slot.token_key = Some(vault::TokenKey::new(&slot.module, &slot.suite, key)?);
            slot.login = Some(user_type);
            if let Err(rv) = library.refresh(slot_index) {
                library.logout(slot_index);
                return Err(rv);
            }
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn C_Logout(session: CK_SESSION_HANDLE) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let slot = library.session(session)?.slot;
            if library.slots[slot].login.is_none() {
                return Err(CKR_USER_NOT_LOGGED_IN);
            }
            library.logout(slot);
            Ok(())
        })
    })
}

/// `C_InitToken`: the SO PIN (checked when the token was initialized before, set otherwise)
/// and a 32-byte blank-padded label; every token object and the user PIN are wiped and a new
/// token key is made, wrapped under the SO PIN.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_InitToken(
    slot_id: CK_SLOT_ID,
    pin: *mut CK_UTF8CHAR,
    pin_len: CK_ULONG,
    label: *mut CK_UTF8CHAR,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            library.slot(slot_id)?;
            let slot_index = slot_id as usize;
            // SAFETY: `pin_len` bytes at `pin`; the label is 32 bytes (CK_TOKEN_INFO's field).
            let pin = unsafe { input(pin, pin_len) }?;
            // SAFETY: as above.
            let label = unsafe { input(label, 32) }?.to_vec();
            if library.sessions_on(slot_index).next().is_some() {
                return Err(CKR_SESSION_EXISTS);
            }
            let slot = &mut library.slots[slot_index];
            if slot.store.token().map_err(state::store_rv)?.is_some() {
                check_pin(slot, store::Who::So, pin)?;
            } else {
                new_pin_length(slot, pin)?;
            }
            let key = vault::new_token_key(&slot.module, &slot.suite)?;
            let so = vault::wrap(
                &slot.module,
                &slot.suite,
                store::Who::So,
                pin,
                &key,
                slot.pbkdf2_iterations,
            )?;
            slot.store
                .initialize(&label, slot.suite.aead.name(), &so)
                .map_err(state::store_rv)?;
            library
                .objects
                .retain(|_, object| !(object.slot == slot_index && object.token));
            Ok(())
        })
    })
}

/// `C_InitPIN`: the SO sets the user PIN (and so unlocks it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_InitPIN(
    session: CK_SESSION_HANDLE,
    pin: *mut CK_UTF8CHAR,
    pin_len: CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let slot_index = library.session(session)?.slot;
            // SAFETY: `pin_len` bytes at `pin`.
            let pin = unsafe { input(pin, pin_len) }?;
            let slot = &mut library.slots[slot_index];
            let (Some(CKU_SO), Some(token_key)) = (slot.login, &slot.token_key) else {
                return Err(CKR_USER_NOT_LOGGED_IN);
            };
            new_pin_length(slot, pin)?;
            let user = vault::wrap(
                &slot.module,
                &slot.suite,
                store::Who::User,
                pin,
                &token_key.key,
                slot.pbkdf2_iterations,
            )?;
            slot.store
                .set_wrap(store::Who::User, &user)
                .map_err(state::store_rv)
        })
    })
}

/// `C_SetPIN`: the SO's PIN in an SO session, else the user's; the old PIN is checked (and
/// counted) and the token key wrapped afresh under the new one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_SetPIN(
    session: CK_SESSION_HANDLE,
    old: *mut CK_UTF8CHAR,
    old_len: CK_ULONG,
    new: *mut CK_UTF8CHAR,
    new_len: CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let (session, slot) = library.session_and_slot(session)?;
            if !session.rw {
                return Err(CKR_SESSION_READ_ONLY);
            }
            let slot_index = session.slot;
            let who = match slot.login {
                Some(CKU_SO) => store::Who::So,
                _ => store::Who::User,
            };
            // SAFETY: `old_len` bytes at `old`, `new_len` at `new`.
            let (old, new) = unsafe { (input(old, old_len)?, input(new, new_len)?) };
            let slot = &mut library.slots[slot_index];
            new_pin_length(slot, new)?;
            let key = check_pin(slot, who, old)?;
            let wrap = vault::wrap(
                &slot.module,
                &slot.suite,
                who,
                new,
                &key,
                slot.pbkdf2_iterations,
            )?;
            slot.store.set_wrap(who, &wrap).map_err(state::store_rv)
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn C_SessionCancel(session: CK_SESSION_HANDLE, flags: CK_FLAGS) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let session = library.session(session)?;
            if flags & CKF_ENCRYPT != 0 {
                session.encrypt = None;
            }
            if flags & CKF_DECRYPT != 0 {
                session.decrypt = None;
            }
            if flags & CKF_DIGEST != 0 {
                session.digest = None;
            }
            if flags & CKF_SIGN != 0 {
                session.sign = None;
            }
            if flags & CKF_VERIFY != 0 {
                session.verify = None;
            }
            if flags & CKF_FIND_OBJECTS != 0 {
                session.find = None;
            }
            Ok(())
        })
    })
}

/// PKCS#11 3.2: the validation flags of the session's last completed operation
/// (`CKS_LAST_VALIDATION_OK`): [`VALIDATION_FLAG_POLICY`] when the slot's policy approved it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetSessionValidationFlags(
    session: CK_SESSION_HANDLE,
    kind: CK_SESSION_VALIDATION_FLAGS_TYPE,
    flags: *mut CK_FLAGS,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let session = library.session(session)?;
            if kind != CKS_LAST_VALIDATION_OK as CK_SESSION_VALIDATION_FLAGS_TYPE {
                return Err(CKR_ARGUMENTS_BAD);
            }
            // SAFETY: the caller's CK_FLAGS.
            *unsafe { out(flags) }? = session.validation;
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GenerateRandom(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    len: CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let (session, slot) = library.session_and_slot(session)?;
            if len == 0 {
                return Ok(());
            }
            if data.is_null() {
                return Err(CKR_ARGUMENTS_BAD);
            }
            // SAFETY: the caller's `len` writable bytes.
            let buffer = unsafe { std::slice::from_raw_parts_mut(data, len as usize) };
            let served = slot
                .module
                .fill_random(buffer)
                .map_err(|error| ops::rv_of(&error, false))?;
            session.validation = validation(served.is_approved());
            Ok(())
        })
    })
}

fn validation(approved: bool) -> CK_FLAGS {
    if approved { VALIDATION_FLAG_POLICY } else { 0 }
}

// ---- Objects ------------------------------------------------------------------------------

/// The object `handle`, if the session's slot holds it and the session may see it.
fn visible(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    handle: CK_OBJECT_HANDLE,
) -> Result<&mut Object, CK_RV> {
    let slot = library.session(session)?.slot;
    let logged_in = library.slots[slot].user();
    library
        .objects
        .get_mut(&handle)
        .filter(|object| object.slot == slot && (logged_in || !object.private))
        .ok_or(CKR_OBJECT_HANDLE_INVALID)
}

/// [`visible`] for a key the caller names: no such object is `CKR_KEY_HANDLE_INVALID`.
pub(crate) fn visible_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    handle: CK_OBJECT_HANDLE,
) -> Result<&mut Object, CK_RV> {
    visible(library, session, handle).map_err(|rv| {
        if rv == CKR_OBJECT_HANDLE_INVALID {
            CKR_KEY_HANDLE_INVALID
        } else {
            rv
        }
    })
}

/// Keeps a generated key pair whole or not at all: (public handle, private handle). When the
/// public half cannot be kept, the private half already kept is taken back, from the token's
/// database too.
fn keep_pair(
    library: &mut Library,
    rw: bool,
    public: Object,
    private: Object,
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE), CK_RV> {
    let slot = private.slot;
    let private_handle = keep(library, rw, private)?;
    match keep(library, rw, public) {
        Ok(public_handle) => Ok((public_handle, private_handle)),
        Err(rv) => {
            if let Some(kept) = library.objects.remove(&private_handle)
                && let Some(row) = kept.row
            {
                let _ = library.slots[slot].store.delete(row);
            }
            Err(rv)
        }
    }
}

/// Makes and keeps a secret key; its handle.
#[allow(clippy::too_many_arguments)]
fn keep_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    key_type: CK_KEY_TYPE,
    value: Zeroizing<Vec<u8>>,
    private: Option<bool>,
    token: bool,
    template: &[TemplateAttribute],
    origin: &Origin,
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let (session_state, _) = library.session_and_slot(session)?;
    let (slot, rw) = (session_state.slot, session_state.rw);
    let logged_in = library.slots[slot].user();
    let private = private.unwrap_or(true);
    if private && !logged_in {
        return Err(CKR_USER_NOT_LOGGED_IN);
    }
    let object = Object::secret_key(
        slot, session, private, token, key_type, value, template, origin,
    )?;
    keep(library, rw, object)
}

/// Keeps an object; its handle. A token object is stored first, in one transaction with its
/// value sealed under the token key, which needs a logged-in R/W session.
/// Keeps a secret agreed or decapsulated (ECDH's Z, ML-KEM's shared secret) as the secret key
/// `wanted` describes: its value the leftmost `CKA_VALUE_LEN` bytes, all of the secret when
/// the template gives no length.
fn keep_shared_secret(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    wanted: &object::KeyTemplate,
    template: &[TemplateAttribute],
    origin: &Origin,
    secret: &[u8],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let key_type = wanted.key_type.ok_or(CKR_TEMPLATE_INCOMPLETE)?;
    let len = wanted.value_len.unwrap_or(secret.len());
    if len == 0 || len > secret.len() {
        return Err(CKR_TEMPLATE_INCONSISTENT);
    }
    keep_key(
        library,
        session,
        key_type,
        Zeroizing::new(secret[..len].to_vec()),
        wanted.private,
        wanted.token,
        template,
        origin,
    )
}

fn keep(library: &mut Library, rw: bool, mut object: Object) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    if object.token {
        if !rw {
            return Err(CKR_SESSION_READ_ONLY);
        }
        let slot_state = &mut library.slots[object.slot];
        let Some(token_key) = &slot_state.token_key else {
            return Err(CKR_USER_NOT_LOGGED_IN);
        };
        let value = object.value.as_ref().ok_or(CKR_GENERAL_ERROR)?;
        let row = slot_state
            .store
            .insert(object.private, &object.record(), |row| {
                token_key.seal(row, CKA_VALUE, value)
            })
            .map_err(|error| match error {
                store::InsertError::Store(error) => state::store_rv(error),
                store::InsertError::Seal(rv) => rv,
            })?;
        object.row = Some(row);
    }
    let handle = library.handle();
    library.objects.insert(handle, object);
    Ok(handle)
}

/// `C_CreateObject` of an EC public key: `CKA_EC_PARAMS` a named curve, `CKA_EC_POINT` a point
/// on it (checked by the module when it verifies).
fn create_public_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    template: &[TemplateAttribute],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let public = object::read_pair_template(template, CKO_PUBLIC_KEY, true)?;
    let (Some(curve), Some(ec_point)) = (public.curve, &public.ec_point) else {
        return Err(CKR_TEMPLATE_INCOMPLETE);
    };
    let point = curve
        .point_of_ec_point(ec_point)
        .ok_or(CKR_ATTRIBUTE_VALUE_INVALID)?;
    let (session_state, slot) = library.session_and_slot(session)?;
    let (slot_index, rw) = (session_state.slot, session_state.rw);
    if public.private.unwrap_or(false) && !slot.user() {
        return Err(CKR_USER_NOT_LOGGED_IN);
    }
    let object = Object::ec_key(
        slot_index,
        session,
        CKO_PUBLIC_KEY,
        &public,
        curve,
        point.clone(),
        Zeroizing::new(point),
        template,
        false,
    )?;
    keep(library, rw, object)
}

/// `C_CreateObject` of an EC or Ed25519 private key: `CKA_EC_PARAMS` a named curve, `CKA_VALUE`
/// the private scalar (Ed25519: the 32-byte private key), checked by the module, which gives
/// the public point.
fn create_private_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    template: &[TemplateAttribute],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let private = object::read_pair_template(template, CKO_PRIVATE_KEY, true)?;
    let (Some(curve), Some(value)) = (private.curve, &private.value) else {
        return Err(CKR_TEMPLATE_INCOMPLETE);
    };
    let pkcs8 = curve
        .pkcs8_of_scalar(value)
        .ok_or(CKR_ATTRIBUTE_VALUE_INVALID)?;
    let (session_state, slot) = library.session_and_slot(session)?;
    let (slot_index, rw) = (session_state.slot, session_state.rw);
    if private.private.unwrap_or(true) && !slot.user() {
        return Err(CKR_USER_NOT_LOGGED_IN);
    }
    let refused = |error: regula::Error| match ops::rv_of(&error, false) {
        CKR_MECHANISM_INVALID => CKR_CURVE_NOT_SUPPORTED,
        CKR_KEY_SIZE_RANGE => CKR_ATTRIBUTE_VALUE_INVALID,
        rv => rv,
    };
    // The module checks the key (with the signature algorithm of its curve, or its ECDH where
    // the policy signs with no key on it) and computes its public point.
    let policy = slot.module.policy();
    let point = match curve.ecdh() {
        Some(ecdh) if !policy.serves(curve.ecdsa()) && policy.serves(ecdh) => {
            let scalar = Zeroizing::new(value[..].to_vec());
            slot.module
                .agreement_key_from_private_bytes(ecdh, &scalar)
                .map_err(refused)?
                .into_value()
                .public_key()
                .map_err(refused)?
        }
        _ => {
            let key = slot
                .module
                .signing_key_from_pkcs8(curve.ecdsa(), &pkcs8)
                .map_err(refused)?
                .into_value();
            let spki = key.public_key_der().map_err(refused)?;
            curve.point_of_spki(&spki).ok_or(CKR_FUNCTION_FAILED)?
        }
    };
    let object = Object::ec_key(
        slot_index,
        session,
        CKO_PRIVATE_KEY,
        &private,
        curve,
        point,
        pkcs8,
        template,
        false,
    )?;
    keep(library, rw, object)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_CreateObject(
    session: CK_SESSION_HANDLE,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    object: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            library.session(session)?;
            // SAFETY: the caller's template and handle slot.
            let template = unsafe { template(attributes, count) }?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let object = unsafe { out(object) }?;
            let class = template
                .iter()
                .find(|attribute| attribute.kind == CKA_CLASS);
            if let Some(class) = class {
                match object::parse_ulong(&class.value)? {
                    CKO_PUBLIC_KEY if mldsa::is_ml_dsa_template(&template) => {
                        *object = mldsa::create_public_key(library, session, &template)?;
                        return Ok(());
                    }
                    class @ (CKO_PUBLIC_KEY | CKO_PRIVATE_KEY)
                        if mlkem::is_ml_kem_template(&template) =>
                    {
                        *object = mlkem::create_key(library, session, &template, class)?;
                        return Ok(());
                    }
                    CKO_PRIVATE_KEY if mldsa::is_ml_dsa_template(&template) => {
                        return Err(CKR_TEMPLATE_INCONSISTENT);
                    }
                    class @ (CKO_PUBLIC_KEY | CKO_PRIVATE_KEY)
                        if rsa::is_rsa_template(&template) =>
                    {
                        *object = rsa::create_key(library, session, &template, class)?;
                        return Ok(());
                    }
                    CKO_PUBLIC_KEY => {
                        *object = create_public_key(library, session, &template)?;
                        return Ok(());
                    }
                    CKO_PRIVATE_KEY => {
                        *object = create_private_key(library, session, &template)?;
                        return Ok(());
                    }
                    _ => {}
                }
            }
            let key = object::read_template(&template, &Origin::Created)?;
            let (Some(key_type), Some(value)) = (key.key_type, key.value) else {
                return Err(CKR_TEMPLATE_INCOMPLETE);
            };
            *object = keep_key(
                library,
                session,
                key_type,
                value,
                key.private,
                key.token,
                &template,
                &Origin::Created,
            )?;
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GenerateKey(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    key: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's mechanism, template and handle slot.
            let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let template = unsafe { template(attributes, count) }?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let key = unsafe { out(key) }?;
            if mechanism.mechanism == CKM_PKCS5_PBKD2 {
                // SAFETY: the mechanism's parameter, as the caller describes it.
                *key = unsafe { kdf::generate_pbkdf2(library, session, mechanism, &template) }?;
                return Ok(());
            }
            let (_, slot) = library.session_and_slot(session)?;
            let info = slot
                .mechanisms
                .get(&mechanism.mechanism)
                .filter(|info| info.flags & CKF_GENERATE != 0)
                .ok_or(CKR_MECHANISM_INVALID)?;
            let (min, max) = (info.ulMinKeySize as usize, info.ulMaxKeySize as usize);
            if mechanism.ulParameterLen != 0 {
                return Err(CKR_MECHANISM_PARAM_INVALID);
            }
            let key_type =
                mech::generated_key_type(mechanism.mechanism).ok_or(CKR_MECHANISM_INVALID)?;
            let origin = Origin::Generated {
                mechanism: mechanism.mechanism,
            };
            let wanted = object::read_template(&template, &origin)?;
            if wanted.key_type.is_some_and(|given| given != key_type) {
                return Err(CKR_TEMPLATE_INCONSISTENT);
            }
            let len = match (wanted.value_len, key_type) {
                (Some(len), _) => len,
                (None, CKK_REGULA_SM4) => 16,
                (None, _) => return Err(CKR_TEMPLATE_INCOMPLETE),
            };
            if !(min..=max).contains(&len) {
                return Err(CKR_KEY_SIZE_RANGE);
            }
            let served = slot
                .module
                .random_bytes(len)
                .map_err(|error| ops::rv_of(&error, false))?;
            let approved = served.is_approved();
            let value = Zeroizing::new(served.into_value());
            *key = keep_key(
                library,
                session,
                key_type,
                value,
                wanted.private,
                wanted.token,
                &template,
                &origin,
            )?;
            library.session(session)?.validation = validation(approved);
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GenerateKeyPair(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    public_attributes: *mut CK_ATTRIBUTE,
    public_count: CK_ULONG,
    private_attributes: *mut CK_ATTRIBUTE,
    private_count: CK_ULONG,
    public_key: *mut CK_OBJECT_HANDLE,
    private_key: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's mechanism, templates and handle slots.
            let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let public_template = unsafe { template(public_attributes, public_count) }?;
            // SAFETY: as above.
            let private_template = unsafe { template(private_attributes, private_count) }?;
            // SAFETY: as above.
            let public_key = unsafe { out(public_key) }?;
            // SAFETY: as above.
            let private_key = unsafe { out(private_key) }?;
            let (session_state, slot) = library.session_and_slot(session)?;
            let (slot_index, rw) = (session_state.slot, session_state.rw);
            slot.mechanisms
                .get(&mechanism.mechanism)
                .filter(|info| info.flags & CKF_GENERATE_KEY_PAIR != 0)
                .ok_or(CKR_MECHANISM_INVALID)?;
            if mechanism.ulParameterLen != 0 {
                return Err(CKR_MECHANISM_PARAM_INVALID);
            }
            if mechanism.mechanism == CKM_ML_KEM_KEY_PAIR_GEN {
                let (public, private, approved) = mlkem::generate_key_pair(
                    library,
                    session,
                    &public_template,
                    &private_template,
                )?;
                *public_key = public;
                *private_key = private;
                library.session(session)?.validation = validation(approved);
                return Ok(());
            }
            if mechanism.mechanism == CKM_RSA_PKCS_KEY_PAIR_GEN {
                let (public, private, approved) =
                    rsa::generate_key_pair(library, session, &public_template, &private_template)?;
                *public_key = public;
                *private_key = private;
                library.session(session)?.validation = validation(approved);
                return Ok(());
            }
            if mechanism.mechanism == CKM_ML_DSA_KEY_PAIR_GEN {
                let (public, private, approved) = mldsa::generate_key_pair(
                    library,
                    session,
                    &public_template,
                    &private_template,
                )?;
                *public_key = public;
                *private_key = private;
                library.session(session)?.validation = validation(approved);
                return Ok(());
            }
            let public = object::read_pair_template(&public_template, CKO_PUBLIC_KEY, false)?;
            let private = object::read_pair_template(&private_template, CKO_PRIVATE_KEY, false)?;
            let curve = match (public.curve, private.curve) {
                (Some(curve), None) => curve,
                (Some(curve), Some(also)) if curve == also => curve,
                (None, _) => return Err(CKR_TEMPLATE_INCOMPLETE),
                _ => return Err(CKR_TEMPLATE_INCONSISTENT),
            };
            // CKM_EC_KEY_PAIR_GEN makes CKK_EC keys, CKM_EC_EDWARDS_KEY_PAIR_GEN CKK_EC_EDWARDS.
            let key_types = [public.key_type, private.key_type];
            if curve.generator() != mechanism.mechanism
                || key_types
                    .iter()
                    .flatten()
                    .any(|kind| *kind != curve.key_type())
            {
                return Err(CKR_TEMPLATE_INCONSISTENT);
            }
            if !mech::generates_on(slot.module.policy(), curve) {
                return Err(CKR_CURVE_NOT_SUPPORTED);
            }
            let logged_in = slot.user();
            let wants_login = private.private.unwrap_or(true) || public.private.unwrap_or(false);
            if wants_login && !logged_in {
                return Err(CKR_USER_NOT_LOGGED_IN);
            }
            if (public.token || private.token) && !rw {
                return Err(CKR_SESSION_READ_ONLY);
            }
            // The module generates the pair and runs its pairwise consistency test.
            let (pkcs8, point, approved) = if curve == ec::Curve::Sm2 {
                sm2::generate(&slot.module)?
            } else {
                let served = slot
                    .module
                    .generate_signing_key(curve.ecdsa(), None)
                    .map_err(|error| ops::rv_of(&error, false))?;
                let approved = served.is_approved();
                let key = served.into_value();
                let pkcs8 = key
                    .to_pkcs8_der()
                    .map_err(|error| ops::rv_of(&error, false))?;
                let spki = key
                    .public_key_der()
                    .map_err(|error| ops::rv_of(&error, false))?;
                let point = curve.point_of_spki(&spki).ok_or(CKR_FUNCTION_FAILED)?;
                (pkcs8, point, approved)
            };
            let public_object = Object::ec_key(
                slot_index,
                session,
                CKO_PUBLIC_KEY,
                &public,
                curve,
                point.clone(),
                Zeroizing::new(point.clone()),
                &public_template,
                true,
            )?;
            let private_object = Object::ec_key(
                slot_index,
                session,
                CKO_PRIVATE_KEY,
                &private,
                curve,
                point,
                pkcs8,
                &private_template,
                true,
            )?;
            let (public_handle, private_handle) =
                keep_pair(library, rw, public_object, private_object)?;
            *public_key = public_handle;
            *private_key = private_handle;
            library.session(session)?.validation = validation(approved);
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn C_DestroyObject(session: CK_SESSION_HANDLE, object: CK_OBJECT_HANDLE) -> CK_RV {
    guard(|| {
        state::with(|library| {
            if validation_object(library, session, object)?.is_some() {
                return Err(CKR_ACTION_PROHIBITED);
            }
            let found = visible(library, session, object)?;
            if !found.flag(CKA_DESTROYABLE) {
                return Err(CKR_ACTION_PROHIBITED);
            }
            let (slot, row) = (found.slot, found.row);
            if let Some(row) = row {
                if !library.session(session)?.rw {
                    return Err(CKR_SESSION_READ_ONLY);
                }
                let deleted = library.slots[slot]
                    .store
                    .delete(row)
                    .map_err(state::store_rv)?;
                library.objects.remove(&object);
                library.forget_bound_keys(object);
                // Another process destroyed it first.
                if !deleted {
                    return Err(CKR_OBJECT_HANDLE_INVALID);
                }
                return Ok(());
            }
            library.objects.remove(&object);
            library.forget_bound_keys(object);
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetAttributeValue(
    session: CK_SESSION_HANDLE,
    object: CK_OBJECT_HANDLE,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            if let Some(validation) = validation_object(library, session, object)? {
                // SAFETY: the caller's attributes.
                return unsafe { fill_attributes(attributes, count, |kind| validation.read(kind)) };
            }
            let object = visible(library, session, object)?;
            // SAFETY: the caller's attributes.
            unsafe { fill_attributes(attributes, count, |kind| object.read(kind)) }
        })
    })
}

/// The slot's validation object `handle` names, if it names one (read only: it is neither
/// changed nor destroyed).
fn validation_object(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    handle: CK_OBJECT_HANDLE,
) -> Result<Option<&validation::ValidationObject>, CK_RV> {
    let slot = library.session(session)?.slot;
    Ok(library
        .validations
        .get(&handle)
        .filter(|validation| validation.slot == slot))
}

/// `C_GetAttributeValue`'s protocol over one object's attributes: NULL `pValue` asks for the
/// length, a short buffer gets `CKR_BUFFER_TOO_SMALL`, a sensitive or unknown attribute its
/// code; every attribute is answered and the last failure returned.
unsafe fn fill_attributes(
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    read: impl Fn(CK_ATTRIBUTE_TYPE) -> Read,
) -> Rv {
    if count == 0 {
        return Ok(());
    }
    if attributes.is_null() {
        return Err(CKR_ARGUMENTS_BAD);
    }
    let count = usize::try_from(count).map_err(|_| CKR_ARGUMENTS_BAD)?;
    // SAFETY: the caller's `count` attributes.
    let attributes = unsafe { std::slice::from_raw_parts_mut(attributes, count) };
    let mut result = Ok(());
    for attribute in attributes {
        match read(attribute.type_) {
            Read::Sensitive => {
                attribute.ulValueLen = UNAVAILABLE;
                result = Err(CKR_ATTRIBUTE_SENSITIVE);
            }
            Read::Invalid => {
                attribute.ulValueLen = UNAVAILABLE;
                result = Err(CKR_ATTRIBUTE_TYPE_INVALID);
            }
            Read::Value(value) => {
                let value = Zeroizing::new(value);
                if attribute.pValue.is_null() {
                    attribute.ulValueLen = value.len() as CK_ULONG;
                } else if (attribute.ulValueLen as u128) < value.len() as u128 {
                    attribute.ulValueLen = UNAVAILABLE;
                    result = Err(CKR_BUFFER_TOO_SMALL);
                } else {
                    // SAFETY: the caller's buffer holds `ulValueLen` >= len bytes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            value.as_ptr(),
                            attribute.pValue.cast::<u8>(),
                            value.len(),
                        )
                    };
                    attribute.ulValueLen = value.len() as CK_ULONG;
                }
            }
        }
    }
    result
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_SetAttributeValue(
    session: CK_SESSION_HANDLE,
    object: CK_OBJECT_HANDLE,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's template.
            let template = unsafe { template(attributes, count) }?;
            if validation_object(library, session, object)?.is_some() {
                return Err(CKR_ACTION_PROHIBITED);
            }
            let (session_state, slot) = library.session_and_slot(session)?;
            let (rw, so) = (session_state.rw, slot.login == Some(CKU_SO));
            let found = visible(library, session, object)?;
            let Some(row) = found.row else {
                return found.set(&template, so);
            };
            if !rw {
                return Err(CKR_SESSION_READ_ONLY);
            }
            let mut changed = found.clone();
            changed.set(&template, so)?;
            let slot = changed.slot;
            if !library.slots[slot]
                .store
                .update(row, &changed.record())
                .map_err(state::store_rv)?
            {
                library.objects.remove(&object);
                return Err(CKR_OBJECT_HANDLE_INVALID);
            }
            library.objects.insert(object, changed);
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_FindObjectsInit(
    session: CK_SESSION_HANDLE,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's template.
            let template = unsafe { template(attributes, count) }?;
            let slot = library.session(session)?.slot;
            if library.session(session)?.find.is_some() {
                return Err(CKR_OPERATION_ACTIVE);
            }
            library.refresh(slot)?;
            let logged_in = library.slots[slot].user();
            let mut found: Vec<CK_OBJECT_HANDLE> = library
                .objects
                .iter()
                .filter(|(_, object)| object.slot == slot && (logged_in || !object.private))
                .filter(|(_, object)| object.matches(&template))
                .map(|(handle, _)| *handle)
                .collect();
            found.extend(
                library
                    .validations
                    .iter()
                    .filter(|(_, validation)| validation.slot == slot)
                    .filter(|(_, validation)| validation.matches(&template))
                    .map(|(handle, _)| *handle),
            );
            found.sort_unstable_by(|a, b| b.cmp(a));
            library.session(session)?.find = Some(found);
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_FindObjects(
    session: CK_SESSION_HANDLE,
    objects: *mut CK_OBJECT_HANDLE,
    max: CK_ULONG,
    count: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let find = library
                .session(session)?
                .find
                .as_mut()
                .ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
            // SAFETY: the caller's count.
            let count = unsafe { out(count) }?;
            if max > 0 && objects.is_null() {
                return Err(CKR_ARGUMENTS_BAD);
            }
            let mut given = 0;
            while (given as CK_ULONG) < max {
                let Some(handle) = find.pop() else { break };
                // SAFETY: the caller's array holds `max` handles.
                unsafe { objects.add(given).write(handle) };
                given += 1;
            }
            *count = given as CK_ULONG;
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn C_FindObjectsFinal(session: CK_SESSION_HANDLE) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let session = library.session(session)?;
            session
                .find
                .take()
                .map(|_| ())
                .ok_or(CKR_OPERATION_NOT_INITIALIZED)
        })
    })
}

// ---- Operations -----------------------------------------------------------------------------

/// The key `handle` as an operation needs it: its type and value, if the session may use it
/// for `usage` (CKA_ENCRYPT, ...).
fn usable_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    handle: CK_OBJECT_HANDLE,
    usage: CK_ATTRIBUTE_TYPE,
) -> Result<(CK_KEY_TYPE, Zeroizing<Vec<u8>>), CK_RV> {
    let object = visible_key(library, session, handle)?;
    if !object.flag(usage) {
        return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
    }
    // A token object's value is open only while someone is logged in.
    let value = object.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?;
    Ok((object.key_type, value))
}

/// Reads the parameter of an encryption mechanism.
unsafe fn crypt_params(mechanism: &CK_MECHANISM, op: mech::Op) -> Result<Params, CK_RV> {
    let raw = mechanism.pParameter;
    let len = mechanism.ulParameterLen as usize;
    match op {
        mech::Op::Gcm => {
            if raw.is_null() || len != std::mem::size_of::<CK_GCM_PARAMS>() {
                return Err(CKR_MECHANISM_PARAM_INVALID);
            }
            let params = raw.cast::<CK_GCM_PARAMS>();
            // SAFETY: a CK_GCM_PARAMS of the checked size at a non-null pointer.
            let gcm = unsafe { params.read_unaligned() };
            // SAFETY: the IV and AAD buffers the parameters describe.
            let iv =
                // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
                unsafe { input(gcm.pIv, gcm.ulIvLen) }.map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let aad = unsafe { input(gcm.pAAD, gcm.ulAADLen) }
                .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
            Ok(Params::Gcm {
                iv: iv.to_vec(),
                aad: aad.to_vec(),
                tag_bits: gcm.ulTagBits,
                iv_out: gcm.pIv,
                // SAFETY: a field of the caller's structure.
                iv_bits_out: unsafe { &raw mut (*params).ulIvBits },
            })
        }
        // SAFETY: the mechanism's parameter, as the caller describes it.
        mech::Op::Ccm => unsafe { ccm::read_params(mechanism) }.map(Params::Ccm),
        mech::Op::Ctr => {
            if raw.is_null() || len != std::mem::size_of::<CK_AES_CTR_PARAMS>() {
                return Err(CKR_MECHANISM_PARAM_INVALID);
            }
            // SAFETY: a CK_AES_CTR_PARAMS of the checked size at a non-null pointer.
            let ctr = unsafe { raw.cast::<CK_AES_CTR_PARAMS>().read_unaligned() };
            Ok(Params::Ctr {
                counter_bits: u32::try_from(ctr.ulCounterBits).unwrap_or(0),
                block: ctr.cb,
            })
        }
        _ if len == 0 => Ok(Params::None),
        _ => {
            // SAFETY: `len` bytes at the parameter.
            let iv = unsafe { input(raw.cast::<u8>(), len as CK_ULONG) }
                .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
            Ok(Params::Iv(iv.to_vec()))
        }
    }
}

unsafe fn crypt_init(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    direction: Direction,
) -> Rv {
    state::with(|library| {
        // SAFETY: the caller's mechanism.
        let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
        let active = match direction {
            Direction::Encrypt => library.session(session)?.encrypt.is_some(),
            Direction::Decrypt => library.session(session)?.decrypt.is_some(),
        };
        if active {
            return Err(CKR_OPERATION_ACTIVE);
        }
        if mechanism.mechanism == sm2::CKM_ENCRYPT || mechanism.mechanism == CKM_RSA_PKCS_OAEP {
            let crypt = if mechanism.mechanism == CKM_RSA_PKCS_OAEP {
                oaep::crypt_init(library, session, mechanism, key, direction)?
            } else {
                sm2::crypt_init(library, session, mechanism, key, direction)?
            };
            let session = library.session(session)?;
            session.validation = 0;
            *crypt_op(session, direction) = Some(crypt);
            return Ok(());
        }
        let usage = match direction {
            Direction::Encrypt => CKA_ENCRYPT,
            Direction::Decrypt => CKA_DECRYPT,
        };
        let (key_type, value) = usable_key(library, session, key, usage)?;
        let (session_state, slot) = library.session_and_slot(session)?;
        let (algorithm, op) = mech::resolve(
            slot.module.policy(),
            mechanism.mechanism,
            Some((key_type, value.len())),
        )?;
        if matches!(
            op,
            mech::Op::Digest | mech::Op::Hmac | mech::Op::Cmac | mech::Op::Wrap { .. }
        ) {
            return Err(CKR_MECHANISM_INVALID);
        }
        // SAFETY: the mechanism's parameter, as the caller describes it.
        let params = unsafe { crypt_params(mechanism, op) }?;
        let crypt = if op == mech::Op::Gcm {
            // A decision that can change with the date is taken again at every bind.
            let cached = !slot.module.policy().decision_is_dated(algorithm);
            let bound = match session_state.gcm_keys.get(&(key, algorithm)) {
                Some(bound) if cached => bound.clone(),
                _ => {
                    let bound = ops::bind_gcm(&slot.module, algorithm, &value)?;
                    if cached {
                        session_state
                            .gcm_keys
                            .insert((key, algorithm), bound.clone());
                    }
                    bound
                }
            };
            CryptOp::gcm(&slot.module, algorithm, bound, params, direction)?
        } else {
            CryptOp::new(&slot.module, algorithm, op, &value, params, direction)?
        };
        session_state.validation = 0;
        match direction {
            Direction::Encrypt => session_state.encrypt = Some(crypt),
            Direction::Decrypt => session_state.decrypt = Some(crypt),
        }
        Ok(())
    })
}

fn crypt_op(session: &mut Session, direction: Direction) -> &mut Option<CryptOp> {
    match direction {
        Direction::Encrypt => &mut session.encrypt,
        Direction::Decrypt => &mut session.decrypt,
    }
}

/// What one call did to an operation: whether it ended it, and (when it completed an
/// operation) whether the policy approved it.
struct Step {
    ended: bool,
    approved: Option<bool>,
}

const GOES_ON: Step = Step {
    ended: false,
    approved: None,
};

/// Runs `f` on the session's operation; an error other than a length answer ends it.
fn on_crypt(
    session: CK_SESSION_HANDLE,
    direction: Direction,
    f: impl FnOnce(&mut CryptOp) -> Result<Step, CK_RV>,
) -> Rv {
    state::with(|library| {
        let session = library.session(session)?;
        let step = {
            let slot = crypt_op(session, direction);
            let op = slot.as_mut().ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
            let result = f(op);
            match &result {
                Ok(step) if step.ended => *slot = None,
                Err(rv) if *rv != CKR_BUFFER_TOO_SMALL => *slot = None,
                _ => {}
            }
            result?
        };
        if let Some(approved) = step.approved {
            session.validation = validation(approved);
        }
        Ok(())
    })
}

/// The caller's buffer length, read before [`room`] overwrites it with the bound.
unsafe fn capacity(output_len: *mut CK_ULONG) -> Result<CK_ULONG, CK_RV> {
    // SAFETY: as for `out`.
    Ok(*unsafe { out(output_len) }?)
}

/// Delivers a result computed on a copy of the operation (to learn an exact length): when it
/// was written, the copy's completion stands for the operation's. `capacity` is the caller's
/// buffer length as it was before [`room`] replaced it by the bound: the exact result is
/// checked against the buffer, never against the bound (which may exceed the buffer).
unsafe fn deliver_copy(
    output: *mut u8,
    output_len: *mut CK_ULONG,
    capacity: CK_ULONG,
    done: ops::Done,
) -> Result<Step, CK_RV> {
    // SAFETY: `room` checked that `output_len` is non-null.
    unsafe { *output_len = capacity };
    // SAFETY: the caller's output and its length.
    let written = unsafe { deliver(output, output_len, &done.output) }?;
    Ok(Step {
        ended: written,
        approved: written.then_some(done.approved),
    })
}

/// Whether the caller's output (`len` bytes at `output`) overlaps its input: PKCS#11 lets both
/// be one buffer, and then the result is made apart and copied.
fn overlaps(input: &[u8], output: *mut u8, len: usize) -> bool {
    let (start, end) = (
        input.as_ptr() as usize,
        input.as_ptr() as usize + input.len(),
    );
    let (out_start, out_end) = (output as usize, output as usize + len);
    start < out_end && out_start < end
}

unsafe fn crypt_single(
    session: CK_SESSION_HANDLE,
    direction: Direction,
    data: *mut u8,
    data_len: CK_ULONG,
    output: *mut u8,
    output_len: *mut CK_ULONG,
) -> Rv {
    // SAFETY: the caller's input.
    let data = unsafe { input(data, data_len) }?;
    on_crypt(session, direction, |op| {
        let bound = op.single_len_bound(data.len())?;
        // SAFETY: the caller's output length.
        let capacity = unsafe { capacity(output_len) }?;
        // SAFETY: the caller's output and its length.
        let fits = unsafe { room(output, output_len, bound) };
        let done = match fits {
            Ok(true) if op.bound_is_exact() && !overlaps(data, output, bound) => {
                // SAFETY: `room` checked that the caller's buffer holds `bound` bytes, and it
                // does not overlap the input.
                let out = unsafe { std::slice::from_raw_parts_mut(output, bound) };
                match op.single_into(data, out)? {
                    Some(approved) => {
                        // SAFETY: `room` checked that `output_len` is non-null.
                        unsafe { *output_len = bound as CK_ULONG };
                        return Ok(Step {
                            ended: true,
                            approved: Some(approved),
                        });
                    }
                    None => op.single(data)?,
                }
            }
            Ok(true) => op.single(data)?,
            // Too small for the bound, or a length query, where the bound is not the exact
            // length: the result is computed on a copy so that the operation goes on.
            _ if !op.bound_is_exact() => {
                let mut copy = op.try_clone().ok_or(CKR_FUNCTION_FAILED)?;
                let done = copy.single(data)?;
                // SAFETY: as above.
                return unsafe { deliver_copy(output, output_len, capacity, done) };
            }
            Ok(false) => return Ok(GOES_ON),
            Err(rv) => return Err(rv),
        };
        // SAFETY: as above; the room was checked.
        unsafe { deliver(output, output_len, &done.output) }?;
        Ok(Step {
            ended: true,
            approved: Some(done.approved),
        })
    })
}

unsafe fn crypt_update(
    session: CK_SESSION_HANDLE,
    direction: Direction,
    data: *mut u8,
    data_len: CK_ULONG,
    output: *mut u8,
    output_len: *mut CK_ULONG,
) -> Rv {
    // SAFETY: the caller's input.
    let data = unsafe { input(data, data_len) }?;
    on_crypt(session, direction, |op| {
        let needed = op.update_len(data.len());
        // SAFETY: the caller's output and its length.
        if !unsafe { room(output, output_len, needed) }? {
            return Ok(GOES_ON);
        }
        let mut buffer = Zeroizing::new(vec![0u8; needed]);
        let written = op.update(data, &mut buffer)?;
        // SAFETY: as above; the room was checked.
        unsafe { deliver(output, output_len, &buffer[..written]) }?;
        Ok(GOES_ON)
    })
}

unsafe fn crypt_final(
    session: CK_SESSION_HANDLE,
    direction: Direction,
    output: *mut u8,
    output_len: *mut CK_ULONG,
) -> Rv {
    on_crypt(session, direction, |op| {
        let bound = op.final_len_bound()?;
        // SAFETY: the caller's output length.
        let capacity = unsafe { capacity(output_len) }?;
        // SAFETY: the caller's output and its length.
        let fits = unsafe { room(output, output_len, bound) };
        let done = match fits {
            Ok(true) => op.finish()?,
            _ if !op.bound_is_exact() => {
                let mut copy = op.try_clone().ok_or(CKR_FUNCTION_FAILED)?;
                let done = copy.finish()?;
                // SAFETY: as above.
                return unsafe { deliver_copy(output, output_len, capacity, done) };
            }
            Ok(false) => return Ok(GOES_ON),
            Err(rv) => return Err(rv),
        };
        // SAFETY: as above; the room was checked.
        unsafe { deliver(output, output_len, &done.output) }?;
        Ok(Step {
            ended: true,
            approved: Some(done.approved),
        })
    })
}

macro_rules! crypt_entry_points {
    ($direction:expr, $init:ident, $single:ident, $update:ident, $final:ident) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $init(
            session: CK_SESSION_HANDLE,
            mechanism: *mut CK_MECHANISM,
            key: CK_OBJECT_HANDLE,
        ) -> CK_RV {
            // SAFETY: the caller's arguments, passed on.
            guard(|| unsafe { crypt_init(session, mechanism, key, $direction) })
        }

        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $single(
            session: CK_SESSION_HANDLE,
            data: *mut CK_BYTE,
            data_len: CK_ULONG,
            output: *mut CK_BYTE,
            output_len: *mut CK_ULONG,
        ) -> CK_RV {
            // SAFETY: the caller's arguments, passed on.
            guard(|| unsafe {
                crypt_single(session, $direction, data, data_len, output, output_len)
            })
        }

        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $update(
            session: CK_SESSION_HANDLE,
            data: *mut CK_BYTE,
            data_len: CK_ULONG,
            output: *mut CK_BYTE,
            output_len: *mut CK_ULONG,
        ) -> CK_RV {
            // SAFETY: the caller's arguments, passed on.
            guard(|| unsafe {
                crypt_update(session, $direction, data, data_len, output, output_len)
            })
        }

        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $final(
            session: CK_SESSION_HANDLE,
            output: *mut CK_BYTE,
            output_len: *mut CK_ULONG,
        ) -> CK_RV {
            // SAFETY: the caller's arguments, passed on.
            guard(|| unsafe { crypt_final(session, $direction, output, output_len) })
        }
    };
}

crypt_entry_points!(
    Direction::Encrypt,
    C_EncryptInit,
    C_Encrypt,
    C_EncryptUpdate,
    C_EncryptFinal
);
crypt_entry_points!(
    Direction::Decrypt,
    C_DecryptInit,
    C_Decrypt,
    C_DecryptUpdate,
    C_DecryptFinal
);

// ---- Digests --------------------------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_DigestInit(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's mechanism.
            let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
            let (session, slot) = library.session_and_slot(session)?;
            if session.digest.is_some() {
                return Err(CKR_OPERATION_ACTIVE);
            }
            let (algorithm, op) = mech::resolve(slot.module.policy(), mechanism.mechanism, None)?;
            if op != mech::Op::Digest {
                return Err(CKR_MECHANISM_INVALID);
            }
            if mechanism.ulParameterLen != 0 {
                return Err(CKR_MECHANISM_PARAM_INVALID);
            }
            session.digest = Some(DigestOp::new(&slot.module, algorithm)?);
            session.validation = 0;
            Ok(())
        })
    })
}

/// Ends the session's digest with its result delivered, or answers the output length.
unsafe fn digest_finish(session: &mut Session, output: *mut u8, output_len: *mut CK_ULONG) -> Rv {
    let op = session
        .digest
        .as_ref()
        .ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
    // SAFETY: the caller's output and its length.
    match unsafe { room(output, output_len, op.output_len) } {
        Ok(true) => {}
        Ok(false) => return Ok(()),
        Err(rv) => return Err(rv),
    }
    let op = session.digest.take().ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
    let done = op.finish()?;
    // SAFETY: as above; the room was checked.
    unsafe { deliver(output, output_len, &done.output) }?;
    session.validation = validation(done.approved);
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_Digest(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    data_len: CK_ULONG,
    output: *mut CK_BYTE,
    output_len: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let session = library.session(session)?;
            // SAFETY: the caller's input.
            let data = match unsafe { input(data, data_len) } {
                Ok(data) => data,
                Err(rv) => {
                    session.digest = None;
                    return Err(rv);
                }
            };
            let op = session
                .digest
                .as_ref()
                .ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
            // SAFETY: the caller's output and its length.
            if !unsafe { room(output, output_len, op.output_len) }? {
                return Ok(());
            }
            if let Some(op) = session.digest.as_mut() {
                op.update(data);
            }
            // SAFETY: as above.
            unsafe { digest_finish(session, output, output_len) }
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_DigestUpdate(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    data_len: CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let session = library.session(session)?;
            let op = session
                .digest
                .as_mut()
                .ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
            // SAFETY: the caller's input.
            match unsafe { input(data, data_len) } {
                Ok(data) => {
                    op.update(data);
                    Ok(())
                }
                Err(rv) => {
                    session.digest = None;
                    Err(rv)
                }
            }
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_DigestFinal(
    session: CK_SESSION_HANDLE,
    output: *mut CK_BYTE,
    output_len: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            let session = library.session(session)?;
            // SAFETY: the caller's output.
            let result = unsafe { digest_finish(session, output, output_len) };
            if result.is_err_and(|rv| rv != CKR_BUFFER_TOO_SMALL) {
                session.digest = None;
            }
            result
        })
    })
}

// ---- MACs: C_Sign and C_Verify --------------------------------------------------------------

unsafe fn mac_init(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    signs: bool,
) -> Rv {
    state::with(|library| {
        // SAFETY: the caller's mechanism.
        let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
        {
            let session = library.session(session)?;
            if (signs && session.sign.is_some()) || (!signs && session.verify.is_some()) {
                return Err(CKR_OPERATION_ACTIVE);
            }
        }
        let usage = if signs { CKA_SIGN } else { CKA_VERIFY };
        let found = visible(library, session, key).map_err(|_| CKR_KEY_HANDLE_INVALID)?;
        let (class, ml_dsa) = (found.class, found.ml_dsa.is_some());
        let rsa = class != CKO_SECRET_KEY && found.key_type == CKK_RSA;
        if ml_dsa || rsa {
            let op = if rsa {
                rsa::sign_init(library, session, mechanism, key, signs)?
            } else {
                mldsa::sign_init(library, session, mechanism, key, signs)?
            };
            let session = library.session(session)?;
            session.validation = 0;
            if signs {
                session.sign = Some(op);
            } else {
                session.verify = Some(op);
            }
            return Ok(());
        }
        if class != CKO_SECRET_KEY {
            return ecdsa_init(library, session, mechanism, key, signs);
        }
        let (key_type, value) = usable_key(library, session, key, usage)?;
        let (session, slot) = library.session_and_slot(session)?;
        let (algorithm, op) = mech::resolve(
            slot.module.policy(),
            mechanism.mechanism,
            Some((key_type, value.len())),
        )?;
        if !matches!(op, mech::Op::Hmac | mech::Op::Cmac) {
            return Err(CKR_MECHANISM_INVALID);
        }
        if mechanism.ulParameterLen != 0 {
            return Err(CKR_MECHANISM_PARAM_INVALID);
        }
        let mac = SignOp::Mac(MacOp::new(&slot.module, algorithm, &value)?);
        session.validation = 0;
        if signs {
            session.sign = Some(mac);
        } else {
            session.verify = Some(mac);
        }
        Ok(())
    })
}

/// `C_SignInit` / `C_VerifyInit` with an EC key: a private key signs, a public key verifies.
/// What a sign or verify init takes from its key object: a private key permitted `CKA_SIGN`
/// (`signs`) gives its PKCS#8, open only while the user is logged in; a public key permitted
/// `CKA_VERIFY` gives none. Both give the public key (an EC point, an ML-DSA key).
fn signature_key(object: &Object, signs: bool) -> Result<SignatureKey, CK_RV> {
    let (usage, class) = if signs {
        (CKA_SIGN, CKO_PRIVATE_KEY)
    } else {
        (CKA_VERIFY, CKO_PUBLIC_KEY)
    };
    if object.class != class {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    if !object.flag(usage) {
        return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
    }
    let pkcs8 = if signs {
        Some(object.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?)
    } else {
        None
    };
    Ok(SignatureKey {
        pkcs8,
        public: object.point.clone(),
    })
}

struct SignatureKey {
    pkcs8: Option<Zeroizing<Vec<u8>>>,
    public: Vec<u8>,
}

fn ecdsa_init(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    signs: bool,
) -> Rv {
    let object = visible(library, session, key).map_err(|_| CKR_KEY_HANDLE_INVALID)?;
    let curve = object.curve.ok_or(CKR_KEY_TYPE_INCONSISTENT)?;
    if curve == ec::Curve::Sm2 {
        let op = sm2::sign_init(library, session, mechanism, key, signs)?;
        let session = library.session(session)?;
        session.validation = 0;
        *mac_op(session, signs) = Some(op);
        return Ok(());
    }
    let SignatureKey {
        pkcs8,
        public: point,
    } = signature_key(object, signs)?;
    let (session, slot) = library.session_and_slot(session)?;
    mech::resolve_ecdsa(slot.module.policy(), mechanism.mechanism, curve)?;
    if mechanism.ulParameterLen != 0 {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // Raw ECDSA over the caller's hash signs only (the slot lists it so).
    let prehashed = mechanism.mechanism == CKM_ECDSA;
    if prehashed && !signs {
        return Err(CKR_MECHANISM_INVALID);
    }
    let op = match pkcs8 {
        Some(pkcs8) => {
            // The key's policy decision is taken at import. ECDSA's is dated (NIST IR 8547's
            // transitions), so a kept key serves only on the day it was imported.
            let dated = slot.module.policy().decision_is_dated(curve.ecdsa());
            let today = regula::policy::Date::today();
            let bound = match session.signing_keys.get(&key) {
                Some((bound, day)) if !dated || *day == today => bound.clone(),
                _ => {
                    let bound = ops::bind_ecdsa_signer(&slot.module, curve, &pkcs8)?;
                    session.signing_keys.insert(key, (bound.clone(), today));
                    bound
                }
            };
            ops::EcdsaOp::signer(&slot.module, curve, bound, prehashed)
        }
        None => ops::EcdsaOp::verifier(&slot.module, curve, &point),
    };
    session.validation = 0;
    if signs {
        session.sign = Some(SignOp::Ecdsa(op));
    } else {
        session.verify = Some(SignOp::Ecdsa(op));
    }
    Ok(())
}

fn mac_op(session: &mut Session, signs: bool) -> &mut Option<SignOp> {
    if signs {
        &mut session.sign
    } else {
        &mut session.verify
    }
}

/// Feeds data to the session's MAC; a bad pointer ends the operation.
unsafe fn mac_update(
    session: CK_SESSION_HANDLE,
    data: *mut u8,
    data_len: CK_ULONG,
    signs: bool,
) -> Rv {
    state::with(|library| {
        let slot = mac_op(library.session(session)?, signs);
        let op = slot.as_mut().ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
        // SAFETY: the caller's input.
        match unsafe { input(data, data_len) } {
            Ok(data) => {
                op.update(data);
                Ok(())
            }
            Err(rv) => {
                *slot = None;
                Err(rv)
            }
        }
    })
}

unsafe fn sign_final(session: CK_SESSION_HANDLE, output: *mut u8, output_len: *mut CK_ULONG) -> Rv {
    state::with(|library| {
        let session = library.session(session)?;
        let op = session.sign.as_ref().ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
        // SAFETY: the caller's output and its length.
        match unsafe { room(output, output_len, op.output_len()) } {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(rv) => return Err(rv),
        }
        let op = session.sign.take().ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
        let done = op.sign()?;
        // SAFETY: as above; the room was checked.
        unsafe { deliver(output, output_len, &done.output) }?;
        session.validation = validation(done.approved);
        Ok(())
    })
}

unsafe fn verify_final(
    session: CK_SESSION_HANDLE,
    signature: *mut u8,
    signature_len: CK_ULONG,
) -> Rv {
    state::with(|library| {
        let session = library.session(session)?;
        let op = session.verify.take().ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
        // SAFETY: the caller's signature.
        let signature = unsafe { input(signature, signature_len) }?;
        let approved = op.verify(signature)?;
        session.validation = validation(approved);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_SignInit(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
) -> CK_RV {
    // SAFETY: the caller's arguments, passed on.
    guard(|| unsafe { mac_init(session, mechanism, key, true) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_Sign(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    data_len: CK_ULONG,
    signature: *mut CK_BYTE,
    signature_len: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        // A length query must not take the data in: only the final call does.
        let output_len = state::with(|library| {
            let op = library
                .session(session)?
                .sign
                .as_ref()
                .ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
            Ok(op.output_len())
        })?;
        // SAFETY: the caller's output and its length.
        match unsafe { room(signature, signature_len, output_len) } {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(rv) => return Err(rv),
        }
        // SAFETY: the caller's arguments, passed on.
        unsafe { mac_update(session, data, data_len, true) }?;
        // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
        unsafe { sign_final(session, signature, signature_len) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_SignUpdate(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    data_len: CK_ULONG,
) -> CK_RV {
    // SAFETY: the caller's arguments, passed on.
    guard(|| unsafe { mac_update(session, data, data_len, true) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_SignFinal(
    session: CK_SESSION_HANDLE,
    signature: *mut CK_BYTE,
    signature_len: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        // SAFETY: the caller's arguments, passed on.
        let result = unsafe { sign_final(session, signature, signature_len) };
        if result.is_err_and(|rv| rv != CKR_BUFFER_TOO_SMALL) {
            let _ = state::with(|library| {
                library.session(session)?.sign = None;
                Ok(())
            });
        }
        result
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_VerifyInit(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
) -> CK_RV {
    // SAFETY: the caller's arguments, passed on.
    guard(|| unsafe { mac_init(session, mechanism, key, false) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_Verify(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    data_len: CK_ULONG,
    signature: *mut CK_BYTE,
    signature_len: CK_ULONG,
) -> CK_RV {
    guard(|| {
        // SAFETY: the caller's arguments, passed on.
        unsafe { mac_update(session, data, data_len, false) }?;
        // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
        unsafe { verify_final(session, signature, signature_len) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_VerifyUpdate(
    session: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    data_len: CK_ULONG,
) -> CK_RV {
    // SAFETY: the caller's arguments, passed on.
    guard(|| unsafe { mac_update(session, data, data_len, false) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_VerifyFinal(
    session: CK_SESSION_HANDLE,
    signature: *mut CK_BYTE,
    signature_len: CK_ULONG,
) -> CK_RV {
    // SAFETY: the caller's arguments, passed on.
    guard(|| unsafe { verify_final(session, signature, signature_len) })
}

// ---- Key derivation (ECDH) and key wrapping (AES-KW, AES-KWP) -------------------------------

/// The peer's public point of `CK_ECDH1_DERIVE_PARAMS`, with the key derivation function
/// `CKD_NULL` and no shared data (the secret's leftmost bytes are the key).
unsafe fn ecdh_peer(mechanism: &CK_MECHANISM) -> Result<Vec<u8>, CK_RV> {
    let raw = mechanism.pParameter;
    if raw.is_null() || mechanism.ulParameterLen as usize != size_of::<CK_ECDH1_DERIVE_PARAMS>() {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: a CK_ECDH1_DERIVE_PARAMS of the checked size at a non-null pointer.
    let params = unsafe { raw.cast::<CK_ECDH1_DERIVE_PARAMS>().read_unaligned() };
    if params.kdf != CKD_NULL || params.ulSharedDataLen != 0 {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: the public data the parameters describe.
    let peer = unsafe { input(params.pPublicData, params.ulPublicDataLen) }
        .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    Ok(peer.to_vec())
}

/// `C_DeriveKey` with `CKM_ECDH1_DERIVE`: the base key is an EC private key with `CKA_DERIVE`;
/// the peer's point is raw (`04 ‖ x ‖ y`) or a DER OCTET STRING; the new secret key takes the
/// leftmost `CKA_VALUE_LEN` bytes of the shared secret Z (all of it when not given). HKDF and
/// SP 800-108 counter mode from a secret base key: [`kdf`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_DeriveKey(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    base_key: CK_OBJECT_HANDLE,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    key: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's mechanism, template and handle slot.
            let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let template = unsafe { template(attributes, count) }?;
            // SAFETY: as above.
            let key = unsafe { out(key) }?;
            if kdf::derives(mechanism.mechanism) {
                // SAFETY: the mechanism's parameter, as the caller describes it.
                *key = unsafe { kdf::derive(library, session, mechanism, base_key, &template) }?;
                return Ok(());
            }
            if sm2_exchange::derives(mechanism.mechanism) {
                // SAFETY: the mechanism's parameter, as the caller describes it.
                *key = unsafe {
                    sm2_exchange::derive(library, session, mechanism, base_key, &template)
                }?;
                return Ok(());
            }
            let (_, slot) = library.session_and_slot(session)?;
            slot.mechanisms
                .get(&mechanism.mechanism)
                .filter(|info| info.flags & CKF_DERIVE != 0)
                .ok_or(CKR_MECHANISM_INVALID)?;
            // SAFETY: the mechanism's parameter, as the caller describes it.
            let peer = unsafe { ecdh_peer(mechanism) }?;
            let base = visible_key(library, session, base_key)?;
            let curve = base
                .curve
                .filter(|_| base.class == CKO_PRIVATE_KEY)
                .ok_or(CKR_KEY_TYPE_INCONSISTENT)?;
            if !base.flag(CKA_DERIVE) {
                return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
            }
            // A token key's PKCS#8 is open only while the user is logged in.
            let pkcs8 = base.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?;
            let origin = base.derived_origin();
            let (_, slot) = library.session_and_slot(session)?;
            let algorithm = if mechanism.mechanism == sm2::CKM_ECDH {
                sm2::ecdh_algorithm(curve)?
            } else {
                mech::resolve_ecdh(slot.module.policy(), curve)?
            };
            let point = curve
                .point_of_ec_point(&peer)
                .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
            let wanted = object::read_template(&template, &origin)?;
            wanted.key_type.ok_or(CKR_TEMPLATE_INCOMPLETE)?;
            let scalar = curve.scalar_of_pkcs8(&pkcs8).ok_or(CKR_GENERAL_ERROR)?;
            let agreement = slot
                .module
                .agreement_key_from_private_bytes(algorithm, &scalar)
                .map_err(|error| ops::rv_of(&error, false))?
                .into_value();
            // A point off the curve is the caller's parameter at fault.
            let served = agreement.agree(&point).map_err(|error| match error {
                regula::Error::InvalidInput { .. } | regula::Error::KeyEncoding(_) => {
                    CKR_MECHANISM_PARAM_INVALID
                }
                error => ops::rv_of(&error, false),
            })?;
            let approved = served.is_approved();
            let secret = served.into_value();
            *key = keep_shared_secret(library, session, &wanted, &template, &origin, &secret)?;
            library.session(session)?.validation = validation(approved);
            Ok(())
        })
    })
}

/// A wrapping (`CKA_WRAP`) or unwrapping (`CKA_UNWRAP`) key, checked against `mechanism` and the
/// slot's policy: the algorithm, whether it pads (KWP), the key and whether it is trusted.
struct Kek {
    algorithm: regula::Algorithm,
    padded: bool,
    value: Zeroizing<Vec<u8>>,
    trusted: bool,
}

fn kek(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    handle: CK_OBJECT_HANDLE,
    wraps: bool,
) -> Result<Kek, CK_RV> {
    let (handle_invalid, type_inconsistent, size_range, usage) = if wraps {
        (
            CKR_WRAPPING_KEY_HANDLE_INVALID,
            CKR_WRAPPING_KEY_TYPE_INCONSISTENT,
            CKR_WRAPPING_KEY_SIZE_RANGE,
            CKA_WRAP,
        )
    } else {
        (
            CKR_UNWRAPPING_KEY_HANDLE_INVALID,
            CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT,
            CKR_UNWRAPPING_KEY_SIZE_RANGE,
            CKA_UNWRAP,
        )
    };
    let object = visible(library, session, handle).map_err(|rv| {
        if rv == CKR_OBJECT_HANDLE_INVALID {
            handle_invalid
        } else {
            rv
        }
    })?;
    if object.class != CKO_SECRET_KEY {
        return Err(type_inconsistent);
    }
    if !object.flag(usage) {
        return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
    }
    let (key_type, trusted) = (object.key_type, object.flag(CKA_TRUSTED));
    let value = object.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?;
    let (_, slot) = library.session_and_slot(session)?;
    let (algorithm, op) = mech::resolve(
        slot.module.policy(),
        mechanism.mechanism,
        Some((key_type, value.len())),
    )
    .map_err(|rv| match rv {
        CKR_KEY_TYPE_INCONSISTENT => type_inconsistent,
        CKR_KEY_SIZE_RANGE => size_range,
        rv => rv,
    })?;
    let mech::Op::Wrap { padded } = op else {
        return Err(CKR_MECHANISM_INVALID);
    };
    // The standard's default IV only: no parameter.
    if mechanism.ulParameterLen != 0 {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    Ok(Kek {
        algorithm,
        padded,
        value,
        trusted,
    })
}

/// `C_WrapKey` of a secret key with `CKM_AES_KEY_WRAP` (RFC 3394; keys of 16 bytes or more, a
/// multiple of 8) or `CKM_AES_KEY_WRAP_KWP` / `CKM_AES_KEY_WRAP_PAD` (RFC 5649). The key must
/// be extractable; one with `CKA_WRAP_WITH_TRUSTED` only under a key with `CKA_TRUSTED`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_WrapKey(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    wrapping_key: CK_OBJECT_HANDLE,
    key: CK_OBJECT_HANDLE,
    wrapped: *mut CK_BYTE,
    wrapped_len: *mut CK_ULONG,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's mechanism.
            let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
            let kek = kek(library, session, mechanism, wrapping_key, true)?;
            let target = visible_key(library, session, key)?;
            if target.class != CKO_SECRET_KEY {
                return Err(CKR_KEY_NOT_WRAPPABLE);
            }
            if !target.flag(CKA_EXTRACTABLE) {
                return Err(CKR_KEY_UNEXTRACTABLE);
            }
            if target.flag(CKA_WRAP_WITH_TRUSTED) && !kek.trusted {
                return Err(CKR_KEY_NOT_WRAPPABLE);
            }
            let value = target.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?;
            let len = value.len();
            let output_len = if kek.padded {
                len.div_ceil(8) * 8 + 8
            } else if len >= 16 && len.is_multiple_of(8) {
                len + 8
            } else {
                return Err(CKR_KEY_SIZE_RANGE);
            };
            // SAFETY: the caller's output and its length.
            if !unsafe { room(wrapped, wrapped_len, output_len) }? {
                return Ok(());
            }
            let (_, slot) = library.session_and_slot(session)?;
            let served = slot
                .module
                .cipher_key(kek.algorithm, &kek.value)
                .and_then(|cipher| cipher.encrypt(None, &value))
                .map_err(|error| ops::rv_of(&error, false))?;
            let approved = served.is_approved();
            let sealed = served.into_value().ciphertext;
            // SAFETY: as above; the room was checked.
            unsafe { deliver(wrapped, wrapped_len, &sealed) }?;
            library.session(session)?.validation = validation(approved);
            Ok(())
        })
    })
}

/// `C_UnwrapKey` into a new secret key (the template gives its class and type); a wrapped key
/// that fails the integrity check is `CKR_WRAPPED_KEY_INVALID`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_UnwrapKey(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    unwrapping_key: CK_OBJECT_HANDLE,
    wrapped: *mut CK_BYTE,
    wrapped_len: CK_ULONG,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    key: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's mechanism, wrapped key, template and handle slot.
            let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let wrapped = unsafe { input(wrapped, wrapped_len) }?;
            // SAFETY: as above.
            let template = unsafe { template(attributes, count) }?;
            // SAFETY: as above.
            let key = unsafe { out(key) }?;
            let kek = kek(library, session, mechanism, unwrapping_key, false)?;
            let shortest = if kek.padded { 16 } else { 24 };
            if wrapped.len() < shortest || !wrapped.len().is_multiple_of(8) {
                return Err(CKR_WRAPPED_KEY_LEN_RANGE);
            }
            let origin = Origin::Unwrapped;
            let wanted = object::read_template(&template, &origin)?;
            let key_type = wanted.key_type.ok_or(CKR_TEMPLATE_INCOMPLETE)?;
            let (_, slot) = library.session_and_slot(session)?;
            let served = slot
                .module
                .cipher_key(kek.algorithm, &kek.value)
                .and_then(|cipher| cipher.decrypt(&[], wrapped))
                .map_err(|error| match error {
                    regula::Error::AuthenticationFailed => CKR_WRAPPED_KEY_INVALID,
                    regula::Error::InvalidInput { .. } => CKR_WRAPPED_KEY_LEN_RANGE,
                    error => ops::rv_of(&error, true),
                })?;
            let approved = served.is_approved();
            let value = Zeroizing::new(served.into_value());
            if wanted.value_len.is_some_and(|len| len != value.len()) {
                return Err(CKR_TEMPLATE_INCONSISTENT);
            }
            *key = keep_key(
                library,
                session,
                key_type,
                value,
                wanted.private,
                wanted.token,
                &template,
                &origin,
            )?;
            library.session(session)?.validation = validation(approved);
            Ok(())
        })
    })
}
