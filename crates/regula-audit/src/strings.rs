//! Searching the data sections of one file: version strings, Rust crate source paths and
//! Regula's identity record.

use std::collections::{BTreeMap, BTreeSet};

use memchr::memmem;

/// The data regions of one file, searched for strings.
pub(crate) struct Strings<'a> {
    regions: Vec<&'a [u8]>,
}

impl<'a> Strings<'a> {
    pub(crate) fn new(data: &'a [u8], regions: &[(usize, usize)]) -> Strings<'a> {
        Strings {
            regions: regions
                .iter()
                .map(|&(offset, size)| &data[offset..offset + size])
                .collect(),
        }
    }

    /// Every occurrence of `needle`, as the bytes that follow it (up to `after` of them).
    pub(crate) fn find_after(&self, needle: &[u8], after: usize) -> Vec<&'a [u8]> {
        let finder = memmem::Finder::new(needle);
        let mut found = Vec::new();
        for region in &self.regions {
            for at in finder.find_iter(region) {
                let start = at + needle.len();
                let end = (start + after).min(region.len());
                found.push(&region[start..end]);
                if found.len() > 10_000 {
                    return found;
                }
            }
        }
        found
    }

    pub(crate) fn contains(&self, needle: &[u8]) -> bool {
        let finder = memmem::Finder::new(needle);
        self.regions.iter().any(|r| finder.find(r).is_some())
    }

    pub(crate) fn regula_identity(&self) -> Option<regula::identity::Identity> {
        let marker = regula::identity::MARKER.as_bytes();
        self.find_after(marker, 300).into_iter().find_map(|rest| {
            let mut record = marker.to_vec();
            record.extend_from_slice(rest);
            regula::identity::parse(&record)
        })
    }

    /// Crates whose source paths (`…/registry/src/<index>/<crate>-<version>/…`, kept in panic
    /// locations even in stripped Rust binaries) appear, with their versions.
    pub(crate) fn rust_crates(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut crates: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for rest in self.find_after(b"/registry/src/", 200) {
            let Some(slash) = rest.iter().position(|&b| b == b'/') else {
                continue;
            };
            let rest = &rest[slash + 1..];
            let end = rest
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b"-_.+".contains(&b)))
                .unwrap_or(rest.len());
            if rest.get(end) != Some(&b'/') {
                continue;
            }
            let Ok(dir) = std::str::from_utf8(&rest[..end]) else {
                continue;
            };
            if let Some((name, version)) = split_crate_dir(dir) {
                crates
                    .entry(name.replace('-', "_"))
                    .or_default()
                    .insert(version.to_string());
            }
        }
        crates
    }
}

/// `aes-gcm-0.10.3` → (`aes-gcm`, `0.10.3`).
fn split_crate_dir(dir: &str) -> Option<(&str, &str)> {
    let mut search = dir;
    while let Some(dash) = search.rfind('-') {
        let (name, version) = (&dir[..dash], &dir[dash + 1..]);
        if version.starts_with(|c: char| c.is_ascii_digit()) && version.contains('.') {
            if name.is_empty() {
                return None;
            }
            return Some((name, version));
        }
        search = &dir[..dash];
    }
    None
}

/// A dotted version number right after `needle`, e.g. `5.12.0`.
pub(crate) fn version_after(strings: &Strings<'_>, needle: &[u8]) -> Option<String> {
    strings.find_after(needle, 24).into_iter().find_map(|rest| {
        let end = rest
            .iter()
            .position(|&b| !(b.is_ascii_digit() || b == b'.'))
            .unwrap_or(rest.len());
        let version = std::str::from_utf8(&rest[..end]).ok()?;
        let parts: Vec<&str> = version.split('.').collect();
        (parts.len() >= 2 && parts.iter().all(|p| !p.is_empty())).then(|| version.to_string())
    })
}

/// OpenSSL's version text: `OpenSSL 3.0.19 27 Jan 2026` (a date after the version).
pub(crate) fn openssl_version(strings: &Strings<'_>) -> Option<String> {
    strings
        .find_after(b"OpenSSL ", 40)
        .into_iter()
        .find_map(|rest| {
            let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            let text = std::str::from_utf8(&rest[..end]).ok()?;
            let mut words = text.split(' ');
            let version = words.next()?;
            let numeric = version.trim_end_matches(|c: char| c.is_ascii_lowercase() || c == '-');
            let parts: Vec<&str> = numeric.split('.').collect();
            if parts.len() != 3
                || !parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            {
                return None;
            }
            let rest: Vec<&str> = words.collect();
            let dated = rest.len() >= 3
                && rest[0].bytes().all(|b| b.is_ascii_digit())
                && rest[1].len() == 3
                && rest[2].len() == 4
                && rest[2].bytes().all(|b| b.is_ascii_digit());
            dated.then(|| version.to_string())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(data: &[u8]) -> Strings<'_> {
        Strings::new(data, &[(0, data.len())])
    }

    #[test]
    fn crate_directories_split_at_the_version() {
        assert_eq!(
            split_crate_dir("aes-gcm-0.10.3"),
            Some(("aes-gcm", "0.10.3"))
        );
        assert_eq!(
            split_crate_dir("aws-lc-sys-0.47.0"),
            Some(("aws-lc-sys", "0.47.0"))
        );
        assert_eq!(
            split_crate_dir("ml-kem-0.3.0-rc.1"),
            Some(("ml-kem", "0.3.0-rc.1"))
        );
        assert_eq!(split_crate_dir("ring"), None);
        assert_eq!(split_crate_dir("sha2-latest"), None);
        assert_eq!(split_crate_dir("-1.0"), None);
    }

    #[test]
    fn crate_source_paths_give_names_and_versions() {
        let data = b"\0/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/sha2-0.10.9/src/lib.rs\0\
            /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/aes-gcm-0.10.3/src/lib.rs\0\
            /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/sha2-0.11.0/src/core_api.rs\0\
            /registry/src/no-slash-after-this";
        let crates = strings(data).rust_crates();
        let names: Vec<&str> = crates.keys().map(String::as_str).collect();
        assert_eq!(names, ["aes_gcm", "sha2"]);
        let sha2: Vec<&str> = crates["sha2"].iter().map(String::as_str).collect();
        assert_eq!(sha2, ["0.10.9", "0.11.0"]);
    }

    #[test]
    fn dotted_versions_after_a_needle() {
        let data = b"\0AWS-LC FIPS 3.0.0\0AWS-LC FIPS x\0";
        assert_eq!(
            version_after(&strings(data), b"AWS-LC FIPS "),
            Some("3.0.0".to_string())
        );
        assert_eq!(version_after(&strings(b"\0AWS-LC 1\0"), b"AWS-LC "), None);
        assert_eq!(version_after(&strings(b"\0AWS-LC 1.\0"), b"AWS-LC "), None);
        assert_eq!(version_after(&strings(b"AWS-LC "), b"AWS-LC "), None);
    }

    #[test]
    fn openssl_versions_need_the_release_date() {
        let version = |data: &[u8]| openssl_version(&strings(data));
        assert_eq!(
            version(b"\0OpenSSL 3.0.19 27 Jan 2026\0"),
            Some("3.0.19".to_string())
        );
        assert_eq!(
            version(b"\0OpenSSL 3.5.0-dev 8 Apr 2025\0"),
            Some("3.5.0-dev".to_string())
        );
        // AWS-LC and BoringSSL describe themselves as compatible: no OpenSSL.
        assert_eq!(version(b"\0OpenSSL 1.1.1 (compatible; BoringSSL)\0"), None);
        assert_eq!(version(b"\0OpenSSL 3.0\0"), None);
        assert_eq!(version(b"\0OpenSSL 3.0.19\0"), None);
    }

    #[test]
    fn a_regula_identity_record_is_read_and_a_bare_marker_is_not_one() {
        let data = b"xx\0REGULA-MODULE-IDENTITY/1 version=0.1.0 fips=on module=aws-lc-fips-sys policy=default\0yy";
        let identity = strings(data).regula_identity().expect("a record");
        assert_eq!(
            identity,
            regula::identity::Identity {
                version: "0.1.0".into(),
                fips: true,
                module: "aws-lc-fips-sys".into(),
                policy: "default".into(),
            }
        );
        assert_eq!(
            strings(b"\0REGULA-MODULE-IDENTITY/1\0").regula_identity(),
            None
        );
    }

    #[test]
    fn contains_searches_every_region() {
        let data = b"aaaa_goboringcrypto_bbbb";
        let split = Strings::new(data, &[(0, 4), (4, 20)]);
        assert!(split.contains(b"_goboringcrypto_"));
        let first_only = Strings::new(data, &[(0, 8)]);
        assert!(!first_only.contains(b"_goboringcrypto_"));
    }
}
