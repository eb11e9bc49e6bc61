//! Protocols' parameter sets, judged by a policy: what SMB 2/3 (and the NTLM under it) ask of
//! the module, so that `regula policy show` can say honestly what each gets — approved, served
//! but not approved, or refused — from the same rules every service applies.

use serde::Serialize;

use super::resolved::Policy;
use super::rules::{Approval, Status, Usage};
use crate::algorithm::Algorithm;
use crate::error::Error;

/// One way a protocol uses an algorithm.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ParameterSet {
    pub protocol: &'static str,
    /// What the protocol uses it for, with the parameters that matter.
    pub usage: &'static str,
    #[serde(serialize_with = "algorithm_name")]
    pub algorithm: Algorithm,
    #[serde(skip)]
    pub request: Usage,
}

fn algorithm_name<S: serde::Serializer>(
    algorithm: &Algorithm,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(algorithm.name())
}

/// A policy's verdict on one parameter set.
#[derive(Clone, Debug, Serialize)]
pub struct ParameterSetVerdict {
    #[serde(flatten)]
    pub set: ParameterSet,
    /// `approved`, `not-approved` (served, flagged) or `refused`.
    pub verdict: &'static str,
    pub reason: Option<String>,
}

/// A request with nothing that limits apply to (`Usage::default()`, which is not `const`).
const PLAIN: Usage = Usage {
    key_bits: None,
    caller_nonce: false,
    secret_bytes: None,
    salt_bytes: None,
    info_bytes: None,
    iterations: None,
    output_bytes: None,
    signing: false,
    tls12_plain_master_secret: false,
};
/// The nonce SMB 3.x encryption and GMAC signing build themselves (from the session's counter
/// or the MessageId).
const CALLER_NONCE: Usage = Usage {
    caller_nonce: true,
    ..PLAIN
};
/// The 16-byte session keys and derived keys SMB uses.
const SIXTEEN_BYTE_KEY: Usage = Usage {
    secret_bytes: Some(16),
    ..PLAIN
};

macro_rules! set {
    ($protocol:literal, $usage:literal, $algorithm:ident, $request:expr) => {
        ParameterSet {
            protocol: $protocol,
            usage: $usage,
            algorithm: Algorithm::$algorithm,
            request: $request,
        }
    };
}

/// SMB 2.x/3.x ([MS-SMB2] §3.1.4.1, §3.1.4.2, §3.1.4.3, §3.2.5.3.1) and NTLMv2 ([MS-NLMP] §3.3.2).
pub const SMB: &[ParameterSet] = &[
    set!(
        "SMB 2.x",
        "signing: HMAC-SHA256, 16-byte session key",
        HmacSha256,
        SIXTEEN_BYTE_KEY
    ),
    set!("SMB 3.x", "signing: AES-128-CMAC", Aes128Cmac, PLAIN),
    set!(
        "SMB 3.1.1",
        "signing: AES-128-GMAC, 12-byte nonce from the MessageId",
        Aes128Gmac,
        CALLER_NONCE
    ),
    set!(
        "SMB 3.x",
        "key derivation: SP 800-108 KBKDF, HMAC-SHA256, 16-byte key",
        KbkdfCtrHmacSha256,
        SIXTEEN_BYTE_KEY
    ),
    set!(
        "SMB 3.1.1",
        "pre-authentication integrity: SHA-512",
        Sha512,
        PLAIN
    ),
    set!(
        "SMB 3.0",
        "encryption: AES-128-CCM, 11-byte nonce, 16-byte tag",
        Aes128Ccm,
        CALLER_NONCE
    ),
    set!(
        "SMB 3.1.1",
        "encryption: AES-256-CCM, 11-byte nonce, 16-byte tag",
        Aes256Ccm,
        CALLER_NONCE
    ),
    set!(
        "SMB 3.1.1",
        "encryption: AES-128-GCM, 12-byte nonce chosen by SMB",
        Aes128Gcm,
        CALLER_NONCE
    ),
    set!(
        "SMB 3.1.1",
        "encryption: AES-256-GCM, 12-byte nonce chosen by SMB",
        Aes256Gcm,
        CALLER_NONCE
    ),
    set!("NTLMv2", "NT hash: MD4", Md4, PLAIN),
    set!(
        "NTLMv2",
        "response and session key: HMAC-MD5",
        HmacMd5,
        SIXTEEN_BYTE_KEY
    ),
    set!("NTLMv2", "key exchange: RC4", Rc4, PLAIN),
];

impl Policy {
    /// Judges each parameter set as the services would.
    pub fn judge(&self, sets: &[ParameterSet]) -> Vec<ParameterSetVerdict> {
        sets.iter()
            .map(|set| {
                let (verdict, reason) = match self.evaluate(set.algorithm, &set.request) {
                    Ok(Approval::Approved) => ("approved", None),
                    // Permissive: served and flagged; say why it is not approved.
                    Ok(Approval::NotApproved) => ("not-approved", self.reason_not_approved(set)),
                    Err(Error::NotApproved { reason, .. }) => ("refused", Some(reason)),
                    Err(other) => ("refused", Some(other.to_string())),
                };
                ParameterSetVerdict {
                    set: *set,
                    verdict,
                    reason,
                }
            })
            .collect()
    }

    /// The reason a permissive policy flags a parameter set: the strict rule's refusal.
    fn reason_not_approved(&self, set: &ParameterSet) -> Option<String> {
        let rule = self.rule(set.algorithm);
        match rule.status {
            Status::NotApproved { reason, .. } | Status::Flagged { reason, .. } => {
                Some(reason.to_string())
            }
            _ => rule.limits.check(&set.request).err(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Profile;

    fn verdict(profile: Profile, algorithm: Algorithm) -> &'static str {
        Policy::builtin(profile)
            .judge(SMB)
            .into_iter()
            .find(|verdict| verdict.set.algorithm == algorithm)
            .map(|verdict| verdict.verdict)
            .unwrap_or("missing")
    }

    #[test]
    fn smb_parameter_sets_under_each_profile() {
        // FIPS: CMAC signing and KBKDF are approved; caller-nonce GCM, GMAC and CCM are not
        // (IG C.H; AWS-LC's indicator); NTLM's legacy set is refused.
        assert_eq!(
            verdict(Profile::Fips1403, Algorithm::Aes128Cmac),
            "approved"
        );
        assert_eq!(
            verdict(Profile::Fips1403, Algorithm::KbkdfCtrHmacSha256),
            "approved"
        );
        assert_eq!(verdict(Profile::Fips1403, Algorithm::Aes128Gcm), "refused");
        assert_eq!(verdict(Profile::Fips1403, Algorithm::Aes128Gmac), "refused");
        assert_eq!(verdict(Profile::Fips1403, Algorithm::Aes128Ccm), "refused");
        assert_eq!(verdict(Profile::Fips1403, Algorithm::Md4), "refused");
        // Default serves everything; the legacy set is flagged with its reason.
        assert_eq!(verdict(Profile::Default, Algorithm::Aes128Ccm), "approved");
        assert_eq!(verdict(Profile::Default, Algorithm::Md4), "not-approved");
        let md4 = Policy::builtin(Profile::Default)
            .judge(SMB)
            .into_iter()
            .find(|verdict| verdict.set.algorithm == Algorithm::Md4)
            .and_then(|verdict| verdict.reason);
        assert!(md4.is_some_and(|reason| reason.contains("RFC 6150")));
    }
}
