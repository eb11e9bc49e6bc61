"""Sessions on the three tokens scripts/test-pkcs11-interop initializes, one per test module."""

import pytest

from token_session import open_session


@pytest.fixture(scope="module")
def fips():
    with open_session("regula-fips") as session:
        yield session


@pytest.fixture(scope="module")
def default():
    with open_session("regula-default") as session:
        yield session


@pytest.fixture(scope="module")
def gm():
    with open_session("regula-gm") as session:
        yield session
