//! The few AWS-LC C functions that aws-lc-rs has no API for: AES-CCM with SP 800-38C's nonce and
//! tag sizes, AES-256-XTS, GMAC with any nonce length, the legacy set (MD4, MD5, HMAC-MD5, RC4,
//! DES, 3DES), SHAKE128/SHAKE256, one-shot SHA-2 into a caller's buffer, and the public-key
//! recomputation of key-agreement PCTs. No cryptography here: every primitive is AWS-LC's, from
//! the same copy that aws-lc-rs links (`aws-lc-fips-sys` in a `fips` build, `aws-lc-sys`
//! otherwise).
//!
//! Each wrapper owns its AWS-LC object and frees it on drop; AWS-LC's free functions cleanse key
//! schedules and hash states before releasing them.

use std::os::raw::{c_int, c_uint, c_void};
use std::ptr::{self, NonNull};

#[cfg(feature = "fips")]
use aws_lc_fips_sys as sys;
#[cfg(not(feature = "fips"))]
use aws_lc_sys as sys;

/// An AWS-LC call failed; the caller knows what it was doing and says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Failed;

fn check(result: c_int) -> Result<(), Failed> {
    if result == 1 {
        Ok(())
    } else {
        // SAFETY: clears this thread's AWS-LC error queue; takes no arguments.
        unsafe { sys::ERR_clear_error() };
        Err(Failed)
    }
}

fn c_len(len: usize) -> Result<c_int, Failed> {
    c_int::try_from(len).map_err(|_| Failed)
}

/// The SHA-2 functions whose one-shot form writes the digest straight into the caller's
/// buffer (aws-lc-rs returns a `Digest` value, which the caller then copies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sha2 {
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Sha2 {
    pub(crate) const fn output_len(self) -> usize {
        match self {
            Sha2::Sha224 => 28,
            Sha2::Sha256 => 32,
            Sha2::Sha384 => 48,
            Sha2::Sha512 => 64,
        }
    }
}

/// Hashes `data` into `out`, which must be exactly the digest length.
pub(crate) fn sha2_into(hash: Sha2, data: &[u8], out: &mut [u8]) -> Result<(), Failed> {
    if out.len() != hash.output_len() {
        return Err(Failed);
    }
    let (input, len, output) = (data.as_ptr(), data.len(), out.as_mut_ptr());
    // SAFETY: `data` is readable for `len` bytes and `out` writable for exactly the digest
    // length, which is all these functions write; neither is retained after the call.
    let written = unsafe {
        match hash {
            Sha2::Sha224 => sys::SHA224(input, len, output),
            Sha2::Sha256 => sys::SHA256(input, len, output),
            Sha2::Sha384 => sys::SHA384(input, len, output),
            Sha2::Sha512 => sys::SHA512(input, len, output),
        }
    };
    if written.is_null() {
        Err(Failed)
    } else {
        Ok(())
    }
}

/// The EVP ciphers used through `EVP_CIPHER_CTX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EvpCipher {
    Aes128Ccm,
    Aes256Ccm,
    Aes256Xts,
    Rc4,
    DesCbc,
    DesEde3Cbc,
}

impl EvpCipher {
    fn get(self) -> *const sys::EVP_CIPHER {
        // SAFETY: each returns a pointer to a static, immutable cipher description.
        unsafe {
            match self {
                EvpCipher::Aes128Ccm => sys::EVP_aes_128_ccm(),
                EvpCipher::Aes256Ccm => sys::EVP_aes_256_ccm(),
                EvpCipher::Aes256Xts => sys::EVP_aes_256_xts(),
                EvpCipher::Rc4 => sys::EVP_rc4(),
                EvpCipher::DesCbc => sys::EVP_des_cbc(),
                EvpCipher::DesEde3Cbc => sys::EVP_des_ede3_cbc(),
            }
        }
    }
}

/// An owned `EVP_CIPHER_CTX`.
struct CipherCtx(NonNull<sys::EVP_CIPHER_CTX>);

impl CipherCtx {
    fn new() -> Result<CipherCtx, Failed> {
        // SAFETY: allocates a fresh context; NULL on allocation failure, checked below.
        NonNull::new(unsafe { sys::EVP_CIPHER_CTX_new() })
            .map(CipherCtx)
            .ok_or(Failed)
    }

    fn ptr(&self) -> *mut sys::EVP_CIPHER_CTX {
        self.0.as_ptr()
    }

    /// `EVP_CipherInit_ex` with optional key and IV (NULL keeps what was set before).
    fn init(
        &self,
        cipher: Option<EvpCipher>,
        key: Option<&[u8]>,
        iv: Option<&[u8]>,
        encrypt: bool,
    ) -> Result<(), Failed> {
        let cipher = cipher.map_or(ptr::null(), EvpCipher::get);
        let key = key.map_or(ptr::null(), <[u8]>::as_ptr);
        let iv = iv.map_or(ptr::null(), <[u8]>::as_ptr);
        // SAFETY: the context is live; cipher is a static description or NULL; key and IV are
        // NULL or point to buffers whose lengths the caller set up for this cipher (key length
        // via EVP_CIPHER_CTX_set_key_length, IV length via the AEAD IV-length control).
        check(unsafe {
            sys::EVP_CipherInit_ex(
                self.ptr(),
                cipher,
                ptr::null_mut(),
                key,
                iv,
                c_int::from(encrypt),
            )
        })
    }

    fn ctrl(&self, command: c_int, argument: c_int, data: *mut c_void) -> Result<(), Failed> {
        // SAFETY: the context is live; `data` is NULL or a buffer of at least `argument` bytes,
        // as each control used here (IV length, tag set/get) requires.
        check(unsafe { sys::EVP_CIPHER_CTX_ctrl(self.ptr(), command, argument, data) })
    }

    /// `EVP_CipherUpdate` in place: `data` is both input and output (exact overlap is allowed).
    /// Returns the number of bytes written.
    fn update_in_place(&self, data: &mut [u8]) -> Result<usize, Failed> {
        let mut written: c_int = 0;
        let len = c_len(data.len())?;
        // SAFETY: the context is live and initialised; input and output are the same buffer of
        // `len` bytes, and every cipher used here (stream, CCM, XTS, or block modes without
        // padding fed whole blocks) writes at most `len` bytes.
        check(unsafe {
            sys::EVP_CipherUpdate(
                self.ptr(),
                data.as_mut_ptr(),
                &mut written,
                data.as_ptr(),
                len,
            )
        })?;
        usize::try_from(written).map_err(|_| Failed)
    }

    /// `EVP_CipherUpdate` with no output: CCM's total length (`input` NULL) or its AAD.
    fn update_without_output(&self, input: Option<&[u8]>, len: usize) -> Result<(), Failed> {
        let mut written: c_int = 0;
        let input_ptr = input.map_or(ptr::null(), <[u8]>::as_ptr);
        // SAFETY: the context is live; with a NULL output, CCM takes a NULL input as the total
        // plaintext length and a non-NULL input (of `len` bytes) as additional data.
        check(unsafe {
            sys::EVP_CipherUpdate(
                self.ptr(),
                ptr::null_mut(),
                &mut written,
                input_ptr,
                c_len(len)?,
            )
        })
    }

    fn finish(&self) -> Result<(), Failed> {
        let mut block = [0u8; 32];
        let mut written: c_int = 0;
        // SAFETY: the context is live; padding is off or the mode is a stream/AEAD mode, so at
        // most one block (≤ 32 bytes here) is written, and nothing is expected.
        check(unsafe { sys::EVP_CipherFinal_ex(self.ptr(), block.as_mut_ptr(), &mut written) })?;
        if written == 0 { Ok(()) } else { Err(Failed) }
    }
}

impl Drop for CipherCtx {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_CIPHER_CTX_new and is freed once; AWS-LC cleans up
        // the cipher state (key schedule) before freeing it.
        unsafe { sys::EVP_CIPHER_CTX_free(self.ptr()) }
    }
}

/// AES-CCM (SP 800-38C) encryption in place; the tag (of `tag.len()` bytes) goes to `tag`.
pub(crate) fn ccm_seal(
    cipher: EvpCipher,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    in_out: &mut [u8],
    tag: &mut [u8],
) -> Result<(), Failed> {
    let ctx = ccm_context(cipher, key, nonce, tag.len(), true, None)?;
    ctx.update_without_output(None, in_out.len())?;
    if !aad.is_empty() {
        ctx.update_without_output(Some(aad), aad.len())?;
    }
    // Called even for an empty message: CCM computes the tag in this call.
    ctx.update_in_place(in_out)?;
    ctx.finish()?;
    ctx.ctrl(
        sys::EVP_CTRL_AEAD_GET_TAG,
        c_len(tag.len())?,
        tag.as_mut_ptr().cast(),
    )
}

/// AES-CCM decryption in place; fails (leaving `ciphertext` to be wiped by the caller) when the
/// tag does not verify.
pub(crate) fn ccm_open(
    cipher: EvpCipher,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    ciphertext: &mut [u8],
    tag: &[u8],
) -> Result<(), Failed> {
    let ctx = ccm_context(cipher, key, nonce, tag.len(), false, Some(tag))?;
    ctx.update_without_output(None, ciphertext.len())?;
    if !aad.is_empty() {
        ctx.update_without_output(Some(aad), aad.len())?;
    }
    // CCM verifies the tag in this call, for an empty message too.
    ctx.update_in_place(ciphertext)?;
    Ok(())
}

fn ccm_context(
    cipher: EvpCipher,
    key: &[u8],
    nonce: &[u8],
    tag_len: usize,
    encrypt: bool,
    expected_tag: Option<&[u8]>,
) -> Result<CipherCtx, Failed> {
    let ctx = CipherCtx::new()?;
    ctx.init(Some(cipher), None, None, encrypt)?;
    ctx.ctrl(
        sys::EVP_CTRL_AEAD_SET_IVLEN,
        c_len(nonce.len())?,
        ptr::null_mut(),
    )?;
    match expected_tag {
        // The control copies the tag; it does not keep the pointer.
        Some(tag) => ctx.ctrl(
            sys::EVP_CTRL_AEAD_SET_TAG,
            c_len(tag.len())?,
            tag.as_ptr().cast_mut().cast(),
        )?,
        None => ctx.ctrl(sys::EVP_CTRL_AEAD_SET_TAG, c_len(tag_len)?, ptr::null_mut())?,
    }
    ctx.init(None, Some(key), Some(nonce), encrypt)?;
    Ok(ctx)
}

/// One-shot encryption or decryption in place with a non-AEAD EVP cipher (XTS, RC4, DES-CBC,
/// 3DES-CBC), padding off. `key` must have the cipher's key length (RC4: any length 1..=256).
pub(crate) fn cipher_in_place(
    cipher: EvpCipher,
    key: &[u8],
    iv: Option<&[u8]>,
    encrypt: bool,
    data: &mut [u8],
) -> Result<(), Failed> {
    let ctx = CipherCtx::new()?;
    ctx.init(Some(cipher), None, None, encrypt)?;
    if cipher == EvpCipher::Rc4 {
        let key_len = c_uint::try_from(key.len()).map_err(|_| Failed)?;
        // SAFETY: the context is live and holds RC4, whose key length is variable.
        check(unsafe { sys::EVP_CIPHER_CTX_set_key_length(ctx.ptr(), key_len) })?;
    }
    // SAFETY: the context is live; turning padding off only changes how Final behaves.
    check(unsafe { sys::EVP_CIPHER_CTX_set_padding(ctx.ptr(), 0) })?;
    ctx.init(None, Some(key), iv, encrypt)?;
    if cipher == EvpCipher::Aes256Xts {
        // XTS takes the whole data unit in one call (ciphertext stealing needs its end).
        if ctx.update_in_place(data)? != data.len() {
            return Err(Failed);
        }
    } else {
        for chunk in data.chunks_mut(1 << 30) {
            if ctx.update_in_place(chunk)? != chunk.len() {
                return Err(Failed);
            }
        }
    }
    ctx.finish()
}

/// The legacy digests, which aws-lc-rs does not offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LegacyDigest {
    Md4,
    Md5,
}

impl LegacyDigest {
    fn get(self) -> *const sys::EVP_MD {
        // SAFETY: each returns a pointer to a static, immutable digest description.
        unsafe {
            match self {
                LegacyDigest::Md4 => sys::EVP_md4(),
                LegacyDigest::Md5 => sys::EVP_md5(),
            }
        }
    }

    pub(crate) const fn output_len(self) -> usize {
        16
    }
}

/// An owned `EVP_MD_CTX`: an incremental MD4 or MD5 computation.
pub(crate) struct DigestCtx {
    ctx: NonNull<sys::EVP_MD_CTX>,
    digest: LegacyDigest,
}

// SAFETY: the context is owned exclusively and only touched through `&mut self` (or `&self` for
// copying, which AWS-LC reads without modifying); AWS-LC digest contexts are not tied to a thread.
unsafe impl Send for DigestCtx {}
// SAFETY: see `Send`; shared references only read the context (EVP_MD_CTX_copy_ex's source).
unsafe impl Sync for DigestCtx {}

impl DigestCtx {
    pub(crate) fn new(digest: LegacyDigest) -> Result<DigestCtx, Failed> {
        // SAFETY: allocates a fresh context; NULL on allocation failure, checked below.
        let ctx = NonNull::new(unsafe { sys::EVP_MD_CTX_new() }).ok_or(Failed)?;
        let this = DigestCtx { ctx, digest };
        // SAFETY: the context is live; the digest description is static.
        check(unsafe { sys::EVP_DigestInit_ex(ctx.as_ptr(), digest.get(), ptr::null_mut()) })?;
        Ok(this)
    }

    pub(crate) fn update(&mut self, data: &[u8]) -> Result<(), Failed> {
        // SAFETY: the context is live and initialised; `data` is a valid buffer of its length.
        check(unsafe { sys::EVP_DigestUpdate(self.ctx.as_ptr(), data.as_ptr().cast(), data.len()) })
    }

    pub(crate) fn finish(self) -> Result<Vec<u8>, Failed> {
        let mut output = vec![0u8; self.digest.output_len()];
        let mut written: c_uint = 0;
        // SAFETY: the context is live and initialised; the output holds the digest's length.
        check(unsafe {
            sys::EVP_DigestFinal_ex(self.ctx.as_ptr(), output.as_mut_ptr(), &mut written)
        })?;
        if written as usize != output.len() {
            return Err(Failed);
        }
        Ok(output)
    }

    pub(crate) fn try_clone(&self) -> Result<DigestCtx, Failed> {
        // SAFETY: allocates a fresh context; NULL on allocation failure, checked below.
        let ctx = NonNull::new(unsafe { sys::EVP_MD_CTX_new() }).ok_or(Failed)?;
        let copy = DigestCtx {
            ctx,
            digest: self.digest,
        };
        // SAFETY: both contexts are live; the source is initialised and only read.
        check(unsafe { sys::EVP_MD_CTX_copy_ex(ctx.as_ptr(), self.ctx.as_ptr()) })?;
        Ok(copy)
    }
}

impl Drop for DigestCtx {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_MD_CTX_new and is freed once; AWS-LC cleanses the
        // hash state first.
        unsafe { sys::EVP_MD_CTX_free(self.ctx.as_ptr()) }
    }
}

/// The FIPS 202 extendable-output functions, which aws-lc-rs does not offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shake {
    Shake128,
    Shake256,
}

impl Shake {
    fn get(self) -> *const sys::EVP_MD {
        // SAFETY: each returns a pointer to a static, immutable digest description.
        unsafe {
            match self {
                Shake::Shake128 => sys::EVP_shake128(),
                Shake::Shake256 => sys::EVP_shake256(),
            }
        }
    }
}

/// An owned `EVP_MD_CTX` over SHAKE: absorbs with `update`, then squeezes once, any length,
/// with `EVP_DigestFinalXOF`.
pub(crate) struct XofCtx {
    ctx: NonNull<sys::EVP_MD_CTX>,
}

// SAFETY: as for `DigestCtx`: exclusively owned, mutated only through `&mut self`, copied from
// `&self` without modification; AWS-LC digest contexts are not tied to a thread.
unsafe impl Send for XofCtx {}
// SAFETY: see `Send`.
unsafe impl Sync for XofCtx {}

impl XofCtx {
    pub(crate) fn new(shake: Shake) -> Result<XofCtx, Failed> {
        // SAFETY: allocates a fresh context; NULL on allocation failure, checked below.
        let ctx = NonNull::new(unsafe { sys::EVP_MD_CTX_new() }).ok_or(Failed)?;
        let this = XofCtx { ctx };
        // SAFETY: the context is live; the digest description is static.
        check(unsafe { sys::EVP_DigestInit_ex(ctx.as_ptr(), shake.get(), ptr::null_mut()) })?;
        Ok(this)
    }

    pub(crate) fn update(&mut self, data: &[u8]) -> Result<(), Failed> {
        // SAFETY: the context is live and initialised; `data` is a valid buffer of its length.
        check(unsafe { sys::EVP_DigestUpdate(self.ctx.as_ptr(), data.as_ptr().cast(), data.len()) })
    }

    /// Squeezes exactly `out.len()` bytes into `out`; the context is spent afterwards, which
    /// taking `self` enforces.
    pub(crate) fn finish_into(self, out: &mut [u8]) -> Result<(), Failed> {
        // SAFETY: the context is live and initialised; `out` is writable for its length, which
        // is exactly what EVP_DigestFinalXOF writes.
        check(unsafe { sys::EVP_DigestFinalXOF(self.ctx.as_ptr(), out.as_mut_ptr(), out.len()) })
    }

    /// Squeezes the next `out.len()` bytes of output; may be called again for more (OpenSSL
    /// 3.3+'s `EVP_DigestSqueeze`, which ML-DSA's matrix expansion uses). After the first
    /// squeeze the context absorbs nothing more and cannot be finished with `finish_into`.
    pub(crate) fn squeeze(&mut self, out: &mut [u8]) -> Result<(), Failed> {
        // SAFETY: the context is live and initialised; `out` is writable for its length, which
        // is exactly what EVP_DigestSqueeze writes.
        check(unsafe { sys::EVP_DigestSqueeze(self.ctx.as_ptr(), out.as_mut_ptr(), out.len()) })
    }

    pub(crate) fn try_clone(&self) -> Result<XofCtx, Failed> {
        // SAFETY: allocates a fresh context; NULL on allocation failure, checked below.
        let ctx = NonNull::new(unsafe { sys::EVP_MD_CTX_new() }).ok_or(Failed)?;
        let copy = XofCtx { ctx };
        // SAFETY: both contexts are live; the source is initialised and only read.
        check(unsafe { sys::EVP_MD_CTX_copy_ex(ctx.as_ptr(), self.ctx.as_ptr()) })?;
        Ok(copy)
    }
}

impl Drop for XofCtx {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_MD_CTX_new and is freed once; AWS-LC cleanses the
        // sponge state first.
        unsafe { sys::EVP_MD_CTX_free(self.ctx.as_ptr()) }
    }
}

/// An owned `HMAC_CTX` over a legacy digest (HMAC-MD5).
pub(crate) struct HmacCtx {
    ctx: NonNull<sys::HMAC_CTX>,
    digest: LegacyDigest,
}

// SAFETY: as for `DigestCtx`: exclusively owned, mutated only through `&mut self`, copied from
// `&self` without modification.
unsafe impl Send for HmacCtx {}
// SAFETY: see `Send`.
unsafe impl Sync for HmacCtx {}

impl HmacCtx {
    pub(crate) fn new(digest: LegacyDigest, key: &[u8]) -> Result<HmacCtx, Failed> {
        let this = HmacCtx::empty(digest)?;
        // SAFETY: the context is live; the key is a valid buffer of its length; the digest
        // description is static.
        check(unsafe {
            sys::HMAC_Init_ex(
                this.ctx.as_ptr(),
                key.as_ptr().cast(),
                key.len(),
                digest.get(),
                ptr::null_mut(),
            )
        })?;
        Ok(this)
    }

    fn empty(digest: LegacyDigest) -> Result<HmacCtx, Failed> {
        // SAFETY: allocates a fresh context; NULL on allocation failure, checked below.
        let ctx = NonNull::new(unsafe { sys::HMAC_CTX_new() }).ok_or(Failed)?;
        Ok(HmacCtx { ctx, digest })
    }

    pub(crate) fn update(&mut self, data: &[u8]) -> Result<(), Failed> {
        // SAFETY: the context is live and keyed; `data` is a valid buffer of its length.
        check(unsafe { sys::HMAC_Update(self.ctx.as_ptr(), data.as_ptr(), data.len()) })
    }

    pub(crate) fn finish(self) -> Result<Vec<u8>, Failed> {
        let mut output = vec![0u8; self.digest.output_len()];
        let mut written: c_uint = 0;
        // SAFETY: the context is live and keyed; the output holds the digest's length.
        check(unsafe { sys::HMAC_Final(self.ctx.as_ptr(), output.as_mut_ptr(), &mut written) })?;
        if written as usize != output.len() {
            return Err(Failed);
        }
        Ok(output)
    }

    pub(crate) fn try_clone(&self) -> Result<HmacCtx, Failed> {
        let copy = HmacCtx::empty(self.digest)?;
        // SAFETY: both contexts are live; the source is keyed and only read.
        check(unsafe { sys::HMAC_CTX_copy_ex(copy.ctx.as_ptr(), self.ctx.as_ptr()) })?;
        Ok(copy)
    }
}

impl Drop for HmacCtx {
    fn drop(&mut self) {
        // SAFETY: the context came from HMAC_CTX_new and is freed once; AWS-LC cleanses the
        // keyed state first.
        unsafe { sys::HMAC_CTX_free(self.ctx.as_ptr()) }
    }
}

/// AES-GCM as AWS-LC's `EVP_AEAD` with a caller-chosen nonce of any length, used for GMAC
/// (SP 800-38D: GCM over an empty plaintext, the message as additional data).
pub(crate) struct GcmAeadCtx(NonNull<sys::EVP_AEAD_CTX>);

// SAFETY: the context is keyed once at creation and afterwards only read (EVP_AEAD_CTX_seal takes
// a const context), so it can be sent and shared between threads.
unsafe impl Send for GcmAeadCtx {}
// SAFETY: see `Send`.
unsafe impl Sync for GcmAeadCtx {}

/// GCM's tag length.
pub(crate) const GMAC_TAG_LEN: usize = 16;

impl GcmAeadCtx {
    /// Keys AES-128-GCM or AES-256-GCM by the key's length (16 or 32 bytes).
    pub(crate) fn new(key: &[u8]) -> Result<GcmAeadCtx, Failed> {
        // SAFETY: each returns a pointer to a static AEAD description.
        let aead = unsafe {
            match key.len() {
                16 => sys::EVP_aead_aes_128_gcm(),
                32 => sys::EVP_aead_aes_256_gcm(),
                _ => return Err(Failed),
            }
        };
        // SAFETY: the AEAD is static; the key is a valid buffer of its length, copied by AWS-LC.
        let ctx = unsafe { sys::EVP_AEAD_CTX_new(aead, key.as_ptr(), key.len(), GMAC_TAG_LEN) };
        NonNull::new(ctx).map(GcmAeadCtx).ok_or(Failed)
    }

    /// The GMAC tag of `message` under `nonce` (non-empty).
    pub(crate) fn gmac(&self, nonce: &[u8], message: &[u8]) -> Result<[u8; GMAC_TAG_LEN], Failed> {
        if nonce.is_empty() {
            return Err(Failed);
        }
        let mut tag = [0u8; GMAC_TAG_LEN];
        let mut written = 0usize;
        // SAFETY: the context is live and keyed; the output holds the tag (the plaintext is
        // empty, so the sealed output is the tag alone); nonce and message are valid buffers of
        // their lengths; an empty input is passed as a valid empty pointer.
        check(unsafe {
            sys::EVP_AEAD_CTX_seal(
                self.0.as_ptr(),
                tag.as_mut_ptr(),
                &mut written,
                tag.len(),
                nonce.as_ptr(),
                nonce.len(),
                [].as_ptr(),
                0,
                message.as_ptr(),
                message.len(),
            )
        })?;
        if written == GMAC_TAG_LEN {
            Ok(tag)
        } else {
            Err(Failed)
        }
    }
}

impl Drop for GcmAeadCtx {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_AEAD_CTX_new and is freed once; AWS-LC cleanses the
        // key schedule first.
        unsafe { sys::EVP_AEAD_CTX_free(self.0.as_ptr()) }
    }
}

impl Sha2 {
    fn evp_md(self) -> *const sys::EVP_MD {
        // SAFETY: each returns a pointer to a static, immutable digest description.
        unsafe {
            match self {
                Sha2::Sha224 => sys::EVP_sha224(),
                Sha2::Sha256 => sys::EVP_sha256(),
                Sha2::Sha384 => sys::EVP_sha384(),
                Sha2::Sha512 => sys::EVP_sha512(),
            }
        }
    }
}

/// HKDF-Extract (RFC 5869 §2.2, SP 800-56C Rev. 2 §5.1): PRK = HMAC-Hash(salt, secret) into
/// `prk`, which must be exactly the digest length. aws-lc-rs keeps its PRK opaque, so
/// OpenSSL's extract-only mode needs AWS-LC's `HKDF_extract` itself.
pub(crate) fn hkdf_extract(
    hash: Sha2,
    secret: &[u8],
    salt: &[u8],
    prk: &mut [u8],
) -> Result<(), Failed> {
    if prk.len() != hash.output_len() {
        return Err(Failed);
    }
    let mut written = 0usize;
    // SAFETY: `prk` has room for the digest length, all HKDF_extract writes; the inputs are
    // readable for their lengths and not retained; the digest description is static.
    check(unsafe {
        sys::HKDF_extract(
            prk.as_mut_ptr(),
            &mut written,
            hash.evp_md(),
            secret.as_ptr(),
            secret.len(),
            salt.as_ptr(),
            salt.len(),
        )
    })?;
    if written == prk.len() {
        Ok(())
    } else {
        Err(Failed)
    }
}

/// The TLS 1.2 PRF (RFC 5246 §5, SP 800-135 Rev. 1 §4.2.2): P_hash(secret, seed) into `out`,
/// AWS-LC's `CRYPTO_tls1_prf`. The seed is given whole (TLS's label ‖ seed), as OpenSSL's
/// TLS1-PRF takes it.
pub(crate) fn tls12_prf(
    hash: Sha2,
    secret: &[u8],
    seed: &[u8],
    out: &mut [u8],
) -> Result<(), Failed> {
    // SAFETY: `out` is writable for its length; secret and seed are readable for theirs and not
    // retained; an empty label is given as a valid pointer of length 0.
    check(unsafe {
        sys::CRYPTO_tls1_prf(
            hash.evp_md(),
            out.as_mut_ptr(),
            out.len(),
            secret.as_ptr(),
            secret.len(),
            c"".as_ptr(),
            0,
            seed.as_ptr(),
            seed.len(),
            ptr::null(),
            0,
        )
    })
}

/// AWS-LC's own service indicator (FIPS builds only): how many approved services the calling
/// thread has run. Tests compare it before and after a call, as AWS-LC's own tests do.
#[cfg(feature = "fips")]
pub fn fips_service_indicator_counter() -> u64 {
    // SAFETY: reads a thread-local counter; takes no arguments.
    unsafe { sys::FIPS_service_indicator_before_call() }
}

#[cfg(feature = "fips")]
/// The counter after a call: it moved past `before` if and only if AWS-LC approved the call.
pub fn fips_service_indicator_approved(before: u64) -> bool {
    // SAFETY: reads a thread-local counter; takes no arguments.
    unsafe { sys::FIPS_service_indicator_after_call() != before }
}

/// The curves whose public keys [`ec_public_key_from_private`] recomputes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NistCurve {
    P256,
    P384,
    P521,
}

/// Q = d·G on a NIST curve, as an uncompressed point: the public-key recomputation of
/// SP 800-56A Rev. 3 §5.6.2.1.4 (b), one constant-time base-point multiplication in AWS-LC
/// (aws-lc-rs can only re-import the key, which validates it with a second multiplication).
pub(crate) fn ec_public_key_from_private(
    curve: NistCurve,
    scalar: &[u8],
) -> Result<Vec<u8>, Failed> {
    let nid = match curve {
        NistCurve::P256 => sys::NID_X9_62_prime256v1,
        NistCurve::P384 => sys::NID_secp384r1,
        NistCurve::P521 => sys::NID_secp521r1,
    };
    // SAFETY: returns a static group for a built-in curve, or null.
    let group = unsafe { sys::EC_GROUP_new_by_curve_name(nid as c_int) };
    if group.is_null() {
        return Err(Failed);
    }
    // SAFETY: `scalar` is valid for its length; the result is a new BIGNUM or null.
    let d = unsafe { sys::BN_bin2bn(scalar.as_ptr(), scalar.len(), ptr::null_mut()) };
    // SAFETY: `group` is valid; the result is a new point or null.
    let point = unsafe { sys::EC_POINT_new(group) };
    let result = (|| {
        if d.is_null() || point.is_null() {
            return Err(Failed);
        }
        // SAFETY: `group`, `point` and `d` are valid; null `q`, `m` and `ctx` ask for d·G only.
        check(unsafe {
            sys::EC_POINT_mul(group, point, d, ptr::null(), ptr::null(), ptr::null_mut())
        })?;
        let form = sys::point_conversion_form_t::POINT_CONVERSION_UNCOMPRESSED;
        let mut out = vec![0u8; 1 + 2 * 66];
        // SAFETY: `out` has room for the largest uncompressed point (P-521: 133 bytes).
        let written = unsafe {
            sys::EC_POINT_point2oct(
                group,
                point,
                form,
                out.as_mut_ptr(),
                out.len(),
                ptr::null_mut(),
            )
        };
        if written == 0 {
            return Err(Failed);
        }
        out.truncate(written);
        Ok(out)
    })();
    // SAFETY: each pointer is either null (a no-op) or owned here; the scalar is cleansed.
    unsafe {
        sys::EC_POINT_free(point);
        sys::BN_clear_free(d);
        sys::EC_GROUP_free(group);
    }
    result
}

/// The X25519 public key of a private key (RFC 7748 §6.1), for the same recomputation test.
pub(crate) fn x25519_public_key_from_private(private_key: &[u8; 32]) -> [u8; 32] {
    let mut public_key = [0u8; 32];
    // SAFETY: both buffers are 32 bytes, as the function requires.
    unsafe { sys::X25519_public_from_private(public_key.as_mut_ptr(), private_key.as_ptr()) };
    public_key
}

// Streaming AEAD
//
// AES-GCM and ChaCha20-Poly1305 as AWS-LC's `EVP_CIPHER`s, which take the associated data and
// the text in any number of update calls (aws-lc-rs seals and opens whole messages only).

/// The AEADs AWS-LC streams through `EVP_CIPHER_CTX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamingAead {
    Aes128Gcm,
    Aes256Gcm,
    ChaCha20Poly1305,
}

impl StreamingAead {
    fn get(self) -> *const sys::EVP_CIPHER {
        // SAFETY: each returns a pointer to a static, immutable cipher description.
        unsafe {
            match self {
                StreamingAead::Aes128Gcm => sys::EVP_aes_128_gcm(),
                StreamingAead::Aes256Gcm => sys::EVP_aes_256_gcm(),
                StreamingAead::ChaCha20Poly1305 => sys::EVP_chacha20_poly1305(),
            }
        }
    }

    pub(crate) const fn key_len(self) -> usize {
        match self {
            StreamingAead::Aes128Gcm => 16,
            StreamingAead::Aes256Gcm | StreamingAead::ChaCha20Poly1305 => 32,
        }
    }
}

/// The longest piece handed to one `EVP_CipherUpdate` (its length is a C `int`).
const AEAD_STREAM_PIECE: usize = 1 << 30;

/// One AEAD message in progress in an owned `EVP_CIPHER_CTX`, keyed and given its nonce. The
/// caller keeps the order (associated data, then text, then one finish); AWS-LC cleanses the
/// key schedule and state when the context is freed.
pub(crate) struct AeadStreamCtx {
    ctx: NonNull<sys::EVP_CIPHER_CTX>,
    encrypt: bool,
    /// The IV length last set by the IV-length control (0 before any): a restart under a
    /// nonce of the same length skips the control.
    iv_len: c_int,
}

// SAFETY: the context is owned exclusively and mutated only through `&mut self`; `&self` only
// reads it (EVP_CIPHER_CTX_copy's source). AWS-LC cipher contexts are not tied to a thread.
unsafe impl Send for AeadStreamCtx {}
// SAFETY: see `Send`.
unsafe impl Sync for AeadStreamCtx {}

impl AeadStreamCtx {
    fn empty(encrypt: bool) -> Result<AeadStreamCtx, Failed> {
        // SAFETY: allocates a fresh context; NULL on allocation failure, checked below.
        let ctx = NonNull::new(unsafe { sys::EVP_CIPHER_CTX_new() }).ok_or(Failed)?;
        Ok(AeadStreamCtx {
            ctx,
            encrypt,
            iv_len: 0,
        })
    }

    /// Keys `aead` with `key` (its key length) and `nonce` (a length the cipher takes).
    pub(crate) fn new(
        aead: StreamingAead,
        key: &[u8],
        nonce: &[u8],
        encrypt: bool,
    ) -> Result<AeadStreamCtx, Failed> {
        if key.len() != aead.key_len() {
            return Err(Failed);
        }
        let mut this = AeadStreamCtx::empty(encrypt)?;
        let ctx = this.ctx.as_ptr();
        let enc = c_int::from(encrypt);
        // SAFETY: the context is live; the cipher description is static; no key or IV yet.
        check(unsafe {
            sys::EVP_CipherInit_ex(
                ctx,
                aead.get(),
                ptr::null_mut(),
                ptr::null(),
                ptr::null(),
                enc,
            )
        })?;
        // SAFETY: the key has the cipher's key length; AWS-LC copies it and, with no IV,
        // waits for one (AES-GCM: key schedule and GHASH table now).
        check(unsafe {
            sys::EVP_CipherInit_ex(
                ctx,
                ptr::null(),
                ptr::null_mut(),
                key.as_ptr(),
                ptr::null(),
                enc,
            )
        })?;
        this.restart(nonce)?;
        Ok(this)
    }

    /// Starts a new message under `nonce` in this keyed context, in its direction: AWS-LC
    /// re-IVs the context and keeps the key schedule and the GHASH table (or ChaCha20 key).
    pub(crate) fn restart(&mut self, nonce: &[u8]) -> Result<(), Failed> {
        if nonce.is_empty() {
            return Err(Failed);
        }
        let ctx = self.ctx.as_ptr();
        let iv_len = c_len(nonce.len())?;
        if iv_len != self.iv_len {
            // Forgotten first: a failed control leaves the length unknown.
            self.iv_len = 0;
            // SAFETY: the context is live and holds an AEAD cipher; the IV-length control
            // takes no data pointer.
            check(unsafe {
                sys::EVP_CIPHER_CTX_ctrl(ctx, sys::EVP_CTRL_AEAD_SET_IVLEN, iv_len, ptr::null_mut())
            })?;
            self.iv_len = iv_len;
        }
        // SAFETY: the context is live and keyed; with no cipher and no key AWS-LC only sets
        // the IV (of the length just set), which it copies.
        check(unsafe {
            sys::EVP_CipherInit_ex(
                ctx,
                ptr::null(),
                ptr::null_mut(),
                ptr::null(),
                nonce.as_ptr(),
                c_int::from(self.encrypt),
            )
        })
    }

    /// Absorbs associated data (an update with no output).
    pub(crate) fn aad(&mut self, aad: &[u8]) -> Result<(), Failed> {
        for piece in aad.chunks(AEAD_STREAM_PIECE) {
            let mut written: c_int = 0;
            // SAFETY: the context is live and keyed; a NULL output makes the AEAD ciphers take
            // the input (valid for its length) as associated data, writing nothing.
            check(unsafe {
                sys::EVP_CipherUpdate(
                    self.ctx.as_ptr(),
                    ptr::null_mut(),
                    &mut written,
                    piece.as_ptr(),
                    c_len(piece.len())?,
                )
            })?;
        }
        Ok(())
    }

    /// Encrypts or decrypts `input` into `output` (the same length).
    pub(crate) fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<(), Failed> {
        if input.len() != output.len() {
            return Err(Failed);
        }
        for (piece, out) in input
            .chunks(AEAD_STREAM_PIECE)
            .zip(output.chunks_mut(AEAD_STREAM_PIECE))
        {
            let mut written: c_int = 0;
            // SAFETY: the context is live and keyed; `piece` and `out` are distinct buffers of
            // the same length, and these ciphers (block size 1) write exactly that many bytes.
            check(unsafe {
                sys::EVP_CipherUpdate(
                    self.ctx.as_ptr(),
                    out.as_mut_ptr(),
                    &mut written,
                    piece.as_ptr(),
                    c_len(piece.len())?,
                )
            })?;
            if usize::try_from(written) != Ok(piece.len()) {
                return Err(Failed);
            }
        }
        Ok(())
    }

    /// Encrypts or decrypts `data` in place (exact overlap, which `EVP_CipherUpdate` allows).
    pub(crate) fn update_in_place(&mut self, data: &mut [u8]) -> Result<(), Failed> {
        for piece in data.chunks_mut(AEAD_STREAM_PIECE) {
            let mut written: c_int = 0;
            let len = c_len(piece.len())?;
            // SAFETY: the context is live and keyed; input and output are the same buffer of
            // `len` bytes, and these ciphers (block size 1) write exactly that many bytes.
            check(unsafe {
                sys::EVP_CipherUpdate(
                    self.ctx.as_ptr(),
                    piece.as_mut_ptr(),
                    &mut written,
                    piece.as_ptr(),
                    len,
                )
            })?;
            if written != len {
                return Err(Failed);
            }
        }
        Ok(())
    }

    /// `EVP_CipherFinal_ex`, which writes nothing for these ciphers (block size 1); when
    /// decrypting it fails if the tag set before does not verify.
    fn final_call(&mut self) -> Result<(), Failed> {
        let mut block = [0u8; 16];
        let mut written: c_int = 0;
        // SAFETY: the context is live and keyed; these AEADs write nothing at final (the
        // buffer has room for a block all the same).
        check(unsafe {
            sys::EVP_CipherFinal_ex(self.ctx.as_ptr(), block.as_mut_ptr(), &mut written)
        })?;
        if written == 0 { Ok(()) } else { Err(Failed) }
    }

    /// Ends an encryption and writes the full 16-byte tag.
    pub(crate) fn finish_encrypt(&mut self, tag: &mut [u8; 16]) -> Result<(), Failed> {
        if !self.encrypt {
            return Err(Failed);
        }
        self.final_call()?;
        // SAFETY: the context is live and finished encrypting; `tag` has room for the 16
        // bytes asked for.
        check(unsafe {
            sys::EVP_CIPHER_CTX_ctrl(
                self.ctx.as_ptr(),
                sys::EVP_CTRL_AEAD_GET_TAG,
                16,
                tag.as_mut_ptr().cast(),
            )
        })
    }

    /// Ends a decryption: AWS-LC checks `tag` (1 to 16 bytes; the caller restricts the
    /// length) against the first bytes of the computed tag with `CRYPTO_memcmp`.
    pub(crate) fn finish_decrypt(&mut self, tag: &[u8]) -> Result<(), Failed> {
        if self.encrypt || tag.is_empty() || tag.len() > 16 {
            return Err(Failed);
        }
        // SAFETY: the context is live and decrypting; the control copies `tag.len()` bytes
        // from `tag` and keeps no pointer.
        check(unsafe {
            sys::EVP_CIPHER_CTX_ctrl(
                self.ctx.as_ptr(),
                sys::EVP_CTRL_AEAD_SET_TAG,
                c_len(tag.len())?,
                tag.as_ptr().cast_mut().cast(),
            )
        })?;
        self.final_call()
    }

    /// A copy of the message in progress (`EVP_CIPHER_CTX_copy`), which goes on independently.
    pub(crate) fn try_clone(&self) -> Result<AeadStreamCtx, Failed> {
        let mut copy = AeadStreamCtx::empty(self.encrypt)?;
        // SAFETY: both contexts are live; the source is keyed and only read; AWS-LC's GCM and
        // ChaCha20-Poly1305 copy their state through their copy controls.
        check(unsafe { sys::EVP_CIPHER_CTX_copy(copy.ctx.as_ptr(), self.ctx.as_ptr()) })?;
        // The copy has the source's IV length.
        copy.iv_len = self.iv_len;
        Ok(copy)
    }
}

impl Drop for AeadStreamCtx {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_CIPHER_CTX_new and is freed once; AWS-LC cleanses
        // the cipher state (key schedule, GHASH or Poly1305 state) before freeing it.
        unsafe { sys::EVP_CIPHER_CTX_free(self.ctx.as_ptr()) }
    }
}

/// The ciphers that `provider/cipher_stream.rs` streams through an `EVP_CIPHER_CTX`: OpenSSL's
/// EVP update/final semantics (buffering, PKCS#7 padding, keystream position) are AWS-LC's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamCipher {
    Aes128Cbc,
    Aes256Cbc,
    Aes128Ctr,
    Aes256Ctr,
    Aes128Cfb8,
    Aes256Cfb8,
    Aes256Xts,
    Rc4,
    DesCbc,
    DesEde3Cbc,
}

impl StreamCipher {
    fn get(self) -> *const sys::EVP_CIPHER {
        // SAFETY: each returns a pointer to a static, immutable cipher description.
        unsafe {
            match self {
                StreamCipher::Aes128Cbc => sys::EVP_aes_128_cbc(),
                StreamCipher::Aes256Cbc => sys::EVP_aes_256_cbc(),
                StreamCipher::Aes128Ctr => sys::EVP_aes_128_ctr(),
                StreamCipher::Aes256Ctr => sys::EVP_aes_256_ctr(),
                StreamCipher::Aes128Cfb8 => sys::EVP_aes_128_cfb8(),
                StreamCipher::Aes256Cfb8 => sys::EVP_aes_256_cfb8(),
                StreamCipher::Aes256Xts => sys::EVP_aes_256_xts(),
                StreamCipher::Rc4 => sys::EVP_rc4(),
                StreamCipher::DesCbc => sys::EVP_des_cbc(),
                StreamCipher::DesEde3Cbc => sys::EVP_des_ede3_cbc(),
            }
        }
    }
}

/// Largest input handed to one `EVP_CipherUpdate` call (its lengths are C ints).
const STREAM_CHUNK: usize = 1 << 30;

/// An owned `EVP_CIPHER_CTX` keyed for one streaming encryption or decryption.
pub(crate) struct StreamCtx {
    ctx: CipherCtx,
    /// `EVP_CIPHER_CTX_block_size`: 16 (AES-CBC), 8 (DES, 3DES) or 1 (CTR, CFB8, XTS, RC4).
    block: usize,
}

// SAFETY: the context is owned exclusively and mutated only through `&mut self`; `&self` only
// reads it (the block size, and EVP_CIPHER_CTX_copy's const source). AWS-LC cipher contexts are
// not tied to a thread.
unsafe impl Send for StreamCtx {}
// SAFETY: see `Send`.
unsafe impl Sync for StreamCtx {}

impl StreamCtx {
    /// Keys `cipher` for one direction. `key` must have the cipher's key length (RC4: 1 to 256
    /// bytes) and `iv` the cipher's IV length (`None` when it takes none); anything else fails
    /// before AWS-LC reads a byte.
    pub(crate) fn new(
        cipher: StreamCipher,
        key: &[u8],
        iv: Option<&[u8]>,
        encrypt: bool,
    ) -> Result<StreamCtx, Failed> {
        let evp = cipher.get();
        // SAFETY: `evp` is a static cipher description; these only read it.
        let (key_len, iv_len) = unsafe {
            (
                sys::EVP_CIPHER_key_length(evp),
                sys::EVP_CIPHER_iv_length(evp),
            )
        };
        let key_ok = if cipher == StreamCipher::Rc4 {
            (1..=256).contains(&key.len())
        } else {
            usize::try_from(key_len).ok() == Some(key.len())
        };
        let iv_ok = match iv {
            Some(iv) => usize::try_from(iv_len).ok() == Some(iv.len()),
            None => iv_len == 0,
        };
        if !key_ok || !iv_ok {
            return Err(Failed);
        }
        let ctx = CipherCtx::new()?;
        // SAFETY: the context is live; the cipher is a static description; no key or IV yet.
        check(unsafe {
            sys::EVP_CipherInit_ex(
                ctx.ptr(),
                evp,
                ptr::null_mut(),
                ptr::null(),
                ptr::null(),
                c_int::from(encrypt),
            )
        })?;
        if cipher == StreamCipher::Rc4 {
            let key_len = c_uint::try_from(key.len()).map_err(|_| Failed)?;
            // SAFETY: the context is live and holds RC4, whose key length is variable.
            check(unsafe { sys::EVP_CIPHER_CTX_set_key_length(ctx.ptr(), key_len) })?;
        }
        ctx.init(None, Some(key), iv, encrypt)?;
        // SAFETY: the context is live and has a cipher.
        let block = unsafe { sys::EVP_CIPHER_CTX_block_size(ctx.ptr()) };
        let block = usize::try_from(block).map_err(|_| Failed)?;
        if !matches!(block, 1 | 8 | 16) {
            return Err(Failed);
        }
        Ok(StreamCtx { ctx, block })
    }

    /// The block size AWS-LC reports (OpenSSL's `EVP_CIPHER_CTX_block_size`).
    pub(crate) fn block_size(&self) -> usize {
        self.block
    }

    /// PKCS#7 padding on or off (AWS-LC ignores it for ciphers of block size 1).
    pub(crate) fn set_padding(&mut self, padding: bool) -> Result<(), Failed> {
        // SAFETY: the context is live; this only sets a flag that Update and Final read.
        check(unsafe { sys::EVP_CIPHER_CTX_set_padding(self.ctx.ptr(), c_int::from(padding)) })
    }

    /// The output room one update needs so that AWS-LC cannot write past it: exactly the
    /// input for block size 1, the input and one block otherwise (AWS-LC writes at most the
    /// input plus one block minus one byte).
    pub(crate) fn update_room(&self, input_len: usize) -> usize {
        if self.block == 1 {
            input_len
        } else {
            input_len.saturating_add(self.block)
        }
    }

    /// `EVP_CipherUpdate`: `output` must hold [`StreamCtx::update_room`] bytes. Returns the
    /// number of bytes written at the start of `output`.
    pub(crate) fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize, Failed> {
        if output.len() < self.update_room(input.len()) {
            return Err(Failed);
        }
        let mut written = 0usize;
        for chunk in input.chunks(STREAM_CHUNK) {
            let room = &mut output[written..];
            // Each call writes at most its input plus one block (less one byte).
            if room.len() < self.update_room(chunk.len()) {
                return Err(Failed);
            }
            let mut out_len: c_int = 0;
            // SAFETY: the context is live and keyed; `chunk` is readable for its length (at
            // most 2^30, a valid C int); `room` is writable for at least what this call can
            // write (checked above) and does not overlap `chunk` (distinct Rust borrows).
            check(unsafe {
                sys::EVP_CipherUpdate(
                    self.ctx.ptr(),
                    room.as_mut_ptr(),
                    &mut out_len,
                    chunk.as_ptr(),
                    c_len(chunk.len())?,
                )
            })?;
            let out_len = usize::try_from(out_len).map_err(|_| Failed)?;
            if out_len > room.len() {
                return Err(Failed);
            }
            written += out_len;
        }
        Ok(written)
    }

    /// `EVP_CipherUpdate` in place (exact overlap, which AWS-LC allows) for a cipher of block
    /// size 1, which writes exactly as many bytes as it takes.
    pub(crate) fn update_in_place(&mut self, data: &mut [u8]) -> Result<(), Failed> {
        if self.block != 1 {
            return Err(Failed);
        }
        for chunk in data.chunks_mut(STREAM_CHUNK) {
            let len = c_len(chunk.len())?;
            let mut out_len: c_int = 0;
            // SAFETY: the context is live and keyed; input and output are the same buffer of
            // `len` bytes, and a cipher of block size 1 writes exactly `len` bytes.
            check(unsafe {
                sys::EVP_CipherUpdate(
                    self.ctx.ptr(),
                    chunk.as_mut_ptr(),
                    &mut out_len,
                    chunk.as_ptr(),
                    len,
                )
            })?;
            if out_len != len {
                return Err(Failed);
            }
        }
        Ok(())
    }

    /// `EVP_CipherFinal_ex` into a block of its own, copied to `output` (which must hold what
    /// was written: at most one block). Returns the number of bytes written.
    pub(crate) fn finish(&mut self, output: &mut [u8]) -> Result<usize, Failed> {
        let mut block = [0u8; 32];
        let mut out_len: c_int = 0;
        // SAFETY: the context is live and keyed; Final writes at most one block (≤ 16 bytes
        // for these ciphers) into the 32-byte buffer.
        let result = check(unsafe {
            sys::EVP_CipherFinal_ex(self.ctx.ptr(), block.as_mut_ptr(), &mut out_len)
        });
        let copied = result.and_then(|()| {
            let out_len = usize::try_from(out_len).map_err(|_| Failed)?;
            let target = output.get_mut(..out_len).ok_or(Failed)?;
            target.copy_from_slice(block.get(..out_len).ok_or(Failed)?);
            Ok(out_len)
        });
        // The last block of plaintext (and its padding) does not outlive the call here.
        zeroize::Zeroize::zeroize(&mut block);
        copied
    }

    /// `EVP_CIPHER_CTX_copy`: an independent context in the same state (key, IV or counter,
    /// buffered bytes, padding).
    pub(crate) fn try_clone(&self) -> Result<StreamCtx, Failed> {
        let copy = CipherCtx::new()?;
        // SAFETY: both contexts are live; the source is keyed and only read.
        check(unsafe { sys::EVP_CIPHER_CTX_copy(copy.ptr(), self.ctx.ptr()) })?;
        Ok(StreamCtx {
            ctx: copy,
            block: self.block,
        })
    }
}

/// An owned `EVP_PKEY`.
struct Pkey(NonNull<sys::EVP_PKEY>);

impl Pkey {
    fn from_raw(pkey: *mut sys::EVP_PKEY) -> Result<Pkey, Failed> {
        match NonNull::new(pkey) {
            Some(pkey) => Ok(Pkey(pkey)),
            None => {
                // SAFETY: clears this thread's AWS-LC error queue; takes no arguments.
                unsafe { sys::ERR_clear_error() };
                Err(Failed)
            }
        }
    }

    fn ptr(&self) -> *mut sys::EVP_PKEY {
        self.0.as_ptr()
    }

    /// A public key from DER SubjectPublicKeyInfo (`d2i_PUBKEY`).
    fn from_spki(der: &[u8]) -> Result<Pkey, Failed> {
        let len = std::os::raw::c_long::try_from(der.len()).map_err(|_| Failed)?;
        let mut input = der.as_ptr();
        // SAFETY: `input` points to `len` readable bytes; AWS-LC advances it past what it read
        // and allocates a fresh key (NULL on error, checked by `from_raw`).
        let pkey = unsafe { sys::d2i_PUBKEY(ptr::null_mut(), &mut input, len) };
        Pkey::from_raw(pkey)
    }

    /// A private key from PKCS#8 DER (`d2i_AutoPrivateKey`).
    fn from_pkcs8(der: &[u8]) -> Result<Pkey, Failed> {
        let len = std::os::raw::c_long::try_from(der.len()).map_err(|_| Failed)?;
        let mut input = der.as_ptr();
        // SAFETY: as for `from_spki`; AWS-LC copies the key material into the new key.
        let pkey = unsafe { sys::d2i_AutoPrivateKey(ptr::null_mut(), &mut input, len) };
        Pkey::from_raw(pkey)
    }

    /// The key's type (`EVP_PKEY_id`) and its maximum signature size (`EVP_PKEY_size`).
    fn id_and_size(&self) -> (c_int, c_int) {
        // SAFETY: the key is live; both only read it.
        unsafe { (sys::EVP_PKEY_id(self.ptr()), sys::EVP_PKEY_size(self.ptr())) }
    }

    /// `EVP_PKEY_get_raw_private_key` into a buffer wiped on drop.
    fn raw_private_key(&self) -> Result<zeroize::Zeroizing<Vec<u8>>, Failed> {
        let mut len = 0usize;
        // SAFETY: the key is live; a NULL output asks for the length only.
        check(unsafe { sys::EVP_PKEY_get_raw_private_key(self.ptr(), ptr::null_mut(), &mut len) })?;
        let mut out = zeroize::Zeroizing::new(vec![0u8; len]);
        // SAFETY: the key is live; `out` has room for the `len` bytes AWS-LC reported.
        check(unsafe {
            sys::EVP_PKEY_get_raw_private_key(self.ptr(), out.as_mut_ptr(), &mut len)
        })?;
        out.truncate(len);
        Ok(out)
    }

    /// `EVP_PKEY_get_raw_public_key`.
    fn raw_public_key(&self) -> Result<Vec<u8>, Failed> {
        let mut len = 0usize;
        // SAFETY: the key is live; a NULL output asks for the length only.
        check(unsafe { sys::EVP_PKEY_get_raw_public_key(self.ptr(), ptr::null_mut(), &mut len) })?;
        let mut out = vec![0u8; len];
        // SAFETY: the key is live; `out` has room for the `len` bytes AWS-LC reported.
        check(unsafe { sys::EVP_PKEY_get_raw_public_key(self.ptr(), out.as_mut_ptr(), &mut len) })?;
        out.truncate(len);
        Ok(out)
    }
}

impl Drop for Pkey {
    fn drop(&mut self) {
        // SAFETY: the key was allocated by AWS-LC and is freed once; AWS-LC cleanses private
        // key material as it frees it.
        unsafe { sys::EVP_PKEY_free(self.ptr()) }
    }
}

/// An owned `EVP_PKEY_CTX`.
struct PkeyCtx(NonNull<sys::EVP_PKEY_CTX>);

impl PkeyCtx {
    fn for_key(pkey: &Pkey) -> Result<PkeyCtx, Failed> {
        // SAFETY: the key is live; the context takes its own reference to it.
        let ctx = unsafe { sys::EVP_PKEY_CTX_new(pkey.ptr(), ptr::null_mut()) };
        NonNull::new(ctx).map(PkeyCtx).ok_or(Failed)
    }

    fn for_type(id: c_int) -> Result<PkeyCtx, Failed> {
        // SAFETY: allocates a context for a key type; NULL on failure, checked below.
        let ctx = unsafe { sys::EVP_PKEY_CTX_new_id(id, ptr::null_mut()) };
        NonNull::new(ctx).map(PkeyCtx).ok_or(Failed)
    }

    fn ptr(&self) -> *mut sys::EVP_PKEY_CTX {
        self.0.as_ptr()
    }
}

impl Drop for PkeyCtx {
    fn drop(&mut self) {
        // SAFETY: the context was allocated by AWS-LC and is freed once.
        unsafe { sys::EVP_PKEY_CTX_free(self.ptr()) }
    }
}

/// The ML-KEM parameter sets, by AWS-LC NID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MlKem {
    MlKem768,
    MlKem1024,
}

impl MlKem {
    fn nid(self) -> c_int {
        match self {
            MlKem::MlKem768 => sys::NID_MLKEM768,
            MlKem::MlKem1024 => sys::NID_MLKEM1024,
        }
    }
}

/// FIPS 203 ML-KEM.KeyGen_internal(d, z) through AWS-LC's `EVP_PKEY_keygen_deterministic`:
/// `seed` is `d ‖ z` (64 bytes, the layout AWS-LC's own key generation draws). Returns the
/// decapsulation key in FIPS 203's encoding (wiped on drop) and the encapsulation key.
pub(crate) fn ml_kem_keygen_from_seed(
    kem: MlKem,
    seed: &[u8; 64],
) -> Result<(zeroize::Zeroizing<Vec<u8>>, Vec<u8>), Failed> {
    let ctx = PkeyCtx::for_type(sys::EVP_PKEY_KEM)?;
    // SAFETY: the context is live and of type KEM.
    check(unsafe { sys::EVP_PKEY_keygen_init(ctx.ptr()) })?;
    // SAFETY: the context is live and has no key; the NID names an ML-KEM parameter set.
    check(unsafe { sys::EVP_PKEY_CTX_kem_set_params(ctx.ptr(), kem.nid()) })?;
    let mut pkey: *mut sys::EVP_PKEY = ptr::null_mut();
    let mut seed_len = seed.len();
    // SAFETY: the context is initialised for key generation; `seed` is readable for
    // `seed_len` bytes (AWS-LC checks it is exactly the parameter set's 64); on success AWS-LC
    // stores a fresh key in `pkey`, which `Pkey` then owns.
    let result = unsafe {
        sys::EVP_PKEY_keygen_deterministic(ctx.ptr(), &mut pkey, seed.as_ptr(), &mut seed_len)
    };
    let pkey = Pkey::from_raw(pkey);
    check(result)?;
    let pkey = pkey?;
    Ok((pkey.raw_private_key()?, pkey.raw_public_key()?))
}

/// FIPS 203 ML-KEM.Encaps_internal(ek, m) through AWS-LC's
/// `EVP_PKEY_encapsulate_deterministic`: `(ciphertext, shared secret)`.
pub(crate) fn ml_kem_encapsulate_with_m(
    kem: MlKem,
    encapsulation_key: &[u8],
    m: &[u8; 32],
) -> Result<(Vec<u8>, zeroize::Zeroizing<Vec<u8>>), Failed> {
    // SAFETY: `encapsulation_key` is readable for its length; AWS-LC copies it into a fresh
    // key (NULL when the length is not the parameter set's, checked by `from_raw`).
    let pkey = Pkey::from_raw(unsafe {
        sys::EVP_PKEY_kem_new_raw_public_key(
            kem.nid(),
            encapsulation_key.as_ptr(),
            encapsulation_key.len(),
        )
    })?;
    let ctx = PkeyCtx::for_key(&pkey)?;
    let (mut ciphertext_len, mut secret_len, mut seed_len) = (0usize, 0usize, 0usize);
    // SAFETY: the context is live and holds a KEM key; NULL outputs ask for the sizes only.
    check(unsafe {
        sys::EVP_PKEY_encapsulate_deterministic(
            ctx.ptr(),
            ptr::null_mut(),
            &mut ciphertext_len,
            ptr::null_mut(),
            &mut secret_len,
            ptr::null(),
            &mut seed_len,
        )
    })?;
    if seed_len != m.len() {
        return Err(Failed);
    }
    let mut ciphertext = vec![0u8; ciphertext_len];
    let mut secret = zeroize::Zeroizing::new(vec![0u8; secret_len]);
    // SAFETY: the context is live; the outputs have the sizes AWS-LC just reported and `m`
    // the seed length it asked for.
    check(unsafe {
        sys::EVP_PKEY_encapsulate_deterministic(
            ctx.ptr(),
            ciphertext.as_mut_ptr(),
            &mut ciphertext_len,
            secret.as_mut_ptr(),
            &mut secret_len,
            m.as_ptr(),
            &mut seed_len,
        )
    })?;
    ciphertext.truncate(ciphertext_len);
    secret.truncate(secret_len);
    Ok((ciphertext, secret))
}

/// The ML-DSA parameter sets' signature sizes (FIPS 204 Table 2), which AWS-LC reports as an
/// ML-DSA key's `EVP_PKEY_size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MlDsa {
    MlDsa44,
    MlDsa65,
    MlDsa87,
}

impl MlDsa {
    fn signature_len(self) -> c_int {
        match self {
            MlDsa::MlDsa44 => 2420,
            MlDsa::MlDsa65 => 3309,
            MlDsa::MlDsa87 => 4627,
        }
    }

    /// Whether `pkey` is an ML-DSA key of this parameter set.
    fn check(self, pkey: &Pkey) -> Result<(), Failed> {
        if pkey.id_and_size() == (sys::EVP_PKEY_PQDSA, self.signature_len()) {
            Ok(())
        } else {
            Err(Failed)
        }
    }
}

/// Why an ML-DSA call with a context string failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MlDsaFailure {
    /// The key does not parse or is not of this parameter set.
    Key,
    /// This AWS-LC build takes no context string for ML-DSA (`EVP_PKEY_CTX_set_signature_context`
    /// refused it).
    ContextUnsupported,
    /// Signing failed, or the signature does not verify.
    Operation,
}

fn set_context(ctx: *mut sys::EVP_PKEY_CTX, context: &[u8]) -> Result<(), MlDsaFailure> {
    if context.is_empty() {
        return Ok(());
    }
    // SAFETY: `ctx` is the live signing or verifying context EVP_DigestSignInit or
    // EVP_DigestVerifyInit returned; AWS-LC copies the context string.
    check(unsafe { sys::EVP_PKEY_CTX_set_signature_context(ctx, context.as_ptr(), context.len()) })
        .map_err(|_| MlDsaFailure::ContextUnsupported)
}

/// An owned `EVP_MD_CTX` for one message signature.
struct MdCtx(NonNull<sys::EVP_MD_CTX>);

impl MdCtx {
    fn new() -> Result<MdCtx, Failed> {
        // SAFETY: allocates a fresh context; NULL on allocation failure, checked below.
        NonNull::new(unsafe { sys::EVP_MD_CTX_new() })
            .map(MdCtx)
            .ok_or(Failed)
    }
}

impl Drop for MdCtx {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_MD_CTX_new and is freed once (with the key
        // context EVP_DigestSignInit attached to it).
        unsafe { sys::EVP_MD_CTX_free(self.0.as_ptr()) }
    }
}

/// FIPS 204 ML-DSA.Sign (hedged, AWS-LC's own randomness) of `message` with the context string
/// `context` (at most 255 bytes), the key given as PKCS#8 DER.
pub(crate) fn ml_dsa_sign_with_context(
    set: MlDsa,
    pkcs8: &[u8],
    message: &[u8],
    context: &[u8],
) -> Result<Vec<u8>, MlDsaFailure> {
    let pkey = Pkey::from_pkcs8(pkcs8).map_err(|_| MlDsaFailure::Key)?;
    set.check(&pkey).map_err(|_| MlDsaFailure::Key)?;
    let md = MdCtx::new().map_err(|_| MlDsaFailure::Operation)?;
    let mut pctx: *mut sys::EVP_PKEY_CTX = ptr::null_mut();
    // SAFETY: both objects are live; ML-DSA takes no digest (NULL); `pctx` receives a context
    // that `md` owns.
    check(unsafe {
        sys::EVP_DigestSignInit(
            md.0.as_ptr(),
            &mut pctx,
            ptr::null(),
            ptr::null_mut(),
            pkey.ptr(),
        )
    })
    .map_err(|_| MlDsaFailure::Operation)?;
    set_context(pctx, context)?;
    let mut signature = vec![0u8; set.signature_len() as usize];
    let mut len = signature.len();
    // SAFETY: `md` is initialised for signing; `signature` has room for the parameter set's
    // signature; `message` is readable for its length.
    check(unsafe {
        sys::EVP_DigestSign(
            md.0.as_ptr(),
            signature.as_mut_ptr(),
            &mut len,
            message.as_ptr(),
            message.len(),
        )
    })
    .map_err(|_| MlDsaFailure::Operation)?;
    signature.truncate(len);
    Ok(signature)
}

/// FIPS 204 ML-DSA.Verify of `signature` over `message` with the context string `context`, the
/// public key given as DER SubjectPublicKeyInfo.
pub(crate) fn ml_dsa_verify_with_context(
    set: MlDsa,
    spki: &[u8],
    message: &[u8],
    context: &[u8],
    signature: &[u8],
) -> Result<(), MlDsaFailure> {
    let pkey = Pkey::from_spki(spki).map_err(|_| MlDsaFailure::Key)?;
    set.check(&pkey).map_err(|_| MlDsaFailure::Key)?;
    let md = MdCtx::new().map_err(|_| MlDsaFailure::Operation)?;
    let mut pctx: *mut sys::EVP_PKEY_CTX = ptr::null_mut();
    // SAFETY: as in `ml_dsa_sign_with_context`, for verification.
    check(unsafe {
        sys::EVP_DigestVerifyInit(
            md.0.as_ptr(),
            &mut pctx,
            ptr::null(),
            ptr::null_mut(),
            pkey.ptr(),
        )
    })
    .map_err(|_| MlDsaFailure::Operation)?;
    set_context(pctx, context)?;
    // SAFETY: `md` is initialised for verification; both buffers are readable for their
    // lengths.
    check(unsafe {
        sys::EVP_DigestVerify(
            md.0.as_ptr(),
            signature.as_ptr(),
            signature.len(),
            message.as_ptr(),
            message.len(),
        )
    })
    .map_err(|_| MlDsaFailure::Operation)
}

/// FIPS 204 ML-DSA verification of `signature` over an external μ (64 bytes, Algorithm 7 line
/// 6's `μ = H(tr ‖ M', 64)`, computed by the caller): AWS-LC's `EVP_PKEY_verify` on an ML-DSA
/// key takes μ as its "digest".
pub(crate) fn ml_dsa_verify_external_mu(
    set: MlDsa,
    spki: &[u8],
    mu: &[u8; 64],
    signature: &[u8],
) -> Result<(), MlDsaFailure> {
    let pkey = Pkey::from_spki(spki).map_err(|_| MlDsaFailure::Key)?;
    set.check(&pkey).map_err(|_| MlDsaFailure::Key)?;
    let ctx = PkeyCtx::for_key(&pkey).map_err(|_| MlDsaFailure::Operation)?;
    // SAFETY: the context is live and holds an ML-DSA public key.
    check(unsafe { sys::EVP_PKEY_verify_init(ctx.ptr()) }).map_err(|_| MlDsaFailure::Operation)?;
    // SAFETY: the context is initialised for verification; both buffers are readable for
    // their lengths.
    check(unsafe {
        sys::EVP_PKEY_verify(
            ctx.ptr(),
            signature.as_ptr(),
            signature.len(),
            mu.as_ptr(),
            mu.len(),
        )
    })
    .map_err(|_| MlDsaFailure::Operation)
}

/// AWS-LC's SP 800-90A CTR_DRBG (AES-256, no derivation function) as a known-answer instance:
/// instantiated from caller-given entropy. Never the module's generator.
pub(crate) struct KnownAnswerCtrDrbgState(NonNull<sys::CTR_DRBG_STATE>);

// SAFETY: the state is owned exclusively and only used through `&mut self`; AWS-LC's DRBG
// state is plain memory not tied to a thread.
unsafe impl Send for KnownAnswerCtrDrbgState {}

/// `CTR_DRBG_ENTROPY_LEN`: the seed length of AES-256 CTR_DRBG without a derivation function.
pub(crate) const CTR_DRBG_SEED_LEN: usize = 48;
/// `CTR_DRBG_MAX_GENERATE_LENGTH`.
pub(crate) const CTR_DRBG_MAX_GENERATE: usize = 65536;

impl KnownAnswerCtrDrbgState {
    /// `CTR_DRBG_new`: `personalization` at most 48 bytes.
    pub(crate) fn new(
        entropy: &[u8; CTR_DRBG_SEED_LEN],
        personalization: &[u8],
    ) -> Result<KnownAnswerCtrDrbgState, Failed> {
        if personalization.len() > CTR_DRBG_SEED_LEN {
            return Err(Failed);
        }
        // SAFETY: `entropy` holds the 48 bytes AWS-LC reads; `personalization` is readable for
        // its length (at most 48, which AWS-LC also checks). NULL on failure, checked below.
        let state = unsafe {
            sys::CTR_DRBG_new(
                entropy.as_ptr(),
                personalization.as_ptr(),
                personalization.len(),
            )
        };
        NonNull::new(state)
            .map(KnownAnswerCtrDrbgState)
            .ok_or(Failed)
    }

    /// `CTR_DRBG_reseed`: `additional_input` at most 48 bytes.
    pub(crate) fn reseed(
        &mut self,
        entropy: &[u8; CTR_DRBG_SEED_LEN],
        additional_input: &[u8],
    ) -> Result<(), Failed> {
        if additional_input.len() > CTR_DRBG_SEED_LEN {
            return Err(Failed);
        }
        // SAFETY: the state is live; `entropy` holds 48 bytes and `additional_input` is
        // readable for its length (at most 48); the two are distinct buffers.
        check(unsafe {
            sys::CTR_DRBG_reseed(
                self.0.as_ptr(),
                entropy.as_ptr(),
                additional_input.as_ptr(),
                additional_input.len(),
            )
        })
    }

    /// `CTR_DRBG_generate`: `output` at most 65536 bytes, `additional_input` at most 48.
    pub(crate) fn generate(
        &mut self,
        output: &mut [u8],
        additional_input: &[u8],
    ) -> Result<(), Failed> {
        if output.len() > CTR_DRBG_MAX_GENERATE || additional_input.len() > CTR_DRBG_SEED_LEN {
            return Err(Failed);
        }
        // SAFETY: the state is live; `output` is writable and `additional_input` readable for
        // their lengths, within AWS-LC's limits checked above.
        check(unsafe {
            sys::CTR_DRBG_generate(
                self.0.as_ptr(),
                output.as_mut_ptr(),
                output.len(),
                additional_input.as_ptr(),
                additional_input.len(),
            )
        })
    }
}

impl Drop for KnownAnswerCtrDrbgState {
    fn drop(&mut self) {
        // SAFETY: the state came from CTR_DRBG_new and is cleared and freed once;
        // CTR_DRBG_clear cleanses the key and counter (OPENSSL_free cleanses again).
        unsafe {
            sys::CTR_DRBG_clear(self.0.as_ptr());
            sys::CTR_DRBG_free(self.0.as_ptr());
        }
    }
}
