//! Operations in progress on a session, run through the module's public services only: digests,
//! MACs, ECDSA and Ed25519 (`C_Sign`/`C_Verify`), block-cipher modes (XTS among them), GCM and
//! CCM (`C_Encrypt`/`C_Decrypt`).

use cryptoki_sys::*;
use regula::policy::Usage;
use regula::{
    AeadKey, Algorithm, CipherStream, DigestContext, Direction, MacKey, Module, SigningKey,
};
use std::sync::Arc;

use zeroize::Zeroizing;

use crate::ec::Curve;
use crate::mech::Op;

/// AES and SM4 block, and the IV of CBC, OFB and CFB.
const BLOCK: usize = 16;
/// GCM: the 96-bit IV and the 128-bit tag the module serves.
pub const GCM_IV_LEN: usize = 12;
pub const GCM_TAG_LEN: usize = 16;

/// A module error as the standard's return value, for an operation that `decrypts` or not.
pub fn rv_of(error: &regula::Error, decrypts: bool) -> CK_RV {
    use regula::Error;
    match error {
        Error::NotApproved { .. } | Error::WrongFamily { .. } | Error::UnknownAlgorithm { .. } => {
            CKR_MECHANISM_INVALID
        }
        Error::ModuleInErrorState { .. } => CKR_DEVICE_ERROR,
        Error::InvalidKey { .. } | Error::KeyEncoding(_) => CKR_KEY_SIZE_RANGE,
        Error::InvalidInput { .. } if decrypts => CKR_ENCRYPTED_DATA_LEN_RANGE,
        Error::InvalidInput { .. } => CKR_DATA_LEN_RANGE,
        Error::AuthenticationFailed if decrypts => CKR_ENCRYPTED_DATA_INVALID,
        Error::AuthenticationFailed | Error::BadSignature => CKR_SIGNATURE_INVALID,
        _ => CKR_FUNCTION_FAILED,
    }
}

/// The result of a completed operation and whether the policy approved it.
pub struct Done {
    pub output: Zeroizing<Vec<u8>>,
    pub approved: bool,
}

pub struct DigestOp {
    context: DigestContext,
    pub output_len: usize,
}

impl DigestOp {
    pub fn new(module: &Module, algorithm: Algorithm) -> Result<DigestOp, CK_RV> {
        let context = module
            .digest_context(algorithm)
            .map_err(|error| rv_of(&error, false))?;
        let output_len = algorithm.entry().sizes.output.unwrap_or(0);
        Ok(DigestOp {
            context,
            output_len,
        })
    }

    pub fn update(&mut self, data: &[u8]) {
        self.context.update(data);
    }

    pub fn finish(self) -> Result<Done, CK_RV> {
        let served = self
            .context
            .finish()
            .map_err(|error| rv_of(&error, false))?;
        let approved = served.is_approved();
        Ok(Done {
            output: Zeroizing::new(served.into_value()),
            approved,
        })
    }
}

/// A MAC being computed or checked. The data is gathered and MACed when the operation ends
/// (the module's `MacContext` borrows its key, which a session cannot hold beside it).
pub struct MacOp {
    key: MacKey,
    data: Zeroizing<Vec<u8>>,
    pub output_len: usize,
}

impl MacOp {
    pub fn new(module: &Module, algorithm: Algorithm, key: &[u8]) -> Result<MacOp, CK_RV> {
        let key = module
            .mac_key(algorithm, key)
            .map_err(|error| rv_of(&error, false))?;
        Ok(MacOp {
            key,
            data: Zeroizing::new(Vec::new()),
            output_len: algorithm.entry().sizes.output.unwrap_or(0),
        })
    }

    pub fn update(&mut self, data: &[u8]) {
        self.data.extend_from_slice(data);
    }

    pub fn sign(&self) -> Result<Done, CK_RV> {
        let served = self
            .key
            .sign(&self.data)
            .map_err(|error| rv_of(&error, false))?;
        let approved = served.is_approved();
        Ok(Done {
            output: Zeroizing::new(served.into_value()),
            approved,
        })
    }

    /// Checks `tag`; `Ok(approved)` when it verifies.
    pub fn verify(&self, tag: &[u8]) -> Result<bool, CK_RV> {
        if tag.len() != self.output_len {
            return Err(CKR_SIGNATURE_LEN_RANGE);
        }
        self.key
            .verify(&self.data, tag)
            .map(|served| served.is_approved())
            .map_err(|error| rv_of(&error, false))
    }
}

/// An ECDSA signature being made (with the private key, imported from its PKCS#8 for the
/// operation) or checked (with the public key's SubjectPublicKeyInfo). The data is gathered and
/// signed or verified when the operation ends.
pub struct EcdsaOp {
    module: Module,
    algorithm: Algorithm,
    curve: Curve,
    key: EcdsaKey,
    data: Vec<u8>,
    /// `CKM_ECDSA`: the data is the caller's hash, signed as it is.
    prehashed: bool,
}

enum EcdsaKey {
    Private(BoundSigningKey),
    Public(Vec<u8>),
}

/// A private key imported once from its PKCS#8 and kept by the session for later sign inits:
/// importing checks the key (AWS-LC's `EC_KEY_check_key`), which costs about as much as the
/// signature itself.
pub type BoundSigningKey = Arc<SigningKey>;

/// Imports an EC private key for `curve`'s ECDSA, to sign with now and to keep.
pub fn bind_ecdsa_signer(
    module: &Module,
    curve: Curve,
    pkcs8: &[u8],
) -> Result<BoundSigningKey, CK_RV> {
    module
        .signing_key_from_pkcs8(curve.ecdsa(), pkcs8)
        .map(|served| Arc::new(served.into_value()))
        .map_err(|error| rv_of(&error, false))
}

impl EcdsaOp {
    /// Signs with a key bound by [`bind_ecdsa_signer`].
    pub fn signer(module: &Module, curve: Curve, key: BoundSigningKey, prehashed: bool) -> EcdsaOp {
        EcdsaOp {
            module: module.clone(),
            algorithm: curve.ecdsa(),
            curve,
            key: EcdsaKey::Private(key),
            data: Vec::new(),
            prehashed,
        }
    }

    pub fn verifier(module: &Module, curve: Curve, point: &[u8]) -> EcdsaOp {
        EcdsaOp {
            module: module.clone(),
            algorithm: curve.ecdsa(),
            curve,
            key: EcdsaKey::Public(curve.spki(point)),
            data: Vec::new(),
            prehashed: false,
        }
    }
}

/// A `C_Sign` / `C_Verify` operation: a MAC or an ECDSA signature.
pub enum SignOp {
    Mac(MacOp),
    Ecdsa(EcdsaOp),
    MlDsa(crate::mldsa::MlDsaOp),
    Sm2(crate::sm2::Sm2SignOp),
    Rsa(crate::rsa::RsaOp),
}

impl SignOp {
    /// The signature's length: a MAC's, or ECDSA's `r ‖ s`.
    pub fn output_len(&self) -> usize {
        match self {
            SignOp::Mac(op) => op.output_len,
            SignOp::Ecdsa(op) => 2 * op.curve.width(),
            SignOp::MlDsa(op) => op.output_len(),
            SignOp::Sm2(op) => op.output_len(),
            SignOp::Rsa(op) => op.output_len(),
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        match self {
            SignOp::Mac(op) => op.update(data),
            SignOp::Ecdsa(op) => op.data.extend_from_slice(data),
            SignOp::MlDsa(op) => op.data.extend_from_slice(data),
            SignOp::Sm2(op) => op.data.extend_from_slice(data),
            SignOp::Rsa(op) => op.data.extend_from_slice(data),
        }
    }

    pub fn sign(&self) -> Result<Done, CK_RV> {
        match self {
            SignOp::Mac(op) => op.sign(),
            SignOp::MlDsa(op) => op.sign(),
            SignOp::Sm2(op) => op.sign(),
            SignOp::Rsa(op) => op.sign(),
            SignOp::Ecdsa(op) => {
                let EcdsaKey::Private(key) = &op.key else {
                    return Err(CKR_OPERATION_NOT_INITIALIZED);
                };
                let served = if op.prehashed {
                    key.sign_digest(&op.data)
                } else {
                    key.sign(&op.data)
                }
                .map_err(|error| rv_of(&error, false))?;
                let approved = served.is_approved();
                let signature = served.into_value();
                // Ed25519's signature is already the 64 bytes PKCS#11 gives.
                let raw = if op.curve.is_ecdsa() {
                    op.curve.raw_signature(&signature)?
                } else {
                    signature
                };
                Ok(Done {
                    output: Zeroizing::new(raw),
                    approved,
                })
            }
        }
    }

    /// Checks `signature`; `Ok(approved)` when it verifies.
    pub fn verify(&self, signature: &[u8]) -> Result<bool, CK_RV> {
        match self {
            SignOp::Mac(op) => op.verify(signature),
            SignOp::MlDsa(op) => op.verify(signature),
            SignOp::Sm2(op) => op.verify(signature),
            SignOp::Rsa(op) => op.verify(signature),
            SignOp::Ecdsa(op) => {
                let EcdsaKey::Public(spki) = &op.key else {
                    return Err(CKR_OPERATION_NOT_INITIALIZED);
                };
                let der = if op.curve.is_ecdsa() {
                    op.curve.der_signature(signature)?
                } else if signature.len() == 2 * op.curve.width() {
                    signature.to_vec()
                } else {
                    return Err(CKR_SIGNATURE_LEN_RANGE);
                };
                op.module
                    .verify(op.algorithm, spki, &op.data, &der)
                    .map(|served| served.is_approved())
                    .map_err(|error| rv_of(&error, false))
            }
        }
    }
}

/// Where a token-generated GCM IV goes: the caller's `CK_GCM_PARAMS` (`pIv`, `ulIvBits`), which
/// must stay valid until the encryption completes.
pub struct IvOut {
    iv: *mut u8,
    bits: *mut CK_ULONG,
}

// SAFETY: the pointers are only written through by the thread that completes the operation,
// under the library lock; the caller keeps the parameters alive until then (see README).
unsafe impl Send for IvOut {}

/// The parameters of an encryption or decryption, read from `CK_MECHANISM`.
pub enum Params {
    None,
    /// CBC, OFB, CFB: the IV.
    Iv(Vec<u8>),
    /// CTR: the counter bits and initial counter block.
    Ctr {
        counter_bits: u32,
        block: [u8; BLOCK],
    },
    /// GCM: IV, AAD and tag bits, and where a generated IV is written.
    Gcm {
        iv: Vec<u8>,
        aad: Vec<u8>,
        tag_bits: CK_ULONG,
        iv_out: *mut u8,
        iv_bits_out: *mut CK_ULONG,
    },
    /// CCM: `CK_CCM_PARAMS`, read.
    Ccm(crate::ccm::CcmParams),
}

pub enum CryptOp {
    Stream(StreamOp),
    Gcm(GcmOp),
    /// SM2 encryption (GB/T 32918.4), single-part in effect: parts are gathered.
    Sm2(crate::sm2::Sm2CryptOp),
    Ccm(crate::ccm::CcmOp),
    /// RSA-OAEP (`CKM_RSA_PKCS_OAEP`), single-part only.
    RsaOaep(crate::oaep::OaepOp),
}

pub struct StreamOp {
    stream: CipherStream,
    /// Encryption with padding: up to one block more out than in.
    pads: bool,
    /// CBC without padding and ECB: whole blocks only.
    whole_blocks: bool,
    decrypts: bool,
    /// CTR with fewer than 128 counter bits: the bytes left before the counter would wrap.
    ctr_left: Option<u128>,
}

pub struct GcmOp {
    key: BoundGcmKey,
    /// The caller's IV; `None`: the token generates it (policies that refuse a caller's IV).
    iv: Option<Vec<u8>>,
    iv_out: Option<IvOut>,
    aad: Vec<u8>,
    data: Zeroizing<Vec<u8>>,
    decrypts: bool,
}

impl CryptOp {
    pub fn new(
        module: &Module,
        algorithm: Algorithm,
        op: Op,
        key: &[u8],
        params: Params,
        direction: Direction,
    ) -> Result<CryptOp, CK_RV> {
        let decrypts = direction == Direction::Decrypt;
        if op == Op::Gcm {
            let key = bind_gcm(module, algorithm, key)?;
            return GcmOp::new(module, algorithm, key, params, decrypts).map(CryptOp::Gcm);
        }
        if op == Op::Ccm {
            let Params::Ccm(params) = params else {
                return Err(CKR_MECHANISM_PARAM_INVALID);
            };
            return crate::ccm::CcmOp::new(module, algorithm, key, params, decrypts)
                .map(CryptOp::Ccm);
        }
        let (iv, ctr_left) = match (op, params) {
            (Op::Ecb, Params::None) => (Vec::new(), None),
            // XTS: the parameter is the 16-byte tweak (the data unit's number).
            (Op::Cbc { .. } | Op::Feedback | Op::Xts, Params::Iv(iv)) if iv.len() == BLOCK => {
                (iv, None)
            }
            (
                Op::Ctr,
                Params::Ctr {
                    counter_bits,
                    block,
                },
            ) if (1..=128).contains(&counter_bits) => {
                let left = (counter_bits < 128).then(|| {
                    let counter = u128::from_be_bytes(block) & ((1u128 << counter_bits) - 1);
                    ((1u128 << counter_bits) - counter) * BLOCK as u128
                });
                (block.to_vec(), left)
            }
            _ => return Err(CKR_MECHANISM_PARAM_INVALID),
        };
        let cipher = module
            .cipher_key(algorithm, key)
            .map_err(|error| rv_of(&error, false))?;
        let mut stream = cipher
            .stream(direction, &iv)
            .map_err(|_| CKR_MECHANISM_PARAM_INVALID)?;
        let pads = matches!(op, Op::Cbc { pad: true });
        let whole_blocks = matches!(op, Op::Cbc { pad: false } | Op::Ecb);
        if whole_blocks {
            stream.set_padding(false).map_err(|_| CKR_FUNCTION_FAILED)?;
        }
        Ok(CryptOp::Stream(StreamOp {
            stream,
            pads: pads && !decrypts,
            whole_blocks,
            decrypts,
            ctr_left,
        }))
    }

    fn decrypts(&self) -> bool {
        match self {
            CryptOp::Stream(op) => op.decrypts,
            CryptOp::Gcm(op) => op.decrypts,
            CryptOp::Sm2(op) => op.decrypts(),
            CryptOp::Ccm(op) => op.decrypts(),
            CryptOp::RsaOaep(op) => op.decrypts(),
        }
    }

    fn wrong_length(&self) -> CK_RV {
        if self.decrypts() {
            CKR_ENCRYPTED_DATA_LEN_RANGE
        } else {
            CKR_DATA_LEN_RANGE
        }
    }

    /// The most a single-part call on `input_len` bytes can give (exact for all but CBC-PAD
    /// decryption).
    pub fn single_len_bound(&self, input_len: usize) -> Result<usize, CK_RV> {
        match self {
            CryptOp::Stream(op) => {
                if op.whole_blocks && !input_len.is_multiple_of(BLOCK) {
                    return Err(self.wrong_length());
                }
                Ok(input_len + if op.pads { BLOCK } else { 0 })
            }
            CryptOp::Gcm(op) => op.output_len(input_len),
            CryptOp::Sm2(op) => op.len_bound(input_len),
            CryptOp::Ccm(op) => op.output_len(input_len),
            CryptOp::RsaOaep(op) => op.len_bound(input_len),
        }
    }

    /// Whether the bound above is the exact length.
    pub fn bound_is_exact(&self) -> bool {
        match self {
            // Padding makes the length depend on the data (encryption: the input's length
            // modulo the block; decryption: the padding found).
            CryptOp::Stream(op) => {
                !(op.pads || (op.decrypts && !op.whole_blocks && op.stream.block_size() > 1))
            }
            CryptOp::Gcm(_) | CryptOp::Ccm(_) => true,
            CryptOp::Sm2(op) => op.bound_is_exact(),
            CryptOp::RsaOaep(op) => op.bound_is_exact(),
        }
    }

    /// A single-part call: everything at once.
    pub fn single(&mut self, input: &[u8]) -> Result<Done, CK_RV> {
        match self {
            CryptOp::Stream(op) => {
                let mut output = Zeroizing::new(vec![0u8; input.len() + 2 * BLOCK]);
                let written = op.update(input, &mut output)?;
                let finish_len = op.stream.finish_len();
                let served = op
                    .stream
                    .finish(&mut output[written..written + finish_len])
                    .map_err(|error| rv_of(&error, op.decrypts))?;
                let approved = served.is_approved();
                output.truncate(written + *served);
                Ok(Done { output, approved })
            }
            CryptOp::Gcm(op) => {
                op.data.extend_from_slice(input);
                op.finish()
            }
            CryptOp::Sm2(op) => {
                op.update(input);
                op.finish()
            }
            CryptOp::Ccm(op) => {
                op.update(input)?;
                op.finish()
            }
            CryptOp::RsaOaep(op) => op.single(input),
        }
    }

    /// A single-part call writing straight into the caller's buffer, `out` exactly as long as
    /// the result: `Some(approved)`, or `None` where the operation has no such path (its
    /// result's length is only bounded) and [`CryptOp::single`] must be used. A GCM operation
    /// that gathered data from updates is finished the ordinary way too. On failure `out` is
    /// wiped.
    pub fn single_into(&mut self, input: &[u8], out: &mut [u8]) -> Result<Option<bool>, CK_RV> {
        match self {
            CryptOp::Gcm(op) if op.data.is_empty() => op.crypt_into(input, out).map(Some),
            _ => Ok(None),
        }
    }

    /// What an update of `input_len` bytes gives.
    pub fn update_len(&self, input_len: usize) -> usize {
        match self {
            CryptOp::Stream(op) => op.stream.update_len(input_len),
            CryptOp::Gcm(_) | CryptOp::Sm2(_) | CryptOp::Ccm(_) | CryptOp::RsaOaep(_) => 0,
        }
    }

    /// A multi-part update into `output` (at least [`CryptOp::update_len`] bytes).
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize, CK_RV> {
        match self {
            CryptOp::Stream(op) => op.update(input, output),
            CryptOp::Gcm(op) => {
                op.data.extend_from_slice(input);
                Ok(0)
            }
            CryptOp::Sm2(op) => {
                op.update(input);
                Ok(0)
            }
            CryptOp::Ccm(op) => {
                op.update(input)?;
                Ok(0)
            }
            // PKCS#11 defines RSA-OAEP single-part only (as SoftHSM2 refuses it, here too).
            CryptOp::RsaOaep(_) => Err(CKR_MECHANISM_INVALID),
        }
    }

    /// The most the final call can give.
    pub fn final_len_bound(&self) -> Result<usize, CK_RV> {
        match self {
            CryptOp::Stream(op) => Ok(op.stream.finish_len()),
            CryptOp::Gcm(op) => op.output_len(0),
            CryptOp::Sm2(op) => op.len_bound(0),
            CryptOp::Ccm(op) => op.output_len(0),
            CryptOp::RsaOaep(_) => Err(CKR_MECHANISM_INVALID),
        }
    }

    pub fn finish(&mut self) -> Result<Done, CK_RV> {
        match self {
            CryptOp::Stream(op) => {
                let mut output = Zeroizing::new(vec![0u8; op.stream.finish_len()]);
                let served = op
                    .stream
                    .finish(&mut output)
                    .map_err(|error| rv_of(&error, op.decrypts))?;
                let approved = served.is_approved();
                output.truncate(*served);
                Ok(Done { output, approved })
            }
            CryptOp::Gcm(op) => op.finish(),
            CryptOp::Sm2(op) => op.finish(),
            CryptOp::Ccm(op) => op.finish(),
            CryptOp::RsaOaep(_) => Err(CKR_MECHANISM_INVALID),
        }
    }

    /// A copy of the operation, to learn an exact output length without ending it.
    pub fn try_clone(&self) -> Option<CryptOp> {
        match self {
            CryptOp::Stream(op) => Some(CryptOp::Stream(StreamOp {
                stream: op.stream.try_clone().ok()?,
                pads: op.pads,
                whole_blocks: op.whole_blocks,
                decrypts: op.decrypts,
                ctr_left: op.ctr_left,
            })),
            CryptOp::Gcm(_) | CryptOp::Ccm(_) => None,
            CryptOp::Sm2(op) => Some(CryptOp::Sm2(op.clone())),
            CryptOp::RsaOaep(op) => Some(CryptOp::RsaOaep(op.clone())),
        }
    }
}

impl StreamOp {
    fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize, CK_RV> {
        if let Some(left) = self.ctr_left {
            let len = input.len() as u128;
            if len > left {
                return Err(if self.decrypts {
                    CKR_ENCRYPTED_DATA_LEN_RANGE
                } else {
                    CKR_DATA_LEN_RANGE
                });
            }
            self.ctr_left = Some(left - len);
        }
        self.stream
            .update(input, output)
            .map_err(|error| rv_of(&error, self.decrypts))
    }
}

/// A GCM key bound to the slot's module, shared by the operations of one session on one key
/// object: binding (the key schedule, GHASH's table, and under `gm` or for SM4 a nonce sequence
/// started from the module's generator) is done once, not at every `C_EncryptInit`, and the
/// sequence's nonces stay unique across those operations.
pub type BoundGcmKey = Arc<AeadKey>;

pub fn bind_gcm(module: &Module, algorithm: Algorithm, key: &[u8]) -> Result<BoundGcmKey, CK_RV> {
    module
        .aead_key(algorithm, key)
        .map(Arc::new)
        .map_err(|error| rv_of(&error, false))
}

impl CryptOp {
    /// A GCM operation with a key bound before (see [`BoundGcmKey`]).
    pub fn gcm(
        module: &Module,
        algorithm: Algorithm,
        key: BoundGcmKey,
        params: Params,
        direction: Direction,
    ) -> Result<CryptOp, CK_RV> {
        GcmOp::new(
            module,
            algorithm,
            key,
            params,
            direction == Direction::Decrypt,
        )
        .map(CryptOp::Gcm)
    }
}

impl GcmOp {
    fn new(
        module: &Module,
        algorithm: Algorithm,
        key: BoundGcmKey,
        params: Params,
        decrypts: bool,
    ) -> Result<GcmOp, CK_RV> {
        let Params::Gcm {
            iv,
            aad,
            tag_bits,
            iv_out,
            iv_bits_out,
        } = params
        else {
            return Err(CKR_MECHANISM_PARAM_INVALID);
        };
        if iv.len() != GCM_IV_LEN || tag_bits != (GCM_TAG_LEN * 8) as CK_ULONG {
            return Err(CKR_MECHANISM_PARAM_INVALID);
        }
        let caller_iv = Usage {
            caller_nonce: true,
            ..Usage::default()
        };
        let generates = !decrypts && module.policy().evaluate(algorithm, &caller_iv).is_err();
        let (iv, iv_out) = if generates {
            if iv_out.is_null() {
                return Err(CKR_MECHANISM_PARAM_INVALID);
            }
            (
                None,
                Some(IvOut {
                    iv: iv_out,
                    bits: iv_bits_out,
                }),
            )
        } else {
            (Some(iv), None)
        };
        Ok(GcmOp {
            key,
            iv,
            iv_out,
            aad,
            data: Zeroizing::new(Vec::new()),
            decrypts,
        })
    }

    fn output_len(&self, more: usize) -> Result<usize, CK_RV> {
        let len = self.data.len() + more;
        if self.decrypts {
            len.checked_sub(GCM_TAG_LEN)
                .ok_or(CKR_ENCRYPTED_DATA_LEN_RANGE)
        } else {
            Ok(len + GCM_TAG_LEN)
        }
    }

    /// Seals or opens `input` into `out` (exactly the result's length), with no copy of the
    /// data on the way: the single-part path, where the 16 KiB a caller encrypts would otherwise
    /// be copied in, sealed on a copy, copied out and wiped twice. Whether the policy approved it.
    fn crypt_into(&mut self, input: &[u8], out: &mut [u8]) -> Result<bool, CK_RV> {
        let fail = |error: regula::Error| rv_of(&error, self.decrypts);
        if self.decrypts {
            let iv = self.iv.as_deref().unwrap_or_default();
            let served = self.key.open_into(iv, &self.aad, input, out);
            return served.map(|served| served.is_approved()).map_err(fail);
        }
        if let Some(iv) = &self.iv {
            let served = self.key.seal_with_nonce_into(iv, &self.aad, input, out);
            return served.map(|served| served.is_approved()).map_err(fail);
        }
        if out.len() != input.len() + GCM_TAG_LEN {
            return Err(CKR_GENERAL_ERROR);
        }
        let (body, tag) = out.split_at_mut(input.len());
        body.copy_from_slice(input);
        let served = self.key.seal_detached(&self.aad, body, tag).map_err(fail)?;
        let approved = served.is_approved();
        self.write_iv(&served.into_value());
        Ok(approved)
    }

    /// Gives the caller the IV the token drew, where the caller's parameters asked for it.
    fn write_iv(&self, nonce: &[u8; GCM_IV_LEN]) {
        if let Some(out) = &self.iv_out {
            // SAFETY: `out.iv` was checked non-null at init and points at the caller's
            // `ulIvLen` (12) bytes; `out.bits`, if non-null, at its `ulIvBits`; the caller
            // keeps its CK_GCM_PARAMS alive until the encryption completes.
            unsafe {
                std::ptr::copy_nonoverlapping(nonce.as_ptr(), out.iv, GCM_IV_LEN);
                if !out.bits.is_null() {
                    *out.bits = (GCM_IV_LEN * 8) as CK_ULONG;
                }
            }
        }
    }

    /// Seals or opens everything gathered (a decryption gives no plaintext before the tag is
    /// checked).
    fn finish(&mut self) -> Result<Done, CK_RV> {
        let data = std::mem::take(&mut self.data);
        if self.decrypts {
            let iv = self.iv.as_deref().unwrap_or_default();
            let served = self
                .key
                .open(iv, &self.aad, &data)
                .map_err(|error| rv_of(&error, true))?;
            let approved = served.is_approved();
            return Ok(Done {
                output: Zeroizing::new(served.into_value()),
                approved,
            });
        }
        match &self.iv {
            Some(iv) => {
                let served = self
                    .key
                    .seal_with_nonce(iv, &self.aad, &data)
                    .map_err(|error| rv_of(&error, false))?;
                let approved = served.is_approved();
                Ok(Done {
                    output: Zeroizing::new(served.into_value()),
                    approved,
                })
            }
            None => {
                let served = self
                    .key
                    .seal(&self.aad, &data)
                    .map_err(|error| rv_of(&error, false))?;
                let approved = served.is_approved();
                let sealed = served.into_value();
                self.write_iv(&sealed.nonce);
                Ok(Done {
                    output: Zeroizing::new(sealed.ciphertext),
                    approved,
                })
            }
        }
    }
}
