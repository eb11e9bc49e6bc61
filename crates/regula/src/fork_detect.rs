//! Fork detection for the state a child process would otherwise copy from its parent: the
//! GM/T 0105 generator's working state and the AEAD keys' nonce counters (service/random.rs,
//! service/aead.rs). A child that continued either would repeat its parent's output — the same
//! SM2 signing nonce `k` (which reveals the private key) or the same GCM nonce under one key.
//!
//! [`generation`] changes in every child `fork` creates and never goes back, so state that
//! records the generation it was made in can tell that it now runs in another process and must
//! be drawn again from fresh entropy. On Unix a `pthread_atfork` child handler advances it (one
//! relaxed load per check); where the handler cannot be registered, the process id stands in for
//! it (one system call per check). AWS-LC's own generator detects `fork` by itself.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Children forked so far on this process's line of descent (the handler's count).
static FORKS: AtomicU64 = AtomicU64::new(0);

#[cfg(unix)]
extern "C" fn in_child_after_fork() {
    // Runs in the child only, on the thread that called fork, before fork returns there: an
    // atomic add is async-signal-safe.
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// Whether the child handler is in place (registered once, on first use).
fn handler_registered() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| {
        #[cfg(unix)]
        {
            // SAFETY: pthread_atfork only records the three function pointers; the child
            // handler is a plain `extern "C" fn` with no captured state that performs one atomic
            // add, which is allowed between fork and the child's return from it.
            unsafe { libc::pthread_atfork(None, None, Some(in_child_after_fork)) == 0 }
        }
        #[cfg(not(unix))]
        {
            false
        }
    })
}

/// A value that differs in every process forked from this one (and in their children) from
/// the value read here before the fork.
pub(crate) fn generation() -> u64 {
    if handler_registered() {
        FORKS.load(Ordering::Relaxed)
    } else {
        // The top bit keeps the two schemes apart; a process id is unique among live processes.
        (1 << 63) | u64::from(std::process::id())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_forked_child_sees_another_generation() {
        let before = generation();
        assert_eq!(generation(), before, "the generation moved without a fork");
        let mut pipe = [0i32; 2];
        // SAFETY: a two-element array for pipe(2)'s two descriptors.
        assert_eq!(unsafe { libc::pipe(pipe.as_mut_ptr()) }, 0);
        // SAFETY: the child only reads an atomic, writes to a pipe and calls _exit, all of which
        // are async-signal-safe; it never returns into the test harness.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let seen = generation().to_ne_bytes();
            // SAFETY: writes 8 bytes from a live array to the pipe's write end, then exits.
            unsafe {
                libc::write(pipe[1], seen.as_ptr().cast(), seen.len());
                libc::_exit(0);
            }
        }
        let mut seen = [0u8; 8];
        // SAFETY: reads at most 8 bytes into a live array; waits for the child by its pid.
        let read = unsafe { libc::read(pipe[0], seen.as_mut_ptr().cast(), seen.len()) };
        let mut status = 0;
        // SAFETY: as above.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(read, 8, "the child wrote nothing");
        assert_ne!(
            u64::from_ne_bytes(seen),
            before,
            "the child saw its parent's generation"
        );
        assert_eq!(generation(), before, "the parent's generation moved");
    }
}
