//! Signal names and numbers (`scancel -s`, `sbatch --signal`, the JSON
//! exit code's signal name), Slurm's `sig_name2num`, `sig_num2name` and
//! `get_signal_opts` (`src/common/proc_args.c`).
//!
//! `sig_name2num(s)`:
//! 1. If `s` starts with a number (C `strtol`, base 10: leading blanks and
//!    a sign allowed), that number is the signal when only white space
//!    follows, else the answer is 0 (unknown). The number is not checked
//!    (`-s 99` and `-s -5` give 99 and -5; callers cast to `uint16_t`).
//! 2. Otherwise leading white space and then an optional `SIG` (any case)
//!    are skipped, and the rest must be one of the table's names (any case)
//!    followed only by white space.
//!
//! The table: HUP INT QUIT ABRT KILL ALRM TERM USR1 USR2 URG CONT STOP TSTP
//! TTIN TTOU XCPU, with Linux's numbers; Slurm 24.11 adds CHLD and PIPE
//! ([`Names::V24_11`]), 22.05 does not know them ([`Names::V22_05`]).
//! `sig_num2name` gives the table's name or the number in decimal.
//!
//! `--signal=[{R|B}:]SIG[@TIME]` ([`parse_signal_opts`]): an `R` (any case)
//! is taken first; sbatch then also takes a `B` and another `R`, in that
//! order (`R`, `B`, `RB`, `BR`, `RBR`); one optional `:` follows. The
//! signal is `sig_name2num` of the text up to `@`, cast to 16 bits, and must
//! be 1 to 65535 (so 65537 is SIGHUP). TIME is read with `strtol`, must be 0
//! to 65535 and be followed by nothing; without `@` it is 60.

use crate::num::{is_c_space, strtol};

/// Which release's name table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    V22_05,
    V24_11,
}

const TABLE: &[(&str, i32, bool)] = &[
    // (name, number on Linux, known to 22.05)
    ("HUP", 1, true),
    ("INT", 2, true),
    ("QUIT", 3, true),
    ("ABRT", 6, true),
    ("KILL", 9, true),
    ("ALRM", 14, true),
    ("TERM", 15, true),
    ("CHLD", 17, false),
    ("USR1", 10, true),
    ("USR2", 12, true),
    ("PIPE", 13, false),
    ("URG", 23, true),
    ("CONT", 18, true),
    ("STOP", 19, true),
    ("TSTP", 20, true),
    ("TTIN", 21, true),
    ("TTOU", 22, true),
    ("XCPU", 24, true),
];

fn table(names: Names) -> impl Iterator<Item = (&'static str, i32)> {
    TABLE.iter().filter(move |e| names == Names::V24_11 || e.2).map(|e| (e.0, e.1))
}

fn is_blank(s: &str) -> bool {
    s.bytes().all(is_c_space)
}

/// Slurm's `sig_name2num`: the signal's number, 0 when `s` names none.
pub fn sig_name2num(s: &str, names: Names) -> i32 {
    let n = strtol(s, 10);
    if n.converted() {
        return if is_blank(n.rest(s)) { n.value as i32 } else { 0 };
    }
    let mut p = s.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    if p.len() >= 3 && p.as_bytes()[..3].eq_ignore_ascii_case(b"SIG") {
        p = &p[3..];
    }
    for (name, num) in table(names) {
        let b = p.as_bytes();
        if b.len() >= name.len() && b[..name.len()].eq_ignore_ascii_case(name.as_bytes()) && is_blank(&p[name.len()..])
        {
            return num;
        }
    }
    0
}

/// Slurm's `sig_num2name`: `USR1` for 10, `99` for an unnamed number.
pub fn sig_num2name(sig: i32, names: Names) -> String {
    table(names).find(|(_, n)| *n == sig).map(|(s, _)| s.to_string()).unwrap_or_else(|| sig.to_string())
}

/// A `--signal` option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignalOpts {
    pub signal: u16,
    /// Seconds before the time limit (60 when not given).
    pub time: u16,
    /// `R`: also signal when the reservation ends.
    pub resv: bool,
    /// `B`: signal the batch shell only (sbatch).
    pub batch: bool,
}

/// A `--signal` value Slurm refuses (`Invalid --signal specification`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignalOptsError(pub String);

impl std::fmt::Display for SignalOptsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Invalid --signal specification")
    }
}
impl std::error::Error for SignalOptsError {}

/// Slurm's `get_signal_opts`; `sbatch` allows the `B` flag.
pub fn parse_signal_opts(arg: &str, sbatch: bool, names: Names) -> Result<SignalOpts, SignalOptsError> {
    let bad = || SignalOptsError(arg.to_string());
    let mut p = arg;
    let (mut resv, mut batch) = (false, false);
    let take = |p: &mut &str, c: u8| -> bool {
        if p.as_bytes().first().map(|b| b.eq_ignore_ascii_case(&c)).unwrap_or(false) {
            *p = &p[1..];
            true
        } else {
            false
        }
    };
    resv |= take(&mut p, b'R');
    if sbatch {
        batch |= take(&mut p, b'B');
        resv |= take(&mut p, b'R');
    }
    p = p.strip_prefix(':').unwrap_or(p);
    let (sig, time) = match p.find('@') {
        Some(i) => (&p[..i], Some(&p[i + 1..])),
        None => (p, None),
    };
    let num = sig_name2num(sig, names) as u16;
    if num == 0 {
        return Err(bad());
    }
    let time = match time {
        None => 60,
        Some(t) => {
            let n = strtol(t, 10);
            let rest = if n.converted() { n.rest(t) } else { t };
            if !(0..=0xffff).contains(&n.value) || !rest.is_empty() {
                return Err(bad());
            }
            n.value as u16
        }
    };
    Ok(SignalOpts { signal: num, time, resv, batch })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let n = |s: &str| sig_name2num(s, Names::V24_11);
        assert_eq!(
            (n("KILL"), n("sigusr1"), n("15"), n("15x"), n("FOO"), n(" 9 "), n("SIGCHLD")),
            (9, 10, 15, 0, 0, 9, 17)
        );
        assert_eq!(sig_name2num("CHLD", Names::V22_05), 0);
        assert_eq!(sig_num2name(10, Names::V24_11), "USR1");
        assert_eq!(sig_num2name(64, Names::V24_11), "64");
        let o = |s: &str| parse_signal_opts(s, true, Names::V24_11).map(|o| (o.signal, o.time, o.resv, o.batch));
        assert_eq!(o("B:USR1@30"), Ok((10, 30, false, true)));
        assert_eq!(o("RB:10"), Ok((10, 60, true, true)));
        assert_eq!(o("BR:10"), Ok((10, 60, true, true)));
        assert!(o("BB:10").is_err());
        assert_eq!(o("65537"), Ok((1, 60, false, false)));
        assert!(o("USR1@").is_ok());
        assert!(o("USR1@x").is_err() && o("USR1@70000").is_err() && o("0").is_err());
        assert!(parse_signal_opts("B:USR1", false, Names::V24_11).is_err());
    }
}
