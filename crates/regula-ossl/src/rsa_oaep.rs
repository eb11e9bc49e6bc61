//! `OSSL_OP_ASYM_CIPHER` "RSA": RSA-OAEP (RFC 8017 §7.1, SP 800-56B Rev. 2 key transport) over
//! the keys of the RSA key manager (keymgmt.rs), as `EVP_PKEY_encrypt` / `EVP_PKEY_decrypt`
//! and `openssl pkeyutl -encrypt/-decrypt -pkeyopt rsa_padding_mode:oaep` use it.
//!
//! OAEP only: PKCS#1 v1.5 encryption (Bleichenbacher's oracle; SP 800-131A Rev. 2 disallows
//! it for key transport after 2023), raw RSA and X9.31 padding are refused with Regula's
//! reason, and so is OpenSSL's default padding (PKCS#1 v1.5) until `pad-mode` asks for OAEP:
//! nothing switches to OAEP silently. The OAEP hash is OpenSSL's default (SHA-1) until
//! `digest` names another; the row (`rsa-oaep-sha1`, `-sha256`, ...) follows from it and the
//! policy decides when the operation runs (fips-140-3 refuses SHA-1). MGF1 uses the OAEP hash
//! (what the core does); another `mgf1-digest` is refused. Encryption is the core's
//! `rsa_oaep_encrypt` to the key's SubjectPublicKeyInfo; decryption imports the key's PKCS#8
//! into the row's core `DecryptionKey`, once per row and init.

use std::os::raw::{c_uint, c_void};
use std::sync::Arc;

use regula::{Algorithm, DecryptionKey, Family, Indicator, Module, Policy, registry};
use zeroize::Zeroizing;

use crate::asym_cipher_calls::{self, AsymCipherContext};
use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::keymgmt::{self, KeyType, RsaKey};
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};

/// `OSSL_PARAM_OCTET_PTR`: how `EVP_PKEY_CTX_get0_rsa_oaep_label` asks for the label.
const PARAM_OCTET_PTR: c_uint = 7;

/// OpenSSL's `RSA_*_PADDING` numbers for `pad-mode`.
const PAD_PKCS1: i64 = 1;
const PAD_NONE: i64 = 3;
const PAD_OAEP: i64 = 4;
const PAD_X931: i64 = 5;

/// The OAEP hash OpenSSL uses until `digest` is set (rsa_enc.c, RFC 8017's default).
const DEFAULT_DIGEST: Algorithm = Algorithm::Sha1;

/// Whether a registry row is one of RSA-OAEP's (one row per OAEP hash).
fn is_oaep_row(row: &registry::Entry) -> bool {
    row.family == Family::PublicKeyEncryption
        && row
            .openssl
            .as_ref()
            .is_some_and(|name| name.canonical() == "RSA")
        && keymgmt::openssl_param(row, "pad-mode") == Some("oaep")
}

/// Every RSA-OAEP row, whether or not the policy serves it.
fn oaep_rows() -> impl Iterator<Item = Algorithm> {
    Algorithm::ALL
        .into_iter()
        .filter(|&algorithm| is_oaep_row(registry::entry(algorithm)))
}

/// "RSA" (the rows' OpenSSL names, as OpenSSL's default provider) where the policy serves at
/// least one RSA-OAEP row and the RSA key manager (which RSA signatures offer).
pub fn offers(policy: &Policy) -> Vec<Offer> {
    let has_rsa_keys = served_rows(policy, Family::Signature).any(|row| KeyType::Rsa.serves(row));
    if !has_rsa_keys {
        return Vec::new();
    }
    let rows: Vec<_> = served_rows(policy, Family::PublicKeyEncryption)
        .filter(|row| is_oaep_row(row))
        .collect();
    Offer::named_by_first_row(policy, &rows, "RSA-OAEP encryption", &TABLE.0)
}

static TABLE: ffi::SyncTable<[Dispatch; 12]> =
    ffi::SyncTable(asym_cipher_calls::table::<Context>(newctx));

/// One encryption or decryption (`EVP_PKEY_CTX`'s provider half).
#[derive(Clone)]
struct Context {
    module: Module,
    /// The key an init was given, and whether that init was for decryption.
    key: Option<RsaKey>,
    decrypts: bool,
    /// `pad-mode` oaep was set; OpenSSL's default until then is PKCS#1 v1.5, refused.
    oaep: bool,
    /// The OAEP hash, and MGF1's if set apart from it.
    digest: Algorithm,
    mgf1: Option<Algorithm>,
    /// OAEP's label L (empty by default).
    label: Vec<u8>,
    /// The core's decryption key of each row this init has decrypted with.
    decryption_keys: Vec<(Algorithm, Arc<DecryptionKey>)>,
    last: LastOperation,
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "RSA-OAEP context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(self.clone())
    }
}

impl Context {
    /// The settings an init starts from, as OpenSSL's rsa_enc.c resets them.
    fn reset(&mut self) {
        self.key = None;
        self.oaep = false;
        self.digest = DEFAULT_DIGEST;
        self.mgf1 = None;
        self.label.clear();
        self.decryption_keys.clear();
    }
}

unsafe extern "C" fn newctx(provctx: *mut c_void) -> *mut c_void {
    error::guard(std::ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the provctx it was given.
        let Some(provider) = (unsafe { ProviderContext::from_ptr(provctx) }) else {
            return std::ptr::null_mut();
        };
        if let Err(problem) = provider.module.ensure_operational() {
            error::raise_regula(&problem);
            return std::ptr::null_mut();
        }
        crate::context::into_raw(Context {
            module: provider.module.clone(),
            key: None,
            decrypts: false,
            oaep: false,
            digest: DEFAULT_DIGEST,
            mgf1: None,
            label: Vec::new(),
            decryption_keys: Vec::new(),
            last: LastOperation::default(),
        })
    })
}

/// Why a padding other than OAEP is not served (`asked`: what was asked for).
fn not_oaep(asked: &str) -> Failure {
    fail(
        Reason::NotApproved,
        format!(
            "not served: RSA encryption is OAEP only ({asked}); set \"pad-mode\" to oaep \
             (PKCS#1 v1.5 encryption, raw RSA and X9.31 padding are not offered by the Regula \
             provider)"
        ),
    )
}

/// An OpenSSL digest name as one of the RSA-OAEP rows' hashes.
fn oaep_digest(what: &str, name: &str) -> Result<Algorithm, Failure> {
    let digest = crate::names::row_named_in(Family::Digest, name);
    match digest {
        Some(digest) if oaep_rows().any(|row| registry::entry(row).hash == Some(digest)) => {
            Ok(digest)
        }
        _ => {
            let offered: Vec<_> = oaep_rows()
                .filter_map(|row| registry::entry(row).hash)
                .map(digest_name)
                .collect();
            Err(fail(
                Reason::NotApproved,
                format!(
                    "\"{what}\" {name} is not a hash of the Regula provider's RSA-OAEP ({})",
                    offered.join(", ")
                ),
            ))
        }
    }
}

/// OpenSSL's canonical name of a digest row ("SHA1", "SHA2-256").
fn digest_name(digest: Algorithm) -> &'static str {
    let row = registry::entry(digest);
    row.openssl
        .as_ref()
        .map_or(row.name, |name| name.canonical())
}

/// The RSA-OAEP row the context's settings name, or why there is none. Whether the policy
/// serves it (and the key's size) is the core's to say when the operation runs.
fn oaep_row(context: &Context) -> Result<Algorithm, Failure> {
    if !context.oaep {
        return Err(not_oaep(
            "the padding is PKCS#1 v1.5, OpenSSL's default, until \"pad-mode\" is set",
        ));
    }
    if let Some(mgf1) = context.mgf1.filter(|&mgf1| mgf1 != context.digest) {
        return Err(fail(
            Reason::NotApproved,
            format!(
                "RSA-OAEP with MGF1-{} over a {} OAEP hash is not offered: the Regula \
                 provider's MGF1 uses the OAEP hash (set \"mgf1-digest\" equal to \"digest\")",
                digest_name(mgf1),
                digest_name(context.digest)
            ),
        ));
    }
    oaep_rows()
        .find(|&row| registry::entry(row).hash == Some(context.digest))
        .ok_or_else(|| {
            fail(
                Reason::NotApproved,
                format!(
                    "RSA-OAEP with {} is not offered by the Regula provider",
                    digest_name(context.digest)
                ),
            )
        })
}

/// The core's decryption key of `row` for the context's key, imported the first time (one
/// key import under the policy, which checks the row and the modulus size).
fn decryption_key(context: &mut Context, row: Algorithm) -> Result<Arc<DecryptionKey>, Failure> {
    if let Some((_, key)) = context.decryption_keys.iter().find(|(r, _)| *r == row) {
        return Ok(Arc::clone(key));
    }
    let private = context
        .key
        .as_ref()
        .and_then(|rsa| rsa.private.clone())
        .ok_or_else(|| {
            fail(
                Reason::InvalidInput,
                "RSA-OAEP decryption needs a private key",
            )
        })?;
    let key = Arc::new(
        context
            .module
            .decryption_key_from_pkcs8(row, private.pkcs8())?
            .into_value(),
    );
    context.decryption_keys.push((row, Arc::clone(&key)));
    Ok(key)
}

impl AsymCipherContext for Context {
    unsafe fn init(
        &mut self,
        provkey: *mut c_void,
        decrypts: bool,
        params: &Params,
    ) -> Result<(), Failure> {
        // SAFETY: the caller's contract; a key of another key manager holds no RSA key.
        let key = unsafe { keymgmt::key(provkey)? };
        self.reset();
        let rsa = key.rsa.clone().ok_or_else(|| {
            fail(
                Reason::InvalidInput,
                "RSA-OAEP needs an RSA key; this key holds none",
            )
        })?;
        if decrypts && rsa.private.is_none() {
            return Err(fail(
                Reason::InvalidInput,
                "RSA-OAEP decryption needs a private key; this key has none",
            ));
        }
        self.key = Some(rsa);
        self.decrypts = decrypts;
        apply(self, params)
    }

    fn ready_for(&self, decrypts: bool) -> bool {
        self.key.is_some() && self.decrypts == decrypts
    }

    /// The modulus in bytes, for either direction.
    fn output_bound(&self, _decrypts: bool, _input_len: usize) -> usize {
        self.key.as_ref().map_or(0, |key| key.public.size())
    }

    fn run(
        &mut self,
        decrypts: bool,
        input: &[u8],
        room: usize,
    ) -> Result<(Zeroizing<Vec<u8>>, Indicator), Failure> {
        // Checked here, not at the length query, as OpenSSL's own provider checks its padding.
        let row = oaep_row(self)?;
        if decrypts {
            let decryption_key = decryption_key(self, row)?;
            return Ok(decryption_key
                .decrypt_with_label(input, &self.label)?
                .into_parts());
        }
        let key = self
            .key
            .as_ref()
            .ok_or_else(|| fail(Reason::OutOfOrder, "encrypt before encrypt_init"))?;
        // The ciphertext is always as long as the modulus: refused before any work.
        let modulus_bytes = key.public.size();
        if room < modulus_bytes {
            return Err(fail(
                Reason::InvalidInput,
                format!("the ciphertext is {modulus_bytes} bytes; the buffer holds {room}"),
            ));
        }
        let (ciphertext, indicator) = self
            .module
            .rsa_oaep_encrypt(row, &key.public.spki, input, &self.label)?
            .into_parts();
        Ok((Zeroizing::new(ciphertext), indicator))
    }

    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        apply(self, params)
    }

    unsafe fn answer(&self, params: *mut Param) -> Result<(), Failure> {
        // SAFETY: the caller's contract.
        unsafe { answer_params(self, params) }
    }

    fn last_mut(&mut self) -> &mut LastOperation {
        &mut self.last
    }
}

/// `pad-mode` as OpenSSL's number or name: OAEP, or the refusal.
fn pad_mode(param: &params::ParamRef<'_>) -> Result<(), Failure> {
    let name = match param.get_utf8() {
        Ok(name) => name,
        Err(_) => match param.get_i64()? {
            PAD_PKCS1 => "pkcs1".to_owned(),
            PAD_NONE => "none".to_owned(),
            PAD_OAEP => "oaep".to_owned(),
            PAD_X931 => "x931".to_owned(),
            other => other.to_string(),
        },
    };
    // "oeap": the misspelling OpenSSL's own providers accept as well.
    if name.eq_ignore_ascii_case("oaep") || name.eq_ignore_ascii_case("oeap") {
        Ok(())
    } else {
        Err(not_oaep(&format!("\"pad-mode\" {name} was asked")))
    }
}

/// `pad-mode`, `digest`, `mgf1-digest` and `oaep-label`; `digest-props` and
/// `mgf1-properties` are ignored (the module's own digests are the only ones used).
fn apply(context: &mut Context, params: &Params) -> Result<(), Failure> {
    for param in params.iter() {
        match param.key {
            "pad-mode" => {
                pad_mode(&param)?;
                context.oaep = true;
            }
            "digest" => context.digest = oaep_digest("digest", &param.get_utf8()?)?,
            "mgf1-digest" => context.mgf1 = Some(oaep_digest("mgf1-digest", &param.get_utf8()?)?),
            "oaep-label" => context.label = param.get_octets()?.to_vec(),
            _ => {}
        }
    }
    Ok(())
}

static SETTABLE: params::ParamList = crate::param_list![
    ("pad-mode", params::UTF8),
    ("digest", params::UTF8),
    ("digest-props", params::UTF8),
    ("mgf1-digest", params::UTF8),
    ("mgf1-properties", params::UTF8),
    ("oaep-label", params::OCTETS),
];

static GETTABLE: params::ParamList = crate::param_list![
    ("pad-mode", params::UTF8),
    ("digest", params::UTF8),
    ("mgf1-digest", params::UTF8),
    ("oaep-label", PARAM_OCTET_PTR),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

impl params::CtxParamLists for Context {
    const GETTABLE: &'static params::ParamList = &GETTABLE;
    const SETTABLE: &'static params::ParamList = &SETTABLE;
}

/// Answers `oaep-label` as `EVP_PKEY_CTX_get0_rsa_oaep_label` asks (an `OCTET_PTR` pointed at
/// the context's label, valid while the context is), or into an `OCTET_STRING` buffer.
///
/// # Safety
/// `param` is an entry of the caller's array; an `OCTET_PTR` entry's data is a `void **`.
unsafe fn answer_label(label: &[u8], param: *mut Param) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    let param = unsafe { &mut *param };
    match param.data_type {
        PARAM_OCTET_PTR => {
            param.return_size = label.len();
            if !param.data.is_null() {
                // SAFETY: an OCTET_PTR entry's data points to the caller's `void *`.
                unsafe { *(param.data as *mut *const c_void) = label.as_ptr().cast() };
            }
            Ok(())
        }
        ffi::PARAM_OCTET_STRING => {
            param.return_size = label.len();
            if param.data.is_null() {
                return Ok(());
            }
            if param.data_size < label.len() {
                return Err(fail(
                    Reason::BadParameter,
                    format!(
                        "\"oaep-label\": the label is {} bytes; the buffer holds {}",
                        label.len(),
                        param.data_size
                    ),
                ));
            }
            // SAFETY: `data` holds `data_size` >= label.len() writable bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(label.as_ptr(), param.data as *mut u8, label.len())
            };
            Ok(())
        }
        _ => Err(fail(
            Reason::BadParameter,
            "\"oaep-label\" is an octet string (or octet pointer)",
        )),
    }
}

/// `pad-mode`, `digest`, `mgf1-digest`, `oaep-label` and the indicator.
///
/// # Safety
/// `params` is a terminated array.
unsafe fn answer_params(context: &Context, params: *mut Param) -> Result<(), Failure> {
    // The label is answered on the raw entry (an OCTET_PTR, which `Params` does not
    // write); the other keys through `Params`.
    let mut entry = params;
    while !entry.is_null() {
        // SAFETY: `entry` walks the caller's terminated array, stopping at its end.
        let key = unsafe { (*entry).key };
        if key.is_null() {
            break;
        }
        // SAFETY: OpenSSL parameter keys are NUL-terminated C strings.
        if unsafe { std::ffi::CStr::from_ptr(key) }.to_bytes() == b"oaep-label" {
            // SAFETY: an entry of the caller's array.
            unsafe { answer_label(&context.label, entry)? };
        }
        // SAFETY: the entry after a non-terminating one is inside the array.
        entry = unsafe { entry.add(1) };
    }
    // SAFETY: a terminated array.
    let params = unsafe { Params::new(params) };
    for mut param in params.iter() {
        match param.key {
            "pad-mode" => {
                let (number, name) = if context.oaep {
                    (PAD_OAEP, "oaep")
                } else {
                    (PAD_PKCS1, "pkcs1")
                };
                // OpenSSL's EVP_PKEY_CTX_get_rsa_padding asks for the number.
                if param.set_i64(number).is_err() {
                    param.set_utf8(name)?;
                }
            }
            "digest" => param.set_utf8(digest_name(context.digest))?,
            "mgf1-digest" => param.set_utf8(digest_name(context.mgf1.unwrap_or(context.digest)))?,
            _ => indicator::answer_param(context.last, &mut param)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_oaep_row_has_a_hash_named_for_openssl() {
        let hashes: Vec<_> = oaep_rows()
            .map(|row| digest_name(registry::entry(row).hash.expect("an OAEP hash")))
            .collect();
        assert_eq!(hashes, ["SHA1", "SHA2-256", "SHA2-384", "SHA2-512"]);
    }

    #[test]
    fn digest_names_map_to_oaep_hashes() {
        assert_eq!(
            oaep_digest("digest", "sha256").ok(),
            Some(Algorithm::Sha256)
        );
        assert_eq!(oaep_digest("digest", "SHA1").ok(), Some(Algorithm::Sha1));
        assert!(oaep_digest("digest", "SHA2-224").is_err());
        assert!(oaep_digest("digest", "SHAKE128").is_err());
    }
}
