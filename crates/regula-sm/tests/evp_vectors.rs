//! Every SM4-ECB, SM4-CBC and SM4-CTR stanza of `shared/vectors/sm4-evp.txt` (OpenSSL
//! `evp_test` format; from OpenSSL's `evpciph_sm4.txt`, itself from draft-ribose-cfrg-sm4), on
//! every backend, in both directions.

mod common;

use common::{Stanza, backends, cipher, parse_evp, unhex, unhex16};
use regula_sm::sm4::modes::{
    Ctr, cbc_decrypt, cbc_encrypt, ctr_apply_keystream, ecb_decrypt, ecb_encrypt,
};

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/vectors/sm4-evp.txt"
);

/// The fields a stanza of each mode must consist of; anything else fails the test, so that no
/// field is silently ignored.
fn expected_fields(mode: &str) -> &'static [&'static str] {
    match mode {
        "SM4-ECB" => &["Cipher", "Key", "Plaintext", "Ciphertext"],
        _ => &["Cipher", "Key", "IV", "Plaintext", "Ciphertext"],
    }
}

fn check_stanza(stanza: &Stanza, mode: &str) {
    let names: Vec<&str> = stanza
        .fields
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    let mut expected = expected_fields(mode).to_vec();
    let mut sorted = names.clone();
    sorted.sort_unstable_by_key(|name| name.to_ascii_lowercase());
    expected.sort_unstable_by_key(|name| name.to_ascii_lowercase());
    assert_eq!(sorted, expected, "line {}: unexpected fields", stanza.line);

    let key = unhex16(stanza.get("Key").unwrap());
    let plaintext = unhex(stanza.get("Plaintext").unwrap());
    let ciphertext = unhex(stanza.get("Ciphertext").unwrap());
    let iv = stanza.get("IV").map(unhex16);

    for backend in backends() {
        let sm4 = cipher(&key, backend);
        let context = format!("line {}, {mode}, {backend}", stanza.line);
        let mut data = plaintext.clone();
        match mode {
            "SM4-ECB" => {
                ecb_encrypt(&sm4, &mut data).unwrap();
                assert_eq!(data, ciphertext, "{context}: encrypt");
                ecb_decrypt(&sm4, &mut data).unwrap();
            }
            "SM4-CBC" => {
                let iv = iv.unwrap();
                cbc_encrypt(&sm4, &iv, &mut data).unwrap();
                assert_eq!(data, ciphertext, "{context}: encrypt");
                cbc_decrypt(&sm4, &iv, &mut data).unwrap();
            }
            "SM4-CTR" => {
                let iv = iv.unwrap();
                ctr_apply_keystream(&sm4, &iv, &mut data);
                assert_eq!(data, ciphertext, "{context}: encrypt");
                // Decrypt in uneven pieces through one streaming context.
                let mut ctr = Ctr::new(&sm4, &iv);
                let (first, rest) = data.split_at_mut(7.min(plaintext.len()));
                ctr.apply_keystream(first);
                let (second, third) = rest.split_at_mut(20.min(rest.len()));
                ctr.apply_keystream(second);
                ctr.apply_keystream(third);
            }
            other => unreachable!("{other}"),
        }
        assert_eq!(data, plaintext, "{context}: decrypt");
    }
}

#[test]
fn sm4_evp_vectors() {
    let text = std::fs::read_to_string(VECTORS).unwrap_or_else(|e| panic!("{VECTORS}: {e}"));
    let stanzas = parse_evp(&text);
    let mut ran = std::collections::BTreeMap::<String, usize>::new();
    let mut skipped = std::collections::BTreeMap::<String, usize>::new();
    for stanza in &stanzas {
        if stanza.get("Title").is_some() && stanza.fields.len() == 1 {
            continue;
        }
        let mode = stanza
            .get("Cipher")
            .unwrap_or_else(|| panic!("line {}: stanza without Cipher", stanza.line))
            .to_ascii_uppercase();
        if matches!(mode.as_str(), "SM4-ECB" | "SM4-CBC" | "SM4-CTR") {
            check_stanza(stanza, &mode);
            *ran.entry(mode).or_default() += 1;
        } else {
            *skipped.entry(mode).or_default() += 1;
        }
    }
    println!("ran {ran:?}; not in this crate yet: {skipped:?}");
    for mode in ["SM4-ECB", "SM4-CBC", "SM4-CTR"] {
        assert!(
            ran.get(mode).is_some_and(|&n| n > 0),
            "no {mode} stanza found"
        );
    }
}
