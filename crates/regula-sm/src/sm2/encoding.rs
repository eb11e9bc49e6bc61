//! SM2 keys in PKCS#8 (RFC 5958) and SubjectPublicKeyInfo (RFC 5280), DER or PEM, with the
//! algorithm `id-ecPublicKey` and the named curve `1.2.156.10197.1.301` (GM/T 0006 curveSM2), as
//! OpenSSL 3 writes for `openssl genpkey -algorithm SM2` (RFC 5915 `ECPrivateKey` inside,
//! RFC 5480 for the public key). DER and PEM from RustCrypto's `pkcs8`/`spki`, which check the
//! OIDs and, when a PKCS#8 key embeds its public key, that it matches.

use sm2::pkcs8::{
    DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey, LineEnding,
};
use zeroize::Zeroizing;

use super::{AffinePoint, Error, PrivateKey, PublicKey};

impl PrivateKey {
    /// Parses a PKCS#8 `PrivateKeyInfo` (DER).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<PrivateKey, Error> {
        let secret = sm2::SecretKey::from_pkcs8_der(der).map_err(|_| Error::Encoding)?;
        PrivateKey::from_bytes(&Zeroizing::new(secret.to_bytes()))
    }

    /// Parses a PEM `PRIVATE KEY` (PKCS#8).
    pub fn from_pkcs8_pem(pem: &str) -> Result<PrivateKey, Error> {
        let secret = sm2::SecretKey::from_pkcs8_pem(pem).map_err(|_| Error::Encoding)?;
        PrivateKey::from_bytes(&Zeroizing::new(secret.to_bytes()))
    }

    fn to_secret_key(&self) -> Result<sm2::SecretKey, Error> {
        let bytes = self.to_bytes();
        sm2::SecretKey::from_slice(bytes.as_slice()).map_err(|_| Error::InvalidPrivateKey)
    }

    /// PKCS#8 `PrivateKeyInfo` (DER), embedding the public key; wiped on drop.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let document = self
            .to_secret_key()?
            .to_pkcs8_der()
            .map_err(|_| Error::Encoding)?;
        Ok(Zeroizing::new(document.as_bytes().to_vec()))
    }

    /// PEM `PRIVATE KEY` (PKCS#8) with `\n` line endings; wiped on drop.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        self.to_secret_key()?
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|_| Error::Encoding)
    }
}

impl PublicKey {
    /// Parses a DER SubjectPublicKeyInfo naming curveSM2.
    pub fn from_spki_der(der: &[u8]) -> Result<PublicKey, Error> {
        let key = sm2::PublicKey::from_public_key_der(der).map_err(|_| Error::Encoding)?;
        PublicKey::from_affine(*key.as_affine())
    }

    /// Parses a PEM `PUBLIC KEY`.
    pub fn from_spki_pem(pem: &str) -> Result<PublicKey, Error> {
        let key = sm2::PublicKey::from_public_key_pem(pem).map_err(|_| Error::Encoding)?;
        PublicKey::from_affine(*key.as_affine())
    }

    /// Parses an uncompressed point or a DER SubjectPublicKeyInfo, whichever `bytes` is.
    pub fn from_sec1_or_spki_der(bytes: &[u8]) -> Result<PublicKey, Error> {
        if bytes.first() == Some(&0x30) {
            PublicKey::from_spki_der(bytes)
        } else {
            PublicKey::from_sec1(bytes)
        }
    }

    fn to_rustcrypto(self) -> Result<sm2::PublicKey, Error> {
        let point: AffinePoint = *self.point();
        sm2::PublicKey::from_affine(point).map_err(|_| Error::InvalidPublicKey)
    }

    /// DER SubjectPublicKeyInfo with the uncompressed point.
    pub fn to_spki_der(&self) -> Result<Vec<u8>, Error> {
        let document = self
            .to_rustcrypto()?
            .to_public_key_der()
            .map_err(|_| Error::Encoding)?;
        Ok(document.as_bytes().to_vec())
    }

    /// PEM `PUBLIC KEY` with `\n` line endings.
    pub fn to_spki_pem(&self) -> Result<String, Error> {
        self.to_rustcrypto()?
            .to_public_key_pem(LineEnding::LF)
            .map_err(|_| Error::Encoding)
    }
}
