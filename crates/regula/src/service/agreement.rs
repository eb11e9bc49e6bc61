//! Key agreement: ECDH on P-256/P-384 (SP 800-56A) and X25519 (RFC 7748).

use aws_lc_rs::agreement::{self, PrivateKey, UnparsedPublicKey};
use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::{Approval, Usage};
use crate::provider::awslc;
use crate::selftest::Fault;

/// A private key-agreement key bound to a module; AWS-LC wipes it on drop.
pub struct AgreementKey {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    key: PrivateKey,
}

impl std::fmt::Debug for AgreementKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgreementKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

fn shared_secret(
    key: &PrivateKey,
    algorithm: &'static agreement::Algorithm,
    peer_public_key: &[u8],
) -> Result<Zeroizing<Vec<u8>>> {
    agreement::agree(
        key,
        UnparsedPublicKey::new(algorithm, peer_public_key),
        Error::invalid_input("peer public key is not a valid point for this group"),
        |secret| Ok(Zeroizing::new(secret.to_vec())),
    )
}

impl Module {
    /// Generates a key pair and runs its pairwise consistency test.
    pub fn generate_agreement_key(&self, algorithm: Algorithm) -> Result<Served<AgreementKey>> {
        let approval = self.authorize(algorithm, Family::KeyAgreement, &Usage::default())?;
        let aws_algorithm = awslc::agreement(algorithm)?;
        let key = PrivateKey::generate(aws_algorithm).map_err(|_| Error::CryptoFailure)?;
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

impl AgreementKey {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The public key: an uncompressed point (ECDH) or 32 bytes (X25519).
    pub fn public_key(&self) -> Result<Vec<u8>> {
        self.module.ensure_operational()?;
        let public_key = self
            .key
            .compute_public_key()
            .map_err(|_| Error::CryptoFailure)?;
        Ok(public_key.as_ref().to_vec())
    }

    /// The shared secret with a peer's public key (same encoding as [`AgreementKey::public_key`]).
    pub fn agree(&self, peer_public_key: &[u8]) -> Result<Served<Zeroizing<Vec<u8>>>> {
        self.module.ensure_operational()?;
        let secret = shared_secret(
            &self.key,
            awslc::agreement(self.algorithm)?,
            peer_public_key,
        )?;
        Ok(self
            .module
            .serve(self.algorithm, Service::KeyAgreement, self.approval, secret))
    }

    /// SP 800-56A Rev. 3 §5.6.2.1.4: the new key must agree with a second key in both
    /// directions.
    fn pairwise_consistency_test(&self) -> Result<()> {
        let name = crate::registry::entry(self.algorithm)
            .pct
            .unwrap_or("PCT-KEY-AGREEMENT");
        self.module.pairwise_consistency_test(name, |fault: Fault| {
            let algorithm = awslc::agreement(self.algorithm).map_err(drop)?;
            let other = PrivateKey::generate(algorithm).map_err(drop)?;
            let other_public = other.compute_public_key().map_err(drop)?;
            let own_public = self.public_key().map_err(drop)?;
            let mut ours =
                shared_secret(&self.key, algorithm, other_public.as_ref()).map_err(drop)?;
            let theirs = shared_secret(&other, algorithm, &own_public).map_err(drop)?;
            fault.corrupt(&mut ours);
            if ours == theirs { Ok(()) } else { Err(()) }
        })
    }
}
