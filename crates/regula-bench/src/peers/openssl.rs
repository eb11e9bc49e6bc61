//! `openssl speed` as a peer: one process per measurement, machine-readable output (`-mr`).
//!
//! What it measures: `speed -evp` re-initialises the cipher context (and for GCM the key
//! schedule) for every message, which understates OpenSSL at small sizes; the in-process
//! `libcrypto` peer sets the key once. For CCM it keeps the key and OpenSSL's default nonce
//! length, announces the length and encrypts per message without fetching the tag; for XTS each
//! buffer is one data unit. It divides by the process's user CPU time, not wall time, so a busy
//! machine slows Regula's figures more than its own. OpenSSL 3.0's `speed` has no GMAC, KBKDF,
//! key wrap or ML-DSA. Public-key figures come from `openssl speed ALG`, which
//! measures raw sign/verify/derive without key generation. `-seconds` is whole seconds.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use regula::Algorithm;

use crate::workload::Operation;
use crate::{Impl, PeerSource};

/// The OpenSSL command-line tool found on PATH, or Tongsuo's (an OpenSSL 3 fork with the SM
/// algorithms) from the build `scripts/tongsuo` caches.
pub struct OpensslCli {
    pub version: String,
    program: PathBuf,
    /// Tongsuo: AEADs run in `speed -aead`'s TLS-like sequence, and SM4-GCM is measured.
    tongsuo: bool,
}

/// Environment variable naming the Tongsuo binary, overriding the cached build.
pub const TONGSUO_ENV: &str = "REGULA_TONGSUO";

impl OpensslCli {
    /// What the report says of this peer: the program run (found on PATH) and its version.
    pub fn source(&self, implementation: Impl) -> PeerSource {
        let path = if self.program.components().count() > 1 {
            Some(self.program.clone())
        } else {
            std::env::var_os("PATH").and_then(|path| {
                std::env::split_paths(&path)
                    .map(|dir| dir.join(&self.program))
                    .find(|candidate| candidate.is_file())
            })
        };
        PeerSource {
            implementation,
            kind: "program",
            path: path
                .unwrap_or_else(|| self.program.clone())
                .display()
                .to_string(),
            version: self.version.clone(),
        }
    }

    /// Finds `openssl`, or explains how to install it.
    pub fn locate() -> Result<OpensslCli, String> {
        let output = Command::new("openssl").arg("version").output().map_err(|_| {
            "`openssl` not found: install the OpenSSL command-line tool (Debian: apt-get install openssl)".to_string()
        })?;
        Ok(OpensslCli {
            version: String::from_utf8_lossy(&output.stdout).trim().to_string(),
            program: PathBuf::from("openssl"),
            tongsuo: false,
        })
    }

    /// Finds Tongsuo's command-line tool: `$REGULA_TONGSUO`, else the newest
    /// `~/.cache/regula/tongsuo-*/bin/tongsuo` that `scripts/tongsuo` built.
    pub fn locate_tongsuo() -> Result<OpensslCli, String> {
        let program = match std::env::var_os(TONGSUO_ENV) {
            Some(path) => PathBuf::from(path),
            None => {
                let cache = std::env::var_os("HOME")
                    .map(|home| PathBuf::from(home).join(".cache/regula"))
                    .ok_or("HOME is not set")?;
                let mut builds: Vec<PathBuf> = std::fs::read_dir(&cache)
                    .map(|entries| {
                        entries
                            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                            .filter(|path| {
                                path.file_name()
                                    .and_then(|name| name.to_str())
                                    .is_some_and(|name| name.starts_with("tongsuo-"))
                            })
                            .map(|path| path.join("bin/tongsuo"))
                            .filter(|path| path.is_file())
                            .collect()
                    })
                    .unwrap_or_default();
                builds.sort();
                builds.pop().ok_or_else(|| {
                    format!(
                        "no Tongsuo build in {}/tongsuo-*/bin (run scripts/tongsuo, or set {TONGSUO_ENV})",
                        cache.display()
                    )
                })?
            }
        };
        let output = Command::new(&program)
            .arg("version")
            .output()
            .map_err(|error| format!("cannot run {}: {error}", program.display()))?;
        if !output.status.success() {
            return Err(format!("`{} version` failed", program.display()));
        }
        let version = String::from_utf8_lossy(&output.stdout);
        Ok(OpensslCli {
            version: version.lines().next().unwrap_or("").trim().to_string(),
            program,
            tongsuo: true,
        })
    }

    /// MB/s for one buffer size, or `None` when `openssl speed` has no such algorithm.
    pub fn symmetric(
        &self,
        algorithm: Algorithm,
        size: usize,
        duration: Duration,
    ) -> Result<Option<f64>, String> {
        let selector = if self.tongsuo {
            tongsuo_selector(algorithm)
        } else {
            symmetric_selector(algorithm)
        };
        let Some(selector) = selector else {
            return Ok(None);
        };
        let mut args = selector;
        args.extend(["-bytes".to_string(), size.to_string()]);
        let output = self.speed(&args, duration)?;
        parse_symmetric(&output)
            .map(|bytes_per_second| Some(bytes_per_second / 1e6))
            .ok_or_else(|| format!("could not parse `openssl speed {}` output", args.join(" ")))
    }

    /// Operations per second, or `None` when `openssl speed` does not measure this operation.
    pub fn public_key(
        &self,
        algorithm: Algorithm,
        operation: Operation,
        duration: Duration,
    ) -> Result<Option<f64>, String> {
        let Some(name) = public_key_name(algorithm) else {
            return Ok(None);
        };
        if !matches!(
            operation,
            Operation::Sign | Operation::Verify | Operation::Derive
        ) {
            return Ok(None);
        }
        let output = self.speed(&[name.to_string()], duration)?;
        Ok(parse_public_key(&output, operation))
    }

    fn speed(&self, args: &[String], duration: Duration) -> Result<String, String> {
        let seconds = duration.as_secs_f64().ceil().max(1.0) as u64;
        let output = Command::new(&self.program)
            .arg("speed")
            .args(["-seconds", &seconds.to_string(), "-mr"])
            .args(args)
            .output()
            .map_err(|error| format!("cannot run {} speed: {error}", self.program.display()))?;
        if !output.status.success() {
            return Err(format!(
                "`{} speed {}` failed: {}",
                self.program.display(),
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// The `openssl speed` arguments that measure the same algorithm.
pub fn symmetric_selector(algorithm: Algorithm) -> Option<Vec<String>> {
    let evp = |name: &str| Some(vec!["-evp".to_string(), name.to_string()]);
    match algorithm {
        Algorithm::Aes128Gcm
        | Algorithm::Aes256Gcm
        | Algorithm::ChaCha20Poly1305
        | Algorithm::Aes128Ctr
        | Algorithm::Aes256Ctr
        | Algorithm::Aes128Cbc
        | Algorithm::Aes256Cbc
        | Algorithm::Sha1
        | Algorithm::Sha224
        | Algorithm::Sha256
        | Algorithm::Sha384
        | Algorithm::Sha512
        | Algorithm::Sha3_256
        | Algorithm::Sha3_384
        | Algorithm::Sha3_512
        | Algorithm::Sm3
        | Algorithm::Sm4Ecb
        | Algorithm::Sm4Cbc
        | Algorithm::Sm4Ctr
        | Algorithm::Aes128Ccm
        | Algorithm::Aes256Ccm
        | Algorithm::Aes256Xts
        | Algorithm::Aes128Cfb8
        | Algorithm::Aes256Cfb8
        | Algorithm::Md5
        | Algorithm::DesEde3Cbc => evp(algorithm.name()),
        // OpenSSL 3 keeps these in its legacy provider.
        Algorithm::Md4 | Algorithm::Rc4 | Algorithm::DesCbc => Some(
            ["-provider", "legacy", "-provider", "default", "-evp"]
                .into_iter()
                .map(String::from)
                .chain([algorithm.name().to_string()])
                .collect(),
        ),
        Algorithm::HmacMd5 => Some(vec!["-hmac".into(), "md5".into()]),
        Algorithm::HmacSha1 => Some(vec!["-hmac".into(), "sha1".into()]),
        Algorithm::HmacSm3 => Some(vec!["-hmac".into(), "sm3".into()]),
        Algorithm::HmacSha224 => Some(vec!["-hmac".into(), "sha224".into()]),
        Algorithm::HmacSha256 => Some(vec!["-hmac".into(), "sha256".into()]),
        Algorithm::HmacSha384 => Some(vec!["-hmac".into(), "sha384".into()]),
        Algorithm::HmacSha512 => Some(vec!["-hmac".into(), "sha512".into()]),
        Algorithm::Aes128Cmac => Some(vec!["-cmac".into(), "aes-128-cbc".into()]),
        Algorithm::Aes256Cmac => Some(vec!["-cmac".into(), "aes-256-cbc".into()]),
        _ => None,
    }
}

/// Tongsuo's `speed` arguments: AEADs in its `-aead` sequence (a fresh IV, the AAD, the
/// message and the tag per call, as a TLS record takes), SM4-GCM and SM4-CCM included; the rest
/// as for OpenSSL.
pub fn tongsuo_selector(algorithm: Algorithm) -> Option<Vec<String>> {
    let aead = |name: &str| Some(vec!["-aead".into(), "-evp".into(), name.to_string()]);
    match algorithm {
        Algorithm::Sm4Gcm
        | Algorithm::Sm4Ccm
        | Algorithm::Aes128Gcm
        | Algorithm::Aes256Gcm
        | Algorithm::ChaCha20Poly1305 => aead(algorithm.name()),
        _ => symmetric_selector(algorithm),
    }
}

/// `openssl speed` algorithm names for public-key operations. RSA is measured at 2048 bits, as
/// in Regula's benchmark; OpenSSL's RSA sign is PKCS#1 v1.5 for PSS rows too.
pub fn public_key_name(algorithm: Algorithm) -> Option<&'static str> {
    match algorithm {
        Algorithm::EcdsaP256 => Some("ecdsap256"),
        Algorithm::EcdsaP384 => Some("ecdsap384"),
        Algorithm::EcdsaP521 => Some("ecdsap521"),
        Algorithm::Ed25519 => Some("ed25519"),
        Algorithm::RsaPssSha256
        | Algorithm::RsaPssSha384
        | Algorithm::RsaPssSha512
        | Algorithm::RsaPkcs1Sha256
        | Algorithm::RsaPkcs1Sha384
        | Algorithm::RsaPkcs1Sha512 => Some("rsa2048"),
        Algorithm::EcdhP256 => Some("ecdhp256"),
        Algorithm::EcdhP384 => Some("ecdhp384"),
        Algorithm::EcdhP521 => Some("ecdhp521"),
        Algorithm::X25519 => Some("ecdhx25519"),
        // OpenSSL 3.0's SM2 signature with SM3 and the default ID (`+F7` lines).
        Algorithm::Sm2Sign => Some("sm2"),
        _ => None,
    }
}

/// The `+F` result lines of `-mr` output, split on `:`.
fn result_lines(output: &str) -> impl Iterator<Item = Vec<&str>> {
    output
        .lines()
        .filter(|line| line.starts_with("+F"))
        .map(|line| line.split(':').collect())
}

/// Bytes per second from `+F:<index>:<name>:<rate>` (one rate per `-bytes` size; one size here).
pub fn parse_symmetric(output: &str) -> Option<f64> {
    result_lines(output)
        .find(|fields| fields[0] == "+F")
        .and_then(|fields| fields.last()?.parse().ok())
}

/// Operations per second from the public-key result lines:
/// `+F2`/`+F4` (RSA, ECDSA): index, bits, sign/s, verify/s; `+F5` (ECDH): index, bits, ops/s,
/// seconds/op; `+F6` (EdDSA) and `+F7` (SM2): index, bits, name, sign/s, verify/s.
pub fn parse_public_key(output: &str, operation: Operation) -> Option<f64> {
    let fields = result_lines(output).next()?;
    let number = |index: usize| fields.get(index)?.parse::<f64>().ok();
    match (fields[0], operation) {
        ("+F2" | "+F4", Operation::Sign) => number(3),
        ("+F2" | "+F4", Operation::Verify) => number(4),
        ("+F5", Operation::Derive) => number(3),
        ("+F6" | "+F7", Operation::Sign) => number(4),
        ("+F6" | "+F7", Operation::Verify) => number(5),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Recorded on the development machine with OpenSSL 3.0.19 (see tests/data/).
    const GCM: &str = include_str!("../../tests/data/openssl-speed-evp-aes-256-gcm-8192.txt");
    const HMAC: &str = include_str!("../../tests/data/openssl-speed-hmac-sha256-16.txt");
    const CMAC: &str = include_str!("../../tests/data/openssl-speed-cmac.txt");

    #[test]
    fn tongsuo_runs_aeads_in_its_aead_sequence() {
        let args = |list: &[&str]| Some(list.iter().map(|arg| arg.to_string()).collect());
        assert_eq!(
            tongsuo_selector(Algorithm::Sm4Gcm),
            args(&["-aead", "-evp", "sm4-gcm"])
        );
        assert_eq!(
            tongsuo_selector(Algorithm::Aes256Gcm),
            args(&["-aead", "-evp", "aes-256-gcm"])
        );
        assert_eq!(symmetric_selector(Algorithm::Sm4Gcm), None);
        assert_eq!(
            tongsuo_selector(Algorithm::Sm4Ctr),
            symmetric_selector(Algorithm::Sm4Ctr)
        );
        assert_eq!(
            tongsuo_selector(Algorithm::Sm4Ctr),
            args(&["-evp", "sm4-ctr"])
        );
    }

    #[test]
    fn parses_symmetric_rates() {
        assert_eq!(parse_symmetric(GCM), Some(3814864213.33));
        assert_eq!(parse_symmetric(HMAC), Some(73484900.00));
        assert_eq!(parse_symmetric(CMAC), Some(156373846.91));
        assert_eq!(
            parse_symmetric("+DT:AES-256-GCM:1:16\n+R:1:AES-256-GCM:1.0\n"),
            None
        );
        assert_eq!(parse_symmetric("+F:25:AES-256-GCM:not-a-number\n"), None);
    }

    #[test]
    fn parses_the_recorded_ccm_legacy_and_hmac_sha1_runs() {
        // `openssl speed -seconds 1 -mr -evp aes-128-ccm -bytes 65536`, `… -provider legacy
        // -provider default -evp md4 -bytes 1024` and `… -hmac sha1 -bytes 64`, recorded on the
        // development machine with OpenSSL 3.0.19.
        let ccm = include_str!("../../tests/data/openssl-speed-evp-aes-128-ccm-65536.txt");
        let md4 = include_str!("../../tests/data/openssl-speed-legacy-md4-1024.txt");
        let hmac_sha1 = include_str!("../../tests/data/openssl-speed-hmac-sha1-64.txt");
        assert_eq!(parse_symmetric(ccm), Some(1406631415.87));
        assert_eq!(parse_symmetric(md4), Some(1089960228.57));
        assert_eq!(parse_symmetric(hmac_sha1), Some(279932377.36));
    }

    #[test]
    fn parses_each_public_key_line_shape() {
        let rsa = "+DTP:2048:private:rsa:1\n+F2:2:2048:4246.153846:69440.579710\n";
        assert_eq!(parse_public_key(rsa, Operation::Sign), Some(4246.153846));
        assert_eq!(parse_public_key(rsa, Operation::Verify), Some(69440.579710));
        let ecdsa = "+F4:3:256:51736.923077:20058.333333\n";
        assert_eq!(
            parse_public_key(ecdsa, Operation::Verify),
            Some(20058.333333)
        );
        let ecdh = "+F5:22:253:31851.470588:0.000031\n";
        assert_eq!(
            parse_public_key(ecdh, Operation::Derive),
            Some(31851.470588)
        );
        assert_eq!(parse_public_key(ecdh, Operation::Sign), None);
        let eddsa = "+F6:0:253:Ed25519:35392.207792:14317.808219\n";
        assert_eq!(parse_public_key(eddsa, Operation::Sign), Some(35392.207792));
        // `openssl speed -mr sm2` (OpenSSL 3.0.19).
        let sm2 = "+DTP:256:sign:CurveSM2:1\n+F7:0:256:CurveSM2:2456.701031:2674.747475\n";
        assert_eq!(parse_public_key(sm2, Operation::Sign), Some(2456.701031));
        assert_eq!(parse_public_key(sm2, Operation::Verify), Some(2674.747475));
        assert_eq!(
            parse_public_key(eddsa, Operation::Verify),
            Some(14317.808219)
        );
    }

    #[test]
    fn parses_the_recorded_multi_algorithm_run() {
        let recorded = include_str!("../../tests/data/openssl-speed-pk.txt");
        // The first result line is RSA-2048 (`speed ecdsap256 rsa2048 …` prints RSA first).
        assert_eq!(
            parse_public_key(recorded, Operation::Sign),
            Some(4246.153846)
        );
    }

    #[test]
    fn selectors_cover_what_openssl_speed_offers() {
        assert_eq!(
            symmetric_selector(Algorithm::Aes256Gcm),
            Some(vec!["-evp".into(), "aes-256-gcm".into()])
        );
        assert_eq!(
            symmetric_selector(Algorithm::HmacSha256),
            Some(vec!["-hmac".into(), "sha256".into()])
        );
        assert_eq!(symmetric_selector(Algorithm::CtrDrbg), None);
        assert_eq!(
            symmetric_selector(Algorithm::Aes128Ccm),
            Some(vec!["-evp".into(), "aes-128-ccm".into()])
        );
        assert_eq!(
            symmetric_selector(Algorithm::Md4),
            Some(
                ["-provider", "legacy", "-provider", "default", "-evp", "md4"]
                    .map(String::from)
                    .to_vec()
            )
        );
        assert_eq!(symmetric_selector(Algorithm::Aes128Gmac), None);
        assert_eq!(public_key_name(Algorithm::MlDsa65), None);
        assert_eq!(public_key_name(Algorithm::MlKem768), None);
    }
}
