"""RSA on libregula-pkcs11 through python-pkcs11 (PyPI), checked against pyca/cryptography.

PKCS#1 v1.5 (CKM_SHA256_RSA_PKCS, ...) and PSS (CKM_SHA256_RSA_PKCS_PSS, ...) both ways: the
token signs and cryptography verifies with the public key rebuilt from CKA_MODULUS and
CKA_PUBLIC_EXPONENT; cryptography signs and the token verifies with a public key made by
C_CreateObject, and signs with a private key imported from cryptography's CRT components.
Tampered signatures are refused; the service indicator is read as in test_python_pkcs11.py.

Run by scripts/test-pkcs11-interop (pytest collects every test file of this directory).
"""

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from pkcs11 import MGF, Attribute, KeyType, Mechanism, ObjectClass
from pkcs11.exceptions import MechanismParamInvalid

from token_session import approved, open_session

MESSAGE = b"libregula-pkcs11 signs this with RSA through python-pkcs11"

# (PKCS#1 v1.5 mechanism, PSS mechanism, PSS hash and MGF, salt bytes, cryptography's hash)
SCHEMES = [
    (
        Mechanism.SHA256_RSA_PKCS,
        Mechanism.SHA256_RSA_PKCS_PSS,
        (Mechanism.SHA256, MGF.SHA256),
        32,
        hashes.SHA256(),
    ),
    (
        Mechanism.SHA384_RSA_PKCS,
        Mechanism.SHA384_RSA_PKCS_PSS,
        (Mechanism.SHA384, MGF.SHA384),
        48,
        hashes.SHA384(),
    ),
    (
        Mechanism.SHA512_RSA_PKCS,
        Mechanism.SHA512_RSA_PKCS_PSS,
        (Mechanism.SHA512, MGF.SHA512),
        64,
        hashes.SHA512(),
    ),
]


@pytest.fixture(scope="module", params=["regula-fips", "regula-default"])
def session(request):
    with open_session(request.param) as session:
        yield session


def big(number):
    return number.to_bytes((number.bit_length() + 7) // 8, "big")


def peer_public(public):
    """cryptography's public key from the token's CKA_MODULUS and CKA_PUBLIC_EXPONENT."""
    modulus = int.from_bytes(public[Attribute.MODULUS], "big")
    exponent = int.from_bytes(public[Attribute.PUBLIC_EXPONENT], "big")
    return rsa.RSAPublicNumbers(exponent, modulus).public_key()


def pss_padding(digest, salt):
    return padding.PSS(mgf=padding.MGF1(digest), salt_length=salt)


@pytest.fixture(scope="module")
def pair(session):
    public, private = session.generate_keypair(KeyType.RSA, 2048, store=False)
    assert approved(session)
    return public, private


@pytest.mark.parametrize("pkcs1, pss, params, salt, digest", SCHEMES)
def test_the_token_signs_and_cryptography_verifies(session, pair, pkcs1, pss, params, salt, digest):
    public, private = pair
    peer = peer_public(public)
    signature = private.sign(MESSAGE, mechanism=pkcs1)
    assert approved(session)
    peer.verify(signature, MESSAGE, padding.PKCS1v15(), digest)
    with pytest.raises(InvalidSignature):
        peer.verify(signature, MESSAGE + b"!", padding.PKCS1v15(), digest)

    signature = private.sign(MESSAGE, mechanism=pss, mechanism_param=(*params, salt))
    assert approved(session)
    peer.verify(signature, MESSAGE, pss_padding(digest, salt), digest)
    with pytest.raises(InvalidSignature):
        peer.verify(signature, MESSAGE, padding.PKCS1v15(), digest)
    assert public.verify(MESSAGE, signature, mechanism=pss, mechanism_param=(*params, salt))
    tampered = bytes([signature[0] ^ 1]) + signature[1:]
    assert not public.verify(MESSAGE, tampered, mechanism=pss, mechanism_param=(*params, salt))


def test_a_pss_salt_other_than_the_hash_length_is_refused(session, pair):
    _, private = pair
    with pytest.raises(MechanismParamInvalid):
        private.sign(
            MESSAGE,
            mechanism=Mechanism.SHA256_RSA_PKCS_PSS,
            mechanism_param=(Mechanism.SHA256, MGF.SHA256, 20),
        )


@pytest.fixture(scope="module")
def peer_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.mark.parametrize("pkcs1, pss, params, salt, digest", SCHEMES)
def test_cryptography_signs_and_the_token_verifies(
    session, peer_key, pkcs1, pss, params, salt, digest
):
    numbers = peer_key.public_key().public_numbers()
    public = session.create_object(
        {
            Attribute.CLASS: ObjectClass.PUBLIC_KEY,
            Attribute.KEY_TYPE: KeyType.RSA,
            Attribute.TOKEN: False,
            Attribute.VERIFY: True,
            Attribute.MODULUS: big(numbers.n),
            Attribute.PUBLIC_EXPONENT: big(numbers.e),
        }
    )
    signature = peer_key.sign(MESSAGE, padding.PKCS1v15(), digest)
    assert public.verify(MESSAGE, signature, mechanism=pkcs1)
    assert approved(session)
    assert not public.verify(MESSAGE + b"!", signature, mechanism=pkcs1)

    signature = peer_key.sign(MESSAGE, pss_padding(digest, salt), digest)
    assert public.verify(MESSAGE, signature, mechanism=pss, mechanism_param=(*params, salt))
    assert approved(session)
    tampered = signature[:-1] + bytes([signature[-1] ^ 1])
    assert not public.verify(MESSAGE, tampered, mechanism=pss, mechanism_param=(*params, salt))


def test_a_private_key_from_cryptography_components_signs(session, peer_key):
    private_numbers = peer_key.private_numbers()
    public_numbers = private_numbers.public_numbers
    private = session.create_object(
        {
            Attribute.CLASS: ObjectClass.PRIVATE_KEY,
            Attribute.KEY_TYPE: KeyType.RSA,
            Attribute.TOKEN: False,
            Attribute.SIGN: True,
            Attribute.MODULUS: big(public_numbers.n),
            Attribute.PUBLIC_EXPONENT: big(public_numbers.e),
            Attribute.PRIVATE_EXPONENT: big(private_numbers.d),
            Attribute.PRIME_1: big(private_numbers.p),
            Attribute.PRIME_2: big(private_numbers.q),
            Attribute.EXPONENT_1: big(private_numbers.dmp1),
            Attribute.EXPONENT_2: big(private_numbers.dmq1),
            Attribute.COEFFICIENT: big(private_numbers.iqmp),
        }
    )
    signature = private.sign(MESSAGE, mechanism=Mechanism.SHA256_RSA_PKCS)
    # PKCS#1 v1.5 is deterministic: the peer's own signature with the same key.
    assert signature == peer_key.sign(MESSAGE, padding.PKCS1v15(), hashes.SHA256())
    peer_key.public_key().verify(signature, MESSAGE, padding.PKCS1v15(), hashes.SHA256())
