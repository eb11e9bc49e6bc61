//! A runtime cryptography bill of materials: the algorithms this process actually used, as a
//! CycloneDX 1.6 document.
//!
//! Static scanners guess which cryptography a program uses from its code; the module knows,
//! because its service indicator counts every operation. [`Module::cbom`] turns those counters
//! into one `cryptographic-asset` component per algorithm used, with CycloneDX's
//! `cryptoProperties` (primitive, mode, parameter set or curve, execution environment,
//! platform, certification level, the functions used, OID) and Regula's own facts as
//! `properties` in the `regula:` namespace:
//!
//! | property | value |
//! |---|---|
//! | `regula:policy` | the policy in force |
//! | `regula:approved` | `true` when every operation was approved |
//! | `regula:operations` | operations counted |
//! | `regula:operations:approved`, `regula:operations:not-approved` | the split |
//! | `regula:operations:<service>` | per service (`encrypt`, `sign`, ...) |
//! | `regula:key-bits` | the smallest key size used, when known |
//! | `regula:status` | `approved`, `deprecated`, `legacy-use-only` or `disallowed` on the evaluation day |
//! | `regula:deprecated-from`, `regula:disallowed-from` | first day of that status for what was used |
//! | `regula:transition` | one per dated rule: `<status> from <day>[ for keys below N bits]: <source>` |
//!
//! The document's `metadata.properties` carry the module's identity (version, backend, FIPS
//! module or not), the policy, its mode and the evaluation day.

use serde_json::{Value, json};

use crate::algorithm::{Algorithm, Family, Service};
use crate::module::Module;
use crate::policy::{Date, Status, TransitionStatus};
use crate::registry::{self, Provider};

/// What CycloneDX says about one algorithm (its `algorithmProperties` and OID).
struct Describe {
    primitive: &'static str,
    mode: Option<&'static str>,
    parameter_set: Option<&'static str>,
    curve: Option<&'static str>,
    oid: Option<&'static str>,
    nist_quantum_level: Option<u8>,
}

const fn describe(
    primitive: &'static str,
    mode: Option<&'static str>,
    parameter_set: Option<&'static str>,
    oid: Option<&'static str>,
) -> Describe {
    Describe {
        primitive,
        mode,
        parameter_set,
        curve: None,
        oid,
        nist_quantum_level: None,
    }
}

fn description(algorithm: Algorithm) -> Describe {
    use Algorithm as A;
    // NIST's post-quantum security categories (FIPS 203/204 §1; category 1 = AES-128 key
    // search, 5 = AES-256); 0 for public-key algorithms Shor's algorithm breaks.
    let quantum = |level: u8, described: Describe| Describe {
        nist_quantum_level: Some(level),
        ..described
    };
    let curve = |curve: &'static str, described: Describe| Describe {
        curve: Some(curve),
        nist_quantum_level: Some(0),
        ..described
    };
    match algorithm {
        A::Aes128Gcm => quantum(
            1,
            describe(
                "ae",
                Some("gcm"),
                Some("128"),
                Some("2.16.840.1.101.3.4.1.6"),
            ),
        ),
        A::Aes256Gcm => quantum(
            5,
            describe(
                "ae",
                Some("gcm"),
                Some("256"),
                Some("2.16.840.1.101.3.4.1.46"),
            ),
        ),
        A::Aes128Ccm => quantum(
            1,
            describe(
                "ae",
                Some("ccm"),
                Some("128"),
                Some("2.16.840.1.101.3.4.1.7"),
            ),
        ),
        A::Aes256Ccm => quantum(
            5,
            describe(
                "ae",
                Some("ccm"),
                Some("256"),
                Some("2.16.840.1.101.3.4.1.47"),
            ),
        ),
        A::ChaCha20Poly1305 => describe(
            "ae",
            Some("other"),
            Some("256"),
            Some("1.2.840.113549.1.9.16.3.18"),
        ),
        A::Aes128Ctr => quantum(1, describe("block-cipher", Some("ctr"), Some("128"), None)),
        A::Aes256Ctr => quantum(5, describe("block-cipher", Some("ctr"), Some("256"), None)),
        A::Aes128Cbc => quantum(
            1,
            describe(
                "block-cipher",
                Some("cbc"),
                Some("128"),
                Some("2.16.840.1.101.3.4.1.2"),
            ),
        ),
        A::Aes256Cbc => quantum(
            5,
            describe(
                "block-cipher",
                Some("cbc"),
                Some("256"),
                Some("2.16.840.1.101.3.4.1.42"),
            ),
        ),
        A::Aes256Xts => quantum(
            5,
            describe("block-cipher", Some("other"), Some("256"), None),
        ),
        A::Aes128Cfb8 => quantum(1, describe("block-cipher", Some("cfb"), Some("128"), None)),
        A::Aes256Cfb8 => quantum(5, describe("block-cipher", Some("cfb"), Some("256"), None)),
        A::Aes128Kw => quantum(
            1,
            describe(
                "block-cipher",
                Some("other"),
                Some("128"),
                Some("2.16.840.1.101.3.4.1.5"),
            ),
        ),
        A::Aes256Kw => quantum(
            5,
            describe(
                "block-cipher",
                Some("other"),
                Some("256"),
                Some("2.16.840.1.101.3.4.1.45"),
            ),
        ),
        A::Aes128Kwp => quantum(
            1,
            describe(
                "block-cipher",
                Some("other"),
                Some("128"),
                Some("2.16.840.1.101.3.4.1.8"),
            ),
        ),
        A::Aes256Kwp => quantum(
            5,
            describe(
                "block-cipher",
                Some("other"),
                Some("256"),
                Some("2.16.840.1.101.3.4.1.48"),
            ),
        ),
        A::Rc4 => describe(
            "stream-cipher",
            None,
            Some("128"),
            Some("1.2.840.113549.3.4"),
        ),
        A::DesCbc => describe(
            "block-cipher",
            Some("cbc"),
            Some("56"),
            Some("1.3.14.3.2.7"),
        ),
        A::DesEde3Cbc => describe(
            "block-cipher",
            Some("cbc"),
            Some("168"),
            Some("1.2.840.113549.3.7"),
        ),
        A::Md4 => describe("hash", None, Some("128"), Some("1.2.840.113549.2.4")),
        A::Md5 => describe("hash", None, Some("128"), Some("1.2.840.113549.2.5")),
        A::Sha1 => describe("hash", None, Some("160"), Some("1.3.14.3.2.26")),
        A::Sha224 => describe("hash", None, Some("224"), Some("2.16.840.1.101.3.4.2.4")),
        A::Sha256 => describe("hash", None, Some("256"), Some("2.16.840.1.101.3.4.2.1")),
        A::Sha384 => describe("hash", None, Some("384"), Some("2.16.840.1.101.3.4.2.2")),
        A::Sha512 => describe("hash", None, Some("512"), Some("2.16.840.1.101.3.4.2.3")),
        A::Sha3_256 => describe("hash", None, Some("256"), Some("2.16.840.1.101.3.4.2.8")),
        A::Sha3_384 => describe("hash", None, Some("384"), Some("2.16.840.1.101.3.4.2.9")),
        A::Sha3_512 => describe("hash", None, Some("512"), Some("2.16.840.1.101.3.4.2.10")),
        A::HmacMd5 => describe("mac", None, Some("128"), Some("1.3.6.1.5.5.8.1.1")),
        A::HmacSha1 => describe("mac", None, Some("160"), Some("1.2.840.113549.2.7")),
        A::HmacSha224 => describe("mac", None, Some("224"), Some("1.2.840.113549.2.8")),
        A::HmacSha256 => describe("mac", None, Some("256"), Some("1.2.840.113549.2.9")),
        A::HmacSha384 => describe("mac", None, Some("384"), Some("1.2.840.113549.2.10")),
        A::HmacSha512 => describe("mac", None, Some("512"), Some("1.2.840.113549.2.11")),
        A::Aes128Cmac => quantum(1, describe("mac", None, Some("128"), None)),
        A::Aes256Cmac => quantum(5, describe("mac", None, Some("256"), None)),
        A::Aes128Gmac => quantum(
            1,
            describe(
                "mac",
                Some("gcm"),
                Some("128"),
                Some("2.16.840.1.101.3.4.1.9"),
            ),
        ),
        A::Aes256Gmac => quantum(
            5,
            describe(
                "mac",
                Some("gcm"),
                Some("256"),
                Some("2.16.840.1.101.3.4.1.49"),
            ),
        ),
        A::HkdfSha256 => describe("kdf", None, Some("256"), Some("1.2.840.113549.1.9.16.3.28")),
        A::HkdfSha384 => describe("kdf", None, Some("384"), Some("1.2.840.113549.1.9.16.3.29")),
        A::HkdfSha512 => describe("kdf", None, Some("512"), Some("1.2.840.113549.1.9.16.3.30")),
        A::Pbkdf2Sha256 | A::Pbkdf2Sha384 | A::Pbkdf2Sha512 => {
            describe("kdf", None, None, Some("1.2.840.113549.1.5.12"))
        }
        A::KbkdfCtrHmacSha256 | A::KbkdfCtrHmacSha384 | A::KbkdfCtrHmacSha512 => {
            describe("kdf", None, None, None)
        }
        A::EcdsaP256 => curve(
            "nist/P-256",
            describe("signature", None, None, Some("1.2.840.10045.4.3.2")),
        ),
        A::EcdsaP384 => curve(
            "nist/P-384",
            describe("signature", None, None, Some("1.2.840.10045.4.3.3")),
        ),
        A::EcdsaP521 => curve(
            "nist/P-521",
            describe("signature", None, None, Some("1.2.840.10045.4.3.4")),
        ),
        A::EcdsaP256Sha1 => curve(
            "nist/P-256",
            describe("signature", None, None, Some("1.2.840.10045.4.1")),
        ),
        A::Ed25519 => curve(
            "other/Ed25519",
            describe("signature", None, None, Some("1.3.101.112")),
        ),
        A::RsaPssSha256 | A::RsaPssSha384 | A::RsaPssSha512 => Describe {
            nist_quantum_level: Some(0),
            ..describe("signature", None, None, Some("1.2.840.113549.1.1.10"))
        },
        A::RsaPkcs1Sha256 => quantum(
            0,
            describe("signature", None, None, Some("1.2.840.113549.1.1.11")),
        ),
        A::RsaPkcs1Sha384 => quantum(
            0,
            describe("signature", None, None, Some("1.2.840.113549.1.1.12")),
        ),
        A::RsaPkcs1Sha512 => quantum(
            0,
            describe("signature", None, None, Some("1.2.840.113549.1.1.13")),
        ),
        A::RsaPkcs1Sha1 => quantum(
            0,
            describe("signature", None, None, Some("1.2.840.113549.1.1.5")),
        ),
        A::MlDsa44 => quantum(
            2,
            describe(
                "signature",
                None,
                Some("44"),
                Some("2.16.840.1.101.3.4.3.17"),
            ),
        ),
        A::MlDsa65 => quantum(
            3,
            describe(
                "signature",
                None,
                Some("65"),
                Some("2.16.840.1.101.3.4.3.18"),
            ),
        ),
        A::MlDsa87 => quantum(
            5,
            describe(
                "signature",
                None,
                Some("87"),
                Some("2.16.840.1.101.3.4.3.19"),
            ),
        ),
        A::EcdhP256 => curve(
            "nist/P-256",
            describe("key-agree", None, None, Some("1.2.840.10045.3.1.7")),
        ),
        A::EcdhP384 => curve(
            "nist/P-384",
            describe("key-agree", None, None, Some("1.3.132.0.34")),
        ),
        A::EcdhP521 => curve(
            "nist/P-521",
            describe("key-agree", None, None, Some("1.3.132.0.35")),
        ),
        A::X25519 => curve(
            "other/Curve25519",
            describe("key-agree", None, None, Some("1.3.101.110")),
        ),
        A::MlKem768 => quantum(
            3,
            describe("kem", None, Some("768"), Some("2.16.840.1.101.3.4.4.2")),
        ),
        A::MlKem1024 => quantum(
            5,
            describe("kem", None, Some("1024"), Some("2.16.840.1.101.3.4.4.3")),
        ),
        A::CtrDrbg => describe("drbg", None, Some("256"), None),
        // GM/T 0105-2021: the SM3 generator (256-bit strength) and the SM4 CTR one (128).
        A::Sm3Drbg => describe("drbg", None, Some("256"), None),
        A::Sm4CtrDrbg => describe("drbg", None, Some("128"), None),
        // The kernel's fscrypt key hierarchy: HKDF-SHA512 (RFC 8619's id-alg-hkdf-with-sha512).
        A::FscryptHkdfSha512 => {
            describe("kdf", None, Some("512"), Some("1.2.840.113549.1.9.16.3.30"))
        }
        // Ciphertext stealing (CBC-CS3) over AES-256-CBC, fscrypt's file-name mode.
        A::Aes256CbcCs3 => quantum(
            5,
            describe("block-cipher", Some("other"), Some("256"), None),
        ),
        A::Sm3 => describe("hash", None, Some("256"), Some("1.2.156.10197.1.401")),
        A::HmacSm3 => describe("mac", None, Some("256"), None),
        A::Sm4Ecb => describe(
            "block-cipher",
            Some("ecb"),
            Some("128"),
            Some("1.2.156.10197.1.104.1"),
        ),
        A::Sm4Cbc => describe(
            "block-cipher",
            Some("cbc"),
            Some("128"),
            Some("1.2.156.10197.1.104.2"),
        ),
        A::Sm4Ctr => describe(
            "block-cipher",
            Some("ctr"),
            Some("128"),
            Some("1.2.156.10197.1.104.7"),
        ),
        A::Sm4Ofb => describe(
            "block-cipher",
            Some("ofb"),
            Some("128"),
            Some("1.2.156.10197.1.104.3"),
        ),
        A::Sm4Cfb => describe(
            "block-cipher",
            Some("cfb"),
            Some("128"),
            Some("1.2.156.10197.1.104.4"),
        ),
        A::Sm4Gcm => describe(
            "ae",
            Some("gcm"),
            Some("128"),
            Some("1.2.156.10197.1.104.8"),
        ),
        A::Sm4Ccm => describe(
            "ae",
            Some("ccm"),
            Some("128"),
            Some("1.2.156.10197.1.104.9"),
        ),
        A::Sm4Xts | A::Sm4XtsGb | A::Sm4CbcCs3 => {
            describe("block-cipher", Some("other"), Some("128"), None)
        }
        A::Sm4Cmac | A::Sm4XcbcMac | A::Sm4CbcMac => describe("mac", None, Some("128"), None),
        A::Sm2Sign => curve(
            "oscaa/SM2",
            describe("signature", None, None, Some("1.2.156.10197.1.501")),
        ),
        A::Sm2Encrypt => curve("oscaa/SM2", describe("pke", None, None, None)),
        A::Sm2Ecdh | A::Sm2KeyExchange => {
            curve("oscaa/SM2", describe("key-agree", None, None, None))
        }
    }
}

/// CycloneDX's `cryptoFunctions` name for a service.
fn crypto_function(service: Service) -> &'static str {
    match service {
        Service::Encrypt => "encrypt",
        Service::Decrypt => "decrypt",
        Service::Digest => "digest",
        Service::MacGenerate => "tag",
        Service::MacVerify | Service::Verify => "verify",
        Service::KeyDerivation => "keyderive",
        Service::KeyGeneration => "keygen",
        Service::Sign => "sign",
        Service::Encapsulate => "encapsulate",
        Service::Decapsulate => "decapsulate",
        Service::RandomGeneration => "generate",
        Service::KeyImport | Service::KeyAgreement => "other",
    }
}

fn implementation_platform() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "x86_64"
    } else if cfg!(target_arch = "aarch64") {
        "armv8-a"
    } else if cfg!(target_arch = "s390x") {
        "s390x"
    } else {
        "other"
    }
}

fn property(name: &str, value: impl ToString) -> Value {
    json!({ "name": name, "value": value.to_string() })
}

/// The `name` CycloneDX shows: the registry's name in capitals (`AES-256-GCM`).
fn display_name(algorithm: Algorithm) -> String {
    algorithm.name().to_ascii_uppercase()
}

/// A random RFC 4122 version 4 UUID from AWS-LC's DRBG (not counted: the document is not one
/// of the caller's operations).
fn serial_number() -> String {
    let mut bytes = [0u8; 16];
    if crate::provider::random::aws_lc_fill(&mut bytes).is_err() {
        // No serial number is better than a predictable one; the caller omits it.
        return String::new();
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "urn:uuid:{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The UTC time now, RFC 3339 (`2026-11-24T12:00:00Z`).
fn timestamp() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let day = Date::from_days_since_epoch(seconds / 86_400);
    let in_day = seconds % 86_400;
    format!(
        "{day}T{:02}:{:02}:{:02}Z",
        in_day / 3600,
        in_day / 60 % 60,
        in_day % 60
    )
}

impl Module {
    /// The runtime CBOM of this process so far: a CycloneDX 1.6 JSON document listing, as
    /// `cryptographic-asset` components, exactly the algorithms the module-wide counters saw
    /// (see the module documentation of [`crate::cbom`] for the `regula:` properties).
    pub fn cbom(&self) -> Value {
        let info = crate::info::build_info();
        let policy = self.policy();
        let date = policy.date();
        let certified = info.fips_module_linked && info.fips_mode.is_ok();
        let mut rows: Vec<(Algorithm, Vec<crate::indicator::CounterRow>)> = Vec::new();
        for row in self.counters() {
            match rows.last_mut() {
                Some((algorithm, group)) if *algorithm == row.algorithm => group.push(row),
                _ => rows.push((row.algorithm, vec![row])),
            }
        }
        let components: Vec<Value> = rows
            .iter()
            .map(|(algorithm, counts)| self.component(*algorithm, counts, date, certified))
            .collect();
        let refs: Vec<Value> = components
            .iter()
            .map(|component| component["bom-ref"].clone())
            .collect();
        let mut document = json!({
            "$schema": "http://cyclonedx.org/schema/bom-1.6.schema.json",
            "bomFormat": "CycloneDX",
            "specVersion": "1.6",
            "version": 1,
            "metadata": {
                "timestamp": timestamp(),
                "tools": {
                    "components": [{
                        "type": "library",
                        "name": "regula",
                        "version": info.regula_version,
                    }]
                },
                "component": {
                    "type": "library",
                    "bom-ref": "regula",
                    "name": "regula",
                    "version": info.regula_version,
                    "description": format!(
                        "Regula cryptographic module on {}, policy {}",
                        info.backend,
                        policy.name()
                    ),
                },
                "properties": [
                    property("regula:policy", policy.name()),
                    property("regula:profile", policy.profile().name()),
                    property("regula:policy-mode", policy.mode().name()),
                    property("regula:policy-origin", policy.origin()),
                    property("regula:as-of", date),
                    property("regula:backend", &info.backend),
                    property("regula:fips-module-linked", info.fips_module_linked),
                    property("regula:fips-mode", info.fips_mode.is_ok()),
                    property("regula:module-state", match self.state() {
                        crate::ModuleState::Operational => "operational",
                        crate::ModuleState::Error => "error",
                    }),
                ],
            },
            "components": components,
            "dependencies": [{ "ref": "regula", "provides": refs }],
        });
        let serial = serial_number();
        if !serial.is_empty() {
            document["serialNumber"] = Value::String(serial);
        }
        document
    }

    fn component(
        &self,
        algorithm: Algorithm,
        counts: &[crate::indicator::CounterRow],
        date: Date,
        certified: bool,
    ) -> Value {
        let entry = registry::entry(algorithm);
        let described = description(algorithm);
        let key_bits = self.smallest_key_bits(algorithm);
        let approved: u64 = counts.iter().map(|row| row.approved).sum();
        let not_approved: u64 = counts.iter().map(|row| row.not_approved).sum();
        let mut functions: Vec<&str> = Vec::new();
        for row in counts {
            let function = crypto_function(row.service);
            if !functions.contains(&function) {
                functions.push(function);
            }
        }
        let certification = if certified && entry.provider == Provider::AwsLc {
            "fips140-3-l1"
        } else {
            "none"
        };
        let mut algorithm_properties = json!({
            "primitive": described.primitive,
            "executionEnvironment": "software-plain-ram",
            "implementationPlatform": implementation_platform(),
            "certificationLevel": [certification],
            "cryptoFunctions": functions,
        });
        if let Some(mode) = described.mode {
            algorithm_properties["mode"] = json!(mode);
        }
        let parameter_set = described.parameter_set.map(str::to_string).or_else(|| {
            // RSA: the modulus size used.
            (described.curve.is_none() && entry.family == Family::Signature)
                .then_some(key_bits)
                .flatten()
                .map(|bits| bits.to_string())
        });
        if let Some(parameter_set) = parameter_set {
            algorithm_properties["parameterSetIdentifier"] = json!(parameter_set);
        }
        if let Some(curve) = described.curve {
            algorithm_properties["curve"] = json!(curve);
        }
        if let Some(level) = described.nist_quantum_level {
            algorithm_properties["nistQuantumSecurityLevel"] = json!(level);
        }
        let mut crypto_properties = json!({
            "assetType": "algorithm",
            "algorithmProperties": algorithm_properties,
        });
        if let Some(oid) = described.oid {
            crypto_properties["oid"] = json!(oid);
        }

        let policy = self.policy();
        let mut properties = vec![
            property("regula:policy", policy.name()),
            property("regula:approved", not_approved == 0),
            property("regula:operations", approved + not_approved),
            property("regula:operations:approved", approved),
            property("regula:operations:not-approved", not_approved),
        ];
        for row in counts {
            properties.push(property(
                &format!("regula:operations:{}", row.service),
                row.approved + row.not_approved,
            ));
        }
        if let Some(bits) = key_bits {
            properties.push(property("regula:key-bits", bits));
        }
        // The dated rules that apply to what was used: a key-size condition counts when the
        // smallest key used falls under it, or when no key size is known.
        let rule = policy.rule(algorithm);
        let relevant: Vec<_> = rule
            .transitions
            .iter()
            .filter(|transition| match (transition.below_key_bits, key_bits) {
                (Some(bound), Some(bits)) => bits < bound,
                _ => true,
            })
            .collect();
        let status = if rule.status == Status::Approved {
            relevant
                .iter()
                .rev()
                .find(|transition| transition.date() <= date)
                .map_or("approved", |transition| transition.status.name())
        } else {
            "not-approved"
        };
        properties.push(property("regula:status", status));
        for (wanted, name) in [
            (TransitionStatus::Deprecated, "regula:deprecated-from"),
            (TransitionStatus::Disallowed, "regula:disallowed-from"),
        ] {
            if let Some(transition) = relevant.iter().find(|t| t.status == wanted) {
                properties.push(property(name, transition.from));
            }
        }
        for transition in &relevant {
            let keys = transition
                .below_key_bits
                .map_or(String::new(), |bits| format!(" for keys below {bits} bits"));
            properties.push(property(
                "regula:transition",
                format!(
                    "{} from {}{keys}: {}",
                    transition.status, transition.from, transition.source
                ),
            ));
        }

        json!({
            "type": "cryptographic-asset",
            "bom-ref": format!("crypto/algorithm/{}", algorithm.name()),
            "name": display_name(algorithm),
            "cryptoProperties": crypto_properties,
            "properties": properties,
        })
    }
}
