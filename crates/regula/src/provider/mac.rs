//! The MAC keys the MAC service holds: HMAC-SHA-1/SHA-2 and AES-CMAC (aws-lc-rs), AES-GMAC and
//! HMAC-MD5 (AWS-LC's C interface), HMAC-SM3, SM4-CMAC, SM4-XCBC-MAC and SM4-CBC-MAC
//! (regula-sm). The registry row's provider decides which backend serves an algorithm.

use aws_lc_rs::{cmac, constant_time, hmac};
use regula_sm::sm3::HmacSm3;
use regula_sm::sm4::modes::{CbcMac, Cmac, MacStream, Xcbc};

use super::awslc::{self, MacAlgorithm};
use super::awslc_sys::{GcmAeadCtx, HmacCtx};
use super::sm;
use crate::algorithm::{Algorithm, Family};
use crate::error::{Error, Result};
use crate::registry::{self, Provider};

// HMAC's state is large and CMAC's small; boxing keeps every key and context small.
/// A MAC key; AWS-LC and regula-sm wipe it on drop.
pub(crate) enum MacBackend {
    Hmac(Box<hmac::Key>),
    Cmac(cmac::Key),
    /// Keyed once; each message works on a clone of this state.
    HmacSm3(Box<HmacSm3>),
    Sm4(Box<Sm4Mac>),
    /// Keyed once; each message works on a copy of this state.
    LegacyHmac(Box<HmacCtx>),
    Gmac(Box<GcmAeadCtx>),
}

/// The block-cipher MACs over SM4; regula-sm wipes their subkeys on drop.
pub(crate) enum Sm4Mac {
    Cmac(Cmac),
    Xcbc(Xcbc),
    CbcMac(CbcMac),
}

/// An incremental MAC computation under a [`MacBackend`].
pub(crate) enum MacState<'key> {
    Hmac(Box<hmac::Context>),
    Cmac(cmac::Context),
    HmacSm3(Box<HmacSm3>),
    Sm4(MacStream<'key>),
    /// `None` if AWS-LC could not copy the keyed state; the tag then fails.
    LegacyHmac(Option<Box<HmacCtx>>),
    /// GCM has no incremental additional-data interface in AWS-LC's AEAD API, so GMAC collects
    /// the message (SMB signs one message at a time); `None` until a nonce is given.
    Gmac {
        nonce: Option<Vec<u8>>,
        message: Vec<u8>,
    },
}

/// Whether two byte strings are equal, compared in constant time (AWS-LC's comparison).
pub(crate) fn verify_equal(a: &[u8], b: &[u8]) -> Result<()> {
    constant_time::verify_slices_are_equal(a, b).map_err(|_| Error::AuthenticationFailed)
}

fn wrong_length(algorithm: Algorithm, expected: usize, key: &[u8]) -> Error {
    Error::invalid_key(
        algorithm,
        format!("expected {expected} bytes, got {}", key.len()),
    )
}

impl MacBackend {
    /// Keys `algorithm` (a MAC the policy let through) with the backend its registry row names.
    pub(crate) fn new(algorithm: Algorithm, key: &[u8]) -> Result<MacBackend> {
        if registry::entry(algorithm).provider == Provider::RegulaSm {
            return sm_mac(algorithm, key);
        }
        Ok(match awslc::mac(algorithm)? {
            MacAlgorithm::LegacyHmac(digest) => MacBackend::LegacyHmac(Box::new(
                HmacCtx::new(digest, key)
                    .map_err(|_| Error::invalid_key(algorithm, "rejected by the backend"))?,
            )),
            MacAlgorithm::Gmac(expected_len) => {
                if key.len() != expected_len {
                    return Err(wrong_length(algorithm, expected_len, key));
                }
                MacBackend::Gmac(Box::new(
                    GcmAeadCtx::new(key)
                        .map_err(|_| Error::invalid_key(algorithm, "rejected by the backend"))?,
                ))
            }
            MacAlgorithm::Hmac(hmac_algorithm) => {
                MacBackend::Hmac(Box::new(hmac::Key::new(hmac_algorithm, key)))
            }
            MacAlgorithm::Cmac(cmac_algorithm, expected_len) => {
                if key.len() != expected_len {
                    return Err(wrong_length(algorithm, expected_len, key));
                }
                MacBackend::Cmac(
                    cmac::Key::new(*cmac_algorithm, key)
                        .map_err(|_| Error::invalid_key(algorithm, "rejected by the backend"))?,
                )
            }
        })
    }

    /// Whether the MAC takes a nonce per message (GMAC).
    #[inline]
    pub(crate) fn takes_nonce(&self) -> bool {
        matches!(self, MacBackend::Gmac(_))
    }

    /// Starts a computation. A GMAC state made this way fails when it finishes: GMAC needs
    /// [`MacState::gmac`].
    pub(crate) fn start(&self) -> MacState<'_> {
        match self {
            MacBackend::Gmac(_) => MacState::Gmac {
                nonce: None,
                message: Vec::new(),
            },
            MacBackend::LegacyHmac(state) => {
                MacState::LegacyHmac(state.try_clone().ok().map(Box::new))
            }
            MacBackend::Hmac(key) => MacState::Hmac(Box::new(hmac::Context::with_key(key))),
            MacBackend::Cmac(key) => MacState::Cmac(cmac::Context::with_key(key)),
            MacBackend::HmacSm3(state) => MacState::HmacSm3(state.clone()),
            MacBackend::Sm4(mac) => MacState::Sm4(match &**mac {
                Sm4Mac::Cmac(mac) => mac.start(),
                Sm4Mac::Xcbc(mac) => mac.start(),
                Sm4Mac::CbcMac(mac) => mac.start(),
            }),
        }
    }

    /// The GMAC tag of `message` under `nonce` in one call (the incremental state has to
    /// collect the message first).
    pub(crate) fn gmac(&self, nonce: &[u8], message: &[u8]) -> Result<Vec<u8>> {
        let MacBackend::Gmac(key) = self else {
            return Err(Error::CryptoFailure);
        };
        let tag = key.gmac(nonce, message).map_err(|_| Error::CryptoFailure)?;
        Ok(tag.to_vec())
    }

    /// Whether the MAC computes many tags side by side on SIMD lanes (HMAC-SM3).
    pub(crate) fn signs_many_at_once(&self) -> bool {
        matches!(self, MacBackend::HmacSm3(_))
    }

    /// The tags of many messages side by side on SIMD lanes (HMAC-SM3), or `None` for a MAC
    /// that computes them one after another.
    pub(crate) fn sign_many(&self, messages: &[&[u8]]) -> Option<Vec<[u8; 32]>> {
        let MacBackend::HmacSm3(state) = self else {
            return None;
        };
        Some(state.mac_many(messages))
    }
}

/// The SM3 and SM4 MACs (regula-sm).
fn sm_mac(algorithm: Algorithm, key: &[u8]) -> Result<MacBackend> {
    if algorithm == Algorithm::HmacSm3 {
        let state = HmacSm3::new(key)
            .map_err(|_| Error::invalid_key(algorithm, "rejected by regula-sm"))?;
        return Ok(MacBackend::HmacSm3(Box::new(state)));
    }
    if !matches!(
        algorithm,
        Algorithm::Sm4Cmac | Algorithm::Sm4XcbcMac | Algorithm::Sm4CbcMac
    ) {
        return Err(Error::WrongFamily {
            algorithm,
            expected: Family::Mac,
        });
    }
    sm::forced_backends(algorithm)?;
    let key = sm::fixed_size_key::<16>(algorithm, key)?;
    let mac = match algorithm {
        Algorithm::Sm4Cmac => Sm4Mac::Cmac(Cmac::new(&key)),
        Algorithm::Sm4XcbcMac => Sm4Mac::Xcbc(Xcbc::new(&key)),
        _ => Sm4Mac::CbcMac(CbcMac::new(&key)),
    };
    Ok(MacBackend::Sm4(Box::new(mac)))
}

impl<'key> MacState<'key> {
    /// A GMAC computation under `nonce`.
    pub(crate) fn gmac(nonce: &[u8]) -> MacState<'static> {
        MacState::Gmac {
            nonce: Some(nonce.to_vec()),
            message: Vec::new(),
        }
    }

    pub(crate) fn update(&mut self, data: &[u8]) -> Result<()> {
        match self {
            MacState::Hmac(context) => context.update(data),
            MacState::Cmac(context) => context.update(data).map_err(|_| Error::CryptoFailure)?,
            MacState::HmacSm3(state) => state.update(data),
            MacState::Sm4(stream) => stream.update(data),
            MacState::LegacyHmac(Some(state)) => {
                state.update(data).map_err(|_| Error::CryptoFailure)?
            }
            MacState::LegacyHmac(None) => return Err(Error::CryptoFailure),
            MacState::Gmac { message, .. } => message.extend_from_slice(data),
        }
        Ok(())
    }

    /// A copy that continues from the same point; the copy's keyed state is AWS-LC's or
    /// regula-sm's own copy, wiped when dropped.
    pub(crate) fn try_clone(&self) -> Result<MacState<'key>> {
        Ok(match self {
            MacState::Hmac(context) => MacState::Hmac(context.clone()),
            MacState::Cmac(context) => MacState::Cmac(context.clone()),
            MacState::HmacSm3(state) => MacState::HmacSm3(state.clone()),
            MacState::Sm4(stream) => MacState::Sm4(stream.clone()),
            MacState::LegacyHmac(Some(state)) => MacState::LegacyHmac(Some(Box::new(
                state.try_clone().map_err(|_| Error::CryptoFailure)?,
            ))),
            MacState::LegacyHmac(None) => MacState::LegacyHmac(None),
            MacState::Gmac { nonce, message } => MacState::Gmac {
                nonce: nonce.clone(),
                message: message.clone(),
            },
        })
    }

    /// The tag, under `key` (the backend this state was started from) for GMAC.
    pub(crate) fn finish(self, key: &MacBackend, algorithm: Algorithm) -> Result<Vec<u8>> {
        match self {
            MacState::Hmac(context) => Ok(context.sign().as_ref().to_vec()),
            MacState::Cmac(context) => Ok(context
                .sign()
                .map_err(|_| Error::CryptoFailure)?
                .as_ref()
                .to_vec()),
            MacState::HmacSm3(state) => Ok(state.finalize().to_vec()),
            // Only CBC-MAC fails here: it refuses the empty message.
            MacState::Sm4(stream) => Ok(stream
                .finalize()
                .map_err(|error| Error::invalid_input(error.to_string()))?
                .to_vec()),
            MacState::LegacyHmac(state) => state
                .ok_or(Error::CryptoFailure)?
                .finish()
                .map_err(|_| Error::CryptoFailure),
            MacState::Gmac { nonce, message } => {
                let MacBackend::Gmac(key) = key else {
                    return Err(Error::CryptoFailure);
                };
                let nonce = nonce.ok_or_else(|| {
                    Error::invalid_input(format!(
                        "{algorithm} needs a nonce: use sign_with_nonce or context_with_nonce"
                    ))
                })?;
                Ok(key
                    .gmac(&nonce, &message)
                    .map_err(|_| Error::CryptoFailure)?
                    .to_vec())
            }
        }
    }
}
