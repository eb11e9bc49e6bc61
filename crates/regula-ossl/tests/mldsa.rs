//! The provider's ML-DSA (KEYMGMT and SIGNATURE "ML-DSA-44/65/87", FIPS 204) driven through the
//! system's libcrypto (or the one REGULA_TEST_LIBCRYPTO names) under the fips-140-3 policy.
//! Known answers come from an independent peer: tests/data/mldsa_pyca.txt holds a seed, its
//! public key, a message, a context string and a signature per parameter set, made by
//! pyca/cryptography 50.0.2 (tests/data/make_mldsa_vectors.py). The peer's signatures verify
//! here from its raw public key, and not once tampered with or under another context; its seed
//! imported here gives its public key. Keys generated here sign through `EVP_DigestSign` and
//! `EVP_PKEY_sign`, and the core's `Module::verify_with_context` verifies the signatures; a
//! digest name, deterministic signing and an expanded private key without its seed are
//! refused; the key sizes are FIPS 204's; under `gm` ML-DSA is not fetched.

use std::ffi::{CStr, c_char, c_int};
use std::sync::OnceLock;

use regula::{Algorithm, Module};
use regula_ossl::ffi::{PARAM_INTEGER, Param};

mod common;

use common::pkey::{Key, Keys, properties};
use common::{Ptr, octets, unhex};

// EVP_PKEY_* selections.
const PUBLIC_KEY: c_int = 0x02 | 0x84;
const KEYPAIR: c_int = 0x03 | 0x84;

struct Crypto {
    keys: Keys,
    gm_libctx: usize,
    ctx_new_from_name: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr,
    ctx_new_from_pkey: unsafe extern "C" fn(Ptr, Ptr, *const c_char) -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    sign_init_ex: unsafe extern "C" fn(Ptr, *const Param) -> c_int,
    sign: unsafe extern "C" fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int,
    verify_init_ex: unsafe extern "C" fn(Ptr, *const Param) -> c_int,
    verify: unsafe extern "C" fn(Ptr, *const u8, usize, *const u8, usize) -> c_int,
    md_ctx_new: unsafe extern "C" fn() -> Ptr,
    md_ctx_free: unsafe extern "C" fn(Ptr),
    digest_sign_init: unsafe extern "C" fn(
        Ptr,
        *mut Ptr,
        *const c_char,
        Ptr,
        *const c_char,
        Ptr,
        *const Param,
    ) -> c_int,
    digest_sign: unsafe extern "C" fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int,
    digest_verify_init: unsafe extern "C" fn(
        Ptr,
        *mut Ptr,
        *const c_char,
        Ptr,
        *const c_char,
        Ptr,
        *const Param,
    ) -> c_int,
    digest_verify: unsafe extern "C" fn(Ptr, *const u8, usize, *const u8, usize) -> c_int,
    get_size: unsafe extern "C" fn(Ptr) -> c_int,
    get_bits: unsafe extern "C" fn(Ptr) -> c_int,
    get_security_bits: unsafe extern "C" fn(Ptr) -> c_int,
}

fn crypto() -> &'static Crypto {
    static CRYPTO: OnceLock<Crypto> = OnceLock::new();
    CRYPTO.get_or_init(|| {
        let path = std::env::var("REGULA_TEST_LIBCRYPTO").unwrap_or("libcrypto.so.3".into());
        let library = common::libcrypto(&path);
        macro_rules! symbol {
            ($name:literal) => {
                // SAFETY: each symbol is declared with the signature of OpenSSL 3's headers.
                *unsafe { library.get(concat!($name, "\0").as_bytes()) }
                    .expect(concat!("libcrypto has ", $name))
            };
        }
        let dir = common::provider_dir("mldsa-test");
        let libctx = common::libctx_with_policy(library, &dir, "fips-140-3");
        let gm_libctx = common::libctx_with_policy(library, &dir, "gm");
        Crypto {
            keys: Keys::load(library, libctx),
            gm_libctx: gm_libctx as usize,
            ctx_new_from_name: symbol!("EVP_PKEY_CTX_new_from_name"),
            ctx_new_from_pkey: symbol!("EVP_PKEY_CTX_new_from_pkey"),
            ctx_free: symbol!("EVP_PKEY_CTX_free"),
            sign_init_ex: symbol!("EVP_PKEY_sign_init_ex"),
            sign: symbol!("EVP_PKEY_sign"),
            verify_init_ex: symbol!("EVP_PKEY_verify_init_ex"),
            verify: symbol!("EVP_PKEY_verify"),
            md_ctx_new: symbol!("EVP_MD_CTX_new"),
            md_ctx_free: symbol!("EVP_MD_CTX_free"),
            digest_sign_init: symbol!("EVP_DigestSignInit_ex"),
            digest_sign: symbol!("EVP_DigestSign"),
            digest_verify_init: symbol!("EVP_DigestVerifyInit_ex"),
            digest_verify: symbol!("EVP_DigestVerify"),
            get_size: symbol!("EVP_PKEY_get_size"),
            get_bits: symbol!("EVP_PKEY_get_bits"),
            get_security_bits: symbol!("EVP_PKEY_get_security_bits"),
        }
    })
}

fn take_error() -> String {
    crypto().keys.take_error()
}

/// One stanza of tests/data/mldsa_pyca.txt.
struct Vector {
    set: String,
    seed: Vec<u8>,
    public: Vec<u8>,
    message: Vec<u8>,
    context: Vec<u8>,
    signature: Vec<u8>,
}

fn vectors() -> Vec<Vector> {
    let text = include_str!("data/mldsa_pyca.txt");
    let mut out = Vec::new();
    for stanza in text.split("\n\n").filter(|s| s.contains("set = ")) {
        let field = |name: &str| {
            stanza
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{name} = ")))
                .unwrap_or_else(|| panic!("{name} in {stanza}"))
                .to_owned()
        };
        out.push(Vector {
            set: field("set"),
            seed: unhex(&field("seed")),
            public: unhex(&field("pub")),
            message: unhex(&field("msg")),
            context: unhex(&field("ctx")),
            signature: unhex(&field("sig")),
        });
    }
    assert_eq!(out.len(), 3, "a stanza per parameter set");
    out
}

fn c_name(set: &str) -> &'static CStr {
    match set {
        "ML-DSA-44" => c"ML-DSA-44",
        "ML-DSA-65" => c"ML-DSA-65",
        "ML-DSA-87" => c"ML-DSA-87",
        other => panic!("unknown set {other}"),
    }
}

fn algorithm(set: &str) -> Algorithm {
    match set {
        "ML-DSA-44" => Algorithm::MlDsa44,
        "ML-DSA-65" => Algorithm::MlDsa65,
        _ => Algorithm::MlDsa87,
    }
}

/// SubjectPublicKeyInfo { AlgorithmIdentifier { id-ml-dsa-xx }, BIT STRING key }, written
/// here from RFC 9881's layout (long-form lengths: every ML-DSA key is over 255 bytes).
fn spki(set: &str, public: &[u8]) -> Vec<u8> {
    let last = match set {
        "ML-DSA-44" => 0x11,
        "ML-DSA-65" => 0x12,
        _ => 0x13,
    };
    let algorithm = [
        0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, last,
    ];
    let long = |tag: u8, body: &[u8]| {
        let mut out = vec![tag, 0x82, (body.len() >> 8) as u8, body.len() as u8];
        out.extend_from_slice(body);
        out
    };
    let bits = long(0x03, &[&[0u8][..], public].concat());
    long(0x30, &[&algorithm[..], &bits].concat())
}

const REGULA: &str = "regula";

fn public_key(vector: &Vector) -> Key {
    crypto()
        .keys
        .fromdata(
            c_name(&vector.set),
            &properties(REGULA),
            PUBLIC_KEY,
            &[octets(c"pub", &vector.public)],
        )
        .unwrap_or_else(|e| panic!("{} public key: {e}", vector.set))
}

/// `EVP_DigestVerify` (no digest) under `context`: 1 when it verifies.
fn digest_verify(key: &Key, context: &[u8], message: &[u8], signature: &[u8]) -> c_int {
    let c = crypto();
    let properties = properties(REGULA);
    let params = [octets(c"context-string", context), Param::END];
    // SAFETY: libcrypto calls with live objects, NUL-terminated strings and valid buffers.
    unsafe {
        let md = (c.md_ctx_new)();
        let ok = (c.digest_verify_init)(
            md,
            std::ptr::null_mut(),
            std::ptr::null(),
            c.keys.libctx(),
            properties.as_ptr(),
            key.0,
            params.as_ptr(),
        );
        assert_eq!(ok, 1, "digest verify init: {}", take_error());
        let verdict = (c.digest_verify)(
            md,
            signature.as_ptr(),
            signature.len(),
            message.as_ptr(),
            message.len(),
        );
        (c.md_ctx_free)(md);
        take_error();
        verdict
    }
}

/// `EVP_DigestSign` (digest `digest`, none when `None`) under `context`, or the error.
fn digest_sign(
    key: &Key,
    digest: Option<&CStr>,
    params: &[Param],
    message: &[u8],
) -> Result<Vec<u8>, String> {
    let c = crypto();
    let properties = properties(REGULA);
    let mut array: Vec<Param> = params.iter().map(common::copy).collect();
    array.push(Param::END);
    // SAFETY: libcrypto calls with live objects, NUL-terminated strings and valid buffers.
    unsafe {
        let md = (c.md_ctx_new)();
        let ok = (c.digest_sign_init)(
            md,
            std::ptr::null_mut(),
            digest.map_or(std::ptr::null(), CStr::as_ptr),
            c.keys.libctx(),
            properties.as_ptr(),
            key.0,
            array.as_ptr(),
        );
        if ok != 1 {
            (c.md_ctx_free)(md);
            return Err(take_error());
        }
        let mut len = 0usize;
        let mut out = Vec::new();
        let mut ok = (c.digest_sign)(
            md,
            std::ptr::null_mut(),
            &mut len,
            message.as_ptr(),
            message.len(),
        );
        if ok == 1 {
            out = vec![0u8; len];
            ok = (c.digest_sign)(
                md,
                out.as_mut_ptr(),
                &mut len,
                message.as_ptr(),
                message.len(),
            );
            out.truncate(len);
        }
        (c.md_ctx_free)(md);
        if ok == 1 { Ok(out) } else { Err(take_error()) }
    }
}

/// `EVP_PKEY_sign` over the whole message (OpenSSL 3.0 passes it as "tbs") under `context`.
fn pkey_sign(key: &Key, context: &[u8], message: &[u8]) -> Vec<u8> {
    let c = crypto();
    let properties = properties(REGULA);
    let params = [octets(c"context-string", context), Param::END];
    // SAFETY: libcrypto calls with live objects and valid buffers.
    unsafe {
        let ctx = (c.ctx_new_from_pkey)(c.keys.libctx(), key.0, properties.as_ptr());
        assert!(!ctx.is_null(), "{}", take_error());
        assert_eq!(
            (c.sign_init_ex)(ctx, params.as_ptr()),
            1,
            "sign init: {}",
            take_error()
        );
        let mut len = 0usize;
        let sized = (c.sign)(
            ctx,
            std::ptr::null_mut(),
            &mut len,
            message.as_ptr(),
            message.len(),
        );
        assert_eq!(sized, 1, "sign size: {}", take_error());
        let mut out = vec![0u8; len];
        let ok = (c.sign)(
            ctx,
            out.as_mut_ptr(),
            &mut len,
            message.as_ptr(),
            message.len(),
        );
        assert_eq!(ok, 1, "sign: {}", take_error());
        (c.ctx_free)(ctx);
        out.truncate(len);
        out
    }
}

/// `EVP_PKEY_verify` over the whole message under `context`: 1 when it verifies.
fn pkey_verify(key: &Key, context: &[u8], message: &[u8], signature: &[u8]) -> c_int {
    let c = crypto();
    let properties = properties(REGULA);
    let params = [octets(c"context-string", context), Param::END];
    // SAFETY: libcrypto calls with live objects and valid buffers.
    unsafe {
        let ctx = (c.ctx_new_from_pkey)(c.keys.libctx(), key.0, properties.as_ptr());
        assert!(!ctx.is_null(), "{}", take_error());
        assert_eq!(
            (c.verify_init_ex)(ctx, params.as_ptr()),
            1,
            "verify init: {}",
            take_error()
        );
        let verdict = (c.verify)(
            ctx,
            signature.as_ptr(),
            signature.len(),
            message.as_ptr(),
            message.len(),
        );
        (c.ctx_free)(ctx);
        take_error();
        verdict
    }
}

#[test]
fn signatures_of_pyca_verify_and_tampered_ones_do_not() {
    for vector in vectors() {
        let key = public_key(&vector);
        assert_eq!(key.provider(), REGULA);
        let (message, context) = (&vector.message, &vector.context);
        assert_eq!(
            digest_verify(&key, context, message, &vector.signature),
            1,
            "{}",
            vector.set
        );
        assert_eq!(
            pkey_verify(&key, context, message, &vector.signature),
            1,
            "{} EVP_PKEY_verify",
            vector.set
        );
        let mut tampered = vector.signature.clone();
        tampered[10] ^= 0x01;
        assert_eq!(digest_verify(&key, context, message, &tampered), 0);
        assert_eq!(
            digest_verify(&key, b"another context", message, &vector.signature),
            0,
            "{}: a wrong context string is refused",
            vector.set
        );
        assert_eq!(
            digest_verify(&key, context, b"another message", &vector.signature),
            0
        );
    }
}

#[test]
fn a_seed_of_pyca_gives_its_public_key() {
    for vector in vectors() {
        let key = crypto()
            .keys
            .fromdata(
                c_name(&vector.set),
                &properties(REGULA),
                KEYPAIR,
                &[octets(c"seed", &vector.seed)],
            )
            .unwrap_or_else(|e| panic!("{} from seed: {e}", vector.set));
        assert_eq!(key.public_bytes(), vector.public, "{}", vector.set);
        // The same seed given to key generation (OpenSSL 3.5's "seed" generation parameter).
        let generated = crypto()
            .keys
            .generate(
                c_name(&vector.set),
                &properties(REGULA),
                &[octets(c"seed", &vector.seed)],
            )
            .unwrap_or_else(|e| panic!("{} generated from seed: {e}", vector.set));
        assert_eq!(generated.public_bytes(), vector.public, "{}", vector.set);
        // The seed-derived key signs, and the peer's public key verifies it.
        let signature = pkey_sign(&key, &vector.context, &vector.message);
        let peer = public_key(&vector);
        assert_eq!(
            pkey_verify(&peer, &vector.context, &vector.message, &signature),
            1
        );
    }
}

#[test]
fn generated_keys_sign_and_the_core_verifies() {
    let module = Module::load_named("fips-140-3").expect("fips-140-3 policy");
    for (set, public_len, signature_len) in [
        ("ML-DSA-44", 1312, 2420),
        ("ML-DSA-65", 1952, 3309),
        ("ML-DSA-87", 2592, 4627),
    ] {
        let key = crypto()
            .keys
            .generate(c_name(set), &properties(REGULA), &[])
            .unwrap_or_else(|e| panic!("{set} key: {e}"));
        let public = key.public_bytes();
        assert_eq!(public.len(), public_len, "{set}");
        let message = b"signed by the Regula provider";
        let context = b"Regula test";
        let signature = digest_sign(&key, None, &[octets(c"context-string", context)], message)
            .unwrap_or_else(|e| panic!("{set} sign: {e}"));
        assert_eq!(signature.len(), signature_len, "{set}");
        assert_eq!(digest_verify(&key, context, message, &signature), 1);
        let spki = spki(set, &public);
        assert!(
            module
                .verify_with_context(algorithm(set), &spki, message, context, &signature)
                .is_ok(),
            "{set}: the core verifies the provider's signature"
        );
        assert!(
            module
                .verify_with_context(algorithm(set), &spki, message, b"", &signature)
                .is_err(),
            "{set}: not under another context"
        );
        let signature = pkey_sign(&key, b"", message);
        assert!(
            module
                .verify_with_context(algorithm(set), &spki, message, b"", &signature)
                .is_ok(),
            "{set}: EVP_PKEY_sign signs the whole message"
        );
        // A public key moved into a fresh key verifies as well.
        let moved = key
            .moved_to(c_name(set), REGULA, PUBLIC_KEY)
            .unwrap_or_else(|e| panic!("{set} public key moved: {e}"));
        assert_eq!(pkey_verify(&moved, b"", message, &signature), 1);
    }
}

#[test]
fn a_digest_and_deterministic_signing_are_refused() {
    let key = crypto()
        .keys
        .generate(c"ML-DSA-65", &properties(REGULA), &[])
        .expect("ML-DSA-65 key");
    let error = digest_sign(&key, Some(c"SHA256"), &[], b"message").expect_err("a digest");
    assert!(error.contains("no digest"), "{error}");
    let one: c_int = 1;
    let deterministic = Param {
        key: c"deterministic".as_ptr(),
        data_type: PARAM_INTEGER,
        data: &one as *const c_int as *mut std::ffi::c_void,
        data_size: size_of::<c_int>(),
        return_size: usize::MAX,
    };
    let error = digest_sign(&key, None, &[deterministic], b"message").expect_err("deterministic");
    assert!(error.contains("deterministic"), "{error}");
    let long = [0u8; 256];
    let error = digest_sign(&key, None, &[octets(c"context-string", &long)], b"message")
        .expect_err("a context of 256 bytes");
    assert!(error.contains("255"), "{error}");
}

#[test]
fn ml_dsa_is_not_fetched_under_gm() {
    let c = crypto();
    let fetched = |libctx: Ptr, name: &CStr| {
        // SAFETY: a live library context and NUL-terminated strings.
        let ctx =
            unsafe { (c.ctx_new_from_name)(libctx, name.as_ptr(), properties(REGULA).as_ptr()) };
        if !ctx.is_null() {
            // SAFETY: the context just made.
            unsafe { (c.ctx_free)(ctx) };
        }
        take_error();
        !ctx.is_null()
    };
    for name in [c"ML-DSA-44", c"ML-DSA-65", c"ML-DSA-87"] {
        assert!(
            !fetched(c.gm_libctx as Ptr, name),
            "{name:?} is offered under gm"
        );
        assert!(fetched(c.keys.libctx(), name), "{name:?} under fips-140-3");
    }
}

/// FIPS 204's sizes as libcrypto reads them, and an expanded private key of another set's size
/// refused with the reason. (Expanded keys of the right size are imported and exported against
/// NIST's keyGen answers by OpenSSL's evppkey_ml_dsa_keygen.txt, scripts/test-ossl-provider.)
#[test]
fn key_sizes_and_an_expanded_key_of_the_wrong_size() {
    let c = crypto();
    for (set, public_len, signature_len, security_bits) in [
        ("ML-DSA-44", 1312, 2420, 128),
        ("ML-DSA-65", 1952, 3309, 192),
        ("ML-DSA-87", 2592, 4627, 256),
    ] {
        let key = c
            .keys
            .generate(c_name(set), &properties(REGULA), &[])
            .unwrap_or_else(|e| panic!("{set} key: {e}"));
        // SAFETY: a live key.
        let (size, bits, security) = unsafe {
            (
                (c.get_size)(key.0),
                (c.get_bits)(key.0),
                (c.get_security_bits)(key.0),
            )
        };
        assert_eq!(size, signature_len, "{set} max-size");
        assert_eq!(bits, public_len * 8, "{set} bits");
        assert_eq!(security, security_bits, "{set} security-bits");
        // ML-DSA-87's size: wrong for the other two sets; for ML-DSA-87 itself the zeros are
        // no key (its public key does not match the tr inside).
        let expanded = vec![0u8; 4896];
        let error = c
            .keys
            .fromdata(
                c_name(set),
                &properties(REGULA),
                KEYPAIR,
                &[octets(c"priv", &expanded)],
            )
            .err()
            .unwrap_or_else(|| panic!("{set}: an expanded key of the wrong size is refused"));
        if set != "ML-DSA-87" {
            assert!(error.contains("not 4896"), "{error}");
        }
    }
}
