//! The ACVP module-wrapper protocol that BoringSSL's and AWS-LC's `acvptool` drives
//! (`util/fipstools/acvp/acvptool/subprocess`), answered through the module's services under
//! its policy.
//!
//! Every message, both ways, is a little-endian `u32` count of fields, then that many `u32`
//! lengths, then the fields' bytes. A request's first field is the command (`getConfig`,
//! `SHA2-256`, `AES-CBC/encrypt`, …), the rest its arguments; a reply holds only results.
//! `getConfig` answers the JSON capabilities array: only algorithms and parameters that the
//! loaded policy approves and this wrapper answers. It also claims acvptool's `batch` feature:
//! replies are buffered and written out on `flush` (and whenever no request is waiting).
//!
//! Covered: SHA-1/SHA-2/SHA-3 (with the Monte Carlo step), HMAC, AES-CBC (with its Monte
//! Carlo loop), AES-CTR, AES-GCM decryption, CMAC-AES, PBKDF, KDA HKDF, the TLS 1.2 PRF and
//! the TLS 1.3 HKDF steps, ECDSA sigVer and keyVer, RSA and Ed25519 sigVer, ML-KEM
//! decapsulation.
//!
//! acvptool sends one command per primitive and does the rest itself (a Monte Carlo test's key
//! and IV updates, the TLS 1.3 key schedule's order, comparing a KDA validation value). An
//! unknown command, a malformed message, an argument of the wrong size or a request the policy
//! refuses ends the session with a [`WrapperError`]: acvptool then stops and names the vector
//! set, rather than recording an answer the module did not give.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use regula::{Algorithm, Direction, Module};
use serde_json::{Value, json};

use super::hash::{regula_name as digest_name, sha2_monte, sha3_monte};

/// At most this many fields in one message (the widest request, `ECDSA/sigVer`, has eight).
const MAX_FIELDS: u32 = 32;
/// At most this many bytes in one message's fields (acvptool's own bound on a reply).
const MAX_MESSAGE_BYTES: u64 = 1 << 30;

/// Why a wrapper session ended early: a malformed message, an unknown command, bad arguments,
/// a module or policy refusal, or an I/O error on stdin/stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrapperError {
    message: String,
}

impl WrapperError {
    fn new(message: impl Into<String>) -> WrapperError {
        WrapperError {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for WrapperError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WrapperError {}

type Result<T> = std::result::Result<T, WrapperError>;

fn io_error(what: &str, error: std::io::Error) -> WrapperError {
    WrapperError::new(format!("{what}: {error}"))
}

/// Serves requests from `input` until it ends, writing replies to `output`. Returns the number
/// of commands answered. End of input between messages is the normal end of a session; end of
/// input inside a message is an error.
pub fn serve(module: &Module, input: impl Read, output: impl Write) -> Result<u64> {
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut writer = BufWriter::with_capacity(1 << 16, output);
    let wrapper = Wrapper { module };
    let mut answered = 0u64;
    loop {
        // Nothing more is buffered: acvptool may be waiting for what we have answered so far.
        if reader.buffer().is_empty() {
            writer
                .flush()
                .map_err(|error| io_error("writing a reply", error))?;
        }
        let Some(fields) = read_message(&mut reader)? else {
            break;
        };
        let (command, args) = fields
            .split_first()
            .ok_or_else(|| WrapperError::new("a request has no command"))?;
        let command = std::str::from_utf8(command)
            .map_err(|_| WrapperError::new("a request's command is not UTF-8 text"))?;
        match wrapper.answer(command, args) {
            Ok(Some(reply)) => write_message(&mut writer, &reply)?,
            Ok(None) => writer
                .flush()
                .map_err(|error| io_error("writing a reply", error))?,
            Err(error) => {
                // What was answered before still reaches acvptool.
                let _ = writer.flush();
                return Err(WrapperError::new(format!("`{command}`: {error}")));
            }
        }
        answered += 1;
    }
    writer
        .flush()
        .map_err(|error| io_error("writing a reply", error))?;
    Ok(answered)
}

/// Reads `n` bytes, or says the message was cut short.
fn read_exact(reader: &mut impl Read, buf: &mut [u8]) -> Result<()> {
    reader.read_exact(buf).map_err(|error| {
        if error.kind() == std::io::ErrorKind::UnexpectedEof {
            WrapperError::new("malformed message: input ends inside a message")
        } else {
            io_error("reading a request", error)
        }
    })
}

/// One message, or `None` at the end of input before its first byte.
fn read_message(reader: &mut impl BufRead) -> Result<Option<Vec<Vec<u8>>>> {
    let available = reader
        .fill_buf()
        .map_err(|error| io_error("reading a request", error))?;
    if available.is_empty() {
        return Ok(None);
    }
    let mut word = [0u8; 4];
    read_exact(reader, &mut word)?;
    let count = u32::from_le_bytes(word);
    if count == 0 {
        return Err(WrapperError::new(
            "malformed message: a count of 0 fields (a request needs its command)",
        ));
    }
    if count > MAX_FIELDS {
        return Err(WrapperError::new(format!(
            "malformed message: {count} fields (at most {MAX_FIELDS})"
        )));
    }
    let mut lengths = Vec::with_capacity(count as usize);
    let mut total = 0u64;
    for _ in 0..count {
        read_exact(reader, &mut word)?;
        let length = u32::from_le_bytes(word);
        total += u64::from(length);
        lengths.push(length as usize);
    }
    if total > MAX_MESSAGE_BYTES {
        return Err(WrapperError::new(format!(
            "malformed message: {total} bytes of fields (at most {MAX_MESSAGE_BYTES})"
        )));
    }
    let mut fields = Vec::with_capacity(lengths.len());
    for length in lengths {
        // Grown as the bytes arrive: a length announced but never sent allocates nothing.
        let mut field = Vec::new();
        reader
            .by_ref()
            .take(length as u64)
            .read_to_end(&mut field)
            .map_err(|error| io_error("reading a request", error))?;
        if field.len() != length {
            return Err(WrapperError::new(
                "malformed message: input ends inside a message",
            ));
        }
        fields.push(field);
    }
    Ok(Some(fields))
}

fn write_message(writer: &mut impl Write, fields: &[Vec<u8>]) -> Result<()> {
    let count = u32::try_from(fields.len()).map_err(|_| WrapperError::new("too many results"))?;
    let mut head = Vec::with_capacity(4 * (fields.len() + 1));
    head.extend_from_slice(&count.to_le_bytes());
    for field in fields {
        let length =
            u32::try_from(field.len()).map_err(|_| WrapperError::new("a result over 4 GiB"))?;
        head.extend_from_slice(&length.to_le_bytes());
    }
    let io = |error| io_error("writing a reply", error);
    writer.write_all(&head).map_err(io)?;
    for field in fields {
        writer.write_all(field).map_err(io)?;
    }
    Ok(())
}

/// ACVP's hash names this wrapper knows, with their output lengths.
const HASHES: [(&str, usize); 9] = [
    ("SHA-1", 20),
    ("SHA2-224", 28),
    ("SHA2-256", 32),
    ("SHA2-384", 48),
    ("SHA2-512", 64),
    ("SHA2-512/256", 32),
    ("SHA3-256", 32),
    ("SHA3-384", 48),
    ("SHA3-512", 64),
];

/// ACVP's HMAC names → Regula's.
const HMACS: [(&str, &str); 5] = [
    ("HMAC-SHA-1", "hmac-sha1"),
    ("HMAC-SHA2-224", "hmac-sha224"),
    ("HMAC-SHA2-256", "hmac-sha256"),
    ("HMAC-SHA2-384", "hmac-sha384"),
    ("HMAC-SHA2-512", "hmac-sha512"),
];

/// The hashes the KDFs (HKDF, PBKDF2, the TLS PRFs) come with here.
const KDF_HASHES: [(&str, &str); 3] = [
    ("SHA2-256", "sha256"),
    ("SHA2-384", "sha384"),
    ("SHA2-512", "sha512"),
];

/// ECDSA sigVer: ACVP's curve and hash → Regula's algorithm.
const ECDSA_PAIRS: [(&str, &str, &str); 3] = [
    ("P-256", "SHA2-256", "ecdsa-p256"),
    ("P-384", "SHA2-384", "ecdsa-p384"),
    ("P-521", "SHA2-512", "ecdsa-p521"),
];

/// RSA signature hashes: ACVP's name, Regula's suffix, the PSS salt length.
const RSA_HASHES: [(&str, &str, usize); 3] = [
    ("SHA2-256", "256", 32),
    ("SHA2-384", "384", 48),
    ("SHA2-512", "512", 64),
];

/// The RSA moduli ACVP's FIPS 186-5 sigVer sets name (the policy's key limits filter them).
const RSA_MODULI: [u32; 3] = [2048, 3072, 4096];

/// `04 ‖ x ‖ y`, each coordinate left-padded with zeros to the curve's field length (ACVP may
/// drop leading zero bytes).
fn uncompressed_point(name: &str, x: &[u8], y: &[u8]) -> Vec<u8> {
    let len: usize = match name {
        "ecdsa-p256" => 32,
        "ecdsa-p384" => 48,
        _ => 66,
    };
    let mut point = vec![0x04];
    for coordinate in [x, y] {
        point.resize(point.len() + len.saturating_sub(coordinate.len()), 0);
        point.extend_from_slice(coordinate);
    }
    point
}

/// ML-KEM parameter sets → Regula's.
const ML_KEMS: [(&str, &str); 3] = [
    ("ML-KEM-512", "ml-kem-512"),
    ("ML-KEM-768", "ml-kem-768"),
    ("ML-KEM-1024", "ml-kem-1024"),
];

/// A range as ACVP's capability schema writes one.
fn range(min: u64, max: u64, increment: u64) -> Value {
    json!([{ "min": min, "max": max, "increment": increment }])
}

struct Wrapper<'m> {
    module: &'m Module,
}

impl Wrapper<'_> {
    /// The module's algorithm for a Regula name, if the loaded policy approves it.
    fn approved(&self, name: &str) -> Option<Algorithm> {
        Algorithm::from_name(name).filter(|&algorithm| self.module.policy().approves(algorithm))
    }

    /// The policy's limits on an algorithm (key sizes, least secret, salt, iterations).
    fn limits(&self, algorithm: Algorithm) -> regula::policy::Limits {
        self.module.policy().rule(algorithm).limits
    }

    /// Like [`Wrapper::approved`], as an error for a command.
    fn require(&self, name: &str) -> Result<Algorithm> {
        self.approved(name).ok_or_else(|| {
            WrapperError::new(format!(
                "{name} is not approved by policy {} (getConfig does not claim it)",
                self.module.policy().name()
            ))
        })
    }

    /// AES key lengths (bits) approved for a mode, `aes-128-MODE` / `aes-256-MODE`.
    fn aes_key_bits(&self, mode: &str) -> Vec<u64> {
        [128u64, 256]
            .into_iter()
            .filter(|bits| self.approved(&format!("aes-{bits}-{mode}")).is_some())
            .collect()
    }

    fn aes_algorithm(&self, mode: &str, key: &[u8]) -> Result<Algorithm> {
        match key.len() {
            16 | 32 => self.require(&format!("aes-{}-{mode}", key.len() * 8)),
            other => Err(WrapperError::new(format!(
                "a {other}-byte AES key (this module takes 16 or 32 bytes)"
            ))),
        }
    }

    fn kdf_algorithm(&self, prefix: &str, acvp_hash: &str) -> Result<Algorithm> {
        let (_, hash) = KDF_HASHES
            .iter()
            .find(|(acvp, _)| *acvp == acvp_hash)
            .ok_or_else(|| {
                WrapperError::new(format!("no {prefix} with {acvp_hash} in this module"))
            })?;
        self.require(&format!("{prefix}-{hash}"))
    }

    /// The KDF hashes approved with `prefix`, by ACVP's names.
    fn kdf_hashes(&self, prefix: &str) -> Vec<&'static str> {
        KDF_HASHES
            .iter()
            .filter(|(_, hash)| self.approved(&format!("{prefix}-{hash}")).is_some())
            .map(|(acvp, _)| *acvp)
            .collect()
    }

    /// The capabilities: one entry per ACVP algorithm (and mode) whose commands this wrapper
    /// answers and the policy approves, with the approved parameters.
    fn config(&self) -> Value {
        let mut config = vec![json!({ "algorithm": "acvptool", "features": ["batch"] })];
        for (acvp, _) in HASHES {
            if digest_name(acvp)
                .and_then(|name| self.approved(name))
                .is_some()
            {
                config.push(json!({
                    "algorithm": acvp,
                    "revision": if acvp.starts_with("SHA3-") { "2.0" } else { "1.0" },
                    "messageLength": range(0, 65536, 8),
                    "performLargeDataTest": [],
                }));
            }
        }
        for (acvp, name) in HMACS {
            if let Some(algorithm) = self.approved(name) {
                let bits = self
                    .module
                    .digester(digest_of_hmac(algorithm))
                    .map(|digester| digester.output_len() as u64 * 8)
                    .unwrap_or(0);
                // The policy's least HMAC key (fips-140-3: 14 bytes, SP 800-131A's 112 bits).
                let least = self.limits(algorithm).min_secret_bytes.unwrap_or(1).max(1);
                config.push(json!({
                    "algorithm": acvp,
                    "revision": "1.0",
                    "keyLen": range(u64::from(least) * 8, 524288, 8),
                    "macLen": range(32, bits, 8),
                }));
            }
        }
        for (acvp, mode) in [("ACVP-AES-CBC", "cbc"), ("ACVP-AES-CTR", "ctr")] {
            let keys = self.aes_key_bits(mode);
            if keys.is_empty() {
                continue;
            }
            let mut entry = json!({
                "algorithm": acvp,
                "revision": "1.0",
                "direction": ["encrypt", "decrypt"],
                "keyLen": keys,
            });
            if mode == "ctr" {
                entry["payloadLen"] = range(8, 128, 8);
                entry["incrementalCounter"] = json!(true);
                entry["overflowCounter"] = json!(true);
                entry["performCounterTests"] = json!(true);
            }
            config.push(entry);
        }
        let gcm_keys = self.aes_key_bits("gcm");
        if !gcm_keys.is_empty() {
            // Decryption only, full tags: the policy approves GCM encryption only with an IV
            // the module generates (which acvptool's `ivGen: internal` does not frame here),
            // and the AEAD service binds 16-byte tags.
            config.push(json!({
                "algorithm": "ACVP-AES-GCM",
                "revision": "1.0",
                "direction": ["decrypt"],
                "keyLen": gcm_keys,
                "payloadLen": range(0, 65536, 8),
                "aadLen": range(0, 65536, 8),
                "tagLen": [128],
                "ivLen": [96],
                "ivGen": "external",
            }));
        }
        let cmac_keys = self.aes_key_bits("cmac");
        if !cmac_keys.is_empty() {
            config.push(json!({
                "algorithm": "CMAC-AES",
                "revision": "1.0",
                "capabilities": [{
                    "direction": ["gen", "ver"],
                    "msgLen": range(0, 524288, 8),
                    "keyLen": cmac_keys,
                    "macLen": range(8, 128, 8),
                }],
            }));
        }
        let pbkdf = self.kdf_hashes("pbkdf2");
        if let Some(first) = pbkdf.first() {
            // The policy's floors (fips-140-3: a 14-byte password and output, a 16-byte salt,
            // 1000 iterations), the same for every hash.
            let limits = self
                .kdf_algorithm("pbkdf2", first)
                .map(|algorithm| self.limits(algorithm))
                .unwrap_or(regula::policy::Limits::NONE);
            let at_least = |limit: Option<u32>| u64::from(limit.unwrap_or(1).max(1));
            config.push(json!({
                "algorithm": "PBKDF",
                "revision": "1.0",
                "capabilities": [{
                    "iterationCount": range(at_least(limits.min_iterations), 10000, 1),
                    "keyLen": range(at_least(limits.min_output_bytes) * 8, 4096, 8),
                    "passwordLen": range(at_least(limits.min_secret_bytes), 128, 1),
                    "saltLen": range(at_least(limits.min_salt_bytes) * 8, 4096, 8),
                    "hmacAlg": pbkdf,
                }],
            }));
        }
        let hkdf = self.kdf_hashes("hkdf");
        if !hkdf.is_empty() {
            config.push(json!({
                "algorithm": "KDA",
                "mode": "HKDF",
                "revision": "Sp800-56Cr1",
                "fixedInfoPattern": "uPartyInfo||vPartyInfo",
                "encoding": ["concatenation"],
                "hmacAlg": hkdf,
                "macSaltMethods": ["default", "random"],
                "l": 2048,
                "z": range(224, 65336, 8),
            }));
        }
        let tls12 = self.kdf_hashes("tls12-prf");
        if !tls12.is_empty() {
            config.push(json!({
                "algorithm": "TLS-v1.2",
                "mode": "KDF",
                "revision": "RFC7627",
                "hashAlg": tls12,
            }));
        }
        let tls13: Vec<&str> = hkdf
            .iter()
            .copied()
            .filter(|acvp| *acvp != "SHA2-512")
            .filter(|acvp| {
                digest_name(acvp)
                    .and_then(|name| self.approved(name))
                    .is_some()
            })
            .collect();
        if !tls13.is_empty() {
            config.push(json!({
                "algorithm": "TLS-v1.3",
                "mode": "KDF",
                "revision": "RFC8446",
                "hmacAlg": tls13,
                "runningMode": ["DHE", "PSK", "PSK-DHE"],
            }));
        }
        let ecdsa: Vec<Value> = ECDSA_PAIRS
            .iter()
            .filter(|(_, _, name)| self.approved(name).is_some())
            .map(|(curve, hash, _)| json!({ "curve": [curve], "hashAlg": [hash] }))
            .collect();
        if !ecdsa.is_empty() {
            // FIPS 186-5 sigVer, each curve with its own hash (what the verify service takes).
            config.push(json!({
                "algorithm": "ECDSA",
                "mode": "sigVer",
                "revision": "FIPS186-5",
                "capabilities": ecdsa,
            }));
        }
        let key_ver: Vec<&str> = ECDSA_PAIRS
            .iter()
            .filter(|(_, _, name)| self.approved(name).is_some())
            .map(|(curve, _, _)| *curve)
            .collect();
        if !key_ver.is_empty() {
            config.push(json!({
                "algorithm": "ECDSA",
                "mode": "keyVer",
                "revision": "FIPS186-5",
                "curve": key_ver,
            }));
        }
        // One capability per signature type and hash, with the moduli the policy's key
        // limits allow.
        let mut rsa = Vec::new();
        for (sig_type, prefix) in [("pkcs1v1.5", "rsa-pkcs1"), ("pss", "rsa-pss")] {
            for (acvp, bits, salt) in RSA_HASHES {
                let Some(algorithm) = self.approved(&format!("{prefix}-sha{bits}")) else {
                    continue;
                };
                let limits = self.limits(algorithm);
                let moduli: Vec<u32> = RSA_MODULI
                    .into_iter()
                    .filter(|bits| limits.min_key_bits.is_none_or(|min| *bits >= min))
                    .filter(|bits| limits.max_key_bits.is_none_or(|max| *bits <= max))
                    .collect();
                if moduli.is_empty() {
                    continue;
                }
                let mut capability = json!({
                    "sigType": [sig_type],
                    "hashAlg": [acvp],
                    "modulo": moduli,
                });
                if sig_type == "pss" {
                    // PSS as the verify service takes it: MGF1 with the message's hash, a
                    // salt as long as the hash.
                    capability["maskFunction"] = json!(["mgf1"]);
                    capability["saltLen"] = json!([salt]);
                }
                rsa.push(capability);
            }
        }
        if !rsa.is_empty() {
            config.push(json!({
                "algorithm": "RSA",
                "mode": "sigVer",
                "revision": "FIPS186-5",
                "capabilities": rsa,
            }));
        }
        if self.approved("ed25519").is_some() {
            config.push(json!({
                "algorithm": "EDDSA",
                "mode": "sigVer",
                "revision": "1.0",
                "curve": ["ED-25519"],
                "pure": true,
                "preHash": false,
            }));
        }
        let ml_kem: Vec<&str> = ML_KEMS
            .iter()
            .filter(|(_, name)| self.approved(name).is_some())
            .map(|(acvp, _)| *acvp)
            .collect();
        if !ml_kem.is_empty() {
            // Decapsulation from an expanded key; encapsulation with a given `m` and key
            // generation from seeds are not services of the module.
            config.push(json!({
                "algorithm": "ML-KEM",
                "mode": "encapDecap",
                "revision": "FIPS203",
                "parameterSets": ml_kem,
                "functions": ["decapsulation"],
            }));
        }
        Value::Array(config)
    }

    /// One request's reply (`None` for `flush`, which has none).
    fn answer(&self, command: &str, args: &[Vec<u8>]) -> Result<Option<Vec<Vec<u8>>>> {
        if command == "flush" {
            return Ok(None);
        }
        let reply = if command == "getConfig" {
            arity(args, 0)?;
            vec![self.config().to_string().into_bytes()]
        } else if let Some(acvp) = command.strip_suffix("/MCT") {
            self.hash_monte(acvp, args)?
        } else if HASHES.iter().any(|(acvp, _)| *acvp == command) {
            arity(args, 1)?;
            let algorithm = self.hash(command)?;
            vec![
                self.module
                    .digest(algorithm, &args[0])
                    .map_err(module)?
                    .into_value(),
            ]
        } else if let Some((_, name)) = HMACS.iter().find(|(acvp, _)| *acvp == command) {
            arity(args, 2)?;
            let algorithm = self.require(name)?;
            let tag = self
                .module
                .mac_key(algorithm, &args[1])
                .and_then(|key| key.sign(&args[0]))
                .map_err(module)?
                .into_value();
            vec![tag]
        } else {
            match command {
                "AES-CBC/encrypt" => self.aes_cbc(Direction::Encrypt, args)?,
                "AES-CBC/decrypt" => self.aes_cbc(Direction::Decrypt, args)?,
                "AES-CTR/encrypt" => self.aes_ctr(Direction::Encrypt, args)?,
                "AES-CTR/decrypt" => self.aes_ctr(Direction::Decrypt, args)?,
                "AES-GCM/open" => self.aes_gcm_open(args)?,
                "CMAC-AES" => self.cmac(args)?,
                "CMAC-AES/verify" => self.cmac_verify(args)?,
                "PBKDF" => self.pbkdf(args)?,
                "ECDSA/sigVer" => self.ecdsa_verify(args)?,
                "ECDSA/keyVer" => self.ecdsa_key_ver(args)?,
                "EDDSA/sigVer" => self.eddsa_verify(args)?,
                _ => match ML_KEMS
                    .iter()
                    .find(|(acvp, _)| command.strip_suffix("/decap") == Some(*acvp))
                {
                    Some((_, name)) => self.ml_kem_decap(name, args)?,
                    None if command.starts_with("RSA/sigVer/") => self.rsa_verify(command, args)?,
                    None => self.kdf(command, args)?,
                },
            }
        };
        Ok(Some(reply))
    }

    fn hash(&self, acvp: &str) -> Result<Algorithm> {
        let name = digest_name(acvp)
            .ok_or_else(|| WrapperError::new(format!("unknown command (no hash {acvp})")))?;
        self.require(name)
    }

    /// `HASH/MCT seed`: one Monte Carlo checkpoint (1000 chained digests; SHA-2's window of
    /// three, SHA-3's straight chain). acvptool chains the 100 checkpoints itself.
    fn hash_monte(&self, acvp: &str, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        if !HASHES.iter().any(|(name, _)| *name == acvp) {
            return Err(WrapperError::new("unknown command"));
        }
        arity(args, 1)?;
        let algorithm = self.hash(acvp)?;
        let checkpoints = if acvp.starts_with("SHA3-") {
            sha3_monte(self.module, algorithm, &args[0], 1)
        } else {
            sha2_monte(self.module, algorithm, &args[0], 1)
        }
        .map_err(module)?;
        Ok(checkpoints)
    }

    /// `AES-CBC/DIR key input iv iterations`: `[result, previous result]`. With one
    /// iteration, the input is any whole number of blocks and the previous result is zeros;
    /// with more (the Monte Carlo inner loop), the input is one block, each next input is the
    /// IV and then the output before last, and the chaining continues through one stream.
    fn aes_cbc(&self, direction: Direction, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 4)?;
        let algorithm = self.aes_algorithm("cbc", &args[0])?;
        let (input, iv) = (&args[1], &args[2]);
        let iterations = le_u32(&args[3], "iteration count")?;
        if iv.len() != 16 {
            return Err(WrapperError::new(format!(
                "a {}-byte IV (AES-CBC takes 16)",
                iv.len()
            )));
        }
        if input.len() % 16 != 0 {
            return Err(WrapperError::new(format!(
                "{} bytes of input, not whole 16-byte blocks",
                input.len()
            )));
        }
        let cipher_key = self
            .module
            .cipher_key(algorithm, &args[0])
            .map_err(module)?;
        let mut stream = cipher_key.stream(direction, iv).map_err(module)?;
        stream.set_padding(false).map_err(module)?;
        match iterations {
            0 => Err(WrapperError::new("an iteration count of 0")),
            1 => {
                let mut output = vec![0u8; input.len() + 32];
                let written = stream.update(input, &mut output).map_err(module)?;
                let last = *stream.finish(&mut output[written..]).map_err(module)?;
                output.truncate(written + last);
                Ok(vec![output, vec![0u8; input.len()]])
            }
            _ => {
                let mut block_in: [u8; 16] = input.as_slice().try_into().map_err(|_| {
                    WrapperError::new(format!(
                        "{} bytes of input for a Monte Carlo loop (one 16-byte block)",
                        input.len()
                    ))
                })?;
                let first_iv: [u8; 16] = iv.as_slice().try_into().unwrap_or([0; 16]);
                let mut previous = [0u8; 16];
                let mut output = [0u8; 16];
                for j in 0..iterations {
                    previous = output;
                    if stream.update(&block_in, &mut output).map_err(module)? != 16 {
                        return Err(WrapperError::new("a CBC block gave no whole block"));
                    }
                    block_in = if j == 0 { first_iv } else { previous };
                }
                let mut tail = [0u8; 16];
                stream.finish(&mut tail).map_err(module)?;
                Ok(vec![output.to_vec(), previous.to_vec()])
            }
        }
    }

    /// `AES-CTR/DIR key input iv 1`: the output (CTR has no Monte Carlo test).
    fn aes_ctr(&self, direction: Direction, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 4)?;
        let algorithm = self.aes_algorithm("ctr", &args[0])?;
        if le_u32(&args[3], "iteration count")? != 1 {
            return Err(WrapperError::new(
                "AES-CTR takes one iteration (ACVP has no CTR Monte Carlo test)",
            ));
        }
        let (input, iv) = (&args[1], &args[2]);
        let cipher_key = self
            .module
            .cipher_key(algorithm, &args[0])
            .map_err(module)?;
        let mut stream = cipher_key.stream(direction, iv).map_err(module)?;
        let mut output = vec![0u8; input.len() + 2 * stream.block_size()];
        let written = stream.update(input, &mut output).map_err(module)?;
        let last = *stream.finish(&mut output[written..]).map_err(module)?;
        output.truncate(written + last);
        Ok(vec![output])
    }

    /// `AES-GCM/open tagLen key ciphertext||tag nonce aad`: `[1, plaintext]`, or `[0, ""]`
    /// when the tag does not verify.
    fn aes_gcm_open(&self, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 5)?;
        let tag_len = le_u32(&args[0], "tag length")? as usize;
        let algorithm = self.aes_algorithm("gcm", &args[1])?;
        let aead = self
            .module
            .aead_key_with_tag_len(algorithm, &args[1], tag_len)
            .map_err(module)?;
        Ok(match aead.open(&args[3], &args[4], &args[2]) {
            Ok(plaintext) => vec![vec![1], plaintext.into_value().to_vec()],
            Err(regula::Error::AuthenticationFailed) => vec![vec![0], Vec::new()],
            Err(error) => return Err(module(error)),
        })
    }

    fn cmac_algorithm(&self, key: &[u8]) -> Result<Algorithm> {
        self.aes_algorithm("cmac", key)
    }

    /// `CMAC-AES outLen key message`: the tag's first `outLen` bytes.
    fn cmac(&self, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 3)?;
        let len = le_u32(&args[0], "output length")? as usize;
        let algorithm = self.cmac_algorithm(&args[1])?;
        let mut tag = self
            .module
            .mac_key(algorithm, &args[1])
            .and_then(|key| key.sign(&args[2]))
            .map_err(module)?
            .into_value();
        if len == 0 || len > tag.len() {
            return Err(WrapperError::new(format!(
                "a {len}-byte CMAC (1 to {} bytes)",
                tag.len()
            )));
        }
        tag.truncate(len);
        Ok(vec![tag])
    }

    /// `CMAC-AES/verify key message tag`: `[1]` or `[0]`. A full tag goes through the
    /// module's verification; a shorter one is compared with the computed tag's prefix.
    fn cmac_verify(&self, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 3)?;
        let algorithm = self.cmac_algorithm(&args[0])?;
        let mac_key = self.module.mac_key(algorithm, &args[0]).map_err(module)?;
        let (message, tag) = (&args[1], &args[2]);
        let good = if tag.len() == 16 {
            match mac_key.verify(message, tag) {
                Ok(_) => true,
                Err(regula::Error::AuthenticationFailed) => false,
                Err(error) => return Err(module(error)),
            }
        } else {
            let full = mac_key.sign(message).map_err(module)?.into_value();
            !tag.is_empty() && full.get(..tag.len()) == Some(tag.as_slice())
        };
        Ok(vec![vec![u8::from(good)]])
    }

    /// `PBKDF hmacAlg keyLenBits salt password iterations`: the derived key.
    fn pbkdf(&self, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 5)?;
        let hash = std::str::from_utf8(&args[0])
            .map_err(|_| WrapperError::new("the hash name is not text"))?;
        let algorithm = self.kdf_algorithm("pbkdf2", hash)?;
        let bits = le_u32(&args[1], "key length")?;
        if bits % 8 != 0 {
            return Err(WrapperError::new(format!(
                "a {bits}-bit key is not whole bytes"
            )));
        }
        let iterations = le_u32(&args[4], "iteration count")?;
        let derived = self
            .module
            .pbkdf2(
                algorithm,
                &args[3],
                &args[2],
                iterations,
                (bits / 8) as usize,
            )
            .map_err(module)?;
        Ok(vec![derived.to_vec()])
    }

    /// `ECDSA/sigVer curve hashAlg message qx qy r s`: `[1]` or `[0]`, through the module's
    /// verify with the uncompressed point and the DER signature.
    fn ecdsa_verify(&self, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 7)?;
        let (curve, hash) = (&args[0][..], &args[1][..]);
        let (_, _, name) = ECDSA_PAIRS
            .iter()
            .find(|(c, h, _)| c.as_bytes() == curve && h.as_bytes() == hash)
            .ok_or_else(|| {
                WrapperError::new(format!(
                    "no ECDSA on {} with {} here (each curve takes its own hash)",
                    String::from_utf8_lossy(curve),
                    String::from_utf8_lossy(hash)
                ))
            })?;
        let algorithm = self.require(name)?;
        let point = uncompressed_point(name, &args[3], &args[4]);
        let signature = crate::ops::der_signature(&args[5], &args[6]);
        verdict(
            self.module
                .verify(algorithm, &point, &args[2], &signature)
                .map(|_| ()),
        )
    }

    /// `ECDSA/keyVer curve qx qy`: `[1]` when the module takes the public key, `[0]` when it
    /// refuses it. A bare public key's only door is the verify service, which validates the
    /// key (SP 800-186's checks, as AWS-LC does them) before it looks at the signature: a
    /// placeholder signature that fails means the key was taken.
    fn ecdsa_key_ver(&self, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 3)?;
        let (_, _, name) = ECDSA_PAIRS
            .iter()
            .find(|(curve, _, _)| curve.as_bytes() == args[0])
            .ok_or_else(|| {
                WrapperError::new(format!(
                    "no ECDSA on {} here",
                    String::from_utf8_lossy(&args[0])
                ))
            })?;
        let algorithm = self.require(name)?;
        let point = uncompressed_point(name, &args[1], &args[2]);
        let placeholder = crate::ops::der_signature(&[1], &[1]);
        verdict(
            match self.module.verify(algorithm, &point, b"", &placeholder) {
                Ok(_) | Err(regula::Error::BadSignature) => Ok(()),
                Err(error) => Err(error),
            },
        )
    }

    /// `RSA/sigVer/HASH/SIGTYPE n e message signature`: `[1]` or `[0]`, through the module's
    /// verify with the key as a SubjectPublicKeyInfo (PSS: MGF1 with the hash, the hash's
    /// length of salt).
    fn rsa_verify(&self, command: &str, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 4)?;
        let rest = command.trim_start_matches("RSA/sigVer/");
        let (hash, sig_type) = rest
            .split_once('/')
            .ok_or_else(|| WrapperError::new("unknown command (RSA/sigVer/HASH/SIGTYPE)"))?;
        let (_, bits, _) = RSA_HASHES
            .iter()
            .find(|(acvp, _, _)| *acvp == hash)
            .ok_or_else(|| WrapperError::new(format!("no RSA signatures with {hash} here")))?;
        let name = match sig_type {
            "pkcs1v1.5" => format!("rsa-pkcs1-sha{bits}"),
            "pss" => format!("rsa-pss-sha{bits}"),
            other => {
                return Err(WrapperError::new(format!("no RSA {other} signatures here")));
            }
        };
        let algorithm = self.require(&name)?;
        let public_key = super::sig::rsa_spki(&args[0], &args[1]);
        verdict(
            self.module
                .verify(algorithm, &public_key, &args[2], &args[3])
                .map(|_| ()),
        )
    }

    /// `EDDSA/sigVer curve message q signature prehash`: `[1]` or `[0]`; pure Ed25519 only.
    fn eddsa_verify(&self, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 5)?;
        if args[0] != b"ED-25519" || args[4] != [0] {
            return Err(WrapperError::new(
                "only pure Ed25519 (curve ED-25519, no pre-hash) is answered here",
            ));
        }
        let algorithm = self.require("ed25519")?;
        verdict(
            self.module
                .verify(algorithm, &args[2], &args[1], &args[3])
                .map(|_| ()),
        )
    }

    /// `ML-KEM-N/decap dk c`: the shared secret, through a KEM key imported from the expanded
    /// decapsulation key.
    fn ml_kem_decap(&self, name: &str, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        arity(args, 2)?;
        let algorithm = self.require(name)?;
        let key = self
            .module
            .kem_key_from_bytes(algorithm, &args[0])
            .map_err(module)?
            .into_value();
        let shared = key.decapsulate(&args[1]).map_err(module)?.into_value();
        Ok(vec![shared.to_vec()])
    }

    /// `HKDF/HASH`, `HKDFExtract/HASH`, `HKDFExpandLabel/HASH` and `TLSKDF/1.2/HASH`.
    fn kdf(&self, command: &str, args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        if let Some(hash) = command.strip_prefix("HKDF/") {
            // key salt info outLen
            arity(args, 4)?;
            let algorithm = self.kdf_algorithm("hkdf", hash)?;
            let len = le_u32(&args[3], "output length")? as usize;
            let okm = self
                .module
                .hkdf(algorithm, &args[0], &args[1], &args[2], len)
                .map_err(module)?;
            Ok(vec![okm.to_vec()])
        } else if let Some(hash) = command.strip_prefix("HKDFExtract/") {
            // secret salt
            arity(args, 2)?;
            let algorithm = self.kdf_algorithm("hkdf", hash)?;
            let prk = self
                .module
                .hkdf_extract(algorithm, &args[0], &args[1])
                .map_err(module)?;
            Ok(vec![prk.to_vec()])
        } else if let Some(hash) = command.strip_prefix("HKDFExpandLabel/") {
            // outLen secret label transcriptHash (RFC 8446 §7.1's HkdfLabel)
            arity(args, 4)?;
            let algorithm = self.kdf_algorithm("hkdf", hash)?;
            let len = le_u32(&args[0], "output length")?;
            let (secret, label, context) = (&args[1], &args[2], &args[3]);
            let full_label_len = 6 + label.len();
            let (Ok(out_len), Ok(label_len), Ok(context_len)) = (
                u16::try_from(len),
                u8::try_from(full_label_len),
                u8::try_from(context.len()),
            ) else {
                return Err(WrapperError::new(
                    "an HkdfLabel field out of range (length < 2^16, label and context < 256 bytes)",
                ));
            };
            let mut info = out_len.to_be_bytes().to_vec();
            info.push(label_len);
            info.extend_from_slice(b"tls13 ");
            info.extend_from_slice(label);
            info.push(context_len);
            info.extend_from_slice(context);
            let okm = self
                .module
                .hkdf_expand(algorithm, secret, &info, len as usize)
                .map_err(module)?;
            Ok(vec![okm.to_vec()])
        } else if let Some(hash) = command.strip_prefix("TLSKDF/1.2/") {
            // outLen secret label seed1 seed2
            arity(args, 5)?;
            let algorithm = self.kdf_algorithm("tls12-prf", hash)?;
            let len = le_u32(&args[0], "output length")? as usize;
            let seed = [&args[2][..], &args[3], &args[4]].concat();
            let out = self
                .module
                .tls12_prf(algorithm, &args[1], &seed, len)
                .map_err(module)?;
            Ok(vec![out.to_vec()])
        } else {
            Err(WrapperError::new(
                "unknown command (getConfig lists what this wrapper answers)",
            ))
        }
    }
}

/// The digest under an HMAC (for its output length).
fn digest_of_hmac(algorithm: Algorithm) -> Algorithm {
    let name = algorithm.name().trim_start_matches("hmac-");
    Algorithm::from_name(name).unwrap_or(algorithm)
}

/// A verification's answer: `[1]` when the module verifies, `[0]` when it refuses the
/// signature or the key; a policy refusal or the error state ends the session.
fn verdict(result: std::result::Result<(), regula::Error>) -> Result<Vec<Vec<u8>>> {
    match result {
        Ok(()) => Ok(vec![vec![1]]),
        Err(
            error @ (regula::Error::NotApproved { .. }
            | regula::Error::ModuleInErrorState { .. }
            | regula::Error::UnknownAlgorithm { .. }
            | regula::Error::WrongFamily { .. }),
        ) => Err(module(error)),
        Err(_) => Ok(vec![vec![0]]),
    }
}

fn module(error: regula::Error) -> WrapperError {
    WrapperError::new(error.to_string())
}

fn arity(args: &[Vec<u8>], want: usize) -> Result<()> {
    if args.len() == want {
        Ok(())
    } else {
        let noun = if want == 1 { "argument" } else { "arguments" };
        Err(WrapperError::new(format!(
            "takes {want} {noun}, got {}",
            args.len()
        )))
    }
}

fn le_u32(field: &[u8], what: &str) -> Result<u32> {
    let bytes: [u8; 4] = field.try_into().map_err(|_| {
        WrapperError::new(format!(
            "the {what} is {} bytes, not a 4-byte little-endian number",
            field.len()
        ))
    })?;
    Ok(u32::from_le_bytes(bytes))
}
