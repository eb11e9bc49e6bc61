//! Linux fscrypt v2 compatibility: the kernel's key hierarchy, file-contents encryption per data
//! unit and file-name encryption, so that a tool can read or write what the kernel stores.
//!
//! What the kernel does (Documentation/filesystems/fscrypt.rst; fs/crypto/hkdf.c, keysetup.c,
//! crypto.c and fname.c), and what this module reproduces:
//!
//! * **Key derivation.** Every key comes from the master key (16 to 64 bytes) through HKDF-SHA512
//!   (RFC 5869) with an empty salt and `info = "fscrypt\0" ‖ context ‖ extra`. Context 1 gives the
//!   16-byte key identifier (no extra), context 2 a file's encryption key (extra: the file's
//!   16-byte nonce, as stored in its encryption context). The master key must be at least as
//!   long as the mode's key.
//! * **Contents** (modes 1, AES-256-XTS, and 7, SM4-XTS in its IEEE Std 1619 form): each data
//!   unit is encrypted on its own, the XTS tweak being the data unit's index as a little-endian
//!   64-bit number in a 16-byte IV. Data units are 512 bytes to 64 KiB, a power of two (the
//!   filesystem block size unless the policy sets `log2_data_unit_size`).
//! * **File names** (modes 4, AES-256-CTS-CBC, and 8, SM4-CTS-CBC; CBC-CS3 with a zero IV): a name
//!   is zero-padded to a multiple of 4, 8, 16 or 32 bytes (the policy's padding flags), to at
//!   least 16 bytes, and to at most `NAME_MAX` (255); a directory's names use the key derived
//!   from the directory's nonce.
//!
//! DIRECT_KEY, IV_INO_LBLK_64 and IV_INO_LBLK_32 policies are not offered.
//!
//! Every operation passes the module's gate and counts in the service indicator: the derivations
//! as `fscrypt-hkdf-sha512` (approved under `default` and `fips-140-3`, served flagged under
//! `gm`, where the kernel's HKDF-SHA512 is not a GM/T algorithm), the contents as `aes-256-xts` or
//! `sm4-xts`, the names as `aes-256-cbc-cs3` (never approved: the stealing is Regula's, around
//! AWS-LC's CBC) or `sm4-cbc-cs3`.
//!
//! ```
//! use regula::{Module, Policy, Profile};
//! use regula_files::fscrypt::{ContentsMode, MasterKey};
//!
//! let module = Module::load(Policy::builtin(Profile::Default));
//! let master = MasterKey::new(&module, &[0x42; 64])?;
//! let identifier = master.key_identifier()?; // what `fscrypt status` prints, in hex
//! let key = master.contents_key(ContentsMode::Aes256Xts, &[7; 16])?;
//! let block = key.encrypt(5, 4096, &[0; 4096])?; // data unit 5 of the file
//! assert_eq!(key.decrypt(5, 4096, &block)?.as_slice(), &[0; 4096][..]);
//! # let _ = identifier;
//! # Ok::<(), regula::Error>(())
//! ```

use std::fmt;

use regula::{Algorithm, CipherKey, Error, Module, Result, Served};
use zeroize::Zeroizing;

/// Length of a key identifier (`FSCRYPT_KEY_IDENTIFIER_SIZE`).
pub const KEY_IDENTIFIER_LEN: usize = 16;
/// Length of a file's nonce (`FSCRYPT_FILE_NONCE_SIZE`).
pub const FILE_NONCE_LEN: usize = 16;
/// Shortest and longest master keys the kernel accepts (`FSCRYPT_MIN_KEY_SIZE`,
/// `FSCRYPT_MAX_KEY_SIZE`).
pub const MASTER_KEY_LEN: std::ops::RangeInclusive<usize> = 16..=64;
/// Longest file name (`NAME_MAX`), and so longest encrypted name.
pub const NAME_MAX: usize = 255;
/// Shortest encrypted name (`FSCRYPT_FNAME_MIN_MSG_LEN`): one cipher block.
pub const MIN_ENCRYPTED_NAME_LEN: usize = 16;
/// Data-unit sizes the kernel allows: 512 bytes (`SECTOR_SIZE`) to 64 KiB, powers of two.
pub const DATA_UNIT_SIZES: std::ops::RangeInclusive<usize> = 512..=65536;

/// `HKDF_CONTEXT_KEY_IDENTIFIER` (fs/crypto/fscrypt_private.h).
const CONTEXT_KEY_IDENTIFIER: u8 = 1;
/// `HKDF_CONTEXT_PER_FILE_ENC_KEY`.
const CONTEXT_PER_FILE_ENC_KEY: u8 = 2;

fn invalid_input(reason: impl Into<String>) -> Error {
    Error::InvalidInput {
        reason: reason.into(),
    }
}

fn invalid_key(algorithm: Algorithm, reason: impl Into<String>) -> Error {
    Error::InvalidKey {
        algorithm,
        reason: reason.into(),
    }
}

/// A contents encryption mode (`FSCRYPT_MODE_*` in include/uapi/linux/fscrypt.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentsMode {
    /// `FSCRYPT_MODE_AES_256_XTS` (1).
    Aes256Xts,
    /// `FSCRYPT_MODE_SM4_XTS` (7): SM4 in IEEE Std 1619 XTS.
    Sm4Xts,
}

impl ContentsMode {
    pub const ALL: [ContentsMode; 2] = [ContentsMode::Aes256Xts, ContentsMode::Sm4Xts];

    /// The kernel's mode number.
    pub fn number(self) -> u8 {
        match self {
            ContentsMode::Aes256Xts => 1,
            ContentsMode::Sm4Xts => 7,
        }
    }

    pub fn from_number(number: u8) -> Option<ContentsMode> {
        Self::ALL.into_iter().find(|mode| mode.number() == number)
    }

    /// The module algorithm that serves it.
    pub fn algorithm(self) -> Algorithm {
        match self {
            ContentsMode::Aes256Xts => Algorithm::Aes256Xts,
            ContentsMode::Sm4Xts => Algorithm::Sm4Xts,
        }
    }

    /// The per-file key's length (both XTS halves).
    pub fn key_len(self) -> usize {
        match self {
            ContentsMode::Aes256Xts => 64,
            ContentsMode::Sm4Xts => 32,
        }
    }

    /// The name the kernel and `fscrypt` tools use (`AES-256-XTS`, `SM4-XTS`).
    pub fn name(self) -> &'static str {
        match self {
            ContentsMode::Aes256Xts => "AES-256-XTS",
            ContentsMode::Sm4Xts => "SM4-XTS",
        }
    }
}

impl fmt::Display for ContentsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A file-name encryption mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FilenamesMode {
    /// `FSCRYPT_MODE_AES_256_CTS` (4): AES-256-CBC-CS3.
    Aes256Cts,
    /// `FSCRYPT_MODE_SM4_CTS` (8): SM4-CBC-CS3.
    Sm4Cts,
}

impl FilenamesMode {
    pub const ALL: [FilenamesMode; 2] = [FilenamesMode::Aes256Cts, FilenamesMode::Sm4Cts];

    pub fn number(self) -> u8 {
        match self {
            FilenamesMode::Aes256Cts => 4,
            FilenamesMode::Sm4Cts => 8,
        }
    }

    pub fn from_number(number: u8) -> Option<FilenamesMode> {
        Self::ALL.into_iter().find(|mode| mode.number() == number)
    }

    pub fn algorithm(self) -> Algorithm {
        match self {
            FilenamesMode::Aes256Cts => Algorithm::Aes256CbcCs3,
            FilenamesMode::Sm4Cts => Algorithm::Sm4CbcCs3,
        }
    }

    pub fn key_len(self) -> usize {
        match self {
            FilenamesMode::Aes256Cts => 32,
            FilenamesMode::Sm4Cts => 16,
        }
    }

    /// `AES-256-CTS`, `SM4-CTS`.
    pub fn name(self) -> &'static str {
        match self {
            FilenamesMode::Aes256Cts => "AES-256-CTS",
            FilenamesMode::Sm4Cts => "SM4-CTS",
        }
    }
}

impl fmt::Display for FilenamesMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// File-name padding: the policy's `FSCRYPT_POLICY_FLAGS_PAD_*` (4, 8, 16 or 32 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NamePadding(u8);

impl NamePadding {
    /// `FSCRYPT_POLICY_FLAGS_PAD_32`, what `fscrypt` and `fscryptctl` set by default.
    pub const DEFAULT: NamePadding = NamePadding(32);

    /// 4, 8, 16 or 32 bytes.
    pub fn new(bytes: usize) -> Result<NamePadding> {
        match bytes {
            4 | 8 | 16 | 32 => Ok(NamePadding(bytes as u8)),
            other => Err(invalid_input(format!(
                "fscrypt file-name padding is 4, 8, 16 or 32 bytes, got {other}"
            ))),
        }
    }

    /// From a policy's flags byte (its two low bits, `FSCRYPT_POLICY_FLAGS_PAD_MASK`).
    pub fn from_policy_flags(flags: u8) -> NamePadding {
        NamePadding(4 << (flags & 0x03))
    }

    pub fn bytes(self) -> usize {
        usize::from(self.0)
    }

    /// The stored length of a name of `len` bytes (1 to 255): rounded up to the padding, at
    /// least 16, at most 255 (fs/crypto/fname.c).
    pub fn encrypted_len(self, len: usize) -> usize {
        len.max(MIN_ENCRYPTED_NAME_LEN)
            .next_multiple_of(self.bytes())
            .min(NAME_MAX)
    }
}

impl Default for NamePadding {
    fn default() -> NamePadding {
        NamePadding::DEFAULT
    }
}

/// An fscrypt v2 master key, bound to a module; wiped on drop.
pub struct MasterKey {
    module: Module,
    secret: Zeroizing<Vec<u8>>,
}

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MasterKey")
            .field("len", &self.secret.len())
            .finish_non_exhaustive()
    }
}

impl MasterKey {
    /// Takes a raw master key of 16 to 64 bytes (what `fscrypt` / `fscryptctl add_key` feed the
    /// kernel).
    pub fn new(module: &Module, secret: &[u8]) -> Result<MasterKey> {
        module.ensure_operational()?;
        if !MASTER_KEY_LEN.contains(&secret.len()) {
            return Err(invalid_key(
                Algorithm::FscryptHkdfSha512,
                format!(
                    "an fscrypt master key is {} to {} bytes, got {}",
                    MASTER_KEY_LEN.start(),
                    MASTER_KEY_LEN.end(),
                    secret.len()
                ),
            ));
        }
        Ok(MasterKey {
            module: module.clone(),
            secret: Zeroizing::new(secret.to_vec()),
        })
    }

    pub fn len(&self) -> usize {
        self.secret.len()
    }

    pub fn is_empty(&self) -> bool {
        self.secret.is_empty()
    }

    /// HKDF-SHA512 with the kernel's empty salt and `info = "fscrypt\0" ‖ context ‖ extra`,
    /// through the module as `fscrypt-hkdf-sha512` ([`Module::fscrypt_hkdf_sha512`]).
    fn derive(&self, context: u8, extra: &[u8], len: usize) -> Result<Served<Zeroizing<Vec<u8>>>> {
        self.module
            .fscrypt_hkdf_sha512(&self.secret, context, extra, len)
    }

    /// The key identifier (`HKDF_CONTEXT_KEY_IDENTIFIER`, 16 bytes): how the kernel and
    /// `fscrypt` name a v2 master key.
    pub fn key_identifier(&self) -> Result<Served<[u8; KEY_IDENTIFIER_LEN]>> {
        let derived = self.derive(CONTEXT_KEY_IDENTIFIER, &[], KEY_IDENTIFIER_LEN)?;
        Ok(derived.map(|derived| {
            let mut identifier = [0u8; KEY_IDENTIFIER_LEN];
            identifier.copy_from_slice(&derived);
            identifier
        }))
    }

    /// A file's (or, for names, a directory's) encryption key of `len` bytes, from its 16-byte
    /// nonce (`HKDF_CONTEXT_PER_FILE_ENC_KEY`).
    pub fn per_file_key(&self, nonce: &[u8], len: usize) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let nonce = file_nonce(nonce)?;
        if len == 0 || len > MASTER_KEY_LEN.end() * 2 {
            return Err(invalid_input(format!(
                "an fscrypt per-file key is 1 to 128 bytes, got {len}"
            )));
        }
        self.derive(CONTEXT_PER_FILE_ENC_KEY, &nonce, len)
    }

    /// The contents key of the file with this nonce.
    pub fn contents_key(&self, mode: ContentsMode, nonce: &[u8]) -> Result<ContentsKey> {
        self.check_long_enough(mode.key_len(), mode.name())?;
        let key = self.per_file_key(nonce, mode.key_len())?;
        ContentsKey::from_raw(&self.module, mode, &key)
    }

    /// The file-name key of the directory with this nonce.
    pub fn filenames_key(&self, mode: FilenamesMode, nonce: &[u8]) -> Result<FilenamesKey> {
        self.check_long_enough(mode.key_len(), mode.name())?;
        let key = self.per_file_key(nonce, mode.key_len())?;
        FilenamesKey::from_raw(&self.module, mode, &key)
    }

    /// fs/crypto/keysetup.c: the master key must be at least as long as the mode's key.
    fn check_long_enough(&self, key_len: usize, mode: &str) -> Result<()> {
        if self.secret.len() < key_len {
            return Err(invalid_key(
                Algorithm::FscryptHkdfSha512,
                format!(
                    "{mode} needs a master key of at least {key_len} bytes (the kernel refuses a \
                     shorter one), got {}",
                    self.secret.len()
                ),
            ));
        }
        Ok(())
    }
}

fn file_nonce(nonce: &[u8]) -> Result<[u8; FILE_NONCE_LEN]> {
    nonce.try_into().map_err(|_| {
        invalid_input(format!(
            "an fscrypt file nonce is {FILE_NONCE_LEN} bytes, got {}",
            nonce.len()
        ))
    })
}

/// A file's contents key: encrypts and decrypts whole data units.
#[derive(Debug)]
pub struct ContentsKey {
    mode: ContentsMode,
    cipher: CipherKey,
}

impl ContentsKey {
    /// From a raw per-file key (64 bytes for AES-256-XTS, 32 for SM4-XTS).
    pub fn from_raw(module: &Module, mode: ContentsMode, key: &[u8]) -> Result<ContentsKey> {
        Ok(ContentsKey {
            mode,
            cipher: module.cipher_key(mode.algorithm(), key)?,
        })
    }

    pub fn mode(&self) -> ContentsMode {
        self.mode
    }

    /// Encrypts `data`, a whole number of data units of `data_unit_size` bytes, the first being
    /// unit `first_index` of the file.
    pub fn encrypt(
        &self,
        first_index: u64,
        data_unit_size: usize,
        data: &[u8],
    ) -> Result<Served<Vec<u8>>> {
        self.apply(first_index, data_unit_size, data, true)
    }

    /// Decrypts whole data units (no authentication: fscrypt has none).
    pub fn decrypt(
        &self,
        first_index: u64,
        data_unit_size: usize,
        data: &[u8],
    ) -> Result<Served<Vec<u8>>> {
        self.apply(first_index, data_unit_size, data, false)
    }

    fn apply(
        &self,
        first_index: u64,
        data_unit_size: usize,
        data: &[u8],
        encrypt: bool,
    ) -> Result<Served<Vec<u8>>> {
        if !data_unit_size.is_power_of_two() || !DATA_UNIT_SIZES.contains(&data_unit_size) {
            return Err(invalid_input(format!(
                "an fscrypt data unit is a power of two from {} to {} bytes, got {data_unit_size}",
                DATA_UNIT_SIZES.start(),
                DATA_UNIT_SIZES.end()
            )));
        }
        if data.is_empty() || !data.len().is_multiple_of(data_unit_size) {
            return Err(invalid_input(format!(
                "fscrypt encrypts whole data units: {} bytes is not a non-zero multiple of \
                 {data_unit_size}",
                data.len()
            )));
        }
        let units = (data.len() / data_unit_size) as u64;
        if first_index.checked_add(units - 1).is_none() {
            return Err(invalid_input(format!(
                "data units {first_index} + {units} overflow the 64-bit data-unit index"
            )));
        }
        let mut output = Vec::with_capacity(data.len());
        let mut last = None;
        for (offset, unit) in data.chunks(data_unit_size).enumerate() {
            let tweak = tweak(first_index + offset as u64);
            let served = if encrypt {
                let encrypted = self.cipher.encrypt(Some(&tweak), unit)?;
                output.extend_from_slice(&encrypted.ciphertext);
                encrypted.map(drop)
            } else {
                let plaintext = self.cipher.decrypt(&tweak, unit)?;
                output.extend_from_slice(&plaintext);
                plaintext.map(drop)
            };
            last = Some(served);
        }
        // Every unit went through the same key and rule, so the last indicator speaks for all.
        let last = last.ok_or(Error::CryptoFailure)?;
        Ok(last.map(|()| output))
    }
}

/// The XTS tweak of data unit `index`: the index little-endian in the first 8 bytes of a
/// 16-byte IV (fs/crypto/crypto.c, `fscrypt_generate_iv` without DIRECT_KEY or IV_INO_LBLK).
pub fn tweak(index: u64) -> [u8; 16] {
    let mut iv = [0u8; 16];
    iv[..8].copy_from_slice(&index.to_le_bytes());
    iv
}

/// A directory's file-name key.
#[derive(Debug)]
pub struct FilenamesKey {
    mode: FilenamesMode,
    cipher: CipherKey,
}

impl FilenamesKey {
    /// From a raw per-directory key (32 bytes for AES-256-CTS, 16 for SM4-CTS).
    pub fn from_raw(module: &Module, mode: FilenamesMode, key: &[u8]) -> Result<FilenamesKey> {
        Ok(FilenamesKey {
            mode,
            cipher: module.cipher_key(mode.algorithm(), key)?,
        })
    }

    pub fn mode(&self) -> FilenamesMode {
        self.mode
    }

    /// Encrypts a file name (1 to 255 bytes, no NUL byte) as the kernel stores it.
    pub fn encrypt(&self, name: &[u8], padding: NamePadding) -> Result<Served<Vec<u8>>> {
        if name.is_empty() || name.len() > NAME_MAX {
            return Err(invalid_input(format!(
                "a file name is 1 to {NAME_MAX} bytes, got {}",
                name.len()
            )));
        }
        if name.contains(&0) {
            return Err(invalid_input(
                "a file name cannot contain a NUL byte (fscrypt pads names with NULs)",
            ));
        }
        let mut padded = name.to_vec();
        padded.resize(padding.encrypted_len(name.len()), 0);
        Ok(self
            .cipher
            .encrypt(Some(&[0; 16]), &padded)?
            .map(|encrypted| encrypted.ciphertext))
    }

    /// Decrypts a stored name (16 to 255 bytes) and strips its NUL padding, as the kernel does
    /// (the name ends at the first NUL). Names carry no authentication: a wrong key gives
    /// garbage, not an error.
    pub fn decrypt(&self, encrypted: &[u8]) -> Result<Served<Vec<u8>>> {
        if !(MIN_ENCRYPTED_NAME_LEN..=NAME_MAX).contains(&encrypted.len()) {
            return Err(invalid_input(format!(
                "an encrypted file name is {MIN_ENCRYPTED_NAME_LEN} to {NAME_MAX} bytes, got {}",
                encrypted.len()
            )));
        }
        Ok(self.cipher.decrypt(&[0; 16], encrypted)?.map(|mut name| {
            let end = name
                .iter()
                .position(|&byte| byte == 0)
                .unwrap_or(name.len());
            name.truncate(end);
            name
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_follows_the_kernel() {
        // fs/crypto/fname.c: max(len, 16), rounded up to the padding, capped at NAME_MAX.
        let pad = |bytes| NamePadding::new(bytes).unwrap();
        assert_eq!(pad(16).encrypted_len(1), 16);
        assert_eq!(pad(32).encrypted_len(9), 32);
        assert_eq!(pad(4).encrypted_len(17), 20);
        assert_eq!(pad(32).encrypted_len(56), 64);
        assert_eq!(pad(4).encrypted_len(255), 255);
        assert_eq!(pad(32).encrypted_len(250), 255);
        assert_eq!(NamePadding::from_policy_flags(0x00), pad(4));
        assert_eq!(NamePadding::from_policy_flags(0x03), pad(32));
        assert_eq!(NamePadding::from_policy_flags(0x06), pad(16));
        assert!(NamePadding::new(12).is_err());
    }

    #[test]
    fn tweak_is_the_little_endian_index() {
        assert_eq!(tweak(0), [0; 16]);
        let iv = tweak(0x0102_0304_0506_0708);
        assert_eq!(iv[..8], [8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(iv[8..], [0; 8]);
    }

    #[test]
    fn modes_round_trip_their_numbers() {
        for mode in ContentsMode::ALL {
            assert_eq!(ContentsMode::from_number(mode.number()), Some(mode));
        }
        for mode in FilenamesMode::ALL {
            assert_eq!(FilenamesMode::from_number(mode.number()), Some(mode));
        }
        assert_eq!(ContentsMode::from_number(4), None);
        assert_eq!(FilenamesMode::from_number(1), None);
    }
}
