//! The job and step queries against a real Spur cluster: what
//! `slurm_load_jobs`, `slurm_load_job`, `slurm_get_job_steps` and their
//! siblings return, compared with what `squeue` prints for the same jobs.
//! Needs root and the built binaries (slurm-tests' harness says so when
//! they are missing).

use spur_compat::sys;
use std::ffi::{c_char, CStr};
use std::time::Duration;

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return "(null)".into();
    }
    // SAFETY: the library's strings are NUL-terminated xmalloc blocks.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The records of a message, as a slice.
///
/// # Safety
/// `m` is a live message of the library's.
unsafe fn records<'a>(m: *mut sys::job_info_msg_t) -> &'a [sys::slurm_job_info_t] {
    // SAFETY: the caller's contract: record_count records in job_array.
    unsafe {
        if (*m).record_count == 0 {
            return &[];
        }
        std::slice::from_raw_parts((*m).job_array, (*m).record_count as usize)
    }
}

fn state_name(s: u32) -> &'static str {
    if s & (1 << 15) != 0 {
        return "COMPLETING";
    }
    match s & 0xff {
        0 => "PENDING",
        1 => "RUNNING",
        2 => "SUSPENDED",
        3 => "COMPLETED",
        4 => "CANCELLED",
        5 => "FAILED",
        6 => "TIMEOUT",
        _ => "OTHER",
    }
}

#[test]
fn jobs_and_steps_as_squeue_shows_them() {
    let release = sys::RELEASE;
    let c = Down(slurm_tests::Cluster::up("compat-jobs", 2, &["--compat", release]));
    let c = &c.0;
    // the library reads $SLURM_CONF on its first call (as libslurm does)
    std::env::set_var("SLURM_CONF", &c.conf);

    let running = c.sbatch(&["-J", "runner", "-n", "2", "-o", "out-%j.txt", "--wrap", "sleep 300"]);
    let held = c.sbatch(&["-J", "holder", "-H", "--wrap", "true"]);
    c.wait_state(&running.to_string(), "RUNNING", Duration::from_secs(30));

    // slurm_load_jobs against squeue
    let mut msg: *mut sys::job_info_msg_t = std::ptr::null_mut();
    // SAFETY: msg is writable.
    let rc = unsafe { spur_compat::jobs::slurm_load_jobs(0, &mut msg, 0) };
    assert_eq!(rc, 0, "slurm_load_jobs: errno {}", spur_compat::errno::get());
    let sq = c.run("squeue", &["-h", "-t", "all", "-o", "%i|%j|%T|%U|%P|%N|%D|%C|%r"]);
    sq.ok();
    let mut want: Vec<String> = sq.stdout.lines().map(str::to_string).collect();
    want.sort();
    // SAFETY: msg is the message just loaded.
    let mut got: Vec<String> = unsafe { records(msg) }
        .iter()
        .map(|r| {
            let reason = if r.job_state & 0xff == 0 {
                // pending: held by the user (state_reason is 22.05's u16, 24.11's u32)
                #[allow(clippy::unnecessary_cast)]
                let held = r.state_reason as u32 == sys::WAIT_HELD_USER as u32;
                if held {
                    "JobHeldUser".to_string()
                } else {
                    format!("reason {}", r.state_reason)
                }
            } else {
                "None".to_string()
            };
            format!(
                "{}|{}|{}|{}|{}|{}|{}|{}|{}",
                r.job_id,
                text(r.name),
                state_name(r.job_state),
                r.user_id,
                text(r.partition),
                if r.nodes.is_null() { String::new() } else { text(r.nodes) },
                r.num_nodes,
                r.num_cpus,
                reason
            )
        })
        .collect();
    got.sort();
    assert_eq!(got, want, "slurm_load_jobs against squeue");
    // SAFETY: as above.
    unsafe {
        for r in records(msg) {
            for inx in [r.node_inx, r.req_node_inx, r.exc_node_inx] {
                assert!(!inx.is_null(), "index arrays are never NULL");
            }
        }
        spur_compat::jobs::slurm_free_job_info_msg(msg);
    }

    // slurm_load_job: one record, the standard paths expanded
    let mut one: *mut sys::job_info_msg_t = std::ptr::null_mut();
    // SAFETY: one is writable; the record is read before the message is freed.
    unsafe {
        assert_eq!(spur_compat::jobs::slurm_load_job(&mut one, running, 0), 0);
        let r = records(one);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].job_id, running);
        assert_eq!(r[0].num_tasks, 2);
        assert_eq!(text(r[0].batch_host), text(r[0].nodes));
        // 22.05: the CPUs on its node, as the torque wrappers' qstat reads them
        #[cfg(feature = "slurm-22-05")]
        assert_eq!(spur_compat::jobs::slurm_job_cpus_allocated_on_node_id(r[0].job_resrcs, 0), 2);
        let mut buf = [0 as c_char; 256];
        spur_compat::jobs::slurm_get_job_stdout(buf.as_mut_ptr(), 256, (*one).job_array);
        assert_eq!(text(buf.as_ptr()), format!("{}/out-{}.txt", c.work.display(), running));
        let mut end: sys::time_t = 0;
        assert_eq!(spur_compat::jobs::slurm_get_end_time(running, &mut end), 0);
        assert_eq!(end, r[0].end_time);
        let rem = spur_compat::jobs::slurm_get_rem_time(running);
        assert!(rem > 0, "end {} start {} limit {} rem {}", end, r[0].start_time, r[0].time_limit, rem);
        spur_compat::jobs::slurm_free_job_info_msg(one);
    }
    // an unknown job
    let mut none: *mut sys::job_info_msg_t = std::ptr::null_mut();
    // SAFETY: none is writable.
    let rc = unsafe { spur_compat::jobs::slurm_load_job(&mut none, 999_999, 0) };
    assert_eq!((rc, spur_compat::errno::get()), (-1, sys::ESLURM_INVALID_JOB_ID as i32));
    assert!(none.is_null());

    // the held job's script, through a C stream
    // SAFETY: tmpfile gives a stream or NULL; it is read back and closed.
    unsafe {
        let f = libc::tmpfile();
        assert!(!f.is_null());
        assert_eq!(spur_compat::jobs::slurm_job_batch_script(f.cast(), held), 0);
        libc::rewind(f);
        let mut buf = vec![0u8; 4096];
        let n = libc::fread(buf.as_mut_ptr().cast(), 1, buf.len(), f);
        libc::fclose(f);
        let script = String::from_utf8_lossy(&buf[..n]);
        assert!(script.contains("true"), "{}", script);
    }

    // the steps against squeue -s
    let mut steps: *mut sys::job_step_info_response_msg_t = std::ptr::null_mut();
    // SAFETY: steps is writable; read before it is freed.
    unsafe {
        let rc = spur_compat::steps::slurm_get_job_steps(0, sys::NO_VAL, sys::NO_VAL, &mut steps, 0);
        assert_eq!(rc, 0);
        let m = &*steps;
        let list = if m.job_step_count == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(m.job_steps, m.job_step_count as usize)
        };
        let mut got: Vec<String> = list
            .iter()
            .map(|s| {
                let id = match s.step_id.step_id {
                    sys::SLURM_BATCH_SCRIPT => "batch".to_string(),
                    0xffff_fffc => "extern".to_string(),
                    n => n.to_string(),
                };
                format!("{}.{} {}", s.step_id.job_id, id, text(s.nodes))
            })
            .collect();
        got.sort();
        let sq = c.run("squeue", &["-s", "-h", "-o", "%i %N"]);
        sq.ok();
        let mut want: Vec<String> = sq.stdout.lines().map(|l| l.trim().to_string()).collect();
        want.sort();
        assert_eq!(got, want, "slurm_get_job_steps against squeue -s");
        for s in list {
            assert!(!s.node_inx.is_null());
        }
        spur_compat::steps::slurm_free_job_step_info_response_msg(steps);
    }

    // 22.05: slurm_sprint_job_info and slurm_print_job_info_msg print what
    // scontrol show job prints (a pending array too; 24.11's library has none)
    #[cfg(feature = "slurm-22-05")]
    {
        let array = c.sbatch(&["-J", "arr", "-H", "--array=1-4%2", "--mail-type=END", "--wrap", "true"]);
        for (flags, args) in [
            (0u16, &["show", "job"][..]),
            (sys::SHOW_DETAIL as u16, &["-d", "show", "job"][..]),
            (0, &["-o", "show", "job"][..]),
        ] {
            let one_liner = args.contains(&"-o") as i32;
            // (a running job's RunTime moves on between the two: retried)
            let mut last = (String::new(), String::new());
            for _ in 0..3 {
                let want = c.run("scontrol", args);
                want.ok();
                let mut msg: *mut sys::job_info_msg_t = std::ptr::null_mut();
                // SAFETY: msg is writable; each text is an xmalloc'ed string, freed.
                let got = unsafe {
                    assert_eq!(spur_compat::jobs::slurm_load_jobs(0, &mut msg, flags), 0);
                    let mut got = String::new();
                    for r in records(msg) {
                        let p = spur_compat::sprint::slurm_sprint_job_info(r as *const _ as *mut _, one_liner);
                        got.push_str(&text(p));
                        spur_compat::xmalloc::slurm_xfree_ptr(p.cast());
                    }
                    spur_compat::jobs::slurm_free_job_info_msg(msg);
                    got
                };
                last = (got, want.stdout);
                if last.0 == last.1 {
                    break;
                }
            }
            assert_eq!(last.0, last.1, "slurm_sprint_job_info against scontrol {:?}", args);
            assert!(last.0.contains(&format!("ArrayJobId={} ArrayTaskId=1-4%2", array)), "{}", last.0);
        }
        // the message through a C stream: its header, then the records
        // SAFETY: tmpfile gives a stream or NULL; it is read back and closed.
        unsafe {
            let mut msg: *mut sys::job_info_msg_t = std::ptr::null_mut();
            assert_eq!(spur_compat::jobs::slurm_load_job(&mut msg, held, 0), 0);
            let f = libc::tmpfile();
            assert!(!f.is_null());
            spur_compat::sprint::slurm_print_job_info_msg(f.cast(), msg, 1);
            libc::rewind(f);
            let mut buf = vec![0u8; 65536];
            let n = libc::fread(buf.as_mut_ptr().cast(), 1, buf.len(), f);
            libc::fclose(f);
            let printed = String::from_utf8_lossy(&buf[..n]).into_owned();
            spur_compat::jobs::slurm_free_job_info_msg(msg);
            let want = c.run("scontrol", &["-o", "show", "job", &held.to_string()]);
            want.ok();
            let (head, rest) = printed.split_once('\n').unwrap();
            assert!(head.starts_with("Job data as of ") && head.ends_with(", record count 1"), "{}", head);
            assert_eq!(rest, want.stdout);
        }
        c.run("scancel", &[&array.to_string()]).ok();
    }

    c.run("scancel", &[&running.to_string(), &held.to_string()]).ok();
}

/// Stops the cluster however the test ends.
struct Down(slurm_tests::Cluster);

impl Drop for Down {
    fn drop(&mut self) {
        self.0.down();
    }
}
