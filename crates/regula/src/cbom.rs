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
        let described = &entry.cbom;
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
        if let Some(oid) = entry.oid {
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
