//! Authenticated encryption: AES-GCM, AES-CCM and ChaCha20-Poly1305 (AWS-LC), SM4-GCM and
//! SM4-CCM (regula-sm, RFC 8998's AEADs).

use zeroize::Zeroize;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::aead::{self as backend, AeadBackend};
use crate::service::nonce_sequence::NonceSequence;
use crate::service::wipe_and_fail;

/// The nonce the module generates, and the only one most AEADs here take: 96 bits
/// (SP 800-38D §8.2, RFC 8439 §2.8, RFC 8998 §4). AES-CCM takes 7 to 13 bytes (SP 800-38C).
pub const NONCE_LEN: usize = 12;

/// The default tag: 128 bits. AES-CCM also takes 4 to 14 bytes (even), see
/// [`Module::aead_key_with_tag_len`].
const TAG_LEN: usize = 16;

/// SP 800-38C §A.1: CCM nonces of 7 to 13 bytes; the message length field gets the rest.
const CCM_NONCE_LENS: std::ops::RangeInclusive<usize> = 7..=13;

/// Length of the random prefix of a STREAM nonce ([`StreamPrefix`]).
pub const STREAM_PREFIX_LEN: usize = 7;

/// The random prefix of the nonces of one stream in the STREAM construction (Hoang,
/// Reyhanitabar, Rogaway, Vizár, "Online Authenticated-Encryption and its Nonce-Reuse
/// Misuse-Resistance", CRYPTO 2015): segment *i* is sealed under
/// `prefix(7) ‖ i (32-bit big-endian) ‖ last-segment flag (1)` ([`stream_nonce`]).
///
/// Only [`Module::stream_prefix`] makes one, from the module's DRBG, so that
/// [`AeadKey::seal_stream_segment_into`] seals under a nonce the module built (SP 800-38D
/// §8.2.1's deterministic construction: a random fixed field, then an invocation field). The
/// encrypted-file format (`regula_files::file_format`) stores it in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamPrefix([u8; STREAM_PREFIX_LEN]);

impl StreamPrefix {
    pub fn bytes(&self) -> [u8; STREAM_PREFIX_LEN] {
        self.0
    }
}

/// The nonce of segment `counter` of a stream: `prefix ‖ counter (32-bit big-endian) ‖ 0x01`
/// for the last segment, else `0x00`. A reader rebuilds it from the stored prefix to open the
/// segment with [`AeadKey::open_into`].
pub fn stream_nonce(prefix: &[u8; STREAM_PREFIX_LEN], counter: u32, last: bool) -> [u8; NONCE_LEN] {
    let mut nonce = [0u8; NONCE_LEN];
    nonce[..STREAM_PREFIX_LEN].copy_from_slice(prefix);
    nonce[STREAM_PREFIX_LEN..NONCE_LEN - 1].copy_from_slice(&counter.to_be_bytes());
    nonce[NONCE_LEN - 1] = u8::from(last);
    nonce
}

impl Module {
    /// A fresh random [`StreamPrefix`] from AWS-LC's DRBG (see [`Module::fill_key_material`]).
    pub fn stream_prefix(&self) -> Result<StreamPrefix> {
        let mut prefix = [0u8; STREAM_PREFIX_LEN];
        self.fill_key_material(&mut prefix)?;
        Ok(StreamPrefix(prefix))
    }
}

/// Ciphertext with the nonce the module chose for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed {
    pub nonce: [u8; NONCE_LEN],
    /// Ciphertext followed by the tag.
    pub ciphertext: Vec<u8>,
}

/// An AEAD key bound to a module.
pub struct AeadKey {
    pub(super) module: Module,
    algorithm: Algorithm,
    /// Approval for encryption with a module-generated nonce.
    pub(super) approval: Approval,
    pub(super) backend: AeadBackend,
    tag_len: usize,
    /// The nonces this key makes (see [`NonceSequence`]): for SM4-GCM and SM4-CCM under every
    /// generator, for every AEAD under a GM/T 0105 generator. `None`: AES-GCM's nonce comes
    /// from AWS-LC (inside its boundary), ChaCha20-Poly1305's from AWS-LC's generator.
    nonce_sequence: Option<NonceSequence>,
    /// Tells this key apart from every other in the process, so that
    /// [`AeadKey::restart_stream`] takes only streams this key started.
    pub(super) identity: u64,
}

/// The next [`AeadKey::identity`].
static NEXT_KEY_IDENTITY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl std::fmt::Debug for AeadKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AeadKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl Module {
    /// Binds an AEAD key (16 or 32 bytes as the algorithm requires) with a 16-byte tag.
    pub fn aead_key(&self, algorithm: Algorithm, key: &[u8]) -> Result<AeadKey> {
        self.aead_key_with_tag_len(algorithm, key, TAG_LEN)
    }

    /// Binds an AEAD key with a shorter tag: AES-CCM takes 4, 6, 8, 10, 12, 14 or 16 bytes
    /// (SP 800-38C §A.1; RFC 4309 uses 8, 12 and 16); every other AEAD here only 16.
    pub fn aead_key_with_tag_len(
        &self,
        algorithm: Algorithm,
        key: &[u8],
        tag_len: usize,
    ) -> Result<AeadKey> {
        let approval = self.authorize(algorithm, Family::Aead, &Usage::default())?;
        let tag_allowed = if backend::is_aes_ccm(algorithm) {
            (4..=16).contains(&tag_len) && tag_len.is_multiple_of(2)
        } else {
            tag_len == TAG_LEN
        };
        if !tag_allowed {
            return Err(Error::invalid_input(format!(
                "{algorithm} does not take a {tag_len}-byte tag (AES-CCM: 4 to 16 bytes, even; \
                 other AEADs: 16)"
            )));
        }
        let backend = AeadBackend::new(algorithm, key)?;
        // A random nonce per message costs a generator request (AWS-LC's: a CTR_DRBG step
        // with RDRAND input, several times an SM4-GCM seal of 16 bytes); regula-sm's AEADs, whose
        // sealing runs in this module, take the deterministic construction instead.
        let own_aead = backend.seals_in_module();
        let gm_generator = matches!(
            self.random_algorithm(),
            Algorithm::Sm3Drbg | Algorithm::Sm4CtrDrbg
        );
        let nonce_sequence = if own_aead || gm_generator {
            Some(NonceSequence::new(self)?)
        } else {
            None
        };
        Ok(AeadKey {
            module: self.clone(),
            algorithm,
            approval,
            backend,
            tag_len,
            nonce_sequence,
            identity: NEXT_KEY_IDENTITY.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }
}

impl AeadKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// The nonce lengths this key accepts, in bytes (12 for all but AES-CCM's 7 to 13).
    pub fn nonce_lens(&self) -> std::ops::RangeInclusive<usize> {
        if self.backend.is_aes_ccm() {
            CCM_NONCE_LENS
        } else {
            NONCE_LEN..=NONCE_LEN
        }
    }

    /// Encrypts `in_out` in place with a nonce the module generates, appends the tag, and
    /// returns the nonce. This is the approved way to use AES-GCM under FIPS 140-3. AES-GCM's
    /// and ChaCha20-Poly1305's nonces are random under AWS-LC's generator; SM4-GCM's and
    /// SM4-CCM's, and every AEAD's under a GM/T 0105 generator (`gm`), follow SP 800-38D's
    /// deterministic construction from a starting point the module's generator drew when the
    /// key was bound (see `NonceSequence` in the source).
    pub fn seal_in_place(
        &self,
        aad: &[u8],
        in_out: &mut Vec<u8>,
    ) -> Result<Served<[u8; NONCE_LEN]>> {
        self.module.ensure_operational()?;
        let mut nonce = [0u8; NONCE_LEN];
        match self.backend.seal_in_place_internal_nonce(aad, in_out) {
            Some(sealed) => nonce = sealed?,
            None => {
                self.module_nonce(&mut nonce)?;
                self.seal_raw(&nonce, aad, in_out)?;
            }
        }
        Ok(self
            .module
            .serve(self.algorithm, Service::Encrypt, self.approval, nonce))
    }

    /// Writes a fresh nonce for a message this key seals, from the policy's generator.
    #[inline]
    fn module_nonce(&self, nonce: &mut [u8; NONCE_LEN]) -> Result<()> {
        if let Some(sequence) = &self.nonce_sequence {
            return sequence.next_into(&self.module, self.algorithm, nonce);
        }
        self.module.internal_random(nonce)
    }

    /// [`AeadKey::seal_in_place`] on a copy of `plaintext`.
    pub fn seal(&self, aad: &[u8], plaintext: &[u8]) -> Result<Served<Sealed>> {
        let mut ciphertext = Vec::with_capacity(plaintext.len() + self.tag_len);
        ciphertext.extend_from_slice(plaintext);
        let (nonce, indicator) = self.seal_in_place(aad, &mut ciphertext)?.into_parts();
        Ok(Served::new(Sealed { nonce, ciphertext }, indicator))
    }

    /// Encrypts with a nonce the caller chose. The caller must never repeat a nonce under one
    /// key; FIPS 140-3 does not approve AES-GCM used this way.
    pub fn seal_in_place_with_nonce(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut Vec<u8>,
    ) -> Result<Served<()>> {
        let usage = Usage {
            caller_nonce: true,
            ..Usage::default()
        };
        let approval = self
            .module
            .authorize(self.algorithm, Family::Aead, &usage)?;
        self.check_nonce(nonce)?;
        self.seal_raw(nonce, aad, in_out)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Encrypt, approval, ()))
    }

    /// [`AeadKey::seal_in_place_with_nonce`] on a copy of `plaintext`.
    pub fn seal_with_nonce(
        &self,
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
    ) -> Result<Served<Vec<u8>>> {
        let mut ciphertext = Vec::with_capacity(plaintext.len() + self.tag_len);
        ciphertext.extend_from_slice(plaintext);
        let ((), indicator) = self
            .seal_in_place_with_nonce(nonce, aad, &mut ciphertext)?
            .into_parts();
        Ok(Served::new(ciphertext, indicator))
    }

    /// Encrypts and appends the tag, with a nonce already checked or generated. On failure
    /// `in_out` is wiped and emptied.
    #[inline]
    fn seal_raw(&self, nonce: &[u8], aad: &[u8], in_out: &mut Vec<u8>) -> Result<()> {
        self.seal_raw_inner(nonce, aad, in_out)
            .map_err(|error| wipe_and_fail(in_out, error))
    }

    #[inline]
    fn seal_raw_inner(&self, nonce: &[u8], aad: &[u8], in_out: &mut Vec<u8>) -> Result<()> {
        let plaintext_len = in_out.len();
        // The tag slot (at most 16 bytes, checked when bound) as one fixed-size store, then cut
        // to the tag's length: a zero fill of a variable length was a libc memset call.
        in_out.extend_from_slice(&[0u8; TAG_LEN]);
        in_out.truncate(plaintext_len + self.tag_len);
        let (ciphertext, tag) = in_out.split_at_mut(plaintext_len);
        self.backend.seal_detached(nonce, aad, ciphertext, tag)
    }

    /// Checks the tag and decrypts `in_out` (ciphertext followed by tag) in place, leaving only
    /// the plaintext. On any failure `in_out` is wiped and emptied: no partial output.
    pub fn open_in_place(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut Vec<u8>,
    ) -> Result<Served<()>> {
        self.open_in_place_inner(nonce, aad, in_out)
            .map_err(|error| wipe_and_fail(in_out, error))
    }

    fn open_in_place_inner(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut Vec<u8>,
    ) -> Result<Served<()>> {
        self.module.ensure_operational()?;
        self.check_nonce(nonce)?;
        let tag_len = self.tag_len;
        if in_out.len() < tag_len {
            return Err(Error::invalid_input(format!(
                "ciphertext of {} bytes is shorter than the {tag_len}-byte tag",
                in_out.len()
            )));
        }
        let plaintext_len = in_out.len() - tag_len;
        let (ciphertext, tag) = in_out.split_at_mut(plaintext_len);
        let served = self.open_detached_inner(nonce, aad, ciphertext, tag)?;
        in_out.truncate(plaintext_len);
        Ok(served)
    }

    /// [`AeadKey::open_in_place`] on a copy of `ciphertext_and_tag`.
    pub fn open(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ciphertext_and_tag: &[u8],
    ) -> Result<Served<Vec<u8>>> {
        let mut buffer = ciphertext_and_tag.to_vec();
        let ((), indicator) = self.open_in_place(nonce, aad, &mut buffer)?.into_parts();
        Ok(Served::new(buffer, indicator))
    }

    pub(super) fn check_nonce(&self, nonce: &[u8]) -> Result<()> {
        let lens = self.nonce_lens();
        if lens.contains(&nonce.len()) {
            return Ok(());
        }
        let expected = if lens.start() == lens.end() {
            format!("{}", lens.start())
        } else {
            format!("{} to {}", lens.start(), lens.end())
        };
        Err(Error::invalid_input(format!(
            "{} nonce must be {expected} bytes, got {}",
            self.algorithm,
            nonce.len()
        )))
    }
}

/// Slice-based variants for callers that own their buffers (the C ABI): the tag travels
/// separately, in a slice of [`AeadKey::tag_len`] bytes, and the data is encrypted or decrypted
/// where it lies (AES-CCM, whose AWS-LC interface appends the tag, works on a wiped copy).
impl AeadKey {
    /// [`AeadKey::seal_in_place`] on a slice: encrypts `in_out` with a nonce the module
    /// generates, writes the tag to `tag`, and returns the nonce. On failure both are wiped.
    pub fn seal_detached(
        &self,
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<Served<[u8; NONCE_LEN]>> {
        let result = self.seal_detached_inner(aad, in_out, tag);
        if result.is_err() {
            in_out.zeroize();
            tag.zeroize();
        }
        result
    }

    fn seal_detached_inner(
        &self,
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<Served<[u8; NONCE_LEN]>> {
        self.module.ensure_operational()?;
        self.check_tag_slot(tag.len())?;
        let mut nonce = [0u8; NONCE_LEN];
        match self.backend.seal_detached_internal_nonce(aad, in_out, tag) {
            Some(sealed) => nonce = sealed?,
            None => {
                self.module_nonce(&mut nonce)?;
                self.backend.seal_detached(&nonce, aad, in_out, tag)?;
            }
        }
        Ok(self
            .module
            .serve(self.algorithm, Service::Encrypt, self.approval, nonce))
    }

    /// [`AeadKey::seal_in_place_with_nonce`] on a slice, with the tag written to `tag`. The
    /// caller must never repeat a nonce under one key; FIPS 140-3 does not approve AES-GCM used
    /// this way. On failure `in_out` and `tag` are wiped.
    pub fn seal_detached_with_nonce(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<Served<()>> {
        let result = self.seal_detached_with_nonce_inner(nonce, aad, in_out, tag);
        if result.is_err() {
            in_out.zeroize();
            tag.zeroize();
        }
        result
    }

    fn seal_detached_with_nonce_inner(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<Served<()>> {
        let usage = Usage {
            caller_nonce: true,
            ..Usage::default()
        };
        let approval = self
            .module
            .authorize(self.algorithm, Family::Aead, &usage)?;
        self.check_nonce(nonce)?;
        self.check_tag_slot(tag.len())?;
        self.backend.seal_detached(nonce, aad, in_out, tag)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Encrypt, approval, ()))
    }

    /// Seals `plaintext`, segment `counter` of the stream with `prefix` (the last one when
    /// `last`), into `out` (`ciphertext ‖ tag`, exactly `plaintext.len() + tag_len()` bytes),
    /// under [`stream_nonce`]: SP 800-38D §8.2.1's deterministic construction, a fixed field
    /// the module generated at random ([`Module::stream_prefix`]), then an invocation field.
    /// Unlike [`AeadKey::seal_with_nonce_into`] no caller chooses the nonce, so the approval is
    /// that of a module-generated IV (IG C.H); the caller seals each counter of a prefix once,
    /// and uses a prefix with one key only (the file format derives a fresh key per file).
    /// AES-GCM and ChaCha20-Poly1305 read the plaintext where it lies. On failure `out` is
    /// wiped.
    pub fn seal_stream_segment_into(
        &self,
        prefix: &StreamPrefix,
        counter: u32,
        last: bool,
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<Served<()>> {
        self.seal_into_constructed_nonce(&stream_nonce(&prefix.0, counter, last), plaintext, out)
    }

    /// [`AeadKey::seal_stream_segment_into`] with its nonce built.
    fn seal_into_constructed_nonce(
        &self,
        nonce: &[u8; NONCE_LEN],
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<Served<()>> {
        let result = self
            .module
            .ensure_operational()
            .and_then(|()| check_output_len(out, plaintext.len().checked_add(self.tag_len)))
            .and_then(|()| {
                if self.backend.scatters() {
                    self.backend.seal_scatter(nonce, &[], plaintext, out)
                } else {
                    let (body, tag) = out.split_at_mut(plaintext.len());
                    body.copy_from_slice(plaintext);
                    self.backend.seal_detached(nonce, &[], body, tag)
                }
            });
        if let Err(error) = result {
            out.zeroize();
            return Err(error);
        }
        Ok(self
            .module
            .serve(self.algorithm, Service::Encrypt, self.approval, ()))
    }

    /// [`AeadKey::open_in_place`] on a slice with the tag apart: checks `tag` and decrypts
    /// `in_out` in place. On any failure `in_out` is wiped: no partial output.
    pub fn open_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<Served<()>> {
        let result = self.open_detached_inner(nonce, aad, in_out, tag);
        if result.is_err() {
            in_out.zeroize();
        }
        result
    }

    fn open_detached_inner(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<Served<()>> {
        self.module.ensure_operational()?;
        self.check_nonce(nonce)?;
        self.check_tag_slot(tag.len())?;
        self.backend.open_detached(nonce, aad, in_out, tag)?;
        // Decryption is approved whoever chose the nonce: the IV rule concerns encryption.
        Ok(self
            .module
            .serve(self.algorithm, Service::Decrypt, self.approval, ()))
    }

    pub(super) fn check_tag_slot(&self, len: usize) -> Result<()> {
        if len == self.tag_len {
            return Ok(());
        }
        Err(Error::invalid_input(format!(
            "{} tag must be {} bytes, got {len}",
            self.algorithm, self.tag_len
        )))
    }
}

#[cfg(test)]
mod detached_tests {
    use crate::{Algorithm, Module, Policy, Profile};

    /// The slice variants produce what the `Vec` variants produce, and a bad tag wipes the
    /// buffer.
    #[test]
    fn detached_matches_appended_tag() {
        let module = Module::load(Policy::builtin(Profile::Default));
        for (algorithm, tag_len) in [
            (Algorithm::Aes128Gcm, 16),
            (Algorithm::Aes256Gcm, 16),
            (Algorithm::ChaCha20Poly1305, 16),
            (Algorithm::Sm4Gcm, 16),
            (Algorithm::Sm4Ccm, 16),
            (Algorithm::Aes128Ccm, 16),
            (Algorithm::Aes256Ccm, 8),
        ] {
            let key_len = match algorithm {
                Algorithm::Aes256Gcm | Algorithm::ChaCha20Poly1305 | Algorithm::Aes256Ccm => 32,
                _ => 16,
            };
            let key = module
                .aead_key_with_tag_len(algorithm, &vec![7u8; key_len], tag_len)
                .unwrap();
            let nonce = [1u8; 12];
            let plaintext = b"scatter and gather".to_vec();
            let appended = key.seal_with_nonce(&nonce, b"aad", &plaintext).unwrap();
            let mut in_out = plaintext.clone();
            let mut tag = vec![0u8; tag_len];
            key.seal_detached_with_nonce(&nonce, b"aad", &mut in_out, &mut tag)
                .unwrap();
            assert_eq!([&in_out[..], &tag[..]].concat(), *appended, "{algorithm}");
            key.open_detached(&nonce, b"aad", &mut in_out, &tag)
                .unwrap();
            assert_eq!(in_out, plaintext);

            let (nonce, _) = key
                .seal_detached(b"", &mut in_out, &mut tag)
                .unwrap()
                .into_parts();
            let mut bad_tag = tag.clone();
            bad_tag[0] ^= 1;
            let mut copy = in_out.clone();
            assert!(key.open_detached(&nonce, b"", &mut copy, &bad_tag).is_err());
            assert!(copy.iter().all(|&byte| byte == 0), "{algorithm}: not wiped");
            key.open_detached(&nonce, b"", &mut in_out, &tag).unwrap();
            assert_eq!(in_out, plaintext);
            assert!(
                key.seal_detached(b"", &mut in_out, &mut [0u8; 3]).is_err(),
                "{algorithm}: a wrong tag slot is refused"
            );
        }
    }
}

/// Out-of-place variants for callers that own the output buffer and keep the input apart (a
/// language binding filling its own byte string): AES-GCM and ChaCha20-Poly1305 read the input
/// where it lies and write the output once, with no copy of the input first.
impl AeadKey {
    /// [`AeadKey::seal_with_nonce`] writing `ciphertext ‖ tag` into `out`, which must be exactly
    /// `plaintext.len() + tag_len()` bytes. On failure `out` is wiped.
    pub fn seal_with_nonce_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<Served<()>> {
        check_output_len(out, plaintext.len().checked_add(self.tag_len))?;
        if !self.backend.scatters() {
            let (body, tag) = out.split_at_mut(plaintext.len());
            body.copy_from_slice(plaintext);
            return self.seal_detached_with_nonce(nonce, aad, body, tag);
        }
        let usage = Usage {
            caller_nonce: true,
            ..Usage::default()
        };
        let approval = self
            .module
            .authorize(self.algorithm, Family::Aead, &usage)?;
        self.check_nonce(nonce)?;
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| Error::CryptoFailure)?;
        self.backend
            .seal_scatter(&nonce, aad, plaintext, out)
            .inspect_err(|_| out.zeroize())?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Encrypt, approval, ()))
    }

    /// [`AeadKey::open`] writing the plaintext into `out`, which must be exactly
    /// `ciphertext_and_tag.len() - tag_len()` bytes. On any failure `out` is wiped: no partial
    /// output.
    pub fn open_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ciphertext_and_tag: &[u8],
        out: &mut [u8],
    ) -> Result<Served<()>> {
        let Some(plaintext_len) = ciphertext_and_tag.len().checked_sub(self.tag_len) else {
            return Err(Error::invalid_input(format!(
                "ciphertext of {} bytes is shorter than the {}-byte tag",
                ciphertext_and_tag.len(),
                self.tag_len
            )));
        };
        check_output_len(out, Some(plaintext_len))?;
        let (ciphertext, tag) = ciphertext_and_tag.split_at(plaintext_len);
        if !self.backend.scatters() {
            out.copy_from_slice(ciphertext);
            return self.open_detached(nonce, aad, out, tag);
        }
        self.module.ensure_operational()?;
        self.check_nonce(nonce)?;
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| Error::CryptoFailure)?;
        self.backend
            .open_gather(&nonce, aad, ciphertext, tag, out)
            .inspect_err(|_| out.zeroize())?;
        // Decryption is approved whoever chose the nonce: the IV rule concerns encryption.
        Ok(self
            .module
            .serve(self.algorithm, Service::Decrypt, self.approval, ()))
    }
}

/// An output buffer must have exactly the length the operation produces.
fn check_output_len(out: &[u8], expected: Option<usize>) -> Result<()> {
    match expected {
        Some(expected) if out.len() == expected => Ok(()),
        Some(expected) => Err(Error::invalid_input(format!(
            "output buffer must be {expected} bytes, got {}",
            out.len()
        ))),
        None => Err(Error::invalid_input("message too long")),
    }
}

#[cfg(test)]
mod into_tests {
    use super::*;
    use crate::policy::{Policy, Profile};

    const ALGORITHMS: [(Algorithm, usize); 7] = [
        (Algorithm::Aes128Gcm, 16),
        (Algorithm::Aes256Gcm, 32),
        (Algorithm::Aes128Ccm, 16),
        (Algorithm::Aes256Ccm, 32),
        (Algorithm::ChaCha20Poly1305, 32),
        (Algorithm::Sm4Gcm, 16),
        (Algorithm::Sm4Ccm, 16),
    ];

    /// The out-of-place variants produce what the `Vec` variants produce, at lengths around
    /// block and parallel widths (Go's cryptotest/aead.go), and a flipped bit wipes the output.
    #[test]
    fn into_matches_the_vec_variants() {
        let module = Module::load(Policy::builtin(Profile::Default));
        for (algorithm, key_len) in ALGORITHMS {
            let key = module.aead_key(algorithm, &vec![7; key_len]).unwrap();
            for len in [0, 1, 15, 16, 17, 156, 8192, 8193] {
                let plaintext: Vec<u8> = (0..len).map(|i| i as u8).collect();
                let expected = key.seal_with_nonce(&[9; 12], b"aad", &plaintext).unwrap();
                let mut out = vec![0xAA; len + 16];
                let served = key
                    .seal_with_nonce_into(&[9; 12], b"aad", &plaintext, &mut out)
                    .unwrap();
                assert_eq!(out, *expected, "{algorithm} seal, {len} bytes");
                assert_eq!(served.indicator(), expected.indicator());

                let mut opened = vec![0xAA; len];
                key.open_into(&[9; 12], b"aad", &out, &mut opened).unwrap();
                assert_eq!(opened, plaintext, "{algorithm} open, {len} bytes");

                let mut tampered = out.clone();
                tampered[len / 2] ^= 1;
                let mut opened = vec![0xAA; len];
                assert_eq!(
                    key.open_into(&[9; 12], b"aad", &tampered, &mut opened),
                    Err(Error::AuthenticationFailed),
                    "{algorithm} tampered, {len} bytes"
                );
                assert!(
                    opened.iter().all(|&byte| byte == 0),
                    "{algorithm}: not wiped"
                );
            }
            let mut short = vec![0; 4];
            assert!(matches!(
                key.seal_with_nonce_into(&[9; 12], b"", b"12345", &mut short),
                Err(Error::InvalidInput { .. })
            ));
            assert!(matches!(
                key.open_into(&[9; 12], b"", &[0; 20], &mut short[..3]),
                Err(Error::InvalidInput { .. })
            ));
        }
    }

    /// The GCM specification's test case 14 (McGrew and Viega, "The Galois/Counter Mode of
    /// Operation", 2005): AES-256, zero key and IV, one zero block.
    #[test]
    fn seal_with_nonce_into_reproduces_gcm_test_case_14() {
        let module = Module::load(Policy::builtin(Profile::Default));
        let key = module.aead_key(Algorithm::Aes256Gcm, &[0; 32]).unwrap();
        let mut out = [0; 32];
        key.seal_with_nonce_into(&[0; 12], b"", &[0; 16], &mut out)
            .unwrap();
        assert_eq!(
            out,
            hex_literal::hex!("cea7403d4d606b6e074ec5d3baf39d18 d0d1c8a799996bf0265b98b5d48ab919")
        );
    }

    #[test]
    fn fips_refuses_a_caller_nonce_for_gcm_into_as_well() {
        let module = Module::load(Policy::builtin(Profile::Fips1403));
        let key = module.aead_key(Algorithm::Aes256Gcm, &[0; 32]).unwrap();
        let mut out = [0; 32];
        assert!(matches!(
            key.seal_with_nonce_into(&[0; 12], b"", &[0; 16], &mut out),
            Err(Error::NotApproved { .. })
        ));
    }
}
