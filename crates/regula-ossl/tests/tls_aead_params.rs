//! The remaining TLS parameters of the provider's AEADs, driven through libcrypto's EVP API
//! with the legacy controls libssl and other programs use, and compared with OpenSSL's
//! default provider in the same process:
//!
//! - AES-CCM's TLS 1.2 record form (RFC 6655: `EVP_CTRL_AEAD_SET_IVLEN` 12, the tag length,
//!   `EVP_CTRL_CCM_SET_IV_FIXED` before the key, then `EVP_CTRL_AEAD_TLS1_AAD` and one
//!   `EVP_Cipher`/`EVP_CipherUpdate` per record), with the 16-byte and the 8-byte (CCM_8) tag.
//!   Regula's explicit nonce is the module's count, OpenSSL's the sequence number: each record
//!   of Regula's is compared byte for byte with the default provider's plain CCM under
//!   `fixed ‖ explicit` and the TLS AAD, and each side opens the other's records.
//! - GCM's invocation-field IVs (`EVP_CTRL_GCM_IV_GEN`, `EVP_CTRL_GCM_SET_IV_INV`): messages
//!   Regula encrypts under the IVs it generates are the default provider's under the same IV,
//!   and each side opens the other's.
//!
//! The libcrypto is `REGULA_TEST_LIBCRYPTO` (OpenSSL 3.5's in scripts/test-ossl-provider) or
//! the system's `libcrypto.so.3`.

use std::ffi::{CString, c_int, c_void};
use std::sync::OnceLock;

use regula_ossl::ffi::{PARAM_INTEGER, Param};

mod common;

use common::Ptr;
use common::ciphers::{Ciphers, Peer};

// openssl/evp.h
const EVP_CTRL_AEAD_SET_IVLEN: c_int = 0x9;
const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;
const EVP_CTRL_AEAD_SET_IV_FIXED: c_int = 0x12;
const EVP_CTRL_GCM_IV_GEN: c_int = 0x13;
const EVP_CTRL_AEAD_TLS1_AAD: c_int = 0x16;
const EVP_CTRL_GCM_SET_IV_INV: c_int = 0x18;

type Crypto = Ciphers;

fn crypto() -> &'static Crypto {
    static CRYPTO: OnceLock<Crypto> = OnceLock::new();
    CRYPTO.get_or_init(|| {
        Ciphers::load(
            &std::env::var("REGULA_TEST_LIBCRYPTO").unwrap_or("libcrypto.so.3".into()),
            "tls-aead-params",
        )
    })
}

fn take_error() -> String {
    crypto().take_error()
}

/// An `EVP_CIPHER_CTX` and the cipher it was made from.
struct Ctx {
    ctx: Ptr,
    peer: Peer,
}

impl Ctx {
    /// A context for `name` from `peer` in `libctx`, started (no key yet) in one direction;
    /// `None` when the provider does not offer the cipher.
    fn new(libctx: Ptr, peer: Peer, name: &str, encrypt: bool) -> Option<Ctx> {
        let c = crypto();
        let properties = peer.properties();
        let cname = CString::new(name).unwrap();
        // SAFETY: libcrypto calls with valid arguments; the context keeps its own reference to
        // the cipher.
        unsafe {
            let cipher = (c.fetch)(libctx, cname.as_ptr(), properties.as_ptr());
            if cipher.is_null() {
                take_error();
                return None;
            }
            let ctx = (c.ctx_new)();
            assert!(!ctx.is_null());
            let ok = (c.init)(
                ctx,
                cipher,
                std::ptr::null(),
                std::ptr::null(),
                c_int::from(encrypt),
                std::ptr::null(),
            );
            (c.cipher_free)(cipher);
            assert_eq!(ok, 1, "{peer:?} {name}: init: {}", take_error());
            Some(Ctx { ctx, peer })
        }
    }

    fn ctrl(&self, op: c_int, arg: c_int, ptr: *mut c_void) -> c_int {
        // SAFETY: a live context; `ptr` is what the control expects (the caller's buffer).
        unsafe { (crypto().ctrl)(self.ctx, op, arg, ptr) }
    }

    fn ok_ctrl(&self, what: &str, op: c_int, arg: c_int, ptr: *mut c_void) {
        let peer = self.peer;
        assert!(
            self.ctrl(op, arg, ptr) > 0,
            "{peer:?} {what}: {}",
            take_error()
        );
    }

    /// `EVP_CipherInit_ex2` with a key and/or IV, keeping the direction.
    fn key(&self, key: Option<&[u8]>, iv: Option<&[u8]>) {
        let c = crypto();
        // SAFETY: a live context; the key and IV outlive the call.
        let ok = unsafe {
            (c.init)(
                self.ctx,
                std::ptr::null_mut(),
                key.map_or(std::ptr::null(), <[u8]>::as_ptr),
                iv.map_or(std::ptr::null(), <[u8]>::as_ptr),
                -1,
                std::ptr::null(),
            )
        };
        assert_eq!(ok, 1, "{:?}: key: {}", self.peer, take_error());
    }

    fn update(&self, out: *mut u8, input: &[u8]) -> Result<usize, String> {
        let mut outl: c_int = -1;
        // SAFETY: a live context; `out` is null (AAD) or holds `input.len()` bytes.
        let ok = unsafe {
            (crypto().update)(
                self.ctx,
                out,
                &mut outl,
                input.as_ptr(),
                input.len() as c_int,
            )
        };
        if ok == 1 {
            Ok(outl as usize)
        } else {
            Err(take_error())
        }
    }

    fn finalize(&self) -> Result<(), String> {
        let mut out = [0u8; 32];
        let mut outl: c_int = 0;
        // SAFETY: a live context and a buffer larger than any final output of an AEAD (none).
        let ok = unsafe { (crypto().finalize)(self.ctx, out.as_mut_ptr(), &mut outl) };
        if ok == 1 { Ok(()) } else { Err(take_error()) }
    }

    /// The context's `regula-approved` indicator for its last operation.
    fn approved(&self) -> i32 {
        let mut value: i32 = -1;
        let mut params = [
            Param {
                key: c"regula-approved".as_ptr(),
                data_type: PARAM_INTEGER,
                data: (&mut value as *mut i32).cast(),
                data_size: 4,
                return_size: 0,
            },
            Param {
                key: std::ptr::null(),
                data_type: 0,
                data: std::ptr::null_mut(),
                data_size: 0,
                return_size: 0,
            },
        ];
        // SAFETY: a live context; the entry points at `value`.
        let ok = unsafe { (crypto().get_params)(self.ctx, params.as_mut_ptr()) };
        assert_eq!(ok, 1);
        value
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: made by EVP_CIPHER_CTX_new, freed once.
        unsafe { (crypto().ctx_free)(self.ctx) }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Pseudo-random bytes from the test's own generator (SplitMix64, independent of the code
/// under test), seeded from the clock or `REGULA_TEST_SEED`; the seed is printed so that a
/// failure can be replayed.
fn random(len: usize) -> Vec<u8> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STATE: OnceLock<AtomicU64> = OnceLock::new();
    let state = STATE.get_or_init(|| {
        let seed = std::env::var("REGULA_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        eprintln!("REGULA_TEST_SEED={seed}");
        AtomicU64::new(seed)
    });
    let mut bytes = Vec::with_capacity(len + 8);
    while bytes.len() < len {
        let mut z = state
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
            .wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        bytes.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

/// TLS 1.2's additional data for an application-data record of `len` bytes.
fn tls_aad(seq: u64, len: usize) -> [u8; 13] {
    let mut aad = [0u8; 13];
    aad[..8].copy_from_slice(&seq.to_be_bytes());
    aad[8] = 23;
    aad[9..11].copy_from_slice(&[3, 3]);
    aad[11..].copy_from_slice(&(len as u16).to_be_bytes());
    aad
}

/// A CCM context keyed for TLS records in one direction, set up in libssl's order (IV length,
/// tag length, fixed IV, then the key).
fn ccm_records(
    libctx: Ptr,
    peer: Peer,
    name: &str,
    key: &[u8],
    fixed: &[u8; 4],
    tag_len: usize,
    encrypt: bool,
) -> Option<Ctx> {
    let ctx = Ctx::new(libctx, peer, name, encrypt)?;
    ctx.ok_ctrl("ivlen", EVP_CTRL_AEAD_SET_IVLEN, 12, std::ptr::null_mut());
    ctx.ok_ctrl(
        "tag length",
        EVP_CTRL_AEAD_SET_TAG,
        tag_len as c_int,
        std::ptr::null_mut(),
    );
    ctx.ok_ctrl(
        "tlsivfixed",
        EVP_CTRL_AEAD_SET_IV_FIXED,
        4,
        fixed.as_ptr() as *mut c_void,
    );
    ctx.key(Some(key), None);
    Some(ctx)
}

/// One TLS record through `ctx`: `tlsaad` (whose answer must be the tag length), then one
/// `EVP_Cipher` or `EVP_CipherUpdate` in place. Encrypting, `data` is the plaintext (the record
/// is returned); decrypting, the record (the plaintext is returned). On failure, the error and
/// what the buffer holds.
fn ccm_record(
    ctx: &Ctx,
    encrypt: bool,
    tag_len: usize,
    seq: u64,
    data: &[u8],
    by_update: bool,
) -> Result<Vec<u8>, (String, Vec<u8>)> {
    let (mut buffer, announced) = if encrypt {
        let mut buffer = vec![0u8; 8];
        buffer.extend_from_slice(data);
        buffer.extend(std::iter::repeat_n(0u8, tag_len));
        (buffer, 8 + data.len())
    } else {
        (data.to_vec(), data.len())
    };
    let mut aad = tls_aad(seq, announced);
    let pad = ctx.ctrl(EVP_CTRL_AEAD_TLS1_AAD, 13, aad.as_mut_ptr().cast());
    if pad != tag_len as c_int {
        return Err((format!("tlsaadpad {pad}: {}", take_error()), buffer));
    }
    let len = buffer.len();
    let written = if by_update {
        let ptr = buffer.as_mut_ptr();
        // SAFETY: in place, as libssl does: the same buffer as input and output.
        let input = unsafe { std::slice::from_raw_parts(ptr, len) };
        match ctx.update(ptr, input) {
            Ok(n) => n as c_int,
            Err(error) => return Err((error, buffer)),
        }
    } else {
        // SAFETY: a live context; the record in place.
        unsafe { (crypto().cipher)(ctx.ctx, buffer.as_mut_ptr(), buffer.as_ptr(), len as u32) }
    };
    if written < 0 {
        return Err((take_error(), buffer));
    }
    let payload = len - 8 - if encrypt { 0 } else { tag_len };
    if encrypt {
        assert_eq!(
            written as usize, len,
            "an encrypted record reports its length"
        );
        Ok(buffer)
    } else {
        // OpenSSL's EVP_Cipher over a CCM record reports the record's length, its
        // EVP_CipherUpdate the payload's.
        let reported = if by_update { payload } else { len };
        assert_eq!(written as usize, reported, "decryption's reported length");
        Ok(buffer[8..8 + payload].to_vec())
    }
}

/// The default provider's plain CCM (no TLS form): `ciphertext ‖ tag` of `plaintext` under
/// `nonce` and `aad`.
fn default_ccm_seal(
    name: &str,
    key: &[u8],
    tag_len: usize,
    nonce: &[u8],
    aad: &[u8],
    plaintext: &[u8],
) -> Vec<u8> {
    plain_ccm_seal(Peer::Default, name, key, tag_len, nonce, aad, plaintext)
}

/// `peer`'s plain CCM (OpenSSL's length, AAD, data, final, tag sequence).
fn plain_ccm_seal(
    peer: Peer,
    name: &str,
    key: &[u8],
    tag_len: usize,
    nonce: &[u8],
    aad: &[u8],
    plaintext: &[u8],
) -> Vec<u8> {
    let ctx = Ctx::new(crypto().libctx as Ptr, peer, name, true).unwrap();
    ctx.ok_ctrl(
        "ivlen",
        EVP_CTRL_AEAD_SET_IVLEN,
        nonce.len() as c_int,
        std::ptr::null_mut(),
    );
    ctx.ok_ctrl(
        "tag length",
        EVP_CTRL_AEAD_SET_TAG,
        tag_len as c_int,
        std::ptr::null_mut(),
    );
    ctx.key(Some(key), Some(nonce));
    let c = crypto();
    let mut outl: c_int = 0;
    // SAFETY: CCM's length announcement: no input or output, the length as `inl`.
    let ok = unsafe {
        (c.update)(
            ctx.ctx,
            std::ptr::null_mut(),
            &mut outl,
            std::ptr::null(),
            plaintext.len() as c_int,
        )
    };
    assert_eq!(ok, 1, "{}", take_error());
    ctx.update(std::ptr::null_mut(), aad).unwrap();
    let mut out = vec![0u8; plaintext.len() + tag_len];
    ctx.update(out.as_mut_ptr(), plaintext).unwrap();
    ctx.finalize().unwrap();
    ctx.ok_ctrl(
        "tag",
        EVP_CTRL_AEAD_GET_TAG,
        tag_len as c_int,
        out[plaintext.len()..].as_mut_ptr().cast(),
    );
    out
}

/// Both directions between the providers for one CCM cipher and tag length, in random records
/// of several lengths, through `EVP_Cipher` (libssl 3.0) and `EVP_CipherUpdate` (3.2+).
fn check_ccm(name: &str, key_len: usize, tag_len: usize) {
    let libctx = crypto().libctx as Ptr;
    let key = random(key_len);
    let fixed: [u8; 4] = random(4).try_into().unwrap();
    let Some(probe) = Ctx::new(libctx, Peer::Default, name, true) else {
        panic!("OpenSSL's default provider offers {name}");
    };
    drop(probe);
    for by_update in [false, true] {
        let records = |peer, encrypt| {
            ccm_records(libctx, peer, name, &key, &fixed, tag_len, encrypt)
                .unwrap_or_else(|| panic!("{peer:?} offers {name}"))
        };
        let regula_out = records(Peer::Regula, true);
        let regula_in = records(Peer::Regula, false);
        let default_out = records(Peer::Default, true);
        let default_in = records(Peer::Default, false);
        let mut previous: Option<u64> = None;
        let first_seq = u64::from_be_bytes(random(8).try_into().unwrap()) >> 1;
        for (i, len) in [0usize, 1, 15, 16, 17, 255, 1024, 16384]
            .into_iter()
            .enumerate()
        {
            let seq = first_seq + i as u64;
            let plaintext = random(len);
            // Regula seals: OpenSSL's plain CCM gives the same bytes under Regula's nonce, and
            // OpenSSL's TLS form opens it.
            let record = ccm_record(&regula_out, true, tag_len, seq, &plaintext, by_update)
                .unwrap_or_else(|(e, _)| panic!("{name}/{tag_len}: Regula seals: {e}"));
            assert_eq!(
                regula_out.approved(),
                1,
                "{name}: sealed approved (default policy)"
            );
            assert_eq!(record.len(), 8 + len + tag_len);
            let explicit: [u8; 8] = record[..8].try_into().unwrap();
            let count = u64::from_be_bytes(explicit);
            if let Some(previous) = previous {
                assert_eq!(count, previous.wrapping_add(1), "{name}: the module counts");
            }
            previous = Some(count);
            let nonce = [&fixed[..], &explicit[..]].concat();
            let expected =
                default_ccm_seal(name, &key, tag_len, &nonce, &tls_aad(seq, len), &plaintext);
            assert_eq!(
                hex(&record[8..]),
                hex(&expected),
                "{name}/{tag_len}: record {i}, {len} bytes"
            );
            assert_eq!(
                ccm_record(&default_in, false, tag_len, seq, &record, by_update)
                    .unwrap_or_else(|(e, _)| panic!("{name}: OpenSSL opens Regula's record: {e}")),
                plaintext
            );

            // OpenSSL seals (its explicit nonce is the sequence number); Regula opens.
            let theirs =
                ccm_record(&default_out, true, tag_len, seq, &plaintext, by_update).unwrap();
            assert_eq!(&theirs[..8], &seq.to_be_bytes()[..]);
            assert_eq!(
                ccm_record(&regula_in, false, tag_len, seq, &theirs, by_update)
                    .unwrap_or_else(|(e, _)| panic!("{name}: Regula opens OpenSSL's record: {e}")),
                plaintext
            );
            assert_eq!(
                regula_in.approved(),
                1,
                "{name}: opened approved (default policy)"
            );

            // A flipped tag byte or a wrong sequence number: refused, nothing released.
            let mut tampered = theirs.clone();
            *tampered.last_mut().unwrap() ^= 0x01;
            let (error, left) =
                ccm_record(&regula_in, false, tag_len, seq, &tampered, by_update).unwrap_err();
            assert!(
                left[8..8 + len].iter().all(|&b| b == 0),
                "{name}: plaintext left in the buffer on a bad tag ({error})"
            );
            let (_, left) =
                ccm_record(&regula_in, false, tag_len, seq + 1, &theirs, by_update).unwrap_err();
            assert!(left[8..8 + len].iter().all(|&b| b == 0));
        }
    }
}

#[test]
fn aes_128_ccm_records_match_openssl() {
    check_ccm("AES-128-CCM", 16, 16);
}

#[test]
fn aes_128_ccm_8_records_match_openssl() {
    check_ccm("AES-128-CCM", 16, 8);
}

#[test]
fn aes_256_ccm_records_match_openssl() {
    check_ccm("AES-256-CCM", 32, 16);
}

#[test]
fn aes_256_ccm_8_records_match_openssl() {
    check_ccm("AES-256-CCM", 32, 8);
}

/// A context set up again with the same key and fixed IV (as libssl does for CCM: fixed IV,
/// then the key) goes on counting: its next explicit nonce is the one after the last, not a new
/// random start that could meet the old count; a new key starts afresh.
#[test]
fn the_same_key_keeps_counting() {
    let libctx = crypto().libctx as Ptr;
    let key = random(16);
    let fixed = [4u8, 3, 2, 1];
    let ctx = ccm_records(libctx, Peer::Regula, "AES-128-CCM", &key, &fixed, 8, true).unwrap();
    let first = ccm_record(&ctx, true, 8, 1, b"one", false).unwrap();
    ctx.ok_ctrl(
        "tlsivfixed",
        EVP_CTRL_AEAD_SET_IV_FIXED,
        4,
        fixed.as_ptr() as *mut c_void,
    );
    ctx.key(Some(&key), None);
    let second = ccm_record(&ctx, true, 8, 2, b"two", false).unwrap();
    let count = |record: &[u8]| u64::from_be_bytes(record[..8].try_into().unwrap());
    assert_eq!(count(&second), count(&first).wrapping_add(1));
    let other_key = random(16);
    ctx.key(Some(&other_key), None);
    let third = ccm_record(&ctx, true, 8, 3, b"three", false).unwrap();
    let nonce = [&fixed[..], &third[..8]].concat();
    let expected = default_ccm_seal(
        "AES-128-CCM",
        &other_key,
        8,
        &nonce,
        &tls_aad(3, 5),
        b"three",
    );
    assert_eq!(hex(&third[8..]), hex(&expected), "sealed under the new key");
}

/// SM4-CCM's TLS form (no TLS 1.2 suite uses it, and OpenSSL's default provider has no SM4-CCM
/// to compare with): each record Regula seals is the provider's plain SM4-CCM (checked against
/// RFC 8998 and Tongsuo in regula-sm's tests) under `fixed ‖ explicit` and the TLS AAD; a record
/// built with the plain SM4-CCM under the sequence number as explicit nonce (as OpenSSL's CCM
/// sends) opens; a flipped tag byte is refused with the buffer wiped.
#[test]
fn sm4_ccm_records_match_plain_sm4_ccm() {
    let libctx = crypto().libctx as Ptr;
    let name = "SM4-CCM";
    let key = random(16);
    let fixed: [u8; 4] = random(4).try_into().unwrap();
    let sealer = ccm_records(libctx, Peer::Regula, name, &key, &fixed, 16, true).unwrap();
    let opener = ccm_records(libctx, Peer::Regula, name, &key, &fixed, 16, false).unwrap();
    for (seq, len) in [(5u64, 0usize), (6, 1), (7, 100), (8, 4000)] {
        let plaintext = random(len);
        let record = ccm_record(&sealer, true, 16, seq, &plaintext, false).unwrap();
        let nonce = [&fixed[..], &record[..8]].concat();
        let expected = plain_ccm_seal(
            Peer::Regula,
            name,
            &key,
            16,
            &nonce,
            &tls_aad(seq, len),
            &plaintext,
        );
        assert_eq!(hex(&record[8..]), hex(&expected), "{name}: {len} bytes");
        let nonce = [&fixed[..], &seq.to_be_bytes()[..]].concat();
        let mut theirs = seq.to_be_bytes().to_vec();
        theirs.extend(plain_ccm_seal(
            Peer::Regula,
            name,
            &key,
            16,
            &nonce,
            &tls_aad(seq, len),
            &plaintext,
        ));
        assert_eq!(
            ccm_record(&opener, false, 16, seq, &theirs, true).unwrap(),
            plaintext
        );
        *theirs.last_mut().unwrap() ^= 0x40;
        let (_, left) = ccm_record(&opener, false, 16, seq, &theirs, true).unwrap_err();
        assert!(left[8..8 + len].iter().all(|&b| b == 0));
    }
}

/// A CCM record must be set up in full: a record announced shorter than its explicit nonce, a
/// record whose length disagrees with the AAD, a fixed IV of the wrong size, and a tag length
/// other than the RFC's are refused.
#[test]
fn malformed_ccm_records_are_refused() {
    let libctx = crypto().libctx as Ptr;
    let key = [7u8; 16];
    let sealer = ccm_records(
        libctx,
        Peer::Regula,
        "AES-128-CCM",
        &key,
        &[1, 2, 3, 4],
        16,
        true,
    )
    .unwrap();
    let mut aad = tls_aad(0, 7);
    assert!(sealer.ctrl(EVP_CTRL_AEAD_TLS1_AAD, 13, aad.as_mut_ptr().cast()) <= 0);
    let error = take_error();
    assert!(error.contains("invalid input"), "{error}");
    let mut aad = tls_aad(0, 40);
    assert_eq!(
        sealer.ctrl(EVP_CTRL_AEAD_TLS1_AAD, 13, aad.as_mut_ptr().cast()),
        16
    );
    let mut buffer = [0u8; 8 + 10 + 16];
    // SAFETY: a live context and a buffer that outlives the call.
    let written =
        unsafe { (crypto().cipher)(sealer.ctx, buffer.as_mut_ptr(), buffer.as_ptr(), 34) };
    assert!(written <= 0, "a 34-byte record announced as 48 is refused");
    take_error();

    let ctx = Ctx::new(libctx, Peer::Regula, "AES-128-CCM", true).unwrap();
    assert!(
        ctx.ctrl(
            EVP_CTRL_AEAD_SET_IV_FIXED,
            3,
            [1u8, 2, 3].as_ptr() as *mut c_void
        ) <= 0
    );
    take_error();
    // A 12-byte tag is CCM's, but no TLS suite's: the record sealer refuses it.
    let twelve = ccm_records(
        libctx,
        Peer::Regula,
        "AES-128-CCM",
        &key,
        &[1, 2, 3, 4],
        12,
        true,
    )
    .unwrap();
    let result = ccm_record(&twelve, true, 12, 0, b"data", false);
    assert!(result.is_err(), "a 12-byte CCM tag is not a TLS record's");
}

/// Under fips-140-3, AES-CCM is not an approved service of this module (see the registry's
/// reason): the provider does not offer it there, so no TLS CCM record is served as approved
/// (libssl then leaves the CCM suites out, or takes them from another provider).
#[test]
fn fips_does_not_offer_ccm_records() {
    let c = crypto();
    let fips = common::libctx_with_policy(c.library, &c.dir, "fips-140-3");
    assert!(Ctx::new(fips, Peer::Regula, "AES-128-CCM", true).is_none());
    assert!(Ctx::new(fips, Peer::Regula, "AES-256-CCM", true).is_none());
    assert!(Ctx::new(fips, Peer::Regula, "AES-256-GCM", true).is_some());
}

// GCM: EVP_CTRL_GCM_IV_GEN and EVP_CTRL_GCM_SET_IV_INV.

/// A GCM context keyed, with the 4-byte fixed field set (encrypting: the invocation field is
/// the provider's).
fn gcm_ivgen_ctx(
    libctx: Ptr,
    peer: Peer,
    name: &str,
    key: &[u8],
    fixed: &[u8; 4],
    encrypt: bool,
) -> Ctx {
    let ctx = Ctx::new(libctx, peer, name, encrypt).unwrap();
    ctx.key(Some(key), None);
    ctx.ok_ctrl(
        "tlsivfixed",
        EVP_CTRL_AEAD_SET_IV_FIXED,
        4,
        fixed.as_ptr() as *mut c_void,
    );
    ctx
}

/// One message encrypted under the next generated IV: returns the invocation field (8 bytes),
/// the ciphertext and the tag.
fn seal_with_ivgen(ctx: &Ctx, aad: &[u8], plaintext: &[u8]) -> ([u8; 8], Vec<u8>, [u8; 16]) {
    let mut invocation = [0u8; 8];
    ctx.ok_ctrl(
        "tlsivgen",
        EVP_CTRL_GCM_IV_GEN,
        8,
        invocation.as_mut_ptr().cast(),
    );
    ctx.update(std::ptr::null_mut(), aad).unwrap();
    let mut out = vec![0u8; plaintext.len()];
    if !plaintext.is_empty() {
        // Two pieces, as a stream.
        let half = plaintext.len() / 2;
        let n = ctx.update(out.as_mut_ptr(), &plaintext[..half]).unwrap();
        let m = ctx
            .update(out[n..].as_mut_ptr(), &plaintext[half..])
            .unwrap();
        assert_eq!(n + m, plaintext.len());
    }
    ctx.finalize().unwrap();
    let mut tag = [0u8; 16];
    ctx.ok_ctrl("tag", EVP_CTRL_AEAD_GET_TAG, 16, tag.as_mut_ptr().cast());
    (invocation, out, tag)
}

/// One message opened under `fixed ‖ invocation` given by `tlsivinv`.
fn open_with_ivinv(
    ctx: &Ctx,
    invocation: &[u8; 8],
    aad: &[u8],
    ciphertext: &[u8],
    tag: &[u8; 16],
) -> Result<Vec<u8>, String> {
    ctx.ok_ctrl(
        "tlsivinv",
        EVP_CTRL_GCM_SET_IV_INV,
        8,
        invocation.as_ptr() as *mut c_void,
    );
    ctx.update(std::ptr::null_mut(), aad)?;
    let mut out = vec![0u8; ciphertext.len()];
    if !ciphertext.is_empty() {
        ctx.update(out.as_mut_ptr(), ciphertext)?;
    }
    ctx.ok_ctrl(
        "tag",
        EVP_CTRL_AEAD_SET_TAG,
        16,
        tag.as_ptr() as *mut c_void,
    );
    ctx.finalize()?;
    Ok(out)
}

/// The default provider's plain GCM under a whole IV.
fn default_gcm_seal(
    name: &str,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    plaintext: &[u8],
) -> (Vec<u8>, [u8; 16]) {
    let ctx = Ctx::new(crypto().libctx as Ptr, Peer::Default, name, true).unwrap();
    ctx.key(Some(key), Some(iv));
    ctx.update(std::ptr::null_mut(), aad).unwrap();
    let mut out = vec![0u8; plaintext.len()];
    if !plaintext.is_empty() {
        ctx.update(out.as_mut_ptr(), plaintext).unwrap();
    }
    ctx.finalize().unwrap();
    let mut tag = [0u8; 16];
    ctx.ok_ctrl("tag", EVP_CTRL_AEAD_GET_TAG, 16, tag.as_mut_ptr().cast());
    (out, tag)
}

fn check_gcm_ivgen(name: &str, key_len: usize) {
    let libctx = crypto().libctx as Ptr;
    let key = random(key_len);
    let fixed: [u8; 4] = random(4).try_into().unwrap();
    let regula_out = gcm_ivgen_ctx(libctx, Peer::Regula, name, &key, &fixed, true);
    let regula_in = gcm_ivgen_ctx(libctx, Peer::Regula, name, &key, &fixed, false);
    let default_out = gcm_ivgen_ctx(libctx, Peer::Default, name, &key, &fixed, true);
    let default_in = gcm_ivgen_ctx(libctx, Peer::Default, name, &key, &fixed, false);
    let mut previous: Option<u64> = None;
    for len in [0usize, 1, 16, 33, 1000, 4096] {
        let aad = random(len % 29);
        let plaintext = random(len);
        let (invocation, ciphertext, tag) = seal_with_ivgen(&regula_out, &aad, &plaintext);
        assert_eq!(
            regula_out.approved(),
            1,
            "{name}: approved (default policy)"
        );
        let count = u64::from_be_bytes(invocation);
        if let Some(previous) = previous {
            assert_eq!(
                count,
                previous.wrapping_add(1),
                "{name}: the invocation field counts"
            );
        }
        previous = Some(count);
        let iv = [&fixed[..], &invocation[..]].concat();
        let (expected, expected_tag) = default_gcm_seal(name, &key, &iv, &aad, &plaintext);
        assert_eq!(hex(&ciphertext), hex(&expected), "{name}: {len} bytes");
        assert_eq!(tag, expected_tag, "{name}: tag, {len} bytes");
        assert_eq!(
            open_with_ivinv(&default_in, &invocation, &aad, &ciphertext, &tag).unwrap(),
            plaintext,
            "{name}: OpenSSL opens Regula's message with tlsivinv"
        );

        let (theirs, their_ciphertext, their_tag) = seal_with_ivgen(&default_out, &aad, &plaintext);
        assert_eq!(
            open_with_ivinv(&regula_in, &theirs, &aad, &their_ciphertext, &their_tag).unwrap(),
            plaintext,
            "{name}: Regula opens OpenSSL's message with tlsivinv"
        );
        let mut bad_tag = their_tag;
        bad_tag[0] ^= 0x80;
        assert!(open_with_ivinv(&regula_in, &theirs, &aad, &their_ciphertext, &bad_tag).is_err());
        let mut other = theirs;
        other[7] ^= 1;
        assert!(
            open_with_ivinv(&regula_in, &other, &aad, &their_ciphertext, &their_tag).is_err(),
            "{name}: another invocation field does not open the message"
        );
    }
}

#[test]
fn aes_128_gcm_ivgen_matches_openssl() {
    check_gcm_ivgen("AES-128-GCM", 16);
}

#[test]
fn aes_256_gcm_ivgen_matches_openssl() {
    check_gcm_ivgen("AES-256-GCM", 32);
}

/// `tlsivgen` needs `tlsivfixed` and an encrypting context; `tlsivinv` a decrypting one.
#[test]
fn ivgen_and_ivinv_out_of_order_are_refused() {
    let libctx = crypto().libctx as Ptr;
    let key = [3u8; 16];
    let bare = Ctx::new(libctx, Peer::Regula, "AES-128-GCM", true).unwrap();
    bare.key(Some(&key), None);
    let mut out = [0u8; 8];
    assert!(bare.ctrl(EVP_CTRL_GCM_IV_GEN, 8, out.as_mut_ptr().cast()) <= 0);
    let error = take_error();
    assert!(
        error.contains("tlsivfixed") || error.contains("out of order"),
        "{error}"
    );
    let sealer = gcm_ivgen_ctx(
        libctx,
        Peer::Regula,
        "AES-128-GCM",
        &key,
        &[1, 2, 3, 4],
        true,
    );
    assert!(sealer.ctrl(EVP_CTRL_GCM_SET_IV_INV, 8, out.as_mut_ptr().cast()) <= 0);
    take_error();
    let opener = gcm_ivgen_ctx(
        libctx,
        Peer::Regula,
        "AES-128-GCM",
        &key,
        &[1, 2, 3, 4],
        false,
    );
    assert!(opener.ctrl(EVP_CTRL_GCM_IV_GEN, 8, out.as_mut_ptr().cast()) <= 0);
    take_error();
}

/// Under fips-140-3 a caller's GCM IV is refused (IG C.H), while a message under the IV the
/// module generates (`tlsivgen`) is served and approved, and opens with OpenSSL's default
/// provider.
#[test]
fn fips_approves_gcm_ivgen() {
    let c = crypto();
    let fips = common::libctx_with_policy(c.library, &c.dir, "fips-140-3");
    let key = random(32);
    let fixed = [0x0f, 0x1e, 0x2d, 0x3c];
    let sealer = gcm_ivgen_ctx(fips, Peer::Regula, "AES-256-GCM", &key, &fixed, true);
    let peer = gcm_ivgen_ctx(fips, Peer::Default, "AES-256-GCM", &key, &fixed, false);
    for _ in 0..3 {
        let plaintext = random(300);
        let (invocation, ciphertext, tag) = seal_with_ivgen(&sealer, b"header", &plaintext);
        assert_eq!(
            sealer.approved(),
            1,
            "tlsivgen's message is approved under fips-140-3"
        );
        assert_eq!(
            open_with_ivinv(&peer, &invocation, b"header", &ciphertext, &tag).unwrap(),
            plaintext
        );
    }
    let caller = Ctx::new(fips, Peer::Regula, "AES-256-GCM", true).unwrap();
    caller.key(Some(&key), Some(&[1u8; 12]));
    let mut out = [0u8; 16];
    assert!(
        caller.update(out.as_mut_ptr(), &[0u8; 16]).is_err(),
        "a caller's GCM IV is refused under fips-140-3"
    );
}
