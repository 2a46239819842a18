//! The slurmdb helpers that need no database: the job record pyslurm's
//! `pyslurm.db.Job` builds (`slurmdb_create_job_rec`) and releases
//! (`slurmdb_destroy_job_rec`, with its steps' `slurmdb_destroy_step_rec`),
//! and the default time window of a job query
//! (`slurmdb_job_cond_def_start_end`), each as Slurm's
//! src/common/slurmdb_defs.c behaves. Spur has no slurmdbd: the calls that
//! would reach one (`slurmdb_jobs_get`, ...) stay unserved.

// (enumerators are cast to the fields' types)
#![allow(clippy::unnecessary_cast)]

use crate::sys;
use crate::xmalloc::xfree;
use std::ffi::c_void;

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
}
