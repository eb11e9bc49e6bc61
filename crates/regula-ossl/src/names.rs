//! OpenSSL's names for the registry rows: which row a name given by OpenSSL (`SHA256`,
//! `aes-128-cbc`, `SM3`) means, and which MAC or KDF row a name plus its parameter means.

use std::collections::HashMap;
use std::sync::OnceLock;

use regula::{Algorithm, Family, registry};

/// The rows' OpenSSL names, indexed once: libssl and applications fetch by name and set
/// `digest`/`cipher` parameters on every handshake, and scanning the registry's name lists
/// each time was a measurable share of a TLS server's time.
struct Index {
    /// Lower-case name → the first row (in the registry's order) with that name.
    by_name: HashMap<String, Algorithm>,
    /// (family, lower-case name) → the first row of that family with that name.
    by_family_name: HashMap<(Family, String), Algorithm>,
    /// (lower-case operation name, parameter key, the row the parameter's value names) → the
    /// first row under that operation with that parameter.
    by_param: HashMap<(String, String, Algorithm), Algorithm>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = Index {
            by_name: HashMap::new(),
            by_family_name: HashMap::new(),
            by_param: HashMap::new(),
        };
        for algorithm in Algorithm::ALL {
            let row = registry::entry(algorithm);
            let Some(openssl) = &row.openssl else {
                continue;
            };
            for name in openssl.names.split(':') {
                let name = name.to_ascii_lowercase();
                index
                    .by_family_name
                    .entry((row.family, name.clone()))
                    .or_insert(algorithm);
                index.by_name.entry(name).or_insert(algorithm);
            }
        }
        for algorithm in Algorithm::ALL {
            let Some(openssl) = &registry::entry(algorithm).openssl else {
                continue;
            };
            let operation = openssl.canonical().to_ascii_lowercase();
            for &(key, value) in openssl.params {
                if let Some(&named) = index.by_name.get(&value.to_ascii_lowercase()) {
                    index
                        .by_param
                        .entry((operation.clone(), key.to_owned(), named))
                        .or_insert(algorithm);
                }
            }
        }
        index
    })
}

/// The row whose OpenSSL names include `name` (OpenSSL compares names case-insensitively).
pub fn row_named(name: &str) -> Option<Algorithm> {
    index().by_name.get(&name.to_ascii_lowercase()).copied()
}

/// [`row_named`] among the rows of one family (`SHA256` as a digest).
pub fn row_named_in(family: Family, name: &str) -> Option<Algorithm> {
    index()
        .by_family_name
        .get(&(family, name.to_ascii_lowercase()))
        .copied()
}

/// The rows offered under the OpenSSL algorithm `operation_name` (e.g. every `HMAC` row).
pub fn rows_under(operation_name: &str) -> impl Iterator<Item = Algorithm> + '_ {
    Algorithm::ALL.into_iter().filter(move |&algorithm| {
        registry::entry(algorithm)
            .openssl
            .as_ref()
            .is_some_and(|openssl| openssl.canonical().eq_ignore_ascii_case(operation_name))
    })
}

/// The row under `operation_name` whose parameter `key` (`digest`, `cipher`) names the same
/// row as `value`: `HMAC` + `digest` = `SHA256` is the `hmac-sha256` row.
pub fn row_with_param(operation_name: &str, key: &str, value: &str) -> Option<Algorithm> {
    let wanted = row_named(value)?;
    index()
        .by_param
        .get(&(operation_name.to_ascii_lowercase(), key.to_owned(), wanted))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openssl_aliases_name_their_rows() {
        assert_eq!(row_named("sha256"), Some(Algorithm::Sha256));
        assert_eq!(row_named("SHA2-256"), Some(Algorithm::Sha256));
        assert_eq!(row_named("AES128"), Some(Algorithm::Aes128Cbc));
        assert_eq!(row_named("no-such-thing"), None);
    }

    #[test]
    fn mac_rows_are_found_by_their_parameter() {
        assert_eq!(
            row_with_param("HMAC", "digest", "SHA256"),
            Some(Algorithm::HmacSha256)
        );
        assert_eq!(
            row_with_param("HMAC", "digest", "sm3"),
            Some(Algorithm::HmacSm3)
        );
        assert_eq!(
            row_with_param("CMAC", "cipher", "AES-256-CBC"),
            Some(Algorithm::Aes256Cmac)
        );
        assert_eq!(
            row_with_param("CMAC", "cipher", "SM4-CBC"),
            Some(Algorithm::Sm4Cmac)
        );
        assert_eq!(
            row_with_param("GMAC", "cipher", "aes-128-gcm"),
            Some(Algorithm::Aes128Gmac)
        );
        assert_eq!(row_with_param("HMAC", "digest", "SHA3-256"), None);
    }
}
