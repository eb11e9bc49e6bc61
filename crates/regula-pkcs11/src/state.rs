//! The library's state: slots (one per configured token), sessions and session objects, behind
//! one mutex (`CKF_OS_LOCKING_OK`: the library locks for itself). After `fork` the child sees
//! its parent's state as not initialized (the process id it was made in differs) and must call
//! `C_Initialize` again, which drops the copy.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use cryptoki_sys::*;
use regula::Module;

use crate::config;
use crate::object::Object;
use crate::ops::{BoundGcmKey, BoundSigningKey, CryptOp, DigestOp, SignOp};
use crate::store::Store;
use crate::validation::ValidationObject;
use crate::vault::{Suite, TokenKey};

/// The validation flag this token's slots report for an operation their policy approves
/// (`C_GetSessionValidationFlags`, `CKS_LAST_VALIDATION_OK`): bit 0, the slot's one validation
/// (FIPS 140-3 for a `fips-140-3` slot, GM/T for `gm`, the named policy otherwise).
pub const VALIDATION_FLAG_POLICY: CK_FLAGS = 0x1;

pub struct Slot {
    pub label: String,
    pub policy_name: String,
    pub module: Module,
    pub mechanisms: BTreeMap<CK_MECHANISM_TYPE, CK_MECHANISM_INFO>,
    /// The token's database.
    pub store: Store,
    pub suite: Suite,
    pub max_pin_attempts: u32,
    pub pbkdf2_iterations: u32,
    /// Who is logged in (`CKU_USER` or `CKU_SO`), for every session of the slot.
    pub login: Option<CK_USER_TYPE>,
    /// The token key, open while someone is logged in.
    pub token_key: Option<TokenKey>,
}

impl Slot {
    /// Whether the user is logged in (private objects are visible).
    pub fn user(&self) -> bool {
        self.login == Some(CKU_USER)
    }
}

/// A database failure as PKCS#11 sees it.
pub fn store_rv(_: rusqlite::Error) -> CK_RV {
    CKR_DEVICE_ERROR
}

pub struct Session {
    pub slot: usize,
    pub rw: bool,
    pub find: Option<Vec<CK_OBJECT_HANDLE>>,
    pub digest: Option<DigestOp>,
    pub sign: Option<SignOp>,
    pub verify: Option<SignOp>,
    pub encrypt: Option<CryptOp>,
    pub decrypt: Option<CryptOp>,
    /// The validation flags of the last completed cryptographic operation.
    pub validation: CK_FLAGS,
    /// GCM keys bound for this session's operations, by key object and algorithm; dropped
    /// (and wiped) with the session, the key object, or the login that made it usable.
    pub gcm_keys: HashMap<(CK_OBJECT_HANDLE, regula::Algorithm), BoundGcmKey>,
    /// EC private keys imported for this session's signatures, by key object, with the day
    /// of their import (the day their policy decision was taken); dropped like `gcm_keys`.
    pub signing_keys: HashMap<CK_OBJECT_HANDLE, (BoundSigningKey, regula::policy::Date)>,
}

pub struct Library {
    pid: u32,
    pub slots: Vec<Slot>,
    pub sessions: HashMap<CK_SESSION_HANDLE, Session>,
    pub objects: HashMap<CK_OBJECT_HANDLE, Object>,
    /// Each slot's validation object, if its policy follows a validation scheme; read only.
    pub validations: HashMap<CK_OBJECT_HANDLE, ValidationObject>,
    next_handle: CK_ULONG,
}

static LIBRARY: Mutex<Option<Library>> = Mutex::new(None);

/// The lock; a panic while it was held (caught at the entry point) does not make it unusable,
/// since every change to the state is made whole or not at all.
pub fn lock() -> MutexGuard<'static, Option<Library>> {
    LIBRARY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `f` on the library, if this process initialized it.
pub fn with<R>(f: impl FnOnce(&mut Library) -> Result<R, CK_RV>) -> Result<R, CK_RV> {
    let mut guard = lock();
    match guard.as_mut() {
        Some(library) if library.pid == std::process::id() => f(library),
        _ => Err(CKR_CRYPTOKI_NOT_INITIALIZED),
    }
}

/// `C_Initialize`: reads the configuration and loads one module per token.
pub fn initialize() -> Result<(), CK_RV> {
    let mut guard = lock();
    if let Some(library) = guard.as_ref()
        && library.pid == std::process::id()
    {
        return Err(CKR_CRYPTOKI_ALREADY_INITIALIZED);
    }
    // A parent's state copied by fork is dropped (and its keys wiped) here.
    *guard = None;
    let path = config::path();
    let config = config::load(&path).map_err(|error| {
        // What a user running pkcs11-tool would otherwise see is a bare CKR_GENERAL_ERROR; the
        // file holds no secret.
        eprintln!("{error}");
        CKR_GENERAL_ERROR
    })?;
    let mut slots = Vec::with_capacity(config.token.len());
    for token in config.token {
        let module = Module::load_named(&token.policy).map_err(|error| {
            eprintln!(
                "regula-pkcs11: configuration {}: token `{}`: policy `{}`: {error}",
                path.display(),
                token.label,
                token.policy
            );
            CKR_GENERAL_ERROR
        })?;
        let fail = |reason: String| {
            eprintln!(
                "regula-pkcs11: configuration {}: token `{}`: {reason}",
                path.display(),
                token.label
            );
            CKR_GENERAL_ERROR
        };
        let suite = crate::vault::suite(
            module.policy(),
            token.pbkdf2_iterations,
            crate::PIN_MIN,
            crate::PIN_MAX,
        )
        .map_err(|reason| fail(format!("policy `{}`: {reason}", token.policy)))?;
        let store =
            Store::open(&token.storage).map_err(|reason| fail(format!("storage {reason}")))?;
        if let Some(stored) = store
            .token()
            .map_err(|error| fail(format!("storage: {error}")))?
            && stored.aead != suite.aead.name()
        {
            return Err(fail(format!(
                "storage {} was made with {}, the policy `{}` seals with {}",
                token.storage.display(),
                stored.aead,
                token.policy,
                suite.aead.name()
            )));
        }
        slots.push(Slot {
            mechanisms: crate::mech::mechanisms(module.policy()),
            policy_name: module.policy().name().to_string(),
            label: token.label,
            module,
            store,
            suite,
            max_pin_attempts: token.max_pin_attempts,
            pbkdf2_iterations: token.pbkdf2_iterations,
            login: None,
            token_key: None,
        });
    }
    let validations: HashMap<CK_OBJECT_HANDLE, ValidationObject> = slots
        .iter()
        .enumerate()
        .filter_map(|(index, slot)| ValidationObject::for_slot(index, slot.module.policy()))
        .zip(1..)
        .map(|(validation, handle)| (handle, validation))
        .collect();
    *guard = Some(Library {
        pid: std::process::id(),
        slots,
        sessions: HashMap::new(),
        objects: HashMap::new(),
        next_handle: validations.len() as CK_ULONG + 1,
        validations,
    });
    Ok(())
}

/// `C_Finalize`.
pub fn finalize() -> Result<(), CK_RV> {
    let mut guard = lock();
    match guard.as_ref() {
        Some(library) if library.pid == std::process::id() => {
            *guard = None;
            Ok(())
        }
        _ => Err(CKR_CRYPTOKI_NOT_INITIALIZED),
    }
}

impl Library {
    pub fn handle(&mut self) -> CK_ULONG {
        let handle = self.next_handle;
        self.next_handle += 1;
        handle
    }

    pub fn slot(&self, id: CK_SLOT_ID) -> Result<&Slot, CK_RV> {
        usize::try_from(id)
            .ok()
            .and_then(|index| self.slots.get(index))
            .ok_or(CKR_SLOT_ID_INVALID)
    }

    pub fn session(&mut self, handle: CK_SESSION_HANDLE) -> Result<&mut Session, CK_RV> {
        self.sessions
            .get_mut(&handle)
            .ok_or(CKR_SESSION_HANDLE_INVALID)
    }

    /// A session and its slot, for operations.
    pub fn session_and_slot(
        &mut self,
        handle: CK_SESSION_HANDLE,
    ) -> Result<(&mut Session, &Slot), CK_RV> {
        let session = self
            .sessions
            .get_mut(&handle)
            .ok_or(CKR_SESSION_HANDLE_INVALID)?;
        let slot = session.slot;
        Ok((session, &self.slots[slot]))
    }

    /// Removes a session and the session objects it created.
    pub fn close_session(&mut self, handle: CK_SESSION_HANDLE) -> Result<(), CK_RV> {
        self.sessions
            .remove(&handle)
            .ok_or(CKR_SESSION_HANDLE_INVALID)?;
        let gone: Vec<CK_OBJECT_HANDLE> = self
            .objects
            .iter()
            .filter(|(_, object)| object.session == handle)
            .map(|(handle, _)| *handle)
            .collect();
        for object in gone {
            self.objects.remove(&object);
            self.forget_bound_keys(object);
        }
        Ok(())
    }

    /// Forgets every session's bound keys made from `object` (destroyed).
    pub fn forget_bound_keys(&mut self, object: CK_OBJECT_HANDLE) {
        for session in self.sessions.values_mut() {
            session.gcm_keys.retain(|(handle, _), _| *handle != object);
            session.signing_keys.remove(&object);
        }
    }

    pub fn sessions_on(&self, slot: usize) -> impl Iterator<Item = &Session> {
        self.sessions
            .values()
            .filter(move |session| session.slot == slot)
    }

    /// The ends of a login: the slot returns to the public state once its last session closes
    /// or on `C_Logout`; the private objects go with it, the token key is wiped, and the public
    /// token objects keep their attributes but not their values.
    pub fn logout(&mut self, slot: usize) {
        for session in self.sessions.values_mut() {
            if session.slot == slot {
                session.gcm_keys.clear();
                session.signing_keys.clear();
            }
        }
        self.slots[slot].login = None;
        self.slots[slot].token_key = None;
        self.objects
            .retain(|_, object| !(object.slot == slot && object.private));
        for object in self.objects.values_mut() {
            if object.slot == slot && object.token {
                object.value = None;
            }
        }
    }

    /// Brings the slot's token objects in memory up to date with its database (other processes
    /// create, change and destroy them): new rows get handles (their values opened when the
    /// token key is), changed rows their new attributes, and objects whose rows are gone (or
    /// that the session may no longer see) are dropped.
    pub fn refresh(&mut self, slot: usize) -> Result<(), CK_RV> {
        let Library {
            slots,
            objects,
            next_handle,
            ..
        } = self;
        let slot_state = &slots[slot];
        let rows = slot_state
            .store
            .objects(slot_state.user())
            .map_err(store_rv)?;
        let mut cached: HashMap<i64, CK_OBJECT_HANDLE> = objects
            .iter()
            .filter(|(_, object)| object.slot == slot)
            .filter_map(|(handle, object)| object.row.map(|row| (row, *handle)))
            .collect();
        for row in rows {
            let mut object = Object::from_record(slot, row.id, &row.record)?;
            if object.private != row.private {
                return Err(CKR_DEVICE_ERROR);
            }
            let handle = cached.remove(&row.id);
            let known = handle.and_then(|handle| objects.get_mut(&handle));
            object.value = known.and_then(|known| known.value.take());
            if object.value.is_none()
                && let Some(token_key) = &slot_state.token_key
            {
                object.set_value(token_key.open(row.id, CKA_VALUE, &row.nonce, &row.sealed)?)?;
            }
            let handle = handle.unwrap_or_else(|| {
                let handle = *next_handle;
                *next_handle += 1;
                handle
            });
            objects.insert(handle, object);
        }
        let gone: Vec<CK_OBJECT_HANDLE> = cached.into_values().collect();
        for handle in gone {
            self.objects.remove(&handle);
            self.forget_bound_keys(handle);
        }
        Ok(())
    }
}
