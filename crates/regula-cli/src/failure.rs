//! How a command fails: one line for stderr and the documented exit code.

use regula::{Error, ErrorKind, PolicyFileError};

pub const CRYPTO_FAILURE: u8 = 1;
pub const INPUT_ERROR: u8 = 2;
pub const NOT_APPROVED: u8 = 3;
pub const MODULE_ERROR_STATE: u8 = 4;

#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn input(message: impl Into<String>) -> Failure {
        Failure {
            code: INPUT_ERROR,
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        let code = match error.kind() {
            ErrorKind::Cryptographic => CRYPTO_FAILURE,
            ErrorKind::Input => INPUT_ERROR,
            ErrorKind::NotApproved => NOT_APPROVED,
            ErrorKind::ModuleState => MODULE_ERROR_STATE,
        };
        Failure {
            code,
            message: error.to_string(),
        }
    }
}

impl From<PolicyFileError> for Failure {
    fn from(error: PolicyFileError) -> Failure {
        Failure::input(error.to_string())
    }
}
