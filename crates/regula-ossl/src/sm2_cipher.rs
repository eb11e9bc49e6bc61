//! `OSSL_OP_ASYM_CIPHER` "SM2": GB/T 32918.4-2016 public-key encryption over the keys of the
//! SM2 key manager (sm2.rs), as OpenSSL's and Tongsuo's providers offer it to
//! `EVP_PKEY_encrypt` / `EVP_PKEY_decrypt` (`openssl pkeyutl -encrypt/-decrypt`). The
//! ciphertext is GM/T 0009-2012's ASN.1 `SM2Cipher` (what OpenSSL writes and reads); the hash
//! is SM3 (`digest` may name it; another digest is refused when the operation runs, as
//! OpenSSL's own provider refuses an XOF there). Encryption is the core's
//! `encrypt_to_public_key`; decryption imports the key's scalar into the core's `sm2-encrypt`
//! row once per init.

use std::os::raw::c_void;
use std::sync::Arc;

use regula::{Algorithm, CiphertextFormat, DecryptionKey, Family, Indicator, Module, Policy};
use zeroize::Zeroizing;

use crate::asym_cipher_calls::{self, AsymCipherContext};
use crate::error::{self, Failure, Reason, fail};
use crate::ffi::{self, Dispatch, Param};
use crate::indicator::{self, LastOperation};
use crate::params::{self, Params};
use crate::provider_context::{Offer, ProviderContext, served_rows};
use crate::sm2;

/// The encryption row; its keys come from the SM2 key manager, which the signature row offers.
const ROW: Algorithm = Algorithm::Sm2Encrypt;
/// SM3's output, the `C3` of a ciphertext.
const HASH_LEN: usize = 32;
/// curveSM2's field in bytes.
const FIELD: usize = 32;

/// "SM2" where the policy serves SM2 encryption and the SM2 key manager (SM2 signatures) too.
pub fn offers(policy: &Policy) -> Vec<Offer> {
    if !policy.serves(Algorithm::Sm2Sign) {
        return Vec::new();
    }
    let rows: Vec<_> = served_rows(policy, Family::PublicKeyEncryption)
        .filter(|row| row.algorithm == ROW)
        .collect();
    Offer::named_by_first_row(policy, &rows, "SM2 encryption", &TABLE.0)
}

static TABLE: ffi::SyncTable<[Dispatch; 12]> =
    ffi::SyncTable(asym_cipher_calls::table::<Context>(newctx));

/// What an init prepared: the recipient's point, or our decryption key.
#[derive(Clone)]
enum Operation {
    Encrypt { point: Vec<u8> },
    Decrypt { key: Arc<DecryptionKey> },
}

/// One encryption or decryption (`EVP_PKEY_CTX`'s provider half).
#[derive(Clone)]
struct Context {
    module: Module,
    operation: Option<Operation>,
    /// The digest `digest` named (empty: SM3 by default).
    digest: String,
    last: LastOperation,
}

impl crate::context::Duplicate for Context {
    const WHAT: &'static str = "SM2 encryption context";

    fn duplicate(&self) -> Result<Context, Failure> {
        Ok(self.clone())
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
            operation: None,
            digest: String::new(),
            last: LastOperation::default(),
        })
    })
}

/// Refuses a digest other than SM3, which is all GB/T 32918.4 here hashes with.
fn check_digest(context: &Context) -> Result<(), Failure> {
    let name = context.digest.as_str();
    if name.is_empty() || crate::names::row_named_in(Family::Digest, name) == Some(Algorithm::Sm3) {
        return Ok(());
    }
    Err(fail(
        Reason::NotApproved,
        format!("SM2 encryption hashes with SM3 only (GB/T 32918.4); \"{name}\" was named"),
    ))
}

/// The DER length of a length-`len` content's header (tag and length bytes).
fn der_header_len(len: usize) -> usize {
    match len {
        0..=0x7f => 2,
        0x80..=0xff => 3,
        0x100..=0xffff => 4,
        _ => 5,
    }
}

/// The longest `SM2Cipher` of a `plaintext_len`-byte message: two INTEGER coordinates (with a
/// sign byte), the hash and the ciphertext as OCTET STRINGs, in a SEQUENCE.
fn ciphertext_bound(plaintext_len: usize) -> usize {
    let coordinate = der_header_len(FIELD + 1) + FIELD + 1;
    let body = 2 * coordinate
        + der_header_len(HASH_LEN)
        + HASH_LEN
        + der_header_len(plaintext_len)
        + plaintext_len;
    der_header_len(body) + body
}

impl AsymCipherContext for Context {
    unsafe fn init(
        &mut self,
        provkey: *mut c_void,
        decrypts: bool,
        params: &Params,
    ) -> Result<(), Failure> {
        // SAFETY: the caller's contract; `sm2::key` refuses another key manager's key.
        let key = unsafe { sm2::key(provkey)? };
        self.operation = None;
        self.digest.clear();
        let operation = if decrypts {
            let signing = key.signing.as_ref().ok_or_else(|| {
                fail(
                    Reason::InvalidInput,
                    "SM2 decryption needs a private key; this key has none",
                )
            })?;
            let scalar = sm2::scalar_of(signing)?;
            let key = self
                .module
                .decryption_key_from_pkcs8(ROW, &sm2::pkcs8(&scalar))?
                .into_value();
            Operation::Decrypt { key: Arc::new(key) }
        } else {
            let point = key.public.clone().ok_or_else(|| {
                fail(
                    Reason::InvalidInput,
                    "SM2 encryption needs a public key; this key has none",
                )
            })?;
            Operation::Encrypt { point }
        };
        self.operation = Some(operation);
        apply(self, params)
    }

    fn ready_for(&self, decrypts: bool) -> bool {
        matches!(
            (&self.operation, decrypts),
            (Some(Operation::Encrypt { .. }), false) | (Some(Operation::Decrypt { .. }), true)
        )
    }

    fn output_bound(&self, decrypts: bool, input_len: usize) -> usize {
        if decrypts {
            input_len
        } else {
            ciphertext_bound(input_len)
        }
    }

    fn run(
        &mut self,
        _decrypts: bool,
        input: &[u8],
        _room: usize,
    ) -> Result<(Zeroizing<Vec<u8>>, Indicator), Failure> {
        // Checked here, not at the length query, as OpenSSL's own provider does.
        check_digest(self)?;
        match &self.operation {
            Some(Operation::Encrypt { point }) => {
                let (ciphertext, indicator) = self
                    .module
                    .encrypt_to_public_key(ROW, point, input, CiphertextFormat::Asn1)?
                    .into_parts();
                Ok((Zeroizing::new(ciphertext), indicator))
            }
            Some(Operation::Decrypt { key }) => {
                Ok(key.decrypt(input, CiphertextFormat::Asn1)?.into_parts())
            }
            None => Err(fail(Reason::OutOfOrder, "no SM2 encryption init")),
        }
    }

    fn apply(&mut self, params: &Params) -> Result<(), Failure> {
        apply(self, params)
    }

    unsafe fn answer(&self, params: *mut Param) -> Result<(), Failure> {
        // SAFETY: the caller's contract.
        let params = unsafe { Params::new(params) };
        for mut param in params.iter() {
            if param.key == "digest" {
                param.set_utf8(if self.digest.is_empty() {
                    "SM3"
                } else {
                    &self.digest
                })?;
            } else {
                indicator::answer_param(self.last, &mut param)?;
            }
        }
        Ok(())
    }

    fn last_mut(&mut self) -> &mut LastOperation {
        &mut self.last
    }
}

/// `digest` (a name; checked when the operation runs) and `digest-props` (ignored: the
/// module's SM3 is the only one used).
fn apply(context: &mut Context, params: &Params) -> Result<(), Failure> {
    if let Some(param) = params.locate("digest") {
        context.digest = param.get_utf8()?;
    }
    Ok(())
}

static SETTABLE: params::ParamList =
    crate::param_list![("digest", params::UTF8), ("digest-props", params::UTF8),];

static GETTABLE: params::ParamList = crate::param_list![
    ("digest", params::UTF8),
    ("regula-approved", params::INT),
    ("fips-indicator", params::INT),
];

impl params::CtxParamLists for Context {
    const GETTABLE: &'static params::ParamList = &GETTABLE;
    const SETTABLE: &'static params::ParamList = &SETTABLE;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_covers_the_longest_ciphertext() {
        // 30 81 xx | 02 21 00 x | 02 21 00 y | 04 20 hash | 04 len message.
        assert_eq!(ciphertext_bound(34), 3 + 35 + 35 + 34 + 36);
        // A 200-byte message: its OCTET STRING's length takes two bytes, the SEQUENCE's three.
        assert_eq!(ciphertext_bound(200), 4 + 35 + 35 + 34 + 203);
    }
}
