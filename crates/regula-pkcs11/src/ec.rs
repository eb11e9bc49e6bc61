//! Elliptic-curve keys as PKCS#11 encodes them (3.0 §2.3): `CKA_EC_PARAMS` the DER OID of a
//! named curve (for Edwards curves also its name as a PrintableString, §2.3.10),
//! `CKA_EC_POINT` the DER OCTET STRING of the uncompressed point (Ed25519: of the 32-byte
//! key), and ECDSA signatures as `r ‖ s`, each half the width of the curve's order. The module
//! takes public keys as DER SubjectPublicKeyInfo, gives and takes ECDSA signatures as DER
//! `SEQUENCE { r, s }`, keeps private keys as PKCS#8 and agrees with a bare scalar; the
//! conversions are here. Private values pass through [`Curve::pkcs8_of_scalar`] and
//! [`Curve::scalar_of_pkcs8`] only, which copy them at public offsets into wiped buffers.

use cryptoki_sys::*;
use regula::Algorithm;
use zeroize::Zeroizing;

/// The named curves whose keys this token makes and uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    P256,
    P384,
    /// edwards25519, for Ed25519 (`CKK_EC_EDWARDS`).
    Ed25519,
    /// curveSM2 (GB/T 32918.5), `CKK_EC` keys served by the vendor SM2 mechanisms
    /// ([`crate::sm2`]).
    Sm2,
}

/// `id-ecPublicKey` (1.2.840.10045.2.1), DER.
const EC_PUBLIC_KEY: [u8; 9] = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
/// prime256v1 / secp256r1 (1.2.840.10045.3.1.7), DER.
const P256_OID: [u8; 10] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/// secp384r1 (1.3.132.0.34), DER.
const P384_OID: [u8; 7] = [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22];
/// curveSM2 (1.2.156.10197.1.301, GM/T 0006), DER.
const SM2_OID: [u8; 10] = [0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d];
/// id-Ed25519 (1.3.101.112, RFC 8410), DER.
const ED25519_OID: [u8; 5] = [0x06, 0x03, 0x2b, 0x65, 0x70];
/// The PrintableString "edwards25519", which PKCS#11 3.0 §2.3.10 allows for the OID.
const ED25519_NAME: &[u8] = b"\x13\x0cedwards25519";
/// An Ed25519 SubjectPublicKeyInfo before the key (RFC 8410 §4).
const ED25519_SPKI_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];
/// An Ed25519 private key's PKCS#8 (RFC 8410 §7, version 1) before its 32 bytes.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

impl Curve {
    pub const ALL: [Curve; 4] = [Curve::P256, Curve::P384, Curve::Ed25519, Curve::Sm2];

    /// `CKA_EC_PARAMS`: the curve's OID, DER.
    pub fn params(self) -> &'static [u8] {
        match self {
            Curve::P256 => &P256_OID,
            Curve::P384 => &P384_OID,
            Curve::Ed25519 => &ED25519_OID,
            Curve::Sm2 => &SM2_OID,
        }
    }

    /// The curve named by `CKA_EC_PARAMS` (an OID, or for edwards25519 its name; explicit
    /// parameters are not taken).
    pub fn from_params(params: &[u8]) -> Option<Curve> {
        if params == ED25519_NAME {
            return Some(Curve::Ed25519);
        }
        Curve::ALL
            .into_iter()
            .find(|curve| curve.params() == params)
    }

    /// `CKA_KEY_TYPE` of the curve's keys.
    pub fn key_type(self) -> CK_KEY_TYPE {
        match self {
            Curve::P256 | Curve::P384 | Curve::Sm2 => CKK_EC,
            Curve::Ed25519 => CKK_EC_EDWARDS,
        }
    }

    /// The mechanism that makes key pairs on the curve.
    pub fn generator(self) -> CK_MECHANISM_TYPE {
        match self {
            Curve::P256 | Curve::P384 => CKM_EC_KEY_PAIR_GEN,
            Curve::Ed25519 => CKM_EC_EDWARDS_KEY_PAIR_GEN,
            Curve::Sm2 => crate::sm2::CKM_KEY_PAIR_GEN,
        }
    }

    /// The module's ECDH algorithm on the curve for `CKM_ECDH1_DERIVE`, if it agrees keys on
    /// it (curveSM2 agrees with its own mechanism, `CKM_REGULA_SM2_ECDH`).
    pub fn ecdh(self) -> Option<Algorithm> {
        match self {
            Curve::P256 => Some(Algorithm::EcdhP256),
            Curve::P384 => Some(Algorithm::EcdhP384),
            Curve::Ed25519 | Curve::Sm2 => None,
        }
    }

    /// Whether the curve's keys sign with ECDSA, whose signatures are `r ‖ s` (converted to and
    /// from DER for the module). SM2 signatures share that form but not the mechanisms.
    pub fn is_ecdsa(self) -> bool {
        matches!(self, Curve::P256 | Curve::P384)
    }

    /// Whether points are uncompressed `04 ‖ x ‖ y` (Weierstrass curves, `CKK_EC`).
    fn uncompressed(self) -> bool {
        self.key_type() == CKK_EC
    }

    /// Bytes of a coordinate (of the key, for Ed25519), and of each half of a signature.
    pub fn width(self) -> usize {
        match self {
            Curve::P256 | Curve::Ed25519 | Curve::Sm2 => 32,
            Curve::P384 => 48,
        }
    }

    /// The order's size in bits (`CK_MECHANISM_INFO` key sizes).
    pub fn bits(self) -> usize {
        self.width() * 8
    }

    /// The module's signature algorithm on this curve: ECDSA (its hash is fixed: SHA-256,
    /// SHA-384), Ed25519 or SM2 (with SM3).
    pub fn ecdsa(self) -> Algorithm {
        match self {
            Curve::P256 => Algorithm::EcdsaP256,
            Curve::P384 => Algorithm::EcdsaP384,
            Curve::Ed25519 => Algorithm::Ed25519,
            Curve::Sm2 => Algorithm::Sm2Sign,
        }
    }

    /// The curve of one of the module's ECDSA (or Ed25519) algorithms.
    pub fn of_ecdsa(algorithm: Algorithm) -> Option<Curve> {
        Curve::ALL
            .into_iter()
            .find(|curve| curve.ecdsa() == algorithm)
    }

    /// The uncompressed point's length: `04 ‖ x ‖ y` (Ed25519: the 32-byte key).
    fn point_len(self) -> usize {
        match self {
            Curve::Ed25519 => 32,
            _ => 1 + 2 * self.width(),
        }
    }

    /// The DER SubjectPublicKeyInfo before the point (whose lengths all fit in one byte).
    fn spki_prefix(self) -> Vec<u8> {
        if self == Curve::Ed25519 {
            return ED25519_SPKI_PREFIX.to_vec();
        }
        let oid = self.params();
        let algorithm_len = EC_PUBLIC_KEY.len() + oid.len();
        let bit_string_len = 1 + self.point_len();
        let total = 2 + algorithm_len + 2 + bit_string_len;
        let mut prefix = vec![0x30, total as u8, 0x30, algorithm_len as u8];
        prefix.extend_from_slice(&EC_PUBLIC_KEY);
        prefix.extend_from_slice(oid);
        prefix.extend_from_slice(&[0x03, bit_string_len as u8, 0x00]);
        prefix
    }

    /// The SubjectPublicKeyInfo of an uncompressed point.
    pub fn spki(self, point: &[u8]) -> Vec<u8> {
        let mut spki = self.spki_prefix();
        spki.extend_from_slice(point);
        spki
    }

    /// The uncompressed point of a SubjectPublicKeyInfo on this curve.
    pub fn point_of_spki(self, spki: &[u8]) -> Option<Vec<u8>> {
        let point = spki.strip_prefix(self.spki_prefix().as_slice())?;
        (point.len() == self.point_len() && (!self.uncompressed() || point[0] == 0x04))
            .then(|| point.to_vec())
    }

    /// `CKA_EC_POINT`: the point as a DER OCTET STRING.
    pub fn ec_point(self, point: &[u8]) -> Vec<u8> {
        let mut encoded = vec![0x04, point.len() as u8];
        encoded.extend_from_slice(point);
        encoded
    }

    /// The uncompressed point of a `CKA_EC_POINT` (DER OCTET STRING, or the bare point that
    /// some applications give).
    pub fn point_of_ec_point(self, ec_point: &[u8]) -> Option<Vec<u8>> {
        let len = self.point_len();
        let point = match ec_point {
            [0x04, n, rest @ ..] if usize::from(*n) == len && rest.len() == len => rest,
            bare if bare.len() == len => bare,
            _ => return None,
        };
        (!self.uncompressed() || point[0] == 0x04).then(|| point.to_vec())
    }

    /// A private key's PKCS#8 from its `CKA_VALUE`: an ECDSA scalar of the curve's width
    /// (RFC 5915's ECPrivateKey, the public key left for the module to compute) or Ed25519's
    /// 32 bytes (RFC 8410). `None`: the wrong length.
    pub fn pkcs8_of_scalar(self, scalar: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        if scalar.len() != self.width() {
            return None;
        }
        let mut pkcs8 = Zeroizing::new(Vec::with_capacity(64 + scalar.len()));
        if self == Curve::Ed25519 {
            pkcs8.extend_from_slice(&ED25519_PKCS8_PREFIX);
            pkcs8.extend_from_slice(scalar);
            return Some(pkcs8);
        }
        // ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING }
        let ec_private_len = 3 + 2 + scalar.len();
        let algorithm_len = EC_PUBLIC_KEY.len() + self.params().len();
        let total = 3 + 2 + algorithm_len + 2 + 2 + ec_private_len;
        pkcs8.extend_from_slice(&[
            0x30,
            total as u8,
            0x02,
            0x01,
            0x00,
            0x30,
            algorithm_len as u8,
        ]);
        pkcs8.extend_from_slice(&EC_PUBLIC_KEY);
        pkcs8.extend_from_slice(self.params());
        pkcs8.extend_from_slice(&[0x04, (2 + ec_private_len) as u8, 0x30, ec_private_len as u8]);
        pkcs8.extend_from_slice(&[0x02, 0x01, 0x01, 0x04, scalar.len() as u8]);
        pkcs8.extend_from_slice(scalar);
        Some(pkcs8)
    }

    /// The private scalar of an ECDSA key's PKCS#8 (RFC 5208 around RFC 5915), left-padded to
    /// the curve's width, as the module's ECDH takes it.
    pub fn scalar_of_pkcs8(self, pkcs8: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        let (body, _) = element(pkcs8, 0x30)?;
        let (_version, body) = element(body, 0x02)?;
        let (_algorithm, body) = element(body, 0x30)?;
        let (private, _) = element(body, 0x04)?;
        let (ec_private, _) = element(private, 0x30)?;
        let (_version, ec_private) = element(ec_private, 0x02)?;
        let (scalar, _) = element(ec_private, 0x04)?;
        if scalar.len() > self.width() {
            return None;
        }
        let mut padded = Zeroizing::new(vec![0u8; self.width()]);
        padded[self.width() - scalar.len()..].copy_from_slice(scalar);
        Some(padded)
    }

    /// A DER `SEQUENCE { r, s }` as PKCS#11's `r ‖ s`.
    pub fn raw_signature(self, der: &[u8]) -> Result<Vec<u8>, CK_RV> {
        let (body, rest) = element(der, 0x30).ok_or(CKR_FUNCTION_FAILED)?;
        if !rest.is_empty() {
            return Err(CKR_FUNCTION_FAILED);
        }
        let (r, body) = element(body, 0x02).ok_or(CKR_FUNCTION_FAILED)?;
        let (s, body) = element(body, 0x02).ok_or(CKR_FUNCTION_FAILED)?;
        if !body.is_empty() {
            return Err(CKR_FUNCTION_FAILED);
        }
        let mut raw = vec![0u8; 2 * self.width()];
        for (half, integer) in raw.chunks_mut(self.width()).zip([r, s]) {
            let digits = strip_zeros(integer);
            if digits.len() > half.len() {
                return Err(CKR_FUNCTION_FAILED);
            }
            let start = half.len() - digits.len();
            half[start..].copy_from_slice(digits);
        }
        Ok(raw)
    }

    /// PKCS#11's `r ‖ s` as DER `SEQUENCE { r, s }`; a wrong length is
    /// `CKR_SIGNATURE_LEN_RANGE`.
    pub fn der_signature(self, raw: &[u8]) -> Result<Vec<u8>, CK_RV> {
        if raw.len() != 2 * self.width() {
            return Err(CKR_SIGNATURE_LEN_RANGE);
        }
        let mut body = Vec::with_capacity(raw.len() + 6);
        for half in raw.chunks(self.width()) {
            let digits = strip_zeros(half);
            let pad = digits.first().is_none_or(|first| first & 0x80 != 0);
            body.push(0x02);
            body.push((digits.len() + usize::from(pad)) as u8);
            if pad {
                body.push(0);
            }
            body.extend_from_slice(digits);
        }
        let mut der = vec![0x30];
        if body.len() >= 0x80 {
            der.push(0x81);
        }
        der.push(body.len() as u8);
        der.extend_from_slice(&body);
        Ok(der)
    }
}

fn strip_zeros(integer: &[u8]) -> &[u8] {
    let start = integer
        .iter()
        .position(|byte| *byte != 0)
        .unwrap_or(integer.len());
    &integer[start..]
}

/// One DER element with tag `tag` at the start of `der`: its contents and what follows (short
/// or one-byte long lengths, which is all a P-256 or P-384 signature needs).
fn element(der: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&first, rest) = der.split_first()?;
    if first != tag {
        return None;
    }
    let (&len, rest) = rest.split_first()?;
    let (len, rest) = match len {
        0..=0x7f => (usize::from(len), rest),
        0x81 => {
            let (&len, rest) = rest.split_first()?;
            (usize::from(len), rest)
        }
        _ => return None,
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_the_named_curves_oids() {
        // RFC 5480 §2.1.1.1: secp256r1 and secp384r1.
        assert_eq!(
            Curve::from_params(&hex_literal::hex!("06082a8648ce3d030107")),
            Some(Curve::P256)
        );
        assert_eq!(
            Curve::from_params(&hex_literal::hex!("06052b81040022")),
            Some(Curve::P384)
        );
        // secp521r1 is not taken.
        assert_eq!(
            Curve::from_params(&hex_literal::hex!("06052b81040023")),
            None
        );
    }

    #[test]
    fn signatures_convert_both_ways() {
        // r with its high bit set (a 0x00 is prepended in DER), s with a leading zero byte.
        let mut raw = vec![0x80; 32];
        raw.extend_from_slice(&[0x00; 1]);
        raw.extend_from_slice(&[0x7f; 31]);
        let der = Curve::P256.der_signature(&raw).unwrap();
        assert_eq!(&der[..5], &[0x30, 0x44, 0x02, 0x21, 0x00]);
        assert_eq!(&der[37..39], &[0x02, 0x1f]);
        assert_eq!(Curve::P256.raw_signature(&der).unwrap(), raw);
        assert_eq!(
            Curve::P256.der_signature(&raw[1..]),
            Err(CKR_SIGNATURE_LEN_RANGE)
        );
        assert_eq!(
            Curve::P256.raw_signature(&der[..der.len() - 1]),
            Err(CKR_FUNCTION_FAILED)
        );
    }
}
