//! The registry's rows through the C ABI: `regula_algorithm_count`, `regula_algorithm_info_at`
//! and `regula_algorithm_info`. The bindings (Python, Go) read an algorithm's names and sizes
//! here instead of keeping tables of their own.

use std::ffi::{CString, c_char, c_int};
use std::sync::OnceLock;

use regula::registry::{Entry, Lengths, REGISTRY};

use crate::boundary::{Fail, guard, out_param};

/// One algorithm's registry row, as `regula_algorithm_info` and `regula_algorithm_info_at`
/// report it: its names and sizes as the module itself uses them. The
/// strings are static (valid for the life of the process, never freed by the caller) or NULL
/// where the row has no such fact. Sizes are in bytes, 0 where a size does not apply.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct regula_algorithm_row {
    /// The registry name, e.g. `"aes-128-gcm"`, `"sha256"`, `"ml-dsa-65"`.
    pub name: *const c_char,
    /// The service family: `"aead"`, `"cipher"`, `"digest"`, `"mac"`, `"kdf"`, `"signature"`,
    /// `"key-agreement"`, `"kem"`, `"random"`, `"public-key-encryption"`, `"key-exchange"`.
    pub family: *const c_char,
    /// The backend that serves it: `"aws-lc"` or `"regula-sm"`.
    pub provider: *const c_char,
    /// The object identifier (dotted), or NULL.
    pub oid: *const c_char,
    /// OpenSSL 3's canonical name for it (e.g. `"AES-128-GCM"`, `"HMAC"`), or NULL.
    pub openssl_name: *const c_char,
    /// The registry name of the hash function it is built on (HMAC, HKDF, signatures), or NULL.
    pub hash: *const c_char,
    /// The NIST ACVP algorithm of its test vectors (e.g. `"ACVP-AES-GCM"`), or NULL.
    pub acvp_algorithm: *const c_char,
    /// The ACVP revision (e.g. `"1.0"`, `"FIPS204"`), or NULL.
    pub acvp_revision: *const c_char,
    /// Shortest secret key a symmetric key takes; 0 when any length is taken (HMAC, the
    /// KDFs) or there is no symmetric key.
    pub key_min: usize,
    /// Longest secret key a symmetric key takes; 0 as for `key_min`.
    pub key_max: usize,
    /// Shortest AEAD (or GMAC) nonce.
    pub nonce_min: usize,
    /// Longest AEAD (or GMAC) nonce.
    pub nonce_max: usize,
    /// The block-cipher mode's IV (or XTS tweak).
    pub iv_len: usize,
    /// Shortest AEAD tag.
    pub tag_min: usize,
    /// Longest AEAD tag.
    pub tag_max: usize,
    /// The cipher's block, or the hash function's input block (HMAC's key block).
    pub block_len: usize,
    /// The digest or MAC output; the shared secret of a key agreement or KEM.
    pub output_len: usize,
    /// The encoded public key, where its size is fixed (raw point, key, encapsulation key).
    pub public_key_len: usize,
    /// The longest signature (DER for ECDSA and SM2; the exact size for Ed25519 and ML-DSA).
    pub signature_max_len: usize,
    /// The KEM ciphertext.
    pub ciphertext_len: usize,
    /// The PKCS#11 mechanism (`CK_MECHANISM_TYPE`) of the operation, valid when
    /// `pkcs11_count` > 0; SM algorithms use Regula's vendor-defined values.
    pub pkcs11_mechanism: u32,
    /// How many PKCS#11 mechanisms the row names (the operation first, then key generation
    /// where it has its own); 0 when PKCS#11 has none.
    pub pkcs11_count: usize,
}

impl regula_algorithm_row {
    /// What an out-parameter holds after a failed call.
    const EMPTY: regula_algorithm_row = regula_algorithm_row {
        name: std::ptr::null(),
        family: std::ptr::null(),
        provider: std::ptr::null(),
        oid: std::ptr::null(),
        openssl_name: std::ptr::null(),
        hash: std::ptr::null(),
        acvp_algorithm: std::ptr::null(),
        acvp_revision: std::ptr::null(),
        key_min: 0,
        key_max: 0,
        nonce_min: 0,
        nonce_max: 0,
        iv_len: 0,
        tag_min: 0,
        tag_max: 0,
        block_len: 0,
        output_len: 0,
        public_key_len: 0,
        signature_max_len: 0,
        ciphertext_len: 0,
        pkcs11_mechanism: 0,
        pkcs11_count: 0,
    };
}

/// A row's strings as C strings, made once for the life of the process.
struct RowStrings {
    name: CString,
    family: CString,
    provider: CString,
    oid: Option<CString>,
    openssl_name: Option<CString>,
    hash: Option<CString>,
    acvp_algorithm: Option<CString>,
    acvp_revision: Option<CString>,
}

/// Registry text never holds a NUL; should one appear, the string is cut there.
fn c_string(text: &str) -> CString {
    let bytes: Vec<u8> = text.bytes().take_while(|&byte| byte != 0).collect();
    CString::new(bytes).unwrap_or_default()
}

fn row_strings() -> &'static [RowStrings] {
    static ROWS: OnceLock<Vec<RowStrings>> = OnceLock::new();
    ROWS.get_or_init(|| {
        REGISTRY
            .iter()
            .map(|entry| RowStrings {
                name: c_string(entry.name),
                family: c_string(entry.family.name()),
                provider: c_string(entry.provider.name()),
                oid: entry.oid.map(c_string),
                openssl_name: entry.openssl.map(|openssl| c_string(openssl.canonical())),
                hash: entry.hash.map(|hash| c_string(hash.name())),
                acvp_algorithm: entry.acvp.map(|acvp| c_string(acvp.algorithm)),
                acvp_revision: entry.acvp.map(|acvp| c_string(acvp.revision)),
            })
            .collect()
    })
}

fn optional(text: &Option<CString>) -> *const c_char {
    text.as_ref().map_or(std::ptr::null(), |text| text.as_ptr())
}

fn range(lengths: Option<Lengths>) -> (usize, usize) {
    lengths.map_or((0, 0), |lengths| (lengths.min, lengths.max))
}

/// The C view of row `index` (an index into `REGISTRY`), or `None` past the end.
fn describe(index: usize) -> Option<regula_algorithm_row> {
    let entry: &Entry = REGISTRY.get(index)?;
    let strings = row_strings().get(index)?;
    let sizes = entry.sizes;
    let (key_min, key_max) = range(sizes.key);
    let (nonce_min, nonce_max) = range(sizes.nonce);
    let (tag_min, tag_max) = range(sizes.tag);
    Some(regula_algorithm_row {
        name: strings.name.as_ptr(),
        family: strings.family.as_ptr(),
        provider: strings.provider.as_ptr(),
        oid: optional(&strings.oid),
        openssl_name: optional(&strings.openssl_name),
        hash: optional(&strings.hash),
        acvp_algorithm: optional(&strings.acvp_algorithm),
        acvp_revision: optional(&strings.acvp_revision),
        key_min,
        key_max,
        nonce_min,
        nonce_max,
        iv_len: sizes.iv.unwrap_or(0),
        tag_min,
        tag_max,
        block_len: sizes.block.unwrap_or(0),
        output_len: sizes.output.unwrap_or(0),
        public_key_len: sizes.public_key.unwrap_or(0),
        signature_max_len: sizes.signature.unwrap_or(0),
        ciphertext_len: sizes.ciphertext.unwrap_or(0),
        pkcs11_mechanism: entry.pkcs11.first().map_or(0, |mechanism| mechanism.value),
        pkcs11_count: entry.pkcs11.len(),
    })
}

/// The number of algorithms in the registry: `regula_algorithm_info_at` takes 0 to this - 1.
#[unsafe(no_mangle)]
pub extern "C" fn regula_algorithm_count() -> usize {
    REGISTRY.len()
}

/// Writes the registry row at `index` (0 to `regula_algorithm_count()` - 1) to `*out`. An index
/// past the end is `REGULA_ERR_INVALID_INPUT`, and `*out` is then all NULL and 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_algorithm_info_at(
    index: usize,
    out: *mut regula_algorithm_row,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise.
        let out = unsafe { out_param(out, "out") }?;
        *out = regula_algorithm_row::EMPTY;
        *out = describe(index).ok_or_else(|| {
            Fail::invalid(format!(
                "algorithm index {index} is out of range (the registry has {} algorithms)",
                REGISTRY.len()
            ))
        })?;
        Ok(())
    })
}

/// Writes the registry row of the algorithm called `name` (its registry name, any case) to
/// `*out`; `out->name` is the canonical spelling. An unknown name is
/// `REGULA_ERR_INVALID_INPUT` (see `regula_last_error_message`), and `*out` is then all NULL
/// and 0. The row does not depend on a policy: whether a policy allows the algorithm is asked
/// of a module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn regula_algorithm_info(
    name: *const c_char,
    out: *mut regula_algorithm_row,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's promise.
        let out = unsafe { out_param(out, "out") }?;
        *out = regula_algorithm_row::EMPTY;
        // SAFETY: the caller's promise.
        let algorithm = unsafe { crate::module::algorithm(name) }?;
        *out = describe(algorithm.index())
            .ok_or_else(|| Fail::invalid(format!("{algorithm} has no registry row")))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_described_and_an_index_past_the_end_is_refused() {
        for index in 0..regula_algorithm_count() {
            let info = describe(index).expect("a row");
            assert!(!info.name.is_null() && !info.family.is_null() && !info.provider.is_null());
        }
        assert!(describe(regula_algorithm_count()).is_none());
    }

    #[test]
    fn sizes_are_the_standards() {
        let at =
            |name: &str| describe(regula::Algorithm::from_name(name).unwrap().index()).unwrap();
        // SP 800-38D / RFC 5116 AEAD_AES_128_GCM: 16-byte key, 12-byte nonce, 16-byte tag.
        let gcm = at("aes-128-gcm");
        assert_eq!((gcm.key_min, gcm.key_max), (16, 16));
        assert_eq!(
            (gcm.nonce_min, gcm.nonce_max, gcm.tag_min, gcm.tag_max),
            (12, 12, 16, 16)
        );
        // FIPS 180-4: SHA-256 digests 32 bytes from 64-byte blocks; PKCS#11 CKM_SHA256 = 0x250.
        let sha256 = at("sha256");
        assert_eq!((sha256.output_len, sha256.block_len), (32, 64));
        assert_eq!((sha256.pkcs11_mechanism, sha256.pkcs11_count), (0x250, 1));
        assert!(!sha256.oid.is_null() && sha256.hash.is_null());
        // FIPS 204 Table 2: ML-DSA-65 public key 1952 bytes, signature 3309.
        let mldsa = at("ml-dsa-65");
        assert_eq!(
            (mldsa.public_key_len, mldsa.signature_max_len),
            (1952, 3309)
        );
    }
}
