//! Job steps (`srun`): [`State::step_create`] lays a step out on its job's
//! nodes, from the CPUs and memory the job's other steps leave free, as
//! slurmctld's step manager does for `select/cons_tres`:
//!
//! - The nodes: the job's, in allocation order, after `--relative` and
//!   `--exclude`; `--nodelist` nodes first. Their number is `-N` when given,
//!   else as few as the tasks need (all of them when no task count is given
//!   either: one task per node).
//! - Without `--exact` a step holds every CPU of the job on each of its
//!   nodes (and the job's memory there), so a second step that does not
//!   `--overlap` waits until it ends (`ESLURM_NODES_BUSY`: srun's "step
//!   creation temporarily disabled, retrying"); with `--exact` it holds its
//!   tasks' CPUs only. An `--overlap` step holds nothing and shares all.
//! - Tasks per node: `--ntasks-per-node`, else spread evenly over the nodes
//!   (the first nodes take the remainder), no node above its free CPUs /
//!   `-c` unless `--overcommit`; the global task ids by `--distribution`
//!   (block, cyclic, plane=N).
//! - `--distribution=arbitrary` (`SLURM_HOSTFILE`; from format version 5,
//!   [`ARBITRARY_VERSION`]): the node list names each task's node in task
//!   order (task i on the list's i-th name, a node as often as it has tasks);
//!   the step's nodes are those named, in allocation order. Before version 5
//!   it is laid out as block, as the builds before it did.
//!
//! A request that the job could never hold, even with no other step running,
//! is refused for good (`ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE`,
//! `ESLURM_TOO_MANY_REQUESTED_CPUS`, `ESLURM_INVALID_NODE_COUNT`); one that
//! only other steps are in the way of is `ESLURM_NODES_BUSY`.

use crate::{ApplyResult, State, ARBITRARY_VERSION, STEPS_VERSION, STEP_USAGE_VERSION};
use spur_core::errors::*;
use spur_core::model::*;
use spur_core::request::StepRequest;
use spur_core::usage::NodeUsage;

/// At most this many tasks of a step on one node (Slurm's
/// `MaxTasksPerNode` default): `--overcommit` asks for any number.
pub const MAX_TASKS_PER_NODE: u32 = 512;

/// What the job holds on one node and what its steps leave free.
struct Slot<'a> {
    alloc: &'a NodeAlloc,
    free_cpus: u32,
    free_mem: u64,
}

impl State {
    pub(crate) fn step_create(&mut self, req: &StepRequest, now: i64) -> ApplyResult {
        if self.write_format_version() < STEPS_VERSION {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        let job = self.jobs.get(&req.job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        match job.state {
            JobState::Running => {}
            JobState::Pending => return Err(ESLURM_JOB_PENDING),
            JobState::Suspended => return Err(ESLURM_DISABLED),
            _ => return Err(ESLURM_ALREADY_DONE),
        }
        // (request ids are written from version 5: before, every member
        // must see none, whatever the leader was given)
        let request_id = req.request_id.clone().filter(|_| self.write_format_version() >= crate::SPECIAL_STEPS_VERSION);
        if let Some(r) = request_id.as_ref() {
            // a retry (the first reply was lost): the step the first made
            if let Some(s) = job.steps.iter().find(|s| s.request_id.as_ref() == Some(r)) {
                return Ok(crate::Applied::StepCreated(s.step_id));
            }
        }
        if req.interactive {
            if self.write_format_version() < crate::SPECIAL_STEPS_VERSION {
                return Err(ESLURM_NOT_SUPPORTED);
            }
            if job.steps.iter().any(|s| s.step_id == INTERACTIVE_STEP) {
                // slurmctld makes one per job and refuses a second
                return Err(ESLURM_DISABLED);
            }
            let mut step = interactive_step(job, req, now)?;
            step.request_id = request_id;
            if let Some(j) = self.jobs.get_mut(&req.job_id) {
                j.steps.push(step);
            }
            return Ok(crate::Applied::StepCreated(INTERACTIVE_STEP));
        }
        let mut step = layout(job, req, now, self.write_format_version())?;
        step.request_id = request_id;
        if let Some(range) = req.resv_port_range.filter(|_| self.write_format_version() >= crate::RESV_PORTS_VERSION) {
            step.resv_ports = self.reserve_ports(&step, range)?;
        }
        let id = step.step_id;
        if let Some(j) = self.jobs.get_mut(&req.job_id) {
            j.next_step_id = j.next_step_id.saturating_add(1);
            j.steps.push(step);
        }
        Ok(crate::Applied::StepCreated(id))
    }

    /// `MpiParams=ports=`: as slurmctld reserves them, one port more than
    /// the step's most tasks on a node, none of them held by a running step
    /// on any of its nodes (the lowest free ones: slurmctld goes round the
    /// range from the last it gave), written as Slurm writes them
    /// (`12000-12002`, `12000,12005-12006`). Too few in the range at all:
    /// ESLURM_PORTS_INVALID; too few free: ESLURM_PORTS_BUSY.
    fn reserve_ports(&self, step: &Step, (lo, hi): (u16, u16)) -> Result<String, i32> {
        let want = step.tasks_per_node.iter().copied().max().unwrap_or(0) as usize + 1;
        if want > (hi - lo) as usize + 1 {
            return Err(ESLURM_PORTS_INVALID);
        }
        let mine: std::collections::HashSet<&str> = step.allocs.iter().map(|a| a.node.as_str()).collect();
        let mut held = std::collections::HashSet::new();
        for j in self.jobs.values() {
            for s in j.steps.iter().filter(|s| !s.resv_ports.is_empty()) {
                if s.allocs.iter().any(|a| mine.contains(a.node.as_str())) {
                    held.extend(ports_of(&s.resv_ports));
                }
            }
        }
        let ports: Vec<u16> = (lo..=hi).filter(|p| !held.contains(p)).take(want).collect();
        if ports.len() < want {
            return Err(ESLURM_PORTS_BUSY);
        }
        Ok(ranged(&ports))
    }

    /// The step ends: its CPUs and memory are free. From format version 5
    /// its record moves to the job's `done_steps` (with the use reported so
    /// far, later reports still finding it there), with its end time and
    /// exit status.
    pub(crate) fn step_complete(&mut self, job_id: u32, step_id: u32, exit: Option<i32>, now: i64) -> ApplyResult {
        let keep = self.write_format_version() >= STEP_USAGE_VERSION;
        let job = self.jobs.get_mut(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        let i = job.steps.iter().position(|s| s.step_id == step_id).ok_or(ESLURM_ALREADY_DONE)?;
        let mut step = job.steps.remove(i);
        if keep {
            step.end_time = now;
            step.exit_status = exit;
            job.done_steps.push(step);
        }
        Ok(crate::Applied::Ok)
    }

    /// One node's report of what a step used there: kept in the step's
    /// record, running or ended (a second report of a node replaces its
    /// first). A node that is not the step's is refused.
    pub(crate) fn step_usage(&mut self, job_id: u32, step_id: u32, usage: &NodeUsage) -> ApplyResult {
        if self.write_format_version() < STEP_USAGE_VERSION {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        let job = self.jobs.get_mut(&job_id).ok_or(ESLURM_INVALID_JOB_ID)?;
        if step_id == BATCH_STEP {
            // the batch script's, reported with the job's end by its host
            if job.batch_flag == 0 || job.allocs.first().map(|a| a.node.as_str()) != Some(usage.node.as_str()) {
                return Err(ESLURM_INVALID_NODE_NAME);
            }
            job.batch_usage = Some(usage.clone());
            return Ok(crate::Applied::Ok);
        }
        let step = job
            .steps
            .iter_mut()
            .chain(job.done_steps.iter_mut())
            .find(|s| s.step_id == step_id)
            .ok_or(ESLURM_INVALID_JOB_ID)?;
        if !step.allocs.iter().any(|a| a.node == usage.node) {
            return Err(ESLURM_INVALID_NODE_NAME);
        }
        match step.usage.iter_mut().find(|u| u.node == usage.node) {
            Some(u) => *u = usage.clone(),
            None => step.usage.push(usage.clone()),
        }
        Ok(crate::Applied::Ok)
    }
}

/// A job's `extern` step (`PrologFlags=Contain`): on every node of the job,
/// holding none of its CPUs or memory (`CPUs=0`, `TRES=(null)`), one task a
/// node, from the job's start to its end, for what joins the job from
/// outside (slurmstepd's job container).
pub fn extern_step(allocs: &[NodeAlloc], now: i64) -> Step {
    let n = allocs.len() as u32;
    Step {
        step_id: EXTERN_STEP,
        name: "extern".into(),
        start_time: now,
        allocs: allocs.iter().map(|a| NodeAlloc { node: a.node.clone(), ..Default::default() }).collect(),
        tasks_per_node: vec![1; allocs.len()],
        task_ids: (0..n).map(|i| vec![i]).collect(),
        num_tasks: n,
        cpus_per_task: 1,
        overlap: true,
        distribution: String::new(),
        mpi: "none".into(),
        ..Default::default()
    }
}

/// `srun --interactive`'s step: one task on the job's first node (its batch
/// host), with the job's CPUs there shared with every other step (it holds
/// none for itself), as slurmctld builds it whatever srun asked.
fn interactive_step(job: &Job, req: &StepRequest, now: i64) -> Result<Step, i32> {
    let a = job.allocs.first().ok_or(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE)?;
    Ok(Step {
        step_id: INTERACTIVE_STEP,
        name: "interactive".into(),
        start_time: now,
        time_limit: req.time_limit,
        allocs: vec![NodeAlloc { node: a.node.clone(), cpus: a.cpus, ..Default::default() }],
        tasks_per_node: vec![1],
        task_ids: vec![vec![0]],
        num_tasks: 1,
        cpus_per_task: a.cpus.max(1),
        overlap: true,
        distribution: "block".into(),
        srun_host: req.srun_host.clone(),
        srun_pid: req.srun_pid,
        submit_line: req.submit_line.clone(),
        work_dir: req.work_dir.clone(),
        mpi: if req.mpi.is_empty() { "none".into() } else { req.mpi.clone() },
        srun_addr: req.srun_addr.clone(),
        usage: Vec::new(),
        request_id: None,
        end_time: 0,
        exit_status: None,
        resv_ports: String::new(),
    })
}

/// The step `req` asks for in `job`, or why it cannot be created, as the
/// cluster's format `version` lays it out.
pub fn layout(job: &Job, req: &StepRequest, now: i64, version: u16) -> Result<Step, i32> {
    let cpt = req.cpus_per_task.max(1);
    // what every other step holds on each node
    let held = |node: &str| -> (u32, u64) {
        job.steps
            .iter()
            .filter(|s| !s.overlap)
            .flat_map(|s| s.allocs.iter())
            .filter(|a| a.node == node)
            .fold((0u32, 0u64), |(c, m), a| (c.saturating_add(a.cpus), m.saturating_add(a.mem_mb)))
    };
    let mut slots: Vec<Slot> = job
        .allocs
        .iter()
        .map(|a| {
            let (c, m) = if req.overlap { (0, 0) } else { held(&a.node) };
            Slot { alloc: a, free_cpus: a.cpus.saturating_sub(c), free_mem: a.mem_mb.saturating_sub(m) }
        })
        .collect();
    if let Some(r) = req.relative {
        if r as usize >= slots.len() {
            return Err(ESLURM_INVALID_NODE_COUNT);
        }
        slots.drain(..r as usize);
    }
    let names = |l: &Option<String>| -> Vec<String> {
        l.as_deref().map(|s| s.split(',').filter(|n| !n.is_empty()).map(String::from).collect()).unwrap_or_default()
    };
    let excluded = names(&req.exclude);
    slots.retain(|s| !excluded.contains(&s.alloc.node));
    let required = names(&req.node_list);
    if req.distribution == "arbitrary" && version >= ARBITRARY_VERSION {
        return arbitrary(job, req, now, &slots, &required, cpt);
    }
    for n in &required {
        if !slots.iter().any(|s| &s.alloc.node == n) {
            return Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
        }
    }
    // required nodes first, the others in allocation order
    slots.sort_by_key(|s| !required.contains(&s.alloc.node));
    if slots.is_empty() {
        return Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    }
    let total = slots.len() as u32;
    // `-N n` is n nodes exactly; `-N min-max` a range
    let max_nodes = match (req.min_nodes, req.max_nodes) {
        (Some(min), Some(max)) => max.max(min),
        (Some(min), None) => min,
        (None, _) => u32::MAX,
    };
    if let Some(min) = req.min_nodes {
        if min == 0 || min > total {
            return Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
        }
    }
    if (required.len() as u32) > max_nodes {
        return Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    }
    // how many tasks a node can take (its whole share when nothing else ran)
    let cap = |cpus: u32| if req.overcommit { u32::MAX } else { cpus / cpt };
    let ntasks_given = req.num_tasks.filter(|&n| n > 0);
    if let Some(tpn) = req.ntasks_per_node.filter(|&n| n > 0) {
        if !req.overcommit && tpn.saturating_mul(cpt) > slots.iter().map(|s| s.alloc.cpus).max().unwrap_or(0) {
            return Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
        }
    }
    // the number of nodes
    let nnodes = match (req.min_nodes, ntasks_given, req.ntasks_per_node.filter(|&n| n > 0)) {
        (Some(min), _, _) => {
            // -N min-max: as many as are free up to max, at least min
            let free = slots.iter().filter(|s| s.free_cpus >= cpt || req.overlap || req.overcommit).count() as u32;
            free.max(min).min(max_nodes.min(total)).max(required.len() as u32)
        }
        (None, Some(n), Some(tpn)) => n.div_ceil(tpn).max(1).min(total),
        (None, Some(n), None) => {
            // as few nodes as hold the tasks (by the job's CPUs on each)
            let mut k = 0u32;
            let mut room = 0u64;
            for s in &slots {
                if room >= n as u64 && k as usize >= required.len() {
                    break;
                }
                room += cap(s.alloc.cpus).max(1) as u64;
                k += 1;
            }
            k.max(1)
        }
        (None, None, _) => total.min(max_nodes),
    };
    if nnodes > total {
        return Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    }
    let ntasks = match (ntasks_given, req.ntasks_per_node.filter(|&n| n > 0)) {
        (Some(n), _) => n,
        (None, Some(tpn)) => tpn.saturating_mul(nnodes),
        (None, None) => nnodes,
    };
    if ntasks < nnodes {
        return Err(ESLURM_BAD_TASK_COUNT);
    }
    // could the job hold it at all (no other step running)?
    let whole: u64 = slots.iter().take(nnodes as usize).map(|s| cap(s.alloc.cpus) as u64).sum();
    // (more tasks than the step's nodes have CPUs for, with -N or not:
    // recorded/24.11/steps/28, srun_env/17 `srun -N1` in a `-N2 -n4` job)
    if (ntasks as u64) > whole {
        return Err(ESLURM_TOO_MANY_REQUESTED_CPUS);
    }
    // choose the nodes: required ones, then those with room, in order
    let mut chosen: Vec<usize> = Vec::new();
    for (i, s) in slots.iter().enumerate() {
        if chosen.len() as u32 == nnodes {
            break;
        }
        let room = req.overlap || req.overcommit || s.free_cpus >= cpt;
        if required.contains(&s.alloc.node) {
            if !room {
                return Err(ESLURM_NODES_BUSY);
            }
            chosen.push(i);
        } else if room {
            chosen.push(i);
        }
    }
    if (chosen.len() as u32) < nnodes {
        return Err(ESLURM_NODES_BUSY);
    }
    // tasks per node: evenly, the remainder to the first nodes, within room
    let room: Vec<u32> = chosen
        .iter()
        .map(|&i| {
            let s = &slots[i];
            if req.overlap {
                cap(s.alloc.cpus)
            } else {
                cap(s.free_cpus)
            }
        })
        .collect();
    let mut per: Vec<u32> = match req.ntasks_per_node.filter(|&n| n > 0) {
        Some(tpn) => {
            let mut v = vec![0u32; chosen.len()];
            let mut left = ntasks;
            for x in v.iter_mut() {
                *x = tpn.min(left);
                left -= *x;
            }
            if left > 0 {
                return Err(ESLURM_BAD_TASK_COUNT);
            }
            v
        }
        None => {
            let n = chosen.len() as u32;
            (0..n).map(|k| ntasks / n + u32::from(k < ntasks % n)).collect()
        }
    };
    // move what does not fit to nodes with room left
    let mut spill = 0u32;
    for (x, r) in per.iter_mut().zip(&room) {
        if *x > *r {
            spill += *x - *r;
            *x = *r;
        }
    }
    for (x, r) in per.iter_mut().zip(&room) {
        let add = (*r - *x).min(spill);
        *x += add;
        spill -= add;
    }
    if spill > 0 || per.contains(&0) {
        return Err(ESLURM_NODES_BUSY);
    }
    // slurm.conf's MaxTasksPerNode default (the layout holds every task id)
    if per.iter().any(|&n| n > MAX_TASKS_PER_NODE) {
        return Err(ESLURM_BAD_TASK_COUNT);
    }
    let task_ids = task_ids(&per, &req.distribution);
    finish(job, req, now, &slots, &chosen, per, task_ids, cpt)
}

/// `--distribution=arbitrary`: `hosts` names each task's node, in order.
fn arbitrary(job: &Job, req: &StepRequest, now: i64, slots: &[Slot], hosts: &[String], cpt: u32) -> Result<Step, i32> {
    if hosts.is_empty() || hosts.iter().any(|h| !slots.iter().any(|s| &s.alloc.node == h)) {
        return Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    }
    if req.num_tasks.is_some_and(|n| n as usize != hosts.len()) {
        return Err(ESLURM_BAD_TASK_COUNT);
    }
    let chosen: Vec<usize> = (0..slots.len()).filter(|&i| hosts.contains(&slots[i].alloc.node)).collect();
    let mut task_ids: Vec<Vec<u32>> = vec![Vec::new(); chosen.len()];
    for (t, h) in hosts.iter().enumerate() {
        if let Some(k) = chosen.iter().position(|&i| &slots[i].alloc.node == h) {
            task_ids[k].push(t as u32);
        }
    }
    let per: Vec<u32> = task_ids.iter().map(|v| v.len() as u32).collect();
    if per.iter().any(|&n| n > MAX_TASKS_PER_NODE) {
        return Err(ESLURM_BAD_TASK_COUNT);
    }
    for (k, &i) in chosen.iter().enumerate() {
        let need = per[k].saturating_mul(cpt);
        if !req.overcommit && need > slots[i].alloc.cpus {
            return Err(ESLURM_TOO_MANY_REQUESTED_CPUS);
        }
        if !req.overcommit && !req.overlap && need > slots[i].free_cpus {
            return Err(ESLURM_NODES_BUSY);
        }
    }
    finish(job, req, now, slots, &chosen, per, task_ids, cpt)
}

/// The step on the `chosen` slots with `per` tasks each: the CPUs and
/// memory it holds there.
#[allow(clippy::too_many_arguments)]
fn finish(
    job: &Job,
    req: &StepRequest,
    now: i64,
    slots: &[Slot],
    chosen: &[usize],
    per: Vec<u32>,
    task_ids: Vec<Vec<u32>>,
    cpt: u32,
) -> Result<Step, i32> {
    // the CPUs and memory held on each node
    let mut allocs = Vec::with_capacity(chosen.len());
    for (k, &i) in chosen.iter().enumerate() {
        let s = &slots[i];
        let want = if req.exact || req.exclusive { per[k].saturating_mul(cpt).min(s.alloc.cpus) } else { s.alloc.cpus };
        let cpus = if req.overlap { want } else { want.min(s.free_cpus) };
        if !req.overlap && !req.overcommit && cpus < per[k].saturating_mul(cpt).min(s.alloc.cpus) {
            return Err(ESLURM_NODES_BUSY);
        }
        let mem = match (req.mem_per_node, req.mem_per_cpu) {
            (Some(m), _) => m,
            (None, Some(m)) => m.saturating_mul(cpus as u64),
            // --exact: the memory of its CPUs (the job's per CPU, or its
            // share of the job's on the node)
            (None, None) if req.exact || req.exclusive => {
                if job.mem_per_cpu > 0 {
                    job.mem_per_cpu.saturating_mul(cpus as u64).min(s.alloc.mem_mb)
                } else {
                    s.alloc.mem_mb.saturating_mul(cpus as u64) / u64::from(s.alloc.cpus.max(1))
                }
            }
            (None, None) => s.alloc.mem_mb,
        };
        if s.alloc.mem_mb > 0 && mem > s.alloc.mem_mb {
            return Err(ESLURM_INVALID_TASK_MEMORY);
        }
        if !req.overlap && s.alloc.mem_mb > 0 && mem > s.free_mem {
            return Err(ESLURM_NODES_BUSY);
        }
        allocs.push(NodeAlloc { node: s.alloc.node.clone(), cpus, mem_mb: mem, gres: Vec::new() });
    }
    let num_tasks = per.iter().sum();
    Ok(Step {
        step_id: job.next_step_id,
        name: req.name.clone(),
        start_time: now,
        time_limit: req.time_limit,
        allocs,
        tasks_per_node: per,
        task_ids,
        num_tasks,
        cpus_per_task: cpt,
        overlap: req.overlap,
        distribution: if req.distribution.is_empty() { "block".into() } else { req.distribution.clone() },
        srun_host: req.srun_host.clone(),
        srun_addr: req.srun_addr.clone(),
        srun_pid: req.srun_pid,
        submit_line: req.submit_line.clone(),
        work_dir: req.work_dir.clone(),
        mpi: req.mpi.clone(),
        usage: Vec::new(),
        request_id: None,
        end_time: 0,
        exit_status: None,
        resv_ports: String::new(),
    })
}

/// Ports as Slurm writes a list of them: runs as `LO-HI`, comma-separated.
pub fn ranged(ports: &[u16]) -> String {
    spur_grammar::jobref::ranges(&ports.iter().map(|&p| p as u32).collect::<Vec<_>>())
}

/// The ports of a [`ranged`] list.
pub fn ports_of(list: &str) -> Vec<u16> {
    spur_grammar::jobref::expand_ranges(list).into_iter().filter_map(|p| u16::try_from(p).ok()).collect()
}

/// The global task ids of each node, given how many each runs.
pub fn task_ids(per: &[u32], distribution: &str) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = per.iter().map(|&n| Vec::with_capacity(n as usize)).collect();
    let total: u32 = per.iter().sum();
    let block = if distribution.starts_with("cyclic") {
        1
    } else if let Some(p) = distribution.strip_prefix("plane=") {
        p.split(|c: char| !c.is_ascii_digit()).next().and_then(|n| n.parse().ok()).unwrap_or(1).max(1)
    } else {
        0
    };
    if block == 0 {
        let mut t = 0;
        for (v, &n) in out.iter_mut().zip(per) {
            v.extend(t..t + n);
            t += n;
        }
        return out;
    }
    let mut t = 0;
    while t < total {
        let before = t;
        for (v, &n) in out.iter_mut().zip(per) {
            let take = (n - v.len() as u32).min(block).min(total - t);
            v.extend(t..t + take);
            t += take;
        }
        if t == before {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(cpus: &[u32]) -> Job {
        Job {
            job_id: 5,
            state: JobState::Running,
            allocs: cpus
                .iter()
                .enumerate()
                .map(|(i, &c)| NodeAlloc { node: format!("n{}", i + 1), cpus: c, mem_mb: 0, gres: vec![] })
                .collect(),
            ..Default::default()
        }
    }

    fn req(n: Option<u32>, nn: Option<u32>) -> StepRequest {
        StepRequest { job_id: 5, num_tasks: n, min_nodes: nn, cpus_per_task: 1, ..Default::default() }
    }

    /// `PrologFlags=Contain`'s extern step comes with the start, on every
    /// node, holding nothing; salloc's interactive step is one task on the
    /// first node sharing everything; neither takes a step number, a second
    /// interactive step is refused, and a cluster still at version 4 writes
    /// neither.
    #[test]
    fn extern_and_interactive_steps() {
        use crate::apply::fixtures::*;
        use crate::{Applied, Command};
        let mut s = cluster();
        s.apply(&Command::SetFormatVersion { version: crate::SPECIAL_STEPS_VERSION }).unwrap();
        let mut batch = job();
        batch.desc.script = "#!/bin/sh\n".into();
        let id = submit(&mut s, batch);
        let allocs = vec![alloc("n1", 2, 500), alloc("n2", 2, 500)];
        let start =
            Command::Start { job_id: id, task: None, allocs, now: 10, pass_ms: 0, extern_step: true, backfill: false };
        assert_eq!(s.apply(&start), Ok(Applied::Started(id)));
        let j = s.jobs().get(&id).unwrap();
        assert_eq!(j.steps.len(), 1);
        let e = &j.steps[0];
        assert_eq!((e.step_id, e.name.as_str(), e.num_tasks, e.num_cpus()), (EXTERN_STEP, "extern", 2, 0));
        assert_eq!(
            (e.node_names(), e.task_ids.clone(), e.start_time),
            (vec!["n1".into(), "n2".into()], vec![vec![0], vec![1]], 10)
        );
        // a whole-allocation step still gets every CPU
        let create = |r: StepRequest| Command::StepCreate { req: Box::new(r), now: 11 };
        assert_eq!(s.apply(&create(StepRequest { job_id: id, ..Default::default() })), Ok(Applied::StepCreated(0)));
        let inter = StepRequest { job_id: id, interactive: true, num_tasks: Some(8), ..Default::default() };
        assert_eq!(s.apply(&create(inter.clone())), Ok(Applied::StepCreated(INTERACTIVE_STEP)));
        let j = s.jobs().get(&id).unwrap();
        let i = j.steps.iter().find(|x| x.step_id == INTERACTIVE_STEP).unwrap();
        assert_eq!(
            (i.name.as_str(), i.num_tasks, i.node_names(), i.overlap),
            ("interactive", 1, vec!["n1".to_string()], true)
        );
        assert_eq!(j.next_step_id, 1);
        assert_eq!(s.apply(&create(inter)), Err(ESLURM_DISABLED));
        // shown as slurmctld lists them: extern, batch, then as created
        let shown: Vec<u32> = s.jobs().get(&id).unwrap().steps_shown().iter().map(|x| x.step_id).collect();
        assert_eq!(shown, vec![EXTERN_STEP, BATCH_STEP, 0, INTERACTIVE_STEP]);

        let mut old = cluster();
        old.apply(&Command::SetFormatVersion { version: 4 }).unwrap();
        let id = submit(&mut old, job());
        let start = Command::Start {
            job_id: id,
            task: None,
            allocs: vec![alloc("n1", 1, 0)],
            now: 10,
            pass_ms: 0,
            extern_step: true,
            backfill: false,
        };
        assert_eq!(old.apply(&start), Ok(Applied::Started(id)));
        assert!(old.jobs().get(&id).unwrap().steps.is_empty());
        let inter = StepRequest { job_id: id, interactive: true, ..Default::default() };
        assert_eq!(old.apply(&create(inter)), Err(ESLURM_NOT_SUPPORTED));
    }

    /// `MpiParams=ports=`: each step gets one port more than its most
    /// tasks on a node, none held by a running step on its nodes; the ports
    /// come back when the step ends; a cluster still at version 5 reserves
    /// none.
    #[test]
    fn reserved_ports() {
        use crate::apply::fixtures::*;
        use crate::{Applied, Command};
        let mut s = cluster();
        s.apply(&Command::SetFormatVersion { version: crate::RESV_PORTS_VERSION }).unwrap();
        let a = submit(&mut s, job());
        let b = submit(&mut s, job());
        for (id, node, t) in [(a, "n1", 10), (b, "n2", 11)] {
            let start = Command::Start {
                job_id: id,
                task: None,
                allocs: vec![alloc(node, 2, 0)],
                now: t,
                pass_ms: 0,
                extern_step: false,
                backfill: false,
            };
            assert_eq!(s.apply(&start), Ok(Applied::Started(id)));
        }
        let create = |job_id: u32, tasks: u32, range: (u16, u16)| Command::StepCreate {
            req: Box::new(StepRequest {
                job_id,
                num_tasks: Some(tasks),
                overlap: true,
                overcommit: true,
                resv_port_range: Some(range),
                ..Default::default()
            }),
            now: 12,
        };
        let ports = |s: &State, job: u32, step: u32| {
            s.jobs().get(&job).unwrap().steps.iter().find(|x| x.step_id == step).unwrap().resv_ports.clone()
        };
        assert_eq!(s.apply(&create(a, 2, (12000, 12005))), Ok(Applied::StepCreated(0)));
        assert_eq!(ports(&s, a, 0), "12000-12002");
        assert_eq!(s.apply(&create(a, 1, (12000, 12005))), Ok(Applied::StepCreated(1)));
        assert_eq!(ports(&s, a, 1), "12003-12004");
        // another node: the same ports are free there
        assert_eq!(s.apply(&create(b, 1, (12000, 12005))), Ok(Applied::StepCreated(0)));
        assert_eq!(ports(&s, b, 0), "12000-12001");
        assert_eq!(s.apply(&create(a, 1, (12000, 12005))), Err(ESLURM_PORTS_BUSY));
        assert_eq!(s.apply(&create(a, 2, (12000, 12001))), Err(ESLURM_PORTS_INVALID));
        // the first step's ports come back with its end, and a gap is
        // written as Slurm writes it
        let done = Command::StepComplete { job_id: a, step_id: 0, exit_status: Some(0), now: 13 };
        assert_eq!(s.apply(&done), Ok(Applied::Ok));
        assert_eq!(s.apply(&create(a, 3, (12000, 12005))), Ok(Applied::StepCreated(2)));
        assert_eq!(ports(&s, a, 2), "12000-12002,12005");
        assert_eq!(ranged(&[1, 3, 4, 5, 9]), "1,3-5,9");
        assert_eq!(ports_of("1,3-5,9"), vec![1, 3, 4, 5, 9]);

        let mut old = cluster();
        old.apply(&Command::SetFormatVersion { version: 5 }).unwrap();
        let id = submit(&mut old, job());
        let start = Command::Start {
            job_id: id,
            task: None,
            allocs: vec![alloc("n1", 2, 0)],
            now: 10,
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        };
        assert_eq!(old.apply(&start), Ok(Applied::Started(id)));
        assert_eq!(old.apply(&create(id, 1, (12000, 12005))), Ok(Applied::StepCreated(0)));
        assert_eq!(ports(&old, id, 0), "");
    }

    #[test]
    fn mpi_params_ports() {
        use spur_core::request::mpi_params_ports;
        assert_eq!(mpi_params_ports("ports=12000-12999"), Some((12000, 12999)));
        assert_eq!(mpi_params_ports("other=1,ports=5-6"), Some((5, 6)));
        assert_eq!(mpi_params_ports("ports=9-5"), None);
        assert_eq!(mpi_params_ports("ports=x"), None);
        assert_eq!(mpi_params_ports(""), None);
    }

    /// A retried request (its reply lost to a leader change) gets the step
    /// the first one made, from version 5; before, each makes its own.
    #[test]
    fn a_retried_request_gets_the_same_step() {
        use crate::apply::fixtures::*;
        use crate::{Applied, Command};
        for (version, second) in [(crate::SPECIAL_STEPS_VERSION, 0), (crate::STEPS_VERSION, 1)] {
            let mut s = cluster();
            s.apply(&Command::SetFormatVersion { version }).unwrap();
            let id = running(&mut s, "n1");
            let req = StepRequest { job_id: id, overlap: true, request_id: Some("r1".into()), ..Default::default() };
            let create = Command::StepCreate { req: Box::new(req), now: 11 };
            assert_eq!(s.apply(&create), Ok(Applied::StepCreated(0)));
            assert_eq!(s.apply(&create), Ok(Applied::StepCreated(second)), "version {}", version);
            assert_eq!(s.jobs().get(&id).unwrap().steps.len(), 1 + second as usize);
        }
    }

    const V: u16 = spur_format::FORMAT_VERSION;

    // recorded/24.11/srun_stepopts/31-34: task i on the list's i-th node
    #[test]
    fn arbitrary_lays_tasks_out_in_the_lists_order() {
        let j = job(&[2, 2, 2]);
        let r = |list: &str| StepRequest {
            node_list: Some(list.into()),
            distribution: "arbitrary".into(),
            ..req(None, None)
        };
        let s = layout(&j, &r("n3,n1,n3,n2"), 1, V).unwrap();
        assert_eq!(s.node_names(), ["n1", "n2", "n3"]);
        assert_eq!((s.tasks_per_node.clone(), s.task_ids.clone()), (vec![1, 1, 2], vec![vec![1], vec![3], vec![0, 2]]));
        assert_eq!((s.num_tasks, s.distribution.as_str()), (4, "arbitrary"));
        let s = layout(&j, &r("n2,n2"), 1, V).unwrap();
        assert_eq!((s.node_names(), s.task_ids), (vec!["n2".to_string()], vec![vec![0, 1]]));
        // before version 5: block over the named nodes, as the builds before
        let s = layout(&j, &r("n3,n1,n3,n2"), 1, 4).unwrap();
        assert_eq!(s.task_ids, vec![vec![0], vec![1], vec![2]]);
        // more tasks on a node than its CPUs, a node not in the job, a count that disagrees
        assert_eq!(layout(&j, &r("n1,n1,n1"), 1, V).map(|_| ()), Err(ESLURM_TOO_MANY_REQUESTED_CPUS));
        assert_eq!(layout(&j, &r("n1,n9"), 1, V).map(|_| ()), Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE));
        let mut three = r("n1,n2");
        three.num_tasks = Some(3);
        assert_eq!(layout(&j, &three, 1, V).map(|_| ()), Err(ESLURM_BAD_TASK_COUNT));
        // the CPUs other steps hold
        let mut busy = j.clone();
        busy.steps.push(layout(&j, &r("n1,n1"), 1, V).unwrap());
        assert_eq!(layout(&busy, &r("n1"), 1, V).map(|_| ()), Err(ESLURM_NODES_BUSY));
    }

    #[test]
    fn whole_allocation_one_task_per_node() {
        let s = layout(&job(&[2, 2]), &req(None, None), 1, V).unwrap();
        assert_eq!((s.num_tasks, s.tasks_per_node.clone(), s.num_cpus()), (2, vec![1, 1], 4));
    }

    #[test]
    fn tasks_spread_evenly_and_by_distribution() {
        let s = layout(&job(&[4, 4]), &req(Some(5), Some(2)), 1, V).unwrap();
        assert_eq!(s.tasks_per_node, vec![3, 2]);
        assert_eq!(s.task_ids, vec![vec![0, 1, 2], vec![3, 4]]);
        let mut r = req(Some(4), Some(2));
        r.distribution = "cyclic".into();
        let s = layout(&job(&[2, 2]), &r, 1, V).unwrap();
        assert_eq!(s.task_ids, vec![vec![0, 2], vec![1, 3]]);
        assert_eq!(task_ids(&[3, 3], "plane=2"), vec![vec![0, 1, 4], vec![2, 3, 5]]);
    }

    #[test]
    fn fewest_nodes_for_the_tasks() {
        let s = layout(&job(&[2, 2]), &req(Some(1), None), 1, V).unwrap();
        assert_eq!(s.node_names(), vec!["n1"]);
        let s = layout(&job(&[2, 2]), &req(Some(3), None), 1, V).unwrap();
        assert_eq!(s.tasks_per_node, vec![2, 1]);
    }

    #[test]
    fn a_second_step_waits_unless_it_overlaps_or_both_are_exact() {
        let mut j = job(&[2]);
        let first = layout(&j, &req(Some(1), None), 1, V).unwrap();
        j.steps.push(first);
        j.next_step_id = 1;
        assert_eq!(layout(&j, &req(Some(1), None), 1, V).map(|_| ()), Err(ESLURM_NODES_BUSY));
        let mut o = req(Some(1), None);
        o.overlap = true;
        assert_eq!(layout(&j, &o, 1, V).map(|s| s.step_id), Ok(1));
        let mut j = job(&[2]);
        j.allocs[0].mem_mb = 1000;
        j.mem_per_cpu = 500;
        let mut e = req(Some(1), None);
        e.exact = true;
        j.steps.push(layout(&j, &e, 1, V).unwrap());
        // the first holds one CPU and its 500 MB: the second fits beside it
        assert_eq!(layout(&j, &e, 1, V).map(|s| (s.num_cpus(), s.allocs[0].mem_mb)), Ok((1, 500)));
    }

    #[test]
    fn impossible_requests_are_refused_for_good() {
        let j = job(&[2, 2]);
        assert_eq!(layout(&j, &req(Some(9), None), 1, V).map(|_| ()), Err(ESLURM_TOO_MANY_REQUESTED_CPUS));
        assert_eq!(layout(&j, &req(None, Some(3)), 1, V).map(|_| ()), Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE));
        assert_eq!(layout(&j, &req(Some(1), Some(2)), 1, V).map(|_| ()), Err(ESLURM_BAD_TASK_COUNT));
        assert_eq!(layout(&j, &req(Some(4), Some(1)), 1, V).map(|_| ()), Err(ESLURM_TOO_MANY_REQUESTED_CPUS));
        let mut r = req(Some(8), None);
        r.overcommit = true;
        assert_eq!(layout(&j, &r, 1, V).map(|s| s.tasks_per_node), Ok(vec![8]));
        r.num_tasks = Some(u32::MAX);
        assert_eq!(layout(&j, &r, 1, V).map(|_| ()), Err(ESLURM_BAD_TASK_COUNT));
        let mut r = req(None, None);
        r.node_list = Some("n9".into());
        assert_eq!(layout(&j, &r, 1, V).map(|_| ()), Err(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE));
    }

    /// An ended step keeps its record, and each node's use reaches it
    /// whether it comes before or after the end; a node not the step's, an
    /// unknown step or job, are refused without a change.
    #[test]
    fn usage_reaches_the_step_before_and_after_its_end() {
        use crate::apply::fixtures::{cluster, refused, running};
        use crate::{Applied, Command};
        let mut s = cluster();
        s.apply(&Command::SetFormatVersion { version: STEP_USAGE_VERSION }).unwrap();
        let id = running(&mut s, "n1");
        let req = StepRequest { job_id: id, cpus_per_task: 1, ..Default::default() };
        assert_eq!(s.apply(&Command::StepCreate { req: Box::new(req), now: 20 }), Ok(Applied::StepCreated(0)));
        let u =
            |node: &str, rss: u64| NodeUsage { node: node.into(), ntasks: 1, max_rss_kb: rss, ..Default::default() };
        let report =
            |node: &str, rss: u64| Command::StepUsage { job_id: id, step_id: 0, usage: Box::new(u(node, rss)) };
        assert_eq!(s.apply(&report("n1", 100)), Ok(Applied::Ok));
        assert_eq!(s.jobs()[&id].steps[0].usage, vec![u("n1", 100)]);
        assert_eq!(
            s.apply(&Command::StepComplete { job_id: id, step_id: 0, exit_status: Some(3 << 8), now: 30 }),
            Ok(Applied::Ok)
        );
        assert!(s.jobs()[&id].steps.is_empty());
        // a later report (the node's step daemon after srun's end) replaces the first
        assert_eq!(s.apply(&report("n1", 5000)), Ok(Applied::Ok));
        assert_eq!(s.jobs()[&id].done_steps[0].usage, vec![u("n1", 5000)]);
        // with its end time and exit status
        let done = &s.jobs()[&id].done_steps[0];
        assert_eq!((done.end_time, done.exit_status), (30, Some(3 << 8)));
        refused(&mut s, report("n2", 1), ESLURM_INVALID_NODE_NAME);
        refused(
            &mut s,
            Command::StepUsage { job_id: id, step_id: 7, usage: Box::new(u("n1", 1)) },
            ESLURM_INVALID_JOB_ID,
        );
        refused(
            &mut s,
            Command::StepUsage { job_id: 999, step_id: 0, usage: Box::new(u("n1", 1)) },
            ESLURM_INVALID_JOB_ID,
        );
        refused(
            &mut s,
            Command::StepComplete { job_id: id, step_id: 0, exit_status: Some(3 << 8), now: 30 },
            ESLURM_ALREADY_DONE,
        );
        // a cluster still at version 4 writes neither
        let mut old = cluster();
        let id = running(&mut old, "n1");
        old.apply(&Command::SetFormatVersion { version: 4 }).unwrap();
        let req = StepRequest { job_id: id, cpus_per_task: 1, ..Default::default() };
        old.apply(&Command::StepCreate { req: Box::new(req), now: 20 }).unwrap();
        refused(
            &mut old,
            Command::StepUsage { job_id: id, step_id: 0, usage: Box::new(u("n1", 1)) },
            ESLURM_NOT_SUPPORTED,
        );
        assert_eq!(
            old.apply(&Command::StepComplete { job_id: id, step_id: 0, exit_status: Some(3 << 8), now: 30 }),
            Ok(Applied::Ok)
        );
        assert!(old.jobs()[&id].done_steps.is_empty());
    }

    /// The batch script's use, which its host reports with the job's end,
    /// is the job's (its `.batch` step's, as steps are shown); a report from
    /// another node, or for a job without a script, is refused unchanged.
    #[test]
    fn batch_usage_is_the_jobs() {
        use crate::apply::fixtures::{cluster, refused, running};
        use crate::{Applied, Command};
        let mut s = cluster();
        s.apply(&Command::SetFormatVersion { version: STEP_USAGE_VERSION }).unwrap();
        let id = running(&mut s, "n1");
        s.jobs.get_mut(&id).unwrap().batch_flag = 1; // (the fixture's job has no script)
        let u = |node: &str| NodeUsage { node: node.into(), ntasks: 1, max_rss_kb: 7, ..Default::default() };
        let report = |node: &str| Command::StepUsage { job_id: id, step_id: BATCH_STEP, usage: Box::new(u(node)) };
        refused(&mut s, report("n2"), ESLURM_INVALID_NODE_NAME);
        assert_eq!(s.apply(&report("n1")), Ok(Applied::Ok));
        assert_eq!(s.jobs()[&id].batch_usage, Some(u("n1")));
        let shown = s.jobs()[&id].steps_shown();
        assert_eq!(shown.iter().find(|x| x.step_id == BATCH_STEP).map(|x| x.usage.clone()), Some(vec![u("n1")]));
        s.jobs.get_mut(&id).unwrap().batch_flag = 0;
        refused(&mut s, report("n1"), ESLURM_INVALID_NODE_NAME);
    }
}
