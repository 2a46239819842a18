//! Scheduling as a pure function: a snapshot of jobs, nodes and partitions in,
//! decisions out. No I/O, no locks, no clocks (the caller passes `now`).
//!
//! This first scheduler is priority first-fit per partition: pending jobs are
//! taken in order of partition PriorityTier, job priority, submit time and id;
//! each starts on the first nodes of its partition that have enough free CPUs,
//! memory and GRES. The first job of a partition that cannot start blocks the
//! jobs behind it in that partition (reason `Resources` for it, `Priority` for
//! them), as Slurm's builtin scheduler does.

use spur_core::model::{GresAlloc, Job, JobState, Node, NodeAlloc, Partition, PartState, Reason};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Start `job_id` (or, for an array meta-record, its task `task`) on these nodes.
    Start { job_id: u32, task: Option<u32>, allocs: Vec<NodeAlloc> },
    /// Set a pending job's reason.
    Reason { job_id: u32, reason: Reason },
}

/// Free resources of one node during a pass.
#[derive(Clone, Debug)]
struct Free {
    cpus: u32,
    mem: u64,
    gres: Vec<(String, Option<String>, u64)>,
    whole: bool,
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
}

/// Parse a job-side GRES request like `gpu:2`, `gpu:a100:1`, `gres/gpu:2`.
pub fn parse_gres_req(s: &str) -> Vec<(String, Option<String>, u64)> {
    let mut out = vec![];
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let part = part.strip_prefix("gres/").unwrap_or(part);
        let f: Vec<&str> = part.split(':').collect();
        match f.len() {
            1 => out.push((f[0].to_string(), None, 1)),
            2 => match f[1].parse::<u64>() {
                Ok(n) => out.push((f[0].to_string(), None, n)),
                Err(_) => out.push((f[0].to_string(), Some(f[1].to_string()), 1)),
            },
            _ => out.push((f[0].to_string(), Some(f[1].to_string()), f[2].parse().unwrap_or(1))),
        }
    }
    out
}

pub fn shape_of(job: &Job) -> Shape {
    let d = &job.desc;
    let cpt = d.cpus_per_task.unwrap_or(1).max(1);
    let tasks = job.num_tasks.max(1);
    Shape {
        min_nodes: job.num_nodes.max(1),
        nodes_fixed: d.min_nodes.is_some(),
        tasks,
        cpus_per_task: cpt,
        mem_per_node: d.mem_per_node.unwrap_or(0),
        mem_per_cpu: if d.mem_per_node.is_some() { 0 } else { job.mem_per_cpu },
        gres_per_node: d.gres.as_deref().map(parse_gres_req).unwrap_or_default(),
        exclusive: d.exclusive,
    }
}

fn dependency_state(dep: &str, jobs: &HashMap<u32, &Job>) -> Result<bool, ()> {
    // Ok(true) = satisfied, Ok(false) = wait, Err = can never be satisfied.
    let any = dep.contains('?');
    let mut all_ok = true;
    let mut any_ok = false;
    for term in dep.split(|c| c == ',' || c == '?').filter(|t| !t.is_empty()) {
        let (kind, ids) = match term.split_once(':') {
            Some((k, rest)) => (k, rest),
            None => (term, ""),
        };
        if kind == "singleton" {
            // handled by the caller
            continue;
        }
        for id in ids.split(':').filter(|i| !i.is_empty()) {
            let id = id.split('+').next().unwrap_or(id);
            let id: u32 = match id.split('_').next().and_then(|x| x.parse().ok()) {
                Some(v) => v,
                None => return Err(()),
            };
            let st = jobs.get(&id).map(|j| j.state);
            let ok = match (kind, st) {
                (_, None) => Ok(true),
                ("after", Some(s)) => Ok(s != JobState::Pending),
                ("afterany", Some(s)) => Ok(s.is_finished()),
                ("afterok", Some(s)) if s.is_finished() => {
                    if s == JobState::Completed { Ok(true) } else { Err(()) }
                }
                ("afternotok", Some(s)) if s.is_finished() => {
                    if s != JobState::Completed { Ok(true) } else { Err(()) }
                }
                ("aftercorr", Some(s)) => Ok(s.is_finished()),
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
    }
    Ok(if any { any_ok || all_ok } else { all_ok })
}

/// One scheduling pass.
pub fn schedule(now: i64, jobs: &[&Job], nodes: &[&Node], parts: &[&Partition]) -> Vec<Decision> {
    let mut out = Vec::new();
    let by_id: HashMap<u32, &Job> = jobs.iter().map(|j| (j.job_id, *j)).collect();
    let mut free: HashMap<&str, Free> = HashMap::new();
    for n in nodes {
        if !n.is_usable() {
            continue;
        }
        let mut gres = n.gres.clone();
        for (name, ty, used) in &n.alloc_gres {
            if let Some(g) = gres.iter_mut().find(|g| &g.0 == name && (&g.1 == ty || ty.is_none())) {
                g.2 = g.2.saturating_sub(*used);
            }
        }
        free.insert(
            n.name.as_str(),
            Free {
                cpus: n.cpus.saturating_sub(n.alloc_cpus),
                mem: n.real_memory.saturating_sub(n.alloc_mem),
                gres,
                whole: n.alloc_cpus == 0,
            },
        );
    }
    let part_by_name: HashMap<&str, &Partition> = parts.iter().map(|p| (p.name.as_str(), *p)).collect();
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
    for job in pending {
        let set_reason = |out: &mut Vec<Decision>, r: Reason| {
            if job.reason != r {
                out.push(Decision::Reason { job_id: job.job_id, reason: r });
            }
        };
        if let Some(h) = &job.held {
            set_reason(&mut out, h.clone());
            continue;
        }
        if job.desc.begin_time > now {
            set_reason(&mut out, Reason::BeginTime);
            continue;
        }
        if let Some(dep) = job.desc.dependency.as_deref().filter(|d| !d.is_empty()) {
            match dependency_state(dep, &by_id) {
                Ok(true) => {}
                Ok(false) => {
                    set_reason(&mut out, Reason::Dependency);
                    continue;
                }
                Err(()) => {
                    set_reason(&mut out, Reason::DependencyNeverSatisfied);
                    continue;
                }
            }
            if dep.split(',').any(|t| t == "singleton")
                && singleton_busy.contains(&(job.user_id, job.desc.name.clone()))
            {
                set_reason(&mut out, Reason::Dependency);
                continue;
            }
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
        let shape = shape_of(job);
        if shape.min_nodes as usize > part.nodes.len()
            || part.max_nodes.map(|m| shape.min_nodes > m).unwrap_or(false)
        {
            set_reason(&mut out, Reason::PartitionNodeLimit);
            continue;
        }
        if let (Some(lim), Some(max)) = (job.time_limit, part.max_time) {
            if lim > max {
                set_reason(&mut out, Reason::PartitionTimeLimit);
                continue;
            }
        }
        if blocked_parts.contains(part.name.as_str()) {
            set_reason(&mut out, Reason::Priority);
            continue;
        }
        let tasks: Vec<Option<u32>> = match &job.array {
            Some(a) if a.task_id.is_none() => a.pending_tasks.iter().map(|t| Some(*t)).collect(),
            _ => vec![None],
        };
        let req: Option<HashSet<String>> = job
            .desc
            .req_nodes
            .as_deref()
            .and_then(|r| spur_core::hostlist::expand(r).ok())
            .map(|v| v.into_iter().collect());
        let exc: HashSet<String> = job
            .desc
            .exc_nodes
            .as_deref()
            .and_then(|r| spur_core::hostlist::expand(r).ok())
            .map(|v| v.into_iter().collect())
            .unwrap_or_default();
        let candidates: Vec<&str> = part
            .nodes
            .iter()
            .map(|s| s.as_str())
            .filter(|n| !exc.contains(*n))
            .filter(|n| req.as_ref().map(|r| r.contains(*n)).unwrap_or(true))
            .collect();
        let mut started_any = false;
        for task in tasks {
            if let (Some(a), Some(_)) = (&job.array, task) {
                let running = running_tasks.get(&a.array_job_id).copied().unwrap_or(0);
                if a.max_running > 0 && running >= a.max_running {
                    if !started_any {
                        set_reason(&mut out, Reason::JobArrayTaskLimit);
                    }
                    break;
                }
            }
            match place(&shape, &candidates, &free, req.as_ref()) {
                Some(allocs) => {
                    for a in &allocs {
                        if let Some(f) = free.get_mut(a.node.as_str()) {
                            f.cpus -= a.cpus;
                            f.mem = f.mem.saturating_sub(a.mem_mb);
                            f.whole = false;
                            for g in &a.gres {
                                if let Some(fg) =
                                    f.gres.iter_mut().find(|x| x.0 == g.name && (g.gtype.is_none() || x.1 == g.gtype))
                                {
                                    fg.2 = fg.2.saturating_sub(g.count);
                                }
                            }
                        }
                    }
                    if let Some(a) = &job.array {
                        *running_tasks.entry(a.array_job_id).or_default() += 1;
                    }
                    singleton_busy.insert((job.user_id, job.desc.name.clone()));
                    out.push(Decision::Start { job_id: job.job_id, task, allocs });
                    started_any = true;
                }
                None => {
                    blocked_parts.insert(part.name.as_str());
                    if !started_any {
                        set_reason(&mut out, Reason::Resources);
                    }
                    break;
                }
            }
        }
    }
    out
}

/// Choose nodes for one job: first fit in partition order.
fn place(
    shape: &Shape,
    candidates: &[&str],
    free: &HashMap<&str, Free>,
    required: Option<&HashSet<String>>,
) -> Option<Vec<NodeAlloc>> {
    let cpt = shape.cpus_per_task;
    let mut allocs: Vec<NodeAlloc> = Vec::new();
    let mut tasks_left = shape.tasks;
    let want_nodes = shape.min_nodes.max(required.map(|r| r.len() as u32).unwrap_or(0));
    let fits_extra = |f: &Free, cpus: u32| -> bool {
        if shape.exclusive && !f.whole {
            return false;
        }
        let mem = if shape.mem_per_node > 0 { shape.mem_per_node } else { shape.mem_per_cpu * cpus as u64 };
        if mem > f.mem {
            return false;
        }
        shape.gres_per_node.iter().all(|(name, ty, cnt)| {
            f.gres.iter().filter(|g| &g.0 == name && (ty.is_none() || &g.1 == ty)).map(|g| g.2).sum::<u64>() >= *cnt
        })
    };
    for (i, name) in candidates.iter().enumerate() {
        let f = match free.get(name) {
            Some(f) => f,
            None => continue,
        };
        let nodes_after = want_nodes.saturating_sub(allocs.len() as u32 + 1);
        // tasks that must still be left for the remaining required nodes (one each)
        let max_tasks_here = tasks_left.saturating_sub(nodes_after);
        if max_tasks_here == 0 && nodes_after == 0 && allocs.len() as u32 >= want_nodes {
            break;
        }
        let fit_tasks = (f.cpus / cpt).min(max_tasks_here.max(1));
        if fit_tasks == 0 {
            continue;
        }
        // with a fixed node count, spread tasks evenly like Slurm's block layout
        let mut take = fit_tasks;
        if shape.nodes_fixed && want_nodes > 0 {
            let remaining_nodes = want_nodes - allocs.len() as u32;
            let even = (tasks_left + remaining_nodes - 1) / remaining_nodes;
            take = take.min(even.max(1));
        }
        let cpus = if shape.exclusive { f.cpus } else { take * cpt };
        if !fits_extra(f, cpus) {
            continue;
        }
        let mem = if shape.mem_per_node > 0 { shape.mem_per_node } else { shape.mem_per_cpu * cpus as u64 };
        let gres = shape
            .gres_per_node
            .iter()
            .map(|(n, t, c)| GresAlloc { name: n.clone(), gtype: t.clone(), count: *c, indexes: vec![] })
            .collect();
        allocs.push(NodeAlloc { node: name.to_string(), cpus, mem_mb: mem, gres });
        tasks_left = tasks_left.saturating_sub(take);
        let _ = i;
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
