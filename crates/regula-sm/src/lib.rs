//! Native implementations of the Chinese commercial cryptography ("SM") algorithms for Regula.
//!
//! - [`sm4`]: the SM4 block cipher (GB/T 32907-2016) with CPU-dispatched backends and its modes
//!   ([`sm4::modes`]): ECB, CBC (with and without PKCS#7), CTR, GCM and CCM (RFC 8998), XTS in
//!   both the IEEE 1619 and the GB/T 17964-2021 variants, CBC-CS3, and the MACs CMAC, XCBC-MAC
//!   and CBC-MAC.
//! - [`sm3`]: the SM3 hash (GB/T 32905-2016) and HMAC-SM3.
//! - [`drbg`]: the SM3- and SM4-based random bit generators of GM/T 0105-2021.
//! - [`sm2`]: SM2 public-key cryptography (GB/T 32918-2016): signatures with user ID,
//!   encryption, ECDH on curveSM2 and the SM2 key exchange, on constant-time field and point
//!   arithmetic specialised to curveSM2.
//!
//! The crate knows nothing about policies: approval decisions live in the `regula` core crate.

#![cfg_attr(
    any(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        sm4_backend = "soft"
    ),
    forbid(unsafe_code)
)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

pub mod drbg;
pub mod sm2;
pub mod sm3;
pub mod sm4;

pub use sm4::{Error, Sm4};
