//! Cost of Regula's layer (state check, policy decision, service indicator) over calling
//! aws-lc-rs directly, for AES-256-GCM sealing with a module-generated nonce — the approved
//! shape under FIPS 140-3. Both sides seal in place into a reused buffer, so the only
//! difference is Regula's own work.
//!
//! `cargo bench -p regula --bench policy_overhead`; compare `raw` and `regula` per size.

use std::hint::black_box;

use aws_lc_rs::aead::{AES_256_GCM, Aad, RandomizedNonceKey};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regula::{Algorithm, Module, Policy, Profile};

const KEY: [u8; 32] = [0x42; 32];
const AAD: [u8; 13] = [0x17; 13];
const SIZES: [usize; 5] = [16, 256, 1024, 8192, 16384];

fn aes_256_gcm_seal(c: &mut Criterion) {
    let raw = RandomizedNonceKey::new(&AES_256_GCM, &KEY).unwrap();
    let module = Module::load(Policy::builtin(Profile::Fips1403));
    let regula = module.aead_key(Algorithm::Aes256Gcm, &KEY).unwrap();

    let mut group = c.benchmark_group("aes-256-gcm-seal");
    for size in SIZES {
        group.throughput(Throughput::Bytes(size as u64));
        let mut buffer = vec![0u8; size];
        buffer.reserve(16);
        group.bench_with_input(BenchmarkId::new("raw", size), &size, |b, &size| {
            b.iter(|| {
                let nonce = raw
                    .seal_in_place_append_tag(Aad::from(&AAD), &mut buffer)
                    .unwrap();
                buffer.truncate(size);
                black_box(nonce)
            })
        });
        group.bench_with_input(BenchmarkId::new("regula", size), &size, |b, &size| {
            b.iter(|| {
                let nonce = regula.seal_in_place(&AAD, &mut buffer).unwrap();
                buffer.truncate(size);
                black_box(nonce)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, aes_256_gcm_seal);
criterion_main!(benches);
