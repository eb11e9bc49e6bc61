//! The provider's KDFs driven through the system's libcrypto (`EVP_KDF_*`), loaded with
//! `libloading`: the provider is found as `regula.so` in a temporary directory, fetched with
//! `provider=regula`, and its outputs compared with published known answers (RFC 5869, RFC 7914,
//! NIST CAVP via OpenSSL's evpkdf_kbkdf_counter.txt and evpkdf_tls12_prf.txt, RFC 8009 via
//! OpenSSL's evp_kdf_test.c, OpenSSL's evpkdf_tls13_kdf.txt from ACVP) or, where no published
//! vector exists (TLS1-PRF with SHA-384), with OpenSSL's default provider in the same process. Bad input must fail with the provider's reason on
//! the error queue, never crash.

use std::ffi::{CStr, CString, c_char, c_int, c_ulong, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;

use regula_ossl::ffi::{PARAM_INTEGER, PARAM_UNSIGNED_INTEGER, Param};

mod common;

use common::{Ptr, octets, unhex, utf8};

/// The libcrypto functions the tests call.
struct Crypto {
    libctx: usize,
    /// The directory holding `regula.so`.
    dir: PathBuf,
    fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr,
    kdf_free: unsafe extern "C" fn(Ptr),
    ctx_new: unsafe extern "C" fn(Ptr) -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    ctx_dup: unsafe extern "C" fn(Ptr) -> Ptr,
    ctx_reset: unsafe extern "C" fn(Ptr),
    derive: unsafe extern "C" fn(Ptr, *mut u8, usize, *const Param) -> c_int,
    get_params: unsafe extern "C" fn(Ptr, *mut Param) -> c_int,
    set_params: unsafe extern "C" fn(Ptr, *const Param) -> c_int,
    get_size: unsafe extern "C" fn(Ptr) -> usize,
    err_get: unsafe extern "C" fn() -> c_ulong,
    err_peek_data: unsafe extern "C" fn(*mut *const c_char, *mut c_int) -> c_ulong,
    err_string: unsafe extern "C" fn(c_ulong, *mut c_char, usize),
    err_clear: unsafe extern "C" fn(),
}

fn crypto() -> &'static Crypto {
    static CRYPTO: OnceLock<Crypto> = OnceLock::new();
    CRYPTO.get_or_init(|| {
        let library = common::libcrypto("libcrypto.so.3");
        macro_rules! symbol {
            ($name:literal) => {
                // SAFETY: each symbol is declared with the signature of OpenSSL 3's headers.
                *unsafe { library.get(concat!($name, "\0").as_bytes()) }
                    .expect(concat!("libcrypto has ", $name))
            };
        }
        let provider_dir = common::provider_dir("kdf-test");
        // OpenSSL's default provider is the peer for outputs no standard publishes.
        let libctx = common::libctx_with(library, &provider_dir, &[c"regula", c"default"]);
        Crypto {
            libctx: libctx as usize,
            dir: provider_dir,
            fetch: symbol!("EVP_KDF_fetch"),
            kdf_free: symbol!("EVP_KDF_free"),
            ctx_new: symbol!("EVP_KDF_CTX_new"),
            ctx_free: symbol!("EVP_KDF_CTX_free"),
            ctx_dup: symbol!("EVP_KDF_CTX_dup"),
            ctx_reset: symbol!("EVP_KDF_CTX_reset"),
            derive: symbol!("EVP_KDF_derive"),
            get_params: symbol!("EVP_KDF_CTX_get_params"),
            set_params: symbol!("EVP_KDF_CTX_set_params"),
            get_size: symbol!("EVP_KDF_CTX_get_kdf_size"),
            err_get: symbol!("ERR_get_error"),
            err_peek_data: symbol!("ERR_peek_error_data"),
            err_string: symbol!("ERR_error_string_n"),
            err_clear: symbol!("ERR_clear_error"),
        }
    })
}

/// An `EVP_KDF_CTX` of the provider's implementation of `name`.
struct Kdf {
    ctx: Ptr,
}

impl Kdf {
    fn fetch(name: &str) -> Kdf {
        Kdf::fetch_from(name, c"provider=regula")
    }

    fn fetch_from(name: &str, properties: &CStr) -> Kdf {
        Kdf::fetch_in(crypto().libctx as Ptr, name, properties)
    }

    fn fetch_in(libctx: Ptr, name: &str, properties: &CStr) -> Kdf {
        let c = crypto();
        let name = CString::new(name).unwrap();
        // SAFETY: libcrypto calls with valid arguments; the KDF is freed once the context holds
        // its own reference.
        unsafe {
            let kdf = (c.fetch)(libctx, name.as_ptr(), properties.as_ptr());
            assert!(!kdf.is_null(), "{properties:?} offers {name:?}");
            let ctx = (c.ctx_new)(kdf);
            (c.kdf_free)(kdf);
            assert!(!ctx.is_null());
            Kdf { ctx }
        }
    }

    /// Derives `len` bytes with `params`; `Err` is the error queue's first entry.
    fn derive(&self, params: &[Param], len: usize) -> Result<Vec<u8>, String> {
        let c = crypto();
        let terminated = terminate(params);
        let mut out = vec![0u8; len];
        // SAFETY: `out` holds `len` bytes; the parameter array is terminated and its data lives
        // in the caller's values.
        let ok = unsafe { (c.derive)(self.ctx, out.as_mut_ptr(), len, terminated.as_ptr()) };
        if ok == 1 { Ok(out) } else { Err(take_error()) }
    }

    fn set(&self, params: &[Param]) -> Result<(), String> {
        let terminated = terminate(params);
        // SAFETY: a live context and a terminated array.
        let ok = unsafe { (crypto().set_params)(self.ctx, terminated.as_ptr()) };
        if ok == 1 { Ok(()) } else { Err(take_error()) }
    }

    /// An integer context parameter.
    fn get_int(&self, key: &CStr) -> i32 {
        let mut value: i32 = -99;
        let mut params = terminate(&[int(key, &mut value)]);
        // SAFETY: a live context; the entry points at `value`.
        let ok = unsafe { (crypto().get_params)(self.ctx, params.as_mut_ptr()) };
        assert_eq!(ok, 1);
        value
    }

    fn size(&self) -> usize {
        // SAFETY: a live context.
        unsafe { (crypto().get_size)(self.ctx) }
    }

    fn dup(&self) -> Kdf {
        // SAFETY: a live context.
        let ctx = unsafe { (crypto().ctx_dup)(self.ctx) };
        assert!(!ctx.is_null());
        Kdf { ctx }
    }

    fn reset(&self) {
        // SAFETY: a live context.
        unsafe { (crypto().ctx_reset)(self.ctx) }
    }
}

impl Drop for Kdf {
    fn drop(&mut self) {
        // SAFETY: the context was made by EVP_KDF_CTX_new/dup and is freed once.
        unsafe { (crypto().ctx_free)(self.ctx) }
    }
}

/// The first error on this thread's queue as "reason text | provider's message", then clears it.
fn take_error() -> String {
    let c = crypto();
    let mut data: *const c_char = std::ptr::null();
    let mut flags: c_int = 0;
    let mut text = [0 as c_char; 256];
    // SAFETY: libcrypto's error functions with valid out-pointers and buffer sizes.
    unsafe {
        let code = (c.err_peek_data)(&mut data, &mut flags);
        assert_ne!(code, 0, "a failure puts an error on the queue");
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

fn terminate(params: &[Param]) -> Vec<Param> {
    let mut all: Vec<Param> = params
        .iter()
        .map(|p| Param {
            key: p.key,
            data_type: p.data_type,
            data: p.data,
            data_size: p.data_size,
            return_size: p.return_size,
        })
        .collect();
    all.push(Param::END);
    all
}

fn int(key: &CStr, value: &mut i32) -> Param {
    Param {
        key: key.as_ptr(),
        data_type: PARAM_INTEGER,
        data: value as *mut i32 as *mut c_void,
        data_size: 4,
        return_size: usize::MAX,
    }
}

fn uint64(key: &'static CStr, value: &mut u64) -> Param {
    Param {
        key: key.as_ptr(),
        data_type: PARAM_UNSIGNED_INTEGER,
        data: value as *mut u64 as *mut c_void,
        data_size: 8,
        return_size: usize::MAX,
    }
}

/// (IKM, salt, info, PRK, OKM).
type HkdfCase = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);

/// RFC 5869 A.1–A.3 (HKDF-SHA-256).
fn rfc5869() -> [HkdfCase; 3] {
    [
        (
            vec![0x0b; 22],
            (0x00..=0x0c).collect(),
            (0xf0..=0xf9).collect(),
            unhex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"),
            unhex(
                "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf
                 34007208d5b887185865",
            ),
        ),
        (
            (0x00..=0x4f).collect(),
            (0x60..=0xaf).collect(),
            (0xb0..=0xff).collect(),
            unhex("06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244"),
            unhex(
                "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c
                 59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71
                 cc30c58179ec3e87c14c01d5c1f3434f1d87",
            ),
        ),
        (
            vec![0x0b; 22],
            Vec::new(),
            Vec::new(),
            unhex("19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04"),
            unhex(
                "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d
                 9d201395faa4b61a96c8",
            ),
        ),
    ]
}

#[test]
fn hkdf_rfc5869_all_modes() {
    for (ikm, salt, info, prk, okm) in rfc5869() {
        let kdf = Kdf::fetch("HKDF");
        assert_eq!(kdf.get_int(c"regula-approved"), -1, "no derivation yet");
        let params = [
            utf8(c"digest", c"SHA256"),
            octets(c"key", &ikm),
            octets(c"salt", &salt),
            octets(c"info", &info),
        ];
        assert_eq!(kdf.derive(&params, okm.len()).unwrap(), okm);
        assert_eq!(kdf.get_int(c"regula-approved"), 1);
        assert_eq!(
            kdf.size(),
            usize::MAX,
            "extract-and-expand has no fixed size"
        );

        let extract = Kdf::fetch("HKDF");
        let params = [
            utf8(c"mode", c"EXTRACT_ONLY"),
            utf8(c"digest", c"SHA2-256"),
            octets(c"key", &ikm),
            octets(c"salt", &salt),
        ];
        extract.set(&params).unwrap();
        assert_eq!(extract.size(), 32, "extract gives HashLen bytes");
        assert_eq!(extract.derive(&[], 32).unwrap(), prk);
        // OpenSSL: extract-only output must be exactly the digest length.
        let wrong = extract.derive(&[], 31).unwrap_err();
        assert!(wrong.contains("wrong output buffer size"), "{wrong}");

        let expand = Kdf::fetch("HKDF");
        let mut mode = 2; // EVP_KDF_HKDF_MODE_EXPAND_ONLY, by number
        let params = [
            int(c"mode", &mut mode),
            utf8(c"digest", c"SHA256"),
            octets(c"key", &prk),
            octets(c"info", &info),
        ];
        assert_eq!(expand.derive(&params, okm.len()).unwrap(), okm);
    }
}

/// Several `info` parameters concatenate; a duplicate context derives the same; reset clears
/// the key.
#[test]
fn hkdf_info_concatenates_dup_and_reset() {
    let (ikm, salt, info, _, okm) = rfc5869()[0].clone();
    let kdf = Kdf::fetch("HKDF");
    let params = [
        utf8(c"digest", c"SHA256"),
        octets(c"key", &ikm),
        octets(c"salt", &salt),
        octets(c"info", &info[..3]),
        octets(c"info", &info[3..]),
    ];
    kdf.set(&params).unwrap();
    let copy = kdf.dup();
    assert_eq!(kdf.derive(&[], okm.len()).unwrap(), okm);
    assert_eq!(copy.derive(&[], okm.len()).unwrap(), okm);
    kdf.reset();
    let missing = kdf.derive(&[utf8(c"digest", c"SHA256")], 32).unwrap_err();
    assert!(missing.contains("missing key"), "{missing}");
}

#[test]
fn hkdf_bad_input_fails_with_the_reason() {
    let kdf = Kdf::fetch("HKDF");
    let unknown = kdf
        .derive(
            &[utf8(c"digest", c"NO-SUCH-DIGEST"), octets(c"key", b"k")],
            32,
        )
        .unwrap_err();
    assert!(
        unknown.contains("not allowed by the Regula policy"),
        "{unknown}"
    );
    assert!(
        unknown.contains("is not served by the Regula module"),
        "{unknown}"
    );

    let missing_digest = Kdf::fetch("HKDF")
        .derive(&[octets(c"key", b"secret")], 32)
        .unwrap_err();
    assert!(
        missing_digest.contains("missing message digest"),
        "{missing_digest}"
    );

    let missing_key = Kdf::fetch("HKDF")
        .derive(&[utf8(c"digest", c"SHA256")], 32)
        .unwrap_err();
    assert!(missing_key.contains("missing key"), "{missing_key}");

    let zero = Kdf::fetch("HKDF")
        .derive(&[utf8(c"digest", c"SHA256"), octets(c"key", b"secret")], 0)
        .unwrap_err();
    assert!(zero.contains("invalid key length"), "{zero}");

    // HKDF over a digest the module has no HKDF row for: Regula's refusal.
    let sha1 = Kdf::fetch("HKDF")
        .derive(&[utf8(c"digest", c"SHA1"), octets(c"key", b"secret")], 20)
        .unwrap_err();
    assert!(sha1.contains("not allowed by the Regula policy"), "{sha1}");

    // RFC 5869 §2.3: at most 255·HashLen bytes.
    let long = Kdf::fetch("HKDF")
        .derive(
            &[utf8(c"digest", c"SHA256"), octets(c"key", b"secret")],
            255 * 32 + 1,
        )
        .unwrap_err();
    assert!(long.contains("invalid input"), "{long}");

    let mode = Kdf::fetch("HKDF")
        .set(&[utf8(c"mode", c"EXPAND_AND_EXTRACT")])
        .unwrap_err();
    assert!(mode.contains("invalid mode"), "{mode}");
}

/// RFC 7914 §11's PBKDF2-HMAC-SHA-256 vectors (the first needs pkcs5=1: one iteration and a
/// 4-byte salt are below SP 800-132's bounds, which pkcs5=0 enforces).
#[test]
fn pbkdf2_rfc7914() {
    let cases = [
        (
            &b"passwd"[..],
            &b"salt"[..],
            1u64,
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc
             49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783",
        ),
        (
            b"Password",
            b"NaCl",
            80000,
            "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56
             a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d",
        ),
    ];
    for (password, salt, iterations, dk) in cases {
        let dk = unhex(dk);
        let mut iter = iterations;
        let mut pkcs5 = 1;
        let params = [
            int(c"pkcs5", &mut pkcs5),
            utf8(c"digest", c"SHA256"),
            octets(c"pass", password),
            octets(c"salt", salt),
            uint64(c"iter", &mut iter),
        ];
        let kdf = Kdf::fetch("PBKDF2");
        assert_eq!(kdf.derive(&params, dk.len()).unwrap(), dk);
        assert_eq!(kdf.get_int(c"regula-approved"), 1);
    }
    // pkcs5=0: OpenSSL's lower-bound checks refuse one iteration.
    let mut iter = 1u64;
    let mut pkcs5 = 0;
    // pkcs5 last in the array: the checks apply all the same.
    let params = [
        utf8(c"digest", c"SHA256"),
        octets(c"pass", b"passwd"),
        octets(c"salt", &[7; 16]),
        uint64(c"iter", &mut iter),
        int(c"pkcs5", &mut pkcs5),
    ];
    let refused = Kdf::fetch("PBKDF2").derive(&params, 32).unwrap_err();
    assert!(refused.contains("iteration count 1"), "{refused}");
    // OpenSSL's default digest is SHA-1, for which the module has no PBKDF2.
    let sha1 = Kdf::fetch("PBKDF2")
        .derive(&[octets(c"pass", b"passwd"), octets(c"salt", b"salt")], 20)
        .unwrap_err();
    assert!(sha1.contains("not allowed by the Regula policy"), "{sha1}");
    let missing = Kdf::fetch("PBKDF2")
        .derive(
            &[utf8(c"digest", c"SHA256"), octets(c"pass", b"passwd")],
            32,
        )
        .unwrap_err();
    assert!(missing.contains("missing salt"), "{missing}");
}

/// NIST SP 800-108 CAVP (KBKDF counter mode, HMAC-SHA-256, 32-bit counter before the fixed
/// input, COUNT=0), from OpenSSL's evpkdf_kbkdf_counter.txt; and RFC 8009 appendix A's PRF
/// (label "prf", context "test", with separator and L), from OpenSSL's evp_kdf_test.c.
#[test]
fn kbkdf_counter_hmac_sha256() {
    let key = unhex("dd1d91b7d90b2bd3138533ce92b272fbf8a369316aefe242e659cc0ae238afe0");
    let fixed = unhex(
        "01322b96b30acd197979444e468e1c5c6859bf1b1cf951b7e725303e237e46b864a145fab25e517b08f8683d\
         0315bb2911d80a0e8aba17f3b413faac",
    );
    let (mut use_l, mut separator, mut r) = (0, 0, 32);
    let params = [
        utf8(c"mode", c"COUNTER"),
        utf8(c"digest", c"SHA256"),
        utf8(c"mac", c"HMAC"),
        int(c"use-l", &mut use_l),
        int(c"use-separator", &mut separator),
        int(c"r", &mut r),
        octets(c"key", &key),
        octets(c"info", &fixed),
    ];
    let kdf = Kdf::fetch("KBKDF");
    assert_eq!(
        kdf.derive(&params, 16).unwrap(),
        unhex("10621342bfb0fd40046c0e29f2cfdbf0")
    );
    assert_eq!(kdf.get_int(c"fips-indicator"), 1);

    let key = unhex("3705d96080c17728a0e800eab6e0d23c");
    let params = [
        utf8(c"digest", c"sha256"),
        utf8(c"mac", c"HMAC"),
        octets(c"key", &key),
        octets(c"salt", b"prf"),
        octets(c"info", b"test"),
    ];
    assert_eq!(
        Kdf::fetch("KBKDF").derive(&params, 32).unwrap(),
        unhex("9d188616f63852fe86915bb840b4a886ff3e6bb0f819b49b893393d393854295")
    );

    // What the module's KBKDF cannot express is refused, with a reason.
    let mut r8 = 8;
    let refused = Kdf::fetch("KBKDF")
        .derive(
            &[
                utf8(c"digest", c"SHA256"),
                utf8(c"mac", c"HMAC"),
                int(c"r", &mut r8),
                octets(c"key", &key),
            ],
            16,
        )
        .unwrap_err();
    assert!(refused.contains("use r=32"), "{refused}");
    let cmac = Kdf::fetch("KBKDF")
        .derive(&[utf8(c"mac", c"CMAC"), octets(c"key", &key)], 16)
        .unwrap_err();
    assert!(cmac.contains("not allowed by the Regula policy"), "{cmac}");
    let no_key = Kdf::fetch("KBKDF")
        .derive(&[utf8(c"digest", c"SHA256"), utf8(c"mac", c"HMAC")], 16)
        .unwrap_err();
    assert!(no_key.contains("no key set"), "{no_key}");
}

/// OpenSSL's evpkdf_tls13_kdf.txt (ACVP TLS 1.3 KDF, SHA2-256): early secret without and
/// handshake secret with a previous secret, and two HKDF-Expand-Label traffic secrets.
#[test]
fn tls13_kdf_acvp() {
    let prefix = b"tls13 ";
    let extract = |key: Option<&[u8]>, salt: Option<&[u8]>, label: &[u8]| {
        let mut params = vec![
            utf8(c"mode", c"EXTRACT_ONLY"),
            utf8(c"digest", c"SHA2-256"),
            octets(c"prefix", prefix),
            octets(c"label", label),
        ];
        if let Some(key) = key {
            params.push(octets(c"key", key));
        }
        if let Some(salt) = salt {
            params.push(octets(c"salt", salt));
        }
        Kdf::fetch("TLS13-KDF").derive(&params, 32).unwrap()
    };
    let early = extract(
        Some(&unhex(
            "f8af6aea2d397baf2948a25b2834200692cff17eee9165e4e27babee9edefd05",
        )),
        None,
        b"",
    );
    assert_eq!(
        early,
        unhex("153b6394a9c03cf3f5accc6e455a7693281138a1bcfa3803c26735dd1194d216")
    );
    let handshake = extract(
        Some(&unhex(
            "8e27fad32236cb11bb497eb878d636c3f1599f5ffdfae784cbf73e74746769d4",
        )),
        Some(&early),
        b"derived",
    );
    assert_eq!(
        handshake,
        unhex("cbb0740fd37e5eff32b76cf88511eb83fc9694da4130ca48de754c7f80f561bd")
    );
    let master = extract(None, Some(&handshake), b"derived");
    assert_eq!(
        master,
        unhex("9bdaae0c714cdbd47dd27dd7e37a1b4e5cf82fcaead2389cd71e6de12470ee17")
    );

    let expand = |key: &[u8], label: &[u8], data: &[u8]| {
        let params = [
            utf8(c"mode", c"EXPAND_ONLY"),
            utf8(c"digest", c"SHA2-256"),
            octets(c"key", key),
            octets(c"prefix", prefix),
            octets(c"label", label),
            octets(c"data", data),
        ];
        Kdf::fetch("TLS13-KDF").derive(&params, 32).unwrap()
    };
    let transcript = unhex("7c92f68bd5bf3638ea338a6494722e1b44127e1b7e8aad535f2322a644ff22b3");
    assert_eq!(
        expand(&early, b"c e traffic", &transcript),
        unhex("c80583a90e995c489600492a5da642e6b1f679ba674828792df087b939636171")
    );
    let transcript = unhex("78d80b86fb9b089fb73375e51ae5bcfd742df4cadbd84dea0aaa0ac9d07ba6dc");
    assert_eq!(
        expand(&handshake, b"s hs traffic", &transcript),
        unhex("40eefbf66cb79c41c9ee1bf0be7f41696da165e7e69628ca8e342fee51827abd")
    );

    // OpenSSL's TLS13-KDF has no extract-and-expand mode.
    let refused = Kdf::fetch("TLS13-KDF")
        .derive(&[utf8(c"digest", c"SHA2-256"), octets(c"key", &early)], 32)
        .unwrap_err();
    assert!(refused.contains("EXTRACT_ONLY or EXPAND_ONLY"), "{refused}");
}

/// NIST CAVP's TLS 1.2 KDF vectors (SHA-256) from OpenSSL's evpkdf_tls12_prf.txt: the master
/// secret (seeds given in three parameters, which concatenate) and the key block.
#[test]
fn tls1_prf_nist() {
    let secret = unhex(
        "f8938ecc9edebc5030c0c6a441e213cd24e6f770a50dda07876f8d55da062bca
         db386b411fd4fe4313a604fce6c17fbc",
    );
    let client = unhex("36c129d01a3200894b9179faac589d9835d58775f9b5ea3587cb8fd0364cae8c");
    let server = unhex("f6c9575ed7ddd73e1f7d16eca115415812a43c2b747daaaae043abfb50053fce");
    let kdf = Kdf::fetch("TLS1-PRF");
    let params = [
        utf8(c"digest", c"SHA256"),
        octets(c"secret", &secret),
        octets(c"seed", b"master secret"),
        octets(c"seed", &client),
        octets(c"seed", &server),
    ];
    let master = kdf.derive(&params, 48).unwrap();
    assert_eq!(
        master,
        unhex(
            "202c88c00f84a17a20027079604787461176455539e705be730890602c289a50
             01e34eeb3a043e5d52a65e66125188bf"
        )
    );
    assert_eq!(kdf.get_int(c"regula-approved"), 1);

    let kdf = Kdf::fetch("TLS1-PRF");
    kdf.set(&[utf8(c"digest", c"SHA256"), octets(c"secret", &master)])
        .unwrap();
    // Seeds set in separate calls concatenate as well.
    kdf.set(&[octets(c"seed", b"key expansion")]).unwrap();
    let server = unhex("ae6c806f8ad4d80784549dff28a4b58fd837681a51d928c3e30ee5ff14f39868");
    let client = unhex("62e1fd91f23f558a605f28478c58cf72637b89784d959df7e946d3f07bd1b616");
    kdf.set(&[octets(c"seed", &server), octets(c"seed", &client)])
        .unwrap();
    assert_eq!(
        kdf.derive(&[], 128).unwrap(),
        unhex(
            "d06139889fffac1e3a71865f504aa5d0d2a2e89506c6f2279b670c3e1b74f531
             016a2530c51a3a0f7e1d6590d0f0566b2f387f8d11fd4f731cdd572d2eae927f
             6f2f81410b25e6960be68985add6c38445ad9f8c64bf8068bf9a6679485d966f
             1ad6f68b43495b10a683755ea2b858d70ccac7ec8b053c6bd41ca299d4e51928"
        )
    );

    let missing = Kdf::fetch("TLS1-PRF")
        .derive(
            &[utf8(c"digest", c"SHA256"), octets(c"secret", &secret)],
            48,
        )
        .unwrap_err();
    assert!(missing.contains("missing seed"), "{missing}");
    // No MD5-SHA1 row in the module: TLS 1.0/1.1's PRF is refused.
    let md5_sha1 = Kdf::fetch("TLS1-PRF")
        .derive(
            &[
                utf8(c"digest", c"MD5-SHA1"),
                octets(c"secret", &secret),
                octets(c"seed", b"seed"),
            ],
            48,
        )
        .unwrap_err();
    assert!(
        md5_sha1.contains("\"MD5-SHA1\" is not served by the Regula module"),
        "{md5_sha1}"
    );
}

/// TLS1-PRF with SHA-384 (no published vector in OpenSSL's files): the same output as OpenSSL's
/// default provider.
#[test]
fn tls1_prf_sha384_matches_openssl() {
    let secret: Vec<u8> = (0u8..48).collect();
    let seed: Vec<u8> = (100u8..164).collect();
    let derive = |properties: &CStr| {
        Kdf::fetch_from("TLS1-PRF", properties)
            .derive(
                &[
                    utf8(c"digest", c"SHA2-384"),
                    octets(c"secret", &secret),
                    octets(c"seed", b"key expansion"),
                    octets(c"seed", &seed),
                ],
                104,
            )
            .unwrap()
    };
    assert_eq!(derive(c"provider=regula"), derive(c"provider=default"));
}

/// A library context with the provider under `policy` and OpenSSL's default provider.
fn libctx_with_policy(policy: &str) -> Ptr {
    common::libctx_with_policy(common::libcrypto("libcrypto.so.3"), &crypto().dir, policy)
}

/// Under `fips-140-3` the policy has the final word: pkcs5=1 turns OpenSSL's lower-bound checks
/// off, but the module still refuses SP 800-132's minimums (RFC 7914's one iteration and 4-byte
/// salt), and HKDF without salt or info (RFC 5869 A.3). A derivation within the bounds is served
/// approved and matches OpenSSL's default provider.
#[test]
fn fips_policy_has_the_final_word() {
    let fips = libctx_with_policy("fips-140-3");
    let regula = c"provider=regula";
    let mut iter = 1u64;
    let mut pkcs5 = 1;
    let weak = [
        int(c"pkcs5", &mut pkcs5),
        utf8(c"digest", c"SHA256"),
        octets(c"pass", b"passwd"),
        octets(c"salt", b"salt"),
        uint64(c"iter", &mut iter),
    ];
    let refused = Kdf::fetch_in(fips, "PBKDF2", regula)
        .derive(&weak, 64)
        .unwrap_err();
    assert!(
        refused.contains("not allowed by the Regula policy"),
        "{refused}"
    );
    assert!(refused.contains("below the minimum"), "{refused}");

    let refused = Kdf::fetch_in(fips, "HKDF", regula)
        .derive(
            &[utf8(c"digest", c"SHA256"), octets(c"key", &[0x0b; 22])],
            42,
        )
        .unwrap_err();
    assert!(
        refused.contains("not allowed by the Regula policy"),
        "{refused}"
    );

    let mut iter = 1000u64;
    let derive = |properties: &CStr, iter: &mut u64| {
        Kdf::fetch_in(fips, "PBKDF2", properties)
            .derive(
                &[
                    utf8(c"digest", c"SHA2-512"),
                    octets(c"pass", b"correct horse battery staple"),
                    octets(c"salt", &[0x5a; 16]),
                    uint64(c"iter", iter),
                ],
                32,
            )
            .unwrap()
    };
    let kdf_output = derive(regula, &mut iter);
    assert_eq!(kdf_output, derive(c"provider=default", &mut iter));
}
