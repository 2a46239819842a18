//! What each applied command means for the accounting records: the jobs it
//! changed ([`touched`]), and each one's record as the state now holds it
//! ([`State::acct_record`]). The Raft state machine hands them, with the
//! entry's index, to an [`AcctFeed`] (the controller's store) after every
//! entry it applies, on every member alike.

use crate::{Applied, ApplyResult, Command, State};
use spur_core::acct::AcctJob;

/// Where the records of applied entries go. Called with the state's lock
/// held: an implementation only queues them (no I/O, nothing that blocks).
pub trait AcctFeed: Send + Sync {
    /// The records that entry `index` changed (possibly none).
    fn applied(&self, index: u64, records: Vec<AcctJob>);
    /// A snapshot up to `index` replaced the state: `records` are those of
    /// every job it holds. Records of jobs purged before it are not in it
    /// (they travel from a peer's store).
    fn installed(&self, index: u64, records: Vec<AcctJob>);
    /// Wait until everything handed over so far is on disk (before a
    /// snapshot is written: the log it replaces is then purged, so the
    /// store must hold what it fed).
    fn flush(&self);
}

/// The jobs `cmd` changed, given its result (nothing for a command that
/// failed: it changed nothing). A purge changes no record: the records
/// outlive the jobs.
pub fn touched(cmd: &Command, result: &ApplyResult) -> Vec<u32> {
    let Ok(applied) = result else { return vec![] };
    let mut out = vec![];
    match cmd {
        Command::Submit { .. } => {}
        // a priority alone (priority/multifactor recomputes every pending
        // job's each PriorityCalcPeriod): not worth a record each time; the
        // record takes the priority with the job's next change
        Command::UpdateJob { update, .. } if update.priority_only() => {}
        Command::Start { job_id, .. }
        | Command::Complete { job_id, .. }
        | Command::Kill { job_id, .. }
        | Command::Hold { job_id, .. }
        | Command::Release { job_id }
        | Command::Requeue { job_id, .. }
        | Command::UpdateJob { job_id, .. }
        | Command::CancelNeverSatisfied { job_id, .. }
        | Command::Suspend { job_id, .. }
        | Command::Resume { job_id, .. }
        | Command::CancelPendingTasks { job_id, .. }
        | Command::SplitPendingTask { job_id, .. }
        | Command::StepComplete { job_id, .. }
        | Command::StepUsage { job_id, .. } => out.push(*job_id),
        Command::StepCreate { req, .. } => out.push(req.job_id),
        Command::Reasons { changes } => out.extend(changes.iter().map(|(id, _)| *id)),
        Command::Eligible { job_ids, .. } => out.extend(job_ids.iter().copied()),
        Command::NodeRegistered { .. }
        | Command::NodeHeartbeat { .. }
        | Command::NodeNotResponding { .. }
        | Command::NodeDown { .. }
        | Command::NodeUpdate { .. }
        | Command::Purge { .. }
        | Command::ConsumeJobId
        | Command::PartitionUpdate { .. }
        | Command::ConsumeBasicPriority
        | Command::ResvCreate { .. }
        | Command::ResvUpdate { .. }
        | Command::ResvDelete { .. }
        | Command::SetFormatVersion { .. }
        | Command::QosCreate { .. }
        | Command::QosUpdate { .. }
        | Command::QosDelete { .. }
        | Command::AssocPut { .. }
        | Command::AssocDelete { .. } => {}
    }
    // a record the command made (a submission, a task split off)
    if let Applied::Submitted(n) | Applied::Started(n) | Applied::Ended(n) = applied {
        out.push(*n);
    }
    out
}

impl State {
    /// Job `id`'s accounting record as it stands.
    pub fn acct_record(&self, id: u32) -> Option<AcctJob> {
        let j = self.jobs.get(&id)?;
        // what a job that asked for no memory gets: its partition's first
        // node's (as scontrol's ReqTRES counts it)
        let node_mem = self
            .partitions
            .iter()
            .find(|p| p.name == j.partition)
            .and_then(|p| p.nodes.first())
            .and_then(|n| self.node_index.get(n))
            .and_then(|&i| self.nodes.get(i))
            .map(|n| n.real_memory)
            .unwrap_or(0);
        Some(AcctJob::from_job(j, &self.cluster_name, node_mem))
    }

    /// The records of every job held.
    pub fn acct_records(&self) -> Vec<AcctJob> {
        self.jobs.keys().filter_map(|&id| self.acct_record(id)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::JobUpdate;

    /// priority/multifactor's recalculation (a priority alone) writes no
    /// record; any other update of a job does.
    #[test]
    fn a_priority_alone_touches_no_record() {
        let prio =
            Command::UpdateJob { job_id: 7, update: Box::new(JobUpdate { priority: Some(5), ..Default::default() }) };
        assert!(touched(&prio, &Ok(Applied::Ok)).is_empty());
        let more = Command::UpdateJob {
            job_id: 7,
            update: Box::new(JobUpdate { priority: Some(5), comment: Some("c".into()), ..Default::default() }),
        };
        assert_eq!(touched(&more, &Ok(Applied::Ok)), vec![7]);
    }
}
