//! Format version 0: the model records as the unversioned code wrote them
//! (bincode 1, up to commit cc6c903), frozen here so that files written then
//! stay readable, and converted into today's types.
//!
//! **Frozen**: never edit these definitions. bincode 1 writes every field in
//! declaration order with no names and ignores `#[serde(default)]`, so a
//! record can only be read by a type with exactly the fields, order, types
//! and enum variant order it was written with. Today's types evolve under the
//! rules of `spur_format` (MessagePack, appended fields); when one of them
//! changes, change only the conversion below (this file and
//! `spur_state::legacy_v0` are the only places that know version 0).
//!
//! Only deserialisation: nothing writes version 0 any more.

use crate::model;
use serde::Deserialize;
use std::collections::BTreeMap;

type Minutes = u32;

#[derive(Debug, Deserialize)]
pub enum JobState {
    Pending,
    Running,
    Suspended,
    Completing,
    Completed,
    Cancelled,
    Failed,
    Timeout,
    NodeFail,
    Preempted,
    BootFail,
    Deadline,
    OutOfMemory,
}

#[derive(Debug, Deserialize)]
pub enum Reason {
    None,
    Priority,
    Resources,
    Dependency,
    DependencyNeverSatisfied,
    JobHeldUser,
    JobHeldAdmin,
    BeginTime,
    PartitionNodeLimit,
    PartitionTimeLimit,
    PartitionDown,
    PartitionInactive,
    NodeDown,
    BadConstraints,
    JobArrayTaskLimit,
    NonZeroExitCode,
    TimeLimit,
    ReqNodeNotAvail,
    InvalidAccount,
    Other(String),
}

#[derive(Debug, Deserialize)]
pub struct JobDesc {
    pub name: String,
    pub script: String,
    pub argv: Vec<String>,
    pub work_dir: String,
    pub std_out: Option<String>,
    pub std_err: Option<String>,
    pub std_in: Option<String>,
    pub partition: Option<String>,
    pub min_nodes: Option<u32>,
    pub max_nodes: Option<u32>,
    pub num_tasks: Option<u32>,
    pub cpus_per_task: Option<u32>,
    pub ntasks_per_node: Option<u32>,
    pub mem_per_node: Option<u64>,
    pub mem_per_cpu: Option<u64>,
    pub gres: Option<String>,
    pub time_limit: Option<Minutes>,
    pub time_min: Option<Minutes>,
    pub array: Option<String>,
    pub dependency: Option<String>,
    pub hold: bool,
    pub begin_time: i64,
    pub deadline: i64,
    pub env: Vec<(String, String)>,
    pub export: Option<String>,
    pub account: Option<String>,
    pub qos: Option<String>,
    pub comment: Option<String>,
    pub req_nodes: Option<String>,
    pub exc_nodes: Option<String>,
    pub constraint: Option<String>,
    pub exclusive: bool,
    pub requeue: Option<bool>,
    pub open_mode_append: Option<bool>,
    pub nice: Option<i32>,
    pub mail_type: Option<String>,
    pub mail_user: Option<String>,
    pub signal: Option<String>,
    pub extra: BTreeMap<String, String>,
    pub wrapped: bool,
    pub command: Option<String>,
    pub alloc_node: String,
    pub submit_host: String,
    pub alloc_sid: u32,
    pub umask: u32,
    pub request_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct ArrayInfo {
    pub array_job_id: u32,
    pub task_id: Option<u32>,
    pub pending_tasks: Vec<u32>,
    pub max_running: u32,
    pub spec: String,
}

#[derive(Debug, Deserialize)]
pub struct NodeAlloc {
    pub node: String,
    pub cpus: u32,
    pub mem_mb: u64,
    pub gres: Vec<GresAlloc>,
}

#[derive(Debug, Deserialize)]
pub struct GresAlloc {
    pub name: String,
    pub gtype: Option<String>,
    pub count: u64,
    pub indexes: Vec<u32>,
}

#[derive(Debug, Deserialize)]
pub struct Job {
    pub job_id: u32,
    pub array: Option<ArrayInfo>,
    pub desc: JobDesc,
    pub user_id: u32,
    pub group_id: u32,
    pub user_name: String,
    pub group_name: String,
    pub state: JobState,
    pub reason: Reason,
    pub held: Option<Reason>,
    pub priority: u32,
    pub partition: String,
    pub time_limit: Option<Minutes>,
    pub submit_time: i64,
    pub eligible_time: i64,
    pub start_time: i64,
    pub end_time: i64,
    pub suspend_time: i64,
    pub pre_sus_time: i64,
    pub allocs: Vec<NodeAlloc>,
    pub exit_status: i32,
    pub derived_exit_code: i32,
    pub restart_count: u32,
    pub num_nodes: u32,
    pub num_tasks: u32,
    pub num_cpus: u32,
    pub mem_per_node: u64,
    pub mem_per_cpu: u64,
    pub kill_reason: Option<JobState>,
    pub batch_flag: u32,
    pub start_pass_ms: i64,
    pub last_sched_eval: i64,
    pub requeued_done: bool,
    pub tres_counted: Option<(u32, u32)>,
}

#[derive(Debug, Deserialize)]
pub enum NodeBase {
    Unknown,
    Idle,
    Allocated,
    Down,
    Future,
}

#[derive(Debug, Deserialize)]
pub struct NodeFlags {
    pub drain: bool,
    pub not_responding: bool,
    pub completing: bool,
    pub reboot_requested: bool,
    pub power_down: bool,
    pub planned: bool,
    pub maint: bool,
    pub reserved: bool,
}

#[derive(Debug, Deserialize)]
pub struct Node {
    pub name: String,
    pub addr: String,
    pub hostname: String,
    pub port: u16,
    pub cpus: u32,
    pub boards: u32,
    pub sockets: u32,
    pub cores_per_socket: u32,
    pub threads_per_core: u32,
    pub real_memory: u64,
    pub tmp_disk: u64,
    pub weight: u32,
    pub features: Vec<String>,
    pub gres: Vec<(String, Option<String>, u64)>,
    pub base: NodeBase,
    pub flags: NodeFlags,
    pub reason: Option<String>,
    pub reason_time: i64,
    pub reason_uid: u32,
    pub alloc_cpus: u32,
    pub alloc_mem: u64,
    pub alloc_gres: Vec<(String, Option<String>, u64)>,
    pub boot_time: i64,
    pub slurmd_start_time: i64,
    pub last_busy: i64,
    pub os: String,
    pub arch: String,
    pub version: String,
    pub last_heard: i64,
    pub cpu_load: u32,
    pub free_mem: u64,
}

#[derive(Debug, Deserialize)]
pub enum PartState {
    Up,
    Down,
    Drain,
    Inactive,
}

#[derive(Debug, Deserialize)]
pub struct Partition {
    pub name: String,
    pub nodes: Vec<String>,
    pub nodes_expr: String,
    pub default: bool,
    pub hidden: bool,
    pub state: PartState,
    pub max_time: Option<Minutes>,
    pub default_time: Option<Minutes>,
    pub max_nodes: Option<u32>,
    pub min_nodes: u32,
    pub oversubscribe: String,
    pub priority_tier: u32,
    pub priority_job_factor: u32,
    pub allow_groups: Option<Vec<String>>,
    pub allow_accounts: Option<Vec<String>>,
    pub other: Vec<(String, String)>,
}

#[derive(Debug, Deserialize)]
pub struct Reservation {
    pub name: String,
    pub start_time: i64,
    pub end_time: i64,
    pub nodes: Vec<String>,
    pub users: Vec<String>,
    pub flags: Vec<String>,
    pub spec_nodes: bool,
    pub partition: Option<String>,
    pub cores: u32,
}

#[derive(Debug, Deserialize)]
pub struct LaunchSpec {
    pub job: Job,
    pub node_name: String,
    pub cluster_name: String,
    pub ctld_host: String,
    pub ctld_port: u16,
    pub kill_wait: u32,
    pub submit_host: String,
    pub working_cluster: String,
}

/// A job description written at version 0 (`SubmitRequest.job_desc` of an
/// unversioned sbatch).
pub fn decode_job_desc(bytes: &[u8]) -> Result<model::JobDesc, String> {
    bincode::deserialize::<JobDesc>(bytes).map(Into::into).map_err(|e| e.to_string())
}

/// A launch spec written at version 0 (`spec.bin` of a job started by an
/// unversioned agent).
pub fn decode_launch_spec(bytes: &[u8]) -> Result<crate::launch::LaunchSpec, String> {
    bincode::deserialize::<LaunchSpec>(bytes).map(Into::into).map_err(|e| e.to_string())
}

// ------------------------------------------------------------------ conversions

impl From<JobState> for model::JobState {
    fn from(v: JobState) -> Self {
        match v {
            JobState::Pending => model::JobState::Pending,
            JobState::Running => model::JobState::Running,
            JobState::Suspended => model::JobState::Suspended,
            JobState::Completing => model::JobState::Completing,
            JobState::Completed => model::JobState::Completed,
            JobState::Cancelled => model::JobState::Cancelled,
            JobState::Failed => model::JobState::Failed,
            JobState::Timeout => model::JobState::Timeout,
            JobState::NodeFail => model::JobState::NodeFail,
            JobState::Preempted => model::JobState::Preempted,
            JobState::BootFail => model::JobState::BootFail,
            JobState::Deadline => model::JobState::Deadline,
            JobState::OutOfMemory => model::JobState::OutOfMemory,
        }
    }
}

impl From<Reason> for model::Reason {
    fn from(v: Reason) -> Self {
        match v {
            Reason::None => model::Reason::None,
            Reason::Priority => model::Reason::Priority,
            Reason::Resources => model::Reason::Resources,
            Reason::Dependency => model::Reason::Dependency,
            Reason::DependencyNeverSatisfied => model::Reason::DependencyNeverSatisfied,
            Reason::JobHeldUser => model::Reason::JobHeldUser,
            Reason::JobHeldAdmin => model::Reason::JobHeldAdmin,
            Reason::BeginTime => model::Reason::BeginTime,
            Reason::PartitionNodeLimit => model::Reason::PartitionNodeLimit,
            Reason::PartitionTimeLimit => model::Reason::PartitionTimeLimit,
            Reason::PartitionDown => model::Reason::PartitionDown,
            Reason::PartitionInactive => model::Reason::PartitionInactive,
            Reason::NodeDown => model::Reason::NodeDown,
            Reason::BadConstraints => model::Reason::BadConstraints,
            Reason::JobArrayTaskLimit => model::Reason::JobArrayTaskLimit,
            Reason::NonZeroExitCode => model::Reason::NonZeroExitCode,
            Reason::TimeLimit => model::Reason::TimeLimit,
            Reason::ReqNodeNotAvail => model::Reason::ReqNodeNotAvail,
            Reason::InvalidAccount => model::Reason::InvalidAccount,
            Reason::Other(x) => model::Reason::Other(x),
        }
    }
}

impl From<JobDesc> for model::JobDesc {
    fn from(v: JobDesc) -> Self {
        let mut d = model::JobDesc {
            name: v.name,
            script: v.script.into(),
            argv: v.argv,
            work_dir: v.work_dir,
            std_out: v.std_out,
            std_err: v.std_err,
            std_in: v.std_in,
            partition: v.partition,
            min_nodes: v.min_nodes,
            max_nodes: v.max_nodes,
            num_tasks: v.num_tasks,
            cpus_per_task: v.cpus_per_task,
            ntasks_per_node: v.ntasks_per_node,
            mem_per_node: v.mem_per_node,
            mem_per_cpu: v.mem_per_cpu,
            gres: v.gres,
            time_limit: v.time_limit,
            time_min: v.time_min,
            array: v.array,
            dependency: v.dependency,
            hold: v.hold,
            begin_time: v.begin_time,
            deadline: v.deadline,
            env: v.env.into(),
            export: v.export,
            account: v.account,
            qos: v.qos,
            comment: v.comment,
            req_nodes: v.req_nodes,
            exc_nodes: v.exc_nodes,
            constraint: v.constraint,
            exclusive: v.exclusive,
            requeue: v.requeue,
            open_mode_append: v.open_mode_append,
            nice: v.nice,
            mail_type: v.mail_type,
            mail_user: v.mail_user,
            signal: v.signal,
            wrapped: v.wrapped,
            command: v.command,
            alloc_node: v.alloc_node,
            submit_host: v.submit_host,
            alloc_sid: v.alloc_sid,
            umask: v.umask,
            request_id: v.request_id,
            ..Default::default()
        };
        desc_extra(&mut d, v.extra);
        d
    }
}

impl From<ArrayInfo> for model::ArrayInfo {
    fn from(v: ArrayInfo) -> Self {
        model::ArrayInfo {
            array_job_id: v.array_job_id,
            task_id: v.task_id,
            pending_tasks: v.pending_tasks,
            max_running: v.max_running,
            spec: v.spec,
        }
    }
}

impl From<NodeAlloc> for model::NodeAlloc {
    fn from(v: NodeAlloc) -> Self {
        model::NodeAlloc {
            node: v.node,
            cpus: v.cpus,
            mem_mb: v.mem_mb,
            gres: v.gres.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<GresAlloc> for model::GresAlloc {
    fn from(v: GresAlloc) -> Self {
        model::GresAlloc { name: v.name, gtype: v.gtype, count: v.count, indexes: v.indexes }
    }
}

impl From<Job> for model::Job {
    fn from(v: Job) -> Self {
        model::Job {
            job_id: v.job_id,
            array: v.array.map(Into::into),
            desc: v.desc.into(),
            user_id: v.user_id,
            group_id: v.group_id,
            user_name: v.user_name,
            group_name: v.group_name,
            state: v.state.into(),
            reason: v.reason.into(),
            held: v.held.map(Into::into),
            priority: v.priority,
            partition: v.partition,
            time_limit: v.time_limit,
            submit_time: v.submit_time,
            eligible_time: v.eligible_time,
            start_time: v.start_time,
            end_time: v.end_time,
            suspend_time: v.suspend_time,
            pre_sus_time: v.pre_sus_time,
            allocs: v.allocs.into_iter().map(Into::into).collect(),
            exit_status: v.exit_status,
            derived_exit_code: v.derived_exit_code,
            restart_count: v.restart_count,
            num_nodes: v.num_nodes,
            num_tasks: v.num_tasks,
            num_cpus: v.num_cpus,
            mem_per_node: v.mem_per_node,
            mem_per_cpu: v.mem_per_cpu,
            kill_reason: v.kill_reason.map(Into::into),
            batch_flag: v.batch_flag,
            start_pass_ms: v.start_pass_ms,
            last_sched_eval: v.last_sched_eval,
            requeued_done: v.requeued_done,
            tres_counted: v.tres_counted,
            admin_comment: None,
            submitted_cpus_per_task: None,
            steps: Vec::new(),
            next_step_id: 0,
            done_steps: Vec::new(),
            batch_usage: None,
            cancelled_by: None,
            sched_backfill: false,
            preempt_suspended: false,
        }
    }
}

impl From<NodeBase> for model::NodeBase {
    fn from(v: NodeBase) -> Self {
        match v {
            NodeBase::Unknown => model::NodeBase::Unknown,
            NodeBase::Idle => model::NodeBase::Idle,
            NodeBase::Allocated => model::NodeBase::Allocated,
            NodeBase::Down => model::NodeBase::Down,
            NodeBase::Future => model::NodeBase::Future,
        }
    }
}

impl From<NodeFlags> for model::NodeFlags {
    fn from(v: NodeFlags) -> Self {
        model::NodeFlags {
            drain: v.drain,
            not_responding: v.not_responding,
            completing: v.completing,
            reboot_requested: v.reboot_requested,
            power_down: v.power_down,
            planned: v.planned,
            maint: v.maint,
            reserved: v.reserved,
            fail: false,
        }
    }
}

impl From<Node> for model::Node {
    fn from(v: Node) -> Self {
        model::Node {
            name: v.name,
            addr: v.addr,
            hostname: v.hostname,
            port: v.port,
            cpus: v.cpus,
            boards: v.boards,
            sockets: v.sockets,
            cores_per_socket: v.cores_per_socket,
            threads_per_core: v.threads_per_core,
            real_memory: v.real_memory,
            tmp_disk: v.tmp_disk,
            weight: v.weight,
            features: v.features,
            gres: v.gres,
            base: v.base.into(),
            flags: v.flags.into(),
            reason: v.reason,
            reason_time: v.reason_time,
            reason_uid: v.reason_uid,
            alloc_cpus: v.alloc_cpus,
            alloc_mem: v.alloc_mem,
            alloc_gres: v.alloc_gres,
            boot_time: v.boot_time,
            slurmd_start_time: v.slurmd_start_time,
            last_busy: v.last_busy,
            os: v.os,
            arch: v.arch,
            version: v.version,
            last_heard: v.last_heard,
            cpu_load: v.cpu_load,
            free_mem: v.free_mem,
            comment: None,
            extra: None,
            cpu_bind: 0,
            gres_text: None,
            resume_after: 0,
        }
    }
}

impl From<PartState> for model::PartState {
    fn from(v: PartState) -> Self {
        match v {
            PartState::Up => model::PartState::Up,
            PartState::Down => model::PartState::Down,
            PartState::Drain => model::PartState::Drain,
            PartState::Inactive => model::PartState::Inactive,
        }
    }
}

impl From<Partition> for model::Partition {
    fn from(v: Partition) -> Self {
        model::Partition {
            name: v.name,
            nodes: v.nodes,
            nodes_expr: v.nodes_expr,
            default: v.default,
            hidden: v.hidden,
            state: v.state.into(),
            max_time: v.max_time,
            default_time: v.default_time,
            max_nodes: v.max_nodes,
            min_nodes: v.min_nodes,
            oversubscribe: v.oversubscribe,
            priority_tier: v.priority_tier,
            priority_job_factor: v.priority_job_factor,
            allow_groups: v.allow_groups,
            allow_accounts: v.allow_accounts,
            other: v.other,
            more: Default::default(),
        }
    }
}

impl From<Reservation> for model::Reservation {
    fn from(v: Reservation) -> Self {
        model::Reservation {
            name: v.name,
            start_time: v.start_time,
            end_time: v.end_time,
            nodes: v.nodes,
            users: v.users,
            flags: v.flags,
            spec_nodes: v.spec_nodes,
            partition: v.partition,
            cores: v.cores,
            ..Default::default()
        }
    }
}

impl From<LaunchSpec> for crate::launch::LaunchSpec {
    fn from(v: LaunchSpec) -> Self {
        crate::launch::LaunchSpec {
            job: v.job.into(),
            node_name: v.node_name,
            cluster_name: v.cluster_name,
            ctld_host: v.ctld_host,
            ctld_port: v.ctld_port,
            kill_wait: v.kill_wait,
            submit_host: v.submit_host,
            working_cluster: v.working_cluster,
            mem_check_secs: 0,
        }
    }
}

/// Version 0 kept the sbatch options it did not model in `JobDesc.extra`, by
/// option name, with the value as given (`""` for a flag; `tmp` in MB): each
/// goes to its field now, as sbatch sets it (`-M/--clusters`, which only
/// changed sbatch's own answer, is dropped).
fn desc_extra(d: &mut model::JobDesc, extra: BTreeMap<String, String>) {
    // sbatch had checked them with strtol
    let num = |v: &str| -> Option<u32> { u32::try_from(spur_grammar::num::atol(v)).ok() };
    let mut accepted = model::AcceptedOptions::default();
    for (k, v) in extra {
        let a = &mut accepted;
        match k.as_str() {
            "exclusive" => {
                d.exclusive_kind = match v.as_str() {
                    "user" => Some(model::ExclusiveKind::User),
                    "mcs" => Some(model::ExclusiveKind::Mcs),
                    "topo" => Some(model::ExclusiveKind::Topo),
                    "oversubscribe" => Some(model::ExclusiveKind::Oversubscribe),
                    _ => None,
                }
            }
            "oversubscribe" => d.oversubscribe_ok = true,
            "contiguous" => d.contiguous_nodes = true,
            "tmp" => d.tmp_mb = v.trim().parse().ok(),
            "kill-on-invalid-dep" => d.kill_on_invalid_dependency = Some(v.eq_ignore_ascii_case("yes")),
            "reservation" => d.reservation = Some(v),
            "gpus" => d.gpus = Some(v),
            "mem-per-gpu" => d.mem_per_gpu = spur_grammar::size::parse_mem_mb(&v).ok(),
            "priority" => d.priority = if v.eq_ignore_ascii_case("TOP") { Some(model::PRIORITY_TOP) } else { num(&v) },
            "get-user-env" => d.get_user_env = Some(v),
            "uid" => d.run_as_user = Some(v),
            "gid" => d.run_as_group = Some(v),
            "mincpus" => d.min_cpus = num(&v),
            "cpus-per-gpu" => d.cpus_per_gpu = num(&v),
            "sockets-per-node" => d.sockets_per_node = num(&v),
            "cores-per-socket" => d.cores_per_socket = num(&v),
            "threads-per-core" => d.threads_per_core = num(&v),
            "ntasks-per-core" => d.ntasks_per_core = num(&v),
            "ntasks-per-socket" => d.ntasks_per_socket = num(&v),
            "ntasks-per-gpu" => d.ntasks_per_gpu = num(&v),
            "ntasks-per-tres" => d.ntasks_per_tres = num(&v),
            "ignore-pbs" => a.ignore_pbs = true,
            "overcommit" => a.overcommit = true,
            "reboot" => a.reboot = true,
            "spread-job" => a.spread_job = true,
            "stepmgr" => a.stepmgr = true,
            "use-min-nodes" => a.use_min_nodes = true,
            "acctg-freq" => a.acctg_freq = Some(v),
            "batch" => a.batch_features = Some(v),
            "bb" => a.burst_buffer = Some(v),
            "bbf" => a.burst_buffer_file = Some(v),
            "cluster-constraint" => a.cluster_features = Some(v),
            "cluster" => a.cluster = Some(v),
            "container" => a.container = Some(v),
            "container-id" => a.container_id = Some(v),
            "context" => a.selinux_context = Some(v),
            "core-spec" => a.core_spec = Some(v),
            "cpu-freq" => a.cpu_freq = Some(v),
            "delay-boot" => a.delay_boot = Some(v),
            "distribution" => a.distribution = Some(v),
            "extra" => a.extra = Some(v),
            "extra-node-info" => a.extra_node_info = Some(v),
            "gpu-bind" => a.gpu_bind = Some(v),
            "gpu-freq" => a.gpu_freq = Some(v),
            "gpus-per-node" => a.gpus_per_node = Some(v),
            "gpus-per-socket" => a.gpus_per_socket = Some(v),
            "gpus-per-task" => a.gpus_per_task = Some(v),
            "gres-flags" => a.gres_flags = Some(v),
            "hint" => a.hint = Some(v),
            "licenses" => a.licenses = Some(v),
            "mcs-label" => a.mcs_label = Some(v),
            "mem-bind" => a.mem_bind = Some(v),
            "network" => a.network = Some(v),
            "no-kill" => a.no_kill = Some(v),
            "nodefile" => a.nodefile = Some(v),
            "oom-kill-step" => a.oom_kill_step = Some(v),
            "power" => a.power = Some(v),
            "prefer" => a.prefer = Some(v),
            "profile" => a.profile = Some(v),
            "propagate" => a.propagate = Some(v),
            "resv-ports" => a.resv_ports = Some(v),
            "segment" => a.segment = Some(v),
            "switches" => a.switches = Some(v),
            "switch-wait" => a.switch_wait = Some(v),
            "thread-spec" => a.thread_spec = Some(v),
            "tres-bind" => a.tres_bind = Some(v),
            "tres-per-task" => a.tres_per_task = Some(v),
            "wait-all-nodes" => a.wait_all_nodes = Some(v),
            "wckey" => a.wckey = Some(v),
            // "clusters", and any other name: nothing keeps it now
            _ => {}
        }
    }
    if accepted != model::AcceptedOptions::default() {
        d.accepted = Some(Box::new(accepted));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_options_of_version_0_go_to_their_fields() {
        let mut d = model::JobDesc::default();
        let extra: BTreeMap<String, String> = [
            ("exclusive", "user"),
            ("tmp", "100"),
            ("contiguous", ""),
            ("kill-on-invalid-dep", "yes"),
            ("reservation", "r1"),
            ("mincpus", "3"),
            ("priority", "TOP"),
            ("mem-per-gpu", "2G"),
            ("overcommit", ""),
            ("wckey", "w"),
            ("clusters", "c"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        desc_extra(&mut d, extra);
        assert_eq!(d.exclusive_kind, Some(model::ExclusiveKind::User));
        assert_eq!((d.tmp_mb, d.contiguous_nodes, d.kill_on_invalid_dependency), (Some(100), true, Some(true)));
        assert_eq!(
            (d.reservation.as_deref(), d.min_cpus, d.priority),
            (Some("r1"), Some(3), Some(model::PRIORITY_TOP))
        );
        assert_eq!(d.mem_per_gpu, Some(2048));
        assert!(d.accepted.as_ref().unwrap().overcommit);
        assert_eq!(d.accepted.as_ref().unwrap().wckey.as_deref(), Some("w"));
    }
}
