//! Job submission: `slurm_init_job_desc_msg`, `slurm_free_job_desc_msg`,
//! `slurm_submit_batch_job`, `slurm_job_will_run`(2), the allocation calls
//! (`slurm_allocate_resources`, `_blocking`, `slurm_allocation_lookup`) and
//! the free functions of their answers.
//!
//! A `job_desc_msg_t` is read into spur-core's [`JobDesc`], the description
//! sbatch and salloc send: a field left at the "unset" value
//! `slurm_init_job_desc_msg` gave it (NO_VAL, NO_VAL16, NO_VAL64, NULL, 0)
//! is not asked for. The caller's strings are read, never kept or freed
//! (except by `slurm_free_job_desc_msg`, whose job that is). What is handed
//! out is xmalloc'ed, for the documented free functions.
//!
//! The submission is the calling process's: the client authenticates as
//! its uid. As slurmctld's `_valid_id`: a `user_id` left unset is the
//! caller's (22.05's "unset" is NO_VAL; 24.11's is SLURM_AUTH_NOBODY, 99,
//! and 24.11 refuses NO_VAL); another uid than the caller's is refused
//! (`ESLURM_USER_ID_MISSING`) unless the caller is root, for whom it is the
//! job's owner (sbatch's `--uid`).
//!
//! An allocation (`slurm_allocate_resources`) is Spur's salloc path: a job
//! without a batch script, granted when it runs; it lasts until
//! `slurm_complete_job` releases it (or its time limit).

use crate::sys;
use crate::xmalloc::{self, xfree, xstr_opt, xstrdup};
use crate::{guard, text};
use spur_core::errors as e;
use spur_core::model::{AcceptedOptions, ExclusiveKind, Job, JobDesc, JobState};
use std::ffi::{c_char, c_int, c_void};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

pub(crate) const NO_VAL8: u8 = 0xfe;
pub(crate) const NO_VAL16: u16 = 0xfffe;
pub(crate) const NO_VAL: u32 = 0xffff_fffe;
pub(crate) const NO_VAL64: u64 = 0xffff_ffff_ffff_fffe;
pub(crate) const INFINITE: u32 = 0xffff_ffff;
const MEM_PER_CPU: u64 = 1 << 63;
pub(crate) const NICE_OFFSET: u32 = 0x8000_0000;
/// Slurm's `SLURM_AUTH_NOBODY` (src/common), 24.11's unset uid/gid.
#[cfg(feature = "slurm-24-11")]
pub(crate) const SLURM_AUTH_NOBODY: u32 = 99;
/// The uid/gid `slurm_init_job_desc_msg` leaves: "use the caller's".
#[cfg(feature = "slurm-24-11")]
pub(crate) const UNSET_ID: u32 = SLURM_AUTH_NOBODY;
#[cfg(feature = "slurm-22-05")]
pub(crate) const UNSET_ID: u32 = NO_VAL;
const KILL_INV_DEP: u64 = 1 << 0;
const NO_KILL_INV_DEP: u64 = 1 << 1;
const OPEN_MODE_APPEND: u8 = 1;
const OPEN_MODE_TRUNCATE: u8 = 2;

/// `void slurm_init_job_desc_msg(job_desc_msg_t *)`: every field to the
/// value that means "not asked for", as Slurm's does (zero, then NO_VAL of
/// each numeric field's width, the uid and gid to the release's unset id).
///
/// # Safety
/// `job_desc_msg` is NULL or points to a writable `job_desc_msg_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_job_desc_msg(job_desc_msg: *mut sys::job_desc_msg_t) {
    guard((), || {
        if job_desc_msg.is_null() {
            return;
        }
        // SAFETY: not NULL, and a writable job_desc_msg_t by the caller's
        // contract; all-zero is a valid value of it (integers and pointers).
        let d = unsafe {
            job_desc_msg.write(std::mem::zeroed());
            &mut *job_desc_msg
        };
        init(d);
    })
}

fn init(d: &mut sys::job_desc_msg_t) {
    d.alloc_sid = NO_VAL;
    d.contiguous = NO_VAL16;
    d.core_spec = NO_VAL16;
    d.cores_per_socket = NO_VAL16;
    d.cpu_bind_type = NO_VAL16;
    d.cpu_freq_min = NO_VAL;
    d.cpu_freq_max = NO_VAL;
    d.cpu_freq_gov = NO_VAL;
    d.cpus_per_task = NO_VAL16;
    d.delay_boot = NO_VAL;
    d.group_id = UNSET_ID;
    d.job_id = NO_VAL;
    d.kill_on_node_fail = NO_VAL16;
    d.max_cpus = NO_VAL;
    d.max_nodes = NO_VAL;
    d.mem_bind_type = NO_VAL16;
    d.mail_type = NO_VAL16;
    d.min_cpus = NO_VAL;
    d.min_nodes = NO_VAL;
    d.nice = NO_VAL;
    d.ntasks_per_core = NO_VAL16;
    d.ntasks_per_tres = NO_VAL16;
    d.ntasks_per_node = NO_VAL16;
    d.ntasks_per_socket = NO_VAL16;
    d.num_tasks = NO_VAL;
    d.overcommit = NO_VAL8;
    d.plane_size = NO_VAL16;
    d.pn_min_cpus = NO_VAL16;
    d.pn_min_memory = NO_VAL64;
    d.pn_min_tmp_disk = NO_VAL;
    d.priority = NO_VAL;
    d.reboot = NO_VAL16;
    d.requeue = NO_VAL16;
    d.req_switch = NO_VAL;
    d.shared = NO_VAL16;
    d.site_factor = NO_VAL;
    d.sockets_per_node = NO_VAL16;
    d.task_dist = NO_VAL;
    d.threads_per_core = NO_VAL16;
    d.time_limit = NO_VAL;
    d.time_min = NO_VAL;
    d.user_id = UNSET_ID;
    d.wait_all_nodes = NO_VAL16;
    d.wait4switch = NO_VAL;
}

/// Release an xmalloc'ed array of `n` strings, each xmalloc'ed (or, when
/// `n` is None, until its NULL entry, as Slurm's env_array_free).
///
/// # Safety
/// `*a` is NULL or an xmalloc'ed array of at least `n` (or NULL-terminated)
/// pointers, each NULL or xmalloc'ed.
unsafe fn xfree_strings(a: &mut *mut *mut c_char, n: Option<usize>) {
    if a.is_null() {
        return;
    }
    let mut i = 0;
    loop {
        if n.is_some_and(|n| i >= n) {
            break;
        }
        // SAFETY: i is within the array by the contract above (below n, or
        // not past the NULL entry).
        let slot = unsafe { &mut *a.add(i) };
        if n.is_none() && slot.is_null() {
            break;
        }
        // SAFETY: each entry is NULL or xmalloc'ed.
        unsafe { xfree(slot) };
        i += 1;
    }
    // SAFETY: the array itself is xmalloc'ed.
    unsafe { xfree(a) };
}

/// `void slurm_free_job_desc_msg(job_desc_msg_t *msg)` (exported by
/// libslurm, declared in its internal headers): release every string and
/// array the descriptor holds with xfree, then the descriptor, as Slurm's
/// does. What Slurm releases with functions of its own (`array_bitmap`,
/// `crontab_entry`, `script_buf`, the identity, 22.05's `select_jobinfo`)
/// is left alone: callers of the library do not build those.
///
/// # Safety
/// `msg` is NULL or an xmalloc'ed `job_desc_msg_t` whose pointer members are
/// each NULL or xmalloc'ed (slurm_xcalloc, slurm_xstrdup).
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_desc_msg(msg: *mut sys::job_desc_msg_t) {
    guard((), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: not NULL; a live descriptor by the caller's contract.
        let d = unsafe { &mut *msg };
        // SAFETY: every pointer freed below is NULL or xmalloc'ed (the
        // caller's contract), and each is freed once and cleared.
        unsafe {
            xfree(&mut d.account);
            xfree(&mut d.acctg_freq);
            xfree(&mut d.admin_comment);
            xfree(&mut d.alloc_node);
            let argc = d.argc as usize;
            xfree_strings(&mut d.argv, Some(argc));
            xfree(&mut d.array_inx);
            xfree(&mut d.batch_features);
            xfree(&mut d.burst_buffer);
            xfree(&mut d.clusters);
            xfree(&mut d.comment);
            xfree(&mut d.container);
            #[cfg(feature = "slurm-24-11")]
            xfree(&mut d.container_id);
            xfree(&mut d.cpu_bind);
            xfree(&mut d.cpus_per_tres);
            xfree(&mut d.dependency);
            xfree_strings(&mut d.environment, None);
            xfree(&mut d.extra);
            xfree(&mut d.exc_nodes);
            xfree(&mut d.features);
            xfree(&mut d.cluster_features);
            xfree(&mut d.job_id_str);
            #[cfg(feature = "slurm-24-11")]
            xfree(&mut d.job_size_str);
            xfree(&mut d.licenses);
            #[cfg(feature = "slurm-24-11")]
            xfree(&mut d.licenses_tot);
            xfree(&mut d.mail_user);
            xfree(&mut d.mcs_label);
            xfree(&mut d.mem_bind);
            xfree(&mut d.mem_per_tres);
            xfree(&mut d.name);
            xfree(&mut d.network);
            xfree(&mut d.origin_cluster);
            xfree(&mut d.partition);
            xfree(&mut d.qos);
            xfree(&mut d.req_context);
            xfree(&mut d.req_nodes);
            xfree(&mut d.reservation);
            xfree(&mut d.resp_host);
            xfree(&mut d.script);
            xfree(&mut d.selinux_context);
            xfree(&mut d.std_err);
            xfree(&mut d.std_in);
            xfree(&mut d.std_out);
            let n = d.spank_job_env_size as usize;
            xfree_strings(&mut d.spank_job_env, Some(n));
            xfree(&mut d.submit_line);
            xfree(&mut d.tres_bind);
            xfree(&mut d.tres_freq);
            xfree(&mut d.tres_req_cnt);
            xfree(&mut d.tres_per_job);
            xfree(&mut d.tres_per_node);
            xfree(&mut d.tres_per_socket);
            xfree(&mut d.tres_per_task);
            xfree(&mut d.wckey);
            xfree(&mut d.work_dir);
            xfree(&mut d.x11_magic_cookie);
            xfree(&mut d.x11_target);
            let mut m = msg;
            xfree(&mut m);
        }
    })
}

/// A caller's optional string: None for NULL; Err(EINVAL) for text that
/// is not UTF-8.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn opt(p: *const c_char) -> Result<Option<String>, i32> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract.
    match unsafe { text(p) } {
        Some(s) => Ok(Some(s.to_string())),
        None => Err(libc::EINVAL),
    }
}

/// `n` strings of a caller's array (stopping early at a NULL entry).
///
/// # Safety
/// `a` is NULL or points to at least `n` pointers, each NULL or a
/// NUL-terminated string.
unsafe fn strings(a: *const *mut c_char, n: usize) -> Result<Vec<String>, i32> {
    let mut out = Vec::new();
    if a.is_null() {
        return Ok(out);
    }
    for i in 0..n {
        // SAFETY: i < n, within the array by the contract above.
        let p = unsafe { *a.add(i) };
        if p.is_null() {
            break;
        }
        // SAFETY: a NUL-terminated string by the contract above.
        out.extend(unsafe { opt(p) }?);
    }
    Ok(out)
}

fn u16_set(v: u16) -> Option<u32> {
    (v != NO_VAL16).then_some(v as u32)
}

fn u32_set(v: u32) -> Option<u32> {
    (v != NO_VAL).then_some(v)
}

/// Slurm's mail_type bits as the names `--mail-type` takes.
pub(crate) fn mail_type_names(bits: u16) -> String {
    const NAMES: &[(u16, &str)] = &[
        (1 << 0, "BEGIN"),
        (1 << 1, "END"),
        (1 << 2, "FAIL"),
        (1 << 3, "REQUEUE"),
        (1 << 4, "TIME_LIMIT"),
        (1 << 5, "TIME_LIMIT_90"),
        (1 << 6, "TIME_LIMIT_80"),
        (1 << 7, "TIME_LIMIT_50"),
        (1 << 8, "STAGE_OUT"),
        (1 << 9, "ARRAY_TASKS"),
        (1 << 10, "INVALID_DEPEND"),
    ];
    let v: Vec<&str> = NAMES.iter().filter(|(b, _)| bits & b != 0).map(|(_, n)| *n).collect();
    if v.is_empty() {
        "NONE".into()
    } else {
        v.join(",")
    }
}

/// A `gres/NAME:...` TRES list as `--gres` writes it (`NAME:...`).
fn strip_gres(s: &str) -> String {
    s.split(',')
        .map(|x| x.strip_prefix("gres/").or_else(|| x.strip_prefix("gres:")).unwrap_or(x))
        .collect::<Vec<_>>()
        .join(",")
}

/// The GPU part of a per-job/per-TRES value (`gres/gpu:2` → `2`,
/// `gres/gpu:a100:2` → `a100:2`).
fn gpu_value(s: &str) -> Option<String> {
    s.split(',').find_map(|x| x.strip_prefix("gres/gpu:").or_else(|| x.strip_prefix("gpu:")).map(|v| v.to_string()))
}

/// The calling process's umask (read, not set: other threads may be
/// creating files).
fn process_umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix("Umask:").and_then(|v| u32::from_str_radix(v.trim(), 8).ok()))
        })
        .unwrap_or(0o022)
}

pub(crate) fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its length; gethostname NUL-terminates
    // within it on success (the last byte stays 0 in any case).
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(0);
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Who calls: the process's real uid and gid (the client authenticates as
/// the process).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caller {
    pub uid: u32,
    pub gid: u32,
}

impl Caller {
    pub(crate) fn process() -> Caller {
        // SAFETY: getuid/getgid cannot fail and touch no memory.
        unsafe { Caller { uid: libc::getuid(), gid: libc::getgid() } }
    }
}

/// Read a `job_desc_msg_t` into the description Spur submits (`batch`: a
/// batch job, which must carry a script and an environment). Err: Slurm's
/// error number for a refusal made before the controller is asked.
///
/// # Safety
/// Every pointer member of `d` is NULL or valid as slurm.h describes it
/// (strings NUL-terminated, `argv` of `argc` and `environment` of
/// `env_size` entries).
pub(crate) unsafe fn job_desc(d: &sys::job_desc_msg_t, batch: bool, caller: Caller) -> Result<JobDesc, i32> {
    // SAFETY (for every `opt`/`strings` below): the members are NULL or
    // valid by this function's contract.
    let s = |p: *mut c_char| unsafe { opt(p) };
    let mut j = JobDesc { name: s(d.name)?.unwrap_or_default(), ..Default::default() };
    let script = s(d.script)?.unwrap_or_default();
    if batch && script.is_empty() {
        return Err(e::ESLURM_JOB_SCRIPT_MISSING);
    }
    j.script = script.into();
    // SAFETY: argv holds argc entries (the contract).
    j.argv = unsafe { strings(d.argv, d.argc as usize) }?;
    j.command = j.argv.first().cloned();
    // SAFETY: environment holds env_size entries (the contract).
    let env = unsafe { strings(d.environment, d.env_size as usize) }?;
    if batch && env.is_empty() {
        return Err(e::ESLURM_ENVIRONMENT_MISSING);
    }
    j.env = env
        .iter()
        .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect::<Vec<_>>()
        .into();
    j.work_dir = match s(d.work_dir)? {
        Some(w) => w,
        None => std::env::current_dir().map(|p| p.to_string_lossy().into_owned()).unwrap_or_else(|_| "/".into()),
    };
    j.std_out = s(d.std_out)?;
    j.std_err = s(d.std_err)?;
    j.std_in = s(d.std_in)?;
    j.partition = s(d.partition)?;
    j.account = s(d.account)?;
    j.qos = s(d.qos)?;
    j.comment = s(d.comment)?;
    j.dependency = s(d.dependency)?;
    j.constraint = s(d.features)?;
    j.req_nodes = s(d.req_nodes)?;
    j.exc_nodes = s(d.exc_nodes)?;
    j.reservation = s(d.reservation)?;
    j.mail_user = s(d.mail_user)?;
    j.array = s(d.array_inx)?;
    j.submit_line = s(d.submit_line)?.unwrap_or_default();
    j.min_nodes = u32_set(d.min_nodes);
    j.max_nodes = u32_set(d.max_nodes);
    j.num_tasks = u32_set(d.num_tasks);
    j.cpus_per_task = u16_set(d.cpus_per_task);
    j.ntasks_per_node = u16_set(d.ntasks_per_node);
    j.ntasks_per_core = u16_set(d.ntasks_per_core);
    j.ntasks_per_socket = u16_set(d.ntasks_per_socket);
    j.ntasks_per_tres = u16_set(d.ntasks_per_tres);
    j.sockets_per_node = u16_set(d.sockets_per_node);
    j.cores_per_socket = u16_set(d.cores_per_socket);
    j.threads_per_core = u16_set(d.threads_per_core);
    j.min_cpus = u16_set(d.pn_min_cpus);
    j.tmp_mb = u32_set(d.pn_min_tmp_disk).map(u64::from);
    if d.pn_min_memory != NO_VAL64 {
        if d.pn_min_memory & MEM_PER_CPU != 0 {
            j.mem_per_cpu = Some(d.pn_min_memory & !MEM_PER_CPU);
        } else {
            j.mem_per_node = Some(d.pn_min_memory);
        }
    }
    j.time_limit = u32_set(d.time_limit);
    j.time_min = u32_set(d.time_min);
    j.gres = s(d.tres_per_node)?.map(|g| strip_gres(&g));
    j.gpus = s(d.tres_per_job)?.and_then(|g| gpu_value(&g));
    j.mem_per_gpu = s(d.mem_per_tres)?.and_then(|g| gpu_value(&g)).and_then(|v| v.parse().ok());
    j.cpus_per_gpu = s(d.cpus_per_tres)?.and_then(|g| gpu_value(&g)).and_then(|v| v.parse().ok());
    j.begin_time = d.begin_time;
    j.deadline = d.deadline;
    // priority 0 is a hold (sbatch --hold); another value is asked for
    match d.priority {
        0 => j.hold = true,
        NO_VAL => {}
        p => j.priority = Some(p),
    }
    if d.nice != NO_VAL {
        j.nice = Some((d.nice as i64 - NICE_OFFSET as i64) as i32);
    }
    // JOB_SHARED_NONE, _OK, _USER, _MCS, _TOPO (24.11)
    match d.shared {
        0 => j.exclusive = true,
        1 => j.oversubscribe_ok = true,
        2 => j.exclusive_kind = Some(ExclusiveKind::User),
        3 => j.exclusive_kind = Some(ExclusiveKind::Mcs),
        4 if sys::RELEASE == "24.11" => j.exclusive_kind = Some(ExclusiveKind::Topo),
        _ => {}
    }
    j.contiguous_nodes = d.contiguous == 1;
    j.requeue = u16_set(d.requeue).map(|r| r != 0);
    j.open_mode_append = match d.open_mode {
        OPEN_MODE_APPEND => Some(true),
        OPEN_MODE_TRUNCATE => Some(false),
        _ => None,
    };
    if d.mail_type != NO_VAL16 && d.mail_type != 0 {
        j.mail_type = Some(mail_type_names(d.mail_type));
    }
    if d.warn_signal != 0 && d.warn_signal != NO_VAL16 {
        // `--signal=[B:]SIG@TIME` (B: the batch shell only, KILL_JOB_BATCH)
        let b = if d.warn_flags & 1 != 0 { "B:" } else { "" };
        let time = if d.warn_time == 0 || d.warn_time == NO_VAL16 { 60 } else { d.warn_time };
        j.signal = Some(format!("{}{}@{}", b, d.warn_signal, time));
    }
    if d.bitflags & KILL_INV_DEP != 0 {
        j.kill_on_invalid_dependency = Some(true);
    } else if d.bitflags & NO_KILL_INV_DEP != 0 {
        j.kill_on_invalid_dependency = Some(false);
    }
    // asked for, kept, not acted on (as sbatch's)
    let mut acc = AcceptedOptions {
        licenses: s(d.licenses)?,
        burst_buffer: s(d.burst_buffer)?,
        network: s(d.network)?,
        mcs_label: s(d.mcs_label)?,
        extra: s(d.extra)?,
        prefer: s(d.prefer)?,
        batch_features: s(d.batch_features)?,
        cluster_features: s(d.cluster_features)?,
        container: s(d.container)?,
        wckey: s(d.wckey)?,
        ..Default::default()
    };
    acc.overcommit = d.overcommit != NO_VAL8 && d.overcommit != 0;
    if acc != AcceptedOptions::default() {
        j.accepted = Some(Box::new(acc));
    }
    // the owner, as slurmctld's _valid_id
    #[cfg(feature = "slurm-24-11")]
    if d.user_id == NO_VAL || d.group_id == NO_VAL {
        return Err(e::ESLURM_USER_ID_MISSING);
    }
    if d.user_id != UNSET_ID && d.user_id != caller.uid {
        if caller.uid != 0 {
            return Err(e::ESLURM_USER_ID_MISSING);
        }
        j.run_as_user = Some(d.user_id.to_string());
    }
    if d.group_id != UNSET_ID && d.group_id != caller.gid {
        if caller.uid != 0 {
            return Err(e::ESLURM_GROUP_ID_MISSING);
        }
        j.run_as_group = Some(d.group_id.to_string());
    }
    let host = hostname();
    j.submit_host = host.clone();
    j.alloc_node = s(d.alloc_node)?.unwrap_or(host);
    j.alloc_sid = if d.alloc_sid == NO_VAL {
        // SAFETY: getsid(0) reads the calling process's session id.
        (unsafe { libc::getsid(0) }).max(0) as u32
    } else {
        d.alloc_sid
    };
    j.umask = process_umask();
    Ok(j)
}

/// `int slurm_submit_batch_job(job_desc_msg_t *, submit_response_msg_t **)`:
/// queue a batch job; `*resp` gets its id (free it with
/// `slurm_free_submit_response_response_msg`).
///
/// # Safety
/// `job_desc_msg` points to a descriptor valid as slurm.h describes it;
/// `slurm_alloc_msg` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_submit_batch_job(
    job_desc_msg: *mut sys::job_desc_msg_t,
    slurm_alloc_msg: *mut *mut sys::submit_response_msg_t,
) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: NULL or a valid descriptor (the caller's contract).
        let Some(d) = (unsafe { job_desc_msg.as_ref() }) else {
            return fail(e::ESLURM_JOB_SCRIPT_MISSING);
        };
        // SAFETY: the descriptor's members are valid (the caller's contract).
        let desc = match unsafe { job_desc(d, true, Caller::process()) } {
            Ok(x) => x,
            Err(code) => return fail(code),
        };
        let out = match crate::conn::call(|c| c.submit(&desc, false)) {
            Ok(o) => o,
            Err(_) => return sys::SLURM_ERROR,
        };
        if !slurm_alloc_msg.is_null() {
            let r = xmalloc::xnew::<sys::submit_response_msg_t>();
            // SAFETY: r is NULL or a new zeroed submit_response_msg_t;
            // slurm_alloc_msg is writable (the caller's contract).
            unsafe {
                if let Some(m) = r.as_mut() {
                    m.job_id = out.job_id;
                    m.step_id = NO_VAL;
                    m.error_code = 0;
                }
                *slurm_alloc_msg = r;
            }
        }
        0
    })
}

/// Set errno and give SLURM_ERROR.
pub(crate) fn fail(code: i32) -> c_int {
    crate::errno::set(code);
    sys::SLURM_ERROR
}

/// `void slurm_free_submit_response_response_msg(submit_response_msg_t *)`.
///
/// # Safety
/// `msg` is NULL or a response this library handed out.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_submit_response_response_msg(msg: *mut sys::submit_response_msg_t) {
    guard((), || {
        // SAFETY: NULL or one of ours: its string and itself xmalloc'ed.
        unsafe {
            if let Some(m) = msg.as_mut() {
                xfree(&mut m.job_submit_user_msg);
            }
            let mut m = msg;
            xfree(&mut m);
        }
    })
}

/// Ask where and when a job would start (`sbatch --test-only`).
///
/// # Safety
/// As [`job_desc`].
unsafe fn will_run(d: *mut sys::job_desc_msg_t) -> Result<spur_core::request::SubmitOutcome, c_int> {
    // SAFETY: NULL or a valid descriptor (the caller's contract).
    let Some(d) = (unsafe { d.as_ref() }) else {
        return Err(fail(libc::EINVAL));
    };
    // a test of a batch job or of an allocation: no script needed
    // SAFETY: the descriptor's members are valid (the caller's contract).
    let desc = unsafe { job_desc(d, false, Caller::process()) }.map_err(fail)?;
    crate::conn::call(|c| c.submit(&desc, true)).map_err(|_| sys::SLURM_ERROR)
}

/// `int slurm_job_will_run(job_desc_msg_t *)`: whether (and where, when)
/// the job would start, said on standard error as Slurm's does.
///
/// # Safety
/// `job_desc_msg` points to a valid descriptor.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_will_run(job_desc_msg: *mut sys::job_desc_msg_t) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        match unsafe { will_run(job_desc_msg) } {
            Ok(o) => {
                let when = spur_grammar::time::fmt_timestamp(o.start_time);
                eprintln!(
                    "Job {} to start at {} using {} processors on nodes {} in partition {}",
                    o.job_id, when, o.cpus, o.nodes, o.partition
                );
                0
            }
            Err(rc) => rc,
        }
    })
}

/// `int slurm_job_will_run2(job_desc_msg_t *, will_run_response_msg_t **)`:
/// the same answer as a record (free it with
/// `slurm_free_will_run_response_msg`).
///
/// # Safety
/// `req` points to a valid descriptor; `will_run_resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_will_run2(
    req: *mut sys::job_desc_msg_t,
    will_run_resp: *mut *mut sys::will_run_response_msg_t,
) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let o = match unsafe { will_run(req) } {
            Ok(o) => o,
            Err(rc) => return rc,
        };
        if !will_run_resp.is_null() {
            let r = xmalloc::xnew::<sys::will_run_response_msg_t>();
            // SAFETY: r is NULL or a new zeroed record; will_run_resp is
            // writable (the caller's contract).
            unsafe {
                if let Some(m) = r.as_mut() {
                    m.job_id = o.job_id;
                    m.node_list = xstrdup(&o.nodes);
                    m.part_name = xstrdup(&o.partition);
                    m.proc_cnt = o.cpus;
                    m.start_time = o.start_time as sys::time_t;
                }
                *will_run_resp = r;
            }
        }
        0
    })
}

/// `void slurm_free_will_run_response_msg(will_run_response_msg_t *)`
/// (exported by libslurm; slurm.h names it for `slurm_job_will_run2`).
///
/// # Safety
/// `msg` is NULL or a record `slurm_job_will_run2` handed out.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_will_run_response_msg(msg: *mut sys::will_run_response_msg_t) {
    guard((), || {
        // SAFETY: NULL or ours: the strings and the record xmalloc'ed, the
        // preemptee list never set.
        unsafe {
            if let Some(m) = msg.as_mut() {
                xfree(&mut m.job_submit_user_msg);
                xfree(&mut m.node_list);
                xfree(&mut m.part_name);
            }
            let mut m = msg;
            xfree(&mut m);
        }
    })
}

// ------------------------------------------------------------ allocations

/// The job as the controller has it now (None: unknown).
pub(crate) fn load_job(id: u32) -> Result<Option<Job>, i32> {
    let q = spur_core::request::Query {
        jobs: true,
        job_ids: vec![id.to_string()],
        all_finished: true,
        ..Default::default()
    };
    crate::conn::call(|c| c.query(&q)).map(|v| v.jobs.into_iter().find(|j| j.job_id == id))
}

/// `(cpus, repetitions)` groups of the per-node CPU counts, as Slurm's
/// `cpus_per_node`/`cpu_count_reps` arrays.
fn cpu_groups(cpus: &[u32]) -> Vec<(u16, u32)> {
    let mut out: Vec<(u16, u32)> = Vec::new();
    for c in cpus {
        let c = (*c).min(u16::MAX as u32) as u16;
        match out.last_mut() {
            Some((v, n)) if *v == c => *n += 1,
            _ => out.push((c, 1)),
        }
    }
    out
}

/// A new allocation record for `job`, xmalloc'ed (NULL when memory runs
/// out). A job not yet running gets its id and nothing else, as Slurm's
/// answer to a queued allocation.
pub(crate) fn alloc_response(job_id: u32, job: Option<&Job>) -> *mut sys::resource_allocation_response_msg_t {
    let r = xmalloc::xnew::<sys::resource_allocation_response_msg_t>();
    // SAFETY: r is NULL or a new zeroed record, ours alone.
    let Some(m) = (unsafe { r.as_mut() }) else { return r };
    m.job_id = job_id;
    m.cpu_freq_min = NO_VAL;
    m.cpu_freq_max = NO_VAL;
    m.cpu_freq_gov = NO_VAL;
    m.ntasks_per_board = NO_VAL16;
    m.ntasks_per_core = NO_VAL16;
    m.ntasks_per_tres = NO_VAL16;
    m.ntasks_per_socket = NO_VAL16;
    m.pn_min_memory = NO_VAL64;
    let Some(j) = job else { return r };
    m.account = xstr_opt(j.desc.account.as_deref());
    m.qos = xstr_opt(j.desc.qos_shown(crate::slurmdb::accounting_on()));
    m.partition = xstr_opt(Some(j.partition.as_str()).filter(|p| !p.is_empty()));
    m.resv_name = xstr_opt(j.desc.reservation.as_deref());
    if matches!(j.state, JobState::Running | JobState::Suspended) && !j.allocs.is_empty() {
        let names = j.node_names();
        m.node_list = xstrdup(&spur_grammar::hostlist::compress(&names));
        m.batch_host = xstrdup(&names[0]);
        m.node_cnt = names.len() as u32;
        let groups = cpu_groups(&j.allocs.iter().map(|a| a.cpus).collect::<Vec<_>>());
        m.num_cpu_groups = groups.len() as u32;
        m.cpus_per_node = xmalloc::xarray(&groups.iter().map(|g| g.0).collect::<Vec<_>>());
        m.cpu_count_reps = xmalloc::xarray(&groups.iter().map(|g| g.1).collect::<Vec<_>>());
    }
    if j.mem_per_cpu > 0 {
        m.pn_min_memory = j.mem_per_cpu | MEM_PER_CPU;
    } else if j.mem_per_node > 0 {
        m.pn_min_memory = j.mem_per_node;
    }
    #[cfg(feature = "slurm-24-11")]
    {
        m.uid = j.user_id;
        m.gid = j.group_id;
        m.user_name = xstr_opt(Some(j.user_name.as_str()).filter(|s| !s.is_empty()));
        m.group_name = xstr_opt(Some(j.group_name.as_str()).filter(|s| !s.is_empty()));
        m.tres_per_node = j.desc.gres.as_deref().map(|g| xstrdup(&format!("gres/{}", g))).unwrap_or(null_mut());
    }
    r
}

/// Submit an allocation (a job without a script) for `d`: its id.
///
/// # Safety
/// As [`job_desc`].
unsafe fn submit_allocation(d: *const sys::job_desc_msg_t) -> Result<u32, c_int> {
    // SAFETY: NULL or a valid descriptor (the caller's contract).
    let Some(d) = (unsafe { d.as_ref() }) else {
        return Err(fail(libc::EINVAL));
    };
    // SAFETY: the descriptor's members are valid (the caller's contract).
    let mut desc = unsafe { job_desc(d, false, Caller::process()) }.map_err(fail)?;
    // an allocation runs no script of its own (salloc's, srun's)
    desc.script = String::new().into();
    if desc.name.is_empty() {
        desc.name = "interactive".into();
    }
    crate::conn::call(|c| c.submit(&desc, false)).map(|o| o.job_id).map_err(|_| sys::SLURM_ERROR)
}

/// Wait until job `id` leaves PENDING, or `limit` passes (None: forever).
fn wait_granted(id: u32, limit: Option<Duration>) -> Result<Option<Job>, i32> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        let j = load_job(id)?;
        match &j {
            Some(job) if job.state != JobState::Pending => return Ok(j),
            None if start.elapsed() > Duration::from_secs(30) => return Ok(None),
            _ => {}
        }
        if limit.is_some_and(|l| start.elapsed() >= l) {
            return Ok(j);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

/// Give up a pending allocation (the job fails, as slurmctld ends one it
/// could not grant in time).
fn give_up(id: u32) {
    let _ = crate::conn::call(|c| c.release_allocation(id, 1 << 8));
}

/// `int slurm_allocate_resources(job_desc_msg_t *,
/// resource_allocation_response_msg_t **)`: ask for an allocation without
/// waiting for it: `*resp` has the job id, and the nodes when it was
/// granted at once. With `immediate` set, an allocation not granted within
/// that many seconds is given up (`ESLURM_NODES_BUSY`).
///
/// # Safety
/// `job_desc_msg` points to a valid descriptor; `job_alloc_resp_msg` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocate_resources(
    job_desc_msg: *mut sys::job_desc_msg_t,
    job_alloc_resp_msg: *mut *mut sys::resource_allocation_response_msg_t,
) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let id = match unsafe { submit_allocation(job_desc_msg) } {
            Ok(id) => id,
            Err(rc) => return rc,
        };
        // SAFETY: valid (submit_allocation read it).
        let immediate = unsafe { (*job_desc_msg).immediate };
        // the scheduler pass the submission woke usually starts it at once
        let limit = if immediate != 0 { Duration::from_secs(immediate as u64) } else { Duration::from_millis(100) };
        let job = wait_granted(id, Some(limit)).unwrap_or_default();
        let granted = job.as_ref().filter(|j| j.state != JobState::Pending);
        if immediate != 0 && granted.is_none() {
            give_up(id);
            return fail(e::ESLURM_NODES_BUSY);
        }
        if !job_alloc_resp_msg.is_null() {
            // SAFETY: writable (the caller's contract).
            unsafe { *job_alloc_resp_msg = alloc_response(id, granted) };
        }
        0
    })
}

/// `resource_allocation_response_msg_t *slurm_allocate_resources_blocking(
/// const job_desc_msg_t *, time_t timeout, void (*pending_callback)(uint32_t))`:
/// ask for an allocation and wait until it is granted: `pending_callback`
/// (when not NULL) is called once with the job id if it has to wait;
/// after `timeout` seconds (0: no limit) the allocation is given up and
/// the answer is NULL with errno ETIMEDOUT.
///
/// # Safety
/// `user_req` points to a valid descriptor; `pending_callback` is NULL or a
/// function that may be called with a job id.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocate_resources_blocking(
    user_req: *const sys::job_desc_msg_t,
    timeout: sys::time_t,
    pending_callback: Option<unsafe extern "C" fn(job_id: u32)>,
) -> *mut sys::resource_allocation_response_msg_t {
    guard(null_mut(), || {
        // SAFETY: the caller's contract.
        let id = match unsafe { submit_allocation(user_req) } {
            Ok(id) => id,
            Err(_) => return null_mut(),
        };
        let start = Instant::now();
        let first = match wait_granted(id, Some(Duration::from_millis(100))) {
            Ok(j) => j,
            Err(_) => return null_mut(),
        };
        let job = match first {
            Some(j) if j.state == JobState::Pending => {
                if let Some(cb) = pending_callback {
                    // SAFETY: a callback of the caller's, for a job id.
                    unsafe { cb(id) };
                }
                let limit = (timeout > 0).then(|| Duration::from_secs(timeout as u64).saturating_sub(start.elapsed()));
                match wait_granted(id, limit) {
                    Ok(j) => j,
                    Err(_) => return null_mut(),
                }
            }
            other => other,
        };
        match job {
            Some(j) if matches!(j.state, JobState::Running | JobState::Suspended) => alloc_response(id, Some(&j)),
            Some(j) if j.state == JobState::Pending => {
                give_up(id);
                crate::errno::set(libc::ETIMEDOUT);
                null_mut()
            }
            _ => {
                crate::errno::set(e::ESLURM_ALREADY_DONE);
                null_mut()
            }
        }
    })
}

/// `int slurm_allocation_lookup(uint32_t job_id,
/// resource_allocation_response_msg_t **)`: a running job's allocation.
/// As slurmctld: an unknown job is `ESLURM_INVALID_JOB_ID`, a pending one
/// `ESLURM_JOB_PENDING`, an ended one `ESLURM_ALREADY_DONE`; another
/// user's `ESLURM_ACCESS_DENIED` (unless the caller is root).
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocation_lookup(
    job_id: u32,
    resp: *mut *mut sys::resource_allocation_response_msg_t,
) -> c_int {
    guard(sys::SLURM_ERROR, || {
        let job = match load_job(job_id) {
            Ok(Some(j)) => j,
            Ok(None) => return fail(e::ESLURM_INVALID_JOB_ID),
            Err(_) => return sys::SLURM_ERROR,
        };
        let me = Caller::process();
        if me.uid != 0 && job.user_id != me.uid {
            return fail(e::ESLURM_ACCESS_DENIED);
        }
        if job.state == JobState::Pending {
            return fail(e::ESLURM_JOB_PENDING);
        }
        if !matches!(job.state, JobState::Running | JobState::Suspended) {
            return fail(e::ESLURM_ALREADY_DONE);
        }
        if !resp.is_null() {
            // SAFETY: writable (the caller's contract).
            unsafe { *resp = alloc_response(job_id, Some(&job)) };
        }
        0
    })
}

/// `void slurm_free_resource_allocation_response_msg(
/// resource_allocation_response_msg_t *)`: every member, then the record.
///
/// # Safety
/// `msg` is NULL or a record this library handed out (or built with xmalloc
/// in the same way).
#[no_mangle]
pub unsafe extern "C" fn slurm_free_resource_allocation_response_msg(
    msg: *mut sys::resource_allocation_response_msg_t,
) {
    guard((), || {
        // SAFETY: NULL or a record whose pointer members are each NULL or
        // xmalloc'ed (environment NULL-terminated), freed once each.
        unsafe {
            if let Some(m) = msg.as_mut() {
                xfree(&mut m.account);
                xfree(&mut m.alias_list);
                xfree(&mut m.batch_host);
                xfree(&mut m.cpus_per_node);
                xfree(&mut m.cpu_count_reps);
                xfree_strings(&mut m.environment, None);
                xfree(&mut m.job_submit_user_msg);
                xfree(&mut m.node_addr);
                xfree(&mut m.node_list);
                xfree(&mut m.partition);
                xfree(&mut m.qos);
                xfree(&mut m.resv_name);
                #[cfg(feature = "slurm-24-11")]
                {
                    xfree(&mut m.group_name);
                    xfree(&mut m.tres_per_node);
                    xfree(&mut m.user_name);
                }
                // (working_cluster_rec: never set by Spur)
            }
            let mut m = msg.cast::<c_void>();
            xfree(&mut m);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    fn fresh() -> sys::job_desc_msg_t {
        // SAFETY: all-zero is a valid job_desc_msg_t; init then sets it.
        let mut d: sys::job_desc_msg_t = unsafe { std::mem::zeroed() };
        // SAFETY: d is a writable descriptor.
        unsafe { slurm_init_job_desc_msg(&mut d) };
        d
    }

    #[test]
    fn init_gives_slurms_unset_values() {
        let d = fresh();
        assert_eq!(d.alloc_sid, NO_VAL);
        assert_eq!(d.contiguous, NO_VAL16);
        assert_eq!(d.cpus_per_task, NO_VAL16);
        assert_eq!(d.job_id, NO_VAL);
        assert_eq!(d.min_nodes, NO_VAL);
        assert_eq!(d.max_nodes, NO_VAL);
        assert_eq!(d.nice, NO_VAL);
        assert_eq!(d.num_tasks, NO_VAL);
        assert_eq!(d.overcommit, NO_VAL8);
        assert_eq!(d.pn_min_memory, NO_VAL64);
        assert_eq!(d.priority, NO_VAL);
        assert_eq!(d.time_limit, NO_VAL);
        assert_eq!(d.wait4switch, NO_VAL);
        assert_eq!(d.mail_type, NO_VAL16);
        assert_eq!(d.ntasks_per_tres, NO_VAL16);
        if sys::RELEASE == "24.11" {
            assert_eq!((d.user_id, d.group_id), (99, 99));
        } else {
            assert_eq!((d.user_id, d.group_id), (NO_VAL, NO_VAL));
        }
        // the rest zero
        assert!(d.name.is_null() && d.script.is_null() && d.environment.is_null());
        assert_eq!((d.begin_time, d.shared == NO_VAL16, d.requeue), (0, true, NO_VAL16));
        assert_eq!((d.open_mode, d.immediate, d.argc), (0, 0, 0));
    }

    fn c(s: &str) -> *mut c_char {
        xstrdup(s)
    }

    #[test]
    fn descriptor_to_jobdesc() {
        let me = Caller::process();
        let mut d = fresh();
        let env = [c("PATH=/bin"), c("A=b=c")];
        let argv = [c("/w/job.sh"), c("x")];
        d.script = c("#!/bin/sh\ntrue\n");
        d.environment = env.as_ptr() as *mut _;
        d.env_size = 2;
        d.argv = argv.as_ptr() as *mut _;
        d.argc = 2;
        d.name = c("j1");
        d.partition = c("debug");
        d.time_limit = 30;
        d.min_nodes = 2;
        d.num_tasks = 4;
        d.cpus_per_task = 2;
        d.pn_min_memory = 100 | MEM_PER_CPU;
        d.std_out = c("/tmp/o");
        d.work_dir = c("/w");
        d.dependency = c("afterok:1");
        d.array_inx = c("1-3%1");
        d.begin_time = 1_700_000_000;
        d.features = c("a&b");
        d.tres_per_node = c("gres/gpu:2");
        d.shared = 0;
        d.requeue = 0;
        d.mail_type = 1 | 2;
        d.nice = NICE_OFFSET + 5;
        d.priority = 0;
        d.user_id = me.uid;
        d.group_id = me.gid;
        // SAFETY: every member set above is a valid string/array, the rest unset.
        let j = unsafe { job_desc(&d, true, me) }.unwrap();
        assert_eq!(j.script.as_str(), "#!/bin/sh\ntrue\n");
        assert_eq!(
            j.env.to_vec(),
            vec![("PATH".to_string(), "/bin".to_string()), ("A".to_string(), "b=c".to_string())]
        );
        assert_eq!(j.argv, vec!["/w/job.sh", "x"]);
        assert_eq!(j.command.as_deref(), Some("/w/job.sh"));
        assert_eq!(j.name, "j1");
        assert_eq!(j.partition.as_deref(), Some("debug"));
        assert_eq!(j.time_limit, Some(30));
        assert_eq!((j.min_nodes, j.max_nodes), (Some(2), None));
        assert_eq!((j.num_tasks, j.cpus_per_task), (Some(4), Some(2)));
        assert_eq!((j.mem_per_cpu, j.mem_per_node), (Some(100), None));
        assert_eq!(j.std_out.as_deref(), Some("/tmp/o"));
        assert_eq!(j.work_dir, "/w");
        assert_eq!(j.dependency.as_deref(), Some("afterok:1"));
        assert_eq!(j.array.as_deref(), Some("1-3%1"));
        assert_eq!(j.begin_time, 1_700_000_000);
        assert_eq!(j.constraint.as_deref(), Some("a&b"));
        assert_eq!(j.gres.as_deref(), Some("gpu:2"));
        assert!(j.exclusive && j.hold);
        assert_eq!(j.requeue, Some(false));
        assert_eq!(j.mail_type.as_deref(), Some("BEGIN,END"));
        assert_eq!(j.nice, Some(5));
        assert_eq!(j.priority, None);
        assert_eq!(j.run_as_user, None);
        assert!(j.accepted.is_none());
        // unset fields stay unasked
        assert_eq!((j.ntasks_per_node, j.tmp_mb, j.time_min, j.open_mode_append), (None, None, None, None));

        // memory per node, a negative nice, a priority
        d.pn_min_memory = 2048;
        d.nice = NICE_OFFSET - 10;
        d.priority = 7;
        // SAFETY: as above.
        let j = unsafe { job_desc(&d, true, me) }.unwrap();
        assert_eq!(
            (j.mem_per_cpu, j.mem_per_node, j.nice, j.priority, j.hold),
            (None, Some(2048), Some(-10), Some(7), false)
        );

        // a batch job needs a script and an environment
        let mut no_env = fresh();
        no_env.script = d.script;
        // SAFETY: as above.
        assert_eq!(unsafe { job_desc(&no_env, true, me) }.unwrap_err(), e::ESLURM_ENVIRONMENT_MISSING);
        let no_script = fresh();
        // SAFETY: an unset descriptor.
        assert_eq!(unsafe { job_desc(&no_script, true, me) }.unwrap_err(), e::ESLURM_JOB_SCRIPT_MISSING);
        // another user's uid: root only
        d.user_id = 4242;
        let user = Caller { uid: 1000, gid: 1000 };
        d.group_id = UNSET_ID;
        // SAFETY: as above.
        assert_eq!(unsafe { job_desc(&d, true, user) }.unwrap_err(), e::ESLURM_USER_ID_MISSING);
        // SAFETY: as above.
        let j = unsafe { job_desc(&d, true, Caller { uid: 0, gid: 0 }) }.unwrap();
        assert_eq!(j.run_as_user.as_deref(), Some("4242"));

        let _ = CString::new("x");
        // SAFETY: every pointer is xmalloc'ed and freed once.
        unsafe {
            for mut p in env.into_iter().chain(argv) {
                xfree(&mut p);
            }
            for p in [
                &mut d.script,
                &mut d.name,
                &mut d.partition,
                &mut d.std_out,
                &mut d.work_dir,
                &mut d.dependency,
                &mut d.array_inx,
                &mut d.features,
                &mut d.tres_per_node,
            ] {
                xfree(p);
            }
        }
    }

    #[test]
    fn free_releases_an_xmalloced_descriptor() {
        let d = xmalloc::xnew::<sys::job_desc_msg_t>();
        // SAFETY: d is a new zeroed descriptor; every member set is
        // xmalloc'ed, as the free function expects.
        unsafe {
            slurm_init_job_desc_msg(d);
            let m = &mut *d;
            m.name = c("n");
            m.script = c("#!/bin/sh\n");
            m.environment = xmalloc::xarray(&[c("A=1"), null_mut()]);
            m.env_size = 1;
            m.argv = xmalloc::xarray(&[c("a0"), c("a1")]);
            m.argc = 2;
            m.spank_job_env = xmalloc::xarray(&[c("S=1")]);
            m.spank_job_env_size = 1;
            slurm_free_job_desc_msg(d);
            slurm_free_job_desc_msg(null_mut());
        }
    }

    #[test]
    fn small_translations() {
        assert_eq!(mail_type_names(0), "NONE");
        assert_eq!(mail_type_names(1 | 4 | 16), "BEGIN,FAIL,TIME_LIMIT");
        assert_eq!(strip_gres("gres/gpu:2,gres/nic:1"), "gpu:2,nic:1");
        assert_eq!(gpu_value("gres/gpu:a100:2"), Some("a100:2".into()));
        assert_eq!(cpu_groups(&[4, 4, 2, 4]), vec![(4, 2), (2, 1), (4, 1)]);
        let r = alloc_response(7, None);
        // SAFETY: r is a new record of ours, released once.
        unsafe {
            assert_eq!((*r).job_id, 7);
            assert!((*r).node_list.is_null());
            slurm_free_resource_allocation_response_msg(r);
        }
    }
}
