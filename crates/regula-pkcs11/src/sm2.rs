//! SM2 (GB/T 32918, GM/T 0003) in Regula's vendor mechanism range, as
//! `include/regula-pkcs11.h` documents it. SM2 keys are `CKK_EC` keys whose `CKA_EC_PARAMS` is
//! the OID of curveSM2, 1.2.156.10197.1.301 ([`Curve::Sm2`]): made, imported, stored and
//! sealed (the private key as PKCS#8) as the other EC keys are. The mechanisms:
//! - `CKM_REGULA_SM2_KEY_PAIR_GEN`: the module generates the pair and runs its pairwise
//!   consistency test.
//! - `CKM_REGULA_SM2_SM3`: signatures over SM3(Z_A ‖ M); the parameter is the signer's
//!   distinguishing ID (raw bytes; none: GM/T 0009's default `1234567812345678`); the signature
//!   is `r ‖ s`, 64 bytes (the module's DER converted).
//! - `CKM_REGULA_SM2_ENCRYPT`: GB/T 32918.4 encryption to a public key (`CKA_ENCRYPT`),
//!   decryption with the private key (`CKA_DECRYPT`); ciphertexts are GM/T 0009's ASN.1 (as
//!   OpenSSL writes them) unless a [`CK_REGULA_SM2_ENCRYPT_PARAMS`] asks for C1C3C2.
//! - `CKM_REGULA_SM2_ECDH`: `C_DeriveKey` as `CKM_ECDH1_DERIVE` does it (the same parameter,
//!   `CKD_NULL` only), the secret being the shared point's x-coordinate.
//!
//! - `CKM_REGULA_SM2_KEY_EXCHANGE`: the GB/T 32918.3 key exchange through `C_DeriveKey`, its
//!   ephemeral key a pair generated beforehand ([`crate::sm2_exchange`]).

use cryptoki_sys::*;
use regula::registry::{self, pkcs11 as names};
use regula::{Algorithm, CiphertextFormat, Direction, Module, Policy, SigningKey};
use zeroize::Zeroizing;

use crate::ec::Curve;
use crate::ops::{self, CryptOp, Done, SignOp};
use crate::state::Library;

const fn mechanism(mechanism: names::Mechanism) -> CK_MECHANISM_TYPE {
    mechanism.value as CK_MECHANISM_TYPE
}

pub const CKM_KEY_PAIR_GEN: CK_MECHANISM_TYPE = mechanism(names::CKM_REGULA_SM2_KEY_PAIR_GEN);
pub const CKM_SIGN: CK_MECHANISM_TYPE = mechanism(names::CKM_REGULA_SM2_SM3);
pub const CKM_ENCRYPT: CK_MECHANISM_TYPE = mechanism(names::CKM_REGULA_SM2_ENCRYPT);
pub const CKM_ECDH: CK_MECHANISM_TYPE = mechanism(names::CKM_REGULA_SM2_ECDH);

/// GM/T 0009-2012's default distinguishing ID, used when `CKM_REGULA_SM2_SM3` has no parameter.
pub const DEFAULT_ID: &[u8] = b"1234567812345678";
/// The longest ID: Z_A hashes its length in bits as 16 bits (GB/T 32918.2 §5.5).
pub const MAX_ID: usize = 8191;

/// `CK_REGULA_SM2_ENCRYPT_PARAMS.ulCiphertextFormat`: GM/T 0009's ASN.1 `SM2Cipher` (the
/// default, what OpenSSL writes) or GB/T 32918.4's `C1 ‖ C3 ‖ C2`.
pub const CK_REGULA_SM2_CIPHERTEXT_ASN1: CK_ULONG = 0;
pub const CK_REGULA_SM2_CIPHERTEXT_C1C3C2: CK_ULONG = 1;

/// `CKM_REGULA_SM2_ENCRYPT`'s optional parameter (see the header).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CK_REGULA_SM2_ENCRYPT_PARAMS {
    pub ulCiphertextFormat: CK_ULONG,
}

/// The size in bits `CK_MECHANISM_INFO` gives for curveSM2.
const BITS: CK_ULONG = 256;
/// `04 ‖ x ‖ y ‖ C3` before C2 in a C1C3C2 ciphertext.
const C1C3_LEN: usize = 65 + 32;

/// One mechanism a slot lists: its type, its key sizes in bits and its flags.
pub type Offer = (CK_MECHANISM_TYPE, (CK_ULONG, CK_ULONG), CK_FLAGS);

/// The mechanisms an SM2 registry row offers; `None` for other rows. Every SM2 row lists the
/// key-pair generator after its own mechanism.
pub fn offered(entry: &registry::Entry) -> Option<Vec<Offer>> {
    let operation = match entry.algorithm {
        Algorithm::Sm2Sign => CKF_SIGN | CKF_VERIFY,
        Algorithm::Sm2Encrypt => CKF_ENCRYPT | CKF_DECRYPT,
        Algorithm::Sm2Ecdh | Algorithm::Sm2KeyExchange => CKF_DERIVE,
        _ => return None,
    };
    let curve = CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS;
    Some(
        entry
            .pkcs11
            .iter()
            .map(|name| {
                let value = mechanism(*name);
                let flags = if value == CKM_KEY_PAIR_GEN {
                    CKF_GENERATE_KEY_PAIR
                } else {
                    operation
                };
                (value, (BITS, BITS), flags | curve)
            })
            .collect(),
    )
}

/// The module algorithm that makes SM2 key pairs under `policy`: the first SM2 row it serves
/// (their keys are all curveSM2 keys, usable by every SM2 mechanism the slot lists).
pub fn key_algorithm(policy: &Policy) -> Option<Algorithm> {
    [
        Algorithm::Sm2Sign,
        Algorithm::Sm2Encrypt,
        Algorithm::Sm2Ecdh,
    ]
    .into_iter()
    .find(|algorithm| policy.serves(*algorithm))
}

fn rv(error: regula::Error) -> CK_RV {
    ops::rv_of(&error, false)
}

/// A generated pair: the private key's PKCS#8, the uncompressed point, and whether the policy
/// approved the generation.
pub type Generated = (Zeroizing<Vec<u8>>, Vec<u8>, bool);

/// `CKM_REGULA_SM2_KEY_PAIR_GEN`: a new pair from the module, which runs the pairwise
/// consistency test of the algorithm it generates for.
pub fn generate(module: &Module) -> Result<Generated, CK_RV> {
    let algorithm = key_algorithm(module.policy()).ok_or(CKR_MECHANISM_INVALID)?;
    let curve = Curve::Sm2;
    match algorithm {
        Algorithm::Sm2Encrypt => {
            let served = module.generate_decryption_key(algorithm).map_err(rv)?;
            let approved = served.is_approved();
            let key = served.into_value();
            let spki = key.public_key_der().map_err(rv)?;
            let point = curve.point_of_spki(&spki).ok_or(CKR_FUNCTION_FAILED)?;
            Ok((key.to_pkcs8_der().map_err(rv)?, point, approved))
        }
        Algorithm::Sm2Ecdh => {
            let served = module.generate_agreement_key(algorithm).map_err(rv)?;
            let approved = served.is_approved();
            let key = served.into_value();
            let scalar = key.private_key_bytes().map_err(rv)?;
            let pkcs8 = curve.pkcs8_of_scalar(&scalar).ok_or(CKR_FUNCTION_FAILED)?;
            Ok((pkcs8, key.public_key().map_err(rv)?, approved))
        }
        _ => {
            let served = module.generate_signing_key(algorithm, None).map_err(rv)?;
            let approved = served.is_approved();
            let key = served.into_value();
            let spki = key.public_key_der().map_err(rv)?;
            let point = curve.point_of_spki(&spki).ok_or(CKR_FUNCTION_FAILED)?;
            Ok((key.to_pkcs8_der().map_err(rv)?, point, approved))
        }
    }
}

/// The distinguishing ID of `CKM_REGULA_SM2_SM3`: the parameter's bytes, or the default.
///
/// # Safety
/// `mechanism`'s parameter, if any, points to `ulParameterLen` readable bytes.
unsafe fn id_of(mechanism: &CK_MECHANISM) -> Result<Vec<u8>, CK_RV> {
    if mechanism.ulParameterLen == 0 {
        return Ok(DEFAULT_ID.to_vec());
    }
    if mechanism.ulParameterLen as u128 > MAX_ID as u128 {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: the caller's parameter, of the length it gives.
    let id = unsafe { crate::input(mechanism.pParameter.cast::<u8>(), mechanism.ulParameterLen) }
        .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    Ok(id.to_vec())
}

/// An SM2 signature being made (with the private key, imported from its PKCS#8 for the
/// operation) or checked (with the public point). The data is gathered and signed or verified
/// when the operation ends.
pub struct Sm2SignOp {
    module: Module,
    key: SignatureKey,
    id: Vec<u8>,
    pub data: Vec<u8>,
}

enum SignatureKey {
    Private(SigningKey),
    Public(Vec<u8>),
}

impl Sm2SignOp {
    /// `r ‖ s`.
    pub fn output_len(&self) -> usize {
        2 * Curve::Sm2.width()
    }

    pub fn sign(&self) -> Result<Done, CK_RV> {
        let SignatureKey::Private(key) = &self.key else {
            return Err(CKR_OPERATION_NOT_INITIALIZED);
        };
        let served = key.sign_with_id(&self.data, &self.id).map_err(rv)?;
        let approved = served.is_approved();
        let raw = Curve::Sm2.raw_signature(&served.into_value())?;
        Ok(Done {
            output: Zeroizing::new(raw),
            approved,
        })
    }

    /// Checks `signature` (`r ‖ s`); `Ok(approved)` when it verifies.
    pub fn verify(&self, signature: &[u8]) -> Result<bool, CK_RV> {
        let SignatureKey::Public(point) = &self.key else {
            return Err(CKR_OPERATION_NOT_INITIALIZED);
        };
        let der = Curve::Sm2.der_signature(signature)?;
        self.module
            .verify_with_id(Algorithm::Sm2Sign, point, &self.data, &der, &self.id)
            .map(|served| served.is_approved())
            .map_err(rv)
    }
}

/// `C_SignInit` / `C_VerifyInit` with an SM2 key (a private key signs, a public key
/// verifies), with `CKM_REGULA_SM2_SM3` only.
pub fn sign_init(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    signs: bool,
) -> Result<SignOp, CK_RV> {
    let object = crate::visible(library, session, key).map_err(|_| CKR_KEY_HANDLE_INVALID)?;
    let crate::SignatureKey { pkcs8, public } = crate::signature_key(object, signs)?;
    let (_, slot) = library.session_and_slot(session)?;
    if !slot.mechanisms.contains_key(&mechanism.mechanism) {
        return Err(CKR_MECHANISM_INVALID);
    }
    if mechanism.mechanism != CKM_SIGN {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    // SAFETY: the caller's mechanism, valid as the PKCS#11 standard requires.
    let id = unsafe { id_of(mechanism) }?;
    let key = match pkcs8 {
        Some(pkcs8) => SignatureKey::Private(
            slot.module
                .signing_key_from_pkcs8(Algorithm::Sm2Sign, &pkcs8)
                .map_err(rv)?
                .into_value(),
        ),
        None => SignatureKey::Public(public),
    };
    Ok(SignOp::Sm2(Sm2SignOp {
        module: slot.module.clone(),
        key,
        id,
        data: Vec::new(),
    }))
}

/// The ciphertext layout `CKM_REGULA_SM2_ENCRYPT`'s parameter asks for (none: ASN.1).
///
/// # Safety
/// `mechanism`'s parameter, if any, points to `ulParameterLen` readable bytes.
unsafe fn format_of(mechanism: &CK_MECHANISM) -> Result<CiphertextFormat, CK_RV> {
    if mechanism.ulParameterLen == 0 {
        return Ok(CiphertextFormat::Asn1);
    }
    let raw = mechanism.pParameter;
    if raw.is_null()
        || mechanism.ulParameterLen as usize != size_of::<CK_REGULA_SM2_ENCRYPT_PARAMS>()
    {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: a CK_REGULA_SM2_ENCRYPT_PARAMS of the checked size at a non-null pointer.
    let params = unsafe { raw.cast::<CK_REGULA_SM2_ENCRYPT_PARAMS>().read_unaligned() };
    match params.ulCiphertextFormat {
        CK_REGULA_SM2_CIPHERTEXT_ASN1 => Ok(CiphertextFormat::Asn1),
        CK_REGULA_SM2_CIPHERTEXT_C1C3C2 => Ok(CiphertextFormat::C1C3C2),
        _ => Err(CKR_MECHANISM_PARAM_INVALID),
    }
}

/// An SM2 encryption (to the public point) or decryption (with the private key's PKCS#8).
/// Data given in parts is gathered; the module runs once, at the end.
#[derive(Clone)]
pub struct Sm2CryptOp {
    module: Module,
    key: CryptKey,
    format: CiphertextFormat,
    data: Zeroizing<Vec<u8>>,
}

#[derive(Clone)]
enum CryptKey {
    Encrypt(Vec<u8>),
    Decrypt(Zeroizing<Vec<u8>>),
}

/// Bytes of a DER length for `len` content bytes.
fn der_length_len(len: usize) -> usize {
    match len {
        0..=0x7f => 1,
        _ => 1 + (usize::BITS - len.leading_zeros()).div_ceil(8) as usize,
    }
}

/// Bytes of a DER element (tag, length, content) with `len` content bytes.
fn der_len(len: usize) -> usize {
    1 + der_length_len(len) + len
}

impl Sm2CryptOp {
    pub fn decrypts(&self) -> bool {
        matches!(self.key, CryptKey::Decrypt(_))
    }

    /// The most the operation gives for its data and `more` bytes: a ciphertext's length
    /// (ASN.1: at most, its integers possibly shorter), a plaintext's (ASN.1: at most).
    pub fn len_bound(&self, more: usize) -> Result<usize, CK_RV> {
        let len = self.data.len() + more;
        match (self.decrypts(), self.format) {
            (false, _) if len == 0 => Err(CKR_DATA_LEN_RANGE),
            (false, CiphertextFormat::Asn1) => {
                // SEQUENCE { INTEGER x, INTEGER y (33 bytes with a sign byte), OCTET STRING
                // hash (32), OCTET STRING C2 }
                let body = 2 * der_len(33) + der_len(32) + der_len(len);
                Ok(der_len(body))
            }
            (false, _) => Ok(C1C3_LEN + len),
            (true, CiphertextFormat::C1C3C2) => len
                .checked_sub(C1C3_LEN)
                .filter(|plaintext| *plaintext > 0)
                .ok_or(CKR_ENCRYPTED_DATA_LEN_RANGE),
            (true, _) => Ok(len),
        }
    }

    /// Whether [`Sm2CryptOp::len_bound`] is the length the caller must make room for: for an
    /// encryption (randomized, so not computed twice to learn the exact length) and for a
    /// C1C3C2 decryption; an ASN.1 decryption's exact length is learnt on a copy.
    pub fn bound_is_exact(&self) -> bool {
        !self.decrypts() || self.format == CiphertextFormat::C1C3C2
    }

    pub fn update(&mut self, input: &[u8]) {
        self.data.extend_from_slice(input);
    }

    pub fn finish(&mut self) -> Result<Done, CK_RV> {
        self.len_bound(0)?;
        let data = std::mem::take(&mut self.data);
        match &self.key {
            CryptKey::Encrypt(point) => {
                let served = self
                    .module
                    .encrypt_to_public_key(Algorithm::Sm2Encrypt, point, &data, self.format)
                    .map_err(rv)?;
                let approved = served.is_approved();
                Ok(Done {
                    output: Zeroizing::new(served.into_value()),
                    approved,
                })
            }
            CryptKey::Decrypt(pkcs8) => {
                let key = self
                    .module
                    .decryption_key_from_pkcs8(Algorithm::Sm2Encrypt, pkcs8)
                    .map_err(rv)?
                    .into_value();
                let served = key
                    .decrypt(&data, self.format)
                    .map_err(|error| ops::rv_of(&error, true))?;
                let approved = served.is_approved();
                Ok(Done {
                    output: served.into_value(),
                    approved,
                })
            }
        }
    }
}

/// `C_EncryptInit` / `C_DecryptInit` with `CKM_REGULA_SM2_ENCRYPT`: an SM2 public key permitted
/// `CKA_ENCRYPT` encrypts, a private key permitted `CKA_DECRYPT` decrypts.
pub fn crypt_init(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    direction: Direction,
) -> Result<CryptOp, CK_RV> {
    let (_, slot) = library.session_and_slot(session)?;
    if !slot.mechanisms.contains_key(&CKM_ENCRYPT) {
        return Err(CKR_MECHANISM_INVALID);
    }
    let module = slot.module.clone();
    // SAFETY: the caller's mechanism, valid as the PKCS#11 standard requires.
    let format = unsafe { format_of(mechanism) }?;
    let (class, usage) = match direction {
        Direction::Encrypt => (CKO_PUBLIC_KEY, CKA_ENCRYPT),
        Direction::Decrypt => (CKO_PRIVATE_KEY, CKA_DECRYPT),
    };
    let object = crate::visible_key(library, session, key)?;
    if object.class != class || object.curve != Some(Curve::Sm2) {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    if !object.flag(usage) {
        return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
    }
    let key = match direction {
        Direction::Encrypt => CryptKey::Encrypt(object.point.clone()),
        // A token key's PKCS#8 is open only while the user is logged in.
        Direction::Decrypt => {
            CryptKey::Decrypt(object.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?)
        }
    };
    Ok(CryptOp::Sm2(Sm2CryptOp {
        module,
        key,
        format,
        data: Zeroizing::new(Vec::new()),
    }))
}

/// The module's agreement on `curve` for `CKM_REGULA_SM2_ECDH`: curveSM2 keys only.
pub fn ecdh_algorithm(curve: Curve) -> Result<Algorithm, CK_RV> {
    if curve == Curve::Sm2 {
        Ok(Algorithm::Sm2Ecdh)
    } else {
        Err(CKR_KEY_TYPE_INCONSISTENT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regula::Profile;

    #[test]
    fn asn1_bounds_cover_the_longest_ciphertext() {
        let module = Module::load(Policy::builtin(Profile::Gm));
        let (_, point, _) = generate(&module).unwrap();
        for len in [1, 100, 127, 128, 300] {
            let op = Sm2CryptOp {
                module: module.clone(),
                key: CryptKey::Encrypt(point.clone()),
                format: CiphertextFormat::Asn1,
                data: Zeroizing::new(vec![7; len]),
            };
            let bound = op.len_bound(0).unwrap();
            let made = op.clone().finish().unwrap().output.len();
            assert!(
                made <= bound && bound <= made + 4,
                "{len}: {made} > {bound}"
            );
        }
    }
}
