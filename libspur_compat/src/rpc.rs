//! Slurm's raw-message calls, which a few consumers reach past slurm.h:
//! pyslurm fetches a job's batch script with `slurm_msg_t_init` +
//! `slurm_send_recv_controller_msg` (`REQUEST_BATCH_SCRIPT`), declaring
//! Slurm's internal `slurm_msg_t` itself; and the free functions of internal
//! messages it releases (`slurm_free_return_code_msg`), with those of two
//! public messages of slurm.h that no public function frees
//! (`slurm_free_stats_response_msg`, `slurm_free_update_step_msg`).
//!
//! # What the controller call serves
//! Spur does not speak Slurm's wire protocol: `slurm_send_recv_controller_msg`
//! answers the one request consumers send through it, `REQUEST_BATCH_SCRIPT`
//! (2051), from the job's record as `slurm_job_batch_script` does, in the
//! shapes slurmctld answers it (`_slurm_rpc_dump_batch_script`):
//! `RESPONSE_BATCH_SCRIPT` (2052) with the script as xmalloc'ed text, or
//! `RESPONSE_SLURM_RC` (8001) with an xmalloc'ed `return_code_msg_t` holding
//! the controller's refusal (`ESLURM_INVALID_JOB_ID`,
//! `ESLURM_JOB_SCRIPT_MISSING`, `ESLURM_USER_ID_MISSING`); the call itself
//! then succeeds (0), as Slurm's does once the controller has answered. When
//! no controller answers, it fails (-1) with the communication error in
//! errno, as Slurm's. Any other message type fails (-1, errno
//! `ESLURM_NOT_SUPPORTED`) and leaves the response untouched.
//!
//! # Releases
//! `slurm_msg_t` is laid out as the release's (src/common/
//! slurm_protocol_defs.h): 22.05's 376 bytes (`data` at 184, `msg_type` at
//! 200), 24.11's 424 (an authenticated gid, a conmgr connection, node alias
//! addresses in `forward_t`: `data` at 200, `msg_type` at 212). pyslurm
//! 24.11 reaches them through libslurmfull's names (full.rs).

// (enumerators are cast to the fields' types)
#![allow(clippy::unnecessary_cast)]

use crate::sys;
use crate::xmalloc::xfree;
pub use msg::*;

/// Slurm's internal `return_code_msg_t` (4 bytes in both releases).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ReturnCodeMsg {
    pub return_code: u32,
}

/// `void slurm_free_return_code_msg(return_code_msg_t *msg)`: release a
/// `RESPONSE_SLURM_RC` answer (NULL: nothing).
///
/// # Safety
/// `msg` is NULL or an xmalloc'ed `return_code_msg_t` not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_return_code_msg(msg: *mut ReturnCodeMsg) {
    crate::guard((), || {
        let mut p = msg;
        // SAFETY: the caller's contract.
        unsafe { xfree(&mut p) };
    })
}

/// `void slurm_free_update_step_msg(step_update_request_msg_t *msg)`:
/// release the message (it holds no pointer; NULL: nothing).
///
/// # Safety
/// `msg` is NULL or an xmalloc'ed `step_update_request_msg_t` (as
/// `slurm_xcalloc` gives), not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_update_step_msg(msg: *mut sys::step_update_request_msg_t) {
    crate::guard((), || {
        let mut p = msg;
        // SAFETY: the caller's contract.
        unsafe { xfree(&mut p) };
    })
}

/// `void slurm_free_stats_response_msg(stats_info_response_msg_t *msg)`:
/// release an answer of `slurm_get_statistics` with its arrays, each an
/// xmalloc'ed block (the host lists of `rpc_dump_hostlist` one by one);
/// NULL: nothing.
///
/// # Safety
/// `msg` is NULL or an xmalloc'ed message whose pointers are NULL or
/// xmalloc'ed blocks (`rpc_dump_hostlist` with `rpc_dump_count` entries),
/// not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_stats_response_msg(msg: *mut sys::stats_info_response_msg_t) {
    crate::guard((), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: not NULL, a live message (the caller's contract).
        let m = unsafe { &mut *msg };
        // SAFETY: each pointer is NULL or an xmalloc'ed block (the contract),
        // released once and cleared.
        unsafe {
            #[cfg(not(feature = "slurm-22-05"))]
            {
                xfree(&mut m.bf_exit);
                xfree(&mut m.schedule_exit);
                xfree(&mut m.rpc_type_queued);
                xfree(&mut m.rpc_type_dropped);
                xfree(&mut m.rpc_type_cycle_last);
                xfree(&mut m.rpc_type_cycle_max);
            }
            xfree(&mut m.rpc_type_id);
            xfree(&mut m.rpc_type_cnt);
            xfree(&mut m.rpc_type_time);
            xfree(&mut m.rpc_user_id);
            xfree(&mut m.rpc_user_cnt);
            xfree(&mut m.rpc_user_time);
            xfree(&mut m.rpc_queue_type_id);
            xfree(&mut m.rpc_queue_count);
            xfree(&mut m.rpc_dump_types);
            if !m.rpc_dump_hostlist.is_null() {
                for i in 0..m.rpc_dump_count as usize {
                    xfree(&mut *m.rpc_dump_hostlist.add(i));
                }
            }
            xfree(&mut m.rpc_dump_hostlist);
        }
        let mut p = msg;
        // SAFETY: the message block itself, released once.
        unsafe { xfree(&mut p) };
    })
}

/// Slurm's message types the controller call knows
/// (src/common/slurm_protocol_defs.h).
pub const REQUEST_BATCH_SCRIPT: u16 = 2051;
pub const RESPONSE_BATCH_SCRIPT: u16 = 2052;
pub const RESPONSE_SLURM_RC: u16 = 8001;

/// How a request for a job's batch script ends: the script, the
/// controller's refusal (a Slurm error number, answered as
/// `RESPONSE_SLURM_RC`), or no answer at all (the call fails).
#[derive(Debug, PartialEq, Eq)]
pub enum ScriptAnswer {
    Script(String),
    Refused(i32),
    Failed(i32),
}

/// The answer slurmctld gives to `REQUEST_BATCH_SCRIPT` for `job_id`.
pub fn batch_script(job_id: u32) -> ScriptAnswer {
    match crate::jobs::one_job(job_id, true) {
        Ok(j) if j.desc.script.is_empty() => ScriptAnswer::Refused(sys::ESLURM_JOB_SCRIPT_MISSING as i32),
        Ok(j) => ScriptAnswer::Script(j.desc.script.to_string()),
        // Slurm's protocol and communication errors (1000-1999): nobody
        // answered; the controller's own refusals are ESLURM_* (2000 on)
        Err(code) if (1000..2000).contains(&code) => ScriptAnswer::Failed(code),
        Err(code) => ScriptAnswer::Refused(code),
    }
}

mod msg {
    use super::*;
    use std::ffi::{c_char, c_int, c_void};

    /// Slurm 22.05's internal `forward_t`.
    #[cfg(feature = "slurm-22-05")]
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct Forward {
        pub cnt: u16,
        pub init: u16,
        pub nodelist: *mut c_char,
        pub timeout: u32,
        pub tree_width: u16,
    }

    /// Slurm 24.11's internal `forward_t` (64 bytes).
    #[cfg(feature = "slurm-24-11")]
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct Forward {
        pub alias_addrs: sys::slurm_node_alias_addrs_t,
        pub cnt: u16,
        pub init: u16,
        pub nodelist: *mut c_char,
        pub timeout: u32,
        pub tree_width: u16,
        pub tree_depth: u16,
    }

    /// Slurm 22.05's internal `slurm_msg_t` (376 bytes).
    #[cfg(feature = "slurm-22-05")]
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct SlurmMsg {
        pub address: sys::slurm_addr_t,
        pub auth_cred: *mut c_void,
        pub auth_index: c_int,
        pub auth_uid: sys::uid_t,
        pub auth_uid_set: bool,
        pub restrict_uid: sys::uid_t,
        pub restrict_uid_set: bool,
        pub body_offset: u32,
        pub buffer: *mut c_void,
        pub conn: *mut c_void,
        pub conn_fd: c_int,
        pub data: *mut c_void,
        pub data_size: u32,
        pub flags: u16,
        pub hash_index: u8,
        pub msg_type: u16,
        pub protocol_version: u16,
        pub forward: Forward,
        pub forward_struct: *mut c_void,
        pub orig_addr: sys::slurm_addr_t,
        pub ret_list: sys::List,
    }

    /// Slurm 24.11's internal `slurm_msg_t` (424 bytes: an authenticated
    /// gid, a conmgr connection, no `data_size`).
    #[cfg(feature = "slurm-24-11")]
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct SlurmMsg {
        pub address: sys::slurm_addr_t,
        pub auth_cred: *mut c_void,
        pub auth_index: c_int,
        pub auth_uid: sys::uid_t,
        pub auth_gid: sys::gid_t,
        pub auth_ids_set: bool,
        pub restrict_uid: sys::uid_t,
        pub restrict_uid_set: bool,
        pub body_offset: u32,
        pub buffer: *mut c_void,
        pub conn: *mut c_void,
        pub conn_fd: c_int,
        pub conmgr_fd: *mut c_void,
        pub data: *mut c_void,
        pub flags: u16,
        pub hash_index: u8,
        pub msg_type: u16,
        pub protocol_version: u16,
        pub forward: Forward,
        pub forward_struct: *mut c_void,
        pub orig_addr: sys::slurm_addr_t,
        pub ret_list: *mut sys::list_t,
    }

    /// Slurm's internal `job_id_msg_t`, the body of `REQUEST_BATCH_SCRIPT`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct JobIdMsg {
        pub job_id: u32,
        pub show_flags: u16,
    }

    /// `SLURM_AUTH_NOBODY`: the uid (and in 24.11 gid) of a message not
    /// yet authenticated.
    const SLURM_AUTH_NOBODY: sys::uid_t = 99;
    /// `FORWARD_INIT`: marks an initialised `forward_t`.
    const FORWARD_INIT: u16 = 0xfffe;

    /// `void slurm_msg_t_init(slurm_msg_t *msg)`: a message with nothing in
    /// it, as Slurm's: zeroed, `auth_uid` (and 24.11's `auth_gid`) nobody,
    /// `conn_fd` -1, `msg_type` and `protocol_version` NO_VAL16, the forward
    /// part initialised.
    ///
    /// # Safety
    /// `msg` is NULL (nothing is done) or points to a writable `slurm_msg_t`.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_msg_t_init(msg: *mut SlurmMsg) {
        crate::guard((), || {
            if msg.is_null() {
                return;
            }
            // SAFETY: writable for size_of::<SlurmMsg>() bytes (the caller's
            // contract); all-zero bytes are a valid SlurmMsg (integers,
            // bools, pointers and sockaddr_storages).
            let m = unsafe {
                std::ptr::write_bytes(msg, 0, 1);
                &mut *msg
            };
            m.auth_uid = SLURM_AUTH_NOBODY;
            #[cfg(feature = "slurm-24-11")]
            {
                m.auth_gid = SLURM_AUTH_NOBODY;
            }
            m.conn_fd = -1;
            m.msg_type = sys::NO_VAL16 as u16;
            m.protocol_version = sys::NO_VAL16 as u16;
            m.forward.init = FORWARD_INIT;
        })
    }

    /// `int slurm_send_recv_controller_msg(slurm_msg_t *request_msg,
    /// slurm_msg_t *response_msg, slurmdb_cluster_rec_t *comm_cluster_rec)`:
    /// send a request to the controller and fill `response_msg` with its
    /// answer (`msg_type`, `data`); 0 when the controller answered, -1 with
    /// errno set when not. Serves `REQUEST_BATCH_SCRIPT` (see the module
    /// doc); another cluster (`comm_cluster_rec` not NULL) or another message
    /// type fails with `ESLURM_NOT_SUPPORTED`, the response untouched.
    ///
    /// # Safety
    /// `request_msg` and `response_msg` are NULL or point to initialised
    /// messages; a `REQUEST_BATCH_SCRIPT` request's `data` points to a
    /// `job_id_msg_t`.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_send_recv_controller_msg(
        request_msg: *mut SlurmMsg,
        response_msg: *mut SlurmMsg,
        comm_cluster_rec: *mut sys::slurmdb_cluster_rec_t,
    ) -> c_int {
        crate::guard(sys::SLURM_ERROR, || {
            if request_msg.is_null() || response_msg.is_null() {
                crate::errno::set(libc::EINVAL);
                return sys::SLURM_ERROR;
            }
            // SAFETY: not NULL, an initialised message (the caller's contract).
            let req = unsafe { &*request_msg };
            if !comm_cluster_rec.is_null() || req.msg_type != REQUEST_BATCH_SCRIPT || req.data.is_null() {
                crate::errno::set(sys::ESLURM_NOT_SUPPORTED as i32);
                return sys::SLURM_ERROR;
            }
            // SAFETY: a REQUEST_BATCH_SCRIPT's data is a job_id_msg_t (the
            // contract), checked for NULL above.
            let job_id = unsafe { req.data.cast::<JobIdMsg>().read() }.job_id;
            let (msg_type, data) = match batch_script(job_id) {
                ScriptAnswer::Failed(code) => {
                    crate::errno::set(code);
                    return sys::SLURM_ERROR;
                }
                ScriptAnswer::Script(s) => (RESPONSE_BATCH_SCRIPT, crate::xmalloc::xstrdup(&s).cast::<c_void>()),
                ScriptAnswer::Refused(code) => {
                    let rc = crate::xmalloc::xnew::<ReturnCodeMsg>();
                    if !rc.is_null() {
                        // SAFETY: a new block the size of a ReturnCodeMsg.
                        unsafe { (*rc).return_code = code as u32 };
                    }
                    (RESPONSE_SLURM_RC, rc.cast::<c_void>())
                }
            };
            if data.is_null() {
                crate::errno::set(libc::ENOMEM);
                return sys::SLURM_ERROR;
            }
            // SAFETY: not NULL, a writable message (the caller's contract).
            let resp = unsafe { &mut *response_msg };
            resp.msg_type = msg_type;
            resp.data = data;
            #[cfg(feature = "slurm-22-05")]
            {
                resp.data_size = 0;
            }
            resp.protocol_version = req.protocol_version;
            sys::SLURM_SUCCESS as c_int
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frees_take_null_and_blocks() {
        // SAFETY: NULL and fresh xmalloc'ed blocks, each released once.
        unsafe {
            slurm_free_return_code_msg(std::ptr::null_mut());
            slurm_free_return_code_msg(crate::xmalloc::xnew::<ReturnCodeMsg>());
            slurm_free_update_step_msg(std::ptr::null_mut());
            slurm_free_update_step_msg(crate::xmalloc::xnew());
            slurm_free_stats_response_msg(std::ptr::null_mut());
            let m = crate::xmalloc::xnew::<sys::stats_info_response_msg_t>();
            (*m).rpc_type_id = crate::xmalloc::xarray(&[1u16, 2]);
            (*m).rpc_dump_count = 2;
            let hosts = [crate::xmalloc::xstrdup("n1"), crate::xmalloc::xstrdup("n[2-3]")];
            (*m).rpc_dump_hostlist = crate::xmalloc::xarray(&hosts);
            slurm_free_stats_response_msg(m);
        }
    }

    #[cfg(feature = "slurm-22-05")]
    #[test]
    fn slurm_msg_t_is_slurm_22_05s() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<SlurmMsg>(), 376);
        assert_eq!(offset_of!(SlurmMsg, auth_cred), 128);
        assert_eq!(offset_of!(SlurmMsg, conn_fd), 176);
        assert_eq!(offset_of!(SlurmMsg, data), 184);
        assert_eq!(offset_of!(SlurmMsg, msg_type), 200);
        assert_eq!(offset_of!(SlurmMsg, protocol_version), 202);
        assert_eq!(offset_of!(SlurmMsg, forward), 208);
        assert_eq!(size_of::<Forward>(), 24);
        assert_eq!(offset_of!(SlurmMsg, orig_addr), 240);
        assert_eq!(offset_of!(SlurmMsg, ret_list), 368);
        assert_eq!(size_of::<ReturnCodeMsg>(), 4);
        assert_eq!(size_of::<JobIdMsg>(), 8);
    }

    #[cfg(feature = "slurm-22-05")]
    #[test]
    fn init_and_refused_requests() {
        let mut m = std::mem::MaybeUninit::<SlurmMsg>::uninit();
        // SAFETY: m is writable; after init it is a valid SlurmMsg.
        let m = unsafe {
            std::ptr::write_bytes(m.as_mut_ptr(), 0xa5, 1);
            slurm_msg_t_init(m.as_mut_ptr());
            m.assume_init()
        };
        assert_eq!(m.msg_type, 0xfffe);
        assert_eq!(m.protocol_version, 0xfffe);
        assert_eq!(m.conn_fd, -1);
        assert_eq!(m.auth_uid, 99);
        assert_eq!(m.forward.init, 0xfffe);
        assert!(m.data.is_null() && m.forward.nodelist.is_null() && m.ret_list.is_null());
        // another message type: refused, errno set, response untouched
        let mut req = m;
        let mut resp = m;
        req.msg_type = 2009;
        let mut body = JobIdMsg { job_id: 1, show_flags: 0 };
        req.data = (&mut body as *mut JobIdMsg).cast();
        // SAFETY: both messages are initialised locals.
        let rc = unsafe { slurm_send_recv_controller_msg(&mut req, &mut resp, std::ptr::null_mut()) };
        assert_eq!(rc, -1);
        assert_eq!(crate::errno::get(), sys::ESLURM_NOT_SUPPORTED as i32);
        assert_eq!(resp.msg_type, 0xfffe);
        assert!(resp.data.is_null());
        // SAFETY: as above.
        let rc = unsafe { slurm_send_recv_controller_msg(std::ptr::null_mut(), &mut resp, std::ptr::null_mut()) };
        assert_eq!(rc, -1);
    }
}
