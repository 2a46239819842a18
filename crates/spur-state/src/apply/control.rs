//! What `scontrol` changes in a job: `Hold`, `Release`, `Requeue`,
//! `Suspend`, `Resume`, `UpdateJob`.

use super::plus_minutes;
use crate::{Applied, ApplyResult, JobUpdate, State};
use spur_core::errors::*;
use spur_core::model::*;

/// Seconds a requeued job waits before it may start again (slurmctld: the
/// job credential lifetime, 120 s, plus one).
pub const REQUEUE_DELAY: i64 = 121;

impl State {
    pub(crate) fn hold(&mut self, job_id: u32, reason: &Reason) -> ApplyResult {
        let j = self.job_mut(job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
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

    pub(crate) fn release(&mut self, job_id: u32) -> ApplyResult {
        // priority/basic: a release gives the job a new priority, held
        // or not (slurmctld sets the priority of every job an operator
        // releases; recorded/22.05/scontrol/194)
        let j = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        let active = j.state.is_active();
        if !active && j.state != JobState::Pending {
            return Err(ESLURM_JOB_NOT_PENDING);
        }
        let nice = j.desc.nice.unwrap_or(0);
        let basic = if self.priority_basic { Some(self.next_basic_priority(nice)) } else { None };
        let direct = self.write_format_version() >= crate::DIRECT_PRIORITY_VERSION;
        let Some(j) = self.job_mut(job_id) else {
            return Err(ESLURM_INVALID_JOB_ID);
        };
        if direct && !active {
            // slurmctld's release clears direct_set_prio: the priority is
            // computed again
            j.desc.priority = None;
        }
        if active {
            // releasing a running job: rc 0 (recorded/24.11/errors/59)
            if j.held.take().is_some() && j.priority == 0 {
                j.priority = 1;
            }
        } else {
            j.held = None;
            j.reason = Reason::None;
            if j.priority == 0 {
                j.priority = 1;
            }
        }
        if let Some(p) = basic {
            j.priority = p;
        }
        Ok(Applied::Ok)
    }

    pub(crate) fn requeue(&mut self, job_id: u32, hold: bool, now: i64) -> ApplyResult {
        let j = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        // slurmctld: a job that may not be requeued (Requeue=0) is refused
        // first (recorded/24.11/scontrol/136), a pending one next
        // (scontrol_surface/208: a requeued array task)
        if !j.desc.requeue.unwrap_or(true) {
            return Err(ESLURM_DISABLED);
        }
        if j.state == JobState::Pending {
            return Err(ESLURM_JOB_PENDING);
        }
        // eligible again after slurmctld's requeue delay (the credential
        // lifetime plus one second, recorded/24.11/scontrol/131)
        let begin = now.checked_add(REQUEUE_DELAY).ok_or(ESLURM_INVALID_TIME_VALUE)?;
        let allocs = j.allocs.clone();
        let was_active = j.state.is_active();
        if j.state == JobState::Suspended {
            self.suspend_cpus(&allocs, false);
        }
        if was_active {
            self.charge_usage(job_id, now);
            self.release_nodes(&allocs, now);
        }
        let p = self.profile();
        if let Some(j) = self.job_mut(job_id) {
            j.state = JobState::Pending;
            j.restart_count = j.restart_count.saturating_add(1);
            j.requeued_done = !was_active && !allocs.is_empty();
            j.start_pass_ms = 0;
            j.allocs.clear();
            j.start_time = 0;
            j.end_time = 0;
            j.kill_reason = None;
            j.exit_status = 0;
            j.suspend_time = 0;
            j.pre_sus_time = 0;
            j.preempt_suspended = false;
            j.submit_time = now;
            if p.node_count_min_only {
                // a requeued 22.05 job shows a single node count
                // (recorded/22.05/scontrol/131: NumNodes=2, 24.11 2-2)
                j.desc.max_nodes = None;
            }
            j.desc.begin_time = begin;
            j.eligible_time = begin;
            if hold {
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
        }
        self.sync_queue(job_id);
        Ok(Applied::Ok)
    }

    pub(crate) fn suspend(&mut self, job_id: u32, now: i64, preempted: bool) -> ApplyResult {
        let j = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        match j.state {
            JobState::Running => {}
            JobState::Suspended => return Ok(Applied::Ok),
            JobState::Pending => return Err(ESLURM_JOB_PENDING),
            _ => return Err(ESLURM_ALREADY_DONE),
        }
        let since = if j.suspend_time != 0 { j.suspend_time } else { j.start_time };
        let ran = now.checked_sub(since).ok_or(ESLURM_INVALID_TIME_VALUE)?.max(0);
        let pre_sus_time = j.pre_sus_time.checked_add(ran).ok_or(ESLURM_INVALID_TIME_VALUE)?;
        let allocs = j.allocs.clone();
        self.suspend_cpus(&allocs, true);
        // (as a replica decodes the entry: false before the version)
        let preempted = preempted && self.write_format_version() >= crate::PREEMPT_SUSPEND_VERSION;
        if let Some(j) = self.job_mut(job_id) {
            j.pre_sus_time = pre_sus_time;
            j.suspend_time = now;
            j.state = JobState::Suspended;
            j.preempt_suspended = preempted;
        }
        Ok(Applied::Ok)
    }

    pub(crate) fn resume(&mut self, job_id: u32, now: i64) -> ApplyResult {
        let j = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        match j.state {
            JobState::Suspended => {}
            JobState::Pending => return Err(ESLURM_JOB_PENDING),
            JobState::Running => return Err(ESLURM_JOB_NOT_SUSPENDED),
            _ => return Err(ESLURM_ALREADY_DONE),
        }
        let end_time = if j.end_time != 0 {
            // the time limit does not run while suspended
            let stopped = now.checked_sub(j.suspend_time).ok_or(ESLURM_INVALID_TIME_VALUE)?.max(0);
            j.end_time.checked_add(stopped).ok_or(ESLURM_INVALID_TIME_VALUE)?
        } else {
            0
        };
        let nice = j.desc.nice.unwrap_or(0);
        let by_preemption = j.preempt_suspended;
        let nodes = self.plan_nodes(&j.allocs, |n, a| {
            n.alloc_cpus = n.alloc_cpus.checked_add(a.cpus).ok_or(ESLURM_INVALID_CPU_COUNT)?;
            Ok(())
        })?;
        self.put_nodes(nodes);
        // an admin's suspend holds the job's priority at 0 and its resume
        // gives it a new one (slurmctld job_suspend); preemption's does not
        let basic = if self.priority_basic && !by_preemption { Some(self.next_basic_priority(nice)) } else { None };
        if let Some(j) = self.job_mut(job_id) {
            if let Some(p) = basic {
                j.priority = p;
            }
            j.end_time = end_time;
            j.suspend_time = now;
            j.state = JobState::Running;
            j.preempt_suspended = false;
        }
        Ok(Applied::Ok)
    }

    pub(crate) fn update_job(&mut self, job_id: u32, update: &JobUpdate) -> ApplyResult {
        let (p, basic) = (self.profile(), self.priority_basic);
        // a job's fields of format version 3 are kept only once the cluster
        // writes it (the controller refuses such updates before; a snapshot
        // at an older version would lose them, and members would differ)
        let v3 = self.write_format_version() >= 3;
        let direct = self.write_format_version() >= crate::DIRECT_PRIORITY_VERSION;
        let j = self.jobs.get(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        if j.state.is_finished() {
            return Err(ESLURM_JOB_FINISHED);
        }
        // what can overflow, worked out before anything changes
        let end_time = match update.time_limit {
            Some(t) if j.state.is_active() => Some(match t {
                Some(m) => plus_minutes(j.start_time, m)?,
                None => 0,
            }),
            _ => None,
        };
        let sized = match update.num_nodes {
            Some(n) if j.state == JobState::Pending => {
                // tasks not asked for follow the node count, the CPU count
                // never drops below one per task
                let tasks = if j.desc.num_tasks.is_none() || j.desc.num_tasks == Some(j.num_tasks) {
                    n.max(1)
                } else {
                    j.num_tasks
                };
                let cpt = j.desc.cpus_per_task.unwrap_or(1).max(1);
                let cpus = j.num_cpus.max(tasks.checked_mul(cpt).ok_or(ESLURM_INVALID_CPU_COUNT)?);
                Some((tasks, cpus))
            }
            _ => None,
        };
        let Some(j) = self.job_mut(job_id) else {
            return Err(ESLURM_INVALID_JOB_ID);
        };
        if update.refused {
            if j.tres_counted.is_none() {
                j.tres_counted = Some((j.num_cpus, j.num_nodes));
            }
        } else {
            j.tres_counted = None;
        }
        if let Some(t) = update.time_limit {
            j.time_limit = t;
        }
        if let Some(e) = end_time {
            j.end_time = e;
        }
        if let Some(n) = &update.name {
            j.desc.name = n.clone();
        }
        if let Some(p) = &update.partition {
            j.partition = p.clone();
        }
        if let Some(p) = update.priority {
            j.priority = p;
            // (as a replica decodes the entry: not before the version)
            if update.by_operator && p != 0 && direct {
                j.desc.priority = Some(p);
            }
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
            if let Some((tasks, cpus)) = sized {
                // min = max = n (22.05 changes only the minimum: `NumNodes=N` afterwards)
                j.desc.max_nodes = if p.node_count_min_only { None } else { Some(n) };
                j.num_tasks = tasks;
                j.num_cpus = cpus;
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
        // format version 3's fields: what sbatch's options of the same
        // name set, so that `scontrol show job` shows them alike
        if let Some(c) = update.admin_comment.as_ref().filter(|_| v3) {
            j.admin_comment = Some(c.clone());
        }
        if let Some(x) = &update.extra {
            j.desc.accepted.get_or_insert_with(Default::default).extra = Some(x.clone());
        }
        if let Some(n) = update.min_cpus_node {
            j.desc.min_cpus = Some(n);
        }
        if let Some(c) = update.cpus_per_task {
            if j.submitted_cpus_per_task.is_none() && v3 {
                j.submitted_cpus_per_task = Some(j.desc.cpus_per_task.unwrap_or(0));
            }
            j.desc.cpus_per_task = Some(c);
        }
        if let Some(n) = update.num_cpus {
            j.num_cpus = n;
        }
        if let Some(n) = update.ntasks_per_node {
            j.desc.ntasks_per_node = Some(n);
        }
        if let Some(t) = update.tmp_disk {
            j.desc.tmp_mb = Some(t);
        }
        if let Some(n) = update.sockets_per_node {
            j.desc.sockets_per_node = Some(n);
        }
        if let Some(n) = update.cores_per_socket {
            j.desc.cores_per_socket = Some(n);
        }
        if let Some(n) = update.threads_per_core {
            j.desc.threads_per_core = Some(n);
        }
        if let Some(x) = &update.prefer {
            j.desc.accepted.get_or_insert_with(Default::default).prefer = Some(x.clone()).filter(|x| !x.is_empty());
        }
        if let Some(r) = &update.reservation {
            j.desc.reservation = Some(r.clone()).filter(|r| !r.is_empty());
        }
        if let Some(q) = &update.qos {
            j.desc.qos = Some(q.clone()).filter(|q| !q.is_empty());
        }
        if let Some(w) = &update.wckey {
            j.desc.accepted.get_or_insert_with(Default::default).wckey = Some(w.clone());
        }
        if let Some(d) = update.deadline {
            j.desc.deadline = d;
        }
        if let Some(c) = update.contiguous {
            j.desc.contiguous_nodes = c;
        }
        if let Some(yes) = update.shared {
            // YES: the job shares its nodes (no whole-node kind any
            // more); NO: it takes them whole, as `--exclusive`
            j.desc.oversubscribe_ok = yes;
            j.desc.exclusive = !yes;
            j.desc.exclusive_kind = None;
        }
        if let Some(m) = &update.mail_type {
            j.desc.mail_type = Some(m.clone());
        }
        if let Some(m) = &update.mail_user {
            j.desc.mail_user = Some(m.clone());
        }
        if let Some(sw) = &update.switches {
            j.desc.accepted.get_or_insert_with(Default::default).switches = Some(sw.clone());
        }
        if let Some(r) = update.reboot {
            j.desc.accepted.get_or_insert_with(Default::default).reboot = r;
        }
        if let Some(secs) = update.delay_boot {
            // kept as sbatch keeps `--delay-boot`: a time in minutes and seconds
            j.desc.accepted.get_or_insert_with(Default::default).delay_boot =
                Some(format!("{}:{:02}", secs / 60, secs % 60));
        }
        if update.reset_nice {
            j.desc.nice = None;
        }
        // options back at their defaults are none, as a record read back has them
        if j.desc.accepted.as_deref().is_some_and(|a| *a == AcceptedOptions::default()) {
            j.desc.accepted = None;
        }
        if let Some(n) = update.nice {
            let old = j.desc.nice.unwrap_or(0);
            if basic && old != n {
                // priority/basic moves the priority by the change of
                // nice, to no less than 2 (even for a held job)
                let p = i64::from(j.priority) + i64::from(old) - i64::from(n);
                j.priority = p.clamp(2, i64::from(u32::MAX)) as u32;
            }
            j.desc.nice = Some(n);
        }
        if let Some(d) = &update.dependency {
            j.desc.dependency = if d.is_empty() { None } else { Some(d.clone()) };
        }
        if let Some(t) = update.array_throttle {
            // every record of the array: the scheduler reads each task's
            let array = self.jobs.get(&job_id).and_then(|j| j.array.as_ref()).map(|a| a.array_job_id);
            for r in self.jobs.values_mut() {
                if let Some(a) = r.array.as_mut().filter(|a| Some(a.array_job_id) == array) {
                    a.max_running = t;
                }
            }
        }
        Ok(Applied::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::REQUEUE_DELAY;
    use crate::{Applied, Command, JobUpdate};
    use spur_core::errors::*;
    use spur_core::model::*;

    fn done(s: &mut crate::State) -> u32 {
        let id = running(s, "n2");
        s.apply(&Command::Complete { job_id: id, exit_status: 0, launch_failed: false, now: 20 }).unwrap();
        id
    }

    #[test]
    fn hold_holds_a_pending_job_and_a_running_one_for_later() {
        let mut s = cluster();
        let p = submit(&mut s, job());
        let r = running(&mut s, "n1");
        let f = done(&mut s);
        assert_eq!(s.apply(&Command::Hold { job_id: p, reason: Reason::JobHeldAdmin }), Ok(Applied::Ok));
        assert_eq!(s.job(p).map(|j| (j.priority, j.reason.clone())), Some((0, Reason::JobHeldAdmin)));
        s.apply(&Command::Hold { job_id: r, reason: Reason::JobHeldUser }).unwrap();
        assert_eq!(
            s.job(r).map(|j| (j.state, j.priority, j.held.clone())),
            Some((JobState::Running, 0, Some(Reason::JobHeldUser)))
        );
        refused(&mut s, Command::Hold { job_id: f, reason: Reason::JobHeldUser }, ESLURM_JOB_NOT_PENDING);
        refused(&mut s, Command::Hold { job_id: 99, reason: Reason::JobHeldUser }, ESLURM_INVALID_JOB_ID);
    }

    #[test]
    fn release_gives_a_held_job_its_priority_back() {
        let mut s = cluster();
        let p = submit(&mut s, job());
        let f = done(&mut s);
        s.apply(&Command::Hold { job_id: p, reason: Reason::JobHeldUser }).unwrap();
        assert_eq!(s.apply(&Command::Release { job_id: p }), Ok(Applied::Ok));
        assert_eq!(s.job(p).map(|j| (j.priority, j.reason.clone(), j.held.clone())), Some((1, Reason::None, None)));
        refused(&mut s, Command::Release { job_id: f }, ESLURM_JOB_NOT_PENDING);
        refused(&mut s, Command::Release { job_id: 99 }, ESLURM_INVALID_JOB_ID);
        // priority/basic: every release gives a new, lower priority
        let mut b = cluster();
        b.set_priority_basic(true);
        let id = submit(&mut b, job());
        b.apply(&Command::Release { job_id: id }).unwrap();
        assert_eq!(b.job(id).map(|j| j.priority), Some(4294901758));
    }

    #[test]
    fn requeue_puts_a_job_back_in_the_queue_after_the_delay() {
        let mut s = cluster();
        let r = running(&mut s, "n1");
        assert_eq!(s.apply(&Command::Requeue { job_id: r, hold: true, now: 30 }), Ok(Applied::Ok));
        let j = s.job(r).unwrap();
        assert_eq!(
            (j.state, j.restart_count, j.priority, j.eligible_time),
            (JobState::Pending, 1, 0, 30 + REQUEUE_DELAY)
        );
        assert_eq!(j.reason.text(), "job requeued in held state");
        assert_eq!(s.node("n1").map(|n| n.alloc_cpus), Some(0));
        refused(&mut s, Command::Requeue { job_id: r, hold: false, now: 31 }, ESLURM_JOB_PENDING);
        refused(&mut s, Command::Requeue { job_id: 99, hold: false, now: 31 }, ESLURM_INVALID_JOB_ID);
        let f = done(&mut s);
        refused(&mut s, Command::Requeue { job_id: f, hold: false, now: i64::MAX }, ESLURM_INVALID_TIME_VALUE);
        s.apply(&Command::Requeue { job_id: f, hold: false, now: 40 }).unwrap();
        assert_eq!(s.queue_ids(), vec![r, f]);
    }

    #[test]
    fn suspend_frees_a_running_jobs_cpus() {
        let mut s = cluster();
        let r = running(&mut s, "n1");
        let p = submit(&mut s, job());
        let f = done(&mut s);
        assert_eq!(s.apply(&Command::Suspend { job_id: r, now: 25, preempted: false }), Ok(Applied::Ok));
        assert_eq!(s.job(r).map(|j| (j.state, j.pre_sus_time, j.suspend_time)), Some((JobState::Suspended, 15, 25)));
        assert_eq!(s.node("n1").map(|n| (n.alloc_cpus, n.base)), Some((0, NodeBase::Allocated)));
        assert_eq!(s.apply(&Command::Suspend { job_id: r, now: 26, preempted: false }), Ok(Applied::Ok));
        refused(&mut s, Command::Suspend { job_id: p, now: 26, preempted: false }, ESLURM_JOB_PENDING);
        refused(&mut s, Command::Suspend { job_id: f, now: 26, preempted: false }, ESLURM_ALREADY_DONE);
        refused(&mut s, Command::Suspend { job_id: 99, now: 26, preempted: false }, ESLURM_INVALID_JOB_ID);
        let r2 = running(&mut s, "n2");
        refused(&mut s, Command::Suspend { job_id: r2, now: i64::MIN, preempted: false }, ESLURM_INVALID_TIME_VALUE);
    }

    #[test]
    fn resume_takes_the_cpus_again_and_moves_the_end() {
        let mut s = cluster();
        let mut j = job();
        j.time_limit = Some(1);
        let id = submit(&mut s, j);
        s.apply(&Command::Start {
            job_id: id,
            task: None,
            allocs: vec![alloc("n1", 1, 0)],
            now: 10,
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        })
        .unwrap();
        refused(&mut s, Command::Resume { job_id: id, now: 20 }, ESLURM_JOB_NOT_SUSPENDED);
        s.apply(&Command::Suspend { job_id: id, now: 20, preempted: false }).unwrap();
        refused(&mut s, Command::Resume { job_id: id, now: i64::MAX }, ESLURM_INVALID_TIME_VALUE);
        assert_eq!(s.apply(&Command::Resume { job_id: id, now: 50 }), Ok(Applied::Ok));
        assert_eq!(s.job(id).map(|j| (j.state, j.end_time)), Some((JobState::Running, 70 + 30)));
        assert_eq!(s.node("n1").map(|n| n.alloc_cpus), Some(1));
        let p = submit(&mut s, job());
        refused(&mut s, Command::Resume { job_id: p, now: 1 }, ESLURM_JOB_PENDING);
        refused(&mut s, Command::Resume { job_id: 99, now: 1 }, ESLURM_INVALID_JOB_ID);
        // the node's CPUs were taken meanwhile up to the top
        s.apply(&Command::Suspend { job_id: id, now: 60, preempted: false }).unwrap();
        let big = submit(&mut s, job());
        s.apply(&Command::Start {
            job_id: big,
            task: None,
            allocs: vec![alloc("n1", u32::MAX, 0)],
            now: 61,
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        })
        .unwrap();
        refused(&mut s, Command::Resume { job_id: id, now: 62 }, ESLURM_INVALID_CPU_COUNT);
        s.apply(&Command::Complete { job_id: big, exit_status: 0, launch_failed: false, now: 63 }).unwrap();
        let f = big;
        refused(&mut s, Command::Resume { job_id: f, now: 64 }, ESLURM_ALREADY_DONE);
    }

    /// The keys of format version 3 set what sbatch's options of the same
    /// name set (scontrol_surface 086-141).
    #[test]
    fn update_job_sets_the_fields_sbatch_sets() {
        let mut s = cluster();
        // (before the cluster writes version 3, its job fields are not kept)
        let old = submit(&mut s, job());
        let u = JobUpdate { admin_comment: Some("a".into()), cpus_per_task: Some(2), ..Default::default() };
        s.apply(&Command::UpdateJob { job_id: old, update: Box::new(u) }).unwrap();
        let j = s.job(old).unwrap();
        assert_eq!((j.admin_comment.clone(), j.submitted_cpus_per_task, j.desc.cpus_per_task), (None, None, Some(2)));
        s.apply(&Command::SetFormatVersion { version: 3 }).unwrap();
        let mut j = job();
        j.desc.nice = Some(10);
        let p = submit(&mut s, j);
        let u = JobUpdate {
            admin_comment: Some("adm".into()),
            extra: Some("foo".into()),
            min_cpus_node: Some(2),
            cpus_per_task: Some(3),
            num_cpus: Some(4),
            ntasks_per_node: Some(1),
            tmp_disk: Some(100),
            sockets_per_node: Some(1),
            cores_per_socket: Some(2),
            threads_per_core: Some(1),
            prefer: Some("f".into()),
            reservation: Some("r".into()),
            wckey: Some("w".into()),
            deadline: Some(99),
            contiguous: Some(true),
            shared: Some(false),
            mail_type: Some("END".into()),
            mail_user: Some("x@y".into()),
            switches: Some("1".into()),
            reboot: Some(true),
            delay_boot: Some(600),
            priority: Some(5),
            reset_nice: true,
            ..Default::default()
        };
        assert_eq!(s.apply(&Command::UpdateJob { job_id: p, update: Box::new(u) }), Ok(Applied::Ok));
        let j = s.job(p).unwrap();
        let d = &j.desc;
        assert_eq!(j.admin_comment.as_deref(), Some("adm"));
        assert_eq!((d.min_cpus, d.cpus_per_task, j.num_cpus, d.ntasks_per_node), (Some(2), Some(3), 4, Some(1)));
        // `TresPerTask=` keeps the submission's (none)
        assert_eq!((j.submitted_cpus_per_task, j.submitted_cpus_per_task()), (Some(0), None));
        assert_eq!(
            (d.tmp_mb, d.sockets_per_node, d.cores_per_socket, d.threads_per_core),
            (Some(100), Some(1), Some(2), Some(1))
        );
        assert_eq!(
            (d.reservation.as_deref(), d.deadline, d.contiguous(), d.oversubscribe()),
            (Some("r"), 99, true, "NO")
        );
        assert_eq!((d.mail_type.as_deref(), d.mail_user.as_deref()), (Some("END"), Some("x@y")));
        let a = d.accepted.as_deref().unwrap();
        assert_eq!((a.extra.as_deref(), a.prefer.as_deref(), a.wckey.as_deref()), (Some("foo"), Some("f"), Some("w")));
        assert_eq!((a.switches.as_deref(), a.reboot, a.delay_boot.as_deref()), (Some("1"), true, Some("10:00")));
        // an operator's priority: nice back to 0, the priority as given
        assert_eq!((j.priority, d.nice), (5, None));
        // a second CPUsPerTask= keeps the submission's; YES shares; empty clears
        let again = JobUpdate {
            cpus_per_task: Some(4),
            shared: Some(true),
            prefer: Some(String::new()),
            reservation: Some(String::new()),
            ..Default::default()
        };
        s.apply(&Command::UpdateJob { job_id: p, update: Box::new(again) }).unwrap();
        let j = s.job(p).unwrap();
        assert_eq!((j.desc.cpus_per_task, j.submitted_cpus_per_task), (Some(4), Some(0)));
        assert_eq!(j.desc.oversubscribe(), "YES");
        assert_eq!(
            (j.desc.accepted.as_deref().and_then(|a| a.prefer.clone()), j.desc.reservation.clone()),
            (None, None)
        );
        // a job submitted with -c 2 keeps showing it
        let mut c2 = job();
        c2.desc.cpus_per_task = Some(2);
        let q = submit(&mut s, c2);
        s.apply(&Command::UpdateJob {
            job_id: q,
            update: Box::new(JobUpdate { cpus_per_task: Some(1), ..Default::default() }),
        })
        .unwrap();
        assert_eq!(s.job(q).map(|j| (j.desc.cpus_per_task, j.submitted_cpus_per_task())), Some((Some(1), Some(2))));
    }

    #[test]
    fn an_operators_priority_stays_until_released() {
        let mut s = cluster();
        let upd = |job_id, p| Command::UpdateJob {
            job_id,
            update: Box::new(JobUpdate { priority: Some(p), by_operator: true, ..Default::default() }),
        };
        // before version 10 the update is applied as a replica decodes it: without the mark
        s.apply(&Command::SetFormatVersion { version: crate::PREEMPT_SUSPEND_VERSION }).unwrap();
        let old = submit(&mut s, job());
        s.apply(&upd(old, 77)).unwrap();
        assert_eq!(s.job(old).map(|j| (j.priority, j.desc.priority)), Some((77, None)));
        s.apply(&Command::SetFormatVersion { version: crate::DIRECT_PRIORITY_VERSION }).unwrap();
        let p = submit(&mut s, job());
        s.apply(&upd(p, 77)).unwrap();
        assert_eq!(s.job(p).map(|j| (j.priority, j.desc.priority)), Some((77, Some(77))));
        // the scheduler's own recalculation carries no mark
        let recalc = JobUpdate { priority: Some(5), ..Default::default() };
        s.apply(&Command::UpdateJob { job_id: p, update: Box::new(recalc) }).unwrap();
        assert_eq!(s.job(p).map(|j| (j.priority, j.desc.priority)), Some((5, Some(77))));
        // a hold and a release: computed again
        s.apply(&Command::Hold { job_id: p, reason: Reason::JobHeldAdmin }).unwrap();
        s.apply(&Command::Release { job_id: p }).unwrap();
        assert_eq!(s.job(p).map(|j| j.desc.priority), Some(None));
    }

    #[test]
    fn update_job_changes_what_it_names() {
        let mut s = cluster();
        let p = submit(&mut s, job());
        let upd = |job_id, update| Command::UpdateJob { job_id, update: Box::new(update) };
        let u = JobUpdate {
            name: Some("n".into()),
            num_nodes: Some(2),
            time_limit: Some(Some(10)),
            dependency: Some(String::new()),
            mem_per_cpu: Some(100),
            ..Default::default()
        };
        assert_eq!(s.apply(&upd(p, u)), Ok(Applied::Ok));
        let j = s.job(p).unwrap();
        assert_eq!(
            (j.desc.name.as_str(), j.num_nodes, j.num_tasks, j.num_cpus, j.time_limit),
            ("n", 2, 2, 2, Some(10))
        );
        assert_eq!((j.desc.max_nodes, j.mem_per_cpu, j.desc.dependency.clone()), (Some(2), 100, None));
        // a running job's end moves with its limit
        let r = running(&mut s, "n1");
        s.apply(&upd(r, JobUpdate { time_limit: Some(Some(2)), ..Default::default() })).unwrap();
        assert_eq!(s.job(r).map(|j| j.end_time), Some(10 + 120));
        let f = done(&mut s);
        refused(&mut s, upd(f, JobUpdate::default()), ESLURM_JOB_FINISHED);
        refused(&mut s, upd(99, JobUpdate::default()), ESLURM_INVALID_JOB_ID);
        // overflowing CPUs or end time: refused whole (the name too stays)
        let mut wide = job();
        wide.desc.cpus_per_task = Some(u32::MAX);
        let w = submit(&mut s, wide);
        refused(
            &mut s,
            upd(w, JobUpdate { name: Some("x".into()), num_nodes: Some(2), ..Default::default() }),
            ESLURM_INVALID_CPU_COUNT,
        );
        let late = submit(&mut s, job());
        s.apply(&Command::Start {
            job_id: late,
            task: None,
            allocs: vec![],
            now: i64::MAX - 5,
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        })
        .unwrap();
        refused(
            &mut s,
            upd(late, JobUpdate { time_limit: Some(Some(1)), ..Default::default() }),
            ESLURM_INVALID_TIME_VALUE,
        );
        // priority/basic: a nice change moves the priority
        let mut b = cluster();
        b.set_priority_basic(true);
        let id = submit(&mut b, job());
        b.apply(&upd(id, JobUpdate { nice: Some(5), ..Default::default() })).unwrap();
        assert_eq!(b.job(id).map(|j| j.priority), Some(4294901759 - 5));
    }
}
