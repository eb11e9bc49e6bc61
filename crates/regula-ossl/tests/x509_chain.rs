//! Certificate chains verified through libcrypto with only `regula` and `base` loaded under
//! fips-140-3 (the README's configuration): `base` decodes the certificates' keys and imports
//! them into Regula's EC key manager, Regula verifies the ECDSA signatures. This is what nginx,
//! curl and Python's `ssl` do with a CA file.
//!
//! The chain (a P-256 CA and a server certificate it signed, ecdsa-with-SHA256) was made by
//! OpenSSL 3.0.19's default provider and verifies there (`openssl verify -CAfile`):
//!   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=Regula test CA"
//!     -days 36500 -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
//!   openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost
//!   openssl x509 -req -CA ca.pem -CAkey ca.key -set_serial 2 -days 36500 -extfile ext.cnf
//!     (subjectAltName=IP:127.0.0.1,DNS:localhost, extendedKeyUsage=serverAuth, CA:FALSE)
//! The test also verifies it with OpenSSL's default provider alone, as the independent answer.

use std::ffi::{CStr, CString, c_char, c_int, c_long, c_void};

use regula_ossl::ffi::{PARAM_INTEGER, Param};

mod common;

use common::{Ptr, unhex};

const CA: &str = "308201773082011ea00302010202144665a6eb91f8d211fa895043c5b7a69d05fcf5d4300a06082a8648ce3d04030230
193117301506035504030c0e526567756c6120746573742043413020170d3236313132383133323831385a180f323132
36313130343133323831385a30193117301506035504030c0e526567756c6120746573742043413059301306072a8648
ce3d020106082a8648ce3d03010703420004903a6b6f7bf0e5b6d6b373ea7cf87a4bee3dd61260bf5304032dca3c88c9
02b2ba9c683ce4aa6913ae974f20520bb68a57914c57af86bf3878be390325eb35eea3423040300f0603551d130101ff
040530030101ff300e0603551d0f0101ff040403020204301d0603551d0e0416041430366aab53d76b0ca19128ca54b1
46729e4cab22300a06082a8648ce3d0403020347003044022027c86a285687b5729abd371616f42a6cfacf2f6acba451
5a782374b6c637fd4a0220172b1c8569a013d0f19f0bb0b6bd51482412e97257aa7c03efc3e98c3e9ed7cf";

const LEAF: &str = "308201a030820146a003020102020102300a06082a8648ce3d04030230193117301506035504030c0e526567756c6120
746573742043413020170d3236313132383133323831385a180f32313236313130343133323831385a30143112301006
035504030c096c6f63616c686f73743059301306072a8648ce3d020106082a8648ce3d03010703420004ace5f137be9e
208718e3383e2be3af96e26b2c131bf488d5a22cc4eaae4292cc9aa8d07e43b95520878fa498d53c5fdf974d764a76b6
8f09dab86ab503f1e31ba38181307f301a0603551d110413301187047f00000182096c6f63616c686f73743013060355
1d25040c300a06082b06010505070301300c0603551d130101ff04023000301d0603551d0e041604142c13b73461aff9
273849fc2e345e949da42653e7301f0603551d2304183016801430366aab53d76b0ca19128ca54b146729e4cab22300a
06082a8648ce3d040302034800304502206e342d23136fcc8441f1787cda8cb6e06042912d5724f9b2a2d255936a44d6
96022100c14d65b88a20e5cfd7e00835195e7d65c52b6b150e099f5cd6bba2352189557f";

/// The verification time: 2030-01-01T00:00:00Z, inside both certificates' validity, so the
/// answer does not depend on the machine's clock.
const AT: i64 = 1_893_456_000;

/// X509_V_OK and X509_V_ERR_CERT_SIGNATURE_FAILURE (x509_vfy.h).
const V_OK: c_int = 0;
const V_ERR_CERT_SIGNATURE_FAILURE: c_int = 7;

struct Crypto {
    library: &'static libloading::Library,
}

impl Crypto {
    fn load() -> Crypto {
        let path = std::env::var("REGULA_TEST_LIBCRYPTO").unwrap_or("libcrypto.so.3".into());
        Crypto {
            library: common::libcrypto(&path),
        }
    }

    fn symbol<T: Copy>(&self, name: &str) -> T {
        let name = CString::new(name).unwrap();
        // SAFETY: the caller names a libcrypto function and gives its signature as `T`.
        unsafe { *self.library.get::<T>(name.as_bytes_with_nul()).unwrap() }
    }

    /// A library context loaded from a configuration file: Regula under fips-140-3 with
    /// `base` and `default_properties = fips=yes`, as the README gives it; `test` names the
    /// directory of its own that each test writes its configuration into (tests run at once).
    fn regula_and_base(&self, test: &str) -> Ptr {
        let dir = common::provider_dir(test);
        let config = dir.join("openssl-fips.cnf");
        std::fs::write(
            &config,
            format!(
                "openssl_conf = openssl_init\n\
                 [openssl_init]\nproviders = provider_sect\nalg_section = algorithm_sect\n\
                 [provider_sect]\nregula = regula_sect\nbase = base_sect\n\
                 [regula_sect]\nmodule = {}\npolicy = fips-140-3\nactivate = 1\n\
                 [base_sect]\nactivate = 1\n\
                 [algorithm_sect]\ndefault_properties = fips=yes\n",
                dir.join("regula.so").display()
            ),
        )
        .expect("configuration file");
        let path = CString::new(config.to_str().expect("UTF-8 path")).unwrap();
        let libctx_new: unsafe extern "C" fn() -> Ptr = self.symbol("OSSL_LIB_CTX_new");
        let load_config: unsafe extern "C" fn(Ptr, *const c_char) -> c_int =
            self.symbol("OSSL_LIB_CTX_load_config");
        // SAFETY: a fresh library context and a NUL-terminated path.
        unsafe {
            let libctx = libctx_new();
            assert!(!libctx.is_null());
            assert_eq!(load_config(libctx, path.as_ptr()), 1);
            libctx
        }
    }

    /// A library context with OpenSSL's default provider alone: the independent verifier.
    fn default_only(&self) -> Ptr {
        let dir = common::provider_dir("x509-chain-default");
        common::libctx_with(self.library, &dir, &[c"default"])
    }

    /// A certificate of `libctx` decoded from DER (its key decoded and imported there).
    fn certificate(&self, libctx: Ptr, der: &[u8]) -> Ptr {
        let new_ex: unsafe extern "C" fn(Ptr, *const c_char) -> Ptr = self.symbol("X509_new_ex");
        let d2i: unsafe extern "C" fn(*mut Ptr, *mut *const u8, c_long) -> Ptr =
            self.symbol("d2i_X509");
        // SAFETY: a new X509 of this library context, filled from `der` (length given).
        unsafe {
            let mut x509 = new_ex(libctx, std::ptr::null());
            assert!(!x509.is_null());
            let mut cursor = der.as_ptr();
            assert!(!d2i(&mut x509, &mut cursor, der.len() as c_long).is_null());
            x509
        }
    }

    /// X509_verify_cert of `leaf` against `ca` as the only trust anchor, at [`AT`]: its
    /// result and the context's error code.
    fn verify(&self, libctx: Ptr, ca: &[u8], leaf: &[u8]) -> (c_int, c_int) {
        let store_new: unsafe extern "C" fn() -> Ptr = self.symbol("X509_STORE_new");
        let add_cert: unsafe extern "C" fn(Ptr, Ptr) -> c_int = self.symbol("X509_STORE_add_cert");
        let ctx_new: unsafe extern "C" fn(Ptr, *const c_char) -> Ptr =
            self.symbol("X509_STORE_CTX_new_ex");
        let ctx_init: unsafe extern "C" fn(Ptr, Ptr, Ptr, Ptr) -> c_int =
            self.symbol("X509_STORE_CTX_init");
        let set_time: unsafe extern "C" fn(Ptr, std::ffi::c_ulong, i64) =
            self.symbol("X509_STORE_CTX_set_time");
        let verify_cert: unsafe extern "C" fn(Ptr) -> c_int = self.symbol("X509_verify_cert");
        let get_error: unsafe extern "C" fn(Ptr) -> c_int = self.symbol("X509_STORE_CTX_get_error");
        let ctx_free: unsafe extern "C" fn(Ptr) = self.symbol("X509_STORE_CTX_free");
        let store_free: unsafe extern "C" fn(Ptr) = self.symbol("X509_STORE_free");
        let x509_free: unsafe extern "C" fn(Ptr) = self.symbol("X509_free");
        let (ca, leaf) = (self.certificate(libctx, ca), self.certificate(libctx, leaf));
        // SAFETY: libcrypto's X509 store functions on objects made above, freed once.
        unsafe {
            let store = store_new();
            assert_eq!(add_cert(store, ca), 1);
            let ctx = ctx_new(libctx, std::ptr::null());
            assert_eq!(ctx_init(ctx, store, leaf, std::ptr::null_mut()), 1);
            set_time(ctx, 0, AT);
            let result = verify_cert(ctx);
            let error = get_error(ctx);
            ctx_free(ctx);
            store_free(store);
            x509_free(leaf);
            x509_free(ca);
            (result, error)
        }
    }
}

/// An RSA-2048 chain (sha256WithRSAEncryption), made by OpenSSL 3.0.19's default provider
/// (`openssl verify -CAfile` accepts it) with the commands above but `-newkey rsa:2048`.
const RSA_CA: &str = "3082032d30820215a00302010202145e89a51504daae4c76d2b20253a49f5e231ef25f300d06092a864886f70d01010b
0500301d311b301906035504030c12526567756c612052534120746573742043413020170d3236313132383133353034
395a180f32313236313130343133353034395a301d311b301906035504030c12526567756c6120525341207465737420
434130820122300d06092a864886f70d01010105000382010f003082010a0282010100baaf9fa12182e253592233aa50
7e80a05c048dc2c5f3414b4542b32e260d1bd3a272030741d8a1b08864fc948ed658431a1ec8c0806b96ec1f10faf03d
b3679c396254b6f8f8b4f01d0b4da39c8b09d10c4e77a4a73a7c2f8bbcf012645d678c8117b0c0db4433f064149a207e
4ea58a0641f55f57c9356d5d274bac61ed9ad7b65dcd05d817392ae895eb98049d9bb5d498ffe1899418e7310ccdad67
d490514e72aa718c813729ad4c0801b3b5ae16d518ca4388831f0e2b3699f12ab4255ee01f85eb6c1891bb49a9119dae
07f42d3d79abf0927c795b9b6bad73a946332fdd3cc4ab6083dd8f35a9397a487b3c81b54679544776e5e0cbdc06d6be
d9d5b90203010001a3633061301d0603551d0e04160414c3c76da520cd7d174a3b2777ca01af249a0c32b0301f060355
1d23041830168014c3c76da520cd7d174a3b2777ca01af249a0c32b0300f0603551d130101ff040530030101ff300e06
03551d0f0101ff040403020204300d06092a864886f70d01010b050003820101006616a4ca03a9d39d67989de370fedc
1534815bf48c0a354fbebd021b98e7f803d408d0ee91e27e09b64b6cd707990799b886b290bd13caa42056bcec2b8ba4
329e7ea8629000bd9f36437b290f5095d7b08e334d0ea056cb49e1ec10bbc2ad68878db2ac873e5958a30920eb08746b
e3154b0b527f87250c7906b69b78be21ae58067411d8c1fc4312a9e7160d4b7a89cfa83c77c2941fb56f1db12758bf11
ce0cb1f1a83378367a6dbbc85746f0a7d4baa6986230fd55474dcdafa316988f4d3591a0c9f0bac24043d30f8f23662e
1bc0939de745fee15170a2c332f7459d4277721d66dbdc97d74fc9c4fbca8558a1dfd464562ae9bb41e32e18f6db6a7b
ba";

const RSA_LEAF: &str = "3082032c30820214a003020102020102300d06092a864886f70d01010b0500301d311b301906035504030c1252656775
6c612052534120746573742043413020170d3236313132383133353035305a180f32313236313130343133353035305a
30143112301006035504030c096c6f63616c686f737430820122300d06092a864886f70d01010105000382010f003082
010a02820101008d499b40534fa4e28f60b5eb53b73be8b579d8d100184e7f9348c32459ebf736f0b7c6796573374903
8fb06bc1febac31290db24b272bdb36e1779209554399f9fb2abbc4406964aa1b8beb07989955a91b5e56c0d79d54c3a
d9a31d87dffb3b070300e7610c37d4066fbc29141513ada3e5224119787f319b0518a415e0eeb643d46750ed54ebe084
84ad159edba91d62334efdab9f466871eb1bf72d83960faa16beff790f9867c453799257afca834c3a75c5988ff88b43
8bdf1e7b981d7c75840a182d04bf16df32caa3a5b11e63a521f4d4fa38a56dd137ed99f0d681e8e82e48b831a53328e7
bba5457bd545218ee72e45ee5960042f80d96897d9d9a70203010001a37e307c301a0603551d110413301187047f0000
0182096c6f63616c686f737430130603551d25040c300a06082b0601050507030130090603551d1304023000301d0603
551d0e04160414ee2aa400efec5d0ffca0509b3dd2bf3eaed10dfe301f0603551d23041830168014c3c76da520cd7d17
4a3b2777ca01af249a0c32b0300d06092a864886f70d01010b05000382010100993887f2436990d5db8da5fc745790e5
def291f0a2fdc2c386721e654f0b46015f7378fd23ff20952ffd308a11c88a7eab742b5135293c4e587d6540c70db96f
bc707958d8e9a25004427dce98ea1bc7bee44c4e783fdcfe8a1d4739bb5b2b15fcf46eed8cc9b90122478069fd0d622c
4009be87fae96459cfed5cf4c08f88c49b6b4e95048be504c0c544c3ebace76a38b7166cd2fe2eb7f54fdf69ca912114
aa0c5dd22a6ab593b3b633f8516abe2062990fbaa6b61c21d1d680fb8d5b95fac9b4b8e7ce630e2dcd590a75e9da3cc4
7853f5534757a5189055bc84349759f9e1f774345c2386bb9da2954abc016870fa5dd32a5cac1b07134afd6eafd4fa38";

/// The leaf with one bit of its signature's `s` flipped (the DER's last byte).
fn tampered_leaf() -> Vec<u8> {
    let mut leaf = unhex(LEAF);
    *leaf.last_mut().unwrap() ^= 1;
    leaf
}

#[test]
fn regula_and_base_verify_an_ecdsa_p256_chain() {
    let crypto = Crypto::load();
    let reference = crypto.default_only();
    assert_eq!(
        crypto.verify(reference, &unhex(CA), &unhex(LEAF)),
        (1, V_OK),
        "OpenSSL's default provider verifies the chain"
    );
    let libctx = crypto.regula_and_base("x509-chain-verify");
    assert_eq!(
        crypto.verify(libctx, &unhex(CA), &unhex(LEAF)),
        (1, V_OK),
        "regula and base verify the chain"
    );
    // The signature is checked, not skipped: one flipped bit fails it, at both.
    assert_eq!(
        crypto.verify(reference, &unhex(CA), &tampered_leaf()),
        (0, V_ERR_CERT_SIGNATURE_FAILURE)
    );
    assert_eq!(
        crypto.verify(libctx, &unhex(CA), &tampered_leaf()),
        (0, V_ERR_CERT_SIGNATURE_FAILURE)
    );
}

/// `base` decodes the RSA keys and imports them into Regula's RSA key manager (n and e);
/// Regula verifies the PKCS#1 v1.5 SHA-256 signatures under fips-140-3.
#[test]
fn regula_and_base_verify_an_rsa_chain() {
    let crypto = Crypto::load();
    let (ca, leaf) = (unhex(RSA_CA), unhex(RSA_LEAF));
    let mut tampered = leaf.clone();
    *tampered.last_mut().unwrap() ^= 1;
    let reference = crypto.default_only();
    assert_eq!(crypto.verify(reference, &ca, &leaf), (1, V_OK));
    let libctx = crypto.regula_and_base("x509-chain-rsa");
    assert_eq!(
        crypto.verify(libctx, &ca, &leaf),
        (1, V_OK),
        "regula and base verify the RSA chain"
    );
    assert_eq!(
        crypto.verify(reference, &ca, &tampered),
        (0, V_ERR_CERT_SIGNATURE_FAILURE)
    );
    assert_eq!(
        crypto.verify(libctx, &ca, &tampered),
        (0, V_ERR_CERT_SIGNATURE_FAILURE)
    );
}

/// Certificate verification asks every EC key in a chain whether it was decoded from explicit
/// curve parameters (`decoded-from-explicit`, x509_vfy.c's check_curve) and fails the chain
/// with "unspecified certificate verification error" when the key manager does not answer.
#[test]
fn ec_keys_answer_decoded_from_explicit() {
    let crypto = Crypto::load();
    let libctx = crypto.regula_and_base("x509-chain-explicit");
    let ca = crypto.certificate(libctx, &unhex(CA));
    let get0_pubkey: unsafe extern "C" fn(Ptr) -> Ptr = crypto.symbol("X509_get0_pubkey");
    let get_params: unsafe extern "C" fn(Ptr, *mut Param) -> c_int =
        crypto.symbol("EVP_PKEY_get_params");
    let get0_provider: unsafe extern "C" fn(Ptr) -> Ptr = crypto.symbol("EVP_PKEY_get0_provider");
    let provider_name: unsafe extern "C" fn(Ptr) -> *const c_char =
        crypto.symbol("OSSL_PROVIDER_get0_name");
    let x509_free: unsafe extern "C" fn(Ptr) = crypto.symbol("X509_free");
    let mut explicit: c_int = -1;
    let mut params = [
        Param {
            key: c"decoded-from-explicit".as_ptr(),
            data_type: PARAM_INTEGER,
            data: (&mut explicit as *mut c_int).cast::<c_void>(),
            data_size: size_of::<c_int>(),
            return_size: usize::MAX,
        },
        Param::END,
    ];
    // SAFETY: the certificate's key (owned by the certificate) and a terminated array whose
    // data outlives the call.
    unsafe {
        let key = get0_pubkey(ca);
        assert!(!key.is_null());
        let provider = CStr::from_ptr(provider_name(get0_provider(key)));
        assert_eq!(provider.to_str().unwrap(), "regula", "the key is Regula's");
        assert_eq!(get_params(key, params.as_mut_ptr()), 1);
        x509_free(ca);
    }
    assert_ne!(
        params[0].return_size,
        usize::MAX,
        "the parameter is answered"
    );
    assert_eq!(explicit, 0, "a named curve, never explicit parameters");
}
