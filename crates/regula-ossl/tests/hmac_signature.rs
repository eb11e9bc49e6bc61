//! HMAC as a signature (`EVP_PKEY_new_raw_private_key_ex(…, "HMAC", …)` and
//! `EVP_DigestSign*`), the way libssl computes TLS 1.3 PSK binders: RFC 4231 test case 2
//! through libcrypto with only Regula (and `base`) loaded, the key and the signature Regula's,
//! in pieces and with the length asked first; a digest the policy does not serve is refused
//! with the provider's reason; and a TLS 1.3 session resumed between `openssl s_server` and
//! `s_client` running on Regula's provider under the README's fips-140-3 configuration.

use std::ffi::{CStr, c_char, c_int};
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

mod common;

use common::Ptr;
use common::pkey::Keys;

struct Crypto {
    keys: Keys,
    new_raw_private_key:
        unsafe extern "C" fn(Ptr, *const c_char, *const c_char, *const u8, usize) -> Ptr,
    pkey_free: unsafe extern "C" fn(Ptr),
    get_provider: unsafe extern "C" fn(Ptr) -> Ptr,
    provider_name: unsafe extern "C" fn(Ptr) -> *const c_char,
    md_ctx_new: unsafe extern "C" fn() -> Ptr,
    md_ctx_free: unsafe extern "C" fn(Ptr),
    digest_sign_init: unsafe extern "C" fn(
        Ptr,
        *mut Ptr,
        *const c_char,
        Ptr,
        *const c_char,
        Ptr,
        *const regula_ossl::ffi::Param,
    ) -> c_int,
    digest_sign_update: unsafe extern "C" fn(Ptr, *const u8, usize) -> c_int,
    digest_sign_final: unsafe extern "C" fn(Ptr, *mut u8, *mut usize) -> c_int,
    pkey_ctx_provider: unsafe extern "C" fn(Ptr) -> Ptr,
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
        let dir = common::provider_dir("hmac-signature-test");
        // Only Regula and base: nothing else could answer.
        let libctx = common::libctx_with(library, &dir, &[c"regula", c"base"]);
        Crypto {
            keys: Keys::load(library, libctx),
            new_raw_private_key: symbol!("EVP_PKEY_new_raw_private_key_ex"),
            pkey_free: symbol!("EVP_PKEY_free"),
            get_provider: symbol!("EVP_PKEY_get0_provider"),
            provider_name: symbol!("OSSL_PROVIDER_get0_name"),
            md_ctx_new: symbol!("EVP_MD_CTX_new"),
            md_ctx_free: symbol!("EVP_MD_CTX_free"),
            digest_sign_init: symbol!("EVP_DigestSignInit_ex"),
            digest_sign_update: symbol!("EVP_DigestSignUpdate"),
            digest_sign_final: symbol!("EVP_DigestSignFinal"),
            pkey_ctx_provider: symbol!("EVP_PKEY_CTX_get0_provider"),
        }
    })
}

/// HMAC of `pieces` under `key` over `digest` through `EVP_DigestSign*`: the tag, or the
/// error queue's text. Checks that Regula holds the key and answers the signature.
fn hmac_sign(digest: &CStr, key: &[u8], pieces: &[&[u8]]) -> Result<Vec<u8>, String> {
    let c = crypto();
    // SAFETY: libcrypto calls with live objects and buffers of the sizes given.
    unsafe {
        let pkey = (c.new_raw_private_key)(
            c.keys.libctx(),
            c"HMAC".as_ptr(),
            c"provider=regula".as_ptr(),
            key.as_ptr(),
            key.len(),
        );
        if pkey.is_null() {
            return Err(c.keys.take_error());
        }
        let holder = CStr::from_ptr((c.provider_name)((c.get_provider)(pkey)));
        assert_eq!(holder, c"regula", "the HMAC key is Regula's");
        let md = (c.md_ctx_new)();
        let mut pctx: Ptr = std::ptr::null_mut();
        let result = (|| {
            if (c.digest_sign_init)(
                md,
                &mut pctx,
                digest.as_ptr(),
                c.keys.libctx(),
                c"provider=regula".as_ptr(),
                pkey,
                std::ptr::null(),
            ) != 1
            {
                return Err(c.keys.take_error());
            }
            let signer = CStr::from_ptr((c.provider_name)((c.pkey_ctx_provider)(pctx)));
            assert_eq!(signer, c"regula", "Regula answers the signature");
            for piece in pieces {
                if (c.digest_sign_update)(md, piece.as_ptr(), piece.len()) != 1 {
                    return Err(c.keys.take_error());
                }
            }
            let mut length = 0usize;
            if (c.digest_sign_final)(md, std::ptr::null_mut(), &mut length) != 1 {
                return Err(c.keys.take_error());
            }
            let mut tag = vec![0u8; length];
            if (c.digest_sign_final)(md, tag.as_mut_ptr(), &mut length) != 1 {
                return Err(c.keys.take_error());
            }
            tag.truncate(length);
            Ok(tag)
        })();
        (c.md_ctx_free)(md);
        (c.pkey_free)(pkey);
        result
    }
}

#[test]
fn rfc4231_test_case_2() {
    // RFC 4231 §4.3: key "Jefe", data "what do ya want for nothing?".
    let pieces: [&[u8]; 3] = [b"what do ya", b" want for no", b"thing?"];
    let sha256 = hmac_sign(c"SHA256", b"Jefe", &pieces).expect("HMAC-SHA-256");
    assert_eq!(
        sha256,
        common::unhex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    );
    let sha384 = hmac_sign(c"SHA384", b"Jefe", &pieces).expect("HMAC-SHA-384");
    assert_eq!(
        sha384,
        common::unhex(
            "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e\
             8e2240ca5e69e2c78b3239ecfab21649"
        )
    );
}

#[test]
fn a_digest_regula_does_not_serve_is_refused_with_its_reason() {
    let error = hmac_sign(c"SHA512-224", b"Jefe", &[b"data"]).expect_err("refused");
    assert!(error.contains("not served by Regula"), "{error}");
}

/// The README's fips-140-3 `openssl.cnf` (regula and base only, `default_properties =
/// fips=yes`), its module path pointing at this build.
fn fips_config(dir: &std::path::Path) -> std::path::PathBuf {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    let block = readme
        .split("<!-- openssl-cnf-fips:begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- openssl-cnf-fips:end -->").next())
        .expect("README's openssl-cnf-fips block");
    let text: String = block
        .lines()
        .filter(|line| !line.starts_with("```") && !line.starts_with("cbom ="))
        .map(|line| {
            if line.starts_with("module =") {
                format!("module = {}\n", dir.join("regula.so").display())
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    assert!(text.contains("policy = fips-140-3"), "{text}");
    let path = dir.join("fips.cnf");
    std::fs::write(&path, text).expect("configuration");
    path
}

#[test]
fn tls13_sessions_resume_on_regula_under_fips() {
    let dir = common::provider_dir("hmac-resumption-test");
    let config = fips_config(&dir);
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
        ])
        .args(["-nodes", "-days", "2", "-subj", "/CN=localhost", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .env_remove("OPENSSL_CONF")
        .output()
        .expect("the system's openssl program");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let openssl = |args: &[&str]| {
        let mut command = Command::new("timeout");
        command
            .arg("30")
            .arg("openssl")
            .args(args)
            .env("OPENSSL_CONF", &config)
            .env_remove("OPENSSL_MODULES");
        command
    };
    let mut server = openssl(&["s_server", "-naccept", "2", "-tls1_3", "-num_tickets", "1"])
        .args(["-accept", &format!("127.0.0.1:{port}"), "-cert"])
        .arg(&cert)
        .arg("-key")
        .arg(&key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("openssl s_server");
    let mut server_out = std::io::BufReader::new(server.stdout.take().unwrap());
    let mut server_text = String::new();
    while !server_text.contains("ACCEPT") {
        let read = server_out.read_line(&mut server_text).unwrap();
        assert!(read > 0, "s_server ended before listening: {server_text}");
    }
    let session = dir.join("session.pem");
    let connect = |session_option: &str| {
        let mut client = openssl(&["s_client", "-tls1_3", "-verify_return_error"])
            .args(["-connect", &format!("127.0.0.1:{port}"), session_option])
            .arg(&session)
            .arg("-CAfile")
            .arg(&cert)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("openssl s_client");
        // The end of its input ends the connection, once the ticket has had time to arrive.
        std::thread::sleep(std::time::Duration::from_millis(700));
        drop(client.stdin.take());
        let output = client.wait_with_output().unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let first = connect("-sess_out");
    assert!(first.contains("New, TLSv1.3"), "first handshake: {first}");
    let second = connect("-sess_in");
    let _ = server.stdin.take();
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        second.contains("Reused, TLSv1.3"),
        "the session was not resumed: {second}"
    );
}
