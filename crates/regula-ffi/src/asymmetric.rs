//! Signatures, key agreement, ML-KEM and SM2 public-key encryption, with PEM or DER key import.

use std::ffi::{CStr, c_char, c_int};

use regula::key_encoding::KeyKind;
use regula::{AgreementKey, CiphertextFormat, DecryptionKey, KemPrivateKey, SigningKey};
use zeroize::Zeroize;

use crate::boundary::{
    Fail, Outcome, copy_out, decode_key, free_handle, guard, handle, input, out_param, output,
    put_handle, with_output,
};
use crate::module::{algorithm, regula_module, report};
use crate::{REGULA_SM2_CIPHERTEXT_ASN1, REGULA_SM2_CIPHERTEXT_C1C3C2, regula_indicator};

/// A private signing key (`"ecdsa-p256"`, `"ed25519"`, `"rsa-pss-sha256"`, `"sm2-sign"`, …).
/// Thread-safe: any number of threads may sign with it at once.
pub struct regula_signing_key {
    key: SigningKey,
    policy: &'static CStr,
}

/// A private key-agreement key (`"ecdh-p256"`, `"x25519"`, `"sm2-ecdh"`, …). Thread-safe.
pub struct regula_agreement_key {
    key: AgreementKey,
    policy: &'static CStr,
}

/// An ML-KEM decapsulation key (`"ml-kem-768"`, `"ml-kem-1024"`). Thread-safe.
pub struct regula_kem_key {
    key: KemPrivateKey,
    policy: &'static CStr,
}

/// An SM2 decryption key (`"sm2-encrypt"`, GB/T 32918.4). Thread-safe.
pub struct regula_decryption_key {
    key: DecryptionKey,
    policy: &'static CStr,
}

/// Writes a new handle and reports the indicator of the operation that made it.
///
/// # Safety
/// `out` and `indicator` as the entry points promise.
unsafe fn new_handle<T>(
    out: *mut *mut T,
    make: impl FnOnce() -> Outcome<(T, regula::Indicator, &'static CStr)>,
    indicator: *mut regula_indicator,
) -> Outcome {
    // SAFETY: the caller's promise.
    let out = unsafe { out_param(out, "out") }?;
    *out = std::ptr::null_mut();
    let (value, served, policy) = make()?;
    put_handle(out, value);
    // SAFETY: the caller's promise.
    unsafe { report(indicator, served, policy) };
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Signatures

/// Generates a signing key and runs its pairwise consistency test. `rsa_bits` is for RSA only
/// (0: 3072); 0 for every other algorithm.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_signing_key_generate(
    module: *const regula_module,
    algorithm_name: *const c_char,
    rsa_bits: u32,
    out: *mut *mut regula_signing_key,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            new_handle(
                out,
                || {
                    let module = handle(module, "module")?;
                    let algorithm = algorithm(algorithm_name)?;
                    let bits = (rsa_bits != 0).then_some(rsa_bits);
                    let (key, served) = module
                        .module
                        .generate_signing_key(algorithm, bits)?
                        .into_parts();
                    let policy = module.policy;
                    Ok((regula_signing_key { key, policy }, served, policy))
                },
                indicator,
            )
        }
    })
}

/// Imports a PKCS#8 private key, PEM (`-----BEGIN PRIVATE KEY-----`) or DER. SM2 keys are
/// `id-ecPublicKey` on curveSM2, as `openssl genpkey -algorithm SM2` writes them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_signing_key_import(
    module: *const regula_module,
    algorithm_name: *const c_char,
    pkcs8: *const u8,
    pkcs8_len: usize,
    out: *mut *mut regula_signing_key,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            new_handle(
                out,
                || {
                    let module = handle(module, "module")?;
                    let algorithm = algorithm(algorithm_name)?;
                    let der = decode_key(input(pkcs8, pkcs8_len, "key")?, KeyKind::Private)?;
                    let (key, served) = module
                        .module
                        .signing_key_from_pkcs8(algorithm, &der)?
                        .into_parts();
                    let policy = module.policy;
                    Ok((regula_signing_key { key, policy }, served, policy))
                },
                indicator,
            )
        }
    })
}

/// Frees (and wipes) a signing key. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_signing_key_free(key: *mut regula_signing_key) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(key) }
}

/// The public key as DER SubjectPublicKeyInfo.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_signing_key_public_der(
    key: *const regula_signing_key,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let key = handle(key, "signing key")?;
                copy_out(buffer, &key.key.public_key_der()?, "public key")
            })
        }
    })
}

/// Signs `msg` (hashed with the scheme's digest; SM2 with the default user ID
/// `1234567812345678`). ECDSA and SM2 signatures are DER; `REGULA_MAX_SIGNATURE_LEN` bytes
/// always suffice.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_sign(
    key: *const regula_signing_key,
    msg: *const u8,
    msg_len: usize,
    sig: *mut u8,
    sig_cap: usize,
    sig_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(sig, sig_cap, sig_len, |buffer| {
                let key = handle(key, "signing key")?;
                let served = key.key.sign(input(msg, msg_len, "message")?)?;
                let len = copy_out(buffer, &served, "signature")?;
                report(indicator, served.indicator(), key.policy);
                Ok(len)
            })
        }
    })
}

/// Signs `msg` as the SM2 signer `id` (GB/T 32918.2 Z_A); SM2 keys only.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_sign_with_id(
    key: *const regula_signing_key,
    id: *const u8,
    id_len: usize,
    msg: *const u8,
    msg_len: usize,
    sig: *mut u8,
    sig_cap: usize,
    sig_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(sig, sig_cap, sig_len, |buffer| {
                let key = handle(key, "signing key")?;
                let served = key
                    .key
                    .sign_with_id(input(msg, msg_len, "message")?, input(id, id_len, "id")?)?;
                let len = copy_out(buffer, &served, "signature")?;
                report(indicator, served.indicator(), key.policy);
                Ok(len)
            })
        }
    })
}

/// Verifies `sig` over `msg` with a public key given as SubjectPublicKeyInfo, PEM
/// (`-----BEGIN PUBLIC KEY-----`) or DER (ECDSA, Ed25519 and SM2 also take the raw key):
/// `REGULA_OK` or `REGULA_ERR_CRYPTO`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_verify(
    module: *const regula_module,
    algorithm_name: *const c_char,
    public_key: *const u8,
    public_key_len: usize,
    msg: *const u8,
    msg_len: usize,
    sig: *const u8,
    sig_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let module = handle(module, "module")?;
            let algorithm = algorithm(algorithm_name)?;
            let public_key = decode_key(
                input(public_key, public_key_len, "public key")?,
                KeyKind::Public,
            )?;
            let served = module.module.verify(
                algorithm,
                &public_key,
                input(msg, msg_len, "message")?,
                input(sig, sig_len, "signature")?,
            )?;
            report(indicator, served.indicator(), module.policy);
        }
        Ok(())
    })
}

/// `regula_verify` for an SM2 signature made by the signer `id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_verify_with_id(
    module: *const regula_module,
    algorithm_name: *const c_char,
    public_key: *const u8,
    public_key_len: usize,
    id: *const u8,
    id_len: usize,
    msg: *const u8,
    msg_len: usize,
    sig: *const u8,
    sig_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let module = handle(module, "module")?;
            let algorithm = algorithm(algorithm_name)?;
            let public_key = decode_key(
                input(public_key, public_key_len, "public key")?,
                KeyKind::Public,
            )?;
            let served = module.module.verify_with_id(
                algorithm,
                &public_key,
                input(msg, msg_len, "message")?,
                input(sig, sig_len, "signature")?,
                input(id, id_len, "id")?,
            )?;
            report(indicator, served.indicator(), module.policy);
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Key agreement

/// Generates a key-agreement key and runs its pairwise consistency test.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_agreement_key_generate(
    module: *const regula_module,
    algorithm_name: *const c_char,
    out: *mut *mut regula_agreement_key,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            new_handle(
                out,
                || {
                    let module = handle(module, "module")?;
                    let algorithm = algorithm(algorithm_name)?;
                    let (key, served) = module
                        .module
                        .generate_agreement_key(algorithm)?
                        .into_parts();
                    let policy = module.policy;
                    Ok((regula_agreement_key { key, policy }, served, policy))
                },
                indicator,
            )
        }
    })
}

/// Imports a private key: a big-endian scalar of the group's size (ECDH, curveSM2) or 32 bytes
/// (X25519).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_agreement_key_import(
    module: *const regula_module,
    algorithm_name: *const c_char,
    private_key: *const u8,
    private_key_len: usize,
    out: *mut *mut regula_agreement_key,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            new_handle(
                out,
                || {
                    let module = handle(module, "module")?;
                    let algorithm = algorithm(algorithm_name)?;
                    let (key, served) = module
                        .module
                        .agreement_key_from_private_bytes(
                            algorithm,
                            input(private_key, private_key_len, "private key")?,
                        )?
                        .into_parts();
                    let policy = module.policy;
                    Ok((regula_agreement_key { key, policy }, served, policy))
                },
                indicator,
            )
        }
    })
}

/// Frees (and wipes) a key-agreement key. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_agreement_key_free(key: *mut regula_agreement_key) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(key) }
}

/// The public key: an uncompressed point (ECDH, curveSM2) or 32 bytes (X25519).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_agreement_public_key(
    key: *const regula_agreement_key,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let key = handle(key, "agreement key")?;
                copy_out(buffer, &key.key.public_key()?, "public key")
            })
        }
    })
}

/// The shared secret with a peer's public key (raw as `regula_agreement_public_key` gives it,
/// or SubjectPublicKeyInfo as PEM or DER).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_agree(
    key: *const regula_agreement_key,
    peer_public_key: *const u8,
    peer_public_key_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let key = handle(key, "agreement key")?;
                let peer = decode_key(
                    input(peer_public_key, peer_public_key_len, "peer public key")?,
                    KeyKind::Public,
                )?;
                let served = key.key.agree(&peer)?;
                let len = copy_out(buffer, &served, "shared secret")?;
                report(indicator, served.indicator(), key.policy);
                Ok(len)
            })
        }
    })
}

// ---------------------------------------------------------------------------------------------
// ML-KEM

/// Generates an ML-KEM decapsulation key and runs its pairwise consistency test.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_kem_key_generate(
    module: *const regula_module,
    algorithm_name: *const c_char,
    out: *mut *mut regula_kem_key,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            new_handle(
                out,
                || {
                    let module = handle(module, "module")?;
                    let algorithm = algorithm(algorithm_name)?;
                    let (key, served) = module.module.generate_kem_key(algorithm)?.into_parts();
                    let policy = module.policy;
                    Ok((regula_kem_key { key, policy }, served, policy))
                },
                indicator,
            )
        }
    })
}

/// Frees (and wipes) an ML-KEM key. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_kem_key_free(key: *mut regula_kem_key) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(key) }
}

/// The encoded encapsulation (public) key to send to peers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_kem_encapsulation_key(
    key: *const regula_kem_key,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let key = handle(key, "KEM key")?;
                copy_out(buffer, &key.key.encapsulation_key()?, "encapsulation key")
            })
        }
    })
}

/// Encapsulates a fresh shared secret to `encapsulation_key`: `ciphertext` goes to the peer,
/// `shared_secret` (32 bytes) stays. On failure both are wiped.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_kem_encapsulate(
    module: *const regula_module,
    algorithm_name: *const c_char,
    encapsulation_key: *const u8,
    encapsulation_key_len: usize,
    ciphertext: *mut u8,
    ciphertext_cap: usize,
    ciphertext_len: *mut usize,
    shared_secret: *mut u8,
    shared_secret_cap: usize,
    shared_secret_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let module = handle(module, "module")?;
            let algorithm = algorithm(algorithm_name)?;
            let key = input(
                encapsulation_key,
                encapsulation_key_len,
                "encapsulation key",
            )?;
            let ciphertext_len = out_param(ciphertext_len, "ciphertext_len")?;
            *ciphertext_len = 0;
            let shared_secret_len = out_param(shared_secret_len, "shared_secret_len")?;
            *shared_secret_len = 0;
            let ciphertext = output(ciphertext, ciphertext_cap, "ciphertext")?;
            let shared_secret = output(shared_secret, shared_secret_cap, "shared secret")?;
            let result = (|| {
                let (encapsulated, served) =
                    module.module.encapsulate(algorithm, key)?.into_parts();
                let secret: &[u8] = &encapsulated.shared_secret;
                if ciphertext.len() < encapsulated.ciphertext.len()
                    || shared_secret.len() < secret.len()
                {
                    *ciphertext_len = encapsulated.ciphertext.len();
                    *shared_secret_len = secret.len();
                    return Err(Fail::too_small(
                        "encapsulation",
                        encapsulated.ciphertext.len(),
                        ciphertext.len(),
                    ));
                }
                *ciphertext_len = copy_out(ciphertext, &encapsulated.ciphertext, "ciphertext")?;
                *shared_secret_len = copy_out(shared_secret, secret, "shared secret")?;
                report(indicator, served, module.policy);
                Ok(())
            })();
            if let Err(fail) = &result {
                ciphertext.zeroize();
                shared_secret.zeroize();
                if fail.needed.is_none() {
                    *ciphertext_len = 0;
                    *shared_secret_len = 0;
                }
            }
            result
        }
    })
}

/// Decapsulates `ciphertext` into `shared_secret` (32 bytes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_kem_decapsulate(
    key: *const regula_kem_key,
    ciphertext: *const u8,
    ciphertext_len: usize,
    shared_secret: *mut u8,
    shared_secret_cap: usize,
    shared_secret_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(
                shared_secret,
                shared_secret_cap,
                shared_secret_len,
                |buffer| {
                    let key = handle(key, "KEM key")?;
                    let served =
                        key.key
                            .decapsulate(input(ciphertext, ciphertext_len, "ciphertext")?)?;
                    let len = copy_out(buffer, &served, "shared secret")?;
                    report(indicator, served.indicator(), key.policy);
                    Ok(len)
                },
            )
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Public-key encryption (SM2, GB/T 32918.4)

/// The ciphertext layout a `format` argument names.
fn ciphertext_format(format: c_int) -> Outcome<CiphertextFormat> {
    match format {
        REGULA_SM2_CIPHERTEXT_ASN1 => Ok(CiphertextFormat::Asn1),
        REGULA_SM2_CIPHERTEXT_C1C3C2 => Ok(CiphertextFormat::C1C3C2),
        other => Err(Fail::invalid(format!(
            "unknown ciphertext format {other} (REGULA_SM2_CIPHERTEXT_ASN1 or _C1C3C2)"
        ))),
    }
}

/// Generates an SM2 decryption key (`"sm2-encrypt"`) and runs its pairwise consistency test.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_decryption_key_generate(
    module: *const regula_module,
    algorithm_name: *const c_char,
    out: *mut *mut regula_decryption_key,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            new_handle(
                out,
                || {
                    let module = handle(module, "module")?;
                    let algorithm = algorithm(algorithm_name)?;
                    let (key, served) = module
                        .module
                        .generate_decryption_key(algorithm)?
                        .into_parts();
                    let policy = module.policy;
                    Ok((regula_decryption_key { key, policy }, served, policy))
                },
                indicator,
            )
        }
    })
}

/// Imports a PKCS#8 SM2 private key, PEM (`-----BEGIN PRIVATE KEY-----`) or DER, as
/// `openssl genpkey -algorithm SM2` writes it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_decryption_key_import(
    module: *const regula_module,
    algorithm_name: *const c_char,
    pkcs8: *const u8,
    pkcs8_len: usize,
    out: *mut *mut regula_decryption_key,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            new_handle(
                out,
                || {
                    let module = handle(module, "module")?;
                    let algorithm = algorithm(algorithm_name)?;
                    let der = decode_key(input(pkcs8, pkcs8_len, "key")?, KeyKind::Private)?;
                    let (key, served) = module
                        .module
                        .decryption_key_from_pkcs8(algorithm, &der)?
                        .into_parts();
                    let policy = module.policy;
                    Ok((regula_decryption_key { key, policy }, served, policy))
                },
                indicator,
            )
        }
    })
}

/// Frees (and wipes) a decryption key. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_decryption_key_free(key: *mut regula_decryption_key) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(key) }
}

/// The public key as DER SubjectPublicKeyInfo.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_decryption_key_public_der(
    key: *const regula_decryption_key,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let key = handle(key, "decryption key")?;
                copy_out(buffer, &key.key.public_key_der()?, "public key")
            })
        }
    })
}

/// Decrypts an SM2 ciphertext laid out as `format` (`REGULA_SM2_CIPHERTEXT_ASN1` or
/// `REGULA_SM2_CIPHERTEXT_C1C3C2`). The plaintext is shorter than the ciphertext (by 97 bytes
/// for C1C3C2, more for ASN.1). A malformed or altered ciphertext is `REGULA_ERR_CRYPTO`, and
/// nothing is released.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_decrypt(
    key: *const regula_decryption_key,
    format: c_int,
    ciphertext: *const u8,
    ciphertext_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let key = handle(key, "decryption key")?;
                let format = ciphertext_format(format)?;
                let served = key
                    .key
                    .decrypt(input(ciphertext, ciphertext_len, "ciphertext")?, format)?;
                let len = copy_out(buffer, &served, "plaintext")?;
                report(indicator, served.indicator(), key.policy);
                Ok(len)
            })
        }
    })
}

/// Encrypts `plaintext` (not empty) to an SM2 public key given as SubjectPublicKeyInfo, PEM
/// (`-----BEGIN PUBLIC KEY-----`) or DER, or as an uncompressed point. The ciphertext is laid
/// out as `format`: `plaintext_len + 97` bytes for C1C3C2; for ASN.1 the DER integers vary in
/// length from one encryption to the next, so a size query gives only that ciphertext's size,
/// while `plaintext_len + 116` bytes always suffice (plaintexts under 4 GiB).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_encrypt_to_public_key(
    module: *const regula_module,
    algorithm_name: *const c_char,
    public_key: *const u8,
    public_key_len: usize,
    format: c_int,
    plaintext: *const u8,
    plaintext_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let module = handle(module, "module")?;
                let algorithm = algorithm(algorithm_name)?;
                let format = ciphertext_format(format)?;
                let public_key = decode_key(
                    input(public_key, public_key_len, "public key")?,
                    KeyKind::Public,
                )?;
                let served = module.module.encrypt_to_public_key(
                    algorithm,
                    &public_key,
                    input(plaintext, plaintext_len, "plaintext")?,
                    format,
                )?;
                let len = copy_out(buffer, &served, "ciphertext")?;
                report(indicator, served.indicator(), module.policy);
                Ok(len)
            })
        }
    })
}
