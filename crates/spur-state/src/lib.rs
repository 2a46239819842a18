//! The controller's state machine: every change to jobs and nodes is a
//! [`Command`], applied by [`State::apply`] and nothing else. Commands are
//! deterministic (the leader fills in times and choices before logging them),
//! so replaying the log on a fresh state gives the same state back.
//!
//! **No command panics the state machine.** Every member applies the same
//! log, so a command that panicked one would panic all of them, again after
//! every restart: the whole cluster in a crash loop. A command that cannot
//! apply (an unknown job or node, an index out of range, a count or time that
//! overflows, no job id left) is an error result instead, a Slurm error
//! number recorded as that command's result in the log entry's reply, and it
//! changes nothing. `apply` dispatches each variant to its own function
//! ([`apply`](mod@apply): jobs, job control, nodes, partitions, reservations);
//! each checks everything that can fail before it changes anything, and does
//! its arithmetic checked. `tests/replicas.rs` applies random command
//! sequences to two replicas, one through a snapshot, and checks both.
//!
//! [`State`]'s fields are private: readers get accessors, and the controller
//! changes it outside the log only through the few methods that say so
//! (configuration at start, liveness from heartbeats).
//!
//! [`raft`] replicates and keeps the commands durable: openraft's log on disk
//! with a checksum on every record, fsynced before a change is acknowledged,
//! and snapshots that bound it. [`view`] serialises a query's answer straight
//! from the state, without copying or changing it.

pub mod acct;
mod apply;
pub mod legacy_v0;
pub mod raft;
pub mod view;

use serde::{Deserialize, Serialize};
use spur_core::model::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use apply::{step_layout, REQUEUE_DELAY};

/// One change to the cluster.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Command {
    /// Create a job (or an array meta-record) from a validated submission.
    Submit {
        job: Box<Job>,
    },
    /// Start a job (or split task `task` off an array meta-record and start it).
    Start {
        job_id: u32,
        task: Option<u32>,
        allocs: Vec<NodeAlloc>,
        now: i64,
        /// Milliseconds of the pass that decided the start (`Job::start_pass_ms`).
        #[serde(default)]
        pass_ms: i64,
        /// The job gets an `extern` step on each of its nodes
        /// (`PrologFlags=Contain`); format version 5.
        #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
        extern_step: bool,
        /// The backfill phase started it ([`Job::sched_backfill`]); format
        /// version 8.
        #[serde(default, skip_serializing_if = "spur_format::skip_before::<8, _>")]
        backfill: bool,
    },
    /// Pending reasons changed.
    Reasons {
        changes: Vec<(u32, Reason)>,
    },
    /// The batch script ended (wait status), or its launch failed.
    Complete {
        job_id: u32,
        exit_status: i32,
        launch_failed: bool,
        now: i64,
    },
    /// Cancel or time out a job: pending jobs end at once, running ones go
    /// COMPLETING until their node reports back.
    Kill {
        job_id: u32,
        task: Option<u32>,
        state: JobState,
        now: i64,
        /// Who asked (`scancel`'s caller; `None`: the controller itself, a
        /// time limit or a failure), kept as `Job::cancelled_by`. Format
        /// version 7.
        #[serde(default, skip_serializing_if = "spur_format::skip_before::<7, _>")]
        uid: Option<u32>,
    },
    Hold {
        job_id: u32,
        reason: Reason,
    },
    Release {
        job_id: u32,
    },
    Requeue {
        job_id: u32,
        hold: bool,
        now: i64,
    },
    UpdateJob {
        job_id: u32,
        update: Box<JobUpdate>,
    },
    NodeRegistered {
        name: String,
        reg: NodeReg,
        now: i64,
    },
    NodeHeartbeat {
        name: String,
        cpu_load: u32,
        free_mem: u64,
        now: i64,
    },
    NodeNotResponding {
        name: String,
        now: i64,
    },
    NodeDown {
        name: String,
        reason: String,
        uid: u32,
        now: i64,
    },
    NodeUpdate {
        name: String,
        update: NodeUpdate,
        uid: u32,
        now: i64,
    },
    Purge {
        job_ids: Vec<u32>,
    },
    /// Jobs that became eligible to run (no hold, dependencies satisfied).
    Eligible {
        job_ids: Vec<u32>,
        now: i64,
    },
    /// A submission rejected after slurmctld had created its job record: the
    /// id it took is gone (`recorded/24.11/job_ids`).
    ConsumeJobId,
    /// `--kill-on-invalid-dep=yes` and a dependency that can never be
    /// satisfied: the pending job ends CANCELLED and keeps its reason
    /// `DependencyNeverSatisfied` (start and end time are now, as slurmctld
    /// sets them when it kills a dependant).
    CancelNeverSatisfied {
        job_id: u32,
        now: i64,
    },
    /// `scontrol suspend`/`resume`: the job's CPUs are free while it is stopped.
    Suspend {
        job_id: u32,
        now: i64,
        /// The scheduler suspended it to preempt it
        /// ([`Job::preempt_suspended`]); format version 9.
        #[serde(default, skip_serializing_if = "spur_format::skip_before::<9, _>")]
        preempted: bool,
    },
    Resume {
        job_id: u32,
        now: i64,
    },
    /// `scontrol update PartitionName=…`.
    PartitionUpdate {
        name: String,
        update: PartUpdate,
    },
    /// A submission rejected after slurmctld had also given it a priority
    /// (priority/basic: the next job's priority is one lower; 22.05's
    /// rejections by node configuration or count). Nothing without priority/basic.
    ConsumeBasicPriority,
    /// `scontrol create reservation` (the leader has resolved times and nodes).
    ResvCreate {
        resv: Reservation,
    },
    /// `scontrol update reservation`: the whole new record.
    ResvUpdate {
        resv: Reservation,
    },
    ResvDelete {
        name: String,
    },
    /// The cluster's active format version (`spur_format`): every member
    /// writes its records at this version from here on. Committed by the
    /// leader once every member reports that it reads it; never lowered.
    /// Since format version 1.
    SetFormatVersion {
        version: u16,
    },
    /// `scancel` of pending tasks of an array's meta-record (`4_[2-3]`):
    /// they leave the record, as slurmctld takes them out of its task bitmap
    /// (no record of their own); a record left with none ends CANCELLED.
    /// Since format version 3, and written only from then on (before, each
    /// task was a `Kill` that split it off as an ended record of its own).
    CancelPendingTasks {
        job_id: u32,
        tasks: Vec<u32>,
        now: i64,
    },
    /// An update, hold or release naming some, not all, of the pending tasks
    /// of an array's meta-record (`scontrol update JobId=12_3`): each is first
    /// split off as a pending record of its own, which the change then acts
    /// on (slurmctld's `update_job_str`, `job_array_split`). The answer is
    /// `Applied::Submitted` with the new record's id. Since format version 3.
    SplitPendingTask {
        job_id: u32,
        task: u32,
    },
    /// `srun`: a step in a running job, laid out on the job's nodes from
    /// what its other steps leave free (`apply::steps`). The answer is
    /// `Applied::StepCreated` with the step's number. Since format version 4.
    StepCreate {
        req: Box<spur_core::request::StepRequest>,
        now: i64,
    },
    /// A step ended (srun reported its tasks' end, or its step daemons
    /// did): its CPUs and memory are free for the job's next steps. Since
    /// format version 4.
    StepComplete {
        job_id: u32,
        step_id: u32,
        /// The step's exit status, the highest raw wait status of its tasks
        /// (`None`: not known, the step never started); format version 5.
        #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
        exit_status: Option<i32>,
        /// When it ended; format version 5.
        #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
        now: i64,
    },
    /// What a step's tasks used on one node (its step daemon's report when
    /// its part ended), kept in the step's record, running or ended. Since
    /// format version 5.
    StepUsage {
        job_id: u32,
        step_id: u32,
        usage: Box<spur_core::usage::NodeUsage>,
    },
    /// `sacctmgr add qos`: new records (the leader gave their ids). Since
    /// format version 11.
    QosCreate {
        qos: Vec<spur_core::qos::Qos>,
    },
    /// `sacctmgr modify qos`: the whole new records. Since format version 11.
    QosUpdate {
        qos: Vec<spur_core::qos::Qos>,
    },
    /// `sacctmgr delete qos`: they go, and leave the preempt lists of the
    /// others. Since format version 11.
    QosDelete {
        names: Vec<String>,
    },
    /// `sacctmgr add|modify account|user`: accounts, users and user
    /// associations added or replaced (an association keeps its usage).
    /// Since format version 12.
    AssocPut {
        accounts: Vec<spur_core::assoc::Account>,
        users: Vec<spur_core::assoc::User>,
        links: Vec<spur_core::assoc::Link>,
    },
    /// `sacctmgr delete account|user`: accounts, users (each with its
    /// associations) and associations (user, account) removed. Since format
    /// version 12.
    AssocDelete {
        accounts: Vec<String>,
        users: Vec<String>,
        links: Vec<(String, String)>,
    },
}

/// The format version from which steps (`Command::StepCreate`,
/// `StepComplete`, `Job::steps`) are written.
pub const STEPS_VERSION: u16 = 4;

/// The format version from which a job's `extern` step (`Command::Start`'s
/// `extern_step`) and `srun --interactive`'s step (`StepRequest::interactive`)
/// are written.
pub const SPECIAL_STEPS_VERSION: u16 = 5;

/// The format version from which a `StepCreate` with the `arbitrary`
/// distribution lays its tasks out in its node list's order
/// (`apply::steps::layout`); before it, such a step is laid out by block.
pub const ARBITRARY_VERSION: u16 = 5;

/// The format version from which a step's usage (`Command::StepUsage`,
/// `Step::usage`, `Job::done_steps`) is written.
pub const STEP_USAGE_VERSION: u16 = 5;

/// The format version from which a step's reserved ports
/// (`StepRequest::resv_port_range`, `Step::resv_ports`: `MpiParams=ports=`)
/// are written.
pub const RESV_PORTS_VERSION: u16 = 6;

/// The format version from which a job records that the backfill scheduler
/// started it (`Job::sched_backfill`, `Command::Start::backfill`).
pub const SCHED_BACKFILL_VERSION: u16 = 8;

/// The format version from which a job records that preemption suspended
/// it (`Job::preempt_suspended`, `Command::Suspend::preempted`).
pub const PREEMPT_SUSPEND_VERSION: u16 = 9;

/// The format version from which an operator's `Priority=` stays
/// (`JobUpdate::by_operator`: slurmctld's `direct_set_prio`, kept in the
/// job's `desc.priority` as `sbatch --priority` keeps it; a release drops
/// it, and priority/multifactor sets the job's priority again).
pub const DIRECT_PRIORITY_VERSION: u16 = 10;

/// The format version from which QOS records (`State::qos`,
/// `Command::QosCreate`, `QosUpdate`, `QosDelete`) are written.
pub const QOS_VERSION: u16 = 11;

/// The format version from which accounts, users and associations
/// (`State::assocs`, `Command::AssocPut`, `AssocDelete`) are written, and a
/// job that stops running charges its association its usage.
pub const ASSOC_VERSION: u16 = 12;

/// The format version from which an association's limits and priority
/// (`spur_core::assoc_limits::Limits`) are written: before it, a change
/// that sets one is refused (`ESLURM_NOT_SUPPORTED`) by the leader.
pub const ASSOC_LIMITS_VERSION: u16 = 13;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PartUpdate {
    /// `Some(None)` = UNLIMITED.
    pub max_time: Option<Option<Minutes>>,
    pub default_time: Option<Option<Minutes>>,
    pub max_nodes: Option<Option<u32>>,
    pub min_nodes: Option<u32>,
    pub state: Option<PartState>,
    pub default: Option<bool>,
    pub hidden: Option<bool>,
    pub priority_tier: Option<u32>,
    pub priority_job_factor: Option<u32>,
    pub oversubscribe: Option<String>,
    /// The other keys, in order (`spur_core::model::Partition::set_keys`).
    /// From format version 3.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub settings: Vec<(spur_core::request::PartKey, String)>,
}

impl PartUpdate {
    /// The oldest format version that carries every change this update
    /// makes (as [`JobUpdate::min_format_version`]).
    pub fn min_format_version(&self) -> u16 {
        if self.settings.is_empty() {
            spur_format::MIN_VERSION
        } else {
            3
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobUpdate {
    pub time_limit: Option<Option<Minutes>>,
    pub name: Option<String>,
    pub partition: Option<String>,
    pub priority: Option<u32>,
    pub nice: Option<i32>,
    pub comment: Option<String>,
    pub begin_time: Option<i64>,
    pub num_nodes: Option<u32>,
    pub num_tasks: Option<u32>,
    pub dependency: Option<String>,
    #[serde(default)]
    pub time_min: Option<u32>,
    /// `MinMemoryNode=` / `MinMemoryCPU=` in MB.
    #[serde(default)]
    pub mem_per_node: Option<u64>,
    #[serde(default)]
    pub mem_per_cpu: Option<u64>,
    /// `ExcNodeList=`, `ReqNodeList=`, `Features=` (`Some(None)` clears).
    #[serde(default)]
    pub exc_nodes: Option<Option<String>>,
    #[serde(default)]
    pub req_nodes: Option<Option<String>>,
    #[serde(default)]
    pub features: Option<Option<String>>,
    #[serde(default)]
    pub work_dir: Option<String>,
    #[serde(default)]
    pub requeue: Option<bool>,
    #[serde(default)]
    pub std_out: Option<String>,
    #[serde(default)]
    pub std_err: Option<String>,
    #[serde(default)]
    pub std_in: Option<String>,
    /// slurmctld makes this update but refuses it (a pending job beyond its
    /// partition): the request's TRES are not counted again.
    #[serde(default)]
    pub refused: bool,
    /// `ArrayTaskThrottle=` for every record of the array (0 = no limit).
    /// From format version 3 (a member of an older build reads this
    /// struct with one field fewer).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub array_throttle: Option<u32>,
    /// `AdminComment=`. The fields from here on are from format version 3.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub admin_comment: Option<String>,
    /// `Extra=` (kept with the job's accepted options).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub extra: Option<String>,
    /// `MinCPUsNode=` (the request's `--mincpus`).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub min_cpus_node: Option<u32>,
    /// `CPUsPerTask=`.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub cpus_per_task: Option<u32>,
    /// The CPUs the pending job asks for, as slurmctld recounts them.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub num_cpus: Option<u32>,
    /// `TasksPerNode=`.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub ntasks_per_node: Option<u32>,
    /// `MinTmpDiskNode=` in MB.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub tmp_disk: Option<u64>,
    /// `ReqSockets=`, `ReqCores=`, `ReqThreads=`.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub sockets_per_node: Option<u32>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub cores_per_socket: Option<u32>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub threads_per_core: Option<u32>,
    /// `Prefer=`, `ReservationName=` (empty clears).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub prefer: Option<String>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub reservation: Option<String>,
    /// `WCKey=`.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub wckey: Option<String>,
    /// `Deadline=`, epoch seconds.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub deadline: Option<i64>,
    /// `Contiguous=`, `OverSubscribe=` (true: YES, false: NO).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub contiguous: Option<bool>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub shared: Option<bool>,
    /// `MailType=`, `MailUser=`.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub mail_type: Option<String>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub mail_user: Option<String>,
    /// `Switches=N[@WAIT]`, `Reboot=`, `DelayBoot=` (seconds).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub switches: Option<String>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub reboot: Option<bool>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub delay_boot: Option<u32>,
    /// An operator's `Priority=`: the nice value goes back to 0.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub reset_nice: bool,
    /// The priority was set by an operator: it stays until the job is
    /// released (format version 10, [`DIRECT_PRIORITY_VERSION`]).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<10, _>")]
    pub by_operator: bool,
    /// `QOS=`: the QOS the pending job runs in from now on (empty: the
    /// default, `normal`); format version 11 ([`QOS_VERSION`]).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<11, _>")]
    pub qos: Option<String>,
}

impl JobUpdate {
    /// Whether the update sets the priority and nothing else.
    pub fn priority_only(&self) -> bool {
        self.priority.is_some() && *self == JobUpdate { priority: self.priority, ..Default::default() }
    }
}

impl JobUpdate {
    /// The oldest format version that carries every change this update
    /// makes: the controller refuses it while the cluster writes an older
    /// one, rather than log it without the newer fields.
    pub fn min_format_version(&self) -> u16 {
        if self.qos.is_some() {
            return QOS_VERSION;
        }
        if self.by_operator {
            return DIRECT_PRIORITY_VERSION;
        }
        if self.array_throttle.is_some()
            || self.admin_comment.is_some()
            || self.extra.is_some()
            || self.min_cpus_node.is_some()
            || self.cpus_per_task.is_some()
            || self.num_cpus.is_some()
            || self.ntasks_per_node.is_some()
            || self.tmp_disk.is_some()
            || self.sockets_per_node.is_some()
            || self.cores_per_socket.is_some()
            || self.threads_per_core.is_some()
            || self.prefer.is_some()
            || self.reservation.is_some()
            || self.wckey.is_some()
            || self.deadline.is_some()
            || self.contiguous.is_some()
            || self.shared.is_some()
            || self.mail_type.is_some()
            || self.mail_user.is_some()
            || self.switches.is_some()
            || self.reboot.is_some()
            || self.delay_boot.is_some()
            || self.reset_nice
        {
            3
        } else {
            spur_format::MIN_VERSION
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NodeReg {
    pub cpus: u32,
    pub real_memory: u64,
    pub boot_time: i64,
    pub start_time: i64,
    pub os: String,
    pub arch: String,
    pub version: String,
    pub running_jobs: Vec<u32>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NodeUpdate {
    /// `State=` as given: idle, resume, drain, down, undrain, fail.
    pub state: Option<String>,
    pub reason: Option<String>,
    pub weight: Option<u32>,
    pub features: Option<Vec<String>>,
    /// The fields below are from format version 3 ([`NodeUpdate::min_format_version`]):
    /// a member of an older build reads this struct without them.
    ///
    /// `state` "fail" sets Slurm's FAIL flag (before: "fail" drained the node).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub fail_flag: bool,
    /// `Comment=`, `Extra=` (empty: cleared).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub comment: Option<String>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub extra: Option<String>,
    /// `CpuBind=` bits (`off`: 0, cleared).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub cpu_bind: Option<u32>,
    /// `Gres=` on a node without configured GRES: shown, not scheduled.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub gres_text: Option<String>,
    /// `ResumeAfter=`: the epoch second the node resumes (0: never).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub resume_after: Option<i64>,
    /// `NodeAddr=`, `NodeHostname=` of this node.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub addr: Option<String>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub hostname: Option<String>,
}

impl NodeUpdate {
    /// The oldest format version that carries every change this update
    /// makes (as [`JobUpdate::min_format_version`]).
    pub fn min_format_version(&self) -> u16 {
        let newer = self.fail_flag
            || self.comment.is_some()
            || self.extra.is_some()
            || self.cpu_bind.is_some()
            || self.gres_text.is_some()
            || self.resume_after.is_some()
            || self.addr.is_some()
            || self.hostname.is_some();
        if newer {
            3
        } else {
            spur_format::MIN_VERSION
        }
    }
}

/// What an applied command produced, for the RPC reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Applied {
    Ok,
    Submitted(u32),
    Started(u32),
    /// A job reached a final state (its node(s) are free again).
    Ended(u32),
    /// A step was created with this number.
    StepCreated(u32),
}

/// Why a command did not apply: a Slurm error number
/// (`spur_core::errors`), which the RPC answer carries to the user. The
/// command changed nothing.
pub type ApplyError = i32;

/// One command's result, as the log entry's reply records it.
pub type ApplyResult = Result<Applied, ApplyError>;

/// The replicated state. Serialised ([`State::encode_at`]: MessagePack in a
/// `spur_format` envelope) it is the snapshot; every map is ordered, so two
/// members with the same state write the same bytes. The indexes marked
/// `skip` are derived and rebuilt by [`State::decode`].
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    cluster_name: String,
    nodes: Vec<Node>,
    partitions: Vec<Partition>,
    /// (From format version 3 an array's script and environment are written
    /// once: [`jobs_at_version`].)
    #[serde(serialize_with = "jobs_at_version")]
    jobs: BTreeMap<u32, Job>,
    next_job_id: u32,
    first_job_id: u32,
    max_job_id: u32,
    /// Index of the last log entry applied (the log's numbering).
    applied: u64,
    /// Client request ids already seen, for idempotent submission.
    request_ids: BTreeMap<String, u32>,
    /// slurmctld's job list order: new records are appended; when an array task
    /// splits off its meta-record, the task keeps the record's place and the
    /// meta-record moves to the end. Position key -> job id.
    job_order: BTreeMap<u64, u32>,
    /// Job id -> position key in `job_order`.
    job_pos: BTreeMap<u32, u64>,
    next_pos: u64,
    /// PriorityType=priority/basic (set by the controller from slurm.conf, or
    /// from the imitated release's default when the key is absent): a job
    /// that gets a priority takes one less than the lowest given so far.
    #[serde(default)]
    priority_basic: bool,
    /// The lowest priority/basic priority given so far (0: none yet).
    #[serde(default)]
    lowest_prio: u32,
    /// Behave as Slurm 22.05's slurmctld where it differs from 24.11 (set by
    /// the controller from spur_core::compat, like `priority_basic`).
    #[serde(default)]
    slurm_22_05: bool,
    /// Reservations in creation order.
    #[serde(default)]
    reservations: Vec<Reservation>,
    /// slurmctld's `top_suffix`: the last reservation id given (names `user_N`).
    #[serde(default)]
    resv_top: u32,
    /// The cluster's active format version (`Command::SetFormatVersion`); 0
    /// until its members first agreed on one (a new cluster, or one whose
    /// state was written before versioned formats): they write
    /// `spur_format::MIN_VERSION` meanwhile. Since format version 1.
    #[serde(default)]
    format_version: u16,
    /// The QOS records (`None`: none changed yet, the cluster has
    /// [`spur_core::qos::Qos::normal`] alone). Format version 11.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<11, _>")]
    qos: Option<Vec<spur_core::qos::Qos>>,
    /// The accounts, users and associations, with their usage (`None`:
    /// none changed yet, the cluster has [`spur_core::assoc::Assocs`]'s
    /// default, `root`). Format version 12.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<12, _>")]
    assocs: Option<spur_core::assoc::Assocs>,
    /// `PriorityDecayHalfLife` in seconds, set by the controller from
    /// slurm.conf (like `priority_basic`): how a job's usage decays when it
    /// is charged. Not part of the replicated state (0, no decay, until
    /// set); kept by a member when it installs a snapshot.
    #[serde(skip)]
    half_life: i64,
    /// Ids of the jobs not yet finished, kept by every command that starts,
    /// ends, splits, requeues or purges a job, so that a scheduling pass
    /// costs what the queue holds, not every finished job still remembered.
    /// Not part of the replicated state: `None` until built from `jobs`
    /// (after a decode), and then read as a scan of `jobs`.
    #[serde(skip)]
    queue: Option<BTreeSet<u32>>,
    /// Index of nodes by name.
    #[serde(skip)]
    node_index: HashMap<String, usize>,
    /// slurm.conf's MaxJobCount (`None`: no limit), set by the controller
    /// at start ([`State::set_max_job_count`]) and kept by a member when it
    /// installs a snapshot. Read only by the leader's check before it commits
    /// a submission ([`State::admits`]), never by an apply: a member's own
    /// setting (slurm.conf changed on one controller before the others) must
    /// not make replicas apply the same command differently.
    #[serde(skip)]
    max_job_count: Option<u32>,
    /// slurmctld's `job_count`: the job records held, an array meta-record
    /// counting one per task not yet split off ([`job_records`]). Derived:
    /// kept by submit, start, kill and purge, rebuilt by [`State::decode`].
    #[serde(skip)]
    job_count: u64,
    /// The records of each array (its meta-record and its split-off tasks)
    /// by array job id: a reference to an array or one of its tasks costs
    /// that array's records, not every job's (the controller resolves them
    /// under the state lock). Derived: kept by submit, split and purge,
    /// rebuilt by [`State::decode`].
    #[serde(skip)]
    arrays: BTreeMap<u32, BTreeSet<u32>>,
    /// The unfinished jobs' records (an array's pending tasks each) by
    /// [`QueueKey`], and what each job adds: what the submit limits of a
    /// QOS or an association count, at the cost of the distinct keys, not
    /// of the queue. Derived: kept with the queue index ([`State::sync_queue`]
    /// and after a command that changes a job's QOS, account or tasks),
    /// rebuilt by [`State::decode`]; `None` until built.
    #[serde(skip)]
    queued: Option<QueueCounts>,
}

/// What the submit limits tell jobs apart by: the QOS the job names
/// (lower-case; `normal` when it names none), its user id and its account.
pub type QueueKey = (String, u32, String);

/// The unfinished job records by [`QueueKey`], and each job's key and count.
#[derive(Clone, Debug, Default)]
pub struct QueueCounts {
    pub by_key: HashMap<QueueKey, u32>,
    by_job: HashMap<u32, (QueueKey, u32)>,
}

impl QueueCounts {
    fn of(j: &Job) -> (QueueKey, u32) {
        let qos = j.desc.qos.as_deref().unwrap_or("normal").to_ascii_lowercase();
        ((qos, j.user_id, j.desc.account.clone().unwrap_or_default()), job_records(j) as u32)
    }

    /// Job `id` is now `job` (`None`: finished or gone).
    fn set(&mut self, id: u32, job: Option<&Job>) {
        if let Some((k, n)) = self.by_job.remove(&id) {
            if let Some(c) = self.by_key.get_mut(&k) {
                *c = c.saturating_sub(n);
                if *c == 0 {
                    self.by_key.remove(&k);
                }
            }
        }
        if let Some(j) = job.filter(|j| !j.state.is_finished()) {
            let (k, n) = Self::of(j);
            *self.by_key.entry(k.clone()).or_default() += n;
            self.by_job.insert(id, (k, n));
        }
    }
}

/// The format version from which a state writes an array's description
/// (script and environment) once.
pub const SHARED_DESC_VERSION: u16 = 3;

/// The format version from which a cancel of an array's pending tasks is
/// [`Command::CancelPendingTasks`] (before: a `Kill` per task).
pub const CANCEL_PENDING_TASKS_VERSION: u16 = 3;

/// The format version from which [`Command::SplitPendingTask`] is written.
pub const SPLIT_PENDING_TASK_VERSION: u16 = 3;

/// The jobs as a state writes them: from format version 3
/// ([`SHARED_DESC_VERSION`]), the records of an array after its first (in id
/// order) with an empty script and environment, which they share with the
/// first in memory and take from it when read ([`State::share_array_descs`]):
/// a 4 MB script in a 1,000-task array is written once, not 1,000 times.
/// Before version 3, every record whole.
fn jobs_at_version<S: serde::Serializer>(jobs: &BTreeMap<u32, Job>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    if spur_format::write_version() < SHARED_DESC_VERSION {
        return jobs.serialize(s);
    }
    let mut arrays = BTreeSet::new();
    let mut m = s.serialize_map(Some(jobs.len()))?;
    for (id, j) in jobs {
        match &j.array {
            Some(a) if !arrays.insert(a.array_job_id) => {
                m.serialize_entry(id, &view::Lean { job: j, script: false })?
            }
            _ => m.serialize_entry(id, j)?,
        }
    }
    m.end()
}

/// How many of slurmctld's `job_count` a record is: an array meta-record
/// counts once per task it still holds (job_mgr.c: a new array adds its task
/// count, a split-off task moves one of them to its own record), any other
/// record once.
pub(crate) fn job_records(j: &Job) -> u64 {
    j.array.as_ref().map(|a| a.pending_tasks.len().max(1) as u64).unwrap_or(1)
}

impl State {
    pub fn new(
        cluster_name: String,
        nodes: Vec<Node>,
        partitions: Vec<Partition>,
        first_job_id: u32,
        max_job_id: u32,
    ) -> State {
        let mut s = State {
            cluster_name,
            nodes,
            partitions,
            next_job_id: first_job_id.max(1),
            first_job_id: first_job_id.max(1),
            max_job_id,
            ..Default::default()
        };
        s.reindex();
        s
    }

    /// The state as a snapshot holds it, written at format `version`.
    pub fn encode_at(&self, version: u16) -> Result<Vec<u8>, spur_format::FormatError> {
        raft::encode_state(self, version)
    }

    /// The state as a snapshot holds it, at the newest version this build writes.
    pub fn encode(&self) -> Result<Vec<u8>, spur_format::FormatError> {
        self.encode_at(spur_format::FORMAT_VERSION)
    }

    /// A state from a snapshot's bytes (any format version this build reads,
    /// 0 included), its indexes rebuilt.
    pub fn decode(bytes: &[u8]) -> Result<State, String> {
        raft::decode_state(bytes, &"state").map(|(s, _)| s)
    }

    /// The cluster's active format version as committed (0: not yet agreed).
    pub fn format_version(&self) -> u16 {
        self.format_version
    }

    /// The version this cluster's records are written at: the active one, or
    /// the oldest this build writes while none was agreed.
    pub fn write_format_version(&self) -> u16 {
        self.format_version.max(spur_format::MIN_VERSION)
    }

    /// The records of each array share one script and environment in
    /// memory (a split-off task is a copy of its meta-record, which shares
    /// them): after a decode, each array's later records (in id order) take
    /// the first's when theirs are empty (written so from format version 3,
    /// [`jobs_at_version`]) or equal to it (each record whole, before).
    /// No command changes a job's script or environment, so an array's
    /// records always hold the same ones.
    fn share_array_descs(&mut self) {
        type Desc = (Shared<String>, Shared<Vec<(String, String)>>);
        let mut first: HashMap<u32, Desc> = HashMap::new();
        for j in self.jobs.values_mut() {
            let Some(a) = &j.array else { continue };
            match first.get(&a.array_job_id) {
                None => {
                    first.insert(a.array_job_id, (j.desc.script.clone(), j.desc.env.clone()));
                }
                Some((script, env)) => {
                    let empty = j.desc.script.is_empty() && j.desc.env.is_empty();
                    if empty || (j.desc.script == *script && j.desc.env == *env) {
                        j.desc.script = script.clone();
                        j.desc.env = env.clone();
                    }
                }
            }
        }
    }

    /// Rebuild the derived indexes (node names, the queue, and the job list
    /// order of an older snapshot that lacks it).
    fn reindex(&mut self) {
        self.node_index = self.nodes.iter().enumerate().map(|(i, n)| (n.name.clone(), i)).collect();
        // a state whose list order does not cover exactly its jobs (older snapshot):
        // rebuild it in id order
        if self.job_pos.len() != self.jobs.len()
            || self.job_order.len() != self.jobs.len()
            || !self.jobs.keys().all(|id| self.job_pos.contains_key(id))
        {
            self.job_order.clear();
            self.job_pos.clear();
            self.next_pos = 0;
            let ids: Vec<u32> = self.jobs.keys().copied().collect();
            for id in ids {
                self.list_append(id);
            }
        }
        self.queue = Some(self.jobs.values().filter(|j| !j.state.is_finished()).map(|j| j.job_id).collect());
        let mut counts = QueueCounts::default();
        for (id, j) in &self.jobs {
            counts.set(*id, Some(j));
        }
        self.queued = Some(counts);
        self.job_count = self.jobs.values().map(job_records).sum();
        self.arrays.clear();
        for j in self.jobs.values() {
            if let Some(a) = &j.array {
                self.arrays.entry(a.array_job_id).or_default().insert(j.job_id);
            }
        }
    }

    /// Keep [`State::arrays`] for record `id`, just inserted (`present`) or
    /// about to be removed.
    pub(crate) fn index_array(&mut self, id: u32, present: bool) {
        let Some(a) = self.jobs.get(&id).and_then(|j| j.array.as_ref()).map(|a| a.array_job_id) else { return };
        if present {
            self.arrays.entry(a).or_default().insert(id);
        } else if let Some(set) = self.arrays.get_mut(&a) {
            set.remove(&id);
            if set.is_empty() {
                self.arrays.remove(&a);
            }
        }
    }

    // ------------------------------------------------------------------------- set outside the log

    /// Configuration is authoritative for the cluster's name, nodes and
    /// partitions: the controller sets them at start (before any command is
    /// applied), keeping what it recovered of each node.
    pub fn set_config(&mut self, cluster_name: String, nodes: Vec<Node>, partitions: Vec<Partition>) {
        self.cluster_name = cluster_name;
        self.nodes = nodes;
        self.partitions = partitions;
        self.reindex();
    }

    /// MaxJobCount from slurm.conf (`None`: no limit), set by the controller
    /// at start: a submission that would bring the job records held
    /// ([`State::job_count`]) to it is refused with `EAGAIN`.
    pub fn set_max_job_count(&mut self, max: Option<u32>) {
        self.max_job_count = max;
    }

    /// The MaxJobCount this member applies submissions against.
    pub fn max_job_count(&self) -> Option<u32> {
        self.max_job_count
    }

    /// The job records held as slurmctld counts them against MaxJobCount:
    /// every record, finished ones not yet purged included, an array's
    /// meta-record once per task it still holds.
    pub fn job_count(&self) -> u64 {
        self.job_count
    }

    /// What a member keeps of its own when it installs a snapshot: the
    /// settings read from its slurm.conf that are not part of the
    /// replicated state (MaxJobCount).
    pub fn keep_local_settings(&mut self, from: &State) {
        self.max_job_count = from.max_job_count;
        self.half_life = from.half_life;
    }

    /// `PriorityDecayHalfLife` in seconds, set by the controller at start.
    pub fn set_half_life(&mut self, secs: i64) {
        self.half_life = secs;
    }

    /// PriorityType=priority/basic, set by the controller at start.
    pub fn set_priority_basic(&mut self, on: bool) {
        self.priority_basic = on;
    }

    /// The Slurm release whose slurmctld this imitates, set by the controller
    /// at start (kept in the state as the one bool of the releases so far:
    /// a third release is a new field, with the format's rules).
    pub fn set_release(&mut self, r: spur_core::compat::Release) {
        self.slurm_22_05 = r == spur_core::compat::Release::V22_05;
    }

    /// A heartbeat from a node's agent: liveness is soft state, refreshed by
    /// every heartbeat and not logged (the same change as
    /// [`Command::NodeHeartbeat`]). False for an unknown node.
    pub fn heard_from(&mut self, name: &str, cpu_load: u32, free_mem: u64, now: i64) -> bool {
        self.node_heartbeat(name, cpu_load, free_mem, now).is_ok()
    }

    /// A new leader starts every node's SlurmdTimeout afresh (their
    /// heartbeats went to the old leader): every node heard from before, or
    /// not down, counts as heard from now.
    pub fn restart_liveness(&mut self, now: i64) {
        for n in self.nodes.iter_mut() {
            if n.last_heard > 0 || n.base != NodeBase::Down {
                n.last_heard = now;
            }
        }
    }

    // ------------------------------------------------------------------------- reads

    pub fn cluster_name(&self) -> &str {
        &self.cluster_name
    }
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    pub fn partitions(&self) -> &[Partition] {
        &self.partitions
    }
    /// Every job remembered, by id (finished ones until they are purged).
    pub fn jobs(&self) -> &BTreeMap<u32, Job> {
        &self.jobs
    }
    pub fn job(&self, id: u32) -> Option<&Job> {
        self.jobs.get(&id)
    }
    /// Reservations in creation order.
    pub fn reservations(&self) -> &[Reservation] {
        &self.reservations
    }
    /// The last reservation number given (a generated name is `key_N+1`).
    pub fn resv_top(&self) -> u32 {
        self.resv_top
    }
    /// The index of the last log entry applied.
    pub fn applied(&self) -> u64 {
        self.applied
    }
    /// Where the search for the next job id starts.
    pub fn next_job_id(&self) -> u32 {
        self.next_job_id
    }
    pub fn priority_basic(&self) -> bool {
        self.priority_basic
    }
    /// The behaviours of the release this state machine imitates.
    pub fn profile(&self) -> &'static spur_core::compat::Profile {
        if self.slurm_22_05 {
            &spur_core::compat::SLURM_22_05
        } else {
            &spur_core::compat::SLURM_24_11
        }
    }
    /// The lowest priority/basic priority given so far (0: none yet).
    pub fn lowest_prio(&self) -> u32 {
        self.lowest_prio
    }

    pub fn node(&self, name: &str) -> Option<&Node> {
        self.node_index.get(name).and_then(|&i| self.nodes.get(i))
    }
    pub fn partition(&self, name: &str) -> Option<&Partition> {
        self.partitions.iter().find(|p| p.name == name)
    }
    pub fn default_partition(&self) -> Option<&Partition> {
        self.partitions.iter().find(|p| p.default)
    }

    /// The ids of the jobs not yet finished (pending, running, suspended,
    /// completing), in id order.
    pub fn queue_ids(&self) -> Vec<u32> {
        match &self.queue {
            Some(q) => q.iter().copied().collect(),
            None => self.jobs.values().filter(|j| !j.state.is_finished()).map(|j| j.job_id).collect(),
        }
    }

    /// The unfinished jobs' ids in slurmctld's job list order (what squeue
    /// lists by default): costs what the queue holds, not every job kept.
    pub fn queue_in_order(&self) -> Vec<u32> {
        let mut ids = self.queue_ids();
        ids.sort_by_key(|id| self.job_pos.get(id).copied().unwrap_or(u64::MAX));
        ids
    }

    /// Jobs in slurmctld's job list order.
    /// The records of array `array_job_id` (its meta-record and its
    /// split-off tasks), in id order: what that array's records are, at the
    /// cost of their number.
    pub fn array_records(&self, array_job_id: u32) -> impl Iterator<Item = &Job> + '_ {
        self.arrays.get(&array_job_id).into_iter().flatten().filter_map(move |id| self.jobs.get(id))
    }

    /// The record holding task `task` of array `array_job_id`: the first in
    /// id order that is that task's own record, or the meta-record while the
    /// task is pending in it (then with the task to split off).
    pub fn array_task(&self, array_job_id: u32, task: u32) -> Option<(u32, Option<u32>)> {
        self.array_records(array_job_id).find_map(|j| {
            let a = j.array.as_ref()?;
            if a.task_id == Some(task) {
                Some((j.job_id, None))
            } else if a.task_id.is_none() && a.pending_tasks.contains(&task) {
                Some((j.job_id, Some(task)))
            } else {
                None
            }
        })
    }

    pub fn jobs_in_order(&self) -> impl Iterator<Item = &Job> + '_ {
        self.job_order.values().filter_map(move |id| self.jobs.get(id))
    }

    /// The view the commands get.
    pub fn view(&self, now: i64) -> ClusterView {
        ClusterView {
            cluster_name: self.cluster_name.clone(),
            now,
            jobs: self.jobs_in_order().cloned().collect(),
            nodes: self.nodes_with_resv_flags(now),
            partitions: self.partitions.clone(),
            reservations: self.reservations.clone(),
            qos: self.qos().into_owned(),
            assocs: Some(self.assocs().into_owned()),
            plans: Default::default(),
            fair_share: Default::default(),
        }
    }

    /// The nodes with the `RESERVED`/`MAINT` flags of the reservations active at `now`.
    pub fn nodes_with_resv_flags(&self, now: i64) -> Vec<Node> {
        let mut nodes = self.nodes.clone();
        // jobs sharing CPUs (partition OverSubscribe) hold more than the
        // node has; slurmctld counts each CPU once (they take idle ones
        // first): CPUAlloc=8 on an 8-CPU node with two 8-CPU jobs
        for n in nodes.iter_mut() {
            n.alloc_cpus = n.alloc_cpus.min(n.cpus);
        }
        for r in self.reservations.iter().filter(|r| r.active(now)) {
            for n in nodes.iter_mut().filter(|n| r.nodes.contains(&n.name)) {
                // slurmctld sets RESERVED on every reserved node, and MAINT too for MAINT
                n.flags.reserved = true;
                if r.maint() {
                    n.flags.maint = true;
                }
            }
        }
        nodes
    }

    // ------------------------------------------------------------------------- job list and queue

    /// Put `id` at the end of the job list (removing it from where it was).
    pub(crate) fn list_append(&mut self, id: u32) {
        if let Some(p) = self.job_pos.remove(&id) {
            self.job_order.remove(&p);
        }
        // (one position per record ever listed: 2^64 of them cannot happen)
        let p = self.next_pos;
        self.next_pos = self.next_pos.wrapping_add(1);
        self.job_order.insert(p, id);
        self.job_pos.insert(id, p);
    }

    /// Array split: the split-off record `task_id` takes `meta_id`'s place in
    /// the job list and `meta_id` moves to the end (slurmctld's job_array_split
    /// keeps the original record, which becomes the task, and appends the copy
    /// that stays pending).
    pub(crate) fn list_split(&mut self, meta_id: u32, task_id: u32) {
        match self.job_pos.remove(&meta_id) {
            Some(p) => {
                self.job_order.insert(p, task_id);
                self.job_pos.insert(task_id, p);
                self.list_append(meta_id);
            }
            None => self.list_append(task_id),
        }
    }

    pub(crate) fn list_remove(&mut self, id: u32) {
        if let Some(p) = self.job_pos.remove(&id) {
            self.job_order.remove(&p);
        }
    }

    /// The unfinished job records by [`QueueKey`] (built by a scan when
    /// the index is not).
    pub fn queued_counts(&self) -> std::borrow::Cow<'_, HashMap<QueueKey, u32>> {
        match &self.queued {
            Some(c) => std::borrow::Cow::Borrowed(&c.by_key),
            None => {
                let mut c = QueueCounts::default();
                for (id, j) in &self.jobs {
                    c.set(*id, Some(j));
                }
                std::borrow::Cow::Owned(c.by_key)
            }
        }
    }

    /// Keep the queue index true for job `id` after a command changed it.
    pub(crate) fn sync_queue(&mut self, id: u32) {
        if let Some(c) = &mut self.queued {
            c.set(id, self.jobs.get(&id));
        }
        let unfinished = self.jobs.get(&id).map(|j| !j.state.is_finished()).unwrap_or(false);
        if let Some(q) = &mut self.queue {
            if unfinished {
                q.insert(id);
            } else {
                q.remove(&id);
            }
        }
    }
}

/// Slurm's priority/basic gives each new job a priority a little lower than
/// the one before, so earlier jobs go first.
pub fn default_priority(job_id: u32) -> u32 {
    4294901760u32.saturating_sub(job_id).max(1)
}

#[cfg(test)]
mod order_tests {
    use super::*;
    use spur_core::errors::*;

    fn job(array: Option<&[u32]>) -> Job {
        Job {
            array: array.map(|t| ArrayInfo {
                array_job_id: 0,
                task_id: None,
                pending_tasks: t.to_vec(),
                max_running: 0,
                spec: String::new(),
            }),
            desc: JobDesc { name: "wrap".into(), ..Default::default() },
            user_name: "root".into(),
            group_name: "root".into(),
            priority: 1,
            partition: "debug".into(),
            submit_time: 1,
            eligible_time: 1,
            num_nodes: 1,
            num_tasks: 1,
            num_cpus: 1,
            batch_flag: 1,
            ..Default::default()
        }
    }

    #[test]
    fn priority_basic_counts_down_per_job_release_nice_and_rejection() {
        let mut s = State::new("c".into(), vec![], vec![], 1, 1000);
        s.priority_basic = true;
        s.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap();
        let mut held = job(None);
        held.priority = 0;
        s.apply(&Command::Submit { job: Box::new(held) }).unwrap();
        s.apply(&Command::ConsumeBasicPriority).unwrap();
        s.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap();
        assert_eq!(s.jobs[&1].priority, 4294901759);
        assert_eq!(s.jobs[&2].priority, 0);
        assert_eq!(s.jobs[&3].priority, 4294901757);
        s.apply(&Command::Release { job_id: 2 }).unwrap();
        assert_eq!(s.jobs[&2].priority, 4294901756);
        // a nice change moves the priority by the difference, to no less than 2
        let upd =
            |n| Command::UpdateJob { job_id: 3, update: Box::new(JobUpdate { nice: Some(n), ..Default::default() }) };
        s.apply(&upd(5)).unwrap();
        assert_eq!(s.jobs[&3].priority, 4294901752);
        // without priority/basic nothing changes
        let mut m = State::new("c".into(), vec![], vec![], 1, 1000);
        m.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap();
        m.apply(&Command::ConsumeBasicPriority).unwrap();
        assert_eq!(m.jobs[&1].priority, 1);
        assert_eq!(m.lowest_prio, 0);
    }

    fn order(s: &State) -> Vec<u32> {
        s.view(0).jobs.iter().map(|j| j.job_id).collect()
    }

    #[test]
    fn job_list_order_follows_slurmctld() {
        let mut s = State::new("c".into(), vec![], vec![], 1, 1000);
        s.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap();
        s.apply(&Command::Submit { job: Box::new(job(Some(&[1, 2, 3]))) }).unwrap();
        s.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap();
        assert_eq!(order(&s), [1, 2, 3]);
        // a started task keeps the record's place, the meta-record moves to the end
        let start = |s: &mut State, t: u32| {
            s.apply(&Command::Start {
                job_id: 2,
                task: Some(t),
                allocs: vec![],
                now: 5,
                pass_ms: 5000,
                extern_step: false,
                backfill: false,
            })
        };
        assert_eq!(start(&mut s, 1), Ok(Applied::Started(4)));
        assert_eq!(order(&s), [1, 4, 3, 2]);
        assert_eq!(start(&mut s, 2), Ok(Applied::Started(5)));
        assert_eq!(order(&s), [1, 4, 3, 5, 2]);
        // the last task is the meta-record itself: nothing moves
        assert_eq!(start(&mut s, 3), Ok(Applied::Started(2)));
        assert_eq!(order(&s), [1, 4, 3, 5, 2]);
        s.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap();
        assert_eq!(order(&s), [1, 4, 3, 5, 2, 6]);
        // purging keeps the others in place; a reloaded state keeps its order
        s.apply(&Command::Kill { job_id: 3, task: None, state: JobState::Cancelled, now: 6, uid: None }).unwrap();
        s.apply(&Command::Purge { job_ids: vec![3] }).unwrap();
        assert_eq!(order(&s), [1, 4, 5, 2, 6]);
        let copy = State::decode(&s.encode().unwrap()).unwrap();
        assert_eq!(order(&copy), [1, 4, 5, 2, 6]);
    }

    fn node(name: &str) -> Node {
        Node {
            name: name.into(),
            addr: "127.0.0.1".into(),
            hostname: name.into(),
            cpus: 2,
            boards: 1,
            sockets: 1,
            cores_per_socket: 2,
            threads_per_core: 1,
            real_memory: 2000,
            weight: 1,
            base: NodeBase::Idle,
            ..Default::default()
        }
    }

    fn running(s: &mut State) -> u32 {
        let id = match s.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap() {
            Applied::Submitted(id) => id,
            other => panic!("{:?}", other),
        };
        let allocs = vec![NodeAlloc { node: "n1".into(), cpus: 1, mem_mb: 500, gres: vec![] }];
        s.apply(&Command::Start {
            job_id: id,
            task: None,
            allocs,
            now: 10,
            pass_ms: 10_000,
            extern_step: false,
            backfill: false,
        })
        .unwrap();
        id
    }

    #[test]
    fn suspend_resume_requeue() {
        let mut s = State::new("c".into(), vec![node("n1")], vec![], 1, 1000);
        let id = running(&mut s);
        assert_eq!(s.apply(&Command::Resume { job_id: id, now: 20 }), Err(ESLURM_JOB_NOT_SUSPENDED));
        s.apply(&Command::Suspend { job_id: id, now: 20, preempted: false }).unwrap();
        assert_eq!(s.jobs[&id].state, JobState::Suspended);
        // its CPUs are free, the node stays allocated (sinfo: mix)
        assert_eq!((s.nodes[0].alloc_cpus, s.nodes[0].base), (0, NodeBase::Allocated));
        assert_eq!(s.apply(&Command::Suspend { job_id: id, now: 21, preempted: false }), Ok(Applied::Ok));
        s.apply(&Command::Resume { job_id: id, now: 30 }).unwrap();
        assert_eq!((s.jobs[&id].state, s.nodes[0].alloc_cpus), (JobState::Running, 1));
        // a hold of the running job shows once it is requeued
        s.apply(&Command::Hold { job_id: id, reason: Reason::JobHeldAdmin }).unwrap();
        assert_eq!(s.jobs[&id].state, JobState::Running);
        s.apply(&Command::Requeue { job_id: id, hold: false, now: 40 }).unwrap();
        let j = &s.jobs[&id];
        assert_eq!((j.state, j.reason.clone(), j.restart_count), (JobState::Pending, Reason::JobHeldAdmin, 1));
        assert_eq!((j.desc.begin_time, j.last_sched_eval, j.requeued_done), (40 + REQUEUE_DELAY, 10, false));
        assert_eq!(s.nodes[0].alloc_cpus, 0);
        // the old run's late report does not end the requeued job
        s.apply(&Command::Complete { job_id: id, exit_status: 9, launch_failed: false, now: 41 }).unwrap();
        assert_eq!(s.jobs[&id].state, JobState::Pending);
        assert_eq!(s.apply(&Command::Requeue { job_id: id, hold: false, now: 42 }), Err(ESLURM_JOB_PENDING));
        // cancelling a suspended job gives its CPUs back exactly once
        let id3 = running(&mut s);
        s.apply(&Command::Suspend { job_id: id3, now: 43, preempted: false }).unwrap();
        s.apply(&Command::Kill { job_id: id3, task: None, state: JobState::Cancelled, now: 44, uid: None }).unwrap();
        assert_eq!(s.nodes[0].alloc_cpus, 1);
        s.apply(&Command::Complete { job_id: id3, exit_status: 9, launch_failed: false, now: 45 }).unwrap();
        assert_eq!(s.nodes[0].alloc_cpus, 0);
        // a finished job requeued keeps its allocation's TRES for show job
        let id2 = running(&mut s);
        s.apply(&Command::Complete { job_id: id2, exit_status: 0, launch_failed: false, now: 50 }).unwrap();
        s.apply(&Command::Requeue { job_id: id2, hold: true, now: 51 }).unwrap();
        let j = &s.jobs[&id2];
        assert_eq!((j.state, j.requeued_done, j.priority), (JobState::Pending, true, 0));
        assert_eq!(j.reason, Reason::Other("job requeued in held state".into()));
    }

    #[test]
    fn queue_ids_follow_the_unfinished_jobs() {
        let mut s = State::new("c".into(), vec![node("n1"), node("n2")], vec![], 1, 1000);
        let done = running(&mut s);
        let run = running(&mut s);
        s.apply(&Command::Complete { job_id: done, exit_status: 0, launch_failed: false, now: 20 }).unwrap();
        let pending = match s.apply(&Command::Submit { job: Box::new(job(Some(&[1, 2, 3]))) }).unwrap() {
            Applied::Submitted(id) => id,
            other => panic!("{:?}", other),
        };
        assert_eq!(s.queue_ids(), vec![run, pending]);
        // an array task split off to run is queued under its own id
        let allocs = vec![NodeAlloc { node: "n2".into(), cpus: 1, mem_mb: 500, gres: vec![] }];
        s.apply(&Command::Start {
            job_id: pending,
            task: Some(1),
            allocs,
            now: 21,
            pass_ms: 21_000,
            extern_step: false,
            backfill: false,
        })
        .unwrap();
        let task = *s.jobs.keys().max().unwrap();
        assert_eq!(s.queue_ids(), vec![run, pending, task]);
        // a finished job requeued is back; ended ones leave
        s.apply(&Command::Requeue { job_id: done, hold: false, now: 22 }).unwrap();
        s.apply(&Command::Kill { job_id: pending, task: None, state: JobState::Cancelled, now: 23, uid: None })
            .unwrap();
        assert_eq!(s.queue_ids(), vec![done, run, task]);
        // in job list order: the split task kept the array record's place
        let listed: Vec<u32> = s.jobs_in_order().filter(|j| !j.state.is_finished()).map(|j| j.job_id).collect();
        assert_eq!(s.queue_in_order(), listed);
        // a copy made from the wire (a snapshot) rebuilds the same set
        let copy = State::decode(&s.encode().unwrap()).unwrap();
        assert_eq!(copy.queue_ids(), s.queue_ids());
    }
}

#[cfg(test)]
mod format_tests {
    use super::*;
    use spur_format::Kind;

    /// The fields a job update is written with at `version` (a struct is
    /// written as an array of its fields).
    fn fields(u: &JobUpdate, version: u16) -> usize {
        let b = spur_format::encode(Kind::LOG_ENTRY, version, u).unwrap();
        let (v, _) = spur_format::decode::<Vec<serde::de::IgnoredAny>>(Kind::LOG_ENTRY, &b, &"t").unwrap();
        v.len()
    }

    /// Before version 3 a job update has the 22 fields of the first release
    /// that wrote version 1 (slurm-tests/upgrade-base): a member of that
    /// build refuses a longer one ("array had incorrect length, expected
    /// 22"), so a leader of this build could not replicate any update to it.
    #[test]
    fn a_job_update_keeps_the_version_1_layout_before_version_3() {
        let u = JobUpdate { array_throttle: Some(2), time_limit: Some(Some(5)), ..Default::default() };
        assert_eq!(fields(&u, 1), 22);
        assert_eq!(fields(&u, 2), 22);
        // (array_throttle, the keys after it, the nice reset)
        assert_eq!(fields(&u, 3), 23 + 21 + 1);
        assert_eq!(u.min_format_version(), 3);
        assert_eq!(JobUpdate::default().min_format_version(), spur_format::MIN_VERSION);
        // every field of version 3 needs it
        for u in [
            JobUpdate { admin_comment: Some("a".into()), ..Default::default() },
            JobUpdate { cpus_per_task: Some(2), ..Default::default() },
            JobUpdate { shared: Some(false), ..Default::default() },
            JobUpdate { delay_boot: Some(1), ..Default::default() },
            JobUpdate { reset_nice: true, ..Default::default() },
        ] {
            assert_eq!(u.min_format_version(), 3, "{:?}", u);
            assert_eq!(fields(&u, 2), 22);
        }
        // and reads back whole at 3, without the throttle before
        for (v, want) in [(1, None), (3, Some(2))] {
            let b = spur_format::encode(Kind::LOG_ENTRY, v, &u).unwrap();
            let (back, _) = spur_format::decode::<JobUpdate>(Kind::LOG_ENTRY, &b, &"t").unwrap();
            assert_eq!((back.array_throttle, back.time_limit), (want, Some(Some(5))));
        }
    }
}
