//! SHAKE-128 and SHAKE-256 as XOF digests through libcrypto (`EVP_DigestFinalXOF`), with only
//! Regula and `base` loaded so that nothing else could answer, checked against OpenSSL's own
//! `default` provider in a second library context (its Keccak, not AWS-LC's) for messages fed
//! in pieces and output lengths around the sponge rates; plus the flags and sizes libcrypto
//! reads, a context copied mid-stream, `EVP_DigestFinal_ex` at the default length, and (OpenSSL
//! 3.3+) output taken in pieces with `EVP_DigestSqueeze`.
//! `REGULA_TEST_LIBCRYPTO` picks the libcrypto (default: the system's `libcrypto.so.3`).

use std::ffi::{CStr, c_char, c_int, c_uint};
use std::sync::OnceLock;

mod common;

use common::Ptr;

/// `EVP_MD_FLAG_XOF` from OpenSSL's evp.h.
const EVP_MD_FLAG_XOF: u64 = 0x2;

struct Crypto {
    regula: Ptr,
    peer: Ptr,
    md_fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr,
    md_free: unsafe extern "C" fn(Ptr),
    md_provider: unsafe extern "C" fn(Ptr) -> Ptr,
    provider_name: unsafe extern "C" fn(Ptr) -> *const c_char,
    md_flags: unsafe extern "C" fn(Ptr) -> u64,
    md_size: unsafe extern "C" fn(Ptr) -> c_int,
    md_block_size: unsafe extern "C" fn(Ptr) -> c_int,
    ctx_new: unsafe extern "C" fn() -> Ptr,
    ctx_free: unsafe extern "C" fn(Ptr),
    ctx_copy: unsafe extern "C" fn(Ptr, Ptr) -> c_int,
    init: unsafe extern "C" fn(Ptr, Ptr, Ptr) -> c_int,
    update: unsafe extern "C" fn(Ptr, *const u8, usize) -> c_int,
    final_xof: unsafe extern "C" fn(Ptr, *mut u8, usize) -> c_int,
    final_ex: unsafe extern "C" fn(Ptr, *mut u8, *mut c_uint) -> c_int,
    /// `EVP_DigestSqueeze`, OpenSSL 3.3+ only.
    squeeze: Option<unsafe extern "C" fn(Ptr, *mut u8, usize) -> c_int>,
}

// SAFETY: the library contexts are created once and only read afterwards; libcrypto's fetch
// and digest functions are thread-safe on a shared library context.
unsafe impl Send for Crypto {}
// SAFETY: see `Send`.
unsafe impl Sync for Crypto {}

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
        let dir = common::provider_dir("shake-test");
        Crypto {
            regula: common::libctx_with(library, &dir, &[c"regula", c"base"]),
            peer: common::libctx_with(library, &dir, &[c"default"]),
            md_fetch: symbol!("EVP_MD_fetch"),
            md_free: symbol!("EVP_MD_free"),
            md_provider: symbol!("EVP_MD_get0_provider"),
            provider_name: symbol!("OSSL_PROVIDER_get0_name"),
            md_flags: symbol!("EVP_MD_get_flags"),
            md_size: symbol!("EVP_MD_get_size"),
            md_block_size: symbol!("EVP_MD_get_block_size"),
            ctx_new: symbol!("EVP_MD_CTX_new"),
            ctx_free: symbol!("EVP_MD_CTX_free"),
            ctx_copy: symbol!("EVP_MD_CTX_copy_ex"),
            init: symbol!("EVP_DigestInit_ex"),
            update: symbol!("EVP_DigestUpdate"),
            final_xof: symbol!("EVP_DigestFinalXOF"),
            final_ex: symbol!("EVP_DigestFinal_ex"),
            // SAFETY: declared with the signature of OpenSSL 3.3+'s headers.
            squeeze: unsafe { library.get(b"EVP_DigestSqueeze\0") }
                .ok()
                .map(|symbol| *symbol),
        }
    })
}

/// A fetched `EVP_MD`, freed on drop.
struct Md(Ptr);

impl Md {
    fn fetch(libctx: Ptr, name: &CStr) -> Md {
        let c = crypto();
        // SAFETY: a live library context and a NUL-terminated name.
        let md = unsafe { (c.md_fetch)(libctx, name.as_ptr(), std::ptr::null()) };
        assert!(!md.is_null(), "{name:?} fetched");
        Md(md)
    }

    fn provider(&self) -> String {
        let c = crypto();
        // SAFETY: a live EVP_MD; the provider and its name live as long as the library context.
        unsafe { CStr::from_ptr((c.provider_name)((c.md_provider)(self.0))) }
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for Md {
    fn drop(&mut self) {
        // SAFETY: fetched once, freed once.
        unsafe { (crypto().md_free)(self.0) }
    }
}

/// A digest context, freed on drop.
struct Ctx(Ptr);

impl Ctx {
    fn new(md: &Md) -> Ctx {
        let c = crypto();
        // SAFETY: a fresh context initialised with a live digest.
        unsafe {
            let ctx = (c.ctx_new)();
            assert!(!ctx.is_null());
            assert_eq!((c.init)(ctx, md.0, std::ptr::null_mut()), 1);
            Ctx(ctx)
        }
    }

    fn update(&self, data: &[u8]) {
        // SAFETY: a live context; `data` is readable for its length.
        let ok = unsafe { (crypto().update)(self.0, data.as_ptr(), data.len()) };
        assert_eq!(ok, 1);
    }

    fn copy(&self) -> Ctx {
        let c = crypto();
        // SAFETY: a fresh destination and a live, initialised source.
        unsafe {
            let ctx = (c.ctx_new)();
            assert!(!ctx.is_null());
            assert_eq!((c.ctx_copy)(ctx, self.0), 1);
            Ctx(ctx)
        }
    }

    fn final_xof(self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        // SAFETY: `out` has room for exactly `len` bytes, all EVP_DigestFinalXOF writes.
        let ok = unsafe { (crypto().final_xof)(self.0, out.as_mut_ptr(), len) };
        assert_eq!(ok, 1, "EVP_DigestFinalXOF({len})");
        out
    }

    /// `EVP_DigestSqueeze` of `len` more bytes, or `None` when it fails.
    fn squeeze(&self, len: usize) -> Option<Vec<u8>> {
        let squeeze = crypto().squeeze.expect("OpenSSL 3.3+");
        let mut out = vec![0u8; len];
        // SAFETY: `out` has room for exactly `len` bytes, all EVP_DigestSqueeze writes.
        let ok = unsafe { squeeze(self.0, out.as_mut_ptr(), len) };
        (ok == 1).then_some(out)
    }

    /// `EVP_DigestFinal_ex` into a buffer of `room` bytes: the output it reports.
    fn final_ex(self, room: usize) -> Vec<u8> {
        let mut out = vec![0u8; room];
        let mut written: c_uint = 0;
        // SAFETY: `out` has room for the digest's default size, which the caller passes.
        let ok = unsafe { (crypto().final_ex)(self.0, out.as_mut_ptr(), &mut written) };
        assert_eq!(ok, 1, "EVP_DigestFinal_ex");
        out.truncate(written as usize);
        out
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: created once, freed once.
        unsafe { (crypto().ctx_free)(self.0) }
    }
}

/// SplitMix64 for reproducible test inputs.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// (name, default size, block size = sponge rate)
const SHAKES: [(&CStr, usize, usize); 2] = [(c"SHAKE-128", 16, 168), (c"SHAKE-256", 32, 136)];

#[test]
fn regula_answers_shake_with_the_xof_flag_and_sizes() {
    let c = crypto();
    for (name, default_size, block) in SHAKES {
        let md = Md::fetch(c.regula, name);
        assert_eq!(md.provider(), "regula", "{name:?}");
        // SAFETY: a live EVP_MD.
        let (flags, size, block_size) = unsafe {
            (
                (c.md_flags)(md.0),
                (c.md_size)(md.0),
                (c.md_block_size)(md.0),
            )
        };
        assert_ne!(flags & EVP_MD_FLAG_XOF, 0, "{name:?} is an XOF");
        assert_eq!((size, block_size), (default_size as c_int, block as c_int));
    }
    // The OID and the other spellings name the same digests.
    for alias in [c"SHAKE128", c"2.16.840.1.101.3.4.2.12"] {
        assert_eq!(Md::fetch(c.regula, alias).provider(), "regula", "{alias:?}");
    }
}

#[test]
fn final_xof_equals_openssl_default_provider() {
    let c = crypto();
    let mut state = 0x7368_616b_6573_7362;
    let mut checked = 0;
    for (name, _, block) in SHAKES {
        let ours = Md::fetch(c.regula, name);
        let theirs = Md::fetch(c.peer, name);
        assert_ne!(theirs.provider(), "regula");
        let lengths = [
            1,
            16,
            32,
            64,
            block - 1,
            block,
            block + 1,
            2 * block + 7,
            1000,
        ];
        for (round, output_len) in lengths.into_iter().enumerate() {
            let message_len = (splitmix(&mut state) % 500) as usize + round;
            let message: Vec<u8> = (0..message_len)
                .map(|_| splitmix(&mut state) as u8)
                .collect();
            let regula = Ctx::new(&ours);
            for piece in message.chunks(1 + round * 13) {
                regula.update(piece);
            }
            let peer = Ctx::new(&theirs);
            peer.update(&message);
            assert_eq!(
                regula.final_xof(output_len),
                peer.final_xof(output_len),
                "{name:?}: {message_len}-byte message, {output_len} bytes out"
            );
            checked += 1;
        }
    }
    println!("{checked} SHAKE outputs equal to OpenSSL's default provider");
}

#[test]
fn a_copy_taken_mid_stream_and_the_default_length() {
    let c = crypto();
    for (name, default_size, _) in SHAKES {
        let md = Md::fetch(c.regula, name);
        let whole = Ctx::new(&md);
        whole.update(b"The quick brown fox jumps over the lazy dog");
        let expected = whole.final_xof(200);

        let ctx = Ctx::new(&md);
        ctx.update(b"The quick brown fox ");
        let copy = ctx.copy();
        ctx.update(b"jumps over the lazy dog");
        copy.update(b"jumps over the lazy dog");
        assert_eq!(copy.final_xof(200), expected, "{name:?}: copy");
        // No length asked: the default size, a prefix of the longer output.
        assert_eq!(ctx.final_ex(default_size), expected[..default_size]);
    }
}

/// OpenSSL 3.3+: output squeezed in pieces is the stream one `EVP_DigestFinalXOF` gives, as the
/// default provider's squeeze gives it too (ML-KEM and ML-DSA expand their matrices so).
#[test]
fn squeezed_pieces_equal_one_final() {
    let c = crypto();
    if c.squeeze.is_none() {
        println!("NOTE: skipping: this libcrypto has no EVP_DigestSqueeze (OpenSSL < 3.3)");
        return;
    }
    for (name, _, block) in SHAKES {
        let ours = Md::fetch(c.regula, name);
        let theirs = Md::fetch(c.peer, name);
        // Pieces inside a block, up to and across block edges, and more than a block at once.
        let pieces = [1, block - 1, block, 7, block + 42];
        let whole = Ctx::new(&ours);
        whole.update(b"squeezed");
        let expected = whole.final_xof(pieces.iter().sum());
        for md in [&ours, &theirs] {
            let ctx = Ctx::new(md);
            ctx.update(b"squeezed");
            let mut stream = Vec::new();
            for piece in pieces {
                stream.extend(ctx.squeeze(piece).expect("squeeze"));
            }
            assert_eq!(stream, expected, "{name:?} squeezed by {}", md.provider());
        }
        // A squeezed context takes no more input.
        let ctx = Ctx::new(&ours);
        ctx.squeeze(8).expect("squeeze");
        // SAFETY: a live context and a readable buffer.
        let ok = unsafe { (c.update)(ctx.0, b"more".as_ptr(), 4) };
        assert_eq!(ok, 0, "{name:?}: update after squeeze");
    }
}
