//! Elliptic-curve keys as PKCS#11 encodes them (3.0 §2.3): `CKA_EC_PARAMS` the DER OID of a
//! named curve, `CKA_EC_POINT` the DER OCTET STRING of the uncompressed point, and ECDSA
//! signatures as `r ‖ s`, each half the width of the curve's order. The module takes public keys
//! as DER SubjectPublicKeyInfo and gives and takes signatures as DER `SEQUENCE { r, s }`; the
//! conversions are here. Only public values pass through this file.

use cryptoki_sys::*;
use regula::Algorithm;

/// The named curves whose keys this token makes and uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    P256,
    P384,
}

/// `id-ecPublicKey` (1.2.840.10045.2.1), DER.
const EC_PUBLIC_KEY: [u8; 9] = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
/// prime256v1 / secp256r1 (1.2.840.10045.3.1.7), DER.
const P256_OID: [u8; 10] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/// secp384r1 (1.3.132.0.34), DER.
const P384_OID: [u8; 7] = [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22];

impl Curve {
    pub const ALL: [Curve; 2] = [Curve::P256, Curve::P384];

    /// `CKA_EC_PARAMS`: the curve's OID, DER.
    pub fn params(self) -> &'static [u8] {
        match self {
            Curve::P256 => &P256_OID,
            Curve::P384 => &P384_OID,
        }
    }

    /// The curve named by `CKA_EC_PARAMS` (an OID; explicit parameters are not taken).
    pub fn from_params(params: &[u8]) -> Option<Curve> {
        Curve::ALL
            .into_iter()
            .find(|curve| curve.params() == params)
    }

    /// Bytes of a coordinate, and of each half of a signature.
    pub fn width(self) -> usize {
        match self {
            Curve::P256 => 32,
            Curve::P384 => 48,
        }
    }

    /// The order's size in bits (`CK_MECHANISM_INFO` key sizes).
    pub fn bits(self) -> usize {
        self.width() * 8
    }

    /// The module's ECDSA algorithm on this curve (its hash is fixed: SHA-256, SHA-384).
    pub fn ecdsa(self) -> Algorithm {
        match self {
            Curve::P256 => Algorithm::EcdsaP256,
            Curve::P384 => Algorithm::EcdsaP384,
        }
    }

    /// The curve of one of the module's ECDSA algorithms.
    pub fn of_ecdsa(algorithm: Algorithm) -> Option<Curve> {
        Curve::ALL
            .into_iter()
            .find(|curve| curve.ecdsa() == algorithm)
    }

    /// The uncompressed point's length: `04 ‖ x ‖ y`.
    fn point_len(self) -> usize {
        1 + 2 * self.width()
    }

    /// The DER SubjectPublicKeyInfo before the point (whose lengths all fit in one byte).
    fn spki_prefix(self) -> Vec<u8> {
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
        (point.len() == self.point_len() && point[0] == 0x04).then(|| point.to_vec())
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
        (point[0] == 0x04).then(|| point.to_vec())
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
