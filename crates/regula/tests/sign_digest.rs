//! `SigningKey::sign_digest`: ECDSA over a hash the caller computed (PKCS#11's `CKM_ECDSA`).
//! The known hashes are FIPS 180-2's examples; the signatures are checked by the module's own
//! ECDSA-with-hash verification over the message the hash is of.

use hex_literal::hex;
use regula::{Algorithm, Error, Module, Policy, Profile};

/// SHA-256("abc") and SHA-384("abc"): FIPS 180-2 Appendix B.1 and D.1.
const SHA256_ABC: [u8; 32] =
    hex!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
const SHA384_ABC: [u8; 48] = hex!(
    "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
    "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
);

#[test]
fn a_permissive_policy_signs_a_hash_flagged_and_the_signature_verifies() {
    let module = Module::load(Policy::builtin(Profile::Default));
    for (algorithm, hash) in [
        (Algorithm::EcdsaP256, &SHA256_ABC[..]),
        (Algorithm::EcdsaP384, &SHA384_ABC[..]),
    ] {
        let key = module.generate_signing_key(algorithm, None).unwrap();
        let signature = key.sign_digest(hash).unwrap();
        assert!(
            !signature.is_approved(),
            "{algorithm}: the module did not hash"
        );
        let public_key = key.public_key_der().unwrap();
        module
            .verify(algorithm, &public_key, b"abc", &signature)
            .unwrap();
        assert!(matches!(
            module.verify(algorithm, &public_key, b"abd", &signature),
            Err(Error::BadSignature)
        ));
        // A SHA-1 hash and lengths of no approved hash are refused.
        for len in [0, 20, 31, 65] {
            assert!(matches!(
                key.sign_digest(&vec![7; len]),
                Err(Error::InvalidInput { .. })
            ));
        }
    }
    let key = module
        .generate_signing_key(Algorithm::Ed25519, None)
        .unwrap();
    assert!(matches!(
        key.sign_digest(&SHA256_ABC),
        Err(Error::InvalidInput { .. })
    ));
}

#[test]
fn a_strict_policy_refuses_to_sign_a_hash() {
    let module = Module::load(Policy::builtin(Profile::Fips1403));
    let key = module
        .generate_signing_key(Algorithm::EcdsaP256, None)
        .unwrap();
    assert!(matches!(
        key.sign_digest(&SHA256_ABC),
        Err(Error::NotApproved { .. })
    ));
}
