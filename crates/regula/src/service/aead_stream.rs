//! Streaming AEAD with OpenSSL's `EVP_CIPHER` semantics for GCM and ChaCha20-Poly1305:
//! associated data in any number of calls before the first data call, data in any chunking
//! with exactly as many bytes out as in, the tag from the encryption's finish, the expected tag
//! given to the decryption's finish. AES-GCM and ChaCha20-Poly1305 run in AWS-LC (its
//! `EVP_CIPHER` interface), SM4-GCM in regula-sm. CCM is not streamed (it needs the message
//! length before any data).
//!
//! The policy decides when the stream starts, as for the one-shot calls with the same nonce:
//! [`AeadKey::encrypt_stream`] is [`AeadKey::seal_with_nonce`]'s caller-chosen nonce,
//! [`AeadKey::decrypt_stream`] is [`AeadKey::open`]'s. The service indicator records the
//! operation when it finishes.

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::aead_stream::AeadStreamBackend;
use crate::service::aead::AeadKey;

/// A full 16-byte AEAD tag (public data: nothing to wipe).
pub type Tag = [u8; 16];

/// The longest message each streamed AEAD takes, in bytes.
fn max_text_len(algorithm: Algorithm) -> u64 {
    match algorithm {
        // RFC 8439 §2.8: the 32-bit block counter starts at 1, so (2^32 − 1) 64-byte blocks.
        Algorithm::ChaCha20Poly1305 => ((1 << 32) - 1) * 64,
        // SP 800-38D §5.2.1.1: len(P) ≤ 2^39 − 256 bits.
        _ => (1 << 36) - 32,
    }
}

/// One AEAD message being encrypted or decrypted in pieces (see the module documentation).
///
/// A decrypting stream hands out plaintext before the tag is checked, as OpenSSL's does: the
/// caller must discard all of it unless [`AeadStream::finish_decrypt`] succeeds.
///
/// The backend state (key schedule, hash state, keystream) is wiped when the stream is dropped;
/// a finished AES-GCM or ChaCha20-Poly1305 message leaves AWS-LC's keyed context in the stream
/// for [`AeadKey::restart_stream`] (a failed one does not), an SM4-GCM message nothing.
pub struct AeadStream {
    module: Module,
    algorithm: Algorithm,
    /// The approval of this operation, decided when the stream started.
    approval: Approval,
    /// The message's nonce was constructed by the module (`encrypt_stream_tls13`), whose
    /// approval a caller's next nonce does not inherit.
    pub(super) module_nonce: bool,
    encrypt: bool,
    tag_len: usize,
    /// The backend of the message; after a message finished, AWS-LC's keyed context, where
    /// [`AeadKey::restart_stream`] starts the next one. `None` after a backend failure, and
    /// once an SM4-GCM message finished.
    backend: Option<AeadStreamBackend>,
    /// Whether a message is in progress in `backend` (false once finished or failed).
    live: bool,
    /// The [`AeadKey`] that started this stream.
    key_identity: u64,
    text_started: bool,
    text_len: u64,
}

impl std::fmt::Debug for AeadStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AeadStream")
            .field("algorithm", &self.algorithm)
            .field("encrypt", &self.encrypt)
            .finish_non_exhaustive()
    }
}

impl AeadKey {
    /// Starts encrypting one message under a nonce the caller chose, as
    /// [`AeadKey::seal_with_nonce`]: the same policy decision (FIPS 140-3 does not approve
    /// AES-GCM with a caller's nonce) and the same nonce lengths. The caller must never repeat
    /// a nonce under one key.
    pub fn encrypt_stream(&self, nonce: &[u8]) -> Result<AeadStream> {
        let approval = self.stream_approval(true)?;
        self.encrypt_stream_with_approval(nonce, approval)
    }

    /// Starts encrypting under `nonce` with the policy's decision already made (a
    /// caller's nonce, or one the module constructed).
    pub(super) fn encrypt_stream_with_approval(
        &self,
        nonce: &[u8],
        approval: Approval,
    ) -> Result<AeadStream> {
        self.check_nonce(nonce)?;
        let backend = AeadStreamBackend::start(&self.backend, self.algorithm(), nonce, true)?;
        Ok(self.new_stream(backend, true, approval))
    }

    /// Starts decrypting one message, as [`AeadKey::open`] (see [`AeadStream`] on the plaintext
    /// released before the tag is checked).
    pub fn decrypt_stream(&self, nonce: &[u8]) -> Result<AeadStream> {
        let approval = self.stream_approval(false)?;
        self.check_nonce(nonce)?;
        let backend = AeadStreamBackend::start(&self.backend, self.algorithm(), nonce, false)?;
        Ok(self.new_stream(backend, false, approval))
    }

    /// Starts the next message in `stream`, which this key started (finished or not: an
    /// unfinished message is abandoned), under `nonce` and in the stream's direction, with the
    /// policy decision and checks of [`AeadKey::encrypt_stream`] or
    /// [`AeadKey::decrypt_stream`]. For a program that re-initialises one context per message
    /// (a TLS record, OpenSSL's `EVP_CipherInit_ex` with a new IV), AES-GCM and
    /// ChaCha20-Poly1305 keep AWS-LC's keyed context instead of building a new one (key
    /// schedule, GHASH table) per message. On failure the stream is finished.
    #[inline]
    pub fn restart_stream(&self, stream: &mut AeadStream, nonce: &[u8]) -> Result<()> {
        // The same request as the stream's last message: its decision stands unless the rule
        // is dated or the last nonce was the module's (the module's error state is checked all
        // the same).
        let decided_afresh =
            stream.module_nonce || self.module.policy().decision_is_dated(self.algorithm());
        let approval = if decided_afresh {
            self.stream_approval(stream.encrypt)
        } else {
            self.module.ensure_operational().map(|()| stream.approval)
        };
        match approval {
            Ok(approval) => self.restart_with_approval(stream, nonce, approval),
            Err(error) => {
                stream.backend = None;
                stream.live = false;
                Err(error)
            }
        }
    }

    /// [`AeadKey::restart_stream`] with the policy's decision already made (a caller's nonce,
    /// or one the module constructed). On failure the stream is finished.
    pub(super) fn restart_with_approval(
        &self,
        stream: &mut AeadStream,
        nonce: &[u8],
        approval: Approval,
    ) -> Result<()> {
        if stream.key_identity != self.identity {
            return Err(Error::invalid_input(format!(
                "{}: this stream was started by another key",
                stream.algorithm
            )));
        }
        // The message in the stream ends here, whatever the outcome.
        stream.live = false;
        if let Err(error) = self.check_nonce(nonce) {
            stream.backend = None;
            return Err(error);
        }
        // In place: AWS-LC's keyed context is re-IVed where it is.
        AeadStreamBackend::restart(
            &mut stream.backend,
            &self.backend,
            self.algorithm(),
            nonce,
            stream.encrypt,
        )?;
        stream.approval = approval;
        stream.module_nonce = false;
        stream.live = true;
        stream.text_started = false;
        stream.text_len = 0;
        Ok(())
    }

    /// The policy's decision on a stream in this direction.
    fn stream_approval(&self, encrypt: bool) -> Result<Approval> {
        if encrypt {
            let usage = Usage {
                caller_nonce: true,
                ..Usage::default()
            };
            self.module
                .authorize(self.algorithm(), Family::Aead, &usage)
        } else {
            self.module.ensure_operational()?;
            // Decryption is approved whoever chose the nonce: the IV rule concerns encryption.
            Ok(self.approval)
        }
    }

    fn new_stream(
        &self,
        backend: AeadStreamBackend,
        encrypt: bool,
        approval: Approval,
    ) -> AeadStream {
        AeadStream {
            module: self.module.clone(),
            algorithm: self.algorithm(),
            approval,
            module_nonce: false,
            encrypt,
            tag_len: self.tag_len(),
            backend: Some(backend),
            live: true,
            key_identity: self.identity,
            text_started: false,
            text_len: 0,
        }
    }
}

impl AeadStream {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The policy's decision on this operation, made when the stream started; the indicator
    /// reports it when the operation finishes.
    #[inline]
    pub fn approval(&self) -> Approval {
        self.approval
    }

    /// Whether this stream encrypts (else it decrypts).
    #[inline]
    pub fn is_encrypting(&self) -> bool {
        self.encrypt
    }

    /// The tag length [`AeadStream::finish_decrypt`] takes (the key's).
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// The live backend, or why there is none; refuses once the module is in its error state.
    #[inline]
    fn live(&mut self) -> Result<&mut AeadStreamBackend> {
        self.module.ensure_operational()?;
        match &mut self.backend {
            Some(backend) if self.live => Ok(backend),
            _ => Err(finished()),
        }
    }

    /// Adds associated data: any number of calls, all before the first data call.
    #[inline]
    pub fn aad(&mut self, aad: &[u8]) -> Result<()> {
        self.live()?;
        if self.text_started {
            return Err(Error::invalid_input(format!(
                "{}: associated data must come before the first data call",
                self.algorithm
            )));
        }
        let result = self.live()?.aad(aad);
        self.fail_on_error(result)
    }

    /// Checks that `len` more bytes of text stay within the algorithm's limit, and counts them.
    #[inline]
    fn count_text(&mut self, len: usize) -> Result<()> {
        let total = self.text_len.saturating_add(len as u64);
        let max = max_text_len(self.algorithm);
        if total > max {
            return Err(Error::invalid_input(format!(
                "{} carries at most {max} bytes in one message, got {total}",
                self.algorithm
            )));
        }
        self.text_len = total;
        self.text_started = true;
        Ok(())
    }

    /// Encrypts or decrypts `input` into the first `input.len()` bytes of `output` (which must
    /// be at least that long) and returns `input.len()`: a streamed AEAD writes all its output
    /// here, none at finish. On failure the output is wiped and the stream is done.
    #[inline]
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        self.live()?;
        let Some(output) = output.get_mut(..input.len()) else {
            return Err(Error::invalid_input(format!(
                "output buffer of {} bytes is shorter than the {}-byte input",
                output.len(),
                input.len()
            )));
        };
        self.count_text(input.len())?;
        let result = self.live()?.update(input, output);
        if result.is_err() {
            zeroize::Zeroize::zeroize(output);
        }
        self.fail_on_error(result)?;
        Ok(input.len())
    }

    /// [`AeadStream::update`] in place. On failure `in_out` is wiped and the stream is done.
    #[inline]
    pub fn update_in_place(&mut self, in_out: &mut [u8]) -> Result<()> {
        self.live()?;
        self.count_text(in_out.len())?;
        let result = self.live()?.update_in_place(in_out);
        if result.is_err() {
            zeroize::Zeroize::zeroize(in_out);
        }
        self.fail_on_error(result)
    }

    /// Ends an encryption and returns the full 16-byte tag (a protocol that sends a shorter
    /// tag sends its first bytes). A second finish is an error.
    #[inline]
    pub fn finish_encrypt(&mut self) -> Result<Served<Tag>> {
        if !self.encrypt {
            return Err(Error::invalid_input(format!(
                "{}: this stream decrypts; finish it with the expected tag",
                self.algorithm
            )));
        }
        self.live()?;
        // The message ends here, whatever the outcome; AWS-LC's keyed context stays in
        // `backend` for the next one.
        self.live = false;
        let tag = AeadStreamBackend::finish_encrypt(&mut self.backend)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Encrypt, self.approval, tag))
    }

    /// Ends a decryption: checks `tag` (of the key's tag length) in constant time;
    /// [`Error::AuthenticationFailed`] when it does not match, and then every byte this stream
    /// released must be discarded. A tag of the wrong length is refused before anything ends;
    /// any other second finish is an error.
    #[inline]
    pub fn finish_decrypt(&mut self, tag: &[u8]) -> Result<Served<()>> {
        if self.encrypt {
            return Err(Error::invalid_input(format!(
                "{}: this stream encrypts; it makes the tag",
                self.algorithm
            )));
        }
        self.live()?;
        if tag.len() != self.tag_len {
            return Err(Error::invalid_input(format!(
                "{} tag must be {} bytes, got {}",
                self.algorithm,
                self.tag_len,
                tag.len()
            )));
        }
        self.live = false;
        AeadStreamBackend::finish_decrypt(&mut self.backend, tag)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Decrypt, self.approval, ()))
    }

    /// A copy of the message in progress (OpenSSL's `EVP_CIPHER_CTX_copy`), which goes on
    /// independently of this one.
    pub fn try_clone(&self) -> Result<AeadStream> {
        self.module.ensure_operational()?;
        let backend = match &self.backend {
            Some(backend) if self.live => backend.try_clone()?,
            _ => return Err(finished()),
        };
        Ok(AeadStream {
            module: self.module.clone(),
            algorithm: self.algorithm,
            approval: self.approval,
            module_nonce: self.module_nonce,
            encrypt: self.encrypt,
            tag_len: self.tag_len,
            backend: Some(backend),
            live: true,
            key_identity: self.key_identity,
            text_started: self.text_started,
            text_len: self.text_len,
        })
    }

    /// A backend failure leaves the state unknown: the stream is done (its state wiped).
    #[inline]
    fn fail_on_error(&mut self, result: Result<()>) -> Result<()> {
        if result.is_err() {
            self.backend = None;
            self.live = false;
        }
        result
    }
}

#[cold]
fn finished() -> Error {
    Error::invalid_input("the AEAD stream is finished")
}
