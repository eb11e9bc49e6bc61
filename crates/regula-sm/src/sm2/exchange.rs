//! Key agreement on curveSM2: plain ECDH as TLS 1.3 uses it (RFC 8998 §3.1, named group
//! curveSM2), and the SM2 key exchange protocol of GB/T 32918.3-2016 §6.

use core::fmt;

use sm2::elliptic_curve::ff::PrimeField;
use sm2::elliptic_curve::subtle::ConstantTimeEq;
use sm3::{Digest, Sm3};
use zeroize::{Zeroize, Zeroizing};

use super::encryption::kdf;
use super::point::{self, Affine, Projective};
use super::{
    Error, POINT_LEN, PrivateKey, PublicKey, RandomSource, SCALAR_LEN, Scalar, coordinates,
    random_scalar, reduce,
};

/// `P_peer + [x̄_peer]R_peer` (public values), `None` for an unusable peer key.
fn peer_sum(peer_key: &PublicKey, peer_ephemeral: &PublicKey) -> Option<Projective> {
    let b = point::b();
    let ephemeral = Projective::from_affine(&Affine::from_public(peer_ephemeral)?);
    let multiple = point::mul(&truncated_x(peer_ephemeral), &ephemeral);
    Some(multiple.add_affine(&Affine::from_public(peer_key)?, &b))
}

/// The ECDH shared secret with a peer: the x-coordinate of `[d]Q` (RFC 8998 §3.1 uses it as the
/// TLS 1.3 (EC)DHE shared secret, like RFC 8446 §7.4.2 for the NIST curves). The peer's key is
/// validated when parsed ([`PublicKey::from_sec1`]); with cofactor 1 the result is never the
/// point at infinity, which is checked anyway.
pub fn ecdh(key: &PrivateKey, peer: &PublicKey) -> Result<Zeroizing<[u8; SCALAR_LEN]>, Error> {
    let (x, mut y) =
        super::point::mul_public_key(key.scalar(), peer).ok_or(Error::InvalidPublicKey)?;
    y.zeroize();
    Ok(Zeroizing::new(x))
}

/// Which side of GB/T 32918.3 a party plays: the initiator (user A) sends its ephemeral key
/// first; the responder (user B) answers with its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyExchangeRole {
    /// User A: sends `R_A` first, sends `S_A`.
    Initiator,
    /// User B: answers with `R_B` and `S_B`.
    Responder,
}

/// One party's state in a GB/T 32918.3 key exchange, holding its ephemeral scalar `r` (wiped
/// on drop).
pub struct KeyExchange {
    role: KeyExchangeRole,
    own_key: PrivateKey,
    own_z: [u8; 32],
    peer_key: PublicKey,
    peer_z: [u8; 32],
    ephemeral: Scalar,
    ephemeral_public: PublicKey,
}

impl Drop for KeyExchange {
    fn drop(&mut self) {
        self.ephemeral.zeroize();
    }
}

impl fmt::Debug for KeyExchange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyExchange")
            .field("role", &self.role)
            .field("ephemeral_public", &self.ephemeral_public)
            .finish_non_exhaustive()
    }
}

/// The outcome of a key exchange: the agreed key and the optional confirmation hashes
/// (GB/T 32918.3 §6.1 B8/A9/A10/B10).
pub struct SharedKey {
    key: Zeroizing<Vec<u8>>,
    own_confirmation: [u8; 32],
    peer_confirmation: [u8; 32],
}

impl fmt::Debug for SharedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedKey")
            .field("len", &self.key.len())
            .finish_non_exhaustive()
    }
}

impl SharedKey {
    /// The agreed key `K_A = K_B`.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The confirmation hash to send to the peer: `S_B` from the responder, `S_A` from the
    /// initiator.
    pub fn confirmation(&self) -> &[u8; 32] {
        &self.own_confirmation
    }

    /// The confirmation hash the peer must send (`S_B` at the initiator, `S_A` at the
    /// responder), for a caller that compares it itself (in constant time, or as
    /// [`SharedKey::verify_peer_confirmation`] does).
    pub fn expected_peer_confirmation(&self) -> &[u8; 32] {
        &self.peer_confirmation
    }

    /// Checks the peer's confirmation hash (`S_B` at the initiator, `S_A` at the responder) in
    /// constant time.
    pub fn verify_peer_confirmation(&self, received: &[u8]) -> Result<(), Error> {
        if received.len() == 32 && bool::from(self.peer_confirmation.ct_eq(received)) {
            Ok(())
        } else {
            Err(Error::ConfirmationFailed)
        }
    }
}

/// `x̄ = 2^w + (x mod 2^w)` with `w = ⌈⌈log2 n⌉ / 2⌉ - 1 = 127` (GB/T 32918.3 §6.1 A4/B3).
fn truncated_x(point: &PublicKey) -> Scalar {
    let (x, _) = coordinates(point.point());
    let mut bytes = [0u8; SCALAR_LEN];
    bytes[16..].copy_from_slice(&x[16..]);
    bytes[16] = (bytes[16] & 0x7f) | 0x80;
    reduce(&bytes)
}

impl KeyExchange {
    /// Starts an exchange: draws the ephemeral key `r` and computes `R = [r]G`, to be sent to
    /// the peer ([`KeyExchange::ephemeral_public_key`]). IDs default to
    /// [`super::DEFAULT_ID`] by convention.
    pub fn new(
        role: KeyExchangeRole,
        own_key: &PrivateKey,
        own_id: &[u8],
        peer_key: &PublicKey,
        peer_id: &[u8],
        random: &mut impl RandomSource,
    ) -> Result<KeyExchange, Error> {
        let ephemeral = random_scalar(random, false)?;
        KeyExchange::with_scalar(role, own_key, own_id, peer_key, peer_id, ephemeral)
    }

    /// Starts an exchange with an ephemeral key pair the caller made beforehand (its `r`, with
    /// `R = [r]G` sent to the peer), as a token does that generates the ephemeral pair as an
    /// object of its own and runs the exchange in one later call (PKCS#11 `C_DeriveKey`, like
    /// `CKM_ECMQV_DERIVE`).
    ///
    /// The ephemeral key must be fresh for every exchange, generated with
    /// [`PrivateKey::generate`] for this exchange only and destroyed after it: an ephemeral
    /// key used twice, or known to anyone else, gives the shared key away (`t = d + x̄ · r`
    /// ties the static key to it). It must not be the static key either.
    pub fn with_ephemeral_key(
        role: KeyExchangeRole,
        own_key: &PrivateKey,
        own_id: &[u8],
        peer_key: &PublicKey,
        peer_id: &[u8],
        ephemeral: &PrivateKey,
    ) -> Result<KeyExchange, Error> {
        KeyExchange::with_scalar(
            role,
            own_key,
            own_id,
            peer_key,
            peer_id,
            *ephemeral.scalar(),
        )
    }

    /// Starts an exchange with a caller-chosen ephemeral `r` (32 bytes, in [1, n-1]).
    ///
    /// **For known-answer self-tests only**: a reused ephemeral key breaks the exchange.
    #[doc(hidden)]
    pub fn with_fixed_ephemeral_for_self_test(
        role: KeyExchangeRole,
        own_key: &PrivateKey,
        own_id: &[u8],
        peer_key: &PublicKey,
        peer_id: &[u8],
        r: &[u8],
    ) -> Result<KeyExchange, Error> {
        let r: [u8; SCALAR_LEN] = r.try_into().map_err(|_| Error::InvalidPrivateKey)?;
        let r = Option::<Scalar>::from(Scalar::from_repr(r.into()))
            .filter(|r| !bool::from(r.is_zero()))
            .ok_or(Error::InvalidPrivateKey)?;
        KeyExchange::with_scalar(role, own_key, own_id, peer_key, peer_id, r)
    }

    fn with_scalar(
        role: KeyExchangeRole,
        own_key: &PrivateKey,
        own_id: &[u8],
        peer_key: &PublicKey,
        peer_id: &[u8],
        mut ephemeral: Scalar,
    ) -> Result<KeyExchange, Error> {
        let prepared = own_key.public_key().z(own_id).and_then(|own_z| {
            let peer_z = peer_key.z(peer_id)?;
            let point = super::fixed_base::mul_by_generator(&ephemeral);
            Ok((own_z, peer_z, PublicKey::from_affine(point)?))
        });
        let (own_z, peer_z, ephemeral_public) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => {
                ephemeral.zeroize();
                return Err(error);
            }
        };
        Ok(KeyExchange {
            role,
            own_key: own_key.clone(),
            own_z,
            peer_key: *peer_key,
            peer_z,
            ephemeral,
            ephemeral_public,
        })
    }

    /// `R = [r]G` as `04 ‖ x ‖ y`, for the peer.
    pub fn ephemeral_public_key(&self) -> [u8; POINT_LEN] {
        self.ephemeral_public.to_uncompressed()
    }

    /// Completes the exchange with the peer's ephemeral key, deriving `key_len` bytes
    /// (GB/T 32918.3 §6.1 A4–A8 / B2–B7). Refuses a peer point off the curve and a shared
    /// point at infinity.
    pub fn finish(self, peer_ephemeral: &[u8], key_len: usize) -> Result<SharedKey, Error> {
        if key_len == 0 {
            return Err(Error::InvalidLength);
        }
        let peer_ephemeral = PublicKey::from_sec1(peer_ephemeral)?;
        // t = (d + x̄ · r) mod n
        let mut t = *self.own_key.scalar() + truncated_x(&self.ephemeral_public) * self.ephemeral;
        // U = [h · t](P_peer + [x̄_peer] R_peer), h = 1; the inner multiple is of public values
        // (computed with the same constant-time code, which does not mind).
        let shared = peer_sum(&self.peer_key, &peer_ephemeral).and_then(|sum| {
            let mut product = point::mul(&t, &sum);
            let affine = product.affine_coordinates();
            product.wipe();
            affine
        });
        t.zeroize();
        let (x_u, y_u) = shared.ok_or(Error::InvalidPublicKey)?;
        let (x_u, y_u) = (Zeroizing::new(x_u), Zeroizing::new(y_u));
        // Z_A is always the initiator's, (x1, y1) the initiator's ephemeral point.
        let (z_a, z_b, r_a, r_b) = match self.role {
            KeyExchangeRole::Initiator => (
                &self.own_z,
                &self.peer_z,
                self.ephemeral_public.to_uncompressed(),
                peer_ephemeral.to_uncompressed(),
            ),
            KeyExchangeRole::Responder => (
                &self.peer_z,
                &self.own_z,
                peer_ephemeral.to_uncompressed(),
                self.ephemeral_public.to_uncompressed(),
            ),
        };
        let mut kdf_input = Zeroizing::new(Vec::with_capacity(128));
        kdf_input.extend_from_slice(x_u.as_slice());
        kdf_input.extend_from_slice(y_u.as_slice());
        kdf_input.extend_from_slice(z_a);
        kdf_input.extend_from_slice(z_b);
        let mut key = Zeroizing::new(vec![0u8; key_len]);
        kdf(&kdf_input, &mut key)?;
        let inner: [u8; 32] = Sm3::new()
            .chain_update(x_u.as_slice())
            .chain_update(z_a)
            .chain_update(z_b)
            .chain_update(&r_a[1..])
            .chain_update(&r_b[1..])
            .finalize()
            .into();
        let confirmation = |tag: u8| -> [u8; 32] {
            Sm3::new()
                .chain_update([tag])
                .chain_update(y_u.as_slice())
                .chain_update(inner)
                .finalize()
                .into()
        };
        // S_B / S_1 use tag 02, S_A / S_2 use tag 03.
        let (responder_hash, initiator_hash) = (confirmation(0x02), confirmation(0x03));
        let (own_confirmation, peer_confirmation) = match self.role {
            KeyExchangeRole::Initiator => (initiator_hash, responder_hash),
            KeyExchangeRole::Responder => (responder_hash, initiator_hash),
        };
        Ok(SharedKey {
            key,
            own_confirmation,
            peer_confirmation,
        })
    }
}
