//! The algorithms Regula serves, and the service families they belong to.
//!
//! An [`Algorithm`] is a plain identifier. Everything known about it — its names, family,
//! backend, sizes, identifiers in other worlds (OID, OpenSSL, PKCS#11, ACVP), self-test and the
//! rule each profile applies to it — lives in one row of [`crate::registry::REGISTRY`], which
//! also provides [`Algorithm::name`], [`Algorithm::family`] and [`Algorithm::from_name`].

use std::fmt;

/// Every algorithm the module can serve. The discriminant indexes [`crate::registry::REGISTRY`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Algorithm {
    // Authenticated encryption.
    Aes128Gcm,
    Aes256Gcm,
    Aes128Ccm,
    Aes256Ccm,
    ChaCha20Poly1305,
    // Unauthenticated block-cipher modes.
    Aes128Ctr,
    Aes256Ctr,
    Aes128Cbc,
    Aes256Cbc,
    Aes256Xts,
    /// AES-256-CBC with ciphertext stealing (CS3), fscrypt's file-name mode.
    Aes256CbcCs3,
    Aes128Cfb8,
    Aes256Cfb8,
    // Key wrapping (SP 800-38F).
    Aes128Kw,
    Aes256Kw,
    Aes128Kwp,
    Aes256Kwp,
    // Legacy ciphers, never approved.
    Rc4,
    DesCbc,
    DesEde3Cbc,
    // Message digests.
    Md4,
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    /// SHA-512/256 (FIPS 180-4 §6.7).
    Sha512_256,
    Sha3_256,
    Sha3_384,
    Sha3_512,
    /// SHAKE128 and SHAKE256 (FIPS 202 §6.2), extendable-output functions: as digests they give
    /// their row's default length; [`crate::Module::xof`] gives any length.
    Shake128,
    Shake256,
    // Message authentication codes.
    HmacMd5,
    HmacSha1,
    HmacSha224,
    HmacSha256,
    HmacSha384,
    HmacSha512,
    Aes128Cmac,
    Aes256Cmac,
    Aes128Gmac,
    Aes256Gmac,
    // Key derivation.
    HkdfSha256,
    HkdfSha384,
    HkdfSha512,
    Pbkdf2Sha256,
    Pbkdf2Sha384,
    Pbkdf2Sha512,
    KbkdfCtrHmacSha256,
    KbkdfCtrHmacSha384,
    KbkdfCtrHmacSha512,
    /// HKDF-SHA512 as the Linux fscrypt v2 key hierarchy uses it (served only by
    /// [`crate::Module::fscrypt_hkdf_sha512`], for `regula-files`' fscrypt).
    FscryptHkdfSha512,
    // Signatures.
    EcdsaP256,
    EcdsaP384,
    EcdsaP521,
    Ed25519,
    RsaPssSha256,
    RsaPssSha384,
    RsaPssSha512,
    RsaPkcs1Sha256,
    RsaPkcs1Sha384,
    RsaPkcs1Sha512,
    // SHA-1 signatures, for verifying old ones only.
    RsaPkcs1Sha1,
    EcdsaP256Sha1,
    // RSA-OAEP public-key encryption (RFC 8017 §7.1, SP 800-56B Rev. 2), the MGF1 hash equal
    // to OAEP's.
    RsaOaepSha1,
    RsaOaepSha256,
    RsaOaepSha384,
    RsaOaepSha512,
    // FIPS 204.
    MlDsa44,
    MlDsa65,
    MlDsa87,
    // Key agreement.
    EcdhP256,
    EcdhP384,
    EcdhP521,
    X25519,
    // Key encapsulation.
    MlKem768,
    MlKem1024,
    // Random bit generation.
    CtrDrbg,
    // Chinese commercial cryptography (GM/T), served by regula-sm.
    Sm3,
    HmacSm3,
    Sm4Ecb,
    Sm4Cbc,
    Sm4Ctr,
    Sm4Ofb,
    Sm4Cfb,
    Sm4Gcm,
    Sm4Ccm,
    Sm4Xts,
    Sm4XtsGb,
    Sm4CbcCs3,
    Sm4Cmac,
    Sm4XcbcMac,
    Sm4CbcMac,
    Sm2Sign,
    Sm2Encrypt,
    Sm2Ecdh,
    Sm2KeyExchange,
    // GM/T 0105-2021 random bit generators, served by regula-sm.
    Sm3Drbg,
    Sm4CtrDrbg,
    // The TLS 1.2 PRF (RFC 5246 §5, SP 800-135 Rev. 1 §4.2.2), OpenSSL's TLS1-PRF.
    Tls12PrfSha256,
    Tls12PrfSha384,
}

impl Algorithm {
    /// All algorithms, in registry order.
    pub const ALL: [Algorithm; 102] = [
        Algorithm::Aes128Gcm,
        Algorithm::Aes256Gcm,
        Algorithm::Aes128Ccm,
        Algorithm::Aes256Ccm,
        Algorithm::ChaCha20Poly1305,
        Algorithm::Aes128Ctr,
        Algorithm::Aes256Ctr,
        Algorithm::Aes128Cbc,
        Algorithm::Aes256Cbc,
        Algorithm::Aes256Xts,
        Algorithm::Aes256CbcCs3,
        Algorithm::Aes128Cfb8,
        Algorithm::Aes256Cfb8,
        Algorithm::Aes128Kw,
        Algorithm::Aes256Kw,
        Algorithm::Aes128Kwp,
        Algorithm::Aes256Kwp,
        Algorithm::Rc4,
        Algorithm::DesCbc,
        Algorithm::DesEde3Cbc,
        Algorithm::Md4,
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha224,
        Algorithm::Sha256,
        Algorithm::Sha384,
        Algorithm::Sha512,
        Algorithm::Sha512_256,
        Algorithm::Sha3_256,
        Algorithm::Sha3_384,
        Algorithm::Sha3_512,
        Algorithm::Shake128,
        Algorithm::Shake256,
        Algorithm::HmacMd5,
        Algorithm::HmacSha1,
        Algorithm::HmacSha224,
        Algorithm::HmacSha256,
        Algorithm::HmacSha384,
        Algorithm::HmacSha512,
        Algorithm::Aes128Cmac,
        Algorithm::Aes256Cmac,
        Algorithm::Aes128Gmac,
        Algorithm::Aes256Gmac,
        Algorithm::HkdfSha256,
        Algorithm::HkdfSha384,
        Algorithm::HkdfSha512,
        Algorithm::Pbkdf2Sha256,
        Algorithm::Pbkdf2Sha384,
        Algorithm::Pbkdf2Sha512,
        Algorithm::KbkdfCtrHmacSha256,
        Algorithm::KbkdfCtrHmacSha384,
        Algorithm::KbkdfCtrHmacSha512,
        Algorithm::FscryptHkdfSha512,
        Algorithm::EcdsaP256,
        Algorithm::EcdsaP384,
        Algorithm::EcdsaP521,
        Algorithm::Ed25519,
        Algorithm::RsaPssSha256,
        Algorithm::RsaPssSha384,
        Algorithm::RsaPssSha512,
        Algorithm::RsaPkcs1Sha256,
        Algorithm::RsaPkcs1Sha384,
        Algorithm::RsaPkcs1Sha512,
        Algorithm::RsaPkcs1Sha1,
        Algorithm::EcdsaP256Sha1,
        Algorithm::RsaOaepSha1,
        Algorithm::RsaOaepSha256,
        Algorithm::RsaOaepSha384,
        Algorithm::RsaOaepSha512,
        Algorithm::MlDsa44,
        Algorithm::MlDsa65,
        Algorithm::MlDsa87,
        Algorithm::EcdhP256,
        Algorithm::EcdhP384,
        Algorithm::EcdhP521,
        Algorithm::X25519,
        Algorithm::MlKem768,
        Algorithm::MlKem1024,
        Algorithm::CtrDrbg,
        Algorithm::Sm3,
        Algorithm::HmacSm3,
        Algorithm::Sm4Ecb,
        Algorithm::Sm4Cbc,
        Algorithm::Sm4Ctr,
        Algorithm::Sm4Ofb,
        Algorithm::Sm4Cfb,
        Algorithm::Sm4Gcm,
        Algorithm::Sm4Ccm,
        Algorithm::Sm4Xts,
        Algorithm::Sm4XtsGb,
        Algorithm::Sm4CbcCs3,
        Algorithm::Sm4Cmac,
        Algorithm::Sm4XcbcMac,
        Algorithm::Sm4CbcMac,
        Algorithm::Sm2Sign,
        Algorithm::Sm2Encrypt,
        Algorithm::Sm2Ecdh,
        Algorithm::Sm2KeyExchange,
        Algorithm::Sm3Drbg,
        Algorithm::Sm4CtrDrbg,
        Algorithm::Tls12PrfSha256,
        Algorithm::Tls12PrfSha384,
    ];

    /// Number of algorithms; sizes per-algorithm tables such as the indicator counters.
    pub const COUNT: usize = Self::ALL.len();

    /// Whether this is an extendable-output function (SHAKE128, SHAKE256), whose output can be
    /// of any length ([`crate::Module::xof`]).
    pub const fn is_xof(self) -> bool {
        matches!(self, Algorithm::Shake128 | Algorithm::Shake256)
    }

    /// Position in [`Algorithm::ALL`] and in the registry.
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A family of cryptographic services; decides which entry point of [`crate::Module`] serves an
/// algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Family {
    Aead,
    Cipher,
    Digest,
    Mac,
    Kdf,
    Signature,
    KeyAgreement,
    Kem,
    Random,
    /// Public-key encryption (SM2 encryption, GB/T 32918.4).
    PublicKeyEncryption,
    /// Authenticated key exchange with static and ephemeral keys (SM2, GB/T 32918.3).
    KeyExchange,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Aead => "aead",
            Family::Cipher => "cipher",
            Family::Digest => "digest",
            Family::Mac => "mac",
            Family::Kdf => "kdf",
            Family::Signature => "signature",
            Family::KeyAgreement => "key-agreement",
            Family::Kem => "kem",
            Family::Random => "random",
            Family::PublicKeyEncryption => "public-key-encryption",
            Family::KeyExchange => "key-exchange",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One cryptographic service, as recorded by the service indicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Service {
    Encrypt,
    Decrypt,
    Digest,
    MacGenerate,
    MacVerify,
    KeyDerivation,
    KeyGeneration,
    KeyImport,
    Sign,
    Verify,
    KeyAgreement,
    Encapsulate,
    Decapsulate,
    RandomGeneration,
}

impl Service {
    pub const ALL: [Service; 14] = [
        Service::Encrypt,
        Service::Decrypt,
        Service::Digest,
        Service::MacGenerate,
        Service::MacVerify,
        Service::KeyDerivation,
        Service::KeyGeneration,
        Service::KeyImport,
        Service::Sign,
        Service::Verify,
        Service::KeyAgreement,
        Service::Encapsulate,
        Service::Decapsulate,
        Service::RandomGeneration,
    ];
    pub const COUNT: usize = Self::ALL.len();

    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Service::Encrypt => "encrypt",
            Service::Decrypt => "decrypt",
            Service::Digest => "digest",
            Service::MacGenerate => "mac-generate",
            Service::MacVerify => "mac-verify",
            Service::KeyDerivation => "key-derivation",
            Service::KeyGeneration => "key-generation",
            Service::KeyImport => "key-import",
            Service::Sign => "sign",
            Service::Verify => "verify",
            Service::KeyAgreement => "key-agreement",
            Service::Encapsulate => "encapsulate",
            Service::Decapsulate => "decapsulate",
            Service::RandomGeneration => "random-generation",
        }
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_algorithm_at_its_index() {
        for (index, algorithm) in Algorithm::ALL.iter().enumerate() {
            assert_eq!(
                algorithm.index(),
                index,
                "{algorithm:?} is out of order in ALL"
            );
        }
        for (index, service) in Service::ALL.iter().enumerate() {
            assert_eq!(service.index(), index, "{service:?} is out of order in ALL");
        }
    }

    #[test]
    fn names_round_trip_and_are_lowercase_hyphenated() {
        for algorithm in Algorithm::ALL {
            let name = algorithm.name();
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{name} is not lowercase-hyphenated"
            );
            assert_eq!(Algorithm::from_name(name), Some(algorithm));
            assert_eq!(Algorithm::from_name(&name.to_uppercase()), Some(algorithm));
        }
        assert_eq!(Algorithm::from_name("aes-512-gcm"), None);
    }
}
