//! `CKM_REGULA_SM2_KEY_EXCHANGE`: the SM2 key exchange protocol (GB/T 32918.3-2016 §6) through
//! one `C_DeriveKey` per party, served as `CKM_ECMQV_DERIVE` serves MQV (PKCS#11 3.x,
//! `CK_ECMQV_DERIVE_PARAMS`). The protocol has two rounds and PKCS#11 keeps no state between
//! calls of a mechanism, so the ephemeral key pair is an ordinary SM2 key pair the application
//! generates in the token first (`CKM_REGULA_SM2_KEY_PAIR_GEN`, usually session objects) and
//! sends the public point of; once it holds the peer's ephemeral point, `C_DeriveKey` on its
//! static private key with a [`CK_REGULA_SM2_KEY_EXCHANGE_PARAMS`] naming the ephemeral private
//! key gives the agreed secret key and the confirmation hashes (`S_A`, `S_B`). The module does
//! the exchange ([`regula::Module::start_sm2_key_exchange_with_ephemeral`]).

use cryptoki_sys::*;
use regula::registry::pkcs11 as names;
use regula::{Algorithm, KeyExchangeRole};
use zeroize::Zeroizing;

use crate::ec::Curve;
use crate::object::{self, Origin, TemplateAttribute};
use crate::state::Library;

/// `CKM_REGULA_SM2_KEY_EXCHANGE`'s value (regula-pkcs11.h).
pub const CKM_KEY_EXCHANGE: CK_MECHANISM_TYPE =
    names::CKM_REGULA_SM2_KEY_EXCHANGE.value as CK_MECHANISM_TYPE;

/// The length of a confirmation hash (an SM3 digest) written to `pConfirmation` and
/// `pPeerConfirmation`.
pub const CONFIRMATION_LEN: usize = 32;

/// `CKM_REGULA_SM2_KEY_EXCHANGE`'s parameter (see regula-pkcs11.h). The peer's points are
/// `04 ‖ x ‖ y` (or that in a DER OCTET STRING, as `CKA_EC_POINT` holds it); the two outputs,
/// when not NULL, receive 32 bytes each once the key is made.
#[repr(C)]
#[allow(non_snake_case, non_camel_case_types)]
#[derive(Clone, Copy, Debug)]
pub struct CK_REGULA_SM2_KEY_EXCHANGE_PARAMS {
    /// `CK_TRUE`: this side is user A (the initiator) of GB/T 32918.3; `CK_FALSE`: user B.
    pub isInitiator: CK_BBOOL,
    /// The own distinguishing ID (NULL/0: GM/T 0009's default `1234567812345678`).
    pub pOwnId: CK_BYTE_PTR,
    pub ulOwnIdLen: CK_ULONG,
    /// The peer's distinguishing ID (NULL/0: the default ID).
    pub pPeerId: CK_BYTE_PTR,
    pub ulPeerIdLen: CK_ULONG,
    /// The own ephemeral SM2 private key (`CKA_DERIVE`), generated for this exchange.
    pub hOwnEphemeralKey: CK_OBJECT_HANDLE,
    /// The peer's static public key.
    pub pPeerPublicKey: CK_BYTE_PTR,
    pub ulPeerPublicKeyLen: CK_ULONG,
    /// The peer's ephemeral public key `R`.
    pub pPeerEphemeralKey: CK_BYTE_PTR,
    pub ulPeerEphemeralKeyLen: CK_ULONG,
    /// Out, 32 bytes or NULL: the hash this side sends (`S_A` from A, `S_B` from B).
    pub pConfirmation: CK_BYTE_PTR,
    /// Out, 32 bytes or NULL: the hash the peer must send, for the caller to compare.
    pub pPeerConfirmation: CK_BYTE_PTR,
}

/// Whether `C_DeriveKey` with `mechanism` is this module's.
pub fn derives(mechanism: CK_MECHANISM_TYPE) -> bool {
    mechanism == CKM_KEY_EXCHANGE
}

/// The parameter, read and copied: the caller's memory is not read again after this.
struct Params {
    role: KeyExchangeRole,
    own_id: Vec<u8>,
    peer_id: Vec<u8>,
    ephemeral: CK_OBJECT_HANDLE,
    peer_public_key: Vec<u8>,
    peer_ephemeral: Vec<u8>,
    confirmation: CK_BYTE_PTR,
    peer_confirmation: CK_BYTE_PTR,
}

/// An ID of the parameter: its bytes, the default when empty.
///
/// # Safety
/// `data` points to `len` readable bytes when not NULL.
unsafe fn id(data: CK_BYTE_PTR, len: CK_ULONG) -> Result<Vec<u8>, CK_RV> {
    if len == 0 {
        return Ok(crate::sm2::DEFAULT_ID.to_vec());
    }
    if len as u128 > crate::sm2::MAX_ID as u128 {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: passed on from the caller.
    let id = unsafe { crate::input(data, len) }.map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    Ok(id.to_vec())
}

/// A curveSM2 point of the parameter, as `04 ‖ x ‖ y` (whether it is on the curve is the
/// module's check).
///
/// # Safety
/// `data` points to `len` readable bytes when not NULL.
unsafe fn point(data: CK_BYTE_PTR, len: CK_ULONG) -> Result<Vec<u8>, CK_RV> {
    // SAFETY: passed on from the caller.
    let encoded = unsafe { crate::input(data, len) }.map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    Curve::Sm2
        .point_of_ec_point(encoded)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)
}

/// # Safety
/// The mechanism's parameter and every buffer it points at are as long as the caller says.
unsafe fn read_params(mechanism: &CK_MECHANISM) -> Result<Params, CK_RV> {
    let raw = mechanism.pParameter;
    if raw.is_null()
        || mechanism.ulParameterLen as usize != size_of::<CK_REGULA_SM2_KEY_EXCHANGE_PARAMS>()
    {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: a CK_REGULA_SM2_KEY_EXCHANGE_PARAMS of the checked size at a non-null pointer.
    let params = unsafe {
        raw.cast::<CK_REGULA_SM2_KEY_EXCHANGE_PARAMS>()
            .read_unaligned()
    };
    let role = match params.isInitiator {
        CK_TRUE => KeyExchangeRole::Initiator,
        CK_FALSE => KeyExchangeRole::Responder,
        _ => return Err(CKR_MECHANISM_PARAM_INVALID),
    };
    // SAFETY: the buffers the parameter describes, as long as the caller says (all four).
    let own_id = unsafe { id(params.pOwnId, params.ulOwnIdLen) }?;
    // SAFETY: as above.
    let peer_id = unsafe { id(params.pPeerId, params.ulPeerIdLen) }?;
    // SAFETY: as above.
    let peer_public_key = unsafe { point(params.pPeerPublicKey, params.ulPeerPublicKeyLen) }?;
    // SAFETY: as above.
    let peer_ephemeral = unsafe { point(params.pPeerEphemeralKey, params.ulPeerEphemeralKeyLen) }?;
    Ok(Params {
        role,
        own_id,
        peer_id,
        ephemeral: params.hOwnEphemeralKey,
        peer_public_key,
        peer_ephemeral,
        confirmation: params.pConfirmation,
        peer_confirmation: params.pPeerConfirmation,
    })
}

/// An SM2 private key's PKCS#8 and what a key derived from it inherits.
struct Sm2Private {
    pkcs8: Zeroizing<Vec<u8>>,
    always_sensitive: bool,
    never_extractable: bool,
}

/// The SM2 private key `handle` the session may derive with; `not_sm2` is the code for
/// another kind of object.
fn sm2_private(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    handle: CK_OBJECT_HANDLE,
    not_sm2: CK_RV,
) -> Result<Sm2Private, CK_RV> {
    let object = crate::visible_key(library, session, handle)?;
    if object.class != CKO_PRIVATE_KEY || object.curve != Some(Curve::Sm2) {
        return Err(not_sm2);
    }
    if !object.flag(CKA_DERIVE) {
        return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
    }
    let Origin::Derived {
        always_sensitive,
        never_extractable,
    } = object.derived_origin()
    else {
        return Err(CKR_GENERAL_ERROR);
    };
    // A token key's PKCS#8 is open only while the user is logged in.
    let pkcs8 = object.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?;
    Ok(Sm2Private {
        pkcs8,
        always_sensitive,
        never_extractable,
    })
}

/// The module's refusal of the caller's parameter (a point off the curve, an ID too long) as
/// `CKR_MECHANISM_PARAM_INVALID`; the rest as the other operations answer it.
fn exchange_rv(error: regula::Error) -> CK_RV {
    match error {
        regula::Error::InvalidInput { .. }
        | regula::Error::InvalidKey { .. }
        | regula::Error::KeyEncoding(_) => CKR_MECHANISM_PARAM_INVALID,
        error => crate::ops::rv_of(&error, false),
    }
}

/// `C_DeriveKey` with `CKM_REGULA_SM2_KEY_EXCHANGE`: `base_key` is the own static SM2 private
/// key (`CKA_DERIVE`); the new secret key takes `CKA_VALUE_LEN` bytes of the exchange's output
/// (16 for an SM4 key without it). The confirmations are written once the key is made.
///
/// # Safety
/// The mechanism's parameter and every buffer it points at are as long as the caller says (the
/// standard's contract); each non-NULL confirmation pointer has 32 writable bytes.
pub unsafe fn derive(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    base_key: CK_OBJECT_HANDLE,
    template: &[TemplateAttribute],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let (_, slot) = library.session_and_slot(session)?;
    slot.mechanisms
        .get(&mechanism.mechanism)
        .filter(|info| info.flags & CKF_DERIVE != 0)
        .ok_or(CKR_MECHANISM_INVALID)?;
    // SAFETY: passed on from the caller.
    let params = unsafe { read_params(mechanism) }?;
    let own = sm2_private(library, session, base_key, CKR_KEY_TYPE_INCONSISTENT)?;
    // A static key is no ephemeral: reusing one gives the shared key away.
    if params.ephemeral == base_key {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    let ephemeral = sm2_private(
        library,
        session,
        params.ephemeral,
        CKR_MECHANISM_PARAM_INVALID,
    )?;
    let origin = Origin::Derived {
        always_sensitive: own.always_sensitive && ephemeral.always_sensitive,
        never_extractable: own.never_extractable && ephemeral.never_extractable,
    };
    let wanted = object::read_template(template, &origin)?;
    let key_type = wanted.key_type.ok_or(CKR_TEMPLATE_INCOMPLETE)?;
    let len = crate::kdf::derived_len(&wanted, key_type)?;
    let (_, slot) = library.session_and_slot(session)?;
    let exchange = slot
        .module
        .start_sm2_key_exchange_with_ephemeral(
            Algorithm::Sm2KeyExchange,
            params.role,
            &own.pkcs8,
            &params.own_id,
            &params.peer_public_key,
            &params.peer_id,
            &ephemeral.pkcs8,
        )
        .map_err(exchange_rv)?;
    let served = exchange
        .finish(&params.peer_ephemeral, len)
        .map_err(exchange_rv)?;
    let approved = served.is_approved();
    let exchanged = served.into_value();
    let handle = crate::keep_key(
        library,
        session,
        key_type,
        exchanged.key(),
        wanted.private,
        wanted.token,
        template,
        &origin,
    )?;
    for (out, hash) in [
        (params.confirmation, exchanged.confirmation()),
        (
            params.peer_confirmation,
            exchanged.expected_peer_confirmation(),
        ),
    ] {
        if !out.is_null() {
            // SAFETY: a non-NULL confirmation pointer has 32 writable bytes (the header's
            // contract), and `hash` is 32 bytes.
            unsafe { std::ptr::copy_nonoverlapping(hash.as_ptr(), out, CONFIRMATION_LEN) };
        }
    }
    library.session(session)?.validation = crate::validation(approved);
    Ok(handle)
}
