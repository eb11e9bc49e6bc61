//! The service indicator of a context: whether its last operation was approved, answered as
//! `regula-approved` and as OpenSSL 3.4+'s `fips-indicator` context parameter.

use regula::Indicator;

use crate::params::{self, ParamResult, Params};

/// A context's last completed operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LastOperation {
    /// Nothing completed yet.
    #[default]
    None,
    Approved,
    NotApproved,
}

impl From<Indicator> for LastOperation {
    fn from(indicator: Indicator) -> LastOperation {
        if indicator.is_approved() {
            LastOperation::Approved
        } else {
            LastOperation::NotApproved
        }
    }
}

/// The indicator parameters every context offers.
pub static GETTABLE: params::ParamList = crate::param_list![
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

/// Answers the indicator parameters among `params`: `regula-approved` is 1, 0, or -1 before
/// any operation; `fips-indicator` is 1 only after an approved operation.
pub fn answer(last: LastOperation, params: &Params) -> ParamResult<()> {
    for mut param in params.iter() {
        match param.key {
            "regula-approved" => param.set_i64(match last {
                LastOperation::None => -1,
                LastOperation::Approved => 1,
                LastOperation::NotApproved => 0,
            })?,
            "fips-indicator" => param.set_i64(i64::from(last == LastOperation::Approved))?,
            _ => {}
        }
    }
    Ok(())
}
