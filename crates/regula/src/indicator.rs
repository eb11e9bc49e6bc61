//! The service indicator: for every operation, which algorithm and service ran, under which
//! policy, and whether that use was approved.
//!
//! Three views, all safe for async tasks that move between threads because none is
//! thread-local:
//! - per operation: every service returns [`Served<T>`], which carries its [`Indicator`];
//! - per scope: a [`crate::Module`] handle aggregates the operations made through it into an
//!   [`IndicatorState`] that stays `NotApproved` once any operation was not approved, until
//!   reset (Go's `fips140/indicator.go` semantics, held in a value instead of the goroutine);
//! - per module: [`Counters`], shared by every handle, for reports.
//!
//! An operation is recorded only after every check that can fail has passed, and exactly once:
//! services call providers directly, never another recording service, so an approved primitive
//! used inside a non-approved operation cannot make it look approved.

use std::cell::{Cell, RefCell};
use std::ops::Deref;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use serde::Serialize;

use crate::algorithm::{Algorithm, Service};
use crate::policy::Approval;

/// The record of one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Indicator {
    pub algorithm: Algorithm,
    pub service: Service,
    pub approval: Approval,
    /// Name of the policy the module was loaded with.
    pub policy: &'static str,
}

impl Indicator {
    pub fn is_approved(&self) -> bool {
        self.approval.is_approved()
    }
}

impl Serialize for Algorithm {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl Serialize for Service {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A service's result together with its indicator. Derefs to the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served<T> {
    value: T,
    indicator: Indicator,
}

impl<T> Served<T> {
    pub(crate) fn new(value: T, indicator: Indicator) -> Served<T> {
        Served { value, indicator }
    }

    pub fn indicator(&self) -> Indicator {
        self.indicator
    }

    pub fn is_approved(&self) -> bool {
        self.indicator.is_approved()
    }

    pub fn into_value(self) -> T {
        self.value
    }

    /// Splits into the value and its indicator.
    pub fn into_parts(self) -> (T, Indicator) {
        (self.value, self.indicator)
    }

    /// Transforms the result and keeps its indicator, for code built on the module that
    /// reshapes what a service returned (a layout, a truncation) without any cryptography of
    /// its own; an indicator can only come from the service that made it.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Served<U> {
        Served {
            value: f(self.value),
            indicator: self.indicator,
        }
    }
}

impl<T> Deref for Served<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

/// The aggregate over a scope's operations since its last reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IndicatorState {
    /// No operation yet.
    Unset,
    /// Every operation so far was approved.
    Approved,
    /// At least one operation was not approved (sticky until reset).
    NotApproved,
}

/// Sticky per-scope state; one atomic so that handles can be shared between threads.
#[derive(Debug, Default)]
pub(crate) struct ScopeState(AtomicU8);

const UNSET: u8 = 0;
const APPROVED: u8 = 1;
const NOT_APPROVED: u8 = 2;

impl ScopeState {
    #[inline]
    pub(crate) fn record(&self, approval: Approval) {
        let value = if approval.is_approved() {
            APPROVED
        } else {
            NOT_APPROVED
        };
        // Reading first keeps the common steady state free of writes to a shared cache line.
        if self.0.load(Ordering::Relaxed) < value {
            self.0.fetch_max(value, Ordering::Relaxed);
        }
    }

    pub(crate) fn get(&self) -> IndicatorState {
        match self.0.load(Ordering::Relaxed) {
            UNSET => IndicatorState::Unset,
            APPROVED => IndicatorState::Approved,
            _ => IndicatorState::NotApproved,
        }
    }

    pub(crate) fn reset(&self) {
        self.0.store(UNSET, Ordering::Relaxed);
    }
}

/// Operation counts per (algorithm, service, approval), shared by all handles of a module.
///
/// Counting must not slow a small operation: an atomic add is a locked instruction, which
/// waits for the thread's earlier stores and keeps the next operation from overlapping this
/// one (a 16-byte SHA-256 measured 0.81x raw AWS-LC with it, 1.00x without). So the counts are
/// sharded per thread: a thread owns one shard and increments its slots with a plain load
/// and store, which no other thread writes; threads beyond the owned shards share the last
/// one through atomic adds. A snapshot sums the shards (each count is read atomically, so a
/// concurrent snapshot may miss an operation in flight, never see a torn count).
pub(crate) struct Counters {
    shards: Box<[OnceLock<Box<[AtomicU64]>>]>,
    /// Per algorithm, the smallest key size (bits) a served request named; 0: none named.
    smallest_key_bits: Box<[AtomicU32]>,
}

/// Shards per module: `SHARDS − 1` owned by one thread each, the last shared.
const SHARDS: usize = 16;
const SLOTS: usize = Algorithm::COUNT * Service::COUNT * 2;

static FREE_SHARDS: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);
/// Not yet asked for a shard; `SHARDS − 1`: none free, use the shared one.
const UNASSIGNED: usize = usize::MAX;

/// Gives the shard back when the thread exits.
struct OwnedShard(usize);

impl Drop for OwnedShard {
    fn drop(&mut self) {
        CACHED_SHARD.with(|cached| cached.set(SHARDS - 1));
        FREE_SHARDS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(self.0);
    }
}

thread_local! {
    // Read on every count: a constant-initialised cell is one thread-relative load.
    static CACHED_SHARD: Cell<usize> = const { Cell::new(UNASSIGNED) };
    static OWNED_SHARD: RefCell<Option<OwnedShard>> = const { RefCell::new(None) };
}

/// The shard this thread owns, if any: an index taken on first use and given back when the
/// thread exits, so that thread pools that come and go keep finding owned shards.
#[inline]
fn thread_shard() -> Option<usize> {
    let cached = CACHED_SHARD.try_with(Cell::get).unwrap_or(SHARDS - 1);
    let index = if cached != UNASSIGNED {
        cached
    } else {
        assign_shard()
    };
    (index < SHARDS - 1).then_some(index)
}

/// A thread's first count: takes a free shard (or the shared one) and caches its index. Out of
/// line, so that the per-count path stays a leaf without register spills.
#[cold]
#[inline(never)]
fn assign_shard() -> usize {
    let reused = FREE_SHARDS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .pop();
    let index = reused.or_else(|| {
        NEXT_SHARD
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
                (next < SHARDS - 1).then_some(next + 1)
            })
            .ok()
    });
    // Registered for release at thread exit before it is used; if the thread is already being
    // torn down, the shard goes back at once and the shared one counts.
    let registered = index.is_some_and(|index| {
        OWNED_SHARD
            .try_with(|owned| *owned.borrow_mut() = Some(OwnedShard(index)))
            .is_ok()
    });
    let index = match index {
        Some(index) if registered => index,
        Some(index) => {
            FREE_SHARDS
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(index);
            SHARDS - 1
        }
        None => SHARDS - 1,
    };
    let _ = CACHED_SHARD.try_with(|cell| cell.set(index));
    index
}

impl Counters {
    pub(crate) fn new() -> Counters {
        Counters {
            shards: (0..SHARDS).map(|_| OnceLock::new()).collect(),
            smallest_key_bits: (0..Algorithm::COUNT).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    #[inline]
    fn shard(&self, index: usize) -> &[AtomicU64] {
        self.shards[index].get_or_init(|| (0..SLOTS).map(|_| AtomicU64::new(0)).collect())
    }

    pub(crate) fn note_key_bits(&self, algorithm: Algorithm, bits: u32) {
        if bits == 0 {
            return;
        }
        let slot = &self.smallest_key_bits[algorithm.index()];
        let _ = slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |known| {
            (known == 0 || bits < known).then_some(bits)
        });
    }

    pub(crate) fn smallest_key_bits(&self, algorithm: Algorithm) -> Option<u32> {
        match self.smallest_key_bits[algorithm.index()].load(Ordering::Relaxed) {
            0 => None,
            bits => Some(bits),
        }
    }

    fn slot(algorithm: Algorithm, service: Service, approval: Approval) -> usize {
        (algorithm.index() * Service::COUNT + service.index()) * 2
            + usize::from(approval.is_approved())
    }

    #[inline]
    pub(crate) fn increment(&self, algorithm: Algorithm, service: Service, approval: Approval) {
        let slot = Self::slot(algorithm, service, approval);
        match thread_shard() {
            Some(owned) => {
                // Only this thread writes its shard, so load-then-store loses no count.
                let count = &self.shard(owned)[slot];
                count.store(count.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            }
            None => {
                self.shard(SHARDS - 1)[slot].fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The count of one slot over all shards.
    fn count(&self, slot: usize) -> u64 {
        self.shards
            .iter()
            .filter_map(OnceLock::get)
            .map(|shard| shard[slot].load(Ordering::Relaxed))
            .sum()
    }

    pub(crate) fn snapshot(&self) -> Vec<CounterRow> {
        let mut rows = Vec::new();
        for algorithm in Algorithm::ALL {
            for service in Service::ALL {
                let count = |approval| self.count(Self::slot(algorithm, service, approval));
                let approved = count(Approval::Approved);
                let not_approved = count(Approval::NotApproved);
                if approved + not_approved > 0 {
                    rows.push(CounterRow {
                        algorithm,
                        service,
                        approved,
                        not_approved,
                    });
                }
            }
        }
        rows
    }
}

/// One line of [`crate::Module::counters`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CounterRow {
    pub algorithm: Algorithm,
    pub service: Service,
    pub approved: u64,
    pub not_approved: u64,
}
