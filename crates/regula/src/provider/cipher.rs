//! The block-cipher keys the cipher service holds: AES modes and key wrapping (aws-lc-rs), XTS,
//! RC4, DES and 3DES (AWS-LC's C interface), and the SM4 modes (regula-sm). The registry row's
//! provider decides which backend serves an algorithm.

use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, PaddedBlockDecryptingKey,
    PaddedBlockEncryptingKey, StreamingDecryptingKey, StreamingEncryptingKey, UnboundCipherKey,
};
use aws_lc_rs::iv::FixedLength;
use aws_lc_rs::key_wrap::{AES_128, AES_256, AesKek, KeyWrap, KeyWrapPadded};
use regula_sm::Sm4;
use regula_sm::sm4::modes::{self as sm4_modes, Xts, XtsStandard};
use zeroize::{Zeroize, Zeroizing};

use super::awslc::{self, CipherMode, EvpCipherSpec};
use super::awslc_sys;
use super::cbc_cs3;
use super::sm::{self, Sm4Mode};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::registry::{self, Provider};

/// AES and SM4 block size: the IV (CBC, CFB8), initial counter block (CTR) or tweak (XTS) has
/// this length.
const BLOCK: usize = 16;

/// SP 800-38E §5.1 and IEEE 1619 §5.1: an XTS data unit has at most 2^20 blocks.
const XTS_MAX_DATA_UNIT: usize = (1 << 20) * 16;

/// A keyed block cipher in its mode. AWS-LC and regula-sm wipe their key schedules on drop.
pub(crate) enum CipherBackend {
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

impl CipherBackend {
    /// Keys `algorithm` (a cipher the policy let through) with the backend its registry row
    /// names.
    pub(crate) fn new(algorithm: Algorithm, key: &[u8]) -> Result<CipherBackend> {
        match registry::entry(algorithm).provider {
            Provider::RegulaSm => sm4_backend(algorithm, key),
            Provider::AwsLc => aws_lc_backend(algorithm, key),
        }
    }

    /// The IV (or tweak) length in bytes: 16 for AES and SM4 modes, 8 for DES and 3DES, 0 for
    /// ECB, RC4 and key wrapping.
    #[inline]
    pub(crate) fn iv_len(&self) -> usize {
        match self {
            CipherBackend::Sm4(_, Sm4Mode::Ecb) | CipherBackend::Wrap { .. } => 0,
            CipherBackend::Evp(spec, _) => spec.iv_len,
            _ => BLOCK,
        }
    }

    /// Whether the mode is CBC with PKCS#7 padding (whole blocks to decrypt).
    #[inline]
    pub(crate) fn is_cbc_pkcs7(&self) -> bool {
        matches!(
            self,
            CipherBackend::Cbc(..) | CipherBackend::Sm4(_, Sm4Mode::CbcPkcs7)
        )
    }

    /// Encrypts `in_out` in place under a 16-byte IV (a shorter IV zero-filled, none zero).
    #[inline]
    pub(crate) fn encrypt(
        &self,
        algorithm: Algorithm,
        iv: &[u8; BLOCK],
        in_out: &mut Vec<u8>,
    ) -> Result<()> {
        let context = || EncryptionContext::Iv128(FixedLength::from(*iv));
        let length_error = |len| Error::invalid_input(whole_blocks(algorithm, len));
        match self {
            CipherBackend::Ctr(key, _) => key.less_safe_encrypt(in_out, context()).map(drop),
            CipherBackend::Cbc(key, _) => key.less_safe_encrypt(in_out, context()).map(drop),
            CipherBackend::AesCs3(key, _) => {
                cbc_cs3::encrypt(key, iv, in_out).map_err(|error| cs3_error(algorithm, error))?;
                Ok(())
            }
            CipherBackend::Sm4(cipher, mode) => {
                match mode {
                    Sm4Mode::Ecb => sm4_modes::ecb_encrypt(cipher, in_out)
                        .map_err(|_| length_error(in_out.len()))?,
                    Sm4Mode::CbcPkcs7 => sm4_modes::cbc_encrypt_padded_in_place(cipher, iv, in_out),
                    Sm4Mode::Ctr => sm4_modes::ctr_apply_keystream(cipher, iv, in_out),
                    Sm4Mode::Ofb => sm4_modes::ofb_apply_keystream(cipher, iv, in_out),
                    Sm4Mode::Cfb => sm4_modes::cfb_encrypt(cipher, iv, in_out),
                    Sm4Mode::CbcCs3 => sm4_modes::cbc_cs3_encrypt(cipher, iv, in_out)
                        .map_err(|error| Error::invalid_input(format!("{algorithm}: {error}")))?,
                }
                Ok(())
            }
            CipherBackend::Sm4Xts(xts) => {
                xts.encrypt(iv, in_out)
                    .map_err(|error| Error::invalid_input(format!("{algorithm}: {error}")))?;
                Ok(())
            }
            CipherBackend::Cfb8(..) | CipherBackend::Wrap { .. } | CipherBackend::Evp(..) => {
                return self.replace_with(algorithm, iv, in_out, true);
            }
        }
        .map_err(|_| Error::CryptoFailure)
    }

    /// Decrypts `in_out` in place (for CBC, checks and strips the padding).
    #[inline]
    pub(crate) fn decrypt(
        &self,
        algorithm: Algorithm,
        iv: &[u8; BLOCK],
        in_out: &mut Vec<u8>,
    ) -> Result<()> {
        let context = || DecryptionContext::Iv128(FixedLength::from(*iv));
        let plaintext_len = match self {
            CipherBackend::Ctr(_, key) => key.decrypt(in_out, context()).map(|plain| plain.len()),
            CipherBackend::Cbc(_, key) => key.decrypt(in_out, context()).map(|plain| plain.len()),
            CipherBackend::AesCs3(_, key) => {
                cbc_cs3::decrypt(key, iv, in_out).map_err(|error| cs3_error(algorithm, error))?;
                Ok(in_out.len())
            }
            CipherBackend::Sm4(cipher, mode) => match mode {
                Sm4Mode::Ecb => {
                    sm4_modes::ecb_decrypt(cipher, in_out)
                        .map_err(|_| Error::invalid_input(whole_blocks(algorithm, in_out.len())))?;
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
                    sm4_modes::cbc_cs3_decrypt(cipher, iv, in_out)
                        .map_err(|error| Error::invalid_input(format!("{algorithm}: {error}")))?;
                    Ok(in_out.len())
                }
            },
            CipherBackend::Sm4Xts(xts) => {
                xts.decrypt(iv, in_out)
                    .map_err(|error| Error::invalid_input(format!("{algorithm}: {error}")))?;
                Ok(in_out.len())
            }
            CipherBackend::Cfb8(..) | CipherBackend::Wrap { .. } | CipherBackend::Evp(..) => {
                return self.replace_with(algorithm, iv, in_out, false);
            }
        }
        .map_err(|_| Error::CryptoFailure)?;
        in_out.truncate(plaintext_len);
        Ok(())
    }

    /// Replaces `in_out` with the output of a cipher that cannot work in place: CFB8 (aws-lc-rs's
    /// streaming interface), key wrapping and the AWS-LC C interface. Out of line: the in-place
    /// ciphers' calls stay short.
    #[inline(never)]
    fn replace_with(
        &self,
        algorithm: Algorithm,
        iv: &[u8],
        in_out: &mut Vec<u8>,
        encrypt: bool,
    ) -> Result<()> {
        let iv = &iv[..self.iv_len()];
        let output = match self {
            CipherBackend::Cfb8(aws_algorithm, key) => {
                cfb8(aws_algorithm, key, iv, in_out, encrypt)
            }
            CipherBackend::Wrap { padded, key } => {
                key_wrap(algorithm, *padded, key, in_out, encrypt)
            }
            CipherBackend::Evp(spec, key) => evp_cipher(algorithm, spec, key, iv, in_out, encrypt),
            // The in-place ciphers never come here (see the mode matches).
            _ => Err(Error::CryptoFailure),
        };
        let output = Zeroizing::new(output?);
        in_out.zeroize();
        in_out.clear();
        in_out.extend_from_slice(&output);
        Ok(())
    }
}

/// The SM4 modes (regula-sm).
fn sm4_backend(algorithm: Algorithm, key: &[u8]) -> Result<CipherBackend> {
    sm::forced_backends(algorithm)?;
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
        return Ok(CipherBackend::Sm4Xts(Box::new(xts)));
    }
    let mode = sm::sm4_mode(algorithm)?;
    let key = sm::fixed_size_key::<16>(algorithm, key)?;
    Ok(CipherBackend::Sm4(Box::new(Sm4::new(&key)), mode))
}

/// The AES modes, key wrapping and the legacy ciphers (AWS-LC).
fn aws_lc_backend(algorithm: Algorithm, key: &[u8]) -> Result<CipherBackend> {
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
        return Ok(CipherBackend::Evp(spec, Zeroizing::new(key.to_vec())));
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
    Ok(match mode {
        CipherMode::Cfb8 => CipherBackend::Cfb8(aws_algorithm, Zeroizing::new(key.to_vec())),
        CipherMode::Kw | CipherMode::Kwp => CipherBackend::Wrap {
            padded: mode == CipherMode::Kwp,
            key: Zeroizing::new(key.to_vec()),
        },
        CipherMode::Ctr => CipherBackend::Ctr(
            EncryptingKey::ctr(unbound()?).map_err(backend)?,
            DecryptingKey::ctr(unbound()?).map_err(backend)?,
        ),
        CipherMode::CbcCs3 => CipherBackend::AesCs3(
            EncryptingKey::cbc(unbound()?).map_err(backend)?,
            DecryptingKey::cbc(unbound()?).map_err(backend)?,
        ),
        CipherMode::CbcPkcs7 => CipherBackend::Cbc(
            PaddedBlockEncryptingKey::cbc_pkcs7(unbound()?).map_err(backend)?,
            PaddedBlockDecryptingKey::cbc_pkcs7(unbound()?).map_err(backend)?,
        ),
    })
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
    let iv: [u8; BLOCK] = iv.try_into().map_err(|_| Error::CryptoFailure)?;
    let mut output = vec![0u8; input.len() + BLOCK];
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
            // What lies past the result stays in the Vec's capacity: wipe it (an unwrap's
            // working bytes are key material).
            output[written..].zeroize();
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
        && !(BLOCK..=XTS_MAX_DATA_UNIT).contains(&input.len())
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
    format!("{algorithm} takes whole {BLOCK}-byte blocks without padding, got {len} bytes")
}

/// A CBC-CS3 error as the module reports it: a short input is the caller's, the rest AWS-LC's.
fn cs3_error(algorithm: Algorithm, error: cbc_cs3::Cs3Error) -> Error {
    match error {
        cbc_cs3::Cs3Error::TooShort(_) => Error::invalid_input(format!("{algorithm}: {error}")),
        cbc_cs3::Cs3Error::Backend => Error::CryptoFailure,
    }
}
