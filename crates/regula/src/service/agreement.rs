//! Key agreement: ECDH on P-256/P-384 (SP 800-56A) and X25519 (RFC 7748) from AWS-LC, and ECDH
//! on curveSM2 (`sm2-ecdh`) from regula-sm.
//!
//! For TLS 1.3 with the curveSM2 group (RFC 8998 §3.1): [`Module::generate_agreement_key`] with
//! [`Algorithm::Sm2Ecdh`] makes the ephemeral key, [`AgreementKey::public_key`] gives the key
//! share `04 ‖ x ‖ y`, and [`AgreementKey::agree`] with the peer's share gives the 32-byte
//! x-coordinate used as the (EC)DHE shared secret. Peer points off the curve or at infinity are
//! refused.

use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::agreement::AgreementBackend;
use crate::selftest::Fault;

/// A private key-agreement key bound to a module; AWS-LC and regula-sm wipe it on drop.
pub struct AgreementKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    key: AgreementBackend,
}

impl std::fmt::Debug for AgreementKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgreementKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

/// DER SubjectPublicKeyInfo up to the public key's bytes, for each group with a named curve
/// (RFC 5480 §2 for P-256/P-384/P-521, RFC 8410 §4 for X25519).
const P256_SPKI_PREFIX: &[u8] =
    &hex_literal::hex!("3059301306072a8648ce3d020106082a8648ce3d030107034200");
const P384_SPKI_PREFIX: &[u8] =
    &hex_literal::hex!("3076301006072a8648ce3d020106052b81040022036200");
const P521_SPKI_PREFIX: &[u8] =
    &hex_literal::hex!("30819b301006072a8648ce3d020106052b8104002303818600");
const X25519_SPKI_PREFIX: &[u8] = &hex_literal::hex!("302a300506032b656e032100");
/// id-ecPublicKey with the named curve curveSM2 (1.2.156.10197.1.301).
const SM2_SPKI_PREFIX: &[u8] =
    &hex_literal::hex!("3059301306072a8648ce3d020106082a811ccf5501822d034200");

/// The raw public key inside `peer_public_key`, which is either raw already or a DER
/// SubjectPublicKeyInfo naming this group's curve. RFC 5480 §2.1.1 forbids explicit curve
/// parameters; they are refused rather than compared.
fn raw_public_key(algorithm: Algorithm, peer_public_key: &[u8]) -> Result<&[u8]> {
    let (is_raw, prefix) = match algorithm {
        Algorithm::X25519 => (peer_public_key.len() == 32, X25519_SPKI_PREFIX),
        Algorithm::EcdhP384 => (peer_public_key.first() != Some(&0x30), P384_SPKI_PREFIX),
        Algorithm::EcdhP521 => (peer_public_key.first() != Some(&0x30), P521_SPKI_PREFIX),
        Algorithm::Sm2Ecdh => (peer_public_key.first() != Some(&0x30), SM2_SPKI_PREFIX),
        _ => (peer_public_key.first() != Some(&0x30), P256_SPKI_PREFIX),
    };
    if is_raw {
        return Ok(peer_public_key);
    }
    peer_public_key.strip_prefix(prefix).ok_or_else(|| {
        Error::invalid_input(format!(
            "peer public key is neither a raw {algorithm} key nor a SubjectPublicKeyInfo naming its curve"
        ))
    })
}

impl Module {
    /// Generates a key pair and runs its pairwise consistency test.
    pub fn generate_agreement_key(&self, algorithm: Algorithm) -> Result<Served<AgreementKey>> {
        let approval = self.authorize(algorithm, Family::KeyAgreement, &Usage::default())?;
        let key = AgreementBackend::generate(algorithm, &mut |out| self.internal_random(out))?;
        let key = AgreementKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        };
        key.pairwise_consistency_test()?;
        Ok(self.serve(algorithm, Service::KeyGeneration, approval, key))
    }
}

impl Module {
    /// Imports a private key: a big-endian scalar of the group's size (ECDH, curveSM2 included)
    /// or 32 bytes (X25519). The scalar's range is checked ([1, n-2] for curveSM2).
    pub fn agreement_key_from_private_bytes(
        &self,
        algorithm: Algorithm,
        private_key: &[u8],
    ) -> Result<Served<AgreementKey>> {
        let approval = self.authorize(algorithm, Family::KeyAgreement, &Usage::default())?;
        let key = AgreementBackend::from_private_bytes(algorithm, private_key)?;
        let key = AgreementKey {
            module: self.clone(),
            algorithm,
            approval,
            key,
        };
        Ok(self.serve(algorithm, Service::KeyImport, approval, key))
    }
}

impl AgreementKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The public key: an uncompressed point (ECDH) or 32 bytes (X25519).
    pub fn public_key(&self) -> Result<Vec<u8>> {
        self.module.ensure_operational()?;
        self.key.public_key()
    }

    /// The private key, in the encoding [`Module::agreement_key_from_private_bytes`] takes: a
    /// big-endian scalar (ECDH, curveSM2) or the 32-byte X25519 private key. For storing a
    /// long-term key (an encrypted file's recipient); wiped on drop.
    pub fn private_key_bytes(&self) -> Result<Zeroizing<Vec<u8>>> {
        self.module.ensure_operational()?;
        self.key.private_key_bytes(self.algorithm)
    }

    /// The shared secret with a peer's public key: the encoding of [`AgreementKey::public_key`]
    /// (for ECDH, a compressed point too), or a DER SubjectPublicKeyInfo naming the curve.
    pub fn agree(&self, peer_public_key: &[u8]) -> Result<Served<Zeroizing<Vec<u8>>>> {
        self.module.ensure_operational()?;
        let peer_public_key = raw_public_key(self.algorithm, peer_public_key)?;
        let secret = self.key.agree(self.algorithm, peer_public_key)?;
        Ok(self
            .module
            .serve(self.algorithm, Service::KeyAgreement, self.approval, secret))
    }

    /// SP 800-56A Rev. 3 §5.6.2.1.4 (b): recompute the public key from the private key and
    /// compare it with the one generated; one scalar multiplication, the cheapest test the
    /// rules allow for a key-agreement key.
    fn pairwise_consistency_test(&self) -> Result<()> {
        let name = crate::registry::entry(self.algorithm)
            .pct
            .unwrap_or("PCT-KEY-AGREEMENT");
        self.module
            .pairwise_consistency_test(self.algorithm, name, |fault: Fault| {
                let generated = self.public_key().map_err(drop)?;
                compare(
                    fault,
                    generated,
                    self.key.recomputed_public_key(self.algorithm)?,
                )
            })
    }
}

/// The PCT's verdict: the generated public key (corrupted when the test is being broken on
/// purpose) against the recomputed one.
fn compare(
    fault: Fault,
    mut generated: Vec<u8>,
    recomputed: Vec<u8>,
) -> std::result::Result<(), ()> {
    fault.corrupt(&mut generated);
    if generated == recomputed {
        Ok(())
    } else {
        Err(())
    }
}
