//! CBC with ciphertext stealing, variant CS3 (NIST SP 800-38A Addendum), over AWS-LC's AES-CBC.
//!
//! AWS-LC has no ciphertext stealing, so this file builds it from two whole-block AWS-LC CBC calls;
//! every block-cipher call is AWS-LC's. The construction (for a message of `n ≥ 16` bytes split
//! into `m` blocks, the last one `d` bytes long, `1 ≤ d ≤ 16`):
//!
//! * encryption: CBC over the message zero-padded to `16·m` bytes gives `C_1 … C_m`; CS3 outputs
//!   `C_1 … C_{m−2} ‖ C_m ‖ MSB_d(C_{m−1})`. With a zero pad, `C_m = E(P_m ‖ 0 ⊕ C_{m−1})` is
//!   exactly the stolen block of the Addendum, so nothing else is needed. One block (`m = 1`) is
//!   plain CBC.
//! * decryption: `D(C_m)` (one block of CBC decryption under a zero IV) is `(P_m ‖ 0) ⊕ C_{m−1}`,
//!   whose last `16 − d` bytes are the stolen tail of `C_{m−1}`; with `C_{m−1}` whole again, CBC
//!   decryption of `C_1 … C_{m−1} ‖ C_m` gives the zero-padded message.
//!
//! Checked against RFC 3962's AES-CTS vectors (a CS3 profile: the last two blocks are always
//! swapped) in a unit test and the `AES-CBC-CS3` self-test, and against the Linux kernel's
//! fscrypt file names (`crates/regula-files/tests/fscrypt.rs`).

use aws_lc_rs::cipher::{DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext};
use aws_lc_rs::iv::FixedLength;
use zeroize::{Zeroize, Zeroizing};

const BLOCK: usize = 16;

/// Why a CS3 operation was refused or failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cs3Error {
    /// CS3 needs at least one whole block.
    TooShort(usize),
    /// AWS-LC reported a failure.
    Backend,
}

impl std::fmt::Display for Cs3Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cs3Error::TooShort(len) => {
                write!(f, "CBC-CS3 needs at least {BLOCK} bytes, got {len}")
            }
            Cs3Error::Backend => f.write_str("the AES-CBC backend failed"),
        }
    }
}

/// Number of blocks and length of the last (possibly partial) one.
fn split(len: usize) -> Result<(usize, usize), Cs3Error> {
    if len < BLOCK {
        return Err(Cs3Error::TooShort(len));
    }
    let blocks = len.div_ceil(BLOCK);
    Ok((blocks, len - BLOCK * (blocks - 1)))
}

/// Encrypts `data` (at least 16 bytes) in place.
pub(crate) fn encrypt(
    key: &EncryptingKey,
    iv: &[u8; BLOCK],
    data: &mut [u8],
) -> Result<(), Cs3Error> {
    let (blocks, last) = split(data.len())?;
    let mut padded = Zeroizing::new(vec![0u8; blocks * BLOCK]);
    padded[..data.len()].copy_from_slice(data);
    key.less_safe_encrypt(
        &mut padded,
        EncryptionContext::Iv128(FixedLength::from(*iv)),
    )
    .map_err(|_| Cs3Error::Backend)?;
    if blocks == 1 {
        data.copy_from_slice(&padded[..]);
        return Ok(());
    }
    let head = BLOCK * (blocks - 2);
    data[..head].copy_from_slice(&padded[..head]);
    // C_m, then the first `last` bytes of C_{m−1}.
    data[head..head + BLOCK].copy_from_slice(&padded[head + BLOCK..]);
    data[head + BLOCK..].copy_from_slice(&padded[head..head + last]);
    Ok(())
}

/// Decrypts `data` (at least 16 bytes) in place.
pub(crate) fn decrypt(
    key: &DecryptingKey,
    iv: &[u8; BLOCK],
    data: &mut [u8],
) -> Result<(), Cs3Error> {
    let (blocks, last) = split(data.len())?;
    let mut chain = Zeroizing::new(vec![0u8; blocks * BLOCK]);
    if blocks == 1 {
        chain.copy_from_slice(data);
    } else {
        let head = BLOCK * (blocks - 2);
        let stolen_block = &data[head..head + BLOCK];
        // D(C_m): one block of CBC decryption under a zero IV.
        let mut tail = Zeroizing::new([0u8; BLOCK]);
        tail.copy_from_slice(stolen_block);
        key.decrypt(
            &mut tail[..],
            DecryptionContext::Iv128(FixedLength::from([0u8; BLOCK])),
        )
        .map_err(|_| Cs3Error::Backend)?;
        chain[..head].copy_from_slice(&data[..head]);
        // C_{m−1}: its first `last` bytes as sent, the rest recovered from D(C_m).
        chain[head..head + last].copy_from_slice(&data[head + BLOCK..]);
        chain[head + last..head + BLOCK].copy_from_slice(&tail[last..]);
        chain[head + BLOCK..].copy_from_slice(stolen_block);
    }
    let decrypted = key.decrypt(
        &mut chain[..],
        DecryptionContext::Iv128(FixedLength::from(*iv)),
    );
    if decrypted.is_err() {
        chain.zeroize();
        return Err(Cs3Error::Backend);
    }
    let len = data.len();
    data.copy_from_slice(&chain[..len]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use aws_lc_rs::cipher::{AES_128, UnboundCipherKey};
    use hex_literal::hex;

    use super::*;

    /// RFC 3962 Appendix B: AES-128 CTS with a zero IV (the Kerberos profile of CBC-CS3: the
    /// last two blocks always swapped), key "chicken teriyaki".
    const KEY: [u8; 16] = hex!("636869636b656e207465726979616b69");
    const RFC3962: &[(&[u8], &[u8])] = &[
        (
            &hex!("4920776f756c64206c696b6520746865" "20"),
            &hex!("c6353568f2bf8cb4d8a580362da7ff7f" "97"),
        ),
        (
            &hex!("4920776f756c64206c696b6520746865" "2047656e6572616c20476175277320"),
            &hex!("fc00783e0efdb2c1d445d4c8eff7ed22" "97687268d6ecccc0c07b25e25ecfe5"),
        ),
        (
            &hex!("4920776f756c64206c696b6520746865" "2047656e6572616c2047617527732043"),
            &hex!("39312523a78662d5be7fcbcc98ebf5a8" "97687268d6ecccc0c07b25e25ecfe584"),
        ),
        (
            &hex!(
                "4920776f756c64206c696b6520746865" "2047656e6572616c2047617527732043"
                "6869636b656e2c20706c656173652c"
            ),
            &hex!(
                "97687268d6ecccc0c07b25e25ecfe584" "b3fffd940c16a18c1b5549d2f838029e"
                "39312523a78662d5be7fcbcc98ebf5"
            ),
        ),
        (
            &hex!(
                "4920776f756c64206c696b6520746865" "2047656e6572616c2047617527732043"
                "6869636b656e2c20706c656173652c20"
            ),
            &hex!(
                "97687268d6ecccc0c07b25e25ecfe584" "9dad8bbb96c4cdc03bc103e1a194bbd8"
                "39312523a78662d5be7fcbcc98ebf5a8"
            ),
        ),
        (
            &hex!(
                "4920776f756c64206c696b6520746865" "2047656e6572616c2047617527732043"
                "6869636b656e2c20706c656173652c20" "616e6420776f6e746f6e20736f75702e"
            ),
            &hex!(
                "97687268d6ecccc0c07b25e25ecfe584" "39312523a78662d5be7fcbcc98ebf5a8"
                "4807efe836ee89a526730dbc2f7bc840" "9dad8bbb96c4cdc03bc103e1a194bbd8"
            ),
        ),
    ];

    fn keys() -> (EncryptingKey, DecryptingKey) {
        let unbound = || UnboundCipherKey::new(&AES_128, &KEY).unwrap();
        (
            EncryptingKey::cbc(unbound()).unwrap(),
            DecryptingKey::cbc(unbound()).unwrap(),
        )
    }

    #[test]
    fn rfc3962_vectors_both_directions() {
        let (encrypting, decrypting) = keys();
        for (plaintext, ciphertext) in RFC3962 {
            let mut buffer = plaintext.to_vec();
            encrypt(&encrypting, &[0; 16], &mut buffer).unwrap();
            assert_eq!(&buffer[..], *ciphertext, "{} bytes", plaintext.len());
            decrypt(&decrypting, &[0; 16], &mut buffer).unwrap();
            assert_eq!(&buffer[..], *plaintext, "{} bytes", plaintext.len());
        }
    }

    #[test]
    fn one_block_is_cbc_and_short_input_is_refused() {
        let (encrypting, decrypting) = keys();
        for len in 0..16 {
            let mut buffer = vec![0u8; len];
            assert_eq!(
                encrypt(&encrypting, &[0; 16], &mut buffer),
                Err(Cs3Error::TooShort(len))
            );
            assert_eq!(
                decrypt(&decrypting, &[0; 16], &mut buffer),
                Err(Cs3Error::TooShort(len))
            );
        }
        let mut one = [7u8; 16];
        let mut cbc = one;
        encrypt(&encrypting, &[1; 16], &mut one).unwrap();
        encrypting
            .less_safe_encrypt(
                &mut cbc,
                EncryptionContext::Iv128(FixedLength::from([1; 16])),
            )
            .unwrap();
        assert_eq!(one, cbc);
    }

    #[test]
    fn round_trips_every_length() {
        let (encrypting, decrypting) = keys();
        for len in 16..=100 {
            let plaintext: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let mut buffer = plaintext.clone();
            encrypt(&encrypting, &[9; 16], &mut buffer).unwrap();
            assert_ne!(buffer, plaintext);
            decrypt(&decrypting, &[9; 16], &mut buffer).unwrap();
            assert_eq!(buffer, plaintext, "{len} bytes");
        }
    }
}
