"""Digests against hashlib (CPython's OpenSSL) and pyca/cryptography, and standard vectors."""

import hashlib
import os

import pytest
from cryptography.hazmat.primitives import hashes

import regula

HASHLIB = ["sha1", "sha224", "sha256", "sha384", "sha512", "sha3-256", "sha3-384", "sha3-512"]


@pytest.mark.parametrize("name", HASHLIB)
@pytest.mark.parametrize("length", [0, 1, 55, 56, 64, 1000, 100_000])
def test_matches_hashlib(default, name, length):
    data = os.urandom(length)
    expected = hashlib.new(name.replace("-", "_"), data)
    digest = default.digest(name, data)
    assert digest == expected.digest()
    assert digest.indicator.algorithm == name and digest.indicator.service == "digest"
    streaming = default.hash(name, data)
    assert streaming.hexdigest() == expected.hexdigest()
    assert streaming.digest_size == expected.digest_size
    assert streaming.block_size == expected.block_size


def test_chunked_updates_at_every_size(default):
    data = os.urandom(300)
    for chunk in range(1, 17):
        h = default.hash("sha256")
        for start in range(0, len(data), chunk):
            h.update(data[start : start + chunk])
        assert h.digest() == hashlib.sha256(data).digest()


def test_digest_does_not_end_the_computation_and_copy_is_independent(default):
    h = default.hash("sha512", b"abc")
    assert h.digest() == h.digest() == hashlib.sha512(b"abc").digest()
    fork = h.copy()
    h.update(b"def")
    assert fork.digest() == hashlib.sha512(b"abc").digest()
    assert h.digest() == hashlib.sha512(b"abcdef").digest()


@pytest.mark.parametrize("length", [0, 3, 64, 1000])
def test_sm3_matches_pyca(gm, length):
    data = os.urandom(length)
    peer = hashes.Hash(hashes.SM3())
    peer.update(data)
    digest = gm.hash("sm3", data).digest()
    assert digest == peer.finalize()
    assert digest.indicator.approved and digest.indicator.policy == "gm"


def test_sm3_gb_t_32905_examples(gm):
    # GB/T 32905-2016 appendix A: "abc" and "abcd" x 16.
    assert gm.hash("sm3", b"abc").hexdigest() == (
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    )
    assert gm.hash("sm3", b"abcd" * 16).hexdigest() == (
        "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
    )
    assert gm.hash("sm3").name == "sm3"


def test_fips_refuses_md5_and_default_flags_it(fips, default):
    with pytest.raises(regula.NotApproved):
        fips.hash("md5")
    with pytest.raises(regula.NotApproved):
        fips.digest("md4", b"")
    h = default.hash("md5", b"abc")
    assert h.digest().indicator.approved is False
    assert h.hexdigest() == hashlib.md5(b"abc").hexdigest()


def test_sha1_is_approved_for_hashing(fips):
    assert fips.digest("sha1", b"abc").indicator.approved
