//! The SM2 key exchange protocol (GB/T 32918.3-2016 §6), regula-sm's.

use regula_sm::sm2;

use super::sm::{KeyExchangeRole, sm2_error, sm2_random};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};

/// One party's exchange in progress, holding its ephemeral key (wiped on drop by regula-sm).
pub(crate) struct ExchangeState(sm2::KeyExchange);

/// The agreed key and the confirmation hashes (the key wiped on drop by regula-sm).
pub(crate) struct SharedKey(sm2::SharedKey);

/// Where a party's ephemeral key comes from.
pub(crate) enum Ephemeral<'a> {
    /// Drawn here from the module's generator.
    Drawn(&'a mut dyn FnMut(&mut [u8]) -> Result<()>),
    /// Made beforehand by the caller: PKCS#8 DER of a curveSM2 key.
    Given(&'a [u8]),
}

impl ExchangeState {
    /// Parses the own static key (PKCS#8 DER) and the peer's static public key (DER
    /// SubjectPublicKeyInfo or uncompressed point), and draws or parses the ephemeral key.
    pub(crate) fn start(
        algorithm: Algorithm,
        role: KeyExchangeRole,
        (own_pkcs8, own_id): (&[u8], &[u8]),
        (peer_public_key, peer_id): (&[u8], &[u8]),
        ephemeral: Ephemeral<'_>,
    ) -> Result<ExchangeState> {
        let own = sm2::PrivateKey::from_pkcs8_der(own_pkcs8).map_err(|_| {
            Error::invalid_key(algorithm, "not a PKCS#8 SM2 private key on curveSM2")
        })?;
        let peer = sm2::PublicKey::from_sec1_or_spki_der(peer_public_key).map_err(|_| {
            Error::invalid_key(
                algorithm,
                "peer key is not a curveSM2 SubjectPublicKeyInfo or uncompressed point",
            )
        })?;
        let started = match ephemeral {
            Ephemeral::Drawn(mut random) => sm2::KeyExchange::new(
                role,
                &own,
                own_id,
                &peer,
                peer_id,
                &mut sm2_random(&mut random),
            ),
            Ephemeral::Given(ephemeral_pkcs8) => {
                let ephemeral = sm2::PrivateKey::from_pkcs8_der(ephemeral_pkcs8).map_err(|_| {
                    Error::invalid_key(
                        algorithm,
                        "ephemeral key is not a PKCS#8 SM2 private key on curveSM2",
                    )
                })?;
                if ephemeral.public_key() == own.public_key() {
                    return Err(Error::invalid_key(
                        algorithm,
                        "the ephemeral key is the static key",
                    ));
                }
                sm2::KeyExchange::with_ephemeral_key(role, &own, own_id, &peer, peer_id, &ephemeral)
            }
        };
        started
            .map(ExchangeState)
            .map_err(|e| sm2_error(algorithm, e))
    }

    /// The ephemeral public key `R = [r]G` (`04 ‖ x ‖ y`).
    pub(crate) fn ephemeral_public_key(&self) -> Vec<u8> {
        self.0.ephemeral_public_key().to_vec()
    }

    /// Completes the exchange with the peer's ephemeral public key, deriving `key_len` bytes.
    pub(crate) fn finish(
        self,
        algorithm: Algorithm,
        peer_ephemeral: &[u8],
        key_len: usize,
    ) -> Result<SharedKey> {
        self.0
            .finish(peer_ephemeral, key_len)
            .map(SharedKey)
            .map_err(|e| match e {
                sm2::Error::InvalidPublicKey => {
                    Error::invalid_input("peer ephemeral key is not a valid point of curveSM2")
                }
                other => sm2_error(algorithm, other),
            })
    }
}

impl SharedKey {
    pub(crate) fn key(&self) -> &[u8] {
        self.0.key()
    }

    pub(crate) fn confirmation(&self) -> [u8; 32] {
        *self.0.confirmation()
    }

    pub(crate) fn expected_peer_confirmation(&self) -> [u8; 32] {
        *self.0.expected_peer_confirmation()
    }

    /// Checks the peer's confirmation hash; a mismatch is [`Error::AuthenticationFailed`].
    pub(crate) fn verify_peer_confirmation(&self, received: &[u8]) -> Result<()> {
        self.0
            .verify_peer_confirmation(received)
            .map_err(|_| Error::AuthenticationFailed)
    }
}
