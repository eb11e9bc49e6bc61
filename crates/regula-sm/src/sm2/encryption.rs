//! SM2 public-key encryption (GB/T 32918.4-2016 §6 and §7) and its key derivation function
//! (§5.4.3).
//!
//! A ciphertext has three parts: `C1 = [k]G`, `C2 = M ⊕ KDF(x2 ‖ y2, |M|)` and
//! `C3 = SM3(x2 ‖ M ‖ y2)`, where `(x2, y2) = [k]P_B`. They travel as the concatenation
//! `C1 ‖ C3 ‖ C2` (GB/T 32918.4-2016), the older `C1 ‖ C2 ‖ C3` (GM/T 0003.4-2012), or the
//! ASN.1 `SM2Cipher` of GM/T 0009-2012 §7.2, which OpenSSL writes.

use der::asn1::{OctetStringRef, UintRef};
use der::{Decode, Encode};
use sm2::elliptic_curve::ff::PrimeField;
use sm2::elliptic_curve::subtle::ConstantTimeEq;
use sm3::{Digest, Sm3};
use zeroize::{Zeroize, Zeroizing};

use super::signature::pad_uint;
use super::{
    Error, POINT_LEN, PrivateKey, PublicKey, RandomSource, SCALAR_LEN, Scalar, random_scalar,
};

/// Length of `C3`, an SM3 hash.
const HASH_LEN: usize = 32;

/// How the parts of a ciphertext are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CiphertextFormat {
    /// `C1 ‖ C3 ‖ C2` with `C1` uncompressed (`04 ‖ x ‖ y`), GB/T 32918.4-2016.
    C1C3C2,
    /// `C1 ‖ C2 ‖ C3`, the order of GM/T 0003.4-2012 (legacy peers).
    C1C2C3,
    /// DER `SEQUENCE { x INTEGER, y INTEGER, hash OCTET STRING, ciphertext OCTET STRING }`
    /// (GM/T 0009-2012 §7.2), as OpenSSL's `pkeyutl -encrypt` writes.
    Asn1,
}

#[derive(der::Sequence)]
struct Sm2Cipher<'a> {
    x: UintRef<'a>,
    y: UintRef<'a>,
    hash: &'a OctetStringRef,
    ciphertext: &'a OctetStringRef,
}

/// The KDF of GB/T 32918.4 §5.4.3: `out = SM3(z ‖ 1) ‖ SM3(z ‖ 2) ‖ …` (32-bit big-endian
/// counters), truncated to `out.len()` bytes. At most `(2^32 - 1) × 32` bytes.
pub fn kdf(z: &[u8], out: &mut [u8]) -> Result<(), Error> {
    if out.len().div_ceil(32) > u32::MAX as usize {
        return Err(Error::InvalidLength);
    }
    for (counter, chunk) in (1u32..).zip(out.chunks_mut(32)) {
        let mut hash = Sm3::new();
        hash.update(z);
        hash.update(counter.to_be_bytes());
        let mut block: [u8; 32] = hash.finalize().into();
        chunk.copy_from_slice(&block[..chunk.len()]);
        block.zeroize();
    }
    Ok(())
}

/// `t = KDF(x2 ‖ y2, len)`, or `None` when `t` is all zero (§6.1 A5, §7.1 B4). The zero check
/// does not branch on individual bytes.
fn keystream(
    x2: &[u8; SCALAR_LEN],
    y2: &[u8; SCALAR_LEN],
    len: usize,
) -> Option<Zeroizing<Vec<u8>>> {
    let mut z = Zeroizing::new([0u8; 2 * SCALAR_LEN]);
    z[..SCALAR_LEN].copy_from_slice(x2);
    z[SCALAR_LEN..].copy_from_slice(y2);
    let mut t = Zeroizing::new(vec![0u8; len]);
    kdf(z.as_slice(), &mut t).ok()?;
    let any_set = t.iter().fold(0u8, |acc, byte| acc | byte);
    (any_set != 0).then_some(t)
}

fn c3(x2: &[u8; SCALAR_LEN], message: &[u8], y2: &[u8; SCALAR_LEN]) -> [u8; HASH_LEN] {
    let mut hash = Sm3::new();
    hash.update(x2);
    hash.update(message);
    hash.update(y2);
    hash.finalize().into()
}

/// Encrypts `message` to `public_key` (GB/T 32918.4 §6.1). `message` must not be empty.
pub fn encrypt(
    public_key: &PublicKey,
    message: &[u8],
    format: CiphertextFormat,
    random: &mut impl RandomSource,
) -> Result<Vec<u8>, Error> {
    if message.is_empty() {
        return Err(Error::EmptyMessage);
    }
    loop {
        let mut k = random_scalar(random, false)?;
        let ciphertext = encrypt_with_scalar(public_key, message, format, &k);
        k.zeroize();
        if let Some(ciphertext) = ciphertext {
            return Ok(ciphertext);
        }
    }
}

/// Encrypts with a caller-chosen `k` (32 bytes, in [1, n-1]).
///
/// **For known-answer self-tests only**: a reused or predictable `k` reveals the plaintext.
#[doc(hidden)]
pub fn encrypt_with_fixed_k_for_self_test(
    public_key: &PublicKey,
    message: &[u8],
    format: CiphertextFormat,
    k: &[u8],
) -> Result<Vec<u8>, Error> {
    if message.is_empty() {
        return Err(Error::EmptyMessage);
    }
    let k: [u8; SCALAR_LEN] = k.try_into().map_err(|_| Error::InvalidPrivateKey)?;
    let k = Option::<Scalar>::from(Scalar::from_repr(k.into()))
        .filter(|k| !bool::from(k.is_zero()))
        .ok_or(Error::InvalidPrivateKey)?;
    encrypt_with_scalar(public_key, message, format, &k).ok_or(Error::InvalidPrivateKey)
}

/// §6.1 A2–A8; `None` when the KDF output is all zero and `k` must be replaced.
fn encrypt_with_scalar(
    public_key: &PublicKey,
    message: &[u8],
    format: CiphertextFormat,
    k: &Scalar,
) -> Option<Vec<u8>> {
    let c1 = PublicKey::from_affine(super::fixed_base::mul_by_generator(k)).ok()?;
    // The cofactor h is 1, so S = [h]P_B is P_B, never infinity for a validated key (A3).
    let (x2, y2) = super::point::mul_public_key(k, public_key)?;
    let (x2, y2) = (Zeroizing::new(x2), Zeroizing::new(y2));
    let t = keystream(&x2, &y2, message.len())?;
    let c2: Vec<u8> = message.iter().zip(t.iter()).map(|(m, t)| m ^ t).collect();
    let c3 = c3(&x2, message, &y2);
    Some(encode(&c1.to_uncompressed(), &c3, &c2, format))
}

fn encode(
    c1: &[u8; POINT_LEN],
    c3: &[u8; HASH_LEN],
    c2: &[u8],
    format: CiphertextFormat,
) -> Vec<u8> {
    match format {
        CiphertextFormat::C1C3C2 => [c1.as_slice(), c3, c2].concat(),
        CiphertextFormat::C1C2C3 => [c1.as_slice(), c2, c3].concat(),
        CiphertextFormat::Asn1 => {
            let encoded = (|| {
                Sm2Cipher {
                    x: UintRef::new(&c1[1..33])?,
                    y: UintRef::new(&c1[33..])?,
                    hash: OctetStringRef::new(c3)?,
                    ciphertext: OctetStringRef::new(c2)?,
                }
                .to_der()
            })();
            // Only a message beyond DER's 256 MiB length limit fails to encode.
            encoded.unwrap_or_default()
        }
    }
}

/// A ciphertext's parts: `C1` (uncompressed point), `C3` (hash) and `C2` (masked message).
struct Parts<'a> {
    c1: [u8; POINT_LEN],
    c3: [u8; HASH_LEN],
    c2: &'a [u8],
}

/// Splits a ciphertext into its parts.
fn decode(ciphertext: &[u8], format: CiphertextFormat) -> Result<Parts<'_>, Error> {
    let failed = |_| Error::DecryptionFailed;
    match format {
        CiphertextFormat::C1C3C2 | CiphertextFormat::C1C2C3 => {
            if ciphertext.len() <= POINT_LEN + HASH_LEN {
                return Err(Error::DecryptionFailed);
            }
            let (c1, rest) = ciphertext.split_at(POINT_LEN);
            let (c3, c2) = if format == CiphertextFormat::C1C3C2 {
                let (c3, c2) = rest.split_at(HASH_LEN);
                (c3, c2)
            } else {
                let (c2, c3) = rest.split_at(rest.len() - HASH_LEN);
                (c3, c2)
            };
            Ok(Parts {
                c1: c1.try_into().map_err(failed)?,
                c3: c3.try_into().map_err(failed)?,
                c2,
            })
        }
        CiphertextFormat::Asn1 => {
            let parsed = Sm2Cipher::from_der(ciphertext).map_err(|_| Error::DecryptionFailed)?;
            let mut c1 = [0u8; POINT_LEN];
            c1[0] = 0x04;
            c1[1..33].copy_from_slice(&pad_uint(&parsed.x).map_err(|_| Error::DecryptionFailed)?);
            c1[33..].copy_from_slice(&pad_uint(&parsed.y).map_err(|_| Error::DecryptionFailed)?);
            let c3 = parsed.hash.as_bytes().try_into().map_err(failed)?;
            Ok(Parts {
                c1,
                c3,
                c2: parsed.ciphertext.as_bytes(),
            })
        }
    }
}

/// Decrypts a ciphertext made by [`encrypt`] (GB/T 32918.4 §7.1). Every failure — malformed
/// input, `C1` off the curve, an all-zero KDF output, a wrong `C3` — is the same
/// [`Error::DecryptionFailed`], and no plaintext is released.
pub fn decrypt(
    key: &PrivateKey,
    ciphertext: &[u8],
    format: CiphertextFormat,
) -> Result<Vec<u8>, Error> {
    let Parts { c1, c3, c2 } = decode(ciphertext, format)?;
    if c2.is_empty() {
        return Err(Error::DecryptionFailed);
    }
    // B1: C1 on the curve; B2: [h]C1 (h = 1) not infinity.
    let c1 = PublicKey::from_sec1(&c1).map_err(|_| Error::DecryptionFailed)?;
    let (x2, y2) =
        super::point::mul_public_key(key.scalar(), &c1).ok_or(Error::DecryptionFailed)?;
    let (x2, y2) = (Zeroizing::new(x2), Zeroizing::new(y2));
    let t = keystream(&x2, &y2, c2.len()).ok_or(Error::DecryptionFailed)?;
    let mut message: Vec<u8> = c2.iter().zip(t.iter()).map(|(c, t)| c ^ t).collect();
    let expected = self::c3(&x2, &message, &y2);
    if bool::from(expected.ct_eq(&c3)) {
        Ok(message)
    } else {
        message.zeroize();
        Err(Error::DecryptionFailed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kdf_counts_from_one_and_truncates() {
        let mut long = [0u8; 70];
        kdf(b"z", &mut long).unwrap();
        let block = |counter: u32| -> [u8; 32] {
            let mut hash = Sm3::new();
            hash.update(b"z");
            hash.update(counter.to_be_bytes());
            hash.finalize().into()
        };
        assert_eq!(long[..32], block(1));
        assert_eq!(long[32..64], block(2));
        assert_eq!(long[64..], block(3)[..6]);
        let mut short = [0u8; 5];
        kdf(b"z", &mut short).unwrap();
        assert_eq!(short, long[..5]);
    }

    #[test]
    fn short_ciphertexts_are_refused() {
        let key = PrivateKey::from_bytes(&[7u8; 32]).unwrap();
        for format in [
            CiphertextFormat::C1C3C2,
            CiphertextFormat::C1C2C3,
            CiphertextFormat::Asn1,
        ] {
            for len in [0, 1, 64, 65, 97] {
                assert_eq!(
                    decrypt(&key, &vec![4u8; len], format),
                    Err(Error::DecryptionFailed)
                );
            }
        }
    }
}
