//! Digests, MACs, AEADs, block-cipher modes, KDFs and DRBG output.

use std::ffi::{CStr, c_char, c_int};

use regula::{AeadKey, CipherKey, DigestContext, MacKey, Served};
use zeroize::{Zeroize, Zeroizing};

use crate::boundary::{
    Fail, Outcome, copy_out, free_handle, gather, guard, handle, handle_mut, input, iov_total,
    iovecs, out_param, output, put_handle, scatter, wipe_iovecs, with_output,
};
use crate::module::{algorithm, regula_module, report};
use crate::{REGULA_AEAD_NONCE_LEN, REGULA_AEAD_TAG_LEN, regula_indicator, regula_iovec};

/// An incremental digest. Not thread-safe: one thread at a time per context.
pub struct regula_digest_ctx {
    /// `None` once finished.
    context: Option<DigestContext>,
    policy: &'static CStr,
}

/// A MAC key. Thread-safe: any number of threads may sign and verify with it at once.
pub struct regula_mac_key {
    key: MacKey,
    policy: &'static CStr,
}

/// An AEAD key. Thread-safe: any number of threads may seal and open with it at once.
pub struct regula_aead_key {
    pub(crate) key: AeadKey,
    policy: &'static CStr,
}

/// A block-cipher key (CBC, CTR, ECB, XTS, CBC-CS3). Thread-safe like an AEAD key.
pub struct regula_cipher_key {
    key: CipherKey,
    policy: &'static CStr,
}

// ---------------------------------------------------------------------------------------------
// Digests

/// Hashes `data` in one call (`"sha256"`, `"sha3-512"`, `"sm3"`, …) into `out`
/// (`REGULA_MAX_DIGEST_LEN` bytes always suffice).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_digest(
    module: *const regula_module,
    algorithm_name: *const c_char,
    data: *const u8,
    data_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: `regula_digest`'s caller promises (regula.h) that `module` is NULL or a live
        // module handle, `algorithm_name` NULL or NUL-terminated, `data` NULL or `data_len`
        // readable bytes, `out` NULL or `out_cap` writable bytes, and `out_len` and `indicator`
        // NULL or writable: what `with_output`, `handle`, `algorithm`, `input` and `report`
        // require; each checks NULL and impossible lengths itself.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let module = handle(module, "module")?;
                let algorithm = algorithm(algorithm_name)?;
                let data = input(data, data_len, "data")?;
                let served = module.module.digest(algorithm, data)?;
                let len = copy_out(buffer, &served, "digest")?;
                report(indicator, served.indicator(), module.policy);
                Ok(len)
            })
        }
    })
}

/// Starts an incremental digest; free it with `regula_digest_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_digest_new(
    module: *const regula_module,
    algorithm_name: *const c_char,
    out: *mut *mut regula_digest_ctx,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let out = out_param(out, "out")?;
            *out = std::ptr::null_mut();
            let module = handle(module, "module")?;
            let context = module.module.digest_context(algorithm(algorithm_name)?)?;
            put_handle(
                out,
                regula_digest_ctx {
                    context: Some(context),
                    policy: module.policy,
                },
            );
        }
        Ok(())
    })
}

/// Adds `data` to the digest.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_digest_update(
    ctx: *mut regula_digest_ctx,
    data: *const u8,
    data_len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let ctx = handle_mut(ctx, "digest context")?;
            let data = input(data, data_len, "data")?;
            active(ctx)?.update(data);
        }
        Ok(())
    })
}

fn active(ctx: &mut regula_digest_ctx) -> Outcome<&mut DigestContext> {
    ctx.context
        .as_mut()
        .ok_or_else(|| Fail::invalid("the digest context is already finished"))
}

/// Copies the digest computed so far into a new context (e.g. to read the SMB 3.1.1
/// preauthentication hash and keep hashing); free both.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_digest_copy(
    ctx: *const regula_digest_ctx,
    out: *mut *mut regula_digest_ctx,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let out = out_param(out, "out")?;
            *out = std::ptr::null_mut();
            let ctx = handle(ctx, "digest context")?;
            let context = ctx
                .context
                .as_ref()
                .ok_or_else(|| Fail::invalid("the digest context is already finished"))?
                .try_clone()?;
            put_handle(
                out,
                regula_digest_ctx {
                    context: Some(context),
                    policy: ctx.policy,
                },
            );
        }
        Ok(())
    })
}

/// Finishes the digest into `out`. The context is finished whatever the outcome (size `out`
/// with `REGULA_MAX_DIGEST_LEN`); it must still be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_digest_final(
    ctx: *mut regula_digest_ctx,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let ctx = handle_mut(ctx, "digest context")?;
                let context = ctx
                    .context
                    .take()
                    .ok_or_else(|| Fail::invalid("the digest context is already finished"))?;
                let served = context.finish()?;
                let len = copy_out(buffer, &served, "digest")?;
                report(indicator, served.indicator(), ctx.policy);
                Ok(len)
            })
        }
    })
}

/// Frees a digest context. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_digest_free(ctx: *mut regula_digest_ctx) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(ctx) }
}

// ---------------------------------------------------------------------------------------------
// MACs

/// Binds a MAC key (`"hmac-sha256"`, `"aes-128-cmac"`, `"aes-128-gmac"`, `"hmac-sm3"`,
/// `"sm4-cmac"`, `"hmac-md5"`, …). The library keeps its own copy, wiped by
/// `regula_mac_key_free`. GMAC takes a nonce: use `regula_mac_signv_with_nonce`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_mac_key_new(
    module: *const regula_module,
    algorithm_name: *const c_char,
    key: *const u8,
    key_len: usize,
    out: *mut *mut regula_mac_key,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let out = out_param(out, "out")?;
            *out = std::ptr::null_mut();
            let module = handle(module, "module")?;
            let algorithm = algorithm(algorithm_name)?;
            let key = module
                .module
                .mac_key(algorithm, input(key, key_len, "key")?)?;
            put_handle(
                out,
                regula_mac_key {
                    key,
                    policy: module.policy,
                },
            );
        }
        Ok(())
    })
}

/// Frees (and wipes) a MAC key. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_mac_key_free(key: *mut regula_mac_key) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(key) }
}

/// Computes the tag of `data` into `tag` (`REGULA_MAX_MAC_LEN` bytes always suffice).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_mac_sign(
    key: *const regula_mac_key,
    data: *const u8,
    data_len: usize,
    tag: *mut u8,
    tag_cap: usize,
    tag_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    let fragment = regula_iovec {
        base: data.cast_mut(),
        len: data_len,
    };
    // SAFETY: one fragment describing the caller's buffer.
    unsafe { regula_mac_signv(key, &fragment, 1, tag, tag_cap, tag_len, indicator) }
}

/// `regula_mac_sign` over the concatenation of `iovcnt` fragments (e.g. an SMB2 header and
/// its payload), without copying them together.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_mac_signv(
    key: *const regula_mac_key,
    iov: *const regula_iovec,
    iovcnt: usize,
    tag: *mut u8,
    tag_cap: usize,
    tag_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(tag, tag_cap, tag_len, |buffer| {
                let key = handle(key, "MAC key")?;
                let fragments = iovecs(iov, iovcnt, "iov")?;
                let mut context = key.key.context();
                for fragment in fragments {
                    context.update(input(fragment.base, fragment.len, "iov")?)?;
                }
                let served = context.sign()?;
                let len = copy_out(buffer, &served, "MAC tag")?;
                report(indicator, served.indicator(), key.policy);
                Ok(len)
            })
        }
    })
}

/// `regula_mac_signv` for MACs that take a nonce: AES-GMAC (`"aes-128-gmac"`,
/// `"aes-256-gmac"`; SMB 3.1.1 signing). The nonce must never repeat under one key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_mac_signv_with_nonce(
    key: *const regula_mac_key,
    nonce: *const u8,
    nonce_len: usize,
    iov: *const regula_iovec,
    iovcnt: usize,
    tag: *mut u8,
    tag_cap: usize,
    tag_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(tag, tag_cap, tag_len, |buffer| {
                let key = handle(key, "MAC key")?;
                let nonce = input(nonce, nonce_len, "nonce")?;
                let fragments = iovecs(iov, iovcnt, "iov")?;
                let served = if let [single] = fragments {
                    // One piece: the core MACs it where it lies, without a context.
                    key.key
                        .sign_with_nonce(nonce, input(single.base, single.len, "iov")?)?
                } else {
                    let mut context = key.key.context_with_nonce(nonce)?;
                    for fragment in fragments {
                        context.update(input(fragment.base, fragment.len, "iov")?)?;
                    }
                    context.sign()?
                };
                let len = copy_out(buffer, &served, "MAC tag")?;
                report(indicator, served.indicator(), key.policy);
                Ok(len)
            })
        }
    })
}

/// `regula_mac_verifyv` for MACs that take a nonce (AES-GMAC).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_mac_verifyv_with_nonce(
    key: *const regula_mac_key,
    nonce: *const u8,
    nonce_len: usize,
    iov: *const regula_iovec,
    iovcnt: usize,
    tag: *const u8,
    tag_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let key = handle(key, "MAC key")?;
            let nonce = input(nonce, nonce_len, "nonce")?;
            let fragments = iovecs(iov, iovcnt, "iov")?;
            let expected = input(tag, tag_len, "tag")?;
            let mut context = key.key.context_with_nonce(nonce)?;
            for fragment in fragments {
                context.update(input(fragment.base, fragment.len, "iov")?)?;
            }
            let served = context.verify(expected)?;
            report(indicator, served.indicator(), key.policy);
        }
        Ok(())
    })
}

/// Checks `tag` over `data` in constant time: `REGULA_OK` or `REGULA_ERR_CRYPTO`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_mac_verify(
    key: *const regula_mac_key,
    data: *const u8,
    data_len: usize,
    tag: *const u8,
    tag_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    let fragment = regula_iovec {
        base: data.cast_mut(),
        len: data_len,
    };
    // SAFETY: one fragment describing the caller's buffer.
    unsafe { regula_mac_verifyv(key, &fragment, 1, tag, tag_len, indicator) }
}

/// `regula_mac_verify` over the concatenation of `iovcnt` fragments.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_mac_verifyv(
    key: *const regula_mac_key,
    iov: *const regula_iovec,
    iovcnt: usize,
    tag: *const u8,
    tag_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let key = handle(key, "MAC key")?;
            let fragments = iovecs(iov, iovcnt, "iov")?;
            let expected = input(tag, tag_len, "tag")?;
            let mut context = key.key.context();
            for fragment in fragments {
                context.update(input(fragment.base, fragment.len, "iov")?)?;
            }
            let served = context.verify(expected)?;
            report(indicator, served.indicator(), key.policy);
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// AEAD

/// Binds an AEAD key with a 16-byte tag (`"aes-128-gcm"`, `"aes-256-gcm"`, `"aes-128-ccm"`,
/// `"aes-256-ccm"`, `"chacha20-poly1305"`, `"sm4-gcm"`, `"sm4-ccm"`). The library keeps its own
/// copy, wiped by `regula_aead_key_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_key_new(
    module: *const regula_module,
    algorithm_name: *const c_char,
    key: *const u8,
    key_len: usize,
    out: *mut *mut regula_aead_key,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let out = out_param(out, "out")?;
            *out = std::ptr::null_mut();
            let module = handle(module, "module")?;
            let algorithm = algorithm(algorithm_name)?;
            let key = module
                .module
                .aead_key(algorithm, input(key, key_len, "key")?)?;
            put_handle(
                out,
                regula_aead_key {
                    key,
                    policy: module.policy,
                },
            );
        }
        Ok(())
    })
}

/// Like `regula_aead_key_new`, with a shorter tag: AES-CCM (`"aes-128-ccm"`, `"aes-256-ccm"`)
/// takes 4 to 16 bytes, even (SP 800-38C; SMB 3 and RFC 4309 use 16, 12 or 8); every other AEAD
/// only 16.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_key_new_with_tag_len(
    module: *const regula_module,
    algorithm_name: *const c_char,
    key: *const u8,
    key_len: usize,
    tag_len: usize,
    out: *mut *mut regula_aead_key,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let out = out_param(out, "out")?;
            *out = std::ptr::null_mut();
            let module = handle(module, "module")?;
            let algorithm = algorithm(algorithm_name)?;
            let key = module.module.aead_key_with_tag_len(
                algorithm,
                input(key, key_len, "key")?,
                tag_len,
            )?;
            put_handle(
                out,
                regula_aead_key {
                    key,
                    policy: module.policy,
                },
            );
        }
        Ok(())
    })
}

/// The key's tag length in bytes (16 unless made shorter for AES-CCM); 0 for NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_tag_len(key: *const regula_aead_key) -> usize {
    // SAFETY: the caller's promise.
    unsafe { handle(key, "AEAD key") }.map_or(0, |key| key.key.tag_len())
}

/// Frees (and wipes) an AEAD key. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_key_free(key: *mut regula_aead_key) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(key) }
}

/// Where the nonce comes from in a seal.
enum NonceSource<'a> {
    Caller(&'a [u8]),
    /// The module generates it and writes it here (the approved shape for AES-GCM under FIPS
    /// 140-3, IG C.H).
    Module(&'a mut [u8]),
}

/// Seals `in_out` in place and returns the tag.
#[inline(always)]
fn seal_in_place(
    key: &regula_aead_key,
    nonce: NonceSource<'_>,
    aad: &[u8],
    in_out: &mut [u8],
    tag: &mut [u8],
    indicator: *mut regula_indicator,
) -> Outcome {
    let served_indicator = match nonce {
        NonceSource::Caller(nonce) => key
            .key
            .seal_detached_with_nonce(nonce, aad, in_out, tag)?
            .indicator(),
        NonceSource::Module(nonce_out) => {
            if nonce_out.len() != REGULA_AEAD_NONCE_LEN {
                return Err(Fail::invalid(format!(
                    "the nonce buffer must be {REGULA_AEAD_NONCE_LEN} bytes, got {}",
                    nonce_out.len()
                )));
            }
            let (nonce, indicator) = key.key.seal_detached(aad, in_out, tag)?.into_parts();
            nonce_out.copy_from_slice(&nonce);
            indicator
        }
    };
    // SAFETY: the caller's promise on `indicator`.
    unsafe { report(indicator, served_indicator, key.policy) };
    Ok(())
}

/// The contiguous seal: `out` receives ciphertext ‖ tag (`in_len + regula_aead_tag_len(key)`
/// bytes). `in` and `out` may be the same buffer (in place) or overlap.
///
/// # Safety
/// The caller's promise on each argument.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn seal_contiguous(
    key: *const regula_aead_key,
    nonce: NonceSource<'_>,
    aad: *const u8,
    aad_len: usize,
    plaintext: *const u8,
    plaintext_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> Outcome {
    // One flat sequence (no closures), since this is the hot path of small messages.
    // SAFETY: the caller's promise on each argument.
    unsafe {
        let out_len = out_param(out_len, "out_len")?;
        *out_len = 0;
        let key = handle(key, "AEAD key")?;
        let aad = input(aad, aad_len, "aad")?;
        // Checked here; not kept as a slice, since it may overlap `out`.
        input(plaintext, plaintext_len, "plaintext")?;
        output(out, out_cap, "output buffer")?;
        let tag_len = key.key.tag_len();
        let needed = plaintext_len
            .checked_add(tag_len)
            .ok_or_else(|| Fail::invalid("impossible plaintext length"))?;
        let result = if out_cap < needed {
            Err(Fail::too_small("sealed message", needed, out_cap))
        } else if let (NonceSource::Caller(nonce), false) =
            (&nonce, overlap(plaintext, plaintext_len, out, needed))
        {
            // Apart: sealed where the plaintext lies, with no copy of the whole message first.
            let plaintext = input(plaintext, plaintext_len, "plaintext")?;
            let sealed = output(out, needed, "output buffer")?;
            let served = key
                .key
                .seal_with_nonce_into(nonce, aad, plaintext, sealed)?;
            report(indicator, served.indicator(), key.policy);
            *out_len = needed;
            Ok(())
        } else {
            if plaintext_len > 0 && plaintext != out.cast_const() {
                // memmove: the two buffers may overlap.
                std::ptr::copy(plaintext, out, plaintext_len);
            }
            let (data, tag) =
                std::slice::from_raw_parts_mut(out, needed).split_at_mut(plaintext_len);
            seal_in_place(key, nonce, aad, data, tag, indicator).map(|()| *out_len = needed)
        };
        if let Err(fail) = &result {
            wipe_output(out, out_cap);
            if let Some(needed) = fail.needed {
                *out_len = needed;
            }
        }
        result
    }
}

/// Whether `a_len` bytes at `a` and `b_len` bytes at `b` share a byte (empty ranges share none).
fn overlap(a: *const u8, a_len: usize, b: *mut u8, b_len: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a_len > 0 && b_len > 0 && a < b.saturating_add(b_len) && b < a.saturating_add(a_len)
}

/// Wipes a checked output buffer after a failure.
///
/// # Safety
/// `out` must point to `cap` writable bytes (or be NULL with `cap` 0).
#[cold]
unsafe fn wipe_output(out: *mut u8, cap: usize) {
    // SAFETY: the caller's promise.
    if let Ok(buffer) = unsafe { output(out, cap, "output buffer") } {
        buffer.zeroize();
    }
}

/// Seals (encrypts and authenticates) `in` with a nonce the caller chose: `out` receives
/// ciphertext ‖ tag, `in_len + regula_aead_tag_len(key)` bytes (16 but for AES-CCM keys made
/// with a shorter tag). `in` and `out` may be the same
/// buffer. The caller must never repeat a nonce under one key; FIPS 140-3 does not approve
/// caller-chosen AES-GCM nonces (use `regula_aead_seal_gen_nonce`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_seal(
    key: *const regula_aead_key,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let nonce = input(nonce, nonce_len, "nonce")?;
            seal_contiguous(
                key,
                NonceSource::Caller(nonce),
                aad,
                aad_len,
                r#in,
                in_len,
                out,
                out_cap,
                out_len,
                indicator,
            )
        }
    })
}

/// Like `regula_aead_seal`, with a nonce the module generates inside its boundary and writes
/// to `nonce_out` (`REGULA_AEAD_NONCE_LEN` bytes). This is the approved way to use AES-GCM
/// under FIPS 140-3.
/// `nonce_out` must not overlap `aad`, `in` or `out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_seal_gen_nonce(
    key: *const regula_aead_key,
    nonce_out: *mut u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let nonce = output(nonce_out, nonce_len, "nonce")?;
            let result = seal_contiguous(
                key,
                NonceSource::Module(&mut *nonce),
                aad,
                aad_len,
                r#in,
                in_len,
                out,
                out_cap,
                out_len,
                indicator,
            );
            if result.is_err() {
                nonce.zeroize();
            }
            result
        }
    })
}

/// Opens (checks and decrypts) `in` = ciphertext ‖ tag: `out` receives `in_len -
/// regula_aead_tag_len(key)` bytes of plaintext. `in` and `out` may be the same buffer. A bad tag is
/// `REGULA_ERR_CRYPTO`, and then `out` is wiped: no unauthenticated plaintext is released.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_open(
    key: *const regula_aead_key,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let key = handle(key, "AEAD key")?;
            let nonce = input(nonce, nonce_len, "nonce")?;
            let aad = input(aad, aad_len, "aad")?;
            let ciphertext = r#in;
            input(ciphertext, in_len, "ciphertext")?;
            with_output(out, out_cap, out_len, |_| {
                let tag_len = key.key.tag_len();
                let Some(plaintext_len) = in_len.checked_sub(tag_len) else {
                    return Err(Fail::invalid(format!(
                        "a sealed message of {in_len} bytes is shorter than the \
                         {tag_len}-byte tag"
                    )));
                };
                if out_cap < plaintext_len {
                    return Err(Fail::too_small("plaintext", plaintext_len, out_cap));
                }
                if !overlap(ciphertext, in_len, out, plaintext_len) {
                    // Apart: opened where the ciphertext lies, with no copy of it first.
                    let sealed = input(ciphertext, in_len, "ciphertext")?;
                    let buffer = output(out, plaintext_len, "output buffer")?;
                    let served = key.key.open_into(nonce, aad, sealed, buffer)?;
                    report(indicator, served.indicator(), key.policy);
                    return Ok(plaintext_len);
                }
                // The tag first: moving the ciphertext may overwrite it.
                let mut tag_copy = [0u8; REGULA_AEAD_TAG_LEN];
                let tag = tag_copy
                    .get_mut(..tag_len)
                    .ok_or_else(|| Fail::invalid("tag longer than any AEAD's"))?;
                std::ptr::copy(ciphertext.add(plaintext_len), tag.as_mut_ptr(), tag.len());
                if plaintext_len > 0 && ciphertext != out.cast_const() {
                    std::ptr::copy(ciphertext, out, plaintext_len);
                }
                let buffer = output(out, plaintext_len, "output buffer")?;
                let served = key.key.open_detached(nonce, aad, buffer, tag)?;
                report(indicator, served.indicator(), key.policy);
                Ok(plaintext_len)
            })
        }
    })
}

/// What stays in the gathered copy after a vectored call succeeds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leftover {
    /// Ciphertext: nothing secret, left in place.
    Public,
    /// Plaintext: wiped before returning.
    Secret,
}

/// A per-thread buffer for gathering fragments, so that a vectored call allocates nothing once
/// warm. It never keeps plaintext between calls (see [`over_fragments`]); buffers that grew
/// beyond this size are freed after use.
const SCRATCH_KEEP: usize = 1 << 20;

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `body` over the iovecs' bytes as one slice: the single fragment itself, or a gathered
/// copy that is scattered back on success. On failure the fragments and the copy are wiped; on
/// success the copy is wiped too when it holds plaintext.
fn over_fragments<T>(
    fragments: &[regula_iovec],
    leftover: Leftover,
    body: impl FnOnce(&mut [u8]) -> Outcome<T>,
) -> Outcome<T> {
    let result = if let [single] = fragments {
        // SAFETY: checked by `iovecs`: `base` points to `len` writable bytes.
        let data = unsafe { output(single.base, single.len, "iov") }?;
        body(data)
    } else {
        let run = |scratch: &mut Vec<u8>| {
            // A panic in `body` (caught at the boundary) must not leave plaintext behind.
            struct WipeOnUnwind<'a>(&'a mut Vec<u8>);
            impl Drop for WipeOnUnwind<'_> {
                fn drop(&mut self) {
                    if std::thread::panicking() {
                        self.0.as_mut_slice().zeroize();
                    }
                }
            }
            let scratch = WipeOnUnwind(scratch);
            let scratch = &mut *scratch.0;
            scratch.clear();
            scratch.reserve(iov_total(fragments));
            gather(fragments, scratch);
            let result = body(scratch);
            if result.is_ok() {
                scatter(fragments, scratch);
            }
            if result.is_err() || leftover == Leftover::Secret {
                scratch.as_mut_slice().zeroize();
            }
            scratch.clear();
            if scratch.capacity() > SCRATCH_KEEP {
                *scratch = Vec::new();
            }
            result
        };
        let mut body = Some(run);
        let reused = SCRATCH.try_with(|cell| {
            cell.try_borrow_mut()
                .ok()
                .map(|mut scratch| (body.take().expect("runs once"))(&mut scratch))
        });
        match (reused, body) {
            (Ok(Some(result)), _) => result,
            // No thread-local storage (thread teardown): a buffer of its own.
            (_, Some(run)) => run(&mut Vec::new()),
            (_, None) => unreachable!("the body ran but gave no result"),
        }
    };
    if result.is_err() {
        wipe_iovecs(fragments);
    }
    result
}

/// The additional data of a vectored call, gathered when it has several fragments.
fn gather_aad(fragments: &[regula_iovec]) -> Outcome<std::borrow::Cow<'_, [u8]>> {
    Ok(match fragments {
        // SAFETY: checked by `iovecs`.
        [single] => std::borrow::Cow::Borrowed(unsafe { input(single.base, single.len, "aad") }?),
        _ => {
            let mut gathered = Vec::with_capacity(iov_total(fragments));
            gather(fragments, &mut gathered);
            std::borrow::Cow::Owned(gathered)
        }
    })
}

/// The vectored seal.
///
/// # Safety
/// The caller's promise on each argument.
#[allow(clippy::too_many_arguments)]
unsafe fn seal_vectored(
    key: *const regula_aead_key,
    nonce: NonceSource<'_>,
    aad_iov: *const regula_iovec,
    aad_iovcnt: usize,
    iov: *const regula_iovec,
    iovcnt: usize,
    tag: *mut u8,
    tag_len: usize,
    indicator: *mut regula_indicator,
) -> Outcome {
    // SAFETY: the caller's promise on each argument.
    unsafe {
        let tag_out = output(tag, tag_len, "tag")?;
        let result = (|| {
            let key = handle(key, "AEAD key")?;
            let aad = gather_aad(iovecs(aad_iov, aad_iovcnt, "aad_iov")?)?;
            let fragments = iovecs(iov, iovcnt, "iov")?;
            if tag_out.len() != key.key.tag_len() {
                return Err(Fail::invalid(format!(
                    "the tag buffer must be {} bytes, got {}",
                    key.key.tag_len(),
                    tag_out.len()
                )));
            }
            over_fragments(fragments, Leftover::Public, |data| {
                seal_in_place(key, nonce, &aad, data, &mut *tag_out, indicator)
            })
        })();
        if result.is_err() {
            tag_out.zeroize();
        }
        result
    }
}

/// Seals in place a message given as `iovcnt` fragments (e.g. an SMB2 header and its
/// payload), with additional data given as `aad_iovcnt` fragments; the tag
/// (`regula_aead_tag_len(key)` bytes) goes to `tag`. The ciphertext is what `regula_aead_seal`
/// makes of the fragments' concatenation. Nonce rules as for `regula_aead_seal`.
/// On failure the fragments and the tag are wiped.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_sealv(
    key: *const regula_aead_key,
    nonce: *const u8,
    nonce_len: usize,
    aad_iov: *const regula_iovec,
    aad_iovcnt: usize,
    iov: *const regula_iovec,
    iovcnt: usize,
    tag: *mut u8,
    tag_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let nonce = input(nonce, nonce_len, "nonce")?;
            seal_vectored(
                key,
                NonceSource::Caller(nonce),
                aad_iov,
                aad_iovcnt,
                iov,
                iovcnt,
                tag,
                tag_len,
                indicator,
            )
        }
    })
}

/// `regula_aead_sealv` with a nonce the module generates and writes to `nonce_out`
/// (`REGULA_AEAD_NONCE_LEN` bytes): the approved shape for AES-GCM under FIPS 140-3.
/// `nonce_out` must not overlap the additional data or the fragments.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_sealv_gen_nonce(
    key: *const regula_aead_key,
    nonce_out: *mut u8,
    nonce_len: usize,
    aad_iov: *const regula_iovec,
    aad_iovcnt: usize,
    iov: *const regula_iovec,
    iovcnt: usize,
    tag: *mut u8,
    tag_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let nonce = output(nonce_out, nonce_len, "nonce")?;
            let result = seal_vectored(
                key,
                NonceSource::Module(&mut *nonce),
                aad_iov,
                aad_iovcnt,
                iov,
                iovcnt,
                tag,
                tag_len,
                indicator,
            );
            if result.is_err() {
                nonce.zeroize();
            }
            result
        }
    })
}

/// Opens in place a message given as `iovcnt` fragments of ciphertext and its separate `tag`.
/// On success the fragments hold the plaintext; on failure (`REGULA_ERR_CRYPTO` for a bad tag)
/// they are wiped.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_aead_openv(
    key: *const regula_aead_key,
    nonce: *const u8,
    nonce_len: usize,
    aad_iov: *const regula_iovec,
    aad_iovcnt: usize,
    iov: *const regula_iovec,
    iovcnt: usize,
    tag: *const u8,
    tag_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let key = handle(key, "AEAD key")?;
            let nonce = input(nonce, nonce_len, "nonce")?;
            let tag = input(tag, tag_len, "tag")?;
            let aad = gather_aad(iovecs(aad_iov, aad_iovcnt, "aad_iov")?)?;
            let fragments = iovecs(iov, iovcnt, "iov")?;
            over_fragments(fragments, Leftover::Secret, |data| {
                let served = key.key.open_detached(nonce, &aad, data, tag)?;
                report(indicator, served.indicator(), key.policy);
                Ok(())
            })
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Block-cipher modes

/// Binds a block-cipher key (`"aes-128-cbc"`, `"aes-256-ctr"`, `"sm4-cbc"`, `"sm4-xts"`, …).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_cipher_key_new(
    module: *const regula_module,
    algorithm_name: *const c_char,
    key: *const u8,
    key_len: usize,
    out: *mut *mut regula_cipher_key,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            let out = out_param(out, "out")?;
            *out = std::ptr::null_mut();
            let module = handle(module, "module")?;
            let algorithm = algorithm(algorithm_name)?;
            let key = module
                .module
                .cipher_key(algorithm, input(key, key_len, "key")?)?;
            put_handle(
                out,
                regula_cipher_key {
                    key,
                    policy: module.policy,
                },
            );
        }
        Ok(())
    })
}

/// Frees (and wipes) a block-cipher key. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_cipher_key_free(key: *mut regula_cipher_key) {
    // SAFETY: the caller's promise.
    unsafe { free_handle(key) }
}

/// Encrypts with the caller's IV (`REGULA_CIPHER_IV_LEN` bytes; NULL and 0 for ECB). CBC adds
/// PKCS#7 padding, so `out` needs up to `in_len + 16` bytes; other modes keep the length.
/// `in` and `out` must not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_cipher_encrypt(
    key: *const regula_cipher_key,
    iv: *const u8,
    iv_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let key = handle(key, "cipher key")?;
                let iv = input(iv, iv_len, "iv")?;
                let plaintext = input(r#in, in_len, "plaintext")?;
                let iv = (!iv.is_empty() || key.key.takes_iv()).then_some(iv);
                let served = key.key.encrypt(iv, plaintext)?;
                let len = copy_out(buffer, &served.ciphertext, "ciphertext")?;
                report(indicator, served.indicator(), key.policy);
                Ok(len)
            })
        }
    })
}

/// Decrypts (for CBC, checks and strips the padding). `in` and `out` must not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_cipher_decrypt(
    key: *const regula_cipher_key,
    iv: *const u8,
    iv_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            with_output(out, out_cap, out_len, |buffer| {
                let key = handle(key, "cipher key")?;
                let iv = input(iv, iv_len, "iv")?;
                let ciphertext = input(r#in, in_len, "ciphertext")?;
                let (plaintext, served) = key.key.decrypt(iv, ciphertext)?.into_parts();
                let plaintext = Zeroizing::new(plaintext);
                let len = copy_out(buffer, &plaintext, "plaintext")?;
                report(indicator, served, key.policy);
                Ok(len)
            })
        }
    })
}

// ---------------------------------------------------------------------------------------------
// KDFs and random bits

/// HKDF extract-and-expand (`"hkdf-sha256"`, …): fills `out` (`out_len` bytes) from
/// `secret`, `salt` and `info`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_hkdf(
    module: *const regula_module,
    algorithm_name: *const c_char,
    secret: *const u8,
    secret_len: usize,
    salt: *const u8,
    salt_len: usize,
    info: *const u8,
    info_len: usize,
    out: *mut u8,
    out_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    // SAFETY: the caller's promise on each argument.
    unsafe {
        derive_into(
            module,
            algorithm_name,
            out,
            out_len,
            indicator,
            |module, algorithm, len| {
                Ok(module.hkdf(
                    algorithm,
                    input(secret, secret_len, "secret")?,
                    input(salt, salt_len, "salt")?,
                    input(info, info_len, "info")?,
                    len,
                )?)
            },
        )
    }
}

/// SP 800-108r1 KBKDF in counter mode with an HMAC PRF (`"kbkdf-ctr-hmac-sha256"`, …): fills
/// `out` (`out_len` bytes) from `key` and the fixed input, the 32-bit counter placed before it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_kbkdf(
    module: *const regula_module,
    algorithm_name: *const c_char,
    key: *const u8,
    key_len: usize,
    fixed_input: *const u8,
    fixed_input_len: usize,
    out: *mut u8,
    out_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    // SAFETY: the caller's promise on each argument.
    unsafe {
        derive_into(
            module,
            algorithm_name,
            out,
            out_len,
            indicator,
            |module, algorithm, len| {
                Ok(module.kbkdf(
                    algorithm,
                    input(key, key_len, "key")?,
                    input(fixed_input, fixed_input_len, "fixed input")?,
                    len,
                )?)
            },
        )
    }
}

/// `regula_kbkdf` with SP 800-108r1's fixed input `label ‖ 0x00 ‖ context ‖ [L]₃₂`, the
/// encoding SMB 3.x uses for its signing, encryption and application keys.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_kbkdf_label_context(
    module: *const regula_module,
    algorithm_name: *const c_char,
    key: *const u8,
    key_len: usize,
    label: *const u8,
    label_len: usize,
    context: *const u8,
    context_len: usize,
    out: *mut u8,
    out_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    // SAFETY: the caller's promise on each argument.
    unsafe {
        derive_into(
            module,
            algorithm_name,
            out,
            out_len,
            indicator,
            |module, algorithm, len| {
                Ok(module.kbkdf_label_context(
                    algorithm,
                    input(key, key_len, "key")?,
                    input(label, label_len, "label")?,
                    input(context, context_len, "context")?,
                    len,
                )?)
            },
        )
    }
}

/// PBKDF2 (`"pbkdf2-sha256"`, …): fills `out` (`out_len` bytes) from `password` and `salt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_pbkdf2(
    module: *const regula_module,
    algorithm_name: *const c_char,
    password: *const u8,
    password_len: usize,
    salt: *const u8,
    salt_len: usize,
    iterations: u32,
    out: *mut u8,
    out_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    // SAFETY: the caller's promise on each argument.
    unsafe {
        derive_into(
            module,
            algorithm_name,
            out,
            out_len,
            indicator,
            |module, algorithm, len| {
                Ok(module.pbkdf2(
                    algorithm,
                    input(password, password_len, "password")?,
                    input(salt, salt_len, "salt")?,
                    iterations,
                    len,
                )?)
            },
        )
    }
}

/// Fills `out` with `out_len` bytes from the policy's random generator: AWS-LC's SP 800-90A
/// DRBG (`"ctr-drbg"`), or under `gm` the GM/T 0105 SM3 generator (`"sm3-drbg"`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_random(
    module: *const regula_module,
    out: *mut u8,
    out_len: usize,
    indicator: *mut regula_indicator,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            fixed_output(out, out_len, |buffer| {
                let module = handle(module, "module")?;
                let served = module.module.fill_random(buffer)?;
                report(indicator, served.indicator(), module.policy);
                Ok(())
            })
        }
    })
}

/// What every KDF entry point shares: resolve the module and the algorithm, derive `out_len`
/// bytes into `out` (wiped on failure) and report the indicator.
unsafe fn derive_into(
    module: *const regula_module,
    algorithm_name: *const c_char,
    out: *mut u8,
    out_len: usize,
    indicator: *mut regula_indicator,
    derive: impl FnOnce(
        &regula::Module,
        regula::Algorithm,
        usize,
    ) -> Outcome<Served<Zeroizing<Vec<u8>>>>,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        unsafe {
            fixed_output(out, out_len, |buffer| {
                let module = handle(module, "module")?;
                let served = derive(&module.module, algorithm(algorithm_name)?, buffer.len())?;
                buffer.copy_from_slice(&served);
                report(indicator, served.indicator(), module.policy);
                Ok(())
            })
        }
    })
}

/// Runs a call that fills exactly `len` bytes; on failure they are wiped.
///
/// # Safety
/// `out` must point to `len` writable bytes (or be NULL with `len` 0).
pub(crate) unsafe fn fixed_output(
    out: *mut u8,
    len: usize,
    fill: impl FnOnce(&mut [u8]) -> Outcome,
) -> Outcome {
    // SAFETY: the caller's promise.
    let buffer = unsafe { output(out, len, "output buffer") }?;
    let result = fill(&mut *buffer);
    if result.is_err() {
        buffer.zeroize();
    }
    result
}
