//! The backfill phase (`SchedulerType=sched/backfill`): after the main phase,
//! the jobs left waiting for resources or behind a blocked job are taken in
//! priority order, and each gets the earliest time at which it fits, on a
//! plan of the cluster over time:
//!
//! - resources come back when running jobs reach their time limit (a
//!   completing job's at once, a job without a limit's never);
//! - a job that fits now starts now, so long as it ends before the planned
//!   start of every higher-priority job on the nodes it takes;
//! - a job that fits later is planned there: its nodes are held for it from
//!   its expected start to its expected end, so no lower-priority job may
//!   use them in that window (as Slurm's backfill holds the nodes of its
//!   reservations), and its expected start and nodes are reported
//!   (`StartTime=`, `SchedNodeList=`, `squeue --start`);
//! - a job that fits nowhere within `bf_window` gets no plan.
//!
//! Like Slurm's, the plan is rebuilt from scratch each pass; it is not state.
//! Reasons are the main phase's (the top job `Resources`, the jobs behind it
//! `Priority`), as slurmctld leaves them.

use crate::{avail_cpus, give_gres, job_candidates, place, shape_of, Cands, Decision, Free, FreeOf, Need, Table};
use spur_core::model::{Job, JobState, Minutes, Node, NodeAlloc, Partition, Reservation};
use std::collections::{HashMap, HashSet};

/// A job without a time limit is planned over a year, as slurmctld does.
const YEAR: i64 = 365 * 24 * 3600;

/// `SchedulerParameters` of the backfill scheduler that Spur acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackfillParams {
    /// `bf_window` (minutes in slurm.conf; here seconds): how far ahead a job
    /// is planned. Default one day.
    pub window: i64,
    /// `bf_resolution` (seconds): the plan's grain; the window held for a
    /// planned job starts and ends on it (rounded down, at least one grain
    /// long, as slurmctld's). Default 60.
    pub resolution: i64,
    /// `bf_max_job_test`: how many waiting jobs one pass looks at. Default 500.
    pub max_job_test: usize,
    /// `bf_max_job_user`: how many of one user's jobs one pass looks at (0:
    /// no limit, the default).
    pub max_job_user: usize,
    /// `bf_interval` (seconds): how often the controller runs the phase when
    /// nothing changed. Default 30.
    pub interval: i64,
    /// `SchedulerType=sched/builtin`: the phase starts nothing and only
    /// estimates start times, as sched/builtin's agent does
    /// ([`BackfillParams::builtin`]).
    pub builtin: bool,
}

impl Default for BackfillParams {
    fn default() -> Self {
        BackfillParams {
            window: 1440 * 60,
            resolution: 60,
            max_job_test: 500,
            max_job_user: 0,
            interval: 30,
            builtin: false,
        }
    }
}

impl BackfillParams {
    /// Read from slurm.conf's `SchedulerParameters` as slurmctld reads them
    /// ([`spur_core::config::scheduler_param`]). A value out of Slurm's range
    /// (or one that does not read: atoi's 0) leaves that key at its default,
    /// as slurmctld does after logging it.
    pub fn from_scheduler_parameters(text: Option<&str>) -> Self {
        let mut p = BackfillParams::default();
        let Some(text) = text else { return p };
        let get = |key: &str| spur_core::config::scheduler_param(text, key);
        // (slurmctld's ranges: window 1..=43200 minutes, resolution
        // 1..=3600 s, interval 1..=10800 s)
        if let Some(m) = get("bf_window").filter(|m| (1..=43200).contains(m)) {
            p.window = m * 60;
        }
        if let Some(s) = get("bf_resolution").filter(|s| (1..=3600).contains(s)) {
            p.resolution = s;
        }
        if let Some(s) = get("bf_interval").filter(|s| (1..=10800).contains(s)) {
            p.interval = s;
        }
        if let Some(n) = get("bf_max_job_test").filter(|n| *n >= 1) {
            p.max_job_test = n as usize;
        }
        if let Some(n) = get("bf_max_job_user").filter(|n| *n >= 0) {
            p.max_job_user = n as usize;
        }
        p
    }

    /// `SchedulerType=sched/builtin`: every `interval=` seconds (30 by
    /// default) its agent estimates the start of the first 50 waiting jobs
    /// (`max_job_bf=` or `bf_max_job_test=`) in priority order, each from
    /// the running jobs' ends alone (a will-run test: no window, no room
    /// held for the jobs before it), then no earlier than the expected end
    /// of the job estimated before it when their nodes overlap. Its keys
    /// are found anywhere in `SchedulerParameters`, as sched/builtin's
    /// `xstrcasestr` finds them (`bf_interval=` sets `interval=` too).
    pub fn builtin(text: Option<&str>) -> Self {
        let find = |key: &str| -> Option<i64> {
            let t = text?.to_ascii_lowercase();
            let at = t.find(key)?;
            Some(i64::from(spur_grammar::num::atoi(&t[at + key.len()..])))
        };
        let mut p = BackfillParams {
            window: YEAR * 10,
            resolution: 1,
            max_job_test: 50,
            max_job_user: 0,
            interval: 30,
            builtin: true,
        };
        if let Some(i) = find("interval=").filter(|i| *i >= 1) {
            p.interval = i;
        }
        for key in ["max_job_bf=", "bf_max_job_test="] {
            if let Some(n) = find(key).filter(|n| *n >= 1) {
                p.max_job_test = n as usize;
            }
        }
        p
    }
}

/// A job (or array task) the main phase started in this pass.
#[derive(Clone, Debug)]
pub(crate) struct Started {
    pub job_id: u32,
    pub task: Option<u32>,
    pub limit: Option<Minutes>,
    pub allocs: Vec<NodeAlloc>,
    /// Its CPUs may be shared (partition `OverSubscribe`).
    pub shared: bool,
}

/// What the main phase leaves to the backfill phase.
pub(crate) struct MainPhase<'a> {
    pub now: i64,
    pub jobs: &'a [&'a Job],
    pub nodes: &'a [&'a Node],
    pub parts: &'a HashMap<&'a str, &'a Partition>,
    /// Each partition's nodes by index (filled as needed).
    pub part_nodes: &'a mut HashMap<&'a str, Vec<usize>>,
    pub resvs: &'a [&'a Reservation],
    /// Each usable node's free resources after the main phase's starts.
    pub free: &'a Table<'a>,
    pub started: &'a [Started],
    /// The QOS limits and the running jobs they count (after the main
    /// phase's starts).
    pub qos: Option<(&'a crate::qos::QosPolicy, &'a mut crate::qos::QosUsage)>,
}

/// Resources of one node coming back at `at`.
struct Release {
    at: i64,
    /// The node's place in the node table; `usize::MAX` for a node not
    /// known.
    index: usize,
    cpus: u32,
    mem: u64,
    /// (the kinds it is of, count)
    gres: Vec<(Vec<u32>, u64)>,
    /// The CPUs were shared (partition `OverSubscribe`).
    shared: bool,
}

fn releases_of<'r>(at: i64, allocs: &'r [NodeAlloc], t: &'r Table, shared: bool) -> impl Iterator<Item = Release> + 'r {
    allocs.iter().map(move |a| Release {
        at,
        shared,
        index: t.index.get(a.node.as_str()).copied().unwrap_or(usize::MAX),
        cpus: a.cpus,
        mem: a.mem_mb,
        gres: a.gres.iter().map(|g| (t.kinds.matching(&g.name, &g.gtype), g.count)).collect(),
    })
}

/// `t` rounded down to the plan's grain (a multiple of it since the epoch).
fn round_down(t: i64, grain: i64) -> i64 {
    if grain <= 1 {
        return t;
    }
    t.div_euclid(grain) * grain
}

/// The window held for a job planned at `start` for `dur` seconds: on the
/// grain, rounded down, at least one grain long (slurmctld's
/// `_add_reservation`; so the next job may be planned up to a grain before
/// this one's expected end, as on Slurm).
fn held_window(start: i64, dur: i64, grain: i64) -> (i64, i64) {
    let s = round_down(start, grain);
    let e = round_down(start.saturating_add(dur), grain);
    (s, e.max(s.saturating_add(grain)))
}

/// When a running job's resources come back: its time limit's end (a job
/// past it, any moment now), at once for a completing job; `None`: never
/// (no limit, or suspended).
fn running_end(j: &Job, now: i64) -> Option<i64> {
    match j.state {
        JobState::Completing => Some(now + 1),
        JobState::Running => {
            let end = if j.end_time > 0 { j.end_time } else { j.start_time.saturating_add(j.time_limit? as i64 * 60) };
            j.time_limit?;
            Some(end.max(now + 1))
        }
        _ => None,
    }
}

/// The free resources at some time: what came back by then (`changed`, at
/// `slot[i]` for node `i`, `u32::MAX` for none) over the table.
struct Overlay<'m, 'a> {
    base: &'m Table<'a>,
    slot: &'m [u32],
    changed: &'m [Free],
}

impl FreeOf for Overlay<'_, '_> {
    fn free_at(&self, i: usize) -> Option<&Free> {
        match self.slot.get(i) {
            Some(&k) if k != u32::MAX => self.changed.get(k as usize),
            _ => self.base.free_at(i),
        }
    }
    fn name_at(&self, i: usize) -> &str {
        self.base.name_at(i)
    }
    fn feats_at(&self, i: usize) -> &[String] {
        self.base.feats_at(i)
    }
    fn topo(&self) -> Option<(&crate::topo::TopoPass, bool)> {
        self.base.topo()
    }
}

/// Nodes held for planned jobs: (start, end, nodes by `Free::index`).
type Held = Vec<(i64, i64, Vec<usize>)>;

/// The earliest time within the window at which `shape` fits on
/// `candidates` for `dur` seconds, and the nodes it gets then.
///
/// Time moves from event to event: a release (resources come back), or the
/// end of a window held for a planned job. A full placement is tried only
/// when a count kept up to date at each event says it may succeed: enough
/// nodes free of every window overlapping `[t, t + dur)` that can take one
/// of its tasks, with task room for all of them. Each event touches only its
/// own nodes, so the cost of a job follows the events, not events × nodes.
#[allow(clippy::too_many_arguments)]
fn earliest(
    now: i64,
    horizon: i64,
    dur: i64,
    need: &Need,
    cands: &[usize],
    req: Option<&HashSet<String>>,
    base: &Table,
    totals: &[u32],
    releases: &[Release],
    held: &Held,
) -> Option<(i64, Vec<NodeAlloc>)> {
    let shape = need.shape;
    let cpt = shape.cpus_per_task.max(1);
    let need_nodes = shape.min_nodes.max(req.map(|r| r.len() as u32).unwrap_or(0)).max(1) as usize;
    let need_slots = shape.tasks as u64;
    let slots_of = |f: &Free| (avail_cpus(need, f) / cpt) as u64;
    // by node index: each candidate's task room at `t` (NONE: not a usable
    // candidate), and how many held windows overlapping [t, t + dur) cover
    // it; the counts are over the uncovered ones
    const NONE: u64 = u64::MAX;
    let n = totals.len();
    let mut slots: Vec<u64> = vec![NONE; n];
    let (mut ok_nodes, mut ok_slots) = (0usize, 0u64);
    for &i in cands {
        if let Some(f) = base.free_at(i) {
            let s = slots_of(f);
            slots[i] = s;
            ok_nodes += usize::from(s > 0);
            ok_slots += s;
        }
    }
    let mut covered: Vec<u32> = vec![0; n];
    // what came back so far, on the nodes it came back to
    let mut slot: Vec<u32> = Vec::new();
    let mut changed: Vec<Free> = Vec::new();
    // a window overlaps [t, t + dur) from t = start - dur + 1 until its end
    let mut enters: Vec<(i64, usize)> = held
        .iter()
        .enumerate()
        .filter(|(_, w)| w.1 > now)
        .map(|(i, w)| (w.0.saturating_sub(dur).saturating_add(1).max(now), i))
        .collect();
    enters.sort_unstable();
    let mut leaves: Vec<(i64, usize)> =
        held.iter().enumerate().filter(|(_, w)| w.1 > now).map(|(i, w)| (w.1, i)).collect();
    leaves.sort_unstable();
    let mut entered = vec![false; held.len()];
    let (mut ri, mut ei, mut li) = (0usize, 0usize, 0usize);
    let mut t = now;
    loop {
        while ei < enters.len() && enters[ei].0 <= t {
            let w = enters[ei].1;
            ei += 1;
            if held[w].1 <= t {
                continue;
            }
            entered[w] = true;
            for &i in &held[w].2 {
                let s = slots[i];
                if s != NONE {
                    if covered[i] == 0 && s > 0 {
                        ok_nodes -= 1;
                        ok_slots -= s;
                    }
                    covered[i] += 1;
                }
            }
        }
        while li < leaves.len() && leaves[li].0 <= t {
            let w = leaves[li].1;
            li += 1;
            if !std::mem::take(&mut entered[w]) {
                continue;
            }
            for &i in &held[w].2 {
                let s = slots[i];
                if s != NONE {
                    covered[i] -= 1;
                    if covered[i] == 0 && s > 0 {
                        ok_nodes += 1;
                        ok_slots += s;
                    }
                }
            }
        }
        while ri < releases.len() && releases[ri].at <= t {
            let r = &releases[ri];
            ri += 1;
            let i = r.index;
            let before = slots.get(i).copied().unwrap_or(NONE);
            if before == NONE {
                continue;
            }
            let Some(b) = base.free_at(i) else { continue };
            if slot.is_empty() {
                slot = vec![u32::MAX; n];
            }
            if slot[i] == u32::MAX {
                slot[i] = changed.len() as u32;
                changed.push(b.clone());
            }
            let f = &mut changed[slot[i] as usize];
            f.use_cpus(r.cpus, r.shared, false);
            f.mem += r.mem;
            for (of, c) in &r.gres {
                give_gres(&mut f.gres, of, *c);
            }
            f.whole = f.cpus >= totals[i];
            let after = slots_of(f);
            slots[i] = after;
            if covered[i] == 0 {
                ok_nodes = ok_nodes + usize::from(after > 0) - usize::from(before > 0);
                ok_slots = ok_slots + after - before;
            }
        }
        if ok_nodes >= need_nodes && ok_slots >= need_slots {
            let usable: Vec<usize> = cands.iter().copied().filter(|i| covered[*i] == 0).collect();
            // as slurmctld's will-run test: the resources in use now first
            // (so a later start goes where there is room now, measured on
            // 22.05: a job planned behind a held window took the node with
            // free CPUs, not the first idle one), then with what came back
            if !changed.is_empty() && t > now {
                if let Some(a) = place(need, &usable, base, req) {
                    return Some((t, a));
                }
            }
            let found = if changed.is_empty() {
                place(need, &usable, base, req)
            } else {
                place(need, &usable, &Overlay { base, slot: &slot, changed: &changed }, req)
            };
            if let Some(a) = found {
                return Some((t, a));
            }
        }
        // the next moment something comes back: a release, or the end of a
        // window held for a planned job
        let next = [releases.get(ri).map(|r| r.at), leaves.get(li).map(|l| l.0)].into_iter().flatten().min()?;
        if next > horizon {
            return None;
        }
        t = next.max(t + 1);
    }
}

/// The backfill phase: decisions appended to `out` (starts marked
/// `backfill`, and plans).
pub(crate) fn run(
    m: &mut MainPhase,
    bf: &BackfillParams,
    waiting: &[&Job],
    running_tasks: &HashMap<u32, u32>,
    out: &mut Vec<Decision>,
) {
    let now = m.now;
    let horizon = now.saturating_add(bf.window);
    let grain = bf.resolution.max(1);
    // by node index (the node table's order)
    let totals: Vec<u32> = m.nodes.iter().map(|n| n.cpus).collect();
    let mut base: Table = m.free.clone();
    let mut releases: Vec<Release> = Vec::new();
    for j in m.jobs.iter().filter(|j| j.state.is_active() && !j.allocs.is_empty()) {
        if let Some(end) = running_end(j, now) {
            let shared = m.parts.get(j.partition.as_str()).is_some_and(|p| crate::share_of(j, p).0 > 1);
            releases.extend(releases_of(end, &j.allocs, &base, shared));
        }
    }
    for s in m.started {
        if let Some(l) = s.limit {
            releases.extend(releases_of(now.saturating_add(l as i64 * 60), &s.allocs, &base, s.shared));
        }
    }
    releases.sort_by_key(|r| r.at);
    let started: HashSet<(u32, Option<u32>)> = m.started.iter().map(|s| (s.job_id, s.task)).collect();
    let mut held: Held = Vec::new();
    let mut running_tasks = running_tasks.clone();
    let mut per_user: HashMap<u32, usize> = HashMap::new();
    let mut tested = 0usize;
    let mut considered: Vec<u32> = Vec::new();
    // sched/builtin: the nodes of the jobs estimated so far, and the
    // expected end of the last one
    let mut estimated: HashSet<usize> = HashSet::new();
    let mut last_end = now - 1;
    for job in waiting {
        if tested >= bf.max_job_test {
            break;
        }
        if bf.max_job_user > 0 {
            let n = per_user.entry(job.user_id).or_default();
            if *n >= bf.max_job_user {
                continue;
            }
            *n += 1;
        }
        tested += 1;
        let Some(part) = m.parts.get(job.partition.as_str()) else { continue };
        if m.qos.as_ref().is_some_and(|(q, u)| u.blocks(q, job).is_some()) {
            continue;
        }
        considered.push(job.job_id);
        // (a partition with MaxCPUsPerNode is left to the main phase, which
        // keeps to the cap: this plan does not count its jobs' CPUs)
        if part.more.max_cpus_per_node.is_some() {
            continue;
        }
        let pn: &[usize] = m.part_nodes.entry(part.name.as_str()).or_insert_with(|| base.indexes(&part.nodes));
        let Ok(Cands { candidates, req, .. }) = job_candidates(job, pn, &base, m.resvs, now) else { continue };
        let mut shape = shape_of(job);
        shape.switches = base.topo.as_ref().and_then(|(t, _)| t.conf.switch_limit(job, now));
        (shape.share, shape.exclusive) = {
            let (share, whole) = crate::share_of(job, part);
            (share, shape.exclusive || whole)
        };
        let need = Need::new(&shape, &base.kinds);
        let dur = job.time_limit.map(|l| l as i64 * 60).unwrap_or(YEAR).max(1);
        let tasks: Vec<Option<u32>> = match &job.array {
            Some(a) if a.task_id.is_none() => a
                .pending_tasks
                .iter()
                .filter(|t| !started.contains(&(job.job_id, Some(**t))))
                .map(|t| Some(*t))
                .collect(),
            _ => vec![None],
        };
        for task in tasks {
            if let (Some(a), Some(_)) = (&job.array, task) {
                if a.max_running > 0 && running_tasks.get(&a.array_job_id).copied().unwrap_or(0) >= a.max_running {
                    break;
                }
            }
            if m.qos.as_ref().is_some_and(|(q, u)| u.blocks(q, job).is_some()) {
                break;
            }
            // (a fault in placing one job leaves it to the next pass)
            let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                earliest(now, horizon, dur, &need, &candidates, req.as_ref(), &base, &totals, &releases, &held)
            }))
            .ok()
            .flatten();
            match found {
                Some((t, allocs)) if bf.builtin => {
                    let at: Vec<usize> =
                        allocs.iter().filter_map(|a| base.index.get(a.node.as_str()).copied()).collect();
                    let mut start = t.max(now);
                    if start <= last_end && at.iter().any(|i| estimated.contains(i)) {
                        start = last_end;
                    }
                    estimated.extend(at);
                    last_end = start.saturating_add(dur);
                    // (sched/builtin sets the start alone, no node list)
                    out.push(Decision::Plan { job_id: job.job_id, start_time: start, nodes: vec![] });
                    break;
                }
                Some((t, allocs)) if t <= now => {
                    base.take_as(&allocs, shape.share > 1);
                    if job.time_limit.is_some() {
                        let at = now.saturating_add(dur);
                        let pos = releases.partition_point(|r| r.at <= at);
                        let new: Vec<Release> = releases_of(at, &allocs, &base, shape.share > 1).collect();
                        releases.splice(pos..pos, new);
                    }
                    if let Some(a) = &job.array {
                        *running_tasks.entry(a.array_job_id).or_default() += 1;
                    }
                    if let Some((q, u)) = m.qos.as_mut() {
                        u.started(q, job, &allocs);
                    }
                    out.push(Decision::Start { job_id: job.job_id, task, allocs, backfill: true });
                }
                Some((t, allocs)) => {
                    let at: Vec<usize> =
                        allocs.iter().filter_map(|a| base.index.get(a.node.as_str()).copied()).collect();
                    let nodes: Vec<String> = allocs.into_iter().map(|a| a.node).collect();
                    let (s, e) = held_window(t, dur, grain);
                    held.push((s, e, at));
                    out.push(Decision::Plan { job_id: job.job_id, start_time: t, nodes });
                    break;
                }
                None => break,
            }
        }
    }
    if !considered.is_empty() && !bf.builtin {
        out.push(Decision::Considered { job_ids: considered });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_as_slurmctld_reads_them() {
        let d = BackfillParams::default();
        assert_eq!(BackfillParams::from_scheduler_parameters(None), d);
        let p = BackfillParams::from_scheduler_parameters(Some(
            "bf_continue,BF_WINDOW=60,bf_resolution=30,bf_interval=1,bf_max_job_test=10,bf_max_job_user=2",
        ));
        assert_eq!(
            p,
            BackfillParams {
                window: 3600,
                resolution: 30,
                max_job_test: 10,
                max_job_user: 2,
                interval: 1,
                builtin: false
            }
        );
        // out of range or unreadable: the default
        let p = BackfillParams::from_scheduler_parameters(Some("bf_window=0,bf_resolution=x,bf_interval=99999"));
        assert_eq!(p, d);
    }

    #[test]
    fn windows_on_the_grain() {
        // measured on Slurm 22.05: a job planned at 07:05:28 for 10 minutes
        // lets the next one be planned at 07:15:00
        assert_eq!(held_window(1_028, 600, 60), (1_020, 1_620));
        assert_eq!(held_window(1_028, 10, 60), (1_020, 1_080));
        assert_eq!(held_window(1_028, 600, 1), (1_028, 1_628));
        assert_eq!(round_down(-30, 60), -60);
    }
}
