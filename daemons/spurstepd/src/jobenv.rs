//! The environment of a batch script, as Slurm 24.11 builds it.
//!
//! Slurm builds it in stages, each one overwriting a variable in place when
//! it is already present and appending it otherwise; the same stages run
//! here in the same order, so the result has Slurm's values *and* order:
//!
//! 1. the submission environment (`JobDesc.env`, after `--export`), with
//!    what sbatch itself adds to it filled in when the client left it out
//!    (SLURM_SUBMIT_DIR, SLURM_SUBMIT_HOST, SLURM_UMASK, SLURM_NTASKS, ...);
//! 2. the controller's additions (array bounds, SLURM_JOB_NAME,
//!    SLURM_OPEN_MODE, SLURM_JOB_DEPENDENCY);
//! 3. the batch launch on the node (cluster, job id, node list, CPUs, tasks
//!    per node, memory, account, QOS, ENVIRONMENT=BATCH, HOSTNAME);
//! 4. GRES (GPUs) and topology;
//! 5. the per-task variables (SLURM_CONF, SLURM_CPUS_ON_NODE,
//!    SLURM_TASK_PID, SLURM_PROCID, ..., SLURM_JOB_UID/USER/GID,
//!    SLURMD_NODENAME) and TMPDIR;
//! 6. removal of what users must not see (SLURM_UMASK, SLURM_RLIMIT_*).

use spur_core::launch::LaunchSpec;
use spur_core::model::{Job, NodeAlloc};
use spur_grammar::hostlist;

/// What the batch environment needs beyond the launch spec: facts of the
/// node and of the task process.
#[derive(Clone, Debug)]
pub struct EnvContext {
    /// PID of the batch script process (SLURM_TASK_PID).
    pub task_pid: u32,
    /// SLURM_CONF as the agent has it (`/etc/slurm/slurm.conf` by default).
    pub slurm_conf: String,
    /// SLURM_TOPOLOGY_ADDR and its pattern; the node name and `node` when
    /// no topology is configured.
    pub topology_addr: Option<String>,
    pub topology_pattern: Option<String>,
    /// Whether GPU indexes are renumbered from 0 inside the job
    /// (cgroup ConstrainDevices): then CUDA_VISIBLE_DEVICES etc. are local.
    pub local_gpu_index: bool,
}

impl EnvContext {
    pub fn new(task_pid: u32) -> EnvContext {
        EnvContext {
            task_pid,
            slurm_conf: default_slurm_conf(),
            topology_addr: None,
            topology_pattern: None,
            local_gpu_index: false,
        }
    }
}

/// `SLURM_CONF` of this process, else Slurm's default path.
pub fn default_slurm_conf() -> String {
    std::env::var("SLURM_CONF").unwrap_or_else(|_| "/etc/slurm/slurm.conf".to_string())
}

/// Resource limit names Slurm propagates as `SLURM_RLIMIT_<NAME>`.
pub const RLIMIT_NAMES: [&str; 10] =
    ["CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS"];

/// An ordered environment with Slurm's overwrite-in-place semantics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Env(pub Vec<(String, String)>);

impl Env {
    pub fn get(&self, k: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
    }
    pub fn set(&mut self, k: &str, v: impl Into<String>) {
        let v = v.into();
        if let Some(e) = self.0.iter_mut().find(|(n, _)| n == k) {
            e.1 = v;
        } else {
            self.0.push((k.to_string(), v));
        }
    }
    pub fn set_if_absent(&mut self, k: &str, v: impl Into<String>) {
        if self.get(k).is_none() {
            self.0.push((k.to_string(), v.into()));
        }
    }
    pub fn unset(&mut self, k: &str) {
        self.0.retain(|(n, _)| n != k);
    }
}

/// `2(x3),1`: Slurm's compressed form of a list of counts.
pub fn compress_counts(v: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < v.len() {
        let mut n = 1;
        while i + n < v.len() && v[i + n] == v[i] {
            n += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(&v[i].to_string());
        if n > 1 {
            out.push_str(&format!("(x{})", n));
        }
        i += n;
    }
    out
}

/// Tasks per node for `ntasks` tasks laid out by Slurm's default block
/// distribution over nodes with `slots[i]` task slots (CPUs divided by
/// CPUs per task, at least 1): a cyclic pass fills every node's slots
/// before any node is oversubscribed, and the counts are then used as
/// blocks.
pub fn block_layout(ntasks: u32, slots: &[u32]) -> Vec<u32> {
    let mut tasks = vec![0u32; slots.len()];
    if slots.is_empty() {
        return tasks;
    }
    let mut placed = 0u32;
    let mut over = false;
    let mut round = 0u32;
    while placed < ntasks {
        let mut room_left = false;
        for (i, &s) in slots.iter().enumerate() {
            if placed >= ntasks {
                break;
            }
            if round < s || over {
                tasks[i] += 1;
                placed += 1;
                if round + 1 < s {
                    room_left = true;
                }
            }
        }
        if !room_left {
            over = true;
        }
        round += 1;
    }
    tasks
}

fn node_alloc<'a>(job: &'a Job, node: &str) -> Option<&'a NodeAlloc> {
    job.allocs.iter().find(|a| a.node == node).or_else(|| job.allocs.first())
}

/// The environment as sbatch sends it: `JobDesc.env` with what sbatch adds
/// itself filled in where the client left it out (values the client set
/// win). Order follows sbatch: its own `setenv`s, then the `--export`
/// bookkeeping, then the per-option and MPI-launcher variables.
pub fn submission_env(spec: &LaunchSpec) -> Env {
    let d = &spec.job.desc;
    let mut env = Env(d.env.to_vec());
    // sbatch's own scheduling priority (getpriority), not `--nice`.
    env.set_if_absent("SLURM_PRIO_PROCESS", "0");
    env.set_if_absent("SLURM_SUBMIT_DIR", d.work_dir.clone());
    if !spec.submit_host.is_empty() {
        env.set_if_absent("SLURM_SUBMIT_HOST", spec.submit_host.clone());
    } else if !d.alloc_node.is_empty() {
        env.set_if_absent("SLURM_SUBMIT_HOST", d.alloc_node.clone());
    }
    env.set_if_absent("SLURM_UMASK", format!("0{:03o}", d.umask & 0o777));
    let export = d.export.as_deref().unwrap_or("ALL");
    if !export.eq_ignore_ascii_case("ALL") {
        env.set_if_absent("SLURM_EXPORT_ENV", export.to_string());
        // Anything but ALL and NIL makes slurmd load the login environment.
        if !export.eq_ignore_ascii_case("NIL") {
            env.set_if_absent("SLURM_GET_USER_ENV", "1");
        }
    }
    if let Some(c) = d.cpus_per_task {
        env.set_if_absent("SLURM_CPUS_PER_TASK", c.to_string());
    }
    if let Some(n) = d.num_tasks {
        env.set_if_absent("SLURM_NPROCS", n.to_string());
        env.set_if_absent("SLURM_NTASKS", n.to_string());
    }
    if let Some(n) = d.ntasks_per_node {
        env.set_if_absent("SLURM_NTASKS_PER_NODE", n.to_string());
    }
    if spur_core::compat::profile().env_working_cluster {
        // 22.05's sbatch: no TRES-per-task or MPI launcher variables, but the
        // controller it talked to (cluster:address:port:protocol:select id)
        if !spec.working_cluster.is_empty() {
            env.set_if_absent("SLURM_WORKING_CLUSTER", spec.working_cluster.clone());
        }
        return env;
    }
    if let Some(c) = d.cpus_per_task {
        env.set_if_absent("SLURM_TRES_PER_TASK", format!("cpu={}", c));
    }
    // For mpirun started inside the job (sbatch always adds these).
    env.set_if_absent("OMPI_MCA_plm_slurm_args", "--external-launcher");
    env.set_if_absent("PRTE_MCA_plm_slurm_args", "--external-launcher");
    for (boot, extra) in [
        ("HYDRA_BOOTSTRAP", "HYDRA_LAUNCHER_EXTRA_ARGS"),
        ("I_MPI_HYDRA_BOOTSTRAP", "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS"),
    ] {
        match env.get(boot) {
            None => {
                env.set(boot, "slurm");
                env.set_if_absent(extra, "--external-launcher");
            }
            Some("slurm") => env.set_if_absent(extra, "--external-launcher"),
            Some(_) => {}
        }
    }
    env
}

/// Whether slurmd loads the user's login environment under the submitted one.
pub fn wants_user_env(env: &Env) -> bool {
    env.get("SLURM_GET_USER_ENV") == Some("1")
}

/// The environment of the batch script of `spec.job` on `spec.node_name`.
pub fn batch_env(spec: &LaunchSpec, ctx: &EnvContext) -> Vec<(String, String)> {
    let job = &spec.job;
    let d = &job.desc;
    let node = spec.node_name.as_str();
    let mut env = submission_env(spec);

    // 2. The controller.
    if let Some(a) = &job.array {
        if a.task_id.is_some() {
            // as slurmctld computed them from the specification it accepted
            // with its MaxArraySize (read again with the largest bound, the
            // same tasks)
            let spec = spur_grammar::array::parse(&a.spec, spur_grammar::array::MAX_MAX_ARRAY_SIZE);
            if let Some((spec, (count, min, max))) = spec.ok().and_then(|s| s.bounds().map(|b| (s, b))) {
                env.set("SLURM_ARRAY_TASK_COUNT", count.to_string());
                env.set("SLURM_ARRAY_TASK_MIN", min.to_string());
                env.set("SLURM_ARRAY_TASK_MAX", max.to_string());
                env.set("SLURM_ARRAY_TASK_STEP", spec.step.to_string());
            }
        }
    }
    if !(spur_core::compat::profile().stdin_batch_job_name_unset && d.name == "sbatch") {
        env.set("SLURM_JOB_NAME", d.name.clone());
    }
    match d.open_mode_append {
        Some(true) => env.set("SLURM_OPEN_MODE", "a"),
        Some(false) => env.set("SLURM_OPEN_MODE", "t"),
        None => {}
    }
    if let Some(dep) = &d.dependency {
        if !dep.is_empty() {
            env.set("SLURM_JOB_DEPENDENCY", dep.clone());
        }
    }

    // 3. The batch launch.
    let nodes: Vec<String> = job.node_names();
    let nnodes = nodes.len().max(1) as u32;
    let nodelist = if nodes.is_empty() { node.to_string() } else { hostlist::compress(&nodes) };
    let cpus: Vec<u32> =
        if job.allocs.is_empty() { vec![job.num_cpus.max(1)] } else { job.allocs.iter().map(|a| a.cpus).collect() };
    let mut ntasks = d.num_tasks.unwrap_or(0);
    if ntasks == 0 {
        if let Some(npn) = env.get("SLURM_NTASKS_PER_NODE").and_then(|v| v.trim().parse::<u32>().ok()) {
            ntasks = npn * nnodes;
        }
    }
    env.set("SLURM_CLUSTER_NAME", spec.cluster_name.clone());
    env.set("SLURM_JOB_ID", job.job_id.to_string());
    env.set("SLURM_JOB_NUM_NODES", nnodes.to_string());
    if let Some(a) = &job.array {
        if let Some(t) = a.task_id {
            env.set("SLURM_ARRAY_JOB_ID", a.array_job_id.to_string());
            env.set("SLURM_ARRAY_TASK_ID", t.to_string());
        }
    }
    env.set("SLURM_JOB_NODELIST", nodelist.clone());
    env.set("SLURM_JOB_PARTITION", job.partition.clone());
    if spur_core::compat::profile().env_node_aliases {
        // 22.05 passes the (here empty) node alias list
        env.set("SLURM_NODE_ALIASES", "(null)");
    }
    env.set("SLURM_JOB_CPUS_PER_NODE", compress_counts(&cpus));
    env.set("ENVIRONMENT", "BATCH");
    env.set("HOSTNAME", node.to_string());
    env.set("SLURM_JOBID", job.job_id.to_string());
    env.set("SLURM_NNODES", nnodes.to_string());
    env.set("SLURM_NODELIST", nodelist);
    let cpt = d.cpus_per_task.filter(|&c| c > 0).unwrap_or(1);
    if env.get("SLURM_CPUS_PER_TASK").is_some() {
        env.set("SLURM_CPUS_PER_TASK", cpt.to_string());
    }
    if ntasks > 0 {
        env.set("SLURM_NTASKS", ntasks.to_string());
        env.set("SLURM_NPROCS", ntasks.to_string());
    } else {
        ntasks = cpus.iter().map(|c| c / cpt).sum();
    }
    let slots: Vec<u32> = cpus.iter().map(|c| (c / cpt).max(1)).collect();
    env.set("SLURM_TASKS_PER_NODE", compress_counts(&block_layout(ntasks, &slots)));
    if job.mem_per_cpu > 0 {
        env.set("SLURM_MEM_PER_CPU", job.mem_per_cpu.to_string());
    } else if job.mem_per_node > 0 {
        env.set("SLURM_MEM_PER_NODE", job.mem_per_node.to_string());
    }
    if let Some(a) = d.account.as_ref().filter(|a| !a.is_empty()) {
        env.set("SLURM_JOB_ACCOUNT", a.clone());
    }
    if let Some(q) = d.qos.as_ref().filter(|q| !q.is_empty()) {
        env.set("SLURM_JOB_QOS", q.clone());
    }

    // 4. GRES, then topology.
    let here = node_alloc(job, node);
    if let Some(a) = here {
        let mut idx: Vec<u32> =
            a.gres.iter().filter(|g| g.name == "gpu").flat_map(|g| g.indexes.iter().copied()).collect();
        idx.sort_unstable();
        idx.dedup();
        if !idx.is_empty() {
            let global = idx.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
            let local = if ctx.local_gpu_index {
                (0..idx.len()).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
            } else {
                global.clone()
            };
            env.set("SLURM_GPUS_ON_NODE", idx.len().to_string());
            env.set("SLURM_JOB_GPUS", global);
            env.set("CUDA_VISIBLE_DEVICES", local.clone());
            env.set("ROCR_VISIBLE_DEVICES", local.clone());
            env.set("ZE_AFFINITY_MASK", local.clone());
            env.set("GPU_DEVICE_ORDINAL", local);
        }
    }
    env.set("SLURM_TOPOLOGY_ADDR", ctx.topology_addr.clone().unwrap_or_else(|| node.to_string()));
    env.set("SLURM_TOPOLOGY_ADDR_PATTERN", ctx.topology_pattern.clone().unwrap_or_else(|| "node".to_string()));

    // 5. The task.
    env.set("SLURM_CONF", ctx.slurm_conf.clone());
    env.unset("SLURM_CONF_SERVER");
    let cpus_on_node = here.map(|a| a.cpus).unwrap_or(cpus[0]);
    if cpus_on_node > 0 {
        env.set("SLURM_CPUS_ON_NODE", cpus_on_node.to_string());
    }
    let newer = spur_core::compat::profile().env_24_11_variables;
    if newer {
        env.set("SLURM_OOM_KILL_STEP", "0");
    }
    // 22.05 has neither SLURM_JOB_END_TIME nor SLURM_JOB_START_TIME
    if let Some(t) = spur_core::launch::job_end_time(job).filter(|_| newer) {
        env.set("SLURM_JOB_END_TIME", t.to_string());
    }
    env.set("SLURM_JOB_ID", job.job_id.to_string());
    env.set("SLURM_JOBID", job.job_id.to_string());
    if job.start_time > 0 && newer {
        env.set("SLURM_JOB_START_TIME", job.start_time.to_string());
    }
    if ctx.task_pid > 0 {
        env.set("SLURM_TASK_PID", ctx.task_pid.to_string());
    }
    env.set("SLURM_NODEID", "0");
    env.set("SLURM_PROCID", "0");
    env.set("SLURM_LOCALID", "0");
    env.set("SLURM_GTIDS", "0");
    if job.restart_count > 0 {
        env.set("SLURM_RESTART_COUNT", job.restart_count.to_string());
    }
    env.set("SLURM_JOB_UID", job.user_id.to_string());
    if !job.user_name.is_empty() {
        env.set("SLURM_JOB_USER", job.user_name.clone());
    }
    env.set("SLURM_JOB_GID", job.group_id.to_string());
    env.set("SLURMD_NODENAME", node.to_string());
    if env.get("TMPDIR").is_none() {
        env.set("TMPDIR", "/tmp");
    }

    // 6. Not for the user's eyes (applied by the supervisor instead).
    env.unset("SLURM_UMASK");
    for n in RLIMIT_NAMES {
        env.unset(&format!("SLURM_RLIMIT_{}", n));
    }
    env.0
}

/// The umask the script runs with: sbatch's SLURM_UMASK (octal), else the
/// umask recorded at submission, else 022.
pub fn job_umask(job: &Job) -> u32 {
    if let Some((_, v)) = job.desc.env.iter().find(|(k, _)| k == "SLURM_UMASK") {
        if let Ok(m) = u32::from_str_radix(v.trim(), 8) {
            return m & 0o777;
        }
    }
    if job.desc.umask != 0 {
        job.desc.umask & 0o777
    } else {
        0o022
    }
}

/// Propagated resource limits from the submission environment:
/// `(name, value, user_requested)` (`U` prefix = `--propagate` asked).
pub fn propagated_rlimits(job: &Job) -> Vec<(&'static str, u64, bool)> {
    rlimits_in(&job.desc.env)
}

/// The `SLURM_RLIMIT_<NAME>` values of an environment (sbatch's or srun's):
/// `(name, value, user_requested)`, a `U` prefix meaning `--propagate` asked.
pub fn rlimits_in(env: &[(String, String)]) -> Vec<(&'static str, u64, bool)> {
    let mut out = Vec::new();
    for n in RLIMIT_NAMES {
        let key = format!("SLURM_RLIMIT_{}", n);
        if let Some((_, v)) = env.iter().find(|(k, _)| *k == key) {
            let (user, num) = match v.strip_prefix('U') {
                Some(rest) => (true, rest),
                None => (false, v.as_str()),
            };
            if let Ok(x) = num.parse::<u64>() {
                out.push((n, x, user));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iopattern::tests::job;
    use spur_core::model::{ArrayInfo, GresAlloc, NodeAlloc};

    fn spec(j: Job) -> LaunchSpec {
        LaunchSpec {
            job: j,
            node_name: "n1".into(),
            cluster_name: "spurc".into(),
            ctld_host: "ctl".into(),
            ctld_port: 6817,
            kill_wait: 30,
            submit_host: "login1".into(),
            working_cluster: String::new(),
            mem_check_secs: 0,
        }
    }

    fn ctx() -> EnvContext {
        EnvContext {
            task_pid: 4242,
            slurm_conf: "/etc/slurm/slurm.conf".into(),
            topology_addr: None,
            topology_pattern: None,
            local_gpu_index: false,
        }
    }

    fn get<'a>(e: &'a [(String, String)], k: &str) -> Option<&'a str> {
        e.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
    }

    fn alloc(node: &str, cpus: u32) -> NodeAlloc {
        NodeAlloc { node: node.into(), cpus, mem_mb: 0, gres: vec![] }
    }

    #[test]
    fn counts_grammar() {
        assert_eq!(compress_counts(&[2, 2]), "2(x2)");
        assert_eq!(compress_counts(&[1, 2, 1, 1, 1, 3, 2]), "1,2,1(x3),3,2");
        assert_eq!(compress_counts(&[4]), "4");
        assert_eq!(compress_counts(&[]), "");
    }

    #[test]
    fn block_layouts() {
        assert_eq!(block_layout(4, &[2, 2]), vec![2, 2]);
        assert_eq!(block_layout(3, &[2, 2]), vec![2, 1]);
        assert_eq!(block_layout(1, &[4, 4]), vec![1, 0]);
        assert_eq!(block_layout(2, &[4, 4]), vec![1, 1]);
        assert_eq!(block_layout(6, &[4, 2]), vec![4, 2]);
        assert_eq!(block_layout(8, &[2, 2]), vec![4, 4]);
    }

    #[test]
    fn single_node_defaults() {
        let mut j = job(77);
        j.allocs = vec![alloc("n1", 1)];
        j.start_time = 1_700_000_000;
        j.end_time = 1_700_003_600;
        j.desc.env = vec![("PATH".into(), "/usr/bin:/bin".into()), ("SLURM_UMASK".into(), "0022".into())].into();
        let e = batch_env(&spec(j), &ctx());
        assert_eq!(e[0], ("PATH".to_string(), "/usr/bin:/bin".to_string()));
        for (k, v) in [
            ("SLURM_JOB_ID", "77"),
            ("SLURM_JOBID", "77"),
            ("SLURM_JOB_NAME", "myjob"),
            ("SLURM_JOB_NODELIST", "n1"),
            ("SLURM_NODELIST", "n1"),
            ("SLURM_NNODES", "1"),
            ("SLURM_JOB_NUM_NODES", "1"),
            ("SLURM_CPUS_ON_NODE", "1"),
            ("SLURM_JOB_CPUS_PER_NODE", "1"),
            ("SLURM_TASKS_PER_NODE", "1"),
            ("SLURM_SUBMIT_DIR", "/home/alice/run"),
            ("SLURM_SUBMIT_HOST", "login1"),
            ("SLURM_JOB_PARTITION", "debug"),
            ("SLURM_CLUSTER_NAME", "spurc"),
            ("SLURM_JOB_UID", "1500"),
            ("SLURM_JOB_USER", "alice"),
            ("SLURM_JOB_GID", "1500"),
            ("SLURMD_NODENAME", "n1"),
            ("SLURM_NODEID", "0"),
            ("SLURM_PROCID", "0"),
            ("SLURM_LOCALID", "0"),
            ("SLURM_GTIDS", "0"),
            ("SLURM_TASK_PID", "4242"),
            ("SLURM_CONF", "/etc/slurm/slurm.conf"),
            ("SLURM_TOPOLOGY_ADDR", "n1"),
            ("SLURM_TOPOLOGY_ADDR_PATTERN", "node"),
            ("SLURM_JOB_START_TIME", "1700000000"),
            ("SLURM_JOB_END_TIME", "1700003600"),
            ("ENVIRONMENT", "BATCH"),
            ("HOSTNAME", "n1"),
            ("TMPDIR", "/tmp"),
        ] {
            assert_eq!(get(&e, k), Some(v), "{}", k);
        }
        // Only with -n; never shown to the user.
        assert_eq!(get(&e, "SLURM_NTASKS"), None);
        assert_eq!(get(&e, "SLURM_NPROCS"), None);
        assert_eq!(get(&e, "SLURM_UMASK"), None);
        assert_eq!(get(&e, "SLURM_ARRAY_JOB_ID"), None);
        assert_eq!(get(&e, "CUDA_VISIBLE_DEVICES"), None);
        // No duplicates.
        let mut names: Vec<&str> = e.iter().map(|(k, _)| k.as_str()).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
    }

    #[test]
    fn multi_node_tasks_and_memory() {
        let mut j = job(80);
        j.allocs = vec![alloc("n1", 2), alloc("n2", 2)];
        j.desc.num_tasks = Some(3);
        j.mem_per_cpu = 100;
        j.desc.account = Some("proj".into());
        j.desc.qos = Some("normal".into());
        let e = batch_env(&spec(j), &ctx());
        assert_eq!(get(&e, "SLURM_JOB_NODELIST"), Some("n[1-2]"));
        assert_eq!(get(&e, "SLURM_JOB_CPUS_PER_NODE"), Some("2(x2)"));
        assert_eq!(get(&e, "SLURM_TASKS_PER_NODE"), Some("2,1"));
        assert_eq!(get(&e, "SLURM_NTASKS"), Some("3"));
        assert_eq!(get(&e, "SLURM_NPROCS"), Some("3"));
        assert_eq!(get(&e, "SLURM_NNODES"), Some("2"));
        assert_eq!(get(&e, "SLURM_CPUS_ON_NODE"), Some("2"));
        assert_eq!(get(&e, "SLURM_MEM_PER_CPU"), Some("100"));
        assert_eq!(get(&e, "SLURM_MEM_PER_NODE"), None);
        assert_eq!(get(&e, "SLURM_JOB_ACCOUNT"), Some("proj"));
        assert_eq!(get(&e, "SLURM_JOB_QOS"), Some("normal"));
    }

    #[test]
    fn cpus_per_task_and_ntasks_per_node() {
        let mut j = job(81);
        j.allocs = vec![alloc("n1", 4), alloc("n2", 4)];
        j.desc.cpus_per_task = Some(2);
        j.mem_per_node = 500;
        let e = batch_env(&spec(j.clone()), &ctx());
        assert_eq!(get(&e, "SLURM_CPUS_PER_TASK"), Some("2"));
        assert_eq!(get(&e, "SLURM_TASKS_PER_NODE"), Some("2(x2)"));
        assert_eq!(get(&e, "SLURM_MEM_PER_NODE"), Some("500"));
        j.desc.cpus_per_task = None;
        j.desc.ntasks_per_node = Some(1);
        let e = batch_env(&spec(j), &ctx());
        assert_eq!(get(&e, "SLURM_NTASKS_PER_NODE"), Some("1"));
        assert_eq!(get(&e, "SLURM_NTASKS"), Some("2"));
        assert_eq!(get(&e, "SLURM_TASKS_PER_NODE"), Some("1(x2)"));
    }

    #[test]
    fn array_task() {
        let mut j = job(105);
        j.allocs = vec![alloc("n1", 1)];
        j.array = Some(ArrayInfo { array_job_id: 100, task_id: Some(5), spec: "1-9:2%3".into(), ..Default::default() });
        let e = batch_env(&spec(j), &ctx());
        assert_eq!(get(&e, "SLURM_ARRAY_JOB_ID"), Some("100"));
        assert_eq!(get(&e, "SLURM_ARRAY_TASK_ID"), Some("5"));
        assert_eq!(get(&e, "SLURM_ARRAY_TASK_COUNT"), Some("5"));
        assert_eq!(get(&e, "SLURM_ARRAY_TASK_MIN"), Some("1"));
        assert_eq!(get(&e, "SLURM_ARRAY_TASK_MAX"), Some("9"));
        assert_eq!(get(&e, "SLURM_ARRAY_TASK_STEP"), Some("2"));
        assert_eq!(get(&e, "SLURM_JOB_ID"), Some("105"));
    }

    #[test]
    fn gpus() {
        let mut j = job(90);
        let mut a = alloc("n1", 8);
        a.gres = vec![GresAlloc { name: "gpu".into(), gtype: Some("mi300x".into()), count: 2, indexes: vec![3, 1] }];
        j.allocs = vec![a];
        let e = batch_env(&spec(j.clone()), &ctx());
        assert_eq!(get(&e, "SLURM_GPUS_ON_NODE"), Some("2"));
        assert_eq!(get(&e, "SLURM_JOB_GPUS"), Some("1,3"));
        assert_eq!(get(&e, "CUDA_VISIBLE_DEVICES"), Some("1,3"));
        assert_eq!(get(&e, "ROCR_VISIBLE_DEVICES"), Some("1,3"));
        let mut c = ctx();
        c.local_gpu_index = true;
        let e = batch_env(&spec(j), &c);
        assert_eq!(get(&e, "CUDA_VISIBLE_DEVICES"), Some("0,1"));
        assert_eq!(get(&e, "SLURM_JOB_GPUS"), Some("1,3"));
    }

    #[test]
    fn submission_values_win_and_overwrites_keep_position() {
        let mut j = job(91);
        j.allocs = vec![alloc("n1", 1)];
        j.desc.env = vec![
            ("SLURM_JOB_ID".into(), "1".into()),
            ("SLURM_SUBMIT_DIR".into(), "/elsewhere".into()),
            ("TMPDIR".into(), "/scratch".into()),
            ("SLURM_RLIMIT_NOFILE".into(), "1024".into()),
        ]
        .into();
        let e = batch_env(&spec(j), &ctx());
        assert_eq!(e[0], ("SLURM_JOB_ID".to_string(), "91".to_string()));
        assert_eq!(get(&e, "SLURM_SUBMIT_DIR"), Some("/elsewhere"));
        assert_eq!(get(&e, "TMPDIR"), Some("/scratch"));
        assert_eq!(get(&e, "SLURM_RLIMIT_NOFILE"), None);
    }

    #[test]
    fn umask_and_rlimits() {
        let mut j = job(1);
        assert_eq!(job_umask(&j), 0o022);
        j.desc.umask = 0o077;
        assert_eq!(job_umask(&j), 0o077);
        j.desc.env.push(("SLURM_UMASK".into(), "0002".into()));
        j.desc.env.push(("SLURM_RLIMIT_CORE".into(), "U0".into()));
        j.desc.env.push(("SLURM_RLIMIT_NOFILE".into(), "4096".into()));
        assert_eq!(job_umask(&j), 0o002);
        assert_eq!(propagated_rlimits(&j), vec![("CORE", 0, true), ("NOFILE", 4096, false)]);
    }

    // ---- against the Slurm 24.11 recordings (conformance/recorded/24.11/batch_env) ----

    use std::collections::BTreeMap;

    /// A recorded step's environment. The recordings are in the tree: a
    /// missing one fails the test rather than passing it unchecked.
    fn recorded(n: &str) -> BTreeMap<String, String> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../conformance/recorded/24.11/batch_env")
            .join(format!("{}.out", n));
        let text = std::fs::read_to_string(&p)
            .unwrap_or_else(|e| panic!("this test needs the recording {}: {}", p.display(), e));
        text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// The harness's submission environment (see batch_env.scn).
    fn harness_env() -> Vec<(String, String)> {
        [
            ("HOME", "/root"),
            ("LANG", "C.UTF-8"),
            ("LOGNAME", "root"),
            ("OLDPWD", "/"),
            ("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"),
            ("PWD", "/tmp/spur-conf-work"),
            ("SLURM_CONF", "/tmp/spur-conf-cluster/etc/slurm.conf"),
            ("TERM", "dumb"),
            ("USER", "root"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    /// A spec for a recorded job: ids and times from the recording itself,
    /// resources from the scenario's options.
    fn recorded_spec(rec: &BTreeMap<String, String>, cpus: &[u32]) -> LaunchSpec {
        let num = |k: &str| rec.get(k).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
        let mut j = job(num("SLURM_JOB_ID") as u32);
        j.desc.name = rec["SLURM_JOB_NAME"].clone();
        j.desc.work_dir = "/tmp/spur-conf-work".into();
        j.desc.env = harness_env().into();
        j.desc.umask = 0o022;
        j.user_id = 0;
        j.group_id = 0;
        j.user_name = "root".into();
        j.group_name = "root".into();
        j.partition = "debug".into();
        j.start_time = num("SLURM_JOB_START_TIME");
        j.end_time = num("SLURM_JOB_END_TIME");
        j.mem_per_cpu = 500; // DefMemPerCPU=500
        j.allocs = cpus
            .iter()
            .enumerate()
            .map(|(i, &c)| NodeAlloc { node: format!("node{}", i + 1), cpus: c, mem_mb: 0, gres: vec![] })
            .collect();
        LaunchSpec {
            job: j,
            node_name: "node1".into(),
            cluster_name: "spur".into(),
            ctld_host: "vm".into(),
            ctld_port: 47800,
            kill_wait: 30,
            submit_host: "vm".into(),
            working_cluster: String::new(),
            mem_check_secs: 0,
        }
    }

    fn rec_ctx(rec: &BTreeMap<String, String>) -> EnvContext {
        EnvContext {
            task_pid: rec["SLURM_TASK_PID"].parse().unwrap(),
            slurm_conf: "/tmp/spur-conf-cluster/etc/slurm.conf".into(),
            topology_addr: None,
            topology_pattern: None,
            local_gpu_index: false,
        }
    }

    /// Compare the variables the recording shows (a `grep ^SLURM|SLURMD|ENVIRONMENT`
    /// or a whole `env`) with ours, both ways.
    fn compare(rec: &BTreeMap<String, String>, ours: &[(String, String)], whole: bool) {
        // Set by the shell running the script, not by Slurm.
        let shell = ["SHLVL", "_", "PWD", "OLDPWD"];
        let keep = |k: &str| whole || k.starts_with("SLURM") || k == "ENVIRONMENT";
        let ours: BTreeMap<String, String> =
            ours.iter().filter(|(k, _)| keep(k) && !shell.contains(&k.as_str())).cloned().collect();
        let rec: BTreeMap<String, String> = rec
            .iter()
            .filter(|(k, _)| keep(k) && !shell.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(ours, rec);
    }

    #[test]
    fn recorded_wrap_defaults() {
        let rec = recorded("03");
        let s = recorded_spec(&rec, &[1]);
        compare(&rec, &batch_env(&s, &rec_ctx(&rec)), false);
    }

    #[test]
    fn recorded_whole_environment() {
        let rec = recorded("06");
        let s = recorded_spec(&rec, &[1]);
        let ours = batch_env(&s, &rec_ctx(&rec));
        compare(&rec, &ours, true);
    }

    #[test]
    fn recorded_two_nodes_four_tasks() {
        let rec = recorded("09");
        let mut s = recorded_spec(&rec, &[2, 2]);
        s.job.desc.num_tasks = Some(4);
        s.job.desc.min_nodes = Some(2);
        compare(&rec, &batch_env(&s, &rec_ctx(&rec)), false);
    }

    #[test]
    fn recorded_array_tasks() {
        for n in ["13", "14"] {
            let rec = recorded(n);
            let mut s = recorded_spec(&rec, &[1]);
            s.job.array = Some(ArrayInfo {
                array_job_id: rec["SLURM_ARRAY_JOB_ID"].parse().unwrap(),
                task_id: Some(rec["SLURM_ARRAY_TASK_ID"].parse().unwrap()),
                spec: "1-2".into(),
                ..Default::default()
            });
            compare(&rec, &batch_env(&s, &rec_ctx(&rec)), false);
        }
    }

    #[test]
    fn recorded_user_job_cpus_mem_time() {
        let rec = recorded("17");
        let mut s = recorded_spec(&rec, &[2]);
        s.job.user_id = 1500;
        s.job.group_id = 1500;
        s.job.user_name = "spurtest".into();
        s.job.desc.cpus_per_task = Some(2);
        s.job.desc.mem_per_node = Some(700);
        s.job.mem_per_cpu = 0;
        s.job.mem_per_node = 700;
        compare(&rec, &batch_env(&s, &rec_ctx(&rec)), false);
    }

    #[test]
    fn recorded_export_none_ntasks_per_node() {
        let rec = recorded("20");
        let mut s = recorded_spec(&rec, &[2, 2]);
        s.job.desc.export = Some("NONE".into());
        s.job.desc.ntasks_per_node = Some(2);
        s.job.desc.exclusive = true;
        // --export=NONE sends only the SLURM_* variables of sbatch's environment.
        s.job.desc.env.retain(|(k, _)| k.starts_with("SLURM_"));
        compare(&rec, &batch_env(&s, &rec_ctx(&rec)), false);
    }

    #[test]
    fn recorded_three_tasks_mem_per_cpu() {
        let rec = recorded("23");
        let mut s = recorded_spec(&rec, &[2, 1]);
        s.job.desc.num_tasks = Some(3);
        s.job.desc.mem_per_cpu = Some(200);
        s.job.mem_per_cpu = 200;
        compare(&rec, &batch_env(&s, &rec_ctx(&rec)), false);
    }
}
