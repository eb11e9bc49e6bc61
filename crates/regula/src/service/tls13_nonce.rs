//! The TLS 1.3 per-record nonce counted inside the module (RFC 8446 §5.3; FIPS 140-3 IG C.H,
//! TLS 1.3 scenario): record `n` under a key is sealed with `write_iv XOR n`, `n` the 64-bit
//! sequence number left-padded to the nonce's length. The caller gives the `write_iv` from the
//! key schedule once; the module counts `n` from 0 and refuses to go on once every value has
//! been used, so no caller chooses a record's nonce and sealing has the approval of a
//! module-constructed IV, where [`AeadKey::encrypt_stream`] with the same bytes would be a
//! caller's nonce.
//!
//! Uniqueness rests, as in TLS 1.3 itself, on each key being used by one sequence: a key comes
//! from the TLS 1.3 key schedule for one direction of one connection. A sequence cannot be
//! cloned.

use crate::error::{Error, Result};
use crate::service::aead::{AeadKey, NONCE_LEN};
use crate::service::aead_stream::AeadStream;

/// Record nonces for sealing under one key (see the module documentation).
pub struct Tls13NonceSequence {
    /// The [`AeadKey`] this sequence belongs to.
    key_identity: u64,
    write_iv: [u8; NONCE_LEN],
    /// The next record's sequence number.
    next: u64,
    /// Records this key may still seal: 2^64 − 1 at the start, so no number is used twice.
    remaining: u64,
}

impl std::fmt::Debug for Tls13NonceSequence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls13NonceSequence")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl Tls13NonceSequence {
    /// The nonce the next record will be sealed with (public: the peer computes it too), or
    /// `None` once the sequence is used up.
    pub fn next_nonce(&self) -> Option<[u8; NONCE_LEN]> {
        (self.remaining > 0).then(|| self.nonce(self.next))
    }

    fn nonce(&self, sequence: u64) -> [u8; NONCE_LEN] {
        let mut nonce = self.write_iv;
        for (byte, count) in nonce[NONCE_LEN - 8..]
            .iter_mut()
            .zip(sequence.to_be_bytes())
        {
            *byte ^= count;
        }
        nonce
    }

    /// Takes the next record's nonce; the count moves first, so a failed seal never leaves a
    /// nonce to use again.
    fn take(&mut self) -> Result<[u8; NONCE_LEN]> {
        if self.remaining == 0 {
            return Err(Error::invalid_input(
                "this key has sealed 2^64 - 1 TLS 1.3 records; the sequence number would \
                 repeat (RFC 8446 §5.3): update the key",
            ));
        }
        let nonce = self.nonce(self.next);
        self.remaining -= 1;
        self.next = self.next.wrapping_add(1);
        Ok(nonce)
    }
}

impl AeadKey {
    /// Starts the record-nonce sequence for sealing TLS 1.3 records under this key, with the
    /// key schedule's 12-byte `write_iv` (RFC 8446 §7.3).
    pub fn tls13_nonce_sequence(&self, write_iv: &[u8]) -> Result<Tls13NonceSequence> {
        let write_iv: [u8; NONCE_LEN] = write_iv.try_into().map_err(|_| {
            Error::invalid_input(format!(
                "{}: the TLS 1.3 write IV is {NONCE_LEN} bytes, got {}",
                self.algorithm(),
                write_iv.len()
            ))
        })?;
        self.check_nonce(&write_iv)?;
        Ok(Tls13NonceSequence {
            key_identity: self.identity,
            write_iv,
            next: 0,
            remaining: u64::MAX,
        })
    }

    /// Starts encrypting the next record with `sequence`'s nonce, in `spare` (a stream this key
    /// started, whose keyed backend is reused) or in a new stream. Served with the approval of
    /// a module-constructed nonce; the module's error state is checked as for every call.
    pub fn encrypt_stream_tls13(
        &self,
        sequence: &mut Tls13NonceSequence,
        spare: Option<AeadStream>,
    ) -> Result<AeadStream> {
        if sequence.key_identity != self.identity {
            return Err(Error::invalid_input(format!(
                "{}: this TLS 1.3 nonce sequence belongs to another key",
                self.algorithm()
            )));
        }
        self.module.ensure_operational()?;
        let nonce = sequence.take()?;
        let mut stream = match spare {
            Some(mut stream) if stream.is_encrypting() => {
                self.restart_with_approval(&mut stream, &nonce, self.approval)?;
                stream
            }
            _ => self.encrypt_stream_with_approval(&nonce, self.approval)?,
        };
        stream.module_nonce = true;
        Ok(stream)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Algorithm, Module, Policy, Profile};

    /// RFC 8448 §3 (simple 1-RTT handshake): the client's two records under its application
    /// traffic key, the application data (sequence number 0: bytes 00..31 and content type 23)
    /// and then the close_notify alert (sequence number 1: 01 00 and content type 21), each
    /// sealed with the record header as AAD. The second record matches only if the module
    /// counted the first.
    #[test]
    fn records_zero_and_one_match_rfc_8448() {
        use hex_literal::hex;
        let module = Module::load(Policy::builtin(Profile::Fips1403));
        let key = module
            .aead_key(
                Algorithm::Aes128Gcm,
                &hex!("17422dda596ed5d9acd890e3c63f5051"),
            )
            .unwrap();
        let mut sequence = key
            .tls13_nonce_sequence(&hex!("5b78923dee08579033e523d9"))
            .unwrap();
        let mut application_data: Vec<u8> = (0u8..50).collect();
        application_data.push(23);
        let alert = vec![0x01, 0x00, 21];
        let records: [(&[u8], Vec<u8>, &[u8]); 2] = [
            (
                &hex!("1703030043"),
                application_data,
                &hex!(
                    "a23f7054b62c94d0affafe8228ba55cbefacea42f914aa66bcab3f2b9819a8a5"
                    "b46b395bd54a9a20441e2b62974e1f5a6292a2977014bd1e3deae63aeebb2169"
                    "4915e4"
                ),
            ),
            (
                &hex!("1703030013"),
                alert,
                &hex!("c9872760655666b74d7ff1153efd6db6d0b0e3"),
            ),
        ];
        let mut spare = None;
        for (aad, mut text, expected) in records {
            let mut stream = key
                .encrypt_stream_tls13(&mut sequence, spare.take())
                .unwrap();
            assert!(stream.approval().is_approved());
            stream.aad(aad).unwrap();
            stream.update_in_place(&mut text).unwrap();
            let tag = stream.finish_encrypt().unwrap();
            assert!(tag.indicator().is_approved());
            text.extend_from_slice(tag.as_ref());
            assert_eq!(text, expected);
            spare = Some(stream);
        }
        assert_eq!(
            sequence.next_nonce(),
            Some(hex!("5b78923dee08579033e523db"))
        );
        // A caller's nonce in the same stream is decided afresh: refused under fips-140-3.
        let mut stream = spare.unwrap();
        assert!(key.restart_stream(&mut stream, &[0x42; 12]).is_err());
    }

    #[test]
    fn the_sequence_counts_and_ends() {
        let module = Module::load(Policy::builtin(Profile::Fips1403));
        let key = module.aead_key(Algorithm::Aes256Gcm, &[7u8; 32]).unwrap();
        let iv = [0xa5u8; 12];
        let mut sequence = key.tls13_nonce_sequence(&iv).unwrap();
        // Record 0x0102 takes the IV with its last two bytes XORed with 01 02.
        sequence.next = 0x0102;
        let mut expected = iv;
        expected[10] ^= 0x01;
        expected[11] ^= 0x02;
        assert_eq!(sequence.next_nonce(), Some(expected));
        sequence.remaining = 1;
        key.encrypt_stream_tls13(&mut sequence, None).unwrap();
        assert_eq!(sequence.next_nonce(), None);
        assert!(key.encrypt_stream_tls13(&mut sequence, None).is_err());
        // Another key does not take this sequence.
        let other = module.aead_key(Algorithm::Aes256Gcm, &[7u8; 32]).unwrap();
        let mut fresh = key.tls13_nonce_sequence(&iv).unwrap();
        assert!(other.encrypt_stream_tls13(&mut fresh, None).is_err());
        // A write IV of another length is refused.
        assert!(key.tls13_nonce_sequence(&[0u8; 8]).is_err());
    }
}
