//! The TLS 1.2 GCM record nonce built inside the module (RFC 5288 §3; SP 800-38D §8.2.1's
//! deterministic construction; FIPS 140-3 IG C.H, TLS 1.2 scenario): a 4-byte fixed field
//! from the handshake (`client_write_IV` or `server_write_IV`), then an 8-byte invocation
//! field (`nonce_explicit`, sent in each record) that the module counts itself, starting
//! from a value its generator draws and refusing to go on once every value has been used under
//! the key. No caller chooses the nonce, so sealing has the approval of a module-generated IV,
//! where [`AeadKey::seal_with_nonce`] with the same bytes would be a caller's nonce.

use zeroize::Zeroize;

use crate::algorithm::{Algorithm, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::service::aead::{AeadKey, NONCE_LEN};

/// The fixed field of a TLS 1.2 GCM nonce (RFC 5288 §3: `salt`).
pub const TLS12_FIXED_LEN: usize = 4;
/// The explicit part each record carries (RFC 5288 §3: `nonce_explicit`).
pub const TLS12_EXPLICIT_LEN: usize = 8;

/// Seals TLS 1.2 GCM records under one key, with the nonces it builds (see the module
/// documentation). It owns the key, so that one invocation counter serves exactly one key;
/// it cannot be cloned (a copy would repeat nonces).
pub struct Tls12GcmSealer {
    key: AeadKey,
    fixed: [u8; TLS12_FIXED_LEN],
    /// The next `nonce_explicit`, as a 64-bit big-endian number (it wraps modulo 2^64).
    next: u64,
    /// How many more records this key may seal: 2^64 − 1 at the start, so the counter never
    /// comes back to a value it has given.
    remaining: u64,
}

impl std::fmt::Debug for Tls12GcmSealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls12GcmSealer")
            .field("algorithm", &self.key.algorithm())
            .field("remaining", &self.remaining)
            .finish_non_exhaustive()
    }
}

impl AeadKey {
    /// Turns this key into a TLS 1.2 record sealer with the handshake's 4-byte fixed IV.
    /// GCM keys only (AES-128/256-GCM, SM4-GCM) with their full 16-byte tag.
    pub fn into_tls12_gcm_sealer(self, fixed: &[u8]) -> Result<Tls12GcmSealer> {
        let mut start = [0u8; TLS12_EXPLICIT_LEN];
        self.module.internal_random(&mut start)?;
        Tls12GcmSealer::new(self, fixed, u64::from_be_bytes(start), u64::MAX)
    }
}

impl Tls12GcmSealer {
    fn new(key: AeadKey, fixed: &[u8], next: u64, remaining: u64) -> Result<Tls12GcmSealer> {
        let algorithm = key.algorithm();
        if !matches!(
            algorithm,
            Algorithm::Aes128Gcm | Algorithm::Aes256Gcm | Algorithm::Sm4Gcm
        ) {
            return Err(Error::invalid_input(format!(
                "{algorithm}: the TLS 1.2 record nonce construction is for GCM only"
            )));
        }
        if key.tag_len() != 16 {
            return Err(Error::invalid_input(format!(
                "{algorithm}: TLS 1.2 records carry a 16-byte tag"
            )));
        }
        let fixed: [u8; TLS12_FIXED_LEN] = fixed.try_into().map_err(|_| {
            Error::invalid_input(format!(
                "{algorithm}: the TLS 1.2 fixed IV must be {TLS12_FIXED_LEN} bytes, got {}",
                fixed.len()
            ))
        })?;
        Ok(Tls12GcmSealer {
            key,
            fixed,
            next,
            remaining,
        })
    }

    pub fn algorithm(&self) -> Algorithm {
        self.key.algorithm()
    }

    /// The key, for opening the peer's records or anything else it serves.
    pub fn key(&self) -> &AeadKey {
        &self.key
    }

    /// Seals one record: encrypts `in_out` in place with `aad` (TLS 1.2's 13-byte additional
    /// data), writes the 16-byte tag to `tag`, and returns the `nonce_explicit` to send before
    /// the ciphertext. Refuses once the key has sealed 2^64 − 1 records. On failure `in_out`
    /// and `tag` are wiped.
    pub fn seal(
        &mut self,
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<Served<[u8; TLS12_EXPLICIT_LEN]>> {
        let result = self.seal_inner(aad, in_out, tag);
        if result.is_err() {
            in_out.zeroize();
            tag.zeroize();
        }
        result
    }

    fn seal_inner(
        &mut self,
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<Served<[u8; TLS12_EXPLICIT_LEN]>> {
        let key = &self.key;
        key.module.ensure_operational()?;
        key.check_tag_slot(tag.len())?;
        if self.remaining == 0 {
            return Err(Error::invalid_input(format!(
                "{}: this key has sealed 2^64 - 1 TLS records; the invocation counter would \
                 repeat (SP 800-38D §8.3): renegotiate a key",
                key.algorithm()
            )));
        }
        let explicit = self.next.to_be_bytes();
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..TLS12_FIXED_LEN].copy_from_slice(&self.fixed);
        nonce[TLS12_FIXED_LEN..].copy_from_slice(&explicit);
        // The counter moves before the seal: a failed seal never leaves a nonce to reuse.
        self.remaining -= 1;
        self.next = self.next.wrapping_add(1);
        key.backend.seal_detached(&nonce, aad, in_out, tag)?;
        Ok(key
            .module
            .serve(key.algorithm(), Service::Encrypt, key.approval, explicit))
    }
}

#[cfg(test)]
mod tests {
    use hex_literal::hex;

    use super::*;
    use crate::{Module, Policy, Profile};

    /// The GCM specification's test case 4 (McGrew and Viega, "The Galois/Counter Mode of
    /// Operation", 2005; the same bytes from pyca/cryptography): IV `cafebabe ‖ facedbaddecaf888`
    /// is a TLS 1.2 nonce with fixed field `cafebabe` and explicit part `facedbaddecaf888`.
    #[test]
    fn reproduces_gcm_test_case_4_and_counts() {
        let module = Module::load(Policy::builtin(Profile::Default));
        let key = module
            .aead_key(
                Algorithm::Aes128Gcm,
                &hex!("feffe9928665731c6d6a8f9467308308"),
            )
            .unwrap();
        let mut sealer =
            Tls12GcmSealer::new(key, &hex!("cafebabe"), 0xfacedbaddecaf888, u64::MAX).unwrap();
        let aad = hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2");
        let plaintext = hex!(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
            "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
        );
        let mut in_out = plaintext.to_vec();
        let mut tag = [0u8; 16];
        let explicit = sealer.seal(&aad, &mut in_out, &mut tag).unwrap();
        assert_eq!(*explicit, hex!("facedbaddecaf888"));
        assert_eq!(
            in_out,
            hex!(
                "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
            )
        );
        assert_eq!(tag, hex!("5bc94fbc3221a5db94fae95ae7121a47"));

        // The next record's nonce is the next count, and opens under fixed ‖ explicit.
        let mut second = plaintext.to_vec();
        let explicit = sealer.seal(b"", &mut second, &mut tag).unwrap();
        assert_eq!(*explicit, hex!("facedbaddecaf889"));
        let nonce = [&hex!("cafebabe")[..], &explicit[..]].concat();
        sealer
            .key()
            .open_detached(&nonce, b"", &mut second, &tag)
            .unwrap();
        assert_eq!(second, plaintext);
    }

    /// The counter wraps modulo 2^64 but never gives a value twice: after 2^64 − 1 records the
    /// sealer refuses, and the refused record leaves nothing behind.
    #[test]
    fn refuses_to_repeat_a_nonce() {
        let module = Module::load(Policy::builtin(Profile::Default));
        let key = module.aead_key(Algorithm::Aes256Gcm, &[7; 32]).unwrap();
        let mut sealer = Tls12GcmSealer::new(key, &[1, 2, 3, 4], u64::MAX, 2).unwrap();
        let mut tag = [0u8; 16];
        let first = sealer.seal(b"aad", &mut [5; 20], &mut tag).unwrap();
        assert_eq!(*first, u64::MAX.to_be_bytes());
        let second = sealer.seal(b"aad", &mut [5; 20], &mut tag).unwrap();
        assert_eq!(*second, [0; 8], "wraps modulo 2^64");
        let mut record = [5u8; 20];
        assert!(matches!(
            sealer.seal(b"aad", &mut record, &mut tag),
            Err(Error::InvalidInput { .. })
        ));
        assert_eq!(record, [0; 20], "the refused record is wiped");
        assert_eq!(tag, [0; 16]);
    }

    /// Under fips-140-3 a caller's GCM nonce is refused (IG C.H), while the TLS 1.2
    /// construction the module counts is served and approved; the random start differs per
    /// sealer.
    #[test]
    fn fips_approves_the_module_built_tls_nonce() {
        let module = Module::load(Policy::builtin(Profile::Fips1403));
        let key = module.aead_key(Algorithm::Aes256Gcm, &[7; 32]).unwrap();
        let mut tag = [0u8; 16];
        assert!(matches!(
            key.seal_detached_with_nonce(&[0; 12], b"", &mut [0; 16], &mut tag),
            Err(Error::NotApproved { .. })
        ));
        let mut sealer = key.into_tls12_gcm_sealer(&[9; 4]).unwrap();
        let served = sealer.seal(b"aad", &mut [0; 16], &mut tag).unwrap();
        assert!(served.is_approved());
        let other = module
            .aead_key(Algorithm::Aes256Gcm, &[7; 32])
            .unwrap()
            .into_tls12_gcm_sealer(&[9; 4])
            .unwrap()
            .seal(b"aad", &mut [0; 16], &mut tag)
            .unwrap();
        assert_ne!(
            *served, *other,
            "each sealer starts from its own random count"
        );
    }

    #[test]
    fn refuses_other_aeads_and_fixed_lengths() {
        let module = Module::load(Policy::builtin(Profile::Default));
        let chacha = module
            .aead_key(Algorithm::ChaCha20Poly1305, &[7; 32])
            .unwrap();
        assert!(matches!(
            chacha.into_tls12_gcm_sealer(&[0; 4]),
            Err(Error::InvalidInput { .. })
        ));
        let gcm = module.aead_key(Algorithm::Aes128Gcm, &[7; 16]).unwrap();
        assert!(matches!(
            gcm.into_tls12_gcm_sealer(&[0; 12]),
            Err(Error::InvalidInput { .. })
        ));
    }
}
