//! Slurm's print and sprint functions (`slurm_sprint_job_info` and its
//! kin): the text `scontrol show` prints of a record, from the C record the
//! caller hands in (one it loaded, built or changed). Each record becomes
//! spur-cli-base's Slurm-shaped record ([`spur_cli_base::show`]) and is
//! printed by the renderer `scontrol show` uses, so the library and the
//! command cannot disagree.
//!
//! Slurm 24.11 moved the job's printing into scontrol: its library has no
//! `slurm_sprint_job_info`, `slurm_print_job_info` or
//! `slurm_print_job_info_msg`, and neither has this one's 24.11 build.

#[cfg(feature = "slurm-22-05")]
pub use jobs::{slurm_print_job_info, slurm_print_job_info_msg, slurm_sprint_job_info};

#[cfg(feature = "slurm-22-05")]
mod jobs {
    use crate::sys;
    use crate::xmalloc::xstrdup;
    use std::ffi::{c_char, c_int};
    use std::ptr::null_mut;

    /// Text of a C string field (NULL: `None`; bytes that are not UTF-8 replaced).
    ///
    /// # Safety
    /// `p` is NULL or NUL-terminated.
    unsafe fn opt(p: *const c_char) -> Option<String> {
        if p.is_null() {
            return None;
        }
        // SAFETY: not NULL and NUL-terminated (the contract).
        Some(unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned())
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

    /// A user's name, `nobody` when it has none (Slurm's uid_to_string).
    fn user_name(uid: u32) -> String {
        // SAFETY: getpwuid returns NULL or a pointer to a static record whose
        // pw_name is NUL-terminated; it is copied before any other call.
        unsafe {
            let pw = libc::getpwuid(uid);
            if pw.is_null() || (*pw).pw_name.is_null() {
                return "nobody".into();
            }
            std::ffi::CStr::from_ptr((*pw).pw_name).to_string_lossy().into_owned()
        }
    }

    /// A group's name, `nobody` when it has none (Slurm's gid_to_string).
    fn group_name(gid: u32) -> String {
        // SAFETY: getgrgid returns NULL or a pointer to a static record whose
        // gr_name is NUL-terminated; it is copied before any other call.
        unsafe {
            let gr = libc::getgrgid(gid);
            if gr.is_null() || (*gr).gr_name.is_null() {
                return "nobody".into();
            }
            std::ffi::CStr::from_ptr((*gr).gr_name).to_string_lossy().into_owned()
        }
    }

    /// Whether slurm.conf says `TrackWCKey=yes` (no configuration: no).
    fn track_wckey() -> bool {
        crate::conn::conf()
            .ok()
            .and_then(|c| c.get("TrackWCKey").map(|v| matches!(v.to_ascii_lowercase().as_str(), "yes" | "true" | "1")))
            .unwrap_or(false)
    }

    /// A node list sorted as slurm_sort_node_list_str sorts it (NULL: empty).
    fn sorted_nodes(list: Option<String>) -> String {
        match list {
            None => String::new(),
            Some(l) => spur_grammar::hostlist::reformat_sorted(&l).unwrap_or(l),
        }
    }

    /// The message functions' first line (`Job data as of ..., record count N`).
    fn header(what: &str, last_update: i64, count: u32) -> String {
        format!("{} data as of {}, record count {}\n", what, spur_cli_base::format::time_str(last_update), count)
    }

    /// A sprint function's result: its text in a new xmalloc'ed string, NULL for none.
    fn xresult(text: Option<String>) -> *mut c_char {
        text.map(|t| xstrdup(&t)).unwrap_or(null_mut())
    }

    use crate::jobs::JobResources;
    use spur_cli_base::show::{JobFlags, JobInfo, JobPhase, NodeDetail};

    const KILL_INV_DEP: u64 = 1 << 0;
    const NO_KILL_INV_DEP: u64 = 1 << 1;
    const GRES_ENFORCE_BIND: u64 = 1 << 4;
    const SPREAD_JOB: u64 = 1 << 8;
    const GRES_DISABLE_BIND: u64 = 1 << 19;
    const CRON_JOB: u64 = 1 << 22;
    const BACKFILL_SCHED: u64 = 1 << 32;
    const BACKFILL_LAST: u64 = 1 << 33;

    /// The per-node lines of a detailed record: from the block this
    /// library's loads attach (`job_resrcs`, Spur's layout), when the
    /// record was loaded with SHOW_DETAIL, as slurmctld attaches Slurm's
    /// only then.
    ///
    /// # Safety
    /// The record's pointers are NULL or what this library's loads set.
    unsafe fn details(r: &sys::slurm_job_info_t) -> Option<(Option<String>, Vec<NodeDetail>)> {
        if r.show_flags as u32 & sys::SHOW_DETAIL == 0 {
            return None;
        }
        // SAFETY: NULL or a block of JobResources::build (the contract).
        let res = unsafe { r.job_resrcs.cast::<JobResources>().as_ref() }?;
        // SAFETY: NULL or NUL-terminated.
        let names = spur_grammar::hostlist::expand(&unsafe { opt(res.nodes) }.unwrap_or_default()).ok()?;
        let n = (res.nhosts as usize).min(names.len());
        if n == 0 || res.cpus.is_null() || res.spur_first_cpu.is_null() {
            return None;
        }
        let mut nodes = Vec::with_capacity(n);
        for (i, node) in names.into_iter().take(n).enumerate() {
            // SAFETY: build's arrays hold nhosts entries; i < nhosts.
            let (cpus, first) = unsafe { (*res.cpus.add(i) as u32, *res.spur_first_cpu.add(i)) };
            // SAFETY: as above (NULL: no memory array).
            let mem = unsafe { res.memory_allocated.as_ref().map(|_| *res.memory_allocated.add(i)) };
            let gres = if i < r.gres_detail_cnt as usize && !r.gres_detail_str.is_null() {
                // SAFETY: gres_detail_cnt strings, each NULL or NUL-terminated.
                unsafe { opt(*r.gres_detail_str.add(i)) }.unwrap_or_default()
            } else {
                String::new()
            };
            let cpu_ids = if cpus <= 1 { first.to_string() } else { format!("{}-{}", first, first + cpus - 1) };
            nodes.push(NodeDetail { node, cpu_ids, mem, gres });
        }
        // SAFETY: NULL or NUL-terminated.
        Some((unsafe { opt(r.gres_total) }, nodes))
    }

    /// The renderer's record of a C record.
    ///
    /// # Safety
    /// The record's strings are NULL or NUL-terminated; its other pointers
    /// NULL or what this library's loads set.
    pub(super) unsafe fn job_info(r: &sys::slurm_job_info_t) -> JobInfo {
        // SAFETY: the contract.
        let s = |p: *mut c_char| unsafe { opt(p) };
        let base = r.job_state & sys::JOB_STATE_BASE;
        let reason = match s(r.state_desc) {
            Some(d) => d,
            // SAFETY: a static string or NULL.
            None => unsafe { opt(crate::strings::reasons::slurm_job_reason_string(r.state_reason as _)) }
                .unwrap_or_default(),
        };
        let fl = r.bitflags;
        let fed = (r.fed_siblings_active != 0 || r.fed_siblings_viable != 0)
            .then(|| (s(r.fed_origin_str), s(r.fed_siblings_viable_str), s(r.fed_siblings_active_str)));
        // SAFETY: the contract.
        let std_paths = (r.batch_flag != 0).then(|| unsafe {
            (
                crate::jobs::stream_path(r, crate::jobs::Stream::Err),
                crate::jobs::stream_path(r, crate::jobs::Stream::In),
                crate::jobs::stream_path(r, crate::jobs::Stream::Out),
            )
        });
        JobInfo {
            job_id: r.job_id,
            array_job_id: r.array_job_id,
            array_task_id: r.array_task_id,
            array_task_str: s(r.array_task_str),
            array_max_tasks: r.array_max_tasks,
            het_job_id: r.het_job_id,
            het_job_offset: r.het_job_offset,
            het_job_id_set: s(r.het_job_id_set),
            name: s(r.name),
            user: user_name(r.user_id),
            user_id: r.user_id,
            group: group_name(r.group_id),
            group_id: r.group_id,
            mcs_label: s(r.mcs_label),
            priority: r.priority,
            nice: r.nice as i64 - sys::NICE_OFFSET as i64,
            account: s(r.account),
            qos: s(r.qos),
            wckey: track_wckey().then(|| s(r.wckey)),
            // SAFETY: a static string.
            state: unsafe { opt(crate::strings::slurm_job_state_string(r.job_state)) }.unwrap_or_default(),
            phase: match base {
                sys::JOB_PENDING => JobPhase::Pending,
                sys::JOB_RUNNING => JobPhase::Running,
                sys::JOB_SUSPENDED => JobPhase::Suspended,
                _ => JobPhase::Other,
            },
            reason,
            dependency: s(r.dependency),
            requeue: r.requeue,
            restart_cnt: r.restart_cnt,
            batch_flag: r.batch_flag,
            reboot: r.reboot,
            exit_code: r.exit_code,
            derived_ec: (r.show_flags as u32 & sys::SHOW_DETAIL != 0).then_some(r.derived_ec),
            time_limit: r.time_limit,
            time_min: r.time_min,
            submit_time: r.submit_time,
            eligible_time: r.eligible_time,
            accrue_time: r.accrue_time,
            resize_time: r.resize_time,
            start_time: r.start_time,
            end_time: r.end_time,
            deadline: r.deadline,
            cronspec: s(r.cronspec),
            preemptable_time: r.preemptable_time,
            preempt_time: r.preempt_time,
            suspend_time: r.suspend_time,
            pre_sus_time: r.pre_sus_time,
            last_sched_eval: r.last_sched_eval,
            flags: JobFlags {
                cron_job: fl & CRON_JOB != 0,
                backfill_sched: fl & BACKFILL_SCHED != 0,
                backfill_last: fl & BACKFILL_LAST != 0,
                gres_disable_bind: fl & GRES_DISABLE_BIND != 0,
                gres_enforce_bind: fl & GRES_ENFORCE_BIND != 0,
                kill_inv_dep: fl & KILL_INV_DEP != 0,
                no_kill_inv_dep: fl & NO_KILL_INV_DEP != 0,
                spread_job: fl & SPREAD_JOB != 0,
            },
            partition: s(r.partition),
            alloc_node: s(r.alloc_node),
            alloc_sid: r.alloc_sid,
            req_nodes: s(r.req_nodes),
            exc_nodes: s(r.exc_nodes),
            nodes: sorted_nodes(s(r.nodes)),
            sched_nodes: s(r.sched_nodes),
            batch_features: s(r.batch_features),
            batch_host: s(r.batch_host),
            fed,
            num_nodes: r.num_nodes,
            max_nodes: r.max_nodes,
            num_cpus: r.num_cpus,
            max_cpus: r.max_cpus,
            num_tasks: r.num_tasks,
            cpus_per_task: r.cpus_per_task,
            boards_per_node: r.boards_per_node,
            sockets_per_board: r.sockets_per_board,
            cores_per_socket: r.cores_per_socket,
            threads_per_core: r.threads_per_core,
            tres_req: s(r.tres_req_str),
            tres_alloc: s(r.tres_alloc_str),
            sockets_per_node: r.sockets_per_node,
            ntasks_per_node: r.ntasks_per_node,
            ntasks_per_board: r.ntasks_per_board,
            ntasks_per_socket: r.ntasks_per_socket,
            ntasks_per_core: r.ntasks_per_core,
            core_spec: r.core_spec,
            // SAFETY: the contract.
            details: unsafe { details(r) },
            pn_min_cpus: r.pn_min_cpus,
            pn_min_memory: r.pn_min_memory,
            pn_min_tmp_disk: r.pn_min_tmp_disk,
            features: s(r.features),
            delay_boot: r.delay_boot,
            cluster_features: s(r.cluster_features),
            prefer: s(r.prefer),
            resv_name: s(r.resv_name),
            shared: r.shared,
            contiguous: r.contiguous,
            licenses: s(r.licenses),
            network: s(r.network),
            command: s(r.command),
            work_dir: s(r.work_dir),
            admin_comment: s(r.admin_comment),
            system_comment: s(r.system_comment),
            comment: s(r.comment),
            extra: None,
            std_paths,
            req_switch: r.req_switch,
            wait4switch: r.wait4switch,
            burst_buffer: s(r.burst_buffer),
            burst_buffer_state: s(r.burst_buffer_state),
            cpu_freq_min: r.cpu_freq_min,
            cpu_freq_max: r.cpu_freq_max,
            cpu_freq_gov: r.cpu_freq_gov,
            power_flags: r.power_flags,
            cpus_per_tres: s(r.cpus_per_tres),
            mem_per_tres: s(r.mem_per_tres),
            tres_bind: s(r.tres_bind),
            tres_freq: s(r.tres_freq),
            tres_per_job: s(r.tres_per_job),
            tres_per_node: s(r.tres_per_node),
            tres_per_socket: s(r.tres_per_socket),
            tres_per_task: s(r.tres_per_task),
            mail_user: s(r.mail_user),
            mail_type: (r.mail_type != 0).then(|| spur_cli_base::show::mail_type_text(r.mail_type)),
            ntasks_per_tres: r.ntasks_per_tres,
            container: s(r.container),
            selinux_context: s(r.selinux_context),
        }
    }

    /// The text of one record, changing it as Slurm's does: blanks in
    /// `state_desc` become `_`, and `pn_min_memory` loses its per-CPU flag.
    ///
    /// # Safety
    /// `job` is NULL or a record as [`job_info`] takes it.
    pub(super) unsafe fn sprint(job: *mut sys::slurm_job_info_t, one_liner: c_int) -> Option<String> {
        spur_core::compat::set_release(crate::jobs::release());
        // SAFETY: the contract.
        let r = unsafe { job.as_mut() }?;
        if r.job_id == 0 {
            return None;
        }
        if !r.state_desc.is_null() {
            // SAFETY: NUL-terminated and the caller's to change (Slurm changes it).
            unsafe {
                let mut p = r.state_desc;
                while *p != 0 {
                    if matches!(*p as u8, b' ' | b'\t'..=b'\r') {
                        *p = b'_' as c_char;
                    }
                    p = p.add(1);
                }
            }
        }
        // SAFETY: the contract.
        let info = unsafe { job_info(r) };
        r.pn_min_memory &= !spur_cli_base::show::MEM_PER_CPU;
        spur_cli_base::show::sprint_job(&info, one_liner != 0, now())
    }

    /// `char *slurm_sprint_job_info(job_info_t *job_ptr, int one_liner)`:
    /// what `scontrol show job` prints of the record (one line when
    /// `one_liner`), in a new xmalloc'ed string; NULL for job id 0.
    ///
    /// # Safety
    /// `job_ptr` is NULL or a record: its strings NULL or NUL-terminated,
    /// `job_resrcs` NULL or this library's.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_sprint_job_info(job_ptr: *mut sys::job_info_t, one_liner: c_int) -> *mut c_char {
        // SAFETY: the contract.
        crate::guard(null_mut(), || xresult(unsafe { sprint(job_ptr, one_liner) }))
    }

    /// `void slurm_print_job_info(FILE *out, job_info_t *job_ptr, int
    /// one_liner)`: [`slurm_sprint_job_info`]'s text, written to `out`.
    ///
    /// # Safety
    /// `out` is NULL or an open stream; `job_ptr` as for [`slurm_sprint_job_info`].
    #[no_mangle]
    pub unsafe extern "C" fn slurm_print_job_info(
        out: *mut sys::FILE,
        job_ptr: *mut sys::job_info_t,
        one_liner: c_int,
    ) {
        crate::guard((), || {
            // SAFETY: the contract.
            if let Some(t) = unsafe { sprint(job_ptr, one_liner) } {
                // SAFETY: as above.
                unsafe { write_to(out, &t) };
            }
        })
    }

    /// `void slurm_print_job_info_msg(FILE *out, job_info_msg_t *jinfo, int
    /// one_liner)`: `Job data as of TIME, record count N`, then each record.
    ///
    /// # Safety
    /// `out` is NULL or an open stream; `jinfo` NULL or a message whose
    /// `job_array` holds `record_count` records.
    #[no_mangle]
    pub unsafe extern "C" fn slurm_print_job_info_msg(
        out: *mut sys::FILE,
        jinfo: *mut sys::job_info_msg_t,
        one_liner: c_int,
    ) {
        crate::guard((), || {
            // SAFETY: the contract.
            let Some(m) = (unsafe { jinfo.as_mut() }) else { return };
            spur_core::compat::set_release(crate::jobs::release());
            // SAFETY: as above.
            unsafe { write_to(out, &header("Job", m.last_update, m.record_count)) };
            for i in 0..m.record_count as usize {
                // SAFETY: record_count records (the contract).
                unsafe { slurm_print_job_info(out, m.job_array.add(i), one_liner) };
            }
        })
    }
}
