//! Issue 15, point 4: `PreemptMode=SUSPEND,GANG` through the real daemons
//! and commands, as Slurm 22.05 did it (crates/spur-sched/tests/
//! preempt-22.05.md): a job of a higher PriorityTier partition suspends the
//! lower-tier job in its way (its processes stopped, `SUSPENDED`,
//! `Reason=None`), starts at once, and the suspended job runs again when it
//! ends. One cluster for the file: two nodes of 8 CPUs, a partition `low`
//! (PriorityTier=1) and a partition `high` (PriorityTier=10,
//! PreemptMode=OFF) over both; then a partition `graced` (PriorityTier=1,
//! PreemptMode=CANCEL, GraceTime=2): its job preempted runs on for its grace
//! time before it is cancelled (22.05: `PreemptTime=` the choice, `EndTime=`
//! it plus GraceTime, then `PREEMPTED` with slurmstepd's line).

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn a_high_tier_job_suspends_a_low_job_which_resumes_after_it() {
    let extra = std::env::temp_dir().join(format!("spur-preempt-suspend-{}.conf", std::process::id()));
    std::fs::write(
        &extra,
        "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\n\
         PartitionName=low Nodes=node[1-2] PriorityTier=1 State=UP\n\
         PartitionName=high Nodes=node[1-2] PriorityTier=10 PreemptMode=OFF State=UP\n\
         PartitionName=graced Nodes=node[1-2] PriorityTier=1 PreemptMode=CANCEL GraceTime=2 State=UP\n",
    )
    .unwrap();
    let c = Cluster::up("psuspend", 2, &["--cpus", "8", "--memory", "8000", "--extra-conf", &extra.to_string_lossy()]);
    let _ = std::fs::remove_file(&extra);
    let ticks = "while true; do date +%s; sleep 0.2; done";
    let first = c.sbatch(&["-p", "low", "-N1", "-n8", "--mem=2000", "-o", "first.out", "--wrap", ticks]);
    let second = c.sbatch(&["-p", "low", "-N1", "-n8", "--mem=2000", "--wrap", "sleep 300"]);
    c.wait_state(&first.to_string(), "RUNNING", T);
    c.wait_state(&second.to_string(), "RUNNING", T);
    let on = |id: u32| c.run("squeue", &["-h", "-o", "%N", "-j", &id.to_string()]).stdout.trim().to_string();
    assert_eq!(on(first), "node1");
    // an operator suspends the second: that suspension stays
    c.run("scontrol", &["suspend", &second.to_string()]).ok();
    c.wait_state(&second.to_string(), "SUSPENDED", T);
    // the high job takes node1: the first job is suspended, the high one runs
    let high = c.sbatch(&["-p", "high", "-w", "node1", "-N1", "-n4", "--mem=1000", "--wrap", "sleep 3"]);
    c.wait_state(&first.to_string(), "SUSPENDED", T);
    c.wait_state(&high.to_string(), "RUNNING", T);
    let s = c.run("scontrol", &["show", "job", &first.to_string()]).stdout;
    assert_eq!(field(&s, "Reason"), "None", "{s}");
    assert_ne!(field(&s, "SuspendTime"), "None", "{s}");
    // its processes are stopped: no tick while suspended
    let ticks_now = || std::fs::read_to_string(c.work.join("first.out")).unwrap_or_default().lines().count();
    let before = ticks_now();
    std::thread::sleep(Duration::from_millis(1000));
    assert!(ticks_now() <= before + 1, "the suspended job kept running");
    // the high job ends: the first job runs again, ticking
    c.wait_state(&high.to_string(), "COMPLETED", T);
    c.wait_state(&first.to_string(), "RUNNING", T);
    let resumed = ticks_now();
    wait_for("ticks again", T, || ticks_now() > resumed + 2);
    assert_eq!(c.state(&second.to_string()), "SUSPENDED", "an operator's suspension stays");

    // GraceTime: the preempted job runs on for 2 s, then ends PREEMPTED
    c.run("scancel", &["-u", "root"]).ok();
    wait_for("an empty queue", T, || c.run("squeue", &["-h"]).stdout.is_empty());
    let graced = c.sbatch(&["-p", "graced", "-w", "node1", "-n8", "--mem=2000", "-o", "graced.out", "--wrap", ticks]);
    c.wait_state(&graced.to_string(), "RUNNING", T);
    let asked = std::time::Instant::now();
    let high = c.sbatch(&["-p", "high", "-w", "node1", "-n4", "--mem=1000", "--wrap", "sleep 1"]);
    c.wait_state(&graced.to_string(), "PREEMPTED", T);
    // (the grace time runs in whole seconds from the second of the choice,
    // as slurmctld's does: 2 s of it are more than 1 s of the clock)
    assert!(asked.elapsed() >= Duration::from_millis(1000), "ended before its grace time: {:?}", asked.elapsed());
    c.wait_state(&high.to_string(), "COMPLETED", T);
    let out = std::fs::read_to_string(c.work.join("graced.out")).unwrap_or_default();
    assert!(out.contains("DUE TO PREEMPTION ***"), "{out}");
}
