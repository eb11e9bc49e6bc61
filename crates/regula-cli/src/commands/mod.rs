//! One file per command group.

pub mod acvp;
pub mod audit;
pub mod bench;
pub mod check;
pub mod cipher;
pub mod dgst;
pub mod file;
pub mod fscrypt;
pub mod info;
pub mod kdf;
pub mod mac;
pub mod policy;
pub mod selftest;
pub mod sign;
pub mod tls;
pub mod vectors;
