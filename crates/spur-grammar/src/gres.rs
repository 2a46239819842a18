//! Generic resources: node `Gres=` specs, job `--gres` requests, gres.conf.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One GRES item such as `gpu:mi300x:8`, `gpu:2`, `mps:100`, `gpu`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GresSpec {
    pub name: String,
    /// Model/type (`mi300x`), if given.
    pub type_: Option<String>,
    /// Count (1 when omitted); `K`/`M`/`G`/`T` suffixes multiply by 1024^n.
    pub count: u64,
    /// Text in parentheses after the count, e.g. `S:0-1` (kept verbatim).
    pub extra: Option<String>,
}

/// An invalid GRES specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GresError(pub String);

impl fmt::Display for GresError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invalid generic resource (gres) specification: {}", self.0)
    }
}
impl std::error::Error for GresError {}

pub fn parse_count(s: &str) -> Option<u64> {
    let (num, mult) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1024u64),
        b'm' | b'M' => (&s[..s.len() - 1], 1024 * 1024),
        b'g' | b'G' => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        b't' | b'T' => (&s[..s.len() - 1], 1024u64.pow(4)),
        _ => (s, 1),
    };
    if num.is_empty() || !num.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    num.parse::<u64>().ok()?.checked_mul(mult)
}

fn valid_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || b"_-.".contains(&c))
}

impl GresSpec {
    /// Parse one item: `name[:type][:count][(extra)]`. A `gres:`/`gres/`
    /// prefix (TRES form) is accepted.
    pub fn parse(item: &str) -> Result<GresSpec, GresError> {
        let bad = || GresError(item.to_string());
        let mut s = item.trim();
        if let Some(r) = s.strip_prefix("gres/").or_else(|| s.strip_prefix("gres:")) {
            s = r;
        }
        let (body, extra) = match s.find('(') {
            Some(i) => {
                if !s.ends_with(')') {
                    return Err(bad());
                }
                (&s[..i], Some(s[i + 1..s.len() - 1].to_string()))
            }
            None => (s, None),
        };
        let parts: Vec<&str> = body.split(':').collect();
        if parts.len() > 3 || !valid_word(parts[0]) {
            return Err(bad());
        }
        let name = parts[0].to_string();
        let (type_, count) = match parts.len() {
            1 => (None, 1),
            2 => match parse_count(parts[1]) {
                Some(c) => (None, c),
                None if valid_word(parts[1]) => (Some(parts[1].to_string()), 1),
                None => return Err(bad()),
            },
            _ => {
                if !valid_word(parts[1]) {
                    return Err(bad());
                }
                (Some(parts[1].to_string()), parse_count(parts[2]).ok_or_else(bad)?)
            }
        };
        Ok(GresSpec { name, type_, count, extra })
    }
}

impl fmt::Display for GresSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(t) = &self.type_ {
            write!(f, ":{}", t)?;
        }
        write!(f, ":{}", self.count)?;
        if let Some(e) = &self.extra {
            write!(f, "({})", e)?;
        }
        Ok(())
    }
}

/// Split a GRES list on commas outside parentheses.
fn split_items(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth <= 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// Parse a comma-separated list (node `Gres=` or job `--gres=gpu:a100:1,mps:100`).
/// Empty string and `(null)`/`none` give an empty list.
pub fn parse_gres_list(s: &str) -> Result<Vec<GresSpec>, GresError> {
    let t = s.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("(null)") || t.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    split_items(t).into_iter().map(GresSpec::parse).collect()
}


#[cfg(test)]
mod tests {
    use super::*;

    fn g(n: &str, t: Option<&str>, c: u64) -> GresSpec {
        GresSpec { name: n.into(), type_: t.map(Into::into), count: c, extra: None }
    }

    #[test]
    fn specs() {
        assert_eq!(GresSpec::parse("gpu:mi300x:8"), Ok(g("gpu", Some("mi300x"), 8)));
        assert_eq!(GresSpec::parse("gpu:2"), Ok(g("gpu", None, 2)));
        assert_eq!(GresSpec::parse("gpu"), Ok(g("gpu", None, 1)));
        assert_eq!(GresSpec::parse("gpu:a100"), Ok(g("gpu", Some("a100"), 1)));
        assert_eq!(GresSpec::parse("mps:100"), Ok(g("mps", None, 100)));
        assert_eq!(GresSpec::parse("shard:4K"), Ok(g("shard", None, 4096)));
        assert_eq!(GresSpec::parse("gres/gpu:1"), Ok(g("gpu", None, 1)));
        let e = GresSpec::parse("gpu:tesla:2(S:0-1)").unwrap();
        assert_eq!(e.extra.as_deref(), Some("S:0-1"));
        assert_eq!(e.to_string(), "gpu:tesla:2(S:0-1)");
        for bad in ["", ":", "gpu:a:b:c", "gpu:a100:x", "gpu:", "gpu(S:0", "g pu"] {
            assert!(GresSpec::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            parse_gres_list("gpu:a100:1,mps:100").unwrap(),
            vec![g("gpu", Some("a100"), 1), g("mps", None, 100)]
        );
        assert_eq!(parse_gres_list("gpu:2(S:0,1),mps:1").unwrap().len(), 2);
        assert_eq!(parse_gres_list("").unwrap(), vec![]);
        assert!(parse_gres_list("gpu,,mps").is_err());
    }

    #[test]
    fn garbage_never_panics() {
        let alphabet: Vec<char> = "gpu:0123456789(),SKab= \n#\\\u{e9}".chars().collect();
        let mut seed: u64 = 0xabcdef;
        for _ in 0..20000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 20) as usize;
            let mut t = seed;
            let s: String = (0..len)
                .map(|_| {
                    t = t.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    alphabet[((t >> 33) as usize) % alphabet.len()]
                })
                .collect();
            let _ = parse_gres_list(&s);
        }
    }
}
