//! The slurmdb helpers that need no database: the job record pyslurm's
//! `pyslurm.db.Job` builds (`slurmdb_create_job_rec`) and releases
//! (`slurmdb_destroy_job_rec`, with its steps' `slurmdb_destroy_step_rec`),
//! and the default time window of a job query
//! (`slurmdb_job_cond_def_start_end`), each as Slurm's
//! src/common/slurmdb_defs.c behaves; the init and destroy functions of the
//! conditions and records consumers build.
//!
//! Spur has no slurmdbd: its controllers keep the accounting records. What
//! they can answer is served from them: a connection handle when
//! AccountingStorageType turns accounting on (`slurmdb_connection_get`),
//! the job records sacct reads (`slurmdb_jobs_get`), this cluster's record
//! (`slurmdb_clusters_get`) and its QOS records (`slurmdb_qos_get`). The
//! controllers keep accounts, users and associations too (`sacctmgr`,
//! `sshare`), but no consumer of the ABI study reads them through the
//! library: `slurmdb_users_get`, `slurmdb_accounts_get` and
//! `slurmdb_associations_get` stay unserved.

// (enumerators are cast to the fields' types)
#![allow(clippy::unnecessary_cast)]

use crate::sys;
use crate::xmalloc::xfree;
use std::ffi::{c_int, c_void};

/// `JOBCOND_FLAG_RUNAWAY` and `JOBCOND_FLAG_NO_DEFAULT_USAGE` of slurmdb.h
/// (`SLURM_BIT(3)`, `SLURM_BIT(7)`: macros bindgen cannot read).
const JOBCOND_FLAG_RUNAWAY: u32 = 1 << 3;
const JOBCOND_FLAG_NO_DEFAULT_USAGE: u32 = 1 << 7;

/// `slurmdb_job_rec_t *slurmdb_create_job_rec(void)`: a new record as
/// Slurm makes one: zeroed, `array_task_id`, `derived_ec`, `lft` and
/// `resvid` NO_VAL, `requid` -1, state PENDING, and an empty `steps` List
/// whose items `slurmdb_destroy_step_rec` releases. Release it with
/// `slurmdb_destroy_job_rec`; NULL when memory runs out.
#[no_mangle]
pub extern "C" fn slurmdb_create_job_rec() -> *mut sys::slurmdb_job_rec_t {
    crate::guard(std::ptr::null_mut(), || {
        let job = crate::xmalloc::xnew::<sys::slurmdb_job_rec_t>();
        if job.is_null() {
            return job;
        }
        // SAFETY: a new zeroed block the size of the record.
        let j = unsafe { &mut *job };
        j.array_task_id = sys::NO_VAL;
        j.derived_ec = sys::NO_VAL;
        j.state = sys::JOB_PENDING as u32;
        j.steps = crate::list::list_from(Vec::new(), Some(slurmdb_destroy_step_rec));
        j.requid = u32::MAX;
        j.lft = sys::NO_VAL;
        j.resvid = sys::NO_VAL;
        job
    })
}

/// `void slurmdb_destroy_job_rec(void *object)`: release a job record, its
/// strings and its `steps` List (NULL: nothing).
///
/// # Safety
/// `object` is NULL or a `slurmdb_job_rec_t` in xmalloc's layout whose
/// strings are NULL or xmalloc'ed and whose `steps` is NULL or a List of
/// this library; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_job_rec(object: *mut c_void) {
    crate::guard((), || {
        let job = object.cast::<sys::slurmdb_job_rec_t>();
        if job.is_null() {
            return;
        }
        // SAFETY: a live record (the caller's contract).
        let j = unsafe { &mut *job };
        // SAFETY: each string is NULL or xmalloc'ed, released once; steps is
        // NULL or a live List (the contract).
        unsafe {
            for s in [
                &mut j.account,
                &mut j.admin_comment,
                &mut j.array_task_str,
                &mut j.blockid,
                &mut j.cluster,
                &mut j.constraints,
                &mut j.container,
                &mut j.derived_es,
                &mut j.env,
                &mut j.jobname,
                &mut j.mcs_label,
                &mut j.partition,
                &mut j.nodes,
                &mut j.resv_name,
                &mut j.script,
                &mut j.submit_line,
                &mut j.system_comment,
                &mut j.tres_alloc_str,
                &mut j.tres_req_str,
                &mut j.user,
                &mut j.wckey,
                &mut j.work_dir,
            ] {
                xfree(s);
            }
            #[cfg(not(feature = "slurm-22-05"))]
            for s in [
                &mut j.extra,
                &mut j.failed_node,
                &mut j.licenses,
                &mut j.lineage,
                &mut j.qos_req,
                &mut j.std_err,
                &mut j.std_in,
                &mut j.std_out,
            ] {
                xfree(s);
            }
            crate::list::slurm_list_destroy(j.steps);
            j.steps = std::ptr::null_mut();
            let mut p = job;
            xfree(&mut p);
        }
    })
}

/// `void slurmdb_destroy_step_rec(void *object)`: release a step record of
/// a job record's `steps` with its strings (NULL: nothing).
///
/// # Safety
/// `object` is NULL or a `slurmdb_step_rec_t` in xmalloc's layout whose
/// strings are NULL or xmalloc'ed; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_step_rec(object: *mut c_void) {
    crate::guard((), || {
        let step = object.cast::<sys::slurmdb_step_rec_t>();
        if step.is_null() {
            return;
        }
        // SAFETY: a live record (the caller's contract).
        let s = unsafe { &mut *step };
        let st = &mut s.stats;
        // SAFETY: each string is NULL or xmalloc'ed, released once.
        unsafe {
            for p in [
                &mut s.container,
                &mut s.nodes,
                &mut s.pid_str,
                &mut s.stepname,
                &mut s.submit_line,
                &mut s.tres_alloc_str,
                &mut st.tres_usage_in_ave,
                &mut st.tres_usage_in_max,
                &mut st.tres_usage_in_max_nodeid,
                &mut st.tres_usage_in_max_taskid,
                &mut st.tres_usage_in_min,
                &mut st.tres_usage_in_min_nodeid,
                &mut st.tres_usage_in_min_taskid,
                &mut st.tres_usage_in_tot,
                &mut st.tres_usage_out_ave,
                &mut st.tres_usage_out_max,
                &mut st.tres_usage_out_max_nodeid,
                &mut st.tres_usage_out_max_taskid,
                &mut st.tres_usage_out_min,
                &mut st.tres_usage_out_min_nodeid,
                &mut st.tres_usage_out_min_taskid,
                &mut st.tres_usage_out_tot,
            ] {
                xfree(p);
            }
            let mut p = step;
            xfree(&mut p);
        }
    })
}

/// Local midnight of the day `now` falls in (`now` itself when the C
/// library cannot tell), as Slurm's `slurm_mktime` of a `struct tm` whose
/// time of day was cleared.
fn midnight(now: libc::time_t) -> libc::time_t {
    // SAFETY: tm is a local the C library fills; mktime reads and
    // normalises it.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&now, &mut tm).is_null() {
            return now;
        }
        tm.tm_sec = 0;
        tm.tm_min = 0;
        tm.tm_hour = 0;
        tm.tm_isdst = -1;
        libc::mktime(&mut tm)
    }
}

/// The window Slurm's `slurmdb_job_cond_def_start_end` gives a query at
/// time `now`: (usage_start, usage_end).
fn default_window(start: i64, end: i64, states: bool, steps: bool, now: i64) -> (i64, i64) {
    let (mut start, mut end) = (start, end);
    if states {
        // -s: from now (-j: from the epoch), to the start
        if start == 0 && !steps {
            start = now;
        }
        if start != 0 && end == 0 {
            end = start;
        }
    } else if !steps && start == 0 {
        // neither -j nor -s: from today's midnight
        start = midnight(now as libc::time_t) as i64;
    }
    if end == 0 {
        end = now;
    }
    // the window is [start, end): include start, and the current second
    if end == start || end == now {
        end += 1;
    }
    (start, end)
}

/// `void slurmdb_job_cond_def_start_end(slurmdb_job_cond_t *job_cond)`:
/// fill in the time window of a job query the way sacct defaults it:
/// with states asked for, from now (or the epoch when job ids are given) to
/// the start; without, from midnight (or the epoch when job ids are given)
/// to now; the end one second later when it equals the start or now.
/// Nothing for NULL, a runaway query or one with `NO_DEFAULT_USAGE`.
///
/// # Safety
/// `job_cond` is NULL or a writable condition whose `state_list` and
/// `step_list` are NULL or Lists of this library.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_job_cond_def_start_end(job_cond: *mut sys::slurmdb_job_cond_t) {
    crate::guard((), || {
        if job_cond.is_null() {
            return;
        }
        // SAFETY: not NULL, writable (the caller's contract).
        let c = unsafe { &mut *job_cond };
        if c.flags & (JOBCOND_FLAG_RUNAWAY | JOBCOND_FLAG_NO_DEFAULT_USAGE) != 0 {
            return;
        }
        // SAFETY: NULL or live Lists (the contract).
        let (states, steps) = unsafe {
            (crate::list::slurm_list_count(c.state_list) > 0, crate::list::slurm_list_count(c.step_list) > 0)
        };
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
        let (start, end) = default_window(c.usage_start as i64, c.usage_end as i64, states, steps, now);
        c.usage_start = start as sys::time_t;
        c.usage_end = end as sys::time_t;
    })
}

// ---------------------------------------------------------------------------
// Freeing members: Lists (their own destructors free the items) and
// xmalloc'ed blocks, each set to NULL.

macro_rules! free_lists {
    ($($l:expr),* $(,)?) => {{
        $(
            crate::list::slurm_list_destroy($l);
            $l = std::ptr::null_mut();
        )*
    }};
}

macro_rules! free_blocks {
    ($($p:expr),* $(,)?) => {{
        $( xfree(&mut $p); )*
    }};
}

/// Release `object` itself (xmalloc'ed) after `members` freed its members:
/// the shape of every `slurmdb_destroy_*` (NULL: nothing).
///
/// # Safety
/// `object` is NULL or a live, xmalloc'ed `T` whose members `members`
/// may free.
unsafe fn destroy_with<T>(object: *mut c_void, members: impl FnOnce(&mut T)) {
    crate::guard((), || {
        let mut p = object.cast::<T>();
        if p.is_null() {
            return;
        }
        // SAFETY: a live record (the caller's contract).
        members(unsafe { &mut *p });
        // SAFETY: xmalloc'ed, released once.
        unsafe { xfree(&mut p) };
    })
}

/// Clear `*rec` (its members first when `free_it`) and let `defaults`
/// set what Slurm's init sets: the shape of every `slurmdb_init_*`.
///
/// # Safety
/// `rec` is NULL or a writable `T`; with `free_it` its members are NULL or
/// this library's blocks and Lists.
unsafe fn init_with<T>(rec: *mut T, free_it: bool, free: unsafe fn(&mut T), defaults: impl FnOnce(&mut T)) {
    crate::guard((), || {
        if rec.is_null() {
            return;
        }
        // SAFETY: writable (the caller's contract).
        let r = unsafe { &mut *rec };
        if free_it {
            // SAFETY: the members are NULL or this library's (the contract).
            unsafe { free(r) };
        }
        // SAFETY: all the records are integers, pointers, Lists and
        // doubles: all-zero is a valid value.
        *r = unsafe { std::mem::zeroed() };
        defaults(r);
    })
}

/// Free an association's members, as `slurmdb_free_assoc_rec_members`.
///
/// # Safety
/// Every member NULL or this library's.
unsafe fn free_assoc_members(a: &mut sys::slurmdb_assoc_rec_t) {
    // SAFETY: the caller's contract.
    unsafe {
        free_lists!(a.accounting_list, a.qos_list);
        free_blocks!(
            a.acct,
            a.cluster,
            a.grp_tres,
            a.grp_tres_ctld,
            a.grp_tres_mins,
            a.grp_tres_mins_ctld,
            a.grp_tres_run_mins,
            a.grp_tres_run_mins_ctld,
            a.max_tres_mins_pj,
            a.max_tres_mins_ctld,
            a.max_tres_run_mins,
            a.max_tres_run_mins_ctld,
            a.max_tres_pj,
            a.max_tres_ctld,
            a.max_tres_pn,
            a.max_tres_pn_ctld,
            a.parent_acct,
            a.partition,
            a.user,
        );
        if a.leaf_usage != a.usage {
            free_assoc_usage(a.leaf_usage);
        }
        a.leaf_usage = std::ptr::null_mut();
        free_assoc_usage(a.usage);
        a.usage = std::ptr::null_mut();
        a.user_rec = std::ptr::null_mut();
        free_blocks!(a.bf_usage);
    }
}

/// # Safety
/// NULL or a live usage block of this library.
unsafe fn free_assoc_usage(mut u: *mut sys::slurmdb_assoc_usage_t) {
    if u.is_null() {
        return;
    }
    // SAFETY: live (the contract); each member released once.
    unsafe {
        let m = &mut *u;
        free_lists!(m.children_list);
        crate::bitstr::slurm_bit_free(&mut m.grp_node_bitmap);
        crate::bitstr::slurm_bit_free(&mut m.valid_qos);
        free_blocks!(m.grp_node_job_cnt, m.grp_used_tres_run_secs, m.grp_used_tres, m.usage_tres_raw);
        xfree(&mut u);
    }
}

/// Free a QOS's members, as `slurmdb_free_qos_rec_members`.
///
/// # Safety
/// Every member NULL or this library's.
unsafe fn free_qos_members(q: &mut sys::slurmdb_qos_rec_t) {
    // SAFETY: the caller's contract.
    unsafe {
        free_blocks!(
            q.description,
            q.grp_tres,
            q.grp_tres_ctld,
            q.grp_tres_mins,
            q.grp_tres_mins_ctld,
            q.grp_tres_run_mins,
            q.grp_tres_run_mins_ctld,
            q.max_tres_mins_pj,
            q.max_tres_mins_pj_ctld,
            q.max_tres_run_mins_pa,
            q.max_tres_run_mins_pa_ctld,
            q.max_tres_run_mins_pu,
            q.max_tres_run_mins_pu_ctld,
            q.max_tres_pa,
            q.max_tres_pa_ctld,
            q.max_tres_pj,
            q.max_tres_pj_ctld,
            q.max_tres_pn,
            q.max_tres_pn_ctld,
            q.max_tres_pu,
            q.max_tres_pu_ctld,
            q.min_tres_pj,
            q.min_tres_pj_ctld,
            q.name,
        );
        crate::bitstr::slurm_bit_free(&mut q.preempt_bitstr);
        free_lists!(q.preempt_list);
        let u = q.usage;
        if !u.is_null() {
            let m = &mut *u;
            free_lists!(m.acct_limit_list, m.job_list, m.user_limit_list);
            crate::bitstr::slurm_bit_free(&mut m.grp_node_bitmap);
            free_blocks!(m.grp_node_job_cnt, m.grp_used_tres_run_secs, m.grp_used_tres, m.usage_tres_raw);
        }
        free_blocks!(q.usage);
    }
}

/// # Safety
/// Every member NULL or this library's.
unsafe fn free_cluster_cond_members(c: &mut sys::slurmdb_cluster_cond_t) {
    // SAFETY: the caller's contract.
    unsafe {
        free_lists!(c.cluster_list, c.federation_list, c.format_list, c.rpc_version_list);
        #[cfg(feature = "slurm-22-05")]
        free_lists!(c.plugin_id_select_list);
    }
}

/// # Safety
/// Every member NULL or this library's.
unsafe fn free_cluster_members(c: &mut sys::slurmdb_cluster_rec_t) {
    // SAFETY: the caller's contract.
    unsafe {
        free_lists!(c.accounting_list, c.send_rpc, c.fed.feature_list);
        free_blocks!(c.control_host, c.dim_size, c.fed.name, c.name, c.nodes, c.tres_str);
        slurmdb_destroy_assoc_rec(c.root_assoc.cast());
        c.root_assoc = std::ptr::null_mut();
    }
}

/// # Safety
/// Every member NULL or this library's.
unsafe fn free_tres_cond_members(c: &mut sys::slurmdb_tres_cond_t) {
    // SAFETY: the caller's contract.
    unsafe { free_lists!(c.format_list, c.id_list, c.name_list, c.type_list) };
}

/// `void slurmdb_destroy_assoc_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose Lists are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_assoc_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |c: &mut sys::slurmdb_assoc_cond_t| {
            free_lists!(
                c.acct_list,
                c.cluster_list,
                c.def_qos_id_list,
                c.format_list,
                c.id_list,
                c.partition_list,
                c.parent_acct_list,
                c.qos_list,
                c.user_list,
            );
        })
    }
}

/// `void slurmdb_destroy_assoc_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_assoc_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy_with(object, |a: &mut sys::slurmdb_assoc_rec_t| free_assoc_members(a)) }
}

/// `void slurmdb_destroy_cluster_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose Lists are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_cluster_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy_with(object, |c: &mut sys::slurmdb_cluster_cond_t| free_cluster_cond_members(c)) }
}

/// `void slurmdb_destroy_cluster_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_cluster_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy_with(object, |c: &mut sys::slurmdb_cluster_rec_t| free_cluster_members(c)) }
}

/// `void slurmdb_destroy_event_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_event_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |c: &mut sys::slurmdb_event_cond_t| {
            free_lists!(c.cluster_list, c.format_list, c.reason_list, c.reason_uid_list, c.state_list);
            free_blocks!(c.node_list);
        })
    }
}

/// `void slurmdb_destroy_event_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose strings are NULL or xmalloc'ed.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_event_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |e: &mut sys::slurmdb_event_rec_t| {
            free_blocks!(e.cluster, e.cluster_nodes, e.node_name, e.reason, e.tres_str);
        })
    }
}

/// `void slurmdb_destroy_job_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_job_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |c: &mut sys::slurmdb_job_cond_t| {
            free_lists!(
                c.acct_list,
                c.associd_list,
                c.cluster_list,
                c.constraint_list,
                c.format_list,
                c.groupid_list,
                c.jobname_list,
                c.partition_list,
                c.qos_list,
                c.reason_list,
                c.resv_list,
                c.resvid_list,
                c.step_list,
                c.state_list,
                c.userid_list,
                c.wckey_list,
            );
            free_blocks!(c.used_nodes);
        })
    }
}

/// `void slurmdb_destroy_qos_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose Lists are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_qos_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |c: &mut sys::slurmdb_qos_cond_t| {
            free_lists!(c.description_list, c.format_list, c.id_list, c.name_list);
        })
    }
}

/// `void slurmdb_destroy_qos_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_qos_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy_with(object, |q: &mut sys::slurmdb_qos_rec_t| free_qos_members(q)) }
}

/// `void slurmdb_destroy_reservation_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_reservation_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |c: &mut sys::slurmdb_reservation_cond_t| {
            free_lists!(c.cluster_list, c.format_list, c.id_list, c.name_list);
            free_blocks!(c.nodes);
        })
    }
}

/// `void slurmdb_destroy_reservation_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose members are NULL or xmalloc'ed.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_reservation_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |r: &mut sys::slurmdb_reservation_rec_t| {
            free_blocks!(r.assocs, r.cluster, r.name, r.nodes, r.node_inx, r.tres_str);
            #[cfg(not(feature = "slurm-22-05"))]
            free_blocks!(r.comment);
        })
    }
}

/// `void slurmdb_destroy_tres_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose Lists are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_tres_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy_with(object, |c: &mut sys::slurmdb_tres_cond_t| free_tres_cond_members(c)) }
}

/// `void slurmdb_destroy_tres_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose strings are NULL or xmalloc'ed.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_tres_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy_with(object, |t: &mut sys::slurmdb_tres_rec_t| free_blocks!(t.name, t.type_)) }
}

/// `void slurmdb_destroy_user_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_user_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |c: &mut sys::slurmdb_user_cond_t| {
            slurmdb_destroy_assoc_cond(c.assoc_cond.cast());
            c.assoc_cond = std::ptr::null_mut();
            free_lists!(c.def_acct_list, c.def_wckey_list);
        })
    }
}

/// `void slurmdb_destroy_user_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_user_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |u: &mut sys::slurmdb_user_rec_t| {
            free_lists!(u.assoc_list, u.coord_accts, u.wckey_list);
            free_blocks!(u.default_acct, u.default_wckey, u.name, u.old_name, u.bf_usage);
        })
    }
}

/// `void slurmdb_destroy_account_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_account_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |c: &mut sys::slurmdb_account_cond_t| {
            slurmdb_destroy_assoc_cond(c.assoc_cond.cast());
            c.assoc_cond = std::ptr::null_mut();
            free_lists!(c.description_list, c.organization_list);
        })
    }
}

/// `void slurmdb_destroy_account_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_account_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |a: &mut sys::slurmdb_account_rec_t| {
            free_lists!(a.assoc_list, a.coordinators);
            free_blocks!(a.description, a.name, a.organization);
        })
    }
}

/// `void slurmdb_destroy_wckey_cond(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed condition whose Lists are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_wckey_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |c: &mut sys::slurmdb_wckey_cond_t| {
            free_lists!(c.cluster_list, c.format_list, c.id_list, c.name_list, c.user_list);
        })
    }
}

/// `void slurmdb_destroy_wckey_rec(void *object)`.
///
/// # Safety
/// NULL or an xmalloc'ed record whose members are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_wckey_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy_with(object, |w: &mut sys::slurmdb_wckey_rec_t| {
            free_lists!(w.accounting_list);
            free_blocks!(w.cluster, w.name, w.user);
        })
    }
}

/// `void slurmdb_init_assoc_rec(slurmdb_assoc_rec_t *assoc, bool free_it)`:
/// cleared, its limits, ids and priority NO_VAL, `is_def` NO_VAL16.
///
/// # Safety
/// NULL or writable; with `free_it`, members NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_assoc_rec(assoc: *mut sys::slurmdb_assoc_rec_t, free_it: bool) {
    // SAFETY: the caller's contract.
    unsafe {
        init_with(assoc, free_it, free_assoc_members, |a| {
            a.def_qos_id = sys::NO_VAL;
            a.is_def = sys::NO_VAL16 as u16;
            a.grp_jobs = sys::NO_VAL;
            a.grp_jobs_accrue = sys::NO_VAL;
            a.grp_submit_jobs = sys::NO_VAL;
            a.grp_wall = sys::NO_VAL;
            #[cfg(feature = "slurm-22-05")]
            {
                a.lft = sys::NO_VAL;
                a.rgt = sys::NO_VAL;
            }
            a.max_jobs = sys::NO_VAL;
            a.max_jobs_accrue = sys::NO_VAL;
            a.min_prio_thresh = sys::NO_VAL;
            a.max_submit_jobs = sys::NO_VAL;
            a.max_wall_pj = sys::NO_VAL;
            a.priority = sys::NO_VAL;
            a.shares_raw = sys::NO_VAL;
        })
    }
}

/// `void slurmdb_init_cluster_cond(slurmdb_cluster_cond_t *cluster, bool
/// free_it)`: cleared, `flags` NO_VAL.
///
/// # Safety
/// NULL or writable; with `free_it`, Lists NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_cluster_cond(cluster: *mut sys::slurmdb_cluster_cond_t, free_it: bool) {
    // SAFETY: the caller's contract.
    unsafe { init_with(cluster, free_it, free_cluster_cond_members, |c| c.flags = sys::NO_VAL) }
}

/// `void slurmdb_init_cluster_rec(slurmdb_cluster_rec_t *cluster, bool
/// free_it)`: cleared, `flags` and the federation state NO_VAL (a zeroed
/// mutex is glibc's static initializer).
///
/// # Safety
/// NULL or writable; with `free_it`, members NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_cluster_rec(cluster: *mut sys::slurmdb_cluster_rec_t, free_it: bool) {
    // SAFETY: the caller's contract.
    unsafe {
        init_with(cluster, free_it, free_cluster_members, |c| {
            c.flags = sys::NO_VAL;
            c.fed.state = sys::NO_VAL;
        })
    }
}

/// `void slurmdb_init_tres_cond(slurmdb_tres_cond_t *tres, bool free_it)`:
/// cleared, `count` NO_VAL.
///
/// # Safety
/// NULL or writable; with `free_it`, Lists NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_tres_cond(tres: *mut sys::slurmdb_tres_cond_t, free_it: bool) {
    // SAFETY: the caller's contract.
    unsafe { init_with(tres, free_it, free_tres_cond_members, |c| c.count = sys::NO_VAL as u64) }
}

/// `void slurmdb_init_qos_rec(slurmdb_qos_rec_t *qos, bool free_it,
/// uint32_t init_val)`: cleared, flags NOTSET, every limit, the grace and
/// exempt times, the priority, the preempt mode and the factors `init_val`.
///
/// # Safety
/// NULL or writable; with `free_it`, members NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_qos_rec(qos: *mut sys::slurmdb_qos_rec_t, free_it: bool, init_val: u32) {
    // SAFETY: the caller's contract.
    unsafe { init_with(qos, free_it, free_qos_members, |q| qos_defaults(q, init_val)) }
}

fn qos_defaults(q: &mut sys::slurmdb_qos_rec_t, v: u32) {
    q.flags = sys::QOS_FLAG_NOTSET;
    q.grace_time = v;
    q.preempt_mode = v as u16;
    q.preempt_exempt_time = v;
    q.priority = v;
    q.grp_jobs = v;
    q.grp_jobs_accrue = v;
    q.grp_submit_jobs = v;
    q.grp_wall = v;
    q.limit_factor = v as f64;
    q.max_jobs_pa = v;
    q.max_jobs_pu = v;
    q.max_jobs_accrue_pa = v;
    q.max_jobs_accrue_pu = v;
    q.min_prio_thresh = v;
    q.max_submit_jobs_pa = v;
    q.max_submit_jobs_pu = v;
    q.max_wall_pj = v;
    q.usage_factor = v as f64;
    q.usage_thres = v as f64;
}

// ---------------------------------------------------------------------------
// The connection.

/// The handle `slurmdb_connection_get` gives: a block of its own, so that
/// a consumer comparing it with NULL or freeing it through
/// `slurmdb_connection_close` sees what it expects.
#[repr(C)]
struct DbConn {
    magic: u32,
}
const DB_CONN_MAGIC: u32 = 0x5350_4442; // "SPDB"

/// Whether slurm.conf turns accounting on (errno set when the
/// configuration cannot be read).
pub(crate) fn accounting_on() -> bool {
    crate::conn::conf().map(|c| c.accounting_enabled()).unwrap_or(false)
}

/// `void *slurmdb_connection_get(uint16_t *persist_conn_flags)`: a handle
/// for the other slurmdb calls when AccountingStorageType turns accounting
/// on (Spur's controllers answer them: nothing is connected here); NULL
/// otherwise, as Slurm's accounting_storage/none gives (errno untouched,
/// unless the configuration could not be read). `*persist_conn_flags`, when
/// given, is left as it is (no persistent connection's flags to report).
///
/// # Safety
/// `persist_conn_flags` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_connection_get(persist_conn_flags: *mut u16) -> *mut c_void {
    let _ = persist_conn_flags;
    crate::guard(std::ptr::null_mut(), || {
        if !accounting_on() {
            return std::ptr::null_mut();
        }
        let h = crate::xmalloc::xnew::<DbConn>();
        if !h.is_null() {
            // SAFETY: a new block the size of a DbConn.
            unsafe { (*h).magic = DB_CONN_MAGIC };
        }
        h.cast()
    })
}

/// `int slurmdb_connection_close(void **db_conn)`: release the handle and
/// set `*db_conn` to NULL; SLURM_SUCCESS (also for NULL or an already
/// closed handle, as Slurm's).
///
/// # Safety
/// `db_conn` is NULL or points to NULL or a handle of
/// `slurmdb_connection_get`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_connection_close(db_conn: *mut *mut c_void) -> c_int {
    crate::guard(sys::SLURM_SUCCESS as c_int, || {
        if db_conn.is_null() {
            return sys::SLURM_SUCCESS as c_int;
        }
        // SAFETY: a writable pointer to NULL or our handle (the contract).
        unsafe {
            let mut h = (*db_conn).cast::<DbConn>();
            if !h.is_null() && (*h).magic == DB_CONN_MAGIC {
                (*h).magic = 0;
                xfree(&mut h);
            }
            *db_conn = std::ptr::null_mut();
        }
        sys::SLURM_SUCCESS as c_int
    })
}

/// `int slurmdb_connection_commit(void *db_conn, bool commit)`: Spur's
/// records are committed as they are written (nothing held back to commit
/// or roll back): SLURM_SUCCESS.
///
/// # Safety
/// `db_conn` is not read.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_connection_commit(db_conn: *mut c_void, commit: bool) -> c_int {
    let _ = (db_conn, commit);
    sys::SLURM_SUCCESS as c_int
}

// ---------------------------------------------------------------------------
// Jobs.

/// `JOBCOND_FLAG_DUP`, `_NO_STEP`, `_NO_TRUNC` (`SLURM_BIT(0..2)`).
const JOBCOND_FLAG_DUP: u32 = 1 << 0;
const JOBCOND_FLAG_NO_STEP: u32 = 1 << 1;
const JOBCOND_FLAG_NO_TRUNC: u32 = 1 << 2;
/// `SLURMDB_JOB_FLAG_SCHED`, `_BACKFILL` (`SLURM_BIT(2)`, `SLURM_BIT(3)`).
const SLURMDB_JOB_FLAG_SCHED: u32 = 1 << 2;
const SLURMDB_JOB_FLAG_BACKFILL: u32 = 1 << 3;
/// `JOB_REQUEUE`: the state slurmdbd records for a requeued run.
const JOB_REQUEUE: u32 = 0x400;
/// TRES ids of a default install: cpu, mem, energy, node, billing,
/// fs/disk, vmem, pages; the first GRES (gres/gpu).
const TRES_CPU: u32 = 1;
const TRES_MEM: u32 = 2;
const TRES_NODE: u32 = 4;
const TRES_BILLING: u32 = 5;
const TRES_FS_DISK: u32 = 6;
const TRES_VMEM: u32 = 7;
const TRES_PAGES: u32 = 8;
const TRES_GPU: u32 = 1001;

use spur_core::acct::{AcctJob, AcctQuery, AcctState, AcctStep};

/// The job state number slurmdbd records (`JOB_*`, `JOB_REQUEUE`).
fn state_num(s: AcctState) -> u32 {
    match AcctState::ALL.iter().position(|&a| a == s) {
        Some(i) if s != AcctState::Requeued => i as u32,
        _ => JOB_REQUEUE,
    }
}

/// A state number of a condition's `state_list` (None: none Spur records).
fn state_of_num(n: u32) -> Option<AcctState> {
    if n == JOB_REQUEUE {
        return Some(AcctState::Requeued);
    }
    AcctState::ALL.get(n as usize).copied().filter(|&s| s != AcctState::Requeued)
}

/// `ID=N,...` sorted by id (slurmdb's TRES string), None when empty.
fn tres_ids(mut v: Vec<(u32, u64)>) -> Option<String> {
    if v.is_empty() {
        return None;
    }
    v.sort_by_key(|x| x.0);
    Some(v.iter().map(|(i, n)| format!("{}={}", i, n)).collect::<Vec<_>>().join(","))
}

/// GPUs per node of a `--gres` request (`gpu:2`, `gpu:a100:1`).
fn gpus(gres: &str) -> Option<u64> {
    gres.split(',').find_map(|g| {
        let mut parts = g.split(':');
        if parts.next()? != "gpu" {
            return None;
        }
        Some(parts.next_back().and_then(|n| n.parse().ok()).unwrap_or(1))
    })
}

/// The TRES a job asked for (`alloc` false) or was given.
fn job_tres(j: &AcctJob, alloc: bool) -> Vec<(u32, u64)> {
    let (cpus, mem, nodes) = if alloc {
        if j.start == 0 || j.nodes.is_empty() {
            return vec![];
        }
        (j.alloc_cpus as u64, j.alloc_mem_mb, j.nodes.len() as u64)
    } else {
        (j.req_cpus as u64, j.req_mem_mb, j.req_nodes.max(1) as u64)
    };
    let mut v = vec![(TRES_CPU, cpus), (TRES_NODE, nodes), (TRES_BILLING, cpus)];
    if mem > 0 {
        v.push((TRES_MEM, mem));
    }
    if let Some(g) = gpus(&j.gres) {
        v.push((TRES_GPU, g * nodes));
    }
    v
}

fn step_tres(j: &AcctJob, s: &AcctStep) -> Vec<(u32, u64)> {
    if s.step_id == spur_core::model::EXTERN_STEP {
        return job_tres(j, true);
    }
    let mut v = vec![(TRES_CPU, s.cpus as u64), (TRES_NODE, s.nodes.len() as u64)];
    if s.mem_mb > 0 {
        v.push((TRES_MEM, s.mem_mb));
    }
    v
}

/// The tasks of `ranges` (`1-3,5`) as Slurm's `bit_fmt_hexmask` writes
/// them (`0x2E`), None when empty.
fn hexmask(ranges: &str) -> Option<String> {
    let tasks = spur_grammar::jobref::expand_ranges(ranges);
    let max = *tasks.iter().max()?;
    let mut digits = vec![0u8; max as usize / 4 + 1];
    for t in tasks {
        digits[t as usize / 4] |= 1 << (t % 4);
    }
    Some(format!("0x{}", digits.iter().rev().map(|d| format!("{:X}", d)).collect::<String>()))
}

/// A step's usage as slurmdbd's TRES usage strings: (in_ave, in_max,
/// in_max_nodeid, in_max_taskid, in_min, in_min_nodeid, in_min_taskid,
/// in_tot, out_ave, out_max, out_max_nodeid, out_max_taskid, out_tot) and
/// the average CPU frequency. Node ids are positions in the step's nodes.
fn usage_strings(s: &AcctStep) -> Option<([Option<String>; 13], f64)> {
    let u = &s.usage;
    if u.is_empty() {
        return None;
    }
    let node_ix = |name: &str| s.nodes.iter().position(|n| n == name).unwrap_or(0) as u64;
    let ntasks: u64 = u.iter().map(|x| x.ntasks as u64).sum::<u64>().max(1);
    let kb = |v: u64| v.saturating_mul(1024);
    let sum = |f: &dyn Fn(&spur_core::usage::NodeUsage) -> u64| u.iter().fold(0u64, |a, x| a.saturating_add(f(x)));
    let cpu_ms = sum(&|x| x.user_us.saturating_add(x.sys_us)) / 1000;
    let tot_rss = kb(sum(&|x| x.tot_rss_kb));
    let tot_vm = kb(sum(&|x| x.tot_vmsize_kb));
    let tot_pages = sum(&|x| x.tot_pages);
    let tot_read = sum(&|x| x.tot_read_bytes);
    let tot_write = sum(&|x| x.tot_write_bytes);
    // the largest of each measure, with its node and task
    let most = |f: &dyn Fn(&spur_core::usage::NodeUsage) -> (u64, u32)| {
        let mut best = (0u64, 0u64, 0u32);
        for (i, x) in u.iter().enumerate() {
            let (v, t) = f(x);
            if i == 0 || v > best.0 {
                best = (v, node_ix(&x.node), t);
            }
        }
        best
    };
    let rss = most(&|x| (kb(x.max_rss_kb), x.max_rss_task));
    let vm = most(&|x| (kb(x.max_vmsize_kb), x.max_vmsize_task));
    let pages = most(&|x| (x.max_pages, x.max_pages_task));
    let read = most(&|x| (x.max_read_bytes, x.max_read_task));
    let write = most(&|x| (x.max_write_bytes, x.max_write_task));
    let mut min_cpu = (u64::MAX, 0u64, 0u32);
    for x in u {
        if x.min_cpu_us / 1000 < min_cpu.0 {
            min_cpu = (x.min_cpu_us / 1000, node_ix(&x.node), x.min_cpu_task);
        }
    }
    let max_cpu = most(&|x| (x.user_us.saturating_add(x.sys_us) / 1000, 0));
    let ave = |t: u64| t / ntasks;
    let ins = |cpu: u64, r: u64, d: u64, v: u64, p: u64| {
        tres_ids(vec![(TRES_CPU, cpu), (TRES_MEM, r), (TRES_FS_DISK, d), (TRES_VMEM, v), (TRES_PAGES, p)])
    };
    let strs = [
        ins(ave(cpu_ms), ave(tot_rss), ave(tot_read), ave(tot_vm), ave(tot_pages)),
        ins(max_cpu.0, rss.0, read.0, vm.0, pages.0),
        ins(max_cpu.1, rss.1, read.1, vm.1, pages.1),
        ins(max_cpu.2 as u64, rss.2 as u64, read.2 as u64, vm.2 as u64, pages.2 as u64),
        tres_ids(vec![(TRES_CPU, min_cpu.0)]),
        tres_ids(vec![(TRES_CPU, min_cpu.1)]),
        tres_ids(vec![(TRES_CPU, min_cpu.2 as u64)]),
        ins(cpu_ms, tot_rss, tot_read, tot_vm, tot_pages),
        tres_ids(vec![(TRES_FS_DISK, ave(tot_write))]),
        tres_ids(vec![(TRES_FS_DISK, write.0)]),
        tres_ids(vec![(TRES_FS_DISK, write.1)]),
        tres_ids(vec![(TRES_FS_DISK, write.2 as u64)]),
        tres_ids(vec![(TRES_FS_DISK, tot_write)]),
    ];
    let freq = sum(&|x| x.tot_cpu_freq) as f64 / ntasks as f64;
    Some((strs, freq))
}

/// (user, system) microseconds of `steps`.
fn cpu_us<'a>(steps: impl Iterator<Item = &'a AcctStep>) -> (u64, u64) {
    steps
        .flat_map(|s| s.usage.iter())
        .fold((0u64, 0u64), |(u, y), x| (u.saturating_add(x.user_us), y.saturating_add(x.sys_us)))
}

fn secs_usecs(us: u64) -> (u64, u64) {
    (us / 1_000_000, us % 1_000_000)
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

fn nodes_text(nodes: &[String]) -> String {
    if nodes.is_empty() {
        "None assigned".to_string()
    } else {
        spur_grammar::hostlist::compress(nodes)
    }
}

/// A step record as slurmdbd gives it (`job`: the job record it belongs to).
fn step_rec(j: &AcctJob, s: &AcctStep, job: *mut sys::slurmdb_job_rec_t, now: i64) -> *mut sys::slurmdb_step_rec_t {
    let p = crate::xmalloc::xnew::<sys::slurmdb_step_rec_t>();
    if p.is_null() {
        return p;
    }
    // SAFETY: a new zeroed record.
    let r = unsafe { &mut *p };
    let x = crate::xmalloc::xstr_nonempty;
    r.job_ptr = job;
    r.step_id.job_id = j.job_id;
    r.step_id.step_id = s.step_id;
    r.step_id.step_het_comp = sys::NO_VAL;
    r.stepname = x(&s.name);
    r.state = state_num(s.state);
    r.requid = s.cancelled_by.unwrap_or(u32::MAX);
    r.start = s.start as sys::time_t;
    r.end = s.end as sys::time_t;
    r.elapsed = if s.start == 0 { 0 } else { ((if s.end != 0 { s.end } else { now }) - s.start).max(0) as u32 };
    r.exitcode = s.exit_status.unwrap_or(0);
    r.nnodes = s.nodes.len() as u32;
    r.nodes = x(&nodes_text(&s.nodes));
    r.ntasks = s.ntasks;
    r.req_cpufreq_min = sys::NO_VAL;
    r.req_cpufreq_max = sys::NO_VAL;
    r.req_cpufreq_gov = sys::NO_VAL;
    r.submit_line = x(&s.submit_line);
    r.tres_alloc_str = crate::xmalloc::xstr_opt(tres_ids(step_tres(j, s)).as_deref());
    let (user, sys_) = cpu_us(std::iter::once(s));
    let (us, uu) = secs_usecs(user);
    let (ss, su) = secs_usecs(sys_);
    let (ts, tu) = secs_usecs(user.saturating_add(sys_));
    r.user_cpu_sec = us;
    r.user_cpu_usec = uu as u32;
    r.sys_cpu_sec = ss;
    r.sys_cpu_usec = su as u32;
    r.tot_cpu_sec = ts;
    r.tot_cpu_usec = tu as u32;
    if let Some((strs, freq)) = usage_strings(s) {
        let st = &mut r.stats;
        st.act_cpufreq = freq;
        let [a, b, c, d, e, f, g, h, i, k, l, m, n] = strs;
        let o = |v: Option<String>| crate::xmalloc::xstr_opt(v.as_deref());
        st.tres_usage_in_ave = o(a);
        st.tres_usage_in_max = o(b);
        st.tres_usage_in_max_nodeid = o(c);
        st.tres_usage_in_max_taskid = o(d);
        st.tres_usage_in_min = o(e);
        st.tres_usage_in_min_nodeid = o(f);
        st.tres_usage_in_min_taskid = o(g);
        st.tres_usage_in_tot = o(h);
        st.tres_usage_out_ave = o(i);
        st.tres_usage_out_max = o(k);
        st.tres_usage_out_max_nodeid = o(l);
        st.tres_usage_out_max_taskid = o(m);
        st.tres_usage_out_tot = o(n);
    }
    p
}

/// A job record as slurmdbd gives it, with its steps (unless `no_steps`).
fn job_rec(j: &AcctJob, no_steps: bool, now: i64) -> *mut sys::slurmdb_job_rec_t {
    let p = slurmdb_create_job_rec();
    if p.is_null() {
        return p;
    }
    // SAFETY: a new record of slurmdb_create_job_rec.
    let r = unsafe { &mut *p };
    let x = crate::xmalloc::xstr_nonempty;
    r.jobid = j.job_id;
    r.array_job_id = j.array_job_id;
    r.array_task_id = j.array_task_id.unwrap_or(sys::NO_VAL);
    r.array_max_tasks = j.array_max_running;
    if j.array_task_id.is_none() && j.array_job_id != 0 {
        r.array_task_str = crate::xmalloc::xstr_opt(hexmask(&j.array_tasks).as_deref());
    }
    r.het_job_id = 0;
    r.het_job_offset = sys::NO_VAL;
    r.account = x(&j.account);
    r.admin_comment = x(&j.admin_comment);
    r.cluster = x(&j.cluster);
    r.constraints = x(&j.constraints);
    r.derived_ec = j.derived_exit_code as u32;
    r.derived_es = x(&j.comment);
    r.elapsed = j.elapsed(now) as u32;
    r.eligible = j.eligible as sys::time_t;
    r.end = j.end as sys::time_t;
    r.exitcode = j.exit_status as u32;
    r.flags = if j.start == 0 {
        0
    } else if j.sched_backfill {
        SLURMDB_JOB_FLAG_BACKFILL
    } else {
        SLURMDB_JOB_FLAG_SCHED
    };
    r.gid = j.group_id;
    r.jobname = x(&j.name);
    r.nodes = x(&nodes_text(&j.nodes));
    r.alloc_nodes = if j.start == 0 { 0 } else { j.nodes.len() as u32 };
    r.partition = x(&j.partition);
    r.priority = j.priority;
    r.qosid = if j.qos.is_empty() || j.qos == "normal" { 1 } else { 0 };
    r.req_cpus = j.req_cpus;
    r.req_mem = if j.mem_per_cpu > 0 { j.mem_per_cpu | sys::MEM_PER_CPU as u64 } else { j.mem_per_node };
    r.requid = j.cancelled_by.unwrap_or(u32::MAX);
    r.resv_name = x(&j.reservation);
    r.start = j.start as sys::time_t;
    r.state = state_num(j.state);
    r.submit = j.submit as sys::time_t;
    r.submit_line = x(&j.submit_line);
    r.suspended = j.suspended.max(0) as u32;
    r.timelimit = j.time_limit.unwrap_or(sys::INFINITE);
    r.tres_alloc_str = crate::xmalloc::xstr_opt(tres_ids(job_tres(j, true)).as_deref());
    r.tres_req_str = crate::xmalloc::xstr_opt(tres_ids(job_tres(j, false)).as_deref());
    r.uid = j.user_id;
    r.user = x(&j.user_name);
    r.work_dir = x(&j.work_dir);
    #[cfg(not(feature = "slurm-22-05"))]
    {
        r.std_err = x(&j.std_err);
        r.std_in = x(&j.std_in);
        r.std_out = x(&j.std_out);
        r.qos_req = x(&j.qos);
    }
    let (user, sys_) = cpu_us(j.steps.iter().filter(|s| !s.state.is_live()));
    (r.user_cpu_sec, r.user_cpu_usec) = secs_usecs(user);
    (r.sys_cpu_sec, r.sys_cpu_usec) = secs_usecs(sys_);
    (r.tot_cpu_sec, r.tot_cpu_usec) = secs_usecs(user.saturating_add(sys_));
    if !no_steps {
        for s in &j.steps {
            let sp = step_rec(j, s, p, now);
            if !sp.is_null() {
                // SAFETY: the record's own List; the step is a new block.
                unsafe { crate::list::slurm_list_append(r.steps, sp.cast()) };
            }
        }
    }
    p
}

/// What a job condition asks, as Spur's query and the filters the
/// controller does not apply.
#[derive(Default)]
struct JobFilter {
    query: AcctQuery,
    /// A list that nothing can match (a state Spur never records, a WCKey,
    /// an association id): no job.
    none: bool,
    /// Step ids asked for, per job (empty: all its steps).
    steps: Vec<(u32, u32)>,
    qos_ids: Vec<u32>,
    clusters: Vec<String>,
    constraints: Vec<String>,
    reservations: Vec<String>,
    cpus: (u32, u32),
    nodes: (u32, u32),
    timelimit: (u32, u32),
    truncate: bool,
}

/// Read a job condition (NULL: every job).
///
/// # Safety
/// `cond` is NULL or a condition whose Lists are NULL or this library's
/// and whose `used_nodes` is NULL or NUL-terminated.
unsafe fn job_filter(cond: *const sys::slurmdb_job_cond_t) -> JobFilter {
    let mut f = JobFilter::default();
    if cond.is_null() {
        return f;
    }
    // SAFETY: the caller's contract.
    let c = unsafe { &*cond };
    // SAFETY: NULL or this library's Lists (the contract).
    let strs = |l| unsafe { crate::list::list_strings(l) };
    let nums = |l| strs(l).iter().filter_map(|s: &String| s.trim().parse::<u32>().ok()).collect::<Vec<u32>>();
    let q = &mut f.query;
    q.accounts = strs(c.acct_list);
    q.partitions = strs(c.partition_list);
    q.names = strs(c.jobname_list);
    q.user_ids = nums(c.userid_list);
    q.group_ids = nums(c.groupid_list);
    let states = strs(c.state_list);
    for s in &states {
        if let Some(st) = s.trim().parse::<u32>().ok().and_then(state_of_num) {
            if !q.states.contains(&st) {
                q.states.push(st);
            }
        }
    }
    if !states.is_empty() && q.states.is_empty() {
        f.none = true;
    }
    // SAFETY: NULL or NUL-terminated (the contract).
    if let Some(n) = unsafe { crate::text(c.used_nodes) }.filter(|n| !n.is_empty()) {
        q.nodes = spur_grammar::hostlist::expand(n).unwrap_or_else(|_| vec![n.to_string()]);
    }
    // SAFETY: NULL or a List of slurm_selected_step_t (the contract).
    for item in unsafe { crate::list::list_items(c.step_list) } {
        // SAFETY: each item is a slurm_selected_step_t.
        let s = unsafe { &*item.cast::<sys::slurm_selected_step_t>() };
        let task = (s.array_task_id != sys::NO_VAL && s.array_task_id != sys::INFINITE).then_some(s.array_task_id);
        if !q.jobs.contains(&(s.step_id.job_id, task)) {
            q.jobs.push((s.step_id.job_id, task));
        }
        if s.step_id.step_id != sys::NO_VAL {
            f.steps.push((s.step_id.job_id, s.step_id.step_id));
        }
    }
    q.start = c.usage_start as i64;
    q.end = c.usage_end as i64;
    q.duplicates = c.flags & JOBCOND_FLAG_DUP != 0;
    q.no_steps = c.flags & JOBCOND_FLAG_NO_STEP != 0;
    f.truncate = c.flags & JOBCOND_FLAG_NO_TRUNC == 0 && c.usage_start != 0;
    f.qos_ids = nums(c.qos_list);
    f.clusters = strs(c.cluster_list);
    f.constraints = strs(c.constraint_list);
    f.reservations = strs(c.resv_list);
    if !strs(c.wckey_list).is_empty() || !strs(c.associd_list).is_empty() || !strs(c.resvid_list).is_empty() {
        f.none = true;
    }
    f.cpus = (c.cpus_min, c.cpus_max);
    f.nodes = (c.nodes_min, c.nodes_max);
    f.timelimit = (c.timelimit_min, c.timelimit_max);
    f
}

/// `min`..`max` as slurmdbd reads a range: 0 for no bound; a lone minimum
/// is an exact value.
fn in_range(v: u32, (min, max): (u32, u32)) -> bool {
    match (min, max) {
        (0, 0) => true,
        (m, 0) => v == m,
        (m, x) => v >= m && v <= x,
    }
}

impl JobFilter {
    fn keeps(&self, j: &AcctJob) -> bool {
        let qos_id = if j.qos.is_empty() || j.qos == "normal" { 1 } else { 0 };
        (self.qos_ids.is_empty() || self.qos_ids.contains(&qos_id))
            && (self.clusters.is_empty() || self.clusters.contains(&j.cluster))
            && (self.constraints.is_empty() || self.constraints.contains(&j.constraints))
            && (self.reservations.is_empty() || self.reservations.contains(&j.reservation))
            && in_range(j.alloc_cpus, self.cpus)
            && in_range(j.nodes.len() as u32, self.nodes)
            && in_range(j.time_limit.unwrap_or(u32::MAX), self.timelimit)
    }

    /// The record as it is answered: only the steps asked for, and its
    /// times cut to the window unless `NO_TRUNC`.
    fn shape(&self, mut j: AcctJob) -> AcctJob {
        let asked: Vec<u32> = self.steps.iter().filter(|s| s.0 == j.job_id).map(|s| s.1).collect();
        if !asked.is_empty() {
            j.steps.retain(|s| asked.contains(&s.step_id));
        }
        if self.truncate {
            let (ws, we) = (self.query.start, self.query.end);
            if ws != 0 && j.start != 0 && j.start < ws {
                j.start = ws;
            }
            if we != 0 && j.start != 0 && (j.end == 0 || j.end > we) {
                j.end = we;
            }
        }
        j
    }
}

/// `List slurmdb_jobs_get(void *db_conn, slurmdb_job_cond_t *job_cond)`:
/// the accounting records of the jobs the condition selects (job and step
/// ids, users, groups, accounts, partitions, names, states, nodes, the
/// window, `JOBCOND_FLAG_DUP`/`NO_STEP`/`NO_TRUNC`, QOS ids, clusters,
/// constraints, reservations, CPU/node/time limit ranges), in the order
/// sacct lists them, each a `slurmdb_job_rec_t` with its `steps`. Release
/// with `slurm_list_destroy`. NULL when accounting is off or the
/// controller cannot answer (errno says why).
///
/// # Safety
/// `db_conn` is not read; `job_cond` is NULL or a condition whose Lists
/// are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_jobs_get(
    db_conn: *mut c_void,
    job_cond: *mut sys::slurmdb_job_cond_t,
) -> *mut sys::xlist {
    let _ = db_conn;
    crate::guard(std::ptr::null_mut(), || {
        if !accounting_on() {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract.
        let f = unsafe { job_filter(job_cond) };
        let jobs = if f.none {
            vec![]
        } else {
            match crate::conn::call(|c| c.accounting(&f.query)) {
                Ok(j) => j,
                Err(_) => return std::ptr::null_mut(),
            }
        };
        let mut jobs: Vec<AcctJob> = jobs.into_iter().filter(|j| f.keeps(j)).map(|j| f.shape(j)).collect();
        jobs.sort_by_key(|j| (j.submit, j.array_job_id, j.array_task_id.unwrap_or(sys::NO_VAL), j.job_id));
        let now = now();
        let recs: Vec<*mut c_void> = jobs
            .iter()
            .map(|j| job_rec(j, f.query.no_steps, now).cast())
            .filter(|p: &*mut c_void| !p.is_null())
            .collect();
        crate::list::list_from(recs, Some(slurmdb_destroy_job_rec))
    })
}

// ---------------------------------------------------------------------------
// The cluster and its QOS.

/// `SLURM_PROTOCOL_VERSION` of the release (`SLURM_API_VERSION`'s current
/// << 8).
fn rpc_version() -> u16 {
    if sys::RELEASE == "22.05" {
        38 << 8
    } else {
        42 << 8
    }
}

/// `List slurmdb_clusters_get(void *db_conn, slurmdb_cluster_cond_t
/// *cluster_cond)`: this cluster's record (its name, the controller's
/// address and port, the release's RPC version), when the condition's
/// `cluster_list` is empty or names it. NULL when accounting is off.
///
/// # Safety
/// `db_conn` is not read; `cluster_cond` is NULL or a condition whose Lists
/// are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_clusters_get(
    db_conn: *mut c_void,
    cluster_cond: *mut sys::slurmdb_cluster_cond_t,
) -> *mut sys::xlist {
    let _ = db_conn;
    crate::guard(std::ptr::null_mut(), || {
        let Ok(conf) = crate::conn::conf() else { return std::ptr::null_mut() };
        if !conf.accounting_enabled() {
            return std::ptr::null_mut();
        }
        let name = conf.get("ClusterName").unwrap_or("").to_string();
        // SAFETY: NULL or a condition of live Lists (the contract).
        let names = if cluster_cond.is_null() {
            vec![]
        } else {
            unsafe { crate::list::list_strings((*cluster_cond).cluster_list) }
        };
        let mut recs = vec![];
        if names.is_empty() || names.iter().any(|n| n == &name) {
            let p = crate::xmalloc::xnew::<sys::slurmdb_cluster_rec_t>();
            if !p.is_null() {
                // SAFETY: a new zeroed record.
                unsafe { slurmdb_init_cluster_rec(p, false) };
                // SAFETY: as above.
                let c = unsafe { &mut *p };
                let host = conf.get("SlurmctldHost").unwrap_or("");
                // `name(addr)`: slurmdbd records the address it registered from
                let host = match host.split_once('(') {
                    Some((_, a)) => a.trim_end_matches(')'),
                    None => host,
                };
                let port = conf
                    .get("SlurmctldPort")
                    .and_then(|p| p.split('-').next().and_then(|n| n.trim().parse().ok()))
                    .unwrap_or(6817);
                c.name = crate::xmalloc::xstr_nonempty(&name);
                c.control_host = crate::xmalloc::xstr_nonempty(host);
                c.control_port = port;
                c.rpc_version = rpc_version();
                c.dimensions = 1;
                c.flags = 0;
                c.fed.state = sys::NO_VAL;
                recs.push(p.cast());
            }
        }
        crate::list::list_from(recs, Some(slurmdb_destroy_cluster_rec))
    })
}

/// `List slurmdb_qos_get(void *db_conn, slurmdb_qos_cond_t *qos_cond)`:
/// the cluster's QOS records (`sacctmgr show qos`: `normal`, id 1, "Normal
/// QOS default", and those added since), as slurmdbd returns them: unset
/// limits INFINITE, the preempt list as a bit string of QOS ids, `PreemptMode`
/// OFF when it is the cluster's; those the condition's names, ids and
/// descriptions (any empty) match. NULL when accounting is off or the
/// controller does not answer.
///
/// # Safety
/// `db_conn` is not read; `qos_cond` is NULL or a condition whose Lists are
/// NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_qos_get(
    db_conn: *mut c_void,
    qos_cond: *mut sys::slurmdb_qos_cond_t,
) -> *mut sys::xlist {
    let _ = db_conn;
    crate::guard(std::ptr::null_mut(), || {
        if !accounting_on() {
            return std::ptr::null_mut();
        }
        let Ok(view) = crate::conn::call(|c| c.query(&spur_core::request::Query::default())) else {
            return std::ptr::null_mut();
        };
        let (names, ids, descs) = if qos_cond.is_null() {
            (vec![], vec![], vec![])
        } else {
            // SAFETY: a condition of NULL or live Lists (the contract).
            unsafe {
                let c = &*qos_cond;
                (
                    crate::list::list_strings(c.name_list),
                    crate::list::list_strings(c.id_list),
                    crate::list::list_strings(c.description_list),
                )
            }
        };
        let top = view.qos.iter().map(|q| q.id).max().unwrap_or(0);
        let mut recs = vec![];
        for r in &view.qos {
            let matches = (names.is_empty() || names.iter().any(|n| n.eq_ignore_ascii_case(&r.name)))
                && (ids.is_empty() || ids.iter().any(|i| i.trim() == r.id.to_string()))
                && (descs.is_empty() || descs.iter().any(|d| d.eq_ignore_ascii_case(&r.description)));
            if !matches {
                continue;
            }
            let p = crate::xmalloc::xnew::<sys::slurmdb_qos_rec_t>();
            if p.is_null() {
                continue;
            }
            // SAFETY: a new zeroed record.
            let q = unsafe { &mut *p };
            qos_defaults(q, sys::INFINITE);
            let lim = |v: Option<u32>| v.unwrap_or(sys::INFINITE);
            q.id = r.id;
            q.name = crate::xmalloc::xstrdup(&r.name);
            q.description = crate::xmalloc::xstrdup(&r.description);
            q.flags = r.flags_bits();
            q.grace_time = r.grace_time;
            q.priority = r.priority;
            q.preempt_mode = r.preempt_mode.as_deref().map(preempt_mode_num).unwrap_or(sys::PREEMPT_MODE_OFF as u16);
            q.preempt_exempt_time = lim(r.preempt_exempt_time);
            q.usage_factor = r.usage_factor;
            q.usage_thres = r.usage_thres.unwrap_or(sys::INFINITE as f64);
            q.grp_jobs = lim(r.grp_jobs);
            q.grp_submit_jobs = lim(r.grp_submit);
            q.grp_wall = lim(r.grp_wall);
            q.max_jobs_pu = lim(r.max_jobs_pu);
            q.max_submit_jobs_pu = lim(r.max_submit_pu);
            q.max_jobs_pa = lim(r.max_jobs_pa);
            q.max_submit_jobs_pa = lim(r.max_submit_pa);
            q.max_wall_pj = lim(r.max_wall);
            if !r.preempt.is_empty() {
                let b = crate::bitstr::slurm_bit_alloc(i64::from(top) + 1);
                for id in &r.preempt {
                    // SAFETY: a bit string of `top + 1` bits, and ids up to `top`.
                    unsafe { crate::bitstr::slurm_bit_set(b, i64::from(*id)) };
                }
                q.preempt_bitstr = b;
            }
            recs.push(p.cast());
        }
        crate::list::list_from(recs, Some(slurmdb_destroy_qos_rec))
    })
}

/// slurmdb's `preempt_mode_num` of a QOS's `PreemptMode` (`REQUEUE`,
/// `SUSPEND,GANG`, ...).
fn preempt_mode_num(m: &str) -> u16 {
    let mut v = 0u32;
    for w in m.split(',') {
        v |= match w.trim().to_ascii_uppercase().as_str() {
            "CANCEL" => sys::PREEMPT_MODE_CANCEL,
            "REQUEUE" => sys::PREEMPT_MODE_REQUEUE,
            "SUSPEND" => sys::PREEMPT_MODE_SUSPEND,
            "GANG" => sys::PREEMPT_MODE_GANG,
            "WITHIN" => sys::PREEMPT_MODE_WITHIN,
            _ => 0,
        };
    }
    v as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_as_sacct_defaults_them() {
        let now = 1_700_000_000;
        let m = midnight(now as libc::time_t) as i64;
        assert!(m <= now && now - m < 86_400 + 3600);
        // neither -j nor -s: [midnight, now]
        assert_eq!(default_window(0, 0, false, false, now), (m, now + 1));
        // -j only: [epoch, now]
        assert_eq!(default_window(0, 0, false, true, now), (0, now + 1));
        // -s only: [now, now]
        assert_eq!(default_window(0, 0, true, false, now), (now, now + 1));
        // -s and -j: [epoch, now]
        assert_eq!(default_window(0, 0, true, true, now), (0, now + 1));
        // -s with -S: [S, S]
        assert_eq!(default_window(100, 0, true, false, now), (100, 101));
        // given both: unchanged
        assert_eq!(default_window(100, 200, false, false, now), (100, 200));
    }

    #[test]
    fn job_records_made_and_released() {
        let j = slurmdb_create_job_rec();
        assert!(!j.is_null());
        // SAFETY: j is a live record of this library; each block released once.
        unsafe {
            assert_eq!((*j).array_task_id, sys::NO_VAL);
            assert_eq!((*j).requid, u32::MAX);
            assert_eq!((*j).state, 0);
            assert_eq!(crate::list::slurm_list_count((*j).steps), 0);
            (*j).jobname = crate::xmalloc::xstrdup("x");
            let step = crate::xmalloc::xnew::<sys::slurmdb_step_rec_t>();
            (*step).nodes = crate::xmalloc::xstrdup("n1");
            (*step).stats.tres_usage_in_max = crate::xmalloc::xstrdup("1=2");
            crate::list::slurm_list_append((*j).steps, step.cast());
            slurmdb_destroy_job_rec(j.cast());
            slurmdb_destroy_job_rec(std::ptr::null_mut());
            slurmdb_destroy_step_rec(std::ptr::null_mut());
        }
    }

    #[test]
    fn condition_defaults() {
        let mut c: sys::slurmdb_job_cond_t =
            // SAFETY: integers, pointers and Lists: all-zero is valid
            unsafe { std::mem::zeroed() };
        c.flags = JOBCOND_FLAG_NO_DEFAULT_USAGE;
        // SAFETY: c is a writable local with NULL Lists.
        unsafe { slurmdb_job_cond_def_start_end(&mut c) };
        assert_eq!((c.usage_start, c.usage_end), (0, 0));
        c.flags = 0;
        // SAFETY: as above.
        unsafe { slurmdb_job_cond_def_start_end(&mut c) };
        assert!(c.usage_start > 0 && c.usage_end > c.usage_start);
        // SAFETY: NULL is allowed.
        unsafe { slurmdb_job_cond_def_start_end(std::ptr::null_mut()) };
    }
    #[test]
    fn conditions_and_records_released() {
        // SAFETY: new zeroed blocks of this library, each released once.
        unsafe {
            let c = crate::xmalloc::xnew::<sys::slurmdb_job_cond_t>();
            (*c).acct_list = crate::list::list_of_strings(&["a", "b"]);
            (*c).used_nodes = crate::xmalloc::xstrdup("n[1-2]");
            slurmdb_destroy_job_cond(c.cast());
            let q = crate::xmalloc::xnew::<sys::slurmdb_qos_rec_t>();
            slurmdb_init_qos_rec(q, false, sys::INFINITE);
            assert_eq!(((*q).flags, (*q).max_wall_pj), (sys::QOS_FLAG_NOTSET, sys::INFINITE));
            (*q).name = crate::xmalloc::xstrdup("x");
            slurmdb_init_qos_rec(q, true, sys::NO_VAL);
            assert!((*q).name.is_null());
            slurmdb_destroy_qos_rec(q.cast());
            let a = crate::xmalloc::xnew::<sys::slurmdb_assoc_rec_t>();
            slurmdb_init_assoc_rec(a, false);
            assert_eq!(((*a).is_def, (*a).shares_raw), (sys::NO_VAL16 as u16, sys::NO_VAL));
            (*a).acct = crate::xmalloc::xstrdup("acct");
            slurmdb_destroy_assoc_rec(a.cast());
            let t = crate::xmalloc::xnew::<sys::slurmdb_tres_cond_t>();
            slurmdb_init_tres_cond(t, false);
            assert_eq!((*t).count, sys::NO_VAL as u64);
            slurmdb_destroy_tres_cond(t.cast());
            let u = crate::xmalloc::xnew::<sys::slurmdb_user_cond_t>();
            (*u).assoc_cond = crate::xmalloc::xnew::<sys::slurmdb_assoc_cond_t>();
            (*(*u).assoc_cond).user_list = crate::list::list_of_strings(&["u"]);
            slurmdb_destroy_user_cond(u.cast());
            slurmdb_destroy_cluster_cond(std::ptr::null_mut());
        }
    }

    #[test]
    fn records_of_accounting() {
        assert_eq!(hexmask("1-3,5").as_deref(), Some("0x2E"));
        assert_eq!(state_num(AcctState::Timeout), 6);
        assert_eq!(state_num(AcctState::Requeued), JOB_REQUEUE);
        assert_eq!(state_of_num(3), Some(AcctState::Completed));
        let j = AcctJob {
            job_id: 5,
            start: 10,
            end: 20,
            req_cpus: 2,
            alloc_cpus: 2,
            req_nodes: 1,
            req_mem_mb: 100,
            alloc_mem_mb: 100,
            nodes: vec!["n1".into()],
            state: AcctState::Completed,
            steps: vec![AcctStep { step_id: 0, nodes: vec!["n1".into()], cpus: 2, ..Default::default() }],
            ..Default::default()
        };
        let r = job_rec(&j, false, 30);
        // SAFETY: a record of job_rec, released once.
        unsafe {
            assert_eq!(((*r).jobid, (*r).elapsed, (*r).state), (5, 10, 3));
            assert_eq!(crate::text((*r).tres_alloc_str), Some("1=2,2=100,4=1,5=2"));
            assert_eq!(crate::text((*r).nodes), Some("n1"));
            assert_eq!(crate::list::slurm_list_count((*r).steps), 1);
            slurmdb_destroy_job_rec(r.cast());
        }
    }
}
