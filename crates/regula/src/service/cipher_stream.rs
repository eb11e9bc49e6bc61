//! Streaming encryption and decryption with OpenSSL's EVP semantics, for callers that receive
//! data in pieces (the OpenSSL provider's `EVP_EncryptUpdate`/`EVP_EncryptFinal_ex`, files,
//! sockets): any number of [`CipherStream::update`] calls with any chunk sizes, then one
//! [`CipherStream::finish`].
//!
//! * ECB and CBC (block size 16, or 8 for DES and 3DES): PKCS#7 padding on by default, as in
//!   OpenSSL; decryption with padding holds the last whole block back until more data comes
//!   or the stream finishes. Turn padding off (before the first update) to match the one-shot
//!   [`CipherKey::encrypt`] of SM4-ECB, DES-CBC and 3DES-CBC, which take whole blocks.
//! * CTR, OFB, CFB, CFB8 and RC4 (block size 1): every update writes exactly its input's
//!   length; the keystream position carries across calls at byte granularity (CTR's 128-bit
//!   counter block is incremented big-endian and wraps at 2^128); finish writes nothing.
//! * XTS (block size 1): the one update with data is the whole data unit (16 bytes to 2^20
//!   blocks) under the stream's tweak. AWS-LC refuses a second data unit under one key and
//!   tweak, and so does every XTS stream here: start a new stream for the next unit.
//! * AES key wrap (KW, KWP) and CBC-CS3 have no stream (OpenSSL runs them in one call too):
//!   [`CipherKey::stream`] refuses them with an input error naming the one-shot calls.
//!
//! A stream counts once in the service indicator and the counters, when it finishes, with the
//! approval its key was bound under (as [`CipherKey::encrypt`] and [`CipherKey::decrypt`]
//! would).

use crate::algorithm::{Algorithm, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::Approval;
use crate::provider::cipher_stream::StreamBackend;
use crate::service::cipher::CipherKey;

/// Whether a stream encrypts or decrypts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

/// SP 800-38E §5.1 and IEEE 1619 §5.1: an XTS data unit has at most 2^20 blocks.
const XTS_MAX_DATA_UNIT: usize = (1 << 20) * 16;

/// Where a stream is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Open,
    Finished,
    /// A call failed part-way (bad padding, a wrong final block length, a backend failure);
    /// the stream gives nothing more.
    Failed,
}

/// An encryption or decryption in progress; see the [module documentation](self). Made by
/// [`CipherKey::stream`]. The key schedule and the stream state (buffered bytes, chaining
/// value, keystream) are wiped when it is dropped.
///
/// ```
/// # use regula::{Algorithm, Direction, Module};
/// let module = Module::load_named("gm")?;
/// let key = module.cipher_key(Algorithm::Sm4Cbc, &[0x42; 16])?;
/// let mut stream = key.stream(Direction::Encrypt, &[7; 16])?;
/// let mut ciphertext = vec![0u8; 64];
/// let mut written = 0;
/// for piece in [&b"a message "[..], b"in three ", b"pieces"] {
///     written += stream.update(piece, &mut ciphertext[written..])?;
/// }
/// let last = stream.finish(&mut ciphertext[written..])?;
/// assert!(last.is_approved());
/// ciphertext.truncate(written + *last);
/// let one_shot = key.encrypt(Some(&[7; 16]), b"a message in three pieces")?;
/// assert_eq!(ciphertext, one_shot.ciphertext);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CipherStream {
    module: Module,
    algorithm: Algorithm,
    approval: Approval,
    direction: Direction,
    backend: StreamBackend,
    block_size: usize,
    padding: bool,
    /// Bytes taken but not yet given out: a partial block, or (decryption with padding) the
    /// held-back last block. Always 0 for block size 1.
    pending: usize,
    /// Bytes taken so far.
    taken: u64,
    state: State,
}

impl std::fmt::Debug for CipherStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CipherStream")
            .field("algorithm", &self.algorithm)
            .field("direction", &self.direction)
            .field("padding", &self.padding)
            .finish_non_exhaustive()
    }
}

/// The modes OpenSSL runs in one call, for which there is no stream.
fn one_shot_only(algorithm: Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::Aes128Kw
            | Algorithm::Aes256Kw
            | Algorithm::Aes128Kwp
            | Algorithm::Aes256Kwp
            | Algorithm::Aes256CbcCs3
            | Algorithm::Sm4CbcCs3
    )
}

fn is_xts(algorithm: Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::Aes256Xts | Algorithm::Sm4Xts | Algorithm::Sm4XtsGb
    )
}

impl CipherKey {
    /// Starts a stream in `direction` under `iv` (the IV, initial counter block or XTS tweak;
    /// empty for ECB and RC4), with the key's algorithm and the policy's verdict taken when the
    /// key was bound. Key wrapping and CBC-CS3 have no stream: they are refused with an input
    /// error naming [`CipherKey::encrypt`] and [`CipherKey::decrypt`].
    pub fn stream(&self, direction: Direction, iv: &[u8]) -> Result<CipherStream> {
        self.module.ensure_operational()?;
        let algorithm = self.algorithm;
        if one_shot_only(algorithm) {
            return Err(Error::invalid_input(format!(
                "{algorithm} has no stream (OpenSSL runs it in one call too): use \
                 CipherKey::encrypt and CipherKey::decrypt, or their _in_place forms"
            )));
        }
        let iv_len = self.iv_len();
        if iv.len() != iv_len {
            return Err(Error::invalid_input(if iv_len == 0 {
                format!("{algorithm} takes no IV, got {} bytes", iv.len())
            } else {
                format!("{algorithm} IV must be {iv_len} bytes, got {}", iv.len())
            }));
        }
        let backend = StreamBackend::new(
            algorithm,
            &self.backend,
            &self.stream_key,
            direction == Direction::Encrypt,
            iv,
        )?;
        Ok(CipherStream {
            module: self.module.clone(),
            algorithm,
            approval: self.approval,
            direction,
            block_size: backend.block_size(),
            backend,
            padding: true,
            pending: 0,
            taken: 0,
            state: State::Open,
        })
    }
}

impl CipherStream {
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The policy's decision on this operation, made when the stream started; the indicator
    /// reports it when the operation finishes.
    pub fn approval(&self) -> Approval {
        self.approval
    }

    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The block size as OpenSSL reports it (`EVP_CIPHER_CTX_get_block_size`): 16 for AES and
    /// SM4 ECB and CBC, 8 for DES-CBC and 3DES-CBC, 1 for CTR, OFB, CFB, CFB8, XTS and RC4.
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// Whether PKCS#7 padding is on (the default, as in OpenSSL; it only matters for ECB and
    /// CBC).
    pub fn padding(&self) -> bool {
        self.padding
    }

    /// Turns PKCS#7 padding on or off for ECB and CBC (OpenSSL's
    /// `EVP_CIPHER_CTX_set_padding`); before the first update with data, since the bytes held
    /// back depend on it. With padding off, the data must be whole blocks (checked at
    /// [`CipherStream::finish`]). For modes of block size 1 there is nothing to pad and this
    /// changes nothing, as in OpenSSL.
    pub fn set_padding(&mut self, padding: bool) -> Result<()> {
        self.usable()?;
        if self.block_size == 1 || padding == self.padding {
            self.padding = padding;
            return Ok(());
        }
        if self.taken != 0 {
            return Err(Error::invalid_input(format!(
                "{}: padding can only be changed before the first update with data",
                self.algorithm
            )));
        }
        self.backend.set_padding(padding)?;
        self.padding = padding;
        Ok(())
    }

    /// The number of bytes the next [`CipherStream::update`] writes for `input_len` bytes of
    /// input: exactly `input_len` for block size 1; for ECB and CBC the whole blocks available
    /// (less the held-back last block when decrypting with padding), at most
    /// `input_len + block_size() - 1`. `input_len + block_size()` is always enough.
    pub fn update_len(&self, input_len: usize) -> usize {
        if self.block_size == 1 {
            return input_len;
        }
        let available = self.pending.saturating_add(input_len);
        let mut whole = available - available % self.block_size;
        if self.direction == Direction::Decrypt && self.padding && whole == available && whole > 0 {
            whole -= self.block_size;
        }
        whole
    }

    /// The most [`CipherStream::finish`] can write: one block when encrypting with padding,
    /// one block less one byte when decrypting with padding, 0 otherwise.
    pub fn finish_len(&self) -> usize {
        match (self.block_size, self.padding, self.direction) {
            (1, _, _) | (_, false, _) => 0,
            (block, true, Direction::Encrypt) => block,
            (block, true, Direction::Decrypt) => block - 1,
        }
    }

    /// Encrypts or decrypts `input` into the start of `output`, which must hold
    /// [`CipherStream::update_len`] bytes (`input.len() + block_size()` always does); returns
    /// the number of bytes written. A too-short `output` or a misplaced XTS unit is an input
    /// error that changes nothing; any other failure wipes what was written to `output` and
    /// ends the stream.
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        self.usable()?;
        if is_xts(self.algorithm) {
            if input.is_empty() {
                return Ok(0);
            }
            self.check_xts_unit(input.len())?;
        }
        let expected = self.update_len(input.len());
        if output.len() < expected {
            return Err(Error::invalid_input(format!(
                "{}: an output buffer of {} bytes is shorter than the {expected} bytes this \
                 update writes",
                self.algorithm,
                output.len()
            )));
        }
        match self.backend.update(self.algorithm, input, output) {
            Ok(written) if written == expected => {
                self.pending = self.pending + input.len() - written;
                self.taken = self.taken.saturating_add(input.len() as u64);
                Ok(written)
            }
            Ok(_) => Err(self.fail(output, input.len(), Error::CryptoFailure)),
            Err(error) => Err(self.fail(output, input.len(), error)),
        }
    }

    /// [`CipherStream::update`] in place, for the modes of block size 1 (CTR, OFB, CFB, CFB8,
    /// XTS, RC4), which write exactly what they take; a block mode is an input error. Any
    /// other failure wipes `data` and ends the stream.
    pub fn update_in_place(&mut self, data: &mut [u8]) -> Result<()> {
        self.usable()?;
        if self.block_size != 1 {
            return Err(Error::invalid_input(format!(
                "{}: a block mode buffers partial blocks and cannot work in place",
                self.algorithm
            )));
        }
        if is_xts(self.algorithm) {
            if data.is_empty() {
                return Ok(());
            }
            self.check_xts_unit(data.len())?;
        }
        match self.backend.update_in_place(self.algorithm, data) {
            Ok(()) => {
                self.taken = self.taken.saturating_add(data.len() as u64);
                Ok(())
            }
            Err(error) => {
                let len = data.len();
                Err(self.fail(data, len, error))
            }
        }
    }

    /// Ends the stream: writes the last (padded) block when encrypting ECB or CBC with padding,
    /// or the last plaintext with its padding checked and removed when decrypting, into
    /// `output` (which must hold [`CipherStream::finish_len`] bytes); nothing for the other
    /// modes. Returns the number of bytes written, served with the stream's indicator: the
    /// stream counts once, here.
    ///
    /// Errors: with padding off, data that is not whole blocks; when decrypting with padding, a
    /// ciphertext that is not a non-zero number of whole blocks (input errors), or bad padding
    /// (a cryptographic failure, nothing written). Either ends the stream; a second `finish`
    /// is an input error.
    pub fn finish(&mut self, output: &mut [u8]) -> Result<Served<usize>> {
        self.usable()?;
        if let Some(reason) = self.wrong_final_length() {
            self.state = State::Failed;
            return Err(Error::invalid_input(reason));
        }
        let needed = self.finish_len();
        if output.len() < needed {
            return Err(Error::invalid_input(format!(
                "{}: an output buffer of {} bytes is shorter than the {needed} bytes finish may \
                 write",
                self.algorithm,
                output.len()
            )));
        }
        match self.backend.finish(output) {
            Ok(written) => {
                self.state = State::Finished;
                self.pending = 0;
                let service = match self.direction {
                    Direction::Encrypt => Service::Encrypt,
                    Direction::Decrypt => Service::Decrypt,
                };
                Ok(self
                    .module
                    .serve(self.algorithm, service, self.approval, written))
            }
            Err(error) => Err(self.fail(output, 0, error)),
        }
    }

    /// An independent copy of the stream in its current state (OpenSSL's
    /// `EVP_CIPHER_CTX_copy`): both continue from here and give the same output for the same
    /// input; each counts once when it finishes.
    pub fn try_clone(&self) -> Result<CipherStream> {
        self.usable()?;
        Ok(CipherStream {
            module: self.module.clone(),
            algorithm: self.algorithm,
            approval: self.approval,
            direction: self.direction,
            backend: self.backend.try_clone()?,
            block_size: self.block_size,
            padding: self.padding,
            pending: self.pending,
            taken: self.taken,
            state: self.state,
        })
    }

    /// The module is operational and the stream open.
    fn usable(&self) -> Result<()> {
        self.module.ensure_operational()?;
        match self.state {
            State::Open => Ok(()),
            State::Finished => Err(Error::invalid_input(format!(
                "{} stream already finished; start a new stream",
                self.algorithm
            ))),
            State::Failed => Err(Error::invalid_input(format!(
                "{} stream failed earlier and gives nothing more; start a new stream",
                self.algorithm
            ))),
        }
    }

    /// XTS: one data unit of 16 bytes to 2^20 blocks, once per stream.
    fn check_xts_unit(&self, len: usize) -> Result<()> {
        if self.taken != 0 {
            return Err(Error::invalid_input(format!(
                "{} takes one data unit per stream (one tweak); start a new stream with the \
                 next unit's tweak",
                self.algorithm
            )));
        }
        if !(16..=XTS_MAX_DATA_UNIT).contains(&len) {
            return Err(Error::invalid_input(format!(
                "{} data units are 16 bytes to 2^20 blocks (SP 800-38E, IEEE 1619), got {len} \
                 bytes",
                self.algorithm
            )));
        }
        Ok(())
    }

    /// Why the data taken cannot end here (OpenSSL's "wrong final block length"), if so.
    fn wrong_final_length(&self) -> Option<String> {
        let block = self.block_size;
        if block == 1 {
            return None;
        }
        let (algorithm, taken) = (self.algorithm, self.taken);
        match (self.direction, self.padding) {
            (Direction::Encrypt, true) => None,
            (Direction::Decrypt, true) => (self.pending != block).then(|| {
                format!(
                    "{algorithm} ciphertext must be a non-zero multiple of {block} bytes, got \
                     {taken} (wrong final block length)"
                )
            }),
            (_, false) => (self.pending != 0).then(|| {
                format!(
                    "{algorithm} with padding off takes whole {block}-byte blocks, got {taken} \
                     bytes (wrong final block length)"
                )
            }),
        }
    }

    /// Ends the stream after a failure, wiping whatever the failed call may have written.
    #[cold]
    fn fail(&mut self, output: &mut [u8], input_len: usize, error: Error) -> Error {
        let written = input_len.saturating_add(self.block_size).min(output.len());
        zeroize::Zeroize::zeroize(&mut output[..written]);
        self.state = State::Failed;
        error
    }
}
