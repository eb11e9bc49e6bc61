//! `CKM_RSA_PKCS_OAEP` (PKCS#11 3.2 §2.1.8): single-part RSA-OAEP encryption with an RSA
//! public key object and decryption with an RSA private key object, served by the module's
//! RSA-OAEP rows (one per hash). `CK_RSA_PKCS_OAEP_PARAMS` picks the row: `hashAlg` must be a
//! row's hash and `mgf` MGF1 with that same hash (what the module implements), the label
//! given as `CKZ_DATA_SPECIFIED` (`pSourceData` may be NULL when `ulSourceDataLen` is 0).
//! Every RSA computation is the module's; this file reads parameters and keys.

use std::sync::Arc;

use cryptoki_sys::*;
use regula::registry::{self, REGISTRY};
use regula::{Algorithm, DecryptionKey, Direction, Module, Policy};
use zeroize::Zeroizing;

use crate::ops::{self, CryptOp, Done};
use crate::rsa::Listed;
use crate::state::Library;

const CKM_OAEP: CK_MECHANISM_TYPE = CKM_RSA_PKCS_OAEP;

/// The MGF1 generator that goes with a hash: the module's OAEP uses one hash for both.
fn mgf1_of(hash: Algorithm) -> Option<CK_RSA_PKCS_MGF_TYPE> {
    match hash {
        Algorithm::Sha1 => Some(CKG_MGF1_SHA1),
        Algorithm::Sha256 => Some(CKG_MGF1_SHA256),
        Algorithm::Sha384 => Some(CKG_MGF1_SHA384),
        Algorithm::Sha512 => Some(CKG_MGF1_SHA512),
        _ => None,
    }
}

/// The PKCS#11 digest mechanism of a hash: its registry row's first.
fn digest_mechanism(hash: Algorithm) -> Option<CK_MECHANISM_TYPE> {
    hash.entry()
        .pkcs11
        .first()
        .map(|mechanism| CK_MECHANISM_TYPE::from(mechanism.value))
}

/// Whether a row is one of the RSA-OAEP rows: its first mechanism is `CKM_RSA_PKCS_OAEP`.
fn is_oaep_row(entry: &registry::Entry) -> bool {
    entry
        .pkcs11
        .first()
        .is_some_and(|first| CK_MECHANISM_TYPE::from(first.value) == CKM_OAEP)
}

/// The mechanism an RSA-OAEP row adds to a slot under `policy`: `CKM_RSA_PKCS_OAEP` over the
/// moduli the policy allows (in bits). `None`: not an RSA-OAEP row. The key-pair generator the
/// row also names is listed by the RSA signature rows, whose keys serve OAEP too.
pub fn mechanisms_of(policy: &Policy, entry: &registry::Entry) -> Option<Vec<Listed>> {
    if !is_oaep_row(entry) {
        return None;
    }
    let limits = policy.rule(entry.algorithm).limits;
    let bits: Vec<usize> = crate::rsa::MODULUS_BITS
        .into_iter()
        .filter(|bits| {
            let bits = *bits as u32;
            limits.min_key_bits.is_none_or(|min| bits >= min)
                && limits.max_key_bits.is_none_or(|max| bits <= max)
        })
        .collect();
    let (Some(&min), Some(&max)) = (bits.first(), bits.last()) else {
        return Some(Vec::new());
    };
    Some(vec![(
        CKM_OAEP,
        (min as CK_ULONG, max as CK_ULONG),
        CKF_ENCRYPT | CKF_DECRYPT,
    )])
}

/// The parameters read from `CK_RSA_PKCS_OAEP_PARAMS`: the row and the label.
struct OaepParams {
    algorithm: Algorithm,
    label: Vec<u8>,
}

/// Reads and checks `CK_RSA_PKCS_OAEP_PARAMS` against the rows `policy` serves.
///
/// # Safety
/// `mechanism`'s parameter, if any, points to `ulParameterLen` readable bytes, and a non-NULL
/// `pSourceData` to `ulSourceDataLen` readable bytes, as the PKCS#11 standard requires.
unsafe fn params_of(policy: &Policy, mechanism: &CK_MECHANISM) -> Result<OaepParams, CK_RV> {
    let served: Vec<&registry::Entry> = REGISTRY
        .iter()
        .filter(|entry| is_oaep_row(entry) && policy.serves(entry.algorithm))
        .collect();
    if served.is_empty() {
        return Err(CKR_MECHANISM_INVALID);
    }
    let raw = mechanism.pParameter;
    if raw.is_null() || mechanism.ulParameterLen as usize != size_of::<CK_RSA_PKCS_OAEP_PARAMS>() {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: the caller's parameter, of the size checked above.
    let params = unsafe { std::ptr::read_unaligned(raw as *const CK_RSA_PKCS_OAEP_PARAMS) };
    let algorithm = served
        .iter()
        .find(|entry| {
            entry.hash.is_some_and(|hash| {
                digest_mechanism(hash) == Some(params.hashAlg) && mgf1_of(hash) == Some(params.mgf)
            })
        })
        .map(|entry| entry.algorithm)
        .ok_or(CKR_MECHANISM_PARAM_INVALID)?;
    if params.source != CKZ_DATA_SPECIFIED {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    let label_len = params.ulSourceDataLen as usize;
    let label = match (params.pSourceData.is_null(), label_len) {
        (_, 0) => Vec::new(),
        (true, _) => return Err(CKR_MECHANISM_PARAM_INVALID),
        (false, len) => {
            // SAFETY: the caller's label, `ulSourceDataLen` readable bytes.
            unsafe { std::slice::from_raw_parts(params.pSourceData as *const u8, len) }.to_vec()
        }
    };
    Ok(OaepParams { algorithm, label })
}

/// An RSA-OAEP operation: single-part only, as PKCS#11 defines the mechanism.
#[derive(Clone)]
pub struct OaepOp {
    module: Module,
    algorithm: Algorithm,
    label: Vec<u8>,
    /// The modulus' length in bytes: every ciphertext's.
    modulus_len: usize,
    key: OaepKey,
}

#[derive(Clone)]
enum OaepKey {
    /// The public key's DER SubjectPublicKeyInfo.
    Encrypt(Vec<u8>),
    /// The private key, imported into the module when the operation started.
    Decrypt(Arc<DecryptionKey>),
}

impl OaepOp {
    pub fn decrypts(&self) -> bool {
        matches!(self.key, OaepKey::Decrypt(_))
    }

    /// The longest message: `k - 2·hLen - 2` (RFC 8017 §7.1.1), hLen the row's hash output.
    fn max_message_len(&self) -> usize {
        let hash_len = self
            .algorithm
            .entry()
            .hash
            .and_then(|hash| hash.entry().sizes.output)
            .unwrap_or(usize::MAX / 4);
        self.modulus_len.saturating_sub(2 * hash_len + 2)
    }

    /// The most a single-part call on `input_len` bytes gives: a ciphertext is exactly the
    /// modulus' length; a plaintext at most the longest message (learnt exactly on a copy).
    pub fn len_bound(&self, input_len: usize) -> Result<usize, CK_RV> {
        if self.decrypts() {
            if input_len != self.modulus_len {
                return Err(CKR_ENCRYPTED_DATA_LEN_RANGE);
            }
            Ok(self.max_message_len())
        } else if input_len > self.max_message_len() {
            Err(CKR_DATA_LEN_RANGE)
        } else {
            Ok(self.modulus_len)
        }
    }

    /// Encryption's length is exact; decryption's is learnt by decrypting on a copy.
    pub fn bound_is_exact(&self) -> bool {
        !self.decrypts()
    }

    pub fn single(&self, input: &[u8]) -> Result<Done, CK_RV> {
        self.len_bound(input.len())?;
        match &self.key {
            OaepKey::Encrypt(spki) => {
                let served = self
                    .module
                    .rsa_oaep_encrypt(self.algorithm, spki, input, &self.label)
                    .map_err(|error| ops::rv_of(&error, false))?;
                let approved = served.is_approved();
                Ok(Done {
                    output: Zeroizing::new(served.into_value()),
                    approved,
                })
            }
            OaepKey::Decrypt(key) => {
                let served = key
                    .decrypt_with_label(input, &self.label)
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

/// `C_EncryptInit` / `C_DecryptInit` with `CKM_RSA_PKCS_OAEP`: an RSA public key permitted
/// `CKA_ENCRYPT` encrypts, an RSA private key permitted `CKA_DECRYPT` decrypts, with a modulus
/// the policy allows for the row the parameters name.
pub fn crypt_init(
    library: &mut Library,
    session: CK_SESSION_HANDLE,
    mechanism: &CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    direction: Direction,
) -> Result<CryptOp, CK_RV> {
    let (_, slot) = library.session_and_slot(session)?;
    let module = slot.module.clone();
    // SAFETY: the caller's mechanism, valid as the PKCS#11 standard requires.
    let OaepParams { algorithm, label } = unsafe { params_of(module.policy(), mechanism) }?;
    let (class, usage) = match direction {
        Direction::Encrypt => (CKO_PUBLIC_KEY, CKA_ENCRYPT),
        Direction::Decrypt => (CKO_PRIVATE_KEY, CKA_DECRYPT),
    };
    let object = crate::visible_key(library, session, key)?;
    if object.class != class || object.key_type != CKK_RSA {
        return Err(CKR_KEY_TYPE_INCONSISTENT);
    }
    if !object.flag(usage) {
        return Err(CKR_KEY_FUNCTION_NOT_PERMITTED);
    }
    let spki = object.point.clone();
    let pkcs8 = match direction {
        Direction::Encrypt => None,
        // A token key's PKCS#8 is open only while the user is logged in.
        Direction::Decrypt => Some(object.value.clone().ok_or(CKR_USER_NOT_LOGGED_IN)?),
    };
    let bits =
        regula::service::signature::rsa_public_key_bits(&spki).ok_or(CKR_KEY_HANDLE_INVALID)?;
    // A key the policy does not take for this row (its size) is refused here, as for RSA
    // signatures, not by the module's generic refusal.
    let limits = module.policy().rule(algorithm).limits;
    if limits.min_key_bits.is_some_and(|min| bits < min)
        || limits.max_key_bits.is_some_and(|max| bits > max)
    {
        return Err(CKR_KEY_SIZE_RANGE);
    }
    let modulus_len = (bits as usize).div_ceil(8);
    let key = match pkcs8 {
        None => OaepKey::Encrypt(spki),
        Some(pkcs8) => OaepKey::Decrypt(Arc::new(
            module
                .decryption_key_from_pkcs8(algorithm, &pkcs8)
                .map_err(|error| ops::rv_of(&error, false))?
                .into_value(),
        )),
    };
    Ok(CryptOp::RsaOaep(OaepOp {
        module,
        algorithm,
        label,
        modulus_len,
        key,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regula::Profile;

    #[test]
    fn each_slot_lists_oaep_where_its_policy_serves_it() {
        let fips = crate::mech::mechanisms(&Policy::builtin(Profile::Fips1403));
        let oaep = fips[&CKM_RSA_PKCS_OAEP];
        assert_eq!((oaep.ulMinKeySize, oaep.ulMaxKeySize), (2048, 4096));
        assert_eq!(oaep.flags, CKF_ENCRYPT | CKF_DECRYPT);
        let cnsa = crate::mech::mechanisms(&Policy::builtin(Profile::Cnsa20));
        let oaep = cnsa[&CKM_RSA_PKCS_OAEP];
        assert_eq!((oaep.ulMinKeySize, oaep.ulMaxKeySize), (3072, 4096));
        let gm = crate::mech::mechanisms(&Policy::builtin(Profile::Gm));
        assert!(!gm.contains_key(&CKM_RSA_PKCS_OAEP));
    }

    #[test]
    fn the_mgf_must_use_the_hash() {
        let policy = Policy::builtin(Profile::Default);
        let read = |hash, mgf, source, data: &mut [u8], len| {
            let mut params = CK_RSA_PKCS_OAEP_PARAMS {
                hashAlg: hash,
                mgf,
                source,
                pSourceData: if data.is_empty() {
                    std::ptr::null_mut()
                } else {
                    data.as_mut_ptr().cast()
                },
                ulSourceDataLen: len,
            };
            let mechanism = CK_MECHANISM {
                mechanism: CKM_RSA_PKCS_OAEP,
                pParameter: (&raw mut params).cast(),
                ulParameterLen: size_of::<CK_RSA_PKCS_OAEP_PARAMS>() as CK_ULONG,
            };
            // SAFETY: the parameter and label above, alive for the call.
            unsafe { params_of(&policy, &mechanism) }.map(|params| (params.algorithm, params.label))
        };
        let data = CKZ_DATA_SPECIFIED;
        assert_eq!(
            read(CKM_SHA256, CKG_MGF1_SHA256, data, &mut [], 0),
            Ok((Algorithm::RsaOaepSha256, Vec::new()))
        );
        assert_eq!(
            read(CKM_SHA512, CKG_MGF1_SHA512, data, &mut [b'a', b'b'], 2),
            Ok((Algorithm::RsaOaepSha512, b"ab".to_vec()))
        );
        assert_eq!(
            read(CKM_SHA_1, CKG_MGF1_SHA1, data, &mut [], 0),
            Ok((Algorithm::RsaOaepSha1, Vec::new()))
        );
        for (hash, mgf, source, len) in [
            (CKM_SHA256, CKG_MGF1_SHA1, data, 0),
            (CKM_SHA384, CKG_MGF1_SHA512, data, 0),
            (CKM_SHA224, CKG_MGF1_SHA224, data, 0),
            (CKM_SHA256, CKG_MGF1_SHA256, 0, 0),
            // A label length with no label.
            (CKM_SHA256, CKG_MGF1_SHA256, data, 4),
        ] {
            assert_eq!(
                read(hash, mgf, source, &mut [], len),
                Err(CKR_MECHANISM_PARAM_INVALID),
                "{hash:#x} {mgf:#x} {source} {len}"
            );
        }
        // fips-140-3 does not serve RSA-OAEP with SHA-1.
        let fips = Policy::builtin(Profile::Fips1403);
        let mut params = CK_RSA_PKCS_OAEP_PARAMS {
            hashAlg: CKM_SHA_1,
            mgf: CKG_MGF1_SHA1,
            source: CKZ_DATA_SPECIFIED,
            pSourceData: std::ptr::null_mut(),
            ulSourceDataLen: 0,
        };
        let mechanism = CK_MECHANISM {
            mechanism: CKM_RSA_PKCS_OAEP,
            pParameter: (&raw mut params).cast(),
            ulParameterLen: size_of::<CK_RSA_PKCS_OAEP_PARAMS>() as CK_ULONG,
        };
        // SAFETY: the parameter above, alive for the call.
        let result = unsafe { params_of(&fips, &mechanism) }.map(|params| params.algorithm);
        assert_eq!(result, Err(CKR_MECHANISM_PARAM_INVALID));
        let no_parameter = CK_MECHANISM {
            mechanism: CKM_RSA_PKCS_OAEP,
            pParameter: std::ptr::null_mut(),
            ulParameterLen: 0,
        };
        // SAFETY: no parameter.
        let result = unsafe { params_of(&fips, &no_parameter) }.map(|params| params.algorithm);
        assert_eq!(result, Err(CKR_MECHANISM_PARAM_INVALID));
    }
}
