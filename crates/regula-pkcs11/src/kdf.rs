//! Key derivation through the module's KDF services: HKDF (`CKM_HKDF_DERIVE`) and SP 800-108
//! counter mode (`CKM_SP800_108_COUNTER_KDF`) in `C_DeriveKey`, PBKDF2 (`CKM_PKCS5_PBKD2`) in
//! `C_GenerateKey`. A slot lists each where its policy serves a registry row with that
//! mechanism; the hash a caller names picks the row, and a row the slot does not serve is a
//! parameter the slot refuses (`CKR_MECHANISM_PARAM_INVALID`). What the policy refuses of the
//! inputs (a short salt, few PBKDF2 rounds under `fips-140-3`) is refused the same way; what it
//! only flags gives a key with the validation flag clear.
//!
//! The derived key follows `C_DeriveKey`'s rules as ECDH has them: its class and type from the
//! template, its length `CKA_VALUE_LEN` (16 for an SM4 key when not given), and a base key's
//! `CKA_ALWAYS_SENSITIVE` / `CKA_NEVER_EXTRACTABLE` carried over. PBKDF2's key is a
//! generated one (`CKA_LOCAL`), a generic secret unless the template names a type.

use cryptoki_sys::*;
use regula::registry::{self, REGISTRY};
use regula::{Algorithm, Family, Module, Policy};
use zeroize::Zeroizing;

use crate::mech::{CKK_REGULA_SM4, GENERIC_SECRET_MAX};
use crate::object::{self, KeyTemplate, Origin, TemplateAttribute};
use crate::state::Library;

/// The KDF mechanism a registry row gives, with what it does here.
pub fn listed(entry: &registry::Entry) -> Option<(CK_MECHANISM_TYPE, CK_FLAGS)> {
    if entry.family != Family::Kdf {
        return None;
    }
    let mechanism = CK_MECHANISM_TYPE::from(entry.pkcs11.first()?.value);
    match mechanism {
        CKM_HKDF_DERIVE | CKM_SP800_108_COUNTER_KDF => Some((mechanism, CKF_DERIVE)),
        CKM_PKCS5_PBKD2 => Some((mechanism, CKF_GENERATE)),
        _ => None,
    }
}

/// Whether `C_DeriveKey` with `mechanism` is a KDF of this module.
pub fn derives(mechanism: CK_MECHANISM_TYPE) -> bool {
    matches!(mechanism, CKM_HKDF_DERIVE | CKM_SP800_108_COUNTER_KDF)
}

/// The row `policy` serves for the KDF `mechanism` over `hash`.
fn served_row(policy: &Policy, mechanism: CK_MECHANISM_TYPE, hash: Algorithm) -> Option<Algorithm> {
    REGISTRY
        .iter()
        .find(|entry| {
            entry.hash == Some(hash)
                && listed(entry).is_some_and(|(listed, _)| listed == mechanism)
                && policy.serves(entry.algorithm)
        })
        .map(|entry| entry.algorithm)
}

/// The algorithm of the registry row of `family` whose mechanism is `mechanism`.
fn row_of(family: Family, mechanism: CK_MECHANISM_TYPE) -> Option<&'static registry::Entry> {
    REGISTRY.iter().find(|entry| {
        entry.family == family
            && entry
                .pkcs11
                .first()
                .is_some_and(|first| CK_MECHANISM_TYPE::from(first.value) == mechanism)
    })
}

/// The hash's output length in bytes.
fn hash_len(hash: Algorithm) -> usize {
    hash.entry().sizes.output.unwrap_or(0)
}

/// A module error in a derivation: what the policy or the KDF refuses of the caller's inputs
/// is the parameter's fault.
fn kdf_rv(error: &regula::Error) -> CK_RV {
    match error {
        regula::Error::NotApproved { .. } | regula::Error::InvalidInput { .. } => {
            CKR_MECHANISM_PARAM_INVALID
        }
        error => crate::ops::rv_of(error, false),
    }
}

/// The derived key's length: `CKA_VALUE_LEN`, or an SM4 key's 16 bytes; at most the longest
/// secret the token keeps.
pub(crate) fn derived_len(wanted: &KeyTemplate, key_type: CK_KEY_TYPE) -> Result<usize, CK_RV> {
    match (wanted.value_len, key_type) {
        (Some(len), _) if (1..=GENERIC_SECRET_MAX).contains(&len) => Ok(len),
        (Some(_), _) => Err(CKR_TEMPLATE_INCONSISTENT),
        (None, CKK_REGULA_SM4) => Ok(16),
        (None, _) => Err(CKR_TEMPLATE_INCOMPLETE),
    }
}

/// A secret key's value where a KDF takes it (a base key, an HKDF salt key): its type, value
/// and what a key derived from it inherits.
struct SecretInput {
    key_type: CK_KEY_TYPE,
    value: Zeroizing<Vec<u8>>,
    origin: Origin,
}

fn secret_input(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    handle: CK_OBJECT_HANDLE,
    needs_derive: bool,
) -> Result<SecretInput, CK_RV> {
    let object = crate::visible_key(library, session, handle)?;
    if object.class != CKO_SECRET_KEY {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    if needs_derive && !object.flag(CKA_DERIVE) {
        return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
    }
    // A token key's value is open only while someone is logged in.
    let value = object.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?;
    Ok(SecretInput {
        key_type: object.key_type,
        value,
        origin: object.derived_origin(),
    })
}

/// `C_DeriveKey` with `CKM_HKDF_DERIVE` or `CKM_SP800_108_COUNTER_KDF`: the new key's handle.
///
/// # Safety
/// The mechanism's parameter and every buffer it points at are as long as the caller says (the
/// standard's contract).
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
    let base = secret_input(library, session, base_key, true)?;
    let wanted = object::read_template(template, &base.origin)?;
    let key_type = wanted.key_type.ok_or(CKR_TEMPLATE_INCOMPLETE)?;
    let (secret, approved) = if mechanism.mechanism == CKM_HKDF_DERIVE {
        // SAFETY: passed on from the caller.
        let params = unsafe { read_hkdf(mechanism) }?;
        hkdf(library, session, params, &base, &wanted, key_type)?
    } else {
        // SAFETY: passed on from the caller.
        let params = unsafe { read_kbkdf(mechanism) }?;
        let (_, slot) = library.session_and_slot(session)?;
        kbkdf(&slot.module, params, &base, derived_len(&wanted, key_type)?)?
    };
    let handle = crate::keep_key(
        library,
        session,
        key_type,
        secret,
        wanted.private,
        wanted.token,
        template,
        &base.origin,
    )?;
    library.session(session)?.validation = crate::validation(approved);
    Ok(handle)
}

// ---- HKDF -----------------------------------------------------------------------------------

/// Where HKDF's salt comes from (`ulSaltType`).
enum Salt {
    /// `CKF_HKDF_SALT_NULL`: none (RFC 5869's HashLen zeros, as HMAC pads an empty key).
    Null,
    Data(Vec<u8>),
    /// `CKF_HKDF_SALT_KEY`: a secret key's value.
    Key(CK_OBJECT_HANDLE),
}

struct HkdfParams {
    extract: bool,
    expand: bool,
    prf: CK_MECHANISM_TYPE,
    salt: Salt,
    info: Vec<u8>,
}

/// Reads `CK_HKDF_PARAMS`.
unsafe fn read_hkdf(mechanism: &CK_MECHANISM) -> Result<HkdfParams, CK_RV> {
    let raw = mechanism.pParameter;
    if raw.is_null() || mechanism.ulParameterLen as usize != size_of::<CK_HKDF_PARAMS>() {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: a CK_HKDF_PARAMS of the checked size at a non-null pointer.
    let params = unsafe { raw.cast::<CK_HKDF_PARAMS>().read_unaligned() };
    let (extract, expand) = (params.bExtract != 0, params.bExpand != 0);
    if !extract && !expand {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    let salt = if !extract {
        // The salt takes no part in expansion alone.
        Salt::Null
    } else {
        match params.ulSaltType {
            CKF_HKDF_SALT_NULL => Salt::Null,
            CKF_HKDF_SALT_DATA if params.ulSaltLen > 0 => {
                // SAFETY: the salt the parameters describe.
                let salt = unsafe { crate::input(params.pSalt, params.ulSaltLen) }
                    .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
                Salt::Data(salt.to_vec())
            }
            CKF_HKDF_SALT_KEY => Salt::Key(params.hSaltKey),
            _ => return Err(CKR_MECHANISM_PARAM_INVALID),
        }
    };
    // SAFETY: the info the parameters describe.
    let info = unsafe { crate::input(params.pInfo, params.ulInfoLen) }
        .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    Ok(HkdfParams {
        extract,
        expand,
        prf: params.prfHashMechanism,
        salt,
        info: info.to_vec(),
    })
}

/// Runs HKDF: extract and expand, extract alone (the key is the HashLen-byte PRK) or expand
/// alone (the base key is the PRK). The secret and whether the policy approved.
fn hkdf(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    params: HkdfParams,
    base: &SecretInput,
    wanted: &KeyTemplate,
    key_type: CK_KEY_TYPE,
) -> Result<(Zeroizing<Vec<u8>>, bool), CK_RV> {
    if !matches!(base.key_type, CKK_GENERIC_SECRET | CKK_HKDF) {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    let salt = match params.salt {
        Salt::Null => Zeroizing::new(Vec::new()),
        Salt::Data(salt) => Zeroizing::new(salt),
        Salt::Key(handle) => {
            let salt = secret_input(library, session, handle, false)
                .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
            if !matches!(salt.key_type, CKK_GENERIC_SECRET | CKK_HKDF) {
                return Err(CKR_MECHANISM_PARAM_INVALID);
            }
            salt.value
        }
    };
    let (_, slot) = library.session_and_slot(session)?;
    let hash = row_of(Family::Digest, params.prf)
        .map(|entry| entry.algorithm)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    let algorithm = served_row(slot.module.policy(), CKM_HKDF_DERIVE, hash)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    let module = &slot.module;
    let served = if params.expand {
        let len = derived_len(wanted, key_type)?;
        if params.extract {
            module.hkdf(algorithm, &base.value, &salt, &params.info, len)
        } else {
            module.hkdf_expand(algorithm, &base.value, &params.info, len)
        }
    } else {
        // The PRK is HashLen bytes: a template may say so, not ask for another length.
        if wanted.value_len.is_some_and(|len| len != hash_len(hash)) {
            return Err(CKR_TEMPLATE_INCONSISTENT);
        }
        module.hkdf_extract(algorithm, &base.value, &salt)
    }
    .map_err(|error| kdf_rv(&error))?;
    let approved = served.is_approved();
    Ok((served.into_value(), approved))
}

// ---- SP 800-108 counter mode ----------------------------------------------------------------

/// One piece of the fixed input after the counter.
enum FixedPart {
    Bytes(Vec<u8>),
    /// `CK_SP800_108_DKM_LENGTH`: L in bits, `width` bytes; `segments`: rounded up to whole
    /// PRF outputs (`CK_SP800_108_DKM_LENGTH_SUM_OF_SEGMENTS`).
    DkmLength {
        segments: bool,
        little_endian: bool,
        width: usize,
    },
}

struct KbkdfParams {
    prf: CK_MECHANISM_TYPE,
    fixed: Vec<FixedPart>,
}

/// The most data parameters one derivation takes (a guard against a wild count).
const KBKDF_PARAMS_MAX: usize = 64;

/// Reads `CK_SP800_108_KDF_PARAMS` in the one layout the module's KBKDF computes: the
/// iteration variable first, a 32-bit big-endian counter, then byte arrays and DKM lengths in
/// any order. No additional derived keys.
unsafe fn read_kbkdf(mechanism: &CK_MECHANISM) -> Result<KbkdfParams, CK_RV> {
    let raw = mechanism.pParameter;
    if raw.is_null() || mechanism.ulParameterLen as usize != size_of::<CK_SP800_108_KDF_PARAMS>() {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: a CK_SP800_108_KDF_PARAMS of the checked size at a non-null pointer.
    let params = unsafe { raw.cast::<CK_SP800_108_KDF_PARAMS>().read_unaligned() };
    let count = params.ulNumberOfDataParams as usize;
    if params.ulAdditionalDerivedKeys != 0
        || params.pDataParams.is_null()
        || !(1..=KBKDF_PARAMS_MAX).contains(&count)
    {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    let data_params: Vec<CK_PRF_DATA_PARAM> = (0..count)
        .map(|index| {
            // SAFETY: `count` CK_PRF_DATA_PARAMs at a non-null pointer, by the caller's
            // description; read one by one, unaligned.
            unsafe { params.pDataParams.add(index).read_unaligned() }
        })
        .collect();
    /// The value of a data parameter as a `T`, checked for its size.
    unsafe fn value_as<T>(param: &CK_PRF_DATA_PARAM) -> Result<T, CK_RV> {
        if param.pValue.is_null() || param.ulValueLen as usize != size_of::<T>() {
            return Err(CKR_MECHANISM_PARAM_INVALID);
        }
        // SAFETY: a `T` of the checked size at a non-null pointer.
        Ok(unsafe { param.pValue.cast::<T>().read_unaligned() })
    }
    let (counter, rest) = data_params
        .split_first()
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    if counter.type_ != CK_SP800_108_ITERATION_VARIABLE {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: the counter's format, as the caller describes it.
    let format = unsafe { value_as::<CK_SP800_108_COUNTER_FORMAT>(counter) }?;
    if format.bLittleEndian != 0 || format.ulWidthInBits != 32 {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    let mut fixed = Vec::with_capacity(rest.len());
    for param in rest {
        fixed.push(match param.type_ {
            CK_SP800_108_BYTE_ARRAY => {
                // SAFETY: the bytes the parameter describes.
                let bytes = unsafe { crate::input(param.pValue.cast::<u8>(), param.ulValueLen) }
                    .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
                FixedPart::Bytes(bytes.to_vec())
            }
            CK_SP800_108_DKM_LENGTH => {
                // SAFETY: the length's format, as the caller describes it.
                let format = unsafe { value_as::<CK_SP800_108_DKM_LENGTH_FORMAT>(param) }?;
                let bits = format.ulWidthInBits as usize;
                let segments = match format.dkmLengthMethod {
                    CK_SP800_108_DKM_LENGTH_SUM_OF_KEYS => false,
                    CK_SP800_108_DKM_LENGTH_SUM_OF_SEGMENTS => true,
                    _ => return Err(CKR_MECHANISM_PARAM_INVALID),
                };
                if !(8..=64).contains(&bits) || !bits.is_multiple_of(8) {
                    return Err(CKR_MECHANISM_PARAM_INVALID);
                }
                FixedPart::DkmLength {
                    segments,
                    little_endian: format.bLittleEndian != 0,
                    width: bits / 8,
                }
            }
            // A second counter, the optional counter of the other modes, a key handle.
            _ => return Err(CKR_MECHANISM_PARAM_INVALID),
        });
    }
    Ok(KbkdfParams {
        prf: params.prfType,
        fixed,
    })
}

/// Runs the counter-mode KDF for `len` bytes: the fixed input is the parts after the counter,
/// which the module puts first.
fn kbkdf(
    module: &Module,
    params: KbkdfParams,
    base: &SecretInput,
    len: usize,
) -> Result<(Zeroizing<Vec<u8>>, bool), CK_RV> {
    if base.key_type != CKK_GENERIC_SECRET {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    // The PRF names an HMAC row; its hash picks the KBKDF row (no CMAC row is served).
    let hash = row_of(Family::Mac, params.prf)
        .and_then(|entry| entry.hash)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    let algorithm = served_row(module.policy(), CKM_SP800_108_COUNTER_KDF, hash)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    let segment = hash_len(hash);
    let mut fixed_input = Vec::new();
    for part in &params.fixed {
        match part {
            FixedPart::Bytes(bytes) => fixed_input.extend_from_slice(bytes),
            FixedPart::DkmLength {
                segments,
                little_endian,
                width,
            } => {
                let bytes = if *segments {
                    len.div_ceil(segment) * segment
                } else {
                    len
                };
                let bits = (bytes as u64) * 8;
                if *width < 8 && bits >> (8 * width) != 0 {
                    return Err(CKR_MECHANISM_PARAM_INVALID);
                }
                let encoded = if *little_endian {
                    bits.to_le_bytes()[..*width].to_vec()
                } else {
                    bits.to_be_bytes()[8 - width..].to_vec()
                };
                fixed_input.extend_from_slice(&encoded);
            }
        }
    }
    let served = module
        .kbkdf(algorithm, &base.value, &fixed_input, len)
        .map_err(|error| kdf_rv(&error))?;
    let approved = served.is_approved();
    Ok((served.into_value(), approved))
}

// ---- PBKDF2 ---------------------------------------------------------------------------------

/// PBKDF2's PRFs (`CKP_PKCS5_PBKD2_HMAC_*`) and the digest mechanism of each one's hash; the
/// registry's rows decide which are served.
const PBKDF2_PRFS: [(CK_ULONG, CK_MECHANISM_TYPE); 7] = [
    (CKP_PKCS5_PBKD2_HMAC_SHA1, CKM_SHA_1),
    (CKP_PKCS5_PBKD2_HMAC_SHA224, CKM_SHA224),
    (CKP_PKCS5_PBKD2_HMAC_SHA256, CKM_SHA256),
    (CKP_PKCS5_PBKD2_HMAC_SHA384, CKM_SHA384),
    (CKP_PKCS5_PBKD2_HMAC_SHA512, CKM_SHA512),
    (CKP_PKCS5_PBKD2_HMAC_SHA512_224, CKM_SHA512_224),
    (CKP_PKCS5_PBKD2_HMAC_SHA512_256, CKM_SHA512_256),
];

/// The longest password taken. It also tells the two parameter structures apart: their last
/// field is the password's length in `CK_PKCS5_PBKD2_PARAMS2` and a pointer to it in the older
/// `CK_PKCS5_PBKD2_PARAMS`, and no process maps memory this low.
const PASSWORD_MAX: CK_ULONG = 1 << 20;

struct Pbkdf2Params {
    salt: Vec<u8>,
    iterations: u32,
    prf: CK_ULONG,
    password: Zeroizing<Vec<u8>>,
}

/// Reads `CK_PKCS5_PBKD2_PARAMS2`, or the older `CK_PKCS5_PBKD2_PARAMS` whose `ulPasswordLen`
/// points at the length (same size; see [`PASSWORD_MAX`]).
unsafe fn read_pbkdf2(mechanism: &CK_MECHANISM) -> Result<Pbkdf2Params, CK_RV> {
    let raw = mechanism.pParameter;
    if raw.is_null() || mechanism.ulParameterLen as usize != size_of::<CK_PKCS5_PBKD2_PARAMS2>() {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: a structure of the checked size at a non-null pointer.
    let params = unsafe { raw.cast::<CK_PKCS5_PBKD2_PARAMS2>().read_unaligned() };
    let password_len = if params.ulPasswordLen <= PASSWORD_MAX {
        params.ulPasswordLen
    } else {
        let pointer = std::ptr::with_exposed_provenance::<CK_ULONG>(params.ulPasswordLen as usize);
        // SAFETY: in a CK_PKCS5_PBKD2_PARAMS the field points at the password's length.
        let len = unsafe { pointer.read_unaligned() };
        if len > PASSWORD_MAX {
            return Err(CKR_MECHANISM_PARAM_INVALID);
        }
        len
    };
    if params.saltSource != CKZ_SALT_SPECIFIED || params.ulPrfDataLen != 0 {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: the salt the parameters describe.
    let salt = unsafe {
        crate::input(
            params.pSaltSourceData.cast::<u8>(),
            params.ulSaltSourceDataLen,
        )
    }
    .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    // SAFETY: the password the parameters describe.
    let password = unsafe { crate::input(params.pPassword, password_len) }
        .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    let iterations = u32::try_from(params.iterations)
        .ok()
        .filter(|&iterations| iterations > 0)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    Ok(Pbkdf2Params {
        salt: salt.to_vec(),
        iterations,
        prf: params.prf,
        password: Zeroizing::new(password.to_vec()),
    })
}

/// `C_GenerateKey` with `CKM_PKCS5_PBKD2`: the new key's handle.
///
/// # Safety
/// As for [`derive`].
pub unsafe fn generate_pbkdf2(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    template: &[TemplateAttribute],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let (_, slot) = library.session_and_slot(session)?;
    slot.mechanisms
        .get(&mechanism.mechanism)
        .filter(|info| info.flags & CKF_GENERATE != 0)
        .ok_or(CKR_MECHANISM_INVALID)?;
    // SAFETY: passed on from the caller.
    let params = unsafe { read_pbkdf2(mechanism) }?;
    let origin = Origin::Generated {
        mechanism: CKM_PKCS5_PBKD2,
    };
    let wanted = object::read_template(template, &origin)?;
    let key_type = wanted.key_type.unwrap_or(CKK_GENERIC_SECRET);
    let len = derived_len(&wanted, key_type)?;
    let hash = PBKDF2_PRFS
        .iter()
        .find(|(prf, _)| *prf == params.prf)
        .and_then(|(_, digest)| row_of(Family::Digest, *digest))
        .map(|entry| entry.algorithm)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    let algorithm = served_row(slot.module.policy(), CKM_PKCS5_PBKD2, hash)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    let served = slot
        .module
        .pbkdf2(
            algorithm,
            &params.password,
            &params.salt,
            params.iterations,
            len,
        )
        .map_err(|error| kdf_rv(&error))?;
    let approved = served.is_approved();
    let handle = crate::keep_key(
        library,
        session,
        key_type,
        served.into_value(),
        wanted.private,
        wanted.token,
        template,
        &origin,
    )?;
    library.session(session)?.validation = crate::validation(approved);
    Ok(handle)
}
