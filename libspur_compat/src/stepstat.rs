//! `slurm_job_step_stat` and its frees: what a running step's tasks use on
//! each of its nodes (sstat's data), as slurmd answers libslurm's
//! `REQUEST_JOB_STEP_STAT`, with Slurm's internal `jobacctinfo_t` in each
//! record (pyslurm 24.11 re-declares that struct and reads it).
//!
//! Spur's controller asks the step's agents (`StepStat` with `with_pids`):
//! each node that runs part of the step answers with its step daemon's last
//! usage sample and the step's processes there. The message holds one
//! `job_step_stat_t` per such node, sorted by node name (`stats_list` NULL
//! when none answered): `num_tasks` the node's tasks, `return_code` 0,
//! `step_pids` as `slurm_job_step_get_pids` gives them (pids.rs), and
//! `jobacct` a `jobacctinfo_t` with the node's user and system CPU time
//! summed over its tasks and their CPU frequencies summed (`act_cpufreq`;
//! pyslurm divides by the tasks), no energy (0, as without an energy
//! plugin) and **no TRES usage** (`tres_count` 0): Spur's samples hold
//! MaxRSS and the rest, but a TRES table in the record would need the
//! association manager's TRES ids, which Spur does not keep (see full.rs).
//!
//! Errors as in Slurm: a step that is not running gives its layout lookup's
//! error (`ESLURM_INVALID_JOB_ID`) as the return value and errno; a node
//! list limits the answer to those nodes (a node without the step: the
//! call returns `ESLURM_INVALID_JOB_ID` after the others' records are in).

use crate::sys;
use crate::xmalloc::{xfree, xnew};
use std::ffi::{c_char, c_int, c_void};
use std::ptr::null_mut;

/// Slurm's internal `jobacct_id_t` (src/interfaces/jobacct_gather.h; the
/// same in 22.05's src/common/slurm_jobacct_gather.h).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct JobacctId {
    pub taskid: u32,
    pub nodeid: u32,
    pub step: *mut c_void,
}

/// Slurm's internal `struct jobacctinfo` (`jobacctinfo_t`), laid out alike
/// in 22.05 and 24.11, as src/interfaces/jobacct_gather.h declares it and
/// pyslurm 24.11 re-declares it to read CPU times and the TRES list.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Jobacctinfo {
    pub pid: libc::pid_t,
    pub sys_cpu_sec: u64,
    pub sys_cpu_usec: u32,
    pub user_cpu_sec: u64,
    pub user_cpu_usec: u32,
    pub act_cpufreq: u32,
    pub energy: sys::acct_gather_energy_t,
    pub last_total_cputime: f64,
    pub this_sampled_cputime: f64,
    pub current_weighted_freq: u32,
    pub current_weighted_power: u32,
    pub tres_count: u32,
    pub tres_ids: *mut u32,
    pub tres_list: *mut sys::xlist,
    pub tres_usage_in_max: *mut u64,
    pub tres_usage_in_max_nodeid: *mut u64,
    pub tres_usage_in_max_taskid: *mut u64,
    pub tres_usage_in_min: *mut u64,
    pub tres_usage_in_min_nodeid: *mut u64,
    pub tres_usage_in_min_taskid: *mut u64,
    pub tres_usage_in_tot: *mut u64,
    pub tres_usage_out_max: *mut u64,
    pub tres_usage_out_max_nodeid: *mut u64,
    pub tres_usage_out_max_taskid: *mut u64,
    pub tres_usage_out_min: *mut u64,
    pub tres_usage_out_min_nodeid: *mut u64,
    pub tres_usage_out_min_taskid: *mut u64,
    pub tres_usage_out_tot: *mut u64,
    pub id: JobacctId,
    pub dataset_id: c_int,
    pub last_tres_usage_in_tot: f64,
    pub last_tres_usage_out_tot: f64,
    pub cur_time: libc::time_t,
    pub last_time: libc::time_t,
}

/// Release what a record holds: its usage arrays, and its TRES list unless
/// that is `keep` (the association manager's own list); not the record.
///
/// # Safety
/// Every array of `r` is NULL or xmalloc'ed; its list NULL or a live list.
pub unsafe fn free_jobacct_members(r: &mut Jobacctinfo, keep: *mut sys::xlist) {
    // SAFETY: each array is NULL or xmalloc'ed (the contract), released
    // once and cleared.
    unsafe {
        xfree(&mut r.tres_ids);
        for a in [
            &mut r.tres_usage_in_max,
            &mut r.tres_usage_in_max_nodeid,
            &mut r.tres_usage_in_max_taskid,
            &mut r.tres_usage_in_min,
            &mut r.tres_usage_in_min_nodeid,
            &mut r.tres_usage_in_min_taskid,
            &mut r.tres_usage_in_tot,
            &mut r.tres_usage_out_max,
            &mut r.tres_usage_out_max_nodeid,
            &mut r.tres_usage_out_max_taskid,
            &mut r.tres_usage_out_min,
            &mut r.tres_usage_out_min_nodeid,
            &mut r.tres_usage_out_min_taskid,
            &mut r.tres_usage_out_tot,
        ] {
            xfree(a);
        }
    }
    if !r.tres_list.is_null() && r.tres_list != keep {
        // SAFETY: a live list owned by the record (the contract).
        unsafe { crate::list::slurm_list_destroy(r.tres_list) };
    }
    r.tres_list = null_mut();
}

/// A node's record: its tasks' CPU times and frequencies (see the module doc).
fn jobacct(u: &spur_core::usage::NodeUsage) -> *mut Jobacctinfo {
    let j = xnew::<Jobacctinfo>();
    // SAFETY: a new zeroed block the size of the record (zero is valid for
    // each of its integers, floats and pointers).
    let r = unsafe { &mut *j };
    r.user_cpu_sec = u.user_us / 1_000_000;
    r.user_cpu_usec = (u.user_us % 1_000_000) as u32;
    r.sys_cpu_sec = u.sys_us / 1_000_000;
    r.sys_cpu_usec = (u.sys_us % 1_000_000) as u32;
    r.act_cpufreq = u.tot_cpu_freq.min(u64::from(u32::MAX)) as u32;
    r.id = JobacctId { taskid: sys::NO_VAL, nodeid: sys::NO_VAL, step: null_mut() };
    r.dataset_id = -1;
    j
}

/// The list's destructor: `slurm_job_step_stat_free` of an item.
unsafe extern "C" fn free_item(x: *mut c_void) {
    // SAFETY: the list holds records of this module.
    unsafe { slurm_job_step_stat_free(x.cast()) }
}

/// `int slurm_job_step_stat(slurm_step_id_t *step_id, char *node_list,
/// uint16_t use_protocol_ver, job_step_stat_response_msg_t **resp)`: see
/// the module doc. `*resp` NULL gets a new message (freed with
/// `slurm_job_step_stat_response_msg_free`); an existing one is filled.
///
/// # Safety
/// `step_id` is NULL or readable; `node_list` NULL or NUL-terminated;
/// `resp` NULL or a writable pointer holding NULL or such a message.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_stat(
    step_id: *mut sys::slurm_step_id_t,
    node_list: *mut c_char,
    use_protocol_ver: u16,
    resp: *mut *mut sys::job_step_stat_response_msg_t,
) -> c_int {
    let _ = use_protocol_ver;
    crate::guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let (Some(id), false) = (unsafe { step_id.as_ref() }, resp.is_null()) else {
            crate::errno::set(libc::EINVAL);
            return sys::SLURM_ERROR;
        };
        // SAFETY: node_list is NULL or NUL-terminated (the contract).
        let (usage, pids, rc) = match unsafe { crate::pids::ask(id, node_list) } {
            Ok(a) => a,
            Err(code) => return code,
        };
        // SAFETY: resp is writable (checked above, the contract).
        let out = unsafe {
            if (*resp).is_null() {
                *resp = xnew::<sys::job_step_stat_response_msg_t>();
            }
            &mut **resp
        };
        out.step_id = *id;
        for a in &pids {
            let u = usage.iter().find(|u| u.node == a.node).cloned().unwrap_or_default();
            let s = xnew::<sys::job_step_stat_t>();
            // SAFETY: a new zeroed record.
            let rec = unsafe { &mut *s };
            rec.jobacct = jobacct(&u).cast();
            // (its running tasks; before its first sample too)
            rec.num_tasks = a.tasks;
            rec.return_code = 0;
            rec.step_pids = crate::pids::record(&a.node, &a.pids).cast();
            if out.stats_list.is_null() {
                out.stats_list = crate::list::list_from(Vec::new(), Some(free_item));
            }
            // SAFETY: the message's list, from this library.
            unsafe { crate::list::slurm_list_append(out.stats_list, s.cast()) };
        }
        rc
    })
}

/// `void slurm_job_step_stat_free(job_step_stat_t *object)`: one node's
/// record, its `jobacct` and `step_pids` (NULL: nothing).
///
/// # Safety
/// `object` is NULL or a record of this library, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_stat_free(object: *mut sys::job_step_stat_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract: a record of this module.
        unsafe {
            let Some(r) = object.as_mut() else { return };
            let mut j = r.jobacct.cast::<Jobacctinfo>();
            if let Some(a) = j.as_mut() {
                free_jobacct_members(a, null_mut());
                xfree(&mut j);
            }
            crate::pids::slurm_job_step_pids_free(r.step_pids);
            let mut p = object;
            xfree(&mut p);
        }
    })
}

/// `void slurm_job_step_stat_response_msg_free(void *object)`: a message of
/// `slurm_job_step_stat`, its list and records (NULL: nothing).
///
/// # Safety
/// `object` is NULL or such a message, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_stat_response_msg_free(object: *mut c_void) {
    let msg = object.cast::<sys::job_step_stat_response_msg_t>();
    // SAFETY: the caller's contract.
    crate::guard((), || unsafe { crate::pids::free_list_msg(msg, |m| &mut m.stats_list) })
}
