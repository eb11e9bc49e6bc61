//! Just enough X.509 DER to issue SM2 test certificates: rcgen cannot name the SM2-with-SM3
//! algorithm, so `certgen --policy gm` encodes its certificates here (RFC 5280 §4.1) and has
//! the module sign them.

use crate::rfc8998::{SM2_PUBLIC_KEY_ALGORITHM, SM2_WITH_SM3};

fn length(len: usize) -> Vec<u8> {
    match len {
        0..=0x7f => vec![len as u8],
        0x80..=0xff => vec![0x81, len as u8],
        _ => vec![0x82, (len >> 8) as u8, len as u8],
    }
}

/// One TLV.
pub(crate) fn tlv(tag: u8, contents: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend(length(contents.len()));
    out.extend_from_slice(contents);
    out
}

fn sequence(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// A positive INTEGER from big-endian bytes.
fn integer(bytes: &[u8]) -> Vec<u8> {
    let trimmed: &[u8] = {
        let first = bytes
            .iter()
            .position(|&b| b != 0)
            .unwrap_or(bytes.len() - 1);
        &bytes[first..]
    };
    let mut contents = Vec::new();
    if trimmed[0] & 0x80 != 0 {
        contents.push(0);
    }
    contents.extend_from_slice(trimmed);
    tlv(0x02, &contents)
}

fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut contents = vec![0];
    contents.extend_from_slice(bytes);
    tlv(0x03, &contents)
}

const OID_COMMON_NAME: &[u8] = &[0x06, 0x03, 0x55, 0x04, 0x03];
const OID_ORGANIZATION: &[u8] = &[0x06, 0x03, 0x55, 0x04, 0x0a];
const OID_BASIC_CONSTRAINTS: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x13];
const OID_KEY_USAGE: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x0f];
const OID_EXT_KEY_USAGE: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x25];
const OID_SUBJECT_ALT_NAME: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x11];
const OID_SERVER_AUTH: &[u8] = &[0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];
const OID_CLIENT_AUTH: &[u8] = &[0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02];

/// A Name of (OID, UTF8String) attributes, one RDN each.
pub(crate) fn name(attributes: &[(&str, &str)]) -> Vec<u8> {
    let rdns: Vec<Vec<u8>> = attributes
        .iter()
        .map(|(kind, value)| {
            let oid = if *kind == "O" {
                OID_ORGANIZATION
            } else {
                OID_COMMON_NAME
            };
            tlv(
                0x31,
                &sequence(&[oid.to_vec(), tlv(0x0c, value.as_bytes())]),
            )
        })
        .collect();
    sequence(&rdns)
}

fn extension(oid: &[u8], critical: bool, value: Vec<u8>) -> Vec<u8> {
    let mut parts = vec![oid.to_vec()];
    if critical {
        parts.push(vec![0x01, 0x01, 0xff]);
    }
    parts.push(tlv(0x04, &value));
    sequence(&parts)
}

/// What a certificate says about its subject.
pub(crate) struct Profile {
    pub serial: [u8; 16],
    pub issuer: Vec<u8>,
    pub subject: Vec<u8>,
    /// Uncompressed SM2 point, 04‖x‖y.
    pub public_key: Vec<u8>,
    pub ca: bool,
    /// A client certificate (clientAuth, no subject alternative name) rather than a server's.
    pub client: bool,
}

/// The TBSCertificate to be signed.
pub(crate) fn tbs_certificate(profile: &Profile) -> Vec<u8> {
    let algorithm = sequence(&[SM2_WITH_SM3.to_vec()]);
    let validity = sequence(&[tlv(0x17, b"250101000000Z"), tlv(0x18, b"20991231235959Z")]);
    let spki = sequence(&[
        tlv(0x30, SM2_PUBLIC_KEY_ALGORITHM),
        bit_string(&profile.public_key),
    ]);
    let extensions = if profile.ca {
        vec![
            extension(
                OID_BASIC_CONSTRAINTS,
                true,
                sequence(&[vec![0x01, 0x01, 0xff], integer(&[0])]),
            ),
            // keyCertSign and cRLSign.
            extension(OID_KEY_USAGE, true, vec![0x03, 0x02, 0x01, 0x06]),
        ]
    } else if profile.client {
        vec![
            extension(OID_BASIC_CONSTRAINTS, true, sequence(&[])),
            // digitalSignature.
            extension(OID_KEY_USAGE, true, vec![0x03, 0x02, 0x07, 0x80]),
            extension(
                OID_EXT_KEY_USAGE,
                false,
                sequence(&[OID_CLIENT_AUTH.to_vec()]),
            ),
        ]
    } else {
        vec![
            extension(OID_BASIC_CONSTRAINTS, true, sequence(&[])),
            // digitalSignature.
            extension(OID_KEY_USAGE, true, vec![0x03, 0x02, 0x07, 0x80]),
            extension(
                OID_EXT_KEY_USAGE,
                false,
                sequence(&[OID_SERVER_AUTH.to_vec()]),
            ),
            extension(
                OID_SUBJECT_ALT_NAME,
                false,
                sequence(&[tlv(0x82, b"localhost"), tlv(0x87, &[127, 0, 0, 1])]),
            ),
        ]
    };
    sequence(&[
        tlv(0xa0, &integer(&[2])),
        integer(&profile.serial),
        algorithm,
        profile.issuer.clone(),
        validity,
        profile.subject.clone(),
        spki,
        tlv(0xa3, &sequence(&extensions)),
    ])
}

/// The signed certificate: SEQUENCE { tbs, algorithm, BIT STRING signature }.
pub(crate) fn certificate(tbs: &[u8], signature: &[u8]) -> Vec<u8> {
    sequence(&[
        tbs.to_vec(),
        sequence(&[SM2_WITH_SM3.to_vec()]),
        bit_string(signature),
    ])
}

/// One DER element: (tag, contents, rest). Short and long definite lengths only.
fn read_tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let count = (first & 0x7f) as usize;
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let len = rest[..count]
            .iter()
            .fold(0usize, |len, byte| (len << 8) | *byte as usize);
        (len, &rest[count..])
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

/// The subject's common name of a DER certificate, if it has one (bytes as encoded).
pub(crate) fn subject_common_name(der: &[u8]) -> Option<Vec<u8>> {
    let (_, certificate, _) = read_tlv(der)?;
    let (_, tbs, _) = read_tlv(certificate)?;
    let (tag, _, mut rest) = read_tlv(tbs)?;
    // [0] version is optional; then serial, signature, issuer, validity, subject.
    if tag != 0xa0 {
        rest = tbs;
    }
    for _ in 0..4 {
        rest = read_tlv(rest)?.2;
    }
    let (_, subject, _) = read_tlv(rest)?;
    let mut rdns = subject;
    while !rdns.is_empty() {
        let (_, set, next) = read_tlv(rdns)?;
        rdns = next;
        let (_, attribute, _) = read_tlv(set)?;
        let (_, oid, value) = read_tlv(attribute)?;
        if oid == &OID_COMMON_NAME[2..] {
            return read_tlv(value).map(|(_, name, _)| name.to_vec());
        }
    }
    None
}
