//! Key derivation: HKDF (SP 800-56C / RFC 5869), PBKDF2 (SP 800-132) and KBKDF in counter mode
//! (SP 800-108r1 §4.1, the KDF of every SMB3 key).

use std::num::NonZeroU32;

use zeroize::Zeroizing;

use crate::algorithm::{Algorithm, Family, Service};
use crate::error::{Error, Result};
use crate::indicator::Served;
use crate::module::Module;
use crate::policy::Usage;
use crate::provider::kdf::{self as backend, Hkdf, Kbkdf, Pbkdf2, Tls12Prf};

/// The HKDF info prefix of every fscrypt v2 derivation (Linux fs/crypto/hkdf.c).
const FSCRYPT_INFO_PREFIX: &[u8; 8] = b"fscrypt\0";
/// The kernel extracts with an empty salt. As an HMAC key that is the same as SP 800-56C Rev. 2
/// §4.1's default salt, an all-zero string of the hash's input-block length (128 bytes for
/// SHA-512; RFC 5869's HashLen zeros too): HMAC pads every key shorter than a block with zeros.
/// The non-empty form is the one AWS-LC's validated module flags as approved (its HKDF refuses
/// to count an empty salt), and the output is bit for bit the kernel's.
const FSCRYPT_DEFAULT_SALT: [u8; 128] = [0; 128];

fn len_u32(len: usize) -> Option<u32> {
    Some(u32::try_from(len).unwrap_or(u32::MAX))
}

impl Module {
    /// HKDF extract-and-expand: `len` bytes from `secret`, `salt` and `info`.
    pub fn hkdf(
        &self,
        algorithm: Algorithm,
        secret: &[u8],
        salt: &[u8],
        info: &[u8],
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let usage = Usage {
            secret_bytes: len_u32(secret.len()),
            salt_bytes: len_u32(salt.len()),
            info_bytes: len_u32(info.len()),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let hkdf = Hkdf::new(algorithm)?;
        // RFC 5869 §2.3: L ≤ 255·HashLen.
        let max = hkdf.max_output_len();
        if len == 0 || len > max {
            return Err(Error::invalid_input(format!(
                "{algorithm} output length must be 1..={max} bytes, got {len}"
            )));
        }
        let mut output = Zeroizing::new(vec![0u8; len]);
        hkdf.derive(secret, salt, info, &mut output)?;
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }

    /// HKDF-Extract alone (RFC 5869 §2.2, SP 800-56C Rev. 2 §5.1's extraction step): the
    /// HashLen-byte pseudorandom key from `secret` and `salt`. Same rows, policy and indicator
    /// as [`Module::hkdf`]; OpenSSL's HKDF `EXTRACT_ONLY` mode and TLS 1.3's key schedule.
    pub fn hkdf_extract(
        &self,
        algorithm: Algorithm,
        secret: &[u8],
        salt: &[u8],
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let usage = Usage {
            secret_bytes: len_u32(secret.len()),
            salt_bytes: len_u32(salt.len()),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let hkdf = Hkdf::new(algorithm)?;
        let mut prk = Zeroizing::new(vec![0u8; hkdf.hash_len()]);
        hkdf.extract(secret, salt, &mut prk)?;
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, prk))
    }

    /// HKDF-Expand alone (RFC 5869 §2.3, SP 800-56C Rev. 2 §5.1's expansion step): `len` bytes
    /// from the pseudorandom key `prk` and `info`. Same rows, policy and indicator as
    /// [`Module::hkdf`]; OpenSSL's HKDF `EXPAND_ONLY` mode and TLS 1.3's HKDF-Expand-Label.
    pub fn hkdf_expand(
        &self,
        algorithm: Algorithm,
        prk: &[u8],
        info: &[u8],
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let usage = Usage {
            secret_bytes: len_u32(prk.len()),
            info_bytes: len_u32(info.len()),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let hkdf = Hkdf::new(algorithm)?;
        if prk.is_empty() {
            return Err(Error::invalid_input(format!(
                "{algorithm} expansion needs a non-empty pseudorandom key"
            )));
        }
        let max = hkdf.max_output_len();
        if len == 0 || len > max {
            return Err(Error::invalid_input(format!(
                "{algorithm} output length must be 1..={max} bytes, got {len}"
            )));
        }
        let mut output = Zeroizing::new(vec![0u8; len]);
        hkdf.expand(prk, info, &mut output)?;
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }

    /// The TLS 1.2 PRF (RFC 5246 §5, SP 800-135 Rev. 1 §4.2.2): `len` bytes of
    /// P_hash(`secret`, `seed`), where `seed` is TLS's label ‖ seed given whole, as OpenSSL's
    /// TLS1-PRF takes it (`tls12-prf-sha256`, `tls12-prf-sha384`).
    pub fn tls12_prf(
        &self,
        algorithm: Algorithm,
        secret: &[u8],
        seed: &[u8],
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let usage = Usage {
            secret_bytes: len_u32(secret.len()),
            tls12_plain_master_secret: seed.starts_with(b"master secret"),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let prf = Tls12Prf::new(algorithm)?;
        if seed.is_empty() {
            return Err(Error::invalid_input("the TLS 1.2 PRF needs a seed"));
        }
        if len == 0 || len > (1 << 30) {
            return Err(Error::invalid_input(format!(
                "{algorithm} output length must be 1..=1073741824 bytes, got {len}"
            )));
        }
        let mut output = Zeroizing::new(vec![0u8; len]);
        prf.derive(secret, seed, &mut output)?;
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }

    /// PBKDF2: `len` bytes from `password` and `salt` with `iterations` rounds.
    pub fn pbkdf2(
        &self,
        algorithm: Algorithm,
        password: &[u8],
        salt: &[u8],
        iterations: u32,
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let usage = Usage {
            secret_bytes: len_u32(password.len()),
            salt_bytes: len_u32(salt.len()),
            iterations: Some(iterations),
            output_bytes: len_u32(len),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let pbkdf2 = Pbkdf2::new(algorithm)?;
        let iterations = NonZeroU32::new(iterations)
            .ok_or_else(|| Error::invalid_input("PBKDF2 needs at least one iteration"))?;
        if len == 0 {
            return Err(Error::invalid_input(
                "PBKDF2 output length must be at least 1 byte",
            ));
        }
        let mut output = Zeroizing::new(vec![0u8; len]);
        pbkdf2.derive(iterations, salt, password, &mut output);
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }

    /// PBKDF2 (SP 800-132, RFC 8018 §5.2) with HMAC-SM3 as its PRF: `len` bytes from
    /// `password` and `salt` with `iterations` rounds. The registry has no PBKDF2-HMAC-SM3 row:
    /// the construction runs over regula-sm's HMAC-SM3 once the policy authorizes `hmac-sm3`,
    /// and counts as one `hmac-sm3` key derivation.
    pub fn pbkdf2_hmac_sm3(
        &self,
        password: &[u8],
        salt: &[u8],
        iterations: u32,
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let algorithm = Algorithm::HmacSm3;
        let approval = self.authorize(algorithm, Family::Mac, &Usage::default())?;
        if iterations == 0 {
            return Err(Error::invalid_input("PBKDF2 needs at least one iteration"));
        }
        let output = backend::pbkdf2_hmac_sm3(password, salt, iterations, len)?;
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }

    /// The Linux fscrypt v2 key hierarchy's derivation (fs/crypto/hkdf.c): HKDF-SHA512 with the
    /// kernel's empty salt and `info = "fscrypt\0" ‖ context ‖ extra`, `len` bytes (1 to 255·64)
    /// from the master key, as `fscrypt-hkdf-sha512`: approved under `default` and
    /// `fips-140-3`, served flagged under `gm`, where the kernel's HKDF-SHA512 is not a GM/T
    /// algorithm but SM4 fscrypt policies cannot do without it. The `fscrypt\0` prefix is built
    /// here, so this serves the kernel's hierarchy only; other HKDF-SHA512 derivations go
    /// through [`Module::hkdf`] with `hkdf-sha512`.
    pub fn fscrypt_hkdf_sha512(
        &self,
        master_key: &[u8],
        context: u8,
        extra: &[u8],
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let algorithm = Algorithm::FscryptHkdfSha512;
        let usage = Usage {
            secret_bytes: len_u32(master_key.len()),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let max = 255 * 64;
        if len == 0 || len > max {
            return Err(Error::invalid_input(format!(
                "{algorithm} output length must be 1..={max} bytes, got {len}"
            )));
        }
        let mut info = Vec::with_capacity(FSCRYPT_INFO_PREFIX.len() + 1 + extra.len());
        info.extend_from_slice(FSCRYPT_INFO_PREFIX);
        info.push(context);
        info.extend_from_slice(extra);
        let mut output = Zeroizing::new(vec![0u8; len]);
        // The same AWS-LC HKDF-SHA512 that serves `hkdf-sha512`, with the kernel's salt and info.
        Hkdf::new(Algorithm::HkdfSha512)?.derive(
            master_key,
            &FSCRYPT_DEFAULT_SALT,
            &info,
            &mut output,
        )?;
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }

    /// SP 800-108r1 KBKDF in counter mode with an HMAC PRF: `len` bytes from `key` and the
    /// fixed input `fixed_input`, the 32-bit big-endian counter (starting at 1) placed before
    /// it, as AWS-LC's `KBKDF_ctr_hmac` and SMB3 do.
    pub fn kbkdf(
        &self,
        algorithm: Algorithm,
        key: &[u8],
        fixed_input: &[u8],
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let usage = Usage {
            secret_bytes: len_u32(key.len()),
            ..Usage::default()
        };
        let approval = self.authorize(algorithm, Family::Kdf, &usage)?;
        let kbkdf = Kbkdf::new(algorithm)?;
        if key.is_empty() {
            return Err(Error::invalid_input("KBKDF needs a non-empty key"));
        }
        // SP 800-108r1 §4.1: n = ⌈L/h⌉ must fit the 32-bit counter; AWS-LC caps output at
        // 2^32 − 1 blocks as well. Anything near that is a mistake, so the bound is generous.
        if len == 0 || len > (1 << 30) {
            return Err(Error::invalid_input(format!(
                "{algorithm} output length must be 1..=1073741824 bytes, got {len}"
            )));
        }
        let mut output = Zeroizing::new(vec![0u8; len]);
        kbkdf.derive(key, fixed_input, &mut output)?;
        Ok(self.serve(algorithm, Service::KeyDerivation, approval, output))
    }

    /// [`Module::kbkdf`] with SP 800-108r1 §4's fixed input `Label ‖ 0x00 ‖ Context ‖ [L]₃₂`
    /// (L in bits, 32-bit big-endian) — the encoding SMB 3.x uses for its signing, encryption
    /// and application keys.
    pub fn kbkdf_label_context(
        &self,
        algorithm: Algorithm,
        key: &[u8],
        label: &[u8],
        context: &[u8],
        len: usize,
    ) -> Result<Served<Zeroizing<Vec<u8>>>> {
        let bits = len
            .checked_mul(8)
            .and_then(|bits| u32::try_from(bits).ok())
            .ok_or_else(|| {
                Error::invalid_input(format!("{algorithm} output of {len} bytes is too long"))
            })?;
        let mut fixed_input = Vec::with_capacity(label.len() + 1 + context.len() + 4);
        fixed_input.extend_from_slice(label);
        fixed_input.push(0);
        fixed_input.extend_from_slice(context);
        fixed_input.extend_from_slice(&bits.to_be_bytes());
        self.kbkdf(algorithm, key, &fixed_input, len)
    }
}
