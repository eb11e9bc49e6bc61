//! The DER SubjectPublicKeyInfo of a key named by a NIST algorithm identifier
//! (2.16.840.1.101.3.4.*) with absent parameters: how ML-DSA and ML-KEM public keys are
//! recorded on the token and given as `CKA_PUBLIC_KEY_INFO`.

/// The bytes before the key: `SEQUENCE { SEQUENCE { OID 2.16.840.1.101.3.4.<arc>.<member> },
/// BIT STRING (no unused bits) }`, both lengths in two bytes (keys of 256 to 65,000 bytes).
pub fn nist_prefix(arc: u8, member: u8, key_len: usize) -> [u8; 22] {
    let bit_string = key_len + 1;
    let total = 13 + 4 + bit_string;
    [
        0x30,
        0x82,
        (total >> 8) as u8,
        total as u8,
        0x30,
        0x0b,
        0x06,
        0x09,
        0x60,
        0x86,
        0x48,
        0x01,
        0x65,
        0x03,
        0x04,
        arc,
        member,
        0x03,
        0x82,
        (bit_string >> 8) as u8,
        bit_string as u8,
        0x00,
    ]
}

/// The SubjectPublicKeyInfo of `key` after `prefix`.
pub fn with_prefix(prefix: &[u8], key: &[u8]) -> Vec<u8> {
    let mut spki = prefix.to_vec();
    spki.extend_from_slice(key);
    spki
}

/// The key of `spki` if it starts with `prefix` and holds exactly `key_len` bytes.
pub fn key_of(prefix: &[u8], spki: &[u8], key_len: usize) -> Option<Vec<u8>> {
    let key = spki.strip_prefix(prefix)?;
    (key.len() == key_len).then(|| key.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first 22 bytes of the example public keys in the IETF LAMPS documents, as their
    /// PEM begins: ML-DSA-44 `MIIFMjALBglghkgBZQMEAxEDggUhA` (RFC 9881 Appendix C) and
    /// ML-KEM-768 `MIIEsjALBglghkgBZQMEBAIDggShAA` (the ML-KEM certificates draft's example).
    #[test]
    fn prefixes_match_the_lamps_examples() {
        let ml_dsa_44 = [
            0x30, 0x82, 0x05, 0x32, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03,
            0x04, 0x03, 0x11, 0x03, 0x82, 0x05, 0x21, 0x00,
        ];
        assert_eq!(nist_prefix(0x03, 0x11, 1312), ml_dsa_44);
        let ml_kem_768 = [
            0x30, 0x82, 0x04, 0xb2, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03,
            0x04, 0x04, 0x02, 0x03, 0x82, 0x04, 0xa1, 0x00,
        ];
        assert_eq!(nist_prefix(0x04, 0x02, 1184), ml_kem_768);
        let spki = with_prefix(&ml_kem_768, &[7; 1184]);
        assert_eq!(key_of(&ml_kem_768, &spki, 1184), Some(vec![7; 1184]));
        assert_eq!(key_of(&ml_kem_768, &spki[..spki.len() - 1], 1184), None);
        assert_eq!(key_of(&ml_dsa_44, &spki, 1184), None);
    }
}
