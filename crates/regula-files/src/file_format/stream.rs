//! The STREAM layer: segments sealed and opened in order-preserving parallel batches.

use std::io::{self, Read, Write};

use serde::Serialize;
use zeroize::{Zeroize, Zeroizing};

use regula::policy::Usage;
use regula::service::aead::{NONCE_LEN, stream_nonce};
use regula::{AeadKey, Error, Module, StreamPrefix};

use super::header::{Header, HeaderInfo, PREFIX_LEN, Stanza};
use super::keys::{self, FILE_KEY_LEN, Identity};
use super::{FileError, SEALED_SEGMENT_SIZE, SEGMENT_SIZE, Suite, TAG_LEN, invalid_input};

/// Segments handled per batch: 1 MiB of plaintext, split between the threads. A pipelined
/// writer holds one plaintext batch and two sealed ones, a reader one sealed batch and two
/// plaintext ones: about 3 MiB whatever the file size.
const BATCH_SEGMENTS: usize = 16;
/// A batch smaller than this is sealed on the calling thread alone.
const PARALLEL_MIN_SEGMENTS: usize = 4;
/// STREAM's counter is 32 bits: at most 2^32 segments (256 TiB) per file.
const MAX_SEGMENTS: u64 = 1 << 32;

/// A plaintext buffer that wipes, on drop, the part that was ever written (a batch buffer is
/// 1 MiB; a small file should not pay for wiping all of it).
struct PlainBuffer {
    bytes: Vec<u8>,
    used: usize,
}

impl PlainBuffer {
    fn new(len: usize) -> PlainBuffer {
        PlainBuffer {
            bytes: vec![0u8; len],
            used: 0,
        }
    }

    fn len(&self) -> usize {
        self.bytes.len()
    }

    /// `[start..end]` for writing, remembered for the wipe.
    fn writable(&mut self, start: usize, end: usize) -> &mut [u8] {
        self.used = self.used.max(end);
        &mut self.bytes[start..end]
    }

    fn get(&self, start: usize, end: usize) -> &[u8] {
        &self.bytes[start..end]
    }

    fn wipe(&mut self) {
        self.bytes[..self.used].zeroize();
    }
}

impl Drop for PlainBuffer {
    fn drop(&mut self) {
        self.wipe();
    }
}

/// What a finished encryption or decryption did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub header: HeaderInfo,
    pub plaintext_bytes: u64,
    /// Header and sealed segments.
    pub file_bytes: u64,
    pub segments: u64,
}

/// The payload AEAD with the file's nonce prefix.
struct Segments {
    aead: AeadKey,
    prefix: [u8; PREFIX_LEN],
    /// The writer's prefix as the module drew it, which lets it seal; `None` for a reader.
    sealing: Option<StreamPrefix>,
    threads: usize,
}

/// STREAM's counter of segment `counter`: 32 bits.
fn segment_counter(counter: u64) -> Result<u32, Error> {
    u32::try_from(counter)
        .map_err(|_| invalid_input("a file holds at most 2^32 segments (256 TiB)"))
}

impl Segments {
    /// `prefix ‖ counter (32-bit big-endian) ‖ 0x01 for the last segment, else 0x00`.
    fn nonce(&self, counter: u64, last: bool) -> Result<[u8; NONCE_LEN], Error> {
        Ok(stream_nonce(&self.prefix, segment_counter(counter)?, last))
    }

    /// How many segments each thread takes in a batch of `count`.
    fn per_thread(&self, count: usize) -> usize {
        if count < PARALLEL_MIN_SEGMENTS || self.threads <= 1 {
            count.max(1)
        } else {
            count.div_ceil(self.threads)
        }
    }

    /// Seals `plain` (whole segments but the last) as segments `first…` into the start of
    /// `sealed` (grown when needed, never shrunk or cleared, so that no batch pays for a
    /// memset); the last one carries the final flag when `last_is_final`. Returns the number of
    /// segments and of sealed bytes.
    fn seal_batch(
        &self,
        plain: &[u8],
        first: u64,
        last_is_final: bool,
        sealed: &mut Vec<u8>,
    ) -> Result<(u64, usize), Error> {
        let count = plain.len().div_ceil(SEGMENT_SIZE).max(1);
        let sealed_len = plain.len() + count * TAG_LEN;
        if sealed.len() < sealed_len {
            sealed.resize(sealed_len, 0);
        }
        let sealed = &mut sealed[..sealed_len];
        let prefix = self.sealing.as_ref().ok_or(Error::CryptoFailure)?;
        let seal_one = |index: usize, input: &[u8], output: &mut [u8]| -> Result<(), Error> {
            let counter = segment_counter(first + index as u64)?;
            let last = last_is_final && index + 1 == count;
            self.aead
                .seal_stream_segment_into(prefix, counter, last, input, output)
                .map(drop)
        };
        if plain.is_empty() {
            seal_one(0, &[], sealed)?;
            return Ok((1, sealed_len));
        }
        let per_thread = self.per_thread(count);
        let seal_range = |start: usize, input: &[u8], output: &mut [u8]| -> Result<(), Error> {
            for (offset, (input, output)) in input
                .chunks(SEGMENT_SIZE)
                .zip(output.chunks_mut(SEALED_SEGMENT_SIZE))
                .enumerate()
            {
                seal_one(start + offset, input, output)?;
            }
            Ok(())
        };
        run_parallel(
            plain.chunks(per_thread * SEGMENT_SIZE),
            sealed.chunks_mut(per_thread * SEALED_SEGMENT_SIZE),
            per_thread,
            seal_range,
        )?;
        Ok((count as u64, sealed_len))
    }

    /// Opens `sealed` as segments `first…` into `plain`, which has exactly the plaintext's
    /// length. On failure `plain` is wiped and the error names the first segment (its index in
    /// the batch) that failed.
    fn open_batch(
        &self,
        sealed: &[u8],
        first: u64,
        last_is_final: bool,
        plain: &mut [u8],
    ) -> Result<(), (usize, Error)> {
        let count = sealed.len().div_ceil(SEALED_SEGMENT_SIZE);
        let open_one =
            |index: usize, input: &[u8], output: &mut [u8]| -> Result<(), (usize, Error)> {
                let nonce = self
                    .nonce(first + index as u64, last_is_final && index + 1 == count)
                    .map_err(|error| (index, error))?;
                self.aead
                    .open_into(&nonce, &[], input, output)
                    .map(drop)
                    .map_err(|error| (index, error))
            };
        if plain.is_empty() {
            return open_one(0, sealed, plain);
        }
        let per_thread = self.per_thread(count);
        let open_range =
            |start: usize, input: &[u8], output: &mut [u8]| -> Result<(), (usize, Error)> {
                for (offset, (input, output)) in input
                    .chunks(SEALED_SEGMENT_SIZE)
                    .zip(output.chunks_mut(SEGMENT_SIZE))
                    .enumerate()
                {
                    open_one(start + offset, input, output)?;
                }
                Ok(())
            };
        let result = run_parallel(
            sealed.chunks(per_thread * SEALED_SEGMENT_SIZE),
            plain.chunks_mut(per_thread * SEGMENT_SIZE),
            per_thread,
            open_range,
        );
        if result.is_err() {
            plain.zeroize();
        }
        result
    }
}

/// Runs `work(first segment index, input chunk, output chunk)` over paired chunks, the first on
/// this thread and the others on scoped threads; returns the error of the lowest failing chunk.
fn run_parallel<'a, E: Send>(
    inputs: impl Iterator<Item = &'a [u8]>,
    outputs: impl Iterator<Item = &'a mut [u8]>,
    per_thread: usize,
    work: impl Fn(usize, &[u8], &mut [u8]) -> Result<(), E> + Sync,
) -> Result<(), E> {
    let mut jobs: Vec<(&[u8], &mut [u8])> = inputs.zip(outputs).collect();
    if jobs.len() == 1 {
        let (input, output) = jobs.pop().expect("one job");
        return work(0, input, output);
    }
    let work = &work;
    std::thread::scope(|scope| {
        let mut jobs = jobs.into_iter().enumerate();
        let first = jobs.next();
        let handles: Vec<_> = jobs
            .map(|(index, (input, output))| {
                scope.spawn(move || work(index * per_thread, input, output))
            })
            .collect();
        let mut result = match first {
            Some((_, (input, output))) => work(0, input, output),
            None => Ok(()),
        };
        for handle in handles {
            let joined = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            if result.is_ok() {
                result = joined;
            }
        }
        result
    })
}

/// One `read`, retried when interrupted.
fn read_some(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// Reads into `plain` from `*filled` until it is full or the input ends; returns the bytes read.
fn fill_from(
    plain: &mut PlainBuffer,
    filled: &mut usize,
    input: &mut impl Read,
) -> Result<u64, FileError> {
    let mut total = 0u64;
    while *filled < plain.len() {
        let end = plain.len();
        let read = read_some(input, plain.writable(*filled, end)).map_err(FileError::Io)?;
        if read == 0 {
            break;
        }
        *filled += read;
        total += read as u64;
    }
    Ok(total)
}

fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
        .min(8)
}

/// Builds an encrypted file: choose the key sources, then [`Encryptor::writer`].
pub struct Encryptor {
    module: Module,
    suite: Suite,
    file_key: Zeroizing<[u8; FILE_KEY_LEN]>,
    stanzas: Vec<Stanza>,
    threads: usize,
}

impl std::fmt::Debug for Encryptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encryptor")
            .field("suite", &self.suite)
            .finish_non_exhaustive()
    }
}

impl Encryptor {
    /// An encryptor with the suite the module's policy prefers ([`Suite::for_policy`]) and a
    /// fresh random file key.
    pub fn new(module: &Module) -> Result<Encryptor, FileError> {
        Encryptor::with_suite(module, Suite::for_policy(module.policy())?)
    }

    /// An encryptor for a given suite (see [`Suite::with_aead`]); the policy must serve it.
    pub fn with_suite(module: &Module, suite: Suite) -> Result<Encryptor, FileError> {
        module.ensure_operational()?;
        let mut algorithms = suite.prf.algorithms();
        algorithms.push(suite.aead);
        for algorithm in algorithms {
            module.policy().evaluate(algorithm, &Usage::default())?;
        }
        Ok(Encryptor {
            module: module.clone(),
            suite,
            file_key: Zeroizing::new(keys::random::<FILE_KEY_LEN>(module)?),
            stanzas: Vec::new(),
            threads: default_threads(),
        })
    }

    pub fn suite(&self) -> Suite {
        self.suite
    }

    /// Adds a passphrase stanza: PBKDF2 with the suite's PRF, a random 128-bit salt and
    /// `iterations` (at least [`super::MIN_ITERATIONS`]; `regula encrypt` uses
    /// [`super::DEFAULT_ITERATIONS`]).
    pub fn add_passphrase(
        &mut self,
        passphrase: &[u8],
        iterations: u32,
    ) -> Result<&mut Encryptor, FileError> {
        let body = keys::passphrase_stanza(
            &self.module,
            self.suite,
            passphrase,
            iterations,
            &*self.file_key,
        )?;
        self.stanzas.push(Stanza {
            kind: keys::KIND_PASSPHRASE,
            body,
        });
        Ok(self)
    }

    /// Adds a raw key-file stanza (a 32-byte secret).
    pub fn add_key_file(&mut self, key: &[u8]) -> Result<&mut Encryptor, FileError> {
        let body = keys::key_file_stanza(&self.module, self.suite, key, &*self.file_key)?;
        self.stanzas.push(Stanza {
            kind: keys::KIND_KEY_FILE,
            body,
        });
        Ok(self)
    }

    /// Adds a public-key recipient; the policy must serve its kind's algorithms.
    pub fn add_recipient(
        &mut self,
        recipient: &super::Recipient,
    ) -> Result<&mut Encryptor, FileError> {
        let body = super::recipients::recipient_stanza(
            &self.module,
            self.suite,
            recipient,
            &*self.file_key,
        )?;
        self.stanzas.push(Stanza {
            kind: recipient.kind().id(),
            body,
        });
        Ok(self)
    }

    /// Threads that seal a batch (default: the CPUs available, at most 8).
    pub fn threads(&mut self, threads: usize) -> &mut Encryptor {
        self.threads = threads.max(1);
        self
    }

    /// Writes the header to `out` and returns the writer of the payload. Call
    /// [`EncryptingWriter::finish`] at the end: without it the file has no final segment and
    /// every reader rejects it as truncated.
    pub fn writer<W: Write>(self, mut out: W) -> Result<EncryptingWriter<W>, FileError> {
        let stream_prefix = self.module.stream_prefix()?;
        let prefix = stream_prefix.bytes();
        let authenticated = Header::encode(
            self.suite,
            prefix,
            self.module.policy().name(),
            &self.stanzas,
        )?;
        let mac_key = keys::header_mac_key(&self.module, self.suite.prf, &*self.file_key)?;
        let mac = self
            .module
            .mac_key(self.suite.prf.mac(), &mac_key)?
            .sign(&authenticated)?
            .into_value();
        let payload_key = keys::payload_key(&self.module, self.suite, &*self.file_key, &mac)?;
        let aead = self.module.aead_key(self.suite.aead, &payload_key)?;
        out.write_all(&authenticated).map_err(FileError::Output)?;
        out.write_all(&mac).map_err(FileError::Output)?;
        let header = Header {
            suite: self.suite,
            nonce_prefix: prefix,
            policy: self.module.policy().name().to_string(),
            stanzas: self.stanzas,
            authenticated,
            mac,
        }
        .info();
        Ok(EncryptingWriter {
            out,
            segments: Segments {
                aead,
                prefix,
                sealing: Some(stream_prefix),
                threads: self.threads,
            },
            plain: PlainBuffer::new(BATCH_SEGMENTS * SEGMENT_SIZE),
            filled: 0,
            sealed: Vec::new(),
            counter: 0,
            plaintext_bytes: 0,
            file_bytes: header.header_len as u64,
            header,
            failed: false,
        })
    }
}

/// The payload writer of [`Encryptor::writer`]: buffers up to one batch, seals complete
/// segments in parallel and writes them in order.
pub struct EncryptingWriter<W: Write> {
    out: W,
    segments: Segments,
    /// One batch of plaintext, `filled` bytes of it waiting for their segments to fill.
    plain: PlainBuffer,
    filled: usize,
    sealed: Vec<u8>,
    counter: u64,
    plaintext_bytes: u64,
    file_bytes: u64,
    header: HeaderInfo,
    failed: bool,
}

impl<W: Write> EncryptingWriter<W> {
    fn seal_pending(&mut self, last: bool) -> Result<(), FileError> {
        if self.failed {
            return Err(FileError::Module(invalid_input(
                "the writer failed earlier; the file is incomplete",
            )));
        }
        self.failed = true;
        let plain = self.plain.get(0, self.filled);
        let count = plain.len().div_ceil(SEGMENT_SIZE).max(1) as u64;
        if self.counter + count > MAX_SEGMENTS {
            return Err(FileError::Module(invalid_input(
                "a file holds at most 2^32 segments (256 TiB)",
            )));
        }
        let (segments, sealed_len) =
            self.segments
                .seal_batch(plain, self.counter, last, &mut self.sealed)?;
        self.out
            .write_all(&self.sealed[..sealed_len])
            .map_err(FileError::Output)?;
        self.counter += segments;
        self.plaintext_bytes += self.filled as u64;
        self.file_bytes += sealed_len as u64;
        self.filled = 0;
        self.failed = false;
        Ok(())
    }

    /// Reads `input` to its end and encrypts it, straight into the batch buffer.
    ///
    /// Beyond one batch, with more than one thread, the work is pipelined: a scoped thread
    /// reads the input and seals each batch (its segments spread over the threads) while this
    /// thread writes the previous sealed batch, so that reading, sealing and writing (whose
    /// kernel copies dominate on fast storage) overlap. Batches are written in order.
    pub fn write_from(&mut self, input: &mut (impl Read + Send)) -> Result<u64, FileError> {
        if self.failed {
            return Err(FileError::Module(invalid_input(
                "the writer failed earlier; the file is incomplete",
            )));
        }
        let mut total = fill_from(&mut self.plain, &mut self.filled, input)?;
        if self.filled < self.plain.len() {
            return Ok(total);
        }
        if self.segments.threads <= 1 {
            // One thread: read, seal and write in turn.
            loop {
                // A full batch is the last one if the input ends here: look ahead before
                // sealing it as not last.
                let mut lookahead = [0u8; 4096];
                let read = read_some(input, &mut lookahead).map_err(FileError::Io)?;
                if read == 0 {
                    return Ok(total);
                }
                self.seal_pending(false)?;
                self.plain
                    .writable(0, read)
                    .copy_from_slice(&lookahead[..read]);
                self.filled = read;
                total += read as u64;
                total += fill_from(&mut self.plain, &mut self.filled, input)?;
                if self.filled < self.plain.len() {
                    return Ok(total);
                }
            }
        }
        self.failed = true;
        total += self.pipeline(input)?;
        self.failed = false;
        Ok(total)
    }

    /// The pipelined part of [`EncryptingWriter::write_from`], entered with a full batch; leaves
    /// the input's last batch (full or not) unsealed in `plain` for [`EncryptingWriter::finish`].
    fn pipeline(&mut self, input: &mut (impl Read + Send)) -> Result<u64, FileError> {
        use std::sync::mpsc::sync_channel;
        // Two sealed buffers circulate: one being written here, one being sealed.
        let (free_tx, free_rx) = sync_channel::<Vec<u8>>(2);
        let (full_tx, full_rx) = sync_channel::<(Vec<u8>, usize, u64, usize)>(2);
        free_tx
            .send(std::mem::take(&mut self.sealed))
            .and_then(|()| free_tx.send(Vec::new()))
            .map_err(|_| FileError::Module(invalid_input("pipeline start failed")))?;
        let segments = &self.segments;
        let plain = &mut self.plain;
        let filled = &mut self.filled;
        let first_counter = self.counter;
        let out = &mut self.out;
        let mut counter = self.counter;
        let mut plaintext_bytes = self.plaintext_bytes;
        let mut file_bytes = self.file_bytes;
        let result = std::thread::scope(|scope| {
            let producer = scope.spawn(move || -> Result<Option<u64>, FileError> {
                let mut counter = first_counter;
                let mut total = 0u64;
                loop {
                    let mut lookahead = [0u8; 4096];
                    let read = read_some(input, &mut lookahead).map_err(FileError::Io)?;
                    if read == 0 {
                        return Ok(Some(total));
                    }
                    let batch = plain.get(0, *filled);
                    let count = batch.len().div_ceil(SEGMENT_SIZE).max(1) as u64;
                    if counter + count > MAX_SEGMENTS {
                        return Err(FileError::Module(invalid_input(
                            "a file holds at most 2^32 segments (256 TiB)",
                        )));
                    }
                    let Ok(mut sealed) = free_rx.recv() else {
                        // The writer stopped (its error is the one reported).
                        return Ok(None);
                    };
                    let (segments_sealed, sealed_len) =
                        segments.seal_batch(batch, counter, false, &mut sealed)?;
                    if full_tx
                        .send((sealed, sealed_len, segments_sealed, *filled))
                        .is_err()
                    {
                        return Ok(None);
                    }
                    counter += segments_sealed;
                    plain.writable(0, read).copy_from_slice(&lookahead[..read]);
                    *filled = read;
                    total += read as u64;
                    total += fill_from(plain, filled, input)?;
                    if *filled < plain.len() {
                        return Ok(Some(total));
                    }
                }
            });
            let mut written = Ok(());
            while let Ok((sealed, sealed_len, count, plain_len)) = full_rx.recv() {
                if let Err(error) = out.write_all(&sealed[..sealed_len]) {
                    written = Err(FileError::Output(error));
                    break;
                }
                counter += count;
                plaintext_bytes += plain_len as u64;
                file_bytes += sealed_len as u64;
                // A producer that has finished no longer takes buffers back.
                let _ = free_tx.send(sealed);
            }
            // Stops the producer if this side failed first.
            drop(full_rx);
            drop(free_tx);
            let produced = producer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            written?;
            match produced? {
                Some(total) => Ok(total),
                None => Err(FileError::Module(invalid_input(
                    "the encryption pipeline stopped early",
                ))),
            }
        });
        self.counter = counter;
        self.plaintext_bytes = plaintext_bytes;
        self.file_bytes = file_bytes;
        result
    }

    /// Seals the last segment, flushes and returns the output with a summary.
    pub fn finish(mut self) -> Result<(W, Summary), FileError> {
        self.seal_pending(true)?;
        self.out.flush().map_err(FileError::Output)?;
        let summary = Summary {
            header: self.header,
            plaintext_bytes: self.plaintext_bytes,
            file_bytes: self.file_bytes,
            segments: self.counter,
        };
        Ok((self.out, summary))
    }
}

impl<W: Write> Write for EncryptingWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        // A full batch is sealed only once more data arrives: until then it may be the last.
        if self.filled == self.plain.len() {
            self.seal_pending(false)?;
        }
        let take = data.len().min(self.plain.len() - self.filled);
        self.plain
            .writable(self.filled, self.filled + take)
            .copy_from_slice(&data[..take]);
        self.filled += take;
        Ok(take)
    }

    /// Flushes the output; buffered plaintext stays until its segments are complete.
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// An encrypted file whose header has been read: check it, then [`Decryptor::unlock`].
pub struct Decryptor<R: Read> {
    module: Module,
    header: Header,
    input: R,
}

impl<R: Read> Decryptor<R> {
    /// Reads the header and checks that the policy serves the file's algorithms: a file whose
    /// AEAD or PRF the policy does not approve is refused here, with
    /// [`regula::Error::NotApproved`], before any key is tried.
    pub fn new(module: &Module, mut input: R) -> Result<Decryptor<R>, FileError> {
        module.ensure_operational()?;
        let header = Header::read(&mut input)?;
        let mut algorithms = vec![header.suite.aead];
        algorithms.extend(header.suite.prf.algorithms());
        for algorithm in algorithms {
            module.policy().evaluate(algorithm, &Usage::default())?;
        }
        Ok(Decryptor {
            module: module.clone(),
            header,
            input,
        })
    }

    pub fn header(&self) -> HeaderInfo {
        self.header.info()
    }

    /// Finds the stanza the identity opens, checks the header MAC and returns the payload
    /// reader.
    pub fn unlock(self, identity: &Identity<'_>) -> Result<DecryptingReader<R>, FileError> {
        let Decryptor {
            module,
            header,
            input,
        } = self;
        let suite = header.suite;
        for stanza in &header.stanzas {
            let Some(file_key) =
                keys::open_stanza(&module, suite, stanza.kind, &stanza.body, identity)?
            else {
                continue;
            };
            let mac_key = keys::header_mac_key(&module, suite.prf, &file_key)?;
            match module
                .mac_key(suite.prf.mac(), &mac_key)?
                .verify(&header.authenticated, &header.mac)
            {
                Ok(_) => {}
                Err(Error::AuthenticationFailed) => {
                    return Err(FileError::Tampered(
                        "the header was modified (its MAC does not verify)".into(),
                    ));
                }
                Err(error) => return Err(error.into()),
            }
            let payload_key = keys::payload_key(&module, suite, &file_key, &header.mac)?;
            let aead = module.aead_key(suite.aead, &payload_key)?;
            let info = header.info();
            return Ok(DecryptingReader {
                source: Source {
                    input,
                    segments: Segments {
                        aead,
                        prefix: header.nonce_prefix,
                        sealing: None,
                        threads: default_threads(),
                    },
                    sealed: vec![0u8; BATCH_SEGMENTS * SEALED_SEGMENT_SIZE + 1],
                    sealed_len: 0,
                    carry: None,
                    counter: 0,
                    file_bytes: info.header_len as u64,
                },
                plain: PlainBuffer::new(BATCH_SEGMENTS * SEGMENT_SIZE),
                plain_len: 0,
                position: 0,
                state: State::Reading,
                plaintext_bytes: 0,
                header: info,
            });
        }
        Err(FileError::NoMatchingKey)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Reading,
    /// The final segment authenticated; what is buffered is the rest of the plaintext.
    Done,
    Failed,
}

/// The sealed side of a [`DecryptingReader`]: the input and the segment keys.
struct Source<R> {
    input: R,
    segments: Segments,
    /// One batch of file bytes (and the byte after it), `sealed_len` of them current.
    sealed: Vec<u8>,
    sealed_len: usize,
    /// The byte read past a full batch to learn that it was not the end.
    carry: Option<u8>,
    counter: u64,
    file_bytes: u64,
}

/// The payload reader of [`Decryptor::unlock`]: releases a batch of plaintext only once every
/// segment in it has authenticated, and reports end of file only after the final segment.
pub struct DecryptingReader<R: Read> {
    source: Source<R>,
    /// The batch's plaintext, `plain_len` bytes of it current, released from `position` on.
    plain: PlainBuffer,
    plain_len: usize,
    position: usize,
    state: State,
    plaintext_bytes: u64,
    header: HeaderInfo,
}

impl<R: Read> DecryptingReader<R> {
    /// Threads that open a batch (default: the CPUs available, at most 8).
    pub fn threads(&mut self, threads: usize) -> &mut DecryptingReader<R> {
        self.source.segments.threads = threads.max(1);
        self
    }
}

impl<R: Read> Source<R> {
    /// Reads and opens the next batch into `plain`; returns its plaintext length and whether
    /// it is the last. On failure `plain` holds nothing of the batch.
    fn next_batch(&mut self, plain: &mut PlainBuffer) -> Result<(usize, bool), FileError> {
        let target = BATCH_SEGMENTS * SEALED_SEGMENT_SIZE + 1;
        let mut filled = 0;
        if let Some(byte) = self.carry.take() {
            self.sealed[0] = byte;
            filled = 1;
        }
        while filled < target {
            match self.input.read(&mut self.sealed[filled..]) {
                Ok(0) => break,
                Ok(read) => filled += read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(FileError::Io(error)),
            }
        }
        let last = filled < target;
        if !last {
            self.carry = Some(self.sealed[target - 1]);
            filled -= 1;
        }
        self.sealed_len = filled;
        if filled == 0 {
            return Err(FileError::Tampered(
                "the file ends before its first segment (truncated after the header)".into(),
            ));
        }
        let count = filled.div_ceil(SEALED_SEGMENT_SIZE) as u64;
        let tail = filled - (filled - 1) / SEALED_SEGMENT_SIZE * SEALED_SEGMENT_SIZE;
        if tail < TAG_LEN {
            return Err(FileError::Tampered(format!(
                "the file ends {tail} bytes into segment {}, inside a tag (truncated or \
                 extended)",
                self.counter + count - 1
            )));
        }
        if last && tail == TAG_LEN && self.counter + count > 1 {
            return Err(FileError::Tampered(format!(
                "segment {} is empty but not the first (the file was truncated or extended)",
                self.counter + count - 1
            )));
        }
        if self.counter + count > MAX_SEGMENTS {
            return Err(FileError::Format(
                "more than 2^32 segments (256 TiB)".into(),
            ));
        }
        let plain_len = filled - count as usize * TAG_LEN;
        if let Err((index, error)) = self.segments.open_batch(
            &self.sealed[..filled],
            self.counter,
            last,
            plain.writable(0, plain_len),
        ) {
            return Err(self.diagnose(index, last, error));
        }
        self.counter += count;
        self.file_bytes += filled as u64;
        Ok((plain_len, last))
    }

    /// Says why segment `index` of the batch failed: a segment that opens with the other
    /// last-segment flag shows truncation (or data appended after the end). The trial output
    /// is discarded.
    fn diagnose(&self, index: usize, batch_is_last: bool, error: Error) -> FileError {
        if error != Error::AuthenticationFailed {
            return FileError::Module(error);
        }
        let number = self.counter + index as u64;
        let start = index * SEALED_SEGMENT_SIZE;
        let end = (start + SEALED_SEGMENT_SIZE).min(self.sealed_len);
        let segment = &self.sealed[start..end];
        let opened_as_final = batch_is_last && end == self.sealed_len;
        let mut scratch = Zeroizing::new(vec![0u8; segment.len() - TAG_LEN]);
        let other = self
            .segments
            .nonce(number, !opened_as_final)
            .ok()
            .and_then(|nonce| {
                self.segments
                    .aead
                    .open_into(&nonce, &[], segment, &mut scratch)
                    .ok()
            });
        let reason = match (other.is_some(), opened_as_final) {
            (true, true) => format!(
                "the file is truncated: it ends after segment {number}, which is not the last"
            ),
            (true, false) => {
                format!("data follows the final segment {number} (the file was extended)")
            }
            (false, true) if segment.len() < SEALED_SEGMENT_SIZE => format!(
                "segment {number} does not authenticate (the file is truncated inside it, or \
                 it was modified)"
            ),
            (false, _) => format!(
                "segment {number} does not authenticate (modified, reordered, truncated or \
                 taken from another file)"
            ),
        };
        FileError::Tampered(reason)
    }
}

impl<R: Read> DecryptingReader<R> {
    fn fill(&mut self) -> Result<bool, FileError> {
        while self.position == self.plain_len {
            match self.state {
                State::Done => return Ok(false),
                State::Failed => {
                    return Err(FileError::Tampered(
                        "decryption stopped at an earlier error; nothing more is released".into(),
                    ));
                }
                State::Reading => {
                    self.plain_len = 0;
                    self.position = 0;
                    match self.source.next_batch(&mut self.plain) {
                        Ok((plain_len, last)) => {
                            self.plain_len = plain_len;
                            self.plaintext_bytes += plain_len as u64;
                            if last {
                                self.state = State::Done;
                            }
                        }
                        Err(error) => {
                            self.state = State::Failed;
                            self.plain.wipe();
                            return Err(error);
                        }
                    }
                }
            }
        }
        Ok(true)
    }

    /// Decrypts the rest of the file into `out`, batch by batch, and returns the summary once
    /// the final segment has authenticated. On failure, `out` has received the batches that
    /// authenticated before the failing one, and none of that one; the reader then refuses to
    /// go on.
    ///
    /// Beyond one batch, with more than one thread, the work is pipelined: a scoped thread
    /// reads and opens each batch (its segments spread over the threads) while this thread
    /// writes the previous one. Batches are written in order, each once all of its segments
    /// have authenticated.
    pub fn read_to<W: Write + ?Sized>(&mut self, out: &mut W) -> Result<Summary, FileError>
    where
        R: Send,
    {
        while self.fill()? {
            let written = out.write_all(self.plain.get(self.position, self.plain_len));
            self.position = self.plain_len;
            if let Err(error) = written {
                self.state = State::Failed;
                return Err(FileError::Output(error));
            }
            if self.state == State::Reading && self.source.segments.threads > 1 {
                self.pipeline(out)?;
                break;
            }
        }
        Ok(self.summary())
    }

    /// The pipelined part of [`DecryptingReader::read_to`], entered between batches.
    fn pipeline<W: Write + ?Sized>(&mut self, out: &mut W) -> Result<(), FileError>
    where
        R: Send,
    {
        use std::sync::mpsc::sync_channel;
        // Two plaintext buffers circulate: one being written here, one being opened into.
        let (free_tx, free_rx) = sync_channel::<PlainBuffer>(2);
        let (full_tx, full_rx) = sync_channel::<(PlainBuffer, usize, bool)>(2);
        let first = std::mem::replace(&mut self.plain, PlainBuffer::new(0));
        let second = PlainBuffer::new(first.len());
        // Until the final segment has authenticated and been written.
        self.state = State::Failed;
        self.plain_len = 0;
        self.position = 0;
        let _ = free_tx.send(first);
        let _ = free_tx.send(second);
        let source = &mut self.source;
        let plaintext_bytes = &mut self.plaintext_bytes;
        let finished = std::thread::scope(|scope| {
            let producer = scope.spawn(move || -> Result<(), FileError> {
                loop {
                    let Ok(mut plain) = free_rx.recv() else {
                        return Ok(());
                    };
                    // On failure the buffer, wiped, is dropped here.
                    let (plain_len, last) = source.next_batch(&mut plain)?;
                    if full_tx.send((plain, plain_len, last)).is_err() || last {
                        return Ok(());
                    }
                }
            });
            let mut written = Ok(false);
            while let Ok((plain, plain_len, last)) = full_rx.recv() {
                if let Err(error) = out.write_all(plain.get(0, plain_len)) {
                    written = Err(FileError::Output(error));
                    break;
                }
                *plaintext_bytes += plain_len as u64;
                if last {
                    written = Ok(true);
                    break;
                }
                // A producer that has stopped no longer takes buffers back.
                let _ = free_tx.send(plain);
            }
            // Stops the producer if this side failed first.
            drop(full_rx);
            drop(free_tx);
            let produced = producer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            let finished = written?;
            produced?;
            Ok::<bool, FileError>(finished)
        })?;
        if finished {
            self.state = State::Done;
            Ok(())
        } else {
            Err(FileError::Module(invalid_input(
                "the decryption pipeline stopped before the final segment",
            )))
        }
    }

    /// The summary so far (complete once [`Read::read`] has returned 0).
    pub fn summary(&self) -> Summary {
        Summary {
            header: self.header.clone(),
            plaintext_bytes: self.plaintext_bytes,
            file_bytes: self.source.file_bytes,
            segments: self.source.counter,
        }
    }
}

impl<R: Read> Read for DecryptingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || !self.fill()? {
            return Ok(0);
        }
        let available = self.plain.get(self.position, self.plain_len);
        let take = available.len().min(buf.len());
        buf[..take].copy_from_slice(&available[..take]);
        self.position += take;
        Ok(take)
    }
}
