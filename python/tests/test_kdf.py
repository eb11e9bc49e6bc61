"""HKDF, PBKDF2 and KBKDF against pyca/cryptography and hashlib."""

import hashlib
import os

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.kbkdf import KBKDFHMAC, CounterLocation, Mode

import regula

DIGESTS = {"sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}


@pytest.mark.parametrize("digest", sorted(DIGESTS))
@pytest.mark.parametrize("length", [1, 32, 100])
def test_hkdf_matches_pyca(fips, digest, length):
    secret, salt, info = os.urandom(32), os.urandom(16), b"context"
    expected = HKDF(DIGESTS[digest](), length, salt, info).derive(secret)
    derived = fips.kdf(f"hkdf-{digest}", secret, length, salt=salt, info=info)
    assert derived == expected
    assert isinstance(derived, regula.Secret)
    assert derived.indicator.service == "key-derivation" and derived.indicator.approved


def test_rfc_5869_test_case_1(default):
    ikm = bytes.fromhex("0b" * 22)
    salt = bytes.fromhex("000102030405060708090a0b0c")
    info = bytes.fromhex("f0f1f2f3f4f5f6f7f8f9")
    okm = default.kdf("hkdf-sha256", ikm, 42, salt=salt, info=info)
    assert okm.hex() == (
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
    )


@pytest.mark.parametrize("digest", sorted(DIGESTS))
def test_pbkdf2_matches_hashlib(fips, digest):
    password, salt = b"correct horse battery staple", os.urandom(16)
    derived = fips.kdf(f"pbkdf2-{digest}", password, 32, salt=salt, iterations=1000)
    assert derived == hashlib.pbkdf2_hmac(digest, password, salt, 1000, 32)


def test_pbkdf2_limits_under_fips(fips):
    # SP 800-132 / IG D.N: 128-bit salts, 112-bit passwords, 1000 iterations in fips-140-3.
    password, salt = b"correct horse battery staple", bytes(16)
    for arguments in (
        dict(salt=b"short", iterations=1000),
        dict(salt=salt, iterations=999),
    ):
        with pytest.raises(regula.NotApproved):
            fips.kdf("pbkdf2-sha256", password, 32, **arguments)
    with pytest.raises(regula.NotApproved):
        fips.kdf("pbkdf2-sha256", b"password", 32, salt=salt, iterations=1000)


@pytest.mark.parametrize("digest", sorted(DIGESTS))
def test_kbkdf_matches_pyca(fips, digest):
    key, label, context = os.urandom(32), b"SMBSigningKey", os.urandom(16)
    expected = KBKDFHMAC(
        algorithm=DIGESTS[digest](),
        mode=Mode.CounterMode,
        length=48,
        rlen=4,
        llen=4,
        location=CounterLocation.BeforeFixed,
        label=label,
        context=context,
        fixed=None,
    ).derive(key)
    derived = fips.kdf(f"kbkdf-ctr-hmac-{digest}", key, 48, label=label, context=context)
    assert derived == expected
    fixed = label + b"\x00" + context + (48 * 8).to_bytes(4, "big")
    assert fips.kdf(f"kbkdf-ctr-hmac-{digest}", key, 48, fixed_input=fixed) == expected


def test_kdf_arguments_are_checked(default):
    with pytest.raises(regula.InvalidInput, match="iterations"):
        default.kdf("pbkdf2-sha256", b"pw", 32, salt=bytes(16))
    with pytest.raises(regula.InvalidInput, match="takes no iterations"):
        default.kdf("hkdf-sha256", b"pw", 32, iterations=5)
    with pytest.raises(regula.InvalidInput):
        default.kdf("sha256", b"pw", 32)


def test_secret_repr_hides_the_bytes(default):
    derived = default.kdf("hkdf-sha256", b"\x42" * 32, 32)
    for text in (repr(derived), str(derived)):
        assert derived.hex() not in text and "\\x" not in text
        assert "32 bytes" in text
