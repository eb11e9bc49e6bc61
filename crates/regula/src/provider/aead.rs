//! The AEAD keys the AEAD service holds: AES-GCM and ChaCha20-Poly1305 (aws-lc-rs), AES-CCM
//! (AWS-LC's cipher interface), SM4-GCM and SM4-CCM (regula-sm). The registry row's provider
//! decides which backend serves an algorithm.

use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, RandomizedNonceKey, UnboundKey};
use regula_sm::sm4::modes::{Sm4Ccm, Sm4Gcm};
use zeroize::Zeroizing;

use super::aead_stream::StreamKey;
use super::awslc;
use super::awslc_sys::{self, EvpCipher};
use super::sm;
use crate::algorithm::{Algorithm, Family};
use crate::error::{Error, Result};
use crate::registry::{self, Provider};
use crate::service::aead::NONCE_LEN;

/// Who holds the key. AWS-LC and regula-sm both wipe their key material on drop.
pub(crate) enum AeadBackend {
    AwsLc {
        /// AWS-LC's random-nonce key: the nonce is generated inside the validated boundary, the
        /// shape FIPS approves for AES-GCM (IG C.H). `None` for ChaCha20-Poly1305.
        random_nonce: Option<RandomizedNonceKey>,
        /// For decryption and for caller-chosen nonces.
        caller_nonce: LessSafeKey,
        /// For streaming ([`super::aead_stream`]), which goes through AWS-LC's `EVP_CIPHER`.
        stream_key: Option<StreamKey>,
    },
    Sm4Gcm(Box<Sm4Gcm>),
    Sm4Ccm(Box<Sm4Ccm>),
    /// AES-CCM through AWS-LC's cipher interface, keyed per message from this copy.
    AesCcm {
        cipher: EvpCipher,
        key: Zeroizing<Vec<u8>>,
    },
}

/// Whether `algorithm` takes AES-CCM's shorter tags and nonces (SP 800-38C).
pub(crate) fn is_aes_ccm(algorithm: Algorithm) -> bool {
    awslc::ccm(algorithm).is_some()
}

impl AeadBackend {
    /// Keys `algorithm` (an AEAD the policy let through) with the backend its registry row
    /// names.
    pub(crate) fn new(algorithm: Algorithm, key: &[u8]) -> Result<AeadBackend> {
        let wrong_length = |expected: usize| {
            Error::invalid_key(
                algorithm,
                format!("expected {expected} bytes, got {}", key.len()),
            )
        };
        if registry::entry(algorithm).provider == Provider::RegulaSm {
            sm::forced_backends(algorithm)?;
            let key = || sm::fixed_size_key::<16>(algorithm, key);
            return match algorithm {
                Algorithm::Sm4Gcm => {
                    let key = key()?;
                    Ok(AeadBackend::Sm4Gcm(Box::new(Sm4Gcm::new(&key))))
                }
                Algorithm::Sm4Ccm => {
                    let key = key()?;
                    Ok(AeadBackend::Sm4Ccm(Box::new(Sm4Ccm::new(&key))))
                }
                other => Err(Error::WrongFamily {
                    algorithm: other,
                    expected: Family::Aead,
                }),
            };
        }
        if let Some((cipher, key_len)) = awslc::ccm(algorithm) {
            if key.len() != key_len {
                return Err(wrong_length(key_len));
            }
            return Ok(AeadBackend::AesCcm {
                cipher,
                key: Zeroizing::new(key.to_vec()),
            });
        }
        let aws_algorithm = awslc::aead(algorithm)?;
        if key.len() != aws_algorithm.key_len() {
            return Err(wrong_length(aws_algorithm.key_len()));
        }
        let bad_key = |_| Error::invalid_key(algorithm, "rejected by the backend");
        let random_nonce = match algorithm {
            Algorithm::ChaCha20Poly1305 => None,
            _ => Some(RandomizedNonceKey::new(aws_algorithm, key).map_err(bad_key)?),
        };
        let caller_nonce = LessSafeKey::new(UnboundKey::new(aws_algorithm, key).map_err(bad_key)?);
        Ok(AeadBackend::AwsLc {
            random_nonce,
            caller_nonce,
            stream_key: StreamKey::new(algorithm, key),
        })
    }

    /// AES-CCM, which takes 7- to 13-byte nonces.
    #[inline]
    pub(crate) fn is_aes_ccm(&self) -> bool {
        matches!(self, AeadBackend::AesCcm { .. })
    }

    /// Whether the sealing runs in this module (regula-sm's AEADs), not in AWS-LC.
    #[inline]
    pub(crate) fn seals_in_module(&self) -> bool {
        matches!(self, AeadBackend::Sm4Gcm(_) | AeadBackend::Sm4Ccm(_))
    }

    /// Whether the backend reads an input where it lies and writes the output once (aws-lc-rs's
    /// scatter and gather interface, regula-sm's SM4-GCM `encrypt_into`/`decrypt_into`):
    /// [`AeadBackend::seal_scatter`], [`AeadBackend::open_gather`].
    #[inline]
    pub(crate) fn scatters(&self) -> bool {
        matches!(self, AeadBackend::AwsLc { .. } | AeadBackend::Sm4Gcm(_))
    }

    /// Encrypts `in_out` and appends the tag under a nonce AWS-LC generates inside its boundary,
    /// when this key has such a nonce (AES-GCM); `None` otherwise.
    #[inline]
    pub(crate) fn seal_in_place_internal_nonce(
        &self,
        aad: &[u8],
        in_out: &mut Vec<u8>,
    ) -> Option<Result<[u8; NONCE_LEN]>> {
        let AeadBackend::AwsLc {
            random_nonce: Some(key),
            ..
        } = self
        else {
            return None;
        };
        Some(
            key.seal_in_place_append_tag(Aad::from(aad), in_out)
                .map(|nonce| *nonce.as_ref())
                .map_err(|_| Error::CryptoFailure),
        )
    }

    /// [`AeadBackend::seal_in_place_internal_nonce`] with the tag written to `tag`.
    #[inline]
    pub(crate) fn seal_detached_internal_nonce(
        &self,
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Option<Result<[u8; NONCE_LEN]>> {
        let AeadBackend::AwsLc {
            random_nonce: Some(key),
            ..
        } = self
        else {
            return None;
        };
        let sealed = key
            .seal_in_place_separate_tag(Aad::from(aad), in_out)
            .map_err(|_| Error::CryptoFailure);
        Some(sealed.and_then(|(nonce, sealed_tag)| {
            copy_tag(sealed_tag.as_ref(), tag)?;
            Ok(*nonce.as_ref())
        }))
    }

    /// Encrypts `in_out` in place under `nonce` (its length checked or generated) and writes the
    /// tag (of the length the key was bound with) to `tag`.
    #[inline]
    pub(crate) fn seal_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<()> {
        if let AeadBackend::AesCcm { cipher, key } = self {
            check_ccm_length(nonce.len(), in_out.len())?;
            return awslc_sys::ccm_seal(*cipher, key, nonce, aad, in_out, tag)
                .map_err(|_| Error::CryptoFailure);
        }
        let nonce: &[u8; NONCE_LEN] = nonce.try_into().map_err(|_| Error::CryptoFailure)?;
        let sealed = match self {
            AeadBackend::AwsLc { caller_nonce, .. } => {
                let sealed_tag = caller_nonce
                    .seal_in_place_separate_tag(
                        Nonce::assume_unique_for_key(*nonce),
                        Aad::from(aad),
                        in_out,
                    )
                    .map_err(|_| Error::CryptoFailure)?;
                return copy_tag(sealed_tag.as_ref(), tag);
            }
            // The tag goes straight into the caller's slot (its length checked when bound).
            AeadBackend::Sm4Gcm(key) => key.encrypt_with_tag_len(nonce, aad, in_out, tag),
            AeadBackend::Sm4Ccm(key) => key.encrypt_with_tag_len(nonce, aad, in_out, tag),
            AeadBackend::AesCcm { .. } => return Err(Error::CryptoFailure),
        };
        sealed.map_err(|error| Error::invalid_input(error.to_string()))
    }

    /// Checks `tag` and decrypts `in_out` in place under `nonce` (its length checked); a tag
    /// that does not verify is [`Error::AuthenticationFailed`]. The caller wipes `in_out` on
    /// failure.
    #[inline]
    pub(crate) fn open_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let opened = match self {
            AeadBackend::AesCcm { cipher, key } => {
                check_ccm_length(nonce.len(), in_out.len())?;
                awslc_sys::ccm_open(*cipher, key, nonce, aad, in_out, tag).map_err(drop)
            }
            AeadBackend::AwsLc { caller_nonce, .. } => {
                let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| Error::CryptoFailure)?;
                caller_nonce
                    .open_in_place_separate_tag(
                        Nonce::assume_unique_for_key(nonce),
                        Aad::from(aad),
                        tag,
                        in_out,
                    )
                    .map(drop)
                    .map_err(drop)
            }
            AeadBackend::Sm4Gcm(key) => key.decrypt(nonce, aad, in_out, tag).map_err(drop),
            AeadBackend::Sm4Ccm(key) => key.decrypt(nonce, aad, in_out, tag).map_err(drop),
        };
        opened.map_err(|()| Error::AuthenticationFailed)
    }

    /// Encrypts `plaintext` where it lies into `out` (`ciphertext ‖ tag`, its length checked)
    /// under `nonce`, through aws-lc-rs's scatter interface (see [`AeadBackend::scatters`]).
    /// The caller wipes `out` on failure.
    pub(crate) fn seal_scatter(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        if let AeadBackend::Sm4Gcm(key) = self {
            let (body, tag) = out
                .split_at_mut_checked(plaintext.len())
                .ok_or(Error::CryptoFailure)?;
            return key
                .encrypt_into(nonce, aad, plaintext, body, tag)
                .map_err(|error| Error::invalid_input(error.to_string()));
        }
        let AeadBackend::AwsLc { caller_nonce, .. } = self else {
            return Err(Error::CryptoFailure);
        };
        // AWS-LC's scatter interface encrypts its "extra" input into the output slice that
        // also receives the tag; the in-place part is empty.
        caller_nonce
            .seal_in_place_scatter(
                Nonce::assume_unique_for_key(*nonce),
                Aad::from(aad),
                &mut [],
                plaintext,
                out,
            )
            .map_err(|_| Error::CryptoFailure)
    }

    /// Checks `tag` and decrypts `ciphertext` where it lies into `out` (its length checked)
    /// through aws-lc-rs's gather interface; a tag that does not verify is
    /// [`Error::AuthenticationFailed`]. The caller wipes `out` on failure.
    pub(crate) fn open_gather(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        if let AeadBackend::Sm4Gcm(key) = self {
            return key
                .decrypt_into(nonce, aad, ciphertext, tag, out)
                .map_err(|_| Error::AuthenticationFailed);
        }
        let AeadBackend::AwsLc { caller_nonce, .. } = self else {
            return Err(Error::CryptoFailure);
        };
        caller_nonce
            .open_separate_gather(
                Nonce::assume_unique_for_key(*nonce),
                Aad::from(aad),
                ciphertext,
                tag,
                out,
            )
            .map_err(|_| Error::AuthenticationFailed)
    }
}

/// SP 800-38C §A.1: with an n-byte nonce the message length is encoded in q = 15 − n bytes, so
/// a message has fewer than 2^(8q) bytes.
fn check_ccm_length(nonce_len: usize, message_len: usize) -> Result<()> {
    let length_bytes = 15usize.saturating_sub(nonce_len);
    let fits = length_bytes >= 8 || (message_len as u128) < (1u128 << (8 * length_bytes));
    if fits {
        Ok(())
    } else {
        Err(Error::invalid_input(format!(
            "AES-CCM with a {nonce_len}-byte nonce carries at most 2^{} - 1 bytes, got {message_len}",
            8 * length_bytes
        )))
    }
}

/// Copies a backend's tag into the caller's slot, whose length was checked.
fn copy_tag(sealed: &[u8], tag: &mut [u8]) -> Result<()> {
    tag.copy_from_slice(sealed.get(..tag.len()).ok_or(Error::CryptoFailure)?);
    Ok(())
}
