//! Counter with CBC-MAC (NIST SP 800-38C) with SM4 as the block cipher, as RFC 8998 uses it.
//!
//! The formatting function and counter blocks are those of SP 800-38C, Appendix A. The CBC-MAC
//! is sequential, one block at a time; the CTR part runs through the crate's wide CTR path (the
//! q-byte counter field never overflows for an allowed payload length, so counting the whole
//! block modulo 2^128 gives the same counter blocks).
//!
//! Decryption has to decrypt before it can check the tag; on a mismatch the keystream is applied
//! again, so the caller's buffer holds the ciphertext it passed in and no plaintext is released.

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::gcm::constant_time_eq;
use super::{Ctr, Error, xor_block};
use crate::sm4::backend::Backend;
use crate::sm4::{BLOCK_SIZE, Block, KEY_SIZE, Sm4};

/// Nonce lengths n: 7 ≤ n ≤ 13 bytes (SP 800-38C, A.1), so the length field has q = 15 − n bytes.
const NONCE_LENGTHS: core::ops::RangeInclusive<usize> = 7..=13;

/// SM4-CCM with an expanded key.
///
/// Nonces are 7 to 13 bytes (RFC 8998 uses 12); tags are 4, 6, 8, 10, 12, 14 or 16 bytes
/// (SP 800-38C, A.1). A nonce of n bytes limits the payload to 2^(8(15 − n)) − 1 bytes.
///
/// The SM4 key schedule is zeroized when the value is dropped.
///
/// ```
/// use regula_sm::sm4::modes::Sm4Ccm;
///
/// let ccm = Sm4Ccm::new(&[0x42; 16]);
/// let nonce = [7u8; 12];
/// let mut data = *b"attack at dawn";
/// let tag = ccm.encrypt(&nonce, b"header", &mut data)?;
/// ccm.decrypt(&nonce, b"header", &mut data, &tag)?;
/// assert_eq!(&data, b"attack at dawn");
/// # Ok::<(), regula_sm::Error>(())
/// ```
#[derive(Clone)]
pub struct Sm4Ccm {
    cipher: Sm4,
}

impl Sm4Ccm {
    /// Expands `key` on the fastest SM4 backend this CPU supports.
    pub fn new(key: &[u8; KEY_SIZE]) -> Self {
        Self {
            cipher: Sm4::new(key),
        }
    }

    /// Expands `key` on a forced SM4 backend; `None` when this CPU (or build) lacks it.
    #[doc(hidden)]
    pub fn with_backend(key: &[u8; KEY_SIZE], backend: Backend) -> Option<Self> {
        Sm4::with_backend(key, backend).map(|cipher| Self { cipher })
    }

    /// The SM4 backend this instance runs on.
    pub fn backend(&self) -> Backend {
        self.cipher.backend()
    }

    /// Encrypts `in_out` in place and returns a 16-byte tag (SP 800-38C, 6.1).
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], in_out: &mut [u8]) -> Result<Block, Error> {
        let mut tag = [0u8; BLOCK_SIZE];
        self.encrypt_with_tag_len(nonce, aad, in_out, &mut tag)?;
        Ok(tag)
    }

    /// Encrypts `in_out` in place and writes a tag of `tag.len()` bytes, which is part of the
    /// CCM parameters (SP 800-38C, 6.1). Nothing is written when an argument is rejected.
    pub fn encrypt_with_tag_len(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        check_parameters(nonce, tag.len(), in_out.len())?;
        let mut mac = self.cbc_mac(nonce, aad, in_out, tag.len());
        let mut ctr = Ctr::new(&self.cipher, &counter_block(nonce));
        // S_0 masks the tag; S_1, S_2, ... encrypt the payload (SP 800-38C, 6.1 steps 5–8).
        ctr.apply_keystream(&mut mac);
        ctr.apply_keystream(in_out);
        tag.copy_from_slice(&mac[..tag.len()]);
        mac.zeroize();
        Ok(())
    }

    /// Decrypts `in_out` in place and checks `tag` in constant time (SP 800-38C, 6.2).
    ///
    /// On any error `in_out` holds the ciphertext that was passed in.
    pub fn decrypt(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        check_parameters(nonce, tag.len(), in_out.len())?;
        let counter0 = counter_block(nonce);
        let mut mask = [0u8; BLOCK_SIZE];
        let mut ctr = Ctr::new(&self.cipher, &counter0);
        ctr.apply_keystream(&mut mask);
        ctr.apply_keystream(in_out);

        let mut expected = self.cbc_mac(nonce, aad, in_out, tag.len());
        xor_block(&mut expected, &mask);
        let matches = constant_time_eq(&expected[..tag.len()], tag);
        expected.zeroize();
        mask.zeroize();
        if !matches {
            // Re-encrypt: the keystream from S_1 on turns the plaintext back into ciphertext.
            let mut ctr = Ctr::new(&self.cipher, &counter0);
            ctr.apply_keystream(&mut mask);
            ctr.apply_keystream(in_out);
            mask.zeroize();
            return Err(Error::AuthenticationFailed);
        }
        Ok(())
    }

    /// The full CBC-MAC T over B_0, the encoded associated data and the payload, before
    /// truncation to t bytes and masking (SP 800-38C, 6.1 steps 1–4; A.2 formatting).
    fn cbc_mac(&self, nonce: &[u8], aad: &[u8], payload: &[u8], tag_len: usize) -> Block {
        let q = BLOCK_SIZE - 1 - nonce.len();
        // B_0 = flags || N || Q (A.2.1): flags = 64·Adata + 8·((t − 2)/2) + (q − 1).
        let mut b0 = [0u8; BLOCK_SIZE];
        b0[0] = (u8::from(!aad.is_empty()) << 6) | (((tag_len as u8 - 2) / 2) << 3) | (q as u8 - 1);
        b0[1..=nonce.len()].copy_from_slice(nonce);
        let length = (payload.len() as u64).to_be_bytes();
        // `check_parameters` ensured the length fits in q bytes.
        let field = q.min(length.len());
        b0[BLOCK_SIZE - field..].copy_from_slice(&length[length.len() - field..]);

        let mut mac = CbcMac::new(&self.cipher);
        mac.update(&b0);
        if !aad.is_empty() {
            // The associated data with its length encoding (A.2.2), zero-padded to a block.
            let len = aad.len() as u64;
            let mut header = [0u8; 10];
            let header = if len < (1 << 16) - (1 << 8) {
                header[..2].copy_from_slice(&(len as u16).to_be_bytes());
                &header[..2]
            } else if len < 1 << 32 {
                header[..2].copy_from_slice(&[0xff, 0xfe]);
                header[2..6].copy_from_slice(&(len as u32).to_be_bytes());
                &header[..6]
            } else {
                header[..2].copy_from_slice(&[0xff, 0xff]);
                header[2..].copy_from_slice(&len.to_be_bytes());
                &header[..]
            };
            mac.update(header);
            mac.update(aad);
            mac.pad();
        }
        // The payload, zero-padded to a block (A.2.3).
        mac.update(payload);
        mac.pad();
        mac.finish()
    }
}

impl ZeroizeOnDrop for Sm4Ccm {}

impl core::fmt::Debug for Sm4Ccm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4Ccm")
            .field("backend", &self.backend().name())
            .finish_non_exhaustive()
    }
}

/// Ctr_0 = flags || N || [0]_q with flags = q − 1 (SP 800-38C, A.3).
fn counter_block(nonce: &[u8]) -> Block {
    let mut block = [0u8; BLOCK_SIZE];
    block[0] = (BLOCK_SIZE - 2 - nonce.len()) as u8;
    block[1..=nonce.len()].copy_from_slice(nonce);
    block
}

/// Parameter checks of SP 800-38C, A.1: n ∈ {7, …, 13}, t ∈ {4, 6, …, 16}, and the payload
/// length must fit in the q = 15 − n byte field.
fn check_parameters(nonce: &[u8], tag_len: usize, payload_len: usize) -> Result<(), Error> {
    if !NONCE_LENGTHS.contains(&nonce.len()) {
        return Err(Error::InvalidNonceLength { len: nonce.len() });
    }
    if !matches!(tag_len, 4 | 6 | 8 | 10 | 12 | 14 | 16) {
        return Err(Error::InvalidTagLength { len: tag_len });
    }
    let q = BLOCK_SIZE - 1 - nonce.len();
    if q < 8 && payload_len as u64 >> (8 * q) != 0 {
        return Err(Error::MessageTooLong { len: payload_len });
    }
    Ok(())
}

/// CBC-MAC with a zero IV, fed as a byte stream: Y_i = E_K(B_i ^ Y_{i−1}) (SP 800-38C, 6.1
/// step 3). Bytes are XORed straight into the chaining value, so zero padding is free.
struct CbcMac<'a> {
    cipher: &'a Sm4,
    y: Block,
    /// Bytes of the current block absorbed so far (0..16).
    used: usize,
}

impl<'a> CbcMac<'a> {
    fn new(cipher: &'a Sm4) -> Self {
        Self {
            cipher,
            y: [0; BLOCK_SIZE],
            used: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        if self.used > 0 {
            let take = data.len().min(BLOCK_SIZE - self.used);
            for (y, byte) in self.y[self.used..].iter_mut().zip(&data[..take]) {
                *y ^= byte;
            }
            self.used += take;
            data = &data[take..];
            if self.used < BLOCK_SIZE {
                return;
            }
            self.cipher.encrypt_block(&mut self.y);
            self.used = 0;
        }
        let (blocks, tail) = data.as_chunks::<BLOCK_SIZE>();
        for block in blocks {
            xor_block(&mut self.y, block);
            self.cipher.encrypt_block(&mut self.y);
        }
        for (y, byte) in self.y.iter_mut().zip(tail) {
            *y ^= byte;
        }
        self.used = tail.len();
    }

    /// Ends the current block with zero bytes.
    fn pad(&mut self) {
        if self.used > 0 {
            self.cipher.encrypt_block(&mut self.y);
            self.used = 0;
        }
    }

    fn finish(self) -> Block {
        // A copy out; the chaining value itself is wiped by `Drop`.
        self.y
    }
}

impl Drop for CbcMac<'_> {
    fn drop(&mut self) {
        self.y.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_follow_sp800_38c_a1() {
        for n in 0..=20 {
            let ok = check_parameters(&vec![0; n], 16, 0).is_ok();
            assert_eq!(ok, (7..=13).contains(&n), "nonce {n}");
        }
        for t in 0..=20 {
            let ok = check_parameters(&[0; 12], t, 0).is_ok();
            assert_eq!(ok, [4, 6, 8, 10, 12, 14, 16].contains(&t), "tag {t}");
        }
        // n = 13 leaves q = 2 bytes for the payload length.
        assert!(check_parameters(&[0; 13], 16, 0xffff).is_ok());
        assert_eq!(
            check_parameters(&[0; 13], 16, 0x1_0000),
            Err(Error::MessageTooLong { len: 0x1_0000 })
        );
        assert!(check_parameters(&[0; 12], 16, 0xff_ffff).is_ok());
        assert!(check_parameters(&[0; 12], 16, 0x100_0000).is_err());
    }
}
