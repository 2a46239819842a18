//! What pyslurm 24.11 imports from `libslurmfull.so` (Slurm's private
//! library, which it links instead of libslurm.so.42) beyond the names
//! libslurm exports: a directory on `LD_LIBRARY_PATH` holding a link
//! `libslurmfull.so` to this library serves it, once every one of its
//! imports is defined here (Python loads extension modules with RTLD_NOW).
//! All of it is in the 24.11 build only.
//!
//! # What each call does
//! * `slurm_msg_t_init` and `slurm_send_recv_controller_msg` with 24.11's
//!   internal `slurm_msg_t` are rpc.rs's (pyslurm's `Job.get_batch_script`
//!   fetches a job's script with them).
//! * `slurm_hostlist_deranged_string_xmalloc`: every host of a hostlist,
//!   comma separated, in xmalloc'ed memory.
//! * `slurmdb_ave_tres_usage`: a TRES usage string (`1=100,2=50`) with
//!   each count divided by a number of tasks, as Slurm's.
//! * Step statistics (pyslurm's `JobStep.load_stats`, over
//!   `slurm_job_step_stat` of stepstat.rs): Slurm's internal
//!   `jobacctinfo_t` (src/interfaces/jobacct_gather.h, which pyslurm
//!   re-declares and reads; stepstat.rs declares it) and the association
//!   manager's TRES list.
//!   **Partial:** Spur gathers no per-task accounting, so a
//!   `jobacctinfo_create`d record tracks no TRES (`tres_count` 0, no usage
//!   arrays): `jobacctinfo_aggregate` sums CPU times, CPU frequency and
//!   consumed energy as Slurm's does, and `jobacctinfo_2_stats` gives those
//!   with no TRES usage strings (NULL). `assoc_mgr_tres_list` starts NULL
//!   (no TRES known); `assoc_mgr_post_tres_list` takes the list it is given
//!   as the new one, but the records created afterwards still track no TRES.
//!   `assoc_mgr_lock`/`assoc_mgr_unlock` are one process-wide readers-writer
//!   lock for every kind of record (Slurm has one per kind): stricter, never
//!   wrong.

#[cfg(feature = "slurm-24-11")]
pub use imp::*;

#[cfg(feature = "slurm-24-11")]
mod imp {
    // (24.11's slurm_msg_t and its two calls are rpc.rs's, for both releases)
    #[cfg(test)]
    use crate::rpc::{slurm_msg_t_init, slurm_send_recv_controller_msg, Forward, JobIdMsg, SlurmMsg};
    use crate::sys;
    use std::ffi::{c_char, c_int, c_void};
    use std::ptr::{addr_of_mut, null_mut};
    use std::sync::{Condvar, Mutex};

    /// `char *slurm_hostlist_deranged_string_xmalloc(hostlist_t *hl)`: every
    /// host of the list, in order and without ranges, comma separated, in
    /// memory the caller releases with `xfree`; NULL for a NULL list (Slurm
    /// crashes) or when memory runs out.
    ///
    /// # Safety
    /// `hl` is NULL or a live list of `slurm_hostlist_create`.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_hostlist_deranged_string_xmalloc(hl: *mut crate::hostlist::Hl) -> *mut c_char {
        crate::guard(null_mut(), || {
            // SAFETY: hl is NULL or live (the caller's contract).
            let m = unsafe { crate::hostlist::slurm_hostlist_deranged_string_malloc(hl) };
            // SAFETY: NULL or a NUL-terminated string of malloc, read before
            // it is released (once).
            let text = unsafe { crate::text(m) }.map(crate::xmalloc::xstrdup);
            // SAFETY: m is NULL or malloc'ed above and not used again.
            unsafe { libc::free(m.cast()) };
            text.unwrap_or(null_mut())
        })
    }

    /// A TRES string's `id=count` pairs, in order of first appearance, a
    /// later pair of an id replacing the count of the earlier one (Slurm's
    /// `TRES_STR_FLAG_REPLACE`); reading stops at the first pair that is not
    /// `id=count` with an id above 0, as Slurm's.
    pub fn tres_pairs(s: &str) -> Vec<(u32, u64)> {
        let mut out: Vec<(u32, u64)> = Vec::new();
        for item in s.strip_prefix(',').unwrap_or(s).split(',') {
            let Some((id, count)) = item.split_once('=') else { break };
            let Some(id) = id.parse::<u32>().ok().filter(|&i| i > 0 && i <= i32::MAX as u32) else {
                break;
            };
            let digits: String = count.chars().take_while(|c| c.is_ascii_digit()).collect();
            let count = digits.parse::<u64>().unwrap_or(0);
            match out.iter_mut().find(|(i, _)| *i == id) {
                Some(p) => p.1 = count,
                None => out.push((id, count)),
            }
        }
        out
    }

    /// The average per task of a TRES usage string: each count divided by
    /// `tasks` (as an unsigned 64-bit number, as Slurm converts it); None
    /// for an empty string, a string with no valid pair, or no tasks (Slurm
    /// divides by zero).
    pub fn ave_tres_usage(s: &str, tasks: c_int) -> Option<String> {
        let pairs = tres_pairs(s);
        if pairs.is_empty() || tasks == 0 {
            return None;
        }
        let div = tasks as i64 as u64;
        Some(pairs.iter().map(|(id, c)| format!("{}={}", id, c / div)).collect::<Vec<_>>().join(","))
    }

    /// `char *slurmdb_ave_tres_usage(char *tres_string, int tasks)`: the
    /// TRES usage string with each count divided by `tasks`
    /// ([`ave_tres_usage`]), xmalloc'ed; NULL for NULL, an empty or invalid
    /// string, or 0 tasks.
    ///
    /// # Safety
    /// `tres_string` is NULL or NUL-terminated.
    #[no_mangle]
    pub unsafe extern "C" fn slurmdb_ave_tres_usage(tres_string: *mut c_char, tasks: c_int) -> *mut c_char {
        crate::guard(null_mut(), || {
            // SAFETY: NULL or NUL-terminated (the caller's contract).
            match unsafe { crate::text(tres_string) }.and_then(|s| ave_tres_usage(s, tasks)) {
                Some(s) => crate::xmalloc::xstrdup(&s),
                None => null_mut(),
            }
        })
    }

    // (Slurm's internal `jobacct_id_t` and `jobacctinfo_t` are
    // stepstat.rs's, for both releases)
    pub use crate::stepstat::{JobacctId, Jobacctinfo};

    /// `jobacctinfo_t *jobacctinfo_create(jobacct_id_t *jobacct_id)`: an
    /// xmalloc'ed record with no usage: zero CPU times, frequency and energy,
    /// no TRES tracked, `dataset_id` -1, the id given (NULL: task and node
    /// NO_VAL). NULL when memory runs out. Release it with
    /// `jobacctinfo_destroy`.
    ///
    /// # Safety
    /// `jobacct_id` is NULL or points to a `jobacct_id_t`.
    #[no_mangle]
    pub unsafe extern "C" fn jobacctinfo_create(jobacct_id: *mut JobacctId) -> *mut Jobacctinfo {
        crate::guard(null_mut(), || {
            let id = if jobacct_id.is_null() {
                JobacctId { taskid: sys::NO_VAL, nodeid: sys::NO_VAL, step: null_mut() }
            } else {
                // SAFETY: not NULL, a jobacct_id_t (the caller's contract).
                unsafe { jobacct_id.read() }
            };
            let j = crate::xmalloc::xnew::<Jobacctinfo>();
            if !j.is_null() {
                // SAFETY: a new zeroed block the size of a Jobacctinfo (zero
                // is valid for each of its integers, floats and pointers).
                unsafe {
                    (*j).id = id;
                    (*j).dataset_id = -1;
                }
            }
            j
        })
    }

    /// `void jobacctinfo_destroy(void *object)`: release a record with its
    /// usage arrays and its TRES list (unless that list is
    /// `assoc_mgr_tres_list`); NULL: nothing.
    ///
    /// # Safety
    /// `object` is NULL or an xmalloc'ed `jobacctinfo_t` whose arrays are
    /// NULL or xmalloc'ed and whose list is NULL or a live list, not used
    /// afterwards.
    #[no_mangle]
    pub unsafe extern "C" fn jobacctinfo_destroy(object: *mut c_void) {
        crate::guard((), || {
            let mut j = object.cast::<Jobacctinfo>();
            if j.is_null() {
                return;
            }
            // SAFETY: the global is only read here (a pointer copy).
            let global = unsafe { addr_of_mut!(assoc_mgr_tres_list).read() };
            // SAFETY: a live record (the caller's contract).
            unsafe { crate::stepstat::free_jobacct_members(&mut *j, global) };
            // SAFETY: the record's own block, released once.
            unsafe { crate::xmalloc::xfree(&mut j) };
        })
    }

    /// `void jobacctinfo_aggregate(jobacctinfo_t *dest, jobacctinfo_t
    /// *from)`: add `from`'s CPU times (carrying microseconds into seconds),
    /// CPU frequency and consumed energy (NO_VAL64 on either side: NO_VAL64)
    /// to `dest`, as Slurm's; TRES usage is not aggregated (see the module
    /// doc). NULL on either side: nothing.
    ///
    /// # Safety
    /// `dest` and `from` are NULL or live records.
    #[no_mangle]
    pub unsafe extern "C" fn jobacctinfo_aggregate(dest: *mut Jobacctinfo, from: *mut Jobacctinfo) {
        crate::guard((), || {
            if dest.is_null() || from.is_null() {
                return;
            }
            // SAFETY: live records (the caller's contract); read as a copy
            // first, as dest and from may be the same record.
            let f = unsafe { from.read() };
            // SAFETY: as above.
            let d = unsafe { &mut *dest };
            let carry = |sec: &mut u64, usec: &mut u32, add_sec: u64, add_usec: u32| {
                *sec = sec.wrapping_add(add_sec);
                let total = u64::from(*usec) + u64::from(add_usec);
                *sec = sec.wrapping_add(total / 1_000_000);
                *usec = (total % 1_000_000) as u32;
            };
            carry(&mut d.user_cpu_sec, &mut d.user_cpu_usec, f.user_cpu_sec, f.user_cpu_usec);
            carry(&mut d.sys_cpu_sec, &mut d.sys_cpu_usec, f.sys_cpu_sec, f.sys_cpu_usec);
            d.act_cpufreq = d.act_cpufreq.wrapping_add(f.act_cpufreq);
            let no_val64 = sys::NO_VAL64 as u64;
            if d.energy.consumed_energy != no_val64 {
                d.energy.consumed_energy = if f.energy.consumed_energy == no_val64 {
                    no_val64
                } else {
                    d.energy.consumed_energy.wrapping_add(f.energy.consumed_energy)
                };
            }
        })
    }

    /// `void jobacctinfo_2_stats(slurmdb_stats_t *stats, jobacctinfo_t
    /// *jobacct)`: the record's CPU frequency and consumed energy into
    /// `stats`, with no TRES usage strings (each set to NULL, as Slurm's
    /// leaves them for a record without TRES). NULL on either side: nothing.
    ///
    /// # Safety
    /// `stats` is NULL or writable; `jobacct` NULL or a live record.
    #[no_mangle]
    pub unsafe extern "C" fn jobacctinfo_2_stats(stats: *mut sys::slurmdb_stats_t, jobacct: *mut Jobacctinfo) {
        crate::guard((), || {
            if stats.is_null() || jobacct.is_null() {
                return;
            }
            // SAFETY: a live record (the caller's contract).
            let j = unsafe { jobacct.read() };
            // SAFETY: writable (the caller's contract).
            let s = unsafe { &mut *stats };
            s.act_cpufreq = f64::from(j.act_cpufreq);
            s.consumed_energy = j.energy.consumed_energy;
            for p in [
                &mut s.tres_usage_in_max,
                &mut s.tres_usage_in_max_nodeid,
                &mut s.tres_usage_in_max_taskid,
                &mut s.tres_usage_in_min,
                &mut s.tres_usage_in_min_nodeid,
                &mut s.tres_usage_in_min_taskid,
                &mut s.tres_usage_in_tot,
                &mut s.tres_usage_in_ave,
                &mut s.tres_usage_out_max,
                &mut s.tres_usage_out_max_nodeid,
                &mut s.tres_usage_out_max_taskid,
                &mut s.tres_usage_out_min,
                &mut s.tres_usage_out_min_nodeid,
                &mut s.tres_usage_out_min_taskid,
                &mut s.tres_usage_out_tot,
                &mut s.tres_usage_out_ave,
            ] {
                *p = null_mut();
            }
        })
    }

    /// `list_t *assoc_mgr_tres_list`: the TRES the association manager knows
    /// (`slurmdb_tres_rec_t` records). NULL: none known (Spur's library loads
    /// none from a database); `assoc_mgr_post_tres_list` replaces it.
    #[allow(non_upper_case_globals)]
    #[no_mangle]
    pub static mut assoc_mgr_tres_list: *mut sys::list_t = null_mut();

    /// Slurm's internal `lock_level_t`: NO_LOCK 0, READ_LOCK 1, WRITE_LOCK 2.
    const READ_LOCK: c_int = 1;
    const WRITE_LOCK: c_int = 2;

    /// Slurm's internal `assoc_mgr_lock_t` (src/common/assoc_mgr.h): a
    /// `lock_level_t` for each kind of record.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct AssocMgrLock {
        pub assoc: c_int,
        pub file: c_int,
        pub qos: c_int,
        pub res: c_int,
        pub tres: c_int,
        pub user: c_int,
        pub wckey: c_int,
    }

    impl AssocMgrLock {
        /// The strongest level asked for (values that are no level are
        /// ignored, as Slurm ignores them).
        fn level(&self) -> c_int {
            [self.assoc, self.file, self.qos, self.res, self.tres, self.user, self.wckey]
                .into_iter()
                .filter(|l| *l == READ_LOCK || *l == WRITE_LOCK)
                .max()
                .unwrap_or(0)
        }
    }

    /// The state of the process-wide lock: readers holding it, and whether a
    /// writer does.
    struct LockState {
        readers: u32,
        writer: bool,
    }

    static LOCK: Mutex<LockState> = Mutex::new(LockState { readers: 0, writer: false });
    static LOCK_FREED: Condvar = Condvar::new();

    fn lock_state() -> std::sync::MutexGuard<'static, LockState> {
        LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `void assoc_mgr_lock(assoc_mgr_lock_t *locks)`: take the lock for
    /// reading or writing as `locks` asks (its strongest level; one lock for
    /// every kind of record), waiting while a writer, or for a writer any
    /// holder, has it. NULL or no level: nothing.
    ///
    /// # Safety
    /// `locks` is NULL or points to an `assoc_mgr_lock_t`.
    #[no_mangle]
    pub unsafe extern "C" fn assoc_mgr_lock(locks: *mut AssocMgrLock) {
        crate::guard((), || {
            if locks.is_null() {
                return;
            }
            // SAFETY: not NULL, an assoc_mgr_lock_t (the caller's contract).
            let level = unsafe { locks.read() }.level();
            let mut s = lock_state();
            if level == WRITE_LOCK {
                while s.writer || s.readers > 0 {
                    s = LOCK_FREED.wait(s).unwrap_or_else(|poisoned| poisoned.into_inner());
                }
                s.writer = true;
            } else if level == READ_LOCK {
                while s.writer {
                    s = LOCK_FREED.wait(s).unwrap_or_else(|poisoned| poisoned.into_inner());
                }
                s.readers += 1;
            }
        })
    }

    /// `void assoc_mgr_unlock(assoc_mgr_lock_t *locks)`: release what
    /// `assoc_mgr_lock` took for the same `locks` (a lock not held: nothing).
    ///
    /// # Safety
    /// As [`assoc_mgr_lock`].
    #[no_mangle]
    pub unsafe extern "C" fn assoc_mgr_unlock(locks: *mut AssocMgrLock) {
        crate::guard((), || {
            if locks.is_null() {
                return;
            }
            // SAFETY: not NULL, an assoc_mgr_lock_t (the caller's contract).
            let level = unsafe { locks.read() }.level();
            let mut s = lock_state();
            if level == WRITE_LOCK {
                s.writer = false;
            } else if level == READ_LOCK {
                s.readers = s.readers.saturating_sub(1);
            }
            LOCK_FREED.notify_all();
        })
    }

    /// `int assoc_mgr_post_tres_list(list_t *new_list)`: make `new_list`
    /// (`slurmdb_tres_rec_t` records, now owned by the association manager)
    /// `assoc_mgr_tres_list`, destroying the one it replaces;
    /// `SLURM_SUCCESS`. NULL: nothing, `SLURM_ERROR` (Slurm asserts).
    /// The caller holds the TRES write lock, as Slurm requires.
    ///
    /// # Safety
    /// `new_list` is NULL or a live list the caller gives up.
    #[no_mangle]
    pub unsafe extern "C" fn assoc_mgr_post_tres_list(new_list: *mut sys::list_t) -> c_int {
        crate::guard(sys::SLURM_ERROR, || {
            if new_list.is_null() {
                return sys::SLURM_ERROR;
            }
            // SAFETY: the global holds NULL or a list this function was
            // given; replaced under the caller's write lock.
            let old = unsafe { addr_of_mut!(assoc_mgr_tres_list).replace(new_list) };
            if !old.is_null() && old != new_list {
                // SAFETY: the list the manager owned, no longer reachable.
                unsafe { crate::list::slurm_list_destroy(old) };
            }
            sys::SLURM_SUCCESS as c_int
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::mem::{offset_of, size_of};

        #[test]
        fn slurm_msg_t_is_slurm_24_11s() {
            assert_eq!(size_of::<Forward>(), 64);
            assert_eq!(size_of::<SlurmMsg>(), 424);
            assert_eq!(offset_of!(SlurmMsg, auth_cred), 128);
            assert_eq!(offset_of!(SlurmMsg, auth_gid), 144);
            assert_eq!(offset_of!(SlurmMsg, conn_fd), 184);
            assert_eq!(offset_of!(SlurmMsg, conmgr_fd), 192);
            assert_eq!(offset_of!(SlurmMsg, data), 200);
            assert_eq!(offset_of!(SlurmMsg, msg_type), 212);
            assert_eq!(offset_of!(SlurmMsg, protocol_version), 214);
            assert_eq!(offset_of!(SlurmMsg, forward), 216);
            assert_eq!(offset_of!(SlurmMsg, forward_struct), 280);
            assert_eq!(offset_of!(SlurmMsg, orig_addr), 288);
            assert_eq!(offset_of!(SlurmMsg, ret_list), 416);
            assert_eq!(size_of::<JobIdMsg>(), 8);
        }

        #[test]
        fn jobacctinfo_is_slurm_24_11s() {
            assert_eq!(size_of::<JobacctId>(), 16);
            assert_eq!(offset_of!(Jobacctinfo, act_cpufreq), 36);
            assert_eq!(offset_of!(Jobacctinfo, energy), 40);
            assert_eq!(offset_of!(Jobacctinfo, tres_count), 128);
            assert_eq!(offset_of!(Jobacctinfo, tres_list), 144);
            assert_eq!(offset_of!(Jobacctinfo, id), 264);
            assert_eq!(offset_of!(Jobacctinfo, dataset_id), 280);
            assert_eq!(size_of::<Jobacctinfo>(), 320);
            assert_eq!(size_of::<AssocMgrLock>(), 28);
        }

        #[test]
        fn init_and_refused_requests() {
            let mut m = std::mem::MaybeUninit::<SlurmMsg>::uninit();
            // SAFETY: m is writable; after init it is a valid SlurmMsg.
            let m = unsafe {
                std::ptr::write_bytes(m.as_mut_ptr(), 0xa5, 1);
                slurm_msg_t_init(m.as_mut_ptr());
                m.assume_init()
            };
            assert_eq!((m.msg_type, m.protocol_version, m.conn_fd), (0xfffe, 0xfffe, -1));
            assert_eq!((m.auth_uid, m.auth_gid, m.forward.init), (99, 99, 0xfffe));
            assert!(m.data.is_null() && m.conmgr_fd.is_null() && m.ret_list.is_null());
            assert!(m.forward.alias_addrs.node_list.is_null());
            let mut req = m;
            let mut resp = m;
            req.msg_type = 2009;
            let mut body = JobIdMsg { job_id: 1, show_flags: 0 };
            req.data = (&mut body as *mut JobIdMsg).cast();
            // SAFETY: both messages are initialised locals.
            let rc = unsafe { slurm_send_recv_controller_msg(&mut req, &mut resp, null_mut()) };
            assert_eq!(rc, -1);
            assert_eq!(crate::errno::get(), sys::ESLURM_NOT_SUPPORTED as i32);
            assert!(resp.data.is_null() && resp.msg_type == 0xfffe);
            // SAFETY: NULL is refused.
            assert_eq!(unsafe { slurm_send_recv_controller_msg(null_mut(), &mut resp, null_mut()) }, -1);
        }

        #[test]
        fn tres_averages() {
            assert_eq!(ave_tres_usage("1=100,2=51,5=7", 2).as_deref(), Some("1=50,2=25,5=3"));
            assert_eq!(ave_tres_usage(",1=10,1=20", 4).as_deref(), Some("1=5"));
            assert_eq!(ave_tres_usage("1=10,cpu=3", 1).as_deref(), Some("1=10"));
            assert_eq!(ave_tres_usage("", 2), None);
            assert_eq!(ave_tres_usage("0=5", 2), None);
            assert_eq!(ave_tres_usage("1=5", 0), None);
            // SAFETY: NULL, and a NUL-terminated literal; the answer is
            // xmalloc'ed and released once.
            unsafe {
                assert!(slurmdb_ave_tres_usage(null_mut(), 3).is_null());
                let mut p = slurmdb_ave_tres_usage(c"2=9".as_ptr().cast_mut(), 3);
                assert_eq!(crate::text(p), Some("2=3"));
                crate::xmalloc::xfree(&mut p);
            }
        }

        #[test]
        fn jobacct_records_add_up() {
            // SAFETY: records of jobacctinfo_create, each destroyed once;
            // stats is a zeroed local.
            unsafe {
                let total = jobacctinfo_create(null_mut());
                assert_eq!(((*total).id.taskid, (*total).dataset_id, (*total).tres_count), (sys::NO_VAL, -1, 0));
                let mut id = JobacctId { taskid: 3, nodeid: 1, step: null_mut() };
                let one = jobacctinfo_create(&mut id);
                assert_eq!((*one).id.taskid, 3);
                (*one).user_cpu_sec = 2;
                (*one).user_cpu_usec = 700_000;
                (*one).act_cpufreq = 1000;
                (*one).energy.consumed_energy = 5;
                jobacctinfo_aggregate(total, one);
                jobacctinfo_aggregate(total, one);
                assert_eq!(((*total).user_cpu_sec, (*total).user_cpu_usec), (5, 400_000));
                jobacctinfo_aggregate(total, null_mut());
                let mut stats: sys::slurmdb_stats_t = std::mem::zeroed();
                jobacctinfo_2_stats(&mut stats, total);
                assert_eq!((stats.act_cpufreq, stats.consumed_energy), (2000.0, 10));
                assert!(stats.tres_usage_in_max.is_null());
                jobacctinfo_destroy(one.cast());
                jobacctinfo_destroy(total.cast());
                jobacctinfo_destroy(null_mut());
            }
        }

        #[test]
        fn tres_list_and_locks() {
            let mut w = AssocMgrLock { tres: WRITE_LOCK, ..Default::default() };
            let mut r = AssocMgrLock { assoc: READ_LOCK, tres: 77, ..Default::default() };
            // SAFETY: locals; lists of slurm_list_create handed over.
            unsafe {
                assoc_mgr_lock(&mut w);
                assert_eq!(assoc_mgr_post_tres_list(null_mut()), sys::SLURM_ERROR);
                assert_eq!(assoc_mgr_post_tres_list(crate::list::slurm_list_create(None)), 0);
                assert_eq!(assoc_mgr_post_tres_list(crate::list::slurm_list_create(None)), 0);
                assert!(!addr_of_mut!(assoc_mgr_tres_list).read().is_null());
                assoc_mgr_unlock(&mut w);
                assoc_mgr_lock(&mut r);
                assoc_mgr_lock(&mut r);
                assoc_mgr_unlock(&mut r);
                assoc_mgr_unlock(&mut r);
                assoc_mgr_lock(&mut w);
                assoc_mgr_unlock(&mut w);
            }
        }

        #[test]
        fn deranged_hostlists() {
            // SAFETY: a list of slurm_hostlist_create, destroyed once; the
            // answer is xmalloc'ed and released once.
            unsafe {
                assert!(slurm_hostlist_deranged_string_xmalloc(null_mut()).is_null());
                let hl = crate::hostlist::slurm_hostlist_create(c"n[1-3],login".as_ptr());
                let mut p = slurm_hostlist_deranged_string_xmalloc(hl);
                assert_eq!(crate::text(p), Some("n1,n2,n3,login"));
                crate::xmalloc::xfree(&mut p);
                crate::hostlist::slurm_hostlist_destroy(hl);
            }
        }
    }
}
