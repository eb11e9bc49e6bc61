//! The system libcrypto in-process (through the `openssl` crate), used the way a careful
//! application would: key schedule set once, only the IV re-initialised per message, the same
//! empty AAD and tag work as Regula's measurement. Symmetric algorithms only.
//!
//! AES-GCM and ChaCha20-Poly1305 draw a fresh 96-bit nonce from libcrypto's DRBG
//! (`RAND_bytes`) for every message, as Regula's module draws its nonce for every seal (the form
//! FIPS 140-3 approves for GCM, IG C.H): a fixed IV would leave the peer half the work at small
//! sizes.
//!
//! Per algorithm: AES-CCM with the 11-byte nonce and 16-byte tag SMB 3.x uses (message length
//! announced per message, as CCM requires); GMAC as AES-GCM over an empty plaintext with the
//! message as AAD; AES-XTS in 4096-byte data units, as Regula's measurement; DES and 3DES without
//! padding, as Regula serves them. HMAC and CMAC build the key (`EVP_PKEY`) once and a signing
//! context per message — the `openssl` crate cannot duplicate a keyed MAC context — which
//! understates libcrypto at small sizes. MD4 and RC4 live in OpenSSL 3's legacy provider, which
//! is loaded (beside the default one) only when they are measured.

use std::sync::OnceLock;

use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;
use openssl::hash::{MessageDigest, hash};
use openssl::pkey::PKey;
use openssl::sign::Signer;
use regula::Algorithm;

use crate::workload::{
    CCM_NONCE_LEN, GMAC_NONCE_LEN, Operation, Work, XTS_DATA_UNIT, unsupported_size,
};

fn cipher(algorithm: Algorithm) -> Option<&'static CipherRef> {
    Some(match algorithm {
        Algorithm::Aes128Gcm => Cipher::aes_128_gcm(),
        Algorithm::Aes256Gcm => Cipher::aes_256_gcm(),
        Algorithm::Aes128Ccm => Cipher::aes_128_ccm(),
        Algorithm::Aes256Ccm => Cipher::aes_256_ccm(),
        Algorithm::ChaCha20Poly1305 => Cipher::chacha20_poly1305(),
        Algorithm::Aes128Ctr => Cipher::aes_128_ctr(),
        Algorithm::Aes256Ctr => Cipher::aes_256_ctr(),
        Algorithm::Aes128Cbc => Cipher::aes_128_cbc(),
        Algorithm::Aes256Cbc => Cipher::aes_256_cbc(),
        Algorithm::Aes128Cfb8 => Cipher::aes_128_cfb8(),
        Algorithm::Aes256Cfb8 => Cipher::aes_256_cfb8(),
        Algorithm::Aes256Xts => Cipher::aes_256_xts(),
        Algorithm::DesCbc => Cipher::des_cbc(),
        Algorithm::DesEde3Cbc => Cipher::des_ede3_cbc(),
        Algorithm::Rc4 => Cipher::rc4(),
        Algorithm::Sm4Ecb => Cipher::sm4_ecb(),
        Algorithm::Sm4Cbc => Cipher::sm4_cbc(),
        Algorithm::Sm4Ctr => Cipher::sm4_ctr(),
        _ => return None,
    })
}

fn digest(algorithm: Algorithm) -> Option<MessageDigest> {
    Some(match algorithm {
        Algorithm::Md4 => MessageDigest::from_nid(openssl::nid::Nid::MD4)?,
        Algorithm::Md5 | Algorithm::HmacMd5 => MessageDigest::md5(),
        Algorithm::Sha1 | Algorithm::HmacSha1 => MessageDigest::sha1(),
        Algorithm::Sha224 | Algorithm::HmacSha224 => MessageDigest::sha224(),
        Algorithm::Sha256 | Algorithm::HmacSha256 => MessageDigest::sha256(),
        Algorithm::Sha384 | Algorithm::HmacSha384 => MessageDigest::sha384(),
        Algorithm::Sha512 | Algorithm::HmacSha512 => MessageDigest::sha512(),
        Algorithm::Sha3_256 => MessageDigest::sha3_256(),
        Algorithm::Sha3_384 => MessageDigest::sha3_384(),
        Algorithm::Sha3_512 => MessageDigest::sha3_512(),
        Algorithm::Sm3 | Algorithm::HmacSm3 => MessageDigest::sm3(),
        _ => return None,
    })
}

fn failed(error: openssl::error::ErrorStack) -> String {
    format!("libcrypto: {error}")
}

/// Loads OpenSSL 3's legacy provider (MD4, RC4) beside the default one, once per process.
fn load_legacy_provider() -> Result<(), String> {
    static LOADED: OnceLock<Result<(), String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            // Kept loaded for the rest of the process.
            openssl::provider::Provider::try_load(None, "legacy", true)
                .map(std::mem::forget)
                .map_err(|error| format!("libcrypto: cannot load the legacy provider: {error}"))
        })
        .clone()
}

/// Key bytes for a cipher: counting bytes, so that the two halves of an XTS key differ.
fn key_bytes(len: usize) -> Vec<u8> {
    (0..len).map(|index| index as u8 ^ 0x5a).collect()
}

/// What a reader of a libcrypto figure must know, where its work differs from Regula's.
pub fn caveat(algorithm: Algorithm, operation: Operation) -> Option<&'static str> {
    match (operation, algorithm) {
        (Operation::Mac, Algorithm::Aes128Gmac | Algorithm::Aes256Gmac) => None,
        (Operation::Mac, _)
            if digest(algorithm).is_some()
                || matches!(algorithm, Algorithm::Aes128Cmac | Algorithm::Aes256Cmac) =>
        {
            Some(
                "the key (EVP_PKEY) is made once but a signing context per message, whose set-up \
             (EVP_DigestSignInit, several µs in OpenSSL 3.0) dominates small sizes; the \
             `openssl` peer keeps the keyed context",
            )
        }
        (Operation::Encrypt, Algorithm::Rc4) => Some(
            "one RC4 keystream continues across messages; Regula's RC4 takes no IV, so each \
             message is keyed anew (the 256-step key schedule every time)",
        ),
        _ => None,
    }
}

/// A prepared libcrypto measurement, or `None` when this peer does not cover the operation.
pub fn workload(
    algorithm: Algorithm,
    operation: Operation,
    size: usize,
) -> Result<Option<Work>, String> {
    if matches!(algorithm, Algorithm::Md4 | Algorithm::Rc4) {
        load_legacy_provider()?;
    }
    let data = vec![0xa5u8; size];
    let work: Work = match (operation, algorithm) {
        (Operation::Seal, Algorithm::Aes128Ccm | Algorithm::Aes256Ccm) => {
            let cipher = cipher(algorithm).ok_or("no CCM cipher")?;
            let key = key_bytes(cipher.key_length());
            let mut context = CipherCtx::new().map_err(failed)?;
            context
                .encrypt_init(Some(cipher), None, None)
                .map_err(failed)?;
            context.set_iv_length(CCM_NONCE_LEN).map_err(failed)?;
            context.set_tag_length(16).map_err(failed)?;
            context
                .encrypt_init(None, Some(&key), None)
                .map_err(failed)?;
            let nonce = [9u8; CCM_NONCE_LEN];
            let mut output = vec![0u8; size + 16];
            let mut tag = [0u8; 16];
            Box::new(move || {
                context
                    .encrypt_init(None, None, Some(&nonce))
                    .map_err(failed)?;
                // CCM needs the message length before the data (it is in the first block).
                context.set_data_len(data.len()).map_err(failed)?;
                let written = context
                    .cipher_update(&data, Some(&mut output))
                    .map_err(failed)?;
                context
                    .cipher_final(&mut output[written..])
                    .map_err(failed)?;
                context.tag(&mut tag).map_err(failed)
            })
        }
        (Operation::Mac, Algorithm::Aes128Gmac | Algorithm::Aes256Gmac) => {
            let cipher = if algorithm == Algorithm::Aes128Gmac {
                Cipher::aes_128_gcm()
            } else {
                Cipher::aes_256_gcm()
            };
            let key = key_bytes(cipher.key_length());
            let mut context = CipherCtx::new().map_err(failed)?;
            context
                .encrypt_init(Some(cipher), Some(&key), None)
                .map_err(failed)?;
            let nonce = [9u8; GMAC_NONCE_LEN];
            let mut tag = [0u8; 16];
            let mut nothing = [0u8; 16];
            Box::new(move || {
                context
                    .encrypt_init(None, None, Some(&nonce))
                    .map_err(failed)?;
                // No output buffer: the message is additional authenticated data.
                context.cipher_update(&data, None).map_err(failed)?;
                context.cipher_final(&mut nothing).map_err(failed)?;
                context.tag(&mut tag).map_err(failed)
            })
        }
        (Operation::Encrypt, Algorithm::Aes256Xts) => {
            if let Some(reason) = unsupported_size(algorithm, size) {
                return Err(reason);
            }
            let cipher = Cipher::aes_256_xts();
            let key = key_bytes(cipher.key_length());
            let mut context = CipherCtx::new().map_err(failed)?;
            context
                .encrypt_init(Some(cipher), Some(&key), None)
                .map_err(failed)?;
            let mut output = vec![0u8; XTS_DATA_UNIT.min(size) + 16];
            Box::new(move || {
                for (unit, chunk) in data.chunks(XTS_DATA_UNIT).enumerate() {
                    let tweak = (unit as u128).to_le_bytes();
                    context
                        .encrypt_init(None, None, Some(&tweak))
                        .map_err(failed)?;
                    context
                        .cipher_update(chunk, Some(&mut output))
                        .map_err(failed)?;
                }
                Ok(())
            })
        }
        (Operation::Seal | Operation::Encrypt, _) => {
            let Some(cipher) = cipher(algorithm) else {
                return Ok(None);
            };
            if let Some(reason) = unsupported_size(algorithm, size) {
                return Err(reason);
            }
            let key = key_bytes(cipher.key_length());
            let mut context = CipherCtx::new().map_err(failed)?;
            context
                .encrypt_init(Some(cipher), None, None)
                .map_err(failed)?;
            context
                .encrypt_init(None, Some(&key), None)
                .map_err(failed)?;
            // Regula's DES and 3DES take whole blocks without padding; its CBC pads (PKCS#7).
            if matches!(algorithm, Algorithm::DesCbc | Algorithm::DesEde3Cbc) {
                context.set_padding(false);
            }
            let mut iv = vec![7u8; cipher.iv_length()];
            let aead = operation == Operation::Seal;
            let mut output = vec![0u8; size + cipher.block_size()];
            let mut tag = [0u8; 16];
            Box::new(move || {
                if aead {
                    openssl::rand::rand_bytes(&mut iv).map_err(failed)?;
                }
                if !iv.is_empty() {
                    context
                        .encrypt_init(None, None, Some(&iv))
                        .map_err(failed)?;
                }
                let written = context
                    .cipher_update(&data, Some(&mut output))
                    .map_err(failed)?;
                context
                    .cipher_final(&mut output[written..])
                    .map_err(failed)?;
                if aead {
                    context.tag(&mut tag).map_err(failed)?;
                }
                Ok(())
            })
        }
        (Operation::Digest, _) => {
            let Some(digest) = digest(algorithm) else {
                return Ok(None);
            };
            // Fails here, not mid-measurement, when the digest is unavailable.
            hash(digest, &data).map_err(failed)?;
            Box::new(move || hash(digest, &data).map(drop).map_err(failed))
        }
        (Operation::Mac, Algorithm::Aes128Cmac | Algorithm::Aes256Cmac) => {
            let cipher = if algorithm == Algorithm::Aes128Cmac {
                openssl::symm::Cipher::aes_128_cbc()
            } else {
                openssl::symm::Cipher::aes_256_cbc()
            };
            let key = PKey::cmac(&cipher, &key_bytes(cipher.key_len())).map_err(failed)?;
            Box::new(move || {
                let mut signer = Signer::new_without_digest(&key).map_err(failed)?;
                signer.update(&data).map_err(failed)?;
                signer.sign_to_vec().map(drop).map_err(failed)
            })
        }
        (Operation::Mac, _) => {
            let key = PKey::hmac(&[0x5au8; 32]).map_err(failed)?;
            let Some(digest) = digest(algorithm) else {
                return Ok(None);
            };
            Box::new(move || {
                let mut signer = Signer::new(digest, &key).map_err(failed)?;
                signer.update(&data).map_err(failed)?;
                signer.sign_to_vec().map(drop).map_err(failed)
            })
        }
        (Operation::Generate, Algorithm::CtrDrbg) => {
            let mut buffer = data;
            Box::new(move || openssl::rand::rand_bytes(&mut buffer).map_err(failed))
        }
        _ => return Ok(None),
    };
    Ok(Some(work))
}
