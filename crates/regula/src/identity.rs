//! The identity record every build embeds, so that `regula audit` (or `strings`) can tell from a
//! binary alone which Regula it carries and whether that is the FIPS build.
//!
//! The record is one line of ASCII in read-only data, ending with a NUL byte:
//!
//! ```text
//! REGULA-MODULE-IDENTITY/1 version=0.1.0 fips=off module=aws-lc-sys policy=default
//! ```
//!
//! - `version`: the crate version of `regula`.
//! - `fips`: `on` when built with the `fips` feature, i.e. AWS-LC's FIPS 140-3 validated module
//!   (aws-lc-fips-sys) serves every approved primitive; `off` for ordinary AWS-LC.
//! - `module`: the AWS-LC crate linked (`aws-lc-fips-sys` or `aws-lc-sys`).
//! - `policy`: the built-in profile a caller gets when it names none (the CLI's `--policy`
//!   default); a build enforces no policy of its own, the application picks one at load.
//!
//! Symbol tables do not survive `strip`, but data does: the record sits in a static array that
//! [`record`] reads through [`std::hint::black_box`] and that [`crate::Module::load`] and
//! [`crate::info::build_info`] touch, so that no linker (static library, shared library or
//! executable, with `--gc-sections`) drops it from a program that uses the module.

use serde::Serialize;

/// The first bytes of the record; what a scanner searches for.
pub const MARKER: &str = "REGULA-MODULE-IDENTITY/1";

#[cfg(feature = "fips")]
const RECORD: &str = concat!(
    "REGULA-MODULE-IDENTITY/1 version=",
    env!("CARGO_PKG_VERSION"),
    " fips=on module=aws-lc-fips-sys policy=default\0"
);
#[cfg(not(feature = "fips"))]
const RECORD: &str = concat!(
    "REGULA-MODULE-IDENTITY/1 version=",
    env!("CARGO_PKG_VERSION"),
    " fips=off module=aws-lc-sys policy=default\0"
);

const fn to_array<const N: usize>(text: &str) -> [u8; N] {
    let bytes = text.as_bytes();
    let mut array = [0u8; N];
    let mut i = 0;
    while i < N {
        array[i] = bytes[i];
        i += 1;
    }
    array
}

#[used]
static IDENTITY_RECORD: [u8; RECORD.len()] = to_array(RECORD);

/// The record's bytes with their NUL terminator, read so that the optimiser cannot fold them away.
fn record_bytes() -> &'static [u8] {
    std::hint::black_box(&IDENTITY_RECORD).as_slice()
}

/// This build's record, without its NUL terminator.
pub fn record() -> &'static str {
    let bytes = record_bytes();
    // The array is a copy of `RECORD`, which is ASCII.
    std::str::from_utf8(&bytes[..bytes.len() - 1]).unwrap_or(MARKER)
}

/// The fields of an identity record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub version: String,
    /// Built with the `fips` feature (the validated AWS-LC module).
    pub fips: bool,
    /// The AWS-LC crate linked.
    pub module: String,
    /// The built-in profile used when a caller names none.
    pub policy: String,
}

/// This build's identity.
pub fn identity() -> Identity {
    parse(record_bytes()).unwrap_or(Identity {
        version: env!("CARGO_PKG_VERSION").to_string(),
        fips: cfg!(feature = "fips"),
        module: String::new(),
        policy: String::new(),
    })
}

/// The longest record [`parse`] accepts.
const MAX_RECORD: usize = 256;

/// Parses a record at the start of `bytes` (which may go on past its NUL terminator). `None`
/// unless it is a complete, well-formed record: a scanner finds the marker in places that are
/// not records (e.g. this very constant), and those must not pass for one.
pub fn parse(bytes: &[u8]) -> Option<Identity> {
    let rest = bytes.strip_prefix(MARKER.as_bytes())?;
    let end = rest.iter().take(MAX_RECORD).position(|&b| b == 0)?;
    let text = std::str::from_utf8(&rest[..end]).ok()?;
    if !text.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
        return None;
    }
    let (mut version, mut fips, mut module, mut policy) = (None, None, None, None);
    for field in text.strip_prefix(' ')?.split(' ') {
        let (key, value) = field.split_once('=')?;
        if value.is_empty() {
            return None;
        }
        let slot = match key {
            "version" => &mut version,
            "fips" => &mut fips,
            "module" => &mut module,
            "policy" => &mut policy,
            // Later record versions may add fields; this reader ignores them.
            _ => continue,
        };
        *slot = Some(value.to_string());
    }
    let fips = match fips?.as_str() {
        "on" => true,
        "off" => false,
        _ => return None,
    };
    Some(Identity {
        version: version?,
        fips,
        module: module?,
        policy: policy?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_parses_and_says_which_aws_lc_it_links() {
        let identity = parse(IDENTITY_RECORD.as_slice()).expect("the embedded record parses");
        assert_eq!(identity.version, env!("CARGO_PKG_VERSION"));
        assert_eq!(identity.fips, cfg!(feature = "fips"));
        let expected = if cfg!(feature = "fips") {
            "aws-lc-fips-sys"
        } else {
            "aws-lc-sys"
        };
        assert_eq!(identity.module, expected);
        assert_eq!(identity.policy, "default");
        assert_eq!(identity, super::identity());
        assert!(record().starts_with(MARKER) && !record().contains('\0'));
    }

    #[test]
    fn marker_alone_or_mangled_records_are_not_records() {
        assert_eq!(parse(MARKER.as_bytes()), None);
        assert_eq!(parse(b"REGULA-MODULE-IDENTITY/1\x01\x02garbage\0"), None);
        assert_eq!(
            parse(b"REGULA-MODULE-IDENTITY/1 version=1 fips=maybe module=x policy=y\0"),
            None
        );
        assert_eq!(
            parse(b"REGULA-MODULE-IDENTITY/1 version=1 fips=on module=x\0"),
            None
        );
        let long = [b'a'; 300];
        let mut bytes = b"REGULA-MODULE-IDENTITY/1 version=".to_vec();
        bytes.extend_from_slice(&long);
        bytes.push(0);
        assert_eq!(parse(&bytes), None);
        let parsed = parse(
            b"REGULA-MODULE-IDENTITY/1 version=2.0.0 fips=on module=m policy=p extra=1\0tail",
        );
        assert_eq!(
            parsed,
            Some(Identity {
                version: "2.0.0".into(),
                fips: true,
                module: "m".into(),
                policy: "p".into()
            })
        );
    }
}
