//! Interleaved ratio of multi-buffer SM3 to single-stream SM3: 16 messages of 8 KiB, hashed
//! one after another on the active single-stream backend and together on each multi-buffer
//! backend, in alternation, `ROUNDS` times; prints the ratio per backend as median, minimum
//! and maximum over the rounds (the spread), so that load on a shared machine hits both sides.
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
    let messages: Vec<Vec<u8>> = (0..16u8).map(|i| vec![i; 8192]).collect();
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
        single_mbs.push((16 * 8192) as f64 / single / 1e6);
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
    println!(
        "single-stream ({}): {median:.0} MB/s (min {low:.0}, max {high:.0})",
        regula_sm::sm3::backend::active()
    );
    for (backend, ratios) in backends.iter().zip(&mut ratios) {
        let (median, low, high) = spread(ratios);
        println!(
            "{backend} / single-stream, 16 x 8 KiB: median {median:.2}x (min {low:.2}x, max {high:.2}x, {ROUNDS} interleaved rounds)"
        );
    }
}
