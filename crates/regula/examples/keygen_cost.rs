//! Key generation through Regula (policy, indicator, pairwise consistency test) beside the raw
//! primitive, for counting instructions with callgrind, which a busy machine does not disturb:
//!
//! ```sh
//! cargo build --release -p regula --example keygen_cost
//! for n in 1 201; do valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/keygen_cost regula-ecdh-p256 $n 2>&1 | grep Collected; done
//! ```
//!
//! The difference between the two totals over 200 is the cost of one key generation.

use regula::{Algorithm, Module, Policy, Profile};
use regula_sm::sm2;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(which), Some(count)) = (args.next(), args.next()) else {
        eprintln!(
            "usage: keygen_cost {{raw|regula}}-{{ecdsa-p256|ecdh-p256|sm2-sign|sm2-ecdh}} COUNT"
        );
        std::process::exit(2);
    };
    let count: usize = count.parse().expect("COUNT is a number");
    let module = Module::load(Policy::builtin(Profile::Default));
    let mut sm2_random =
        |out: &mut [u8]| aws_lc_rs::rand::fill(out).map_err(|_| sm2::Error::Random);
    for _ in 0..count {
        match which.as_str() {
            "raw-ecdsa-p256" => drop(
                aws_lc_rs::signature::EcdsaKeyPair::generate(
                    &aws_lc_rs::signature::ECDSA_P256_SHA256_ASN1_SIGNING,
                )
                .unwrap(),
            ),
            "raw-ecdh-p256" => drop(
                aws_lc_rs::agreement::PrivateKey::generate(&aws_lc_rs::agreement::ECDH_P256)
                    .unwrap(),
            ),
            "raw-sm2-sign" | "raw-sm2-ecdh" => {
                drop(sm2::PrivateKey::generate(&mut sm2_random).unwrap())
            }
            "regula-ecdsa-p256" => drop(
                module
                    .generate_signing_key(Algorithm::EcdsaP256, None)
                    .unwrap(),
            ),
            "regula-sm2-sign" => drop(
                module
                    .generate_signing_key(Algorithm::Sm2Sign, None)
                    .unwrap(),
            ),
            "regula-ecdh-p256" => drop(module.generate_agreement_key(Algorithm::EcdhP256).unwrap()),
            "regula-sm2-ecdh" => drop(module.generate_agreement_key(Algorithm::Sm2Ecdh).unwrap()),
            other => {
                eprintln!("unknown workload {other}");
                std::process::exit(2);
            }
        }
    }
}
