//! The step queries of slurm.h: `slurm_get_job_steps` and its free
//! functions, `slurm_job_step_layout_get`/`_free`.
//!
//! The steps are those `scontrol show step` lists, from the running jobs'
//! records (`Job::steps_shown`: the extern step, the batch step, then the
//! others as they were created), jobs by id. Each `job_step_info_t` is
//! filled as slurmctld's `pack_ctld_job_step_info` fills it, every pointer
//! its own xmalloc'ed block, `node_inx` never NULL and ended by -1. The
//! batch and extern steps hold no CPUs of their own and have no TRES (as
//! `scontrol show step` shows them).
//!
//! A step's processes (`slurm_job_step_get_pids`) are in `pids.rs`, its
//! use (`slurm_job_step_stat`) in `stepstat.rs`.

// (enumerators are cast to the fields' types: bindgen gives a C enum the
// enum type of the platform, which need not be the field's)
#![allow(clippy::unnecessary_cast)]

use crate::jobs::{release, Ctx};
use crate::sys;
use crate::xmalloc::{xalloc, xarray, xfree, xindex, xnew, xstr_nonempty, xstrdup};
use spur_core::model::{ClusterView, Job, JobState, Step, BATCH_STEP, EXTERN_STEP};
use std::ffi::c_int;
use std::ptr::null_mut;

const NO_VAL: u32 = sys::NO_VAL;

fn is_batch_or_extern(st: &Step) -> bool {
    st.step_id == BATCH_STEP || st.step_id == EXTERN_STEP
}

/// Slurm's `task_dist` of a step's distribution.
fn task_dist(st: &Step) -> u32 {
    if is_batch_or_extern(st) {
        return sys::SLURM_DIST_UNKNOWN as u32;
    }
    (match st.distribution.as_str() {
        "cyclic" => sys::SLURM_DIST_CYCLIC,
        "arbitrary" => sys::SLURM_DIST_ARBITRARY,
        p if p.starts_with("plane") => sys::SLURM_DIST_PLANE,
        _ => sys::SLURM_DIST_BLOCK,
    }) as u32
}

/// The steps of the running jobs a query names, in `scontrol show step`'s
/// order (`job_id`/`step_id` NO_VAL: all).
pub fn steps_of(view: &ClusterView, job_id: u32, step_id: u32) -> Vec<(&Job, Step)> {
    let mut jobs: Vec<&Job> = view
        .jobs
        .iter()
        .filter(|j| matches!(j.state, JobState::Running | JobState::Suspended))
        .filter(|j| job_id == NO_VAL || j.job_id == job_id)
        .collect();
    jobs.sort_by_key(|j| j.job_id);
    let mut out = Vec::new();
    for j in jobs {
        for st in j.steps_shown() {
            if step_id == NO_VAL || st.step_id == step_id {
                out.push((j, st));
            }
        }
    }
    out
}

/// A record for one step (release it with [`free_members`]).
pub fn fill_step(j: &Job, st: &Step, ctx: &Ctx) -> sys::job_step_info_t {
    // SAFETY: integers and pointers only: all zero is valid.
    let mut r: sys::job_step_info_t = unsafe { std::mem::zeroed() };
    let batch = is_batch_or_extern(st);
    r.step_id.job_id = j.job_id;
    r.step_id.step_id = st.step_id;
    r.step_id.step_het_comp = NO_VAL;
    r.array_job_id = spur_cli_base::records::array_job_id(j);
    r.array_task_id = spur_cli_base::records::array_task_id(j).unwrap_or(NO_VAL);
    r.user_id = j.user_id;
    r.cluster = xstr_nonempty(ctx.cluster);
    r.name = xstrdup(&st.name);
    r.partition = xstr_nonempty(&j.partition);
    let names = st.node_names();
    r.nodes = xstr_nonempty(&spur_grammar::hostlist::compress_sorted(&names));
    r.node_inx = xindex(&ctx.index_pairs(&names));
    r.num_cpus = if batch { 0 } else { st.num_cpus() };
    r.num_tasks = st.num_tasks;
    r.start_time = st.start_time as _;
    r.run_time = (ctx.now - st.start_time).max(0) as _;
    r.time_limit = st.time_limit.unwrap_or(sys::INFINITE);
    r.state = if j.state == JobState::Suspended { sys::JOB_SUSPENDED } else { sys::JOB_RUNNING } as u32;
    r.cpu_freq_min = NO_VAL;
    r.cpu_freq_max = NO_VAL;
    r.cpu_freq_gov = NO_VAL;
    r.task_dist = task_dist(st);
    r.srun_host = xstr_nonempty(&st.srun_host);
    r.srun_pid = st.srun_pid;
    r.resv_ports = xstr_nonempty(&st.resv_ports);
    r.submit_line = xstr_nonempty(&st.submit_line);
    r.start_protocol_ver = if release() == spur_core::compat::Release::V22_05 { 38 << 8 } else { 42 << 8 };
    if !batch {
        let mem: u64 = st.allocs.iter().map(|a| a.mem_mb).sum();
        let mut tres = format!("cpu={}", r.num_cpus);
        if mem > 0 {
            tres.push_str(&format!(",mem={}", spur_cli_base::format::convert_num_unit(mem as f64, 2)));
        }
        tres.push_str(&format!(",node={}", st.allocs.len()));
        r.tres_alloc_str = xstrdup(&tres);
    }
    r
}

/// Release what a step record's pointers hold and clear them.
///
/// # Safety
/// Every pointer of `*r` is NULL or a live xmalloc'ed block, none used
/// afterwards.
pub unsafe fn free_members(r: &mut sys::job_step_info_t) {
    // SAFETY: the caller's contract.
    unsafe {
        xfree(&mut r.cluster);
        xfree(&mut r.container);
        xfree(&mut r.cpus_per_tres);
        xfree(&mut r.mem_per_tres);
        xfree(&mut r.name);
        xfree(&mut r.network);
        xfree(&mut r.nodes);
        xfree(&mut r.node_inx);
        xfree(&mut r.partition);
        xfree(&mut r.resv_ports);
        xfree(&mut r.srun_host);
        xfree(&mut r.submit_line);
        xfree(&mut r.tres_alloc_str);
        xfree(&mut r.tres_bind);
        xfree(&mut r.tres_freq);
        xfree(&mut r.tres_per_step);
        xfree(&mut r.tres_per_node);
        xfree(&mut r.tres_per_socket);
        xfree(&mut r.tres_per_task);
        #[cfg(feature = "slurm-24-11")]
        xfree(&mut r.container_id);
        #[cfg(feature = "slurm-22-05")]
        {
            // (the select plugin's data: Spur never sets it)
            r.select_jobinfo = null_mut();
        }
    }
}

/// A response holding the steps given (NULL when memory runs out).
pub fn response(steps: &[(&Job, Step)], ctx: &Ctx) -> *mut sys::job_step_info_response_msg_t {
    let msg = xnew::<sys::job_step_info_response_msg_t>();
    // SAFETY: NULL or a new zeroed block.
    let Some(m) = (unsafe { msg.as_mut() }) else {
        return null_mut();
    };
    m.last_update = ctx.now as _;
    if steps.is_empty() {
        return msg;
    }
    let arr = xalloc(std::mem::size_of::<sys::job_step_info_t>() * steps.len()).cast::<sys::job_step_info_t>();
    if arr.is_null() {
        let mut msg = msg;
        // SAFETY: the block just made.
        unsafe { xfree(&mut msg) };
        return null_mut();
    }
    for (i, (j, st)) in steps.iter().enumerate() {
        // SAFETY: arr holds steps.len() records.
        unsafe { arr.add(i).write(fill_step(j, st, ctx)) };
    }
    m.job_steps = arr;
    m.job_step_count = steps.len() as u32;
    msg
}

/// `int slurm_get_job_steps(time_t update_time, uint32_t job_id, uint32_t
/// step_id, job_step_info_response_msg_t **step_response_pptr, uint16_t
/// show_flags)`: the running steps of a job (NO_VAL: of every job), or one
/// of them (NO_VAL: all). A job the controller does not hold fails with
/// ESLURM_INVALID_JOB_ID; a job without such steps gives none.
///
/// # Safety
/// `step_response_pptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_steps(
    update_time: sys::time_t,
    job_id: u32,
    step_id: u32,
    step_response_pptr: *mut *mut sys::job_step_info_response_msg_t,
    show_flags: u16,
) -> c_int {
    let _ = (update_time, show_flags);
    crate::guard(sys::SLURM_ERROR, || {
        if step_response_pptr.is_null() {
            crate::errno::set(libc::EINVAL);
            return sys::SLURM_ERROR;
        }
        spur_core::compat::set_release(release());
        let mut q = spur_core::request::Query { jobs: true, nodes: true, ..Default::default() };
        if job_id != NO_VAL {
            q.job_ids = vec![job_id.to_string()];
            q.all_finished = true;
        }
        let view = match crate::conn::call(|c| c.query(&q)) {
            Ok(v) => v,
            Err(_) => return sys::SLURM_ERROR,
        };
        if job_id != NO_VAL && !view.jobs.iter().any(|j| j.job_id == job_id) {
            crate::errno::set(sys::ESLURM_INVALID_JOB_ID as i32);
            return sys::SLURM_ERROR;
        }
        let ctx = Ctx::new(&view);
        let msg = response(&steps_of(&view, job_id, step_id), &ctx);
        if msg.is_null() {
            crate::errno::set(libc::ENOMEM);
            return sys::SLURM_ERROR;
        }
        // SAFETY: writable (the caller's contract, checked for NULL).
        unsafe { *step_response_pptr = msg };
        sys::SLURM_SUCCESS as c_int
    })
}

/// `void slurm_free_job_step_info_response_msg(job_step_info_response_msg_t
/// *msg)`: release a response of `slurm_get_job_steps` (NULL: nothing).
///
/// # Safety
/// `msg` is NULL or such a response, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_step_info_response_msg(msg: *mut sys::job_step_info_response_msg_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract: job_step_count records in one block.
        unsafe {
            crate::xmalloc::free_records(msg, |m| &mut m.job_steps, |m| m.job_step_count as usize, |r| free_members(r))
        }
    })
}

/// `void slurm_free_job_step_info_members(job_step_info_t *msg)` (internal
/// to libslurm, exported): release what a step record's pointers hold.
///
/// # Safety
/// `msg` is NULL or a record whose pointers are NULL or xmalloc'ed blocks.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_step_info_members(msg: *mut sys::job_step_info_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { msg.as_mut() } {
            // SAFETY: as above.
            unsafe { free_members(r) }
        }
    })
}

/// The tasks of a step on each of its nodes and their global ids: as the
/// step records them, else one task a node (the batch and extern steps).
fn layout_of(st: &Step) -> (Vec<u16>, Vec<Vec<u32>>) {
    if st.task_ids.len() == st.allocs.len() && !st.task_ids.is_empty() {
        let tasks = st.task_ids.iter().map(|t| t.len().min(u16::MAX as usize) as u16).collect();
        return (tasks, st.task_ids.clone());
    }
    let n = st.allocs.len();
    (vec![1; n], (0..n as u32).map(|i| vec![i]).collect())
}

/// A step layout block (`slurm_step_layout_t`), NULL when memory runs out.
pub fn layout_block(st: &Step) -> *mut sys::slurm_step_layout_t {
    let p = xnew::<sys::slurm_step_layout_t>();
    // SAFETY: NULL or a new zeroed block.
    let Some(l) = (unsafe { p.as_mut() }) else {
        return null_mut();
    };
    let (tasks, tids) = layout_of(st);
    l.node_cnt = st.allocs.len() as u32;
    l.node_list = xstr_nonempty(&spur_grammar::hostlist::compress(&st.node_names()));
    l.task_cnt = tids.iter().map(|t| t.len() as u32).sum();
    l.task_dist = task_dist(st);
    l.plane_size = match st.distribution.strip_prefix("plane=") {
        Some(n) => n.parse().unwrap_or(sys::NO_VAL16 as u16),
        None => sys::NO_VAL16 as u16,
    };
    l.start_protocol_ver = if release() == spur_core::compat::Release::V22_05 { 38 << 8 } else { 42 << 8 };
    l.tasks = xarray(&tasks);
    let rows: Vec<*mut u32> = tids.iter().map(|t| xarray(t)).collect();
    l.tids = xarray(&rows);
    #[cfg(feature = "slurm-24-11")]
    {
        // the CPUs per task, compacted as Slurm's cpt_compact_* arrays
        let cpt = st.cpus_per_task.max(1).min(u16::MAX as u32) as u16;
        if l.node_cnt > 0 {
            l.cpt_compact_cnt = 1;
            l.cpt_compact_array = xarray(&[cpt]);
            l.cpt_compact_reps = xarray(&[l.node_cnt]);
        }
    }
    p
}

/// `slurm_step_layout_t *slurm_job_step_layout_get(slurm_step_id_t
/// *step_id)`: how a running step's tasks lie on its nodes (NULL with
/// errno set when there is no such step). Release it with
/// `slurm_job_step_layout_free`.
///
/// # Safety
/// `step_id` is NULL or a readable step id.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_layout_get(
    step_id: *mut sys::slurm_step_id_t,
) -> *mut sys::slurm_step_layout_t {
    crate::guard(null_mut(), || {
        // SAFETY: the caller's contract.
        let Some(id) = (unsafe { step_id.as_ref() }) else {
            crate::errno::set(libc::EINVAL);
            return null_mut();
        };
        let (job_id, step) = (id.job_id, id.step_id);
        spur_core::compat::set_release(release());
        let q = spur_core::request::Query { jobs: true, job_ids: vec![job_id.to_string()], ..Default::default() };
        let view = match crate::conn::call(|c| c.query(&q)) {
            Ok(v) => v,
            Err(_) => return null_mut(),
        };
        match steps_of(&view, job_id, step).first() {
            Some((_, st)) => layout_block(st),
            None => {
                crate::errno::set(sys::ESLURM_INVALID_JOB_ID as i32);
                null_mut()
            }
        }
    })
}

/// `void slurm_job_step_layout_free(slurm_step_layout_t *layout)`: release
/// a layout of `slurm_job_step_layout_get` (NULL: nothing).
///
/// # Safety
/// `layout` is NULL or such a layout, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_layout_free(layout: *mut sys::slurm_step_layout_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract: every pointer in it is NULL or an
        // xmalloc'ed block; tids holds node_cnt rows.
        unsafe {
            let Some(l) = layout.as_mut() else { return };
            if !l.tids.is_null() {
                for i in 0..l.node_cnt as usize {
                    xfree(&mut *l.tids.add(i));
                }
            }
            xfree(&mut l.tids);
            xfree(&mut l.tasks);
            xfree(&mut l.node_list);
            xfree(&mut l.front_end);
            #[cfg(feature = "slurm-24-11")]
            {
                xfree(&mut l.cpt_compact_array);
                xfree(&mut l.cpt_compact_reps);
                // (alias_addrs: Spur never sets it)
                l.alias_addrs = null_mut();
            }
            let mut p = layout;
            xfree(&mut p);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::{Node, NodeAlloc};

    #[test]
    fn steps_records_layouts_and_frees() {
        let mut j = Job { job_id: 5, state: JobState::Running, batch_flag: 1, start_time: 100, ..Default::default() };
        j.allocs = vec![NodeAlloc { node: "n2".into(), cpus: 2, ..Default::default() }];
        j.steps = vec![Step {
            step_id: 0,
            name: "hostname".into(),
            start_time: 110,
            allocs: j.allocs.clone(),
            task_ids: vec![vec![0, 1]],
            num_tasks: 2,
            distribution: "cyclic".into(),
            ..Default::default()
        }];
        let view = ClusterView {
            now: 200,
            jobs: vec![j],
            nodes: vec![
                Node { name: "n1".into(), ..Default::default() },
                Node { name: "n2".into(), ..Default::default() },
            ],
            ..Default::default()
        };
        let ctx = Ctx::new(&view);
        let steps = steps_of(&view, NO_VAL, NO_VAL);
        let ids: Vec<u32> = steps.iter().map(|(_, s)| s.step_id).collect();
        assert_eq!(ids, vec![BATCH_STEP, 0]);
        let msg = response(&steps, &ctx);
        // SAFETY: msg is response's; read before it is freed.
        unsafe {
            let m = &*msg;
            assert_eq!(m.job_step_count, 2);
            let s0 = &*m.job_steps.add(1);
            assert_eq!((s0.step_id.job_id, s0.step_id.step_id, s0.num_cpus, s0.num_tasks), (5, 0, 2, 2));
            assert_eq!((s0.run_time as i64, s0.task_dist), (90, sys::SLURM_DIST_CYCLIC as u32));
            assert_eq!(*s0.node_inx, 1);
            assert_eq!(*s0.node_inx.add(2), -1);
            assert!((*m.job_steps).tres_alloc_str.is_null());
            slurm_free_job_step_info_response_msg(msg);
        }
        let l = layout_block(&steps[1].1);
        // SAFETY: l is layout_block's.
        unsafe {
            assert_eq!(((*l).node_cnt, (*l).task_cnt, *(*l).tasks), (1, 2, 2));
            assert_eq!(*(*(*l).tids).add(1), 1);
            slurm_job_step_layout_free(l);
        }
    }
}
