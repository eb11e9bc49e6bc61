//! RSA-OAEP (RFC 8017 §7.1, SP 800-56B Rev. 2 RSA-OAEP key transport), AWS-LC's through
//! aws-lc-rs. OAEP's hash and MGF1's hash are the same function, as aws-lc-rs offers them.

use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der};
use aws_lc_rs::rsa::{
    KeySize, OAEP_SHA1_MGF1SHA1, OAEP_SHA256_MGF1SHA256, OAEP_SHA384_MGF1SHA384,
    OAEP_SHA512_MGF1SHA512, OaepAlgorithm, OaepPrivateDecryptingKey, OaepPublicEncryptingKey,
    PrivateDecryptingKey, PublicEncryptingKey,
};
use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family};
use crate::error::{Error, Result};

/// The aws-lc-rs OAEP parameters of an RSA-OAEP row.
fn oaep(algorithm: Algorithm) -> Result<&'static OaepAlgorithm> {
    match algorithm {
        Algorithm::RsaOaepSha1 => Ok(&OAEP_SHA1_MGF1SHA1),
        Algorithm::RsaOaepSha256 => Ok(&OAEP_SHA256_MGF1SHA256),
        Algorithm::RsaOaepSha384 => Ok(&OAEP_SHA384_MGF1SHA384),
        Algorithm::RsaOaepSha512 => Ok(&OAEP_SHA512_MGF1SHA512),
        _ => Err(Error::WrongFamily {
            algorithm,
            expected: Family::PublicKeyEncryption,
        }),
    }
}

/// Whether `algorithm` is one of the RSA-OAEP rows.
pub(crate) fn is_rsa_oaep(algorithm: Algorithm) -> bool {
    oaep(algorithm).is_ok()
}

/// OAEP's hash output length in bytes (`hLen`).
fn hash_len(algorithm: Algorithm) -> usize {
    match algorithm {
        Algorithm::RsaOaepSha1 => 20,
        Algorithm::RsaOaepSha384 => 48,
        Algorithm::RsaOaepSha512 => 64,
        _ => 32,
    }
}

/// aws-lc-rs takes no label as the empty label (RFC 8017 §7.1.1's default `L`).
fn label_arg(label: &[u8]) -> Option<&[u8]> {
    (!label.is_empty()).then_some(label)
}

fn to_bits(bits: usize) -> u32 {
    u32::try_from(bits).unwrap_or(u32::MAX)
}

fn public_key(algorithm: Algorithm, public_key_der: &[u8]) -> Result<OaepPublicEncryptingKey> {
    PublicEncryptingKey::from_der(public_key_der)
        .ok()
        .and_then(|key| OaepPublicEncryptingKey::new(key).ok())
        .ok_or_else(|| {
            Error::invalid_key(algorithm, "not a DER SubjectPublicKeyInfo RSA public key")
        })
}

/// The modulus size in bits of an RSA public key given as DER SubjectPublicKeyInfo.
pub(crate) fn public_key_bits(algorithm: Algorithm, public_key_der: &[u8]) -> Result<u32> {
    Ok(to_bits(
        public_key(algorithm, public_key_der)?.key_size_bits(),
    ))
}

/// The longest message OAEP takes under a `modulus_bytes`-byte key: `k - 2·hLen - 2`.
pub(crate) fn max_plaintext_len(algorithm: Algorithm, modulus_bytes: usize) -> usize {
    modulus_bytes.saturating_sub(2 * hash_len(algorithm) + 2)
}

/// Encrypts `plaintext` to `public_key_der` (DER SubjectPublicKeyInfo) with `label`.
pub(crate) fn encrypt(
    algorithm: Algorithm,
    public_key_der: &[u8],
    plaintext: &[u8],
    label: &[u8],
) -> Result<Vec<u8>> {
    let parameters = oaep(algorithm)?;
    let key = public_key(algorithm, public_key_der)?;
    let max = max_plaintext_len(algorithm, key.key_size_bytes());
    if plaintext.len() > max {
        return Err(Error::invalid_input(format!(
            "{algorithm} takes at most {max} bytes under a {}-bit key, not {}",
            key.key_size_bits(),
            plaintext.len()
        )));
    }
    let mut ciphertext = vec![0u8; key.ciphertext_size()];
    let written = key
        .encrypt(parameters, plaintext, &mut ciphertext, label_arg(label))
        .map_err(|_| Error::CryptoFailure)?
        .len();
    ciphertext.truncate(written);
    Ok(ciphertext)
}

/// An RSA private key for OAEP decryption; AWS-LC wipes it on drop.
pub(crate) struct RsaOaepBackend {
    key: OaepPrivateDecryptingKey,
    /// The same AWS-LC key (a reference-counted handle), kept for the PKCS#8 export.
    private_key: PrivateDecryptingKey,
    public_key_der: Vec<u8>,
}

impl RsaOaepBackend {
    fn new(algorithm: Algorithm, key: PrivateDecryptingKey) -> Result<RsaOaepBackend> {
        let public_key_der = key
            .public_key()
            .as_der()
            .map_err(|_| Error::CryptoFailure)?
            .as_ref()
            .to_vec();
        let private_key = key.clone();
        let key = OaepPrivateDecryptingKey::new(key)
            .map_err(|_| Error::invalid_key(algorithm, "not an RSA key OAEP can use"))?;
        Ok(RsaOaepBackend {
            key,
            private_key,
            public_key_der,
        })
    }

    /// A fresh key of `bits` (2048, 3072, 4096 or 8192) from AWS-LC's key generator.
    pub(crate) fn generate(algorithm: Algorithm, bits: u32) -> Result<RsaOaepBackend> {
        let size = match bits {
            2048 => KeySize::Rsa2048,
            3072 => KeySize::Rsa3072,
            4096 => KeySize::Rsa4096,
            8192 => KeySize::Rsa8192,
            _ => {
                return Err(Error::invalid_input(format!(
                    "{algorithm} keys are 2048, 3072, 4096 or 8192 bits, not {bits}"
                )));
            }
        };
        let key = PrivateDecryptingKey::generate(size).map_err(|_| Error::CryptoFailure)?;
        RsaOaepBackend::new(algorithm, key)
    }

    pub(crate) fn from_pkcs8(algorithm: Algorithm, pkcs8: &[u8]) -> Result<RsaOaepBackend> {
        let key = PrivateDecryptingKey::from_pkcs8(pkcs8).map_err(|_| {
            Error::invalid_key(
                algorithm,
                "not a PKCS#8 RSA private key of 2048 to 8192 bits",
            )
        })?;
        RsaOaepBackend::new(algorithm, key)
    }

    pub(crate) fn key_bits(&self) -> u32 {
        to_bits(self.key.key_size_bits())
    }

    pub(crate) fn modulus_bytes(&self) -> usize {
        self.key.key_size_bytes()
    }

    /// The public key as DER SubjectPublicKeyInfo.
    pub(crate) fn public_key_der(&self) -> Vec<u8> {
        self.public_key_der.clone()
    }

    /// Decrypts; a ciphertext that is not `k` bytes is invalid input, and any padding, label
    /// or range failure is [`Error::AuthenticationFailed`] with nothing released (RFC 8017
    /// §7.1.2 asks that the causes not be told apart).
    pub(crate) fn decrypt(
        &self,
        algorithm: Algorithm,
        ciphertext: &[u8],
        label: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        let parameters = oaep(algorithm)?;
        if ciphertext.len() != self.key.key_size_bytes() {
            return Err(Error::invalid_input(format!(
                "an {algorithm} ciphertext under this key is {} bytes, not {}",
                self.key.key_size_bytes(),
                ciphertext.len()
            )));
        }
        let mut plaintext = Zeroizing::new(vec![0u8; self.key.min_output_size()]);
        let written = self
            .key
            .decrypt(parameters, ciphertext, &mut plaintext, label_arg(label))
            .map_err(|_| Error::AuthenticationFailed)?
            .len();
        plaintext.truncate(written);
        Ok(plaintext)
    }

    /// The pairwise consistency test's round trip: encrypts `message` to the own public key,
    /// lets `corrupt` damage the ciphertext, which decryption must then refuse, and decrypts.
    pub(crate) fn round_trip(
        &self,
        algorithm: Algorithm,
        message: &[u8],
        corrupt: impl FnOnce(&mut [u8]),
    ) -> std::result::Result<Zeroizing<Vec<u8>>, ()> {
        let mut ciphertext =
            encrypt(algorithm, &self.public_key_der, message, b"").map_err(drop)?;
        corrupt(&mut ciphertext);
        self.decrypt(algorithm, &ciphertext, b"").map_err(drop)
    }

    /// The private key as PKCS#8 DER, wiped from memory when dropped.
    pub(crate) fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        let der = AsDer::<Pkcs8V1Der<'static>>::as_der(&self.private_key)
            .map_err(|_| Error::CryptoFailure)?;
        Ok(Zeroizing::new(der.as_ref().to_vec()))
    }
}
