//! OpenSSL's evp_test file format: stanzas of `Key = value` lines separated by blank lines,
//! `#` comments, `Title = …` lines that only name the tests after them, and PEM blocks after
//! `PrivateKey`/`PublicKey`/`ParamKey` lines.

/// One `Key = value` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub key: String,
    pub value: String,
    pub line: usize,
}

/// One stanza: its pairs in file order and the line of its first pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stanza {
    pub line: usize,
    pub title: Option<String>,
    pub pairs: Vec<Pair>,
    /// The PEM block after a `PrivateKey`/`PublicKey`/`ParamKey` line, BEGIN to END lines.
    pub pem: Option<String>,
}

/// Splits a file into stanzas. `Err` names the first malformed line.
pub fn parse(text: &str) -> Result<Vec<Stanza>, String> {
    let mut stanzas = Vec::new();
    let mut title: Option<String> = None;
    let mut current: Vec<Pair> = Vec::new();
    let mut start = 0;
    let mut in_pem = false;
    let mut pem: Option<String> = None;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        if in_pem {
            let block = pem.get_or_insert_with(String::new);
            block.push_str(raw);
            block.push('\n');
            if raw.starts_with("-----END") {
                in_pem = false;
            }
            continue;
        }
        if raw.is_empty() {
            if !current.is_empty() {
                stanzas.push(Stanza {
                    line: start,
                    title: title.clone(),
                    pairs: std::mem::take(&mut current),
                    pem: pem.take(),
                });
            }
            continue;
        }
        if raw.starts_with('#') {
            continue;
        }
        let Some((key, value)) = raw.split_once('=') else {
            return Err(format!("line {line_no}: no `=` in `{raw}`"));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(format!("line {line_no}: empty key"));
        }
        let value = value.trim();
        if key == "Title" {
            title = Some(value.to_string());
            continue;
        }
        if current.is_empty() {
            start = line_no;
        }
        if matches!(key, "PrivateKey" | "PublicKey" | "ParamKey") {
            in_pem = true;
        }
        current.push(Pair {
            key: key.to_string(),
            value: value.to_string(),
            line: line_no,
        });
    }
    if in_pem {
        return Err("PEM block without an -----END line".into());
    }
    if !current.is_empty() {
        stanzas.push(Stanza {
            line: start,
            title,
            pairs: current,
            pem,
        });
    }
    Ok(stanzas)
}

/// A value as evp_test reads bytes: `"text"` (with `\n` the only escape), an empty value, or hex.
/// `NULL` is `None` (no buffer at all).
pub fn bytes(value: &str) -> Result<Option<Vec<u8>>, String> {
    if value == "NULL" {
        return Ok(None);
    }
    if value.is_empty() {
        return Ok(Some(Vec::new()));
    }
    if let Some(rest) = value.strip_prefix('"') {
        let inner = rest
            .strip_suffix('"')
            .ok_or_else(|| format!("string `{value}` has no closing quote"))?;
        let mut out = Vec::with_capacity(inner.len());
        let mut it = inner.bytes();
        while let Some(b) = it.next() {
            if b == b'\\' {
                match it.next() {
                    Some(b'n') => out.push(b'\n'),
                    _ => return Err(format!("bad escape in `{value}` (only \\n is known)")),
                }
            } else {
                out.push(b);
            }
        }
        return Ok(Some(out));
    }
    // OPENSSL_hexstr2buf also accepts ':' separators between byte pairs.
    let digits: Vec<u8> = value.bytes().filter(|&b| b != b':').collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in `{value}`"));
    }
    let nibble = |c: u8| -> Result<u8, String> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(format!("`{}` is not a hex digit in `{value}`", c as char)),
        }
    };
    digits
        .chunks(2)
        .map(|pair| Ok((nibble(pair[0])? << 4) | nibble(pair[1])?))
        .collect::<Result<Vec<u8>, String>>()
        .map(Some)
}

/// Like [`bytes`], for keywords where `NULL` makes no sense.
pub fn bytes_required(value: &str) -> Result<Vec<u8>, String> {
    Ok(bytes(value)?.unwrap_or_default())
}

/// `atoi`-style positive count.
pub fn count(value: &str) -> Result<usize, String> {
    value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{value}` is not a positive count"))
}

/// `3.0.19` (or `3.5.0-dev`) as numbers.
pub fn parse_version(text: &str) -> Result<(u32, u32, u32), String> {
    let mut parts = text.split('.').map(|p| {
        let digits: String = p.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse::<u32>()
    });
    match (parts.next(), parts.next(), parts.next()) {
        (Some(Ok(a)), Some(Ok(b)), Some(Ok(c))) => Ok((a, b, c)),
        _ => Err(format!("`{text}` is not a MAJOR.MINOR.PATCH version")),
    }
}

/// Does the provider version `version` (`3.0.19`) satisfy an evp_test `FIPSversion` value
/// (space-separated conditions `>=3.2.0`, `<3.4.0`, `!3.1.0`, `3.0.0`, all of which must hold)?
pub fn version_matches(conditions: &str, version: &str) -> Result<bool, String> {
    let parse = parse_version;
    let have = parse(version)?;
    for cond in conditions.split_whitespace() {
        let (op, rest) = if let Some(r) = cond.strip_prefix(">=") {
            (">=", r)
        } else if let Some(r) = cond.strip_prefix("<=") {
            ("<=", r)
        } else if let Some(r) = cond.strip_prefix('>') {
            (">", r)
        } else if let Some(r) = cond.strip_prefix('<') {
            ("<", r)
        } else if let Some(r) = cond.strip_prefix('!') {
            ("!", r)
        } else if let Some(r) = cond.strip_prefix('=') {
            ("=", r)
        } else {
            ("=", cond)
        };
        let want = parse(rest)?;
        let ok = match op {
            ">=" => have >= want,
            "<=" => have <= want,
            ">" => have > want,
            "<" => have < want,
            "!" => have != want,
            _ => have == want,
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stanzas_split_on_blank_lines_and_skip_titles_and_comments() {
        let text = "Title = T\n# c\nDigest = SHA256\nInput = \"a\\nb\"\nOutput = 00ff\n\n\nMAC = HMAC\nKey =\n";
        let stanzas = parse(text).unwrap();
        assert_eq!(stanzas.len(), 2);
        assert_eq!(stanzas[0].line, 3);
        assert_eq!(stanzas[0].title.as_deref(), Some("T"));
        assert_eq!(stanzas[0].pairs[1].value, "\"a\\nb\"");
        assert_eq!(stanzas[1].pairs[1].value, "");
        assert_eq!(bytes("\"a\\nb\"").unwrap(), Some(b"a\nb".to_vec()));
        assert_eq!(bytes("00Ff").unwrap(), Some(vec![0, 0xff]));
        assert_eq!(bytes("NULL").unwrap(), None);
        assert!(bytes("0").is_err());
        assert!(bytes("\"x\\t\"").is_err());
    }

    #[test]
    fn versions_follow_every_condition() {
        assert!(version_matches(">=3.0.0 <3.4.0", "3.0.19").unwrap());
        assert!(!version_matches(">=3.2.0", "3.0.19").unwrap());
        assert!(!version_matches("<3.4.0", "3.5.4").unwrap());
        assert!(version_matches(">3.0.0", "3.0.1").unwrap());
        assert!(!version_matches("!3.0.1", "3.0.1").unwrap());
        assert!(version_matches("3.5.4", "3.5.4").unwrap());
        assert!(version_matches("x", "3.5.4").is_err());
    }
}
