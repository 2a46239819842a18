//! Issue 15, point 1: the backfill scheduler through the real daemons and
//! commands. One cluster for the file: two nodes of 4 CPUs, Slurm's default
//! `SchedulerType=sched/backfill`, a backfill cycle every second
//! (`bf_interval=1`, as scenario A was recorded), accounting on. A job holding one node blocks a two-node
//! job; a short job starts at once on the other node (it ends before the
//! blocked job can start), a long one waits. `squeue --start` and `scontrol
//! show job` show the plan as slurmctld does (`StartTime=` the running job's
//! end, `SchedNodeList=`), the started one `Scheduler=Backfill`.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// A time as Slurm prints it, from `scontrol show job`'s text, in seconds
/// since the epoch (UTC: the cluster's commands run with the test's TZ).
fn secs(t: &str) -> i64 {
    let o = std::process::Command::new("date").args(["-u", "-d", t, "+%s"]).output().unwrap();
    String::from_utf8_lossy(&o.stdout).trim().parse().unwrap_or_else(|_| panic!("a time: {}", t))
}

fn stamp(t: i64) -> String {
    let o = std::process::Command::new("date").args(["-u", "-d", &format!("@{}", t), "+%Y-%m-%dT%H:%M:%S"]).output();
    String::from_utf8_lossy(&o.unwrap().stdout).trim().to_string()
}

#[test]
fn a_short_job_fills_the_hole_before_a_blocked_job_and_a_long_one_waits() {
    // crates/spur-sched/tests/backfill-22.05.md, scenario A, as Slurm 22.05 ran it
    let extra = std::env::temp_dir().join(format!("spur-backfill-{}.conf", std::process::id()));
    std::fs::write(&extra, "SchedulerParameters=bf_interval=1\nAccountingStorageType=accounting_storage/slurmdbd\n")
        .unwrap();
    let c = Cluster::up("backfill", 2, &["--cpus", "4", "--memory", "4000", "--extra-conf", &extra.to_string_lossy()]);
    let _ = std::fs::remove_file(&extra);
    let sleep = ["--wrap", "sleep 300"];
    let first = c.sbatch(&[&["-N1", "-n4", "--time=10"][..], &sleep].concat());
    c.wait_state(&first.to_string(), "RUNNING", T);
    let wide = c.sbatch(&[&["-N2", "-n2", "--time=10"][..], &sleep].concat());
    let short = c.sbatch(&[&["-n1", "--time=5"][..], &sleep].concat());
    let long = c.sbatch(&[&["-n1", "--time=30"][..], &sleep].concat());
    let endless = c.sbatch(&sleep);
    // the short job starts on the free node: it ends before the wide one can start
    c.wait_state(&short.to_string(), "RUNNING", T);
    let show = |id: u32| {
        let o = c.run_env(None, &[("TZ", "UTC")], "scontrol", &["show", "job", &id.to_string()], None);
        o.ok();
        o.stdout
    };
    let s = show(short);
    assert_eq!(field(&s, "Scheduler"), "Backfill", "{}", s);
    let f = show(first);
    assert_eq!(field(&f, "Scheduler"), "Main", "{}", f);
    // recorded in the job (format version 8): sacct's flags say which
    // scheduler started each (recorded/24.11/sacct/063: SchedMain,StartReceived)
    let flags = |id: u32| {
        let o = c.run("sacct", &["-n", "-X", "-P", "-o", "Flags", "-j", &id.to_string()]);
        o.ok();
        o.stdout.trim().to_string()
    };
    assert_eq!(flags(short), "SchedBackfill,StartReceived");
    assert_eq!(flags(first), "SchedMain,StartReceived");
    let first_node = field(&f, "NodeList");
    let other = if first_node == "node1" { "node2" } else { "node1" };
    assert_eq!(field(&s, "NodeList"), other, "{}", s);
    // the wide job waits for the first job's end, on both nodes
    let mut w = String::new();
    wait_for("the plans", T, || {
        w = show(wide);
        w.contains("SchedNodeList=") && show(endless).contains("SchedNodeList=")
    });
    assert_eq!(field(&w, "JobState"), "PENDING");
    assert_eq!(field(&w, "Reason"), "Resources");
    let start = field(&f, "EndTime");
    assert_eq!(field(&w, "StartTime"), start, "{}\n{}", w, f);
    assert_eq!(field(&w, "SchedNodeList"), "node[1-2]", "{}", w);
    // considered by the last backfill cycle (slurmctld's BACKFILL_SCHED,
    // which the library shows as BACKFILL_LAST), at its time
    wait_for("a backfill cycle", T, || {
        w = show(wide);
        field(&w, "Scheduler") == "Backfill:*"
    });
    assert!(secs(&field(&w, "LastSchedEval")) >= secs(&field(&w, "SubmitTime")), "{}", w);
    // the long one and the one without a limit would delay it: pending
    // behind it, planned at its end rounded down to the minute, the long
    // one where there is room now, the other on the first job's node
    let later = stamp((secs(&start) + 600) / 60 * 60);
    for (id, node) in [(long, other), (endless, first_node.as_str())] {
        let l = show(id);
        assert_eq!((field(&l, "JobState").as_str(), field(&l, "Reason").as_str()), ("PENDING", "Priority"), "{}", l);
        assert_eq!((field(&l, "StartTime"), field(&l, "SchedNodeList")), (later.clone(), node.to_string()), "{}", l);
        assert_eq!(field(&l, "Scheduler"), "Backfill:*", "{}", l);
    }
    assert_eq!(field(&show(endless), "EndTime"), "Unknown");
    // squeue --start, as Slurm prints it
    let q = c.run_env(None, &[("TZ", "UTC")], "squeue", &["--start"], None);
    q.ok();
    let row = |id: u32, t: &str, n: u32, sched: &str, why: &str| {
        format!(
            "{:>18} {:>9} {:>8} {:>8} {:>2} {:>19} {:>6} {:<20} {}\n",
            id, "debug", "wrap", "root", "PD", t, n, sched, why
        )
    };
    let want = format!(
        "{:>18} {:>9} {:>8} {:>8} {:>2} {:>19} {:>6} {:<20} {}\n{}{}{}",
        "JOBID",
        "PARTITION",
        "NAME",
        "USER",
        "ST",
        "START_TIME",
        "NODES",
        "SCHEDNODES",
        "NODELIST(REASON)",
        row(wide, &start, 2, "node[1-2]", "(Resources)"),
        row(long, &later, 1, other, "(Priority)"),
        row(endless, &later, 1, &first_node, "(Priority)"),
    );
    assert_eq!(q.stdout, want);
    c.run("scancel", &[&first.to_string(), &wide.to_string(), &short.to_string(), &long.to_string()]).ok();
    c.run("scancel", &[&endless.to_string()]).ok();
}
