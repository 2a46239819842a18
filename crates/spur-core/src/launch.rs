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
}

/// `SLURM_JOB_CPUS_PER_NODE` / `SLURM_TASKS_PER_NODE` grammar: `2(x3),1`.
pub fn counts(v: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[i] {
            j += 1;
        }
        let n = j - i + 1;
        out.push(if n > 1 { format!("{}(x{})", v[i], n) } else { v[i].to_string() });
        i = j + 1;
    }
    out.join(",")
}

/// The variables that describe an allocation (salloc's, and srun's for its
/// own), as Slurm sets them for the programs run in it.
pub fn allocation_env(job: &Job, cluster: &str) -> Vec<(String, String)> {
    let nodes = spur_grammar::hostlist::compress(&job.node_names());
    let cpus: Vec<u32> = job.allocs.iter().map(|a| a.cpus).collect();
    let nn = job.allocs.len();
    let mut v: Vec<(String, String)> = vec![
        ("SLURM_CLUSTER_NAME".into(), cluster.into()),
        ("SLURM_JOB_ID".into(), job.job_id.to_string()),
        ("SLURM_JOBID".into(), job.job_id.to_string()),
        ("SLURM_JOB_NAME".into(), job.desc.name.clone()),
        ("SLURM_JOB_NODELIST".into(), nodes.clone()),
        ("SLURM_NODELIST".into(), nodes),
        ("SLURM_JOB_NUM_NODES".into(), nn.to_string()),
        ("SLURM_NNODES".into(), nn.to_string()),
        ("SLURM_JOB_CPUS_PER_NODE".into(), counts(&cpus)),
        ("SLURM_JOB_PARTITION".into(), job.partition.clone()),
        ("SLURM_SUBMIT_DIR".into(), job.desc.work_dir.clone()),
        ("SLURM_SUBMIT_HOST".into(), job.desc.submit_host.clone()),
    ];
    if let Some(n) = job.desc.num_tasks {
        v.push(("SLURM_NTASKS".into(), n.to_string()));
        v.push(("SLURM_NPROCS".into(), n.to_string()));
    }
    if let Some(c) = job.desc.cpus_per_task {
        v.push(("SLURM_CPUS_PER_TASK".into(), c.to_string()));
    }
    if let Some(n) = job.desc.ntasks_per_node {
        v.push(("SLURM_NTASKS_PER_NODE".into(), n.to_string()));
    }
    let tasks = tasks_per_node(job);
    v.push(("SLURM_TASKS_PER_NODE".into(), counts(&tasks)));
    if job.mem_per_node > 0 {
        v.push(("SLURM_MEM_PER_NODE".into(), job.mem_per_node.to_string()));
    }
    if job.mem_per_cpu > 0 {
        v.push(("SLURM_MEM_PER_CPU".into(), job.mem_per_cpu.to_string()));
    }
    v
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

/// The variables of a step for its tasks, before each task's own
/// (`SLURM_PROCID`, ...): the allocation's, then the step's layout and
/// srun's address. `port` is srun's I/O port.
pub fn step_env(job: &Job, step: &Step, cluster: &str, port: u16) -> Vec<(String, String)> {
    let mut env = allocation_env(job, cluster);
    let mut set = |k: &str, v: String| {
        if let Some(e) = env.iter_mut().find(|(x, _)| x == k) {
            e.1 = v;
        } else {
            env.push((k.to_string(), v));
        }
    };
    let nodes = spur_grammar::hostlist::compress(&step.node_names());
    let per = counts(&step.tasks_per_node);
    set("SLURM_STEP_ID", step.step_id.to_string());
    set("SLURM_STEPID", step.step_id.to_string());
    set("SLURM_STEP_NODELIST", nodes.clone());
    set("SLURM_STEP_NUM_NODES", step.allocs.len().to_string());
    set("SLURM_STEP_NUM_TASKS", step.num_tasks.to_string());
    set("SLURM_STEP_TASKS_PER_NODE", per.clone());
    set("SLURM_NODELIST", nodes);
    set("SLURM_NNODES", step.allocs.len().to_string());
    set("SLURM_NTASKS", step.num_tasks.to_string());
    set("SLURM_NPROCS", step.num_tasks.to_string());
    set("SLURM_TASKS_PER_NODE", per);
    set("SLURM_DISTRIBUTION", step.distribution.clone());
    set("SLURM_SRUN_COMM_HOST", step.srun_host.clone());
    set("SLURM_SRUN_COMM_PORT", port.to_string());
    set("SLURM_LAUNCH_NODE_IPADDR", step.srun_host.clone());
    set("SLURM_STEP_LAUNCHER_PORT", port.to_string());
    set("SLURM_JOB_UID", job.user_id.to_string());
    set("SLURM_JOB_USER", job.user_name.clone());
    set("SLURM_JOB_GID", job.group_id.to_string());
    if step.cpus_per_task > 1 || job.desc.cpus_per_task.is_some() {
        set("SLURM_CPUS_PER_TASK", step.cpus_per_task.to_string());
    }
    if !step.mpi.is_empty() {
        set("SLURM_MPI_TYPE", step.mpi.clone());
    }
    env
}
