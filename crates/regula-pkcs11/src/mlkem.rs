//! ML-KEM (FIPS 203) as PKCS#11 3.2 encodes it: `CKK_ML_KEM` keys with `CKA_PARAMETER_SET`
//! `CKP_ML_KEM_768` or `CKP_ML_KEM_1024`, a public key's `CKA_VALUE` the encapsulation key, a
//! private key's the decapsulation key (FIPS 203's encodings); `C_EncapsulateKey` and
//! `C_DecapsulateKey` with `CKM_ML_KEM` give a `CKO_SECRET_KEY` holding the shared secret.
//! Token keys are kept like ML-DSA keys: the parameter set and the encapsulation key (as a
//! SubjectPublicKeyInfo) in the record, the value sealed.

#![allow(non_snake_case)]

use cryptoki_sys::*;
use regula::Algorithm;
use zeroize::Zeroizing;

use crate::object::{self, Object, Origin, TemplateAttribute};
use crate::state::{self, Library};
use crate::{guard, input, keep, ops, out, room, template, validation, visible};

/// The parameter sets of FIPS 203 this token offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MlKemSet {
    MlKem768,
    MlKem1024,
}

impl MlKemSet {
    pub const ALL: [MlKemSet; 2] = [MlKemSet::MlKem768, MlKemSet::MlKem1024];

    /// `CKA_PARAMETER_SET`.
    pub fn parameter_set(self) -> CK_ULONG {
        match self {
            MlKemSet::MlKem768 => CKP_ML_KEM_768,
            MlKemSet::MlKem1024 => CKP_ML_KEM_1024,
        }
    }

    pub fn of_parameter_set(parameter_set: CK_ULONG) -> Option<MlKemSet> {
        MlKemSet::ALL
            .into_iter()
            .find(|set| set.parameter_set() == parameter_set)
    }

    pub fn algorithm(self) -> Algorithm {
        match self {
            MlKemSet::MlKem768 => Algorithm::MlKem768,
            MlKemSet::MlKem1024 => Algorithm::MlKem1024,
        }
    }

    pub fn of_algorithm(algorithm: Algorithm) -> Option<MlKemSet> {
        MlKemSet::ALL
            .into_iter()
            .find(|set| set.algorithm() == algorithm)
    }

    /// Bytes of the encapsulation key (FIPS 203 Table 3).
    pub fn public_len(self) -> usize {
        match self {
            MlKemSet::MlKem768 => 1184,
            MlKemSet::MlKem1024 => 1568,
        }
    }

    /// The DER SubjectPublicKeyInfo before the key: `id-alg-ml-kem-*`
    /// (2.16.840.1.101.3.4.4.2-3).
    fn spki_prefix(self) -> [u8; 22] {
        let member = match self {
            MlKemSet::MlKem768 => 0x02,
            MlKemSet::MlKem1024 => 0x03,
        };
        crate::spki::nist_prefix(0x04, member, self.public_len())
    }

    /// The SubjectPublicKeyInfo of an encapsulation key.
    pub fn spki(self, public: &[u8]) -> Vec<u8> {
        crate::spki::with_prefix(&self.spki_prefix(), public)
    }

    /// The encapsulation key of a SubjectPublicKeyInfo with this parameter set.
    pub fn public_of_spki(self, spki: &[u8]) -> Option<Vec<u8>> {
        crate::spki::key_of(&self.spki_prefix(), spki, self.public_len())
    }

    /// Bytes of a ciphertext (FIPS 203 Table 3).
    pub fn ciphertext_len(self) -> usize {
        match self {
            MlKemSet::MlKem768 => 1088,
            MlKemSet::MlKem1024 => 1568,
        }
    }
}

/// Whether a template names an ML-KEM key (`CKA_KEY_TYPE` `CKK_ML_KEM`).
pub fn is_ml_kem_template(template: &[TemplateAttribute]) -> bool {
    template.iter().any(|attribute| {
        attribute.kind == CKA_KEY_TYPE && object::parse_ulong(&attribute.value) == Ok(CKK_ML_KEM)
    })
}

/// The ML-KEM attributes of a key template and the rest, which the EC template reader checks.
struct MlKemTemplate {
    set: Option<MlKemSet>,
    value: Option<Zeroizing<Vec<u8>>>,
    rest: Vec<TemplateAttribute>,
}

fn split_template(
    template: &[TemplateAttribute],
    takes_value: bool,
) -> Result<MlKemTemplate, CK_RV> {
    let mut split = MlKemTemplate {
        set: None,
        value: None,
        rest: Vec::new(),
    };
    for attribute in template {
        match attribute.kind {
            CKA_KEY_TYPE => {
                if object::parse_ulong(&attribute.value)? != CKK_ML_KEM {
                    return Err(CKR_TEMPLATE_INCONSISTENT);
                }
            }
            CKA_PARAMETER_SET => {
                let parameter_set = object::parse_ulong(&attribute.value)?;
                split.set = Some(
                    MlKemSet::of_parameter_set(parameter_set).ok_or(CKR_ATTRIBUTE_VALUE_INVALID)?,
                );
            }
            CKA_VALUE if takes_value => split.value = Some(attribute.value.clone()),
            // Read by Object::ml_kem_key, which knows them.
            CKA_ENCAPSULATE | CKA_DECAPSULATE => {}
            _ => split.rest.push(TemplateAttribute {
                kind: attribute.kind,
                value: attribute.value.clone(),
            }),
        }
    }
    Ok(split)
}

fn rv(error: regula::Error) -> CK_RV {
    ops::rv_of(&error, false)
}

/// `C_GenerateKeyPair` with `CKM_ML_KEM_KEY_PAIR_GEN`: (public, private, approved).
pub fn generate_key_pair(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    public_template: &[TemplateAttribute],
    private_template: &[TemplateAttribute],
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE, bool), CK_RV> {
    let public_split = split_template(public_template, false)?;
    let private_split = split_template(private_template, false)?;
    let set = match (public_split.set, private_split.set) {
        (Some(set), None) | (None, Some(set)) => set,
        (Some(set), Some(also)) if set == also => set,
        (None, None) => return Err(CKR_TEMPLATE_INCOMPLETE),
        _ => return Err(CKR_TEMPLATE_INCONSISTENT),
    };
    let public = object::read_pair_template(&public_split.rest, CKO_PUBLIC_KEY, false)?;
    let private = object::read_pair_template(&private_split.rest, CKO_PRIVATE_KEY, false)?;
    let (session_state, slot) = library.session_and_slot(session)?;
    let (slot_index, rw) = (session_state.slot, session_state.rw);
    if !slot.module.policy().serves(set.algorithm()) {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    let wants_login = private.private.unwrap_or(true) || public.private.unwrap_or(false);
    if wants_login && !slot.user() {
        return Err(CKR_USER_NOT_LOGGED_IN);
    }
    if (public.token || private.token) && !rw {
        return Err(CKR_SESSION_READ_ONLY);
    }
    let served = slot.module.generate_kem_key(set.algorithm()).map_err(rv)?;
    let approved = served.is_approved();
    let key = served.into_value();
    let encapsulation_key = key.encapsulation_key().map_err(rv)?;
    let decapsulation_key = key.to_bytes().map_err(rv)?;
    drop(key);
    let public_object = Object::ml_kem_key(
        slot_index,
        session,
        CKO_PUBLIC_KEY,
        &public,
        set,
        encapsulation_key.clone(),
        Zeroizing::new(encapsulation_key.clone()),
        public_template,
        true,
    )?;
    let private_object = Object::ml_kem_key(
        slot_index,
        session,
        CKO_PRIVATE_KEY,
        &private,
        set,
        encapsulation_key,
        decapsulation_key,
        private_template,
        true,
    )?;
    let (public_handle, private_handle) =
        crate::keep_pair(library, rw, public_object, private_object)?;
    Ok((public_handle, private_handle, approved))
}

/// `C_CreateObject` of an ML-KEM key: `CKA_PARAMETER_SET` and `CKA_VALUE`, the encapsulation
/// key of a public key or the decapsulation key of a private key (checked by the module).
pub fn create_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    template: &[TemplateAttribute],
    class: CK_OBJECT_CLASS,
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let split = split_template(template, true)?;
    let (Some(set), Some(value)) = (split.set, split.value) else {
        return Err(CKR_TEMPLATE_INCOMPLETE);
    };
    let pair = object::read_pair_template(&split.rest, class, false)?;
    let (session_state, slot) = library.session_and_slot(session)?;
    let (slot_index, rw) = (session_state.slot, session_state.rw);
    if !slot.module.policy().serves(set.algorithm()) {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    let private = pair.private.unwrap_or(class == CKO_PRIVATE_KEY);
    if private && !slot.user() {
        return Err(CKR_USER_NOT_LOGGED_IN);
    }
    let public = if class == CKO_PRIVATE_KEY {
        // The module checks the key and gives its encapsulation key.
        let key = slot
            .module
            .kem_key_from_bytes(set.algorithm(), &value)
            .map_err(|error| match rv(error) {
                CKR_MECHANISM_INVALID => CKR_MECHANISM_INVALID,
                _ => CKR_ATTRIBUTE_VALUE_INVALID,
            })?
            .into_value();
        let public = key.encapsulation_key().map_err(rv)?;
        if public.len() != set.public_len() {
            return Err(CKR_ATTRIBUTE_VALUE_INVALID);
        }
        public
    } else if value.len() == set.public_len() {
        value.to_vec()
    } else {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    };
    let object = Object::ml_kem_key(
        slot_index, session, class, &pair, set, public, value, template, false,
    )?;
    keep(library, rw, object)
}

/// The ML-KEM key `handle` of `class`, permitted `usage`: its set and value.
fn kem_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    handle: CK_OBJECT_HANDLE,
    class: CK_OBJECT_CLASS,
    usage: CK_ATTRIBUTE_TYPE,
) -> Result<(MlKemSet, Zeroizing<Vec<u8>>), CK_RV> {
    let key = visible(library, session, handle).map_err(|_| CKR_KEY_HANDLE_INVALID)?;
    let set = key
        .ml_kem
        .filter(|_| key.class == class)
        .ok_or(CKR_KEY_TYPE_INCONSISTENT)?;
    if !key.flag(usage) {
        return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
    }
    let value = key.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?;
    let (_, slot) = library.session_and_slot(session)?;
    if mechanism.mechanism != CKM_ML_KEM || !slot.mechanisms.contains_key(&CKM_ML_KEM) {
        return Err(CKR_MECHANISM_INVALID);
    }
    if mechanism.ulParameterLen != 0 {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    if !slot.module.policy().serves(set.algorithm()) {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    Ok((set, value))
}

/// Keeps the shared secret as a secret key of the template's type (its leftmost
/// `CKA_VALUE_LEN` bytes, all 32 when not given).
fn keep_secret(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    template: &[TemplateAttribute],
    secret: &[u8],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let origin = Origin::Derived {
        always_sensitive: false,
        never_extractable: false,
    };
    let wanted = object::read_template(template, &origin)?;
    crate::keep_shared_secret(library, session, &wanted, template, &origin, secret)
}

/// PKCS#11 3.2 `C_EncapsulateKey`: encapsulates a fresh secret to an ML-KEM public key
/// (`CKA_ENCAPSULATE`), gives the ciphertext (length query as usual) and a new secret key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_EncapsulateKey(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    public_key: CK_OBJECT_HANDLE,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    ciphertext: *mut CK_BYTE,
    ciphertext_len: *mut CK_ULONG,
    key: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's mechanism, template and handle slot.
            let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let template = unsafe { template(attributes, count) }?;
            let (set, public) = kem_key(
                library,
                session,
                mechanism,
                public_key,
                CKO_PUBLIC_KEY,
                CKA_ENCAPSULATE,
            )?;
            // SAFETY: the caller's output and its length.
            if !unsafe { room(ciphertext, ciphertext_len, set.ciphertext_len()) }? {
                return Ok(());
            }
            // SAFETY: the caller's handle slot.
            let key = unsafe { out(key) }?;
            let (_, slot) = library.session_and_slot(session)?;
            let served = slot
                .module
                .encapsulate(set.algorithm(), &public)
                .map_err(rv)?;
            let approved = served.is_approved();
            let encapsulated = served.into_value();
            *key = keep_secret(library, session, &template, &encapsulated.shared_secret)?;
            // SAFETY: as above; the room was checked.
            unsafe { crate::deliver(ciphertext, ciphertext_len, &encapsulated.ciphertext) }?;
            library.session(session)?.validation = validation(approved);
            Ok(())
        })
    })
}

/// PKCS#11 3.2 `C_DecapsulateKey`: decapsulates a ciphertext with an ML-KEM private key
/// (`CKA_DECAPSULATE`) into a new secret key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_DecapsulateKey(
    session: CK_SESSION_HANDLE,
    mechanism: *mut CK_MECHANISM,
    private_key: CK_OBJECT_HANDLE,
    attributes: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
    ciphertext: *mut CK_BYTE,
    ciphertext_len: CK_ULONG,
    key: *mut CK_OBJECT_HANDLE,
) -> CK_RV {
    guard(|| {
        state::with(|library| {
            // SAFETY: the caller's mechanism, template, ciphertext and handle slot.
            let mechanism = unsafe { mechanism.as_ref() }.ok_or(CKR_ARGUMENTS_BAD)?;
            // SAFETY: the caller's pointers, valid as the PKCS#11 standard requires.
            let template = unsafe { template(attributes, count) }?;
            // SAFETY: as above.
            let ciphertext = unsafe { input(ciphertext, ciphertext_len) }?;
            // SAFETY: as above.
            let key = unsafe { out(key) }?;
            let (set, private) = kem_key(
                library,
                session,
                mechanism,
                private_key,
                CKO_PRIVATE_KEY,
                CKA_DECAPSULATE,
            )?;
            if ciphertext.len() != set.ciphertext_len() {
                return Err(CKR_ENCRYPTED_DATA_LEN_RANGE);
            }
            let (_, slot) = library.session_and_slot(session)?;
            let decapsulation_key = slot
                .module
                .kem_key_from_bytes(set.algorithm(), &private)
                .map_err(rv)?
                .into_value();
            let served = decapsulation_key.decapsulate(ciphertext).map_err(rv)?;
            let approved = served.is_approved();
            let secret = served.into_value();
            *key = keep_secret(library, session, &template, &secret)?;
            library.session(session)?.validation = validation(approved);
            Ok(())
        })
    })
}
