//! Job references: `123`, `123_4`, `123_[1-3,5]`, `123_*`, `123+1`,
//! `123.4`, `123.batch`, `123.extern`, `123.interactive`, `123_4.2`,
//! `123.0+1`.
//!
//! One type, [`JobRef`], for every reader. Slurm itself reads them in
//! several places with different rules, and each command behaves as its own
//! reader does, so each has its function here:
//!
//! * [`parse`]: `unfmt_job_id_string` (`slurm_protocol_defs.c`), the full
//!   grammar with a typed error for each refusal (the C ABI, `scontrol show
//!   step`, the REST data parsers, sprio). Job id by `strtol`: not 0, not
//!   negative, below 0xfffffffd, no text but what follows; `_[LIST]` (an
//!   array specification, only when a MaxArraySize is given, ending the
//!   text), `_TASK` (`strtol`, not negative, not `LONG_MAX`), or neither;
//!   `+HET` (not with a task; `strtol`, 0 to 128); then `.STEP`: a number
//!   below 0xfffffff0, or (when no digit) a name `TBD`, `extern`, `batch`,
//!   `interactive` compared on its own length, any case (`5.batchx` is
//!   `batch` followed by junk, refused); then `+HETSTEP` (not with `+HET`; an
//!   empty one is allowed; else 1 to 127, nothing after). Slurm 24.11
//!   crashes on a step name it does not know (it reads past its table):
//!   Spur refuses it as non-numeric.
//! * [`parse_job_str`]: slurmctld's `job_str_signal` (a cancel or signal by
//!   id): job id by `strtol`, positive, not `LONG_MAX`, cut to 32 bits,
//!   followed by nothing, `_*`, `+HET` (not negative, nothing after) or `_`
//!   and an array specification (`5_1-3`, `5_[1,3]`).
//! * [`parse_scancel_args`]: scancel's `_xlate_job_step_ids`.
//! * [`parse_squeue_jobs`]: squeue's `_build_job_list` (`-j`): the ids are
//!   `int`, so 2147483648 is refused and 4294967297 is job 1.
//! * [`parse_scontrol_job`]: `scontrol show job ID`: only digits, `_` and
//!   `+` allowed; `strtol` for each part.
//!
//! Numbers are C's `strtol` (`crate::num`) with C's casts, as each reader has
//! them.

use crate::num::strtol;
use std::fmt;

/// Slurm's `MAX_FED_JOB_ID`: job ids must be below it.
pub const MAX_FED_JOB_ID: u32 = 0xffff_fffd;
/// Slurm's `MAX_HET_JOB_COMPONENTS`.
pub const MAX_HET_JOB_COMPONENTS: i64 = 128;
/// Slurm's `SLURM_MAX_NORMAL_STEP_ID`: numbered steps are below it.
pub const MAX_NORMAL_STEP_ID: u32 = 0xffff_fff0;

/// Which array tasks a reference names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tasks {
    /// `123`: the job (the whole array when 123 is an array's id).
    Job,
    /// `123_*`
    All,
    /// `123_4`
    One(u32),
    /// `123_[1-3,5]`: ascending, no duplicates.
    Set(Vec<u32>),
}

/// A step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepId {
    Num(u32),
    /// `TBD` (`SLURM_PENDING_STEP`)
    Pending,
    /// `extern` (`SLURM_EXTERN_CONT`)
    Extern,
    /// `batch` (`SLURM_BATCH_SCRIPT`)
    Batch,
    /// `interactive` (`SLURM_INTERACTIVE_STEP`)
    Interactive,
}

impl StepId {
    /// Slurm's number for the step (`SLURM_BATCH_SCRIPT` is 0xfffffffb, ...).
    pub fn raw(self) -> u32 {
        match self {
            StepId::Num(n) => n,
            StepId::Pending => 0xffff_fffd,
            StepId::Extern => 0xffff_fffc,
            StepId::Batch => 0xffff_fffb,
            StepId::Interactive => 0xffff_fffa,
        }
    }
}

impl fmt::Display for StepId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepId::Num(n) => write!(f, "{}", n),
            StepId::Pending => f.write_str("TBD"),
            StepId::Extern => f.write_str("extern"),
            StepId::Batch => f.write_str("batch"),
            StepId::Interactive => f.write_str("interactive"),
        }
    }
}

/// A reference to a job, some of its array tasks, a heterogeneous
/// component, or a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRef {
    pub job_id: u32,
    pub tasks: Tasks,
    /// `+N` after the job: a heterogeneous job's component.
    pub het: Option<u32>,
    pub step: Option<StepId>,
    /// `+N` after the step: the step's heterogeneous component.
    pub step_het: Option<u32>,
}

impl JobRef {
    /// A plain job id.
    pub fn job(job_id: u32) -> JobRef {
        JobRef { job_id, tasks: Tasks::Job, het: None, step: None, step_het: None }
    }
}

impl fmt::Display for JobRef {
    /// As Slurm prints the parts (`fmt_job_id_string`): `5`, `5_3`,
    /// `5_[1-3,5]`, `5_*`, `5+1`, `5.batch`, `5_3.0`, `5.0+1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.job_id)?;
        match &self.tasks {
            Tasks::Job => {}
            Tasks::All => f.write_str("_*")?,
            Tasks::One(t) => write!(f, "_{}", t)?,
            Tasks::Set(v) => write!(f, "_[{}]", ranges(v))?,
        }
        if let Some(h) = self.het {
            write!(f, "+{}", h)?;
        }
        if let Some(s) = self.step {
            write!(f, ".{}", s)?;
        }
        if let Some(h) = self.step_het {
            write!(f, "+{}", h)?;
        }
        Ok(())
    }
}

/// `1-3,5` for [1, 2, 3, 5] (array indexes, reserved ports).
pub fn ranges(v: &[u32]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    out.join(",")
}

/// [`ranges`]' numbers back (`1-3,5` → [1, 2, 3, 5]); a part that is not
/// a number or a range of them, or a range of more than a million, is
/// skipped.
pub fn expand_ranges(s: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in s.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                    if b.saturating_sub(a) <= 1 << 20 {
                        out.extend(a..=b);
                    }
                }
            }
            None => out.extend(part.parse::<u32>().ok()),
        }
    }
    out
}

/// Why `unfmt_job_id_string` refuses a reference; each is a Slurm error
/// number ([`JobRefError::code`]) with its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobRefError {
    EmptyJobId,
    JobIdZero,
    JobIdNegative,
    JobIdTooLarge,
    JobIdNonNumeric,
    EmptyArrayId,
    ArrayIdNegative,
    ArrayIdTooLarge,
    ArrayIdNonNumeric,
    HetJobAndArray,
    EmptyHetComp,
    HetCompNegative,
    HetCompTooLarge,
    HetCompNonNumeric,
    EmptyStepId,
    StepIdNegative,
    StepIdTooLarge,
    StepIdNonNumeric,
    EmptyHetStep,
    HetStepZero,
    HetStepNegative,
    HetStepTooLarge,
    HetStepNonNumeric,
    HetStepJob,
}

impl JobRefError {
    /// Slurm's error number (`ESLURM_EMPTY_JOB_ID` is 2136, in order).
    pub fn code(self) -> i32 {
        2136 + self as i32
    }
}

impl fmt::Display for JobRefError {
    /// Slurm's text (`slurm_strerror`); two have none in Slurm's table and
    /// print as `Unknown error N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use JobRefError::*;
        let s = match self {
            EmptyJobId => "JobID must not be an empty string",
            JobIdZero => "JobID can not be zero",
            JobIdNegative => "JobID can not be a negative number",
            JobIdTooLarge => "JobID larger than acceptable range",
            JobIdNonNumeric => "JobID includes unexpected non-numeric characters",
            EmptyArrayId => "Job Array ID must not be an empty string",
            ArrayIdNegative => "Job Array ID can not be a negative number",
            ArrayIdTooLarge => "Job Array ID larger than acceptable range",
            ArrayIdNonNumeric => "Job Array ID includes unexpected non-numeric characters",
            EmptyHetComp => "HetJob component must not be an empty string",
            HetCompNegative => "HetJob component can not be a negative number",
            HetCompTooLarge => "HetJob component larger than acceptable range",
            EmptyStepId => "StepID must not be an empty string",
            StepIdNegative => "StepID can not be a negative number",
            StepIdTooLarge => "StepID larger than acceptable range",
            StepIdNonNumeric => "StepID includes unexpected non-numeric characters",
            EmptyHetStep => "HetStep component must not be an empty string",
            HetStepZero => "HetStep component can not be zero",
            HetStepNegative => "HetStep component can not be a negative number",
            HetStepTooLarge => "HetStep component larger than acceptable range",
            HetStepNonNumeric => "HetStep component includes unexpected non-numeric characters",
            HetStepJob => "HetJob can not Het step id",
            HetJobAndArray | HetCompNonNumeric => return write!(f, "Unknown error {}", self.code()),
        };
        f.write_str(s)
    }
}
impl std::error::Error for JobRefError {}

fn at(s: &str, i: usize) -> u8 {
    s.as_bytes().get(i).copied().unwrap_or(0)
}

const STEP_NAMES: &[(&str, StepId)] = &[
    ("TBD", StepId::Pending),
    ("extern", StepId::Extern),
    ("batch", StepId::Batch),
    ("interactive", StepId::Interactive),
];

/// Slurm's `unfmt_job_id_string`. `max_array_size` is slurm.conf's
/// MaxArraySize; with `None` (as `scontrol show step` passes NO_VAL) a
/// `_[...]` is refused.
pub fn parse(src: &str, max_array_size: Option<u32>) -> Result<JobRef, JobRefError> {
    use JobRefError::*;
    if src.is_empty() {
        return Err(EmptyJobId);
    }
    let j = strtol(src, 10);
    if j.value == 0 {
        return Err(JobIdZero);
    } else if j.value < 0 {
        return Err(JobIdNegative);
    } else if j.value >= MAX_FED_JOB_ID as i64 {
        return Err(JobIdTooLarge);
    }
    let mut r = JobRef::job(j.value as u32);
    let mut rest = j.rest(src);
    if rest.starts_with("_[") {
        let max = max_array_size.filter(|m| *m != 0 && *m != 0xffff_fffe).ok_or(JobIdNonNumeric)?;
        let close = rest[2..].find(']').map(|i| i + 2);
        match close {
            Some(c) if c + 1 == rest.len() => {}
            _ => return Err(ArrayIdNonNumeric),
        }
        let spec = crate::array::parse(&rest[1..], max).map_err(|_| ArrayIdNonNumeric)?;
        if spec.tasks.is_empty() {
            return Err(ArrayIdNonNumeric);
        }
        r.tasks = Tasks::Set(spec.tasks);
        rest = "";
    } else if let Some(a) = rest.strip_prefix('_') {
        if a.is_empty() {
            return Err(EmptyArrayId);
        }
        let t = strtol(a, 10);
        if t.value < 0 {
            return Err(ArrayIdNegative);
        } else if t.value == i64::MAX {
            return Err(ArrayIdTooLarge);
        } else if !t.converted() {
            return Err(ArrayIdNonNumeric);
        }
        r.tasks = Tasks::One(t.value as u32);
        rest = t.rest(a);
    }
    if let Some(h) = rest.strip_prefix('+') {
        // (a task id that reads as NO_VAL passes, as in Slurm)
        if matches!(r.tasks, Tasks::One(t) if t != 0xffff_fffe) {
            return Err(HetJobAndArray);
        } else if h.is_empty() {
            return Err(EmptyHetComp);
        }
        let n = strtol(h, 10);
        if n.value < 0 {
            return Err(HetCompNegative);
        } else if n.value > MAX_HET_JOB_COMPONENTS {
            return Err(HetCompTooLarge);
        } else if !n.converted() {
            return Err(HetCompNonNumeric);
        }
        r.het = Some(n.value as u32);
        rest = n.rest(h);
        if rest.starts_with('_') {
            return Err(HetJobAndArray);
        }
    }
    if rest.is_empty() {
        return Ok(r);
    }
    let Some(step) = rest.strip_prefix('.') else {
        return Err(JobIdNonNumeric);
    };
    if step.is_empty() {
        return Err(EmptyStepId);
    }
    let s = strtol(step, 10);
    if !s.converted() {
        // a step name, compared on its own length in any case
        let b = step.as_bytes();
        let (name, id) = STEP_NAMES
            .iter()
            .find(|(n, _)| b.len() >= n.len() && b[..n.len()].eq_ignore_ascii_case(n.as_bytes()))
            .ok_or(StepIdNonNumeric)?;
        r.step = Some(*id);
        rest = &step[name.len()..];
    } else if s.value < 0 {
        return Err(StepIdNegative);
    } else if s.value >= MAX_NORMAL_STEP_ID as i64 {
        return Err(StepIdTooLarge);
    } else {
        r.step = Some(StepId::Num(s.value as u32));
        rest = s.rest(step);
    }
    if rest.is_empty() {
        return Ok(r);
    }
    let Some(h) = rest.strip_prefix('+') else {
        return Err(StepIdNonNumeric);
    };
    if r.het.is_some() {
        return Err(HetStepJob);
    }
    if h.is_empty() {
        return Ok(r);
    }
    let n = strtol(h, 10);
    if !n.converted() {
        return Err(EmptyHetStep);
    } else if n.value == 0 {
        return Err(HetStepZero);
    } else if n.value < 0 {
        return Err(HetStepNegative);
    } else if n.value >= MAX_HET_JOB_COMPONENTS {
        return Err(HetStepTooLarge);
    } else if !n.rest(h).is_empty() {
        return Err(HetStepNonNumeric);
    }
    r.step_het = Some(n.value as u32);
    Ok(r)
}

/// slurmctld's `job_str_signal`: the reference a cancel or signal by id
/// names; None is `Invalid job id specified`.
pub fn parse_job_str(s: &str, max_array_size: u32) -> Option<JobRef> {
    let j = strtol(s, 10);
    let mut rest = j.rest(s);
    if j.value <= 0 || j.value == i64::MAX || !matches!(at(rest, 0), 0 | b'_' | b'+') {
        return None;
    }
    let mut r = JobRef::job(j.value as u32);
    if let Some(x) = rest.strip_prefix("_*") {
        r.tasks = Tasks::All;
        rest = x;
    }
    if let Some(h) = rest.strip_prefix('+') {
        let n = strtol(h, 10);
        if n.value < 0 || n.value == i64::MAX || !n.rest(h).is_empty() {
            return None;
        }
        r.het = Some(n.value as u32);
        return Some(r);
    }
    if rest.is_empty() {
        return Some(r);
    }
    let a = crate::array::parse(rest.get(1..).unwrap_or(""), max_array_size).ok()?;
    if a.tasks.is_empty() {
        return None;
    }
    r.tasks = Tasks::Set(a.tasks);
    Some(r)
}

/// One id of scancel's command line (after comma splitting), as sent, and
/// the jobs it names (`123_[1-3]` names three tasks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScancelId {
    pub text: String,
    pub jobs: Vec<JobRef>,
}

/// A word scancel refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadScancelId {
    /// What scancel names in `Invalid job id WORD` (after comma splitting).
    pub word: String,
    /// The hostlist error Slurm logs first for a bad `_[...]`
    /// (`_parse_single_range: Invalid range: ...`), if any.
    pub log: Option<String>,
}

/// scancel's `_xlate_job_step_ids`. Tasks in brackets become one entry each
/// ([`Tasks::One`]); `+HET` is read and dropped; ids and steps are cut to 32
/// bits as scancel stores them.
pub fn parse_scancel_args(words: &[String]) -> Result<Vec<ScancelId>, BadScancelId> {
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<String> = words.iter().cloned().collect();
    while let Some(w) = queue.pop_front() {
        let j = strtol(&w, 10);
        if j.value <= 0 {
            return Err(BadScancelId { word: w, log: None });
        }
        let job_id = j.value as u32;
        let mut rest = j.rest(&w);
        let mut r = JobRef::job(job_id);
        if let Some(inner) = rest.strip_prefix("_[") {
            match inner.find(']') {
                Some(e) if e + 1 == inner.len() => {}
                _ => return Err(BadScancelId { word: w, log: None }),
            }
            // hostlist_create("[...]"), each element read with strtol
            let tasks = crate::hostlist::expand(&rest[1..]).map_err(|e| BadScancelId {
                word: w.clone(),
                log: Some(e.detail).filter(|d| d.starts_with("_parse_single_range")),
            })?;
            let mut jobs = Vec::new();
            for t in tasks {
                let n = strtol(&t, 10).value;
                if n < 0 {
                    return Err(BadScancelId { word: w, log: None });
                }
                jobs.push(JobRef { tasks: Tasks::One(n as u32), ..JobRef::job(job_id) });
            }
            out.push(ScancelId { text: w, jobs });
            continue;
        } else if let Some(x) = rest.strip_prefix("_*") {
            r.tasks = Tasks::All;
            rest = x;
        } else if let Some(x) = rest.strip_prefix('_') {
            let t = strtol(x, 10);
            if t.value < 0 {
                return Err(BadScancelId { word: w, log: None });
            }
            r.tasks = Tasks::One(t.value as u32);
            rest = t.rest(x);
        } else if let Some(x) = rest.strip_prefix('+') {
            let h = strtol(x, 10);
            if h.value < 0 {
                return Err(BadScancelId { word: w, log: None });
            }
            rest = h.rest(x);
        }
        if let Some(x) = rest.strip_prefix('.') {
            let s = strtol(x, 10);
            if s.value < 0 {
                return Err(BadScancelId { word: w, log: None });
            }
            r.step = Some(StepId::Num(s.value as u32));
            rest = s.rest(x);
        }
        let text = w[..w.len() - rest.len()].to_string();
        out.push(ScancelId { text, jobs: vec![r] });
        if let Some(more) = rest.strip_prefix(',') {
            queue.push_front(more.to_string());
        } else if !rest.is_empty() {
            return Err(BadScancelId { word: w, log: None });
        }
    }
    Ok(out)
}

/// squeue's `_build_job_list` (`-j LIST`): Err is the item squeue names in
/// `Invalid job id: ITEM`. Empty items are skipped; the job id and task are
/// C `int`s; text after them is ignored.
pub fn parse_squeue_jobs(s: &str) -> Result<Vec<JobRef>, String> {
    let mut out = Vec::new();
    for tok in s.split(',').filter(|t| !t.is_empty()) {
        let j = strtol(tok, 10);
        let job_id = j.value as i32;
        let rest = j.rest(tok);
        let tasks = match rest.strip_prefix('_') {
            Some(x) => Tasks::One(strtol(x, 10).value as i32 as u32),
            None => Tasks::Job,
        };
        if job_id <= 0 {
            return Err(tok.to_string());
        }
        out.push(JobRef { tasks, ..JobRef::job(job_id as u32) });
    }
    Ok(out)
}

/// `scontrol show job ID`: only digits, `_` and `+` are allowed (else
/// `Invalid job id specified`); the job id, the task after `_` and the
/// component after `+` are read with `strtol`.
pub fn parse_scontrol_job(s: &str) -> Option<JobRef> {
    if !s.bytes().all(|c| c.is_ascii_digit() || c == b'_' || c == b'+') {
        return None;
    }
    let j = strtol(s, 10);
    let mut r = JobRef::job(j.value as u32);
    let mut rest = j.rest(s);
    if let Some(x) = rest.strip_prefix('_') {
        let t = strtol(x, 10);
        r.tasks = Tasks::One(t.value as u32);
        rest = t.rest(x);
    }
    if let Some(x) = rest.strip_prefix('+') {
        r.het = Some(strtol(x, 10).value as u32);
    }
    Some(r)
}

/// A list of job ids as scontrol's commands take it: words, each cut at
/// commas outside brackets (`1,2,5_[1,3]` is `1`, `2`, `5_[1,3]`); empty
/// pieces are dropped.
pub fn split_list(words: &[String]) -> Vec<String> {
    let mut out = vec![];
    for w in words {
        let mut depth = 0;
        let mut cur = String::new();
        for ch in w.chars() {
            match ch {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            if ch == ',' && depth <= 0 {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            } else {
                cur.push(ch);
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_ranges_both_ways() {
        assert_eq!(ranges(&[1, 3, 4, 5, 9]), "1,3-5,9");
        assert_eq!(expand_ranges("1,3-5,9"), vec![1, 3, 4, 5, 9]);
        assert_eq!(expand_ranges("x,2,0-4294967295"), vec![2]);
        assert_eq!(expand_ranges(""), Vec::<u32>::new());
    }

    #[test]
    fn a_task_list_names_at_most_max_array_size_tasks_read_once() {
        let max = crate::array::MAX_MAX_ARRAY_SIZE;
        // a list repeating itself: one range, read once
        let many = format!("1_[{}]", vec!["0-4000000"; 50_000].join(","));
        for r in [parse_job_str(&many, max), parse(&many, Some(max)).ok()] {
            match r.map(|r| r.tasks) {
                Some(Tasks::Set(v)) => assert_eq!(v.len(), 4_000_001),
                other => panic!("{:?}", other.map(|_| ())),
            }
        }
        // an index at or past MaxArraySize: an invalid job id
        assert_eq!(parse_job_str("1_[0-5,1001]", 1001), None);
        assert_eq!(parse_job_str("1_1001", 1001).map(|r| r.tasks), None);
        assert_eq!(parse("1_[1001]", Some(1001)), Err(JobRefError::ArrayIdNonNumeric));
    }
}
