//! Public-key encryption: SM2 encryption (GB/T 32918.4-2016) from regula-sm, and RSA-OAEP
//! (RFC 8017 §7.1, SP 800-56B Rev. 2) from AWS-LC.
//!
//! Anyone encrypts to a public key with [`Module::encrypt_to_public_key`]; the holder of the
//! [`DecryptionKey`] decrypts. SM2 ciphertexts are the ASN.1 `SM2Cipher` of GM/T 0009-2012 by
//! default (what OpenSSL's `pkeyutl -encrypt` writes) or `C1 ‖ C3 ‖ C2` (GB/T 32918.4-2016).
//! RSA-OAEP takes no format; [`Module::rsa_oaep_encrypt`] and [`DecryptionKey::decrypt_with_label`]
//! take OAEP's label, which the format-taking calls leave empty.

use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::pke::{self as backend, DecryptionBackend};
use crate::provider::rsa_oaep::{self, RsaOaepBackend};
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

/// The default RSA-OAEP modulus when none is asked for: 128 bits of security.
const DEFAULT_RSA_BITS: u32 = 3072;

/// The private key of one backend.
enum KeyBackend {
    Sm2(DecryptionBackend),
    RsaOaep(RsaOaepBackend),
}

/// A private decryption key bound to a module; regula-sm and AWS-LC wipe it on drop.
pub struct DecryptionKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    key: KeyBackend,
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

/// The usage an RSA-OAEP key is checked against: its modulus size.
fn rsa_usage(key_bits: u32) -> Usage {
    Usage {
        key_bits: Some(key_bits),
        ..Usage::default()
    }
}

impl Module {
    /// Generates a decryption key pair and runs its pairwise consistency test; RSA-OAEP keys
    /// are 3072 bits (see [`Module::generate_rsa_oaep_key`] for another size).
    pub fn generate_decryption_key(&self, algorithm: Algorithm) -> Result<Served<DecryptionKey>> {
        if rsa_oaep::is_rsa_oaep(algorithm) {
            return self.generate_rsa_oaep_key(algorithm, DEFAULT_RSA_BITS);
        }
        let approval = self.authorize(algorithm, Family::PublicKeyEncryption, &usage())?;
        sm2_only(algorithm)?;
        let key = DecryptionBackend::generate(algorithm, &mut |out| self.internal_random(out))?;
        let key = DecryptionKey {
            module: self.clone(),
            algorithm,
            approval,
            key: KeyBackend::Sm2(key),
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }

    /// Generates an RSA-OAEP key of `bits` (2048, 3072, 4096 or 8192, as the policy allows) and
    /// runs its pairwise consistency test.
    pub fn generate_rsa_oaep_key(
        &self,
        algorithm: Algorithm,
        bits: u32,
    ) -> Result<Served<DecryptionKey>> {
        let approval = self.authorize(algorithm, Family::PublicKeyEncryption, &rsa_usage(bits))?;
        if !rsa_oaep::is_rsa_oaep(algorithm) {
            return Err(Error::invalid_input(format!(
                "{algorithm} is not RSA-OAEP; its keys have no modulus size to choose"
            )));
        }
        let key = DecryptionKey {
            module: self.clone(),
            algorithm,
            approval,
            key: KeyBackend::RsaOaep(RsaOaepBackend::generate(algorithm, bits)?),
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }

    /// Imports a PKCS#8 (DER) private key: SM2 on curveSM2, or RSA for RSA-OAEP (checked
    /// against the policy's modulus sizes).
    pub fn decryption_key_from_pkcs8(
        &self,
        algorithm: Algorithm,
        pkcs8: &[u8],
    ) -> Result<Served<DecryptionKey>> {
        if rsa_oaep::is_rsa_oaep(algorithm) {
            self.ensure_operational()?;
            let key = RsaOaepBackend::from_pkcs8(algorithm, pkcs8)?;
            let approval = self.authorize(
                algorithm,
                Family::PublicKeyEncryption,
                &rsa_usage(key.key_bits()),
            )?;
            let key = DecryptionKey {
                module: self.clone(),
                algorithm,
                approval,
                key: KeyBackend::RsaOaep(key),
            };
            return Ok(self.serve(algorithm, Service::KeyImport, approval, key));
        }
        let approval = self.authorize(algorithm, Family::PublicKeyEncryption, &usage())?;
        sm2_only(algorithm)?;
        let key = DecryptionBackend::from_pkcs8(algorithm, pkcs8)?;
        let key = DecryptionKey {
            module: self.clone(),
            algorithm,
            approval,
            key: KeyBackend::Sm2(key),
        };
        Ok(self.serve(algorithm, Service::KeyImport, approval, key))
    }

    /// Encrypts `plaintext` to `public_key`. SM2: `plaintext` not empty, `public_key` DER
    /// SubjectPublicKeyInfo or an uncompressed point. RSA-OAEP: `public_key` DER
    /// SubjectPublicKeyInfo, the empty label, `format` unused.
    pub fn encrypt_to_public_key(
        &self,
        algorithm: Algorithm,
        public_key: &[u8],
        plaintext: &[u8],
        format: CiphertextFormat,
    ) -> Result<Served<Vec<u8>>> {
        if rsa_oaep::is_rsa_oaep(algorithm) {
            return self.rsa_oaep_encrypt(algorithm, public_key, plaintext, b"");
        }
        let approval = self.authorize(algorithm, Family::PublicKeyEncryption, &usage())?;
        sm2_only(algorithm)?;
        let ciphertext = backend::encrypt(algorithm, public_key, plaintext, format, &mut |out| {
            self.internal_random(out)
        })?;
        Ok(self.serve(algorithm, Service::Encrypt, approval, ciphertext))
    }

    /// RSA-OAEP encryption of `plaintext` (at most `k - 2·hLen - 2` bytes) to `public_key` (DER
    /// SubjectPublicKeyInfo) with OAEP's `label` (empty for none). The key's modulus size is
    /// checked against the policy before anything is encrypted.
    pub fn rsa_oaep_encrypt(
        &self,
        algorithm: Algorithm,
        public_key: &[u8],
        plaintext: &[u8],
        label: &[u8],
    ) -> Result<Served<Vec<u8>>> {
        self.ensure_operational()?;
        if !rsa_oaep::is_rsa_oaep(algorithm) {
            self.authorize(algorithm, Family::PublicKeyEncryption, &usage())?;
            return Err(Error::invalid_input(format!("{algorithm} is not RSA-OAEP")));
        }
        let bits = rsa_oaep::public_key_bits(algorithm, public_key)?;
        let approval = self.authorize(algorithm, Family::PublicKeyEncryption, &rsa_usage(bits))?;
        let ciphertext = rsa_oaep::encrypt(algorithm, public_key, plaintext, label)?;
        Ok(self.serve(algorithm, Service::Encrypt, approval, ciphertext))
    }
}

impl DecryptionKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The modulus size of an RSA-OAEP key; 256 for SM2.
    pub fn key_bits(&self) -> u32 {
        match &self.key {
            KeyBackend::Sm2(_) => 256,
            KeyBackend::RsaOaep(key) => key.key_bits(),
        }
    }

    /// The longest plaintext an RSA-OAEP key takes (`k - 2·hLen - 2`); `None` for SM2,
    /// which takes any non-empty length.
    pub fn max_plaintext_len(&self) -> Option<usize> {
        match &self.key {
            KeyBackend::Sm2(_) => None,
            KeyBackend::RsaOaep(key) => Some(rsa_oaep::max_plaintext_len(
                self.algorithm,
                key.modulus_bytes(),
            )),
        }
    }

    /// The public key as DER SubjectPublicKeyInfo.
    pub fn public_key_der(&self) -> Result<Vec<u8>> {
        self.module.ensure_operational()?;
        match &self.key {
            KeyBackend::Sm2(key) => key.public_key_der(),
            KeyBackend::RsaOaep(key) => Ok(key.public_key_der()),
        }
    }

    /// The private key as PKCS#8 DER, wiped from memory when dropped.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        self.module.ensure_operational()?;
        match &self.key {
            KeyBackend::Sm2(key) => key.to_pkcs8_der(),
            KeyBackend::RsaOaep(key) => key.to_pkcs8_der(),
        }
    }

    /// Decrypts; a malformed ciphertext, a point off the curve, an all-zero KDF output and a
    /// wrong hash `C3` are all [`Error::AuthenticationFailed`], and nothing is released.
    /// RSA-OAEP: the empty label, `format` unused (see [`DecryptionKey::decrypt_with_label`]).
    pub fn decrypt(
        &self,
        ciphertext: &[u8],
        format: CiphertextFormat,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        self.module.ensure_operational()?;
        let plaintext = match &self.key {
            KeyBackend::Sm2(key) => {
                Zeroizing::new(key.decrypt(self.algorithm, ciphertext, format)?)
            }
            KeyBackend::RsaOaep(key) => key.decrypt(self.algorithm, ciphertext, b"")?,
        };
        Ok(self
            .module
            .serve(self.algorithm, Service::Decrypt, self.approval, plaintext))
    }

    /// RSA-OAEP decryption with OAEP's `label`: a ciphertext that is not as long as the
    /// modulus is [`Error::InvalidInput`]; bad padding, a wrong label and a value out of range
    /// are all [`Error::AuthenticationFailed`], and nothing is released. SM2 has no label.
    pub fn decrypt_with_label(
        &self,
        ciphertext: &[u8],
        label: &[u8],
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        self.module.ensure_operational()?;
        let KeyBackend::RsaOaep(key) = &self.key else {
            return Err(Error::invalid_input(format!(
                "{} takes no label; only RSA-OAEP does",
                self.algorithm
            )));
        };
        let plaintext = key.decrypt(self.algorithm, ciphertext, label)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::Decrypt, self.approval, plaintext))
    }

    /// Encrypt to the new public key and decrypt back before releasing it (FIPS 140-3
    /// IG 10.3.A's pairwise consistency test for encryption keys; SP 800-56B Rev. 2 §6.4.1.1
    /// for RSA key-transport keys).
    fn pairwise_consistency_test(&self) -> Result<()> {
        let name = crate::registry::entry(self.algorithm)
            .pct
            .unwrap_or("PCT-PUBLIC-KEY-ENCRYPTION");
        self.module
            .pairwise_consistency_test(self.algorithm, name, |fault: Fault| {
                const MESSAGE: &[u8] = b"Regula pairwise consistency test";
                let plaintext = match &self.key {
                    // Corrupts C3, which decryption must then refuse.
                    KeyBackend::Sm2(key) => Zeroizing::new(key.round_trip(
                        MESSAGE,
                        &mut |out| self.module.internal_random(out),
                        |c3| fault.corrupt(c3),
                    )?),
                    // Corrupts the ciphertext, whose padding check must then fail.
                    KeyBackend::RsaOaep(key) => {
                        key.round_trip(self.algorithm, MESSAGE, |ciphertext| {
                            fault.corrupt(ciphertext)
                        })?
                    }
                };
                if plaintext.as_slice() == MESSAGE {
                    Ok(())
                } else {
                    Err(())
                }
            })
    }
}
