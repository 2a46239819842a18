//! Issue 15, point 4: preemption by partition priority through the real
//! daemons and commands, as Slurm 22.05 did it (crates/spur-sched/tests/
//! preempt-22.05.md). One cluster for the file: two nodes of 8 CPUs,
//! `PreemptType=preempt/partition_prio`, `PreemptMode=REQUEUE`, a partition
//! `low` (PriorityTier=1) and a partition `high` (PriorityTier=10,
//! PreemptMode=OFF) over both nodes, `KillWait=1`.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn a_high_tier_job_requeues_one_low_job_and_cancels_one_that_may_not_be_requeued() {
    let extra = std::env::temp_dir().join(format!("spur-preempt-{}.conf", std::process::id()));
    std::fs::write(
        &extra,
        "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n\
         PartitionName=low Nodes=node[1-2] PriorityTier=1 State=UP\n\
         PartitionName=high Nodes=node[1-2] PriorityTier=10 PreemptMode=OFF State=UP\n",
    )
    .unwrap();
    let c = Cluster::up(
        "preempt",
        2,
        &["--cpus", "8", "--memory", "8000", "--kill-wait", "1", "--extra-conf", &extra.to_string_lossy()],
    );
    let _ = std::fs::remove_file(&extra);
    let script = "echo start; sleep 300";
    let again = c.sbatch(&["-p", "low", "-N1", "-n8", "-o", "again.out", "--open-mode=append", "--wrap", script]);
    let once = c.sbatch(&["-p", "low", "-N1", "-n8", "--no-requeue", "-o", "once.out", "--wrap", script]);
    c.wait_state(&again.to_string(), "RUNNING", T);
    c.wait_state(&once.to_string(), "RUNNING", T);
    let read = |f: &str| std::fs::read_to_string(c.work.join(f)).unwrap_or_default();
    wait_for("both started", T, || read("again.out") == "start\n" && read("once.out") == "start\n");
    // a job of the high partition needs both nodes: both low jobs go
    let high = c.sbatch(&["-p", "high", "-N2", "-n16", "-o", "high.out", "--wrap", "echo high; sleep 300"]);
    c.wait_state(&high.to_string(), "RUNNING", T);
    let show = |id: u32| {
        let o = c.run("scontrol", &["show", "job", &id.to_string()]);
        o.ok();
        o.stdout
    };
    // --no-requeue: it ends PREEMPTED, slurmstepd's line in its output
    c.wait_state(&once.to_string(), "PREEMPTED", T);
    let s = show(once);
    assert_eq!(
        (field(&s, "JobState"), field(&s, "Restarts"), field(&s, "ExitCode"), field(&s, "Reason")),
        ("PREEMPTED".into(), "0".into(), "0:15".into(), "None".into()),
        "{}",
        s
    );
    // the other is requeued: pending again, eligible after the requeue delay
    c.wait_state(&again.to_string(), "PENDING", T);
    let mut s = String::new();
    wait_for("the requeued job's reason", T, || {
        s = show(again);
        field(&s, "Reason") == "BeginTime"
    });
    assert_eq!((field(&s, "Restarts"), field(&s, "Requeue")), ("1".into(), "1".into()), "{}", s);
    for (file, id) in [("once.out", once), ("again.out", again)] {
        let mut text = String::new();
        wait_for("the cancel line", T, || {
            text = read(file);
            text.lines().count() == 2
        });
        let want = format!("start\nslurmstepd-node{}: error: *** JOB {} ON node", 1, id);
        let node_free = text.replacen("node2", "node1", 1);
        assert!(
            node_free.starts_with(&want)
                && text.contains(" CANCELLED AT ")
                && text.ends_with(" DUE TO PREEMPTION ***\n"),
            "{:?}",
            text
        );
    }
    c.run("scancel", &["-u", "root"]).ok();
}
