//! The timing-leak detector shared by `sm2_timing.rs` and `sm4_timing.rs`, after dudect
//! (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant time?", DATE 2017): two classes
//! of secret inputs in a random interleaving, Welch's t-test on all samples and on samples
//! cropped above several percentiles.

use std::time::Instant;

/// dudect's bound for "probably not constant time".
pub const THRESHOLD: f64 = 4.5;
/// Samples are cropped above these percentiles of the pooled times (100: none cropped).
pub const CROPS: [f64; 6] = [100.0, 99.0, 95.0, 90.0, 75.0, 50.0];
/// Measurements that must all cross [`THRESHOLD`] at the same crop, with the same sign, for a
/// verdict of "leaks".
pub const MEASUREMENTS: usize = 3;

/// Welch's t statistic of class 0 against class 1, on samples at most `limit`.
fn welch_t(samples: &[(bool, u64)], limit: u64) -> f64 {
    // Welford's running mean and squared deviations, per class.
    let mut count = [0f64; 2];
    let mut mean = [0f64; 2];
    let mut m2 = [0f64; 2];
    for &(class, time) in samples.iter().filter(|(_, time)| *time <= limit) {
        let class = usize::from(class);
        let x = time as f64;
        count[class] += 1.0;
        let delta = x - mean[class];
        mean[class] += delta / count[class];
        m2[class] += delta * (x - mean[class]);
    }
    if count[0] < 2.0 || count[1] < 2.0 {
        return 0.0;
    }
    let variance = |class: usize| m2[class] / (count[class] - 1.0);
    let spread = (variance(0) / count[0] + variance(1) / count[1]).sqrt();
    if spread == 0.0 {
        return 0.0;
    }
    (mean[0] - mean[1]) / spread
}

/// The t statistic at each crop of [`CROPS`].
fn t_values(samples: &[(bool, u64)]) -> Vec<f64> {
    let mut pooled: Vec<u64> = samples.iter().map(|(_, time)| *time).collect();
    pooled.sort_unstable();
    CROPS
        .iter()
        .map(|percentile| {
            let index = ((pooled.len() - 1) as f64 * percentile / 100.0) as usize;
            welch_t(samples, pooled[index])
        })
        .collect()
}

/// Times `operation` on `count` inputs whose classes (false: fixed, true: random) are drawn
/// at random, after a warm-up on the first tenth; returns (class, nanoseconds) per input.
pub fn measure<T>(
    count: usize,
    mut input: impl FnMut(bool) -> T,
    mut operation: impl FnMut(&mut T),
) -> Vec<(bool, u64)> {
    let classes: Vec<bool> = (0..count).map(|_| rand::random()).collect();
    let mut inputs: Vec<T> = classes.iter().map(|class| input(*class)).collect();
    for value in inputs.iter_mut().take(count / 10) {
        operation(value);
    }
    classes
        .iter()
        .zip(inputs.iter_mut())
        .map(|(class, value)| {
            let start = Instant::now();
            operation(value);
            let elapsed = start.elapsed();
            (
                *class,
                u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX),
            )
        })
        .collect()
}

/// Whether `run` (one measurement) shows a timing difference between the classes: when the
/// first measurement reaches [`THRESHOLD`] at some crop, [`MEASUREMENTS`] - 1 further,
/// independent ones must each reach it at that same crop with the same sign. A leak is a
/// property of the code and replicates; a shared machine's noise crosses the threshold at one
/// crop in one measurement and not at the same crop in the next (seen: 6.05 at the 75% crop,
/// then 1.74 there and 8.89 at 90%, with medians 10 ns apart on 68.6 µs), and now and then in
/// two measurements in a row (seen: 6.5 then 15.5 at the 50% crop, medians 21 ns apart on
/// 68.8 µs, then three clean reruns). Prints every t value.
pub fn leaks(label: &str, mut run: impl FnMut() -> Vec<(bool, u64)>) -> bool {
    // The crops (and the sign there) at which every measurement so far crossed the threshold.
    let mut crossed: Option<Vec<Option<bool>>> = None;
    for attempt in 1..=MEASUREMENTS {
        let samples = run();
        let t = t_values(&samples);
        let median = |class: bool| {
            let mut times: Vec<u64> = samples
                .iter()
                .filter(|(c, _)| *c == class)
                .map(|(_, time)| *time)
                .collect();
            times.sort_unstable();
            times[times.len() / 2]
        };
        let worst = t.iter().fold(0f64, |worst, t| worst.max(t.abs()));
        println!(
            "{label} (measurement {attempt}): {} samples, median fixed {} ns, random {} ns; \
             t at crops {CROPS:?}: {}; max |t| = {worst:.2}",
            samples.len(),
            median(false),
            median(true),
            t.iter()
                .map(|t| format!("{t:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let here: Vec<Option<bool>> = t
            .iter()
            .map(|t| (t.abs() >= THRESHOLD).then_some(*t > 0.0))
            .collect();
        let agreed: Vec<Option<bool>> = match crossed {
            None => here,
            Some(before) => before
                .iter()
                .zip(&here)
                .map(|(before, here)| match (before, here) {
                    (Some(a), Some(b)) if a == b => Some(*a),
                    _ => None,
                })
                .collect(),
        };
        if agreed.iter().all(Option::is_none) {
            return false;
        }
        crossed = Some(agreed);
    }
    true
}
