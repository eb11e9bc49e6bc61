"""The DRBG service."""

import zlib

import regula


def test_random_bytes(fips):
    block = fips.random(4096)
    assert isinstance(block, regula.Secret) and len(block) == 4096
    assert block.indicator.algorithm == "ctr-drbg"
    assert block.indicator.service == "random-generation" and block.indicator.approved
    assert fips.random(32) != fips.random(32)
    # Random data does not compress.
    assert len(zlib.compress(block.data)) > 4000
    assert fips.random(0) == b""
