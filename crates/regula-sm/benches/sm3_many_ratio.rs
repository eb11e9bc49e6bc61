//! Interleaved ratio of multi-buffer SM3 to single-stream SM3, for two workloads: 16 messages
//! of 8 KiB, and 1,000 messages of 4 KiB (what `regula dgst` hashes over 1,000 small files,
//! without the file I/O). Each workload is hashed one message after another on the active
//! single-stream backend and together on each multi-buffer backend, in alternation, `ROUNDS`
//! times; prints the ratio per backend as median, minimum and maximum over the rounds (the
//! spread), so that load on a shared machine hits both sides.
//!
//! Run with `cargo bench -p regula-sm --bench sm3_many_ratio`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use regula_sm::sm3::{hash_many_with, many_backend, sm3};

const ROUNDS: usize = 31;
const PER_ROUND: Duration = Duration::from_millis(100);

fn time(mut work: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut iterations = 0u64;
    while start.elapsed() < PER_ROUND {
        work();
        iterations += 1;
    }
    start.elapsed().as_secs_f64() / iterations as f64
}

fn main() {
    for (count, size) in [(16usize, 8192usize), (1000, 4096)] {
        workload(count, size);
    }
}

/// Measures and prints one workload: `count` messages of `size` bytes.
fn workload(count: usize, size: usize) {
    let messages: Vec<Vec<u8>> = (0..count).map(|i| vec![i as u8; size]).collect();
    let refs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
    let backends: Vec<_> = many_backend::available()
        .into_iter()
        .filter(|backend| *backend != many_backend::ManyBackend::Single)
        .collect();
    let mut ratios = vec![Vec::new(); backends.len()];
    let mut single_mbs = Vec::new();
    for _ in 0..ROUNDS {
        let single = time(|| {
            for message in &refs {
                black_box(sm3(black_box(message)));
            }
        });
        single_mbs.push((count * size) as f64 / single / 1e6);
        for (backend, ratios) in backends.iter().zip(&mut ratios) {
            let many = time(|| {
                black_box(hash_many_with(*backend, black_box(&refs)));
            });
            ratios.push(single / many);
        }
    }
    let spread = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        (
            values[values.len() / 2],
            values[0],
            values[values.len() - 1],
        )
    };
    let (median, low, high) = spread(&mut single_mbs);
    let workload = format!("{count} x {} KiB", size / 1024);
    println!(
        "{workload}: single-stream ({}): {median:.0} MB/s (min {low:.0}, max {high:.0})",
        regula_sm::sm3::backend::active()
    );
    for (backend, ratios) in backends.iter().zip(&mut ratios) {
        let (median, low, high) = spread(ratios);
        println!(
            "{workload}: {backend} / single-stream: median {median:.2}x (min {low:.2}x, max {high:.2}x, {ROUNDS} interleaved rounds)"
        );
    }
}
