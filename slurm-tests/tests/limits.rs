//! End-to-end: MaxJobCount. One cluster with `MaxJobCount=5`: Slurm 24.11
//! refuses a job when the records it holds plus the job's own (an array's
//! tasks) reach MaxJobCount (job_mgr.c `job_allocate`, `>=`: at most 4 are
//! held), with `EAGAIN`; sbatch says so once and keeps retrying; `--test-only`
//! (slurm_job_will_run) reports it at once. `MinJobAge=10`: a finished job
//! is purged 10 s after its end, and then no longer counts.

use slurm_tests::*;
use std::process::{Command, Stdio};
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn max_job_count_refuses_submissions_and_keeps_the_acknowledged_jobs() {
    let extra = std::env::temp_dir().join(format!("spur-limits-{}.conf", std::process::id()));
    std::fs::write(&extra, "MaxJobCount=5\nMinJobAge=10\n").unwrap();
    let c = Cluster::up("limits", 1, &["--extra-conf", &extra.to_string_lossy()]);
    let _ = std::fs::remove_file(&extra);
    let show = c.run("scontrol", &["show", "config"]);
    assert!(show.stdout.lines().any(|l| l.starts_with("MaxJobCount ") && l.ends_with("= 5")), "{}", show.stdout);

    // an array counts once per task: 3 of them
    let a = c.sbatch(&["--hold", "--array=1-3", "--wrap", "true"]);
    // two more tasks would reach 5: refused at once by the will-run test
    let o = c.run("sbatch", &["--test-only", "--array=1-2", "--wrap", "true"]);
    assert_eq!((o.code, o.stderr.as_str()), (1, "allocation failure: Resource temporarily unavailable\n"));
    // one more job fits
    let b = c.sbatch(&["--hold", "--wrap", "true"]);
    let b_id = b;

    // full: sbatch says so once and retries (sleeping 1, 2, ... s)
    let err = c.work.join("sbatch.err");
    let mut child = Command::new(c.dir.join("bin").join("sbatch"))
        .args(["--wrap", "true"])
        .env("SLURM_CONF", &c.conf)
        .current_dir(&c.work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("sbatch");
    let line = "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying\n";
    wait_for("sbatch's refusal", T, || std::fs::read_to_string(&err).unwrap_or_default() == line);
    // it is still retrying (the first sleeps alone take 1 + 2 s)
    assert!(child.try_wait().unwrap().is_none(), "sbatch gave up: {}", std::fs::read_to_string(&err).unwrap());
    // a cancelled job counts until it is purged (MinJobAge)
    assert_eq!(c.run("scancel", &[&b.to_string()]).code, 0);
    c.wait_state(&b.to_string(), "CANCELLED", T);
    let o = c.run("sbatch", &["--test-only", "--wrap", "true"]);
    assert_eq!((o.code, o.stderr.as_str()), (1, "allocation failure: Resource temporarily unavailable\n"));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(std::fs::read_to_string(&err).unwrap(), line, "said once");

    // the acknowledged jobs are all there, and nothing else
    let q = c.run("squeue", &["-h", "-t", "all", "-r", "-o", "%i %T"]);
    let mut jobs: Vec<&str> = q.stdout.lines().collect();
    jobs.sort();
    let (a1, a2, a3, b) =
        (format!("{a}_1 PENDING"), format!("{a}_2 PENDING"), format!("{a}_3 PENDING"), format!("{b} CANCELLED"));
    let mut want = vec![a1.as_str(), a2.as_str(), a3.as_str(), b.as_str()];
    want.sort();
    assert_eq!(jobs, want, "{}", q.stderr);

    // MinJobAge after the cancelled job ended: purged, gone from every
    // listing, and its place taken by a new job
    let gone = || c.run("squeue", &["-h", "-t", "all", "-j", &b_id.to_string()]).stdout.is_empty();
    wait_for("the cancelled job's purge", T, gone);
    let o = c.run("scontrol", &["show", "job", &b_id.to_string()]);
    assert_eq!((o.code, o.stderr.as_str()), (1, "slurm_load_jobs error: Invalid job id specified\n"));
    let o = c.run("sbatch", &["--test-only", "--wrap", "true"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
}
