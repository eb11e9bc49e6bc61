//! What this build is made of, for `regula info`: versions, the linked AWS-LC, CPU features and
//! the implementation behind each algorithm.

use serde::Serialize;

use crate::algorithm::Algorithm;
use crate::identity::{self, Identity};
use crate::provider::{awslc, sm};
use crate::registry::{self, Provider};

/// A snapshot of the build and the machine.
#[derive(Clone, Debug, Serialize)]
pub struct BuildInfo {
    pub regula_version: &'static str,
    /// The identity record embedded in the binary (what `regula audit` reads back).
    pub identity: Identity,
    /// e.g. `AWS-LC 5.12.0` or `AWS-LC FIPS 4.2.0`.
    pub backend: String,
    /// Built with the `fips` feature (aws-lc-fips-sys).
    pub fips_module_linked: bool,
    /// AWS-LC's `try_fips_mode()`: `Ok` only when the validated module runs in FIPS mode.
    pub fips_mode: Result<(), &'static str>,
    /// The FIPS module version the build corresponds to, if any.
    pub fips_module_version: Option<u32>,
    pub cpu_features: Vec<&'static str>,
    pub implementations: Vec<Implementation>,
}

/// Who serves one algorithm, with the facts of its registry row.
#[derive(Clone, Debug, Serialize)]
pub struct Implementation {
    pub algorithm: Algorithm,
    pub implementation: String,
    /// Its registry row: names, sizes, OID, OpenSSL names, PKCS#11 mechanisms, ACVP identity.
    pub row: &'static registry::Entry,
}

/// CPU features that select code paths inside AWS-LC and, later, regula-sm.
pub fn cpu_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut features = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! probe {
            ($($feature:tt),*) => {
                $(if std::arch::is_x86_feature_detected!($feature) { features.push($feature); })*
            };
        }
        probe!(
            "aes",
            "pclmulqdq",
            "sha",
            "avx2",
            "bmi2",
            "adx",
            "avx512f",
            "vaes",
            "vpclmulqdq",
            "gfni"
        );
    }
    #[cfg(target_arch = "aarch64")]
    {
        macro_rules! probe {
            ($($feature:tt),*) => {
                $(if std::arch::is_aarch64_feature_detected!($feature) { features.push($feature); })*
            };
        }
        probe!("aes", "pmull", "sha2", "sha3", "sm4");
    }
    features
}

pub fn build_info() -> BuildInfo {
    let backend = awslc::backend_description();
    BuildInfo {
        regula_version: env!("CARGO_PKG_VERSION"),
        identity: identity::identity(),
        fips_module_linked: cfg!(feature = "fips"),
        fips_mode: awslc::fips_mode(),
        fips_module_version: awslc::fips_version(),
        cpu_features: cpu_features(),
        implementations: Algorithm::ALL
            .iter()
            .map(|&algorithm| Implementation {
                algorithm,
                implementation: match registry::entry(algorithm).provider {
                    Provider::AwsLc => backend.clone(),
                    Provider::RegulaSm => sm::implementation(algorithm),
                },
                row: registry::entry(algorithm),
            })
            .collect(),
        backend,
    }
}
