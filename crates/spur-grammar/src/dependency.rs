//! Job dependencies (`sbatch -d`, `scontrol update Dependency=`) and
//! `--kill-on-invalid-dep`.
//!
//! sbatch sends the text as given; slurmctld reads it (Slurm 24.11
//! `job_scheduler.c`: `update_job_dependency`, `_xlate_array_dep`,
//! `_parse_dependency_jobid_new`/`_old`, `_parse_depend_state`) and refuses
//! it with `ESLURM_DEPENDENCY` (`Job dependency problem`), after giving the
//! job an id. The syntax rules, which this module decides:
//!
//! 1. Empty, or exactly `0`, clears the dependency ([`parse`] gives `None`).
//! 2. First, if the text holds `_[`, every `JOBID_[LIST]` (a run of digits
//!    right before `_[`) becomes `JOBID_T1:JOBID_T2:...` for the tasks of
//!    LIST (read as `bit_unfmt` reads a bitmap, below MaxArraySize). A list
//!    that does not read, or names no task, leaves the whole text as it was
//!    (and the `[` then makes it invalid).
//! 3. Items follow, separated by `,` (all must be satisfied) or `?` (any);
//!    one `?` anywhere makes the whole list "any".
//! 4. An item starting with `singleton` (any case) is one; an optional
//!    `(STATE)` may follow; then `,`, `?` or the end.
//! 5. Without `:` in the rest, an item starting with a digit is the old
//!    format: a job id, meaning `afterany`, followed by `,` or the end.
//! 6. Otherwise the item must start (any case) with `afternotok:`,
//!    `aftercorr:`, `afterany:`, `afterok:`, `after:`, `expand:`, or the
//!    11 characters `afterburstb` (slurmctld compares only that much of
//!    `afterburstbuffer:`; the job ids then start after the first `:`).
//!    `expand` is refused with `ESLURM_NOT_SUPPORTED` unless
//!    `SchedulerParameters=permit_job_expansion`.
//! 7. Job ids are separated by `:`. Each is `strtol`, not 0 (as `uint32_t`:
//!    `-1` is 4294967295), optionally `_*` or `_TASK` (`strtol`), then one
//!    of `,` `?` `:` `+` `(` or the end. `+MINUTES` (`strtol`, > 0) and
//!    `(STATE)` may follow. A `(` without a `)` later is refused; a STATE
//!    of `failed` marks the item failed, anything else unfulfilled.
//!
//! Whether the named jobs exist is the caller's business: slurmctld 24.11
//! refuses `afterok`/`afternotok` on a job it does not know (22.05 accepts
//! it), and `expand` on a job that is not running.

use crate::num::strtol;
use std::fmt;

/// What an item waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DepKind {
    After,
    AfterAny,
    AfterOk,
    AfterNotOk,
    AfterCorr,
    AfterBurstBuffer,
    Expand,
    Singleton,
}

impl DepKind {
    /// The name `scontrol show job` prints (`_depend_type2str`).
    pub fn name(self) -> &'static str {
        match self {
            DepKind::After => "after",
            DepKind::AfterAny => "afterany",
            DepKind::AfterOk => "afterok",
            DepKind::AfterNotOk => "afternotok",
            DepKind::AfterCorr => "aftercorr",
            DepKind::AfterBurstBuffer => "afterburstbuffer",
            DepKind::Expand => "expand",
            DepKind::Singleton => "singleton",
        }
    }
}

/// Which tasks of the named job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DepTask {
    /// `5`: the job (slurmctld widens it to `5_*` when 5 is an array).
    Job,
    /// `5_*`
    All,
    /// `5_3`
    One(u32),
}

/// One item of a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepItem {
    pub kind: DepKind,
    /// 0 for `singleton`.
    pub job_id: u32,
    pub task: DepTask,
    /// `+MINUTES`; 0 when not given.
    pub minutes: u32,
    /// `(failed)` was given.
    pub failed: bool,
}

/// A parsed dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// `?` was used: any item satisfied is enough.
    pub any: bool,
    pub items: Vec<DepItem>,
}

impl Dependency {
    /// The `Dependency=` text slurmctld keeps (`_depend_list2str`), every
    /// item in the given state (`unfulfilled`, `failed`) unless it was
    /// given as `(failed)`.
    pub fn display(&self, state: &str) -> String {
        let mut out = String::new();
        for (n, d) in self.items.iter().enumerate() {
            if n > 0 {
                out.push(if self.any { '?' } else { ',' });
            }
            let state = if d.failed { "failed" } else { state };
            if d.kind == DepKind::Singleton {
                out.push_str(&format!("singleton({})", state));
                continue;
            }
            out.push_str(&format!("{}:{}", d.kind.name(), d.job_id));
            match d.task {
                DepTask::Job => {}
                DepTask::All => out.push_str("_*"),
                DepTask::One(t) => out.push_str(&format!("_{}", t)),
            }
            if d.minutes != 0 {
                out.push_str(&format!("+{}", d.minutes));
            }
            out.push_str(&format!("({})", state));
        }
        out
    }
}

/// Why slurmctld refuses a dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DependencyError {
    /// `ESLURM_DEPENDENCY`.
    Invalid,
    /// `expand:` without `permit_job_expansion` (`ESLURM_NOT_SUPPORTED`).
    ExpandNotPermitted,
}

impl fmt::Display for DependencyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DependencyError::Invalid => f.write_str("Job dependency problem"),
            DependencyError::ExpandNotPermitted => f.write_str("Requested operation not supported on this system"),
        }
    }
}
impl std::error::Error for DependencyError {}

/// How many tasks a dependency's task lists (`5_[1-3]`) may name in all,
/// as a multiple of MaxArraySize (as `--array`'s stepped ranges are bounded:
/// `array::MAX_STEPPED_WORK`). slurmctld writes out every task named; a
/// 128 KiB dependency of lists `N_[0-1000]` named 9.4 million tasks and took
/// 12 s to read (a release build), at submission and again at every
/// scheduling pass. Past the bound the list does not read: `Job dependency
/// problem`.
pub const MAX_DEP_TASKS_WORK: u64 = crate::array::MAX_STEPPED_WORK;

/// `bitfmt2int` + `inx2bitstr`: the tasks a bitmap string names, below
/// `max`; each range's tasks counted against `budget` (none left: `None`).
fn bit_unfmt(s: &str, max: u32, budget: &mut u64) -> Option<Vec<u32>> {
    let mut pairs: Vec<(i64, i64)> = Vec::new();
    if !s.contains(':') {
        let b = s.as_bytes();
        let (mut sum, mut start): (i32, i32) = (0, -1);
        for i in 0..=b.len() {
            let c = b.get(i).copied().unwrap_or(0);
            if c.is_ascii_digit() {
                sum = sum.wrapping_mul(10).wrapping_add((c - b'0') as i32);
            } else if c == b'-' {
                start = sum;
                sum = 0;
            } else if c == b',' || c == 0 {
                if i == 0 {
                    break;
                }
                if start == -1 {
                    start = sum;
                }
                pairs.push((start as i64, sum as i64));
                start = -1;
                sum = 0;
            }
        }
    } else {
        let first = strtol(s, 10);
        let r = first.rest(s).strip_prefix('-')?;
        let last = strtol(r, 10);
        let r = last.rest(r).strip_prefix(':')?;
        let step = strtol(r, 10);
        if !step.rest(r).is_empty() {
            return None;
        }
        let (first, last, step) = (first.value as i32 as i64, last.value as i32 as i64, step.value as i32 as i64);
        if last < first || step <= 0 {
            return None;
        }
        // bitfmt2int stops before the last index. An index out of range
        // makes the whole list not read (below): stop at the first, so a
        // range such as 1-377777777:2 never lists more than `max` pairs
        // (found by the dependency fuzz target: out of memory)
        if first < 0 {
            return None;
        }
        let mut i = first;
        while i < last {
            if i >= max as i64 {
                return None;
            }
            pairs.push((i, i));
            i += step;
        }
    }
    let mut bits = std::collections::BTreeSet::new();
    for (a, b) in pairs {
        if a < 0 || a >= max as i64 || b < 0 || b >= max as i64 {
            return None;
        }
        let work = (b - a + 1).max(1) as u64;
        *budget = budget.checked_sub(work)?;
        bits.extend(a as u32..=b.max(a - 1) as u32);
    }
    Some(bits.into_iter().collect())
}

/// `_xlate_array_dep`: `5_[1-3]` becomes `5_1:5_2:5_3`; None when the text
/// has no `_[` or a list does not read.
fn xlate_array_dep(s: &str, max_array_size: u32) -> Option<String> {
    if !s.contains("_[") {
        return None;
    }
    let b = s.as_bytes();
    let mut out = String::new();
    let mut jobid_at: Option<usize> = None;
    let mut budget = MAX_DEP_TASKS_WORK.saturating_mul(max_array_size as u64);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // copy one character (a whole UTF-8 sequence)
        let w = s[i..].chars().next().map(|c| c.len_utf8()).unwrap_or(1);
        out.push_str(&s[i..i + w]);
        if c.is_ascii_digit() {
            jobid_at.get_or_insert(i);
        } else if c == b'_' && b.get(i + 1) == Some(&b'[') && jobid_at.is_some() {
            let job_id = strtol(&s[jobid_at.unwrap_or(0)..], 10).value as u32;
            let list = &s[i + 2..];
            let close = list.find(']')?;
            let tasks = bit_unfmt(&list[..close], max_array_size, &mut budget)?;
            let (first, rest) = tasks.split_first()?;
            out.push_str(&first.to_string());
            for t in rest {
                out.push_str(&format!(":{}_{}", job_id, t));
            }
            i += 2 + close + 1;
            jobid_at = None;
            continue;
        } else {
            jobid_at = None;
        }
        i += w;
    }
    Some(out)
}

fn at(s: &str, i: usize) -> u8 {
    s.as_bytes().get(i).copied().unwrap_or(0)
}

/// The first of a byte at or after a position of the text being read,
/// scanning forward only: slurmctld's parser looks for `(`, `)` and `:` with
/// `strchr` over the whole rest of the text at each item (quadratic in the
/// text: 2.5 s for a 128 KiB dependency in a debug build); the positions
/// asked for only grow, so keeping the last answer, the text is scanned once
/// for each byte. The answers are strchr's.
struct Finder<'a> {
    base: &'a str,
    byte: u8,
    /// (searched from, the first found at or after it)
    last: Option<(usize, Option<usize>)>,
}

impl<'a> Finder<'a> {
    fn new(base: &'a str, byte: u8) -> Finder<'a> {
        Finder { base, byte, last: None }
    }

    /// The first `byte` in `s`, a slice of the base text, as an index in `s`.
    fn find(&mut self, s: &str) -> Option<usize> {
        let pos = (s.as_ptr() as usize).wrapping_sub(self.base.as_ptr() as usize);
        if pos > self.base.len() {
            // (not a slice of the base: searched as it is)
            return s.bytes().position(|b| b == self.byte);
        }
        let found = match self.last {
            Some((from, Some(i))) if from <= pos && i >= pos => Some(i),
            Some((from, None)) if from <= pos => None,
            _ => self.base.as_bytes()[pos..].iter().position(|&b| b == self.byte).map(|i| i + pos),
        };
        self.last = Some((pos, found));
        found.map(|i| i - pos)
    }
}

/// The finders of one parse.
struct Finders<'a> {
    open: Finder<'a>,
    close: Finder<'a>,
    colon: Finder<'a>,
}

/// `_parse_depend_state`: an optional `(STATE)`; returns (failed, rest).
fn depend_state<'s>(s: &'s str, f: &mut Finders) -> Result<(bool, &'s str), DependencyError> {
    if let Some(open) = f.open.find(s) {
        let close = f.close.find(s).ok_or(DependencyError::Invalid)?;
        // `failed` is the one state that counts; `strchr` finds the first `)`
        let inner = s.get(open + 1..close).unwrap_or("");
        Ok((inner.eq_ignore_ascii_case("failed"), &s[close + 1..]))
    } else {
        Ok((false, s))
    }
}

/// A job id with its task, as `_parse_dependency_jobid_*` read it:
/// (job id, task, rest).
fn dep_job_id(s: &str) -> (u32, DepTask, &str) {
    let j = strtol(s, 10);
    let job_id = j.value as u32;
    let rest = j.rest(s);
    if let Some(r) = rest.strip_prefix('_') {
        if let Some(r2) = r.strip_prefix('*') {
            return (job_id, DepTask::All, r2);
        }
        let t = strtol(r, 10);
        return (job_id, DepTask::One(t.value as u32), t.rest(r));
    }
    (job_id, DepTask::Job, rest)
}

const KINDS: &[(&str, DepKind)] = &[
    ("afternotok:", DepKind::AfterNotOk),
    ("aftercorr:", DepKind::AfterCorr),
    ("afterany:", DepKind::AfterAny),
    ("afterok:", DepKind::AfterOk),
    // slurmctld compares 11 characters of "afterburstbuffer:"
    ("afterburstb", DepKind::AfterBurstBuffer),
    ("after:", DepKind::After),
    ("expand:", DepKind::Expand),
];

/// Parse a dependency as slurmctld does; `None` clears it. Duplicate items
/// are kept once (slurmctld's list does not add an equal item twice).
pub fn parse(s: &str, max_array_size: u32, permit_expansion: bool) -> Result<Option<Dependency>, DependencyError> {
    use DependencyError::Invalid;
    if s.is_empty() || s == "0" {
        return Ok(None);
    }
    let xlated = xlate_array_dep(s, max_array_size);
    let mut tok: &str = xlated.as_deref().unwrap_or(s);
    let mut f = Finders { open: Finder::new(tok, b'('), close: Finder::new(tok, b')'), colon: Finder::new(tok, b':') };
    let mut dep = Dependency { any: false, items: Vec::new() };
    // the items kept so far, looked up in a set: a 128 KiB dependency holds
    // some 20,000 items (compared with each other, a second of work; the
    // scheduler reads every pending job's dependency at each pass)
    let mut kept = std::collections::HashSet::new();
    let mut add = |dep: &mut Dependency, d: DepItem| {
        if kept.insert((d.kind, d.job_id, d.task)) {
            dep.items.push(d);
        }
    };
    loop {
        if tok.len() >= 9 && tok.as_bytes()[..9].eq_ignore_ascii_case(b"singleton") {
            let (failed, rest) = depend_state(&tok[9..], &mut f)?;
            add(&mut dep, DepItem { kind: DepKind::Singleton, job_id: 0, task: DepTask::Job, minutes: 0, failed });
            match at(rest, 0) {
                b',' => tok = &rest[1..],
                b'?' => {
                    dep.any = true;
                    tok = &rest[1..];
                }
                0 => break,
                _ => return Err(Invalid),
            }
            continue;
        }
        let colon = f.colon.find(tok);
        if colon.is_none() && at(tok, 0).is_ascii_digit() {
            // the old format: job ids meaning afterany
            let (job_id, task, rest) = dep_job_id(tok);
            if job_id == 0 || !matches!(at(rest, 0), 0 | b',') {
                return Err(Invalid);
            }
            add(&mut dep, DepItem { kind: DepKind::AfterAny, job_id, task, minutes: 0, failed: false });
            if at(rest, 0) == b',' {
                tok = &rest[1..];
                continue;
            }
            break;
        }
        let colon = colon.ok_or(Invalid)?;
        let low = tok.as_bytes();
        let kind = KINDS
            .iter()
            .find(|(p, _)| low.len() >= p.len() && low[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
            .map(|(_, k)| *k)
            .ok_or(Invalid)?;
        if kind == DepKind::Expand && !permit_expansion {
            return Err(DependencyError::ExpandNotPermitted);
        }
        let mut p = &tok[colon + 1..];
        loop {
            let (job_id, task, mut rest) = dep_job_id(p);
            if job_id == 0 || !matches!(at(rest, 0), 0 | b',' | b'?' | b':' | b'+' | b'(') {
                return Err(Invalid);
            }
            let mut minutes = 0;
            if let Some(r) = rest.strip_prefix('+') {
                let m = strtol(r, 10);
                let m32 = m.value as i32;
                if m32 <= 0 {
                    return Err(Invalid);
                }
                minutes = m32 as u32;
                rest = m.rest(r);
            }
            let (failed, r) = depend_state(rest, &mut f)?;
            rest = r;
            add(&mut dep, DepItem { kind, job_id, task, minutes, failed });
            if at(rest, 0) != b':' {
                p = rest;
                break;
            }
            p = &rest[1..];
        }
        match at(p, 0) {
            b',' => tok = &p[1..],
            b'?' => {
                dep.any = true;
                tok = &p[1..];
            }
            _ => break,
        }
    }
    Ok(Some(dep))
}

/// `--kill-on-invalid-dep=yes|no` (any case): true for yes. Anything else
/// is refused with `Invalid --kill-on-invalid-dep specification`.
pub fn parse_kill_on_invalid_dep(s: &str) -> Result<bool, KillOnInvalidDepError> {
    if s.eq_ignore_ascii_case("yes") {
        Ok(true)
    } else if s.eq_ignore_ascii_case("no") {
        Ok(false)
    } else {
        Err(KillOnInvalidDepError(s.to_string()))
    }
}

/// A `--kill-on-invalid-dep` value other than yes or no.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KillOnInvalidDepError(pub String);

impl fmt::Display for KillOnInvalidDepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Invalid --kill-on-invalid-dep specification")
    }
}
impl std::error::Error for KillOnInvalidDepError {}
