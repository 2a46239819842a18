//! The controller's state machine: every change to jobs and nodes is a
//! [`Command`], applied by [`State::apply`] and nothing else. Commands are
//! deterministic (the leader fills in times and choices before logging them),
//! so replaying the log on a fresh state gives the same state back.
//!
//! [`raft`] replicates and keeps the commands durable: openraft's log on disk
//! with a checksum on every record, fsynced before a change is acknowledged,
//! and snapshots that bound it.

pub mod legacy_v0;
pub mod raft;

use serde::{Deserialize, Serialize};
use spur_core::errors::*;
use spur_core::model::*;
use std::collections::{BTreeMap, HashMap};

/// One change to the cluster.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Command {
    /// Create a job (or an array meta-record) from a validated submission.
    Submit { job: Box<Job> },
    /// Start a job (or split task `task` off an array meta-record and start it).
    Start {
        job_id: u32,
        task: Option<u32>,
        allocs: Vec<NodeAlloc>,
        now: i64,
        /// Milliseconds of the pass that decided the start (`Job::start_pass_ms`).
        #[serde(default)]
        pass_ms: i64,
    },
    /// Pending reasons changed.
    Reasons { changes: Vec<(u32, Reason)> },
    /// The batch script ended (wait status), or its launch failed.
    Complete { job_id: u32, exit_status: i32, launch_failed: bool, now: i64 },
    /// Cancel or time out a job: pending jobs end at once, running ones go
    /// COMPLETING until their node reports back.
    Kill { job_id: u32, task: Option<u32>, state: JobState, now: i64 },
    Hold { job_id: u32, reason: Reason },
    Release { job_id: u32 },
    Requeue { job_id: u32, hold: bool, now: i64 },
    UpdateJob { job_id: u32, update: JobUpdate },
    NodeRegistered { name: String, reg: NodeReg, now: i64 },
    NodeHeartbeat { name: String, cpu_load: u32, free_mem: u64, now: i64 },
    NodeNotResponding { name: String, now: i64 },
    NodeDown { name: String, reason: String, uid: u32, now: i64 },
    NodeUpdate { name: String, update: NodeUpdate, uid: u32, now: i64 },
    Purge { job_ids: Vec<u32> },
    /// Jobs that became eligible to run (no hold, dependencies satisfied).
    Eligible { job_ids: Vec<u32>, now: i64 },
    /// A submission rejected after slurmctld had created its job record: the
    /// id it took is gone (`recorded/24.11/job_ids`).
    ConsumeJobId,
    /// `--kill-on-invalid-dep=yes` and a dependency that can never be
    /// satisfied: the pending job ends CANCELLED and keeps its reason
    /// `DependencyNeverSatisfied` (start and end time are now, as slurmctld
    /// sets them when it kills a dependant).
    CancelNeverSatisfied { job_id: u32, now: i64 },
    /// `scontrol suspend`/`resume`: the job's CPUs are free while it is stopped.
    Suspend { job_id: u32, now: i64 },
    Resume { job_id: u32, now: i64 },
    /// `scontrol update PartitionName=…`.
    PartitionUpdate { name: String, update: PartUpdate },
    /// A submission rejected after slurmctld had also given it a priority
    /// (priority/basic: the next job's priority is one lower; 22.05's
    /// rejections by node configuration or count). Nothing without priority/basic.
    ConsumeBasicPriority,
    /// `scontrol create reservation` (the leader has resolved times and nodes).
    ResvCreate { resv: Reservation },
    /// `scontrol update reservation`: the whole new record.
    ResvUpdate { resv: Reservation },
    ResvDelete { name: String },
    /// The cluster's active format version (`spur_format`): every member
    /// writes its records at this version from here on. Committed by the
    /// leader once every member reports that it reads it; never lowered.
    /// Since format version 1.
    SetFormatVersion { version: u16 },
}

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
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
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
}

/// What an applied command produced, for the RPC reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Applied {
    Ok,
    Submitted(u32),
    Started(u32),
    /// A job reached a final state (its node(s) are free again).
    Ended(u32),
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    pub cluster_name: String,
    pub nodes: Vec<Node>,
    pub partitions: Vec<Partition>,
    pub jobs: BTreeMap<u32, Job>,
    pub next_job_id: u32,
    pub first_job_id: u32,
    pub max_job_id: u32,
    /// Index of the last command applied (the log's numbering).
    pub applied: u64,
    /// Client request ids already seen, for idempotent submission.
    pub request_ids: HashMap<String, u32>,
    /// slurmctld's job list order: new records are appended; when an array task
    /// splits off its meta-record, the task keeps the record's place and the
    /// meta-record moves to the end. Position key -> job id.
    pub job_order: BTreeMap<u64, u32>,
    /// Job id -> position key in `job_order`.
    pub job_pos: HashMap<u32, u64>,
    pub next_pos: u64,
    /// PriorityType=priority/basic (set by the controller from slurm.conf, or
    /// from the imitated release's default when the key is absent): a job
    /// that gets a priority takes one less than the lowest given so far.
    #[serde(default)]
    pub priority_basic: bool,
    /// The lowest priority/basic priority given so far (0: none yet).
    #[serde(default)]
    pub lowest_prio: u32,
    /// Behave as Slurm 22.05's slurmctld where it differs from 24.11 (set by
    /// the controller from spur_core::compat, like `priority_basic`).
    #[serde(default)]
    pub slurm_22_05: bool,
    /// Reservations in creation order.
    #[serde(default)]
    pub reservations: Vec<Reservation>,
    /// slurmctld's `top_suffix`: the last reservation id given (names `user_N`).
    #[serde(default)]
    pub resv_top: u32,
    /// The cluster's active format version (`Command::SetFormatVersion`); 0
    /// until its members first agreed on one (a new cluster, or one whose
    /// state was written before versioned formats): they write
    /// `spur_format::MIN_VERSION` meanwhile. Since format version 1.
    #[serde(default)]
    format_version: u16,
    /// Ids of every job not yet finished, and of some finished since (pruned by
    /// `queue_ids`), so that a scheduling pass costs what the queue holds, not
    /// every finished job still remembered. Not part of the replicated state:
    /// rebuilt from `jobs` on first use after a restart or a snapshot.
    #[serde(skip)]
    queue_hint: Option<std::collections::BTreeSet<u32>>,
    /// Index of nodes by name.
    #[serde(skip)]
    node_index: HashMap<String, usize>,
}

impl State {
    pub fn new(cluster_name: String, nodes: Vec<Node>, partitions: Vec<Partition>, first_job_id: u32, max_job_id: u32) -> State {
        let mut s = State {
            cluster_name,
            nodes,
            partitions,
            jobs: BTreeMap::new(),
            next_job_id: first_job_id.max(1),
            first_job_id: first_job_id.max(1),
            max_job_id,
            applied: 0,
            request_ids: HashMap::new(),
            job_order: BTreeMap::new(),
            job_pos: HashMap::new(),
            next_pos: 0,
            priority_basic: false,
            lowest_prio: 0,
            slurm_22_05: false,
            reservations: Vec::new(),
            resv_top: 0,
            format_version: 0,
            queue_hint: None,
            node_index: HashMap::new(),
        };
        s.reindex();
        s
    }

    /// priority/basic's next priority (slurmctld's set_job_prio with the
    /// basic plugin): one below the lowest so far (0xffff0000 at first), moved
    /// down by a positive nice (up by a negative one), never below 1; the
    /// lowest so far follows the priority before the nice adjustment.
    pub fn next_basic_priority(&mut self, nice: i32) -> u32 {
        const TOP: u32 = 0xffff_0000;
        let last = if self.lowest_prio == 0 { TOP } else { self.lowest_prio };
        let mut p: i64 = if last >= 2 { last as i64 - 1 } else { 1 };
        let off = nice as i64;
        if off <= 0 || p > off + 1 {
            p -= off;
        }
        let p = p.clamp(1, u32::MAX as i64) as u32;
        let relative = (p as i64 + off).clamp(1, u32::MAX as i64) as u32;
        self.lowest_prio = relative.min(last);
        p
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

    pub fn reindex(&mut self) {
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
    }

    /// Put `id` at the end of the job list (removing it from where it was).
    fn list_append(&mut self, id: u32) {
        if let Some(p) = self.job_pos.remove(&id) {
            self.job_order.remove(&p);
        }
        let p = self.next_pos;
        self.next_pos += 1;
        self.job_order.insert(p, id);
        self.job_pos.insert(id, p);
    }

    /// Array split: the split-off record `task_id` takes `meta_id`'s place in
    /// the job list and `meta_id` moves to the end (slurmctld's job_array_split
    /// keeps the original record, which becomes the task, and appends the copy
    /// that stays pending).
    fn list_split(&mut self, meta_id: u32, task_id: u32) {
        match self.job_pos.remove(&meta_id) {
            Some(p) => {
                self.job_order.insert(p, task_id);
                self.job_pos.insert(task_id, p);
                self.list_append(meta_id);
            }
            None => self.list_append(task_id),
        }
    }

    fn list_remove(&mut self, id: u32) {
        if let Some(p) = self.job_pos.remove(&id) {
            self.job_order.remove(&p);
        }
    }

    /// A job (new, or requeued) is in the queue again.
    fn queued(&mut self, id: u32) {
        if let Some(q) = &mut self.queue_hint {
            q.insert(id);
        }
    }

    /// The ids of the jobs not yet finished (pending, running, suspended,
    /// completing), in id order.
    pub fn queue_ids(&mut self) -> Vec<u32> {
        let jobs = &self.jobs;
        let q = self
            .queue_hint
            .get_or_insert_with(|| jobs.values().filter(|j| !j.state.is_finished()).map(|j| j.job_id).collect());
        q.retain(|id| jobs.get(id).map(|j| !j.state.is_finished()).unwrap_or(false));
        q.iter().copied().collect()
    }

    /// The unfinished jobs' ids in slurmctld's job list order (what squeue
    /// lists by default): costs what the queue holds, not every job kept.
    pub fn queue_in_order(&mut self) -> Vec<u32> {
        let mut ids = self.queue_ids();
        ids.sort_by_key(|id| self.job_pos.get(id).copied().unwrap_or(u64::MAX));
        ids
    }

    /// Jobs in slurmctld's job list order.
    pub fn jobs_in_order(&self) -> impl Iterator<Item = &Job> + '_ {
        self.job_order.values().filter_map(move |id| self.jobs.get(id))
    }

    pub fn node(&self, name: &str) -> Option<&Node> {
        self.node_index.get(name).map(|&i| &self.nodes[i])
    }
    fn node_mut(&mut self, name: &str) -> Option<&mut Node> {
        match self.node_index.get(name) {
            Some(&i) => Some(&mut self.nodes[i]),
            None => None,
        }
    }
    pub fn partition(&self, name: &str) -> Option<&Partition> {
        self.partitions.iter().find(|p| p.name == name)
    }
    pub fn default_partition(&self) -> Option<&Partition> {
        self.partitions.iter().find(|p| p.default)
    }

    /// The id the next job will get.
    fn take_job_id(&mut self) -> u32 {
        let mut id = self.next_job_id;
        while self.jobs.contains_key(&id) {
            id = if id >= self.max_job_id { self.first_job_id } else { id + 1 };
        }
        self.next_job_id = if id >= self.max_job_id { self.first_job_id } else { id + 1 };
        id
    }

    /// Apply one command. Errors are Slurm error numbers; a command that
    /// fails changes nothing.
    pub fn apply(&mut self, cmd: &Command) -> Result<Applied, i32> {
        match cmd {
            Command::Submit { job } => {
                if let Some(rid) = &job.desc.request_id {
                    if let Some(&id) = self.request_ids.get(rid) {
                        return Ok(Applied::Submitted(id));
                    }
                }
                let mut job = (**job).clone();
                let id = self.take_job_id();
                job.job_id = id;
                if self.priority_basic && job.priority == 1 {
                    job.priority = self.next_basic_priority(job.desc.nice.unwrap_or(0));
                }
                if let Some(a) = &mut job.array {
                    a.array_job_id = id;
                }
                if let Some(rid) = &job.desc.request_id {
                    self.request_ids.insert(rid.clone(), id);
                }
                self.jobs.insert(id, job);
                self.queued(id);
                self.list_append(id);
                Ok(Applied::Submitted(id))
            }
            Command::Start { job_id, task, allocs, now, pass_ms } => {
                let mut id = *job_id;
                let meta = self.jobs.get(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                if meta.state != JobState::Pending {
                    return Err(ESLURM_JOB_NOT_PENDING);
                }
                for a in allocs {
                    if self.node(&a.node).is_none() {
                        return Err(ESLURM_INVALID_NODE_NAME);
                    }
                }
                if let Some(t) = task {
                    // split task t off the meta-record
                    let meta = self.jobs.get(job_id).cloned().ok_or(ESLURM_INVALID_JOB_ID)?;
                    let ai = meta.array.clone().ok_or(ESLURM_INVALID_ARRAY)?;
                    if !ai.pending_tasks.contains(t) {
                        return Err(ESLURM_INVALID_ARRAY);
                    }
                    if ai.pending_tasks.len() == 1 {
                        let m = self.jobs.get_mut(job_id).unwrap();
                        let a = m.array.as_mut().unwrap();
                        a.pending_tasks.clear();
                        a.task_id = Some(*t);
                    } else {
                        let new_id = self.take_job_id();
                        let mut tj = meta.clone();
                        tj.job_id = new_id;
                        let a = tj.array.as_mut().unwrap();
                        a.pending_tasks.clear();
                        a.task_id = Some(*t);
                        self.jobs.insert(new_id, tj);
                        self.queued(new_id);
                        self.list_split(*job_id, new_id);
                        let m = self.jobs.get_mut(job_id).unwrap();
                        m.array.as_mut().unwrap().pending_tasks.retain(|x| x != t);
                        id = new_id;
                    }
                }
                let job = self.jobs.get_mut(&id).unwrap();
                if job.eligible_time == 0 {
                    job.eligible_time = *now;
                }
                job.state = JobState::Running;
                job.reason = Reason::None;
                job.start_time = *now;
                job.last_sched_eval = *now;
                job.requeued_done = false;
                job.start_pass_ms = *pass_ms;
                job.allocs = allocs.clone();
                job.num_nodes = allocs.len() as u32;
                job.num_cpus = allocs.iter().map(|a| a.cpus).sum();
                job.batch_flag = 1;
                if let Some(lim) = job.time_limit {
                    job.end_time = now + lim as i64 * 60;
                } else {
                    job.end_time = 0;
                }
                let allocs = job.allocs.clone();
                for a in &allocs {
                    if let Some(n) = self.node_mut(&a.node) {
                        n.alloc_cpus += a.cpus;
                        n.alloc_mem += a.mem_mb;
                        for g in &a.gres {
                            add_gres(&mut n.alloc_gres, &g.name, &g.gtype, g.count as i64);
                        }
                        n.base = NodeBase::Allocated;
                        n.last_busy = *now;
                        if n.reason.is_none() {
                            // slurmctld unsets the reason's author on allocation (sinfo %u: Unknown)
                            n.reason_uid = 0xfffffffe;
                        }
                    }
                }
                Ok(Applied::Started(id))
            }
            Command::CancelNeverSatisfied { job_id, now } => {
                let pending = self.jobs.get(job_id).map(|j| j.state == JobState::Pending).unwrap_or(false);
                if !pending {
                    return Err(ESLURM_JOB_NOT_PENDING);
                }
                let r = self.apply(&Command::Kill { job_id: *job_id, task: None, state: JobState::Cancelled, now: *now })?;
                if let Some(j) = self.jobs.get_mut(job_id) {
                    j.reason = Reason::DependencyNeverSatisfied;
                    j.start_time = *now;
                }
                Ok(r)
            }
            Command::Reasons { changes } => {
                for (id, r) in changes {
                    if let Some(j) = self.jobs.get_mut(id) {
                        if j.state == JobState::Pending {
                            j.reason = r.clone();
                        }
                    }
                }
                Ok(Applied::Ok)
            }
            Command::Complete { job_id, exit_status, launch_failed, now } => {
                let job = self.jobs.get_mut(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                if !job.state.is_active() {
                    // already recorded (a repeated report): nothing to do
                    return Ok(Applied::Ok);
                }
                if job.state == JobState::Suspended {
                    // its CPUs were given back at suspension
                    let allocs = job.allocs.clone();
                    self.suspend_cpus(&allocs, false);
                }
                let slurm_22_05 = self.slurm_22_05;
                let job = self.jobs.get_mut(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                let status = *exit_status;
                job.exit_status = status;
                let final_state = if let Some(k) = job.kill_reason {
                    k
                } else if *launch_failed {
                    JobState::Failed
                } else if status == 0 {
                    JobState::Completed
                } else {
                    JobState::Failed
                };
                job.state = final_state;
                job.reason = match final_state {
                    JobState::Failed if *launch_failed => Reason::Other("launch failed requeued held".into()),
                    // 22.05 calls any death by a signal a launch failure
                    // (recorded/22.05/errors/84; 24.11 RaisedSignal:9(Killed))
                    JobState::Failed if slurm_22_05 && status & 0x7f != 0 && status & 0x7f != 0x7f => {
                        Reason::Other("JobLaunchFailure".into())
                    }
                    JobState::Failed if status & 0x7f != 0 && status & 0x7f != 0x7f => {
                        let sig = status & 0x7f;
                        Reason::Other(format!("RaisedSignal:{}({})", sig, signal_text(sig)))
                    }
                    JobState::Failed => Reason::NonZeroExitCode,
                    JobState::Timeout => Reason::TimeLimit,
                    _ => Reason::None,
                };
                if *launch_failed {
                    job.reason = Reason::Other("JobLaunchFailure".into());
                }
                job.end_time = *now;
                let allocs = job.allocs.clone();
                self.release_nodes(&allocs, *now);
                Ok(Applied::Ended(*job_id))
            }
            Command::Kill { job_id, task, state, now } => {
                let job = self.jobs.get(job_id).ok_or(ESLURM_INVALID_JOB_ID)?.clone();
                if job.state.is_finished() {
                    return Err(ESLURM_ALREADY_DONE);
                }
                if let Some(t) = task {
                    // a pending task of an array meta-record: split it off as its own ended record
                    let ai = job.array.clone().ok_or(ESLURM_INVALID_JOB_ID)?;
                    if !ai.pending_tasks.contains(t) {
                        return Err(ESLURM_INVALID_JOB_ID);
                    }
                    if ai.pending_tasks.len() > 1 {
                        let new_id = self.take_job_id();
                        let mut tj = job.clone();
                        tj.job_id = new_id;
                        let a = tj.array.as_mut().unwrap();
                        a.pending_tasks.clear();
                        a.task_id = Some(*t);
                        tj.state = *state;
                        tj.reason = Reason::None;
                        // a job that ends before starting gets start = end (Slurm)
                        tj.start_time = *now;
                        tj.end_time = *now;
                        self.jobs.insert(new_id, tj);
                        self.queued(new_id);
                        self.list_split(*job_id, new_id);
                        self.jobs.get_mut(job_id).unwrap().array.as_mut().unwrap().pending_tasks.retain(|x| x != t);
                        return Ok(Applied::Ended(new_id));
                    }
                    let j = self.jobs.get_mut(job_id).unwrap();
                    let a = j.array.as_mut().unwrap();
                    a.pending_tasks.clear();
                    a.task_id = Some(*t);
                }
                let j = self.jobs.get_mut(job_id).unwrap();
                if j.state == JobState::Pending {
                    j.state = *state;
                    // a job that ends before starting gets start = end (Slurm)
                    j.start_time = *now;
                    j.end_time = *now;
                    // it keeps its pending reason (recorded/24.11/scontrol/194:
                    // CANCELLED Reason=BeginTime)
                    if let Some(a) = &mut j.array {
                        if a.task_id.is_none() {
                            // the whole remaining array ends
                            a.pending_tasks.clear();
                        }
                    }
                    return Ok(Applied::Ended(*job_id));
                }
                if j.state == JobState::Suspended {
                    // it is woken to die: its CPUs count again until it ends
                    let allocs = j.allocs.clone();
                    self.suspend_cpus(&allocs, false);
                }
                let j = self.jobs.get_mut(job_id).unwrap();
                if j.kill_reason.is_none() {
                    j.kill_reason = Some(*state);
                }
                j.state = JobState::Completing;
                Ok(Applied::Ok)
            }
            Command::Hold { job_id, reason } => {
                let j = self.jobs.get_mut(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                if j.state.is_active() {
                    // holding a running job succeeds (recorded/24.11/errors/58: rc 0,
                    // no output); the hold applies if the job is requeued
                    // (recorded/24.11/scontrol/152: PENDING JobHeldAdmin)
                    j.held = Some(reason.clone());
                    j.priority = 0;
                    return Ok(Applied::Ok);
                }
                if j.state != JobState::Pending {
                    return Err(ESLURM_JOB_NOT_PENDING);
                }
                j.held = Some(reason.clone());
                j.reason = reason.clone();
                j.priority = 0;
                Ok(Applied::Ok)
            }
            Command::Release { job_id } => {
                // priority/basic: a release gives the job a new priority, held
                // or not (slurmctld sets the priority of every job an operator
                // releases; recorded/22.05/scontrol/194)
                let basic = self.priority_basic;
                let j = self.jobs.get_mut(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                if j.state.is_active() {
                    // releasing a running job: rc 0 (recorded/24.11/errors/59)
                    if j.held.take().is_some() && j.priority == 0 {
                        j.priority = 1;
                    }
                    if basic {
                        let nice = j.desc.nice.unwrap_or(0);
                        let p = self.next_basic_priority(nice);
                        self.jobs.get_mut(job_id).unwrap().priority = p;
                    }
                    return Ok(Applied::Ok);
                }
                if j.state != JobState::Pending {
                    return Err(ESLURM_JOB_NOT_PENDING);
                }
                j.held = None;
                j.reason = Reason::None;
                if j.priority == 0 {
                    j.priority = 1;
                }
                if basic {
                    let nice = j.desc.nice.unwrap_or(0);
                    let p = self.next_basic_priority(nice);
                    self.jobs.get_mut(job_id).unwrap().priority = p;
                }
                Ok(Applied::Ok)
            }
            Command::Requeue { job_id, hold, now } => {
                let j = self.jobs.get(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                if j.state == JobState::Pending {
                    return Err(ESLURM_DISABLED);
                }
                let allocs = j.allocs.clone();
                let was_active = j.state.is_active();
                if j.state == JobState::Suspended {
                    self.suspend_cpus(&allocs, false);
                }
                if was_active {
                    self.release_nodes(&allocs, *now);
                }
                self.queued(*job_id);
                let j = self.jobs.get_mut(job_id).unwrap();
                j.state = JobState::Pending;
                j.restart_count += 1;
                j.requeued_done = !was_active && !allocs.is_empty();
                j.start_pass_ms = 0;
                j.allocs.clear();
                j.start_time = 0;
                j.end_time = 0;
                j.kill_reason = None;
                j.exit_status = 0;
                j.suspend_time = 0;
                j.pre_sus_time = 0;
                j.submit_time = *now;
                if self.slurm_22_05 {
                    // a requeued 22.05 job shows a single node count
                    // (recorded/22.05/scontrol/131: NumNodes=2, 24.11 2-2)
                    j.desc.max_nodes = None;
                }
                // eligible again after slurmctld's requeue delay (the credential
                // lifetime plus one second, recorded/24.11/scontrol/131)
                j.desc.begin_time = now + REQUEUE_DELAY;
                j.eligible_time = now + REQUEUE_DELAY;
                if *hold {
                    j.held = Some(Reason::Other("job requeued in held state".into()));
                    j.reason = Reason::Other("job requeued in held state".into());
                    j.priority = 0;
                } else if let Some(h) = j.held.clone() {
                    // held while it ran
                    j.reason = h;
                    j.priority = 0;
                } else {
                    j.reason = Reason::None;
                }
                Ok(Applied::Ok)
            }
            Command::Suspend { job_id, now } => {
                let j = self.jobs.get(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                match j.state {
                    JobState::Running => {}
                    JobState::Suspended => return Ok(Applied::Ok),
                    JobState::Pending => return Err(ESLURM_JOB_PENDING),
                    _ => return Err(ESLURM_ALREADY_DONE),
                }
                let allocs = j.allocs.clone();
                self.suspend_cpus(&allocs, true);
                let j = self.jobs.get_mut(job_id).unwrap();
                let since = if j.suspend_time != 0 { j.suspend_time } else { j.start_time };
                j.pre_sus_time += (now - since).max(0);
                j.suspend_time = *now;
                j.state = JobState::Suspended;
                Ok(Applied::Ok)
            }
            Command::Resume { job_id, now } => {
                let j = self.jobs.get(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                match j.state {
                    JobState::Suspended => {}
                    JobState::Pending => return Err(ESLURM_JOB_PENDING),
                    JobState::Running => return Err(ESLURM_JOB_NOT_SUSPENDED),
                    _ => return Err(ESLURM_ALREADY_DONE),
                }
                let allocs = j.allocs.clone();
                self.suspend_cpus(&allocs, false);
                if self.priority_basic {
                    // an admin's suspend holds the job's priority at 0 and its
                    // resume gives it a new one (slurmctld job_suspend)
                    let nice = self.jobs[job_id].desc.nice.unwrap_or(0);
                    let p = self.next_basic_priority(nice);
                    self.jobs.get_mut(job_id).unwrap().priority = p;
                }
                let j = self.jobs.get_mut(job_id).unwrap();
                if j.end_time != 0 {
                    // the time limit does not run while suspended
                    j.end_time += (now - j.suspend_time).max(0);
                }
                j.suspend_time = *now;
                j.state = JobState::Running;
                Ok(Applied::Ok)
            }
            Command::UpdateJob { job_id, update } => {
                let (slurm_22_05, basic) = (self.slurm_22_05, self.priority_basic);
                let j = self.jobs.get_mut(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
                if j.state.is_finished() {
                    return Err(ESLURM_JOB_FINISHED);
                }
                if update.refused {
                    if j.tres_counted.is_none() {
                        j.tres_counted = Some((j.num_cpus, j.num_nodes));
                    }
                } else {
                    j.tres_counted = None;
                }
                if let Some(t) = update.time_limit {
                    j.time_limit = t;
                    if j.state.is_active() {
                        j.end_time = match t {
                            Some(m) => j.start_time + m as i64 * 60,
                            None => 0,
                        };
                    }
                }
                if let Some(n) = &update.name {
                    j.desc.name = n.clone();
                }
                if let Some(p) = &update.partition {
                    j.partition = p.clone();
                }
                if let Some(p) = update.priority {
                    j.priority = p;
                }
                if let Some(c) = &update.comment {
                    j.desc.comment = Some(c.clone());
                }
                if let Some(b) = update.begin_time {
                    j.desc.begin_time = b;
                    if j.state == JobState::Pending {
                        j.eligible_time = b;
                    }
                }
                if let Some(n) = update.num_nodes {
                    if j.state == JobState::Pending {
                        // min = max = n; tasks not asked for follow the node count,
                        // the CPU count never drops below one per task
                        // (22.05 changes only the minimum: `NumNodes=N` afterwards)
                        j.desc.max_nodes = if slurm_22_05 { None } else { Some(n) };
                        if j.desc.num_tasks.is_none() || j.desc.num_tasks == Some(j.num_tasks) {
                            j.num_tasks = n.max(1);
                        }
                        let cpt = j.desc.cpus_per_task.unwrap_or(1).max(1);
                        j.num_cpus = j.num_cpus.max(j.num_tasks * cpt);
                    }
                    j.num_nodes = n;
                    j.desc.min_nodes = Some(n);
                }
                if let Some(m) = update.time_min {
                    j.desc.time_min = Some(m);
                }
                if let Some(m) = update.mem_per_node {
                    j.mem_per_node = m;
                    j.mem_per_cpu = 0;
                    j.desc.mem_per_node = Some(m);
                    j.desc.mem_per_cpu = None;
                }
                if let Some(m) = update.mem_per_cpu {
                    j.mem_per_cpu = m;
                    j.mem_per_node = 0;
                    j.desc.mem_per_cpu = Some(m);
                    j.desc.mem_per_node = None;
                }
                if let Some(x) = &update.exc_nodes {
                    j.desc.exc_nodes = x.clone();
                }
                if let Some(x) = &update.req_nodes {
                    j.desc.req_nodes = x.clone();
                }
                if let Some(x) = &update.features {
                    j.desc.constraint = x.clone();
                }
                if let Some(w) = &update.work_dir {
                    j.desc.work_dir = w.clone();
                }
                if let Some(r) = update.requeue {
                    j.desc.requeue = Some(r);
                }
                if let Some(x) = &update.std_out {
                    j.desc.std_out = Some(x.clone());
                }
                if let Some(x) = &update.std_err {
                    j.desc.std_err = Some(x.clone());
                }
                if let Some(x) = &update.std_in {
                    j.desc.std_in = Some(x.clone());
                }
                if let Some(n) = update.num_tasks {
                    j.num_tasks = n;
                    j.desc.num_tasks = Some(n);
                }
                if let Some(n) = update.nice {
                    let old = j.desc.nice.unwrap_or(0);
                    if basic && old != n {
                        // priority/basic moves the priority by the change of
                        // nice, to no less than 2 (even for a held job)
                        j.priority = (j.priority as i64 + old as i64 - n as i64).clamp(2, u32::MAX as i64) as u32;
                    }
                    j.desc.nice = Some(n);
                }
                if let Some(d) = &update.dependency {
                    j.desc.dependency = if d.is_empty() { None } else { Some(d.clone()) };
                }
                Ok(Applied::Ok)
            }
            Command::NodeRegistered { name, reg, now } => {
                let slurm_22_05 = self.slurm_22_05;
                let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
                n.boot_time = reg.boot_time;
                n.slurmd_start_time = reg.start_time;
                n.os = reg.os.clone();
                n.arch = reg.arch.clone();
                n.version = reg.version.clone();
                n.last_heard = *now;
                n.flags.not_responding = false;
                if n.last_busy == 0 && n.alloc_cpus == 0 {
                    // an idle node's LastBusyTime starts at its registration
                    n.last_busy = *now;
                }
                if n.base == NodeBase::Unknown
                    || (n.base == NodeBase::Down
                        && n.reason.as_deref().map(|r| r.starts_with("Not responding")).unwrap_or(false))
                {
                    n.base = if n.alloc_cpus > 0 { NodeBase::Allocated } else { NodeBase::Idle };
                    if n.base == NodeBase::Idle || n.reason.as_deref().map(|r| r.starts_with("Not responding")).unwrap_or(false) {
                        n.reason = None;
                        n.reason_time = 0;
                        n.reason_uid = 0;
                    }
                }
                if slurm_22_05 && !n.flags.drain && n.base != NodeBase::Down {
                    // 22.05: a node that registers in service has no reason and
                    // no reason author (sinfo %u Unknown; recorded/22.05/sinfo_formats/063, 160)
                    n.reason = None;
                    n.reason_time = 0;
                    n.reason_uid = 0xfffffffe;
                }
                Ok(Applied::Ok)
            }
            Command::NodeHeartbeat { name, cpu_load, free_mem, now } => {
                let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
                n.last_heard = *now;
                n.cpu_load = *cpu_load;
                n.free_mem = *free_mem;
                n.flags.not_responding = false;
                Ok(Applied::Ok)
            }
            Command::NodeNotResponding { name, now } => {
                let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
                n.flags.not_responding = true;
                let _ = now;
                Ok(Applied::Ok)
            }
            Command::NodeDown { name, reason, uid, now } => {
                let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
                n.base = NodeBase::Down;
                n.flags.not_responding = true;
                n.reason = Some(reason.clone());
                n.reason_time = *now;
                n.reason_uid = *uid;
                Ok(Applied::Ok)
            }
            Command::NodeUpdate { name, update, uid, now } => {
                let slurm_22_05 = self.slurm_22_05;
                let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
                if let Some(st) = &update.state {
                    // slurmctld's update_node: RESUME and UNDRAIN keep the reason
                    // and require the node to register again (NOT_RESPONDING
                    // until its agent answers, recorded/24.11/scontrol/159,171)
                    match st.to_ascii_lowercase().as_str() {
                        "drain" | "fail" => n.flags.drain = true,
                        "down" => {
                            n.base = NodeBase::Down;
                        }
                        "resume" => {
                            if n.base == NodeBase::Down || n.flags.drain {
                                n.flags.not_responding = true;
                            }
                            if (n.base == NodeBase::Down || n.flags.drain) && slurm_22_05 {
                                // 22.05 forgets the reason of a resumed DOWN or
                                // drained node (recorded/22.05/scontrol/168,
                                // sinfo_formats/160)
                                n.reason = None;
                                n.reason_time = 0;
                                n.reason_uid = 0xfffffffe;
                            }
                            n.flags.drain = false;
                            if n.base == NodeBase::Down || n.base == NodeBase::Future {
                                n.base = if n.alloc_cpus > 0 { NodeBase::Allocated } else { NodeBase::Idle };
                            }
                        }
                        "undrain" => {
                            n.flags.drain = false;
                            n.flags.not_responding = true;
                        }
                        "idle" => {
                            n.flags.drain = false;
                            if n.base == NodeBase::Down {
                                n.base = if n.alloc_cpus > 0 { NodeBase::Allocated } else { NodeBase::Idle };
                            }
                            n.last_busy = *now;
                        }
                        "noresp" => n.flags.not_responding = true,
                        "future" => n.base = NodeBase::Future,
                        _ => return Err(ESLURM_INVALID_NODE_STATE),
                    }
                }
                if let Some(r) = &update.reason {
                    n.reason = Some(r.clone());
                    n.reason_time = *now;
                    n.reason_uid = *uid;
                }
                if let Some(w) = update.weight {
                    n.weight = w;
                }
                if let Some(f) = &update.features {
                    n.features = f.clone();
                }
                Ok(Applied::Ok)
            }
            Command::PartitionUpdate { name, update } => {
                let i = self.partitions.iter().position(|p| &p.name == name).ok_or(ESLURM_INVALID_PARTITION_NAME)?;
                if update.default == Some(true) {
                    for p in &mut self.partitions {
                        p.default = false;
                    }
                }
                let p = &mut self.partitions[i];
                if let Some(t) = update.max_time {
                    p.max_time = t;
                }
                if let Some(t) = update.default_time {
                    p.default_time = t;
                }
                if let Some(n) = update.max_nodes {
                    p.max_nodes = n;
                }
                if let Some(n) = update.min_nodes {
                    p.min_nodes = n;
                }
                if let Some(st) = update.state {
                    p.state = st;
                }
                if let Some(d) = update.default {
                    p.default = d;
                }
                if let Some(h) = update.hidden {
                    p.hidden = h;
                }
                if let Some(t) = update.priority_tier {
                    p.priority_tier = t;
                }
                if let Some(f) = update.priority_job_factor {
                    p.priority_job_factor = f;
                }
                if let Some(o) = &update.oversubscribe {
                    p.oversubscribe = o.clone();
                }
                Ok(Applied::Ok)
            }
            Command::ResvCreate { resv } => {
                if self.reservations.iter().any(|r| r.name == resv.name) {
                    return Err(ESLURM_RESERVATION_NAME_DUP);
                }
                self.reservations.push(resv.clone());
                self.resv_top += 1;
                Ok(Applied::Ok)
            }
            Command::ResvUpdate { resv } => match self.reservations.iter_mut().find(|r| r.name == resv.name) {
                Some(r) => {
                    *r = resv.clone();
                    Ok(Applied::Ok)
                }
                None => Err(ESLURM_RESERVATION_INVALID),
            },
            Command::ResvDelete { name } => {
                let before = self.reservations.len();
                self.reservations.retain(|r| &r.name != name);
                if self.reservations.len() == before {
                    return Err(ESLURM_RESERVATION_INVALID);
                }
                Ok(Applied::Ok)
            }
            Command::SetFormatVersion { version } => {
                if *version < self.format_version {
                    return Err(ESLURM_NOT_SUPPORTED);
                }
                self.format_version = *version;
                Ok(Applied::Ok)
            }
            Command::ConsumeJobId => {
                // the id that was used up (`sbatch --test-only` prints it)
                Ok(Applied::Submitted(self.take_job_id()))
            }
            Command::ConsumeBasicPriority => {
                if self.priority_basic {
                    self.next_basic_priority(0);
                }
                Ok(Applied::Ok)
            }
            Command::Eligible { job_ids, now } => {
                for id in job_ids {
                    if let Some(j) = self.jobs.get_mut(id) {
                        if j.state == JobState::Pending && j.eligible_time == 0 {
                            j.eligible_time = *now;
                        }
                    }
                }
                Ok(Applied::Ok)
            }
            Command::Purge { job_ids } => {
                for id in job_ids {
                    if let Some(j) = self.jobs.get(id) {
                        if j.state.is_finished() {
                            if let Some(r) = &j.desc.request_id {
                                self.request_ids.remove(r);
                            }
                            self.jobs.remove(id);
                            self.list_remove(*id);
                        }
                    }
                }
                Ok(Applied::Ok)
            }
        }
    }

    /// Give back (`release`) or take again a suspended job's CPUs; its nodes
    /// stay allocated to it (sinfo shows them `mix`).
    fn suspend_cpus(&mut self, allocs: &[NodeAlloc], release: bool) {
        for a in allocs {
            if let Some(n) = self.node_mut(&a.node) {
                if release {
                    n.alloc_cpus = n.alloc_cpus.saturating_sub(a.cpus);
                } else {
                    n.alloc_cpus += a.cpus;
                }
            }
        }
    }

    fn release_nodes(&mut self, allocs: &[NodeAlloc], now: i64) {
        for a in allocs {
            if let Some(n) = self.node_mut(&a.node) {
                n.alloc_cpus = n.alloc_cpus.saturating_sub(a.cpus);
                n.alloc_mem = n.alloc_mem.saturating_sub(a.mem_mb);
                for g in &a.gres {
                    add_gres(&mut n.alloc_gres, &g.name, &g.gtype, -(g.count as i64));
                }
                if n.alloc_cpus == 0 && n.base == NodeBase::Allocated {
                    n.base = NodeBase::Idle;
                }
                n.last_busy = now;
            }
        }
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
        }
    }

    /// The nodes with the `RESERVED`/`MAINT` flags of the reservations active at `now`.
    pub fn nodes_with_resv_flags(&self, now: i64) -> Vec<Node> {
        let mut nodes = self.nodes.clone();
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
}

fn add_gres(v: &mut Vec<(String, Option<String>, u64)>, name: &str, ty: &Option<String>, delta: i64) {
    if let Some(e) = v.iter_mut().find(|e| e.0 == name && &e.1 == ty) {
        e.2 = (e.2 as i64 + delta).max(0) as u64;
    } else if delta > 0 {
        v.push((name.to_string(), ty.clone(), delta as u64));
    }
}

/// strsignal(3)'s text for a signal (Slurm's `RaisedSignal:9(Killed)` reason,
/// recorded/24.11/errors/84).
fn signal_text(sig: i32) -> String {
    let t = match sig {
        1 => "Hangup",
        2 => "Interrupt",
        3 => "Quit",
        4 => "Illegal instruction",
        5 => "Trace/breakpoint trap",
        6 => "Aborted",
        7 => "Bus error",
        8 => "Floating point exception",
        9 => "Killed",
        10 => "User defined signal 1",
        11 => "Segmentation fault",
        12 => "User defined signal 2",
        13 => "Broken pipe",
        14 => "Alarm clock",
        15 => "Terminated",
        24 => "CPU time limit exceeded",
        25 => "File size limit exceeded",
        _ => return format!("Unknown signal {}", sig),
    };
    t.to_string()
}

/// Seconds a requeued job waits before it may start again (slurmctld: the
/// job credential lifetime, 120 s, plus one).
pub const REQUEUE_DELAY: i64 = 121;

/// Slurm's priority/basic gives each new job a priority a little lower than
/// the one before, so earlier jobs go first.
pub fn default_priority(job_id: u32) -> u32 {
    4294901760u32.saturating_sub(job_id).max(1)
}

#[cfg(test)]
mod order_tests {
    use super::*;

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
        let upd = |n| Command::UpdateJob { job_id: 3, update: JobUpdate { nice: Some(n), ..Default::default() } };
        s.apply(&upd(5)).unwrap();
        assert_eq!(s.jobs[&3].priority, 4294901752);
        // without priority/basic nothing changes
        let mut m = State::new("c".into(), vec![], vec![], 1, 1000);
        m.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap();
        m.apply(&Command::ConsumeBasicPriority).unwrap();
        assert_eq!(m.jobs[&1].priority, 1);
        assert_eq!(m.lowest_prio, 0);
    }

    #[test]
    fn kill_on_invalid_dep_cancels_and_keeps_the_reason() {
        let mut s = State::new("c".into(), vec![], vec![], 1, 1000);
        s.apply(&Command::Submit { job: Box::new(job(None)) }).unwrap();
        // a used-up id is reported (`sbatch --test-only` prints it)
        assert_eq!(s.apply(&Command::ConsumeJobId), Ok(Applied::Submitted(2)));
        s.apply(&Command::Reasons { changes: vec![(1, Reason::DependencyNeverSatisfied)] }).unwrap();
        s.apply(&Command::CancelNeverSatisfied { job_id: 1, now: 7 }).unwrap();
        let j = &s.jobs[&1];
        assert_eq!((j.state, &j.reason, j.start_time, j.end_time), (JobState::Cancelled, &Reason::DependencyNeverSatisfied, 7, 7));
        // only a pending job
        assert_eq!(s.apply(&Command::CancelNeverSatisfied { job_id: 1, now: 8 }), Err(ESLURM_JOB_NOT_PENDING));
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
        let start = |s: &mut State, t: u32| s.apply(&Command::Start { job_id: 2, task: Some(t), allocs: vec![], now: 5, pass_ms: 5000 });
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
        s.apply(&Command::Kill { job_id: 3, task: None, state: JobState::Cancelled, now: 6 }).unwrap();
        s.apply(&Command::Purge { job_ids: vec![3] }).unwrap();
        assert_eq!(order(&s), [1, 4, 5, 2, 6]);
        let (copy, _) = raft::decode_state(&raft::encode_state(&s, spur_format::FORMAT_VERSION).unwrap(), &"test").unwrap();
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
        s.apply(&Command::Start { job_id: id, task: None, allocs, now: 10, pass_ms: 10_000 }).unwrap();
        id
    }

    #[test]
    fn suspend_resume_requeue() {
        let mut s = State::new("c".into(), vec![node("n1")], vec![], 1, 1000);
        let id = running(&mut s);
        assert_eq!(s.apply(&Command::Resume { job_id: id, now: 20 }), Err(ESLURM_JOB_NOT_SUSPENDED));
        s.apply(&Command::Suspend { job_id: id, now: 20 }).unwrap();
        assert_eq!(s.jobs[&id].state, JobState::Suspended);
        // its CPUs are free, the node stays allocated (sinfo: mix)
        assert_eq!((s.nodes[0].alloc_cpus, s.nodes[0].base), (0, NodeBase::Allocated));
        assert_eq!(s.apply(&Command::Suspend { job_id: id, now: 21 }), Ok(Applied::Ok));
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
        assert_eq!(s.apply(&Command::Requeue { job_id: id, hold: false, now: 42 }), Err(ESLURM_DISABLED));
        // cancelling a suspended job gives its CPUs back exactly once
        let id3 = running(&mut s);
        s.apply(&Command::Suspend { job_id: id3, now: 43 }).unwrap();
        s.apply(&Command::Kill { job_id: id3, task: None, state: JobState::Cancelled, now: 44 }).unwrap();
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
        s.apply(&Command::Start { job_id: pending, task: Some(1), allocs, now: 21, pass_ms: 21_000 }).unwrap();
        let task = *s.jobs.keys().max().unwrap();
        assert_eq!(s.queue_ids(), vec![run, pending, task]);
        // a finished job requeued is back; ended ones leave
        s.apply(&Command::Requeue { job_id: done, hold: false, now: 22 }).unwrap();
        s.apply(&Command::Kill { job_id: pending, task: None, state: JobState::Cancelled, now: 23 }).unwrap();
        assert_eq!(s.queue_ids(), vec![done, run, task]);
        // in job list order: the split task kept the array record's place
        let listed: Vec<u32> = s.jobs_in_order().filter(|j| !j.state.is_finished()).map(|j| j.job_id).collect();
        assert_eq!(s.queue_in_order(), listed);
        // a copy made from the wire (a snapshot) rebuilds the same set
        let (mut copy, _) = raft::decode_state(&raft::encode_state(&s, spur_format::FORMAT_VERSION).unwrap(), &"test").unwrap();
        assert_eq!(copy.queue_ids(), s.queue_ids());
    }

    #[test]
    fn node_resume_keeps_reason_and_partition_update() {
        let part = Partition {
            name: "p".into(),
            nodes: vec!["n1".into()],
            nodes_expr: "n1".into(),
            default: true,
            oversubscribe: "NO".into(),
            priority_tier: 1,
            priority_job_factor: 1,
            ..Default::default()        };
        let mut s = State::new("c".into(), vec![node("n1")], vec![part], 1, 1000);
        let upd = |state: &str, reason: Option<&str>| NodeUpdate {
            state: Some(state.into()),
            reason: reason.map(String::from),
            ..Default::default()
        };
        s.apply(&Command::NodeUpdate { name: "n1".into(), update: upd("down", Some("broken")), uid: 0, now: 5 }).unwrap();
        assert_eq!((s.nodes[0].base, s.nodes[0].flags.drain), (NodeBase::Down, false));
        s.apply(&Command::NodeUpdate { name: "n1".into(), update: upd("resume", None), uid: 0, now: 6 }).unwrap();
        let n = &s.nodes[0];
        assert_eq!((n.base, n.flags.not_responding, n.reason.as_deref()), (NodeBase::Idle, true, Some("broken")));
        let u = PartUpdate { max_time: Some(Some(60)), state: Some(PartState::Down), ..Default::default() };
        s.apply(&Command::PartitionUpdate { name: "p".into(), update: u }).unwrap();
        assert_eq!((s.partitions[0].max_time, s.partitions[0].state), (Some(60), PartState::Down));
        let u = PartUpdate::default();
        assert_eq!(s.apply(&Command::PartitionUpdate { name: "x".into(), update: u }), Err(ESLURM_INVALID_PARTITION_NAME));
    }

    #[test]
    fn reservations_create_update_delete_and_node_flags() {
        let mut s = State::new("c".into(), vec![node("n1"), node("n2")], vec![], 1, 1000);
        s.nodes[0].base = NodeBase::Idle;
        s.nodes[1].base = NodeBase::Idle;
        let r = Reservation { name: "r".into(), start_time: 10, end_time: 20, nodes: vec!["n1".into()], ..Default::default() };
        s.apply(&Command::ResvCreate { resv: r.clone() }).unwrap();
        assert_eq!(s.apply(&Command::ResvCreate { resv: r.clone() }), Err(ESLURM_RESERVATION_NAME_DUP));
        assert!(!s.view(5).nodes[0].flags.reserved);
        assert_eq!(s.view(15).nodes[0].state_short(), "resv");
        assert_eq!(s.view(15).nodes[1].state_short(), "idle");
        let m = Reservation { flags: vec!["MAINT".into()], ..r.clone() };
        s.apply(&Command::ResvUpdate { resv: m }).unwrap();
        assert_eq!(s.view(15).nodes[0].state_long(), "maint");
        assert_eq!(s.view(15).reservations.len(), 1);
        s.apply(&Command::ResvDelete { name: "r".into() }).unwrap();
        assert_eq!(s.apply(&Command::ResvDelete { name: "r".into() }), Err(ESLURM_RESERVATION_INVALID));
        assert_eq!(s.apply(&Command::ResvUpdate { resv: r }), Err(ESLURM_RESERVATION_INVALID));
        assert_eq!(s.view(15).nodes[0].state_short(), "idle");
    }
}
