"""Signatures: keys generated or loaded by Regula and by pyca/cryptography, each verifying the
other's signatures."""

import os

import pytest
from cryptography.exceptions import InvalidSignature as PycaInvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, mldsa, padding, rsa

import regula

ECDSA = {
    "ecdsa-p256": (ec.SECP256R1, hashes.SHA256),
    "ecdsa-p384": (ec.SECP384R1, hashes.SHA384),
    "ecdsa-p521": (ec.SECP521R1, hashes.SHA512),
}


def pkcs8(private_key, encoding=serialization.Encoding.PEM):
    return private_key.private_bytes(
        encoding, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def spki(public_key, encoding=serialization.Encoding.DER):
    return public_key.public_bytes(encoding, serialization.PublicFormat.SubjectPublicKeyInfo)


@pytest.mark.parametrize("name", sorted(ECDSA))
def test_ecdsa_regula_signs_pyca_verifies(fips, name):
    curve, digest = ECDSA[name]
    key = fips.generate_signing_key(name)
    assert key.indicator.service == "key-generation" and key.indicator.approved
    message = os.urandom(100)
    signature = key.sign(message)
    assert signature.indicator.service == "sign" and signature.indicator.approved
    public = serialization.load_der_public_key(key.public_key())
    assert public.curve.name == curve().name
    public.verify(signature.data, message, ec.ECDSA(digest()))
    with pytest.raises(PycaInvalidSignature):
        public.verify(signature.data, message + b"!", ec.ECDSA(digest()))
    # And through PEM.
    assert serialization.load_pem_public_key(key.public_key("pem")).public_numbers() == (
        public.public_numbers()
    )


@pytest.mark.parametrize("name", sorted(ECDSA))
def test_ecdsa_pyca_signs_regula_verifies(fips, name):
    curve, digest = ECDSA[name]
    private = ec.generate_private_key(curve())
    message = os.urandom(100)
    signature = private.sign(message, ec.ECDSA(digest()))
    indicator = fips.verify(name, spki(private.public_key()), message, signature)
    assert indicator.service == "verify" and indicator.approved
    assert fips.verify(
        name, spki(private.public_key(), serialization.Encoding.PEM), message, signature
    )
    with pytest.raises(regula.InvalidSignature) as info:
        fips.verify(name, spki(private.public_key()), message + b"!", signature)
    assert info.value.exit_code == 1
    # A pyca key loaded into Regula signs what pyca verifies.
    loaded = fips.load_signing_key(name, pkcs8(private))
    assert loaded.indicator.service == "key-import"
    private.public_key().verify(loaded.sign(message).data, message, ec.ECDSA(digest()))
    loaded.verify(message, signature)


def test_ed25519_both_ways(fips):
    key = fips.generate_signing_key("ed25519")
    message = os.urandom(64)
    signature = key.sign(message)
    assert len(signature) == 64
    serialization.load_der_public_key(key.public_key()).verify(signature.data, message)

    private = ed25519.Ed25519PrivateKey.generate()
    theirs = private.sign(message)
    fips.verify("ed25519", spki(private.public_key()), message, theirs)
    raw = private.public_key().public_bytes_raw()
    fips.verify("ed25519", raw, message, theirs)
    with pytest.raises(regula.InvalidSignature):
        fips.verify("ed25519", raw, message, theirs[:-1] + bytes([theirs[-1] ^ 1]))
    # Deterministic signatures (RFC 8032): a loaded key signs exactly as pyca does.
    loaded = fips.load_signing_key("ed25519", pkcs8(private, serialization.Encoding.DER))
    assert loaded.sign(message) == theirs


def test_ed25519_rfc_8032_test_1(default):
    # RFC 8032 section 7.1, TEST 1 (empty message).
    secret = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    private = ed25519.Ed25519PrivateKey.from_private_bytes(secret)
    key = default.load_signing_key("ed25519", pkcs8(private))
    assert key.sign(b"").hex() == (
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )


@pytest.mark.parametrize(
    "name,digest", [("rsa-pss-sha256", hashes.SHA256), ("rsa-pss-sha384", hashes.SHA384)]
)
def test_rsa_pss_both_ways(default, name, digest):
    key = default.generate_signing_key(name, rsa_bits=2048)
    assert key.key_bits == 2048
    message = os.urandom(50)
    public = serialization.load_der_public_key(key.public_key())
    pss = padding.PSS(mgf=padding.MGF1(digest()), salt_length=padding.PSS.DIGEST_LENGTH)
    public.verify(key.sign(message).data, message, pss, digest())

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    signature = private.sign(message, pss, digest())
    default.verify(name, spki(private.public_key()), message, signature)
    with pytest.raises(regula.InvalidSignature):
        default.verify(name, spki(private.public_key()), message[1:], signature)


def test_rsa_pkcs1_both_ways(fips):
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    message = b"pkcs1 v1.5"
    key = fips.load_signing_key("rsa-pkcs1-sha256", pkcs8(private))
    private.public_key().verify(
        key.sign(message).data, message, padding.PKCS1v15(), hashes.SHA256()
    )
    theirs = private.sign(message, padding.PKCS1v15(), hashes.SHA256())
    assert fips.verify("rsa-pkcs1-sha256", spki(private.public_key()), message, theirs).approved
    # AWS-LC parses no RSA key under 2048 bits.
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    with pytest.raises(regula.InvalidInput, match="TooSmall"):
        fips.load_signing_key("rsa-pkcs1-sha256", pkcs8(small))


def test_sha1_signatures_only_verify(fips):
    private = ec.generate_private_key(ec.SECP256R1())
    signature = private.sign(b"old", ec.ECDSA(hashes.SHA1()))
    assert fips.verify("ecdsa-p256-sha1", spki(private.public_key()), b"old", signature)
    with pytest.raises((regula.NotApproved, regula.InvalidInput)):
        fips.generate_signing_key("ecdsa-p256-sha1")


@pytest.mark.parametrize(
    "name,peer",
    [
        ("ml-dsa-44", mldsa.MLDSA44PrivateKey),
        ("ml-dsa-65", mldsa.MLDSA65PrivateKey),
        ("ml-dsa-87", mldsa.MLDSA87PrivateKey),
    ],
)
def test_ml_dsa_both_ways(fips, name, peer):
    key = fips.generate_signing_key(name)
    message = os.urandom(40)
    signature = key.sign(message)
    assert signature.indicator.approved
    serialization.load_der_public_key(key.public_key()).verify(signature.data, message)

    private = peer.generate()
    theirs = private.sign(message)
    assert fips.verify(name, spki(private.public_key()), message, theirs).approved
    with pytest.raises(regula.InvalidSignature):
        fips.verify(name, spki(private.public_key()), message + b"x", theirs)


def test_key_loading_errors_never_show_the_key(fips):
    private = ec.generate_private_key(ec.SECP256R1())
    traditional = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    with pytest.raises(regula.InvalidInput, match="PKCS#8") as info:
        fips.load_signing_key("ecdsa-p256", traditional)
    assert traditional.decode().split("\n")[1][:20] not in str(info.value)
    der = pkcs8(private, serialization.Encoding.DER)
    with pytest.raises(regula.InvalidInput) as info:
        fips.load_signing_key("ecdsa-p384", der)
    assert der.hex()[-40:] not in str(info.value)
    key = fips.load_signing_key("ecdsa-p256", der)
    assert repr(key) == "<regula.SigningKey ecdsa-p256 (256 bits)>"


def test_private_key_export_round_trips_through_pyca(fips):
    key = fips.generate_signing_key("ecdsa-p384")
    private = serialization.load_pem_private_key(key.private_bytes("pem"), password=None)
    message = b"exported"
    private.public_key().verify(key.sign(message).data, message, ec.ECDSA(hashes.SHA384()))
    assert serialization.load_der_private_key(key.private_bytes(), password=None)
