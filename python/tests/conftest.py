"""Shared fixtures: one module per built-in policy, loaded once per test session."""

import os

import pytest

import regula

# The tests are meant for the installed wheel (scripts/test-python), never for python/regula in
# the source tree, which has no compiled extension.
assert "site-packages" in os.path.normpath(regula.__file__).split(os.sep), regula.__file__


@pytest.fixture(scope="session")
def default():
    return regula.Module("default")


@pytest.fixture(scope="session")
def fips():
    return regula.Module("fips-140-3")


@pytest.fixture(scope="session")
def gm():
    return regula.Module("gm")
