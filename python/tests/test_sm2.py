"""SM2 signatures and encryption against gmssl (an independent pure-Python implementation of
GB/T 32918), both ways."""

import os

import pytest
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from gmssl import sm2 as gmssl_sm2

import regula


def gmssl_pair(key):
    """A gmssl CryptSM2 holding the same key pair as a Regula SM2 key."""
    der = key.private_bytes()
    # ECPrivateKey (RFC 5915) inside the PKCS#8: version 1, then the 32-byte scalar.
    marker = bytes.fromhex("0201010420")
    start = der.index(marker) + len(marker)
    scalar = der[start : start + 32].hex()
    point = key.public_key()[-64:].hex()  # SubjectPublicKeyInfo ends with 04 || x || y
    return scalar, point


def sm2_key(module, generate):
    # gmssl 3.2.2 strips every leading "0"/"4" character of a public key that starts with
    # "04" (str.lstrip): draw keys until gmssl reads ours intact.
    while True:
        key = generate(module)
        scalar, point = gmssl_pair(key)
        if not point.startswith("04"):
            return key, scalar, point


@pytest.mark.parametrize("length", [1, 32, 200])
def test_regula_signs_gmssl_verifies(gm, length):
    key, scalar, point = sm2_key(gm, lambda m: m.generate_signing_key("sm2-sign"))
    peer = gmssl_sm2.CryptSM2(private_key=scalar, public_key=point)
    message = os.urandom(length)
    signature = key.sign(message)
    assert signature.indicator.approved and signature.indicator.algorithm == "sm2-sign"
    r, s = decode_dss_signature(signature.data)
    assert peer.verify_with_sm3("%064x%064x" % (r, s), message)
    assert not peer.verify_with_sm3("%064x%064x" % (r, s), message + b"!")


def test_gmssl_signs_regula_verifies(gm):
    key, scalar, point = sm2_key(gm, lambda m: m.generate_signing_key("sm2-sign"))
    peer = gmssl_sm2.CryptSM2(private_key=scalar, public_key=point)
    message = b"GB/T 32918.2"
    signature_hex = peer.sign_with_sm3(message)
    der = encode_dss_signature(int(signature_hex[:64], 16), int(signature_hex[64:], 16))
    assert gm.verify("sm2-sign", key.public_key(), message, der).approved
    assert gm.verify("sm2-sign", bytes.fromhex("04" + point), message, der)  # raw point
    assert key.verify(message, der)
    with pytest.raises(regula.InvalidSignature):
        gm.verify("sm2-sign", key.public_key(), b"other", der)
    # Another signer ID makes another Z value: the default-ID signature does not verify.
    with pytest.raises(regula.InvalidSignature):
        gm.verify("sm2-sign", key.public_key(), message, der, id=b"alice@example.com")


def test_signer_id_round_trip(gm):
    key = gm.generate_signing_key("sm2-sign")
    signature = key.sign(b"msg", id=b"TLSv1.3+GM+Cipher+Suite")
    assert key.verify(b"msg", signature, id=b"TLSv1.3+GM+Cipher+Suite")
    with pytest.raises(regula.InvalidSignature):
        key.verify(b"msg", signature)


@pytest.mark.parametrize("length", [1, 19, 100])
def test_regula_encrypts_gmssl_decrypts(gm, length):
    key, scalar, point = sm2_key(gm, lambda m: m.generate_decryption_key("sm2-encrypt"))
    peer = gmssl_sm2.CryptSM2(private_key=scalar, public_key=point, mode=1)  # C1C3C2
    plaintext = os.urandom(length)
    ciphertext = gm.encrypt_to_public_key(
        "sm2-encrypt", key.public_key("pem"), plaintext, format="c1c3c2"
    )
    assert ciphertext.indicator.service == "encrypt" and ciphertext.indicator.approved
    assert ciphertext[0] == 0x04
    assert peer.decrypt(bytes(ciphertext[1:])) == plaintext


def test_gmssl_encrypts_regula_decrypts(gm):
    key, scalar, point = sm2_key(gm, lambda m: m.generate_decryption_key("sm2-encrypt"))
    peer = gmssl_sm2.CryptSM2(private_key=scalar, public_key=point, mode=1)
    plaintext = b"encryption standard GB/T 32918.4"
    ciphertext = b"\x04" + peer.encrypt(plaintext)
    decrypted = key.decrypt(ciphertext, format="c1c3c2")
    assert decrypted == plaintext and decrypted.indicator.service == "decrypt"
    tampered = bytearray(ciphertext)
    tampered[70] ^= 1  # inside C3
    with pytest.raises(regula.InvalidTag):
        key.decrypt(bytes(tampered), format="c1c3c2")


def test_asn1_format_round_trip_and_key_reload(gm):
    key = gm.generate_decryption_key("sm2-encrypt")
    ciphertext = gm.encrypt_to_public_key("sm2-encrypt", key.public_key(), b"asn1")
    assert ciphertext[0] == 0x30  # DER SEQUENCE (GM/T 0009)
    reloaded = gm.load_decryption_key("sm2-encrypt", key.private_bytes("pem"))
    assert reloaded.decrypt(ciphertext) == b"asn1"


def test_sm2_is_not_served_under_fips(fips):
    with pytest.raises(regula.NotApproved):
        fips.generate_signing_key("sm2-sign")
