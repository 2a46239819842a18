//! What a job's QOS decides in a pass (`spur_core::qos`): under
//! `AccountingStorageEnforce=limits` its limits on running jobs (a job over
//! one waits with the limit's reason and holds back no one, as slurmctld's
//! `acct_policy_job_runnable_pre_select`); under `PreemptType=preempt/qos`
//! whom it may preempt and how (see `preemptees`).

use spur_core::assoc::{Assocs, Limits};
use spur_core::assoc_limits::Tally;
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
    /// The accounts and associations, whose limits hold with `limits`.
    pub assocs: Option<std::sync::Arc<Assocs>>,
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
/// jobs: per QOS, per QOS and user (jobs and CPUs), per QOS and account,
/// and with association limits per association.
#[derive(Default)]
pub(crate) struct QosUsage {
    /// Jobs and CPUs.
    qos: HashMap<u32, (u32, u64)>,
    user: HashMap<(u32, u32), (u32, u64)>,
    account: HashMap<(u32, String), u32>,
    assoc: Option<AssocUsage>,
}

/// What the association limits count in a pass: the running jobs of each
/// user association and of each account (with every account below it),
/// and the limits of each, passed down as slurmdbd passes them.
struct AssocUsage {
    /// (user, account) -> its effective limits and what it runs.
    user: HashMap<(String, String), (Limits, Tally)>,
    /// account -> its own limits, what runs in it and below it, and the
    /// accounts above it.
    account: HashMap<String, (Limits, Tally, Vec<String>)>,
}

/// A job's association: (user, account in lower case).
fn assoc_key(job: &Job) -> Option<(String, String)> {
    Some((job.user_name.clone(), job.desc.account.as_deref().filter(|a| !a.is_empty())?.to_ascii_lowercase()))
}

/// What a job holds (running: its allocation) or asks for, as the
/// association limits count it.
fn tally_of(job: &Job, allocs: &[NodeAlloc]) -> Tally {
    if allocs.is_empty() {
        let mem = if job.mem_per_cpu > 0 {
            job.mem_per_cpu.saturating_mul(u64::from(job.num_cpus))
        } else {
            job.mem_per_node.saturating_mul(u64::from(job.num_nodes.max(1)))
        };
        // (its GPUs: --gres on every node, or --gpus)
        let gpus =
            spur_core::priority::job_tres(job).iter().find(|(n, _)| n == "gres/gpu").map_or(0, |(_, v)| *v as u64);
        Tally { jobs: 1, cpus: u64::from(job.num_cpus.max(1)), nodes: u64::from(job.num_nodes.max(1)), mem, gpus }
    } else {
        Tally {
            jobs: 1,
            cpus: allocs.iter().map(|a| u64::from(a.cpus)).sum(),
            nodes: allocs.len() as u64,
            mem: allocs.iter().map(|a| a.mem_mb).sum(),
            gpus: allocs.iter().flat_map(|a| &a.gres).filter(|g| g.name == "gpu").map(|g| g.count).sum(),
        }
    }
}

impl AssocUsage {
    fn new(a: &Assocs) -> AssocUsage {
        let account = a
            .accounts
            .iter()
            .map(|acc| {
                let up: Vec<String> = a.ancestry(&acc.name).iter().skip(1).map(|x| x.name.clone()).collect();
                (acc.name.clone(), (acc.limits.clone(), Tally::default(), up))
            })
            .collect();
        let user = a
            .links
            .iter()
            .map(|l| ((l.user.clone(), l.account.clone()), (a.link_limits(l), Tally::default())))
            .collect();
        AssocUsage { user, account }
    }

    /// A job of `t` runs in association `k`: its tally, its account's and
    /// every account's above.
    fn add(&mut self, k: &(String, String), t: &Tally) {
        if let Some(u) = self.user.get_mut(k) {
            u.1.add(t);
        }
        let up = match self.account.get_mut(&k.1) {
            Some(acc) => {
                acc.1.add(t);
                acc.2.clone()
            }
            None => return,
        };
        for name in up {
            if let Some(acc) = self.account.get_mut(&name) {
                acc.1.add(t);
            }
        }
    }

    /// The association limit that keeps `job` from starting now, as
    /// slurmctld names it: its association's own (`Grp*`, then `MaxJobs`
    /// and the per-job limits), then each account's `Grp*` limits up to
    /// root.
    fn blocks(&self, job: &Job) -> Option<&'static str> {
        let k = assoc_key(job)?;
        let (l, used) = self.user.get(&k)?;
        let t = tally_of(job, &[]);
        if let Some(r) = used.over_grp(l, &t) {
            return Some(r);
        }
        if l.max_jobs.is_some_and(|m| used.jobs >= m) {
            return Some("AssocMaxJobsLimit");
        }
        if let Some(r) = l.job_over(&t, job.time_limit) {
            return Some(r);
        }
        let (own, sub, up) = self.account.get(&k.1)?;
        if let Some(r) = sub.over_grp(own, &t) {
            return Some(r);
        }
        up.iter().find_map(|name| self.account.get(name).and_then(|(l, sub, _)| sub.over_grp(l, &t)))
    }
}

impl QosUsage {
    /// The counts of `jobs` (running or suspended: slurmctld counts a job
    /// from its start to its end).
    pub(crate) fn new(policy: &QosPolicy, jobs: &[&Job]) -> QosUsage {
        let mut u = QosUsage::default();
        if !policy.limits {
            return u;
        }
        u.assoc = policy.assocs.as_deref().filter(|a| a.any_limits()).map(AssocUsage::new);
        for j in jobs.iter().filter(|j| matches!(j.state, JobState::Running | JobState::Suspended)) {
            if let Some(q) = policy.of_job(j) {
                u.add(q.id, j, j.allocs.iter().map(|a| u64::from(a.cpus)).sum());
            }
            u.add_assoc(j, &j.allocs);
        }
        u
    }

    fn add_assoc(&mut self, j: &Job, allocs: &[NodeAlloc]) {
        if let (Some(a), Some(k)) = (self.assoc.as_mut(), assoc_key(j)) {
            a.add(&k, &tally_of(j, allocs));
        }
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
            self.add_assoc(job, allocs);
        }
    }

    /// The limit of its QOS, then of its association, that keeps `job`
    /// from starting now, as slurmctld names it.
    pub(crate) fn blocks(&self, policy: &QosPolicy, job: &Job) -> Option<Reason> {
        if !policy.limits {
            return None;
        }
        let r = policy.of_job(job).and_then(|q| self.qos_blocks(q, job));
        r.or_else(|| self.assoc.as_ref().and_then(|a| a.blocks(job))).map(|r| Reason::Other(r.to_string()))
    }

    fn qos_blocks(&self, q: &Qos, job: &Job) -> Option<&'static str> {
        if let Some(r) = q.job_over(job) {
            return Some(r);
        }
        let cpus = u64::from(job.num_cpus.max(1));
        let (grp_jobs, grp_cpus) = self.qos.get(&q.id).copied().unwrap_or((0, 0));
        if q.grp_jobs.is_some_and(|m| grp_jobs >= m) {
            return Some("QOSGrpJobsLimit");
        }
        if q.tres_count("GrpTRES", "cpu").is_some_and(|m| grp_cpus + cpus > m) {
            return Some("QOSGrpCpuLimit");
        }
        let (jobs, used) = self.user.get(&(q.id, job.user_id)).copied().unwrap_or((0, 0));
        if q.max_jobs_pu.is_some_and(|m| jobs >= m) {
            return Some("QOSMaxJobsPerUserLimit");
        }
        if q.tres_count("MaxTRESPU", "cpu").is_some_and(|m| used + cpus > m) {
            return Some("QOSMaxCpuPerUserLimit");
        }
        let acct = job.desc.account.clone().unwrap_or_default();
        if q.max_jobs_pa.is_some_and(|m| self.account.get(&(q.id, acct)).copied().unwrap_or(0) >= m) {
            return Some("QOSMaxJobsPerAccountLimit");
        }
        None
    }
}
