//! SM2 encryption (GB/T 32918.4-2016), regula-sm's.

use regula_sm::sm2;
use zeroize::Zeroizing;

use super::sm::{sm2_error, sm2_random};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::service::pke::CiphertextFormat;

fn format(format: CiphertextFormat) -> sm2::CiphertextFormat {
    match format {
        CiphertextFormat::Asn1 => sm2::CiphertextFormat::Asn1,
        CiphertextFormat::C1C3C2 => sm2::CiphertextFormat::C1C3C2,
    }
}

/// An SM2 private decryption key; regula-sm wipes it on drop.
pub(crate) struct DecryptionBackend(Box<sm2::PrivateKey>);

/// Encrypts `plaintext` (not empty) to `public_key`: DER SubjectPublicKeyInfo or an
/// uncompressed point.
pub(crate) fn encrypt(
    algorithm: Algorithm,
    public_key: &[u8],
    plaintext: &[u8],
    ciphertext_format: CiphertextFormat,
    random: &mut impl FnMut(&mut [u8]) -> Result<()>,
) -> Result<Vec<u8>> {
    let public_key = sm2::PublicKey::from_sec1_or_spki_der(public_key).map_err(|_| {
        Error::invalid_key(
            algorithm,
            "not a curveSM2 SubjectPublicKeyInfo or uncompressed point",
        )
    })?;
    sm2::encrypt(
        &public_key,
        plaintext,
        format(ciphertext_format),
        &mut sm2_random(random),
    )
    .map_err(|e| sm2_error(algorithm, e))
}

impl DecryptionBackend {
    pub(crate) fn generate(
        algorithm: Algorithm,
        random: &mut impl FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<DecryptionBackend> {
        let key = sm2::PrivateKey::generate(&mut sm2_random(random))
            .map_err(|e| sm2_error(algorithm, e))?;
        Ok(DecryptionBackend(Box::new(key)))
    }

    pub(crate) fn from_pkcs8(algorithm: Algorithm, pkcs8: &[u8]) -> Result<DecryptionBackend> {
        let key = sm2::PrivateKey::from_pkcs8_der(pkcs8).map_err(|_| {
            Error::invalid_key(algorithm, "not a PKCS#8 SM2 private key on curveSM2")
        })?;
        Ok(DecryptionBackend(Box::new(key)))
    }

    /// The public key as DER SubjectPublicKeyInfo.
    pub(crate) fn public_key_der(&self) -> Result<Vec<u8>> {
        self.0
            .public_key()
            .to_spki_der()
            .map_err(|_| Error::CryptoFailure)
    }

    /// The private key as PKCS#8 DER, wiped from memory when dropped.
    pub(crate) fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        self.0.to_pkcs8_der().map_err(|_| Error::CryptoFailure)
    }

    pub(crate) fn decrypt(
        &self,
        algorithm: Algorithm,
        ciphertext: &[u8],
        ciphertext_format: CiphertextFormat,
    ) -> Result<Vec<u8>> {
        sm2::decrypt(&self.0, ciphertext, format(ciphertext_format))
            .map_err(|e| sm2_error(algorithm, e))
    }

    /// The pairwise consistency test's round trip: encrypts `message` to the own public key
    /// (`C1 ‖ C3 ‖ C2`), lets `corrupt` damage C3, which decryption must then refuse, and
    /// decrypts.
    pub(crate) fn round_trip(
        &self,
        message: &[u8],
        random: &mut impl FnMut(&mut [u8]) -> Result<()>,
        corrupt: impl FnOnce(&mut [u8]),
    ) -> std::result::Result<Vec<u8>, ()> {
        let mut ciphertext = sm2::encrypt(
            self.0.public_key(),
            message,
            sm2::CiphertextFormat::C1C3C2,
            &mut sm2_random(random),
        )
        .map_err(drop)?;
        corrupt(&mut ciphertext[65..]);
        sm2::decrypt(&self.0, &ciphertext, sm2::CiphertextFormat::C1C3C2).map_err(drop)
    }
}
