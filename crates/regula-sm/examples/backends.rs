//! Prints the SM backends this CPU runs, through the functions `regula info` reports them with,
//! and the ones it could run. Run it on a machine (or emulated CPU) to see the dispatch:
//!
//! ```text
//! $ cargo run -p regula-sm --example backends
//! sm4 sm4-gfni-avx512 (available: sm4-soft sm4-aesni-avx2 sm4-gfni-avx512)
//! sm3 sm3-avx512-bmi2 (available: sm3-rustcrypto sm3-ssse3 sm3-avx512-bmi2)
//! ghash ghash-vpclmulqdq-avx512
//! ```

use regula_sm::sm3;
use regula_sm::sm4;

fn names<T: core::fmt::Display>(backends: &[T]) -> String {
    backends
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    println!(
        "sm4 {} (available: {})",
        sm4::backend::active(),
        names(&sm4::backend::available())
    );
    println!(
        "sm3 {} (available: {})",
        sm3::backend::active(),
        names(&sm3::backend::available())
    );
    println!("ghash {}", sm4::modes::ghash_implementation());
}
