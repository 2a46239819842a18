//! An update goes through the checks of a submission (issue 9, point 6): a
//! user cannot move a job into a partition whose AllowGroups exclude them,
//! nor give a job (at submission or later) a negative nice, which raises its
//! priority; an operator can. One cluster for the file.

use slurm_tests::{Cluster, TEST_USER};
use std::time::{Duration, Instant};

#[test]
fn updates_are_checked_as_submissions_are() {
    let c = Cluster::up("updchk", 2, &["--cpus", "2"]);
    // a partition for root's group only, read by the controller at its restart
    let conf = std::fs::read_to_string(&c.conf).unwrap();
    std::fs::write(&c.conf, format!("{}\nPartitionName=staff Nodes=node[1-2] AllowGroups=root\n", conf)).unwrap();
    c.kill9(&c.ctld_name());
    c.restart_missing().ok();
    let t0 = Instant::now();
    while !c.run("sinfo", &["-h", "-p", "staff", "-o", "%P"]).stdout.contains("staff") {
        assert!(t0.elapsed() < Duration::from_secs(30), "the staff partition never appeared");
        std::thread::sleep(Duration::from_millis(100));
    }

    // submitting there is refused, as before
    let o = c.run_as(TEST_USER, "sbatch", &["-p", "staff", "--wrap", "true"]);
    assert_ne!(o.code, 0, "{:?}", o);
    assert!(o.stderr.contains("User's group not permitted to use this partition"), "{}", o.stderr);

    // moving a held job there by update is refused the same way, and the job stays put
    let o = c.run_as(TEST_USER, "sbatch", &["--parsable", "--hold", "--wrap", "true"]);
    o.ok();
    let id = o.stdout.trim().to_string();
    let o = c.run_as(TEST_USER, "scontrol", &["update", &format!("JobId={}", id), "Partition=staff"]);
    assert_ne!(o.code, 0, "{:?}", o);
    assert!(o.stderr.contains("User's group not permitted to use this partition"), "{}", o.stderr);
    let part = c.run("squeue", &["-h", "-j", &id, "-o", "%P"]).stdout;
    assert_eq!(part.trim(), "debug", "the job moved: {}", part);
    // root's own job may go there
    let rid = c.sbatch(&["--hold", "--wrap", "true"]);
    c.run("scontrol", &["update", &format!("JobId={}", rid), "Partition=staff"]).ok();
    assert_eq!(c.run("squeue", &["-h", "-j", &rid.to_string(), "-o", "%P"]).stdout.trim(), "staff");

    // a negative nice: refused to the user at submission and by update
    let o = c.run_as(TEST_USER, "sbatch", &["--nice=-100", "--wrap", "true"]);
    assert_ne!(o.code, 0, "{:?}", o);
    assert!(o.stderr.contains("Batch job submission failed: Invalid --nice value"), "{}", o.stderr);
    let o = c.run_as(TEST_USER, "scontrol", &["update", &format!("JobId={}", id), "Nice=-100"]);
    assert_ne!(o.code, 0, "{:?}", o);
    assert!(o.stderr.contains("Access/permission denied"), "{}", o.stderr);
    let show = c.run("scontrol", &["show", "job", &id]).stdout;
    assert!(show.contains(" Nice=0 "), "{}", show);
    // a positive one is the user's to set; a negative one is an operator's
    c.run_as(TEST_USER, "scontrol", &["update", &format!("JobId={}", id), "Nice=10"]).ok();
    assert!(c.run("scontrol", &["show", "job", &id]).stdout.contains(" Nice=10 "));
    c.run("scontrol", &["update", &format!("JobId={}", id), "Nice=-10"]).ok();
    assert!(c.run("scontrol", &["show", "job", &id]).stdout.contains(" Nice=-10 "));
    let o = c.sbatch(&["--hold", "--nice=-5", "--wrap", "true"]);
    assert!(c.run("scontrol", &["show", "job", &o.to_string()]).stdout.contains(" Nice=-5 "));
}
