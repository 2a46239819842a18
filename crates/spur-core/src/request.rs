//! Requests to the controller and its answers, as typed values: what the
//! commands (and later the C ABI) hand to spur-client, and what the
//! controller validates. Every value here is already parsed: Slurm's option
//! and `key=value` grammars stay in the CLI crates, the controller checks values
//! (permission, job state, limits) and answers with Slurm's error numbers.
//!
//! Conventions: `None` is "not given, leave as is"; a time limit or count of
//! [`INFINITE`] is Slurm's INFINITE/UNLIMITED. Job references stay text
//! (`123`, `123_4`, `123_[1-3]`), as Slurm's own API carries them
//! (`job_id_str`) and the controller reads them against its job table.

use crate::model::{JobState, Minutes, PartState};
use serde::{Deserialize, Serialize};

/// Slurm's INFINITE (`UNLIMITED` time limits and counts).
pub const INFINITE: u32 = u32::MAX;

/// `scontrol hold|uhold|release|requeue|requeuehold|suspend|resume|top` and
/// `update JobId=…`, for a list of job references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobControl {
    /// `hold` (`user: false`: an operator's hold when the caller is one) or `uhold`.
    Hold {
        user: bool,
    },
    Release,
    /// `requeue` / `requeuehold` (`State=SpecialExit`: `special_exit`).
    Requeue {
        hold: bool,
        special_exit: bool,
    },
    Suspend,
    Resume,
    /// `top`: the listed pending jobs first among their owner's.
    Top,
    Update(Box<JobUpdate>),
}

/// The fields of `scontrol update JobId=…`, parsed (`None`: unchanged).
/// Listed in the order the controller checks them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobUpdate {
    /// Minutes; [`INFINITE`] for UNLIMITED.
    pub time_limit: Option<Minutes>,
    pub time_min: Option<Minutes>,
    pub name: Option<String>,
    pub partition: Option<String>,
    pub priority: Option<u32>,
    pub nice: Option<i32>,
    pub comment: Option<String>,
    /// `NumNodes=` (the minimum of a range).
    pub num_nodes: Option<u32>,
    pub num_tasks: Option<u32>,
    /// `MinMemoryNode=` / `MinMemoryCPU=` in MB.
    pub mem_per_node: Option<u64>,
    pub mem_per_cpu: Option<u64>,
    /// Hostlist expressions; empty clears.
    pub exc_nodes: Option<String>,
    pub req_nodes: Option<String>,
    /// Empty clears.
    pub features: Option<String>,
    pub work_dir: Option<String>,
    pub requeue: Option<bool>,
    pub std_out: Option<String>,
    pub std_err: Option<String>,
    pub std_in: Option<String>,
    /// Slurm's dependency expression; empty clears.
    pub dependency: Option<String>,
    /// `StartTime=`/`EligibleTime=`: epoch seconds.
    pub begin_time: Option<i64>,
    /// `ArrayTaskThrottle=`: at most this many tasks of the array run at
    /// once (0 = no limit); only for an array's own id.
    pub array_throttle: Option<u32>,
    /// `AdminComment=` (administrators only).
    pub admin_comment: Option<String>,
    /// `SiteFactor=` (operators only; Spur has no multifactor priority to
    /// apply it to).
    pub site_factor: Option<i64>,
    /// `Extra=`.
    pub extra: Option<String>,
    /// `MinCPUsNode=`, `CPUsPerTask=`, `NumCPUs=` (the minimum),
    /// `TasksPerNode=`, `MinTmpDiskNode=` (MB), `ReqSockets=`, `ReqCores=`,
    /// `ReqThreads=`: the pending job's shape.
    pub min_cpus_node: Option<u32>,
    pub cpus_per_task: Option<u32>,
    pub num_cpus: Option<u32>,
    pub ntasks_per_node: Option<u32>,
    pub tmp_disk: Option<u64>,
    pub sockets_per_node: Option<u32>,
    pub cores_per_socket: Option<u32>,
    pub threads_per_core: Option<u32>,
    /// `Prefer=`, `ReservationName=` (empty clears), `Account=`, `QOS=`, `WCKey=`.
    pub prefer: Option<String>,
    pub reservation: Option<String>,
    pub account: Option<String>,
    pub qos: Option<String>,
    pub wckey: Option<String>,
    /// `Deadline=`, `EndTime=`: epoch seconds.
    pub deadline: Option<i64>,
    pub end_time: Option<i64>,
    /// `Contiguous=`, `OverSubscribe=`/`Shared=` (true: YES).
    pub contiguous: Option<bool>,
    pub shared: Option<bool>,
    pub mail_type: Option<String>,
    pub mail_user: Option<String>,
    /// `Gres=`/`TresPerNode=` as given.
    pub gres: Option<String>,
    /// `ResetAccrueTime`.
    pub reset_accrue_time: bool,
    /// `Switches=N[@WAIT]` as given, `Reboot=`, `DelayBoot=` (seconds).
    pub switches: Option<String>,
    pub reboot: Option<bool>,
    pub delay_boot: Option<u32>,
    /// Fields scontrol accepts that Spur cannot change yet (the controller
    /// refuses a request naming any of them), as given.
    pub unsupported: Vec<UnsupportedJobField>,
}

/// A job field scontrol accepts whose change Spur does not implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsupportedJobField {
    AdminComment,
    CpusPerTask,
    NumCpus,
    TasksPerNode,
    MinCpusNode,
    MinTmpDiskNode,
    Qos,
    Reservation,
    WcKey,
    OverSubscribe,
    Contiguous,
    TresPerNode,
    Account,
    Licenses,
    Deadline,
    MailType,
    MailUser,
}

/// Numbered on the wire (1, 2, ... in declaration order).
macro_rules! wire_codes {
    ($t:ident, [$($v:ident),* $(,)?]) => {
        impl $t {
            pub const ALL: &'static [$t] = &[$($t::$v),*];
            /// Its number on the wire.
            pub fn code(self) -> u32 {
                Self::ALL.iter().position(|f| *f == self).unwrap_or(0) as u32 + 1
            }
            pub fn from_code(c: u32) -> Option<$t> {
                Self::ALL.get((c as usize).checked_sub(1)?).copied()
            }
        }
    };
}

wire_codes!(
    UnsupportedJobField,
    [
        AdminComment,
        CpusPerTask,
        NumCpus,
        TasksPerNode,
        MinCpusNode,
        MinTmpDiskNode,
        Qos,
        Reservation,
        WcKey,
        OverSubscribe,
        Contiguous,
        TresPerNode,
        Account,
        Licenses,
        Deadline,
        MailType,
        MailUser,
    ]
);

/// One job reference's answer: the reference as sent and Slurm's error number (0: done).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobResult {
    pub job_id: String,
    pub code: i32,
}

/// `scancel`: job references or filters, and what to send.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CancelRequest {
    pub job_ids: Vec<String>,
    /// 0: cancel (SIGTERM, KillWait, SIGKILL); else this signal.
    pub signal: i32,
    pub batch: bool,
    pub full: bool,
    /// Filters (`None`: any).
    pub user: Option<String>,
    pub name: Option<String>,
    pub partition: Option<String>,
    pub states: Vec<JobState>,
    pub nodelist: Option<String>,
    pub account: Option<String>,
    pub interactive: bool,
}

/// What to load (`squeue`, `sinfo`, `scontrol show`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub jobs: bool,
    pub nodes: bool,
    pub partitions: bool,
    /// When non-empty, only these jobs.
    pub job_ids: Vec<String>,
    /// Finished jobs too (when no ids are named).
    pub all_finished: bool,
    /// With the named jobs' batch scripts (owner or operator only).
    pub with_script: bool,
    /// Only this user's jobs (`squeue -u` with one user, as Slurm's
    /// `slurm_load_job_user`).
    pub user_id: Option<u32>,
    /// With the leader's fair-share factors (`ClusterView::fair_share`).
    pub with_fair_share: bool,
}

/// A submission's answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubmitOutcome {
    pub job_id: u32,
    /// `--test-only`: when, where and on how many processors it would start.
    pub start_time: i64,
    pub nodes: String,
    pub partition: String,
    pub cpus: u32,
}

/// `scontrol update NodeName=…`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeUpdate {
    /// A hostlist expression.
    pub nodes: String,
    pub state: Option<NodeStateChange>,
    pub reason: Option<String>,
    pub weight: Option<u32>,
    /// Comma lists (`AvailableFeatures=`, `ActiveFeatures=`).
    pub available_features: Option<String>,
    pub active_features: Option<String>,
    /// Fields scontrol accepts that Spur cannot change yet.
    pub unsupported: Vec<UnsupportedNodeField>,
    /// `Comment=`, `Extra=`, `Gres=` as given (empty clears).
    pub comment: Option<String>,
    pub extra: Option<String>,
    pub gres: Option<String>,
    /// `CpuBind=`: Slurm's cpu_bind_type bits as scontrol translated them.
    pub cpu_bind: Option<u32>,
    /// `ResumeAfter=` seconds ([`INFINITE`] for `-1`: no automatic resume).
    pub resume_after: Option<u32>,
    /// `NodeAddr=`, `NodeHostname=`: hostlist expressions, one per node.
    pub node_addr: Option<String>,
    pub node_hostname: Option<String>,
}

/// A node field scontrol accepts whose change Spur does not implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsupportedNodeField {
    NodeAddr,
    NodeHostName,
    Gres,
    Comment,
    Extra,
}

wire_codes!(UnsupportedNodeField, [NodeAddr, NodeHostName, Gres, Comment, Extra]);

/// The `State=` of a node update, as scontrol names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeStateChange {
    NoResp,
    CancelReboot,
    Drain,
    Fail,
    Future,
    Resume,
    PowerDownAsap,
    PowerDownForce,
    PowerDown,
    PowerUp,
    Undrain,
    Unknown,
    Down,
    Idle,
    Allocated,
    Error,
    Mixed,
}

impl NodeStateChange {
    /// scontrol's name for it (`DRAIN`, `RESUME`, `POWER_DOWN_ASAP`, ...).
    pub fn name(self) -> &'static str {
        use NodeStateChange::*;
        match self {
            NoResp => "NORESP",
            CancelReboot => "CANCEL_REBOOT",
            Drain => "DRAIN",
            Fail => "FAIL",
            Future => "FUTURE",
            Resume => "RESUME",
            PowerDownAsap => "POWER_DOWN_ASAP",
            PowerDownForce => "POWER_DOWN_FORCE",
            PowerDown => "POWER_DOWN",
            PowerUp => "POWER_UP",
            Undrain => "UNDRAIN",
            Unknown => "UNKNOWN",
            Down => "DOWN",
            Idle => "IDLE",
            Allocated => "ALLOCATED",
            Error => "ERROR",
            Mixed => "MIXED",
        }
    }
}

wire_codes!(
    NodeStateChange,
    [
        NoResp,
        CancelReboot,
        Drain,
        Fail,
        Future,
        Resume,
        PowerDownAsap,
        PowerDownForce,
        PowerDown,
        PowerUp,
        Undrain,
        Unknown,
        Down,
        Idle,
        Allocated,
        Error,
        Mixed,
    ]
);

/// `scontrol update PartitionName=…`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionUpdate {
    pub name: String,
    /// Minutes; [`INFINITE`] for INFINITE/UNLIMITED.
    pub max_time: Option<Minutes>,
    pub default_time: Option<Minutes>,
    /// [`INFINITE`] for UNLIMITED.
    pub max_nodes: Option<u32>,
    pub min_nodes: Option<u32>,
    pub state: Option<PartState>,
    pub default: Option<bool>,
    pub hidden: Option<bool>,
    pub priority_tier: Option<u32>,
    pub priority_job_factor: Option<u32>,
    /// `OverSubscribe=` as given (`NO`, `YES:4`, `FORCE`, `EXCLUSIVE`).
    pub oversubscribe: Option<String>,
    /// Fields scontrol accepts that Spur cannot change yet.
    pub unsupported: Vec<UnsupportedPartitionField>,
    /// The other keys, in the order given, values canonical ([`PartKey::canonical`]).
    pub settings: Vec<(PartKey, String)>,
}

/// A partition field scontrol accepts whose change Spur does not implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsupportedPartitionField {
    AllowGroups,
    AllowAccounts,
}

wire_codes!(UnsupportedPartitionField, [AllowGroups, AllowAccounts]);

/// `scontrol create|update|delete reservation`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReservationRequest {
    Create(ReservationSpec),
    Update(ReservationSpec),
    Delete { name: String },
}

/// A reservation's fields as given (`None`: not given). Times are epoch
/// seconds, resolved by the command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReservationSpec {
    /// Empty on create: the controller names it.
    pub name: String,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    /// Minutes; [`INFINITE`] for UNLIMITED.
    pub duration: Option<Minutes>,
    pub users: Option<NameList>,
    pub accounts: Option<NameList>,
    pub groups: Option<NameList>,
    pub flags: Option<Vec<String>>,
    /// A hostlist expression, or `ALL`.
    pub nodes: Option<String>,
    pub node_count: Option<u32>,
    pub partition: Option<String>,
    /// `Features=` (empty: none).
    pub features: Option<String>,
    /// `MaxStartDelay=` in minutes.
    pub max_start_delay: Option<Minutes>,
    /// `Skip` (update): the next occurrence of a recurring reservation.
    pub skip: bool,
    /// `TRES=` / `TRESPerNode=` as given, and `CoreCnt=` (cores): a
    /// core-based reservation.
    pub tres: Option<String>,
    pub core_count: Option<u32>,
    /// `tres` came as `TRESPerNode=` (per reserved node).
    pub tres_per_node: bool,
}

/// A list of names that replaces the current one, or adds and removes names
/// (`Users+=a`, `Users-=b`, `Users=+a,-b`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameList {
    /// `Some`: the whole new list.
    pub set: Option<Vec<String>>,
    pub add: Vec<String>,
    pub remove: Vec<String>,
}

impl NameList {
    /// The names this change mentions, in order (set, then added, then removed).
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.set.iter().flatten().chain(self.add.iter()).chain(self.remove.iter())
    }
}

/// `spur controller list|add|remove`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MembershipChange {
    List,
    Add { id: u64, addr: String },
    Remove { id: u64 },
}

/// One Raft member as the controllers see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControllerInfo {
    pub id: u64,
    pub addr: String,
    pub voter: bool,
    pub leader: bool,
}

/// The membership after a change (or as listed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Membership {
    pub members: Vec<ControllerInfo>,
    pub term: u64,
}

/// A controller's answer to a ping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PingInfo {
    pub host: String,
    /// `leader`, `follower`, `candidate`, `learner` (Raft), or `agent`.
    pub role: String,
    pub id: u64,
    /// 0: no leader known.
    pub leader_id: u64,
    pub leader_addr: String,
}

/// An agent's registration or heartbeat.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeRegistration {
    pub node: String,
    pub cpus: u32,
    pub sockets: u32,
    pub cores_per_socket: u32,
    pub threads_per_core: u32,
    pub real_memory: u64,
    pub boot_time: i64,
    pub start_time: i64,
    pub os: String,
    pub arch: String,
    pub version: String,
    /// Jobs whose batch step still runs on this node.
    pub running_jobs: Vec<u32>,
    pub cpu_load: u32,
    pub free_mem: u64,
    pub heartbeat: bool,
}

/// An agent's report that a job's batch step ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobCompletion {
    pub job_id: u32,
    pub node: String,
    /// wait(2) status.
    pub exit_status: i32,
    pub launch_failed: bool,
    pub message: String,
    /// Which run ended (its restart count at launch).
    pub restarts: Option<u32>,
    /// What the batch script's processes used on the node.
    pub usage: Option<crate::usage::NodeUsage>,
}

/// An enum whose variants travel as their wire numbers ([`wire_codes!`]).
macro_rules! coded_enum {
    ($(#[$m:meta])* pub enum $t:ident { $($v:ident),* $(,)? }) => {
        $(#[$m])*
        pub enum $t { $($v),* }
        wire_codes!($t, [$($v),*]);
    };
}

coded_enum! {
    /// A key of `scontrol update PartitionName=` stored in
    /// [`PartitionMore`](crate::model::PartitionMore) (or in the partition's
    /// node and group lists), sent with its value in the canonical form
    /// scontrol gives it ([`PartKey::canonical`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub enum PartKey {
        RootOnly,
        ReqResv,
        DisableRootJobs,
        ExclusiveUser,
        Lln,
        GraceTime,
        DefMemPerCpu,
        DefMemPerNode,
        MaxMemPerCpu,
        MaxMemPerNode,
        MaxCpusPerNode,
        MaxCpusPerSocket,
        OverTimeLimit,
        AllowGroups,
        AllowAccounts,
        DenyAccounts,
        AllowQos,
        DenyQos,
        Qos,
        AllocNodes,
        Alternate,
        CpuBind,
        JobDefaults,
        PreemptMode,
        TresBillingWeights,
        Nodes,
    }
}

impl PartKey {
    /// The key as `Invalid <Key> value:` names it.
    pub fn name(self) -> &'static str {
        use PartKey::*;
        match self {
            RootOnly => "RootOnly",
            ReqResv => "ReqResv",
            DisableRootJobs => "DisableRootJobs",
            ExclusiveUser => "ExclusiveUser",
            Lln => "LLN",
            GraceTime => "GraceTime",
            DefMemPerCpu => "DefMemPerCPU",
            DefMemPerNode => "DefMemPerNode",
            MaxMemPerCpu => "MaxMemPerCPU",
            MaxMemPerNode => "MaxMemPerNode",
            MaxCpusPerNode => "MaxCPUsPerNode",
            MaxCpusPerSocket => "MaxCPUsPerSocket",
            OverTimeLimit => "OverTimeLimit",
            AllowGroups => "AllowGroups",
            AllowAccounts => "AllowAccounts",
            DenyAccounts => "DenyAccounts",
            AllowQos => "AllowQos",
            DenyQos => "DenyQos",
            Qos => "QoS",
            AllocNodes => "AllocNodes",
            Alternate => "Alternate",
            CpuBind => "CpuBind",
            JobDefaults => "JobDefaults",
            PreemptMode => "PreemptMode",
            TresBillingWeights => "TRESBillingWeights",
            Nodes => "Nodes",
        }
    }

    /// scontrol's reading of `Key=value` (`arg`, for the messages): the
    /// value in the form the controller stores and shows, or the lines
    /// scontrol prints (each after `scontrol: error: `) when it refuses it
    /// (scontrol_parse_part_options).
    pub fn canonical(self, v: &str, arg: &str) -> Result<String, Vec<String>> {
        use PartKey::*;
        let invalid_value = || vec![format!("Invalid {} value: {}", self.name(), v)];
        let unlimited = |v: &str| v.eq_ignore_ascii_case("UNLIMITED") || v.eq_ignore_ascii_case("INFINITE");
        match self {
            RootOnly | ReqResv | DisableRootJobs | ExclusiveUser | Lln => {
                let kw = |w: &str| !v.is_empty() && w.len() >= v.len() && w[..v.len()].eq_ignore_ascii_case(v);
                if kw("NO") {
                    Ok("NO".into())
                } else if kw("YES") {
                    Ok("YES".into())
                } else {
                    Err(vec![
                        format!("Invalid input: {}", arg),
                        format!("Acceptable {} values are YES and NO", self.name()),
                    ])
                }
            }
            GraceTime => v.parse::<u32>().map(|n| n.to_string()).map_err(|_| invalid_value()),
            DefMemPerCpu | DefMemPerNode | MaxMemPerCpu | MaxMemPerNode => {
                v.parse::<u64>().map(|n| n.to_string()).map_err(|_| invalid_value())
            }
            MaxCpusPerNode | MaxCpusPerSocket if unlimited(v) => Ok("UNLIMITED".into()),
            MaxCpusPerNode | MaxCpusPerSocket => v.parse::<u32>().map(|n| n.to_string()).map_err(|_| invalid_value()),
            OverTimeLimit if unlimited(v) => Ok("UNLIMITED".into()),
            OverTimeLimit => v.parse::<u16>().map(|n| n.to_string()).map_err(|_| invalid_value()),
            CpuBind => cpu_bind_canonical(v).ok_or_else(|| vec![format!("Invalid input {}", arg)]),
            PreemptMode => match preempt_mode_canonical(v) {
                // 22.05's scontrol sends it (slurmctld ignores it)
                Some(m)
                    if m.split(',').any(|w| w == "GANG")
                        && crate::compat::release() != crate::compat::Release::V22_05 =>
                {
                    Err(vec!["PreemptMode=GANG is a cluster-wide option and cannot be set at partition level".into()])
                }
                Some(m) => Ok(m),
                None => Err(vec![format!("Invalid input: {}", arg)]),
            },
            _ => Ok(v.to_string()),
        }
    }
}

/// `CpuBind=` of a partition as slurmctld prints it (`off` for none), or
/// `None` for a value scontrol refuses (xlate_cpu_bind_str).
pub fn cpu_bind_canonical(v: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for w in v.split(',') {
        let name = match w.to_ascii_lowercase().as_str() {
            "no" | "none" | "off" => "off",
            "board" | "boards" => "boards",
            "ldom" | "ldoms" => "ldoms",
            "socket" | "sockets" => "sockets",
            "core" | "cores" => "cores",
            "thread" | "threads" => "threads",
            "verbose" | "v" => "verbose",
            _ => return None,
        };
        out.push(name);
    }
    // verbose is printed first (slurm_sprint_cpu_bind_type)
    out.sort_by_key(|w| *w != "verbose");
    Some(out.join(","))
}

/// `PreemptMode=` as slurmctld prints it (preempt_mode_string), or `None`
/// for an unknown word.
pub fn preempt_mode_canonical(v: &str) -> Option<String> {
    let mut base: Option<&str> = None;
    let mut gang = false;
    let mut within = false;
    for w in v.split(',') {
        match w.to_ascii_lowercase().as_str() {
            "gang" => gang = true,
            "within" => within = true,
            "off" => base = Some("OFF"),
            "cancel" => base = Some("CANCEL"),
            "requeue" => base = Some("REQUEUE"),
            "suspend" => base = Some("SUSPEND"),
            _ => return None,
        }
    }
    let mut out: Vec<&str> = vec![base.unwrap_or("OFF")];
    if gang {
        out.push("GANG");
    }
    if within {
        out.push("WITHIN");
    }
    Some(out.join(","))
}

/// A step to create inside a running job (`srun`'s `job_step_create`): the
/// controller lays it out on the job's nodes (`spur_state`'s step layout)
/// and answers with the step record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRequest {
    pub job_id: u32,
    pub name: String,
    /// `-N min[-max]`; `None`: as many as the tasks need (all of the job's
    /// nodes when no task count is given either).
    pub min_nodes: Option<u32>,
    pub max_nodes: Option<u32>,
    /// `-n`; `None`: one per node (or as the job's `SLURM_NTASKS` says, which
    /// srun passes here).
    pub num_tasks: Option<u32>,
    pub cpus_per_task: u32,
    pub ntasks_per_node: Option<u32>,
    /// `--nodelist`, `--exclude` as hostlist expressions; `--relative`.
    pub node_list: Option<String>,
    pub exclude: Option<String>,
    pub relative: Option<u32>,
    /// `--overlap`, `--exact`, `--exclusive`, `--overcommit`.
    pub overlap: bool,
    pub exact: bool,
    pub exclusive: bool,
    pub overcommit: bool,
    /// `--mem` (per node) / `--mem-per-cpu`, MB.
    pub mem_per_node: Option<u64>,
    pub mem_per_cpu: Option<u64>,
    /// `--time` in minutes.
    pub time_limit: Option<Minutes>,
    /// `block`, `cyclic`, `plane=N`, `arbitrary` (the first level only).
    pub distribution: String,
    pub srun_host: String,
    pub srun_pid: u32,
    pub submit_line: String,
    pub work_dir: String,
    pub mpi: String,
    /// srun's address as the controller sees it (filled in by the controller).
    #[serde(default)]
    pub srun_addr: String,
    /// `srun --interactive` (salloc's `LaunchParameters=use_interactive_step`):
    /// the job's `interactive` step, one task on its first node, sharing
    /// the job's CPUs with every other step (format version 5).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub interactive: bool,
    /// The caller's id for this request (random): a retry of a request whose
    /// reply was lost (a leader change) gets the step the first one made
    /// (format version 5).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub request_id: Option<String>,
    /// The ports steps may reserve (slurm.conf's `MpiParams=ports=LO-HI`),
    /// set by the leader from its own configuration, whatever srun sent
    /// (format version 6).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<6, _>")]
    pub resv_port_range: Option<(u16, u16)>,
}

/// `MpiParams=ports=LO-HI` (other parameters beside it, comma-separated,
/// are not Spur's concern): the range, if one is given and sound.
pub fn mpi_params_ports(mpi_params: &str) -> Option<(u16, u16)> {
    let v = mpi_params.split(',').find_map(|p| p.trim().strip_prefix("ports="))?;
    let (lo, hi) = v.split_once('-')?;
    let (lo, hi) = (lo.trim().parse::<u16>().ok()?, hi.trim().parse::<u16>().ok()?);
    (lo <= hi && lo > 0).then_some((lo, hi))
}
