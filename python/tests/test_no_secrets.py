"""Keys and secrets never appear in reprs or error messages."""

import os

import pytest

import regula

KEY = bytes(range(0xA0, 0xC0))  # 32 recognisable bytes


def shown(text: str) -> bool:
    return KEY.hex()[:16] in text or repr(KEY)[2:20] in text


def test_key_objects_do_not_show_their_keys(default):
    objects = [
        default.aead("aes-256-gcm", KEY),
        default.cipher("aes-256-ctr", KEY),
        default.hmac("sha256", KEY),
        default.hmac("sha256", KEY).context(),
        default.load_agreement_key("x25519", KEY),
        default.generate_signing_key("ed25519"),
        default.generate_kem_key("ml-kem-768"),
    ]
    for value in objects:
        assert not shown(repr(value)) and not shown(str(value)), repr(value)


def test_errors_do_not_show_keys(default):
    failures = [
        lambda: default.aead("aes-256-gcm", KEY[:31]),
        lambda: default.aead("aes-128-gcm", KEY),
        lambda: default.cipher("aes-256-xts", KEY + KEY),  # halves equal: refused
        lambda: default.load_signing_key("ecdsa-p256", KEY),
        lambda: default.load_agreement_key("ecdh-p256", b"\xff" * 32),
        lambda: default.aead("aes-256-gcm", KEY).decrypt(os.urandom(12), KEY, None),
        lambda: default.mac("aes-128-cmac", KEY),
    ]
    for failure in failures:
        with pytest.raises(regula.RegulaError) as info:
            failure()
        assert not shown(str(info.value)) and not shown(repr(info.value)), str(info.value)


def test_secret_compares_and_hashes_like_its_bytes(default):
    secret = default.kdf("hkdf-sha256", KEY, 32, info=b"x")
    same = bytes(secret)
    assert secret == same and same == secret and secret != same[:-1] + b"\x00"
    assert hash(secret) == hash(same)
    assert not shown(repr(secret))
