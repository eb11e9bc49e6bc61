//! ML-DSA (FIPS 204) keys and signatures as PKCS#11 3.2 encodes them: `CKK_ML_DSA` keys with
//! `CKA_PARAMETER_SET` one of `CKP_ML_DSA_44/65/87`, a public key's `CKA_VALUE` the encoded
//! public key, `CKM_ML_DSA` pure signing with an optional `CK_SIGN_ADDITIONAL_CONTEXT` (context
//! string and hedging). The module takes public keys as SubjectPublicKeyInfo and keeps private
//! keys as PKCS#8; the token seals that PKCS#8 at rest as it does an EC key's.

use cryptoki_sys::*;
use regula::{Algorithm, Module, SigningKey};
use zeroize::Zeroizing;

use crate::object::{self, Object, TemplateAttribute};
use crate::ops::{self, Done};
use crate::state::Library;

/// The parameter sets of FIPS 204.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MlDsaSet {
    MlDsa44,
    MlDsa65,
    MlDsa87,
}

impl MlDsaSet {
    pub const ALL: [MlDsaSet; 3] = [MlDsaSet::MlDsa44, MlDsaSet::MlDsa65, MlDsaSet::MlDsa87];

    /// `CKA_PARAMETER_SET`.
    pub fn parameter_set(self) -> CK_ULONG {
        match self {
            MlDsaSet::MlDsa44 => CKP_ML_DSA_44,
            MlDsaSet::MlDsa65 => CKP_ML_DSA_65,
            MlDsaSet::MlDsa87 => CKP_ML_DSA_87,
        }
    }

    pub fn of_parameter_set(parameter_set: CK_ULONG) -> Option<MlDsaSet> {
        MlDsaSet::ALL
            .into_iter()
            .find(|set| set.parameter_set() == parameter_set)
    }

    /// The module's algorithm.
    pub fn algorithm(self) -> Algorithm {
        match self {
            MlDsaSet::MlDsa44 => Algorithm::MlDsa44,
            MlDsaSet::MlDsa65 => Algorithm::MlDsa65,
            MlDsaSet::MlDsa87 => Algorithm::MlDsa87,
        }
    }

    pub fn of_algorithm(algorithm: Algorithm) -> Option<MlDsaSet> {
        MlDsaSet::ALL
            .into_iter()
            .find(|set| set.algorithm() == algorithm)
    }

    /// Bytes of the encoded public key (FIPS 204 Table 2).
    pub fn public_len(self) -> usize {
        match self {
            MlDsaSet::MlDsa44 => 1312,
            MlDsaSet::MlDsa65 => 1952,
            MlDsaSet::MlDsa87 => 2592,
        }
    }

    /// Bytes of a signature (FIPS 204 Table 2).
    pub fn signature_len(self) -> usize {
        match self {
            MlDsaSet::MlDsa44 => 2420,
            MlDsaSet::MlDsa65 => 3309,
            MlDsaSet::MlDsa87 => 4627,
        }
    }

    /// The DER SubjectPublicKeyInfo before the key: `id-ml-dsa-*` (2.16.840.1.101.3.4.3.17-19).
    fn spki_prefix(self) -> [u8; 22] {
        let member = match self {
            MlDsaSet::MlDsa44 => 0x11,
            MlDsaSet::MlDsa65 => 0x12,
            MlDsaSet::MlDsa87 => 0x13,
        };
        crate::spki::nist_prefix(0x03, member, self.public_len())
    }

    /// The SubjectPublicKeyInfo of an encoded public key.
    pub fn spki(self, public: &[u8]) -> Vec<u8> {
        crate::spki::with_prefix(&self.spki_prefix(), public)
    }

    /// The encoded public key of a SubjectPublicKeyInfo with this parameter set.
    pub fn public_of_spki(self, spki: &[u8]) -> Option<Vec<u8>> {
        crate::spki::key_of(&self.spki_prefix(), spki, self.public_len())
    }
}

/// The ML-DSA attributes of a key template (`CKA_KEY_TYPE`, `CKA_PARAMETER_SET`, a public
/// key's `CKA_VALUE`), and the rest, which the EC template reader checks (flags, label, id).
struct MlDsaTemplate {
    set: Option<MlDsaSet>,
    value: Option<Vec<u8>>,
    rest: Vec<TemplateAttribute>,
}

fn split_template(
    template: &[TemplateAttribute],
    takes_value: bool,
) -> Result<MlDsaTemplate, CK_RV> {
    let mut split = MlDsaTemplate {
        set: None,
        value: None,
        rest: Vec::new(),
    };
    for attribute in template {
        match attribute.kind {
            CKA_KEY_TYPE => {
                if object::parse_ulong(&attribute.value)? != CKK_ML_DSA {
                    return Err(CKR_TEMPLATE_INCONSISTENT);
                }
            }
            CKA_PARAMETER_SET => {
                let parameter_set = object::parse_ulong(&attribute.value)?;
                split.set = Some(
                    MlDsaSet::of_parameter_set(parameter_set).ok_or(CKR_ATTRIBUTE_VALUE_INVALID)?,
                );
            }
            CKA_VALUE if takes_value => split.value = Some(attribute.value.to_vec()),
            _ => split.rest.push(TemplateAttribute {
                kind: attribute.kind,
                value: attribute.value.clone(),
            }),
        }
    }
    Ok(split)
}

/// Whether a template names an ML-DSA key (`CKA_KEY_TYPE` `CKK_ML_DSA`).
pub fn is_ml_dsa_template(template: &[TemplateAttribute]) -> bool {
    template.iter().any(|attribute| {
        attribute.kind == CKA_KEY_TYPE && object::parse_ulong(&attribute.value) == Ok(CKK_ML_DSA)
    })
}

/// `C_GenerateKeyPair` with `CKM_ML_DSA_KEY_PAIR_GEN`: the parameter set from either template
/// (both, if given, agree), served by the slot's policy; the module runs the pairwise
/// consistency test. The handles of the public and the private key.
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
    let served = slot
        .module
        .generate_signing_key(set.algorithm(), None)
        .map_err(|error| ops::rv_of(&error, false))?;
    let approved = served.is_approved();
    let key = served.into_value();
    let pkcs8 = key
        .to_pkcs8_der()
        .map_err(|error| ops::rv_of(&error, false))?;
    let spki = key
        .public_key_der()
        .map_err(|error| ops::rv_of(&error, false))?;
    drop(key);
    let encoded = set.public_of_spki(&spki).ok_or(CKR_FUNCTION_FAILED)?;
    let public_object = Object::ml_dsa_key(
        slot_index,
        session,
        CKO_PUBLIC_KEY,
        &public,
        set,
        encoded.clone(),
        Zeroizing::new(encoded.clone()),
        public_template,
        true,
    )?;
    let private_object = Object::ml_dsa_key(
        slot_index,
        session,
        CKO_PRIVATE_KEY,
        &private,
        set,
        encoded,
        pkcs8,
        private_template,
        true,
    )?;
    let (public_handle, private_handle) =
        crate::keep_pair(library, rw, public_object, private_object)?;
    Ok((public_handle, private_handle, approved))
}

/// `C_CreateObject` of an ML-DSA public key: `CKA_PARAMETER_SET` and `CKA_VALUE` the encoded
/// public key (checked by the module when it verifies). Private keys are not imported.
pub fn create_public_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    template: &[TemplateAttribute],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let split = split_template(template, true)?;
    let (Some(set), Some(value)) = (split.set, split.value) else {
        return Err(CKR_TEMPLATE_INCOMPLETE);
    };
    if value.len() != set.public_len() {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    let public = object::read_pair_template(&split.rest, CKO_PUBLIC_KEY, false)?;
    let (session_state, slot) = library.session_and_slot(session)?;
    let (slot_index, rw) = (session_state.slot, session_state.rw);
    if !slot.module.policy().serves(set.algorithm()) {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    if public.private.unwrap_or(false) && !slot.user() {
        return Err(CKR_USER_NOT_LOGGED_IN);
    }
    let object = Object::ml_dsa_key(
        slot_index,
        session,
        CKO_PUBLIC_KEY,
        &public,
        set,
        value.clone(),
        Zeroizing::new(value),
        template,
        false,
    )?;
    crate::keep(library, rw, object)
}

/// The context string of `CKM_ML_DSA`'s optional `CK_SIGN_ADDITIONAL_CONTEXT`. The module
/// signs hedged (FIPS 204's default, with its own randomness): `CKH_HEDGE_PREFERRED` and
/// `CKH_HEDGE_REQUIRED` are served, `CKH_DETERMINISTIC_REQUIRED` is refused.
///
/// # Safety
/// `mechanism`'s parameter, if any, points to `ulParameterLen` readable bytes and its context
/// to `ulContextLen`, as the PKCS#11 standard requires.
pub unsafe fn context_of(mechanism: &CK_MECHANISM) -> Result<Vec<u8>, CK_RV> {
    if mechanism.ulParameterLen == 0 {
        return Ok(Vec::new());
    }
    let raw = mechanism.pParameter;
    if raw.is_null() || mechanism.ulParameterLen as usize != size_of::<CK_SIGN_ADDITIONAL_CONTEXT>()
    {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: the caller's parameter, of the size checked above.
    let params = unsafe { std::ptr::read_unaligned(raw as *const CK_SIGN_ADDITIONAL_CONTEXT) };
    if ![CKH_HEDGE_PREFERRED, CKH_HEDGE_REQUIRED].contains(&params.hedgeVariant) {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // FIPS 204: a context string is at most 255 bytes.
    if params.ulContextLen > 255 || (params.ulContextLen != 0 && params.pContext.is_null()) {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    if params.ulContextLen == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the caller's context string, of the length it gives.
    let context =
        unsafe { std::slice::from_raw_parts(params.pContext, params.ulContextLen as usize) };
    Ok(context.to_vec())
}

/// An ML-DSA signature being made (with the private key, imported from its PKCS#8 for the
/// operation) or checked (with the public key's SubjectPublicKeyInfo). The data is gathered and
/// signed or verified when the operation ends.
pub struct MlDsaOp {
    module: Module,
    set: MlDsaSet,
    key: MlDsaKey,
    context: Vec<u8>,
    pub data: Vec<u8>,
}

enum MlDsaKey {
    Private(SigningKey),
    Public(Vec<u8>),
}

impl MlDsaOp {
    pub fn signer(
        module: &Module,
        set: MlDsaSet,
        pkcs8: &[u8],
        context: Vec<u8>,
    ) -> Result<MlDsaOp, CK_RV> {
        let key = module
            .signing_key_from_pkcs8(set.algorithm(), pkcs8)
            .map_err(|error| ops::rv_of(&error, false))?
            .into_value();
        Ok(MlDsaOp {
            module: module.clone(),
            set,
            key: MlDsaKey::Private(key),
            context,
            data: Vec::new(),
        })
    }

    pub fn verifier(module: &Module, set: MlDsaSet, public: &[u8], context: Vec<u8>) -> MlDsaOp {
        MlDsaOp {
            module: module.clone(),
            set,
            key: MlDsaKey::Public(set.spki(public)),
            context,
            data: Vec::new(),
        }
    }

    pub fn output_len(&self) -> usize {
        self.set.signature_len()
    }

    pub fn sign(&self) -> Result<Done, CK_RV> {
        let MlDsaKey::Private(key) = &self.key else {
            return Err(CKR_OPERATION_NOT_INITIALIZED);
        };
        let served = key
            .sign_with_context(&self.data, &self.context)
            .map_err(|error| ops::rv_of(&error, false))?;
        let approved = served.is_approved();
        Ok(Done {
            output: Zeroizing::new(served.into_value()),
            approved,
        })
    }

    /// Checks `signature`; `Ok(approved)` when it verifies.
    pub fn verify(&self, signature: &[u8]) -> Result<bool, CK_RV> {
        let MlDsaKey::Public(spki) = &self.key else {
            return Err(CKR_OPERATION_NOT_INITIALIZED);
        };
        if signature.len() != self.set.signature_len() {
            return Err(CKR_SIGNATURE_LEN_RANGE);
        }
        self.module
            .verify_with_context(
                self.set.algorithm(),
                spki,
                &self.data,
                &self.context,
                signature,
            )
            .map(|served| served.is_approved())
            .map_err(|error| ops::rv_of(&error, false))
    }
}

/// `C_SignInit` / `C_VerifyInit` with an ML-DSA key: a private key signs, a public key
/// verifies, with `CKM_ML_DSA` only.
pub fn sign_init(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    signs: bool,
) -> Result<ops::SignOp, CK_RV> {
    let object = crate::visible(library, session, key).map_err(|_| CKR_KEY_HANDLE_INVALID)?;
    let set = object.ml_dsa.ok_or(CKR_KEY_TYPE_INCONSISTENT)?;
    let crate::SignatureKey { pkcs8, public } = crate::signature_key(object, signs)?;
    let (_, slot) = library.session_and_slot(session)?;
    if mechanism.mechanism != CKM_ML_DSA || !slot.mechanisms.contains_key(&CKM_ML_DSA) {
        return Err(CKR_MECHANISM_INVALID);
    }
    if !slot.module.policy().serves(set.algorithm()) {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    // SAFETY: the caller's mechanism, valid as the PKCS#11 standard requires.
    let context = unsafe { context_of(mechanism) }?;
    let op = match pkcs8 {
        Some(pkcs8) => MlDsaOp::signer(&slot.module, set, &pkcs8, context)?,
        None => MlDsaOp::verifier(&slot.module, set, &public, context),
    };
    Ok(ops::SignOp::MlDsa(op))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regula::{Policy, Profile};

    #[test]
    fn the_module_public_key_is_the_spki_of_the_encoded_key() {
        let module = Module::load(Policy::builtin(Profile::Default));
        for set in MlDsaSet::ALL {
            let key = module
                .generate_signing_key(set.algorithm(), None)
                .unwrap()
                .into_value();
            let spki = key.public_key_der().unwrap();
            let public = set.public_of_spki(&spki).expect("a FIPS 204 public key");
            assert_eq!(set.spki(&public), spki);
        }
    }
}
