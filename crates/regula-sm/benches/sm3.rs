//! SM3 and HMAC-SM3 throughput per SM3 backend (`sm3-rustcrypto` is the RustCrypto `sm3`
//! crate, the reference the native backends have to beat) at 64, 1024 and 8192 bytes.
//!
//! Benchmark ids are `ALG/backend/bytes`, e.g. `SM3/sm3-avx512-bmi2/8192`.
//! `SM3-many/BACKEND/16x8192` hashes 16 messages of 8 KiB with `hash_many` on each multi-buffer
//! backend; `sm3-single-stream` is the same messages one after another.
//!
//! Run with `cargo bench -p regula-sm --bench sm3` (`-- SM3-many` for the multi-buffer ids).

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

/// Sixteen messages of 8 KiB: one after another on the active single-stream backend
/// (`sm3-single-stream`) and together on each multi-buffer backend. Throughput counts all
/// 128 KiB, so the ratio of two ids is the speed-up.
fn many(c: &mut Criterion) {
    use regula_sm::sm3::{hash_many_with, many_backend};

    let messages: Vec<Vec<u8>> = (0..16u8).map(|i| vec![i; 8192]).collect();
    let refs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
    let mut group = c.benchmark_group("SM3-many");
    group.throughput(Throughput::Bytes(16 * 8192));
    for backend in many_backend::available() {
        group.bench_function(BenchmarkId::new(backend.name(), "16x8192"), |b| {
            b.iter(|| hash_many_with(backend, black_box(&refs)).expect("available backend"));
        });
    }
    group.finish();
}

criterion_group!(benches, throughput, many);
criterion_main!(benches);
