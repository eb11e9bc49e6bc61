//! The token key and the PINs, all through the module's public services under the slot's
//! policy: a random token key (the module's generator) seals every sensitive attribute value
//! with the policy's AEAD (AES-256-GCM, or SM4-GCM where the policy approves no AES: `gm`),
//! under a nonce the module makes and the object's row id and attribute type as associated
//! data. The token key is kept wrapped by the same AEAD under a key derived from each PIN by
//! PBKDF2 with the policy's PRF (HMAC-SHA-256, HMAC-SM3 under `gm`) and a fresh 16-byte salt.

use cryptoki_sys::*;
use regula::policy::Usage;
use regula::{AeadKey, Algorithm, Approval, Module, Policy};
use zeroize::Zeroizing;

use crate::store::{Who, Wrap};

/// SP 800-132 §5.1: a salt of at least 128 bits.
const SALT_LEN: usize = 16;

/// The PBKDF2 pseudo-random function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prf {
    /// A registry PBKDF2 row (`pbkdf2-sha256`, ...).
    Pbkdf2(Algorithm),
    /// PBKDF2 over regula-sm's HMAC-SM3.
    HmacSm3,
}

impl Prf {
    pub fn name(self) -> &'static str {
        match self {
            Prf::Pbkdf2(algorithm) => algorithm.name(),
            Prf::HmacSm3 => "pbkdf2-hmac-sm3",
        }
    }
}

/// A slot's algorithms for keys at rest.
#[derive(Clone, Copy, Debug)]
pub struct Suite {
    pub aead: Algorithm,
    pub key_len: usize,
    pub prf: Prf,
    /// The shortest PIN the policy approves as a PBKDF2 password (`fips-140-3`: 14 bytes,
    /// SP 800-131A's 112 bits), at least `pin_min`.
    pub min_pin: usize,
}

/// The suite `policy` approves, or why there is none.
pub fn suite(
    policy: &Policy,
    iterations: u32,
    pin_min: usize,
    pin_max: usize,
) -> Result<Suite, String> {
    let aead = [Algorithm::Aes256Gcm, Algorithm::Sm4Gcm]
        .into_iter()
        .find(|&algorithm| policy.approves(algorithm))
        .ok_or("the policy approves neither aes-256-gcm nor sm4-gcm for keys at rest")?;
    let key_len = if aead == Algorithm::Sm4Gcm { 16 } else { 32 };
    let pbkdf2 = [
        Algorithm::Pbkdf2Sha256,
        Algorithm::Pbkdf2Sha384,
        Algorithm::Pbkdf2Sha512,
    ]
    .into_iter()
    .find(|&algorithm| policy.approves(algorithm));
    let prf = match (aead, pbkdf2) {
        (Algorithm::Sm4Gcm, _) if policy.approves(Algorithm::HmacSm3) => Prf::HmacSm3,
        (_, Some(algorithm)) => Prf::Pbkdf2(algorithm),
        _ if policy.approves(Algorithm::HmacSm3) => Prf::HmacSm3,
        _ => return Err("the policy approves no PBKDF2 for the PIN keys".into()),
    };
    let min_pin = match prf {
        Prf::Pbkdf2(algorithm) => (pin_min..=pin_max)
            .find(|&len| {
                let usage = Usage {
                    secret_bytes: Some(len as u32),
                    salt_bytes: Some(SALT_LEN as u32),
                    iterations: Some(iterations),
                    output_bytes: Some(key_len as u32),
                    ..Usage::default()
                };
                matches!(policy.evaluate(algorithm, &usage), Ok(Approval::Approved))
            })
            .unwrap_or(pin_min),
        Prf::HmacSm3 => pin_min,
    };
    Ok(Suite {
        aead,
        key_len,
        prf,
        min_pin,
    })
}

/// A module failure as a PKCS#11 code (the module's error state is the device's).
fn failed(error: &regula::Error) -> CK_RV {
    match error {
        regula::Error::ModuleInErrorState { .. } => CKR_DEVICE_ERROR,
        _ => CKR_FUNCTION_FAILED,
    }
}

fn pin_aad(who: Who) -> Vec<u8> {
    [
        b"regula-pkcs11 token key for ".as_slice(),
        who.name().as_bytes(),
    ]
    .concat()
}

fn derive(
    module: &Module,
    suite: &Suite,
    pin: &[u8],
    salt: &[u8],
    iterations: u32,
) -> Result<AeadKey, CK_RV> {
    let derived = match suite.prf {
        Prf::Pbkdf2(algorithm) => module.pbkdf2(algorithm, pin, salt, iterations, suite.key_len),
        Prf::HmacSm3 => module.pbkdf2_hmac_sm3(pin, salt, iterations, suite.key_len),
    }
    .map_err(|error| failed(&error))?
    .into_value();
    module
        .aead_key(suite.aead, &derived)
        .map_err(|error| failed(&error))
}

/// A fresh token key from the module's generator.
pub fn new_token_key(module: &Module, suite: &Suite) -> Result<Zeroizing<Vec<u8>>, CK_RV> {
    let mut key = Zeroizing::new(vec![0u8; suite.key_len]);
    module
        .fill_random(&mut key)
        .map_err(|error| failed(&error))?;
    Ok(key)
}

/// Seals `token_key` under a key derived from `pin` with a new salt.
pub fn wrap(
    module: &Module,
    suite: &Suite,
    who: Who,
    pin: &[u8],
    token_key: &[u8],
    iterations: u32,
) -> Result<Wrap, CK_RV> {
    let salt = module
        .random_bytes(SALT_LEN)
        .map_err(|error| failed(&error))?
        .into_value();
    let key = derive(module, suite, pin, &salt, iterations)?;
    let sealed = key
        .seal(&pin_aad(who), token_key)
        .map_err(|error| failed(&error))?
        .into_value();
    Ok(Wrap {
        prf: suite.prf.name().to_string(),
        salt,
        iterations,
        nonce: sealed.nonce.to_vec(),
        wrapped: sealed.ciphertext,
    })
}

/// The token key `wrap` holds, if `pin` is the one it was made with (`Ok(None)`: wrong PIN).
pub fn unwrap(
    module: &Module,
    suite: &Suite,
    who: Who,
    pin: &[u8],
    wrap: &Wrap,
) -> Result<Option<Zeroizing<Vec<u8>>>, CK_RV> {
    if wrap.prf != suite.prf.name() {
        // The token was made under another policy: its PIN keys are not this slot's.
        return Err(CKR_DEVICE_ERROR);
    }
    let key = derive(module, suite, pin, &wrap.salt, wrap.iterations)?;
    match key.open(&wrap.nonce, &pin_aad(who), &wrap.wrapped) {
        Ok(served) => Ok(Some(Zeroizing::new(served.into_value()))),
        Err(regula::Error::AuthenticationFailed) => Ok(None),
        Err(error) => Err(failed(&error)),
    }
}

/// The unwrapped token key of a logged-in slot, bound for sealing and opening values.
pub struct TokenKey {
    pub key: Zeroizing<Vec<u8>>,
    aead: AeadKey,
}

fn value_aad(row: i64, kind: CK_ATTRIBUTE_TYPE) -> Vec<u8> {
    let mut aad = b"regula-pkcs11 object ".to_vec();
    aad.extend_from_slice(&row.to_be_bytes());
    aad.extend_from_slice(&crate::object::wide(kind).to_be_bytes());
    aad
}

impl TokenKey {
    pub fn new(module: &Module, suite: &Suite, key: Zeroizing<Vec<u8>>) -> Result<Self, CK_RV> {
        let aead = module
            .aead_key(suite.aead, &key)
            .map_err(|error| failed(&error))?;
        Ok(TokenKey { key, aead })
    }

    /// Seals attribute `kind` of object `row`: the nonce and the ciphertext with its tag.
    pub fn seal(
        &self,
        row: i64,
        kind: CK_ATTRIBUTE_TYPE,
        value: &[u8],
    ) -> Result<(Vec<u8>, Vec<u8>), CK_RV> {
        let sealed = self
            .aead
            .seal(&value_aad(row, kind), value)
            .map_err(|error| failed(&error))?
            .into_value();
        Ok((sealed.nonce.to_vec(), sealed.ciphertext))
    }

    /// Opens what [`TokenKey::seal`] made for the same row and attribute; a value that does not
    /// authenticate (altered, or moved to another row) is a device error.
    pub fn open(
        &self,
        row: i64,
        kind: CK_ATTRIBUTE_TYPE,
        nonce: &[u8],
        sealed: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, CK_RV> {
        let mut buffer = Zeroizing::new(sealed.to_vec());
        self.aead
            .open_in_place(nonce, &value_aad(row, kind), &mut buffer)
            .map_err(|error| match error {
                regula::Error::AuthenticationFailed => CKR_DEVICE_ERROR,
                error => failed(&error),
            })?;
        Ok(buffer)
    }
}
