//! PKCS#11 3.2 validation objects (`CKO_VALIDATION`): what the slot's validation flag means.
//! A slot whose policy follows a validation scheme (the core's [`regula::Profile::validation`]:
//! FIPS 140-3 for `fips-140-3`, GM/T 0028 for `gm`) shows one read-only token object describing
//! it; its `CKA_VALIDATION_FLAG` is the bit `C_GetSessionValidationFlags` sets after an
//! operation the policy approved ([`VALIDATION_FLAG_POLICY`]). Regula holds no certificate of
//! its own, so the certificate identifier and URIs are empty (the standard makes them optional).

use cryptoki_sys::*;
use regula::{Policy, Validation, ValidationAuthority};

use crate::object::{self, Read, TemplateAttribute, matches};
use crate::state::VALIDATION_FLAG_POLICY;

pub struct ValidationObject {
    pub slot: usize,
    scheme: Validation,
    /// The policy's name, as the slot runs it (`CKA_VALIDATION_PROFILE`).
    policy: String,
}

impl ValidationObject {
    /// The slot's validation object, when its policy follows a validation scheme.
    pub fn for_slot(slot: usize, policy: &Policy) -> Option<ValidationObject> {
        Some(ValidationObject {
            slot,
            scheme: policy.profile().validation()?,
            policy: policy.name().to_string(),
        })
    }

    /// One attribute as `C_GetAttributeValue` gives it.
    pub fn read(&self, kind: CK_ATTRIBUTE_TYPE) -> Read {
        let ulong = |value: CK_ULONG| Read::Value(object::ulong(value));
        let boolean = |value: bool| Read::Value(vec![CK_BBOOL::from(value)]);
        let text = |value: &str| Read::Value(value.as_bytes().to_vec());
        match kind {
            CKA_CLASS => ulong(CKO_VALIDATION),
            CKA_TOKEN => boolean(true),
            CKA_PRIVATE | CKA_MODIFIABLE | CKA_COPYABLE | CKA_DESTROYABLE => boolean(false),
            CKA_LABEL => text(self.scheme.standard),
            CKA_VALIDATION_TYPE => ulong(CKV_TYPE_SOFTWARE),
            CKA_VALIDATION_VERSION => {
                Read::Value(vec![self.scheme.version.0, self.scheme.version.1])
            }
            CKA_VALIDATION_LEVEL => ulong(CK_ULONG::from(self.scheme.level)),
            CKA_VALIDATION_MODULE_ID => text(&format!(
                "Regula {} ({} policy)",
                env!("CARGO_PKG_VERSION"),
                self.policy
            )),
            CKA_VALIDATION_FLAG => ulong(VALIDATION_FLAG_POLICY),
            CKA_VALIDATION_AUTHORITY_TYPE => ulong(match self.scheme.authority {
                ValidationAuthority::NistCmvp => CKV_AUTHORITY_TYPE_NIST_CMVP,
                _ => CKV_AUTHORITY_TYPE_UNSPECIFIED,
            }),
            CKA_VALIDATION_COUNTRY => text(self.scheme.country),
            CKA_VALIDATION_CERTIFICATE_IDENTIFIER
            | CKA_VALIDATION_CERTIFICATE_URI
            | CKA_VALIDATION_VENDOR_URI => Read::Value(Vec::new()),
            CKA_VALIDATION_PROFILE => text(&self.policy),
            _ => Read::Invalid,
        }
    }

    pub fn matches(&self, template: &[TemplateAttribute]) -> bool {
        matches(|kind| self.read(kind), template)
    }
}
