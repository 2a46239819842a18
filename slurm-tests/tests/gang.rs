//! Issue 15, point 4: `PreemptMode=GANG`, time slicing of jobs that share
//! CPUs, through the real daemons, as Slurm 22.05 did it
//! (crates/spur-sched/tests/oversubscribe.md): four 8-CPU jobs under
//! `OverSubscribe=FORCE:2` on two 8-CPU nodes. Two run and two start
//! suspended, and the pairs swap every `SchedulerTimeSlice` (5 s, Slurm's
//! least). The jobs count into a file, so a stopped job is seen to stop.

use slurm_tests::*;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(30);

#[test]
fn jobs_sharing_cpus_take_turns() {
    let conf = std::env::temp_dir().join(format!("spur-gang-{}.conf", std::process::id()));
    std::fs::write(
        &conf,
        "PreemptMode=GANG\nSchedulerTimeSlice=5\nPartitionName=force Nodes=node[1-2] OverSubscribe=FORCE:2 State=UP\n",
    )
    .unwrap();
    let c = Cluster::up(
        "gang",
        2,
        &["--cpus", "8", "--memory", "16000", "--compat", "22.05", "--extra-conf", &conf.to_string_lossy()],
    );
    let _ = std::fs::remove_file(&conf);
    let count = "while true; do echo x >> count.$SLURM_JOB_ID; sleep 0.1; done";
    let ids: Vec<String> =
        (0..4).map(|_| c.sbatch(&["-p", "force", "-n8", "--mem=1000", "--wrap", count]).to_string()).collect();
    let states = || -> Vec<String> {
        ids.iter().map(|id| c.run("squeue", &["-h", "-o", "%t %N", "-j", id]).stdout.trim().to_string()).collect()
    };
    let first = ["R node1", "R node2", "S node1", "S node2"];
    wait_for("two running, two suspended", T, || states() == first);
    let o = c.run("scontrol", &["show", "job", &ids[2]]);
    assert_eq!(field(&o.stdout, "JobState"), "SUSPENDED");
    // a suspended job's processes are stopped, the running ones go on
    let lines = |id: &str| std::fs::read_to_string(c.work.join(format!("count.{id}"))).unwrap_or_default().len();
    let (run0, sus0) = (lines(&ids[0]), lines(&ids[2]));
    std::thread::sleep(Duration::from_millis(1500));
    if states() == first {
        assert!(lines(&ids[0]) > run0, "the running job counts");
        assert_eq!(lines(&ids[2]), sus0, "the suspended job does not");
    }
    // the slice ends: the pairs swap, and swap back
    let swapped = ["S node1", "S node2", "R node1", "R node2"];
    let t0 = Instant::now();
    wait_for("the swap", T, || states() == swapped);
    wait_for("the swap back", T, || states() == first);
    assert!(t0.elapsed() >= Duration::from_secs(4), "a slice lasted {:?}", t0.elapsed());
    // a job ending makes room: the one suspended beside it resumes at once
    wait_for("the next swap", T, || states() == swapped);
    c.run("scancel", &[&ids[2]]).ok();
    let t1 = Instant::now();
    wait_for("job 1 resumed", T, || states()[0] == "R node1");
    assert!(t1.elapsed() < Duration::from_secs(4), "resumed after {:?}", t1.elapsed());
    let grown = lines(&ids[0]);
    std::thread::sleep(Duration::from_millis(500));
    assert!(lines(&ids[0]) > grown, "the resumed job counts again");
}
