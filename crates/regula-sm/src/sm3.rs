//! SM3 (GB/T 32905-2016, GM/T 0004-2012) and HMAC-SM3 (RFC 2104 with SM3, GM/T 0042-2015).
//!
//! The compression function comes from the RustCrypto `sm3` crate, a vetted implementation;
//! this module gives it the small, stable surface the rest of Regula uses. Hash and HMAC states
//! are wiped when dropped.

use hmac::{KeyInit, Mac};
use sm3::Digest;

/// SM3 digest length in bytes.
pub const OUTPUT_LEN: usize = 32;

/// An incremental SM3 computation.
#[derive(Clone, Default)]
pub struct Sm3(sm3::Sm3);

impl Sm3 {
    /// A fresh hash state.
    pub fn new() -> Sm3 {
        Sm3::default()
    }

    /// Absorbs more of the message.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> [u8; OUTPUT_LEN] {
        self.0.finalize().into()
    }
}

impl std::fmt::Debug for Sm3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sm3")
    }
}

/// SM3 of `data` in one call.
pub fn sm3(data: &[u8]) -> [u8; OUTPUT_LEN] {
    let mut hash = Sm3::new();
    hash.update(data);
    hash.finalize()
}

/// An incremental HMAC-SM3 computation, keyed once and cloned per message if needed.
#[derive(Clone)]
pub struct HmacSm3(hmac::Hmac<sm3::Sm3>);

impl HmacSm3 {
    /// HMAC accepts keys of any length (RFC 2104 §2: longer keys are hashed first); the error
    /// exists only because the underlying trait is shared with fixed-length-key MACs.
    pub fn new(key: &[u8]) -> Result<HmacSm3, crate::Error> {
        hmac::Hmac::<sm3::Sm3>::new_from_slice(key)
            .map(HmacSm3)
            .map_err(|_| crate::Error::InvalidLength { len: key.len() })
    }

    /// Absorbs more of the message.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The full 32-byte tag.
    pub fn finalize(self) -> [u8; OUTPUT_LEN] {
        self.0.finalize().into_bytes().into()
    }
}

impl std::fmt::Debug for HmacSm3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HmacSm3")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// GB/T 32905-2016 Appendix A, examples 1 ("abc") and 2 ("abcd" × 16).
    #[test]
    fn standard_examples() {
        assert_eq!(
            hex(&sm3(b"abc")),
            "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
        );
        assert_eq!(
            hex(&sm3(&b"abcd".repeat(16))),
            "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
        );
    }

    #[test]
    fn incremental_equals_one_shot_at_every_split() {
        let data: Vec<u8> = (0..200u8).collect();
        for split in 0..=data.len() {
            let mut hash = Sm3::new();
            hash.update(&data[..split]);
            hash.update(&data[split..]);
            assert_eq!(hash.finalize(), sm3(&data), "split at {split}");
        }
    }
}
