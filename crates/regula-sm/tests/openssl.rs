//! Differential test against the OpenSSL command line (`openssl enc -sm4-{ecb,cbc,ctr}`),
//! skipped with a note when `openssl` is missing or built without SM4.

mod common;

use std::process::Command;

use common::{backends, cipher};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regula_sm::sm4::modes::{cbc_encrypt, ctr_apply_keystream, ecb_encrypt};

/// Runs `openssl enc -<mode> -K key [-iv iv] -nopad` on `input`; `None` if it could not run.
fn openssl_encrypt(
    mode: &str,
    key: &[u8; 16],
    iv: Option<&[u8; 16]>,
    input: &[u8],
) -> Option<Vec<u8>> {
    let mut command = Command::new("openssl");
    command.args([
        "enc",
        &format!("-{mode}"),
        "-e",
        "-nopad",
        "-K",
        &hex::encode(key),
    ]);
    if let Some(iv) = iv {
        command.args(["-iv", &hex::encode(iv)]);
    }
    common::run_with_input(&mut command, input)
}

#[test]
fn matches_openssl_cli() {
    if openssl_encrypt("sm4-ctr", &[0; 16], Some(&[0; 16]), &[0; 16]).is_none() {
        println!("note: skipped, `openssl enc -sm4-ctr` is unavailable on this machine");
        return;
    }
    let mut rng = StdRng::seed_from_u64(0x0551);
    let mut checked = 0;
    for backend in backends() {
        for blocks in [1usize, 3, 17, 50, 101] {
            let key: [u8; 16] = rng.random();
            let iv: [u8; 16] = rng.random();
            let mut plaintext = vec![0u8; 16 * blocks];
            rng.fill(&mut plaintext[..]);
            let sm4 = cipher(&key, backend);

            let mut ecb = plaintext.clone();
            ecb_encrypt(&sm4, &mut ecb).unwrap();
            assert_eq!(
                Some(ecb),
                openssl_encrypt("sm4-ecb", &key, None, &plaintext),
                "ECB {backend}"
            );

            let mut cbc = plaintext.clone();
            cbc_encrypt(&sm4, &iv, &mut cbc).unwrap();
            assert_eq!(
                Some(cbc),
                openssl_encrypt("sm4-cbc", &key, Some(&iv), &plaintext),
                "CBC {backend}"
            );

            // CTR on a length that is not a whole number of blocks.
            let partial = &plaintext[..plaintext.len() - 5];
            let mut ctr = partial.to_vec();
            ctr_apply_keystream(&sm4, &iv, &mut ctr);
            assert_eq!(
                Some(ctr),
                openssl_encrypt("sm4-ctr", &key, Some(&iv), partial),
                "CTR {backend}"
            );
            checked += 3;
        }
    }
    println!("checked {checked} encryptions against the openssl CLI");
}
