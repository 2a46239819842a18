//! Slurm's time grammars (Slurm 24.11 `src/common/parse_time.c`).
//!
//! * Durations / time limits (`--time`, `MaxTime=`): [`parse_duration_secs`],
//!   [`parse_time_limit`], [`parse_job_time_limit`].
//! * Formatting, per tool:
//!   - squeue `%l`/`%L`/`%M` (TIME_LIMIT, TIME_LEFT, TIME): [`fmt_secs_squeue`],
//!     [`fmt_limit_squeue`] — `0:00`, `1:05`, `1:02:03`, `1-02:03:04`, `UNLIMITED`.
//!   - sinfo TIMELIMIT/DEFAULTTIME: [`fmt_limit_sinfo`] — same digits, `infinite`.
//!   - scontrol/sacct (`TimeLimit=`, `RunTime=`, `MaxTime=`): [`fmt_limit_scontrol`],
//!     [`fmt_secs_scontrol`] — always `HH:MM:SS` or `D-HH:MM:SS`, `UNLIMITED`.
//! * Absolute/relative times (`--begin`, `--deadline`): [`parse_time`].
//! * Timestamps (`SubmitTime=` etc.): [`fmt_timestamp`].

use std::fmt;

/// A time string Slurm would reject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeError {
    /// Bad duration; Display is `Invalid time specification: S` (generic);
    /// the CLI prints its own line (`Invalid --time specification`).
    Duration(String),
    /// Bad date/time; Display is Slurm's
    /// `Invalid time specification (pos=N): S`.
    Time { pos: usize, input: String },
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::Duration(s) => write!(f, "Invalid time specification: {}", s),
            TimeError::Time { pos, input } => {
                write!(f, "Invalid time specification (pos={}): {}", pos, input)
            }
        }
    }
}
impl std::error::Error for TimeError {}

/// Slurm's `_is_valid_timespec`.
fn valid_timespec(s: &str) -> bool {
    let (mut digit, mut dash, mut colon) = (0, 0, 0);
    let mut already = false;
    for c in s.bytes() {
        match c {
            b'0'..=b'9' => {
                if !already {
                    digit += 1;
                    already = true;
                }
            }
            b'-' => {
                already = false;
                dash += 1;
                if colon > 0 {
                    return false;
                }
            }
            b':' => {
                already = false;
                colon += 1;
            }
            _ => return false,
        }
    }
    if digit == 0 || dash > 1 || colon > 2 {
        return false;
    }
    if dash > 0 {
        !((colon == 1 && digit < 3) || (colon == 2 && digit < 4))
    } else {
        !((colon == 1 && digit < 2) || (colon == 2 && digit < 3))
    }
}

/// Mimic `sscanf("%d<sep>%d...")`: integers separated by the given
/// separators, each read as glibc's `%d` does (`strtol`, then cut to `int`);
/// stops at the first field that fails.
fn scan_ints(s: &str, seps: &[u8]) -> Vec<i32> {
    let mut out = Vec::new();
    let mut rest = s;
    for k in 0..=seps.len() {
        if k > 0 {
            match rest.strip_prefix(seps[k - 1] as char) {
                Some(r) => rest = r,
                None => break,
            }
        }
        let n = crate::num::strtol(rest, 10);
        if !n.converted() {
            break;
        }
        out.push(n.value as i32);
        rest = n.rest(rest);
    }
    out
}

/// Slurm's `NO_VAL` as the `int` that `time_str2secs` returns.
const NO_VAL_INT: i32 = -2;

/// Parse a duration as `time_str2secs` does: `MM`, `MM:SS`, `HH:MM:SS`,
/// `D-HH`, `D-HH:MM`, `D-HH:MM:SS`. `Ok(None)` = `-1`/`INFINITE`/`UNLIMITED`.
/// The sum is C `int` arithmetic, wrapping as Slurm's does on x86_64: a
/// negative day count is taken (`-2` is -172800 s) and a huge one wraps.
pub fn parse_duration_secs(s: &str) -> Result<Option<i32>, TimeError> {
    let bad = || TimeError::Duration(s.to_string());
    if s.is_empty() {
        return Err(bad());
    }
    if s == "-1" || s.eq_ignore_ascii_case("INFINITE") || s.eq_ignore_ascii_case("UNLIMITED") {
        return Ok(None);
    }
    if !valid_timespec(s) {
        return Err(bad());
    }
    let total: i32 = if s.contains('-') {
        let v = scan_ints(s, b"-::");
        let g = |i: usize| v.get(i).copied().unwrap_or(0);
        g(0).wrapping_mul(86400)
            .wrapping_add(g(1).wrapping_mul(3600))
            .wrapping_add(g(2).wrapping_mul(60))
            .wrapping_add(g(3))
    } else {
        let v = scan_ints(s, b"::");
        let g = |i: usize| v.get(i).copied().unwrap_or(0);
        if v.len() == 3 {
            g(0).wrapping_mul(3600).wrapping_add(g(1).wrapping_mul(60)).wrapping_add(g(2))
        } else {
            g(0).wrapping_mul(60).wrapping_add(g(1))
        }
    };
    match total {
        -1 => Ok(None),
        NO_VAL_INT => Err(bad()),
        t => Ok(Some(t)),
    }
}

/// Parse a time limit to minutes as `time_str2mins` does (seconds round up,
/// in C `int`; the result is kept as Slurm stores it, in 32 bits).
/// `Ok(None)` is INFINITE. `0` stays `Some(0)` (see [`parse_job_time_limit`]).
pub fn parse_time_limit(s: &str) -> Result<Option<u32>, TimeError> {
    match parse_duration_secs(s)? {
        None => Ok(None),
        Some(secs) => match secs.wrapping_add(59) / 60 {
            -1 => Ok(None),
            NO_VAL_INT => Err(TimeError::Duration(s.to_string())),
            m => Ok(Some(m as u32)),
        },
    }
}

/// `sbatch/srun/salloc --time`: like [`parse_time_limit`] but `0` means
/// no limit (`None`). On error the CLI prints `Invalid --time specification`.
pub fn parse_job_time_limit(s: &str) -> Result<Option<u32>, TimeError> {
    Ok(match parse_time_limit(s)? {
        Some(0) | None => None,
        Some(m) => Some(m),
    })
}

/// C's `%2.2ld`: at least two digits, sign before them.
fn d2(n: i64) -> String {
    if n < 0 {
        format!("-{:02}", n.unsigned_abs())
    } else {
        format!("{:02}", n)
    }
}

/// squeue/sinfo's `_print_secs`: `M:SS`, `H:MM:SS`, `D-HH:MM:SS`
/// (negative values print as C does, e.g. TIME_LEFT of an overrun job).
pub fn fmt_secs_squeue(secs: i64) -> String {
    let s = secs % 60;
    let m = (secs / 60) % 60;
    let h = (secs / 3600) % 24;
    let d = secs / 86400;
    if d != 0 {
        format!("{}-{}:{}:{}", d, d2(h), d2(m), d2(s))
    } else if h != 0 {
        format!("{}:{}:{}", h, d2(m), d2(s))
    } else {
        format!("{}:{}", m, d2(s))
    }
}

/// squeue TIME_LIMIT (`%l`): `UNLIMITED` for None, else [`fmt_secs_squeue`]
/// of the minutes. (squeue prints `NOT_SET` when a job has no limit set.)
pub fn fmt_limit_squeue(mins: Option<u32>) -> String {
    match mins {
        None => "UNLIMITED".into(),
        Some(m) => fmt_secs_squeue(m as i64 * 60),
    }
}

/// sinfo TIMELIMIT / DEFAULTTIME: `infinite` for None, else the squeue digits.
/// (sinfo prints `n/a` for an unset DefaultTime.)
pub fn fmt_limit_sinfo(mins: Option<u32>) -> String {
    match mins {
        None => "infinite".into(),
        Some(m) => fmt_secs_squeue(m as i64 * 60),
    }
}

/// Slurm's `secs2time_str` (scontrol `RunTime=`, sacct Elapsed):
/// `HH:MM:SS` or `D-HH:MM:SS`; `INVALID` when negative.
pub fn fmt_secs_scontrol(secs: i64) -> String {
    let s = secs % 60;
    let m = (secs / 60) % 60;
    let h = (secs / 3600) % 24;
    let d = secs / 86400;
    if d < 0 || h < 0 || m < 0 || s < 0 {
        "INVALID".into()
    } else if d > 0 {
        format!("{}-{:02}:{:02}:{:02}", d, h, m, s)
    } else {
        format!("{:02}:{:02}:{:02}", h, m, s)
    }
}

/// Slurm's `mins2time_str` (scontrol `TimeLimit=`, `MaxTime=`, `DefaultTime=`):
/// `UNLIMITED` for None. (scontrol shows `DefaultTime=NONE` when unset.)
pub fn fmt_limit_scontrol(mins: Option<u32>) -> String {
    match mins {
        None => "UNLIMITED".into(),
        Some(m) => fmt_secs_scontrol(m as i64 * 60),
    }
}

/// Broken-down local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTm {
    pub year: i32, // years since 1900, as `struct tm`
    pub mon: i32,  // 0..11
    pub mday: i32,
    pub hour: i32,
    pub min: i32,
    pub sec: i32,
}

/// `localtime_r` in the process's time zone.
pub fn localtime(epoch: i64) -> Option<LocalTm> {
    // time_t is i64 on 64-bit Linux, narrower on some other targets
    #[allow(clippy::useless_conversion)]
    let t: libc::time_t = epoch.try_into().ok()?;
    // SAFETY: tm is plain data; localtime_r writes it or returns NULL.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return None;
        }
        Some(LocalTm {
            year: tm.tm_year,
            mon: tm.tm_mon,
            mday: tm.tm_mday,
            hour: tm.tm_hour,
            min: tm.tm_min,
            sec: tm.tm_sec,
        })
    }
}

/// `slurm_mktime`: local broken-down time (normalised like mktime) to epoch.
pub fn mktime(t: &LocalTm) -> Option<i64> {
    // SAFETY: tm is plain data; mktime only reads/normalises it.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        tm.tm_year = t.year;
        tm.tm_mon = t.mon;
        tm.tm_mday = t.mday;
        tm.tm_hour = t.hour;
        tm.tm_min = t.min;
        tm.tm_sec = t.sec;
        tm.tm_isdst = -1;
        let r = libc::mktime(&mut tm);
        if r == -1 {
            None
        } else {
            Some(r as i64)
        }
    }
}

/// Slurm's `INFINITE` and `NO_VAL` as time_t values.
pub const INFINITE_TIME: i64 = 0xffff_ffff;
pub const NO_VAL_TIME: i64 = 0xffff_fffe;

/// `slurm_make_time_str` (standard format): `2026-11-29T22:55:54` local time;
/// `Unknown` for 0 or INFINITE, `None` for NO_VAL.
pub fn fmt_timestamp(epoch: i64) -> String {
    if epoch == 0 || epoch == INFINITE_TIME {
        return "Unknown".into();
    }
    if epoch == NO_VAL_TIME {
        return "None".into();
    }
    match localtime(epoch) {
        Some(t) => {
            format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", t.year + 1900, t.mon + 1, t.mday, t.hour, t.min, t.sec)
        }
        None => "Unknown".into(),
    }
}

const UNITS: &[(&str, i64)] = &[
    ("seconds", 1),
    ("second", 1),
    ("minutes", 60),
    ("minute", 60),
    ("hours", 3600),
    ("hour", 3600),
    ("days", 86400),
    ("day", 86400),
    ("weeks", 604800),
    ("week", 604800),
];

fn starts_ci(b: &[u8], at: usize, word: &str) -> bool {
    let w = word.as_bytes();
    b.len() >= at + w.len() && b[at..at + w.len()].eq_ignore_ascii_case(w)
}

/// Parse `--begin`/`--deadline` times as Slurm's `parse_time` does, relative
/// to `now` (epoch seconds) in local time. Accepts `today`, `tomorrow`,
/// `midnight`, `noon`, `elevenses`, `fika`, `teatime`, `HH:MM[:SS] [AM|PM]`,
/// `MMDD[YY]`, `MM/DD[/YY]`, `MM.DD[.YY]`, `MM/DD[/YY]-HH:MM[:SS]`,
/// `YYYY-MM-DD[THH:MM[:SS]]`, `now[{+|-}N[seconds|minutes|hours|days|weeks]]`,
/// `utsEPOCH`. A time without a date is the next such time (or today if
/// `past`); a date without a year is the next such date. `Ok(0)` when
/// nothing was specified (empty string), as Slurm returns 0.
pub fn parse_time(s: &str, now: i64, past: bool) -> Result<i64, TimeError> {
    let b = s.as_bytes();
    let prob = |pos: usize| TimeError::Time { pos, input: s.to_string() };
    if starts_ci(b, 0, "uts") {
        let rest = &s[3..];
        return match rest.parse::<i64>() {
            Ok(u) if u >= 1_000_000 && u != i64::MAX => Ok(u),
            _ => Err(prob(0)),
        };
    }
    let nowtm = localtime(now).ok_or_else(|| prob(0))?;
    let (mut hour, mut minute, mut second) = (-1i32, -1i32, 0i32);
    let (mut month, mut mday, mut year) = (-1i32, -1i32, -1i32);
    let at = |i: usize| -> u8 { b.get(i).copied().unwrap_or(0) };
    let mut pos = 0usize;
    while pos < b.len() && b[pos] != b'\n' {
        let c = b[pos];
        if c == b' ' || c == b'\t' || c == b'-' || c == b'T' {
            pos += 1;
            continue;
        }
        if starts_ci(b, pos, "today") {
            month = nowtm.mon;
            mday = nowtm.mday;
            year = nowtm.year;
            pos += 5;
            continue;
        }
        if starts_ci(b, pos, "tomorrow") {
            let l = localtime(now + 86400).ok_or_else(|| prob(pos))?;
            month = l.mon;
            mday = l.mday;
            year = l.year;
            pos += 8;
            continue;
        }
        let named: &[(&str, i32)] = &[("midnight", 0), ("noon", 12), ("elevenses", 11), ("fika", 15), ("teatime", 16)];
        if let Some(&(w, h)) = named.iter().find(|(w, _)| starts_ci(b, pos, w)) {
            hour = h;
            minute = 0;
            second = 0;
            pos += w.len();
            continue;
        }
        if starts_ci(b, pos, "now") {
            let mut delta: i64 = 0;
            let mut i = pos + 3;
            loop {
                let ch = at(i);
                if ch == b'+' || ch == b'-' {
                    // Slurm's `pos += i` quirk only matters for error positions.
                    let (d, end) = get_delta(b, i).map_err(&prob)?;
                    delta = if ch == b'-' { -d } else { d };
                    pos = end;
                    break;
                }
                if ch == b' ' || ch == b'\t' {
                    i += 1;
                    continue;
                }
                if ch == 0 || ch == b'\n' {
                    pos = i;
                    break;
                }
                return Err(prob(i));
            }
            let l = localtime(now.checked_add(delta).ok_or_else(|| prob(pos))?).ok_or_else(|| prob(pos))?;
            month = l.mon;
            mday = l.mday;
            year = l.year;
            hour = l.hour;
            minute = l.min;
            second = l.sec;
            continue;
        }
        if !c.is_ascii_digit() {
            return Err(prob(pos));
        }
        if at(pos + 1) == b':' || at(pos + 2) == b':' {
            let (h, m, sec, end) = get_time(b, pos).map_err(&prob)?;
            hour = h;
            minute = m;
            second = sec;
            pos = end;
            continue;
        }
        let (mo, d, y, end) = get_date(b, pos).map_err(&prob)?;
        month = mo;
        mday = d;
        if let Some(y) = y {
            year = y;
        }
        pos = end;
    }

    if hour == -1 && month == -1 {
        return Ok(0);
    } else if hour == -1 && month != -1 {
        hour = 0;
        minute = 0;
    } else if hour != -1 && month == -1 {
        if past || hour > nowtm.hour || (hour == nowtm.hour && minute > nowtm.min) {
            month = nowtm.mon;
            mday = nowtm.mday;
            year = nowtm.year;
        } else {
            let l = localtime(now + 86400).ok_or_else(|| prob(pos))?;
            month = l.mon;
            mday = l.mday;
            year = l.year;
        }
    }
    if year == -1 {
        if past {
            year = if month > nowtm.mon { nowtm.year - 1 } else { nowtm.year };
        } else if (month, mday, hour, minute) > (nowtm.mon, nowtm.mday, nowtm.hour, nowtm.min) {
            year = nowtm.year;
        } else {
            year = nowtm.year + 1;
        }
    }
    let tm = LocalTm { year, mon: month, mday, hour, min: minute, sec: second };
    mktime(&tm).ok_or_else(|| prob(pos))
}

/// `_get_delta`: `+N[unit]` starting at the sign; returns (seconds, end).
fn get_delta(b: &[u8], sign: usize) -> Result<(i64, usize), usize> {
    let mut cnt: i64 = 0;
    let mut digit = false;
    let mut off = sign + 1;
    while off < b.len() && b[off] != b'\n' {
        if b[off] == b' ' || (9..=13).contains(&b[off]) {
            off += 1;
            continue;
        }
        if let Some(&(w, mult)) = UNITS.iter().find(|(w, _)| starts_ci(b, off, w)) {
            off += w.len();
            cnt = cnt.checked_mul(mult).ok_or(off)?;
            break;
        }
        if b[off].is_ascii_digit() {
            cnt = cnt
                .checked_mul(10)
                .and_then(|c| c.checked_add((b[off] - b'0') as i64))
                .filter(|c| *c < 1 << 40)
                .ok_or(off)?;
            digit = true;
            off += 1;
            continue;
        }
        return Err(off);
    }
    if !digit {
        return Err(off);
    }
    Ok((cnt, off))
}

/// `_get_time`: `HH:MM[:SS] [AM|PM]`; returns (h, m, s, end).
fn get_time(b: &[u8], start: usize) -> Result<(i32, i32, i32, usize), usize> {
    let at = |i: usize| -> u8 { b.get(i).copied().unwrap_or(0) };
    let dig = |i: usize| at(i).is_ascii_digit();
    let mut o = start;
    if !dig(o) {
        return Err(o);
    }
    let mut hr = (at(o) - b'0') as i32;
    o += 1;
    if at(o) != b':' {
        if !dig(o) {
            return Err(o);
        }
        hr = hr * 10 + (at(o) - b'0') as i32;
        o += 1;
    }
    if hr > 23 {
        return Err(o - 2);
    }
    if at(o) != b':' {
        return Err(o);
    }
    o += 1;
    if !dig(o) || !dig(o + 1) {
        return Err(if dig(o) { o + 1 } else { o });
    }
    let min = ((at(o) - b'0') * 10 + (at(o + 1) - b'0')) as i32;
    o += 2;
    if min > 59 {
        return Err(o - 2);
    }
    let mut sec = 0;
    if at(o) == b':' {
        o += 1;
        if !dig(o) || !dig(o + 1) {
            return Err(if dig(o) { o + 1 } else { o });
        }
        sec = ((at(o) - b'0') * 10 + (at(o + 1) - b'0')) as i32;
        o += 2;
        if sec > 59 {
            return Err(o - 2);
        }
    }
    while at(o) == b' ' || (9..=13).contains(&at(o)) {
        o += 1;
    }
    if starts_ci(b, o, "pm") {
        hr += 12;
        if hr > 23 {
            if hr == 24 {
                hr = 12;
            } else {
                return Err(o);
            }
        }
        o += 2;
    } else if starts_ci(b, o, "am") {
        if hr > 11 {
            if hr == 12 {
                hr = 0;
            } else {
                return Err(o);
            }
        }
        o += 2;
    }
    Ok((hr, min, sec, o))
}

/// `_get_date`: `YYYY-MM-DD`, `MMDD[YY]`, `MM/DD[/YY]`, `MM.DD[.YY]`;
/// returns (month0, mday, Some(year-1900) if given, end).
fn get_date(b: &[u8], start: usize) -> Result<(i32, i32, Option<i32>, usize), usize> {
    let at = |i: usize| -> i32 { b.get(i).copied().unwrap_or(0) as i32 };
    let dig = |i: usize| (b'0' as i32..=b'9' as i32).contains(&at(i));
    let v = |i: usize| at(i) - b'0' as i32;
    let mut o = start;
    if b.len() >= o + 7 && at(o + 4) == b'-' as i32 && at(o + 7) == b'-' as i32 {
        let mut yr = 0;
        for _ in 0..4 {
            if !dig(o) {
                return Err(o);
            }
            yr = yr * 10 + v(o);
            o += 1;
        }
        o += 1;
        let mut mon = v(o);
        o += 1;
        if dig(o) {
            mon = mon * 10 + v(o);
            o += 1;
        }
        if !(1..=12).contains(&mon) {
            return Err(o.saturating_sub(2));
        }
        o += 1;
        if !dig(o) {
            return Err(o);
        }
        let mut day = v(o);
        o += 1;
        if dig(o) {
            day = day * 10 + v(o);
            o += 1;
        }
        if !(1..=31).contains(&day) {
            return Err(o - 2);
        }
        return Ok((mon - 1, day, Some(yr - 1900), o));
    }
    let mut mon = v(o);
    o += 1;
    if dig(o) {
        mon = mon * 10 + v(o);
        o += 1;
    }
    if !(1..=12).contains(&mon) {
        return Err(o.saturating_sub(2));
    }
    if at(o) == b'.' as i32 || at(o) == b'/' as i32 {
        o += 1;
    }
    if !dig(o) {
        return Err(o);
    }
    let mut day = v(o);
    o += 1;
    if dig(o) {
        day = day * 10 + v(o);
        o += 1;
    }
    if !(1..=31).contains(&day) {
        return Err(o - 2);
    }
    if at(o) == b'.' as i32 || at(o) == b'/' as i32 {
        o += 1;
    }
    let mut year = None;
    if dig(o) {
        let mut yr = v(o);
        o += 1;
        if !dig(o) {
            return Err(o);
        }
        yr = yr * 10 + v(o);
        o += 1;
        if yr != 0 {
            year = Some(yr + 100);
        }
    }
    Ok((mon - 1, day, year, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let p = |s: &str| parse_time_limit(s);
        assert_eq!(p("0"), Ok(Some(0)));
        assert_eq!(p("5"), Ok(Some(5)));
        assert_eq!(p("5:30"), Ok(Some(6))); // 330 s rounds up
        assert_eq!(p("5:00"), Ok(Some(5)));
        assert_eq!(p("1:02:03"), Ok(Some(63))); // 3723 s
        assert_eq!(p("1:00:00"), Ok(Some(60)));
        assert_eq!(p("2-0"), Ok(Some(2880)));
        assert_eq!(p("1-2"), Ok(Some(1560)));
        assert_eq!(p("1-2:30"), Ok(Some(1590)));
        assert_eq!(p("1-2:30:01"), Ok(Some(1591)));
        assert_eq!(p("1-"), Ok(Some(1440)));
        assert_eq!(p("UNLIMITED"), Ok(None));
        assert_eq!(p("infinite"), Ok(None));
        assert_eq!(p("-1"), Ok(None));
        assert_eq!(parse_duration_secs("1:02:03"), Ok(Some(3723)));
        // C int arithmetic (tests/data/time.txt): a negative day count, wrapping
        assert_eq!(p("-2"), Ok(Some(4294964417)));
        assert_eq!(parse_job_time_limit("99999999999999999999"), Ok(None));
        assert_eq!(p("71582789"), Ok(Some(1)));
        assert_eq!(parse_duration_secs("0:59"), Ok(Some(59)));
        assert_eq!(parse_job_time_limit("0"), Ok(None));
        assert_eq!(parse_job_time_limit("10"), Ok(Some(10)));
        for bad in ["", "abc", "1:", ":5", "1::", "1-2-3", "1:2-3", "1:2:3:4", "1-:", "5m", "1h", " 5", "1.5"] {
            assert!(p(bad).is_err(), "{bad:?} should fail");
        }
        assert_eq!(p("x").unwrap_err().to_string(), "Invalid time specification: x");
    }

    #[test]
    fn squeue_format() {
        assert_eq!(fmt_secs_squeue(0), "0:00");
        assert_eq!(fmt_secs_squeue(65), "1:05");
        assert_eq!(fmt_secs_squeue(3723), "1:02:03");
        assert_eq!(fmt_secs_squeue(93784), "1-02:03:04");
        assert_eq!(fmt_secs_squeue(86400), "1-00:00:00");
        assert_eq!(fmt_secs_squeue(-65), "-1:-05");
        assert_eq!(fmt_limit_squeue(None), "UNLIMITED");
        assert_eq!(fmt_limit_squeue(Some(30)), "30:00");
        assert_eq!(fmt_limit_squeue(Some(60)), "1:00:00");
        assert_eq!(fmt_limit_sinfo(None), "infinite");
        assert_eq!(fmt_limit_sinfo(Some(1440)), "1-00:00:00");
    }

    #[test]
    fn scontrol_format() {
        assert_eq!(fmt_secs_scontrol(0), "00:00:00");
        assert_eq!(fmt_secs_scontrol(3723), "01:02:03");
        assert_eq!(fmt_secs_scontrol(93784), "1-02:03:04");
        assert_eq!(fmt_secs_scontrol(-1), "INVALID");
        assert_eq!(fmt_limit_scontrol(None), "UNLIMITED");
        assert_eq!(fmt_limit_scontrol(Some(30)), "00:30:00");
        assert_eq!(fmt_limit_scontrol(Some(2 * 1440 + 61)), "2-01:01:00");
    }

    fn tm(y: i32, mo: i32, d: i32, h: i32, mi: i32, s: i32) -> i64 {
        mktime(&LocalTm { year: y - 1900, mon: mo - 1, mday: d, hour: h, min: mi, sec: s }).unwrap()
    }

    #[test]
    fn absolute_times() {
        let now = tm(2026, 11, 29, 22, 55, 54);
        assert_eq!(fmt_timestamp(now), "2026-11-29T22:55:54");
        assert_eq!(fmt_timestamp(0), "Unknown");
        assert_eq!(fmt_timestamp(INFINITE_TIME), "Unknown");
        assert_eq!(fmt_timestamp(NO_VAL_TIME), "None");
        let p = |s: &str| parse_time(s, now, false).map(fmt_timestamp);
        assert_eq!(p("now"), Ok("2026-11-29T22:55:54".into()));
        assert_eq!(p("now+60"), Ok("2026-11-29T22:56:54".into()));
        assert_eq!(p("now+1hour"), Ok("2026-11-29T23:55:54".into()));
        assert_eq!(p("now+2days"), Ok("2026-12-01T22:55:54".into()));
        assert_eq!(p("now-1minute"), Ok("2026-11-29T22:54:54".into()));
        assert_eq!(p("now + 1 week"), Ok("2026-12-06T22:55:54".into()));
        assert_eq!(p("16:00"), Ok("2026-11-30T16:00:00".into())); // passed today
        assert_eq!(p("23:00"), Ok("2026-11-29T23:00:00".into()));
        assert_eq!(p("23:00:30"), Ok("2026-11-29T23:00:30".into()));
        assert_eq!(p("11:00pm"), Ok("2026-11-29T23:00:00".into()));
        assert_eq!(p("12:00am"), Ok("2026-11-30T00:00:00".into()));
        assert_eq!(p("2027-01-02"), Ok("2027-01-02T00:00:00".into()));
        assert_eq!(p("2027-01-02T03:04"), Ok("2027-01-02T03:04:00".into()));
        assert_eq!(p("2027-01-02T03:04:05"), Ok("2027-01-02T03:04:05".into()));
        assert_eq!(p("12/25"), Ok("2026-12-25T00:00:00".into()));
        assert_eq!(p("01/05"), Ok("2027-01-05T00:00:00".into())); // next year
        assert_eq!(p("0105"), Ok("2027-01-05T00:00:00".into()));
        assert_eq!(p("12.25.27"), Ok("2027-12-25T00:00:00".into()));
        assert_eq!(p("12/25-10:00"), Ok("2026-12-25T10:00:00".into()));
        assert_eq!(p("today"), Ok("2026-11-29T00:00:00".into()));
        assert_eq!(p("tomorrow"), Ok("2026-11-30T00:00:00".into()));
        assert_eq!(p("midnight"), Ok("2026-11-30T00:00:00".into()));
        assert_eq!(p("noon"), Ok("2026-11-30T12:00:00".into()));
        assert_eq!(p("teatime"), Ok("2026-11-30T16:00:00".into()));
        assert_eq!(p("tomorrow teatime"), Ok("2026-11-30T16:00:00".into()));
        assert_eq!(p("today noon"), Ok("2026-11-29T12:00:00".into()));
        assert_eq!(parse_time("uts1800000000", now, false), Ok(1800000000));
        assert_eq!(parse_time("", now, false), Ok(0));
        assert_eq!(parse_time("16:00", now, true).map(fmt_timestamp), Ok("2026-11-29T16:00:00".into()));
    }

    #[test]
    fn absolute_errors() {
        let now = tm(2026, 11, 29, 22, 55, 54);
        for bad in [
            "bogus",
            "25:00",
            "12:60",
            "13/01",
            "2026-13-01",
            "2026-01-32",
            "now+",
            "now+5years",
            "nowx",
            "uts12",
            "12:0",
            "1:2:3:4",
        ] {
            assert!(parse_time(bad, now, false).is_err(), "{bad:?} should fail");
        }
        assert_eq!(
            parse_time("bogus", now, false).unwrap_err().to_string(),
            "Invalid time specification (pos=0): bogus"
        );
    }
}
