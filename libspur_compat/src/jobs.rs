//! The job queries of slurm.h: `slurm_load_jobs`, `slurm_load_job`,
//! `slurm_load_job_user` and their free functions, `slurm_get_end_time`,
//! `slurm_get_rem_time`, `slurm_pid2jobid`, the standard stream paths of a
//! record, `slurm_job_batch_script`, and (22.05) the CPU counts of a job's
//! `job_resrcs`.
//!
//! # The records
//! Each `slurm_job_info_t` holds what slurmctld's `pack_job` sends for the
//! job, taken from Spur's record (`spur_core::model::Job`) with the texts the
//! commands show (spur-cli-base's `records`): a field Spur has no value for
//! holds the value slurmctld sends for a job that did not ask for it
//! (`NO_VAL`, `NO_VAL16`, `NICE_OFFSET`, NULL). The standard stream paths
//! are the submitted patterns, unexpanded, as slurmctld sends them;
//! `slurm_get_job_stdout` and its siblings expand them.
//!
//! # Memory
//! Every pointer of a record is its own xmalloc'ed block (consumers copy a
//! record and free its members one by one with `slurm_free_job_info_members`
//! or `slurm_xfree`); the index arrays `node_inx`, `req_node_inx` and
//! `exc_node_inx` are never NULL and end with -1. A message is one block for
//! `job_info_msg_t` and one for its array of records.
//!
//! # `job_resrcs`
//! In 22.05 builds each started job's `job_resrcs` points to a block laid
//! out as Slurm 22.05's internal `struct job_resources` (src/common/
//! job_resources.h, 160 bytes), which the Perl API and pyslurm read: the
//! node names, CPUs and memory per node, the compact CPU arrays, the
//! socket/core layout of the nodes. Its core bitmap is NULL (Spur does not
//! record which cores a job holds; both consumers skip the per-core report
//! then); the CPU ids `slurm_job_cpus_allocated_str_on_node_id` prints are
//! the ones `scontrol show job -d` shows, kept after Slurm's fields. In
//! 24.11 builds `job_resrcs` is NULL (the functions that read it are gone
//! from that release).
//!
//! `update_time` is not compared: every load returns the current records
//! (never `SLURM_NO_CHANGE_IN_DATA`), which Slurm's callers accept.

// (enumerators are cast to the fields' types: bindgen gives a C enum the
// enum type of the platform, which need not be the field's)
#![allow(clippy::unnecessary_cast)]

use crate::sys;
use crate::xmalloc::{xalloc, xarray, xfree, xindex, xnew, xstr_nonempty, xstr_opt, xstrdup};
use spur_cli_base::records;
use spur_core::model::{ClusterView, Job, JobState, Reason};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_long};
use std::ptr::null_mut;

/// `JOB_COMPLETING` (`SLURM_BIT(15)`, a macro bindgen cannot read).
const JOB_COMPLETING: u32 = 1 << 15;
/// `KILL_INV_DEP`, `NO_KILL_INV_DEP`, `SPREAD_JOB` of `bitflags`.
const KILL_INV_DEP: u64 = 1 << 0;
const NO_KILL_INV_DEP: u64 = 1 << 1;
const SPREAD_JOB: u64 = 1 << 8;
/// `BACKFILL_SCHED`: the backfill scheduler started the job.
const BACKFILL_SCHED: u64 = 1 << 32;
/// `BACKFILL_LAST`: a pending job the last backfill cycle considered.
const BACKFILL_LAST: u64 = 1 << 33;
/// `MEM_PER_CPU` of `pn_min_memory`.
const MEM_PER_CPU: u64 = 1 << 63;
const NO_VAL: u32 = sys::NO_VAL;
const NO_VAL16: u16 = sys::NO_VAL16 as u16;
const INFINITE: u32 = sys::INFINITE;

/// The release these bindings are of, as spur-core's profile knows it.
pub(crate) fn release() -> spur_core::compat::Release {
    if sys::RELEASE == "22.05" {
        spur_core::compat::Release::V22_05
    } else {
        spur_core::compat::Release::V24_11
    }
}

fn profile() -> &'static spur_core::compat::Profile {
    release().profile()
}

/// The protocol version a job submitted by this release's tools carries
/// (`SLURM_PROTOCOL_VERSION`: the API's current age << 8).
fn protocol_version() -> u16 {
    if sys::RELEASE == "22.05" {
        38 << 8
    } else {
        42 << 8
    }
}

/// What a record needs from the rest of the cluster's view.
pub struct Ctx<'a> {
    /// The controller's clock.
    pub now: i64,
    /// Each node's index in the node table (`node_inx`).
    pub node_index: HashMap<&'a str, i32>,
    /// Each node's (sockets, cores per socket, threads per core).
    pub node_layout: HashMap<&'a str, (u16, u16, u16)>,
    /// The memory of each partition's largest node (what a job asking for
    /// all of a node's memory requests per node).
    pub part_node_mem: HashMap<&'a str, u64>,
    /// The active jobs, for the first CPU id each has on its nodes.
    pub active: Vec<&'a Job>,
    /// `ClusterName`.
    pub cluster: &'a str,
    /// What the backfill scheduler said of the jobs (`sched_nodes`,
    /// `BACKFILL_SCHED`).
    pub plans: &'a HashMap<u32, spur_core::model::JobPlan>,
    /// Each partition's `OverSubscribe=`.
    pub part_oversubscribe: HashMap<&'a str, &'a str>,
    /// slurm.conf's preemption, the partitions and the QOS records (a
    /// started job's `preemptable_time`).
    pub preempt: Option<spur_core::qos::PreemptConf>,
    pub parts: &'a [spur_core::model::Partition],
    pub qos: &'a [spur_core::qos::Qos],
}

impl<'a> Ctx<'a> {
    pub fn new(view: &'a ClusterView) -> Ctx<'a> {
        let node_index = view.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i as i32)).collect();
        let node_layout = view
            .nodes
            .iter()
            .map(|n| {
                let s = n.sockets.max(1).min(u16::MAX as u32) as u16;
                let c = n.cores_per_socket.max(1).min(u16::MAX as u32) as u16;
                let t = n.threads_per_core.max(1).min(u16::MAX as u32) as u16;
                (n.name.as_str(), (s, c, t))
            })
            .collect();
        let part_node_mem = view
            .partitions
            .iter()
            .map(|p| {
                let m = view.nodes.iter().filter(|n| p.nodes.contains(&n.name)).map(|n| n.real_memory).max();
                (p.name.as_str(), m.unwrap_or(0))
            })
            .collect();
        let active = view.jobs.iter().filter(|j| j.state.is_active()).collect();
        Ctx {
            now: view.now,
            node_index,
            node_layout,
            part_node_mem,
            active,
            cluster: &view.cluster_name,
            plans: &view.plans,
            part_oversubscribe: view.partitions.iter().map(|p| (p.name.as_str(), p.oversubscribe.as_str())).collect(),
            preempt: crate::conn::conf().ok().and_then(|c| spur_core::qos::PreemptConf::from_conf(&c)),
            parts: &view.partitions,
            qos: &view.qos,
        }
    }

    /// Index pairs of the nodes named (in node-table order; names not in
    /// the table are left out).
    pub(crate) fn index_pairs<S: AsRef<str>>(&self, names: &[S]) -> Vec<(i32, i32)> {
        let mut idx: Vec<i32> = names.iter().filter_map(|n| self.node_index.get(n.as_ref()).copied()).collect();
        idx.sort_unstable();
        idx.dedup();
        let mut pairs: Vec<(i32, i32)> = Vec::new();
        for i in idx {
            match pairs.last_mut() {
                Some(p) if p.1 + 1 == i => p.1 = i,
                _ => pairs.push((i, i)),
            }
        }
        pairs
    }

    /// The pairs of a hostlist expression (`--nodelist`, `--exclude`).
    fn expr_pairs(&self, expr: Option<&str>) -> Vec<(i32, i32)> {
        match expr.map(spur_grammar::hostlist::expand) {
            Some(Ok(names)) => self.index_pairs(&names),
            _ => vec![],
        }
    }

    /// The first CPU id `j` has on `node`: those of the active jobs that
    /// started there before it come first (as `scontrol show job -d`).
    fn first_cpu(&self, j: &Job, node: &str) -> u32 {
        self.active
            .iter()
            .filter(|o| o.job_id != j.job_id)
            .filter(|o| (o.start_time, o.start_pass_ms, o.job_id) < (j.start_time, j.start_pass_ms, j.job_id))
            .flat_map(|o| o.allocs.iter().filter(|x| x.node == node).map(|x| x.cpus))
            .sum()
    }
}

/// Slurm's `job_state` of a record: the base state, with `JOB_COMPLETING`
/// while the job's nodes clean up.
pub fn job_state(j: &Job) -> u32 {
    fn base(s: JobState) -> u32 {
        (match s {
            JobState::Pending => sys::JOB_PENDING,
            JobState::Running => sys::JOB_RUNNING,
            JobState::Suspended => sys::JOB_SUSPENDED,
            JobState::Completing | JobState::Completed => sys::JOB_COMPLETE,
            JobState::Cancelled => sys::JOB_CANCELLED,
            JobState::Failed => sys::JOB_FAILED,
            JobState::Timeout => sys::JOB_TIMEOUT,
            JobState::NodeFail => sys::JOB_NODE_FAIL,
            JobState::Preempted => sys::JOB_PREEMPTED,
            JobState::BootFail => sys::JOB_BOOT_FAIL,
            JobState::Deadline => sys::JOB_DEADLINE,
            JobState::OutOfMemory => sys::JOB_OOM,
        }) as u32
    }
    if j.state == JobState::Completing {
        let end = match j.kill_reason {
            Some(k) => base(k),
            None if j.exit_status != 0 => sys::JOB_FAILED as u32,
            None => sys::JOB_COMPLETE as u32,
        };
        return end | JOB_COMPLETING;
    }
    base(j.state)
}

/// The reason texts Slurm's `job_state_reason_string` gives Spur's
/// reasons, with their numbers in this release.
fn reason_number(text: &str) -> Option<u32> {
    let n = match text {
        "None" => sys::WAIT_NO_REASON,
        "Priority" => sys::WAIT_PRIORITY,
        "Dependency" => sys::WAIT_DEPENDENCY,
        "Resources" => sys::WAIT_RESOURCES,
        "PartitionNodeLimit" => sys::WAIT_PART_NODE_LIMIT,
        "PartitionTimeLimit" => sys::WAIT_PART_TIME_LIMIT,
        "PartitionDown" => sys::WAIT_PART_DOWN,
        "PartitionInactive" => sys::WAIT_PART_INACTIVE,
        "JobHeldAdmin" => sys::WAIT_HELD,
        "BeginTime" => sys::WAIT_TIME,
        "JobHeldUser" => sys::WAIT_HELD_USER,
        "NodeDown" => sys::FAIL_DOWN_NODE,
        "BadConstraints" => sys::FAIL_BAD_CONSTRAINTS,
        "NonZeroExitCode" => sys::FAIL_EXIT_CODE,
        "TimeLimit" => sys::FAIL_TIMEOUT,
        "InvalidAccount" => sys::FAIL_ACCOUNT,
        "JobArrayTaskLimit" => sys::WAIT_ARRAY_TASK_LIMIT,
        "DependencyNeverSatisfied" => sys::WAIT_DEP_INVALID,
        "ReqNodeNotAvail" => sys::WAIT_NODE_NOT_AVAIL,
        "Reservation" => sys::WAIT_RESERVATION,
        "ReservationDeleted" => sys::WAIT_RESV_DELETED,
        "JobLaunchFailure" => sys::FAIL_LAUNCH,
        "PartitionConfig" => sys::WAIT_PART_CONFIG,
        _ => return None,
    };
    Some(n as u32)
}

/// (`state_reason`, `state_desc`): a reason Slurm has a number for is that
/// number alone; any other text is kept in `state_desc` (which squeue and
/// scontrol print instead), with the number of the reason it starts with
/// (`ReqNodeNotAvail, Reserved for maintenance`), else none.
pub fn state_reason(j: &Job) -> (u32, Option<String>) {
    let text = records::reason_text(j);
    if let Some(n) = reason_number(&text) {
        return (n, None);
    }
    let head = text.split([',', ':']).next().unwrap_or("");
    let n = match (&j.reason, &j.held) {
        (Reason::Other(_), Some(h)) => reason_number(h.text()),
        _ => reason_number(head),
    };
    (n.unwrap_or(sys::WAIT_NO_REASON as u32), Some(text))
}

fn u16_of(v: Option<u32>, unset: u16) -> u16 {
    v.map(|n| n.min(u16::MAX as u32) as u16).unwrap_or(unset)
}

/// The TRES a job asked for, as `scontrol show job` shows `ReqTRES`.
fn req_tres(j: &Job, ctx: &Ctx) -> String {
    let mut r = j.clone();
    if let Some((cpus, nodes)) = j.tres_counted {
        r.num_cpus = cpus;
        r.num_nodes = nodes;
    }
    let node_mem = ctx.part_node_mem.get(j.partition.as_str()).copied().unwrap_or(0);
    if j.mem_per_node == 0 && j.mem_per_cpu == 0 && node_mem > 0 && j.allocs.is_empty() {
        r.mem_per_node = node_mem;
    }
    records::tres_str(&r, ctx.parts)
}

/// The command slurmctld sends: the script's path (22.05: with its
/// arguments); none for `--wrap` and, in 22.05, for an allocation.
fn command(j: &Job) -> Option<String> {
    let v22 = release() == spur_core::compat::Release::V22_05;
    if j.desc.wrapped || (v22 && j.batch_flag == 0 && j.desc.script.is_empty() && j.desc.argv.is_empty()) {
        return None;
    }
    let c = j.desc.command.clone()?;
    if profile().show_job_command_with_args && j.desc.argv.len() > 1 {
        return Some(format!("{} {}", c, j.desc.argv[1..].join(" ")));
    }
    Some(c)
}

/// Seconds of a time given in minutes or `[D-]HH:MM:SS` (`--delay-boot`).
fn minutes_as_secs(v: Option<&String>) -> u32 {
    v.and_then(|t| spur_grammar::time::parse_time_limit(t).ok().flatten())
        .map(|m| (m as u64 * 60).min(u32::MAX as u64) as u32)
        .unwrap_or(0)
}

/// `gres/NAME...` as slurmctld writes a TRES request.
fn gres_tres(g: &str) -> String {
    if g.starts_with("gres/") {
        g.to_string()
    } else {
        format!("gres/{}", g)
    }
}

/// A started job's end time as slurmctld keeps it: a job without a time
/// limit ends a year after its start.
fn end_time(j: &Job) -> i64 {
    if j.time_limit.is_none() && j.end_time == 0 && j.start_time != 0 && !j.state.is_finished() {
        return j.start_time + 365 * 24 * 3600;
    }
    j.end_time
}

/// A record for `j`, every pointer its own xmalloc'ed block (release it with
/// [`free_members`]).
pub fn fill_job(j: &Job, ctx: &Ctx) -> sys::slurm_job_info_t {
    // SAFETY: the struct's fields are integers, floats and pointers: all
    // zero is a valid value (NULL pointers).
    let mut r: sys::slurm_job_info_t = unsafe { std::mem::zeroed() };
    let d = &j.desc;
    let acc = d.accepted.as_deref();
    let pending = j.state == JobState::Pending;

    // identity
    r.job_id = j.job_id;
    r.user_id = j.user_id;
    r.group_id = j.group_id;
    r.user_name = xstr_nonempty(&j.user_name);
    r.name = xstrdup(&d.name);
    r.array_job_id = records::array_job_id(j);
    r.array_task_id = NO_VAL;
    if let Some(a) = &j.array {
        match a.task_id {
            Some(t) => r.array_task_id = t,
            None => {
                let mut s = spur_core::model::ranges(&a.pending_tasks);
                if a.max_running > 0 {
                    s.push_str(&format!("%{}", a.max_running));
                }
                r.array_task_str = xstrdup(&s);
            }
        }
        r.array_max_tasks = a.max_running;
    }
    r.het_job_offset = 0;
    r.alloc_node = xstr_nonempty(&d.alloc_node);
    r.alloc_sid = d.alloc_sid;
    r.cluster = xstr_nonempty(ctx.cluster);

    // state
    r.job_state = job_state(j);
    let (reason, desc) = state_reason(j);
    r.state_reason = reason as _;
    r.state_desc = xstr_opt(desc.as_deref());
    r.batch_flag = j.batch_flag.min(1) as u16;
    r.restart_cnt = j.restart_count.min(u16::MAX as u32) as u16;
    r.requeue = d.requeue.unwrap_or(true) as u16;
    r.reboot = acc.is_some_and(|a| a.reboot) as u8;
    r.exit_code = j.exit_status as u32;
    r.derived_ec = j.derived_exit_code as u32;
    r.priority = j.priority;
    r.nice = sys::NICE_OFFSET.wrapping_add(d.nice.unwrap_or(0) as u32);
    r.site_factor = sys::NICE_OFFSET;
    r.dependency = xstr_opt(records::dependency_text(j).as_deref());
    r.start_protocol_ver = protocol_version();
    #[cfg(feature = "slurm-22-05")]
    {
        r.show_flags = 0;
    }
    #[cfg(feature = "slurm-24-11")]
    {
        r.oom_kill_step = NO_VAL16;
        r.extra = xstr_opt(acc.and_then(|a| a.extra.as_deref()));
    }

    // times
    r.time_limit = j.time_limit.unwrap_or(INFINITE);
    r.time_min = d.time_min.unwrap_or(0);
    r.submit_time = j.submit_time as _;
    r.eligible_time = j.eligible_time as _;
    let no_accrue = (j.requeued_done && (j.reason == Reason::None || j.held.is_some()))
        || (pending && j.held.is_some() && j.restart_count == 0)
        || (j.batch_flag == 0 && j.start_time > 0 && j.start_time <= j.submit_time + 1);
    r.accrue_time = if no_accrue { 0 } else { j.eligible_time as _ };
    if pending && d.begin_time > 0 && j.start_time == 0 {
        // the earliest start slurmctld expects: the begin time
        r.start_time = d.begin_time as _;
        r.end_time = j.time_limit.map(|m| d.begin_time + m as i64 * 60).unwrap_or(0) as _;
    } else {
        r.start_time = j.start_time as _;
        r.end_time = end_time(j) as _;
    }
    r.deadline = d.deadline as _;
    r.suspend_time = j.suspend_time as _;
    r.pre_sus_time = j.pre_sus_time as _;
    r.last_sched_eval = (if j.last_sched_eval != 0 {
        j.last_sched_eval
    } else if j.start_time != 0 {
        j.start_time
    } else {
        j.submit_time
    }) as _;

    // where
    r.partition = xstr_nonempty(&j.partition);
    r.account = xstr_opt(d.account.as_deref());
    // (with accounting, `normal` for a job that named none, as scontrol)
    let accounting = crate::slurmdb::accounting_on();
    r.qos = xstr_opt(d.qos_shown(accounting).filter(|_| accounting || profile().job_qos_shown_without_accounting));
    r.resv_name = xstr_opt(d.reservation_name());
    // (as scontrol: from when a started job may be preempted; a preempted one's end)
    r.preemptable_time = ctx
        .preempt
        .as_ref()
        .map_or(0, |p| p.preemptable_time(j, ctx.parts.iter().find(|x| x.name == j.partition), ctx.qos))
        as _;
    r.preempt_time = if j.state == JobState::Preempted && r.preemptable_time != 0 { j.end_time as _ } else { 0 };
    r.nodes = xstr_nonempty(&records::job_nodes(j));
    r.node_inx = xindex(&ctx.index_pairs(&j.node_names()));
    r.req_nodes = xstr_opt(d.req_nodes.as_deref());
    r.req_node_inx = xindex(&ctx.expr_pairs(d.req_nodes.as_deref()));
    r.exc_nodes = xstr_opt(d.exc_nodes.as_deref());
    r.exc_node_inx = xindex(&ctx.expr_pairs(d.exc_nodes.as_deref()));
    if !pending {
        r.batch_host = xstr_opt(j.allocs.first().map(|a| a.node.as_str()));
    }
    r.features = xstr_opt(d.constraint.as_deref());
    r.prefer = xstr_opt(acc.and_then(|a| a.prefer.as_deref()));
    r.batch_features = xstr_opt(acc.and_then(|a| a.batch_features.as_deref()));
    r.cluster_features = xstr_opt(acc.and_then(|a| a.cluster_features.as_deref()));
    r.network = xstr_opt(acc.and_then(|a| a.network.as_deref()));
    r.licenses = xstr_opt(acc.and_then(|a| a.licenses.as_deref()));
    r.burst_buffer = xstr_opt(acc.and_then(|a| a.burst_buffer.as_deref()));
    r.container = xstr_opt(acc.and_then(|a| a.container.as_deref()));
    r.selinux_context = xstr_opt(acc.and_then(|a| a.selinux_context.as_deref()));
    r.wckey = xstr_opt(acc.and_then(|a| a.wckey.as_deref()));
    r.comment = xstr_opt(d.comment.as_deref());
    r.admin_comment = xstr_opt(j.admin_comment.as_deref());
    r.delay_boot = minutes_as_secs(acc.and_then(|a| a.delay_boot.as_ref()));

    // size
    r.num_nodes = j.num_nodes;
    r.max_nodes = if pending { d.max_nodes.unwrap_or(0) } else { 0 };
    r.num_cpus = j.num_cpus;
    r.max_cpus = 0;
    r.num_tasks = match d.num_tasks.filter(|n| *n > 0) {
        Some(n) => n,
        None if pending => j.num_tasks,
        None if !j.allocs.is_empty() => j.allocs.len() as u32,
        None if j.requeued_done => j.num_nodes,
        None => NO_VAL,
    };
    r.cpus_per_task = u16_of(d.cpus_per_task, 1);
    r.pn_min_cpus = j.min_cpus_node().min(u16::MAX as u32) as u16;
    r.pn_min_memory = if j.mem_per_cpu > 0 { j.mem_per_cpu | MEM_PER_CPU } else { j.mem_per_node };
    r.pn_min_tmp_disk = d.tmp_disk_mb().min(u32::MAX as u64) as u32;
    r.boards_per_node = 0;
    r.sockets_per_board = 0;
    r.sockets_per_node = u16_of(d.sockets_per_node, NO_VAL16);
    r.cores_per_socket = u16_of(d.cores_per_socket, NO_VAL16);
    r.threads_per_core = u16_of(d.threads_per_core, NO_VAL16);
    r.ntasks_per_node = u16_of(d.ntasks_per_node, 0);
    r.ntasks_per_board = 0;
    r.ntasks_per_socket = u16_of(d.ntasks_per_socket, NO_VAL16);
    r.ntasks_per_core = u16_of(d.ntasks_per_core, NO_VAL16);
    r.ntasks_per_tres = u16_of(d.ntasks_per_tres.or(d.ntasks_per_gpu), NO_VAL16);
    r.core_spec = NO_VAL16;
    r.cpu_freq_min = NO_VAL;
    r.cpu_freq_max = NO_VAL;
    r.cpu_freq_gov = NO_VAL;
    r.contiguous = d.contiguous() as u16;
    r.shared = match d.oversubscribe_in(ctx.part_oversubscribe.get(j.partition.as_str()).copied()) {
        "NO" => 0,
        "YES" => 1,
        "USER" => sys::JOB_SHARED_USER as u16,
        "MCS" => sys::JOB_SHARED_MCS as u16,
        "TOPO" => 4,
        _ => NO_VAL16,
    };
    r.billable_tres = if j.allocs.is_empty() && !j.requeued_done {
        NO_VAL as f64
    } else {
        spur_core::priority::job_billing(j, ctx.parts.iter().find(|p| p.name == j.partition)) as f64
    };
    r.tres_req_str = xstrdup(&req_tres(j, ctx));
    if !j.allocs.is_empty() || j.requeued_done {
        r.tres_alloc_str = xstrdup(&records::tres_str(j, ctx.parts));
    }
    r.tres_per_node = xstr_opt(d.gres.as_deref().map(gres_tres).as_deref());
    r.tres_per_job = xstr_opt(d.gpus.as_deref().map(|g| gres_tres(&format!("gpu:{}", g))).as_deref());
    r.tres_per_task = match j.submitted_cpus_per_task().filter(|_| profile().cpus_per_task_as_tres) {
        Some(c) => xstrdup(&format!("cpu={}", c)),
        None => xstr_opt(acc.and_then(|a| a.tres_per_task.as_deref())),
    };
    r.tres_bind = xstr_opt(acc.and_then(|a| a.tres_bind.as_deref()));
    r.cpus_per_tres = xstr_opt(d.cpus_per_gpu.map(|c| format!("gres/gpu:{}", c)).as_deref());
    r.mem_per_tres = xstr_opt(d.mem_per_gpu.map(|m| format!("gres/gpu:{}", m)).as_deref());

    // files
    r.work_dir = xstr_nonempty(&d.work_dir);
    r.command = xstr_opt(command(j).as_deref());
    r.std_out = xstr_opt(d.std_out.as_deref());
    r.std_err = xstr_opt(d.std_err.as_deref());
    r.std_in = xstr_opt(d.std_in.as_deref());

    // mail, flags
    if let Some(t) = &d.mail_type {
        r.mail_type = spur_cli_base::show::mail_bits(t);
    }
    r.mail_user = xstr_opt(d.mail_user.as_deref());
    let mut flags = 0u64;
    match d.kill_on_invalid_dep() {
        Some(true) => flags |= KILL_INV_DEP,
        Some(false) => flags |= NO_KILL_INV_DEP,
        None => {}
    }
    if acc.is_some_and(|a| a.spread_job) {
        flags |= SPREAD_JOB;
    }
    if let Some(p) = ctx.plans.get(&j.job_id) {
        if p.backfill {
            flags |= BACKFILL_SCHED;
        }
        // a pending job the last backfill cycle considered: libslurm adds
        // BACKFILL_LAST when it unpacks such a job
        if pending && p.considered_at != 0 {
            flags |= BACKFILL_SCHED | BACKFILL_LAST;
        }
        if pending {
            r.sched_nodes = xstr_opt(p.sched_nodes.as_deref());
        }
    }
    r.bitflags = flags;

    #[cfg(feature = "slurm-22-05")]
    if !j.allocs.is_empty() && !pending {
        r.job_resrcs = JobResources::build(j, ctx).cast();
    }
    r
}

/// Slurm 22.05's `struct job_resources` (src/common/job_resources.h), then
/// Spur's own field: the block `job_resrcs` points to.
#[repr(C)]
pub struct JobResources {
    pub core_bitmap: *mut sys::bitstr_t,
    pub core_bitmap_used: *mut sys::bitstr_t,
    pub cpu_array_cnt: u32,
    pub cpu_array_value: *mut u16,
    pub cpu_array_reps: *mut u32,
    pub cpus: *mut u16,
    pub cpus_used: *mut u16,
    pub cores_per_socket: *mut u16,
    pub cr_type: u16,
    pub memory_allocated: *mut u64,
    pub memory_used: *mut u64,
    pub nhosts: u32,
    pub node_bitmap: *mut sys::bitstr_t,
    pub node_req: u32,
    pub nodes: *mut c_char,
    pub ncpus: u32,
    pub sock_core_rep_count: *mut u32,
    pub sockets_per_node: *mut u16,
    pub tasks_per_node: *mut u16,
    pub threads_per_core: u16,
    pub whole_node: u8,
    /// (Spur) the first CPU id the job holds on each node.
    pub spur_first_cpu: *mut u32,
}

// Slurm 22.05's layout: 160 bytes, Spur's field after them
const _: () = assert!(std::mem::offset_of!(JobResources, nodes) == 112);
const _: () = assert!(std::mem::offset_of!(JobResources, whole_node) == 154);
const _: () = assert!(std::mem::offset_of!(JobResources, spur_first_cpu) == 160);

impl JobResources {
    /// The block of a started job, its nodes in node-table order (as
    /// `node_inx` and Slurm's `nodes` list them); NULL when memory runs out.
    pub fn build(j: &Job, ctx: &Ctx) -> *mut JobResources {
        let mut allocs: Vec<&spur_core::model::NodeAlloc> = j.allocs.iter().collect();
        allocs.sort_by_key(|a| ctx.node_index.get(a.node.as_str()).copied().unwrap_or(i32::MAX));
        let cpus: Vec<u16> = allocs.iter().map(|a| a.cpus.min(u16::MAX as u32) as u16).collect();
        let mut values: Vec<u16> = Vec::new();
        let mut reps: Vec<u32> = Vec::new();
        for c in &cpus {
            match values.last() {
                Some(v) if v == c => *reps.last_mut().expect("reps follow values") += 1,
                _ => {
                    values.push(*c);
                    reps.push(1);
                }
            }
        }
        let mut socks: Vec<u16> = Vec::new();
        let mut cores: Vec<u16> = Vec::new();
        let mut sock_reps: Vec<u32> = Vec::new();
        for a in &allocs {
            let (s, c, _) = ctx.node_layout.get(a.node.as_str()).copied().unwrap_or((1, a.cpus.max(1) as u16, 1));
            match (socks.last(), cores.last()) {
                (Some(ls), Some(lc)) if *ls == s && *lc == c => {
                    *sock_reps.last_mut().expect("reps follow layouts") += 1
                }
                _ => {
                    socks.push(s);
                    cores.push(c);
                    sock_reps.push(1);
                }
            }
        }
        let names: Vec<&str> = allocs.iter().map(|a| a.node.as_str()).collect();
        let mem: Vec<u64> = allocs.iter().map(|a| a.mem_mb).collect();
        let first: Vec<u32> = allocs.iter().map(|a| ctx.first_cpu(j, &a.node)).collect();
        let threads = allocs.first().and_then(|a| ctx.node_layout.get(a.node.as_str())).map(|l| l.2).unwrap_or(1);
        let p = xnew::<JobResources>();
        // SAFETY: p is NULL or a new zeroed block the size of JobResources;
        // zero is a valid value of every field.
        let Some(res) = (unsafe { p.as_mut() }) else {
            return null_mut();
        };
        res.cpu_array_cnt = values.len() as u32;
        res.cpu_array_value = xarray(&values);
        res.cpu_array_reps = xarray(&reps);
        res.cpus = xarray(&cpus);
        res.cpus_used = xarray(&vec![0u16; cpus.len()]);
        res.cores_per_socket = xarray(&cores);
        res.sockets_per_node = xarray(&socks);
        res.sock_core_rep_count = xarray(&sock_reps);
        res.memory_allocated = xarray(&mem);
        res.memory_used = xarray(&vec![0u64; mem.len()]);
        res.nhosts = allocs.len() as u32;
        res.nodes = xstrdup(&spur_grammar::hostlist::compress(&names));
        res.ncpus = j.num_cpus;
        res.threads_per_core = threads;
        res.whole_node = j.desc.exclusive as u8;
        res.spur_first_cpu = xarray(&first);
        p
    }

    /// Release a block [`build`](Self::build) made (NULL: nothing).
    ///
    /// # Safety
    /// `p` is NULL or a live block of `build`'s, not used afterwards.
    pub unsafe fn free(p: *mut JobResources) {
        // SAFETY: the caller's contract: every pointer in it is NULL or an
        // xmalloc'ed block of build's.
        unsafe {
            let Some(r) = p.as_mut() else { return };
            xfree(&mut r.cpu_array_value);
            xfree(&mut r.cpu_array_reps);
            xfree(&mut r.cpus);
            xfree(&mut r.cpus_used);
            xfree(&mut r.cores_per_socket);
            xfree(&mut r.sockets_per_node);
            xfree(&mut r.sock_core_rep_count);
            xfree(&mut r.memory_allocated);
            xfree(&mut r.memory_used);
            xfree(&mut r.tasks_per_node);
            xfree(&mut r.nodes);
            xfree(&mut r.spur_first_cpu);
            let mut q = p;
            xfree(&mut q);
        }
    }
}

/// Release every block a record's pointers hold and clear them (a record
/// of [`fill_job`], or one a consumer built the same way).
///
/// # Safety
/// Every pointer of `*r` is NULL or a live xmalloc'ed block (`job_resrcs`:
/// one of [`JobResources::build`]'s), none used afterwards.
pub unsafe fn free_members(r: &mut sys::slurm_job_info_t) {
    // SAFETY: the caller's contract.
    unsafe {
        xfree(&mut r.account);
        xfree(&mut r.admin_comment);
        xfree(&mut r.alloc_node);
        xfree(&mut r.array_task_str);
        xfree(&mut r.batch_features);
        xfree(&mut r.batch_host);
        xfree(&mut r.burst_buffer);
        xfree(&mut r.burst_buffer_state);
        xfree(&mut r.cluster);
        xfree(&mut r.cluster_features);
        xfree(&mut r.command);
        xfree(&mut r.comment);
        xfree(&mut r.container);
        xfree(&mut r.cpus_per_tres);
        xfree(&mut r.cronspec);
        xfree(&mut r.dependency);
        xfree(&mut r.exc_nodes);
        xfree(&mut r.exc_node_inx);
        xfree(&mut r.features);
        xfree(&mut r.fed_origin_str);
        xfree(&mut r.fed_siblings_active_str);
        xfree(&mut r.fed_siblings_viable_str);
        if !r.gres_detail_str.is_null() {
            for i in 0..r.gres_detail_cnt as usize {
                xfree(&mut *r.gres_detail_str.add(i));
            }
        }
        xfree(&mut r.gres_detail_str);
        r.gres_detail_cnt = 0;
        xfree(&mut r.gres_total);
        xfree(&mut r.het_job_id_set);
        xfree(&mut r.licenses);
        xfree(&mut r.mail_user);
        xfree(&mut r.mcs_label);
        xfree(&mut r.mem_per_tres);
        xfree(&mut r.name);
        xfree(&mut r.network);
        xfree(&mut r.nodes);
        xfree(&mut r.node_inx);
        xfree(&mut r.partition);
        xfree(&mut r.prefer);
        xfree(&mut r.qos);
        xfree(&mut r.req_nodes);
        xfree(&mut r.req_node_inx);
        xfree(&mut r.resv_name);
        xfree(&mut r.sched_nodes);
        xfree(&mut r.selinux_context);
        xfree(&mut r.state_desc);
        xfree(&mut r.std_err);
        xfree(&mut r.std_in);
        xfree(&mut r.std_out);
        xfree(&mut r.system_comment);
        xfree(&mut r.tres_alloc_str);
        xfree(&mut r.tres_bind);
        xfree(&mut r.tres_freq);
        xfree(&mut r.tres_per_job);
        xfree(&mut r.tres_per_node);
        xfree(&mut r.tres_per_socket);
        xfree(&mut r.tres_per_task);
        xfree(&mut r.tres_req_str);
        xfree(&mut r.user_name);
        xfree(&mut r.wckey);
        xfree(&mut r.work_dir);
        #[cfg(feature = "slurm-24-11")]
        {
            xfree(&mut r.container_id);
            xfree(&mut r.extra);
            xfree(&mut r.failed_node);
            xfree(&mut r.job_size_str);
            xfree(&mut r.priority_array);
            xfree(&mut r.priority_array_names);
            xfree(&mut r.resv_ports);
        }
        #[cfg(feature = "slurm-22-05")]
        {
            // (the select plugin's data: Spur never sets it)
            r.select_jobinfo = null_mut();
        }
        JobResources::free(r.job_resrcs.cast());
        r.job_resrcs = null_mut();
        // (array_bitmap: Spur never sets it)
        r.array_bitmap = null_mut();
    }
}

/// A message holding a record for each job, in the order given (NULL when
/// memory runs out).
pub fn message(jobs: &[&Job], ctx: &Ctx) -> *mut sys::job_info_msg_t {
    let msg = xnew::<sys::job_info_msg_t>();
    // SAFETY: msg is NULL or a new zeroed job_info_msg_t.
    let Some(m) = (unsafe { msg.as_mut() }) else {
        return null_mut();
    };
    m.last_update = ctx.now as _;
    // when the backfill scheduler last ran, as far as the jobs tell
    m.last_backfill = ctx.plans.values().map(|p| p.considered_at).max().unwrap_or(0) as _;
    if jobs.is_empty() {
        return msg;
    }
    let size = std::mem::size_of::<sys::slurm_job_info_t>();
    let arr = xalloc(size * jobs.len()).cast::<sys::slurm_job_info_t>();
    if arr.is_null() {
        let mut msg = msg;
        // SAFETY: msg is the block just made.
        unsafe { xfree(&mut msg) };
        return null_mut();
    }
    for (i, j) in jobs.iter().enumerate() {
        // SAFETY: arr holds jobs.len() records; i is in range.
        unsafe { arr.add(i).write(fill_job(j, ctx)) };
    }
    m.job_array = arr;
    m.record_count = jobs.len() as u32;
    msg
}

/// Release a message of [`message`]'s (NULL: nothing).
///
/// # Safety
/// `msg` is NULL or a live message of this library's, not used afterwards.
pub unsafe fn free_message(msg: *mut sys::job_info_msg_t) {
    // SAFETY: the caller's contract: record_count records in one block.
    unsafe { crate::xmalloc::free_records(msg, |m| &mut m.job_array, |m| m.record_count as usize, |r| free_members(r)) }
}

/// The jobs a query returns, with the view's context, as a message in
/// `*out`; SLURM_SUCCESS, or SLURM_ERROR with errno set.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn load(
    out: *mut *mut sys::job_info_msg_t,
    q: spur_core::request::Query,
    show_flags: u16,
    pick: impl Fn(&ClusterView) -> Result<Vec<&Job>, i32>,
) -> c_int {
    if out.is_null() {
        crate::errno::set(libc::EINVAL);
        return sys::SLURM_ERROR;
    }
    spur_core::compat::set_release(release());
    let view = match crate::conn::call(|c| c.query(&q)) {
        Ok(v) => v,
        Err(_) => return sys::SLURM_ERROR,
    };
    let jobs = match pick(&view) {
        Ok(j) => j,
        Err(code) => {
            crate::errno::set(code);
            return sys::SLURM_ERROR;
        }
    };
    let ctx = Ctx::new(&view);
    let msg = message(&jobs, &ctx);
    if msg.is_null() {
        crate::errno::set(libc::ENOMEM);
        return sys::SLURM_ERROR;
    }
    // (22.05's records carry the request's flags: slurm_sprint_job_info
    // prints DerivedExitCode and the node lines for SHOW_DETAIL)
    #[cfg(feature = "slurm-22-05")]
    // SAFETY: msg is the message just made: record_count records.
    unsafe {
        for i in 0..(*msg).record_count as usize {
            (*(*msg).job_array.add(i)).show_flags = show_flags;
        }
    }
    #[cfg(not(feature = "slurm-22-05"))]
    let _ = show_flags;
    // SAFETY: out is writable (the caller's contract, checked for NULL).
    unsafe { *out = msg };
    sys::SLURM_SUCCESS as c_int
}

/// `int slurm_load_jobs(time_t update_time, job_info_msg_t
/// **job_info_msg_pptr, uint16_t show_flags)`: every job the controller
/// holds (finished ones too, until they are purged), in its list's order.
///
/// # Safety
/// `job_info_msg_pptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_jobs(
    update_time: sys::time_t,
    job_info_msg_pptr: *mut *mut sys::job_info_msg_t,
    show_flags: u16,
) -> c_int {
    let _ = update_time;
    crate::guard(sys::SLURM_ERROR, || {
        let q = spur_core::request::Query { jobs: true, nodes: true, all_finished: true, ..Default::default() };
        // SAFETY: the caller's contract.
        unsafe { load(job_info_msg_pptr, q, show_flags, |v| Ok(v.jobs.iter().collect())) }
    })
}

/// The records `slurm_load_job` returns for an id: the job, and for an
/// array's id the array's other records by descending id.
fn array_records(v: &ClusterView, job_id: u32) -> Result<Vec<&Job>, i32> {
    let head = v.jobs.iter().find(|j| j.job_id == job_id);
    let mut out: Vec<&Job> = head.into_iter().collect();
    if head.map(|h| h.array.is_some()).unwrap_or(true) {
        let mut rest: Vec<&Job> =
            v.jobs.iter().filter(|j| j.job_id != job_id && records::array_job_id(j) == job_id).collect();
        rest.sort_by_key(|j| std::cmp::Reverse(j.job_id));
        out.extend(rest);
    }
    if out.is_empty() {
        Err(sys::ESLURM_INVALID_JOB_ID as i32)
    } else {
        Ok(out)
    }
}

/// `int slurm_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t
/// show_flags)`: one job; for an array's id, the array's records (the one
/// with that id first, then the others by descending id, as slurmctld
/// packs them). An unknown id fails with ESLURM_INVALID_JOB_ID.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_job(resp: *mut *mut sys::job_info_msg_t, job_id: u32, show_flags: u16) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        let q = spur_core::request::Query {
            jobs: true,
            nodes: true,
            all_finished: true,
            job_ids: vec![job_id.to_string()],
            ..Default::default()
        };
        // SAFETY: the caller's contract.
        unsafe { load(resp, q, show_flags, |v| array_records(v, job_id)) }
    })
}

/// `int slurm_load_job_user(job_info_msg_t **job_info_msg_pptr, uint32_t
/// user_id, uint16_t show_flags)`: the jobs of one user.
///
/// # Safety
/// `job_info_msg_pptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_job_user(
    job_info_msg_pptr: *mut *mut sys::job_info_msg_t,
    user_id: u32,
    show_flags: u16,
) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        let q = spur_core::request::Query {
            jobs: true,
            nodes: true,
            all_finished: true,
            user_id: Some(user_id),
            ..Default::default()
        };
        // SAFETY: the caller's contract.
        unsafe {
            load(job_info_msg_pptr, q, show_flags, |v| Ok(v.jobs.iter().filter(|j| j.user_id == user_id).collect()))
        }
    })
}

/// `void slurm_free_job_info_msg(job_info_msg_t *job_buffer_ptr)`: release
/// a message of the loads above (NULL: nothing).
///
/// # Safety
/// `job_buffer_ptr` is NULL or a message of this library's load functions.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_info_msg(job_buffer_ptr: *mut sys::job_info_msg_t) {
    // SAFETY: the caller's contract.
    crate::guard((), || unsafe { free_message(job_buffer_ptr) })
}

/// `void slurm_free_job_info_members(job_info_t *job)` (internal to
/// libslurm, exported and used by pyslurm): release what a record's
/// pointers hold, not the record.
///
/// # Safety
/// `job` is NULL or a record whose pointers are NULL or xmalloc'ed blocks.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_info_members(job: *mut sys::job_info_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { job.as_mut() } {
            // SAFETY: as above.
            unsafe { free_members(r) }
        }
    })
}

/// `void slurm_free_job_info(job_info_t *job)` (internal, exported): the
/// members, then the record itself (an xmalloc'ed block).
///
/// # Safety
/// `job` is NULL or an xmalloc'ed record whose pointers are NULL or
/// xmalloc'ed blocks.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_info(job: *mut sys::job_info_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { job.as_mut() } {
            // SAFETY: as above.
            unsafe { free_members(r) };
            let mut p = job;
            // SAFETY: the record is an xmalloc'ed block (the contract).
            unsafe { xfree(&mut p) };
        }
    })
}

/// The job id a call names: itself, or `$SLURM_JOB_ID` for 0.
fn job_id_or_env(jobid: u32) -> Option<u32> {
    if jobid != 0 {
        return Some(jobid);
    }
    std::env::var("SLURM_JOB_ID").ok().and_then(|v| v.trim().parse().ok()).filter(|n| *n != 0)
}

/// One job's record from the controller (errno set when there is none).
pub(crate) fn one_job(jobid: u32, with_script: bool) -> Result<Job, i32> {
    let q = spur_core::request::Query {
        jobs: true,
        all_finished: true,
        with_script,
        job_ids: vec![jobid.to_string()],
        ..Default::default()
    };
    let view = crate::conn::call(|c| c.query(&q))?;
    match view.jobs.into_iter().find(|j| j.job_id == jobid) {
        Some(j) => Ok(j),
        None => {
            crate::errno::set(sys::ESLURM_INVALID_JOB_ID as i32);
            Err(sys::ESLURM_INVALID_JOB_ID as i32)
        }
    }
}

/// `int slurm_get_end_time(uint32_t jobid, time_t *end_time_ptr)`: when the
/// job ends or is expected to end (jobid 0: `$SLURM_JOB_ID`'s).
///
/// # Safety
/// `end_time_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_end_time(jobid: u32, end_time_ptr: *mut sys::time_t) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        if end_time_ptr.is_null() {
            crate::errno::set(libc::EINVAL);
            return sys::SLURM_ERROR;
        }
        let Some(id) = job_id_or_env(jobid) else {
            crate::errno::set(sys::ESLURM_INVALID_JOB_ID as i32);
            return sys::SLURM_ERROR;
        };
        match one_job(id, false) {
            Ok(j) => {
                // SAFETY: writable (the caller's contract, checked for NULL).
                unsafe { *end_time_ptr = end_time(&j) as _ };
                sys::SLURM_SUCCESS as c_int
            }
            Err(_) => sys::SLURM_ERROR,
        }
    })
}

/// `long slurm_get_rem_time(uint32_t jobid)`: seconds until the job's end
/// (0 once past it), -1 on error.
#[no_mangle]
pub extern "C" fn slurm_get_rem_time(jobid: u32) -> c_long {
    crate::guard(-1, || {
        let mut end: sys::time_t = 0;
        // SAFETY: end is a local, writable.
        if unsafe { slurm_get_end_time(jobid, &mut end) } != sys::SLURM_SUCCESS as c_int {
            return -1;
        }
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
        (end as i64 - now).max(0) as c_long
    })
}

/// The job a process of this machine belongs to: the `SLURM_JOB_ID` of its
/// environment, or of its nearest ancestor's (Spur's step daemons and batch
/// supervisors set it for everything a job starts).
fn job_of_pid(pid: i32) -> Option<u32> {
    let mut p = pid;
    for _ in 0..64 {
        if p <= 1 {
            return None;
        }
        if let Ok(env) = std::fs::read(format!("/proc/{}/environ", p)) {
            let found = env.split(|b| *b == 0).find_map(|kv| kv.strip_prefix(b"SLURM_JOB_ID="));
            if let Some(v) = found.and_then(|v| std::str::from_utf8(v).ok()).and_then(|v| v.parse().ok()) {
                return Some(v);
            }
        }
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", p)).ok()?;
        p = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
    }
    None
}

/// `int slurm_pid2jobid(pid_t job_pid, uint32_t *job_id_ptr)`: the job a
/// process of this machine runs in; ESLURM_INVALID_JOB_ID when it is in
/// none.
///
/// # Safety
/// `job_id_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_pid2jobid(job_pid: sys::pid_t, job_id_ptr: *mut u32) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        if job_id_ptr.is_null() {
            crate::errno::set(libc::EINVAL);
            return sys::SLURM_ERROR;
        }
        match job_of_pid(job_pid) {
            Some(id) => {
                // SAFETY: writable (the caller's contract, checked for NULL).
                unsafe { *job_id_ptr = id };
                sys::SLURM_SUCCESS as c_int
            }
            None => {
                crate::errno::set(sys::ESLURM_INVALID_JOB_ID as i32);
                sys::SLURM_ERROR
            }
        }
    })
}

/// `int slurm_job_batch_script(FILE *out, uint32_t jobid)`: write the job's
/// batch script to `out` (the owner's or an operator's);
/// ESLURM_JOB_SCRIPT_MISSING for a job without one.
///
/// # Safety
/// `out` is NULL or an open stream.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_batch_script(out: *mut sys::FILE, jobid: u32) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        if out.is_null() {
            crate::errno::set(libc::EINVAL);
            return sys::SLURM_ERROR;
        }
        let j = match one_job(jobid, true) {
            Ok(j) => j,
            Err(_) => return sys::SLURM_ERROR,
        };
        if j.desc.script.is_empty() {
            crate::errno::set(sys::ESLURM_JOB_SCRIPT_MISSING as i32);
            return sys::SLURM_ERROR;
        }
        let text = j.desc.script.as_bytes();
        // SAFETY: out is an open stream (the caller's contract); text is
        // valid for its length.
        let n = unsafe { libc::fwrite(text.as_ptr().cast(), 1, text.len(), out.cast::<libc::FILE>()) };
        if n != text.len() {
            return sys::SLURM_ERROR;
        }
        sys::SLURM_SUCCESS as c_int
    })
}

/// `int slurm_job_node_ready(uint32_t job_id)`: whether a job's nodes and
/// the job itself are ready, as slurmctld's `job_node_ready` answers:
/// `READY_NODE_STATE | READY_JOB_STATE | READY_PROLOG_STATE` (7) for a
/// running or suspended job (Spur's nodes are never powering up, and its
/// PrologSlurmctld has run before the job starts), `READY_PROLOG_STATE`
/// (4) for any other job it knows; `READY_JOB_FATAL` (-2) for a job it does
/// not know, `READY_JOB_ERROR` (-1) when it cannot be asked.
#[no_mangle]
pub extern "C" fn slurm_job_node_ready(job_id: u32) -> c_int {
    // (SLURM_BIT macros: bindgen gives no constant for them)
    const READY_NODE_STATE: c_int = 1;
    const READY_JOB_STATE: c_int = 2;
    const READY_PROLOG_STATE: c_int = 4;
    crate::guard(sys::READY_JOB_ERROR, || match one_job(job_id, false) {
        Ok(j) if matches!(j.state, JobState::Running | JobState::Suspended) => {
            READY_NODE_STATE | READY_JOB_STATE | READY_PROLOG_STATE
        }
        Ok(_) => READY_PROLOG_STATE,
        Err(code) if code == sys::ESLURM_INVALID_JOB_ID as i32 => sys::READY_JOB_FATAL,
        Err(_) => sys::READY_JOB_ERROR,
    })
}

/// A job with what a record says of it that the path patterns expand
/// (`%A %a %b %j %u %x`, the work dir).
///
/// # Safety
/// The record's strings are NULL or NUL-terminated.
unsafe fn job_of_record(r: &sys::slurm_job_info_t) -> Job {
    // SAFETY: the caller's contract.
    let s = |p: *mut c_char| unsafe { crate::text(p) }.unwrap_or("").to_string();
    let mut j = Job { job_id: r.job_id, ..Default::default() };
    if r.array_job_id != 0 || r.array_task_id != NO_VAL {
        j.array = Some(spur_core::model::ArrayInfo {
            array_job_id: r.array_job_id,
            task_id: Some(r.array_task_id).filter(|t| *t != NO_VAL),
            ..Default::default()
        });
    }
    j.user_name = s(r.user_name);
    if j.user_name.is_empty() {
        j.user_name = spur_auth_name(r.user_id);
    }
    j.desc.name = s(r.name);
    j.desc.work_dir = s(r.work_dir);
    j
}

/// A user's name, or the number when it has none.
fn spur_auth_name(uid: u32) -> String {
    // SAFETY: getpwuid returns NULL or a pointer to a static record whose
    // pw_name is NUL-terminated; it is copied before any other call.
    unsafe {
        let pw = libc::getpwuid(uid);
        if pw.is_null() || (*pw).pw_name.is_null() {
            return uid.to_string();
        }
        std::ffi::CStr::from_ptr((*pw).pw_name).to_string_lossy().into_owned()
    }
}

/// Which stream of a record.
#[derive(Clone, Copy)]
pub(crate) enum Stream {
    Out,
    Err,
    In,
}

/// A record's path for a stream, as Slurm's slurm_get_job_std* give it.
///
/// # Safety
/// The record's strings are NULL or NUL-terminated.
pub(crate) unsafe fn stream_path(r: &sys::slurm_job_info_t, which: Stream) -> String {
    // SAFETY: the caller's contract.
    let j = unsafe { job_of_record(r) };
    // SAFETY: as above.
    let pat = |p: *mut c_char| unsafe { crate::text(p) }.map(str::to_string);
    let default_out = || {
        if r.array_job_id != 0 {
            format!("{}/slurm-{}_{}.out", j.desc.work_dir, r.array_job_id, r.array_task_id)
        } else {
            format!("{}/slurm-{}.out", j.desc.work_dir, r.job_id)
        }
    };
    let given = match which {
        Stream::Out => pat(r.std_out),
        Stream::Err => pat(r.std_err),
        Stream::In => pat(r.std_in),
    };
    if let Some(p) = given {
        return records::fname_format(&p, &j, None);
    }
    if r.batch_flag == 0 {
        return String::new();
    }
    match which {
        Stream::In => "/dev/null".into(),
        Stream::Err => match pat(r.std_out) {
            Some(p) => records::fname_format(&p, &j, None),
            None => default_out(),
        },
        Stream::Out => default_out(),
    }
}

/// Write `text` into `buf` of `size` bytes as snprintf does (cut, NUL-terminated).
///
/// # Safety
/// `buf` is NULL or writable for `size` bytes.
unsafe fn put(buf: *mut c_char, size: c_int, text: &str) {
    if buf.is_null() || size <= 0 {
        return;
    }
    let n = text.len().min(size as usize - 1);
    // SAFETY: buf holds size bytes (the caller's contract); n + 1 <= size.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), n);
        *buf.add(n) = 0;
    }
}

/// The three `slurm_get_job_std*`.
///
/// # Safety
/// `buf` is NULL or writable for `size` bytes; `job` is NULL or a record.
unsafe fn get_stream(buf: *mut c_char, size: c_int, job: *mut sys::job_info_t, which: Stream) {
    crate::guard((), || {
        spur_core::compat::set_release(release());
        // SAFETY: the caller's contract.
        let text = match unsafe { job.as_ref() } {
            None => "job pointer is NULL".to_string(),
            // SAFETY: as above.
            Some(r) => unsafe { stream_path(r, which) },
        };
        // SAFETY: as above.
        unsafe { put(buf, size, &text) }
    })
}

/// `void slurm_get_job_stdout(char *buf, int buf_size, job_info_t *job_ptr)`:
/// the record's output path, its pattern expanded (empty for a job that is
/// not a batch job and named none).
///
/// # Safety
/// `buf` is NULL or writable for `buf_size` bytes; `job_ptr` is NULL or a record.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stdout(buf: *mut c_char, buf_size: c_int, job_ptr: *mut sys::job_info_t) {
    // SAFETY: the caller's contract.
    unsafe { get_stream(buf, buf_size, job_ptr, Stream::Out) }
}

/// `void slurm_get_job_stderr(char *buf, int buf_size, job_info_t *job_ptr)`:
/// the error path (the output's when none was named).
///
/// # Safety
/// As [`slurm_get_job_stdout`].
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stderr(buf: *mut c_char, buf_size: c_int, job_ptr: *mut sys::job_info_t) {
    // SAFETY: the caller's contract.
    unsafe { get_stream(buf, buf_size, job_ptr, Stream::Err) }
}

/// `void slurm_get_job_stdin(char *buf, int buf_size, job_info_t *job_ptr)`:
/// the input path (`/dev/null` for a batch job that named none).
///
/// # Safety
/// As [`slurm_get_job_stdout`].
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stdin(buf: *mut c_char, buf_size: c_int, job_ptr: *mut sys::job_info_t) {
    // SAFETY: the caller's contract.
    unsafe { get_stream(buf, buf_size, job_ptr, Stream::In) }
}

#[cfg(feature = "slurm-22-05")]
pub use resrcs::*;

/// 22.05's functions over a record's `job_resrcs`.
#[cfg(feature = "slurm-22-05")]
mod resrcs {
    use super::JobResources;
    use crate::sys;
    use std::ffi::{c_char, c_int};

    /// The node's place in the block's node list (None: not there).
    ///
    /// # Safety
    /// `r.nodes` is NULL or NUL-terminated.
    unsafe fn node_id(r: &JobResources, node: *const c_char) -> Option<usize> {
        // SAFETY: the caller's contract; node is NULL or NUL-terminated.
        let (list, name) = unsafe { (crate::text(r.nodes)?, crate::text(node)?) };
        spur_grammar::hostlist::expand(list).ok()?.iter().position(|n| n == name)
    }

    /// `int slurm_job_cpus_allocated_on_node_id(job_resources_t
    /// *job_resrcs_ptr, int node_id)`: the CPUs the job holds on its
    /// `node_id`th node (0 past its last); EINVAL (-1) without a block.
    ///
    /// # Safety
    /// `job_resrcs_ptr` is NULL or a record's `job_resrcs`.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_job_cpus_allocated_on_node_id(
        job_resrcs_ptr: *mut sys::job_resources_t,
        node_id: c_int,
    ) -> c_int {
        crate::guard(sys::SLURM_ERROR, || {
            // SAFETY: the caller's contract.
            let Some(r) = (unsafe { job_resrcs_ptr.cast::<JobResources>().as_ref() }) else {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            };
            if node_id < 0 {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            }
            let mut last: i64 = -1;
            for i in 0..r.cpu_array_cnt as usize {
                // SAFETY: the arrays hold cpu_array_cnt entries (build's).
                let (reps, value) = unsafe { (*r.cpu_array_reps.add(i), *r.cpu_array_value.add(i)) };
                last += reps as i64;
                if last >= node_id as i64 {
                    return value as c_int;
                }
            }
            0
        })
    }

    /// `int slurm_job_cpus_allocated_on_node(job_resources_t
    /// *job_resrcs_ptr, const char *node)`: the same by node name (0 for a
    /// node not in the job).
    ///
    /// # Safety
    /// `job_resrcs_ptr` is NULL or a record's `job_resrcs`; `node` is NULL
    /// or NUL-terminated.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_job_cpus_allocated_on_node(
        job_resrcs_ptr: *mut sys::job_resources_t,
        node: *const c_char,
    ) -> c_int {
        crate::guard(sys::SLURM_ERROR, || {
            // SAFETY: the caller's contract.
            let Some(r) = (unsafe { job_resrcs_ptr.cast::<JobResources>().as_ref() }) else {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            };
            if node.is_null() || r.nodes.is_null() {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            }
            // SAFETY: as above.
            match unsafe { node_id(r, node) } {
                // SAFETY: as above.
                Some(i) => unsafe { slurm_job_cpus_allocated_on_node_id(job_resrcs_ptr, i as c_int) },
                None => 0,
            }
        })
    }

    /// `int slurm_job_cpus_allocated_str_on_node_id(char *cpus, size_t
    /// cpus_len, job_resources_t *job_resrcs_ptr, int node_id)`: the CPU
    /// ids the job holds on its `node_id`th node (`2-3`), as `scontrol show
    /// job -d` prints them.
    ///
    /// # Safety
    /// `cpus` is NULL or writable for `cpus_len` bytes; `job_resrcs_ptr` is
    /// NULL or a record's `job_resrcs`.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_job_cpus_allocated_str_on_node_id(
        cpus: *mut c_char,
        cpus_len: usize,
        job_resrcs_ptr: *mut sys::job_resources_t,
        node_id: c_int,
    ) -> c_int {
        crate::guard(sys::SLURM_ERROR, || {
            // SAFETY: the caller's contract.
            let Some(r) = (unsafe { job_resrcs_ptr.cast::<JobResources>().as_ref() }) else {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            };
            if node_id < 0 || node_id as u32 >= r.nhosts || r.cpus.is_null() || r.spur_first_cpu.is_null() {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            }
            // SAFETY: both arrays hold nhosts entries (build's).
            let (n, first) = unsafe { (*r.cpus.add(node_id as usize) as u32, *r.spur_first_cpu.add(node_id as usize)) };
            let text = match n {
                0 => String::new(),
                1 => first.to_string(),
                _ => format!("{}-{}", first, first + n - 1),
            };
            // SAFETY: as above.
            unsafe { super::put(cpus, cpus_len.min(c_int::MAX as usize) as c_int, &text) };
            sys::SLURM_SUCCESS as c_int
        })
    }

    /// `int slurm_job_cpus_allocated_str_on_node(char *cpus, size_t
    /// cpus_len, job_resources_t *job_resrcs_ptr, const char *node)`: the
    /// same by node name (SLURM_ERROR for a node not in the job).
    ///
    /// # Safety
    /// As [`slurm_job_cpus_allocated_str_on_node_id`]; `node` is NULL or
    /// NUL-terminated.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_job_cpus_allocated_str_on_node(
        cpus: *mut c_char,
        cpus_len: usize,
        job_resrcs_ptr: *mut sys::job_resources_t,
        node: *const c_char,
    ) -> c_int {
        crate::guard(sys::SLURM_ERROR, || {
            // SAFETY: the caller's contract.
            let Some(r) = (unsafe { job_resrcs_ptr.cast::<JobResources>().as_ref() }) else {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            };
            if node.is_null() || r.nodes.is_null() {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            }
            // SAFETY: as above.
            match unsafe { node_id(r, node) } {
                // SAFETY: as above.
                Some(i) => unsafe {
                    slurm_job_cpus_allocated_str_on_node_id(cpus, cpus_len, job_resrcs_ptr, i as c_int)
                },
                None => sys::SLURM_ERROR,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::{ArrayInfo, Node, NodeAlloc};
    use std::ffi::CStr;

    fn text(p: *const c_char) -> Option<String> {
        // SAFETY: p is NULL or one of the record's NUL-terminated blocks.
        unsafe { crate::text(p) }.map(str::to_string)
    }

    /// The pairs of an index array up to its -1.
    fn pairs(p: *const i32) -> Vec<i32> {
        assert!(!p.is_null(), "index arrays are never NULL");
        let mut v = vec![];
        // SAFETY: xindex's arrays end with -1.
        unsafe {
            let mut i = 0;
            while *p.add(i) != -1 {
                v.push(*p.add(i));
                i += 1;
            }
        }
        v
    }

    fn view() -> ClusterView {
        let node = |n: &str| Node {
            name: n.into(),
            cpus: 4,
            sockets: 1,
            cores_per_socket: 4,
            threads_per_core: 1,
            ..Default::default()
        };
        let mut running =
            Job { job_id: 7, state: JobState::Running, user_id: 1500, group_id: 1500, ..Default::default() };
        running.user_name = "spurtest".into();
        running.desc.name = "wrapped".into();
        running.desc.work_dir = "/work".into();
        running.desc.std_out = Some("out-%j.txt".into());
        running.desc.mem_per_cpu = Some(100);
        running.desc.exc_nodes = Some("n1".into());
        running.mem_per_cpu = 100;
        running.partition = "debug".into();
        running.batch_flag = 1;
        running.priority = 4294901757;
        running.time_limit = Some(60);
        running.submit_time = 1000;
        running.eligible_time = 1000;
        running.start_time = 1001;
        running.end_time = 1001 + 3600;
        running.num_nodes = 2;
        running.num_cpus = 3;
        running.num_tasks = 3;
        running.allocs = vec![
            NodeAlloc { node: "n3".into(), cpus: 2, mem_mb: 200, ..Default::default() },
            NodeAlloc { node: "n2".into(), cpus: 1, mem_mb: 100, ..Default::default() },
        ];
        let mut pending = Job { job_id: 8, user_id: 1500, ..Default::default() };
        pending.reason = Reason::Priority;
        pending.array = Some(ArrayInfo {
            array_job_id: 8,
            task_id: None,
            pending_tasks: vec![1, 2, 3, 5],
            max_running: 2,
            spec: "1-3,5%2".into(),
        });
        pending.time_limit = None;
        pending.desc.req_nodes = Some("n[1-2]".into());
        pending.held = Some(Reason::JobHeldUser);
        ClusterView {
            cluster_name: "spur".into(),
            now: 2000,
            jobs: vec![running, pending],
            nodes: vec![node("n1"), node("n2"), node("n3")],
            ..Default::default()
        }
    }

    #[test]
    fn record_of_a_running_job() {
        let v = view();
        let ctx = Ctx::new(&v);
        let mut r = fill_job(&v.jobs[0], &ctx);
        assert_eq!((r.job_id, r.user_id, r.group_id), (7, 1500, 1500));
        assert_eq!((r.array_job_id, r.array_task_id), (0, NO_VAL));
        assert_eq!(r.job_state, sys::JOB_RUNNING as u32);
        assert_eq!(r.state_reason as u32, sys::WAIT_NO_REASON as u32);
        assert!(r.state_desc.is_null());
        assert_eq!(text(r.name).as_deref(), Some("wrapped"));
        assert_eq!(text(r.nodes).as_deref(), Some("n[2-3]"));
        assert_eq!(pairs(r.node_inx), vec![1, 2]);
        assert_eq!(pairs(r.req_node_inx), Vec::<i32>::new());
        assert_eq!(pairs(r.exc_node_inx), vec![0, 0]);
        assert_eq!(text(r.batch_host).as_deref(), Some("n3"));
        assert_eq!((r.num_nodes, r.num_cpus, r.num_tasks, r.time_limit), (2, 3, 2, 60));
        assert_eq!(r.pn_min_memory, 100 | MEM_PER_CPU);
        assert_eq!((r.start_time as i64, r.end_time as i64, r.submit_time as i64), (1001, 4601, 1000));
        assert_eq!(r.nice, sys::NICE_OFFSET);
        assert_eq!(text(r.std_out).as_deref(), Some("out-%j.txt"));
        assert_eq!(text(r.cluster).as_deref(), Some("spur"));
        assert_eq!(text(r.tres_alloc_str).as_deref(), Some("cpu=3,mem=300M,node=2,billing=3"));
        assert_eq!((r.sockets_per_node, r.core_spec, r.shared), (NO_VAL16, NO_VAL16, NO_VAL16));
        let mut buf = [0 as c_char; 64];
        // SAFETY: buf holds 64 bytes; r is a record of fill_job's.
        let path = unsafe {
            slurm_get_job_stdout(buf.as_mut_ptr(), 64, &mut r);
            CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
        };
        assert_eq!(path, "/work/out-7.txt");
        // SAFETY: as above.
        let (err, inp) = unsafe {
            slurm_get_job_stderr(buf.as_mut_ptr(), 64, &mut r);
            let e = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
            slurm_get_job_stdin(buf.as_mut_ptr(), 64, &mut r);
            (e, CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned())
        };
        assert_eq!((err.as_str(), inp.as_str()), ("/work/out-7.txt", "/dev/null"));
        #[cfg(feature = "slurm-22-05")]
        {
            let res = r.job_resrcs;
            assert!(!res.is_null());
            // SAFETY: res is the record's job_resrcs; the strings are writable buffers.
            unsafe {
                assert_eq!(slurm_job_cpus_allocated_on_node_id(res, 0), 1);
                assert_eq!(slurm_job_cpus_allocated_on_node_id(res, 1), 2);
                assert_eq!(slurm_job_cpus_allocated_on_node_id(res, 2), 0);
                assert_eq!(slurm_job_cpus_allocated_on_node(res, c"n3".as_ptr()), 2);
                assert_eq!(slurm_job_cpus_allocated_str_on_node(buf.as_mut_ptr(), 64, res, c"n3".as_ptr()), 0);
                assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str(), Ok("0-1"));
            }
        }
        // SAFETY: r's pointers are fill_job's blocks.
        unsafe { free_members(&mut r) };
        assert!(r.name.is_null() && r.node_inx.is_null() && r.job_resrcs.is_null());
    }

    #[test]
    fn record_of_a_pending_array() {
        let v = view();
        let ctx = Ctx::new(&v);
        let mut r = fill_job(&v.jobs[1], &ctx);
        assert_eq!((r.array_job_id, r.array_task_id, r.array_max_tasks), (8, NO_VAL, 2));
        assert_eq!(text(r.array_task_str).as_deref(), Some("1-3,5%2"));
        assert_eq!(r.job_state, sys::JOB_PENDING as u32);
        assert_eq!(r.state_reason as u32, sys::WAIT_PRIORITY as u32);
        assert_eq!(r.time_limit, INFINITE);
        assert!(r.nodes.is_null() && r.batch_host.is_null() && r.tres_alloc_str.is_null());
        assert_eq!(pairs(r.node_inx), Vec::<i32>::new());
        assert_eq!(pairs(r.req_node_inx), vec![0, 1]);
        assert!(r.job_resrcs.is_null());
        let mut buf = [0 as c_char; 8];
        // SAFETY: buf holds 8 bytes; r is a record; not a batch job: empty.
        unsafe {
            slurm_get_job_stdout(buf.as_mut_ptr(), 8, &mut r);
            assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str(), Ok(""));
            free_members(&mut r);
        }
    }

    #[test]
    fn states_and_reasons() {
        let mut j = Job { state: JobState::Completing, exit_status: 256, ..Default::default() };
        assert_eq!(job_state(&j), sys::JOB_FAILED as u32 | JOB_COMPLETING);
        j.kill_reason = Some(JobState::Cancelled);
        assert_eq!(job_state(&j), sys::JOB_CANCELLED as u32 | JOB_COMPLETING);
        let mut p = Job { held: Some(Reason::JobHeldUser), ..Default::default() };
        assert_eq!(state_reason(&p), (sys::WAIT_HELD_USER as u32, None));
        p.reason = Reason::Other("ReqNodeNotAvail, Reserved for maintenance".into());
        p.held = None;
        assert_eq!(
            state_reason(&p),
            (sys::WAIT_NODE_NOT_AVAIL as u32, Some("ReqNodeNotAvail, Reserved for maintenance".into()))
        );
        assert_eq!(spur_cli_base::show::mail_bits("BEGIN,END"), 3);
    }

    #[test]
    fn messages_free_what_they_hold() {
        let v = view();
        let ctx = Ctx::new(&v);
        let jobs: Vec<&Job> = v.jobs.iter().collect();
        let msg = message(&jobs, &ctx);
        // SAFETY: msg is message's; the records are read before it is freed.
        unsafe {
            assert_eq!((*msg).record_count, 2);
            assert_eq!((*msg).last_update as i64, 2000);
            assert_eq!((*(*msg).job_array.add(1)).job_id, 8);
            // a consumer's copy of one record, freed on its own (pyslurm's way)
            let copy = xnew::<sys::slurm_job_info_t>();
            std::ptr::copy_nonoverlapping((*msg).job_array, copy, 1);
            (*msg).job_array.write(fill_job(&v.jobs[0], &ctx));
            slurm_free_job_info(copy);
            slurm_free_job_info_msg(msg);
            slurm_free_job_info_msg(null_mut());
        }
        let empty = message(&[], &ctx);
        // SAFETY: as above.
        unsafe {
            assert!((*empty).job_array.is_null());
            slurm_free_job_info_msg(empty);
        }
    }
}
