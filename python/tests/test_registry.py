"""``regula.algorithm_info``: every algorithm's registry row, the same as ``regula info --json``."""

import json
import os

import pytest

import regula

LENGTHS = ("key", "nonce", "tag")
SIZES = {
    "iv": "iv_len",
    "block": "block_len",
    "output": "output_len",
    "public_key": "public_key_len",
    "signature": "signature_max_len",
    "ciphertext": "ciphertext_len",
}


def test_every_name_has_a_row(default):
    names = regula.algorithms()
    assert names
    for name in names:
        info = regula.algorithm_info(name)
        assert info.name == name
        assert regula.algorithm_info(name.upper()) == info
        assert hash(regula.AlgorithmInfo(name)) == hash(info)
        for kind in LENGTHS:
            low, high = getattr(info, f"{kind}_min"), getattr(info, f"{kind}_max")
            assert (low is None) == (high is None) and (low is None or low <= high), name
        if info.family == "digest":
            try:
                digest = default.hash(name)
            except regula.NotApproved:
                continue
            assert digest.digest_size == info.output_len
            assert digest.block_size == info.block_len
            assert len(digest.digest()) == info.output_len


def test_known_answers_from_the_standards():
    # FIPS 180-4: SHA-256 digests 32 bytes from 64-byte blocks; PKCS#11 CKM_SHA256 = 0x250.
    sha256 = regula.algorithm_info("SHA256")
    assert (sha256.name, sha256.family, sha256.provider) == ("sha256", "digest", "aws-lc")
    assert (sha256.output_len, sha256.block_len, sha256.key_min) == (32, 64, None)
    assert sha256.oid == "2.16.840.1.101.3.4.2.1"
    assert sha256.pkcs11_mechanisms == [("CKM_SHA256", 0x250)]
    # SP 800-38D / RFC 5116: AES-256-GCM takes a 32-byte key, 12-byte nonce, 16-byte tag.
    gcm = regula.algorithm_info("aes-256-gcm")
    assert (gcm.key_min, gcm.key_max, gcm.nonce_min, gcm.nonce_max) == (32, 32, 12, 12)
    assert (gcm.tag_min, gcm.tag_max, gcm.iv_len) == (16, 16, None)
    # RFC 2104: HMAC takes any key length; it is built on its hash.
    hmac = regula.algorithm_info("hmac-sha384")
    assert (hmac.key_min, hmac.hash, hmac.output_len) == (None, "sha384", 48)
    # FIPS 203 Table 3: ML-KEM-1024 encapsulation key 1568, ciphertext 1568, secret 32.
    kem = regula.algorithm_info("ml-kem-1024")
    assert (kem.public_key_len, kem.ciphertext_len, kem.output_len) == (1568, 1568, 32)
    # GB/T 32905: SM3 digests 32 bytes from 64-byte blocks, in Regula's own SM code.
    sm3 = regula.algorithm_info("sm3")
    assert (sm3.output_len, sm3.block_len, sm3.provider) == (32, 64, "regula-sm")
    assert repr(sm3) == "AlgorithmInfo(name='sm3', family='digest')"


def test_an_unknown_name_is_a_clear_error():
    with pytest.raises(regula.InvalidInput, match="no-such-algorithm"):
        regula.algorithm_info("no-such-algorithm")
    # SHA-512/224 is a FIPS 180-4 digest the core does not serve.
    with pytest.raises(regula.InvalidInput, match="sha512-224"):
        regula.AlgorithmInfo("sha512-224")


def test_every_row_matches_regula_info():
    """Each row as ``regula info --json`` prints it (scripts/test-python gives its path)."""
    path = os.environ.get("REGULA_INFO_JSON")
    if not path:
        pytest.skip("REGULA_INFO_JSON is not set; scripts/test-python sets it")
    with open(path, encoding="utf-8") as file:
        rows = [item["row"] for item in json.load(file)["implementations"]]
    assert [row["name"] for row in rows] == regula.algorithms()
    for row in rows:
        info = regula.algorithm_info(row["name"])
        openssl, acvp, sizes = row["openssl"], row["acvp"], row["sizes"]
        got = {
            "aliases": info.aliases,
            "family": info.family,
            "provider": info.provider,
            "oid": info.oid,
            "hash": info.hash,
            "openssl": info.openssl_name,
            "acvp": (info.acvp_algorithm, info.acvp_revision),
            "pkcs11": info.pkcs11_mechanisms,
        }
        want = {
            "aliases": row["aliases"],
            "family": row["family"],
            "provider": row["provider"],
            "oid": row["oid"],
            "hash": row["hash"],
            "openssl": openssl["names"].split(":")[0] if openssl else None,
            "acvp": (acvp["algorithm"], acvp["revision"]) if acvp else (None, None),
            "pkcs11": [(mechanism["name"], mechanism["value"]) for mechanism in row["pkcs11"]],
        }
        for kind in LENGTHS:
            got[kind] = (getattr(info, f"{kind}_min"), getattr(info, f"{kind}_max"))
            span = sizes[kind]
            want[kind] = (span["min"], span["max"]) if span else (None, None)
        for size, attribute in SIZES.items():
            got[size] = getattr(info, attribute)
            want[size] = sizes[size]
        assert got == want, row["name"]
