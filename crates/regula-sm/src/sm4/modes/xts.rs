//! XTS with SM4, in both standardised variants: IEEE Std 1619-2018 and GB/T 17964-2021.
//!
//! A data unit (a disk sector, say) of at least one block is encrypted under a 32-byte key
//! Key1 || Key2 and a 16-byte tweak `i` (IEEE Std 1619-2018, 5.1 and 5.3):
//!
//! ```text
//! T_0 = SM4(Key2, i),   T_j = T_{j-1} ⊗ α   (in GF(2^128))
//! C_j = SM4(Key1, P_j ⊕ T_j) ⊕ T_j
//! ```
//!
//! and a final partial block is handled by ciphertext stealing (IEEE Std 1619-2018, 5.3.2 and
//! 5.4.2; GB/T 17964-2021 uses the same stealing).
//!
//! # The two variants differ only in "⊗ α"
//!
//! Both multiply the 128-bit tweak by the polynomial x modulo x^128 + x^7 + x^2 + x + 1, but
//! they map the 16 tweak bytes to polynomial coefficients in opposite bit orders:
//!
//! * **IEEE Std 1619-2018, 5.2** (also Linux `xts(sm4)`, OpenSSL `SM4-XTS` with
//!   `xts_standard:IEEE`, NIST SP 800-38E): byte 0 holds the lowest coefficients and, within a
//!   byte, bit 0 is the lowest. The tweak is the *little-endian* integer `t`, and
//!   `t ⊗ α = (t << 1) ⊕ (0x87 if bit 127 of t was set)`.
//! * **GB/T 17964-2021** (OpenSSL 3.2+ `SM4-XTS` with `xts_standard:GB`, its default there): the
//!   "reflected" GCM convention (NIST SP 800-38D, 6.3). Byte 0 bit 7 is the
//!   coefficient of x^0. Read as the *big-endian* integer `t`, multiplying by x is a right
//!   shift, and the reduction folds the dropped x^128 term back as 0xE1 in the top byte:
//!   `t ⊗ α = (t >> 1) ⊕ (0xE1 << 120 if bit 0 of t was set)`.
//!
//! For the first block no multiplication happens (T_0 is used as is), so the two variants agree
//! on the first 16 bytes of every data unit and differ from the second block on.
//!
//! # Bulk processing
//!
//! The tweaks of a batch are computed first (a shift and a masked XOR per block, no branches),
//! XORed into the data, the whole batch goes through [`Sm4::encrypt_blocks`] (the wide
//! GFNI/AVX-512 or AES-NI/AVX2 path), and the same tweaks are XORed in again.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::sm4::backend::Backend;
use crate::sm4::{BLOCK_SIZE, Block, KEY_SIZE, Sm4};

/// Size of an XTS key: two SM4 keys, Key1 (data) then Key2 (tweak).
pub const XTS_KEY_SIZE: usize = 2 * KEY_SIZE;

/// Largest data unit, in blocks: IEEE Std 1619-2018, 5.1 ("shall not exceed 2^20 blocks"),
/// also NIST SP 800-38E. GB/T 17964-2021 states no such cap; we apply the IEEE one to both
/// variants, as OpenSSL's `SM4-XTS` does.
pub const XTS_MAX_BLOCKS: usize = 1 << 20;

/// Blocks per batch: enough for several passes of the widest backend (64 blocks), small enough
/// for the tweak buffer (4 KiB) to stay in L1.
const BATCH: usize = 256;
/// Batch for short data units, so that a sector-sized call does not clear a 4 KiB buffer.
const SMALL_BATCH: usize = 16;

/// Which XTS standard fixes the tweak arithmetic (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XtsStandard {
    /// IEEE Std 1619-2018 (`sm4-xts`): little-endian tweak, doubling with 0x87.
    Ieee1619,
    /// GB/T 17964-2021 (`sm4-xts-gb`): big-endian reflected tweak, halving with 0xE1.
    GbT17964,
}

impl XtsStandard {
    /// The algorithm name used across Regula (`regula enc -a …`): `sm4-xts` for IEEE Std 1619,
    /// `sm4-xts-gb` for GB/T 17964-2021.
    pub const fn algorithm_name(self) -> &'static str {
        match self {
            XtsStandard::Ieee1619 => "sm4-xts",
            XtsStandard::GbT17964 => "sm4-xts-gb",
        }
    }
}

/// Why XTS rejected a key or a data unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum XtsError {
    /// Key1 equals Key2. FIPS 140-3 IG C.I requires the two halves of an XTS key to differ
    /// (IEEE Std 1619-2018, 5.1 defines the key as the two halves); we apply the same check to
    /// both variants.
    EqualKeyHalves,
    /// A data unit must hold at least one whole block (IEEE Std 1619-2018, 5.1).
    TooShort {
        /// The rejected length in bytes.
        len: usize,
    },
    /// A data unit must not exceed [`XTS_MAX_BLOCKS`] blocks (IEEE Std 1619-2018, 5.1).
    TooLong {
        /// The rejected length in bytes.
        len: usize,
    },
}

impl core::fmt::Display for XtsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            XtsError::EqualKeyHalves => f.write_str("XTS key halves Key1 and Key2 are equal"),
            XtsError::TooShort { len } => {
                write!(
                    f,
                    "XTS data unit of {len} bytes is shorter than one {BLOCK_SIZE}-byte block"
                )
            }
            XtsError::TooLong { len } => write!(
                f,
                "XTS data unit of {len} bytes exceeds {XTS_MAX_BLOCKS} blocks"
            ),
        }
    }
}

impl std::error::Error for XtsError {}

/// SM4-XTS with an expanded key pair, for one of the two standards.
///
/// Key schedules are zeroized on drop (by [`Sm4`]); batch tweak buffers are wiped after use.
///
/// ```
/// use regula_sm::sm4::modes::{Xts, XtsStandard};
///
/// let mut key = [0u8; 32];
/// key[16..].fill(1); // Key1 = 00.., Key2 = 01..: the halves must differ.
/// let xts = Xts::new(&key, XtsStandard::GbT17964)?;
/// let mut sector = [0x5a_u8; 37]; // any length >= 16: ciphertext stealing
/// xts.encrypt(&[0; 16], &mut sector)?;
/// xts.decrypt(&[0; 16], &mut sector)?;
/// assert_eq!(sector, [0x5a; 37]);
/// # Ok::<(), regula_sm::sm4::modes::XtsError>(())
/// ```
#[derive(Clone)]
pub struct Xts {
    /// Key1: encrypts the data blocks.
    data: Sm4,
    /// Key2: encrypts the tweak.
    tweak: Sm4,
    standard: XtsStandard,
}

impl Xts {
    /// Expands `key` = Key1 || Key2 for the fastest backend; rejects Key1 == Key2.
    pub fn new(key: &[u8; XTS_KEY_SIZE], standard: XtsStandard) -> Result<Self, XtsError> {
        let (key1, key2) = split_key(key)?;
        Ok(Self {
            data: Sm4::new(key1),
            tweak: Sm4::new(key2),
            standard,
        })
    }

    /// As [`Xts::new`] on a forced backend; `None` when this CPU (or build) lacks it.
    #[doc(hidden)]
    pub fn with_backend(
        key: &[u8; XTS_KEY_SIZE],
        standard: XtsStandard,
        backend: Backend,
    ) -> Option<Result<Self, XtsError>> {
        let (key1, key2) = match split_key(key) {
            Ok(halves) => halves,
            Err(error) => return Some(Err(error)),
        };
        let data = Sm4::with_backend(key1, backend)?;
        let tweak = Sm4::with_backend(key2, backend)?;
        Some(Ok(Self {
            data,
            tweak,
            standard,
        }))
    }

    /// The standard this instance follows.
    pub fn standard(&self) -> XtsStandard {
        self.standard
    }

    /// The SM4 backend this instance runs on.
    pub fn backend(&self) -> Backend {
        self.data.backend()
    }

    /// Encrypts one data unit in place under the 16-byte `tweak` (IEEE Std 1619-2018, 5.3).
    ///
    /// `data` needs at least 16 bytes; any length from there on works (ciphertext stealing).
    pub fn encrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<(), XtsError> {
        self.crypt(tweak, data, Direction::Encrypt)
    }

    /// Decrypts one data unit in place under the 16-byte `tweak` (IEEE Std 1619-2018, 5.4).
    pub fn decrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<(), XtsError> {
        self.crypt(tweak, data, Direction::Decrypt)
    }

    fn crypt(&self, tweak: &Block, data: &mut [u8], direction: Direction) -> Result<(), XtsError> {
        let len = data.len();
        if len < BLOCK_SIZE {
            return Err(XtsError::TooShort { len });
        }
        if len > XTS_MAX_BLOCKS * BLOCK_SIZE {
            return Err(XtsError::TooLong { len });
        }
        // T_0 = E_Key2(i) (IEEE Std 1619-2018, 5.3.1 step 1).
        let mut encrypted_tweak = *tweak;
        self.tweak.encrypt_block(&mut encrypted_tweak);
        let mut t = Tweak::load(self.standard, &encrypted_tweak);
        encrypted_tweak.zeroize();

        let (blocks, tail) = data.as_chunks_mut::<BLOCK_SIZE>();
        if tail.is_empty() {
            self.crypt_blocks(&mut t, blocks, direction);
        } else {
            // At least one whole block precedes the tail (len >= 16). The last whole block
            // and the tail are done by ciphertext stealing below.
            let (bulk, last) = blocks.split_at_mut(blocks.len() - 1);
            self.crypt_blocks(&mut t, bulk, direction);
            self.steal(&mut t, &mut last[0], tail, direction);
        }
        t.zeroize();
        Ok(())
    }

    /// XTS on whole blocks. Leaves `t` at the tweak of the block after the last one.
    fn crypt_blocks(&self, t: &mut Tweak, blocks: &mut [Block], direction: Direction) {
        let small = blocks.len() <= SMALL_BATCH;
        let value = &mut t.value;
        match (t.standard, small) {
            (XtsStandard::Ieee1619, true) => {
                self.crypt_batches::<Ieee, SMALL_BATCH>(value, blocks, direction)
            }
            (XtsStandard::Ieee1619, false) => {
                self.crypt_batches::<Ieee, BATCH>(value, blocks, direction)
            }
            (XtsStandard::GbT17964, true) => {
                self.crypt_batches::<Gb, SMALL_BATCH>(value, blocks, direction)
            }
            (XtsStandard::GbT17964, false) => {
                self.crypt_batches::<Gb, BATCH>(value, blocks, direction)
            }
        }
    }

    /// For each batch of up to `N` blocks: compute the tweaks and XOR them in, run the wide
    /// backend over the batch, XOR the same tweaks again. The tweak buffer holds native-order
    /// `u128`s so that wiping it afterwards costs one volatile store per block.
    fn crypt_batches<C: Convention, const N: usize>(
        &self,
        t: &mut u128,
        blocks: &mut [Block],
        direction: Direction,
    ) {
        let mut tweaks = [0u128; N];
        let mut used = 0;
        for batch in blocks.chunks_mut(N) {
            for (block, slot) in batch.iter_mut().zip(tweaks.iter_mut()) {
                *slot = C::native(*t);
                *block = (u128::from_ne_bytes(*block) ^ *slot).to_ne_bytes();
                *t = C::mul_alpha(*t);
            }
            used = used.max(batch.len());
            match direction {
                Direction::Encrypt => self.data.encrypt_blocks(batch),
                Direction::Decrypt => self.data.decrypt_blocks(batch),
            }
            for (block, slot) in batch.iter_mut().zip(tweaks.iter()) {
                *block = (u128::from_ne_bytes(*block) ^ *slot).to_ne_bytes();
            }
        }
        tweaks[..used].zeroize();
    }

    /// One block under one tweak: E_Key1(block ⊕ t) ⊕ t (or with D).
    fn crypt_one(&self, t: &Block, block: &mut Block, direction: Direction) {
        xor_in(block, t);
        match direction {
            Direction::Encrypt => self.data.encrypt_block(block),
            Direction::Decrypt => self.data.decrypt_block(block),
        }
        xor_in(block, t);
    }

    /// Ciphertext stealing for the last whole block `last` (tweak `t` = T_{m-1}) and the
    /// partial block `tail` (1..=15 bytes, tweak T_m).
    fn steal(&self, t: &mut Tweak, last: &mut Block, tail: &mut [u8], direction: Direction) {
        let r = tail.len();
        let mut t_last = t.bytes();
        t.mul_alpha();
        let mut t_tail = t.bytes();
        // Encryption (IEEE Std 1619-2018, 5.3.2): CC = XTS(P_{m-1}, T_{m-1});
        // C_m = CC[..r]; C_{m-1} = XTS(P_m || CC[r..], T_m).
        // Decryption (5.4.2) uses the tweaks the other way round: PP = XTS⁻¹(C_{m-1}, T_m);
        // P_m = PP[..r]; P_{m-1} = XTS⁻¹(C_m || PP[r..], T_{m-1}).
        let (first, second) = match direction {
            Direction::Encrypt => (&t_last, &t_tail),
            Direction::Decrypt => (&t_tail, &t_last),
        };
        let mut stolen = *last;
        self.crypt_one(first, &mut stolen, direction);
        let mut merged = stolen;
        merged[..r].copy_from_slice(tail);
        tail.copy_from_slice(&stolen[..r]);
        self.crypt_one(second, &mut merged, direction);
        *last = merged;
        stolen.zeroize();
        merged.zeroize();
        t_last.zeroize();
        t_tail.zeroize();
    }
}

impl ZeroizeOnDrop for Xts {}

impl core::fmt::Debug for Xts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Xts")
            .field("standard", &self.standard)
            .field("backend", &self.backend().name())
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Copy)]
enum Direction {
    Encrypt,
    Decrypt,
}

/// Splits Key1 || Key2 and rejects equal halves, comparing without early exit.
fn split_key(key: &[u8; XTS_KEY_SIZE]) -> Result<(&[u8; KEY_SIZE], &[u8; KEY_SIZE]), XtsError> {
    let (key1, key2) = key.split_at(KEY_SIZE);
    let mut difference = 0u8;
    for (a, b) in key1.iter().zip(key2) {
        difference |= a ^ b;
    }
    if core::hint::black_box(difference) == 0 {
        return Err(XtsError::EqualKeyHalves);
    }
    match (key1.try_into(), key2.try_into()) {
        (Ok(key1), Ok(key2)) => Ok((key1, key2)),
        // Unreachable: both halves are KEY_SIZE bytes by construction.
        _ => Err(XtsError::EqualKeyHalves),
    }
}

/// The running tweak T_j as an integer in the variant's byte order.
struct Tweak {
    value: u128,
    standard: XtsStandard,
}

impl Tweak {
    fn load(standard: XtsStandard, bytes: &Block) -> Self {
        let value = match standard {
            XtsStandard::Ieee1619 => u128::from_le_bytes(*bytes),
            XtsStandard::GbT17964 => u128::from_be_bytes(*bytes),
        };
        Self { value, standard }
    }

    #[inline(always)]
    fn bytes(&self) -> Block {
        match self.standard {
            XtsStandard::Ieee1619 => self.value.to_le_bytes(),
            XtsStandard::GbT17964 => self.value.to_be_bytes(),
        }
    }

    #[inline(always)]
    fn mul_alpha(&mut self) {
        self.value = match self.standard {
            XtsStandard::Ieee1619 => Ieee::mul_alpha(self.value),
            XtsStandard::GbT17964 => Gb::mul_alpha(self.value),
        };
    }
}

/// The byte order and ⊗α of one XTS standard, for the monomorphised bulk loop.
trait Convention {
    /// The tweak's 16 bytes, read as a native-endian `u128` (for XORing into a block).
    fn native(t: u128) -> u128;
    /// T ⊗ α, without secret-dependent branches (the carry becomes an all-ones or zero mask).
    fn mul_alpha(t: u128) -> u128;
}

/// IEEE Std 1619-2018: byte 0 holds the lowest coefficients (little-endian integer).
enum Ieee {}

impl Convention for Ieee {
    #[inline(always)]
    fn native(t: u128) -> u128 {
        u128::from_ne_bytes(t.to_le_bytes())
    }

    /// IEEE Std 1619-2018, 5.2: shift towards x^127; x^128 = x^7 + x^2 + x + 1 (0x87).
    #[inline(always)]
    fn mul_alpha(t: u128) -> u128 {
        (t << 1) ^ ((t >> 127).wrapping_neg() & 0x87)
    }
}

/// GB/T 17964-2021: reflected bit order, byte 0 bit 7 is x^0 (big-endian integer).
enum Gb {}

impl Convention for Gb {
    #[inline(always)]
    fn native(t: u128) -> u128 {
        u128::from_ne_bytes(t.to_be_bytes())
    }

    /// GB/T 17964-2021 (reflected order, as GCM's "x·V" in NIST SP 800-38D, 6.3): shift towards
    /// bit 0; the reduction R = 0xE1 || 0^120 enters at the top.
    #[inline(always)]
    fn mul_alpha(t: u128) -> u128 {
        (t >> 1) ^ ((t & 1).wrapping_neg() & (0xe1 << 120))
    }
}

impl Zeroize for Tweak {
    fn zeroize(&mut self) {
        self.value.zeroize();
    }
}

/// `block ^= mask`.
#[inline(always)]
fn xor_in(block: &mut Block, mask: &Block) {
    *block = (u128::from_ne_bytes(*block) ^ u128::from_ne_bytes(*mask)).to_ne_bytes();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IEEE doubling: x^127 · x wraps to x^7 + x^2 + x + 1; GB halving: x^0 · x (byte 0 bit
    /// 7 in reflected order) moves to bit 6, and the top coefficient folds back as 0xE1.
    #[test]
    fn alpha_multiplication_conventions() {
        let mut ieee = Tweak::load(XtsStandard::Ieee1619, &[0; 16]);
        ieee.value = 1 << 127;
        ieee.mul_alpha();
        assert_eq!(ieee.bytes(), {
            let mut b = [0; 16];
            b[0] = 0x87;
            b
        });
        let mut gb = Tweak::load(XtsStandard::GbT17964, &{
            let mut b = [0; 16];
            b[0] = 0x80;
            b
        });
        gb.mul_alpha();
        assert_eq!(gb.bytes()[0], 0x40);
        let mut gb = Tweak::load(XtsStandard::GbT17964, &{
            let mut b = [0; 16];
            b[15] = 0x01;
            b
        });
        gb.mul_alpha();
        assert_eq!(gb.bytes(), {
            let mut b = [0; 16];
            b[0] = 0xe1;
            b
        });
    }

    #[test]
    fn equal_key_halves_are_rejected() {
        let key = [7u8; XTS_KEY_SIZE];
        for standard in [XtsStandard::Ieee1619, XtsStandard::GbT17964] {
            assert_eq!(
                Xts::new(&key, standard).err(),
                Some(XtsError::EqualKeyHalves)
            );
        }
    }
}
