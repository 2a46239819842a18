//! The cluster model shared by the controller, the agents and the commands:
//! jobs, nodes and partitions with Slurm's states and reasons.
//!
//! These types are plain data (serde) and carry no behaviour that needs I/O.
//! Times are Unix epoch seconds (0 = unset); memory is in MB; time limits are
//! in minutes (`None` = UNLIMITED / INFINITE).

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A value that the records holding the same one share: an array's tasks
/// share their job's script and environment (a task split off its
/// meta-record is a copy of it, and a script may be megabytes). Cloning is a
/// reference count; changing it copies it first (`Arc::make_mut`), so it
/// reads and changes as a plain value. Serialised as the value itself: the
/// records are written as they were with plain fields.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Shared<T>(Arc<T>);

impl<T> Shared<T> {
    pub fn new(v: T) -> Shared<T> {
        Shared(Arc::new(v))
    }

    /// Whether `a` and `b` are the same value in memory (not only equal).
    pub fn ptr_eq(a: &Shared<T>, b: &Shared<T>) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> std::ops::DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T> From<T> for Shared<T> {
    fn from(v: T) -> Shared<T> {
        Shared::new(v)
    }
}

impl From<&str> for Shared<String> {
    fn from(v: &str) -> Shared<String> {
        Shared::new(v.to_string())
    }
}

impl<A> FromIterator<A> for Shared<Vec<A>> {
    fn from_iter<I: IntoIterator<Item = A>>(it: I) -> Shared<Vec<A>> {
        Shared::new(it.into_iter().collect())
    }
}

impl PartialEq<str> for Shared<String> {
    fn eq(&self, other: &str) -> bool {
        self.0.as_str() == other
    }
}

impl PartialEq<&str> for Shared<String> {
    fn eq(&self, other: &&str) -> bool {
        self.0.as_str() == *other
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Serialize> Serialize for Shared<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (*self.0).serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Shared<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shared<T>, D::Error> {
        T::deserialize(d).map(Shared::new)
    }
}

/// Slurm's `NO_VAL` for a time limit that was not given.
pub type Minutes = u32;

/// Job states, named as Slurm names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum JobState {
    #[default]
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

impl JobState {
    /// Long name as `squeue -o %T` / `scontrol show job` print it.
    pub fn name(self) -> &'static str {
        use JobState::*;
        match self {
            Pending => "PENDING",
            Running => "RUNNING",
            Suspended => "SUSPENDED",
            Completing => "COMPLETING",
            Completed => "COMPLETED",
            Cancelled => "CANCELLED",
            Failed => "FAILED",
            Timeout => "TIMEOUT",
            NodeFail => "NODE_FAIL",
            Preempted => "PREEMPTED",
            BootFail => "BOOT_FAIL",
            Deadline => "DEADLINE",
            OutOfMemory => "OUT_OF_MEMORY",
        }
    }
    /// Compact name as `squeue -o %t` prints it.
    pub fn short(self) -> &'static str {
        use JobState::*;
        match self {
            Pending => "PD",
            Running => "R",
            Suspended => "S",
            Completing => "CG",
            Completed => "CD",
            Cancelled => "CA",
            Failed => "F",
            Timeout => "TO",
            NodeFail => "NF",
            Preempted => "PR",
            BootFail => "BF",
            Deadline => "DL",
            OutOfMemory => "OOM",
        }
    }
    /// Parse a state as `squeue -t` accepts it (long or compact, any case).
    pub fn parse(s: &str) -> Option<JobState> {
        use JobState::*;
        let u = s.to_ascii_uppercase();
        let all = [
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
        ];
        all.into_iter().find(|st| st.name() == u || st.short() == u)
    }
    pub fn is_finished(self) -> bool {
        !matches!(self, JobState::Pending | JobState::Running | JobState::Suspended | JobState::Completing)
    }
    pub fn is_active(self) -> bool {
        matches!(self, JobState::Running | JobState::Suspended | JobState::Completing)
    }
}

/// Why a job is pending (or why it ended), printed by squeue's NODELIST(REASON)
/// column and `scontrol show job`'s `Reason=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Reason {
    #[default]
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
    /// Any other reason text, printed as is.
    Other(String),
}

impl Reason {
    pub fn text(&self) -> &str {
        use Reason::*;
        match self {
            None => "None",
            Priority => "Priority",
            Resources => "Resources",
            Dependency => "Dependency",
            DependencyNeverSatisfied => "DependencyNeverSatisfied",
            JobHeldUser => "JobHeldUser",
            JobHeldAdmin => "JobHeldAdmin",
            BeginTime => "BeginTime",
            PartitionNodeLimit => "PartitionNodeLimit",
            PartitionTimeLimit => "PartitionTimeLimit",
            PartitionDown => "PartitionDown",
            PartitionInactive => "PartitionInactive",
            NodeDown => "NodeDown",
            BadConstraints => "BadConstraints",
            JobArrayTaskLimit => "JobArrayTaskLimit",
            NonZeroExitCode => "NonZeroExitCode",
            TimeLimit => "TimeLimit",
            ReqNodeNotAvail => "ReqNodeNotAvail",
            InvalidAccount => "InvalidAccount",
            Other(s) => s,
        }
    }
}

/// What a user asked for at submission (sbatch options after all defaults
/// from the command line, `#SBATCH` lines and `SBATCH_*` variables).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobDesc {
    pub name: String,
    /// The batch script text (empty for allocations without a script);
    /// shared by the tasks of an array.
    pub script: Shared<String>,
    /// The script path as submitted, then its arguments ($1, $2, ...), as
    /// Slurm's job_desc argv. Empty for `--wrap`.
    pub argv: Vec<String>,
    pub work_dir: String,
    /// Output/error/input file patterns as given (unexpanded, relative to work_dir).
    pub std_out: Option<String>,
    pub std_err: Option<String>,
    pub std_in: Option<String>,
    pub partition: Option<String>,
    pub min_nodes: Option<u32>,
    pub max_nodes: Option<u32>,
    pub num_tasks: Option<u32>,
    pub cpus_per_task: Option<u32>,
    pub ntasks_per_node: Option<u32>,
    /// `--mem` in MB (per node).
    pub mem_per_node: Option<u64>,
    /// `--mem-per-cpu` in MB.
    pub mem_per_cpu: Option<u64>,
    /// `--gres` as given, e.g. `gpu:2` (normalised by the CLI to `gres/gpu:2` form on show).
    pub gres: Option<String>,
    /// Time limit in minutes; `Some(u32::MAX)` means UNLIMITED was asked.
    pub time_limit: Option<Minutes>,
    pub time_min: Option<Minutes>,
    /// `--array` as given (e.g. `1-10%2`).
    pub array: Option<String>,
    /// `--dependency` as given.
    pub dependency: Option<String>,
    pub hold: bool,
    /// `--begin`, epoch seconds.
    pub begin_time: i64,
    pub deadline: i64,
    /// Environment given to the job (after `--export` processing); shared
    /// by the tasks of an array.
    pub env: Shared<Vec<(String, String)>>,
    /// `--export` as given (`ALL` by default).
    pub export: Option<String>,
    pub account: Option<String>,
    pub qos: Option<String>,
    pub comment: Option<String>,
    /// `--nodelist` and `--exclude`, as hostlist expressions.
    pub req_nodes: Option<String>,
    pub exc_nodes: Option<String>,
    pub constraint: Option<String>,
    pub exclusive: bool,
    pub requeue: Option<bool>,
    pub open_mode_append: Option<bool>,
    pub nice: Option<i32>,
    pub mail_type: Option<String>,
    pub mail_user: Option<String>,
    /// `--signal=[B:]SIG[@TIME]` as given.
    pub signal: Option<String>,
    /// Whether `--wrap` produced the script (Slurm shows `Command=(null)`).
    pub wrapped: bool,
    /// The path of the script as submitted (for `Command=`).
    pub command: Option<String>,
    /// The host the controller saw the submission come from (the peer address,
    /// resolved), for `AllocNode:Sid=`: slurmctld always replaces the client's
    /// value with its authentication's host (`localhost` over loopback,
    /// `recorded/24.11/basic/044`).
    pub alloc_node: String,
    /// The submitting machine's short host name as the client reports it
    /// (`SLURM_SUBMIT_HOST` in the job's environment).
    pub submit_host: String,
    pub alloc_sid: u32,
    /// umask of the submitting process.
    pub umask: u32,
    /// Idempotency key chosen by the client: a resubmitted request with the
    /// same key returns the first job instead of creating another.
    pub request_id: Option<String>,
    // Appended fields: keep the order (records are positional: spur_format's rules).
    /// `--exclusive=user|mcs|topo|oversubscribe` (a plain `--exclusive` sets
    /// `exclusive` instead).
    pub exclusive_kind: Option<ExclusiveKind>,
    /// `-s/--oversubscribe`.
    pub oversubscribe_ok: bool,
    /// `--tmp` in MB (`MinTmpDiskNode=`).
    pub tmp_mb: Option<u64>,
    /// `--contiguous`.
    pub contiguous_nodes: bool,
    /// `--kill-on-invalid-dep=yes|no` (once yes, a later no does not undo it).
    pub kill_on_invalid_dependency: Option<bool>,
    /// `--mincpus`.
    pub min_cpus: Option<u32>,
    /// `--reservation`: the reservation the job must run in.
    pub reservation: Option<String>,
    /// `-G/--gpus` as given (e.g. `2`, `a100:2`).
    pub gpus: Option<String>,
    /// `--mem-per-gpu` in MB.
    pub mem_per_gpu: Option<u64>,
    /// `--cpus-per-gpu`, `-B`'s parts, `--ntasks-per-*`: the task layout asked for.
    pub cpus_per_gpu: Option<u32>,
    pub sockets_per_node: Option<u32>,
    pub cores_per_socket: Option<u32>,
    pub threads_per_core: Option<u32>,
    pub ntasks_per_core: Option<u32>,
    pub ntasks_per_socket: Option<u32>,
    pub ntasks_per_gpu: Option<u32>,
    pub ntasks_per_tres: Option<u32>,
    /// `--priority`: a number, or [`PRIORITY_TOP`] for `TOP`.
    pub priority: Option<u32>,
    /// `--get-user-env[=TIMEOUT][MODE]` as given (`Some("")` without a value).
    pub get_user_env: Option<String>,
    /// `--uid`/`--gid` (root only) as given.
    pub run_as_user: Option<String>,
    pub run_as_group: Option<String>,
    /// Requests accepted and kept as given that Spur does not act on yet;
    /// `None` when the job asked for none of them (most jobs: a job record,
    /// its log entry and every query answer then carry one byte for them, not
    /// forty-eight fields).
    #[serde(serialize_with = "accepted_at_version", deserialize_with = "accepted_any_version")]
    pub accepted: Option<Box<AcceptedOptions>>,
    /// The command line that submitted it (`sbatch --wrap=true`), as sacct's
    /// `SubmitLine` shows it. From format version 7.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<7, _>")]
    pub submit_line: String,
}

/// `JobDesc.accepted` as each format version writes it: version 1 always
/// writes the whole `AcceptedOptions` (defaults when the job asked for none),
/// version 2 writes nil for none.
fn accepted_at_version<S: serde::Serializer>(a: &Option<Box<AcceptedOptions>>, s: S) -> Result<S::Ok, S::Error> {
    if spur_format::write_version() < 2 {
        match a {
            Some(a) => a.serialize(s),
            None => AcceptedOptions::default().serialize(s),
        }
    } else {
        a.serialize(s)
    }
}

/// Reads both: a whole `AcceptedOptions` (version 1, or version 2 with some
/// set) or nil; the defaults read as none, so the versions compare equal.
fn accepted_any_version<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<AcceptedOptions>>, D::Error> {
    let a = Option::<Box<AcceptedOptions>>::deserialize(d)?;
    Ok(a.filter(|a| **a != AcceptedOptions::default()))
}

/// `--priority=TOP`: Slurm's `NO_VAL - 1`.
pub const PRIORITY_TOP: u32 = 0xffff_fffd;

/// How a job shares its nodes when `--exclusive` names a kind
/// (Slurm's `job_desc.shared`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExclusiveKind {
    User,
    Mcs,
    Topo,
    Oversubscribe,
}

/// sbatch options that Spur accepts and keeps with the job as given but does
/// not act on yet, named after the `job_desc` members Slurm puts them in
/// (the option in each comment). Flags are `true` when given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AcceptedOptions {
    pub acctg_freq: Option<String>,        // --acctg-freq
    pub batch_features: Option<String>,    // --batch
    pub burst_buffer: Option<String>,      // --bb
    pub burst_buffer_file: Option<String>, // --bbf
    pub cluster_features: Option<String>,  // --cluster-constraint
    pub cluster: Option<String>,           // --cluster
    pub container: Option<String>,         // --container
    pub container_id: Option<String>,      // --container-id
    pub selinux_context: Option<String>,   // --context
    pub core_spec: Option<String>,         // -S/--core-spec
    pub cpu_freq: Option<String>,          // --cpu-freq
    pub delay_boot: Option<String>,        // --delay-boot
    pub distribution: Option<String>,      // -m/--distribution
    pub extra: Option<String>,             // --extra
    pub extra_node_info: Option<String>,   // -B/--extra-node-info
    pub gpu_bind: Option<String>,          // --gpu-bind
    pub gpu_freq: Option<String>,          // --gpu-freq
    pub gpus_per_node: Option<String>,     // --gpus-per-node
    pub gpus_per_socket: Option<String>,   // --gpus-per-socket
    pub gpus_per_task: Option<String>,     // --gpus-per-task
    pub gres_flags: Option<String>,        // --gres-flags
    pub hint: Option<String>,              // --hint
    pub ignore_pbs: bool,                  // --ignore-pbs
    pub licenses: Option<String>,          // -L/--licenses
    pub mcs_label: Option<String>,         // --mcs-label
    pub mem_bind: Option<String>,          // --mem-bind
    pub network: Option<String>,           // --network
    pub no_kill: Option<String>,           // -k/--no-kill[=off]
    pub nodefile: Option<String>,          // -F/--nodefile
    pub oom_kill_step: Option<String>,     // --oom-kill-step[=0|1]
    pub overcommit: bool,                  // -O/--overcommit
    pub power: Option<String>,             // SBATCH_POWER
    pub prefer: Option<String>,            // --prefer
    pub profile: Option<String>,           // --profile
    pub propagate: Option<String>,         // --propagate[=rlimits]
    pub reboot: bool,                      // --reboot
    pub resv_ports: Option<String>,        // --resv-ports[=count]
    pub segment: Option<String>,           // --segment
    pub spread_job: bool,                  // --spread-job
    pub stepmgr: bool,                     // --stepmgr
    pub switches: Option<String>,          // --switches
    pub switch_wait: Option<String>,       // SBATCH_WAIT4SWITCH
    pub thread_spec: Option<String>,       // --thread-spec
    pub tres_bind: Option<String>,         // --tres-bind
    pub tres_per_task: Option<String>,     // --tres-per-task
    pub use_min_nodes: bool,               // --use-min-nodes
    pub wait_all_nodes: Option<String>,    // --wait-all-nodes
    pub wckey: Option<String>,             // --wckey
}

/// Array bookkeeping: a pending meta-record holds the tasks not yet started;
/// every started task is its own job record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ArrayInfo {
    /// The id of the array (the job id of its first record).
    pub array_job_id: u32,
    /// `Some(task)` for a single task's record; `None` for the meta-record.
    pub task_id: Option<u32>,
    /// Tasks not yet split off (only in the meta-record), ascending.
    pub pending_tasks: Vec<u32>,
    /// `%N` throttle: at most this many tasks run at once (0 = no limit).
    pub max_running: u32,
    /// The full task list as submitted (e.g. `1-10%2`).
    pub spec: String,
}

/// Resources given to a running job on one node.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeAlloc {
    pub node: String,
    pub cpus: u32,
    pub mem_mb: u64,
    /// GRES taken on that node, e.g. `[("gpu", Some("mi300x"), 2)]` with device indexes.
    pub gres: Vec<GresAlloc>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GresAlloc {
    pub name: String,
    pub gtype: Option<String>,
    pub count: u64,
    /// Device indexes on the node (for CUDA_VISIBLE_DEVICES etc).
    pub indexes: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// A job was held by the user (uhold) or an admin (hold): priority 0.
    pub held: Option<Reason>,
    pub priority: u32,
    /// Partition actually used (the default one when none was asked).
    pub partition: String,
    /// Time limit in minutes after partition defaults; `None` = UNLIMITED.
    pub time_limit: Option<Minutes>,
    pub submit_time: i64,
    pub eligible_time: i64,
    pub start_time: i64,
    pub end_time: i64,
    pub suspend_time: i64,
    /// Seconds spent suspended so far.
    pub pre_sus_time: i64,
    /// Allocated nodes in allocation order (empty while pending).
    pub allocs: Vec<NodeAlloc>,
    /// `wait(2)` status of the batch script (Slurm's `ExitCode=x:y` comes from it).
    pub exit_status: i32,
    pub derived_exit_code: i32,
    pub restart_count: u32,
    /// Number of nodes / tasks / CPUs the job will use (for pending jobs: requested).
    pub num_nodes: u32,
    pub num_tasks: u32,
    pub num_cpus: u32,
    /// Memory per node in MB after defaults (0 = all of it).
    pub mem_per_node: u64,
    pub mem_per_cpu: u64,
    /// True while the job was killed because of its time limit or a cancel, to
    /// pick the final state when the step reports back.
    pub kill_reason: Option<JobState>,
    /// Requeued jobs keep their id; a batch flag counts how often.
    pub batch_flag: u32,
    /// Wall-clock milliseconds of the scheduling pass that started the job
    /// (0: not started). squeue breaks ties between equal start seconds with
    /// it: Slurm's passes are at least `batch_sched_delay` (3 s) apart, so its
    /// jobs started by different passes never share a start second.
    #[serde(default)]
    pub start_pass_ms: i64,
    /// When the scheduler last looked at the job (`LastSchedEval`): its start;
    /// a requeue keeps it.
    #[serde(default)]
    pub last_sched_eval: i64,
    /// Requeued after it had ended: Slurm keeps its old allocation's TRES for
    /// `AllocTRES` and shows `AccrueTime=Unknown` until it starts again.
    #[serde(default)]
    pub requeued_done: bool,
    /// (CPUs, nodes) the request's TRES were last counted with, kept when
    /// slurmctld refused an update that still changed the counts (it does not
    /// recount `ReqTRES` then, recorded/24.11/scontrol/194).
    #[serde(default)]
    pub tres_counted: Option<(u32, u32)>,
    /// `AdminComment=` (`scontrol update`, administrators only). From
    /// format version 3.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub admin_comment: Option<String>,
    /// Set by the first `CPUsPerTask=` update to the submission's `-c`
    /// (0: none): `TresPerTask=cpu=` keeps showing what was submitted, as
    /// slurmctld's tres_per_task does (`None`: never updated, `-c` is
    /// `desc.cpus_per_task`). From format version 3.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub submitted_cpus_per_task: Option<u32>,
    /// The job's running steps (`srun`), in creation order. From format
    /// version 4.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<4, _>")]
    pub steps: Vec<Step>,
    /// The number the job's next step gets (`.0`, `.1`, ...). From format
    /// version 4.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<4, _>")]
    pub next_step_id: u32,
    /// The job's steps that ended, in the order they ended, with the use
    /// their nodes reported (`Step::usage`), for accounting: kept with the
    /// job until it is purged. From format version 5.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub done_steps: Vec<Step>,
    /// What the batch script's processes used on the batch host, as its
    /// node reported it with the job's end (the batch step's usage). From
    /// format version 5.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub batch_usage: Option<crate::usage::NodeUsage>,
    /// Who cancelled it (`scancel`), for sacct's `CANCELLED by UID`. From
    /// format version 7.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<7, _>")]
    pub cancelled_by: Option<u32>,
    /// The backfill scheduler started it (`Scheduler=Backfill`, sacct's
    /// `SchedBackfill`). From format version 8.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<8, _>")]
    pub sched_backfill: bool,
    /// Suspended by preemption (`PreemptMode=SUSPEND`): the scheduler resumes
    /// it when its resources are free again. From format version 9.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<9, _>")]
    pub preempt_suspended: bool,
}

/// Slurm's `SLURM_BATCH_SCRIPT`: the step number of a job's batch script.
pub const BATCH_STEP: u32 = 0xffff_fffb;
/// Slurm's `SLURM_EXTERN_CONT`.
pub const EXTERN_STEP: u32 = 0xffff_fffc;
/// Slurm's `SLURM_INTERACTIVE_STEP`.
pub const INTERACTIVE_STEP: u32 = 0xffff_fffa;

/// `123.4`, `123.batch`, `123.extern`, `123.interactive`: a step's name as
/// squeue and scontrol print it.
pub fn step_label(job: &str, step_id: u32) -> String {
    match step_id {
        BATCH_STEP => format!("{}.batch", job),
        EXTERN_STEP => format!("{}.extern", job),
        INTERACTIVE_STEP => format!("{}.interactive", job),
        n => format!("{}.{}", job, n),
    }
}

/// A running job step: the resources it holds inside its job's allocation
/// and how its tasks are laid out (Slurm's step record and step layout).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub step_id: u32,
    pub name: String,
    pub start_time: i64,
    /// Minutes; `None`: the job's limit.
    pub time_limit: Option<Minutes>,
    /// Per node in step order: the CPUs and memory the step holds there.
    pub allocs: Vec<NodeAlloc>,
    /// Tasks on each node of `allocs` (same order).
    pub tasks_per_node: Vec<u32>,
    /// The global task ids of each node, in order (block: 0,1 | 2,3; cyclic:
    /// 0,2 | 1,3).
    pub task_ids: Vec<Vec<u32>>,
    pub num_tasks: u32,
    pub cpus_per_task: u32,
    /// `--overlap`: shares the CPUs and memory of other steps.
    pub overlap: bool,
    /// `block`, `cyclic`, `plane=N`, `arbitrary` (as Slurm names the layout).
    pub distribution: String,
    /// Where srun runs (`SLURM_SRUN_COMM_HOST`) and its pid.
    pub srun_host: String,
    pub srun_pid: u32,
    pub submit_line: String,
    pub work_dir: String,
    /// `--mpi` plugin name (`none` by default).
    pub mpi: String,
    /// srun's address as the controller saw it (`SLURM_SRUN_COMM_HOST`,
    /// `SLURM_LAUNCH_NODE_IPADDR`); `srun_host` is its host name
    /// (`SrunHost:Pid=`).
    #[serde(default)]
    pub srun_addr: String,
    /// What the step's tasks used, one entry per node whose step daemon
    /// reported it when its part ended (in the order they reported). From
    /// format version 5.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub usage: Vec<crate::usage::NodeUsage>,
    /// The request that made it (`StepRequest::request_id`; format version 5).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub request_id: Option<String>,
    /// Once ended: when (0 while it runs), and its exit status, the highest
    /// raw wait status of its tasks (`None`: not known). Format version 5.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub end_time: i64,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<5, _>")]
    pub exit_status: Option<i32>,
    /// The ports reserved for it (`MpiParams=ports=`: as Slurm writes them,
    /// `12000-12002`; empty: none). Format version 6.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<6, _>")]
    pub resv_ports: String,
}

impl Step {
    /// `--mpi=pmix` (or a version of it): each node hosts a PMIx server.
    pub fn uses_pmix(&self) -> bool {
        self.mpi.starts_with("pmix")
    }

    /// An MPI type whose step daemons serve PMI (pmi2, pmix, and none,
    /// where they answer Slurm's libpmi on demand as Slurm's srun does in
    /// every step): its fences climb the step's tree.
    pub fn uses_pmi(&self) -> bool {
        self.mpi == "pmi2" || self.uses_pmix() || self.pmi1_on_demand()
    }

    /// `--mpi=none`: no `PMI_FD`, but Slurm's libpmi (PMI-1 through
    /// libslurm) still reaches the node's step daemon, at
    /// [`crate::launch::pmi1_socket_name`].
    pub fn pmi1_on_demand(&self) -> bool {
        self.mpi.is_empty() || self.mpi == "none"
    }

    pub fn node_names(&self) -> Vec<String> {
        self.allocs.iter().map(|a| a.node.clone()).collect()
    }
    pub fn num_cpus(&self) -> u32 {
        self.allocs.iter().map(|a| a.cpus).sum()
    }
}

impl Job {
    /// The steps of a running job as slurmctld lists them (`scontrol show
    /// step`): its `extern` step, the batch step (on the batch host, as old
    /// as the job), then the others in the order they were created.
    pub fn steps_shown(&self) -> Vec<Step> {
        let mut out: Vec<Step> = self.steps.iter().filter(|s| s.step_id == EXTERN_STEP).cloned().collect();
        if self.batch_flag > 0 {
            if let Some(a) = self.allocs.first() {
                out.push(Step {
                    step_id: BATCH_STEP,
                    name: "batch".into(),
                    start_time: self.start_time,
                    allocs: vec![a.clone()],
                    num_tasks: 1,
                    usage: self.batch_usage.iter().cloned().collect(),
                    ..Default::default()
                });
            }
        }
        out.extend(self.steps.iter().filter(|s| s.step_id != EXTERN_STEP).cloned());
        out
    }

    pub fn node_names(&self) -> Vec<String> {
        self.allocs.iter().map(|a| a.node.clone()).collect()
    }
    pub fn is_array_task(&self) -> bool {
        self.array.as_ref().map(|a| a.task_id.is_some()).unwrap_or(false)
    }
    /// `123_4`, `123_[5-9]` or `123`, as squeue prints `%i`.
    pub fn display_id(&self) -> String {
        match &self.array {
            Some(a) => match a.task_id {
                Some(t) => format!("{}_{}", a.array_job_id, t),
                None => {
                    let mut s = format!("{}_[{}", a.array_job_id, ranges(&a.pending_tasks));
                    if a.max_running > 0 {
                        s.push_str(&format!("%{}", a.max_running));
                    }
                    s.push(']');
                    s
                }
            },
            None => self.job_id.to_string(),
        }
    }
}

/// `1,3-5,9` for a sorted list of integers.
pub fn ranges(v: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < v.len() {
        let start = v[i];
        let mut end = start;
        while i + 1 < v.len() && v[i + 1] == end + 1 {
            i += 1;
            end = v[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{}-{}", start, end));
        }
        i += 1;
    }
    out
}

/// The base state of a node; flags are separate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub enum NodeBase {
    /// Before its agent has registered.
    #[default]
    Unknown,
    Idle,
    /// Some or all resources allocated; `mixed` is derived from the counts.
    Allocated,
    Down,
    Future,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeFlags {
    pub drain: bool,
    pub not_responding: bool,
    pub completing: bool,
    pub reboot_requested: bool,
    pub power_down: bool,
    pub planned: bool,
    pub maint: bool,
    pub reserved: bool,
    /// Slurm's FAIL flag (`scontrol update State=FAIL`): out of service like
    /// DRAIN, shown as `fail`/`FAIL`. From format version 3.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub fail: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// Configured GRES: (name, type, count).
    pub gres: Vec<(String, Option<String>, u64)>,
    pub base: NodeBase,
    pub flags: NodeFlags,
    pub reason: Option<String>,
    pub reason_time: i64,
    pub reason_uid: u32,
    pub alloc_cpus: u32,
    pub alloc_mem: u64,
    /// GRES in use: (name, type, count).
    pub alloc_gres: Vec<(String, Option<String>, u64)>,
    /// What spurd reported when it registered.
    pub boot_time: i64,
    pub slurmd_start_time: i64,
    pub last_busy: i64,
    pub os: String,
    pub arch: String,
    pub version: String,
    /// Last time spurd was heard from.
    pub last_heard: i64,
    /// CPU load (x100) and free memory as reported.
    pub cpu_load: u32,
    pub free_mem: u64,
    /// `scontrol update NodeName= Comment=`, `Extra=` (format version 3).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub comment: Option<String>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub extra: Option<String>,
    /// `CpuBind=`: Slurm's cpu_bind_type bits (0: none set; format version 3).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub cpu_bind: u32,
    /// `Gres=` as an update set it on a node without configured GRES: shown
    /// by `show node`, never scheduled (format version 3).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub gres_text: Option<String>,
    /// `ResumeAfter=`: when a DOWN or drained node goes back to service
    /// (epoch seconds, 0 = never; format version 3).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub resume_after: i64,
}

impl Node {
    /// `idle`, `mixed`, `allocated`, `down`, ... with flags, as `sinfo %T` prints.
    pub fn state_long(&self) -> String {
        node_state_string(self, false)
    }
    /// Compact form as `sinfo %t` prints (`idle`, `mix`, `alloc`, `down*`, `drain`).
    pub fn state_short(&self) -> String {
        node_state_string(self, true)
    }
    pub fn is_mixed(&self) -> bool {
        self.base == NodeBase::Allocated && self.alloc_cpus < self.cpus
    }
    pub fn is_usable(&self) -> bool {
        matches!(self.base, NodeBase::Idle | NodeBase::Allocated)
            && !self.flags.drain
            && !self.flags.fail
            && !self.flags.not_responding
    }
}

fn node_state_string(n: &Node, short: bool) -> String {
    let base = match n.base {
        NodeBase::Unknown => "unknown",
        NodeBase::Idle => "idle",
        NodeBase::Allocated if n.is_mixed() => {
            if short {
                "mix"
            } else {
                "mixed"
            }
        }
        NodeBase::Allocated => {
            if short {
                "alloc"
            } else {
                "allocated"
            }
        }
        NodeBase::Down => "down",
        NodeBase::Future => {
            if short {
                "futr"
            } else {
                "future"
            }
        }
    };
    let mut s = if n.flags.drain {
        let busy = matches!(n.base, NodeBase::Allocated) || n.flags.completing;
        match (busy, short) {
            (true, true) => "drng".to_string(),
            (true, false) => "draining".to_string(),
            (false, true) => "drain".to_string(),
            (false, false) => "drained".to_string(),
        }
    } else if n.flags.fail {
        // slurmctld: FAILING while it still runs or completes jobs
        let busy = matches!(n.base, NodeBase::Allocated) || n.flags.completing;
        match (busy, short) {
            (true, true) => "failg".to_string(),
            (true, false) => "failing".to_string(),
            (false, _) => "fail".to_string(),
        }
    } else if n.flags.completing && !short {
        "completing".to_string()
    } else if n.flags.completing {
        "comp".to_string()
    } else if n.base == NodeBase::Idle && n.flags.maint {
        "maint".to_string()
    } else if n.base == NodeBase::Idle && n.flags.reserved && !n.flags.not_responding {
        if short { "resv" } else { "reserved" }.to_string()
    } else {
        base.to_string()
    };
    if n.flags.not_responding {
        s.push('*');
    }
    s
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartState {
    #[default]
    Up,
    Down,
    Drain,
    Inactive,
}

impl PartState {
    pub fn name(self) -> &'static str {
        match self {
            PartState::Up => "UP",
            PartState::Down => "DOWN",
            PartState::Drain => "DRAIN",
            PartState::Inactive => "INACTIVE",
        }
    }
}

/// A partition's `OverSubscribe=` as scheduling reads it (the value was
/// checked when slurm.conf or scontrol gave it): how many jobs may share a
/// CPU (`YES` and `FORCE` alone: 4), whether every job shares (`FORCE`),
/// whether each job gets whole nodes (`EXCLUSIVE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartShare {
    pub count: u32,
    pub force: bool,
    pub exclusive: bool,
}

impl PartShare {
    pub fn parse(v: &str) -> PartShare {
        let (word, count) = match v.split_once(':') {
            Some((w, c)) => (w.trim(), c.trim().parse::<u32>().ok()),
            None => (v.trim(), None),
        };
        let shares = |force| PartShare { count: count.unwrap_or(4).max(1), force, exclusive: false };
        if word.eq_ignore_ascii_case("FORCE") {
            shares(true)
        } else if word.eq_ignore_ascii_case("YES") {
            shares(false)
        } else {
            PartShare { count: 1, force: false, exclusive: word.eq_ignore_ascii_case("EXCLUSIVE") }
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Partition {
    pub name: String,
    /// Member nodes in configuration order.
    pub nodes: Vec<String>,
    /// The `Nodes=` expression as written (for `scontrol show partition`).
    pub nodes_expr: String,
    pub default: bool,
    pub hidden: bool,
    pub state: PartState,
    /// `None` = UNLIMITED.
    pub max_time: Option<Minutes>,
    pub default_time: Option<Minutes>,
    pub max_nodes: Option<u32>,
    pub min_nodes: u32,
    pub oversubscribe: String,
    pub priority_tier: u32,
    pub priority_job_factor: u32,
    pub allow_groups: Option<Vec<String>>,
    pub allow_accounts: Option<Vec<String>>,
    /// Any other key=value from slurm.conf, kept for `scontrol show partition`.
    pub other: Vec<(String, String)>,
    /// The keys of format version 3 (slurm.conf's `PartitionName=` line and
    /// `scontrol update PartitionName=`).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub more: PartitionMore,
}

/// A memory limit of a partition (`DefMemPerCPU=`/`DefMemPerNode=`,
/// `MaxMemPerCPU=`/`MaxMemPerNode=`): MB, 0 = UNLIMITED.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemLimit {
    pub mb: u64,
    pub per_cpu: bool,
}

/// A partition's settings that Spur stores and shows (and, for RootOnly,
/// DisableRootJobs and Nodes, acts on); the rest of slurmctld's
/// part_record. Strings are kept as `scontrol show partition` prints them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionMore {
    pub root_only: bool,
    pub req_resv: bool,
    pub disable_root_jobs: bool,
    pub exclusive_user: bool,
    pub lln: bool,
    /// Seconds.
    pub grace_time: u32,
    pub def_mem: MemLimit,
    pub max_mem: MemLimit,
    /// `None` = UNLIMITED.
    pub max_cpus_per_node: Option<u32>,
    pub max_cpus_per_socket: Option<u32>,
    /// Minutes; `None` = NONE, `Some(u16::MAX)` = UNLIMITED.
    pub over_time_limit: Option<u16>,
    /// `None` = ALL.
    pub alloc_nodes: Option<String>,
    pub alternate: Option<String>,
    pub cpu_bind: Option<String>,
    pub qos: Option<String>,
    pub allow_qos: Option<String>,
    pub deny_qos: Option<String>,
    pub deny_accounts: Option<String>,
    pub job_defaults: Option<String>,
    pub preempt_mode: Option<String>,
    pub tres_billing_weights: Option<String>,
    /// `NodeSets=` (`ALL` after `Nodes=ALL`).
    pub nodesets: Option<String>,
    /// The `TRESBillingWeights=` slurmctld counted the partition's billing
    /// TRES with: those of slurm.conf, then those set when `Nodes=` last
    /// changed (set_partition_tres; a later change of the weights alone
    /// leaves the count).
    pub billing_weights_counted: Option<String>,
    /// slurm.conf's `PriorityFlags=MAX_TRES`: billing is the largest of the
    /// node TRES weighted, not their sum (from format version 13).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<13, _>")]
    pub max_tres: bool,
}

impl PartitionMore {
    /// The partition's billing TRES (`TRES=...,billing=N`) for its TRES
    /// (`cpu`, `mem` in MB, `node`, `gres/...`): the CPU count, or the
    /// weights it was counted with applied.
    pub fn billing(&self, counts: &[(String, f64)]) -> u64 {
        crate::priority::billing(self.billing_weights_counted.as_deref(), counts, self.max_tres)
    }
}

impl PartitionMore {
    /// The keys of a slurm.conf `PartitionName=` line that Spur's config
    /// parser leaves in [`Partition::other`]; a value slurmctld would refuse
    /// is left at its default.
    pub fn from_conf(other: &[(String, String)]) -> PartitionMore {
        use crate::request::PartKey;
        let mut p = Partition::default();
        // DefCpuPerGPU= and DefMemPerGPU= of the line are its JobDefaults
        let gpu: Vec<String> = ["DefCpuPerGPU", "DefMemPerGPU"]
            .iter()
            .filter_map(|k| other.iter().find(|(o, _)| o.eq_ignore_ascii_case(k)).map(|(_, v)| format!("{}={}", k, v)))
            .collect();
        if !gpu.is_empty() {
            let _ = p.set_keys(&[(PartKey::JobDefaults, gpu.join(","))], &[]);
        }
        for (k, v) in other {
            let Some(key) = PartKey::ALL.iter().copied().find(|pk| {
                !matches!(pk, PartKey::Nodes | PartKey::AllowGroups | PartKey::AllowAccounts)
                    && pk.name().eq_ignore_ascii_case(k)
            }) else {
                continue;
            };
            // slurm.conf's booleans (yes, true, 1; anything else is no)
            let v = match key {
                PartKey::RootOnly
                | PartKey::ReqResv
                | PartKey::DisableRootJobs
                | PartKey::ExclusiveUser
                | PartKey::Lln => {
                    if matches!(v.to_ascii_lowercase().as_str(), "yes" | "true" | "1") {
                        "YES"
                    } else {
                        "NO"
                    }
                }
                _ => v.as_str(),
            };
            if let Ok(c) = key.canonical(v, k) {
                let _ = p.set_keys(&[(key, c)], &[]);
            }
        }
        p.more.billing_weights_counted = p.more.tres_billing_weights.clone();
        p.more
    }
}

impl Partition {
    /// Apply `scontrol update PartitionName=` keys (values canonical, as
    /// [`PartKey::canonical`](crate::request::PartKey::canonical) gives
    /// them) in order; `node_names`: the cluster's nodes in configuration
    /// order. All or nothing: the first refused value leaves the partition
    /// as it was and returns Slurm's error number.
    pub fn set_keys(
        &mut self,
        settings: &[(crate::request::PartKey, String)],
        node_names: &[String],
    ) -> Result<(), i32> {
        let mut p = self.clone();
        for (k, v) in settings {
            p.set_key(*k, v, node_names)?;
        }
        *self = p;
        Ok(())
    }

    fn set_key(&mut self, key: crate::request::PartKey, v: &str, node_names: &[String]) -> Result<(), i32> {
        use crate::errors::*;
        use crate::request::PartKey::*;
        let m = &mut self.more;
        let yes = v == "YES";
        let opt = |v: &str, none: &[&str]| -> Option<String> {
            (!v.is_empty() && !none.iter().any(|n| v.eq_ignore_ascii_case(n))).then(|| v.to_string())
        };
        let num = |v: &str| v.parse::<u64>().map_err(|_| ESLURM_NOT_SUPPORTED);
        let limit = |v: &str| -> Result<Option<u32>, i32> {
            if v == "UNLIMITED" {
                Ok(None)
            } else {
                v.parse().map(Some).map_err(|_| ESLURM_NOT_SUPPORTED)
            }
        };
        match key {
            RootOnly => m.root_only = yes,
            ReqResv => m.req_resv = yes,
            DisableRootJobs => m.disable_root_jobs = yes,
            ExclusiveUser => m.exclusive_user = yes,
            Lln => m.lln = yes,
            GraceTime => m.grace_time = v.parse().map_err(|_| ESLURM_NOT_SUPPORTED)?,
            DefMemPerCpu => m.def_mem = MemLimit { mb: num(v)?, per_cpu: true },
            DefMemPerNode => m.def_mem = MemLimit { mb: num(v)?, per_cpu: false },
            MaxMemPerCpu => m.max_mem = MemLimit { mb: num(v)?, per_cpu: true },
            MaxMemPerNode => m.max_mem = MemLimit { mb: num(v)?, per_cpu: false },
            MaxCpusPerNode => m.max_cpus_per_node = limit(v)?,
            MaxCpusPerSocket => m.max_cpus_per_socket = limit(v)?,
            OverTimeLimit => {
                m.over_time_limit =
                    Some(if v == "UNLIMITED" { u16::MAX } else { v.parse().map_err(|_| ESLURM_NOT_SUPPORTED)? })
            }
            AllowGroups => self.allow_groups = opt(v, &["ALL"]).map(|v| v.split(',').map(str::to_string).collect()),
            AllowAccounts => self.allow_accounts = opt(v, &["ALL"]).map(|v| v.split(',').map(str::to_string).collect()),
            DenyAccounts => m.deny_accounts = opt(v, &[]),
            AllowQos => m.allow_qos = opt(v, &["ALL"]),
            DenyQos => m.deny_qos = opt(v, &[]),
            // no accounting, so no QOS records to name
            Qos if !v.is_empty() => return Err(ESLURM_INVALID_QOS),
            Qos => m.qos = None,
            AllocNodes => m.alloc_nodes = opt(v, &["ALL"]),
            Alternate => m.alternate = opt(v, &["NONE"]),
            CpuBind => m.cpu_bind = opt(v, &["off"]),
            JobDefaults => m.job_defaults = job_defaults(v).ok_or(ESLURM_INVALID_JOB_DEFAULTS)?,
            // GANG is cluster-wide: slurmctld keeps the rest (22.05's
            // scontrol sends it; 24.11's refuses it)
            PreemptMode => {
                let rest: Vec<&str> = v.split(',').filter(|w| *w != "GANG").collect();
                m.preempt_mode = Some(if rest.is_empty() { "OFF".to_string() } else { rest.join(",") });
            }
            TresBillingWeights => {
                if !v.is_empty() && !billing_weights_ok(v) {
                    return Err(ESLURM_INVALID_TRES_BILLING_WEIGHTS);
                }
                m.tres_billing_weights = opt(v, &[]);
            }
            Nodes => {
                let all = v.eq_ignore_ascii_case("ALL");
                let named: Vec<String> = if all {
                    node_names.to_vec()
                } else if v.is_empty() {
                    Vec::new()
                } else {
                    // bounded: a range far beyond the cluster names unknown nodes
                    spur_grammar::hostlist::expand_bounded(v, 1 << 16).map_err(|_| ESLURM_INVALID_NODE_NAME)?
                };
                if named.iter().any(|n| !node_names.contains(n)) {
                    return Err(ESLURM_INVALID_NODE_NAME);
                }
                self.nodes = node_names.iter().filter(|n| named.contains(n)).cloned().collect();
                self.nodes_expr = spur_grammar::hostlist::compress(&self.nodes);
                self.more.nodesets = all.then(|| "ALL".to_string());
                self.more.billing_weights_counted = self.more.tres_billing_weights.clone();
            }
        }
        Ok(())
    }
}

/// `JobDefaults=` as slurmctld prints it (`None`: cleared), or `None` outside
/// for a refused one (job_defaults_list: DefCpuPerGPU and DefMemPerGPU).
fn job_defaults(v: &str) -> Option<Option<String>> {
    if v.is_empty() {
        return Some(None);
    }
    let mut out = Vec::new();
    for item in v.split(',') {
        let (k, n) = item.split_once('=')?;
        let k = if k.eq_ignore_ascii_case("DefCpuPerGPU") {
            "DefCpuPerGPU"
        } else if k.eq_ignore_ascii_case("DefMemPerGPU") {
            "DefMemPerGPU"
        } else {
            return None;
        };
        let n: u64 = n.parse().ok()?;
        out.push(format!("{}={}", k, n));
    }
    Some(Some(out.join(",")))
}

/// Whether `TRESBillingWeights=` names only TRES slurmctld counts, each with
/// a number (and, optionally, a unit).
fn billing_weights_ok(v: &str) -> bool {
    v.split(',').all(|item| {
        let Some((t, w)) = item.split_once('=') else { return false };
        let known = ["cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"];
        let t = t.to_ascii_lowercase();
        let w = w.trim_end_matches(|c: char| "KMGTPkmgtp".contains(c));
        (known.contains(&t.as_str()) || t.starts_with("gres/") || t.starts_with("license/"))
            && !w.is_empty()
            && w.parse::<f64>().is_ok_and(|f| f.is_finite())
    })
}

/// Everything the controller knows, as the commands see it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterView {
    pub cluster_name: String,
    pub now: i64,
    pub jobs: Vec<Job>,
    pub nodes: Vec<Node>,
    pub partitions: Vec<Partition>,
    /// Reservations in creation order (`scontrol show reservation`, `sinfo -T`).
    #[serde(default)]
    pub reservations: Vec<Reservation>,
    /// The QOS records (`sacctmgr show qos`, a job's QOS priority and
    /// limits); format version 11.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<11, _>")]
    pub qos: Vec<crate::qos::Qos>,
    /// The accounts, users and associations with their usage (`sacctmgr
    /// show assoc`, `sshare`, the fair-share factor); `None` without
    /// accounting. Format version 12.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<12, _>")]
    pub assocs: Option<crate::assoc::Assocs>,
    /// What the backfill scheduler said of the jobs, by id: not part of the
    /// view's format (the leader's soft state, sent beside it).
    #[serde(skip)]
    pub plans: std::collections::HashMap<u32, JobPlan>,
    /// The fair-share factor of each user association (user, account),
    /// as the leader computed it at the last `PriorityCalcPeriod` boundary
    /// (asked for with `Query::with_fair_share`; sent beside the view, not
    /// part of its format). Empty without accounting.
    #[serde(skip)]
    pub fair_share: std::collections::HashMap<(String, String), f64>,
}

/// The backfill scheduler's word on one job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobPlan {
    /// A pending job's expected start (0: none) and the nodes planned for it.
    pub start_time: i64,
    pub sched_nodes: Option<String>,
    /// The backfill phase started it (`Scheduler=Backfill`).
    pub backfill: bool,
    /// A pending job the last backfill phase considered: when that phase
    /// ran (0: not considered). slurmctld's `BACKFILL_SCHED` with
    /// `LastSchedEval` at or after its last backfill cycle, which its
    /// library reports as `BACKFILL_LAST` (`Scheduler=Backfill:*`).
    pub considered_at: i64,
}

impl ClusterView {
    /// A pending job's expected start, as the backfill scheduler planned it
    /// (0: none).
    pub fn planned_start(&self, job: &Job) -> i64 {
        if job.state != JobState::Pending {
            return 0;
        }
        self.plans.get(&job.job_id).map(|p| p.start_time).unwrap_or(0)
    }
}

/// An advance reservation (`scontrol create reservation`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reservation {
    pub name: String,
    pub start_time: i64,
    pub end_time: i64,
    /// Reserved nodes in node order.
    pub nodes: Vec<String>,
    /// Users allowed to run in it, as given.
    pub users: Vec<String>,
    /// Flags as slurmctld prints them (`MAINT`, `IGNORE_JOBS`, ...).
    pub flags: Vec<String>,
    /// The nodes were named (`Nodes=`) rather than counted (`NodeCnt=`).
    pub spec_nodes: bool,
    /// `PartitionName=` (slurmctld sets the default one for `NodeCnt=`).
    pub partition: Option<String>,
    /// Cores (CPUs) of the reserved nodes.
    pub cores: u32,
    /// `Accounts=`, `Groups=` as given (format version 3, as the next three).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub accounts: Vec<String>,
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub groups: Vec<String>,
    /// `Features=` as given.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub features: Option<String>,
    /// `MaxStartDelay=` in seconds.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub max_start_delay: Option<i64>,
    /// Made by `CoreCnt=` or `TRES=cpu=` (of whole nodes in Spur): shown
    /// with its cores, its node count not updatable.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<3, _>")]
    pub core_based: bool,
}

impl Reservation {
    /// The oldest format version that writes every field this record sets.
    pub fn min_format_version(&self) -> u16 {
        let newer = !self.accounts.is_empty()
            || !self.groups.is_empty()
            || self.features.is_some()
            || self.max_start_delay.is_some()
            || self.core_based;
        if newer {
            3
        } else {
            spur_format::MIN_VERSION
        }
    }
    pub fn active(&self, now: i64) -> bool {
        self.start_time <= now && now < self.end_time
    }
    pub fn maint(&self) -> bool {
        self.flags.iter().any(|f| f == "MAINT")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The keys of a slurm.conf `PartitionName=` line Spur's parser leaves
    /// in `other`.
    #[test]
    fn partition_keys_from_slurm_conf() {
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let m = PartitionMore::from_conf(&[
            kv("RootOnly", "yes"),
            kv("LLN", "0"),
            kv("GraceTime", "30"),
            kv("DefMemPerCPU", "100"),
            kv("MaxCPUsPerNode", "4"),
            kv("OverTimeLimit", "UNLIMITED"),
            kv("DefCPUPerGPU", "2"),
            kv("TRESBillingWeights", "CPU=2"),
            kv("QOS", "normal"),
            kv("CpuBind", "bogus"),
        ]);
        assert!(m.root_only && !m.lln);
        assert_eq!((m.grace_time, m.max_cpus_per_node, m.over_time_limit), (30, Some(4), Some(u16::MAX)));
        assert_eq!(m.def_mem, MemLimit { mb: 100, per_cpu: true });
        assert_eq!(m.job_defaults.as_deref(), Some("DefCpuPerGPU=2"));
        // no accounting, so no QOS; a bad binding is left out
        assert_eq!((m.qos.as_deref(), m.cpu_bind.as_deref()), (None, None));
        // the weights count from the start: 2 × 8 CPUs
        let counts = [("cpu".to_string(), 8.0), ("mem".to_string(), 8000.0), ("node".to_string(), 4.0)];
        assert_eq!(m.billing(&counts), 16);
        assert_eq!(PartitionMore::default().billing(&counts), 8);
    }
    #[test]
    fn ranges_compress() {
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1-3,5,7-8");
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[4]), "4");
    }
    #[test]
    fn job_state_parse() {
        assert_eq!(JobState::parse("pd"), Some(JobState::Pending));
        assert_eq!(JobState::parse("RUNNING"), Some(JobState::Running));
        assert_eq!(JobState::parse("xx"), None);
    }
}

/// Request fields read the way scontrol and squeue show them.
impl JobDesc {
    /// The job's QOS as the commands show it: `None` (`(null)`) when it
    /// asked for none, or when its QOS was deleted (`sacctmgr delete qos`
    /// leaves an empty name: [`crate::qos::DELETED`]).
    pub fn qos_name(&self) -> Option<&str> {
        self.qos.as_deref().filter(|q| !q.is_empty())
    }

    /// The QOS the commands show for the job: the one it asked for; with
    /// accounting (`accounting`), `normal` when it asked for none (the
    /// default QOS it runs in); none once its QOS was deleted.
    pub fn qos_shown(&self, accounting: bool) -> Option<&str> {
        match self.qos.as_deref() {
            None => accounting.then_some("normal"),
            Some(q) => Some(q).filter(|q| !q.is_empty()),
        }
    }

    /// `--tmp` in MB, 0 when not given (`MinTmpDiskNode=`, squeue `%d`).
    pub fn tmp_disk_mb(&self) -> u64 {
        self.tmp_mb.unwrap_or(0)
    }
    /// `--contiguous` (`Contiguous=1`, squeue `%O`).
    pub fn contiguous(&self) -> bool {
        self.contiguous_nodes
    }
    /// `OverSubscribe=` of a job (squeue `%h`): `NO` for `--exclusive`,
    /// `USER`/`MCS`/`TOPO` for `--exclusive=user|mcs|topo`, `YES` for `-s` or
    /// `--exclusive=oversubscribe`, else `OK` (Slurm's job_share_string).
    pub fn oversubscribe(&self) -> &'static str {
        if self.exclusive {
            return "NO";
        }
        match self.exclusive_kind {
            Some(ExclusiveKind::User) => "USER",
            Some(ExclusiveKind::Mcs) => "MCS",
            Some(ExclusiveKind::Topo) => "TOPO",
            Some(ExclusiveKind::Oversubscribe) => "YES",
            None if self.oversubscribe_ok => "YES",
            None => "OK",
        }
    }
    /// [`JobDesc::oversubscribe`] of a job in a partition of this
    /// `OverSubscribe=` (slurmctld reports the partition's rule for a job
    /// that asked for neither: `YES` under `FORCE:N` with N > 1, `NO` under
    /// `EXCLUSIVE`; measured on 22.05).
    pub fn oversubscribe_in(&self, part: Option<&str>) -> &'static str {
        let own = self.oversubscribe();
        if own != "OK" {
            return own;
        }
        let Some(p) = part.map(PartShare::parse) else { return own };
        if p.force && p.count > 1 {
            "YES"
        } else if p.exclusive {
            "NO"
        } else {
            own
        }
    }
    /// `--kill-on-invalid-dep=yes|no` as given (`KillOInInvalidDependent=Yes|No`
    /// appears in `scontrol show job` only when it was); the one reading of
    /// the value, for scontrol and the scheduler.
    pub fn kill_on_invalid_dep(&self) -> Option<bool> {
        self.kill_on_invalid_dependency
    }
    /// `--mincpus` (0 when not given).
    pub fn mincpus(&self) -> u32 {
        self.min_cpus.unwrap_or(0)
    }
    /// `-O/--overcommit`: the job's tasks share its CPUs; it asks for one
    /// task's CPUs per node (sbatch sets `min_cpus` to the node count).
    pub fn overcommit(&self) -> bool {
        self.accepted.as_ref().is_some_and(|a| a.overcommit)
    }
    /// `--reservation`, when one was named.
    pub fn reservation_name(&self) -> Option<&str> {
        self.reservation.as_deref().filter(|r| !r.is_empty())
    }
}

impl Job {
    /// `-c/--cpus-per-task` as submitted (slurmctld's tres_per_task
    /// `cpu=N`), which a later `CPUsPerTask=` update does not change.
    pub fn submitted_cpus_per_task(&self) -> Option<u32> {
        match self.submitted_cpus_per_task {
            Some(0) => None,
            Some(c) => Some(c),
            None => self.desc.cpus_per_task,
        }
    }
    /// `MinCPUsNode=` (squeue `%c`): slurmctld's pn_min_cpus: `--mincpus`
    /// (1 by default), raised to CPUs/task × `--ntasks-per-node` when the job
    /// has more than one task, and never below CPUs/task
    /// (recorded/24.11/sbatch_options/010 and 013).
    pub fn min_cpus_node(&self) -> u32 {
        let cpt = self.desc.cpus_per_task.unwrap_or(1).max(1);
        let mut n = self.desc.mincpus().max(1);
        if let Some(per) = self.desc.ntasks_per_node {
            if self.num_tasks > 1 {
                n = n.max(cpt.saturating_mul(per));
            }
        }
        n.max(cpt)
    }
}

#[cfg(test)]
mod request_field_tests {
    use super::*;

    /// CPUs/task × tasks/node from a user's request saturates instead of
    /// wrapping (release) or panicking (debug) (issue 9, point 8).
    #[test]
    fn min_cpus_node_saturates() {
        let mut j = Job { num_tasks: 2, ..Default::default() };
        j.desc.cpus_per_task = Some(1 << 20);
        j.desc.ntasks_per_node = Some(1 << 20);
        assert_eq!(j.min_cpus_node(), u32::MAX);
    }

    #[test]
    fn request_fields_as_shown() {
        let mut d = JobDesc::default();
        assert_eq!(
            (d.tmp_disk_mb(), d.contiguous(), d.oversubscribe(), d.kill_on_invalid_dep()),
            (0, false, "OK", None)
        );
        d.tmp_mb = Some(100);
        d.contiguous_nodes = true;
        d.kill_on_invalid_dependency = Some(true);
        d.oversubscribe_ok = true;
        assert_eq!(
            (d.tmp_disk_mb(), d.contiguous(), d.oversubscribe(), d.kill_on_invalid_dep()),
            (100, true, "YES", Some(true))
        );
        d.exclusive_kind = Some(ExclusiveKind::User);
        assert_eq!(d.oversubscribe(), "USER");
        d.exclusive = true;
        assert_eq!(d.oversubscribe(), "NO");
        // in a partition: its rule for a job that asked for neither
        let plain = JobDesc::default();
        let rule = |p: &str| plain.oversubscribe_in(Some(p));
        assert_eq!(
            (rule("FORCE:2"), rule("force"), rule("FORCE:1"), rule("EXCLUSIVE"), rule("YES:2")),
            ("YES", "YES", "OK", "NO", "OK")
        );
        assert_eq!(PartShare::parse("YES"), PartShare { count: 4, force: false, exclusive: false });
        assert_eq!(d.reservation_name(), None);
        d.reservation = Some(String::new());
        assert_eq!(d.reservation_name(), None);
        d.reservation = Some("r1".into());
        assert_eq!(d.reservation_name(), Some("r1"));
    }
}
