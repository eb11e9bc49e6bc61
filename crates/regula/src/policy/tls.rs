//! TLS protocol rules of a policy.
//!
//! Which cipher suites, key-exchange groups and signature schemes a TLS endpoint may offer is not
//! listed here: `regula-tls` maps each of them to the algorithms it uses and offers it only when
//! the policy approves all of them. What no algorithm row can say — protocol versions and
//! handshake requirements — lives here, one row per built-in profile.

use serde::Serialize;

use super::profile::Profile;

/// Protocol-level TLS rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TlsRules {
    pub tls12: bool,
    pub tls13: bool,
    /// TLS 1.2 connections must negotiate the extended master secret (RFC 7627).
    pub require_extended_master_secret: bool,
}

impl TlsRules {
    /// The built-in rules of a profile.
    pub const fn builtin(profile: Profile) -> TlsRules {
        match profile {
            Profile::Default => TlsRules {
                tls12: true,
                tls13: true,
                require_extended_master_secret: false,
            },
            // SP 800-52 Rev. 2 §3.1: TLS 1.2 and 1.3 only; FIPS 140-3 IG D.Q: the TLS 1.2 KDF
            // is approved only with the extended master secret.
            Profile::Fips1403 => TlsRules {
                tls12: true,
                tls13: true,
                require_extended_master_secret: true,
            },
            // RFC 8998 defines the SM cipher suites for TLS 1.3 only.
            // CNSA 2.0 (NSA, CNSA 2.0 FAQ, and RFC 9151 for the CNSA 1.0 profile of TLS): TLS 1.3.
            Profile::Cnsa20 => TlsRules {
                tls12: false,
                tls13: true,
                require_extended_master_secret: false,
            },
            Profile::Gm => TlsRules {
                tls12: false,
                tls13: true,
                require_extended_master_secret: false,
            },
        }
    }

    /// Protocol names as written in policy files and reports.
    pub fn versions(&self) -> Vec<&'static str> {
        let mut versions = Vec::new();
        if self.tls12 {
            versions.push("1.2");
        }
        if self.tls13 {
            versions.push("1.3");
        }
        versions
    }
}
