//! Differential tests of the constant-time SM2 point multiplications (`[d]G` in key generation
//! and the public-key recomputation, `[d]Q` in ECDH, encryption, decryption and the key
//! exchange) against RustCrypto's `sm2` crate arithmetic (fiat-crypto field, its own complete
//! formulas), on edge scalars and on random ones: 10 000 keys in a release build (each edge key
//! against every edge and random peer), fewer in a debug build.

use ::sm2::elliptic_curve::ff::PrimeField;
use ::sm2::elliptic_curve::ops::Reduce;
use ::sm2::elliptic_curve::sec1::ToSec1Point;
use ::sm2::{ProjectivePoint, Scalar};
use regula_sm::sm2::exchange::{KeyExchange, KeyExchangeRole};
use regula_sm::sm2::{self as ours, CiphertextFormat, DEFAULT_ID, PrivateKey, PublicKey};

const CASES: usize = if cfg!(debug_assertions) { 100 } else { 10_000 };
/// Peers each edge key meets (all of them in release; the debug build also runs under QEMU).
const EDGE_PEERS: usize = if cfg!(debug_assertions) {
    3
} else {
    usize::MAX
};

/// n - k, big-endian.
fn n_minus(k: u8) -> [u8; 32] {
    let mut n =
        hex_literal::hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
    // k < 0x23, so only the last byte changes.
    n[31] -= k;
    n
}

fn scalar_bytes(value: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[24..].copy_from_slice(&value.to_be_bytes());
    out
}

/// Private keys at the edges of [1, n-2] and with unusual digit patterns.
fn edge_scalars() -> Vec<[u8; 32]> {
    let mut edges: Vec<[u8; 32]> = [1, 2, 3, 15, 16, 17, 31, 32, 33, 0xffff_ffff, u64::MAX]
        .map(scalar_bytes)
        .to_vec();
    edges.extend([2, 3, 4, 16, 17].map(n_minus));
    for pattern in [0x80, 0x7f, 0x55, 0xaa, 0x10, 0x0f, 0xf0, 0x84, 0x21] {
        let mut bytes = [pattern; 32];
        // Keep the value below n - 1 (n starts with FFFFFFFE).
        if bytes[0] > 0x7f {
            bytes[0] = 0x7f;
        }
        edges.push(bytes);
    }
    // Single high bits, and all-ones runs.
    for bit in [255, 254, 200, 128, 64, 5, 4] {
        let mut bytes = [0u8; 32];
        bytes[31 - bit / 8] = 1 << (bit % 8);
        edges.push(bytes);
    }
    let mut run = [0xff; 32];
    run[0] = 0x7f;
    edges.push(run);
    edges
}

fn reference_scalar(bytes: &[u8; 32]) -> Scalar {
    Option::from(Scalar::from_repr((*bytes).into())).expect("below n")
}

fn reference_point(point: &ProjectivePoint) -> [u8; 65] {
    point
        .to_affine()
        .to_sec1_point(false)
        .as_bytes()
        .try_into()
        .unwrap()
}

fn random_bytes() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes[..]);
    bytes
}

fn random(out: &mut [u8]) -> Result<(), ours::Error> {
    rand::fill(out);
    Ok(())
}

#[test]
fn key_generation_and_ecdh_match_the_reference() {
    let peers: Vec<[u8; 32]> = edge_scalars()
        .into_iter()
        .chain((0..8).map(|_| random_bytes()))
        .map(|bytes| {
            <Scalar as Reduce<::sm2::FieldBytes>>::reduce(&bytes.into())
                .to_repr()
                .into()
        })
        .collect();
    let mut scalars = edge_scalars();
    while scalars.len() < CASES {
        scalars.push(random_bytes());
    }
    for (index, d) in scalars.iter().enumerate() {
        let Ok(key) = PrivateKey::from_bytes(d) else {
            // A random 256-bit string at or above n - 1 (probability below 2^-32).
            continue;
        };
        let d_ref = reference_scalar(d);
        let public = reference_point(&(ProjectivePoint::GENERATOR * d_ref));
        assert_eq!(
            key.public_key().to_uncompressed(),
            public,
            "[d]G, d = {d:02x?}"
        );
        assert_eq!(
            key.recompute_public_key(),
            public,
            "[d]G again, d = {d:02x?}"
        );
        // Every edge key against every peer, and random keys against a rotating peer.
        let peer_count = if index < edge_scalars().len() {
            peers.len().min(EDGE_PEERS)
        } else {
            1
        };
        for offset in 0..peer_count {
            let peer_scalar = reference_scalar(&peers[(index + offset) % peers.len()]);
            if bool::from(peer_scalar.is_zero()) {
                continue;
            }
            let peer_point = ProjectivePoint::GENERATOR * peer_scalar;
            let peer = PublicKey::from_sec1(&reference_point(&peer_point)).unwrap();
            let expected = reference_point(&(peer_point * d_ref));
            assert_eq!(
                *ours::ecdh(&key, &peer).unwrap(),
                expected[1..33],
                "[d]Q, d = {d:02x?}"
            );
        }
    }
}

#[test]
fn encryption_decryption_and_key_exchange_agree_across_random_keys() {
    for _ in 0..CASES / 100 {
        let a = PrivateKey::generate(&mut random).unwrap();
        let b = PrivateKey::generate(&mut random).unwrap();
        let ciphertext = ours::encrypt(
            b.public_key(),
            b"differential",
            CiphertextFormat::C1C3C2,
            &mut random,
        )
        .unwrap();
        assert_eq!(
            ours::decrypt(&b, &ciphertext, CiphertextFormat::C1C3C2).unwrap(),
            b"differential"
        );
        let start = |role, own: &PrivateKey, peer: &PrivateKey| {
            KeyExchange::new(
                role,
                own,
                DEFAULT_ID,
                peer.public_key(),
                DEFAULT_ID,
                &mut random,
            )
            .unwrap()
        };
        let initiator = start(KeyExchangeRole::Initiator, &a, &b);
        let responder = start(KeyExchangeRole::Responder, &b, &a);
        let (r_a, r_b) = (
            initiator.ephemeral_public_key(),
            responder.ephemeral_public_key(),
        );
        let k_a = initiator.finish(&r_b, 16).unwrap();
        let k_b = responder.finish(&r_a, 16).unwrap();
        assert_eq!(k_a.key(), k_b.key());
    }
}
