//! Job control: signal, cancel, requeue, suspend/resume, hold/release and
//! update jobs, end allocations (`slurm_kill_job`, `slurm_signal_job`,
//! `slurm_requeue`, `slurm_suspend`, `slurm_update_job`,
//! `slurm_complete_job`, ...).
//!
//! Each call is the calling process's request to the controller, which
//! decides as slurmctld does (the caller's own jobs, an operator's any) and
//! answers each job with Slurm's error number: `SLURM_SUCCESS`, or
//! `SLURM_ERROR` with `slurm_get_errno()` giving the number
//! (`ESLURM_INVALID_JOB_ID` for an unknown job, `ESLURM_ALREADY_DONE` for
//! an ended one, `ESLURM_ACCESS_DENIED` for another user's).
//!
//! The `*2` calls that take a job id text (`123`, `123_4`, `123_[1-3]`)
//! answer as Slurm's: when the controller answers for several jobs (the
//! tasks of an array), `*resp` lists each with its error number and the
//! call succeeds; for one job its error is the call's.

use crate::submit::{fail, load_job, Caller, INFINITE, NICE_OFFSET, NO_VAL, NO_VAL16, NO_VAL64};
use crate::sys;
use crate::xmalloc::{self, xfree, xstrdup};
use crate::{guard, text};
use spur_core::errors as e;
use spur_core::model::JobState;
use spur_core::request::{CancelRequest, JobControl, JobResult, JobUpdate, UnsupportedJobField};
use std::ffi::{c_char, c_int};
use std::ptr::null_mut;

const KILL_JOB_BATCH: u16 = 1 << 0;
const KILL_FULL_JOB: u16 = 1 << 3;
#[cfg(feature = "slurm-24-11")]
const KILL_JOBS_VERBOSE: u16 = 1 << 11;
const JOB_REQUEUE_HOLD: u32 = 1 << 11;
const JOB_SPECIAL_EXIT: u32 = 1 << 12;
const RESET_ACCRUE_TIME: u64 = 1 << 21;
const MEM_PER_CPU: u64 = 1 << 63;
const SLURM_BATCH_SCRIPT: u32 = 0xffff_fffb;
const SIGKILL: i32 = 9;

/// The first refusal among a call's answers as its return value; when
/// every job was served, errno is `SLURM_SUCCESS` (pyslurm reads
/// `slurm_get_errno()` after `slurm_kill_job` whatever it returned, and
/// the sockets of the call leave errno set, EINPROGRESS of a connect).
fn first_error(r: Result<Vec<JobResult>, i32>) -> c_int {
    match r {
        Err(_) => sys::SLURM_ERROR,
        Ok(results) => match results.iter().find(|r| r.code != 0) {
            Some(r) => fail(r.code),
            None => {
                crate::errno::set(0);
                0
            }
        },
    }
}

fn cancel(req: CancelRequest) -> Result<Vec<JobResult>, i32> {
    crate::conn::call(|c| c.cancel(&req))
}

fn control(ids: Vec<String>, op: JobControl) -> Result<Vec<JobResult>, i32> {
    crate::conn::call(|c| c.job_control(&ids, &op))
}

/// The checks Slurm's signalling calls make first (its
/// `slurm_allocation_lookup`): the job must be known, the caller's (or the
/// caller root), and running.
fn running_job(job_id: u32) -> Result<(), c_int> {
    let job = match load_job(job_id) {
        Ok(Some(j)) => j,
        Ok(None) => return Err(fail(e::ESLURM_INVALID_JOB_ID)),
        Err(_) => return Err(sys::SLURM_ERROR),
    };
    let me = Caller::process();
    if me.uid != 0 && job.user_id != me.uid {
        return Err(fail(e::ESLURM_ACCESS_DENIED));
    }
    match job.state {
        JobState::Pending => Err(fail(e::ESLURM_JOB_PENDING)),
        JobState::Running | JobState::Suspended => Ok(()),
        _ => Err(fail(e::ESLURM_ALREADY_DONE)),
    }
}

/// Signal (or, for SIGKILL, cancel) the jobs of `ids` as `scancel` does.
fn kill(ids: Vec<String>, signal: u16, flags: u16) -> c_int {
    if signal == 0 {
        // signal 0 checks the job and sends nothing (Spur's 0 is a cancel)
        let Some(id) = ids.first().and_then(|s| s.parse::<u32>().ok()) else {
            return fail(e::ESLURM_INVALID_JOB_ID);
        };
        return running_job(id).err().unwrap_or_else(|| {
            crate::errno::set(0);
            0
        });
    }
    first_error(cancel(CancelRequest {
        job_ids: ids,
        signal: signal as i32,
        batch: flags & KILL_JOB_BATCH != 0,
        full: flags & KILL_FULL_JOB != 0,
        ..Default::default()
    }))
}

/// `int slurm_kill_job(uint32_t job_id, uint16_t signal, uint16_t flags)`:
/// SIGKILL cancels the job; another signal goes to its steps (with
/// `KILL_JOB_BATCH` to the batch shell, with `KILL_FULL_JOB` to both).
#[no_mangle]
pub extern "C" fn slurm_kill_job(job_id: u32, signal: u16, flags: u16) -> c_int {
    guard(sys::SLURM_ERROR, || kill(vec![job_id.to_string()], signal, flags))
}

/// `int slurm_kill_job2(const char *job_id, uint16_t signal, uint16_t
/// flags, const char *sibling)`: the same for a job id text (`123_4`,
/// `123_[1-3]`). Spur is no federation: `sibling` is not used.
///
/// # Safety
/// `job_id` and `sibling` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_kill_job2(
    job_id: *const c_char,
    signal: u16,
    flags: u16,
    _sibling: *const c_char,
) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        match unsafe { text(job_id) } {
            Some(id) if !id.is_empty() => kill(vec![id.to_string()], signal, flags),
            _ => fail(e::ESLURM_INVALID_JOB_ID),
        }
    })
}

/// Signal or cancel one step (`job.step`), the batch shell for
/// SLURM_BATCH_SCRIPT.
fn kill_step(job_id: u32, step_id: u32, signal: u32, cancel_on_kill: bool) -> c_int {
    if step_id == SLURM_BATCH_SCRIPT {
        if let Err(rc) = running_job(job_id) {
            return rc;
        }
        if signal == 0 {
            return 0;
        }
        return kill(vec![job_id.to_string()], signal as u16, KILL_JOB_BATCH);
    }
    if signal == 0 {
        return running_job(job_id).err().unwrap_or(0);
    }
    // a step's signal 0 is its cancel (SIGKILL, and the step ends)
    let sig = if cancel_on_kill && signal as i32 == SIGKILL { 0 } else { signal as i32 };
    first_error(cancel(CancelRequest {
        job_ids: vec![format!("{}.{}", job_id, step_id)],
        signal: sig,
        ..Default::default()
    }))
}

/// `int slurm_kill_job_step(uint32_t job_id, uint32_t step_id, uint16_t
/// signal, uint16_t flags)` (24.11; 22.05's has no `flags`): SIGKILL
/// cancels the step.
#[cfg(feature = "slurm-24-11")]
#[no_mangle]
pub extern "C" fn slurm_kill_job_step(job_id: u32, step_id: u32, signal: u16, _flags: u16) -> c_int {
    guard(sys::SLURM_ERROR, || kill_step(job_id, step_id, signal as u32, true))
}

/// `int slurm_kill_job_step(uint32_t job_id, uint32_t step_id, uint16_t
/// signal)` (22.05): SIGKILL cancels the step.
#[cfg(feature = "slurm-22-05")]
#[no_mangle]
pub extern "C" fn slurm_kill_job_step(job_id: u32, step_id: u32, signal: u16) -> c_int {
    guard(sys::SLURM_ERROR, || kill_step(job_id, step_id, signal as u32, true))
}

/// `int slurm_signal_job(uint32_t job_id, uint16_t signal)`: a signal to
/// every step of a running job (not its batch shell). Slurm's checks come
/// first: an unknown job, another user's, a pending or ended one fail.
#[no_mangle]
pub extern "C" fn slurm_signal_job(job_id: u32, signal: u16) -> c_int {
    guard(sys::SLURM_ERROR, || {
        if let Err(rc) = running_job(job_id) {
            return rc;
        }
        if signal == 0 {
            return 0;
        }
        kill(vec![job_id.to_string()], signal, 0)
    })
}

/// `int slurm_signal_job_step(uint32_t job_id, uint32_t step_id, uint32_t
/// signal)`: a signal to one step (SLURM_BATCH_SCRIPT: the batch shell).
#[no_mangle]
pub extern "C" fn slurm_signal_job_step(job_id: u32, step_id: u32, signal: u32) -> c_int {
    guard(sys::SLURM_ERROR, || kill_step(job_id, step_id, signal, false))
}

/// `int slurm_kill_jobs(kill_jobs_msg_t *, kill_jobs_resp_msg_t **)`
/// (24.11, scancel's call): cancel or signal the listed jobs, or the jobs
/// the filters select. Spur's controller filters by user, name, partition,
/// account and state; a request naming a QOS, reservation, WCKey or node
/// list is refused (`ESLURM_NOT_SUPPORTED`) rather than acting on more jobs
/// than it asked for. `*resp` lists the jobs refused (all with
/// `KILL_JOBS_VERBOSE`); free it with `slurm_free_kill_jobs_response_msg`.
///
/// # Safety
/// `kill_msg` points to a valid request; `kill_msg_resp` is NULL or
/// writable.
#[cfg(feature = "slurm-24-11")]
#[no_mangle]
pub unsafe extern "C" fn slurm_kill_jobs(
    kill_msg: *mut sys::kill_jobs_msg_t,
    kill_msg_resp: *mut *mut sys::kill_jobs_resp_msg_t,
) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: NULL or a valid request (the caller's contract).
        let Some(m) = (unsafe { kill_msg.as_ref() }) else {
            return fail(libc::EINVAL);
        };
        // SAFETY: the request's strings are NULL or NUL-terminated.
        let s = |p: *mut c_char| unsafe { text(p) }.map(|x| x.to_string());
        if [m.qos, m.reservation, m.wckey, m.nodelist].iter().any(|p| s(*p).is_some_and(|x| !x.is_empty())) {
            return fail(e::ESLURM_NOT_SUPPORTED);
        }
        let mut ids = Vec::new();
        for i in 0..m.jobs_cnt as usize {
            // SAFETY: jobs_array holds jobs_cnt strings (the contract).
            if let Some(id) = s(unsafe { *m.jobs_array.add(i) }) {
                ids.push(id);
            }
        }
        let user = s(m.user_name).or_else(|| {
            (m.user_id != crate::submit::SLURM_AUTH_NOBODY && m.user_id != NO_VAL).then(|| m.user_id.to_string())
        });
        let states = match job_state(m.state) {
            Some(st) => vec![st],
            None => vec![],
        };
        let req = CancelRequest {
            job_ids: ids,
            signal: m.signal as i32,
            batch: m.flags & KILL_JOB_BATCH != 0,
            full: m.flags & KILL_FULL_JOB != 0,
            user,
            name: s(m.job_name),
            partition: s(m.partition),
            account: s(m.account),
            states,
            ..Default::default()
        };
        let results = match cancel(req) {
            Ok(r) => r,
            Err(_) => return sys::SLURM_ERROR,
        };
        if !kill_msg_resp.is_null() {
            let verbose = m.flags & KILL_JOBS_VERBOSE != 0;
            let listed: Vec<&JobResult> = results.iter().filter(|r| verbose || r.code != 0).collect();
            // SAFETY: writable (the caller's contract).
            unsafe { *kill_msg_resp = kill_jobs_resp(&listed) };
        }
        0
    })
}

/// Slurm's job state number as Spur's (JOB_END and other numbers: any).
#[cfg(feature = "slurm-24-11")]
fn job_state(n: u32) -> Option<JobState> {
    Some(match n {
        0 => JobState::Pending,
        1 => JobState::Running,
        2 => JobState::Suspended,
        3 => JobState::Completed,
        4 => JobState::Cancelled,
        5 => JobState::Failed,
        6 => JobState::Timeout,
        7 => JobState::NodeFail,
        8 => JobState::Preempted,
        9 => JobState::BootFail,
        10 => JobState::Deadline,
        11 => JobState::OutOfMemory,
        _ => return None,
    })
}

/// The job id and array task of a reference (`123`, `123_4`).
#[cfg(feature = "slurm-24-11")]
fn id_parts(s: &str) -> (u32, u32) {
    let (j, t) = s.split_once('_').unwrap_or((s, ""));
    let j = j.split('.').next().unwrap_or(j);
    (j.parse().unwrap_or(NO_VAL), t.parse().unwrap_or(NO_VAL))
}

#[cfg(feature = "slurm-24-11")]
fn kill_jobs_resp(results: &[&JobResult]) -> *mut sys::kill_jobs_resp_msg_t {
    let r = xmalloc::xnew::<sys::kill_jobs_resp_msg_t>();
    // SAFETY: r is NULL or a new zeroed record, ours alone.
    let Some(m) = (unsafe { r.as_mut() }) else { return r };
    let jobs: Vec<sys::kill_jobs_resp_job_t> = results
        .iter()
        .map(|res| {
            let (job, task) = id_parts(&res.job_id);
            let id = xmalloc::xnew::<sys::slurm_selected_step_t>();
            // SAFETY: id is NULL or a new zeroed record.
            if let Some(x) = unsafe { id.as_mut() } {
                x.array_task_id = task;
                x.het_job_offset = NO_VAL;
                x.step_id.job_id = job;
                x.step_id.step_id = NO_VAL;
                x.step_id.step_het_comp = NO_VAL;
            }
            sys::kill_jobs_resp_job_t {
                error_code: res.code as u32,
                error_msg: null_mut(),
                id,
                real_job_id: if res.code == e::ESLURM_INVALID_JOB_ID { NO_VAL } else { job },
                sibling_name: null_mut(),
            }
        })
        .collect();
    m.jobs_cnt = jobs.len() as u32;
    m.job_responses = xmalloc::xarray(&jobs);
    r
}

/// `void slurm_free_kill_jobs_response_msg(kill_jobs_resp_msg_t *)`
/// (exported by libslurm for `slurm_kill_jobs`' answer).
///
/// # Safety
/// `msg` is NULL or an answer of `slurm_kill_jobs`.
#[cfg(feature = "slurm-24-11")]
#[no_mangle]
pub unsafe extern "C" fn slurm_free_kill_jobs_response_msg(msg: *mut sys::kill_jobs_resp_msg_t) {
    guard((), || {
        // SAFETY: NULL or ours: jobs_cnt entries, each member xmalloc'ed or NULL.
        unsafe {
            if let Some(m) = msg.as_mut() {
                for i in 0..m.jobs_cnt as usize {
                    if m.job_responses.is_null() {
                        break;
                    }
                    let j = &mut *m.job_responses.add(i);
                    xfree(&mut j.error_msg);
                    xfree(&mut j.sibling_name);
                    xfree(&mut j.id);
                }
                xfree(&mut m.job_responses);
            }
            let mut m = msg;
            xfree(&mut m);
        }
    })
}

/// A `job_array_resp_msg_t` of the answers (xmalloc'ed; NULL when memory
/// runs out).
fn array_resp(results: &[JobResult]) -> *mut sys::job_array_resp_msg_t {
    let r = xmalloc::xnew::<sys::job_array_resp_msg_t>();
    // SAFETY: r is NULL or a new zeroed record, ours alone.
    let Some(m) = (unsafe { r.as_mut() }) else { return r };
    let ids: Vec<*mut c_char> = results.iter().map(|x| xstrdup(&x.job_id)).collect();
    let codes: Vec<u32> = results.iter().map(|x| x.code as u32).collect();
    m.job_array_count = results.len() as u32;
    m.job_array_id = xmalloc::xarray(&ids);
    m.error_code = xmalloc::xarray(&codes);
    #[cfg(feature = "slurm-24-11")]
    {
        let msgs: Vec<*mut c_char> = results.iter().map(|_| null_mut()).collect();
        m.err_msg = xmalloc::xarray(&msgs);
    }
    r
}

/// The answer of a `*2` call: several answers go to `*resp` (the call
/// succeeds), one is the call's own result.
///
/// # Safety
/// `resp` is NULL or writable.
unsafe fn array_answer(r: Result<Vec<JobResult>, i32>, resp: *mut *mut sys::job_array_resp_msg_t) -> c_int {
    if !resp.is_null() {
        // SAFETY: writable (the caller's contract).
        unsafe { *resp = null_mut() };
    }
    match r {
        Ok(results) if results.len() > 1 && !resp.is_null() => {
            // SAFETY: as above.
            unsafe { *resp = array_resp(&results) };
            0
        }
        other => first_error(other),
    }
}

/// `void slurm_free_job_array_resp(job_array_resp_msg_t *)`.
///
/// # Safety
/// `resp` is NULL or an answer of this library's `*2` calls.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_array_resp(resp: *mut sys::job_array_resp_msg_t) {
    guard((), || {
        // SAFETY: NULL or ours: job_array_count ids (and messages), each
        // xmalloc'ed or NULL, in xmalloc'ed arrays.
        unsafe {
            if let Some(m) = resp.as_mut() {
                for i in 0..m.job_array_count as usize {
                    if !m.job_array_id.is_null() {
                        xfree(&mut *m.job_array_id.add(i));
                    }
                    #[cfg(feature = "slurm-24-11")]
                    if !m.err_msg.is_null() {
                        xfree(&mut *m.err_msg.add(i));
                    }
                }
                xfree(&mut m.job_array_id);
                #[cfg(feature = "slurm-24-11")]
                xfree(&mut m.err_msg);
                xfree(&mut m.error_code);
            }
            let mut m = resp;
            xfree(&mut m);
        }
    })
}

fn requeue_op(flags: u32) -> JobControl {
    let special_exit = flags & JOB_SPECIAL_EXIT != 0;
    JobControl::Requeue { hold: special_exit || flags & JOB_REQUEUE_HOLD != 0, special_exit }
}

/// `int slurm_requeue(uint32_t job_id, uint32_t flags)`: requeue a batch
/// job (`JOB_REQUEUE_HOLD`: held; `JOB_SPECIAL_EXIT`: held in SPECIAL_EXIT).
#[no_mangle]
pub extern "C" fn slurm_requeue(job_id: u32, flags: u32) -> c_int {
    guard(sys::SLURM_ERROR, || first_error(control(vec![job_id.to_string()], requeue_op(flags))))
}

/// A `*2` call's job id text (None: NULL, empty or not UTF-8).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn job_text(p: *const c_char) -> Option<String> {
    // SAFETY: the caller's contract.
    unsafe { text(p) }.filter(|s| !s.is_empty()).map(|s| s.to_string())
}

/// `int slurm_requeue2(char *job_id, uint32_t flags, job_array_resp_msg_t
/// **resp)`: the same for a job id text.
///
/// # Safety
/// `job_id` is NULL or a NUL-terminated string; `resp` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_requeue2(
    job_id: *mut c_char,
    flags: u32,
    resp: *mut *mut sys::job_array_resp_msg_t,
) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let Some(id) = (unsafe { job_text(job_id) }) else { return fail(e::ESLURM_INVALID_JOB_ID) };
        // SAFETY: the caller's contract.
        unsafe { array_answer(control(vec![id], requeue_op(flags)), resp) }
    })
}

/// `int slurm_suspend(uint32_t job_id)` (an operator's).
#[no_mangle]
pub extern "C" fn slurm_suspend(job_id: u32) -> c_int {
    guard(sys::SLURM_ERROR, || first_error(control(vec![job_id.to_string()], JobControl::Suspend)))
}

/// `int slurm_resume(uint32_t job_id)` (an operator's).
#[no_mangle]
pub extern "C" fn slurm_resume(job_id: u32) -> c_int {
    guard(sys::SLURM_ERROR, || first_error(control(vec![job_id.to_string()], JobControl::Resume)))
}

/// `int slurm_suspend2(char *job_id, job_array_resp_msg_t **resp)`.
///
/// # Safety
/// `job_id` is NULL or a NUL-terminated string; `resp` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_suspend2(job_id: *mut c_char, resp: *mut *mut sys::job_array_resp_msg_t) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let Some(id) = (unsafe { job_text(job_id) }) else { return fail(e::ESLURM_INVALID_JOB_ID) };
        // SAFETY: the caller's contract.
        unsafe { array_answer(control(vec![id], JobControl::Suspend), resp) }
    })
}

/// `int slurm_resume2(char *job_id, job_array_resp_msg_t **resp)`.
///
/// # Safety
/// `job_id` is NULL or a NUL-terminated string; `resp` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_resume2(job_id: *mut c_char, resp: *mut *mut sys::job_array_resp_msg_t) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let Some(id) = (unsafe { job_text(job_id) }) else { return fail(e::ESLURM_INVALID_JOB_ID) };
        // SAFETY: the caller's contract.
        unsafe { array_answer(control(vec![id], JobControl::Resume), resp) }
    })
}

/// `int slurm_top_job(char *job_id_str)`: the listed pending jobs first
/// among their owner's (`scontrol top`).
///
/// # Safety
/// `job_id_str` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_top_job(job_id_str: *mut c_char) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let Some(id) = (unsafe { job_text(job_id_str) }) else { return fail(e::ESLURM_INVALID_JOB_ID) };
        match control(vec![id], JobControl::Top) {
            Ok(_) => 0,
            Err(_) => sys::SLURM_ERROR,
        }
    })
}

/// What a `slurm_update_job` descriptor asks: the jobs, a hold or release
/// (priority 0 / INFINITE, as scontrol's hold and release send them), and
/// the other changes.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct UpdateAsk {
    pub ids: Vec<String>,
    pub hold: Option<JobControl>,
    pub update: Option<JobUpdate>,
}

/// Read a descriptor as `scontrol update` would ask it. Err: Slurm's error.
///
/// # Safety
/// Every pointer member of `d` is NULL or a NUL-terminated string.
pub(crate) unsafe fn update_ask(d: &sys::job_desc_msg_t) -> Result<UpdateAsk, i32> {
    // SAFETY (each `s` below): members are NULL or NUL-terminated (the contract).
    let s = |p: *mut c_char| -> Result<Option<String>, i32> {
        if p.is_null() {
            return Ok(None);
        }
        unsafe { text(p) }.map(|x| Some(x.to_string())).ok_or(libc::EINVAL)
    };
    let id = match s(d.job_id_str)? {
        Some(x) if !x.is_empty() => x,
        _ if d.job_id != NO_VAL && d.job_id != 0 => d.job_id.to_string(),
        _ => return Err(e::ESLURM_INVALID_JOB_ID),
    };
    let mut ask = UpdateAsk { ids: vec![id], ..Default::default() };
    let mut u = JobUpdate::default();
    let u16v = |v: u16| (v != NO_VAL16).then_some(v as u32);
    let u32v = |v: u32| (v != NO_VAL).then_some(v);
    match d.priority {
        NO_VAL => {}
        0 => ask.hold = Some(JobControl::Hold { user: d.alloc_sid == sys::ALLOC_SID_USER_HOLD }),
        INFINITE => ask.hold = Some(JobControl::Release),
        p => u.priority = Some(p),
    }
    u.time_limit = u32v(d.time_limit);
    u.time_min = u32v(d.time_min);
    u.name = s(d.name)?;
    u.partition = s(d.partition)?;
    if d.nice != NO_VAL {
        u.nice = Some((d.nice as i64 - NICE_OFFSET as i64) as i32);
    }
    u.comment = s(d.comment)?;
    u.num_nodes = u32v(d.min_nodes);
    u.num_tasks = u32v(d.num_tasks);
    if d.pn_min_memory != NO_VAL64 {
        if d.pn_min_memory & MEM_PER_CPU != 0 {
            u.mem_per_cpu = Some(d.pn_min_memory & !MEM_PER_CPU);
        } else {
            u.mem_per_node = Some(d.pn_min_memory);
        }
    }
    u.exc_nodes = s(d.exc_nodes)?;
    u.req_nodes = s(d.req_nodes)?;
    u.features = s(d.features)?;
    u.work_dir = s(d.work_dir)?;
    u.requeue = u16v(d.requeue).map(|r| r != 0);
    u.std_out = s(d.std_out)?;
    u.std_err = s(d.std_err)?;
    u.std_in = s(d.std_in)?;
    u.dependency = s(d.dependency)?;
    if d.begin_time != 0 {
        u.begin_time = Some(d.begin_time);
    }
    if let Some(a) = s(d.array_inx)? {
        // `ArrayTaskThrottle=` (scontrol sends the count as array_inx)
        let n = a.trim_start_matches('%').parse::<u32>().unwrap_or(0);
        u.array_throttle = Some(n);
    }
    u.admin_comment = s(d.admin_comment)?;
    if d.site_factor != NO_VAL {
        u.site_factor = Some(d.site_factor as i64 - NICE_OFFSET as i64);
    }
    u.extra = s(d.extra)?;
    u.min_cpus_node = u16v(d.pn_min_cpus);
    u.cpus_per_task = u16v(d.cpus_per_task);
    u.num_cpus = u32v(d.min_cpus);
    u.ntasks_per_node = u16v(d.ntasks_per_node);
    u.tmp_disk = u32v(d.pn_min_tmp_disk).map(u64::from);
    u.sockets_per_node = u16v(d.sockets_per_node);
    u.cores_per_socket = u16v(d.cores_per_socket);
    u.threads_per_core = u16v(d.threads_per_core);
    u.prefer = s(d.prefer)?;
    u.reservation = s(d.reservation)?;
    u.account = s(d.account)?;
    u.qos = s(d.qos)?;
    u.wckey = s(d.wckey)?;
    if d.deadline != 0 {
        u.deadline = Some(d.deadline);
    }
    if d.end_time != 0 {
        u.end_time = Some(d.end_time);
    }
    u.contiguous = u16v(d.contiguous).map(|c| c != 0);
    u.shared = u16v(d.shared).map(|x| x == sys::JOB_SHARED_OK);
    if d.mail_type != NO_VAL16 {
        u.mail_type = Some(crate::submit::mail_type_names(d.mail_type));
    }
    u.mail_user = s(d.mail_user)?;
    u.gres = s(d.tres_per_node)?;
    u.reset_accrue_time = d.bitflags & RESET_ACCRUE_TIME != 0;
    u.reboot = u16v(d.reboot).map(|r| r != 0);
    u.delay_boot = u32v(d.delay_boot);
    if s(d.licenses)?.is_some() {
        u.unsupported.push(UnsupportedJobField::Licenses);
    }
    if s(d.burst_buffer)?.is_some() {
        return Err(e::ESLURM_NOT_SUPPORTED);
    }
    if u != JobUpdate::default() {
        ask.update = Some(u);
    }
    Ok(ask)
}

/// Carry out an update: the changes, then the hold or release.
fn run_update(ask: UpdateAsk) -> Result<Vec<JobResult>, i32> {
    let mut all = Vec::new();
    if let Some(u) = ask.update {
        let r = control(ask.ids.clone(), JobControl::Update(Box::new(u)))?;
        let failed = r.iter().any(|x| x.code != 0);
        all.extend(r);
        if failed {
            return Ok(all);
        }
    }
    if let Some(h) = ask.hold {
        let r = control(ask.ids.clone(), h)?;
        if all.is_empty() {
            all = r;
        } else {
            // one answer per job: a refusal of the hold replaces the update's success
            for x in r.into_iter().filter(|x| x.code != 0) {
                match all.iter_mut().find(|a| a.job_id == x.job_id) {
                    Some(a) => a.code = x.code,
                    None => all.push(x),
                }
            }
        }
    }
    Ok(all)
}

/// `int slurm_update_job(job_desc_msg_t *job_msg)`: change a job as
/// `scontrol update JobId=` does: the job is `job_id_str` (else `job_id`),
/// the changes every field not left unset; priority 0 holds the job
/// (`alloc_sid` ALLOC_SID_USER_HOLD: the user's hold), INFINITE releases it.
///
/// # Safety
/// `job_msg` points to a valid descriptor.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_job(job_msg: *mut sys::job_desc_msg_t) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: NULL or a valid descriptor (the caller's contract).
        let Some(d) = (unsafe { job_msg.as_ref() }) else { return fail(e::ESLURM_INVALID_JOB_ID) };
        // SAFETY: its strings are valid (the caller's contract).
        match unsafe { update_ask(d) } {
            Ok(ask) => first_error(run_update(ask)),
            Err(code) => fail(code),
        }
    })
}

/// `int slurm_update_job2(job_desc_msg_t *job_msg, job_array_resp_msg_t
/// **resp)`: the same, with each task's answer for an array.
///
/// # Safety
/// `job_msg` points to a valid descriptor; `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_job2(
    job_msg: *mut sys::job_desc_msg_t,
    resp: *mut *mut sys::job_array_resp_msg_t,
) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: NULL or a valid descriptor (the caller's contract).
        let Some(d) = (unsafe { job_msg.as_ref() }) else { return fail(e::ESLURM_INVALID_JOB_ID) };
        // SAFETY: its strings are valid (the caller's contract).
        match unsafe { update_ask(d) } {
            // SAFETY: resp is NULL or writable (the caller's contract).
            Ok(ask) => unsafe { array_answer(run_update(ask), resp) },
            Err(code) => fail(code),
        }
    })
}

/// `int slurm_complete_job(uint32_t job_id, uint32_t job_return_code)`:
/// end an allocation (salloc's), with the return code as its exit status.
#[no_mangle]
pub extern "C" fn slurm_complete_job(job_id: u32, job_return_code: u32) -> c_int {
    guard(sys::SLURM_ERROR, || match crate::conn::call(|c| c.release_allocation(job_id, job_return_code as i32)) {
        Ok(()) => 0,
        Err(_) => sys::SLURM_ERROR,
    })
}

/// `void slurm_init_update_step_msg(step_update_request_msg_t *)`: zero,
/// with job id, step id and time limit NO_VAL (as Slurm's).
///
/// # Safety
/// `step_msg` is NULL or points to a writable record.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_update_step_msg(step_msg: *mut sys::step_update_request_msg_t) {
    guard((), || {
        // SAFETY: NULL or writable (the caller's contract); zero is a valid value.
        if let Some(m) = unsafe { step_msg.as_mut() } {
            // SAFETY: all-zero is a valid step_update_request_msg_t.
            *m = unsafe { std::mem::zeroed() };
            m.job_id = NO_VAL;
            m.step_id = NO_VAL;
            m.time_limit = NO_VAL;
        }
    })
}

/// `uint32_t slurm_xlate_job_id(char *job_id_str)` (22.05): the job id a
/// text names: `123` itself, `123_4` the job id of that array task (0 when
/// the task has no record of its own yet), `123+1` a component's; 0 for
/// anything else.
///
/// # Safety
/// `job_id_str` is NULL or a NUL-terminated string.
#[cfg(feature = "slurm-22-05")]
#[no_mangle]
pub unsafe extern "C" fn slurm_xlate_job_id(job_id_str: *mut c_char) -> u32 {
    guard(0, || {
        // SAFETY: the caller's contract.
        let Some(s) = (unsafe { text(job_id_str) }) else { return 0 };
        xlate(s, |job, task| {
            let q = spur_core::request::Query {
                jobs: true,
                job_ids: vec![job.to_string()],
                all_finished: true,
                ..Default::default()
            };
            let view = crate::conn::call(|c| c.query(&q)).ok()?;
            view.jobs.iter().find(|j| j.array.as_ref().is_some_and(|a| a.task_id == Some(task))).map(|j| j.job_id)
        })
    })
}

/// The job id of `s` (see `slurm_xlate_job_id`), `task_of(array, task)`
/// finding an array task's.
#[cfg_attr(not(feature = "slurm-22-05"), allow(dead_code))]
fn xlate(s: &str, task_of: impl FnOnce(u32, u32) -> Option<u32>) -> u32 {
    let n = spur_grammar::num::strtol(s, 10);
    let job = n.value as u32;
    let rest = &s[n.end..];
    if rest.is_empty() {
        return job;
    }
    let num = |t: &str| {
        let m = spur_grammar::num::strtol(t, 10);
        (m.end == t.len()).then_some(m.value)
    };
    if let Some(t) = rest.strip_prefix('_') {
        return match num(t) {
            Some(task) => task_of(job, task as u16 as u32).unwrap_or(0),
            None => 0,
        };
    }
    if let Some(t) = rest.strip_prefix('+') {
        return match num(t) {
            Some(off) => job.wrapping_add(off as u16 as u32),
            None => 0,
        };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc() -> sys::job_desc_msg_t {
        // SAFETY: all-zero is a valid descriptor; init then sets it.
        let mut d: sys::job_desc_msg_t = unsafe { std::mem::zeroed() };
        // SAFETY: d is writable.
        unsafe { crate::submit::slurm_init_job_desc_msg(&mut d) };
        d
    }

    #[test]
    fn update_descriptor_to_request() {
        let mut d = desc();
        // SAFETY (each update_ask): the descriptor's strings are NULL or ours.
        assert_eq!(unsafe { update_ask(&d) }.unwrap_err(), e::ESLURM_INVALID_JOB_ID);
        d.job_id = 12;
        let a = unsafe { update_ask(&d) }.unwrap();
        assert_eq!(a, UpdateAsk { ids: vec!["12".into()], hold: None, update: None });
        d.priority = 0;
        let a = unsafe { update_ask(&d) }.unwrap();
        assert_eq!(a.hold, Some(JobControl::Hold { user: false }));
        d.alloc_sid = sys::ALLOC_SID_USER_HOLD;
        assert_eq!(unsafe { update_ask(&d) }.unwrap().hold, Some(JobControl::Hold { user: true }));
        d.priority = u32::MAX;
        assert_eq!(unsafe { update_ask(&d) }.unwrap().hold, Some(JobControl::Release));
        d.priority = 50;
        d.time_limit = 10;
        d.nice = NICE_OFFSET + 3;
        let name = xstrdup("renamed");
        let ids = xstrdup("12_3");
        d.name = name;
        d.job_id_str = ids;
        d.pn_min_memory = 512 | MEM_PER_CPU;
        d.requeue = 1;
        let a = unsafe { update_ask(&d) }.unwrap();
        assert_eq!(a.ids, vec!["12_3"]);
        assert_eq!(a.hold, None);
        let u = a.update.unwrap();
        assert_eq!(
            (u.priority, u.time_limit, u.nice, u.name.as_deref(), u.mem_per_cpu, u.requeue),
            (Some(50), Some(10), Some(3), Some("renamed"), Some(512), Some(true))
        );
        assert_eq!((u.num_tasks, u.num_nodes, u.partition), (None, None, None));
        // SAFETY: both xmalloc'ed here, freed once.
        unsafe {
            xfree(&mut d.name);
            xfree(&mut d.job_id_str);
        }
    }

    #[test]
    fn xlate_texts() {
        assert_eq!(xlate("123", |_, _| None), 123);
        assert_eq!(xlate("123_4", |j, t| (j == 123 && t == 4).then_some(130)), 130);
        assert_eq!(xlate("123_4", |_, _| None), 0);
        assert_eq!(xlate("123+2", |_, _| None), 125);
        assert_eq!(xlate("123x", |_, _| None), 0);
        assert_eq!(xlate("123_4x", |_, _| Some(1)), 0);
    }

    #[test]
    fn requeue_flags() {
        assert_eq!(requeue_op(0), JobControl::Requeue { hold: false, special_exit: false });
        assert_eq!(requeue_op(JOB_REQUEUE_HOLD), JobControl::Requeue { hold: true, special_exit: false });
        assert_eq!(requeue_op(JOB_SPECIAL_EXIT), JobControl::Requeue { hold: true, special_exit: true });
    }

    #[test]
    fn array_answers() {
        let results = vec![JobResult { job_id: "5_1".into(), code: 0 }, JobResult { job_id: "5_2".into(), code: 2021 }];
        let mut resp = null_mut();
        // SAFETY: resp is writable.
        assert_eq!(unsafe { array_answer(Ok(results.clone()), &mut resp) }, 0);
        // SAFETY: resp is the record just made, read then freed once.
        unsafe {
            let m = &*resp;
            assert_eq!(m.job_array_count, 2);
            assert_eq!(*m.error_code.add(1), 2021);
            assert_eq!(std::ffi::CStr::from_ptr(*m.job_array_id.add(1)).to_str(), Ok("5_2"));
            slurm_free_job_array_resp(resp);
        }
        // one answer: the call's own
        // SAFETY: resp is writable.
        assert_eq!(unsafe { array_answer(Ok(results[1..].to_vec()), &mut resp) }, -1);
        assert!(resp.is_null());
        assert_eq!(crate::errno::get(), 2021);
        #[cfg(feature = "slurm-24-11")]
        assert_eq!((id_parts("7_3"), id_parts("7")), ((7, 3), (7, NO_VAL)));
    }
}
