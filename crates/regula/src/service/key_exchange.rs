//! The SM2 key exchange protocol (GB/T 32918.3-2016 §6) from regula-sm.
//!
//! Each party holds a static SM2 key pair (PKCS#8, e.g. from
//! [`Module::generate_signing_key`] with [`Algorithm::Sm2Sign`]) and knows the peer's static
//! public key and ID. [`Module::start_sm2_key_exchange`] draws the ephemeral key; the parties
//! swap [`KeyExchange::ephemeral_public_key`]s; [`KeyExchange::finish`] derives the shared key
//! and the optional confirmation hashes (`S_B` sent by the responder, `S_A` by the initiator),
//! which each side checks with [`ExchangedKey::verify_peer_confirmation`].

use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::key_exchange::{Ephemeral, ExchangeState, SharedKey};

pub use crate::provider::sm::KeyExchangeRole;

/// One party's exchange in progress, holding its ephemeral key (wiped on drop).
pub struct KeyExchange {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    state: ExchangeState,
}

impl std::fmt::Debug for KeyExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyExchange")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

/// The agreed key and the confirmation hashes; the key is wiped on drop.
pub struct ExchangedKey {
    shared: SharedKey,
}

impl std::fmt::Debug for ExchangedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExchangedKey")
            .field("len", &self.shared.key().len())
            .finish_non_exhaustive()
    }
}

impl Module {
    /// Starts an SM2 key exchange as `role`, with the own static key (PKCS#8 DER) and ID and
    /// the peer's static public key (DER SubjectPublicKeyInfo or uncompressed point) and ID
    /// (IDs at most 8191 bytes; GM/T 0009's default is `1234567812345678`).
    pub fn start_sm2_key_exchange(
        &self,
        algorithm: Algorithm,
        role: KeyExchangeRole,
        own_pkcs8: &[u8],
        own_id: &[u8],
        peer_public_key: &[u8],
        peer_id: &[u8],
    ) -> Result<KeyExchange> {
        self.start_exchange(
            algorithm,
            role,
            (own_pkcs8, own_id),
            (peer_public_key, peer_id),
            Ephemeral::Drawn(&mut |out| self.internal_random(out)),
        )
    }

    /// Starts an SM2 key exchange as [`Module::start_sm2_key_exchange`] does, with an ephemeral
    /// key the caller generated beforehand (PKCS#8 DER, e.g. a fresh
    /// [`Module::generate_signing_key`] with [`Algorithm::Sm2Sign`]) instead of one the module
    /// draws: for a token that keeps the ephemeral pair as an object between the rounds and
    /// runs the exchange in one call (PKCS#11 `C_DeriveKey`, as `CKM_ECMQV_DERIVE` does).
    ///
    /// The ephemeral key must be fresh for this exchange and destroyed after it; reused or
    /// disclosed, it gives the shared key away. The static key is refused as ephemeral.
    #[allow(clippy::too_many_arguments)]
    pub fn start_sm2_key_exchange_with_ephemeral(
        &self,
        algorithm: Algorithm,
        role: KeyExchangeRole,
        own_pkcs8: &[u8],
        own_id: &[u8],
        peer_public_key: &[u8],
        peer_id: &[u8],
        ephemeral_pkcs8: &[u8],
    ) -> Result<KeyExchange> {
        self.start_exchange(
            algorithm,
            role,
            (own_pkcs8, own_id),
            (peer_public_key, peer_id),
            Ephemeral::Given(ephemeral_pkcs8),
        )
    }

    /// Both starts: the policy's approval, then the exchange's state.
    fn start_exchange(
        &self,
        algorithm: Algorithm,
        role: KeyExchangeRole,
        own: (&[u8], &[u8]),
        peer: (&[u8], &[u8]),
        ephemeral: Ephemeral<'_>,
    ) -> Result<KeyExchange> {
        let approval = self.authorize_sm2_key_exchange(algorithm)?;
        let state = ExchangeState::start(algorithm, role, own, peer, ephemeral)?;
        Ok(KeyExchange {
            module: self.clone(),
            algorithm,
            approval,
            state,
        })
    }

    /// The policy's approval of `algorithm` as the SM2 key exchange (on curveSM2, 256 bits).
    fn authorize_sm2_key_exchange(&self, algorithm: Algorithm) -> Result<Approval> {
        let usage = Usage {
            key_bits: Some(256),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::KeyExchange, &usage)?;
        if algorithm != Algorithm::Sm2KeyExchange {
            return Err(Error::WrongFamily {
                algorithm,
                expected: Family::KeyExchange,
            });
        }
        Ok(approval)
    }
}

impl KeyExchange {
    /// The ephemeral public key `R = [r]G` (`04 ‖ x ‖ y`) to send to the peer.
    pub fn ephemeral_public_key(&self) -> Result<Vec<u8>> {
        self.module.ensure_operational()?;
        Ok(self.state.ephemeral_public_key())
    }

    /// Completes the exchange with the peer's ephemeral public key, deriving `key_len` bytes.
    pub fn finish(self, peer_ephemeral: &[u8], key_len: usize) -> Result<Served<ExchangedKey>> {
        self.module.ensure_operational()?;
        let shared = self.state.finish(self.algorithm, peer_ephemeral, key_len)?;
        Ok(self.module.serve(
            self.algorithm,
            Service::KeyAgreement,
            self.approval,
            ExchangedKey { shared },
        ))
    }
}

impl ExchangedKey {
    /// The agreed key.
    pub fn key(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(self.shared.key().to_vec())
    }

    /// The confirmation hash to send (`S_B` from the responder, `S_A` from the initiator).
    pub fn confirmation(&self) -> [u8; 32] {
        self.shared.confirmation()
    }

    /// The confirmation hash the peer must send (`S_B` at the initiator, `S_A` at the
    /// responder), for a caller that compares it itself (e.g. outside the module); compare in
    /// constant time, or use [`ExchangedKey::verify_peer_confirmation`].
    pub fn expected_peer_confirmation(&self) -> [u8; 32] {
        self.shared.expected_peer_confirmation()
    }

    /// Checks the peer's confirmation hash; a mismatch is [`Error::AuthenticationFailed`].
    pub fn verify_peer_confirmation(&self, received: &[u8]) -> Result<()> {
        self.shared.verify_peer_confirmation(received)
    }
}
