//! Message authentication: HMAC-SHA-1/SHA-2, AES-CMAC, AES-GMAC and the legacy HMAC-MD5
//! (AWS-LC); HMAC-SM3, SM4-CMAC, SM4-XCBC-MAC and SM4-CBC-MAC (regula-sm).
//!
//! GMAC takes a nonce per message ([`MacKey::sign_with_nonce`], [`MacKey::context_with_nonce`]);
//! the other MACs take none.

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::mac::{MacBackend, MacState, verify_equal};

/// A MAC key bound to a module; AWS-LC wipes the key on drop.
pub struct MacKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    key: MacBackend,
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
    context: MacState<'key>,
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
        let key = MacBackend::new(algorithm, key)?;
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
        self.key.takes_nonce()
    }

    /// Starts a MAC computation. A GMAC context made this way fails when it finishes: GMAC needs
    /// [`MacKey::context_with_nonce`].
    pub fn context(&self) -> MacContext<'_> {
        let context = self.key.start();
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
            context: MacState::gmac(nonce),
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
        verify_equal(&expected, tag)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::MacVerify, approval, ()))
    }

    /// One-shot GMAC straight over the caller's buffer (the incremental context has to collect
    /// the message first).
    fn gmac_tag(&self, nonce: &[u8], data: &[u8]) -> Result<(Vec<u8>, Approval)> {
        let approval = self.nonce_approval(nonce)?;
        self.module.ensure_operational()?;
        let tag = self.key.gmac(nonce, data)?;
        Ok((tag, approval))
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
        if !self.key.signs_many_at_once() {
            return messages.iter().map(|message| self.sign(message)).collect();
        }
        self.module.ensure_operational()?;
        let tags = self.key.sign_many(messages).ok_or(Error::CryptoFailure)?;
        Ok(tags
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

impl<'key> MacContext<'key> {
    pub fn update(&mut self, data: &[u8]) -> Result<()> {
        self.context.update(data)
    }

    /// A copy of the computation so far (OpenSSL's `EVP_MAC_CTX_dup`): both continue
    /// independently under the same key.
    pub fn try_clone(&self) -> Result<MacContext<'key>> {
        Ok(MacContext {
            key: self.key,
            approval: self.approval,
            context: self.context.try_clone()?,
        })
    }

    fn tag(self) -> Result<Vec<u8>> {
        self.key.module.ensure_operational()?;
        self.context.finish(&self.key.key, self.key.algorithm)
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
        verify_equal(&tag, expected)?;
        Ok(key
            .module
            .serve(key.algorithm, Service::MacVerify, approval, ()))
    }
}
