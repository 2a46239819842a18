//! Job submission and control through the library's C functions, on a real
//! Spur cluster (root and the user `spurtest`, as slurm-tests needs): a
//! batch job submitted with `slurm_submit_batch_job` is seen by squeue,
//! held and released with `slurm_update_job`, signalled, suspended,
//! resumed, requeued and cancelled through the library; errno is Slurm's
//! for an unknown job, an ended one and another user's.

use slurm_tests::Cluster;
use spur_compat::control::*;
use spur_compat::submit::*;
use spur_compat::sys;
use spur_compat::xmalloc::{xarray, xstrdup};
use std::ffi::CString;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

fn errno() -> i32 {
    spur_compat::errno::get()
}

/// A descriptor as a C consumer builds one: init, then its own xmalloc'ed fields.
fn desc(c: &Cluster, name: &str, script: &str) -> *mut sys::job_desc_msg_t {
    let d = spur_compat::xmalloc::xnew::<sys::job_desc_msg_t>();
    // SAFETY: d is a new descriptor; every member set is xmalloc'ed.
    unsafe {
        slurm_init_job_desc_msg(d);
        let m = &mut *d;
        m.name = xstrdup(name);
        m.script = xstrdup(script);
        m.environment = xarray(&[xstrdup("PATH=/usr/bin:/bin"), std::ptr::null_mut()]);
        m.env_size = 1;
        m.work_dir = xstrdup(&c.work.to_string_lossy());
        m.std_out = xstrdup(&format!("{}/{}.out", c.work.display(), name));
        m.time_limit = 10;
        m.num_tasks = 1;
        m.min_nodes = 1;
    }
    d
}

fn submit(d: *mut sys::job_desc_msg_t) -> u32 {
    let mut resp: *mut sys::submit_response_msg_t = std::ptr::null_mut();
    // SAFETY: d is a valid descriptor, resp writable; freed once.
    unsafe {
        let rc = slurm_submit_batch_job(d, &mut resp);
        assert_eq!(rc, 0, "submit: errno {}", errno());
        let id = (*resp).job_id;
        slurm_free_submit_response_response_msg(resp);
        id
    }
}

/// An update of one job: a fresh descriptor set up by `set`.
fn update(job: u32, set: impl FnOnce(&mut sys::job_desc_msg_t)) -> (i32, i32) {
    // SAFETY: all-zero then init: a valid descriptor; `set` only stores
    // values and xmalloc'ed strings, released by the free below.
    unsafe {
        let d = spur_compat::xmalloc::xnew::<sys::job_desc_msg_t>();
        slurm_init_job_desc_msg(d);
        (*d).job_id = job;
        set(&mut *d);
        let rc = slurm_update_job(d);
        // (errno is only meaningful after a failure, as Slurm's)
        let e = if rc == 0 { 0 } else { errno() };
        slurm_free_job_desc_msg(d);
        (rc, e)
    }
}

fn show(c: &Cluster, job: u32) -> String {
    c.run("scontrol", &["show", "job", &job.to_string()]).stdout
}

/// Run as `spurtest` (started by `control_through_the_library` with
/// SPUR_COMPAT_OTHERS_JOB): act on root's job and print what comes back.
#[test]
fn as_other_user() {
    let Ok(job) = std::env::var("SPUR_COMPAT_OTHERS_JOB") else { return };
    let job: u32 = job.parse().unwrap();
    let rc = slurm_kill_job(job, 9, 0);
    println!("KILL {} {}", rc, errno());
    let (rc, e) = update(job, |d| d.time_limit = 5);
    println!("UPDATE {} {}", rc, e);
    let (rc, e) = update(job, |d| d.priority = 0);
    println!("HOLD {} {}", rc, e);
    let rc = slurm_requeue(job, 0);
    println!("REQUEUE {} {}", rc, errno());
    let mut resp = std::ptr::null_mut();
    // SAFETY: resp is writable.
    let rc = unsafe { slurm_allocation_lookup(job, &mut resp) };
    println!("LOOKUP {} {}", rc, errno());
}

#[test]
fn control_through_the_library() {
    if std::env::var("SPUR_COMPAT_OTHERS_JOB").is_ok() {
        return;
    }
    let c = Cluster::up("compat-control", 1, &[]);
    let conf = CString::new(c.conf.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    unsafe { spur_compat::conn::slurm_init(conf.as_ptr()) };

    // submitted held (priority 0): pending, held by its user
    let script =
        "#!/bin/sh\ntrap 'echo got USR1 >> usr1.txt' USR1\necho ready >> ready.txt\nwhile true; do sleep 1; done\n";
    let d = desc(&c, "libjob", script);
    // SAFETY: d is ours.
    unsafe { (*d).priority = 0 };
    let a = submit(d);
    // SAFETY: xmalloc'ed by desc, freed once.
    unsafe { slurm_free_job_desc_msg(d) };
    let sq = c.run("squeue", &["-h", "-j", &a.to_string(), "-o", "%j %T %r"]).stdout;
    assert_eq!(sq.trim(), "libjob PENDING JobHeldUser", "{}", sq);

    // released (priority INFINITE): it runs
    assert_eq!(update(a, |d| d.priority = u32::MAX), (0, 0));
    c.wait_state(&a.to_string(), "RUNNING", T);

    // a signal to the batch shell and its steps: the script's trap sees it
    // (once the script has set it)
    c.wait_file("ready.txt", "ready", T);
    assert_eq!(slurm_kill_job(a, libc::SIGUSR1 as u16, 1 << 3), 0, "errno {}", errno());
    c.wait_file("usr1.txt", "got USR1", T);
    assert_eq!(c.state(&a.to_string()), "RUNNING");
    // to its steps only (it has none): accepted, the job runs on
    assert_eq!(slurm_signal_job(a, libc::SIGUSR1 as u16), 0, "errno {}", errno());
    assert_eq!(c.state(&a.to_string()), "RUNNING");

    // its allocation
    let mut resp = std::ptr::null_mut();
    // SAFETY: resp writable; the answer freed once.
    unsafe {
        assert_eq!(slurm_allocation_lookup(a, &mut resp), 0, "errno {}", errno());
        assert_eq!((*resp).job_id, a);
        assert_eq!((*resp).node_cnt, 1);
        assert!(!(*resp).node_list.is_null());
        slurm_free_resource_allocation_response_msg(resp);
    }

    // suspend, resume (root is an operator)
    assert_eq!(slurm_suspend(a), 0, "errno {}", errno());
    c.wait_state(&a.to_string(), "SUSPENDED", T);
    assert_eq!(slurm_resume(a), 0, "errno {}", errno());
    c.wait_state(&a.to_string(), "RUNNING", T);

    // another user's view of root's job: refused
    let exe = std::env::current_exe().unwrap();
    let o = std::process::Command::new("runuser")
        .args(["-u", slurm_tests::TEST_USER, "--", "env"])
        .arg(format!("SLURM_CONF={}", c.conf.display()))
        .arg(format!("SPUR_COMPAT_OTHERS_JOB={}", a))
        .arg(&exe)
        .args(["--exact", "as_other_user", "--nocapture", "--test-threads=1"])
        .current_dir(&c.work)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{}\n{}", out, String::from_utf8_lossy(&o.stderr));
    // signals, requeue and lookup: ESLURM_ACCESS_DENIED; an update of
    // another user's job is slurmctld's "Invalid user id" (ESLURM_USER_ID_MISSING)
    for (op, code) in [("KILL", 2002), ("UPDATE", 2010), ("HOLD", 2010), ("REQUEUE", 2002), ("LOOKUP", 2002)] {
        assert!(out.contains(&format!("{} -1 {}\n", op, code)), "{}: {}", op, out);
    }
    assert_eq!(c.state(&a.to_string()), "RUNNING");

    // requeue: back to pending for its next run (which waits a while, as
    // slurmctld delays a requeued job's start)
    assert_eq!(slurm_requeue(a, 0), 0, "errno {}", errno());
    c.wait_state(&a.to_string(), "PENDING", T);
    assert!(show(&c, a).contains("Restarts=1"), "{}", show(&c, a));

    // cancel; then it has ended (a pending job: no signal, the step is not there)
    assert_eq!(slurm_signal_job(a, libc::SIGUSR1 as u16), -1);
    assert_eq!(errno(), 2024);
    assert_eq!(slurm_kill_job(a, 9, 0), 0, "errno {}", errno());
    c.wait_state(&a.to_string(), "CANCELLED", T);
    assert_eq!(slurm_kill_job(a, 9, 0), -1);
    assert_eq!(errno(), 2021);
    assert_eq!(slurm_signal_job(a, libc::SIGUSR1 as u16), -1);
    assert_eq!(errno(), 2021);

    // an unknown job
    assert_eq!(slurm_kill_job(999_999, 9, 0), -1);
    assert_eq!(errno(), 2017);
    assert_eq!(slurm_suspend(999_999), -1);
    assert_eq!(errno(), 2017);
    assert_eq!(update(999_999, |d| d.time_limit = 3), (-1, 2017));
    assert_eq!(slurm_requeue(999_999, 0), -1);
    assert_eq!(errno(), 2017);

    // a pending job (begins in an hour): hold, release, update
    let d = desc(&c, "later", "#!/bin/sh\ntrue\n");
    // SAFETY: d is ours; freed once.
    let b = unsafe {
        (*d).begin_time = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 3600)
            as sys::time_t;
        let b = submit(d);
        slurm_free_job_desc_msg(d);
        b
    };
    let reason = |c: &Cluster| c.run("squeue", &["-h", "-j", &b.to_string(), "-o", "%r"]).stdout.trim().to_string();
    // the reason is the scheduler's, set on its first pass after the submit
    slurm_tests::wait_for("Reason=BeginTime", T, || reason(&c) == "BeginTime");
    assert_eq!(update(b, |d| d.priority = 0), (0, 0));
    assert!(show(&c, b).contains("Priority=0"), "{}", show(&c, b));
    assert!(reason(&c).starts_with("JobHeld"), "{}", reason(&c));
    assert_eq!(update(b, |d| d.priority = u32::MAX), (0, 0));
    assert!(!show(&c, b).contains("Priority=0 "), "{}", show(&c, b));
    assert_eq!(
        update(b, |d| {
            d.time_limit = 7;
            d.name = xstrdup("renamed");
            d.comment = xstrdup("from the library");
        }),
        (0, 0)
    );
    let sq = c.run("squeue", &["-h", "-j", &b.to_string(), "-o", "%j %l %T"]).stdout;
    assert_eq!(sq.trim(), "renamed 7:00 PENDING", "{}", sq);
    assert!(show(&c, b).contains("Comment=from the library"), "{}", show(&c, b));
    // a pending job is no allocation yet
    let mut resp = std::ptr::null_mut();
    // SAFETY: resp writable.
    assert_eq!(unsafe { slurm_allocation_lookup(b, &mut resp) }, -1);
    assert_eq!(errno(), 2024);
    assert_eq!(slurm_kill_job(b, 9, 0), 0);
    c.wait_state(&b.to_string(), "CANCELLED", T);

    // an allocation, granted at once, ended with slurm_complete_job
    let d = desc(&c, "alloc", "");
    // SAFETY: d is ours; the answer and d freed once.
    unsafe {
        let r = slurm_allocate_resources_blocking(d, 30, None);
        assert!(!r.is_null(), "errno {}", errno());
        let id = (*r).job_id;
        assert!(!(*r).node_list.is_null() && (*r).node_cnt == 1);
        slurm_free_resource_allocation_response_msg(r);
        slurm_free_job_desc_msg(d);
        assert_eq!(c.state(&id.to_string()), "RUNNING");
        assert_eq!(slurm_complete_job(id, 0), 0, "errno {}", errno());
        c.wait_state(&id.to_string(), "COMPLETED", T);
    }
    // a batch job without a script or environment is refused before the controller
    let d = desc(&c, "noscript", "");
    // SAFETY: d is ours; freed once.
    unsafe {
        let mut resp = std::ptr::null_mut();
        assert_eq!(slurm_submit_batch_job(d, &mut resp), -1);
        assert_eq!(errno(), 2009);
        slurm_free_job_desc_msg(d);
    }
    c.down();
}
