//! What the controller sends an agent to start a batch job, and what the
//! step supervisor reads from its spool directory.

use crate::model::{Job, Step};
use crate::request::StepRequest;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchSpec {
    /// The job record as committed when it started (allocs filled in).
    pub job: Job,
    /// The node this launch is for (the batch host).
    pub node_name: String,
    pub cluster_name: String,
    /// Controller host names, for SLURM_WORKING_CLUSTER etc.
    pub ctld_host: String,
    pub ctld_port: u16,
    /// Cluster-wide KillWait (seconds) for time-limit and cancel kills.
    pub kill_wait: u32,
    /// Supplementary groups of the owner, resolved on the controller side
    /// when the job was submitted are not trusted: the agent resolves them.
    pub submit_host: String,
    /// `SLURM_WORKING_CLUSTER` as Slurm 22.05's sbatch sets it
    /// (`cluster:address:port:protocol:select plugin id`); empty unless the
    /// controller imitates 22.05 (spur_core::compat).
    #[serde(default)]
    pub working_cluster: String,
    /// `JobAcctGatherParams=OverMemoryKill`: how often, in seconds (the task
    /// value of `JobAcctGatherFrequency`), the node compares the resident
    /// memory of the step's processes with its memory limit there, and kills
    /// the step over it; 0: never (format version 5).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub mem_check_secs: u32,
}

/// How a step's tasks start, as srun asks (the part of its request that the
/// controller passes through to the step daemons).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepIo {
    /// The command and its arguments (`--multi-prog`: the configuration's path).
    pub argv: Vec<String>,
    /// srun's environment with the step's `SLURM_*` variables set; each task
    /// gets its own (`SLURM_PROCID`, ...) on top.
    pub env: Vec<(String, String)>,
    pub cwd: String,
    /// srun's I/O listener (`host:port`) and the secret the step daemons
    /// prove themselves with.
    pub io_addr: String,
    pub io_key: Vec<u8>,
    /// `--input`: `None` every task (Slurm's default), `Some(t)` task t only,
    /// `Some(u32::MAX)` none.
    pub stdin_task: Option<u32>,
    /// `--output`/`--error`/`--input` file patterns (`%t %n %N %j ...`),
    /// opened by each node's step daemon as the user; `None` streams to srun.
    pub stdout_file: Option<String>,
    pub stderr_file: Option<String>,
    pub stdin_file: Option<String>,
    /// `--output=N` / `--error=N`: only task N's output is kept.
    pub stdout_task: Option<u32>,
    pub stderr_task: Option<u32>,
    /// `--multi-prog`: the configuration's text.
    pub multi_prog: Option<String>,
    pub unbuffered: bool,
    pub task_prolog: Option<String>,
    pub task_epilog: Option<String>,
    /// `--propagate`d limits and the umask (`SLURM_RLIMIT_*`, `SLURM_UMASK` in `env`).
    pub open_mode_append: bool,
    /// `--kill-on-bad-exit`: a task that fails ends the step.
    pub kill_on_bad_exit: bool,
    /// `--pty`: task 0 gets a pseudo-terminal.
    pub pty: bool,
    /// `--label`: lines written to output files are labelled too.
    #[serde(default)]
    pub label: bool,
}

/// What srun sends the controller: the step and how to start it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepCreate {
    pub req: StepRequest,
    pub io: StepIo,
}

/// What the controller sends each agent of a step (`LaunchStepRequest.spec`,
/// the step's spool `spec.bin`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepLaunch {
    /// The job as it runs (without its steps).
    pub job: Job,
    pub step: Step,
    pub io: StepIo,
    pub cluster_name: String,
    pub ctld_host: String,
    pub ctld_port: u16,
    pub kill_wait: u32,
    /// The owner's uid/gid/name (the job's).
    pub uid: u32,
    pub gid: u32,
    pub user_name: String,
    /// `JobAcctGatherParams=OverMemoryKill`: how often, in seconds (the task
    /// value of `JobAcctGatherFrequency`), the node compares the resident
    /// memory of the step's processes with its memory limit there, and kills
    /// the step over it; 0: never (format version 5).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub mem_check_secs: u32,
}

/// The job ids of `srun --no-allocate`'s steps (Slurm's MIN_NOALLOC_JOBID
/// to MAX_NOALLOC_JOBID): no job has one, no state holds such a step.
pub const NOALLOC_JOB_IDS: std::ops::RangeInclusive<u32> = 0xffff_0000..=0xffff_fffd;

/// `v` as runs of equal values: (value, how many), in order.
pub fn runs(v: &[u32]) -> Vec<(u32, usize)> {
    let mut out: Vec<(u32, usize)> = Vec::new();
    for &x in v {
        match out.last_mut() {
            Some((y, n)) if *y == x => *n += 1,
            _ => out.push((x, 1)),
        }
    }
    out
}

/// `SLURM_JOB_CPUS_PER_NODE` / `SLURM_TASKS_PER_NODE` grammar: `2(x3),1`.
pub fn counts(v: &[u32]) -> String {
    let parts: Vec<String> =
        runs(v).into_iter().map(|(x, n)| if n > 1 { format!("{}(x{})", x, n) } else { x.to_string() }).collect();
    parts.join(",")
}

/// Set `k` in an ordered environment: in place when present, else appended.
pub fn env_set(env: &mut Vec<(String, String)>, k: &str, v: impl Into<String>) {
    let v = v.into();
    match env.iter_mut().find(|(x, _)| x == k) {
        Some(e) => e.1 = v,
        None => env.push((k.to_string(), v)),
    }
}

fn env_get<'a>(env: &'a [(String, String)], k: &str) -> Option<&'a str> {
    env.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str())
}

/// The MPI launcher variables 24.11's sbatch, salloc and srun add to their
/// own environment (`HYDRA_BOOTSTRAP=slurm` unless the caller chose another
/// bootstrap, and the `--external-launcher` arguments), applied to `env`.
pub fn add_mpi_launcher_vars(env: &mut Vec<(String, String)>) {
    for k in ["OMPI_MCA_plm_slurm_args", "PRTE_MCA_plm_slurm_args"] {
        if env_get(env, k).is_none() {
            env_set(env, k, "--external-launcher");
        }
    }
    for (boot, extra) in [
        ("HYDRA_BOOTSTRAP", "HYDRA_LAUNCHER_EXTRA_ARGS"),
        ("I_MPI_HYDRA_BOOTSTRAP", "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS"),
    ] {
        match env_get(env, boot) {
            None | Some("slurm") => {
                env_set(env, boot, "slurm");
                if env_get(env, extra).is_none() {
                    env_set(env, extra, "--external-launcher");
                }
            }
            Some(_) => {}
        }
    }
}

/// `SLURM_WORKING_CLUSTER` as Slurm 22.05's sbatch and srun set it:
/// cluster, first controller's address, port, 22.05's protocol version
/// (38<<8), the select plugin's id.
pub fn working_cluster(conf: &crate::config::SlurmConf) -> String {
    let addr = conf.controllers.first().map(|c| c.addr.clone()).unwrap_or_default();
    let select = match conf.get("SelectType").unwrap_or("select/cons_tres") {
        "select/cons_res" => 101,
        "select/linear" => 102,
        _ => 109,
    };
    format!("{}:{}:{}:{}:{}", conf.cluster_name, addr, conf.slurmctld_port, 38 << 8, select)
}

/// `SLURM_JOB_END_TIME` of a running job: its end, or when it has no time
/// limit, its start plus 365 days (slurmctld's; recorded/24.11/batch_env/03).
pub fn job_end_time(job: &Job) -> Option<i64> {
    if job.end_time > 0 {
        Some(job.end_time)
    } else if job.start_time > 0 && job.time_limit.is_none() {
        Some(job.start_time + 365 * 86400)
    } else {
        None
    }
}

/// The variables salloc sets for its command (recorded/24.11/srun_env/37,
/// 49, 51; salloc/51-55): the allocation as granted, the task options that
/// were asked, memory only when asked (no `DefMemPerCPU` default), and on
/// 24.11 `SLURM_TRES_PER_TASK` and the MPI launcher variables (added by the
/// caller, [`add_mpi_launcher_vars`]); 22.05 adds `SLURM_NODE_ALIASES`.
pub fn allocation_env(job: &Job, cluster: &str) -> Vec<(String, String)> {
    allocation_env_for(crate::compat::profile(), job, cluster)
}

pub fn allocation_env_for(p: &crate::compat::Profile, job: &Job, cluster: &str) -> Vec<(String, String)> {
    let nodes = spur_grammar::hostlist::compress(&job.node_names());
    let cpus: Vec<u32> = job.allocs.iter().map(|a| a.cpus).collect();
    let nn = job.allocs.len();
    let d = &job.desc;
    let mut v: Vec<(String, String)> = vec![
        ("SLURM_CLUSTER_NAME".into(), cluster.into()),
        ("SLURM_JOB_ID".into(), job.job_id.to_string()),
        ("SLURM_JOBID".into(), job.job_id.to_string()),
        ("SLURM_JOB_NAME".into(), d.name.clone()),
        ("SLURM_JOB_NODELIST".into(), nodes.clone()),
        ("SLURM_NODELIST".into(), nodes),
        ("SLURM_JOB_NUM_NODES".into(), nn.to_string()),
        ("SLURM_NNODES".into(), nn.to_string()),
        ("SLURM_JOB_CPUS_PER_NODE".into(), counts(&cpus)),
        ("SLURM_JOB_PARTITION".into(), job.partition.clone()),
        ("SLURM_SUBMIT_DIR".into(), d.work_dir.clone()),
        ("SLURM_SUBMIT_HOST".into(), d.submit_host.clone()),
    ];
    if p.env_node_aliases {
        v.push(("SLURM_NODE_ALIASES".into(), "(null)".into()));
    }
    // --ntasks-per-node without -n: that many on each node (recorded/24.11/srun_env/47)
    if let Some(n) = d.num_tasks.or(d.ntasks_per_node.map(|t| t * nn as u32)) {
        v.push(("SLURM_NTASKS".into(), n.to_string()));
        v.push(("SLURM_NPROCS".into(), n.to_string()));
    }
    if let Some(c) = d.cpus_per_task {
        v.push(("SLURM_CPUS_PER_TASK".into(), c.to_string()));
        if p.env_24_11_variables {
            v.push(("SLURM_TRES_PER_TASK".into(), format!("cpu={}", c)));
        }
    }
    if let Some(n) = d.ntasks_per_node {
        v.push(("SLURM_NTASKS_PER_NODE".into(), n.to_string()));
    }
    let tasks = tasks_per_node(job);
    v.push(("SLURM_TASKS_PER_NODE".into(), counts(&tasks)));
    if d.mem_per_node.is_some() {
        v.push(("SLURM_MEM_PER_NODE".into(), job.mem_per_node.to_string()));
    } else if d.mem_per_cpu.is_some() {
        v.push(("SLURM_MEM_PER_CPU".into(), job.mem_per_cpu.to_string()));
    }
    v
}

/// What srun knows of its step before creating it, for [`srun_env`].
#[derive(Clone, Debug, Default)]
pub struct SrunEnv {
    /// srun created the allocation itself (not in salloc's or a batch job's).
    pub own_allocation: bool,
    /// `--export` names variables (or NONE) rather than passing all on.
    pub export_limited: bool,
    /// `-m`/`SLURM_DISTRIBUTION` as given (first level), empty when not.
    pub distribution: String,
    /// The step's task and node counts as srun asks them (`None`: not given
    /// and not inherited from the allocation).
    pub num_tasks: Option<u32>,
    pub min_nodes: Option<u32>,
    /// `-c`/`SLURM_CPUS_PER_TASK` when given.
    pub cpus_per_task: Option<u32>,
    /// `--ntasks-per-node` when given and honoured.
    pub ntasks_per_node: Option<u32>,
    /// `--mem`/`--mem-per-cpu` (or their `SLURM_MEM_*` inputs) as given.
    pub mem_per_node: Option<u64>,
    pub mem_per_cpu: Option<u64>,
    /// `-v` count and `-Q`.
    pub verbose: u32,
    pub quiet: bool,
    /// The step's name (`-J`, else the command's), 22.05's `SLURM_JOB_NAME`
    /// when srun's environment has none.
    pub step_name: String,
    /// 22.05: [`working_cluster`] of srun's slurm.conf.
    pub working_cluster: String,
}

/// srun's additions to its own environment before it launches a step
/// (Slurm's srun: its `setenv`s and `setup_env`), applied to `env` (srun's
/// environment after `--export`); the step daemons add the layout's
/// variables ([`step_env`]) and each task's own on top.
///
/// `SLURM_DISTRIBUTION` (srun's launch.c): as given; else, unless memory is
/// unknown (srun's own allocation without `--mem`/`--mem-per-cpu`: the
/// granted job reports none), `cyclic` when the tasks are no more than the
/// nodes and `block` otherwise (recorded/24.11/srun_env/01, 13, 20, 22).
pub fn srun_env(env: &mut Vec<(String, String)>, s: &SrunEnv, job: &Job) {
    srun_env_for(crate::compat::profile(), env, s, job)
}

pub fn srun_env_for(p: &crate::compat::Profile, env: &mut Vec<(String, String)>, s: &SrunEnv, job: &Job) {
    let newer = p.env_24_11_variables;
    if s.own_allocation {
        // (22.05 sets neither: recorded/22.05/srun_env/13, srun_basic/172)
        if newer && s.mem_per_node.is_some() {
            env_set(env, "SLURM_MEM_PER_NODE", job.mem_per_node.to_string());
        } else if newer && s.mem_per_cpu.is_some() {
            env_set(env, "SLURM_MEM_PER_CPU", job.mem_per_cpu.to_string());
        }
    } else if p.srun_pack_group_variable {
        let cpus: Vec<u32> = job.allocs.iter().map(|a| a.cpus).collect();
        env_set(env, "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", counts(&cpus));
    }
    if p.step_job_name_from_step && env_get(env, "SLURM_JOB_NAME").is_none() {
        env_set(env, "SLURM_JOB_NAME", s.step_name.clone());
    }
    if p.env_working_cluster && !s.working_cluster.is_empty() {
        env_set(env, "SLURM_WORKING_CLUSTER", s.working_cluster.clone());
    }
    if let Some(c) = s.cpus_per_task {
        env_set(env, "SLURM_CPUS_PER_TASK", c.to_string());
        if newer {
            env_set(env, "SLURM_TRES_PER_TASK", format!("cpu={}", c));
        }
    }
    if let Some(n) = s.ntasks_per_node {
        env_set(env, "SLURM_NTASKS_PER_NODE", n.to_string());
    }
    let mem_unknown = if s.own_allocation {
        s.mem_per_node.is_none() && s.mem_per_cpu.is_none()
    } else {
        s.mem_per_node == Some(0) || s.mem_per_cpu == Some(0)
    };
    let dist = if !s.distribution.is_empty() {
        Some(s.distribution.split('=').next().unwrap_or("").to_string())
    } else if mem_unknown {
        None
    } else {
        let nodes = s.min_nodes.unwrap_or(job.allocs.len().max(1) as u32);
        let tasks = s.num_tasks.unwrap_or(nodes);
        Some(if tasks <= nodes { "cyclic" } else { "block" }.to_string())
    };
    if let Some(d) = dist {
        env_set(env, "SLURM_DISTRIBUTION", d);
    }
    if newer {
        env_set(env, "SLURMD_DEBUG", "2");
    }
    let level = if s.quiet { 2 } else { 3 + s.verbose };
    // left out (with the MPI launcher variables) when --export does not
    // pass everything on (recorded/24.11/srun_basic/123, 127)
    if !s.export_limited {
        env_set(env, "SRUN_DEBUG", level.to_string());
    }
    if newer {
        if s.own_allocation && !job.group_name.is_empty() {
            env_set(env, "SLURM_JOB_GROUP", job.group_name.clone());
        }
        if !s.export_limited {
            add_mpi_launcher_vars(env);
        }
    }
}

/// Tasks per node of an allocation: as asked, else one per CPU / `-c`.
pub fn tasks_per_node(job: &Job) -> Vec<u32> {
    let cpt = job.desc.cpus_per_task.unwrap_or(1).max(1);
    match job.desc.num_tasks {
        Some(n) => {
            let slots: Vec<u32> = job.allocs.iter().map(|a| (a.cpus / cpt).max(1)).collect();
            let k = slots.len().max(1) as u32;
            let mut per: Vec<u32> = (0..k).map(|i| n / k + u32::from(i < n % k)).collect();
            // spill what does not fit onto nodes with room
            let mut spill = 0;
            for (x, s) in per.iter_mut().zip(&slots) {
                if *x > *s {
                    spill += *x - *s;
                    *x = *s;
                }
            }
            for (x, s) in per.iter_mut().zip(&slots) {
                let add = s.saturating_sub(*x).min(spill);
                *x += add;
                spill -= add;
            }
            if spill > 0 {
                if let Some(f) = per.first_mut() {
                    *f += spill;
                }
            }
            per
        }
        None => job.allocs.iter().map(|a| (a.cpus / cpt).max(1)).collect(),
    }
}

/// The abstract Unix socket on which the step daemon of a `--mpi=none` step
/// answers Slurm's libpmi (PMI-1 through libslurm's `slurm_pmi_*`) for the
/// step's tasks on its node, as Slurm's srun answers it in every step.
/// Named from what every task's environment holds: `SLURM_SRUN_COMM_HOST`
/// and `SLURM_SRUN_COMM_PORT` (the step's srun, whose port is its own on
/// its host while it runs: two clusters on one host do not meet),
/// `SLURM_JOB_ID`, `SLURM_STEPID` and `SLURMD_NODENAME`.
pub fn pmi1_socket_name(srun_host: &str, srun_port: &str, job: &str, step: &str, node: &str) -> String {
    format!("spur-pmi1:{}:{}:{}.{}:{}", srun_host, srun_port, job, step, node)
}

/// The variables of a step for its tasks, set over srun's environment
/// before each task's own (`SLURM_PROCID`, ...): the job's (its node list,
/// CPUs and name), the step's layout (`SLURM_NNODES`, `SLURM_NTASKS`,
/// `SLURM_TASKS_PER_NODE` are the step's, `SLURM_NODELIST` stays the job's:
/// recorded/24.11/srun_env/20) and srun's address. `port` is srun's I/O port.
pub fn step_env(job: &Job, step: &Step, cluster: &str, port: u16) -> Vec<(String, String)> {
    step_env_for(crate::compat::profile(), job, step, cluster, port)
}

pub fn step_env_for(
    p: &crate::compat::Profile,
    job: &Job,
    step: &Step,
    cluster: &str,
    port: u16,
) -> Vec<(String, String)> {
    let job_nodes = spur_grammar::hostlist::compress(&job.node_names());
    let cpus: Vec<u32> = job.allocs.iter().map(|a| a.cpus).collect();
    let nodes = spur_grammar::hostlist::compress(&step.node_names());
    let per = counts(&step.tasks_per_node);
    let mut env: Vec<(String, String)> = vec![
        ("SLURM_CLUSTER_NAME".into(), cluster.into()),
        ("SLURM_JOB_ID".into(), job.job_id.to_string()),
        ("SLURM_JOBID".into(), job.job_id.to_string()),
        ("SLURM_JOB_NODELIST".into(), job_nodes.clone()),
        ("SLURM_NODELIST".into(), job_nodes),
        ("SLURM_JOB_NUM_NODES".into(), job.allocs.len().to_string()),
        ("SLURM_JOB_CPUS_PER_NODE".into(), counts(&cpus)),
        ("SLURM_JOB_PARTITION".into(), job.partition.clone()),
        ("SLURM_SUBMIT_DIR".into(), job.desc.work_dir.clone()),
        ("SLURM_SUBMIT_HOST".into(), job.desc.submit_host.clone()),
        ("SLURM_NNODES".into(), step.allocs.len().to_string()),
        ("SLURM_NTASKS".into(), step.num_tasks.to_string()),
        ("SLURM_NPROCS".into(), step.num_tasks.to_string()),
        ("SLURM_TASKS_PER_NODE".into(), per.clone()),
        ("SLURM_STEP_ID".into(), step.step_id.to_string()),
        ("SLURM_STEPID".into(), step.step_id.to_string()),
        ("SLURM_STEP_NODELIST".into(), nodes),
        ("SLURM_STEP_NUM_NODES".into(), step.allocs.len().to_string()),
        ("SLURM_STEP_NUM_TASKS".into(), step.num_tasks.to_string()),
        ("SLURM_STEP_TASKS_PER_NODE".into(), per),
        ("SLURM_SRUN_COMM_HOST".into(), step.srun_addr.clone()),
        ("SLURM_SRUN_COMM_PORT".into(), port.to_string()),
        ("SLURM_LAUNCH_NODE_IPADDR".into(), step.srun_addr.clone()),
        ("SLURM_STEP_LAUNCHER_PORT".into(), port.to_string()),
        ("SLURM_JOB_UID".into(), job.user_id.to_string()),
        ("SLURM_JOB_USER".into(), job.user_name.clone()),
        ("SLURM_JOB_GID".into(), job.group_id.to_string()),
    ];
    if !step.resv_ports.is_empty() {
        // (`MpiParams=ports=`; env.c sets it after the launcher port)
        let at = env.iter().position(|(k, _)| k == "SLURM_STEP_LAUNCHER_PORT").map_or(env.len(), |i| i + 1);
        env.insert(at, ("SLURM_STEP_RESV_PORTS".into(), step.resv_ports.clone()));
    }
    if !p.step_job_name_from_step {
        // (22.05: srun's, [`srun_env`])
        env.push(("SLURM_JOB_NAME".into(), job.desc.name.clone()));
    }
    if p.env_24_11_variables {
        if job.start_time > 0 {
            env.push(("SLURM_JOB_START_TIME".into(), job.start_time.to_string()));
        }
        if let Some(t) = job_end_time(job) {
            env.push(("SLURM_JOB_END_TIME".into(), t.to_string()));
        }
        env.push(("SLURM_OOM_KILL_STEP".into(), "0".into()));
    }
    if !step.mpi.is_empty() {
        env.push(("SLURM_MPI_TYPE".into(), step.mpi.clone()));
    }
    if NOALLOC_JOB_IDS.contains(&job.job_id) {
        // a step without an allocation has no job to describe
        // (recorded/24.11/srun_stepopts/42)
        env.retain(|(k, _)| {
            !matches!(
                k.as_str(),
                "SLURM_JOB_ID"
                    | "SLURM_JOBID"
                    | "SLURM_JOB_NUM_NODES"
                    | "SLURM_JOB_CPUS_PER_NODE"
                    | "SLURM_JOB_PARTITION"
                    | "SLURM_JOB_START_TIME"
                    | "SLURM_JOB_END_TIME"
            )
        });
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compat::{SLURM_22_05, SLURM_24_11};
    use crate::model::NodeAlloc;

    fn job(cpus: &[u32]) -> Job {
        let mut j = Job { job_id: 8, partition: "debug".into(), start_time: 1000, ..Default::default() };
        j.desc.name = "sbatch".into();
        j.allocs = cpus
            .iter()
            .enumerate()
            .map(|(i, &c)| NodeAlloc { node: format!("node{}", i + 1), cpus: c, ..Default::default() })
            .collect();
        j
    }

    fn get<'a>(env: &'a [(String, String)], k: &str) -> Option<&'a str> {
        env_get(env, k)
    }

    // recorded/24.11/srun_env: 01 (own allocation, no memory asked: none),
    // 13 (--mem: cyclic), 19-24 and 39-53 (in an allocation: always)
    #[test]
    fn srun_distribution() {
        let j = job(&[2, 2]);
        let dist = |s: SrunEnv| {
            let mut env = vec![];
            srun_env_for(&SLURM_24_11, &mut env, &s, &j);
            get(&env, "SLURM_DISTRIBUTION").map(String::from)
        };
        let own = SrunEnv { own_allocation: true, ..Default::default() };
        assert_eq!(dist(own.clone()), None);
        assert_eq!(dist(SrunEnv { mem_per_node: Some(300), ..own.clone() }).as_deref(), Some("cyclic"));
        let inside = SrunEnv { num_tasks: Some(4), min_nodes: Some(2), ..Default::default() };
        assert_eq!(dist(inside.clone()).as_deref(), Some("block"));
        assert_eq!(
            dist(SrunEnv { num_tasks: Some(1), min_nodes: Some(1), ..inside.clone() }).as_deref(),
            Some("cyclic")
        );
        assert_eq!(dist(SrunEnv { num_tasks: Some(2), ..inside.clone() }).as_deref(), Some("cyclic"));
        assert_eq!(dist(SrunEnv { distribution: "cyclic".into(), ..inside.clone() }).as_deref(), Some("cyclic"));
        assert_eq!(dist(SrunEnv { mem_per_node: Some(0), ..inside }), None);
    }

    #[test]
    fn srun_variables_by_release() {
        let mut j = job(&[2, 2]);
        j.group_name = "root".into();
        let s = SrunEnv {
            own_allocation: true,
            cpus_per_task: Some(2),
            working_cluster: "spur:127.0.0.1:6817:9728:109".into(),
            ..Default::default()
        };
        let mut env = vec![("HYDRA_BOOTSTRAP".to_string(), "ssh".to_string())];
        srun_env_for(&SLURM_24_11, &mut env, &s, &j);
        assert_eq!(get(&env, "SLURM_TRES_PER_TASK"), Some("cpu=2"));
        assert_eq!(get(&env, "SLURM_JOB_GROUP"), Some("root"));
        assert_eq!((get(&env, "SLURMD_DEBUG"), get(&env, "SRUN_DEBUG")), (Some("2"), Some("3")));
        assert_eq!(get(&env, "HYDRA_BOOTSTRAP"), Some("ssh"));
        assert_eq!(get(&env, "HYDRA_LAUNCHER_EXTRA_ARGS"), None);
        assert_eq!(get(&env, "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS"), Some("--external-launcher"));
        assert_eq!(get(&env, "SLURM_WORKING_CLUSTER"), None);
        let mut env = vec![];
        let s = SrunEnv { own_allocation: false, step_name: "env".into(), ..s };
        srun_env_for(&SLURM_22_05, &mut env, &s, &j);
        assert_eq!(get(&env, "SLURM_JOB_NAME"), Some("env"));
        let mut inherited = vec![("SLURM_JOB_NAME".to_string(), "wrap".to_string())];
        srun_env_for(&SLURM_22_05, &mut inherited, &s, &j);
        assert_eq!(get(&inherited, "SLURM_JOB_NAME"), Some("wrap"));
        assert_eq!(get(&env, "SLURM_WORKING_CLUSTER"), Some("spur:127.0.0.1:6817:9728:109"));
        assert_eq!(get(&env, "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0"), Some("2(x2)"));
        for k in ["SLURM_TRES_PER_TASK", "SLURM_JOB_GROUP", "SLURMD_DEBUG", "OMPI_MCA_plm_slurm_args"] {
            assert_eq!(get(&env, k), None, "{}", k);
        }
    }

    // recorded/24.11/srun_env/20: `srun -n1` in `sbatch -N2 -n4`
    #[test]
    fn step_variables() {
        let j = job(&[2, 2]);
        let step = Step {
            step_id: 1,
            name: "env".into(),
            allocs: j.allocs[..1].to_vec(),
            tasks_per_node: vec![1],
            num_tasks: 1,
            srun_host: "127.0.0.1".into(),
            srun_addr: "127.0.0.1".into(),
            ..Default::default()
        };
        let env = step_env_for(&SLURM_24_11, &j, &step, "spur", 4000);
        assert_eq!(get(&env, "SLURM_NODELIST"), Some("node[1-2]"));
        assert_eq!(get(&env, "SLURM_JOB_NUM_NODES"), Some("2"));
        assert_eq!(get(&env, "SLURM_NNODES"), Some("1"));
        assert_eq!(get(&env, "SLURM_TASKS_PER_NODE"), Some("1"));
        assert_eq!(get(&env, "SLURM_JOB_NAME"), Some("sbatch"));
        assert_eq!(get(&env, "SLURM_JOB_END_TIME"), Some("31537000"));
        assert_eq!(get(&env, "SLURM_DISTRIBUTION"), None);
        let env = step_env_for(&SLURM_22_05, &j, &step, "spur", 4000);
        assert_eq!(get(&env, "SLURM_JOB_NAME"), None);
        assert_eq!(get(&env, "SLURM_JOB_START_TIME"), None);
        // without an allocation (srun --no-allocate): no job variables
        let mut nj = j.clone();
        nj.job_id = 0xffff_0001;
        let env = step_env_for(&SLURM_24_11, &nj, &step, "spur", 4000);
        assert_eq!((get(&env, "SLURM_JOB_ID"), get(&env, "SLURM_JOB_END_TIME")), (None, None));
        assert_eq!((get(&env, "SLURM_OOM_KILL_STEP"), get(&env, "SLURM_STEP_ID")), (Some("0"), Some("1")));
    }

    // recorded/24.11/srun_env/37, 47; salloc/25, 49
    #[test]
    fn salloc_variables() {
        let mut j = job(&[2, 2]);
        j.desc.name = "interactive".into();
        j.desc.ntasks_per_node = Some(2);
        j.mem_per_cpu = 500;
        let env = allocation_env_for(&SLURM_24_11, &j, "spur");
        assert_eq!((get(&env, "SLURM_NTASKS"), get(&env, "SLURM_MEM_PER_CPU")), (Some("4"), None));
        assert_eq!(get(&env, "SLURM_NODE_ALIASES"), None);
        j.desc.mem_per_cpu = Some(200);
        j.mem_per_cpu = 200;
        let env = allocation_env_for(&SLURM_22_05, &j, "spur");
        assert_eq!((get(&env, "SLURM_MEM_PER_CPU"), get(&env, "SLURM_NODE_ALIASES")), (Some("200"), Some("(null)")));
    }
}
