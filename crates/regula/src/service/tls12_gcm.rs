//! The TLS 1.2 GCM record nonce built inside the module (RFC 5288 §3; SP 800-38D §8.2.1's
//! deterministic construction; FIPS 140-3 IG C.H, TLS 1.2 scenario): a 4-byte fixed field
//! from the handshake (`client_write_IV` or `server_write_IV`), then an 8-byte invocation
//! field (`nonce_explicit`, sent in each record) that the module counts itself, starting
//! from a value its generator draws and refusing to go on once every value has been used under
//! the key. No caller chooses the nonce, so sealing has the approval of a module-generated IV,
//! where [`AeadKey::seal_with_nonce`] with the same bytes would be a caller's nonce.
//!
//! AES-CCM's TLS 1.2 suites (RFC 6655 §3, RFC 7251) build their nonce the same way (`salt(4) ‖
//! nonce_explicit(8)`, the explicit part distinct per record), with a 16- or 8-byte tag: the
//! same sealer serves them.

use zeroize::Zeroize;

use crate::algorithm::{Algorithm, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::service::aead::{AeadKey, NONCE_LEN};
use crate::service::aead_stream::AeadStream;

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
    /// GCM keys (AES-128/256-GCM, SM4-GCM) with their full 16-byte tag, and CCM keys
    /// (AES-128/256-CCM, SM4-CCM) with a 16- or 8-byte tag (RFC 6655's CCM and CCM_8).
    pub fn into_tls12_gcm_sealer(self, fixed: &[u8]) -> Result<Tls12GcmSealer> {
        let mut start = [0u8; TLS12_EXPLICIT_LEN];
        self.module.internal_random(&mut start)?;
        Tls12GcmSealer::new(self, fixed, u64::from_be_bytes(start), u64::MAX)
    }
}

impl Tls12GcmSealer {
    fn new(key: AeadKey, fixed: &[u8], next: u64, remaining: u64) -> Result<Tls12GcmSealer> {
        let algorithm = key.algorithm();
        let ccm = matches!(
            algorithm,
            Algorithm::Aes128Ccm | Algorithm::Aes256Ccm | Algorithm::Sm4Ccm
        );
        if !ccm
            && !matches!(
                algorithm,
                Algorithm::Aes128Gcm | Algorithm::Aes256Gcm | Algorithm::Sm4Gcm
            )
        {
            return Err(Error::invalid_input(format!(
                "{algorithm}: the TLS 1.2 record nonce construction is for GCM and CCM only"
            )));
        }
        // RFC 5288 and RFC 6655: a 16-byte tag; RFC 6655's CCM_8 suites an 8-byte one.
        if !(key.tag_len() == 16 || ccm && key.tag_len() == 8) {
            return Err(Error::invalid_input(format!(
                "{algorithm}: TLS 1.2 records carry a 16-byte tag (CCM: 16 or 8), not {}",
                key.tag_len()
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

    /// Starts encrypting one message in a stream under the next nonce (`fixed ‖ count`), and
    /// returns the invocation field with it: OpenSSL's `EVP_CTRL_GCM_IV_GEN` (`tlsivgen`),
    /// with the approval of a module-built nonce as [`Tls12GcmSealer::seal`]. `spare`, a
    /// finished encryption stream this sealer's key started, is restarted rather than
    /// rebuilt. GCM only (CCM needs the whole message at once). Refuses, as `seal` does,
    /// once the key has sealed 2^64 − 1 messages.
    pub fn encrypt_stream(
        &mut self,
        spare: Option<AeadStream>,
    ) -> Result<([u8; TLS12_EXPLICIT_LEN], AeadStream)> {
        let key = &self.key;
        key.module.ensure_operational()?;
        if !matches!(
            key.algorithm(),
            Algorithm::Aes128Gcm | Algorithm::Aes256Gcm | Algorithm::Sm4Gcm
        ) {
            return Err(Error::invalid_input(format!(
                "{}: a streamed TLS 1.2 message is served for GCM only",
                key.algorithm()
            )));
        }
        let nonce = self.take_nonce()?;
        let mut explicit = [0u8; TLS12_EXPLICIT_LEN];
        explicit.copy_from_slice(&nonce[TLS12_FIXED_LEN..]);
        let key = &self.key;
        let mut stream = match spare {
            Some(mut stream) if stream.is_encrypting() => {
                key.restart_with_approval(&mut stream, &nonce, key.approval)?;
                stream
            }
            _ => key.encrypt_stream_with_approval(&nonce, key.approval)?,
        };
        stream.module_nonce = true;
        Ok((explicit, stream))
    }

    /// The next nonce; the counter moves first, so that a failure never leaves it to reuse.
    fn take_nonce(&mut self) -> Result<[u8; NONCE_LEN]> {
        if self.remaining == 0 {
            return Err(Error::invalid_input(format!(
                "{}: this key has sealed 2^64 - 1 TLS records; the invocation counter would \
                 repeat (SP 800-38D §8.3): renegotiate a key",
                self.key.algorithm()
            )));
        }
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..TLS12_FIXED_LEN].copy_from_slice(&self.fixed);
        nonce[TLS12_FIXED_LEN..].copy_from_slice(&self.next.to_be_bytes());
        self.remaining -= 1;
        self.next = self.next.wrapping_add(1);
        Ok(nonce)
    }

    fn seal_inner(
        &mut self,
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<Served<[u8; TLS12_EXPLICIT_LEN]>> {
        self.key.module.ensure_operational()?;
        self.key.check_tag_slot(tag.len())?;
        let nonce = self.take_nonce()?;
        let mut explicit = [0u8; TLS12_EXPLICIT_LEN];
        explicit.copy_from_slice(&nonce[TLS12_FIXED_LEN..]);
        let key = &self.key;
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

    /// SP 800-38C Appendix C, Example 3 (AES-128-CCM, 12-byte nonce, 8-byte tag): nonce
    /// `10111213 ‖ 1415161718191a1b` is a TLS 1.2 CCM_8 nonce (RFC 6655 §3) with fixed field
    /// `10111213` and explicit part `1415161718191a1b`.
    #[test]
    fn reproduces_sp_800_38c_example_3_as_a_ccm_8_record() {
        let module = Module::load(Policy::builtin(Profile::Default));
        let key = module
            .aead_key_with_tag_len(
                Algorithm::Aes128Ccm,
                &hex!("404142434445464748494a4b4c4d4e4f"),
                8,
            )
            .unwrap();
        let mut sealer =
            Tls12GcmSealer::new(key, &hex!("10111213"), 0x1415161718191a1b, u64::MAX).unwrap();
        let mut in_out = hex!("202122232425262728292a2b2c2d2e2f3031323334353637");
        let mut tag = [0u8; 8];
        let explicit = sealer
            .seal(
                &hex!("000102030405060708090a0b0c0d0e0f10111213"),
                &mut in_out,
                &mut tag,
            )
            .unwrap();
        assert_eq!(*explicit, hex!("1415161718191a1b"));
        assert_eq!(
            in_out,
            hex!("e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5")
        );
        assert_eq!(tag, hex!("484392fbc1b09951"));
    }

    /// A streamed message takes the next count, as `EVP_CTRL_GCM_IV_GEN` would: GCM test case
    /// 4's record again, sealed in two pieces, then the following count; approved under
    /// fips-140-3 as a module-built nonce. CCM, which cannot stream, is refused.
    #[test]
    fn streams_gcm_test_case_4_under_the_next_count() {
        let module = Module::load(Policy::builtin(Profile::Fips1403));
        let key = module
            .aead_key(
                Algorithm::Aes128Gcm,
                &hex!("feffe9928665731c6d6a8f9467308308"),
            )
            .unwrap();
        let mut sealer =
            Tls12GcmSealer::new(key, &hex!("cafebabe"), 0xfacedbaddecaf888, u64::MAX).unwrap();
        let (explicit, mut stream) = sealer.encrypt_stream(None).unwrap();
        assert_eq!(explicit, hex!("facedbaddecaf888"));
        assert!(stream.approval().is_approved());
        stream
            .aad(&hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2"))
            .unwrap();
        let mut text = hex!(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
            "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
        );
        let (first, second) = text.split_at_mut(17);
        stream.update_in_place(first).unwrap();
        stream.update_in_place(second).unwrap();
        let tag = stream.finish_encrypt().unwrap();
        assert!(tag.indicator().is_approved());
        assert_eq!(
            text,
            hex!(
                "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
            )
        );
        assert_eq!(tag.as_ref(), hex!("5bc94fbc3221a5db94fae95ae7121a47"));
        let (next, _) = sealer.encrypt_stream(Some(stream)).unwrap();
        assert_eq!(next, hex!("facedbaddecaf889"));

        let ccm = Module::load(Policy::builtin(Profile::Default))
            .aead_key(Algorithm::Aes256Ccm, &[7; 32])
            .unwrap();
        let mut sealer = ccm.into_tls12_gcm_sealer(&[0; 4]).unwrap();
        assert!(matches!(
            sealer.encrypt_stream(None),
            Err(Error::InvalidInput { .. })
        ));
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
        let ccm_12 = module
            .aead_key_with_tag_len(Algorithm::Aes128Ccm, &[7; 16], 12)
            .unwrap();
        assert!(matches!(
            ccm_12.into_tls12_gcm_sealer(&[0; 4]),
            Err(Error::InvalidInput { .. })
        ));
        let gcm = module.aead_key(Algorithm::Aes128Gcm, &[7; 16]).unwrap();
        assert!(matches!(
            gcm.into_tls12_gcm_sealer(&[0; 12]),
            Err(Error::InvalidInput { .. })
        ));
    }
}
