//! Block-cipher MACs with SM4: CMAC, XCBC-MAC and CBC-MAC.
//!
//! * [`Cmac`] — NIST SP 800-38B (also OMAC1, ISO/IEC 9797-1:2011 MAC algorithm 5) with SM4:
//!   subkeys K1 = L·x, K2 = L·x² from L = SM4_K(0^128) (SP 800-38B, 6.1); as OpenSSL
//!   `openssl mac -cipher SM4-CBC CMAC`, Linux `cmac(sm4)`.
//! * [`Xcbc`] — the RFC 3566 construction (AES-XCBC-MAC-96, section 4) with SM4 in place of
//!   AES: K1 = SM4_K(0x01^16), K2 = SM4_K(0x02^16), K3 = SM4_K(0x03^16); as Linux `xcbc(sm4)`.
//!   The full 16-byte value is returned; RFC 3566's "-96" truncation is the caller's choice.
//! * [`CbcMac`] — ISO/IEC 9797-1:2011 MAC algorithm 1 (no output transformation) with padding
//!   method 1 (zero bits up to a block boundary, none when already aligned). This is what
//!   GmSSL 3's `sm4_cbc_mac` computes (and RustCrypto `cbc-mac`, which the tests use as the
//!   reference), so tags interoperate; padding method 2 (0x80 then zeros) would not match it.
//!   **CBC-MAC is secure only for messages of one fixed length** (or prefix-free sets): from
//!   the tag T of a one-block M, the two-block `M || (M ⊕ T)` has the same tag T. Use [`Cmac`]
//!   unless a protocol mandates CBC-MAC. The empty message is rejected
//!   ([`MacError::EmptyMessage`]): ISO padding method 1 would MAC one zero block there, while
//!   GmSSL (and RustCrypto `cbc-mac`) return the all-zero block unencrypted; neither is a
//!   useful MAC, and refusing keeps us from silently disagreeing with one of them.
//!
//! Tags are compared in constant time ([`MacStream::verify`]). Derived subkeys (and the CBC
//! chaining state) are zeroized on drop. All three MACs are sequential by construction (each
//! block depends on the previous one), so they run one block at a time on any backend.

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::xor_block;
use crate::sm4::backend::Backend;
use crate::sm4::{BLOCK_SIZE, Block, KEY_SIZE, Sm4};

/// Length of a full tag: one SM4 block.
pub const TAG_SIZE: usize = BLOCK_SIZE;

/// Shortest truncated tag [`MacStream::verify`] accepts: 64 bits (NIST SP 800-38B, Appendix A,
/// recommends at least 64 bits for CMAC).
pub const MIN_TAG_SIZE: usize = 8;

/// Why a MAC computation or verification failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MacError {
    /// The tag does not match (opaque on purpose: nothing says which bytes differed).
    VerificationFailed,
    /// A tag to verify must be [`MIN_TAG_SIZE`]..=[`TAG_SIZE`] bytes; `len` was given.
    InvalidTagLength {
        /// The rejected tag length in bytes.
        len: usize,
    },
    /// CBC-MAC of the empty message is not defined here (see the module documentation).
    EmptyMessage,
}

impl core::fmt::Display for MacError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MacError::VerificationFailed => f.write_str("MAC verification failed"),
            MacError::InvalidTagLength { len } => write!(
                f,
                "MAC tag of {len} bytes; expected {MIN_TAG_SIZE} to {TAG_SIZE}"
            ),
            MacError::EmptyMessage => f.write_str("CBC-MAC of an empty message is not defined"),
        }
    }
}

impl std::error::Error for MacError {}

/// Constant-time tag comparison: `expected` (a full tag) truncated to `tag.len()`.
fn verify_tag(expected: &Block, tag: &[u8]) -> Result<(), MacError> {
    if !(MIN_TAG_SIZE..=TAG_SIZE).contains(&tag.len()) {
        return Err(MacError::InvalidTagLength { len: tag.len() });
    }
    let mut difference = 0u8;
    for (a, b) in expected.iter().zip(tag) {
        difference |= a ^ b;
    }
    // Keep the compiler from turning the fold into an early-exit comparison.
    if core::hint::black_box(difference) == 0 {
        Ok(())
    } else {
        Err(MacError::VerificationFailed)
    }
}

/// Doubling in GF(2^128) as NIST SP 800-38B, 6.1 defines it for b = 128: a big-endian left
/// shift, with R_128 = 0^120 || 10000111 XORed in when the top bit falls out (no branch).
fn double(block: &Block) -> Block {
    let value = u128::from_be_bytes(*block);
    ((value << 1) ^ ((value >> 127).wrapping_neg() & 0x87)).to_be_bytes()
}

/// How the last block is finished.
#[derive(Clone)]
enum Finish {
    /// SP 800-38B, 6.2 step 3: a complete last block is XORed with K1, else padded with
    /// 10* and XORed with K2.
    Cmac { k1: Block, k2: Block },
    /// RFC 3566, 4 step 3: complete → XOR K2; else pad 10* and XOR K3.
    Xcbc { k2: Block, k3: Block },
    /// ISO/IEC 9797-1 padding method 1: zero-pad a partial last block.
    CbcMac,
}

impl Zeroize for Finish {
    fn zeroize(&mut self) {
        match self {
            Finish::Cmac { k1, k2 } => {
                k1.zeroize();
                k2.zeroize();
            }
            Finish::Xcbc { k2, k3 } => {
                k2.zeroize();
                k3.zeroize();
            }
            Finish::CbcMac => {}
        }
    }
}

/// A keyed MAC of one of the three kinds; cheap to reuse for many messages.
#[derive(Clone)]
struct Keyed {
    /// The CBC cipher: SM4_K for CMAC and CBC-MAC, SM4_{K1} for XCBC.
    cipher: Sm4,
    finish: Finish,
}

impl Drop for Keyed {
    fn drop(&mut self) {
        self.finish.zeroize();
    }
}

impl Keyed {
    fn cmac(cipher: Sm4) -> Self {
        // L = SM4_K(0^128); K1 = dbl(L); K2 = dbl(K1) (SP 800-38B, 6.1).
        let mut l = [0u8; BLOCK_SIZE];
        cipher.encrypt_block(&mut l);
        let k1 = double(&l);
        let k2 = double(&k1);
        l.zeroize();
        Self {
            cipher,
            finish: Finish::Cmac { k1, k2 },
        }
    }

    /// RFC 3566, 4 step 1: K1 = E(K, 0x01^16), K2 = E(K, 0x02^16), K3 = E(K, 0x03^16);
    /// `outer` is SM4 keyed with K. Returns K1 and the finishing keys.
    fn xcbc_subkeys(outer: &Sm4) -> (Block, Finish) {
        let mut derived = [[0x01u8; BLOCK_SIZE], [0x02; BLOCK_SIZE], [0x03; BLOCK_SIZE]];
        outer.encrypt_blocks(&mut derived);
        let [k1, k2, k3] = derived;
        derived.as_flattened_mut().zeroize();
        (k1, Finish::Xcbc { k2, k3 })
    }

    fn stream(&self) -> MacStream<'_> {
        MacStream {
            keyed: self,
            state: [0; BLOCK_SIZE],
            buffer: [0; BLOCK_SIZE],
            buffered: 0,
            empty: true,
        }
    }
}

/// An incremental MAC computation; `update` any number of times, then `finalize` or `verify`.
///
/// The last block is held back until `finalize`, because CMAC and XCBC treat it specially.
/// A clone continues from the same point (OpenSSL's `EVP_MAC_CTX_dup`); each copy is wiped on
/// drop.
#[derive(Clone)]
pub struct MacStream<'a> {
    keyed: &'a Keyed,
    /// CBC chaining value.
    state: Block,
    /// The last 1..=16 message bytes not yet absorbed.
    buffer: Block,
    buffered: usize,
    empty: bool,
}

impl MacStream<'_> {
    /// Absorbs `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        if data.is_empty() {
            return;
        }
        self.empty = false;
        while !data.is_empty() {
            if self.buffered == BLOCK_SIZE {
                // More data follows, so the buffered block is not the last: chain it.
                xor_block(&mut self.state, &self.buffer);
                self.keyed.cipher.encrypt_block(&mut self.state);
                self.buffered = 0;
            }
            let take = data.len().min(BLOCK_SIZE - self.buffered);
            self.buffer[self.buffered..self.buffered + take].copy_from_slice(&data[..take]);
            self.buffered += take;
            data = &data[take..];
        }
    }

    /// Finishes and returns the full 16-byte tag.
    pub fn finalize(mut self) -> Result<Block, MacError> {
        let complete = self.buffered == BLOCK_SIZE;
        let mut last = [0u8; BLOCK_SIZE];
        last[..self.buffered].copy_from_slice(&self.buffer[..self.buffered]);
        match &self.keyed.finish {
            Finish::Cmac { k1, k2 } | Finish::Xcbc { k2: k1, k3: k2 } => {
                if complete {
                    xor_block(&mut last, k1);
                } else {
                    // Padding 10^j (SP 800-38B, 6.2 step 3; RFC 3566, 4 step 3b).
                    last[self.buffered] = 0x80;
                    xor_block(&mut last, k2);
                }
            }
            Finish::CbcMac => {
                if self.empty {
                    return Err(MacError::EmptyMessage);
                }
                // Padding method 1: the zeros are already there.
            }
        }
        xor_block(&mut self.state, &last);
        self.keyed.cipher.encrypt_block(&mut self.state);
        last.zeroize();
        Ok(self.state)
    }

    /// Finishes and compares with `tag` (a full tag, or one truncated to at least
    /// [`MIN_TAG_SIZE`] bytes) in constant time.
    pub fn verify(self, tag: &[u8]) -> Result<(), MacError> {
        if !(MIN_TAG_SIZE..=TAG_SIZE).contains(&tag.len()) {
            return Err(MacError::InvalidTagLength { len: tag.len() });
        }
        let mut expected = self.finalize()?;
        let result = verify_tag(&expected, tag);
        expected.zeroize();
        result
    }
}

impl Drop for MacStream<'_> {
    fn drop(&mut self) {
        self.state.zeroize();
        self.buffer.zeroize();
    }
}

impl ZeroizeOnDrop for MacStream<'_> {}

impl core::fmt::Debug for MacStream<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MacStream").finish_non_exhaustive()
    }
}

macro_rules! mac_type {
    ($(#[$doc:meta])* $name:ident, $label:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            keyed: Keyed,
        }

        impl $name {
            /// Starts an incremental computation.
            pub fn start(&self) -> MacStream<'_> {
                self.keyed.stream()
            }

            /// One-shot: the full 16-byte tag of `message`.
            pub fn compute(&self, message: &[u8]) -> Result<Block, MacError> {
                let mut stream = self.start();
                stream.update(message);
                stream.finalize()
            }

            /// One-shot verification of `tag` (full, or truncated to at least
            /// [`MIN_TAG_SIZE`] bytes) over `message`, in constant time.
            pub fn verify(&self, message: &[u8], tag: &[u8]) -> Result<(), MacError> {
                let mut stream = self.start();
                stream.update(message);
                stream.verify(tag)
            }

            /// The SM4 backend this instance runs on.
            pub fn backend(&self) -> Backend {
                self.keyed.cipher.backend()
            }
        }

        impl ZeroizeOnDrop for $name {}

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct($label)
                    .field("backend", &self.backend().name())
                    .finish_non_exhaustive()
            }
        }
    };
}

mac_type!(
    /// SM4-CMAC (NIST SP 800-38B). Subkeys K1, K2 are zeroized on drop.
    ///
    /// ```
    /// use regula_sm::sm4::modes::Cmac;
    /// let cmac = Cmac::new(&[0x2b; 16]);
    /// let tag = cmac.compute(b"message")?;
    /// cmac.verify(b"message", &tag)?;
    /// assert!(cmac.verify(b"massage", &tag).is_err());
    /// # Ok::<(), regula_sm::sm4::modes::MacError>(())
    /// ```
    Cmac,
    "Cmac"
);

mac_type!(
    /// SM4-XCBC-MAC (RFC 3566 construction with SM4). K1..K3 are zeroized on drop.
    Xcbc,
    "Xcbc"
);

mac_type!(
    /// SM4-CBC-MAC (ISO/IEC 9797-1 MAC algorithm 1, padding method 1, as GmSSL
    /// `sm4_cbc_mac`). **Only secure for messages of one fixed length**; prefer [`Cmac`].
    CbcMac,
    "CbcMac"
);

impl Cmac {
    /// Keys SM4-CMAC with `key` on the fastest backend.
    pub fn new(key: &[u8; KEY_SIZE]) -> Self {
        Self {
            keyed: Keyed::cmac(Sm4::new(key)),
        }
    }

    /// As [`Cmac::new`] on a forced backend; `None` when this CPU (or build) lacks it.
    #[doc(hidden)]
    pub fn with_backend(key: &[u8; KEY_SIZE], backend: Backend) -> Option<Self> {
        Some(Self {
            keyed: Keyed::cmac(Sm4::with_backend(key, backend)?),
        })
    }
}

impl Xcbc {
    /// Keys SM4-XCBC-MAC with `key` (derives K1, K2, K3) on the fastest backend.
    pub fn new(key: &[u8; KEY_SIZE]) -> Self {
        let (mut k1, finish) = Keyed::xcbc_subkeys(&Sm4::new(key));
        let cipher = Sm4::new(&k1);
        k1.zeroize();
        Self {
            keyed: Keyed { cipher, finish },
        }
    }

    /// As [`Xcbc::new`] on a forced backend; `None` when this CPU (or build) lacks it.
    #[doc(hidden)]
    pub fn with_backend(key: &[u8; KEY_SIZE], backend: Backend) -> Option<Self> {
        let (mut k1, finish) = Keyed::xcbc_subkeys(&Sm4::with_backend(key, backend)?);
        let cipher = Sm4::with_backend(&k1, backend);
        k1.zeroize();
        Some(Self {
            keyed: Keyed {
                cipher: cipher?,
                finish,
            },
        })
    }
}

impl CbcMac {
    /// Keys SM4-CBC-MAC with `key` on the fastest backend.
    pub fn new(key: &[u8; KEY_SIZE]) -> Self {
        Self {
            keyed: Keyed {
                cipher: Sm4::new(key),
                finish: Finish::CbcMac,
            },
        }
    }

    /// As [`CbcMac::new`] on a forced backend; `None` when this CPU (or build) lacks it.
    #[doc(hidden)]
    pub fn with_backend(key: &[u8; KEY_SIZE], backend: Backend) -> Option<Self> {
        Some(Self {
            keyed: Keyed {
                cipher: Sm4::with_backend(key, backend)?,
                finish: Finish::CbcMac,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubling_follows_sp800_38b() {
        let mut top = [0u8; 16];
        top[0] = 0x80;
        let mut expected = [0u8; 16];
        expected[15] = 0x87;
        assert_eq!(double(&top), expected);
        let mut low = [0u8; 16];
        low[15] = 0x01;
        let mut shifted = [0u8; 16];
        shifted[15] = 0x02;
        assert_eq!(double(&low), shifted);
    }

    #[test]
    fn tag_comparison() {
        let tag = [0x5a; 16];
        assert_eq!(verify_tag(&tag, &tag), Ok(()));
        assert_eq!(verify_tag(&tag, &tag[..8]), Ok(()));
        assert_eq!(
            verify_tag(&tag, &tag[..7]),
            Err(MacError::InvalidTagLength { len: 7 })
        );
        for i in 0..16 {
            let mut bad = tag;
            bad[i] ^= 1;
            assert_eq!(verify_tag(&tag, &bad), Err(MacError::VerificationFailed));
        }
    }
}
