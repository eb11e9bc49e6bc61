//! Message authentication: HMAC-SHA-1/SHA-2, AES-CMAC, AES-GMAC and the legacy HMAC-MD5
//! (AWS-LC); HMAC-SM3, SM4-CMAC, SM4-XCBC-MAC and SM4-CBC-MAC (regula-sm).
//!
//! GMAC takes a nonce per message ([`MacKey::sign_with_nonce`], [`MacKey::context_with_nonce`]);
//! the other MACs take none.

use aws_lc_rs::{cmac, constant_time, hmac};
use regula_sm::sm3::HmacSm3;
use regula_sm::sm4::modes::{CbcMac, Cmac, MacStream, Xcbc};

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc::{self, MacAlgorithm};
use crate::provider::awslc_sys::{GcmAeadCtx, HmacCtx};

// HMAC's state is large and CMAC's small; boxing keeps every key and context small.
enum Key {
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
enum Sm4Mac {
    Cmac(Cmac),
    Xcbc(Xcbc),
    CbcMac(CbcMac),
}

enum Context<'key> {
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

/// A MAC key bound to a module; AWS-LC wipes the key on drop.
pub struct MacKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    key: Key,
}

impl std::fmt::Debug for MacKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MacKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

/// An incremental MAC computation; recorded when it finishes.
pub struct MacContext<'key> {
    key: &'key MacKey,
    /// The key's approval, or lower for this message (a GMAC nonce chosen by the caller).
    approval: Approval,
    context: Context<'key>,
}

impl Module {
    /// Binds a MAC key. HMAC takes keys of any length (FIPS approves ≥ 14 bytes); AES-CMAC
    /// takes exactly the AES key length.
    pub fn mac_key(&self, algorithm: Algorithm, key: &[u8]) -> Result<MacKey> {
        let key_len = u32::try_from(key.len()).unwrap_or(u32::MAX);
        let usage = Usage {
            secret_bytes: Some(key_len),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Mac, &usage)?;
        if matches!(
            algorithm,
            Algorithm::Sm4Cmac | Algorithm::Sm4XcbcMac | Algorithm::Sm4CbcMac
        ) {
            let key = super::fixed_size_key::<16>(algorithm, key)?;
            let mac = match algorithm {
                Algorithm::Sm4Cmac => Sm4Mac::Cmac(Cmac::new(&key)),
                Algorithm::Sm4XcbcMac => Sm4Mac::Xcbc(Xcbc::new(&key)),
                _ => Sm4Mac::CbcMac(CbcMac::new(&key)),
            };
            return Ok(MacKey {
                module: self.clone(),
                algorithm,
                approval,
                key: Key::Sm4(Box::new(mac)),
            });
        }
        if algorithm == Algorithm::HmacSm3 {
            let state = HmacSm3::new(key)
                .map_err(|_| Error::invalid_key(algorithm, "rejected by regula-sm"))?;
            return Ok(MacKey {
                module: self.clone(),
                algorithm,
                approval,
                key: Key::HmacSm3(Box::new(state)),
            });
        }
        let key = match awslc::mac(algorithm)? {
            MacAlgorithm::LegacyHmac(digest) => {
                Key::LegacyHmac(Box::new(HmacCtx::new(digest, key).map_err(|_| {
                    Error::invalid_key(algorithm, "rejected by the backend")
                })?))
            }
            MacAlgorithm::Gmac(expected_len) => {
                if key.len() != expected_len {
                    return Err(Error::invalid_key(
                        algorithm,
                        format!("expected {expected_len} bytes, got {}", key.len()),
                    ));
                }
                Key::Gmac(Box::new(GcmAeadCtx::new(key).map_err(|_| {
                    Error::invalid_key(algorithm, "rejected by the backend")
                })?))
            }
            MacAlgorithm::Hmac(hmac_algorithm) => {
                Key::Hmac(Box::new(hmac::Key::new(hmac_algorithm, key)))
            }
            MacAlgorithm::Cmac(cmac_algorithm, expected_len) => {
                if key.len() != expected_len {
                    return Err(Error::invalid_key(
                        algorithm,
                        format!("expected {expected_len} bytes, got {}", key.len()),
                    ));
                }
                Key::Cmac(
                    cmac::Key::new(*cmac_algorithm, key)
                        .map_err(|_| Error::invalid_key(algorithm, "rejected by the backend"))?,
                )
            }
        };
        Ok(MacKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        })
    }
}

impl MacKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Whether the MAC takes a nonce per message (GMAC).
    pub fn takes_nonce(&self) -> bool {
        matches!(self.key, Key::Gmac(_))
    }

    /// Starts a MAC computation. A GMAC context made this way fails when it finishes: GMAC needs
    /// [`MacKey::context_with_nonce`].
    pub fn context(&self) -> MacContext<'_> {
        let context = match &self.key {
            Key::Gmac(_) => Context::Gmac {
                nonce: None,
                message: Vec::new(),
            },
            Key::LegacyHmac(state) => Context::LegacyHmac(state.try_clone().ok().map(Box::new)),
            Key::Hmac(key) => Context::Hmac(Box::new(hmac::Context::with_key(key))),
            Key::Cmac(key) => Context::Cmac(cmac::Context::with_key(key)),
            Key::HmacSm3(state) => Context::HmacSm3(state.clone()),
            Key::Sm4(mac) => Context::Sm4(match &**mac {
                Sm4Mac::Cmac(mac) => mac.start(),
                Sm4Mac::Xcbc(mac) => mac.start(),
                Sm4Mac::CbcMac(mac) => mac.start(),
            }),
        };
        MacContext {
            key: self,
            approval: self.approval,
            context,
        }
    }

    /// Starts a GMAC computation under `nonce` (any non-empty length; 12 bytes is the usual).
    /// The nonce is the caller's, which FIPS 140-3 does not approve for GCM (IG C.H).
    pub fn context_with_nonce(&self, nonce: &[u8]) -> Result<MacContext<'_>> {
        Ok(MacContext {
            key: self,
            approval: self.nonce_approval(nonce)?,
            context: Context::Gmac {
                nonce: Some(nonce.to_vec()),
                message: Vec::new(),
            },
        })
    }

    /// Checks a GMAC nonce and decides the approval of a MAC under it (the caller's nonce).
    fn nonce_approval(&self, nonce: &[u8]) -> Result<Approval> {
        if !self.takes_nonce() {
            return Err(Error::invalid_input(format!(
                "{} takes no nonce",
                self.algorithm
            )));
        }
        if nonce.is_empty() {
            return Err(Error::invalid_input(format!(
                "{} needs a non-empty nonce",
                self.algorithm
            )));
        }
        let usage = Usage {
            caller_nonce: true,
            ..Usage::default()
        };
        self.module.authorize(self.algorithm, Family::Mac, &usage)
    }

    /// Computes the GMAC tag of `data` under `nonce`.
    pub fn sign_with_nonce(&self, nonce: &[u8], data: &[u8]) -> Result<Served<Vec<u8>>> {
        let (tag, approval) = self.gmac_tag(nonce, data)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::MacGenerate, approval, tag))
    }

    /// Checks a GMAC tag in constant time.
    pub fn verify_with_nonce(&self, nonce: &[u8], data: &[u8], tag: &[u8]) -> Result<Served<()>> {
        let (expected, approval) = self.gmac_tag(nonce, data)?;
        constant_time::verify_slices_are_equal(&expected, tag)
            .map_err(|_| Error::AuthenticationFailed)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::MacVerify, approval, ()))
    }

    /// One-shot GMAC straight over the caller's buffer (the incremental context has to collect
    /// the message first).
    fn gmac_tag(&self, nonce: &[u8], data: &[u8]) -> Result<(Vec<u8>, Approval)> {
        let approval = self.nonce_approval(nonce)?;
        self.module.ensure_operational()?;
        let Key::Gmac(key) = &self.key else {
            return Err(Error::CryptoFailure);
        };
        let tag = key.gmac(nonce, data).map_err(|_| Error::CryptoFailure)?;
        Ok((tag.to_vec(), approval))
    }

    /// Computes the tag of `data`.
    pub fn sign(&self, data: &[u8]) -> Result<Served<Vec<u8>>> {
        let mut context = self.context();
        context.update(data)?;
        context.sign()
    }

    /// Computes the tags of many independent messages (records, files) under this key, in
    /// order; each counts as one MAC operation. HMAC-SM3 hashes the messages side by side on
    /// SIMD lanes (see [`Module::digest_many`]).
    pub fn sign_many(&self, messages: &[&[u8]]) -> Result<Vec<Served<Vec<u8>>>> {
        let Key::HmacSm3(state) = &self.key else {
            return messages.iter().map(|message| self.sign(message)).collect();
        };
        self.module.ensure_operational()?;
        Ok(state
            .mac_many(messages)
            .into_iter()
            .map(|tag| {
                self.module.serve(
                    self.algorithm,
                    Service::MacGenerate,
                    self.approval,
                    tag.to_vec(),
                )
            })
            .collect())
    }

    /// Checks a tag in constant time.
    pub fn verify(&self, data: &[u8], tag: &[u8]) -> Result<Served<()>> {
        let mut context = self.context();
        context.update(data)?;
        context.verify(tag)
    }
}

impl std::fmt::Debug for MacContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MacContext")
            .field("algorithm", &self.key.algorithm)
            .finish_non_exhaustive()
    }
}

impl MacContext<'_> {
    pub fn update(&mut self, data: &[u8]) -> Result<()> {
        match &mut self.context {
            Context::Hmac(context) => context.update(data),
            Context::Cmac(context) => context.update(data).map_err(|_| Error::CryptoFailure)?,
            Context::HmacSm3(state) => state.update(data),
            Context::Sm4(stream) => stream.update(data),
            Context::LegacyHmac(Some(state)) => {
                state.update(data).map_err(|_| Error::CryptoFailure)?
            }
            Context::LegacyHmac(None) => return Err(Error::CryptoFailure),
            Context::Gmac { message, .. } => message.extend_from_slice(data),
        }
        Ok(())
    }

    fn tag(self) -> Result<Vec<u8>> {
        self.key.module.ensure_operational()?;
        match self.context {
            Context::Hmac(context) => Ok(context.sign().as_ref().to_vec()),
            Context::Cmac(context) => Ok(context
                .sign()
                .map_err(|_| Error::CryptoFailure)?
                .as_ref()
                .to_vec()),
            Context::HmacSm3(state) => Ok(state.finalize().to_vec()),
            // Only CBC-MAC fails here: it refuses the empty message.
            Context::Sm4(stream) => Ok(stream
                .finalize()
                .map_err(|error| Error::invalid_input(error.to_string()))?
                .to_vec()),
            Context::LegacyHmac(state) => state
                .ok_or(Error::CryptoFailure)?
                .finish()
                .map_err(|_| Error::CryptoFailure),
            Context::Gmac { nonce, message } => {
                let Key::Gmac(key) = &self.key.key else {
                    return Err(Error::CryptoFailure);
                };
                let nonce = nonce.ok_or_else(|| {
                    Error::invalid_input(format!(
                        "{} needs a nonce: use sign_with_nonce or context_with_nonce",
                        self.key.algorithm
                    ))
                })?;
                Ok(key
                    .gmac(&nonce, &message)
                    .map_err(|_| Error::CryptoFailure)?
                    .to_vec())
            }
        }
    }

    pub fn sign(self) -> Result<Served<Vec<u8>>> {
        let (key, approval) = (self.key, self.approval);
        let tag = self.tag()?;
        Ok(key
            .module
            .serve(key.algorithm, Service::MacGenerate, approval, tag))
    }

    pub fn verify(self, expected: &[u8]) -> Result<Served<()>> {
        let (key, approval) = (self.key, self.approval);
        let tag = self.tag()?;
        constant_time::verify_slices_are_equal(&tag, expected)
            .map_err(|_| Error::AuthenticationFailed)?;
        Ok(key
            .module
            .serve(key.algorithm, Service::MacVerify, approval, ()))
    }
}
