//! The accounting calls against a real Spur cluster with accounting on:
//! `slurmdb_connection_get`, `slurmdb_jobs_get` (a batch job with a step
//! of its own), `slurmdb_clusters_get` and `slurmdb_qos_get`, compared with
//! what `sacct -P` prints for the same jobs. Needs root and the built
//! binaries (slurm-tests' harness says so when they are missing).

use spur_compat::sys;
use std::ffi::{c_char, c_void, CStr};
use std::time::{Duration, Instant};

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the library's strings are NUL-terminated xmalloc blocks.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

struct Down(slurm_tests::Cluster);

impl Drop for Down {
    fn drop(&mut self) {
        self.0.down();
    }
}

/// `rc:signal` of a raw wait status, as sacct prints it.
fn exit_text(status: u32) -> String {
    let (rc, sig) = if status & 0x7f != 0 { (0, status & 0x7f) } else { ((status >> 8) & 0xff, 0) };
    format!("{}:{}", rc, sig)
}

fn state_name(s: u32) -> &'static str {
    match s {
        0 => "PENDING",
        1 => "RUNNING",
        3 => "COMPLETED",
        4 => "CANCELLED",
        5 => "FAILED",
        _ => "OTHER",
    }
}

/// The records of `jobs` as `JobIDRaw|JobName|State|ExitCode|AllocCPUS|NNodes|NodeList|User`
/// lines (steps after their job), as sacct -P prints them.
fn rows(jobs: &[u32]) -> String {
    // SAFETY: a condition of this library's, released by destroy_job_cond;
    // the List answered is read and released here.
    unsafe {
        let cond = spur_compat::xmalloc::xnew::<sys::slurmdb_job_cond_t>();
        let mut steps = vec![];
        for &id in jobs {
            let s = spur_compat::xmalloc::xnew::<sys::slurm_selected_step_t>();
            (*s).step_id.job_id = id;
            (*s).step_id.step_id = sys::NO_VAL;
            (*s).step_id.step_het_comp = sys::NO_VAL;
            (*s).array_task_id = sys::NO_VAL;
            (*s).het_job_offset = sys::NO_VAL;
            steps.push(s.cast::<c_void>());
        }
        (*cond).step_list = spur_compat::list::list_from(steps, Some(spur_compat::xmalloc::slurm_xfree_ptr));
        spur_compat::slurmdb::slurmdb_job_cond_def_start_end(cond);
        let mut conn = spur_compat::slurmdb::slurmdb_connection_get(std::ptr::null_mut());
        assert!(!conn.is_null(), "accounting is on: a handle");
        let l = spur_compat::slurmdb::slurmdb_jobs_get(conn, cond);
        assert!(!l.is_null());
        let mut out = String::new();
        for j in spur_compat::list::list_items(l) {
            let j = &*j.cast::<sys::slurmdb_job_rec_t>();
            out.push_str(&format!(
                "{}|{}|{}|{}|{}|{}|{}|{}\n",
                j.jobid,
                text(j.jobname),
                state_name(j.state),
                exit_text(j.exitcode),
                alloc_cpus(j),
                j.alloc_nodes,
                text(j.nodes),
                text(j.user),
            ));
            for s in spur_compat::list::list_items(j.steps) {
                let s = &*s.cast::<sys::slurmdb_step_rec_t>();
                let id = match s.step_id.step_id {
                    sys::SLURM_BATCH_SCRIPT => "batch".to_string(),
                    sys::SLURM_EXTERN_CONT => "extern".to_string(),
                    n => n.to_string(),
                };
                let cpus = spur_compat::strings::slurmdb::slurmdb_find_tres_count_in_string(s.tres_alloc_str, 1);
                out.push_str(&format!(
                    "{}.{}|{}|{}|{}|{}|{}|{}|\n",
                    j.jobid,
                    id,
                    text(s.stepname),
                    state_name(s.state),
                    exit_text(s.exitcode as u32),
                    cpus,
                    s.nnodes,
                    text(s.nodes),
                ));
            }
        }
        spur_compat::list::slurm_list_destroy(l);
        spur_compat::slurmdb::slurmdb_destroy_job_cond(cond.cast());
        assert_eq!(spur_compat::slurmdb::slurmdb_connection_close(&mut conn), 0);
        assert!(conn.is_null());
        out
    }
}

/// CPUs of a job record's allocation (`1=` of its TRES).
///
/// # Safety
/// A live record.
unsafe fn alloc_cpus(j: &sys::slurmdb_job_rec_t) -> u32 {
    // SAFETY: NULL or a NUL-terminated string of the record.
    let n = unsafe { spur_compat::strings::slurmdb::slurmdb_find_tres_count_in_string(j.tres_alloc_str, 1) };
    if n == u64::MAX {
        0
    } else {
        n as u32
    }
}

#[test]
fn accounting_records_as_sacct_shows_them() {
    let release = sys::RELEASE;
    let extra = std::env::temp_dir().join(format!("spur-compat-acct-{}.conf", std::process::id()));
    std::fs::write(&extra, "AccountingStorageType=accounting_storage/slurmdbd\n").unwrap();
    let c = Down(slurm_tests::Cluster::up(
        "compat-acct",
        2,
        &["--compat", release, "--extra-conf", &extra.to_string_lossy()],
    ));
    let _ = std::fs::remove_file(&extra);
    let c = &c.0;
    std::env::set_var("SLURM_CONF", &c.conf);

    let ok = c.sbatch(&["-J", "withstep", "-n", "2", "-o", "/dev/null", "--wrap", "srun -n 2 true"]);
    let failed = c.sbatch(&["-J", "fails", "-o", "/dev/null", "--wrap", "exit 3"]);
    let ids = [ok, failed];
    let fields = "JobIDRaw,JobName,State,ExitCode,AllocCPUS,NNodes,NodeList,User";
    let list = format!("{},{}", ok, failed);
    let t = Instant::now();
    let sacct = loop {
        let o = c.run("sacct", &["-P", "-n", "-j", &list, "-o", fields]);
        let ended = o.stdout.lines().filter(|l| l.contains("COMPLETED") || l.contains("FAILED")).count();
        if o.stdout.contains(&format!("{}.0|", ok)) && ended >= 4 && !o.stdout.contains("RUNNING") {
            break o.stdout;
        }
        assert!(t.elapsed() < Duration::from_secs(60), "the jobs did not end: {}", o.stdout);
        std::thread::sleep(Duration::from_millis(500));
    };
    let ours = rows(&ids);
    eprintln!("slurmdb_jobs_get:\n{}", ours);
    // sacct prints the step rows with no user: the library's lines end in `|`
    assert_eq!(ours, sacct, "slurmdb_jobs_get's records against sacct -P");

    // SAFETY: the Lists answered are read and released here.
    unsafe {
        let l = spur_compat::slurmdb::slurmdb_clusters_get(std::ptr::null_mut(), std::ptr::null_mut());
        let items = spur_compat::list::list_items(l);
        assert_eq!(items.len(), 1);
        let cl = &*items[0].cast::<sys::slurmdb_cluster_rec_t>();
        let want = c.run("scontrol", &["show", "config"]).stdout;
        let name = text(cl.name);
        assert!(want.contains(&format!("ClusterName             = {}", name)), "{}\n{}", name, want);
        assert!(cl.control_port > 0 && cl.rpc_version > 0);
        spur_compat::list::slurm_list_destroy(l);

        let l = spur_compat::slurmdb::slurmdb_qos_get(std::ptr::null_mut(), std::ptr::null_mut());
        let items = spur_compat::list::list_items(l);
        assert_eq!(items.len(), 1);
        let q = &*items[0].cast::<sys::slurmdb_qos_rec_t>();
        assert_eq!((text(q.name).as_str(), q.id), ("normal", 1));
        spur_compat::list::slurm_list_destroy(l);

        // a QOS sacctmgr adds is the library's next record
        c.run("sacctmgr", &["-i", "add", "qos", "high", "Priority=100", "Preempt=normal", "MaxJobsPU=3"]).ok();
        let l = spur_compat::slurmdb::slurmdb_qos_get(std::ptr::null_mut(), std::ptr::null_mut());
        let items = spur_compat::list::list_items(l);
        assert_eq!(items.len(), 2);
        let q = &*items[1].cast::<sys::slurmdb_qos_rec_t>();
        assert_eq!((text(q.name).as_str(), q.id, q.priority, q.max_jobs_pu), ("high", 2, 100, 3));
        assert_eq!(q.grp_jobs, sys::INFINITE);
        assert!(!q.preempt_bitstr.is_null());
        assert_eq!(spur_compat::bitstr::slurm_bit_test(q.preempt_bitstr, 1), 1);
        spur_compat::list::slurm_list_destroy(l);
    }
}
