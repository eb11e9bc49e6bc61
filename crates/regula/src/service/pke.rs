//! Public-key encryption: SM2 encryption (GB/T 32918.4-2016) from regula-sm.
//!
//! Anyone encrypts to a public key with [`Module::encrypt_to_public_key`]; the holder of the
//! [`DecryptionKey`] decrypts. Ciphertexts are the ASN.1 `SM2Cipher` of GM/T 0009-2012 by default
//! (what OpenSSL's `pkeyutl -encrypt` writes) or `C1 ‖ C3 ‖ C2` (GB/T 32918.4-2016).

use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::pke::{self as backend, DecryptionBackend};
use crate::selftest::Fault;

/// How an SM2 ciphertext is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CiphertextFormat {
    /// DER `SEQUENCE { x, y, hash, ciphertext }` (GM/T 0009-2012 §7.2), as OpenSSL writes.
    #[default]
    Asn1,
    /// `04 ‖ x ‖ y ‖ C3 ‖ C2` (GB/T 32918.4-2016).
    C1C3C2,
}

/// A private decryption key bound to a module; regula-sm wipes it on drop.
pub struct DecryptionKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    key: DecryptionBackend,
}

impl std::fmt::Debug for DecryptionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecryptionKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

fn sm2_only(algorithm: Algorithm) -> Result<()> {
    if algorithm == Algorithm::Sm2Encrypt {
        Ok(())
    } else {
        Err(Error::WrongFamily {
            algorithm,
            expected: Family::PublicKeyEncryption,
        })
    }
}

fn usage() -> Usage {
    Usage {
        key_bits: Some(256),
        ..Usage::default()
    }
}

impl Module {
    /// Generates a decryption key pair and runs its pairwise consistency test.
    pub fn generate_decryption_key(&self, algorithm: Algorithm) -> Result<Served<DecryptionKey>> {
        let approval = self.authorize(algorithm, Family::PublicKeyEncryption, &usage())?;
        sm2_only(algorithm)?;
        let key = DecryptionBackend::generate(algorithm, &mut |out| self.internal_random(out))?;
        let key = DecryptionKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }

    /// Imports a PKCS#8 (DER) SM2 private key.
    pub fn decryption_key_from_pkcs8(
        &self,
        algorithm: Algorithm,
        pkcs8: &[u8],
    ) -> Result<Served<DecryptionKey>> {
        let approval = self.authorize(algorithm, Family::PublicKeyEncryption, &usage())?;
        sm2_only(algorithm)?;
        let key = DecryptionBackend::from_pkcs8(algorithm, pkcs8)?;
        let key = DecryptionKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        };
        Ok(self.serve(algorithm, Service::KeyImport, approval, key))
    }

    /// Encrypts `plaintext` (not empty) to `public_key`: DER SubjectPublicKeyInfo or an
    /// uncompressed point.
    pub fn encrypt_to_public_key(
        &self,
        algorithm: Algorithm,
        public_key: &[u8],
        plaintext: &[u8],
        format: CiphertextFormat,
    ) -> Result<Served<Vec<u8>>> {
        let approval = self.authorize(algorithm, Family::PublicKeyEncryption, &usage())?;
        sm2_only(algorithm)?;
        let ciphertext = backend::encrypt(algorithm, public_key, plaintext, format, &mut |out| {
            self.internal_random(out)
        })?;
        Ok(self.serve(algorithm, Service::Encrypt, approval, ciphertext))
    }
}

impl DecryptionKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The public key as DER SubjectPublicKeyInfo.
    pub fn public_key_der(&self) -> Result<Vec<u8>> {
        self.module.ensure_operational()?;
        self.key.public_key_der()
    }

    /// The private key as PKCS#8 DER, wiped from memory when dropped.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        self.module.ensure_operational()?;
        self.key.to_pkcs8_der()
    }

    /// Decrypts; a malformed ciphertext, a point off the curve, an all-zero KDF output and a
    /// wrong hash `C3` are all [`Error::AuthenticationFailed`], and nothing is released.
    pub fn decrypt(
        &self,
        ciphertext: &[u8],
        format: CiphertextFormat,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        self.module.ensure_operational()?;
        let plaintext = self.key.decrypt(self.algorithm, ciphertext, format)?;
        Ok(self.module.serve(
            self.algorithm,
            Service::Decrypt,
            self.approval,
            Zeroizing::new(plaintext),
        ))
    }

    /// GB/T 32918.4 keys: encrypt to the new public key and decrypt back before releasing it
    /// (FIPS 140-3 IG 10.3.A's pairwise consistency test for encryption keys, applied here).
    fn pairwise_consistency_test(&self) -> Result<()> {
        let name = crate::registry::entry(self.algorithm)
            .pct
            .unwrap_or("PCT-PUBLIC-KEY-ENCRYPTION");
        self.module
            .pairwise_consistency_test(self.algorithm, name, |fault: Fault| {
                const MESSAGE: &[u8] = b"Regula pairwise consistency test";
                // Corrupts C3, which decryption must then refuse.
                let plaintext = self.key.round_trip(
                    MESSAGE,
                    &mut |out| self.module.internal_random(out),
                    |c3| fault.corrupt(c3),
                )?;
                if plaintext == MESSAGE {
                    Ok(())
                } else {
                    Err(())
                }
            })
    }
}
