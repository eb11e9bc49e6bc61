"""SM2 on the regula-gm token through python-pkcs11 (PyPI), unchanged: the vendor mechanisms of
crates/regula-pkcs11/include/regula-pkcs11.h passed as raw values, their parameters as raw bytes.

pyca/cryptography has no SM2, so the answers are published ones (GB/T 32918.5-2017 Annex A's
signature, Annex C's encryption with the same key, OpenSSL's ASN.1 form of that ciphertext;
copied from crates/regula-sm/tests/sm2.rs) and the OpenSSL 3 command line (skipped with the
reason where it has no SM2).

Run by scripts/test-pkcs11-interop with the other tests/python files (sessions from conftest.py,
the indicator from token_session.py).
"""

import os
import struct
import subprocess
import tempfile

import pkcs11
import pytest
from pkcs11 import Attribute, KeyType, Mechanism, MechanismFlag, ObjectClass

from token_session import LIB, approved, vendor

CKM_REGULA_SM2_KEY_PAIR_GEN = vendor(Mechanism, "REGULA_SM2_KEY_PAIR_GEN", 0x80524711)
CKM_REGULA_SM2_SM3 = vendor(Mechanism, "REGULA_SM2_SM3", 0x80524712)
CKM_REGULA_SM2_ENCRYPT = vendor(Mechanism, "REGULA_SM2_ENCRYPT", 0x80524713)
CKM_REGULA_SM2_ECDH = vendor(Mechanism, "REGULA_SM2_ECDH", 0x80524714)
# CK_REGULA_SM2_ENCRYPT_PARAMS { CK_ULONG ulCiphertextFormat; }
C1C3C2 = struct.pack("@L", 1)

SM2_PARAMS = bytes.fromhex("06082a811ccf5501822d")
D = bytes.fromhex("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8")
PUBLIC = bytes.fromhex(
    "04"
    "09F9DF311E5421A150DD7D161E4BC5C672179FAD1833FC076BB08FF356F35020"
    "CCEA490CE26775A52DC6EA718CC1AA600AED05FBF35E084A6632F6072DA9AD13"
)
SIGNATURE = bytes.fromhex(
    "F5A03B0648D2C4630EEAC513E1BB81A15944DA3827D5B74143AC7EACEEE720B3"
    "B1B6AA29DF212FD8763182BC0D421CA1BB9038FD1F7F42D4840B69C485BBC1AA"
)
PLAINTEXT = b"encryption standard"
C1C3C2_CIPHERTEXT = bytes.fromhex(
    "04"
    "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "21886CA989CA9C7D58087307CA93092D651EFA"
)
ASN1_CIPHERTEXT = bytes.fromhex(
    "307C"
    "0220"
    "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "0221"
    "00"
    "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "0420"
    "59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "0413"
    "21886CA989CA9C7D58087307CA93092D651EFA"
)
SPKI_PREFIX = bytes.fromhex("3059301306072a8648ce3d020106082a811ccf5501822d034200")


def public_key(session, point):
    return session.create_object(
        {
            Attribute.CLASS: ObjectClass.PUBLIC_KEY,
            Attribute.KEY_TYPE: KeyType.EC,
            Attribute.EC_PARAMS: SM2_PARAMS,
            Attribute.EC_POINT: bytes([0x04, len(point)]) + point,
            Attribute.ENCRYPT: True,
            Attribute.VERIFY: True,
        }
    )


def private_key(session, scalar):
    return session.create_object(
        {
            Attribute.CLASS: ObjectClass.PRIVATE_KEY,
            Attribute.KEY_TYPE: KeyType.EC,
            Attribute.EC_PARAMS: SM2_PARAMS,
            Attribute.VALUE: scalar,
            Attribute.SIGN: True,
            Attribute.DECRYPT: True,
        }
    )


def generate(session):
    params = session.create_domain_parameters(
        KeyType.EC, {Attribute.EC_PARAMS: SM2_PARAMS}, local=True
    )
    return params.generate_keypair(
        mechanism=CKM_REGULA_SM2_KEY_PAIR_GEN,
        capabilities=MechanismFlag.SIGN
        | MechanismFlag.VERIFY
        | MechanismFlag.ENCRYPT
        | MechanismFlag.DECRYPT,
    )


def test_the_gm_token_lists_sm2_and_fips_does_not():
    gm_mechanisms = set(LIB.get_token(token_label="regula-gm").slot.get_mechanisms())
    fips_mechanisms = set(LIB.get_token(token_label="regula-fips").slot.get_mechanisms())
    sm2 = {
        CKM_REGULA_SM2_KEY_PAIR_GEN,
        CKM_REGULA_SM2_SM3,
        CKM_REGULA_SM2_ENCRYPT,
        CKM_REGULA_SM2_ECDH,
    }
    assert sm2 <= gm_mechanisms
    assert not sm2 & fips_mechanisms


def test_the_published_signature_verifies_and_a_tampered_one_does_not(gm):
    key = public_key(gm, PUBLIC)
    message = b"message digest"
    # No parameter: the default ID "1234567812345678", which the example signs with.
    assert key.verify(message, SIGNATURE, mechanism=CKM_REGULA_SM2_SM3)
    assert approved(gm)
    assert key.verify(
        message, SIGNATURE, mechanism=CKM_REGULA_SM2_SM3, mechanism_param=b"1234567812345678"
    )
    tampered = bytes([SIGNATURE[0] ^ 1]) + SIGNATURE[1:]
    assert not key.verify(message, tampered, mechanism=CKM_REGULA_SM2_SM3)
    assert not key.verify(
        message, SIGNATURE, mechanism=CKM_REGULA_SM2_SM3, mechanism_param=b"someone else"
    )


def test_the_standards_ciphertext_decrypts_in_both_layouts(gm):
    key = private_key(gm, D)
    c1c3c2 = {"mechanism": CKM_REGULA_SM2_ENCRYPT, "mechanism_param": C1C3C2}
    assert key.decrypt(C1C3C2_CIPHERTEXT, **c1c3c2) == PLAINTEXT
    assert approved(gm)
    assert key.decrypt(ASN1_CIPHERTEXT, mechanism=CKM_REGULA_SM2_ENCRYPT) == PLAINTEXT
    with pytest.raises(pkcs11.exceptions.EncryptedDataInvalid):
        key.decrypt(C1C3C2_CIPHERTEXT[:-1] + b"\0", **c1c3c2)


def test_a_generated_pair_signs_with_an_id_and_encrypts(gm):
    public, private = generate(gm)
    assert approved(gm)
    message = b"python-pkcs11 signs with SM2"
    alice = {"mechanism": CKM_REGULA_SM2_SM3, "mechanism_param": b"ALICE123@YAHOO.COM"}
    signature = private.sign(message, **alice)
    assert len(signature) == 64
    assert public.verify(message, signature, **alice)
    assert not public.verify(message, signature, mechanism=CKM_REGULA_SM2_SM3)
    sealed = public.encrypt(message, mechanism=CKM_REGULA_SM2_ENCRYPT)
    assert approved(gm)
    assert private.decrypt(sealed, mechanism=CKM_REGULA_SM2_ENCRYPT) == message
    c1c3c2 = {"mechanism": CKM_REGULA_SM2_ENCRYPT, "mechanism_param": C1C3C2}
    sealed = public.encrypt(message, **c1c3c2)
    assert len(sealed) == 97 + len(message)
    assert private.decrypt(sealed, **c1c3c2) == message


def openssl_has_sm2():
    try:
        listed = subprocess.run(
            ["openssl", "list", "-public-key-algorithms"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return False
    return b"sm2" in listed.lower()


def der_signature(raw):
    """r || s as DER SEQUENCE { r, s } (short lengths: 32-byte integers)."""
    body = b""
    for half in (raw[:32], raw[32:]):
        digits = half.lstrip(b"\0") or b"\0"
        if digits[0] & 0x80:
            digits = b"\0" + digits
        body += bytes([0x02, len(digits)]) + digits
    return bytes([0x30, len(body)]) + body


@pytest.mark.skipif(not openssl_has_sm2(), reason="this openssl has no SM2")
def test_openssl_verifies_and_decrypts_for_the_token(gm):
    public, private = generate(gm)
    point = public[Attribute.EC_POINT][2:]
    message = b"OpenSSL checks what the token made"
    signature = private.sign(
        message, mechanism=CKM_REGULA_SM2_SM3, mechanism_param=b"BILL456@YAHOO.COM"
    )
    with tempfile.TemporaryDirectory() as work:
        files = {name: os.path.join(work, name) for name in ("key", "message", "signature")}
        with open(files["key"], "wb") as out:
            out.write(SPKI_PREFIX + point)
        with open(files["message"], "wb") as out:
            out.write(message)
        with open(files["signature"], "wb") as out:
            out.write(der_signature(signature))
        verified = subprocess.run(
            ["openssl", "pkeyutl", "-verify", "-pubin", "-keyform", "DER"]
            + ["-inkey", files["key"], "-in", files["message"], "-rawin", "-digest", "sm3"]
            + ["-pkeyopt", "distid:BILL456@YAHOO.COM", "-sigfile", files["signature"]],
            capture_output=True,
            check=False,
        )
        assert verified.returncode == 0, verified.stderr
        sealed = subprocess.run(
            ["openssl", "pkeyutl", "-encrypt", "-pubin", "-keyform", "DER"]
            + ["-inkey", files["key"], "-in", files["message"]],
            capture_output=True,
            check=True,
        ).stdout
    assert private.decrypt(sealed, mechanism=CKM_REGULA_SM2_ENCRYPT) == message
    assert approved(gm)
