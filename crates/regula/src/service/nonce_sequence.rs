//! The nonces an AEAD key makes itself by SP 800-38D §8.2.1's deterministic construction:
//! SM4-GCM and SM4-CCM keys under every profile, and every AEAD key whose module draws from a
//! GM/T 0105 generator (`gm`).
//!
//! A 32-bit fixed field and the 64-bit invocation field's starting value both come from the
//! module's generator when the key is bound; each message then takes the next invocation value
//! (so a key seals fewer than 2^64 messages, and refuses the next). Each nonce is unique under
//! the key, and two keys bound from the same bytes start at independent 96-bit points, so their
//! nonces overlap only with negligible probability.
//!
//! A random nonce per message would cost a generator request per seal: under GM/T 0105 three
//! SM3 compressions (or an SM4 rekeying), under AWS-LC a CTR_DRBG step with RDRAND input —
//! either several times an SM4-GCM seal of a short message. AES-GCM keeps AWS-LC's random nonce,
//! generated inside its validated boundary (IG C.H).
//!
//! **Per-thread blocks.** Taking each invocation value from the key's shared counter would cost
//! a locked read-modify-write per message: it waits for the thread's earlier stores (the last
//! message's ciphertext) and bounces the counter's cache line between cores that seal under one
//! key. So a thread reserves [`BLOCK`] consecutive values at a time and issues them itself from
//! a small thread-local cache, one entry per recently used key. Blocks never overlap, so
//! nonces stay unique; they are no longer in order across threads, and the values left in a
//! block that is evicted, or whose thread exits, are never used (2^64 values leave room).
//!
//! **Fork.** A child process made by `fork` inherits the key with its counter, and the forking
//! thread's cache; left alone it would repeat its parent's nonces. So the starting point and
//! every reserved block record the fork generation they were drawn in
//! ([`fork_detect::generation`]): the first nonce asked for in another process draws a new
//! fixed field and starting value from that process's (re-instantiated) generator, and blocks
//! from an older generation are not used.

use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use zeroize::Zeroizing;

use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::fork_detect;
use crate::module::Module;
use crate::service::aead::NONCE_LEN;

/// Invocation values a thread reserves at once.
const BLOCK: u64 = 1024;

/// Keys a thread keeps a block for.
const CACHED_KEYS: usize = 4;

/// Identifies a sequence in the thread caches; never reused within a process.
static NEXT_SEQUENCE_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) struct NonceSequence {
    /// This sequence's name in the thread caches (0 marks an empty cache entry).
    id: u64,
    /// The fork generation `fixed` and `start` were drawn in.
    generation: AtomicU64,
    fixed: AtomicU32,
    start: AtomicU64,
    /// Invocation values reserved since `start` was drawn.
    reserved: AtomicU64,
    /// Held while a new starting point is drawn.
    redraw: Mutex<()>,
}

/// A block of invocation values reserved by this thread for one sequence; `remaining` values
/// from `next` on are unused.
struct Block {
    /// The sequence's id; 0: an empty entry.
    sequence: Cell<u64>,
    generation: Cell<u64>,
    fixed: Cell<u32>,
    /// The invocation field's start plus the offset of the next unused value.
    next: Cell<u64>,
    remaining: Cell<u64>,
}

impl Block {
    const fn empty() -> Block {
        Block {
            sequence: Cell::new(0),
            generation: Cell::new(0),
            fixed: Cell::new(0),
            next: Cell::new(0),
            remaining: Cell::new(0),
        }
    }

    /// Writes the next value's nonce to `nonce`; the block must have one left.
    #[inline]
    fn issue(&self, nonce: &mut [u8; NONCE_LEN]) {
        let next = self.next.get();
        self.next.set(next.wrapping_add(1));
        self.remaining.set(self.remaining.get() - 1);
        nonce[..4].copy_from_slice(&self.fixed.get().to_be_bytes());
        nonce[4..].copy_from_slice(&next.to_be_bytes());
    }
}

thread_local! {
    static BLOCKS: [Block; CACHED_KEYS] = const { [const { Block::empty() }; CACHED_KEYS] };
    /// The entry the next reservation replaces.
    static NEXT_VICTIM: Cell<usize> = const { Cell::new(0) };
}

impl NonceSequence {
    pub(crate) fn new(module: &Module) -> Result<NonceSequence> {
        let (fixed, start) = Self::draw(module)?;
        Ok(NonceSequence {
            id: NEXT_SEQUENCE_ID.fetch_add(1, Ordering::Relaxed),
            generation: AtomicU64::new(fork_detect::generation()),
            fixed: AtomicU32::new(fixed),
            start: AtomicU64::new(start),
            reserved: AtomicU64::new(0),
            redraw: Mutex::new(()),
        })
    }

    /// A fixed field and a starting invocation value from the module's generator.
    fn draw(module: &Module) -> Result<(u32, u64)> {
        let mut seed = Zeroizing::new([0u8; NONCE_LEN]);
        module.internal_random(seed.as_mut_slice())?;
        let (fixed, start) = seed.split_at(4);
        Ok((
            u32::from_be_bytes(fixed.try_into().map_err(|_| Error::CryptoFailure)?),
            u64::from_be_bytes(start.try_into().map_err(|_| Error::CryptoFailure)?),
        ))
    }

    /// The next nonce: from this thread's block for the key, or from a block reserved now.
    #[cfg(test)]
    pub(crate) fn next(&self, module: &Module, algorithm: Algorithm) -> Result<[u8; NONCE_LEN]> {
        let mut nonce = [0u8; NONCE_LEN];
        self.next_into(module, algorithm, &mut nonce)?;
        Ok(nonce)
    }

    /// Writes the next nonce to `nonce` (the caller's slot, so that the 12 bytes are stored
    /// twice, not carried byte by byte through a returned `Result`).
    #[inline]
    pub(crate) fn next_into(
        &self,
        module: &Module,
        algorithm: Algorithm,
        nonce: &mut [u8; NONCE_LEN],
    ) -> Result<()> {
        let generation = fork_detect::generation();
        let issued = BLOCKS
            .try_with(|blocks| {
                let block = blocks.iter().find(|block| {
                    block.sequence.get() == self.id
                        && block.generation.get() == generation
                        && block.remaining.get() > 0
                });
                block.map(|block| block.issue(nonce)).is_some()
            })
            .unwrap_or(false);
        if issued {
            return Ok(());
        }
        *nonce = self.next_from_new_block(module, algorithm, generation)?;
        Ok(())
    }

    /// Reserves a block (drawing a new starting point first in a forked child), issues its first
    /// nonce and caches the rest for this thread.
    #[cold]
    #[inline(never)]
    fn next_from_new_block(
        &self,
        module: &Module,
        algorithm: Algorithm,
        generation: u64,
    ) -> Result<[u8; NONCE_LEN]> {
        if self.generation.load(Ordering::Acquire) != generation {
            // Only in a forked child, once: a poisoned lock guards no data.
            let _guard = self
                .redraw
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if self.generation.load(Ordering::Acquire) != generation {
                let (fixed, start) = Self::draw(module)?;
                self.fixed.store(fixed, Ordering::Relaxed);
                self.start.store(start, Ordering::Relaxed);
                self.reserved.store(0, Ordering::Relaxed);
                self.generation.store(generation, Ordering::Release);
            }
        }
        // Up to BLOCK values, never past the last one (u64::MAX stays unissued and marks an
        // exhausted key).
        let first = self
            .reserved
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |reserved| {
                (reserved < u64::MAX).then(|| reserved.saturating_add(BLOCK))
            })
            .map_err(|_| {
                Error::invalid_input(format!(
                    "this {algorithm} key has used every nonce of its invocation field; bind a \
                     new key"
                ))
            })?;
        let fill = |block: &Block| {
            block.sequence.set(self.id);
            block.generation.set(generation);
            block.fixed.set(self.fixed.load(Ordering::Relaxed));
            block
                .next
                .set(self.start.load(Ordering::Relaxed).wrapping_add(first));
            block.remaining.set(first.saturating_add(BLOCK) - first);
        };
        // Cached in this key's entry, or else in the next victim's.
        let cached = BLOCKS.try_with(|blocks| {
            let slot = blocks
                .iter()
                .position(|cached| cached.sequence.get() == self.id)
                .unwrap_or_else(|| {
                    NEXT_VICTIM
                        .try_with(|victim| {
                            let slot = victim.get();
                            victim.set((slot + 1) % CACHED_KEYS);
                            slot
                        })
                        .unwrap_or(0)
                });
            fill(&blocks[slot]);
            let mut nonce = [0u8; NONCE_LEN];
            blocks[slot].issue(&mut nonce);
            nonce
        });
        // A thread being torn down issues the block's first nonce and keeps no cache.
        let nonce = cached.unwrap_or_else(|_| {
            let block = Block::empty();
            fill(&block);
            let mut nonce = [0u8; NONCE_LEN];
            block.issue(&mut nonce);
            nonce
        });
        Ok(nonce)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::{Policy, Profile};

    fn gm() -> Module {
        Module::load(Policy::builtin(Profile::Gm))
    }

    fn invocation(nonce: &[u8; NONCE_LEN]) -> u64 {
        u64::from_be_bytes(nonce[4..].try_into().unwrap())
    }

    /// One thread, more keys than it caches blocks for, used in turn: every nonce distinct,
    /// each key's fixed field constant and its invocation values consecutive while its block
    /// lasts.
    #[test]
    fn many_keys_on_one_thread_never_repeat() {
        let module = gm();
        let sequences: Vec<NonceSequence> = (0..CACHED_KEYS + 3)
            .map(|_| NonceSequence::new(&module).unwrap())
            .collect();
        let mut seen = HashSet::new();
        let mut last: Vec<Option<[u8; NONCE_LEN]>> = vec![None; sequences.len()];
        for round in 0..3 * BLOCK as usize {
            // Rounds that visit every key evict cached blocks; the others use two keys only.
            let visited = if round % 100 == 0 { sequences.len() } else { 2 };
            for (index, sequence) in sequences.iter().enumerate().take(visited) {
                let nonce = sequence.next(&module, Algorithm::Sm4Gcm).unwrap();
                assert!(seen.insert(nonce), "nonce repeated in round {round}");
                if let Some(previous) = last[index] {
                    assert_eq!(previous[..4], nonce[..4], "fixed field of key {index}");
                }
                if index < 2 && visited == 2 && round % 100 != 1 {
                    let previous = last[index].unwrap();
                    assert_eq!(invocation(&nonce), invocation(&previous).wrapping_add(1));
                }
                last[index] = Some(nonce);
            }
        }
    }

    /// Threads sealing under one key take disjoint blocks.
    #[test]
    fn threads_sharing_a_key_never_repeat() {
        let module = gm();
        let sequence = NonceSequence::new(&module).unwrap();
        let per_thread = 3 * BLOCK as usize + 17;
        let nonces: Vec<Vec<[u8; NONCE_LEN]>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        (0..per_thread)
                            .map(|_| sequence.next(&module, Algorithm::Sm4Gcm).unwrap())
                            .collect()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        let all: HashSet<_> = nonces.iter().flatten().collect();
        assert_eq!(all.len(), 4 * per_thread);
        let fixed: HashSet<_> = nonces.iter().flatten().map(|n| &n[..4]).collect();
        assert_eq!(fixed.len(), 1, "one fixed field per key");
    }

    /// The last invocation values are issued and then the key refuses; the value at offset
    /// 2^64 − 1 from the start is never issued.
    #[test]
    fn an_exhausted_key_refuses() {
        let module = gm();
        let sequence = NonceSequence::new(&module).unwrap();
        let start = sequence.start.load(Ordering::Relaxed);
        sequence.reserved.store(u64::MAX - 3, Ordering::Relaxed);
        let last: Vec<u64> = (0..3)
            .map(|_| invocation(&sequence.next(&module, Algorithm::Sm4Gcm).unwrap()))
            .collect();
        let expected: Vec<u64> = (u64::MAX - 3..u64::MAX)
            .map(|offset| start.wrapping_add(offset))
            .collect();
        assert_eq!(last, expected);
        let error = sequence.next(&module, Algorithm::Sm4Gcm).unwrap_err();
        assert!(error.to_string().contains("every nonce"), "{error}");
    }
}
