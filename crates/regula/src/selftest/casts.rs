//! The order of the known-answer tests; their bodies, which call the backends, are in the
//! provider (`provider/self_test.rs`).

use super::{Cast, Fault};
use crate::provider::self_test as t;

type Outcome = Result<(), ()>;

/// Every CAST, in the order they run.
pub(crate) static ALL_CASTS: &[Cast] = &[
    cast("AES-GCM", t::aes_gcm),
    cast("AES-CCM", t::aes_ccm),
    cast("CHACHA20-POLY1305", t::chacha20_poly1305),
    cast("AES-CTR", t::aes_ctr),
    cast("AES-CBC", t::aes_cbc),
    cast("AES-XTS", t::aes_xts),
    cast("AES-CBC-CS3", t::aes_cbc_cs3),
    cast("AES-CFB8", t::aes_cfb8),
    cast("AES-KW", t::aes_kw),
    cast("AES-KWP", t::aes_kwp),
    cast("SHA-1", t::sha1),
    cast("SHA2-224", t::sha224),
    cast("SHA2-256", t::sha256),
    cast("SHA2-384", t::sha384),
    cast("SHA2-512", t::sha512),
    cast("SHA3-256", t::sha3_256),
    cast("SHA3-384", t::sha3_384),
    cast("SHA3-512", t::sha3_512),
    cast("HMAC-SHA-1", t::hmac_sha1),
    cast("HMAC-SHA2-224", t::hmac_sha224),
    cast("HMAC-SHA2-256", t::hmac_sha256),
    cast("HMAC-SHA2-384", t::hmac_sha384),
    cast("HMAC-SHA2-512", t::hmac_sha512),
    cast("AES-CMAC", t::aes_cmac),
    cast("AES-GMAC", t::aes_gmac),
    cast("HKDF-SHA2-256", t::hkdf_sha256),
    cast("KBKDF-CTR-HMAC-SHA2-256", t::kbkdf_ctr_hmac_sha256),
    cast("PBKDF2", t::pbkdf2_sha256),
    cast("TLS12-PRF", t::tls12_prf_sha256),
    cast("ECDSA-P256-SHA2-256", t::ecdsa_p256),
    cast("ED25519", t::ed25519),
    cast("RSA-SHA2-256", t::rsa_pkcs1_sha256),
    cast("ML-DSA-44", t::ml_dsa_44),
    cast("ECDH-P256", t::ecdh_p256),
    cast("X25519", t::x25519),
    cast("ML-KEM-768", t::ml_kem_768),
    cast("CTR_DRBG", t::ctr_drbg),
    cast("MD4", t::md4),
    cast("MD5", t::md5),
    cast("HMAC-MD5", t::hmac_md5),
    cast("RC4", t::rc4),
    cast("DES-CBC", t::des_cbc),
    cast("TDES-CBC", t::tdes_cbc),
    cast("SM3", t::sm3),
    cast("HMAC-SM3", t::hmac_sm3),
    cast("SM4-ECB", t::sm4_ecb),
    cast("SM4-CBC", t::sm4_cbc),
    cast("SM4-CTR", t::sm4_ctr),
    cast("SM4-OFB", t::sm4_ofb),
    cast("SM4-CFB", t::sm4_cfb),
    cast("SM4-GCM", t::sm4_gcm),
    cast("SM4-CCM", t::sm4_ccm),
    cast("SM4-XTS", t::sm4_xts),
    cast("SM4-XTS-GB", t::sm4_xts_gb),
    cast("SM4-CBC-CS3", t::sm4_cbc_cs3),
    cast("SM4-CMAC", t::sm4_cmac),
    cast("SM4-XCBC-MAC", t::sm4_xcbc_mac),
    cast("SM4-CBC-MAC", t::sm4_cbc_mac),
    cast("SM2-SIGN", t::sm2_sign),
    cast("SM2-ENCRYPT", t::sm2_encrypt),
    cast("SM2-ECDH", t::sm2_ecdh),
    cast("SM2-KEY-EXCHANGE", t::sm2_key_exchange),
    cast("SM3-DRBG", t::gmt0105_sm3_drbg),
    cast("SM4-CTR-DRBG", t::gmt0105_sm4_ctr_drbg),
];

const fn cast(name: &'static str, run: fn(Fault) -> Outcome) -> Cast {
    Cast { name, run }
}
