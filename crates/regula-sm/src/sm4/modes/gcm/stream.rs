//! Incremental SM4-GCM: associated data in any number of calls, then the text in any chunking,
//! then the tag — the shape of OpenSSL's `EVP_CipherUpdate`/`EVP_CipherFinal_ex` for GCM.
//!
//! The stream shares the one-shot [`Sm4Gcm`]'s pieces: J0 and its GHASH for other nonce
//! lengths, the inc32 counter and its batched keystream through the wide SM4 backends, the
//! tag computation, the length limits and the constant-time tag comparison. What it adds is
//! state at byte granularity: the unused keystream of a partial block, and the bytes of
//! associated data or ciphertext not yet hashed (GHASH takes whole blocks, padded only at the
//! end of each of the two inputs). Every field that holds key-derived or secret data is wiped
//! on drop; the SM4 key schedule and the GHASH key copy wipe themselves.

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::ghash::{Absorb, OwnedHasher};
use super::{
    CHUNK, Counter, Sm4Gcm, check_aad_len, check_nonce_len, check_tag_len, check_text_len,
    constant_time_eq, finish,
};
use crate::sm4::modes::Error;
use crate::sm4::{BLOCK_SIZE, Block, Sm4};

/// The state both directions share.
#[derive(Clone)]
struct Stream {
    cipher: Sm4,
    ghash: OwnedHasher,
    /// The next counter block (inc32 from J0).
    counter: Counter,
    /// E_K(J0), which masks the tag.
    mask: Block,
    /// Keystream of the current partial block; `keystream[keystream_used..]` is unused.
    keystream: Block,
    keystream_used: usize,
    /// Associated data (before the text starts) or ciphertext not yet hashed: fewer than
    /// `BLOCK_SIZE` bytes.
    pending: Block,
    pending_len: usize,
    aad_len: u64,
    text_len: u64,
    /// Whether the text has started (the associated data is then hashed and padded).
    text_started: bool,
}

impl Stream {
    fn new(gcm: &Sm4Gcm, nonce: &[u8]) -> Result<Self, Error> {
        check_nonce_len(nonce)?;
        let j0 = gcm.pre_counter_block(nonce);
        let mut mask = j0;
        gcm.cipher.encrypt_block(&mut mask);
        Ok(Self {
            cipher: gcm.cipher.clone(),
            ghash: gcm.ghash.start_owned(),
            counter: Counter::after(&j0),
            mask,
            keystream: [0; BLOCK_SIZE],
            keystream_used: BLOCK_SIZE,
            pending: [0; BLOCK_SIZE],
            pending_len: 0,
            aad_len: 0,
            text_len: 0,
            text_started: false,
        })
    }

    fn aad(&mut self, aad: &[u8]) -> Result<(), Error> {
        if self.text_started {
            return Err(Error::AadAfterData);
        }
        let total = self.aad_len.saturating_add(aad.len() as u64);
        check_aad_len(total)?;
        self.aad_len = total;
        self.absorb(aad);
        Ok(())
    }

    /// Hashes `data` a block at a time, keeping a partial block in `pending`.
    fn absorb(&mut self, mut data: &[u8]) {
        if self.pending_len > 0 {
            let take = data.len().min(BLOCK_SIZE - self.pending_len);
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
            if self.pending_len < BLOCK_SIZE {
                return;
            }
            self.ghash.update_block(&self.pending);
            self.pending_len = 0;
        }
        let (blocks, rest) = data.as_chunks::<BLOCK_SIZE>();
        // Whole blocks: no padding is added.
        self.ghash.update_padded(blocks.as_flattened());
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// Hashes what is pending, padded with zeros to a block (the 0^v or 0^u of SP 800-38D,
    /// 7.1 step 5).
    fn flush_padded(&mut self) {
        self.ghash.update_padded(&self.pending[..self.pending_len]);
        self.pending_len = 0;
    }

    /// Starts the text: the associated data is complete.
    fn start_text(&mut self) {
        if !self.text_started {
            self.flush_padded();
            self.text_started = true;
        }
    }

    /// Encrypts or decrypts `in_out` in place, hashing the ciphertext: after the keystream when
    /// encrypting, before it when decrypting.
    fn update(&mut self, in_out: &mut [u8], encrypt: bool) -> Result<(), Error> {
        let total = self.text_len.saturating_add(in_out.len() as u64);
        check_text_len(total)?;
        self.start_text();
        self.text_len = total;
        // Chunk by chunk, so that each is hashed while it is still in the L1 cache.
        for chunk in in_out.chunks_mut(CHUNK) {
            if !encrypt {
                self.absorb(chunk);
            }
            self.apply_keystream(chunk);
            if encrypt {
                self.absorb(chunk);
            }
        }
        Ok(())
    }

    /// XORs the next `data.len()` bytes of GCTR keystream into `data`.
    fn apply_keystream(&mut self, data: &mut [u8]) {
        let from_leftover = data.len().min(BLOCK_SIZE - self.keystream_used);
        let (head, rest) = data.split_at_mut(from_leftover);
        for (byte, key) in head.iter_mut().zip(&self.keystream[self.keystream_used..]) {
            *byte ^= key;
        }
        self.keystream_used += from_leftover;

        let (blocks, tail) = rest.as_chunks_mut::<BLOCK_SIZE>();
        self.counter.xor_keystream(&self.cipher, blocks);
        if !tail.is_empty() {
            self.keystream = self.counter.block();
            self.counter.low = self.counter.low.wrapping_add(1);
            self.cipher.encrypt_block(&mut self.keystream);
            for (byte, key) in tail.iter_mut().zip(&self.keystream) {
                *byte ^= key;
            }
            self.keystream_used = tail.len();
        }
    }

    /// The full tag over everything absorbed.
    fn full_tag(&mut self) -> Block {
        self.start_text();
        self.flush_padded();
        finish(&mut self.ghash, &self.mask, self.aad_len, self.text_len)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.mask.zeroize();
        self.keystream.zeroize();
        self.pending.zeroize();
    }
}

/// Incremental SM4-GCM encryption (SP 800-38D, 7.1) under one key and nonce: [`aad`] any number
/// of times, then [`update`] on the text in any chunking, then [`finish`] for the tag. The
/// result is the one-shot [`Sm4Gcm::encrypt`]'s, whatever the split.
///
/// Cloning copies the state mid-stream (OpenSSL's `EVP_CIPHER_CTX_copy`); the copies go on
/// independently. The key schedule, hash key copy, E_K(J0), keystream and pending bytes are
/// zeroized on drop.
///
/// ```
/// use regula_sm::sm4::modes::Sm4Gcm;
///
/// let gcm = Sm4Gcm::new(&[0x42; 16]);
/// let nonce = [7u8; 12];
/// let mut stream = gcm.encryptor(&nonce)?;
/// stream.aad(b"hea")?;
/// stream.aad(b"der")?;
/// let mut data = *b"attack at dawn";
/// let (first, second) = data.split_at_mut(5);
/// stream.update(first)?;
/// stream.update(second)?;
/// let tag = stream.finish();
///
/// let mut one_shot = *b"attack at dawn";
/// assert_eq!(gcm.encrypt(&nonce, b"header", &mut one_shot)?, tag);
/// assert_eq!(one_shot, data);
/// # Ok::<(), regula_sm::Error>(())
/// ```
///
/// [`aad`]: Sm4GcmEncryptor::aad
/// [`update`]: Sm4GcmEncryptor::update
/// [`finish`]: Sm4GcmEncryptor::finish
#[derive(Clone)]
pub struct Sm4GcmEncryptor(Stream);

impl Sm4GcmEncryptor {
    /// Adds associated data; refused ([`Error::AadAfterData`]) once the text has started, and
    /// past SP 800-38D's limit.
    pub fn aad(&mut self, aad: &[u8]) -> Result<(), Error> {
        self.0.aad(aad)
    }

    /// Encrypts the next `in_out.len()` bytes of plaintext in place. Refused, with nothing
    /// changed, past SP 800-38D's limit of 2^36 − 32 bytes of text in all.
    pub fn update(&mut self, in_out: &mut [u8]) -> Result<(), Error> {
        self.0.update(in_out, true)
    }

    /// The full 16-byte tag; a shorter one is its first bytes (MSB_t, SP 800-38D, 7.1 step 7).
    pub fn finish(mut self) -> Block {
        self.0.full_tag()
    }
}

/// Incremental SM4-GCM decryption (SP 800-38D, 7.2): [`aad`] any number of times, then
/// [`update`] on the ciphertext in any chunking, then [`finish`] with the tag.
///
/// Unlike the one-shot [`Sm4Gcm::decrypt`], the plaintext is released before the tag is
/// checked (as with OpenSSL's streaming decryption): the caller must discard it unless
/// [`finish`] succeeds.
///
/// [`aad`]: Sm4GcmDecryptor::aad
/// [`update`]: Sm4GcmDecryptor::update
/// [`finish`]: Sm4GcmDecryptor::finish
#[derive(Clone)]
pub struct Sm4GcmDecryptor(Stream);

impl Sm4GcmDecryptor {
    /// Adds associated data; refused ([`Error::AadAfterData`]) once the text has started, and
    /// past SP 800-38D's limit.
    pub fn aad(&mut self, aad: &[u8]) -> Result<(), Error> {
        self.0.aad(aad)
    }

    /// Decrypts the next `in_out.len()` bytes of ciphertext in place. Refused, with nothing
    /// changed, past SP 800-38D's limit of 2^36 − 32 bytes of text in all.
    pub fn update(&mut self, in_out: &mut [u8]) -> Result<(), Error> {
        self.0.update(in_out, false)
    }

    /// Checks `tag` (16, 15, 14, 13, 12, 8 or 4 bytes) in constant time against the first
    /// bytes of the full tag: [`Error::AuthenticationFailed`] when it does not match.
    pub fn finish(mut self, tag: &[u8]) -> Result<(), Error> {
        check_tag_len(tag.len())?;
        let mut expected = self.0.full_tag();
        let matches = constant_time_eq(&expected[..tag.len()], tag);
        expected.zeroize();
        if matches {
            Ok(())
        } else {
            Err(Error::AuthenticationFailed)
        }
    }
}

// `Stream` wipes its buffers; `Sm4` and `OwnedHasher` wipe themselves.
impl ZeroizeOnDrop for Sm4GcmEncryptor {}
impl ZeroizeOnDrop for Sm4GcmDecryptor {}

impl core::fmt::Debug for Sm4GcmEncryptor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4GcmEncryptor")
            .field("backend", &self.0.cipher.backend().name())
            .finish_non_exhaustive()
    }
}

impl core::fmt::Debug for Sm4GcmDecryptor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4GcmDecryptor")
            .field("backend", &self.0.cipher.backend().name())
            .finish_non_exhaustive()
    }
}

impl Sm4Gcm {
    /// Starts an incremental encryption under `nonce` (any non-empty length, as
    /// [`Sm4Gcm::encrypt`]). The stream holds its own copy of the key schedule and hash key.
    pub fn encryptor(&self, nonce: &[u8]) -> Result<Sm4GcmEncryptor, Error> {
        Stream::new(self, nonce).map(Sm4GcmEncryptor)
    }

    /// Starts an incremental decryption under `nonce` (see [`Sm4GcmDecryptor`] on releasing
    /// plaintext before the tag is checked).
    pub fn decryptor(&self, nonce: &[u8]) -> Result<Sm4GcmDecryptor, Error> {
        Stream::new(self, nonce).map(Sm4GcmDecryptor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-granular hashing gives the one-shot GHASH whatever the split, including
    /// empty pieces and pieces that end exactly on a block.
    #[test]
    fn absorb_matches_one_call() {
        let gcm = Sm4Gcm::new(&[9; 16]);
        let data: Vec<u8> = (0..100u8).collect();
        let mut reference = gcm.ghash.start();
        reference.update_padded(&data);
        let expected = reference.finalize();
        for split in [
            [0, 0],
            [1, 1],
            [15, 16],
            [16, 32],
            [17, 50],
            [31, 99],
            [100, 100],
        ] {
            let mut stream = Stream::new(&gcm, &[1; 12]).unwrap();
            stream.absorb(&data[..split[0]]);
            stream.absorb(&data[split[0]..split[1]]);
            stream.absorb(&data[split[1]..]);
            stream.flush_padded();
            assert_eq!(stream.ghash.finalize_in_place(), expected, "{split:?}");
        }
    }
}
