//! CCM (`CKM_AES_CCM`, and `CKM_REGULA_SM4_CCM` on slots that serve SM4) with `CK_CCM_PARAMS`,
//! through the module's AEAD keys: the nonce and MAC lengths are what the module's CCM takes
//! (AES: a 7- to 13-byte nonce, a 4- to 16-byte MAC of even length; SM4-CCM: RFC 8998's 12 and
//! 16). The caller gives the nonce, as PKCS#11 has it. `ulDataLen` is the message's length,
//! without the MAC, in both directions (PKCS#11 3.0 §2.14.4). Data given in parts
//! (`C_EncryptUpdate`, `C_DecryptUpdate`) is gathered and sealed or opened when the operation
//! ends, so a decryption gives no plaintext before its MAC is checked.

use cryptoki_sys::*;
use regula::{AeadKey, Algorithm, Module};
use zeroize::Zeroizing;

use crate::ops::{Done, rv_of};

/// `CK_CCM_PARAMS`, copied out of the caller's memory.
pub struct CcmParams {
    data_len: usize,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    mac_len: usize,
}

/// Reads the parameter of a CCM mechanism.
///
/// # Safety
/// `mechanism.pParameter` is `ulParameterLen` readable bytes, and the nonce and AAD pointers of
/// a `CK_CCM_PARAMS` there point at as many bytes as their lengths say (the standard's
/// contract).
pub unsafe fn read_params(mechanism: &CK_MECHANISM) -> Result<CcmParams, CK_RV> {
    let raw = mechanism.pParameter;
    if raw.is_null() || mechanism.ulParameterLen as usize != size_of::<CK_CCM_PARAMS>() {
        return Err(CKR_MECHANISM_PARAM_INVALID);
    }
    // SAFETY: a CK_CCM_PARAMS of the checked size at a non-null pointer.
    let params = unsafe { raw.cast::<CK_CCM_PARAMS>().read_unaligned() };
    // SAFETY: the nonce the parameters describe.
    let nonce = unsafe { crate::input(params.pNonce, params.ulNonceLen) }
        .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    // SAFETY: the AAD the parameters describe.
    let aad = unsafe { crate::input(params.pAAD, params.ulAADLen) }
        .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
    let length = |value: CK_ULONG| usize::try_from(value).map_err(|_| CKR_MECHANISM_PARAM_INVALID);
    Ok(CcmParams {
        data_len: length(params.ulDataLen)?,
        nonce: nonce.to_vec(),
        aad: aad.to_vec(),
        mac_len: length(params.ulMACLen)?,
    })
}

/// A CCM encryption or decryption: the key bound with the caller's MAC length, and the data
/// gathered until the operation ends.
pub struct CcmOp {
    key: AeadKey,
    params: CcmParams,
    data: Zeroizing<Vec<u8>>,
    decrypts: bool,
}

impl CcmOp {
    /// Checks the parameters against what the module's CCM takes and binds the key.
    pub fn new(
        module: &Module,
        algorithm: Algorithm,
        key: &[u8],
        params: CcmParams,
        decrypts: bool,
    ) -> Result<CcmOp, CK_RV> {
        let key = module
            .aead_key_with_tag_len(algorithm, key, params.mac_len)
            .map_err(|error| match error {
                // The MAC length this CCM does not take.
                regula::Error::InvalidInput { .. } => CKR_MECHANISM_PARAM_INVALID,
                error => rv_of(&error, false),
            })?;
        if !key.nonce_lens().contains(&params.nonce.len()) {
            return Err(CKR_MECHANISM_PARAM_INVALID);
        }
        // SP 800-38C §A.1: the message length is written in the 15 − n bytes the nonce leaves.
        let length_field_bits = 8 * (15 - params.nonce.len());
        if length_field_bits < usize::BITS as usize && params.data_len >> length_field_bits != 0 {
            return Err(CKR_MECHANISM_PARAM_INVALID);
        }
        Ok(CcmOp {
            key,
            params,
            data: Zeroizing::new(Vec::new()),
            decrypts,
        })
    }

    pub fn decrypts(&self) -> bool {
        self.decrypts
    }

    /// What the operation takes in all: the message, or the ciphertext and its MAC.
    fn input_len(&self) -> usize {
        if self.decrypts {
            self.params.data_len.saturating_add(self.params.mac_len)
        } else {
            self.params.data_len
        }
    }

    fn wrong_length(&self) -> CK_RV {
        if self.decrypts {
            CKR_ENCRYPTED_DATA_LEN_RANGE
        } else {
            CKR_DATA_LEN_RANGE
        }
    }

    /// The result's length once `more` bytes join those gathered, which must then be all the
    /// parameters announced.
    pub fn output_len(&self, more: usize) -> Result<usize, CK_RV> {
        if self.data.len().checked_add(more) != Some(self.input_len()) {
            return Err(self.wrong_length());
        }
        Ok(if self.decrypts {
            self.params.data_len
        } else {
            self.params.data_len + self.params.mac_len
        })
    }

    /// Gathers a part; more than the parameters announced is refused.
    pub fn update(&mut self, input: &[u8]) -> Result<(), CK_RV> {
        match self.data.len().checked_add(input.len()) {
            Some(len) if len <= self.input_len() => {
                self.data.extend_from_slice(input);
                Ok(())
            }
            _ => Err(self.wrong_length()),
        }
    }

    /// Seals or opens everything gathered.
    pub fn finish(&mut self) -> Result<Done, CK_RV> {
        self.output_len(0)?;
        let data = std::mem::take(&mut self.data);
        let CcmParams { nonce, aad, .. } = &self.params;
        let served = if self.decrypts {
            self.key.open(nonce, aad, &data)
        } else {
            self.key.seal_with_nonce(nonce, aad, &data)
        }
        .map_err(|error| rv_of(&error, self.decrypts))?;
        let approved = served.is_approved();
        Ok(Done {
            output: Zeroizing::new(served.into_value()),
            approved,
        })
    }
}
