"""Result and exception types of the ``regula`` package.

This file imports nothing from the extension module, so that the extension can import it while
``regula/__init__.py`` is still loading.
"""

from __future__ import annotations

import hmac
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


class Served:
    """The output of one operation together with its service indicator.

    ``.indicator`` says which algorithm and service produced the output, under which policy,
    and whether that use was approved. The bytes themselves are ``.data`` (an immutable
    ``bytes``; ``bytes(served)`` returns that same object without copying).

    A ``Served`` compares, hashes, indexes, slices, iterates, concatenates and ``.hex()``-es like
    its bytes, and every Regula function takes one wherever it takes bytes. On Python 3.12 and
    later it is also a buffer (PEP 688), so ``file.write``, ``socket.send``, ``hashlib``,
    ``base64`` and pyca/cryptography take it as they take ``bytes``; on 3.9 to 3.11 pass
    ``bytes(served)`` (or ``.data``) to such functions.

    Why not a ``bytes`` subclass: CPython can only build a ``bytes`` subclass by copying the
    data into it while holding the GIL, which for bulk encryption costs a quarter of the
    throughput and keeps other threads waiting. A ``Served`` wraps the ``bytes`` the extension
    wrote directly, with the GIL released.
    """

    __slots__ = ("data", "indicator")

    data: bytes
    indicator: Indicator

    def __init__(self, data: bytes, indicator: Indicator) -> None:
        self.data = data
        self.indicator = indicator

    def __bytes__(self) -> bytes:
        return self.data

    def __buffer__(self, flags: int) -> memoryview:
        return memoryview(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self):
        return iter(self.data)

    def __getitem__(self, index):
        return self.data[index]

    def __contains__(self, item) -> bool:
        return item in self.data

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Served):
            return self.data == other.data
        if isinstance(other, (bytes, bytearray, memoryview)):
            return self.data == other
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self.data)

    def __add__(self, other) -> bytes:
        return self.data + bytes(other)

    def __radd__(self, other) -> bytes:
        return bytes(other) + self.data

    def hex(self, *args) -> str:
        return self.data.hex(*args)

    def __repr__(self) -> str:
        return f"Served({self.data!r}, indicator={self.indicator!r})"


class Secret(Served):
    """A ``Served`` holding key material (derived keys, shared secrets, random bytes): the same,
    except that ``repr()`` and ``str()`` never show the bytes and ``==`` compares in constant
    time.

    Python cannot wipe a ``bytes`` object; keep secrets in as few places, for as short a time,
    as the application allows.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Served):
            other = other.data
        if isinstance(other, (bytes, bytearray, memoryview)):
            return hmac.compare_digest(self.data, bytes(other))
        return NotImplemented

    __hash__ = Served.__hash__

    def __repr__(self) -> str:
        return f"<regula.Secret of {len(self.data)} bytes, indicator={self.indicator!r}>"

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
