"""Shared fixtures: one module per built-in policy, loaded once per test session."""

import pytest

import regula


@pytest.fixture(scope="session")
def default():
    return regula.Module("default")


@pytest.fixture(scope="session")
def fips():
    return regula.Module("fips-140-3")


@pytest.fixture(scope="session")
def gm():
    return regula.Module("gm")
