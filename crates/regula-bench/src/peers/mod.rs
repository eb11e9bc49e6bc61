//! The peers measured beside Regula in the same run.

pub mod gnutls;
pub mod libcrypto;
pub mod openssl;
