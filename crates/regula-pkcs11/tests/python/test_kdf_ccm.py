"""Key derivation, CCM and XTS of libregula-pkcs11 through python-pkcs11 (PyPI), unchanged.

Every answer is checked against pyca/cryptography: HKDF (and HKDFExpand, and HMAC for the
extraction step), PBKDF2HMAC, KBKDFHMAC in counter mode, AESCCM and AES-XTS. python-pkcs11 has no
parameter builders for these mechanisms: the parameters are C structures built with ctypes and
passed as bytes (python-pkcs11's raw-parameter path), their buffers kept alive meanwhile.

Run by scripts/test-pkcs11-interop beside test_python_pkcs11.py (same tokens and environment:
REGULA_PKCS11_MODULE, REGULA_PKCS11_PIN).
"""

import ctypes
import hmac
import os

import pkcs11
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF, HKDFExpand
from cryptography.hazmat.primitives.kdf.kbkdf import KBKDFHMAC, CounterLocation, Mode
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
from pkcs11 import Attribute, KeyType, Mechanism

from token_session import approved, secret, vendor

# PKCS#11 3.0 values (pkcs11t.h) python-pkcs11 0.10 lacks, and regula-pkcs11.h's SM4 ones.
CKK_AES_XTS = vendor(KeyType, "AES_XTS", 0x35)
CKK_HKDF = vendor(KeyType, "HKDF", 0x42)
CKM_AES_XTS = vendor(Mechanism, "AES_XTS", 0x1071)
CKM_AES_XTS_KEY_GEN = vendor(Mechanism, "AES_XTS_KEY_GEN", 0x1072)
CKM_HKDF_DERIVE = vendor(Mechanism, "HKDF_DERIVE", 0x402A)
CKM_SP800_108_COUNTER_KDF = vendor(Mechanism, "SP800_108_COUNTER_KDF", 0x3AC)
CKK_REGULA_SM4 = vendor(KeyType, "REGULA_SM4", 0x80524701)
CKM_REGULA_SM4_CCM = vendor(Mechanism, "REGULA_SM4_CCM", 0x8052470A)
CKM_REGULA_SM4_XTS = vendor(Mechanism, "REGULA_SM4_XTS", 0x8052470B)

CKF_HKDF_SALT_NULL, CKF_HKDF_SALT_DATA = 1, 2
CKZ_SALT_SPECIFIED = 1
CKP_PKCS5_PBKD2_HMAC = {"sha256": 4, "sha384": 5, "sha512": 6}
CK_SP800_108_ITERATION_VARIABLE, CK_SP800_108_DKM_LENGTH, CK_SP800_108_BYTE_ARRAY = 1, 3, 4
CK_SP800_108_DKM_LENGTH_SUM_OF_KEYS, CK_SP800_108_DKM_LENGTH_SUM_OF_SEGMENTS = 1, 2

HASHES = [
    (Mechanism.SHA256, Mechanism.SHA256_HMAC, hashes.SHA256, "sha256"),
    (Mechanism.SHA384, Mechanism.SHA384_HMAC, hashes.SHA384, "sha384"),
    (Mechanism.SHA512, Mechanism.SHA512_HMAC, hashes.SHA512, "sha512"),
]


READABLE = {Attribute.SENSITIVE: False, Attribute.EXTRACTABLE: True}


def buffer(data):
    """A C buffer holding `data`, and its address (NULL for no data)."""
    if not data:
        return None, None
    held = ctypes.create_string_buffer(data, len(data))
    return held, ctypes.cast(held, ctypes.c_void_p)


# ---- HKDF ---------------------------------------------------------------------------------------


class HkdfParams(ctypes.Structure):
    _fields_ = [
        ("bExtract", ctypes.c_ubyte),
        ("bExpand", ctypes.c_ubyte),
        ("prfHashMechanism", ctypes.c_ulong),
        ("ulSaltType", ctypes.c_ulong),
        ("pSalt", ctypes.c_void_p),
        ("ulSaltLen", ctypes.c_ulong),
        ("hSaltKey", ctypes.c_ulong),
        ("pInfo", ctypes.c_void_p),
        ("ulInfoLen", ctypes.c_ulong),
    ]


def hkdf_params(extract, expand, prf, salt, info):
    """CK_HKDF_PARAMS as bytes, and the buffers that must outlive its use."""
    salt_held, salt_ptr = buffer(salt)
    info_held, info_ptr = buffer(info)
    params = HkdfParams(
        extract,
        expand,
        prf,
        CKF_HKDF_SALT_DATA if salt else CKF_HKDF_SALT_NULL,
        salt_ptr,
        len(salt or b""),
        0,
        info_ptr,
        len(info),
    )
    return bytes(params), (salt_held, info_held)


def derived_value(base, mechanism, params, length):
    key = base.derive_key(
        KeyType.GENERIC_SECRET,
        8 * length,
        mechanism=mechanism,
        mechanism_param=params,
        template=READABLE,
    )
    return key[Attribute.VALUE]


@pytest.mark.parametrize("prf, _hmac, algorithm, name", HASHES)
def test_hkdf_matches_cryptography(fips, prf, _hmac, algorithm, name):
    ikm, salt, info = os.urandom(32), os.urandom(16), b"regula hkdf " + name.encode()
    base = secret(fips, KeyType.GENERIC_SECRET, ikm)
    params, keep = hkdf_params(True, True, prf, salt, info)
    okm = derived_value(base, CKM_HKDF_DERIVE, params, 80)
    assert approved(fips)
    assert okm == HKDF(algorithm(), 80, salt, info).derive(ikm)

    # Extraction alone: HMAC(salt, IKM); expansion alone from that PRK.
    params, keep = hkdf_params(True, False, prf, salt, info)
    prk = derived_value(base, CKM_HKDF_DERIVE, params, algorithm.digest_size)
    assert prk == hmac.new(salt, ikm, name).digest()
    prk_key = secret(fips, CKK_HKDF, prk)
    params, keep = hkdf_params(False, True, prf, None, info)
    assert derived_value(prk_key, CKM_HKDF_DERIVE, params, 80) == HKDFExpand(
        algorithm(), 80, info
    ).derive(prk)
    del keep


def test_hkdf_without_salt_is_refused_by_fips_and_served_by_default(fips, default):
    ikm = os.urandom(32)
    params, keep = hkdf_params(True, True, Mechanism.SHA256, None, b"info")
    with pytest.raises(pkcs11.exceptions.MechanismParamInvalid):
        derived_value(secret(fips, KeyType.GENERIC_SECRET, ikm), CKM_HKDF_DERIVE, params, 32)
    okm = derived_value(secret(default, KeyType.GENERIC_SECRET, ikm), CKM_HKDF_DERIVE, params, 32)
    assert okm == HKDF(hashes.SHA256(), 32, None, b"info").derive(ikm)
    assert approved(default)
    del keep


# ---- PBKDF2 -------------------------------------------------------------------------------------


class Pbkdf2Params2(ctypes.Structure):
    _fields_ = [
        ("saltSource", ctypes.c_ulong),
        ("pSaltSourceData", ctypes.c_void_p),
        ("ulSaltSourceDataLen", ctypes.c_ulong),
        ("iterations", ctypes.c_ulong),
        ("prf", ctypes.c_ulong),
        ("pPrfData", ctypes.c_void_p),
        ("ulPrfDataLen", ctypes.c_ulong),
        ("pPassword", ctypes.c_void_p),
        ("ulPasswordLen", ctypes.c_ulong),
    ]


def pbkdf2_params(prf, password, salt, iterations):
    """CK_PKCS5_PBKD2_PARAMS2 as bytes, and the buffers that must outlive its use."""
    salt_held, salt_ptr = buffer(salt)
    password_held, password_ptr = buffer(password)
    params = Pbkdf2Params2(
        CKZ_SALT_SPECIFIED,
        salt_ptr,
        len(salt),
        iterations,
        prf,
        None,
        0,
        password_ptr,
        len(password),
    )
    return bytes(params), (salt_held, password_held)


def pbkdf2_key(session, params, length):
    return session.generate_key(
        KeyType.AES,
        8 * length,
        mechanism=Mechanism.PKCS5_PBKD2,
        mechanism_param=params,
        store=False,
        capabilities=pkcs11.MechanismFlag.ENCRYPT | pkcs11.MechanismFlag.DECRYPT,
        template={Attribute.KEY_TYPE: KeyType.AES, **READABLE},
    )


@pytest.mark.parametrize("_prf, _hmac, algorithm, name", HASHES)
def test_pbkdf2_matches_cryptography(fips, _prf, _hmac, algorithm, name):
    password, salt = b"correct horse battery staple", os.urandom(16)
    params, keep = pbkdf2_params(CKP_PKCS5_PBKD2_HMAC[name], password, salt, 1000)
    key = pbkdf2_key(fips, params, 32)
    assert approved(fips)
    assert key[Attribute.VALUE] == PBKDF2HMAC(algorithm(), 32, salt, 1000).derive(password)
    assert key.key_type == KeyType.AES
    del keep


def test_pbkdf2_below_sp800_132_is_refused_by_fips_and_served_by_default(fips, default):
    params, keep = pbkdf2_params(CKP_PKCS5_PBKD2_HMAC["sha256"], b"short", b"salt", 1)
    with pytest.raises(pkcs11.exceptions.MechanismParamInvalid):
        pbkdf2_key(fips, params, 16)
    key = pbkdf2_key(default, params, 16)
    assert key[Attribute.VALUE] == PBKDF2HMAC(hashes.SHA256(), 16, b"salt", 1).derive(b"short")
    del keep


# ---- SP 800-108 counter mode --------------------------------------------------------------------


class PrfDataParam(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_ulong),
        ("pValue", ctypes.c_void_p),
        ("ulValueLen", ctypes.c_ulong),
    ]


class CounterFormat(ctypes.Structure):
    _fields_ = [("bLittleEndian", ctypes.c_ubyte), ("ulWidthInBits", ctypes.c_ulong)]


class DkmLengthFormat(ctypes.Structure):
    _fields_ = [
        ("dkmLengthMethod", ctypes.c_ulong),
        ("bLittleEndian", ctypes.c_ubyte),
        ("ulWidthInBits", ctypes.c_ulong),
    ]


class KbkdfParams(ctypes.Structure):
    _fields_ = [
        ("prfType", ctypes.c_ulong),
        ("ulNumberOfDataParams", ctypes.c_ulong),
        ("pDataParams", ctypes.c_void_p),
        ("ulAdditionalDerivedKeys", ctypes.c_ulong),
        ("pAdditionalDerivedKeys", ctypes.c_void_p),
    ]


def kbkdf_params(prf, label, context, dkm_method):
    """CK_SP800_108_KDF_PARAMS for counter ‖ label ‖ 0x00 ‖ context ‖ [L]32, as bytes, and the
    structures that must outlive its use."""
    counter = CounterFormat(0, 32)
    dkm = DkmLengthFormat(dkm_method, 0, 32)
    held = [counter, dkm]

    def param(kind, value, size):
        return PrfDataParam(kind, ctypes.cast(ctypes.pointer(value), ctypes.c_void_p), size)

    def array(data):
        data_held, pointer = buffer(data)
        held.append(data_held)
        return PrfDataParam(CK_SP800_108_BYTE_ARRAY, pointer, len(data))

    data = (PrfDataParam * 5)(
        param(CK_SP800_108_ITERATION_VARIABLE, counter, ctypes.sizeof(counter)),
        array(label),
        array(b"\x00"),
        array(context),
        param(CK_SP800_108_DKM_LENGTH, dkm, ctypes.sizeof(dkm)),
    )
    held.append(data)
    params = KbkdfParams(prf, 5, ctypes.cast(data, ctypes.c_void_p), 0, None)
    return bytes(params), held


@pytest.mark.parametrize("_prf, prf, algorithm, name", HASHES[:2])
def test_kbkdf_counter_mode_matches_cryptography(fips, _prf, prf, algorithm, name):
    ki, label, context = os.urandom(32), b"regula label", b"context " + name.encode()
    base = secret(fips, KeyType.GENERIC_SECRET, ki)
    params, keep = kbkdf_params(prf, label, context, CK_SP800_108_DKM_LENGTH_SUM_OF_KEYS)
    okm = derived_value(base, CKM_SP800_108_COUNTER_KDF, params, 42)
    assert approved(fips)
    peer = KBKDFHMAC(
        algorithm(),
        Mode.CounterMode,
        42,
        rlen=4,
        llen=4,
        location=CounterLocation.BeforeFixed,
        label=label,
        context=context,
        fixed=None,
    )
    assert okm == peer.derive(ki)
    # L as the sum of whole PRF outputs: ⌈42 / h⌉·h bytes, in bits.
    params, keep = kbkdf_params(prf, label, context, CK_SP800_108_DKM_LENGTH_SUM_OF_SEGMENTS)
    segments = -(-42 // algorithm.digest_size) * algorithm.digest_size
    fixed = label + b"\x00" + context + (8 * segments).to_bytes(4, "big")
    peer = KBKDFHMAC(
        algorithm(),
        Mode.CounterMode,
        42,
        rlen=4,
        llen=None,
        location=CounterLocation.BeforeFixed,
        label=None,
        context=None,
        fixed=fixed,
    )
    assert derived_value(base, CKM_SP800_108_COUNTER_KDF, params, 42) == peer.derive(ki)
    del keep


# ---- CCM and XTS --------------------------------------------------------------------------------


class CcmParams(ctypes.Structure):
    _fields_ = [
        ("ulDataLen", ctypes.c_ulong),
        ("pNonce", ctypes.c_void_p),
        ("ulNonceLen", ctypes.c_ulong),
        ("pAAD", ctypes.c_void_p),
        ("ulAADLen", ctypes.c_ulong),
        ("ulMACLen", ctypes.c_ulong),
    ]


def ccm_params(data_len, nonce, aad, mac_len):
    """CK_CCM_PARAMS as bytes, and the buffers that must outlive its use."""
    nonce_held, nonce_ptr = buffer(nonce)
    aad_held, aad_ptr = buffer(aad)
    params = CcmParams(data_len, nonce_ptr, len(nonce), aad_ptr, len(aad), mac_len)
    return bytes(params), (nonce_held, aad_held)


@pytest.mark.parametrize("key_len", [16, 32])
@pytest.mark.parametrize("nonce_len, mac_len", [(7, 4), (11, 16), (13, 8)])
def test_aes_ccm_matches_cryptography(default, key_len, nonce_len, mac_len):
    value, nonce, aad = os.urandom(key_len), os.urandom(nonce_len), b"associated data"
    data = os.urandom(100)
    key = secret(default, KeyType.AES, value)
    params, keep = ccm_params(len(data), nonce, aad, mac_len)
    sealed = key.encrypt(data, mechanism=Mechanism.AES_CCM, mechanism_param=params)
    assert approved(default)
    assert sealed == AESCCM(value, mac_len).encrypt(nonce, data, aad)
    assert key.decrypt(sealed, mechanism=Mechanism.AES_CCM, mechanism_param=params) == data
    with pytest.raises(pkcs11.PKCS11Error):
        key.decrypt(
            sealed[:-1] + bytes([sealed[-1] ^ 1]),
            mechanism=Mechanism.AES_CCM,
            mechanism_param=params,
        )
    del keep


def test_aes_xts_matches_cryptography_and_makes_its_keys(fips):
    value, tweak = os.urandom(64), os.urandom(16)
    data = os.urandom(100)
    key = secret(fips, CKK_AES_XTS, value)
    sealed = key.encrypt(data, mechanism=CKM_AES_XTS, mechanism_param=tweak)
    assert approved(fips)
    encryptor = Cipher(algorithms.AES(value), modes.XTS(tweak)).encryptor()
    assert sealed == encryptor.update(data) + encryptor.finalize()
    assert key.decrypt(sealed, mechanism=CKM_AES_XTS, mechanism_param=tweak) == data
    generated = fips.generate_key(
        CKK_AES_XTS,
        512,
        mechanism=CKM_AES_XTS_KEY_GEN,
        store=False,
        capabilities=pkcs11.MechanismFlag.ENCRYPT | pkcs11.MechanismFlag.DECRYPT,
        template=READABLE,
    )
    value = generated[Attribute.VALUE]
    assert len(value) == 64
    encryptor = Cipher(algorithms.AES(value), modes.XTS(tweak)).encryptor()
    sealed = generated.encrypt(data, mechanism=CKM_AES_XTS, mechanism_param=tweak)
    assert sealed == encryptor.update(data) + encryptor.finalize()


def test_sm4_ccm_and_xts_round_trip_on_gm(fips, gm):
    value, nonce, aad, data = os.urandom(16), os.urandom(12), b"aad", os.urandom(50)
    key = secret(gm, CKK_REGULA_SM4, value)
    params, keep = ccm_params(len(data), nonce, aad, 16)
    sealed = key.encrypt(data, mechanism=CKM_REGULA_SM4_CCM, mechanism_param=params)
    assert approved(gm)
    assert len(sealed) == len(data) + 16
    assert key.decrypt(sealed, mechanism=CKM_REGULA_SM4_CCM, mechanism_param=params) == data
    xts_key = secret(gm, CKK_REGULA_SM4, os.urandom(32))
    tweak = os.urandom(16)
    sealed = xts_key.encrypt(data, mechanism=CKM_REGULA_SM4_XTS, mechanism_param=tweak)
    assert approved(gm)
    assert xts_key.decrypt(sealed, mechanism=CKM_REGULA_SM4_XTS, mechanism_param=tweak) == data
    fips_mechanisms = set(fips.token.slot.get_mechanisms())
    gm_mechanisms = set(gm.token.slot.get_mechanisms())
    assert {CKM_REGULA_SM4_CCM, CKM_REGULA_SM4_XTS} <= gm_mechanisms
    assert not {CKM_REGULA_SM4_CCM, CKM_REGULA_SM4_XTS} & fips_mechanisms
    assert Mechanism.AES_CCM not in fips_mechanisms and CKM_AES_XTS in fips_mechanisms
    del keep
