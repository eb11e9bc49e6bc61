//! Multi-buffer SM3: many independent messages hashed together, one message per SIMD lane.
//!
//! A single SM3 computation is one long dependency chain, so one core cannot go faster than its
//! latency allows; with several messages the same instructions advance 8 (AVX2) or 16
//! (AVX-512) of them at once. Messages of any lengths mix: each lane runs through its message's
//! whole blocks, then its padding blocks; a lane that finishes takes the next waiting message.
//! A lane with nothing left reads another lane's block (its result is thrown away) until the
//! batch ends; when few lanes are left, the rest finish on the single-stream backend.
//!
//! Only x86-64 has lane kernels so far; elsewhere (aarch64, the portable build) every message
//! takes the single-stream path, and the lane machinery below is compiled but unused.
#![cfg_attr(
    not(all(target_arch = "x86_64", not(sm4_backend = "soft"))),
    allow(dead_code)
)]

use zeroize::Zeroize;

use super::{BLOCK_LEN, Engine, IV, Native, OUTPUT_LEN};

/// The widest lane count of any kernel.
pub(crate) const MAX_LANES: usize = 16;

/// The lanes' chaining values, word-major: `states[k][i]` is word k of lane i.
pub(crate) type LaneStates = [[u32; MAX_LANES]; 8];

/// A multi-lane compression function on a CPU checked to support it.
pub(crate) trait Kernel: Copy {
    /// How many messages one call advances.
    const LANES: usize;
    /// Compresses `count` consecutive blocks of each lane: lane i reads from `blocks[i]`.
    ///
    /// `blocks[..LANES]` must each point to `count` readable blocks; the run loop below is the
    /// only caller and upholds it.
    fn compress(self, states: &mut LaneStates, blocks: &[*const u8; MAX_LANES], count: usize);
}

/// Multi-buffer backend selection, for tests, benchmarks and `regula info`.
#[doc(hidden)]
pub mod backend {
    /// A way to hash many messages.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ManyBackend {
        /// One message after another on the single-stream backend.
        Single,
        /// Eight messages at once in AVX2 registers.
        Avx2x8,
        /// Sixteen messages at once in AVX-512 registers.
        Avx512x16,
    }

    impl ManyBackend {
        /// Every backend, slowest first.
        pub const ALL: [ManyBackend; 3] = [
            ManyBackend::Single,
            ManyBackend::Avx2x8,
            ManyBackend::Avx512x16,
        ];

        /// Driver-style name.
        pub const fn name(self) -> &'static str {
            match self {
                ManyBackend::Single => "sm3-single-stream",
                ManyBackend::Avx2x8 => "sm3-mb-avx2-x8",
                ManyBackend::Avx512x16 => "sm3-mb-avx512-x16",
            }
        }

        /// Whether this CPU (and build) can run the backend.
        pub fn is_available(self) -> bool {
            self == ManyBackend::Single || super::Lanes::for_backend(self).is_some()
        }
    }

    impl core::fmt::Display for ManyBackend {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str(self.name())
        }
    }

    /// The backends this CPU supports, slowest first.
    pub fn available() -> Vec<ManyBackend> {
        ManyBackend::ALL
            .into_iter()
            .filter(|backend| backend.is_available())
            .collect()
    }

    /// The backend [`super::super::hash_many`] uses, detected once per process.
    pub fn active() -> ManyBackend {
        super::Lanes::active().map_or(ManyBackend::Single, |lanes| lanes.backend())
    }
}

use backend::ManyBackend;

/// A multi-lane kernel this CPU supports.
#[derive(Clone, Copy)]
pub(crate) enum Lanes {
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    Avx2(super::many_x86::Avx2Lanes),
    #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
    Avx512(super::many_x86::Avx512Lanes),
}

impl Lanes {
    fn active() -> Option<Lanes> {
        static ACTIVE: std::sync::OnceLock<Option<Lanes>> = std::sync::OnceLock::new();
        *ACTIVE.get_or_init(|| {
            ManyBackend::ALL
                .into_iter()
                .rev()
                .find_map(Lanes::for_backend)
        })
    }

    fn for_backend(backend: ManyBackend) -> Option<Lanes> {
        // A kernel is only useful next to a native single-stream engine (to finish stragglers
        // and HMAC keys); every CPU with AVX2 has SSSE3.
        Engine::active()?;
        match backend {
            ManyBackend::Single => None,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            ManyBackend::Avx2x8 => super::many_x86::Avx2Lanes::detect().map(Lanes::Avx2),
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            ManyBackend::Avx512x16 => super::many_x86::Avx512Lanes::detect().map(Lanes::Avx512),
            #[cfg(not(all(target_arch = "x86_64", not(sm4_backend = "soft"))))]
            ManyBackend::Avx2x8 | ManyBackend::Avx512x16 => None,
        }
    }

    fn backend(self) -> ManyBackend {
        match self {
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Lanes::Avx2(_) => ManyBackend::Avx2x8,
            #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
            Lanes::Avx512(_) => ManyBackend::Avx512x16,
        }
    }
}

/// Where hashing starts: SM3's IV and nothing absorbed, or a keyed HMAC state after one block.
#[derive(Clone, Copy)]
pub(super) struct Start {
    pub(super) state: [u32; 8],
    /// Bytes absorbed before the message (a multiple of the block length).
    pub(super) absorbed: u64,
}

impl Start {
    pub(super) const FRESH: Start = Start {
        state: IV,
        absorbed: 0,
    };
}

/// How the messages are hashed.
#[derive(Clone, Copy)]
pub(super) enum Plan {
    /// One after another on the single-stream engine (RustCrypto when `None`).
    Single(Option<Engine>),
    /// Together on `lanes`; with `straggle` set, the last few lanes finish single-stream.
    Lanes { lanes: Lanes, straggle: bool },
}

impl Plan {
    /// The fastest plan for `count` messages.
    pub(super) fn auto(count: usize) -> Plan {
        match Lanes::active() {
            // Below a quarter of the lanes, single-stream hashing is as fast.
            Some(lanes) if count >= lanes_of(lanes) / 4 && count >= 2 => Plan::Lanes {
                lanes,
                straggle: true,
            },
            _ => Plan::Single(Engine::active()),
        }
    }

    /// Exactly `backend` (no single-stream finish), or `None` when this CPU lacks it.
    pub(super) fn forced(backend: ManyBackend) -> Option<Plan> {
        match backend {
            ManyBackend::Single => Some(Plan::Single(Engine::active())),
            _ => Lanes::for_backend(backend).map(|lanes| Plan::Lanes {
                lanes,
                straggle: false,
            }),
        }
    }
}

fn lanes_of(lanes: Lanes) -> usize {
    match lanes {
        #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
        Lanes::Avx2(_) => 8,
        #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
        Lanes::Avx512(_) => 16,
    }
}

/// The SM3 digests of `messages`, each continuing from `start`, in order.
///
/// `Plan::Single(None)` (RustCrypto) serves only `Start::FRESH`; callers holding a keyed state
/// have a native engine.
pub(super) fn digests(plan: Plan, start: Start, messages: &[&[u8]]) -> Vec<[u8; OUTPUT_LEN]> {
    let mut out = vec![[0u8; OUTPUT_LEN]; messages.len()];
    match plan {
        Plan::Single(engine) => {
            for (digest, message) in out.iter_mut().zip(messages) {
                *digest = single(engine, start, message);
            }
        }
        #[cfg(all(target_arch = "x86_64", not(sm4_backend = "soft")))]
        Plan::Lanes { lanes, straggle } => {
            let straggle = if straggle { Engine::active() } else { None };
            match lanes {
                Lanes::Avx2(kernel) => run(kernel, start, messages, &mut out, straggle),
                Lanes::Avx512(kernel) => run(kernel, start, messages, &mut out, straggle),
            }
        }
        #[cfg(not(all(target_arch = "x86_64", not(sm4_backend = "soft"))))]
        Plan::Lanes { lanes, .. } => match lanes {},
    }
    out
}

/// One message on the single-stream engine.
fn single(engine: Option<Engine>, start: Start, message: &[u8]) -> [u8; OUTPUT_LEN] {
    match engine {
        Some(engine) => {
            let mut native = Native {
                state: start.state,
                buffer: [0; BLOCK_LEN],
                buffered: 0,
                length: start.absorbed,
                engine,
            };
            native.update(message);
            native.finalize()
        }
        None => super::sm3(message),
    }
}

/// Which part of its message a lane is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Segment {
    Idle,
    /// The message's whole blocks.
    Body,
    /// The last partial block and the padding, from the lane's tail buffer.
    Tail,
}

#[derive(Clone, Copy)]
struct Lane {
    segment: Segment,
    message: usize,
    /// Blocks of the segment done, and in all.
    done: usize,
    total: usize,
}

/// The scheduler: keeps every lane busy while messages remain.
fn run<K: Kernel>(
    kernel: K,
    start: Start,
    messages: &[&[u8]],
    out: &mut [[u8; OUTPUT_LEN]],
    straggle: Option<Engine>,
) {
    let lanes = K::LANES;
    let mut states: LaneStates = [[0; MAX_LANES]; 8];
    // Per lane: the last partial block of its message and the padding, one or two blocks.
    let mut tails = [[0u8; 2 * BLOCK_LEN]; MAX_LANES];
    let mut lane = [Lane {
        segment: Segment::Idle,
        message: 0,
        done: 0,
        total: 0,
    }; MAX_LANES];
    let mut next = 0;
    loop {
        // Give every idle lane the next message.
        for i in 0..lanes {
            if lane[i].segment != Segment::Idle || next == messages.len() {
                continue;
            }
            let message = messages[next];
            for (k, word) in start.state.iter().enumerate() {
                states[k][i] = *word;
            }
            let tail_blocks = fill_tail(&mut tails[i], message, start.absorbed);
            let body = message.len() / BLOCK_LEN;
            lane[i] = if body > 0 {
                Lane {
                    segment: Segment::Body,
                    message: next,
                    done: 0,
                    total: body,
                }
            } else {
                Lane {
                    segment: Segment::Tail,
                    message: next,
                    done: 0,
                    total: tail_blocks,
                }
            };
            next += 1;
        }
        let active = lane[..lanes]
            .iter()
            .filter(|lane| lane.segment != Segment::Idle)
            .count();
        if active == 0 {
            break;
        }
        if let Some(engine) = straggle
            && next == messages.len()
            && active < lanes / 2
        {
            for i in 0..lanes {
                if lane[i].segment != Segment::Idle {
                    out[lane[i].message] =
                        finish_single(engine, &states, i, lane[i], messages, &tails[i]);
                }
            }
            break;
        }

        // Advance every lane by as many blocks as the shortest remaining segment has.
        let count = lane[..lanes]
            .iter()
            .filter(|lane| lane.segment != Segment::Idle)
            .map(|lane| lane.total - lane.done)
            .min()
            .unwrap_or(0);
        let mut blocks = [core::ptr::null::<u8>(); MAX_LANES];
        for i in 0..lanes {
            blocks[i] = match lane[i].segment {
                Segment::Idle => core::ptr::null(),
                Segment::Body => messages[lane[i].message][BLOCK_LEN * lane[i].done..].as_ptr(),
                Segment::Tail => tails[i][BLOCK_LEN * lane[i].done..].as_ptr(),
            };
        }
        // An idle lane repeats an active lane's blocks; its result is discarded.
        let busy = blocks[..lanes]
            .iter()
            .copied()
            .find(|block| !block.is_null())
            .unwrap_or(core::ptr::null());
        for block in &mut blocks[..lanes] {
            if block.is_null() {
                *block = busy;
            }
        }
        kernel.compress(&mut states, &blocks, count);

        for (i, this) in lane[..lanes].iter_mut().enumerate() {
            if this.segment == Segment::Idle {
                continue;
            }
            this.done += count;
            if this.done < this.total {
                continue;
            }
            if this.segment == Segment::Body {
                let message = messages[this.message];
                this.segment = Segment::Tail;
                this.done = 0;
                this.total = tail_len(message.len());
            } else {
                out[this.message] = column(&states, i);
                this.segment = Segment::Idle;
            }
        }
    }
    states.as_flattened_mut().zeroize();
    tails.as_flattened_mut().zeroize();
}

/// Blocks of padding tail for a message of `len` bytes: one, or two when fewer than 9 bytes
/// are left in the last block for the 0x80 byte and the 64-bit length.
fn tail_len(len: usize) -> usize {
    if len % BLOCK_LEN < BLOCK_LEN - 8 {
        1
    } else {
        2
    }
}

/// Writes the last partial block of `message` and the padding (GB/T 32905-2016, 5.2) into
/// `tail`; returns its length in blocks.
fn fill_tail(tail: &mut [u8; 2 * BLOCK_LEN], message: &[u8], absorbed: u64) -> usize {
    let rest = message.len() % BLOCK_LEN;
    let blocks = tail_len(message.len());
    tail.fill(0);
    tail[..rest].copy_from_slice(&message[message.len() - rest..]);
    tail[rest] = 0x80;
    let bits = absorbed.wrapping_add(message.len() as u64).wrapping_mul(8);
    tail[BLOCK_LEN * blocks - 8..BLOCK_LEN * blocks].copy_from_slice(&bits.to_be_bytes());
    blocks
}

/// Lane `i`'s chaining value as a digest.
fn column(states: &LaneStates, i: usize) -> [u8; OUTPUT_LEN] {
    let mut digest = [0u8; OUTPUT_LEN];
    for (bytes, words) in digest.as_chunks_mut::<4>().0.iter_mut().zip(states) {
        *bytes = words[i].to_be_bytes();
    }
    digest
}

/// Finishes lane `i` on the single-stream engine: the rest of its body, then its tail.
fn finish_single(
    engine: Engine,
    states: &LaneStates,
    i: usize,
    lane: Lane,
    messages: &[&[u8]],
    tail: &[u8; 2 * BLOCK_LEN],
) -> [u8; OUTPUT_LEN] {
    let mut state: [u32; 8] = core::array::from_fn(|k| states[k][i]);
    let message = messages[lane.message];
    let tail_blocks = tail.as_chunks::<BLOCK_LEN>().0;
    match lane.segment {
        Segment::Body => {
            let body = &message[BLOCK_LEN * lane.done..BLOCK_LEN * lane.total];
            engine.compress(&mut state, body.as_chunks::<BLOCK_LEN>().0);
            engine.compress(&mut state, &tail_blocks[..tail_len(message.len())]);
        }
        Segment::Tail => engine.compress(&mut state, &tail_blocks[lane.done..lane.total]),
        Segment::Idle => {}
    }
    let mut digest = [0u8; OUTPUT_LEN];
    for (bytes, word) in digest.as_chunks_mut::<4>().0.iter_mut().zip(state) {
        *bytes = word.to_be_bytes();
    }
    state.zeroize();
    digest
}
