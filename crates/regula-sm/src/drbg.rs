//! The deterministic random bit generators of GM/T 0105-2021 ("Design guide for software-based
//! random number generators"): the SM3-based generator of its Annex B and the SM4-based one of
//! its Annex E.
//!
//! Both follow the structure of NIST SP 800-90A (Hash_DRBG and CTR_DRBG with a derivation
//! function) with the differences GM/T 0105 makes:
//! - reseeding mixes `0x01 ‖ entropy ‖ V ‖ additional` (entropy before V) in the SM3 generator;
//! - one request returns at most one output block of the underlying primitive (32 bytes for SM3,
//!   16 bytes for SM4); [`Rng::fill`] makes as many requests as a buffer needs;
//! - reseeding is due after a number of requests **or** a time, by security level
//!   ([`SecurityLevel`], GB/T 37092): level 1 every 2²⁰ requests or 600 s, level 2 every 2¹⁰
//!   requests or 60 s;
//! - entropy input is at least 256 bits and the nonce at least 128 bits.
//!
//! The working state (V, C, Key) is wiped on drop and never printed.

use std::time::{Duration, Instant};

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::sm3::Sm3;
use crate::sm4::{BLOCK_SIZE, Block, KEY_SIZE, Sm4};

/// The GB/T 37092 security level a generator runs at; it sets how often reseeding is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecurityLevel {
    /// Level 1: reseed after 2²⁰ requests or 600 seconds.
    One,
    /// Level 2: reseed after 2¹⁰ requests or 60 seconds.
    Two,
}

impl SecurityLevel {
    /// Requests allowed between reseeds.
    pub fn reseed_counter_interval(self) -> u64 {
        match self {
            SecurityLevel::One => 1 << 20,
            SecurityLevel::Two => 1 << 10,
        }
    }

    /// Time allowed between reseeds.
    pub fn reseed_time_interval(self) -> Duration {
        match self {
            SecurityLevel::One => Duration::from_secs(600),
            SecurityLevel::Two => Duration::from_secs(60),
        }
    }
}

/// Why a generator refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrbgError {
    /// The entropy input is shorter than the 256 bits GM/T 0105 requires.
    EntropyTooShort,
    /// The nonce is shorter than the 128 bits GM/T 0105 requires.
    NonceTooShort,
    /// An input exceeds the 2³⁵-bit limit of the derivation function.
    InputTooLong,
    /// A single request asked for more than one output block.
    RequestTooLarge,
    /// The request counter or the time since the last reseed reached the security level's limit.
    ReseedRequired,
    /// The entropy source failed.
    EntropySource,
}

impl std::fmt::Display for DrbgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DrbgError::EntropyTooShort => "entropy input shorter than 256 bits",
            DrbgError::NonceTooShort => "nonce shorter than 128 bits",
            DrbgError::InputTooLong => "input longer than the derivation function accepts",
            DrbgError::RequestTooLarge => "request larger than one output block",
            DrbgError::ReseedRequired => "reseed required (request count or time limit reached)",
            DrbgError::EntropySource => "the entropy source failed",
        })
    }
}

impl std::error::Error for DrbgError {}

const MIN_ENTROPY_LEN: usize = 32;
const MIN_NONCE_LEN: usize = 16;
/// Inputs are limited so that their bit length fits the derivation functions' 32-bit fields.
const MAX_INPUT_LEN: usize = 1 << 27;

/// Request bookkeeping shared by both generators.
#[derive(Clone, Debug)]
struct ReseedSchedule {
    level: SecurityLevel,
    requests: u64,
    last_reseed: Instant,
}

impl ReseedSchedule {
    fn fresh(level: SecurityLevel) -> Self {
        ReseedSchedule {
            level,
            requests: 1,
            last_reseed: Instant::now(),
        }
    }

    fn due(&self) -> bool {
        self.requests > self.level.reseed_counter_interval()
            || self.last_reseed.elapsed() > self.level.reseed_time_interval()
    }
}

fn check_inputs(entropy: &[u8], nonce: Option<&[u8]>, extra: &[u8]) -> Result<(), DrbgError> {
    if entropy.len() < MIN_ENTROPY_LEN {
        return Err(DrbgError::EntropyTooShort);
    }
    if nonce.is_some_and(|n| n.len() < MIN_NONCE_LEN) {
        return Err(DrbgError::NonceTooShort);
    }
    let nonce_len = nonce.map_or(0, <[u8]>::len);
    if entropy.len() >= MAX_INPUT_LEN
        || nonce_len >= MAX_INPUT_LEN / 2
        || extra.len() >= MAX_INPUT_LEN
    {
        return Err(DrbgError::InputTooLong);
    }
    Ok(())
}

/// Adds `addend` (big-endian, at most as long as `acc`) into `acc` modulo 2^(8·len).
fn add_be(acc: &mut [u8], addend: &[u8]) {
    let mut carry = 0u16;
    let offset = acc.len() - addend.len();
    for i in (0..acc.len()).rev() {
        let a = if i >= offset { addend[i - offset] } else { 0 };
        carry += u16::from(acc[i]) + u16::from(a);
        acc[i] = carry as u8;
        carry >>= 8;
    }
}

fn increment_be(acc: &mut [u8]) {
    add_be(acc, &[1]);
}

/// Length of V and C in the SM3 generator: 440 bits.
const SM3_SEED_LEN: usize = 55;
/// Bytes one SM3 request returns at most.
pub const SM3_MAX_REQUEST: usize = 32;

/// The SM3-based generator of GM/T 0105-2021 Annex B.
pub struct Sm3HashDrbg {
    v: [u8; SM3_SEED_LEN],
    c: [u8; SM3_SEED_LEN],
    schedule: ReseedSchedule,
}

impl Sm3HashDrbg {
    /// Instantiates from at least 256 bits of entropy, a nonce of at least 128 bits and an
    /// optional personalization string.
    pub fn new(
        level: SecurityLevel,
        entropy: &[u8],
        nonce: &[u8],
        personalization: &[u8],
    ) -> Result<Self, DrbgError> {
        check_inputs(entropy, Some(nonce), personalization)?;
        let mut drbg = Sm3HashDrbg {
            v: [0; SM3_SEED_LEN],
            c: [0; SM3_SEED_LEN],
            schedule: ReseedSchedule::fresh(level),
        };
        drbg.set_seed(&[entropy, nonce, personalization]);
        Ok(drbg)
    }

    /// Reseeds with fresh entropy and optional additional input.
    pub fn reseed(&mut self, entropy: &[u8], additional: &[u8]) -> Result<(), DrbgError> {
        check_inputs(entropy, None, additional)?;
        let v = self.v;
        self.set_seed(&[&[0x01], entropy, &v, additional]);
        self.schedule = ReseedSchedule::fresh(self.schedule.level);
        Ok(())
    }

    /// V = df(material), C = df(0x00 ‖ V).
    fn set_seed(&mut self, material: &[&[u8]]) {
        sm3_df(material, &mut self.v);
        let v = self.v;
        sm3_df(&[&[0x00], &v], &mut self.c);
    }

    /// Whether the next request would be refused until a reseed.
    pub fn reseed_due(&self) -> bool {
        self.schedule.due()
    }

    /// Fills `out` (at most 32 bytes) with the leftmost bytes of SM3(V) and advances the state.
    pub fn generate(&mut self, out: &mut [u8], additional: &[u8]) -> Result<(), DrbgError> {
        if out.len() > SM3_MAX_REQUEST {
            return Err(DrbgError::RequestTooLarge);
        }
        if additional.len() >= MAX_INPUT_LEN {
            return Err(DrbgError::InputTooLong);
        }
        if self.schedule.due() {
            return Err(DrbgError::ReseedRequired);
        }
        if !additional.is_empty() {
            let w = sm3_of(&[&[0x02], &self.v, additional]);
            add_be(&mut self.v, &w);
        }
        let output = sm3_of(&[&self.v]);
        out.copy_from_slice(&output[..out.len()]);
        // V = V + SM3(0x03 ‖ V) + C + reseed_counter
        let h = sm3_of(&[&[0x03], &self.v]);
        add_be(&mut self.v, &h);
        let c = self.c;
        add_be(&mut self.v, &c);
        add_be(&mut self.v, &self.schedule.requests.to_be_bytes());
        self.schedule.requests += 1;
        Ok(())
    }
}

impl Drop for Sm3HashDrbg {
    fn drop(&mut self) {
        self.v.zeroize();
        self.c.zeroize();
    }
}

impl ZeroizeOnDrop for Sm3HashDrbg {}

impl std::fmt::Debug for Sm3HashDrbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sm3HashDrbg")
            .field("level", &self.schedule.level)
            .finish_non_exhaustive()
    }
}

fn sm3_of(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sm3::new();
    for part in parts {
        h.update(part);
    }
    h.finalize()
}

/// The SM3 derivation function: SM3(counter ‖ bit length ‖ input) blocks, counter from 1.
fn sm3_df(input: &[&[u8]], out: &mut [u8]) {
    let bits = ((out.len() * 8) as u32).to_be_bytes();
    for (counter, chunk) in (1u8..).zip(out.chunks_mut(32)) {
        let mut h = Sm3::new();
        h.update(&[counter]);
        h.update(&bits);
        for part in input {
            h.update(part);
        }
        let block = h.finalize();
        chunk.copy_from_slice(&block[..chunk.len()]);
    }
}

/// Length of Key ‖ V in the SM4 generator.
const SM4_SEED_LEN: usize = KEY_SIZE + BLOCK_SIZE;
/// Bytes one SM4 request returns at most.
pub const SM4_MAX_REQUEST: usize = BLOCK_SIZE;

/// The SM4-based generator of GM/T 0105-2021 Annex E (CTR mode with a derivation function).
pub struct Sm4CtrDrbg {
    key: [u8; KEY_SIZE],
    v: Block,
    schedule: ReseedSchedule,
}

impl Sm4CtrDrbg {
    /// Instantiates from at least 256 bits of entropy, a nonce of at least 128 bits and an
    /// optional personalization string.
    pub fn new(
        level: SecurityLevel,
        entropy: &[u8],
        nonce: &[u8],
        personalization: &[u8],
    ) -> Result<Self, DrbgError> {
        check_inputs(entropy, Some(nonce), personalization)?;
        let mut drbg = Sm4CtrDrbg {
            key: [0; KEY_SIZE],
            v: [0; BLOCK_SIZE],
            schedule: ReseedSchedule::fresh(level),
        };
        let seed = sm4_df(&[entropy, nonce, personalization]);
        drbg.update(&seed);
        Ok(drbg)
    }

    /// Reseeds with fresh entropy and optional additional input.
    pub fn reseed(&mut self, entropy: &[u8], additional: &[u8]) -> Result<(), DrbgError> {
        check_inputs(entropy, None, additional)?;
        let seed = sm4_df(&[entropy, additional]);
        self.update(&seed);
        self.schedule = ReseedSchedule::fresh(self.schedule.level);
        Ok(())
    }

    /// Whether the next request would be refused until a reseed.
    pub fn reseed_due(&self) -> bool {
        self.schedule.due()
    }

    /// Fills `out` (at most 16 bytes) with the next counter block and advances the state.
    pub fn generate(&mut self, out: &mut [u8], additional: &[u8]) -> Result<(), DrbgError> {
        if out.len() > SM4_MAX_REQUEST {
            return Err(DrbgError::RequestTooLarge);
        }
        if additional.len() >= MAX_INPUT_LEN {
            return Err(DrbgError::InputTooLong);
        }
        if self.schedule.due() {
            return Err(DrbgError::ReseedRequired);
        }
        let mut provided = [0u8; SM4_SEED_LEN];
        if !additional.is_empty() {
            provided = sm4_df(&[additional]);
            self.update(&provided);
        }
        let cipher = Sm4::new(&self.key);
        increment_be(&mut self.v);
        let mut block = self.v;
        cipher.encrypt_block(&mut block);
        out.copy_from_slice(&block[..out.len()]);
        block.zeroize();
        drop(cipher);
        self.update(&provided);
        provided.zeroize();
        self.schedule.requests += 1;
        Ok(())
    }

    /// CTR_DRBG_Update: Key ‖ V = (E(Key, V+1) ‖ E(Key, V+2)) ⊕ provided.
    fn update(&mut self, provided: &[u8; SM4_SEED_LEN]) {
        let cipher = Sm4::new(&self.key);
        let mut temp = [0u8; SM4_SEED_LEN];
        for chunk in temp.chunks_mut(BLOCK_SIZE) {
            increment_be(&mut self.v);
            let mut block = self.v;
            cipher.encrypt_block(&mut block);
            chunk.copy_from_slice(&block);
        }
        for (t, p) in temp.iter_mut().zip(provided) {
            *t ^= p;
        }
        self.key.copy_from_slice(&temp[..KEY_SIZE]);
        self.v.copy_from_slice(&temp[KEY_SIZE..]);
        temp.zeroize();
    }
}

impl Drop for Sm4CtrDrbg {
    fn drop(&mut self) {
        self.key.zeroize();
        self.v.zeroize();
    }
}

impl ZeroizeOnDrop for Sm4CtrDrbg {}

impl std::fmt::Debug for Sm4CtrDrbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sm4CtrDrbg")
            .field("level", &self.schedule.level)
            .finish_non_exhaustive()
    }
}

/// The block-cipher derivation function (SP 800-90A Block_Cipher_df with SM4): BCC over
/// `L ‖ N ‖ input ‖ 0x80 ‖ 0*` under the fixed key 00 01 … 0F, then SM4-encrypt a chain.
fn sm4_df(input: &[&[u8]]) -> [u8; SM4_SEED_LEN] {
    let input_len: usize = input.iter().map(|p| p.len()).sum();
    // S = L ‖ N ‖ input ‖ 0x80, padded with zeros to a whole number of blocks.
    let mut s = Vec::with_capacity(input_len + 9 + BLOCK_SIZE);
    s.extend_from_slice(&(input_len as u32).to_be_bytes());
    s.extend_from_slice(&(SM4_SEED_LEN as u32).to_be_bytes());
    for part in input {
        s.extend_from_slice(part);
    }
    s.push(0x80);
    s.resize(s.len().div_ceil(BLOCK_SIZE) * BLOCK_SIZE, 0);

    let mut df_key = [0u8; KEY_SIZE];
    for (i, b) in df_key.iter_mut().enumerate() {
        *b = i as u8;
    }
    let bcc_cipher = Sm4::new(&df_key);
    let mut temp = [0u8; SM4_SEED_LEN];
    for (i, chunk) in temp.chunks_mut(BLOCK_SIZE).enumerate() {
        // BCC(K, IV ‖ S) with IV = i (32-bit, big-endian) padded to a block.
        let mut chain = [0u8; BLOCK_SIZE];
        chain[..4].copy_from_slice(&(i as u32).to_be_bytes());
        bcc_cipher.encrypt_block(&mut chain);
        for block in s.chunks(BLOCK_SIZE) {
            for (c, b) in chain.iter_mut().zip(block) {
                *c ^= b;
            }
            bcc_cipher.encrypt_block(&mut chain);
        }
        chunk.copy_from_slice(&chain);
        chain.zeroize();
    }
    s.zeroize();

    let mut key = [0u8; KEY_SIZE];
    key.copy_from_slice(&temp[..KEY_SIZE]);
    let mut x: Block = [0; BLOCK_SIZE];
    x.copy_from_slice(&temp[KEY_SIZE..]);
    let cipher = Sm4::new(&key);
    let mut out = [0u8; SM4_SEED_LEN];
    for chunk in out.chunks_mut(BLOCK_SIZE) {
        cipher.encrypt_block(&mut x);
        chunk.copy_from_slice(&x);
    }
    key.zeroize();
    x.zeroize();
    temp.zeroize();
    out
}

/// Which GM/T 0105 generator an [`Rng`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// Annex B: SM3.
    Sm3,
    /// Annex E: SM4 in CTR mode.
    Sm4Ctr,
}

enum Generator {
    Sm3(Sm3HashDrbg),
    Sm4(Sm4CtrDrbg),
}

/// An entropy source: fills the whole buffer it is given, or fails.
pub type EntropySource = Box<dyn FnMut(&mut [u8]) -> Result<(), DrbgError> + Send>;

/// A GM/T 0105 generator with its entropy source: it reseeds itself when the security level
/// requires, and fills buffers of any length one request at a time.
pub struct Rng {
    generator: Generator,
    entropy: EntropySource,
}

impl Rng {
    /// Instantiates `mechanism` with entropy and nonce drawn from `entropy` (which must fill
    /// the whole buffer it is given or fail).
    pub fn new(
        mechanism: Mechanism,
        level: SecurityLevel,
        personalization: &[u8],
        mut entropy: EntropySource,
    ) -> Result<Rng, DrbgError> {
        let mut seed = [0u8; 64];
        let mut nonce = [0u8; 32];
        let drawn = entropy(&mut seed).and_then(|()| entropy(&mut nonce));
        let generator = drawn.and_then(|()| {
            Ok(match mechanism {
                Mechanism::Sm3 => {
                    Generator::Sm3(Sm3HashDrbg::new(level, &seed, &nonce, personalization)?)
                }
                Mechanism::Sm4Ctr => {
                    Generator::Sm4(Sm4CtrDrbg::new(level, &seed, &nonce, personalization)?)
                }
            })
        });
        seed.zeroize();
        nonce.zeroize();
        Ok(Rng {
            generator: generator?,
            entropy,
        })
    }

    /// Which generator this is.
    pub fn mechanism(&self) -> Mechanism {
        match self.generator {
            Generator::Sm3(_) => Mechanism::Sm3,
            Generator::Sm4(_) => Mechanism::Sm4Ctr,
        }
    }

    /// Fills `out`, reseeding from the entropy source whenever the schedule says so.
    pub fn fill(&mut self, out: &mut [u8]) -> Result<(), DrbgError> {
        let max = match self.generator {
            Generator::Sm3(_) => SM3_MAX_REQUEST,
            Generator::Sm4(_) => SM4_MAX_REQUEST,
        };
        for chunk in out.chunks_mut(max) {
            let due = match &self.generator {
                Generator::Sm3(g) => g.reseed_due(),
                Generator::Sm4(g) => g.reseed_due(),
            };
            if due {
                let mut fresh = [0u8; 64];
                let result = (self.entropy)(&mut fresh).and_then(|()| match &mut self.generator {
                    Generator::Sm3(g) => g.reseed(&fresh, &[]),
                    Generator::Sm4(g) => g.reseed(&fresh, &[]),
                });
                fresh.zeroize();
                result?;
            }
            let generated = match &mut self.generator {
                Generator::Sm3(g) => g.generate(chunk, &[]),
                Generator::Sm4(g) => g.generate(chunk, &[]),
            };
            if let Err(e) = generated {
                out.zeroize();
                return Err(e);
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for Rng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rng")
            .field("mechanism", &self.mechanism())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_endian_addition_carries_and_wraps() {
        let mut acc = [0x00, 0xff, 0xff];
        add_be(&mut acc, &[0x01]);
        assert_eq!(acc, [0x01, 0x00, 0x00]);
        let mut acc = [0xff, 0xff];
        add_be(&mut acc, &[0x00, 0x02]);
        assert_eq!(acc, [0x00, 0x01]);
    }

    #[test]
    fn short_inputs_and_large_requests_are_refused() {
        let e = [7u8; 32];
        let n = [9u8; 16];
        assert_eq!(
            Sm3HashDrbg::new(SecurityLevel::One, &e[..31], &n, &[]).err(),
            Some(DrbgError::EntropyTooShort)
        );
        assert_eq!(
            Sm4CtrDrbg::new(SecurityLevel::One, &e, &n[..15], &[]).err(),
            Some(DrbgError::NonceTooShort)
        );
        let mut g = Sm3HashDrbg::new(SecurityLevel::One, &e, &n, &[]).unwrap();
        assert_eq!(
            g.generate(&mut [0; 33], &[]),
            Err(DrbgError::RequestTooLarge)
        );
        let mut g = Sm4CtrDrbg::new(SecurityLevel::One, &e, &n, &[]).unwrap();
        assert_eq!(
            g.generate(&mut [0; 17], &[]),
            Err(DrbgError::RequestTooLarge)
        );
    }

    #[test]
    fn the_request_counter_forces_a_reseed_at_the_level_limit() {
        let e = [7u8; 32];
        let n = [9u8; 16];
        let mut g = Sm4CtrDrbg::new(SecurityLevel::Two, &e, &n, &[]).unwrap();
        let mut out = [0u8; 16];
        for _ in 0..1024 {
            g.generate(&mut out, &[]).unwrap();
        }
        assert_eq!(g.generate(&mut out, &[]), Err(DrbgError::ReseedRequired));
        g.reseed(&e, &[]).unwrap();
        g.generate(&mut out, &[]).unwrap();
    }
}
