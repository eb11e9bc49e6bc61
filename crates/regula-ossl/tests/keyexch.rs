//! The provider's key exchange (KEYMGMT "EC" and "X25519", KEYEXCH "ECDH" and "X25519") driven
//! through the system's libcrypto (`EVP_PKEY_*`), loaded with `libloading`: keys generated and
//! imported with `provider=regula`, shared secrets derived both ways, against OpenSSL's default
//! provider in the same process, and against published known answers (RFC 7748 §6.1 for
//! X25519; NIST CAVS `KAS_ECC_CDH_PrimitiveTest.txt`, P-256 COUNT = 0, for ECDH). Bad input
//! must fail with the provider's reason on the error queue, never crash.

use std::ffi::{CStr, c_char, c_int};
use std::sync::OnceLock;

use regula_ossl::ffi::Param;

mod common;

use common::pkey::{Key, Keys, properties};
use common::{Ptr, bignum, copy, native_order, octets, unhex, utf8};

// OSSL_KEYMGMT_SELECT_* and EVP_PKEY_* selections.
const PUBLIC_KEY: c_int = 0x02 | 0x84;
const KEYPAIR: c_int = 0x03 | 0x84;
const PARAMETERS: c_int = 0x84;

struct Crypto {
    keys: Keys,
    ctx_new_from_pkey: unsafe extern "C" fn(Ptr, Ptr, *const c_char) -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    derive_init: unsafe extern "C" fn(Ptr) -> c_int,
    set_peer: unsafe extern "C" fn(Ptr, Ptr) -> c_int,
    derive: unsafe extern "C" fn(Ptr, *mut u8, *mut usize) -> c_int,
    set_ctx_params: unsafe extern "C" fn(Ptr, *const Param) -> c_int,
}

fn crypto() -> &'static Crypto {
    static CRYPTO: OnceLock<Crypto> = OnceLock::new();
    CRYPTO.get_or_init(|| {
        // The system's libcrypto, or another (OpenSSL 3.5's) named by REGULA_TEST_LIBCRYPTO.
        let path = std::env::var("REGULA_TEST_LIBCRYPTO").unwrap_or("libcrypto.so.3".into());
        let library = common::libcrypto(&path);
        macro_rules! symbol {
            ($name:literal) => {
                // SAFETY: each symbol is declared with the signature of OpenSSL 3's headers.
                *unsafe { library.get(concat!($name, "\0").as_bytes()) }
                    .expect(concat!("libcrypto has ", $name))
            };
        }
        let dir = common::provider_dir("keyexch-test");
        // OpenSSL's default provider is the peer for the cross-provider derivations.
        let libctx = common::libctx_with(library, &dir, &[c"regula", c"default"]);
        Crypto {
            keys: Keys::load(library, libctx),
            ctx_new_from_pkey: symbol!("EVP_PKEY_CTX_new_from_pkey"),
            ctx_free: symbol!("EVP_PKEY_CTX_free"),
            derive_init: symbol!("EVP_PKEY_derive_init"),
            set_peer: symbol!("EVP_PKEY_derive_set_peer"),
            derive: symbol!("EVP_PKEY_derive"),
            set_ctx_params: symbol!("EVP_PKEY_CTX_set_params"),
        }
    })
}

/// The key harness, over this test's library context.
fn keys() -> &'static Keys {
    &crypto().keys
}

/// The first error on this thread's queue as "reason text | provider's message", then clears it.
fn take_error() -> String {
    let error = keys().take_error();
    assert!(!error.is_empty(), "a failure puts an error on the queue");
    error
}

/// A key pair of `algorithm` ("EC" with `group`, or "X25519") from the provider `properties`
/// selects.
fn generate(algorithm: &CStr, group: &'static CStr, properties: &CStr) -> Key {
    keys()
        .generate(algorithm, properties, &[utf8(c"group", group)])
        .unwrap_or_else(|e| panic!("generate {group:?}: {e}"))
}

impl Key {
    /// The shared secret with `peer` (its length asked first, as libssl does), or the error.
    /// The exchange is fetched from the key's own provider: without a property query OpenSSL
    /// may fetch another provider's and export the key to it.
    fn derive(&self, peer: &Key, params: &[Param]) -> Result<Vec<u8>, String> {
        let c = crypto();
        let mut array: Vec<Param> = params.iter().map(copy).collect();
        array.push(Param::END);
        let properties = properties(&self.provider());
        // SAFETY: libcrypto calls with live keys and buffers of the sizes given.
        unsafe {
            let ctx = (c.ctx_new_from_pkey)(keys().libctx(), self.0, properties.as_ptr());
            assert!(!ctx.is_null(), "derive context: {}", take_error());
            let result = (|| {
                if (c.derive_init)(ctx) != 1 {
                    return Err(take_error());
                }
                if !params.is_empty() && (c.set_ctx_params)(ctx, array.as_ptr()) != 1 {
                    return Err(take_error());
                }
                if (c.set_peer)(ctx, peer.0) != 1 {
                    return Err(take_error());
                }
                let mut len = 0usize;
                if (c.derive)(ctx, std::ptr::null_mut(), &mut len) != 1 {
                    return Err(take_error());
                }
                let mut secret = vec![0u8; len];
                if (c.derive)(ctx, secret.as_mut_ptr(), &mut len) != 1 {
                    return Err(take_error());
                }
                secret.truncate(len);
                Ok(secret)
            })();
            (c.ctx_free)(ctx);
            result
        }
    }

    /// A params-only key of `group` holding the peer's share, as libssl makes it.
    fn peer_share(algorithm: &CStr, group: &'static CStr, share: &[u8]) -> Result<Key, String> {
        let params = if algorithm == c"EC" {
            vec![utf8(c"group", group)]
        } else {
            vec![]
        };
        let key = keys().fromdata(algorithm, c"provider=regula", PARAMETERS, &params)?;
        key.set_encoded_public_key(share)?;
        Ok(key)
    }
}

/// (OpenSSL key type, group, shared secret length). curveSM2 (RFC 8998 §3.1) is an "EC" group
/// "SM2", as libssl makes its TLS 1.3 shares.
const GROUPS: [(&CStr, &CStr, usize); 5] = [
    (c"EC", c"P-256", 32),
    (c"EC", c"P-384", 48),
    (c"EC", c"P-521", 66),
    (c"X25519", c"X25519", 32),
    (c"EC", c"SM2", 32),
];

#[test]
fn regula_keys_agree_both_ways() {
    for (algorithm, group, len) in GROUPS {
        let alice = generate(algorithm, group, c"provider=regula");
        let bob = generate(algorithm, group, c"provider=regula");
        assert_eq!(alice.provider(), "regula");
        let ab = alice.derive(&bob, &[]).expect("alice with bob");
        let ba = bob.derive(&alice, &[]).expect("bob with alice");
        assert_eq!(ab.len(), len, "{group:?}");
        assert_eq!(ab, ba, "{group:?}");
        // Through encoded public keys, as libssl hands over key shares.
        let bob_share =
            Key::peer_share(algorithm, group, &bob.encoded_public_key()).expect("bob's share");
        assert_eq!(alice.derive(&bob_share, &[]).expect("with the share"), ab);
    }
}

#[test]
fn regula_and_the_default_provider_agree() {
    // OpenSSL's default EC key manager imports no key on the SM2 curve (ec_kmgmt.c's
    // common_check_sm2) and its SM2 keys name no key exchange: the provider's curveSM2 is
    // checked against Tongsuo's own (its default provider) in scripts/test-ossl-tongsuo.
    for (algorithm, group, _) in GROUPS.into_iter().filter(|(_, group, _)| *group != c"SM2") {
        let ours = generate(algorithm, group, c"provider=regula");
        let theirs = generate(algorithm, group, c"provider=default");
        assert_eq!(theirs.provider(), "default");
        // Each side gets the other's public key as its encoded share.
        let their_share = Key::peer_share(algorithm, group, &theirs.encoded_public_key())
            .expect("the default provider's share in Regula");
        // OpenSSL's X25519 key manager makes no key from parameters alone: the default
        // provider's copy of our key is imported from its encoded public key as `pub`.
        let our_public = ours.encoded_public_key();
        let mut params = vec![octets(c"pub", &our_public)];
        if algorithm == c"EC" {
            params.push(utf8(c"group", group));
        }
        let our_share_for_them = keys()
            .fromdata(algorithm, c"provider=default", PUBLIC_KEY, &params)
            .expect("Regula's public key in the default provider");
        assert_eq!(our_share_for_them.provider(), "default");
        let regula_side = ours.derive(&their_share, &[]).expect("Regula derives");
        let default_side = theirs
            .derive(&our_share_for_them, &[])
            .expect("default derives");
        assert_eq!(regula_side, default_side, "{group:?}");
    }
}

/// RFC 7748 §6.1: Alice's and Bob's private keys, their public keys, and K.
#[test]
fn x25519_rfc7748_known_answer() {
    let alice_private = unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    let alice_public = unhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    let bob_private = unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    let bob_public = unhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    let shared = unhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    let alice = keys()
        .fromdata(
            c"X25519",
            c"provider=regula",
            KEYPAIR,
            &[octets(c"priv", &alice_private)],
        )
        .expect("Alice's key");
    let bob = keys()
        .fromdata(
            c"X25519",
            c"provider=regula",
            KEYPAIR,
            &[octets(c"priv", &bob_private)],
        )
        .expect("Bob's key");
    assert_eq!(alice.provider(), "regula");
    assert_eq!(alice.encoded_public_key(), alice_public);
    assert_eq!(bob.encoded_public_key(), bob_public);
    let bob_share = Key::peer_share(c"X25519", c"X25519", &bob_public).expect("Bob's share");
    assert_eq!(
        alice.derive(&bob_share, &[]).expect("Alice derives"),
        shared
    );
    let alice_share = Key::peer_share(c"X25519", c"X25519", &alice_public).expect("Alice's share");
    assert_eq!(bob.derive(&alice_share, &[]).expect("Bob derives"), shared);
}

/// NIST CAVS 14.1 ECC CDH Primitive (SP 800-56A §5.7.1.2), KAS_ECC_CDH_PrimitiveTest.txt,
/// [P-256] COUNT = 0: QCAVS, dIUT, QIUT and ZIUT.
fn cavs_p256() -> (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>) {
    let qcavs = unhex(
        "04 700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287
            db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac",
    );
    let d_iut = unhex("7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534");
    let q_iut = unhex(
        "04 ead218590119e8876b29146ff89ca61770c4edbbf97d38ce385ed281d8a6b230
            28af61281fd35e2fa7002523acc85a429cb06ee6648325389f59edfce1405141",
    );
    let z_iut = unhex("46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b");
    (qcavs, d_iut, q_iut, z_iut)
}

#[test]
fn ecdh_p256_cavs_known_answer() {
    let (qcavs, d_iut, q_iut, z_iut) = cavs_p256();
    let native = native_order(&d_iut);
    let iut = keys()
        .fromdata(
            c"EC",
            c"provider=regula",
            KEYPAIR,
            &[
                utf8(c"group", c"prime256v1"),
                bignum(c"priv", &native),
                octets(c"pub", &q_iut),
            ],
        )
        .expect("the IUT's key");
    assert_eq!(iut.provider(), "regula");
    assert_eq!(iut.encoded_public_key(), q_iut);
    let cavs = Key::peer_share(c"EC", c"P-256", &qcavs).expect("the CAVS share");
    assert_eq!(iut.derive(&cavs, &[]).expect("derive"), z_iut);
    // A private key without its public key: the public key is computed.
    let private_only = keys()
        .fromdata(
            c"EC",
            c"provider=regula",
            KEYPAIR,
            &[utf8(c"group", c"secp256r1"), bignum(c"priv", &native)],
        )
        .expect("the private key alone");
    assert_eq!(private_only.encoded_public_key(), q_iut);
    // A public key that is not the private key's is refused.
    let refused = keys()
        .fromdata(
            c"EC",
            c"provider=regula",
            KEYPAIR,
            &[
                utf8(c"group", c"P-256"),
                bignum(c"priv", &native),
                octets(c"pub", &qcavs),
            ],
        )
        .err()
        .expect("a mismatched key pair is refused");
    assert!(refused.contains("not the private key's"), "{refused}");
}

#[test]
fn invalid_peer_points_are_refused_with_regula_reason() {
    let (qcavs, d_iut, _, _) = cavs_p256();
    let native = native_order(&d_iut);
    let iut = keys()
        .fromdata(
            c"EC",
            c"provider=regula",
            KEYPAIR,
            &[utf8(c"group", c"P-256"), bignum(c"priv", &native)],
        )
        .expect("the IUT's key");
    // The CAVS point with its last bit flipped: off the curve.
    let mut off_curve = qcavs.clone();
    *off_curve.last_mut().unwrap() ^= 1;
    let peer = Key::peer_share(c"EC", c"P-256", &off_curve).expect("the share is well formed");
    let refused = iut.derive(&peer, &[]).expect_err("an off-curve point");
    assert!(
        refused.contains("invalid input") && refused.contains("not a valid point"),
        "{refused}"
    );
    // Wrong lengths and forms of encoded-pub-key.
    for (algorithm, group, share) in [
        (c"EC", c"P-256", qcavs[..64].to_vec()),
        (c"EC", c"P-256", [&qcavs[..], &[0]].concat()),
        (c"EC", c"P-384", qcavs.clone()),
        (c"X25519", c"X25519", vec![9; 31]),
        (c"X25519", c"X25519", vec![9; 33]),
    ] {
        let refused = Key::peer_share(algorithm, group, &share)
            .err()
            .unwrap_or_else(|| panic!("{group:?}: a {}-byte share accepted", share.len()));
        assert!(
            refused.contains("invalid input") && refused.contains("bytes"),
            "{refused}"
        );
    }
    // A compressed point (TLS uses only uncompressed ones): refused with the reason.
    let mut compressed = qcavs[..33].to_vec();
    compressed[0] = 0x02;
    let refused = Key::peer_share(c"EC", c"P-256", &compressed)
        .err()
        .expect("a compressed point");
    assert!(refused.contains("uncompressed point"), "{refused}");
}

#[test]
fn unknown_groups_and_kdf_parameters_are_refused() {
    let refused = keys()
        .generate(c"EC", c"provider=regula", &[utf8(c"group", c"secp256k1")])
        .err()
        .expect("a key on secp256k1");
    assert!(refused.contains("secp256k1"), "{refused}");
    let alice = generate(c"EC", c"P-256", c"provider=regula");
    let bob = generate(c"EC", c"P-256", c"provider=regula");
    let x963 = c"X963KDF";
    let refused = alice
        .derive(&bob, &[utf8(c"kdf-type", x963)])
        .expect_err("the X9.63 KDF");
    assert!(refused.contains("no X9.63 KDF"), "{refused}");
}

/// The public parameters applications read from a key (`EVP_PKEY_get_octet_string_param` of
/// `pub` and `encoded-pub-key`) are those OpenSSL's default provider gives for the same key
/// imported into it, and the published public keys: the CAVS P-256 IUT key, RFC 7748 §6.1's
/// Alice and RFC 8032 §7.1 TEST 1.
#[test]
fn public_parameters_read_as_the_default_providers() {
    let (_, d_iut, q_iut, _) = cavs_p256();
    let native = native_order(&d_iut);
    let x25519_private = unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    let x25519_public = unhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    let ed25519_private = unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    let ed25519_public = unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    let cases: [(&CStr, Vec<Param>, &[u8]); 3] = [
        (
            c"EC",
            // OpenSSL's EC key manager computes no public key on import: both are given.
            vec![
                utf8(c"group", c"P-256"),
                bignum(c"priv", &native),
                octets(c"pub", &q_iut),
            ],
            &q_iut,
        ),
        (
            c"X25519",
            vec![octets(c"priv", &x25519_private)],
            &x25519_public,
        ),
        (
            c"ED25519",
            vec![octets(c"priv", &ed25519_private)],
            &ed25519_public,
        ),
    ];
    for (algorithm, params, public) in cases {
        let ours = keys()
            .fromdata(algorithm, c"provider=regula", KEYPAIR, &params)
            .unwrap_or_else(|e| panic!("{algorithm:?} in Regula: {e}"));
        let theirs = keys()
            .fromdata(algorithm, c"provider=default", KEYPAIR, &params)
            .unwrap_or_else(|e| panic!("{algorithm:?} in the default provider: {e}"));
        assert_eq!(ours.provider(), "regula");
        assert_eq!(theirs.provider(), "default");
        // OpenSSL's Ed25519 key manager answers no `encoded-pub-key` (TLS never sends an
        // Ed25519 key as a share); Regula's answers it as `pub`.
        let names: &[&CStr] = if algorithm == c"ED25519" {
            &[c"pub"]
        } else {
            &[c"pub", c"encoded-pub-key"]
        };
        for &name in names {
            let expected = theirs
                .octets_param(name)
                .unwrap_or_else(|e| panic!("{algorithm:?}: the default provider answers {e}"));
            assert_eq!(
                expected, public,
                "{algorithm:?} {name:?} (default provider)"
            );
            assert_eq!(
                ours.octets_param(name),
                Ok(expected),
                "{algorithm:?} {name:?}"
            );
        }
    }
}

/// (first OpenSSL name, properties) of each algorithm the provider offers for `operation`
/// under `policy`, read through its own query function (no libcrypto).
fn offered(policy: &str, operation: c_int) -> Vec<(String, String)> {
    let host = regula_ossl::host::Host::load(policy).expect("the policy loads");
    host.offered(operation)
        .into_iter()
        .map(|offer| {
            let first = offer.names.split(':').next().unwrap_or("").to_owned();
            (first, offer.properties)
        })
        .collect()
}

/// The key managers and exchanges each policy offers: X25519 key agreement is not approved in
/// FIPS 140-3 (SP 800-56A Rev. 3 has only the NIST curves), so the strict policy offers none;
/// under gm only SM2 is served: curveSM2 ECDH on "EC" keys and SM2 signatures.
#[test]
fn each_policy_offers_its_groups() {
    let regula = |fips: &str| format!("provider=regula,fips={fips}");
    for (policy, keymgmt, keyexch) in [
        (
            "default",
            vec![
                ("EC", regula("yes")),
                ("X25519", regula("yes")),
                ("ED25519", regula("yes")),
                ("RSA", regula("yes")),
                ("RSA-PSS", regula("yes")),
                ("ML-KEM-768", regula("yes")),
                ("ML-KEM-1024", regula("yes")),
                ("X25519MLKEM768", regula("yes")),
                ("SecP256r1MLKEM768", regula("yes")),
                ("SecP384r1MLKEM1024", regula("yes")),
                ("SM2", regula("yes")),
                ("ML-DSA-44", regula("yes")),
                ("ML-DSA-65", regula("yes")),
                ("ML-DSA-87", regula("yes")),
                // HMAC as a signature's key (libssl's TLS 1.3 PSK binders).
                ("HMAC", regula("yes")),
            ],
            vec![("ECDH", regula("yes")), ("X25519", regula("yes"))],
        ),
        (
            "fips-140-3",
            // ED25519's key manager is the signature's (tests/signature.rs).
            vec![
                ("EC", regula("yes")),
                ("ED25519", regula("yes")),
                ("RSA", regula("yes")),
                ("RSA-PSS", regula("yes")),
                // Not X25519MLKEM768: the provider computes X25519 through the core.
                ("ML-KEM-768", regula("yes")),
                ("ML-KEM-1024", regula("yes")),
                ("SecP256r1MLKEM768", regula("yes")),
                ("SecP384r1MLKEM1024", regula("yes")),
                ("ML-DSA-44", regula("yes")),
                ("ML-DSA-65", regula("yes")),
                ("ML-DSA-87", regula("yes")),
                ("HMAC", regula("yes")),
            ],
            vec![("ECDH", regula("yes"))],
        ),
        // curveSM2 shares are "EC" keys on group "SM2" (ECDH); SM2 keys sign.
        (
            "gm",
            vec![
                ("EC", regula("yes")),
                ("SM2", regula("yes")),
                ("HMAC", regula("yes")),
            ],
            vec![("ECDH", regula("yes"))],
        ),
    ] {
        let expected = |list: Vec<(&str, String)>| {
            list.into_iter()
                .map(|(name, properties)| (name.to_owned(), properties))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            offered(policy, regula_ossl::ffi::OP_KEYMGMT),
            expected(keymgmt),
            "{policy}"
        );
        assert_eq!(
            offered(policy, regula_ossl::ffi::OP_KEYEXCH),
            expected(keyexch),
            "{policy}"
        );
    }
}
