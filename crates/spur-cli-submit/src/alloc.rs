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
            let (lo, hi) = node_range(v).ok_or_else(|| (format!("\"{}\" is not a valid node count", v), 1))?;
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

/// `-N min[-max]`.
pub fn node_range(v: &str) -> Option<(u32, Option<u32>)> {
    let one = |s: &str| -> Option<u32> {
        let n = strtol(s, 10);
        let mult = match s[n.end..].to_ascii_lowercase().as_str() {
            "" => 1,
            "k" => 1024,
            "m" => 1024 * 1024,
            _ => return None,
        };
        u32::try_from(n.value.checked_mul(mult)?).ok().filter(|&x| x > 0)
    };
    match v.split_once('-') {
        Some((a, b)) => {
            let (lo, hi) = (one(a)?, one(b)?);
            (lo <= hi).then_some((lo, Some(hi)))
        }
        None => one(v).map(|n| (n, None)),
    }
}

/// `--mem` and friends in MB (`K`, `M`, `G`, `T` suffixes; MB by default).
pub fn mem_mb(v: &str) -> Option<u64> {
    let n = strtol(v, 10);
    if n.value < 0 {
        return None;
    }
    let n0 = n.value as u64;
    if n.end == 0 {
        return None;
    }
    match v[n.end..].to_ascii_uppercase().as_str() {
        "" | "M" | "MB" => Some(n0),
        "K" | "KB" => Some(n0.div_ceil(1024)),
        "G" | "GB" => n0.checked_mul(1024),
        "T" | "TB" => n0.checked_mul(1024 * 1024),
        _ => None,
    }
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

/// Wait until job `id` runs (or ends, or `immediate` runs out): the job as
/// last seen. `on_wait` is called once, when it is found still pending.
pub fn wait_running(c: &Client, id: u32, immediate: Option<Duration>, mut on_wait: impl FnMut()) -> Option<Job> {
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
        if immediate.is_some_and(|t| start.elapsed() >= t) {
            return j;
        }
        if !told && start.elapsed() >= Duration::from_millis(50) {
            told = true;
            on_wait();
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(500));
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
        assert_eq!(node_range("2-3"), Some((2, Some(3))));
        assert_eq!(node_range("3-2"), None);
        assert_eq!(node_range("0"), None);
        assert_eq!(mem_mb("2G"), Some(2048));
        assert_eq!(mem_mb("100"), Some(100));
        assert_eq!(mem_mb("1x"), None);
    }
}
