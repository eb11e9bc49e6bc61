//! The key-derivation functions the KDF service runs: HKDF, PBKDF2 and KBKDF in counter mode,
//! all AWS-LC's.

use std::num::NonZeroU32;

use aws_lc_rs::{hkdf, kdf, pbkdf2};
use zeroize::Zeroizing;

use super::awslc::{self, KdfAlgorithm};
use super::awslc_sys::{self, Sha2};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};

/// Output length for aws-lc-rs's HKDF expand.
struct OutputLen(usize);

impl hkdf::KeyType for OutputLen {
    fn len(&self) -> usize {
        self.0
    }
}

/// HKDF with one hash.
pub(crate) struct Hkdf(hkdf::Algorithm, Sha2);

impl Hkdf {
    pub(crate) fn new(algorithm: Algorithm) -> Result<Hkdf> {
        let KdfAlgorithm::Hkdf(hkdf_algorithm) = awslc::kdf(algorithm)? else {
            return Err(Error::invalid_input(format!(
                "{algorithm} is not an HKDF algorithm"
            )));
        };
        let hash = match algorithm {
            Algorithm::HkdfSha256 => Sha2::Sha256,
            Algorithm::HkdfSha384 => Sha2::Sha384,
            _ => Sha2::Sha512,
        };
        Ok(Hkdf(hkdf_algorithm, hash))
    }

    /// HashLen: the length of a PRK.
    pub(crate) fn hash_len(&self) -> usize {
        self.1.output_len()
    }

    /// RFC 5869 §2.3: L ≤ 255·HashLen.
    pub(crate) fn max_output_len(&self) -> usize {
        255 * self.0.hmac_algorithm().digest_algorithm().output_len()
    }

    /// Extract and expand into `output` (its length checked).
    pub(crate) fn derive(
        &self,
        secret: &[u8],
        salt: &[u8],
        info: &[u8],
        output: &mut [u8],
    ) -> Result<()> {
        hkdf::Salt::new(self.0, salt)
            .extract(secret)
            .expand(&[info], OutputLen(output.len()))
            .and_then(|okm| okm.fill(output))
            .map_err(|_| Error::CryptoFailure)
    }

    /// HKDF-Extract alone (RFC 5869 §2.2): the PRK into `prk`, exactly [`Hkdf::hash_len`] bytes.
    pub(crate) fn extract(&self, secret: &[u8], salt: &[u8], prk: &mut [u8]) -> Result<()> {
        awslc_sys::hkdf_extract(self.1, secret, salt, prk).map_err(|_| Error::CryptoFailure)
    }

    /// HKDF-Expand alone (RFC 5869 §2.3) from a PRK given by the caller, into `output`.
    pub(crate) fn expand(&self, prk: &[u8], info: &[u8], output: &mut [u8]) -> Result<()> {
        hkdf::Prk::new_less_safe(self.0, prk)
            .expand(&[info], OutputLen(output.len()))
            .and_then(|okm| okm.fill(output))
            .map_err(|_| Error::CryptoFailure)
    }
}

/// PBKDF2 with one HMAC.
pub(crate) struct Pbkdf2(&'static pbkdf2::Algorithm);

impl Pbkdf2 {
    pub(crate) fn new(algorithm: Algorithm) -> Result<Pbkdf2> {
        let KdfAlgorithm::Pbkdf2(pbkdf2_algorithm) = awslc::kdf(algorithm)? else {
            return Err(Error::invalid_input(format!(
                "{algorithm} is not a PBKDF2 algorithm"
            )));
        };
        Ok(Pbkdf2(pbkdf2_algorithm))
    }

    pub(crate) fn derive(
        &self,
        iterations: NonZeroU32,
        salt: &[u8],
        password: &[u8],
        output: &mut [u8],
    ) {
        pbkdf2::derive(*self.0, iterations, salt, password, output);
    }
}

/// SP 800-108 KBKDF in counter mode with one HMAC PRF.
pub(crate) struct Kbkdf(&'static kdf::KbkdfCtrHmacAlgorithm);

impl Kbkdf {
    pub(crate) fn new(algorithm: Algorithm) -> Result<Kbkdf> {
        let KdfAlgorithm::Kbkdf(kbkdf_algorithm) = awslc::kdf(algorithm)? else {
            return Err(Error::invalid_input(format!(
                "{algorithm} is not a KBKDF algorithm"
            )));
        };
        Ok(Kbkdf(kbkdf_algorithm))
    }

    pub(crate) fn derive(&self, key: &[u8], fixed_input: &[u8], output: &mut [u8]) -> Result<()> {
        kdf::kbkdf_ctr_hmac(self.0, key, fixed_input, output).map_err(|_| Error::CryptoFailure)
    }
}

/// The TLS 1.2 PRF (RFC 5246 §5) with one hash: AWS-LC's `CRYPTO_tls1_prf`.
pub(crate) struct Tls12Prf(Sha2);

impl Tls12Prf {
    pub(crate) fn new(algorithm: Algorithm) -> Result<Tls12Prf> {
        match algorithm {
            Algorithm::Tls12PrfSha256 => Ok(Tls12Prf(Sha2::Sha256)),
            Algorithm::Tls12PrfSha384 => Ok(Tls12Prf(Sha2::Sha384)),
            other => Err(Error::invalid_input(format!(
                "{other} is not a TLS 1.2 PRF algorithm"
            ))),
        }
    }

    /// P_hash(secret, seed) into `output`; the seed is TLS's label ‖ seed, whole.
    pub(crate) fn derive(&self, secret: &[u8], seed: &[u8], output: &mut [u8]) -> Result<()> {
        awslc_sys::tls12_prf(self.0, secret, seed, output).map_err(|_| Error::CryptoFailure)
    }
}

/// PBKDF2 (RFC 8018 §5.2) with regula-sm's HMAC-SM3 as its PRF: `len` bytes.
pub(crate) fn pbkdf2_hmac_sm3(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    len: usize,
) -> Result<Zeroizing<Vec<u8>>> {
    let keyed = regula_sm::sm3::HmacSm3::new(password)
        .map_err(|error| Error::invalid_input(error.to_string()))?;
    let mut output = Zeroizing::new(Vec::with_capacity(len + 32));
    let mut block_index = 1u32;
    while output.len() < len {
        let mut first = keyed.clone();
        first.update(salt);
        first.update(&block_index.to_be_bytes());
        let mut u = Zeroizing::new(first.finalize());
        let mut t = u.clone();
        for _ in 1..iterations {
            let mut next = keyed.clone();
            next.update(&*u);
            *u = next.finalize();
            t.iter_mut().zip(u.iter()).for_each(|(t, u)| *t ^= u);
        }
        output.extend_from_slice(&*t);
        block_index = block_index
            .checked_add(1)
            .ok_or_else(|| Error::invalid_input("PBKDF2 output too long"))?;
    }
    output.truncate(len);
    Ok(output)
}
