//! Queries of features a Spur cluster does not configure, answered as
//! slurmctld answers them when the feature is not configured (measured with
//! Debian 12's libslurm.so.38 against slurmctld 22.05 without the
//! feature's plugin): an empty message and 0, not an error.
//! - `slurm_load_topo`: no `TopologyPlugin` (or a flat one): no switches;
//! - `slurm_load_front_end`: Debian's Slurm is built without front ends,
//!   and Spur has none: always empty;
//! - `slurm_load_burst_buffer_info` and `_stat`: no `BurstBufferType`:
//!   no records, and no status text (NULL);
//! - `slurm_get_triggers`: no trigger is ever set on Spur
//!   (`slurm_set_trigger` fails with ESLURM_NOT_SUPPORTED), so none is
//!   listed;
//! - `slurm_load_federation`: a cluster that is not in a federation gets
//!   NULL and 0.
//!
//! Where slurm.conf does configure a topology or burst buffer plugin, which
//! Spur does not implement, the query fails with ESLURM_NOT_SUPPORTED
//! rather than claim there is nothing. Each message here is freed by its
//! `slurm_free_*` function below.
//!
//! Printing those messages is Slurm's too (measured the same way): an empty
//! topology or burst buffer message prints nothing and logs
//! `PROG: error: No topology information available` (`No burst buffer
//! information available`) on stderr (24.11 prints topology through its
//! plugin: nothing, and no line); the front end message prints its header,
//! `front_end data as of TIME, record count 0`; `slurm_print_federation` of
//! NULL prints nothing.

use crate::sys;
use crate::xmalloc::{xfree, xnew};
use std::ffi::{c_char, c_int, c_void};

/// The program's name, as Slurm's log lines start with it.
fn prog() -> String {
    std::env::args().next().unwrap_or_default().rsplit('/').next().unwrap_or("").to_string()
}

/// Write `text` to the C stream `out` (NULL: nothing).
///
/// # Safety
/// `out` is NULL or an open stream.
unsafe fn write_to(out: *mut sys::FILE, text: &str) {
    if !out.is_null() {
        // SAFETY: an open stream (the contract); text valid for its length.
        unsafe { libc::fwrite(text.as_ptr().cast(), 1, text.len(), out.cast::<libc::FILE>()) };
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Whether slurm.conf names a plugin of `key` other than the ones that mean
/// "none" (`none`: any name ending in one of them).
fn configured(key: &str, none: &[&str]) -> Result<bool, c_int> {
    let conf = crate::conn::conf()?;
    Ok(names_a_plugin(conf.get(key), none))
}

fn names_a_plugin(value: Option<&str>, none: &[&str]) -> bool {
    value.map(str::trim).is_some_and(|v| !v.is_empty() && !none.iter().any(|n| v.ends_with(n)))
}

/// `*out` = a new zeroed message filled by `fill`; 0 (EINVAL and -1 for
/// NULL `out`; ESLURM_NOT_SUPPORTED and -1 when the feature is configured).
fn empty<T>(out: *mut *mut T, feature: Result<bool, c_int>, fill: impl FnOnce(&mut T)) -> c_int {
    if out.is_null() {
        crate::errno::set(libc::EINVAL);
        return sys::SLURM_ERROR;
    }
    match feature {
        Ok(false) => {}
        Ok(true) => {
            crate::errno::set(sys::ESLURM_NOT_SUPPORTED as i32);
            return sys::SLURM_ERROR;
        }
        Err(_) => return sys::SLURM_ERROR,
    }
    let m = xnew::<T>();
    // SAFETY: m is a new zeroed block of T (all-zero is a valid message:
    // counts 0, pointers NULL); out is writable (checked above).
    unsafe {
        fill(&mut *m);
        *out = m;
    }
    0
}

/// Free a message of this module whose record array is `array` (it holds
/// no records: nothing in them to free).
///
/// # Safety
/// `msg` is NULL or a message of this module; `array` its array field.
unsafe fn free_empty<T, A>(msg: *mut T, array: impl FnOnce(&mut T) -> &mut *mut A) {
    // SAFETY: the caller's contract: xmalloc'ed blocks or NULL.
    unsafe {
        let Some(m) = msg.as_mut() else { return };
        xfree(array(m));
        let mut p = msg;
        xfree(&mut p);
    }
}

/// `int slurm_load_topo(topo_info_response_msg_t **msg)`: see the module doc.
///
/// # Safety
/// `msg` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_topo(msg: *mut *mut sys::topo_info_response_msg_t) -> c_int {
    crate::guard(sys::SLURM_ERROR, || empty(msg, configured("TopologyPlugin", &["/none", "/default", "/flat"]), |_| {}))
}

/// `void slurm_free_topo_info_msg(topo_info_response_msg_t *msg)`.
///
/// # Safety
/// `msg` is NULL or from `slurm_load_topo`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_topo_info_msg(msg: *mut sys::topo_info_response_msg_t) {
    // SAFETY: the caller's contract.
    crate::guard((), || unsafe { free_empty(msg, |m| &mut m.topo_array) })
}

/// `int slurm_load_front_end(time_t, front_end_info_msg_t **msg)`: always
/// empty (see the module doc).
///
/// # Safety
/// `msg` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_front_end(
    update_time: sys::time_t,
    msg: *mut *mut sys::front_end_info_msg_t,
) -> c_int {
    let _ = update_time;
    crate::guard(sys::SLURM_ERROR, || empty(msg, Ok(false), |m| m.last_update = now() as sys::time_t))
}

/// `void slurm_free_front_end_info_msg(front_end_info_msg_t *msg)`.
///
/// # Safety
/// `msg` is NULL or from `slurm_load_front_end`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_front_end_info_msg(msg: *mut sys::front_end_info_msg_t) {
    // SAFETY: the caller's contract.
    crate::guard((), || unsafe { free_empty(msg, |m| &mut m.front_end_array) })
}

/// `int slurm_load_burst_buffer_info(burst_buffer_info_msg_t **msg)`.
///
/// # Safety
/// `msg` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_burst_buffer_info(msg: *mut *mut sys::burst_buffer_info_msg_t) -> c_int {
    crate::guard(sys::SLURM_ERROR, || empty(msg, configured("BurstBufferType", &["/none"]), |_| {}))
}

/// `void slurm_free_burst_buffer_info_msg(burst_buffer_info_msg_t *msg)`.
///
/// # Safety
/// `msg` is NULL or from `slurm_load_burst_buffer_info`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_burst_buffer_info_msg(msg: *mut sys::burst_buffer_info_msg_t) {
    // SAFETY: the caller's contract.
    crate::guard((), || unsafe { free_empty(msg, |m| &mut m.burst_buffer_array) })
}

/// `int slurm_load_burst_buffer_stat(int argc, char **argv, char
/// **status_resp)`: no burst buffer plugin, no status: `*status_resp`
/// stays NULL, 0.
///
/// # Safety
/// `status_resp` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_burst_buffer_stat(
    argc: c_int,
    argv: *mut *mut c_char,
    status_resp: *mut *mut c_char,
) -> c_int {
    let _ = (argc, argv);
    crate::guard(sys::SLURM_ERROR, || {
        if status_resp.is_null() {
            crate::errno::set(libc::EINVAL);
            return sys::SLURM_ERROR;
        }
        match configured("BurstBufferType", &["/none"]) {
            Ok(false) => 0,
            Ok(true) => {
                crate::errno::set(sys::ESLURM_NOT_SUPPORTED as i32);
                sys::SLURM_ERROR
            }
            Err(_) => sys::SLURM_ERROR,
        }
    })
}

/// `int slurm_get_triggers(trigger_info_msg_t **msg)`: none (see the module doc).
///
/// # Safety
/// `msg` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_triggers(msg: *mut *mut sys::trigger_info_msg_t) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        // (reaching the controller, as the real call does)
        let reached = crate::conn::conf().map(|_| false);
        empty(msg, reached, |_| {})
    })
}

/// `void slurm_free_trigger_msg(trigger_info_msg_t *msg)`.
///
/// # Safety
/// `msg` is NULL or from `slurm_get_triggers`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_trigger_msg(msg: *mut sys::trigger_info_msg_t) {
    // SAFETY: the caller's contract.
    crate::guard((), || unsafe { free_empty(msg, |m| &mut m.trigger_array) })
}

/// `int slurm_load_federation(void **fed)`: not in a federation: `*fed`
/// NULL, 0.
///
/// # Safety
/// `fed` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_federation(fed: *mut *mut c_void) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        if fed.is_null() {
            crate::errno::set(libc::EINVAL);
            return sys::SLURM_ERROR;
        }
        if crate::conn::conf().is_err() {
            return sys::SLURM_ERROR;
        }
        // SAFETY: fed is valid for a write (the contract).
        unsafe { *fed = std::ptr::null_mut() };
        0
    })
}

/// `void slurm_print_topo_info_msg(FILE *out, topo_info_response_msg_t
/// *msg, [char *node_list,] int one_liner)`: see the module doc (Spur's
/// messages hold no switches).
///
/// # Safety
/// `msg` is NULL or a message of `slurm_load_topo`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_topo_info_msg(
    out: *mut sys::FILE,
    msg: *mut sys::topo_info_response_msg_t,
    #[cfg(feature = "slurm-24-11")] node_list: *mut c_char,
    one_liner: c_int,
) {
    let _ = (out, one_liner);
    #[cfg(feature = "slurm-24-11")]
    let _ = node_list;
    crate::guard((), || {
        // SAFETY: NULL or a message (the contract).
        let empty = unsafe { msg.as_ref() }.is_none_or(|m| m.record_count == 0);
        if empty && cfg!(feature = "slurm-22-05") {
            eprintln!("{}: error: No topology information available", prog());
        }
    })
}

/// `void slurm_print_burst_buffer_info_msg(FILE *out,
/// burst_buffer_info_msg_t *msg, int one_liner, int verbosity)`: see the
/// module doc (Spur's messages hold no burst buffers).
///
/// # Safety
/// `msg` is NULL or a message of `slurm_load_burst_buffer_info`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_burst_buffer_info_msg(
    out: *mut sys::FILE,
    msg: *mut sys::burst_buffer_info_msg_t,
    one_liner: c_int,
    verbosity: c_int,
) {
    let _ = (out, one_liner, verbosity);
    crate::guard((), || {
        // SAFETY: NULL or a message (the contract).
        if unsafe { msg.as_ref() }.is_none_or(|m| m.record_count == 0) {
            eprintln!("{}: error: No burst buffer information available", prog());
        }
    })
}

/// `void slurm_print_front_end_info_msg(FILE *out, front_end_info_msg_t
/// *msg, int one_liner)`: its header (Spur's messages hold no front ends).
///
/// # Safety
/// `out` is NULL or an open stream; `msg` NULL or a message of
/// `slurm_load_front_end`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_front_end_info_msg(
    out: *mut sys::FILE,
    msg: *mut sys::front_end_info_msg_t,
    one_liner: c_int,
) {
    let _ = one_liner;
    crate::guard((), || {
        // SAFETY: NULL or a message (the contract).
        let Some(m) = (unsafe { msg.as_ref() }) else { return };
        let line = format!(
            "front_end data as of {}, record count {}\n",
            spur_cli_base::format::time_str(m.last_update),
            m.record_count
        );
        // SAFETY: out is NULL or open (the contract).
        unsafe { write_to(out, &line) };
    })
}

/// `void slurm_print_federation(void *fed)`: Spur is never in a
/// federation, so what it hands out is NULL, which prints nothing.
///
/// # Safety
/// Any pointer: it is not read.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_federation(fed: *mut c_void) {
    let _ = fed;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plugin_that_means_none_is_not_a_feature() {
        let none = ["/none", "/default", "/flat"];
        assert!(!names_a_plugin(None, &none));
        assert!(!names_a_plugin(Some(""), &none));
        assert!(!names_a_plugin(Some("topology/none"), &none));
        assert!(!names_a_plugin(Some("topology/flat"), &none));
        assert!(names_a_plugin(Some("topology/tree"), &none));
        assert!(names_a_plugin(Some("burst_buffer/lua"), &["/none"]));
    }

    #[test]
    fn a_null_destination_is_einval() {
        assert_eq!(empty::<sys::trigger_info_msg_t>(std::ptr::null_mut(), Ok(false), |_| {}), -1);
        assert_eq!(crate::errno::get(), libc::EINVAL);
        let mut m: *mut sys::trigger_info_msg_t = std::ptr::null_mut();
        assert_eq!(empty(&mut m, Ok(true), |_| {}), -1);
        assert_eq!(crate::errno::get(), sys::ESLURM_NOT_SUPPORTED as i32);
        assert!(m.is_null());
        assert_eq!(empty(&mut m, Ok(false), |_| {}), 0);
        // SAFETY: m was just made; freed once.
        unsafe {
            assert_eq!((*m).record_count, 0);
            slurm_free_trigger_msg(m);
        }
    }
}
