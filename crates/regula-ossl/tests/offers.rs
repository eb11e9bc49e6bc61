//! What the provider offers OpenSSL under each policy, read through its own query function
//! (the in-process core stand-in, no libcrypto): only what the policy serves, and `fips=yes`
//! exactly on what it approves.

use regula_ossl::ffi;
use regula_ossl::host::Host;

/// (first OpenSSL name, properties) of each algorithm offered for `operation`.
fn offered(host: &Host, operation: i32) -> Vec<(String, String)> {
    host.offered(operation)
        .into_iter()
        .map(|offer| {
            let first = offer.names.split(':').next().unwrap_or("").to_owned();
            (first, offer.properties)
        })
        .collect()
}

fn properties_of<'a>(list: &'a [(String, String)], name: &str) -> Option<&'a str> {
    list.iter()
        .find(|(first, _)| first == name)
        .map(|(_, properties)| properties.as_str())
}

#[test]
fn fips_140_3_offers_approved_algorithms_and_no_legacy_or_sm() {
    let host = Host::load("fips-140-3").expect("loads");
    let digests = offered(&host, ffi::OP_DIGEST);
    assert_eq!(
        properties_of(&digests, "SHA2-256"),
        Some("provider=regula,fips=yes")
    );
    assert_eq!(
        properties_of(&digests, "SHA3-512"),
        Some("provider=regula,fips=yes")
    );
    // FIPS 202's XOFs, which OpenSSL 3.5's ML-DSA key encoders fetch from the library context.
    for xof in ["SHAKE-128", "SHAKE-256"] {
        assert_eq!(
            properties_of(&digests, xof),
            Some("provider=regula,fips=yes"),
            "{xof}"
        );
    }
    for refused in ["MD5", "MD4", "SM3"] {
        assert_eq!(properties_of(&digests, refused), None, "{refused}");
    }
    let ciphers = offered(&host, ffi::OP_CIPHER);
    assert_eq!(
        properties_of(&ciphers, "AES-256-GCM"),
        Some("provider=regula,fips=yes")
    );
    assert!(
        ciphers.iter().all(|(name, _)| !name.starts_with("SM4")),
        "{ciphers:?}"
    );
    assert_eq!(properties_of(&ciphers, "RC4"), None);
    let kdfs = offered(&host, ffi::OP_KDF);
    for kdf in ["HKDF", "PBKDF2", "KBKDF", "TLS1-PRF"] {
        assert_eq!(
            properties_of(&kdfs, kdf),
            Some("provider=regula,fips=yes"),
            "{kdf}"
        );
    }
    let rand = offered(&host, ffi::OP_RAND);
    assert_eq!(
        properties_of(&rand, "CTR-DRBG"),
        Some("provider=regula,fips=yes")
    );
    // FIPS 204 ML-DSA: a key manager and a signature per parameter set.
    for operation in [ffi::OP_KEYMGMT, ffi::OP_SIGNATURE] {
        let list = offered(&host, operation);
        for set in ["ML-DSA-44", "ML-DSA-65", "ML-DSA-87"] {
            assert_eq!(
                properties_of(&list, set),
                Some("provider=regula,fips=yes"),
                "{set} for operation {operation}"
            );
        }
    }
}

#[test]
fn gm_offers_the_sm_algorithms_only() {
    let host = Host::load("gm").expect("loads");
    let digests = offered(&host, ffi::OP_DIGEST);
    assert_eq!(
        properties_of(&digests, "SM3"),
        Some("provider=regula,fips=yes")
    );
    for refused in ["SHA2-256", "SHAKE-128", "SHAKE-256"] {
        assert_eq!(properties_of(&digests, refused), None, "{refused}");
    }
    let ciphers = offered(&host, ffi::OP_CIPHER);
    assert_eq!(
        properties_of(&ciphers, "SM4-GCM"),
        Some("provider=regula,fips=yes")
    );
    assert_eq!(
        properties_of(&ciphers, "SM4-XTS"),
        Some("provider=regula,fips=yes")
    );
    assert!(
        ciphers.iter().all(|(name, _)| name.starts_with("SM4")),
        "{ciphers:?}"
    );
    let macs = offered(&host, ffi::OP_MAC);
    assert!(macs.iter().any(|(name, _)| name == "HMAC"), "{macs:?}");
    // The random generator is GM/T 0105's SM3 one, not SP 800-90A's CTR_DRBG.
    let rand = offered(&host, ffi::OP_RAND);
    assert_eq!(rand.len(), 1, "{rand:?}");
    assert_eq!(
        properties_of(&rand, "SM3-DRBG"),
        Some("provider=regula,fips=yes")
    );
    for operation in [ffi::OP_KEYMGMT, ffi::OP_SIGNATURE] {
        let list = offered(&host, operation);
        assert!(
            list.iter().all(|(name, _)| !name.starts_with("ML-DSA")),
            "{list:?}"
        );
    }
}

#[test]
fn default_offers_legacy_algorithms_as_not_approved() {
    let host = Host::load("default").expect("loads");
    let digests = offered(&host, ffi::OP_DIGEST);
    assert_eq!(
        properties_of(&digests, "MD5"),
        Some("provider=regula,fips=no")
    );
    assert_eq!(
        properties_of(&digests, "SHA2-256"),
        Some("provider=regula,fips=yes")
    );
}

#[test]
fn an_unknown_policy_does_not_load() {
    assert!(Host::load("no-such-policy").is_none());
}
