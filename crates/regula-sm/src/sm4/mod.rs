//! SM4 block cipher, GB/T 32907-2016 (also ISO/IEC 18033-3:2010/Amd 1:2021).
//!
//! [`Sm4`] holds an expanded key and encrypts or decrypts whole 16-byte blocks. Slices of blocks
//! go through the widest backend the CPU supports; the backend is chosen once per process (see
//! [`backend`]). The modes of operation in [`modes`] are built on the multi-block calls.
//!
//! Backends (the names match Linux `/proc/crypto` driver names):
//!
//! | backend | CPU features | blocks in parallel |
//! |---|---|---|
//! | `sm4-gfni-avx512` | GFNI, AVX-512F, AVX-512BW, AVX-512VL | 16 per register set, 4 sets interleaved |
//! | `sm4-vaes-avx2` | VAES, AES-NI, AVX2 (no AVX-512 GFNI) | 8 per register set, 4 sets interleaved; `vaesenclast` on whole `ymm` registers |
//! | `sm4-aesni-avx2` | AES-NI, AVX2 | 8 per register set, 4 sets interleaved |
//! | `sm4-ce` | aarch64 SM4 Crypto Extension (`sm4e`) | 8 in flight |
//! | `sm4-neon` | aarch64 NEON (S-box by `tbl`/`tbx` from registers) | 8 (two transposed sets of 4) |
//! | `sm4-soft` | none (portable, constant time) | 2 (one `u64` holds a word of each) |
//!
//! Single blocks ([`Sm4::encrypt_block`], CBC encryption, the CBC-MACs) cannot use that
//! parallelism, so the SIMD backends also have a latency-optimised one-block path; the GFNI one
//! runs in a transformed domain with its own key layout (see `x86_64/gfni.rs`).
//!
//! Build with `--cfg sm4_backend="soft"` to compile only the portable backend.
//!
//! ```
//! use regula_sm::sm4::modes::{cbc_decrypt_padded, cbc_encrypt_padded, ctr_apply_keystream};
//! use regula_sm::Sm4;
//!
//! // GB/T 32907-2016, Appendix A, example 1.
//! let key = *b"\x01\x23\x45\x67\x89\xab\xcd\xef\xfe\xdc\xba\x98\x76\x54\x32\x10";
//! let sm4 = Sm4::new(&key);
//! let mut block = key;
//! sm4.encrypt_block(&mut block);
//! assert_eq!(block[..4], [0x68, 0x1e, 0xdf, 0x34]);
//!
//! let iv = [7u8; 16];
//! let ciphertext = cbc_encrypt_padded(&sm4, &iv, b"attack at dawn");
//! assert_eq!(cbc_decrypt_padded(&sm4, &iv, &ciphertext)?, b"attack at dawn");
//!
//! let mut data = *b"any length works in CTR";
//! ctr_apply_keystream(&sm4, &iv, &mut data);
//! ctr_apply_keystream(&sm4, &iv, &mut data);
//! assert_eq!(&data, b"any length works in CTR");
//! println!("SM4 backend: {}", sm4.backend().name());
//! # Ok::<(), regula_sm::Error>(())
//! ```

mod autodetect;
pub mod modes;
mod soft;

#[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
mod x86_64;

#[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
mod aarch64;

pub use self::modes::Error;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Size of an SM4 block in bytes.
pub const BLOCK_SIZE: usize = 16;
/// Size of an SM4 key in bytes.
pub const KEY_SIZE: usize = 16;
/// Number of rounds (GB/T 32907-2016, 7.1).
pub(crate) const ROUNDS: usize = 32;

/// One SM4 block.
pub type Block = [u8; BLOCK_SIZE];
/// The 32 round keys rk0..rk31, in the order a backend applies them.
pub(crate) type RoundKeys = [u32; ROUNDS];
/// Round keys laid out for a backend's one-block path (see `autodetect::Engine::block_keys`).
pub(crate) type BlockKeys = [[u32; 2]; ROUNDS];

/// System parameter FK (GB/T 32907-2016, 7.3).
const FK: [u32; 4] = [0xa3b1_bac6, 0x56aa_3350, 0x677d_9197, 0xb270_22dc];

/// Fixed parameter CK: byte j of CK_i is (4i + j) * 7 mod 256 (GB/T 32907-2016, 7.3).
const CK: [u32; ROUNDS] = {
    let mut ck = [0u32; ROUNDS];
    let mut i = 0;
    while i < ROUNDS {
        let mut j = 0;
        while j < 4 {
            let byte = (((4 * i + j) * 7) % 256) as u32;
            ck[i] |= byte << (24 - 8 * j);
            j += 1;
        }
        i += 1;
    }
    ck
};

/// SM4 with an expanded key, bound to one backend.
///
/// The round keys are zeroized when the value is dropped.
#[derive(Clone)]
pub struct Sm4 {
    encrypt_keys: RoundKeys,
    decrypt_keys: RoundKeys,
    /// The same keys for the one-block path, which chained modes (CBC encryption, the
    /// CBC-MACs) are bound by.
    encrypt_block_keys: BlockKeys,
    decrypt_block_keys: BlockKeys,
    engine: autodetect::Engine,
}

impl Sm4 {
    /// Expands `key` for the fastest backend this CPU supports (see [`backend::active`]).
    pub fn new(key: &[u8; KEY_SIZE]) -> Self {
        Self::with_engine(key, autodetect::active_engine())
    }

    /// Expands `key` for a forced backend; `None` when this CPU (or build) lacks it.
    ///
    /// Meant for tests and benchmarks that compare backends, like Go's `crypto/internal/impl`.
    #[doc(hidden)]
    pub fn with_backend(key: &[u8; KEY_SIZE], backend: backend::Backend) -> Option<Self> {
        autodetect::engine_for(backend).map(|engine| Self::with_engine(key, engine))
    }

    fn with_engine(key: &[u8; KEY_SIZE], engine: autodetect::Engine) -> Self {
        let encrypt_keys = expand_key(key);
        let mut decrypt_keys = encrypt_keys;
        // Decryption is the same structure with the round keys in reverse (GB/T 32907-2016, 7.2).
        decrypt_keys.reverse();
        Self {
            encrypt_block_keys: engine.block_keys(&encrypt_keys),
            decrypt_block_keys: engine.block_keys(&decrypt_keys),
            encrypt_keys,
            decrypt_keys,
            engine,
        }
    }

    /// The backend this instance runs on.
    pub fn backend(&self) -> backend::Backend {
        self.engine.backend()
    }

    /// Encrypts one block in place, on the backend's latency-optimised one-block path.
    #[inline]
    pub fn encrypt_block(&self, block: &mut Block) {
        self.engine
            .crypt_block(&self.encrypt_keys, &self.encrypt_block_keys, block);
    }

    /// Decrypts one block in place, on the backend's latency-optimised one-block path.
    #[inline]
    pub fn decrypt_block(&self, block: &mut Block) {
        self.engine
            .crypt_block(&self.decrypt_keys, &self.decrypt_block_keys, block);
    }

    /// Encrypts every block in place, using the backend's parallel path for the bulk.
    #[inline]
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        self.engine
            .crypt_blocks(&self.encrypt_keys, &self.encrypt_block_keys, blocks);
    }

    /// Decrypts every block in place, using the backend's parallel path for the bulk.
    #[inline]
    pub fn decrypt_blocks(&self, blocks: &mut [Block]) {
        self.engine
            .crypt_blocks(&self.decrypt_keys, &self.decrypt_block_keys, blocks);
    }

    /// XORs the CTR keystream E(counter), E(counter + 1), ... (counter modulo 2^128) into
    /// `blocks`; the backends build the counter blocks in registers.
    pub(crate) fn ctr_xor_blocks(&self, counter: u128, blocks: &mut [Block]) {
        self.engine.ctr_xor_blocks(
            &self.encrypt_keys,
            &self.encrypt_block_keys,
            counter,
            blocks,
        );
    }

    /// CBC-encrypts `blocks` in place; `iv` is the ciphertext block before the first one. Each
    /// block waits for the one before, so this runs on the one-block path.
    pub(crate) fn cbc_encrypt_blocks(&self, iv: &Block, blocks: &mut [Block]) {
        self.engine
            .cbc_encrypt_blocks(&self.encrypt_keys, &self.encrypt_block_keys, iv, blocks);
    }

    /// CBC-decrypts `blocks` in place; `iv` is the ciphertext block before the first one.
    pub(crate) fn cbc_decrypt_blocks(&self, iv: &Block, blocks: &mut [Block]) {
        self.engine
            .cbc_decrypt_blocks(&self.decrypt_keys, &self.decrypt_block_keys, iv, blocks);
    }
}

impl Drop for Sm4 {
    fn drop(&mut self) {
        self.encrypt_keys.zeroize();
        self.decrypt_keys.zeroize();
        self.encrypt_block_keys.as_flattened_mut().zeroize();
        self.decrypt_block_keys.as_flattened_mut().zeroize();
    }
}

impl ZeroizeOnDrop for Sm4 {}

impl core::fmt::Debug for Sm4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4")
            .field("backend", &self.backend().name())
            .finish_non_exhaustive()
    }
}

/// Key expansion (GB/T 32907-2016, 7.3): K_i = MK_i ^ FK_i, then
/// rk_i = K_{i+4} = K_i ^ T'(K_{i+1} ^ K_{i+2} ^ K_{i+3} ^ CK_i).
fn expand_key(key: &[u8; KEY_SIZE]) -> RoundKeys {
    let mut k = [0u32; 4];
    for (word, (bytes, fk)) in k.iter_mut().zip(key.chunks_exact(4).zip(FK)) {
        *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) ^ fk;
    }
    let mut round_keys = [0u32; ROUNDS];
    for (i, rk) in round_keys.iter_mut().enumerate() {
        let next = k[0] ^ key_linear(soft::tau(k[1] ^ k[2] ^ k[3] ^ CK[i]));
        k = [k[1], k[2], k[3], next];
        *rk = next;
    }
    k.zeroize();
    round_keys
}

/// L' of the key schedule: B ^ (B <<< 13) ^ (B <<< 23) (GB/T 32907-2016, 7.3).
fn key_linear(b: u32) -> u32 {
    b ^ b.rotate_left(13) ^ b.rotate_left(23)
}

/// Backend selection, for tests, benchmarks and `regula info`.
///
/// Modelled on Go's `crypto/internal/impl`: tests loop over [`backend::available`] and build
/// ciphers with [`Sm4::with_backend`], so every backend this CPU supports runs in one process.
pub mod backend {
    /// An SM4 implementation.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Backend {
        /// Portable constant-time code: arithmetic S-box, no table lookups.
        Soft,
        /// AES-NI + AVX2: the S-box through the AES S-box (`aesenclast`), 8 blocks per register.
        AesniAvx2,
        /// VAES + AVX2: as [`Backend::AesniAvx2`], with `vaesenclast` on whole 256-bit registers.
        VaesAvx2,
        /// GFNI + AVX-512: the S-box with `gf2p8affineinv`, 16 blocks per register.
        GfniAvx512,
        /// aarch64 NEON: four transposed blocks per register set, the S-box by `tbl`/`tbx`
        /// from the table held in registers.
        Neon,
        /// The aarch64 SM4 Crypto Extension: `sm4e` runs four rounds per instruction.
        Ce,
    }

    impl Backend {
        /// Every backend, slowest first within each architecture (x86-64, then aarch64).
        pub const ALL: [Backend; 6] = [
            Backend::Soft,
            Backend::AesniAvx2,
            Backend::VaesAvx2,
            Backend::GfniAvx512,
            Backend::Neon,
            Backend::Ce,
        ];

        /// Driver-style name, as in Linux `/proc/crypto`.
        pub const fn name(self) -> &'static str {
            match self {
                Backend::Soft => "sm4-soft",
                Backend::AesniAvx2 => "sm4-aesni-avx2",
                Backend::VaesAvx2 => "sm4-vaes-avx2",
                Backend::GfniAvx512 => "sm4-gfni-avx512",
                Backend::Neon => "sm4-neon",
                Backend::Ce => "sm4-ce",
            }
        }

        /// Number of blocks the backend's widest path processes at once.
        pub const fn parallel_blocks(self) -> usize {
            match self {
                Backend::Soft => 2,
                Backend::AesniAvx2 | Backend::VaesAvx2 => 32,
                Backend::GfniAvx512 => 64,
                Backend::Neon | Backend::Ce => 8,
            }
        }

        /// Whether this CPU (and build) can run the backend.
        pub fn is_available(self) -> bool {
            super::autodetect::engine_for(self).is_some()
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

    /// The backend [`super::Sm4::new`] uses: the one [`FORCE_VARIABLE`] names, or else the
    /// fastest available; chosen once per process.
    ///
    /// When the variable names no backend this CPU (and build) can run, [`selection`] reports
    /// it and this is the fastest available: the library keeps working, and the Regula module
    /// refuses its SM4 services with that error (so a measurement never runs, unnoticed, on
    /// another backend than the one asked for).
    pub fn active() -> Backend {
        super::autodetect::active_engine().backend()
    }

    /// The environment variable that forces an SM4 backend by name (e.g.
    /// `REGULA_SM4_BACKEND=sm4-aesni-avx2`), read once, at the first SM4 key of the process.
    pub const FORCE_VARIABLE: &str = "REGULA_SM4_BACKEND";

    /// The backend chosen for this process: the one [`FORCE_VARIABLE`] names (unset or empty:
    /// the fastest available), or why that name cannot be served.
    pub fn selection() -> Result<Backend, ForcedBackendError> {
        super::autodetect::selection()
            .as_ref()
            .map(|engine| engine.backend())
            .map_err(Clone::clone)
    }

    /// A backend-forcing environment variable ([`FORCE_VARIABLE`], or GHASH's
    /// `REGULA_GHASH_BACKEND`) names an implementation that does not exist or that this CPU
    /// (and build) cannot run.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ForcedBackendError {
        /// The variable.
        pub variable: &'static str,
        /// Its value.
        pub value: String,
        /// Whether the name is a known implementation (which this CPU or build lacks).
        pub known: bool,
        /// The names this CPU and build can run.
        pub available: Vec<&'static str>,
    }

    impl core::fmt::Display for ForcedBackendError {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            let reason = if self.known {
                "is not supported by this CPU or build"
            } else {
                "is not an implementation name"
            };
            write!(
                f,
                "{}={:?} {reason}; unset it or name one of: {}",
                self.variable,
                self.value,
                self.available.join(", ")
            )
        }
    }

    impl std::error::Error for ForcedBackendError {}

    /// Resolves a forcing variable's `value` against `all` (names by `name`, runnable when
    /// `available`): `Ok(None)` when unset or empty, never a silent substitute.
    pub(crate) fn resolve_forced<T: Copy>(
        variable: &'static str,
        value: Option<&str>,
        all: &[T],
        name: impl Fn(T) -> &'static str,
        available: impl Fn(T) -> bool,
    ) -> Result<Option<T>, ForcedBackendError> {
        let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
            return Ok(None);
        };
        let found = all
            .iter()
            .copied()
            .find(|candidate| name(*candidate) == value);
        match found {
            Some(candidate) if available(candidate) => Ok(Some(candidate)),
            _ => Err(ForcedBackendError {
                variable,
                value: value.to_string(),
                known: found.is_some(),
                available: all
                    .iter()
                    .copied()
                    .filter(|candidate| available(*candidate))
                    .map(name)
                    .collect(),
            }),
        }
    }
}
