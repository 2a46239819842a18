//! Job array specifications (`sbatch --array=1-10:2%4`).
//!
//! sbatch sends the text as given; slurmctld decides (Slurm 24.11
//! `job_mgr.c` `_valid_array_inx`, `slurm_protocol_defs.c`
//! `slurm_parse_array_tok`), and a refusal reaches the user as
//! `sbatch: error: Batch job submission failed: Invalid job array
//! specification`, exit 1, with no job id used. The rules:
//!
//! 1. An empty specification is no array at all.
//! 2. `MaxArraySize=0` disables arrays: every specification is refused.
//! 3. The text is cut at every `,` (empty pieces are skipped, as `strtok`
//!    does: `1,,2` is fine, and `,` alone names no task, which slurmctld
//!    takes as a job that is not an array).
//! 4. Each piece: an optional leading `[`; a first index read with `strtol`
//!    (leading blanks and a sign allowed, no digits reads as 0); an optional
//!    `]`; then either the end, a `%` (the rest of the piece is not looked
//!    at), or `-LAST` (same reading, optional `]`) followed by the end, a `%`,
//!    or `:STEP` (same reading, optional `]`) and then the end or a `%`.
//!    A negative first index, `LAST < FIRST`, a step `<= 0` or
//!    `>= MaxArraySize`, or a last index `>= MaxArraySize` is refused.
//!    So `%5` alone names task 0, `1-` is refused (LAST reads as 0) and
//!    `0-` names task 0.
//! 5. `SchedulerParameters=max_array_tasks=N` (smaller than MaxArraySize)
//!    refuses a specification naming more than N tasks.
//! 6. The throttle (`ArrayTaskThrottle`) is `atoi` of the text after the
//!    first `%` when positive (`1-3%abc` is accepted, unthrottled); the step
//!    that the batch environment shows (`SLURM_ARRAY_TASK_STEP`) is `atoi`
//!    of the text after the first `:` (1 without one).

use crate::num::{atoi, strtol};
use std::fmt;

/// slurm.conf's `MaxArraySize` default.
pub const DEFAULT_MAX_ARRAY_SIZE: u32 = 1001;
/// The largest `MaxArraySize` slurm.conf allows: a specification slurmctld
/// accepted names the same tasks when read again with this bound.
pub const MAX_MAX_ARRAY_SIZE: u32 = 4_000_001;

/// A valid array specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArraySpec {
    /// The task ids, ascending, without duplicates. Empty for a
    /// specification that names no task (`,`): not an array.
    pub tasks: Vec<u32>,
    /// Most tasks running at once; 0 for no limit.
    pub throttle: u32,
    /// `SLURM_ARRAY_TASK_STEP`: `atoi` after the first `:`, else 1.
    pub step: i32,
}

impl ArraySpec {
    /// `SLURM_ARRAY_TASK_COUNT`, `_MIN`, `_MAX`: (count, min, max); None when
    /// no task is named.
    pub fn bounds(&self) -> Option<(u32, u32, u32)> {
        Some((self.tasks.len() as u32, *self.tasks.first()?, *self.tasks.last()?))
    }
}

/// Why slurmctld refuses a specification (all are `ESLURM_INVALID_ARRAY`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArrayError {
    /// `MaxArraySize=0`.
    Disabled,
    /// A piece of the specification breaks rule 4.
    BadToken(String),
    /// More tasks than `max_array_tasks` allows.
    TooManyTasks { count: usize, max: u32 },
    /// Stepped ranges naming more than [`MAX_STEPPED_WORK`] times
    /// MaxArraySize tasks in all, and more than [`MIN_STEPPED_BUDGET`]
    /// (Spur's own bound; Slurm reads on).
    TooMuchWork { work: u64, budget: u64 },
}

impl fmt::Display for ArrayError {
    /// Slurm's text for `ESLURM_INVALID_ARRAY`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Invalid job array specification")
    }
}
impl std::error::Error for ArrayError {}

/// One piece (`slurm_parse_array_tok`): (first, last, step) of the tasks it names.
fn parse_tok(tok: &str, max: u32) -> Option<(u32, u32, u32)> {
    let tok = tok.strip_prefix('[').unwrap_or(tok);
    let at = |s: &str, i: usize| s.as_bytes().get(i).copied().unwrap_or(0);
    let ends_ok = |c: u8| c == 0 || c == b'%';
    let first = strtol(tok, 10);
    let mut rest = first.rest(tok);
    if at(rest, 0) == b']' {
        rest = &rest[1..];
    }
    let first = first.value;
    if first < 0 {
        return None;
    }
    let (last, step);
    if at(rest, 0) == b'-' {
        let s = &rest[1..];
        let l = strtol(s, 10);
        rest = if l.converted() { l.rest(s) } else { s };
        if at(rest, 0) == b']' {
            rest = &rest[1..];
        }
        if at(rest, 0) == b':' {
            let s = &rest[1..];
            let st = strtol(s, 10);
            rest = if st.converted() { st.rest(s) } else { s };
            if at(rest, 0) == b']' {
                rest = &rest[1..];
            }
            if !ends_ok(at(rest, 0)) {
                return None;
            }
            if st.value <= 0 || st.value >= max as i64 {
                return None;
            }
            step = st.value;
        } else if !ends_ok(at(rest, 0)) {
            return None;
        } else {
            step = 1;
        }
        last = l.value;
        if last < first {
            return None;
        }
    } else if !ends_ok(at(rest, 0)) {
        return None;
    } else {
        last = first;
        step = 1;
    }
    if last >= max as i64 {
        return None;
    }
    Some((first as u32, last as u32, step as u32))
}

/// Sets bits `first..=last` of `bits`, a word at a time.
fn set_range(bits: &mut [u64], first: usize, last: usize) {
    let (fw, lw) = (first / 64, last / 64);
    let low = !0u64 << (first % 64);
    let high = !0u64 >> (63 - last % 64);
    if fw == lw {
        bits[fw] |= low & high;
        return;
    }
    bits[fw] |= low;
    for w in &mut bits[fw + 1..lw] {
        *w = !0;
    }
    bits[lw] |= high;
}

/// How many times MaxArraySize the stepped ranges of one specification may
/// name in all (each distinct range counted once), but at least
/// [`MIN_STEPPED_BUDGET`]: past it the text only repeats itself at the
/// reader's expense (`0-4000000:2,1-4000000:2, 0-4000000:3,...`), and it is
/// refused. Slurm reads on; within slurmctld's 4096 bytes of `--array` and
/// the default MaxArraySize no specification comes near the bound.
pub const MAX_STEPPED_WORK: u64 = 8;
/// The least bound on stepped ranges' tasks in all (a few milliseconds' work).
pub const MIN_STEPPED_BUDGET: u64 = 16 * 1024 * 1024;

/// Parse a specification as slurmctld does, with its `MaxArraySize`.
pub fn parse(spec: &str, max_array_size: u32) -> Result<ArraySpec, ArrayError> {
    parse_limited(spec, max_array_size, None)
}

/// [`parse`] with `SchedulerParameters=max_array_tasks=N` in force.
pub fn parse_limited(spec: &str, max_array_size: u32, max_array_tasks: Option<u32>) -> Result<ArraySpec, ArrayError> {
    if spec.is_empty() {
        return Ok(ArraySpec { tasks: Vec::new(), throttle: 0, step: 1 });
    }
    if max_array_size == 0 {
        return Err(ArrayError::Disabled);
    }
    let mut ranges = Vec::new();
    for tok in spec.split(',').filter(|t| !t.is_empty()) {
        ranges.push(parse_tok(tok, max_array_size).ok_or_else(|| ArrayError::BadToken(tok.to_string()))?);
    }
    // a bitmap as slurmctld keeps, as long as the highest index needs
    // (below MaxArraySize); the work is bounded whatever the text repeats:
    // plain ranges are merged first and set a word at a time, stepped ones
    // (each distinct once) may set at most MAX_STEPPED_WORK bits in all
    let top = ranges.iter().map(|r| r.1 as usize + 1).max().unwrap_or(0);
    let mut bits = vec![0u64; top.div_ceil(64)];
    ranges.sort_unstable();
    ranges.dedup();
    let (plain, stepped): (Vec<_>, Vec<_>) = ranges.into_iter().partition(|r| r.2 == 1);
    let work: u64 = stepped.iter().map(|&(f, l, st)| (l - f) as u64 / st as u64 + 1).sum();
    let budget = MAX_STEPPED_WORK.saturating_mul(max_array_size as u64).max(MIN_STEPPED_BUDGET);
    if work > budget {
        return Err(ArrayError::TooMuchWork { work, budget });
    }
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (first, last, _) in plain {
        match merged.last_mut() {
            Some(m) if first as u64 <= m.1 as u64 + 1 => m.1 = m.1.max(last),
            _ => merged.push((first, last)),
        }
    }
    for (first, last) in merged {
        set_range(&mut bits, first as usize, last as usize);
    }
    for (first, last, step) in stepped {
        let mut i = first as u64;
        while i <= last as u64 {
            bits[i as usize / 64] |= 1 << (i % 64);
            i += step as u64;
        }
    }
    let mut tasks = Vec::new();
    for (w, word) in bits.iter().enumerate().filter(|(_, w)| **w != 0) {
        tasks.extend((0..64).filter(|b| word & (1 << b) != 0).map(|b| (w * 64 + b) as u32));
    }
    if let Some(max) = max_array_tasks.filter(|m| *m < max_array_size) {
        if tasks.len() > max as usize {
            return Err(ArrayError::TooManyTasks { count: tasks.len(), max });
        }
    }
    let throttle = spec.find('%').map(|p| atoi(&spec[p + 1..])).filter(|t| *t > 0).unwrap_or(0) as u32;
    let step = spec.find(':').map(|p| atoi(&spec[p + 1..])).unwrap_or(1);
    Ok(ArraySpec { tasks, throttle, step })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Result<(Vec<u32>, u32), ArrayError> {
        parse(s, DEFAULT_MAX_ARRAY_SIZE).map(|a| (a.tasks, a.throttle))
    }

    #[test]
    fn rules() {
        assert_eq!(t("1-3"), Ok((vec![1, 2, 3], 0)));
        assert_eq!(t("1-3%2"), Ok((vec![1, 2, 3], 2)));
        assert_eq!(t("1-3%abc"), Ok((vec![1, 2, 3], 0)));
        assert_eq!(t("0-6:3,10"), Ok((vec![0, 3, 6, 10], 0)));
        assert_eq!(t("[1-2]"), Ok((vec![1, 2], 0)));
        assert_eq!(t("%5"), Ok((vec![0], 5)));
        assert_eq!(t(","), Ok((vec![], 0)));
        assert_eq!(t("0-"), Ok((vec![0], 0)));
        for bad in ["abc", "3-1", "1-3:0", "1000-1001", "-1", "1-x", "1:2", "1-", "1-99999999999999999999999"] {
            assert!(t(bad).is_err(), "{bad}");
        }
        assert_eq!(parse("1", 0), Err(ArrayError::Disabled));
        assert!(parse_limited("1-5", 1001, Some(4)).is_err());
        assert_eq!(parse("0-15:4%2", 1001).unwrap().step, 4);
        assert_eq!(parse("0-15:4%2", 1001).unwrap().bounds(), Some((4, 0, 12)));
    }

    #[test]
    fn repeated_and_overlapping_ranges_are_read_once() {
        // merged plain ranges give the same tasks as setting each index
        let naive = |spec: &str, max: u32| -> Vec<u32> {
            let mut v: Vec<u32> = Vec::new();
            for tok in spec.split(',').filter(|t| !t.is_empty()) {
                let (f, l, st) = parse_tok(tok, max).unwrap();
                v.extend((f..=l).step_by(st as usize));
            }
            v.sort_unstable();
            v.dedup();
            v
        };
        for spec in ["0-63", "1-64", "0-0,63-64,127-128", "5-70,3-9,60-200:7,0-1000:333", "64-127,0-63,128-128"] {
            assert_eq!(parse(spec, 1001).unwrap().tasks, naive(spec, 1001), "{spec}");
        }
        // `0-4000000` a hundred thousand times: one range, read once
        let max = MAX_MAX_ARRAY_SIZE;
        let many = vec!["0-4000000"; 100_000].join(",");
        let t0 = std::time::Instant::now();
        assert_eq!(parse(&many, max).unwrap().tasks.len(), 4_000_001);
        // distinct stepped ranges past the bound are refused before any is read
        let stepped: Vec<String> = (2..20_000).map(|st| format!("0-4000000:{st}")).collect();
        assert!(matches!(parse(&stepped.join(","), max), Err(ArrayError::TooMuchWork { .. })));
        assert!(t0.elapsed() < std::time::Duration::from_secs(10), "{:?}", t0.elapsed());
        // within the bound they are read
        assert_eq!(parse("0-4000000:2,1-4000000:2", max).unwrap().tasks.len(), 4_000_001);
    }
}
