//! The Go build info of a Go program and the FIPS 140-3 snapshot packages it names.

use std::collections::BTreeSet;

use memchr::memmem;

use crate::GoInfo;
use crate::elf::ElfFacts;
use crate::strings::Strings;

/// The Go build info (`.go.buildinfo`, Go 1.18 and later layout) and the FIPS snapshot
/// packages named in the binary.
pub(crate) fn go_info(data: &[u8], facts: &ElfFacts, strings: &Strings<'_>) -> Option<GoInfo> {
    const MAGIC: &[u8] = b"\xff Go buildinf:";
    let region = match facts.go_buildinfo {
        Some((offset, size)) => &data[offset..offset + size],
        // Without section headers (sstrip), search the file; with them, a binary that has no
        // .go.buildinfo is no Go program (and may hold the magic as a search string, as this one does).
        None if !facts.has_sections => {
            let at = memmem::find(data, MAGIC)?;
            &data[at..]
        }
        None => return None,
    };
    if !region.starts_with(MAGIC) || region.len() < 32 {
        return None;
    }
    let mut info = GoInfo::default();
    let flags = region[15];
    if flags & 2 != 0 {
        let mut rest = &region[32..];
        let version = read_varint_string(&mut rest);
        let modinfo = read_varint_string(&mut rest);
        info.version = version.map(|v| String::from_utf8_lossy(v).into_owned());
        if let Some(mut modinfo) = modinfo {
            if modinfo.len() >= 33 && modinfo[modinfo.len() - 17] == b'\n' {
                modinfo = &modinfo[16..modinfo.len() - 16];
            }
            for line in String::from_utf8_lossy(modinfo).lines() {
                let mut fields = line.splitn(2, '\t');
                match (fields.next(), fields.next()) {
                    (Some("path"), Some(path)) => info.path = Some(path.to_string()),
                    (Some("build"), Some(setting)) => {
                        let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
                        info.settings.insert(key.to_string(), value.to_string());
                    }
                    _ => {}
                }
            }
        }
    }
    let mut versions = BTreeSet::new();
    for rest in strings.find_after(b"crypto/internal/fips140/v", 40) {
        let end = rest
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'%'))
            .unwrap_or(rest.len());
        let raw = String::from_utf8_lossy(&rest[..end]).replace("%2e", ".");
        let raw = raw.trim_end_matches('.');
        if raw.starts_with(|c: char| c.is_ascii_digit()) {
            versions.insert(format!("v{raw}"));
        }
    }
    info.fips140_packages = versions.into_iter().collect();
    Some(info)
}

fn read_varint_string<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let mut value: u64 = 0;
    let mut shift = 0;
    let mut used: usize = 0;
    for &byte in rest.iter() {
        used += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
    let len = usize::try_from(value).ok()?;
    let string = rest.get(used..used.checked_add(len)?)?;
    *rest = &rest[used + len..];
    Some(string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint_string(out: &mut Vec<u8>, bytes: &[u8]) {
        let mut len = bytes.len();
        while len >= 0x80 {
            out.push((len as u8 & 0x7f) | 0x80);
            len >>= 7;
        }
        out.push(len as u8);
        out.extend_from_slice(bytes);
    }

    #[test]
    fn varint_strings_are_read_one_after_the_other() {
        let mut rest: &[u8] = &[3, b'a', b'b', b'c', 2, b'x', b'y'];
        assert_eq!(read_varint_string(&mut rest), Some(&b"abc"[..]));
        assert_eq!(read_varint_string(&mut rest), Some(&b"xy"[..]));
        assert!(rest.is_empty());
        // 0x81 0x01 is 129.
        let mut long = vec![0x81, 0x01];
        long.extend(std::iter::repeat_n(b'g', 129));
        let mut rest = long.as_slice();
        assert_eq!(read_varint_string(&mut rest).map(<[u8]>::len), Some(129));
    }

    #[test]
    fn a_varint_past_the_end_or_too_long_is_none() {
        let mut short: &[u8] = &[5, b'a'];
        assert_eq!(read_varint_string(&mut short), None);
        let mut endless: &[u8] = &[0xff; 12];
        assert_eq!(read_varint_string(&mut endless), None);
        let mut huge: &[u8] = &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        assert_eq!(read_varint_string(&mut huge), None);
    }

    #[test]
    fn the_build_info_gives_version_path_settings_and_snapshots() {
        // Go 1.18+ layout: magic, pointer size, flags (2: inline strings), padding to 32 bytes,
        // then the version and the module info framed by 16 bytes on each side.
        let mut data = b"\xff Go buildinf:".to_vec();
        data.extend_from_slice(&[8, 2]);
        data.resize(32, 0);
        varint_string(&mut data, b"go1.26.0");
        let mut modinfo = b"0123456789abcdef".to_vec();
        modinfo.extend_from_slice(
            b"path\texample.com/probe\nbuild\tGOFIPS140=v1.0.0\nbuild\tDefaultGODEBUG=fips140=on,x509sha1=1\nbuild\tCGO_ENABLED\n",
        );
        modinfo.extend_from_slice(b"fedcba9876543210");
        varint_string(&mut data, &modinfo);
        data.extend_from_slice(b"\0crypto/internal/fips140/v1.0.0-c2097c7c/aes\0");
        let mut facts = ElfFacts::for_test(&data, &[], true);
        facts.go_buildinfo = Some((0, data.len()));
        let strings = Strings::new(&data, &facts.data_regions);
        let go = go_info(&data, &facts, &strings).expect("a Go program");
        assert_eq!(go.version.as_deref(), Some("go1.26.0"));
        assert_eq!(go.path.as_deref(), Some("example.com/probe"));
        let settings: Vec<(&str, &str)> = go
            .settings
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            settings,
            [
                ("CGO_ENABLED", ""),
                ("DefaultGODEBUG", "fips140=on,x509sha1=1"),
                ("GOFIPS140", "v1.0.0"),
            ]
        );
        assert_eq!(go.fips140_godebug().as_deref(), Some("on"));
        assert_eq!(go.fips140_packages, ["v1.0.0-c2097c7c"]);
    }

    #[test]
    fn no_build_info_section_is_no_go_program() {
        let data = b"\xff Go buildinf: named as a search string".to_vec();
        let facts = ElfFacts::for_test(&data, &[], true);
        let strings = Strings::new(&data, &facts.data_regions);
        assert!(go_info(&data, &facts, &strings).is_none());
        // Without section headers the file is searched, and a short record is refused.
        let mut facts = facts;
        facts.has_sections = false;
        assert!(go_info(&data[..20], &facts, &strings).is_none());
    }
}
