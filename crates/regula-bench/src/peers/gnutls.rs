//! `gnutls-cli --benchmark-ciphers` as a peer. It measures one payload size (16384 bytes), takes
//! about two minutes and has no way to select algorithms, so it runs once per benchmark and its
//! figures stand beside Regula's 16384-byte column only.

use std::collections::BTreeMap;
use std::process::Command;

use regula::Algorithm;

/// The payload size GnuTLS's cipher benchmark uses.
pub const PAYLOAD: usize = 16384;

/// Runs the benchmark and returns MB/s keyed by (section, GnuTLS name).
pub fn run() -> Result<BTreeMap<(String, String), f64>, String> {
    let output = Command::new("gnutls-cli")
        .arg("--benchmark-ciphers")
        .output()
        .map_err(|_| {
            "`gnutls-cli` not found: install GnuTLS's tools (Debian: apt-get install gnutls-bin)"
                .to_string()
        })?;
    if !output.status.success() {
        return Err("gnutls-cli --benchmark-ciphers failed".to_string());
    }
    Ok(parse(&String::from_utf8_lossy(&output.stdout)))
}

/// Parses `Checking <section>, payload size: N` headers and `NAME <rate> GB/sec|MB/sec` lines.
pub fn parse(output: &str) -> BTreeMap<(String, String), f64> {
    let mut results = BTreeMap::new();
    let mut section = String::new();
    for line in output.lines() {
        if let Some(rest) = line.strip_prefix("Checking ") {
            section = rest.split(',').next().unwrap_or("").to_string();
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if let [name, rate, unit] = fields[..] {
            let scale = match unit {
                "GB/sec" => 1000.0,
                "MB/sec" => 1.0,
                "KB/sec" => 0.001,
                _ => continue,
            };
            if let Ok(rate) = rate.parse::<f64>() {
                results.insert((section.clone(), name.to_string()), rate * scale);
            }
        }
    }
    results
}

/// Where GnuTLS reports the same algorithm, if it does.
pub fn name(algorithm: Algorithm) -> Option<(&'static str, &'static str)> {
    match algorithm {
        Algorithm::Aes128Gcm => Some(("AEAD ciphers", "AES-128-GCM")),
        Algorithm::Aes128Ccm => Some(("AEAD ciphers", "AES-128-CCM")),
        Algorithm::Aes256Xts => Some(("ciphers", "AES-256-XTS")),
        Algorithm::DesEde3Cbc => Some(("ciphers", "3DES-CBC")),
        Algorithm::HmacSha1 => Some(("MAC algorithms", "SHA1")),
        Algorithm::ChaCha20Poly1305 => Some(("AEAD ciphers", "CHACHA20-POLY1305")),
        Algorithm::Aes128Cbc => Some(("ciphers", "AES-128-CBC")),
        Algorithm::HmacSha256 => Some(("MAC algorithms", "SHA256")),
        Algorithm::HmacSha512 => Some(("MAC algorithms", "SHA512")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_recorded_benchmark() {
        // Recorded on the development machine with GnuTLS 3.7 (Debian 12).
        let results = parse(include_str!(
            "../../tests/data/gnutls-cli-benchmark-ciphers.txt"
        ));
        let rate = |algorithm| {
            let (section, name) = name(algorithm).unwrap();
            results
                .get(&(section.to_string(), name.to_string()))
                .copied()
        };
        assert_eq!(rate(Algorithm::Aes128Gcm), Some(4010.0));
        assert_eq!(rate(Algorithm::ChaCha20Poly1305), Some(310.0));
        assert_eq!(rate(Algorithm::Aes128Cbc), Some(1410.0));
        assert_eq!(rate(Algorithm::HmacSha256), Some(1770.0));
        // AES-128-CBC-SHA1 is a cipher-MAC combination, not the plain cipher.
        assert!(results.contains_key(&(
            "cipher-MAC combinations".to_string(),
            "AES-128-CBC-SHA1".to_string()
        )));
        assert_eq!(
            results.get(&("ciphers".to_string(), "GOST28147-TC26Z-CNT".to_string())),
            Some(&79.99)
        );
    }

    #[test]
    fn finds_ccm_xts_3des_and_hmac_sha1_in_a_mixed_unit_run() {
        // `gnutls-cli --benchmark-ciphers`, GnuTLS 3.7.9 (Debian 12), recorded on the development
        // machine: AES-128-CCM in MB/sec beside AES-128-GCM in GB/sec.
        let results = parse(include_str!(
            "../../tests/data/gnutls-cli-3.7.9-benchmark-ciphers.txt"
        ));
        let rate = |algorithm| {
            let (section, name) = name(algorithm)?;
            results
                .get(&(section.to_string(), name.to_string()))
                .copied()
        };
        assert_eq!(rate(Algorithm::Aes128Ccm), Some(824.65));
        assert_eq!(rate(Algorithm::Aes128Gcm), Some(4470.0));
        assert_eq!(rate(Algorithm::Aes256Xts), Some(6400.0));
        assert_eq!(rate(Algorithm::DesEde3Cbc), Some(30.60));
        assert_eq!(rate(Algorithm::HmacSha1), Some(1840.0));
        // GnuTLS's benchmark has no GMAC, CMAC, AES-256-CCM, CFB8, MD5 or RC4.
        for missing in [
            Algorithm::Aes128Gmac,
            Algorithm::Aes128Cmac,
            Algorithm::Aes256Ccm,
            Algorithm::Aes128Cfb8,
            Algorithm::Md5,
            Algorithm::Rc4,
        ] {
            assert_eq!(rate(missing), None, "{missing}");
        }
        // Every one of the 20 result lines, in four sections.
        assert_eq!(results.len(), 20);
    }
}
