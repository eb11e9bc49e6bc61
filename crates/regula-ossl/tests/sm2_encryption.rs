//! The provider's SM2 encryption (ASYM_CIPHER "SM2") through the system's libcrypto (or the
//! one REGULA_TEST_LIBCRYPTO names): OpenSSL's evppkey_sm2.txt `Decrypt` stanzas decrypt with
//! its key SM2_key1 (crates/regula-vectors/tests/data/openssl/evppkey_sm2.txt); what Regula
//! encrypts, OpenSSL's default provider decrypts, and the other way round; a changed
//! ciphertext, a digest other than SM3 and a short buffer are refused.

use std::ffi::{c_char, c_int};
use std::sync::OnceLock;

use regula_ossl::ffi::Param;

mod common;

use common::pkey::{Key, Keys, properties};
use common::{Ptr, bignum, native_order, octets, unhex, utf8};

const KEYPAIR: c_int = 0x03 | 0x84;
const PUBLIC_KEY: c_int = 0x02 | 0x84;

type Crypt = unsafe extern "C" fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;

struct Crypto {
    keys: Keys,
    ctx_new_from_pkey: unsafe extern "C" fn(Ptr, Ptr, *const c_char) -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    ctx_set_params: unsafe extern "C" fn(Ptr, *const Param) -> c_int,
    ctx_get0_provider: unsafe extern "C" fn(Ptr) -> Ptr,
    provider_name: unsafe extern "C" fn(Ptr) -> *const c_char,
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
        let dir = common::provider_dir("sm2-encryption-test");
        // OpenSSL's default provider is the independent peer.
        let libctx = common::libctx_with(library, &dir, &[c"regula", c"default"]);
        Crypto {
            keys: Keys::load(library, libctx),
            ctx_new_from_pkey: symbol!("EVP_PKEY_CTX_new_from_pkey"),
            ctx_free: symbol!("EVP_PKEY_CTX_free"),
            ctx_set_params: symbol!("EVP_PKEY_CTX_set_params"),
            ctx_get0_provider: symbol!("EVP_PKEY_CTX_get0_provider"),
            provider_name: symbol!("OSSL_PROVIDER_get0_name"),
            encrypt_init: symbol!("EVP_PKEY_encrypt_init"),
            encrypt: symbol!("EVP_PKEY_encrypt"),
            decrypt_init: symbol!("EVP_PKEY_decrypt_init"),
            decrypt: symbol!("EVP_PKEY_decrypt"),
        }
    })
}

/// OpenSSL's evppkey_sm2.txt key SM2_key1 (its PKCS#8 PEM's scalar and public point).
const KEY1_PRIVATE: &str = "D09156733017BDAD809FD9BBD8C693F60230593169B6F94AAF1C8EE138CC99B5";
const KEY1_PUBLIC: &str = "04393A2AD9E27E43ACAAAB85A19D3B85591E14406157175ADDD37BF77FF0CAF9ED\
     37FCF3A8B4F55C038523261FCA6636AFE6A7AFA2A1482A606F5CB3A18B2E2A1E";

fn sm2_key(private: bool, provider: &str) -> Key {
    let scalar = native_order(&unhex(KEY1_PRIVATE));
    // Kept alive while the parameters point to it.
    let public = unhex(KEY1_PUBLIC);
    let mut params = vec![utf8(c"group", c"SM2"), octets(c"pub", &public)];
    if private {
        params.push(bignum(c"priv", &scalar));
    }
    let selection = if private { KEYPAIR } else { PUBLIC_KEY };
    crypto()
        .keys
        .fromdata(c"SM2", &properties(provider), selection, &params)
        .unwrap_or_else(|e| panic!("{provider} SM2 key: {e}"))
}

/// Encrypts (`encrypts`) or decrypts `input` with `key` in its provider, `digest` set first
/// if given, into a buffer of the length the provider asks for (less `short` bytes).
fn crypt(
    key: &Key,
    encrypts: bool,
    digest: Option<&'static std::ffi::CStr>,
    input: &[u8],
    short: usize,
) -> Result<Vec<u8>, String> {
    let c = crypto();
    let properties = properties(&key.provider());
    let (init, run) = if encrypts {
        (c.encrypt_init, c.encrypt)
    } else {
        (c.decrypt_init, c.decrypt)
    };
    // SAFETY: libcrypto calls with live objects, NUL-terminated strings and valid buffers.
    unsafe {
        let ctx = (c.ctx_new_from_pkey)(c.keys.libctx(), key.0, properties.as_ptr());
        assert!(!ctx.is_null(), "EVP_PKEY_CTX_new_from_pkey");
        let result = (|| {
            if init(ctx) != 1 {
                return Err(format!("init: {}", c.keys.take_error()));
            }
            let provider = (c.ctx_get0_provider)(ctx);
            let name = std::ffi::CStr::from_ptr((c.provider_name)(provider));
            assert_eq!(
                name.to_str().unwrap(),
                key.provider(),
                "the key's provider runs it"
            );
            if let Some(digest) = digest {
                let params = [utf8(c"digest", digest), Param::END];
                if (c.ctx_set_params)(ctx, params.as_ptr()) != 1 {
                    return Err(format!("digest: {}", c.keys.take_error()));
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
                return Err(format!("length: {}", c.keys.take_error()));
            }
            len -= short.min(len);
            let mut out = vec![0u8; len];
            if run(ctx, out.as_mut_ptr(), &mut len, input.as_ptr(), input.len()) != 1 {
                return Err(c.keys.take_error());
            }
            out.truncate(len);
            Ok(out)
        })();
        (c.ctx_free)(ctx);
        result
    }
}

/// evppkey_sm2.txt's `Decrypt = SM2_key1` stanzas run by OpenSSL's own tests.
const DECRYPT_STANZAS: [(&str, &[u8]); 3] = [
    (
        "30818A0220466BE2EF5C11782EC77864A0055417F407A5AFC11D653C6BCE69E417BB1D05B6022062B572E21F\
         F0DDF5C726BD3F9FF2EAE56E6294713A607E9B9525628965F62CC804203C1B5713B5DB2728EB7BF775E44F46\
         89FC32668BDC564F52EA45B09E8DF2A5F40422084A9D0CC2997092B7D3C404FCE95956EB604D732B2307A8E5\
         B8900ED6608CA5B197",
        b"The floofy bunnies hop at midnight",
    ),
    // C1's y coordinate shorter than 32 bytes.
    (
        "3072022070DAD60CDA7C30D64CF4F278A849003581223F5324BFEC9BB329229BFFAD21A6021F18AFAB2B3545\
         9D2643243B242BE4EA80C6FA5071D2D847340CC57EB9309E5D04200B772E4DB664B2601E3B85E39C4AA8C2C1\
         910308BE13B331E009C5A9258C29FD040B6D588BE9260A94DA18E0E6",
        b"Hello World",
    ),
    // Both coordinates with a sign byte (33 bytes), and a longer message.
    (
        "3081DD022100CD49634BBCB21CAFFFA6D33669A5A867231CB2A942A14352EF4CAF6DC3344D54022100C35B41\
         D4DEBB3A2735EFEE821B9EBA566BD86900176A0C06672E30EE5CC04E930420C4190A3D80D86C4BD20E99F7E4\
         B59BF6427C6808793533EEA9591D1188EC56B50473747295470E81D951BED279AC1B86A1AFE388CD2833FA96\
         32799EC199C7D364E5663D5A94888BB2358CFCBF6283184DE0CBC41CCEA91D24746E99D231A1DA77AFD83CDF\
         908190ED628B7369724494568A27C782A1D1D7294BCAD80C34569ED22859896301128A8118F48924D8CCD43E\
         998D9533",
        b"Some longer plaintext for testing SM2 decryption. Blah blah blah blah blah blah blah \
          blah blah blah blah blah blah.",
    ),
];

#[test]
fn openssls_decrypt_stanzas_decrypt_and_a_changed_ciphertext_does_not() {
    let key = sm2_key(true, "regula");
    assert_eq!(key.provider(), "regula");
    for (ciphertext, plaintext) in DECRYPT_STANZAS {
        let ciphertext = unhex(ciphertext);
        assert_eq!(
            crypt(&key, false, None, &ciphertext, 0).as_deref(),
            Ok(plaintext)
        );
        assert_eq!(
            crypt(&key, false, Some(c"SM3"), &ciphertext, 0).as_deref(),
            Ok(plaintext)
        );
        // C3 (the hash) changed: refused, nothing released.
        let mut changed = ciphertext.clone();
        let last = changed.len() - plaintext.len() - 1;
        changed[last] ^= 1;
        assert!(crypt(&key, false, None, &changed, 0).is_err());
    }
    // evppkey_sm2.txt's "XOF disallowed", and any digest but SM3.
    let ciphertext = unhex(DECRYPT_STANZAS[0].0);
    for digest in [c"SHAKE128", c"SHA256"] {
        let refused = crypt(&key, false, Some(digest), &ciphertext, 0).unwrap_err();
        assert!(refused.contains("SM3 only"), "{refused}");
    }
}

#[test]
fn regula_and_openssls_default_provider_decrypt_each_others_ciphertexts() {
    let message = b"GB/T 32918.4 between two providers";
    let regula_public = sm2_key(false, "regula");
    let regula_private = sm2_key(true, "regula");
    let default_public = sm2_key(false, "default");
    let default_private = sm2_key(true, "default");
    let ours = crypt(&regula_public, true, None, message, 0).unwrap();
    assert_eq!(
        crypt(&default_private, false, None, &ours, 0).as_deref(),
        Ok(&message[..])
    );
    let theirs = crypt(&default_public, true, None, message, 0).unwrap();
    assert_eq!(
        crypt(&regula_private, false, None, &theirs, 0).as_deref(),
        Ok(&message[..])
    );
    // Fresh randomness each time.
    assert_ne!(crypt(&regula_public, true, None, message, 0).unwrap(), ours);
    // A buffer shorter than the message is refused, not overrun.
    let short = crypt(&regula_private, false, None, &theirs, theirs.len() - 10).unwrap_err();
    assert!(short.contains("buffer holds"), "{short}");
}
