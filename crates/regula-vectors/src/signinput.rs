//! The Ed25519 reference `sign.input` format (cryptography-vectors `asymmetric/Ed25519/`): one
//! vector per line, `secret||public : public : message : signature||message :` in hex.
//!
//! Each line is checked both ways: the signature must verify under the public key, and signing
//! the message with the secret key (imported as PKCS#8) must give the same signature — Ed25519
//! is deterministic, so this is a signing known-answer test.

use regula::{Algorithm, Module};

use crate::ops;
use crate::tally::{Expect, Outcome, Tally, attempt};
use crate::{FileReport, Format, VectorError};

/// `PrivateKeyInfo { version 0, id-Ed25519, OCTET STRING { OCTET STRING seed } }` (RFC 8410)
/// without the 32-byte seed that follows.
const PKCS8_V1_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

fn fields(line: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = line.trim().split(':').collect();
    let shaped = parts.len() == 5
        && parts[4].is_empty()
        && parts[..4]
            .iter()
            .all(|part| part.chars().all(|c| c.is_ascii_hexdigit()));
    shaped.then_some(parts)
}

/// Whether the text looks like `sign.input` (decided on its first non-empty line).
pub(crate) fn looks_like(text: &str) -> bool {
    text.lines()
        .find(|line| !line.trim().is_empty())
        .and_then(fields)
        .is_some()
}

pub(crate) fn run(module: &Module, label: &str, text: &str) -> Result<FileReport, VectorError> {
    let mut tally = Tally::new(FileReport::new(label, Format::SignInput));
    tally.set_algorithm("ed25519");
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let malformed = |what: &str| VectorError::malformed(label, line_no, what.to_string());
        let parts = fields(line).ok_or_else(|| {
            malformed("expected `secret||public:public:message:signature||message:` in hex")
        })?;
        let decode = |part: &str| hex::decode(part).map_err(|_| malformed("odd-length hex"));
        let secret = decode(parts[0])?;
        let public = decode(parts[1])?;
        let message = decode(parts[2])?;
        let signed = decode(parts[3])?;
        if secret.len() != 64 || public.len() != 32 || signed.len() < 64 {
            return Err(malformed(
                "expected a 64-byte secret key, a 32-byte public key and a 64-byte signature",
            ));
        }
        let signature = &signed[..64];
        let verified = ops::verify(module, "ed25519", &public, &message, signature);
        let outcome = if verified != Outcome::Accepted {
            verified
        } else {
            let mut pkcs8 = PKCS8_V1_PREFIX.to_vec();
            pkcs8.extend_from_slice(&secret[..32]);
            attempt(|| {
                let key = module.signing_key_from_pkcs8(Algorithm::Ed25519, &pkcs8)?;
                let produced = key.sign(&message)?.into_value();
                Ok(if produced == signature {
                    Outcome::Accepted
                } else {
                    Outcome::WrongOutput(
                        "signing with the secret key gives a different signature".to_string(),
                    )
                })
            })
        };
        tally.record(&format!("line {line_no}"), Expect::Valid, outcome);
    }
    Ok(tally.finish())
}
