//! Maps Regula's SM algorithms onto regula-sm, Regula's own SM implementations (constant-time,
//! CPU-dispatched SM4; SM3 from a vetted crate). Outside any FIPS boundary.

use crate::algorithm::{Algorithm, Family};
use crate::error::{Error, Result};

/// SM4 modes as the services expose them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sm4Mode {
    /// Whole blocks, no padding, no IV.
    Ecb,
    /// CBC with PKCS#7 padding.
    CbcPkcs7,
    Ctr,
    /// CBC with ciphertext stealing, variant CS3; at least one block.
    CbcCs3,
}

pub(crate) fn sm4_mode(algorithm: Algorithm) -> Result<Sm4Mode> {
    match algorithm {
        Algorithm::Sm4Ecb => Ok(Sm4Mode::Ecb),
        Algorithm::Sm4Cbc => Ok(Sm4Mode::CbcPkcs7),
        Algorithm::Sm4Ctr => Ok(Sm4Mode::Ctr),
        Algorithm::Sm4CbcCs3 => Ok(Sm4Mode::CbcCs3),
        other => Err(Error::WrongFamily {
            algorithm: other,
            expected: Family::Cipher,
        }),
    }
}

/// What serves an SM algorithm on this machine, for `regula info` (`sm4-gfni-avx512`, …).
pub fn implementation(algorithm: Algorithm) -> String {
    match algorithm {
        Algorithm::Sm4Gcm => format!(
            "regula-sm {} + GHASH (RustCrypto ghash)",
            regula_sm::sm4::backend::active().name()
        ),
        Algorithm::Sm4Ecb
        | Algorithm::Sm4Cbc
        | Algorithm::Sm4Ctr
        | Algorithm::Sm4Ccm
        | Algorithm::Sm4Xts
        | Algorithm::Sm4XtsGb
        | Algorithm::Sm4CbcCs3
        | Algorithm::Sm4Cmac
        | Algorithm::Sm4XcbcMac
        | Algorithm::Sm4CbcMac => {
            format!("regula-sm {}", regula_sm::sm4::backend::active().name())
        }
        Algorithm::HmacSm3 => "regula-sm (HMAC and SM3 from RustCrypto)".to_string(),
        _ => "regula-sm (SM3 from RustCrypto sm3)".to_string(),
    }
}
