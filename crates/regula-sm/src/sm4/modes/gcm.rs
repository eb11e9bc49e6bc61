//! Galois/Counter Mode (NIST SP 800-38D) with SM4 as the block cipher, as RFC 8998 uses it.
//!
//! * GHASH (SP 800-38D, 6.4) is chosen per key (see `gcm/ghash.rs`): VPCLMULQDQ on 512-bit
//!   (AVX-512) or 256-bit (AVX2) registers, or PCLMULQDQ, on x86-64, PMULL on aarch64, with powers of H precomputed and one
//!   reduction per 16 or 8 blocks; otherwise RustCrypto's `ghash`.
//! * GCTR (SP 800-38D, 6.5) runs through the wide SM4 backends many counter blocks at a time.
//!   GCM increments only the low 32 bits of the counter block (inc32, SP 800-38D, 6.2), so a
//!   batch is split where those bits wrap.
//! * Encryption interleaves GCTR and GHASH chunk by chunk, so each chunk is hashed while it is
//!   still in the L1 cache. Decryption hashes the whole ciphertext, checks the tag in constant
//!   time, and only then decrypts: on failure the buffer is left as it was.
//! * A short message (up to 63 blocks with the partial one) and E_K(J0), which masks the tag,
//!   are enciphered in one backend call: a single wide pass. A longer message goes through the
//!   in-place CTR path, all but its partial block; only that block and J0 go through a buffer,
//!   so that little keystream has to be wiped afterwards (wiping is byte by byte).

mod ghash;
mod stream;

pub use stream::{Sm4GcmDecryptor, Sm4GcmEncryptor};

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{Error, xor_block};
use crate::sm4::backend::Backend;
use crate::sm4::{BLOCK_SIZE, Block, KEY_SIZE, Sm4};

/// The GHASH implementation SM4-GCM keys use on this CPU (`ghash-vpclmulqdq-avx512`,
/// `ghash-vpclmulqdq-avx2`, `ghash-pclmulqdq`, `ghash-pmull` or `ghash-rustcrypto`), for `regula info`.
pub fn ghash_implementation() -> &'static str {
    ghash::Implementation::active().name()
}

/// The GHASH implementation chosen for this process: the one `REGULA_GHASH_BACKEND` names
/// (unset or empty: the fastest), or why that name cannot be served (SM4-GCM keys then use the
/// fastest, and the Regula module refuses SM4-GCM with this error).
pub fn ghash_selection() -> Result<&'static str, crate::sm4::backend::ForcedBackendError> {
    ghash::Implementation::selection()
        .as_ref()
        .map(|implementation| implementation.name())
        .map_err(Clone::clone)
}

/// Every GHASH implementation this CPU (and build) supports, by name, slowest first: for tests
/// that run SM4-GCM on each of them ([`Sm4Gcm::with_backends`]).
#[doc(hidden)]
pub fn ghash_implementations() -> Vec<&'static str> {
    ghash::Implementation::ALL
        .into_iter()
        .filter(|implementation| {
            ghash::Key::with_implementation(&[0; 16], *implementation).is_some()
        })
        .map(ghash::Implementation::name)
        .collect()
}

/// Length of a full GCM tag.
pub(crate) const TAG_SIZE: usize = 16;

/// Length of the recommended nonce: J0 = IV || 0^31 || 1 (SP 800-38D, 7.1 step 2).
const NONCE_SIZE_96: usize = 12;

/// Bytes encrypted and then hashed per step: 256 blocks, four times the widest backend batch,
/// small enough to stay in the L1 data cache between GCTR and GHASH.
const CHUNK: usize = 256 * BLOCK_SIZE;

/// Blocks enciphered by the one call that ends a message: the keystream for a whole short
/// message (at most `FINAL_BLOCKS − 1` blocks, including a partial one), or for the partial
/// block of a longer one, together with E_K(J0). 64 is the widest backend's batch.
const FINAL_BLOCKS: usize = 64;

/// The final batch of a short message (up to `SHORT_FINAL_BLOCKS − 1` blocks): a
/// [`FinalKeystream`] this size is cleared with a few stores, where the 1 KiB one took a
/// `memset` call on every message.
const SHORT_FINAL_BLOCKS: usize = 8;
/// The longest final part that fits a short batch beside E_K(J0).
const SHORT_FINAL_BYTES: usize = (SHORT_FINAL_BLOCKS - 1) * BLOCK_SIZE;

/// Longest plaintext: len(P) ≤ 2^39 − 256 bits (SP 800-38D, 5.2.1.1), i.e. 2^32 − 2 blocks, so
/// the 32-bit counter never comes back to inc32(J0).
const MAX_PLAINTEXT: u64 = (1 << 36) - 32;

/// Longest associated data and IV: len(A), len(IV) ≤ 2^64 − 1 bits (SP 800-38D, 5.2.1.1).
const MAX_AAD_OR_IV: u64 = (1 << 61) - 1;

/// SM4-GCM with an expanded key and hash subkey.
///
/// Nonces may have any length from 1 byte (96 bits is the recommended and fastest case; other
/// lengths derive J0 through GHASH). Tags are 16, 15, 14, 13, 12, 8 or 4 bytes (SP 800-38D,
/// 5.2.1.2; the 8- and 4-byte tags only under the constraints of its Appendix C).
///
/// The SM4 key schedule and the hash subkey H (with its powers) are zeroized when the value is
/// dropped.
///
/// ```
/// use regula_sm::sm4::modes::Sm4Gcm;
///
/// let gcm = Sm4Gcm::new(&[0x42; 16]);
/// let nonce = [7u8; 12];
/// let mut data = *b"attack at dawn";
/// let tag = gcm.encrypt(&nonce, b"header", &mut data)?;
/// gcm.decrypt(&nonce, b"header", &mut data, &tag)?;
/// assert_eq!(&data, b"attack at dawn");
/// assert!(gcm.decrypt(&nonce, b"other header", &mut data, &tag).is_err());
/// # Ok::<(), regula_sm::Error>(())
/// ```
#[derive(Clone)]
pub struct Sm4Gcm {
    cipher: Sm4,
    /// GHASH keyed with the hash subkey H = E_K(0^128) (SP 800-38D, 7.1 step 1), with its
    /// powers precomputed; wiped on drop.
    ghash: ghash::Key,
}

impl Sm4Gcm {
    /// Expands `key` on the fastest SM4 backend this CPU supports.
    pub fn new(key: &[u8; KEY_SIZE]) -> Self {
        Self::from_cipher(Sm4::new(key))
    }

    /// Expands `key` on a forced SM4 backend; `None` when this CPU (or build) lacks it.
    #[doc(hidden)]
    pub fn with_backend(key: &[u8; KEY_SIZE], backend: Backend) -> Option<Self> {
        Sm4::with_backend(key, backend).map(Self::from_cipher)
    }

    /// Expands `key` on a forced SM4 backend and GHASH implementation (a name from
    /// [`ghash_implementations`]); `None` when this CPU (or build) lacks either.
    #[doc(hidden)]
    pub fn with_backends(key: &[u8; KEY_SIZE], backend: Backend, ghash: &str) -> Option<Self> {
        let implementation = ghash::Implementation::ALL
            .into_iter()
            .find(|implementation| implementation.name() == ghash)?;
        let cipher = Sm4::with_backend(key, backend)?;
        let mut h = [0u8; BLOCK_SIZE];
        cipher.encrypt_block(&mut h);
        let ghash = ghash::Key::with_implementation(&h, implementation);
        h.zeroize();
        Some(Self {
            cipher,
            ghash: ghash?,
        })
    }

    fn from_cipher(cipher: Sm4) -> Self {
        let mut h = [0u8; BLOCK_SIZE];
        cipher.encrypt_block(&mut h);
        let ghash = ghash::Key::new(&h);
        h.zeroize();
        Self { cipher, ghash }
    }

    /// The SM4 backend this instance runs on.
    pub fn backend(&self) -> Backend {
        self.cipher.backend()
    }

    /// Encrypts `in_out` in place and returns the full 16-byte tag (SP 800-38D, 7.1).
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], in_out: &mut [u8]) -> Result<Block, Error> {
        let mut tag = [0u8; TAG_SIZE];
        self.encrypt_with_tag_len(nonce, aad, in_out, &mut tag)?;
        Ok(tag)
    }

    /// Encrypts `in_out` in place and writes a tag of `tag.len()` bytes (MSB_t of the full tag,
    /// SP 800-38D, 7.1 step 7). Nothing is written when an argument is rejected.
    pub fn encrypt_with_tag_len(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        self.seal(nonce, aad, None, in_out, tag)
    }

    /// Encrypts `plaintext` into `out` (of the same length) and writes a tag of `tag.len()`
    /// bytes, reading the plaintext where it lies: each piece is copied into `out` just before
    /// it is enciphered, while it is in the cache, instead of in one copy of the whole message
    /// first. Nothing is written when an argument is rejected.
    pub fn encrypt_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        if out.len() != plaintext.len() {
            return Err(Error::InvalidLength { len: out.len() });
        }
        self.seal(nonce, aad, Some(plaintext), out, tag)
    }

    /// Encrypts `out` in place, or `source` into `out` when given (the same length).
    fn seal(
        &self,
        nonce: &[u8],
        aad: &[u8],
        source: Option<&[u8]>,
        out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        check_tag_len(tag.len())?;
        check_lengths(nonce, aad, out.len())?;

        let j0 = self.pre_counter_block(nonce);
        let mut ghash = self.ghash.start();
        ghash.update_padded(aad);
        let text_len = out.len();
        let body_len = text_len - final_len(text_len);
        let (body, last) = out.split_at_mut(body_len);
        let mut counter = Counter::after(&j0);
        for (index, chunk) in body.chunks_mut(CHUNK).enumerate() {
            if let Some(source) = source {
                copy_in_pieces(chunk, &source[index * CHUNK..][..chunk.len()]);
            }
            // `body` is whole blocks, and so is every chunk of it.
            counter.xor_keystream(&self.cipher, chunk.as_chunks_mut().0);
            ghash.update_padded(chunk);
        }
        if let Some(source) = source {
            copy_in_pieces(last, &source[body_len..]);
        }
        let lengths = (aad.len(), text_len);
        let mut full = if last.len() <= SHORT_FINAL_BYTES {
            self.seal_last::<SHORT_FINAL_BLOCKS>(&mut counter, last, &j0, &mut ghash, lengths)
        } else {
            self.seal_last::<FINAL_BLOCKS>(&mut counter, last, &j0, &mut ghash, lengths)
        };
        // The common 16-byte tag as one fixed-size copy (a variable length was a `memcpy` call).
        match <&mut Block>::try_from(&mut *tag) {
            Ok(whole) => *whole = full,
            Err(_) => tag.copy_from_slice(&full[..tag.len()]),
        }
        full.zeroize();
        Ok(())
    }

    /// The end of [`Sm4Gcm::encrypt_with_tag_len`]: encrypts `last` with keystream made in one
    /// batch of at most `N` blocks together with E_K(J0), hashes it, and returns the full tag.
    #[inline(always)]
    fn seal_last<const N: usize>(
        &self,
        counter: &mut Counter,
        last: &mut [u8],
        j0: &Block,
        ghash: &mut ghash::Hasher<'_>,
        (aad_len, text_len): (usize, usize),
    ) -> Block {
        let mut keystream = FinalKeystream::<N>::EMPTY;
        keystream.fill(&self.cipher, counter, last.len(), j0);
        keystream.apply(last);
        ghash.update_padded(last);
        finish(ghash, keystream.mask(), aad_len as u64, text_len as u64)
    }

    /// Checks `tag` (16, 15, 14, 13, 12, 8 or 4 bytes) and decrypts `in_out` in place
    /// (SP 800-38D, 7.2).
    ///
    /// The tag is compared in constant time before anything is decrypted; on any error `in_out`
    /// is left unchanged.
    pub fn decrypt(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.open(nonce, aad, None, in_out, tag)
    }

    /// Checks `tag` and decrypts `ciphertext` into `out` (of the same length), reading the
    /// ciphertext where it lies, as [`Sm4Gcm::encrypt_into`] reads the plaintext. On any error
    /// `out` is left unchanged.
    pub fn decrypt_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<(), Error> {
        if out.len() != ciphertext.len() {
            return Err(Error::InvalidLength { len: out.len() });
        }
        self.open(nonce, aad, Some(ciphertext), out, tag)
    }

    /// Checks `tag` over `source` (or over `out` when there is none), then decrypts `out` in
    /// place, or `source` into `out`.
    fn open(
        &self,
        nonce: &[u8],
        aad: &[u8],
        source: Option<&[u8]>,
        out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        check_tag_len(tag.len())?;
        check_lengths(nonce, aad, out.len())?;

        let j0 = self.pre_counter_block(nonce);
        let mut ghash = self.ghash.start();
        ghash.update_padded(aad);
        ghash.update_padded(source.unwrap_or(out));
        let text_len = out.len();
        // E_K(J0) comes with the keystream for the last blocks, made before the check (it is
        // keystream, not plaintext) and wiped when it goes out of scope.
        let last_len = final_len(text_len);
        let lengths = (aad.len(), text_len, last_len);
        if last_len <= SHORT_FINAL_BYTES {
            self.open_last::<SHORT_FINAL_BLOCKS>(source, out, &j0, &mut ghash, lengths, tag)
        } else {
            self.open_last::<FINAL_BLOCKS>(source, out, &j0, &mut ghash, lengths, tag)
        }
    }

    /// The end of [`Sm4Gcm::open`], with the keystream for the last bytes and E_K(J0) made in
    /// one batch of at most `N` blocks.
    #[inline(always)]
    fn open_last<const N: usize>(
        &self,
        source: Option<&[u8]>,
        out: &mut [u8],
        j0: &Block,
        ghash: &mut ghash::Hasher<'_>,
        (aad_len, text_len, last_len): (usize, usize, usize),
        tag: &[u8],
    ) -> Result<(), Error> {
        let body_len = text_len - last_len;
        let mut body_counter = Counter::after(j0);
        let mut last_counter = body_counter.skipping(body_len / BLOCK_SIZE);
        let mut keystream = FinalKeystream::<N>::EMPTY;
        keystream.fill(&self.cipher, &mut last_counter, text_len - body_len, j0);
        let mut expected = finish(ghash, keystream.mask(), aad_len as u64, text_len as u64);
        let matches = constant_time_eq(&expected[..tag.len()], tag);
        expected.zeroize();
        if !matches {
            return Err(Error::AuthenticationFailed);
        }
        let (body, last) = out.split_at_mut(body_len);
        match source {
            None => body_counter.xor_keystream(&self.cipher, body.as_chunks_mut().0),
            Some(source) => {
                for (index, chunk) in body.chunks_mut(CHUNK).enumerate() {
                    copy_in_pieces(chunk, &source[index * CHUNK..][..chunk.len()]);
                    body_counter.xor_keystream(&self.cipher, chunk.as_chunks_mut().0);
                }
                copy_in_pieces(last, &source[body_len..]);
            }
        }
        keystream.apply(last);
        Ok(())
    }

    /// J0 (SP 800-38D, 7.1 step 2): IV || 0^31 || 1 for a 96-bit IV, otherwise
    /// GHASH_H(IV || 0^(s+64) || [len(IV)]_64).
    fn pre_counter_block(&self, nonce: &[u8]) -> Block {
        if nonce.len() == NONCE_SIZE_96 {
            let mut j0 = [0u8; BLOCK_SIZE];
            j0[..NONCE_SIZE_96].copy_from_slice(nonce);
            j0[BLOCK_SIZE - 1] = 1;
            return j0;
        }
        let mut ghash = self.ghash.start();
        ghash.update_padded(nonce);
        ghash.update_block(&lengths_block(0, nonce.len() as u64));
        ghash.finalize()
    }
}

/// The full tag E_K(J0) ^ GHASH_H(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64)
/// (SP 800-38D, 7.1 steps 5–6), given GHASH over the padded A and C and `mask` = E_K(J0).
/// The hasher is taken by reference: moved in by value, it was copied with `memcpy` on every
/// message. The caller drops it, which wipes it.
#[inline(always)]
fn finish(ghash: &mut impl ghash::Absorb, mask: &Block, aad_len: u64, text_len: u64) -> Block {
    ghash.update_block(&lengths_block(aad_len, text_len));
    let mut tag = ghash.finalize_in_place();
    xor_block(&mut tag, mask);
    tag
}

/// How many bytes at the end of a `text_len`-byte message go through [`FinalKeystream`]: all
/// of them when they fit beside J0 in one batch, otherwise only the partial block, if any.
///
/// Filling the batch with the last whole blocks of a long message would save no backend pass
/// (the body would then end with a short pass instead) but would leave up to 1 KiB of
/// keystream to wipe, about 5% of the time of an 8 KiB message.
fn final_len(text_len: usize) -> usize {
    let tail = text_len % BLOCK_SIZE;
    let room = FINAL_BLOCKS - 1 - usize::from(tail != 0);
    if text_len / BLOCK_SIZE <= room {
        text_len
    } else {
        tail
    }
}

/// The GCTR keystream (SP 800-38D, 6.5) for the last bytes of a message, made in one call to
/// the backend together with E_K(J0) (7.1 step 6). Wiped on drop.
struct FinalKeystream<const N: usize> {
    blocks: [Block; N],
    /// Keystream blocks before E_K(J0) in `blocks`.
    len: usize,
}

impl<const N: usize> FinalKeystream<N> {
    /// An empty keystream; [`FinalKeystream::fill`] makes it. Two steps, because Rust does
    /// not promise to build a returned value in the caller's frame: a constructor returning
    /// `Self` copied the 1 KiB array on every message.
    const EMPTY: FinalKeystream<N> = FinalKeystream {
        blocks: [[0u8; BLOCK_SIZE]; N],
        len: 0,
    };

    /// Keystream for `text_len` ≤ [`final_len`] bytes (at most `N − 1` blocks) from `counter`
    /// on, and E_K(`j0`).
    fn fill(&mut self, cipher: &Sm4, counter: &mut Counter, text_len: usize, j0: &Block) {
        let len = text_len.div_ceil(BLOCK_SIZE);
        self.len = len;
        for block in &mut self.blocks[..len] {
            *block = counter.block();
            counter.low = counter.low.wrapping_add(1);
        }
        self.blocks[len] = *j0;
        cipher.encrypt_blocks(&mut self.blocks[..=len]);
    }

    /// XORs the keystream into `data` (at most the `text_len` bytes it was made for).
    fn apply(&self, data: &mut [u8]) {
        for (chunk, key) in data.chunks_mut(BLOCK_SIZE).zip(&self.blocks[..self.len]) {
            for (byte, key) in chunk.iter_mut().zip(key) {
                *byte ^= key;
            }
        }
    }

    /// E_K(J0), which masks the tag.
    fn mask(&self) -> &Block {
        &self.blocks[self.len]
    }
}

impl<const N: usize> Drop for FinalKeystream<N> {
    fn drop(&mut self) {
        self.blocks[..=self.len].as_flattened_mut().zeroize();
    }
}

// Both fields wipe themselves: `Sm4` its key schedule, `ghash::Key` H and its powers.
impl ZeroizeOnDrop for Sm4Gcm {}

impl core::fmt::Debug for Sm4Gcm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4Gcm")
            .field("backend", &self.backend().name())
            .finish_non_exhaustive()
    }
}

/// The GCM counter block CB_i: the 96 fixed high bits of J0 and a 32-bit counter that wraps
/// modulo 2^32 (inc32, SP 800-38D, 6.2).
#[derive(Clone)]
struct Counter {
    /// J0 with the low 32 bits cleared.
    fixed: u128,
    /// The low 32 bits of the next counter block.
    low: u32,
}

impl Counter {
    /// CB_1 = inc32(J0) (SP 800-38D, 7.1 step 3).
    fn after(j0: &Block) -> Self {
        let j0 = u128::from_be_bytes(*j0);
        Self {
            fixed: j0 & !u128::from(u32::MAX),
            low: (j0 as u32).wrapping_add(1),
        }
    }

    /// The counter `blocks` blocks further on (inc32 applied `blocks` times).
    fn skipping(&self, blocks: usize) -> Self {
        Self {
            fixed: self.fixed,
            // Modulo 2^32, like inc32.
            low: self.low.wrapping_add(blocks as u32),
        }
    }

    /// The current counter block.
    fn block(&self) -> Block {
        (self.fixed | u128::from(self.low)).to_be_bytes()
    }

    /// XORs E_K(CB_i), E_K(CB_{i+1}), ... into `blocks` and advances past them. The crate's
    /// CTR primitive counts modulo 2^128, so each call is cut where the low 32 bits would
    /// carry into the fixed bits.
    fn xor_keystream(&mut self, cipher: &Sm4, mut blocks: &mut [Block]) {
        while !blocks.is_empty() {
            let before_wrap = (u64::from(u32::MAX - self.low) + 1).min(blocks.len() as u64);
            // `before_wrap` ≤ blocks.len(), so it fits in a usize.
            let (now, later) = blocks.split_at_mut(before_wrap as usize);
            cipher.ctr_xor_blocks(self.fixed | u128::from(self.low), now);
            // Truncation is the point: the counter is modulo 2^32.
            self.low = self.low.wrapping_add(before_wrap as u32);
            blocks = later;
        }
    }
}

/// Copies `source` into `destination` (the same length) in pieces of at most 1 KiB. One copy of
/// a whole message is a `memcpy` large enough for glibc to use `rep movsb`, which on some CPUs
/// (AMD Zen 3) runs at under 2 GB/s when the two buffers lie a few bytes apart modulo 4 KiB, as
/// two neighbouring heap buffers often do; pieces this size take its vector loop.
fn copy_in_pieces(destination: &mut [u8], source: &[u8]) {
    const PIECE: usize = 1024;
    for (to, from) in destination.chunks_mut(PIECE).zip(source.chunks(PIECE)) {
        to.copy_from_slice(from);
    }
}

/// [len(A)]_64 || [len(C)]_64, bit lengths as big-endian 64-bit integers (SP 800-38D, 7.1
/// step 5). The callers checked the lengths, so the bit counts fit.
fn lengths_block(aad_len: u64, text_len: u64) -> Block {
    let bits = |len: u64| len.wrapping_mul(8);
    ((u128::from(bits(aad_len)) << 64) | u128::from(bits(text_len))).to_be_bytes()
}

/// Tag lengths of SP 800-38D, 5.2.1.2: 128, 120, 112, 104, 96, and (Appendix C) 64 and 32 bits.
fn check_tag_len(len: usize) -> Result<(), Error> {
    match len {
        4 | 8 | 12..=16 => Ok(()),
        _ => Err(Error::InvalidTagLength { len }),
    }
}

/// Input limits of SP 800-38D, 5.2.1.1.
fn check_lengths(nonce: &[u8], aad: &[u8], text_len: usize) -> Result<(), Error> {
    check_nonce_len(nonce)?;
    check_aad_len(aad.len() as u64)?;
    check_text_len(text_len as u64)
}

/// len(IV) between 1 bit (here: 1 byte) and 2^64 − 1 bits (SP 800-38D, 5.2.1.1).
fn check_nonce_len(nonce: &[u8]) -> Result<(), Error> {
    if nonce.is_empty() || nonce.len() as u64 > MAX_AAD_OR_IV {
        return Err(Error::InvalidNonceLength { len: nonce.len() });
    }
    Ok(())
}

/// len(A) ≤ 2^64 − 1 bits (SP 800-38D, 5.2.1.1), for `len` bytes of associated data so far.
fn check_aad_len(len: u64) -> Result<(), Error> {
    if len > MAX_AAD_OR_IV {
        return Err(Error::MessageTooLong {
            len: usize::try_from(len).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// len(P) ≤ 2^39 − 256 bits (SP 800-38D, 5.2.1.1), for `len` bytes of text so far.
fn check_text_len(len: u64) -> Result<(), Error> {
    if len > MAX_PLAINTEXT {
        return Err(Error::MessageTooLong {
            len: usize::try_from(len).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// Compares two equal-length byte strings without data-dependent branches or early exit.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // Keep the compiler from turning the fold into a short-circuiting comparison.
    core::hint::black_box(difference) == 0 && a.len() == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// inc32 keeps the high 96 bits and wraps the low 32 (SP 800-38D, 6.2), also inside a batch
    /// handed to the wide backends: compare with one block at a time.
    #[test]
    fn counter_wraps_low_32_bits_only() {
        for backend in crate::sm4::backend::available() {
            let cipher = Sm4::with_backend(&[0x5a; KEY_SIZE], backend).unwrap();
            for start in [u32::MAX - 70, u32::MAX - 1, u32::MAX, 0, 5] {
                let mut j0 = [0xffu8; BLOCK_SIZE];
                j0[..4].copy_from_slice(&[1, 2, 3, 4]);
                j0[12..].copy_from_slice(&start.wrapping_sub(1).to_be_bytes());
                let mut counter = Counter::after(&j0);
                let mut batch = [[0u8; BLOCK_SIZE]; 150];
                counter.xor_keystream(&cipher, &mut batch[..1]);
                counter.xor_keystream(&cipher, &mut batch[1..]);

                let mut expected = [[0u8; BLOCK_SIZE]; 150];
                for (i, block) in expected.iter_mut().enumerate() {
                    block[..12].copy_from_slice(&j0[..12]);
                    block[12..].copy_from_slice(&start.wrapping_add(i as u32).to_be_bytes());
                    cipher.encrypt_block(block);
                }
                assert_eq!(batch, expected, "{backend}, start {start:#x}");
                assert_eq!(counter.low, start.wrapping_add(150));
            }
        }
    }

    /// The final batch counts like the bulk path, across the 32-bit wrap, and ends with E(J0).
    #[test]
    fn final_keystream_wraps_and_masks() {
        fn check<const N: usize>(cipher: &Sm4, j0: &Block, text_len: usize) {
            let mut counter = Counter::after(j0);
            let mut keystream = FinalKeystream::<N>::EMPTY;
            keystream.fill(cipher, &mut counter, text_len, j0);
            let mut data = vec![0u8; text_len];
            keystream.apply(&mut data);

            let mut by_block = Counter::after(j0);
            let mut expected = vec![[0u8; BLOCK_SIZE]; text_len.div_ceil(BLOCK_SIZE)];
            by_block.xor_keystream(cipher, &mut expected);
            let backend = cipher.backend();
            assert_eq!(
                data,
                expected.as_flattened()[..text_len],
                "{backend} {text_len} in {N} blocks"
            );
            assert_eq!(counter.low, by_block.low);
            let mut mask = *j0;
            cipher.encrypt_block(&mut mask);
            assert_eq!(*keystream.mask(), mask);
        }
        for backend in crate::sm4::backend::available() {
            let cipher = Sm4::with_backend(&[0xa5; KEY_SIZE], backend).unwrap();
            let mut j0 = [0x11u8; BLOCK_SIZE];
            j0[12..].copy_from_slice(&(u32::MAX - 3).to_be_bytes());
            for text_len in [0, 1, 16, 17, 100, 16 * 63, 16 * 62 + 15, final_len(10_001)] {
                check::<FINAL_BLOCKS>(&cipher, &j0, text_len);
            }
            for text_len in [0, 1, 16, 17, 64, 65, 100, SHORT_FINAL_BYTES] {
                check::<SHORT_FINAL_BLOCKS>(&cipher, &j0, text_len);
            }
            assert_eq!(final_len(10_001), 1);
            assert_eq!(final_len(16 * 100), 0);
            assert_eq!(final_len(16 * 63), 16 * 63);
            assert_eq!(final_len(16 * 64), 0);
            assert_eq!(final_len(16 * 62 + 1), 16 * 62 + 1);
            assert_eq!(final_len(16 * 63 + 1), 1);
            assert_eq!(final_len(5), 5);
        }
    }

    /// SM4-GCM with every GHASH implementation this CPU supports agrees with SM4-GCM on
    /// RustCrypto `ghash`, across the 8- and 16-block batches, the 4 KiB chunks and the final
    /// batch, with AAD and non-96-bit nonces (J0 through GHASH).
    #[test]
    fn every_ghash_implementation_seals_alike() {
        use self::ghash::Implementation;

        let key = [0x3c; KEY_SIZE];
        let with = |implementation| {
            let cipher = Sm4::new(&key);
            let mut h = [0u8; BLOCK_SIZE];
            cipher.encrypt_block(&mut h);
            self::ghash::Key::with_implementation(&h, implementation)
                .map(|ghash| Sm4Gcm { cipher, ghash })
        };
        let reference = with(Implementation::RustCrypto).unwrap();
        let mut checked = 0;
        for implementation in Implementation::ALL {
            let Some(gcm) = with(implementation) else {
                continue;
            };
            for (i, len) in [
                0, 1, 15, 16, 17, 127, 128, 129, 255, 256, 257, 1000, 4096, 4097, 9000,
            ]
            .into_iter()
            .enumerate()
            {
                let nonce: Vec<u8> = (0..[12, 1, 16, 60][i % 4]).map(|b| b as u8).collect();
                let aad: Vec<u8> = (0..(i * 37) % 300).map(|b| (b * 7) as u8).collect();
                let plaintext: Vec<u8> = (0..len).map(|b| (b * 13 + i) as u8).collect();
                let mut expected = plaintext.clone();
                let expected_tag = reference.encrypt(&nonce, &aad, &mut expected).unwrap();
                let mut sealed = plaintext.clone();
                let tag = gcm.encrypt(&nonce, &aad, &mut sealed).unwrap();
                let name = implementation.name();
                assert_eq!(
                    (&sealed, tag),
                    (&expected, expected_tag),
                    "{name} len {len}"
                );
                gcm.decrypt(&nonce, &aad, &mut sealed, &tag).unwrap();
                assert_eq!(sealed, plaintext, "{name} len {len}");
                checked += 1;
            }
        }
        assert!(checked >= 15, "{checked}");
    }

    #[test]
    fn lengths_are_bits() {
        assert_eq!(
            lengths_block(20, 64),
            hex_block("00000000000000a00000000000000200")
        );
    }

    fn hex_block(text: &str) -> Block {
        let mut block = [0u8; BLOCK_SIZE];
        for (i, byte) in block.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap();
        }
        block
    }

    #[test]
    fn constant_time_eq_compares() {
        assert!(constant_time_eq(b"", b""));
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"\x80bc", b"abc"));
    }
}
