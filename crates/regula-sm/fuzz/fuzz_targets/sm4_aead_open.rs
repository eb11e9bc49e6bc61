//! SM4-GCM and SM4-CCM open (decrypt + verify) on arbitrary key, nonce, AAD, tag and
//! ciphertext.
//!
//! Properties checked, for GCM and CCM on the active (fastest) backend and on the portable one:
//! - open returns plaintext or an error, never panics;
//! - the error is the one the mode's parameter rules predict (nonce length, then tag length for
//!   CCM; tag length, then nonce length for GCM), or `AuthenticationFailed` when they are legal;
//! - on any error the buffer still holds the ciphertext that was passed in;
//! - when open succeeds, sealing the plaintext with the same key/nonce/AAD and tag length gives
//!   back the same ciphertext and tag (round trip);
//! - the other direction, so that the success path is exercised on fuzz-chosen data too: the
//!   ciphertext bytes are sealed as a plaintext, the sealed message opens to it, a fuzz-chosen
//!   bit flip in ciphertext, tag or AAD makes open fail, and both backends agree on the output.

#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use regula_sm::Error;
use regula_sm::sm4::backend::Backend;
use regula_sm::sm4::modes::{Sm4Ccm, Sm4Gcm};
use regula_sm_fuzz::Reader;

/// The two AEADs behind one interface.
trait Aead {
    const NAME: &'static str;
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<(), Error>;
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<(), Error>;
    /// The error the mode's rules predict for these lengths, if any (texts here are short, so
    /// `MessageTooLong` cannot apply).
    fn expected_parameter_error(nonce_len: usize, tag_len: usize) -> Option<Error>;
}

impl Aead for Sm4Gcm {
    const NAME: &'static str = "SM4-GCM";
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<(), Error> {
        self.encrypt_with_tag_len(nonce, aad, data, tag)
    }
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        self.decrypt(nonce, aad, data, tag)
    }
    fn expected_parameter_error(nonce_len: usize, tag_len: usize) -> Option<Error> {
        if !matches!(tag_len, 4 | 8 | 12..=16) {
            Some(Error::InvalidTagLength { len: tag_len })
        } else if nonce_len == 0 {
            Some(Error::InvalidNonceLength { len: nonce_len })
        } else {
            None
        }
    }
}

impl Aead for Sm4Ccm {
    const NAME: &'static str = "SM4-CCM";
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<(), Error> {
        self.encrypt_with_tag_len(nonce, aad, data, tag)
    }
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        self.decrypt(nonce, aad, data, tag)
    }
    fn expected_parameter_error(nonce_len: usize, tag_len: usize) -> Option<Error> {
        if !(7..=13).contains(&nonce_len) {
            Some(Error::InvalidNonceLength { len: nonce_len })
        } else if !matches!(tag_len, 4 | 6 | 8 | 10 | 12 | 14 | 16) {
            Some(Error::InvalidTagLength { len: tag_len })
        } else {
            None
        }
    }
}

struct Case<'a> {
    nonce: &'a [u8],
    aad: &'a [u8],
    tag: &'a [u8],
    text: &'a [u8],
    /// Which bit to flip for the tamper check.
    flip: u16,
}

fn check<A: Aead>(fast: &A, soft: &A, case: &Case<'_>) {
    let name = A::NAME;
    let expected_error = A::expected_parameter_error(case.nonce.len(), case.tag.len());

    // 1. Open arbitrary bytes.
    for aead in [fast, soft] {
        let mut buffer = case.text.to_vec();
        match aead.open(case.nonce, case.aad, &mut buffer, case.tag) {
            Err(error) => {
                assert_eq!(buffer, case.text, "{name}: failed open changed the buffer");
                match expected_error {
                    Some(expected) => assert_eq!(error, expected, "{name}: wrong error"),
                    None => assert_eq!(error, Error::AuthenticationFailed, "{name}: wrong error"),
                }
            }
            Ok(()) => {
                assert_eq!(
                    expected_error, None,
                    "{name}: opened with illegal parameters"
                );
                // Round trip: sealing the plaintext gives back ciphertext and tag.
                let mut tag = vec![0u8; case.tag.len()];
                aead.seal(case.nonce, case.aad, &mut buffer, &mut tag)
                    .unwrap_or_else(|e| panic!("{name}: re-seal of opened plaintext failed: {e}"));
                assert_eq!(buffer, case.text, "{name}: re-sealed ciphertext differs");
                assert_eq!(tag, case.tag, "{name}: re-sealed tag differs");
            }
        }
    }

    // 2. Seal the bytes as a plaintext (tag length as given), then open.
    let mut sealed = case.text.to_vec();
    let mut tag = vec![0u8; case.tag.len()];
    let result = fast.seal(case.nonce, case.aad, &mut sealed, &mut tag);
    let mut sealed_soft = case.text.to_vec();
    let mut tag_soft = vec![0u8; case.tag.len()];
    let result_soft = soft.seal(case.nonce, case.aad, &mut sealed_soft, &mut tag_soft);
    assert_eq!(
        result, result_soft,
        "{name}: backends disagree on seal result"
    );
    match result {
        Err(error) => {
            assert_eq!(
                Some(error),
                expected_error,
                "{name}: seal refused legal parameters"
            );
            assert_eq!(sealed, case.text, "{name}: refused seal changed the buffer");
            assert!(
                tag.iter().all(|&b| b == 0),
                "{name}: refused seal wrote a tag"
            );
            return;
        }
        Ok(()) => assert_eq!(
            expected_error, None,
            "{name}: sealed with illegal parameters"
        ),
    }
    assert_eq!(
        sealed, sealed_soft,
        "{name}: backends disagree on ciphertext"
    );
    assert_eq!(tag, tag_soft, "{name}: backends disagree on tag");
    if name == "SM4-GCM" {
        // GCM truncates the full tag (SP 800-38D, 7.1 step 7); CCM's tag length enters B_0.
        let mut full = [0u8; 16];
        fast.seal(case.nonce, case.aad, &mut case.text.to_vec(), &mut full)
            .unwrap_or_else(|e| panic!("{name}: full-tag seal failed: {e}"));
        assert_eq!(
            &full[..tag.len()],
            &tag[..],
            "{name}: short tag is not MSB of full tag"
        );
    }

    for aead in [fast, soft] {
        let mut opened = sealed.clone();
        aead.open(case.nonce, case.aad, &mut opened, &tag)
            .unwrap_or_else(|e| panic!("{name}: sealed message does not open: {e}"));
        assert_eq!(opened, case.text, "{name}: opened plaintext differs");
    }

    // 3. Tamper with one bit of ciphertext || tag || AAD: open must fail and leave the buffer.
    let total_bits = 8 * (sealed.len() + tag.len() + case.aad.len());
    let bit = usize::from(case.flip) % total_bits;
    let (byte, mask) = (bit / 8, 1u8 << (bit % 8));
    let mut text = sealed.clone();
    let mut bad_tag = tag.clone();
    let mut aad = case.aad.to_vec();
    if byte < text.len() {
        text[byte] ^= mask;
    } else if byte < text.len() + bad_tag.len() {
        bad_tag[byte - text.len()] ^= mask;
    } else {
        aad[byte - text.len() - bad_tag.len()] ^= mask;
    }
    let before = text.clone();
    assert_eq!(
        fast.open(case.nonce, &aad, &mut text, &bad_tag),
        Err(Error::AuthenticationFailed),
        "{name}: tampered message (bit {bit}) opened"
    );
    assert_eq!(
        text, before,
        "{name}: failed open of tampered message changed the buffer"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut input = Reader::new(data);
    let key: [u8; 16] = input.array();
    // Lengths chosen so that legal and illegal values are both common.
    let nonce_len = usize::from(input.byte() % 20);
    let tag_len = usize::from(input.byte() % 18);
    let aad_len = usize::from(input.u16()) % 512;
    let flip = input.u16();
    let nonce = input.bytes(nonce_len);
    let tag = input.bytes(tag_len);
    let aad = input.bytes(aad_len);
    let text = input.rest();
    let case = Case {
        nonce,
        aad,
        tag,
        text,
        flip,
    };

    let gcm = Sm4Gcm::new(&key);
    let gcm_soft = Sm4Gcm::with_backend(&key, Backend::Soft).expect("soft backend");
    check(&gcm, &gcm_soft, &case);

    let ccm = Sm4Ccm::new(&key);
    let ccm_soft = Sm4Ccm::with_backend(&key, Backend::Soft).expect("soft backend");
    check(&ccm, &ccm_soft, &case);
});
