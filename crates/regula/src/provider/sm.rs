//! Maps Regula's SM algorithms onto regula-sm, Regula's own SM implementations (constant-time,
//! CPU-dispatched SM4; SM3 from a vetted crate). Outside any FIPS boundary.

use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family};
use crate::error::{Error, Result};

/// A key that must be exactly `N` bytes, copied into memory wiped on drop, for the backends
/// (regula-sm) that take fixed-size key arrays.
pub(crate) fn fixed_size_key<const N: usize>(
    algorithm: Algorithm,
    key: &[u8],
) -> Result<Zeroizing<[u8; N]>> {
    key.try_into().map(Zeroizing::new).map_err(|_| {
        Error::invalid_key(algorithm, format!("expected {N} bytes, got {}", key.len()))
    })
}

/// Refuses an SM4 service (`algorithm`) when `REGULA_SM4_BACKEND`, or for SM4-GCM
/// `REGULA_GHASH_BACKEND`, names an implementation this machine cannot run: a forced backend
/// is for measurement, and a run on another backend than the one named would mislead it.
pub(crate) fn forced_backends(algorithm: Algorithm) -> Result<()> {
    match forcing_error(algorithm) {
        Some(error) => Err(Error::invalid_input(format!(
            "{algorithm} refused: {error}"
        ))),
        None => Ok(()),
    }
}

/// The invalid forcing variable that `algorithm` depends on, if any.
fn forcing_error(algorithm: Algorithm) -> Option<regula_sm::sm4::backend::ForcedBackendError> {
    regula_sm::sm4::backend::selection().err().or_else(|| {
        (algorithm == Algorithm::Sm4Gcm)
            .then(|| regula_sm::sm4::modes::ghash_selection().err())
            .flatten()
    })
}

/// What `regula info` shows when a forcing variable is invalid (see [`forced_backends`]).
fn refused(algorithm: Algorithm) -> Option<String> {
    forcing_error(algorithm).map(|error| format!("refused: {error}"))
}

/// SM4 modes as the services expose them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sm4Mode {
    /// Whole blocks, no padding, no IV.
    Ecb,
    /// CBC with PKCS#7 padding.
    CbcPkcs7,
    Ctr,
    Ofb,
    /// CFB with 128-bit segments.
    Cfb,
    /// CBC with ciphertext stealing, variant CS3; at least one block.
    CbcCs3,
}

pub(crate) fn sm4_mode(algorithm: Algorithm) -> Result<Sm4Mode> {
    match algorithm {
        Algorithm::Sm4Ecb => Ok(Sm4Mode::Ecb),
        Algorithm::Sm4Cbc => Ok(Sm4Mode::CbcPkcs7),
        Algorithm::Sm4Ctr => Ok(Sm4Mode::Ctr),
        Algorithm::Sm4Ofb => Ok(Sm4Mode::Ofb),
        Algorithm::Sm4Cfb => Ok(Sm4Mode::Cfb),
        Algorithm::Sm4CbcCs3 => Ok(Sm4Mode::CbcCs3),
        other => Err(Error::WrongFamily {
            algorithm: other,
            expected: Family::Cipher,
        }),
    }
}

pub use regula_sm::sm2::KeyExchangeRole;

/// GM/T 0009-2012's default SM2 user ID, `1234567812345678`.
pub(crate) const SM2_DEFAULT_ID: &[u8] = regula_sm::sm2::DEFAULT_ID;

/// The module's generator (its internal random bits) in the form regula-sm's SM2 takes.
pub(crate) fn sm2_random(
    random: &mut impl FnMut(&mut [u8]) -> Result<()>,
) -> impl FnMut(&mut [u8]) -> std::result::Result<(), regula_sm::sm2::Error> + '_ {
    |out| random(out).map_err(|_| regula_sm::sm2::Error::Random)
}

/// An SM2 error as the module reports it: no secret, and the algorithm named.
pub(crate) fn sm2_error(algorithm: Algorithm, error: regula_sm::sm2::Error) -> Error {
    use regula_sm::sm2::Error as Sm2;
    match error {
        Sm2::BadSignature => Error::BadSignature,
        Sm2::DecryptionFailed | Sm2::ConfirmationFailed => Error::AuthenticationFailed,
        Sm2::InvalidPrivateKey | Sm2::InvalidPublicKey | Sm2::Encoding => {
            Error::invalid_key(algorithm, error.to_string())
        }
        Sm2::IdTooLong | Sm2::EmptyMessage | Sm2::InvalidLength => {
            Error::invalid_input(error.to_string())
        }
        _ => Error::CryptoFailure,
    }
}

/// What serves an SM algorithm on this machine, for `regula info` (`sm4-gfni-avx512`, …).
pub fn implementation(algorithm: Algorithm) -> String {
    if let Some(refusal) = sm4_algorithm(algorithm)
        .then(|| refused(algorithm))
        .flatten()
    {
        return refusal;
    }
    match algorithm {
        Algorithm::Sm4Gcm => format!(
            "regula-sm {} + {}",
            regula_sm::sm4::backend::active().name(),
            regula_sm::sm4::modes::ghash_implementation()
        ),
        Algorithm::Sm4Ecb
        | Algorithm::Sm4Cbc
        | Algorithm::Sm4Ctr
        | Algorithm::Sm4Ofb
        | Algorithm::Sm4Cfb
        | Algorithm::Sm4Ccm
        | Algorithm::Sm4Xts
        | Algorithm::Sm4XtsGb
        | Algorithm::Sm4CbcCs3
        | Algorithm::Sm4Cmac
        | Algorithm::Sm4XcbcMac
        | Algorithm::Sm4CbcMac => {
            format!("regula-sm {}", regula_sm::sm4::backend::active().name())
        }
        Algorithm::HmacSm3 => format!(
            "regula-sm HMAC over {}; many messages: {}",
            regula_sm::sm3::backend::active().name(),
            regula_sm::sm3::many_backend::active().name()
        ),
        Algorithm::Sm3 => format!(
            "regula-sm {}; many messages: {}",
            regula_sm::sm3::backend::active().name(),
            regula_sm::sm3::many_backend::active().name()
        ),
        Algorithm::Sm2Sign => {
            "regula-sm: signing on RustCrypto sm2 field arithmetic, verification on regula-sm's curveSM2 field"
                .to_string()
        }
        Algorithm::Sm2Encrypt | Algorithm::Sm2Ecdh | Algorithm::Sm2KeyExchange => {
            "regula-sm on RustCrypto sm2 field arithmetic".to_string()
        }
        Algorithm::Sm3Drbg => format!(
            "regula-sm GM/T 0105 SM3 generator over {}",
            regula_sm::sm3::backend::active().name()
        ),
        Algorithm::Sm4CtrDrbg => format!(
            "regula-sm GM/T 0105 SM4 generator over {}",
            regula_sm::sm4::backend::active().name()
        ),
        _ => format!("regula-sm {}", regula_sm::sm3::backend::active().name()),
    }
}

/// The algorithms served by regula-sm's SM4.
fn sm4_algorithm(algorithm: Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::Sm4Ecb
            | Algorithm::Sm4Cbc
            | Algorithm::Sm4Ctr
            | Algorithm::Sm4Ofb
            | Algorithm::Sm4Cfb
            | Algorithm::Sm4Gcm
            | Algorithm::Sm4Ccm
            | Algorithm::Sm4Xts
            | Algorithm::Sm4XtsGb
            | Algorithm::Sm4CbcCs3
            | Algorithm::Sm4Cmac
            | Algorithm::Sm4XcbcMac
            | Algorithm::Sm4CbcMac
            | Algorithm::Sm4CtrDrbg
    )
}
