//! Runtime backend selection: the CPU is probed once per process and the choice cached.
//!
//! An [`Engine`] is a backend plus, for the SIMD ones, a zero-sized token that can only be made
//! after the CPU feature check succeeded; the SIMD backends take that token, so calling them
//! needs no `unsafe` here.

use std::sync::OnceLock;

use super::backend::{Backend, FORCE_VARIABLE, ForcedBackendError, resolve_forced};
use super::{Block, BlockKeys, RoundKeys, soft};

#[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
use super::aarch64::{ce, neon};
#[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
use super::x86_64::{self, aesni, gfni, vaes};

/// A backend that this CPU has been checked to support.
#[derive(Clone, Copy)]
pub(crate) enum Engine {
    Soft,
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    AesniAvx2(aesni::Token),
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    VaesAvx2(vaes::Token),
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    GfniAvx512(gfni::Token),
    #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
    Neon(neon::Token),
    #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
    Ce(ce::Token),
}

impl Engine {
    pub(crate) fn backend(self) -> Backend {
        match self {
            Engine::Soft => Backend::Soft,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(_) => Backend::AesniAvx2,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::VaesAvx2(_) => Backend::VaesAvx2,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(_) => Backend::GfniAvx512,
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Neon(_) => Backend::Neon,
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Ce(_) => Backend::Ce,
        }
    }

    /// Runs the 32 rounds with `round_keys` over every block; a few blocks take the GFNI
    /// backend's latency-optimised rounds, with the same keys as `block_keys`.
    #[inline]
    pub(crate) fn crypt_blocks(
        self,
        round_keys: &RoundKeys,
        // Only the GFNI path reads these, and a soft-only build has none.
        #[cfg_attr(
            not(all(target_arch = "x86_64", not(sm4_backend = "soft"))),
            expect(unused_variables)
        )]
        block_keys: &BlockKeys,
        blocks: &mut [Block],
    ) {
        match self {
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) if blocks.len() <= gfni::FEW_BLOCKS => {
                gfni::crypt_few(token, block_keys, blocks)
            }
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) if blocks.len() <= aesni::FEW_BLOCKS => {
                aesni::crypt_few(token, block_keys, blocks)
            }
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::VaesAvx2(token) if blocks.len() <= aesni::FEW_BLOCKS => {
                aesni::crypt_few(token.aesni(), block_keys, blocks)
            }
            Engine::Soft => soft::crypt_blocks(round_keys, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) => aesni::crypt_blocks(token, round_keys, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::VaesAvx2(token) => vaes::crypt_blocks(token, round_keys, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) => gfni::crypt_blocks(token, round_keys, blocks),
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Neon(token) => neon::crypt_blocks(token, round_keys, blocks),
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Ce(token) => ce::crypt_blocks(token, round_keys, blocks),
        }
    }

    /// The round keys in the layout of this backend's one-block path, [`Engine::crypt_block`]:
    /// transformed for the SIMD backends, a copy of `round_keys` in column 0 for the portable one.
    pub(crate) fn block_keys(self, round_keys: &RoundKeys) -> BlockKeys {
        match self {
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(_) | Engine::VaesAvx2(_) | Engine::GfniAvx512(_) => {
                x86_64::one_block_keys(round_keys)
            }
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Neon(_) | Engine::Ce(_) => round_keys.map(|rk| [rk, 0]),
            Engine::Soft => round_keys.map(|rk| [rk, 0]),
        }
    }

    /// Runs the 32 rounds over one block. Chained modes wait for each block, so the SIMD
    /// backends take a latency-optimised path rather than their wide one.
    #[inline]
    pub(crate) fn crypt_block(
        self,
        round_keys: &RoundKeys,
        // Only the GFNI path reads these, and a soft-only build has none.
        #[cfg_attr(
            not(all(target_arch = "x86_64", not(sm4_backend = "soft"))),
            expect(unused_variables)
        )]
        block_keys: &BlockKeys,
        block: &mut Block,
    ) {
        match self {
            Engine::Soft => soft::crypt_blocks(round_keys, core::slice::from_mut(block)),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) => aesni::crypt_block(token, block_keys, block),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::VaesAvx2(token) => aesni::crypt_block(token.aesni(), block_keys, block),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) => gfni::crypt_block(token, block_keys, block),
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Neon(token) => {
                neon::crypt_blocks(token, round_keys, core::slice::from_mut(block))
            }
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Ce(token) => ce::crypt_blocks(token, round_keys, core::slice::from_mut(block)),
        }
    }

    /// CBC encryption, C_i = E(P_i ^ C_(i-1)) with C_(-1) = `iv`, one block at a time.
    #[inline]
    pub(crate) fn cbc_encrypt_blocks(
        self,
        round_keys: &RoundKeys,
        block_keys: &BlockKeys,
        iv: &Block,
        blocks: &mut [Block],
    ) {
        match self {
            // The SIMD backends keep the chaining value in their transformed domain.
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) => aesni::cbc_encrypt_blocks(token, block_keys, iv, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::VaesAvx2(token) => {
                aesni::cbc_encrypt_blocks(token.aesni(), block_keys, iv, blocks)
            }
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) => gfni::cbc_encrypt_blocks(token, block_keys, iv, blocks),
            _ => {
                let mut previous = u128::from_ne_bytes(*iv);
                for block in blocks {
                    // Whole-block XOR, so the next load is forwarded from a single store.
                    *block = (u128::from_ne_bytes(*block) ^ previous).to_ne_bytes();
                    self.crypt_block(round_keys, block_keys, block);
                    previous = u128::from_ne_bytes(*block);
                }
            }
        }
    }

    /// XORs the CTR keystream E(counter), E(counter + 1), ... into `blocks`; a few blocks take
    /// the GFNI backend's latency-optimised rounds, with the same keys as `block_keys`.
    #[inline]
    pub(crate) fn ctr_xor_blocks(
        self,
        round_keys: &RoundKeys,
        #[cfg_attr(
            not(all(target_arch = "x86_64", not(sm4_backend = "soft"))),
            expect(unused_variables)
        )]
        block_keys: &BlockKeys,
        counter: u128,
        blocks: &mut [Block],
    ) {
        match self {
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) if blocks.len() <= gfni::FEW_BLOCKS => {
                gfni::ctr_xor_few(token, block_keys, counter, blocks)
            }
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) if blocks.len() <= aesni::FEW_BLOCKS => {
                aesni::ctr_xor_few(token, block_keys, counter, blocks)
            }
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::VaesAvx2(token) if blocks.len() <= aesni::FEW_BLOCKS => {
                aesni::ctr_xor_few(token.aesni(), block_keys, counter, blocks)
            }
            Engine::Soft => soft::ctr_xor_blocks(round_keys, counter, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) => aesni::ctr_xor_blocks(token, round_keys, counter, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::VaesAvx2(token) => vaes::ctr_xor_blocks(token, round_keys, counter, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) => gfni::ctr_xor_blocks(token, round_keys, counter, blocks),
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Neon(token) => neon::ctr_xor_blocks(token, round_keys, counter, blocks),
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Ce(token) => ce::ctr_xor_blocks(token, round_keys, counter, blocks),
        }
    }

    /// CBC-decrypts `blocks` in place with the decryption `round_keys` (`block_keys` in the
    /// one-block layout); a few blocks take the latency-optimised rounds.
    #[inline]
    pub(crate) fn cbc_decrypt_blocks(
        self,
        round_keys: &RoundKeys,
        #[cfg_attr(
            not(all(target_arch = "x86_64", not(sm4_backend = "soft"))),
            expect(unused_variables)
        )]
        block_keys: &BlockKeys,
        iv: &Block,
        blocks: &mut [Block],
    ) {
        match self {
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(_) | Engine::VaesAvx2(_) | Engine::GfniAvx512(_)
                if (1..=aesni::FEW_BLOCKS.min(gfni::FEW_BLOCKS)).contains(&blocks.len()) =>
            {
                // P_i = D(C_i) ^ C_(i-1): keep the ciphertext for the XOR (it is public).
                let mut previous = [[0u8; 16]; aesni::FEW_BLOCKS];
                previous[0] = *iv;
                previous[1..blocks.len()].copy_from_slice(&blocks[..blocks.len() - 1]);
                self.crypt_blocks(round_keys, block_keys, blocks);
                for (block, previous) in blocks.iter_mut().zip(&previous) {
                    *block = (u128::from_ne_bytes(*block) ^ u128::from_ne_bytes(*previous))
                        .to_ne_bytes();
                }
            }
            Engine::Soft => soft::cbc_decrypt_blocks(round_keys, iv, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::AesniAvx2(token) => aesni::cbc_decrypt_blocks(token, round_keys, iv, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::VaesAvx2(token) => vaes::cbc_decrypt_blocks(token, round_keys, iv, blocks),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Engine::GfniAvx512(token) => gfni::cbc_decrypt_blocks(token, round_keys, iv, blocks),
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Neon(token) => neon::cbc_decrypt_blocks(token, round_keys, iv, blocks),
            #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
            Engine::Ce(token) => ce::cbc_decrypt_blocks(token, round_keys, iv, blocks),
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
        Backend::VaesAvx2 => vaes::Token::detect().map(Engine::VaesAvx2),
        #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
        Backend::GfniAvx512 => gfni::Token::detect().map(Engine::GfniAvx512),
        #[cfg(not(all(target_arch = "x86_64", not(sm4_backend = "soft"))))]
        Backend::AesniAvx2 | Backend::VaesAvx2 | Backend::GfniAvx512 => None,
        #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
        Backend::Neon => neon::Token::detect().map(Engine::Neon),
        #[cfg(all(target_arch = "aarch64", not(sm4_backend = "soft")))]
        Backend::Ce => ce::Token::detect().map(Engine::Ce),
        #[cfg(not(all(target_arch = "aarch64", not(sm4_backend = "soft"))))]
        Backend::Neon | Backend::Ce => None,
    }
}

/// The fastest supported engine.
fn fastest_engine() -> Engine {
    Backend::ALL
        .into_iter()
        .rev()
        .find_map(engine_for)
        .unwrap_or(Engine::Soft)
}

/// The engine for `value`, the forcing variable's value (unset or empty: the fastest).
pub(crate) fn select(value: Option<&str>) -> Result<Engine, ForcedBackendError> {
    let forced = resolve_forced(
        FORCE_VARIABLE,
        value,
        &Backend::ALL,
        Backend::name,
        |backend| engine_for(backend).is_some(),
    )?;
    Ok(forced.and_then(engine_for).unwrap_or_else(fastest_engine))
}

/// The process's choice: [`FORCE_VARIABLE`] read on first use, then cached.
pub(crate) fn selection() -> &'static Result<Engine, ForcedBackendError> {
    static SELECTION: OnceLock<Result<Engine, ForcedBackendError>> = OnceLock::new();
    SELECTION.get_or_init(|| select(std::env::var(FORCE_VARIABLE).ok().as_deref()))
}

/// The engine [`super::Sm4::new`] uses: the forced one, else (also when the variable is
/// invalid, which [`selection`] reports) the fastest.
pub(crate) fn active_engine() -> Engine {
    match selection() {
        Ok(engine) => *engine,
        Err(_) => fastest_engine(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forcing_picks_the_named_backend_and_refuses_others() {
        assert_eq!(
            select(None).ok().map(Engine::backend),
            Some(fastest_engine().backend())
        );
        assert_eq!(
            select(Some("")).ok().map(Engine::backend),
            Some(fastest_engine().backend())
        );
        for backend in Backend::ALL {
            match select(Some(backend.name())) {
                Ok(engine) => {
                    assert!(backend.is_available(), "{backend}");
                    assert_eq!(engine.backend(), backend);
                }
                Err(error) => {
                    assert!(!backend.is_available(), "{backend}");
                    assert!(error.known);
                    assert!(
                        error.to_string().contains("not supported by this CPU"),
                        "{error}"
                    );
                }
            }
        }
        let error = select(Some("sm4-turbo"))
            .err()
            .expect("an unknown name is refused");
        assert!(!error.known);
        assert_eq!(error.variable, "REGULA_SM4_BACKEND");
        assert_eq!(
            error.to_string(),
            format!(
                "REGULA_SM4_BACKEND=\"sm4-turbo\" is not an implementation name; unset it or name one of: {}",
                crate::sm4::backend::available()
                    .iter()
                    .map(|b| b.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        );
    }
}
