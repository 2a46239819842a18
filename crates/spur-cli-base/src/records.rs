//! The model's records as Slurm's commands print them: the texts of a job
//! (reason, node list, run time, dependency, TRES, exit code, output file
//! names) and of a reservation (state, nodes) that squeue, scontrol, the
//! JSON documents (and sacct, later) show alike. One place for each, so
//! that the commands cannot disagree.

use crate::format;
use spur_core::model::{Job, JobState, Reservation};

/// The array's job id (0 for a job not in an array).
pub fn array_job_id(j: &Job) -> u32 {
    j.array.as_ref().map(|a| a.array_job_id).unwrap_or(0)
}
/// The array task id of a task record (None for others and for the pending meta-record).
pub fn array_task_id(j: &Job) -> Option<u32> {
    j.array.as_ref().and_then(|a| a.task_id)
}

/// Reason text as Slurm reports it (held jobs report their hold).
pub fn reason_text(j: &Job) -> String {
    if j.reason == spur_core::model::Reason::None {
        if let Some(h) = &j.held {
            return h.text().to_string();
        }
    }
    j.reason.text().to_string()
}

/// Sorted, compressed node list (`slurm_sort_node_list_str`).
pub fn job_nodes(j: &Job) -> String {
    spur_grammar::hostlist::compress_unique(&j.node_names())
}

/// `job_time_used` with the controller's `now`.
pub fn time_used(j: &Job, now: i64) -> i64 {
    if j.start_time == 0 || j.state == JobState::Pending {
        return 0;
    }
    if j.state == JobState::Suspended {
        return j.pre_sus_time;
    }
    let end = if j.state == JobState::Running || j.end_time == 0 { now } else { j.end_time };
    if j.suspend_time != 0 {
        return end - j.suspend_time + j.pre_sus_time;
    }
    end - j.start_time
}

/// Dependency as slurmctld reports it: `afterok:1(unfulfilled)`; None
/// when the job no longer waits on anything.
pub fn dependency_text(j: &Job) -> Option<String> {
    let dep = j.desc.dependency.as_ref()?;
    let status = match &j.reason {
        spur_core::model::Reason::Dependency => "unfulfilled",
        spur_core::model::Reason::DependencyNeverSatisfied => "failed",
        // (a held job cancelled while pending keeps it: scontrol/194)
        _ if matches!(j.state, JobState::Pending | JobState::Cancelled) && j.held.is_some() => "unfulfilled",
        _ => return None,
    };
    // as slurmctld keeps it (_depend_list2str); the controller accepted the
    // text, so it reads with the largest MaxArraySize
    let d = spur_grammar::dependency::parse(dep, spur_grammar::array::MAX_MAX_ARRAY_SIZE, true).ok()??;
    Some(d.display(status)).filter(|s| !s.is_empty())
}

/// Expand `%j %x %u %A %a %b %%` in an output path (Slurm's `_fname_format`),
/// made absolute against `work_dir`.
pub fn fname_format(path: &str, j: &Job, task_override: Option<u32>) -> String {
    if spur_core::compat::profile().fname_format_22_05 {
        return fname_format_22_05(path, j, task_override);
    }
    let b: Vec<char> = path.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let task = task_override.or(array_task_id(j));
    while i < b.len() {
        if b[i] != '%' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        if i + 1 < b.len() && b[i + 1] == '%' {
            out.push('%');
            i += 2;
            continue;
        }
        // optional width digits
        let mut k = i + 1;
        let mut wid: usize = 0;
        while k < b.len() && b[k].is_ascii_digit() {
            wid = (wid * 10 + b[k].to_digit(10).unwrap_or(0) as usize).min(1000);
            k += 1;
        }
        if wid > 9 {
            wid = 10;
        }
        if k >= b.len() {
            for c in &b[i..] {
                out.push(*c);
            }
            break;
        }
        let num = |n: u32| format!("{:0w$}", n, w = wid);
        match b[k] {
            'A' => out.push_str(&num(if j.array.is_some() { array_job_id(j) } else { j.job_id })),
            'a' => out.push_str(&num(task.unwrap_or(u32::MAX - 1))),
            'b' => out.push_str(&num(task.unwrap_or(u32::MAX - 1) % 10)),
            'j' => out.push_str(&num(j.job_id)),
            'u' => out.push_str(&j.user_name),
            'x' => out.push_str(&j.desc.name),
            c => {
                for ch in &b[i..k] {
                    out.push(*ch);
                }
                out.push(c);
            }
        }
        i = k + 1;
    }
    if out.starts_with('/') {
        out
    } else {
        format!("{}/{}", j.desc.work_dir, out)
    }
}

/// Slurm 22.05's expansion: only the two-letter `%A %a %j %u %x`, each
/// replaced everywhere in turn, no widths and no `%%`.
fn fname_format_22_05(path: &str, j: &Job, task_override: Option<u32>) -> String {
    let task = task_override.or(array_task_id(j)).unwrap_or(u32::MAX - 1);
    let a = if j.array.is_some() { array_job_id(j) } else { j.job_id };
    let out = path
        .replace("%A", &a.to_string())
        .replace("%a", &task.to_string())
        .replace("%j", &j.job_id.to_string())
        .replace("%u", &j.user_name)
        .replace("%x", &j.desc.name);
    if out.starts_with('/') {
        out
    } else {
        format!("{}/{}", j.desc.work_dir, out)
    }
}

/// Default batch output path when none was given.
pub fn default_out(j: &Job, task: Option<u32>) -> String {
    match (&j.array, task.or(array_task_id(j))) {
        (Some(a), Some(t)) => format!("{}/slurm-{}_{}.out", j.desc.work_dir, a.array_job_id, t),
        (Some(a), None) => format!("{}/slurm-{}_{}.out", j.desc.work_dir, a.array_job_id, u32::MAX - 1),
        _ => format!("{}/slurm-{}.out", j.desc.work_dir, j.job_id),
    }
}

/// The exit code and signal of a wait status (`WIFSIGNALED`/`WIFEXITED`).
pub fn exit_parts(status: i32) -> (i32, i32) {
    let sig = status & 0x7f;
    if sig != 0 && sig != 0x7f {
        (0, sig)
    } else if sig == 0 {
        ((status >> 8) & 0xff, 0)
    } else {
        (0, 0)
    }
}

/// An exit code as `rc:signal` from a wait status (`WIFSIGNALED`/`WIFEXITED`).
pub fn exit_pair(status: i32) -> String {
    let (rc, sig) = exit_parts(status);
    format!("{}:{}", rc, sig)
}

/// TRES string (`cpu=1,mem=500M,node=1,billing=1`) of a job in its
/// partition of `parts` (whose `TRESBillingWeights` make its billing:
/// `spur_core::priority::job_billing`).
pub fn tres_str(j: &Job, parts: &[spur_core::model::Partition]) -> String {
    let billing = spur_core::priority::job_billing(j, parts.iter().find(|p| p.name == j.partition));
    let mem = if j.mem_per_cpu > 0 { j.mem_per_cpu * j.num_cpus as u64 } else { j.mem_per_node * j.num_nodes as u64 };
    let mut s = format!("cpu={}", j.num_cpus);
    if mem > 0 {
        s.push_str(&format!(",mem={}", format::convert_num_unit(mem as f64, 2)));
    }
    s.push_str(&format!(",node={},billing={}", j.num_nodes, billing));
    s
}

/// `ACTIVE` from its start to its end time, both included (as the commands print it).
pub fn resv_state(r: &Reservation, now: i64) -> &'static str {
    if r.start_time <= now && r.end_time >= now {
        "ACTIVE"
    } else {
        "INACTIVE"
    }
}

/// `(null)` for an empty text, as Slurm prints a NULL string.
pub fn or_null(s: &str) -> &str {
    if s.is_empty() {
        "(null)"
    } else {
        s
    }
}

/// A reservation's nodes as a compressed hostlist.
pub fn resv_nodes(r: &Reservation) -> String {
    spur_grammar::hostlist::compress(&r.nodes)
}

/// A mail type list (`--mail-type`, `scontrol update MailType=`) as Slurm's
/// parse_mail_type reads it: comma-separated, any case; unknown types are
/// skipped, `NONE` ends the list; valid when it names a known type or NONE.
pub fn valid_mail_type(arg: &str) -> bool {
    const OK: &[&str] = &[
        "ARRAY_TASKS",
        "BEGIN",
        "END",
        "FAIL",
        "INVALID_DEPEND",
        "REQUEUE",
        "ALL",
        "STAGE_OUT",
        "TIME_LIMIT",
        "TIME_LIMIT_90",
        "TIME_LIMIT_80",
        "TIME_LIMIT_50",
    ];
    let mut any = false;
    for tok in arg.split(',').filter(|t| !t.is_empty()) {
        if tok.eq_ignore_ascii_case("NONE") {
            return true;
        }
        if OK.iter().any(|k| k.eq_ignore_ascii_case(tok)) {
            any = true;
        }
    }
    any
}
