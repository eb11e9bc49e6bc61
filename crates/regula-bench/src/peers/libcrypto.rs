//! The system libcrypto in-process (through the `openssl` crate), used the way a careful
//! application would: key schedule set once, only the IV re-initialised per message, the same
//! empty AAD and tag work as Regula's measurement. Symmetric algorithms only.

use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;
use openssl::hash::{MessageDigest, hash};
use openssl::pkey::PKey;
use openssl::sign::Signer;
use regula::Algorithm;

use crate::workload::{Operation, Work};

fn cipher(algorithm: Algorithm) -> Option<&'static CipherRef> {
    Some(match algorithm {
        Algorithm::Aes128Gcm => Cipher::aes_128_gcm(),
        Algorithm::Aes256Gcm => Cipher::aes_256_gcm(),
        Algorithm::ChaCha20Poly1305 => Cipher::chacha20_poly1305(),
        Algorithm::Aes128Ctr => Cipher::aes_128_ctr(),
        Algorithm::Aes256Ctr => Cipher::aes_256_ctr(),
        Algorithm::Aes128Cbc => Cipher::aes_128_cbc(),
        Algorithm::Aes256Cbc => Cipher::aes_256_cbc(),
        Algorithm::Sm4Ecb => Cipher::sm4_ecb(),
        Algorithm::Sm4Cbc => Cipher::sm4_cbc(),
        Algorithm::Sm4Ctr => Cipher::sm4_ctr(),
        _ => return None,
    })
}

fn digest(algorithm: Algorithm) -> Option<MessageDigest> {
    Some(match algorithm {
        Algorithm::Sha1 => MessageDigest::sha1(),
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

/// A prepared libcrypto measurement, or `None` when this peer does not cover the operation.
pub fn workload(
    algorithm: Algorithm,
    operation: Operation,
    size: usize,
) -> Result<Option<Work>, String> {
    let data = vec![0xa5u8; size];
    let work: Work = match operation {
        Operation::Seal | Operation::Encrypt => {
            let Some(cipher) = cipher(algorithm) else {
                return Ok(None);
            };
            let key = vec![0x5au8; cipher.key_length()];
            let mut context = CipherCtx::new().map_err(failed)?;
            context
                .encrypt_init(Some(cipher), Some(&key), None)
                .map_err(failed)?;
            let iv = vec![7u8; cipher.iv_length()];
            let aead = operation == Operation::Seal;
            let mut output = vec![0u8; size + cipher.block_size()];
            let mut tag = [0u8; 16];
            Box::new(move || {
                context
                    .encrypt_init(None, None, Some(&iv))
                    .map_err(failed)?;
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
        Operation::Digest => {
            let Some(digest) = digest(algorithm) else {
                return Ok(None);
            };
            Box::new(move || hash(digest, &data).map(drop).map_err(failed))
        }
        Operation::Mac => {
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
        Operation::Generate if algorithm == Algorithm::CtrDrbg => {
            let mut buffer = data;
            Box::new(move || openssl::rand::rand_bytes(&mut buffer).map_err(failed))
        }
        _ => return Ok(None),
    };
    Ok(Some(work))
}
