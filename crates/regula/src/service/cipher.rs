//! Unauthenticated block-cipher modes: AES-CTR, AES-CBC (PKCS#7), AES-256-XTS, AES-256-CBC-CS3,
//! AES-CFB8,
//! SM4-ECB (whole blocks, no padding), SM4-CBC (PKCS#7), SM4-CTR, SM4-XTS, SM4-CBC-CS3; AES key
//! wrapping (KW, KWP); and the legacy RC4, DES-CBC and 3DES-CBC (whole blocks, no padding).

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::cipher::CipherBackend;
use crate::provider::cipher_stream::StreamKey;
use crate::service::wipe_and_fail;

/// AES and SM4 block size; the IV (CBC, CFB8), initial counter block (CTR) or tweak (XTS) has
/// this length. DES and 3DES take 8-byte IVs; see [`CipherKey::iv_len`].
pub const IV_LEN: usize = 16;

/// Ciphertext with the IV that was used (empty for ECB, which takes none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encrypted {
    pub iv: Vec<u8>,
    pub ciphertext: Vec<u8>,
}

/// A block-cipher key bound to a module; AWS-LC wipes the key schedule on drop.
pub struct CipherKey {
    pub(super) module: Module,
    pub(super) algorithm: Algorithm,
    pub(super) approval: Approval,
    pub(super) backend: CipherBackend,
    /// What [`CipherKey::stream`] keys a stream from, where the backend keeps only an
    /// expanded key (AES-CTR, AES-CBC); wiped on drop.
    pub(super) stream_key: StreamKey,
}

impl std::fmt::Debug for CipherKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CipherKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl Module {
    pub fn cipher_key(&self, algorithm: Algorithm, key: &[u8]) -> Result<CipherKey> {
        let approval = self.authorize(algorithm, Family::Cipher, &Usage::default())?;
        let backend = CipherBackend::new(algorithm, key)?;
        Ok(CipherKey {
            module: self.clone(),
            algorithm,
            approval,
            backend,
            stream_key: StreamKey::new(algorithm, key),
        })
    }
}

impl CipherKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Whether the mode takes an IV (all but ECB, RC4 and key wrapping).
    pub fn takes_iv(&self) -> bool {
        self.iv_len() != 0
    }

    /// The IV (or tweak) length in bytes: 16 for AES and SM4 modes, 8 for DES and 3DES, 0 for
    /// ECB, RC4 and key wrapping.
    pub fn iv_len(&self) -> usize {
        self.backend.iv_len()
    }

    /// Encrypts with the given IV, or with a random one from the module's DRBG when `None`.
    /// ECB takes no IV and whole blocks only.
    pub fn encrypt(&self, iv: Option<&[u8]>, plaintext: &[u8]) -> Result<Served<Encrypted>> {
        self.module.ensure_operational()?;
        let iv_len = self.iv_len();
        let iv = match (iv, iv_len != 0) {
            (Some(_), false) => {
                return Err(Error::invalid_input(format!(
                    "{} takes no IV",
                    self.algorithm
                )));
            }
            (None, false) => Vec::new(),
            (Some(iv), true) => iv.to_vec(),
            (None, true) => {
                let mut iv = vec![0u8; iv_len];
                self.module.internal_random(&mut iv)?;
                iv
            }
        };
        // Room for CBC's padding, so that encrypting in place does not reallocate.
        let mut ciphertext = Vec::with_capacity(plaintext.len() + IV_LEN);
        ciphertext.extend_from_slice(plaintext);
        let ((), indicator) = self.encrypt_in_place(&iv, &mut ciphertext)?.into_parts();
        Ok(Served::new(Encrypted { iv, ciphertext }, indicator))
    }

    /// Encrypts `in_out` where it lies, under the caller's IV (empty for ECB, RC4 and key
    /// wrapping): the allocation-free form of [`CipherKey::encrypt`] for callers that reuse a
    /// buffer, as aws-lc-rs's `less_safe_encrypt` does. CBC appends its PKCS#7 padding (keep
    /// 16 bytes of spare capacity and nothing is allocated); key wrapping grows the buffer by
    /// 8 bytes. The cipher and the policy's verdict were fixed when the key was bound, so a call
    /// costs one check of the module state, the operation and its indicator.
    ///
    /// An IV of the wrong length leaves `in_out` as it was; on any other failure it is wiped
    /// and emptied, never left half encrypted.
    ///
    /// ```
    /// # use regula::{Algorithm, Module};
    /// let module = Module::load_named("gm")?;
    /// let key = module.cipher_key(Algorithm::Sm4Ctr, &[0x42; 16])?;
    /// let iv = [7u8; 16];
    /// let mut buffer = b"a TLS record, a database page".to_vec();
    /// let served = key.encrypt_in_place(&iv, &mut buffer)?;
    /// assert!(served.is_approved());
    /// key.decrypt_in_place(&iv, &mut buffer)?;
    /// assert_eq!(buffer, b"a TLS record, a database page");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encrypt_in_place(&self, iv: &[u8], in_out: &mut Vec<u8>) -> Result<Served<()>> {
        self.module.ensure_operational()?;
        let mut padded = [0u8; IV_LEN];
        let iv = self.iv(iv, &mut padded)?;
        let result = self.backend.encrypt(self.algorithm, iv, in_out);
        self.finish_in_place(Service::Encrypt, result, in_out)
    }

    /// Decrypts `in_out` where it lies (for CBC, checks and strips the padding): the
    /// allocation-free form of [`CipherKey::decrypt`]. An IV or ciphertext of the wrong length
    /// leaves `in_out` as it was; on any other failure (bad padding, a failed unwrap) it is
    /// wiped and emptied, so no unauthenticated plaintext is released.
    pub fn decrypt_in_place(&self, iv: &[u8], in_out: &mut Vec<u8>) -> Result<Served<()>> {
        self.module.ensure_operational()?;
        let mut padded = [0u8; IV_LEN];
        let iv = self.iv(iv, &mut padded)?;
        if self.backend.is_cbc_pkcs7()
            && (in_out.is_empty() || !in_out.len().is_multiple_of(IV_LEN))
        {
            return Err(Error::invalid_input(format!(
                "CBC ciphertext must be a non-zero multiple of {IV_LEN} bytes, got {}",
                in_out.len()
            )));
        }
        let result = self.backend.decrypt(self.algorithm, iv, in_out);
        self.finish_in_place(Service::Decrypt, result, in_out)
    }

    /// Ends an in-place call: a failed operation leaves `in_out` wiped and empty, never half
    /// processed; a successful one is served with its indicator.
    #[inline]
    fn finish_in_place(
        &self,
        service: Service,
        result: Result<()>,
        in_out: &mut Vec<u8>,
    ) -> Result<Served<()>> {
        if let Err(error) = result {
            return Err(wipe_and_fail(in_out, error));
        }
        Ok(self
            .module
            .serve(self.algorithm, service, self.approval, ()))
    }

    /// Decrypts; for CBC, checks and strips the padding. Nothing is returned on failure. ECB
    /// takes an empty IV.
    pub fn decrypt(&self, iv: &[u8], ciphertext: &[u8]) -> Result<Served<Vec<u8>>> {
        let mut buffer = ciphertext.to_vec();
        let ((), indicator) = self.decrypt_in_place(iv, &mut buffer)?.into_parts();
        Ok(Served::new(buffer, indicator))
    }

    /// Checks the IV's length (empty for modes without one). A 16-byte IV is used where it
    /// lies; a shorter one is copied into `padded`, zero-filled to 16 bytes (DES uses the
    /// first 8).
    #[inline]
    fn iv<'a>(&self, iv: &'a [u8], padded: &'a mut [u8; IV_LEN]) -> Result<&'a [u8; IV_LEN]> {
        if let Ok(iv) = <&[u8; IV_LEN]>::try_from(iv)
            && self.iv_len() == IV_LEN
        {
            return Ok(iv);
        }
        *padded = self.short_iv(iv)?;
        Ok(padded)
    }

    /// [`CipherKey::iv`] for modes with a shorter IV or none, and its errors.
    #[inline(never)]
    fn short_iv(&self, iv: &[u8]) -> Result<[u8; IV_LEN]> {
        let iv_len = self.iv_len();
        if iv_len == 0 && !iv.is_empty() {
            return Err(Error::invalid_input(format!(
                "{} takes no IV",
                self.algorithm
            )));
        }
        if iv.len() != iv_len {
            return Err(Error::invalid_input(format!(
                "{} IV must be {iv_len} bytes, got {}",
                self.algorithm,
                iv.len()
            )));
        }
        let mut padded = [0u8; IV_LEN];
        padded[..iv_len].copy_from_slice(iv);
        Ok(padded)
    }
}
