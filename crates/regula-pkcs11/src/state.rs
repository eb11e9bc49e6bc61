//! The library's state: slots (one per configured token), sessions and session objects, behind
//! one mutex (`CKF_OS_LOCKING_OK`: the library locks for itself). After `fork` the child sees
//! its parent's state as not initialized (the process id it was made in differs) and must call
//! `C_Initialize` again, which drops the copy.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use cryptoki_sys::*;
use regula::Module;
use zeroize::Zeroizing;

use crate::config;
use crate::object::Object;
use crate::ops::{CryptOp, DigestOp, MacOp};

/// The validation flag this token's slots report for an operation their policy approves
/// (`C_GetSessionValidationFlags`, `CKS_LAST_VALIDATION_OK`): bit 0, the slot's one validation
/// (FIPS 140-3 for a `fips-140-3` slot, GM/T for `gm`, the named policy otherwise).
pub const VALIDATION_FLAG_POLICY: CK_FLAGS = 0x1;

pub struct Slot {
    pub label: String,
    pub policy_name: String,
    /// Recorded for the storage that a later version keeps token objects in.
    #[allow(dead_code)]
    pub storage: std::path::PathBuf,
    pub module: Module,
    pub mechanisms: BTreeMap<CK_MECHANISM_TYPE, CK_MECHANISM_INFO>,
    /// The user PIN, held in memory only: set by the first `C_Login` of this process (no token
    /// object is kept at rest yet, so there is nothing a PIN could protect across processes).
    pub user_pin: Option<Zeroizing<Vec<u8>>>,
    pub logged_in: bool,
}

pub struct Session {
    pub slot: usize,
    pub rw: bool,
    pub find: Option<Vec<CK_OBJECT_HANDLE>>,
    pub digest: Option<DigestOp>,
    pub sign: Option<MacOp>,
    pub verify: Option<MacOp>,
    pub encrypt: Option<CryptOp>,
    pub decrypt: Option<CryptOp>,
    /// The validation flags of the last completed cryptographic operation.
    pub validation: CK_FLAGS,
}

pub struct Library {
    pid: u32,
    pub slots: Vec<Slot>,
    pub sessions: HashMap<CK_SESSION_HANDLE, Session>,
    pub objects: HashMap<CK_OBJECT_HANDLE, Object>,
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
        slots.push(Slot {
            mechanisms: crate::mech::mechanisms(module.policy()),
            policy_name: module.policy().name().to_string(),
            label: token.label,
            storage: token.storage,
            module,
            user_pin: None,
            logged_in: false,
        });
    }
    *guard = Some(Library {
        pid: std::process::id(),
        slots,
        sessions: HashMap::new(),
        objects: HashMap::new(),
        next_handle: 1,
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
        self.objects.retain(|_, object| object.session != handle);
        Ok(())
    }

    pub fn sessions_on(&self, slot: usize) -> impl Iterator<Item = &Session> {
        self.sessions
            .values()
            .filter(move |session| session.slot == slot)
    }

    /// The ends of a login: the slot returns to the public state once its last session closes
    /// or on `C_Logout`, and the private session objects go with it.
    pub fn logout(&mut self, slot: usize) {
        self.slots[slot].logged_in = false;
        self.objects
            .retain(|_, object| !(object.slot == slot && object.private));
    }
}
