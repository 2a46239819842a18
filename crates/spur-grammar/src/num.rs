//! C's `strtol`/`strtoul`/`atoi` as glibc implements them: Slurm reads most
//! numbers with them, and what they accept (leading blanks, a sign, a `0x`,
//! digits followed by anything) is part of what Slurm accepts.
//!
//! Behaviour (glibc 2.36 and 2.41, checked against the real functions: see
//! `tests/data/num.txt`):
//!
//! 1. Leading white space (`isspace` in the C locale: space, `\t`, `\n`,
//!    `\v`, `\f`, `\r`) is skipped, then one optional `+` or `-`.
//! 2. Base 0 picks the base from the text: `0x`/`0X` followed by a hex
//!    digit is 16, another leading `0` is 8, else 10. Base 16 also skips an
//!    optional `0x`/`0X`. Bases 2 to 36 are accepted; any other base converts
//!    nothing (glibc's `EINVAL`).
//! 3. The longest run of digits of the base is converted; the end position
//!    ([`Conv::end`]) is the byte just past it. With no digit at all the
//!    value is 0 and the end is 0 (the start of the input, not past the
//!    blanks or the sign), except for `0x` followed by no hex digit, where
//!    the `0` was the number and the end is at the `x`.
//! 4. A value out of range clamps and sets [`Conv::overflow`] (glibc's
//!    `ERANGE`): `strtol` to `i64::MAX` or `i64::MIN` (long is 64 bits on
//!    Linux x86_64/aarch64), `strtoul` to `u64::MAX`. The end is still past
//!    every digit.
//! 5. `strtoul` accepts a `-` and negates in unsigned arithmetic (`-1` is
//!    `u64::MAX`); a negative value whose magnitude overflows is `u64::MAX`
//!    with overflow.
//! 6. `atoi(s)` is `(int) strtol(s, NULL, 10)`: the long is truncated to
//!    its low 32 bits (`atoi("4294967297")` is 1).
//!
//! Input is bytes; a multibyte UTF-8 character is never a digit, a sign or a
//! blank, so it ends the number like any other character.

/// One conversion: the value, where the number ended, whether it clamped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conv<T> {
    pub value: T,
    /// Byte offset just past the number; 0 when nothing was converted.
    pub end: usize,
    /// The value was out of range and clamped (`errno == ERANGE`).
    pub overflow: bool,
}

impl<T> Conv<T> {
    /// Whether any digit was converted (C's `endptr != nptr`).
    pub fn converted(&self) -> bool {
        self.end != 0
    }

    /// The text after the number (C's `endptr`). For a string `s` the
    /// conversion was made from.
    pub fn rest<'a>(&self, s: &'a str) -> &'a str {
        s.get(self.end..).unwrap_or("")
    }
}

/// C's `isspace` in the C locale.
pub fn is_c_space(c: u8) -> bool {
    c == b' ' || (b'\t'..=b'\r').contains(&c)
}

fn digit_value(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u32),
        b'a'..=b'z' => Some((c - b'a') as u32 + 10),
        b'A'..=b'Z' => Some((c - b'A') as u32 + 10),
        _ => None,
    }
}

/// The common part: sign, magnitude (saturated at u64::MAX with a flag), end.
fn scan(s: &str, base: u32) -> (bool, u64, bool, usize) {
    let b = s.as_bytes();
    if base == 1 || base > 36 {
        return (false, 0, false, 0);
    }
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let mut base = base;
    let is_hex = |c: Option<&u8>| c.and_then(|&c| digit_value(c)).map(|v| v < 16).unwrap_or(false);
    let x_at = |i: usize| b.get(i) == Some(&b'0') && matches!(b.get(i + 1), Some(b'x') | Some(b'X'));
    if (base == 0 || base == 16) && x_at(i) {
        if is_hex(b.get(i + 2)) {
            i += 2;
            base = 16;
        } else {
            // "0x" with no hex digit: the number is the "0", ending at the "x"
            return (neg, 0, false, i + 1);
        }
    } else if base == 0 {
        base = if b.get(i) == Some(&b'0') { 8 } else { 10 };
    }
    let start = i;
    let mut v: u64 = 0;
    let mut over = false;
    while i < b.len() {
        let d = match digit_value(b[i]) {
            Some(d) if d < base => d,
            _ => break,
        };
        match v.checked_mul(base as u64).and_then(|x| x.checked_add(d as u64)) {
            Some(x) => v = x,
            None => over = true,
        }
        i += 1;
    }
    if i == start {
        return (false, 0, false, 0);
    }
    (neg, if over { u64::MAX } else { v }, over, i)
}

/// C's `strtol(s, &end, base)` (and `strtoll`, the same on LP64).
pub fn strtol(s: &str, base: u32) -> Conv<i64> {
    let (neg, mag, over, end) = scan(s, base);
    if neg {
        if over || mag > i64::MIN.unsigned_abs() {
            Conv { value: i64::MIN, end, overflow: true }
        } else {
            Conv { value: (mag as i64).wrapping_neg(), end, overflow: false }
        }
    } else if over || mag > i64::MAX as u64 {
        Conv { value: i64::MAX, end, overflow: true }
    } else {
        Conv { value: mag as i64, end, overflow: false }
    }
}

/// C's `strtoul(s, &end, base)` (and `strtoull`).
pub fn strtoul(s: &str, base: u32) -> Conv<u64> {
    let (neg, mag, over, end) = scan(s, base);
    if over {
        Conv { value: u64::MAX, end, overflow: true }
    } else if neg {
        Conv { value: mag.wrapping_neg(), end, overflow: false }
    } else {
        Conv { value: mag, end, overflow: false }
    }
}

/// C's `atoi(s)`: `(int) strtol(s, NULL, 10)`, truncated to 32 bits.
pub fn atoi(s: &str) -> i32 {
    strtol(s, 10).value as i32
}

/// C's `atol(s)`: `strtol(s, NULL, 10)`.
pub fn atol(s: &str) -> i64 {
    strtol(s, 10).value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basics() {
        assert_eq!(strtol("  -12abc", 10), Conv { value: -12, end: 5, overflow: false });
        assert_eq!(strtol("abc", 10), Conv { value: 0, end: 0, overflow: false });
        assert_eq!(strtol("  -", 10).end, 0);
        assert_eq!(strtol("0x1f", 0).value, 31);
        assert_eq!(strtol("0x1f", 16).value, 31);
        assert_eq!(strtol("0x1f", 10), Conv { value: 0, end: 1, overflow: false });
        assert_eq!(strtol("0xg", 16), Conv { value: 0, end: 1, overflow: false });
        assert_eq!(strtol("010", 0).value, 8);
        assert_eq!(strtol("99999999999999999999x", 10), Conv { value: i64::MAX, end: 20, overflow: true });
        assert_eq!(strtol("-9223372036854775808", 10), Conv { value: i64::MIN, end: 20, overflow: false });
        assert!(strtol("-9223372036854775809", 10).overflow);
        assert_eq!(strtoul("-1", 10).value, u64::MAX);
        assert_eq!(strtoul("18446744073709551616", 10), Conv { value: u64::MAX, end: 20, overflow: true });
        assert_eq!(atoi("4294967297"), 1);
        assert_eq!(atoi("2147483648"), i32::MIN);
        assert_eq!(strtol("12", 1).end, 0);
        assert_eq!(strtol("z", 36).value, 35);
        assert_eq!(strtol("1é", 10).rest("1é"), "é");
    }
}

/// Why `-N`/`--nodes` is refused (Slurm's `verify_node_count`); each command
/// prints it after its own prefix and exits 255.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeCountError {
    /// `"PART" is not a valid node count` (the part that failed).
    Invalid(String),
    /// `Maximum node count MAX is less than minimum node count MIN`.
    MaxBelowMin { max: i64, min: i64 },
}

impl std::fmt::Display for NodeCountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NodeCountError::Invalid(s) => write!(f, "\"{}\" is not a valid node count", s),
            NodeCountError::MaxBelowMin { max, min } => {
                write!(f, "Maximum node count {} is less than minimum node count {}", max, min)
            }
        }
    }
}

/// Slurm's `str_to_nodes`: a number with an optional `k`/`m` multiplier.
fn str_to_nodes(s: &str) -> Option<i64> {
    let c = strtol(s, 10);
    if !c.converted() {
        return None;
    }
    let (mut n, mut rest) = (c.value, c.rest(s));
    if let Some(r) = rest.strip_prefix(['k', 'K']) {
        n = n.saturating_mul(1024);
        rest = r;
    } else if let Some(r) = rest.strip_prefix(['m', 'M']) {
        n = n.saturating_mul(1024 * 1024);
        rest = r;
    }
    rest.trim().is_empty().then_some(n)
}

/// `-N`/`--nodes` as sbatch, salloc and srun read it (Slurm's
/// `verify_node_count`): `N`, `MIN-MAX` (`k`/`m` multipliers; a negative
/// minimum is 1), or a list of sizes and ranges (`2,4-6`, `:` also
/// separates) whose smallest and largest bound the count. (min, max);
/// max 0 when no maximum was given (`N-` ... is not accepted: both sides
/// must be numbers).
pub fn node_count(arg: &str) -> Result<(u32, u32), NodeCountError> {
    let bad = |s: &str| NodeCountError::Invalid(s.to_string());
    let (min, max): (i64, i64);
    if arg.contains(',') || arg.contains(':') {
        let mut vals = Vec::new();
        for part in arg.split([',', ':']) {
            let mut it = part.splitn(2, '-');
            let a = it.next().unwrap_or("");
            let lo = a.parse::<i64>().map_err(|_| bad(if a.is_empty() { arg } else { a }))?;
            let hi = match it.next() {
                Some(h) => h.parse::<i64>().map_err(|_| bad(h))?,
                None => lo,
            };
            if lo < 0 || hi < lo || hi >= 1_000_000 {
                return Err(bad(arg));
            }
            vals.push((lo, hi));
        }
        min = vals.iter().map(|v| v.0).min().unwrap_or(0);
        max = vals.iter().map(|v| v.1).max().unwrap_or(0);
    } else if let Some(p) = arg.find('-') {
        let (a, b) = (&arg[..p], &arg[p + 1..]);
        let lo = str_to_nodes(a).ok_or_else(|| bad(a))?;
        min = if lo < 0 { 1 } else { lo };
        max = str_to_nodes(b).ok_or_else(|| bad(b))?;
    } else {
        let n = str_to_nodes(arg).filter(|&n| n >= 0).ok_or_else(|| bad(arg))?;
        min = n;
        max = n;
    }
    if max != 0 && max < min {
        return Err(NodeCountError::MaxBelowMin { max, min });
    }
    let c = |v: i64| v.clamp(0, u32::MAX as i64) as u32;
    Ok((c(min), c(max)))
}

#[cfg(test)]
mod node_count_tests {
    use super::*;

    #[test]
    fn node_counts_as_verify_node_count() {
        assert_eq!(node_count("3"), Ok((3, 3)));
        assert_eq!(node_count("2-3"), Ok((2, 3)));
        assert_eq!(node_count("1k"), Ok((1024, 1024)));
        assert_eq!(node_count("2,4-6"), Ok((2, 6)));
        assert_eq!(node_count("0"), Ok((0, 0)));
        assert_eq!(node_count("x").unwrap_err().to_string(), "\"x\" is not a valid node count");
        assert_eq!(node_count("3-x").unwrap_err().to_string(), "\"x\" is not a valid node count");
        assert_eq!(
            node_count("3-2").unwrap_err().to_string(),
            "Maximum node count 2 is less than minimum node count 3"
        );
    }
}
