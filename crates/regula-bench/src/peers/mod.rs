//! The peers measured beside Regula in the same run.

pub mod gnutls;
#[cfg(feature = "libcrypto")]
pub mod libcrypto;
pub mod openssl;
