//! The SM2 key exchange (GB/T 32918.3-2016 §6) through `C_DeriveKey` with
//! `CKM_REGULA_SM2_KEY_EXCHANGE` and the header's `CK_REGULA_SM2_KEY_EXCHANGE_PARAMS`, on the
//! `gm` slot: the ephemeral key a private key object made beforehand.
//!
//! Known answers: the static keys, ephemeral scalars and IDs of GM/T 0003.5-2012 Annex B used
//! on the recommended curve (that annex's test curve makes its own outputs inapplicable), the
//! values copied from `crates/regula-sm/tests/sm2.rs`: the key K and R_B from the independent
//! pure-Python implementation gmalg 1.1.2 (PyPI); the confirmation hashes S_A and S_B
//! (GB/T 32918.3 §6.1 A9, B8) computed in Python with gmalg 1.1.2's point arithmetic, Z and SM3
//! (its KDF over the same shared point gives the published K). And the standard's own worked
//! example, GB/T 32918.5-2017 Annex B (default IDs, K, S_B, S_A as printed; the values copied
//! from `crates/regula-vectors/tests/data/gmt/appendix_examples.txt`).

use std::ptr::null_mut;

use hex_literal::hex;
use regula_pkcs11::*;

mod common;
use common::*;

const CKM_REGULA_SM2_KEY_PAIR_GEN: CK_MECHANISM_TYPE = 0x8052_4711;
const CKM_REGULA_SM2_KEY_EXCHANGE: CK_MECHANISM_TYPE = 0x8052_4715;

/// curveSM2 (1.2.156.10197.1.301) as `CKA_EC_PARAMS`.
const SM2_PARAMS: [u8; 10] = hex!("06082a811ccf5501822d");

// GM/T 0003.5-2012 Annex B's inputs on the recommended curve, and the answers (see above).
const D_A: [u8; 32] = hex!("6FCBA2EF9AE0AB902BC3BDE3FF915D44BA4CC78F88E2F8E7F8996D3B8CCEEDEE");
const D_B: [u8; 32] = hex!("5E35D7D3F3C54DBAC72E61819E730B019A84208CA3A35E4C2E353DFCCB2A3B53");
const R_A: [u8; 32] = hex!("83A2C9C8B96E5AF70BD480B472409A9A327257F1EBB73F5B073354B248668563");
const R_B: [u8; 32] = hex!("33FE21940342161C55619C4A0C060293D543C80AF19748CE176D83477DE71C80");
const ID_A: &[u8] = b"ALICE123@YAHOO.COM";
const ID_B: &[u8] = b"BILL456@YAHOO.COM";
const P_A: [u8; 65] = hex!(
    "0426f1f3ef122785d17d3870c2434650363fdf4b2f450e8ed1b60fdc1fc6f019ab"
    "d9198bdbefa58476ec8225125b8ce3e10a100dc6976cc189d96da6889ebcd37a"
);
const P_B: [u8; 65] = hex!(
    "049eafb2cef3c95526c686a6c961a247a1aee7fc2e802454227a012b083ac553f5"
    "e30eb411162cd81274bdaff97896f264171cad0743dfa5ad39dfe0d924b167f9"
);
const EPHEMERAL_A: [u8; 65] = hex!(
    "04698c93c85618d221a6de87ca8f091a89cfaecc9fff2dd978f92769a40af3b740"
    "b058698f05ed5aadec7d50616e7a05e9aa151c9b693fdcada01f16cfacc994b4"
);
const EPHEMERAL_B: [u8; 65] = hex!(
    "0426891afec73a32fa5bf2cbe91acded37cac48621d85d5965a5044a84dbda5988"
    "c2f8f5ddd6190244d5aa85feb8e9cbc583c75401e37d8811d47a800f0d96796f"
);
const KEY: [u8; 16] = hex!("f02f9068ad13e14f2b2602e0dfb2504f");
const S_A: [u8; 32] = hex!("daefca6c32f53c48444d4ef35f98471e5d1cd1e3b5b8e3322dede310306689f6");
const S_B: [u8; 32] = hex!("b93374ade30a74e12ddb40e4c03d0c6fcf61badbf2c2c5cc39a91201d9228e2e");

// GB/T 32918.5-2017 Annex B: both IDs the default "1234567812345678".
mod annex_b {
    use hex_literal::hex;
    pub const D_A: [u8; 32] =
        hex!("81EB26E941BB5AF16DF116495F90695272AE2CD63D6C4AE1678418BE48230029");
    pub const P_A: [u8; 65] = hex!(
        "04160E12897DF4EDB61DD812FEB96748FBD3CCF4FFE26AA6F6DB9540AF49C94232"
        "4A7DAD08BB9A459531694BEB20AA489D6649975E1BFCF8C4741B78B4B223007F"
    );
    pub const R_A: [u8; 32] =
        hex!("D4DE15474DB74D06491C440D305E012400990F3E390C7E87153C12DB2EA60BB3");
    pub const EPHEMERAL_A: [u8; 65] = hex!(
        "0464CED1BDBC99D590049B434D0FD73428CF608A5DB8FE5CE07F15026940BAE40E"
        "376629C7AB21E7DB260922499DDB118F07CE8EAAE3E7720AFEF6A5CC062070C0"
    );
    pub const D_B: [u8; 32] =
        hex!("785129917D45A9EA5437A59356B82338EAADDA6CEB199088F14AE10DEFA229B5");
    pub const P_B: [u8; 65] = hex!(
        "046AE848C57C53C7B1B5FA99EB2286AF078BA64C64591B8B566F7357D576F16DFB"
        "EE489D771621A27B36C5C7992062E9CD09A9264386F3FBEA54DFF69305621C4D"
    );
    pub const R_B: [u8; 32] =
        hex!("7E07124814B309489125EAED101113164EBF0F3458C5BD88335C1F9D596243D6");
    pub const EPHEMERAL_B: [u8; 65] = hex!(
        "04ACC27688A6F7B706098BC91FF3AD1BFF7DC2802CDB14CCCCDB0A90471F9BD707"
        "2FEDAC0494B2FFC4D6853876C79B8F301C6573AD0AA50F39FC87181E1A1B46FE"
    );
    pub const KEY: [u8; 16] = hex!("6C89347354DE2484C60B4AB1FDE4C6E5");
    pub const S_B: [u8; 32] =
        hex!("D3A0FE15DEE185CEAE907A6B595CC32A266ED7B3367E9983A896DC32FA20F8EB");
    pub const S_A: [u8; 32] =
        hex!("18C7894B3816DF16CF07B05C5EC0BEF5D655D58F779CC1B400A4F3884644DB88");
}

/// An SM2 private key from its scalar, permitted to derive.
fn private_key(session: CK_SESSION_HANDLE, scalar: &[u8]) -> CK_OBJECT_HANDLE {
    let (class, key_type) = (CKO_PRIVATE_KEY, CKK_EC);
    let mut template = [
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
        bytes(CKA_EC_PARAMS, &SM2_PARAMS),
        bytes(CKA_VALUE, scalar),
        attribute(CKA_DERIVE, &TRUE),
    ];
    create_object(session, &mut template)
}

/// A session SM2 key pair from the token (private key with `CKA_DERIVE`): the private key's
/// handle and the public point.
fn generate(session: CK_SESSION_HANDLE) -> (CK_OBJECT_HANDLE, Vec<u8>) {
    let mut public = [bytes(CKA_EC_PARAMS, &SM2_PARAMS)];
    let mut private = [attribute(CKA_DERIVE, &TRUE)];
    let mut mechanism = mechanism(CKM_REGULA_SM2_KEY_PAIR_GEN);
    let (public_key, private_key) =
        generate_key_pair(session, &mut mechanism, &mut public, &mut private).unwrap();
    let ec_point = read(session, public_key, CKA_EC_POINT).unwrap();
    assert_eq!(&ec_point[..2], &[0x04, 0x41]);
    (private_key, ec_point[2..].to_vec())
}

/// One party's side of an exchange: what it knows of itself and of the peer.
struct Side<'a> {
    initiator: bool,
    own_id: Option<&'a [u8]>,
    peer_id: Option<&'a [u8]>,
    ephemeral: CK_OBJECT_HANDLE,
    peer_public: &'a [u8],
    peer_ephemeral: &'a [u8],
}

/// What a successful exchange gives: the key's value, and the confirmations (own, peer's).
type Exchanged = (Vec<u8>, [u8; 32], [u8; 32]);

/// `C_DeriveKey` with `CKM_REGULA_SM2_KEY_EXCHANGE` on the static key `base` into a readable
/// generic secret of `len` bytes.
fn exchange(
    session: CK_SESSION_HANDLE,
    base: CK_OBJECT_HANDLE,
    side: &Side,
    len: CK_ULONG,
) -> Result<Exchanged, CK_RV> {
    let (class, key_type) = (CKO_SECRET_KEY, CKK_GENERIC_SECRET);
    let mut template = [
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
        attribute(CKA_VALUE_LEN, &len),
        attribute(CKA_SENSITIVE, &FALSE),
        attribute(CKA_EXTRACTABLE, &TRUE),
    ];
    let (key, confirmation, peer_confirmation) = derive(session, base, side, &mut template)?;
    Ok((
        read(session, key, CKA_VALUE).unwrap(),
        confirmation,
        peer_confirmation,
    ))
}

/// `C_DeriveKey` with the side's parameter and `template`: the key's handle and the two
/// confirmations written (a buffer no one writes stays 0xee).
fn derive(
    session: CK_SESSION_HANDLE,
    base: CK_OBJECT_HANDLE,
    side: &Side,
    template: &mut [CK_ATTRIBUTE],
) -> Result<(CK_OBJECT_HANDLE, [u8; 32], [u8; 32]), CK_RV> {
    let (mut confirmation, mut peer_confirmation) = ([0xee; 32], [0xee; 32]);
    let id = |id: Option<&[u8]>| match id {
        Some(id) => (id.as_ptr().cast_mut(), id.len() as CK_ULONG),
        None => (null_mut(), 0),
    };
    let ((own_id, own_id_len), (peer_id, peer_id_len)) = (id(side.own_id), id(side.peer_id));
    let mut params = CK_REGULA_SM2_KEY_EXCHANGE_PARAMS {
        isInitiator: if side.initiator { TRUE } else { FALSE },
        pOwnId: own_id,
        ulOwnIdLen: own_id_len,
        pPeerId: peer_id,
        ulPeerIdLen: peer_id_len,
        hOwnEphemeralKey: side.ephemeral,
        pPeerPublicKey: side.peer_public.as_ptr().cast_mut(),
        ulPeerPublicKeyLen: side.peer_public.len() as CK_ULONG,
        pPeerEphemeralKey: side.peer_ephemeral.as_ptr().cast_mut(),
        ulPeerEphemeralKeyLen: side.peer_ephemeral.len() as CK_ULONG,
        pConfirmation: confirmation.as_mut_ptr(),
        pPeerConfirmation: peer_confirmation.as_mut_ptr(),
    };
    let mut mechanism = with_param(CKM_REGULA_SM2_KEY_EXCHANGE, &mut params);
    let key = derive_key(session, &mut mechanism, base, template)?;
    Ok((key, confirmation, peer_confirmation))
}

fn initiator_side(ephemeral: CK_OBJECT_HANDLE) -> Side<'static> {
    Side {
        initiator: true,
        own_id: Some(ID_A),
        peer_id: Some(ID_B),
        ephemeral,
        peer_public: &P_B,
        peer_ephemeral: &EPHEMERAL_B,
    }
}

fn responder_side(ephemeral: CK_OBJECT_HANDLE) -> Side<'static> {
    Side {
        initiator: false,
        own_id: Some(ID_B),
        peer_id: Some(ID_A),
        ephemeral,
        peer_public: &P_A,
        peer_ephemeral: &EPHEMERAL_A,
    }
}

#[test]
fn both_roles_derive_the_independent_key_and_confirmations() {
    with_token(|_| {
        let session = open(GM);
        let (a, r_a) = (private_key(session, &D_A), private_key(session, &R_A));
        let (b, r_b) = (private_key(session, &D_B), private_key(session, &R_B));
        // The initiator sends S_A and expects S_B; the responder the other way round.
        assert_eq!(
            exchange(session, a, &initiator_side(r_a), 16),
            Ok((KEY.to_vec(), S_A, S_B))
        );
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        assert_eq!(
            exchange(session, b, &responder_side(r_b), 16),
            Ok((KEY.to_vec(), S_B, S_A))
        );
        assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        // The key's length is the template's; a peer point as a DER OCTET STRING is taken too.
        let ec_point = [&[0x04, 0x41][..], &EPHEMERAL_B].concat();
        let side = Side {
            peer_ephemeral: &ec_point,
            ..initiator_side(r_a)
        };
        let (key, _, _) = exchange(session, a, &side, 8).unwrap();
        assert_eq!(key, KEY[..8]);
    });
}

#[test]
fn the_standards_worked_example_with_default_ids_gives_its_key_and_confirmations() {
    use annex_b::*;
    with_token(|_| {
        let session = open(GM);
        let (a, r_a) = (private_key(session, &D_A), private_key(session, &R_A));
        let (b, r_b) = (private_key(session, &D_B), private_key(session, &R_B));
        let default_id = Some(&b"1234567812345678"[..]);
        for id in [None, default_id] {
            let initiator = Side {
                initiator: true,
                own_id: id,
                peer_id: id,
                ephemeral: r_a,
                peer_public: &P_B,
                peer_ephemeral: &EPHEMERAL_B,
            };
            assert_eq!(
                exchange(session, a, &initiator, 16),
                Ok((KEY.to_vec(), S_A, S_B))
            );
            let responder = Side {
                initiator: false,
                own_id: id,
                peer_id: id,
                ephemeral: r_b,
                peer_public: &P_A,
                peer_ephemeral: &EPHEMERAL_A,
            };
            assert_eq!(
                exchange(session, b, &responder, 16),
                Ok((KEY.to_vec(), S_B, S_A))
            );
            assert_eq!(validation_flags(session), VALIDATION_FLAG_POLICY);
        }
    });
}

#[test]
fn an_sm4_key_takes_sixteen_bytes_and_null_confirmations_are_not_written() {
    with_token(|_| {
        let session = open(GM);
        let (a, r_a) = (private_key(session, &D_A), private_key(session, &R_A));
        let side = initiator_side(r_a);
        let mut params = CK_REGULA_SM2_KEY_EXCHANGE_PARAMS {
            isInitiator: TRUE,
            pOwnId: ID_A.as_ptr().cast_mut(),
            ulOwnIdLen: ID_A.len() as CK_ULONG,
            pPeerId: ID_B.as_ptr().cast_mut(),
            ulPeerIdLen: ID_B.len() as CK_ULONG,
            hOwnEphemeralKey: side.ephemeral,
            pPeerPublicKey: P_B.as_ptr().cast_mut(),
            ulPeerPublicKeyLen: 65,
            pPeerEphemeralKey: EPHEMERAL_B.as_ptr().cast_mut(),
            ulPeerEphemeralKeyLen: 65,
            pConfirmation: null_mut(),
            pPeerConfirmation: null_mut(),
        };
        let mut mechanism = with_param(CKM_REGULA_SM2_KEY_EXCHANGE, &mut params);
        let (class, key_type) = (CKO_SECRET_KEY, CKK_REGULA_SM4);
        let mut template = [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            attribute(CKA_SENSITIVE, &FALSE),
            attribute(CKA_EXTRACTABLE, &TRUE),
        ];
        let key = derive_key(session, &mut mechanism, a, &mut template).unwrap();
        assert_eq!(read(session, key, CKA_VALUE).unwrap(), KEY);
        // A generic secret needs its length.
        let generic = CKK_GENERIC_SECRET;
        template[1] = attribute(CKA_KEY_TYPE, &generic);
        assert_eq!(
            derive_key(session, &mut mechanism, a, &mut template),
            Err(CKR_TEMPLATE_INCOMPLETE)
        );
    });
}

#[test]
fn two_parties_with_token_made_ephemerals_agree_and_a_wrong_id_shows() {
    with_token(|_| {
        // Each party in its own session with its own static and ephemeral keys.
        let (alice, bob) = (open(GM), open_session(GM));
        let (a, a_public) = generate(alice);
        let (b, b_public) = generate(bob);
        let (r_a, r_a_public) = generate(alice);
        let (r_b, r_b_public) = generate(bob);
        let run = |bob_thinks_alice_is: &[u8]| {
            let initiator = Side {
                initiator: true,
                own_id: Some(b"alice"),
                peer_id: None,
                ephemeral: r_a,
                peer_public: &b_public,
                peer_ephemeral: &r_b_public,
            };
            let responder = Side {
                initiator: false,
                own_id: None,
                peer_id: Some(bob_thinks_alice_is),
                ephemeral: r_b,
                peer_public: &a_public,
                peer_ephemeral: &r_a_public,
            };
            (
                exchange(alice, a, &initiator, 32).unwrap(),
                exchange(bob, b, &responder, 32).unwrap(),
            )
        };
        let (from_alice, from_bob) = run(b"alice");
        assert_eq!(from_alice.0, from_bob.0);
        assert_eq!(from_alice.0.len(), 32);
        // Each checks what the other sent against what it expects.
        assert_eq!(from_bob.1, from_alice.2);
        assert_eq!(from_alice.1, from_bob.2);
        assert_ne!(from_alice.1, from_bob.1);
        // Bob has Alice's ID wrong: another key, and the confirmations do not match.
        let (from_alice, from_bob) = run(b"mallory");
        assert_ne!(from_alice.0, from_bob.0);
        assert_ne!(from_bob.1, from_alice.2);
        assert_ne!(from_alice.1, from_bob.2);
    });
}

#[test]
fn bad_ephemerals_points_and_parameters_are_refused() {
    with_token(|_| {
        let session = open(GM);
        let (a, r_a) = (private_key(session, &D_A), private_key(session, &R_A));
        let ok = || initiator_side(r_a);
        // The ephemeral handle: no object, not an SM2 private key, the static key itself, a
        // key without CKA_DERIVE.
        let aes = {
            let (class, key_type) = (CKO_SECRET_KEY, CKK_AES);
            let mut template = [
                attribute(CKA_CLASS, &class),
                attribute(CKA_KEY_TYPE, &key_type),
                bytes(CKA_VALUE, &[7; 16]),
                attribute(CKA_DERIVE, &TRUE),
            ];
            create_object(session, &mut template)
        };
        let p256 = {
            let mut public = [bytes(CKA_EC_PARAMS, &P256_PARAMS)];
            let mut private = [attribute(CKA_DERIVE, &TRUE)];
            let mut mechanism = mechanism(CKM_EC_KEY_PAIR_GEN);
            generate_key_pair(open(DEFAULT), &mut mechanism, &mut public, &mut private)
                .map(|(_, private)| private)
        };
        let no_derive = {
            let mut public = [bytes(CKA_EC_PARAMS, &SM2_PARAMS)];
            let mut private = [attribute(CKA_DERIVE, &FALSE)];
            let mut mechanism = mechanism(CKM_REGULA_SM2_KEY_PAIR_GEN);
            generate_key_pair(session, &mut mechanism, &mut public, &mut private)
                .unwrap()
                .1
        };
        for (ephemeral, expected) in [
            (0xdead_beef, CKR_KEY_HANDLE_INVALID),
            (aes, CKR_MECHANISM_PARAM_INVALID),
            (a, CKR_MECHANISM_PARAM_INVALID),
            (no_derive, CKR_KEY_FUNCTION_NOT_PERMITTED),
        ] {
            let side = Side { ephemeral, ..ok() };
            assert_eq!(
                exchange(session, a, &side, 16),
                Err(expected),
                "{ephemeral}"
            );
        }
        // A P-256 key on another slot is no object of this one.
        if let Ok(p256) = p256 {
            let side = Side {
                ephemeral: p256,
                ..ok()
            };
            assert_eq!(exchange(session, a, &side, 16), Err(CKR_KEY_HANDLE_INVALID));
        }
        // The base key must be an SM2 private key.
        assert_eq!(
            exchange(session, aes, &ok(), 16),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        // Peer points off the curve, of the wrong length, or not uncompressed.
        let mut off_curve = EPHEMERAL_B;
        off_curve[64] ^= 1;
        let mut off_curve_static = P_B;
        off_curve_static[64] ^= 1;
        let compressed = [&[0x02][..], &EPHEMERAL_B[1..33]].concat();
        for (peer_public, peer_ephemeral) in [
            (&P_B[..], &off_curve[..]),
            (&off_curve_static[..], &EPHEMERAL_B[..]),
            (&P_B[..], &EPHEMERAL_B[..64]),
            (&P_B[..], &compressed[..]),
            (&P_B[..], &[][..]),
        ] {
            let side = Side {
                peer_public,
                peer_ephemeral,
                ..ok()
            };
            assert_eq!(
                exchange(session, a, &side, 16),
                Err(CKR_MECHANISM_PARAM_INVALID)
            );
        }
        // An ID longer than 8191 bytes.
        let long_id = vec![b'x'; 8192];
        let side = Side {
            own_id: Some(&long_id),
            ..ok()
        };
        assert_eq!(
            exchange(session, a, &side, 16),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // The parameter itself: none, of another size, a role that is not a CK_BBOOL.
        let (class, key_type, len) = (CKO_SECRET_KEY, CKK_GENERIC_SECRET, 16 as CK_ULONG);
        let mut template = [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            attribute(CKA_VALUE_LEN, &len),
        ];
        let mut none = mechanism(CKM_REGULA_SM2_KEY_EXCHANGE);
        assert_eq!(
            derive_key(session, &mut none, a, &mut template),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let mut short = [0u8; 16];
        let mut short = with_param(CKM_REGULA_SM2_KEY_EXCHANGE, &mut short);
        assert_eq!(
            derive_key(session, &mut short, a, &mut template),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        let mut params = CK_REGULA_SM2_KEY_EXCHANGE_PARAMS {
            isInitiator: 2,
            pOwnId: null_mut(),
            ulOwnIdLen: 0,
            pPeerId: null_mut(),
            ulPeerIdLen: 0,
            hOwnEphemeralKey: r_a,
            pPeerPublicKey: P_B.as_ptr().cast_mut(),
            ulPeerPublicKeyLen: 65,
            pPeerEphemeralKey: EPHEMERAL_B.as_ptr().cast_mut(),
            ulPeerEphemeralKeyLen: 65,
            pConfirmation: null_mut(),
            pPeerConfirmation: null_mut(),
        };
        let mut mechanism = with_param(CKM_REGULA_SM2_KEY_EXCHANGE, &mut params);
        assert_eq!(
            derive_key(session, &mut mechanism, a, &mut template),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        // A refused exchange writes no confirmation.
        let (mut confirmation, mut peer_confirmation) = ([0xee; 32], [0xee; 32]);
        params.isInitiator = TRUE;
        params.pPeerEphemeralKey = off_curve.as_mut_ptr();
        params.pConfirmation = confirmation.as_mut_ptr();
        params.pPeerConfirmation = peer_confirmation.as_mut_ptr();
        let mut mechanism = with_param(CKM_REGULA_SM2_KEY_EXCHANGE, &mut params);
        assert_eq!(
            derive_key(session, &mut mechanism, a, &mut template),
            Err(CKR_MECHANISM_PARAM_INVALID)
        );
        assert_eq!((confirmation, peer_confirmation), ([0xee; 32], [0xee; 32]));
    });
}

#[test]
fn the_fips_slot_refuses_the_exchange_and_gm_and_default_list_it() {
    with_token(|_| {
        for (slot, listed) in [(GM, true), (DEFAULT, true), (FIPS, false)] {
            let mut info = CK_MECHANISM_INFO {
                ulMinKeySize: 0,
                ulMaxKeySize: 0,
                flags: 0,
            };
            // SAFETY: a local.
            let rv = unsafe { C_GetMechanismInfo(slot, CKM_REGULA_SM2_KEY_EXCHANGE, &mut info) };
            if listed {
                assert_eq!(rv, CKR_OK);
                assert_eq!(info.flags & CKF_DERIVE, CKF_DERIVE);
            } else {
                assert_eq!(rv, CKR_MECHANISM_INVALID);
            }
        }
        // fips-140-3 keeps no SM2 private key, and its EC keys derive nothing with the exchange.
        let session = open(FIPS);
        let (class, key_type) = (CKO_PRIVATE_KEY, CKK_EC);
        let mut sm2 = [
            attribute(CKA_CLASS, &class),
            attribute(CKA_KEY_TYPE, &key_type),
            bytes(CKA_EC_PARAMS, &SM2_PARAMS),
            bytes(CKA_VALUE, &D_A),
        ];
        let mut handle = 0;
        // SAFETY: a template of live locals.
        let rv = unsafe { C_CreateObject(session, sm2.as_mut_ptr(), 4, &mut handle) };
        assert_eq!(rv, CKR_CURVE_NOT_SUPPORTED);
        let p256 = || {
            let mut public = [bytes(CKA_EC_PARAMS, &P256_PARAMS)];
            let mut private = [attribute(CKA_DERIVE, &TRUE)];
            let mut mechanism = mechanism(CKM_EC_KEY_PAIR_GEN);
            generate_key_pair(session, &mut mechanism, &mut public, &mut private)
                .unwrap()
                .1
        };
        let (a, r_a) = (p256(), p256());
        assert_eq!(
            exchange(session, a, &initiator_side(r_a), 16),
            Err(CKR_MECHANISM_INVALID)
        );
    });
}
