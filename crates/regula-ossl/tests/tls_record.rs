//! The TLS 1.2 record form of the provider's AEADs (`tlsivfixed`, `tlsaad`/`tlsaadpad`, one
//! `EVP_Cipher` per record), driven through the system's libcrypto exactly as libssl drives it
//! (the legacy controls `EVP_CTRL_AEAD_SET_IV_FIXED` and `EVP_CTRL_AEAD_TLS1_AAD`), and compared
//! with OpenSSL's default provider in the same process: the same record bytes for the same key,
//! fixed IV, explicit nonce, AAD and payload; each opens the other's records; a flipped tag byte
//! is refused with no plaintext left in the buffer.

use std::ffi::{CString, c_int, c_void};
use std::sync::OnceLock;

use regula_ossl::ffi::{PARAM_INTEGER, Param};

mod common;

use common::Ptr;
use common::ciphers::{Ciphers, Peer};

// openssl/evp.h
const EVP_CTRL_AEAD_SET_IV_FIXED: c_int = 0x12;
const EVP_CTRL_AEAD_TLS1_AAD: c_int = 0x16;

type Crypto = Ciphers;

fn crypto() -> &'static Crypto {
    static CRYPTO: OnceLock<Crypto> = OnceLock::new();
    CRYPTO.get_or_init(|| Ciphers::load("libcrypto.so.3", "tls-test"))
}

fn take_error() -> String {
    crypto().take_error()
}

/// One `EVP_CIPHER_CTX` keyed for TLS records in one direction, as libssl sets it up.
struct Records {
    ctx: Ptr,
    gcm: bool,
    encrypt: bool,
}

impl Records {
    /// `fixed`: the 4-byte GCM fixed IV or ChaCha's 12-byte IV; with `whole_iv` (GCM on the
    /// default provider only) the 12-byte IV whose last 8 bytes are the first explicit nonce
    /// (`EVP_CTRL_AEAD_SET_IV_FIXED` with length -1), so that its records can be compared byte
    /// for byte with another's.
    fn new(peer: Peer, name: &str, key: &[u8], fixed: &[u8], encrypt: bool) -> Records {
        Records::new_in(crypto().libctx as Ptr, peer, name, key, fixed, encrypt)
    }

    fn new_in(
        libctx: Ptr,
        peer: Peer,
        name: &str,
        key: &[u8],
        fixed: &[u8],
        encrypt: bool,
    ) -> Records {
        let c = crypto();
        let properties = peer.properties();
        let cname = CString::new(name).unwrap();
        let gcm = name.contains("GCM");
        // SAFETY: libcrypto calls with valid arguments; the cipher is freed once the context
        // holds its own reference.
        unsafe {
            let cipher = (c.fetch)(libctx, cname.as_ptr(), properties.as_ptr());
            assert!(!cipher.is_null(), "{properties:?} offers {name}");
            let ctx = (c.ctx_new)();
            assert!(!ctx.is_null());
            let enc = c_int::from(encrypt);
            if gcm {
                assert_eq!(
                    (c.init)(
                        ctx,
                        cipher,
                        key.as_ptr(),
                        std::ptr::null(),
                        enc,
                        std::ptr::null()
                    ),
                    1,
                    "{peer:?} {name}: init: {}",
                    take_error()
                );
                let len = if fixed.len() == 12 {
                    -1
                } else {
                    fixed.len() as c_int
                };
                assert_eq!(
                    (c.ctrl)(
                        ctx,
                        EVP_CTRL_AEAD_SET_IV_FIXED,
                        len,
                        fixed.as_ptr() as *mut c_void
                    ),
                    1,
                    "{peer:?} {name}: tlsivfixed: {}",
                    take_error()
                );
            } else {
                // libssl gives ChaCha20-Poly1305's IV to init (3.0 and 3.5 alike).
                assert_eq!(
                    (c.init)(
                        ctx,
                        cipher,
                        key.as_ptr(),
                        fixed.as_ptr(),
                        enc,
                        std::ptr::null()
                    ),
                    1,
                    "{peer:?} {name}: init: {}",
                    take_error()
                );
            }
            (c.cipher_free)(cipher);
            Records { ctx, gcm, encrypt }
        }
    }

    /// `tlsaad` then one `EVP_Cipher` (or `EVP_CipherUpdate`, as libssl 3.2+ calls) over the
    /// record in place. Encrypting, `data` is the plaintext; decrypting, the whole record.
    /// Returns the record (encrypting) or the plaintext (decrypting), or the error with what
    /// the buffer holds after it.
    fn run(&self, seq: u64, data: &[u8], by_update: bool) -> Result<Vec<u8>, (String, Vec<u8>)> {
        let c = crypto();
        let explicit = if self.gcm { 8 } else { 0 };
        let (mut buffer, announced) = if self.encrypt {
            let mut buffer = vec![0u8; explicit];
            buffer.extend_from_slice(data);
            buffer.extend_from_slice(&[0u8; 16]);
            (buffer, explicit + data.len())
        } else {
            (data.to_vec(), data.len())
        };
        let mut aad = [0u8; 13];
        aad[..8].copy_from_slice(&seq.to_be_bytes());
        aad[8] = 23; // application_data
        aad[9..11].copy_from_slice(&[3, 3]);
        aad[11..].copy_from_slice(&(announced as u16).to_be_bytes());
        // SAFETY: a live context; the AAD and buffer outlive the calls.
        unsafe {
            let pad = (c.ctrl)(
                self.ctx,
                EVP_CTRL_AEAD_TLS1_AAD,
                13,
                aad.as_mut_ptr().cast(),
            );
            if pad != 16 {
                return Err((format!("tlsaadpad {pad}: {}", take_error()), buffer));
            }
            let len = buffer.len();
            let written = if by_update {
                let mut outl: c_int = -1;
                let ok = (c.update)(
                    self.ctx,
                    buffer.as_mut_ptr(),
                    &mut outl,
                    buffer.as_ptr(),
                    len as c_int,
                );
                if ok != 1 { -1 } else { outl }
            } else {
                (c.cipher)(self.ctx, buffer.as_mut_ptr(), buffer.as_ptr(), len as u32)
            };
            if written < 0 {
                return Err((take_error(), buffer));
            }
            let written = written as usize;
            let payload = len - explicit - if self.encrypt { 0 } else { 16 };
            if self.encrypt {
                assert_eq!(written, len, "an encrypted record reports its whole length");
                Ok(buffer)
            } else {
                // OpenSSL's EVP_Cipher over a GCM record reports the record's length, its
                // EVP_CipherUpdate (and ChaCha20-Poly1305 both ways) the payload's.
                let reported = if self.gcm && !by_update { len } else { payload };
                assert_eq!(written, reported, "decryption's reported length");
                Ok(buffer[explicit..explicit + payload].to_vec())
            }
        }
    }
}

impl Drop for Records {
    fn drop(&mut self) {
        // SAFETY: made by EVP_CIPHER_CTX_new, freed once.
        unsafe { (crypto().ctx_free)(self.ctx) }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn payload(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

/// Both directions between the providers, for one algorithm.
fn check(name: &str, key_len: usize) {
    let key: Vec<u8> = (0..key_len).map(|i| 0x40 + i as u8).collect();
    let gcm = name.contains("GCM");
    let fixed: Vec<u8> = if gcm {
        vec![0xa1, 0xb2, 0xc3, 0xd4]
    } else {
        (0..12).map(|i| 0x90 + i as u8).collect()
    };
    for by_update in [false, true] {
        let regula_out = Records::new(Peer::Regula, name, &key, &fixed, true);
        let regula_in = Records::new(Peer::Regula, name, &key, &fixed, false);
        let default_out = Records::new(Peer::Default, name, &key, &fixed, true);
        let default_in = Records::new(Peer::Default, name, &key, &fixed, false);
        let mut previous_explicit: Option<u64> = None;
        for (seq, len) in [
            (0u64, 0usize),
            (1, 1),
            (2, 16),
            (3, 1000),
            (0x0102_0304_0506_0708, 4096),
        ] {
            let plaintext = payload(len);
            // Regula seals; the default provider opens.
            let record = regula_out.run(seq, &plaintext, by_update).unwrap();
            assert_eq!(record.len(), len + 16 + if gcm { 8 } else { 0 });
            assert_eq!(
                default_in.run(seq, &record, by_update).unwrap(),
                plaintext,
                "{name}: OpenSSL opens Regula's record {seq}"
            );
            // The same record from the default provider, given the same nonce.
            let expected = if gcm {
                let explicit: [u8; 8] = record[..8].try_into().unwrap();
                let count = u64::from_be_bytes(explicit);
                if let Some(previous) = previous_explicit {
                    assert_eq!(count, previous.wrapping_add(1), "{name}: the module counts");
                }
                previous_explicit = Some(count);
                let whole = [&fixed[..], &explicit[..]].concat();
                Records::new(Peer::Default, name, &key, &whole, true)
                    .run(seq, &plaintext, by_update)
                    .unwrap()
            } else {
                default_out.run(seq, &plaintext, by_update).unwrap()
            };
            assert_eq!(
                hex(&record),
                hex(&expected),
                "{name}: record {seq}, {len} bytes"
            );

            // The default provider seals; Regula opens.
            let theirs = default_out.run(seq + 1, &plaintext, by_update).unwrap();
            assert_eq!(
                regula_in.run(seq + 1, &theirs, by_update).unwrap(),
                plaintext,
                "{name}: Regula opens OpenSSL's record"
            );

            // A flipped tag byte, or the wrong sequence number, is refused with nothing
            // released.
            if len > 0 {
                let mut tampered = theirs.clone();
                *tampered.last_mut().unwrap() ^= 0x01;
                let (error, left) = regula_in.run(seq + 1, &tampered, by_update).unwrap_err();
                let start = if gcm { 8 } else { 0 };
                assert!(
                    left[start..start + len].iter().all(|&b| b == 0),
                    "{name}: plaintext left in the buffer on a bad tag ({error})"
                );
                assert!(regula_in.run(seq + 2, &theirs, by_update).is_err());
            }
        }
    }
}

#[test]
fn aes_128_gcm_records_match_openssl() {
    check("AES-128-GCM", 16);
}

#[test]
fn aes_256_gcm_records_match_openssl() {
    check("AES-256-GCM", 32);
}

#[test]
fn chacha20_poly1305_records_match_openssl() {
    check("ChaCha20-Poly1305", 32);
}

/// A record whose length disagrees with its AAD, or a GCM fixed IV of the wrong size, is
/// refused with the provider's reason; a record with no `tlsaad` before it is not a record.
#[test]
fn malformed_records_are_refused() {
    let c = crypto();
    let key = [7u8; 16];
    let sealer = Records::new(Peer::Regula, "AES-128-GCM", &key, &[1, 2, 3, 4], true);
    let mut aad = [0u8; 13];
    aad[11..].copy_from_slice(&40u16.to_be_bytes());
    let mut buffer = [0u8; 8 + 10 + 16];
    // SAFETY: a live context and buffers that outlive the calls.
    unsafe {
        assert_eq!(
            (c.ctrl)(
                sealer.ctx,
                EVP_CTRL_AEAD_TLS1_AAD,
                13,
                aad.as_mut_ptr().cast()
            ),
            16
        );
        let written = (c.cipher)(sealer.ctx, buffer.as_mut_ptr(), buffer.as_ptr(), 34);
        assert!(written <= 0, "a 34-byte record announced as 48 is refused");
        let error = take_error();
        assert!(error.contains("invalid input"), "{error}");
        // A 3-byte fixed IV.
        let fresh = (c.ctx_new)();
        let cipher = (c.fetch)(
            c.libctx as Ptr,
            c"AES-128-GCM".as_ptr(),
            c"provider=regula".as_ptr(),
        );
        assert_eq!(
            (c.init)(
                fresh,
                cipher,
                key.as_ptr(),
                std::ptr::null(),
                1,
                std::ptr::null()
            ),
            1
        );
        assert!(
            (c.ctrl)(
                fresh,
                EVP_CTRL_AEAD_SET_IV_FIXED,
                3,
                [1u8, 2, 3].as_ptr() as *mut c_void
            ) <= 0
        );
        take_error();
        (c.cipher_free)(cipher);
        (c.ctx_free)(fresh);
    }
}

/// A library context with the provider under `policy` and OpenSSL's default provider.
fn libctx_with_policy(policy: &str) -> Ptr {
    common::libctx_with_policy(common::libcrypto("libcrypto.so.3"), &crypto().dir, policy)
}

/// The context's `regula-approved` indicator.
fn approved(records: &Records) -> i32 {
    let mut value: i32 = -1;
    let mut params = [
        Param {
            key: c"regula-approved".as_ptr(),
            data_type: PARAM_INTEGER,
            data: (&mut value as *mut i32).cast(),
            data_size: 4,
            return_size: 0,
        },
        Param {
            key: std::ptr::null(),
            data_type: 0,
            data: std::ptr::null_mut(),
            data_size: 0,
            return_size: 0,
        },
    ];
    // SAFETY: a live context; the entry points at `value`.
    let ok = unsafe { (crypto().get_params)(records.ctx, params.as_mut_ptr()) };
    assert_eq!(ok, 1);
    value
}

/// Under fips-140-3 a GCM encryption under the caller's IV is refused (IG C.H), while a TLS 1.2
/// record, whose nonce the module builds, is served and approved, and opens with OpenSSL's
/// default provider; opening records is approved too.
#[test]
fn fips_approves_tls12_gcm_records() {
    let fips = libctx_with_policy("fips-140-3");
    let c = crypto();
    let key = [0x5a; 32];
    // SAFETY: libcrypto calls with valid arguments and buffers that outlive them.
    unsafe {
        let cipher = (c.fetch)(fips, c"AES-256-GCM".as_ptr(), c"provider=regula".as_ptr());
        assert!(!cipher.is_null());
        let ctx = (c.ctx_new)();
        let refused = (c.init)(
            ctx,
            cipher,
            key.as_ptr(),
            [1u8; 12].as_ptr(),
            1,
            std::ptr::null(),
        );
        let mut out = [0u8; 16];
        let mut outl: c_int = 0;
        let served = refused == 1
            && (c.update)(ctx, out.as_mut_ptr(), &mut outl, [0u8; 16].as_ptr(), 16) == 1;
        assert!(!served, "a caller's GCM IV is refused under fips-140-3");
        let error = take_error();
        assert!(
            error.contains("not allowed by the Regula policy"),
            "{error}"
        );
        (c.ctx_free)(ctx);
        (c.cipher_free)(cipher);
    }
    let fixed = [0x0f, 0x1e, 0x2d, 0x3c];
    let sealer = Records::new_in(fips, Peer::Regula, "AES-256-GCM", &key, &fixed, true);
    let opener = Records::new_in(fips, Peer::Regula, "AES-256-GCM", &key, &fixed, false);
    let peer = Records::new_in(fips, Peer::Default, "AES-256-GCM", &key, &fixed, false);
    let plaintext = payload(300);
    for seq in 0..3 {
        let record = sealer.run(seq, &plaintext, false).unwrap();
        assert_eq!(approved(&sealer), 1, "record {seq} sealed approved");
        assert_eq!(peer.run(seq, &record, false).unwrap(), plaintext);
        assert_eq!(opener.run(seq, &record, true).unwrap(), plaintext);
        assert_eq!(approved(&opener), 1, "record {seq} opened approved");
    }
}
