"""HMAC, CMAC and GMAC through one MAC API, against pyca/cryptography, the standard library's
hmac, and RFC 4231."""

import hashlib
import hmac as stdlib_hmac
import os

import pytest
from cryptography.hazmat.primitives import cmac, hashes
from cryptography.hazmat.primitives import hmac as pyca_hmac
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import regula


@pytest.mark.parametrize("digest", ["sha1", "sha224", "sha256", "sha384", "sha512"])
@pytest.mark.parametrize("length", [0, 1, 200, 70000])
def test_hmac_matches_stdlib(default, digest, length):
    key, data = os.urandom(32), os.urandom(length)
    expected = stdlib_hmac.new(key, data, getattr(hashlib, digest)).digest()
    mac = default.hmac(digest, key)
    tag = mac.sign(data)
    assert tag == expected
    assert tag.indicator.algorithm == f"hmac-{digest}"
    assert tag.indicator.service == "mac-generate"
    verified = mac.verify(data, expected)
    assert verified.service == "mac-verify" and verified.approved


def test_rfc_4231_test_case_2(fips):
    # RFC 4231 section 4.3 ("Jefe"); a 4-byte key is below SP 800-131A's 112 bits, which the
    # fips-140-3 profile enforces and the default profile does not.
    default = regula.Module("default")
    tag = default.hmac("sha256", b"Jefe").sign(b"what do ya want for nothing?")
    assert tag.hex() == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    with pytest.raises(regula.NotApproved):
        fips.hmac("sha256", b"Jefe")


def test_hmac_sm3_matches_pyca(gm):
    key, data = os.urandom(32), os.urandom(100)
    peer = pyca_hmac.HMAC(key, hashes.SM3())
    peer.update(data)
    tag = gm.mac("hmac-sm3", key).sign(data)
    assert tag == peer.finalize() and tag.indicator.approved


@pytest.mark.parametrize("name,key_len", [("aes-128-cmac", 16), ("aes-256-cmac", 32)])
def test_cmac_matches_pyca(fips, name, key_len):
    key, data = os.urandom(key_len), os.urandom(77)
    peer = cmac.CMAC(algorithms.AES(key))
    peer.update(data)
    tag = fips.mac(name, key).sign(data)
    assert tag == peer.finalize() and tag.indicator.approved


def test_sm4_cmac_matches_pyca(gm):
    key, data = os.urandom(16), os.urandom(50)
    peer = cmac.CMAC(algorithms.SM4(key))
    peer.update(data)
    assert gm.mac("sm4-cmac", key).sign(data) == peer.finalize()


@pytest.mark.parametrize("name,key_len", [("aes-128-gmac", 16), ("aes-256-gmac", 32)])
def test_gmac_is_gcm_over_empty_plaintext(default, name, key_len):
    key, nonce, data = os.urandom(key_len), os.urandom(12), os.urandom(90)
    mac = default.mac(name, key)
    assert mac.takes_nonce
    tag = mac.sign(data, nonce=nonce)
    assert tag == AESGCM(key).encrypt(nonce, b"", data)
    mac.verify(data, tag, nonce=nonce)
    with pytest.raises(regula.InvalidTag):
        mac.verify(data, tag, nonce=os.urandom(12))
    with pytest.raises(regula.InvalidInput, match="nonce"):
        mac.sign(data)


def test_gmac_with_a_caller_nonce_is_refused_under_fips(fips):
    with pytest.raises(regula.NotApproved):
        fips.mac("aes-128-gmac", bytes(16)).sign(b"x", nonce=bytes(12))


def test_flipped_tag_raises_invalid_tag(fips):
    key = os.urandom(32)
    mac = fips.hmac("sha256", key)
    tag = bytearray(mac.sign(b"message"))
    tag[-1] ^= 0x80
    with pytest.raises(regula.InvalidTag):
        mac.verify(b"message", bytes(tag))
    with pytest.raises(regula.InvalidTag):
        mac.verify(b"message", bytes(tag[:-1]))


def test_streaming_context(fips):
    key, data = os.urandom(32), os.urandom(10_000)
    mac = fips.mac("hmac-sha384", key)
    context = mac.context()
    for start in range(0, len(data), 999):
        context.update(data[start : start + 999])
    tag = context.finalize()
    assert tag == stdlib_hmac.new(key, data, hashlib.sha384).digest()
    with pytest.raises(regula.InvalidInput, match="finalized"):
        context.update(b"more")
    check = mac.context()
    check.update(data)
    assert check.verify(tag).approved
    gmac = regula.Module("default").mac("aes-128-gmac", bytes(16)).context(nonce=bytes(12))
    gmac.update(b"ab")
    gmac.update(b"c")
    assert gmac.finalize() == AESGCM(bytes(16)).encrypt(bytes(12), b"", b"abc")
