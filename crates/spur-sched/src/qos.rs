//! What a job's QOS decides in a pass (`spur_core::qos`): under
//! `AccountingStorageEnforce=limits` its limits on running jobs (a job over
//! one waits with the limit's reason and holds back no one, as slurmctld's
//! `acct_policy_job_runnable_pre_select`); under `PreemptType=preempt/qos`
//! whom it may preempt and how (see `preemptees`).

use spur_core::model::{Job, JobState, NodeAlloc, Reason};
use spur_core::qos::{self, Qos};
use std::collections::HashMap;

/// The QOS records and what slurm.conf makes of them.
#[derive(Clone, Debug, Default)]
pub struct QosPolicy {
    pub qos: Vec<Qos>,
    /// `PreemptType=preempt/qos`.
    pub preempt: bool,
    /// `AccountingStorageEnforce` holds `limits` (or `safe`): the limits
    /// hold.
    pub limits: bool,
    /// slurm.conf's `PreemptExemptTime`, seconds (a QOS's own first).
    pub exempt: u32,
}

impl QosPolicy {
    pub fn of_job(&self, job: &Job) -> Option<&Qos> {
        qos::of_job(&self.qos, job)
    }

    /// preempt/qos's `preempt_p_preemptable`: whether a job of `by`'s QOS
    /// may preempt one of `of`'s (its QOS lists the other's; in the same
    /// QOS only with `WITHIN` and a higher priority).
    pub fn may_preempt(&self, by: &Job, of: &Job, cluster_within: bool) -> bool {
        let (Some(a), Some(b)) = (self.of_job(by), self.of_job(of)) else { return false };
        if a.id == b.id {
            let within = cluster_within || a.preempt_mode.as_deref().is_some_and(|m| m.contains("WITHIN"));
            return within && by.priority > of.priority;
        }
        a.preempt.contains(&b.id)
    }

    /// When a running job may first be preempted: its start plus its QOS's
    /// `PreemptExemptTime` (else slurm.conf's).
    pub fn preemptable_at(&self, job: &Job) -> i64 {
        let exempt = self.of_job(job).and_then(|q| q.preempt_exempt_time).unwrap_or(self.exempt);
        job.start_time.saturating_add(i64::from(exempt))
    }

    /// The preempt mode of a job's QOS (`None`: the cluster's).
    pub fn preempt_mode_of(&self, job: &Job) -> Option<&str> {
        self.of_job(job)?.preempt_mode.as_deref()
    }

    /// The QOS's `GraceTime` of a preempted job, seconds.
    pub fn grace_of(&self, job: &Job) -> u32 {
        self.of_job(job).map(|q| q.grace_time).unwrap_or(0)
    }
}

/// The running jobs the limits count, kept through a pass as it starts
/// jobs: per QOS, per QOS and user (jobs and CPUs), per QOS and account.
#[derive(Default)]
pub(crate) struct QosUsage {
    /// Jobs and CPUs.
    qos: HashMap<u32, (u32, u64)>,
    user: HashMap<(u32, u32), (u32, u64)>,
    account: HashMap<(u32, String), u32>,
}

impl QosUsage {
    /// The counts of `jobs` (running or suspended: slurmctld counts a job
    /// from its start to its end).
    pub(crate) fn new(policy: &QosPolicy, jobs: &[&Job]) -> QosUsage {
        let mut u = QosUsage::default();
        if !policy.limits {
            return u;
        }
        for j in jobs.iter().filter(|j| matches!(j.state, JobState::Running | JobState::Suspended)) {
            if let Some(q) = policy.of_job(j) {
                u.add(q.id, j, j.allocs.iter().map(|a| u64::from(a.cpus)).sum());
            }
        }
        u
    }

    fn add(&mut self, qos: u32, j: &Job, cpus: u64) {
        let g = self.qos.entry(qos).or_default();
        g.0 += 1;
        g.1 += cpus;
        let e = self.user.entry((qos, j.user_id)).or_default();
        e.0 += 1;
        e.1 += cpus;
        *self.account.entry((qos, j.desc.account.clone().unwrap_or_default())).or_default() += 1;
    }

    /// `job` started on `allocs` in this pass.
    pub(crate) fn started(&mut self, policy: &QosPolicy, job: &Job, allocs: &[NodeAlloc]) {
        if policy.limits {
            if let Some(q) = policy.of_job(job) {
                self.add(q.id, job, allocs.iter().map(|a| u64::from(a.cpus)).sum());
            }
        }
    }

    /// The limit of its QOS that keeps `job` from starting now, as
    /// slurmctld names it.
    pub(crate) fn blocks(&self, policy: &QosPolicy, job: &Job) -> Option<Reason> {
        if !policy.limits {
            return None;
        }
        let q = policy.of_job(job)?;
        let reason = |r: &str| Some(Reason::Other(r.to_string()));
        if let Some(r) = q.job_over(job) {
            return reason(r);
        }
        let cpus = u64::from(job.num_cpus.max(1));
        let (grp_jobs, grp_cpus) = self.qos.get(&q.id).copied().unwrap_or((0, 0));
        if q.grp_jobs.is_some_and(|m| grp_jobs >= m) {
            return reason("QOSGrpJobsLimit");
        }
        if q.tres_count("GrpTRES", "cpu").is_some_and(|m| grp_cpus + cpus > m) {
            return reason("QOSGrpCpuLimit");
        }
        let (jobs, used) = self.user.get(&(q.id, job.user_id)).copied().unwrap_or((0, 0));
        if q.max_jobs_pu.is_some_and(|m| jobs >= m) {
            return reason("QOSMaxJobsPerUserLimit");
        }
        if q.tres_count("MaxTRESPU", "cpu").is_some_and(|m| used + cpus > m) {
            return reason("QOSMaxCpuPerUserLimit");
        }
        let acct = job.desc.account.clone().unwrap_or_default();
        if q.max_jobs_pa.is_some_and(|m| self.account.get(&(q.id, acct)).copied().unwrap_or(0) >= m) {
            return reason("QOSMaxJobsPerAccountLimit");
        }
        None
    }
}
