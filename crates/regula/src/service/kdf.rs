//! Key derivation: HKDF (SP 800-56C / RFC 5869) and PBKDF2 (SP 800-132).

use std::num::NonZeroU32;

use aws_lc_rs::{hkdf, pbkdf2};
use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::Usage;
use crate::provider::awslc::{self, KdfAlgorithm};

/// Output length for aws-lc-rs's HKDF expand.
struct OutputLen(usize);

impl hkdf::KeyType for OutputLen {
    fn len(&self) -> usize {
        self.0
    }
}

fn len_u32(len: usize) -> Option<u32> {
    Some(u32::try_from(len).unwrap_or(u32::MAX))
}

impl Module {
    /// HKDF extract-and-expand: `len` bytes from `secret`, `salt` and `info`.
    pub fn hkdf(
        &self,
        algorithm: Algorithm,
        secret: &[u8],
        salt: &[u8],
        info: &[u8],
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let usage = Usage {
            secret_bytes: len_u32(secret.len()),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let KdfAlgorithm::Hkdf(hkdf_algorithm) = awslc::kdf(algorithm)? else {
            return Err(Error::invalid_input(format!(
                "{algorithm} is not an HKDF algorithm"
            )));
        };
        // RFC 5869 §2.3: L ≤ 255·HashLen.
        let max = 255
            * hkdf_algorithm
                .hmac_algorithm()
                .digest_algorithm()
                .output_len();
        if len == 0 || len > max {
            return Err(Error::invalid_input(format!(
                "{algorithm} output length must be 1..={max} bytes, got {len}"
            )));
        }
        let mut output = Zeroizing::new(vec![0u8; len]);
        hkdf::Salt::new(hkdf_algorithm, salt)
            .extract(secret)
            .expand(&[info], OutputLen(len))
            .and_then(|okm| okm.fill(&mut output))
            .map_err(|_| Error::CryptoFailure)?;
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }

    /// PBKDF2: `len` bytes from `password` and `salt` with `iterations` rounds.
    pub fn pbkdf2(
        &self,
        algorithm: Algorithm,
        password: &[u8],
        salt: &[u8],
        iterations: u32,
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let usage = Usage {
            secret_bytes: len_u32(password.len()),
            salt_bytes: len_u32(salt.len()),
            iterations: Some(iterations),
            output_bytes: len_u32(len),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let KdfAlgorithm::Pbkdf2(pbkdf2_algorithm) = awslc::kdf(algorithm)? else {
            return Err(Error::invalid_input(format!(
                "{algorithm} is not a PBKDF2 algorithm"
            )));
        };
        let iterations = NonZeroU32::new(iterations)
            .ok_or_else(|| Error::invalid_input("PBKDF2 needs at least one iteration"))?;
        if len == 0 {
            return Err(Error::invalid_input(
                "PBKDF2 output length must be at least 1 byte",
            ));
        }
        let mut output = Zeroizing::new(vec![0u8; len]);
        pbkdf2::derive(*pbkdf2_algorithm, iterations, salt, password, &mut output);
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }
}
