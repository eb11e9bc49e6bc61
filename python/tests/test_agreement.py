"""Key agreement (ECDH, X25519) and ML-KEM against pyca/cryptography, both ways."""

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, mlkem, x25519

import regula

CURVES = {"ecdh-p256": ec.SECP256R1, "ecdh-p384": ec.SECP384R1, "ecdh-p521": ec.SECP521R1}


@pytest.mark.parametrize("name", sorted(CURVES))
def test_ecdh_both_ways(fips, name):
    ours = fips.generate_agreement_key(name)
    assert ours.indicator.service == "key-generation"
    theirs = ec.generate_private_key(CURVES[name]())
    their_point = theirs.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    secret = ours.exchange(their_point)
    assert isinstance(secret, regula.Secret)
    assert secret.indicator.service == "key-agreement" and secret.indicator.approved
    our_public = ec.EllipticCurvePublicKey.from_encoded_point(CURVES[name](), ours.public_key())
    assert secret == theirs.exchange(ec.ECDH(), our_public)
    # A DER SubjectPublicKeyInfo works too.
    der = theirs.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert ours.exchange(der) == secret


def test_ecdh_loaded_private_key_matches_pyca(fips):
    theirs = ec.generate_private_key(ec.SECP256R1())
    scalar = theirs.private_numbers().private_value.to_bytes(32, "big")
    ours = fips.load_agreement_key("ecdh-p256", scalar)
    assert ours.indicator.service == "key-import"
    assert ours.public_key() == theirs.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


def test_x25519_both_ways_and_rfc_7748(default, fips):
    # SP 800-56A Rev. 3 has no X25519: fips-140-3 refuses it, the default policy serves it.
    with pytest.raises(regula.NotApproved):
        fips.generate_agreement_key("x25519")
    ours = default.generate_agreement_key("x25519")
    theirs = x25519.X25519PrivateKey.generate()
    secret = ours.exchange(theirs.public_key().public_bytes_raw())
    peer = x25519.X25519PublicKey.from_public_bytes(ours.public_key())
    assert secret == theirs.exchange(peer)
    # RFC 7748 section 6.1.
    alice = default.load_agreement_key(
        "x25519", bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    )
    bob_public = bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    assert alice.exchange(bob_public).hex() == (
        "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
    )


def test_invalid_peer_point_is_invalid_input(fips):
    ours = fips.generate_agreement_key("ecdh-p256")
    with pytest.raises(regula.InvalidInput):
        ours.exchange(b"\x04" + bytes(64))


def test_sm2_ecdh_agrees_with_itself(gm):
    alice, bob = gm.generate_agreement_key("sm2-ecdh"), gm.generate_agreement_key("sm2-ecdh")
    shared = alice.exchange(bob.public_key())
    assert shared == bob.exchange(alice.public_key()) and len(shared) == 32
    assert shared.indicator.approved and shared.indicator.policy == "gm"


@pytest.mark.parametrize(
    "name,peer,peer_public",
    [
        ("ml-kem-768", mlkem.MLKEM768PrivateKey, mlkem.MLKEM768PublicKey),
        ("ml-kem-1024", mlkem.MLKEM1024PrivateKey, mlkem.MLKEM1024PublicKey),
    ],
)
def test_ml_kem_both_ways(fips, name, peer, peer_public):
    ours = fips.generate_kem_key(name)
    their_view = peer_public.from_public_bytes(ours.encapsulation_key())
    shared, ciphertext = their_view.encapsulate()
    secret = ours.decapsulate(ciphertext)
    assert secret == shared
    assert secret.indicator.service == "decapsulate" and secret.indicator.approved

    theirs = peer.generate()
    ciphertext, secret = fips.encapsulate(name, theirs.public_key().public_bytes_raw())
    assert secret.indicator.service == "encapsulate"
    assert theirs.decapsulate(ciphertext) == secret


def test_ml_kem_refused_under_gm(gm):
    with pytest.raises(regula.NotApproved):
        gm.generate_kem_key("ml-kem-768")
