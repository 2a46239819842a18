//! Placement with `TopologyPlugin=topology/tree` (cons_tres's
//! `_eval_nodes_topo`): the job goes under one switch, with as few leaf
//! switches as it can, the best-fitting leaf first and then the nearest;
//! and `--switches=N@WAIT` holds it (up to WAIT) while it would need more
//! than N leaf switches.
//!
//! Measured on 22.05.8 (`crates/spur-sched/tests/topology.md`): on
//! leaves s0=cn01, s1=cn[02-03], s2=cn04 (s1 and s2 under one switch, s0
//! under another) with every node idle, `-N1` gets cn01, `-N2` cn[02-03],
//! `-N3` cn[02-04] and `-n12` cn[01,04]. 24.11 also counts a switch's
//! CPUs when asking whether it fits (measured: `-n12` gets cn[02-03]), and
//! takes the nodes a leaf gave from its parents' counts (from its source).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use spur_core::model::Job;
use spur_core::topology::{Topology, INFINITE};

use crate::{avail_cpus, FreeOf, Need};

/// The tree as the scheduler uses it (slurm.conf's topology settings).
#[derive(Clone, Debug)]
pub struct SchedTopology {
    pub tree: Topology,
    /// `TopologyParam=TopoOptional`: only for jobs with `--switches`.
    pub optional: bool,
    /// `SchedulerParameters=max_switch_wait=` (seconds).
    pub max_switch_wait: u32,
    /// 24.11's refinements (see the module's text); 22.05's otherwise.
    pub v24: bool,
}

impl SchedTopology {
    /// The leaf-switch limit that still holds `job` at `now`: its
    /// `--switches` count until it has waited its wait (from when it became
    /// eligible), then none.
    pub fn switch_limit(&self, job: &Job, now: i64) -> Option<u32> {
        let acc = job.desc.accepted.as_ref()?;
        let (n, wait) = spur_core::topology::job_switches(
            acc.switches.as_deref(),
            acc.switch_wait.as_deref(),
            self.max_switch_wait,
        )?;
        let since = if job.eligible_time > 0 { job.eligible_time } else { job.submit_time };
        (now < since.saturating_add(wait as i64)).then_some(n)
    }

    /// Whether `job` asked for `--switches`.
    pub fn asks_switches(job: &Job) -> bool {
        job.desc
            .accepted
            .as_ref()
            .and_then(|a| a.switches.as_deref())
            .is_some_and(|s| spur_core::topology::job_switches(Some(s), None, 0).is_some())
    }
}

/// The tree in one pass's node table.
#[derive(Debug)]
pub(crate) struct TopoPass {
    pub(crate) conf: Arc<SchedTopology>,
    /// Per switch, its nodes by table index, ascending.
    pub(crate) nodes: Vec<Vec<usize>>,
}

impl TopoPass {
    pub(crate) fn new(conf: &Arc<SchedTopology>, index: &HashMap<&str, usize>) -> TopoPass {
        let names = &conf.tree.node_names;
        let nodes = conf
            .tree
            .switches
            .iter()
            .map(|s| {
                let mut v: Vec<usize> = s.nodes.iter().filter_map(|k| index.get(names[*k].as_str()).copied()).collect();
                v.sort_unstable();
                v
            })
            .collect();
        TopoPass { conf: conf.clone(), nodes }
    }
}

/// The nodes `_eval_nodes_topo` would choose for `need` among `candidates`
/// (by table index, ascending), with `req` (`--nodelist`, by table index)
/// among them; None when it finds none, or when the job's `--switches`
/// limit still holds (`hold`) and they span more leaves.
// (index loops: several tables by switch and by node, as the C code's)
#[allow(clippy::needless_range_loop, clippy::too_many_arguments)]
pub(crate) fn topo_pick(
    need: &Need,
    candidates: &[usize],
    free: &impl FreeOf,
    want_nodes: u32,
    t: &TopoPass,
    hold: bool,
    req: &[usize],
) -> Option<Vec<usize>> {
    let shape = need.shape;
    let tree = &t.conf.tree;
    let v24 = t.conf.v24;
    let size = candidates.iter().chain(req).copied().max()? + 1;
    let mut avail = vec![0u32; size];
    let mut weight = vec![0u32; size];
    for &i in candidates {
        if let Some(f) = free.free_at(i) {
            avail[i] = avail_cpus(need, f);
            weight[i] = f.weight;
        }
    }
    let on = |i: usize| i < size && avail[i] > 0;
    let cpt = shape.cpus_per_task.max(1) as i64;
    let min_cpus = shape.tasks.max(1) as i64 * cpt;
    let mut rem_cpus = min_cpus;
    let mut rem_max_cpus = min_cpus;
    let mut rem_nodes = want_nodes.max(1) as i64;
    let mut min_rem_nodes = rem_nodes;
    let mut max_nodes: i64 = shape.max_nodes.map(|m| m as i64).unwrap_or(i64::MAX);
    let ns = tree.switches.len();
    let level: Vec<u32> = tree.switches.iter().map(|s| s.level).collect();
    let parent: Vec<Option<usize>> = tree.switches.iter().map(|s| s.parent).collect();
    let mut chosen = vec![false; size];
    let mut required = vec![false; ns];
    // what a node gives the job (`_cpus_to_use`: leave one task's CPUs for
    // each node still to come)
    let cpus_to_use = |a: u32, rem_max_cpus: i64, min_rem_nodes: i64| -> i64 {
        let limit = rem_max_cpus - (min_rem_nodes - 1).max(0) * cpt;
        let a = a as i64;
        if a > limit {
            limit.max(cpt)
        } else {
            a
        }
    };
    macro_rules! take {
        ($i:expr) => {{
            let a = cpus_to_use(avail[$i], rem_max_cpus, min_rem_nodes);
            rem_nodes -= 1;
            min_rem_nodes -= 1;
            max_nodes -= 1;
            rem_cpus -= a;
            rem_max_cpus -= a;
            chosen[$i] = true;
        }};
    }
    let done = |rem_nodes: i64, rem_cpus: i64| rem_nodes <= 0 && rem_cpus <= 0;
    // the required nodes first: all usable, no more than the job may have
    if req.iter().any(|&i| !on(i)) || req.len() as i64 > max_nodes {
        return None;
    }
    for &i in req {
        take!(i);
    }

    // each switch's usable nodes, and (24.11) their CPUs
    let mut sw: Vec<Vec<usize>> = t.nodes.iter().map(|v| v.iter().copied().filter(|&i| on(i)).collect()).collect();
    let sw_cpus: Vec<i64> = sw.iter().map(|v| v.iter().map(|&i| avail[i] as i64).sum()).collect();

    // the top switch: with required nodes, the highest over them; else the
    // highest that has enough, holding the lowest weight
    let mut top: Option<(usize, u32)> = None;
    for s in 0..ns {
        if !req.is_empty() {
            if sw[s].iter().any(|&i| chosen[i]) {
                required[s] = true;
                if top.is_none_or(|(ts, _)| level[s] > level[ts]) {
                    top = Some((s, 0));
                }
            }
            continue;
        }
        if (sw[s].len() as i64) < rem_nodes || (v24 && rem_cpus > sw_cpus[s]) {
            continue;
        }
        let Some(w) = sw[s].iter().map(|&i| weight[i]).min() else { continue };
        match top {
            Some((ts, tw)) if !(level[s] >= level[ts] && w <= tw) => {}
            _ => top = Some((s, w)),
        }
    }
    let (top, _) = top?;
    let mut in_top = vec![false; size];
    for &i in &sw[top] {
        in_top[i] = true;
    }
    // the required nodes must share a network
    if req.iter().any(|&i| !in_top[i]) {
        return None;
    }
    for (s, v) in sw.iter_mut().enumerate() {
        if s != top {
            v.retain(|&i| in_top[i]);
        }
    }
    let mut finished = false;
    if !req.is_empty() {
        if done(rem_nodes, rem_cpus) {
            finished = true;
        } else if max_nodes <= 0 {
            return None;
        }
    }

    // the best nodes: weight by weight (lowest first) until enough; the
    // lighter groups then go to the job whole
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for &i in &sw[top] {
        if !chosen[i] {
            groups.entry(weight[i]).or_default().push(i);
        }
    }
    let mut best = vec![false; size];
    let (mut best_cnt, mut best_cpus) = (0i64, 0i64);
    let mut req2: Vec<usize> = vec![];
    let mut sufficient = finished;
    for g in groups.values() {
        if sufficient {
            break;
        }
        if best_cnt > 0 {
            req2 = (0..size).filter(|&i| best[i]).collect();
        }
        for &i in g {
            best[i] = true;
            best_cnt += 1;
            best_cpus += avail[i] as i64;
        }
        sufficient = best_cpus >= rem_cpus && best_cnt >= rem_nodes;
    }
    if !sufficient {
        return None;
    }

    if !finished && !req2.is_empty() {
        for &i in &req2 {
            if max_nodes <= 0 {
                break;
            }
            take!(i);
        }
        for s in 0..ns {
            if sw[s].iter().any(|&i| chosen[i]) {
                required[s] = true;
            }
        }
        if done(rem_nodes, rem_cpus) {
            finished = true;
        } else if max_nodes <= 0 {
            return None;
        }
    }
    let mut cnt: Vec<i64> = vec![0; ns];
    if !finished {
        for s in 0..ns {
            sw[s].retain(|&i| best[i] || chosen[i]);
            cnt[s] = sw[s].len() as i64;
        }
    }
    // 24.11: a leaf's nodes taken come off its parents' counts too
    let decrement = |cnt: &mut Vec<i64>, taken: i64, s: usize| {
        let mut k = Some(s);
        while let Some(s) = k {
            cnt[s] = (cnt[s] - taken).max(0);
            k = parent[s];
        }
    };
    if !finished && (!req.is_empty() || !req2.is_empty()) {
        'leaves: for s in 0..ns {
            if !required[s] || level[s] != 0 {
                continue;
            }
            let mut taken = 0;
            for k in 0..sw[s].len() {
                let j = sw[s][k];
                if chosen[j] || avail[j] == 0 {
                    continue;
                }
                take!(j);
                taken += 1;
                if done(rem_nodes, rem_cpus) {
                    finished = true;
                    break 'leaves;
                }
            }
            if v24 {
                decrement(&mut cnt, taken, s);
            }
        }
    }
    if !finished {
        let mut dist = vec![0u32; ns];
        let add_dist = |dist: &mut Vec<u32>, s: usize| {
            for (k, d) in dist.iter_mut().enumerate() {
                let step = tree.dist(s, k);
                *d = if step == INFINITE || *d == INFINITE { INFINITE } else { d.saturating_add(step) };
            }
        };
        for s in 0..ns {
            if required[s] {
                add_dist(&mut dist, s);
            }
        }
        let mut prev_rem_nodes = rem_nodes + 1;
        loop {
            if prev_rem_nodes == rem_nodes {
                break;
            }
            prev_rem_nodes = rem_nodes;
            let mut best_sw: Option<usize> = None;
            for s in 0..ns {
                if required[s] || level[s] != 0 {
                    continue;
                }
                let Some(b) = best_sw else {
                    if cnt[s] > 0 && dist[s] < INFINITE {
                        best_sw = Some(s);
                    }
                    continue;
                };
                if dist[s] == INFINITE || cnt[s] == 0 {
                    continue;
                }
                let (tcs, s_fit) = compare(s, b, rem_nodes, rem_cpus, &cnt, &sw_cpus, &level, &parent, v24);
                let closer = if v24 { s_fit } else { tcs >= 0 };
                if (dist[s] < dist[b] && closer) || (dist[s] == dist[b] && tcs > 0) {
                    best_sw = Some(s);
                }
            }
            let Some(b) = best_sw else { break };
            add_dist(&mut dist, b);
            for k in 0..sw[b].len() {
                if max_nodes <= 0 {
                    break;
                }
                let i = sw[b][k];
                if chosen[i] || avail[i] == 0 {
                    continue;
                }
                take!(i);
                if done(rem_nodes, rem_cpus) {
                    finished = true;
                    break;
                }
            }
            if finished {
                break;
            }
            if v24 {
                let c = cnt[b];
                decrement(&mut cnt, c, b);
            }
            cnt[b] = 0;
        }
        if !(finished || (min_rem_nodes <= 0 && rem_cpus <= 0)) {
            return None;
        }
    }
    if let Some(limit) = shape.switches.filter(|_| hold) {
        let leaves = (0..ns).filter(|&s| level[s] == 0 && t.nodes[s].iter().any(|&i| i < size && chosen[i])).count();
        if leaves as u64 > limit as u64 {
            return None;
        }
    }
    Some((0..size).filter(|&i| chosen[i]).collect())
}

/// `_topo_compare_switches`: 1 when leaf `i` fits better than `j`, -1 when
/// worse, 0 when alike; and whether `i` (or the ancestor compared) fits.
/// Neither fitting, their parents are compared (22.05 takes a top switch's
/// parent to be switch 0, as its zeroed table does).
#[allow(clippy::too_many_arguments)]
fn compare(
    mut i: usize,
    mut j: usize,
    rem_nodes: i64,
    rem_cpus: i64,
    cnt: &[i64],
    cpus: &[i64],
    level: &[u32],
    parent: &[Option<usize>],
    v24: bool,
) -> (i32, bool) {
    let mut i_fit_out;
    let mut guard = 0;
    loop {
        let fit = |s: usize| cnt[s] >= rem_nodes && (!v24 || cpus[s] >= rem_cpus);
        let (i_fit, j_fit) = (fit(i), fit(j));
        i_fit_out = i_fit;
        if i_fit && j_fit {
            if cnt[i] < cnt[j] {
                return (1, i_fit_out);
            }
            if cnt[i] > cnt[j] {
                return (-1, i_fit_out);
            }
            break;
        } else if i_fit {
            return (1, i_fit_out);
        } else if j_fit {
            return (-1, i_fit_out);
        }
        guard += 1;
        let (pi, pj) = if v24 {
            match (parent[i], parent[j]) {
                (Some(a), Some(b)) => (a, b),
                _ => break,
            }
        } else {
            (parent[i].unwrap_or(0), parent[j].unwrap_or(0))
        };
        if (pi != i || pj != j) && pi != pj && guard < 64 {
            i = pi;
            j = pj;
            continue;
        }
        break;
    }
    let r = if cnt[i] > cnt[j] {
        1
    } else if cnt[i] < cnt[j] {
        -1
    } else if level[i] < level[j] {
        1
    } else if level[i] > level[j] {
        -1
    } else {
        0
    };
    (r, i_fit_out)
}
