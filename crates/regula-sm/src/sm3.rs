//! SM3 (GB/T 32905-2016, GM/T 0004-2012) and HMAC-SM3 (RFC 2104 with SM3, GM/T 0042-2015).
//!
//! The compression function is chosen once per process from what the CPU supports:
//!
//! | backend | CPU features | message expansion | rounds |
//! |---|---|---|---|
//! | `sm3-avx512-bmi2` | AVX-512F, AVX-512VL, BMI2 | four words per step, `vprold`/`vpternlogd` | assembly (`sm3/avx512_asm.rs`) |
//! | `sm3-ssse3` | SSSE3 | four words per step, shifts | compiled (`sm3/rounds.rs`) |
//! | `sm3-ce` | aarch64 SM3 Crypto Extension | `sm3partw1`/`sm3partw2` | `sm3ss1`/`sm3tt1*`/`sm3tt2*` (`sm3/aarch64.rs`) |
//! | `sm3-rustcrypto` | none: the RustCrypto `sm3` crate (vetted, portable) | scalar | compiled |
//!
//! The x86-64 backends expand the message on SIMD registers, interleaved with the scalar
//! rounds; the rounds are one long dependency chain, so the expansion runs beside them. SM3 has no table lookups and no data-dependent branches, so
//! every backend runs in constant time. `--cfg sm4_backend="soft"` builds (the crate's switch
//! for unsafe-free builds) and other architectures use RustCrypto `sm3`. Hash and HMAC states
//! are wiped when dropped.

#[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
mod aarch64;
#[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
mod avx512_asm;
mod many;
#[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
mod many_x86;
#[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
mod rounds;
#[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
mod x86_64;

use std::sync::OnceLock;

use sm3::Digest;
use zeroize::Zeroize;

/// SM3 digest length in bytes.
pub const OUTPUT_LEN: usize = 32;

/// SM3 block length in bytes.
const BLOCK_LEN: usize = 64;

/// Backend selection, for tests, benchmarks and `regula info` (as [`crate::sm4::backend`]).
#[doc(hidden)]
pub mod backend {
    /// An SM3 implementation.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Backend {
        /// RustCrypto `sm3`, portable.
        RustCrypto,
        /// Message expansion with SSSE3.
        Ssse3,
        /// The assembly compression: message expansion with AVX-512VL, rounds with BMI2
        /// rotations.
        Avx512Bmi2,
        /// The aarch64 SM3 Crypto Extension.
        Ce,
    }

    impl Backend {
        /// Every backend, slowest first.
        pub const ALL: [Backend; 4] = [
            Backend::RustCrypto,
            Backend::Ssse3,
            Backend::Avx512Bmi2,
            Backend::Ce,
        ];

        /// Driver-style name.
        pub const fn name(self) -> &'static str {
            match self {
                Backend::RustCrypto => "sm3-rustcrypto",
                Backend::Ssse3 => "sm3-ssse3",
                Backend::Avx512Bmi2 => "sm3-avx512-bmi2",
                Backend::Ce => "sm3-ce",
            }
        }

        /// Whether this CPU (and build) can run the backend.
        pub fn is_available(self) -> bool {
            self == Backend::RustCrypto || super::Engine::for_backend(self).is_some()
        }
    }

    impl core::fmt::Display for Backend {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str(self.name())
        }
    }

    /// The backends this CPU supports, slowest first (so the last one is [`active`]).
    pub fn available() -> Vec<Backend> {
        Backend::ALL
            .into_iter()
            .filter(|backend| backend.is_available())
            .collect()
    }

    /// The backend [`super::Sm3::new`] uses: the fastest available, detected once per process.
    pub fn active() -> Backend {
        super::Engine::active().map_or(Backend::RustCrypto, |engine| engine.backend())
    }
}

/// One of our compression functions, on a CPU checked to support it.
#[derive(Clone, Copy)]
enum Engine {
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    Ssse3(x86_64::Ssse3Token),
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    Avx512(x86_64::Avx512Token),
    #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
    Ce(aarch64::Token),
}

impl Engine {
    /// The fastest supported engine, if any, detected on first use and cached for the process.
    fn active() -> Option<Engine> {
        static ACTIVE: OnceLock<Option<Engine>> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            backend::Backend::ALL
                .into_iter()
                .rev()
                .find_map(Engine::for_backend)
        })
    }

    fn for_backend(backend: backend::Backend) -> Option<Engine> {
        use backend::Backend;
        match backend {
            Backend::RustCrypto => None,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Backend::Ssse3 => x86_64::Ssse3Token::detect().map(Engine::Ssse3),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Backend::Avx512Bmi2 => x86_64::Avx512Token::detect().map(Engine::Avx512),
            #[cfg(not(all(target_arch = "x86_64", not(sm4_backend = "soft"))))]
            Backend::Ssse3 | Backend::Avx512Bmi2 => None,
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Backend::Ce => aarch64::Token::detect().map(Engine::Ce),
            #[cfg(not(all(target_arch = "aarch64", not(sm4_backend = "soft"))))]
            Backend::Ce => None,
        }
    }

    fn backend(self) -> backend::Backend {
        match self {
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::Ssse3(_) => backend::Backend::Ssse3,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::Avx512(_) => backend::Backend::Avx512Bmi2,
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Ce(_) => backend::Backend::Ce,
        }
    }

    #[inline]
    // Without the SIMD backends there is no engine, and nothing to compress with.
    #[cfg_attr(
        not(all(
            any(target_arch = "x86_64", target_arch = "aarch64"),
            not(sm4_backend = "soft")
        )),
        allow(unused_variables)
    )]
    fn compress(self, state: &mut [u32; 8], blocks: &[[u8; BLOCK_LEN]]) {
        match self {
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::Ssse3(token) => x86_64::compress_ssse3(token, state, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::Avx512(token) => x86_64::compress_avx512(token, state, blocks),
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Ce(token) => aarch64::compress(token, state, blocks),
        }
    }
}

/// Initial value IV (GB/T 32905-2016, 4.1).
const IV: [u32; 8] = [
    0x7380_166f,
    0x4914_b2b9,
    0x1724_42d7,
    0xda8a_0600,
    0xa96f_30bc,
    0x1631_38aa,
    0xe38d_ee4d,
    0xb0fb_0e4e,
];

/// An incremental SM3 computation.
#[derive(Clone)]
pub struct Sm3(Inner);

#[derive(Clone)]
enum Inner {
    /// RustCrypto wipes its state on drop (feature `zeroize`).
    RustCrypto(sm3::Sm3),
    /// Wipes itself on drop.
    Native(Native),
}

/// SM3 on one of our compression functions: state, pending bytes and length.
#[derive(Clone)]
struct Native {
    state: [u32; 8],
    /// Bytes absorbed but not yet compressed: `buffer[..buffered]`, fewer than a block.
    buffer: [u8; BLOCK_LEN],
    buffered: usize,
    /// Message length so far, in bytes.
    length: u64,
    engine: Engine,
}

impl Default for Sm3 {
    fn default() -> Self {
        Self::with_engine(Engine::active())
    }
}

impl Sm3 {
    /// A fresh hash state.
    pub fn new() -> Sm3 {
        Sm3::default()
    }

    /// A fresh hash state on a forced backend; `None` when this CPU (or build) lacks it.
    #[doc(hidden)]
    pub fn with_backend(backend: backend::Backend) -> Option<Sm3> {
        match backend {
            backend::Backend::RustCrypto => Some(Self::with_engine(None)),
            _ => Engine::for_backend(backend).map(|engine| Self::with_engine(Some(engine))),
        }
    }

    fn with_engine(engine: Option<Engine>) -> Sm3 {
        Sm3(match engine {
            None => Inner::RustCrypto(sm3::Sm3::new()),
            Some(engine) => Inner::Native(Native {
                state: IV,
                buffer: [0; BLOCK_LEN],
                buffered: 0,
                length: 0,
                engine,
            }),
        })
    }

    /// The backend this state compresses with.
    #[doc(hidden)]
    pub fn backend(&self) -> backend::Backend {
        match &self.0 {
            Inner::RustCrypto(_) => backend::Backend::RustCrypto,
            Inner::Native(native) => native.engine.backend(),
        }
    }

    /// The chaining value of a native state that absorbed only whole blocks, as a start for
    /// [`many::digests`].
    fn keyed_start(&self) -> Option<many::Start> {
        match &self.0 {
            Inner::Native(native) if native.buffered == 0 => Some(many::Start {
                state: native.state,
                absorbed: native.length,
            }),
            _ => None,
        }
    }

    /// Absorbs more of the message.
    pub fn update(&mut self, data: &[u8]) {
        match &mut self.0 {
            Inner::RustCrypto(hash) => hash.update(data),
            Inner::Native(native) => native.update(data),
        }
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> [u8; OUTPUT_LEN] {
        match self.0 {
            Inner::RustCrypto(hash) => hash.finalize().into(),
            Inner::Native(native) => native.finalize(),
        }
    }
}

impl Native {
    fn update(&mut self, mut data: &[u8]) {
        // The bit length is taken modulo 2^64; SM3 is defined for l < 2^64 bits.
        self.length = self.length.wrapping_add(data.len() as u64);
        if self.buffered > 0 {
            let take = (BLOCK_LEN - self.buffered).min(data.len());
            self.buffer[self.buffered..self.buffered + take].copy_from_slice(&data[..take]);
            self.buffered += take;
            data = &data[take..];
            if self.buffered < BLOCK_LEN {
                return;
            }
            self.engine.compress(&mut self.state, &[self.buffer]);
            self.buffered = 0;
        }
        let (blocks, rest) = data.as_chunks::<BLOCK_LEN>();
        if !blocks.is_empty() {
            self.engine.compress(&mut self.state, blocks);
        }
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.buffered = rest.len();
    }

    fn finalize(mut self) -> [u8; OUTPUT_LEN] {
        // Padding (GB/T 32905-2016, 5.2): a 1 bit, zeros to 448 mod 512 bits, then the
        // message length in bits as a 64-bit big-endian integer.
        let bits = self.length.wrapping_mul(8);
        let mut blocks = [[0u8; BLOCK_LEN]; 2];
        blocks[0][..self.buffered].copy_from_slice(&self.buffer[..self.buffered]);
        blocks[0][self.buffered] = 0x80;
        let count = if self.buffered < BLOCK_LEN - 8 { 1 } else { 2 };
        blocks[count - 1][BLOCK_LEN - 8..].copy_from_slice(&bits.to_be_bytes());
        self.engine.compress(&mut self.state, &blocks[..count]);
        blocks.as_flattened_mut().zeroize();

        let mut digest = [0u8; OUTPUT_LEN];
        for (bytes, word) in digest.as_chunks_mut::<4>().0.iter_mut().zip(self.state) {
            *bytes = word.to_be_bytes();
        }
        digest
    }
}

impl Drop for Native {
    fn drop(&mut self) {
        self.state.zeroize();
        self.buffer.zeroize();
        self.length.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for Sm3 {}

impl std::fmt::Debug for Sm3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sm3")
            .field("backend", &self.backend().name())
            .finish_non_exhaustive()
    }
}

/// SM3 of `data` in one call.
pub fn sm3(data: &[u8]) -> [u8; OUTPUT_LEN] {
    let mut hash = Sm3::new();
    hash.update(data);
    hash.finalize()
}

pub use many::backend as many_backend;

/// The SM3 digests of many messages, in order: `hash_many(&[a, b])` is `[sm3(a), sm3(b)]`.
///
/// With AVX-512 (16 lanes) or AVX2 (8 lanes) the messages are hashed side by side, one per
/// SIMD lane, several times faster than one after another; messages of different lengths mix
/// freely. Use it wherever many independent messages are hashed: files, records, and Merkle
/// trees, whose every level is a batch of independent nodes:
///
/// ```
/// use regula_sm::sm3::{hash_many, sm3};
///
/// // A binary Merkle tree over four leaves (prefix 0 for leaves, 1 for inner nodes).
/// let leaves: Vec<Vec<u8>> = (0u8..4).map(|i| [&[0u8][..], &[i; 100][..]].concat()).collect();
/// let mut level = hash_many(&leaves.iter().map(Vec::as_slice).collect::<Vec<_>>());
/// while level.len() > 1 {
///     let nodes: Vec<Vec<u8>> = level
///         .chunks(2)
///         .map(|pair| [&[1u8][..], &pair[0], &pair[1]].concat())
///         .collect();
///     level = hash_many(&nodes.iter().map(Vec::as_slice).collect::<Vec<_>>());
/// }
/// let left = sm3(&[&[1u8][..], &sm3(&leaves[0]), &sm3(&leaves[1])].concat());
/// let right = sm3(&[&[1u8][..], &sm3(&leaves[2]), &sm3(&leaves[3])].concat());
/// assert_eq!(level[0], sm3(&[&[1u8][..], &left, &right].concat()));
/// ```
pub fn hash_many(messages: &[&[u8]]) -> Vec<[u8; OUTPUT_LEN]> {
    many::digests(
        many::Plan::auto(messages.len()),
        many::Start::FRESH,
        messages,
    )
}

/// [`hash_many`] on a forced multi-buffer backend, every message through it; `None` when this
/// CPU (or build) lacks it.
#[doc(hidden)]
pub fn hash_many_with(
    backend: many_backend::ManyBackend,
    messages: &[&[u8]],
) -> Option<Vec<[u8; OUTPUT_LEN]>> {
    let plan = many::Plan::forced(backend)?;
    Some(many::digests(plan, many::Start::FRESH, messages))
}

/// HMAC-SM3 of many messages under one key, in order (see [`HmacSm3::mac_many`]).
pub fn hmac_sm3_many(key: &[u8], messages: &[&[u8]]) -> Vec<[u8; OUTPUT_LEN]> {
    HmacSm3::keyed(key, Sm3::new).mac_many(messages)
}

/// An incremental HMAC-SM3 computation (RFC 2104), keyed once and cloned per message if needed.
///
/// Both keyed states (after K ^ ipad and K ^ opad) are kept, so a clone per message skips
/// re-keying; they are wiped on drop.
#[derive(Clone)]
pub struct HmacSm3 {
    inner: Sm3,
    outer: Sm3,
}

impl HmacSm3 {
    /// HMAC accepts keys of any length (RFC 2104 §2: longer keys are hashed first), so this
    /// never fails; the `Result` is kept for API stability.
    pub fn new(key: &[u8]) -> Result<HmacSm3, crate::Error> {
        Ok(Self::keyed(key, Sm3::new))
    }

    /// HMAC-SM3 on a forced SM3 backend; `None` when this CPU (or build) lacks it.
    #[doc(hidden)]
    pub fn with_backend(key: &[u8], backend: backend::Backend) -> Option<HmacSm3> {
        let hash = Sm3::with_backend(backend)?;
        Some(Self::keyed(key, || hash.clone()))
    }

    fn keyed(key: &[u8], fresh: impl Fn() -> Sm3) -> HmacSm3 {
        // K padded with zeros to the block length B = 64, or H(K) padded when K is longer.
        let mut block_key = [0u8; BLOCK_LEN];
        if key.len() > BLOCK_LEN {
            let mut hash = fresh();
            hash.update(key);
            let mut digest = hash.finalize();
            block_key[..OUTPUT_LEN].copy_from_slice(&digest);
            digest.zeroize();
        } else {
            block_key[..key.len()].copy_from_slice(key);
        }
        let mut pad = [0u8; BLOCK_LEN];
        let mut keyed = |byte: u8| {
            for (pad, key) in pad.iter_mut().zip(&block_key) {
                *pad = key ^ byte;
            }
            let mut state = fresh();
            state.update(&pad);
            state
        };
        // ipad = 0x36 repeated, opad = 0x5c repeated (RFC 2104 §2).
        let inner = keyed(0x36);
        let outer = keyed(0x5c);
        pad.zeroize();
        block_key.zeroize();
        HmacSm3 { inner, outer }
    }

    /// Absorbs more of the message.
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The tags of many messages under this key, each as if absorbed alone into a fresh clone
    /// of this (still unused) state; with AVX-512 or AVX2 the messages are hashed side by side
    /// (see [`hash_many`]). Data already absorbed into `self` is not part of any tag.
    pub fn mac_many(&self, messages: &[&[u8]]) -> Vec<[u8; OUTPUT_LEN]> {
        self.mac_many_plan(many::Plan::auto(messages.len()), messages)
    }

    /// [`HmacSm3::mac_many`] on a forced multi-buffer backend; `None` when this CPU lacks it.
    #[doc(hidden)]
    pub fn mac_many_with(
        &self,
        backend: many_backend::ManyBackend,
        messages: &[&[u8]],
    ) -> Option<Vec<[u8; OUTPUT_LEN]>> {
        Some(self.mac_many_plan(many::Plan::forced(backend)?, messages))
    }

    fn mac_many_plan(&self, plan: many::Plan, messages: &[&[u8]]) -> Vec<[u8; OUTPUT_LEN]> {
        let (Some(inner), Some(outer)) = (self.inner.keyed_start(), self.outer.keyed_start())
        else {
            // RustCrypto states: one message after another.
            return messages
                .iter()
                .map(|message| {
                    let mut mac = self.clone();
                    mac.update(message);
                    mac.finalize()
                })
                .collect();
        };
        let mut inner_digests = many::digests(plan, inner, messages);
        let refs: Vec<&[u8]> = inner_digests.iter().map(|digest| &digest[..]).collect();
        let tags = many::digests(plan, outer, &refs);
        drop(refs);
        inner_digests.as_flattened_mut().zeroize();
        tags
    }

    /// The full 32-byte tag: H(K ^ opad || H(K ^ ipad || message)).
    pub fn finalize(self) -> [u8; OUTPUT_LEN] {
        let HmacSm3 { inner, mut outer } = self;
        let mut inner_digest = inner.finalize();
        outer.update(&inner_digest);
        inner_digest.zeroize();
        outer.finalize()
    }
}

impl std::fmt::Debug for HmacSm3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HmacSm3")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    fn digest_with(backend: backend::Backend, data: &[u8]) -> [u8; OUTPUT_LEN] {
        let mut hash = Sm3::with_backend(backend).expect("available backend");
        hash.update(data);
        hash.finalize()
    }

    /// GB/T 32905-2016 Appendix A, examples 1 ("abc") and 2 ("abcd" × 16), on every backend.
    #[test]
    fn standard_examples() {
        for backend in backend::available() {
            assert_eq!(
                hex(&digest_with(backend, b"abc")),
                "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0",
                "{backend}"
            );
            assert_eq!(
                hex(&digest_with(backend, &b"abcd".repeat(16))),
                "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732",
                "{backend}"
            );
        }
        assert_eq!(
            hex(&sm3(b"abc")),
            "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
        );
    }

    #[test]
    fn incremental_equals_one_shot_at_every_split() {
        let data: Vec<u8> = (0..200u8).collect();
        for backend in backend::available() {
            for split in 0..=data.len() {
                let mut hash = Sm3::with_backend(backend).unwrap();
                hash.update(&data[..split]);
                hash.update(&data[split..]);
                assert_eq!(hash.finalize(), sm3(&data), "{backend} split at {split}");
            }
        }
    }

    /// Every backend against RustCrypto `sm3` (an independent implementation) on lengths
    /// 0..=4 KiB around the padding boundaries (55, 56, 63, 64 bytes mod 64), fed whole and in
    /// random pieces.
    #[test]
    fn matches_rustcrypto_sm3() {
        use rand::{Rng, SeedableRng};
        use sm3::Digest;

        let mut rng = rand::rngs::StdRng::seed_from_u64(0x5303_0001);
        let mut lengths: Vec<usize> = (0..=4096).step_by(61).collect();
        for blocks in [0usize, 1, 2, 3, 16, 63] {
            for offset in [0usize, 1, 55, 56, 57, 63] {
                lengths.push(64 * blocks + offset);
            }
        }
        for len in lengths {
            let mut data = vec![0u8; len];
            rng.fill(&mut data[..]);
            let expected: [u8; 32] = sm3::Sm3::digest(&data).into();
            for backend in backend::available() {
                assert_eq!(digest_with(backend, &data), expected, "{backend} len {len}");
                let mut hash = Sm3::with_backend(backend).unwrap();
                let mut rest = &data[..];
                while !rest.is_empty() {
                    let take = rng.random_range(0..=rest.len().min(150));
                    hash.update(&rest[..take]);
                    rest = &rest[take..];
                }
                assert_eq!(hash.finalize(), expected, "{backend} pieces, len {len}");
            }
        }
    }
}
