"""AEADs, against pyca/cryptography (an independent implementation on OpenSSL) and published
vectors."""

import os
import sys

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM, ChaCha20Poly1305

import regula

# Go's cryptotest/aead.go lengths, around block and parallel widths.
LENGTHS = [0, 1, 15, 16, 17, 156, 8192, 8193, 65536 + 3]

PYCA = {
    "aes-128-gcm": (16, AESGCM),
    "aes-256-gcm": (32, AESGCM),
    "chacha20-poly1305": (32, ChaCha20Poly1305),
    "aes-128-ccm": (16, AESCCM),
    "aes-256-ccm": (32, AESCCM),
}


@pytest.mark.parametrize("name", sorted(PYCA))
@pytest.mark.parametrize("length", LENGTHS)
def test_matches_pyca_both_ways(default, name, length):
    key_len, peer_class = PYCA[name]
    key = os.urandom(key_len)
    nonce, data, aad = os.urandom(12), os.urandom(length), os.urandom(length % 40)
    ours, peer = default.aead(name, key), peer_class(key)

    ciphertext = ours.encrypt(nonce, data, aad)
    assert ciphertext == peer.encrypt(nonce, data, aad)
    assert ciphertext.indicator.algorithm == name
    assert ciphertext.indicator.service == "encrypt"
    assert peer.decrypt(nonce, bytes(ciphertext), aad) == data

    theirs = peer.encrypt(nonce, data, aad)
    plaintext = ours.decrypt(nonce, theirs, aad)
    assert plaintext == data
    assert plaintext.indicator.service == "decrypt"


@pytest.mark.parametrize("nonce_len", [7, 11, 13])
@pytest.mark.parametrize("tag_len", [4, 8, 16])
def test_ccm_nonce_and_tag_lengths_match_pyca(default, nonce_len, tag_len):
    key, nonce, data = os.urandom(16), os.urandom(nonce_len), os.urandom(100)
    ours = default.aead("aes-128-ccm", key, tag_length=tag_len)
    assert ours.nonce_lengths == (7, 13) and ours.tag_length == tag_len
    ciphertext = ours.encrypt(nonce, data, b"hdr")
    assert ciphertext == AESCCM(key, tag_length=tag_len).encrypt(nonce, data, b"hdr")
    assert ours.decrypt(nonce, ciphertext, b"hdr") == data


@pytest.mark.parametrize("length", [0, 16, 1000])
def test_sm4_gcm_matches_pyca(gm, length):
    key, nonce, data, aad = os.urandom(16), os.urandom(12), os.urandom(length), b"aad"
    ciphertext = gm.aead("sm4-gcm", key).encrypt(nonce, data, aad)
    encryptor = Cipher(algorithms.SM4(key), modes.GCM(nonce)).encryptor()
    encryptor.authenticate_additional_data(aad)
    expected = encryptor.update(data) + encryptor.finalize() + encryptor.tag
    assert ciphertext == expected
    assert ciphertext.indicator.approved and ciphertext.indicator.policy == "gm"


def test_gcm_spec_test_case_16(default):
    # McGrew & Viega, "The Galois/Counter Mode of Operation", test case 16 (AES-256, 60-byte
    # plaintext, 20-byte AAD).
    key = bytes.fromhex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
    nonce = bytes.fromhex("cafebabefacedbaddecaf888")
    plaintext = bytes.fromhex(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
    )
    aad = bytes.fromhex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    expected = bytes.fromhex(
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
        "76fc6ece0f4e1768cddf8853bb2d551b"
    )
    assert default.aead("aes-256-gcm", key).encrypt(nonce, plaintext, aad) == expected


@pytest.mark.parametrize("name", ["aes-256-gcm", "aes-128-ccm", "chacha20-poly1305", "sm4-gcm"])
def test_any_flipped_bit_raises_invalid_tag(default, name):
    key = os.urandom(16 if name in ("aes-128-ccm", "sm4-gcm") else 32)
    aead = default.aead(name, key)
    nonce, data, aad = os.urandom(12), os.urandom(40), b"header"
    ciphertext = aead.encrypt(nonce, data, aad)
    for position in (0, len(data) - 1, len(data), len(ciphertext) - 1):
        tampered = bytearray(ciphertext)
        tampered[position] ^= 0x01
        with pytest.raises(regula.InvalidTag) as info:
            aead.decrypt(nonce, bytes(tampered), aad)
        assert info.value.exit_code == 1
        assert str(info.value) == "authentication failed"
    with pytest.raises(regula.InvalidTag):
        aead.decrypt(nonce, ciphertext, b"other header")
    with pytest.raises(regula.InvalidTag):
        aead.decrypt(bytes(12), ciphertext, aad)


def test_fips_refuses_a_caller_nonce_and_serves_a_module_nonce(fips):
    key = os.urandom(32)
    aead = fips.aead("aes-256-gcm", key)
    with pytest.raises(regula.NotApproved) as info:
        aead.encrypt(os.urandom(12), b"data", None)
    assert "nonce" in info.value.reason
    nonce, ciphertext = aead.seal(b"data", b"aad")
    assert ciphertext.indicator.approved and ciphertext.indicator.policy == "fips-140-3"
    assert len(nonce) == 12
    # Decryption is approved whoever chose the nonce; pyca agrees on the ciphertext.
    assert AESGCM(key).decrypt(nonce, ciphertext.data, b"aad") == b"data"
    assert aead.decrypt(nonce, ciphertext, b"aad").indicator.approved


def test_seal_nonces_are_fresh(default):
    aead = default.aead("aes-128-gcm", bytes(16))
    nonces = {aead.seal(b"x")[0] for _ in range(200)}
    assert len(nonces) == 200


def test_bytes_like_inputs(default):
    key = os.urandom(32)
    aead = default.aead("aes-256-gcm", bytearray(key))
    nonce, data = os.urandom(12), os.urandom(100)
    expected = AESGCM(key).encrypt(nonce, data, b"a")
    assert aead.encrypt(memoryview(nonce), bytearray(data), memoryview(b"a")) == expected
    with pytest.raises(TypeError):
        aead.encrypt(nonce, "text", None)
    with pytest.raises(TypeError):
        aead.encrypt(nonce, 5, None)


def test_wrong_sizes_are_invalid_input(default):
    with pytest.raises(regula.InvalidInput, match="expected 32 bytes"):
        default.aead("aes-256-gcm", bytes(31))
    aead = default.aead("aes-256-gcm", bytes(32))
    with pytest.raises(regula.InvalidInput, match="nonce"):
        aead.encrypt(bytes(8), b"x", None)
    with pytest.raises(regula.InvalidInput, match="shorter than"):
        aead.decrypt(bytes(12), bytes(15), None)
    with pytest.raises(regula.InvalidInput, match="tag"):
        default.aead("aes-256-gcm", bytes(32), tag_length=8)


def test_served_behaves_like_its_bytes(default):
    aead = default.aead("aes-256-gcm", bytes(32))
    ciphertext = aead.encrypt(bytes(12), b"abc", None)
    assert isinstance(ciphertext, regula.Served)
    data = ciphertext.data
    assert type(data) is bytes and bytes(ciphertext) is data  # no copy
    assert ciphertext == data and data == ciphertext and ciphertext != data + b"x"
    assert (
        ciphertext[:3] == data[:3] and ciphertext[0] == data[0] and list(ciphertext) == list(data)
    )
    assert len(ciphertext) == 19 and ciphertext.hex() == data.hex()
    assert ciphertext + b"!" == data + b"!" and b"!" + ciphertext == b"!" + data
    assert {ciphertext: 1}[data] == 1  # hashes like the bytes it equals
    assert repr(ciphertext).startswith("Served(b'")
    # Regula takes a Served wherever it takes bytes.
    assert aead.decrypt(bytes(12), ciphertext, None) == b"abc"
    if sys.version_info >= (3, 12):  # PEP 688: a buffer for every consumer
        assert memoryview(ciphertext).tobytes() == data
        assert AESGCM(bytes(32)).decrypt(bytes(12), ciphertext, None) == b"abc"
