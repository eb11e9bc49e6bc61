"""What every python-pkcs11 test file shares: the loaded library, sessions on the tokens that
scripts/test-pkcs11-interop initializes, and the service indicator.

Not a test module (pytest collects only test_*.py): test files import from it.
"""

import ctypes
import os

import pkcs11
from pkcs11 import Attribute, ObjectClass

MODULE = os.environ["REGULA_PKCS11_MODULE"]
PIN = os.environ["REGULA_PKCS11_PIN"]
LIB = pkcs11.lib(MODULE)
# The same shared object, already initialized by python-pkcs11.
NATIVE = ctypes.CDLL(MODULE)
CKS_LAST_VALIDATION_OK = 1
VALIDATION_FLAG_POLICY = 0x1


def open_session(label):
    """A read/write user session on the token labelled `label`."""
    return LIB.get_token(token_label=label).open(user_pin=PIN, rw=True)


def approved(session):
    """The session's last operation, as the service indicator saw it."""
    flags = ctypes.c_ulong(0xFF)
    rv = NATIVE.C_GetSessionValidationFlags(
        ctypes.c_ulong(session.handle),
        ctypes.c_ulong(CKS_LAST_VALIDATION_OK),
        ctypes.byref(flags),
    )
    assert rv == 0, f"C_GetSessionValidationFlags returned {rv:#x}"
    assert flags.value in (0, VALIDATION_FLAG_POLICY)
    return flags.value == VALIDATION_FLAG_POLICY


def vendor(enum, name, value):
    """A member of python-pkcs11's enum for a vendor-defined value (regula-pkcs11.h)."""
    if value in enum._value2member_map_:
        return enum._value2member_map_[value]
    member = int.__new__(enum, value)
    member._name_ = name
    member._value_ = value
    enum._value2member_map_[value] = member
    return member


def secret(session, key_type, value, extra=None):
    """A session secret key with a known value (so that the peer can use it too), permitted
    every operation; `extra` overrides or adds attributes."""
    template = {
        Attribute.CLASS: ObjectClass.SECRET_KEY,
        Attribute.KEY_TYPE: key_type,
        Attribute.VALUE: value,
        Attribute.TOKEN: False,
        Attribute.ENCRYPT: True,
        Attribute.DECRYPT: True,
        Attribute.SIGN: True,
        Attribute.VERIFY: True,
        Attribute.DERIVE: True,
    }
    template.update(extra or {})
    return session.create_object(template)
