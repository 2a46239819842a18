//! Accounting records: what `sacct` shows of a job and its steps, long after
//! the job left the live state (`MinJobAge`). The controller derives one
//! [`AcctJob`] from a job's record each time a committed command changes it
//! (`spur-accounting` keeps them on disk, on every member); sacct reads them
//! through the `Accounting` RPC with an [`AcctQuery`], filtered by the
//! controller ([`AcctQuery::matches`]).
//!
//! A record is one run of a job: a requeued job starts a new record (its
//! submit time is the requeue's time), and its previous run stays with the
//! state `REQUEUED`, as slurmdbd keeps it (`sacct --duplicates`).
//!
//! Records are `spur_format` records ([`spur_format::Kind::ACCT_JOB`]): new
//! fields go at the end of a struct, each with the version it came in.

use crate::model::{Job, JobState, Step, BATCH_STEP, EXTERN_STEP};
use crate::usage::NodeUsage;
use serde::{Deserialize, Serialize};

/// A job's or step's state as slurmdbd records it: the live states, and
/// `REQUEUED` for a run that was requeued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum AcctState {
    #[default]
    Pending,
    Running,
    Suspended,
    Completed,
    Cancelled,
    Failed,
    Timeout,
    NodeFail,
    Preempted,
    BootFail,
    Deadline,
    OutOfMemory,
    Requeued,
}

impl AcctState {
    pub fn from_job_state(s: JobState) -> AcctState {
        // a completing job is still running for slurmdbd until its end
        let s = if s == JobState::Completing { JobState::Running } else { s };
        AcctState::ALL.into_iter().find(|a| a.job_state() == Some(s)).unwrap_or(AcctState::Running)
    }

    /// The live state it is, `None` for `REQUEUED`.
    pub fn job_state(self) -> Option<JobState> {
        use AcctState::*;
        Some(match self {
            Pending => JobState::Pending,
            Running => JobState::Running,
            Suspended => JobState::Suspended,
            Completed => JobState::Completed,
            Cancelled => JobState::Cancelled,
            Failed => JobState::Failed,
            Timeout => JobState::Timeout,
            NodeFail => JobState::NodeFail,
            Preempted => JobState::Preempted,
            BootFail => JobState::BootFail,
            Deadline => JobState::Deadline,
            OutOfMemory => JobState::OutOfMemory,
            Requeued => return None,
        })
    }

    /// Slurm's name (`job_state_string`).
    pub fn name(self) -> &'static str {
        self.job_state().map(JobState::name).unwrap_or("REQUEUED")
    }

    /// Slurm's short name (`job_state_string_compact`).
    pub fn short(self) -> &'static str {
        self.job_state().map(JobState::short).unwrap_or("RQ")
    }

    /// Still going: pending, running or suspended.
    pub fn is_live(self) -> bool {
        matches!(self, AcctState::Pending | AcctState::Running | AcctState::Suspended)
    }

    pub const ALL: [AcctState; 13] = [
        AcctState::Pending,
        AcctState::Running,
        AcctState::Suspended,
        AcctState::Completed,
        AcctState::Cancelled,
        AcctState::Failed,
        AcctState::Timeout,
        AcctState::NodeFail,
        AcctState::Preempted,
        AcctState::BootFail,
        AcctState::Deadline,
        AcctState::OutOfMemory,
        AcctState::Requeued,
    ];
}

/// One step's record (`.batch`, `.extern`, `.interactive` and numbered ones).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AcctStep {
    pub step_id: u32,
    pub name: String,
    pub state: AcctState,
    /// Who cancelled it (`CANCELLED by UID`), when known.
    pub cancelled_by: Option<u32>,
    pub start: i64,
    /// 0 while it runs.
    pub end: i64,
    /// Raw wait status (`None`: not known).
    pub exit_status: Option<i32>,
    /// Nodes in allocation order.
    pub nodes: Vec<String>,
    pub ntasks: u32,
    pub cpus: u32,
    /// MB held on each node (summed over its nodes: `mem=` of its TRES).
    pub mem_mb: u64,
    pub time_limit: Option<crate::model::Minutes>,
    pub submit_line: String,
    pub work_dir: String,
    /// `block`, `cyclic`, ... (sacct's Layout).
    pub distribution: String,
    /// What its tasks used, per node that reported.
    pub usage: Vec<NodeUsage>,
}

/// One run of a job.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AcctJob {
    pub job_id: u32,
    /// The array's id and this record's task (`None` for a meta-record of
    /// pending tasks, whose list is `array_tasks`), 0 when not an array.
    pub array_job_id: u32,
    pub array_task_id: Option<u32>,
    pub array_tasks: String,
    pub array_max_running: u32,
    pub cluster: String,
    pub partition: String,
    pub account: String,
    pub qos: String,
    pub name: String,
    pub user_id: u32,
    pub user_name: String,
    pub group_id: u32,
    pub group_name: String,
    pub work_dir: String,
    pub submit_line: String,
    pub comment: String,
    pub admin_comment: String,
    pub constraints: String,
    pub reservation: String,
    pub std_out: String,
    pub std_err: String,
    pub std_in: String,
    pub state: AcctState,
    pub cancelled_by: Option<u32>,
    /// The pending reason (`Reason` column), or `None`.
    pub reason: String,
    pub submit: i64,
    pub eligible: i64,
    pub start: i64,
    pub end: i64,
    /// Seconds spent suspended.
    pub suspended: i64,
    /// When the job was last suspended (0: not suspended now).
    pub suspend_time: i64,
    /// Raw wait status of the batch script (or of the job's end).
    pub exit_status: i32,
    pub derived_exit_code: i32,
    /// Nodes in allocation order (empty while pending).
    pub nodes: Vec<String>,
    /// The requested nodes (`ReqNodes`), CPUs, memory.
    pub req_nodes: u32,
    pub req_cpus: u32,
    pub alloc_cpus: u32,
    /// MB per node (0: none asked) or per CPU (`mem_per_cpu`).
    pub mem_per_node: u64,
    pub mem_per_cpu: u64,
    pub time_limit: Option<crate::model::Minutes>,
    pub priority: u32,
    pub restarts: u32,
    /// MB in all: requested (the node's memory when the job asked for all
    /// of it, as far as known), and allocated (0 while pending). With the
    /// CPU and node counts they are the job's `ReqTRES`/`AllocTRES`.
    pub req_mem_mb: u64,
    pub alloc_mem_mb: u64,
    /// `--gres` as asked (empty: none).
    pub gres: String,
    /// Started by the main scheduler (`SchedMain`) or by backfill.
    pub sched_backfill: bool,
    pub steps: Vec<AcctStep>,
}

impl AcctJob {
    /// `123`, `123_4` or `123_[1-3]`.
    pub fn display_id(&self) -> String {
        if self.array_job_id == 0 {
            return self.job_id.to_string();
        }
        match self.array_task_id {
            Some(t) => format!("{}_{}", self.array_job_id, t),
            None => format!("{}_[{}]", self.array_job_id, self.array_tasks),
        }
    }

    /// Seconds it ran (to `now` while running), less the time suspended.
    pub fn elapsed(&self, now: i64) -> i64 {
        if self.start == 0 {
            return 0;
        }
        let end = if self.end == 0 { now } else { self.end };
        let mut t = end - self.start - self.suspended;
        if self.suspend_time != 0 && self.state == AcctState::Suspended {
            t -= now - self.suspend_time;
        }
        t.max(0)
    }
}

/// The state a step is recorded with: running while it runs; once ended,
/// `CANCELLED` when its job was cancelled or timed out while it ran (slurmdbd
/// gets the step's end from the job's kill), `FAILED` on a non-zero status,
/// else `COMPLETED`.
pub fn step_state(job: &Job, s: &Step) -> AcctState {
    if s.end_time == 0 && job.end_time == 0 {
        return AcctState::Running;
    }
    let status = s.exit_status.unwrap_or(0);
    let killed = job.kill_reason.is_some() || matches!(job.state, JobState::Cancelled | JobState::Timeout);
    if s.end_time == 0 || (killed && s.end_time >= job.end_time && job.end_time != 0) {
        return match job.kill_reason.unwrap_or(job.state) {
            JobState::Timeout => AcctState::Cancelled,
            JobState::OutOfMemory => AcctState::OutOfMemory,
            JobState::NodeFail => AcctState::NodeFail,
            _ => AcctState::Cancelled,
        };
    }
    if status & 0x7f != 0 && status & 0x7f != 0x7f {
        return if (status & 0x7f) == libc::SIGKILL && killed { AcctState::Cancelled } else { AcctState::Failed };
    }
    if (status >> 8) & 0xff != 0 {
        AcctState::Failed
    } else {
        AcctState::Completed
    }
}

fn step_record(job: &Job, s: &Step) -> AcctStep {
    let state = step_state(job, s);
    AcctStep {
        step_id: s.step_id,
        name: s.name.clone(),
        state,
        cancelled_by: if state == AcctState::Cancelled { job.cancelled_by } else { None },
        start: s.start_time,
        end: if s.end_time != 0 {
            s.end_time
        } else if job.end_time != 0 && !job.state.is_active() {
            job.end_time
        } else {
            0
        },
        exit_status: s.exit_status,
        nodes: s.node_names(),
        ntasks: s.num_tasks,
        cpus: s.num_cpus(),
        mem_mb: s.allocs.iter().map(|a| a.mem_mb).sum(),
        time_limit: s.time_limit,
        submit_line: s.submit_line.clone(),
        work_dir: s.work_dir.clone(),
        distribution: s.distribution.clone(),
        usage: s.usage.clone(),
    }
}

/// The batch step of a job that started with a script, as slurmdbd records
/// it: on the batch host, from the job's start to its end, with the script's
/// exit status and its usage.
fn batch_step(job: &Job) -> Option<AcctStep> {
    if job.batch_flag == 0 || job.start_time == 0 {
        return None;
    }
    let a = job.allocs.first()?;
    let ended = !job.state.is_active();
    let state = if !ended {
        AcctState::Running
    } else {
        match job.state {
            JobState::Cancelled | JobState::Timeout => AcctState::Cancelled,
            JobState::Completed => AcctState::Completed,
            s => AcctState::from_job_state(s),
        }
    };
    Some(AcctStep {
        step_id: BATCH_STEP,
        name: "batch".into(),
        state,
        // slurmdbd records no canceller for the batch step: `CANCELLED`
        // (recorded/24.11/sacct/083)
        cancelled_by: None,
        start: job.start_time,
        end: if ended { job.end_time } else { 0 },
        exit_status: if ended { Some(job.exit_status) } else { None },
        nodes: vec![a.node.clone()],
        ntasks: 1,
        cpus: a.cpus,
        mem_mb: a.mem_mb,
        time_limit: None,
        submit_line: String::new(),
        work_dir: job.desc.work_dir.clone(),
        distribution: String::new(),
        usage: job.batch_usage.iter().cloned().collect(),
    })
}

/// sacct's Reason (slurmdbd's `state_reason_prev`): what the job last
/// waited for before it started. 24.11 records `None` until then and
/// `BeginTime` for a requeued run (held back by its new begin time), 22.05
/// the pending reason (recorded/24.11/sacct/058, 162; 22.05/sacct/058).
fn prev_reason(job: &Job) -> String {
    if job.state == JobState::Pending && crate::compat::release() == crate::compat::Release::V22_05 {
        return job.reason.text().to_string();
    }
    if job.restart_count > 0 && job.start_time != 0 {
        return "BeginTime".into();
    }
    "None".into()
}

impl AcctJob {
    /// The record of `job` as it stands (`cluster`: slurm.conf's ClusterName;
    /// `node_mem`: a node's memory in MB, what a job that asked for none
    /// gets per node, 0 when not known).
    pub fn from_job(job: &Job, cluster: &str, node_mem: u64) -> AcctJob {
        let (array_job_id, array_task_id, array_tasks, array_max_running) = match &job.array {
            Some(a) => (
                a.array_job_id,
                a.task_id,
                if a.task_id.is_none() { spur_grammar::jobref::ranges(&a.pending_tasks) } else { String::new() },
                a.max_running,
            ),
            None => (0, None, String::new(), 0),
        };
        let mut steps = vec![];
        // as sacct lists them: extern, batch, then by number (ended and running)
        let mut all: Vec<&Step> = job.done_steps.iter().chain(job.steps.iter()).collect();
        all.sort_by_key(|s| s.step_id);
        for s in all.iter().filter(|s| s.step_id == EXTERN_STEP) {
            steps.push(step_record(job, s));
        }
        if let Some(b) = batch_step(job) {
            steps.push(b);
        }
        for s in all.iter().filter(|s| s.step_id != EXTERN_STEP && s.step_id != BATCH_STEP) {
            steps.push(step_record(job, s));
        }
        let state = AcctState::from_job_state(job.state);
        AcctJob {
            job_id: job.job_id,
            array_job_id,
            array_task_id,
            array_tasks,
            array_max_running,
            cluster: cluster.to_string(),
            partition: job.partition.clone(),
            account: job.desc.account.clone().unwrap_or_default(),
            qos: job.desc.qos.clone().unwrap_or_default(),
            name: job.desc.name.clone(),
            user_id: job.user_id,
            user_name: job.user_name.clone(),
            group_id: job.group_id,
            group_name: job.group_name.clone(),
            work_dir: job.desc.work_dir.clone(),
            submit_line: job.desc.submit_line.clone(),
            comment: job.desc.comment.clone().unwrap_or_default(),
            admin_comment: job.admin_comment.clone().unwrap_or_default(),
            constraints: job.desc.constraint.clone().unwrap_or_default(),
            reservation: job.desc.reservation.clone().unwrap_or_default(),
            std_out: job.desc.std_out.clone().unwrap_or_default(),
            std_err: job.desc.std_err.clone().unwrap_or_default(),
            std_in: job.desc.std_in.clone().unwrap_or_default(),
            state,
            cancelled_by: if state == AcctState::Cancelled { job.cancelled_by } else { None },
            reason: prev_reason(job),
            submit: job.submit_time,
            eligible: job.eligible_time,
            // a job cancelled while pending never started, whatever time its
            // record carries (recorded/24.11/sacct/058: `None`)
            start: if job.allocs.is_empty() { 0 } else { job.start_time },
            end: if job.state.is_active() { 0 } else { job.end_time },
            suspended: job.pre_sus_time,
            suspend_time: job.suspend_time,
            // a cancelled or timed-out job ends with 0:0, its batch step
            // with the signal (recorded/24.11/sacct/038, 093)
            exit_status: if matches!(job.state, JobState::Cancelled | JobState::Timeout) { 0 } else { job.exit_status },
            // the highest status of its srun steps (recorded/24.11/sacct/056: 4:0)
            derived_exit_code: steps
                .iter()
                .filter(|s| s.step_id != EXTERN_STEP && s.step_id != BATCH_STEP)
                .filter_map(|s| s.exit_status)
                .fold(job.derived_exit_code, i32::max),
            nodes: job.node_names(),
            req_nodes: job.desc.min_nodes.unwrap_or(job.num_nodes),
            req_cpus: job.num_cpus,
            alloc_cpus: if job.start_time != 0 { job.allocs.iter().map(|a| a.cpus).sum() } else { 0 },
            mem_per_node: job.mem_per_node,
            mem_per_cpu: job.mem_per_cpu,
            time_limit: job.time_limit,
            priority: job.priority,
            restarts: job.restart_count,
            req_mem_mb: {
                let (cpus, nodes) = job.tres_counted.unwrap_or((job.num_cpus, job.num_nodes));
                if job.mem_per_cpu > 0 {
                    job.mem_per_cpu.saturating_mul(u64::from(cpus))
                } else if job.mem_per_node > 0 {
                    job.mem_per_node.saturating_mul(u64::from(nodes))
                } else {
                    node_mem.saturating_mul(u64::from(nodes))
                }
            },
            alloc_mem_mb: job.allocs.iter().map(|a| a.mem_mb).sum(),
            gres: job.desc.gres.clone().unwrap_or_default(),
            sched_backfill: job.sched_backfill,
            steps,
        }
    }
}

/// What sacct asks for: every filter is applied by the controller
/// ([`AcctQuery::matches`]), so a query for one user's day reads only its
/// records. Empty lists match everything.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AcctQuery {
    /// Job references: `(job id, task)`; a task of `None` names the job (or
    /// the whole array whose id it is).
    pub jobs: Vec<(u32, Option<u32>)>,
    pub user_ids: Vec<u32>,
    pub group_ids: Vec<u32>,
    pub accounts: Vec<String>,
    pub partitions: Vec<String>,
    pub names: Vec<String>,
    pub states: Vec<AcctState>,
    /// Jobs that ran on any of these nodes.
    pub nodes: Vec<String>,
    /// The window: a job is in it when it was eligible, running or ended
    /// inside it (0: open).
    pub start: i64,
    pub end: i64,
    /// Every run of a requeued job (`--duplicates`), not only the last.
    pub duplicates: bool,
    /// The jobs without their steps (`sacct -X`): the answer is smaller.
    #[serde(default)]
    pub no_steps: bool,
}

impl AcctQuery {
    /// Whether `j` answers the query (the window's rules as slurmdbd's
    /// `setup_job_cond_limits`: with states asked, a job in one of them
    /// during the window; without, any job eligible before the window's end
    /// and not ended before its start).
    pub fn matches(&self, j: &AcctJob) -> bool {
        if !self.jobs.is_empty()
            && !self.jobs.iter().any(|&(id, task)| match task {
                None => j.job_id == id || j.array_job_id == id,
                Some(t) => j.array_job_id == id && (j.array_task_id == Some(t) || task_pending_in(j, t)),
            })
        {
            return false;
        }
        if !self.user_ids.is_empty() && !self.user_ids.contains(&j.user_id) {
            return false;
        }
        if !self.group_ids.is_empty() && !self.group_ids.contains(&j.group_id) {
            return false;
        }
        if !self.accounts.is_empty() && !self.accounts.iter().any(|a| a == &j.account) {
            return false;
        }
        if !self.partitions.is_empty() && !self.partitions.iter().any(|p| p == &j.partition) {
            return false;
        }
        if !self.names.is_empty() && !self.names.iter().any(|n| n == &j.name) {
            return false;
        }
        if !self.nodes.is_empty() && !j.nodes.iter().any(|n| self.nodes.contains(n)) {
            return false;
        }
        self.in_window(j)
    }

    /// slurmdbd's time rules (`as_mysql_jobacct_process.c`): with states
    /// asked, a job in one of them during the window (pending: eligible
    /// before its end and not started or ended before its start; running:
    /// started before its end and not ended before its start; an ended state:
    /// ended inside it); without, for named jobs any job submitted before the
    /// window's end and not ended before its start, else any job eligible
    /// before its end and not ended before its start.
    pub fn in_window(&self, j: &AcctJob) -> bool {
        let (start, end) = (self.start, self.end);
        if !self.states.is_empty() {
            return self.states.iter().any(|&st| state_in_window(j, st, start, end));
        }
        let not_ended_before = |start: i64| j.end == 0 || j.end >= start;
        if !self.jobs.is_empty() {
            if start == 0 && end == 0 {
                return true;
            }
            return (end == 0 || j.submit < end) && not_ended_before(start);
        }
        match (start, end) {
            (0, 0) => true,
            (s, 0) => not_ended_before(s),
            (s, e) => j.eligible != 0 && j.eligible < e && not_ended_before(s),
        }
    }
}

/// Whether `j` was in state `st` during `[start, end]` (slurmdbd's
/// `_state_time_string`).
fn state_in_window(j: &AcctJob, st: AcctState, start: i64, end: i64) -> bool {
    if start == 0 && end == 0 {
        return j.state == st;
    }
    match st {
        AcctState::Pending => {
            // started after the window's start, or cancelled (no start)
            // after it, or still pending
            let waited = match (j.start, j.end) {
                (0, 0) => j.state == AcctState::Pending,
                (0, e) => start < e,
                (s, _) => start < s,
            };
            j.eligible != 0 && waited && end > j.eligible
        }
        AcctState::Running => {
            // 22.05's slurmdbd gives a job cancelled while pending its
            // cancel's time as its start (recorded/22.05/sacct/059), so it
            // ran then (125: `-s R` lists it)
            let began = if j.start == 0 && j.end != 0 && crate::compat::release() == crate::compat::Release::V22_05 {
                j.end
            } else {
                j.start
            };
            began != 0 && (start < j.end || (j.end == 0 && j.state == AcctState::Running)) && end > began
        }
        AcctState::Suspended => j.state == AcctState::Suspended || j.suspended > 0,
        _ => j.state == st && j.end != 0 && j.end >= start && j.end <= end,
    }
}

fn task_pending_in(j: &AcctJob, t: u32) -> bool {
    j.array_task_id.is_none()
        && !j.array_tasks.is_empty()
        && spur_grammar::jobref::expand_ranges(&j.array_tasks).contains(&t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_names() {
        assert_eq!(AcctState::ALL.map(|s| s.short()).join(","), "PD,R,S,CD,CA,F,TO,NF,PR,BF,DL,OOM,RQ");
        assert_eq!(AcctState::from_job_state(JobState::Completing), AcctState::Running);
        assert_eq!(AcctState::from_job_state(JobState::Timeout).name(), "TIMEOUT");
    }

    #[test]
    fn window_rules() {
        let j = AcctJob {
            submit: 100,
            eligible: 100,
            start: 110,
            end: 200,
            state: AcctState::Completed,
            ..Default::default()
        };
        let q = |start, end| AcctQuery { start, end, ..Default::default() };
        assert!(q(0, 0).matches(&j));
        assert!(q(150, 0).matches(&j));
        assert!(!q(201, 0).matches(&j));
        assert!(q(50, 101).matches(&j));
        assert!(!q(50, 100).matches(&j), "the end is exclusive");
        let running = AcctJob { end: 0, state: AcctState::Running, ..j.clone() };
        assert!(q(10_000, 20_000).matches(&running));
        let st = |states: Vec<AcctState>, start, end| AcctQuery { states, start, end, ..Default::default() };
        assert!(st(vec![AcctState::Completed], 150, 250).matches(&j));
        assert!(!st(vec![AcctState::Completed], 201, 250).matches(&j));
        assert!(st(vec![AcctState::Running], 150, 250).matches(&j), "it ran in the window");
        assert!(st(vec![AcctState::Pending], 50, 250).matches(&j), "it waited in the window");
        assert!(!st(vec![AcctState::Pending], 120, 250).matches(&j));
        let named = AcctQuery { jobs: vec![(0, None)], start: 300, end: 400, ..Default::default() };
        assert!(!named.matches(&j));
    }

    #[test]
    fn job_references() {
        let plain = AcctJob { job_id: 7, ..Default::default() };
        let task = AcctJob { job_id: 9, array_job_id: 8, array_task_id: Some(1), ..Default::default() };
        let meta = AcctJob {
            job_id: 8,
            array_job_id: 8,
            array_task_id: None,
            array_tasks: "2-3".into(),
            ..Default::default()
        };
        let q = |jobs: Vec<(u32, Option<u32>)>| AcctQuery { jobs, ..Default::default() };
        assert!(q(vec![(7, None)]).matches(&plain));
        assert!(!q(vec![(8, None)]).matches(&plain));
        assert!(q(vec![(8, None)]).matches(&task) && q(vec![(8, None)]).matches(&meta));
        assert!(q(vec![(8, Some(1))]).matches(&task) && !q(vec![(8, Some(1))]).matches(&meta));
        assert!(q(vec![(8, Some(3))]).matches(&meta));
        assert!(q(vec![(9, None)]).matches(&task));
        assert_eq!(meta.display_id(), "8_[2-3]");
        assert_eq!(task.display_id(), "8_1");
    }
}
