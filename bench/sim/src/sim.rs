//! The simulation: a trace replayed on `nodes` x `cpus` simulated nodes in
//! virtual time, each scheduling decision taken by spur-sched's own
//! `schedule_pass`.
//!
//! Events are submissions and completions. At each time something happens,
//! the completions free their CPUs (as the controller's `Complete` does), the
//! submissions join the queue as pending jobs (as its `Submit` does), and
//! then one pass runs; its starts are applied as the controller's `Start`
//! applies them (the job runs from now; its CPUs are taken from its nodes;
//! its `end_time` is now + its time limit, which is what the backfill phase
//! plans with) and the job's completion is queued at now + its real run
//! time. Reasons are kept on the jobs (the scheduler only says when one
//! changes); plans are counted.

use crate::swf::{Trace, TraceJob};
use spur_core::model::{Job, JobDesc, JobState, Node, NodeAlloc, NodeBase, Partition};
use spur_sched::backfill::BackfillParams;
use spur_sched::{schedule_pass, Decision, Params};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Virtual time starts here (epoch seconds, a multiple of the backfill
/// grain): trace time 0 is this, so no time the scheduler reads is 0
/// ("unset" for a start or an end).
pub const EPOCH: i64 = 1_500_000_000;

/// The partition holding every node.
pub const PARTITION: &str = "sim";

/// priority/basic's first priority (slurmctld's: one below 0xffff0000 for
/// the first job, then one less for each later one).
const TOP_PRIORITY: u32 = 0xffff_0000;

/// The simulated cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub nodes: u32,
    pub cpus: u32,
}

impl Cluster {
    pub fn total_cpus(&self) -> u64 {
        u64::from(self.nodes) * u64::from(self.cpus)
    }
}

/// What happened to one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobOutcome {
    /// The trace's job number.
    pub number: i64,
    /// CPUs it was given (its processors: one CPU per task).
    pub cpus: u32,
    /// Trace seconds.
    pub submit: i64,
    pub start: i64,
    pub end: i64,
    pub backfilled: bool,
    /// The start the backfill phase first planned for it (trace seconds).
    pub first_plan: Option<i64>,
    /// The start planned for it in the first pass that found it at the
    /// head of the queue (the highest-priority job still pending).
    pub head_plan: Option<i64>,
}

impl JobOutcome {
    pub fn wait(&self) -> i64 {
        self.start - self.submit
    }
    pub fn run(&self) -> i64 {
        self.end - self.start
    }
}

/// A run's result: each job's outcome in trace order, and the counts.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub jobs: Vec<JobOutcome>,
    /// Lines of the trace that were no runnable job, and jobs wider than the
    /// cluster.
    pub skipped: usize,
    pub passes: u64,
    pub plans: u64,
    pub reasons: u64,
    pub wall_ms: f64,
}

fn node_name(i: u32, width: usize) -> String {
    format!("n{:0width$}", i + 1, width = width)
}

/// The cluster's nodes as the controller holds them once every agent has
/// registered: idle, nothing allocated.
pub fn make_nodes(c: Cluster) -> Vec<Node> {
    let width = c.nodes.max(1).to_string().len();
    (0..c.nodes)
        .map(|i| {
            let name = node_name(i, width);
            Node {
                addr: "127.0.0.1".into(),
                hostname: name.clone(),
                name,
                cpus: c.cpus,
                boards: 1,
                sockets: 1,
                cores_per_socket: c.cpus,
                threads_per_core: 1,
                real_memory: u64::from(c.cpus) * 1000,
                weight: 1,
                base: NodeBase::Idle,
                ..Default::default()
            }
        })
        .collect()
}

pub fn make_partition(nodes: &[Node]) -> Partition {
    Partition {
        name: PARTITION.into(),
        nodes: nodes.iter().map(|n| n.name.clone()).collect(),
        default: true,
        oversubscribe: "NO".into(),
        priority_tier: 1,
        priority_job_factor: 1,
        ..Default::default()
    }
}

/// A trace job as the controller's record of `sbatch -n P -t LIMIT` right
/// after its submission (P tasks of one CPU, no node count: one node at
/// least; no memory asked).
pub fn make_job(id: u32, seq: u32, t: &TraceJob) -> Job {
    let submit = EPOCH + t.submit;
    Job {
        job_id: id,
        desc: JobDesc {
            name: format!("swf{}", t.number),
            num_tasks: Some(t.procs),
            time_limit: Some(t.limit_min),
            ..Default::default()
        },
        user_id: t.user,
        group_id: t.user,
        user_name: format!("u{}", t.user),
        group_name: format!("u{}", t.user),
        state: JobState::Pending,
        priority: TOP_PRIORITY.saturating_sub(1).saturating_sub(seq).max(1),
        partition: PARTITION.into(),
        time_limit: Some(t.limit_min),
        submit_time: submit,
        eligible_time: submit,
        num_nodes: 1,
        num_tasks: t.procs,
        num_cpus: t.procs,
        batch_flag: 1,
        ..Default::default()
    }
}

/// The jobs of `trace` the cluster can run, by submit time (ties in trace
/// order), and how many it cannot (wider than the cluster).
pub fn runnable(trace: &Trace, c: Cluster) -> (Vec<TraceJob>, usize) {
    let total = c.total_cpus();
    let mut jobs: Vec<TraceJob> = trace.jobs.iter().filter(|j| u64::from(j.procs) <= total).cloned().collect();
    let wide = trace.jobs.len() - jobs.len();
    jobs.sort_by_key(|j| j.submit);
    (jobs, wide)
}

/// Replay `trace` on `cluster`, with the backfill phase or without it
/// (sched/builtin). An error is a scheduler decision that cannot be applied
/// (a start of a job not pending, more CPUs than a node has free), or jobs
/// left that never start.
pub fn simulate(trace: &Trace, cluster: Cluster, backfill: bool) -> Result<Outcome, String> {
    let started_at = Instant::now();
    if cluster.nodes == 0 || cluster.cpus == 0 {
        return Err("the cluster needs at least one node and one CPU".into());
    }
    let (tj, wide) = runnable(trace, cluster);
    if tj.len() >= u32::MAX as usize {
        return Err(format!("{} jobs: more than a job id holds", tj.len()));
    }
    let mut nodes = make_nodes(cluster);
    let part = make_partition(&nodes);
    let node_index: std::collections::HashMap<String, usize> =
        nodes.iter().enumerate().map(|(i, n)| (n.name.clone(), i)).collect();
    // job i has id i + 1
    let mut jobs: Vec<Job> = tj.iter().enumerate().map(|(i, t)| make_job(i as u32 + 1, i as u32, t)).collect();
    let params = Params {
        depth: usize::MAX,
        backfill: backfill.then(BackfillParams::default),
        preempt: None,
        ending: vec![],
        topology: None,
        qos: None,
    };
    let mut out = Outcome { skipped: trace.skipped + wide, ..Default::default() };
    let mut starts: Vec<Option<(i64, bool, u32)>> = vec![None; jobs.len()];
    let mut ends: Vec<i64> = vec![0; jobs.len()];
    let mut first_plan: Vec<Option<i64>> = vec![None; jobs.len()];
    let mut head_plan: Vec<Option<i64>> = vec![None; jobs.len()];
    // submitted and not finished, by index (ascending: the order the jobs
    // are given to the scheduler)
    let mut live: Vec<usize> = Vec::new();
    let mut completions: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::new();
    let mut next_submit = 0usize;
    loop {
        let next_c = completions.peek().map(|Reverse((t, _))| *t);
        let next_s = tj.get(next_submit).map(|j| EPOCH + j.submit);
        let now = match (next_c, next_s) {
            (None, None) => break,
            (a, b) => a.into_iter().chain(b).min().unwrap_or(EPOCH),
        };
        let mut finished = false;
        while let Some(Reverse((t, i))) = completions.peek().copied() {
            if t != now {
                break;
            }
            completions.pop();
            let j = &mut jobs[i];
            for a in &j.allocs {
                if let Some(n) = node_index.get(&a.node).map(|&k| &mut nodes[k]) {
                    n.alloc_cpus = n.alloc_cpus.saturating_sub(a.cpus);
                    n.alloc_mem = n.alloc_mem.saturating_sub(a.mem_mb);
                    if n.alloc_cpus == 0 && n.base == NodeBase::Allocated {
                        n.base = NodeBase::Idle;
                    }
                    n.last_busy = now;
                }
            }
            j.state = JobState::Completed;
            j.end_time = now;
            ends[i] = now;
            finished = true;
        }
        if finished {
            live.retain(|&i| jobs[i].state != JobState::Completed);
        }
        while next_submit < tj.len() && EPOCH + tj[next_submit].submit == now {
            live.push(next_submit);
            next_submit += 1;
        }
        let decisions = {
            let refs: Vec<&Job> = live.iter().map(|&i| &jobs[i]).collect();
            let node_refs: Vec<&Node> = nodes.iter().collect();
            let lookup = |_: u32| None;
            let (d, _) = schedule_pass(now, &refs, &lookup, &node_refs, &[&part], &[], &params);
            d
        };
        out.passes += 1;
        let mut planned: Vec<(usize, i64)> = Vec::new();
        for d in decisions {
            match d {
                Decision::Start { job_id, task, allocs, backfill } => {
                    let i = (job_id as usize).wrapping_sub(1);
                    if task.is_some() || i >= jobs.len() || jobs[i].state != JobState::Pending {
                        return Err(format!("at {}: a start of job {job_id}, which is not pending", now - EPOCH));
                    }
                    take(&mut nodes, &node_index, &allocs, now, job_id)?;
                    let j = &mut jobs[i];
                    j.state = JobState::Running;
                    j.reason = Default::default();
                    j.start_time = now;
                    j.end_time = now + i64::from(j.time_limit.unwrap_or(0)) * 60;
                    j.num_nodes = allocs.len() as u32;
                    j.num_cpus = allocs.iter().map(|a| a.cpus).sum();
                    j.allocs = allocs;
                    starts[i] = Some((now, backfill, j.num_cpus));
                    completions.push(Reverse((now + tj[i].run, i)));
                }
                Decision::Reason { job_id, reason } => {
                    out.reasons += 1;
                    if let Some(j) = jobs.get_mut((job_id as usize).wrapping_sub(1)) {
                        j.reason = reason;
                    }
                }
                Decision::Plan { job_id, start_time, .. } => {
                    out.plans += 1;
                    let i = (job_id as usize).wrapping_sub(1);
                    if i < jobs.len() {
                        first_plan[i].get_or_insert(start_time);
                        planned.push((i, start_time));
                    }
                }
                Decision::Eligible { job_id } => {
                    if let Some(j) = jobs.get_mut((job_id as usize).wrapping_sub(1)) {
                        j.eligible_time = now;
                    }
                }
                // (what the backfill phase looked at: display only)
                Decision::Considered { .. } => {}
                // (the simulator runs no preemption: its passes ask for none)
                Decision::CancelNeverSatisfied { job_id }
                | Decision::SetAside { job_id, .. }
                | Decision::Preempt { job_id, .. }
                | Decision::Resume { job_id } => {
                    return Err(format!("at {}: the scheduler set job {job_id} aside: {d:?}", now - EPOCH));
                }
            }
        }
        // (live is in priority order: the head is its first job still pending)
        if let Some(&head) = live.iter().find(|&&i| jobs[i].state == JobState::Pending) {
            if let Some(&(_, t)) = planned.iter().find(|(i, _)| *i == head) {
                head_plan[head].get_or_insert(t);
            }
        }
    }
    let never = starts.iter().filter(|s| s.is_none()).count();
    if never > 0 {
        return Err(format!("{never} jobs never started"));
    }
    out.jobs = tj
        .iter()
        .enumerate()
        .zip(starts.iter().zip(&ends))
        .map(|((i, t), (s, &end))| {
            let (start, bf, cpus) = s.unwrap_or((end, false, 0));
            JobOutcome {
                number: t.number,
                cpus,
                submit: t.submit,
                start: start - EPOCH,
                end: end - EPOCH,
                backfilled: bf,
                first_plan: first_plan[i].map(|p| p - EPOCH),
                head_plan: head_plan[i].map(|p| p - EPOCH),
            }
        })
        .collect();
    out.wall_ms = started_at.elapsed().as_secs_f64() * 1000.0;
    Ok(out)
}

/// A start's CPUs taken from its nodes, as the controller's `Start` takes
/// them; more than a node has free is the scheduler's fault, reported.
fn take(
    nodes: &mut [Node],
    index: &std::collections::HashMap<String, usize>,
    allocs: &[NodeAlloc],
    now: i64,
    job_id: u32,
) -> Result<(), String> {
    for a in allocs {
        let n = index.get(&a.node).map(|&k| &mut nodes[k]).ok_or_else(|| {
            format!("at {}: job {job_id} started on {}, which is no node of the cluster", now - EPOCH, a.node)
        })?;
        let cpus = n.alloc_cpus.saturating_add(a.cpus);
        if cpus > n.cpus {
            return Err(format!(
                "at {}: job {job_id} given {} CPUs on {}, which has {} of {} free",
                now - EPOCH,
                a.cpus,
                a.node,
                n.cpus - n.alloc_cpus,
                n.cpus
            ));
        }
        n.alloc_cpus = cpus;
        n.alloc_mem = n.alloc_mem.saturating_add(a.mem_mb);
        n.base = NodeBase::Allocated;
        n.last_busy = now;
    }
    Ok(())
}
