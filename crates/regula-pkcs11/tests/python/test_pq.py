"""ML-DSA (FIPS 204) and ML-KEM (FIPS 203) through python-pkcs11's PKCS#11 3.2 support, each
answer checked by pyca/cryptography's own ML-DSA and ML-KEM (OpenSSL's or AWS-LC's, not
Regula's): the token's signatures verify there and cryptography's on the token; each side
decapsulates what the other encapsulated to the same 32-byte secret.
"""

import pkcs11
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import mldsa, mlkem
from pkcs11 import Attribute, KeyType, Mechanism, ObjectClass
from pkcs11.mechanisms import MLDSAParameterSet, MLKEMParameterSet

from token_session import approved

MESSAGE = b"signed by ML-DSA on the token, checked by pyca/cryptography"

ML_DSA_SETS = [
    # (parameter set, cryptography's key classes, public key and signature sizes of FIPS 204)
    (MLDSAParameterSet.ML_DSA_44, mldsa.MLDSA44PrivateKey, mldsa.MLDSA44PublicKey, 1312, 2420),
    (MLDSAParameterSet.ML_DSA_65, mldsa.MLDSA65PrivateKey, mldsa.MLDSA65PublicKey, 1952, 3309),
    (MLDSAParameterSet.ML_DSA_87, mldsa.MLDSA87PrivateKey, mldsa.MLDSA87PublicKey, 2592, 4627),
]

ML_KEM_SETS = [
    # (parameter set, cryptography's key classes, encapsulation key and ciphertext sizes)
    (MLKEMParameterSet.ML_KEM_768, mlkem.MLKEM768PrivateKey, mlkem.MLKEM768PublicKey, 1184, 1088),
    (
        MLKEMParameterSet.ML_KEM_1024,
        mlkem.MLKEM1024PrivateKey,
        mlkem.MLKEM1024PublicKey,
        1568,
        1568,
    ),
]

# A shared secret the test may read, to compare it with cryptography's.
READABLE_SECRET = {Attribute.SENSITIVE: False, Attribute.EXTRACTABLE: True}


def pair(session, key_type, parameter_set):
    return session.generate_keypair(
        key_type,
        public_template={Attribute.PARAMETER_SET: parameter_set, Attribute.TOKEN: False},
        private_template={Attribute.TOKEN: False},
    )


@pytest.mark.parametrize("parameter_set,private_class,public_class,public_len,sig_len", ML_DSA_SETS)
def test_ml_dsa_signatures_verify_with_cryptography_both_ways(
    fips, parameter_set, private_class, public_class, public_len, sig_len
):
    public, private = pair(fips, KeyType.ML_DSA, parameter_set)
    assert approved(fips)
    assert private[Attribute.SENSITIVE] and not private[Attribute.EXTRACTABLE]
    with pytest.raises(pkcs11.exceptions.AttributeSensitive):
        private[Attribute.VALUE]
    encoded = public[Attribute.VALUE]
    assert len(encoded) == public_len

    signature = private.sign(MESSAGE, mechanism=Mechanism.ML_DSA)
    assert approved(fips)
    assert len(signature) == sig_len
    peer = public_class.from_public_bytes(encoded)
    peer.verify(signature, MESSAGE)
    with pytest.raises(InvalidSignature):
        peer.verify(signature, MESSAGE + b"!")
    assert public.verify(MESSAGE, signature, mechanism=Mechanism.ML_DSA)
    assert approved(fips)
    assert not public.verify(MESSAGE + b"!", signature, mechanism=Mechanism.ML_DSA)

    # A signature cryptography makes verifies on the token with its public key imported.
    theirs = private_class.generate()
    imported = fips.create_object(
        {
            Attribute.CLASS: ObjectClass.PUBLIC_KEY,
            Attribute.KEY_TYPE: KeyType.ML_DSA,
            Attribute.PARAMETER_SET: parameter_set,
            Attribute.VALUE: theirs.public_key().public_bytes_raw(),
            Attribute.VERIFY: True,
        }
    )
    their_signature = theirs.sign(MESSAGE)
    assert imported.verify(MESSAGE, their_signature, mechanism=Mechanism.ML_DSA)
    tampered = bytearray(their_signature)
    tampered[10] ^= 1
    assert not imported.verify(MESSAGE, bytes(tampered), mechanism=Mechanism.ML_DSA)


@pytest.mark.parametrize("parameter_set,private_class,public_class,ek_len,ct_len", ML_KEM_SETS)
def test_ml_kem_agrees_with_cryptography_both_ways(
    fips, parameter_set, private_class, public_class, ek_len, ct_len
):
    public, private = pair(fips, KeyType.ML_KEM, parameter_set)
    assert approved(fips)
    encapsulation_key = public[Attribute.VALUE]
    assert len(encapsulation_key) == ek_len

    # cryptography encapsulates to the token's key; the token decapsulates the same secret.
    secret, ciphertext = public_class.from_public_bytes(encapsulation_key).encapsulate()
    assert len(ciphertext) == ct_len
    on_token = private.decapsulate_key(
        ciphertext, KeyType.GENERIC_SECRET, key_length=256, template=READABLE_SECRET
    )
    assert approved(fips)
    assert on_token[Attribute.VALUE] == secret

    # The token encapsulates to cryptography's key; cryptography decapsulates the same secret.
    theirs = private_class.generate()
    imported = fips.create_object(
        {
            Attribute.CLASS: ObjectClass.PUBLIC_KEY,
            Attribute.KEY_TYPE: KeyType.ML_KEM,
            Attribute.PARAMETER_SET: parameter_set,
            Attribute.VALUE: theirs.public_key().public_bytes_raw(),
            Attribute.ENCAPSULATE: True,
        }
    )
    ciphertext, on_token = imported.encapsulate_key(
        KeyType.GENERIC_SECRET, key_length=256, template=READABLE_SECRET
    )
    assert approved(fips)
    assert len(ciphertext) == ct_len
    assert theirs.decapsulate(ciphertext) == on_token[Attribute.VALUE]

    # A ciphertext of the wrong length is refused, not decapsulated.
    with pytest.raises(pkcs11.exceptions.PKCS11Error):
        private.decapsulate_key(ciphertext[:-1], KeyType.GENERIC_SECRET, key_length=256)
