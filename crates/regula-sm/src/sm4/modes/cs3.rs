//! CBC with ciphertext stealing, variant CS3 (NIST SP 800-38A Addendum, "Three Variants of
//! Ciphertext Stealing for CBC Mode", 2010: algorithms CBC-CS3-Encrypt and CBC-CS3-Decrypt).
//!
//! CS3 is the Kerberos (RFC 3962) convention and Linux `cts(cbc(...))`, which fscrypt uses to
//! encrypt file names: the ciphertext has the same length as the plaintext (at least one
//! block), and the last two ciphertext blocks are *always* swapped, even when the length is a
//! whole number of blocks. A single block is plain CBC (there is no second block to steal
//! from), as in Linux `crypto/cts.c`.
//!
//! With P = P_1 .. P_{n-1} P_n* (P_n* of d = 1..=16 bytes) and C_1 .. C_{n-1} the CBC
//! encryption of the whole blocks:
//!
//! ```text
//! C_n     = E(C_{n-1} ⊕ (P_n* || 0^(16-d)))
//! output  = C_1 .. C_{n-2} || C_n || MSB_d(C_{n-1})
//! ```
//!
//! Decryption runs through the wide CBC-decrypt path for C_1 .. C_{n-2}.

use zeroize::Zeroize;

use super::{cbc_decrypt, cbc_encrypt, xor_block};
use crate::sm4::{BLOCK_SIZE, Block, Sm4};

/// Why CBC-CS3 rejected its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cs3Error {
    /// CBC-CS3 needs at least one whole block (NIST SP 800-38A Addendum: the input is at least
    /// b bits); `len` is the length that was given.
    TooShort {
        /// The rejected length in bytes.
        len: usize,
    },
}

impl core::fmt::Display for Cs3Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Cs3Error::TooShort { len } => write!(
                f,
                "CBC-CS3 input of {len} bytes is shorter than one {BLOCK_SIZE}-byte block"
            ),
        }
    }
}

impl std::error::Error for Cs3Error {}

/// Where the last two (possibly partial) blocks start: `(head_len, d)` with `head_len` the
/// bytes before C_{n-1}'s slot in the output and `d` = 1..=16 the length of the last piece.
fn split_point(len: usize) -> Result<(usize, usize), Cs3Error> {
    if len < BLOCK_SIZE {
        return Err(Cs3Error::TooShort { len });
    }
    // Number of whole blocks before the last (possibly partial) piece: n - 1 >= 1 when len > 16.
    let before_last = (len - 1) / BLOCK_SIZE;
    Ok((before_last * BLOCK_SIZE, len - before_last * BLOCK_SIZE))
}

/// Encrypts `data` in place with SM4-CBC-CS3; `data` must be at least 16 bytes long.
///
/// ```
/// use regula_sm::Sm4;
/// use regula_sm::sm4::modes::{cbc_cs3_decrypt, cbc_cs3_encrypt};
///
/// let sm4 = Sm4::new(&[7; 16]);
/// let mut name = *b"a file name of 23 bytes";
/// cbc_cs3_encrypt(&sm4, &[0; 16], &mut name)?; // same length out
/// cbc_cs3_decrypt(&sm4, &[0; 16], &mut name)?;
/// assert_eq!(&name, b"a file name of 23 bytes");
/// # Ok::<(), regula_sm::sm4::modes::Cs3Error>(())
/// ```
pub fn cbc_cs3_encrypt(cipher: &Sm4, iv: &Block, data: &mut [u8]) -> Result<(), Cs3Error> {
    let len = data.len();
    let (head_len, d) = split_point(len)?;
    if head_len == 0 {
        // One block: plain CBC, as Linux `cts(cbc(...))` (stealing needs two blocks).
        return cbc_encrypt(cipher, iv, data).map_err(|_| Cs3Error::TooShort { len });
    }
    let (head, last) = data.split_at_mut(head_len);
    // C_1 .. C_{n-1}: sequential CBC over the whole blocks before P_n*.
    cbc_encrypt(cipher, iv, head).map_err(|_| Cs3Error::TooShort { len })?;
    let c_prev: &mut Block = match head.last_chunk_mut() {
        Some(block) => block,
        None => return Err(Cs3Error::TooShort { len }),
    };
    // C_n = E(C_{n-1} ⊕ (P_n* || 0)).
    let mut c_last = [0u8; BLOCK_SIZE];
    c_last[..d].copy_from_slice(last);
    xor_block(&mut c_last, c_prev);
    cipher.encrypt_block(&mut c_last);
    // Swap: C_n takes C_{n-1}'s slot and MSB_d(C_{n-1}) ends the output.
    last.copy_from_slice(&c_prev[..d]);
    *c_prev = c_last;
    Ok(())
}

/// Decrypts `data` in place with SM4-CBC-CS3; `data` must be at least 16 bytes long.
pub fn cbc_cs3_decrypt(cipher: &Sm4, iv: &Block, data: &mut [u8]) -> Result<(), Cs3Error> {
    let len = data.len();
    let (head_len, d) = split_point(len)?;
    if head_len == 0 {
        return cbc_decrypt(cipher, iv, data).map_err(|_| Cs3Error::TooShort { len });
    }
    let (head, last) = data.split_at_mut(head_len);
    // head = C_1 .. C_{n-2} || C_n, last = MSB_d(C_{n-1}).
    let (front, c_n) = head.split_at_mut(head_len - BLOCK_SIZE);
    let chain: Block = match front.last_chunk::<BLOCK_SIZE>() {
        Some(block) => *block,
        None => *iv,
    };
    let c_n: &mut Block = match c_n.first_chunk_mut() {
        Some(block) => block,
        None => return Err(Cs3Error::TooShort { len }),
    };
    // Z = D(C_n) = C_{n-1} ⊕ (P_n* || 0): its first d bytes XOR MSB_d(C_{n-1}) give P_n*, and
    // its last 16 - d bytes are the stolen tail of C_{n-1}.
    let mut z = *c_n;
    cipher.decrypt_block(&mut z);
    let mut c_prev = z;
    c_prev[..d].copy_from_slice(last);
    for (byte, key) in last.iter_mut().zip(&z) {
        *byte ^= key;
    }
    // P_{n-1} = D(C_{n-1}) ⊕ C_{n-2} (or the IV).
    cipher.decrypt_block(&mut c_prev);
    xor_block(&mut c_prev, &chain);
    *c_n = c_prev;
    // P_1 .. P_{n-2}: the wide CBC-decrypt path.
    cbc_decrypt(cipher, iv, front).map_err(|_| Cs3Error::TooShort { len })?;
    z.zeroize();
    c_prev.zeroize();
    Ok(())
}
