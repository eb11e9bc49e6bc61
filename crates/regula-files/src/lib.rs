//! Applications of the Regula module: the encrypted-file format behind `regula encrypt` and
//! `regula decrypt` ([`file_format`]), and Linux fscrypt v2 as the kernel stores it
//! ([`fscrypt`]).
//!
//! Neither holds a primitive of its own nor depends on a cryptographic crate: every key
//! derivation, cipher, AEAD, key agreement and random draw goes through a [`regula::Module`],
//! so the policy rules on it, its self-tests run before it and its service indicator counts it.
//!
//! ```
//! use std::io::{Read, Write};
//! use regula::{Module, Policy, Profile};
//! use regula_files::file_format::{Decryptor, Encryptor, Identity};
//!
//! let module = Module::load(Policy::builtin(Profile::Default));
//! let key = regula_files::file_format::new_key(&module)?;
//! let mut encryptor = Encryptor::new(&module)?;
//! encryptor.add_key_file(&key)?;
//! let mut writer = encryptor.writer(Vec::new())?;
//! writer.write_all(b"attack at dawn")?;
//! let (file, _summary) = writer.finish()?;
//!
//! let mut reader = Decryptor::new(&module, file.as_slice())?.unlock(&Identity::KeyFile(&key))?;
//! let mut plaintext = Vec::new();
//! reader.read_to_end(&mut plaintext)?;
//! assert_eq!(plaintext, b"attack at dawn");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod file_format;
pub mod fscrypt;
