//! `MacContext::try_clone`: a copy taken mid-message continues independently, as OpenSSL's
//! `EVP_MAC_CTX_dup` requires of the provider.

use hex_literal::hex;
use regula::{Algorithm, Module, Policy, Profile};

fn module() -> Module {
    Module::load(Policy::builtin(Profile::Default))
}

/// A copy made after `first`, then fed `rest`, gives the tag of `first ‖ rest`; the original,
/// fed something else after the copy, gives that message's tag.
fn check_clone(algorithm: Algorithm, key: &[u8], first: &[u8], rest: &[u8]) -> Vec<u8> {
    let module = module();
    let key = module.mac_key(algorithm, key).unwrap();
    let nonce = [7u8; 12];
    let start = || {
        if key.takes_nonce() {
            key.context_with_nonce(&nonce).unwrap()
        } else {
            key.context()
        }
    };
    let mut original = start();
    original.update(first).unwrap();
    let mut copy = original.try_clone().unwrap();
    copy.update(rest).unwrap();
    original.update(b"something else").unwrap();

    let whole = [first, rest].concat();
    let other = [first, b"something else".as_slice()].concat();
    let one_shot = |message: &[u8]| {
        let mut context = start();
        context.update(message).unwrap();
        context.sign().unwrap().into_value()
    };
    let copied_tag = copy.sign().unwrap().into_value();
    assert_eq!(copied_tag, one_shot(&whole), "{algorithm}: copy");
    assert_eq!(
        original.sign().unwrap().into_value(),
        one_shot(&other),
        "{algorithm}: original"
    );
    assert_ne!(one_shot(&whole), one_shot(&other), "{algorithm}");
    copied_tag
}

#[test]
fn hmac_sha256_copy_gives_rfc_4231_answer() {
    // RFC 4231 §4.3, test case 2.
    let tag = check_clone(
        Algorithm::HmacSha256,
        b"Jefe",
        b"what do ya want ",
        b"for nothing?",
    );
    assert_eq!(
        tag,
        hex!("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    );
}

#[test]
fn aes_cmac_copy_gives_rfc_4493_answer() {
    // RFC 4493 §4, example 2 (16-byte message), split after 5 bytes.
    let message = hex!("6bc1bee22e409f96e93d7e117393172a");
    let tag = check_clone(
        Algorithm::Aes128Cmac,
        &hex!("2b7e151628aed2a6abf7158809cf4f3c"),
        &message[..5],
        &message[5..],
    );
    assert_eq!(tag, hex!("070a16b46b4d4144f79bdd9dd04a287c"));
}

#[test]
fn every_other_mac_copies_mid_message() {
    let key16 = [0x42u8; 16];
    let key32 = [0x24u8; 32];
    for (algorithm, key) in [
        (Algorithm::HmacSha1, &key32[..]),
        (Algorithm::HmacSha384, &key32[..]),
        (Algorithm::HmacSha512, &key32[..]),
        (Algorithm::HmacMd5, &key16[..]),
        (Algorithm::HmacSm3, &key32[..]),
        (Algorithm::Aes256Cmac, &key32[..]),
        (Algorithm::Sm4Cmac, &key16[..]),
        (Algorithm::Sm4XcbcMac, &key16[..]),
        (Algorithm::Sm4CbcMac, &key16[..]),
        (Algorithm::Aes128Gmac, &key16[..]),
    ] {
        check_clone(algorithm, key, &[1u8; 37], &[2u8; 27]);
    }
}
