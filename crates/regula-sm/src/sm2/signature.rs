//! SM2 digital signatures (GB/T 32918.2-2016 §6 and §7): `e = SM3(Z_A ‖ M)` signed with a
//! random `k`; encoded as DER `SEQUENCE { r INTEGER, s INTEGER }` (GM/T 0009-2012 §7.3) or as
//! the raw 64 bytes `r ‖ s`.

use der::asn1::UintRef;
use der::{Decode, Encode};
use sm2::elliptic_curve::ff::PrimeField;
use sm3::{Digest, Sm3};
use zeroize::Zeroize;

use super::{
    Error, PrivateKey, PublicKey, RandomSource, SCALAR_LEN, Scalar, random_scalar, reduce, vartime,
};

/// An SM2 signature `(r, s)`, both in [1, n-1].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    r: [u8; SCALAR_LEN],
    s: [u8; SCALAR_LEN],
}

#[derive(der::Sequence)]
struct DerSignature<'a> {
    r: UintRef<'a>,
    s: UintRef<'a>,
}

/// A DER INTEGER's magnitude left-padded to 32 bytes, if it fits.
pub(crate) fn pad_uint(value: &UintRef<'_>) -> Result<[u8; SCALAR_LEN], Error> {
    let bytes = value.as_bytes();
    let mut out = [0u8; SCALAR_LEN];
    let start = SCALAR_LEN.checked_sub(bytes.len()).ok_or(Error::Encoding)?;
    out[start..].copy_from_slice(bytes);
    Ok(out)
}

impl Signature {
    /// Parses `r ‖ s` (64 bytes); each half must lie in [1, n-1].
    pub fn from_bytes(bytes: &[u8]) -> Result<Signature, Error> {
        if bytes.len() != 2 * SCALAR_LEN {
            return Err(Error::BadSignature);
        }
        let mut r = [0u8; SCALAR_LEN];
        let mut s = [0u8; SCALAR_LEN];
        r.copy_from_slice(&bytes[..SCALAR_LEN]);
        s.copy_from_slice(&bytes[SCALAR_LEN..]);
        let signature = Signature { r, s };
        signature.scalars()?;
        Ok(signature)
    }

    /// Parses strict DER `SEQUENCE { r INTEGER, s INTEGER }`.
    pub fn from_der(der: &[u8]) -> Result<Signature, Error> {
        let parsed = DerSignature::from_der(der).map_err(|_| Error::BadSignature)?;
        let r = pad_uint(&parsed.r).map_err(|_| Error::BadSignature)?;
        let s = pad_uint(&parsed.s).map_err(|_| Error::BadSignature)?;
        let signature = Signature { r, s };
        signature.scalars()?;
        Ok(signature)
    }

    /// `r ‖ s`, 64 bytes.
    pub fn to_bytes(&self) -> [u8; 2 * SCALAR_LEN] {
        let mut out = [0u8; 2 * SCALAR_LEN];
        out[..SCALAR_LEN].copy_from_slice(&self.r);
        out[SCALAR_LEN..].copy_from_slice(&self.s);
        out
    }

    /// DER `SEQUENCE { r INTEGER, s INTEGER }` (70 to 72 bytes).
    pub fn to_der(&self) -> Vec<u8> {
        let encoded = UintRef::new(&self.r)
            .and_then(|r| Ok((r, UintRef::new(&self.s)?)))
            .and_then(|(r, s)| DerSignature { r, s }.to_der());
        // Two INTEGERs of at most 33 bytes always encode.
        encoded.unwrap_or_default()
    }

    /// `r`, big-endian.
    pub fn r(&self) -> &[u8; SCALAR_LEN] {
        &self.r
    }

    /// `s`, big-endian.
    pub fn s(&self) -> &[u8; SCALAR_LEN] {
        &self.s
    }

    /// GB/T 32918.2 §7.1 B1, B2: r and s in [1, n-1].
    fn scalars(&self) -> Result<(Scalar, Scalar), Error> {
        let parse = |bytes: &[u8; SCALAR_LEN]| {
            Option::<Scalar>::from(Scalar::from_repr((*bytes).into()))
                .filter(|scalar| !bool::from(scalar.is_zero()))
                .ok_or(Error::BadSignature)
        };
        Ok((parse(&self.r)?, parse(&self.s)?))
    }
}

/// `e = SM3(Z_A ‖ M)` as a 32-byte string (GB/T 32918.2 §6.1 A1, A2).
pub fn message_digest(
    public_key: &PublicKey,
    id: &[u8],
    message: &[u8],
) -> Result<[u8; 32], Error> {
    let z = public_key.z(id)?;
    let mut hash = Sm3::new();
    hash.update(z);
    hash.update(message);
    Ok(hash.finalize().into())
}

/// Signs `message` for the signer identified by `id` (use [`super::DEFAULT_ID`] when no other
/// is agreed). `k` is drawn from `random` and wiped.
pub fn sign(
    key: &PrivateKey,
    id: &[u8],
    message: &[u8],
    random: &mut impl RandomSource,
) -> Result<Signature, Error> {
    let e = reduce(&message_digest(key.public_key(), id, message)?);
    sign_with_fresh_k(key, &e, random)
}

/// Signs the reduced digest `e` with k drawn from `random` (and wiped), drawing again in the
/// rare case a k must be replaced.
fn sign_with_fresh_k(
    key: &PrivateKey,
    e: &Scalar,
    random: &mut impl RandomSource,
) -> Result<Signature, Error> {
    loop {
        let mut k = random_scalar(random, false)?;
        let signature = sign_digest(key, e, &k);
        k.zeroize();
        if let Some(signature) = signature {
            return Ok(signature);
        }
    }
}

/// Signs with a caller-chosen `k` (32 bytes, in [1, n-1]).
///
/// **For known-answer self-tests only**: a `k` that is ever reused or predictable reveals the
/// private key. Returns [`Error::InvalidPrivateKey`] when `k` is out of range or yields
/// `r = 0`, `r + k = n` or `s = 0`.
#[doc(hidden)]
pub fn sign_with_fixed_k_for_self_test(
    key: &PrivateKey,
    id: &[u8],
    message: &[u8],
    k: &[u8],
) -> Result<Signature, Error> {
    let k: [u8; SCALAR_LEN] = k.try_into().map_err(|_| Error::InvalidPrivateKey)?;
    let k = Option::<Scalar>::from(Scalar::from_repr(k.into()))
        .filter(|k| !bool::from(k.is_zero()))
        .ok_or(Error::InvalidPrivateKey)?;
    let e = reduce(&message_digest(key.public_key(), id, message)?);
    sign_digest(key, &e, &k).ok_or(Error::InvalidPrivateKey)
}

/// GB/T 32918.2 §6.1 A4–A6; `None` when this `k` must be replaced. Constant-time in `d` and `k`
/// up to the (negligibly likely) retry conditions.
fn sign_digest(key: &PrivateKey, e: &Scalar, k: &Scalar) -> Option<Signature> {
    let x1 = super::fixed_base::mul_by_generator_x(k);
    let r = *e + reduce(&x1);
    if bool::from(r.is_zero() | (r + k).is_zero()) {
        return None;
    }
    let s = *key.one_plus_d_inverse() * (*k - r * key.scalar());
    if bool::from(s.is_zero()) {
        return None;
    }
    Some(Signature {
        r: r.to_repr().into(),
        s: s.to_repr().into(),
    })
}

/// Verifies `signature` over `message` by the signer `id` holding `public_key`
/// (GB/T 32918.2 §7.1). Variable-time ([`super::vartime`]): every input is public.
pub fn verify(
    public_key: &PublicKey,
    id: &[u8],
    message: &[u8],
    signature: &Signature,
) -> Result<(), Error> {
    verify_digest(
        public_key,
        &message_digest(public_key, id, message)?,
        signature,
    )
}

/// Verifies `signature` over a caller-supplied digest of any length, taken (as OpenSSL's
/// `EVP_PKEY_verify` takes it with an SM2 key and a non-SM3 `digest` control) as a big-endian
/// integer e reduced modulo n.
///
/// **Not GB/T 32918.2**, whose e is SM3(Z_A ‖ M): this exists so that the peers' evp_test
/// stanzas that verify over, say, a SHA-512 digest can be reproduced, and is never offered as
/// a service. Variable-time: every input is public.
#[doc(hidden)]
pub fn verify_prehash_for_interop_test(
    public_key: &PublicKey,
    digest: &[u8],
    signature: &Signature,
) -> Result<(), Error> {
    let e = reduce_any(digest);
    verify_e(public_key, &e, signature)
}

/// Signs a caller-supplied 32-byte digest e (GB/T 32918.2 §6.1 from step A3) with a fresh
/// random k, as OpenSSL's `EVP_PKEY_sign` does with an SM2 key.
///
/// **Hazmat, for evp_test stanzas only**: signing a digest the caller computed skips
/// Z_A = SM3(ENTL ‖ ID ‖ …), which binds the signer's identity and key; Regula's signing
/// service signs messages ([`sign`]).
#[doc(hidden)]
pub fn sign_digest_for_interop_test(
    key: &PrivateKey,
    digest: &[u8; 32],
    random: &mut impl RandomSource,
) -> Result<Signature, Error> {
    sign_with_fresh_k(key, &reduce(digest), random)
}

/// A big-endian integer of any length modulo n.
fn reduce_any(bytes: &[u8]) -> Scalar {
    let base = Scalar::from(256u64);
    bytes.iter().fold(Scalar::ZERO, |acc, &byte| {
        acc * base + Scalar::from(u64::from(byte))
    })
}

/// Verifies `signature` over `digest` = SM3(Z_A ‖ M) computed by the caller (GB/T 32918.2
/// §7.1 from step B4; what OpenSSL's `EVP_PKEY_verify` takes for SM2). Variable-time: every
/// input is public.
pub fn verify_digest(
    public_key: &PublicKey,
    digest: &[u8; 32],
    signature: &Signature,
) -> Result<(), Error> {
    verify_e(public_key, &reduce(digest), signature)
}

/// GB/T 32918.2 §7.1 from step B3, with e given.
fn verify_e(public_key: &PublicKey, e: &Scalar, signature: &Signature) -> Result<(), Error> {
    let (r, s) = signature.scalars()?;
    let e = *e;
    let t = r + s;
    if bool::from(t.is_zero()) {
        return Err(Error::BadSignature);
    }
    // B5–B7: x1 of [s]G + [t]P must satisfy (e + x1) mod n = r.
    let target = r - e;
    if vartime::joint_mul_x_matches(
        &s.to_repr().into(),
        &t.to_repr().into(),
        public_key,
        &target.to_repr().into(),
    ) {
        Ok(())
    } else {
        Err(Error::BadSignature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_halves_are_refused() {
        let n = super::super::decode_hex32(
            "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123",
        );
        let one = {
            let mut one = [0u8; 32];
            one[31] = 1;
            one
        };
        for (r, s) in [([0u8; 32], one), (one, [0u8; 32]), (n, one), (one, n)] {
            let mut bytes = [0u8; 64];
            bytes[..32].copy_from_slice(&r);
            bytes[32..].copy_from_slice(&s);
            assert_eq!(Signature::from_bytes(&bytes), Err(Error::BadSignature));
        }
        assert!(Signature::from_bytes(&[one, one].concat()).is_ok());
        assert_eq!(Signature::from_bytes(&[1; 63]), Err(Error::BadSignature));
    }

    #[test]
    fn der_round_trips_and_is_strict() {
        let mut bytes = [0x11u8; 64];
        bytes[0] = 0x80; // needs a leading 00 in DER
        bytes[32] = 0x00; // leading zero stripped in DER
        let signature = Signature::from_bytes(&bytes).unwrap();
        let der = signature.to_der();
        assert_eq!(Signature::from_der(&der), Ok(signature));
        let mut trailing = der.clone();
        trailing.push(0);
        assert_eq!(Signature::from_der(&trailing), Err(Error::BadSignature));
        assert_eq!(
            Signature::from_der(&der[..der.len() - 1]),
            Err(Error::BadSignature)
        );
    }
}
