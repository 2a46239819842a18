//! Generic resources: a node's `Gres=` in slurm.conf ([`GresSpec`],
//! [`parse_gres_list`]; gres.conf's `Count=` reads with [`parse_count`]) and
//! a job's request (`--gres`, `--gpus`: [`parse_request`]).
//!
//! A request is read as sbatch and slurmctld 24.11 read it
//! (`gres_prepend_tres_type`, then `slurm_get_next_tres` and
//! `_is_valid_number` in `slurm_protocol_defs.c`, the names matched in
//! `gres.c` `_get_next_gres`):
//!
//! 1. `none` (any case) asks for nothing. Otherwise every comma-separated
//!    item gets a `gres/` prefix, then each `gres/gres/` becomes `gres/` (one
//!    pass: an item that had one `gres/` keeps one); an empty item is skipped.
//! 2. An item's count is what follows its last `=`, else its last `:`. A
//!    count must start with a digit; `strtoull` reads it and the rest must be
//!    a suffix of `suffix_mult` (`k`/`kib` 1024, `kb` 1000, likewise `m`,
//!    `g`, `t`, `p`; any case) or nothing; the product wraps as C's does. A
//!    value of `ULLONG_MAX` is not a number. After `:`, text that is not a
//!    number is the type (count 1); after `=` it is refused, as is an empty
//!    count (`gpu:`).
//! 3. The text before the count: `name` or `name:type`; a second type is
//!    refused (`gpu:a:b`). An item that is only a number names nothing and
//!    ends the list: sbatch takes it, slurmctld refuses it
//!    ([`GresRequests::bare_count`]).
//! 4. An item with count 0 is dropped; one with an empty name (`:2`) ends
//!    the list like a bare number.
//! 5. The name must be one of slurm.conf's `GresTypes`, exactly (case
//!    matters). Syntax errors are `Invalid Trackable RESource (TRES)
//!    specification` (`ESLURM_INVALID_TRES`), unknown names `Invalid generic
//!    resource (gres) specification` (`ESLURM_INVALID_GRES`); sbatch prints
//!    either and exits 1 before submitting (unless `--clusters` is given).
//! 6. A request may not name both `gpu` and a GRES that shares it (`mps`,
//!    `shard`): `ESLURM_INVALID_GRES`.

use crate::num::strtoul;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One item of a job's GRES request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GresRequest {
    pub name: String,
    pub type_: Option<String>,
    pub count: u64,
}

/// A job's GRES request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GresRequests {
    pub items: Vec<GresRequest>,
    /// An item that was only a number ended the list (rule 3).
    pub bare_count: bool,
}

/// Why a request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GresRequestError {
    /// `ESLURM_INVALID_TRES`: the text does not read.
    InvalidTres,
    /// `ESLURM_INVALID_GRES`: a name that is not in `GresTypes`.
    InvalidGres,
}

impl fmt::Display for GresRequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GresRequestError::InvalidTres => "Invalid Trackable RESource (TRES) specification",
            GresRequestError::InvalidGres => "Invalid generic resource (gres) specification",
        })
    }
}
impl std::error::Error for GresRequestError {}

/// Slurm's `suffix_mult`.
fn suffix_mult(s: &str) -> Option<u64> {
    const K: u64 = 1024;
    let t = s.to_ascii_lowercase();
    Some(match t.as_str() {
        "" => 1,
        "k" | "kib" => K,
        "kb" => 1000,
        "m" | "mib" => K * K,
        "mb" => 1000 * 1000,
        "g" | "gib" => K * K * K,
        "gb" => 1000 * 1000 * 1000,
        "t" | "tib" => K * K * K * K,
        "tb" => 1000 * 1000 * 1000 * 1000,
        "p" | "pib" => K * K * K * K * K,
        "pb" => 1000 * 1000 * 1000 * 1000 * 1000,
        _ => return None,
    })
}

/// Slurm's `_is_valid_number`.
fn valid_number(tok: &str) -> Option<u64> {
    if !tok.as_bytes().first()?.is_ascii_digit() {
        return None;
    }
    let n = strtoul(tok, 10);
    if n.value == u64::MAX {
        return None;
    }
    Some(n.value.wrapping_mul(suffix_mult(n.rest(tok))?))
}

/// Read a job's request. `gres_types` are slurm.conf's `GresTypes`; with
/// `None` names are not checked (the scheduler reads requests the controller
/// already accepted).
pub fn parse_request(s: &str, gres_types: Option<&[String]>) -> Result<GresRequests, GresRequestError> {
    use GresRequestError::*;
    let mut out = GresRequests::default();
    if s.eq_ignore_ascii_case("none") {
        return Ok(out);
    }
    // gres_prepend_tres_type: `gres/` before each item, then one pass
    // replacing `gres/gres/` with `gres/`; every item then starts with `gres/`
    let prefixed = format!("gres/{}", s.replace(',', ",gres/")).replace("gres/gres/", "gres/");
    for item in prefixed.split(',') {
        let mut name = item.get(5..).unwrap_or("");
        if name.is_empty() {
            continue;
        }
        let mut type_: Option<&str> = None;
        let count;
        let sep = name.rfind('=').or_else(|| name.rfind(':'));
        if let Some(p) = sep {
            let equals = name.as_bytes()[p] == b'=';
            let c = &name[p + 1..];
            name = &name[..p];
            if c.is_empty() {
                return Err(InvalidTres);
            }
            match valid_number(c) {
                Some(n) => count = n,
                None if equals => return Err(InvalidTres),
                None => {
                    type_ = Some(c);
                    count = 1;
                }
            }
        } else if valid_number(name).is_some() {
            out.bare_count = true;
            break;
        } else {
            count = 1;
        }
        if let Some(p) = name.find(':') {
            if type_.is_some() {
                return Err(InvalidTres);
            }
            type_ = Some(&name[p + 1..]);
            name = &name[..p];
        }
        if count == 0 {
            continue;
        }
        if name.is_empty() {
            // (`:2`: slurm_get_next_tres drops an empty name, as for a bare count)
            out.bare_count = true;
            break;
        }
        if let Some(known) = gres_types {
            if !known.iter().any(|k| k == name) {
                return Err(InvalidGres);
            }
        }
        out.items.push(GresRequest { name: name.to_string(), type_: type_.map(str::to_string), count });
    }
    // a sharing GRES (gpu) and a shared one (mps, shard) in one request
    // (gres.c _foreach_job_state_validate)
    if gres_types.is_some()
        && out.items.iter().any(|g| g.name == "gpu")
        && out.items.iter().any(|g| g.name == "mps" || g.name == "shard")
    {
        return Err(InvalidGres);
    }
    Ok(out)
}

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
}
