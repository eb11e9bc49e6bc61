//! The keyed state behind a cipher stream (`service/cipher_stream.rs`): the AES modes, AES-XTS
//! and the legacy ciphers run through an AWS-LC `EVP_CIPHER_CTX`, whose update/final semantics
//! (buffering, PKCS#7 padding, keystream position) are OpenSSL's; the SM4 modes run on
//! regula-sm's block and mode functions, with the chaining value, feedback register or counter
//! kept here between calls.
//!
//! Nothing secret chooses a branch or an index here: positions and lengths come from the
//! lengths the caller passed, and the PKCS#7 check is branch-free until its verdict.

use regula_sm::Sm4;
use regula_sm::sm4::modes::{self as sm4_modes, Xts};
use zeroize::{Zeroize, Zeroizing};

use super::awslc_sys::{StreamCipher, StreamCtx};
use super::cipher::CipherBackend;
use super::sm::Sm4Mode;
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};

/// AES and SM4 block size.
const BLOCK: usize = 16;

/// A copy of the raw key for the ciphers whose one-shot backend keeps only aws-lc-rs's expanded
/// key (AES-CTR, AES-CBC), so that a stream can key an EVP context; empty for the others, whose
/// backend already holds what a stream needs. Wiped on drop.
pub(crate) struct StreamKey(Option<(Zeroizing<[u8; 32]>, usize)>);

impl StreamKey {
    pub(crate) fn new(algorithm: Algorithm, key: &[u8]) -> StreamKey {
        let copied = matches!(
            algorithm,
            Algorithm::Aes128Ctr
                | Algorithm::Aes256Ctr
                | Algorithm::Aes128Cbc
                | Algorithm::Aes256Cbc
        ) && key.len() <= 32;
        StreamKey(copied.then(|| {
            let mut bytes = Zeroizing::new([0u8; 32]);
            bytes[..key.len()].copy_from_slice(key);
            (bytes, key.len())
        }))
    }

    fn bytes(&self) -> Option<&[u8]> {
        self.0.as_ref().map(|(bytes, len)| &bytes[..*len])
    }
}

/// The EVP cipher that streams `algorithm`, for those AWS-LC serves.
fn stream_cipher(algorithm: Algorithm) -> Option<StreamCipher> {
    Some(match algorithm {
        Algorithm::Aes128Cbc => StreamCipher::Aes128Cbc,
        Algorithm::Aes256Cbc => StreamCipher::Aes256Cbc,
        Algorithm::Aes128Ctr => StreamCipher::Aes128Ctr,
        Algorithm::Aes256Ctr => StreamCipher::Aes256Ctr,
        Algorithm::Aes128Cfb8 => StreamCipher::Aes128Cfb8,
        Algorithm::Aes256Cfb8 => StreamCipher::Aes256Cfb8,
        Algorithm::Aes256Xts => StreamCipher::Aes256Xts,
        Algorithm::Rc4 => StreamCipher::Rc4,
        Algorithm::DesCbc => StreamCipher::DesCbc,
        Algorithm::DesEde3Cbc => StreamCipher::DesEde3Cbc,
        _ => return None,
    })
}

/// One stream's keyed state.
pub(crate) enum StreamBackend {
    /// AWS-LC's EVP interface: AES-CBC/CTR/CFB8, AES-256-XTS, RC4, DES-CBC, 3DES-CBC.
    Evp(StreamCtx),
    /// SM4-ECB, -CBC, -CTR, -OFB and -CFB (regula-sm).
    Sm4(Box<Sm4Stream>),
    /// SM4-XTS (IEEE 1619 or GB/T 17964): each update is one data unit under the tweak.
    Sm4Xts {
        xts: Box<Xts>,
        tweak: [u8; BLOCK],
        encrypt: bool,
    },
}

impl StreamBackend {
    /// Keys a stream from a cipher key's backend. `iv` has the length the key's
    /// [`CipherBackend::iv_len`] asks for (checked by the caller); `None` comes back for the
    /// modes that have no stream (key wrapping, CBC-CS3), which the caller refuses first.
    pub(crate) fn new(
        algorithm: Algorithm,
        backend: &CipherBackend,
        stream_key: &StreamKey,
        encrypt: bool,
        iv: &[u8],
    ) -> Result<StreamBackend> {
        let evp = |key: &[u8]| {
            let cipher = stream_cipher(algorithm).ok_or(Error::CryptoFailure)?;
            let iv = (!iv.is_empty()).then_some(iv);
            StreamCtx::new(cipher, key, iv, encrypt)
                .map(StreamBackend::Evp)
                .map_err(|_| Error::CryptoFailure)
        };
        let block_iv = || <[u8; BLOCK]>::try_from(iv).map_err(|_| Error::CryptoFailure);
        match backend {
            CipherBackend::Ctr(..) | CipherBackend::Cbc(..) => {
                evp(stream_key.bytes().ok_or(Error::CryptoFailure)?)
            }
            CipherBackend::Cfb8(_, key) | CipherBackend::Evp(_, key) => evp(key),
            CipherBackend::Sm4(cipher, mode) => {
                let mode = match mode {
                    Sm4Mode::Ecb => Sm4StreamMode::Ecb,
                    Sm4Mode::CbcPkcs7 => Sm4StreamMode::Cbc,
                    Sm4Mode::Ctr => Sm4StreamMode::Ctr,
                    Sm4Mode::Ofb => Sm4StreamMode::Ofb,
                    Sm4Mode::Cfb => Sm4StreamMode::Cfb,
                    Sm4Mode::CbcCs3 => return Err(Error::CryptoFailure),
                };
                let iv = if mode == Sm4StreamMode::Ecb {
                    [0; BLOCK]
                } else {
                    block_iv()?
                };
                Ok(StreamBackend::Sm4(Box::new(Sm4Stream::new(
                    (**cipher).clone(),
                    mode,
                    encrypt,
                    &iv,
                ))))
            }
            CipherBackend::Sm4Xts(xts) => Ok(StreamBackend::Sm4Xts {
                xts: xts.clone(),
                tweak: block_iv()?,
                encrypt,
            }),
            CipherBackend::AesCs3(..) | CipherBackend::Wrap { .. } => Err(Error::CryptoFailure),
        }
    }

    /// The block size as OpenSSL reports it: 16 for AES/SM4 ECB and CBC, 8 for DES and 3DES, 1
    /// for the stream modes (CTR, OFB, CFB, CFB8, XTS, RC4).
    pub(crate) fn block_size(&self) -> usize {
        match self {
            StreamBackend::Evp(ctx) => ctx.block_size(),
            StreamBackend::Sm4(stream) => stream.block_size(),
            StreamBackend::Sm4Xts { .. } => 1,
        }
    }

    pub(crate) fn set_padding(&mut self, padding: bool) -> Result<()> {
        match self {
            StreamBackend::Evp(ctx) => ctx.set_padding(padding).map_err(|_| Error::CryptoFailure),
            StreamBackend::Sm4(stream) => {
                stream.padding = padding;
                Ok(())
            }
            StreamBackend::Sm4Xts { .. } => Ok(()),
        }
    }

    /// Processes `input`; `output` holds at least what the stream's bookkeeping says this call
    /// writes. Returns the number of bytes written; on error the caller wipes `output`.
    pub(crate) fn update(
        &mut self,
        algorithm: Algorithm,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize> {
        match self {
            StreamBackend::Evp(ctx) => {
                let room = ctx.update_room(input.len());
                if output.len() >= room {
                    return ctx.update(input, output).map_err(|_| Error::CryptoFailure);
                }
                // A caller buffer sized to the exact output: AWS-LC writes into room of its
                // own first (at most a block more than the input), then the bytes are copied.
                let mut scratch = Zeroizing::new(vec![0u8; room]);
                let written = ctx
                    .update(input, &mut scratch)
                    .map_err(|_| Error::CryptoFailure)?;
                let target = output.get_mut(..written).ok_or(Error::CryptoFailure)?;
                target.copy_from_slice(&scratch[..written]);
                Ok(written)
            }
            StreamBackend::Sm4(stream) => stream.update(input, output),
            StreamBackend::Sm4Xts {
                xts,
                tweak,
                encrypt,
            } => {
                let data = output.get_mut(..input.len()).ok_or(Error::CryptoFailure)?;
                data.copy_from_slice(input);
                let result = if *encrypt {
                    xts.encrypt(tweak, data)
                } else {
                    xts.decrypt(tweak, data)
                };
                result
                    .map(|()| input.len())
                    .map_err(|error| Error::invalid_input(format!("{algorithm}: {error}")))
            }
        }
    }

    /// Processes `data` in place; only for the modes of block size 1 (the caller checks),
    /// which write exactly what they take. On error the caller wipes `data`.
    pub(crate) fn update_in_place(&mut self, algorithm: Algorithm, data: &mut [u8]) -> Result<()> {
        match self {
            StreamBackend::Evp(ctx) => ctx.update_in_place(data).map_err(|_| Error::CryptoFailure),
            StreamBackend::Sm4(stream) => match stream.mode {
                Sm4StreamMode::Ctr => {
                    stream.ctr(data);
                    Ok(())
                }
                Sm4StreamMode::Ofb => {
                    stream.ofb(data);
                    Ok(())
                }
                Sm4StreamMode::Cfb => {
                    stream.cfb(data);
                    Ok(())
                }
                Sm4StreamMode::Ecb | Sm4StreamMode::Cbc => Err(Error::CryptoFailure),
            },
            StreamBackend::Sm4Xts {
                xts,
                tweak,
                encrypt,
            } => if *encrypt {
                xts.encrypt(tweak, data)
            } else {
                xts.decrypt(tweak, data)
            }
            .map_err(|error| Error::invalid_input(format!("{algorithm}: {error}"))),
        }
    }

    /// Ends the stream: the padded last block (encryption) or the unpadded last plaintext
    /// (decryption) of the block modes; nothing for the others. On error the caller wipes
    /// `output`.
    pub(crate) fn finish(&mut self, output: &mut [u8]) -> Result<usize> {
        match self {
            StreamBackend::Evp(ctx) => ctx.finish(output).map_err(|_| Error::CryptoFailure),
            StreamBackend::Sm4(stream) => stream.finish(output),
            StreamBackend::Sm4Xts { .. } => Ok(0),
        }
    }

    /// An independent copy in the same state.
    pub(crate) fn try_clone(&self) -> Result<StreamBackend> {
        Ok(match self {
            StreamBackend::Evp(ctx) => {
                StreamBackend::Evp(ctx.try_clone().map_err(|_| Error::CryptoFailure)?)
            }
            StreamBackend::Sm4(stream) => StreamBackend::Sm4(stream.clone()),
            StreamBackend::Sm4Xts {
                xts,
                tweak,
                encrypt,
            } => StreamBackend::Sm4Xts {
                xts: xts.clone(),
                tweak: *tweak,
                encrypt: *encrypt,
            },
        })
    }
}

/// The SM4 modes a [`Sm4Stream`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sm4StreamMode {
    Ecb,
    Cbc,
    Ctr,
    Ofb,
    /// CFB with 128-bit segments (OpenSSL's `SM4-CFB`).
    Cfb,
}

/// An SM4 stream between calls. regula-sm wipes the key schedule on drop; this wipes the
/// chaining value, register, counter and buffered input.
#[derive(Clone)]
pub(crate) struct Sm4Stream {
    cipher: Sm4,
    mode: Sm4StreamMode,
    encrypt: bool,
    /// PKCS#7 padding (ECB and CBC only); on by default, as in OpenSSL.
    padding: bool,
    /// CBC: the last ciphertext block (the IV at first). CTR: the current keystream block.
    /// OFB: the last keystream block (the IV at first). CFB: the feedback block, the IV or the
    /// last ciphertext block while `used` is 16, then its encryption being used up.
    register: [u8; BLOCK],
    /// CTR, OFB, CFB: bytes of `register` already used (16: none left).
    used: usize,
    /// CTR: the counter block the next keystream block is made from (modulo 2^128).
    counter: u128,
    /// ECB, CBC: input not yet processed: a partial block, or (decryption with padding) the
    /// last whole block, held back until more comes or the stream finishes.
    buffer: [u8; BLOCK],
    buffered: usize,
}

impl Drop for Sm4Stream {
    fn drop(&mut self) {
        self.register.zeroize();
        self.counter.zeroize();
        self.buffer.zeroize();
    }
}

/// The last 16-byte block of `data` (whose length is a non-zero multiple of 16).
fn last_block(data: &[u8]) -> [u8; BLOCK] {
    let mut block = [0u8; BLOCK];
    if let Some(last) = data.last_chunk::<BLOCK>() {
        block.copy_from_slice(last);
    }
    block
}

impl Sm4Stream {
    fn new(cipher: Sm4, mode: Sm4StreamMode, encrypt: bool, iv: &[u8; BLOCK]) -> Sm4Stream {
        Sm4Stream {
            cipher,
            mode,
            encrypt,
            padding: true,
            register: *iv,
            used: BLOCK,
            counter: u128::from_be_bytes(*iv),
            buffer: [0; BLOCK],
            buffered: 0,
        }
    }

    fn block_size(&self) -> usize {
        match self.mode {
            Sm4StreamMode::Ecb | Sm4StreamMode::Cbc => BLOCK,
            Sm4StreamMode::Ctr | Sm4StreamMode::Ofb | Sm4StreamMode::Cfb => 1,
        }
    }

    fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        match self.mode {
            Sm4StreamMode::Ecb | Sm4StreamMode::Cbc => self.update_blocks(input, output),
            Sm4StreamMode::Ctr | Sm4StreamMode::Ofb | Sm4StreamMode::Cfb => {
                let data = output.get_mut(..input.len()).ok_or(Error::CryptoFailure)?;
                data.copy_from_slice(input);
                match self.mode {
                    Sm4StreamMode::Ctr => self.ctr(data),
                    Sm4StreamMode::Ofb => self.ofb(data),
                    _ => self.cfb(data),
                }
                Ok(input.len())
            }
        }
    }

    /// ECB and CBC: whole blocks out, a partial block (or, decrypting with padding, the last
    /// whole block) kept for later, as OpenSSL's EVP does.
    fn update_blocks(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        let available = self.buffered + input.len();
        let mut process = available - available % BLOCK;
        if !self.encrypt && self.padding && process == available && process > 0 {
            process -= BLOCK;
        }
        if process == 0 {
            // Everything fits in the buffer (at most one block).
            self.buffer[self.buffered..available].copy_from_slice(input);
            self.buffered = available;
            return Ok(0);
        }
        let out = output.get_mut(..process).ok_or(Error::CryptoFailure)?;
        let (from_buffer, from_input) = out.split_at_mut(self.buffered);
        from_buffer.copy_from_slice(&self.buffer[..self.buffered]);
        let (taken, rest) = input.split_at(from_input.len());
        from_input.copy_from_slice(taken);
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.buffered = rest.len();
        self.crypt_blocks(out)?;
        Ok(process)
    }

    /// ECB or CBC over whole blocks in place, carrying CBC's chaining value.
    fn crypt_blocks(&mut self, blocks: &mut [u8]) -> Result<()> {
        let failed = |_| Error::CryptoFailure;
        match (self.mode, self.encrypt) {
            (Sm4StreamMode::Ecb, true) => {
                sm4_modes::ecb_encrypt(&self.cipher, blocks).map_err(failed)
            }
            (Sm4StreamMode::Ecb, false) => {
                sm4_modes::ecb_decrypt(&self.cipher, blocks).map_err(failed)
            }
            (_, true) => {
                sm4_modes::cbc_encrypt(&self.cipher, &self.register, blocks).map_err(failed)?;
                self.register = last_block(blocks);
                Ok(())
            }
            (_, false) => {
                let next = last_block(blocks);
                sm4_modes::cbc_decrypt(&self.cipher, &self.register, blocks).map_err(failed)?;
                self.register = next;
                Ok(())
            }
        }
    }

    /// CTR: the 128-bit counter block incremented big-endian (wrapping at 2^128); a partial
    /// keystream block is finished by the next call.
    fn ctr(&mut self, data: &mut [u8]) {
        let from_register = data.len().min(BLOCK - self.used);
        let (head, rest) = data.split_at_mut(from_register);
        for (byte, key) in head.iter_mut().zip(&self.register[self.used..]) {
            *byte ^= key;
        }
        self.used += from_register;
        let whole = rest.len() - rest.len() % BLOCK;
        let (blocks, tail) = rest.split_at_mut(whole);
        if !blocks.is_empty() {
            sm4_modes::ctr_apply_keystream(&self.cipher, &self.counter.to_be_bytes(), blocks);
            // A slice never holds 2^128 blocks; the counter is modulo 2^128.
            self.counter = self.counter.wrapping_add((whole / BLOCK) as u128);
        }
        if !tail.is_empty() {
            self.register = self.counter.to_be_bytes();
            self.cipher.encrypt_block(&mut self.register);
            self.counter = self.counter.wrapping_add(1);
            for (byte, key) in tail.iter_mut().zip(&self.register) {
                *byte ^= key;
            }
            self.used = tail.len();
        }
    }

    /// OFB: the keystream E(IV), E(E(IV)), … at byte granularity across calls.
    fn ofb(&mut self, mut data: &mut [u8]) {
        while !data.is_empty() {
            if self.used == BLOCK {
                self.cipher.encrypt_block(&mut self.register);
                self.used = 0;
            }
            let take = data.len().min(BLOCK - self.used);
            let (head, rest) = data.split_at_mut(take);
            for (byte, key) in head.iter_mut().zip(&self.register[self.used..]) {
                *byte ^= key;
            }
            self.used += take;
            data = rest;
        }
    }

    /// CFB-128 at byte granularity across calls; whole blocks at a block boundary go through
    /// regula-sm's CFB (decryption many blocks at a time).
    fn cfb(&mut self, mut data: &mut [u8]) {
        while !data.is_empty() {
            if self.used == BLOCK && data.len() >= BLOCK {
                let whole = data.len() - data.len() % BLOCK;
                let (blocks, rest) = data.split_at_mut(whole);
                if self.encrypt {
                    sm4_modes::cfb_encrypt(&self.cipher, &self.register, blocks);
                    self.register = last_block(blocks);
                } else {
                    let next = last_block(blocks);
                    sm4_modes::cfb_decrypt(&self.cipher, &self.register, blocks);
                    self.register = next;
                }
                data = rest;
                continue;
            }
            if self.used == BLOCK {
                self.cipher.encrypt_block(&mut self.register);
                self.used = 0;
            }
            let take = data.len().min(BLOCK - self.used);
            let (head, rest) = data.split_at_mut(take);
            for (byte, key) in head.iter_mut().zip(&mut self.register[self.used..]) {
                let ciphertext = if self.encrypt { *byte ^ *key } else { *byte };
                *byte ^= *key;
                // The register takes the ciphertext byte: the next block's feedback.
                *key = ciphertext;
            }
            self.used += take;
            data = rest;
        }
    }

    fn finish(&mut self, output: &mut [u8]) -> Result<usize> {
        if self.block_size() == 1 {
            return Ok(0);
        }
        match (self.encrypt, self.padding) {
            (true, true) => {
                let out = output.get_mut(..BLOCK).ok_or(Error::CryptoFailure)?;
                let pad = BLOCK - self.buffered;
                self.buffer[self.buffered..].fill(pad as u8);
                out.copy_from_slice(&self.buffer);
                self.buffer.zeroize();
                self.buffered = 0;
                self.crypt_blocks(out)?;
                Ok(BLOCK)
            }
            (false, true) => {
                if self.buffered != BLOCK {
                    return Err(Error::CryptoFailure);
                }
                let mut block = Zeroizing::new(self.buffer);
                self.buffer.zeroize();
                self.buffered = 0;
                self.crypt_blocks(&mut block[..])?;
                let pad = padding_length(&block).ok_or(Error::CryptoFailure)?;
                let len = BLOCK - pad;
                let out = output.get_mut(..len).ok_or(Error::CryptoFailure)?;
                out.copy_from_slice(&block[..len]);
                Ok(len)
            }
            (_, false) => {
                if self.buffered != 0 {
                    return Err(Error::CryptoFailure);
                }
                Ok(0)
            }
        }
    }
}

/// The PKCS#7 padding length (1 to 16) at the end of a decrypted block, if well formed;
/// branch-free in the block's contents until the verdict.
fn padding_length(block: &[u8; BLOCK]) -> Option<usize> {
    let pad = block[BLOCK - 1];
    // 0xff when 1 <= pad <= 16.
    let mut good = nonzero_mask(pad) & less_than_mask(pad, BLOCK as u8 + 1);
    for (distance_from_end, &byte) in block.iter().rev().enumerate() {
        // The last `pad` bytes must all equal `pad`.
        let inside = less_than_mask(distance_from_end as u8, pad);
        good &= !(inside & nonzero_mask(byte ^ pad));
    }
    (good == 0xff).then_some(usize::from(pad))
}

/// 0xff if `a < b`, else 0, without branches.
fn less_than_mask(a: u8, b: u8) -> u8 {
    (u16::from(a).wrapping_sub(u16::from(b)) >> 8) as u8
}

/// 0xff if `x != 0`, else 0, without branches.
fn nonzero_mask(x: u8) -> u8 {
    (u16::from(x).wrapping_neg() >> 8) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_lengths() {
        for pad in 1..=16u8 {
            let mut block = [0xaa; BLOCK];
            block[BLOCK - usize::from(pad)..].fill(pad);
            assert_eq!(padding_length(&block), Some(usize::from(pad)));
            if pad > 1 {
                block[BLOCK - usize::from(pad)] ^= 1;
                assert_eq!(padding_length(&block), None, "pad {pad}");
            }
        }
        assert_eq!(padding_length(&[0; BLOCK]), None);
        assert_eq!(padding_length(&[17; BLOCK]), None);
        let mut block = [3; BLOCK];
        block[BLOCK - 1] = 0x80;
        assert_eq!(padding_length(&block), None);
    }

    #[test]
    fn masks() {
        for a in 0..=255u8 {
            assert_eq!(nonzero_mask(a), if a != 0 { 0xff } else { 0 });
            for b in 0..=255u8 {
                assert_eq!(less_than_mask(a, b), if a < b { 0xff } else { 0 });
            }
        }
    }
}
