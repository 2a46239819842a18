//! Issue 15, point 1: the backfill scheduler through the real daemons and
//! commands. One cluster for the file: two nodes of 4 CPUs, Slurm's default
//! `SchedulerType=sched/backfill`. A job holding one node blocks a two-node
//! job; a short job starts at once on the other node (it ends before the
//! blocked job can start), a long one waits. `squeue --start` and `scontrol
//! show job` show the plan as slurmctld does (`StartTime=` the running job's
//! end, `SchedNodeList=`), the started one `Scheduler=Backfill`.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// `Key=value` of a `scontrol show job` text.
fn field(text: &str, key: &str) -> String {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{}=", key)))
        .unwrap_or_else(|| panic!("no {} in {}", key, text))
        .to_string()
}

#[test]
fn a_short_job_fills_the_hole_before_a_blocked_job_and_a_long_one_waits() {
    let c = Cluster::up("backfill", 2, &["--cpus", "4", "--memory", "4000"]);
    let sleep = ["--wrap", "sleep 300"];
    let first = c.sbatch(&[&["-N1", "-n4", "--time=10"][..], &sleep].concat());
    c.wait_state(&first.to_string(), "RUNNING", T);
    let wide = c.sbatch(&[&["-N2", "-n2", "--time=10"][..], &sleep].concat());
    let short = c.sbatch(&[&["-n1", "--time=5"][..], &sleep].concat());
    let long = c.sbatch(&[&["-n1", "--time=30"][..], &sleep].concat());
    // the short job starts on the free node: it ends before the wide one can start
    c.wait_state(&short.to_string(), "RUNNING", T);
    let show = |id: u32| {
        let o = c.run("scontrol", &["show", "job", &id.to_string()]);
        o.ok();
        o.stdout
    };
    let s = show(short);
    assert_eq!(field(&s, "Scheduler"), "Backfill", "{}", s);
    let f = show(first);
    assert_eq!(field(&f, "Scheduler"), "Main", "{}", f);
    // the wide job waits for the first job's end, on both nodes
    let mut w = String::new();
    wait_for("the wide job's plan", T, || {
        w = show(wide);
        w.contains("SchedNodeList=")
    });
    assert_eq!(field(&w, "JobState"), "PENDING");
    assert_eq!(field(&w, "Reason"), "Resources");
    assert_eq!(field(&w, "StartTime"), field(&f, "EndTime"), "{}\n{}", w, f);
    let nodes = field(&f, "NodeList");
    assert!(nodes.starts_with("node"), "{}", f);
    assert_eq!(field(&w, "SchedNodeList"), "node[1-2]", "{}", w);
    // the long one would delay it: pending behind it, planned after it
    let l = show(long);
    assert_eq!((field(&l, "JobState").as_str(), field(&l, "Reason").as_str()), ("PENDING", "Priority"), "{}", l);
    assert!(field(&l, "StartTime") > field(&w, "StartTime"), "{}\n{}", l, w);
    // squeue --start: the pending jobs in start order, with their nodes
    let q = c.run("squeue", &["--start", "-h", "-o", "%i %S %Y %r"]);
    q.ok();
    assert_eq!(
        q.stdout,
        format!(
            "{} {} node[1-2] Resources\n{} {} {} Priority\n",
            wide,
            field(&w, "StartTime"),
            long,
            field(&l, "StartTime"),
            field(&l, "SchedNodeList")
        ),
        "{}",
        q.stdout
    );
    c.run("scancel", &[&first.to_string(), &wide.to_string(), &short.to_string(), &long.to_string()]).ok();
}
