//! The provider's signatures (KEYMGMT "EC" and "ED25519", SIGNATURE "ECDSA" and "ED25519")
//! driven through the system's libcrypto (or OpenSSL 3.5's, named by REGULA_TEST_LIBCRYPTO),
//! loaded with `libloading`: signatures made by Regula verified by OpenSSL's default provider
//! in the same process and the reverse, and published known answers: RFC 8032 §7.1 TEST 1 and
//! TEST 2 (Ed25519 is deterministic: the signature itself), NIST CAVP FIPS 186-3 `SigVer.rsp`
//! [P-256,SHA-256] (every case: 3 to accept, 12 to refuse) and `KeyPair.rsp` (a P-256 and a
//! P-384 key pair, imported with `priv` and signing). A tampered message or signature, a key of
//! another type, a digest the row does not take and ECDSA over a caller's digest are refused,
//! with the provider's reason on the error queue.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;

use regula_ossl::ffi::{PARAM_OCTET_STRING, Param};

mod common;

use common::pkey::{Key, Keys, properties};
use common::{Ptr, bignum, native_order, octets, unhex, utf8};

// EVP_PKEY_* selections.
const PUBLIC_KEY: c_int = 0x02 | 0x84;
const KEYPAIR: c_int = 0x03 | 0x84;

struct Crypto {
    keys: Keys,
    ctx_new_from_pkey: unsafe extern "C" fn(Ptr, Ptr, *const c_char) -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    sign_init: unsafe extern "C" fn(Ptr) -> c_int,
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
    digest_sign_update: unsafe extern "C" fn(Ptr, *const u8, usize) -> c_int,
    digest_sign_final: unsafe extern "C" fn(Ptr, *mut u8, *mut usize) -> c_int,
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
    digest_verify_update: unsafe extern "C" fn(Ptr, *const u8, usize) -> c_int,
    digest_verify_final: unsafe extern "C" fn(Ptr, *const u8, usize) -> c_int,
    digest_verify: unsafe extern "C" fn(Ptr, *const u8, usize, *const u8, usize) -> c_int,
    ctx_get_params: unsafe extern "C" fn(Ptr, *mut Param) -> c_int,
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
        let dir = common::provider_dir("signature-test");
        // OpenSSL's default provider is the peer that verifies Regula's signatures and signs
        // for Regula to verify.
        let libctx = common::libctx_with(library, &dir, &[c"regula", c"default"]);
        Crypto {
            keys: Keys::load(library, libctx),
            ctx_new_from_pkey: symbol!("EVP_PKEY_CTX_new_from_pkey"),
            ctx_free: symbol!("EVP_PKEY_CTX_free"),
            sign_init: symbol!("EVP_PKEY_sign_init"),
            md_ctx_new: symbol!("EVP_MD_CTX_new"),
            md_ctx_free: symbol!("EVP_MD_CTX_free"),
            digest_sign_init: symbol!("EVP_DigestSignInit_ex"),
            digest_sign_update: symbol!("EVP_DigestSignUpdate"),
            digest_sign_final: symbol!("EVP_DigestSignFinal"),
            digest_sign: symbol!("EVP_DigestSign"),
            digest_verify_init: symbol!("EVP_DigestVerifyInit_ex"),
            digest_verify_update: symbol!("EVP_DigestVerifyUpdate"),
            digest_verify_final: symbol!("EVP_DigestVerifyFinal"),
            digest_verify: symbol!("EVP_DigestVerify"),
            ctx_get_params: symbol!("EVP_PKEY_CTX_get_params"),
        }
    })
}

/// The key harness, over this test's library context.
fn keys() -> &'static Keys {
    &crypto().keys
}

fn libctx() -> Ptr {
    keys().libctx()
}

/// The first error on this thread's queue as "reason text | provider's message", then clears
/// it ("" when a failure left nothing on the queue).
fn take_error() -> String {
    keys().take_error()
}

/// A key pair of `algorithm` ("EC" with a group, or "ED25519") from the provider `properties`
/// selects.
fn generate(algorithm: &CStr, group: Option<&'static CStr>, properties: &CStr) -> Key {
    let params: Vec<Param> = group
        .map(|group| utf8(c"group", group))
        .into_iter()
        .collect();
    keys()
        .generate(algorithm, properties, &params)
        .unwrap_or_else(|e| panic!("generate {algorithm:?} {group:?}: {e}"))
}

impl Key {
    /// A public key of `kind` on `provider` ("regula" or "default").
    fn public(kind: Kind, public: &[u8], provider: &str) -> Key {
        let mut params = vec![octets(c"pub", public)];
        if let Some(group) = kind.group {
            params.push(utf8(c"group", group));
        }
        keys()
            .fromdata(kind.algorithm, &properties(provider), PUBLIC_KEY, &params)
            .unwrap_or_else(|e| panic!("{provider} public key of {:?}: {e}", kind.algorithm))
    }

    /// An `EVP_MD_CTX` initialised to digest-sign (`sign`) or digest-verify with `digest` (or
    /// none), fetched from the key's own provider, and its `EVP_PKEY_CTX`.
    fn init(&self, sign: bool, digest: Option<&CStr>) -> Result<(MdCtx, Ptr), String> {
        let c = crypto();
        let properties = properties(&self.provider());
        // SAFETY: libcrypto calls with live objects and NUL-terminated strings (or null).
        unsafe {
            let md = MdCtx((c.md_ctx_new)());
            let mut pctx = std::ptr::null_mut();
            let digest = digest.map_or(std::ptr::null(), |d| d.as_ptr());
            let init = if sign {
                c.digest_sign_init
            } else {
                c.digest_verify_init
            };
            let ok = init(
                md.0,
                &mut pctx,
                digest,
                libctx(),
                properties.as_ptr(),
                self.0,
                std::ptr::null(),
            );
            if ok == 1 {
                Ok((md, pctx))
            } else {
                Err(take_error())
            }
        }
    }

    /// `EVP_DigestSign` of `message` (the size asked first, as libssl does), or the error.
    fn sign(&self, digest: Option<&CStr>, message: &[u8]) -> Result<Vec<u8>, String> {
        let c = crypto();
        let (md, _) = self.init(true, digest)?;
        // SAFETY: a live context and buffers of the sizes given.
        unsafe {
            let mut len = 0usize;
            if (c.digest_sign)(
                md.0,
                std::ptr::null_mut(),
                &mut len,
                message.as_ptr(),
                message.len(),
            ) != 1
            {
                return Err(take_error());
            }
            let mut signature = vec![0u8; len];
            if (c.digest_sign)(
                md.0,
                signature.as_mut_ptr(),
                &mut len,
                message.as_ptr(),
                message.len(),
            ) != 1
            {
                return Err(take_error());
            }
            signature.truncate(len);
            Ok(signature)
        }
    }

    /// The same through `EVP_DigestSignUpdate` in pieces and `EVP_DigestSignFinal` (which
    /// duplicates the context to sign).
    fn sign_in_pieces(&self, digest: &CStr, message: &[u8]) -> Result<Vec<u8>, String> {
        let c = crypto();
        let (md, _) = self.init(true, Some(digest))?;
        // SAFETY: a live context and buffers of the sizes given.
        unsafe {
            for piece in message.chunks(7) {
                if (c.digest_sign_update)(md.0, piece.as_ptr(), piece.len()) != 1 {
                    return Err(take_error());
                }
            }
            let mut len = 0usize;
            if (c.digest_sign_final)(md.0, std::ptr::null_mut(), &mut len) != 1 {
                return Err(take_error());
            }
            let mut signature = vec![0u8; len];
            if (c.digest_sign_final)(md.0, signature.as_mut_ptr(), &mut len) != 1 {
                return Err(take_error());
            }
            signature.truncate(len);
            Ok(signature)
        }
    }

    /// Whether `signature` verifies over `message` (`EVP_DigestVerify`); the error when not.
    fn verify(
        &self,
        digest: Option<&CStr>,
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), String> {
        let c = crypto();
        let (md, _) = self.init(false, digest)?;
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

    fn verify_in_pieces(
        &self,
        digest: &CStr,
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), String> {
        let c = crypto();
        let (md, _) = self.init(false, Some(digest))?;
        // SAFETY: a live context and the buffers given.
        let ok = unsafe {
            for piece in message.chunks(5) {
                if (c.digest_verify_update)(md.0, piece.as_ptr(), piece.len()) != 1 {
                    return Err(take_error());
                }
            }
            (c.digest_verify_final)(md.0, signature.as_ptr(), signature.len())
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

/// A key type and group, and the digest its ECDSA row takes.
#[derive(Clone, Copy, Debug)]
struct Kind {
    algorithm: &'static CStr,
    group: Option<&'static CStr>,
    digest: Option<&'static CStr>,
}

const P256: Kind = Kind {
    algorithm: c"EC",
    group: Some(c"P-256"),
    digest: Some(c"SHA256"),
};
const P384: Kind = Kind {
    algorithm: c"EC",
    group: Some(c"P-384"),
    digest: Some(c"SHA2-384"),
};
const P521: Kind = Kind {
    algorithm: c"EC",
    group: Some(c"P-521"),
    digest: Some(c"SHA2-512"),
};
const ED25519: Kind = Kind {
    algorithm: c"ED25519",
    group: None,
    digest: None,
};

const MESSAGE: &[u8] = b"The quick brown fox jumps over the lazy dog, signed by Regula.";

#[test]
fn regula_signs_and_openssl_verifies() {
    for kind in [P256, P384, P521, ED25519] {
        let ours = generate(kind.algorithm, kind.group, c"provider=regula");
        assert_eq!(ours.provider(), "regula");
        let signature = ours.sign(kind.digest, MESSAGE).expect("Regula signs");
        let theirs = Key::public(kind, &ours.public_bytes(), "default");
        assert_eq!(theirs.provider(), "default");
        theirs
            .verify(kind.digest, MESSAGE, &signature)
            .unwrap_or_else(|e| panic!("{kind:?}: OpenSSL verifies Regula's signature: {e}"));
        // Regula's own verification agrees, and refuses a tampered message and signature.
        ours.verify(kind.digest, MESSAGE, &signature)
            .expect("Regula verifies its own");
        let mut tampered = MESSAGE.to_vec();
        tampered[3] ^= 1;
        assert!(
            ours.verify(kind.digest, &tampered, &signature).is_err(),
            "{kind:?}"
        );
        assert!(
            theirs.verify(kind.digest, &tampered, &signature).is_err(),
            "{kind:?}"
        );
        let mut bad = signature.clone();
        let last = bad.len() - 1;
        bad[last] ^= 0x40;
        assert!(ours.verify(kind.digest, MESSAGE, &bad).is_err(), "{kind:?}");
        assert!(
            theirs.verify(kind.digest, MESSAGE, &bad).is_err(),
            "{kind:?}"
        );
        if kind.algorithm == c"EC" {
            // DER SEQUENCE { r, s }, as OpenSSL's.
            assert_eq!(signature[0], 0x30, "{kind:?}");
            // P-521's are longer than 127 bytes: the length in a second byte.
            let (header, body) = match signature[1] {
                0x81 => (3, usize::from(signature[2])),
                short => (2, usize::from(short)),
            };
            assert_eq!(header + body, signature.len(), "{kind:?}");
        } else {
            assert_eq!(signature.len(), 64);
        }
    }
}

#[test]
fn openssl_signs_and_regula_verifies() {
    for kind in [P256, P384, P521, ED25519] {
        let theirs = generate(kind.algorithm, kind.group, c"provider=default");
        let signature = theirs.sign(kind.digest, MESSAGE).expect("OpenSSL signs");
        let ours = Key::public(kind, &theirs.public_bytes(), "regula");
        ours.verify(kind.digest, MESSAGE, &signature)
            .unwrap_or_else(|e| panic!("{kind:?}: Regula verifies OpenSSL's signature: {e}"));
        assert!(
            ours.verify(kind.digest, b"another message", &signature)
                .is_err()
        );
    }
}

#[test]
fn ecdsa_in_pieces_through_digest_sign_final() {
    for kind in [P256, P384, P521] {
        let ours = generate(kind.algorithm, kind.group, c"provider=regula");
        let digest = kind.digest.unwrap();
        let signature = ours
            .sign_in_pieces(digest, MESSAGE)
            .expect("signs in pieces");
        let theirs = Key::public(kind, &ours.public_bytes(), "default");
        theirs
            .verify(Some(digest), MESSAGE, &signature)
            .expect("OpenSSL verifies");
        ours.verify_in_pieces(digest, MESSAGE, &signature)
            .expect("Regula verifies in pieces");
        assert!(
            ours.verify_in_pieces(digest, &MESSAGE[1..], &signature)
                .is_err()
        );
    }
}

/// RFC 8032 §7.1 TEST 1 (the empty message) and TEST 2 (one byte, 0x72): (secret key, public
/// key, message, signature). Ed25519 is deterministic, so the signature itself is the answer.
const RFC8032: [(&str, &str, &str, &str); 2] = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
];

#[test]
fn ed25519_rfc8032_known_answers() {
    for (secret, public, message, expected) in RFC8032 {
        let (secret, public, message, expected) = (
            unhex(secret),
            unhex(public),
            unhex(message),
            unhex(expected),
        );
        // The private key alone: the provider derives the public key.
        let key = keys()
            .fromdata(
                c"ED25519",
                c"provider=regula",
                KEYPAIR,
                &[octets(c"priv", &secret)],
            )
            .expect("Ed25519 private key imported");
        assert_eq!(key.public_bytes(), public, "the public key of RFC 8032");
        assert_eq!(
            key.sign(None, &message).expect("signs"),
            expected,
            "RFC 8032 signature"
        );
        let verifier = Key::public(ED25519, &public, "regula");
        verifier
            .verify(None, &message, &expected)
            .expect("the RFC's signature verifies");
        let mut bad = expected.clone();
        bad[0] ^= 1;
        assert!(verifier.verify(None, &message, &bad).is_err());
        // A private key with another key's public key is refused.
        let wrong_public = unhex(RFC8032[0].1);
        if wrong_public != public {
            let refused = keys().fromdata(
                c"ED25519",
                c"provider=regula",
                KEYPAIR,
                &[octets(c"priv", &secret), octets(c"pub", &wrong_public)],
            );
            assert!(
                refused
                    .err()
                    .is_some_and(|e| e.contains("not the private key's"))
            );
        }
    }
}

/// NIST CAVP FIPS 186-3 ECDSA `SigVer.rsp`, section [P-256,SHA-256], every case as published
/// (from PyPI `cryptography-vectors` 50.0.2, asymmetric/ECDSA/FIPS_186-3/SigVer.rsp).
const SIGVER_P256_SHA256: &str = "
Msg = e4796db5f785f207aa30d311693b3702821dff1168fd2e04c0836825aefd850d9aa60326d88cde1a23c7745351392ca2288d632c264f197d05cd424a30336c19fd09bb229654f0222fcb881a4b35c290a093ac159ce13409111ff0358411133c24f5b8e2090d6db6558afc36f06ca1f6ef779785adba68db27a409859fc4c4a0
Qx = 87f8f2b218f49845f6f10eec3877136269f5c1a54736dbdf69f89940cad41555
Qy = e15f369036f49842fac7a86c8a2b0557609776814448b8f5e84aa9f4395205e9
R = d19ff48b324915576416097d2544f7cbdf8768b1454ad20e0baac50e211f23b0
S = a3e81e59311cdfff2d4784949f7a2cb50ba6c3a91fa54710568e61aca3e847c6
Result = F (3 - S changed)

Msg = 069a6e6b93dfee6df6ef6997cd80dd2182c36653cef10c655d524585655462d683877f95ecc6d6c81623d8fac4e900ed0019964094e7de91f1481989ae1873004565789cbf5dc56c62aedc63f62f3b894c9c6f7788c8ecaadc9bd0e81ad91b2b3569ea12260e93924fdddd3972af5273198f5efda0746219475017557616170e
Qx = 5cf02a00d205bdfee2016f7421807fc38ae69e6b7ccd064ee689fc1a94a9f7d2
Qy = ec530ce3cc5c9d1af463f264d685afe2b4db4b5828d7e61b748930f3ce622a85
R = dc23d130c6117fb5751201455e99f36f59aba1a6a21cf2d0e7481a97451d6693
S = d6ce7708c18dbf35d4f8aa7240922dc6823f2e7058cbc1484fcad1599db5018c
Result = F (2 - R changed)

Msg = df04a346cf4d0e331a6db78cca2d456d31b0a000aa51441defdb97bbeb20b94d8d746429a393ba88840d661615e07def615a342abedfa4ce912e562af714959896858af817317a840dcff85a057bb91a3c2bf90105500362754a6dd321cdd86128cfc5f04667b57aa78c112411e42da304f1012d48cd6a7052d7de44ebcc01de
Qx = 2ddfd145767883ffbb0ac003ab4a44346d08fa2570b3120dcce94562422244cb
Qy = 5f70c7d11ac2b7a435ccfbbae02c3df1ea6b532cc0e9db74f93fffca7c6f9a64
R = 9913111cff6f20c5bf453a99cd2c2019a4e749a49724a08774d14e4c113edda8
S = 9467cd4cd21ecb56b0cab0a9a453b43386845459127a952421f5c6382866c5cc
Result = F (4 - Q changed)

Msg = e1130af6a38ccb412a9c8d13e15dbfc9e69a16385af3c3f1e5da954fd5e7c45fd75e2b8c36699228e92840c0562fbf3772f07e17f1add56588dd45f7450e1217ad239922dd9c32695dc71ff2424ca0dec1321aa47064a044b7fe3c2b97d03ce470a592304c5ef21eed9f93da56bb232d1eeb0035f9bf0dfafdcc4606272b20a3
Qx = e424dc61d4bb3cb7ef4344a7f8957a0c5134e16f7a67c074f82e6e12f49abf3c
Qy = 970eed7aa2bc48651545949de1dddaf0127e5965ac85d1243d6f60e7dfaee927
R = bf96b99aa49c705c910be33142017c642ff540c76349b9dab72f981fd9347f4f
S = 17c55095819089c2e03b9cd415abdf12444e323075d98f31920b9e0f57ec871c
Result = P (0 )

Msg = 73c5f6a67456ae48209b5f85d1e7de7758bf235300c6ae2bdceb1dcb27a7730fb68c950b7fcada0ecc4661d3578230f225a875e69aaa17f1e71c6be5c831f22663bac63d0c7a9635edb0043ff8c6f26470f02a7bc56556f1437f06dfa27b487a6c4290d8bad38d4879b334e341ba092dde4e4ae694a9c09302e2dbf443581c08
Qx = e0fc6a6f50e1c57475673ee54e3a57f9a49f3328e743bf52f335e3eeaa3d2864
Qy = 7f59d689c91e463607d9194d99faf316e25432870816dde63f5d4b373f12f22a
R = 1d75830cd36f4c9aa181b2c4221e87f176b7f05b7c87824e82e396c88315c407
S = cb2acb01dac96efc53a32d4a0d85d0c2e48955214783ecf50a4f0414a319c05a
Result = P (0 )

Msg = 666036d9b4a2426ed6585a4e0fd931a8761451d29ab04bd7dc6d0c5b9e38e6c2b263ff6cb837bd04399de3d757c6c7005f6d7a987063cf6d7e8cb38a4bf0d74a282572bd01d0f41e3fd066e3021575f0fa04f27b700d5b7ddddf50965993c3f9c7118ed78888da7cb221849b3260592b8e632d7c51e935a0ceae15207bedd548
Qx = a849bef575cac3c6920fbce675c3b787136209f855de19ffe2e8d29b31a5ad86
Qy = bf5fe4f7858f9b805bd8dcc05ad5e7fb889de2f822f3d8b41694e6c55c16b471
R = 25acc3aa9d9e84c7abf08f73fa4195acc506491d6fc37cb9074528a7db87b9d6
S = 9b21d5b5259ed3f2ef07dfec6cc90d3a37855d1ce122a85ba6a333f307d31537
Result = F (2 - R changed)

Msg = 7e80436bce57339ce8da1b5660149a20240b146d108deef3ec5da4ae256f8f894edcbbc57b34ce37089c0daa17f0c46cd82b5a1599314fd79d2fd2f446bd5a25b8e32fcf05b76d644573a6df4ad1dfea707b479d97237a346f1ec632ea5660efb57e8717a8628d7f82af50a4e84b11f21bdff6839196a880ae20b2a0918d58cd
Qx = 3dfb6f40f2471b29b77fdccba72d37c21bba019efa40c1c8f91ec405d7dcc5df
Qy = f22f953f1e395a52ead7f3ae3fc47451b438117b1e04d613bc8555b7d6e6d1bb
R = 548886278e5ec26bed811dbb72db1e154b6f17be70deb1b210107decb1ec2a5a
S = e93bfebd2f14f3d827ca32b464be6e69187f5edbd52def4f96599c37d58eee75
Result = F (4 - Q changed)

Msg = 1669bfb657fdc62c3ddd63269787fc1c969f1850fb04c933dda063ef74a56ce13e3a649700820f0061efabf849a85d474326c8a541d99830eea8131eaea584f22d88c353965dabcdc4bf6b55949fd529507dfb803ab6b480cd73ca0ba00ca19c438849e2cea262a1c57d8f81cd257fb58e19dec7904da97d8386e87b84948169
Qx = 69b7667056e1e11d6caf6e45643f8b21e7a4bebda463c7fdbc13bc98efbd0214
Qy = d3f9b12eb46c7c6fda0da3fc85bc1fd831557f9abc902a3be3cb3e8be7d1aa2f
R = 288f7a1cd391842cce21f00e6f15471c04dc182fe4b14d92dc18910879799790
S = 247b3c4e89a3bcadfea73c7bfd361def43715fa382b8c3edf4ae15d6e55e9979
Result = F (1 - Message changed)

Msg = 3fe60dd9ad6caccf5a6f583b3ae65953563446c4510b70da115ffaa0ba04c076115c7043ab8733403cd69c7d14c212c655c07b43a7c71b9a4cffe22c2684788ec6870dc2013f269172c822256f9e7cc674791bf2d8486c0f5684283e1649576efc982ede17c7b74b214754d70402fb4bb45ad086cf2cf76b3d63f7fce39ac970
Qx = bf02cbcf6d8cc26e91766d8af0b164fc5968535e84c158eb3bc4e2d79c3cc682
Qy = 069ba6cb06b49d60812066afa16ecf7b51352f2c03bd93ec220822b1f3dfba03
R = f5acb06c59c2b4927fb852faa07faf4b1852bbb5d06840935e849c4d293d1bad
S = 049dab79c89cc02f1484c437f523e080a75f134917fda752f2d5ca397addfe5d
Result = F (3 - S changed)

Msg = 983a71b9994d95e876d84d28946a041f8f0a3f544cfcc055496580f1dfd4e312a2ad418fe69dbc61db230cc0c0ed97e360abab7d6ff4b81ee970a7e97466acfd9644f828ffec538abc383d0e92326d1c88c55e1f46a668a039beaa1be631a89129938c00a81a3ae46d4aecbf9707f764dbaccea3ef7665e4c4307fa0b0a3075c
Qx = 224a4d65b958f6d6afb2904863efd2a734b31798884801fcab5a590f4d6da9de
Qy = 178d51fddada62806f097aa615d33b8f2404e6b1479f5fd4859d595734d6d2b9
R = 87b93ee2fecfda54deb8dff8e426f3c72c8864991f8ec2b3205bb3b416de93d2
S = 4044a24df85be0cc76f21a4430b75b8e77b932a87f51e4eccbc45c263ebf8f66
Result = F (2 - R changed)

Msg = 4a8c071ac4fd0d52faa407b0fe5dab759f7394a5832127f2a3498f34aac287339e043b4ffa79528faf199dc917f7b066ad65505dab0e11e6948515052ce20cfdb892ffb8aa9bf3f1aa5be30a5bbe85823bddf70b39fd7ebd4a93a2f75472c1d4f606247a9821f1a8c45a6cb80545de2e0c6c0174e2392088c754e9c8443eb5af
Qx = 43691c7795a57ead8c5c68536fe934538d46f12889680a9cb6d055a066228369
Qy = f8790110b3c3b281aa1eae037d4f1234aff587d903d93ba3af225c27ddc9ccac
R = 8acd62e8c262fa50dd9840480969f4ef70f218ebf8ef9584f199031132c6b1ce
S = cfca7ed3d4347fb2a29e526b43c348ae1ce6c60d44f3191b6d8ea3a2d9c92154
Result = F (3 - S changed)

Msg = 0a3a12c3084c865daf1d302c78215d39bfe0b8bf28272b3c0b74beb4b7409db0718239de700785581514321c6440a4bbaea4c76fa47401e151e68cb6c29017f0bce4631290af5ea5e2bf3ed742ae110b04ade83a5dbd7358f29a85938e23d87ac8233072b79c94670ff0959f9c7f4517862ff829452096c78f5f2e9a7e4e9216
Qx = 9157dbfcf8cf385f5bb1568ad5c6e2a8652ba6dfc63bc1753edf5268cb7eb596
Qy = 972570f4313d47fc96f7c02d5594d77d46f91e949808825b3d31f029e8296405
R = dfaea6f297fa320b707866125c2a7d5d515b51a503bee817de9faa343cc48eeb
S = 8f780ad713f9c3e5a4f7fa4c519833dfefc6a7432389b1e4af463961f09764f2
Result = F (1 - Message changed)

Msg = 785d07a3c54f63dca11f5d1a5f496ee2c2f9288e55007e666c78b007d95cc28581dce51f490b30fa73dc9e2d45d075d7e3a95fb8a9e1465ad191904124160b7c60fa720ef4ef1c5d2998f40570ae2a870ef3e894c2bc617d8a1dc85c3c55774928c38789b4e661349d3f84d2441a3b856a76949b9f1f80bc161648a1cad5588e
Qx = 072b10c081a4c1713a294f248aef850e297991aca47fa96a7470abe3b8acfdda
Qy = 9581145cca04a0fb94cedce752c8f0370861916d2a94e7c647c5373ce6a4c8f5
R = 09f5483eccec80f9d104815a1be9cc1a8e5b12b6eb482a65c6907b7480cf4f19
S = a4f90e560c5e4eb8696cb276e5165b6a9d486345dedfb094a76e8442d026378d
Result = F (4 - Q changed)

Msg = 76f987ec5448dd72219bd30bf6b66b0775c80b394851a43ff1f537f140a6e7229ef8cd72ad58b1d2d20298539d6347dd5598812bc65323aceaf05228f738b5ad3e8d9fe4100fd767c2f098c77cb99c2992843ba3eed91d32444f3b6db6cd212dd4e5609548f4bb62812a920f6e2bf1581be1ebeebdd06ec4e971862cc42055ca
Qx = 09308ea5bfad6e5adf408634b3d5ce9240d35442f7fe116452aaec0d25be8c24
Qy = f40c93e023ef494b1c3079b2d10ef67f3170740495ce2cc57f8ee4b0618b8ee5
R = 5cc8aa7c35743ec0c23dde88dabd5e4fcd0192d2116f6926fef788cddb754e73
S = 9c9c045ebaa1b828c32f82ace0d18daebf5e156eb7cbfdc1eff4399a8a900ae7
Result = F (1 - Message changed)

Msg = 60cd64b2cd2be6c33859b94875120361a24085f3765cb8b2bf11e026fa9d8855dbe435acf7882e84f3c7857f96e2baab4d9afe4588e4a82e17a78827bfdb5ddbd1c211fbc2e6d884cddd7cb9d90d5bf4a7311b83f352508033812c776a0e00c003c7e0d628e50736c7512df0acfa9f2320bd102229f46495ae6d0857cc452a84
Qx = 2d98ea01f754d34bbc3003df5050200abf445ec728556d7ed7d5c54c55552b6d
Qy = 9b52672742d637a32add056dfd6d8792f2a33c2e69dafabea09b960bc61e230a
R = 06108e525f845d0155bf60193222b3219c98e3d49424c2fb2a0987f825c17959
S = 62b5cdd591e5b507e560167ba8f6f7cda74673eb315680cb89ccbc4eec477dce
Result = P (0 )
";

/// DER `SEQUENCE { INTEGER r, INTEGER s }` from the big-endian r and s.
fn der_signature(r: &[u8], s: &[u8]) -> Vec<u8> {
    let integer = |value: &[u8]| {
        let start = value
            .iter()
            .position(|&b| b != 0)
            .unwrap_or(value.len() - 1);
        let mut body = value[start..].to_vec();
        if body[0] & 0x80 != 0 {
            body.insert(0, 0);
        }
        let mut out = vec![0x02, body.len() as u8];
        out.extend(body);
        out
    };
    let mut body = integer(r);
    body.extend(integer(s));
    let mut out = vec![0x30, body.len() as u8];
    out.extend(body);
    out
}

#[test]
fn ecdsa_p256_sha256_cavp_sigver() {
    let (mut accepted, mut refused) = (0, 0);
    for case in SIGVER_P256_SHA256
        .split("\n\n")
        .filter(|case| !case.trim().is_empty())
    {
        let field = |name: &str| {
            case.lines()
                .find_map(|line| line.strip_prefix(&format!("{name} = ")))
                .unwrap_or_else(|| panic!("{name} in {case}"))
        };
        let mut point = vec![0x04];
        point.extend(unhex(field("Qx")));
        point.extend(unhex(field("Qy")));
        let signature = der_signature(&unhex(field("R")), &unhex(field("S")));
        let message = unhex(field("Msg"));
        let expected = field("Result");
        let key = Key::public(P256, &point, "regula");
        let result = key.verify(Some(c"SHA256"), &message, &signature);
        if expected.starts_with('P') {
            result.unwrap_or_else(|e| panic!("CAVP {expected}: {e}"));
            accepted += 1;
        } else {
            assert!(result.is_err(), "CAVP {expected} was accepted");
            refused += 1;
        }
    }
    assert_eq!(
        (accepted, refused),
        (3, 12),
        "every case of the section ran"
    );
}

/// NIST CAVP FIPS 186-3 `KeyPair.rsp`, the first [P-256] and [P-384] pairs (d, Qx, Qy): a key
/// imported with `priv` (as `base`'s decoders import a PEM key) signs, OpenSSL verifies.
#[test]
fn imported_ec_private_keys_sign() {
    let pairs = [
        (
            P256,
            "c9806898a0334916c860748880a541f093b579a9b1f32934d86c363c39800357",
            "d0720dc691aa80096ba32fed1cb97c2b620690d06de0317b8618d5ce65eb728f",
            "9681b517b1cda17d0d83d335d9c4a8a9a9b0b1b3c7106d8f3c72bc5093dc275f",
        ),
        (
            P384,
            "5394f7973ea868c52bf3ff8d8ceeb4db90a683653b12485d5f627c3ce5abd8978fc9673d14a71d925747931662493c37",
            "fd3c84e5689bed270e601b3d80f90d67a9ae451cce890f53e583229ad0e2ee645611fa9936dfa45306ec18066774aa24",
            "b83ca4126cfc4c4d1d18a4b6c21c7f699d5123dd9c24f66f833846eeb58296196b42ec06425db5b70a4b81b7fcf705a0",
        ),
    ];
    for (kind, d, qx, qy) in pairs {
        let mut point = vec![0x04];
        point.extend(unhex(qx));
        point.extend(unhex(qy));
        let scalar = native_order(&unhex(d));
        let key = keys()
            .fromdata(
                c"EC",
                c"provider=regula",
                KEYPAIR,
                &[
                    utf8(c"group", kind.group.unwrap()),
                    bignum(c"priv", &scalar),
                    octets(c"pub", &point),
                ],
            )
            .expect("EC key pair imported");
        assert_eq!(key.public_bytes(), point);
        let signature = key
            .sign(kind.digest, MESSAGE)
            .expect("the imported key signs");
        Key::public(kind, &point, "default")
            .verify(kind.digest, MESSAGE, &signature)
            .expect("OpenSSL verifies");
        // ECDH and ECDSA share the key: it signs again (the signing key is kept).
        let again = key.sign(kind.digest, MESSAGE).expect("signs again");
        assert_ne!(again, signature, "ECDSA draws a fresh k");
    }
}

#[test]
fn refusals_name_their_reason() {
    let p256 = generate(c"EC", Some(c"P-256"), c"provider=regula");
    // The P-256 row signs with SHA2-256 only.
    let error = p256.sign(Some(c"SHA384"), MESSAGE).unwrap_err();
    assert!(error.contains("SHA2-256 only"), "{error}");
    // Ed25519 takes no digest.
    let ed = generate(c"ED25519", None, c"provider=regula");
    let error = ed.sign(Some(c"SHA256"), MESSAGE).unwrap_err();
    assert!(!error.is_empty(), "Ed25519 with SHA-256 refused");
    // ECDSA over a digest the caller computed is refused with the reason.
    let c = crypto();
    // SAFETY: libcrypto calls with live objects.
    let error = unsafe {
        let ctx = (c.ctx_new_from_pkey)(libctx(), p256.0, c"provider=regula".as_ptr());
        assert!(!ctx.is_null(), "{}", take_error());
        let ok = (c.sign_init)(ctx);
        (c.ctx_free)(ctx);
        assert_ne!(ok, 1, "EVP_PKEY_sign_init with an ECDSA key");
        take_error()
    };
    assert!(error.contains("EVP_DigestSign"), "{error}");
    // A key of another type: an X25519 key does not sign.
    let x25519 = generate(c"X25519", None, c"provider=regula");
    assert!(x25519.sign(None, MESSAGE).is_err(), "an X25519 key signed");
    // A public key does not sign.
    let public = Key::public(P256, &p256.public_bytes(), "regula");
    let error = public.sign(Some(c"SHA256"), MESSAGE).unwrap_err();
    assert!(error.contains("private key"), "{error}");
    // An Ed25519 key's signature is not an ECDSA signature of the same message, and the
    // reverse (the key type decides the algorithm).
    let ed_signature = ed.sign(None, MESSAGE).unwrap();
    assert!(
        p256.verify(Some(c"SHA256"), MESSAGE, &ed_signature)
            .is_err()
    );
}

/// `algorithm-id`: the DER AlgorithmIdentifier X.509 and CMS writers ask for (RFC 5758 §3.2,
/// RFC 8410 §3), answered by the signature context.
#[test]
fn algorithm_identifiers() {
    let cases = [
        (P256, "300a06082a8648ce3d040302"),
        (P384, "300a06082a8648ce3d040303"),
        (P521, "300a06082a8648ce3d040304"),
        (ED25519, "300506032b6570"),
    ];
    for (kind, expected) in cases {
        let key = generate(kind.algorithm, kind.group, c"provider=regula");
        let (_md, pctx) = key.init(true, kind.digest).expect("init");
        let mut out = [0u8; 64];
        let mut params = [
            Param {
                key: c"algorithm-id".as_ptr(),
                data_type: PARAM_OCTET_STRING,
                data: out.as_mut_ptr() as *mut c_void,
                data_size: out.len(),
                return_size: usize::MAX,
            },
            Param::END,
        ];
        // SAFETY: the live EVP_PKEY_CTX of the signing context and a terminated array.
        let ok = unsafe { (crypto().ctx_get_params)(pctx, params.as_mut_ptr()) };
        assert_eq!(ok, 1, "{}", take_error());
        let len = params[0].return_size;
        assert_eq!(out[..len], unhex(expected)[..], "{kind:?}");
    }
}

/// The signatures each policy offers, read through the provider's own query function: ECDSA
/// ED25519 and RSA (FIPS 186-5) and ML-DSA (FIPS 204), approved (`fips=yes`), under the
/// default policy and fips-140-3; SM2 under default and gm; and everywhere HMAC as a signature
/// (libssl's TLS 1.3 PSK binders).
#[test]
fn each_policy_offers_its_signatures() {
    let offered = |policy: &str| {
        let host = regula_ossl::host::Host::load(policy).expect("the policy loads");
        host.offered(regula_ossl::ffi::OP_SIGNATURE)
            .into_iter()
            .map(|offer| (offer.names, offer.properties))
            .collect::<Vec<_>>()
    };
    let approved = |names: &str| (names.to_owned(), "provider=regula,fips=yes".to_owned());
    let ours = [
        approved("ECDSA"),
        approved("ED25519:1.3.101.112"),
        approved("RSA:rsaEncryption:1.2.840.113549.1.1.1"),
    ];
    let sm2 = approved("SM2:1.2.156.10197.1.301");
    // FIPS 204 (tests/mldsa.rs).
    let ml_dsa = [
        approved("ML-DSA-44:MLDSA44:2.16.840.1.101.3.4.3.17:id-ml-dsa-44"),
        approved("ML-DSA-65:MLDSA65:2.16.840.1.101.3.4.3.18:id-ml-dsa-65"),
        approved("ML-DSA-87:MLDSA87:2.16.840.1.101.3.4.3.19:id-ml-dsa-87"),
    ];
    let hmac = approved("HMAC");
    assert_eq!(
        offered("fips-140-3"),
        [&ours[..], &ml_dsa, std::slice::from_ref(&hmac)].concat()
    );
    assert_eq!(
        offered("default"),
        [
            &ours[..],
            std::slice::from_ref(&sm2),
            &ml_dsa,
            std::slice::from_ref(&hmac)
        ]
        .concat()
    );
    assert_eq!(offered("gm"), [sm2, hmac]);
}
