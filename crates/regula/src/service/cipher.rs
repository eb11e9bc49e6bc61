//! Unauthenticated block-cipher modes: AES-CTR and AES-CBC with PKCS#7 padding.

use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, PaddedBlockDecryptingKey,
    PaddedBlockEncryptingKey, UnboundCipherKey,
};
use aws_lc_rs::iv::FixedLength;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc::{self, CipherMode};

/// AES block size; the IV (CBC) or initial counter block (CTR) has this length.
pub const IV_LEN: usize = 16;

enum Keys {
    Ctr(EncryptingKey, DecryptingKey),
    Cbc(PaddedBlockEncryptingKey, PaddedBlockDecryptingKey),
}

/// Ciphertext with the IV that was used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encrypted {
    pub iv: [u8; IV_LEN],
    pub ciphertext: Vec<u8>,
}

/// A block-cipher key bound to a module; AWS-LC wipes the key schedule on drop.
pub struct CipherKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    keys: Keys,
}

impl std::fmt::Debug for CipherKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CipherKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl Module {
    pub fn cipher_key(&self, algorithm: Algorithm, key: &[u8]) -> Result<CipherKey> {
        let approval = self.authorize(algorithm, Family::Cipher, &Usage::default())?;
        let (aws_algorithm, key_len, mode) = awslc::cipher(algorithm)?;
        if key.len() != key_len {
            return Err(Error::invalid_key(
                algorithm,
                format!("expected {key_len} bytes, got {}", key.len()),
            ));
        }
        let unbound = || {
            UnboundCipherKey::new(aws_algorithm, key)
                .map_err(|_| Error::invalid_key(algorithm, "rejected by the backend"))
        };
        let backend = |_| Error::CryptoFailure;
        let keys = match mode {
            CipherMode::Ctr => Keys::Ctr(
                EncryptingKey::ctr(unbound()?).map_err(backend)?,
                DecryptingKey::ctr(unbound()?).map_err(backend)?,
            ),
            CipherMode::CbcPkcs7 => Keys::Cbc(
                PaddedBlockEncryptingKey::cbc_pkcs7(unbound()?).map_err(backend)?,
                PaddedBlockDecryptingKey::cbc_pkcs7(unbound()?).map_err(backend)?,
            ),
        };
        Ok(CipherKey {
            module: self.clone(),
            algorithm,
            approval,
            keys,
        })
    }
}

impl CipherKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Encrypts with the given IV, or with a random one from the module's DRBG when `None`.
    pub fn encrypt(&self, iv: Option<&[u8]>, plaintext: &[u8]) -> Result<Served<Encrypted>> {
        self.module.ensure_operational()?;
        let iv = match iv {
            Some(iv) => self.iv(iv)?,
            None => {
                let mut iv = [0u8; IV_LEN];
                aws_lc_rs::rand::fill(&mut iv).map_err(|_| Error::CryptoFailure)?;
                iv
            }
        };
        let context = EncryptionContext::Iv128(FixedLength::from(iv));
        let mut ciphertext = plaintext.to_vec();
        let result = match &self.keys {
            Keys::Ctr(key, _) => key.less_safe_encrypt(&mut ciphertext, context).map(drop),
            Keys::Cbc(key, _) => key.less_safe_encrypt(&mut ciphertext, context).map(drop),
        };
        result.map_err(|_| Error::CryptoFailure)?;
        Ok(self.module.serve(
            self.algorithm,
            Service::Encrypt,
            self.approval,
            Encrypted { iv, ciphertext },
        ))
    }

    /// Decrypts; for CBC, checks and strips the padding. Nothing is returned on failure.
    pub fn decrypt(&self, iv: &[u8], ciphertext: &[u8]) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let context = DecryptionContext::Iv128(FixedLength::from(self.iv(iv)?));
        let mut buffer = ciphertext.to_vec();
        let plaintext_len = match &self.keys {
            Keys::Ctr(_, key) => key.decrypt(&mut buffer, context).map(|plain| plain.len()),
            Keys::Cbc(_, key) => {
                if buffer.is_empty() || !buffer.len().is_multiple_of(IV_LEN) {
                    return Err(Error::invalid_input(format!(
                        "CBC ciphertext must be a non-zero multiple of {IV_LEN} bytes, got {}",
                        buffer.len()
                    )));
                }
                key.decrypt(&mut buffer, context).map(|plain| plain.len())
            }
        }
        .map_err(|_| Error::CryptoFailure)?;
        buffer.truncate(plaintext_len);
        Ok(self
            .module
            .serve(self.algorithm, Service::Decrypt, self.approval, buffer))
    }

    fn iv(&self, iv: &[u8]) -> Result<[u8; IV_LEN]> {
        iv.try_into().map_err(|_| {
            Error::invalid_input(format!(
                "{} IV must be {IV_LEN} bytes, got {}",
                self.algorithm,
                iv.len()
            ))
        })
    }
}
