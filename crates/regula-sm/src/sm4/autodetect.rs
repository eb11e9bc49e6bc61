//! Runtime backend selection: the CPU is probed once per process and the choice cached.
//!
//! An [`Engine`] is a backend plus, for the SIMD ones, a zero-sized token that can only be made
//! after the CPU feature check succeeded; the SIMD backends take that token, so calling them
//! needs no `unsafe` here.

use std::sync::OnceLock;

use super::backend::Backend;
use super::{Block, RoundKeys, soft};

#[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
use super::x86_64::{aesni, gfni};

/// A backend that this CPU has been checked to support.
#[derive(Clone, Copy)]
pub(crate) enum Engine {
    Soft,
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    AesniAvx2(aesni::Token),
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    GfniAvx512(gfni::Token),
}

impl Engine {
    pub(crate) fn backend(self) -> Backend {
        match self {
            Engine::Soft => Backend::Soft,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(_) => Backend::AesniAvx2,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(_) => Backend::GfniAvx512,
        }
    }

    /// Runs the 32 rounds with `round_keys` over every block.
    #[inline]
    pub(crate) fn crypt_blocks(self, round_keys: &RoundKeys, blocks: &mut [Block]) {
        match self {
            Engine::Soft => soft::crypt_blocks(round_keys, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) => aesni::crypt_blocks(token, round_keys, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) => gfni::crypt_blocks(token, round_keys, blocks),
        }
    }

    /// XORs the CTR keystream E(counter), E(counter + 1), ... into `blocks`.
    #[inline]
    pub(crate) fn ctr_xor_blocks(
        self,
        round_keys: &RoundKeys,
        counter: u128,
        blocks: &mut [Block],
    ) {
        match self {
            Engine::Soft => soft::ctr_xor_blocks(round_keys, counter, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) => aesni::ctr_xor_blocks(token, round_keys, counter, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) => gfni::ctr_xor_blocks(token, round_keys, counter, blocks),
        }
    }

    /// CBC-decrypts `blocks` in place with the decryption `round_keys`.
    #[inline]
    pub(crate) fn cbc_decrypt_blocks(
        self,
        round_keys: &RoundKeys,
        iv: &Block,
        blocks: &mut [Block],
    ) {
        match self {
            Engine::Soft => soft::cbc_decrypt_blocks(round_keys, iv, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) => aesni::cbc_decrypt_blocks(token, round_keys, iv, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) => gfni::cbc_decrypt_blocks(token, round_keys, iv, blocks),
        }
    }
}

/// The engine for `backend`, if this CPU and build support it.
pub(crate) fn engine_for(backend: Backend) -> Option<Engine> {
    match backend {
        Backend::Soft => Some(Engine::Soft),
        #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
        Backend::AesniAvx2 => aesni::Token::detect().map(Engine::AesniAvx2),
        #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
        Backend::GfniAvx512 => gfni::Token::detect().map(Engine::GfniAvx512),
        #[cfg(not(all(target_arch = "x86_64", not(sm4_backend = "soft"))))]
        Backend::AesniAvx2 | Backend::GfniAvx512 => None,
    }
}

/// The fastest supported engine, detected on first use and cached for the process.
pub(crate) fn active_engine() -> Engine {
    static ACTIVE: OnceLock<Engine> = OnceLock::new();
    *ACTIVE.get_or_init(|| {
        Backend::ALL
            .into_iter()
            .rev()
            .find_map(engine_for)
            .unwrap_or(Engine::Soft)
    })
}
