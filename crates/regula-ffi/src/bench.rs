//! For the C benchmark only (`bench` feature, not in the header): the same AEAD seal through the
//! Rust API, looped inside the library, so that one C process can compare a C caller, a Rust
//! caller and GnuTLS on the same key and buffers.

use std::ffi::c_int;

use crate::boundary::{guard, handle, input};
use crate::symmetric::regula_aead_key;

/// Seals `in` `iterations` times with `AeadKey::seal_in_place_with_nonce` into one reused
/// `Vec` — what a Rust caller sealing a borrowed plaintext does (one copy, like
/// `regula_aead_seal` into a separate output buffer).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_bench_rust_seal(
    key: *const regula_aead_key,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    in_len: usize,
    iterations: u64,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise on each argument.
        let (key, nonce, aad, plaintext) = unsafe {
            (
                handle(key, "AEAD key")?,
                input(nonce, nonce_len, "nonce")?,
                input(aad, aad_len, "aad")?,
                input(r#in, in_len, "plaintext")?,
            )
        };
        let mut buffer = Vec::with_capacity(in_len + crate::REGULA_AEAD_TAG_LEN);
        for _ in 0..iterations {
            buffer.clear();
            buffer.extend_from_slice(plaintext);
            key.key.seal_in_place_with_nonce(nonce, aad, &mut buffer)?;
            std::hint::black_box(&buffer);
        }
        Ok(())
    })
}
