//! The timing loop: run an operation for a fixed time and report its rate.
//!
//! Time is this thread's CPU time where the system reports it (Unix), the divisor
//! `openssl speed` and Tongsuo's `speed` use too (their user CPU time): on a busy machine the
//! time the scheduler gives other processes then counts against neither Regula nor the peers
//! run as separate processes. Elsewhere it is wall time.

use std::time::Duration;

/// A reading of the measurement clock (see the module documentation).
fn now() -> Duration {
    #[cfg(unix)]
    {
        let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(
            u64::try_from(time.tv_sec).unwrap_or(0),
            u32::try_from(time.tv_nsec).unwrap_or(0),
        )
    }
    #[cfg(not(unix))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed()
    }
}

/// Time on the measurement clock since `start`.
fn since(start: Duration) -> Duration {
    now().saturating_sub(start)
}

/// Runs `operation` repeatedly for about `duration` (at least once, after one warm-up call)
/// and returns operations per second. Time is read once per batch so that the clock does not
/// dominate fast operations; batches double until one takes a millisecond.
pub fn ops_per_second(
    duration: Duration,
    mut operation: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    operation()?;
    let started = now();
    let mut operations: u64 = 0;
    let mut batch: u64 = 1;
    loop {
        let batch_started = now();
        for _ in 0..batch {
            operation()?;
        }
        operations += batch;
        let elapsed = since(started);
        if elapsed >= duration {
            return Ok(operations as f64 / elapsed.as_secs_f64());
        }
        if since(batch_started) < Duration::from_millis(1) {
            batch *= 2;
        }
    }
}

/// Measures two operations in alternating batches of about half a millisecond each, for about
/// `duration` apiece, and returns both rates in operations per second. Because every stretch of
/// machine noise falls on both alike, their ratio is far steadier than two separate
/// measurements' — this is how Regula is compared with raw aws-lc-rs.
pub fn paired_ops_per_second(
    duration: Duration,
    mut first: impl FnMut() -> Result<(), String>,
    mut second: impl FnMut() -> Result<(), String>,
) -> Result<(f64, f64), String> {
    let batch_size = |operation: &mut dyn FnMut() -> Result<(), String>| -> Result<u64, String> {
        let mut batch = 1u64;
        loop {
            let started = now();
            for _ in 0..batch {
                operation()?;
            }
            if since(started) >= Duration::from_micros(500) || batch >= 1 << 20 {
                return Ok(batch);
            }
            batch *= 2;
        }
    };
    let first_batch = batch_size(&mut first)?;
    let second_batch = batch_size(&mut second)?;
    let (mut first_time, mut second_time) = (Duration::ZERO, Duration::ZERO);
    let (mut first_count, mut second_count) = (0u64, 0u64);
    while first_time < duration || second_time < duration {
        let started = now();
        for _ in 0..first_batch {
            first()?;
        }
        first_time += since(started);
        first_count += first_batch;
        let started = now();
        for _ in 0..second_batch {
            second()?;
        }
        second_time += since(started);
        second_count += second_batch;
    }
    Ok((
        first_count as f64 / first_time.as_secs_f64(),
        second_count as f64 / second_time.as_secs_f64(),
    ))
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
    fn paired_measurement_sees_a_real_difference() {
        let spin = |iterations: u64| {
            move || {
                let mut value = 0u64;
                for index in 0..iterations {
                    value = std::hint::black_box(value.wrapping_add(index));
                }
                Ok(())
            }
        };
        let (fast, slow) =
            paired_ops_per_second(Duration::from_millis(30), spin(1_000), spin(4_000)).unwrap();
        assert!(fast > slow * 2.0, "fast {fast}, slow {slow}");
        let failing = paired_ops_per_second(Duration::from_millis(5), spin(1), || {
            Err("refused".to_string())
        });
        assert_eq!(failing, Err("refused".to_string()));
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
