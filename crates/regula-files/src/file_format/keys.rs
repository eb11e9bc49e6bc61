//! Key material of a file: the file key, its derivations and the stanzas that wrap it.

use zeroize::Zeroizing;

use regula::service::aead::NONCE_LEN;
use regula::{Algorithm, Error, Module};

use super::recipients::{self, RecipientIdentity, RecipientKind};
use super::{FileError, MAX_ITERATIONS, MIN_ITERATIONS, Prf, Suite, aead_key_len, invalid_input};

/// The file key: 256 random bits, never stored in clear.
pub(super) const FILE_KEY_LEN: usize = 32;
/// Salt of a passphrase or key-file stanza (SP 800-132 §5.1 asks for at least 128 bits).
pub(super) const SALT_LEN: usize = 16;
/// A raw key file holds exactly this many bytes (or twice as many hex digits).
pub const KEY_FILE_LEN: usize = 32;
/// A wrapped file key: AEAD ciphertext and tag.
const WRAPPED_LEN: usize = FILE_KEY_LEN + super::TAG_LEN;

/// SP 800-108 labels: one per derived key, so that no two derivations can collide.
const LABEL_HEADER: &[u8] = b"regula-file v1 header";
const LABEL_PAYLOAD: &[u8] = b"regula-file v1 payload";
const LABEL_KEY_FILE: &[u8] = b"regula-file v1 key-file";
/// Additional data of every key wrap, followed by the stanza's kind byte.
const WRAP_AAD: &[u8] = b"regula-file v1 wrap";

pub(super) const KIND_PASSPHRASE: u8 = 1;
pub(super) const KIND_KEY_FILE: u8 = 2;

/// What opens a file.
pub enum Identity<'a> {
    /// The passphrase of a passphrase stanza.
    Passphrase(&'a [u8]),
    /// The 32 bytes of a raw key file.
    KeyFile(&'a [u8]),
    /// A recipient's private key.
    Recipient(&'a RecipientIdentity),
}

/// Random bytes from AWS-LC's DRBG, the CTR_DRBG the module approves under FIPS 140-3
/// ([`Module::fill_key_material`]).
pub(super) fn random<const N: usize>(module: &Module) -> Result<[u8; N], Error> {
    let mut bytes = [0u8; N];
    module.fill_key_material(&mut bytes)?;
    Ok(bytes)
}

/// A fresh key for a key file, from the same DRBG as the file keys (under every profile,
/// including `gm`, whose SM services draw their keys from it too).
pub fn new_key(module: &Module) -> Result<Zeroizing<Vec<u8>>, Error> {
    module.ensure_operational()?;
    Ok(Zeroizing::new(random::<KEY_FILE_LEN>(module)?.to_vec()))
}

/// SP 800-108r1 KBKDF in counter mode with the suite's HMAC, fixed input
/// `Label ‖ 0x00 ‖ Context ‖ [L]₃₂`: AWS-LC's for the SHA-2 PRFs, built here over the HMAC-SM3
/// service for SM3.
pub(super) fn kbkdf(
    module: &Module,
    prf: Prf,
    key: &[u8],
    label: &[u8],
    context: &[u8],
    len: usize,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    if let Some((_, kbkdf)) = prf.kdfs() {
        return Ok(module
            .kbkdf_label_context(kbkdf, key, label, context, len)?
            .into_value());
    }
    let mac = module.mac_key(prf.mac(), key)?;
    let bits = u32::try_from(len * 8).map_err(|_| Error::CryptoFailure)?;
    let mut output = Zeroizing::new(Vec::with_capacity(len + prf.output_len()));
    let mut counter = 1u32;
    while output.len() < len {
        let mut context_mac = mac.context();
        context_mac.update(&counter.to_be_bytes())?;
        context_mac.update(label)?;
        context_mac.update(&[0])?;
        context_mac.update(context)?;
        context_mac.update(&bits.to_be_bytes())?;
        let block = Zeroizing::new(context_mac.sign()?.into_value());
        output.extend_from_slice(&block);
        counter += 1;
    }
    output.truncate(len);
    Ok(output)
}

/// PBKDF2 (SP 800-132, RFC 8018 §5.2) with the suite's HMAC: AWS-LC's for the SHA-2 PRFs; for
/// HMAC-SM3 the module's [`Module::pbkdf2_hmac_sm3`], authorized by the policy as one
/// HMAC-SM3 service.
pub(super) fn pbkdf2(
    module: &Module,
    prf: Prf,
    passphrase: &[u8],
    salt: &[u8],
    iterations: u32,
    len: usize,
) -> Result<Zeroizing<Vec<u8>>, FileError> {
    if !(MIN_ITERATIONS..=MAX_ITERATIONS).contains(&iterations) {
        return Err(FileError::Format(format!(
            "PBKDF2 iteration count {iterations} is outside {MIN_ITERATIONS}..={MAX_ITERATIONS}"
        )));
    }
    if let Some((pbkdf2, _)) = prf.kdfs() {
        return Ok(module
            .pbkdf2(pbkdf2, passphrase, salt, iterations, len)?
            .into_value());
    }
    Ok(module
        .pbkdf2_hmac_sm3(passphrase, salt, iterations, len)?
        .into_value())
}

/// The key of the header MAC.
pub(super) fn header_mac_key(
    module: &Module,
    prf: Prf,
    file_key: &[u8],
) -> Result<Zeroizing<Vec<u8>>, Error> {
    kbkdf(module, prf, file_key, LABEL_HEADER, &[], prf.output_len())
}

/// The payload key, bound to the whole header through its MAC.
pub(super) fn payload_key(
    module: &Module,
    suite: Suite,
    file_key: &[u8],
    header_mac: &[u8],
) -> Result<Zeroizing<Vec<u8>>, Error> {
    kbkdf(
        module,
        suite.prf,
        file_key,
        LABEL_PAYLOAD,
        header_mac,
        aead_key_len(suite.aead),
    )
}

pub(super) fn wrap(
    module: &Module,
    aead: Algorithm,
    kek: &[u8],
    kind: u8,
    file_key: &[u8],
) -> Result<Vec<u8>, Error> {
    let key = module.aead_key(aead, kek)?;
    let sealed = key.seal(&wrap_aad(kind), file_key)?.into_value();
    let mut out = Vec::with_capacity(NONCE_LEN + WRAPPED_LEN);
    out.extend_from_slice(&sealed.nonce);
    out.extend_from_slice(&sealed.ciphertext);
    Ok(out)
}

/// Unwraps `nonce ‖ wrapped`; `None` when the key does not open it.
pub(super) fn unwrap(
    module: &Module,
    aead: Algorithm,
    kek: &[u8],
    kind: u8,
    wrapped: &[u8],
) -> Result<Option<Zeroizing<Vec<u8>>>, Error> {
    let (nonce, ciphertext) = wrapped.split_at(NONCE_LEN);
    let key = module.aead_key(aead, kek)?;
    match key.open(nonce, &wrap_aad(kind), ciphertext) {
        Ok(file_key) => Ok(Some(Zeroizing::new(file_key.into_value()))),
        Err(Error::AuthenticationFailed) => Ok(None),
        Err(error) => Err(error),
    }
}

fn wrap_aad(kind: u8) -> Vec<u8> {
    [WRAP_AAD, &[kind]].concat()
}

/// A passphrase stanza body: `iterations(4) ‖ salt(16) ‖ nonce(12) ‖ wrapped key(48)`.
pub(super) fn passphrase_stanza(
    module: &Module,
    suite: Suite,
    passphrase: &[u8],
    iterations: u32,
    file_key: &[u8],
) -> Result<Vec<u8>, FileError> {
    if passphrase.is_empty() {
        return Err(FileError::Module(invalid_input("the passphrase is empty")));
    }
    let salt = random::<SALT_LEN>(module)?;
    let kek = pbkdf2(
        module,
        suite.prf,
        passphrase,
        &salt,
        iterations,
        aead_key_len(suite.aead),
    )?;
    let mut body = Vec::with_capacity(4 + SALT_LEN + NONCE_LEN + WRAPPED_LEN);
    body.extend_from_slice(&iterations.to_be_bytes());
    body.extend_from_slice(&salt);
    body.extend(wrap(module, suite.aead, &kek, KIND_PASSPHRASE, file_key)?);
    Ok(body)
}

pub(super) const PASSPHRASE_BODY_LEN: usize = 4 + SALT_LEN + NONCE_LEN + WRAPPED_LEN;
pub(super) const KEY_FILE_BODY_LEN: usize = SALT_LEN + NONCE_LEN + WRAPPED_LEN;

/// A key-file stanza body: `salt(16) ‖ nonce(12) ‖ wrapped key(48)`; the wrapping key is
/// KBKDF(key file, "regula-file v1 key-file", salt).
pub(super) fn key_file_stanza(
    module: &Module,
    suite: Suite,
    key_file: &[u8],
    file_key: &[u8],
) -> Result<Vec<u8>, FileError> {
    check_key_file(key_file)?;
    let salt = random::<SALT_LEN>(module)?;
    let kek = kbkdf(
        module,
        suite.prf,
        key_file,
        LABEL_KEY_FILE,
        &salt,
        aead_key_len(suite.aead),
    )?;
    let mut body = Vec::with_capacity(KEY_FILE_BODY_LEN);
    body.extend_from_slice(&salt);
    body.extend(wrap(module, suite.aead, &kek, KIND_KEY_FILE, file_key)?);
    Ok(body)
}

fn check_key_file(key_file: &[u8]) -> Result<(), FileError> {
    if key_file.len() != KEY_FILE_LEN {
        return Err(FileError::Module(invalid_input(format!(
            "a key file holds {KEY_FILE_LEN} bytes, got {}",
            key_file.len()
        ))));
    }
    Ok(())
}

/// Tries one stanza with an identity: the file key, or `None` when the stanza is of another
/// kind or does not open.
pub(super) fn open_stanza(
    module: &Module,
    suite: Suite,
    kind: u8,
    body: &[u8],
    identity: &Identity<'_>,
) -> Result<Option<Zeroizing<Vec<u8>>>, FileError> {
    let file_key = match (kind, identity) {
        (KIND_PASSPHRASE, Identity::Passphrase(passphrase)) => {
            let (iterations, rest) = body.split_at(4);
            let iterations = u32::from_be_bytes(iterations.try_into().map_err(|_| bad_body())?);
            let (salt, wrapped) = rest.split_at(SALT_LEN);
            let kek = pbkdf2(
                module,
                suite.prf,
                passphrase,
                salt,
                iterations,
                aead_key_len(suite.aead),
            )?;
            unwrap(module, suite.aead, &kek, kind, wrapped)?
        }
        (KIND_KEY_FILE, Identity::KeyFile(key_file)) => {
            check_key_file(key_file)?;
            let (salt, wrapped) = body.split_at(SALT_LEN);
            let kek = kbkdf(
                module,
                suite.prf,
                key_file,
                LABEL_KEY_FILE,
                salt,
                aead_key_len(suite.aead),
            )?;
            unwrap(module, suite.aead, &kek, kind, wrapped)?
        }
        (kind, Identity::Recipient(identity)) => match RecipientKind::from_id(kind) {
            Some(kind) => recipients::open_recipient_stanza(module, suite, kind, body, identity)?,
            None => None,
        },
        _ => None,
    };
    Ok(file_key.filter(|key| key.len() == FILE_KEY_LEN))
}

fn bad_body() -> FileError {
    FileError::Format("malformed key stanza".into())
}
