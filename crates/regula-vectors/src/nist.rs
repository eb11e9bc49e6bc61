//! Runs `KEY = value` files (NIST CAVP `.rsp`, cryptography-vectors text files).
//!
//! Which algorithm a file holds is decided from the keys of its first record; the hash, mode or
//! cipher comes from the file's comments (`# SM4 GCM`, `"SHA-256 Monte"`), its section headers,
//! or — when the text does not say, as in cryptography-vectors' `ChaCha20Poly1305/openssl.txt` —
//! the name of the file and of its folder.

use regula::Module;

use crate::kv::{self, Field, KvFile, Record};
use crate::ops::{self, AeadVector};
use crate::tally::{Expect, Outcome, Tally};
use crate::{FileReport, Format, VectorError};

/// What a file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// CAVP `gcmEncryptExtIV*` / `gcmDecrypt*`.
    Gcm,
    /// Text AEAD vectors (`KEY`, `NONCE`/`IV`, `AD`/`AAD`, `IN`/`PLAINTEXT`, `CT`, `TAG`).
    Aead(String),
    /// `Len`/`Msg`/`MD` (SHAVS Short/LongMsg, SM3 `oscca.txt`).
    Digest(String),
    /// SHA3VS SHAKE `Msg`/`Output` (ShortMsg and LongMsg with `Len`, VariableOut without): the
    /// output length is the expected output's.
    Xof(String),
    /// SHAVS / SHA3VS Monte Carlo (`Seed`, `COUNT`, `MD`).
    Monte(String),
    /// CAVP `HMAC.rsp` (`[L = n]`, `Klen`, `Tlen`, `Key`, `Msg`, `Mac`).
    HmacCavp,
    /// RFC 2202 / 4231 (`Key`, `Msg`, `MD`).
    HmacText(String),
    /// SP 800-38B text (`KEY`, `MESSAGE`, `OUTPUT`).
    Cmac,
    /// RFC 5869 (`Hash`, `IKM`, `salt`, `info`, `L`, `OKM`).
    Hkdf,
    /// FIPS 186 SigVer (`[P-256,SHA-256]`, `Msg`, `Qx`, `Qy`, `R`, `S`, `Result`); `false`
    /// for SigGen responses, which have no `Result`: every signature in them must verify.
    SigVer(bool),
    /// FIPS 186 PKV (`[P-256]`, `Qx`, `Qy`, `Result`).
    Pkv,
    /// Unauthenticated block-cipher modes (`KEY`, `IV`, `PLAINTEXT`, `CIPHERTEXT`).
    Cipher(String),
    /// RFC 7748 X25519 function vectors: scalar, u-coordinate, result.
    X25519,
    /// CAVP CCM (`VADT`/`VNT`/`VPT`/`VTT` encryption, `DVPT` decryption-verification):
    /// `Key`, `Nonce`, `Adata`, `Payload`, `CT` (ciphertext ‖ tag), lengths in the headers.
    Ccm,
    /// CAVP XTSVS (`Key`, `DataUnitLen`, tweak `i` or `DataUnitSeqNumber`, `PT`, `CT`).
    Xts,
    /// SP 800-38F key wrapping (`K`, `P`, `C`, `FAIL`); `true` for KWP.
    KeyWrap(bool),
    /// SP 800-108 KBKDF (`[PRF=…]`, `[CTRLOCATION=…]`, `[RLEN=…]`, `L`, `KI`,
    /// `FixedInputData`, `KO`).
    Kbkdf,
    /// RC4 keystream vectors (`KEY`, `OFFSET`, `PLAINTEXT`, `CIPHERTEXT`).
    Rc4,
    /// TDES CBC (TMOVS `KEY1`/`KEY2`/`KEY3` or `KEYs`, `IV`, `PLAINTEXT`, `CIPHERTEXT`).
    TdesCbc,
    /// Every vector skipped (the outcome is always an [`Outcome::Skip`]).
    Skip(String, Outcome),
}

impl Kind {
    fn describe(&self, direction: Option<&str>) -> String {
        match self {
            Kind::Gcm => format!("aes-gcm ({})", direction.unwrap_or("CAVP")),
            Kind::Aead(name) | Kind::Cipher(name) => name.clone(),
            Kind::Digest(name) | Kind::Xof(name) => name.clone(),
            Kind::Monte(name) => format!("{name} monte carlo"),
            Kind::HmacCavp => "hmac (CAVP)".to_string(),
            Kind::HmacText(name) => name.clone(),
            Kind::Cmac => "aes-cmac".to_string(),
            Kind::Hkdf => "hkdf".to_string(),
            Kind::SigVer(true) => "ecdsa sigver".to_string(),
            Kind::SigVer(false) => "ecdsa siggen responses (verified)".to_string(),
            Kind::Pkv => "ecdsa public-key validation".to_string(),
            Kind::X25519 => "x25519".to_string(),
            Kind::Ccm => "aes-ccm".to_string(),
            Kind::Xts => "aes-xts".to_string(),
            Kind::KeyWrap(false) => "aes-kw".to_string(),
            Kind::KeyWrap(true) => "aes-kwp".to_string(),
            Kind::Kbkdf => "kbkdf (counter mode)".to_string(),
            Kind::Rc4 => "rc4".to_string(),
            Kind::TdesCbc => "des-ede3-cbc".to_string(),
            Kind::Skip(what, _) => what.clone(),
        }
    }
}

pub(crate) fn run(
    module: &Module,
    label: &str,
    text: &str,
    format: Format,
) -> Result<FileReport, VectorError> {
    let file = kv::parse(label, text)?;
    let Some(first) = file.records.first() else {
        return Err(VectorError::malformed(
            label,
            0,
            "no vectors found (no `KEY = value` records)",
        ));
    };
    let hints = Hints::new(label, &file);
    let kind = classify(label, first, &hints)?;
    let direction = if hints.comments.contains("decrypt") {
        Some("CAVP decrypt")
    } else if hints.comments.contains("encrypt") {
        Some("CAVP encrypt")
    } else {
        None
    };
    let mut tally = Tally::new(FileReport::new(label, format));
    tally.set_algorithm(kind.describe(direction));
    if kind == Kind::SigVer(false) {
        tally.note("SigGen responses carry no verdict: each (R, S) must verify under (Qx, Qy)");
    }
    if kind == Kind::Kbkdf {
        tally.note(
            "KBKDF runs the HMAC-SHA-256/384/512 PRFs with a 32-bit counter before the fixed \
             input (SP 800-108r1 §4.1 as AWS-LC's KBKDF_ctr_hmac implements it)",
        );
    }
    if matches!(&kind, Kind::Cipher(name) if name.ends_with("-cbc")) {
        tally.note(
            "CBC vectors are checked by encryption in both [ENCRYPT] and [DECRYPT] sections: \
             the API's CBC pads with PKCS#7, so unpadded decryption cannot be expressed",
        );
    }
    if kind == Kind::Pkv {
        tally.note(
            "public keys are validated through Module::verify (InvalidKey = rejected, \
             BadSignature = accepted): the API has no separate key check",
        );
    }
    let runner = Runner {
        module,
        label,
        tally: &mut tally,
    };
    runner.run_all(&kind, &file)?;
    Ok(tally.finish())
}

/// Text that may name the algorithm: comments and bare headers (lowercase), then the file
/// name and its folder.
struct Hints {
    comments: String,
    path: String,
}

impl Hints {
    fn new(label: &str, file: &KvFile) -> Hints {
        let mut comments = file.comments.join(" ").to_ascii_lowercase();
        for record in file.records.iter().take(1) {
            if let Some(header) = record.bare_header() {
                comments.push(' ');
                comments.push_str(&header.to_ascii_lowercase());
            }
        }
        let path = std::path::Path::new(label);
        let tail: Vec<String> = path
            .iter()
            .rev()
            .take(2)
            .map(|part| part.to_string_lossy().to_ascii_lowercase())
            .collect();
        Hints {
            comments,
            path: tail.join(" "),
        }
    }

    fn any(&self, needle: &str) -> bool {
        self.comments.contains(needle) || self.path.contains(needle)
    }

    /// The hash named by the comments, else by the path.
    fn hash(&self) -> Option<&'static str> {
        hash_named_in(&self.comments).or_else(|| hash_named_in(&self.path))
    }
}

/// Finds a hash name in free text (`SHA-256`, `SHA3_256`, `SHA-512/224`, `SM3`, …) and returns
/// its Regula-style name.
fn hash_named_in(text: &str) -> Option<&'static str> {
    let squeezed: String = text
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | '/' | ' '))
        .collect();
    const NAMES: &[(&str, &str)] = &[
        ("sha512224", "sha512-224"),
        ("sha512256", "sha512-256"),
        ("sha3224", "sha3-224"),
        ("sha3256", "sha3-256"),
        ("sha3384", "sha3-384"),
        ("sha3512", "sha3-512"),
        ("shake128", "shake128"),
        ("shake256", "shake256"),
        ("sha224", "sha224"),
        ("sha256", "sha256"),
        ("sha384", "sha384"),
        ("sha512", "sha512"),
        ("sha1", "sha1"),
        ("sm3", "sm3"),
        ("md4", "md4"),
        ("md5", "md5"),
        ("ripemd160", "ripemd160"),
    ];
    NAMES
        .iter()
        .filter_map(|(needle, name)| squeezed.find(needle).map(|at| (at, *name)))
        .min_by_key(|(at, _)| *at)
        .map(|(_, name)| name)
}

/// A hash as written in a `Hash =` field or a SigVer header (`SHA-256`, `SHA-1`).
fn hash_field(value: &str) -> Option<&'static str> {
    hash_named_in(&value.to_ascii_lowercase())
}

fn skip_all(what: &str, reason: Outcome) -> Kind {
    Kind::Skip(what.to_string(), reason)
}

fn not_offered(name: &str) -> Kind {
    skip_all(name, Outcome::not_offered(name))
}

fn classify(label: &str, record: &Record, hints: &Hints) -> Result<Kind, VectorError> {
    let has = |key: &str| record.has(key);
    let hash = || {
        hints.hash().ok_or_else(|| {
            VectorError::malformed(
                label,
                record.line,
                "cannot tell which hash these vectors are for (no SHA-…/SM3 in comments or name)",
            )
        })
    };
    if let Some(name) = unimplemented_family(label) {
        return Ok(not_offered(name));
    }
    if hints.any("shake") {
        let name = if hints.any("shake256") {
            "shake256"
        } else {
            "shake128"
        };
        if hints.any("monte") {
            return Ok(skip_all(
                &format!("{name} monte carlo"),
                Outcome::unsupported_operation("SHAKE Monte Carlo (variable-length chaining)"),
            ));
        }
        return Ok(Kind::Xof(name.to_string()));
    }
    if has("Seed") && has("MD") {
        return Ok(Kind::Monte(hash()?.to_string()));
    }
    if has("Qx") && has("Qy") {
        if has("R") && has("S") {
            if has("d") || has("k") {
                return Ok(skip_all(
                    "ecdsa siggen",
                    Outcome::unsupported_operation("ECDSA signing with a given private key and k"),
                ));
            }
            return Ok(Kind::SigVer(has("Result")));
        }
        if has("d") {
            return Ok(skip_all(
                "ecdsa keypair",
                Outcome::unsupported_operation("ECDSA key-pair generation from a given d"),
            ));
        }
        if has("Result") {
            return Ok(Kind::Pkv);
        }
    }
    if has("INPUT_SCALAR") && has("INPUT_U") {
        let name = if hints.any("448") { "x448" } else { "x25519" };
        return Ok(match ops::algorithm(name) {
            Ok(_) => Kind::X25519,
            Err(_) => not_offered(name),
        });
    }
    if has("Klen") && has("Mac") {
        return Ok(Kind::HmacCavp);
    }
    if has("MD") && has("Msg") {
        let hash = hash()?;
        return Ok(if has("Key") {
            Kind::HmacText(format!("hmac-{hash}"))
        } else {
            Kind::Digest(hash.to_string())
        });
    }
    if has("MESSAGE") && has("OUTPUT") {
        return Ok(if has("KEY1") {
            not_offered("tdes-cmac")
        } else {
            Kind::Cmac
        });
    }
    if has("IKM") && has("OKM") {
        return Ok(Kind::Hkdf);
    }
    if has("Adata") || has("Payload") {
        return Ok(Kind::Ccm);
    }
    if has("DataUnitLen") || hints.any("xts") {
        return Ok(Kind::Xts);
    }
    if has("KI") && has("KO") {
        return Ok(Kind::Kbkdf);
    }
    if has("KEY1") || has("KEYs") {
        return Ok(tdes(label, hints));
    }
    if has("OFFSET") || hints.any("arc4") || hints.any("rc4") {
        return Ok(Kind::Rc4);
    }
    if has("Tag") && has("IV") && has("CT") && has("IVlen") {
        return Ok(Kind::Gcm);
    }
    let sm4 = hints.any("sm4");
    if has("TAG") && (has("NONCE") || has("IV")) {
        let name = if sm4 && hints.any("ccm") {
            "sm4-ccm"
        } else if sm4 {
            "sm4-gcm"
        } else if hints.any("chacha") || hints.any("7539") || hints.any("8439") {
            "chacha20-poly1305"
        } else {
            return Err(VectorError::malformed(
                label,
                record.line,
                "cannot tell which AEAD these vectors are for (no SM4/ChaCha20-Poly1305 in \
                 comments or name)",
            ));
        };
        return Ok(Kind::Aead(name.to_string()));
    }
    if has("K") && (has("P") || has("C")) || hints.any("kwp") || hints.any("keywrap") {
        if hints.any("tkw") {
            return Ok(not_offered("tdes-kw"));
        }
        let padded = hints.any("kwp");
        // SP 800-38F §5.1 lets KW/KWP use the inverse cipher (AES decryption) as their
        // forward function; the `_inv` files test that variant, which AWS-LC does not offer.
        if hints.comments.contains("inverse cipher") {
            let name = if padded { "KWP" } else { "KW" };
            return Ok(skip_all(
                &format!("aes-{} (inverse cipher)", name.to_ascii_lowercase()),
                Outcome::unsupported(format!(
                    "{name} with the AES inverse cipher as its forward function (SP 800-38F §5.1)"
                )),
            ));
        }
        return Ok(Kind::KeyWrap(padded));
    }
    if has("KEY") && (has("PLAINTEXT") || has("CIPHERTEXT")) {
        let cipher = if sm4 { "sm4" } else { "aes" };
        let mode = ["ecb", "cbc", "ctr", "cfb", "ofb"]
            .into_iter()
            .find(|mode| hints.comments.contains(mode))
            .or_else(|| {
                ["ecb", "cbc", "ctr", "cfb", "ofb"]
                    .into_iter()
                    .find(|mode| hints.path.contains(mode))
            })
            // CFB comes in segment sizes (CFB1, CFB8, CFB128); the comment or name says which.
            .map(|mode| match mode {
                "cfb" => ["cfb128", "cfb8", "cfb1"]
                    .into_iter()
                    .find(|segment| hints.comments.contains(segment))
                    .or_else(|| {
                        ["cfb128", "cfb8", "cfb1"]
                            .into_iter()
                            .find(|segment| hints.path.contains(segment))
                    })
                    .unwrap_or(mode),
                _ => mode,
            });
        return match mode {
            Some(mode) => Ok(Kind::Cipher(format!("{cipher}-{mode}"))),
            None => Err(VectorError::malformed(
                label,
                record.line,
                "cannot tell which cipher mode these vectors are for",
            )),
        };
    }
    // Key-derivation files of cryptography-vectors that Regula does not implement.
    let kdfs = [
        ("memcost", "lanes", "argon2"),
        ("PASSWORD", "N", "scrypt"),
        ("PASSWORD", "ITERATIONS", "pbkdf2-sha1"),
        ("Z", "SharedInfo", "ansi-x9.63-kdf"),
    ];
    for (first, second, name) in kdfs {
        if has(first) && has(second) {
            let name = if name == "argon2" {
                ["argon2id", "argon2i", "argon2d"]
                    .into_iter()
                    .find(|variant| hints.any(variant))
                    .unwrap_or(name)
            } else {
                name
            };
            return Ok(not_offered(name));
        }
    }
    let keys: Vec<&str> = record
        .fields
        .iter()
        .map(|field| field.key.as_str())
        .collect();
    Err(VectorError::malformed(
        label,
        record.line,
        format!(
            "cannot tell which algorithm these vectors are for (keys: {})",
            keys.join(", ")
        ),
    ))
}

/// TDES (TMOVS) files: the mode is in the file name (`TCBCMMT2.rsp`, `TCFB8invperm.rsp`) or,
/// failing that, the last word of a comment (`TDES Multi block Message Test for CBC`). Only
/// CBC is offered (`des-ede3-cbc`); the interleaved (`CBCI`) and pipelined (`CFBP`) variants
/// and the other modes are skipped with their reason.
fn tdes(label: &str, hints: &Hints) -> Kind {
    let stem = std::path::Path::new(label)
        .file_stem()
        .map(|stem| stem.to_string_lossy().to_string())
        .unwrap_or_default();
    let from_name = stem.strip_prefix('T').and_then(|rest| {
        let end = rest
            .find("MMT")
            .or_else(|| rest.find(|c: char| c.is_ascii_lowercase()))
            .unwrap_or(rest.len());
        (end > 0).then(|| rest[..end].to_ascii_lowercase())
    });
    let from_comment = || {
        hints
            .comments
            .split_whitespace()
            .skip_while(|word| *word != "for")
            .nth(1)
            .map(str::to_string)
    };
    match from_name.or_else(from_comment).as_deref() {
        Some("cbc") => Kind::TdesCbc,
        Some("cbci") => skip_all(
            "tdes-cbci",
            Outcome::unsupported("TDES CBC-I (interleaved) mode"),
        ),
        Some(mode) if mode.starts_with("cfbp") => skip_all(
            &format!("tdes-{mode}"),
            Outcome::unsupported(format!("TDES {} (pipelined) mode", mode.to_uppercase())),
        ),
        Some(mode) => not_offered(&format!("des-ede3-{mode}")),
        None => not_offered("des-ede3"),
    }
}

/// cryptography-vectors keeps one folder per algorithm; these are algorithms Regula does not
/// implement at all, so their files are reported as skipped rather than as errors.
fn unimplemented_family(label: &str) -> Option<&'static str> {
    const FOLDERS: &[(&str, &str)] = &[
        ("blowfish", "blowfish"),
        ("camellia", "camellia"),
        ("cast5", "cast5"),
        ("idea", "idea"),
        ("rc2", "rc2"),
        ("seed", "seed"),
        ("chacha20", "chacha20"),
        ("gcm-siv", "aes-gcm-siv"),
        ("siv", "aes-siv"),
        ("ocb3", "aes-ocb3"),
        ("blake2", "blake2"),
        ("ripemd160", "ripemd160"),
        ("poly1305", "poly1305"),
        ("dh", "dh"),
        ("dsa", "dsa"),
        ("ed448", "ed448"),
        ("x448", "x448"),
        ("mldsa", "ml-dsa"),
    ];
    let path = std::path::Path::new(label);
    path.parent()?.iter().rev().find_map(|folder| {
        let folder = folder.to_string_lossy().to_ascii_lowercase();
        FOLDERS
            .iter()
            .find(|(name, _)| *name == folder)
            .map(|(_, algorithm)| *algorithm)
    })
}

struct Runner<'a> {
    module: &'a Module,
    label: &'a str,
    tally: &'a mut Tally,
}

/// Expected verdict of a record: `FAIL` or a `Result` not starting with `P` must be rejected.
fn expectation(record: &Record) -> Expect {
    if record.fail {
        return Expect::Invalid;
    }
    match record.own("Result") {
        Some(result) if !result.value.trim_start().starts_with(['P', 'p']) => Expect::Invalid,
        _ => Expect::Valid,
    }
}

impl Runner<'_> {
    fn field<'r>(&self, record: &'r Record, key: &str) -> Result<&'r Field, VectorError> {
        record.get(key).ok_or_else(|| {
            VectorError::malformed(
                self.label,
                record.line,
                format!("vector {} has no `{key}`", record.id()),
            )
        })
    }

    fn bytes(&self, record: &Record, key: &str) -> Result<Vec<u8>, VectorError> {
        kv::decode(self.label, self.field(record, key)?)
    }

    /// The first of several alternative keys that is present (`NONCE` or `IV`).
    fn bytes_any(&self, record: &Record, keys: &[&str]) -> Result<Vec<u8>, VectorError> {
        match keys.iter().find_map(|key| record.get(key)) {
            Some(field) => kv::decode(self.label, field),
            None => Err(VectorError::malformed(
                self.label,
                record.line,
                format!("vector {} has none of `{}`", record.id(), keys.join("`, `")),
            )),
        }
    }

    fn optional(&self, record: &Record, keys: &[&str]) -> Result<Vec<u8>, VectorError> {
        match keys.iter().find_map(|key| record.get(key)) {
            Some(field) => kv::decode(self.label, field),
            None => Ok(Vec::new()),
        }
    }

    fn integer(&self, record: &Record, key: &str) -> Result<Vec<u8>, VectorError> {
        kv::decode_integer(self.label, self.field(record, key)?)
    }

    fn number(&self, record: &Record, key: &str) -> Result<usize, VectorError> {
        let field = self.field(record, key)?;
        field.value.trim().parse().map_err(|_| {
            VectorError::malformed(self.label, field.line, format!("`{key}` is not a number"))
        })
    }

    fn run_all(self, kind: &Kind, file: &KvFile) -> Result<(), VectorError> {
        if let Kind::Monte(name) = kind {
            return self.run_monte(name, file);
        }
        let mut runner = self;
        for record in &file.records {
            runner.run_one(kind, record)?;
        }
        Ok(())
    }

    fn run_monte(self, name: &str, file: &KvFile) -> Result<(), VectorError> {
        let mut previous: Option<Vec<u8>> = None;
        for record in &file.records {
            let seed = match previous.take() {
                Some(seed) => seed,
                None => self.bytes(record, "Seed")?,
            };
            let expected = self.bytes(record, "MD")?;
            let outcome = ops::monte(self.module, name, &seed, &expected);
            self.tally.record(&record.id(), Expect::Valid, outcome);
            previous = Some(expected);
        }
        Ok(())
    }

    fn run_one(&mut self, kind: &Kind, record: &Record) -> Result<(), VectorError> {
        let module = self.module;
        let expect = expectation(record);
        let outcome = match kind {
            Kind::Skip(_, skip) => skip.clone(),
            Kind::X25519 => {
                let scalar = self.bytes(record, "INPUT_SCALAR")?;
                let u = self.bytes(record, "INPUT_U")?;
                let expected = self.bytes(record, "OUTPUT_U")?;
                ops::key_agreement(module, "x25519", &scalar, &u, &expected)
            }
            // Monte Carlo files run as one chain in `run_monte`, never record by record.
            Kind::Monte(_) => Outcome::Skip("Monte Carlo vector outside its chain".to_string()),
            Kind::Gcm => {
                let key = self.bytes(record, "Key")?;
                let nonce = self.bytes(record, "IV")?;
                let ciphertext = self.bytes(record, "CT")?;
                let aad = self.optional(record, &["AAD"])?;
                let tag = self.bytes(record, "Tag")?;
                let name = match key.len() {
                    16 => "aes-128-gcm",
                    24 => "aes-192-gcm",
                    _ => "aes-256-gcm",
                };
                let encrypt = matches!(
                    (record.position("PT"), record.position("CT")),
                    (Some(pt), Some(ct)) if pt < ct
                );
                let plaintext = if expect == Expect::Invalid {
                    Vec::new()
                } else {
                    self.bytes(record, "PT")?
                };
                let vector = AeadVector {
                    key: &key,
                    nonce: &nonce,
                    aad: &aad,
                    plaintext: &plaintext,
                    ciphertext: &ciphertext,
                    tag: &tag,
                };
                if encrypt {
                    ops::aead_seal(module, name, &vector)
                } else {
                    ops::aead_check(module, name, &vector, "GCM IV", false)
                }
            }
            Kind::Aead(name) => {
                let key = self.bytes_any(record, &["KEY"])?;
                let nonce = self.bytes_any(record, &["NONCE", "IV"])?;
                let aad = self.optional(record, &["AD", "AAD"])?;
                let plaintext = self.optional(record, &["IN", "PLAINTEXT", "PT"])?;
                let ciphertext = self.optional(record, &["CT", "CIPHERTEXT"])?;
                let tag = self.bytes(record, "TAG")?;
                let vector = AeadVector {
                    key: &key,
                    nonce: &nonce,
                    aad: &aad,
                    plaintext: &plaintext,
                    ciphertext: &ciphertext,
                    tag: &tag,
                };
                let nonce_kind = if name.ends_with("gcm") {
                    "GCM IV"
                } else {
                    "nonce"
                };
                ops::aead_check(module, name, &vector, nonce_kind, false)
            }
            Kind::Xof(name) => {
                let message = self.bytes(record, "Msg")?;
                let expected = self.bytes(record, "Output")?;
                // ShortMsg/LongMsg give `Len` (`Len = 0` comes with `Msg = 00`).
                let bits = if record.has("Len") {
                    self.number(record, "Len")?
                } else {
                    message.len() * 8
                };
                if bits % 8 != 0 {
                    Outcome::unsupported("bit-oriented message")
                } else if message.len() < bits / 8 {
                    return Err(VectorError::malformed(
                        self.label,
                        record.line,
                        format!("vector {}: `Msg` is shorter than `Len`", record.id()),
                    ));
                } else {
                    ops::digest(module, name, &message[..bits / 8], &expected)
                }
            }
            Kind::Digest(name) => {
                let bits = self.number(record, "Len")?;
                let message = self.bytes(record, "Msg")?;
                let expected = self.bytes(record, "MD")?;
                if bits % 8 != 0 {
                    Outcome::unsupported("bit-oriented message")
                } else if message.len() < bits / 8 {
                    return Err(VectorError::malformed(
                        self.label,
                        record.line,
                        format!("vector {}: `Msg` is shorter than `Len`", record.id()),
                    ));
                } else {
                    ops::digest(module, name, &message[..bits / 8], &expected)
                }
            }
            Kind::HmacCavp => {
                let name = match self.number(record, "L")? {
                    20 => "hmac-sha1",
                    28 => "hmac-sha224",
                    32 => "hmac-sha256",
                    48 => "hmac-sha384",
                    64 => "hmac-sha512",
                    other => {
                        return Err(VectorError::malformed(
                            self.label,
                            record.line,
                            format!("HMAC section `[L = {other}]` matches no SHA output length"),
                        ));
                    }
                };
                let key = self.bytes(record, "Key")?;
                let message = self.bytes(record, "Msg")?;
                let tag = self.bytes(record, "Mac")?;
                ops::mac(module, name, &key, &message, &tag)
            }
            Kind::HmacText(name) => {
                let key = self.bytes(record, "Key")?;
                let message = self.bytes(record, "Msg")?;
                let tag = self.bytes(record, "MD")?;
                ops::mac(module, name, &key, &message, &tag)
            }
            Kind::Cmac => {
                let key = self.bytes(record, "KEY")?;
                let message = self.bytes(record, "MESSAGE")?;
                let tag = self.bytes(record, "OUTPUT")?;
                let name = match key.len() {
                    16 => "aes-128-cmac",
                    24 => "aes-192-cmac",
                    _ => "aes-256-cmac",
                };
                ops::mac(module, name, &key, &message, &tag)
            }
            Kind::Hkdf => {
                let hash_value = &self.field(record, "Hash")?.value;
                let hash = hash_field(hash_value).ok_or_else(|| {
                    VectorError::malformed(
                        self.label,
                        record.line,
                        format!("unknown HKDF hash `{hash_value}`"),
                    )
                })?;
                let ikm = self.bytes(record, "IKM")?;
                let salt = self.optional(record, &["salt"])?;
                let info = self.optional(record, &["info"])?;
                let len = self.number(record, "L")?;
                let okm = self.bytes(record, "OKM")?;
                ops::hkdf(
                    module,
                    &format!("hkdf-{hash}"),
                    &ikm,
                    &salt,
                    &info,
                    &okm,
                    len,
                )
            }
            Kind::SigVer(_) => self.sigver(record)?,
            Kind::Ccm => self.ccm(record)?,
            Kind::Xts => self.xts(record)?,
            Kind::KeyWrap(padded) => {
                let kek = self.bytes_any(record, &["K", "Key"])?;
                let wrapped = self.bytes_any(record, &["C", "Output"])?;
                let plaintext = match expect {
                    Expect::Valid => Some(self.bytes_any(record, &["P", "Input"])?),
                    _ => None,
                };
                let mode = if *padded { "kwp" } else { "kw" };
                let name = format!("aes-{}-{mode}", kek.len() * 8);
                ops::key_wrap(module, &name, &kek, plaintext.as_deref(), &wrapped)
            }
            Kind::Kbkdf => self.kbkdf(record)?,
            Kind::Rc4 => {
                let key = self.bytes(record, "KEY")?;
                let offset = match record.get("OFFSET") {
                    Some(_) => self.number(record, "OFFSET")?,
                    None => 0,
                };
                let plaintext = self.bytes(record, "PLAINTEXT")?;
                let ciphertext = self.bytes(record, "CIPHERTEXT")?;
                ops::rc4_at(module, &key, offset, &plaintext, &ciphertext)
            }
            Kind::TdesCbc => {
                // TMOVS keying option 3 files give one key (`KEYs`) for all three.
                let key = match record.get("KEYs") {
                    Some(_) => self.bytes(record, "KEYs")?.repeat(3),
                    None => [
                        self.bytes(record, "KEY1")?,
                        self.bytes(record, "KEY2")?,
                        self.bytes(record, "KEY3")?,
                    ]
                    .concat(),
                };
                let iv = self.bytes(record, "IV")?;
                let plaintext = self.bytes(record, "PLAINTEXT")?;
                let ciphertext = self.bytes(record, "CIPHERTEXT")?;
                ops::cipher(module, "des-ede3-cbc", &key, &iv, &plaintext, &ciphertext)
            }
            Kind::Pkv => {
                let curve = record.bare_header().unwrap_or_default().trim().to_string();
                match ecdsa_for(&curve, None) {
                    Ok((name, field_len)) => {
                        let x = self.integer(record, "Qx")?;
                        let y = self.integer(record, "Qy")?;
                        let point = ops::uncompressed_point(&x, &y, field_len);
                        ops::public_key_check(module, name, &point)
                    }
                    Err(skip) => skip,
                }
            }
            Kind::Cipher(name) => {
                let key = self.bytes(record, "KEY")?;
                // AES files name the mode; the key length picks the variant (aes-128-cbc).
                let name = match name.strip_prefix("aes-") {
                    Some(mode) => format!("aes-{}-{mode}", key.len() * 8),
                    None => name.clone(),
                };
                // Modes Regula lacks (CFB1 writes single bits) are skipped before decoding.
                match ops::algorithm(&name) {
                    Err(skip) => skip,
                    Ok(_) => {
                        let iv = self.optional(record, &["IV"])?;
                        let plaintext = self.bytes(record, "PLAINTEXT")?;
                        let ciphertext = self.bytes(record, "CIPHERTEXT")?;
                        ops::cipher(module, &name, &key, &iv, &plaintext, &ciphertext)
                    }
                }
            }
        };
        self.tally.record(&record.id(), expect, outcome);
        Ok(())
    }

    fn malformed(&self, record: &Record, message: impl std::fmt::Display) -> VectorError {
        VectorError::malformed(
            self.label,
            record.line,
            format!("vector {}: {message}", record.id()),
        )
    }

    /// SP 800-38C CCM: `CT` is the ciphertext followed by the `Tlen`-byte tag; `Adata` and
    /// `Payload` are written `00` when `Alen`/`Plen` is 0. Every vector is decrypted (a
    /// `Result = Fail` one must be refused) and a valid one encrypted again.
    fn ccm(&self, record: &Record) -> Result<Outcome, VectorError> {
        let key = self.bytes(record, "Key")?;
        let nonce = self.bytes(record, "Nonce")?;
        let (alen, plen, tlen) = (
            self.number(record, "Alen")?,
            self.number(record, "Plen")?,
            self.number(record, "Tlen")?,
        );
        let adata = self.bytes(record, "Adata")?;
        let payload = self.optional(record, &["Payload"])?;
        let sealed = self.bytes(record, "CT")?;
        if adata.len() < alen || sealed.len() != plen + tlen {
            return Err(self.malformed(record, "`Adata` or `CT` does not match Alen/Plen/Tlen"));
        }
        let plaintext = if expectation(record) == Expect::Valid {
            payload
                .get(..plen)
                .ok_or_else(|| self.malformed(record, "`Payload` is shorter than `Plen`"))?
        } else {
            &[][..]
        };
        let name = format!("aes-{}-ccm", key.len() * 8);
        let vector = AeadVector {
            key: &key,
            nonce: &nonce,
            aad: &adata[..alen],
            plaintext,
            ciphertext: &sealed[..plen],
            tag: &sealed[plen..],
        };
        Ok(ops::aead_check(self.module, &name, &vector, "nonce", false))
    }

    /// SP 800-38E XTS: the tweak is `i` (128-bit hex) or the data unit sequence number as a
    /// 128-bit little-endian integer (IEEE 1619 §5.1); `DataUnitLen` is in bits.
    fn xts(&self, record: &Record) -> Result<Outcome, VectorError> {
        let key = self.bytes(record, "Key")?;
        let bits = self.number(record, "DataUnitLen")?;
        let tweak = match record.get("i") {
            Some(field) => kv::decode(self.label, field)?,
            None => {
                let field = self.field(record, "DataUnitSeqNumber")?;
                let number: u128 = field.value.trim().parse().map_err(|_| {
                    VectorError::malformed(
                        self.label,
                        field.line,
                        "`DataUnitSeqNumber` is not a number",
                    )
                })?;
                number.to_le_bytes().to_vec()
            }
        };
        let plaintext = self.bytes(record, "PT")?;
        let ciphertext = self.bytes(record, "CT")?;
        if key.len() == 32 {
            return Ok(Outcome::Skip(
                "algorithm not offered by this module: aes-128-xts (AWS-LC offers XTS for \
                 256-bit keys only)"
                    .to_string(),
            ));
        }
        if bits % 8 != 0 {
            return Ok(Outcome::unsupported(format!(
                "XTS data unit of {bits} bits (not a whole number of bytes)"
            )));
        }
        let len = bits / 8;
        if plaintext.len() < len || ciphertext.len() < len {
            return Err(self.malformed(record, "`PT` or `CT` is shorter than `DataUnitLen`"));
        }
        let name = format!("aes-{}-xts", key.len() * 4);
        Ok(ops::cipher(
            self.module,
            &name,
            &key,
            &tweak,
            &plaintext[..len],
            &ciphertext[..len],
        ))
    }

    /// SP 800-108 counter mode. The API's KBKDF has an HMAC-SHA-2 PRF and a 32-bit counter
    /// before the fixed input; other PRFs, counter widths and positions are skipped.
    fn kbkdf(&self, record: &Record) -> Result<Outcome, VectorError> {
        let header = |key: &str| {
            record
                .get(key)
                .map(|field| field.value.trim().to_ascii_uppercase())
                .unwrap_or_default()
        };
        let prf = header("PRF");
        let name = match prf.as_str() {
            "HMAC_SHA256" => "kbkdf-ctr-hmac-sha256",
            "HMAC_SHA384" => "kbkdf-ctr-hmac-sha384",
            "HMAC_SHA512" => "kbkdf-ctr-hmac-sha512",
            other => {
                let prf = other.to_ascii_lowercase().replace('_', "-");
                return Ok(Outcome::not_offered(&format!("kbkdf-ctr-{prf}")));
            }
        };
        match header("CTRLOCATION").as_str() {
            "BEFORE_FIXED" => {}
            "AFTER_FIXED" => {
                return Ok(Outcome::unsupported(
                    "KBKDF counter after the fixed input (the API places it before)",
                ));
            }
            _ => {
                return Ok(Outcome::unsupported(
                    "KBKDF counter in the middle of the fixed input (the API places it before)",
                ));
            }
        }
        let rlen = header("RLEN");
        if rlen != "32_BITS" {
            let bits = rlen.trim_end_matches("_BITS");
            return Ok(Outcome::unsupported(format!(
                "{bits}-bit KBKDF counter (the API's counter has r = 32 bits)"
            )));
        }
        let bits = self.number(record, "L")?;
        let key = self.bytes(record, "KI")?;
        let fixed_input = self.bytes(record, "FixedInputData")?;
        let expected = self.bytes(record, "KO")?;
        if bits % 8 != 0 {
            return Ok(Outcome::unsupported(format!(
                "KBKDF output of {bits} bits (not a whole number of bytes)"
            )));
        }
        if expected.len() != bits / 8 {
            return Err(self.malformed(record, "`KO` is not `L` bits long"));
        }
        if record.get("FixedInputDataByteLen").is_some()
            && self.number(record, "FixedInputDataByteLen")? != fixed_input.len()
        {
            return Err(self.malformed(
                record,
                "`FixedInputData` is not `FixedInputDataByteLen` bytes long",
            ));
        }
        Ok(ops::kbkdf(self.module, name, &key, &fixed_input, &expected))
    }

    fn sigver(&self, record: &Record) -> Result<Outcome, VectorError> {
        let header = record.bare_header().unwrap_or_default();
        // FIPS 186-3 files head each section `[P-256,SHA-256]`; FIPS 186-2 files only name the
        // curve (`[P-256]`), and their signatures all use SHA-1.
        let (curve, hash) = match header.split_once(',') {
            Some(pair) => pair,
            None if header.starts_with(['P', 'K', 'B']) && header.contains('-') => {
                (header, "SHA-1")
            }
            None => {
                return Err(VectorError::malformed(
                    self.label,
                    record.line,
                    format!(
                        "SigVer vector {} is not under a `[curve,hash]` or `[curve]` header",
                        record.id()
                    ),
                ));
            }
        };
        let hash = hash_field(hash.trim()).unwrap_or("unknown hash");
        let (name, field_len) = match ecdsa_for(curve.trim(), Some(hash)) {
            Ok(found) => found,
            Err(skip) => return Ok(skip),
        };
        let message = self.bytes(record, "Msg")?;
        let x = self.integer(record, "Qx")?;
        let y = self.integer(record, "Qy")?;
        let r = self.integer(record, "R")?;
        let s = self.integer(record, "S")?;
        let point = ops::uncompressed_point(&x, &y, field_len);
        let signature = ops::der_signature(&r, &s);
        Ok(ops::verify(self.module, name, &point, &message, &signature))
    }
}

/// The Regula ECDSA algorithm for a NIST curve (and, for signatures, hash), with the field
/// size in bytes; otherwise the skip that explains why not.
fn ecdsa_for(curve: &str, hash: Option<&str>) -> Result<(&'static str, usize), Outcome> {
    let (name, field_len, paired_hash) = match curve {
        "P-256" => ("ecdsa-p256", 32, "sha256"),
        "P-384" => ("ecdsa-p384", 48, "sha384"),
        "P-521" => ("ecdsa-p521", 66, "sha512"),
        other => {
            let short: String = other
                .chars()
                .filter(|c| *c != '-')
                .collect::<String>()
                .to_ascii_lowercase();
            return Err(Outcome::not_offered(&format!("ecdsa-{short}")));
        }
    };
    match hash {
        Some(hash) if hash != paired_hash => Err(Outcome::unsupported(format!(
            "ECDSA {curve} with {hash} (the API pairs {curve} with {paired_hash} only)"
        ))),
        _ => Ok((name, field_len)),
    }
}
