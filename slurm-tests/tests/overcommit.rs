//! Issue 9, point 0: `sbatch --ntasks=10 --overcommit -N1` on 8-CPU nodes
//! once panicked the scheduler pass (a division by zero); the scheduler task
//! died, every later job stayed pending with reason None, and every new
//! leader died the same way on the job in the log. One cluster for the file:
//! two nodes of 8 CPUs and 16,000 MB, the jobs submitted by the
//! unprivileged test user.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

fn submit(c: &Cluster, args: &[&str]) -> String {
    c.sbatch_as(TEST_USER, args)
}

#[test]
fn more_tasks_than_cpus_with_overcommit_run_and_scheduling_goes_on() {
    let c = Cluster::up("overcommit", 2, &["--cpus", "8", "--memory", "16000"]);
    // as on Slurm 22.05 (four such nodes): it runs on one node, with one CPU
    let id = submit(&c, &["--ntasks=10", "--overcommit", "-N1", "-t1", "--wrap=true"]);
    c.wait_state(&id, "COMPLETED", T);
    let q = c.run("squeue", &["-h", "-t", "all", "-j", &id, "-o", "%D %C %u"]);
    assert_eq!(q.stdout, format!("1 1 {}\n", TEST_USER), "{}", q.stderr);
    // a plain job after it is scheduled too
    let plain = submit(&c, &["--wrap=true"]);
    c.wait_state(&plain, "COMPLETED", T);
    // without --overcommit Slurm refuses it at submission
    let o = c.run_as(TEST_USER, "sbatch", &["--ntasks=10", "-N1", "-t1", "--wrap=true"]);
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (1, "", "sbatch: error: Batch job submission failed: Requested node configuration is not available\n")
    );
    let after = submit(&c, &["--wrap=true"]);
    c.wait_state(&after, "COMPLETED", T);
    let log = c.ctld_log();
    assert!(!log.contains("panicked") && !log.contains("BadConstraints"), "{}", log);
}
