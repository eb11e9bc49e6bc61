//! Mechanisms, read from the registry rows (`regula::registry`'s `pkcs11` field) and filtered
//! by what a slot's policy serves and what this token implements so far.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use cryptoki_sys::*;
use regula::registry::{self, REGISTRY};
use regula::{Algorithm, Mode, Policy};

use crate::ec::Curve;
use crate::mldsa::MlDsaSet;
use crate::mlkem::MlKemSet;

/// Regula's vendor-defined key types: `CKK_VENDOR_DEFINED` with "RG" (0x5247) in the next 16
/// bits, as the registry's `CKM_REGULA_BASE` does for mechanisms.
pub const CKK_REGULA_BASE: CK_KEY_TYPE = CKK_VENDOR_DEFINED | 0x0052_4700;
/// An SM4 secret key (GB/T 32907); PKCS#11 defines no SM4 key type.
pub const CKK_REGULA_SM4: CK_KEY_TYPE = CKK_REGULA_BASE + 0x01;

/// The one operation family a mechanism performs here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Digest,
    Hmac,
    Cmac,
    /// CBC; `pad`: PKCS#7 padding (`*_CBC_PAD`).
    Cbc {
        pad: bool,
    },
    /// CTR with `CK_AES_CTR_PARAMS`.
    Ctr,
    /// ECB (whole blocks, no parameter).
    Ecb,
    /// OFB or CFB with a 16-byte IV as the parameter.
    Feedback,
    /// GCM with `CK_GCM_PARAMS`.
    Gcm,
    /// CCM with `CK_CCM_PARAMS` ([`crate::ccm`]).
    Ccm,
    /// XTS with the 16-byte tweak as the parameter: one data unit per operation.
    Xts,
    /// SP 800-38F key wrap (`C_WrapKey`, `C_UnwrapKey`); `padded`: KWP (RFC 5649), else KW
    /// (RFC 3394).
    Wrap {
        padded: bool,
    },
}

/// What this token implements of an algorithm, if anything yet.
pub fn op_of(algorithm: Algorithm) -> Option<Op> {
    use Algorithm::*;
    Some(match algorithm {
        Md5 | Sha1 | Sha224 | Sha256 | Sha384 | Sha512 | Sha512_256 | Sha3_256 | Sha3_384
        | Sha3_512 | Sm3 => Op::Digest,
        HmacMd5 | HmacSha1 | HmacSha224 | HmacSha256 | HmacSha384 | HmacSha512 | HmacSm3 => {
            Op::Hmac
        }
        Aes128Cmac | Aes256Cmac | Sm4Cmac => Op::Cmac,
        Aes128Cbc | Aes256Cbc | Sm4Cbc => Op::Cbc { pad: true },
        Aes128Ctr | Aes256Ctr | Sm4Ctr => Op::Ctr,
        Sm4Ecb => Op::Ecb,
        Sm4Ofb | Sm4Cfb => Op::Feedback,
        Aes128Gcm | Aes256Gcm | Sm4Gcm => Op::Gcm,
        Aes128Ccm | Aes256Ccm | Sm4Ccm => Op::Ccm,
        Aes256Xts | Sm4Xts | Sm4XtsGb => Op::Xts,
        Aes128Kw | Aes256Kw => Op::Wrap { padded: false },
        Aes128Kwp | Aes256Kwp => Op::Wrap { padded: true },
        _ => return None,
    })
}

/// The key type an algorithm's keys have (`None`: a digest, which takes no key).
pub fn key_type_of(algorithm: Algorithm) -> Option<CK_KEY_TYPE> {
    match op_of(algorithm)? {
        Op::Digest => None,
        Op::Hmac => Some(CKK_GENERIC_SECRET),
        // SM4-XTS takes a 32-byte CKK_REGULA_SM4 key (key1 ‖ key2).
        _ if algorithm.name().starts_with("sm4") => Some(CKK_REGULA_SM4),
        Op::Xts => Some(CKK_AES_XTS),
        _ => Some(CKK_AES),
    }
}

/// The mechanism that performs `algorithm` here: the row's first; `CKM_AES_CBC` is the
/// `CKM_AES_CBC_PAD` row without padding, and `CKM_AES_KEY_WRAP_PAD` the older name of
/// `CKM_AES_KEY_WRAP_KWP` (RFC 5649) that OpenSC and SoftHSM2 use.
fn operation_mechanisms(
    entry: &registry::Entry,
) -> impl Iterator<Item = (CK_MECHANISM_TYPE, Op)> + use<> {
    let own = op_of(entry.algorithm)
        .zip(entry.pkcs11.first())
        .map(|(op, first)| (CK_MECHANISM_TYPE::from(first.value), op));
    let other_name = own.and_then(|(value, op)| {
        if value == CK_MECHANISM_TYPE::from(registry::pkcs11::CKM_AES_CBC_PAD.value) {
            Some((CKM_AES_CBC, Op::Cbc { pad: false }))
        } else if value == CK_MECHANISM_TYPE::from(registry::pkcs11::CKM_AES_KEY_WRAP_KWP.value) {
            Some((CKM_AES_KEY_WRAP_PAD, op))
        } else {
            None
        }
    });
    own.into_iter().chain(other_name)
}

/// Every operation mechanism with its row and operation, sorted by mechanism and, within one
/// mechanism, in registry order: an operation's init looks up its few rows instead of walking
/// the whole registry.
static OPERATIONS: LazyLock<Vec<(CK_MECHANISM_TYPE, &'static registry::Entry, Op)>> =
    LazyLock::new(|| {
        let mut operations: Vec<_> = REGISTRY
            .iter()
            .flat_map(|entry| {
                operation_mechanisms(entry).map(move |(mechanism, op)| (mechanism, entry, op))
            })
            .collect();
        // Stable: the first row that fits a key wins, as in the registry.
        operations.sort_by_key(|(mechanism, _, _)| *mechanism);
        operations
    });

/// The key-generation mechanisms of a row: its own (AES, SM4), or, for HMAC, the generic
/// secret generator.
fn generation_mechanisms(entry: &registry::Entry) -> Vec<CK_MECHANISM_TYPE> {
    match op_of(entry.algorithm) {
        None | Some(Op::Digest) => Vec::new(),
        Some(Op::Hmac) => vec![CKM_GENERIC_SECRET_KEY_GEN],
        Some(_) => entry
            .pkcs11
            .iter()
            .skip(1)
            .map(|mechanism| CK_MECHANISM_TYPE::from(mechanism.value))
            .collect(),
    }
}

/// The key type a generation mechanism makes.
pub fn generated_key_type(mechanism: CK_MECHANISM_TYPE) -> Option<CK_KEY_TYPE> {
    if mechanism == CKM_AES_KEY_GEN {
        Some(CKK_AES)
    } else if mechanism == CKM_AES_XTS_KEY_GEN {
        Some(CKK_AES_XTS)
    } else if mechanism == CK_MECHANISM_TYPE::from(registry::pkcs11::CKM_REGULA_SM4_KEY_GEN.value) {
        Some(CKK_REGULA_SM4)
    } else if mechanism == CKM_GENERIC_SECRET_KEY_GEN {
        Some(CKK_GENERIC_SECRET)
    } else {
        None
    }
}

fn flags_of(op: Op) -> CK_FLAGS {
    match op {
        Op::Digest => CKF_DIGEST,
        Op::Hmac | Op::Cmac => CKF_SIGN | CKF_VERIFY,
        Op::Wrap { .. } => CKF_WRAP | CKF_UNWRAP,
        _ => CKF_ENCRYPT | CKF_DECRYPT,
    }
}

/// Key sizes in bytes: the row's, or for HMAC and generic secrets 1 to 512 bytes.
fn key_sizes(entry: &registry::Entry) -> (CK_ULONG, CK_ULONG) {
    match entry.sizes.key {
        Some(lengths) => (lengths.min as CK_ULONG, lengths.max as CK_ULONG),
        None if op_of(entry.algorithm) == Some(Op::Digest) => (0, 0),
        None => (1, GENERIC_SECRET_MAX as CK_ULONG),
    }
}

/// The longest generic secret this token makes or takes.
pub const GENERIC_SECRET_MAX: usize = 512;

/// What an EC mechanism's information says of its curves: over prime fields, named, points
/// uncompressed (Edwards curves: named by OID or by name).
fn ec_flags(curve: Curve) -> CK_FLAGS {
    if curve.is_ecdsa() {
        CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS
    } else {
        CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_CURVENAME
    }
}

/// The ECDH algorithm `CKM_ECDH1_DERIVE` runs under `policy` with a key on `curve`.
pub fn resolve_ecdh(policy: &Policy, curve: Curve) -> Result<Algorithm, CK_RV> {
    let algorithm = curve.ecdh().ok_or(CKR_KEY_TYPE_INCONSISTENT)?;
    if policy.serves(algorithm) {
        Ok(algorithm)
    } else if Curve::ALL
        .into_iter()
        .filter_map(Curve::ecdh)
        .any(|ecdh| policy.serves(ecdh))
    {
        Err(CKR_KEY_TYPE_INCONSISTENT)
    } else {
        Err(CKR_MECHANISM_INVALID)
    }
}

/// The ECDSA algorithm `mechanism` runs under `policy` with a key on `curve`.
pub fn resolve_ecdsa(
    policy: &Policy,
    mechanism: CK_MECHANISM_TYPE,
    curve: Curve,
) -> Result<Algorithm, CK_RV> {
    let ecdsa = |entry: &&registry::Entry| {
        Curve::of_ecdsa(entry.algorithm).is_some()
            && policy.serves(entry.algorithm)
            && entry
                .pkcs11
                .first()
                .is_some_and(|first| CK_MECHANISM_TYPE::from(first.value) == mechanism)
    };
    if mechanism == CKM_ECDSA {
        // Raw ECDSA over the caller's hash: signing only, served by a permissive policy
        // (the module did not compute the hash, so the service is never approved).
        return if !prehashed_ecdsa(policy) {
            Err(CKR_MECHANISM_INVALID)
        } else if curve.is_ecdsa() && policy.serves(curve.ecdsa()) {
            Ok(curve.ecdsa())
        } else {
            Err(CKR_KEY_TYPE_INCONSISTENT)
        };
    }
    let mut rows = REGISTRY.iter().filter(ecdsa).peekable();
    if rows.peek().is_none() {
        return Err(CKR_MECHANISM_INVALID);
    }
    // The module binds each curve to its hash: a P-384 key does not sign with SHA-256.
    rows.find(|entry| Curve::of_ecdsa(entry.algorithm) == Some(curve))
        .map(|entry| entry.algorithm)
        .ok_or(CKR_KEY_TYPE_INCONSISTENT)
}

/// Whether `CKM_ECDSA` (signing a hash the caller computed) is served under `policy`: in a
/// permissive policy that serves ECDSA on a curve the token holds keys on.
pub fn prehashed_ecdsa(policy: &Policy) -> bool {
    policy.mode() == Mode::Permissive
        && Curve::ALL
            .into_iter()
            .any(|curve| curve.is_ecdsa() && policy.serves(curve.ecdsa()))
}

/// The curves `CKM_EC_KEY_PAIR_GEN` makes keys on under `policy`: those it signs with
/// (curveSM2, with `CKM_REGULA_SM2_KEY_PAIR_GEN`: where any SM2 row is served).
pub fn generates_on(policy: &Policy, curve: Curve) -> bool {
    if curve == Curve::Sm2 {
        return crate::sm2::key_algorithm(policy).is_some();
    }
    policy.serves(curve.ecdsa())
}

/// The mechanisms a slot under `policy` offers, with their information.
pub fn mechanisms(policy: &Policy) -> BTreeMap<CK_MECHANISM_TYPE, CK_MECHANISM_INFO> {
    let mut list: BTreeMap<CK_MECHANISM_TYPE, CK_MECHANISM_INFO> = BTreeMap::new();
    let mut add = |mechanism, (min, max), flags| {
        let info = list.entry(mechanism).or_insert(CK_MECHANISM_INFO {
            ulMinKeySize: min,
            ulMaxKeySize: max,
            flags: 0,
        });
        info.ulMinKeySize = info.ulMinKeySize.min(min);
        info.ulMaxKeySize = info.ulMaxKeySize.max(max);
        info.flags |= flags;
    };
    for entry in REGISTRY.iter() {
        if !policy.serves(entry.algorithm) {
            continue;
        }
        if let Some(offered) = crate::sm2::offered(entry) {
            for (mechanism, sizes, flags) in offered {
                add(mechanism, sizes, flags);
            }
            continue;
        }
        if let Some(curve) = Curve::ALL
            .into_iter()
            .find(|curve| curve.ecdh() == Some(entry.algorithm))
        {
            // ECDH on the curves whose keys the token holds; sizes in bits.
            let bits = (curve.bits() as CK_ULONG, curve.bits() as CK_ULONG);
            add(CKM_ECDH1_DERIVE, bits, CKF_DERIVE | ec_flags(curve));
            continue;
        }
        if let Some(set) = MlDsaSet::of_algorithm(entry.algorithm) {
            // ML-DSA (PKCS#11 3.2): the sizes are the parameter sets (CKP_ML_DSA_*).
            let sets = (set.parameter_set(), set.parameter_set());
            add(CKM_ML_DSA, sets, CKF_SIGN | CKF_VERIFY);
            add(CKM_ML_DSA_KEY_PAIR_GEN, sets, CKF_GENERATE_KEY_PAIR);
            continue;
        }
        if let Some(set) = MlKemSet::of_algorithm(entry.algorithm) {
            // ML-KEM (PKCS#11 3.2): the sizes are the parameter sets (CKP_ML_KEM_*).
            let sets = (set.parameter_set(), set.parameter_set());
            add(CKM_ML_KEM, sets, CKF_ENCAPSULATE | CKF_DECAPSULATE);
            add(CKM_ML_KEM_KEY_PAIR_GEN, sets, CKF_GENERATE_KEY_PAIR);
            continue;
        }
        if let Some(oaep) = crate::oaep::mechanisms_of(policy, entry) {
            // RSA-OAEP with the row's hash (a parameter of one mechanism); sizes in bits.
            for (mechanism, sizes, flags) in oaep {
                add(mechanism, sizes, flags);
            }
            continue;
        }
        if let Some(rsa) = crate::rsa::mechanisms_of(policy, entry) {
            // RSA PKCS#1 v1.5 and PSS with the row's hash, and the key-pair generator; sizes
            // in bits.
            for (mechanism, sizes, flags) in rsa {
                add(mechanism, sizes, flags);
            }
            continue;
        }
        if let Some(curve) = Curve::of_ecdsa(entry.algorithm) {
            // ECDSA with the row's hash (or EdDSA), and the key-pair generator; sizes in bits.
            let bits = (curve.bits() as CK_ULONG, curve.bits() as CK_ULONG);
            let flags = ec_flags(curve);
            let mut pkcs11 = entry
                .pkcs11
                .iter()
                .map(|m| CK_MECHANISM_TYPE::from(m.value));
            if let Some(ecdsa) = pkcs11.next() {
                add(ecdsa, bits, CKF_SIGN | CKF_VERIFY | flags);
            }
            if curve.is_ecdsa() && policy.mode() == Mode::Permissive {
                add(CKM_ECDSA, bits, CKF_SIGN | flags);
            }
            for generator in pkcs11 {
                add(generator, bits, CKF_GENERATE_KEY_PAIR | flags);
            }
            continue;
        }
        if let Some((mechanism, flags)) = crate::kdf::listed(entry) {
            // Key derivation: sizes are the base key's (or PBKDF2's derived key's) bytes.
            add(mechanism, (1, GENERIC_SECRET_MAX as CK_ULONG), flags);
            continue;
        }
        let sizes = key_sizes(entry);
        for (mechanism, op) in operation_mechanisms(entry) {
            add(mechanism, sizes, flags_of(op));
        }
        for mechanism in generation_mechanisms(entry) {
            add(mechanism, sizes, CKF_GENERATE);
        }
    }
    list
}

/// The algorithm and operation `mechanism` runs under `policy` with a key of `key` (type and
/// length; `None` for digests).
pub fn resolve(
    policy: &Policy,
    mechanism: CK_MECHANISM_TYPE,
    key: Option<(CK_KEY_TYPE, usize)>,
) -> Result<(Algorithm, Op), CK_RV> {
    let mut found_mechanism = false;
    let first = OPERATIONS.partition_point(|(value, _, _)| *value < mechanism);
    let rows = OPERATIONS[first..]
        .iter()
        .take_while(|(value, _, _)| *value == mechanism);
    for &(_, entry, op) in rows {
        if !policy.serves(entry.algorithm) {
            continue;
        }
        found_mechanism = true;
        match (key, key_type_of(entry.algorithm)) {
            (None, None) => return Ok((entry.algorithm, op)),
            (Some((key_type, len)), Some(expected)) => {
                if key_type != expected {
                    return Err(CKR_KEY_TYPE_INCONSISTENT);
                }
                let fits = entry.sizes.key.is_none_or(|lengths| lengths.contains(len));
                if fits {
                    return Ok((entry.algorithm, op));
                }
            }
            _ => return Err(CKR_KEY_TYPE_INCONSISTENT),
        }
    }
    Err(if found_mechanism {
        CKR_KEY_SIZE_RANGE
    } else {
        CKR_MECHANISM_INVALID
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regula::Profile;

    #[test]
    fn each_slot_lists_what_its_policy_serves() {
        let fips = mechanisms(&Policy::builtin(Profile::Fips1403));
        let gm = mechanisms(&Policy::builtin(Profile::Gm));
        let sm3 = CK_MECHANISM_TYPE::from(registry::pkcs11::CKM_REGULA_SM3.value);
        assert!(fips.contains_key(&CKM_SHA256) && fips.contains_key(&CKM_AES_GCM));
        assert!(!fips.contains_key(&sm3), "fips-140-3 lists SM3");
        assert!(gm.contains_key(&sm3));
        assert!(!gm.contains_key(&CKM_AES_GCM), "gm lists AES-GCM");
        let gcm = fips[&CKM_AES_GCM];
        assert_eq!((gcm.ulMinKeySize, gcm.ulMaxKeySize), (16, 32));
        assert_eq!(gcm.flags, CKF_ENCRYPT | CKF_DECRYPT);
        assert_eq!(fips[&CKM_AES_KEY_GEN].flags, CKF_GENERATE);
        let ecdsa = fips[&CKM_ECDSA_SHA256];
        assert_eq!((ecdsa.ulMinKeySize, ecdsa.ulMaxKeySize), (256, 256));
        assert_eq!(ecdsa.flags & (CKF_SIGN | CKF_VERIFY), CKF_SIGN | CKF_VERIFY);
        let pair = fips[&CKM_EC_KEY_PAIR_GEN];
        assert_eq!((pair.ulMinKeySize, pair.ulMaxKeySize), (256, 384));
        assert_ne!(pair.flags & CKF_GENERATE_KEY_PAIR, 0);
        // Raw ECDSA over a caller's hash is never approved: a strict policy does not list it,
        // a permissive one lists it for signing on its ECDSA curves; gm signs with SM2.
        assert!(!fips.contains_key(&CKM_ECDSA));
        assert!(!gm.contains_key(&CKM_EC_KEY_PAIR_GEN));
        assert!(!gm.contains_key(&CKM_ECDSA));
        let default = mechanisms(&Policy::builtin(Profile::Default));
        let raw = default[&CKM_ECDSA];
        assert_eq!((raw.ulMinKeySize, raw.ulMaxKeySize), (256, 384));
        assert_eq!(raw.flags & (CKF_SIGN | CKF_VERIFY), CKF_SIGN);
    }

    #[test]
    fn ecdsa_resolves_by_curve() {
        let policy = Policy::builtin(Profile::Default);
        assert_eq!(
            resolve_ecdsa(&policy, CKM_ECDSA_SHA384, Curve::P384),
            Ok(Algorithm::EcdsaP384)
        );
        assert_eq!(
            resolve_ecdsa(&policy, CKM_ECDSA_SHA256, Curve::P384),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        assert_eq!(
            resolve_ecdsa(&policy, CKM_ECDSA, Curve::P256),
            Ok(Algorithm::EcdsaP256)
        );
        assert_eq!(
            resolve_ecdsa(&policy, CKM_ECDSA, Curve::Ed25519),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        assert_eq!(
            resolve_ecdsa(&Policy::builtin(Profile::Fips1403), CKM_ECDSA, Curve::P256),
            Err(CKR_MECHANISM_INVALID)
        );
    }

    #[test]
    fn a_mechanism_resolves_by_key_type_and_length() {
        let policy = Policy::builtin(Profile::Default);
        let aes = |len| Some((CKK_AES, len));
        assert_eq!(
            resolve(&policy, CKM_AES_GCM, aes(32)),
            Ok((Algorithm::Aes256Gcm, Op::Gcm))
        );
        assert_eq!(
            resolve(&policy, CKM_AES_CBC, aes(16)),
            Ok((Algorithm::Aes128Cbc, Op::Cbc { pad: false }))
        );
        assert_eq!(
            resolve(&policy, CKM_AES_GCM, aes(24)),
            Err(CKR_KEY_SIZE_RANGE)
        );
        assert_eq!(
            resolve(&policy, CKM_AES_GCM, Some((CKK_GENERIC_SECRET, 16))),
            Err(CKR_KEY_TYPE_INCONSISTENT)
        );
        assert_eq!(
            resolve(&policy, CKM_RSA_PKCS, aes(16)),
            Err(CKR_MECHANISM_INVALID)
        );
    }
}
