"""libregula-pkcs11 through python-pkcs11 (PyPI), unchanged.

Every answer is checked against an independent peer: Python's hashlib and hmac, pyca/cryptography
(AES modes, CMAC, RFC 3394/5649 key wrap, ECDSA and Ed25519 verification, ECDH, SM3, SM4), or a
published example (GB/T 32905 SM3, GB/T 32907 SM4). The service indicator is read through
PKCS#11 3.2's C_GetSessionValidationFlags (python-pkcs11 has no binding for it: ctypes calls the
same loaded library).

Run by scripts/test-pkcs11-interop, which initializes the README's tokens (regula-fips,
regula-default) and a regula-gm token with the user PIN and sets REGULA_PKCS11_CONF,
REGULA_PKCS11_MODULE (the library) and REGULA_PKCS11_PIN.
"""

import ctypes
import hashlib
import hmac
import struct

import pkcs11
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.decrepit.ciphers import modes as decrepit_modes
from cryptography.hazmat.primitives import hashes, keywrap, padding
from cryptography.hazmat.primitives import hmac as crypto_hmac
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import (
    Prehashed,
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.cmac import CMAC
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pkcs11 import Attribute, KeyType, Mechanism, ObjectClass
from pkcs11.mechanisms import GCMParams
from pkcs11.util.ec import encode_named_curve_parameters

from token_session import approved, secret, vendor

# crates/regula-pkcs11/include/regula-pkcs11.h
CKK_REGULA_SM4 = vendor(KeyType, "REGULA_SM4", 0x80524701)
CKM_REGULA_SM3 = vendor(Mechanism, "REGULA_SM3", 0x80524701)
CKM_REGULA_SM3_HMAC = vendor(Mechanism, "REGULA_SM3_HMAC", 0x80524702)
CKM_REGULA_SM4_KEY_GEN = vendor(Mechanism, "REGULA_SM4_KEY_GEN", 0x80524703)
CKM_REGULA_SM4_ECB = vendor(Mechanism, "REGULA_SM4_ECB", 0x80524704)
CKM_REGULA_SM4_CBC_PAD = vendor(Mechanism, "REGULA_SM4_CBC_PAD", 0x80524705)
CKM_REGULA_SM4_CTR = vendor(Mechanism, "REGULA_SM4_CTR", 0x80524706)
CKM_REGULA_SM4_OFB = vendor(Mechanism, "REGULA_SM4_OFB", 0x80524707)
CKM_REGULA_SM4_CFB = vendor(Mechanism, "REGULA_SM4_CFB", 0x80524708)
CKM_REGULA_SM4_GCM = vendor(Mechanism, "REGULA_SM4_GCM", 0x80524709)
CKM_REGULA_SM4_CMAC = vendor(Mechanism, "REGULA_SM4_CMAC", 0x8052470E)

# 213 bytes: not a whole number of blocks.
MESSAGE = b"libregula-pkcs11 through python-pkcs11, " * 5 + b"odd tail!!!!!"
assert len(MESSAGE) % 16 != 0


def encrypt(cipher, data):
    encryptor = cipher.encryptor()
    return encryptor.update(data) + encryptor.finalize()


def pkcs7(data, bits=128):
    padder = padding.PKCS7(bits).padder()
    return padder.update(data) + padder.finalize()


class GcmParams(ctypes.Structure):
    """CK_GCM_PARAMS with writable buffers (SM4-GCM; AES-GCM where the token writes its IV)."""

    _fields_ = [
        ("pIv", ctypes.c_void_p),
        ("ulIvLen", ctypes.c_ulong),
        ("ulIvBits", ctypes.c_ulong),
        ("pAAD", ctypes.c_void_p),
        ("ulAADLen", ctypes.c_ulong),
        ("ulTagBits", ctypes.c_ulong),
    ]


def gcm_params(iv, aad):
    """The parameter's bytes; the buffers returned with it must outlive the operation."""
    iv_buffer = ctypes.create_string_buffer(iv, len(iv))
    aad_buffer = ctypes.create_string_buffer(aad, len(aad))
    params = GcmParams(
        ctypes.cast(iv_buffer, ctypes.c_void_p),
        len(iv),
        8 * len(iv),
        ctypes.cast(aad_buffer, ctypes.c_void_p),
        len(aad),
        128,
    )
    return bytes(params), (iv_buffer, aad_buffer)


def ctr_params(block):
    """CK_AES_CTR_PARAMS: the whole block is the counter (native CK_ULONG, then the block)."""
    return struct.pack("@L", 128) + block


# ---- digests and HMAC ---------------------------------------------------------------------------

DIGESTS = [
    (Mechanism.SHA_1, "sha1"),
    (Mechanism.SHA224, "sha224"),
    (Mechanism.SHA256, "sha256"),
    (Mechanism.SHA384, "sha384"),
    (Mechanism.SHA512, "sha512"),
    (Mechanism.SHA3_256, "sha3_256"),
    (Mechanism.SHA3_384, "sha3_384"),
    (Mechanism.SHA3_512, "sha3_512"),
]


@pytest.mark.parametrize("mechanism,name", DIGESTS)
def test_digests_match_hashlib(fips, default, mechanism, name):
    for session in (fips, default):
        for data in (b"", b"abc", MESSAGE):
            assert session.digest(data, mechanism=mechanism) == hashlib.new(name, data).digest()
    # SHA-2 and SHA-3 hashing is approved under fips-140-3.
    fips.digest(b"abc", mechanism=mechanism)
    assert approved(fips)


HMACS = [
    (Mechanism.SHA256_HMAC, "sha256"),
    (Mechanism.SHA384_HMAC, "sha384"),
    (Mechanism.SHA512_HMAC, "sha512"),
]


@pytest.mark.parametrize("mechanism,name", HMACS)
def test_hmac_matches_python_and_verifies(fips, mechanism, name):
    value = bytes(range(32))
    key = secret(fips, KeyType.GENERIC_SECRET, value)
    tag = key.sign(MESSAGE, mechanism=mechanism)
    assert approved(fips)
    assert tag == hmac.new(value, MESSAGE, name).digest()
    assert key.verify(MESSAGE, tag, mechanism=mechanism)
    assert not key.verify(MESSAGE + b"!", tag, mechanism=mechanism)


def test_a_short_hmac_key_is_served_by_default_and_refused_by_fips(fips, default):
    # SP 800-131A / the policy's minimum HMAC key (112 bits): the strict fips-140-3 slot refuses
    # a 4-byte key (RFC 4231 test case 2's "Jefe"), the permissive default slot serves it.
    short = b"Jefe"
    key = secret(default, KeyType.GENERIC_SECRET, short)
    tag = key.sign(MESSAGE, mechanism=Mechanism.SHA256_HMAC)
    assert tag == hmac.new(short, MESSAGE, "sha256").digest()
    with pytest.raises(pkcs11.exceptions.MechanismInvalid):
        secret(fips, KeyType.GENERIC_SECRET, short).sign(MESSAGE, mechanism=Mechanism.SHA256_HMAC)


def test_generated_generic_secret_keys_mac(fips):
    key = fips.generate_key(
        KeyType.GENERIC_SECRET,
        256,
        store=False,
        template={Attribute.SIGN: True, Attribute.VERIFY: True},
    )
    tag = key.sign(MESSAGE, mechanism=Mechanism.SHA256_HMAC)
    assert approved(fips)
    assert key.verify(MESSAGE, tag, mechanism=Mechanism.SHA256_HMAC)
    # A fresh key is sensitive: its value never leaves the token.
    with pytest.raises(pkcs11.exceptions.AttributeSensitive):
        key[Attribute.VALUE]


# ---- AES ----------------------------------------------------------------------------------------

AES_KEY = bytes.fromhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")


def test_aes_cbc_cbc_pad_and_ctr_match_cryptography(default):
    key = secret(default, KeyType.AES, AES_KEY)
    block_aligned = MESSAGE[:64]
    cbc = Cipher(algorithms.AES(AES_KEY), modes.CBC(IV))
    assert key.encrypt(block_aligned, mechanism=Mechanism.AES_CBC, mechanism_param=IV) == encrypt(
        cbc, block_aligned
    )
    assert approved(default)
    sealed = key.encrypt(MESSAGE, mechanism=Mechanism.AES_CBC_PAD, mechanism_param=IV)
    assert sealed == encrypt(cbc, pkcs7(MESSAGE))
    assert key.decrypt(sealed, mechanism=Mechanism.AES_CBC_PAD, mechanism_param=IV) == MESSAGE
    block = bytes.fromhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
    ctr = Cipher(algorithms.AES(AES_KEY), modes.CTR(block))
    out = key.encrypt(MESSAGE, mechanism=Mechanism.AES_CTR, mechanism_param=ctr_params(block))
    assert out == encrypt(ctr, MESSAGE)
    # CBC without padding takes whole blocks only.
    with pytest.raises(pkcs11.PKCS11Error):
        key.encrypt(MESSAGE, mechanism=Mechanism.AES_CBC, mechanism_param=IV)


def test_aes_gcm_matches_cryptography_and_refuses_a_bad_tag(default):
    key = secret(default, KeyType.AES, AES_KEY)
    nonce, aad = bytes(range(12)), b"header"
    params = GCMParams(nonce, aad, 128)
    sealed = key.encrypt(MESSAGE, mechanism=Mechanism.AES_GCM, mechanism_param=params)
    assert sealed == AESGCM(AES_KEY).encrypt(nonce, MESSAGE, aad)
    assert key.decrypt(sealed, mechanism=Mechanism.AES_GCM, mechanism_param=params) == MESSAGE
    tampered = sealed[:-1] + bytes([sealed[-1] ^ 1])
    with pytest.raises(pkcs11.PKCS11Error):
        key.decrypt(tampered, mechanism=Mechanism.AES_GCM, mechanism_param=params)


def test_aes_gcm_under_fips_draws_the_iv_itself(fips):
    # fips-140-3 approves module-generated GCM IVs only (SP 800-38D §8.2): the token draws the
    # IV and writes it into the caller's CK_GCM_PARAMS; cryptography opens the result with it.
    key = secret(fips, KeyType.AES, AES_KEY)
    aad = b"header"
    params, (iv_buffer, _aad_buffer) = gcm_params(bytes(12), aad)
    sealed = key.encrypt(MESSAGE, mechanism=Mechanism.AES_GCM, mechanism_param=params)
    assert approved(fips)
    iv = iv_buffer.raw[:12]
    assert iv != bytes(12)
    assert AESGCM(AES_KEY).decrypt(iv, sealed, aad) == MESSAGE
    # A second encryption draws another IV.
    params2, (iv_buffer2, _keep) = gcm_params(bytes(12), aad)
    key.encrypt(MESSAGE, mechanism=Mechanism.AES_GCM, mechanism_param=params2)
    assert iv_buffer2.raw[:12] not in (bytes(12), iv)


def test_aes_cmac_matches_cryptography(fips):
    key = secret(fips, KeyType.AES, AES_KEY)
    tag = key.sign(MESSAGE, mechanism=Mechanism.AES_CMAC)
    assert approved(fips)
    peer = CMAC(algorithms.AES(AES_KEY))
    peer.update(MESSAGE)
    assert tag == peer.finalize()
    assert key.verify(MESSAGE, tag, mechanism=Mechanism.AES_CMAC)


@pytest.mark.parametrize(
    "mechanism,length,peer",
    [
        (Mechanism.AES_KEY_WRAP, 32, keywrap.aes_key_wrap),
        (Mechanism.AES_KEY_WRAP_KWP, 20, keywrap.aes_key_wrap_with_padding),
        (Mechanism.AES_KEY_WRAP_PAD, 20, keywrap.aes_key_wrap_with_padding),
    ],
)
def test_key_wrap_matches_cryptography_and_unwraps(fips, mechanism, length, peer):
    kek_value = bytes(range(16, 48))
    kek = secret(fips, KeyType.AES, kek_value, {Attribute.WRAP: True, Attribute.UNWRAP: True})
    target_value = bytes(range(100, 100 + length))
    key_type = KeyType.AES if length in (16, 24, 32) else KeyType.GENERIC_SECRET
    target = secret(
        fips,
        key_type,
        target_value,
        {Attribute.EXTRACTABLE: True, Attribute.SENSITIVE: True},
    )
    wrapped = kek.wrap_key(target, mechanism=mechanism)
    assert approved(fips)
    assert wrapped == peer(kek_value, target_value)
    unwrapped = kek.unwrap_key(
        ObjectClass.SECRET_KEY,
        key_type,
        wrapped,
        mechanism=mechanism,
        store=False,
        template={
            Attribute.SIGN: True,
            Attribute.VERIFY: True,
            Attribute.ENCRYPT: True,
            Attribute.EXTRACTABLE: True,
        },
    )
    # The round trip gives the same key: both make the same MAC.
    if key_type == KeyType.AES:
        assert unwrapped.sign(MESSAGE, mechanism=Mechanism.AES_CMAC) == target.sign(
            MESSAGE, mechanism=Mechanism.AES_CMAC
        )
    else:
        assert (
            unwrapped.sign(MESSAGE, mechanism=Mechanism.SHA256_HMAC)
            == hmac.new(target_value, MESSAGE, "sha256").digest()
        )
    # A tampered wrapping is refused.
    with pytest.raises(pkcs11.PKCS11Error):
        kek.unwrap_key(
            ObjectClass.SECRET_KEY,
            key_type,
            wrapped[:-1] + bytes([wrapped[-1] ^ 1]),
            mechanism=mechanism,
            store=False,
        )


def test_sensitivity_and_extractability_rules(fips):
    kek = secret(fips, KeyType.AES, bytes(32), {Attribute.WRAP: True})
    # A generated key is sensitive; its value cannot be read.
    key = fips.generate_key(KeyType.AES, 256, store=False, template={Attribute.EXTRACTABLE: False})
    assert (
        key[Attribute.SENSITIVE]
        and key[Attribute.ALWAYS_SENSITIVE]
        and key[Attribute.NEVER_EXTRACTABLE]
    )
    with pytest.raises(pkcs11.exceptions.AttributeSensitive):
        key[Attribute.VALUE]
    # Not extractable: it cannot be wrapped.
    with pytest.raises(pkcs11.exceptions.KeyUnextractable):
        kek.wrap_key(key, mechanism=Mechanism.AES_KEY_WRAP)
    # Sensitive cannot be turned off, extractable cannot be turned on.
    with pytest.raises(pkcs11.PKCS11Error):
        key[Attribute.SENSITIVE] = False
    with pytest.raises(pkcs11.PKCS11Error):
        key[Attribute.EXTRACTABLE] = True
    # A key made non-sensitive gives its value; turning sensitivity on hides it for good.
    plain = secret(
        fips, KeyType.AES, AES_KEY, {Attribute.SENSITIVE: False, Attribute.EXTRACTABLE: True}
    )
    assert plain[Attribute.VALUE] == AES_KEY
    assert not plain[Attribute.ALWAYS_SENSITIVE]
    plain[Attribute.SENSITIVE] = True
    with pytest.raises(pkcs11.exceptions.AttributeSensitive):
        plain[Attribute.VALUE]


# ---- EC -----------------------------------------------------------------------------------------

CURVES = [
    ("secp256r1", ec.SECP256R1(), Mechanism.ECDSA_SHA256, hashes.SHA256()),
    ("secp384r1", ec.SECP384R1(), Mechanism.ECDSA_SHA384, hashes.SHA384()),
]


def ec_pair(session, curve_name, derive=False):
    params = session.create_domain_parameters(
        KeyType.EC, {Attribute.EC_PARAMS: encode_named_curve_parameters(curve_name)}, local=True
    )
    return params.generate_keypair(
        store=False,
        public_template={Attribute.VERIFY: True},
        private_template={Attribute.SIGN: True, Attribute.DERIVE: derive},
    )


def peer_public_key(public, curve):
    # CKA_EC_POINT: the DER OCTET STRING of the uncompressed point.
    point = public[Attribute.EC_POINT]
    assert point[0] == 0x04 and point[1] == len(point) - 2
    return ec.EllipticCurvePublicKey.from_encoded_point(curve, point[2:])


X962, UNCOMPRESSED = Encoding.X962, PublicFormat.UncompressedPoint


def octet_string(point):
    """CKA_EC_POINT of an uncompressed point: a DER OCTET STRING."""
    return bytes([0x04, len(point)]) + point


def der(signature):
    half = len(signature) // 2
    return encode_dss_signature(
        int.from_bytes(signature[:half], "big"), int.from_bytes(signature[half:], "big")
    )


@pytest.mark.parametrize("curve_name,curve,mechanism,hash_algorithm", CURVES)
def test_ecdsa_signatures_verify_with_cryptography(
    fips, curve_name, curve, mechanism, hash_algorithm
):
    public, private = ec_pair(fips, curve_name)
    assert approved(fips)
    assert private[Attribute.SENSITIVE] and private[Attribute.NEVER_EXTRACTABLE]
    assert not private[Attribute.EXTRACTABLE]
    with pytest.raises(pkcs11.exceptions.AttributeSensitive):
        private[Attribute.VALUE]
    signature = private.sign(MESSAGE, mechanism=mechanism)
    assert approved(fips)
    peer = peer_public_key(public, curve)
    peer.verify(der(signature), MESSAGE, ec.ECDSA(hash_algorithm))
    with pytest.raises(InvalidSignature):
        peer.verify(der(signature), MESSAGE + b"!", ec.ECDSA(hash_algorithm))
    assert public.verify(MESSAGE, signature, mechanism=mechanism)
    assert not public.verify(MESSAGE + b"!", signature, mechanism=mechanism)
    # A signature cryptography makes verifies on the token.
    peer_key = ec.generate_private_key(curve)
    theirs = fips.create_object(
        {
            Attribute.CLASS: ObjectClass.PUBLIC_KEY,
            Attribute.KEY_TYPE: KeyType.EC,
            Attribute.EC_PARAMS: encode_named_curve_parameters(curve_name),
            Attribute.EC_POINT: octet_string(
                peer_key.public_key().public_bytes(X962, UNCOMPRESSED)
            ),
            Attribute.VERIFY: True,
            Attribute.TOKEN: False,
        }
    )
    r, s = decode_dss_signature(peer_key.sign(MESSAGE, ec.ECDSA(hash_algorithm)))
    width = len(signature) // 2
    assert theirs.verify(
        MESSAGE, r.to_bytes(width, "big") + s.to_bytes(width, "big"), mechanism=mechanism
    )


@pytest.mark.parametrize("curve_name,curve,mechanism,hash_algorithm", CURVES)
def test_raw_ecdsa_signs_a_callers_hash_flagged_on_default_only(
    fips, default, curve_name, curve, mechanism, hash_algorithm
):
    public, private = ec_pair(default, curve_name)
    digest = hashlib.new(hash_algorithm.name, MESSAGE).digest()
    signature = private.sign(digest, mechanism=Mechanism.ECDSA)
    # The module did not compute the hash: served, never approved.
    assert not approved(default)
    peer_public_key(public, curve).verify(
        der(signature), digest, ec.ECDSA(Prehashed(hash_algorithm))
    )
    _, fips_private = ec_pair(fips, curve_name)
    with pytest.raises(pkcs11.exceptions.MechanismInvalid):
        fips_private.sign(digest, mechanism=Mechanism.ECDSA)


def test_ecdh_derives_cryptographys_secret(fips):
    public, private = ec_pair(fips, "secp256r1", derive=True)
    peer = ec.generate_private_key(ec.SECP256R1())
    peer_point = peer.public_key().public_bytes(X962, UNCOMPRESSED)
    derived = private.derive_key(
        KeyType.GENERIC_SECRET,
        256,
        mechanism=Mechanism.ECDH1_DERIVE,
        mechanism_param=(pkcs11.KDF.NULL, None, peer_point),
        template={Attribute.SENSITIVE: False, Attribute.EXTRACTABLE: True, Attribute.TOKEN: False},
    )
    assert approved(fips)
    expected = peer.exchange(ec.ECDH(), peer_public_key(public, ec.SECP256R1()))
    assert derived[Attribute.VALUE] == expected


def test_ed25519_signatures_verify_with_cryptography(default):
    params = default.create_domain_parameters(
        KeyType.EC_EDWARDS, {Attribute.EC_PARAMS: bytes.fromhex("06032b6570")}, local=True
    )
    public, private = params.generate_keypair(
        store=False,
        mechanism=Mechanism.EC_EDWARDS_KEY_PAIR_GEN,
        public_template={Attribute.VERIFY: True},
        private_template={Attribute.SIGN: True},
    )
    signature = private.sign(MESSAGE, mechanism=Mechanism.EDDSA)
    assert len(signature) == 64
    point = public[Attribute.EC_POINT]
    assert point[:2] == b"\x04\x20"
    peer = ed25519.Ed25519PublicKey.from_public_bytes(point[2:])
    peer.verify(signature, MESSAGE)
    with pytest.raises(InvalidSignature):
        peer.verify(signature, MESSAGE + b"!")


# ---- the gm slot: SM3, HMAC-SM3 and SM4 ------------------------------------------------------------

SM4_KEY = bytes.fromhex("0123456789abcdeffedcba9876543210")


def test_sm3_gives_the_gb_t_32905_examples_and_cryptographys_answer(gm):
    # GB/T 32905-2016 Appendix A, examples 1 and 2.
    assert gm.digest(b"abc", mechanism=CKM_REGULA_SM3) == bytes.fromhex(
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    )
    assert gm.digest(b"abcd" * 16, mechanism=CKM_REGULA_SM3) == bytes.fromhex(
        "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
    )
    assert approved(gm)
    peer = hashes.Hash(hashes.SM3())
    peer.update(MESSAGE)
    assert gm.digest(MESSAGE, mechanism=CKM_REGULA_SM3) == peer.finalize()


def test_hmac_sm3_matches_cryptography(gm):
    value = bytes(range(32))
    key = secret(gm, KeyType.GENERIC_SECRET, value)
    tag = key.sign(MESSAGE, mechanism=CKM_REGULA_SM3_HMAC)
    assert approved(gm)
    peer = crypto_hmac.HMAC(value, hashes.SM3())
    peer.update(MESSAGE)
    assert tag == peer.finalize()
    assert key.verify(MESSAGE, tag, mechanism=CKM_REGULA_SM3_HMAC)


def test_sm4_gives_the_gb_t_32907_example(gm):
    # GB/T 32907-2016 Appendix A, example 1: the key is also the plaintext.
    key = secret(gm, CKK_REGULA_SM4, SM4_KEY)
    assert key.encrypt(SM4_KEY, mechanism=CKM_REGULA_SM4_ECB) == bytes.fromhex(
        "681edf34d206965e86b3e94f536e4246"
    )
    assert approved(gm)
    assert (
        key.decrypt(bytes.fromhex("681edf34d206965e86b3e94f536e4246"), mechanism=CKM_REGULA_SM4_ECB)
        == SM4_KEY
    )


def test_sm4_modes_match_cryptography(gm):
    key_value = bytes(range(16))
    key = secret(gm, CKK_REGULA_SM4, key_value)
    sm4 = algorithms.SM4(key_value)
    sealed = key.encrypt(MESSAGE, mechanism=CKM_REGULA_SM4_CBC_PAD, mechanism_param=IV)
    assert sealed == encrypt(Cipher(sm4, modes.CBC(IV)), pkcs7(MESSAGE))
    assert key.decrypt(sealed, mechanism=CKM_REGULA_SM4_CBC_PAD, mechanism_param=IV) == MESSAGE
    assert key.encrypt(MESSAGE, mechanism=CKM_REGULA_SM4_OFB, mechanism_param=IV) == encrypt(
        Cipher(sm4, decrepit_modes.OFB(IV)), MESSAGE
    )
    assert key.encrypt(MESSAGE, mechanism=CKM_REGULA_SM4_CFB, mechanism_param=IV) == encrypt(
        Cipher(sm4, decrepit_modes.CFB(IV)), MESSAGE
    )
    block = bytes.fromhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
    out = key.encrypt(MESSAGE, mechanism=CKM_REGULA_SM4_CTR, mechanism_param=ctr_params(block))
    assert out == encrypt(Cipher(sm4, modes.CTR(block)), MESSAGE)
    nonce, aad = bytes(range(12)), b"header"
    params, keep = gcm_params(nonce, aad)
    sealed = key.encrypt(MESSAGE, mechanism=CKM_REGULA_SM4_GCM, mechanism_param=params)
    encryptor = Cipher(sm4, modes.GCM(nonce)).encryptor()
    encryptor.authenticate_additional_data(aad)
    expected = encryptor.update(MESSAGE) + encryptor.finalize() + encryptor.tag
    assert sealed == expected
    assert key.decrypt(sealed, mechanism=CKM_REGULA_SM4_GCM, mechanism_param=params) == MESSAGE
    with pytest.raises(pkcs11.PKCS11Error):
        key.decrypt(
            sealed[:-1] + bytes([sealed[-1] ^ 1]),
            mechanism=CKM_REGULA_SM4_GCM,
            mechanism_param=params,
        )
    del keep


def test_sm4_cmac_matches_cryptography(gm):
    key_value = bytes(range(16))
    key = secret(gm, CKK_REGULA_SM4, key_value)
    tag = key.sign(MESSAGE, mechanism=CKM_REGULA_SM4_CMAC)
    peer = CMAC(algorithms.SM4(key_value))
    peer.update(MESSAGE)
    assert tag == peer.finalize()


def test_sm4_key_generation_and_what_each_slot_lists(fips, default, gm):
    key = gm.generate_key(
        CKK_REGULA_SM4,
        128,
        mechanism=CKM_REGULA_SM4_KEY_GEN,
        store=False,
        capabilities=pkcs11.MechanismFlag.ENCRYPT | pkcs11.MechanismFlag.DECRYPT,
    )
    assert key[Attribute.SENSITIVE]
    ciphertext = key.encrypt(bytes(16), mechanism=CKM_REGULA_SM4_ECB)
    assert key.decrypt(ciphertext, mechanism=CKM_REGULA_SM4_ECB) == bytes(16)
    gm_mechanisms = set(gm.token.slot.get_mechanisms())
    fips_mechanisms = set(fips.token.slot.get_mechanisms())
    assert CKM_REGULA_SM4_GCM in gm_mechanisms and Mechanism.AES_GCM not in gm_mechanisms
    assert CKM_REGULA_SM4_GCM not in fips_mechanisms and Mechanism.AES_GCM in fips_mechanisms
    assert Mechanism.ECDSA in set(default.token.slot.get_mechanisms())
    assert Mechanism.ECDSA not in fips_mechanisms
    with pytest.raises(pkcs11.exceptions.MechanismInvalid):
        secret(fips, KeyType.AES, AES_KEY).encrypt(SM4_KEY, mechanism=CKM_REGULA_SM4_ECB)
