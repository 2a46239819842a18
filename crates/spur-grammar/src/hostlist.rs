//! Slurm hostlist expressions: `gpu[01-16]`, `n[1-3,7],m5`, `a[1-2]b[3-4]`.
//!
//! Behaviour follows Slurm 24.11 (`src/common/hostlist.c`, one-dimensional
//! clusters), verified against `scontrol show hostnames|hostlist|hostlistsorted`:
//!
//! * tokens are separated by `,`, space, tab or newline (commas inside
//!   brackets do not split);
//! * the last `[...]` of a token is a range list (`1-3,7`, zero padding taken
//!   from the width of the low bound); text after `]` is a suffix; earlier
//!   brackets in the prefix are expanded too (`a[1-2]b[3-4]` = a1b3 a1b4 a2b3 a2b4);
//! * a range must satisfy lo <= hi, at most 65536 hosts per range;
//! * a `[` without `]` is an error; a token without `[` is taken literally.
//!
//! [`compress`] matches `scontrol show hostlist` (order preserving, duplicates
//! kept), [`compress_sorted`] matches `scontrol show hostlistsorted`.

use std::cmp::Ordering;
use std::fmt;

/// Most hosts one range may hold (Slurm's `MAX_RANGE`).
pub const MAX_RANGE: u64 = 64 * 1024;
/// Most prefix expansions of an inner bracket (Slurm's `MAX_PREFIX_CNT`).
pub const MAX_PREFIX_CNT: u64 = 64 * 1024;
/// Spur's own cap on hosts in one expression, to keep expansion bounded.
pub const MAX_HOSTS: u64 = 4 * 1024 * 1024;
/// Most names a job's node list (`--nodelist`, `--exclude`, `ReqNodeList=`,
/// `ExcNodeList=`) may name, duplicates counted: the controller reads them
/// with [`Hostlist::parse_bounded`] under this bound (far above any
/// cluster's node count; every name must be a node of the cluster anyway).
pub const MAX_JOB_HOSTS: u64 = 64 * 1024;

/// An invalid hostlist expression. Displays as scontrol does:
/// `Invalid hostlist: EXPR`; `detail` carries Slurm's log line
/// (e.g. ``Invalid range: `3-1'``).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostlistError {
    pub expr: String,
    pub detail: String,
}

impl fmt::Display for HostlistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invalid hostlist: {}", self.expr)
    }
}
impl std::error::Error for HostlistError {}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    prefix: String,
    lo: u64,
    hi: u64,
    width: usize,
    single: bool,
}

impl Range {
    fn single(name: &str) -> Range {
        Range { prefix: name.to_string(), lo: 0, hi: 0, width: 0, single: true }
    }
    fn count(&self) -> u64 {
        if self.single {
            1
        } else {
            self.hi - self.lo + 1
        }
    }
    fn host(&self, i: u64) -> String {
        if self.single {
            self.prefix.clone()
        } else {
            format!("{}{:0w$}", self.prefix, i, w = self.width)
        }
    }
}

fn ndigits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

fn zero_padded(n: u64, width: usize) -> usize {
    width.saturating_sub(ndigits(n))
}

/// Slurm's `_width_equiv`: may adjust one of the widths; returns compatibility.
fn width_equiv(n: u64, wn: &mut usize, m: u64, wm: &mut usize) -> bool {
    if *wn == *wm {
        return true;
    }
    let npad = zero_padded(n, *wn);
    let nmpad = zero_padded(n, *wm);
    let mpad = zero_padded(m, *wm);
    let mnpad = zero_padded(m, *wn);
    if npad != nmpad && mpad != mnpad {
        false
    } else {
        if npad != nmpad {
            *wm = *wn;
        } else {
            *wn = *wm;
        }
        true
    }
}

fn width_combine(a: &mut Range, b: &mut Range) -> bool {
    let (alo, blo) = (a.lo, b.lo);
    width_equiv(alo, &mut a.width, blo, &mut b.width)
}

fn width_compatible(a: &Range, b: &Range) -> bool {
    let (mut wa, mut wb) = (a.width, b.width);
    width_equiv(a.lo, &mut wa, b.lo, &mut wb)
}

/// Slurm's `strnatcmp` (natural order, used to compare prefixes).
///
/// A C string ends at its first NUL; a Rust string at its length and may
/// hold NUL (a name read from the wire): the end is compared as the lowest
/// "character", below NUL, so `""` and `"\0"` differ (for C strings the
/// order is Slurm's).
pub fn strnatcmp(a: &str, b: &str) -> Ordering {
    let a = a.as_bytes();
    let b = b.as_bytes();
    // 0 is the end of the string, any byte is itself plus one
    let at = |s: &[u8], i: usize| -> u16 { s.get(i).map_or(0, |&c| c as u16 + 1) };
    let isdig = |c: u16| (b'0' as u16 + 1..=b'9' as u16 + 1).contains(&c);
    let isspace = |c: u16| c == b' ' as u16 + 1 || (10..=14).contains(&c);
    let (mut ai, mut bi) = (0usize, 0usize);
    loop {
        let mut ca = at(a, ai);
        let mut cb = at(b, bi);
        while isspace(ca) {
            ai += 1;
            ca = at(a, ai);
        }
        while isspace(cb) {
            bi += 1;
            cb = at(b, bi);
        }
        if isdig(ca) && isdig(cb) {
            let fractional = ca == b'0' as u16 + 1 || cb == b'0' as u16 + 1;
            let r = if fractional {
                // compare_left
                let mut k = 0;
                loop {
                    let (x, y) = (at(a, ai + k), at(b, bi + k));
                    if !isdig(x) && !isdig(y) {
                        break Ordering::Equal;
                    } else if !isdig(x) {
                        break Ordering::Less;
                    } else if !isdig(y) {
                        break Ordering::Greater;
                    } else if x != y {
                        break x.cmp(&y);
                    }
                    k += 1;
                }
            } else {
                // compare_right
                let mut bias = Ordering::Equal;
                let mut k = 0;
                loop {
                    let (x, y) = (at(a, ai + k), at(b, bi + k));
                    if !isdig(x) && !isdig(y) {
                        break bias;
                    } else if !isdig(x) {
                        break Ordering::Less;
                    } else if !isdig(y) {
                        break Ordering::Greater;
                    } else if bias == Ordering::Equal {
                        bias = x.cmp(&y);
                    }
                    k += 1;
                }
            };
            if r != Ordering::Equal {
                return r;
            }
        }
        if ca == 0 && cb == 0 {
            return Ordering::Equal;
        }
        match ca.cmp(&cb) {
            Ordering::Equal => {}
            o => return o,
        }
        ai += 1;
        bi += 1;
    }
}

fn prefix_cmp(a: &Range, b: &Range) -> Ordering {
    match strnatcmp(&a.prefix, &b.prefix) {
        // Slurm returns `h2->singlehost - h1->singlehost`: a single host sorts first.
        Ordering::Equal => b.single.cmp(&a.single),
        o => o,
    }
}

fn range_cmp(a: &Range, b: &Range) -> Ordering {
    match prefix_cmp(a, b) {
        Ordering::Equal => {
            if width_compatible(a, b) {
                a.lo.cmp(&b.lo)
            } else {
                a.width.cmp(&b.width)
            }
        }
        o => o,
    }
}

fn within_range(a: &Range, b: &Range) -> bool {
    prefix_cmp(a, b) == Ordering::Equal && !a.single && !b.single
}

/// A parsed hostlist kept as Slurm keeps it: a sequence of ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hostlist {
    ranges: Vec<Range>,
}

fn err(expr: &str, detail: impl Into<String>) -> HostlistError {
    HostlistError { expr: expr.to_string(), detail: detail.into() }
}

const SEPS: &[u8] = b"\t, \n";

/// Slurm's `_next_tok`: split on separators, keeping bracketed text together.
fn tokens(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let is_sep = |c: u8| SEPS.contains(&c);
    let mut out = Vec::new();
    let mut pos = 0usize;
    loop {
        while pos < b.len() && is_sep(b[pos]) {
            pos += 1;
        }
        if pos >= b.len() {
            break;
        }
        let tok = pos;
        let mut parse = tok;
        'outer: loop {
            while pos < b.len() && !is_sep(b[pos]) {
                pos += 1;
            }
            loop {
                // (a bracket of this token only: searching the rest of the
                // expression for every token made a long list quadratic)
                let open = b[parse..pos].iter().position(|&c| c == b'[').map(|i| i + parse);
                let open = match open {
                    Some(o) => o,
                    None => break 'outer,
                };
                let close = b[parse..].iter().position(|&c| c == b']').map(|i| i + parse);
                let close = match close {
                    Some(c) if c >= open => c,
                    _ => break 'outer,
                };
                if close < pos {
                    parse = close + 1;
                    continue;
                }
                pos = close;
                break;
            }
        }
        out.push(&s[tok..pos]);
        while pos < b.len() && is_sep(b[pos]) {
            pos += 1;
        }
    }
    out
}

/// One `lo[-hi]` element: (lo, hi, width).
fn parse_single_range(expr: &str, s: &str) -> Result<(u64, u64, usize), HostlistError> {
    let bad = || err(expr, format!("_parse_single_range: Invalid range: `{}'", s));
    if s.contains('x') {
        return Err(bad());
    }
    let (lo_s, hi_s) = match s.find('-') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    if let Some(h) = hi_s {
        if h.starts_with('-') {
            return Err(bad());
        }
    }
    let num = |t: &str| -> Option<u64> {
        if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse::<u64>().ok()
    };
    let lo = num(lo_s).ok_or_else(bad)?;
    let hi = match hi_s {
        Some(h) if !h.is_empty() => num(h).ok_or_else(bad)?,
        _ => lo,
    };
    if lo > hi {
        return Err(bad());
    }
    if hi - lo + 1 > MAX_RANGE {
        return Err(err(expr, format!("_parse_single_range: Too many hosts in range `{}'", s)));
    }
    Ok((lo, hi, lo_s.len()))
}

fn parse_range_list(expr: &str, s: &str) -> Result<Vec<(u64, u64, usize)>, HostlistError> {
    s.split(',').map(|r| parse_single_range(expr, r)).collect()
}

impl Hostlist {
    /// An empty hostlist.
    pub fn new() -> Hostlist {
        Hostlist::default()
    }

    /// Parse a hostlist expression (Slurm's `hostlist_create`).
    pub fn parse(expr: &str) -> Result<Hostlist, HostlistError> {
        Hostlist::parse_bounded(expr, MAX_HOSTS)
    }

    /// [`Hostlist::parse`] refusing an expression that names more than
    /// `max` hosts (duplicates counted): the count is checked before each
    /// range is stored, so no more than `max` ranges are ever allocated,
    /// whatever the expression asks for.
    pub fn parse_bounded(expr: &str, max: u64) -> Result<Hostlist, HostlistError> {
        let max = max.min(MAX_HOSTS);
        let mut hl = Hostlist::new();
        let mut total: u64 = 0;
        for tok in tokens(expr) {
            if let Some(p) = tok.rfind('[') {
                let prefix = &tok[..p];
                let rest = &tok[p + 1..];
                let q = rest.find(']').ok_or_else(|| err(expr, "missing ']'"))?;
                let inner = &rest[..q];
                let suffix = &rest[q + 1..];
                let suffix = if suffix.is_empty() { None } else { Some(suffix) };
                let ranges = parse_range_list(expr, inner)?;
                hl.push_range_list(expr, prefix, suffix, &ranges, &mut total, max)?;
            } else {
                total += 1;
                if total > max {
                    return Err(err(expr, "too many hosts"));
                }
                hl.push_host(tok);
            }
            if total > max {
                return Err(err(expr, "too many hosts"));
            }
        }
        Ok(hl)
    }

    fn push_range_list(
        &mut self,
        expr: &str,
        prefix: &str,
        suffix: Option<&str>,
        ranges: &[(u64, u64, usize)],
        total: &mut u64,
        max: u64,
    ) -> Result<(), HostlistError> {
        if let Some(p) = prefix.rfind('[') {
            if let Some(qrel) = prefix[p..].rfind(']') {
                let head = &prefix[..p];
                let inner = &prefix[p + 1..p + qrel];
                let tail = &prefix[p + qrel + 1..];
                let pre = parse_range_list(expr, inner)?;
                let mut cnt = 0u64;
                for &(lo, hi, w) in &pre {
                    cnt += hi - lo + 1;
                    if cnt > MAX_PREFIX_CNT {
                        return Err(err(expr, "too many prefixes"));
                    }
                    for j in lo..=hi {
                        let np = format!("{}{:0w$}{}", head, j, tail, w = w);
                        if head.contains('[') {
                            self.push_range_list(expr, &np, suffix, ranges, total, max)?;
                        } else {
                            for &(l, h, wd) in ranges {
                                self.push_hr(&np, suffix, l, h, wd, total, max)?;
                            }
                        }
                    }
                }
                return Ok(());
            }
        }
        for &(l, h, wd) in ranges {
            self.push_hr(prefix, suffix, l, h, wd, total, max)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn push_hr(
        &mut self,
        prefix: &str,
        suffix: Option<&str>,
        lo: u64,
        hi: u64,
        width: usize,
        total: &mut u64,
        max: u64,
    ) -> Result<(), HostlistError> {
        *total += hi - lo + 1;
        if *total > max {
            return Err(err(prefix, "too many hosts"));
        }
        match suffix {
            Some(sfx) => {
                for i in lo..=hi {
                    self.push_range(Range::single(&format!("{}{:0w$}{}", prefix, i, sfx, w = width)));
                }
            }
            None => self.push_range(Range { prefix: prefix.to_string(), lo, hi, width, single: false }),
        }
        Ok(())
    }

    /// Slurm's `hostlist_push_range`: append, merging with the last range
    /// when contiguous.
    fn push_range(&mut self, mut r: Range) {
        if let Some(tail) = self.ranges.last_mut() {
            if r.lo.checked_sub(1) == Some(tail.hi)
                && !tail.single
                && !r.single
                && prefix_cmp(tail, &r) == Ordering::Equal
                && width_combine(tail, &mut r)
            {
                tail.hi = r.hi;
                return;
            }
        }
        self.ranges.push(r);
    }

    /// Append one host name (taken literally, no bracket parsing).
    pub fn push_host(&mut self, name: &str) {
        let b = name.as_bytes();
        let mut idx = b.len();
        while idx > 0 && b[idx - 1].is_ascii_digit() {
            idx -= 1;
        }
        let digits = &name[idx..];
        if digits.is_empty() || digits.len() > 19 {
            self.push_range(Range::single(name));
            return;
        }
        match digits.parse::<u64>() {
            Ok(n) => self.push_range(Range {
                prefix: name[..idx].to_string(),
                lo: n,
                hi: n,
                width: digits.len(),
                single: false,
            }),
            Err(_) => self.push_range(Range::single(name)),
        }
    }

    /// Number of hosts (duplicates counted).
    pub fn count(&self) -> u64 {
        self.ranges.iter().map(|r| r.count()).sum()
    }

    /// True when the list holds no host.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Iterate over host names in order.
    pub fn iter(&self) -> impl Iterator<Item = String> + '_ {
        self.ranges.iter().flat_map(|r| {
            let (lo, hi) = if r.single { (0, 0) } else { (r.lo, r.hi) };
            (lo..=hi).map(move |i| r.host(i))
        })
    }

    /// All host names in order.
    pub fn hosts(&self) -> Vec<String> {
        self.iter().collect()
    }

    /// Slurm's `hostlist_push_list`: append another list's ranges in order,
    /// each joined to the last range when contiguous (as `parse` joins them).
    pub fn append(&mut self, other: Hostlist) {
        for r in other.ranges {
            self.push_range(r);
        }
    }

    /// Slurm's `hostlist_shift`: take the first host off the list (None
    /// when it is empty).
    pub fn shift(&mut self) -> Option<String> {
        let first = self.ranges.first_mut()?;
        let host = first.host(first.lo);
        if first.single || first.lo >= first.hi {
            self.ranges.remove(0);
        } else {
            first.lo += 1;
        }
        Some(host)
    }

    /// Slurm's `hostlist_sort`: sort ranges, then split overlaps and join
    /// neighbours (duplicates are kept, as `scontrol show hostlistsorted` does).
    pub fn sort(&mut self) {
        if self.ranges.len() <= 1 {
            return;
        }
        self.ranges.sort_by(range_cmp);
        self.coalesce();
    }

    /// Slurm's `hostlist_uniq`: sort and drop duplicate hosts.
    pub fn uniq(&mut self) {
        if self.ranges.len() <= 1 {
            return;
        }
        self.ranges.sort_by(range_cmp);
        let mut i = 1;
        while i < self.ranges.len() {
            let (a, b) = self.ranges.split_at_mut(i);
            let h1 = &mut a[i - 1];
            let h2 = &mut b[0];
            let mut joined = false;
            if prefix_cmp(h1, h2) == Ordering::Equal && width_combine(h1, h2) {
                if h1.single && h2.single {
                    joined = true;
                } else if !h1.single && !h2.single {
                    if h2.lo.checked_sub(1) == Some(h1.hi) {
                        h1.hi = h2.hi;
                        joined = true;
                    } else if h1.hi >= h2.lo {
                        if h1.hi < h2.hi {
                            h1.hi = h2.hi;
                        }
                        joined = true;
                    }
                }
            }
            if joined {
                self.ranges.remove(i);
            } else {
                i += 1;
            }
        }
    }

    fn coalesce(&mut self) {
        let mut i = self.ranges.len().saturating_sub(1);
        while i > 0 {
            let (h1, h2) = (&self.ranges[i - 1], &self.ranges[i]);
            let inter = if h1.single
                || h2.single
                || (h1.hi <= h2.lo)
                || prefix_cmp(h1, h2) != Ordering::Equal
                || !width_compatible(h1, h2)
            {
                None
            } else {
                Some((h1.prefix.clone(), h2.lo, h2.hi.min(h1.hi), h1.width))
            };
            if let Some((prefix, mut nlo, nhi, width)) = inter {
                {
                    let (a, b) = self.ranges.split_at_mut(i);
                    width_combine(&mut a[i - 1], &mut b[0]);
                }
                let prev_hi_orig = self.ranges[i - 1].hi;
                if nhi < prev_hi_orig {
                    self.ranges[i].hi = prev_hi_orig;
                }
                self.ranges[i - 1].hi = nlo;
                self.ranges[i].lo = nhi;
                let prev_hi = self.ranges[i - 1].hi;
                let next_lo = self.ranges[i].lo;
                let mut j = i;
                while nlo <= nhi {
                    let r = Range { prefix: prefix.clone(), lo: nlo, hi: nlo, width, single: false };
                    if nlo > prev_hi {
                        self.ranges.insert(j, r.clone());
                        j += 1;
                    }
                    if nlo < next_lo {
                        self.ranges.insert(j, r);
                        j += 1;
                    }
                    nlo += 1;
                }
                i = self.ranges.len();
            }
            i -= 1;
        }
        // collapse
        let mut i = self.ranges.len().saturating_sub(1);
        while i > 0 {
            let (a, b) = self.ranges.split_at_mut(i);
            let hp = &mut a[i - 1];
            let hn = &mut b[0];
            if !hp.single
                && !hn.single
                && hn.lo.checked_sub(1) == Some(hp.hi)
                && prefix_cmp(hp, hn) == Ordering::Equal
                && width_combine(hp, hn)
            {
                hp.hi = hn.hi;
                self.ranges.remove(i);
            }
            i -= 1;
        }
    }

    /// Slurm's `hostlist_ranged_string`, e.g. `node[1-4,7],login1`.
    pub fn ranged_string(&self) -> String {
        let mut out = String::new();
        let r = &self.ranges;
        let mut i = 0;
        while i < r.len() {
            if i > 0 {
                out.push(',');
            }
            let start = i;
            let bracket = r[i].count() > 1 || (i + 1 < r.len() && within_range(&r[i], &r[i + 1]));
            out.push_str(&r[i].prefix);
            if bracket {
                out.push('[');
            }
            loop {
                if i > start {
                    out.push(',');
                }
                let h = &r[i];
                if !h.single {
                    out.push_str(&format!("{:0w$}", h.lo, w = h.width));
                    if h.lo < h.hi {
                        out.push_str(&format!("-{:0w$}", h.hi, w = h.width));
                    }
                }
                i += 1;
                if !(i < r.len() && within_range(&r[i], &r[i - 1])) {
                    break;
                }
            }
            if bracket {
                out.push(']');
            }
        }
        out
    }
}

impl fmt::Display for Hostlist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ranged_string())
    }
}

/// Expand an expression to host names in order (`scontrol show hostnames`).
pub fn expand(expr: &str) -> Result<Vec<String>, HostlistError> {
    Ok(Hostlist::parse(expr)?.hosts())
}

/// [`expand`] refusing an expression that names more than `max` hosts
/// (duplicates counted), without allocating past the bound.
pub fn expand_bounded(expr: &str, max: u64) -> Result<Vec<String>, HostlistError> {
    Ok(Hostlist::parse_bounded(expr, max)?.hosts())
}

/// Number of hosts an expression names (duplicates counted).
pub fn count(expr: &str) -> Result<u64, HostlistError> {
    Ok(Hostlist::parse(expr)?.count())
}

/// Compress names in the given order (`scontrol show hostlist`).
pub fn compress<S: AsRef<str>>(names: &[S]) -> String {
    let mut hl = Hostlist::new();
    for n in names {
        hl.push_host(n.as_ref());
    }
    hl.ranged_string()
}

/// Compress names after Slurm's sort (`scontrol show hostlistsorted`).
pub fn compress_sorted<S: AsRef<str>>(names: &[S]) -> String {
    let mut hl = Hostlist::new();
    for n in names {
        hl.push_host(n.as_ref());
    }
    hl.sort();
    hl.ranged_string()
}

/// Compress names sorted and without duplicates (Slurm's `hostlist_uniq`,
/// what Slurm uses for node lists of jobs and partitions).
pub fn compress_unique<S: AsRef<str>>(names: &[S]) -> String {
    let mut hl = Hostlist::new();
    for n in names {
        hl.push_host(n.as_ref());
    }
    hl.uniq();
    hl.ranged_string()
}

/// `scontrol show hostlist EXPR`: parse then re-print ranged.
pub fn reformat(expr: &str) -> Result<String, HostlistError> {
    Ok(Hostlist::parse(expr)?.ranged_string())
}

/// `scontrol show hostlistsorted EXPR`.
pub fn reformat_sorted(expr: &str) -> Result<String, HostlistError> {
    let mut hl = Hostlist::parse(expr)?;
    hl.sort();
    Ok(hl.ranged_string())
}

/// `scontrol show hostnames` as Slurm 22.05 expands: its parser differs
/// from 24.11's ([`expand`]) in two ways: nothing may follow a closing
/// bracket but a separator (`node[1-3]-ib` is invalid), and a token whose
/// last `[` is never closed is taken as one host name with a `]` added
/// (`node[1-2` names `node]`, the part before the bracket plus `]`).
pub fn expand_22_05(expr: &str) -> Result<Vec<String>, HostlistError> {
    let bad = |detail: &str| HostlistError { expr: expr.to_string(), detail: detail.to_string() };
    // tokens at bracket depth 0, separated by blanks or commas
    let mut toks: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    for c in expr.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if depth <= 0 && matches!(c, ',' | ' ' | '\t') {
            if !cur.is_empty() {
                toks.push(std::mem::take(&mut cur));
            }
            depth = 0;
            continue;
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        toks.push(cur);
    }
    let mut out = Vec::new();
    for t in toks {
        match t.rfind('[') {
            Some(open) => match t[open..].find(']') {
                Some(close) if open + close + 1 != t.len() => return Err(bad("text after a closing bracket")),
                Some(_) => out.extend(expand(&t)?),
                None if open > 0 => out.push(format!("{}]", &t[..open])),
                None => out.push(t[open + 1..].to_string()),
            },
            None => out.extend(expand(&t)?),
        }
    }
    Ok(out)
}

/// A Slurm host file (`slurm_read_hostfile`): node names one per line or
/// separated by commas, `NAME*N` for N times, `#` starting a comment
/// (`\\#` a literal one), blank lines skipped; at most `n` names. The names
/// in the file's order, repeats kept; the error is Slurm's line.
pub fn read_hostfile(path: &str, text: &str, n: Option<usize>) -> Result<Vec<String>, String> {
    let mut hosts: Vec<String> = Vec::new();
    'lines: for (i, raw) in text.lines().enumerate() {
        let mut line = String::new();
        let mut prev = '\0';
        for ch in raw.chars() {
            if ch == '#' {
                if prev == '\\' {
                    line.pop();
                } else {
                    break;
                }
            }
            line.push(ch);
            prev = ch;
        }
        if line.is_empty() {
            continue;
        }
        if !line.starts_with(|c: char| c.is_ascii_alphanumeric()) {
            return Err(format!("Invalid hostfile {} contents on line {}", path, i + 1));
        }
        for name in line.split(',').map(str::trim).filter(|h| !h.is_empty()) {
            let (name, times) = match name.split_once('*') {
                Some((h, k)) => match crate::num::strtol(k, 10).value {
                    0 => (name, 1),
                    k => (h, k.clamp(1, 1 << 20) as usize),
                },
                None => (name, 1),
            };
            let times = n.map_or(times, |n| times.min(n.saturating_sub(hosts.len())));
            hosts.extend(std::iter::repeat_n(name.to_string(), times));
            if n.is_some_and(|n| hosts.len() >= n) {
                break 'lines;
            }
        }
    }
    if hosts.is_empty() {
        return Err("Hostlist is empty!".into());
    }
    if n.is_some_and(|n| hosts.len() < n) {
        return Err("Too few NodeNames in Slurm Hostfile".into());
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(e: &str) -> String {
        match expand(e) {
            Ok(v) => v.join(" "),
            Err(e) => format!("ERR {}", e),
        }
    }

    #[test]
    fn expand_matches_scontrol() {
        assert_eq!(ex("gpu[01-03]"), "gpu01 gpu02 gpu03");
        assert_eq!(expand("gpu[01-16]").unwrap().len(), 16);
        assert_eq!(ex("n[1-3,7],m5"), "n1 n2 n3 n7 m5");
        assert_eq!(ex("a[1-2]b[3-4]"), "a1b3 a1b4 a2b3 a2b4");
        assert_eq!(ex("a[1-2]b[3-4]c"), "a1b3c a1b4c a2b3c a2b4c");
        assert_eq!(ex("n[1-2]-ib"), "n1-ib n2-ib");
        assert_eq!(ex("n[07-10]"), "n07 n08 n09 n10");
        assert_eq!(ex("n[9-11]"), "n9 n10 n11");
        assert_eq!(ex("[1-3]"), "1 2 3");
        assert_eq!(ex("n1,n1,n2"), "n1 n1 n2");
        assert_eq!(ex("a,b c"), "a b c");
        assert_eq!(ex("a\tb\nc,,d"), "a b c d");
        assert_eq!(ex("n[1-]"), "n1");
        assert_eq!(ex("foo"), "foo");
        assert_eq!(ex("x1-2]"), "x1-2]");
        assert_eq!(ex("n01,n1,n001"), "n01 n1 n001");
        assert_eq!(ex("n[00-02]"), "n00 n01 n02");
        assert_eq!(ex("n[1-010]"), "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10");
        assert_eq!(ex(""), "");
        // Slurm iterates the middle bracket outermost (verified on scontrol).
        assert_eq!(ex("r[1-2]n[1-2]x[5]"), "r1n1x5 r2n1x5 r1n2x5 r2n2x5");
    }

    #[test]
    fn expand_errors() {
        for e in [
            "n[010-9]",
            "n[3-1]",
            "n[a-b]",
            "n[]",
            "n[1,,2]",
            "n[-3]",
            "x[1-2",
            "n[1-3",
            "n[1--3]",
            "n[1x3]",
            "n[0-70000]",
        ] {
            let r = expand(e);
            assert!(r.is_err(), "{e} should fail");
            assert_eq!(r.unwrap_err().to_string(), format!("Invalid hostlist: {}", e));
        }
        assert_eq!(expand("n[3-1]").unwrap_err().detail, "_parse_single_range: Invalid range: `3-1'");
        assert!(expand("a[0-65535]b[0-65535]").is_err());
    }

    #[test]
    fn count_works() {
        assert_eq!(count("n[1-100],m[01-10]").unwrap(), 110);
        assert_eq!(count("").unwrap(), 0);
    }

    #[test]
    fn compress_matches_scontrol_show_hostlist() {
        let c = |e: &str| reformat(e).unwrap();
        assert_eq!(c("n[1-3],n2"), "n[1-3,2]");
        assert_eq!(c("n3,n1,n2,n10,n9"), "n[3,1-2,10,9]");
        assert_eq!(c("n1,n1,n2"), "n[1,1-2]");
        assert_eq!(c("n[1-5],n[3-8]"), "n[1-5,3-8]");
        assert_eq!(c("b1,a2,a1,c,a"), "b1,a[2,1],c,a");
        assert_eq!(c("n01,n1,n001,n2,n02"), "n[01,1,001,2,02]");
        assert_eq!(c("x,x1,x2"), "x,x[1-2]");
        assert_eq!(c("n10,n9,n08"), "n[10,9,08]");
        assert_eq!(c("a1b2,a1b3,a2b2"), "a1b[2-3],a2b2");
        assert_eq!(c("gpu[01-16]"), "gpu[01-16]");
        assert_eq!(c("1,2,3"), "[1-3]");
        assert_eq!(c("n[009-011]"), "n[009-011]");
        assert_eq!(c("n5,m1,n6,m2"), "n5,m1,n6,m2");
        assert_eq!(c("n[1-2]-ib"), "n1-ib,n2-ib");
        assert_eq!(compress(&["node1", "node2", "node3", "node4", "node7"]), "node[1-4,7]");
        assert_eq!(compress::<&str>(&[]), "");
        assert_eq!(compress(&["n9", "n10"]), "n[9-10]");
    }

    #[test]
    fn compress_sorted_matches_scontrol_hostlistsorted() {
        let c = |e: &str| reformat_sorted(e).unwrap();
        assert_eq!(c("n[1-3],n2"), "n[1-2,2-3]");
        assert_eq!(c("n3,n1,n2,n10,n9"), "n[1-3,9-10]");
        assert_eq!(c("n1,n1,n2"), "n[1,1-2]");
        assert_eq!(c("n[1-5],n[3-8]"), "n[1-3,3-4,4-5,5-8]");
        assert_eq!(c("b1,a2,a1,c,a"), "a,a[1-2],b1,c");
        assert_eq!(c("n01,n1,n001,n2,n02"), "n[1-2,01-02,001]");
        assert_eq!(c("n[1-2],n[1-2]"), "n[1,1-2,2]");
        assert_eq!(c("x,x1,x2"), "x,x[1-2]");
        assert_eq!(c("n10,n9,n08"), "n[9,08,10]");
        assert_eq!(c("n[1-10],n[5-6]"), "n[1-5,5-6,6-10]");
        assert_eq!(c("n1,n3,n2"), "n[1-3]");
        assert_eq!(c("n5,m1,n6,m2"), "m[1-2],n[5-6]");
        assert_eq!(compress_sorted(&["n3", "n1", "n2"]), "n[1-3]");
    }

    #[test]
    fn uniq() {
        assert_eq!(compress_unique(&["n3", "n1", "n2", "n2", "n1"]), "n[1-3]");
        let mut hl = Hostlist::parse("n[1-5],n[3-8],m1,m1").unwrap();
        hl.uniq();
        assert_eq!(hl.ranged_string(), "m1,n[1-8]");
        assert_eq!(hl.count(), 9);
    }

    /// A long list of plain names is read in linear time (found by fuzz/:
    /// each token searched the rest of the expression for a bracket).
    #[test]
    fn long_lists_read_in_linear_time() {
        let names: Vec<String> = (0..200_000).map(|i| format!("host{i}x")).collect();
        let expr = names.join(",") + ",n[1-2]";
        let t = std::time::Instant::now();
        assert_eq!(Hostlist::parse(&expr).unwrap().count(), 200_002);
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
        // brackets across separators are still one token
        assert_eq!(expand("a[1,2],b").unwrap(), ["a1", "a2", "b"]);
        assert_eq!(expand("x,a[1-2]b,c").unwrap(), ["x", "a1b", "a2b", "c"]);
    }

    #[test]
    fn natcmp() {
        assert_eq!(strnatcmp("a2", "a10"), Ordering::Less);
        assert_eq!(strnatcmp("a", "a"), Ordering::Equal);
        assert_eq!(strnatcmp("b", "a10"), Ordering::Greater);
        assert_eq!(strnatcmp("x01", "x1"), Ordering::Less);
        // a NUL inside a name (possible in a Rust string, from the wire) is
        // not its end (found by fuzz/: `7\n\01` printed as `[7,1]`)
        assert_eq!(strnatcmp("", "\0"), Ordering::Less);
        assert_eq!(strnatcmp("a\0", "a"), Ordering::Greater);
        let hosts = expand("7\n\x001").unwrap();
        assert_eq!(hosts, ["7", "\x001"]);
        assert_eq!(compress(&hosts), "7,\x001");
        assert_eq!(expand(&compress(&hosts)).unwrap(), hosts);
    }

    #[test]
    fn roundtrip() {
        for e in ["gpu[01-16]", "n[1-3,7],m5", "a[1-2]b[3-4]", "x,y,z[001-100]"] {
            let h = expand(e).unwrap();
            assert_eq!(expand(&compress(&h)).unwrap(), h);
        }
    }

    #[test]
    fn bounded_expansion_refuses_past_the_bound() {
        let max = MAX_JOB_HOSTS;
        // exactly the bound is fine, one more is refused
        assert_eq!(expand_bounded("n[1-3]", 3).unwrap(), vec!["n1", "n2", "n3"]);
        assert!(expand_bounded("n[1-3]", 2).is_err());
        assert!(expand_bounded("a,b,c", 2).is_err());
        assert_eq!(Hostlist::parse_bounded("n[0-65535]", max).unwrap().count(), 65536);
        // a zero-padded range of ten billion names (Slurm's MAX_RANGE refuses it too)
        assert!(expand_bounded("n[0000000000-9999999999]", max).is_err());
        // many ranges each under MAX_RANGE: within MAX_HOSTS, past the job bound
        let many = vec!["n[0-65535]"; 60].join(",");
        assert_eq!(count(&many).unwrap(), 60 * 65536);
        assert!(Hostlist::parse_bounded(&many, max).is_err());
        // with a suffix every name is its own range: refused before storing them
        let sfx = vec!["n[0-65535]x"; 60].join(",");
        assert!(Hostlist::parse_bounded(&sfx, max).is_err());
        // inner brackets multiply
        assert!(Hostlist::parse_bounded("a[0-65535]b[0-65535]", max).is_err());
        assert!(Hostlist::parse_bounded("a[0-65535]b[0-65535]c", max).is_err());
        // any bound, any text: a list or an error, never a panic, and never
        // more hosts than the bound
        for e in ["", ",", "a", "a[", "a[]", "a[1-2]b[3-4]c", "[0-1][2-3]", "x[9-1]", "n[1-3]]", "a,b,,c", "q[00-01]x"]
        {
            for max in 0..6 {
                if let Ok(h) = Hostlist::parse_bounded(e, max) {
                    assert!(h.count() <= max, "{e} {max}");
                }
            }
        }
        // the bound never exceeds MAX_HOSTS
        assert!(Hostlist::parse_bounded(&vec!["n[0-65535]"; 65].join(","), u64::MAX).is_err());
    }
}

#[cfg(test)]
mod hostnames_22_05_tests {
    use super::*;

    #[test]
    fn hostnames_22_05() {
        let e = |x: &str| expand_22_05(x).map_err(|_| ());
        assert_eq!(e("node[1-3]-ib"), Err(()));
        assert_eq!(e("node[1-2"), Ok(vec!["node]".to_string()]));
        assert_eq!(e("[abc"), Ok(vec!["abc".to_string()]));
        assert_eq!(e("a[1-2],b3"), Ok(vec!["a1".into(), "a2".into(), "b3".into()]));
        assert_eq!(e("rack[1-2]-n[1]").unwrap().len(), 2);
        assert_eq!(expand("node[1-2]-ib").unwrap(), vec!["node1-ib", "node2-ib"]);
        assert!(e("]][[,,").is_ok() || e("]][[,,").is_err());
    }
}
