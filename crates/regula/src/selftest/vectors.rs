//! Known-answer vectors for the power-on self-tests. Every value is cited; none was
//! produced by Regula.

// ---------------------------------------------------------------------------------------------
// AES-256-GCM, 96-bit IV, with AAD.
// Source: D. McGrew, J. Viega, "The Galois/Counter Mode of Operation (GCM)", revised
// submission to NIST (2005), Appendix B "AES Test Vectors", Test Case 16 (K, IV, P, A, C, T).
pub(crate) const AES256_GCM_KEY: &[u8] =
    &hex_literal::hex!("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308");
pub(crate) const AES256_GCM_IV: &[u8] = &hex_literal::hex!("cafebabefacedbaddecaf888");
pub(crate) const AES256_GCM_PLAINTEXT: &[u8] = &hex_literal::hex!(
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
);
pub(crate) const AES256_GCM_AAD: &[u8] =
    &hex_literal::hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2");
pub(crate) const AES256_GCM_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
);
pub(crate) const AES256_GCM_TAG: &[u8] = &hex_literal::hex!("76fc6ece0f4e1768cddf8853bb2d551b");

// ---------------------------------------------------------------------------------------------
// AES-256-CTR.
// Source: NIST SP 800-38A (2001), Appendix F.5.5 "CTR-AES256.Encrypt": Key, Init. Counter,
// Plaintext blocks #1-#4, Ciphertext blocks #1-#4 (the counter block is incremented as a
// 128-bit big-endian integer).
pub(crate) const AES256_CTR_KEY: &[u8] =
    &hex_literal::hex!("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
pub(crate) const AES256_CTR_COUNTER: &[u8] = &hex_literal::hex!("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
pub(crate) const AES256_CTR_PLAINTEXT: &[u8] = &hex_literal::hex!(
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
);
pub(crate) const AES256_CTR_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
    "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"
);

// ---------------------------------------------------------------------------------------------
// AES-256-CBC, no padding.
// Source: NIST SP 800-38A (2001), Appendix F.2.5 "CBC-AES256.Encrypt": Key, IV, Plaintext
// blocks #1-#4, Ciphertext blocks #1-#4.
pub(crate) const AES256_CBC_KEY: &[u8] =
    &hex_literal::hex!("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
pub(crate) const AES256_CBC_IV: &[u8] = &hex_literal::hex!("000102030405060708090a0b0c0d0e0f");
pub(crate) const AES256_CBC_PLAINTEXT: &[u8] = &hex_literal::hex!(
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
);
pub(crate) const AES256_CBC_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
    "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b"
);

// AES-CBC-CS3: RFC 3962 Appendix B (AES-128 CTS, the CS3 profile: the last two blocks always
// swapped), zero IV, the 31-byte case (one whole block and a 15-byte partial block). The CAST
// runs Regula's stealing around AWS-LC's CBC with this AES-128 key; the AES-256 key schedule is
// AES-CBC's test.
pub(crate) const AES128_CBC_CS3_KEY: &[u8] = &hex_literal::hex!("636869636b656e207465726979616b69");
pub(crate) const AES128_CBC_CS3_PLAINTEXT: &[u8] = &hex_literal::hex!(
    "4920776f756c64206c696b6520746865" "2047656e6572616c20476175277320"
);
pub(crate) const AES128_CBC_CS3_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "fc00783e0efdb2c1d445d4c8eff7ed22" "97687268d6ecccc0c07b25e25ecfe5"
);

// ---------------------------------------------------------------------------------------------
// AES-128-CMAC.
// Source: NIST SP 800-38B (2005), Appendix D.1 "AES-128", Example 2 (Mlen = 128); identical to
// RFC 4493 section 4, Example 2 (len = 16).
pub(crate) const AES128_CMAC_KEY: &[u8] = &hex_literal::hex!("2b7e151628aed2a6abf7158809cf4f3c");
pub(crate) const AES128_CMAC_MESSAGE: &[u8] =
    &hex_literal::hex!("6bc1bee22e409f96e93d7e117393172a");
pub(crate) const AES128_CMAC_TAG: &[u8] = &hex_literal::hex!("070a16b46b4d4144f79bdd9dd04a287c");

// ---------------------------------------------------------------------------------------------
// ChaCha20-Poly1305 AEAD.
// Source: RFC 8439 section 2.8.2 "Example and Test Vector for AEAD_CHACHA20_POLY1305".
// The 96-bit nonce is the RFC's "32-bit fixed-common part" (07 00 00 00) followed by its
// 64-bit "IV" (40 41 42 43 44 45 46 47).
pub(crate) const CHACHA20_POLY1305_KEY: &[u8] =
    &hex_literal::hex!("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
pub(crate) const CHACHA20_POLY1305_NONCE: &[u8] = &hex_literal::hex!("070000004041424344454647");
pub(crate) const CHACHA20_POLY1305_AAD: &[u8] = &hex_literal::hex!("50515253c0c1c2c3c4c5c6c7");
pub(crate) const CHACHA20_POLY1305_PLAINTEXT: &[u8] = &hex_literal::hex!(
    "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
    "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
    "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
    "637265656e20776f756c642062652069742e"
);
pub(crate) const CHACHA20_POLY1305_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
    "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
    "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
    "3ff4def08e4b7a9de576d26586cec64b6116"
);
pub(crate) const CHACHA20_POLY1305_TAG: &[u8] =
    &hex_literal::hex!("1ae10b594f09e26a7e902ecbd0600691");

// ---------------------------------------------------------------------------------------------
// SHA-1 and SHA-2 of the 3-byte message "abc".
// Source: NIST CSRC "Examples with Intermediate Values" for FIPS 180-4 (SHA1.pdf, SHA224.pdf,
// SHA256.pdf, SHA384.pdf, SHA512.pdf, one-block message sample "abc"); the SHA-1 and SHA-256
// digests also appear in FIPS 180-2 Appendices A.1 and B.1.
pub(crate) const SHA_MSG_ABC: &[u8] = b"abc";
pub(crate) const SHA1_ABC: &[u8] = &hex_literal::hex!("a9993e364706816aba3e25717850c26c9cd0d89d");
pub(crate) const SHA224_ABC: &[u8] =
    &hex_literal::hex!("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7");
pub(crate) const SHA256_ABC: &[u8] =
    &hex_literal::hex!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
pub(crate) const SHA384_ABC: &[u8] = &hex_literal::hex!(
    "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
    "8086072ba1e7cc2358baeca134c825a7"
);
pub(crate) const SHA512_ABC: &[u8] = &hex_literal::hex!(
    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
);

// ---------------------------------------------------------------------------------------------
// SHA3-256, SHA3-384, SHA3-512 of the 1600-bit message (200 bytes, each 0xA3).
// Source: NIST CSRC "Examples with Intermediate Values", FIPS 202 hash examples for the
// 1600-bit message (files SHA3-256_1600, SHA3-384_1600, SHA3-512_1600). FIPS 202 itself has no
// "abc" example and NIST publishes none for SHA-3, so "abc" is deliberately not used here.
pub(crate) const SHA3_MSG_1600: &[u8] = &hex_literal::hex!(
    "a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3"
    "a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3"
    "a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3"
    "a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3"
    "a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3"
    "a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3"
    "a3a3a3a3a3a3a3a3"
);
pub(crate) const SHA3_256_MSG_1600: &[u8] =
    &hex_literal::hex!("79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787");
pub(crate) const SHA3_384_MSG_1600: &[u8] = &hex_literal::hex!(
    "1881de2ca7e41ef95dc4732b8f5f002b189cc1e42b74168ed1732649ce1dbcdd"
    "76197a31fd55ee989f2d7050dd473e8f"
);
pub(crate) const SHA3_512_MSG_1600: &[u8] = &hex_literal::hex!(
    "e76dfad22084a8b1467fcf2ffa58361bec7628edf5f3fdc0e4805dc48caeeca8"
    "1b7c13c30adf52a3659584739a2df46be589c51ca1a4a8416df6545a1ce8ba00"
);

// ---------------------------------------------------------------------------------------------
// SHAKE128 and SHAKE256 with output longer than the usual digest.
// Source: NIST CAVP SHA-3 validation system (SHA3VS) response files, "SHAKE3AllBytesGT"
// (CAVS 19.0, 2016), as shipped in cryptography-vectors hashes/SHAKE: SHAKE128VariableOut.rsp
// COUNT = 1125 (Outputlen = 1120 bits) and SHAKE256VariableOut.rsp COUNT = 1245
// (Outputlen = 2000 bits, more than one 136-byte squeeze block).
pub(crate) const SHAKE128_VAR_OUT_MSG: &[u8] =
    &hex_literal::hex!("0a13ad2c7a239b4ba73ea6592ae84ea9");
pub(crate) const SHAKE128_VAR_OUT: &[u8] = &hex_literal::hex!(
    "5feaf99c15f48851943ff9baa6e5055d8377f0dd347aa4dbece51ad3a6d9ce0c"
    "01aee9fe2260b80a4673a909b532adcdd1e421c32d6460535b5fe392a58d2634"
    "979a5a104d6c470aa3306c400b061db91c463b2848297bca2bc26d1864ba49d7"
    "ff949ebca50fbf79a5e63716dc82b600bd52ca7437ed774d169f6bf02e464879"
    "56fba2230f34cd2a0485484d"
);
pub(crate) const SHAKE256_VAR_OUT_MSG: &[u8] =
    &hex_literal::hex!("8d8001e2c096f1b88e7c9224a086efd4797fbf74a8033a2d422a2b6b8f6747e4");
pub(crate) const SHAKE256_VAR_OUT: &[u8] = &hex_literal::hex!(
    "2e975f6a8a14f0704d51b13667d8195c219f71e6345696c49fa4b9d08e9225d3"
    "d39393425152c97e71dd24601c11abcfa0f12f53c680bd3ae757b8134a9c10d4"
    "29615869217fdd5885c4db174985703a6d6de94a667eac3023443a8337ae1bc6"
    "01b76d7d38ec3c34463105f0d3949d78e562a039e4469548b609395de5a4fd43"
    "c46ca9fd6ee29ada5efc07d84d553249450dab4a49c483ded250c9338f85cd93"
    "7ae66bb436f3b4026e859fda1ca571432f3bfc09e7c03ca4d183b741111ca048"
    "3d0edabc03feb23b17ee48e844ba2408d9dcfd0139d2e8c7310125aee801c61a"
    "b7900d1efc47c078281766f361c5e6111346235e1dc38325666c"
);

// ---------------------------------------------------------------------------------------------
// HMAC-SHA-224/256/384/512.
// Source: RFC 4231 section 4.2 "Test Case 1": Key = 0x0b repeated 20 times, Data = "Hi There".
pub(crate) const HMAC_TC1_KEY: &[u8] =
    &hex_literal::hex!("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
pub(crate) const HMAC_TC1_DATA: &[u8] = &hex_literal::hex!("4869205468657265");
pub(crate) const HMAC_SHA224_TC1: &[u8] =
    &hex_literal::hex!("896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22");
pub(crate) const HMAC_SHA256_TC1: &[u8] =
    &hex_literal::hex!("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
pub(crate) const HMAC_SHA384_TC1: &[u8] = &hex_literal::hex!(
    "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c"
    "faea9ea9076ede7f4af152e8b2fa9cb6"
);
pub(crate) const HMAC_SHA512_TC1: &[u8] = &hex_literal::hex!(
    "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
    "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
);

// HMAC-SHA-256 with a key longer than the block size.
// Source: RFC 4231 section 4.7 "Test Case 6": Key = 0xaa repeated 131 times,
// Data = "Test Using Larger Than Block-Size Key - Hash Key First".
pub(crate) const HMAC_TC6_KEY: &[u8] = &hex_literal::hex!(
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaa"
);
pub(crate) const HMAC_TC6_DATA: &[u8] = &hex_literal::hex!(
    "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a"
    "65204b6579202d2048617368204b6579204669727374"
);
pub(crate) const HMAC_SHA256_TC6: &[u8] =
    &hex_literal::hex!("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");

// ---------------------------------------------------------------------------------------------
// HKDF-SHA-256.
// Source: RFC 5869 Appendix A.1 "Test Case 1" (IKM, salt, info, L = 42, PRK, OKM).
pub(crate) const HKDF_SHA256_IKM: &[u8] =
    &hex_literal::hex!("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
pub(crate) const HKDF_SHA256_SALT: &[u8] = &hex_literal::hex!("000102030405060708090a0b0c");
pub(crate) const HKDF_SHA256_INFO: &[u8] = &hex_literal::hex!("f0f1f2f3f4f5f6f7f8f9");
pub(crate) const HKDF_SHA256_PRK: &[u8] =
    &hex_literal::hex!("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
pub(crate) const HKDF_SHA256_OKM: &[u8] = &hex_literal::hex!(
    "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
    "34007208d5b887185865"
);

// ---------------------------------------------------------------------------------------------
// TLS 1.2 PRF with SHA-256 (master secret derivation).
// Source: NIST CAVP (SP 800-135 KDF, TLS 1.2 with SHA-256), as OpenSSL's
// test/recipes/30-test_evp_data/evpkdf_tls12_prf.txt carries it: the secret, the seed
// "master secret" ‖ client random ‖ server random, and the 48-byte master secret.
pub(crate) const TLS12_PRF_SHA256_SECRET: &[u8] = &hex_literal::hex!(
    "f8938ecc9edebc5030c0c6a441e213cd24e6f770a50dda07876f8d55da062bca"
    "db386b411fd4fe4313a604fce6c17fbc"
);
pub(crate) const TLS12_PRF_SHA256_LABEL: &[u8] = b"master secret";
pub(crate) const TLS12_PRF_SHA256_CLIENT_RANDOM: &[u8] =
    &hex_literal::hex!("36c129d01a3200894b9179faac589d9835d58775f9b5ea3587cb8fd0364cae8c");
pub(crate) const TLS12_PRF_SHA256_SERVER_RANDOM: &[u8] =
    &hex_literal::hex!("f6c9575ed7ddd73e1f7d16eca115415812a43c2b747daaaae043abfb50053fce");
pub(crate) const TLS12_PRF_SHA256_OUTPUT: &[u8] = &hex_literal::hex!(
    "202c88c00f84a17a20027079604787461176455539e705be730890602c289a50"
    "01e34eeb3a043e5d52a65e66125188bf"
);

// PBKDF2-HMAC-SHA-256.
// Source: RFC 7914 section 11 "Test Vectors for PBKDF2 with HMAC-SHA-256", first vector:
// P = "passwd", S = "salt", c = 1, dkLen = 64.
pub(crate) const PBKDF2_SHA256_PASSWORD: &[u8] = b"passwd";
pub(crate) const PBKDF2_SHA256_SALT: &[u8] = b"salt";
pub(crate) const PBKDF2_SHA256_ITERATIONS: u32 = 1;
pub(crate) const PBKDF2_SHA256_DK: &[u8] = &hex_literal::hex!(
    "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
    "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
);

// ---------------------------------------------------------------------------------------------
// ECDSA P-256 with SHA-256.
// Source: RFC 6979 Appendix A.2.5 "ECDSA, 256 Bits (Prime Field)": private key x, public key
// U = xG (Ux, Uy), and the signature (r, s) "With SHA-256, message = "sample"".
// ECDSA_P256_PUBLIC is the SEC 1 uncompressed encoding 04 || Ux || Uy of the RFC's point;
// ECDSA_P256_SHA256_SIG is r || s (fixed-length, 32 + 32 bytes).
pub(crate) const ECDSA_P256_PRIVATE: &[u8] =
    &hex_literal::hex!("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721");
pub(crate) const ECDSA_P256_PUBLIC: &[u8] = &hex_literal::hex!(
    "0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29f"
    "b67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d44622"
    "99"
);
pub(crate) const ECDSA_P256_MESSAGE: &[u8] = b"sample";
pub(crate) const ECDSA_P256_SHA256_SIG: &[u8] = &hex_literal::hex!(
    "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
    "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"
);

// ---------------------------------------------------------------------------------------------
// Ed25519.
// Source: RFC 8032 section 7.1 "Test Vectors for Ed25519", TEST 2 (SECRET KEY = 32-byte seed,
// PUBLIC KEY, MESSAGE = one byte 0x72, SIGNATURE).
pub(crate) const ED25519_SEED: &[u8] =
    &hex_literal::hex!("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");
pub(crate) const ED25519_PUBLIC: &[u8] =
    &hex_literal::hex!("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
pub(crate) const ED25519_MESSAGE: &[u8] = &hex_literal::hex!("72");
pub(crate) const ED25519_SIG: &[u8] = &hex_literal::hex!(
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
    "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
);

// ---------------------------------------------------------------------------------------------
// RSA-2048 PKCS#1 v1.5 signature with SHA-256.
// Private key: RFC 9500 section 2.1 "testRSA2048" (PKCS#1 RSAPrivateKey PEM), re-encoded as
// unencrypted PKCS#8 DER with the OpenSSL 3.0.19 CLI:
//     openssl pkcs8 -topk8 -nocrypt -in testRSA2048.pem -outform DER -out testRSA2048.pk8.der
// Message: the 14 ASCII bytes "Regula RSA KAT" (no trailing newline).
// Expected signature: produced by the OpenSSL 3.0.19 CLI as an independent peer:
//     printf 'Regula RSA KAT' > msg.bin
//     openssl dgst -sha256 -sign testRSA2048.pem -out sig.bin msg.bin
// (PKCS#1 v1.5 signatures are deterministic, so any conforming signer gives these bytes.)
pub(crate) const RSA2048_PKCS8: &[u8] = &hex_literal::hex!(
    "308204bd020100300d06092a864886f70d0101010500048204a7308204a30201"
    "000282010100b0f9e81943a7ae9892aade17ca7c40f8744fed2f8148e6c8eaa2"
    "7b7d001548fb5192ab28b56c5060b118ccd131e594874c6ca989b56c27296f09"
    "fb93a034df32e97c6ff0998cfd8e6f42dda58acd1fa97986f144f3d154d67650"
    "175e6854b3a952003bc06887b8455ac2b19f7b2f76504ebc98ec945571b07892"
    "150ddc6a74ca0fbcd35497ce81534daf9418844b13aea31f9d5a6b9557bbdf61"
    "9efd4e887f2d42b8dd8bc987eae1bf89cab85ee21e356305df6c07a8838e3ef4"
    "1c595dcce43dafc49123ef4d8abba93d3905e4028d7ba91484a27596e07b4b6e"
    "d992f077b524d3dcfe7ddd5549be7cce8da035cfa0b3fb8f9e46f732b2a86b46"
    "0165c08f531302030100010282010041188b20cfdbdbc2cf1ffe752dcbaa7239"
    "06352e2615d49dce80597fcf0a05403bef00fa065182f72decfb596f4b0ce8ff"
    "5970baf07a89a519ecc816b2f4ffac5069af1b06bfef7bf6bcd79e4e81c8c5a3"
    "a7d9130dc3cfbadae5f6d288f9aee3f6ff92fae0f81af597bec96ae9fab9402c"
    "d5fe41f705bebdb47bb736d3fe6c5a51e0e20732a97b5e46c1cbdb26d74854c6"
    "b6604aed463735ff9076046557caf949bf448895c20432c1e09c014ea7566043"
    "4f1a0f3be294babc5d530e6a10213f53b60375fc84a7573f2af1215584f5b4bd"
    "a6d4e8f9e17a78d97e77b86da4a1846475318a7a10a561014effa23a81ec56e9"
    "e4109def8cb3f797223f7d8d0d435102818100dd105702382f232b3681f53791"
    "e22617c7bf4e9acb81ed48daf6d6995da3eab642839aff012d2ea628b90af279"
    "fd3e6f7c93cd80f072f01ff2443b3ee8f24ed469a79613a41bd24020f92fd110"
    "59bd1d0f301b5ba7a9d3637ca8d65c1a9815417d8eab734b0b4f3a2c661d9a1a"
    "82f3ac734c40530669ab8e473045a58e65539d02818100ccf1e5bb90c8e9781e"
    "a75bebf10bc252e11eb023a0260f1887552a56863f4a6421e8c600bf523d6cb1"
    "b0adbdd65bfee4a88a037e3d1a415e5bb95648da5a0ca26b54f4a63948522c3d"
    "5f89b94a72efff95134d5940ce45758f308980908956588eef575b3e4bc4c368"
    "cfe813ee9c252c2b02e0df91f1aa01938d38685d60ba6f02818009ed54eaed98"
    "f84c557b4a86bf4f578493dcbc6be91da189370404a9087276f4ce51d8a100ed"
    "857dc2b0649474f3f15cd24c54db287110e56e5cb008682f9168aa81f31458b7"
    "431ecc1c44906fda87ca894710c371e9076c1d49fbae51276934f2ad787789f4"
    "2d0fa0b4c939855d4212096f70280a4eae7c8a27d9c8d0772e65028181008cb6"
    "857a7bd5465f80047e9b87bc002731840581e0626139012a5b505f0a33847eb7"
    "b8c3289949ad486f3b4b3d539ab5da763021cbc82c1ba234a5668ded0801b859"
    "f343f1ce9304e6faa2b002cad9b78cde5cdc2c1fb4171c42421670a6ab0f50cc"
    "4a194eb36d1c91e935ba01b959d8728b9e64426b3fc3a7506deb5239a8a70281"
    "800a81d8a618314a803af61c06711f2c39b266ff414d53476d1da52a4318aafe"
    "4b96f0da07155f8a5134dab88ee29e8168076fcd78ca791ac63442a81cd06939"
    "27d808e335e8d8cbf2121907509a57759b4f9a18fa3a7b333779edde7a459384"
    "f8444adaecffec95fd552b0cfcb6c7f692626dde1ef268a40d2f67b5c8aa387f"
    "f7"
);
pub(crate) const RSA2048_MESSAGE: &[u8] = b"Regula RSA KAT";
pub(crate) const RSA2048_PKCS1_SHA256_SIG: &[u8] = &hex_literal::hex!(
    "4a6ad40420d670d3aec5b129ffdb59e2e8307879a4086c320489116f7dc33eba"
    "941ee1c50011e49a448de7306428e54dd0bf056216971c775ba132bf78b86f74"
    "ec8c0138a15d9a3da06862b8cd77f52ee096ff542d61dae263df3343c56d1253"
    "ca6eca7dc515aa0a7302f43ed8518a6f3219648ef0ea8b32545d1a7da6f3a2a0"
    "45e65a568909511a651a9afc33aa11f35778012be91880b93f08309096932308"
    "4e753da2f94bd17312f6d0929f4bc027fde70240d64f19feaad47aa236c3b8a4"
    "b5cad333c4abe751b27b3076815304da2f7bc266e38c167aaf24e28b22b1751b"
    "67fde83fe6e07741455000ef6d08133e93f53795c870a69806281ac68b9cbca0"
);

// ---------------------------------------------------------------------------------------------
// RSA-OAEP (SHA-256, MGF1-SHA-256) decryption under the RFC 9500 testRSA2048 key above.
// Message: the 19 ASCII bytes "Regula RSA-OAEP KAT"; label: the 12 ASCII bytes "Regula label".
// Ciphertext: produced by the OpenSSL 3.0.19 CLI as an independent peer (OAEP is randomised,
// so only decryption has a known answer):
//     printf 'Regula RSA-OAEP KAT' > msg.bin
//     openssl pkeyutl -encrypt -pubin -inkey testRSA2048.pub.pem -in msg.bin -out ct.bin \
//         -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 \
//         -pkeyopt rsa_mgf1_md:sha256 -pkeyopt rsa_oaep_label:526567756c61206c6162656c
pub(crate) const RSA2048_OAEP_MESSAGE: &[u8] = b"Regula RSA-OAEP KAT";
pub(crate) const RSA2048_OAEP_LABEL: &[u8] = b"Regula label";
pub(crate) const RSA2048_OAEP_SHA256_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "6feb58ebb56b0acba9cde03c03d98e14d5468e09a29b818f382ec0873cf5112e"
    "b00d58a7c6bbc1812a25a4ed40ca84d039b709edb98a82fad818f5261ef84b2e"
    "923d02522f0c146650adf62610467294778ec3cfdd6d307f0ffcb53af8a59853"
    "e45591c3fa295e524bbc352e62e8f284256ac6da747c66415940d78b2b55efb0"
    "a9d8371badb8ac7b34000d632cffbf2f6126d19a9eded4f1f724583b55213d99"
    "9dc30400019ace5cb8081b1c3f5db084a469ce8fd023a6181daa4c4325658501"
    "84cbd044b1d77b6564db6dfa848c09f0ee2997a5a18668000b7312d7e74567d6"
    "f4d4faebfecfbf6eb8f97792f1f490177a9bce7b24a4b15b2431750d1db33569"
);

// ---------------------------------------------------------------------------------------------
// ECDH P-256.
// Source: RFC 5903 section 8.1 "256-Bit Random ECP Group": initiator private i, responder
// public (grx, gry), and the x-coordinate girx of the shared point (the ECDH shared secret).
// The initiator public (gix, giy) and responder private r are included for completeness.
// Public keys are SEC 1 uncompressed encodings 04 || x || y of the RFC's points.
pub(crate) const ECDH_P256_I: &[u8] =
    &hex_literal::hex!("c88f01f510d9ac3f70a292daa2316de544e9aab8afe84049c62a9c57862d1433");
pub(crate) const ECDH_P256_GI_PUBLIC: &[u8] = &hex_literal::hex!(
    "04dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c37725811"
    "805271a0461cdb8252d61f1c456fa3e59ab1f45b33accf5f58389e0577b8990b"
    "b3"
);
pub(crate) const ECDH_P256_R: &[u8] =
    &hex_literal::hex!("c6ef9c5d78ae012a011164acb397ce2088685d8f06bf9be0b283ab46476bee53");
pub(crate) const ECDH_P256_GR_PUBLIC: &[u8] = &hex_literal::hex!(
    "04d12dfb5289c8d4f81208b70270398c342296970a0bccb74c736fc7554494bf"
    "6356fbf3ca366cc23e8157854c13c58d6aac23f046ada30f8353e74f33039872"
    "ab"
);
pub(crate) const ECDH_P256_GIRX: &[u8] =
    &hex_literal::hex!("d6840f6b42f6edafd13116e0e12565202fef8e9ece7dce03812464d04b9442de");

// ---------------------------------------------------------------------------------------------
// X25519.
// Source: RFC 7748 section 6.1 "Curve25519": Alice's private key, Bob's public key, and the
// shared secret K. (Alice's public key and Bob's private key are included for completeness.)
pub(crate) const X25519_ALICE_PRIVATE: &[u8] =
    &hex_literal::hex!("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
pub(crate) const X25519_ALICE_PUBLIC: &[u8] =
    &hex_literal::hex!("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
pub(crate) const X25519_BOB_PRIVATE: &[u8] =
    &hex_literal::hex!("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
pub(crate) const X25519_BOB_PUBLIC: &[u8] =
    &hex_literal::hex!("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
pub(crate) const X25519_SHARED: &[u8] =
    &hex_literal::hex!("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");

// ---------------------------------------------------------------------------------------------
// ML-KEM-768 decapsulation (FIPS 203, ML-KEM.Decaps with the expanded decapsulation key).
// Source: NIST ACVP-Server repository (github.com/usnistgov/ACVP-Server), file
// gen-val/json-files/ML-KEM-encapDecap-FIPS203/internalProjection.json (vsId 42), test group
// tgId 5 (testType "VAL", parameterSet "ML-KEM-768", function "decapsulation"): the group's
// "dk" (2400 bytes), and test case tcId 86 (reason "no modification"): "c" (1088 bytes)
// and expected shared secret "k" (32 bytes).
pub(crate) const ML_KEM_768_DK: &[u8] = &hex_literal::hex!(
    "6f395341bc8efbf6ce2cf4513a5ca267e16bd7a16052224be8fb48e79c47bc8c"
    "bae9b6b519335d76d96386937508d02ad65b664b826a091a68eb5b0f98b0357c"
    "745fdb9b661acc31bacab586f44233e560a48595aee2922214baf8769759da40"
    "96fb7702b7c9a45221af283760885bcf6c07c026c77798495499155b7a55ac87"
    "8f14acaba743805400179621cb0b688c11f91106fb0d5a2060d4f05186548ecc"
    "f1757bd49dc462082c335c0fb20788379aadb90225c84c05b4c9401948ac3707"
    "b1054d702a4e383b1ad9eaba4b90010c8c13eed0421068a0cc949dc3872cc5ab"
    "0881799106554363b3817ef9cfc2449109e50aec7832f9c426f3c33e62f237b9"
    "56b697178eb9ba903ea3c3170a269482c6b4365fe38b90517321caf0cb15a325"
    "174458f771713bb642a2dcc883f8754101426d107a153c0a3bac10e5f29b5d37"
    "bd61472b45c9ce593b2548aa73e57217e4967cc7dc07c741c05c617d369b375a"
    "376d1eca717ad10f354c39d1e96f0db8c2988531d8374c89a2479087089530c1"
    "5c7a5873546d8258707a03cdda92ccba837477759b79b5cbce79824e8982469a"
    "ab9be3392fd2420aa428c828a684ac9324b477b0e5b83b90ba77f479f372cc6c"
    "942fa1c0177be7abf09b96bca1178d565fd36b9394fb69a449517190a8a80b0c"
    "4c067393d993b23a504d58ae5da569e5374a63f918a22889a4420fabf19a12f0"
    "207d4381a1d2af48842fcd2a54da36ac1c061eca394e83e5b03ca35c00ba1e46"
    "595eb61b6a705c780ac4890134cfefa9303d8ab3873891ba4ca8d11932453327"
    "e0610b9626a0a1d45f739222bd3b06f8eb1e386884c0bacf4f6781fd128cf683"
    "2fe01479fd3a7cc8d142e6fc9cad0222ddfc23d60ccef8138edcc56072da17fe"
    "e66a9b658e3fc7a4bdd570c9c110bc5750a5c8883aba022a6338817a007ce4cf"
    "65283a4a441134539aff3646133cc852c162ffc03c801658ad257c61ecb4cccc"
    "3111725714515dfde76659c01f1536bbba274b15253529e4a08a49306fa08d8c"
    "b86e87c755aec11b2ee69cfe7c14cec69ad4c3a8251a23669758b69779a55066"
    "9a43425900034a824c561c4bad70584010bb02d090b96737d0443391750c0d34"
    "36e159caf92838c91167ef45b339a09aea3c52674617d865476d031f90f6c4cf"
    "8c2d3ba58c1e557bf59684afb021828a341fbbbb56457b6612c9a775aa637cc2"
    "f0f3bc2a9a0fd58ac38882ce62b900009dba01aacda6b30b6e1c94b5cb856822"
    "7133a0623ed81b4e034031a04882c26d59323ef5aa74077323b80449ec5997e9"
    "a456e13912a8622eb17b2a9ed6664e83adbe0a07c3b643022c7771f075b9604d"
    "e4f72f121125503933e63c7358928210a8b4737941c6e757c79b2835b456a732"
    "6419ca44fe8539950a7ab326b72627313b216bd8c82f98e640533b18d535968e"
    "0a28bb357344ba75f0e1ca07b0aba6a8c1aa2034a86c50be828015e6960a985a"
    "afa77a3167a2c9c20b36972025f90c0ac508dd641684d0bab56bc53ddb1c14c6"
    "ba77e62072f28eeb7839058c49d1d66bd45003633aa568317ea0db2f61913b51"
    "c16d003b6e51a123a9382556ab0626450d919062b3133f09c526607978eb064f"
    "2ad911de64ce953330b52cb03a51584c4a52cda91a0cc146962c0682037cc740"
    "49648bbcbf2874d74721fc824a10d1c8497c6d049003a7739cdee4acb2d60bd1"
    "3b5ef55a5d2c15b98e617a4f36028bb4388bf522147b2c9d7c3eaf90be98e035"
    "39dc8a1165643ea223ebd59d3d166c7a420b3583cee374a541a839bb2bc90871"
    "1b3a2c6a733bb376037069971eb9f0a62f7b5d63e1089c0b345a742b71515d18"
    "b25d725b9a86d7700b72194d392e97946ea820987b1a4b07ec024a47035d64c4"
    "ed0983c776a42a91c2ed79831ae452fc85a0b8c50ce28870c39383dafb854bb7"
    "8288cc34fe945449d8730c1128b26a8a881c2cf01439df565654626de0e27dd8"
    "369166bc32fb86250c74939b04ba19895be946b574a8bc12606b7cd28997272b"
    "bf9c43d0dcaff0814cbb2944b496c98d81b067f5bb1e898bf5e96802810c3197"
    "2790ab62773a770ad1265865cab3206c75a1367ee2c670f92fd333337cd250a4"
    "0014bf74bc7705c2cb3925076465a1560f5ae58a268a8d31220998c2c4968753"
    "c230b3fb73bdd94902ccf8366cfa769c8a97be08a058511d1fa8259db942b718"
    "b93e4120c6105918f23a4aa3a755ba8d7b02c886d3b3cda090eae70a5a5b27a5"
    "14842eb28848c234c1714c5ad9c692893496006d61f186445a6ed8fcbcbf8a41"
    "caa85ec4d020a37b081694878296a2033227c0cc6fc1511311f067b27b457410"
    "b46549a62b1235f107cc40fa865a116e1c8196b5e0675416731192cfeed39228"
    "a519376c699426599c2c0e8fd4cd7811cb15bb2d27504504a86d2e76ac381a6d"
    "cae75e29e6c5509bcc8d11895a66c80b037f3ee3b949fba4dad2531040166224"
    "519a754dd9b214321579f60c9dca5b967e14a41924af2f729640b11c29dc4ae2"
    "732dd3cca1afb89f22737121e91f11caa8b17abd00351164f4297ccc47f6a95f"
    "b6b5c4f2aa1fb3370872b23346da6d8d77627409c213500449b96b26a287df71"
    "13e0ea706df728f566b076ca46f6bc173fab0a1352024d098726f3194b86404a"
    "16c9893b752bba594a3520934387f5793d35737ac28b0f4ed796260a88ac167a"
    "a966c181f329e015872656bb34e02a3141bb50f832e0d25d858b5c9aecbd34c8"
    "5329d849d1736a278c611b4cb0ee27ad8c627f144800fa4a30a3d322973a6f6a"
    "42c283c19ba6577ff8f63f8e70ad69e4b7cee03b08394aaad2361a2a7405da4d"
    "c2bc15f1c232818329d728b9e9d0602a398f4300cead29675339718ac8140c14"
    "5d1065c8d54aaffbd6c946b9a187e596f06297e37883f4a43d78583403458402"
    "c38ae9e323691ba41d9a8a5a75cf54294d41f0b11d8184717724151b9bb0c110"
    "7bdb5d72b41967f46a6af5ae18a33ab9b39cb580b00a72865b135863773ff990"
    "b92cb1140584c0de016659a80cc69b76b0c89f9b7602d93c437a278e8a817591"
    "91350b5b9ee7dc0859a0a5697b2b1372996da1bda2da77da592758a58e4ce7a7"
    "db99163b4a3e1d3a67c1d067b306bcdf788939e99c12a7299c094f029630cb51"
    "0c0f9c3e1e770cb3e0729f172cf4738ed487cffed3453fc9b8e3948b8f99669f"
    "4173338a46b7ac845a704b8d953dedccaa19893c4e566850b2b554e85a470654"
    "6ac01005c5e4a4c7ebdbb277d102825bef2fbfa5b42c03ff385fa81a7b443ccd"
    "8bdb1e1c0d347deaf9238631a1e947605b44c400d0228f5e047b6183dea020ce"
    "4641230f030051d768f6ff939391cd8cec4052de67142b0164d6962299026c19"
);
pub(crate) const ML_KEM_768_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "fb34688824f643421aa00ff068a1d7829f7a5ee9fc9d86cc74156b25c089e33e"
    "eef480466ca989baaba3f2833fc90bc517bfd3884e62778e08c05c5ca329c474"
    "7d681b4ecc6b07f9b2661b9ce952ed7e014df3086a993b4af2ca511609d2f903"
    "49e0f8154aa83083582d972d3242b8914df3467db3253ca25c74e96aadc61724"
    "1a1c96b5e824af7c13b32a6c5c06ce1a4c12752abedd1e641230894ee00e2a61"
    "45bd8399a4706edf1885e63ee25295760a0b54bc2397c4dd9abf230bd5b0c36f"
    "2d5d8a8c515fd0c6748f19fff1759f0c2f840afadad637786d8cd3012cdd8b28"
    "b8d676442de8cf9a874e8320e7fd8502632a760634b2bfe5dcc61176cc68b727"
    "8c3f46c2e22dba8e20b51ca01527c681efe60cc73a20c7c8e54781b0bf19dffa"
    "21f197a30a1f381a5e91405395ebe6f6ab7031855430f163b1d44ea6989d7f29"
    "bbd7e2eea5302cad2b72fcf566ebbe41bf944f2a28ea88e23d521f5c0c8be22d"
    "5c0c8d9796eaa5f11d9eb1a805ddf6d90d728b33be6b3c18f28508024b8431c8"
    "93fce5a2a83633c522d63759c3771f094584490ad926a8891ad7246a8e25b81e"
    "4dfdff5d8695abe4bbb16717c28ed876252a06204b345fcbb65dd7c77c5a1c1f"
    "b2c4a1f6e04cf45a1482639313b21d064cf9340410e6d6545555a11eeb43502f"
    "2ebcf82e79af0fe53c3db35fcf5b1b9b501e0e2a1f70d899605b61391a6cbf10"
    "69cd5ab88e0196ec40ad038c058da0558f52bef600233b225b3e2d767115c62d"
    "f890eb29a2517cf3ba720f0aec7094fca98117f553fac1965a5768e736740e3a"
    "3e8ed9371de3a0d130866d336caca1bca20a63786e726b4d71b65e6e48865dd9"
    "b35a2c9a3058520deadfe28dcc0131162af927aecba725eac53cda800bc6aa70"
    "14df11774ac975ab8198376cd6b58815545bb533f8c197ec0671d1529feb3b92"
    "f27ea9ac8fb1264ff406a636be44fa036e9a9b612e460b8c010173033c1b1a33"
    "0cb3d5548e8309f480300257154274273090253c7bfa487f5e8bfbb2ae19f9ca"
    "4fc22c409bc704dfb0eb7f4514f2f9035996f622fafb976a7a8590510b4f339f"
    "76557b54a1f2a57d86b97c25be6261d6796e984c5e6748edafad233e24706f60"
    "3e66e8b1fbd3c47fe7c09f9a09a2fb6b70ec81870d4c6006623f3b42a2d2b1df"
    "b72bf4752cd777fbc1e3c6d23f19b6a48bdc8b34bb748d7665f75717e38cf134"
    "17656e41a2f212a07f11d366219bb7a8e3651828eaaf82808f0aab1948f35691"
    "95a44073a139058847783374f1bd1ccf652ce62a3cb714a1c8d6102d85fb1f09"
    "c38840496050c2de3fce72fe88d37d377de852f41a360fd73341e85a1fac68f3"
    "ff2cec11a4627292f69ebd409d5bbc4841fe9ff31215fb8a62278a4d010765f6"
    "cc6e37515da7523fb7790c6290fd0bf4e55bc0ca59ae9f99637a5d29d8c993ff"
    "ed7d0bcd61dff943587fb99661a1d888ff43f586dc51fc038cbc6689e066b8be"
    "b439b309f0b5f960f7abbef09422e28e1b7ee648887ef2074eba1d5217380492"
);
pub(crate) const ML_KEM_768_SHARED_SECRET: &[u8] =
    &hex_literal::hex!("773a208caa08fb98d71ed2002b48fde1dc737884827f99e45a8726d84b9ac920");

// ---------------------------------------------------------------------------------------------
// SM3.
// Source: GB/T 32905-2016 (GM/T 0004-2012) Appendix A, example 1: the message "abc".
pub(crate) const SM3_ABC: &[u8] =
    &hex_literal::hex!("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0");

// ---------------------------------------------------------------------------------------------
// HMAC-SM3.
// Source: GM/T 0042-2015 Appendix D.3, first example (as carried in Tongsuo's evp test data,
// ../shared/vectors/hmac-sm3-evp.txt): a 32-byte key and the 112-byte ASCII message
// "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq" repeated twice.
pub(crate) const HMAC_SM3_KEY: &[u8] =
    &hex_literal::hex!("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
pub(crate) const HMAC_SM3_MESSAGE_HALF: &[u8] =
    b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
pub(crate) const HMAC_SM3_TAG: &[u8] =
    &hex_literal::hex!("ca05e144ed05d1857840d1f318a4a8669e559fc8391f414485bfdf7bb408963a");

// ---------------------------------------------------------------------------------------------
// SM4 block cipher (ECB: one block).
// Source: GB/T 32907-2016 Appendix A, example 1: key and plaintext 0123456789abcdeffedcba9876543210.
pub(crate) const SM4_KEY: &[u8] = &hex_literal::hex!("0123456789abcdeffedcba9876543210");
pub(crate) const SM4_EXAMPLE1_CIPHERTEXT: &[u8] =
    &hex_literal::hex!("681edf34d206965e86b3e94f536e4246");

// ---------------------------------------------------------------------------------------------
// SM4-CBC and SM4-CTR, with the same key as above and IV = 0123456789abcdeffedcba9876543210.
// Source: draft-ribose-cfrg-sm4-10, Appendix A.2.2.1 (CBC, two blocks) and A.2.5.1 (CTR), as
// carried in Tongsuo's evp test data (../shared/vectors/sm4-evp.txt).
pub(crate) const SM4_IV: &[u8] = &hex_literal::hex!("0123456789abcdeffedcba9876543210");
pub(crate) const SM4_CBC_PLAINTEXT: &[u8] = &hex_literal::hex!(
    "0123456789abcdeffedcba9876543210" "0123456789abcdeffedcba9876543210"
);
pub(crate) const SM4_CBC_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "2677f46b09c122cc975533105bd4a22a" "f6125f7275ce552c3a2bbcf533de8a3b"
);
// SM4-OFB and SM4-CFB-128 of SM4_CBC_PLAINTEXT under SM4_KEY and SM4_IV. Source: OpenSSL's
// test/recipes/30-test_evp_data/evpciph_sm4.txt (draft-ribose-cfrg-sm4 examples).
pub(crate) const SM4_OFB_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "693d9a535bad5bb1786f53d7253a7056" "f2075d28b5235f58d50027e4177d2bce"
);
pub(crate) const SM4_CFB_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "693d9a535bad5bb1786f53d7253a7056" "9ed258a85a0467cc92aab393dd978995"
);
pub(crate) const SM4_CTR_PLAINTEXT: &[u8] = &hex_literal::hex!(
    "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
    "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa"
);
pub(crate) const SM4_CTR_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "c2b4759e78ac3cf43d0852f4e8d5f9fd7256e8a5fcb65a350ee00630912e4449"
    "2a0b17e1b85b060d0fba612d8a95831638b361fd5ffacd942f081485a83ca35d"
);

// ---------------------------------------------------------------------------------------------
// SM4-GCM and SM4-CCM, 96-bit nonce, 128-bit tag.
// Source: RFC 8998 Appendix A.1 (SM4-GCM) and A.2 (SM4-CCM), as carried in Tongsuo's evp test
// data (../shared/vectors/sm4-evp.txt). Key as SM4_KEY above; the plaintext is SM4_CTR_PLAINTEXT.
pub(crate) const RFC8998_NONCE: &[u8] = &hex_literal::hex!("00001234567800000000abcd");
pub(crate) const RFC8998_AAD: &[u8] =
    &hex_literal::hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2");
pub(crate) const SM4_GCM_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
    "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"
);
pub(crate) const SM4_GCM_TAG: &[u8] = &hex_literal::hex!("83de3541e4c2b58177e065a9bf7b62ec");
pub(crate) const SM4_CCM_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "48af93501fa62adbcd414cce6034d895dda1bf8f132f042098661572e7483094"
    "fd12e518ce062c98acee28d95df4416bed31a2f04476c18bb40c84a74b97dc5b"
);
pub(crate) const SM4_CCM_TAG: &[u8] = &hex_literal::hex!("16842d4fa186f56ab33256971fa110f4");

// ---------------------------------------------------------------------------------------------
// SM4-XTS, IEEE Std 1619 and GB/T 17964-2021 variants: same key, tweak and 56-byte plaintext.
// Source: OpenSSL test/recipes/30-test_evp_data/evpciph_sm4.txt (Apache-2.0), the SM4-XTS
// stanzas with XTSStandard = IEEE and = GB. The first block agrees; the rest differ.
pub(crate) const SM4_XTS_KEY: &[u8] = &hex_literal::hex!(
    "2b7e151628aed2a6abf7158809cf4f3c" "000102030405060708090a0b0c0d0e0f"
);
pub(crate) const SM4_XTS_TWEAK: &[u8] = &hex_literal::hex!("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
pub(crate) const SM4_XTS_PLAINTEXT: &[u8] = &hex_literal::hex!(
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17"
);
pub(crate) const SM4_XTS_IEEE_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "e9538251c71d7b80bbe4483fef497bd1b3db1a3e60408c575d63ff7db39f8326"
    "0869f9e2585fec9f0b863bf8fd784b8627d16c0db6d2cfc7"
);
pub(crate) const SM4_XTS_GB_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "e9538251c71d7b80bbe4483fef497bd12c5c581bd6242fc51e08964fb4f60fdb"
    "0ba42f63499279213d318d2c11f6886e903be7f93a1b3479"
);

// ---------------------------------------------------------------------------------------------
// SM4-CBC-CS3 on exactly two blocks. By NIST SP 800-38A Addendum (CBC-CS3), a two-block message
// is CBC-encrypted and its two ciphertext blocks are swapped; so the expected output is
// SM4_CBC_CIPHERTEXT (draft-ribose-cfrg-sm4-10 A.2.2.1) with its blocks exchanged.
pub(crate) const SM4_CBC_CS3_CIPHERTEXT: &[u8] = &hex_literal::hex!(
    "f6125f7275ce552c3a2bbcf533de8a3b" "2677f46b09c122cc975533105bd4a22a"
);

// ---------------------------------------------------------------------------------------------
// SM4-CMAC (SP 800-38B with SM4). Source: the OpenSSL 3.0 CLI as peer,
// `printf <Msg> | openssl mac -cipher SM4-CBC -macopt hexkey:<Key> CMAC`
// (crates/regula-sm/tests/data/sm4_cmac_openssl.txt).
pub(crate) const SM4_CMAC_KEY: &[u8] = &hex_literal::hex!("7778797a7b7c7d7e7f80818283848586");
pub(crate) const SM4_CMAC_MESSAGE: &[u8] =
    &hex_literal::hex!("070a0d101316191c1f2225282b2e3134373a3d404346494c4f5255585b5e616467");
pub(crate) const SM4_CMAC_TAG: &[u8] = &hex_literal::hex!("e131d0e6bce1ad90f1b7c255ee45321d");

// ---------------------------------------------------------------------------------------------
// SM4-XCBC-MAC (RFC 3566 §4 with SM4) of the one-block message M = SM4_KEY under key SM4_KEY:
// K1 = E(K, 0x01^16), K2 = E(K, 0x02^16), tag = E(K1, M xor K2). Each E computed by the OpenSSL
// 3.0 CLI as peer (`openssl enc -sm4-ecb -nopad -K <key>`).
pub(crate) const SM4_XCBC_TAG: &[u8] = &hex_literal::hex!("d78b7d602e63d720ca98fe037362ac85");

// SM4-CBC-MAC (ISO/IEC 9797-1 MAC algorithm 1, zero IV) of the one-block message M = SM4_KEY:
// the single CBC step is E(K, M), i.e. GB/T 32907 example 1 (SM4_EXAMPLE1_CIPHERTEXT).

// ---------------------------------------------------------------------------------------------
// SM2 signature, on the recommended curve. Source: GB/T 32918.5-2017 Annex A (also in OpenSSL's
// test/sm2_internal_test.c): private key d, the message "message digest", the default user ID
// "1234567812345678" (GM/T 0009-2012 §10), the fixed k, and the signature (r, s).
pub(crate) const SM2_PRIVATE_KEY: &[u8] =
    &hex_literal::hex!("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
pub(crate) const SM2_SIGN_MESSAGE: &[u8] = b"message digest";
pub(crate) const SM2_DEFAULT_ID: &[u8] = b"1234567812345678";
pub(crate) const SM2_K: &[u8] =
    &hex_literal::hex!("59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21");
pub(crate) const SM2_SIGNATURE_R_S: &[u8] = &hex_literal::hex!(
    "F5A03B0648D2C4630EEAC513E1BB81A15944DA3827D5B74143AC7EACEEE720B3"
    "B1B6AA29DF212FD8763182BC0D421CA1BB9038FD1F7F42D4840B69C485BBC1AA"
);

// SM2 encryption. Source: GB/T 32918.5-2017 Annex C with the same d and k: the message
// "encryption standard" and the ciphertext C1 ‖ C3 ‖ C2 (OpenSSL's test/sm2_internal_test.c
// carries the same values in the GM/T 0009 ASN.1 form).
pub(crate) const SM2_ENCRYPT_MESSAGE: &[u8] = b"encryption standard";
pub(crate) const SM2_CIPHERTEXT_C1C3C2: &[u8] = &hex_literal::hex!(
    "04"
    "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "21886CA989CA9C7D58087307CA93092D651EFA"
);

// SM2 ECDH: x([d]Q) with d = SM2_PRIVATE_KEY and Q = [d_B]G for d_B below (user B's key of the
// GM/T 0003.5-2012 key-exchange example, reused on the recommended curve). Source: computed by
// the independent pure-Python implementation gmalg 1.1.2 (PyPI), `ecdlp.ec.mul`.
pub(crate) const SM2_ECDH_PEER_PRIVATE_KEY: &[u8] =
    &hex_literal::hex!("5E35D7D3F3C54DBAC72E61819E730B019A84208CA3A35E4C2E353DFCCB2A3B53");
pub(crate) const SM2_ECDH_PEER_PUBLIC_KEY: &[u8] = &hex_literal::hex!(
    "04"
    "9eafb2cef3c95526c686a6c961a247a1aee7fc2e802454227a012b083ac553f5"
    "e30eb411162cd81274bdaff97896f264171cad0743dfa5ad39dfe0d924b167f9"
);
pub(crate) const SM2_ECDH_SHARED_X: &[u8] =
    &hex_literal::hex!("b59c6a4b5cf708257e56d3b8d3b2aaca08b56c2bbe77df34b84d2b07501bd93d");

// SM2 key exchange (GB/T 32918.3-2016 §6.1), initiator A and responder B. Inputs: the static
// keys, ephemeral scalars and IDs of GM/T 0003.5-2012 Annex B (whose test curve makes its own
// outputs inapplicable), used on the recommended curve. Expected 16-byte key: computed by the
// independent pure-Python implementation gmalg 1.1.2 (PyPI), `SM2.begin_key_exchange` /
// `end_key_exchange`.
pub(crate) const SM2_KX_PRIVATE_A: &[u8] =
    &hex_literal::hex!("6FCBA2EF9AE0AB902BC3BDE3FF915D44BA4CC78F88E2F8E7F8996D3B8CCEEDEE");
pub(crate) const SM2_KX_EPHEMERAL_A: &[u8] =
    &hex_literal::hex!("83A2C9C8B96E5AF70BD480B472409A9A327257F1EBB73F5B073354B248668563");
pub(crate) const SM2_KX_ID_A: &[u8] = b"ALICE123@YAHOO.COM";
pub(crate) const SM2_KX_EPHEMERAL_B: &[u8] =
    &hex_literal::hex!("33FE21940342161C55619C4A0C060293D543C80AF19748CE176D83477DE71C80");
pub(crate) const SM2_KX_ID_B: &[u8] = b"BILL456@YAHOO.COM";
pub(crate) const SM2_KX_KEY: &[u8] = &hex_literal::hex!("f02f9068ad13e14f2b2602e0dfb2504f");

// ---------------------------------------------------------------------------------------------
// AES-256-CCM, 11-byte nonce (SMB 3.x's) and 16-byte tag, with 32 bytes of AAD.
// Source: NIST CAVP CCM test vectors (CAVS 11.0), file VNT256.rsp ("CCM-VNT", AES Keylen 256,
// Alen = 32, Plen = 24, Tlen = 16), section [Nlen = 11], Count = 40: Key, Nonce, Adata, Payload,
// CT (the 24-byte ciphertext followed by the 16-byte tag). Read from the cryptography-vectors
// package (ciphers/AES/CCM/VNT256.rsp).
pub(crate) const AES256_CCM_KEY: &[u8] =
    &hex_literal::hex!("97bc7482a87ba005475dfa3448f59d4b3f9c4c969d08b39b1b21ef965c0f5125");
pub(crate) const AES256_CCM_NONCE: &[u8] = &hex_literal::hex!("0bcf78103ec52d6df28887");
pub(crate) const AES256_CCM_AAD: &[u8] =
    &hex_literal::hex!("049c10f0cb37ae08eae2d0766563b7c5a8454f841c2061a4f71a0a2158ae6ce5");
pub(crate) const AES256_CCM_PLAINTEXT: &[u8] =
    &hex_literal::hex!("b99bf4dc781795fc4d3a8467b06e1665d4e543657f23129f");
pub(crate) const AES256_CCM_CIPHERTEXT: &[u8] =
    &hex_literal::hex!("0d3891fa0caac1f7ebe41b480920ffd34d4155064c24f3b1");
pub(crate) const AES256_CCM_TAG: &[u8] = &hex_literal::hex!("7a483163dd8f228d1f20cd4f86cf38fd");

// ---------------------------------------------------------------------------------------------
// AES-256-GMAC (GCM over an empty plaintext), 96-bit IV, 20-byte message (a partial block).
// Source: NIST CAVP GCM test vectors (CAVS 14.0), file gcmEncryptExtIV256.rsp, section
// [Keylen = 256] [IVlen = 96] [PTlen = 0] [AADlen = 160] [Taglen = 128], Count = 0: Key, IV,
// AAD (the message), Tag. Read from the cryptography-vectors package
// (ciphers/AES/GCM/gcmEncryptExtIV256.rsp).
pub(crate) const AES256_GMAC_KEY: &[u8] =
    &hex_literal::hex!("886cff5f3e6b8d0e1ad0a38fcdb26de97e8acbe79f6bed66959a598fa5047d65");
pub(crate) const AES256_GMAC_IV: &[u8] = &hex_literal::hex!("3a8efa1cd74bbab5448f9945");
pub(crate) const AES256_GMAC_MESSAGE: &[u8] =
    &hex_literal::hex!("519fee519d25c7a304d6c6aa1897ee1eb8c59655");
pub(crate) const AES256_GMAC_TAG: &[u8] = &hex_literal::hex!("f6d47505ec96c98a42dc3ae719877b87");

// ---------------------------------------------------------------------------------------------
// AES-256-XTS, a 256-bit data unit (two blocks), 128-bit tweak.
// Source: NIST CAVP XTS test vectors (CAVS 11.0, "XTSGen", AES256, tweak given as a 128-bit hex
// string), file XTSGenAES256.rsp, [ENCRYPT] COUNT = 1 (DataUnitLen = 256): Key (Key1 ‖ Key2),
// i (the tweak), PT, CT. Read from the cryptography-vectors package
// (ciphers/AES/XTS/tweak-128hexstr/XTSGenAES256.rsp).
pub(crate) const AES256_XTS_KEY: &[u8] = &hex_literal::hex!(
    "1ea661c58d943a0e4801e42f4b0947149e7f9f8e3e68d0c7505210bd311a0e7c"
    "d6e13ffdf2418d8d1911c004cda58da3d619b7e2b9141e58318eea392cf41b08"
);
pub(crate) const AES256_XTS_TWEAK: &[u8] = &hex_literal::hex!("adf8d92627464ad2f0428e84a9f87564");
pub(crate) const AES256_XTS_PLAINTEXT: &[u8] =
    &hex_literal::hex!("2eedea52cd8215e1acc647e810bbc3642e87287f8d2e57e36c0a24fbc12a202e");
pub(crate) const AES256_XTS_CIPHERTEXT: &[u8] =
    &hex_literal::hex!("cbaad0e2f6cea3f50b37f934d46a9b130b9d54f07e34f36af793e86f73c6d7db");

// ---------------------------------------------------------------------------------------------
// AES-256-CFB8 (8-bit segments), 18 segments.
// Source: NIST SP 800-38A (2001), Appendix F.3.11 "CFB8-AES256.Encrypt": Key, IV, Plaintext and
// Ciphertext segments #1-#18 (the key is that of F.2.5/F.5.5 above).
pub(crate) const AES256_CFB8_KEY: &[u8] =
    &hex_literal::hex!("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
pub(crate) const AES256_CFB8_IV: &[u8] = &hex_literal::hex!("000102030405060708090a0b0c0d0e0f");
pub(crate) const AES256_CFB8_PLAINTEXT: &[u8] =
    &hex_literal::hex!("6bc1bee22e409f96e93d7e117393172aae2d");
pub(crate) const AES256_CFB8_CIPHERTEXT: &[u8] =
    &hex_literal::hex!("dc1f1a8520a64db55fcc8ac554844e889700");

// ---------------------------------------------------------------------------------------------
// AES-256 key wrap (SP 800-38F KW).
// Source: RFC 3394 section 4.6 "Wrap 256 bits of Key Data with a 256-bit KEK": KEK, Key Data,
// Ciphertext.
pub(crate) const AES256_KW_KEK: &[u8] =
    &hex_literal::hex!("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
pub(crate) const AES256_KW_KEY_DATA: &[u8] =
    &hex_literal::hex!("00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f");
pub(crate) const AES256_KW_WRAPPED: &[u8] = &hex_literal::hex!(
    "28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43b"
    "fb988b9b7a02dd21"
);

// ---------------------------------------------------------------------------------------------
// AES-256 key wrap with padding (SP 800-38F KWP), 9 bytes of key data (padded to two
// semiblocks, so the wrapping function W runs rather than the single-block case).
// Source: NIST CAVP key-wrap test vectors (CAVS 21.4), file KWP_AE_256.txt ("SP 800-38F KWP-AE
// with AES-256"), [PLAINTEXT LENGTH = 72] COUNT = 0: K, P, C. Read from the
// cryptography-vectors package (keywrap/kwtestvectors/KWP_AE_256.txt).
pub(crate) const AES256_KWP_KEK: &[u8] =
    &hex_literal::hex!("70da43aac823c6dd37d1109f5b18feb4503c973288989745e2cc1cc21d9570c6");
pub(crate) const AES256_KWP_KEY_DATA: &[u8] = &hex_literal::hex!("edf17d966ed896aee3");
pub(crate) const AES256_KWP_WRAPPED: &[u8] =
    &hex_literal::hex!("d67b5b2ad15c645450e23b5e7b6d682f8ae20e716d470db7");

// ---------------------------------------------------------------------------------------------
// HMAC-SHA-1.
// Source: RFC 2202 section 3 "Test Cases for HMAC-SHA-1", test_case 2 (key = "Jefe",
// data = "what do ya want for nothing?") and test_case 6 (key = 0xaa repeated 80 times, longer
// than the block; data = "Test Using Larger Than Block-Size Key - Hash Key First", the same
// data as RFC 4231 Test Case 6 above).
pub(crate) const HMAC_RFC2202_TC2_KEY: &[u8] = b"Jefe";
pub(crate) const HMAC_RFC2202_TC2_DATA: &[u8] = b"what do ya want for nothing?";
pub(crate) const HMAC_RFC2202_TC6_KEY: &[u8] = &[0xaa; 80];
pub(crate) const HMAC_SHA1_RFC2202_TC2: &[u8] =
    &hex_literal::hex!("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
pub(crate) const HMAC_SHA1_RFC2202_TC6: &[u8] =
    &hex_literal::hex!("aa4ae5e15272d00e95705637ce8a3b55ed402112");

// ---------------------------------------------------------------------------------------------
// SP 800-108 KDF in counter mode, PRF HMAC-SHA-256, 32-bit counter before the fixed input,
// L = 320 bits (two PRF blocks, the second truncated).
// Source: NIST CAVP SP 800-108 KDF test vectors (CAVS 14.4, counter mode), section
// [PRF=HMAC_SHA256] [CTRLOCATION=BEFORE_FIXED] [RLEN=32_BITS], COUNT=30 (L = 320): KI,
// FixedInputData, KO. Read from the cryptography-vectors package
// (KDF/nist-800-108-KBKDF-CTR.txt).
pub(crate) const KBKDF_SHA256_KEY: &[u8] =
    &hex_literal::hex!("c4bedbddb66493e7c7259a3bbbc25f8c7e0ca7fe284d92d431d9cd99a0d214ac");
pub(crate) const KBKDF_SHA256_FIXED_INPUT: &[u8] = &hex_literal::hex!(
    "1c69c54766791e315c2cc5c47ecd3ffab87d0d273dd920e70955814c220eacac"
    "e6a5946542da3dfe24ff626b4897898cafb7db83bdff3c14fa46fd4b"
);
pub(crate) const KBKDF_SHA256_OUTPUT: &[u8] = &hex_literal::hex!(
    "1da47638d6c9c4d04d74d4640bbd42ab814d9e8cc22f4326695239f96b0693f1"
    "2d0dd1152cf44430"
);

// ---------------------------------------------------------------------------------------------
// ML-DSA-44 (FIPS 204): key generation from a seed, and a deterministic signature (empty
// context) that must verify.
// Source: Project Wycheproof, mldsa_44_sign_seed_test.json, first test group (privateSeed = 32
// bytes of 0x2a) and its tcId 1 "baseline" (msg = "Hello world", flags [ValidSignature]); the
// public key and signature are in ml_dsa_44_wycheproof.txt (copied from the wycheproof 0.7.0
// crate's src/data/, Apache License 2.0).
pub(crate) const ML_DSA_44_SEED: &[u8] = &[0x2a; 32];
pub(crate) const ML_DSA_44_MESSAGE: &[u8] = b"Hello world";
const ML_DSA_44_DATA: &str = include_str!("ml_dsa_44_wycheproof.txt");
pub(crate) static ML_DSA_44_PUBLIC: [u8; 1312] = hex_field(ML_DSA_44_DATA, "public_key");
pub(crate) static ML_DSA_44_SIGNATURE: [u8; 2420] = hex_field(ML_DSA_44_DATA, "signature");

/// The value of the line `name = <hex>` of a data file, decoded at compile time (a missing
/// field, a bad digit or a wrong length stops the build).
const fn hex_field<const N: usize>(text: &str, name: &str) -> [u8; N] {
    const fn nibble(digit: u8) -> u8 {
        match digit {
            b'0'..=b'9' => digit - b'0',
            b'a'..=b'f' => digit - b'a' + 10,
            b'A'..=b'F' => digit - b'A' + 10,
            _ => panic!("not a hex digit"),
        }
    }
    const fn starts_at(text: &[u8], at: usize, prefix: &[u8]) -> bool {
        if at + prefix.len() > text.len() {
            return false;
        }
        let mut index = 0;
        while index < prefix.len() {
            if text[at + index] != prefix[index] {
                return false;
            }
            index += 1;
        }
        true
    }
    let (text, name) = (text.as_bytes(), name.as_bytes());
    let mut line = 0;
    while line < text.len() {
        if starts_at(text, line, name) && starts_at(text, line + name.len(), b" = ") {
            let mut at = line + name.len() + 3;
            let mut value = [0u8; N];
            let mut index = 0;
            while index < N {
                value[index] = (nibble(text[at]) << 4) | nibble(text[at + 1]);
                at += 2;
                index += 1;
            }
            assert!(
                at == text.len() || text[at] == b'\n',
                "hex value longer than expected"
            );
            return value;
        }
        while line < text.len() && text[line] != b'\n' {
            line += 1;
        }
        line += 1;
    }
    panic!("field not found")
}

// ---------------------------------------------------------------------------------------------
// The legacy set (served only outside FIPS and GM profiles).

// MD4 and MD5 of the last (80-byte, two-block) message of the RFCs' test suites,
// "12345678901234567890123456789012345678901234567890123456789012345678901234567890".
// Source: RFC 1320 Appendix A.5 "Test suite" (MD4) and RFC 1321 Appendix A.5 "Test suite" (MD5).
pub(crate) const MD_MSG_80_DIGITS: &[u8] =
    b"12345678901234567890123456789012345678901234567890123456789012345678901234567890";
pub(crate) const MD4_80_DIGITS: &[u8] = &hex_literal::hex!("e33b4ddc9c38f2199c3e7b164fcc0536");
pub(crate) const MD5_80_DIGITS: &[u8] = &hex_literal::hex!("57edf4a22be3c955ac49da2e2107b67a");

// HMAC-MD5.
// Source: RFC 2202 section 2 "Test Cases for HMAC-MD5", test_case 2 and test_case 6 (the keys
// and data of the HMAC-SHA-1 cases above: "Jefe"; 80 bytes of 0xaa).
pub(crate) const HMAC_MD5_RFC2202_TC2: &[u8] =
    &hex_literal::hex!("750c783e6ab0b503eaa86e310a5db738");
pub(crate) const HMAC_MD5_RFC2202_TC6: &[u8] =
    &hex_literal::hex!("6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd");

// RC4, 128-bit key: the first 32 bytes of key stream (encrypting zeros).
// Source: RFC 6229 section 2 "Test Vectors for RC4", key length 128 bits,
// key = 0x0102030405060708090a0b0c0d0e0f10, DEC 0 and DEC 16 (HEX 0 and 10) lines.
pub(crate) const RC4_KEY: &[u8] = &hex_literal::hex!("0102030405060708090a0b0c0d0e0f10");
pub(crate) const RC4_KEY_STREAM: &[u8] = &hex_literal::hex!(
    "9ac7cc9a609d1ef7b2932899cde41b97"
    "5248c4959014126a6e8a84f11d1a9e1c"
);

// DES-CBC.
// Source: FIPS PUB 81 (1980), Appendix C, Table C1 "An Example of the Cipher Block Chaining
// (CBC) Mode": key 0123456789abcdef, IV 1234567890abcdef, plaintext "Now is the time for all "
// (three blocks), cipher text e5c7cdde872bf27c 43e934008c389c0f 683788499a7c05f6.
pub(crate) const DES_CBC_KEY: &[u8] = &hex_literal::hex!("0123456789abcdef");
pub(crate) const DES_CBC_IV: &[u8] = &hex_literal::hex!("1234567890abcdef");
pub(crate) const DES_CBC_PLAINTEXT: &[u8] = b"Now is the time for all ";
pub(crate) const DES_CBC_CIPHERTEXT: &[u8] =
    &hex_literal::hex!("e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6");

// 3DES (three-key TDEA) CBC, three blocks.
// Source: NIST CAVP TDES test vectors (CAVS 11.1), file TCBCMMT3.rsp ("TDES Multi block
// Message Test for CBC", keying option 3), [ENCRYPT] COUNT = 2: KEY1 ‖ KEY2 ‖ KEY3, IV,
// PLAINTEXT, CIPHERTEXT. Read from the cryptography-vectors package
// (ciphers/3DES/CBC/TCBCMMT3.rsp).
pub(crate) const TDES_CBC_KEY: &[u8] = &hex_literal::hex!(
    "1a5d4c0825072a15"
    "a8ad9dfdaeda8c04"
    "8adffb85bc4fced0"
);
pub(crate) const TDES_CBC_IV: &[u8] = &hex_literal::hex!("7fcfa736f7548b6f");
pub(crate) const TDES_CBC_PLAINTEXT: &[u8] =
    &hex_literal::hex!("983c3edacd939406010e1bc6ff9e12320ac5008117fa8f84");
pub(crate) const TDES_CBC_CIPHERTEXT: &[u8] =
    &hex_literal::hex!("d84fa24f38cf451ca2c9adc960120bd8ff9871584fe31cee");

// ---------------------------------------------------------------------------------------------
// GM/T 0105-2021 Annex B (SM3) and Annex E (SM4 CTR) generators: instantiate, request with
// additional input, reseed, request again. Source: an independent implementation,
// github.com/emmansun/gmsm v0.15.5 drbg (crates/regula-sm/tests/data/gmt0105-drbg-gmsm.txt).
pub(crate) const GMT0105_SM3_DRBG_ENTROPY: &[u8] = &hex_literal::hex!(
    "87b79b30ffe89f608f2c4cdee9cdcf362640f5b700954641d7bc516d385cc624"
    "e03e4414d1b3fe10486d832451b3df9130daeaf1d63243a14df6fddd4b489b5d"
);
pub(crate) const GMT0105_SM3_DRBG_NONCE: &[u8] =
    &hex_literal::hex!("1dd1c5d9b4c52ff6cf28dc816456d532");
pub(crate) const GMT0105_SM3_DRBG_PERSONALIZATION: &[u8] =
    &hex_literal::hex!("8956ab5f890e9061b1a0a15d1f65e4d11a045eb0");
pub(crate) const GMT0105_SM3_DRBG_ADDITIONAL_1: &[u8] = &hex_literal::hex!(
    "5467c510368d93e85eaa33fa1d65116399b4d8c96222593b7c714e8172be7d92"
    "c64a325f7b"
);
pub(crate) const GMT0105_SM3_DRBG_OUTPUT_1: &[u8] =
    &hex_literal::hex!("d405674ccebd7f54cffe97abc33f294b7dc733f6362cea8e7f123907f17b8cd8");
pub(crate) const GMT0105_SM3_DRBG_RESEED_ENTROPY: &[u8] = &hex_literal::hex!(
    "e8ce95d27b1f683d1f514ee9a27fd5ab26df8fd0e3c035ca2b09fc0b2251650f"
    "3d4e589082fc490bc0e352c0aa38c861804397e123a954f0b5ca71ea829942e9"
);
pub(crate) const GMT0105_SM3_DRBG_RESEED_ADDITIONAL: &[u8] =
    &hex_literal::hex!("06bf596325146689b639c273dd84901113475484aac19702");
pub(crate) const GMT0105_SM3_DRBG_ADDITIONAL_2: &[u8] =
    &hex_literal::hex!("f4a94a515e809f1721bb47642ceb2495");
pub(crate) const GMT0105_SM3_DRBG_OUTPUT_2: &[u8] =
    &hex_literal::hex!("0f75570fcf131f12651f7bc7a61a1d1f641dc92bdbd3e436ca6870b6756bef4a");
pub(crate) const GMT0105_SM4_CTR_DRBG_ENTROPY: &[u8] = &hex_literal::hex!(
    "8706916932379fc051d558d2a4398b955e931d59784cf18dd18a02319702ee2b"
    "5cb09008c6327f68afb5a40c37667fc9"
);
pub(crate) const GMT0105_SM4_CTR_DRBG_NONCE: &[u8] =
    &hex_literal::hex!("6109574e08c76e1313b6edcc8bb37f50");
pub(crate) const GMT0105_SM4_CTR_DRBG_PERSONALIZATION: &[u8] = &hex_literal::hex!(
    "f9a439c5e9bfde772c590588db52f291c425bd1c894e70b3845a1a3d8da5198a"
    "fdb808cf75adba4f"
);
pub(crate) const GMT0105_SM4_CTR_DRBG_ADDITIONAL_1: &[u8] = &hex_literal::hex!("");
pub(crate) const GMT0105_SM4_CTR_DRBG_OUTPUT_1: &[u8] =
    &hex_literal::hex!("48814fcfcd95b150e6a59ee01626fad6");
pub(crate) const GMT0105_SM4_CTR_DRBG_RESEED_ENTROPY: &[u8] = &hex_literal::hex!(
    "fe2a656f3979bc91d0c4f01f27eeeedcf6f0f9f84a6f72a26d77fc0259159b9e"
    "3296a665b226b301e7d27f278ce1b5b08f886671ecba05f28a8ebfb571e717e5"
);
pub(crate) const GMT0105_SM4_CTR_DRBG_RESEED_ADDITIONAL: &[u8] =
    &hex_literal::hex!("d78cb9c57a765f408283eeb6f25c2ec26b0d840748054a27");
pub(crate) const GMT0105_SM4_CTR_DRBG_ADDITIONAL_2: &[u8] =
    &hex_literal::hex!("25a92db684081821c88759ec013de56e59a7fc");
pub(crate) const GMT0105_SM4_CTR_DRBG_OUTPUT_2: &[u8] =
    &hex_literal::hex!("3c91ff51afc0879b1f019663c69762af");
