//! `OSSL_OP_CIPHER`: the block-cipher modes and AEADs the policy serves, with OpenSSL's
//! streaming semantics (the core's `CipherStream` and `AeadStream`), its parameters (IV and tag
//! lengths, tags, padding, SM4-XTS's standard), and the one-call modes (CCM, key wrap,
//! CBC-CS3) as OpenSSL runs them.
//!
//! For modes of block size 1 OpenSSL gives `final` no room for output, so every byte leaves
//! in `update`; a decrypting AEAD therefore releases plaintext before the tag is checked in
//! `final`, exactly as OpenSSL's own implementation does.

use std::os::raw::{c_int, c_uchar, c_void};

use regula::{
    AeadKey, AeadStream, Algorithm, CipherKey, CipherStream, Direction, Family, Module, Policy,
    Tls13NonceSequence, registry,
};
use zeroize::Zeroizing;

use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::params::{self, ParamRef, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};

// EVP_CIPH_*_MODE (openssl/evp.h).
const MODE_STREAM: i64 = 0x0;
const MODE_ECB: i64 = 0x1;
const MODE_CBC: i64 = 0x2;
const MODE_CFB: i64 = 0x3;
const MODE_OFB: i64 = 0x4;
const MODE_CTR: i64 = 0x5;
const MODE_GCM: i64 = 0x6;
const MODE_CCM: i64 = 0x7;
const MODE_XTS: i64 = 0x10001;
const MODE_WRAP: i64 = 0x10002;

/// How OpenSSL drives an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// update/final streaming (`CipherStream`).
    Stream,
    /// AAD by update without output, data by update, tag at final (`AeadStream`).
    Aead,
    /// CCM: message length first, AAD in one call, data in one call.
    Ccm,
    /// Key wrap and CBC-CS3: each update is a whole message.
    OneCall,
}

fn kind(algorithm: Algorithm) -> Kind {
    use Algorithm::*;
    match algorithm {
        Aes128Ccm | Aes256Ccm | Sm4Ccm => Kind::Ccm,
        Aes128Gcm | Aes256Gcm | Sm4Gcm | ChaCha20Poly1305 => Kind::Aead,
        Aes128Kw | Aes256Kw | Aes128Kwp | Aes256Kwp | Aes256CbcCs3 | Sm4CbcCs3 => Kind::OneCall,
        _ => Kind::Stream,
    }
}

fn mode(algorithm: Algorithm) -> i64 {
    use Algorithm::*;
    match algorithm {
        Aes128Gcm | Aes256Gcm | Sm4Gcm => MODE_GCM,
        Aes128Ccm | Aes256Ccm | Sm4Ccm => MODE_CCM,
        Aes128Ctr | Aes256Ctr | Sm4Ctr => MODE_CTR,
        Aes128Cbc | Aes256Cbc | Aes256CbcCs3 | Sm4Cbc | Sm4CbcCs3 | DesCbc | DesEde3Cbc => MODE_CBC,
        Aes256Xts | Sm4Xts | Sm4XtsGb => MODE_XTS,
        Aes128Cfb8 | Aes256Cfb8 | Sm4Cfb => MODE_CFB,
        Sm4Ofb => MODE_OFB,
        Sm4Ecb => MODE_ECB,
        Aes128Kw | Aes256Kw | Aes128Kwp | Aes256Kwp => MODE_WRAP,
        _ => MODE_STREAM,
    }
}

/// The block size OpenSSL reports: the cipher's block for ECB/CBC (and the CTS and wrap
/// modes), 1 for every stream mode.
fn block_size(algorithm: Algorithm) -> usize {
    use Algorithm::*;
    match mode(algorithm) {
        MODE_ECB | MODE_CBC => registry::entry(algorithm).sizes.block.unwrap_or(16),
        MODE_WRAP => 8,
        _ => match algorithm {
            Aes256CbcCs3 | Sm4CbcCs3 => 16,
            _ => 1,
        },
    }
}

fn key_len(algorithm: Algorithm) -> usize {
    registry::entry(algorithm)
        .sizes
        .key
        .map_or(0, |key| key.min)
}

/// The IV length OpenSSL reports for the algorithm: 12 for GCM, CCM and ChaCha20-Poly1305,
/// the mode's IV (or tweak) otherwise, 8 and 4 for KW and KWP (their integrity check value).
fn default_iv_len(algorithm: Algorithm) -> usize {
    use Algorithm::*;
    match algorithm {
        Aes128Kw | Aes256Kw => 8,
        Aes128Kwp | Aes256Kwp => 4,
        _ => match kind(algorithm) {
            Kind::Aead | Kind::Ccm => 12,
            _ => registry::entry(algorithm).sizes.iv.unwrap_or(0),
        },
    }
}

/// One offer per OpenSSL name: the two SM4-XTS rows (IEEE 1619 and GB/T 17964) share
/// `SM4-XTS` and are told apart by the `xts_standard` parameter.
pub fn offers(policy: &Policy) -> Vec<Offer> {
    let mut offers: Vec<Offer> = Vec::new();
    for family in [Family::Cipher, Family::Aead] {
        for row in served_rows(policy, family) {
            let Some(openssl) = &row.openssl else {
                continue;
            };
            if let Some(offer) = offers
                .iter_mut()
                .find(|offer| offer.names.split(':').next() == Some(openssl.canonical()))
            {
                offer.approved |= policy.approves(row.algorithm);
                continue;
            }
            offers.push(Offer {
                names: openssl.names.to_owned(),
                approved: policy.approves(row.algorithm),
                dispatch: &tables()[row.algorithm.index()],
                description: format!("Regula {}", row.name),
            });
        }
    }
    offers
}

crate::per_algorithm_tables!(table);

fn table<const A: usize>() -> Box<[Dispatch]> {
    Box::new([
        crate::dispatch_fn!(ffi::CIPHER_NEWCTX, newctx::<A>),
        crate::dispatch_fn!(ffi::CIPHER_ENCRYPT_INIT, encrypt_init),
        crate::dispatch_fn!(ffi::CIPHER_DECRYPT_INIT, decrypt_init),
        crate::dispatch_fn!(ffi::CIPHER_UPDATE, update),
        crate::dispatch_fn!(ffi::CIPHER_FINAL, finalize),
        crate::dispatch_fn!(ffi::CIPHER_CIPHER, cipher),
        crate::dispatch_fn!(ffi::CIPHER_FREECTX, crate::context::free::<Context>),
        crate::dispatch_fn!(ffi::CIPHER_DUPCTX, crate::context::duplicate::<Context>),
        crate::dispatch_fn!(ffi::CIPHER_GET_PARAMS, get_params::<A>),
        crate::dispatch_fn!(ffi::CIPHER_GETTABLE_PARAMS, gettable_params),
        crate::dispatch_fn!(ffi::CIPHER_GET_CTX_PARAMS, get_ctx_params),
        crate::dispatch_fn!(ffi::CIPHER_GETTABLE_CTX_PARAMS, gettable_ctx_params),
        crate::dispatch_fn!(ffi::CIPHER_SET_CTX_PARAMS, set_ctx_params),
        crate::dispatch_fn!(ffi::CIPHER_SETTABLE_CTX_PARAMS, settable_ctx_params),
        ffi::DISPATCH_END,
    ])
}

/// The core's key object.
enum Keyed {
    Cipher(Box<CipherKey>),
    Aead(AeadKey),
}

/// The operation in progress.
enum Running {
    Cipher(CipherStream),
    Aead(AeadStream),
}

impl Running {
    fn try_clone(&self) -> regula::Result<Running> {
        Ok(match self {
            Running::Cipher(stream) => Running::Cipher(stream.try_clone()?),
            Running::Aead(stream) => Running::Aead(stream.try_clone()?),
        })
    }
}

/// One cipher context (`EVP_CIPHER_CTX`'s provider half).
pub struct Context {
    module: Module,
    /// The row; for SM4-XTS, `xts_standard` may switch it to the other row.
    algorithm: Algorithm,
    encrypt: bool,
    /// The key as given: each operation keys the core's key object from it, so that a tag
    /// length or XTS standard set after the key still applies. Wiped on drop.
    key: Option<Zeroizing<Vec<u8>>>,
    iv: Option<Vec<u8>>,
    iv_len: usize,
    padding: bool,
    running: Option<Running>,
    /// AEAD: the tag computed by encryption, or the one decryption must check; empty when
    /// there is none (tags are never empty). One buffer for every message of the context.
    tag: Vec<u8>,
    /// AEAD: the tag length asked for (CCM's M; a truncated GCM tag to check).
    tag_len: usize,
    /// CCM: the message length announced, and the AAD given.
    ccm_len: Option<usize>,
    ccm_aad: Vec<u8>,
    /// CBC and CTR: where the mode has got to, for `updated-iv`.
    chain: Chain,
    /// The core's key object for the current key, row and tag length, kept across IV changes
    /// (OpenSSL re-initialises a context with a new IV for every TLS record and every
    /// `speed` call); rebuilt when any of the three changes.
    keyed: Option<(Algorithm, usize, Keyed)>,
    /// `running` holds the AEAD stream of an earlier message (ended or abandoned), which the
    /// next use restarts in place (`AeadKey::restart_stream`, which keeps the keyed AWS-LC
    /// state; nothing is moved per message). Only ever set with an AEAD stream in `running`.
    stale: bool,
    last: LastOperation,
    /// libssl's TLS 1.2 record form (tls_record.rs).
    tls: crate::tls_record::TlsRecord,
    /// AEAD encryption: TLS 1.3's record nonces, counted by the module (see [`Tls13Nonces`]).
    tls13: Tls13Nonces,
}

/// libssl seals each TLS 1.3 record under `write_iv XOR n` (RFC 8446 §5.3), giving the nonce as
/// the record's IV. When the first IV after a key is a write IV this provider's TLS13-KDF
/// derived (tls13_ivs.rs), the module counts the sequence from it (`Tls13NonceSequence`): while
/// the IVs follow it, records are sealed with the module's nonce, which is approved where a
/// caller's nonce is not (fips-140-3, IG C.H: TLS 1.3). Any other first IV, or an IV that breaks
/// the sequence, leaves the key's records a caller's nonce, as for any other program.
enum Tls13Nonces {
    /// No IV yet under this key.
    Unstarted,
    Counting(Tls13NonceSequence),
    /// Broken, or a copied context or a rebuilt key object with the same key bytes, whose
    /// sequence could meet the original's nonces.
    Off,
}

impl Tls13Nonces {
    /// Whether `iv` is the sequence's next nonce (starting the sequence at the first IV, if the
    /// TLS13-KDF derived it).
    fn follows(&mut self, key: &AeadKey, iv: &[u8]) -> bool {
        match self {
            Tls13Nonces::Unstarted => {
                let sequence = crate::tls13_ivs::take(iv)
                    .then(|| key.tls13_nonce_sequence(iv).ok())
                    .flatten();
                let started = sequence.is_some();
                *self = sequence.map_or(Tls13Nonces::Off, Tls13Nonces::Counting);
                started
            }
            Tls13Nonces::Counting(sequence) => {
                let follows = sequence.next_nonce().is_some_and(|next| next[..] == *iv);
                if !follows {
                    *self = Tls13Nonces::Off;
                }
                follows
            }
            Tls13Nonces::Off => false,
        }
    }
}

/// The chaining state OpenSSL reports as `updated-iv` and `num`: for CBC the last ciphertext
/// block the block cipher has processed, for CTR the next counter block, for CFB the shift
/// register (the last ciphertext). Only public values are kept (ciphertext, and how many bytes
/// went through); OFB's register is keystream, which is not kept.
#[derive(Clone, Default)]
struct Chain {
    /// Bytes of input taken and of output given so far.
    taken: u64,
    given: u64,
    /// The last bytes of the ciphertext stream (output when encrypting, input when
    /// decrypting), ending at `ciphertext_end`.
    ciphertext: std::collections::VecDeque<u8>,
}

/// How much of the ciphertext stream [`Chain`] keeps: enough for one block behind a held-back
/// block and a partial one.
const CHAIN_WINDOW: usize = 64;

impl Chain {
    fn record(&mut self, ciphertext: &[u8], taken: usize, given: usize) {
        self.taken += taken as u64;
        self.given += given as u64;
        // Only the window's worth at the end of a long update can be kept.
        let tail = &ciphertext[ciphertext.len().saturating_sub(CHAIN_WINDOW)..];
        self.ciphertext.extend(tail.iter().copied());
        let excess = self.ciphertext.len().saturating_sub(CHAIN_WINDOW);
        self.ciphertext.drain(..excess);
    }

    /// CBC's next IV: the ciphertext block ending where the block cipher stopped, which is
    /// `given` bytes into the stream in both directions.
    fn cbc_iv(&self, encrypt: bool) -> Option<Vec<u8>> {
        let end_of_stream = if encrypt { self.given } else { self.taken };
        let behind = usize::try_from(end_of_stream - self.given).ok()?;
        let len = self.ciphertext.len();
        if self.given < 16 || len < behind + 16 {
            return None;
        }
        let end = len - behind;
        Some(self.ciphertext.range(end - 16..end).copied().collect())
    }

    /// CTR's next counter block: the initial one plus the blocks begun (a 128-bit count).
    fn ctr_iv(&self, initial: &[u8]) -> Option<Vec<u8>> {
        let initial: [u8; 16] = initial.try_into().ok()?;
        let blocks = u128::from(self.taken.div_ceil(16));
        Some(
            u128::from_be_bytes(initial)
                .wrapping_add(blocks)
                .to_be_bytes()
                .to_vec(),
        )
    }

    /// CFB's shift register: the last `initial.len()` bytes of the IV followed by the
    /// ciphertext stream. With 128-bit segments it is defined only at a segment boundary
    /// (inside a segment OpenSSL's holds keystream, which is not kept).
    fn cfb_iv(&self, initial: &[u8], segment: usize) -> Option<Vec<u8>> {
        let width = initial.len();
        if !self.taken.is_multiple_of(segment as u64) {
            return None;
        }
        let from_stream = usize::try_from(self.taken).map_or(width, |taken| taken.min(width));
        if self.ciphertext.len() < from_stream {
            return None;
        }
        let mut register = initial[from_stream..].to_vec();
        register.extend(self.ciphertext.range(self.ciphertext.len() - from_stream..));
        Some(register)
    }

    /// OpenSSL's `num`: the bytes used of the current keystream block (CTR, OFB and 128-bit
    /// CFB; 0 for every other mode).
    fn num(&self, algorithm: Algorithm) -> usize {
        match (mode(algorithm), algorithm) {
            (MODE_CTR | MODE_OFB, _) | (MODE_CFB, Algorithm::Sm4Cfb) => (self.taken % 16) as usize,
            _ => 0,
        }
    }
}

/// After an update of XTS, whose unit is complete: the unit finished now, so that it is
/// counted, and its indicator; None for every other mode.
fn finish_unit(
    stream: &mut regula::CipherStream,
    whole_unit: bool,
) -> Result<Option<regula::Indicator>, Failure> {
    Ok(if whole_unit {
        Some(stream.finish(&mut [])?.indicator())
    } else {
        None
    })
}

unsafe extern "C" fn newctx<const A: usize>(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        let Some(&algorithm) = Algorithm::ALL.get(A) else {
            return std::ptr::null_mut();
        };
        // OpenSSL's SM4-XTS follows GB/T 17964 unless `xts_standard` says IEEE.
        let algorithm = match algorithm {
            Algorithm::Sm4Xts => Algorithm::Sm4XtsGb,
            other => other,
        };
        crate::context::into_raw(Context {
            module: provider.module.clone(),
            algorithm,
            encrypt: true,
            key: None,
            iv: None,
            iv_len: default_iv_len(algorithm),
            padding: true,
            running: None,
            tag: Vec::new(),
            tag_len: registry::entry(algorithm)
                .sizes
                .tag
                .map_or(16, |tag| tag.max),
            ccm_len: None,
            ccm_aad: Vec::new(),
            chain: Chain::default(),
            keyed: None,
            stale: false,
            last: LastOperation::default(),
            tls: Default::default(),
            tls13: Tls13Nonces::Unstarted,
        })
    })
}

/// # Safety
/// As for [`context::borrow`].
unsafe fn context<'a>(ctx: *mut c_void) -> Result<&'a mut Context, Failure> {
    // SAFETY: the caller's contract.
    unsafe { crate::context::borrow(ctx, "cipher context") }
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "cipher context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(Context {
            module: self.module.clone(),
            algorithm: self.algorithm,
            encrypt: self.encrypt,
            key: self.key.clone(),
            iv: self.iv.clone(),
            iv_len: self.iv_len,
            padding: self.padding,
            // A stale stream has no message to copy.
            running: match self.stale {
                true => None,
                false => self.running.as_ref().map(Running::try_clone).transpose()?,
            },
            tag: self.tag.clone(),
            tag_len: self.tag_len,
            ccm_len: self.ccm_len,
            ccm_aad: self.ccm_aad.clone(),
            chain: self.chain.clone(),
            // The copy keys its own object from the key bytes when it first needs one.
            keyed: None,
            stale: false,
            last: self.last,
            tls: self.tls.duplicate(),
            // A copy counting the same sequence would repeat the original's nonces.
            tls13: Tls13Nonces::Off,
        })
    }
}

impl Context {
    fn kind(&self) -> Kind {
        kind(self.algorithm)
    }

    /// Forgets the operation in progress (a new key, IV or direction starts a new one).
    fn reset(&mut self) {
        // An AEAD stream stays where it is, for the next message to restart in place.
        if matches!(self.running, Some(Running::Aead(_))) {
            self.stale = true;
        } else {
            self.running = None;
        }
        self.chain = Chain::default();
        self.ccm_len = None;
        self.ccm_aad.clear();
        if self.encrypt {
            self.tag.clear();
        }
    }

    fn init(
        &mut self,
        encrypt: bool,
        key: Option<&[u8]>,
        iv: Option<&[u8]>,
        params: &Params,
    ) -> Result<(), Failure> {
        self.encrypt = encrypt;
        self.reset();
        self.apply(params)?;
        if let Some(key) = key {
            let expected = key_len(self.algorithm);
            if expected != 0 && key.len() != expected {
                return Err(fail(
                    Reason::InvalidKeyLength,
                    format!(
                        "{}: key must be {expected} bytes, got {}",
                        self.algorithm,
                        key.len()
                    ),
                ));
            }
            // Programs re-initialise with the same key for every message (`openssl speed`
            // does): the key object is kept when the bytes are equal.
            let same = self
                .key
                .as_deref()
                .is_some_and(|current| regula::equal_in_constant_time(current, key));
            if !same {
                self.key = Some(Zeroizing::new(key.to_vec()));
                self.keyed = None;
                self.tls13 = Tls13Nonces::Unstarted;
            }
            // A new key needs a TLS record sealer of its own (the same key bytes keep theirs,
            // whose count goes on); the fixed IV stays (libssl gives CCM's before the key,
            // GCM's after it).
            self.tls.rekey(!same);
        }
        if let Some(iv) = iv {
            if iv.len() != self.iv_len {
                return Err(fail(
                    Reason::InvalidInput,
                    format!(
                        "{}: IV must be {} bytes, got {}",
                        self.algorithm,
                        self.iv_len,
                        iv.len()
                    ),
                ));
            }
            // Reuses the buffer: a program may re-IV the context for every message.
            let current = self.iv.get_or_insert_with(Vec::new);
            current.clear();
            current.extend_from_slice(iv);
        }
        Ok(())
    }

    fn direction(&self) -> Direction {
        if self.encrypt {
            Direction::Encrypt
        } else {
            Direction::Decrypt
        }
    }

    fn key(&self) -> Result<&[u8], Failure> {
        self.key.as_deref().map(Vec::as_slice).ok_or_else(|| {
            fail(
                Reason::OutOfOrder,
                format!("{}: no key set", self.algorithm),
            )
        })
    }

    fn iv(&self) -> Result<&[u8], Failure> {
        if self.iv_len == 0 {
            return Ok(&[]);
        }
        self.iv.as_deref().ok_or_else(|| self.no_iv())
    }

    fn no_iv(&self) -> Failure {
        fail(Reason::OutOfOrder, format!("{}: no IV set", self.algorithm))
    }

    fn cipher_key(&self) -> Result<CipherKey, Failure> {
        Ok(self.module.cipher_key(self.algorithm, self.key()?)?)
    }

    fn aead_key(&self) -> Result<AeadKey, Failure> {
        let full = registry::entry(self.algorithm)
            .sizes
            .tag
            .map_or(16, |tag| tag.max);
        let key = self.key()?;
        Ok(if self.tag_len == full {
            self.module.aead_key(self.algorithm, key)?
        } else {
            self.module
                .aead_key_with_tag_len(self.algorithm, key, self.tag_len)?
        })
    }

    /// The core's key object for the current key, row and tag length (see `keyed`).
    fn keyed(&mut self) -> Result<&Keyed, Failure> {
        let current = matches!(&self.keyed, Some((algorithm, tag_len, _))
            if *algorithm == self.algorithm && *tag_len == self.tag_len);
        if !current {
            let keyed = match self.kind() {
                Kind::Aead | Kind::Ccm => Keyed::Aead(self.aead_key()?),
                Kind::Stream | Kind::OneCall => Keyed::Cipher(Box::new(self.cipher_key()?)),
            };
            // A stream of the previous key object cannot carry the new one, nor its TLS 1.3
            // sequence (a sequence started afresh under the same key bytes could meet the old
            // one's nonces, unless the key bytes are new: see `init`).
            if self.keyed.is_some() {
                self.tls13 = Tls13Nonces::Off;
            }
            self.keyed = Some((self.algorithm, self.tag_len, keyed));
            if self.stale {
                self.running = None;
                self.stale = false;
            }
        }
        match &self.keyed {
            Some((_, _, keyed)) => Ok(keyed),
            None => Err(fail(Reason::Internal, "no key object")),
        }
    }

    /// The running operation, started on first use (and an AEAD stream restarted in place for
    /// each message).
    fn running(&mut self) -> Result<&mut Running, Failure> {
        if self.running.is_none() || self.stale {
            // Taken out of the context while the stream starts (and put back whatever the
            // outcome), rather than copied for every message.
            let iv = self.iv.take();
            let started = self.start_running(iv.as_deref());
            self.iv = iv;
            if let Err(failure) = started {
                // What is left is at most an AEAD stream, which gives nothing more until a
                // later start restarts it.
                self.stale = matches!(self.running, Some(Running::Aead(_)));
                if !self.stale {
                    self.running = None;
                }
                return Err(failure);
            }
        }
        self.running
            .as_mut()
            .ok_or_else(|| fail(Reason::Internal, "no running operation"))
    }

    /// Starts the operation for [`Self::running`] under `iv`, into `running`.
    fn start_running(&mut self, iv: Option<&[u8]>) -> Result<(), Failure> {
        let iv = match iv {
            _ if self.iv_len == 0 => &[][..],
            Some(iv) => iv,
            None => return Err(self.no_iv()),
        };
        let (direction, encrypt, padding) = (self.direction(), self.encrypt, self.padding);
        let padded_mode = block_size(self.algorithm) > 1;
        // Keying first: a new key object drops the stale stream of the previous one.
        self.keyed()?;
        let Some((_, _, keyed)) = &self.keyed else {
            return Err(fail(Reason::Internal, "no key object"));
        };
        match keyed {
            Keyed::Cipher(key) => {
                self.running = None;
                let mut stream = key.stream(direction, iv)?;
                if padded_mode {
                    stream.set_padding(padding)?;
                }
                self.running = Some(Running::Cipher(stream));
            }
            Keyed::Aead(key) if encrypt && self.tls13.follows(key, iv) => {
                let spare = match self.running.take() {
                    Some(Running::Aead(stream)) => Some(stream),
                    _ => None,
                };
                self.stale = false;
                let Tls13Nonces::Counting(sequence) = &mut self.tls13 else {
                    return Err(fail(Reason::Internal, "no TLS 1.3 nonce sequence"));
                };
                self.running = Some(Running::Aead(key.encrypt_stream_tls13(sequence, spare)?));
            }
            Keyed::Aead(key) => match &mut self.running {
                // The earlier message's stream, in place.
                Some(Running::Aead(stream)) if stream.is_encrypting() == encrypt => {
                    key.restart_stream(stream, iv)?
                }
                _ => {
                    self.running = None;
                    self.stale = false;
                    let stream = if encrypt {
                        key.encrypt_stream(iv)?
                    } else {
                        key.decrypt_stream(iv)?
                    };
                    self.running = Some(Running::Aead(stream));
                }
            },
        }
        self.stale = false;
        if matches!(self.kind(), Kind::Ccm | Kind::OneCall) {
            return Err(fail(Reason::Internal, "no stream for a one-call mode"));
        }
        // A stream gives output from its first update: a non-approved one is put to the
        // application's indicator callback before it starts.
        let approval = match &self.running {
            Some(Running::Cipher(stream)) => stream.approval(),
            Some(Running::Aead(stream)) => stream.approval(),
            None => return Err(fail(Reason::Internal, "no running operation")),
        };
        if !approval.is_approved() {
            let service = if encrypt { "encrypt" } else { "decrypt" };
            indicator::permit_unapproved(self.algorithm, service)?;
        }
        Ok(())
    }

    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        for param in params.iter() {
            self.apply_one(&param)?;
        }
        Ok(())
    }

    fn apply_one(&mut self, param: &ParamRef<'_>) -> Result<(), Failure> {
        match param.key {
            "padding" => {
                self.padding = param.get_i64()? != 0;
                if let Some(Running::Cipher(stream)) = &mut self.running {
                    stream.set_padding(self.padding)?;
                }
            }
            "keylen" => {
                let len = param.get_usize()?;
                if len != key_len(self.algorithm) {
                    return Err(fail(
                        Reason::InvalidInput,
                        format!(
                            "{} takes {}-byte keys only",
                            self.algorithm,
                            key_len(self.algorithm)
                        ),
                    ));
                }
            }
            "ivlen" if matches!(self.kind(), Kind::Aead | Kind::Ccm) => {
                let len = param.get_usize()?;
                // As in OpenSSL, the length the context has already changes nothing: programs
                // set it before every message (libssl, `speed`), and the IV set stays.
                if len == self.iv_len {
                    return Ok(());
                }
                let allowed = registry::entry(self.algorithm).sizes.nonce;
                if !allowed.is_some_and(|nonce| nonce.contains(len)) {
                    return Err(fail(
                        Reason::NotApproved,
                        format!("{}: a {len}-byte IV is not served", self.algorithm),
                    ));
                }
                self.iv_len = len;
                self.iv = None;
                self.reset();
            }
            "tag" if matches!(self.kind(), Kind::Aead | Kind::Ccm) => {
                let tag = param.get_octets_or_len()?;
                match tag {
                    // A length alone (CCM's M before encryption).
                    Err(len) => self.set_tag_len(len)?,
                    Ok(tag) => {
                        if self.encrypt {
                            return Err(fail(
                                Reason::InvalidInput,
                                "a tag can only be set for decryption",
                            ));
                        }
                        self.set_tag_len(tag.len())?;
                        self.tag.clear();
                        self.tag.extend_from_slice(tag);
                    }
                }
            }
            "xts_standard" if matches!(self.algorithm, Algorithm::Sm4Xts | Algorithm::Sm4XtsGb) => {
                let standard = param.get_utf8()?;
                self.algorithm = match standard.as_str() {
                    "GB" => Algorithm::Sm4XtsGb,
                    "IEEE" => Algorithm::Sm4Xts,
                    other => {
                        return Err(fail(
                            Reason::BadParameter,
                            format!("xts_standard must be GB or IEEE, got {other}"),
                        ));
                    }
                };
                self.reset();
            }
            "cts_mode" => {
                let mode = param.get_utf8()?;
                if !matches!(
                    self.algorithm,
                    Algorithm::Aes256CbcCs3 | Algorithm::Sm4CbcCs3
                ) {
                    return Err(fail(
                        Reason::NotApproved,
                        format!(
                            "{}: ciphertext stealing is served only by the CBC-CTS algorithms",
                            self.algorithm
                        ),
                    ));
                }
                if !mode.eq_ignore_ascii_case("CS3") {
                    return Err(fail(
                        Reason::NotApproved,
                        format!(
                            "{}: only CS3 ciphertext stealing is served, not {mode}",
                            self.algorithm
                        ),
                    ));
                }
            }
            "tlsivfixed" | "tlsaad" if matches!(self.kind(), Kind::Aead | Kind::Ccm) => {
                let (algorithm, encrypt, tag_len) = (self.algorithm, self.encrypt, self.tag_len);
                self.tls.set(param, algorithm, encrypt, tag_len)?;
            }
            "tlsivinv" if !crate::tls_record::is_gcm(self.algorithm) => {
                return Err(fail(
                    Reason::NotApproved,
                    format!("{}: tlsivinv is served for GCM only", self.algorithm),
                ));
            }
            "tlsivinv" => {
                if self.encrypt {
                    return Err(fail(
                        Reason::OutOfOrder,
                        "tlsivinv is for decryption (encryption takes tlsivgen)",
                    ));
                }
                let nonce = self.tls.nonce_for(param.get_octets()?)?;
                if self.iv_len != nonce.len() {
                    return Err(fail(
                        Reason::InvalidInput,
                        format!(
                            "{}: the TLS invocation IV is {} bytes, the context's IV {}",
                            self.algorithm,
                            nonce.len(),
                            self.iv_len
                        ),
                    ));
                }
                // The next message opens under `fixed ‖ invocation`.
                self.reset();
                self.iv = Some(nonce.to_vec());
            }
            "num" if param.get_usize()? != 0 => {
                return Err(fail(Reason::InvalidInput, "num must be 0"));
            }
            _ => {}
        }
        Ok(())
    }

    fn set_tag_len(&mut self, len: usize) -> Result<(), Failure> {
        let allowed = registry::entry(self.algorithm).sizes.tag;
        if !allowed.is_some_and(|tag| tag.contains(len)) {
            return Err(fail(
                Reason::NotApproved,
                format!("{}: a {len}-byte tag is not served", self.algorithm),
            ));
        }
        if self.running.is_some() && !self.stale && len != self.tag_len {
            // The tag length keys the core's AEAD: a stream under way keeps its own.
            if let Some(Running::Aead(_)) = self.running {
                return Err(fail(
                    Reason::OutOfOrder,
                    "the tag length must be set before the data",
                ));
            }
        }
        self.tag_len = len;
        Ok(())
    }

    /// `update`: data through the running stream; for AEADs, a call without output is AAD.
    fn update(
        &mut self,
        out: *mut u8,
        outsize: usize,
        input: *const u8,
        len: usize,
    ) -> Result<usize, Failure> {
        match self.kind() {
            Kind::Ccm => self.ccm_update(out, outsize, input, len),
            Kind::OneCall => self.one_call(out, outsize, input, len),
            Kind::Aead if out.is_null() => {
                // SAFETY: OpenSSL passes `len` readable bytes at `input`.
                let aad = unsafe { crate::input(input, len) };
                match self.running()? {
                    Running::Aead(stream) => stream.aad(aad)?,
                    Running::Cipher(_) => return Err(fail(Reason::Internal, "not an AEAD")),
                }
                Ok(0)
            }
            Kind::Aead | Kind::Stream => {
                if len == 0 {
                    return Ok(0);
                }
                // OpenSSL's XTS takes each update as a whole data unit under the IV set last:
                // a fresh stream for each.
                if mode(self.algorithm) == MODE_XTS {
                    self.running = None;
                }
                if out.is_null() || input.is_null() {
                    return Err(fail(Reason::InvalidInput, "no input or output buffer"));
                }
                let needed = match self.running()? {
                    Running::Cipher(stream) => stream.update_len(len),
                    Running::Aead(_) => len,
                };
                if outsize < needed {
                    return Err(fail(
                        Reason::InvalidInput,
                        format!("output needs {needed} bytes, got room for {outsize}"),
                    ));
                }
                // OpenSSL lets the output be the input, or lag behind it in the same buffer
                // (a block mode that buffered a partial block): overlapping input is copied
                // first, except for an AEAD working exactly in place.
                let in_place = std::ptr::eq(out, input);
                let overlapping = crate::ranges_overlap(out, outsize, input, len);
                let whole_unit = mode(self.algorithm) == MODE_XTS;
                // CFB's register is the ciphertext, which decryption in place overwrites.
                let keeps_ciphertext = mode(self.algorithm) == MODE_CFB;
                let encrypting = self.encrypt;
                // An AEAD or a stream mode (block size 1) working exactly in place needs no
                // copy (AWS-LC and regula-sm work in place); everything else that overlaps is
                // copied first.
                let aead_in_place = in_place && self.kind() == Kind::Aead;
                let stream_in_place =
                    in_place && self.kind() == Kind::Stream && block_size(self.algorithm) == 1;
                // CFB's ciphertext when decrypting in place, read before it is overwritten.
                let mut window = [0u8; CHAIN_WINDOW];
                // SAFETY: `input` holds `len` readable bytes (OpenSSL's contract); when it
                // overlaps the output it is read only to copy it, before the output is made.
                let copy = (overlapping && !aead_in_place && !stream_in_place)
                    .then(|| Zeroizing::new(unsafe { crate::input(input, len) }.to_vec()));
                let (written, ciphertext, unit_done) = match self.running()? {
                    Running::Aead(stream) if aead_in_place => {
                        // SAFETY: `out` holds `outsize` >= len writable bytes.
                        let buffer = unsafe { std::slice::from_raw_parts_mut(out, len) };
                        stream.update_in_place(buffer)?;
                        return Ok(len);
                    }
                    Running::Aead(stream) => {
                        let input = match &copy {
                            Some(copy) => copy.as_slice(),
                            // SAFETY: `len` readable bytes, not overlapping the output.
                            None => unsafe { crate::input(input, len) },
                        };
                        // SAFETY: `outsize` writable bytes, not overlapping `input`.
                        let output = unsafe { std::slice::from_raw_parts_mut(out, outsize) };
                        return Ok(stream.update(input, output)?);
                    }
                    Running::Cipher(stream) if stream_in_place => {
                        // SAFETY: `out` holds `outsize` >= len writable bytes.
                        let buffer = unsafe { std::slice::from_raw_parts_mut(out, len) };
                        let tail = len.saturating_sub(CHAIN_WINDOW);
                        if keeps_ciphertext && !encrypting {
                            window[..len - tail].copy_from_slice(&buffer[tail..]);
                        }
                        stream.update_in_place(buffer)?;
                        // CTR's counter needs only the counts; no plaintext is kept.
                        let ciphertext = match (keeps_ciphertext, encrypting) {
                            (false, _) => &[][..],
                            (true, true) => &buffer[tail..],
                            (true, false) => &window[..len - tail],
                        };
                        (len, ciphertext, finish_unit(stream, whole_unit)?)
                    }
                    Running::Cipher(stream) => {
                        let input = match &copy {
                            Some(copy) => copy.as_slice(),
                            // SAFETY: `len` readable bytes, not overlapping the output.
                            None => unsafe { crate::input(input, len) },
                        };
                        // SAFETY: `outsize` writable bytes, not overlapping `input`.
                        let output = unsafe { std::slice::from_raw_parts_mut(out, outsize) };
                        let written = stream.update(input, output)?;
                        let ciphertext = if encrypting {
                            &output[..written]
                        } else {
                            input
                        };
                        (written, ciphertext, finish_unit(stream, whole_unit)?)
                    }
                };
                self.chain.record(ciphertext, len, written);
                if let Some(indicator) = unit_done {
                    self.last = LastOperation::from(indicator);
                }
                Ok(written)
            }
        }
    }

    fn finalize(&mut self, out: *mut u8, outsize: usize) -> Result<usize, Failure> {
        match self.kind() {
            Kind::Ccm | Kind::OneCall => Ok(0),
            Kind::Stream if mode(self.algorithm) == MODE_XTS => {
                // Each update finished its own data unit.
                self.running = None;
                Ok(0)
            }
            Kind::Stream => {
                let Some(Running::Cipher(stream)) = self.running.as_mut() else {
                    // Nothing was streamed: start (so padding and the empty message are
                    // handled as for any other) and finish.
                    self.running()?;
                    return self.finalize(out, outsize);
                };
                let needed = stream.finish_len();
                if needed > 0 && (out.is_null() || outsize < needed) {
                    return Err(fail(
                        Reason::InvalidInput,
                        format!("final output needs {needed} bytes, got room for {outsize}"),
                    ));
                }
                let output: &mut [u8] = if out.is_null() {
                    &mut []
                } else {
                    // SAFETY: `out` holds `outsize` writable bytes.
                    unsafe { std::slice::from_raw_parts_mut(out, outsize) }
                };
                let served = stream.finish(output)?;
                let written = *served;
                self.last = LastOperation::from(served.indicator());
                if self.encrypt {
                    self.chain.record(&output[..written], 0, written);
                } else {
                    self.chain.record(&[], 0, 0);
                }
                Ok(written)
            }
            Kind::Aead => {
                let encrypt = self.encrypt;
                self.running()?;
                let Some(Running::Aead(stream)) = self.running.as_mut() else {
                    return Err(fail(Reason::Internal, "not an AEAD"));
                };
                if encrypt {
                    let served = stream.finish_encrypt()?;
                    self.tag.clear();
                    self.tag.extend_from_slice(served.as_ref());
                    self.last = LastOperation::from(served.indicator());
                } else {
                    if self.tag.is_empty() {
                        return Err(fail(
                            Reason::OutOfOrder,
                            "decryption needs the tag set before final",
                        ));
                    }
                    // A tag checks one message only, whatever the outcome.
                    let served = stream.finish_decrypt(&self.tag);
                    self.tag.clear();
                    self.last = LastOperation::from(served?.indicator());
                }
                Ok(0)
            }
        }
    }

    /// One whole TLS record once `tlsaad` announced it (tls_record.rs); `one_shot`: through
    /// `EVP_Cipher`.
    fn tls_record(
        &mut self,
        one_shot: bool,
        out: *mut u8,
        outsize: usize,
        input: *const u8,
        len: usize,
    ) -> Result<usize, Failure> {
        self.keyed()?;
        if self.encrypt && self.tls.needs_sealer() {
            let key = self.aead_key()?;
            self.tls.start_sealer(key)?;
        }
        let Some((_, _, Keyed::Aead(key))) = &self.keyed else {
            return Err(fail(Reason::Internal, "not an AEAD"));
        };
        // SAFETY: OpenSSL's buffers, passed on as OpenSSL gave them.
        let (written, indicator) = unsafe {
            self.tls.record(
                one_shot,
                key,
                self.iv.as_deref(),
                self.encrypt,
                out,
                outsize,
                input,
                len,
            )
        }?;
        match indicator::settle(indicator) {
            Ok(last) => {
                self.last = last;
                Ok(written)
            }
            Err(refused) => {
                // The record was sealed or opened in OpenSSL's buffer before the application's
                // indicator callback could refuse it: wiped, so that a refused operation gives
                // no output.
                if !out.is_null() {
                    // SAFETY: `out` holds `outsize` writable bytes (OpenSSL's contract).
                    unsafe { std::ptr::write_bytes(out, 0, written.min(outsize)) };
                }
                Err(refused)
            }
        }
    }

    /// `tlsivgen` (GCM encryption after `tlsivfixed`): starts the next message under the
    /// module's `fixed ‖ count` nonce and returns that nonce (OpenSSL's `EVP_CTRL_GCM_IV_GEN`).
    fn next_tls_message(&mut self) -> Result<[u8; 12], Failure> {
        if !self.encrypt || !crate::tls_record::is_gcm(self.algorithm) {
            return Err(fail(
                Reason::OutOfOrder,
                format!(
                    "{}: tlsivgen is for GCM encryption (decryption takes tlsivinv)",
                    self.algorithm
                ),
            ));
        }
        if self.iv_len != 12 {
            return Err(fail(
                Reason::InvalidInput,
                format!("{}: tlsivgen needs a 12-byte IV", self.algorithm),
            ));
        }
        self.keyed()?;
        if self.tls.needs_sealer() {
            let key = self.aead_key()?;
            self.tls.start_sealer(key)?;
        }
        self.reset();
        // The previous message's stream (stale after `reset`) restarts under the next nonce.
        let spare = match self.running.take() {
            Some(Running::Aead(stream)) => Some(stream),
            _ => None,
        };
        self.stale = false;
        let (nonce, stream) = self.tls.stream_next(spare)?;
        if !stream.approval().is_approved() {
            indicator::permit_unapproved(self.algorithm, "encrypt")?;
        }
        self.iv = Some(nonce.to_vec());
        self.running = Some(Running::Aead(stream));
        Ok(nonce)
    }

    /// CCM as OpenSSL drives it: `update(NULL, NULL, len)` announces the message length,
    /// `update(NULL, aad)` gives the AAD, `update(out, in)` the whole message, which is
    /// encrypted (tag kept for `get "tag"`) or decrypted and checked there and then.
    fn ccm_update(
        &mut self,
        out: *mut u8,
        outsize: usize,
        input: *const u8,
        len: usize,
    ) -> Result<usize, Failure> {
        if out.is_null() && input.is_null() {
            self.ccm_len = Some(len);
            return Ok(0);
        }
        // SAFETY: OpenSSL passes `len` readable bytes at `input`.
        let data = unsafe { crate::input(input, len) };
        if out.is_null() {
            self.ccm_aad.extend_from_slice(data);
            return Ok(0);
        }
        if let Some(announced) = self.ccm_len
            && announced != len
        {
            return Err(fail(
                Reason::InvalidInput,
                format!("CCM message is {len} bytes, {announced} were announced"),
            ));
        }
        if outsize < len {
            return Err(fail(Reason::InvalidInput, "output buffer too small"));
        }
        let key = self.aead_key()?;
        let nonce = self.iv()?.to_vec();
        let mut buffer = Zeroizing::new(data.to_vec());
        if self.encrypt {
            let mut tag = vec![0u8; self.tag_len];
            let served =
                key.seal_detached_with_nonce(&nonce, &self.ccm_aad, &mut buffer, &mut tag)?;
            self.last = indicator::settle(served.indicator())?;
            self.tag = tag;
        } else {
            if self.tag.is_empty() {
                return Err(fail(
                    Reason::OutOfOrder,
                    "CCM decryption needs the tag first",
                ));
            }
            let served = key.open_detached(&nonce, &self.ccm_aad, &mut buffer, &self.tag)?;
            self.last = indicator::settle(served.indicator())?;
        }
        // SAFETY: `out` holds `outsize` >= len writable bytes.
        unsafe { std::ptr::copy(buffer.as_ptr(), out, len) };
        self.ccm_len = None;
        self.ccm_aad.clear();
        Ok(len)
    }

    /// Key wrap and CBC-CS3: one whole message per update.
    fn one_call(
        &mut self,
        out: *mut u8,
        outsize: usize,
        input: *const u8,
        len: usize,
    ) -> Result<usize, Failure> {
        if len == 0 {
            return Ok(0);
        }
        // SAFETY: OpenSSL passes `len` readable bytes at `input`.
        let data = unsafe { crate::input(input, len) };
        let key = self.cipher_key()?;
        let wrap = mode(self.algorithm) == MODE_WRAP;
        let iv = if wrap {
            Vec::new()
        } else {
            self.iv()?.to_vec()
        };
        let served = if self.encrypt {
            key.encrypt((!wrap).then_some(iv.as_slice()), data)?
                .map(|encrypted| Zeroizing::new(encrypted.ciphertext))
        } else {
            key.decrypt(&iv, data)?.map(Zeroizing::new)
        };
        self.last = indicator::settle(served.indicator())?;
        if out.is_null() {
            // A size query (EVP_CipherUpdate with no output, as for key wrap).
            return Ok(served.len());
        }
        if outsize < served.len() {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "output needs {} bytes, got room for {outsize}",
                    served.len()
                ),
            ));
        }
        // SAFETY: `out` holds `outsize` >= result length writable bytes.
        unsafe { std::ptr::copy(served.as_ptr(), out, served.len()) };
        Ok(served.len())
    }
}

impl ParamRef<'_> {
    /// An octet string, or `Err(len)` when the caller gave only a size (no data), as OpenSSL
    /// does to set a tag length.
    fn get_octets_or_len(&self) -> Result<Result<&[u8], usize>, params::ParamError> {
        if self.has_data() {
            self.get_octets().map(Ok)
        } else {
            Ok(Err(self.data_size()))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn init_entry(
    ctx: *mut c_void,
    encrypt: bool,
    key: *const c_uchar,
    key_len: usize,
    iv: *const c_uchar,
    iv_len: usize,
    params: *const Param,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        // SAFETY: OpenSSL passes `key_len` and `iv_len` readable bytes where not null.
        let key = (!key.is_null()).then(|| unsafe { crate::input(key, key_len) });
        // SAFETY: as above.
        let iv = (!iv.is_null()).then(|| unsafe { crate::input(iv, iv_len) });
        context.init(encrypt, key, iv, &params)
    })
}

unsafe extern "C" fn encrypt_init(
    ctx: *mut c_void,
    key: *const c_uchar,
    key_len: usize,
    iv: *const c_uchar,
    iv_len: usize,
    params: *const Param,
) -> c_int {
    init_entry(ctx, true, key, key_len, iv, iv_len, params)
}

unsafe extern "C" fn decrypt_init(
    ctx: *mut c_void,
    key: *const c_uchar,
    key_len: usize,
    iv: *const c_uchar,
    iv_len: usize,
    params: *const Param,
) -> c_int {
    init_entry(ctx, false, key, key_len, iv, iv_len, params)
}

unsafe extern "C" fn update(
    ctx: *mut c_void,
    out: *mut c_uchar,
    outl: *mut usize,
    outsize: usize,
    input: *const c_uchar,
    len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        let written = if context.tls.pending() {
            context.tls_record(false, out, outsize, input, len)?
        } else {
            context.update(out, outsize, input, len)?
        };
        // SAFETY: OpenSSL passes a writable `outl` or null.
        unsafe { crate::report_len(outl, written) };
        Ok(())
    })
}

unsafe extern "C" fn finalize(
    ctx: *mut c_void,
    out: *mut c_uchar,
    outl: *mut usize,
    outsize: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        let written = context.finalize(out, outsize)?;
        // SAFETY: OpenSSL passes a writable `outl` or null.
        unsafe { crate::report_len(outl, written) };
        Ok(())
    })
}

/// `EVP_Cipher`: an update, or with no input the final step.
unsafe extern "C" fn cipher(
    ctx: *mut c_void,
    out: *mut c_uchar,
    outl: *mut usize,
    outsize: usize,
    input: *const c_uchar,
    len: usize,
) -> c_int {
    error::entry(|| {
        // SAFETY: a live context.
        let context = unsafe { context(ctx) }?;
        let written = if context.tls.pending() {
            context.tls_record(true, out, outsize, input, len)?
        } else if input.is_null() && context.kind() != Kind::Ccm {
            context.finalize(out, outsize)?
        } else {
            context.update(out, outsize, input, len)?
        };
        // SAFETY: OpenSSL passes a writable `outl` or null.
        unsafe { crate::report_len(outl, written) };
        Ok(())
    })
}

static GETTABLE: params::ParamList = crate::param_list![
    ("mode", params::UINT),
    ("keylen", params::UINT),
    ("ivlen", params::UINT),
    ("blocksize", params::UINT),
    ("aead", params::INT),
    ("custom-iv", params::INT),
    ("cts", params::INT),
    ("tls-multi", params::INT),
    ("has-randkey", params::INT),
];

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const Param {
    GETTABLE.as_ptr()
}

unsafe extern "C" fn get_params<const A: usize>(params: *mut Param) -> c_int {
    error::entry(|| {
        let Some(&algorithm) = Algorithm::ALL.get(A) else {
            return Err(fail(Reason::Internal, "no such cipher"));
        };
        // SAFETY: a terminated parameter array from OpenSSL.
        let params = unsafe { Params::new(params) };
        let aead = matches!(kind(algorithm), Kind::Aead | Kind::Ccm);
        for mut param in params.iter() {
            match param.key {
                "mode" => param.set_i64(mode(algorithm))?,
                "keylen" => param.set_usize(key_len(algorithm))?,
                "ivlen" => param.set_usize(default_iv_len(algorithm))?,
                "blocksize" => param.set_usize(block_size(algorithm))?,
                "aead" => param.set_i64(i64::from(aead))?,
                "custom-iv" => param.set_i64(i64::from(
                    aead || matches!(mode(algorithm), MODE_XTS | MODE_WRAP),
                ))?,
                "cts" => param.set_i64(i64::from(matches!(
                    algorithm,
                    Algorithm::Aes256CbcCs3 | Algorithm::Sm4CbcCs3
                )))?,
                "tls-multi" | "has-randkey" => param.set_i64(0)?,
                _ => {}
            }
        }
        Ok(())
    })
}

static GETTABLE_CTX: params::ParamList = crate::param_list![
    ("keylen", params::UINT),
    ("ivlen", params::UINT),
    ("padding", params::UINT),
    ("num", params::UINT),
    ("iv", params::OCTETS),
    ("updated-iv", params::OCTETS),
    ("tag", params::OCTETS),
    ("taglen", params::UINT),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
    ("tlsaadpad", params::UINT),
    ("tlsivgen", params::OCTETS),
];

unsafe extern "C" fn gettable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    GETTABLE_CTX.as_ptr()
}

unsafe extern "C" fn get_ctx_params(ctx: *mut c_void, params: *mut Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        for mut param in params.iter() {
            match param.key {
                "keylen" => param.set_usize(key_len(context.algorithm))?,
                "ivlen" => param.set_usize(context.iv_len)?,
                "padding" => param.set_i64(i64::from(context.padding))?,
                "num" => param.set_usize(context.chain.num(context.algorithm))?,
                // As OpenSSL's: the IV set, and the chaining state after the data so far.
                "iv" => match &context.iv {
                    Some(iv) => param.set_octets(iv)?,
                    None => param.set_octets(&vec![0; context.iv_len])?,
                },
                "updated-iv" => {
                    let initial = context
                        .iv
                        .clone()
                        .unwrap_or_else(|| vec![0; context.iv_len]);
                    let chain = &context.chain;
                    let updated = match mode(context.algorithm) {
                        MODE_CBC
                            if block_size(context.algorithm) == 16
                                && kind(context.algorithm) == Kind::Stream =>
                        {
                            chain.cbc_iv(context.encrypt)
                        }
                        MODE_CTR => chain.ctr_iv(&initial),
                        MODE_CFB => {
                            let segment = if context.algorithm == Algorithm::Sm4Cfb {
                                16
                            } else {
                                1
                            };
                            match chain.cfb_iv(&initial, segment) {
                                Some(register) => Some(register),
                                None => {
                                    return Err(fail(
                                        Reason::BadParameter,
                                        format!(
                                            "{}: the updated IV is kept only at a 16-byte \
                                             boundary of the data, {} bytes were given",
                                            context.algorithm, chain.taken
                                        ),
                                    ));
                                }
                            }
                        }
                        MODE_OFB if chain.taken > 0 => {
                            return Err(fail(
                                Reason::BadParameter,
                                format!(
                                    "{}: the updated IV after data is OFB keystream, which \
                                     Regula does not keep",
                                    context.algorithm
                                ),
                            ));
                        }
                        _ => None,
                    };
                    param.set_octets(&updated.unwrap_or(initial))?
                }
                "taglen" => param.set_usize(context.tag_len)?,
                "tlsaadpad" => param.set_usize(context.tls.aad_pad())?,
                "tlsivgen" => {
                    let nonce = context.next_tls_message()?;
                    // As OpenSSL's: the IV's last bytes, as many as the buffer holds (all of
                    // it for a larger one).
                    let wanted = param.data_size().min(nonce.len());
                    param.set_octets(&nonce[nonce.len() - wanted..])?
                }
                "tag" => {
                    let tag = match (&context.tag, context.encrypt) {
                        (tag, true) if !tag.is_empty() => tag,
                        _ => {
                            return Err(fail(
                                Reason::OutOfOrder,
                                "the tag is available after encryption's final",
                            ));
                        }
                    };
                    // The caller's buffer size is the tag length it wants (GCM allows a
                    // truncated tag).
                    let wanted = param.data_size();
                    if wanted == 0 || wanted > tag.len() {
                        return Err(fail(
                            Reason::InvalidInput,
                            format!("tag length must be 1..={}, got {wanted}", tag.len()),
                        ));
                    }
                    param.set_octets(&tag[..wanted])?
                }
                _ => indicator::answer_param(context.last, &mut param)?,
            }
        }
        Ok(())
    })
}

static SETTABLE_CTX: params::ParamList = crate::param_list![
    ("padding", params::UINT),
    ("num", params::UINT),
    ("keylen", params::UINT),
    ("ivlen", params::UINT),
    ("tag", params::OCTETS),
    ("xts_standard", params::UTF8),
    ("cts_mode", params::UTF8),
    ("tlsaad", params::OCTETS),
    ("tlsivfixed", params::OCTETS),
    ("tlsivinv", params::OCTETS),
];

unsafe extern "C" fn settable_ctx_params(_ctx: *mut c_void, _provctx: *mut c_void) -> *const Param {
    SETTABLE_CTX.as_ptr()
}

unsafe extern "C" fn set_ctx_params(ctx: *mut c_void, params: *const Param) -> c_int {
    error::entry(|| {
        // SAFETY: a live context and a terminated parameter array.
        let (context, params) = unsafe { (context(ctx)?, Params::new(params)) };
        context.apply(&params)
    })
}
