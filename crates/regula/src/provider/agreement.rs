//! Key-agreement keys for the agreement service: ECDH on the NIST curves and X25519 (aws-lc-rs),
//! ECDH on curveSM2 (regula-sm). The registry row's provider decides which backend serves an
//! algorithm.

use aws_lc_rs::agreement::{self, PrivateKey, UnparsedPublicKey};
use aws_lc_rs::encoding::{AsBigEndian, Curve25519SeedBin, EcPrivateKeyBin};
use regula_sm::sm2;
use zeroize::Zeroizing;

use super::awslc;
use super::awslc_sys::{self, NistCurve};
use super::sm::{sm2_error, sm2_random};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::registry::{self, Provider};

/// A private key-agreement key; AWS-LC and regula-sm wipe it on drop.
pub(crate) enum AgreementBackend {
    AwsLc(PrivateKey),
    /// Wiped on drop by regula-sm.
    Sm2(Box<sm2::PrivateKey>),
}

fn served_by_regula_sm(algorithm: Algorithm) -> bool {
    registry::entry(algorithm).provider == Provider::RegulaSm
}

impl AgreementBackend {
    /// Generates a key pair with the backend the registry row names.
    pub(crate) fn generate(
        algorithm: Algorithm,
        random: &mut impl FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<AgreementBackend> {
        if served_by_regula_sm(algorithm) {
            let key = sm2::PrivateKey::generate(&mut sm2_random(random))
                .map_err(|e| sm2_error(algorithm, e))?;
            return Ok(AgreementBackend::Sm2(Box::new(key)));
        }
        let aws_algorithm = awslc::agreement(algorithm)?;
        PrivateKey::generate(aws_algorithm)
            .map(AgreementBackend::AwsLc)
            .map_err(|_| Error::CryptoFailure)
    }

    /// Imports a private key: a big-endian scalar of the group's size or 32 bytes (X25519).
    pub(crate) fn from_private_bytes(
        algorithm: Algorithm,
        private_key: &[u8],
    ) -> Result<AgreementBackend> {
        let invalid = || Error::invalid_key(algorithm, "not a private key of this group");
        if served_by_regula_sm(algorithm) {
            let key = sm2::PrivateKey::from_bytes(private_key).map_err(|_| invalid())?;
            return Ok(AgreementBackend::Sm2(Box::new(key)));
        }
        PrivateKey::from_private_key(awslc::agreement(algorithm)?, private_key)
            .map(AgreementBackend::AwsLc)
            .map_err(|_| invalid())
    }

    /// The public key: an uncompressed point (ECDH) or 32 bytes (X25519).
    pub(crate) fn public_key(&self) -> Result<Vec<u8>> {
        match self {
            AgreementBackend::AwsLc(key) => {
                let public_key = key.compute_public_key().map_err(|_| Error::CryptoFailure)?;
                Ok(public_key.as_ref().to_vec())
            }
            AgreementBackend::Sm2(key) => Ok(key.public_key().to_uncompressed().to_vec()),
        }
    }

    /// The private key: a big-endian scalar (ECDH, curveSM2) or the 32-byte X25519 key.
    pub(crate) fn private_key_bytes(&self, algorithm: Algorithm) -> Result<Zeroizing<Vec<u8>>> {
        match self {
            AgreementBackend::AwsLc(key) if algorithm == Algorithm::X25519 => {
                let seed: Curve25519SeedBin<'static> =
                    key.as_be_bytes().map_err(|_| Error::CryptoFailure)?;
                Ok(Zeroizing::new(seed.as_ref().to_vec()))
            }
            AgreementBackend::AwsLc(key) => {
                let scalar: EcPrivateKeyBin<'static> =
                    key.as_be_bytes().map_err(|_| Error::CryptoFailure)?;
                Ok(Zeroizing::new(scalar.as_ref().to_vec()))
            }
            AgreementBackend::Sm2(key) => Ok(Zeroizing::new(key.to_bytes().to_vec())),
        }
    }

    /// The shared secret with a peer's raw public key.
    pub(crate) fn agree(
        &self,
        algorithm: Algorithm,
        peer_public_key: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        match self {
            AgreementBackend::AwsLc(key) => agreement::agree(
                key,
                UnparsedPublicKey::new(awslc::agreement(algorithm)?, peer_public_key),
                Error::invalid_input("peer public key is not a valid point for this group"),
                |secret| Ok(Zeroizing::new(secret.to_vec())),
            ),
            AgreementBackend::Sm2(key) => {
                let invalid =
                    |_| Error::invalid_input("peer public key is not a valid point of curveSM2");
                let peer = sm2::PublicKey::from_sec1(peer_public_key).map_err(invalid)?;
                let secret = sm2::ecdh(key, &peer).map_err(invalid)?;
                Ok(Zeroizing::new(secret.to_vec()))
            }
        }
    }

    /// The public key recomputed from the private key (SP 800-56A Rev. 3 §5.6.2.1.4 (b)), for
    /// the pairwise consistency test.
    pub(crate) fn recomputed_public_key(
        &self,
        algorithm: Algorithm,
    ) -> std::result::Result<Vec<u8>, ()> {
        let key = match self {
            AgreementBackend::Sm2(key) => return Ok(key.recompute_public_key().to_vec()),
            AgreementBackend::AwsLc(key) => key,
        };
        let curve = match algorithm {
            Algorithm::X25519 => {
                let seed: Curve25519SeedBin = key.as_be_bytes().map_err(drop)?;
                let mut private_key = Zeroizing::new([0u8; 32]);
                private_key.copy_from_slice(seed.as_ref());
                return Ok(awslc_sys::x25519_public_key_from_private(&private_key).to_vec());
            }
            Algorithm::EcdhP256 => NistCurve::P256,
            Algorithm::EcdhP384 => NistCurve::P384,
            Algorithm::EcdhP521 => NistCurve::P521,
            _ => return Err(()),
        };
        let scalar: EcPrivateKeyBin = key.as_be_bytes().map_err(drop)?;
        awslc_sys::ec_public_key_from_private(curve, scalar.as_ref()).map_err(drop)
    }
}
