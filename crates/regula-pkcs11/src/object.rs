//! Objects: secret keys (AES, SM4, generic secrets for HMAC) and EC keys, with the attributes
//! the standard gives them, and the rules for reading and changing them. A session object lives
//! in memory; a token object (`CKA_TOKEN`) is a row of the token's database ([`crate::store`]): its
//! public attributes as a record ([`Object::record`]), its value sealed apart.

use std::collections::BTreeMap;

use cryptoki_sys::*;
use zeroize::Zeroizing;

use crate::ec::Curve;
use crate::mech::{CKK_REGULA_SM4, GENERIC_SECRET_MAX};
use crate::mldsa::MlDsaSet;
use crate::mlkem::MlKemSet;

/// `CK_UNAVAILABLE_INFORMATION`.
pub const UNAVAILABLE: CK_ULONG = !0;

/// The Boolean attributes a secret key has, with their defaults when a template does not give
/// them, and whether `C_SetAttributeValue` may change them.
const BOOLEANS: [(CK_ATTRIBUTE_TYPE, bool); 14] = [
    (CKA_MODIFIABLE, true),
    (CKA_COPYABLE, true),
    (CKA_DESTROYABLE, true),
    (CKA_SENSITIVE, false),
    (CKA_EXTRACTABLE, true),
    (CKA_ENCRYPT, true),
    (CKA_DECRYPT, true),
    (CKA_SIGN, true),
    (CKA_VERIFY, true),
    (CKA_WRAP, true),
    (CKA_UNWRAP, true),
    (CKA_DERIVE, false),
    (CKA_WRAP_WITH_TRUSTED, false),
    (CKA_TRUSTED, false),
];

/// The Boolean attributes of an EC private key and their defaults: always sensitive (the token
/// gives out no private key), extractable only if the template says so.
const PRIVATE_BOOLEANS: [(CK_ATTRIBUTE_TYPE, bool); 12] = [
    (CKA_MODIFIABLE, true),
    (CKA_COPYABLE, true),
    (CKA_DESTROYABLE, true),
    (CKA_SENSITIVE, true),
    (CKA_EXTRACTABLE, false),
    (CKA_DECRYPT, false),
    (CKA_SIGN, true),
    (CKA_SIGN_RECOVER, false),
    (CKA_UNWRAP, false),
    (CKA_DERIVE, false),
    (CKA_ALWAYS_AUTHENTICATE, false),
    (CKA_WRAP_WITH_TRUSTED, false),
];

/// The Boolean attributes of an EC public key and their defaults.
const PUBLIC_BOOLEANS: [(CK_ATTRIBUTE_TYPE, bool); 8] = [
    (CKA_MODIFIABLE, true),
    (CKA_COPYABLE, true),
    (CKA_DESTROYABLE, true),
    (CKA_ENCRYPT, false),
    (CKA_VERIFY, true),
    (CKA_VERIFY_RECOVER, false),
    (CKA_WRAP, false),
    (CKA_DERIVE, false),
];

/// The Boolean attributes of an object of `class`.
fn booleans_of(class: CK_OBJECT_CLASS) -> BTreeMap<CK_ATTRIBUTE_TYPE, bool> {
    match class {
        CKO_PRIVATE_KEY => PRIVATE_BOOLEANS.into_iter().collect(),
        CKO_PUBLIC_KEY => PUBLIC_BOOLEANS.into_iter().collect(),
        _ => BOOLEANS.into_iter().collect(),
    }
}

/// Attributes the token sets and no template may.
const READ_ONLY: [CK_ATTRIBUTE_TYPE; 5] = [
    CKA_LOCAL,
    CKA_ALWAYS_SENSITIVE,
    CKA_NEVER_EXTRACTABLE,
    CKA_KEY_GEN_MECHANISM,
    CKA_VALUE_LEN,
];

/// Usage attributes that `C_SetAttributeValue` may change freely.
const SETTABLE: [CK_ATTRIBUTE_TYPE; 9] = [
    CKA_LABEL,
    CKA_ID,
    CKA_ENCRYPT,
    CKA_DECRYPT,
    CKA_SIGN,
    CKA_VERIFY,
    CKA_WRAP,
    CKA_UNWRAP,
    CKA_DERIVE,
];

/// One attribute of a template, copied out of the caller's memory.
pub struct TemplateAttribute {
    pub kind: CK_ATTRIBUTE_TYPE,
    pub value: Zeroizing<Vec<u8>>,
}

#[derive(Clone)]
pub struct Object {
    /// `CKO_SECRET_KEY`, or `CKO_PRIVATE_KEY` / `CKO_PUBLIC_KEY` (EC keys).
    pub class: CK_OBJECT_CLASS,
    /// An EC key's curve.
    pub curve: Option<Curve>,
    /// An ML-DSA key's parameter set (`CKA_PARAMETER_SET`).
    pub ml_dsa: Option<MlDsaSet>,
    /// An ML-KEM key's parameter set (`CKA_PARAMETER_SET`).
    pub ml_kem: Option<MlKemSet>,
    /// An EC key's point, uncompressed (public; kept with a private key too).
    pub point: Vec<u8>,
    pub slot: usize,
    /// The session that created it; it goes when that session closes (0: a token object).
    pub session: CK_SESSION_HANDLE,
    pub private: bool,
    /// A token object: `Some(row id)` once stored.
    pub token: bool,
    pub row: Option<i64>,
    pub key_type: CK_KEY_TYPE,
    /// `None` for a token object read while no one is logged in (the token key is not open).
    pub value: Option<Zeroizing<Vec<u8>>>,
    value_len: usize,
    label: Vec<u8>,
    id: Vec<u8>,
    booleans: BTreeMap<CK_ATTRIBUTE_TYPE, bool>,
    local: bool,
    always_sensitive: bool,
    never_extractable: bool,
    key_gen_mechanism: CK_ULONG,
}

/// What reading one attribute gives.
pub enum Read {
    Value(Vec<u8>),
    Sensitive,
    Invalid,
}

/// Whether an object (read through `read`) has every attribute of `template` with the same
/// value, as `C_FindObjects` matches (a sensitive value never matches).
pub fn matches(read: impl Fn(CK_ATTRIBUTE_TYPE) -> Read, template: &[TemplateAttribute]) -> bool {
    template.iter().all(|attribute| match read(attribute.kind) {
        Read::Value(value) => value == attribute.value.as_slice(),
        Read::Sensitive | Read::Invalid => false,
    })
}

pub fn ulong(value: CK_ULONG) -> Vec<u8> {
    value.to_ne_bytes().to_vec()
}

pub fn parse_ulong(value: &[u8]) -> Result<CK_ULONG, CK_RV> {
    <[u8; std::mem::size_of::<CK_ULONG>()]>::try_from(value)
        .map(CK_ULONG::from_ne_bytes)
        .map_err(|_| CKR_ATTRIBUTE_VALUE_INVALID)
}

pub fn parse_bool(value: &[u8]) -> Result<bool, CK_RV> {
    match value {
        [0] => Ok(false),
        [_] => Ok(true),
        _ => Err(CKR_ATTRIBUTE_VALUE_INVALID),
    }
}

/// The key lengths (bytes) a key type takes here.
fn length_allowed(key_type: CK_KEY_TYPE, len: usize) -> bool {
    match key_type {
        CKK_AES => matches!(len, 16 | 24 | 32),
        // XTS keys are two keys: AES-128 or AES-256 (key1 ‖ key2).
        CKK_AES_XTS => matches!(len, 32 | 64),
        // SM4, or SM4-XTS's two keys.
        CKK_REGULA_SM4 => matches!(len, 16 | 32),
        CKK_GENERIC_SECRET | CKK_HKDF => (1..=GENERIC_SECRET_MAX).contains(&len),
        _ => false,
    }
}

/// How a key is made: from the caller's value (`C_CreateObject`) or by the token
/// (`C_GenerateKey`, which gives the key type and length it derived from the template).
pub enum Origin {
    Created,
    Generated {
        mechanism: CK_MECHANISM_TYPE,
    },
    /// `C_DeriveKey` from a base key with these CKA_ALWAYS_SENSITIVE and CKA_NEVER_EXTRACTABLE.
    Derived {
        always_sensitive: bool,
        never_extractable: bool,
    },
    /// `C_UnwrapKey`.
    Unwrapped,
}

/// The parts of a secret-key template that decide what to make, checked: class, key type,
/// CKA_TOKEN, CKA_PRIVATE, and the value (created) or its length (generated).
pub struct KeyTemplate {
    pub key_type: Option<CK_KEY_TYPE>,
    pub value: Option<Zeroizing<Vec<u8>>>,
    pub value_len: Option<usize>,
    pub private: Option<bool>,
    pub token: bool,
}

pub fn read_template(
    template: &[TemplateAttribute],
    origin: &Origin,
) -> Result<KeyTemplate, CK_RV> {
    let mut key = KeyTemplate {
        key_type: None,
        value: None,
        value_len: None,
        private: None,
        token: false,
    };
    for attribute in template {
        let value = attribute.value.as_slice();
        match attribute.kind {
            CKA_CLASS => {
                if parse_ulong(value)? != CKO_SECRET_KEY {
                    return Err(CKR_TEMPLATE_INCONSISTENT);
                }
            }
            CKA_KEY_TYPE => key.key_type = Some(parse_ulong(value)?),
            CKA_TOKEN => key.token = parse_bool(value)?,
            CKA_PRIVATE => key.private = Some(parse_bool(value)?),
            CKA_VALUE => match origin {
                Origin::Created => key.value = Some(attribute.value.clone()),
                _ => return Err(CKR_TEMPLATE_INCONSISTENT),
            },
            CKA_VALUE_LEN => match origin {
                Origin::Created => return Err(CKR_ATTRIBUTE_READ_ONLY),
                _ => {
                    key.value_len = Some(
                        usize::try_from(parse_ulong(value)?)
                            .map_err(|_| CKR_ATTRIBUTE_VALUE_INVALID)?,
                    )
                }
            },
            // Only the SO marks a key trusted (PKCS#11 3.0 §4.4.1).
            CKA_TRUSTED if parse_bool(value)? => return Err(CKR_ATTRIBUTE_READ_ONLY),
            kind if READ_ONLY.contains(&kind) => return Err(CKR_ATTRIBUTE_READ_ONLY),
            CKA_LABEL | CKA_ID | CKA_START_DATE | CKA_END_DATE => {}
            kind if BOOLEANS.iter().any(|(known, _)| *known == kind) => {
                parse_bool(value)?;
            }
            _ => return Err(CKR_ATTRIBUTE_TYPE_INVALID),
        }
    }
    Ok(key)
}

impl Object {
    /// A secret key from a checked template and its value.
    #[allow(clippy::too_many_arguments)]
    pub fn secret_key(
        slot: usize,
        session: CK_SESSION_HANDLE,
        private: bool,
        token: bool,
        key_type: CK_KEY_TYPE,
        value: Zeroizing<Vec<u8>>,
        template: &[TemplateAttribute],
        origin: &Origin,
    ) -> Result<Object, CK_RV> {
        if !length_allowed(key_type, value.len()) {
            return Err(match origin {
                Origin::Created => CKR_ATTRIBUTE_VALUE_INVALID,
                Origin::Generated { .. } => CKR_KEY_SIZE_RANGE,
                Origin::Derived { .. } => CKR_TEMPLATE_INCONSISTENT,
                Origin::Unwrapped => CKR_WRAPPED_KEY_INVALID,
            });
        }
        let mut booleans: BTreeMap<_, _> = BOOLEANS.into_iter().collect();
        let mut object = Object {
            class: CKO_SECRET_KEY,
            curve: None,
            ml_dsa: None,
            ml_kem: None,
            point: Vec::new(),
            slot,
            session: if token { 0 } else { session },
            private,
            token,
            row: None,
            key_type,
            value_len: value.len(),
            value: Some(value),
            label: Vec::new(),
            id: Vec::new(),
            booleans: BTreeMap::new(),
            local: matches!(origin, Origin::Generated { .. }),
            always_sensitive: false,
            never_extractable: false,
            key_gen_mechanism: match origin {
                Origin::Generated { mechanism } => *mechanism,
                _ => UNAVAILABLE,
            },
        };
        for attribute in template {
            match attribute.kind {
                CKA_LABEL => object.label = attribute.value.to_vec(),
                CKA_ID => object.id = attribute.value.to_vec(),
                kind => {
                    if let Some(flag) = booleans.get_mut(&kind) {
                        *flag = parse_bool(&attribute.value)?;
                    }
                }
            }
        }
        object.booleans = booleans;
        if object.local {
            object.always_sensitive = object.flag(CKA_SENSITIVE);
            object.never_extractable = !object.flag(CKA_EXTRACTABLE);
        }
        if let Origin::Derived {
            always_sensitive,
            never_extractable,
        } = *origin
        {
            object.always_sensitive = always_sensitive && object.flag(CKA_SENSITIVE);
            object.never_extractable = never_extractable && !object.flag(CKA_EXTRACTABLE);
        }
        Ok(object)
    }

    /// `CKA_ALWAYS_SENSITIVE` and `CKA_NEVER_EXTRACTABLE`, which a derived key inherits.
    pub fn derived_origin(&self) -> Origin {
        Origin::Derived {
            always_sensitive: self.always_sensitive,
            never_extractable: self.never_extractable,
        }
    }

    pub fn flag(&self, kind: CK_ATTRIBUTE_TYPE) -> bool {
        self.booleans.get(&kind).copied().unwrap_or(false)
    }

    /// One attribute as `C_GetAttributeValue` gives it.
    pub fn read(&self, kind: CK_ATTRIBUTE_TYPE) -> Read {
        let boolean = |value: bool| Read::Value(vec![CK_BBOOL::from(value)]);
        match kind {
            CKA_CLASS => Read::Value(ulong(self.class)),
            CKA_ALWAYS_SENSITIVE | CKA_NEVER_EXTRACTABLE if self.class == CKO_PUBLIC_KEY => {
                Read::Invalid
            }
            kind if self.key_type == CKK_RSA
                && self.class != CKO_SECRET_KEY
                && crate::rsa::is_rsa_attribute(kind) =>
            {
                crate::rsa::read(self.class, &self.point, kind)
            }
            CKA_PARAMETER_SET | CKA_VALUE if self.ml_dsa.is_some() => self.read_ml_dsa(kind),
            CKA_PARAMETER_SET | CKA_VALUE if self.ml_kem.is_some() => self.read_ml_kem(kind),
            CKA_EC_PARAMS | CKA_EC_POINT | CKA_VALUE_LEN | CKA_VALUE
                if self.class != CKO_SECRET_KEY =>
            {
                self.read_ec(kind)
            }
            CKA_KEY_TYPE => Read::Value(ulong(self.key_type)),
            CKA_TOKEN => boolean(self.token),
            CKA_PRIVATE => boolean(self.private),
            CKA_LABEL => Read::Value(self.label.clone()),
            CKA_ID => Read::Value(self.id.clone()),
            CKA_START_DATE | CKA_END_DATE => Read::Value(Vec::new()),
            CKA_LOCAL => boolean(self.local),
            CKA_ALWAYS_SENSITIVE => boolean(self.always_sensitive),
            CKA_NEVER_EXTRACTABLE => boolean(self.never_extractable),
            CKA_KEY_GEN_MECHANISM => Read::Value(ulong(self.key_gen_mechanism)),
            CKA_VALUE_LEN => Read::Value(ulong(self.value_len as CK_ULONG)),
            CKA_VALUE => match &self.value {
                Some(value) if !self.flag(CKA_SENSITIVE) && self.flag(CKA_EXTRACTABLE) => {
                    Read::Value(value.to_vec())
                }
                // Not extractable, or sealed while no one is logged in.
                _ => Read::Sensitive,
            },
            kind => match self.booleans.get(&kind) {
                Some(&value) => boolean(value),
                None => Read::Invalid,
            },
        }
    }

    /// Whether the object has every attribute of `template` with the same value (a sensitive
    /// value never matches).
    pub fn matches(&self, template: &[TemplateAttribute]) -> bool {
        matches(|kind| self.read(kind), template)
    }

    /// `C_SetAttributeValue`: checks every change first, then makes them all; `so`: the SO is
    /// logged in, who alone may mark a key trusted.
    pub fn set(&mut self, template: &[TemplateAttribute], so: bool) -> Result<(), CK_RV> {
        if !self.flag(CKA_MODIFIABLE) {
            return Err(CKR_ACTION_PROHIBITED);
        }
        for attribute in template {
            match attribute.kind {
                CKA_LABEL | CKA_ID => {}
                kind if SETTABLE.contains(&kind) => {
                    if !self.booleans.contains_key(&kind) {
                        return Err(CKR_ATTRIBUTE_TYPE_INVALID);
                    }
                    parse_bool(&attribute.value)?;
                }
                // Sensitive may only become true, extractable only false.
                CKA_SENSITIVE => {
                    if !parse_bool(&attribute.value)? && self.flag(CKA_SENSITIVE) {
                        return Err(CKR_ATTRIBUTE_READ_ONLY);
                    }
                }
                CKA_EXTRACTABLE => {
                    if parse_bool(&attribute.value)? && !self.flag(CKA_EXTRACTABLE) {
                        return Err(CKR_ATTRIBUTE_READ_ONLY);
                    }
                }
                CKA_TRUSTED if so && self.booleans.contains_key(&CKA_TRUSTED) => {
                    parse_bool(&attribute.value)?;
                }
                // CKA_WRAP_WITH_TRUSTED may only become true.
                CKA_WRAP_WITH_TRUSTED => {
                    if !parse_bool(&attribute.value)? && self.flag(CKA_WRAP_WITH_TRUSTED) {
                        return Err(CKR_ATTRIBUTE_READ_ONLY);
                    }
                }
                // CKA_COPYABLE and CKA_DESTROYABLE may only become false.
                CKA_COPYABLE | CKA_DESTROYABLE => {
                    if parse_bool(&attribute.value)? && !self.flag(attribute.kind) {
                        return Err(CKR_ATTRIBUTE_READ_ONLY);
                    }
                }
                kind => {
                    return Err(match self.read(kind) {
                        Read::Invalid => CKR_ATTRIBUTE_TYPE_INVALID,
                        _ => CKR_ATTRIBUTE_READ_ONLY,
                    });
                }
            }
        }
        for attribute in template {
            match attribute.kind {
                CKA_LABEL => self.label = attribute.value.to_vec(),
                CKA_ID => self.id = attribute.value.to_vec(),
                kind => {
                    let value = parse_bool(&attribute.value)?;
                    self.booleans.insert(kind, value);
                }
            }
        }
        Ok(())
    }
}

/// The parts of a key-pair template (`C_GenerateKeyPair`, one half) that decide what to make.
pub struct PairTemplate {
    pub curve: Option<Curve>,
    /// `CKA_KEY_TYPE`, if given: `CKK_EC` or `CKK_EC_EDWARDS`.
    pub key_type: Option<CK_KEY_TYPE>,
    /// `CKA_VALUE` of a private key the caller gives (`C_CreateObject`).
    pub value: Option<Zeroizing<Vec<u8>>>,
    /// `CKA_EC_POINT` of a public key the caller gives (`C_CreateObject`).
    pub ec_point: Option<Vec<u8>>,
    pub private: Option<bool>,
    pub token: bool,
}

/// Checks one half of a key-pair template for an object of `class` (`CKO_PUBLIC_KEY` or
/// `CKO_PRIVATE_KEY`) of type `CKK_EC` or `CKK_EC_EDWARDS`; `imported`: a key the caller
/// gives, a public key with its `CKA_EC_POINT`, a private key with its `CKA_VALUE`.
pub fn read_pair_template(
    template: &[TemplateAttribute],
    class: CK_OBJECT_CLASS,
    imported: bool,
) -> Result<PairTemplate, CK_RV> {
    let booleans = booleans_of(class);
    let mut pair = PairTemplate {
        curve: None,
        key_type: None,
        value: None,
        ec_point: None,
        private: None,
        token: false,
    };
    for attribute in template {
        let value = attribute.value.as_slice();
        match attribute.kind {
            CKA_CLASS => {
                if parse_ulong(value)? != class {
                    return Err(CKR_TEMPLATE_INCONSISTENT);
                }
            }
            CKA_KEY_TYPE => {
                let key_type = parse_ulong(value)?;
                if ![CKK_EC, CKK_EC_EDWARDS].contains(&key_type) {
                    return Err(CKR_TEMPLATE_INCONSISTENT);
                }
                pair.key_type = Some(key_type);
            }
            CKA_TOKEN => pair.token = parse_bool(value)?,
            CKA_PRIVATE => pair.private = Some(parse_bool(value)?),
            CKA_EC_PARAMS => {
                pair.curve = Some(Curve::from_params(value).ok_or(CKR_CURVE_NOT_SUPPORTED)?)
            }
            // The token never gives out a private key's value.
            CKA_SENSITIVE if class == CKO_PRIVATE_KEY && !parse_bool(value)? => {
                return Err(CKR_ATTRIBUTE_VALUE_INVALID);
            }
            CKA_EC_POINT if imported && class == CKO_PUBLIC_KEY => {
                pair.ec_point = Some(value.to_vec())
            }
            CKA_VALUE if imported && class == CKO_PRIVATE_KEY => {
                pair.value = Some(attribute.value.clone())
            }
            // Only the SO marks a key trusted (PKCS#11 3.0 §4.4.1).
            CKA_TRUSTED if parse_bool(value)? => return Err(CKR_ATTRIBUTE_READ_ONLY),
            CKA_VALUE | CKA_EC_POINT => return Err(CKR_TEMPLATE_INCONSISTENT),
            kind if READ_ONLY.contains(&kind) => return Err(CKR_ATTRIBUTE_READ_ONLY),
            CKA_LABEL | CKA_ID | CKA_START_DATE | CKA_END_DATE => {}
            kind if booleans.contains_key(&kind) => {
                parse_bool(value)?;
            }
            _ => return Err(CKR_ATTRIBUTE_TYPE_INVALID),
        }
    }
    if let (Some(key_type), Some(curve)) = (pair.key_type, pair.curve)
        && key_type != curve.key_type()
    {
        return Err(CKR_TEMPLATE_INCONSISTENT);
    }
    Ok(pair)
}

impl Object {
    /// An EC key: `value` is the private key (PKCS#8) of a `CKO_PRIVATE_KEY`, the point of a
    /// `CKO_PUBLIC_KEY`; `generated`: one half of a pair the token made.
    #[allow(clippy::too_many_arguments)]
    pub fn ec_key(
        slot: usize,
        session: CK_SESSION_HANDLE,
        class: CK_OBJECT_CLASS,
        pair: &PairTemplate,
        curve: Curve,
        point: Vec<u8>,
        value: Zeroizing<Vec<u8>>,
        template: &[TemplateAttribute],
        generated: bool,
    ) -> Result<Object, CK_RV> {
        let mut object = Object {
            class,
            curve: Some(curve),
            ml_dsa: None,
            ml_kem: None,
            point,
            slot,
            session: if pair.token { 0 } else { session },
            // A private key is private unless the template says otherwise; a public key not.
            private: pair.private.unwrap_or(class == CKO_PRIVATE_KEY),
            token: pair.token,
            row: None,
            key_type: curve.key_type(),
            value_len: value.len(),
            value: Some(value),
            label: Vec::new(),
            id: Vec::new(),
            booleans: booleans_of(class),
            local: generated,
            always_sensitive: false,
            never_extractable: false,
            key_gen_mechanism: if generated {
                curve.generator()
            } else {
                UNAVAILABLE
            },
        };
        for attribute in template {
            match attribute.kind {
                CKA_LABEL => object.label = attribute.value.to_vec(),
                CKA_ID => object.id = attribute.value.to_vec(),
                kind => {
                    if let Some(flag) = object.booleans.get_mut(&kind) {
                        *flag = parse_bool(&attribute.value)?;
                    }
                }
            }
        }
        if class == CKO_PRIVATE_KEY {
            // A key the caller gave has been known outside the token.
            object.always_sensitive = generated && object.flag(CKA_SENSITIVE);
            object.never_extractable = generated && !object.flag(CKA_EXTRACTABLE);
        }
        Ok(object)
    }

    /// An ML-DSA key's parameter set, and a public key's value (FIPS 204's encoding); a
    /// private key's value is never given out.
    fn read_ml_dsa(&self, kind: CK_ATTRIBUTE_TYPE) -> Read {
        let Some(set) = self.ml_dsa else {
            return Read::Invalid;
        };
        match kind {
            CKA_PARAMETER_SET => Read::Value(ulong(set.parameter_set())),
            CKA_VALUE if self.class == CKO_PUBLIC_KEY => Read::Value(self.point.clone()),
            CKA_VALUE => Read::Sensitive,
            _ => Read::Invalid,
        }
    }

    /// An ML-DSA key: `value` is the private key (PKCS#8) of a `CKO_PRIVATE_KEY`, the encoded
    /// public key (FIPS 204) of a `CKO_PUBLIC_KEY`; `generated`: one half of a pair the token
    /// made.
    #[allow(clippy::too_many_arguments)]
    pub fn ml_dsa_key(
        slot: usize,
        session: CK_SESSION_HANDLE,
        class: CK_OBJECT_CLASS,
        pair: &PairTemplate,
        set: MlDsaSet,
        public: Vec<u8>,
        value: Zeroizing<Vec<u8>>,
        template: &[TemplateAttribute],
        generated: bool,
    ) -> Result<Object, CK_RV> {
        // The EC constructor's attribute handling, then the ML-DSA key's own type.
        let mut object = Object::ec_key(
            slot,
            session,
            class,
            pair,
            Curve::P256,
            public,
            value,
            template,
            generated,
        )?;
        object.curve = None;
        object.ml_dsa = Some(set);
        object.key_type = CKK_ML_DSA;
        object.key_gen_mechanism = if generated {
            CKM_ML_DSA_KEY_PAIR_GEN
        } else {
            UNAVAILABLE
        };
        Ok(object)
    }

    /// An RSA key: `public_key_info` its DER SubjectPublicKeyInfo (kept where an EC key keeps
    /// its point), `value` the private key (PKCS#8) of a `CKO_PRIVATE_KEY`, the
    /// SubjectPublicKeyInfo of a `CKO_PUBLIC_KEY`; `generated`: one half of a pair the token
    /// made.
    #[allow(clippy::too_many_arguments)]
    pub fn rsa_key(
        slot: usize,
        session: CK_SESSION_HANDLE,
        class: CK_OBJECT_CLASS,
        pair: &PairTemplate,
        public_key_info: Vec<u8>,
        value: Zeroizing<Vec<u8>>,
        template: &[TemplateAttribute],
        generated: bool,
    ) -> Result<Object, CK_RV> {
        // The EC constructor's attribute handling, then the RSA key's own type.
        let mut object = Object::ec_key(
            slot,
            session,
            class,
            pair,
            Curve::P256,
            public_key_info,
            value,
            template,
            generated,
        )?;
        object.curve = None;
        object.key_type = CKK_RSA;
        object.key_gen_mechanism = if generated {
            CKM_RSA_PKCS_KEY_PAIR_GEN
        } else {
            UNAVAILABLE
        };
        Ok(object)
    }

    /// An ML-KEM key's parameter set, and a public key's value (FIPS 203's encapsulation key);
    /// a private key's value is never given out.
    fn read_ml_kem(&self, kind: CK_ATTRIBUTE_TYPE) -> Read {
        let Some(set) = self.ml_kem else {
            return Read::Invalid;
        };
        match kind {
            CKA_PARAMETER_SET => Read::Value(ulong(set.parameter_set())),
            CKA_VALUE if self.class == CKO_PUBLIC_KEY => Read::Value(self.point.clone()),
            CKA_VALUE => Read::Sensitive,
            _ => Read::Invalid,
        }
    }

    /// An ML-KEM key: `value` is the decapsulation key of a `CKO_PRIVATE_KEY`, the
    /// encapsulation key of a `CKO_PUBLIC_KEY`, which encapsulates (`CKA_ENCAPSULATE`) or
    /// decapsulates (`CKA_DECAPSULATE`) unless the template says otherwise.
    #[allow(clippy::too_many_arguments)]
    pub fn ml_kem_key(
        slot: usize,
        session: CK_SESSION_HANDLE,
        class: CK_OBJECT_CLASS,
        pair: &PairTemplate,
        set: MlKemSet,
        public: Vec<u8>,
        value: Zeroizing<Vec<u8>>,
        template: &[TemplateAttribute],
        generated: bool,
    ) -> Result<Object, CK_RV> {
        let rest: Vec<TemplateAttribute> = template
            .iter()
            .filter(|attribute| ![CKA_ENCAPSULATE, CKA_DECAPSULATE].contains(&attribute.kind))
            .map(|attribute| TemplateAttribute {
                kind: attribute.kind,
                value: attribute.value.clone(),
            })
            .collect();
        let mut object = Object::ec_key(
            slot,
            session,
            class,
            pair,
            Curve::P256,
            public,
            value,
            &rest,
            generated,
        )?;
        object.curve = None;
        object.ml_kem = Some(set);
        object.key_type = CKK_ML_KEM;
        object.key_gen_mechanism = if generated {
            CKM_ML_KEM_KEY_PAIR_GEN
        } else {
            UNAVAILABLE
        };
        let usage = if class == CKO_PUBLIC_KEY {
            CKA_ENCAPSULATE
        } else {
            CKA_DECAPSULATE
        };
        object.booleans.insert(usage, true);
        for attribute in template {
            if attribute.kind == usage {
                object.booleans.insert(usage, parse_bool(&attribute.value)?);
            } else if [CKA_ENCAPSULATE, CKA_DECAPSULATE].contains(&attribute.kind) {
                return Err(CKR_ATTRIBUTE_TYPE_INVALID);
            }
        }
        Ok(object)
    }

    /// The attributes of an EC key that a secret key does not have.
    fn read_ec(&self, kind: CK_ATTRIBUTE_TYPE) -> Read {
        let Some(curve) = self.curve else {
            return Read::Invalid;
        };
        match kind {
            CKA_EC_PARAMS => Read::Value(curve.params().to_vec()),
            CKA_EC_POINT => Read::Value(curve.ec_point(&self.point)),
            // The private scalar is never given out; a public key's value is CKA_EC_POINT.
            CKA_VALUE if self.class == CKO_PRIVATE_KEY => Read::Sensitive,
            _ => Read::Invalid,
        }
    }
}

/// The attributes a record keeps, in this order after the key type.
const RECORD_ULONGS: [CK_ATTRIBUTE_TYPE; 3] = [CKA_KEY_TYPE, CKA_KEY_GEN_MECHANISM, CKA_VALUE_LEN];

/// A `CK_ULONG` as the 64 bits a record keeps whatever the platform's width.
#[allow(clippy::unnecessary_cast)] // CK_ULONG is 32 bits on some platforms
pub fn wide(value: CK_ULONG) -> u64 {
    value as u64
}

fn put(record: &mut Vec<u8>, kind: CK_ATTRIBUTE_TYPE, value: &[u8]) {
    record.extend_from_slice(&wide(kind).to_le_bytes());
    record.extend_from_slice(&(value.len() as u32).to_le_bytes());
    record.extend_from_slice(value);
}

/// The (type, value) entries of a record; `None` when it is malformed.
fn entries(mut record: &[u8]) -> Option<Vec<(CK_ATTRIBUTE_TYPE, &[u8])>> {
    let mut entries = Vec::new();
    while !record.is_empty() {
        let kind = u64::from_le_bytes(record.get(..8)?.try_into().ok()?);
        let len = u32::from_le_bytes(record.get(8..12)?.try_into().ok()?) as usize;
        let value = record.get(12..12usize.checked_add(len)?)?;
        entries.push((CK_ATTRIBUTE_TYPE::try_from(kind).ok()?, value));
        record = &record[12 + len..];
    }
    Some(entries)
}

impl Object {
    /// The public attributes of a token object as stored (a list of type, length, value; the
    /// numbers little-endian and 64-bit whatever the platform's `CK_ULONG`). Never the value.
    pub fn record(&self) -> Vec<u8> {
        let mut record = Vec::new();
        let ulongs = [
            self.key_type,
            self.key_gen_mechanism,
            self.value_len as CK_ULONG,
        ];
        for (kind, value) in RECORD_ULONGS.iter().zip(ulongs) {
            put(&mut record, *kind, &wide(value).to_le_bytes());
        }
        if self.class != CKO_SECRET_KEY {
            put(&mut record, CKA_CLASS, &wide(self.class).to_le_bytes());
        }
        if let Some(curve) = self.curve {
            put(&mut record, CKA_EC_PARAMS, curve.params());
            put(&mut record, CKA_EC_POINT, &self.point);
        }
        if let Some(set) = self.ml_dsa {
            put(
                &mut record,
                CKA_PARAMETER_SET,
                &wide(set.parameter_set()).to_le_bytes(),
            );
            put(&mut record, CKA_PUBLIC_KEY_INFO, &set.spki(&self.point));
        }
        if let Some(set) = self.ml_kem {
            put(
                &mut record,
                CKA_PARAMETER_SET,
                &wide(set.parameter_set()).to_le_bytes(),
            );
            put(&mut record, CKA_PUBLIC_KEY_INFO, &set.spki(&self.point));
        }
        if self.key_type == CKK_RSA && self.class != CKO_SECRET_KEY {
            put(&mut record, CKA_PUBLIC_KEY_INFO, &self.point);
        }
        put(&mut record, CKA_PRIVATE, &[u8::from(self.private)]);
        put(&mut record, CKA_LABEL, &self.label);
        put(&mut record, CKA_ID, &self.id);
        put(&mut record, CKA_LOCAL, &[u8::from(self.local)]);
        put(
            &mut record,
            CKA_ALWAYS_SENSITIVE,
            &[u8::from(self.always_sensitive)],
        );
        put(
            &mut record,
            CKA_NEVER_EXTRACTABLE,
            &[u8::from(self.never_extractable)],
        );
        for (kind, value) in &self.booleans {
            put(&mut record, *kind, &[u8::from(*value)]);
        }
        record
    }

    /// A token object from its stored record (value not yet opened); a malformed record is a
    /// device error.
    pub fn from_record(slot: usize, row: i64, record: &[u8]) -> Result<Object, CK_RV> {
        let entries = entries(record).ok_or(CKR_DEVICE_ERROR)?;
        // Records of secret keys (the first kind stored) carry no class.
        let class = match entries.iter().find(|(kind, _)| *kind == CKA_CLASS) {
            Some((_, value)) => <[u8; 8]>::try_from(*value)
                .ok()
                .and_then(|n| CK_ULONG::try_from(u64::from_le_bytes(n)).ok())
                .filter(|class| [CKO_PRIVATE_KEY, CKO_PUBLIC_KEY].contains(class))
                .ok_or(CKR_DEVICE_ERROR)?,
            None => CKO_SECRET_KEY,
        };
        let mut object = Object {
            class,
            curve: None,
            ml_dsa: None,
            ml_kem: None,
            point: Vec::new(),
            slot,
            session: 0,
            private: true,
            token: true,
            row: Some(row),
            key_type: UNAVAILABLE,
            value: None,
            value_len: 0,
            label: Vec::new(),
            id: Vec::new(),
            booleans: booleans_of(class),
            local: false,
            always_sensitive: false,
            never_extractable: false,
            key_gen_mechanism: UNAVAILABLE,
        };
        let flag = |value: &[u8]| match value {
            [0] => Ok(false),
            [1] => Ok(true),
            _ => Err(CKR_DEVICE_ERROR),
        };
        let number = |value: &[u8]| {
            <[u8; 8]>::try_from(value)
                .map(u64::from_le_bytes)
                .map_err(|_| CKR_DEVICE_ERROR)
                .and_then(|n| CK_ULONG::try_from(n).map_err(|_| CKR_DEVICE_ERROR))
        };
        for (kind, value) in entries {
            match kind {
                CKA_KEY_TYPE => object.key_type = number(value)?,
                CKA_KEY_GEN_MECHANISM => object.key_gen_mechanism = number(value)?,
                CKA_VALUE_LEN => {
                    object.value_len =
                        usize::try_from(number(value)?).map_err(|_| CKR_DEVICE_ERROR)?
                }
                CKA_CLASS => {}
                CKA_EC_PARAMS => {
                    object.curve = Some(Curve::from_params(value).ok_or(CKR_DEVICE_ERROR)?)
                }
                CKA_EC_POINT => object.point = value.to_vec(),
                // A post-quantum key's parameter set and public key (recorded after its key
                // type, in this order).
                CKA_PARAMETER_SET if object.key_type == CKK_ML_KEM => {
                    object.ml_kem =
                        Some(MlKemSet::of_parameter_set(number(value)?).ok_or(CKR_DEVICE_ERROR)?)
                }
                CKA_PARAMETER_SET => {
                    object.ml_dsa =
                        Some(MlDsaSet::of_parameter_set(number(value)?).ok_or(CKR_DEVICE_ERROR)?)
                }
                // An RSA key's public key (recorded after its key type).
                CKA_PUBLIC_KEY_INFO if object.key_type == CKK_RSA => object.point = value.to_vec(),
                CKA_PUBLIC_KEY_INFO => {
                    object.point = match (object.ml_dsa, object.ml_kem) {
                        (Some(set), None) => set.public_of_spki(value),
                        (None, Some(set)) => set.public_of_spki(value),
                        _ => None,
                    }
                    .ok_or(CKR_DEVICE_ERROR)?;
                }
                // An ML-KEM key's usage flag, which other keys do not have.
                CKA_ENCAPSULATE | CKA_DECAPSULATE if object.key_type == CKK_ML_KEM => {
                    object.booleans.insert(kind, flag(value)?);
                }
                CKA_PRIVATE => object.private = flag(value)?,
                CKA_LABEL => object.label = value.to_vec(),
                CKA_ID => object.id = value.to_vec(),
                CKA_LOCAL => object.local = flag(value)?,
                CKA_ALWAYS_SENSITIVE => object.always_sensitive = flag(value)?,
                CKA_NEVER_EXTRACTABLE => object.never_extractable = flag(value)?,
                kind if object.booleans.contains_key(&kind) => {
                    object.booleans.insert(kind, flag(value)?);
                }
                _ => return Err(CKR_DEVICE_ERROR),
            }
        }
        let sound = match (class, object.curve) {
            (CKO_SECRET_KEY, None) => {
                object.ml_dsa.is_none()
                    && object.ml_kem.is_none()
                    && length_allowed(object.key_type, object.value_len)
            }
            (_, None) if object.key_type == CKK_RSA => {
                object.value_len > 0 && crate::rsa::is_rsa_spki(&object.point)
            }
            (_, None) => match (object.ml_dsa, object.ml_kem) {
                (Some(set), None) => {
                    object.key_type == CKK_ML_DSA
                        && object.value_len > 0
                        && object.point.len() == set.public_len()
                }
                (None, Some(set)) => {
                    let usage = if class == CKO_PUBLIC_KEY {
                        CKA_ENCAPSULATE
                    } else {
                        CKA_DECAPSULATE
                    };
                    object.key_type == CKK_ML_KEM
                        && object.value_len > 0
                        && object.point.len() == set.public_len()
                        && object.booleans.contains_key(&usage)
                }
                _ => false,
            },
            (_, Some(curve)) => {
                object.key_type == curve.key_type()
                    && object.value_len > 0
                    && curve.point_of_ec_point(&object.point).as_deref()
                        == Some(object.point.as_slice())
            }
        };
        if !sound {
            return Err(CKR_DEVICE_ERROR);
        }
        Ok(object)
    }

    /// Gives a token object its opened value (checked against the recorded length).
    pub fn set_value(&mut self, value: Zeroizing<Vec<u8>>) -> Result<(), CK_RV> {
        if value.len() != self.value_len {
            return Err(CKR_DEVICE_ERROR);
        }
        self.value = Some(value);
        Ok(())
    }
}
