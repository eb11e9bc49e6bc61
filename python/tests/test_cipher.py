"""Unauthenticated modes against pyca/cryptography."""

import os

import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import regula


def pyca_encrypt(algorithm, mode, data):
    encryptor = Cipher(algorithm, mode).encryptor()
    return encryptor.update(data) + encryptor.finalize()


@pytest.mark.parametrize("length", [0, 1, 16, 1000, 70000])
def test_aes_ctr(default, length):
    key, iv, data = os.urandom(32), os.urandom(16), os.urandom(length)
    cipher = default.cipher("aes-256-ctr", key)
    returned_iv, ciphertext = cipher.encrypt(data, iv=iv)
    assert returned_iv == iv
    assert ciphertext == pyca_encrypt(algorithms.AES(key), modes.CTR(iv), data)
    assert cipher.decrypt(iv, ciphertext) == data


def test_aes_cbc_pkcs7(default):
    key, data = os.urandom(16), os.urandom(45)
    iv, ciphertext = default.cipher("aes-128-cbc", key).encrypt(data)  # module-chosen IV
    padder = padding.PKCS7(128).padder()
    padded = padder.update(data) + padder.finalize()
    assert ciphertext == pyca_encrypt(algorithms.AES(key), modes.CBC(iv), padded)


@pytest.mark.parametrize(
    "name,mode",
    [("sm4-ecb", None), ("sm4-cbc", "cbc"), ("sm4-ctr", "ctr")],
)
def test_sm4_modes(gm, name, mode):
    key, data = os.urandom(16), os.urandom(64)
    cipher = gm.cipher(name, key)
    if mode is None:
        iv, ciphertext = cipher.encrypt(data)
        assert iv == b""
        expected = pyca_encrypt(algorithms.SM4(key), modes.ECB(), data)
    elif mode == "ctr":
        iv, ciphertext = cipher.encrypt(data)
        expected = pyca_encrypt(algorithms.SM4(key), modes.CTR(iv), data)
    else:
        iv, ciphertext = cipher.encrypt(data)
        padder = padding.PKCS7(128).padder()
        padded = padder.update(data) + padder.finalize()
        expected = pyca_encrypt(algorithms.SM4(key), modes.CBC(iv), padded)
    assert ciphertext == expected
    assert ciphertext.indicator.approved
    assert cipher.decrypt(iv, ciphertext) == data


def test_sm4_gb_t_32907_example_1(gm):
    # GB/T 32907-2016 appendix A, example 1.
    key = bytes.fromhex("0123456789abcdeffedcba9876543210")
    _, ciphertext = gm.cipher("sm4-ecb", key).encrypt(key)
    assert ciphertext.hex() == "681edf34d206965e86b3e94f536e4246"


def test_fips_refuses_legacy_ciphers(fips, default):
    with pytest.raises(regula.NotApproved):
        fips.cipher("des-ede3-cbc", bytes(24))
    _, ciphertext = default.cipher("rc4", os.urandom(16)).encrypt(b"legacy")
    assert ciphertext.indicator.approved is False
