//! The backends of streaming AEAD ([`crate::service::aead_stream`]): AES-GCM and
//! ChaCha20-Poly1305 through AWS-LC's `EVP_CIPHER` interface, SM4-GCM through regula-sm's
//! incremental GCM. CCM is not streamed: it needs the total length before any data (as in
//! OpenSSL, where CCM takes its data in one call).

use regula_sm::sm4::modes::{Sm4GcmDecryptor, Sm4GcmEncryptor};
use zeroize::{Zeroize, ZeroizeOnDrop};

use super::aead::AeadBackend;
use super::awslc_sys::{AeadStreamCtx, StreamingAead};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};

/// A copy of an AES-GCM or ChaCha20-Poly1305 key for keying `EVP_CIPHER` contexts (aws-lc-rs
/// keeps its own copy out of reach), inline so that binding a key allocates nothing more.
/// Wiped on drop.
#[derive(Clone)]
pub(crate) struct StreamKey {
    aead: StreamingAead,
    bytes: [u8; 32],
}

impl StreamKey {
    /// `None` for an algorithm AWS-LC does not stream here, or a key of the wrong length (the
    /// caller checked it already).
    pub(crate) fn new(algorithm: Algorithm, key: &[u8]) -> Option<StreamKey> {
        let aead = match algorithm {
            Algorithm::Aes128Gcm => StreamingAead::Aes128Gcm,
            Algorithm::Aes256Gcm => StreamingAead::Aes256Gcm,
            Algorithm::ChaCha20Poly1305 => StreamingAead::ChaCha20Poly1305,
            _ => return None,
        };
        if key.len() != aead.key_len() {
            return None;
        }
        let mut bytes = [0u8; 32];
        bytes[..key.len()].copy_from_slice(key);
        Some(StreamKey { aead, bytes })
    }

    fn key(&self) -> &[u8] {
        &self.bytes[..self.aead.key_len()]
    }
}

impl Drop for StreamKey {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl ZeroizeOnDrop for StreamKey {}

/// One AEAD message in progress.
pub(crate) enum AeadStreamBackend {
    AwsLc(AeadStreamCtx),
    Sm4GcmEncrypt(Box<Sm4GcmEncryptor>),
    Sm4GcmDecrypt(Box<Sm4GcmDecryptor>),
}

/// regula-sm's errors as the module's: a length the mode refuses is the caller's input.
fn sm_error(error: regula_sm::sm4::modes::Error) -> Error {
    match error {
        regula_sm::sm4::modes::Error::AuthenticationFailed => Error::AuthenticationFailed,
        other => Error::invalid_input(other.to_string()),
    }
}

impl AeadStreamBackend {
    /// Starts a message under `nonce` (its length checked by the caller) with `backend`'s key;
    /// [`Error::InvalidInput`] for an AEAD that is not streamed (CCM).
    pub(crate) fn start(
        backend: &AeadBackend,
        algorithm: Algorithm,
        nonce: &[u8],
        encrypt: bool,
    ) -> Result<AeadStreamBackend> {
        match backend {
            AeadBackend::AwsLc {
                stream_key: Some(key),
                ..
            } => AeadStreamCtx::new(key.aead, key.key(), nonce, encrypt)
                .map(AeadStreamBackend::AwsLc)
                .map_err(|_| Error::CryptoFailure),
            AeadBackend::Sm4Gcm(gcm) if encrypt => gcm
                .encryptor(nonce)
                .map(|stream| AeadStreamBackend::Sm4GcmEncrypt(Box::new(stream)))
                .map_err(sm_error),
            AeadBackend::Sm4Gcm(gcm) => gcm
                .decryptor(nonce)
                .map(|stream| AeadStreamBackend::Sm4GcmDecrypt(Box::new(stream)))
                .map_err(sm_error),
            _ => Err(Error::invalid_input(format!(
                "{algorithm} is not streamed: CCM needs the message length before any data \
                 (seal or open the whole message)"
            ))),
        }
    }

    pub(crate) fn aad(&mut self, aad: &[u8]) -> Result<()> {
        match self {
            AeadStreamBackend::AwsLc(ctx) => ctx.aad(aad).map_err(|_| Error::CryptoFailure),
            AeadStreamBackend::Sm4GcmEncrypt(stream) => stream.aad(aad).map_err(sm_error),
            AeadStreamBackend::Sm4GcmDecrypt(stream) => stream.aad(aad).map_err(sm_error),
        }
    }

    /// Encrypts or decrypts `input` into `output` (the same length, checked by the caller).
    pub(crate) fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<()> {
        match self {
            AeadStreamBackend::AwsLc(ctx) => {
                ctx.update(input, output).map_err(|_| Error::CryptoFailure)
            }
            AeadStreamBackend::Sm4GcmEncrypt(stream) => {
                output.copy_from_slice(input);
                stream.update(output).map_err(sm_error)
            }
            AeadStreamBackend::Sm4GcmDecrypt(stream) => {
                output.copy_from_slice(input);
                stream.update(output).map_err(sm_error)
            }
        }
    }

    /// Encrypts or decrypts `in_out` in place.
    pub(crate) fn update_in_place(&mut self, in_out: &mut [u8]) -> Result<()> {
        match self {
            AeadStreamBackend::AwsLc(ctx) => ctx
                .update_in_place(in_out)
                .map_err(|_| Error::CryptoFailure),
            AeadStreamBackend::Sm4GcmEncrypt(stream) => stream.update(in_out).map_err(sm_error),
            AeadStreamBackend::Sm4GcmDecrypt(stream) => stream.update(in_out).map_err(sm_error),
        }
    }

    /// Ends the encryption in `slot` with the full 16-byte tag. AWS-LC's keyed context stays in
    /// the slot, where [`AeadStreamBackend::restart`] starts the next message (no key schedule
    /// or GHASH table again, and nothing moved); an SM4-GCM stream, and any stream that fails,
    /// leaves the slot empty (its state wiped).
    pub(crate) fn finish_encrypt(slot: &mut Option<AeadStreamBackend>) -> Result<[u8; 16]> {
        let mut tag = [0u8; 16];
        let kept = match slot {
            Some(AeadStreamBackend::AwsLc(ctx)) => ctx.finish_encrypt(&mut tag).is_ok(),
            _ => false,
        };
        if kept {
            return Ok(tag);
        }
        match slot.take() {
            Some(AeadStreamBackend::Sm4GcmEncrypt(stream)) => Ok(stream.finish()),
            _ => Err(Error::CryptoFailure),
        }
    }

    /// Ends the decryption in `slot`: a tag that does not verify is
    /// [`Error::AuthenticationFailed`]. A verified AWS-LC message keeps its keyed context in the
    /// slot, as [`Self::finish_encrypt`]; anything else leaves the slot empty.
    pub(crate) fn finish_decrypt(slot: &mut Option<AeadStreamBackend>, tag: &[u8]) -> Result<()> {
        let verified = match slot {
            Some(AeadStreamBackend::AwsLc(ctx)) => Some(ctx.finish_decrypt(tag).is_ok()),
            _ => None,
        };
        match verified {
            Some(true) => Ok(()),
            Some(false) => {
                *slot = None;
                Err(Error::AuthenticationFailed)
            }
            None => match slot.take() {
                Some(AeadStreamBackend::Sm4GcmDecrypt(stream)) => {
                    stream.finish(tag).map_err(sm_error)
                }
                _ => Err(Error::CryptoFailure),
            },
        }
    }

    /// Starts a new message under `nonce` (its length checked by the caller) in `slot`: in
    /// place when the slot holds an AWS-LC context keyed with `backend`'s key in this direction
    /// (the message in it, finished or not, is abandoned); else as
    /// [`AeadStreamBackend::start`]. On failure the slot is empty.
    pub(crate) fn restart(
        slot: &mut Option<AeadStreamBackend>,
        backend: &AeadBackend,
        algorithm: Algorithm,
        nonce: &[u8],
        encrypt: bool,
    ) -> Result<()> {
        if let Some(AeadStreamBackend::AwsLc(ctx)) = slot {
            if ctx.restart(nonce).is_ok() {
                return Ok(());
            }
            *slot = None;
            return Err(Error::CryptoFailure);
        }
        // Whatever was there (an SM4-GCM message) is dropped, and with it its state.
        *slot = None;
        *slot = Some(AeadStreamBackend::start(
            backend, algorithm, nonce, encrypt,
        )?);
        Ok(())
    }

    pub(crate) fn try_clone(&self) -> Result<AeadStreamBackend> {
        Ok(match self {
            AeadStreamBackend::AwsLc(ctx) => {
                AeadStreamBackend::AwsLc(ctx.try_clone().map_err(|_| Error::CryptoFailure)?)
            }
            AeadStreamBackend::Sm4GcmEncrypt(stream) => {
                AeadStreamBackend::Sm4GcmEncrypt(stream.clone())
            }
            AeadStreamBackend::Sm4GcmDecrypt(stream) => {
                AeadStreamBackend::Sm4GcmDecrypt(stream.clone())
            }
        })
    }
}
