//! The timing loop: run an operation for a fixed time and report its rate.

use std::time::{Duration, Instant};

/// Runs `operation` repeatedly for about `duration` (at least once, after one warm-up call)
/// and returns operations per second. Time is read once per batch so that the clock does not
/// dominate fast operations; batches double until one takes a millisecond.
pub fn ops_per_second(
    duration: Duration,
    mut operation: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    operation()?;
    let started = Instant::now();
    let mut operations: u64 = 0;
    let mut batch: u64 = 1;
    loop {
        let batch_started = Instant::now();
        for _ in 0..batch {
            operation()?;
        }
        operations += batch;
        let elapsed = started.elapsed();
        if elapsed >= duration {
            return Ok(operations as f64 / elapsed.as_secs_f64());
        }
        if batch_started.elapsed() < Duration::from_millis(1) {
            batch *= 2;
        }
    }
}

/// Median, minimum and maximum of a non-empty sample.
pub fn summarize(samples: &[f64]) -> (f64, f64, f64) {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    let median = if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    };
    (median, sorted[0], sorted[sorted.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarize_odd_and_even() {
        assert_eq!(summarize(&[3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(summarize(&[4.0, 1.0, 2.0, 3.0]), (2.5, 1.0, 4.0));
    }

    #[test]
    fn counts_operations_and_propagates_errors() {
        let mut calls = 0u64;
        let rate = ops_per_second(Duration::from_millis(20), || {
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert!(rate > 0.0 && calls > 1);
        let failed = ops_per_second(Duration::from_millis(20), || {
            Err("backend refused".to_string())
        });
        assert_eq!(failed, Err("backend refused".to_string()));
    }
}
