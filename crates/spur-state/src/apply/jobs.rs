//! A job's life in the log: `Submit`, `Start`, `Reasons`, `Eligible`,
//! `Complete`, `Kill`, `CancelNeverSatisfied`, `Purge`, and the ids and
//! priorities a rejected submission uses up (`ConsumeJobId`,
//! `ConsumeBasicPriority`).

use super::plus_minutes;
use crate::{job_records, Applied, ApplyError, ApplyResult, State};
use spur_core::errors::*;
use spur_core::model::*;

impl State {
    /// priority/basic's next priority (slurmctld's set_job_prio with the
    /// basic plugin): one below the lowest so far (0xffff0000 at first), moved
    /// down by a positive nice (up by a negative one), never below 1; the
    /// lowest so far follows the priority before the nice adjustment.
    pub(crate) fn next_basic_priority(&mut self, nice: i32) -> u32 {
        const TOP: u32 = 0xffff_0000;
        let last = if self.lowest_prio == 0 { TOP } else { self.lowest_prio };
        // (all in i64: a u32 and an i32 cannot overflow it)
        let mut p: i64 = if last >= 2 { i64::from(last) - 1 } else { 1 };
        let off = i64::from(nice);
        if off <= 0 || p > off + 1 {
            p -= off;
        }
        let p = p.clamp(1, i64::from(u32::MAX)) as u32;
        let relative = (i64::from(p) + off).clamp(1, i64::from(u32::MAX)) as u32;
        self.lowest_prio = relative.min(last);
        p
    }

    /// Whether MaxJobCount leaves room for `job` (an array counts once per
    /// task): slurmctld's job_allocate refuses a job when the records held
    /// plus its own reach MaxJobCount, with `EAGAIN` ("Resource temporarily
    /// unavailable"; sbatch says it is unable to accept the job and retries).
    /// Slurm 24.11 and 22.05 compare with `>=` (job_mgr.c `job_allocate`,
    /// `_add_job_record`), so they hold at most MaxJobCount - 1 records; 25.11
    /// changed it to `>` (commit 4953797d2b, "Fix MaxJobCount off-by-one").
    /// The controller asks this before validating a submission, as
    /// job_allocate does before `_job_create`; the apply does not (the limit
    /// is each member's own setting: see `Submit`), so concurrent submissions
    /// may pass it by a few.
    /// `records`: the job's own count (its tasks for an array).
    pub fn admits(&self, records: u64) -> Result<(), ApplyError> {
        match self.max_job_count {
            Some(max) if self.job_count.saturating_add(records) >= u64::from(max) => Err(EAGAIN),
            _ => Ok(()),
        }
    }

    pub(crate) fn submit(&mut self, job: &Job) -> ApplyResult {
        if let Some(rid) = &job.desc.request_id {
            if let Some(&id) = self.request_ids.get(rid) {
                return Ok(Applied::Submitted(id));
            }
        }
        // (MaxJobCount is the leader's check before it commits, `admits`:
        // a member's own setting must never decide what a logged command
        // does, or members with different slurm.conf values would diverge)
        let id = self.take_job_id()?;
        let mut job = job.clone();
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
        self.job_count = self.job_count.saturating_add(job_records(&job));
        self.jobs.insert(id, job);
        self.index_array(id, true);
        self.list_append(id);
        self.sync_queue(id);
        Ok(Applied::Submitted(id))
    }

    /// How many of `job_count` record `id` is (0: none).
    fn records_of(&self, id: u32) -> u64 {
        self.jobs.get(&id).map(job_records).unwrap_or(0)
    }

    /// Keep `job_count` right across `r`, the result of a change to record
    /// `job_id` (which held `before`) that may have split off a new record
    /// (the id the result names): whatever the change did to the array's
    /// pending tasks, the count follows the records as they now are.
    fn recount(&mut self, job_id: u32, before: u64, r: &ApplyResult) {
        let mut after = self.records_of(job_id);
        if let Ok(Applied::Started(id) | Applied::Ended(id)) = r {
            if *id != job_id {
                after = after.saturating_add(self.records_of(*id));
            }
        }
        self.job_count = self.job_count.saturating_sub(before).saturating_add(after);
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn start(
        &mut self,
        job_id: u32,
        task: Option<u32>,
        allocs: &[NodeAlloc],
        now: i64,
        pass_ms: i64,
        extern_step: bool,
        backfill: bool,
    ) -> ApplyResult {
        let before = self.records_of(job_id);
        let r = self.start_record(job_id, task, allocs, now, pass_ms, extern_step, backfill);
        self.recount(job_id, before, &r);
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn start_record(
        &mut self,
        job_id: u32,
        task: Option<u32>,
        allocs: &[NodeAlloc],
        now: i64,
        pass_ms: i64,
        extern_step: bool,
        backfill: bool,
    ) -> ApplyResult {
        let v = self.write_format_version();
        let meta = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        if meta.state != JobState::Pending {
            return Err(ESLURM_JOB_NOT_PENDING);
        }
        if allocs.iter().any(|a| self.node(&a.node).is_none()) {
            return Err(ESLURM_INVALID_NODE_NAME);
        }
        // what the started record will hold (a split task is a copy of the
        // meta-record: the same time limit)
        let num_nodes = u32::try_from(allocs.len()).map_err(|_| ESLURM_INVALID_NODE_COUNT)?;
        let num_cpus = allocs.iter().try_fold(0u32, |s, a| s.checked_add(a.cpus)).ok_or(ESLURM_INVALID_CPU_COUNT)?;
        let end_time = match meta.time_limit {
            Some(lim) => plus_minutes(now, lim)?,
            None => 0,
        };
        // (task, the split-off record's new id; none when `task` is the last
        // pending one and the meta-record itself becomes it)
        let split = match task {
            None => None,
            Some(t) => {
                let ai = meta.array.as_ref().ok_or(ESLURM_INVALID_ARRAY)?;
                if !ai.pending_tasks.contains(&t) {
                    return Err(ESLURM_INVALID_ARRAY);
                }
                let new_id = if ai.pending_tasks.len() == 1 { None } else { Some(self.peek_job_id()?) };
                Some((t, new_id))
            }
        };
        let nodes = self.plan_nodes(allocs, |n, a| {
            n.alloc_cpus = n.alloc_cpus.checked_add(a.cpus).ok_or(ESLURM_INVALID_CPU_COUNT)?;
            n.alloc_mem = n.alloc_mem.checked_add(a.mem_mb).ok_or(ESLURM_INVALID_TASK_MEMORY)?;
            for g in &a.gres {
                super::nodes::take_gres(&mut n.alloc_gres, &g.name, &g.gtype, g.count)?;
            }
            n.base = NodeBase::Allocated;
            n.last_busy = now;
            if n.reason.is_none() {
                // slurmctld unsets the reason's author on allocation (sinfo %u: Unknown)
                n.reason_uid = 0xfffffffe;
            }
            Ok(())
        })?;
        // checked: from here on nothing fails
        let id = match split {
            None => job_id,
            Some((t, None)) => {
                if let Some(a) = self.job_mut(job_id).and_then(|m| m.array.as_mut()) {
                    a.pending_tasks.clear();
                    a.task_id = Some(t);
                }
                job_id
            }
            Some((t, Some(new_id))) => {
                let Some(mut tj) = self.jobs.get(&job_id).cloned() else {
                    return Err(ESLURM_INVALID_JOB_ID);
                };
                self.commit_job_id(new_id);
                tj.job_id = new_id;
                if let Some(a) = tj.array.as_mut() {
                    a.pending_tasks.clear();
                    a.task_id = Some(t);
                }
                self.jobs.insert(new_id, tj);
                self.index_array(new_id, true);
                self.list_split(job_id, new_id);
                if let Some(a) = self.job_mut(job_id).and_then(|m| m.array.as_mut()) {
                    a.pending_tasks.retain(|x| *x != t);
                }
                new_id
            }
        };
        if let Some(job) = self.job_mut(id) {
            if job.eligible_time == 0 {
                job.eligible_time = now;
            }
            job.state = JobState::Running;
            job.reason = Reason::None;
            job.start_time = now;
            job.last_sched_eval = now;
            job.requeued_done = false;
            job.start_pass_ms = pass_ms;
            // (as a replica decodes the entry: false before the version)
            job.sched_backfill = backfill && v >= crate::SCHED_BACKFILL_VERSION;
            job.allocs = allocs.to_vec();
            job.num_nodes = num_nodes;
            job.num_cpus = num_cpus;
            // an allocation without a script keeps BatchFlag=0 (from the
            // version that has steps: before, every start set it)
            job.batch_flag = u32::from(!job.desc.script.is_empty() || v < crate::STEPS_VERSION);
            job.end_time = end_time;
            job.steps.clear();
            job.next_step_id = 0;
            if extern_step && v >= crate::SPECIAL_STEPS_VERSION {
                job.steps.push(super::steps::extern_step(allocs, now));
            }
        }
        self.put_nodes(nodes);
        self.sync_queue(id);
        Ok(Applied::Started(id))
    }

    pub(crate) fn reasons(&mut self, changes: &[(u32, Reason)]) -> ApplyResult {
        for (id, r) in changes {
            if let Some(j) = self.jobs.get_mut(id) {
                if j.state == JobState::Pending {
                    j.reason = r.clone();
                }
            }
        }
        Ok(Applied::Ok)
    }

    pub(crate) fn eligible(&mut self, job_ids: &[u32], now: i64) -> ApplyResult {
        for id in job_ids {
            if let Some(j) = self.jobs.get_mut(id) {
                if j.state == JobState::Pending && j.eligible_time == 0 {
                    j.eligible_time = now;
                }
            }
        }
        Ok(Applied::Ok)
    }

    pub(crate) fn complete(&mut self, job_id: u32, exit_status: i32, launch_failed: bool, now: i64) -> ApplyResult {
        let job = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        if !job.state.is_active() {
            // already recorded (a repeated report): nothing to do
            return Ok(Applied::Ok);
        }
        let (allocs, suspended) = (job.allocs.clone(), job.state == JobState::Suspended);
        self.charge_usage(job_id, now);
        if suspended {
            // its CPUs were given back at suspension
            self.suspend_cpus(&allocs, false);
        }
        let p = self.profile();
        // slurmctld's reason for a job its failed node ended (measured on
        // 22.05: NODE_FAIL Reason=NodeDown); as a replica decodes the entry:
        // None before the version
        let node_down = self.write_format_version() >= crate::SCHED_BACKFILL_VERSION;
        if let Some(job) = self.job_mut(job_id) {
            let status = exit_status;
            job.exit_status = status;
            let signalled = status & 0x7f != 0 && status & 0x7f != 0x7f;
            let final_state = if let Some(k) = job.kill_reason {
                k
            } else if launch_failed || status != 0 {
                JobState::Failed
            } else {
                JobState::Completed
            };
            job.state = final_state;
            job.reason = match final_state {
                _ if launch_failed => Reason::Other("JobLaunchFailure".into()),
                // 22.05 calls any death by a signal a launch failure
                // (recorded/22.05/errors/84; 24.11 RaisedSignal:9(Killed))
                JobState::Failed if p.signal_death_is_launch_failure && signalled => {
                    Reason::Other("JobLaunchFailure".into())
                }
                JobState::Failed if signalled => {
                    let sig = status & 0x7f;
                    Reason::Other(format!("RaisedSignal:{}({})", sig, spur_core::errors::signal_text(sig)))
                }
                JobState::Failed => Reason::NonZeroExitCode,
                JobState::Timeout => Reason::TimeLimit,
                JobState::NodeFail if node_down => Reason::NodeDown,
                _ => Reason::None,
            };
            job.end_time = now;
            job.steps.clear();
            job.preempt_suspended = false;
        }
        self.release_nodes(&allocs, now);
        self.sync_queue(job_id);
        Ok(Applied::Ended(job_id))
    }

    pub(crate) fn kill(
        &mut self,
        job_id: u32,
        task: Option<u32>,
        state: JobState,
        now: i64,
        uid: Option<u32>,
    ) -> ApplyResult {
        let before = self.records_of(job_id);
        let r = self.kill_record(job_id, task, state, now);
        self.recount(job_id, before, &r);
        if let (Ok(a), Some(uid), JobState::Cancelled) = (&r, uid, state) {
            // the record that ended (a task split off for it has its own id)
            let id = match a {
                Applied::Ended(n) => *n,
                _ => job_id,
            };
            if let Some(j) = self.job_mut(id) {
                j.cancelled_by = Some(uid);
            }
        }
        r
    }

    /// Pending tasks `tasks` of array meta-record `job_id` leave it (those
    /// it no longer holds are passed over); a record left with none ends
    /// CANCELLED as a whole (slurmctld's `_signal_pending_job_array_tasks`).
    pub(crate) fn cancel_pending_tasks(&mut self, job_id: u32, tasks: &[u32], now: i64) -> ApplyResult {
        let before = self.records_of(job_id);
        let r = self.cancel_pending_tasks_of(job_id, tasks, now);
        self.recount(job_id, before, &r);
        r
    }

    /// Pending task `task` of meta-record `job_id` (which holds others too)
    /// becomes a pending record of its own, with the next job id.
    pub(crate) fn split_pending_task(&mut self, job_id: u32, task: u32) -> ApplyResult {
        let job = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        if job.state != JobState::Pending {
            return Err(if job.state.is_finished() { ESLURM_ALREADY_DONE } else { ESLURM_INVALID_JOB_ID });
        }
        let ai = job.array.as_ref().filter(|a| a.task_id.is_none()).ok_or(ESLURM_INVALID_JOB_ID)?;
        if !ai.pending_tasks.contains(&task) || ai.pending_tasks.len() < 2 {
            return Err(ESLURM_INVALID_JOB_ID);
        }
        let mut tj = job.clone();
        let before = self.records_of(job_id);
        let new_id = self.take_job_id()?;
        tj.job_id = new_id;
        if let Some(a) = tj.array.as_mut() {
            a.pending_tasks.clear();
            a.task_id = Some(task);
        }
        self.jobs.insert(new_id, tj);
        self.index_array(new_id, true);
        self.list_split(job_id, new_id);
        if let Some(a) = self.job_mut(job_id).and_then(|m| m.array.as_mut()) {
            a.pending_tasks.retain(|x| *x != task);
        }
        self.sync_queue(job_id);
        self.sync_queue(new_id);
        // the count follows the records as they now are
        let after = self.records_of(job_id).saturating_add(self.records_of(new_id));
        self.job_count = self.job_count.saturating_sub(before).saturating_add(after);
        Ok(Applied::Submitted(new_id))
    }

    fn cancel_pending_tasks_of(&mut self, job_id: u32, tasks: &[u32], now: i64) -> ApplyResult {
        let job = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        if job.state.is_finished() {
            return Err(ESLURM_ALREADY_DONE);
        }
        let ai = job.array.as_ref().filter(|a| a.task_id.is_none() && job.state == JobState::Pending);
        let ai = ai.ok_or(ESLURM_INVALID_JOB_ID)?;
        let left: Vec<u32> = ai.pending_tasks.iter().copied().filter(|t| !tasks.contains(t)).collect();
        if left.len() == ai.pending_tasks.len() {
            return Err(ESLURM_INVALID_JOB_ID);
        }
        if left.is_empty() {
            return self.kill_record(job_id, None, JobState::Cancelled, now);
        }
        if let Some(a) = self.job_mut(job_id).and_then(|j| j.array.as_mut()) {
            a.pending_tasks = left;
        }
        self.sync_queue(job_id);
        Ok(Applied::Ok)
    }

    fn kill_record(&mut self, job_id: u32, task: Option<u32>, state: JobState, now: i64) -> ApplyResult {
        if !state.is_finished() {
            // a kill ends a job: a state it does not end in is no kill
            return Err(ESLURM_TRANSITION_STATE_NO_UPDATE);
        }
        let job = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        if job.state.is_finished() {
            return Err(ESLURM_ALREADY_DONE);
        }
        if let Some(t) = task {
            // a pending task of an array meta-record: split it off as its own ended record
            let ai = job.array.as_ref().ok_or(ESLURM_INVALID_JOB_ID)?;
            if !ai.pending_tasks.contains(&t) {
                return Err(ESLURM_INVALID_JOB_ID);
            }
            if ai.pending_tasks.len() > 1 {
                let mut tj = job.clone();
                let new_id = self.take_job_id()?;
                tj.job_id = new_id;
                if let Some(a) = tj.array.as_mut() {
                    a.pending_tasks.clear();
                    a.task_id = Some(t);
                }
                tj.state = state;
                tj.reason = Reason::None;
                // a job that ends before starting gets start = end (Slurm)
                tj.start_time = now;
                tj.end_time = now;
                self.jobs.insert(new_id, tj);
                self.index_array(new_id, true);
                self.list_split(job_id, new_id);
                if let Some(a) = self.job_mut(job_id).and_then(|m| m.array.as_mut()) {
                    a.pending_tasks.retain(|x| *x != t);
                }
                self.sync_queue(new_id);
                return Ok(Applied::Ended(new_id));
            }
            if let Some(a) = self.job_mut(job_id).and_then(|m| m.array.as_mut()) {
                a.pending_tasks.clear();
                a.task_id = Some(t);
            }
        }
        let Some(j) = self.job_mut(job_id) else {
            return Err(ESLURM_INVALID_JOB_ID);
        };
        if j.state == JobState::Pending {
            j.state = state;
            // a job that ends before starting gets start = end (Slurm)
            j.start_time = now;
            j.end_time = now;
            // it keeps its pending reason (recorded/24.11/scontrol/194:
            // CANCELLED Reason=BeginTime)
            if let Some(a) = &mut j.array {
                if a.task_id.is_none() {
                    // the whole remaining array ends (its record counts once
                    // from now on)
                    a.pending_tasks.clear();
                }
            }
            self.sync_queue(job_id);
            return Ok(Applied::Ended(job_id));
        }
        if j.kill_reason.is_none() {
            j.kill_reason = Some(state);
        }
        let was_suspended = j.state == JobState::Suspended;
        j.state = JobState::Completing;
        if was_suspended {
            // it is woken to die: its CPUs count again until it ends
            let allocs = j.allocs.clone();
            self.suspend_cpus(&allocs, false);
        }
        Ok(Applied::Ok)
    }

    pub(crate) fn cancel_never_satisfied(&mut self, job_id: u32, now: i64) -> ApplyResult {
        let pending = self.jobs.get(&job_id).map(|j| j.state == JobState::Pending).unwrap_or(false);
        if !pending {
            return Err(ESLURM_JOB_NOT_PENDING);
        }
        let r = self.kill(job_id, None, JobState::Cancelled, now, None)?;
        if let Some(j) = self.job_mut(job_id) {
            j.reason = Reason::DependencyNeverSatisfied;
            j.start_time = now;
        }
        Ok(r)
    }

    pub(crate) fn purge(&mut self, job_ids: &[u32]) -> ApplyResult {
        for &id in job_ids {
            let Some(j) = self.jobs.get(&id) else {
                continue;
            };
            if !j.state.is_finished() {
                continue;
            }
            let n = job_records(j);
            if let Some(r) = &j.desc.request_id {
                let r = r.clone();
                self.request_ids.remove(&r);
            }
            self.job_count = self.job_count.saturating_sub(n);
            self.index_array(id, false);
            self.jobs.remove(&id);
            self.list_remove(id);
            self.sync_queue(id);
        }
        Ok(Applied::Ok)
    }

    pub(crate) fn consume_job_id(&mut self) -> ApplyResult {
        // the id that was used up (`sbatch --test-only` prints it)
        Ok(Applied::Submitted(self.take_job_id()?))
    }

    pub(crate) fn consume_basic_priority(&mut self) -> ApplyResult {
        if self.priority_basic {
            self.next_basic_priority(0);
        }
        Ok(Applied::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use crate::{Applied, Command, State};
    use spur_core::errors::*;
    use spur_core::model::*;

    #[test]
    fn submit_numbers_jobs_and_remembers_request_ids() {
        let mut s = cluster();
        assert_eq!(submit(&mut s, job()), 1);
        let a = submit(&mut s, array(&[1, 2]));
        assert_eq!(s.job(a).and_then(|j| j.array.as_ref()).map(|a| a.array_job_id), Some(2));
        // a repeated request gets the first answer and creates nothing
        let mut j = job();
        j.desc.request_id = Some("req".into());
        assert_eq!(submit(&mut s, j.clone()), 3);
        assert_eq!(submit(&mut s, j), 3);
        assert_eq!(s.jobs().len(), 3);
        assert_eq!(s.queue_ids(), vec![1, 2, 3]);
        assert_eq!(s.jobs_in_order().map(|j| j.job_id).collect::<Vec<_>>(), vec![1, 2, 3]);
    }

    #[test]
    fn submit_wraps_at_max_job_id_and_fails_when_no_id_is_left() {
        let mut s = State::new("c".into(), vec![node("n1")], vec![], 5, 7);
        assert_eq!([submit(&mut s, job()), submit(&mut s, job())], [5, 6]);
        s.apply(&Command::Kill { job_id: 5, task: None, state: JobState::Cancelled, now: 1, uid: None }).unwrap();
        s.apply(&Command::Purge { job_ids: vec![5] }).unwrap();
        // 7, then past MaxJobId to FirstJobId, skipping ids in use
        assert_eq!([submit(&mut s, job()), submit(&mut s, job())], [7, 5]);
        refused(&mut s, Command::Submit { job: Box::new(job()) }, EAGAIN);
        refused(&mut s, Command::ConsumeJobId, EAGAIN);
        // a configuration with FirstJobId above MaxJobId cannot loop either
        let mut odd = State::new("c".into(), vec![], vec![], 9, 3);
        assert_eq!(submit(&mut odd, job()), 9);
        refused(&mut odd, Command::Submit { job: Box::new(job()) }, EAGAIN);
    }

    #[test]
    fn submit_refuses_past_max_job_count_counting_array_tasks_and_finished_jobs() {
        let mut s = cluster();
        // 24.11 holds at most MaxJobCount - 1 records (job_allocate's `>=`)
        s.set_max_job_count(Some(5));
        let a = submit(&mut s, array(&[1, 2, 3]));
        assert_eq!(s.job_count(), 3);
        // two more tasks do not fit, one job does
        assert_eq!(s.admits(2), Err(EAGAIN));
        assert_eq!(s.admits(1), Ok(()));
        let mut jr = job();
        jr.desc.request_id = Some("again".into());
        let j = submit(&mut s, jr.clone());
        assert_eq!(s.job_count(), 4);
        assert_eq!(s.admits(1), Err(EAGAIN));
        // a repeated request (sbatch retrying) is answered and not counted again
        assert_eq!(s.apply(&Command::Submit { job: Box::new(jr) }), Ok(Applied::Submitted(j)));
        assert_eq!(s.job_count(), 4);
        // a split-off task moves one count from the meta-record to its own
        s.apply(&Command::Start {
            job_id: a,
            task: Some(1),
            allocs: vec![],
            now: 5,
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        })
        .unwrap();
        assert_eq!(s.job_count(), 4);
        // a finished job counts until it is purged
        s.apply(&Command::Kill { job_id: j, task: None, state: JobState::Cancelled, now: 6, uid: None }).unwrap();
        assert_eq!(s.admits(1), Err(EAGAIN));
        s.apply(&Command::Purge { job_ids: vec![j] }).unwrap();
        assert_eq!(s.job_count(), 3);
        let k = submit(&mut s, job());
        // a cancelled pending array's meta-record counts once from then on
        s.apply(&Command::Kill { job_id: a, task: None, state: JobState::Cancelled, now: 7, uid: None }).unwrap();
        assert_eq!(s.job_count(), 3);
        // the count is what a decoded state rebuilds
        let d = State::decode(&s.encode().unwrap()).unwrap();
        assert_eq!(d.job_count(), s.job_count());
        assert!(s.job(k).is_some());
        // no limit set: no refusal
        s.set_max_job_count(None);
        let b = submit(&mut s, array(&[1, 2, 3, 4, 5, 6]));
        assert_eq!(s.job_count(), 9);
        // whatever a command holds (here a task listed twice, which no
        // submission makes), the count is the records' as they are
        let c = submit(&mut s, array(&[7, 7, 8]));
        s.apply(&Command::Start {
            job_id: c,
            task: Some(7),
            allocs: vec![],
            now: 8,
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        })
        .unwrap();
        s.apply(&Command::Kill { job_id: b, task: Some(2), state: JobState::Cancelled, now: 9, uid: None }).unwrap();
        let d = State::decode(&s.encode().unwrap()).unwrap();
        assert_eq!((s.job_count(), d.job_count()), (11, 11));
    }

    #[test]
    fn start_runs_a_job_on_its_nodes() {
        let mut s = cluster();
        let mut j = job();
        j.time_limit = Some(5);
        let id = submit(&mut s, j);
        let mut a = alloc("n1", 2, 700);
        a.gres = vec![GresAlloc { name: "gpu".into(), gtype: None, count: 1, indexes: vec![0] }];
        let r = s.apply(&Command::Start {
            job_id: id,
            task: None,
            allocs: vec![a],
            now: 100,
            pass_ms: 100_000,
            extern_step: false,
            backfill: false,
        });
        assert_eq!(r, Ok(Applied::Started(id)));
        let j = s.job(id).unwrap();
        assert_eq!(
            (j.state, j.start_time, j.end_time, j.num_cpus, j.num_nodes, j.start_pass_ms),
            (JobState::Running, 100, 400, 2, 1, 100_000)
        );
        let n = s.node("n1").unwrap();
        assert_eq!(
            (n.alloc_cpus, n.alloc_mem, n.base, n.last_busy, n.reason_uid),
            (2, 700, NodeBase::Allocated, 100, 0xfffffffe)
        );
        assert_eq!(n.alloc_gres, vec![("gpu".to_string(), None, 1)]);
    }

    #[test]
    fn start_splits_array_tasks_off_the_meta_record() {
        let mut s = cluster();
        let a = submit(&mut s, array(&[1, 2]));
        let start = |t| Command::Start {
            job_id: a,
            task: Some(t),
            allocs: vec![],
            now: 5,
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        };
        refused(&mut s, start(3), ESLURM_INVALID_ARRAY);
        assert_eq!(s.apply(&start(1)), Ok(Applied::Started(2)));
        assert_eq!(s.job(2).and_then(|j| j.array.as_ref()).and_then(|a| a.task_id), Some(1));
        assert_eq!(s.job(a).and_then(|j| j.array.as_ref()).map(|a| a.pending_tasks.clone()), Some(vec![2]));
        // the last task is the meta-record itself
        assert_eq!(s.apply(&start(2)), Ok(Applied::Started(a)));
        assert_eq!(s.job(a).map(|j| j.state), Some(JobState::Running));
        let plain = submit(&mut s, job());
        refused(
            &mut s,
            Command::Start {
                job_id: plain,
                task: Some(1),
                allocs: vec![],
                now: 5,
                pass_ms: 0,
                extern_step: false,
                backfill: false,
            },
            ESLURM_INVALID_ARRAY,
        );
    }

    #[test]
    fn start_refuses_what_cannot_apply_and_changes_nothing() {
        let mut s = cluster();
        let id = submit(&mut s, job());
        let start = |job_id, allocs: Vec<NodeAlloc>, now| Command::Start {
            job_id,
            task: None,
            allocs,
            now,
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        };
        refused(&mut s, start(99, vec![], 1), ESLURM_INVALID_JOB_ID);
        refused(&mut s, start(id, vec![alloc("nx", 1, 1)], 1), ESLURM_INVALID_NODE_NAME);
        refused(&mut s, start(id, vec![alloc("n1", u32::MAX, 1), alloc("n2", 1, 1)], 1), ESLURM_INVALID_CPU_COUNT);
        // the same node twice: the sums on the node overflow
        refused(&mut s, start(id, vec![alloc("n1", 1, u64::MAX), alloc("n1", 1, 1)], 1), ESLURM_INVALID_TASK_MEMORY);
        let mut g = alloc("n1", 1, 1);
        g.gres = vec![GresAlloc { name: "gpu".into(), count: u64::MAX, ..Default::default() }; 2];
        refused(&mut s, start(id, vec![g], 1), ESLURM_INVALID_GRES);
        let mut limited = job();
        limited.time_limit = Some(60);
        let l = submit(&mut s, limited);
        refused(&mut s, start(l, vec![alloc("n1", 1, 1)], i64::MAX - 60), ESLURM_INVALID_TIME_VALUE);
        // a node already nearly full of CPUs
        s.apply(&start(id, vec![alloc("n1", u32::MAX - 1, 0)], 1)).unwrap();
        refused(&mut s, start(l, vec![alloc("n1", 2, 0)], 1), ESLURM_INVALID_CPU_COUNT);
        refused(&mut s, start(id, vec![], 1), ESLURM_JOB_NOT_PENDING);
    }

    #[test]
    fn reasons_change_pending_jobs_only() {
        let mut s = cluster();
        let p = submit(&mut s, job());
        let r = running(&mut s, "n1");
        let cmd =
            Command::Reasons { changes: vec![(p, Reason::Resources), (r, Reason::Resources), (77, Reason::Priority)] };
        assert_eq!(s.apply(&cmd), Ok(Applied::Ok));
        assert_eq!(s.job(p).map(|j| j.reason.clone()), Some(Reason::Resources));
        assert_eq!(s.job(r).map(|j| j.reason.clone()), Some(Reason::None));
    }

    #[test]
    fn eligible_sets_a_pending_jobs_time_once() {
        let mut s = cluster();
        let mut j = job();
        j.eligible_time = 0;
        let id = submit(&mut s, j);
        assert_eq!(s.apply(&Command::Eligible { job_ids: vec![id, 77], now: 30 }), Ok(Applied::Ok));
        s.apply(&Command::Eligible { job_ids: vec![id], now: 40 }).unwrap();
        assert_eq!(s.job(id).map(|j| j.eligible_time), Some(30));
    }

    #[test]
    fn complete_ends_a_job_and_frees_its_nodes() {
        let mut s = cluster();
        let ok = running(&mut s, "n1");
        let sig = running(&mut s, "n2");
        let complete =
            |job_id, exit_status, launch_failed| Command::Complete { job_id, exit_status, launch_failed, now: 50 };
        assert_eq!(s.apply(&complete(ok, 0, false)), Ok(Applied::Ended(ok)));
        assert_eq!(s.apply(&complete(sig, 9, false)), Ok(Applied::Ended(sig)));
        let j = s.job(sig).unwrap();
        assert_eq!((j.state, j.reason.text(), j.end_time), (JobState::Failed, "RaisedSignal:9(Killed)", 50));
        assert_eq!(s.job(ok).map(|j| j.state), Some(JobState::Completed));
        assert_eq!(s.node("n1").map(|n| (n.alloc_cpus, n.alloc_mem, n.base)), Some((0, 0, NodeBase::Idle)));
        assert_eq!(s.queue_ids(), Vec::<u32>::new());
        // a repeated report changes nothing
        assert_eq!(s.apply(&complete(ok, 1, false)), Ok(Applied::Ok));
        assert_eq!(s.job(ok).map(|j| j.state), Some(JobState::Completed));
        let lf = running(&mut s, "n1");
        s.apply(&complete(lf, 1 << 8, true)).unwrap();
        assert_eq!(
            s.job(lf).map(|j| (j.state, j.reason.text().to_string())),
            Some((JobState::Failed, "JobLaunchFailure".into()))
        );
        // 22.05 calls a death by signal a launch failure
        let mut old = cluster();
        old.set_release(spur_core::compat::Release::V22_05);
        let id = running(&mut old, "n1");
        old.apply(&complete(id, 9, false)).unwrap();
        assert_eq!(old.job(id).map(|j| j.reason.text().to_string()), Some("JobLaunchFailure".into()));
        refused(&mut s, complete(99, 0, false), ESLURM_INVALID_JOB_ID);
    }

    #[test]
    fn kill_ends_pending_jobs_and_marks_running_ones_completing() {
        let mut s = cluster();
        let p = submit(&mut s, job());
        let r = running(&mut s, "n1");
        let kill = |job_id, task, state| Command::Kill { job_id, task, state, now: 60, uid: None };
        assert_eq!(s.apply(&kill(p, None, JobState::Cancelled)), Ok(Applied::Ended(p)));
        assert_eq!(s.job(p).map(|j| (j.state, j.start_time, j.end_time)), Some((JobState::Cancelled, 60, 60)));
        assert_eq!(s.apply(&kill(r, None, JobState::Timeout)), Ok(Applied::Ok));
        assert_eq!(s.job(r).map(|j| (j.state, j.kill_reason)), Some((JobState::Completing, Some(JobState::Timeout))));
        s.apply(&Command::Complete { job_id: r, exit_status: 9, launch_failed: false, now: 61 }).unwrap();
        assert_eq!(s.job(r).map(|j| (j.state, j.reason.clone())), Some((JobState::Timeout, Reason::TimeLimit)));
        refused(&mut s, kill(p, None, JobState::Cancelled), ESLURM_ALREADY_DONE);
        refused(&mut s, kill(99, None, JobState::Cancelled), ESLURM_INVALID_JOB_ID);
        let q = submit(&mut s, job());
        refused(&mut s, kill(q, None, JobState::Running), ESLURM_TRANSITION_STATE_NO_UPDATE);
        refused(&mut s, kill(q, Some(1), JobState::Cancelled), ESLURM_INVALID_JOB_ID);
    }

    #[test]
    fn cancelled_pending_tasks_leave_their_record() {
        let mut s = cluster();
        let a = submit(&mut s, array(&[1, 2, 3, 4]));
        let records = s.job_count;
        let cancel = |tasks: &[u32]| Command::CancelPendingTasks { job_id: a, tasks: tasks.to_vec(), now: 80 };
        assert_eq!(s.apply(&cancel(&[2, 3, 9])), Ok(Applied::Ok));
        let j = s.job(a).unwrap();
        assert_eq!((j.state, j.array.as_ref().map(|x| x.pending_tasks.clone())), (JobState::Pending, Some(vec![1, 4])));
        // no record of their own, and two records fewer
        assert_eq!(s.jobs().len(), 1);
        assert_eq!(s.job_count, records - 2);
        refused(&mut s, cancel(&[2]), ESLURM_INVALID_JOB_ID);
        // the last ones: the record ends, as one
        assert_eq!(s.apply(&cancel(&[1, 4])), Ok(Applied::Ended(a)));
        let j = s.job(a).unwrap();
        assert_eq!((j.state, j.start_time, j.end_time), (JobState::Cancelled, 80, 80));
        assert_eq!(s.job_count, records - 3);
        assert_eq!(s.queue_ids(), Vec::<u32>::new());
        refused(&mut s, cancel(&[1]), ESLURM_ALREADY_DONE);
        let p = submit(&mut s, job());
        refused(&mut s, Command::CancelPendingTasks { job_id: p, tasks: vec![1], now: 81 }, ESLURM_INVALID_JOB_ID);
    }

    #[test]
    fn a_pending_task_is_split_off_as_a_pending_record() {
        let mut s = cluster();
        let a = submit(&mut s, array(&[1, 2, 3]));
        let records = s.job_count;
        let split = |task| Command::SplitPendingTask { job_id: a, task };
        refused(&mut s, split(7), ESLURM_INVALID_JOB_ID);
        let Ok(Applied::Submitted(n)) = s.apply(&split(2)) else { panic!("not split") };
        let t = s.job(n).unwrap();
        assert_eq!((t.state, t.array.as_ref().and_then(|x| x.task_id)), (JobState::Pending, Some(2)));
        assert_eq!(s.job(a).and_then(|j| j.array.as_ref().map(|x| x.pending_tasks.clone())), Some(vec![1, 3]));
        assert_eq!(s.job_count, records);
        assert_eq!(s.queue_ids().len(), 2);
        assert_eq!(s.apply(&split(3)).map(|x| matches!(x, Applied::Submitted(_))), Ok(true));
        // the last task is the meta-record itself: nothing to split
        refused(&mut s, split(1), ESLURM_INVALID_JOB_ID);
        refused(&mut s, Command::SplitPendingTask { job_id: n, task: 2 }, ESLURM_INVALID_JOB_ID);
    }

    #[test]
    fn kill_splits_a_pending_array_task_off_as_an_ended_record() {
        let mut s = cluster();
        let a = submit(&mut s, array(&[1, 2]));
        let kill = |task| Command::Kill { job_id: a, task: Some(task), state: JobState::Cancelled, now: 70, uid: None };
        refused(&mut s, kill(5), ESLURM_INVALID_JOB_ID);
        assert_eq!(s.apply(&kill(1)), Ok(Applied::Ended(2)));
        assert_eq!(
            s.job(2).map(|j| (j.state, j.array.as_ref().and_then(|a| a.task_id))),
            Some((JobState::Cancelled, Some(1)))
        );
        assert_eq!(s.queue_ids(), vec![a]);
        // the last task: the meta-record itself ends
        assert_eq!(s.apply(&kill(2)), Ok(Applied::Ended(a)));
        assert_eq!(s.queue_ids(), Vec::<u32>::new());
    }

    #[test]
    fn cancel_never_satisfied_cancels_a_pending_job_keeping_the_reason() {
        let mut s = cluster();
        let id = submit(&mut s, job());
        assert_eq!(s.apply(&Command::ConsumeJobId), Ok(Applied::Submitted(2)));
        s.apply(&Command::Reasons { changes: vec![(id, Reason::DependencyNeverSatisfied)] }).unwrap();
        s.apply(&Command::CancelNeverSatisfied { job_id: id, now: 7 }).unwrap();
        let j = s.job(id).unwrap();
        assert_eq!(
            (j.state, &j.reason, j.start_time, j.end_time),
            (JobState::Cancelled, &Reason::DependencyNeverSatisfied, 7, 7)
        );
        refused(&mut s, Command::CancelNeverSatisfied { job_id: id, now: 8 }, ESLURM_JOB_NOT_PENDING);
        refused(&mut s, Command::CancelNeverSatisfied { job_id: 99, now: 8 }, ESLURM_JOB_NOT_PENDING);
    }

    #[test]
    fn purge_forgets_finished_jobs_and_their_request_ids() {
        let mut s = cluster();
        let mut j = job();
        j.desc.request_id = Some("r".into());
        let done = submit(&mut s, j.clone());
        let live = submit(&mut s, job());
        s.apply(&Command::Kill { job_id: done, task: None, state: JobState::Cancelled, now: 1, uid: None }).unwrap();
        assert_eq!(s.apply(&Command::Purge { job_ids: vec![done, live, 99] }), Ok(Applied::Ok));
        assert_eq!(s.jobs().keys().copied().collect::<Vec<_>>(), vec![live]);
        assert_eq!(s.jobs_in_order().map(|j| j.job_id).collect::<Vec<_>>(), vec![live]);
        // the request id is free again
        assert_eq!(submit(&mut s, j), 3);
    }

    #[test]
    fn consume_job_id_uses_up_the_next_id() {
        let mut s = cluster();
        assert_eq!(s.apply(&Command::ConsumeJobId), Ok(Applied::Submitted(1)));
        assert_eq!(submit(&mut s, job()), 2);
        assert!(s.jobs().get(&1).is_none());
    }

    #[test]
    fn consume_basic_priority_lowers_the_next_priority() {
        let mut s = cluster();
        s.set_priority_basic(true);
        submit(&mut s, job());
        assert_eq!(s.apply(&Command::ConsumeBasicPriority), Ok(Applied::Ok));
        let id = submit(&mut s, job());
        assert_eq!(s.job(id).map(|j| j.priority), Some(4294901757));
        // without priority/basic nothing changes
        let mut m = cluster();
        m.apply(&Command::ConsumeBasicPriority).unwrap();
        assert_eq!(m.lowest_prio(), 0);
    }
}
