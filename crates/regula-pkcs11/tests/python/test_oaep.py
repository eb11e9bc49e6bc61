"""RSA-OAEP (CKM_RSA_PKCS_OAEP) on libregula-pkcs11 through python-pkcs11 (PyPI), checked
against pyca/cryptography both ways.

cryptography encrypts to a pair the token generated (its public key rebuilt from CKA_MODULUS
and CKA_PUBLIC_EXPONENT) and the token decrypts; the token encrypts to a key cryptography made
(a C_CreateObject public key) and cryptography decrypts. SHA-256/384/512 with and without a
label; a wrong label and a tampered ciphertext are refused; SHA-1 only where the slot's policy
serves it; the service indicator is read as in test_python_pkcs11.py.

Run by scripts/test-pkcs11-interop (pytest collects every test file of this directory).
"""

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from pkcs11 import MGF, Attribute, KeyType, Mechanism, ObjectClass
from pkcs11.exceptions import EncryptedDataInvalid, MechanismParamInvalid

from token_session import approved, open_session

MESSAGE = b"libregula-pkcs11 and cryptography exchange this with RSA-OAEP"
LABEL = b"Regula label"

# (OAEP hash, MGF1, cryptography's hash)
HASHES = [
    (Mechanism.SHA256, MGF.SHA256, hashes.SHA256()),
    (Mechanism.SHA384, MGF.SHA384, hashes.SHA384()),
    (Mechanism.SHA512, MGF.SHA512, hashes.SHA512()),
]


@pytest.fixture(scope="module", params=["regula-fips", "regula-default"])
def session(request):
    with open_session(request.param) as session:
        yield session


def big(number):
    return number.to_bytes((number.bit_length() + 7) // 8, "big")


def oaep_padding(digest, label):
    return padding.OAEP(mgf=padding.MGF1(digest), algorithm=digest, label=label)


@pytest.fixture(scope="module")
def pair(session):
    public, private = session.generate_keypair(
        KeyType.RSA,
        2048,
        store=False,
        public_template={Attribute.ENCRYPT: True},
        private_template={Attribute.DECRYPT: True},
    )
    return public, private


@pytest.fixture(scope="module")
def peer_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.mark.parametrize("label", [None, LABEL])
@pytest.mark.parametrize("hash_, mgf, digest", HASHES)
def test_cryptography_encrypts_and_the_token_decrypts(session, pair, hash_, mgf, digest, label):
    public, private = pair
    modulus = int.from_bytes(public[Attribute.MODULUS], "big")
    exponent = int.from_bytes(public[Attribute.PUBLIC_EXPONENT], "big")
    peer = rsa.RSAPublicNumbers(exponent, modulus).public_key()
    ciphertext = peer.encrypt(MESSAGE, oaep_padding(digest, label))
    params = (hash_, mgf, label)
    plaintext = private.decrypt(
        ciphertext, mechanism=Mechanism.RSA_PKCS_OAEP, mechanism_param=params
    )
    assert plaintext == MESSAGE
    assert approved(session)
    with pytest.raises(EncryptedDataInvalid):
        private.decrypt(
            ciphertext,
            mechanism=Mechanism.RSA_PKCS_OAEP,
            mechanism_param=(hash_, mgf, b"another label"),
        )
    tampered = bytes([ciphertext[0] ^ 1]) + ciphertext[1:]
    with pytest.raises(EncryptedDataInvalid):
        private.decrypt(tampered, mechanism=Mechanism.RSA_PKCS_OAEP, mechanism_param=params)


@pytest.mark.parametrize("label", [None, LABEL])
@pytest.mark.parametrize("hash_, mgf, digest", HASHES)
def test_the_token_encrypts_and_cryptography_decrypts(session, peer_key, hash_, mgf, digest, label):
    numbers = peer_key.public_key().public_numbers()
    public = session.create_object(
        {
            Attribute.CLASS: ObjectClass.PUBLIC_KEY,
            Attribute.KEY_TYPE: KeyType.RSA,
            Attribute.TOKEN: False,
            Attribute.ENCRYPT: True,
            Attribute.MODULUS: big(numbers.n),
            Attribute.PUBLIC_EXPONENT: big(numbers.e),
        }
    )
    ciphertext = public.encrypt(
        MESSAGE, mechanism=Mechanism.RSA_PKCS_OAEP, mechanism_param=(hash_, mgf, label)
    )
    assert approved(session)
    assert len(ciphertext) == 256
    assert peer_key.decrypt(ciphertext, oaep_padding(digest, label)) == MESSAGE


def test_the_mgf_must_use_the_oaep_hash(session, pair):
    public, _ = pair
    with pytest.raises(MechanismParamInvalid):
        public.encrypt(
            MESSAGE,
            mechanism=Mechanism.RSA_PKCS_OAEP,
            mechanism_param=(Mechanism.SHA256, MGF.SHA1, None),
        )


def test_sha1_oaep_only_where_the_policy_serves_it(session, pair):
    """python-pkcs11's default OAEP parameters are SHA-1: fips-140-3 refuses them."""
    public, private = pair
    label = session.token.label.strip()
    if label == "regula-fips":
        with pytest.raises(MechanismParamInvalid):
            public.encrypt(MESSAGE, mechanism=Mechanism.RSA_PKCS_OAEP)
        return
    ciphertext = public.encrypt(MESSAGE, mechanism=Mechanism.RSA_PKCS_OAEP)
    assert private.decrypt(ciphertext, mechanism=Mechanism.RSA_PKCS_OAEP) == MESSAGE
