//! Unauthenticated block-cipher modes: AES-CTR, AES-CBC (PKCS#7), AES-256-XTS, AES-256-CBC-CS3,
//! AES-CFB8,
//! SM4-ECB (whole blocks, no padding), SM4-CBC (PKCS#7), SM4-CTR, SM4-XTS, SM4-CBC-CS3; AES key
//! wrapping (KW, KWP); and the legacy RC4, DES-CBC and 3DES-CBC (whole blocks, no padding).

use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, PaddedBlockDecryptingKey,
    PaddedBlockEncryptingKey, StreamingDecryptingKey, StreamingEncryptingKey, UnboundCipherKey,
};
use aws_lc_rs::iv::FixedLength;
use aws_lc_rs::key_wrap::{AES_128, AES_256, AesKek, KeyWrap, KeyWrapPadded};
use regula_sm::Sm4;
use regula_sm::sm4::modes::{self as sm4_modes, Xts, XtsStandard};
use zeroize::{Zeroize, Zeroizing};

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc::{self, CipherMode, EvpCipherSpec};
use crate::provider::awslc_sys;
use crate::provider::sm::{self, Sm4Mode};
use crate::service::{cbc_cs3, wipe_and_fail};

/// AES and SM4 block size; the IV (CBC, CFB8), initial counter block (CTR) or tweak (XTS) has
/// this length. DES and 3DES take 8-byte IVs; see [`CipherKey::iv_len`].
pub const IV_LEN: usize = 16;

/// SP 800-38E §5.1 and IEEE 1619 §5.1: an XTS data unit has at most 2^20 blocks.
const XTS_MAX_DATA_UNIT: usize = (1 << 20) * 16;

enum Keys {
    Ctr(EncryptingKey, DecryptingKey),
    Cbc(PaddedBlockEncryptingKey, PaddedBlockDecryptingKey),
    /// AES-CBC without padding, for ciphertext stealing (CBC-CS3, at least one block).
    AesCs3(EncryptingKey, DecryptingKey),
    /// regula-sm wipes the SM4 key schedule on drop.
    Sm4(Box<Sm4>, Sm4Mode),
    /// Both SM4 key schedules of XTS; the IV is the tweak.
    Sm4Xts(Box<Xts>),
    /// CFB8 through aws-lc-rs's streaming interface, keyed per message from this copy.
    Cfb8(&'static aws_lc_rs::cipher::Algorithm, Zeroizing<Vec<u8>>),
    /// AES key wrap (KW or, padded, KWP); the key-encryption key is built per call because
    /// aws-lc-rs consumes it.
    Wrap {
        padded: bool,
        key: Zeroizing<Vec<u8>>,
    },
    /// XTS, RC4, DES and 3DES through AWS-LC's cipher interface.
    Evp(EvpCipherSpec, Zeroizing<Vec<u8>>),
}

/// Ciphertext with the IV that was used (empty for ECB, which takes none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encrypted {
    pub iv: Vec<u8>,
    pub ciphertext: Vec<u8>,
}

/// A block-cipher key bound to a module; AWS-LC wipes the key schedule on drop.
pub struct CipherKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    keys: Keys,
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
        if let Some(standard) = match algorithm {
            Algorithm::Sm4Xts => Some(XtsStandard::Ieee1619),
            Algorithm::Sm4XtsGb => Some(XtsStandard::GbT17964),
            _ => None,
        } {
            let key: Zeroizing<[u8; 32]> = Zeroizing::new(key.try_into().map_err(|_| {
                Error::invalid_key(
                    algorithm,
                    format!("expected 32 bytes (two SM4 keys), got {}", key.len()),
                )
            })?);
            let xts = Xts::new(&key, standard)
                .map_err(|error| Error::invalid_key(algorithm, error.to_string()))?;
            return Ok(CipherKey {
                module: self.clone(),
                algorithm,
                approval,
                keys: Keys::Sm4Xts(Box::new(xts)),
            });
        }
        if let Some(spec) = awslc::evp_cipher(algorithm) {
            if !spec.key_lens.contains(&key.len()) {
                let (min, max) = (spec.key_lens.start(), spec.key_lens.end());
                let expected = if min == max {
                    format!("{min}")
                } else {
                    format!("{min} to {max}")
                };
                return Err(Error::invalid_key(
                    algorithm,
                    format!("expected {expected} bytes, got {}", key.len()),
                ));
            }
            // SP 800-38E / IG C.I: the two halves of an XTS key must differ (an attack on
            // equal halves is known); this is an error in every profile, not a flagged success.
            if algorithm == Algorithm::Aes256Xts
                && aws_lc_rs::constant_time::verify_slices_are_equal(&key[..32], &key[32..]).is_ok()
            {
                return Err(Error::invalid_key(
                    algorithm,
                    "the two 32-byte halves of an XTS key must differ (SP 800-38E)",
                ));
            }
            return Ok(CipherKey {
                module: self.clone(),
                algorithm,
                approval,
                keys: Keys::Evp(spec, Zeroizing::new(key.to_vec())),
            });
        }
        if let Ok(mode) = sm::sm4_mode(algorithm) {
            let key = super::fixed_size_key::<16>(algorithm, key)?;
            let keys = Keys::Sm4(Box::new(Sm4::new(&key)), mode);
            return Ok(CipherKey {
                module: self.clone(),
                algorithm,
                approval,
                keys,
            });
        }
        let (aws_algorithm, key_len, mode) = awslc::cipher(algorithm)?;
        if key.len() != key_len {
            return Err(Error::invalid_key(
                algorithm,
                format!("expected {key_len} bytes, got {}", key.len()),
            ));
        }
        let unbound = || {
            UnboundCipherKey::new(aws_algorithm, key)
                .map_err(|_| Error::invalid_key(algorithm, "rejected by the backend"))
        };
        let backend = |_| Error::CryptoFailure;
        let keys = match mode {
            CipherMode::Cfb8 => Keys::Cfb8(aws_algorithm, Zeroizing::new(key.to_vec())),
            CipherMode::Kw | CipherMode::Kwp => Keys::Wrap {
                padded: mode == CipherMode::Kwp,
                key: Zeroizing::new(key.to_vec()),
            },
            CipherMode::Ctr => Keys::Ctr(
                EncryptingKey::ctr(unbound()?).map_err(backend)?,
                DecryptingKey::ctr(unbound()?).map_err(backend)?,
            ),
            CipherMode::CbcCs3 => Keys::AesCs3(
                EncryptingKey::cbc(unbound()?).map_err(backend)?,
                DecryptingKey::cbc(unbound()?).map_err(backend)?,
            ),
            CipherMode::CbcPkcs7 => Keys::Cbc(
                PaddedBlockEncryptingKey::cbc_pkcs7(unbound()?).map_err(backend)?,
                PaddedBlockDecryptingKey::cbc_pkcs7(unbound()?).map_err(backend)?,
            ),
        };
        Ok(CipherKey {
            module: self.clone(),
            algorithm,
            approval,
            keys,
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
        match &self.keys {
            Keys::Sm4(_, Sm4Mode::Ecb) | Keys::Wrap { .. } => 0,
            Keys::Evp(spec, _) => spec.iv_len,
            _ => IV_LEN,
        }
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
        let result = self.encrypt_padded_iv(iv, in_out);
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
        let is_cbc = matches!(self.keys, Keys::Cbc(..) | Keys::Sm4(_, Sm4Mode::CbcPkcs7));
        if is_cbc && (in_out.is_empty() || !in_out.len().is_multiple_of(IV_LEN)) {
            return Err(Error::invalid_input(format!(
                "CBC ciphertext must be a non-zero multiple of {IV_LEN} bytes, got {}",
                in_out.len()
            )));
        }
        let result = self.decrypt_padded_iv(iv, in_out);
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

    /// Replaces `in_out` with the output of a cipher that cannot work in place: CFB8 (aws-lc-rs's
    /// streaming interface), key wrapping and the AWS-LC C interface. Out of line: the in-place
    /// ciphers' calls stay short.
    #[inline(never)]
    fn replace_with(&self, iv: &[u8], in_out: &mut Vec<u8>, encrypt: bool) -> Result<()> {
        let (algorithm, iv) = (self.algorithm, &iv[..self.iv_len()]);
        let output = match &self.keys {
            Keys::Cfb8(aws_algorithm, key) => cfb8(aws_algorithm, key, iv, in_out, encrypt),
            Keys::Wrap { padded, key } => key_wrap(algorithm, *padded, key, in_out, encrypt),
            Keys::Evp(spec, key) => evp_cipher(algorithm, spec, key, iv, in_out, encrypt),
            // The in-place ciphers never come here (see the mode matches).
            _ => Err(Error::CryptoFailure),
        };
        let output = Zeroizing::new(output?);
        in_out.zeroize();
        in_out.clear();
        in_out.extend_from_slice(&output);
        Ok(())
    }

    fn encrypt_padded_iv(&self, iv: &[u8; IV_LEN], in_out: &mut Vec<u8>) -> Result<()> {
        let context = || EncryptionContext::Iv128(FixedLength::from(*iv));
        let length_error = |len| Error::invalid_input(whole_blocks(self.algorithm, len));
        match &self.keys {
            Keys::Ctr(key, _) => key.less_safe_encrypt(in_out, context()).map(drop),
            Keys::Cbc(key, _) => key.less_safe_encrypt(in_out, context()).map(drop),
            Keys::AesCs3(key, _) => {
                cbc_cs3::encrypt(key, iv, in_out)
                    .map_err(|error| cs3_error(self.algorithm, error))?;
                Ok(())
            }
            Keys::Sm4(cipher, mode) => {
                match mode {
                    Sm4Mode::Ecb => sm4_modes::ecb_encrypt(cipher, in_out)
                        .map_err(|_| length_error(in_out.len()))?,
                    Sm4Mode::CbcPkcs7 => sm4_modes::cbc_encrypt_padded_in_place(cipher, iv, in_out),
                    Sm4Mode::Ctr => sm4_modes::ctr_apply_keystream(cipher, iv, in_out),
                    Sm4Mode::Ofb => sm4_modes::ofb_apply_keystream(cipher, iv, in_out),
                    Sm4Mode::Cfb => sm4_modes::cfb_encrypt(cipher, iv, in_out),
                    Sm4Mode::CbcCs3 => {
                        sm4_modes::cbc_cs3_encrypt(cipher, iv, in_out).map_err(|error| {
                            Error::invalid_input(format!("{}: {error}", self.algorithm))
                        })?
                    }
                }
                Ok(())
            }
            Keys::Sm4Xts(xts) => {
                xts.encrypt(iv, in_out).map_err(|error| {
                    Error::invalid_input(format!("{}: {error}", self.algorithm))
                })?;
                Ok(())
            }
            Keys::Cfb8(..) | Keys::Wrap { .. } | Keys::Evp(..) => {
                return self.replace_with(iv, in_out, true);
            }
        }
        .map_err(|_| Error::CryptoFailure)
    }

    fn decrypt_padded_iv(&self, iv: &[u8; IV_LEN], in_out: &mut Vec<u8>) -> Result<()> {
        let context = || DecryptionContext::Iv128(FixedLength::from(*iv));
        let plaintext_len = match &self.keys {
            Keys::Ctr(_, key) => key.decrypt(in_out, context()).map(|plain| plain.len()),
            Keys::Cbc(_, key) => key.decrypt(in_out, context()).map(|plain| plain.len()),
            Keys::AesCs3(_, key) => {
                cbc_cs3::decrypt(key, iv, in_out)
                    .map_err(|error| cs3_error(self.algorithm, error))?;
                Ok(in_out.len())
            }
            Keys::Sm4(cipher, mode) => match mode {
                Sm4Mode::Ecb => {
                    sm4_modes::ecb_decrypt(cipher, in_out).map_err(|_| {
                        Error::invalid_input(whole_blocks(self.algorithm, in_out.len()))
                    })?;
                    Ok(in_out.len())
                }
                Sm4Mode::CbcPkcs7 => sm4_modes::cbc_decrypt_padded_in_place(cipher, iv, in_out)
                    .map(|()| in_out.len())
                    .map_err(|_| aws_lc_rs::error::Unspecified),
                Sm4Mode::Ctr => {
                    sm4_modes::ctr_apply_keystream(cipher, iv, in_out);
                    Ok(in_out.len())
                }
                Sm4Mode::Ofb => {
                    sm4_modes::ofb_apply_keystream(cipher, iv, in_out);
                    Ok(in_out.len())
                }
                Sm4Mode::Cfb => {
                    sm4_modes::cfb_decrypt(cipher, iv, in_out);
                    Ok(in_out.len())
                }
                Sm4Mode::CbcCs3 => {
                    sm4_modes::cbc_cs3_decrypt(cipher, iv, in_out).map_err(|error| {
                        Error::invalid_input(format!("{}: {error}", self.algorithm))
                    })?;
                    Ok(in_out.len())
                }
            },
            Keys::Sm4Xts(xts) => {
                xts.decrypt(iv, in_out).map_err(|error| {
                    Error::invalid_input(format!("{}: {error}", self.algorithm))
                })?;
                Ok(in_out.len())
            }
            Keys::Cfb8(..) | Keys::Wrap { .. } | Keys::Evp(..) => {
                return self.replace_with(iv, in_out, false);
            }
        }
        .map_err(|_| Error::CryptoFailure)?;
        in_out.truncate(plaintext_len);
        Ok(())
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

/// AES-CFB8 through aws-lc-rs's streaming interface, keyed for this one message.
fn cfb8(
    aws_algorithm: &'static aws_lc_rs::cipher::Algorithm,
    key: &[u8],
    iv: &[u8],
    input: &[u8],
    encrypt: bool,
) -> Result<Vec<u8>> {
    let failed = |_| Error::CryptoFailure;
    let unbound = UnboundCipherKey::new(aws_algorithm, key).map_err(failed)?;
    let iv: [u8; IV_LEN] = iv.try_into().map_err(|_| Error::CryptoFailure)?;
    let mut output = vec![0u8; input.len() + IV_LEN];
    let written = if encrypt {
        let mut stream = StreamingEncryptingKey::less_safe_cfb8(
            unbound,
            EncryptionContext::Iv128(FixedLength::from(iv)),
        )
        .map_err(failed)?;
        let updated = stream.update(input, &mut output).map_err(failed)?;
        let written = updated.written().len();
        let (_, last) = stream.finish(&mut output[written..]).map_err(failed)?;
        written + last.written().len()
    } else {
        let mut stream =
            StreamingDecryptingKey::cfb8(unbound, DecryptionContext::Iv128(FixedLength::from(iv)))
                .map_err(failed)?;
        let updated = stream.update(input, &mut output).map_err(failed)?;
        let written = updated.written().len();
        let last = stream.finish(&mut output[written..]).map_err(failed)?;
        written + last.written().len()
    };
    output.truncate(written);
    Ok(output)
}

/// AES key wrap (KW) or key wrap with padding (KWP); a failed unwrap is an integrity failure.
fn key_wrap(
    algorithm: Algorithm,
    padded: bool,
    key: &[u8],
    input: &[u8],
    encrypt: bool,
) -> Result<Vec<u8>> {
    let failed = |_| Error::CryptoFailure;
    let cipher = if key.len() == 16 { &AES_128 } else { &AES_256 };
    let kek = || AesKek::new(cipher, key).map_err(failed);
    if !padded && (input.len() < 8 || !input.len().is_multiple_of(8)) {
        return Err(Error::invalid_input(format!(
            "{algorithm} takes a multiple of 8 bytes, at least 16 to unwrap and 8 to \
             wrap, got {}",
            input.len()
        )));
    }
    let mut output = vec![0u8; input.len() + 16];
    let written = match (encrypt, padded) {
        (true, false) => kek()?.wrap(input, &mut output).map(|out| out.len()),
        (true, true) => kek()?
            .wrap_with_padding(input, &mut output)
            .map(|out| out.len()),
        (false, false) => kek()?.unwrap(input, &mut output).map(|out| out.len()),
        (false, true) => kek()?
            .unwrap_with_padding(input, &mut output)
            .map(|out| out.len()),
    };
    match written {
        Ok(written) => {
            output.truncate(written);
            Ok(output)
        }
        Err(_) => {
            output.zeroize();
            // Unwrapping fails on an integrity check (or an impossible length).
            Err(if encrypt {
                Error::invalid_input(format!("{algorithm} cannot wrap {} bytes", input.len()))
            } else {
                Error::AuthenticationFailed
            })
        }
    }
}

/// XTS, RC4, DES and 3DES through AWS-LC's cipher interface, padding off.
fn evp_cipher(
    algorithm: Algorithm,
    spec: &EvpCipherSpec,
    key: &[u8],
    iv: &[u8],
    input: &[u8],
    encrypt: bool,
) -> Result<Vec<u8>> {
    if spec.cipher == awslc_sys::EvpCipher::Aes256Xts
        && !(IV_LEN..=XTS_MAX_DATA_UNIT).contains(&input.len())
    {
        return Err(Error::invalid_input(format!(
            "{algorithm} data units are 16 bytes to 2^20 blocks (SP 800-38E), got {} \
             bytes",
            input.len()
        )));
    }
    if !input.len().is_multiple_of(spec.block) {
        return Err(Error::invalid_input(format!(
            "{algorithm} takes whole {}-byte blocks without padding, got {} bytes",
            spec.block,
            input.len()
        )));
    }
    let mut output = input.to_vec();
    let iv = (spec.iv_len != 0).then_some(iv);
    match awslc_sys::cipher_in_place(spec.cipher, key, iv, encrypt, &mut output) {
        Ok(()) => Ok(output),
        Err(_) => {
            output.zeroize();
            Err(Error::CryptoFailure)
        }
    }
}

fn whole_blocks(algorithm: Algorithm, len: usize) -> String {
    format!("{algorithm} takes whole {IV_LEN}-byte blocks without padding, got {len} bytes")
}

/// A CBC-CS3 error as the module reports it: a short input is the caller's, the rest AWS-LC's.
fn cs3_error(algorithm: Algorithm, error: cbc_cs3::Cs3Error) -> Error {
    match error {
        cbc_cs3::Cs3Error::TooShort(_) => Error::invalid_input(format!("{algorithm}: {error}")),
        cbc_cs3::Cs3Error::Backend => Error::CryptoFailure,
    }
}
