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
}
