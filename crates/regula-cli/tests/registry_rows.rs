//! Every registry row reported the same way everywhere: `regula info --json` prints each row's
//! names and sizes as `regula::registry::REGISTRY` holds them, and the runtime CBOM describes
//! the algorithms a module used with their rows' OID, primitive and parameter set.
//!
//! The bindings are held to the same `regula info --json`: the C ABI's
//! `regula_algorithm_info_at` by scripts/test-c (`test_regula algorithm-table` and
//! crates/regula-ffi/tests/c/check_algorithm_table.py), the Python binding's
//! `regula.algorithm_info` by scripts/test-python (python/tests/test_registry.py) and the Go
//! binding's `regula.Algorithms` by scripts/test-go (go/registry_test.go), each given the file
//! in `REGULA_INFO_JSON`.

use std::collections::BTreeSet;
use std::process::Command;

use regula::registry::{Lengths, REGISTRY};
use regula::{Algorithm, Module};
use serde_json::Value;

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

fn text(value: &Value) -> Option<&str> {
    value.as_str()
}

fn size(value: &Value) -> Option<usize> {
    value.as_u64().map(|size| usize::try_from(size).unwrap())
}

fn lengths(value: &Value) -> Option<Lengths> {
    Some(Lengths::between(size(&value["min"])?, size(&value["max"])?))
}

#[test]
fn regula_info_prints_every_row_as_the_registry_holds_it() {
    let output = Command::new(REGULA)
        .args(["info", "--json"])
        .env_remove("REGULA_BREAK_SELFTEST")
        .output()
        .unwrap();
    assert!(output.status.success(), "regula info --json failed");
    let info: Value = serde_json::from_slice(&output.stdout).unwrap();
    let implementations = info["implementations"].as_array().unwrap();
    assert_eq!(implementations.len(), REGISTRY.len());
    for (implementation, entry) in implementations.iter().zip(REGISTRY.iter()) {
        let row = &implementation["row"];
        let name = entry.name;
        assert_eq!(text(&row["name"]), Some(name));
        let aliases: Vec<&str> = row["aliases"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(aliases, entry.aliases, "{name}");
        assert_eq!(text(&row["family"]), Some(entry.family.name()), "{name}");
        assert_eq!(
            text(&row["provider"]),
            Some(entry.provider.name()),
            "{name}"
        );
        assert_eq!(text(&row["oid"]), entry.oid, "{name}");
        assert_eq!(
            text(&row["hash"]),
            entry.hash.map(Algorithm::name),
            "{name}"
        );
        assert_eq!(
            text(&row["openssl"]["names"]),
            entry.openssl.map(|openssl| openssl.names),
            "{name}"
        );
        assert_eq!(
            text(&row["acvp"]["algorithm"]),
            entry.acvp.map(|acvp| acvp.algorithm),
            "{name}"
        );
        assert_eq!(
            text(&row["acvp"]["revision"]),
            entry.acvp.map(|acvp| acvp.revision),
            "{name}"
        );
        let mechanisms: Vec<(Option<&str>, Option<u64>)> = row["pkcs11"]
            .as_array()
            .unwrap()
            .iter()
            .map(|mechanism| (mechanism["name"].as_str(), mechanism["value"].as_u64()))
            .collect();
        let expected: Vec<(Option<&str>, Option<u64>)> = entry
            .pkcs11
            .iter()
            .map(|mechanism| (Some(mechanism.name), Some(u64::from(mechanism.value))))
            .collect();
        assert_eq!(mechanisms, expected, "{name}");

        let sizes = &row["sizes"];
        let held = entry.sizes;
        assert_eq!(lengths(&sizes["key"]), held.key, "{name} key");
        assert_eq!(lengths(&sizes["nonce"]), held.nonce, "{name} nonce");
        assert_eq!(lengths(&sizes["tag"]), held.tag, "{name} tag");
        assert_eq!(size(&sizes["iv"]), held.iv, "{name} iv");
        assert_eq!(size(&sizes["block"]), held.block, "{name} block");
        assert_eq!(size(&sizes["output"]), held.output, "{name} output");
        assert_eq!(
            size(&sizes["public_key"]),
            held.public_key,
            "{name} public key"
        );
        assert_eq!(
            size(&sizes["signature"]),
            held.signature,
            "{name} signature"
        );
        assert_eq!(
            size(&sizes["ciphertext"]),
            held.ciphertext,
            "{name} ciphertext"
        );

        assert_eq!(
            text(&row["cbom"]["primitive"]),
            Some(entry.cbom.primitive),
            "{name}"
        );
        assert_eq!(
            text(&row["cbom"]["parameter_set"]),
            entry.cbom.parameter_set,
            "{name}"
        );
    }
    // The sizes are the standards' (FIPS 180-4, FIPS 204 Table 2), not only self-consistent.
    let sha384 = &implementations[Algorithm::from_name("sha384").unwrap().index()]["row"];
    assert_eq!(size(&sha384["sizes"]["output"]), Some(48));
    assert_eq!(size(&sha384["sizes"]["block"]), Some(128));
    let mldsa = &implementations[Algorithm::from_name("ml-dsa-44").unwrap().index()]["row"];
    assert_eq!(size(&mldsa["sizes"]["signature"]), Some(2420));
    assert_eq!(size(&mldsa["sizes"]["public_key"]), Some(1312));
}

/// Uses a few algorithms of each family through the module; returns their names.
fn use_each_family(module: &Module) -> BTreeSet<&'static str> {
    let algorithm = |name: &str| Algorithm::from_name(name).unwrap();
    let key_for = |name: &str| vec![7u8; algorithm(name).entry().sizes.key.unwrap().min];
    let mut used = BTreeSet::new();
    for name in ["sha256", "sha3-384", "sm3"] {
        module.digest(algorithm(name), b"abc").unwrap();
        used.insert(algorithm(name).name());
    }
    for name in ["hmac-sha256", "hmac-sm3"] {
        let key = module.mac_key(algorithm(name), &[7u8; 32]).unwrap();
        key.sign(b"abc").unwrap();
        used.insert(algorithm(name).name());
    }
    for name in ["aes-128-cmac", "sm4-cmac"] {
        let key = module.mac_key(algorithm(name), &key_for(name)).unwrap();
        key.sign(b"abc").unwrap();
        used.insert(algorithm(name).name());
    }
    for name in ["aes-256-gcm", "chacha20-poly1305", "sm4-gcm"] {
        let key = module.aead_key(algorithm(name), &key_for(name)).unwrap();
        key.seal(b"aad", b"abc").unwrap();
        used.insert(algorithm(name).name());
    }
    for name in ["aes-128-ctr", "sm4-ctr"] {
        let key = module.cipher_key(algorithm(name), &key_for(name)).unwrap();
        key.encrypt(None, &[0u8; 32]).unwrap();
        used.insert(algorithm(name).name());
    }
    module
        .hkdf(algorithm("hkdf-sha256"), &[7u8; 32], b"salt", b"info", 32)
        .unwrap();
    module
        .pbkdf2(algorithm("pbkdf2-sha512"), &[7u8; 16], &[1u8; 16], 1000, 32)
        .unwrap();
    used.extend(["hkdf-sha256", "pbkdf2-sha512"]);
    for name in ["ecdsa-p256", "ed25519", "ml-dsa-65", "sm2-sign"] {
        module.generate_signing_key(algorithm(name), None).unwrap();
        used.insert(algorithm(name).name());
    }
    module.generate_agreement_key(algorithm("x25519")).unwrap();
    module.generate_kem_key(algorithm("ml-kem-768")).unwrap();
    used.extend(["x25519", "ml-kem-768"]);
    used
}

#[test]
fn the_cbom_describes_each_algorithm_used_as_its_row_does() {
    let module = Module::load_named("default").unwrap();
    let used = use_each_family(&module);
    let families: BTreeSet<&str> = used
        .iter()
        .map(|name| Algorithm::from_name(name).unwrap().family().name())
        .collect();
    assert!(families.len() >= 8, "{families:?}");

    let cbom = module.cbom();
    let components = cbom["components"].as_array().unwrap();
    let mut listed = BTreeSet::new();
    for component in components {
        let reference = text(&component["bom-ref"]).unwrap();
        let name = reference.strip_prefix("crypto/algorithm/").unwrap();
        let entry = Algorithm::from_name(name)
            .unwrap_or_else(|| panic!("{reference} names no registry row"))
            .entry();
        assert_eq!(entry.name, name);
        let crypto = &component["cryptoProperties"];
        let properties = &crypto["algorithmProperties"];
        assert_eq!(text(&crypto["oid"]), entry.oid, "{name} OID");
        assert_eq!(
            text(&properties["primitive"]),
            Some(entry.cbom.primitive),
            "{name} primitive"
        );
        if let Some(parameter_set) = entry.cbom.parameter_set {
            assert_eq!(
                text(&properties["parameterSetIdentifier"]),
                Some(parameter_set),
                "{name} parameter set"
            );
        }
        assert_eq!(text(&properties["mode"]), entry.cbom.mode, "{name} mode");
        assert_eq!(text(&properties["curve"]), entry.cbom.curve, "{name} curve");
        listed.insert(entry.name);
    }
    let missing: Vec<_> = used.difference(&listed).collect();
    assert!(missing.is_empty(), "used but not in the CBOM: {missing:?}");
}
