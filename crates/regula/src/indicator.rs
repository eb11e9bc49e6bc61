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

use std::ops::Deref;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

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
pub(crate) struct Counters {
    counts: Box<[AtomicU64]>,
    /// Per algorithm, the smallest key size (bits) a served request named; 0: none named.
    smallest_key_bits: Box<[AtomicU32]>,
}

impl Counters {
    pub(crate) fn new() -> Counters {
        Counters {
            counts: (0..Algorithm::COUNT * Service::COUNT * 2)
                .map(|_| AtomicU64::new(0))
                .collect(),
            smallest_key_bits: (0..Algorithm::COUNT).map(|_| AtomicU32::new(0)).collect(),
        }
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

    pub(crate) fn increment(&self, algorithm: Algorithm, service: Service, approval: Approval) {
        self.counts[Self::slot(algorithm, service, approval)].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> Vec<CounterRow> {
        let mut rows = Vec::new();
        for algorithm in Algorithm::ALL {
            for service in Service::ALL {
                let count = |approval| {
                    self.counts[Self::slot(algorithm, service, approval)].load(Ordering::Relaxed)
                };
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
