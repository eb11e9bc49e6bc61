//! SM2 (GB/T 32918-2016, GM/T 0003-2012): public-key cryptography on the elliptic curve
//! curveSM2.
//!
//! - [`PrivateKey`] / [`PublicKey`]: key generation (private scalar in [1, n-2]), SEC 1 points,
//!   PKCS#8 and SubjectPublicKeyInfo in DER and PEM ([`encoding`]).
//! - [`signature`]: signatures over `Z_A ‖ M` with a user ID (GB/T 32918.2), DER or raw `r ‖ s`.
//! - [`encryption`]: the SM3 key derivation function and public-key encryption (GB/T 32918.4)
//!   in the `C1 ‖ C3 ‖ C2` form and the ASN.1 form of GM/T 0009.
//! - [`exchange`]: plain ECDH on curveSM2 (RFC 8998 named group curveSM2) and the key exchange
//!   protocol of GB/T 32918.3 with its optional confirmation hashes.
//!
//! Point arithmetic is our own, on a field specialised to curveSM2's prime (`field.rs`):
//! constant-time multiplications by secret scalars with complete formulas (`point.rs` for
//! `[k]P`, `fixed_base.rs` for `[k]G`), and a variable-time joint multiplication that only
//! signature verification uses, on public inputs (`vartime.rs`). RustCrypto's `sm2` crate
//! provides the scalars modulo n (fiat-crypto, constant-time), point validation and the SEC 1,
//! PKCS#8 and SPKI encodings.

use core::fmt;

use sm2::elliptic_curve::ff::PrimeField;
use sm2::elliptic_curve::ops::Reduce;
use sm2::elliptic_curve::sec1::{FromSec1Point, ToSec1Point};
use sm2::elliptic_curve::subtle::{Choice, ConstantTimeEq};
use sm3::{Digest, Sm3};
use zeroize::Zeroize;

pub(crate) use sm2::{AffinePoint, ProjectivePoint, Scalar};

pub mod encoding;
pub mod encryption;
pub mod exchange;
mod field;
mod fixed_base;
mod point;
pub mod signature;
mod vartime;

pub use encryption::{CiphertextFormat, decrypt, encrypt, kdf};
pub use exchange::{KeyExchange, KeyExchangeRole, SharedKey, ecdh};
pub use signature::{Signature, sign, verify, verify_digest};

/// The default user ID of GM/T 0009-2012 §10 (and RFC 8998 for certificates): the ASCII string
/// `1234567812345678`.
pub const DEFAULT_ID: &[u8] = b"1234567812345678";

/// The user ID used by TLS 1.3 CertificateVerify with sm2sig_sm3 (RFC 8998 §3.2.1).
pub const TLS13_ID: &[u8] = b"TLSv1.3+GM+Cipher+Suite";

/// ENTL is a 16-bit count of the ID's *bits* (GB/T 32918.2 §5.5), so an ID has at most 8191
/// bytes.
pub const MAX_ID_LEN: usize = 8191;

/// Length of an uncompressed SEC 1 point `04 ‖ x ‖ y`.
pub const POINT_LEN: usize = 65;

/// Length of a scalar or a coordinate.
pub const SCALAR_LEN: usize = 32;

/// Why an SM2 operation failed. Carries no secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Not a private key: a scalar outside [1, n-2], or an encoding that does not parse.
    InvalidPrivateKey,
    /// Not a point of curveSM2 other than the point at infinity, or an encoding that does not
    /// parse.
    InvalidPublicKey,
    /// The user ID is longer than [`MAX_ID_LEN`] bytes.
    IdTooLong,
    /// A signature is malformed or does not verify.
    BadSignature,
    /// A ciphertext is malformed, its KDF output is all zero, or its hash `C3` does not match.
    DecryptionFailed,
    /// The message to encrypt is empty (its KDF output could never pass the non-zero check).
    EmptyMessage,
    /// A requested output length is zero or beyond the KDF's limit.
    InvalidLength,
    /// A key-exchange confirmation hash does not match.
    ConfirmationFailed,
    /// DER or PEM does not parse, or names another algorithm or curve.
    Encoding,
    /// The random source failed.
    Random,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::InvalidPrivateKey => "not an SM2 private key",
            Error::InvalidPublicKey => "not a point of curveSM2",
            Error::IdTooLong => "SM2 user ID longer than 8191 bytes",
            Error::BadSignature => "SM2 signature does not verify",
            Error::DecryptionFailed => "SM2 ciphertext does not decrypt",
            Error::EmptyMessage => "SM2 encryption of an empty message",
            Error::InvalidLength => "SM2 KDF output length out of range",
            Error::ConfirmationFailed => "SM2 key-exchange confirmation does not match",
            Error::Encoding => "malformed SM2 DER or PEM",
            Error::Random => "random source failed",
        })
    }
}

impl std::error::Error for Error {}

/// Fills a buffer with random bytes from the caller's approved source (the module's DRBG).
pub trait RandomSource {
    /// Fills `out` entirely or fails.
    fn fill(&mut self, out: &mut [u8]) -> Result<(), Error>;
}

impl<F: FnMut(&mut [u8]) -> Result<(), Error>> RandomSource for F {
    fn fill(&mut self, out: &mut [u8]) -> Result<(), Error> {
        self(out)
    }
}

/// A uniformly random scalar in [1, n-1], or [1, n-2] with `exclude_n_minus_1`, by rejection
/// sampling of 256-bit strings (n > 2^255, so fewer than one draw in 2^32 is rejected).
pub(crate) fn random_scalar(
    random: &mut impl RandomSource,
    exclude_n_minus_1: bool,
) -> Result<Scalar, Error> {
    let mut bytes = [0u8; SCALAR_LEN];
    loop {
        random.fill(&mut bytes)?;
        let candidate = Option::<Scalar>::from(Scalar::from_repr(bytes.into()));
        bytes.zeroize();
        if let Some(mut scalar) = candidate {
            let forbidden = scalar.is_zero()
                | (Choice::from(u8::from(exclude_n_minus_1)) & (scalar + Scalar::ONE).is_zero());
            if !bool::from(forbidden) {
                return Ok(scalar);
            }
            scalar.zeroize();
        }
    }
}

/// An integer below p (a coordinate or a hash) reduced modulo n.
pub(crate) fn reduce(bytes: &[u8; SCALAR_LEN]) -> Scalar {
    <Scalar as Reduce<sm2::FieldBytes>>::reduce(&(*bytes).into())
}

/// `(x, y)` of a point other than the point at infinity.
pub(crate) fn coordinates(point: &AffinePoint) -> ([u8; SCALAR_LEN], [u8; SCALAR_LEN]) {
    let encoded = point.to_sec1_point(false);
    let bytes = encoded.as_bytes();
    let mut x = [0u8; SCALAR_LEN];
    let mut y = [0u8; SCALAR_LEN];
    if bytes.len() == POINT_LEN {
        x.copy_from_slice(&bytes[1..33]);
        y.copy_from_slice(&bytes[33..65]);
    }
    (x, y)
}

/// An SM2 public key: a point of curveSM2 other than the point at infinity (GB/T 32918.1 §6.2
/// validation: on the curve, and since the cofactor is 1, of order n).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey {
    point: AffinePoint,
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut hex = [0u8; 2 * POINT_LEN];
        for (pair, byte) in hex.chunks_exact_mut(2).zip(self.to_uncompressed()) {
            const DIGITS: &[u8; 16] = b"0123456789abcdef";
            pair[0] = DIGITS[usize::from(byte >> 4)];
            pair[1] = DIGITS[usize::from(byte & 15)];
        }
        f.debug_tuple("PublicKey")
            .field(&core::str::from_utf8(&hex).unwrap_or_default())
            .finish()
    }
}

impl PublicKey {
    /// Parses a SEC 1 point: uncompressed `04 ‖ x ‖ y` (as SM2 uses) or compressed `02/03 ‖ x`.
    /// Refuses the point at infinity and points off the curve.
    pub fn from_sec1(bytes: &[u8]) -> Result<PublicKey, Error> {
        // The identity encodes as a single 00 byte; SM2 never accepts it as a key.
        if !matches!(bytes.first(), Some(0x02..=0x04)) {
            return Err(Error::InvalidPublicKey);
        }
        let encoded = sm2::Sec1Point::from_bytes(bytes).map_err(|_| Error::InvalidPublicKey)?;
        let point = Option::<AffinePoint>::from(AffinePoint::from_sec1_point(&encoded))
            .ok_or(Error::InvalidPublicKey)?;
        PublicKey::from_affine(point)
    }

    pub(crate) fn from_affine(point: AffinePoint) -> Result<PublicKey, Error> {
        if bool::from(point.is_identity()) {
            return Err(Error::InvalidPublicKey);
        }
        Ok(PublicKey { point })
    }

    /// The uncompressed SEC 1 encoding `04 ‖ x ‖ y`.
    pub fn to_uncompressed(&self) -> [u8; POINT_LEN] {
        let (x, y) = coordinates(&self.point);
        let mut out = [0u8; POINT_LEN];
        out[0] = 0x04;
        out[1..33].copy_from_slice(&x);
        out[33..].copy_from_slice(&y);
        out
    }

    pub(crate) fn point(&self) -> &AffinePoint {
        &self.point
    }

    /// `Z_A = SM3(ENTL_A ‖ ID_A ‖ a ‖ b ‖ x_G ‖ y_G ‖ x_A ‖ y_A)` (GB/T 32918.2 §5.5), the
    /// hash that binds a user ID and this key into every signature and key exchange.
    pub fn z(&self, id: &[u8]) -> Result<[u8; 32], Error> {
        if id.len() > MAX_ID_LEN {
            return Err(Error::IdTooLong);
        }
        // ≤ 8191 × 8 = 65528 fits in 16 bits.
        let entl = u16::try_from(id.len() * 8).map_err(|_| Error::IdTooLong)?;
        let (x, y) = coordinates(&self.point);
        let mut hash = Sm3::new();
        hash.update(entl.to_be_bytes());
        hash.update(id);
        hash.update(CURVE_A);
        hash.update(CURVE_B);
        hash.update(GENERATOR_X);
        hash.update(GENERATOR_Y);
        hash.update(x);
        hash.update(y);
        Ok(hash.finalize().into())
    }
}

// curveSM2's parameters as they enter Z_A (GB/T 32918.5-2017 §3, recommended curve).
const CURVE_A: [u8; 32] =
    decode_hex32("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFC");
pub(crate) const CURVE_B: [u8; 32] =
    decode_hex32("28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93");
pub(crate) const GENERATOR_X: [u8; 32] =
    decode_hex32("32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7");
pub(crate) const GENERATOR_Y: [u8; 32] =
    decode_hex32("BC3736A2F4F6779C59BDCEE36B692153D0A9877CC62A474002DF32E52139F0A0");

/// Decodes 64 hex digits in a `const` (the crate has no hex dependency).
/// Scalars for the unit tests of the point arithmetic: edge cases (0, 1, small window
/// boundaries, n − 1, n − 2, repeated-byte patterns) followed by `random` reproducible
/// pseudo-random ones (xorshift64 from a fixed seed).
#[cfg(test)]
pub(crate) fn test_scalars(random: usize) -> Vec<Scalar> {
    let n_minus_1 =
        decode_hex32("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54122");
    let mut scalars = vec![
        Scalar::ZERO,
        Scalar::ONE,
        Scalar::from(2u64),
        Scalar::from(15u64),
        Scalar::from(16u64),
        Scalar::from(17u64),
        Scalar::from(31u64),
        Scalar::from(32u64),
        Scalar::from(1u64 << 40),
        reduce(&n_minus_1),
        reduce(&n_minus_1) - Scalar::ONE,
        reduce(&[0xff; 32]),
        reduce(&[0x88; 32]),
        reduce(&[0x10; 32]),
    ];
    let mut state = 0x1234_5678_9abc_def1u64;
    for _ in 0..random {
        let mut bytes = [0u8; 32];
        for byte in bytes.iter_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *byte = state as u8;
        }
        scalars.push(reduce(&bytes));
    }
    scalars
}

pub(crate) const fn decode_hex32(hex: &str) -> [u8; 32] {
    const fn digit(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("not a hex digit"),
        }
    }
    let hex = hex.as_bytes();
    assert!(hex.len() == 64, "expected 64 hex digits");
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (digit(hex[2 * i]) << 4) | digit(hex[2 * i + 1]);
        i += 1;
    }
    out
}

/// An SM2 private key `d` in [1, n-2] with its public key `P = [d]G`. Wiped on drop; its Debug
/// output shows only the public key.
#[derive(Clone)]
pub struct PrivateKey {
    d: Scalar,
    /// `(1 + d)^-1 mod n`, which every signature needs (GB/T 32918.2 §6.1 A6).
    one_plus_d_inverse: Scalar,
    public: PublicKey,
}

impl Drop for PrivateKey {
    fn drop(&mut self) {
        self.d.zeroize();
        self.one_plus_d_inverse.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for PrivateKey {}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl PrivateKey {
    /// Generates a key pair (GB/T 32918.1 §6.1): `d` uniformly in [1, n-2].
    pub fn generate(random: &mut impl RandomSource) -> Result<PrivateKey, Error> {
        let d = random_scalar(random, true)?;
        PrivateKey::from_scalar(d)
    }

    /// A key from its 32-byte big-endian scalar, which must lie in [1, n-2] (n-1 has no
    /// `(1 + d)^-1` and cannot sign).
    pub fn from_bytes(bytes: &[u8]) -> Result<PrivateKey, Error> {
        let bytes: [u8; SCALAR_LEN] = bytes.try_into().map_err(|_| Error::InvalidPrivateKey)?;
        let d = Option::<Scalar>::from(Scalar::from_repr(bytes.into()))
            .ok_or(Error::InvalidPrivateKey)?;
        PrivateKey::from_scalar(d)
    }

    fn from_scalar(mut d: Scalar) -> Result<PrivateKey, Error> {
        let inverse = Option::<Scalar>::from((d + Scalar::ONE).invert());
        let Some(one_plus_d_inverse) = inverse.filter(|_| !bool::from(d.is_zero())) else {
            d.zeroize();
            return Err(Error::InvalidPrivateKey);
        };
        let public = PublicKey::from_affine(fixed_base::mul_by_generator(&d))?;
        Ok(PrivateKey {
            d,
            one_plus_d_inverse,
            public,
        })
    }

    /// The 32-byte big-endian scalar, wiped on drop.
    pub fn to_bytes(&self) -> zeroize::Zeroizing<[u8; SCALAR_LEN]> {
        zeroize::Zeroizing::new(self.d.to_repr().into())
    }

    /// The public key `P = [d]G`.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// `[d]G` computed again from the scalar (constant time), uncompressed: the public-key
    /// recomputation a pairwise consistency test compares with [`PrivateKey::public_key`]
    /// (SP 800-56A Rev. 3 §5.6.2.1.4 (b)).
    pub fn recompute_public_key(&self) -> [u8; POINT_LEN] {
        // d is in [1, n-2], so [d]G is never the identity.
        let (x, y) = fixed_base::mul_by_generator_coordinates(&self.d).unwrap_or_default();
        let mut out = [0u8; POINT_LEN];
        out[0] = 0x04;
        out[1..33].copy_from_slice(&x);
        out[33..].copy_from_slice(&y);
        out
    }

    pub(crate) fn scalar(&self) -> &Scalar {
        &self.d
    }

    pub(crate) fn one_plus_d_inverse(&self) -> &Scalar {
        &self.one_plus_d_inverse
    }
}

impl PartialEq for PrivateKey {
    /// Constant-time in the scalars.
    fn eq(&self, other: &PrivateKey) -> bool {
        self.d.ct_eq(&other.d).into()
    }
}

impl Eq for PrivateKey {}
