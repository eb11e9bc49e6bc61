//! The registry: one row per algorithm, holding every fact about it — its names and aliases,
//! family, the backend that serves it, its sizes, OID, the names OpenSSL gives it, its PKCS#11
//! mechanisms, its ACVP algorithm/mode/revision, its CycloneDX CBOM properties, the self-tests
//! that cover it, and the rule each built-in profile applies to it with limits and citations.
//!
//! Everything else reads these rows: policies ([`crate::Policy`]), the CBOM, `regula info`,
//! `regula bench`, the C ABI's `regula_algorithm_info` and through it the Python and Go bindings.
//! Adding an algorithm means adding an [`Algorithm`] variant, its row in [`REGISTRY`], and the
//! backend call in `provider/` (see `docs/adding-an-algorithm.md`).

mod approvals;
pub mod pkcs11;
mod rows;

use serde::Serialize;
use serde::ser::SerializeStruct;

use crate::algorithm::{Algorithm, Family};
use crate::policy::profile::Profile;
use crate::policy::rules::Rule;

pub use pkcs11::Mechanism;
pub use rows::REGISTRY;

/// Who implements an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// AWS-LC through aws-lc-rs (the validated module in a `fips` build).
    AwsLc,
    /// Regula's own SM implementations (crate regula-sm), outside any FIPS boundary.
    RegulaSm,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::AwsLc => "aws-lc",
            Provider::RegulaSm => "regula-sm",
        }
    }
}

/// A length in bytes that an algorithm accepts: `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Lengths {
    pub min: usize,
    pub max: usize,
}

impl Lengths {
    pub const fn exactly(len: usize) -> Lengths {
        Lengths { min: len, max: len }
    }

    pub const fn between(min: usize, max: usize) -> Lengths {
        Lengths { min, max }
    }

    pub fn contains(&self, len: usize) -> bool {
        (self.min..=self.max).contains(&len)
    }
}

/// An algorithm's sizes in bytes; `None` where a size does not apply or is not fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Sizes {
    /// Secret key lengths a symmetric key of this algorithm takes (`None`: any length, as for
    /// HMAC and the KDFs, or a public-key algorithm).
    pub key: Option<Lengths>,
    /// AEAD (and GMAC) nonce lengths.
    pub nonce: Option<Lengths>,
    /// Block-cipher mode IV (or XTS tweak) length.
    pub iv: Option<usize>,
    /// AEAD tag lengths.
    pub tag: Option<Lengths>,
    /// Cipher block, or the hash function's input block (HMAC's key block).
    pub block: Option<usize>,
    /// Digest or MAC output; the shared secret of a key agreement or KEM.
    pub output: Option<usize>,
    /// Encoded public key of a fixed size (raw point, key or encapsulation key).
    pub public_key: Option<usize>,
    /// Longest signature (ECDSA's and SM2's DER; fixed for Ed25519 and ML-DSA).
    pub signature: Option<usize>,
    /// KEM ciphertext.
    pub ciphertext: Option<usize>,
}

impl Sizes {
    pub const NONE: Sizes = Sizes {
        key: None,
        nonce: None,
        iv: None,
        tag: None,
        block: None,
        output: None,
        public_key: None,
        signature: None,
        ciphertext: None,
    };
}

/// How OpenSSL 3 names an algorithm in its provider tables: the colon-separated name list of
/// the `OSSL_ALGORITHM` (the first is canonical; an OID last where OpenSSL lists one), and the
/// parameters that select this row when one OpenSSL algorithm covers several (HMAC's `digest`,
/// CMAC's `cipher`, RSA's `pad-mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OpenSslName {
    pub names: &'static str,
    pub params: &'static [(&'static str, &'static str)],
}

impl OpenSslName {
    /// The canonical name (the first of the list).
    pub fn canonical(&self) -> &'static str {
        self.names.split(':').next().unwrap_or(self.names)
    }
}

/// The NIST ACVP identity of the algorithm's test vectors: `algorithm`, the `mode`s that apply
/// (empty when the algorithm has none) and `revision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Acvp {
    pub algorithm: &'static str,
    pub modes: &'static [&'static str],
    pub revision: &'static str,
}

/// CycloneDX 1.6 `algorithmProperties` of the algorithm (see [`crate::cbom`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CbomFacts {
    /// `primitive`: `ae`, `block-cipher`, `hash`, `mac`, `kdf`, `signature`, ...
    pub primitive: &'static str,
    pub mode: Option<&'static str>,
    pub parameter_set: Option<&'static str>,
    pub curve: Option<&'static str>,
    /// NIST's post-quantum security category (FIPS 203/204 §1: 1 = AES-128 key search, 5 =
    /// AES-256); 0 for public-key algorithms Shor's algorithm breaks.
    pub nist_quantum_level: Option<u8>,
}

/// One algorithm's row.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub algorithm: Algorithm,
    /// CLI and policy-file name.
    pub name: &'static str,
    /// Other names accepted wherever an algorithm is named (`sha-256` for `sha256`).
    pub aliases: &'static [&'static str],
    pub family: Family,
    /// The backend that serves it.
    pub provider: Provider,
    pub sizes: Sizes,
    /// The hash function the algorithm is built on (HMAC, HKDF, signatures), if any.
    pub hash: Option<Algorithm>,
    /// The algorithm's object identifier (the one its CBOM component reports).
    pub oid: Option<&'static str>,
    pub openssl: Option<OpenSslName>,
    /// PKCS#11 mechanisms: the operation first, then key generation where it has its own.
    pub pkcs11: &'static [Mechanism],
    pub acvp: Option<Acvp>,
    pub cbom: CbomFacts,
    /// The power-on known-answer self-test that covers this algorithm's implementation.
    pub self_test: &'static str,
    /// The pairwise consistency test run after each key generation, if any.
    pub pct: Option<&'static str>,
    pub default: Rule,
    pub fips_140_3: Rule,
    pub gm: Rule,
    pub cnsa_2_0: Rule,
}

impl Entry {
    pub fn rule(&self, profile: Profile) -> Rule {
        match profile {
            Profile::Default => self.default,
            Profile::Fips1403 => self.fips_140_3,
            Profile::Gm => self.gm,
            Profile::Cnsa20 => self.cnsa_2_0,
        }
    }
}

/// A row's facts (not its rules, which [`crate::Policy::summary`] reports per policy), as
/// `regula info --json` and the bindings' consistency tests read them.
impl Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut row = serializer.serialize_struct("Entry", 13)?;
        row.serialize_field("name", self.name)?;
        row.serialize_field("aliases", self.aliases)?;
        row.serialize_field("family", self.family.name())?;
        row.serialize_field("provider", &self.provider)?;
        row.serialize_field("sizes", &self.sizes)?;
        row.serialize_field("hash", &self.hash.map(Algorithm::name))?;
        row.serialize_field("oid", &self.oid)?;
        row.serialize_field("openssl", &self.openssl)?;
        row.serialize_field("pkcs11", self.pkcs11)?;
        row.serialize_field("acvp", &self.acvp)?;
        row.serialize_field("cbom", &self.cbom)?;
        row.serialize_field("self_test", self.self_test)?;
        row.serialize_field("pct", &self.pct)?;
        row.end()
    }
}

/// The row for an algorithm.
#[inline]
pub fn entry(algorithm: Algorithm) -> &'static Entry {
    &REGISTRY[algorithm.index()]
}

impl Algorithm {
    /// The lowercase, hyphenated name used by the CLI and policy files (`aes-256-gcm`).
    pub fn name(self) -> &'static str {
        entry(self).name
    }

    /// The service family this algorithm belongs to.
    pub fn family(self) -> Family {
        entry(self).family
    }

    /// Everything the registry knows about this algorithm.
    pub fn entry(self) -> &'static Entry {
        entry(self)
    }

    /// Looks an algorithm up by its CLI / policy-file name or one of its aliases
    /// (case-insensitive).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        REGISTRY
            .iter()
            .find(|entry| {
                entry.name.eq_ignore_ascii_case(name)
                    || entry
                        .aliases
                        .iter()
                        .any(|alias| alias.eq_ignore_ascii_case(name))
            })
            .map(|entry| entry.algorithm)
    }
}

#[cfg(test)]
mod tests;
