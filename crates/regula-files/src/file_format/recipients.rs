//! Public-key recipients: the file key wrapped to a KEM or key-agreement public key.
//!
//! | kind | algorithms | stanza body |
//! |---|---|---|
//! | `mlkem768-x25519` (0x10) | ML-KEM-768 + X25519 | ML-KEM ciphertext (1088) ‖ ephemeral X25519 key (32) ‖ nonce ‖ wrapped key |
//! | `mlkem1024` (0x11) | ML-KEM-1024 | ML-KEM ciphertext (1568) ‖ nonce ‖ wrapped key |
//! | `ecdh-p384` (0x12) | ephemeral-static ECDH on P-384 | ephemeral point (97) ‖ nonce ‖ wrapped key |
//! | `sm2` (0x13) | SM2 encryption (GB/T 32918.4) | C1 ‖ C3 ‖ C2 of the file key (129) |
//!
//! For the first three the wrapping key is the suite's KBKDF over the shared secret(s), with the
//! kind's label and the context `ciphertext or ephemeral key ‖ recipient public key`, so that it
//! is bound to this encapsulation and this recipient (the hybrid concatenates the ML-KEM and
//! X25519 secrets, both of which must be broken to recover it).

use zeroize::Zeroizing;

use regula::policy::Usage;
use regula::service::aead::NONCE_LEN;
use regula::{Algorithm, CiphertextFormat, Error, Module, Policy};

use super::keys::{FILE_KEY_LEN, kbkdf, unwrap, wrap};
use super::{FileError, Suite, aead_key_len};

const WRAP_LEN: usize = NONCE_LEN + FILE_KEY_LEN + super::TAG_LEN;
const MLKEM768_EK: usize = 1184;
const MLKEM768_DK: usize = 2400;
const MLKEM768_CT: usize = 1088;
const MLKEM1024_EK: usize = 1568;
const MLKEM1024_CT: usize = 1568;
const X25519_LEN: usize = 32;
const P384_POINT: usize = 97;
const SM2_CIPHERTEXT: usize = 65 + 32 + FILE_KEY_LEN;

/// The kinds of recipient, in the order a writer prefers them for a new key: the first whose
/// algorithms the policy all approves (hybrid under `default`, ML-KEM-1024 under `fips-140-3`,
/// SM2 under `gm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecipientKind {
    MlKem768X25519,
    MlKem1024,
    EcdhP384,
    Sm2,
}

impl RecipientKind {
    pub const PREFERENCE: [RecipientKind; 4] = [
        RecipientKind::MlKem768X25519,
        RecipientKind::MlKem1024,
        RecipientKind::EcdhP384,
        RecipientKind::Sm2,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RecipientKind::MlKem768X25519 => "mlkem768-x25519",
            RecipientKind::MlKem1024 => "mlkem1024",
            RecipientKind::EcdhP384 => "ecdh-p384",
            RecipientKind::Sm2 => "sm2",
        }
    }

    pub fn from_name(name: &str) -> Option<RecipientKind> {
        RecipientKind::PREFERENCE
            .into_iter()
            .find(|kind| kind.name() == name)
    }

    pub(super) fn id(self) -> u8 {
        match self {
            RecipientKind::MlKem768X25519 => 0x10,
            RecipientKind::MlKem1024 => 0x11,
            RecipientKind::EcdhP384 => 0x12,
            RecipientKind::Sm2 => 0x13,
        }
    }

    pub(super) fn from_id(id: u8) -> Option<RecipientKind> {
        RecipientKind::PREFERENCE
            .into_iter()
            .find(|kind| kind.id() == id)
    }

    /// The registry's algorithms this kind uses.
    pub fn algorithms(self) -> &'static [Algorithm] {
        match self {
            RecipientKind::MlKem768X25519 => &[Algorithm::MlKem768, Algorithm::X25519],
            RecipientKind::MlKem1024 => &[Algorithm::MlKem1024],
            RecipientKind::EcdhP384 => &[Algorithm::EcdhP384],
            RecipientKind::Sm2 => &[Algorithm::Sm2Encrypt],
        }
    }

    /// The kind a policy prefers for new keys.
    pub fn for_policy(policy: &Policy) -> Option<RecipientKind> {
        RecipientKind::PREFERENCE
            .into_iter()
            .find(|kind| kind.algorithms().iter().all(|a| policy.approves(*a)))
    }

    /// The stanza body's length.
    pub(super) fn body_len(self) -> usize {
        match self {
            RecipientKind::MlKem768X25519 => MLKEM768_CT + X25519_LEN + WRAP_LEN,
            RecipientKind::MlKem1024 => MLKEM1024_CT + WRAP_LEN,
            RecipientKind::EcdhP384 => P384_POINT + WRAP_LEN,
            RecipientKind::Sm2 => SM2_CIPHERTEXT,
        }
    }

    fn label(self) -> &'static [u8] {
        match self {
            RecipientKind::MlKem768X25519 => b"regula-file v1 mlkem768-x25519",
            RecipientKind::MlKem1024 => b"regula-file v1 mlkem1024",
            RecipientKind::EcdhP384 => b"regula-file v1 ecdh-p384",
            RecipientKind::Sm2 => b"regula-file v1 sm2",
        }
    }

    fn check_policy(self, module: &Module) -> Result<(), Error> {
        for algorithm in self.algorithms() {
            module.policy().evaluate(*algorithm, &Usage::default())?;
        }
        Ok(())
    }
}

impl std::fmt::Display for RecipientKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A recipient's public key: `kind id ‖ public key` in [`Recipient::to_bytes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipient {
    kind: RecipientKind,
    public: Vec<u8>,
}

/// A recipient's private key (with its public key); wiped on drop.
pub struct RecipientIdentity {
    kind: RecipientKind,
    public: Vec<u8>,
    private: Zeroizing<Vec<u8>>,
}

impl std::fmt::Debug for RecipientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecipientIdentity")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

fn bad(what: &str) -> FileError {
    FileError::Format(format!("malformed {what}"))
}

impl Recipient {
    pub fn kind(&self) -> RecipientKind {
        self.kind
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        [&[self.kind.id()][..], &self.public].concat()
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Recipient, FileError> {
        let (&id, public) = bytes.split_first().ok_or_else(|| bad("recipient"))?;
        let kind = RecipientKind::from_id(id).ok_or_else(|| bad("recipient (unknown kind)"))?;
        let length_ok = match kind {
            RecipientKind::MlKem768X25519 => public.len() == MLKEM768_EK + X25519_LEN,
            RecipientKind::MlKem1024 => public.len() == MLKEM1024_EK,
            RecipientKind::EcdhP384 => public.len() == P384_POINT,
            RecipientKind::Sm2 => !public.is_empty() && public.len() <= 128,
        };
        if !length_ok {
            return Err(bad("recipient (wrong length)"));
        }
        Ok(Recipient {
            kind,
            public: public.to_vec(),
        })
    }
}

impl RecipientIdentity {
    /// A new key pair of `kind`, from the module (with its pairwise consistency tests).
    pub fn generate(module: &Module, kind: RecipientKind) -> Result<RecipientIdentity, FileError> {
        kind.check_policy(module)?;
        let (public, private) = match kind {
            RecipientKind::MlKem768X25519 => {
                let kem = module.generate_kem_key(Algorithm::MlKem768)?.into_value();
                let x = module
                    .generate_agreement_key(Algorithm::X25519)?
                    .into_value();
                let public = [kem.encapsulation_key()?, x.public_key()?].concat();
                let private = Zeroizing::new(
                    [
                        kem.to_bytes()?.as_slice(),
                        x.private_key_bytes()?.as_slice(),
                    ]
                    .concat(),
                );
                (public, private)
            }
            RecipientKind::MlKem1024 => {
                let kem = module.generate_kem_key(Algorithm::MlKem1024)?.into_value();
                (kem.encapsulation_key()?, kem.to_bytes()?)
            }
            RecipientKind::EcdhP384 => {
                let key = module
                    .generate_agreement_key(Algorithm::EcdhP384)?
                    .into_value();
                (key.public_key()?, key.private_key_bytes()?)
            }
            RecipientKind::Sm2 => {
                let key = module
                    .generate_decryption_key(Algorithm::Sm2Encrypt)?
                    .into_value();
                (key.public_key_der()?, key.to_pkcs8_der()?)
            }
        };
        Ok(RecipientIdentity {
            kind,
            public,
            private,
        })
    }

    pub fn kind(&self) -> RecipientKind {
        self.kind
    }

    pub fn recipient(&self) -> Recipient {
        Recipient {
            kind: self.kind,
            public: self.public.clone(),
        }
    }

    /// `kind id ‖ public length (16-bit) ‖ public ‖ private`; a secret.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let len = (self.public.len() as u16).to_be_bytes();
        Zeroizing::new(
            [
                &[self.kind.id()][..],
                &len,
                &self.public,
                self.private.as_slice(),
            ]
            .concat(),
        )
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<RecipientIdentity, FileError> {
        let (&id, rest) = bytes.split_first().ok_or_else(|| bad("identity"))?;
        let kind = RecipientKind::from_id(id).ok_or_else(|| bad("identity (unknown kind)"))?;
        if rest.len() < 2 {
            return Err(bad("identity"));
        }
        let (len, rest) = rest.split_at(2);
        let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
        if rest.len() <= len {
            return Err(bad("identity"));
        }
        let (public, private) = rest.split_at(len);
        Recipient::from_bytes(&[&[id][..], public].concat())?;
        Ok(RecipientIdentity {
            kind,
            public: public.to_vec(),
            private: Zeroizing::new(private.to_vec()),
        })
    }
}

/// The stanza body wrapping `file_key` to `recipient`.
pub(super) fn recipient_stanza(
    module: &Module,
    suite: Suite,
    recipient: &Recipient,
    file_key: &[u8],
) -> Result<Vec<u8>, FileError> {
    let kind = recipient.kind;
    kind.check_policy(module)?;
    let kek_len = aead_key_len(suite.aead);
    let mut body = Vec::with_capacity(kind.body_len());
    let kek = match kind {
        RecipientKind::MlKem768X25519 => {
            let (ek, x_public) = recipient.public.split_at(MLKEM768_EK);
            let encapsulated = module.encapsulate(Algorithm::MlKem768, ek)?.into_value();
            let ephemeral = module
                .generate_agreement_key(Algorithm::X25519)?
                .into_value();
            let x_secret = ephemeral.agree(x_public)?.into_value();
            let ephemeral_public = ephemeral.public_key()?;
            body.extend_from_slice(&encapsulated.ciphertext);
            body.extend_from_slice(&ephemeral_public);
            let secret = Zeroizing::new(
                [encapsulated.shared_secret.as_slice(), x_secret.as_slice()].concat(),
            );
            let context = [body.as_slice(), &recipient.public].concat();
            kbkdf(module, suite.prf, &secret, kind.label(), &context, kek_len)?
        }
        RecipientKind::MlKem1024 => {
            let encapsulated = module
                .encapsulate(Algorithm::MlKem1024, &recipient.public)?
                .into_value();
            body.extend_from_slice(&encapsulated.ciphertext);
            let context = [body.as_slice(), &recipient.public].concat();
            kbkdf(
                module,
                suite.prf,
                &encapsulated.shared_secret,
                kind.label(),
                &context,
                kek_len,
            )?
        }
        RecipientKind::EcdhP384 => {
            let ephemeral = module
                .generate_agreement_key(Algorithm::EcdhP384)?
                .into_value();
            let secret = ephemeral.agree(&recipient.public)?.into_value();
            body.extend_from_slice(&ephemeral.public_key()?);
            let context = [body.as_slice(), &recipient.public].concat();
            kbkdf(module, suite.prf, &secret, kind.label(), &context, kek_len)?
        }
        RecipientKind::Sm2 => {
            let ciphertext = module
                .encrypt_to_public_key(
                    Algorithm::Sm2Encrypt,
                    &recipient.public,
                    file_key,
                    CiphertextFormat::C1C3C2,
                )?
                .into_value();
            if ciphertext.len() != SM2_CIPHERTEXT {
                return Err(FileError::Module(Error::CryptoFailure));
            }
            return Ok(ciphertext);
        }
    };
    body.extend(wrap(module, suite.aead, &kek, kind.id(), file_key)?);
    Ok(body)
}

/// The file key from a recipient stanza, or `None` when the identity does not open it.
pub(super) fn open_recipient_stanza(
    module: &Module,
    suite: Suite,
    kind: RecipientKind,
    body: &[u8],
    identity: &RecipientIdentity,
) -> Result<Option<Zeroizing<Vec<u8>>>, FileError> {
    if kind != identity.kind || body.len() != kind.body_len() {
        return Ok(None);
    }
    kind.check_policy(module)?;
    let kek_len = aead_key_len(suite.aead);
    let (encapsulation, wrapped, kek) = match kind {
        RecipientKind::MlKem768X25519 => {
            let (dk, x_private) = identity.private.split_at(MLKEM768_DK);
            let (encapsulation, wrapped) = body.split_at(MLKEM768_CT + X25519_LEN);
            let (ciphertext, ephemeral) = encapsulation.split_at(MLKEM768_CT);
            let kem = module
                .kem_key_from_bytes(Algorithm::MlKem768, dk)?
                .into_value();
            let kem_secret = kem.decapsulate(ciphertext)?.into_value();
            let x = module
                .agreement_key_from_private_bytes(Algorithm::X25519, x_private)?
                .into_value();
            let Ok(x_secret) = x.agree(ephemeral) else {
                return Ok(None);
            };
            let secret =
                Zeroizing::new([kem_secret.as_slice(), x_secret.into_value().as_slice()].concat());
            let context = [encapsulation, &identity.public].concat();
            let kek = kbkdf(module, suite.prf, &secret, kind.label(), &context, kek_len)?;
            (encapsulation, wrapped, kek)
        }
        RecipientKind::MlKem1024 => {
            let (ciphertext, wrapped) = body.split_at(MLKEM1024_CT);
            let kem = module
                .kem_key_from_bytes(Algorithm::MlKem1024, &identity.private)?
                .into_value();
            let secret = kem.decapsulate(ciphertext)?.into_value();
            let context = [ciphertext, &identity.public].concat();
            let kek = kbkdf(module, suite.prf, &secret, kind.label(), &context, kek_len)?;
            (ciphertext, wrapped, kek)
        }
        RecipientKind::EcdhP384 => {
            let (ephemeral, wrapped) = body.split_at(P384_POINT);
            let key = module
                .agreement_key_from_private_bytes(Algorithm::EcdhP384, &identity.private)?
                .into_value();
            let Ok(secret) = key.agree(ephemeral) else {
                return Ok(None);
            };
            let context = [ephemeral, &identity.public].concat();
            let kek = kbkdf(
                module,
                suite.prf,
                &secret.into_value(),
                kind.label(),
                &context,
                kek_len,
            )?;
            (ephemeral, wrapped, kek)
        }
        RecipientKind::Sm2 => {
            let key = module
                .decryption_key_from_pkcs8(Algorithm::Sm2Encrypt, &identity.private)?
                .into_value();
            return Ok(key
                .decrypt(body, CiphertextFormat::C1C3C2)
                .ok()
                .map(|served| served.into_value())
                .filter(|key| key.len() == FILE_KEY_LEN));
        }
    };
    let _ = encapsulation;
    Ok(unwrap(module, suite.aead, &kek, kind.id(), wrapped)?)
}
