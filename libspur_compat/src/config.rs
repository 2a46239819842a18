//! `slurm_conf_t`: the exported `slurm_conf` that `slurm_init` fills, and
//! (later) `slurm_load_ctl_conf`'s copies of it.

use crate::sys;
use crate::xmalloc::{xarray, xfree, xstr_nonempty, xstrdup};
use spur_core::config::SlurmConf;
use std::sync::Mutex;

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
