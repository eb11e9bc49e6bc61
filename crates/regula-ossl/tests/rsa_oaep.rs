//! The provider's RSA-OAEP (ASYM_CIPHER "RSA") through the system's libcrypto (or the one
//! REGULA_TEST_LIBCRYPTO names), under the fips-140-3 and the default policies, with OpenSSL's
//! default provider in the same process as the independent peer. The known answers are
//! ciphertexts the OpenSSL command line made (tests/data/rsa_oaep_openssl.txt, written by
//! make_rsa_oaep_vectors.sh; OAEP is randomized, so a peer's decryption is the known answer):
//! Regula decrypts them, OpenSSL's default provider decrypts what Regula encrypts, and SHA-1
//! OAEP (fips-140-3), PKCS#1 v1.5 and raw padding, an MGF1 hash other than the OAEP hash, a
//! changed ciphertext or label and a short buffer are refused with Regula's reason.

use std::ffi::{CStr, CString, c_char, c_int};
use std::sync::OnceLock;

use regula_ossl::ffi::{PARAM_INTEGER, Param};

mod common;

use common::pkey::{Key, Keys, properties};
use common::{Ptr, bignum, native_order, unhex};

const KEYPAIR: c_int = 0x03 | 0x84;
const PUBLIC_KEY: c_int = 0x02 | 0x84;
/// RSA_PKCS1_OAEP_PADDING.
const OAEP: c_int = 4;

type Crypt = unsafe extern "C" fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;

struct Crypto {
    fips: Keys,
    default: Keys,
    ctx_new_from_pkey: unsafe extern "C" fn(Ptr, Ptr, *const c_char) -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    ctx_ctrl_str: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> c_int,
    ctx_set_params: unsafe extern "C" fn(Ptr, *const Param) -> c_int,
    ctx_get_params: unsafe extern "C" fn(Ptr, *mut Param) -> c_int,
    ctx_get0_provider: unsafe extern "C" fn(Ptr) -> Ptr,
    provider_name: unsafe extern "C" fn(Ptr) -> *const c_char,
    get0_label: unsafe extern "C" fn(Ptr, *mut *mut u8) -> c_int,
    encrypt_init: unsafe extern "C" fn(Ptr) -> c_int,
    encrypt: Crypt,
    decrypt_init: unsafe extern "C" fn(Ptr) -> c_int,
    decrypt: Crypt,
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
        let dir = common::provider_dir("rsa-oaep-test");
        // Each context loads Regula under its policy and OpenSSL's default provider beside it.
        // The default policy is the provider's when none is configured: OpenSSL 3.0 reads
        // `policy = default` in openssl.cnf as a reference to the file's [default] section.
        let fips = common::libctx_with_policy(library, &dir, "fips-140-3");
        let default = common::libctx_with(library, &dir, &[c"regula", c"default"]);
        Crypto {
            fips: Keys::load(library, fips),
            default: Keys::load(library, default),
            ctx_new_from_pkey: symbol!("EVP_PKEY_CTX_new_from_pkey"),
            ctx_free: symbol!("EVP_PKEY_CTX_free"),
            ctx_ctrl_str: symbol!("EVP_PKEY_CTX_ctrl_str"),
            ctx_set_params: symbol!("EVP_PKEY_CTX_set_params"),
            ctx_get_params: symbol!("EVP_PKEY_CTX_get_params"),
            ctx_get0_provider: symbol!("EVP_PKEY_CTX_get0_provider"),
            provider_name: symbol!("OSSL_PROVIDER_get0_name"),
            get0_label: symbol!("EVP_PKEY_CTX_get0_rsa_oaep_label"),
            encrypt_init: symbol!("EVP_PKEY_encrypt_init"),
            encrypt: symbol!("EVP_PKEY_encrypt"),
            decrypt_init: symbol!("EVP_PKEY_decrypt_init"),
            decrypt: symbol!("EVP_PKEY_decrypt"),
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Policy {
    Fips,
    Default,
}

fn keys(policy: Policy) -> &'static Keys {
    match policy {
        Policy::Fips => &crypto().fips,
        Policy::Default => &crypto().default,
    }
}

/// The OpenSSL command line's ciphertexts and the key they were made for.
struct Vectors {
    /// (OpenSSL name, big-endian value) of n, e, d and the CRT values.
    key: Vec<(&'static CStr, Vec<u8>)>,
    cases: Vec<Case>,
}

struct Case {
    digest: String,
    /// Hex, as `rsa_oaep_label` takes it; empty for none.
    label: String,
    message: Vec<u8>,
    ciphertext: Vec<u8>,
}

fn vectors() -> &'static Vectors {
    static VECTORS: OnceLock<Vectors> = OnceLock::new();
    VECTORS.get_or_init(|| {
        let text = include_str!("data/rsa_oaep_openssl.txt");
        let names: [(&str, &'static CStr); 8] = [
            ("n", c"n"),
            ("e", c"e"),
            ("d", c"d"),
            ("p", c"rsa-factor1"),
            ("q", c"rsa-factor2"),
            ("dp", c"rsa-exponent1"),
            ("dq", c"rsa-exponent2"),
            ("qinv", c"rsa-coefficient1"),
        ];
        let mut key = Vec::new();
        let mut cases = Vec::new();
        for line in text.lines() {
            let Some((field, value)) = line.split_once(" = ") else {
                continue;
            };
            if let Some((_, name)) = names.iter().find(|(short, _)| *short == field) {
                key.push((*name, unhex(value)));
                continue;
            }
            match field {
                "Digest" => cases.push(Case {
                    digest: value.to_owned(),
                    label: String::new(),
                    message: Vec::new(),
                    ciphertext: Vec::new(),
                }),
                "Label" if value != "-" => cases.last_mut().unwrap().label = value.to_owned(),
                "Message" => cases.last_mut().unwrap().message = value.as_bytes().to_vec(),
                "Ciphertext" => cases.last_mut().unwrap().ciphertext = unhex(value),
                _ => {}
            }
        }
        assert_eq!(key.len(), 8, "the key's eight integers");
        assert_eq!(cases.len(), 5, "five ciphertexts");
        Vectors { key, cases }
    })
}

/// The command line's key in `provider` of the `policy` context (the private key, or only n
/// and e), imported as `base`'s decoders hand a PEM key over (`EVP_PKEY_fromdata`).
fn key(policy: Policy, provider: &str, private: bool) -> Key {
    let integers: Vec<_> = vectors()
        .key
        .iter()
        .filter(|(name, _)| private || *name == c"n" || *name == c"e")
        .map(|(name, value)| (*name, native_order(value)))
        .collect();
    let params: Vec<Param> = integers
        .iter()
        .map(|(name, native)| bignum(name, native))
        .collect();
    let selection = if private { KEYPAIR } else { PUBLIC_KEY };
    let key = keys(policy)
        .fromdata(c"RSA", &properties(provider), selection, &params)
        .unwrap_or_else(|e| panic!("{provider} RSA key under {policy:?}: {e}"));
    assert_eq!(key.provider(), provider);
    key
}

/// How a test sets up its context: `EVP_PKEY_CTX_ctrl_str` controls as `openssl pkeyutl
/// -pkeyopt` passes them, and the output buffer's shortfall.
#[derive(Default)]
struct Setup<'a> {
    controls: Vec<(&'a str, String)>,
    /// Set `pad-mode` as the number `EVP_PKEY_CTX_set_rsa_padding` sends instead.
    numeric_oaep: bool,
    short: usize,
}

impl<'a> Setup<'a> {
    /// OAEP with `digest` (for OAEP and MGF1, as the command line set them) and `label` (hex).
    fn oaep(digest: &str, label: &str) -> Setup<'a> {
        let mut controls = vec![
            ("rsa_padding_mode", "oaep".to_owned()),
            ("rsa_oaep_md", digest.to_owned()),
            ("rsa_mgf1_md", digest.to_owned()),
        ];
        if !label.is_empty() {
            controls.push(("rsa_oaep_label", label.to_owned()));
        }
        Setup {
            controls,
            ..Setup::default()
        }
    }
}

/// What a context gave: the output, and the provider's answers read back afterwards.
#[derive(Debug)]
struct Run {
    output: Vec<u8>,
    approved: c_int,
}

/// Encrypts (`encrypts`) or decrypts `input` with `key` in its provider, set up as `setup`
/// says, into a buffer of the length the provider asks for (less `setup.short` bytes).
fn crypt(
    key: &Key,
    policy: Policy,
    encrypts: bool,
    setup: &Setup,
    input: &[u8],
) -> Result<Run, String> {
    let c = crypto();
    let keys = keys(policy);
    let properties = properties(&key.provider());
    let (init, run) = if encrypts {
        (c.encrypt_init, c.encrypt)
    } else {
        (c.decrypt_init, c.decrypt)
    };
    // SAFETY: libcrypto calls with live objects, NUL-terminated strings and valid buffers.
    unsafe {
        let ctx = (c.ctx_new_from_pkey)(keys.libctx(), key.0, properties.as_ptr());
        assert!(!ctx.is_null(), "EVP_PKEY_CTX_new_from_pkey");
        let result = (|| {
            if init(ctx) != 1 {
                return Err(format!("init: {}", keys.take_error()));
            }
            let provider = (c.ctx_get0_provider)(ctx);
            let name = CStr::from_ptr((c.provider_name)(provider));
            assert_eq!(
                name.to_str().unwrap(),
                key.provider(),
                "the key's provider runs it"
            );
            if setup.numeric_oaep {
                let mut mode = OAEP;
                let params = [int_param(c"pad-mode", &mut mode), Param::END];
                if (c.ctx_set_params)(ctx, params.as_ptr()) != 1 {
                    return Err(format!("pad-mode: {}", keys.take_error()));
                }
            }
            for (name, value) in &setup.controls {
                let (name_c, value_c) = (
                    CString::new(*name).unwrap(),
                    CString::new(value.as_str()).unwrap(),
                );
                if (c.ctx_ctrl_str)(ctx, name_c.as_ptr(), value_c.as_ptr()) <= 0 {
                    return Err(format!("{name}:{value}: {}", keys.take_error()));
                }
            }
            let mut len = 0usize;
            if run(
                ctx,
                std::ptr::null_mut(),
                &mut len,
                input.as_ptr(),
                input.len(),
            ) != 1
            {
                return Err(format!("length: {}", keys.take_error()));
            }
            len -= setup.short.min(len);
            let mut out = vec![0u8; len];
            if run(ctx, out.as_mut_ptr(), &mut len, input.as_ptr(), input.len()) != 1 {
                // Nothing was written into the refused call's buffer.
                assert!(out.iter().all(|&b| b == 0), "partial output");
                return Err(keys.take_error());
            }
            out.truncate(len);
            let mut approved: c_int = -2;
            let mut params = [int_param(c"regula-approved", &mut approved), Param::END];
            if key.provider() == "regula" {
                assert_eq!((c.ctx_get_params)(ctx, params.as_mut_ptr()), 1);
            }
            Ok(Run {
                output: out,
                approved,
            })
        })();
        (c.ctx_free)(ctx);
        result
    }
}

/// An `int` parameter over `value`.
fn int_param(key: &'static CStr, value: &mut c_int) -> Param {
    Param {
        key: key.as_ptr(),
        data_type: PARAM_INTEGER,
        data: value as *mut c_int as *mut std::ffi::c_void,
        data_size: size_of::<c_int>(),
        return_size: usize::MAX,
    }
}

fn modulus_bytes() -> usize {
    let n = &vectors().key[0];
    assert_eq!(n.0, c"n");
    n.1.iter().skip_while(|&&b| b == 0).count()
}

#[test]
fn regula_decrypts_the_command_lines_oaep_ciphertexts() {
    for policy in [Policy::Fips, Policy::Default] {
        let private = key(policy, "regula", true);
        for case in &vectors().cases {
            let setup = Setup::oaep(&case.digest, &case.label);
            let got = crypt(&private, policy, false, &setup, &case.ciphertext);
            if policy == Policy::Fips && case.digest == "sha1" {
                // SHA-1 OAEP: not served under fips-140-3; the policy's reason.
                let refused = got.unwrap_err();
                assert!(
                    refused.contains("not allowed by the Regula policy"),
                    "{refused}"
                );
                assert!(refused.contains("SHA-1"), "{refused}");
                continue;
            }
            let run = got.unwrap_or_else(|e| panic!("{policy:?} {}: {e}", case.digest));
            assert_eq!(run.output, case.message, "{policy:?} {}", case.digest);
            assert_eq!(run.approved, 1, "{policy:?} {}", case.digest);
        }
    }
}

#[test]
fn the_command_lines_sha256_ciphertext_with_its_label_and_no_other() {
    let policy = Policy::Fips;
    let private = key(policy, "regula", true);
    let case = &vectors().cases[0];
    assert_eq!(
        (case.digest.as_str(), case.label.is_empty()),
        ("sha256", false)
    );
    // pad-mode as EVP_PKEY_CTX_set_rsa_padding sends it (the number 4).
    let mut setup = Setup::oaep("sha256", &case.label);
    setup.controls.remove(0);
    setup.numeric_oaep = true;
    let run = crypt(&private, policy, false, &setup, &case.ciphertext).unwrap();
    assert_eq!(run.output, case.message);
    // Another label, or none: OAEP's check fails, nothing is released.
    for label in ["6c6162656c", ""] {
        let refused = crypt(
            &private,
            policy,
            false,
            &Setup::oaep("sha256", label),
            &case.ciphertext,
        )
        .unwrap_err();
        assert!(refused.contains("cryptographic failure"), "{refused}");
    }
}

#[test]
fn a_changed_ciphertext_is_refused_without_output() {
    let policy = Policy::Default;
    let private = key(policy, "regula", true);
    for case in &vectors().cases {
        let setup = Setup::oaep(&case.digest, &case.label);
        for index in [0, case.ciphertext.len() / 2, case.ciphertext.len() - 1] {
            let mut changed = case.ciphertext.clone();
            changed[index] ^= 0x01;
            let refused = crypt(&private, policy, false, &setup, &changed).unwrap_err();
            assert!(
                !refused.is_empty(),
                "byte {index} of the {} ciphertext",
                case.digest
            );
        }
        // One byte short of the modulus.
        let short = &case.ciphertext[1..];
        assert!(crypt(&private, policy, false, &setup, short).is_err());
    }
}

#[test]
fn openssls_default_provider_decrypts_what_regula_encrypts() {
    for (policy, digest) in [
        (Policy::Fips, "sha256"),
        (Policy::Fips, "sha512"),
        (Policy::Default, "sha1"),
        (Policy::Default, "sha384"),
    ] {
        let regula_public = key(policy, "regula", false);
        let default_private = key(policy, "default", true);
        let message = format!("RSA-OAEP {digest} from Regula under {policy:?}");
        let setup = Setup::oaep(digest, "0102030405");
        let ours = crypt(&regula_public, policy, true, &setup, message.as_bytes()).unwrap();
        assert_eq!(ours.output.len(), modulus_bytes());
        assert_eq!(ours.approved, 1);
        let theirs = crypt(&default_private, policy, false, &setup, &ours.output).unwrap();
        assert_eq!(theirs.output, message.as_bytes(), "{policy:?} {digest}");
        // The label is part of the ciphertext: the peer refuses another one.
        let other = Setup::oaep(digest, "0102030406");
        assert!(crypt(&default_private, policy, false, &other, &ours.output).is_err());
        // Randomized: a second encryption differs.
        let again = crypt(&regula_public, policy, true, &setup, message.as_bytes()).unwrap();
        assert_ne!(again.output, ours.output);
    }
}

#[test]
fn sha1_oaep_is_refused_under_fips_140_3_and_served_under_default() {
    let message = b"SHA-1 OAEP";
    let fips = crypt(
        &key(Policy::Fips, "regula", false),
        Policy::Fips,
        true,
        &Setup::oaep("sha1", ""),
        message,
    )
    .unwrap_err();
    assert!(fips.contains("not allowed by the Regula policy"), "{fips}");
    assert!(fips.contains("SHA-1"), "{fips}");
    // OpenSSL's default OAEP hash is SHA-1: pad-mode oaep alone is SHA-1 OAEP, refused too.
    let setup = Setup {
        controls: vec![("rsa_padding_mode", "oaep".to_owned())],
        ..Setup::default()
    };
    let default_hash = crypt(
        &key(Policy::Fips, "regula", false),
        Policy::Fips,
        true,
        &setup,
        message,
    )
    .unwrap_err();
    assert!(default_hash.contains("SHA-1"), "{default_hash}");
    let served = crypt(
        &key(Policy::Default, "regula", false),
        Policy::Default,
        true,
        &setup,
        message,
    )
    .unwrap();
    let back = crypt(
        &key(Policy::Default, "default", true),
        Policy::Default,
        false,
        &setup,
        &served.output,
    )
    .unwrap();
    assert_eq!(back.output, message);
}

#[test]
fn padding_other_than_oaep_is_refused_with_the_reason() {
    for policy in [Policy::Fips, Policy::Default] {
        let public = key(policy, "regula", false);
        let private = key(policy, "regula", true);
        let message = b"PKCS#1 v1.5 is not served";
        // OpenSSL's default padding (PKCS#1 v1.5), never set: refused when the operation runs.
        let unset = crypt(&public, policy, true, &Setup::default(), message).unwrap_err();
        assert!(
            unset.contains("not served: RSA encryption is OAEP only"),
            "{unset}"
        );
        let ciphertext = &vectors().cases[0].ciphertext;
        let unset = crypt(&private, policy, false, &Setup::default(), ciphertext).unwrap_err();
        assert!(
            unset.contains("not served: RSA encryption is OAEP only"),
            "{unset}"
        );
        // Asked for: refused when it is set.
        for mode in ["pkcs1", "none", "x931"] {
            let setup = Setup {
                controls: vec![("rsa_padding_mode", mode.to_owned())],
                ..Setup::default()
            };
            let refused = crypt(&public, policy, true, &setup, message).unwrap_err();
            assert!(
                refused.contains("not served: RSA encryption is OAEP only"),
                "{mode}: {refused}"
            );
            assert!(
                refused.contains("not allowed by the Regula policy"),
                "{refused}"
            );
        }
    }
}

#[test]
fn an_mgf1_hash_other_than_the_oaep_hash_is_refused() {
    let policy = Policy::Fips;
    let public = key(policy, "regula", false);
    let mut setup = Setup::oaep("sha256", "");
    setup.controls[2].1 = "sha384".to_owned();
    let refused = crypt(&public, policy, true, &setup, b"MGF1").unwrap_err();
    assert!(refused.contains("MGF1-SHA2-384"), "{refused}");
    // Set in either order, equal hashes are served.
    let setup = Setup {
        controls: vec![
            ("rsa_padding_mode", "oaep".to_owned()),
            ("rsa_mgf1_md", "sha384".to_owned()),
            ("rsa_oaep_md", "sha384".to_owned()),
        ],
        ..Setup::default()
    };
    assert!(crypt(&public, policy, true, &setup, b"MGF1").is_ok());
    // A hash no RSA-OAEP row uses is refused when it is set.
    let setup = Setup::oaep("sha224", "");
    let refused = crypt(&public, policy, true, &setup, b"MGF1").unwrap_err();
    assert!(
        refused.contains("is not a hash of the Regula provider's RSA-OAEP"),
        "{refused}"
    );
}

#[test]
fn a_short_buffer_is_refused_and_not_overrun() {
    let policy = Policy::Fips;
    let public = key(policy, "regula", false);
    let private = key(policy, "regula", true);
    let case = &vectors().cases[0];
    // Encryption: the ciphertext is as long as the modulus; one byte less is refused.
    let mut setup = Setup::oaep("sha256", &case.label);
    setup.short = 1;
    let refused = crypt(&public, policy, true, &setup, &case.message).unwrap_err();
    assert!(refused.contains("buffer holds"), "{refused}");
    // Decryption: the length query answers the modulus size; a buffer as long as the message
    // is enough, one byte less is refused.
    setup.short = modulus_bytes() - case.message.len();
    let run = crypt(&private, policy, false, &setup, &case.ciphertext).unwrap();
    assert_eq!(run.output, case.message);
    setup.short += 1;
    let refused = crypt(&private, policy, false, &setup, &case.ciphertext).unwrap_err();
    assert!(refused.contains("buffer holds"), "{refused}");
}

#[test]
fn the_context_reports_its_padding_and_label() {
    let c = crypto();
    let policy = Policy::Fips;
    let public = key(policy, "regula", false);
    let keys = keys(policy);
    // SAFETY: libcrypto calls with live objects and valid out-pointers.
    unsafe {
        let ctx = (c.ctx_new_from_pkey)(keys.libctx(), public.0, properties("regula").as_ptr());
        assert_eq!((c.encrypt_init)(ctx), 1);
        // "pad-mode" read as the number. (OpenSSL 3.0's EVP_PKEY_CTX_get_rsa_padding answers
        // the name's length from its own default provider too, so the parameter is read here.)
        let padding = || {
            let mut mode: c_int = 0;
            let mut params = [int_param(c"pad-mode", &mut mode), Param::END];
            assert_eq!((c.ctx_get_params)(ctx, params.as_mut_ptr()), 1);
            mode
        };
        assert_eq!(padding(), 1, "PKCS#1 v1.5 until set, as OpenSSL");
        for (name, value) in [
            ("rsa_padding_mode", c"oaep"),
            ("rsa_oaep_label", c"6c6162656c"),
        ] {
            let name = CString::new(name).unwrap();
            assert_eq!((c.ctx_ctrl_str)(ctx, name.as_ptr(), value.as_ptr()), 1);
        }
        assert_eq!(padding(), OAEP);
        let mut label = std::ptr::null_mut();
        let len = (c.get0_label)(ctx, &mut label);
        assert_eq!(len, 5);
        assert_eq!(std::slice::from_raw_parts(label, 5), b"label");
        (c.ctx_free)(ctx);
    }
}

#[test]
fn rsa_is_offered_where_the_policy_serves_rsa_oaep() {
    use regula_ossl::host::Host;
    const OP_ASYM_CIPHER: i32 = 13;
    let rsa_offer = |policy: &str| {
        let host = Host::load(policy).expect("loads");
        host.offered(OP_ASYM_CIPHER)
            .into_iter()
            .find(|offer| offer.names.split(':').next() == Some("RSA"))
            .map(|offer| (offer.names, offer.properties))
    };
    // As OpenSSL's default provider names it; approved where an RSA-OAEP row is.
    let names = "RSA:rsaEncryption:1.2.840.113549.1.1.1";
    for policy in ["fips-140-3", "default"] {
        assert_eq!(
            rsa_offer(policy),
            Some((names.to_owned(), "provider=regula,fips=yes".to_owned())),
            "{policy}"
        );
    }
    // gm serves no RSA at all.
    assert_eq!(rsa_offer("gm"), None);
}
