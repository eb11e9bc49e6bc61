//! What one measurement does: the same operation through Regula's public API and through raw
//! aws-lc-rs, so that their ratio is the cost of Regula's own layer.

use aws_lc_rs::aead::{self, Aad, LessSafeKey, Nonce, RandomizedNonceKey, UnboundKey};
use aws_lc_rs::cipher::{
    EncryptingKey, EncryptionContext, PaddedBlockEncryptingKey, UnboundCipherKey,
};
use aws_lc_rs::iv::FixedLength;
use aws_lc_rs::key_wrap::{self, KeyWrap, KeyWrapPadded};
use aws_lc_rs::signature::{
    self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair, UnparsedPublicKey,
};
use aws_lc_rs::{agreement, cmac, digest, hmac, kdf, kem, rand};
use regula::{Algorithm, Family, Module};
use serde::Serialize;

/// An operation the benchmark measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// AEAD encryption with a module-generated nonce.
    Seal,
    Encrypt,
    Digest,
    Mac,
    /// DRBG output.
    Generate,
    Keygen,
    Sign,
    Verify,
    /// Key agreement, or a key-derivation function's one derivation (KBKDF).
    Derive,
    Encapsulate,
    Decapsulate,
    /// Key wrapping of one 32-byte key (AES-KW, AES-KWP).
    Wrap,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Operation::Seal => "seal",
            Operation::Encrypt => "encrypt",
            Operation::Digest => "digest",
            Operation::Mac => "mac",
            Operation::Generate => "generate",
            Operation::Keygen => "keygen",
            Operation::Sign => "sign",
            Operation::Verify => "verify",
            Operation::Derive => "derive",
            Operation::Encapsulate => "encapsulate",
            Operation::Decapsulate => "decapsulate",
            Operation::Wrap => "wrap",
        }
    }

    /// A measured rate in the operation's unit: MB/s (10^6 bytes/s) of `size`-byte buffers for
    /// throughput operations, operations per second otherwise.
    pub fn rate(self, ops_per_second: f64, size: usize) -> f64 {
        if self.is_throughput() {
            ops_per_second * size as f64 / 1e6
        } else {
            ops_per_second
        }
    }

    /// Measured in MB/s over buffer sizes (true) or in operations per second (false).
    pub fn is_throughput(self) -> bool {
        matches!(
            self,
            Operation::Seal
                | Operation::Encrypt
                | Operation::Digest
                | Operation::Mac
                | Operation::Generate
        )
    }
}

/// The operations benchmarked for an algorithm. Key wrapping and SP 800-108 KBKDF are counted
/// in operations per second (one 32-byte key wrapped, one 16-byte key derived); HKDF and PBKDF2
/// are not benchmarked.
pub fn operations(algorithm: Algorithm) -> &'static [Operation] {
    if is_key_wrap(algorithm) {
        return &[Operation::Wrap];
    }
    if is_kbkdf(algorithm) {
        return &[Operation::Derive];
    }
    match algorithm.family() {
        Family::Aead => &[Operation::Seal],
        Family::Cipher => &[Operation::Encrypt],
        Family::Digest => &[Operation::Digest],
        Family::Mac => &[Operation::Mac],
        Family::Random => &[Operation::Generate],
        Family::Signature => &[Operation::Keygen, Operation::Sign, Operation::Verify],
        Family::KeyAgreement => &[Operation::Keygen, Operation::Derive],
        Family::Kem => &[
            Operation::Keygen,
            Operation::Encapsulate,
            Operation::Decapsulate,
        ],
        _ => &[],
    }
}

/// A prepared measurement: each call performs one operation.
pub type Work = Box<dyn FnMut() -> Result<(), String>>;

fn is_key_wrap(algorithm: Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::Aes128Kw | Algorithm::Aes256Kw | Algorithm::Aes128Kwp | Algorithm::Aes256Kwp
    )
}

fn is_kbkdf(algorithm: Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::KbkdfCtrHmacSha256
            | Algorithm::KbkdfCtrHmacSha384
            | Algorithm::KbkdfCtrHmacSha512
    )
}

/// AES-CCM as SMB 3.x uses it (MS-SMB2 §3.1.4.3, RFC 4309's layout): an 11-byte nonce and a
/// 16-byte tag.
pub const CCM_NONCE_LEN: usize = 11;
/// GMAC's nonce in the benchmark: the 96-bit one SP 800-38D recommends and SMB 3.1.1 signing uses.
pub const GMAC_NONCE_LEN: usize = 12;
/// The XTS data unit of the benchmark: a 4096-byte sector, as disk encryption uses. Buffers
/// longer than that are encrypted as consecutive data units with the unit number as tweak;
/// shorter ones (at least one 16-byte block) as one data unit.
pub const XTS_DATA_UNIT: usize = 4096;
/// The key the key-wrap benchmark wraps.
pub const WRAPPED_KEY_LEN: usize = 32;
/// The SMB 3.0 signing-key derivation (MS-SMB2 §3.2.5.3.1): SP 800-108 counter mode with
/// HMAC-SHA256, a 16-byte session key, label `SMB2AESCMAC\0`, context `SmbSign\0`, L = 128.
pub const KBKDF_LABEL: &[u8] = b"SMB2AESCMAC\0";
pub const KBKDF_CONTEXT: &[u8] = b"SmbSign\0";
pub const KBKDF_OUTPUT_LEN: usize = 16;
/// The SMB session key KBKDF derives from (MS-SMB2 §3.3.5.5.3: 16 bytes).
const KBKDF_SESSION_KEY_LEN: usize = 16;

/// The KBKDF fixed input `Label ‖ 0x00 ‖ Context ‖ [L]₃₂` (SP 800-108r1 §4) for the benchmark's
/// label, context and output length, for the peers that take the fixed input whole.
pub fn kbkdf_fixed_input() -> Vec<u8> {
    let mut fixed = KBKDF_LABEL.to_vec();
    fixed.push(0);
    fixed.extend_from_slice(KBKDF_CONTEXT);
    fixed.extend_from_slice(&((KBKDF_OUTPUT_LEN * 8) as u32).to_be_bytes());
    fixed
}

/// Why a buffer size cannot be measured for this algorithm, if it cannot: XTS needs a whole
/// block, DES and 3DES take whole 8-byte blocks without padding.
pub fn unsupported_size(algorithm: Algorithm, size: usize) -> Option<String> {
    match algorithm {
        Algorithm::Aes256Xts if size < 16 => Some(format!(
            "{} needs data units of at least 16 bytes, not {size}",
            algorithm.name()
        )),
        Algorithm::DesCbc | Algorithm::DesEde3Cbc if !size.is_multiple_of(8) => Some(format!(
            "{} takes whole 8-byte blocks, not {size} bytes",
            algorithm.name()
        )),
        _ => None,
    }
}

const MESSAGE: &[u8] = b"Regula benchmark message: 64 bytes of data to sign and to verify.";
/// RSA keys in the benchmark: the common TLS size and OpenSSL `speed rsa2048`'s.
const RSA_BITS: u32 = 2048;

/// The key-size argument of key generation: RSA's modulus, nothing for fixed-size keys.
fn key_bits(algorithm: Algorithm) -> Option<u32> {
    algorithm.name().starts_with("rsa-").then_some(RSA_BITS)
}

/// The key the benchmark uses, sized from the algorithm's registry row: its fixed key length,
/// 16 bytes where the row admits a range containing it (RC4), SMB's 16-byte session key for
/// KBKDF, and 32 bytes for HMAC keys and other secrets of any length.
pub(crate) fn key_len(algorithm: Algorithm) -> usize {
    if is_kbkdf(algorithm) {
        return KBKDF_SESSION_KEY_LEN;
    }
    match algorithm.entry().sizes.key {
        Some(lengths) if lengths.min != lengths.max && lengths.contains(16) => 16,
        Some(lengths) => lengths.max,
        None => 32,
    }
}

fn failed(what: &str) -> impl Fn(regula::Error) -> String + '_ {
    move |error| format!("{what}: {error}")
}

/// The operation through Regula's public API, policy check and indicator included. `Err`
/// explains why it cannot run (e.g. the policy refuses it).
pub fn regula(
    module: &Module,
    algorithm: Algorithm,
    operation: Operation,
    size: usize,
) -> Result<Work, String> {
    // Counting bytes: XTS refuses keys whose two halves are equal.
    let key: Vec<u8> = (0..key_len(algorithm) as u8).collect();
    let data = vec![0xa5; size];
    let fail = failed(algorithm.name());
    Ok(match operation {
        Operation::Seal if matches!(algorithm, Algorithm::Aes128Ccm | Algorithm::Aes256Ccm) => {
            // SMB 3.x's CCM: the caller's 11-byte nonce (a message counter), 16-byte tag.
            let key = module.aead_key(algorithm, &key).map_err(&fail)?;
            let nonce = [9u8; CCM_NONCE_LEN];
            let mut buffer = data;
            Box::new(move || {
                key.seal_in_place_with_nonce(&nonce, &[], &mut buffer)
                    .map_err(|error| error.to_string())?;
                buffer.truncate(size);
                Ok(())
            })
        }
        Operation::Seal => {
            let key = module.aead_key(algorithm, &key).map_err(&fail)?;
            let mut buffer = data;
            Box::new(move || {
                key.seal_in_place(&[], &mut buffer)
                    .map_err(|error| error.to_string())?;
                buffer.truncate(size);
                Ok(())
            })
        }
        Operation::Encrypt => {
            if let Some(reason) = unsupported_size(algorithm, size) {
                return Err(reason);
            }
            let key = module.cipher_key(algorithm, &key).map_err(&fail)?;
            // ECB and RC4 take no IV; DES an 8-byte one; XTS a 16-byte tweak.
            let iv = key.takes_iv().then(|| vec![7u8; key.iv_len()]);
            if algorithm == Algorithm::Aes256Xts {
                return Ok(Box::new(move || {
                    for (unit, chunk) in data.chunks(XTS_DATA_UNIT).enumerate() {
                        let tweak = (unit as u128).to_le_bytes();
                        key.encrypt(Some(&tweak), chunk)
                            .map_err(|error| error.to_string())?;
                    }
                    Ok(())
                }));
            }
            // A caller that encrypts many messages keeps the key bound and reuses its buffer.
            let iv = iv.unwrap_or_default();
            let mut buffer = Vec::with_capacity(size + 16);
            Box::new(move || {
                buffer.clear();
                buffer.extend_from_slice(&data);
                key.encrypt_in_place(&iv, &mut buffer)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
        Operation::Wrap => {
            let key = module.cipher_key(algorithm, &key).map_err(&fail)?;
            let wrapped = [0xa5u8; WRAPPED_KEY_LEN];
            key.encrypt(None, &wrapped).map_err(&fail)?;
            Box::new(move || {
                key.encrypt(None, &wrapped)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
        Operation::Derive if is_kbkdf(algorithm) => {
            let module = module.clone();
            let derive = move || {
                module.kbkdf_label_context(
                    algorithm,
                    &key,
                    KBKDF_LABEL,
                    KBKDF_CONTEXT,
                    KBKDF_OUTPUT_LEN,
                )
            };
            derive().map_err(&fail)?;
            Box::new(move || derive().map(drop).map_err(|error| error.to_string()))
        }
        Operation::Digest => {
            // Bound once, digests into a reused buffer (the one-shot `Module::digest` also
            // takes the policy's verdict and allocates its output per call).
            let digester = module.digester(algorithm).map_err(&fail)?;
            let mut out = [0u8; 64];
            Box::new(move || {
                digester
                    .digest_into(&data, &mut out)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
        Operation::Mac => {
            let key = module.mac_key(algorithm, &key).map_err(&fail)?;
            if key.takes_nonce() {
                // GMAC: the message is the authenticated data, under a 12-byte nonce.
                let nonce = [9u8; GMAC_NONCE_LEN];
                key.sign_with_nonce(&nonce, &data).map_err(&fail)?;
                return Ok(Box::new(move || {
                    key.sign_with_nonce(&nonce, &data)
                        .map(drop)
                        .map_err(|error| error.to_string())
                }));
            }
            Box::new(move || key.sign(&data).map(drop).map_err(|error| error.to_string()))
        }
        Operation::Generate => {
            let module = module.clone();
            let mut buffer = data;
            module.fill_random(&mut buffer).map_err(&fail)?;
            Box::new(move || {
                module
                    .fill_random(&mut buffer)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
        Operation::Keygen => {
            let module = module.clone();
            let family = algorithm.family();
            let generate = move || -> Result<(), regula::Error> {
                match family {
                    Family::Signature => module
                        .generate_signing_key(algorithm, key_bits(algorithm))
                        .map(drop),
                    Family::KeyAgreement => module.generate_agreement_key(algorithm).map(drop),
                    _ => module.generate_kem_key(algorithm).map(drop),
                }
            };
            generate().map_err(&fail)?;
            Box::new(move || generate().map_err(|error| error.to_string()))
        }
        Operation::Sign => {
            let key = module
                .generate_signing_key(algorithm, key_bits(algorithm))
                .map_err(&fail)?
                .into_value();
            Box::new(move || {
                key.sign(MESSAGE)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
        Operation::Verify => {
            let key = module
                .generate_signing_key(algorithm, key_bits(algorithm))
                .map_err(&fail)?
                .into_value();
            let public_key = key.public_key_der().map_err(&fail)?;
            let signature = key.sign(MESSAGE).map_err(&fail)?.into_value();
            let module = module.clone();
            Box::new(move || {
                module
                    .verify(algorithm, &public_key, MESSAGE, &signature)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
        Operation::Derive => {
            let own = module
                .generate_agreement_key(algorithm)
                .map_err(&fail)?
                .into_value();
            let peer = module
                .generate_agreement_key(algorithm)
                .map_err(&fail)?
                .into_value();
            let peer_public = peer.public_key().map_err(&fail)?;
            Box::new(move || {
                own.agree(&peer_public)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
        Operation::Encapsulate => {
            let key = module
                .generate_kem_key(algorithm)
                .map_err(&fail)?
                .into_value();
            let public_key = key.encapsulation_key().map_err(&fail)?;
            let module = module.clone();
            Box::new(move || {
                module
                    .encapsulate(algorithm, &public_key)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
        Operation::Decapsulate => {
            let key = module
                .generate_kem_key(algorithm)
                .map_err(&fail)?
                .into_value();
            let public_key = key.encapsulation_key().map_err(&fail)?;
            let ciphertext = module
                .encapsulate(algorithm, &public_key)
                .map_err(&fail)?
                .into_value()
                .ciphertext;
            Box::new(move || {
                key.decapsulate(&ciphertext)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        }
    })
}

fn raw_failed(what: &'static str) -> impl Fn(aws_lc_rs::error::Unspecified) -> String {
    move |_| format!("aws-lc-rs {what} failed")
}

/// The same operation on aws-lc-rs directly, as an application without Regula would call it.
pub fn raw(algorithm: Algorithm, operation: Operation, size: usize) -> Result<Work, String> {
    let key = vec![0x5a; key_len(algorithm)];
    let data = vec![0xa5; size];
    let unsupported = || {
        Err(format!(
            "no raw aws-lc-rs equivalent for {} {}",
            algorithm.name(),
            operation.name()
        ))
    };
    Ok(match (operation, algorithm) {
        (Operation::Seal, Algorithm::Aes128Gcm | Algorithm::Aes256Gcm) => {
            let aws = if algorithm == Algorithm::Aes128Gcm {
                &aead::AES_128_GCM
            } else {
                &aead::AES_256_GCM
            };
            let key = RandomizedNonceKey::new(aws, &key).map_err(raw_failed("key"))?;
            let mut buffer = data;
            Box::new(move || {
                key.seal_in_place_append_tag(Aad::empty(), &mut buffer)
                    .map_err(raw_failed("seal"))?;
                buffer.truncate(size);
                Ok(())
            })
        }
        (Operation::Seal, Algorithm::ChaCha20Poly1305) => {
            let key = LessSafeKey::new(
                UnboundKey::new(&aead::CHACHA20_POLY1305, &key).map_err(raw_failed("key"))?,
            );
            let mut buffer = data;
            Box::new(move || {
                let mut nonce = [0u8; 12];
                rand::fill(&mut nonce).map_err(raw_failed("rand"))?;
                key.seal_in_place_append_tag(
                    Nonce::assume_unique_for_key(nonce),
                    Aad::empty(),
                    &mut buffer,
                )
                .map_err(raw_failed("seal"))?;
                buffer.truncate(size);
                Ok(())
            })
        }
        (Operation::Encrypt, Algorithm::Sm4Ecb | Algorithm::Sm4Cbc | Algorithm::Sm4Ctr) => {
            let cipher = regula_sm::Sm4::new(&[0x5a; 16]);
            let iv = [7u8; 16];
            // The same buffer handling as Regula's: the message copied into a reused buffer.
            let mut buffer = Vec::with_capacity(size + 16);
            match algorithm {
                Algorithm::Sm4Ecb => Box::new(move || {
                    buffer.clear();
                    buffer.extend_from_slice(&data);
                    regula_sm::sm4::modes::ecb_encrypt(&cipher, &mut buffer)
                        .map_err(|error| error.to_string())
                }),
                Algorithm::Sm4Cbc => Box::new(move || {
                    buffer.clear();
                    buffer.extend_from_slice(&data);
                    regula_sm::sm4::modes::cbc_encrypt_padded_in_place(&cipher, &iv, &mut buffer);
                    std::hint::black_box(&buffer);
                    Ok(())
                }),
                _ => Box::new(move || {
                    buffer.clear();
                    buffer.extend_from_slice(&data);
                    regula_sm::sm4::modes::ctr_apply_keystream(&cipher, &iv, &mut buffer);
                    std::hint::black_box(&buffer);
                    Ok(())
                }),
            }
        }
        (Operation::Seal, Algorithm::Sm4Gcm | Algorithm::Sm4Ccm) => {
            let gcm = regula_sm::sm4::modes::Sm4Gcm::new(&[0x5a; 16]);
            let ccm = regula_sm::sm4::modes::Sm4Ccm::new(&[0x5a; 16]);
            let mut buffer = data;
            // The nonces Regula makes for these keys (SP 800-38D 8.2.1: a fixed field and an
            // invocation counter from a random start), so that both sides do the same work.
            let mut start = [0u8; 12];
            rand::fill(&mut start).map_err(raw_failed("rand"))?;
            let mut invocation = u64::from_be_bytes(start[4..].try_into().unwrap_or_default());
            Box::new(move || {
                let mut nonce = start;
                nonce[4..].copy_from_slice(&invocation.to_be_bytes());
                invocation = invocation.wrapping_add(1);
                let tag = if algorithm == Algorithm::Sm4Gcm {
                    gcm.encrypt(&nonce, &[], &mut buffer)
                } else {
                    ccm.encrypt(&nonce, &[], &mut buffer)
                };
                std::hint::black_box(tag.map_err(|error| error.to_string())?);
                Ok(())
            })
        }
        (Operation::Encrypt, Algorithm::Sm4Xts | Algorithm::Sm4XtsGb) => {
            let standard = if algorithm == Algorithm::Sm4Xts {
                regula_sm::sm4::modes::XtsStandard::Ieee1619
            } else {
                regula_sm::sm4::modes::XtsStandard::GbT17964
            };
            let key: [u8; 32] = std::array::from_fn(|index| index as u8);
            let xts = regula_sm::sm4::modes::Xts::new(&key, standard)
                .map_err(|error| error.to_string())?;
            let mut buffer = data;
            Box::new(move || {
                xts.encrypt(&[7; 16], &mut buffer)
                    .map_err(|error| error.to_string())
            })
        }
        (Operation::Encrypt, Algorithm::Sm4CbcCs3) => {
            let cipher = regula_sm::Sm4::new(&[0x5a; 16]);
            let mut buffer = data;
            Box::new(move || {
                regula_sm::sm4::modes::cbc_cs3_encrypt(&cipher, &[7; 16], &mut buffer)
                    .map_err(|error| error.to_string())
            })
        }
        (Operation::Mac, Algorithm::Sm4Cmac | Algorithm::Sm4XcbcMac | Algorithm::Sm4CbcMac) => {
            use regula_sm::sm4::modes::{CbcMac, Cmac, Xcbc};
            let (cmac, xcbc, cbc_mac) = (
                Cmac::new(&[0x5a; 16]),
                Xcbc::new(&[0x5a; 16]),
                CbcMac::new(&[0x5a; 16]),
            );
            Box::new(move || {
                let tag = match algorithm {
                    Algorithm::Sm4Cmac => cmac.compute(&data),
                    Algorithm::Sm4XcbcMac => xcbc.compute(&data),
                    _ => cbc_mac.compute(&data),
                };
                std::hint::black_box(tag.map_err(|error| error.to_string())?);
                Ok(())
            })
        }
        (Operation::Digest, Algorithm::Sm3) => Box::new(move || {
            std::hint::black_box(regula_sm::sm3::sm3(&data));
            Ok(())
        }),
        (Operation::Mac, Algorithm::HmacSm3) => {
            let keyed = regula_sm::sm3::HmacSm3::new(&key).map_err(|error| error.to_string())?;
            Box::new(move || {
                let mut mac = keyed.clone();
                mac.update(&data);
                std::hint::black_box(mac.finalize());
                Ok(())
            })
        }
        (
            Operation::Encrypt,
            Algorithm::Aes128Ctr
            | Algorithm::Aes256Ctr
            | Algorithm::Aes128Cbc
            | Algorithm::Aes256Cbc
            | Algorithm::Aes128Cfb8
            | Algorithm::Aes256Cfb8,
        ) => {
            let aes = if key_len(algorithm) == 16 {
                &aws_lc_rs::cipher::AES_128
            } else {
                &aws_lc_rs::cipher::AES_256
            };
            let unbound = UnboundCipherKey::new(aes, &key).map_err(raw_failed("key"))?;
            let iv = [7u8; 16];
            let context = move || EncryptionContext::Iv128(FixedLength::from(iv));
            match algorithm {
                Algorithm::Aes128Cbc | Algorithm::Aes256Cbc => {
                    let key =
                        PaddedBlockEncryptingKey::cbc_pkcs7(unbound).map_err(raw_failed("key"))?;
                    let mut buffer = Vec::with_capacity(size + 16);
                    Box::new(move || {
                        buffer.clear();
                        buffer.extend_from_slice(&data);
                        key.less_safe_encrypt(&mut buffer, context())
                            .map(drop)
                            .map_err(raw_failed("encrypt"))
                    })
                }
                _ => {
                    let key = if matches!(algorithm, Algorithm::Aes128Ctr | Algorithm::Aes256Ctr) {
                        EncryptingKey::ctr(unbound)
                    } else {
                        EncryptingKey::cfb8(unbound)
                    }
                    .map_err(raw_failed("key"))?;
                    let mut buffer = Vec::with_capacity(size + 16);
                    Box::new(move || {
                        buffer.clear();
                        buffer.extend_from_slice(&data);
                        key.less_safe_encrypt(&mut buffer, context())
                            .map(drop)
                            .map_err(raw_failed("encrypt"))
                    })
                }
            }
        }
        (Operation::Wrap, _) if is_key_wrap(algorithm) => {
            let aes = if key_len(algorithm) == 16 {
                &key_wrap::AES_128
            } else {
                &key_wrap::AES_256
            };
            let padded = matches!(algorithm, Algorithm::Aes128Kwp | Algorithm::Aes256Kwp);
            let wrapped = [0xa5u8; WRAPPED_KEY_LEN];
            let mut output = [0u8; WRAPPED_KEY_LEN + 16];
            // aws-lc-rs consumes the key-encryption key, so it is built per wrap, as in Regula.
            Box::new(move || {
                let kek = key_wrap::KeyEncryptionKey::new(aes, &key).map_err(raw_failed("key"))?;
                if padded {
                    kek.wrap_with_padding(&wrapped, &mut output)
                } else {
                    kek.wrap(&wrapped, &mut output)
                }
                .map(drop)
                .map_err(raw_failed("wrap"))
            })
        }
        (Operation::Derive, _) if is_kbkdf(algorithm) => {
            let aws = kdf::get_kbkdf_ctr_hmac_algorithm(match algorithm {
                Algorithm::KbkdfCtrHmacSha256 => kdf::KbkdfCtrHmacAlgorithmId::Sha256,
                Algorithm::KbkdfCtrHmacSha384 => kdf::KbkdfCtrHmacAlgorithmId::Sha384,
                _ => kdf::KbkdfCtrHmacAlgorithmId::Sha512,
            })
            .ok_or("aws-lc-rs lacks this KBKDF")?;
            let fixed_input = kbkdf_fixed_input();
            let mut output = [0u8; KBKDF_OUTPUT_LEN];
            Box::new(move || {
                kdf::kbkdf_ctr_hmac(aws, &key, &fixed_input, &mut output)
                    .map_err(raw_failed("kbkdf"))
            })
        }
        (Operation::Mac, Algorithm::Aes128Gmac | Algorithm::Aes256Gmac) => {
            // GMAC with a 96-bit nonce is AES-GCM over an empty plaintext with the message as
            // AAD; aws-lc-rs serves that (other nonce lengths need AWS-LC's C interface).
            let aws = if algorithm == Algorithm::Aes128Gmac {
                &aead::AES_128_GCM
            } else {
                &aead::AES_256_GCM
            };
            let key = LessSafeKey::new(UnboundKey::new(aws, &key).map_err(raw_failed("key"))?);
            Box::new(move || {
                let tag = key
                    .seal_in_place_separate_tag(
                        Nonce::assume_unique_for_key([9u8; GMAC_NONCE_LEN]),
                        Aad::from(&data[..]),
                        &mut [],
                    )
                    .map_err(raw_failed("gmac"))?;
                std::hint::black_box(tag.as_ref());
                Ok(())
            })
        }
        (Operation::Digest, _) => {
            let aws = match algorithm {
                Algorithm::Sha1 => &digest::SHA1_FOR_LEGACY_USE_ONLY,
                Algorithm::Sha224 => &digest::SHA224,
                Algorithm::Sha256 => &digest::SHA256,
                Algorithm::Sha384 => &digest::SHA384,
                Algorithm::Sha512 => &digest::SHA512,
                Algorithm::Sha512_256 => &digest::SHA512_256,
                Algorithm::Sha3_256 => &digest::SHA3_256,
                Algorithm::Sha3_384 => &digest::SHA3_384,
                Algorithm::Sha3_512 => &digest::SHA3_512,
                _ => return unsupported(),
            };
            Box::new(move || {
                std::hint::black_box(digest::digest(aws, &data));
                Ok(())
            })
        }
        (Operation::Mac, Algorithm::Aes128Cmac | Algorithm::Aes256Cmac) => {
            let aws = if algorithm == Algorithm::Aes128Cmac {
                cmac::AES_128
            } else {
                cmac::AES_256
            };
            let key = cmac::Key::new(aws, &key).map_err(raw_failed("key"))?;
            Box::new(move || {
                cmac::sign(&key, &data)
                    .map(drop)
                    .map_err(raw_failed("cmac"))
            })
        }
        (Operation::Mac, _) => {
            let aws = match algorithm {
                Algorithm::HmacSha1 => hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY,
                Algorithm::HmacSha224 => hmac::HMAC_SHA224,
                Algorithm::HmacSha256 => hmac::HMAC_SHA256,
                Algorithm::HmacSha384 => hmac::HMAC_SHA384,
                Algorithm::HmacSha512 => hmac::HMAC_SHA512,
                _ => return unsupported(),
            };
            let key = hmac::Key::new(aws, &key);
            Box::new(move || {
                std::hint::black_box(hmac::sign(&key, &data));
                Ok(())
            })
        }
        (Operation::Generate, _) => {
            let mut buffer = data;
            Box::new(move || rand::fill(&mut buffer).map_err(raw_failed("rand")))
        }
        (
            Operation::Sign | Operation::Verify | Operation::Keygen | Operation::Derive,
            Algorithm::Sm2Sign | Algorithm::Sm2Ecdh,
        ) => raw_sm2(operation)?,
        (Operation::Sign | Operation::Verify | Operation::Keygen, _) => {
            raw_signature(algorithm, operation)?
        }
        (Operation::Derive, _) => {
            let aws = agreement_algorithm(algorithm).ok_or("not a key-agreement algorithm")?;
            let own = agreement::PrivateKey::generate(aws).map_err(raw_failed("keygen"))?;
            let peer = agreement::PrivateKey::generate(aws).map_err(raw_failed("keygen"))?;
            let peer_public = peer
                .compute_public_key()
                .map_err(raw_failed("public key"))?
                .as_ref()
                .to_vec();
            Box::new(move || {
                agreement::agree(
                    &own,
                    agreement::UnparsedPublicKey::new(aws, &peer_public),
                    "aws-lc-rs agree failed".to_string(),
                    |secret| {
                        std::hint::black_box(secret);
                        Ok(())
                    },
                )
            })
        }
        (Operation::Encapsulate | Operation::Decapsulate, _) => {
            let aws = kem_algorithm(algorithm).ok_or("not a KEM algorithm")?;
            let key = kem::DecapsulationKey::generate(aws).map_err(raw_failed("keygen"))?;
            let public_key = key.encapsulation_key().map_err(raw_failed("public key"))?;
            if operation == Operation::Encapsulate {
                Box::new(move || {
                    public_key
                        .encapsulate()
                        .map(drop)
                        .map_err(raw_failed("encapsulate"))
                })
            } else {
                let (ciphertext, _) = public_key
                    .encapsulate()
                    .map_err(raw_failed("encapsulate"))?;
                let ciphertext = ciphertext.as_ref().to_vec();
                Box::new(move || {
                    key.decapsulate(kem::Ciphertext::from(ciphertext.as_slice()))
                        .map(drop)
                        .map_err(raw_failed("decapsulate"))
                })
            }
        }
        _ => return unsupported(),
    })
}

fn agreement_algorithm(algorithm: Algorithm) -> Option<&'static agreement::Algorithm> {
    match algorithm {
        Algorithm::EcdhP256 => Some(&agreement::ECDH_P256),
        Algorithm::EcdhP384 => Some(&agreement::ECDH_P384),
        Algorithm::EcdhP521 => Some(&agreement::ECDH_P521),
        Algorithm::X25519 => Some(&agreement::X25519),
        _ => None,
    }
}

fn kem_algorithm(algorithm: Algorithm) -> Option<&'static kem::Algorithm> {
    match algorithm {
        Algorithm::MlKem768 => Some(&kem::ML_KEM_768),
        Algorithm::MlKem1024 => Some(&kem::ML_KEM_1024),
        _ => None,
    }
}

/// SM2 on regula-sm directly (default ID, DER signatures, randomness from AWS-LC as in the
/// module), to show the policy layer's cost.
fn raw_sm2(operation: Operation) -> Result<Work, String> {
    use regula_sm::sm2;
    fn random(out: &mut [u8]) -> Result<(), sm2::Error> {
        rand::fill(out).map_err(|_| sm2::Error::Random)
    }
    let failed = |what: &'static str| move |error: sm2::Error| format!("regula-sm {what}: {error}");
    let key = sm2::PrivateKey::generate(&mut random).map_err(failed("keygen"))?;
    Ok(match operation {
        Operation::Keygen => Box::new(move || {
            sm2::PrivateKey::generate(&mut random)
                .map(drop)
                .map_err(failed("keygen"))
        }),
        Operation::Sign => Box::new(move || {
            let signature =
                sm2::sign(&key, sm2::DEFAULT_ID, MESSAGE, &mut random).map_err(failed("sign"))?;
            std::hint::black_box(signature.to_der());
            Ok(())
        }),
        Operation::Verify => {
            let signature = sm2::sign(&key, sm2::DEFAULT_ID, MESSAGE, &mut random)
                .map_err(failed("sign"))?
                .to_der();
            let public_key = key
                .public_key()
                .to_spki_der()
                .map_err(failed("public key"))?;
            Box::new(move || {
                let public_key =
                    sm2::PublicKey::from_sec1_or_spki_der(&public_key).map_err(failed("verify"))?;
                let signature = sm2::Signature::from_der(&signature).map_err(failed("verify"))?;
                sm2::verify(&public_key, sm2::DEFAULT_ID, MESSAGE, &signature)
                    .map_err(failed("verify"))
            })
        }
        _ => {
            let peer = sm2::PrivateKey::generate(&mut random).map_err(failed("keygen"))?;
            let peer_public = peer.public_key().to_uncompressed();
            Box::new(move || {
                let peer = sm2::PublicKey::from_sec1(&peer_public).map_err(failed("ecdh"))?;
                std::hint::black_box(sm2::ecdh(&key, &peer).map_err(failed("ecdh"))?);
                Ok(())
            })
        }
    })
}

fn raw_signature(algorithm: Algorithm, operation: Operation) -> Result<Work, String> {
    if operation == Operation::Keygen {
        if let Some(aws) = agreement_algorithm(algorithm) {
            return Ok(Box::new(move || {
                agreement::PrivateKey::generate(aws)
                    .map(drop)
                    .map_err(raw_failed("keygen"))
            }));
        }
        if let Some(aws) = kem_algorithm(algorithm) {
            return Ok(Box::new(move || {
                kem::DecapsulationKey::generate(aws)
                    .map(drop)
                    .map_err(raw_failed("keygen"))
            }));
        }
    }
    use signature as s;
    let rng = rand::SystemRandom::new();
    enum Signer {
        Ecdsa(&'static s::EcdsaSigningAlgorithm),
        Ed25519,
        Rsa(&'static dyn s::RsaEncoding),
        MlDsa(&'static s::PqdsaSigningAlgorithm),
    }
    let (signer, verification): (Signer, &'static dyn s::VerificationAlgorithm) = match algorithm {
        Algorithm::EcdsaP256 => (
            Signer::Ecdsa(&s::ECDSA_P256_SHA256_ASN1_SIGNING),
            &s::ECDSA_P256_SHA256_ASN1,
        ),
        Algorithm::EcdsaP384 => (
            Signer::Ecdsa(&s::ECDSA_P384_SHA384_ASN1_SIGNING),
            &s::ECDSA_P384_SHA384_ASN1,
        ),
        Algorithm::EcdsaP521 => (
            Signer::Ecdsa(&s::ECDSA_P521_SHA512_ASN1_SIGNING),
            &s::ECDSA_P521_SHA512_ASN1,
        ),
        Algorithm::Ed25519 => (Signer::Ed25519, &s::ED25519),
        Algorithm::MlDsa44 => (Signer::MlDsa(&s::ML_DSA_44_SIGNING), &s::ML_DSA_44),
        Algorithm::MlDsa65 => (Signer::MlDsa(&s::ML_DSA_65_SIGNING), &s::ML_DSA_65),
        Algorithm::MlDsa87 => (Signer::MlDsa(&s::ML_DSA_87_SIGNING), &s::ML_DSA_87),
        Algorithm::RsaPssSha256 => (
            Signer::Rsa(&s::RSA_PSS_SHA256),
            &s::RSA_PSS_2048_8192_SHA256,
        ),
        Algorithm::RsaPssSha384 => (
            Signer::Rsa(&s::RSA_PSS_SHA384),
            &s::RSA_PSS_2048_8192_SHA384,
        ),
        Algorithm::RsaPssSha512 => (
            Signer::Rsa(&s::RSA_PSS_SHA512),
            &s::RSA_PSS_2048_8192_SHA512,
        ),
        Algorithm::RsaPkcs1Sha256 => (
            Signer::Rsa(&s::RSA_PKCS1_SHA256),
            &s::RSA_PKCS1_2048_8192_SHA256,
        ),
        Algorithm::RsaPkcs1Sha384 => (
            Signer::Rsa(&s::RSA_PKCS1_SHA384),
            &s::RSA_PKCS1_2048_8192_SHA384,
        ),
        Algorithm::RsaPkcs1Sha512 => (
            Signer::Rsa(&s::RSA_PKCS1_SHA512),
            &s::RSA_PKCS1_2048_8192_SHA512,
        ),
        _ => {
            return Err(format!(
                "no raw aws-lc-rs equivalent for {}",
                algorithm.name()
            ));
        }
    };
    let sign: Box<dyn Fn() -> Result<Vec<u8>, String>>;
    let public_key: Vec<u8>;
    let keygen: Work;
    match signer {
        Signer::Ecdsa(aws) => {
            let key = EcdsaKeyPair::generate(aws).map_err(raw_failed("keygen"))?;
            public_key = key.public_key().as_ref().to_vec();
            sign = Box::new(move || {
                Ok(key
                    .sign(&rng, MESSAGE)
                    .map_err(raw_failed("sign"))?
                    .as_ref()
                    .to_vec())
            });
            keygen = Box::new(move || {
                EcdsaKeyPair::generate(aws)
                    .map(drop)
                    .map_err(raw_failed("keygen"))
            });
        }
        Signer::Ed25519 => {
            let key = Ed25519KeyPair::generate().map_err(raw_failed("keygen"))?;
            public_key = key.public_key().as_ref().to_vec();
            sign = Box::new(move || Ok(key.sign(MESSAGE).as_ref().to_vec()));
            keygen = Box::new(|| {
                Ed25519KeyPair::generate()
                    .map(drop)
                    .map_err(raw_failed("keygen"))
            });
        }
        Signer::MlDsa(aws) => {
            let key = s::PqdsaKeyPair::generate(aws).map_err(raw_failed("keygen"))?;
            public_key = key.public_key().as_ref().to_vec();
            sign = Box::new(move || {
                let mut signature = vec![0u8; aws.signature_len()];
                key.sign(MESSAGE, &mut signature)
                    .map_err(raw_failed("sign"))?;
                Ok(signature)
            });
            keygen = Box::new(move || {
                s::PqdsaKeyPair::generate(aws)
                    .map(drop)
                    .map_err(raw_failed("keygen"))
            });
        }
        Signer::Rsa(encoding) => {
            let key = RsaKeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048)
                .map_err(raw_failed("keygen"))?;
            public_key = key.public_key().as_ref().to_vec();
            sign = Box::new(move || {
                let mut signature = vec![0u8; key.public_modulus_len()];
                key.sign(encoding, &rng, MESSAGE, &mut signature)
                    .map_err(raw_failed("sign"))?;
                Ok(signature)
            });
            keygen = Box::new(|| {
                RsaKeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048)
                    .map(drop)
                    .map_err(raw_failed("keygen"))
            });
        }
    }
    Ok(match operation {
        Operation::Keygen => keygen,
        Operation::Sign => Box::new(move || sign().map(drop)),
        _ => {
            let signature = sign()?;
            Box::new(move || {
                UnparsedPublicKey::new(verification, &public_key)
                    .verify(MESSAGE, &signature)
                    .map_err(|_| "aws-lc-rs verify failed".to_string())
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use regula::registry::REGISTRY;

    use super::*;

    #[test]
    fn the_benchmark_keys_are_sized_by_each_row() {
        for entry in REGISTRY.iter() {
            let len = key_len(entry.algorithm);
            match entry.sizes.key {
                Some(lengths) => assert!(
                    lengths.contains(len),
                    "{}: a {len}-byte key, the row takes {}..={}",
                    entry.name,
                    lengths.min,
                    lengths.max
                ),
                None => assert!(len >= 16, "{}: a {len}-byte secret", entry.name),
            }
        }
    }

    #[test]
    fn every_row_of_a_measured_family_is_measured() {
        for entry in REGISTRY.iter() {
            let measured = !operations(entry.algorithm).is_empty();
            let family_measured = !matches!(
                entry.family,
                Family::Kdf | Family::PublicKeyEncryption | Family::KeyExchange
            );
            assert!(
                measured == family_measured || is_kbkdf(entry.algorithm),
                "{}: measured {measured}",
                entry.name
            );
        }
    }
}
