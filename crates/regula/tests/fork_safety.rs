//! A child made by `fork` must not repeat its parent's randomness: under `gm` the module's
//! GM/T 0105 generator and the SM4-GCM keys' nonce counters live in process memory that `fork`
//! copies, so without fork detection the child's next random bytes and next nonce equal the
//! parent's (one SM2 signing nonce twice reveals the private key; one GCM nonce twice under one
//! key reveals the authentication key). One test in its own binary: the child runs on a copy of
//! a process with no other test threads.

#![cfg(unix)]

use regula::{AeadKey, Algorithm, Module};

/// What a process draws next: random bytes from the module and a nonce from the key.
fn draw(module: &Module, key: &AeadKey) -> [u8; 44] {
    let mut out = [0u8; 44];
    module.fill_random(&mut out[..32]).unwrap();
    let sealed = key.seal(b"aad", b"message").unwrap();
    out[32..].copy_from_slice(&sealed.nonce);
    out
}

#[test]
fn a_forked_child_draws_other_random_bytes_and_nonces_than_its_parent() {
    let gm = Module::load_named("gm").expect("built-in profile");
    let key = gm.aead_key(Algorithm::Sm4Gcm, &[9; 16]).unwrap();
    // Instantiate the generator and start the key's nonce sequence before the fork.
    let first = draw(&gm, &key);

    let mut pipe = [0i32; 2];
    // SAFETY: a two-element array for pipe(2)'s two descriptors.
    assert_eq!(unsafe { libc::pipe(pipe.as_mut_ptr()) }, 0);
    // SAFETY: the child draws through the module (glibc keeps malloc usable after fork, and no
    // other thread of this binary holds the module's locks), writes to the pipe and exits
    // without returning into the test harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let child = draw(&gm, &key);
        // SAFETY: writes from a live array to the pipe's write end, then exits.
        unsafe {
            libc::write(pipe[1], child.as_ptr().cast(), child.len());
            libc::_exit(0);
        }
    }
    let parent = draw(&gm, &key);
    let mut child = [0u8; 44];
    // SAFETY: reads at most 44 bytes into a live array; waits for the child by its pid.
    let read = unsafe { libc::read(pipe[0], child.as_mut_ptr().cast(), child.len()) };
    let mut status = 0;
    // SAFETY: as above.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(read, 44, "the child wrote nothing");

    assert_ne!(first, parent, "the parent repeated itself");
    assert_ne!(
        child[..32],
        parent[..32],
        "the child's random bytes equal its parent's"
    );
    assert_ne!(
        child[32..],
        parent[32..],
        "the child's nonce equals its parent's"
    );
    // The parent's sequence went on undisturbed: its second nonce follows its first.
    let step = |n: &[u8]| u64::from_be_bytes(n[36..44].try_into().unwrap());
    assert_eq!(
        first[32..36],
        parent[32..36],
        "the parent's fixed field changed"
    );
    assert_eq!(step(&parent), step(&first).wrapping_add(1));
}
