//! What the operation modules share with the provider: the provider context OpenSSL hands
//! back as `provctx`, the algorithm tables it answers `query_operation` from, and what each
//! operation offers. Kept apart from `provider.rs`, which builds them from the operation
//! modules, so that those modules do not depend on the provider's entry points.

use std::ffi::CString;
use std::os::raw::{c_int, c_void};
use std::path::PathBuf;

use regula::{Algorithm, Family, Module, registry};

use crate::ffi::{self, Dispatch};

/// What OpenSSL's `void *provctx` points to: one per loaded instance of the provider.
pub struct ProviderContext {
    pub module: Module,
    /// Where the CBOM of what the process used is written when the provider unloads.
    pub(crate) cbom: Option<PathBuf>,
    pub(crate) tables: Tables,
    /// `buildinfo` and the policy name, kept for `UTF8_PTR` requests.
    pub(crate) build: CString,
    pub(crate) policy_name: CString,
}

impl ProviderContext {
    /// # Safety
    /// `provctx` is the pointer `OSSL_provider_init` returned, not yet torn down.
    pub unsafe fn from_ptr<'a>(provctx: *mut c_void) -> Option<&'a ProviderContext> {
        // SAFETY: by the contract above, a live ProviderContext or null.
        unsafe { (provctx as *const ProviderContext).as_ref() }
    }
}

/// The `OSSL_ALGORITHM` lists, one per operation, with the strings they point to.
pub(crate) struct Tables {
    pub(crate) operations: Vec<(c_int, Vec<ffi::Algorithm>)>,
    /// Owns the names and property strings the lists point to.
    pub(crate) _strings: Vec<CString>,
}

// SAFETY: built once, then only read; the pointers point into `_strings` and 'static tables.
unsafe impl Send for Tables {}
// SAFETY: as above.
unsafe impl Sync for Tables {}

/// One algorithm offered under an operation: its OpenSSL names, whether the policy approves
/// it (`fips=yes`), and its dispatch table.
pub struct Offer {
    pub names: String,
    pub approved: bool,
    pub dispatch: &'static [Dispatch],
    pub description: String,
}

impl Offer {
    /// One offer for `rows` under the OpenSSL names of the first of them; none when no row is
    /// served (or the first has no OpenSSL name).
    pub fn named_by_first_row(
        policy: &regula::Policy,
        rows: &[&registry::Entry],
        what: impl std::fmt::Display,
        dispatch: &'static [Dispatch],
    ) -> Vec<Offer> {
        let Some(names) = rows
            .first()
            .and_then(|row| row.openssl.as_ref())
            .map(|name| name.names.to_owned())
        else {
            return Vec::new();
        };
        vec![Offer::for_rows(policy, rows, names, what, dispatch)]
    }

    /// One offer that serves `rows` (not empty) under `names`: approved when the policy approves
    /// any of them, and described as `what` with the rows' names.
    pub fn for_rows(
        policy: &regula::Policy,
        rows: &[&registry::Entry],
        names: String,
        what: impl std::fmt::Display,
        dispatch: &'static [Dispatch],
    ) -> Offer {
        Offer {
            names,
            approved: rows.iter().any(|row| policy.approves(row.algorithm)),
            dispatch,
            description: format!(
                "Regula {what} ({})",
                rows.iter()
                    .map(|row| row.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl Tables {
    pub(crate) fn for_operation(&self, operation: c_int) -> *const ffi::Algorithm {
        self.operations
            .iter()
            .find(|(id, _)| *id == operation)
            .map_or(std::ptr::null(), |(_, list)| list.as_ptr())
    }
}

/// Every row of `family` the policy serves that has OpenSSL names, for the `offers` of an
/// operation.
pub fn served_rows(
    policy: &regula::Policy,
    family: Family,
) -> impl Iterator<Item = &'static registry::Entry> + '_ {
    Algorithm::ALL.into_iter().filter_map(move |algorithm| {
        let row = registry::entry(algorithm);
        (row.family == family && row.openssl.is_some() && policy.serves(algorithm)).then_some(row)
    })
}
