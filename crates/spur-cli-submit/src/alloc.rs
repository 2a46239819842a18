//! What srun and salloc share: the job options of an allocation (the ones
//! sbatch also has), getting an allocation and waiting for it, and the
//! `SLURM_*` variables that describe an allocation to the programs run in it.

use spur_client::blocking::Client;
use spur_core::model::{Job, JobDesc, JobState};
use spur_core::request::Query;
use spur_grammar::num::strtol;
use std::time::{Duration, Instant};

/// The job options srun and salloc take (applied to a [`JobDesc`]); `Err`
/// is the message after `PROG: error: ` and the exit code.
pub fn apply_job_option(d: &mut JobDesc, id: &str, v: &str) -> Result<bool, (String, i32)> {
    let num = |name: &str| -> Result<u32, (String, i32)> {
        let n = strtol(v, 10);
        if n.end != v.len() || n.value <= 0 || n.value > u32::MAX as i64 {
            return Err((format!("Invalid numeric value \"{}\" for {}.", v, name), 1));
        }
        Ok(n.value as u32)
    };
    match id {
        "nodes" => {
            let (lo, hi) = node_range(v)?;
            d.min_nodes = Some(lo);
            d.max_nodes = hi;
        }
        "ntasks" => d.num_tasks = Some(num("--ntasks")?),
        "cpus-per-task" => d.cpus_per_task = Some(num("--cpus-per-task")?),
        "ntasks-per-node" => d.ntasks_per_node = Some(num("--ntasks-per-node")?),
        "partition" => d.partition = Some(v.to_string()),
        "job-name" => d.name = v.to_string(),
        "account" => d.account = Some(v.to_string()),
        "qos" => d.qos = Some(v.to_string()),
        "comment" => d.comment = Some(v.to_string()),
        "constraint" => d.constraint = Some(v.to_string()),
        "nodelist" => d.req_nodes = Some(v.to_string()),
        "exclude" => d.exc_nodes = Some(v.to_string()),
        "reservation" => d.reservation = Some(v.to_string()),
        "time" => {
            let m = spur_grammar::time::parse_job_time_limit(v)
                .map_err(|_| ("Invalid --time specification".to_string(), 255))?;
            d.time_limit = Some(m.unwrap_or(u32::MAX));
        }
        "mem" => d.mem_per_node = Some(mem_mb(v).ok_or_else(|| ("invalid memory constraint".to_string(), 1))?),
        "mem-per-cpu" => d.mem_per_cpu = Some(mem_mb(v).ok_or_else(|| ("invalid memory constraint".to_string(), 1))?),
        "gres" => d.gres = Some(v.to_string()),
        "gpus" => d.gpus = Some(v.to_string()),
        "mincpus" => d.min_cpus = Some(num("--mincpus")?),
        "tmp" => d.tmp_mb = Some(mem_mb(v).ok_or_else(|| ("invalid tmp value".to_string(), 1))?),
        "dependency" => d.dependency = Some(v.to_string()),
        "nice" => d.nice = Some(strtol(v, 10).value as i32),
        "overcommit" => {}
        "contiguous" => d.contiguous_nodes = true,
        "hold" => d.hold = true,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `-N` as srun and salloc keep it: (min, max when a range was given).
pub fn node_range(v: &str) -> Result<(u32, Option<u32>), (String, i32)> {
    let (lo, hi) = spur_grammar::num::node_count(v).map_err(|e| (e.to_string(), 255))?;
    Ok((lo, (hi != lo && hi != 0).then_some(hi)))
}

/// `--mem` and friends in MB (Slurm's `str_to_mbytes`).
pub fn mem_mb(v: &str) -> Option<u64> {
    spur_grammar::size::parse_mem_mb(v).ok()
}

/// The `-v` block of srun and salloc: the options given, in Slurm's table
/// order (`slurm_print_set_options`), as `PROG: name                : value`.
pub fn defined_options(prog: &str, set: &[(String, String)]) -> String {
    let mut out = format!("{p}: defined options\n{p}: -------------------- --------------------\n", p = prog);
    for id in crate::sbatch::LISTED {
        if let Some((_, v)) = set.iter().rev().find(|(k, _)| k == id) {
            out.push_str(&format!("{}: {:<20}: {}\n", prog, id, v));
        }
    }
    out.push_str(&format!("{p}: -------------------- --------------------\n{p}: end of defined options\n", p = prog));
    out
}

/// The resource limits sbatch and srun propagate as `SLURM_RLIMIT_<NAME>`,
/// in Slurm's order (`slurm_rlimits_info.c`).
pub const RLIMITS: [(&str, nix::sys::resource::Resource); 10] = {
    use nix::sys::resource::Resource::*;
    [
        ("CPU", RLIMIT_CPU),
        ("FSIZE", RLIMIT_FSIZE),
        ("DATA", RLIMIT_DATA),
        ("STACK", RLIMIT_STACK),
        ("CORE", RLIMIT_CORE),
        ("RSS", RLIMIT_RSS),
        ("NPROC", RLIMIT_NPROC),
        ("NOFILE", RLIMIT_NOFILE),
        ("MEMLOCK", RLIMIT_MEMLOCK),
        ("AS", RLIMIT_AS),
    ]
};

/// This process's soft limits of [`RLIMITS`] (those it can read).
pub fn current_rlimits() -> Vec<(&'static str, u64)> {
    RLIMITS
        .iter()
        .filter_map(|&(name, res)| nix::sys::resource::getrlimit(res).ok().map(|(cur, _)| (name, cur)))
        .collect()
}

/// Slurm's `parse_rlimits`: a list of limit names (`CORE` or `RLIMIT_CORE`,
/// case matters, separated by commas or blanks), `ALL` or `NONE`, setting
/// `flag` for those named and the opposite for the others; the error is
/// `Bad rlimit name: NAME`.
pub fn parse_rlimits(s: &str, flag: bool, flags: &mut [bool; 10]) -> Result<(), String> {
    match s {
        "NONE" => *flags = [!flag; 10],
        "ALL" => *flags = [flag; 10],
        _ => {
            let mut named = [false; 10];
            for tok in s.split([',', ' ', '\t', '\n']).filter(|t| !t.is_empty()) {
                let name = tok.strip_prefix("RLIMIT_").unwrap_or(tok);
                match RLIMITS.iter().position(|(n, _)| *n == name) {
                    Some(i) => named[i] = true,
                    None => return Err(format!("Bad rlimit name: {}", name)),
                }
            }
            for (f, n) in flags.iter_mut().zip(named) {
                *f = if n { flag } else { !flag };
            }
        }
    }
    Ok(())
}

/// `PROG: Nodes LIST are ready for job` (24.11). 22.05 has the line only
/// when nodes are set up at allocation (`PrologFlags=Alloc` or `Contain`,
/// `prolog_alloc`), after `Waiting for resource configuration`: its first
/// look always finds the job still configuring (recorded/22.05/extern_steps/15).
pub fn nodes_ready_line(prog: &str, job: &Job, prolog_alloc: bool) -> String {
    let line = format!("{}: Nodes {} are ready for job\n", prog, spur_grammar::hostlist::compress(&job.node_names()));
    if spur_core::compat::profile().release != spur_core::compat::Release::V22_05 {
        line
    } else if prolog_alloc {
        format!("{}: Waiting for resource configuration\n{}", prog, line)
    } else {
        String::new()
    }
}

/// A text as the imitated release prints it (`--usage`, `--help`).
pub fn by_release(v22_05: &'static str, v24_11: &'static str) -> &'static str {
    if spur_core::compat::profile().usage_texts_22_05 {
        v22_05
    } else {
        v24_11
    }
}

/// `command` as execvp would find it on `path` (salloc checks it before
/// forking: `_fork_command: Unable to find command`).
pub fn find_command(command: &str, path: Option<&str>) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let ok = |p: &std::path::Path| {
        std::fs::metadata(p).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
    };
    if command.contains('/') {
        return ok(std::path::Path::new(command)).then(|| command.to_string());
    }
    path.unwrap_or("/usr/local/bin:/usr/bin:/bin")
        .split(':')
        .map(|d| std::path::Path::new(if d.is_empty() { "." } else { d }).join(command))
        .find(|p| ok(p))
        .map(|p| p.to_string_lossy().into_owned())
}

/// The command line as sacct's `SubmitLine` shows it: the command's name and
/// its arguments, joined by spaces.
pub fn submit_line(prog: &str, args: &[String]) -> String {
    std::iter::once(prog).chain(args.iter().map(|a| a.as_str())).collect::<Vec<_>>().join(" ")
}

/// The allocation's description, with what every submission carries.
pub fn base_desc(cwd: &str) -> JobDesc {
    let host = hostname();
    JobDesc {
        work_dir: cwd.to_string(),
        submit_host: host.clone(),
        alloc_node: host,
        umask: current_umask(),
        ..Default::default()
    }
}

pub fn hostname() -> String {
    nix::unistd::gethostname().ok().and_then(|h| h.into_string().ok()).unwrap_or_default()
}

fn current_umask() -> u32 {
    let m = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o022));
    nix::sys::stat::umask(m);
    m.bits()
}

/// The job as the controller has it now.
pub fn job(c: &Client, id: u32) -> Option<Job> {
    let q = Query { jobs: true, job_ids: vec![id.to_string()], all_finished: true, ..Default::default() };
    c.query(&q).ok()?.jobs.into_iter().find(|j| j.job_id == id)
}

/// Wait until job `id` runs (or ends, or `immediate` runs out, or `abort`
/// is set by a signal): the job as last seen. `on_wait` is called once, with
/// the job, when it is found still pending.
pub fn wait_running(
    c: &Client,
    id: u32,
    immediate: Option<Duration>,
    abort: &std::sync::atomic::AtomicBool,
    mut on_wait: impl FnMut(&Job),
) -> Option<Job> {
    let start = Instant::now();
    // the scheduler pass the submission woke usually starts the job within a
    // few milliseconds (one commit): look again soon, then less and less often
    let mut pause = Duration::from_millis(1);
    let mut told = false;
    loop {
        let j = job(c, id);
        match &j {
            Some(j) if j.state != JobState::Pending => return Some(j.clone()),
            None if start.elapsed() > Duration::from_secs(30) => return None,
            _ => {}
        }
        if immediate.is_some_and(|t| start.elapsed() >= t) || abort.load(std::sync::atomic::Ordering::SeqCst) {
            return j;
        }
        if !told && start.elapsed() >= Duration::from_millis(50) {
            if let Some(j) = &j {
                told = true;
                on_wait(j);
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

/// 22.05 says why a job it accepted cannot start as things are
/// (`Requested partition configuration not available now`, the allocation
/// response's error); 24.11 refuses such a job at submission.
pub fn partition_config_line(prog: &str, j: &Job) -> String {
    use spur_core::model::Reason;
    let v22 = spur_core::compat::profile().release == spur_core::compat::Release::V22_05;
    let limit = matches!(j.reason, Reason::PartitionNodeLimit | Reason::PartitionTimeLimit)
        || matches!(&j.reason, Reason::Other(r) if r == "PartitionConfig");
    match &j.reason {
        _ if v22 && limit => {
            format!("{}: Requested partition configuration not available now\n", prog)
        }
        _ => String::new(),
    }
}

pub use spur_core::launch::{allocation_env, counts, tasks_per_node};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ranges() {
        assert_eq!(counts(&[2, 2, 2, 1]), "2(x3),1");
        assert_eq!(counts(&[1]), "1");
        assert_eq!(node_range("2-3"), Ok((2, Some(3))));
        assert_eq!(node_range("3"), Ok((3, None)));
        assert_eq!(node_range("3-2"), Err(("Maximum node count 2 is less than minimum node count 3".into(), 255)));
        assert_eq!(node_range("0"), Ok((0, None)));
        assert_eq!(node_range("x"), Err(("\"x\" is not a valid node count".into(), 255)));
        assert_eq!(mem_mb("2G"), Some(2048));
        assert_eq!(mem_mb("100"), Some(100));
        assert_eq!(mem_mb("1x"), None);
    }
}
