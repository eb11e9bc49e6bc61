//! The provider's RSA (KEYMGMT "RSA", SIGNATURE "RSA") driven through the system's libcrypto
//! (or the one REGULA_TEST_LIBCRYPTO names) under the fips-140-3 policy, against OpenSSL's
//! default provider in the same process as the independent peer: keys move between the two by
//! `EVP_PKEY_todata`/`EVP_PKEY_fromdata` (n, e, d and the CRT values, as the decoders of
//! `base` hand a PEM key to Regula); PKCS#1 v1.5 signatures (deterministic) are byte-equal to
//! the default provider's, RSA-PSS signatures (randomized) verify both ways; a mutated
//! signature fails; what Regula does not offer (1024-bit keys under fips-140-3, PSS salts
//! other than the digest's length, raw RSA) is refused with Regula's reason.

use std::ffi::{CStr, CString, c_char, c_int, c_ulong};
use std::sync::OnceLock;

use regula_ossl::ffi::Param;

mod common;

use common::Ptr;

// EVP_PKEY_* selections.
const PUBLIC_KEY: c_int = 0x02 | 0x84;
const KEYPAIR: c_int = 0x03 | 0x84;
// RSA_PKCS1_PADDING, RSA_NO_PADDING, RSA_PKCS1_PSS_PADDING; RSA_PSS_SALTLEN_DIGEST, _MAX.
const PKCS1: c_int = 1;
const NO_PADDING: c_int = 3;
const PSS: c_int = 6;
const SALT_DIGEST: c_int = -1;
const SALT_MAX: c_int = -3;

struct Crypto {
    libctx: usize,
    ctx_new_from_name: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    keygen_init: unsafe extern "C" fn(Ptr) -> c_int,
    set_keygen_bits: unsafe extern "C" fn(Ptr, c_int) -> c_int,
    generate: unsafe extern "C" fn(Ptr, *mut Ptr) -> c_int,
    todata: unsafe extern "C" fn(Ptr, c_int, *mut *mut Param) -> c_int,
    params_free: unsafe extern "C" fn(*mut Param),
    fromdata_init: unsafe extern "C" fn(Ptr) -> c_int,
    fromdata: unsafe extern "C" fn(Ptr, *mut Ptr, c_int, *const Param) -> c_int,
    pkey_free: unsafe extern "C" fn(Ptr),
    get_bits: unsafe extern "C" fn(Ptr) -> c_int,
    get_size: unsafe extern "C" fn(Ptr) -> c_int,
    get_security_bits: unsafe extern "C" fn(Ptr) -> c_int,
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
    set_padding: unsafe extern "C" fn(Ptr, c_int) -> c_int,
    set_saltlen: unsafe extern "C" fn(Ptr, c_int) -> c_int,
    err_get: unsafe extern "C" fn() -> c_ulong,
    err_peek_data: unsafe extern "C" fn(*mut *const c_char, *mut c_int) -> c_ulong,
    err_string: unsafe extern "C" fn(c_ulong, *mut c_char, usize),
    err_clear: unsafe extern "C" fn(),
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
        let dir = common::provider_dir("rsa-test");
        let libctx = common::libctx_with_policy(library, &dir, "fips-140-3");
        Crypto {
            libctx: libctx as usize,
            ctx_new_from_name: symbol!("EVP_PKEY_CTX_new_from_name"),
            ctx_free: symbol!("EVP_PKEY_CTX_free"),
            keygen_init: symbol!("EVP_PKEY_keygen_init"),
            set_keygen_bits: symbol!("EVP_PKEY_CTX_set_rsa_keygen_bits"),
            generate: symbol!("EVP_PKEY_generate"),
            todata: symbol!("EVP_PKEY_todata"),
            params_free: symbol!("OSSL_PARAM_free"),
            fromdata_init: symbol!("EVP_PKEY_fromdata_init"),
            fromdata: symbol!("EVP_PKEY_fromdata"),
            pkey_free: symbol!("EVP_PKEY_free"),
            get_bits: symbol!("EVP_PKEY_get_bits"),
            get_size: symbol!("EVP_PKEY_get_size"),
            get_security_bits: symbol!("EVP_PKEY_get_security_bits"),
            md_ctx_new: symbol!("EVP_MD_CTX_new"),
            md_ctx_free: symbol!("EVP_MD_CTX_free"),
            digest_sign_init: symbol!("EVP_DigestSignInit_ex"),
            digest_sign: symbol!("EVP_DigestSign"),
            digest_verify_init: symbol!("EVP_DigestVerifyInit_ex"),
            digest_verify: symbol!("EVP_DigestVerify"),
            set_padding: symbol!("EVP_PKEY_CTX_set_rsa_padding"),
            set_saltlen: symbol!("EVP_PKEY_CTX_set_rsa_pss_saltlen"),
            err_get: symbol!("ERR_get_error"),
            err_peek_data: symbol!("ERR_peek_error_data"),
            err_string: symbol!("ERR_error_string_n"),
            err_clear: symbol!("ERR_clear_error"),
        }
    })
}

fn libctx() -> Ptr {
    crypto().libctx as Ptr
}

/// The first error on this thread's queue as "reason text | provider's message", then clears
/// it.
fn take_error() -> String {
    let c = crypto();
    let mut data: *const c_char = std::ptr::null();
    let mut flags: c_int = 0;
    let mut text = [0 as c_char; 256];
    // SAFETY: libcrypto's error functions with valid out-pointers and buffer sizes.
    unsafe {
        let code = (c.err_peek_data)(&mut data, &mut flags);
        if code == 0 {
            return String::new();
        }
        let message = if data.is_null() {
            String::new()
        } else {
            CStr::from_ptr(data).to_string_lossy().into_owned()
        };
        (c.err_string)((c.err_get)(), text.as_mut_ptr(), text.len());
        (c.err_clear)();
        format!(
            "{} | {message}",
            CStr::from_ptr(text.as_ptr()).to_string_lossy()
        )
    }
}

fn properties(provider: &str) -> CString {
    CString::new(format!("provider={provider}")).unwrap()
}

/// An `EVP_PKEY`, freed on drop, and the provider it lives in.
struct Key(Ptr, &'static str);

impl Drop for Key {
    fn drop(&mut self) {
        // SAFETY: a key libcrypto made, freed once.
        unsafe { (crypto().pkey_free)(self.0) }
    }
}

impl Key {
    /// An RSA key pair of `bits` generated by `provider`, or the error.
    fn generate(bits: c_int, provider: &'static str) -> Result<Key, String> {
        let c = crypto();
        let properties = properties(provider);
        // SAFETY: libcrypto calls with live objects and NUL-terminated strings.
        unsafe {
            let ctx = (c.ctx_new_from_name)(libctx(), c"RSA".as_ptr(), properties.as_ptr());
            assert!(!ctx.is_null(), "RSA key context: {}", take_error());
            assert_eq!((c.keygen_init)(ctx), 1, "keygen_init: {}", take_error());
            let mut key = std::ptr::null_mut();
            let ok = (c.set_keygen_bits)(ctx, bits) == 1 && (c.generate)(ctx, &mut key) == 1;
            (c.ctx_free)(ctx);
            if ok {
                Ok(Key(key, provider))
            } else {
                Err(take_error())
            }
        }
    }

    /// This key (or its public half) moved into `provider` through its parameters.
    fn moved_to(&self, provider: &'static str, selection: c_int) -> Result<Key, String> {
        let c = crypto();
        let properties = properties(provider);
        // SAFETY: libcrypto calls with live objects; the exported array is freed once.
        unsafe {
            let mut params = std::ptr::null_mut();
            assert_eq!(
                (c.todata)(self.0, selection, &mut params),
                1,
                "todata: {}",
                take_error()
            );
            let ctx = (c.ctx_new_from_name)(libctx(), c"RSA".as_ptr(), properties.as_ptr());
            assert!(!ctx.is_null(), "RSA key context: {}", take_error());
            assert_eq!((c.fromdata_init)(ctx), 1, "fromdata_init: {}", take_error());
            let mut key = std::ptr::null_mut();
            let ok = (c.fromdata)(ctx, &mut key, selection, params);
            (c.ctx_free)(ctx);
            (c.params_free)(params);
            if ok == 1 {
                Ok(Key(key, provider))
            } else {
                Err(take_error())
            }
        }
    }

    /// A digest-sign or digest-verify context from the key's provider, with `padding` and,
    /// for PSS, `saltlen` set as libssl sets them.
    fn init(&self, sign: bool, scheme: Scheme) -> Result<MdCtx, String> {
        let c = crypto();
        let properties = properties(self.1);
        // SAFETY: libcrypto calls with live objects and NUL-terminated strings.
        unsafe {
            let md = MdCtx((c.md_ctx_new)());
            let mut pctx = std::ptr::null_mut();
            let init = if sign {
                c.digest_sign_init
            } else {
                c.digest_verify_init
            };
            let ok = init(
                md.0,
                &mut pctx,
                scheme.digest.as_ptr(),
                libctx(),
                properties.as_ptr(),
                self.0,
                std::ptr::null(),
            );
            if ok != 1
                || (c.set_padding)(pctx, scheme.padding) != 1
                || (scheme.padding == PSS && (c.set_saltlen)(pctx, scheme.saltlen) != 1)
            {
                return Err(take_error());
            }
            Ok(md)
        }
    }

    fn sign(&self, scheme: Scheme, message: &[u8]) -> Result<Vec<u8>, String> {
        let c = crypto();
        let md = self.init(true, scheme)?;
        // SAFETY: a live context and buffers of the sizes given.
        unsafe {
            let mut len = 0usize;
            let null = std::ptr::null_mut();
            if (c.digest_sign)(md.0, null, &mut len, message.as_ptr(), message.len()) != 1 {
                return Err(take_error());
            }
            let mut signature = vec![0u8; len];
            let out = signature.as_mut_ptr();
            if (c.digest_sign)(md.0, out, &mut len, message.as_ptr(), message.len()) != 1 {
                return Err(take_error());
            }
            signature.truncate(len);
            Ok(signature)
        }
    }

    fn verify(&self, scheme: Scheme, message: &[u8], signature: &[u8]) -> Result<(), String> {
        let c = crypto();
        let md = self.init(false, scheme)?;
        // SAFETY: a live context and the buffers given.
        let ok = unsafe {
            (c.digest_verify)(
                md.0,
                signature.as_ptr(),
                signature.len(),
                message.as_ptr(),
                message.len(),
            )
        };
        if ok == 1 {
            Ok(())
        } else {
            Err(format!("verify gave {ok}: {}", take_error()))
        }
    }
}

/// An `EVP_MD_CTX`, freed on drop (with the `EVP_PKEY_CTX` it owns).
struct MdCtx(Ptr);

impl Drop for MdCtx {
    fn drop(&mut self) {
        // SAFETY: a context libcrypto made, freed once.
        unsafe { (crypto().md_ctx_free)(self.0) }
    }
}

#[derive(Clone, Copy, Debug)]
struct Scheme {
    digest: &'static CStr,
    padding: c_int,
    saltlen: c_int,
}

const fn scheme(digest: &'static CStr, padding: c_int) -> Scheme {
    Scheme {
        digest,
        padding,
        saltlen: SALT_DIGEST,
    }
}

const DIGESTS: [&CStr; 3] = [c"SHA256", c"SHA2-384", c"SHA512"];

const MESSAGE: &[u8] = b"RSA signatures through the Regula provider, checked by OpenSSL's own";

/// One RSA-2048 key pair of the default provider for the tests that share it.
fn default_key() -> &'static Key {
    struct Shared(Key);
    // SAFETY: an EVP_PKEY is safe to use from several threads once made (OpenSSL's rule).
    unsafe impl Sync for Shared {}
    // SAFETY: as above.
    unsafe impl Send for Shared {}
    static KEY: OnceLock<Shared> = OnceLock::new();
    &KEY.get_or_init(|| Shared(Key::generate(2048, "default").expect("default RSA key")))
        .0
}

#[test]
fn pkcs1_signatures_equal_the_default_providers() {
    let default = default_key();
    let regula = default
        .moved_to("regula", KEYPAIR)
        .expect("regula imports the key");
    for digest in DIGESTS {
        let scheme = scheme(digest, PKCS1);
        let ours = regula.sign(scheme, MESSAGE).expect("regula signs");
        let theirs = default.sign(scheme, MESSAGE).expect("default signs");
        assert_eq!(ours.len(), 256, "{digest:?}");
        // RSASSA-PKCS1-v1_5 is deterministic (RFC 8017 §8.2): the same key, digest and
        // message give the same bytes.
        assert_eq!(ours, theirs, "{digest:?}: PKCS#1 v1.5 signatures differ");
        regula
            .verify(scheme, MESSAGE, &theirs)
            .expect("regula verifies");
        let mut mutated = theirs.clone();
        mutated[100] ^= 0x01;
        assert!(
            regula.verify(scheme, MESSAGE, &mutated).is_err(),
            "{digest:?}"
        );
        assert!(regula.verify(scheme, b"another message", &theirs).is_err());
    }
}

#[test]
fn pss_signatures_verify_both_ways() {
    let default = default_key();
    let regula = default
        .moved_to("regula", KEYPAIR)
        .expect("regula imports the key");
    let regula_public = default.moved_to("regula", PUBLIC_KEY).expect("public key");
    for digest in DIGESTS {
        let scheme = scheme(digest, PSS);
        let ours = regula.sign(scheme, MESSAGE).expect("regula signs");
        default
            .verify(scheme, MESSAGE, &ours)
            .unwrap_or_else(|e| panic!("{digest:?}: default does not verify regula's: {e}"));
        // Randomized salt: two signatures differ, and both verify.
        let again = regula.sign(scheme, MESSAGE).expect("regula signs");
        assert_ne!(ours, again, "{digest:?}: PSS salt not random");
        let theirs = default.sign(scheme, MESSAGE).expect("default signs");
        regula_public
            .verify(scheme, MESSAGE, &theirs)
            .unwrap_or_else(|e| panic!("{digest:?}: regula does not verify default's: {e}"));
        let mut mutated = theirs.clone();
        mutated[7] ^= 0x80;
        assert!(regula_public.verify(scheme, MESSAGE, &mutated).is_err());
        // A PKCS#1 v1.5 verification of a PSS signature fails.
        assert!(
            regula_public
                .verify(self::scheme(digest, PKCS1), MESSAGE, &theirs)
                .is_err()
        );
    }
}

#[test]
fn regula_generated_keys_sign_for_the_default_provider() {
    let regula = Key::generate(2048, "regula").expect("regula generates RSA-2048");
    let c = crypto();
    // SAFETY: a live key.
    let (bits, size, security) = unsafe {
        (
            (c.get_bits)(regula.0),
            (c.get_size)(regula.0),
            (c.get_security_bits)(regula.0),
        )
    };
    // SP 800-57 Part 1 Table 2: RSA-2048 gives 112 bits of security.
    assert_eq!((bits, size, security), (2048, 256, 112));
    let default = regula
        .moved_to("default", KEYPAIR)
        .expect("regula exports its key to the default provider");
    for padding in [PKCS1, PSS] {
        let scheme = scheme(c"SHA256", padding);
        let ours = regula.sign(scheme, MESSAGE).expect("regula signs");
        default
            .verify(scheme, MESSAGE, &ours)
            .expect("default verifies");
        if padding == PKCS1 {
            // The exported private key is the same key: the same deterministic signature.
            assert_eq!(default.sign(scheme, MESSAGE).unwrap(), ours);
        }
    }
}

#[test]
fn what_regula_does_not_offer_is_refused_with_its_reason() {
    // FIPS 186-5 / SP 800-131A: no RSA key below 2048 bits under fips-140-3.
    let error = Key::generate(1024, "regula")
        .err()
        .expect("1024-bit generation refused");
    assert!(error.contains("below the minimum of 2048 bits"), "{error}");
    let small = Key::generate(1024, "default").expect("default makes a 1024-bit key");
    let error = small
        .moved_to("regula", KEYPAIR)
        .err()
        .expect("1024-bit import refused");
    assert!(error.contains("below the minimum of 2048 bits"), "{error}");

    let regula = default_key().moved_to("regula", KEYPAIR).unwrap();
    let max_salt = Scheme {
        saltlen: SALT_MAX,
        ..scheme(c"SHA256", PSS)
    };
    let error = regula
        .sign(max_salt, MESSAGE)
        .expect_err("max salt refused");
    assert!(error.contains("salt as long as the digest"), "{error}");
    let error = regula
        .init(true, scheme(c"SHA256", NO_PADDING))
        .err()
        .expect("raw RSA refused");
    assert!(error.contains("raw RSA"), "{error}");
    // SHA-1 signatures are verified only, never made.
    let error = regula
        .sign(scheme(c"SHA1", PKCS1), MESSAGE)
        .expect_err("SHA-1 signing refused");
    assert!(error.contains("rsa-pkcs1-sha1"), "{error}");
}
