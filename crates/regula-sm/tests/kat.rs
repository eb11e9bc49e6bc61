//! Known-answer tests from GB/T 32907-2016, Appendix A ("运算示例").
//!
//! Example 1: one encryption of the key itself. Example 2: the same plaintext encrypted
//! 1,000,000 times in a row with the same key.

mod common;

use common::{backends, cipher};
use hex_literal::hex;
use regula_sm::sm4::backend::{self, Backend};

/// GB/T 32907-2016, A.1 and A.2: key and plaintext.
const KEY: [u8; 16] = hex!("0123456789abcdeffedcba9876543210");
/// GB/T 32907-2016, A.1: ciphertext after one encryption.
const EXAMPLE_1: [u8; 16] = hex!("681edf34d206965e86b3e94f536e4246");
/// GB/T 32907-2016, A.2: ciphertext after 1,000,000 encryptions.
const EXAMPLE_2: [u8; 16] = hex!("595298c7c6fd271f0402f804c33d3f66");

#[test]
fn example_1_every_backend() {
    for backend in backends() {
        let sm4 = cipher(&KEY, backend);
        let mut block = KEY;
        sm4.encrypt_block(&mut block);
        assert_eq!(block, EXAMPLE_1, "{backend}");
        sm4.decrypt_block(&mut block);
        assert_eq!(block, KEY, "{backend}");
    }
}

/// Example 1 in every slot of a multi-block call, so each lane of the wide paths is checked.
#[test]
fn example_1_in_every_lane() {
    for backend in backends() {
        let sm4 = cipher(&KEY, backend);
        for count in 1..=(2 * backend.parallel_blocks() + 1) {
            let mut blocks = vec![KEY; count];
            sm4.encrypt_blocks(&mut blocks);
            assert!(
                blocks.iter().all(|b| *b == EXAMPLE_1),
                "{backend}, {count} blocks"
            );
            sm4.decrypt_blocks(&mut blocks);
            assert!(
                blocks.iter().all(|b| *b == KEY),
                "{backend}, {count} blocks"
            );
        }
    }
}

fn run_example_2(backend: Backend) {
    let sm4 = cipher(&KEY, backend);
    let mut block = KEY;
    for _ in 0..1_000_000 {
        sm4.encrypt_block(&mut block);
    }
    assert_eq!(block, EXAMPLE_2, "{backend}");
}

/// Example 2 on the fastest backend only: a million sequential single-block calls take ~15 s in
/// a debug build even there, and far longer on the portable backend (see the ignored test below).
#[test]
fn example_2_fastest_backend() {
    run_example_2(backend::active());
}

/// Example 2 on every backend, the portable one included (minutes in a debug build; seconds
/// with `cargo test --release -- --ignored`).
#[test]
#[ignore = "slow: 1,000,000 sequential blocks per backend"]
fn example_2_every_backend() {
    for backend in backends() {
        run_example_2(backend);
    }
}
