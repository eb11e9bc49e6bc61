//! OpenSSL's names for the registry rows: which row a name given by OpenSSL (`SHA256`,
//! `aes-128-cbc`, `SM3`) means, and which MAC or KDF row a name plus its parameter means.

use regula::{Algorithm, Family, registry};

/// The row whose OpenSSL names include `name` (OpenSSL compares names case-insensitively).
pub fn row_named(name: &str) -> Option<Algorithm> {
    Algorithm::ALL
        .into_iter()
        .find(|&algorithm| has_name(algorithm, name))
}

/// [`row_named`] among the rows of one family (`SHA256` as a digest).
pub fn row_named_in(family: Family, name: &str) -> Option<Algorithm> {
    Algorithm::ALL
        .into_iter()
        .find(|&algorithm| registry::entry(algorithm).family == family && has_name(algorithm, name))
}

fn has_name(algorithm: Algorithm, name: &str) -> bool {
    registry::entry(algorithm)
        .openssl
        .as_ref()
        .is_some_and(|openssl| {
            openssl
                .names
                .split(':')
                .any(|n| n.eq_ignore_ascii_case(name))
        })
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
    rows_under(operation_name).find(|&algorithm| {
        registry::entry(algorithm)
            .openssl
            .as_ref()
            .is_some_and(|openssl| {
                openssl
                    .params
                    .iter()
                    .any(|(k, v)| *k == key && row_named(v) == Some(wanted))
            })
    })
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
