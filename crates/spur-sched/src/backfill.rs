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

use crate::{job_candidates, place, shape_of, take_allocs, Cands, Decision, Free};
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
}

impl Default for BackfillParams {
    fn default() -> Self {
        BackfillParams { window: 1440 * 60, resolution: 60, max_job_test: 500, max_job_user: 0, interval: 30 }
    }
}

impl BackfillParams {
    /// Read from slurm.conf's `SchedulerParameters` (comma-separated
    /// `key=value` and flags, keys case-insensitive). A value that does not
    /// read, or is out of Slurm's range, leaves that key at its default, as
    /// slurmctld does after logging it.
    pub fn from_scheduler_parameters(text: Option<&str>) -> Self {
        let mut p = BackfillParams::default();
        for item in text.unwrap_or("").split(',') {
            let Some((k, v)) = item.split_once('=') else { continue };
            let n = v.trim().parse::<i64>().ok();
            match (k.trim().to_ascii_lowercase().as_str(), n) {
                // (slurmctld's ranges: window 1..=43200 minutes,
                // resolution 1..=3600 s, interval 1..=10800 s)
                ("bf_window", Some(m)) if (1..=43200).contains(&m) => p.window = m * 60,
                ("bf_resolution", Some(s)) if (1..=3600).contains(&s) => p.resolution = s,
                ("bf_interval", Some(s)) if (1..=10800).contains(&s) => p.interval = s,
                ("bf_max_job_test", Some(n)) if n >= 1 => p.max_job_test = n as usize,
                ("bf_max_job_user", Some(n)) if n >= 0 => p.max_job_user = n as usize,
                _ => {}
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
}

/// What the main phase leaves to the backfill phase.
pub(crate) struct MainPhase<'a> {
    pub now: i64,
    pub jobs: &'a [&'a Job],
    pub nodes: &'a [&'a Node],
    pub parts: &'a HashMap<&'a str, &'a Partition>,
    pub resvs: &'a [&'a Reservation],
    /// Each usable node's free resources after the main phase's starts.
    pub free: &'a HashMap<&'a str, Free>,
    pub started: &'a [Started],
}

/// Resources of one node coming back at `at`.
struct Release {
    at: i64,
    node: String,
    cpus: u32,
    mem: u64,
    gres: Vec<(String, Option<String>, u64)>,
}

fn releases_of(at: i64, allocs: &[NodeAlloc]) -> impl Iterator<Item = Release> + '_ {
    allocs.iter().map(move |a| Release {
        at,
        node: a.node.clone(),
        cpus: a.cpus,
        mem: a.mem_mb,
        gres: a.gres.iter().map(|g| (g.name.clone(), g.gtype.clone(), g.count)).collect(),
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

/// Nodes held for planned jobs: (start, end, nodes).
type Held = Vec<(i64, i64, HashSet<String>)>;

/// The earliest time within the window at which `shape` fits on
/// `candidates` for `dur` seconds, and the nodes it gets then.
#[allow(clippy::too_many_arguments)]
fn earliest(
    now: i64,
    horizon: i64,
    dur: i64,
    shape: &crate::Shape,
    candidates: &[&str],
    req: Option<&HashSet<String>>,
    base: &HashMap<&str, Free>,
    totals: &HashMap<&str, u32>,
    releases: &[Release],
    held: &Held,
) -> Option<(i64, Vec<NodeAlloc>)> {
    // the candidates' resources only, moved forward release by release
    let mut cur: HashMap<&str, Free> = candidates.iter().filter_map(|n| base.get(n).map(|f| (*n, f.clone()))).collect();
    let mut i = 0;
    let mut t = now;
    loop {
        while i < releases.len() && releases[i].at <= t {
            let r = &releases[i];
            if let Some(f) = cur.get_mut(r.node.as_str()) {
                f.cpus += r.cpus;
                f.mem += r.mem;
                for (name, ty, n) in &r.gres {
                    if let Some(g) = f.gres.iter_mut().find(|g| &g.0 == name && &g.1 == ty) {
                        g.2 += n;
                    }
                }
                f.whole = totals.get(r.node.as_str()).is_some_and(|c| f.cpus >= *c);
            }
            i += 1;
        }
        let end = t.saturating_add(dur);
        let blocked: HashSet<&str> = held
            .iter()
            .filter(|(s, e, _)| *s < end && *e > t)
            .flat_map(|(_, _, n)| n.iter().map(|x| x.as_str()))
            .collect();
        let usable: Vec<&str> = if blocked.is_empty() {
            candidates.to_vec()
        } else {
            candidates.iter().copied().filter(|n| !blocked.contains(n)).collect()
        };
        // as slurmctld's will-run test: the resources in use now first (so
        // a later start goes where there is room now, measured on 22.05: a
        // job planned behind a held window took the node with free CPUs,
        // not the first idle one), then with what came back by `t`
        if i > 0 && t > now {
            if let Some(a) = place(shape, &usable, base, req) {
                return Some((t, a));
            }
        }
        if let Some(a) = place(shape, &usable, &cur, req) {
            return Some((t, a));
        }
        // the next moment something comes back: a release, or the end of a
        // window held for a planned job
        let next_release = releases.get(i).map(|r| r.at);
        let next_free = held.iter().map(|h| h.1).filter(|e| *e > t).min();
        let next = match (next_release, next_free) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        if next > horizon {
            return None;
        }
        t = next;
    }
}

/// The backfill phase: decisions appended to `out` (starts marked
/// `backfill`, and plans).
pub(crate) fn run(
    m: &MainPhase,
    bf: &BackfillParams,
    waiting: &[&Job],
    running_tasks: &HashMap<u32, u32>,
    out: &mut Vec<Decision>,
) {
    let now = m.now;
    let horizon = now.saturating_add(bf.window);
    let grain = bf.resolution.max(1);
    let totals: HashMap<&str, u32> = m.nodes.iter().map(|n| (n.name.as_str(), n.cpus)).collect();
    let mut releases: Vec<Release> = Vec::new();
    for j in m.jobs.iter().filter(|j| j.state.is_active() && !j.allocs.is_empty()) {
        if let Some(end) = running_end(j, now) {
            releases.extend(releases_of(end, &j.allocs));
        }
    }
    for s in m.started {
        if let Some(l) = s.limit {
            releases.extend(releases_of(now.saturating_add(l as i64 * 60), &s.allocs));
        }
    }
    releases.sort_by_key(|r| r.at);
    let started: HashSet<(u32, Option<u32>)> = m.started.iter().map(|s| (s.job_id, s.task)).collect();
    let mut base: HashMap<&str, Free> = m.free.clone();
    let mut held: Held = Vec::new();
    let mut running_tasks = running_tasks.clone();
    let mut per_user: HashMap<u32, usize> = HashMap::new();
    let mut tested = 0usize;
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
        let Ok(Cands { candidates, req, .. }) = job_candidates(job, part, m.resvs, now) else { continue };
        let shape = shape_of(job);
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
            // (a fault in placing one job leaves it to the next pass)
            let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                earliest(now, horizon, dur, &shape, &candidates, req.as_ref(), &base, &totals, &releases, &held)
            }))
            .ok()
            .flatten();
            match found {
                Some((t, allocs)) if t <= now => {
                    take_allocs(&mut base, &allocs);
                    if job.time_limit.is_some() {
                        let at = now.saturating_add(dur);
                        let pos = releases.partition_point(|r| r.at <= at);
                        let new: Vec<Release> = releases_of(at, &allocs).collect();
                        releases.splice(pos..pos, new);
                    }
                    if let Some(a) = &job.array {
                        *running_tasks.entry(a.array_job_id).or_default() += 1;
                    }
                    out.push(Decision::Start { job_id: job.job_id, task, allocs, backfill: true });
                }
                Some((t, allocs)) => {
                    let nodes: Vec<String> = allocs.into_iter().map(|a| a.node).collect();
                    let (s, e) = held_window(t, dur, grain);
                    held.push((s, e, nodes.iter().cloned().collect()));
                    out.push(Decision::Plan { job_id: job.job_id, start_time: t, nodes });
                    break;
                }
                None => break,
            }
        }
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
        assert_eq!(p, BackfillParams { window: 3600, resolution: 30, max_job_test: 10, max_job_user: 2, interval: 1 });
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
