//! Scheduling as a pure function: a snapshot of jobs, nodes and partitions in,
//! decisions out. No I/O, no locks, no clocks (the caller passes `now`).
//!
//! This first scheduler is priority first-fit per partition: pending jobs are
//! taken in order of partition PriorityTier, job priority, submit time and id;
//! each starts on the first nodes of its partition that have enough free CPUs,
//! memory and GRES. The first job of a partition that cannot start blocks the
//! jobs behind it in that partition (reason `Resources` for it, `Priority` for
//! them), as Slurm's builtin scheduler does.

use spur_core::model::{GresAlloc, Job, JobState, Node, NodeAlloc, PartState, Partition, Reason, Reservation};
use spur_grammar::dependency::{DepKind, Dependency};
use spur_grammar::feature::{Choice, Constraint};
use spur_grammar::hostlist::MAX_JOB_HOSTS;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

pub mod backfill;
pub mod gang;
pub mod qos;
mod topo;
pub use topo::SchedTopology;

#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Start `job_id` (or, for an array meta-record, its task `task`) on these nodes.
    /// `backfill`: the backfill phase started it (`Scheduler=Backfill`).
    Start { job_id: u32, task: Option<u32>, allocs: Vec<NodeAlloc>, backfill: bool },
    /// The backfill phase expects a pending job to start at `start_time` on
    /// these nodes, and holds them for it from then (`StartTime=`,
    /// `SchedNodeList=`, `squeue --start`).
    Plan { job_id: u32, start_time: i64, nodes: Vec<String> },
    /// Set a pending job's reason.
    Reason { job_id: u32, reason: Reason },
    /// A job that was not yet eligible (held, or waiting on a dependency) now is:
    /// its eligible time becomes `now`.
    Eligible { job_id: u32 },
    /// A pending job submitted with `--kill-on-invalid-dep=yes` whose dependency
    /// can never be satisfied: it is cancelled, keeping its reason
    /// `DependencyNeverSatisfied` (recorded/24.11/workflow/088, 090).
    CancelNeverSatisfied { job_id: u32 },
    /// Placing the job failed (a fault of the scheduler, caught): the job is
    /// left pending with reason `BadConstraints` and the pass goes on. Given
    /// once, when the job gets that reason; the controller logs it.
    SetAside { job_id: u32, error: String },
    /// `PreemptType=preempt/partition_prio`: end running job `job_id` (of a
    /// partition of lower PriorityTier) so that a pending job may start:
    /// `requeue`, back to pending if it may be requeued (`PreemptMode=REQUEUE`),
    /// else it ends PREEMPTED (`CANCEL`). The pending job starts in a later
    /// pass, once the resources are back. `suspend` (`PreemptMode=SUSPEND`):
    /// it is suspended instead (its CPUs are free at once), and resumed
    /// ([`Decision::Resume`]) when they are free again.
    Preempt { job_id: u32, requeue: bool, suspend: bool },
    /// A job suspended by preemption gets its CPUs back: resume it (a pass
    /// resumes such jobs before it places any pending one, as Slurm's gang
    /// scheduler resumes a job when its preemptor ends).
    Resume { job_id: u32 },
    /// The backfill phase considered these pending jobs (slurmctld sets
    /// `BACKFILL_SCHED` and `LastSchedEval` on each job its backfill loop
    /// takes up, and its main scheduler clears the flag: `scontrol show job`
    /// prints `Scheduler=Backfill:*` for a pending job the last backfill
    /// cycle looked at). Given once per backfill phase, in queue order.
    Considered { job_ids: Vec<u32> },
}

/// The GRES kinds of a pass (a name and perhaps a type), numbered, so that
/// placement compares numbers rather than names.
#[derive(Clone, Debug, Default)]
pub(crate) struct Kinds(Vec<(String, Option<String>)>);

impl Kinds {
    /// The number of this kind, given one if new.
    fn id(&mut self, name: &str, ty: &Option<String>) -> u32 {
        if let Some(i) = self.0.iter().position(|k| k.0 == name && &k.1 == ty) {
            return i as u32;
        }
        self.0.push((name.to_string(), ty.clone()));
        (self.0.len() - 1) as u32
    }

    /// The kinds a request of `name` takes: of type `ty`, or of any type.
    pub(crate) fn matching(&self, name: &str, ty: &Option<String>) -> Vec<u32> {
        (0..self.0.len() as u32)
            .filter(|i| {
                let k = &self.0[*i as usize];
                k.0 == name && (ty.is_none() || &k.1 == ty)
            })
            .collect()
    }
}

/// Take `count` of the kinds `of` from a node's free GRES, across its
/// entries in order.
fn take_gres(gres: &mut [(u32, u64)], of: &[u32], count: u64) {
    let mut left = count;
    for g in gres.iter_mut().filter(|g| of.contains(&g.0)) {
        let t = left.min(g.1);
        g.1 -= t;
        left -= t;
        if left == 0 {
            break;
        }
    }
}

/// Give `count` of the kinds `of` back to a node's free GRES (to its first
/// entry of them).
pub(crate) fn give_gres(gres: &mut [(u32, u64)], of: &[u32], count: u64) {
    if let Some(g) = gres.iter_mut().find(|g| of.contains(&g.0)) {
        g.1 += count;
    }
}

/// The message of a caught panic.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

/// Where placement reads a node's free resources, by its place in the node
/// table: a pass's table, or (in the backfill phase) that table with what
/// came back by some time.
pub(crate) trait FreeOf {
    fn free_at(&self, i: usize) -> Option<&Free>;
    fn name_at(&self, i: usize) -> &str;
    /// The node's features (slurm.conf `Features=`).
    fn feats_at(&self, i: usize) -> &[String];
    /// The switch tree, if any, and whether `--switches` waits hold.
    fn topo(&self) -> Option<(&topo::TopoPass, bool)>;
}

/// The nodes of a pass by their place in the node table (slurm.conf order):
/// names, and the free resources of the usable ones.
#[derive(Clone, Debug)]
pub(crate) struct Table<'a> {
    pub(crate) names: Vec<&'a str>,
    pub(crate) free: Vec<Option<Free>>,
    pub(crate) index: HashMap<&'a str, usize>,
    pub(crate) kinds: Kinds,
    pub(crate) feats: Vec<&'a [String]>,
    /// `topology/tree` in this table's indexes, and whether a job's
    /// `--switches` wait holds it here (not in the tables asking whether a
    /// job could ever run).
    pub(crate) topo: Option<(Arc<topo::TopoPass>, bool)>,
}

impl FreeOf for Table<'_> {
    fn free_at(&self, i: usize) -> Option<&Free> {
        self.free.get(i).and_then(Option::as_ref)
    }
    fn name_at(&self, i: usize) -> &str {
        self.names.get(i).copied().unwrap_or("")
    }
    fn feats_at(&self, i: usize) -> &[String] {
        self.feats.get(i).copied().unwrap_or(&[])
    }
    fn topo(&self) -> Option<(&topo::TopoPass, bool)> {
        self.topo.as_ref().map(|(t, hold)| (t.as_ref(), *hold))
    }
}

impl<'a> Table<'a> {
    /// The nodes as they are (`idle`: as if every one were idle and usable,
    /// the test of whether a job could ever start).
    fn new(nodes: &[&'a Node], idle: bool) -> Self {
        // (every node's kinds, usable or not, so that both tables of a pass
        // number them alike)
        let mut kinds = Kinds::default();
        let mut free = Vec::with_capacity(nodes.len());
        for n in nodes {
            let mut gres: Vec<(u32, u64)> = n.gres.iter().map(|(name, ty, c)| (kinds.id(name, ty), *c)).collect();
            if !idle && !n.is_usable() {
                free.push(None);
                continue;
            }
            if !idle {
                for (name, ty, used) in &n.alloc_gres {
                    take_gres(&mut gres, &kinds.matching(name, ty), *used);
                }
            }
            let (cpus, mem) = if idle {
                (n.cpus, n.real_memory)
            } else {
                (n.cpus.saturating_sub(n.alloc_cpus), n.real_memory.saturating_sub(n.alloc_mem))
            };
            free.push(Some(Free::plain(cpus, mem, gres, idle || n.alloc_cpus == 0, n.weight)));
        }
        let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        let index = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let feats = nodes.iter().map(|n| n.features.as_slice()).collect();
        Table { names, free, index, kinds, feats, topo: None }
    }

    /// The usable nodes as if idle, the others not usable: whether a job
    /// could run on what is up now.
    fn avail_idle(nodes: &[&'a Node]) -> Self {
        let mut t = Table::new(nodes, true);
        for (i, n) in nodes.iter().enumerate() {
            if !n.is_usable() {
                t.free[i] = None;
            }
        }
        t
    }

    /// The known ones of `names`, by index, in node-table order.
    pub(crate) fn indexes<S: AsRef<str>>(&self, names: &[S]) -> Vec<usize> {
        let mut v: Vec<usize> = names.iter().filter_map(|n| self.index.get(n.as_ref()).copied()).collect();
        if !v.windows(2).all(|w| w[0] < w[1]) {
            v.sort_unstable();
            v.dedup();
        }
        v
    }

    /// Give what `allocs` hold back to each node's free resources.
    pub(crate) fn give(&mut self, allocs: &[NodeAlloc]) {
        self.apply(allocs, false);
    }

    /// Take what `allocs` give each node from its free resources.
    pub(crate) fn take(&mut self, allocs: &[NodeAlloc]) {
        self.apply(allocs, true);
    }

    /// [`Table::take`] for a job whose CPUs may be shared (`shared`).
    pub(crate) fn take_as(&mut self, allocs: &[NodeAlloc], shared: bool) {
        self.apply_as(allocs, true, shared);
    }

    fn apply(&mut self, allocs: &[NodeAlloc], take: bool) {
        self.apply_as(allocs, take, false)
    }

    fn apply_as(&mut self, allocs: &[NodeAlloc], take: bool, shared: bool) {
        for a in allocs {
            let Some(i) = self.index.get(a.node.as_str()).copied() else { continue };
            let kinds: Vec<Vec<u32>> = a.gres.iter().map(|g| self.kinds.matching(&g.name, &g.gtype)).collect();
            if let Some(f) = self.free[i].as_mut() {
                f.use_cpus(a.cpus, shared, take);
                if take {
                    f.mem = f.mem.saturating_sub(a.mem_mb);
                    f.whole = false;
                } else {
                    f.mem = f.mem.saturating_add(a.mem_mb);
                }
                for (g, of) in a.gres.iter().zip(&kinds) {
                    if take {
                        take_gres(&mut f.gres, of, g.count);
                    } else {
                        give_gres(&mut f.gres, of, g.count);
                    }
                }
            }
        }
    }
}

/// A pending job that cannot start now, and where it may go.
struct Preemptor<'a> {
    now: i64,
    job: &'a Job,
    part: &'a Partition,
    shape: &'a Shape,
    candidates: &'a [usize],
    req: Option<&'a HashSet<String>>,
}

/// The running jobs to preempt for `p` (with whether each is requeued), as
/// preempt/partition_prio and cons_tres choose them: jobs of partitions of
/// a lower PriorityTier whose PreemptMode preempts, on the nodes the job
/// would get were they all gone; fewer when some of them may stay. None
/// when jobs already ending (completing, or preempted in this pass) leave
/// it room, or when even all of them would not.
fn preemptees(
    p: &Preemptor,
    mode: PreemptMode,
    jobs: &[&Job],
    parts: &HashMap<&str, &Partition>,
    free: &Table,
    preempted: &HashSet<u32>,
    by_qos: Option<&qos::QosPolicy>,
) -> Vec<(u32, PreemptMode)> {
    let mode_of = |part: &Partition| part.more.preempt_mode.as_deref().and_then(PreemptMode::parse).unwrap_or(mode);
    let tier = p.part.priority_tier;
    // preempt/qos: whom the job's QOS lists, in the mode of their own QOS
    // (else the cluster's), the lowest QOS priority first
    let qos_rank = |j: &Job| by_qos.and_then(|q| q.of_job(j)).map(|q| q.priority).unwrap_or(0);
    let mut room = free.clone();
    // what is on its way back already
    for j in jobs.iter().filter(|j| j.state == JobState::Completing || preempted.contains(&j.job_id)) {
        room.give(&j.allocs);
    }
    let need = Need::new(p.shape, &room.kinds);
    if place(&need, p.candidates, &room, p.req).is_some() {
        return vec![];
    }
    let on: HashSet<&str> = p.candidates.iter().map(|i| free.name_at(*i)).collect();
    let mut cands: Vec<(&Job, PreemptMode)> = jobs
        .iter()
        .filter(|j| j.state == JobState::Running && !preempted.contains(&j.job_id) && j.job_id != p.job.job_id)
        .filter(|j| j.allocs.iter().any(|a| on.contains(a.node.as_str())))
        .filter_map(|j| {
            if let Some(q) = by_qos {
                let m = q.preempt_mode_of(j).and_then(PreemptMode::parse).unwrap_or(mode);
                // (PreemptMode=WITHIN in slurm.conf is not read: a QOS's own;
                // a job within its PreemptExemptTime is not a candidate)
                let ok = q.may_preempt(p.job, j, false) && m != PreemptMode::Off && q.preemptable_at(j) <= p.now;
                return ok.then_some((*j, m));
            }
            let part = parts.get(j.partition.as_str())?;
            let m = mode_of(part);
            (part.priority_tier < tier && m != PreemptMode::Off).then_some((*j, m))
        })
        .collect();
    if cands.is_empty() {
        return vec![];
    }
    // the lowest tier (QOS priority), then the lowest priority, then the
    // youngest first
    cands.sort_by(|a, b| {
        let rank = |j: &Job| match by_qos {
            Some(_) => qos_rank(j),
            None => parts.get(j.partition.as_str()).map(|x| x.priority_tier).unwrap_or(0),
        };
        let (ta, tb) = (rank(a.0), rank(b.0));
        if by_qos.is_some() {
            // preempt/qos (measured on 22.05, crates/spur-sched/tests/qos.md):
            // the lowest QOS priority, then the fewest nodes, then the oldest
            return ta
                .cmp(&tb)
                .then(a.0.num_nodes.cmp(&b.0.num_nodes))
                .then(a.0.start_time.cmp(&b.0.start_time))
                .then(a.0.job_id.cmp(&b.0.job_id));
        }
        ta.cmp(&tb)
            .then(a.0.priority.cmp(&b.0.priority))
            .then(b.0.start_time.cmp(&a.0.start_time))
            .then(b.0.job_id.cmp(&a.0.job_id))
    });
    // (a suspended job keeps its memory: only its CPUs come back)
    let back = |j: &Job, m: PreemptMode| -> Vec<NodeAlloc> {
        if m == PreemptMode::Suspend {
            cpus_only(&j.allocs)
        } else {
            j.allocs.clone()
        }
    };
    let mut all = room.clone();
    for (j, m) in &cands {
        all.give(&back(j, *m));
    }
    let Some(allocs) = place(&need, p.candidates, &all, p.req) else { return vec![] };
    let mut victims: Vec<(&Job, PreemptMode)> = if by_qos.is_some() {
        // preempt/qos: the candidates in their order until the job fits,
        // wherever they run (22.05 took the oldest job, on either node)
        let mut t = room.clone();
        let mut taken = vec![];
        for c in cands {
            t.give(&back(c.0, c.1));
            taken.push(c);
            if place(&need, p.candidates, &t, p.req).is_some() {
                break;
            }
        }
        taken
    } else {
        let chosen: HashSet<&str> = allocs.iter().map(|a| a.node.as_str()).collect();
        cands.into_iter().filter(|(j, _)| j.allocs.iter().any(|a| chosen.contains(a.node.as_str()))).collect()
    };
    // keep whoever need not go: the last in the order first
    let mut i = victims.len();
    while i > 0 {
        i -= 1;
        let mut t = room.clone();
        for (k, (j, m)) in victims.iter().enumerate() {
            if k != i {
                t.give(&back(j, *m));
            }
        }
        if place(&need, p.candidates, &t, p.req).is_some() {
            victims.remove(i);
        }
    }
    victims
        .into_iter()
        .map(|(j, m)| {
            let m = match m {
                PreemptMode::Requeue if !j.desc.requeue.unwrap_or(true) => PreemptMode::Cancel,
                m => m,
            };
            (j.job_id, m)
        })
        .collect()
}

/// Why a job that cannot start now could not, as slurmctld words a
/// missing node (`None`: it waits for resources). Its required nodes
/// (`--nodelist`) not all usable: `ReqNodeNotAvail, UnavailableNodes:` those
/// of them that are not. Else, when it fits nowhere on the usable nodes even
/// were they idle (`fits_avail`) and none of its usable nodes is busy in
/// slurmctld's sense (`busy_at`: one it may not share now; a node merely
/// in use is not): the same with the unusable ones of the nodes it may
/// use (`May be reserved for other job` when there are none).
fn not_avail(
    nodes: &[&Node],
    free: &Table,
    part_candidates: &[usize],
    req: Option<&HashSet<String>>,
    busy_at: &dyn Fn(usize) -> bool,
    fits_avail: impl FnOnce() -> bool,
) -> Option<Reason> {
    let down = |i: &usize| free.free.get(*i).is_some_and(Option::is_none);
    let listed = |names: Vec<&str>| {
        let r = if names.is_empty() {
            "ReqNodeNotAvail, May be reserved for other job".to_string()
        } else {
            let names: Vec<String> = names.into_iter().map(String::from).collect();
            format!("ReqNodeNotAvail, UnavailableNodes:{}", spur_grammar::hostlist::compress(&names))
        };
        Some(Reason::Other(r))
    };
    if let Some(req) = req {
        let mut idx: Vec<usize> = req.iter().filter_map(|n| free.index.get(n.as_str()).copied()).collect();
        idx.sort_unstable();
        if idx.iter().any(down) {
            return listed(idx.iter().filter(|i| down(i)).map(|i| free.name_at(*i)).collect());
        }
    }
    let busy = part_candidates.iter().any(|&i| free.free_at(i).is_some() && nodes.get(i).is_some() && busy_at(i));
    if busy || fits_avail() {
        return None;
    }
    listed(
        part_candidates
            .iter()
            .filter(|i| down(i))
            .filter(|i| req.is_none_or(|r| r.contains(free.name_at(**i))))
            .map(|i| free.name_at(*i))
            .collect(),
    )
}

/// A partition's view of the table under its `MaxCPUsPerNode`: a node's
/// free CPUs are at most what the cap leaves after the CPUs the partition's
/// jobs hold there (slurmctld counts the cap over all of the partition's
/// jobs on the node: measured on 22.05, MaxCPUsPerNode=4 on 8-CPU nodes, a
/// 3-CPU job waits with Resources beside 4 CPUs of the partition's jobs).
struct Capped<'a> {
    cap: u32,
    view: Table<'a>,
    used: Vec<u32>,
}

impl<'a> Capped<'a> {
    fn new(cap: u32, part: &Partition, jobs: &[&Job], free: &Table<'a>) -> Self {
        let mut used = vec![0u32; free.names.len()];
        for j in jobs.iter().filter(|j| j.state.is_active() && j.partition == part.name) {
            for a in &j.allocs {
                if let Some(&i) = free.index.get(a.node.as_str()) {
                    used[i] = used[i].saturating_add(a.cpus);
                }
            }
        }
        let mut view = free.clone();
        for (i, f) in view.free.iter_mut().enumerate() {
            if let Some(f) = f.as_mut() {
                f.cpus = f.cpus.min(cap.saturating_sub(used[i]));
                f.solo = f.solo.min(cap.saturating_sub(used[i]));
            }
        }
        Capped { cap, view, used }
    }

    /// A job started on `allocs` (`ours`: one of the partition's).
    fn took(&mut self, allocs: &[NodeAlloc], ours: bool, free: &Table) {
        for a in allocs {
            let Some(&i) = free.index.get(a.node.as_str()) else { continue };
            if ours {
                self.used[i] = self.used[i].saturating_add(a.cpus);
            }
            self.view.free[i] = free.free[i].clone().map(|mut f| {
                f.cpus = f.cpus.min(self.cap.saturating_sub(self.used[i]));
                f.solo = f.solo.min(self.cap.saturating_sub(self.used[i]));
                f
            });
        }
    }
}

/// What a suspended job gives back: its CPUs (it keeps its memory and GRES).
fn cpus_only(allocs: &[NodeAlloc]) -> Vec<NodeAlloc> {
    allocs.iter().map(|a| NodeAlloc { node: a.node.clone(), cpus: a.cpus, mem_mb: 0, gres: vec![] }).collect()
}

/// Free resources of one node during a pass.
#[derive(Clone, Debug)]
pub(crate) struct Free {
    pub(crate) cpus: u32,
    pub(crate) mem: u64,
    /// (kind in the pass's [`Kinds`], count)
    pub(crate) gres: Vec<(u32, u64)>,
    pub(crate) whole: bool,
    /// Scheduling weight.
    pub(crate) weight: u32,
    /// CPUs not held by jobs that do not share them: what a job that may
    /// share CPUs (partition `OverSubscribe=FORCE` or `YES` with `-s`) can
    /// use, each of them by up to its partition's count of jobs.
    pub(crate) solo: u32,
    /// CPUs held by jobs that share them (summed over those jobs).
    pub(crate) shared: u32,
}

impl Free {
    /// A node with `cpus` free and nothing shared.
    pub(crate) fn plain(cpus: u32, mem: u64, gres: Vec<(u32, u64)>, whole: bool, weight: u32) -> Free {
        Free { cpus, mem, gres, whole, weight, solo: cpus, shared: 0 }
    }

    /// `cpus` again from `solo` and `shared`: sharing jobs take idle CPUs
    /// first (their first row), so a job that does not share finds what
    /// they leave.
    pub(crate) fn settle(&mut self) {
        self.cpus = self.solo.saturating_sub(self.shared);
    }

    /// The CPUs a job sharing each CPU with up to `share - 1` others can
    /// use (`share` 1: what a job that does not share can).
    pub(crate) fn cpus_for(&self, share: u32) -> u32 {
        if share <= 1 {
            self.cpus
        } else {
            self.solo.min(self.solo.saturating_mul(share).saturating_sub(self.shared))
        }
    }

    /// Take (or give back) a job's CPUs: shared or not.
    pub(crate) fn use_cpus(&mut self, cpus: u32, shared: bool, take: bool) {
        match (shared, take) {
            (true, true) => self.shared = self.shared.saturating_add(cpus),
            (true, false) => self.shared = self.shared.saturating_sub(cpus),
            (false, true) => self.solo = self.solo.saturating_sub(cpus),
            (false, false) => self.solo = self.solo.saturating_add(cpus),
        }
        self.settle();
    }
}

/// A job's shape with its GRES request in the pass's kinds.
pub(crate) struct Need<'s> {
    pub(crate) shape: &'s Shape,
    /// per requested GRES: the kinds that serve it, and how many per node
    pub(crate) gres: Vec<(Vec<u32>, u64)>,
}

impl<'s> Need<'s> {
    pub(crate) fn new(shape: &'s Shape, kinds: &Kinds) -> Self {
        let gres = shape.gres_per_node.iter().map(|(n, t, c)| (kinds.matching(n, t), *c)).collect();
        Need { shape, gres }
    }

    /// Whether node `f` has the GRES this job needs per node.
    fn gres_fit(&self, f: &Free) -> bool {
        self.gres
            .iter()
            .all(|(of, cnt)| *cnt == 0 || f.gres.iter().filter(|g| of.contains(&g.0)).map(|g| g.1).sum::<u64>() >= *cnt)
    }
}

/// What one job (or array task) needs.
#[derive(Clone, Debug)]
pub struct Shape {
    pub min_nodes: u32,
    pub nodes_fixed: bool,
    pub tasks: u32,
    pub cpus_per_task: u32,
    pub mem_per_node: u64,
    pub mem_per_cpu: u64,
    pub gres_per_node: Vec<(String, Option<String>, u64)>,
    pub exclusive: bool,
    /// `-N min-max`: the most nodes the job may get (None: no limit).
    pub max_nodes: Option<u32>,
    /// `--overcommit`: `tasks` is then one per node (sbatch's `min_cpus` of
    /// the node count), not the job's task count, which its CPUs need not hold.
    pub overcommit: bool,
    /// `--constraint` (None: none, or one that does not read: the
    /// controller refused those).
    pub constraint: Option<Constraint>,
    /// `--contiguous`: one run of consecutive nodes.
    pub contiguous: bool,
    /// `--spread-job`: as many nodes as it has tasks (at most its maximum).
    pub spread: bool,
    /// `--switches` was asked (with `TopologyParam=TopoOptional`, only
    /// these jobs are placed by the tree).
    pub asks_switches: bool,
    /// The most leaf switches while the job still waits for them (set by
    /// the pass from the job's `--switches=N@WAIT`; None: no limit now).
    pub switches: Option<u32>,
    /// How many jobs may share each of its CPUs (its partition's
    /// `OverSubscribe=FORCE:N`, or `YES:N` with `-s`; 1: none).
    pub share: u32,
}

/// A job's `--constraint`, read as leniently as either release reads it
/// (the controller refused what its release does not accept).
pub(crate) fn constraint_of(job: &Job) -> Option<Constraint> {
    let c = job.desc.constraint.as_deref().filter(|c| !c.is_empty())?;
    spur_grammar::feature::parse(c, false).ok().filter(|c| !c.is_empty())
}

pub fn shape_of(job: &Job) -> Shape {
    let d = &job.desc;
    let cpt = d.cpus_per_task.unwrap_or(1).max(1);
    let overcommit = d.overcommit();
    // with --overcommit Slurm allocates one task's CPUs per node, whatever
    // the task count (`sbatch -O -n10 -N1` on 8-CPU nodes: NumCPUs=1)
    let tasks = if overcommit { job.num_nodes.max(1) } else { job.num_tasks.max(1) };
    Shape {
        min_nodes: job.num_nodes.max(1),
        nodes_fixed: d.min_nodes.is_some(),
        tasks,
        cpus_per_task: cpt,
        mem_per_node: d.mem_per_node.unwrap_or(0),
        mem_per_cpu: if d.mem_per_node.is_some() { 0 } else { job.mem_per_cpu },
        // (the request was checked when the job was submitted)
        gres_per_node: d
            .gres
            .as_deref()
            .and_then(|g| spur_grammar::gres::parse_request(g, None).ok())
            .map(|r| r.items.into_iter().map(|g| (g.name, g.type_, g.count)).collect())
            .unwrap_or_default(),
        exclusive: d.exclusive,
        // (a count that only --nodelist gave, with no maximum, leaves the
        // maximum open, as Slurm's sbatch leaves it: `-n12 -w cn03` runs on
        // cn[03-04])
        max_nodes: if d.min_nodes.is_some() && !(d.max_nodes.is_none() && nodelist_count(d)) {
            Some(d.max_nodes.unwrap_or(job.num_nodes.max(1)).max(job.num_nodes.max(1)))
        } else {
            None
        },
        overcommit,
        constraint: constraint_of(job),
        contiguous: d.contiguous(),
        spread: d.accepted.as_ref().is_some_and(|a| a.spread_job),
        asks_switches: topo::SchedTopology::asks_switches(job),
        switches: None,
        share: 1,
    }
}

/// Whether a batch job's node count is the count of its `--nodelist`
/// (sbatch sets it so when `-N` is not given, and gives a maximum with
/// `-N`; Slurm leaves the maximum open then). srun and salloc give no
/// maximum for `-N n`: theirs stay exact.
pub fn nodelist_count(d: &spur_core::model::JobDesc) -> bool {
    if d.script.is_empty() {
        return false;
    }
    let Some(list) = d.req_nodes.as_deref().filter(|l| !l.is_empty()) else { return false };
    let n = spur_grammar::hostlist::count(list).unwrap_or(0);
    d.min_nodes.is_some_and(|m| u64::from(m) == n)
}

/// How many jobs may share each CPU `job` gets in `part`, and whether it
/// gets whole nodes (slurmctld's `_resolve_shared_status` with cons_tres:
/// `EXCLUSIVE` gives whole nodes, `FORCE:N` (N > 1) shares every job,
/// `YES:N` the jobs that asked with `-s`; `--exclusive` never shares).
pub fn share_of(job: &Job, part: &Partition) -> (u32, bool) {
    let spur_core::model::PartShare { count: n, force, exclusive: whole } =
        spur_core::model::PartShare::parse(&part.oversubscribe);
    if whole {
        return (1, true);
    }
    if job.desc.exclusive {
        return (1, false);
    }
    if force || job.desc.oversubscribe() == "YES" {
        (n, false)
    } else {
        (1, false)
    }
}

/// The dependency a job was accepted with (the controller checked it against
/// its MaxArraySize; read again with the largest bound it is the same).
fn dependency_of(dep: &str) -> Option<Dependency> {
    spur_grammar::dependency::parse(dep, spur_grammar::array::MAX_MAX_ARRAY_SIZE, true).ok().flatten()
}

fn dependency_state<'a>(dep: &Dependency, job: &dyn Fn(u32) -> Option<&'a Job>) -> Result<bool, ()> {
    // Ok(true) = satisfied, Ok(false) = wait, Err = can never be satisfied.
    let any = dep.any;
    let mut all_ok = true;
    let mut any_ok = false;
    for item in &dep.items {
        if item.kind == DepKind::Singleton {
            // handled by the caller
            continue;
        }
        let st = job(item.job_id).map(|j| j.state);
        let ok = match (item.kind, st) {
            (_, None) => Ok(true),
            (DepKind::After, Some(s)) => Ok(s != JobState::Pending),
            (DepKind::AfterAny, Some(s)) => Ok(s.is_finished()),
            (DepKind::AfterOk, Some(s)) if s.is_finished() => {
                if s == JobState::Completed {
                    Ok(true)
                } else {
                    Err(())
                }
            }
            (DepKind::AfterNotOk, Some(s)) if s.is_finished() => {
                if s != JobState::Completed {
                    Ok(true)
                } else {
                    Err(())
                }
            }
            (DepKind::AfterCorr, Some(s)) => Ok(s.is_finished()),
            (_, Some(_)) => Ok(false),
        };
        match ok {
            Ok(true) => any_ok = true,
            Ok(false) => all_ok = false,
            Err(()) => {
                if !any {
                    return Err(());
                }
                all_ok = false
            }
        }
    }
    Ok(if any { any_ok || all_ok } else { all_ok })
}

/// Whether a job whose dependency fails is cancelled rather than left
/// pending: `--kill-on-invalid-dep=yes`.
fn kills_on_invalid_dep(job: &Job) -> bool {
    job.desc.kill_on_invalid_dep() == Some(true)
}

/// One scheduling pass.
pub fn schedule(now: i64, jobs: &[&Job], nodes: &[&Node], parts: &[&Partition]) -> Vec<Decision> {
    schedule_depth(now, jobs, nodes, parts, usize::MAX).0
}

/// Slurm's `default_queue_depth`: how many placement attempts one pass makes
/// before it stops; the controller runs another pass at once when a pass was
/// cut short. It bounds the time a pass holds the controller's state.
pub const DEFAULT_QUEUE_DEPTH: usize = 100;

/// One scheduling pass that stops after `depth` placement attempts; the flag
/// says whether it stopped early (more jobs might start in another pass).
pub fn schedule_depth(
    now: i64,
    jobs: &[&Job],
    nodes: &[&Node],
    parts: &[&Partition],
    depth: usize,
) -> (Vec<Decision>, bool) {
    schedule_resv(now, jobs, nodes, parts, &[], depth)
}

/// `schedule_depth` with reservations: the nodes of a reservation active at
/// `now` go only to jobs that asked for it (`--reservation`), and such jobs
/// get only its nodes.
pub fn schedule_resv(
    now: i64,
    jobs: &[&Job],
    nodes: &[&Node],
    parts: &[&Partition],
    resvs: &[&Reservation],
    depth: usize,
) -> (Vec<Decision>, bool) {
    let by_id: HashMap<u32, &Job> = jobs.iter().map(|j| (j.job_id, *j)).collect();
    schedule_with(now, jobs, &|id| by_id.get(&id).copied(), nodes, parts, resvs, depth)
}

/// `schedule_resv` for a controller: `jobs` need hold only the jobs not yet
/// finished (a finished job is never placed and counts for no throttle), and
/// `lookup` finds any job a dependency names, finished ones included. The
/// cost of a pass then follows the queue, not every job still remembered.
pub fn schedule_with<'a>(
    now: i64,
    jobs: &[&'a Job],
    lookup: &dyn Fn(u32) -> Option<&'a Job>,
    nodes: &[&Node],
    parts: &[&Partition],
    resvs: &[&Reservation],
    depth: usize,
) -> (Vec<Decision>, bool) {
    schedule_pass(
        now,
        jobs,
        lookup,
        nodes,
        parts,
        resvs,
        &Params { depth, backfill: None, preempt: None, ending: vec![], topology: None, qos: None },
    )
}

/// How a pass schedules: `depth` as [`schedule_depth`]'s, and, for
/// `SchedulerType=sched/backfill`, the backfill phase's parameters (`None`:
/// `sched/builtin`, strict priority order).
#[derive(Clone, Debug)]
pub struct Params {
    pub depth: usize,
    pub backfill: Option<backfill::BackfillParams>,
    /// `PreemptType=preempt/partition_prio`, with slurm.conf's
    /// `PreemptMode` (a partition's own `PreemptMode=` comes first).
    pub preempt: Option<PreemptMode>,
    /// Running jobs already preempted and ending at the end of their
    /// partition's `GraceTime`: counted as on their way out, never chosen
    /// again.
    pub ending: Vec<u32>,
    /// `TopologyPlugin=topology/tree`.
    pub topology: Option<Arc<SchedTopology>>,
    /// The QOS records, with `PreemptType=preempt/qos` and
    /// `AccountingStorageEnforce=limits` (`None`: no accounting).
    pub qos: Option<Arc<qos::QosPolicy>>,
}

/// What preempting a job does (slurm.conf's or a partition's `PreemptMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreemptMode {
    Off,
    Cancel,
    Requeue,
    /// `SUSPEND` (with `GANG`): the job is suspended, its CPUs (not its
    /// memory) go to the preemptor, and it is resumed once they are free.
    Suspend,
}

impl PreemptMode {
    /// Whether a `PreemptMode=` value holds `GANG` (time slicing).
    pub fn has_gang(v: &str) -> bool {
        v.split(',').any(|w| w.trim().eq_ignore_ascii_case("GANG"))
    }

    /// The first word of a `PreemptMode=` value (`REQUEUE,GANG` is REQUEUE).
    pub fn parse(v: &str) -> Option<PreemptMode> {
        let first = v.split(',').map(str::trim).find(|w| !w.eq_ignore_ascii_case("GANG") && !w.is_empty());
        match first.map(str::to_ascii_uppercase).as_deref() {
            None | Some("OFF") => Some(PreemptMode::Off),
            Some("CANCEL") => Some(PreemptMode::Cancel),
            Some("REQUEUE") => Some(PreemptMode::Requeue),
            Some("SUSPEND") => Some(PreemptMode::Suspend),
            _ => None,
        }
    }
}

/// One scheduling pass: the main phase (priority order; the first job of a
/// partition that cannot start blocks the rest of it), then, with
/// `params.backfill`, the backfill phase over the jobs left waiting
/// ([`backfill`]).
pub fn schedule_pass<'a>(
    now: i64,
    jobs: &[&'a Job],
    lookup: &dyn Fn(u32) -> Option<&'a Job>,
    nodes: &[&Node],
    parts: &[&Partition],
    resvs: &[&Reservation],
    params: &Params,
) -> (Vec<Decision>, bool) {
    let depth = params.depth;
    // jobs that could start but for resources or priority, in priority
    // order, with the array tasks the main phase started
    let mut waiting: Vec<&Job> = Vec::new();
    let mut started: Vec<backfill::Started> = Vec::new();
    let mut attempts = 0usize;
    let mut truncated = false;
    let mut out = Vec::new();
    let mut free = Table::new(nodes, false);
    let topo_pass = params.topology.as_ref().map(|t| Arc::new(topo::TopoPass::new(t, &free.index)));
    free.topo = topo_pass.clone().map(|t| (t, true));
    // every node as if idle: a job that does not fit its partition even
    // then can never start (made when first needed)
    let mut whole_cluster: Option<Table> = None;
    // the usable nodes as if idle (made when first needed)
    let mut avail_idle: Option<Table> = None;
    // nodes a job waiting on them (`--nodelist`) keeps later jobs of the
    // pass off
    let mut withheld: HashSet<usize> = HashSet::new();
    // jobs this pass preempts (and those preempted before, in their grace time)
    let mut preempted: HashSet<u32> = params.ending.iter().copied().collect();
    // nodes held by exclusive jobs (made when first needed)
    let mut exclusive_nodes: Option<HashSet<usize>> = None;
    // CPUs held by jobs that share them (partitions with OverSubscribe)
    if parts.iter().any(|p| spur_core::model::PartShare::parse(&p.oversubscribe).count > 1) {
        let part_of: HashMap<&str, &Partition> = parts.iter().map(|p| (p.name.as_str(), *p)).collect();
        // (a job suspended by the gang scheduler keeps its place: its CPUs
        // count as shared, though the node's total no longer holds them)
        let gang_held = |j: &Job| j.state == JobState::Suspended && j.preempt_suspended;
        for j in jobs.iter().filter(|j| matches!(j.state, JobState::Running | JobState::Completing) || gang_held(j)) {
            let Some(p) = part_of.get(j.partition.as_str()) else { continue };
            if share_of(j, p).0 <= 1 {
                continue;
            }
            let held_alone = !gang_held(j);
            for a in &j.allocs {
                let Some(&i) = free.index.get(a.node.as_str()) else { continue };
                if let Some(f) = free.free[i].as_mut() {
                    if held_alone {
                        // (counted as held alone by the node's total)
                        f.solo = f.solo.saturating_add(a.cpus).min(nodes[i].cpus);
                    }
                    f.shared = f.shared.saturating_add(a.cpus);
                    f.settle();
                }
            }
        }
    }
    // partitions with MaxCPUsPerNode: their own view of the table (before
    // any start of the pass: the jobs' record of who holds what is the
    // snapshot's)
    let mut capped: HashMap<&str, Capped> = parts
        .iter()
        .filter_map(|p| Some((p.name.as_str(), Capped::new(p.more.max_cpus_per_node?, p, jobs, &free))))
        .collect();
    // each partition's nodes by index, once per pass
    let mut part_nodes: HashMap<&str, Vec<usize>> = HashMap::new();
    let part_by_name: HashMap<&str, &Partition> = parts.iter().map(|p| (p.name.as_str(), *p)).collect();
    let cpus_of: HashMap<&str, u32> = nodes.iter().map(|n| (n.name.as_str(), n.cpus)).collect();
    let mut part_cpus_of: HashMap<&str, u64> = HashMap::new();
    // running array tasks per array, for the % throttle
    let mut running_tasks: HashMap<u32, u32> = HashMap::new();
    let mut singleton_busy: HashSet<(u32, String)> = HashSet::new();
    for j in jobs {
        if let Some(a) = &j.array {
            if a.task_id.is_some() && j.state.is_active() {
                *running_tasks.entry(a.array_job_id).or_default() += 1;
            }
        }
        if j.state.is_active() {
            singleton_busy.insert((j.user_id, j.desc.name.clone()));
        }
    }
    // jobs suspended by preemption whose CPUs are free again resume first,
    // the highest tier and priority first (their memory is still theirs)
    let mut waking: Vec<&Job> =
        jobs.iter().copied().filter(|j| j.state == JobState::Suspended && j.preempt_suspended).collect();
    waking.sort_by(|a, b| {
        let ta = part_by_name.get(a.partition.as_str()).map(|p| p.priority_tier).unwrap_or(0);
        let tb = part_by_name.get(b.partition.as_str()).map(|p| p.priority_tier).unwrap_or(0);
        tb.cmp(&ta).then(b.priority.cmp(&a.priority)).then(a.job_id.cmp(&b.job_id))
    });
    // CPUs of the running jobs on each node (a suspended job that shares
    // CPUs resumes when they leave it room; it is already counted as shared)
    let mut active: Vec<u32> = nodes.iter().map(|n| n.alloc_cpus).collect();
    for j in waking {
        let cpus = cpus_only(&j.allocs);
        if part_by_name.get(j.partition.as_str()).is_some_and(|p| share_of(j, p).0 > 1) {
            let idx: Vec<Option<usize>> = cpus.iter().map(|a| free.index.get(a.node.as_str()).copied()).collect();
            let fits = cpus.iter().zip(&idx).all(|(a, i)| {
                i.is_some_and(|i| active[i].saturating_add(a.cpus) <= nodes[i].cpus && free.free_at(i).is_some())
            });
            if fits {
                for (a, i) in cpus.iter().zip(idx) {
                    if let Some(i) = i {
                        active[i] = active[i].saturating_add(a.cpus);
                    }
                }
                out.push(Decision::Resume { job_id: j.job_id });
            }
            continue;
        }
        let fits = cpus
            .iter()
            .all(|a| free.index.get(a.node.as_str()).and_then(|&i| free.free_at(i)).is_some_and(|f| f.cpus >= a.cpus));
        if fits {
            free.take(&cpus);
            for a in &cpus {
                if let Some(&i) = free.index.get(a.node.as_str()) {
                    active[i] = active[i].saturating_add(a.cpus);
                }
            }
            // (a partition's cap already counts its suspended jobs)
            for c in capped.values_mut() {
                c.took(&cpus, false, &free);
            }
            out.push(Decision::Resume { job_id: j.job_id });
        }
    }
    let mut pending: Vec<&Job> = jobs.iter().copied().filter(|j| j.state == JobState::Pending).collect();
    pending.sort_by(|a, b| {
        let ta = part_by_name.get(a.partition.as_str()).map(|p| p.priority_tier).unwrap_or(0);
        let tb = part_by_name.get(b.partition.as_str()).map(|p| p.priority_tier).unwrap_or(0);
        tb.cmp(&ta)
            .then(b.priority.cmp(&a.priority))
            .then(a.submit_time.cmp(&b.submit_time))
            .then(a.job_id.cmp(&b.job_id))
    });
    let mut blocked_parts: HashSet<&str> = HashSet::new();
    // the running jobs the QOS limits count
    let mut qos_use = params.qos.as_deref().map(|q| (q, qos::QosUsage::new(q, jobs)));
    'jobs: for job in pending {
        let set_reason = |out: &mut Vec<Decision>, r: Reason| {
            if job.reason != r {
                out.push(Decision::Reason { job_id: job.job_id, reason: r });
            }
        };
        // its QOS deleted: it waits with InvalidQOS, held or not (22.05
        // sets it on every pending job of the QOS at once)
        if params.qos.is_some() && job.desc.qos.as_deref() == Some(spur_core::qos::DELETED) {
            set_reason(&mut out, Reason::Other("InvalidQOS".into()));
            continue;
        }
        if let Some(h) = &job.held {
            set_reason(&mut out, h.clone());
            continue;
        }
        // a dependency first, then the begin time (job_independent's order:
        // a job waiting on both shows Dependency)
        if let Some(dep) = job.desc.dependency.as_deref().filter(|d| !d.is_empty()).map(dependency_of) {
            // (a dependency that does not read, never accepted, never clears)
            let state = match &dep {
                Some(d) => dependency_state(d, lookup),
                None => Err(()),
            };
            match state {
                Ok(true) => {}
                Ok(false) => {
                    set_reason(&mut out, Reason::Dependency);
                    continue;
                }
                Err(()) => {
                    set_reason(&mut out, Reason::DependencyNeverSatisfied);
                    if kills_on_invalid_dep(job) {
                        out.push(Decision::CancelNeverSatisfied { job_id: job.job_id });
                    }
                    continue;
                }
            }
            if dep.as_ref().is_some_and(|d| d.items.iter().any(|i| i.kind == DepKind::Singleton))
                && singleton_busy.contains(&(job.user_id, job.desc.name.clone()))
            {
                set_reason(&mut out, Reason::Dependency);
                continue;
            }
        }
        if job.desc.begin_time > now {
            set_reason(&mut out, Reason::BeginTime);
            continue;
        }
        if job.eligible_time == 0 {
            out.push(Decision::Eligible { job_id: job.job_id });
        }
        let part = match part_by_name.get(job.partition.as_str()) {
            Some(p) => *p,
            None => {
                set_reason(&mut out, Reason::Other("PartitionConfig".into()));
                continue;
            }
        };
        match part.state {
            PartState::Up => {}
            PartState::Down => {
                set_reason(&mut out, Reason::PartitionDown);
                continue;
            }
            PartState::Inactive => {
                set_reason(&mut out, Reason::PartitionInactive);
                continue;
            }
            PartState::Drain => {
                set_reason(&mut out, Reason::PartitionDown);
                continue;
            }
        }
        let mut shape = shape_of(job);
        shape.switches = params.topology.as_ref().and_then(|t| t.switch_limit(job, now));
        (shape.share, shape.exclusive) = {
            let (share, whole) = share_of(job, part);
            (share, shape.exclusive || whole)
        };
        // more CPUs than the partition has at all (slurmctld's partition
        // access check; only a job accepted despite it, as 22.05 does, gets here)
        // (counted once per partition and pass: a queue of 100,000 jobs on
        // 10,000 nodes spent most of its pass summing it again for each job)
        let part_cpus: u64 = *part_cpus_of
            .entry(part.name.as_str())
            .or_insert_with(|| part.nodes.iter().filter_map(|n| cpus_of.get(n.as_str())).map(|c| *c as u64).sum());
        if (job.num_cpus.max(job.num_nodes) as u64) > part_cpus && !part.nodes.is_empty() {
            set_reason(&mut out, Reason::Other("PartitionConfig".into()));
            continue;
        }
        if shape.min_nodes as usize > part.nodes.len() || part.max_nodes.map(|m| shape.min_nodes > m).unwrap_or(false) {
            set_reason(&mut out, Reason::PartitionNodeLimit);
            continue;
        }
        if let (Some(lim), Some(max)) = (job.time_limit, part.max_time) {
            if lim > max {
                set_reason(&mut out, Reason::PartitionTimeLimit);
                continue;
            }
        }
        if let Some(r) = qos_use.as_ref().and_then(|(q, u)| u.blocks(q, job)) {
            set_reason(&mut out, r);
            continue;
        }
        if blocked_parts.contains(part.name.as_str()) {
            set_reason(&mut out, Reason::Priority);
            waiting.push(job);
            continue;
        }
        let tasks: Vec<Option<u32>> = match &job.array {
            Some(a) if a.task_id.is_none() => a.pending_tasks.iter().map(|t| Some(*t)).collect(),
            _ => vec![None],
        };
        let pn: &[usize] = part_nodes.entry(part.name.as_str()).or_insert_with(|| free.indexes(&part.nodes));
        let Cands { mut candidates, part_candidates, req } = match job_candidates(job, pn, &free, resvs, now) {
            Ok(c) => c,
            Err(r) => {
                set_reason(&mut out, r);
                continue;
            }
        };
        if !withheld.is_empty() {
            candidates = Cow::Owned(candidates.iter().copied().filter(|i| !withheld.contains(i)).collect());
        }
        let mut started_any = false;
        'tasks: for task in tasks {
            if let (Some(a), Some(_)) = (&job.array, task) {
                let running = running_tasks.get(&a.array_job_id).copied().unwrap_or(0);
                if a.max_running > 0 && running >= a.max_running {
                    if !started_any {
                        set_reason(&mut out, Reason::JobArrayTaskLimit);
                    }
                    break;
                }
            }
            if started_any {
                if let Some(r) = qos_use.as_ref().and_then(|(q, u)| u.blocks(q, job)) {
                    set_reason(&mut out, r);
                    break;
                }
            }
            if attempts >= depth {
                truncated = true;
                break 'jobs;
            }
            attempts += 1;
            // A fault in placing one job (a panic) must not end the pass, nor
            // every later one: the job is set aside with Slurm's reason for a
            // job that cannot run, and the others are scheduled.
            let placed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let view = capped.get(part.name.as_str()).map(|c| &c.view).unwrap_or(&free);
                let p = place(&Need::new(&shape, &free.kinds), &candidates, view, req.as_ref());
                if p.is_some() {
                    return (p, true);
                }
                let all = whole_cluster.get_or_insert_with(|| {
                    let mut t = Table::new(nodes, true);
                    t.topo = topo_pass.clone().map(|t| (t, false));
                    t
                });
                let ever = place(&Need::new(&shape, &all.kinds), &part_candidates, all, req.as_ref()).is_some();
                (None, ever)
            }));
            let mut placed = match placed {
                Ok(p) => p,
                Err(e) => {
                    if job.reason != Reason::BadConstraints {
                        out.push(Decision::SetAside { job_id: job.job_id, error: panic_text(e.as_ref()) });
                    }
                    set_reason(&mut out, Reason::BadConstraints);
                    continue 'jobs;
                }
            };
            // (a pass that suspends jobs for this one places it again at once)
            loop {
                match placed {
                    (Some(allocs), _) => {
                        free.take_as(&allocs, shape.share > 1);
                        for (name, c) in capped.iter_mut() {
                            c.took(&allocs, *name == part.name.as_str(), &free);
                        }
                        if let Some(a) = &job.array {
                            *running_tasks.entry(a.array_job_id).or_default() += 1;
                        }
                        singleton_busy.insert((job.user_id, job.desc.name.clone()));
                        if let Some((q, u)) = qos_use.as_mut() {
                            u.started(q, job, &allocs);
                        }
                        if params.backfill.is_some() {
                            started.push(backfill::Started {
                                job_id: job.job_id,
                                task,
                                limit: job.time_limit,
                                allocs: allocs.clone(),
                                shared: shape.share > 1,
                            });
                        }
                        out.push(Decision::Start { job_id: job.job_id, task, allocs, backfill: false });
                        started_any = true;
                        break;
                    }
                    (None, false) => {
                        // not even on idle nodes (accepted before a check that
                        // now refuses it, or the nodes changed since): it blocks
                        // no one (slurmctld's FAIL_BAD_CONSTRAINTS)
                        if !started_any {
                            set_reason(&mut out, Reason::BadConstraints);
                        }
                        break 'tasks;
                    }
                    (None, true) => {
                        // slurmctld's select_nodes: required nodes down or
                        // drained, or no room on the available nodes even
                        // were they idle while none is busy, is
                        // ESLURM_NODE_NOT_AVAIL (ReqNodeNotAvail, which holds
                        // back no one); a job on required nodes that are busy
                        // keeps later jobs off them only; else the partition
                        // waits behind it (Resources, Priority)
                        // a node counts as busy for slurmctld's test when it
                        // cannot be shared: completing, or held by an exclusive
                        // job, or (for an exclusive job) in use at all (22.05:
                        // `-C amd -N2` with cn03 drained and cn04 full of an
                        // 8-CPU job waits with ReqNodeNotAvail)
                        let held = exclusive_nodes.get_or_insert_with(|| {
                            let mut s = HashSet::new();
                            for j in jobs.iter().filter(|j| j.state.is_active() && j.desc.exclusive) {
                                s.extend(free.indexes(&j.allocs.iter().map(|a| a.node.as_str()).collect::<Vec<_>>()));
                            }
                            s
                        });
                        let busy_at = |i: usize| {
                            let n = nodes[i];
                            n.flags.completing
                                || held.contains(&i)
                                || (shape.exclusive && (n.alloc_cpus > 0 || n.alloc_mem > 0))
                        };
                        let why = not_avail(nodes, &free, &part_candidates, req.as_ref(), &busy_at, || {
                            let avail = avail_idle.get_or_insert_with(|| {
                                let mut t = Table::avail_idle(nodes);
                                t.topo = topo_pass.clone().map(|t| (t, false));
                                t
                            });
                            place(&Need::new(&shape, &avail.kinds), &part_candidates, avail, req.as_ref()).is_some()
                        });
                        match why {
                            Some(r) => {
                                if !started_any {
                                    set_reason(&mut out, r);
                                }
                            }
                            None => {
                                if let Some(mode) = params.preempt {
                                    let victims = preemptees(
                                        &Preemptor {
                                            now,
                                            job,
                                            part,
                                            shape: &shape,
                                            candidates: &part_candidates,
                                            req: req.as_ref(),
                                        },
                                        mode,
                                        jobs,
                                        &part_by_name,
                                        &free,
                                        &preempted,
                                        params.qos.as_deref().filter(|q| q.preempt),
                                    );
                                    let suspend_only =
                                        !victims.is_empty() && victims.iter().all(|(_, m)| *m == PreemptMode::Suspend);
                                    for (id, m) in &victims {
                                        preempted.insert(*id);
                                        out.push(Decision::Preempt {
                                            job_id: *id,
                                            requeue: *m == PreemptMode::Requeue,
                                            suspend: *m == PreemptMode::Suspend,
                                        });
                                    }
                                    // SUSPEND frees the CPUs at once: the job starts
                                    // in this pass (22.05: in the same second)
                                    if suspend_only {
                                        for (id, _) in &victims {
                                            if let Some(v) = jobs.iter().find(|j| j.job_id == *id) {
                                                free.give(&cpus_only(&v.allocs));
                                            }
                                        }
                                        let view = capped.get(part.name.as_str()).map(|c| &c.view).unwrap_or(&free);
                                        let again =
                                            place(&Need::new(&shape, &free.kinds), &candidates, view, req.as_ref());
                                        if again.is_some() {
                                            placed = (again, true);
                                            continue;
                                        }
                                    }
                                }
                                if req.as_ref().is_some_and(|r| r.len() as u32 >= shape.min_nodes.max(1)) {
                                    withheld.extend(free.indexes(&req.iter().flatten().collect::<Vec<_>>()));
                                } else {
                                    blocked_parts.insert(part.name.as_str());
                                }
                                if !started_any {
                                    set_reason(&mut out, Reason::Resources);
                                }
                            }
                        }
                        waiting.push(job);
                        break 'tasks;
                    }
                }
            }
        }
    }
    if let (Some(bf), false) = (&params.backfill, truncated) {
        let mut main = backfill::MainPhase {
            now,
            jobs,
            nodes,
            parts: &part_by_name,
            part_nodes: &mut part_nodes,
            resvs,
            free: &free,
            started: &started,
            qos: qos_use.as_mut().map(|(q, u)| (*q, u)),
        };
        backfill::run(&mut main, bf, &waiting, &running_tasks, &mut out);
    }
    (out, truncated)
}

/// The nodes a job may get, by index in node-table order: `candidates` now
/// (its partition's, less `--exclude`, only `--nodelist`'s, inside or
/// outside reservations), and `part_candidates` (the same before
/// reservations: whether it could ever start). `Err`: why it cannot be
/// placed at all now. Most jobs may use their whole partition: its list is
/// then borrowed, not copied.
pub(crate) struct Cands<'p> {
    pub(crate) candidates: Cow<'p, [usize]>,
    pub(crate) part_candidates: Cow<'p, [usize]>,
    pub(crate) req: Option<HashSet<String>>,
}

pub(crate) fn job_candidates<'p>(
    job: &Job,
    part_nodes: &'p [usize],
    table: &Table,
    resvs: &[&Reservation],
    now: i64,
) -> Result<Cands<'p>, Reason> {
    // The controller keeps these lists as it accepted them: every name a
    // node, without duplicates, so a list holds at most the cluster's
    // nodes. A list it would refuse (taken before it checked them, and
    // still in the log) is read no further than that bound either: the
    // job cannot be placed.
    let bounded = |r: &str| spur_grammar::hostlist::expand_bounded(r, MAX_JOB_HOSTS);
    let (req, exc) = match (job.desc.req_nodes.as_deref().map(bounded), job.desc.exc_nodes.as_deref().map(bounded)) {
        (Some(Err(_)), _) | (_, Some(Err(_))) => return Err(Reason::BadConstraints),
        (req, exc) => (
            req.and_then(Result::ok).map(|v| v.into_iter().collect::<HashSet<String>>()),
            exc.and_then(Result::ok).unwrap_or_default(),
        ),
    };
    let constraint = constraint_of(job).map(|c| {
        let choice = c.choice();
        (c, choice)
    });
    let serves = |i: &usize| {
        constraint.as_ref().is_none_or(|(c, choice)| {
            let f = table.feats_at(*i);
            c.node_may_serve(choice, &|x: &str| f.iter().any(|y| y == x))
        })
    };
    let candidates: Cow<[usize]> = if req.is_none() && exc.is_empty() && constraint.is_none() {
        Cow::Borrowed(part_nodes)
    } else {
        let exc: HashSet<usize> = exc.iter().filter_map(|n| table.index.get(n.as_str()).copied()).collect();
        Cow::Owned(
            part_nodes
                .iter()
                .copied()
                .filter(|i| !exc.contains(i))
                // (with --nodelist too: the other nodes may complete the
                // job, as slurmctld adds nodes to the required ones)
                .filter(serves)
                .collect(),
        )
    };
    let want_resv = job.desc.reservation_name();
    let part_candidates = candidates.clone();
    let in_resv = |r: &Reservation| -> HashSet<usize> {
        r.nodes.iter().filter_map(|n| table.index.get(n.as_str()).copied()).collect()
    };
    let candidates: Cow<[usize]> = if let Some(name) = want_resv {
        match resvs.iter().find(|r| r.name == name) {
            Some(r) if r.active(now) => {
                let held = in_resv(r);
                Cow::Owned(candidates.iter().copied().filter(|i| held.contains(i)).collect())
            }
            // waiting for it to start; or it is gone
            Some(_) => return Err(Reason::Other("Reservation".into())),
            None => return Err(Reason::Other("ReservationDeleted".into())),
        }
    } else if resvs.iter().any(|r| r.end_time > now) {
        // a node is out while a reservation holds it during the job's run
        // (an unlimited job runs into every later reservation)
        let job_end = job.time_limit.map(|m| now + m as i64 * 60).unwrap_or(i64::MAX);
        let blocking: Vec<(HashSet<usize>, bool)> = resvs
            .iter()
            .filter(|r| r.end_time > now && r.start_time < job_end)
            .map(|r| (in_resv(r), r.maint()))
            .collect();
        let before = candidates.len();
        let mut maint = false;
        let left: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|i| {
                let held = blocking.iter().find(|(nodes, _)| nodes.contains(i));
                if let Some((_, m)) = held {
                    maint |= *m;
                }
                held.is_none()
            })
            .collect();
        if left.is_empty() && before > 0 {
            let r = if maint {
                Reason::Other("ReqNodeNotAvail, Reserved for maintenance".into())
            } else {
                Reason::Resources
            };
            return Err(r);
        }
        Cow::Owned(left)
    } else {
        candidates
    };
    Ok(Cands { candidates, part_candidates, req })
}

/// CPUs node `f` can give this job (cons_tres's available CPUs): free CPUs in
/// whole tasks, limited by free memory, 0 if GRES or exclusivity rule it out.
pub(crate) fn avail_cpus(need: &Need, f: &Free) -> u32 {
    let shape = need.shape;
    let cpt = shape.cpus_per_task.max(1);
    if shape.exclusive && !f.whole {
        return 0;
    }
    let mut cpus = f.cpus_for(shape.share) / cpt * cpt;
    if shape.mem_per_node > 0 {
        if shape.mem_per_node > f.mem {
            return 0;
        }
    } else if let Some(by_mem) = f.mem.checked_div(shape.mem_per_cpu) {
        let by_mem = by_mem.min(u32::MAX as u64) as u32;
        cpus = cpus.min(by_mem / cpt * cpt);
    }
    if !need.gres_fit(f) {
        return 0;
    }
    cpus
}

/// The nodes cons_tres would choose (select/cons_tres with the default
/// topology: `_eval_nodes_consec`), in node-table order. Usable nodes are
/// grouped into sets of consecutive nodes of equal weight (a node that is not a
/// candidate or has no available CPU ends a set). Sets are taken one after the
/// other, each time the best one: lowest weight, then the first set large
/// enough, or a tighter sufficient one (fewer CPUs), or, while none is large
/// enough, the biggest. Within a set a job needing one more node gets the
/// best-fitting single node (fewest available CPUs that suffice); otherwise
/// nodes are taken in order. So a one-CPU job goes to a partly used node
/// before an idle one (`recorded/24.11/basic/106`: job 10 on node3, not the
/// idle node1).
///
/// The table holds the usable candidates only, in node-table order
/// (`candidates` come in that order): a node that is not one (or not usable)
/// leaves a gap in the indexes, which ends a set as well. The nodes chosen
/// come back by index.
///
/// `req` (`--nodelist`, by node index) are taken first; a set holding one of
/// them is preferred, and filled from the first of them to its end, then
/// back towards its start (measured on 22.05: `-N2 -w cn04` got cn[03-04],
/// `-N3 -w cn01` cn[01-03]).
fn slurm_pick(
    need: &Need,
    candidates: &[usize],
    free: &impl FreeOf,
    want_nodes: u32,
    req: &[usize],
) -> Option<Vec<usize>> {
    let shape = need.shape;
    let table: Vec<(usize, &Free)> = candidates.iter().filter_map(|i| free.free_at(*i).map(|f| (*i, f))).collect();
    // consecutive sets: (start, end) into `table` (inclusive), cpus, nodes,
    // weight, the first required node in it
    struct Set {
        start: usize,
        end: usize,
        cpus: i64,
        nodes: i64,
        weight: u32,
        req_pos: Option<usize>,
    }
    let is_req: Vec<bool> = table.iter().map(|(i, _)| req.contains(i)).collect();
    if is_req.iter().filter(|r| **r).count() != req.len() {
        return None;
    }
    let mut avail: Vec<u32> = table.iter().map(|(_, f)| avail_cpus(need, f)).collect();
    let mut sets: Vec<Set> = vec![];
    let mut cur: Option<Set> = None;
    let mut prev_index: Option<usize> = None;
    for (i, (index, f)) in table.iter().enumerate() {
        // a node missing from the table (unusable) between two usable ones ends a set
        let gap = prev_index.map(|p| *index != p + 1).unwrap_or(false);
        prev_index = Some(*index);
        // (--contiguous: weights do not split a run)
        let other_weight = !shape.contiguous && cur.as_ref().is_some_and(|c| c.weight != f.weight);
        if gap || avail[i] == 0 || other_weight {
            if let Some(c) = cur.take() {
                sets.push(c);
            }
        }
        if avail[i] == 0 {
            continue;
        }
        let c = cur.get_or_insert(Set { start: i, end: i, cpus: 0, nodes: 0, weight: f.weight, req_pos: None });
        c.end = i;
        if is_req[i] {
            c.req_pos.get_or_insert(i);
        } else {
            c.cpus += avail[i] as i64;
            c.nodes += 1;
        }
    }
    if let Some(c) = cur.take() {
        sets.push(c);
    }
    let cpt = shape.cpus_per_task.max(1) as i64;
    let min_cpus = shape.tasks.max(1) as i64 * cpt;
    let mut rem_cpus = min_cpus;
    let mut rem_max_cpus = min_cpus;
    let mut rem_nodes = want_nodes.max(1) as i64;
    let mut max_nodes: i64 = shape.max_nodes.map(|m| m as i64).unwrap_or(i64::MAX);
    let mut chosen: Vec<usize> = vec![];
    // take node `i` with `a` CPUs free: what it gives leaves one task's
    // CPUs for each node still to come (`_cpus_to_use`)
    macro_rules! take {
        ($i:expr, $a:expr) => {{
            let mut a = $a as i64;
            let limit = rem_max_cpus - (rem_nodes - 1).max(0) * cpt;
            if a > limit {
                a = limit.max(cpt);
            }
            chosen.push($i);
            rem_cpus -= a;
            rem_max_cpus -= a;
            rem_nodes -= 1;
            max_nodes -= 1;
        }};
    }
    // the required nodes first
    for i in (0..table.len()).filter(|i| is_req[*i]) {
        if avail[i] == 0 || max_nodes <= 0 {
            return None;
        }
        take!(i, avail[i]);
    }
    if !req.is_empty() && rem_nodes <= 0 && rem_cpus <= 0 {
        chosen.sort_unstable();
        return Some(chosen.into_iter().map(|i| table[i].0).collect());
    }
    loop {
        if max_nodes <= 0 {
            break;
        }
        let mut best: Option<usize> = None;
        let (mut best_cpus, mut best_nodes, mut best_suff, mut best_weight) = (0i64, 0i64, false, 0u32);
        let mut best_req = false;
        for (k, st) in sets.iter().enumerate() {
            if st.nodes == 0 {
                continue;
            }
            let sufficient = st.cpus >= rem_cpus && st.nodes >= rem_nodes;
            // (a set holding a required node comes first)
            let mut new_best = best_nodes == 0 || (!best_req && st.req_pos.is_some()) || st.weight < best_weight;
            // at equal weight: a set that suffices beats one that does not, then
            // the tightest that suffices, else the largest that does not
            let better = if sufficient { !best_suff || st.cpus < best_cpus } else { st.cpus > best_cpus };
            if !new_best && st.weight == best_weight && better {
                new_best = true;
            }
            // --contiguous: the first run large enough
            if !new_best && !best_suff && shape.contiguous && sufficient {
                new_best = true;
            }
            if best_req && st.req_pos.is_none() {
                new_best = false;
            }
            if new_best {
                best = Some(k);
                best_cpus = st.cpus;
                best_nodes = st.nodes;
                best_suff = sufficient;
                best_weight = st.weight;
                best_req = st.req_pos.is_some();
            }
        }
        let k = match best {
            Some(k) => k,
            None => break,
        };
        if shape.contiguous && !best_suff {
            // no run of consecutive nodes large enough
            break;
        }
        let (first, last) = (sets[k].start, sets[k].end);
        let order: Vec<usize> = match sets[k].req_pos {
            // from the required node to the set's end, then back to its start
            Some(r) => (r..=last).chain((first..r).rev()).collect(),
            None => (first..=last).collect(),
        };
        if rem_nodes <= 1 && sets[k].req_pos.is_none() {
            let mut best_fit: Option<usize> = None;
            for i in first..=last {
                if chosen.contains(&i) || avail[i] == 0 || (avail[i] as i64) < rem_cpus {
                    continue;
                }
                if best_fit.map(|b| avail[i] < avail[b]).unwrap_or(true) {
                    best_fit = Some(i);
                    if avail[i] as i64 == rem_cpus {
                        break;
                    }
                }
            }
            if let Some(b) = best_fit {
                for (i, a) in avail.iter_mut().enumerate().take(last + 1).skip(first) {
                    if i != b {
                        *a = 0;
                    }
                }
            }
        }
        for i in order {
            let free = avail[i];
            if max_nodes == 0 || (rem_nodes <= 0 && rem_cpus <= 0) {
                break;
            }
            if chosen.contains(&i) || free == 0 {
                continue;
            }
            if max_nodes == 1 && (free as i64) < rem_cpus {
                continue;
            }
            take!(i, free);
        }
        if rem_nodes <= 0 && rem_cpus <= 0 {
            chosen.sort_unstable();
            return Some(chosen.into_iter().map(|i| table[i].0).collect());
        }
        sets[k].cpus = 0;
        sets[k].nodes = 0;
    }
    None
}

/// Choose nodes for one job: the nodes cons_tres would pick (see
/// [`slurm_pick`]), tasks laid out on them in order; first fit in node-table
/// order when that finds nothing.
pub(crate) fn place(
    need: &Need,
    candidates: &[usize],
    free: &impl FreeOf,
    required: Option<&HashSet<String>>,
) -> Option<Vec<NodeAlloc>> {
    if need.shape.share > 1 {
        // a job that may share CPUs takes idle ones while there are enough
        // (cons_tres tries idle resources before shared ones: measured on
        // 22.05, four 8-CPU jobs under FORCE:2 on two nodes went one, two,
        // one, two)
        let alone = Shape { share: 1, ..need.shape.clone() };
        if let Some(a) = place(&Need { shape: &alone, gres: need.gres.clone() }, candidates, free, required) {
            return Some(a);
        }
    }
    match need.shape.constraint.as_ref().map(Constraint::choice) {
        Some(Choice::OneOf(alts)) => return place_one_of(need, candidates, free, required, &alts),
        Some(Choice::Counts { each, any_rest }) => {
            return place_counts(need, candidates, free, required, &each, any_rest)
        }
        _ => {}
    }
    place_plain(need, candidates, free, required)
}

/// `[a|b]`: the first of the features whose nodes (among `candidates`)
/// can hold the whole job (22.05: `-C '[intel|amd]' -N2` on two idle intel
/// nodes and two amd ones got the intel nodes).
fn place_one_of(
    need: &Need,
    candidates: &[usize],
    free: &impl FreeOf,
    required: Option<&HashSet<String>>,
    alts: &[String],
) -> Option<Vec<NodeAlloc>> {
    alts.iter().find_map(|a| {
        let on: Vec<usize> = candidates.iter().copied().filter(|i| free.feats_at(*i).contains(a)).collect();
        place_plain(need, &on, free, required)
    })
}

/// `[a*2&b*1]` (or `a*2`): for each feature in turn, that many nodes that
/// have it, distinct from those taken before; then, when the job asks for
/// more nodes than the counts add up to, the rest from `candidates` (any
/// of them for a lone count). The job's tasks are shared out over the
/// nodes of each part in proportion.
fn place_counts(
    need: &Need,
    candidates: &[usize],
    free: &impl FreeOf,
    required: Option<&HashSet<String>>,
    each: &[(String, u32)],
    any_rest: bool,
) -> Option<Vec<NodeAlloc>> {
    let shape = need.shape;
    let counted: u32 = each.iter().map(|(_, k)| *k).fold(0u32, u32::saturating_add);
    let nodes = shape.min_nodes.max(counted).max(1);
    if shape.max_nodes.is_some_and(|m| m < nodes) {
        return None;
    }
    let mut parts: Vec<(Option<&str>, u32)> = each.iter().map(|(f, k)| (Some(f.as_str()), *k)).collect();
    if nodes > counted {
        parts.push((None, nodes - counted));
    }
    let mut taken: HashSet<String> = HashSet::new();
    let mut allocs: Vec<NodeAlloc> = Vec::new();
    let mut tasks_left = shape.tasks.max(1);
    let mut nodes_left = nodes;
    for (feat, k) in parts {
        // this part's share of the tasks, at least one per node
        let tasks = (tasks_left.saturating_mul(k)).div_ceil(nodes_left.max(1)).max(k).min(tasks_left.max(k));
        let on: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|i| !taken.contains(free.name_at(*i)))
            .filter(|i| match feat {
                Some(f) => free.feats_at(*i).iter().any(|x| x == f),
                None => any_rest || each.iter().any(|(f, _)| free.feats_at(*i).contains(f)),
            })
            .collect();
        let sub =
            Shape { min_nodes: k, nodes_fixed: true, tasks, max_nodes: Some(k), constraint: None, ..shape.clone() };
        let sub_need = Need { shape: &sub, gres: need.gres.clone() };
        let got = place_plain(&sub_need, &on, free, None)?;
        for a in &got {
            taken.insert(a.node.clone());
        }
        allocs.extend(got);
        tasks_left = tasks_left.saturating_sub(tasks);
        nodes_left = nodes_left.saturating_sub(k);
    }
    if let Some(r) = required {
        if !r.iter().all(|n| taken.contains(n)) {
            return None;
        }
    }
    // in node-table order, as the others
    let order: HashMap<&str, usize> = candidates.iter().enumerate().map(|(k, i)| (free.name_at(*i), k)).collect();
    allocs.sort_by_key(|a| order.get(a.node.as_str()).copied().unwrap_or(usize::MAX));
    Some(allocs)
}

/// [`place`] without a bracket or count.
fn place_plain(
    need: &Need,
    candidates: &[usize],
    free: &impl FreeOf,
    required: Option<&HashSet<String>>,
) -> Option<Vec<NodeAlloc>> {
    if need.shape.spread && required.is_none() {
        return place_spread(need, candidates, free);
    }
    // topology/tree (not for --contiguous; with TopoOptional only for jobs
    // that ask for --switches)
    let tree = free.topo().filter(|(t, _)| !need.shape.contiguous && (!t.conf.optional || need.shape.asks_switches));
    if let (Some((t, hold)), Some(r)) = (tree, required) {
        // --nodelist: the rest of the job around the required nodes' switches
        let want_nodes = need.shape.min_nodes.max(r.len() as u32).max(1);
        let req: Vec<usize> = candidates.iter().copied().filter(|i| r.contains(free.name_at(*i))).collect();
        if req.len() == r.len() {
            let picked = pick_knapsack(need, candidates, free, want_nodes, &|c: &[usize]| {
                topo::topo_pick(need, c, free, want_nodes, t, hold, &req)
            });
            if let Some(a) = picked.and_then(|p| place_in_order(need, &p, free, required)) {
                return Some(a);
            }
            if hold && need.shape.switches.is_some() {
                return None;
            }
        }
    }
    if let (None, Some(r)) = (tree, required) {
        // --nodelist: the required nodes, then the rest around them
        let want_nodes = need.shape.min_nodes.max(r.len() as u32).max(1);
        let req: Vec<usize> = candidates.iter().copied().filter(|i| r.contains(free.name_at(*i))).collect();
        if req.len() == r.len() {
            let picked = pick_knapsack(need, candidates, free, want_nodes, &|c: &[usize]| {
                slurm_pick(need, c, free, want_nodes, &req)
            });
            if let Some(a) = picked.and_then(|p| place_in_order(need, &p, free, required)) {
                return Some(a);
            }
        }
        // (first fit, the required nodes first)
        let order: Vec<usize> = req.iter().chain(candidates.iter().filter(|i| !req.contains(i))).copied().collect();
        return place_in_order(need, &order, free, required);
    }
    if required.is_none() {
        let want_nodes = need.shape.min_nodes.max(1);
        let picked = match tree {
            Some((t, hold)) => pick_knapsack(need, candidates, free, want_nodes, &|c: &[usize]| {
                topo::topo_pick(need, c, free, want_nodes, t, hold, &[])
            }),
            None => pick_knapsack(need, candidates, free, want_nodes, &|c: &[usize]| {
                slurm_pick(need, c, free, want_nodes, &[])
            }),
        };
        if let Some(picked) = picked {
            if let Some(a) = place_in_order(need, &picked, free, None) {
                return Some(a);
            }
        }
        // (no first fit past a --switches wait: the job waits for the tree)
        if need.shape.contiguous || tree.is_some_and(|(_, hold)| hold && need.shape.switches.is_some()) {
            return None;
        }
    }
    place_in_order(need, candidates, free, required)
}

/// `--spread-job` (cons_tres's `_eval_nodes_spread`): one task on each of as
/// many nodes as it has tasks (at most its maximum node count), the nodes of
/// the lowest weight first, in node-table order; tasks left over go round
/// the chosen nodes again where they fit. Measured on 22.05, four idle
/// 8-CPU nodes: `-n4 --spread-job` got cn[01-04] with 4 CPUs, `-n6 -N2-3
/// --spread-job` cn[01-03] with 6.
fn place_spread(need: &Need, candidates: &[usize], free: &impl FreeOf) -> Option<Vec<NodeAlloc>> {
    let shape = need.shape;
    let cpt = shape.cpus_per_task.max(1);
    let tasks = shape.tasks.max(1);
    let most = shape.max_nodes.unwrap_or(u32::MAX).min(tasks).max(shape.min_nodes.max(1)) as usize;
    let mut order: Vec<(u32, usize)> = candidates
        .iter()
        .filter_map(|i| free.free_at(*i).filter(|f| avail_cpus(need, f) >= cpt).map(|f| (f.weight, *i)))
        .collect();
    order.sort_by_key(|(w, i)| (*w, *i));
    order.truncate(most);
    if order.len() < shape.min_nodes.max(1) as usize {
        return None;
    }
    let room: Vec<u32> =
        order.iter().map(|(_, i)| free.free_at(*i).map(|f| avail_cpus(need, f) / cpt).unwrap_or(0)).collect();
    let mut per = vec![0u32; order.len()];
    let mut left = tasks;
    while left > 0 {
        let mut placed = false;
        for (k, n) in per.iter_mut().enumerate() {
            if left > 0 && *n < room[k] {
                *n += 1;
                left -= 1;
                placed = true;
            }
        }
        if !placed {
            return None;
        }
    }
    let mut allocs = Vec::new();
    for ((_, i), n) in order.iter().zip(per) {
        if n == 0 {
            continue;
        }
        let f = free.free_at(*i)?;
        let cpus = if shape.exclusive { f.cpus } else { n * cpt };
        let mem =
            if shape.mem_per_node > 0 { shape.mem_per_node } else { shape.mem_per_cpu.saturating_mul(u64::from(cpus)) };
        let gres = shape
            .gres_per_node
            .iter()
            .map(|(n, t, c)| GresAlloc { name: n.clone(), gtype: t.clone(), count: *c, indexes: vec![] })
            .collect();
        allocs.push(NodeAlloc { node: free.name_at(*i).to_string(), cpus, mem_mb: mem, gres });
    }
    let order_of: HashMap<&str, usize> = candidates.iter().enumerate().map(|(k, i)| (free.name_at(*i), k)).collect();
    allocs.sort_by_key(|a| order_of.get(a.node.as_str()).copied().unwrap_or(usize::MAX));
    Some(allocs)
}

/// cons_tres's `choose_nodes`: [`slurm_pick`] over the candidates; when that
/// fails, the nodes with the fewest available CPUs are left out, one count
/// at a time (those with 1, then up to 2, ...), and the pick tried again,
/// until it succeeds or no more than the job's node count is left ("to
/// avoid a possible knapsack problem"). Measured on 22.05: `-N2 -n16` on
/// 8-CPU nodes, the first with 2 free, gets the second and third.
/// A pick that no subset can satisfy (fewer CPUs or nodes available in all
/// than the job needs) is not retried.
fn pick_knapsack(
    need: &Need,
    candidates: &[usize],
    free: &impl FreeOf,
    want_nodes: u32,
    pick: &dyn Fn(&[usize]) -> Option<Vec<usize>>,
) -> Option<Vec<usize>> {
    if let Some(p) = pick(candidates) {
        return Some(p);
    }
    let avail: Vec<(usize, u32)> = candidates
        .iter()
        .filter_map(|i| free.free_at(*i).map(|f| (*i, avail_cpus(need, f))))
        .filter(|(_, a)| *a > 0)
        .collect();
    let shape = need.shape;
    let needed = u64::from(shape.tasks.max(1)) * u64::from(shape.cpus_per_task.max(1));
    let total: u64 = avail.iter().map(|(_, a)| u64::from(*a)).sum();
    let min_nodes = want_nodes.max(1) as usize;
    if total < needed || avail.len() <= min_nodes {
        return None;
    }
    let most = avail.iter().map(|(_, a)| *a).max().unwrap_or(0);
    let mut left: Vec<(usize, u32)> = avail;
    for count in 1..most {
        let before = left.len();
        let mut kept = Vec::with_capacity(left.len());
        let mut rem = left.len();
        for (i, a) in left.iter().copied() {
            if a <= count && rem > min_nodes {
                rem -= 1;
                continue;
            }
            kept.push((i, a));
        }
        left = kept;
        if left.len() == before && count != 1 {
            continue;
        }
        let idx: Vec<usize> = left.iter().map(|(i, _)| *i).collect();
        if let Some(p) = pick(&idx) {
            return Some(p);
        }
        if left.len() <= min_nodes {
            break;
        }
    }
    None
}

/// Lay the job's tasks out on `candidates`, first fit in the given order.
fn place_in_order(
    need: &Need,
    candidates: &[usize],
    free: &impl FreeOf,
    required: Option<&HashSet<String>>,
) -> Option<Vec<NodeAlloc>> {
    let shape = need.shape;
    let cpt = shape.cpus_per_task;
    let mut allocs: Vec<NodeAlloc> = Vec::new();
    let mut tasks_left = shape.tasks;
    let want_nodes = shape.min_nodes.max(required.map(|r| r.len() as u32).unwrap_or(0));
    let most_nodes = shape.max_nodes.map(|m| m.max(want_nodes)).unwrap_or(u32::MAX);
    let fits_extra = |f: &Free, cpus: u32| -> bool {
        if shape.exclusive && !f.whole {
            return false;
        }
        let mem =
            if shape.mem_per_node > 0 { shape.mem_per_node } else { shape.mem_per_cpu.saturating_mul(cpus as u64) };
        if mem > f.mem {
            return false;
        }
        need.gres_fit(f)
    };
    for &i in candidates {
        if allocs.len() as u32 >= most_nodes {
            break;
        }
        let Some(f) = free.free_at(i) else { continue };
        let nodes_after = want_nodes.saturating_sub(allocs.len() as u32 + 1);
        // tasks that must still be left for the remaining required nodes (one each)
        let max_tasks_here = tasks_left.saturating_sub(nodes_after);
        if max_tasks_here == 0 && nodes_after == 0 && allocs.len() as u32 >= want_nodes {
            break;
        }
        let fit_tasks = (f.cpus_for(shape.share) / cpt).min(max_tasks_here.max(1));
        if fit_tasks == 0 {
            continue;
        }
        // with a fixed node count, spread tasks evenly like Slurm's block layout
        let mut take = fit_tasks;
        // (once every wanted node is taken, the tasks left go where they fit)
        let remaining_nodes = want_nodes.saturating_sub(allocs.len() as u32);
        if shape.nodes_fixed && remaining_nodes > 0 {
            let even = tasks_left.div_ceil(remaining_nodes);
            take = take.min(even.max(1));
        }
        let cpus = if shape.exclusive { f.cpus } else { take * cpt };
        if !fits_extra(f, cpus) {
            continue;
        }
        let mem =
            if shape.mem_per_node > 0 { shape.mem_per_node } else { shape.mem_per_cpu.saturating_mul(cpus as u64) };
        let gres = shape
            .gres_per_node
            .iter()
            .map(|(n, t, c)| GresAlloc { name: n.clone(), gtype: t.clone(), count: *c, indexes: vec![] })
            .collect();
        allocs.push(NodeAlloc { node: free.name_at(i).to_string(), cpus, mem_mb: mem, gres });
        tasks_left = tasks_left.saturating_sub(take);
        if tasks_left == 0 && allocs.len() as u32 >= want_nodes {
            break;
        }
    }
    if tasks_left == 0 && allocs.len() as u32 >= want_nodes {
        if let Some(r) = required {
            if !r.iter().all(|n| allocs.iter().any(|a| &a.node == n)) {
                return None;
            }
        }
        Some(allocs)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(tasks: u32, nodes: u32, fixed: bool) -> Shape {
        Shape {
            min_nodes: nodes,
            nodes_fixed: fixed,
            tasks,
            cpus_per_task: 1,
            mem_per_node: 0,
            mem_per_cpu: 500,
            gres_per_node: vec![],
            exclusive: false,
            max_nodes: if fixed { Some(nodes) } else { None },
            overcommit: false,
            constraint: None,
            contiguous: false,
            spread: false,
            asks_switches: false,
            switches: None,
            share: 1,
        }
    }

    /// Four 2-CPU, 2000 MB nodes with these CPUs in use.
    fn free(used: &[u32]) -> Table<'static> {
        let names = vec!["node1", "node2", "node3", "node4"];
        let free = used.iter().map(|u| Some(Free::plain(2 - u, 2000 - 500 * *u as u64, vec![], *u == 0, 1))).collect();
        let index = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        Table { names, free, index, kinds: Kinds::default(), feats: vec![&[]; 4], topo: None }
    }

    /// `slurm_pick` over every node, by name.
    fn slurm_pick(shape: &Shape, _all: &[&str], t: &Table, want: u32) -> Option<Vec<&'static str>> {
        let picked = super::slurm_pick(&Need::new(shape, &t.kinds), &[0, 1, 2, 3], t, want, &[])?;
        Some(picked.into_iter().map(|i| ["node1", "node2", "node3", "node4"][i]).collect())
    }

    const ALL: [&str; 4] = ["node1", "node2", "node3", "node4"];

    /// The measured tree (s0=node1, s1=node[2-3], s2=node4; s1 and s2
    /// under a0, s0 under a1) over 8-CPU nodes with these CPUs in use.
    fn tree_table(used: &[u32], v24: bool) -> Table<'static> {
        let mut t = free(&[0, 0, 0, 0]);
        for (f, u) in t.free.iter_mut().zip(used) {
            *f = Some(Free::plain(8 - u, 16000, vec![], *u == 0, 1));
        }
        let names: Vec<String> = ALL.iter().map(|s| s.to_string()).collect();
        let tree = spur_core::topology::parse(
            "SwitchName=s0 Nodes=node1\nSwitchName=s1 Nodes=node[2-3]\nSwitchName=s2 Nodes=node4\n\
             SwitchName=a0 Switches=s[1-2]\nSwitchName=a1 Switches=s0\nSwitchName=top Switches=a[0-1]\n",
            &names,
        )
        .unwrap();
        let conf = Arc::new(SchedTopology { tree, optional: false, max_switch_wait: 300, v24 });
        t.topo = Some((Arc::new(topo::TopoPass::new(&conf, &t.index)), true));
        t
    }

    fn tree_place(sh: &Shape, t: &Table) -> Vec<String> {
        let a = place(&Need::new(sh, &t.kinds), &[0, 1, 2, 3], t, None).unwrap_or_default();
        a.into_iter().map(|a| format!("{}:{}", a.node, a.cpus)).collect()
    }

    #[test]
    fn tree_placement_by_release() {
        let mut sh = shape(1, 1, true);
        sh.mem_per_cpu = 0;
        // idle (measured on 22.05): -N2 on the leaf that holds both
        sh.min_nodes = 2;
        sh.max_nodes = Some(2);
        sh.tasks = 2;
        assert_eq!(tree_place(&sh, &tree_table(&[0, 0, 0, 0], false)), ["node2:1", "node3:1"]);
        assert_eq!(tree_place(&sh, &tree_table(&[0, 0, 0, 0], true)), ["node2:1", "node3:1"]);
        // idle, -n12 (both measured): 22.05 takes leaf s0 (one node fits by
        // count) then the tightest other; 24.11 the leaf whose CPUs suffice
        let mut n12 = shape(12, 1, false);
        n12.mem_per_cpu = 0;
        assert_eq!(tree_place(&n12, &tree_table(&[0, 0, 0, 0], false)), ["node1:8", "node4:4"]);
        assert_eq!(tree_place(&n12, &tree_table(&[0, 0, 0, 0], true)), ["node2:8", "node3:4"]);
        // node1 with 2 CPUs free, -n8: 22.05 takes node1, then node4
        // (measured, CPU_IDs 2 and 6); 24.11 node4 alone (measured)
        let mut n8 = shape(8, 1, false);
        n8.mem_per_cpu = 0;
        assert_eq!(tree_place(&n8, &tree_table(&[6, 0, 0, 0], false)), ["node1:2", "node4:6"]);
        assert_eq!(tree_place(&n8, &tree_table(&[6, 0, 0, 0], true)), ["node4:8"]);
        // a --switches limit still holding: node2 busy, two nodes would
        // span two leaves, so nothing; none once the wait is over
        sh.switches = Some(1);
        assert!(tree_place(&sh, &tree_table(&[0, 8, 0, 0], false)).is_empty());
        sh.switches = None;
        assert_eq!(tree_place(&sh, &tree_table(&[0, 8, 0, 0], false)), ["node3:1", "node4:1"]);
        // --nodelist (measured on 22.05): -N2 -w node4 gets node1 beside it
        // (22.05 takes a closer leaf only if it fits as tightly; 24.11 if it
        // fits), -N2 -w node1 node4 (the tightest leaf), -N3 -w node4 node[2-4]
        let req = |names: &[&str]| -> HashSet<String> { names.iter().map(|n| n.to_string()).collect() };
        let placed = |sh: &Shape, r: &HashSet<String>, v24: bool| -> Vec<String> {
            let t = tree_table(&[0, 0, 0, 0], v24);
            let a = place(&Need::new(sh, &t.kinds), &[0, 1, 2, 3], &t, Some(r)).unwrap_or_default();
            a.into_iter().map(|a| a.node).collect()
        };
        assert_eq!(placed(&sh, &req(&["node4"]), false), ["node1", "node4"]);
        assert_eq!(placed(&sh, &req(&["node4"]), true), ["node2", "node4"]);
        assert_eq!(placed(&sh, &req(&["node1"]), false), ["node1", "node4"]);
        let mut n3 = sh.clone();
        (n3.min_nodes, n3.max_nodes, n3.tasks) = (3, Some(3), 3);
        assert_eq!(placed(&n3, &req(&["node4"]), false), ["node2", "node3", "node4"]);
        assert_eq!(placed(&n3, &req(&["node1"]), false), ["node1", "node2", "node3"]);
        assert_eq!(placed(&n3, &req(&["node1", "node4"]), false), ["node1", "node2", "node4"]);
    }

    fn job(id: u32, state: JobState, dep: Option<&str>, kill: Option<&str>) -> Job {
        let mut desc = spur_core::model::JobDesc { dependency: dep.map(|d| d.to_string()), ..Default::default() };
        if let Some(k) = kill {
            desc.kill_on_invalid_dependency = Some(k == "yes");
        }
        Job {
            job_id: id,
            desc,
            user_name: "root".into(),
            group_name: "root".into(),
            state,
            priority: 1,
            partition: "debug".into(),
            submit_time: 1,
            num_nodes: 1,
            num_tasks: 1,
            num_cpus: 1,
            batch_flag: 1,
            ..Default::default()
        }
    }

    #[test]
    fn kill_on_invalid_dep() {
        // recorded/24.11/workflow/088: afterok on a failed job; only the
        // dependant with --kill-on-invalid-dep=yes is cancelled
        let failed = job(16, JobState::Failed, None, None);
        let stays = job(18, JobState::Pending, Some("afterok:16"), None);
        let killed = job(19, JobState::Pending, Some("afterok:16"), Some("yes"));
        let no = job(20, JobState::Pending, Some("afterok:16"), Some("no"));
        let d = schedule(100, &[&failed, &stays, &killed, &no], &[], &[]);
        let cancelled: Vec<u32> = d
            .iter()
            .filter_map(|x| match x {
                Decision::CancelNeverSatisfied { job_id } => Some(*job_id),
                _ => None,
            })
            .collect();
        assert_eq!(cancelled, [19]);
        for id in [18, 19, 20] {
            assert!(d.contains(&Decision::Reason { job_id: id, reason: Reason::DependencyNeverSatisfied }));
        }
    }

    #[test]
    fn placements_of_the_basic_recording() {
        // recorded/24.11/basic/016: jobs 1 and 2 share node1, -N2 gets node[2-3],
        // the array tasks go to node2, node3, node4 in turn
        assert_eq!(slurm_pick(&shape(1, 1, false), &ALL, &free(&[0, 0, 0, 0]), 1).unwrap(), ["node1"]);
        assert_eq!(slurm_pick(&shape(1, 1, false), &ALL, &free(&[1, 0, 0, 0]), 1).unwrap(), ["node1"]);
        assert_eq!(slurm_pick(&shape(2, 2, true), &ALL, &free(&[2, 0, 0, 0]), 2).unwrap(), ["node2", "node3"]);
        assert_eq!(slurm_pick(&shape(1, 1, false), &ALL, &free(&[2, 1, 1, 0]), 1).unwrap(), ["node2"]);
        assert_eq!(slurm_pick(&shape(1, 1, false), &ALL, &free(&[2, 2, 1, 0]), 1).unwrap(), ["node3"]);
        assert_eq!(slurm_pick(&shape(1, 1, false), &ALL, &free(&[2, 2, 2, 0]), 1).unwrap(), ["node4"]);
        // basic/106: node1 idle, node3 half used: the tighter fit wins
        assert_eq!(slurm_pick(&shape(1, 1, false), &ALL, &free(&[0, 2, 1, 2]), 1).unwrap(), ["node3"]);
        // nothing fits
        assert!(slurm_pick(&shape(3, 1, true), &ALL, &free(&[0, 0, 0, 0]), 1).is_none());
        // four tasks without -N: two nodes, in order
        assert_eq!(slurm_pick(&shape(4, 1, false), &ALL, &free(&[0, 0, 0, 0]), 1).unwrap(), ["node1", "node2"]);
        // --nodelist (measured on 22.05, 8-CPU nodes there): the required
        // node, then its set from it to the end, then back
        let with_req = |sh: &Shape, req: &[usize], want: u32| -> Vec<&'static str> {
            let t = free(&[0, 0, 0, 0]);
            let p = super::slurm_pick(&Need::new(sh, &t.kinds), &[0, 1, 2, 3], &t, want, req).unwrap_or_default();
            p.into_iter().map(|i| ALL[i]).collect()
        };
        assert_eq!(with_req(&shape(2, 2, true), &[3], 2), ["node3", "node4"]);
        assert_eq!(with_req(&shape(3, 3, true), &[0], 3), ["node1", "node2", "node3"]);
        assert_eq!(with_req(&shape(2, 2, true), &[1], 2), ["node2", "node3"]);
        assert_eq!(with_req(&shape(3, 3, true), &[3], 3), ["node2", "node3", "node4"]);
        assert_eq!(with_req(&shape(3, 3, true), &[0, 3], 3), ["node1", "node2", "node4"]);
    }

    fn idle_node(name: &str) -> Node {
        Node {
            name: name.into(),
            cpus: 2,
            boards: 1,
            sockets: 1,
            cores_per_socket: 2,
            threads_per_core: 1,
            real_memory: 2000,
            weight: 1,
            base: spur_core::model::NodeBase::Idle,
            ..Default::default()
        }
    }

    #[test]
    fn reserved_nodes_only_for_the_reservation() {
        // recorded/24.11/reservations: r1 holds node1; a MAINT reservation of
        // every node keeps other jobs pending with slurmctld's reason
        let nodes: Vec<Node> = ALL.iter().map(|n| idle_node(n)).collect();
        let nr: Vec<&Node> = nodes.iter().collect();
        let part = Partition {
            name: "debug".into(),
            nodes: ALL.iter().map(|n| n.to_string()).collect(),
            nodes_expr: "node[1-4]".into(),
            default: true,
            oversubscribe: "NO".into(),
            priority_tier: 1,
            priority_job_factor: 1,
            ..Default::default()
        };
        let resv = |name: &str, nodes: &[&str], flags: &[&str], start: i64| Reservation {
            name: name.into(),
            start_time: start,
            end_time: start + 3600,
            nodes: nodes.iter().map(|n| n.to_string()).collect(),
            users: vec!["root".into()],
            flags: flags.iter().map(|f| f.to_string()).collect(),
            ..Default::default()
        };
        let started_on = |d: &[Decision], id: u32| -> Option<String> {
            d.iter().find_map(|x| match x {
                Decision::Start { job_id, allocs, .. } if *job_id == id => Some(allocs[0].node.clone()),
                _ => None,
            })
        };
        let r1 = resv("r1", &["node1"], &[], 0);
        let mut inside = job(1, JobState::Pending, None, None);
        inside.desc.reservation = Some("r1".into());
        let outside = job(2, JobState::Pending, None, None);
        let (d, _) = schedule_resv(100, &[&inside, &outside], &nr, &[&part], &[&r1], usize::MAX);
        assert_eq!(started_on(&d, 1).as_deref(), Some("node1"));
        assert_ne!(started_on(&d, 2).as_deref(), Some("node1"));
        // an unlimited job runs into a later reservation of node1 too
        let later = resv("later", &["node1", "node2", "node3"], &[], 5000);
        let (d, _) = schedule_resv(100, &[&outside], &nr, &[&part], &[&later], usize::MAX);
        assert_eq!(started_on(&d, 2).as_deref(), Some("node4"));
        let all = resv("all", &ALL, &["MAINT"], 0);
        let (d, _) = schedule_resv(100, &[&outside], &nr, &[&part], &[&all], usize::MAX);
        assert_eq!(started_on(&d, 2), None);
        assert!(d.contains(&Decision::Reason {
            job_id: 2,
            reason: Reason::Other("ReqNodeNotAvail, Reserved for maintenance".into())
        }));
    }
}
