//! Batch job standard stream file names, as slurmstepd forms them from the
//! `--output`/`--error`/`--input` patterns (Slurm 24.11 behaviour).
//!
//! Rules (measured against Slurm's documented and observed behaviour):
//! - `%%` is a literal `%`; `%j` job id, `%J` job id (the batch step has no
//!   `.step` suffix), `%A` array master id (the job id when not an array),
//!   `%a` array task id (4294967294, Slurm's NO_VAL, when not an array), `%b`
//!   task id modulo 10, `%s` the step (`batch`), `%t` task id (0), `%n` node
//!   id (0), `%N` node name, `%u` user name, `%x` job name.
//! - A decimal width between `%` and the letter zero-pads numbers: `%3a`;
//!   widths above 10 are taken as 10. Names (`%N %u %x`) ignore the width.
//! - An unknown letter is kept as written (`%z` stays `%z`); after a width,
//!   only the last digit of the width is kept (`%3z` gives `3z`).
//! - A pattern that is only a number names the single task whose output goes
//!   to that file; for the batch step (task 0) any other number gives
//!   `/dev/null`.
//! - A backslash anywhere turns substitution off: backslashes are removed
//!   (`\\` keeps one) and the rest is taken literally. Slurm 24.11 then
//!   joins a relative name to the working directory without a `/`; that is
//!   reproduced as is.
//! - Relative names are relative to the job's working directory.

use spur_core::model::Job;

/// Slurm's NO_VAL, printed by `%a` for a job that is not an array task.
pub const NO_VAL: u32 = 0xffff_fffe;
const MAX_WIDTH: usize = 10;

/// Default `--output` pattern of a batch job.
pub fn default_output(job: &Job) -> &'static str {
    if job.is_array_task() {
        "slurm-%A_%a.out"
    } else {
        "slurm-%J.out"
    }
}

/// Expand one pattern for the batch step of `job` on node `node`, giving the
/// path the file is opened at (absolute when the working directory is).
pub fn expand(pattern: &str, job: &Job, node: &str) -> String {
    expand_task(pattern, job, node, 0)
}

/// As [`expand`], for task `taskid` of the batch step.
pub fn expand_task(pattern: &str, job: &Job, node: &str, taskid: u32) -> String {
    expand_in(pattern, job, node, taskid, None, &job.desc.work_dir)
}

/// As [`expand_task`], for task `taskid` of step `step_id` on the step's node
/// `node_id` (`%s`, `%n`, `%J` = `job.step`), relative to `cwd`.
pub fn expand_step(pattern: &str, job: &Job, node: &str, taskid: u32, step_id: u32, node_id: u32, cwd: &str) -> String {
    expand_in(pattern, job, node, taskid, Some((step_id, node_id)), cwd)
}

fn expand_in(pattern: &str, job: &Job, node: &str, taskid: u32, step: Option<(u32, u32)>, cwd: &str) -> String {
    if let Some(id) = single_task_io(pattern) {
        if id != taskid as i64 {
            return "/dev/null".to_string();
        }
    }
    let mut name = String::new();
    let escaped = unescape(pattern);
    if !pattern.starts_with('/') {
        name.push_str(cwd);
        if let Some(e) = escaped {
            // Slurm joins without a separator here.
            name.push_str(&e);
            return name;
        }
        if !name.ends_with('/') {
            name.push('/');
        }
    }
    if let Some(e) = escaped {
        return e;
    }
    substitute(&mut name, pattern, job, node, taskid, step);
    name
}

/// Output, error and input paths of a batch job: `(stdout, stderr, stdin)`.
/// `--error` defaults to `--output`, `--input` to `/dev/null`.
pub fn batch_paths(job: &Job, node: &str) -> (String, String, String) {
    let out_pat = job.desc.std_out.clone().unwrap_or_else(|| default_output(job).to_string());
    let err_pat = job.desc.std_err.clone().unwrap_or_else(|| out_pat.clone());
    let out = expand(&out_pat, job, node);
    let err = expand(&err_pat, job, node);
    let inp = match &job.desc.std_in {
        Some(p) => expand(p, job, node),
        None => "/dev/null".to_string(),
    };
    (out, err, inp)
}

/// `Some(n)` when the whole pattern is one integer (C `strtoul` grammar).
fn single_task_io(pattern: &str) -> Option<i64> {
    let t = pattern.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'+') => (false, &t[1..]),
        Some(b'-') => (true, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() {
        // strtoul parses nothing: the end pointer is the start of the
        // string, which is "complete" only for an empty pattern.
        return if pattern.is_empty() { Some(0) } else { None };
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: u64 = digits.parse().unwrap_or(u64::MAX);
    let v = if neg { v.wrapping_neg() } else { v };
    // Slurm casts the unsigned long to int.
    let as_int = v as u32 as i32;
    if as_int < 0 {
        None
    } else {
        Some(as_int as i64)
    }
}

/// Remove escaping backslashes; `None` when there were none.
fn unescape(p: &str) -> Option<String> {
    if !p.contains('\\') {
        return None;
    }
    let b: Vec<char> = p.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '\\' {
            if i + 1 < b.len() && b[i + 1] == '\\' {
                out.push('\\');
                i += 2;
            } else {
                i += 1;
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

fn pad(v: u64, w: usize) -> String {
    format!("{:0w$}", v, w = w)
}

fn substitute(out: &mut String, pattern: &str, job: &Job, node: &str, taskid: u32, step: Option<(u32, u32)>) {
    let chars: Vec<char> = pattern.chars().collect();
    let (array_job_id, task_id) = match &job.array {
        Some(a) if a.task_id.is_some() => (a.array_job_id, a.task_id.unwrap_or(NO_VAL)),
        _ => (job.job_id, NO_VAL),
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        if i + 1 < chars.len() && chars[i + 1] == '%' {
            out.push('%');
            i += 2;
            continue;
        }
        // Optional width.
        let mut j = i + 1;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        let had_width = j > i + 1;
        let width = if had_width {
            let s: String = chars[i + 1..j].iter().collect();
            s.parse::<u64>().map(|w| (w as usize).min(MAX_WIDTH)).unwrap_or(MAX_WIDTH)
        } else {
            0
        };
        let literal_prefix = |out: &mut String| {
            if had_width {
                out.push(chars[j - 1]);
            } else {
                out.push('%');
            }
        };
        if j >= chars.len() {
            literal_prefix(out);
            break;
        }
        let conv = chars[j];
        let expansion = match conv {
            'a' => Some(pad(task_id as u64, width)),
            'b' => Some(pad((task_id % 10) as u64, width)),
            'A' => Some(pad(array_job_id as u64, width)),
            'j' => Some(pad(job.job_id as u64, width)),
            'J' => Some(match step {
                Some((s, _)) => format!("{}.{}", pad(job.job_id as u64, width), s),
                None => pad(job.job_id as u64, width),
            }),
            'n' => Some(pad(step.map(|(_, n)| n).unwrap_or(0) as u64, width)),
            'N' => Some(node.to_string()),
            's' => Some(match step {
                Some((s, _)) => pad(s as u64, width),
                None => "batch".to_string(),
            }),
            't' => Some(pad(taskid as u64, width)),
            'u' => Some(job.user_name.clone()),
            'x' => Some(job.desc.name.clone()),
            _ => None,
        };
        match expansion {
            Some(e) => {
                out.push_str(&e);
                i = j + 1;
            }
            None => {
                literal_prefix(out);
                // The letter is processed as ordinary text (or as the start
                // of another conversion when it is a `%`).
                i = j;
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use spur_core::model::{ArrayInfo, Job, JobDesc, JobState};

    pub(crate) fn job(id: u32) -> Job {
        Job {
            job_id: id,
            desc: JobDesc { name: "myjob".into(), work_dir: "/home/alice/run".into(), ..Default::default() },
            user_id: 1500,
            group_id: 1500,
            user_name: "alice".into(),
            group_name: "alice".into(),
            state: JobState::Running,
            priority: 1,
            partition: "debug".into(),
            num_nodes: 1,
            num_tasks: 1,
            num_cpus: 1,
            batch_flag: 1,
            ..Default::default()
        }
    }

    fn array_task(id: u32, master: u32, task: u32) -> Job {
        let mut j = job(id);
        j.array =
            Some(ArrayInfo { array_job_id: master, task_id: Some(task), spec: "1-10".into(), ..Default::default() });
        j
    }

    #[test]
    fn defaults() {
        let j = job(42);
        assert_eq!(
            batch_paths(&j, "n1"),
            (
                "/home/alice/run/slurm-42.out".to_string(),
                "/home/alice/run/slurm-42.out".to_string(),
                "/dev/null".to_string()
            )
        );
        let a = array_task(57, 50, 7);
        assert_eq!(batch_paths(&a, "n1").0, "/home/alice/run/slurm-50_7.out");
    }

    #[test]
    fn error_defaults_to_output_pattern() {
        let mut j = job(42);
        j.desc.std_out = Some("o-%j.txt".into());
        let (o, e, _) = batch_paths(&j, "n1");
        assert_eq!(o, "/home/alice/run/o-42.txt");
        assert_eq!(e, o);
        j.desc.std_err = Some("/abs/e-%j".into());
        j.desc.std_in = Some("in-%u".into());
        let (_, e, i) = batch_paths(&j, "n1");
        assert_eq!(e, "/abs/e-42");
        assert_eq!(i, "/home/alice/run/in-alice");
    }

    #[test]
    fn all_conversions() {
        let j = job(123);
        assert_eq!(
            expand("/o/%j.%J.%A.%a.%b.%s.%t.%n.%N.%u.%x.%%", &j, "node7"),
            "/o/123.123.123.4294967294.4.batch.0.0.node7.alice.myjob.%"
        );
        let a = array_task(130, 120, 13);
        assert_eq!(expand("/o/%A_%a_%b_%j", &a, "n"), "/o/120_13_3_130");
    }

    #[test]
    fn widths() {
        let a = array_task(130, 120, 3);
        assert_eq!(expand("/o/%3a", &a, "n"), "/o/003");
        assert_eq!(expand("/o/%08j", &a, "n"), "/o/00000130");
        assert_eq!(expand("/o/%5N-%4u-%3x", &a, "n"), "/o/n-alice-myjob");
        assert_eq!(expand("/o/%4s", &a, "n"), "/o/batch");
        assert_eq!(expand("/o/%2t%2n", &a, "n"), "/o/0000");
        // Widths above 10 are capped.
        assert_eq!(expand("/o/%15j", &a, "n"), "/o/0000000130");
    }

    #[test]
    fn unknown_and_trailing() {
        let j = job(5);
        assert_eq!(expand("/o/%z", &j, "n"), "/o/%z");
        assert_eq!(expand("/o/%3z", &j, "n"), "/o/3z");
        assert_eq!(expand("/o/x%", &j, "n"), "/o/x%");
        assert_eq!(expand("/o/x%12", &j, "n"), "/o/x2");
        assert_eq!(expand("/o/%%j", &j, "n"), "/o/%j");
        assert_eq!(expand("/o/%%%j", &j, "n"), "/o/%5");
        assert_eq!(expand("/o/%z%j", &j, "n"), "/o/%z5");
    }

    #[test]
    fn relative_and_absolute() {
        let mut j = job(9);
        assert_eq!(expand("out/%j", &j, "n"), "/home/alice/run/out/9");
        j.desc.work_dir = "/".into();
        assert_eq!(expand("x", &j, "n"), "/x");
        assert_eq!(expand("/tmp/x", &j, "n"), "/tmp/x");
    }

    #[test]
    fn single_task_numbers() {
        let j = job(9);
        assert_eq!(expand("0", &j, "n"), "/home/alice/run/0");
        assert_eq!(expand("3", &j, "n"), "/dev/null");
        assert_eq!(expand("3x", &j, "n"), "/home/alice/run/3x");
    }

    #[test]
    fn backslash_disables_substitution() {
        let j = job(9);
        assert_eq!(expand("/o/a\\%j", &j, "n"), "/o/a%j");
        assert_eq!(expand("/o/a\\\\b%j", &j, "n"), "/o/a\\b%j");
        // Relative: joined without a separator, as Slurm 24.11 does.
        assert_eq!(expand("f\\%j", &j, "n"), "/home/alice/runf%j");
    }
}
