//! The shipped C header `include/regula-pkcs11.h` against the registry and the token: every
//! vendor-defined mechanism of the registry rows is defined there with the same value (and
//! nothing else is), its "served" section is exactly what the `default` and `gm` slots list of
//! that range, and a C compiler takes it with `-Wall -Wextra -Werror`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use regula::registry::REGISTRY;
use regula::{Policy, Profile};
use regula_pkcs11::*;

const HEADER: &str = include_str!("../include/regula-pkcs11.h");

/// `#define NAME value` lines of the header, evaluated (`0x…UL` or `(BASE + 0x…UL)`), and
/// whether each stands before the "Reserved" comment (the served section).
fn definitions() -> BTreeMap<String, (u64, bool)> {
    let mut values: BTreeMap<String, (u64, bool)> = BTreeMap::new();
    let mut served = true;
    for line in HEADER.lines() {
        if line.starts_with("/* Reserved") {
            served = false;
        }
        let Some(rest) = line.strip_prefix("#define ") else {
            continue;
        };
        let mut parts = rest.splitn(2, ' ');
        let name = parts.next().unwrap().to_string();
        let Some(expression) = parts.next() else {
            continue; // the include guard
        };
        let expression = expression.split("/*").next().unwrap().trim();
        let literal = |text: &str| {
            let text = text.trim().trim_end_matches("UL");
            u64::from_str_radix(text.trim_start_matches("0x"), 16)
                .unwrap_or_else(|_| panic!("{name}: {text}"))
        };
        let value = match expression.strip_prefix('(') {
            Some(sum) => {
                let (base, offset) = sum.trim_end_matches(')').split_once('+').unwrap();
                values[base.trim()].0 + literal(offset)
            }
            None => literal(expression),
        };
        values.insert(name, (value, served));
    }
    values
}

#[test]
fn the_header_defines_the_registry_values_and_the_served_section_is_what_slots_list() {
    let header = definitions();
    assert_eq!(header["CKK_REGULA_SM4"].0, CKK_REGULA_SM4);
    let mut registry: BTreeMap<&str, u64> = BTreeMap::new();
    for entry in REGISTRY.iter() {
        for mechanism in entry.pkcs11.iter().filter(|m| m.is_vendor_defined()) {
            registry.insert(mechanism.name, mechanism.value.into());
        }
    }
    assert!(!registry.is_empty());
    for (name, value) in &registry {
        assert_eq!(
            header.get(*name).map(|(value, _)| *value),
            Some(*value),
            "{name}"
        );
    }
    let in_header: Vec<&String> = header
        .keys()
        .filter(|name| name.starts_with("CKM_REGULA_") && *name != "CKM_REGULA_BASE")
        .collect();
    for name in &in_header {
        assert!(
            registry.contains_key(name.as_str()),
            "{name} is not a registry mechanism"
        );
    }
    for profile in [Profile::Default, Profile::Gm] {
        let listed: Vec<u64> = mech::mechanisms(&Policy::builtin(profile))
            .keys()
            .copied()
            .filter(|&value| value >= 0x8000_0000)
            .collect();
        let served: Vec<u64> = in_header
            .iter()
            .filter(|name| header[name.as_str()].1)
            .map(|name| header[name.as_str()].0)
            .collect();
        let mut served_sorted = served.clone();
        served_sorted.sort_unstable();
        assert_eq!(listed, served_sorted, "{profile:?}");
    }
    let fips = mech::mechanisms(&Policy::builtin(Profile::Fips1403));
    assert!(fips.keys().all(|&mechanism| mechanism < 0x8000_0000));
}

#[test]
fn a_c_compiler_takes_the_header_warning_free() {
    let dir = std::env::temp_dir().join(format!("regula-pkcs11-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("use.c");
    // The key-exchange parameter's layout is the token's (its size and last field's offset).
    let exchange_size = std::mem::size_of::<CK_REGULA_SM2_KEY_EXCHANGE_PARAMS>();
    let exchange_last = std::mem::offset_of!(CK_REGULA_SM2_KEY_EXCHANGE_PARAMS, pPeerConfirmation);
    std::fs::write(
        &source,
        format!(
            "#include <stddef.h>\n\
             #include \"regula-pkcs11.h\"\n\
             _Static_assert(CKM_REGULA_SM4_GCM == 0x80524709UL, \"SM4-GCM\");\n\
             _Static_assert(CKK_REGULA_SM4 == 0x80524701UL, \"SM4 key\");\n\
             _Static_assert(sizeof(CK_REGULA_SM2_KEY_EXCHANGE_PARAMS) == {exchange_size}, \"size\");\n\
             _Static_assert(offsetof(CK_REGULA_SM2_KEY_EXCHANGE_PARAMS, pPeerConfirmation) \
             == {exchange_last}, \"layout\");\n\
             int main(void) {{ return CKM_REGULA_SM3 == 0x80524701UL ? 0 : 1; }}\n",
        ),
    )
    .unwrap();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let binary = dir.join("use");
    let status = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(&include)
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .status()
        .expect("cc runs");
    assert!(status.success());
    assert!(Command::new(&binary).status().unwrap().success());
    let _ = std::fs::remove_dir_all(&dir);
}
