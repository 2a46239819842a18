//! [`State::apply`]: one function per [`Command`] variant, by family:
//! [`jobs`] (submission, start, end, ids and priorities), [`control`] (what
//! `scontrol` changes in a job: hold, release, requeue, suspend, resume,
//! update), [`nodes`], [`partitions`], [`reservations`].
//!
//! Every function here keeps three rules, because a panic in `apply` repeats
//! on every member of the cluster and after every restart:
//!
//! 1. Everything that can fail is checked before anything changes: a command
//!    either applies whole or is an error result (a Slurm error number) and
//!    the state is as it was. Resources a command takes on nodes are worked
//!    out on copies of those nodes ([`State::plan_nodes`]) and written back
//!    once nothing can fail.
//! 2. Nothing a command carries is trusted: ids, names and indexes are looked
//!    up (`get`, never `[]` or `unwrap`), and a job id that no free id is left
//!    for is an error, not an endless search.
//! 3. Arithmetic on command values is checked: a time or count that would
//!    overflow is an error result (`ESLURM_INVALID_TIME_VALUE`,
//!    `ESLURM_INVALID_CPU_COUNT`, `ESLURM_INVALID_TASK_MEMORY`,
//!    `ESLURM_INVALID_GRES`). Resources given back saturate at zero (and
//!    CPUs handed back to a suspended job that is ending saturate at the
//!    top): an end must always be recordable.

mod control;
#[cfg(test)]
mod fixtures;
mod jobs;
mod nodes;
mod partitions;
mod qos;
mod reservations;
mod steps;

pub use control::REQUEUE_DELAY;
pub use steps::layout as step_layout;

use crate::{ApplyError, ApplyResult, Command, State};
use spur_core::errors::*;
use spur_core::model::*;
use std::collections::BTreeMap;

impl State {
    /// Apply one command: its own result, recorded in the log entry's reply.
    /// A command that fails changes nothing. Never panics, whatever the
    /// command holds.
    pub fn apply(&mut self, cmd: &Command) -> ApplyResult {
        let r = self.apply_one(cmd);
        // (a command may change the QOS, account or tasks of the job it
        // names without changing whether it is queued)
        match cmd {
            Command::Kill { job_id, .. }
            | Command::UpdateJob { job_id, .. }
            | Command::CancelPendingTasks { job_id, .. }
            | Command::SplitPendingTask { job_id, .. }
            | Command::Start { job_id, .. } => self.sync_queue(*job_id),
            _ => {}
        }
        r
    }

    fn apply_one(&mut self, cmd: &Command) -> ApplyResult {
        match cmd {
            Command::Submit { job } => self.submit(job),
            Command::Start { job_id, task, allocs, now, pass_ms, extern_step, backfill } => {
                self.start(*job_id, *task, allocs, *now, *pass_ms, *extern_step, *backfill)
            }
            Command::Reasons { changes } => self.reasons(changes),
            Command::Complete { job_id, exit_status, launch_failed, now } => {
                self.complete(*job_id, *exit_status, *launch_failed, *now)
            }
            Command::Kill { job_id, task, state, now, uid } => self.kill(*job_id, *task, *state, *now, *uid),
            Command::Hold { job_id, reason } => self.hold(*job_id, reason),
            Command::Release { job_id } => self.release(*job_id),
            Command::Requeue { job_id, hold, now } => self.requeue(*job_id, *hold, *now),
            Command::UpdateJob { job_id, update } => self.update_job(*job_id, update),
            Command::NodeRegistered { name, reg, now } => self.node_registered(name, reg, *now),
            Command::NodeHeartbeat { name, cpu_load, free_mem, now } => {
                self.node_heartbeat(name, *cpu_load, *free_mem, *now)
            }
            Command::NodeNotResponding { name, now } => self.node_not_responding(name, *now),
            Command::NodeDown { name, reason, uid, now } => self.node_down(name, reason, *uid, *now),
            Command::NodeUpdate { name, update, uid, now } => self.node_update(name, update, *uid, *now),
            Command::Purge { job_ids } => self.purge(job_ids),
            Command::Eligible { job_ids, now } => self.eligible(job_ids, *now),
            Command::ConsumeJobId => self.consume_job_id(),
            Command::CancelNeverSatisfied { job_id, now } => self.cancel_never_satisfied(*job_id, *now),
            Command::Suspend { job_id, now, preempted } => self.suspend(*job_id, *now, *preempted),
            Command::Resume { job_id, now } => self.resume(*job_id, *now),
            Command::PartitionUpdate { name, update } => self.partition_update(name, update),
            Command::ConsumeBasicPriority => self.consume_basic_priority(),
            Command::ResvCreate { resv } => self.resv_create(resv),
            Command::ResvUpdate { resv } => self.resv_update(resv),
            Command::ResvDelete { name } => self.resv_delete(name),
            Command::SetFormatVersion { version } => self.set_format_version(*version),
            Command::CancelPendingTasks { job_id, tasks, now } => self.cancel_pending_tasks(*job_id, tasks, *now),
            Command::SplitPendingTask { job_id, task } => self.split_pending_task(*job_id, *task),
            Command::StepCreate { req, now } => self.step_create(req, *now),
            Command::StepComplete { job_id, step_id, exit_status, now } => {
                self.step_complete(*job_id, *step_id, *exit_status, *now)
            }
            Command::StepUsage { job_id, step_id, usage } => self.step_usage(*job_id, *step_id, usage),
            Command::QosCreate { qos } => self.qos_create(qos),
            Command::QosUpdate { qos } => self.qos_update(qos),
            Command::QosDelete { names } => self.qos_delete(names),
            Command::AssocPut { accounts, users, links } => self.assoc_put(accounts, users, links),
            Command::AssocDelete { accounts, users, links } => self.assoc_delete(accounts, users, links),
        }
    }

    /// The cluster's format version moves forward only.
    fn set_format_version(&mut self, version: u16) -> ApplyResult {
        if version < self.format_version {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        self.format_version = version;
        Ok(crate::Applied::Ok)
    }

    /// The id after `id` in FirstJobId..=MaxJobId, wrapping.
    fn id_after(&self, id: u32) -> u32 {
        if id >= self.max_job_id {
            self.first_job_id
        } else {
            id.saturating_add(1)
        }
    }

    /// The id the next job will get (the first free one from `next_job_id`
    /// on, wrapping at MaxJobId), without taking it.
    pub(crate) fn peek_job_id(&self) -> Result<u32, ApplyError> {
        let mut id = self.next_job_id;
        // the ids visited are all different until they wrap around to one
        // seen before, and only `jobs.len()` of them can be taken
        for _ in 0..=self.jobs.len() {
            if !self.jobs.contains_key(&id) {
                return Ok(id);
            }
            id = self.id_after(id);
        }
        Err(EAGAIN)
    }

    /// Take `id` (from [`State::peek_job_id`]): the search goes on after it.
    pub(crate) fn commit_job_id(&mut self, id: u32) {
        self.next_job_id = self.id_after(id);
    }

    pub(crate) fn take_job_id(&mut self) -> Result<u32, ApplyError> {
        let id = self.peek_job_id()?;
        self.commit_job_id(id);
        Ok(id)
    }

    /// The nodes `allocs` names (unknown names are skipped), each changed by
    /// `f` for each of its allocations on a copy: the copies, or the first
    /// error with nothing changed. [`State::put_nodes`] writes them back.
    pub(crate) fn plan_nodes(
        &self,
        allocs: &[NodeAlloc],
        mut f: impl FnMut(&mut Node, &NodeAlloc) -> Result<(), ApplyError>,
    ) -> Result<BTreeMap<usize, Node>, ApplyError> {
        let mut out: BTreeMap<usize, Node> = BTreeMap::new();
        for a in allocs {
            let Some(&i) = self.node_index.get(&a.node) else {
                continue;
            };
            if let std::collections::btree_map::Entry::Vacant(e) = out.entry(i) {
                let Some(n) = self.nodes.get(i) else { continue };
                e.insert(n.clone());
            }
            if let Some(n) = out.get_mut(&i) {
                f(n, a)?;
            }
        }
        Ok(out)
    }

    pub(crate) fn put_nodes(&mut self, planned: BTreeMap<usize, Node>) {
        for (i, n) in planned {
            if let Some(slot) = self.nodes.get_mut(i) {
                *slot = n;
            }
        }
    }

    pub(crate) fn node_mut(&mut self, name: &str) -> Option<&mut Node> {
        match self.node_index.get(name) {
            Some(&i) => self.nodes.get_mut(i),
            None => None,
        }
    }

    pub(crate) fn job_mut(&mut self, id: u32) -> Option<&mut Job> {
        self.jobs.get_mut(&id)
    }
}

/// `now + minutes`, or an error result when it does not fit.
pub(crate) fn plus_minutes(t: i64, minutes: Minutes) -> Result<i64, ApplyError> {
    t.checked_add(i64::from(minutes) * 60).ok_or(ESLURM_INVALID_TIME_VALUE)
}
