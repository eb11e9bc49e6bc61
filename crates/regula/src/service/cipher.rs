//! Unauthenticated block-cipher modes: AES-CTR, AES-CBC (PKCS#7), SM4-ECB (whole blocks, no
//! padding), SM4-CBC (PKCS#7) and SM4-CTR.

use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, PaddedBlockDecryptingKey,
    PaddedBlockEncryptingKey, UnboundCipherKey,
};
use aws_lc_rs::iv::FixedLength;
use regula_sm::Sm4;
use regula_sm::sm4::modes::{self as sm4_modes, Xts, XtsStandard};
use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc::{self, CipherMode};
use crate::provider::sm::{self, Sm4Mode};

/// AES and SM4 block size; the IV (CBC) or initial counter block (CTR) has this length.
pub const IV_LEN: usize = 16;

enum Keys {
    Ctr(EncryptingKey, DecryptingKey),
    Cbc(PaddedBlockEncryptingKey, PaddedBlockDecryptingKey),
    /// regula-sm wipes the SM4 key schedule on drop.
    Sm4(Box<Sm4>, Sm4Mode),
    /// Both SM4 key schedules of XTS; the IV is the tweak.
    Sm4Xts(Box<Xts>),
}

/// Ciphertext with the IV that was used (empty for ECB, which takes none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encrypted {
    pub iv: Vec<u8>,
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
        if let Some(standard) = match algorithm {
            Algorithm::Sm4Xts => Some(XtsStandard::Ieee1619),
            Algorithm::Sm4XtsGb => Some(XtsStandard::GbT17964),
            _ => None,
        } {
            let key: Zeroizing<[u8; 32]> = Zeroizing::new(key.try_into().map_err(|_| {
                Error::invalid_key(
                    algorithm,
                    format!("expected 32 bytes (two SM4 keys), got {}", key.len()),
                )
            })?);
            let xts = Xts::new(&key, standard)
                .map_err(|error| Error::invalid_key(algorithm, error.to_string()))?;
            return Ok(CipherKey {
                module: self.clone(),
                algorithm,
                approval,
                keys: Keys::Sm4Xts(Box::new(xts)),
            });
        }
        if let Ok(mode) = sm::sm4_mode(algorithm) {
            let key = super::fixed_size_key::<16>(algorithm, key)?;
            let keys = Keys::Sm4(Box::new(Sm4::new(&key)), mode);
            return Ok(CipherKey {
                module: self.clone(),
                algorithm,
                approval,
                keys,
            });
        }
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

    /// Whether the mode takes an IV (all but ECB).
    pub fn takes_iv(&self) -> bool {
        !matches!(self.keys, Keys::Sm4(_, Sm4Mode::Ecb))
    }

    /// Encrypts with the given IV, or with a random one from the module's DRBG when `None`.
    /// ECB takes no IV and whole blocks only.
    pub fn encrypt(&self, iv: Option<&[u8]>, plaintext: &[u8]) -> Result<Served<Encrypted>> {
        self.module.ensure_operational()?;
        let iv = match (iv, self.takes_iv()) {
            (Some(_), false) => {
                return Err(Error::invalid_input(format!(
                    "{} takes no IV",
                    self.algorithm
                )));
            }
            (None, false) => None,
            (Some(iv), true) => Some(self.iv(iv)?),
            (None, true) => {
                let mut iv = [0u8; IV_LEN];
                aws_lc_rs::rand::fill(&mut iv).map_err(|_| Error::CryptoFailure)?;
                Some(iv)
            }
        };
        let context = || EncryptionContext::Iv128(FixedLength::from(iv.unwrap_or_default()));
        let mut ciphertext = plaintext.to_vec();
        match &self.keys {
            Keys::Ctr(key, _) => key.less_safe_encrypt(&mut ciphertext, context()).map(drop),
            Keys::Cbc(key, _) => key.less_safe_encrypt(&mut ciphertext, context()).map(drop),
            Keys::Sm4(cipher, mode) => {
                let iv = iv.unwrap_or_default();
                match mode {
                    Sm4Mode::Ecb => {
                        sm4_modes::ecb_encrypt(cipher, &mut ciphertext).map_err(|_| {
                            Error::invalid_input(whole_blocks(self.algorithm, plaintext.len()))
                        })?
                    }
                    Sm4Mode::CbcPkcs7 => {
                        ciphertext = sm4_modes::cbc_encrypt_padded(cipher, &iv, plaintext)
                    }
                    Sm4Mode::Ctr => sm4_modes::ctr_apply_keystream(cipher, &iv, &mut ciphertext),
                    Sm4Mode::CbcCs3 => sm4_modes::cbc_cs3_encrypt(cipher, &iv, &mut ciphertext)
                        .map_err(|error| {
                            Error::invalid_input(format!("{}: {error}", self.algorithm))
                        })?,
                }
                Ok(())
            }
            Keys::Sm4Xts(xts) => {
                xts.encrypt(&iv.unwrap_or_default(), &mut ciphertext)
                    .map_err(|error| {
                        Error::invalid_input(format!("{}: {error}", self.algorithm))
                    })?;
                Ok(())
            }
        }
        .map_err(|_| Error::CryptoFailure)?;
        let iv = iv.map_or_else(Vec::new, |iv| iv.to_vec());
        Ok(self.module.serve(
            self.algorithm,
            Service::Encrypt,
            self.approval,
            Encrypted { iv, ciphertext },
        ))
    }

    /// Decrypts; for CBC, checks and strips the padding. Nothing is returned on failure. ECB
    /// takes an empty IV.
    pub fn decrypt(&self, iv: &[u8], ciphertext: &[u8]) -> Result<Served<Vec<u8>>> {
        self.module.ensure_operational()?;
        let iv = if self.takes_iv() {
            self.iv(iv)?
        } else if iv.is_empty() {
            [0u8; IV_LEN]
        } else {
            return Err(Error::invalid_input(format!(
                "{} takes no IV",
                self.algorithm
            )));
        };
        let is_cbc = matches!(self.keys, Keys::Cbc(..) | Keys::Sm4(_, Sm4Mode::CbcPkcs7));
        if is_cbc && (ciphertext.is_empty() || !ciphertext.len().is_multiple_of(IV_LEN)) {
            return Err(Error::invalid_input(format!(
                "CBC ciphertext must be a non-zero multiple of {IV_LEN} bytes, got {}",
                ciphertext.len()
            )));
        }
        let context = || DecryptionContext::Iv128(FixedLength::from(iv));
        let mut buffer = ciphertext.to_vec();
        let plaintext_len = match &self.keys {
            Keys::Ctr(_, key) => key.decrypt(&mut buffer, context()).map(|plain| plain.len()),
            Keys::Cbc(_, key) => key.decrypt(&mut buffer, context()).map(|plain| plain.len()),
            Keys::Sm4(cipher, mode) => match mode {
                Sm4Mode::Ecb => {
                    sm4_modes::ecb_decrypt(cipher, &mut buffer).map_err(|_| {
                        Error::invalid_input(whole_blocks(self.algorithm, ciphertext.len()))
                    })?;
                    Ok(buffer.len())
                }
                Sm4Mode::CbcPkcs7 => sm4_modes::cbc_decrypt_padded(cipher, &iv, ciphertext)
                    .map(|plain| {
                        buffer = plain;
                        buffer.len()
                    })
                    .map_err(|_| aws_lc_rs::error::Unspecified),
                Sm4Mode::Ctr => {
                    sm4_modes::ctr_apply_keystream(cipher, &iv, &mut buffer);
                    Ok(buffer.len())
                }
                Sm4Mode::CbcCs3 => {
                    sm4_modes::cbc_cs3_decrypt(cipher, &iv, &mut buffer).map_err(|error| {
                        Error::invalid_input(format!("{}: {error}", self.algorithm))
                    })?;
                    Ok(buffer.len())
                }
            },
            Keys::Sm4Xts(xts) => {
                xts.decrypt(&iv, &mut buffer).map_err(|error| {
                    Error::invalid_input(format!("{}: {error}", self.algorithm))
                })?;
                Ok(buffer.len())
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

fn whole_blocks(algorithm: Algorithm, len: usize) -> String {
    format!("{algorithm} takes whole {IV_LEN}-byte blocks without padding, got {len} bytes")
}
