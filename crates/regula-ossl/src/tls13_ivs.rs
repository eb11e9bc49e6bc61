//! The TLS 1.3 write IVs the provider's TLS13-KDF has just derived (RFC 8446 §7.3:
//! `HKDF-Expand-Label(secret, "iv", "", 12)`), so that an AEAD context can tell libssl's TLS 1.3
//! record nonces from a caller's: a context whose first IV after a key is one of them takes it
//! as the write IV, and the module counts that key's record nonces (cipher.rs, `Tls13Nonces`).
//! Each IV is taken once (a second context starting from it would count the same nonces), and
//! only the last few derived are kept.

use std::collections::VecDeque;
use std::sync::Mutex;

use zeroize::Zeroizing;

/// The TLS 1.3 IV length of every AEAD it uses (RFC 8446 §5.3: max(8, N_MIN) = 12).
pub const IV_LEN: usize = 12;

/// How many derived IVs wait for their context: a handshake derives four (two directions,
/// handshake and application), each taken at its first record.
const KEPT: usize = 64;

static DERIVED: Mutex<VecDeque<Zeroizing<[u8; IV_LEN]>>> = Mutex::new(VecDeque::new());

/// Whether a TLS13-KDF expansion derives a write IV: the label `iv` under TLS 1.3's `tls13 `
/// prefix, no context, 12 bytes.
pub fn is_write_iv(prefix: &[u8], label: &[u8], data: &[u8], len: usize) -> bool {
    prefix == b"tls13 " && label == b"iv" && data.is_empty() && len == IV_LEN
}

/// Keeps a write IV the TLS13-KDF derived.
pub fn record(iv: &[u8]) {
    let Ok(iv) = <[u8; IV_LEN]>::try_from(iv) else {
        return;
    };
    let mut derived = DERIVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if derived.len() == KEPT {
        derived.pop_front();
    }
    derived.push_back(Zeroizing::new(iv));
}

/// Whether `iv` is a write IV the TLS13-KDF derived and no context has taken yet; takes it.
pub fn take(iv: &[u8]) -> bool {
    let mut derived = DERIVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // Compared in constant time: the IV is derived from a traffic secret.
    let found = derived
        .iter()
        .position(|kept| regula::equal_in_constant_time(&kept[..], iv));
    match found {
        Some(index) => {
            derived.remove(index);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_derived_iv_is_taken_once() {
        let iv = [0x3cu8; IV_LEN];
        assert!(!take(&iv));
        record(&iv);
        assert!(take(&iv));
        assert!(!take(&iv));
    }

    #[test]
    fn only_write_iv_expansions_count() {
        assert!(is_write_iv(b"tls13 ", b"iv", b"", 12));
        assert!(!is_write_iv(b"tls13 ", b"key", b"", 12));
        assert!(!is_write_iv(b"tls13 ", b"iv", b"", 16));
        assert!(!is_write_iv(b"dtls13", b"iv", b"", 12));
    }
}
