//! PBKDF2, KDA HKDF, the TLS 1.2 PRF (RFC 7627 extended master secret) and the TLS 1.3 key
//! schedule, through `Module::pbkdf2`, `Module::hkdf`, `Module::tls12_prf`,
//! `Module::hkdf_extract`/`hkdf_expand` and `Module::digest`.

use regula::{Algorithm, Module};
use serde_json::Value;

use super::{Case, Verdict, hex_field, number_field, text_field, through_module, unsupported};
use crate::tally::{Expect, Outcome};

/// Regula's `PREFIX-sha…` algorithm for ACVP's hash name.
fn by_hash(prefix: &str, acvp_hash: &str) -> Result<Algorithm, (Expect, Outcome)> {
    let hash = match acvp_hash {
        "SHA2-256" => Some("sha256"),
        "SHA2-384" => Some("sha384"),
        "SHA2-512" => Some("sha512"),
        _ => None,
    };
    hash.and_then(|hash| Algorithm::from_name(&format!("{prefix}-{hash}")))
        .ok_or_else(|| unsupported(format!("{} with {acvp_hash}", prefix.to_uppercase())))
}

fn bytes_of(bits: u64) -> Result<usize, String> {
    if !bits.is_multiple_of(8) {
        return Err(format!("a length of {bits} bits is not whole bytes"));
    }
    usize::try_from(bits / 8).map_err(|_| "length out of range".to_string())
}

fn compare_output(ours: &[u8], expected: &[u8], what: &str) -> Outcome {
    if ours == expected {
        Outcome::Accepted
    } else {
        Outcome::WrongOutput(format!("`{what}` differs from the expected answer"))
    }
}

/// PBKDF (SP 800-132): the password is text, the salt hex.
pub(super) fn pbkdf(case: &Case<'_>) -> Verdict {
    let algorithm = match by_hash("pbkdf2", case.group_text("hmacAlg")?) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    let password = text_field(case.test, "password")?.as_bytes().to_vec();
    let salt = case.hex("salt")?;
    let iterations = u32::try_from(number_field(case.test, "iterationCount")?)
        .map_err(|_| "`iterationCount` out of range")?;
    let len = bytes_of(number_field(case.test, "keyLen")?)?;
    let expected = case.expected_hex("derivedKey")?;
    Ok(through_module(Expect::Valid, || {
        let derived = case
            .module
            .pbkdf2(algorithm, &password, &salt, iterations, len)?;
        case.respond_hex("derivedKey", &derived);
        Ok(compare_output(&derived, &expected, "derivedKey"))
    }))
}

/// SP 800-56C fixed info `partyId || ephemeralData` of one party.
fn party_info(value: &Value) -> Result<Vec<u8>, String> {
    let mut info = hex_field(value, "partyId")?;
    if value.get("ephemeralData").is_some() {
        info.extend(hex_field(value, "ephemeralData")?);
    }
    Ok(info)
}

/// KDA (SP 800-56C Rev. 2) in HKDF mode, fixed info by concatenation; AFT (produce `dkm`) and
/// VAL (say whether the given `dkm` is right).
pub(super) fn kda(case: &Case<'_>) -> Verdict {
    let config = case
        .group
        .get("kdfConfiguration")
        .ok_or("group: no object field `kdfConfiguration`")?;
    let kdf_type = text_field(config, "kdfType")?;
    if kdf_type != "hkdf" {
        return Ok(unsupported(format!("KDA {kdf_type} (no such KDF service)")));
    }
    let algorithm = match by_hash("hkdf", text_field(config, "hmacAlg")?) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    let encoding = text_field(config, "fixedInfoEncoding")?;
    if encoding != "concatenation" {
        return Ok(unsupported(format!("KDA fixed info encoding `{encoding}`")));
    }
    let parameter = case
        .test
        .get("kdfParameter")
        .ok_or("no object field `kdfParameter`")?;
    let z = hex_field(parameter, "z")?;
    let salt = hex_field(parameter, "salt")?;
    let l_bits = number_field(parameter, "l")?;
    let len = bytes_of(l_bits)?;
    let mut fixed_info = Vec::new();
    for part in text_field(config, "fixedInfoPattern")?.split("||") {
        match part {
            "uPartyInfo" => fixed_info.extend(party_info(
                case.test
                    .get("fixedInfoPartyU")
                    .ok_or("no object field `fixedInfoPartyU`")?,
            )?),
            "vPartyInfo" => fixed_info.extend(party_info(
                case.test
                    .get("fixedInfoPartyV")
                    .ok_or("no object field `fixedInfoPartyV`")?,
            )?),
            "l" => fixed_info.extend(
                u32::try_from(l_bits)
                    .map_err(|_| "`l` out of range")?
                    .to_be_bytes(),
            ),
            other => {
                if let Some(literal) = other
                    .strip_prefix("literal[")
                    .and_then(|rest| rest.strip_suffix(']'))
                {
                    fixed_info.extend(
                        hex::decode(literal).map_err(|error| format!("bad literal: {error}"))?,
                    );
                } else {
                    return Ok(unsupported(format!("KDA fixed info field `{other}`")));
                }
            }
        }
    }
    match case.group_text("testType")? {
        "AFT" => {
            let expected = case.expected_hex("dkm")?;
            Ok(through_module(Expect::Valid, || {
                let dkm = case.module.hkdf(algorithm, &z, &salt, &fixed_info, len)?;
                case.respond_hex("dkm", &dkm);
                Ok(compare_output(&dkm, &expected, "dkm"))
            }))
        }
        "VAL" => {
            let given = case.hex("dkm")?;
            let expect = case.verdict_expect()?;
            Ok(through_module(expect, || {
                let dkm = case.module.hkdf(algorithm, &z, &salt, &fixed_info, len)?;
                Ok(if dkm.as_slice() == given.as_slice() {
                    Outcome::Accepted
                } else {
                    Outcome::Rejected("the given `dkm` is not the derived one".into())
                })
            }))
        }
        other => Ok(unsupported(format!("KDA {other} tests"))),
    }
}

/// TLS 1.2 KDF (SP 800-135 §4.2): the master secret (RFC 7627's extended master secret from
/// `sessionHash`, or RFC 5246's from the hello randoms) and the key block.
pub(super) fn tls12(case: &Case<'_>) -> Verdict {
    let algorithm = match by_hash("tls12-prf", case.group_text("hashAlg")?) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    let pre_master = case.hex("preMasterSecret")?;
    let client_random = case.hex("clientRandom")?;
    let server_random = case.hex("serverRandom")?;
    let key_block_len = bytes_of(case.group_number("keyBlockLength")?)?;
    let mut master_seed;
    if case.test.get("sessionHash").is_some() {
        master_seed = b"extended master secret".to_vec();
        master_seed.extend(case.hex("sessionHash")?);
    } else {
        master_seed = b"master secret".to_vec();
        master_seed.extend(case.hex("clientHelloRandom")?);
        master_seed.extend(case.hex("serverHelloRandom")?);
    }
    let mut key_seed = b"key expansion".to_vec();
    key_seed.extend(&server_random);
    key_seed.extend(&client_random);
    let expected_master = case.expected_hex("masterSecret")?;
    let expected_block = case.expected_hex("keyBlock")?;
    Ok(through_module(Expect::Valid, || {
        let master = case
            .module
            .tls12_prf(algorithm, &pre_master, &master_seed, 48)?;
        if master.as_slice() != expected_master.as_slice() {
            return Ok(Outcome::WrongOutput(
                "`masterSecret` differs from the expected answer".into(),
            ));
        }
        let block = case
            .module
            .tls12_prf(algorithm, &master, &key_seed, key_block_len)?;
        Ok(compare_output(&block, &expected_block, "keyBlock"))
    }))
}

/// The TLS 1.3 key schedule (RFC 8446 §7.1) composed from the module's HKDF-Extract,
/// HKDF-Expand and digest services, with ACVP's transcripts: ClientHello = the client hello
/// random, ServerHello adds the server hello random, server Finished adds its random, client
/// Finished adds its own.
struct Tls13<'a> {
    module: &'a Module,
    hkdf: Algorithm,
    hash: Algorithm,
    hash_len: usize,
}

impl Tls13<'_> {
    fn expand_label(
        &self,
        secret: &[u8],
        label: &str,
        context: &[u8],
    ) -> Result<Vec<u8>, regula::Error> {
        let full = format!("tls13 {label}");
        let mut info = (self.hash_len as u16).to_be_bytes().to_vec();
        info.push(full.len() as u8);
        info.extend_from_slice(full.as_bytes());
        info.push(context.len() as u8);
        info.extend_from_slice(context);
        Ok(self
            .module
            .hkdf_expand(self.hkdf, secret, &info, self.hash_len)?
            .to_vec())
    }

    fn derive_secret(
        &self,
        secret: &[u8],
        label: &str,
        transcript: &[&[u8]],
    ) -> Result<Vec<u8>, regula::Error> {
        let hash = self
            .module
            .digest(self.hash, &transcript.concat())?
            .into_value();
        self.expand_label(secret, label, &hash)
    }

    fn extract(&self, salt: &[u8], ikm: &[u8]) -> Result<Vec<u8>, regula::Error> {
        Ok(self.module.hkdf_extract(self.hkdf, ikm, salt)?.to_vec())
    }
}

pub(super) fn tls13(case: &Case<'_>) -> Verdict {
    let acvp_hash = case.group_text("hmacAlg")?;
    let hkdf = match by_hash("hkdf", acvp_hash) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    let Some(hash) = super::hash::regula_name(acvp_hash).and_then(Algorithm::from_name) else {
        return Ok(unsupported(acvp_hash));
    };
    let hash_len = match acvp_hash {
        "SHA2-256" => 32,
        "SHA2-384" => 48,
        _ => 64,
    };
    let running_mode = case.group_text("runningMode")?;
    let zeros = vec![0u8; hash_len];
    let psk = if running_mode.contains("PSK") {
        case.hex("psk")?
    } else {
        zeros.clone()
    };
    let dhe = if running_mode.contains("DHE") {
        case.hex("dhe")?
    } else {
        zeros.clone()
    };
    let hello_client = case.hex("helloClientRandom")?;
    let hello_server = case.hex("helloServerRandom")?;
    let finished_server = case.hex("finishedServerRandom")?;
    let finished_client = case.hex("finishedClientRandom")?;
    const OUTPUTS: [&str; 8] = [
        "clientEarlyTrafficSecret",
        "earlyExporterMasterSecret",
        "clientHandshakeTrafficSecret",
        "serverHandshakeTrafficSecret",
        "clientApplicationTrafficSecret",
        "serverApplicationTrafficSecret",
        "exporterMasterSecret",
        "resumptionMasterSecret",
    ];
    let expected = OUTPUTS
        .iter()
        .map(|key| case.expected_hex(key))
        .collect::<Result<Vec<_>, _>>()?;
    let schedule = Tls13 {
        module: case.module,
        hkdf,
        hash,
        hash_len,
    };
    Ok(through_module(Expect::Valid, || {
        let ch: &[&[u8]] = &[&hello_client];
        let sh: &[&[u8]] = &[&hello_client, &hello_server];
        let sf: &[&[u8]] = &[&hello_client, &hello_server, &finished_server];
        let cf: &[&[u8]] = &[
            &hello_client,
            &hello_server,
            &finished_server,
            &finished_client,
        ];
        let early = schedule.extract(&zeros, &psk)?;
        let early_derived = schedule.derive_secret(&early, "derived", &[])?;
        let handshake = schedule.extract(&early_derived, &dhe)?;
        let handshake_derived = schedule.derive_secret(&handshake, "derived", &[])?;
        let master = schedule.extract(&handshake_derived, &zeros)?;
        let ours = [
            schedule.derive_secret(&early, "c e traffic", ch)?,
            schedule.derive_secret(&early, "e exp master", ch)?,
            schedule.derive_secret(&handshake, "c hs traffic", sh)?,
            schedule.derive_secret(&handshake, "s hs traffic", sh)?,
            schedule.derive_secret(&master, "c ap traffic", sf)?,
            schedule.derive_secret(&master, "s ap traffic", sf)?,
            schedule.derive_secret(&master, "exp master", sf)?,
            schedule.derive_secret(&master, "res master", cf)?,
        ];
        for ((name, ours), expected) in OUTPUTS.iter().zip(&ours).zip(&expected) {
            if ours != expected {
                return Ok(Outcome::WrongOutput(format!(
                    "`{name}` differs from the expected answer"
                )));
            }
        }
        Ok(Outcome::Accepted)
    }))
}

/// KDF (SP 800-108r1 KBKDF) through `Module::kbkdf`: counter mode with an HMAC-SHA2 PRF and a
/// 32-bit counter before the fixed data, the one construction the module serves
/// (`kbkdf-ctr-hmac-sha*`). Other modes, PRFs, counter lengths and places, and outputs that
/// are not whole bytes are skipped, each with its reason.
pub(super) fn kbkdf(case: &Case<'_>) -> Verdict {
    let mode = case.group_text("kdfMode")?;
    if mode != "counter" {
        return Ok(unsupported(format!(
            "KBKDF in {mode} mode (the module serves counter mode)"
        )));
    }
    let mac = case.group_text("macMode")?;
    let Some(hash) = mac.strip_prefix("HMAC-") else {
        return Ok(unsupported(format!(
            "KBKDF with {mac} (the module's KBKDF PRF is HMAC)"
        )));
    };
    let algorithm = match by_hash("kbkdf-ctr-hmac", hash) {
        Ok(algorithm) => algorithm,
        Err(skip) => return Ok(skip),
    };
    let counter_bits = case.group_number("counterLength")?;
    if counter_bits != 32 {
        return Ok(unsupported(format!(
            "KBKDF with a {counter_bits}-bit counter (the module's is 32 bits)"
        )));
    }
    let location = case.group_text("counterLocation")?;
    if location != "before fixed data" {
        return Ok(unsupported(format!(
            "KBKDF with the counter {location} (the module puts it before the fixed data)"
        )));
    }
    let out_bits = case.group_number("keyOutLength")?;
    if !out_bits.is_multiple_of(8) {
        return Ok(unsupported(format!(
            "KBKDF output of {out_bits} bits (not a whole number of bytes)"
        )));
    }
    let len = bytes_of(out_bits)?;
    let key = case.hex("keyIn")?;
    let fixed = case.hex("fixedData")?;
    let expected = case.expected_hex("keyOut")?;
    Ok(through_module(Expect::Valid, || {
        let derived = case
            .module
            .kbkdf(algorithm, &key, &fixed, len)?
            .into_value();
        case.respond_hex("keyOut", &derived);
        Ok(compare_output(&derived, &expected, "keyOut"))
    }))
}
