//! RFC 8998 building blocks against independent implementations: the TLS 1.3 key schedule
//! with SM3 (our HKDF over the module's HMAC-SM3, as rustls drives it) against RustCrypto
//! `hkdf` + `sm3`, and SM4-GCM/SM4-CCM record protection against RustCrypto `aes-gcm`/`ccm`
//! over the `sm4` crate. Plus the gm policy's offer and a counted gm session.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use regula::{Algorithm, Module, Policy, Profile, Service};
use regula_tls::TlsPolicy;
use regula_tls::rfc8998::{self, open_record, seal_record};
use regula_tls::rustls::SupportedCipherSuite;
use regula_tls::rustls::crypto::cipher::Iv;
use regula_tls::rustls::crypto::tls13::{Hkdf, HkdfExpander, OkmBlock};

fn gm() -> Module {
    Module::load(Policy::builtin(Profile::Gm))
}

/// HkdfLabel (RFC 8446 §7.1) as one byte string.
fn hkdf_label(label: &str, context: &[u8], length: u16) -> Vec<u8> {
    let full = format!("tls13 {label}");
    let mut info = length.to_be_bytes().to_vec();
    info.push(full.len() as u8);
    info.extend_from_slice(full.as_bytes());
    info.push(context.len() as u8);
    info.extend_from_slice(context);
    info
}

fn expand(expander: &dyn HkdfExpander, label: &str, context: &[u8], length: usize) -> Vec<u8> {
    let info = hkdf_label(label, context, length as u16);
    let mut out = vec![0u8; length];
    expander.expand_slice(&[&info], &mut out).unwrap();
    out
}

fn reference_expand(prk: &[u8], label: &str, context: &[u8], length: usize) -> Vec<u8> {
    let hkdf = hkdf::Hkdf::<sm3::Sm3>::from_prk(prk).unwrap();
    let mut out = vec![0u8; length];
    hkdf.expand(&hkdf_label(label, context, length as u16), &mut out)
        .unwrap();
    out
}

#[test]
fn gm_offers_only_the_rfc_8998_suites() {
    let policy = TlsPolicy::for_module(&gm()).unwrap();
    assert_eq!(policy.version_names(), ["TLSv1.3"]);
    assert_eq!(policy.suite_names(), ["TLS_SM4_GCM_SM3", "TLS_SM4_CCM_SM3"]);
    assert_eq!(policy.group_names(), ["curveSM2"]);
    assert_eq!(policy.signature_scheme_names(), ["sm2sig_sm3"]);
}

#[test]
fn key_schedule_with_sm3_matches_rustcrypto_hkdf() {
    let policy = TlsPolicy::for_module(&gm()).unwrap();
    for suite in &policy.provider().cipher_suites {
        let SupportedCipherSuite::Tls13(suite) = suite else {
            panic!("gm offers TLS 1.3 only");
        };
        let hkdf: &dyn Hkdf = suite.hkdf_provider;
        let empty_hash = {
            use sm3::Digest;
            sm3::Sm3::digest(b"").to_vec()
        };
        // Early secret: HKDF-Extract(0^32, 0^32).
        let early = hkdf.extract_from_zero_ikm(None);
        let (early_prk, _) = hkdf::Hkdf::<sm3::Sm3>::extract(Some(&[0u8; 32]), &[0u8; 32]);
        let derived = expand(early.as_ref(), "derived", &empty_hash, 32);
        assert_eq!(
            derived,
            reference_expand(&early_prk, "derived", &empty_hash, 32)
        );

        // Handshake secret from a curveSM2 shared secret, then traffic secret, key and IV.
        let shared = [0x5au8; 32];
        let transcript = [0x11u8; 32];
        let handshake = hkdf.extract_from_secret(Some(&derived), &shared);
        let (handshake_prk, _) = hkdf::Hkdf::<sm3::Sm3>::extract(Some(&derived), &shared);
        let traffic = expand(handshake.as_ref(), "c hs traffic", &transcript, 32);
        assert_eq!(
            traffic,
            reference_expand(&handshake_prk, "c hs traffic", &transcript, 32)
        );
        let traffic_expander = hkdf.expander_for_okm(&OkmBlock::new(&traffic));
        assert_eq!(
            expand(traffic_expander.as_ref(), "key", b"", 16),
            reference_expand(&traffic, "key", b"", 16)
        );
        assert_eq!(
            expand(traffic_expander.as_ref(), "iv", b"", 12),
            reference_expand(&traffic, "iv", b"", 12)
        );
        // Finished: HMAC-SM3 over the transcript with the finished key.
        let finished_key = reference_expand(&traffic, "finished", b"", 32);
        let tag = hkdf.hmac_sign(&OkmBlock::new(&finished_key), &transcript);
        let reference = {
            use hkdf::hmac::{KeyInit, Mac};
            let mut mac = hkdf::hmac::Hmac::<sm3::Sm3>::new_from_slice(&finished_key).unwrap();
            mac.update(&transcript);
            mac.finalize().into_bytes().to_vec()
        };
        assert_eq!(tag.as_ref(), reference.as_slice());
    }
}

fn nonce(iv: &[u8; 12], sequence: u64) -> [u8; 12] {
    let mut nonce = *iv;
    for (byte, seq) in nonce[4..].iter_mut().zip(sequence.to_be_bytes()) {
        *byte ^= seq;
    }
    nonce
}

#[test]
fn record_protection_matches_rustcrypto_sm4_gcm_and_ccm() {
    let module = gm();
    let key = [0x0fu8; 16];
    let iv = [0xa5u8; 12];
    let plaintext = b"GET /index.html HTTP/1.1\r\nHost: example\r\n\r\n";
    const APPLICATION_DATA: u8 = 23;
    for (algorithm, sequence) in [
        (Algorithm::Sm4Gcm, 0u64),
        (Algorithm::Sm4Gcm, 7),
        (Algorithm::Sm4Ccm, 3),
    ] {
        let aead = module.aead_key(algorithm, &key).unwrap();
        let record =
            seal_record(&aead, &Iv::new(iv), sequence, plaintext, APPLICATION_DATA).unwrap();

        let mut inner = plaintext.to_vec();
        inner.push(APPLICATION_DATA);
        let length = (inner.len() + 16) as u16;
        let header = [23, 3, 3, (length >> 8) as u8, length as u8];
        let payload = Payload {
            msg: &inner,
            aad: &header,
        };
        let nonce = nonce(&iv, sequence);
        let expected = match algorithm {
            Algorithm::Sm4Gcm => {
                aes_gcm::AesGcm::<sm4::Sm4, aes_gcm::aead::consts::U12>::new_from_slice(&key)
                    .unwrap()
                    .encrypt(&nonce.into(), payload)
                    .unwrap()
            }
            _ => ccm::Ccm::<sm4::Sm4, ccm::consts::U16, ccm::consts::U12>::new_from_slice(&key)
                .unwrap()
                .encrypt(&nonce.into(), payload)
                .unwrap(),
        };
        assert_eq!(record, expected, "{algorithm} record {sequence}");

        assert_eq!(
            open_record(&aead, &Iv::new(iv), sequence, &record).unwrap(),
            inner
        );
        for bit in [0, record.len() * 8 - 1] {
            let mut tampered = record.clone();
            tampered[bit / 8] ^= 1 << (bit % 8);
            assert!(open_record(&aead, &Iv::new(iv), sequence, &tampered).is_err());
        }
        // The wrong sequence number is the wrong nonce.
        assert!(open_record(&aead, &Iv::new(iv), sequence + 1, &record).is_err());
    }
}

#[test]
fn sm2_certificate_verifier_uses_the_default_id_and_handshakes_the_rfc_id() {
    assert_eq!(rfc8998::DEFAULT_SIGNER_ID, b"1234567812345678");
    assert_eq!(rfc8998::TLS13_SIGNER_ID, b"TLSv1.3+GM+Cipher+Suite");
    let module = gm();
    let policy = TlsPolicy::for_module(&module).unwrap();
    let algorithms = &policy.provider().signature_verification_algorithms;
    // One verifier for certificate chains, a different one mapped to sm2sig_sm3.
    assert_eq!(algorithms.all.len(), 1);
    assert_eq!(algorithms.mapping.len(), 1);
    assert_eq!(algorithms.mapping[0].0, rfc8998::SM2SIG_SM3);

    let key = module
        .generate_signing_key(Algorithm::Sm2Sign, None)
        .unwrap()
        .into_value();
    let spki = key.public_key_der().unwrap();
    let point = &spki[spki.len() - 65..];
    let message = b"TLS 1.3, server CertificateVerify";
    let certificate_style = key
        .sign_with_id(message, rfc8998::DEFAULT_SIGNER_ID)
        .unwrap()
        .into_value();
    let handshake_style = key
        .sign_with_id(message, rfc8998::TLS13_SIGNER_ID)
        .unwrap()
        .into_value();
    let chain = algorithms.all[0];
    let handshake = algorithms.mapping[0].1[0];
    assert!(
        chain
            .verify_signature(point, message, &certificate_style)
            .is_ok()
    );
    assert!(
        chain
            .verify_signature(point, message, &handshake_style)
            .is_err()
    );
    assert!(
        handshake
            .verify_signature(point, message, &handshake_style)
            .is_ok()
    );
    assert!(
        handshake
            .verify_signature(point, message, &certificate_style)
            .is_err()
    );
    // The two successful verifications went through the module and count there.
    assert!(
        module
            .counters()
            .iter()
            .any(|row| row.algorithm == Algorithm::Sm2Sign
                && row.service == Service::Verify
                && row.approved >= 2)
    );
}
