//! `PreemptMode=GANG`: time slicing of jobs that share CPUs (partition
//! `OverSubscribe=FORCE:N`, or `YES:N` with `-s`), as slurmctld's gang
//! scheduler does it. The jobs are kept in an order (the order they started
//! in). From it, an active set is built: each job in turn runs if its CPUs
//! fit beside those of the jobs already active on every node it has.
//! The others are suspended, keeping their CPUs. Every `SchedulerTimeSlice`,
//! the active jobs move to the end of the order, so the suspended ones get
//! their turn. A job that starts beside an active one starts suspended.
//!
//! Measured on 22.05 (crates/spur-sched/tests/oversubscribe.md): four
//! 8-CPU jobs under `FORCE:2` on two 8-CPU nodes, `SchedulerTimeSlice=10`.
//! The first two ran and the other two started suspended; every 10 s the
//! two pairs swapped.
//!
//! The suspensions and resumptions are [`Decision::Preempt`] (`suspend`)
//! and [`Decision::Resume`]. A job suspended this way is marked
//! `preempt_suspended`. The scheduling pass counts its CPUs as still
//! shared, and resumes it as soon as the running jobs leave it room.

use std::collections::{HashMap, HashSet};

use spur_core::model::{Job, JobState, Node, Partition};

use crate::{share_of, Decision};

/// What one evaluation decides, and the order to keep for the next.
#[derive(Debug, Default)]
pub struct GangOutcome {
    pub decisions: Vec<Decision>,
    pub order: Vec<u32>,
}

/// One evaluation. `order` is the last one's. `cycle`: a time slice has
/// passed, so the active jobs go to the end of the order first.
pub fn evaluate(jobs: &[&Job], nodes: &[&Node], parts: &[&Partition], order: &[u32], cycle: bool) -> GangOutcome {
    let part_of: HashMap<&str, &Partition> = parts.iter().map(|p| (p.name.as_str(), *p)).collect();
    let sharing = |j: &Job| part_of.get(j.partition.as_str()).is_some_and(|p| share_of(j, p).0 > 1);
    // the jobs time sliced: running ones that share CPUs, and those this
    // scheduler suspended (an operator's suspension is left alone)
    let managed: HashMap<u32, &Job> = jobs
        .iter()
        .filter(|j| {
            (j.state == JobState::Running || (j.state == JobState::Suspended && j.preempt_suspended)) && sharing(j)
        })
        .map(|j| (j.job_id, *j))
        .collect();
    if managed.is_empty() {
        return GangOutcome::default();
    }
    let mut next: Vec<u32> = order.iter().copied().filter(|id| managed.contains_key(id)).collect();
    let known: HashSet<u32> = next.iter().copied().collect();
    let mut new: Vec<&Job> = managed.values().copied().filter(|j| !known.contains(&j.job_id)).collect();
    new.sort_by_key(|j| (j.start_time, j.job_id));
    next.extend(new.iter().map(|j| j.job_id));
    if cycle {
        // the jobs that ran this slice go last, in their order
        let (ran, waited): (Vec<u32>, Vec<u32>) =
            next.iter().partition(|id| managed.get(id).is_some_and(|j| j.state == JobState::Running));
        next = waited.into_iter().chain(ran).collect();
    }
    // what the other running jobs hold on each node
    let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
    let mut used: Vec<u32> = nodes.iter().map(|n| n.alloc_cpus).collect();
    for j in managed.values().filter(|j| j.state == JobState::Running) {
        for a in &j.allocs {
            if let Some(&i) = index.get(a.node.as_str()) {
                used[i] = used[i].saturating_sub(a.cpus);
            }
        }
    }
    let mut decisions = vec![];
    for id in &next {
        let j = managed[id];
        let fits = j
            .allocs
            .iter()
            .all(|a| index.get(a.node.as_str()).is_some_and(|&i| used[i].saturating_add(a.cpus) <= nodes[i].cpus));
        if fits {
            for a in &j.allocs {
                if let Some(&i) = index.get(a.node.as_str()) {
                    used[i] = used[i].saturating_add(a.cpus);
                }
            }
            if j.state == JobState::Suspended {
                decisions.push(Decision::Resume { job_id: *id });
            }
        } else if j.state == JobState::Running {
            decisions.push(Decision::Preempt { job_id: *id, requeue: false, suspend: true });
        }
    }
    GangOutcome { decisions, order: next }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::NodeAlloc;

    fn node(name: &str, alloc: u32) -> Node {
        Node { name: name.into(), cpus: 8, alloc_cpus: alloc, ..Default::default() }
    }

    fn job(id: u32, node: &str, state: JobState) -> Job {
        Job {
            job_id: id,
            state,
            preempt_suspended: state == JobState::Suspended,
            partition: "force".into(),
            start_time: 100 + id as i64,
            allocs: vec![NodeAlloc { node: node.into(), cpus: 8, mem_mb: 1000, gres: vec![] }],
            ..Default::default()
        }
    }

    #[test]
    fn pairs_take_turns_as_measured() {
        let part = Partition { name: "force".into(), oversubscribe: "FORCE:2".into(), ..Default::default() };
        // all four started: two per node, the node totals hold all 16
        let (n1, n2) = (node("n1", 16), node("n2", 16));
        let js = [
            job(24, "n1", JobState::Running),
            job(25, "n2", JobState::Running),
            job(26, "n1", JobState::Running),
            job(27, "n2", JobState::Running),
        ];
        let refs: Vec<&Job> = js.iter().collect();
        let o = evaluate(&refs, &[&n1, &n2], &[&part], &[], false);
        // the later two start suspended
        assert_eq!(
            o.decisions,
            [
                Decision::Preempt { job_id: 26, requeue: false, suspend: true },
                Decision::Preempt { job_id: 27, requeue: false, suspend: true }
            ]
        );
        assert_eq!(o.order, [24, 25, 26, 27]);
        // then 26 and 27 suspended (their CPUs left the node totals)
        let (n1, n2) = (node("n1", 8), node("n2", 8));
        let js = [
            job(24, "n1", JobState::Running),
            job(25, "n2", JobState::Running),
            job(26, "n1", JobState::Suspended),
            job(27, "n2", JobState::Suspended),
        ];
        let refs: Vec<&Job> = js.iter().collect();
        // within the slice nothing changes
        assert!(evaluate(&refs, &[&n1, &n2], &[&part], &o.order, false).decisions.is_empty());
        // at the slice's end the pairs swap
        let o = evaluate(&refs, &[&n1, &n2], &[&part], &o.order, true);
        assert_eq!(o.order, [26, 27, 24, 25]);
        assert_eq!(
            o.decisions,
            [
                Decision::Resume { job_id: 26 },
                Decision::Resume { job_id: 27 },
                Decision::Preempt { job_id: 24, requeue: false, suspend: true },
                Decision::Preempt { job_id: 25, requeue: false, suspend: true }
            ]
        );
        // jobs of a partition that does not share are not sliced
        let solo = Partition { name: "force".into(), oversubscribe: "NO".into(), ..Default::default() };
        assert!(evaluate(&refs, &[&n1, &n2], &[&solo], &[], true).decisions.is_empty());
    }
}
