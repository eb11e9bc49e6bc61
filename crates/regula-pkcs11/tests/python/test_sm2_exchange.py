"""The SM2 key exchange (GB/T 32918.3) on the regula-gm token through python-pkcs11 (PyPI),
unchanged: CKM_REGULA_SM2_KEY_EXCHANGE of crates/regula-pkcs11/include/regula-pkcs11.h, its
CK_REGULA_SM2_KEY_EXCHANGE_PARAMS built with ctypes and handed over as raw bytes (python-pkcs11
passes a bytes parameter through as it is; the pointers inside it point at ctypes buffers kept
alive here, which is where the token writes the confirmations).

Answers: GM/T 0003.5-2012 Annex B's inputs on the recommended curve with the key of the
pure-Python gmalg 1.1.2 and the confirmations S_A, S_B computed with its arithmetic and SM3
(the same values as crates/regula-pkcs11/tests/sm2_exchange.rs); GB/T 32918.5-2017 Annex B's
worked example as the standard prints it (default IDs, K, S_A, S_B); and gmalg 1.1.2 itself as
the live peer, in either role, with ephemeral keys of its own.

Run by scripts/test-pkcs11-interop with the other tests/python files (sessions from conftest.py,
the indicator from token_session.py).
"""

import ctypes

import gmalg
import pkcs11
import pytest
from pkcs11 import Attribute, KeyType, Mechanism, MechanismFlag, ObjectClass

from token_session import LIB, approved, vendor

CKM_REGULA_SM2_KEY_PAIR_GEN = vendor(Mechanism, "REGULA_SM2_KEY_PAIR_GEN", 0x80524711)
CKM_REGULA_SM2_KEY_EXCHANGE = vendor(Mechanism, "REGULA_SM2_KEY_EXCHANGE", 0x80524715)

SM2_PARAMS = bytes.fromhex("06082a811ccf5501822d")
D_A = bytes.fromhex("6FCBA2EF9AE0AB902BC3BDE3FF915D44BA4CC78F88E2F8E7F8996D3B8CCEEDEE")
D_B = bytes.fromhex("5E35D7D3F3C54DBAC72E61819E730B019A84208CA3A35E4C2E353DFCCB2A3B53")
R_A = bytes.fromhex("83A2C9C8B96E5AF70BD480B472409A9A327257F1EBB73F5B073354B248668563")
R_B = bytes.fromhex("33FE21940342161C55619C4A0C060293D543C80AF19748CE176D83477DE71C80")
ID_A = b"ALICE123@YAHOO.COM"
ID_B = b"BILL456@YAHOO.COM"
P_A = bytes.fromhex(
    "0426f1f3ef122785d17d3870c2434650363fdf4b2f450e8ed1b60fdc1fc6f019ab"
    "d9198bdbefa58476ec8225125b8ce3e10a100dc6976cc189d96da6889ebcd37a"
)
P_B = bytes.fromhex(
    "049eafb2cef3c95526c686a6c961a247a1aee7fc2e802454227a012b083ac553f5"
    "e30eb411162cd81274bdaff97896f264171cad0743dfa5ad39dfe0d924b167f9"
)
EPHEMERAL_A = bytes.fromhex(
    "04698c93c85618d221a6de87ca8f091a89cfaecc9fff2dd978f92769a40af3b740"
    "b058698f05ed5aadec7d50616e7a05e9aa151c9b693fdcada01f16cfacc994b4"
)
EPHEMERAL_B = bytes.fromhex(
    "0426891afec73a32fa5bf2cbe91acded37cac48621d85d5965a5044a84dbda5988"
    "c2f8f5ddd6190244d5aa85feb8e9cbc583c75401e37d8811d47a800f0d96796f"
)
KEY = bytes.fromhex("f02f9068ad13e14f2b2602e0dfb2504f")
S_A = bytes.fromhex("daefca6c32f53c48444d4ef35f98471e5d1cd1e3b5b8e3322dede310306689f6")
S_B = bytes.fromhex("b93374ade30a74e12ddb40e4c03d0c6fcf61badbf2c2c5cc39a91201d9228e2e")

# GB/T 32918.5-2017 Annex B (crates/regula-vectors/tests/data/gmt/appendix_examples.txt).
ANNEX_B = {
    "d_a": "81EB26E941BB5AF16DF116495F90695272AE2CD63D6C4AE1678418BE48230029",
    "p_a": "04160E12897DF4EDB61DD812FEB96748FBD3CCF4FFE26AA6F6DB9540AF49C94232"
    "4A7DAD08BB9A459531694BEB20AA489D6649975E1BFCF8C4741B78B4B223007F",
    "r_a": "D4DE15474DB74D06491C440D305E012400990F3E390C7E87153C12DB2EA60BB3",
    "big_r_a": "0464CED1BDBC99D590049B434D0FD73428CF608A5DB8FE5CE07F15026940BAE40E"
    "376629C7AB21E7DB260922499DDB118F07CE8EAAE3E7720AFEF6A5CC062070C0",
    "d_b": "785129917D45A9EA5437A59356B82338EAADDA6CEB199088F14AE10DEFA229B5",
    "p_b": "046AE848C57C53C7B1B5FA99EB2286AF078BA64C64591B8B566F7357D576F16DFB"
    "EE489D771621A27B36C5C7992062E9CD09A9264386F3FBEA54DFF69305621C4D",
    "r_b": "7E07124814B309489125EAED101113164EBF0F3458C5BD88335C1F9D596243D6",
    "big_r_b": "04ACC27688A6F7B706098BC91FF3AD1BFF7DC2802CDB14CCCCDB0A90471F9BD707"
    "2FEDAC0494B2FFC4D6853876C79B8F301C6573AD0AA50F39FC87181E1A1B46FE",
    "key": "6C89347354DE2484C60B4AB1FDE4C6E5",
    "s_b": "D3A0FE15DEE185CEAE907A6B595CC32A266ED7B3367E9983A896DC32FA20F8EB",
    "s_a": "18C7894B3816DF16CF07B05C5EC0BEF5D655D58F779CC1B400A4F3884644DB88",
}
ANNEX_B = {name: bytes.fromhex(value) for name, value in ANNEX_B.items()}

BYTES = ctypes.POINTER(ctypes.c_ubyte)


class KeyExchangeParams(ctypes.Structure):
    """regula-pkcs11.h's CK_REGULA_SM2_KEY_EXCHANGE_PARAMS."""

    _fields_ = [
        ("isInitiator", ctypes.c_ubyte),
        ("pOwnId", BYTES),
        ("ulOwnIdLen", ctypes.c_ulong),
        ("pPeerId", BYTES),
        ("ulPeerIdLen", ctypes.c_ulong),
        ("hOwnEphemeralKey", ctypes.c_ulong),
        ("pPeerPublicKey", BYTES),
        ("ulPeerPublicKeyLen", ctypes.c_ulong),
        ("pPeerEphemeralKey", BYTES),
        ("ulPeerEphemeralKeyLen", ctypes.c_ulong),
        ("pConfirmation", BYTES),
        ("pPeerConfirmation", BYTES),
    ]


def buffer(data):
    """A ctypes copy of `data` and a pointer to it (NULL for None)."""
    if data is None:
        return None, BYTES()
    copy = (ctypes.c_ubyte * len(data)).from_buffer_copy(data)
    return copy, ctypes.cast(copy, BYTES)


def exchange(static, ephemeral, initiator, own_id, peer_id, peer_public, peer_r):
    """C_DeriveKey with CKM_REGULA_SM2_KEY_EXCHANGE into a readable 16-byte generic secret:
    (key, own confirmation, the peer's expected confirmation)."""
    kept = []  # the memory the parameter points at, alive until C_DeriveKey returns

    def pointer(data):
        copy, pointer = buffer(data)
        kept.append(copy)
        return pointer, 0 if data is None else len(data)

    confirmation = (ctypes.c_ubyte * 32)()
    peer_confirmation = (ctypes.c_ubyte * 32)()
    own_id_pointer, own_id_len = pointer(own_id)
    peer_id_pointer, peer_id_len = pointer(peer_id)
    public_pointer, public_len = pointer(peer_public)
    r_pointer, r_len = pointer(peer_r)
    params = KeyExchangeParams(
        isInitiator=1 if initiator else 0,
        pOwnId=own_id_pointer,
        ulOwnIdLen=own_id_len,
        pPeerId=peer_id_pointer,
        ulPeerIdLen=peer_id_len,
        hOwnEphemeralKey=ephemeral.handle,
        pPeerPublicKey=public_pointer,
        ulPeerPublicKeyLen=public_len,
        pPeerEphemeralKey=r_pointer,
        ulPeerEphemeralKeyLen=r_len,
        pConfirmation=ctypes.cast(confirmation, BYTES),
        pPeerConfirmation=ctypes.cast(peer_confirmation, BYTES),
    )
    key = static.derive_key(
        KeyType.GENERIC_SECRET,
        128,
        mechanism=CKM_REGULA_SM2_KEY_EXCHANGE,
        mechanism_param=bytes(params),
        template={Attribute.SENSITIVE: False, Attribute.EXTRACTABLE: True},
    )
    return key[Attribute.VALUE], bytes(confirmation), bytes(peer_confirmation)


def private_key(session, scalar):
    """A session SM2 private key from its scalar, permitted to derive."""
    return session.create_object(
        {
            Attribute.CLASS: ObjectClass.PRIVATE_KEY,
            Attribute.KEY_TYPE: KeyType.EC,
            Attribute.EC_PARAMS: SM2_PARAMS,
            Attribute.VALUE: scalar,
            Attribute.DERIVE: True,
        }
    )


def generate(session):
    """A session SM2 key pair from the token: (private key, uncompressed public point)."""
    params = session.create_domain_parameters(
        KeyType.EC, {Attribute.EC_PARAMS: SM2_PARAMS}, local=True
    )
    public, private = params.generate_keypair(
        mechanism=CKM_REGULA_SM2_KEY_PAIR_GEN, capabilities=MechanismFlag.DERIVE
    )
    ec_point = public[Attribute.EC_POINT]
    assert ec_point[:2] == b"\x04\x41"
    return private, ec_point[2:]


def test_the_gm_token_lists_the_exchange_and_fips_does_not():
    gm = LIB.get_token(token_label="regula-gm").slot
    assert CKM_REGULA_SM2_KEY_EXCHANGE in set(gm.get_mechanisms())
    assert MechanismFlag.DERIVE in gm.get_mechanism_info(CKM_REGULA_SM2_KEY_EXCHANGE).flags
    fips = LIB.get_token(token_label="regula-fips").slot
    assert CKM_REGULA_SM2_KEY_EXCHANGE not in set(fips.get_mechanisms())


def test_both_roles_give_the_independent_key_and_confirmations(gm):
    a, r_a = private_key(gm, D_A), private_key(gm, R_A)
    b, r_b = private_key(gm, D_B), private_key(gm, R_B)
    initiator = exchange(a, r_a, True, ID_A, ID_B, P_B, EPHEMERAL_B)
    assert initiator == (KEY, S_A, S_B)
    assert approved(gm)
    responder = exchange(b, r_b, False, ID_B, ID_A, P_A, EPHEMERAL_A)
    assert responder == (KEY, S_B, S_A)


def test_the_standards_worked_example_with_default_ids(gm):
    v = ANNEX_B
    a, r_a = private_key(gm, v["d_a"]), private_key(gm, v["r_a"])
    b, r_b = private_key(gm, v["d_b"]), private_key(gm, v["r_b"])
    # No IDs given: the default ID, which the example uses on both sides.
    initiator = exchange(a, r_a, True, None, None, v["p_b"], v["big_r_b"])
    assert initiator == (v["key"], v["s_a"], v["s_b"])
    responder = exchange(b, r_b, False, None, None, v["p_a"], v["big_r_a"])
    assert responder == (v["key"], v["s_b"], v["s_a"])
    assert approved(gm)


@pytest.mark.parametrize("token_initiates", [True, False])
def test_the_token_agrees_with_gmalg_as_the_peer(gm, token_initiates):
    static, static_public = generate(gm)
    ephemeral, r_token = generate(gm)
    token_id, peer_id = b"token@example", b"gmalg@example"
    peer_secret, peer_public = gmalg.SM2().generate_keypair()
    peer = gmalg.SM2(peer_secret, peer_id, peer_public)
    r_peer, t_peer = peer.begin_key_exchange()
    key, _, _ = exchange(static, ephemeral, token_initiates, token_id, peer_id, peer_public, r_peer)
    mode = gmalg.KEYXCHG_MODE.RESPONDER if token_initiates else gmalg.KEYXCHG_MODE.INITIATOR
    assert key == peer.end_key_exchange(16, t_peer, r_token, token_id, static_public, mode)
    # Another ID on the peer's side: another key.
    assert key != peer.end_key_exchange(16, t_peer, r_token, b"someone", static_public, mode)


def test_an_ephemeral_that_is_not_an_sm2_private_key_is_refused(gm):
    a = private_key(gm, D_A)
    secret = gm.create_object(
        {
            Attribute.CLASS: ObjectClass.SECRET_KEY,
            Attribute.KEY_TYPE: KeyType.GENERIC_SECRET,
            Attribute.VALUE: bytes(32),
            Attribute.DERIVE: True,
        }
    )
    with pytest.raises(pkcs11.exceptions.MechanismParamInvalid):
        exchange(a, secret, True, ID_A, ID_B, P_B, EPHEMERAL_B)
    off_curve = EPHEMERAL_B[:-1] + bytes([EPHEMERAL_B[-1] ^ 1])
    with pytest.raises(pkcs11.exceptions.MechanismParamInvalid):
        exchange(a, private_key(gm, R_A), True, ID_A, ID_B, P_B, off_curve)
