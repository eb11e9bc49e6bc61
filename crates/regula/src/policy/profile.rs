//! The built-in rulebooks and what a policy does with what it does not approve.

use std::fmt;

use serde::Serialize;

/// The built-in rulebooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum Profile {
    /// Everything the module implements; legacy algorithms are served but not approved.
    #[serde(rename = "default")]
    Default,
    /// FIPS 140-3: SP 800-140C/D approved security functions only.
    #[serde(rename = "fips-140-3")]
    Fips1403,
    /// Chinese commercial cryptography (GM/T): SM2, SM3, SM4.
    #[serde(rename = "gm")]
    Gm,
    /// NSA CNSA 2.0: AES-256, SHA-384/512, ML-KEM-1024, ML-DSA-87, with the CNSA 1.0 set
    /// (ECDH/ECDSA P-384, RSA ≥ 3072) as transitional until its dated end.
    #[serde(rename = "cnsa-2.0")]
    Cnsa20,
}

impl Profile {
    pub const ALL: [Profile; 4] = [
        Profile::Default,
        Profile::Fips1403,
        Profile::Gm,
        Profile::Cnsa20,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Fips1403 => "fips-140-3",
            Profile::Gm => "gm",
            Profile::Cnsa20 => "cnsa-2.0",
        }
    }

    /// One line about the profile; listings append what it approves from the registry
    /// ([`Profile::approved_names`]), so they cannot go stale.
    pub fn description(self) -> &'static str {
        match self {
            Profile::Default => {
                "everything Regula implements; legacy algorithms served but marked not approved"
            }
            Profile::Fips1403 => {
                "FIPS 140-3: only SP 800-140C/D approved functions, within their limits"
            }
            Profile::Gm => "GM/T commercial cryptography",
            Profile::Cnsa20 => {
                "NSA CNSA 2.0: AES-256, SHA-384/512, ML-KEM-1024, ML-DSA-87; P-384 and RSA >= 3072 \
                 transitional"
            }
        }
    }

    /// Built-in profiles that refuse non-approved services rather than serve them flagged.
    pub fn default_mode(self) -> Mode {
        match self {
            Profile::Default => Mode::Permissive,
            Profile::Fips1403 | Profile::Gm | Profile::Cnsa20 => Mode::Strict,
        }
    }

    /// The third-party validation scheme whose rules the profile's approvals follow, where
    /// there is one: what a PKCS#11 validation object (`CKO_VALIDATION`) describes. Regula itself
    /// holds no certificate; the scheme says what "approved" means on a slot with this policy.
    pub fn validation(self) -> Option<Validation> {
        match self {
            Profile::Fips1403 => Some(Validation {
                standard: "FIPS 140-3",
                version: (3, 0),
                level: 1,
                authority: ValidationAuthority::NistCmvp,
                country: "US",
            }),
            // GM/T 0028-2014 (security requirements for cryptographic modules) carries a year,
            // not a version number.
            Profile::Gm => Some(Validation {
                standard: "GM/T 0028-2014",
                version: (0, 0),
                level: 1,
                authority: ValidationAuthority::Other,
                country: "CN",
            }),
            // CNSA 2.0 is an algorithm suite, not a validation; `default` follows none.
            Profile::Default | Profile::Cnsa20 => None,
        }
    }

    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL
            .into_iter()
            .find(|profile| profile.name() == name)
    }
}

/// A validation scheme: its standard, the standard's version, the security level the profile's
/// rules aim at, who issues certificates under it, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Validation {
    pub standard: &'static str,
    /// (major, minor); (0, 0) where the standard has no version number.
    pub version: (u8, u8),
    pub level: u32,
    pub authority: ValidationAuthority,
    /// ISO 3166-1 alpha-2.
    pub country: &'static str,
}

/// Who issues validation certificates under a scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum ValidationAuthority {
    /// NIST's Cryptographic Module Validation Program (FIPS 140).
    NistCmvp,
    /// Another authority (GM/T modules are certified by China's State Cryptography
    /// Administration, which PKCS#11 has no code for).
    Other,
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a policy does with a service it does not approve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Refuse it with [`Error::NotApproved`].
    Strict,
    /// Serve it; the service indicator says "not approved".
    Permissive,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Strict => "strict",
            Mode::Permissive => "permissive",
        }
    }
}
