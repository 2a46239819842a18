//! Issue 15, point 4: the jobs of a node that fails, as Slurm 22.05
//! handled them (measured: a node's slurmd killed, SlurmdTimeout=10,
//! JobRequeue=1). slurmctld logs "requeue job JobId=N due to failure of
//! node cn02" for each batch job that may be requeued: it goes back to
//! PENDING with `Restarts=1`, eligible 121 s later (`BeginTime`); a
//! `--no-requeue` job ends `NODE_FAIL` with `Reason=NodeDown`. One cluster
//! of two nodes, node2's agent killed.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn the_jobs_of_a_failed_node_are_requeued_or_end_node_fail() {
    let c = Cluster::up("nodefail", 2, &["--slurmd-timeout", "2", "--cpus", "4"]);
    let sleep = "sleep 300";
    let default = c.sbatch(&["-w", "node2", "-n1", "--wrap", sleep]);
    let no = c.sbatch(&["-w", "node2", "-n1", "--no-requeue", "--wrap", sleep]);
    let yes = c.sbatch(&["-w", "node2", "-n1", "--requeue", "--wrap", sleep]);
    // a job across both nodes, its batch script on node1
    let both = c.sbatch(&["-N2", "-n2", "-o", "both.out", "--wrap", "echo begin; sleep 300"]);
    for id in [default, no, yes, both] {
        c.wait_state(&id.to_string(), "RUNNING", T);
    }
    c.wait_file("both.out", "begin", T);
    c.kill9("spurd-node2");
    c.wait_state(&no.to_string(), "NODE_FAIL", T);
    let o = c.run("scontrol", &["show", "job", &no.to_string()]).stdout;
    assert_eq!((field(&o, "Reason"), field(&o, "Restarts")), ("NodeDown".to_string(), "0".to_string()), "{o}");
    for id in [default, yes, both] {
        c.wait_state(&id.to_string(), "PENDING", T);
        let o = c.run("scontrol", &["show", "job", &id.to_string()]).stdout;
        assert_eq!(field(&o, "Restarts"), "1", "{o}");
        assert_eq!(field(&o, "NodeList"), "", "{o}");
        // eligible again after slurmctld's requeue delay
        let submit = field(&o, "SubmitTime");
        let eligible = field(&o, "EligibleTime");
        assert!(eligible > submit, "{o}");
    }
    // the multi-node job's script on the live node was ended with it
    wait_for("the batch script on node1 to end", T, || c.job_processes(both).is_empty());
    let o = c.run("sinfo", &["-h", "-N", "-o", "%N %t"]).stdout;
    assert_eq!(o, "node1 idle\nnode2 down*\n");
}
