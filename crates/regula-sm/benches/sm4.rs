//! SM4 throughput per backend: ECB encryption, CTR, CBC decryption (parallel) and CBC encryption
//! (sequential) at 16, 256 and 8192 bytes; SM4-GCM sealing (NIST SP 800-38D, 96-bit nonce,
//! 13 bytes of AAD as with `openssl speed -aead`, 16-byte tag) and SM4-CCM sealing (NIST SP 800-38C, same parameters; its CBC-MAC is
//! sequential) at the same sizes; SM4-XTS (IEEE)
//! encryption and SM4-CMAC at the same sizes.
//!
//! Benchmark ids are `MODE-op/backend/bytes`, e.g. `SM4-CTR/sm4-gfni-avx512/8192`.
//! Run with `cargo bench -p regula-sm --bench sm4`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regula_sm::Sm4;
use regula_sm::sm4::backend;
use regula_sm::sm4::modes::{Cmac, Xts, XtsStandard};
use regula_sm::sm4::modes::{
    Sm4Ccm, Sm4Gcm, cbc_decrypt, cbc_encrypt, ctr_apply_keystream, ecb_encrypt,
};

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

    let mut group = c.benchmark_group("SM4-GCM-seal");
    let nonce = [0x5c; 12];
    let aad = [0xad; 13];
    for backend in backend::available() {
        let gcm = Sm4Gcm::with_backend(&KEY, backend).expect("available backend");
        for size in SIZES {
            let mut data = vec![0u8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(backend.name(), size), &size, |b, _| {
                b.iter(|| {
                    gcm.encrypt(black_box(&nonce), black_box(&aad), black_box(&mut data))
                        .expect("valid parameters")
                });
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("SM4-CCM-seal");
    for backend in backend::available() {
        let ccm = Sm4Ccm::with_backend(&KEY, backend).expect("available backend");
        for size in SIZES {
            let mut data = vec![0u8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(backend.name(), size), &size, |b, _| {
                b.iter(|| {
                    ccm.encrypt(black_box(&nonce), black_box(&aad), black_box(&mut data))
                        .expect("valid parameters")
                });
            });
        }
    }
    group.finish();
}

/// SM4-XTS (IEEE Std 1619, one data unit per call, tweaks batched through the wide backend) and
/// SM4-CMAC (NIST SP 800-38B, sequential by construction) at the same sizes.
fn xts_and_cmac(c: &mut Criterion) {
    let mut xts_key = [0x2b; 32];
    xts_key[16..].fill(0x7e);
    let tweak = [0x01; 16];
    let mut group = c.benchmark_group("SM4-XTS-encrypt");
    for backend in backend::available() {
        let xts = Xts::with_backend(&xts_key, XtsStandard::Ieee1619, backend)
            .expect("available backend")
            .expect("distinct key halves");
        for size in SIZES {
            let mut data = vec![0u8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(backend.name(), size), &size, |b, _| {
                b.iter(|| {
                    xts.encrypt(black_box(&tweak), black_box(&mut data))
                        .expect("valid length")
                });
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("SM4-CMAC");
    for backend in backend::available() {
        let cmac = Cmac::with_backend(&KEY, backend).expect("available backend");
        for size in SIZES {
            let data = vec![0u8; size];
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new(backend.name(), size), &size, |b, _| {
                b.iter(|| {
                    cmac.compute(black_box(&data))
                        .expect("CMAC takes any length")
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, throughput, xts_and_cmac);
criterion_main!(benches);
