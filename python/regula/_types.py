"""Result and exception types of the ``regula`` package.

This file imports nothing from the extension module, so that the extension can import it while
``regula/__init__.py`` is still loading.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._regula import Indicator

__all__ = [
    "Served",
    "Secret",
    "RegulaError",
    "InvalidTag",
    "InvalidSignature",
    "InvalidInput",
    "NotApproved",
    "ModuleErrorState",
]


class Served(bytes):
    """The output of one operation: ``bytes``, plus the service indicator of that operation.

    A ``Served`` *is* a ``bytes`` object (slicing, comparison, hashing, ``.hex()``, writing to a
    file all work as usual), so code written for pyca/cryptography or hashlib takes it
    unchanged. ``.indicator`` tells which algorithm and service produced it, under which policy,
    and whether that use was approved.
    """

    indicator: Indicator  # set by the extension right after construction

    def __repr__(self) -> str:
        return f"Served({bytes.__repr__(self)}, indicator={self.indicator!r})"


class Secret(Served):
    """A ``Served`` holding key material (derived keys, shared secrets, private keys, random
    bytes): identical to ``Served`` except that ``repr()`` and ``str()`` never show the bytes.

    Python cannot wipe a ``bytes`` object; keep secrets in as few places, for as short a time,
    as the application allows.
    """

    def __repr__(self) -> str:
        return f"<regula.Secret of {len(self)} bytes, indicator={self.indicator!r}>"

    __str__ = __repr__


class RegulaError(Exception):
    """Base class of every error Regula raises. ``exit_code`` is what the ``regula`` command
    exits with for the same failure: 1 cryptographic failure, 2 input error, 3 not approved,
    4 module in its error state."""

    exit_code: int = 1


class InvalidTag(RegulaError):
    """An AEAD tag or a MAC did not verify. Deliberately says nothing more (exit code 1)."""

    exit_code = 1


class InvalidSignature(RegulaError):
    """A signature did not verify. Deliberately says nothing more (exit code 1)."""

    exit_code = 1


class InvalidInput(RegulaError, ValueError):
    """A malformed argument: unknown algorithm, wrong key or nonce length, a key that does not
    parse, an unreadable policy file (exit code 2)."""

    exit_code = 2


class NotApproved(RegulaError):
    """The module's policy refuses this use of the algorithm (exit code 3).

    ``algorithm``, ``policy`` and ``reason`` say which rule refused it; ``alternative`` names
    what the policy approves instead, when there is an obvious substitute.
    """

    exit_code = 3
    algorithm: str
    policy: str
    reason: str
    alternative: str | None


class ModuleErrorState(RegulaError):
    """A self-test failed: the module refuses every cryptographic service (exit code 4).
    ``failed_test`` names the self-test."""

    exit_code = 4
    failed_test: str


# Shown as regula.X in tracebacks and reprs, where users import them from.
for _class in (
    Served,
    Secret,
    RegulaError,
    InvalidTag,
    InvalidSignature,
    InvalidInput,
    NotApproved,
    ModuleErrorState,
):
    _class.__module__ = "regula"
del _class
