//! SM4 throughput per backend: ECB encryption, CTR, CBC decryption (parallel) and CBC encryption
//! (sequential) at 16, 256 and 8192 bytes.
//!
//! Benchmark ids are `MODE-op/backend/bytes`, e.g. `SM4-CTR/sm4-gfni-avx512/8192`.
//! Run with `cargo bench -p regula-sm --bench sm4`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regula_sm::Sm4;
use regula_sm::sm4::backend;
use regula_sm::sm4::modes::{cbc_decrypt, cbc_encrypt, ctr_apply_keystream, ecb_encrypt};

const SIZES: [usize; 3] = [16, 256, 8192];
const KEY: [u8; 16] = [0x2b; 16];
const IV: [u8; 16] = [0x7e; 16];

type ModeFn = fn(&Sm4, &mut [u8]);

fn modes() -> [(&'static str, ModeFn); 4] {
    [
        ("SM4-ECB-encrypt", |sm4, data| {
            ecb_encrypt(sm4, data).unwrap()
        }),
        ("SM4-CTR", |sm4, data| ctr_apply_keystream(sm4, &IV, data)),
        ("SM4-CBC-decrypt", |sm4, data| {
            cbc_decrypt(sm4, &IV, data).unwrap()
        }),
        // Sequential by construction: measures single-block latency.
        ("SM4-CBC-encrypt", |sm4, data| {
            cbc_encrypt(sm4, &IV, data).unwrap()
        }),
    ]
}

fn throughput(c: &mut Criterion) {
    for (mode, run) in modes() {
        let mut group = c.benchmark_group(mode);
        for backend in backend::available() {
            let sm4 = Sm4::with_backend(&KEY, backend).expect("available backend");
            for size in SIZES {
                let mut data = vec![0u8; size];
                group.throughput(Throughput::Bytes(size as u64));
                group.bench_with_input(BenchmarkId::new(backend.name(), size), &size, |b, _| {
                    b.iter(|| run(black_box(&sm4), black_box(&mut data)));
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, throughput);
criterion_main!(benches);
