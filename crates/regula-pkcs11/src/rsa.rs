//! RSA keys and signatures as PKCS#11 encodes them (3.0 §2.1): `CKK_RSA` keys with
//! `CKA_MODULUS`, `CKA_MODULUS_BITS` and `CKA_PUBLIC_EXPONENT` (big-endian), signatures of the
//! modulus' length with PKCS#1 v1.5 (`CKM_SHA256_RSA_PKCS`, …) or PSS (`CKM_SHA256_RSA_PKCS_PSS`,
//! …, with `CK_RSA_PKCS_PSS_PARAMS`). The mechanisms are the registry rows' (their first PKCS#11
//! name), listed where the slot's policy serves the row.
//!
//! The module takes public keys as DER SubjectPublicKeyInfo and keeps private keys as PKCS#8
//! (RFC 8017 `RSAPrivateKey`); the token keeps an RSA key's SubjectPublicKeyInfo where an EC
//! key keeps its point, and seals the private key's PKCS#8 at rest as it does an EC key's. This
//! file only encodes and decodes DER; every RSA computation is the module's.

use cryptoki_sys::*;
use regula::registry::{self, REGISTRY};
use regula::{Algorithm, Module, Policy, SigningKey};
use zeroize::Zeroizing;

use crate::object::{self, Object, Read, TemplateAttribute};
use crate::ops::{self, Done};
use crate::state::Library;

/// The moduli the token makes (and lists), where the policy allows them.
pub const MODULUS_BITS: [usize; 3] = [2048, 3072, 4096];
/// The one public exponent the token makes keys with: F4 = 65537.
const F4: [u8; 3] = [0x01, 0x00, 0x01];
/// The largest modulus the token takes from a caller (the module's own bound).
const MAX_IMPORTED_BITS: usize = 8192;

/// `rsaEncryption` (1.2.840.113549.1.1.1) with its NULL parameters: a DER AlgorithmIdentifier.
const RSA_ALGORITHM: [u8; 15] = [
    0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
];

/// The RSA signature algorithms of the module, and whether each pads with PSS.
const SCHEMES: [(Algorithm, bool); 6] = [
    (Algorithm::RsaPkcs1Sha256, false),
    (Algorithm::RsaPkcs1Sha384, false),
    (Algorithm::RsaPkcs1Sha512, false),
    (Algorithm::RsaPssSha256, true),
    (Algorithm::RsaPssSha384, true),
    (Algorithm::RsaPssSha512, true),
];

fn is_rsa_signature(algorithm: Algorithm) -> bool {
    SCHEMES.iter().any(|(scheme, _)| *scheme == algorithm)
}

fn is_pss(algorithm: Algorithm) -> bool {
    SCHEMES.contains(&(algorithm, true))
}

/// The PSS parameters a mechanism of `algorithm` must carry: its own hash, MGF1 with that hash
/// and a salt as long as the hash (what the module signs and verifies with).
fn pss_params(algorithm: Algorithm) -> Option<(CK_MECHANISM_TYPE, CK_ULONG, usize)> {
    match algorithm.entry().hash? {
        Algorithm::Sha256 => Some((CKM_SHA256, CKG_MGF1_SHA256, 32)),
        Algorithm::Sha384 => Some((CKM_SHA384, CKG_MGF1_SHA384, 48)),
        Algorithm::Sha512 => Some((CKM_SHA512, CKG_MGF1_SHA512, 64)),
        _ => None,
    }
}

/// The moduli the token makes under `policy` for `algorithm`: those within the row's limits.
fn allowed_bits(policy: &Policy, algorithm: Algorithm) -> impl Iterator<Item = usize> + '_ {
    let limits = policy.rule(algorithm).limits;
    MODULUS_BITS.into_iter().filter(move |bits| {
        let bits = *bits as u32;
        limits.min_key_bits.is_none_or(|min| bits >= min)
            && limits.max_key_bits.is_none_or(|max| bits <= max)
    })
}

/// A mechanism a slot lists: its type, its key sizes (in bits for RSA) and its flags.
pub type Listed = (CK_MECHANISM_TYPE, (CK_ULONG, CK_ULONG), CK_FLAGS);

/// The mechanisms an RSA signature row adds to a slot under `policy` (mechanism, key sizes in
/// bits, flags): its signature mechanism and `CKM_RSA_PKCS_KEY_PAIR_GEN`. `None`: not an RSA
/// signature row.
pub fn mechanisms_of(policy: &Policy, entry: &registry::Entry) -> Option<Vec<Listed>> {
    if !is_rsa_signature(entry.algorithm) {
        return None;
    }
    let bits: Vec<usize> = allowed_bits(policy, entry.algorithm).collect();
    let (Some(&min), Some(&max)) = (bits.first(), bits.last()) else {
        return Some(Vec::new());
    };
    let sizes = (min as CK_ULONG, max as CK_ULONG);
    Some(
        entry
            .pkcs11
            .iter()
            .map(|mechanism| {
                let mechanism = CK_MECHANISM_TYPE::from(mechanism.value);
                let flags = if mechanism == CKM_RSA_PKCS_KEY_PAIR_GEN {
                    CKF_GENERATE_KEY_PAIR
                } else {
                    CKF_SIGN | CKF_VERIFY
                };
                (mechanism, sizes, flags)
            })
            .collect(),
    )
}

/// The module's algorithm that `mechanism` runs under `policy`.
fn resolve(policy: &Policy, mechanism: CK_MECHANISM_TYPE) -> Result<Algorithm, CK_RV> {
    REGISTRY
        .iter()
        .find(|entry| {
            is_rsa_signature(entry.algorithm)
                && policy.serves(entry.algorithm)
                && entry
                    .pkcs11
                    .first()
                    .is_some_and(|first| CK_MECHANISM_TYPE::from(first.value) == mechanism)
        })
        .map(|entry| entry.algorithm)
        .ok_or(CKR_MECHANISM_INVALID)
}

// ---- DER ----------------------------------------------------------------------------------

fn der_length(out: &mut Vec<u8>, len: usize) {
    match len {
        0..=0x7f => out.push(len as u8),
        0x80..=0xff => out.extend_from_slice(&[0x81, len as u8]),
        _ => out.extend_from_slice(&[0x82, (len >> 8) as u8, len as u8]),
    }
}

fn der_element(out: &mut Vec<u8>, tag: u8, contents: &[u8]) {
    out.push(tag);
    der_length(out, contents.len());
    out.extend_from_slice(contents);
}

/// A non-negative INTEGER from big-endian bytes: leading zeros dropped, one put back where the
/// high bit is set.
fn der_integer(out: &mut Vec<u8>, magnitude: &[u8]) {
    let digits = strip_zeros(magnitude);
    let pad = digits.first().is_none_or(|first| first & 0x80 != 0);
    out.push(0x02);
    der_length(out, digits.len() + usize::from(pad));
    if pad {
        out.push(0);
    }
    out.extend_from_slice(digits);
}

fn strip_zeros(integer: &[u8]) -> &[u8] {
    let start = integer
        .iter()
        .position(|byte| *byte != 0)
        .unwrap_or(integer.len());
    &integer[start..]
}

/// One DER element with tag `tag` at the start of `der`: its contents and what follows
/// (lengths of up to two bytes, enough for an 8192-bit modulus).
fn element(der: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&first, rest) = der.split_first()?;
    if first != tag {
        return None;
    }
    let (&len, rest) = rest.split_first()?;
    let (len, rest) = match len {
        0..=0x7f => (usize::from(len), rest),
        0x81 => {
            let (&len, rest) = rest.split_first()?;
            (usize::from(len), rest)
        }
        0x82 => {
            let (high, rest) = rest.split_first_chunk::<2>()?;
            (usize::from(u16::from_be_bytes(*high)), rest)
        }
        _ => return None,
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// The DER SubjectPublicKeyInfo of the public key (`n`, `e`), big-endian magnitudes.
pub fn spki(modulus: &[u8], exponent: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(modulus.len() + 16);
    der_integer(&mut key, modulus);
    der_integer(&mut key, exponent);
    let mut rsa_public_key = Vec::with_capacity(key.len() + 5);
    der_element(&mut rsa_public_key, 0x30, &key);
    let mut bit_string = vec![0x00];
    bit_string.extend_from_slice(&rsa_public_key);
    let mut body = RSA_ALGORITHM.to_vec();
    der_element(&mut body, 0x03, &bit_string);
    let mut spki = Vec::with_capacity(body.len() + 4);
    der_element(&mut spki, 0x30, &body);
    spki
}

/// The modulus and public exponent (big-endian, no leading zeros) of an RSA
/// SubjectPublicKeyInfo; `None` when it is not one.
pub fn parts_of_spki(spki: &[u8]) -> Option<(&[u8], &[u8])> {
    let (body, rest) = element(spki, 0x30)?;
    let (algorithm, body) = element(body, 0x30)?;
    let (bit_string, tail) = element(body, 0x03)?;
    if !rest.is_empty() || !tail.is_empty() || algorithm != &RSA_ALGORITHM[2..] {
        return None;
    }
    let (rsa_public_key, rest) = element(bit_string.strip_prefix(&[0x00])?, 0x30)?;
    let (modulus, key) = element(rsa_public_key, 0x02)?;
    let (exponent, key) = element(key, 0x02)?;
    (rest.is_empty() && key.is_empty()).then(|| (strip_zeros(modulus), strip_zeros(exponent)))
}

/// The size in bits of a big-endian magnitude.
fn bits_of(magnitude: &[u8]) -> usize {
    let digits = strip_zeros(magnitude);
    digits
        .first()
        .map_or(0, |first| 8 * digits.len() - first.leading_zeros() as usize)
}

/// The private key's PKCS#8 (RFC 5208 around RFC 8017's two-prime `RSAPrivateKey`) from its
/// CRT components, in the order of `RSAPrivateKey`: n, e, d, p, q, dP, dQ, qInv.
fn pkcs8_of_parts(parts: &[&[u8]; 8]) -> Zeroizing<Vec<u8>> {
    let capacity = parts.iter().map(|part| part.len() + 5).sum::<usize>() + 32;
    let mut key = Zeroizing::new(Vec::with_capacity(capacity));
    der_integer(&mut key, &[0]);
    for part in parts {
        der_integer(&mut key, part);
    }
    let mut rsa_private_key = Zeroizing::new(Vec::with_capacity(capacity));
    der_element(&mut rsa_private_key, 0x30, &key);
    let mut body = Zeroizing::new(Vec::with_capacity(capacity));
    der_integer(&mut body, &[0]);
    body.extend_from_slice(&RSA_ALGORITHM);
    der_element(&mut body, 0x04, &rsa_private_key);
    let mut pkcs8 = Zeroizing::new(Vec::with_capacity(capacity));
    der_element(&mut pkcs8, 0x30, &body);
    pkcs8
}

// ---- Objects --------------------------------------------------------------------------------

/// The attributes of a private key that the token never gives out.
const PRIVATE_PARTS: [CK_ATTRIBUTE_TYPE; 6] = [
    CKA_PRIVATE_EXPONENT,
    CKA_PRIME_1,
    CKA_PRIME_2,
    CKA_EXPONENT_1,
    CKA_EXPONENT_2,
    CKA_COEFFICIENT,
];

/// Whether `kind` is an RSA key's own attribute (read by [`read`]).
pub fn is_rsa_attribute(kind: CK_ATTRIBUTE_TYPE) -> bool {
    [
        CKA_MODULUS,
        CKA_MODULUS_BITS,
        CKA_PUBLIC_EXPONENT,
        CKA_PUBLIC_KEY_INFO,
    ]
    .contains(&kind)
        || PRIVATE_PARTS.contains(&kind)
}

/// One of an RSA key's own attributes, from its SubjectPublicKeyInfo; the private components
/// are sensitive.
pub fn read(class: CK_OBJECT_CLASS, spki: &[u8], kind: CK_ATTRIBUTE_TYPE) -> Read {
    let Some((modulus, exponent)) = parts_of_spki(spki) else {
        return Read::Invalid;
    };
    match kind {
        CKA_MODULUS => Read::Value(modulus.to_vec()),
        CKA_MODULUS_BITS => Read::Value(object::ulong(bits_of(modulus) as CK_ULONG)),
        CKA_PUBLIC_EXPONENT => Read::Value(exponent.to_vec()),
        CKA_PUBLIC_KEY_INFO => Read::Value(spki.to_vec()),
        kind if class == CKO_PRIVATE_KEY && PRIVATE_PARTS.contains(&kind) => Read::Sensitive,
        _ => Read::Invalid,
    }
}

/// Whether a stored RSA key's SubjectPublicKeyInfo is sound.
pub fn is_rsa_spki(spki: &[u8]) -> bool {
    parts_of_spki(spki).is_some_and(|(modulus, _)| bits_of(modulus) >= 2048)
}

/// Whether a template names an RSA key (`CKA_KEY_TYPE` `CKK_RSA`).
pub fn is_rsa_template(template: &[TemplateAttribute]) -> bool {
    template.iter().any(|attribute| {
        attribute.kind == CKA_KEY_TYPE && object::parse_ulong(&attribute.value) == Ok(CKK_RSA)
    })
}

/// The RSA attributes of a key template, and the rest, which the common template reader checks
/// (flags, label, id, token, private).
struct RsaTemplate {
    modulus_bits: Option<CK_ULONG>,
    /// `CKA_MODULUS`, `CKA_PUBLIC_EXPONENT`, then the private components, as given.
    parts: [Option<Zeroizing<Vec<u8>>>; 8],
    rest: Vec<TemplateAttribute>,
}

/// The attributes of [`RsaTemplate::parts`], in `RSAPrivateKey`'s order.
const PARTS: [CK_ATTRIBUTE_TYPE; 8] = [
    CKA_MODULUS,
    CKA_PUBLIC_EXPONENT,
    CKA_PRIVATE_EXPONENT,
    CKA_PRIME_1,
    CKA_PRIME_2,
    CKA_EXPONENT_1,
    CKA_EXPONENT_2,
    CKA_COEFFICIENT,
];

fn split_template(template: &[TemplateAttribute]) -> Result<RsaTemplate, CK_RV> {
    let mut split = RsaTemplate {
        modulus_bits: None,
        parts: Default::default(),
        rest: Vec::new(),
    };
    for attribute in template {
        if let Some(index) = PARTS.iter().position(|kind| *kind == attribute.kind) {
            split.parts[index] = Some(attribute.value.clone());
            continue;
        }
        match attribute.kind {
            CKA_KEY_TYPE => {
                if object::parse_ulong(&attribute.value)? != CKK_RSA {
                    return Err(CKR_TEMPLATE_INCONSISTENT);
                }
            }
            CKA_MODULUS_BITS => split.modulus_bits = Some(object::parse_ulong(&attribute.value)?),
            // The token computes it.
            CKA_PUBLIC_KEY_INFO => return Err(CKR_ATTRIBUTE_READ_ONLY),
            _ => split.rest.push(TemplateAttribute {
                kind: attribute.kind,
                value: attribute.value.clone(),
            }),
        }
    }
    Ok(split)
}

/// `C_GenerateKeyPair` with `CKM_RSA_PKCS_KEY_PAIR_GEN`: `CKA_MODULUS_BITS` (public template)
/// one of 2048, 3072 and 4096 within the policy's limits (else `CKR_KEY_SIZE_RANGE`),
/// `CKA_PUBLIC_EXPONENT` absent or 65537 (else `CKR_ATTRIBUTE_VALUE_INVALID`: the module makes
/// keys with F4 only). The module generates the pair and runs its pairwise consistency test.
/// The handles of the public and the private key, and whether the generation was approved.
pub fn generate_key_pair(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    public_template: &[TemplateAttribute],
    private_template: &[TemplateAttribute],
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE, bool), CK_RV> {
    let public_split = split_template(public_template)?;
    let private_split = split_template(private_template)?;
    if private_split.modulus_bits.is_some()
        || private_split.parts.iter().any(Option::is_some)
        || public_split.parts[0].is_some()
    {
        return Err(CKR_TEMPLATE_INCONSISTENT);
    }
    let bits = public_split.modulus_bits.ok_or(CKR_TEMPLATE_INCOMPLETE)? as usize;
    if let Some(exponent) = &public_split.parts[1]
        && strip_zeros(exponent) != F4
    {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    let public = object::read_pair_template(&public_split.rest, CKO_PUBLIC_KEY, false)?;
    let private = object::read_pair_template(&private_split.rest, CKO_PRIVATE_KEY, false)?;
    let (session_state, slot) = library.session_and_slot(session)?;
    let (slot_index, rw) = (session_state.slot, session_state.rw);
    let policy = slot.module.policy();
    // The pair is made (and its consistency tested) under the first RSA scheme the policy
    // serves; the key itself serves every scheme.
    let algorithm = SCHEMES
        .iter()
        .map(|(algorithm, _)| *algorithm)
        .find(|algorithm| policy.serves(*algorithm))
        .ok_or(CKR_MECHANISM_INVALID)?;
    if !allowed_bits(policy, algorithm).any(|allowed| allowed == bits) {
        return Err(CKR_KEY_SIZE_RANGE);
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
        .generate_signing_key(algorithm, Some(bits as u32))
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
    if !is_rsa_spki(&spki) {
        return Err(CKR_FUNCTION_FAILED);
    }
    let public_object = Object::rsa_key(
        slot_index,
        session,
        CKO_PUBLIC_KEY,
        &public,
        spki.clone(),
        Zeroizing::new(spki.clone()),
        &public_split.rest,
        true,
    )?;
    let private_object = Object::rsa_key(
        slot_index,
        session,
        CKO_PRIVATE_KEY,
        &private,
        spki,
        pkcs8,
        &private_split.rest,
        true,
    )?;
    let (public_handle, private_handle) =
        crate::keep_pair(library, rw, public_object, private_object)?;
    Ok((public_handle, private_handle, approved))
}

/// `C_CreateObject` of an RSA key: a public key from `CKA_MODULUS` and `CKA_PUBLIC_EXPONENT`
/// (to verify with; an odd exponent of at least 3, a modulus of 2048 to 8192 bits, the module
/// checks the rest when it verifies), or a private key from all eight components of
/// `RSAPrivateKey` (`CKA_MODULUS` … `CKA_COEFFICIENT`), which the module checks on import.
pub fn create_key(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    template: &[TemplateAttribute],
    class: CK_OBJECT_CLASS,
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let split = split_template(template)?;
    if split.modulus_bits.is_some() {
        return Err(CKR_ATTRIBUTE_READ_ONLY);
    }
    let (Some(modulus), Some(exponent)) = (&split.parts[0], &split.parts[1]) else {
        return Err(CKR_TEMPLATE_INCOMPLETE);
    };
    let exponent_digits = strip_zeros(exponent);
    let odd = exponent_digits.last().is_some_and(|last| last & 1 == 1);
    if !(2048..=MAX_IMPORTED_BITS).contains(&bits_of(modulus))
        || !odd
        || exponent_digits == [1]
        || exponent_digits.len() > 8
    {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    let public_key_info = spki(modulus, exponent);
    let pair = object::read_pair_template(&split.rest, class, false)?;
    let (session_state, slot) = library.session_and_slot(session)?;
    let (slot_index, rw) = (session_state.slot, session_state.rw);
    if !SCHEMES
        .iter()
        .any(|(algorithm, _)| slot.module.policy().serves(*algorithm))
    {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    let value = if class == CKO_PRIVATE_KEY {
        if pair.private.unwrap_or(true) && !slot.user() {
            return Err(CKR_USER_NOT_LOGGED_IN);
        }
        let mut parts: [&[u8]; 8] = [&[]; 8];
        for (part, given) in parts.iter_mut().zip(&split.parts) {
            *part = given.as_deref().ok_or(CKR_TEMPLATE_INCOMPLETE)?;
            // No component of a key is longer than its modulus.
            if strip_zeros(part).len() > strip_zeros(modulus).len() {
                return Err(CKR_ATTRIBUTE_VALUE_INVALID);
            }
        }
        let pkcs8 = pkcs8_of_parts(&parts);
        check_private_key(&slot.module, &pkcs8, &public_key_info)?;
        pkcs8
    } else {
        if split.parts[2..].iter().any(Option::is_some) {
            return Err(CKR_TEMPLATE_INCONSISTENT);
        }
        if pair.private.unwrap_or(false) && !slot.user() {
            return Err(CKR_USER_NOT_LOGGED_IN);
        }
        Zeroizing::new(public_key_info.clone())
    };
    let object = Object::rsa_key(
        slot_index,
        session,
        class,
        &pair,
        public_key_info,
        value,
        &split.rest,
        false,
    )?;
    crate::keep(library, rw, object)
}

/// The module imports the private key (checking its components) under a scheme the policy
/// serves; its public key must be the one the template gave.
fn check_private_key(module: &Module, pkcs8: &[u8], public_key_info: &[u8]) -> Result<(), CK_RV> {
    let policy = module.policy();
    let algorithm = SCHEMES
        .iter()
        .map(|(algorithm, _)| *algorithm)
        .find(|algorithm| policy.serves(*algorithm))
        .ok_or(CKR_ATTRIBUTE_VALUE_INVALID)?;
    let refused = |error: regula::Error| match ops::rv_of(&error, false) {
        CKR_KEY_SIZE_RANGE | CKR_MECHANISM_INVALID => CKR_ATTRIBUTE_VALUE_INVALID,
        rv => rv,
    };
    let key = module
        .signing_key_from_pkcs8(algorithm, pkcs8)
        .map_err(refused)?
        .into_value();
    let public = key.public_key_der().map_err(refused)?;
    if public != public_key_info {
        return Err(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    Ok(())
}

// ---- Signatures -----------------------------------------------------------------------------

/// An RSA signature being made (with the private key, imported from its PKCS#8 when the
/// operation starts) or checked (with the public key's SubjectPublicKeyInfo). The data is
/// gathered and signed or verified when the operation ends.
pub struct RsaOp {
    module: Module,
    algorithm: Algorithm,
    modulus_len: usize,
    key: RsaKey,
    pub data: Vec<u8>,
}

enum RsaKey {
    Private(SigningKey),
    Public(Vec<u8>),
}

impl RsaOp {
    /// The signature's length: the modulus'.
    pub fn output_len(&self) -> usize {
        self.modulus_len
    }

    pub fn sign(&self) -> Result<Done, CK_RV> {
        let RsaKey::Private(key) = &self.key else {
            return Err(CKR_OPERATION_NOT_INITIALIZED);
        };
        let served = key
            .sign(&self.data)
            .map_err(|error| ops::rv_of(&error, false))?;
        let approved = served.is_approved();
        Ok(Done {
            output: Zeroizing::new(served.into_value()),
            approved,
        })
    }

    /// Checks `signature`; `Ok(approved)` when it verifies.
    pub fn verify(&self, signature: &[u8]) -> Result<bool, CK_RV> {
        let RsaKey::Public(spki) = &self.key else {
            return Err(CKR_OPERATION_NOT_INITIALIZED);
        };
        if signature.len() != self.modulus_len {
            return Err(CKR_SIGNATURE_LEN_RANGE);
        }
        self.module
            .verify(self.algorithm, spki, &self.data, signature)
            .map(|served| served.is_approved())
            .map_err(|error| ops::rv_of(&error, false))
    }
}

/// Checks a PSS mechanism's `CK_RSA_PKCS_PSS_PARAMS` against what the module does for
/// `algorithm`; a PKCS#1 v1.5 mechanism takes no parameter.
///
/// # Safety
/// `mechanism`'s parameter, if any, points to `ulParameterLen` readable bytes, as the PKCS#11
/// standard requires.
unsafe fn check_params(mechanism: &CK_MECHANISM, algorithm: Algorithm) -> Result<(), CK_RV> {
    let Some((hash, mgf, salt)) = pss_params(algorithm).filter(|_| is_pss(algorithm)) else {
        return if mechanism.ulParameterLen == 0 {
            Ok(())
        } else {
            Err(CKR_MECHANISM_PARAM_INVALID)
        };
    };
    let raw = mechanism.pParameter;
    if raw.is_null() || mechanism.ulParameterLen as usize != size_of::<CK_RSA_PKCS_PSS_PARAMS>() {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: the caller's parameter, of the size checked above.
    let params = unsafe { std::ptr::read_unaligned(raw as *const CK_RSA_PKCS_PSS_PARAMS) };
    if params.hashAlg != hash || params.mgf != mgf || params.sLen as usize != salt {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    Ok(())
}

/// `C_SignInit` / `C_VerifyInit` with an RSA key: a private key signs, a public key verifies,
/// with a mechanism of an RSA row the slot's policy serves.
pub fn sign_init(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    signs: bool,
) -> Result<ops::SignOp, CK_RV> {
    let object = crate::visible(library, session, key).map_err(|_| CKR_KEY_HANDLE_INVALID)?;
    if object.key_type != CKK_RSA {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    let (_, slot) = library.session_and_slot(session)?;
    let algorithm = resolve(slot.module.policy(), mechanism.mechanism)?;
    // SAFETY: the caller's mechanism, valid as the PKCS#11 standard requires.
    unsafe { check_params(mechanism, algorithm) }?;
    let object = crate::visible(library, session, key).map_err(|_| CKR_KEY_HANDLE_INVALID)?;
    let crate::SignatureKey { pkcs8, public } = crate::signature_key(object, signs)?;
    let (modulus, _) = parts_of_spki(&public).ok_or(CKR_KEY_HANDLE_INVALID)?;
    let (modulus_len, modulus_bits) = (modulus.len(), bits_of(modulus));
    let (_, slot) = library.session_and_slot(session)?;
    // A key the policy does not take for this scheme (its size) is refused here, not by the
    // module's generic refusal.
    let limits = slot.module.policy().rule(algorithm).limits;
    let bits = modulus_bits as u32;
    if limits.min_key_bits.is_some_and(|min| bits < min)
        || limits.max_key_bits.is_some_and(|max| bits > max)
    {
        return Err(CKR_KEY_SIZE_RANGE);
    }
    let key = match pkcs8 {
        Some(pkcs8) => RsaKey::Private(
            slot.module
                .signing_key_from_pkcs8(algorithm, &pkcs8)
                .map_err(|error| ops::rv_of(&error, false))?
                .into_value(),
        ),
        None => RsaKey::Public(public),
    };
    Ok(ops::SignOp::Rsa(RsaOp {
        module: slot.module.clone(),
        algorithm,
        modulus_len,
        key,
        data: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regula::Profile;

    #[test]
    fn the_module_public_key_is_the_spki_of_its_parts() {
        let module = Module::load(Policy::builtin(Profile::Default));
        let key = module
            .generate_signing_key(Algorithm::RsaPkcs1Sha256, Some(2048))
            .unwrap()
            .into_value();
        let der = key.public_key_der().unwrap();
        let (modulus, exponent) = parts_of_spki(&der).expect("an RSA SubjectPublicKeyInfo");
        assert_eq!(bits_of(modulus), 2048);
        assert_eq!(exponent, F4);
        assert_eq!(spki(modulus, exponent), der);
    }

    #[test]
    fn der_integers_are_minimal_and_positive() {
        let mut out = Vec::new();
        der_integer(&mut out, &[0x00, 0x00, 0x80]);
        der_integer(&mut out, &[0x00, 0x7f]);
        der_integer(&mut out, &[]);
        assert_eq!(
            out,
            [0x02, 0x02, 0x00, 0x80, 0x02, 0x01, 0x7f, 0x02, 0x01, 0x00]
        );
        assert_eq!(bits_of(&[0x00, 0x01, 0x00]), 9);
    }

    #[test]
    fn each_slot_lists_the_moduli_its_policy_allows() {
        let fips = crate::mech::mechanisms(&Policy::builtin(Profile::Fips1403));
        let pss = fips[&CKM_SHA256_RSA_PKCS_PSS];
        assert_eq!((pss.ulMinKeySize, pss.ulMaxKeySize), (2048, 4096));
        assert_eq!(pss.flags, CKF_SIGN | CKF_VERIFY);
        assert_eq!(
            fips[&CKM_RSA_PKCS_KEY_PAIR_GEN].flags,
            CKF_GENERATE_KEY_PAIR
        );
        let gm = crate::mech::mechanisms(&Policy::builtin(Profile::Gm));
        assert!(!gm.contains_key(&CKM_SHA256_RSA_PKCS));
        assert!(!gm.contains_key(&CKM_RSA_PKCS_KEY_PAIR_GEN));
    }
}
