//! SM3 and HMAC-SM3 throughput per SM3 backend (`sm3-rustcrypto` is the RustCrypto `sm3`
//! crate, the reference the native backends have to beat) at 64, 1024 and 8192 bytes.
//!
//! Benchmark ids are `ALG/backend/bytes`, e.g. `SM3/sm3-avx512-bmi2/8192`.
//! Run with `cargo bench -p regula-sm --bench sm3`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regula_sm::sm3::backend;
use regula_sm::sm3::{HmacSm3, Sm3};

const SIZES: [usize; 3] = [64, 1024, 8192];

fn throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("SM3");
    for backend in backend::available() {
        let fresh = Sm3::with_backend(backend).expect("available backend");
        for size in SIZES {
            let data = vec![0xa5u8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(backend.name(), size), &size, |b, _| {
                b.iter(|| {
                    let mut hash = fresh.clone();
                    hash.update(black_box(&data));
                    hash.finalize()
                });
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("HMAC-SM3");
    for backend in backend::available() {
        let keyed = HmacSm3::with_backend(&[0x0b; 32], backend).expect("available backend");
        for size in SIZES {
            let data = vec![0xa5u8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(backend.name(), size), &size, |b, _| {
                b.iter(|| {
                    let mut mac = keyed.clone();
                    mac.update(black_box(&data));
                    mac.finalize()
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
