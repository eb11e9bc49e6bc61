//! The bodies of the known-answer tests, which call the backends directly: each computes with
//! the same AWS-LC or regula-sm code the services use, lets the fault corrupt its output, and
//! compares with a cited vector from [`crate::selftest::vectors`]. Which test runs when, the
//! error state and the break-test switch are [`crate::selftest`]'s.

use std::num::NonZeroU32;

use aws_lc_rs::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::cipher::{
    AES_128, AES_256, DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext,
    UnboundCipherKey,
};
use aws_lc_rs::cipher::{StreamingDecryptingKey, StreamingEncryptingKey};
use aws_lc_rs::iv::FixedLength;
use aws_lc_rs::kdf::{KbkdfCtrHmacAlgorithmId, get_kbkdf_ctr_hmac_algorithm, kbkdf_ctr_hmac};
use aws_lc_rs::key_wrap::{self, AesKek, KeyWrap, KeyWrapPadded};
use aws_lc_rs::signature::{
    self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, ParsedPublicKey, PqdsaKeyPair, RsaKeyPair,
    UnparsedPublicKey,
};
use aws_lc_rs::{agreement, cmac, digest, hkdf, hmac, kem, pbkdf2, rand};

use regula_sm::Sm4;
use regula_sm::sm2;
use regula_sm::sm4::modes::{self as sm4_modes, Xts, XtsStandard};

use super::awslc_sys::{
    self, DigestCtx, EvpCipher, GcmAeadCtx, HmacCtx, LegacyDigest, Shake, XofCtx,
};
use super::cbc_cs3;
use crate::selftest::Fault;
use crate::selftest::vectors as v;

type Outcome = Result<(), ()>;

/// Corrupts (if asked) and compares; the only place a CAST decides pass or fail on bytes.
fn expect(fault: Fault, mut actual: Vec<u8>, expected: &[u8]) -> Outcome {
    fault.corrupt(&mut actual);
    if actual == expected { Ok(()) } else { Err(()) }
}

fn joined(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn aead_round_trip(
    fault: Fault,
    algorithm: &'static aead::Algorithm,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    plaintext: &[u8],
    ciphertext_and_tag: &[u8],
) -> Outcome {
    let key = LessSafeKey::new(UnboundKey::new(algorithm, key).map_err(drop)?);
    let fresh_nonce = || Nonce::try_assume_unique_for_key(nonce).map_err(drop);
    let mut sealed = plaintext.to_vec();
    key.seal_in_place_append_tag(fresh_nonce()?, Aad::from(aad), &mut sealed)
        .map_err(drop)?;
    expect(fault, sealed, ciphertext_and_tag)?;
    let mut opened = ciphertext_and_tag.to_vec();
    let plain = key
        .open_in_place(fresh_nonce()?, Aad::from(aad), &mut opened)
        .map_err(drop)?;
    expect(fault, plain.to_vec(), plaintext)
}

/// IG 10.3.A: AES-GCM encrypt and decrypt, AES-256 with a 96-bit IV.
pub(crate) fn aes_gcm(fault: Fault) -> Result<(), ()> {
    aead_round_trip(
        fault,
        &aead::AES_256_GCM,
        v::AES256_GCM_KEY,
        v::AES256_GCM_IV,
        v::AES256_GCM_AAD,
        v::AES256_GCM_PLAINTEXT,
        &joined(&[v::AES256_GCM_CIPHERTEXT, v::AES256_GCM_TAG]),
    )
}

pub(crate) fn chacha20_poly1305(fault: Fault) -> Result<(), ()> {
    aead_round_trip(
        fault,
        &aead::CHACHA20_POLY1305,
        v::CHACHA20_POLY1305_KEY,
        v::CHACHA20_POLY1305_NONCE,
        v::CHACHA20_POLY1305_AAD,
        v::CHACHA20_POLY1305_PLAINTEXT,
        &joined(&[v::CHACHA20_POLY1305_CIPHERTEXT, v::CHACHA20_POLY1305_TAG]),
    )
}

/// SP 800-38C through AWS-LC's cipher interface (`ccm_seal`/`ccm_open`, as the service calls
/// it), AES-256 with SMB 3.x's 11-byte nonce and a 16-byte tag; covers AES-128-CCM (IG 10.3.A).
pub(crate) fn aes_ccm(fault: Fault) -> Result<(), ()> {
    let mut sealed = v::AES256_CCM_PLAINTEXT.to_vec();
    let mut tag = vec![0u8; v::AES256_CCM_TAG.len()];
    awslc_sys::ccm_seal(
        EvpCipher::Aes256Ccm,
        v::AES256_CCM_KEY,
        v::AES256_CCM_NONCE,
        v::AES256_CCM_AAD,
        &mut sealed,
        &mut tag,
    )
    .map_err(drop)?;
    sealed.extend_from_slice(&tag);
    expect(
        fault,
        sealed,
        &joined(&[v::AES256_CCM_CIPHERTEXT, v::AES256_CCM_TAG]),
    )?;
    let mut opened = v::AES256_CCM_CIPHERTEXT.to_vec();
    awslc_sys::ccm_open(
        EvpCipher::Aes256Ccm,
        v::AES256_CCM_KEY,
        v::AES256_CCM_NONCE,
        v::AES256_CCM_AAD,
        &mut opened,
        v::AES256_CCM_TAG,
    )
    .map_err(drop)?;
    expect(fault, opened, v::AES256_CCM_PLAINTEXT)
}

fn iv16(bytes: &[u8]) -> Result<FixedLength<16>, ()> {
    let array: [u8; 16] = bytes.try_into().map_err(drop)?;
    Ok(FixedLength::from(array))
}

fn block_cipher_round_trip(
    fault: Fault,
    encrypting: EncryptingKey,
    decrypting: DecryptingKey,
    iv: &[u8],
    plaintext: &[u8],
    ciphertext: &[u8],
) -> Outcome {
    let mut buffer = plaintext.to_vec();
    encrypting
        .less_safe_encrypt(&mut buffer, EncryptionContext::Iv128(iv16(iv)?))
        .map_err(drop)?;
    expect(fault, buffer, ciphertext)?;
    let mut buffer = ciphertext.to_vec();
    let plain = decrypting
        .decrypt(&mut buffer, DecryptionContext::Iv128(iv16(iv)?))
        .map_err(drop)?;
    expect(fault, plain.to_vec(), plaintext)
}

fn aes_key(key: &[u8]) -> Result<UnboundCipherKey, ()> {
    UnboundCipherKey::new(&AES_256, key).map_err(drop)
}

pub(crate) fn aes_ctr(fault: Fault) -> Result<(), ()> {
    let key = v::AES256_CTR_KEY;
    block_cipher_round_trip(
        fault,
        EncryptingKey::ctr(aes_key(key)?).map_err(drop)?,
        DecryptingKey::ctr(aes_key(key)?).map_err(drop)?,
        v::AES256_CTR_COUNTER,
        v::AES256_CTR_PLAINTEXT,
        v::AES256_CTR_CIPHERTEXT,
    )
}

/// The CBC core; PKCS#7 padding is a framing step on top of it.
pub(crate) fn aes_cbc(fault: Fault) -> Result<(), ()> {
    let key = v::AES256_CBC_KEY;
    block_cipher_round_trip(
        fault,
        EncryptingKey::cbc(aes_key(key)?).map_err(drop)?,
        DecryptingKey::cbc(aes_key(key)?).map_err(drop)?,
        v::AES256_CBC_IV,
        v::AES256_CBC_PLAINTEXT,
        v::AES256_CBC_CIPHERTEXT,
    )
}

/// SP 800-38A Addendum CBC-CS3: the stealing `provider::cbc_cs3` does around AWS-LC's CBC, on a
/// message with a partial last block, both directions.
pub(crate) fn aes_cbc_cs3(fault: Fault) -> Result<(), ()> {
    let key = || UnboundCipherKey::new(&AES_128, v::AES128_CBC_CS3_KEY).map_err(drop);
    let encrypting = EncryptingKey::cbc(key()?).map_err(drop)?;
    let decrypting = DecryptingKey::cbc(key()?).map_err(drop)?;
    let mut buffer = v::AES128_CBC_CS3_PLAINTEXT.to_vec();
    cbc_cs3::encrypt(&encrypting, &[0; 16], &mut buffer).map_err(drop)?;
    expect(fault, buffer.clone(), v::AES128_CBC_CS3_CIPHERTEXT)?;
    cbc_cs3::decrypt(&decrypting, &[0; 16], &mut buffer).map_err(drop)?;
    expect(fault, buffer, v::AES128_CBC_CS3_PLAINTEXT)
}

/// Encrypts and decrypts with one of the AWS-LC EVP ciphers the service calls through
/// `cipher_in_place` (XTS, RC4, DES, 3DES).
fn evp_round_trip(
    fault: Fault,
    cipher: EvpCipher,
    key: &[u8],
    iv: Option<&[u8]>,
    plaintext: &[u8],
    ciphertext: &[u8],
) -> Outcome {
    let mut buffer = plaintext.to_vec();
    awslc_sys::cipher_in_place(cipher, key, iv, true, &mut buffer).map_err(drop)?;
    expect(fault, buffer, ciphertext)?;
    let mut buffer = ciphertext.to_vec();
    awslc_sys::cipher_in_place(cipher, key, iv, false, &mut buffer).map_err(drop)?;
    expect(fault, buffer, plaintext)
}

/// SP 800-38E, AES-256 (AWS-LC has no AES-128-XTS), one two-block data unit.
pub(crate) fn aes_xts(fault: Fault) -> Result<(), ()> {
    evp_round_trip(
        fault,
        EvpCipher::Aes256Xts,
        v::AES256_XTS_KEY,
        Some(v::AES256_XTS_TWEAK),
        v::AES256_XTS_PLAINTEXT,
        v::AES256_XTS_CIPHERTEXT,
    )
}

/// Through aws-lc-rs's streaming CFB8 keys, as the service uses them; AES-256 covers AES-128.
pub(crate) fn aes_cfb8(fault: Fault) -> Result<(), ()> {
    let iv = || iv16(v::AES256_CFB8_IV);
    let mut output = vec![0u8; v::AES256_CFB8_PLAINTEXT.len() + 16];
    let mut encrypting = StreamingEncryptingKey::less_safe_cfb8(
        aes_key(v::AES256_CFB8_KEY)?,
        EncryptionContext::Iv128(iv()?),
    )
    .map_err(drop)?;
    let written = encrypting
        .update(v::AES256_CFB8_PLAINTEXT, &mut output)
        .map_err(drop)?
        .written()
        .len();
    let (_, last) = encrypting.finish(&mut output[written..]).map_err(drop)?;
    let total = written + last.written().len();
    output.truncate(total);
    expect(fault, output, v::AES256_CFB8_CIPHERTEXT)?;
    let mut output = vec![0u8; v::AES256_CFB8_CIPHERTEXT.len() + 16];
    let mut decrypting = StreamingDecryptingKey::cfb8(
        aes_key(v::AES256_CFB8_KEY)?,
        DecryptionContext::Iv128(iv()?),
    )
    .map_err(drop)?;
    let written = decrypting
        .update(v::AES256_CFB8_CIPHERTEXT, &mut output)
        .map_err(drop)?
        .written()
        .len();
    let last = decrypting.finish(&mut output[written..]).map_err(drop)?;
    let total = written + last.written().len();
    output.truncate(total);
    expect(fault, output, v::AES256_CFB8_PLAINTEXT)
}

fn kek(key: &[u8]) -> Result<AesKek, ()> {
    AesKek::new(&key_wrap::AES_256, key).map_err(drop)
}

/// SP 800-38F KW wrap and unwrap (the integrity check included), AES-256 covering AES-128.
pub(crate) fn aes_kw(fault: Fault) -> Result<(), ()> {
    let mut output = vec![0u8; v::AES256_KW_KEY_DATA.len() + 16];
    let wrapped = kek(v::AES256_KW_KEK)?
        .wrap(v::AES256_KW_KEY_DATA, &mut output)
        .map_err(drop)?
        .to_vec();
    expect(fault, wrapped, v::AES256_KW_WRAPPED)?;
    let mut output = vec![0u8; v::AES256_KW_WRAPPED.len()];
    let unwrapped = kek(v::AES256_KW_KEK)?
        .unwrap(v::AES256_KW_WRAPPED, &mut output)
        .map_err(drop)?
        .to_vec();
    expect(fault, unwrapped, v::AES256_KW_KEY_DATA)
}

/// SP 800-38F KWP wrap and unwrap, AES-256 covering AES-128.
pub(crate) fn aes_kwp(fault: Fault) -> Result<(), ()> {
    let mut output = vec![0u8; v::AES256_KWP_KEY_DATA.len() + 16];
    let wrapped = kek(v::AES256_KWP_KEK)?
        .wrap_with_padding(v::AES256_KWP_KEY_DATA, &mut output)
        .map_err(drop)?
        .to_vec();
    expect(fault, wrapped, v::AES256_KWP_WRAPPED)?;
    let mut output = vec![0u8; v::AES256_KWP_WRAPPED.len()];
    let unwrapped = kek(v::AES256_KWP_KEK)?
        .unwrap_with_padding(v::AES256_KWP_WRAPPED, &mut output)
        .map_err(drop)?
        .to_vec();
    expect(fault, unwrapped, v::AES256_KWP_KEY_DATA)
}

fn hash(
    fault: Fault,
    algorithm: &'static digest::Algorithm,
    message: &[u8],
    expected: &[u8],
) -> Outcome {
    expect(
        fault,
        digest::digest(algorithm, message).as_ref().to_vec(),
        expected,
    )
}

pub(crate) fn sha1(fault: Fault) -> Result<(), ()> {
    hash(
        fault,
        &digest::SHA1_FOR_LEGACY_USE_ONLY,
        v::SHA_MSG_ABC,
        v::SHA1_ABC,
    )
}

pub(crate) fn sha224(fault: Fault) -> Result<(), ()> {
    hash(fault, &digest::SHA224, v::SHA_MSG_ABC, v::SHA224_ABC)
}

pub(crate) fn sha256(fault: Fault) -> Result<(), ()> {
    hash(fault, &digest::SHA256, v::SHA_MSG_ABC, v::SHA256_ABC)
}

pub(crate) fn sha384(fault: Fault) -> Result<(), ()> {
    hash(fault, &digest::SHA384, v::SHA_MSG_ABC, v::SHA384_ABC)
}

pub(crate) fn sha512(fault: Fault) -> Result<(), ()> {
    hash(fault, &digest::SHA512, v::SHA_MSG_ABC, v::SHA512_ABC)
}

pub(crate) fn sha3_256(fault: Fault) -> Result<(), ()> {
    hash(
        fault,
        &digest::SHA3_256,
        v::SHA3_MSG_1600,
        v::SHA3_256_MSG_1600,
    )
}

pub(crate) fn sha3_384(fault: Fault) -> Result<(), ()> {
    hash(
        fault,
        &digest::SHA3_384,
        v::SHA3_MSG_1600,
        v::SHA3_384_MSG_1600,
    )
}

pub(crate) fn sha3_512(fault: Fault) -> Result<(), ()> {
    hash(
        fault,
        &digest::SHA3_512,
        v::SHA3_MSG_1600,
        v::SHA3_512_MSG_1600,
    )
}

/// SHAKE through AWS-LC's XOF interface, the same path the XOF service takes.
fn shake(fault: Fault, shake: Shake, message: &[u8], expected: &[u8]) -> Outcome {
    let mut ctx = XofCtx::new(shake).map_err(drop)?;
    ctx.update(message).map_err(drop)?;
    let mut output = vec![0u8; expected.len()];
    ctx.finish_into(&mut output).map_err(drop)?;
    expect(fault, output, expected)
}

pub(crate) fn shake128(fault: Fault) -> Result<(), ()> {
    shake(
        fault,
        Shake::Shake128,
        v::SHAKE128_VAR_OUT_MSG,
        v::SHAKE128_VAR_OUT,
    )
}

pub(crate) fn shake256(fault: Fault) -> Result<(), ()> {
    shake(
        fault,
        Shake::Shake256,
        v::SHAKE256_VAR_OUT_MSG,
        v::SHAKE256_VAR_OUT,
    )
}

fn mac(
    fault: Fault,
    algorithm: hmac::Algorithm,
    key: &[u8],
    data: &[u8],
    expected: &[u8],
) -> Outcome {
    let key = hmac::Key::new(algorithm, key);
    expect(fault, hmac::sign(&key, data).as_ref().to_vec(), expected)
}

/// Two RFC 2202 cases, as for HMAC-SHA2-256: a short key, and one longer than the block.
pub(crate) fn hmac_sha1(fault: Fault) -> Result<(), ()> {
    let sha1 = hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY;
    mac(
        fault,
        sha1,
        v::HMAC_RFC2202_TC2_KEY,
        v::HMAC_RFC2202_TC2_DATA,
        v::HMAC_SHA1_RFC2202_TC2,
    )?;
    mac(
        fault,
        sha1,
        v::HMAC_RFC2202_TC6_KEY,
        v::HMAC_TC6_DATA,
        v::HMAC_SHA1_RFC2202_TC6,
    )
}

pub(crate) fn hmac_sha224(fault: Fault) -> Result<(), ()> {
    mac(
        fault,
        hmac::HMAC_SHA224,
        v::HMAC_TC1_KEY,
        v::HMAC_TC1_DATA,
        v::HMAC_SHA224_TC1,
    )
}

/// Two RFC 4231 cases: a short key, and one longer than the block (hashed first).
pub(crate) fn hmac_sha256(fault: Fault) -> Result<(), ()> {
    mac(
        fault,
        hmac::HMAC_SHA256,
        v::HMAC_TC1_KEY,
        v::HMAC_TC1_DATA,
        v::HMAC_SHA256_TC1,
    )?;
    mac(
        fault,
        hmac::HMAC_SHA256,
        v::HMAC_TC6_KEY,
        v::HMAC_TC6_DATA,
        v::HMAC_SHA256_TC6,
    )
}

pub(crate) fn hmac_sha384(fault: Fault) -> Result<(), ()> {
    mac(
        fault,
        hmac::HMAC_SHA384,
        v::HMAC_TC1_KEY,
        v::HMAC_TC1_DATA,
        v::HMAC_SHA384_TC1,
    )
}

pub(crate) fn hmac_sha512(fault: Fault) -> Result<(), ()> {
    mac(
        fault,
        hmac::HMAC_SHA512,
        v::HMAC_TC1_KEY,
        v::HMAC_TC1_DATA,
        v::HMAC_SHA512_TC1,
    )
}

pub(crate) fn aes_cmac(fault: Fault) -> Result<(), ()> {
    let key = cmac::Key::new(cmac::AES_128, v::AES128_CMAC_KEY).map_err(drop)?;
    let tag = cmac::sign(&key, v::AES128_CMAC_MESSAGE).map_err(drop)?;
    expect(fault, tag.as_ref().to_vec(), v::AES128_CMAC_TAG)
}

/// SP 800-38D GMAC through AWS-LC's GCM `EVP_AEAD` (`GcmAeadCtx`, as the service calls it);
/// AES-256 covers AES-128. Verification recomputes the same tag.
pub(crate) fn aes_gmac(fault: Fault) -> Result<(), ()> {
    let tag = GcmAeadCtx::new(v::AES256_GMAC_KEY)
        .and_then(|ctx| ctx.gmac(v::AES256_GMAC_IV, v::AES256_GMAC_MESSAGE))
        .map_err(drop)?;
    expect(fault, tag.to_vec(), v::AES256_GMAC_TAG)
}

struct OutputLen(usize);

impl hkdf::KeyType for OutputLen {
    fn len(&self) -> usize {
        self.0
    }
}

/// Extract and expand separately, so a fault in either step is caught.
pub(crate) fn hkdf_sha256(fault: Fault) -> Result<(), ()> {
    let prk = hkdf::Prk::new_less_safe(hkdf::HKDF_SHA256, v::HKDF_SHA256_PRK);
    let mut okm = vec![0u8; v::HKDF_SHA256_OKM.len()];
    prk.expand(&[v::HKDF_SHA256_INFO], OutputLen(okm.len()))
        .and_then(|okm_out| okm_out.fill(&mut okm))
        .map_err(drop)?;
    expect(fault, okm, v::HKDF_SHA256_OKM)?;
    let mut okm = vec![0u8; v::HKDF_SHA256_OKM.len()];
    hkdf::Salt::new(hkdf::HKDF_SHA256, v::HKDF_SHA256_SALT)
        .extract(v::HKDF_SHA256_IKM)
        .expand(&[v::HKDF_SHA256_INFO], OutputLen(okm.len()))
        .and_then(|okm_out| okm_out.fill(&mut okm))
        .map_err(drop)?;
    expect(fault, okm, v::HKDF_SHA256_OKM)
}

/// SP 800-108 counter mode with HMAC-SHA-256 (covers the SHA-384 and SHA-512 PRFs: same
/// AWS-LC code, IG 10.3.A), two PRF blocks so that the counter increments.
pub(crate) fn kbkdf_ctr_hmac_sha256(fault: Fault) -> Result<(), ()> {
    let algorithm = get_kbkdf_ctr_hmac_algorithm(KbkdfCtrHmacAlgorithmId::Sha256).ok_or(())?;
    let mut derived = vec![0u8; v::KBKDF_SHA256_OUTPUT.len()];
    kbkdf_ctr_hmac(
        algorithm,
        v::KBKDF_SHA256_KEY,
        v::KBKDF_SHA256_FIXED_INPUT,
        &mut derived,
    )
    .map_err(drop)?;
    expect(fault, derived, v::KBKDF_SHA256_OUTPUT)
}

/// The TLS 1.2 KDF (SP 800-135 §4.2.2), which FIPS 140-3 requires a CAST for: the master
/// secret from NIST's vector (covers SHA-384: same AWS-LC P_hash code, IG 10.3.A).
pub(crate) fn tls12_prf_sha256(fault: Fault) -> Result<(), ()> {
    let seed = [
        v::TLS12_PRF_SHA256_LABEL,
        v::TLS12_PRF_SHA256_CLIENT_RANDOM,
        v::TLS12_PRF_SHA256_SERVER_RANDOM,
    ]
    .concat();
    let mut derived = vec![0u8; v::TLS12_PRF_SHA256_OUTPUT.len()];
    super::awslc_sys::tls12_prf(
        super::awslc_sys::Sha2::Sha256,
        v::TLS12_PRF_SHA256_SECRET,
        &seed,
        &mut derived,
    )
    .map_err(drop)?;
    expect(fault, derived, v::TLS12_PRF_SHA256_OUTPUT)
}

pub(crate) fn pbkdf2_sha256(fault: Fault) -> Result<(), ()> {
    let iterations = NonZeroU32::new(v::PBKDF2_SHA256_ITERATIONS).ok_or(())?;
    let mut derived = vec![0u8; v::PBKDF2_SHA256_DK.len()];
    pbkdf2::derive(
        pbkdf2::PBKDF2_HMAC_SHA256,
        iterations,
        v::PBKDF2_SHA256_SALT,
        v::PBKDF2_SHA256_PASSWORD,
        &mut derived,
    );
    expect(fault, derived, v::PBKDF2_SHA256_DK)
}

/// ECDSA signing is randomised, so: verify the RFC 6979 signature, then sign with the RFC's
/// key and verify that signature too.
pub(crate) fn ecdsa_p256(fault: Fault) -> Result<(), ()> {
    let public_key =
        UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, v::ECDSA_P256_PUBLIC);
    let mut known = v::ECDSA_P256_SHA256_SIG.to_vec();
    fault.corrupt(&mut known);
    public_key
        .verify(v::ECDSA_P256_MESSAGE, &known)
        .map_err(drop)?;
    let key_pair = EcdsaKeyPair::from_private_key_and_public_key(
        &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        v::ECDSA_P256_PRIVATE,
        v::ECDSA_P256_PUBLIC,
    )
    .map_err(drop)?;
    let fresh = key_pair
        .sign(&rand::SystemRandom::new(), v::ECDSA_P256_MESSAGE)
        .map_err(drop)?;
    public_key
        .verify(v::ECDSA_P256_MESSAGE, fresh.as_ref())
        .map_err(drop)
}

pub(crate) fn ed25519(fault: Fault) -> Result<(), ()> {
    let key_pair = Ed25519KeyPair::from_seed_and_public_key(v::ED25519_SEED, v::ED25519_PUBLIC)
        .map_err(drop)?;
    let signature = key_pair.try_sign(v::ED25519_MESSAGE).map_err(drop)?;
    expect(fault, signature.as_ref().to_vec(), v::ED25519_SIG)?;
    UnparsedPublicKey::new(&signature::ED25519, v::ED25519_PUBLIC)
        .verify(v::ED25519_MESSAGE, v::ED25519_SIG)
        .map_err(drop)
}

/// PKCS#1 v1.5 signing is deterministic: sign and compare, then verify.
pub(crate) fn rsa_pkcs1_sha256(fault: Fault) -> Result<(), ()> {
    let key_pair = RsaKeyPair::from_pkcs8(v::RSA2048_PKCS8).map_err(drop)?;
    let mut signature = vec![0u8; key_pair.public_modulus_len()];
    key_pair
        .sign(
            &signature::RSA_PKCS1_SHA256,
            &rand::SystemRandom::new(),
            v::RSA2048_MESSAGE,
            &mut signature,
        )
        .map_err(drop)?;
    expect(fault, signature, v::RSA2048_PKCS1_SHA256_SIG)?;
    UnparsedPublicKey::new(
        &signature::RSA_PKCS1_2048_8192_SHA256,
        key_pair.public_key().as_ref(),
    )
    .verify(v::RSA2048_MESSAGE, v::RSA2048_PKCS1_SHA256_SIG)
    .map_err(drop)
}

/// RSA-OAEP for SHA-1/256/384/512 (one implementation, IG 10.3.A): the private-key side, a
/// known ciphertext decrypts to the known message under the known label.
pub(crate) fn rsa_oaep_sha256(fault: Fault) -> Result<(), ()> {
    use aws_lc_rs::rsa::{OAEP_SHA256_MGF1SHA256, OaepPrivateDecryptingKey, PrivateDecryptingKey};
    let key = PrivateDecryptingKey::from_pkcs8(v::RSA2048_PKCS8).map_err(drop)?;
    let key = OaepPrivateDecryptingKey::new(key).map_err(drop)?;
    let mut plaintext = zeroize::Zeroizing::new(vec![0u8; key.min_output_size()]);
    let message = key
        .decrypt(
            &OAEP_SHA256_MGF1SHA256,
            v::RSA2048_OAEP_SHA256_CIPHERTEXT,
            &mut plaintext,
            Some(v::RSA2048_OAEP_LABEL),
        )
        .map_err(drop)?;
    expect(fault, message.to_vec(), v::RSA2048_OAEP_MESSAGE)
}

/// FIPS 204 for ML-DSA-44/65/87 (one implementation, IG 10.3.A): key generation from a seed
/// reproduces the published public key; the published signature verifies; and, since signing
/// is hedged (randomised) and cannot be compared byte for byte, a fresh signature verifies.
pub(crate) fn ml_dsa_44(fault: Fault) -> Result<(), ()> {
    let key_pair =
        PqdsaKeyPair::from_seed(&signature::ML_DSA_44_SIGNING, v::ML_DSA_44_SEED).map_err(drop)?;
    expect(
        fault,
        key_pair.public_key().as_ref().to_vec(),
        &v::ML_DSA_44_PUBLIC,
    )?;
    let public_key =
        ParsedPublicKey::new(&signature::ML_DSA_44, &v::ML_DSA_44_PUBLIC[..]).map_err(drop)?;
    let mut known = v::ML_DSA_44_SIGNATURE.to_vec();
    fault.corrupt(&mut known);
    public_key
        .verify_sig(v::ML_DSA_44_MESSAGE, &known)
        .map_err(drop)?;
    let mut fresh = vec![0u8; signature::ML_DSA_44_SIGNING.signature_len()];
    let written = key_pair
        .sign(v::ML_DSA_44_MESSAGE, &mut fresh)
        .map_err(drop)?;
    fresh.truncate(written);
    public_key
        .verify_sig(v::ML_DSA_44_MESSAGE, &fresh)
        .map_err(drop)
}

fn agree(
    fault: Fault,
    algorithm: &'static agreement::Algorithm,
    private_key: &[u8],
    peer_public_key: &[u8],
    expected: &[u8],
) -> Outcome {
    let private_key =
        agreement::PrivateKey::from_private_key(algorithm, private_key).map_err(drop)?;
    let secret = agreement::agree(
        &private_key,
        agreement::UnparsedPublicKey::new(algorithm, peer_public_key),
        (),
        |secret| Ok(secret.to_vec()),
    )?;
    expect(fault, secret, expected)
}

/// SP 800-56A Rev. 3 shared-secret computation, both directions of RFC 5903 §8.1.
pub(crate) fn ecdh_p256(fault: Fault) -> Result<(), ()> {
    agree(
        fault,
        &agreement::ECDH_P256,
        v::ECDH_P256_I,
        v::ECDH_P256_GR_PUBLIC,
        v::ECDH_P256_GIRX,
    )?;
    agree(
        fault,
        &agreement::ECDH_P256,
        v::ECDH_P256_R,
        v::ECDH_P256_GI_PUBLIC,
        v::ECDH_P256_GIRX,
    )
}

pub(crate) fn x25519(fault: Fault) -> Result<(), ()> {
    agree(
        fault,
        &agreement::X25519,
        v::X25519_ALICE_PRIVATE,
        v::X25519_BOB_PUBLIC,
        v::X25519_SHARED,
    )?;
    agree(
        fault,
        &agreement::X25519,
        v::X25519_BOB_PRIVATE,
        v::X25519_ALICE_PUBLIC,
        v::X25519_SHARED,
    )
}

/// FIPS 203 decapsulation of an ACVP vector; encapsulation is randomised and is covered by
/// the pairwise consistency test at key generation.
pub(crate) fn ml_kem_768(fault: Fault) -> Result<(), ()> {
    let key = kem::DecapsulationKey::new(&kem::ML_KEM_768, v::ML_KEM_768_DK).map_err(drop)?;
    let secret = key
        .decapsulate(kem::Ciphertext::from(v::ML_KEM_768_CIPHERTEXT))
        .map_err(drop)?;
    expect(fault, secret.as_ref().to_vec(), v::ML_KEM_768_SHARED_SECRET)
}

/// AWS-LC's own self-test suite, which includes the SP 800-90A CTR_DRBG known-answer test
/// (and, in the validated module, runs at power-on too), followed by a continuous check that
/// two fresh outputs differ (SP 800-90B §4.4 spirit).
pub(crate) fn ctr_drbg(fault: Fault) -> Result<(), ()> {
    aws_lc_rs::try_fips_self_test().map_err(drop)?;
    let mut first = [0u8; 32];
    let mut second = [0u8; 32];
    rand::fill(&mut first).map_err(drop)?;
    rand::fill(&mut second).map_err(drop)?;
    fault.corrupt(&mut second);
    if fault.is_injected() {
        second = first;
    }
    if first == second { Err(()) } else { Ok(()) }
}

fn legacy_digest(fault: Fault, digest: LegacyDigest, message: &[u8], expected: &[u8]) -> Outcome {
    let mut ctx = DigestCtx::new(digest).map_err(drop)?;
    ctx.update(message).map_err(drop)?;
    expect(fault, ctx.finish().map_err(drop)?, expected)
}

pub(crate) fn md4(fault: Fault) -> Result<(), ()> {
    legacy_digest(
        fault,
        LegacyDigest::Md4,
        v::MD_MSG_80_DIGITS,
        v::MD4_80_DIGITS,
    )
}

pub(crate) fn md5(fault: Fault) -> Result<(), ()> {
    legacy_digest(
        fault,
        LegacyDigest::Md5,
        v::MD_MSG_80_DIGITS,
        v::MD5_80_DIGITS,
    )
}

fn legacy_hmac(fault: Fault, key: &[u8], data: &[u8], expected: &[u8]) -> Outcome {
    let mut ctx = HmacCtx::new(LegacyDigest::Md5, key).map_err(drop)?;
    ctx.update(data).map_err(drop)?;
    expect(fault, ctx.finish().map_err(drop)?, expected)
}

/// RFC 2202 cases 2 and 6 (a key longer than the block), as for HMAC-SHA-1.
pub(crate) fn hmac_md5(fault: Fault) -> Result<(), ()> {
    legacy_hmac(
        fault,
        v::HMAC_RFC2202_TC2_KEY,
        v::HMAC_RFC2202_TC2_DATA,
        v::HMAC_MD5_RFC2202_TC2,
    )?;
    legacy_hmac(
        fault,
        v::HMAC_RFC2202_TC6_KEY,
        v::HMAC_TC6_DATA,
        v::HMAC_MD5_RFC2202_TC6,
    )
}

/// RC4 encryption and decryption are the same key-stream XOR; both directions run anyway.
pub(crate) fn rc4(fault: Fault) -> Result<(), ()> {
    evp_round_trip(
        fault,
        EvpCipher::Rc4,
        v::RC4_KEY,
        None,
        &[0u8; 32],
        v::RC4_KEY_STREAM,
    )
}

pub(crate) fn des_cbc(fault: Fault) -> Result<(), ()> {
    evp_round_trip(
        fault,
        EvpCipher::DesCbc,
        v::DES_CBC_KEY,
        Some(v::DES_CBC_IV),
        v::DES_CBC_PLAINTEXT,
        v::DES_CBC_CIPHERTEXT,
    )
}

pub(crate) fn tdes_cbc(fault: Fault) -> Result<(), ()> {
    evp_round_trip(
        fault,
        EvpCipher::DesEde3Cbc,
        v::TDES_CBC_KEY,
        Some(v::TDES_CBC_IV),
        v::TDES_CBC_PLAINTEXT,
        v::TDES_CBC_CIPHERTEXT,
    )
}

pub(crate) fn sm3(fault: Fault) -> Result<(), ()> {
    expect(
        fault,
        regula_sm::sm3::sm3(v::SHA_MSG_ABC).to_vec(),
        v::SM3_ABC,
    )
}

pub(crate) fn hmac_sm3(fault: Fault) -> Result<(), ()> {
    let mut mac = regula_sm::sm3::HmacSm3::new(v::HMAC_SM3_KEY).map_err(drop)?;
    mac.update(v::HMAC_SM3_MESSAGE_HALF);
    mac.update(v::HMAC_SM3_MESSAGE_HALF);
    expect(fault, mac.finalize().to_vec(), v::HMAC_SM3_TAG)
}

fn sm4_key() -> Result<Sm4, ()> {
    Ok(Sm4::new(v::SM4_KEY.try_into().map_err(drop)?))
}

fn sm4_iv() -> Result<[u8; 16], ()> {
    v::SM4_IV.try_into().map_err(drop)
}

/// The block cipher both ways (GB/T 32907 example 1 uses the key as plaintext).
pub(crate) fn sm4_ecb(fault: Fault) -> Result<(), ()> {
    let cipher = sm4_key()?;
    let mut block = v::SM4_KEY.to_vec();
    sm4_modes::ecb_encrypt(&cipher, &mut block).map_err(drop)?;
    expect(fault, block.clone(), v::SM4_EXAMPLE1_CIPHERTEXT)?;
    sm4_modes::ecb_decrypt(&cipher, &mut block).map_err(drop)?;
    expect(fault, block, v::SM4_KEY)
}

/// The CBC core; PKCS#7 padding is a framing step on top of it, as for AES-CBC.
pub(crate) fn sm4_cbc(fault: Fault) -> Result<(), ()> {
    let cipher = sm4_key()?;
    let mut buffer = v::SM4_CBC_PLAINTEXT.to_vec();
    sm4_modes::cbc_encrypt(&cipher, &sm4_iv()?, &mut buffer).map_err(drop)?;
    expect(fault, buffer.clone(), v::SM4_CBC_CIPHERTEXT)?;
    sm4_modes::cbc_decrypt(&cipher, &sm4_iv()?, &mut buffer).map_err(drop)?;
    expect(fault, buffer, v::SM4_CBC_PLAINTEXT)
}

pub(crate) fn sm4_ctr(fault: Fault) -> Result<(), ()> {
    let cipher = sm4_key()?;
    let mut buffer = v::SM4_CTR_PLAINTEXT.to_vec();
    sm4_modes::ctr_apply_keystream(&cipher, &sm4_iv()?, &mut buffer);
    expect(fault, buffer, v::SM4_CTR_CIPHERTEXT)
}

/// OFB both ways (the keystream is its own inverse).
pub(crate) fn sm4_ofb(fault: Fault) -> Result<(), ()> {
    let cipher = sm4_key()?;
    let mut buffer = v::SM4_CBC_PLAINTEXT.to_vec();
    sm4_modes::ofb_apply_keystream(&cipher, &sm4_iv()?, &mut buffer);
    expect(fault, buffer.clone(), v::SM4_OFB_CIPHERTEXT)?;
    sm4_modes::ofb_apply_keystream(&cipher, &sm4_iv()?, &mut buffer);
    expect(fault, buffer, v::SM4_CBC_PLAINTEXT)
}

/// CFB-128 both ways.
pub(crate) fn sm4_cfb(fault: Fault) -> Result<(), ()> {
    let cipher = sm4_key()?;
    let mut buffer = v::SM4_CBC_PLAINTEXT.to_vec();
    sm4_modes::cfb_encrypt(&cipher, &sm4_iv()?, &mut buffer);
    expect(fault, buffer.clone(), v::SM4_CFB_CIPHERTEXT)?;
    sm4_modes::cfb_decrypt(&cipher, &sm4_iv()?, &mut buffer);
    expect(fault, buffer, v::SM4_CBC_PLAINTEXT)
}

fn sm4_key16() -> Result<[u8; 16], ()> {
    v::SM4_KEY.try_into().map_err(drop)
}

/// RFC 8998's AEAD vectors, sealed and opened; `Aead` is SM4-GCM or SM4-CCM.
macro_rules! sm4_aead_cast {
    ($fault:expr, $aead:ty, $ciphertext:expr, $tag:expr) => {{
        let aead = <$aead>::new(&sm4_key16()?);
        let mut buffer = v::SM4_CTR_PLAINTEXT.to_vec();
        let tag = aead
            .encrypt(v::RFC8998_NONCE, v::RFC8998_AAD, &mut buffer)
            .map_err(drop)?;
        expect(
            $fault,
            [buffer.as_slice(), &tag].concat(),
            &joined(&[$ciphertext, $tag]),
        )?;
        let mut buffer = $ciphertext.to_vec();
        aead.decrypt(v::RFC8998_NONCE, v::RFC8998_AAD, &mut buffer, $tag)
            .map_err(drop)?;
        expect($fault, buffer, v::SM4_CTR_PLAINTEXT)
    }};
}

pub(crate) fn sm4_gcm(fault: Fault) -> Result<(), ()> {
    sm4_aead_cast!(
        fault,
        sm4_modes::Sm4Gcm,
        v::SM4_GCM_CIPHERTEXT,
        v::SM4_GCM_TAG
    )
}

pub(crate) fn sm4_ccm(fault: Fault) -> Result<(), ()> {
    sm4_aead_cast!(
        fault,
        sm4_modes::Sm4Ccm,
        v::SM4_CCM_CIPHERTEXT,
        v::SM4_CCM_TAG
    )
}

fn xts(fault: Fault, standard: XtsStandard, expected: &[u8]) -> Outcome {
    let xts = Xts::new(v::SM4_XTS_KEY.try_into().map_err(drop)?, standard).map_err(drop)?;
    let tweak: [u8; 16] = v::SM4_XTS_TWEAK.try_into().map_err(drop)?;
    let mut buffer = v::SM4_XTS_PLAINTEXT.to_vec();
    xts.encrypt(&tweak, &mut buffer).map_err(drop)?;
    expect(fault, buffer.clone(), expected)?;
    xts.decrypt(&tweak, &mut buffer).map_err(drop)?;
    expect(fault, buffer, v::SM4_XTS_PLAINTEXT)
}

pub(crate) fn sm4_xts(fault: Fault) -> Result<(), ()> {
    xts(fault, XtsStandard::Ieee1619, v::SM4_XTS_IEEE_CIPHERTEXT)
}

pub(crate) fn sm4_xts_gb(fault: Fault) -> Result<(), ()> {
    xts(fault, XtsStandard::GbT17964, v::SM4_XTS_GB_CIPHERTEXT)
}

pub(crate) fn sm4_cbc_cs3(fault: Fault) -> Result<(), ()> {
    let cipher = sm4_key()?;
    let mut buffer = v::SM4_CBC_PLAINTEXT.to_vec();
    sm4_modes::cbc_cs3_encrypt(&cipher, &sm4_iv()?, &mut buffer).map_err(drop)?;
    expect(fault, buffer.clone(), v::SM4_CBC_CS3_CIPHERTEXT)?;
    sm4_modes::cbc_cs3_decrypt(&cipher, &sm4_iv()?, &mut buffer).map_err(drop)?;
    expect(fault, buffer, v::SM4_CBC_PLAINTEXT)
}

pub(crate) fn sm4_cmac(fault: Fault) -> Result<(), ()> {
    let mac = sm4_modes::Cmac::new(v::SM4_CMAC_KEY.try_into().map_err(drop)?);
    let tag = mac.compute(v::SM4_CMAC_MESSAGE).map_err(drop)?;
    expect(fault, tag.to_vec(), v::SM4_CMAC_TAG)
}

pub(crate) fn sm4_xcbc_mac(fault: Fault) -> Result<(), ()> {
    let tag = sm4_modes::Xcbc::new(&sm4_key16()?)
        .compute(v::SM4_KEY)
        .map_err(drop)?;
    expect(fault, tag.to_vec(), v::SM4_XCBC_TAG)
}

pub(crate) fn sm4_cbc_mac(fault: Fault) -> Result<(), ()> {
    let tag = sm4_modes::CbcMac::new(&sm4_key16()?)
        .compute(v::SM4_KEY)
        .map_err(drop)?;
    expect(fault, tag.to_vec(), v::SM4_EXAMPLE1_CIPHERTEXT)
}

fn sm2_key() -> Result<sm2::PrivateKey, ()> {
    sm2::PrivateKey::from_bytes(v::SM2_PRIVATE_KEY).map_err(drop)
}

/// Signature generation with the standard's fixed k (IG 10.3.A allows a KAT with a fixed
/// random value) and verification of the expected signature.
pub(crate) fn sm2_sign(fault: Fault) -> Result<(), ()> {
    let key = sm2_key()?;
    let signature = sm2::signature::sign_with_fixed_k_for_self_test(
        &key,
        v::SM2_DEFAULT_ID,
        v::SM2_SIGN_MESSAGE,
        v::SM2_K,
    )
    .map_err(drop)?;
    expect(fault, signature.to_bytes().to_vec(), v::SM2_SIGNATURE_R_S)?;
    let mut expected = v::SM2_SIGNATURE_R_S.to_vec();
    fault.corrupt(&mut expected);
    let expected = sm2::Signature::from_bytes(&expected).map_err(drop)?;
    sm2::verify(
        key.public_key(),
        v::SM2_DEFAULT_ID,
        v::SM2_SIGN_MESSAGE,
        &expected,
    )
    .map_err(drop)
}

/// Encryption with the standard's fixed k, then decryption; both pass through the SM3 KDF.
pub(crate) fn sm2_encrypt(fault: Fault) -> Result<(), ()> {
    let key = sm2_key()?;
    let ciphertext = sm2::encryption::encrypt_with_fixed_k_for_self_test(
        key.public_key(),
        v::SM2_ENCRYPT_MESSAGE,
        sm2::CiphertextFormat::C1C3C2,
        v::SM2_K,
    )
    .map_err(drop)?;
    expect(fault, ciphertext, v::SM2_CIPHERTEXT_C1C3C2)?;
    let plaintext = sm2::decrypt(
        &key,
        v::SM2_CIPHERTEXT_C1C3C2,
        sm2::CiphertextFormat::C1C3C2,
    )
    .map_err(drop)?;
    expect(fault, plaintext, v::SM2_ENCRYPT_MESSAGE)
}

/// The shared x-coordinate, and the peer's public key derived from its private key.
pub(crate) fn sm2_ecdh(fault: Fault) -> Result<(), ()> {
    let peer = sm2::PrivateKey::from_bytes(v::SM2_ECDH_PEER_PRIVATE_KEY).map_err(drop)?;
    expect(
        fault,
        peer.public_key().to_uncompressed().to_vec(),
        v::SM2_ECDH_PEER_PUBLIC_KEY,
    )?;
    let shared = sm2::ecdh(&sm2_key()?, peer.public_key()).map_err(drop)?;
    expect(fault, shared.to_vec(), v::SM2_ECDH_SHARED_X)
}

/// Both roles with fixed ephemeral keys (user B's static key is SM2-ECDH's peer key): each
/// derives the expected key, and each accepts the other's confirmation hash.
pub(crate) fn sm2_key_exchange(fault: Fault) -> Result<(), ()> {
    use sm2::exchange::{KeyExchange, KeyExchangeRole};
    let a = sm2::PrivateKey::from_bytes(v::SM2_KX_PRIVATE_A).map_err(drop)?;
    let b = sm2::PrivateKey::from_bytes(v::SM2_ECDH_PEER_PRIVATE_KEY).map_err(drop)?;
    let initiator = KeyExchange::with_fixed_ephemeral_for_self_test(
        KeyExchangeRole::Initiator,
        &a,
        v::SM2_KX_ID_A,
        b.public_key(),
        v::SM2_KX_ID_B,
        v::SM2_KX_EPHEMERAL_A,
    )
    .map_err(drop)?;
    let responder = KeyExchange::with_fixed_ephemeral_for_self_test(
        KeyExchangeRole::Responder,
        &b,
        v::SM2_KX_ID_B,
        a.public_key(),
        v::SM2_KX_ID_A,
        v::SM2_KX_EPHEMERAL_B,
    )
    .map_err(drop)?;
    let (r_a, r_b) = (
        initiator.ephemeral_public_key(),
        responder.ephemeral_public_key(),
    );
    let key_len = v::SM2_KX_KEY.len();
    let k_a = initiator.finish(&r_b, key_len).map_err(drop)?;
    let k_b = responder.finish(&r_a, key_len).map_err(drop)?;
    expect(fault, k_a.key().to_vec(), v::SM2_KX_KEY)?;
    expect(fault, k_b.key().to_vec(), v::SM2_KX_KEY)?;
    let mut s_b = *k_b.confirmation();
    fault.corrupt(&mut s_b);
    k_a.verify_peer_confirmation(&s_b).map_err(drop)?;
    k_b.verify_peer_confirmation(k_a.confirmation())
        .map_err(drop)
}

/// GM/T 0105 known answer: the output after a reseed, so that instantiate, generate with
/// additional input and reseed are all covered.
pub(crate) fn gmt0105_sm3_drbg(fault: Fault) -> Result<(), ()> {
    use regula_sm::drbg::{SecurityLevel, Sm3HashDrbg};
    let mut drbg = Sm3HashDrbg::new(
        SecurityLevel::One,
        v::GMT0105_SM3_DRBG_ENTROPY,
        v::GMT0105_SM3_DRBG_NONCE,
        v::GMT0105_SM3_DRBG_PERSONALIZATION,
    )
    .map_err(drop)?;
    let mut first = vec![0u8; v::GMT0105_SM3_DRBG_OUTPUT_1.len()];
    drbg.generate(&mut first, v::GMT0105_SM3_DRBG_ADDITIONAL_1)
        .map_err(drop)?;
    expect(Fault::injected(false), first, v::GMT0105_SM3_DRBG_OUTPUT_1)?;
    drbg.reseed(
        v::GMT0105_SM3_DRBG_RESEED_ENTROPY,
        v::GMT0105_SM3_DRBG_RESEED_ADDITIONAL,
    )
    .map_err(drop)?;
    let mut second = vec![0u8; v::GMT0105_SM3_DRBG_OUTPUT_2.len()];
    drbg.generate(&mut second, v::GMT0105_SM3_DRBG_ADDITIONAL_2)
        .map_err(drop)?;
    expect(fault, second, v::GMT0105_SM3_DRBG_OUTPUT_2)
}

pub(crate) fn gmt0105_sm4_ctr_drbg(fault: Fault) -> Result<(), ()> {
    use regula_sm::drbg::{SecurityLevel, Sm4CtrDrbg};
    let mut drbg = Sm4CtrDrbg::new(
        SecurityLevel::One,
        v::GMT0105_SM4_CTR_DRBG_ENTROPY,
        v::GMT0105_SM4_CTR_DRBG_NONCE,
        v::GMT0105_SM4_CTR_DRBG_PERSONALIZATION,
    )
    .map_err(drop)?;
    let mut first = vec![0u8; v::GMT0105_SM4_CTR_DRBG_OUTPUT_1.len()];
    drbg.generate(&mut first, v::GMT0105_SM4_CTR_DRBG_ADDITIONAL_1)
        .map_err(drop)?;
    expect(
        Fault::injected(false),
        first,
        v::GMT0105_SM4_CTR_DRBG_OUTPUT_1,
    )?;
    drbg.reseed(
        v::GMT0105_SM4_CTR_DRBG_RESEED_ENTROPY,
        v::GMT0105_SM4_CTR_DRBG_RESEED_ADDITIONAL,
    )
    .map_err(drop)?;
    let mut second = vec![0u8; v::GMT0105_SM4_CTR_DRBG_OUTPUT_2.len()];
    drbg.generate(&mut second, v::GMT0105_SM4_CTR_DRBG_ADDITIONAL_2)
        .map_err(drop)?;
    expect(fault, second, v::GMT0105_SM4_CTR_DRBG_OUTPUT_2)
}
