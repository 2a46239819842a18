//! `slurm_job_step_get_pids` and its free functions: the processes of a
//! running step on each of its nodes, as slurmd answers libslurm's
//! `REQUEST_JOB_STEP_PIDS` (what `scontrol listpids` lists there).
//!
//! Spur's controller asks the step's agents (`StepStat` with `with_pids`);
//! each lists the step's processes from its spool as `scontrol listpids`
//! does: its tasks by local id, then the step's other processes. The answer
//! is Slurm's: a `job_step_pids_response_msg_t` whose `pid_list` holds one
//! `job_step_pids_t` per node that answered, sorted by node name (NULL when
//! none did), each an xmalloc'ed record whose list frees it with
//! `slurm_job_step_pids_free`.
//!
//! As in Slurm: `node_list` (a host list) limits the question to those
//! nodes, and a node there that has no part of the step makes the call
//! return `ESLURM_INVALID_JOB_ID` after the others' answers are in; without
//! it, a step that is not running returns the error of its layout's lookup
//! (`ESLURM_INVALID_JOB_ID`). The return value is that code (not -1), with
//! errno set to it too.

use crate::sys;
use crate::xmalloc::{xarray, xfree, xnew, xstrdup};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::null_mut;

/// One node's answer, a new xmalloc'ed `job_step_pids_t`.
pub(crate) fn record(node: &str, pids: &[i32]) -> *mut c_void {
    let r = xnew::<sys::job_step_pids_t>();
    // SAFETY: a new zeroed block the size of the record.
    let rec = unsafe { &mut *r };
    rec.node_name = xstrdup(node);
    let pids: Vec<u32> = pids.iter().map(|&p| p as u32).collect();
    rec.pid = xarray(&pids);
    rec.pid_cnt = pids.len() as u32;
    r.cast()
}

/// The usage and processes of step `id` on the nodes of `node_list` (NULL:
/// all of the step's) that answered, sorted by node name, and the code to
/// return once they are in (see the module doc); Err: the code to return
/// at once, errno set.
///
/// # Safety
/// `node_list` is NULL or NUL-terminated.
pub(crate) unsafe fn ask(
    id: &sys::slurm_step_id_t,
    node_list: *const c_char,
) -> Result<(Vec<spur_core::usage::NodeUsage>, Vec<spur_client::StepNodePids>, c_int), c_int> {
    let only: Option<Vec<String>> = if node_list.is_null() {
        None
    } else {
        // SAFETY: a NUL-terminated string (the contract).
        let text = unsafe { CStr::from_ptr(node_list) }.to_string_lossy();
        match spur_grammar::hostlist::expand(&text) {
            Ok(n) => Some(n),
            Err(_) => {
                crate::errno::set(sys::ESLURM_INVALID_NODE_NAME as i32);
                return Err(sys::ESLURM_INVALID_NODE_NAME as c_int);
            }
        }
    };
    let mut rc = 0;
    let (usage, mut answers) = match crate::conn::call(|c| c.step_stat_with_pids(id.job_id, id.step_id)) {
        Ok((_, usage, pids)) => (usage, pids),
        // (a step that does not run: its layout's lookup fails so)
        Err(code) if only.is_none() => {
            let code = if code == sys::ESLURM_ALREADY_DONE as i32 { sys::ESLURM_INVALID_JOB_ID as i32 } else { code };
            crate::errno::set(code);
            return Err(code);
        }
        // (each named node's slurmd answers that it has no such step)
        Err(_) => {
            rc = sys::ESLURM_INVALID_JOB_ID as c_int;
            (Vec::new(), Vec::new())
        }
    };
    if let Some(only) = &only {
        if only.iter().any(|n| !answers.iter().any(|a| &a.node == n)) {
            rc = sys::ESLURM_INVALID_JOB_ID as c_int;
        }
        answers.retain(|a| only.contains(&a.node));
    }
    answers.sort_by(|a, b| a.node.cmp(&b.node));
    if rc != 0 {
        crate::errno::set(rc);
    }
    Ok((usage, answers, rc))
}

/// The list's destructor: `slurm_job_step_pids_free` of an item.
unsafe extern "C" fn free_item(x: *mut c_void) {
    // SAFETY: the list holds records of `record`.
    unsafe { slurm_job_step_pids_free(x.cast()) }
}

/// `int slurm_job_step_get_pids(slurm_step_id_t *step_id, char *node_list,
/// job_step_pids_response_msg_t **resp)`: see the module doc. `*resp`
/// NULL gets a new message (freed with
/// `slurm_job_step_pids_response_msg_free`); an existing one is filled.
///
/// # Safety
/// `step_id` is NULL or readable; `node_list` NULL or a NUL-terminated
/// string; `resp` NULL or a writable pointer holding NULL or such a message.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_get_pids(
    step_id: *mut sys::slurm_step_id_t,
    node_list: *mut c_char,
    resp: *mut *mut sys::job_step_pids_response_msg_t,
) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let (Some(id), false) = (unsafe { step_id.as_ref() }, resp.is_null()) else {
            crate::errno::set(libc::EINVAL);
            return sys::SLURM_ERROR;
        };
        // SAFETY: node_list is NULL or NUL-terminated (the contract).
        let (_, answers, rc) = match unsafe { ask(id, node_list) } {
            Ok(a) => a,
            Err(code) => return code,
        };
        // SAFETY: resp is writable (checked above, the contract).
        let out = unsafe {
            if (*resp).is_null() {
                *resp = xnew::<sys::job_step_pids_response_msg_t>();
            }
            &mut **resp
        };
        out.step_id = *id;
        if !answers.is_empty() {
            let mut items: Vec<*mut c_void> = answers.iter().map(|a| record(&a.node, &a.pids)).collect();
            if out.pid_list.is_null() {
                out.pid_list = crate::list::list_from(items, Some(free_item));
            } else {
                for x in items.drain(..) {
                    // SAFETY: the caller's list, from this library.
                    unsafe { crate::list::slurm_list_append(out.pid_list, x) };
                }
            }
        }
        rc
    })
}

/// `void slurm_job_step_pids_free(job_step_pids_t *object)`: one node's
/// record and what it holds (NULL: nothing).
///
/// # Safety
/// `object` is NULL or a record of this library, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_pids_free(object: *mut sys::job_step_pids_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract: xmalloc'ed pointers or NULL.
        unsafe {
            let Some(r) = object.as_mut() else { return };
            xfree(&mut r.node_name);
            xfree(&mut r.pid);
            let mut p = object;
            xfree(&mut p);
        }
    })
}

/// `void slurm_job_step_pids_response_msg_free(void *object)`: a message of
/// `slurm_job_step_get_pids`, its list and records (NULL: nothing).
///
/// # Safety
/// `object` is NULL or such a message, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_pids_response_msg_free(object: *mut c_void) {
    // SAFETY: the caller's contract.
    crate::guard((), || unsafe {
        free_list_msg(object.cast::<sys::job_step_pids_response_msg_t>(), |m| &mut m.pid_list)
    })
}

/// Free a response message of this library whose one pointer is a List
/// (`list`) that frees its own items (NULL: nothing).
///
/// # Safety
/// `msg` is NULL or such a message, not used afterwards.
pub(crate) unsafe fn free_list_msg<T>(msg: *mut T, list: impl FnOnce(&mut T) -> &mut *mut sys::xlist) {
    // SAFETY: the caller's contract: an xmalloc'ed message, its list live or NULL.
    unsafe {
        let Some(m) = msg.as_mut() else { return };
        let l = list(m);
        crate::list::slurm_list_destroy(*l);
        *l = null_mut();
        let mut p = msg;
        xfree(&mut p);
    }
}
