//! `slurm_conf_t`: the exported `slurm_conf` that `slurm_init` fills, and
//! `slurm_load_ctl_conf`'s copies of it (freed by `slurm_free_ctl_conf`),
//! with the values `scontrol show config` reports: slurm.conf's, else
//! Slurm's defaults. Also `slurm_ping` and the (empty) licence list.

use crate::sys;
use crate::xmalloc::{xarray, xfree, xnew, xstr_nonempty, xstr_opt, xstrdup};
use spur_core::config::SlurmConf;
use std::ffi::{c_char, c_int};
use std::sync::Mutex;

/// A text field of `slurm_conf_t`.
type TextField = fn(&mut sys::slurm_conf_t) -> &mut *mut c_char;

/// The text fields filled from slurm.conf: the field, the key and the value
/// slurmctld keeps when the key is absent (None: NULL). `clear` frees
/// exactly these (and the ones `fill` sets by hand).
const TEXTS: &[(TextField, &str, Option<&str>)] = &[
    (|c| &mut c.accounting_storage_backup_host, "AccountingStorageBackupHost", None),
    (|c| &mut c.accounting_storage_host, "AccountingStorageHost", Some("localhost")),
    (|c| &mut c.accounting_storage_ext_host, "AccountingStorageExternalHost", None),
    (|c| &mut c.accounting_storage_params, "AccountingStorageParameters", None),
    (|c| &mut c.accounting_storage_type, "AccountingStorageType", None),
    (|c| &mut c.accounting_storage_user, "AccountingStorageUser", Some("root")),
    (|c| &mut c.authinfo, "AuthInfo", None),
    (|c| &mut c.authtype, "AuthType", Some("auth/munge")),
    (|c| &mut c.comm_params, "CommunicationParameters", None),
    (|c| &mut c.cred_type, "CredType", Some("cred/munge")),
    (|c| &mut c.job_comp_type, "JobCompType", None),
    (|c| &mut c.mail_prog, "MailProg", Some("/bin/mail")),
    (|c| &mut c.mpi_default, "MpiDefault", Some("none")),
    (|c| &mut c.proctrack_type, "ProctrackType", Some("proctrack/cgroup")),
    (|c| &mut c.schedtype, "SchedulerType", Some("sched/backfill")),
    (|c| &mut c.select_type, "SelectType", Some("select/cons_tres")),
    (|c| &mut c.slurmd_user_name, "SlurmdUser", Some("root")),
    (|c| &mut c.task_plugin, "TaskPlugin", None),
    (|c| &mut c.tmp_fs, "TmpFS", Some("/tmp")),
];

/// The accounted TRES slurmctld always lists.
const STORAGE_TRES: &str = "cpu,mem,energy,node,billing,fs/disk,vmem,pages";
const MEM_PER_CPU: u64 = 1 << 63;

fn uid_of(name: &str) -> u32 {
    let Ok(c) = std::ffi::CString::new(name) else { return 0 };
    // SAFETY: getpwnam takes a NUL-terminated name; its result is read at
    // once (the process's other getpwnam callers are not ours to order).
    let pw = unsafe { libc::getpwnam(c.as_ptr()) };
    // SAFETY: not NULL: a passwd record.
    if pw.is_null() {
        0
    } else {
        unsafe { (*pw).pw_uid }
    }
}

/// The plugins 22.05's read_config.c names when slurm.conf names none
/// (`DEFAULT_ACCOUNTING_STORAGE_TYPE`, `DEFAULT_JOB_COMP_TYPE`); 24.11
/// leaves these NULL.
fn release_default(key: &str) -> Option<&'static str> {
    if sys::RELEASE != "22.05" {
        return None;
    }
    match key {
        "AccountingStorageType" => Some("accounting_storage/none"),
        "JobCompType" => Some("jobcomp/none"),
        _ => None,
    }
}

/// Serialises writers of the exported `slurm_conf`.
static GLOBAL: Mutex<()> = Mutex::new(());

/// Fill `out` (zeroed, or released with [`clear`]) from slurm.conf: every
/// pointer is its own xmalloc'ed block, as Slurm's `slurm_free_ctl_conf`
/// releases them.
pub fn fill(conf: &SlurmConf, out: &mut sys::slurm_conf_t) {
    out.cluster_name = xstr_nonempty(&conf.cluster_name);
    let names: Vec<*mut std::ffi::c_char> = conf.controllers.iter().map(|c| xstrdup(&c.name)).collect();
    let addrs: Vec<*mut std::ffi::c_char> = conf.controllers.iter().map(|c| xstrdup(&c.addr)).collect();
    out.control_cnt = names.len() as u32;
    out.control_machine = xarray(&names);
    out.control_addr = xarray(&addrs);
    out.slurmctld_port = conf.slurmctld_port as u32;
    out.slurmctld_port_count = conf.slurmctld_port_count;
    out.slurmd_port = conf.slurmd_port as u32;
    out.slurm_user_name = xstr_nonempty(&conf.slurm_user);
    out.state_save_location = xstr_nonempty(&conf.state_save_location);
    out.slurmd_spooldir = xstr_nonempty(&conf.slurmd_spool_dir);
    out.first_job_id = conf.first_job_id;
    out.max_job_id = conf.max_job_id;
    out.max_job_cnt = conf.max_job_count;
    out.kill_wait = conf.kill_wait;
    out.slurmd_timeout = conf.slurmd_timeout;
    out.version = xstrdup(spur_core::compat::release().version());
    out.slurm_conf = xstrdup(&conf.path.display().to_string());
    out.accounting_storage_tres = xstrdup(STORAGE_TRES);
    out.priority_type =
        xstrdup(conf.get("PriorityType").unwrap_or(spur_core::compat::release().default_priority_type()));
    for (field, key, default) in TEXTS {
        *field(out) = xstr_opt(conf.get(key).or(release_default(key)).or(*default));
    }
    let num = |k: &str, d: u64| conf.get(k).and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(d);
    out.accounting_storage_port = num("AccountingStoragePort", 0) as _;
    out.batch_start_timeout = num("BatchStartTimeout", 10) as _;
    out.complete_wait = num("CompleteWait", 0) as _;
    out.inactive_limit = num("InactiveLimit", 0) as _;
    out.job_requeue = num("JobRequeue", 1) as _;
    out.kill_on_bad_exit = num("KillOnBadExit", 0) as _;
    out.max_array_sz = conf.max_array_size();
    out.msg_timeout = num("MessageTimeout", 10) as _;
    out.min_job_age = num("MinJobAge", 300) as _;
    out.over_time_limit = num("OverTimeLimit", 0) as _;
    out.ret2service = num("ReturnToService", 1) as _;
    out.slurmctld_timeout = num("SlurmctldTimeout", 120) as _;
    out.tree_width = num("TreeWidth", 16) as _;
    out.wait_time = num("WaitTime", 0) as _;
    out.def_mem_per_cpu = match (conf.def_mem_per_cpu, conf.def_mem_per_node) {
        (Some(m), _) => m | MEM_PER_CPU,
        (None, Some(m)) => m,
        (None, None) => 0,
    };
    out.max_mem_per_cpu = match (conf.get("MaxMemPerCPU"), conf.get("MaxMemPerNode")) {
        (Some(m), _) => m.trim().parse::<u64>().map(|m| m | MEM_PER_CPU).unwrap_or(0),
        (None, Some(m)) => m.trim().parse::<u64>().unwrap_or(0),
        (None, None) => 0,
    };
    out.slurm_user_id = uid_of(&conf.slurm_user);
    out.slurmd_user_id = uid_of(conf.get("SlurmdUser").unwrap_or("root"));
}

/// Release what [`fill`] put in `out` and zero it.
pub fn clear(out: &mut sys::slurm_conf_t) {
    // SAFETY: every pointer below is NULL or an xmalloc'ed block of `fill`'s.
    unsafe {
        for i in 0..out.control_cnt as usize {
            if !out.control_machine.is_null() {
                xfree(&mut *out.control_machine.add(i));
            }
            if !out.control_addr.is_null() {
                xfree(&mut *out.control_addr.add(i));
            }
        }
        xfree(&mut out.control_machine);
        xfree(&mut out.control_addr);
        xfree(&mut out.cluster_name);
        xfree(&mut out.slurm_user_name);
        xfree(&mut out.state_save_location);
        xfree(&mut out.slurmd_spooldir);
        xfree(&mut out.version);
        xfree(&mut out.slurm_conf);
        xfree(&mut out.accounting_storage_tres);
        xfree(&mut out.priority_type);
        for (field, _, _) in TEXTS {
            xfree(field(out));
        }
        // SAFETY: the struct's fields are integers and pointers: all zero is valid
        *out = std::mem::zeroed();
    }
}

/// Fill the exported `slurm_conf` (what it held before is released).
pub fn fill_global(conf: &SlurmConf) {
    let _g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
    // SAFETY: the exported static is only written here and in clear_global,
    // under GLOBAL; callers read it as Slurm's callers read theirs.
    let g = unsafe { &mut *std::ptr::addr_of_mut!(crate::conn::slurm_conf) }.as_mut_ptr();
    // SAFETY: the static is zeroed at start and only ever holds fill's values.
    unsafe {
        clear(&mut *g);
        fill(conf, &mut *g);
    }
}

/// Empty the exported `slurm_conf` (`slurm_fini`).
pub fn clear_global() {
    let _g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
    // SAFETY: as in fill_global.
    unsafe { clear(&mut *(*std::ptr::addr_of_mut!(crate::conn::slurm_conf)).as_mut_ptr()) };
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// `int slurm_load_ctl_conf(time_t update_time, slurm_conf_t **resp)`: a
/// copy of the configuration (every text its own block), 0; or -1 with
/// errno. Free with `slurm_free_ctl_conf`.
///
/// # Safety
/// `resp` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_ctl_conf(update_time: sys::time_t, resp: *mut *mut sys::slurm_conf_t) -> c_int {
    let _ = update_time;
    crate::guard(-1, || {
        if resp.is_null() {
            crate::errno::set(libc::EINVAL);
            return -1;
        }
        let Ok(conf) = crate::conn::conf() else { return -1 };
        let c = xnew::<sys::slurm_conf_t>();
        if c.is_null() {
            crate::errno::set(libc::ENOMEM);
            return -1;
        }
        // SAFETY: c is a fresh zeroed block; resp is valid for a write.
        unsafe {
            fill(&conf, &mut *c);
            (*c).last_update = now() as _;
            *resp = c;
        }
        0
    })
}

/// `void slurm_free_ctl_conf(slurm_conf_t *conf)`: a copy of
/// `slurm_load_ctl_conf`'s and its texts (NULL: nothing).
///
/// # Safety
/// `conf` is NULL or from `slurm_load_ctl_conf`, not freed since.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_ctl_conf(slurm_ctl_conf_ptr: *mut sys::slurm_conf_t) {
    crate::guard((), || {
        if slurm_ctl_conf_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract: a block of slurm_load_ctl_conf's.
        unsafe {
            clear(&mut *slurm_ctl_conf_ptr);
            let mut p = slurm_ctl_conf_ptr;
            xfree(&mut p);
        }
    })
}

/// `int slurm_ping(int dest)`: 0 when the controller answers, else -1 with
/// errno. Spur's controllers answer for one another (Raft): any of them.
#[no_mangle]
pub extern "C" fn slurm_ping(dest: c_int) -> c_int {
    let _ = dest;
    crate::guard(-1, || match crate::conn::call(|c| c.ping()) {
        Ok(_) => 0,
        Err(_) => -1,
    })
}

/// `int slurm_load_licenses(time_t, license_info_msg_t **, uint16_t)`:
/// Spur has no licences: an empty message, 0. Free with
/// `slurm_free_license_info_msg`.
///
/// # Safety
/// `msg` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_licenses(
    update_time: sys::time_t,
    msg: *mut *mut sys::license_info_msg_t,
    show_flags: u16,
) -> c_int {
    let _ = (update_time, show_flags);
    crate::guard(-1, || {
        if msg.is_null() {
            crate::errno::set(libc::EINVAL);
            return -1;
        }
        let m = xnew::<sys::license_info_msg_t>();
        if m.is_null() {
            crate::errno::set(libc::ENOMEM);
            return -1;
        }
        // SAFETY: m is fresh and zeroed; msg valid for a write.
        unsafe {
            (*m).last_update = now() as _;
            *msg = m;
        }
        0
    })
}

/// `void slurm_free_license_info_msg(license_info_msg_t *msg)` (NULL: nothing).
///
/// # Safety
/// `msg` is NULL or from `slurm_load_licenses`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_license_info_msg(msg: *mut sys::license_info_msg_t) {
    crate::guard((), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: msg and its array (with each name) are xmalloc'ed blocks.
        unsafe {
            let m = &mut *msg;
            if !m.lic_array.is_null() {
                for i in 0..m.num_lic as usize {
                    xfree(&mut (*m.lic_array.add(i)).name);
                }
            }
            xfree(&mut m.lic_array);
            let mut p = msg;
            xfree(&mut p);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_and_clear() {
        let text = "ClusterName=c\nSlurmctldHost=h1(10.0.0.1)\nMessageTimeout=20\nDefMemPerCPU=100\nSelectType=select/linear\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n";
        let conf = spur_core::config::parse_str(text, std::path::Path::new("/x/slurm.conf")).unwrap();
        // SAFETY: integers and pointers: zero is valid.
        let mut c: sys::slurm_conf_t = unsafe { std::mem::zeroed() };
        fill(&conf, &mut c);
        // SAFETY: strings of fill's.
        let s = |p: *mut c_char| unsafe { crate::text(p) }.map(str::to_string);
        assert_eq!(s(c.cluster_name).as_deref(), Some("c"));
        assert_eq!(s(c.select_type).as_deref(), Some("select/linear"));
        assert_eq!(s(c.schedtype).as_deref(), Some("sched/backfill"));
        assert_eq!(s(c.slurm_conf).as_deref(), Some("/x/slurm.conf"));
        if sys::RELEASE == "22.05" {
            assert_eq!(s(c.accounting_storage_type).as_deref(), Some("accounting_storage/none"));
            assert_eq!(s(c.job_comp_type).as_deref(), Some("jobcomp/none"));
        } else {
            assert!(c.accounting_storage_type.is_null());
        }
        assert_eq!(s(c.accounting_storage_user).as_deref(), Some("root"));
        assert_eq!((c.msg_timeout, c.def_mem_per_cpu), (20, 100 | MEM_PER_CPU));
        assert_eq!(c.control_cnt, 1);
        clear(&mut c);
        assert!(c.select_type.is_null() && c.control_machine.is_null());
        // SAFETY: NULL is nothing to free.
        unsafe { slurm_free_ctl_conf(std::ptr::null_mut()) };
        let mut l: *mut sys::license_info_msg_t = std::ptr::null_mut();
        // SAFETY: l is a local pointer; the message is freed once.
        unsafe {
            assert_eq!(slurm_load_licenses(0, &mut l, 0), 0);
            assert_eq!(((*l).num_lic, (*l).lic_array.is_null()), (0, true));
            slurm_free_license_info_msg(l);
        }
    }
}
