//! `OSSL_FUNC_PROVIDER_GET_CAPABILITIES`: the "TLS-GROUP" capability, one entry per
//! key-exchange group the loaded policy serves, with the parameters libssl reads (as OpenSSL's
//! providers/common/capabilities.c gives them). libssl then offers and accepts exactly these
//! groups from Regula, and makes their keys with the key manager the entry names. And OpenSSL
//! 3.4+'s "TLS-SIGALG": one entry per signature scheme the policy serves that TLS has no
//! built-in entry for (ML-DSA in TLS 1.3), so that libssl 3.5 signs and verifies with it.
//!
//! The TLS names and code points are the registry rows' (`tls-group`, `tls-group-id`;
//! `tls-sigalg`, `tls-sigalg-code-point`, `tls-sigalg-sec-bits`).

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_uint, c_void};

use regula::{Algorithm, Family, Policy};

use crate::error::{self, Reason, fail};
use crate::ffi::{self, Param};
use crate::keymgmt::{self, KEY_TYPES, KeyType};
use crate::mlkem_keymgmt;
use crate::provider_context::{ProviderContext, served_rows};

/// One TLS group as libssl learns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsGroup {
    pub algorithm: Algorithm,
    /// `tls-group-name`: the IANA name ("secp256r1", "x25519").
    pub name: String,
    /// Other names libssl should take for the group ("P-256", "X25519"): each is reported as a
    /// group of its own with the same id, as capabilities.c reports its aliases, because
    /// libssl 3.0 finds a group given by name (`-groups P-256`) among the reported names only.
    pub aliases: Vec<String>,
    /// `tls-group-name-internal`: the name the key manager takes as `group` ("prime256v1").
    pub internal: String,
    pub id: c_uint,
    /// `tls-group-alg`: the key manager ("EC", "X25519").
    pub key_manager: String,
    pub security_bits: c_uint,
    /// `tls-group-is-kem`: a KEM group (ML-KEM and its hybrids), TLS 1.3 only.
    pub kem: bool,
}

/// The TLS groups of the rows the policy serves, in the registry's order.
pub fn tls_groups(policy: &Policy) -> Vec<TlsGroup> {
    served_rows(policy, Family::KeyAgreement)
        .filter_map(|row| {
            let kind = KEY_TYPES.into_iter().find(|kind| kind.serves(row))?;
            let name = keymgmt::openssl_param(row, "tls-group")?;
            let id = keymgmt::openssl_param(row, "tls-group-id")?.parse().ok()?;
            let key_manager = keymgmt::openssl_param(row, "keymgmt")?.split(':').next()?;
            let (internal, alias) = match kind {
                KeyType::Ec => (
                    keymgmt::group_short_name(row.algorithm),
                    keymgmt::openssl_param(row, "group")?,
                ),
                KeyType::X25519 | KeyType::Ed25519 | KeyType::Rsa | KeyType::RsaPss => {
                    let canonical = row.openssl.as_ref()?.canonical();
                    (canonical, canonical)
                }
            };
            Some(TlsGroup {
                algorithm: row.algorithm,
                name: name.to_owned(),
                aliases: (alias != name)
                    .then(|| alias.to_owned())
                    .into_iter()
                    .collect(),
                internal: internal.to_owned(),
                id,
                key_manager: key_manager.to_owned(),
                security_bits: keymgmt::facts(row.algorithm).security_bits as c_uint,
                kem: false,
            })
        })
        .collect()
}

/// The TLS groups of the ML-KEM rows and hybrids the policy serves (KEM groups, TLS 1.3 only):
/// the rows' `tls-group` and `tls-group-id`, and the hybrids' own.
pub fn kem_tls_groups(policy: &Policy) -> Vec<TlsGroup> {
    mlkem_keymgmt::served_variants(policy)
        .filter_map(|variant| {
            let (name, id) = match variant.hybrid() {
                Some(hybrid) => (hybrid.name, hybrid.tls_id),
                None => {
                    let row = regula::registry::entry(variant.kem);
                    (
                        keymgmt::openssl_param(row, "tls-group")?,
                        keymgmt::openssl_param(row, "tls-group-id")?.parse().ok()?,
                    )
                }
            };
            Some(TlsGroup {
                algorithm: variant.kem,
                name: name.to_owned(),
                aliases: Vec::new(),
                // As OpenSSL 3.5's capabilities.c: no internal group name for these.
                internal: String::new(),
                id,
                key_manager: variant.label().to_owned(),
                security_bits: variant.security_bits() as u32,
                kem: true,
            })
        })
        .collect()
}

/// One TLS signature scheme as libssl 3.4+ learns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSigalg {
    pub algorithm: Algorithm,
    /// `tls-sigalg-iana-name`: the SignatureScheme's name ("mldsa65").
    pub iana_name: &'static str,
    /// `tls-sigalg-name`: the signature algorithm libssl fetches ("ML-DSA-65").
    pub name: &'static str,
    /// `tls-sigalg-oid`.
    pub oid: &'static str,
    /// `tls-sigalg-code-point`.
    pub code_point: c_uint,
    /// `tls-sigalg-sec-bits`.
    pub security_bits: c_uint,
}

/// The TLS signature schemes of the signature rows the policy serves, in the registry's order.
pub fn tls_sigalgs(policy: &Policy) -> Vec<TlsSigalg> {
    served_rows(policy, Family::Signature)
        .filter_map(|row| {
            Some(TlsSigalg {
                algorithm: row.algorithm,
                iana_name: keymgmt::openssl_param(row, "tls-sigalg")?,
                name: row.openssl.as_ref()?.canonical(),
                oid: row.oid?,
                code_point: keymgmt::openssl_param(row, "tls-sigalg-code-point")?
                    .parse()
                    .ok()?,
                security_bits: keymgmt::openssl_param(row, "tls-sigalg-sec-bits")?
                    .parse()
                    .ok()?,
            })
        })
        .collect()
}

/// Hands one signature scheme to libssl's callback, with the fields and TLS versions OpenSSL
/// 3.5's own ML-DSA entries have: TLS 1.3 up, no upper bound (0), no DTLS (-1).
fn report_sigalg(sigalg: &TlsSigalg, callback: ffi::Callback, argument: *mut c_void) -> c_int {
    let iana_name = CString::new(sigalg.iana_name).unwrap_or_default();
    let name = CString::new(sigalg.name).unwrap_or_default();
    let oid = CString::new(sigalg.oid).unwrap_or_default();
    let (code_point, security_bits) = (sigalg.code_point, sigalg.security_bits);
    let (min_tls, max_tls, min_dtls, max_dtls): (c_int, c_int, c_int, c_int) =
        (TLS1_3_VERSION, 0, -1, -1);
    let uint = |value: &c_uint| (value as *const c_uint as *const c_void, 4);
    let int = |value: &c_int| (value as *const c_int as *const c_void, 4);
    let entries = [
        (
            c"tls-sigalg-iana-name",
            ffi::PARAM_UTF8_STRING,
            text(&iana_name),
        ),
        (c"tls-sigalg-name", ffi::PARAM_UTF8_STRING, text(&name)),
        (c"tls-sigalg-oid", ffi::PARAM_UTF8_STRING, text(&oid)),
        (
            c"tls-sigalg-code-point",
            ffi::PARAM_UNSIGNED_INTEGER,
            uint(&code_point),
        ),
        (
            c"tls-sigalg-sec-bits",
            ffi::PARAM_UNSIGNED_INTEGER,
            uint(&security_bits),
        ),
        (c"tls-min-tls", ffi::PARAM_INTEGER, int(&min_tls)),
        (c"tls-max-tls", ffi::PARAM_INTEGER, int(&max_tls)),
        (c"tls-min-dtls", ffi::PARAM_INTEGER, int(&min_dtls)),
        (c"tls-max-dtls", ffi::PARAM_INTEGER, int(&max_dtls)),
    ];
    // SAFETY: the entries' data outlives the call.
    unsafe { hand_over(&entries, callback, argument) }
}

/// One capability's entries as a terminated parameter array, handed to libssl's callback.
///
/// # Safety
/// Each entry's data points to `size` readable bytes that outlive the call.
unsafe fn hand_over(
    entries: &[(&'static CStr, c_uint, (*const c_void, usize))],
    callback: ffi::Callback,
    argument: *mut c_void,
) -> c_int {
    let mut array: Vec<Param> = entries
        .iter()
        .map(|(key, data_type, (data, size))| param(key, *data_type, *data, *size))
        .collect();
    array.push(Param::END);
    // SAFETY: libssl's callback with a terminated array whose data outlives the call.
    unsafe { callback(array.as_ptr(), argument) }
}

/// TLS 1.3's protocol version (RFC 8446 §4.2.1).
const TLS1_3_VERSION: c_int = 0x0304;

fn param(key: &'static CStr, data_type: c_uint, data: *const c_void, size: usize) -> Param {
    Param {
        key: key.as_ptr(),
        data_type,
        data: data as *mut c_void,
        data_size: size,
        return_size: ffi::PARAM_UNMODIFIED,
    }
}

fn text(value: &CString) -> (*const c_void, usize) {
    // OpenSSL's own entries count the terminating NUL.
    (
        value.as_ptr() as *const c_void,
        value.as_bytes_with_nul().len(),
    )
}

/// Hands one group, under the name `name`, to libssl's callback.
fn report(group: &TlsGroup, name: &str, callback: ffi::Callback, argument: *mut c_void) -> c_int {
    let name = CString::new(name).unwrap_or_default();
    let internal = CString::new(group.internal.as_str()).unwrap_or_default();
    let key_manager = CString::new(group.key_manager.as_str()).unwrap_or_default();
    let (id, security_bits, is_kem): (c_uint, c_uint, c_uint) =
        (group.id, group.security_bits, c_uint::from(group.kem));
    // TLS 1.0 and DTLS 1.0 up, with no upper bound (0), as capabilities.c has for (EC)DHE; a
    // KEM group TLS 1.3 up and no DTLS (-1).
    let (min_tls, max_tls, min_dtls, max_dtls): (c_int, c_int, c_int, c_int) = if group.kem {
        (TLS1_3_VERSION, 0, -1, -1)
    } else {
        (ffi::TLS1_VERSION, 0, ffi::DTLS1_VERSION, 0)
    };
    let uint = |value: &c_uint| (value as *const c_uint as *const c_void, 4);
    let int = |value: &c_int| (value as *const c_int as *const c_void, 4);
    let entries = [
        (c"tls-group-name", ffi::PARAM_UTF8_STRING, text(&name)),
        (
            c"tls-group-name-internal",
            ffi::PARAM_UTF8_STRING,
            text(&internal),
        ),
        (c"tls-group-id", ffi::PARAM_UNSIGNED_INTEGER, uint(&id)),
        (c"tls-group-alg", ffi::PARAM_UTF8_STRING, text(&key_manager)),
        (
            c"tls-group-sec-bits",
            ffi::PARAM_UNSIGNED_INTEGER,
            uint(&security_bits),
        ),
        (
            c"tls-group-is-kem",
            ffi::PARAM_UNSIGNED_INTEGER,
            uint(&is_kem),
        ),
        (c"tls-min-tls", ffi::PARAM_INTEGER, int(&min_tls)),
        (c"tls-max-tls", ffi::PARAM_INTEGER, int(&max_tls)),
        (c"tls-min-dtls", ffi::PARAM_INTEGER, int(&min_dtls)),
        (c"tls-max-dtls", ffi::PARAM_INTEGER, int(&max_dtls)),
    ];
    // SAFETY: the entries' data outlives the call.
    unsafe { hand_over(&entries, callback, argument) }
}

/// `get_capabilities`: "TLS-GROUP" and "TLS-SIGALG" answered from the policy; other
/// capabilities have nothing to report.
///
/// # Safety
/// Called by libcrypto with the provider context, a C string and its callback.
pub unsafe extern "C" fn get_capabilities(
    provctx: *mut c_void,
    capability: *const c_char,
    callback: Option<ffi::Callback>,
    argument: *mut c_void,
) -> c_int {
    error::entry(|| {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return Err(fail(Reason::OutOfOrder, "no provider context"));
        };
        if capability.is_null() {
            return Err(fail(Reason::BadParameter, "no capability named"));
        }
        // SAFETY: a NUL-terminated capability name.
        let capability = unsafe { CStr::from_ptr(capability) }.to_bytes();
        let sigalgs = capability.eq_ignore_ascii_case(b"TLS-SIGALG");
        if !sigalgs && !capability.eq_ignore_ascii_case(b"TLS-GROUP") {
            return Ok(());
        }
        let callback = callback.ok_or_else(|| fail(Reason::OutOfOrder, "no callback"))?;
        if provider.module.ensure_operational().is_err() {
            // A module in its error state serves nothing, so it offers no group or scheme.
            return Ok(());
        }
        let policy = provider.module.policy();
        if sigalgs {
            for sigalg in tls_sigalgs(policy) {
                if report_sigalg(&sigalg, callback, argument) == 0 {
                    return Err(fail(
                        Reason::Internal,
                        format!(
                            "libssl refused the TLS signature scheme {}",
                            sigalg.iana_name
                        ),
                    ));
                }
            }
            return Ok(());
        }
        for group in tls_groups(policy).into_iter().chain(kem_tls_groups(policy)) {
            for name in std::iter::once(&group.name).chain(&group.aliases) {
                if report(&group, name, callback, argument) == 0 {
                    return Err(fail(
                        Reason::Internal,
                        format!("libssl refused the TLS group {name}"),
                    ));
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regula::registry;

    /// IANA's TLS Supported Groups registry: secp256r1 23, secp384r1 24, x25519 29.
    #[test]
    fn groups_carry_their_iana_code_points() {
        let module = regula::Module::load_named("default").expect("default policy");
        let groups = tls_groups(module.policy());
        let ids: Vec<_> = groups
            .iter()
            .map(|group| {
                (
                    group.name.as_str(),
                    group.id,
                    group.internal.as_str(),
                    group.aliases.join(","),
                )
            })
            .collect();
        assert_eq!(
            ids,
            [
                ("secp256r1", 23, "prime256v1", "P-256".to_owned()),
                ("secp384r1", 24, "secp384r1", "P-384".to_owned()),
                ("x25519", 29, "X25519", "X25519".to_owned()),
                // RFC 8998 §3.1's curveSM2: an "EC" key on group "SM2".
                ("curveSM2", 41, "SM2", "SM2".to_owned())
            ]
        );
        assert_eq!(registry::entry(groups[0].algorithm).name, "ecdh-p256");
    }

    /// The ML-DSA rows as OpenSSL 3.5's capabilities.c lists them (draft-ietf-tls-mldsa's
    /// code points 0x0904-0x0906); cnsa-2.0 serves ML-DSA-87 only, gm none.
    #[test]
    fn sigalgs_are_the_served_ml_dsa_rows() {
        let sigalgs = |policy: &str| {
            let module = regula::Module::load_named(policy).expect("built-in policy");
            tls_sigalgs(module.policy())
                .into_iter()
                .map(|s| (s.iana_name, s.name, s.oid, s.code_point, s.security_bits))
                .collect::<Vec<_>>()
        };
        let all = [
            (
                "mldsa44",
                "ML-DSA-44",
                "2.16.840.1.101.3.4.3.17",
                0x0904,
                128,
            ),
            (
                "mldsa65",
                "ML-DSA-65",
                "2.16.840.1.101.3.4.3.18",
                0x0905,
                192,
            ),
            (
                "mldsa87",
                "ML-DSA-87",
                "2.16.840.1.101.3.4.3.19",
                0x0906,
                256,
            ),
        ];
        assert_eq!(sigalgs("default"), all);
        assert_eq!(sigalgs("fips-140-3"), all);
        assert_eq!(sigalgs("cnsa-2.0"), all[2..]);
        assert_eq!(sigalgs("gm"), []);
    }

    /// X25519 key agreement is not approved in FIPS 140-3 (SP 800-56A Rev. 3): the strict
    /// policy does not serve it, so libssl is not offered the group.
    #[test]
    fn fips_140_3_offers_only_approved_groups() {
        let module = regula::Module::load_named("fips-140-3").expect("fips-140-3 policy");
        let names: Vec<_> = tls_groups(module.policy())
            .into_iter()
            .map(|group| group.name)
            .collect();
        assert_eq!(names, ["secp256r1", "secp384r1"]);
    }

    /// IANA TLS Supported Groups: MLKEM768 0x0201, MLKEM1024 0x0202, SecP256r1MLKEM768 0x11EB,
    /// X25519MLKEM768 0x11EC, SecP384r1MLKEM1024 0x11ED. Under fips-140-3 X25519 is not
    /// served, so neither is its hybrid.
    #[test]
    fn kem_groups_carry_their_iana_code_points() {
        let names = |policy: &str| -> Vec<(String, u32)> {
            let module = regula::Module::load_named(policy).expect("policy");
            kem_tls_groups(module.policy())
                .into_iter()
                .map(|group| (group.name, group.id))
                .collect()
        };
        let own = |list: &[(&str, u32)]| -> Vec<(String, u32)> {
            list.iter().map(|(n, i)| (n.to_string(), *i)).collect()
        };
        assert_eq!(
            names("default"),
            own(&[
                ("MLKEM768", 513),
                ("MLKEM1024", 514),
                ("X25519MLKEM768", 4588),
                ("SecP256r1MLKEM768", 4587),
                ("SecP384r1MLKEM1024", 4589),
            ])
        );
        assert_eq!(
            names("fips-140-3"),
            own(&[
                ("MLKEM768", 513),
                ("MLKEM1024", 514),
                ("SecP256r1MLKEM768", 4587),
                ("SecP384r1MLKEM1024", 4589),
            ])
        );
    }
}
