//! `regula.AlgorithmInfo`: an algorithm's registry row — its names and sizes as the module
//! itself uses them — so that Python code needs no table of its own.

use pyo3::prelude::*;

use crate::convert::algorithm;

/// The registry row of one algorithm (``regula.algorithm_info(name)`` or
/// ``AlgorithmInfo(name)``; ``name`` in any case). Sizes are in bytes, ``None`` where a size
/// does not apply; strings are ``None`` where the row has no such fact. Immutable, hashable,
/// and equal when the rows are.
#[pyclass(frozen, eq, hash, module = "regula", name = "AlgorithmInfo")]
#[derive(PartialEq, Eq, Hash)]
pub struct AlgorithmInfo {
    algorithm: regula::Algorithm,
}

impl AlgorithmInfo {
    fn entry(&self) -> &'static regula::registry::Entry {
        self.algorithm.entry()
    }
}

fn lengths(lengths: Option<regula::registry::Lengths>) -> (Option<usize>, Option<usize>) {
    (lengths.map(|l| l.min), lengths.map(|l| l.max))
}

#[pymethods]
impl AlgorithmInfo {
    /// The row of the algorithm called ``name``; an unknown name raises ``InvalidInput``.
    #[new]
    fn new(name: &str) -> PyResult<AlgorithmInfo> {
        Ok(AlgorithmInfo {
            algorithm: algorithm(name)?,
        })
    }

    /// The registry name, e.g. ``"aes-128-gcm"``.
    #[getter]
    fn name(&self) -> &'static str {
        self.entry().name
    }

    /// Other names the algorithm is accepted under.
    #[getter]
    fn aliases(&self) -> Vec<&'static str> {
        self.entry().aliases.to_vec()
    }

    /// ``"aead"``, ``"cipher"``, ``"digest"``, ``"mac"``, ``"kdf"``, ``"signature"``,
    /// ``"key-agreement"``, ``"kem"``, ``"random"``, ``"public-key-encryption"`` or
    /// ``"key-exchange"``.
    #[getter]
    fn family(&self) -> &'static str {
        self.entry().family.name()
    }

    /// The backend that serves it: ``"aws-lc"`` or ``"regula-sm"``.
    #[getter]
    fn provider(&self) -> &'static str {
        self.entry().provider.name()
    }

    /// The object identifier, dotted.
    #[getter]
    fn oid(&self) -> Option<&'static str> {
        self.entry().oid
    }

    /// OpenSSL 3's canonical name for it.
    #[getter]
    fn openssl_name(&self) -> Option<&'static str> {
        self.entry().openssl.map(|openssl| openssl.canonical())
    }

    /// The registry name of the hash function it is built on (HMAC, HKDF, signatures).
    #[getter]
    fn hash(&self) -> Option<&'static str> {
        self.entry().hash.map(regula::Algorithm::name)
    }

    /// The NIST ACVP algorithm of its test vectors.
    #[getter]
    fn acvp_algorithm(&self) -> Option<&'static str> {
        self.entry().acvp.map(|acvp| acvp.algorithm)
    }

    /// The ACVP revision.
    #[getter]
    fn acvp_revision(&self) -> Option<&'static str> {
        self.entry().acvp.map(|acvp| acvp.revision)
    }

    /// Shortest secret key (``None``: any length, as for HMAC and the KDFs, or no symmetric key).
    #[getter]
    fn key_min(&self) -> Option<usize> {
        lengths(self.entry().sizes.key).0
    }

    /// Longest secret key.
    #[getter]
    fn key_max(&self) -> Option<usize> {
        lengths(self.entry().sizes.key).1
    }

    /// Shortest AEAD (or GMAC) nonce.
    #[getter]
    fn nonce_min(&self) -> Option<usize> {
        lengths(self.entry().sizes.nonce).0
    }

    /// Longest AEAD (or GMAC) nonce.
    #[getter]
    fn nonce_max(&self) -> Option<usize> {
        lengths(self.entry().sizes.nonce).1
    }

    /// The block-cipher mode's IV (or XTS tweak).
    #[getter]
    fn iv_len(&self) -> Option<usize> {
        self.entry().sizes.iv
    }

    /// Shortest AEAD tag.
    #[getter]
    fn tag_min(&self) -> Option<usize> {
        lengths(self.entry().sizes.tag).0
    }

    /// Longest AEAD tag.
    #[getter]
    fn tag_max(&self) -> Option<usize> {
        lengths(self.entry().sizes.tag).1
    }

    /// The cipher's block, or the hash function's input block.
    #[getter]
    fn block_len(&self) -> Option<usize> {
        self.entry().sizes.block
    }

    /// The digest or MAC output; the shared secret of a key agreement or KEM.
    #[getter]
    fn output_len(&self) -> Option<usize> {
        self.entry().sizes.output
    }

    /// The encoded public key, where its size is fixed.
    #[getter]
    fn public_key_len(&self) -> Option<usize> {
        self.entry().sizes.public_key
    }

    /// The longest signature (exact for Ed25519 and ML-DSA).
    #[getter]
    fn signature_max_len(&self) -> Option<usize> {
        self.entry().sizes.signature
    }

    /// The KEM ciphertext.
    #[getter]
    fn ciphertext_len(&self) -> Option<usize> {
        self.entry().sizes.ciphertext
    }

    /// The PKCS#11 mechanisms as ``(name, value)``: the operation first, then key generation
    /// where it has its own.
    #[getter]
    fn pkcs11_mechanisms(&self) -> Vec<(&'static str, u32)> {
        self.entry()
            .pkcs11
            .iter()
            .map(|mechanism| (mechanism.name, mechanism.value))
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "AlgorithmInfo(name='{}', family='{}')",
            self.entry().name,
            self.entry().family.name()
        )
    }
}
