//! The token through its exported C functions, with known answers from the standards: FIPS 180
//! SHA-256("abc"), RFC 1321 MD5("abc"), GB/T 32905 SM3("abc"), RFC 4231 HMAC, SP 800-38B
//! AES-CMAC, SP 800-38A AES-CBC and AES-CTR, the GCM specification's test cases 3 and 4, and the
//! GB/T 32907 SM4 example. The configuration is the README's example, plus a `gm` slot.

use std::ptr::null_mut;

use hex_literal::hex;
use regula_pkcs11::*;

mod common;
use common::*;

fn secret_key(
    session: CK_SESSION_HANDLE,
    key_type: CK_KEY_TYPE,
    value: &[u8],
    sensitive: bool,
) -> CK_OBJECT_HANDLE {
    let class = CKO_SECRET_KEY;
    let sensitive = if sensitive { TRUE } else { FALSE };
    let mut template = [
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
        bytes(CKA_VALUE, value),
        attribute(CKA_SENSITIVE, &sensitive),
        bytes(CKA_LABEL, b"test key"),
    ];
    create_object(session, &mut template)
}

fn digest(session: CK_SESSION_HANDLE, kind: CK_MECHANISM_TYPE, data: &[u8]) -> Vec<u8> {
    let mut mechanism = mechanism(kind);
    // SAFETY: live locals; the length protocol is followed.
    unsafe {
        assert_eq!(C_DigestInit(session, &mut mechanism), CKR_OK);
        let mut len = 0;
        let data_ptr = data.as_ptr().cast_mut();
        assert_eq!(
            C_Digest(
                session,
                data_ptr,
                data.len() as CK_ULONG,
                null_mut(),
                &mut len
            ),
            CKR_OK
        );
        let mut out = vec![0u8; len as usize];
        assert_eq!(
            C_Digest(
                session,
                data_ptr,
                data.len() as CK_ULONG,
                out.as_mut_ptr(),
                &mut len
            ),
            CKR_OK
        );
        out.truncate(len as usize);
        out
    }
}

#[test]
fn digests_give_the_standards_answers_and_the_indicator_follows_the_policy() {
    with_token(|_| {
        let fips = open(FIPS);
        assert_eq!(
            digest(fips, CKM_SHA256, b"abc"),
            hex!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        assert_eq!(validation_flags(fips), VALIDATION_FLAG_POLICY);

        let default = open(DEFAULT);
        assert_eq!(
            digest(default, CKM_MD5, b"abc"),
            hex!("900150983cd24fb0d6963f7d28e17f72")
        );
        assert_eq!(
            validation_flags(default),
            0,
            "MD5 is served but never approved"
        );

        let gm = open(GM);
        let sm3 = CK_MECHANISM_TYPE::from(regula::registry::pkcs11::CKM_REGULA_SM3.value);
        assert_eq!(
            digest(gm, sm3, b"abc"),
            hex!("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")
        );
        assert_eq!(validation_flags(gm), VALIDATION_FLAG_POLICY);
        let mut sm3_mechanism = mechanism(sm3);
        assert_eq!(
            // SAFETY: a live local.
            unsafe { C_DigestInit(fips, &mut sm3_mechanism) },
            CKR_MECHANISM_INVALID
        );

        // Multi-part, and a buffer too small keeps the operation.
        let mut sha = mechanism(CKM_SHA256);
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_DigestInit(fips, &mut sha), CKR_OK);
            for piece in [&b"a"[..], b"", b"bc"] {
                assert_eq!(
                    C_DigestUpdate(fips, piece.as_ptr().cast_mut(), piece.len() as CK_ULONG),
                    CKR_OK
                );
            }
            let mut small = [0u8; 31];
            let mut len = small.len() as CK_ULONG;
            assert_eq!(
                C_DigestFinal(fips, small.as_mut_ptr(), &mut len),
                CKR_BUFFER_TOO_SMALL
            );
            assert_eq!(len, 32);
            let mut out = [0u8; 32];
            assert_eq!(C_DigestFinal(fips, out.as_mut_ptr(), &mut len), CKR_OK);
            assert_eq!(
                out,
                hex!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            );
            assert_eq!(
                C_DigestFinal(fips, out.as_mut_ptr(), &mut len),
                CKR_OPERATION_NOT_INITIALIZED
            );
        }
    });
}

#[test]
fn macs_give_rfc_4231_and_sp_800_38b_answers() {
    with_token(|_| {
        // RFC 4231 test case 1 (a 160-bit key) on the fips-140-3 slot.
        let session = open(FIPS);
        let key = secret_key(session, CKK_GENERIC_SECRET, &[0x0b; 20], true);
        let data = b"Hi There";
        let mut hmac = mechanism(CKM_SHA256_HMAC);
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_SignInit(session, &mut hmac, key), CKR_OK);
            let mut len = 0;
            assert_eq!(
                C_Sign(
                    session,
                    data.as_ptr().cast_mut(),
                    data.len() as CK_ULONG,
                    null_mut(),
                    &mut len
                ),
                CKR_OK
            );
            assert_eq!(len, 32);
            let mut tag = [0u8; 32];
            assert_eq!(
                C_Sign(
                    session,
                    data.as_ptr().cast_mut(),
                    data.len() as CK_ULONG,
                    tag.as_mut_ptr(),
                    &mut len
                ),
                CKR_OK
            );
            assert_eq!(
                tag,
                hex!("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        }
        // RFC 4231 test case 2 on the default slot, signed and verified.
        let default = open(DEFAULT);
        let key = secret_key(default, CKK_GENERIC_SECRET, b"Jefe", true);
        let data = b"what do ya want for nothing?";
        let mut tag = hex!("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_VerifyInit(default, &mut hmac, key), CKR_OK);
            assert_eq!(
                C_Verify(
                    default,
                    data.as_ptr().cast_mut(),
                    data.len() as CK_ULONG,
                    tag.as_mut_ptr(),
                    32
                ),
                CKR_OK
            );
            tag[31] ^= 1;
            assert_eq!(C_VerifyInit(default, &mut hmac, key), CKR_OK);
            assert_eq!(
                C_Verify(
                    default,
                    data.as_ptr().cast_mut(),
                    data.len() as CK_ULONG,
                    tag.as_mut_ptr(),
                    32
                ),
                CKR_SIGNATURE_INVALID
            );
            assert_eq!(C_VerifyInit(default, &mut hmac, key), CKR_OK);
            assert_eq!(
                C_Verify(
                    default,
                    data.as_ptr().cast_mut(),
                    data.len() as CK_ULONG,
                    tag.as_mut_ptr(),
                    31
                ),
                CKR_SIGNATURE_LEN_RANGE
            );
        }

        // SP 800-38B D.1 (AES-128 CMAC), example 2, in two updates.
        let key = secret_key(
            session,
            CKK_AES,
            &hex!("2b7e151628aed2a6abf7158809cf4f3c"),
            true,
        );
        let message = hex!("6bc1bee22e409f96e93d7e117393172a");
        let mut cmac = mechanism(CKM_AES_CMAC);
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_SignInit(session, &mut cmac, key), CKR_OK);
            assert_eq!(
                C_SignUpdate(session, message.as_ptr().cast_mut(), 7),
                CKR_OK
            );
            assert_eq!(
                C_SignUpdate(session, message[7..].as_ptr().cast_mut(), 9),
                CKR_OK
            );
            let mut tag = [0u8; 16];
            let mut len = 16;
            assert_eq!(C_SignFinal(session, tag.as_mut_ptr(), &mut len), CKR_OK);
            assert_eq!(tag, hex!("070a16b46b4d4144f79bdd9dd04a287c"));
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        }
    });
}

#[test]
fn aes_cbc_and_ctr_give_sp_800_38a_answers() {
    with_token(|_| {
        let session = open(FIPS);
        let key = secret_key(
            session,
            CKK_AES,
            &hex!("2b7e151628aed2a6abf7158809cf4f3c"),
            true,
        );
        let plaintext = hex!("6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51");
        // F.2.1 CBC-AES128.Encrypt.
        let mut iv = hex!("000102030405060708090a0b0c0d0e0f");
        let mut cbc = with_param(CKM_AES_CBC, &mut iv);
        let ciphertext = crypt(session, &mut cbc, key, &plaintext, true).unwrap();
        assert_eq!(
            ciphertext,
            hex!("7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2")
        );
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        assert_eq!(
            crypt(session, &mut cbc, key, &ciphertext, false).unwrap(),
            plaintext
        );
        assert_eq!(
            crypt(session, &mut cbc, key, &plaintext[..17], true),
            Err(CKR_DATA_LEN_RANGE)
        );
        // CBC-PAD: the same blocks, then a block of padding.
        let mut cbc_pad = with_param(CKM_AES_CBC_PAD, &mut iv);
        let padded = crypt(session, &mut cbc_pad, key, &plaintext, true).unwrap();
        assert_eq!(padded.len(), 48);
        assert_eq!(padded[..32], ciphertext);
        assert_eq!(
            crypt(session, &mut cbc_pad, key, &padded, false).unwrap(),
            plaintext
        );
        // 17 bytes pad to 32: a 32-byte buffer is enough although the length query may answer
        // more (the standard lets it exceed the exact length a little).
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_EncryptInit(session, &mut cbc_pad, key), CKR_OK);
            let mut out = [0u8; 32];
            let mut len = 32;
            let data = plaintext.as_ptr().cast_mut();
            assert_eq!(
                C_Encrypt(session, data, 17, out.as_mut_ptr(), &mut len),
                CKR_OK
            );
            assert_eq!(len, 32);
            assert_eq!(out[..16], ciphertext[..16]);
            assert_eq!(C_DecryptInit(session, &mut cbc_pad, key), CKR_OK);
            let mut plain = [0u8; 17];
            let mut len = 17;
            assert_eq!(
                C_Decrypt(session, out.as_mut_ptr(), 32, plain.as_mut_ptr(), &mut len),
                CKR_OK
            );
            assert_eq!((len, &plain[..]), (17, &plaintext[..17]));
        }

        // F.5.1 CTR-AES128.Encrypt, multi-part in uneven pieces.
        let mut params = CK_AES_CTR_PARAMS {
            ulCounterBits: 128,
            cb: hex!("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
        };
        let mut ctr = with_param(CKM_AES_CTR, &mut params);
        let mut out = vec![0u8; 32];
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_EncryptInit(session, &mut ctr, key), CKR_OK);
            let mut done = 0;
            for piece in [&plaintext[..5], &plaintext[5..21], &plaintext[21..]] {
                let mut len = (out.len() - done) as CK_ULONG;
                assert_eq!(
                    C_EncryptUpdate(
                        session,
                        piece.as_ptr().cast_mut(),
                        piece.len() as CK_ULONG,
                        out[done..].as_mut_ptr(),
                        &mut len
                    ),
                    CKR_OK
                );
                done += len as usize;
            }
            let mut len = 0;
            assert_eq!(
                C_EncryptFinal(session, out[done..].as_mut_ptr(), &mut len),
                CKR_OK
            );
            assert_eq!(done + len as usize, 32);
        }
        assert_eq!(
            out,
            hex!("874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff")
        );
        // An 8-bit counter at 0xff leaves one block before it would wrap.
        let mut params = CK_AES_CTR_PARAMS {
            ulCounterBits: 8,
            cb: hex!("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
        };
        let mut ctr = with_param(CKM_AES_CTR, &mut params);
        assert_eq!(
            crypt(session, &mut ctr, key, &plaintext, true),
            Err(CKR_DATA_LEN_RANGE)
        );
        assert_eq!(
            crypt(session, &mut ctr, key, &plaintext[..16], true).unwrap(),
            hex!("874d6191b620e3261bef6864990db6ce")
        );
    });
}

/// Single-part GCM writes straight into the caller's buffer; where the caller encrypts or
/// decrypts in place (PKCS#11 lets input and output be one buffer) the result is still the
/// specification's, and a tag that fails leaves nothing of the plaintext in the buffer.
#[test]
fn gcm_in_place_and_a_failed_tag_leave_no_plaintext() {
    with_token(|_| {
        let session = open(DEFAULT);
        let key = secret_key(session, CKK_AES, &GCM_KEY, true);
        let mut iv = GCM_IV;
        let mut params = gcm_params(&mut iv, &[]);
        let mut gcm = with_param(CKM_AES_GCM, &mut params);
        let mut buffer = [GCM_PLAINTEXT.to_vec(), vec![0; 16]].concat();
        // SAFETY: one live buffer, its true length given for each use.
        unsafe {
            assert_eq!(C_EncryptInit(session, &mut gcm, key), CKR_OK);
            let mut len = buffer.len() as CK_ULONG;
            let pointer = buffer.as_mut_ptr();
            assert_eq!(C_Encrypt(session, pointer, 64, pointer, &mut len), CKR_OK);
            assert_eq!(len, 80);
            assert_eq!(buffer, [&GCM_CIPHERTEXT[..], &GCM_TAG_3].concat());

            assert_eq!(C_DecryptInit(session, &mut gcm, key), CKR_OK);
            let mut len = 64;
            assert_eq!(C_Decrypt(session, pointer, 80, pointer, &mut len), CKR_OK);
            assert_eq!((len, &buffer[..64]), (64, &GCM_PLAINTEXT[..]));

            // A tampered tag: CKR_ENCRYPTED_DATA_INVALID and the output buffer holds no
            // plaintext.
            let mut sealed = [&GCM_CIPHERTEXT[..], &GCM_TAG_3].concat();
            sealed[79] ^= 1;
            let mut out = [0x5au8; 64];
            let mut len = 64;
            assert_eq!(C_DecryptInit(session, &mut gcm, key), CKR_OK);
            assert_eq!(
                C_Decrypt(session, sealed.as_mut_ptr(), 80, out.as_mut_ptr(), &mut len),
                CKR_ENCRYPTED_DATA_INVALID
            );
            assert!(
                out.iter().all(|&b| b == 0 || b == 0x5a),
                "plaintext left in the output"
            );
        }
    });
}

/// Encryptions under one GCM key object share the key the session bound for the first: the
/// IVs the token draws (fips-140-3) stay distinct across operations, each operation decrypts
/// under its IV, and a destroyed key is gone for good.
#[test]
fn gcm_operations_on_one_key_draw_distinct_ivs_and_a_destroyed_key_is_refused() {
    with_token(|_| {
        for (slot, mechanism, key_type, key_len) in [
            (FIPS, CKM_AES_GCM, CKK_AES, 32),
            (
                GM,
                CK_MECHANISM_TYPE::from(regula::registry::pkcs11::CKM_REGULA_SM4_GCM.value),
                CKK_REGULA_SM4,
                16,
            ),
        ] {
            let session = open(slot);
            let key = secret_key(session, key_type, &[7u8; 32][..key_len], true);
            let mut ivs = Vec::new();
            for n in 0..3u8 {
                // The gm slot takes the caller's IV (its policy allows it); fips-140-3 draws
                // one and writes it here.
                let mut iv = [n; 12];
                let mut params = gcm_params(&mut iv, b"aad");
                let mut gcm = with_param(mechanism, &mut params);
                let sealed = crypt(session, &mut gcm, key, b"sixteen bytes..!", true).unwrap();
                // A token that draws the IV writes it back; decrypting under it gives the
                // plaintext.
                let mut params = gcm_params(&mut iv, b"aad");
                let mut gcm = with_param(mechanism, &mut params);
                assert_eq!(
                    crypt(session, &mut gcm, key, &sealed, false).unwrap(),
                    b"sixteen bytes..!"
                );
                ivs.push(iv);
            }
            assert!(
                ivs[0] != ivs[1] && ivs[1] != ivs[2] && ivs[0] != ivs[2],
                "slot {slot}: {ivs:x?}"
            );
            assert_eq!(C_DestroyObject(session, key), CKR_OK);
            let mut iv = [0u8; 12];
            let mut params = gcm_params(&mut iv, b"aad");
            let mut gcm = with_param(mechanism, &mut params);
            assert_eq!(
                crypt(session, &mut gcm, key, b"data", true),
                Err(CKR_KEY_HANDLE_INVALID)
            );
        }
    });
}

/// A result whose length the bound only limits (CBC-PAD decryption) is checked against the
/// caller's buffer, not against the bound: a buffer shorter than the result gets
/// `CKR_BUFFER_TOO_SMALL` with the exact length, nothing is written past it, and the operation
/// goes on so that the caller can try again with room.
#[test]
fn a_short_buffer_gets_buffer_too_small_and_nothing_past_its_length() {
    with_token(|_| {
        let session = open(FIPS);
        let key = secret_key(
            session,
            CKK_AES,
            &hex!("2b7e151628aed2a6abf7158809cf4f3c"),
            true,
        );
        let mut iv = hex!("000102030405060708090a0b0c0d0e0f");
        let mut cbc_pad = with_param(CKM_AES_CBC_PAD, &mut iv);
        let plaintext = [0x5au8; 17];
        // 17 bytes pad to 32; the length bound of decrypting them is 32.
        let ciphertext = crypt(session, &mut cbc_pad, key, &plaintext, true).unwrap();
        assert_eq!(ciphertext.len(), 32);
        const CANARY: u8 = 0xc3;
        // SAFETY: live locals; each call is told the true length of its buffer.
        unsafe {
            // Single-part: a 10-byte buffer at the front of a larger one.
            assert_eq!(C_DecryptInit(session, &mut cbc_pad, key), CKR_OK);
            let mut buffer = [CANARY; 64];
            let mut len = 10;
            let data = ciphertext.as_ptr().cast_mut();
            assert_eq!(
                C_Decrypt(session, data, 32, buffer.as_mut_ptr(), &mut len),
                CKR_BUFFER_TOO_SMALL
            );
            assert_eq!(len, 17);
            assert!(buffer[10..].iter().all(|&b| b == CANARY));
            // The operation went on: with room, the same call completes it.
            let mut len = 64;
            assert_eq!(
                C_Decrypt(session, data, 32, buffer.as_mut_ptr(), &mut len),
                CKR_OK
            );
            assert_eq!(&buffer[..len as usize], &plaintext);

            // Multi-part: the update gives the first block, the final holds one byte.
            assert_eq!(C_DecryptInit(session, &mut cbc_pad, key), CKR_OK);
            let mut first = [0u8; 32];
            let mut len = 32;
            assert_eq!(
                C_DecryptUpdate(session, data, 32, first.as_mut_ptr(), &mut len),
                CKR_OK
            );
            assert_eq!(&first[..len as usize], &plaintext[..len as usize]);
            let held = len as usize;
            let mut buffer = [CANARY; 32];
            let mut len = 0;
            assert_eq!(
                C_DecryptFinal(session, buffer.as_mut_ptr(), &mut len),
                CKR_BUFFER_TOO_SMALL
            );
            assert_eq!(len as usize, 17 - held);
            assert!(buffer.iter().all(|&b| b == CANARY));
            let mut len = 32;
            assert_eq!(
                C_DecryptFinal(session, buffer.as_mut_ptr(), &mut len),
                CKR_OK
            );
            assert_eq!(&buffer[..len as usize], &plaintext[held..]);
        }
    });
}

/// The GCM specification (McGrew and Viega), test cases 3 and 4 (AES-128).
const GCM_KEY: [u8; 16] = hex!("feffe9928665731c6d6a8f9467308308");
const GCM_IV: [u8; 12] = hex!("cafebabefacedbaddecaf888");
const GCM_PLAINTEXT: [u8; 64] = hex!(
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
);
const GCM_CIPHERTEXT: [u8; 64] = hex!(
    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985"
);
const GCM_TAG_3: [u8; 16] = hex!("4d5c2af327cd64a62cf35abd2ba6fab4");
const GCM_AAD_4: [u8; 20] = hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2");
const GCM_TAG_4: [u8; 16] = hex!("5bc94fbc3221a5db94fae95ae7121a47");

fn gcm_params(iv: &mut [u8; 12], aad: &[u8]) -> CK_GCM_PARAMS {
    CK_GCM_PARAMS {
        pIv: iv.as_mut_ptr(),
        ulIvLen: 12,
        ulIvBits: 0,
        pAAD: aad.as_ptr().cast_mut(),
        ulAADLen: aad.len() as CK_ULONG,
        ulTagBits: 128,
    }
}

#[test]
fn gcm_gives_the_specifications_answers_and_generates_its_iv_under_fips() {
    with_token(|_| {
        let default = open(DEFAULT);
        let key = secret_key(default, CKK_AES, &GCM_KEY, true);
        let mut iv = GCM_IV;
        let mut params = gcm_params(&mut iv, &[]);
        let mut gcm = with_param(CKM_AES_GCM, &mut params);
        let sealed = crypt(default, &mut gcm, key, &GCM_PLAINTEXT, true).unwrap();
        assert_eq!(sealed, [&GCM_CIPHERTEXT[..], &GCM_TAG_3].concat());
        // The default policy approves a caller's GCM IV (fips-140-3 does not: below).
        assert_eq!(validation_flags(default), VALIDATION_FLAG_POLICY);
        assert_eq!(
            crypt(default, &mut gcm, key, &sealed, false).unwrap(),
            GCM_PLAINTEXT
        );

        let mut params = gcm_params(&mut iv, &GCM_AAD_4);
        let mut gcm = with_param(CKM_AES_GCM, &mut params);
        let mut sealed = crypt(default, &mut gcm, key, &GCM_PLAINTEXT[..60], true).unwrap();
        assert_eq!(sealed, [&GCM_CIPHERTEXT[..60], &GCM_TAG_4].concat());
        sealed[70] ^= 1;
        assert_eq!(
            crypt(default, &mut gcm, key, &sealed, false),
            Err(CKR_ENCRYPTED_DATA_INVALID)
        );

        // fips-140-3: decryption under the caller's IV is approved and gives test case 4's
        // plaintext; encryption refuses a missing IV buffer and otherwise draws the IV itself.
        let fips = open(FIPS);
        let key = secret_key(fips, CKK_AES, &GCM_KEY, true);
        let mut params = gcm_params(&mut iv, &GCM_AAD_4);
        let mut gcm = with_param(CKM_AES_GCM, &mut params);
        sealed[70] ^= 1;
        assert_eq!(
            crypt(fips, &mut gcm, key, &sealed, false).unwrap(),
            GCM_PLAINTEXT[..60]
        );
        assert_eq!(validation_flags(fips), VALIDATION_FLAG_POLICY);

        let mut no_iv = gcm_params(&mut iv, &[]);
        no_iv.pIv = null_mut();
        let mut gcm = with_param(CKM_AES_GCM, &mut no_iv);
        assert_eq!(
            crypt(fips, &mut gcm, key, b"data", true),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );

        let mut generated = GCM_IV;
        let mut params = gcm_params(&mut generated, &GCM_AAD_4);
        let mut gcm = with_param(CKM_AES_GCM, &mut params);
        let sealed = crypt(fips, &mut gcm, key, &GCM_PLAINTEXT, true).unwrap();
        assert_eq!(validation_flags(fips), VALIDATION_FLAG_POLICY);
        assert_eq!(params.ulIvBits, 96);
        assert_ne!(generated, GCM_IV, "the token did not write its IV");
        assert_ne!(sealed[..64], GCM_CIPHERTEXT, "the caller's IV was used");
        let mut params = gcm_params(&mut generated, &GCM_AAD_4);
        let mut gcm = with_param(CKM_AES_GCM, &mut params);
        assert_eq!(
            crypt(fips, &mut gcm, key, &sealed, false).unwrap(),
            GCM_PLAINTEXT
        );
    });
}

#[test]
fn sm4_gives_the_gb_t_32907_example_on_the_gm_slot() {
    with_token(|_| {
        let gm = open(GM);
        let value = hex!("0123456789abcdeffedcba9876543210");
        let key = secret_key(gm, CKK_REGULA_SM4, &value, true);
        let ecb = CK_MECHANISM_TYPE::from(regula::registry::pkcs11::CKM_REGULA_SM4_ECB.value);
        let mut mechanism = mechanism(ecb);
        assert_eq!(
            crypt(gm, &mut mechanism, key, &value, true).unwrap(),
            hex!("681edf34d206965e86b3e94f536e4246")
        );
        assert_eq!(validation_flags(gm), VALIDATION_FLAG_POLICY);
        // The fips-140-3 slot does not list SM4.
        let fips = open(FIPS);
        let key = secret_key(fips, CKK_REGULA_SM4, &value, true);
        assert_eq!(
            crypt(fips, &mut mechanism, key, &value, true),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}

#[test]
fn attributes_follow_the_standards_rules() {
    with_token(|_| {
        let session = open(DEFAULT);
        let value = [7u8; 32];
        let open_key = secret_key(session, CKK_AES, &value, false);
        let sealed_key = secret_key(session, CKK_AES, &value, true);
        // SAFETY: live locals.
        unsafe {
            let mut read = [bytes(CKA_VALUE, &[]), bytes(CKA_LABEL, &[])];
            read[0].pValue = null_mut();
            read[1].pValue = null_mut();
            assert_eq!(
                C_GetAttributeValue(session, open_key, read.as_mut_ptr(), 2),
                CKR_OK
            );
            assert_eq!((read[0].ulValueLen, read[1].ulValueLen), (32, 8));
            let mut buffer = [0u8; 32];
            let mut get = [CK_ATTRIBUTE {
                type_: CKA_VALUE,
                pValue: buffer.as_mut_ptr().cast(),
                ulValueLen: 31,
            }];
            assert_eq!(
                C_GetAttributeValue(session, open_key, get.as_mut_ptr(), 1),
                CKR_BUFFER_TOO_SMALL
            );
            get[0].ulValueLen = 32;
            assert_eq!(
                C_GetAttributeValue(session, open_key, get.as_mut_ptr(), 1),
                CKR_OK
            );
            assert_eq!(buffer, value);

            let mut get = [CK_ATTRIBUTE {
                type_: CKA_VALUE,
                pValue: buffer.as_mut_ptr().cast(),
                ulValueLen: 32,
            }];
            assert_eq!(
                C_GetAttributeValue(session, sealed_key, get.as_mut_ptr(), 1),
                CKR_ATTRIBUTE_SENSITIVE
            );
            assert_eq!(get[0].ulValueLen, !0);

            // Sensitive goes one way only.
            let mut set = [attribute(CKA_SENSITIVE, &TRUE)];
            assert_eq!(
                C_SetAttributeValue(session, open_key, set.as_mut_ptr(), 1),
                CKR_OK
            );
            assert_eq!(
                C_GetAttributeValue(session, open_key, get.as_mut_ptr(), 1),
                CKR_ATTRIBUTE_SENSITIVE
            );
            let mut set = [attribute(CKA_SENSITIVE, &FALSE)];
            assert_eq!(
                C_SetAttributeValue(session, open_key, set.as_mut_ptr(), 1),
                CKR_ATTRIBUTE_READ_ONLY
            );
            let class = CKO_DATA;
            let mut set = [attribute(CKA_CLASS, &class)];
            assert_eq!(
                C_SetAttributeValue(session, open_key, set.as_mut_ptr(), 1),
                CKR_ATTRIBUTE_READ_ONLY
            );

            // A generated key, found by its label.
            let len: CK_ULONG = 32;
            let mut template = [
                attribute(CKA_VALUE_LEN, &len),
                bytes(CKA_LABEL, b"generated"),
            ];
            let mut generate = mechanism(CKM_AES_KEY_GEN);
            let mut generated = 0;
            assert_eq!(
                C_GenerateKey(
                    session,
                    &mut generate,
                    template.as_mut_ptr(),
                    2,
                    &mut generated
                ),
                CKR_OK
            );
            let mut local = FALSE;
            let mut get = [CK_ATTRIBUTE {
                type_: CKA_LOCAL,
                pValue: (&raw mut local).cast(),
                ulValueLen: 1,
            }];
            assert_eq!(
                C_GetAttributeValue(session, generated, get.as_mut_ptr(), 1),
                CKR_OK
            );
            assert_eq!(local, TRUE);
            let mut find = [bytes(CKA_LABEL, b"generated")];
            assert_eq!(C_FindObjectsInit(session, find.as_mut_ptr(), 1), CKR_OK);
            let mut found = [0; 4];
            let mut count = 0;
            assert_eq!(
                C_FindObjects(session, found.as_mut_ptr(), 4, &mut count),
                CKR_OK
            );
            assert_eq!(&found[..count as usize], &[generated]);
            assert_eq!(C_FindObjectsFinal(session), CKR_OK);
            assert_eq!(C_DestroyObject(session, generated), CKR_OK);
            assert_eq!(
                C_DestroyObject(session, generated),
                CKR_OBJECT_HANDLE_INVALID
            );

            // A token object is stored (this session is R/W and logged in) and destroyed; NULL
            // pointers are refused.
            let class = CKO_SECRET_KEY;
            let key_type = CKK_AES;
            let mut template = [
                attribute(CKA_CLASS, &class),
                attribute(CKA_KEY_TYPE, &key_type),
                bytes(CKA_VALUE, &value),
                attribute(CKA_TOKEN, &TRUE),
            ];
            let mut handle = 0;
            assert_eq!(
                C_CreateObject(session, template.as_mut_ptr(), 4, &mut handle),
                CKR_OK
            );
            let mut token: CK_BBOOL = FALSE;
            let mut read = [CK_ATTRIBUTE {
                type_: CKA_TOKEN,
                pValue: (&raw mut token).cast(),
                ulValueLen: 1,
            }];
            assert_eq!(
                C_GetAttributeValue(session, handle, read.as_mut_ptr(), 1),
                CKR_OK
            );
            assert_eq!(token, TRUE);
            assert_eq!(C_DestroyObject(session, handle), CKR_OK);
            assert_eq!(
                C_CreateObject(session, template.as_mut_ptr(), 3, null_mut()),
                CKR_ARGUMENTS_BAD
            );
            assert_eq!(
                C_GetAttributeValue(session, open_key, null_mut(), 1),
                CKR_ARGUMENTS_BAD
            );
        }
    });
}

#[test]
fn the_library_initializes_once_and_reports_its_slots() {
    with_token(|_| {
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_Initialize(null_mut()), CKR_CRYPTOKI_ALREADY_INITIALIZED);
            let mut count = 0;
            assert_eq!(C_GetSlotList(TRUE, null_mut(), &mut count), CKR_OK);
            assert_eq!(count, 3);
            let mut info: CK_TOKEN_INFO = std::mem::zeroed();
            assert_eq!(C_GetTokenInfo(FIPS, &mut info), CKR_OK);
            assert_eq!(&info.label[..11], b"regula-fips");
            assert_eq!(&info.model[..6], b"Regula");
            assert_eq!(C_GetTokenInfo(9, &mut info), CKR_SLOT_ID_INVALID);
            let mut interface: *mut CK_INTERFACE = null_mut();
            assert_eq!(
                C_GetInterface(null_mut(), null_mut(), &mut interface, 0),
                CKR_OK
            );
            let list = (*interface).pFunctionList.cast::<CK_FUNCTION_LIST_3_0>();
            assert_eq!(((*list).version.major, (*list).version.minor), (3, 0));
            let mut bytes = [0u8; 16];
            let session = open(DEFAULT);
            assert_eq!(
                (*list).C_GenerateRandom.unwrap()(session, bytes.as_mut_ptr(), 16),
                CKR_OK
            );
            assert_ne!(bytes, [0u8; 16]);
        }
    });
}

#[test]
fn a_bad_configuration_fails_initialization_and_a_forked_child_initializes_again() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = std::env::temp_dir().join(format!("regula-pkcs11-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pkcs11.toml");
    std::fs::write(
        &path,
        "[[token]]\nlabel = \"x\"\npolicy = \"no-such-policy\"\nstorage = \"/x\"\n",
    )
    .unwrap();
    // SAFETY: the tests take turns (TURN); NULL arguments are allowed.
    unsafe {
        std::env::set_var(config::CONF_ENV, &path);
        assert_eq!(C_Initialize(null_mut()), CKR_GENERAL_ERROR);
        assert_eq!(C_Finalize(null_mut()), CKR_CRYPTOKI_NOT_INITIALIZED);
    }
    drop(_turn);

    with_token(|_| {
        // SAFETY: the child calls only this library's functions and _exit; the parent waits.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                let mut info: CK_INFO = std::mem::zeroed();
                let before = C_GetInfo(&mut info);
                let again = C_Initialize(null_mut());
                let after = C_GetInfo(&mut info);
                let ok =
                    before == CKR_CRYPTOKI_NOT_INITIALIZED && again == CKR_OK && after == CKR_OK;
                libc::_exit(if ok { 0 } else { 1 });
            }
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "the child could not initialize again"
            );
            let mut info: CK_INFO = std::mem::zeroed();
            assert_eq!(C_GetInfo(&mut info), CKR_OK, "the parent lost its state");
        }
    });
}

/// draft-ribose-cfrg-sm4-10 A.2.2.1 (CBC) and A.2.5.1 (CTR), RFC 8998 A.2 (SM4-GCM), as
/// cryptography-vectors carries them.
#[test]
fn sm4_modes_give_the_drafts_and_rfc_8998s_answers() {
    use regula::registry::pkcs11::{
        CKM_REGULA_SM4_CBC_PAD, CKM_REGULA_SM4_CTR, CKM_REGULA_SM4_GCM,
    };
    let mech = |m: regula::registry::Mechanism| CK_MECHANISM_TYPE::from(m.value);
    with_token(|_| {
        let gm = open(GM);
        let key = secret_key(
            gm,
            CKK_REGULA_SM4,
            &hex!("0123456789abcdeffedcba9876543210"),
            true,
        );

        let plaintext = hex!("aaaaaaaabbbbbbbbccccccccddddddddeeeeeeeeffffffffaaaaaaaabbbbbbbb");
        let mut iv = hex!("000102030405060708090a0b0c0d0e0f");
        let mut cbc = with_param(mech(CKM_REGULA_SM4_CBC_PAD), &mut iv);
        let sealed = crypt(gm, &mut cbc, key, &plaintext, true).unwrap();
        assert_eq!(
            sealed[..32],
            hex!("78ebb11cc40b0a48312aaeb2040244cb4cb7016951909226979b0d15dc6a8f6d")
        );
        assert_eq!(sealed.len(), 48, "CBC-PAD adds a block of padding");
        assert_eq!(crypt(gm, &mut cbc, key, &sealed, false).unwrap(), plaintext);
        assert_eq!(validation_flags(gm), VALIDATION_FLAG_POLICY);

        let plaintext = hex!(
            "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
            "eeeeeeeeeeeeeeeeffffffffffffffffaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb"
        );
        let mut params = CK_AES_CTR_PARAMS {
            ulCounterBits: 128,
            cb: hex!("000102030405060708090a0b0c0d0e0f"),
        };
        let mut ctr = with_param(mech(CKM_REGULA_SM4_CTR), &mut params);
        assert_eq!(
            crypt(gm, &mut ctr, key, &plaintext, true).unwrap(),
            hex!(
                "ac3236cb970cc20791364c395a1342d1a3cbc1878c6f30cd074cce385cdd70c7"
                "f234bc0e24c11980fd1286310ce37b926e02fcd0faa0baf38b2933851d824514"
            )
        );

        let plaintext = hex!(
            "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
            "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa"
        );
        let sealed = hex!(
            "17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
            "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"
            "83de3541e4c2b58177e065a9bf7b62ec"
        );
        let aad = hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2");
        let mut iv = hex!("00001234567800000000abcd");
        let mut params = gcm_params(&mut iv, &aad);
        let mut gcm = with_param(mech(CKM_REGULA_SM4_GCM), &mut params);
        assert_eq!(crypt(gm, &mut gcm, key, &sealed, false).unwrap(), plaintext);
        assert_eq!(validation_flags(gm), VALIDATION_FLAG_POLICY);
        // Encryption: the caller's IV where the gm policy serves it, else one the token draws.
        let caller_iv = regula::policy::Usage {
            caller_nonce: true,
            ..Default::default()
        };
        let takes_caller_iv = regula::Policy::builtin(regula::Profile::Gm)
            .evaluate(regula::Algorithm::Sm4Gcm, &caller_iv)
            .is_ok();
        let encrypted = crypt(gm, &mut gcm, key, &plaintext, true).unwrap();
        assert_eq!(encrypted == sealed, takes_caller_iv);
        let mut params = gcm_params(&mut iv, &aad);
        let mut gcm = with_param(mech(CKM_REGULA_SM4_GCM), &mut params);
        assert_eq!(
            crypt(gm, &mut gcm, key, &encrypted, false).unwrap(),
            plaintext
        );
    });
}

#[test]
fn threads_share_the_token() {
    with_token(|_| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    let session = open(FIPS);
                    for _ in 0..50 {
                        assert_eq!(
                            digest(session, CKM_SHA256, b"abc"),
                            hex!(
                                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
                            )
                        );
                    }
                    assert_eq!(C_CloseSession(session), CKR_OK);
                })
            })
            .collect();
        for worker in workers {
            worker.join().expect("a thread failed");
        }
    });
}

// ---- EC key pairs and ECDSA -------------------------------------------------------------------

/// `C_GenerateKeyPair` with `CKM_EC_KEY_PAIR_GEN` on the curve `params`, as pkcs11-tool's
/// templates do; (public, private) handles, or the return value.
fn ec_key_pair(
    session: CK_SESSION_HANDLE,
    params: &[u8],
    token: bool,
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE), CK_RV> {
    let token = if token { TRUE } else { FALSE };
    let mut public = [
        attribute(CKA_TOKEN, &token),
        bytes(CKA_EC_PARAMS, params),
        attribute(CKA_VERIFY, &TRUE),
        bytes(CKA_LABEL, b"ec key"),
        bytes(CKA_ID, &[1]),
    ];
    let mut private = [
        attribute(CKA_TOKEN, &token),
        attribute(CKA_PRIVATE, &TRUE),
        attribute(CKA_SENSITIVE, &TRUE),
        attribute(CKA_SIGN, &TRUE),
        bytes(CKA_LABEL, b"ec key"),
        bytes(CKA_ID, &[1]),
    ];
    let mut mechanism = mechanism(CKM_EC_KEY_PAIR_GEN);
    generate_key_pair(session, &mut mechanism, &mut public, &mut private)
}

fn ecdsa_sign(
    session: CK_SESSION_HANDLE,
    kind: CK_MECHANISM_TYPE,
    key: CK_OBJECT_HANDLE,
    message: &[u8],
) -> Result<Vec<u8>, CK_RV> {
    let mut mechanism = mechanism(kind);
    sign_with(session, &mut mechanism, key, message)
}

fn ecdsa_verify(
    session: CK_SESSION_HANDLE,
    kind: CK_MECHANISM_TYPE,
    key: CK_OBJECT_HANDLE,
    message: &[u8],
    signature: &[u8],
) -> CK_RV {
    let mut mechanism = mechanism(kind);
    verify_with(session, &mut mechanism, key, message, signature)
}

/// An ASN.1 INTEGER of an unsigned big-endian number (written here, apart from the token's
/// own conversion, so that OpenSSL checks it).
fn der_integer(number: &[u8]) -> Vec<u8> {
    let start = number
        .iter()
        .position(|b| *b != 0)
        .unwrap_or(number.len() - 1);
    let mut digits = number[start..].to_vec();
    if digits[0] & 0x80 != 0 {
        digits.insert(0, 0);
    }
    let mut der = vec![0x02, digits.len() as u8];
    der.extend(digits);
    der
}

/// Checks `r ‖ s` over `message` with OpenSSL's command line and the public key at `point` on
/// the curve `params`: whether it says "Verified OK".
fn openssl_verifies(params: &[u8], point: &[u8], digest: &str, message: &[u8], raw: &[u8]) -> bool {
    let dir = fresh_dir("openssl");
    // RFC 5480 SubjectPublicKeyInfo: id-ecPublicKey, the curve, the point as a BIT STRING.
    let mut algorithm = hex!("06072a8648ce3d0201").to_vec();
    algorithm.extend_from_slice(params);
    let mut spki = vec![0x30, algorithm.len() as u8];
    spki.extend(algorithm);
    spki.extend([0x03, point.len() as u8 + 1, 0x00]);
    spki.extend_from_slice(point);
    let mut der = vec![0x30, spki.len() as u8];
    der.extend(spki);
    std::fs::write(dir.join("public.der"), der).unwrap();
    let (r, s) = raw.split_at(raw.len() / 2);
    let body = [der_integer(r), der_integer(s)].concat();
    let mut signature = vec![0x30, body.len() as u8];
    signature.extend(body);
    std::fs::write(dir.join("signature.der"), signature).unwrap();
    std::fs::write(dir.join("message"), message).unwrap();
    let output = std::process::Command::new("openssl")
        .current_dir(&dir)
        .args(["dgst", digest, "-verify", "public.der", "-keyform", "DER"])
        .args(["-signature", "signature.der", "message"])
        .output()
        .expect("openssl runs");
    let _ = std::fs::remove_dir_all(&dir);
    output.status.success() && String::from_utf8_lossy(&output.stdout).contains("Verified OK")
}

#[test]
fn ec_key_pairs_sign_and_openssl_verifies() {
    with_token(|_| {
        let session = open(FIPS);
        let message = b"the token signs this with ECDSA";
        let cases = [
            (&P256_PARAMS[..], CKM_ECDSA_SHA256, "-sha256", 32),
            (&P384_PARAMS[..], CKM_ECDSA_SHA384, "-sha384", 48),
        ];
        for (params, kind, digest, width) in cases {
            let (public, private) = ec_key_pair(session, params, false).unwrap();
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            // The standard's attributes of a generated private key.
            let ulong = |value: CK_ULONG| value.to_ne_bytes().to_vec();
            let read = |object, kind| read(session, object, kind);
            assert_eq!(read(private, CKA_CLASS), Ok(ulong(CKO_PRIVATE_KEY)));
            assert_eq!(read(private, CKA_KEY_TYPE), Ok(ulong(CKK_EC)));
            for kind in [
                CKA_SENSITIVE,
                CKA_ALWAYS_SENSITIVE,
                CKA_NEVER_EXTRACTABLE,
                CKA_LOCAL,
            ] {
                assert_eq!(read(private, kind), Ok(vec![TRUE]), "{kind:#x}");
            }
            assert_eq!(read(private, CKA_EXTRACTABLE), Ok(vec![FALSE]));
            assert_eq!(read(private, CKA_VALUE), Err(CKR_ATTRIBUTE_SENSITIVE));
            assert_eq!(
                read(private, CKA_KEY_GEN_MECHANISM),
                Ok(ulong(CKM_EC_KEY_PAIR_GEN))
            );
            assert_eq!(read(public, CKA_CLASS), Ok(ulong(CKO_PUBLIC_KEY)));
            assert_eq!(read(public, CKA_EC_PARAMS).as_deref(), Ok(params));
            assert_eq!(read(public, CKA_ID), Ok(vec![1]));
            // The DER OCTET STRING of the uncompressed point.
            let ec_point = read(public, CKA_EC_POINT).unwrap();
            assert_eq!(ec_point.len(), 2 + 1 + 2 * width);
            assert_eq!(&ec_point[..3], &[0x04, 1 + 2 * width as u8, 0x04]);
            assert_eq!(read(private, CKA_EC_POINT), Ok(ec_point.clone()));
            let point = &ec_point[2..];

            let signature = ecdsa_sign(session, kind, private, message).unwrap();
            assert_eq!(signature.len(), 2 * width);
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
            assert_eq!(
                ecdsa_verify(session, kind, public, message, &signature),
                CKR_OK
            );
            assert!(openssl_verifies(params, point, digest, message, &signature));
            // A tampered message or signature is refused, by the token and by OpenSSL.
            let tampered = b"the token signs this with ECDSA!";
            assert_eq!(
                ecdsa_verify(session, kind, public, tampered, &signature),
                CKR_SIGNATURE_INVALID
            );
            assert!(!openssl_verifies(
                params, point, digest, tampered, &signature
            ));
            let mut flipped = signature.clone();
            flipped[width + 3] ^= 1;
            assert_eq!(
                ecdsa_verify(session, kind, public, message, &flipped),
                CKR_SIGNATURE_INVALID
            );
            assert_eq!(
                ecdsa_verify(session, kind, public, message, &signature[1..]),
                CKR_SIGNATURE_LEN_RANGE
            );
            // A private key does not verify, a public key does not sign.
            assert_eq!(
                ecdsa_sign(session, kind, public, message),
                Err(CKR_KEY_TYPE_INCONSISTENT)
            );
        }
        // The module binds each curve to its hash; raw ECDSA over a caller's hash is not
        // served under fips-140-3; other curves are not made.
        let (_, p384) = ec_key_pair(session, &P384_PARAMS, false).unwrap();
        assert_eq!(
            ecdsa_sign(session, CKM_ECDSA_SHA256, p384, b"m"),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        assert_eq!(
            ecdsa_sign(session, CKM_ECDSA, p384, b"m"),
            Err(CKR_MECHANISM_INVALID)
        );
        let secp521r1 = hex!("06052b81040023");
        assert_eq!(
            ec_key_pair(session, &secp521r1, false),
            Err(CKR_CURVE_NOT_SUPPORTED)
        );
        // The gm slot signs with SM2, not ECDSA.
        let gm = open(GM);
        assert_eq!(
            ec_key_pair(gm, &P256_PARAMS, false),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}

#[test]
fn a_session_signs_again_with_each_keys_own_key_and_not_with_a_destroyed_one() {
    with_token(|_| {
        // The session keeps each private key it imported for later sign inits: every key
        // must still sign as itself, and a destroyed key must not sign at all.
        let session = open(FIPS);
        let message = b"signed twice by each of two keys";
        let (first_public, first) = ec_key_pair(session, &P256_PARAMS, false).unwrap();
        let (second_public, second) = ec_key_pair(session, &P256_PARAMS, false).unwrap();
        for _ in 0..2 {
            for (public, private) in [(first_public, first), (second_public, second)] {
                let signature = ecdsa_sign(session, CKM_ECDSA_SHA256, private, message).unwrap();
                assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
                assert_eq!(
                    ecdsa_verify(session, CKM_ECDSA_SHA256, public, message, &signature),
                    CKR_OK
                );
            }
        }
        let other_session = open(FIPS);
        assert_eq!(C_DestroyObject(other_session, first), CKR_OK);
        assert_eq!(
            ecdsa_sign(session, CKM_ECDSA_SHA256, first, message),
            Err(CKR_KEY_HANDLE_INVALID)
        );
        let signature = ecdsa_sign(session, CKM_ECDSA_SHA256, second, message).unwrap();
        assert_eq!(
            ecdsa_verify(
                session,
                CKM_ECDSA_SHA256,
                second_public,
                message,
                &signature
            ),
            CKR_OK
        );
    });
}

/// SHA-256("abc") and SHA-384("abc"): FIPS 180-2 Appendix B.1 and D.1.
const SHA256_ABC: [u8; 32] =
    hex!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
const SHA384_ABC: [u8; 48] = hex!(
    "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
    "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
);

#[test]
fn raw_ecdsa_signs_a_callers_hash_on_a_permissive_slot_and_openssl_verifies() {
    with_token(|_| {
        // What GnuTLS and OpenSSL's PKCS#11 engine ask for: CKM_ECDSA over their own hash.
        let session = open(DEFAULT);
        let cases = [
            // (curve, the caller's hash, OpenSSL's digest, the token's own scheme or none)
            (
                &P256_PARAMS[..],
                &SHA256_ABC[..],
                "-sha256",
                Some(CKM_ECDSA_SHA256),
            ),
            (
                &P384_PARAMS[..],
                &SHA384_ABC[..],
                "-sha384",
                Some(CKM_ECDSA_SHA384),
            ),
            // A longer hash than the curve: ECDSA reads its leftmost 256 bits.
            (&P256_PARAMS[..], &SHA384_ABC[..], "-sha384", None),
            // A shorter one: the same integer.
            (&P384_PARAMS[..], &SHA256_ABC[..], "-sha256", None),
        ];
        for (params, hash, digest, scheme) in cases {
            let (public, private) = ec_key_pair(session, params, false).unwrap();
            let point = read(session, public, CKA_EC_POINT).unwrap()[2..].to_vec();
            let signature = ecdsa_sign(session, CKM_ECDSA, private, hash).unwrap();
            assert_eq!(signature.len(), point.len() - 1, "r ‖ s");
            // The module did not compute the hash: served, not approved.
            assert_eq!(validation_flags(session), 0);
            assert!(openssl_verifies(params, &point, digest, b"abc", &signature));
            assert!(!openssl_verifies(
                params, &point, digest, b"abd", &signature
            ));
            if let Some(scheme) = scheme {
                assert_eq!(
                    ecdsa_verify(session, scheme, public, b"abc", &signature),
                    CKR_OK
                );
            }
        }
        let (public, private) = ec_key_pair(session, &P256_PARAMS, false).unwrap();
        // A SHA-1 hash (Regula makes no SHA-1 signature) and other lengths are refused.
        for len in [0, 20, 31, 33, 65] {
            let hash = vec![0x5a; len];
            let mut mechanism = mechanism(CKM_ECDSA);
            let mut signature = [0u8; 96];
            let mut signature_len = signature.len() as CK_ULONG;
            // SAFETY: live locals.
            let rv = unsafe {
                assert_eq!(C_SignInit(session, &mut mechanism, private), CKR_OK);
                C_Sign(
                    session,
                    hash.as_ptr().cast_mut(),
                    len as CK_ULONG,
                    signature.as_mut_ptr(),
                    &mut signature_len,
                )
            };
            assert_eq!(rv, CKR_DATA_LEN_RANGE, "{len} bytes");
        }
        // Signing only: the slot lists CKM_ECDSA with CKF_SIGN.
        assert_eq!(
            ecdsa_verify(session, CKM_ECDSA, public, &SHA256_ABC, &[0; 64]),
            CKR_MECHANISM_INVALID
        );
    });
}

#[test]
fn an_ec_token_key_is_sealed_at_rest_and_signs_after_a_new_login() {
    with_token(|_| {
        let session = open(DEFAULT);
        let (public, private) = ec_key_pair(session, &P256_PARAMS, true).unwrap();
        let message = b"signed after the key came back from storage";
        let before = ecdsa_sign(session, CKM_ECDSA_SHA256, private, message).unwrap();
        assert_eq!(C_Logout(session), CKR_OK);
        // Logged out: the private key is gone, the public key (not private) still verifies.
        assert_eq!(
            ecdsa_sign(session, CKM_ECDSA_SHA256, private, message),
            Err(CKR_KEY_HANDLE_INVALID)
        );
        assert_eq!(
            ecdsa_verify(session, CKM_ECDSA_SHA256, public, message, &before),
            CKR_OK
        );
        let session = open(DEFAULT);
        let class = CKO_PRIVATE_KEY;
        let mut template = [attribute(CKA_CLASS, &class), bytes(CKA_ID, &[1])];
        let (mut found, mut count) = ([0; 4], 0);
        // SAFETY: live locals.
        unsafe {
            assert_eq!(C_FindObjectsInit(session, template.as_mut_ptr(), 2), CKR_OK);
            assert_eq!(
                C_FindObjects(session, found.as_mut_ptr(), 4, &mut count),
                CKR_OK
            );
            assert_eq!(C_FindObjectsFinal(session), CKR_OK);
        }
        assert_eq!(count, 1);
        let after = ecdsa_sign(session, CKM_ECDSA_SHA256, found[0], message).unwrap();
        assert_eq!(
            ecdsa_verify(session, CKM_ECDSA_SHA256, public, message, &after),
            CKR_OK
        );
    });
}

/// NIST CAVP FIPS 186-3 ECDSA `SigVer.rsp`, section [P-256,SHA-256], the first cases as
/// published (PyPI `cryptography-vectors` 50.0.2, asymmetric/ECDSA/FIPS_186-3/SigVer.rsp):
/// (Msg, Qx, Qy, R, S, passes).
const SIGVER_P256_SHA256: [(&str, &str, &str, &str, &str, bool); 5] = [
    (
        "e4796db5f785f207aa30d311693b3702821dff1168fd2e04c0836825aefd850d9aa60326d88cde1a23c7745351392ca2288d632c264f197d05cd424a30336c19fd09bb229654f0222fcb881a4b35c290a093ac159ce13409111ff0358411133c24f5b8e2090d6db6558afc36f06ca1f6ef779785adba68db27a409859fc4c4a0",
        "87f8f2b218f49845f6f10eec3877136269f5c1a54736dbdf69f89940cad41555",
        "e15f369036f49842fac7a86c8a2b0557609776814448b8f5e84aa9f4395205e9",
        "d19ff48b324915576416097d2544f7cbdf8768b1454ad20e0baac50e211f23b0",
        "a3e81e59311cdfff2d4784949f7a2cb50ba6c3a91fa54710568e61aca3e847c6",
        false,
    ),
    (
        "069a6e6b93dfee6df6ef6997cd80dd2182c36653cef10c655d524585655462d683877f95ecc6d6c81623d8fac4e900ed0019964094e7de91f1481989ae1873004565789cbf5dc56c62aedc63f62f3b894c9c6f7788c8ecaadc9bd0e81ad91b2b3569ea12260e93924fdddd3972af5273198f5efda0746219475017557616170e",
        "5cf02a00d205bdfee2016f7421807fc38ae69e6b7ccd064ee689fc1a94a9f7d2",
        "ec530ce3cc5c9d1af463f264d685afe2b4db4b5828d7e61b748930f3ce622a85",
        "dc23d130c6117fb5751201455e99f36f59aba1a6a21cf2d0e7481a97451d6693",
        "d6ce7708c18dbf35d4f8aa7240922dc6823f2e7058cbc1484fcad1599db5018c",
        false,
    ),
    (
        "df04a346cf4d0e331a6db78cca2d456d31b0a000aa51441defdb97bbeb20b94d8d746429a393ba88840d661615e07def615a342abedfa4ce912e562af714959896858af817317a840dcff85a057bb91a3c2bf90105500362754a6dd321cdd86128cfc5f04667b57aa78c112411e42da304f1012d48cd6a7052d7de44ebcc01de",
        "2ddfd145767883ffbb0ac003ab4a44346d08fa2570b3120dcce94562422244cb",
        "5f70c7d11ac2b7a435ccfbbae02c3df1ea6b532cc0e9db74f93fffca7c6f9a64",
        "9913111cff6f20c5bf453a99cd2c2019a4e749a49724a08774d14e4c113edda8",
        "9467cd4cd21ecb56b0cab0a9a453b43386845459127a952421f5c6382866c5cc",
        false,
    ),
    (
        "e1130af6a38ccb412a9c8d13e15dbfc9e69a16385af3c3f1e5da954fd5e7c45fd75e2b8c36699228e92840c0562fbf3772f07e17f1add56588dd45f7450e1217ad239922dd9c32695dc71ff2424ca0dec1321aa47064a044b7fe3c2b97d03ce470a592304c5ef21eed9f93da56bb232d1eeb0035f9bf0dfafdcc4606272b20a3",
        "e424dc61d4bb3cb7ef4344a7f8957a0c5134e16f7a67c074f82e6e12f49abf3c",
        "970eed7aa2bc48651545949de1dddaf0127e5965ac85d1243d6f60e7dfaee927",
        "bf96b99aa49c705c910be33142017c642ff540c76349b9dab72f981fd9347f4f",
        "17c55095819089c2e03b9cd415abdf12444e323075d98f31920b9e0f57ec871c",
        true,
    ),
    (
        "73c5f6a67456ae48209b5f85d1e7de7758bf235300c6ae2bdceb1dcb27a7730fb68c950b7fcada0ecc4661d3578230f225a875e69aaa17f1e71c6be5c831f22663bac63d0c7a9635edb0043ff8c6f26470f02a7bc56556f1437f06dfa27b487a6c4290d8bad38d4879b334e341ba092dde4e4ae694a9c09302e2dbf443581c08",
        "e0fc6a6f50e1c57475673ee54e3a57f9a49f3328e743bf52f335e3eeaa3d2864",
        "7f59d689c91e463607d9194d99faf316e25432870816dde63f5d4b373f12f22a",
        "1d75830cd36f4c9aa181b2c4221e87f176b7f05b7c87824e82e396c88315c407",
        "cb2acb01dac96efc53a32d4a0d85d0c2e48955214783ecf50a4f0414a319c05a",
        true,
    ),
];

#[test]
fn ecdsa_verifies_nist_cavp_sigver_p256_sha256() {
    with_token(|_| {
        let session = open(FIPS);
        for (msg, qx, qy, r, s, passes) in SIGVER_P256_SHA256 {
            let ec_point = [&[0x04, 65, 0x04][..], &unhex(qx), &unhex(qy)].concat();
            let class = CKO_PUBLIC_KEY;
            let key_type = CKK_EC;
            let mut template = [
                attribute(CKA_CLASS, &class),
                attribute(CKA_KEY_TYPE, &key_type),
                bytes(CKA_EC_PARAMS, &P256_PARAMS),
                bytes(CKA_EC_POINT, &ec_point),
            ];
            let mut key = 0;
            // SAFETY: a template of live locals.
            let rv = unsafe { C_CreateObject(session, template.as_mut_ptr(), 4, &mut key) };
            assert_eq!(rv, CKR_OK);
            let signature = [unhex(r), unhex(s)].concat();
            let rv = ecdsa_verify(session, CKM_ECDSA_SHA256, key, &unhex(msg), &signature);
            let expected = if passes {
                CKR_OK
            } else {
                CKR_SIGNATURE_INVALID
            };
            assert_eq!(rv, expected, "Qx = {qx}");
        }
    });
}
