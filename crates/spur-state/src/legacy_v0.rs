//! Format version 0: the replicated records as the unversioned code wrote
//! them (bincode 1, up to commit cc6c903): the commands, the state, and the
//! Raft log entry, meta and snapshot around them. Frozen so that a controller's
//! state directory of that time stays readable (an upgrade in place), and
//! converted into today's types.
//!
//! **Frozen**: never edit these definitions (see `spur_core::legacy_v0`,
//! which holds the frozen model records they contain: bincode 1 needs exactly
//! the fields, order and variant order a record was written with). When
//! today's types change, only the conversions below change.
//!
//! Version 0 is read from files only: a cluster is upgraded from it all at
//! once (stop every controller, install, start), as the unversioned code had
//! no format version to agree on. Nothing writes it any more.

use crate::raft::{Batch as CurrentBatch, NodeId, TypeConfig};
use openraft::{BasicNode, LogId, Membership, SnapshotMeta, Vote};
use serde::Deserialize;
use spur_core::legacy_v0::{Job, JobState, Node, NodeAlloc, PartState, Partition, Reason, Reservation};
use std::collections::{BTreeMap, HashMap};

type Minutes = u32;

// frozen: version 0's layout, read once and converted
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Deserialize)]
pub enum Command {
    Submit { job: Box<Job> },
    Start { job_id: u32, task: Option<u32>, allocs: Vec<NodeAlloc>, now: i64, pass_ms: i64 },
    Reasons { changes: Vec<(u32, Reason)> },
    Complete { job_id: u32, exit_status: i32, launch_failed: bool, now: i64 },
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
    Eligible { job_ids: Vec<u32>, now: i64 },
    ConsumeJobId,
    CancelNeverSatisfied { job_id: u32, now: i64 },
    Suspend { job_id: u32, now: i64 },
    Resume { job_id: u32, now: i64 },
    PartitionUpdate { name: String, update: PartUpdate },
    ConsumeBasicPriority,
    ResvCreate { resv: Reservation },
    ResvUpdate { resv: Reservation },
    ResvDelete { name: String },
}

#[derive(Debug, Deserialize)]
pub struct PartUpdate {
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

#[derive(Debug, Deserialize)]
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
    pub time_min: Option<u32>,
    pub mem_per_node: Option<u64>,
    pub mem_per_cpu: Option<u64>,
    pub exc_nodes: Option<Option<String>>,
    pub req_nodes: Option<Option<String>>,
    pub features: Option<Option<String>>,
    pub work_dir: Option<String>,
    pub requeue: Option<bool>,
    pub std_out: Option<String>,
    pub std_err: Option<String>,
    pub std_in: Option<String>,
    pub refused: bool,
}

#[derive(Debug, Deserialize)]
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

#[derive(Debug, Deserialize)]
pub struct NodeUpdate {
    pub state: Option<String>,
    pub reason: Option<String>,
    pub weight: Option<u32>,
    pub features: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
pub struct State {
    pub cluster_name: String,
    pub nodes: Vec<Node>,
    pub partitions: Vec<Partition>,
    pub jobs: BTreeMap<u32, Job>,
    pub next_job_id: u32,
    pub first_job_id: u32,
    pub max_job_id: u32,
    pub applied: u64,
    pub request_ids: HashMap<String, u32>,
    pub job_order: BTreeMap<u64, u32>,
    pub job_pos: HashMap<u32, u64>,
    pub next_pos: u64,
    pub priority_basic: bool,
    pub lowest_prio: u32,
    pub slurm_22_05: bool,
    pub reservations: Vec<Reservation>,
    pub resv_top: u32,
}

/// One log entry (`raft.log` record body): openraft's `Entry` over the batch.
#[derive(Debug, Deserialize)]
pub struct Entry {
    pub log_id: LogId<NodeId>,
    pub payload: EntryPayload,
}

#[derive(Debug, Deserialize)]
pub enum EntryPayload {
    Blank,
    Normal(Batch),
    Membership(Membership<NodeId, BasicNode>),
}

#[derive(Debug, Deserialize)]
pub struct Batch {
    pub cmds: Vec<Command>,
}

/// `raft.meta`.
#[derive(Debug, Deserialize)]
pub struct Meta {
    pub vote: Option<Vote<NodeId>>,
    pub purged: Option<LogId<NodeId>>,
}

fn bin<'a, T: Deserialize<'a>>(b: &'a [u8]) -> Result<T, String> {
    bincode::deserialize(b).map_err(|e| format!("format version 0: {}", e))
}

/// A `raft.log` record body of version 0.
pub fn decode_entry(b: &[u8]) -> Result<openraft::Entry<TypeConfig>, String> {
    let e: Entry = bin(b)?;
    let payload = match e.payload {
        EntryPayload::Blank => openraft::EntryPayload::Blank,
        EntryPayload::Normal(b) => {
            openraft::EntryPayload::Normal(CurrentBatch { cmds: b.cmds.into_iter().map(Into::into).collect() })
        }
        EntryPayload::Membership(m) => openraft::EntryPayload::Membership(m),
    };
    Ok(openraft::Entry { log_id: e.log_id, payload })
}

/// The vote and the last purged log id.
pub type VoteAndPurged = (Option<Vote<NodeId>>, Option<LogId<NodeId>>);

/// `raft.meta` of version 0: the vote and the last purged log id.
pub fn decode_meta(b: &[u8]) -> Result<VoteAndPurged, String> {
    let m: Meta = bin(b)?;
    Ok((m.vote, m.purged))
}

/// `raft.committed` of version 0.
pub fn decode_committed(b: &[u8]) -> Result<Option<LogId<NodeId>>, String> {
    bin(b)
}

/// The body of `raft.snapshot` of version 0: the snapshot's meta and the
/// state's bytes (themselves version 0, [`decode_state`]).
pub fn decode_snapshot(b: &[u8]) -> Result<(SnapshotMeta<NodeId, BasicNode>, Vec<u8>), String> {
    bin(b)
}

/// A state (snapshot data) of version 0.
pub fn decode_state(b: &[u8]) -> Result<crate::State, String> {
    let s: State = bin(b)?;
    Ok(s.into())
}

// ------------------------------------------------------------------ conversions

fn m<A: Into<B>, B>(v: Vec<A>) -> Vec<B> {
    v.into_iter().map(Into::into).collect()
}

impl From<State> for crate::State {
    fn from(v: State) -> Self {
        let mut s = crate::State::new(v.cluster_name, m(v.nodes), m(v.partitions), v.first_job_id, v.max_job_id);
        s.jobs = v.jobs.into_iter().map(|(k, j)| (k, j.into())).collect();
        s.next_job_id = v.next_job_id;
        s.applied = v.applied;
        s.request_ids = v.request_ids.into_iter().collect();
        s.job_order = v.job_order;
        s.job_pos = v.job_pos.into_iter().collect();
        s.next_pos = v.next_pos;
        s.priority_basic = v.priority_basic;
        s.lowest_prio = v.lowest_prio;
        s.slurm_22_05 = v.slurm_22_05;
        s.reservations = m(v.reservations);
        s.resv_top = v.resv_top;
        // version 0 knew no format version: the cluster's is set once its
        // members agree on one (Command::SetFormatVersion)
        s.format_version = 0;
        s.reindex();
        s
    }
}

impl From<PartUpdate> for crate::PartUpdate {
    fn from(v: PartUpdate) -> Self {
        crate::PartUpdate {
            max_time: v.max_time,
            default_time: v.default_time,
            max_nodes: v.max_nodes,
            min_nodes: v.min_nodes,
            state: v.state.map(Into::into),
            default: v.default,
            hidden: v.hidden,
            priority_tier: v.priority_tier,
            priority_job_factor: v.priority_job_factor,
            oversubscribe: v.oversubscribe,
            settings: Vec::new(),
        }
    }
}

impl From<JobUpdate> for crate::JobUpdate {
    fn from(v: JobUpdate) -> Self {
        crate::JobUpdate {
            time_limit: v.time_limit,
            name: v.name,
            partition: v.partition,
            priority: v.priority,
            nice: v.nice,
            comment: v.comment,
            begin_time: v.begin_time,
            num_nodes: v.num_nodes,
            num_tasks: v.num_tasks,
            dependency: v.dependency,
            time_min: v.time_min,
            mem_per_node: v.mem_per_node,
            mem_per_cpu: v.mem_per_cpu,
            exc_nodes: v.exc_nodes,
            req_nodes: v.req_nodes,
            features: v.features,
            work_dir: v.work_dir,
            requeue: v.requeue,
            std_out: v.std_out,
            std_err: v.std_err,
            std_in: v.std_in,
            refused: v.refused,
            ..Default::default()
        }
    }
}

impl From<NodeReg> for crate::NodeReg {
    fn from(v: NodeReg) -> Self {
        crate::NodeReg {
            cpus: v.cpus,
            real_memory: v.real_memory,
            boot_time: v.boot_time,
            start_time: v.start_time,
            os: v.os,
            arch: v.arch,
            version: v.version,
            running_jobs: v.running_jobs,
        }
    }
}

impl From<NodeUpdate> for crate::NodeUpdate {
    fn from(v: NodeUpdate) -> Self {
        crate::NodeUpdate {
            state: v.state,
            reason: v.reason,
            weight: v.weight,
            features: v.features,
            ..Default::default()
        }
    }
}

impl From<Command> for crate::Command {
    fn from(v: Command) -> Self {
        use crate::Command as C;
        match v {
            Command::Submit { job } => C::Submit { job: Box::new((*job).into()) },
            Command::Start { job_id, task, allocs, now, pass_ms } => {
                C::Start { job_id, task, allocs: m(allocs), now, pass_ms, extern_step: false, backfill: false }
            }
            Command::Reasons { changes } => {
                C::Reasons { changes: changes.into_iter().map(|(id, r)| (id, r.into())).collect() }
            }
            Command::Complete { job_id, exit_status, launch_failed, now } => {
                C::Complete { job_id, exit_status, launch_failed, now }
            }
            Command::Kill { job_id, task, state, now } => C::Kill { job_id, task, state: state.into(), now, uid: None },
            Command::Hold { job_id, reason } => C::Hold { job_id, reason: reason.into() },
            Command::Release { job_id } => C::Release { job_id },
            Command::Requeue { job_id, hold, now } => C::Requeue { job_id, hold, now },
            Command::UpdateJob { job_id, update } => C::UpdateJob { job_id, update: Box::new(update.into()) },
            Command::NodeRegistered { name, reg, now } => C::NodeRegistered { name, reg: reg.into(), now },
            Command::NodeHeartbeat { name, cpu_load, free_mem, now } => {
                C::NodeHeartbeat { name, cpu_load, free_mem, now }
            }
            Command::NodeNotResponding { name, now } => C::NodeNotResponding { name, now },
            Command::NodeDown { name, reason, uid, now } => C::NodeDown { name, reason, uid, now },
            Command::NodeUpdate { name, update, uid, now } => C::NodeUpdate { name, update: update.into(), uid, now },
            Command::Purge { job_ids } => C::Purge { job_ids },
            Command::Eligible { job_ids, now } => C::Eligible { job_ids, now },
            Command::ConsumeJobId => C::ConsumeJobId,
            Command::CancelNeverSatisfied { job_id, now } => C::CancelNeverSatisfied { job_id, now },
            Command::Suspend { job_id, now } => C::Suspend { job_id, now, preempted: false },
            Command::Resume { job_id, now } => C::Resume { job_id, now },
            Command::PartitionUpdate { name, update } => C::PartitionUpdate { name, update: update.into() },
            Command::ConsumeBasicPriority => C::ConsumeBasicPriority,
            Command::ResvCreate { resv } => C::ResvCreate { resv: resv.into() },
            Command::ResvUpdate { resv } => C::ResvUpdate { resv: resv.into() },
            Command::ResvDelete { name } => C::ResvDelete { name },
        }
    }
}
