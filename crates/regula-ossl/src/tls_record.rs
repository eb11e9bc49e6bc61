//! The "TLS record" form of the AEAD ciphers, as libssl drives it for TLS 1.2's AEAD suites
//! (OpenSSL's `ciphercommon_gcm.c` and `cipher_chacha20_poly1305_hw.c` define the behaviour):
//!
//! - `tlsivfixed`: for GCM (after the key) and CCM (libssl gives it before the key) the
//!   handshake's 4-byte fixed IV (RFC 5288 §3, RFC 6655 §3), for ChaCha20-Poly1305 its 12-byte
//!   IV (RFC 7905 §2; libssl may also give it as the IV of `init`).
//! - per record, `tlsaad`: TLS 1.2's 13-byte additional data (sequence number, type, version,
//!   length). The provider answers `tlsaadpad` (the tag the record grows by: 16 bytes, CCM's
//!   `tag` length, 16 or 8) and corrects the length in the AAD to the plaintext's: GCM and
//!   CCM less their 8-byte explicit nonce, and less the tag when decrypting;
//!   ChaCha20-Poly1305 less the tag when decrypting.
//! - then one `EVP_Cipher` (libssl 3.0) or `EVP_CipherUpdate` (3.2+) call over the whole
//!   record. GCM and CCM: `explicit nonce(8) ‖ payload ‖ tag`; encryption writes a nonce the
//!   module counts ([`regula::Tls12GcmSealer`]: the fixed field, then a counter the module
//!   increments from a random start, IG C.H's TLS 1.2 construction, approved under fips-140-3
//!   for GCM), the ciphertext and the tag, and reports the whole record's length; decryption
//!   reads the nonce, checks the tag, leaves the plaintext 8 bytes in and reports its length,
//!   and on a bad tag fails with the plaintext wiped. (OpenSSL's own CCM sends the record's
//!   sequence number as the explicit nonce; RFC 6655 §3 only asks that it be distinct per
//!   record, which the module's count guarantees without trusting the caller's numbers.) ChaCha20-Poly1305: `payload ‖ tag(16)` under the IV XORed with the
//!   AAD's sequence number (RFC 7905 §2), a nonce the caller's sequence number chooses.
//!
//!
//! GCM also has OpenSSL's invocation-field IVs for a message streamed the ordinary way
//! (`EVP_CTRL_GCM_IV_GEN`/`EVP_CTRL_GCM_SET_IV_INV`): after `tlsivfixed`, `tlsivgen` (read,
//! encryption) starts the next message under `fixed ‖ count` and hands back the count's last
//! bytes; `tlsivinv` (set, decryption) gives the invocation field of the message to open.

use regula::{
    AeadKey, AeadStream, Algorithm, Indicator, TLS12_EXPLICIT_LEN, TLS12_FIXED_LEN, Tls12GcmSealer,
};
use zeroize::Zeroizing;

use crate::error::{Failure, Reason, fail};
use crate::params::ParamRef;

/// TLS 1.2's additional data: `seq_num(8) ‖ type(1) ‖ version(2) ‖ length(2)`.
const AAD_LEN: usize = 13;
/// GCM's and ChaCha20-Poly1305's tag (CCM's is the context's tag length).
const TAG_LEN: usize = 16;
/// The GCM and CCM record nonce: `fixed(4) ‖ explicit(8)`.
const NONCE_LEN: usize = TLS12_FIXED_LEN + TLS12_EXPLICIT_LEN;
/// ChaCha20-Poly1305's nonce (RFC 7905's `client_write_IV`/`server_write_IV`).
const CHACHA_IV_LEN: usize = 12;

/// What `tlsivfixed` (or `init`'s IV for ChaCha20-Poly1305) set up.
enum Fixed {
    /// GCM or CCM encryption: the fixed field, and the sealer (which owns its key and
    /// counter) once a record or `tlsivgen` needs it under the context's key.
    Seal([u8; TLS12_FIXED_LEN], Option<Box<Tls12GcmSealer>>),
    /// GCM or CCM decryption: the fixed field the peer's nonces start with.
    Open([u8; TLS12_FIXED_LEN]),
    /// ChaCha20-Poly1305: the 12-byte IV the sequence number is XORed into.
    ChaCha([u8; CHACHA_IV_LEN]),
}

/// A cipher context's TLS record state (see the module documentation).
pub struct TlsRecord {
    fixed: Option<Fixed>,
    /// The current record's AAD, length corrected; `None` between records.
    aad: Option<[u8; AAD_LEN]>,
    /// The plaintext length the AAD announces.
    payload_len: usize,
    /// The tag length the AAD was corrected for (`tlsaadpad`).
    tag_len: usize,
}

impl Default for TlsRecord {
    fn default() -> TlsRecord {
        TlsRecord {
            fixed: None,
            aad: None,
            payload_len: 0,
            tag_len: TAG_LEN,
        }
    }
}

pub(crate) fn is_gcm(algorithm: Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::Aes128Gcm | Algorithm::Aes256Gcm | Algorithm::Sm4Gcm
    )
}

fn is_ccm(algorithm: Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::Aes128Ccm | Algorithm::Aes256Ccm | Algorithm::Sm4Ccm
    )
}

/// GCM and CCM records start with an 8-byte explicit nonce after a 4-byte fixed field.
fn has_explicit_nonce(algorithm: Algorithm) -> bool {
    is_gcm(algorithm) || is_ccm(algorithm)
}

impl TlsRecord {
    /// The state an `EVP_CIPHER_CTX_copy` gets: the peer's fixed field and ChaCha's IV, but
    /// never the encrypting state, whose copy would give the same nonces again (a copy that
    /// encrypts records needs its own `tlsivfixed`).
    pub fn duplicate(&self) -> TlsRecord {
        let fixed = match &self.fixed {
            Some(Fixed::Open(fixed)) => Some(Fixed::Open(*fixed)),
            Some(Fixed::ChaCha(iv)) => Some(Fixed::ChaCha(*iv)),
            Some(Fixed::Seal(..)) | None => None,
        };
        TlsRecord {
            fixed,
            aad: self.aad,
            payload_len: self.payload_len,
            tag_len: self.tag_len,
        }
    }

    /// A key was given (`new_key`: other bytes than the context had): records under a new key
    /// need a sealer of their own, while the same key keeps its sealer and count (a fresh one
    /// would start from another random point, which could meet the old count). The fixed
    /// field, which libssl gives CCM before the key, stays; no record is announced.
    pub fn rekey(&mut self, new_key: bool) {
        self.aad = None;
        if let (true, Some(Fixed::Seal(_, sealer))) = (new_key, &mut self.fixed) {
            *sealer = None;
        }
    }

    /// Whether the next encrypted record (or `tlsivgen`) needs [`TlsRecord::start_sealer`].
    pub fn needs_sealer(&self) -> bool {
        matches!(&self.fixed, Some(Fixed::Seal(_, None)))
    }

    /// Makes the sealer from `key`, a key object of its own for the context's key (it keeps
    /// the counter, so it serves this one context).
    pub fn start_sealer(&mut self, key: AeadKey) -> Result<(), Failure> {
        if let Some(Fixed::Seal(fixed, sealer @ None)) = &mut self.fixed {
            *sealer = Some(Box::new(key.into_tls12_gcm_sealer(&fixed[..])?));
        }
        Ok(())
    }

    /// `tlsivgen` (GCM encryption): the next message's stream under `fixed ‖ count`, and that
    /// nonce (its last bytes are what OpenSSL hands back). Needs `tlsivfixed` and the sealer.
    pub fn stream_next(
        &mut self,
        spare: Option<AeadStream>,
    ) -> Result<([u8; NONCE_LEN], AeadStream), Failure> {
        match &mut self.fixed {
            Some(Fixed::Seal(fixed, Some(sealer))) => {
                let (explicit, stream) = sealer.encrypt_stream(spare)?;
                let mut nonce = [0u8; NONCE_LEN];
                nonce[..TLS12_FIXED_LEN].copy_from_slice(fixed);
                nonce[TLS12_FIXED_LEN..].copy_from_slice(&explicit);
                Ok((nonce, stream))
            }
            _ => Err(fail(
                Reason::OutOfOrder,
                "tlsivgen needs an encrypting context keyed with tlsivfixed set",
            )),
        }
    }

    /// `tlsivinv` (GCM decryption): the nonce `fixed ‖ invocation` of the message to open.
    pub fn nonce_for(&self, invocation: &[u8]) -> Result<[u8; NONCE_LEN], Failure> {
        let Some(Fixed::Open(fixed)) = &self.fixed else {
            return Err(fail(
                Reason::OutOfOrder,
                "tlsivinv needs a decrypting context with tlsivfixed set",
            ));
        };
        if invocation.len() != TLS12_EXPLICIT_LEN {
            return Err(fail(
                Reason::InvalidInput,
                format!(
                    "the invocation field is {TLS12_EXPLICIT_LEN} bytes, got {}",
                    invocation.len()
                ),
            ));
        }
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..TLS12_FIXED_LEN].copy_from_slice(fixed);
        nonce[TLS12_FIXED_LEN..].copy_from_slice(invocation);
        Ok(nonce)
    }

    /// Whether a record is announced: the next cipher call is a whole TLS record.
    pub fn pending(&self) -> bool {
        self.aad.is_some()
    }

    /// `tlsaadpad`: what the record grows by (the tag), once `tlsaad` is set.
    pub fn aad_pad(&self) -> usize {
        self.tag_len
    }

    /// `tlsivfixed` or `tlsaad`, for the context's algorithm, direction and tag length.
    pub fn set(
        &mut self,
        param: &ParamRef<'_>,
        algorithm: Algorithm,
        encrypt: bool,
        tag_len: usize,
    ) -> Result<(), Failure> {
        if !has_explicit_nonce(algorithm) && algorithm != Algorithm::ChaCha20Poly1305 {
            return Err(fail(
                Reason::NotApproved,
                format!(
                    "{algorithm}: the TLS record form is served for GCM, CCM and \
                     ChaCha20-Poly1305 only"
                ),
            ));
        }
        let value = param.get_octets()?;
        match param.key {
            "tlsivfixed" => self.set_fixed(value, algorithm, encrypt),
            "tlsaad" => self.set_aad(value, algorithm, encrypt, tag_len),
            _ => Ok(()),
        }
    }

    fn set_fixed(
        &mut self,
        value: &[u8],
        algorithm: Algorithm,
        encrypt: bool,
    ) -> Result<(), Failure> {
        self.aad = None;
        self.fixed = Some(if algorithm == Algorithm::ChaCha20Poly1305 {
            Fixed::ChaCha(value.try_into().map_err(|_| {
                fail(
                    Reason::InvalidInput,
                    format!(
                        "{algorithm}: the TLS fixed IV must be {CHACHA_IV_LEN} bytes, got {}",
                        value.len()
                    ),
                )
            })?)
        } else {
            let fixed: [u8; TLS12_FIXED_LEN] = value.try_into().map_err(|_| {
                fail(
                    Reason::InvalidInput,
                    format!(
                        "{algorithm}: the TLS fixed IV must be {TLS12_FIXED_LEN} bytes, got {}",
                        value.len()
                    ),
                )
            })?;
            if encrypt {
                // The same fixed field again under the same key (libssl sets it up anew with
                // the key for CCM) keeps the sealer's count going.
                match self.fixed.take() {
                    Some(Fixed::Seal(current, sealer)) if current == fixed => {
                        Fixed::Seal(fixed, sealer)
                    }
                    _ => Fixed::Seal(fixed, None),
                }
            } else {
                Fixed::Open(fixed)
            }
        });
        Ok(())
    }

    fn set_aad(
        &mut self,
        value: &[u8],
        algorithm: Algorithm,
        encrypt: bool,
        tag_len: usize,
    ) -> Result<(), Failure> {
        self.aad = None;
        let tag_len = if is_ccm(algorithm) { tag_len } else { TAG_LEN };
        let mut aad: [u8; AAD_LEN] = value.try_into().map_err(|_| {
            fail(
                Reason::InvalidInput,
                format!("the TLS AAD must be {AAD_LEN} bytes, got {}", value.len()),
            )
        })?;
        let announced = usize::from(u16::from_be_bytes([aad[11], aad[12]]));
        let overhead = match (has_explicit_nonce(algorithm), encrypt) {
            (true, true) => TLS12_EXPLICIT_LEN,
            (true, false) => TLS12_EXPLICIT_LEN + tag_len,
            (false, true) => 0,
            (false, false) => tag_len,
        };
        let payload_len = announced.checked_sub(overhead).ok_or_else(|| {
            fail(
                Reason::InvalidInput,
                format!("{algorithm}: a TLS record of {announced} bytes is shorter than its {overhead}-byte overhead"),
            )
        })?;
        aad[11..].copy_from_slice(&(payload_len as u16).to_be_bytes());
        self.aad = Some(aad);
        self.payload_len = payload_len;
        self.tag_len = tag_len;
        Ok(())
    }

    /// One whole record, from `input` (`len` bytes) to `out` (`outsize` bytes; the same buffer,
    /// as libssl gives it, or one apart). Returns the output length libssl expects and the
    /// operation's indicator. `key` is the context's key (for opening and for ChaCha), `iv`
    /// its IV from `init` (ChaCha's when no `tlsivfixed` came). Through `EVP_Cipher`
    /// (`one_shot`) a GCM or CCM record reports the input's length whichever the direction, as
    /// OpenSSL's `ossl_gcm_cipher` and `ossl_ccm_cipher` do (libssl 3.0 relies on that, not on
    /// the payload length). An encrypting GCM or CCM context has its sealer by now
    /// ([`TlsRecord::start_sealer`]).
    ///
    /// # Safety
    /// `input` is null or points to `len` readable bytes, `out` is null or points to `outsize`
    /// writable bytes (OpenSSL's contract for a cipher's update and cipher functions).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn record(
        &mut self,
        one_shot: bool,
        key: &AeadKey,
        iv: Option<&[u8]>,
        encrypt: bool,
        out: *mut u8,
        outsize: usize,
        input: *const u8,
        len: usize,
    ) -> Result<(usize, Indicator), Failure> {
        // One record per `tlsaad`, whatever happens to this one.
        let aad = self
            .aad
            .take()
            .ok_or_else(|| fail(Reason::OutOfOrder, "no TLS record announced"))?;
        let algorithm = key.algorithm();
        let explicit_nonce = has_explicit_nonce(algorithm);
        let tag_len = key.tag_len();
        if tag_len != self.tag_len {
            return Err(fail(
                Reason::OutOfOrder,
                format!(
                    "{algorithm}: the tag length changed to {tag_len} after the TLS AAD (set for {})",
                    self.tag_len
                ),
            ));
        }
        let expected = self.payload_len
            + tag_len
            + if explicit_nonce {
                TLS12_EXPLICIT_LEN
            } else {
                0
            };
        if len != expected {
            return Err(fail(
                Reason::InvalidInput,
                format!("{algorithm}: the TLS record is {len} bytes, its AAD announces {expected}"),
            ));
        }
        if out.is_null() || input.is_null() || outsize < len {
            return Err(fail(
                Reason::InvalidInput,
                format!("{algorithm}: a TLS record needs {len} bytes of output, got {outsize}"),
            ));
        }
        if !std::ptr::eq(out, input) {
            if crate::ranges_overlap(out, len, input, len) {
                return Err(fail(
                    Reason::InvalidInput,
                    "a TLS record is processed in place or into a separate buffer",
                ));
            }
            // SAFETY: `len` readable bytes at `input` and `outsize` >= len writable at `out`,
            // not overlapping (checked above).
            unsafe { std::ptr::copy_nonoverlapping(input, out, len) };
        }
        // SAFETY: `out` holds `outsize` >= len writable bytes, now holding the record.
        let record = unsafe { std::slice::from_raw_parts_mut(out, len) };
        let payload = self.payload_len;
        match (&mut self.fixed, explicit_nonce, encrypt) {
            (Some(Fixed::Seal(_, Some(sealer))), true, true) => {
                let (explicit, rest) = record.split_at_mut(TLS12_EXPLICIT_LEN);
                let (body, tag) = rest.split_at_mut(payload);
                let served = sealer.seal(&aad, body, tag)?;
                explicit.copy_from_slice(&*served);
                Ok((len, served.indicator()))
            }
            (Some(Fixed::Open(fixed)), true, false) => {
                let (explicit, rest) = record.split_at_mut(TLS12_EXPLICIT_LEN);
                let mut nonce = [0u8; TLS12_FIXED_LEN + TLS12_EXPLICIT_LEN];
                nonce[..TLS12_FIXED_LEN].copy_from_slice(fixed);
                nonce[TLS12_FIXED_LEN..].copy_from_slice(explicit);
                let (body, tag) = rest.split_at_mut(payload);
                let served = key.open_detached(&nonce, &aad, body, tag)?;
                Ok((if one_shot { len } else { payload }, served.indicator()))
            }
            (fixed, false, _) => {
                let base: [u8; CHACHA_IV_LEN] = match fixed {
                    Some(Fixed::ChaCha(iv)) => *iv,
                    _ => iv.and_then(|iv| iv.try_into().ok()).ok_or_else(|| {
                        fail(
                            Reason::OutOfOrder,
                            format!("{algorithm}: no TLS IV set (tlsivfixed or init's IV)"),
                        )
                    })?,
                };
                // RFC 7905 §2: the 64-bit sequence number, left-padded to 96 bits, XOR the IV.
                let mut nonce = Zeroizing::new(base);
                for (n, s) in nonce[CHACHA_IV_LEN - 8..].iter_mut().zip(&aad[..8]) {
                    *n ^= s;
                }
                let (body, tag) = record.split_at_mut(payload);
                if encrypt {
                    let served = key.seal_detached_with_nonce(&*nonce, &aad, body, tag)?;
                    Ok((len, served.indicator()))
                } else {
                    let served = key.open_detached(&*nonce, &aad, body, tag)?;
                    Ok((payload, served.indicator()))
                }
            }
            _ => Err(fail(
                Reason::OutOfOrder,
                format!(
                    "{algorithm}: no TLS fixed IV for this direction (tlsivfixed after the key)"
                ),
            )),
        }
    }
}
