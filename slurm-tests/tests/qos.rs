//! Issue 15, points 2, 4 and 5: QOS records (`sacctmgr add|modify|delete|
//! show qos`), the QOS priority factor, `PreemptType=preempt/qos` and the
//! QOS limits, through the real daemons and commands, as Slurm 22.05
//! answered the same commands (crates/spur-sched/tests/qos.md). One
//! cluster for the file: two nodes of 8 CPUs, accounting on
//! (`AccountingStorageEnforce=limits`), preempt/qos with REQUEUE, and
//! priority/multifactor with `PriorityWeightQOS=1000` only.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn qos_records_priority_preemption_and_limits() {
    ensure_test_user();
    let conf = std::env::temp_dir().join(format!("spur-qos-{}.conf", std::process::id()));
    std::fs::write(
        &conf,
        "AccountingStorageType=accounting_storage/slurmdbd\n\
         AccountingStorageEnforce=associations,limits,qos\n\
         PreemptType=preempt/qos\nPreemptMode=REQUEUE\n\
         PriorityType=priority/multifactor\nPriorityWeightQOS=1000\n",
    )
    .unwrap();
    let c = Cluster::up(
        "qos",
        2,
        &["--cpus", "8", "--memory", "16000", "--compat", "22.05", "--extra-conf", &conf.to_string_lossy()],
    );
    let _ = std::fs::remove_file(&conf);
    let sacctmgr = |args: &[&str]| c.run("sacctmgr", args);

    // a new cluster has `normal`, as slurmdbd makes it
    let o = sacctmgr(&["-P", "show", "qos"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (
            0,
            "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|UsageFactor|GrpTRES|\
             GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|GrpWall|MaxTRES|MaxTRESPerNode|MaxTRESMins|MaxWall|\
             MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRESPA|MaxJobsPA|MaxSubmitPA|MinTRES\n\
             normal|0|00:00:00|||cluster|||1.000000|||||||||||||||||\n"
        )
    );
    // add: the settings echoed as sacctmgr echoes them
    let o = sacctmgr(&[
        "-i",
        "add",
        "qos",
        "high",
        "Priority=100",
        "Preempt=normal",
        "PreemptMode=requeue",
        "GraceTime=10",
    ]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (
            0,
            " Adding QOS(s)\n  high\n Settings\n  Description    = high\n  GraceTime                = 10\n  \
             Preempt                  = normal\n  PreemptMode              = REQUEUE\n  Priority                 = 100\n"
        )
    );
    sacctmgr(&["-i", "create", "qos", "low", "Priority=10"]).ok();
    // under AccountingStorageEnforce=qos a user's jobs may run only in the
    // QOS its association lists (root's: normal until granted more)
    let o = c.run("sbatch", &["--qos=low", "--wrap", "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "sbatch: error: Batch job submission failed: Invalid qos specification\n")
    );
    sacctmgr(&["-i", "modify", "user", "root", "set", "QOS+=high,low"]).ok();
    let o = sacctmgr(&["show", "qos", "format=Name,Priority,Preempt,PreemptMode,GraceTime,UsageFactor,MaxJobsPU"]);
    assert_eq!(
        o.stdout,
        "      Name   Priority    Preempt PreemptMode  GraceTime UsageFactor MaxJobsPU \n\
         ---------- ---------- ---------- ----------- ---------- ----------- --------- \n    \
         normal          0                cluster   00:00:00    1.000000           \n      \
         high        100     normal     requeue   00:00:10    1.000000           \n       \
         low         10                cluster   00:00:00    1.000000           \n"
    );
    // errors, as 22.05 words them
    let o = sacctmgr(&["-i", "add", "qos", "high"]);
    assert_eq!((o.code, o.stdout.as_str()), (1, " Nothing new added.\n"));
    let o = sacctmgr(&["-i", "modify", "qos", "high", "set", "Preempt=nosuch"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "sacctmgr: error: You gave a bad qos 'nosuch'. Valid QOS's are normal,high,low\n")
    );
    let o = sacctmgr(&["-i", "modify", "qos", "high", "set", "Preempt=high"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "sacctmgr: error: QOS Preemption loop detected\n Error with request: QOS Preemption loop detected\n")
    );
    let o = sacctmgr(&["-i", "modify", "qos", "nosuch", "set", "Priority=1"]);
    assert_eq!((o.code, o.stdout.as_str()), (1, " Nothing modified\n"));
    // only an administrator changes them; anyone lists them
    let o = c.run_as(TEST_USER, "sacctmgr", &["-i", "modify", "qos", "high", "set", "Priority=1"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            "sacctmgr: error: Your user doesn't have privilege to perform this action\n \
             Error with request: Access/permission denied\n"
        )
    );
    let o = c.run_as(TEST_USER, "sacctmgr", &["-i", "add", "qos", "nq"]);
    assert_eq!((o.code, o.stderr.as_str()), (1, " Problem adding QOS: Access/permission denied\n"));
    let o = c.run_as(TEST_USER, "sacctmgr", &["-n", "-P", "show", "qos", "format=name,priority"]);
    assert_eq!(o.stdout, "normal|0\nhigh|100\nlow|10\n");
    // without -i the question is asked; no is no
    let o = c.run_stdin("sacctmgr", &["delete", "qos", "low"], "n\n");
    assert_eq!(
        o.stdout,
        " Deleting QOS(s)...\n  low\nWould you like to commit changes? (You have 30 seconds to decide)\n\
         (N/y): \n Changes Discarded\n"
    );

    // a QOS that does not exist
    let o = c.run("sbatch", &["--qos=nosuch", "--wrap", "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "sbatch: error: Batch job submission failed: Invalid qos specification\n")
    );

    // the QOS factor: priority over the highest (normal 0 -> 1, low 100)
    let sleep = "sleep 300";
    let a = c.sbatch(&["-n8", "-o", "a.out", "--wrap", sleep]).to_string();
    c.wait_state(&a, "RUNNING", T);
    let b = c.sbatch(&["-n8", "--wrap", sleep]).to_string();
    c.wait_state(&b, "RUNNING", T);
    let n = c.sbatch(&["-n8", "--wrap", sleep]).to_string();
    let l = c.sbatch(&["-n8", "--qos=low", "--wrap", sleep]).to_string();
    let o = c.run("squeue", &["-h", "-o", "%i %Q %q", "-j", &format!("{n},{l}")]).stdout;
    assert_eq!(o, format!("{l} 100 low\n{n} 1 normal\n"));
    assert_eq!(field(&c.run("scontrol", &["show", "job", &l]).stdout, "QOS"), "low");
    let o = c.run("sprio", &[]).stdout;
    assert_eq!(
        o,
        format!(
            "          JOBID PARTITION   PRIORITY       SITE        QOS\n\
             {n:>15} debug              1          0          0\n\
             {l:>15} debug            100          0        100\n"
        )
    );
    // scontrol update QOS=: a pending job's changes; one that does not
    // exist, or a running job's, is refused as 22.05 refuses it
    c.run("scontrol", &["update", &format!("JobId={n}"), "QOS=low"]).ok();
    assert_eq!(c.run("squeue", &["-h", "-o", "%q", "-j", &n]).stdout, "low\n");
    let o = c.run("scontrol", &["update", &format!("JobId={n}"), "QOS=nosuch"]);
    assert_eq!((o.code, o.stderr.clone()), (1, format!("Invalid qos specification for job {n}\n")));
    let o = c.run("scontrol", &["update", &format!("JobId={a}"), "QOS=low"]);
    assert_eq!((o.code, o.stderr.clone()), (1, format!("Job is no longer pending execution for job {a}\n")));
    c.run("scontrol", &["update", &format!("JobId={n}"), "QOS="]).ok();
    assert_eq!(c.run("squeue", &["-h", "-o", "%q", "-j", &n]).stdout, "normal\n");
    c.run("scancel", &[&n, &l]).ok();

    // within normal's PreemptExemptTime its jobs are not preempted; the
    // high job waits, and their show job says from when they may be
    sacctmgr(&["-i", "modify", "qos", "normal", "set", "PreemptExemptTime=1:00:00"]).ok();
    let h = c.sbatch(&["-n8", "--qos=high", "--wrap", sleep]).to_string();
    wait_for("the high job's reason", T, || c.run("squeue", &["-h", "-o", "%r", "-j", &h]).stdout == "Resources\n");
    assert_eq!((c.state(&a), c.state(&b)), ("RUNNING".into(), "RUNNING".into()));
    let o = c.run("scontrol", &["show", "job", &a]).stdout;
    let at = |k: &str| {
        let v = field(&o, k);
        let out = std::process::Command::new("date").args(["-d", &v, "+%s"]).output().expect("date");
        String::from_utf8_lossy(&out.stdout).trim().parse::<i64>().unwrap_or(0)
    };
    assert_eq!(at("PreemptEligibleTime") - at("StartTime"), 3600, "{o}");
    // preempt/qos: once it may, the high job takes the oldest normal job's
    // CPUs; it is requeued (REQUEUE), and its output says why
    sacctmgr(&["-i", "modify", "qos", "normal", "set", "PreemptExemptTime=0"]).ok();
    c.wait_state(&h, "RUNNING", T);
    let o = c.run("scontrol", &["show", "job", &a]).stdout;
    assert_eq!(
        (field(&o, "JobState"), field(&o, "Reason"), field(&o, "Restarts")),
        ("PENDING".into(), "BeginTime".into(), "1".into())
    );
    assert!(!o.contains("PreemptEligibleTime="), "{o}");
    assert_eq!(c.state(&b), "RUNNING");
    // a started job that may be preempted says from when (its start: no
    // PreemptExemptTime), and that it was not
    let o = c.run("scontrol", &["show", "job", &h]).stdout;
    assert_eq!((field(&o, "PreemptEligibleTime"), field(&o, "PreemptTime")), (field(&o, "StartTime"), "None".into()));
    let line = c.wait_file("a.out", "DUE TO PREEMPTION", T);
    assert!(line.contains(&format!("*** JOB {a} ON ")), "{line}");
    c.run("scancel", &[&a, &b, &h]).ok();
    wait_for("the queue to empty", T, || c.run("squeue", &["-h"]).stdout.is_empty());

    // limits: MaxJobsPerUser holds the second job with its reason; the
    // submit limits and DenyOnLimit refuse at once
    sacctmgr(&["-i", "add", "qos", "lim", "MaxJobsPerUser=1", "MaxSubmitJobsPerUser=2"]).ok();
    // (nor may a user move a pending job to one outside it; an operator may)
    sacctmgr(&["-i", "add", "user", TEST_USER, "Account=root"]).ok();
    let x = c.sbatch_as(TEST_USER, &["--hold", "--wrap", "true"]);
    let o = c.run_as(TEST_USER, "scontrol", &["update", &format!("JobId={x}"), "QOS=lim"]);
    assert_eq!((o.code, o.stderr.clone()), (1, format!("Invalid qos specification for job {x}\n")));
    let o = c.run("scontrol", &["update", &format!("JobId={x}"), "QOS=lim"]);
    assert_eq!((o.code, c.run("squeue", &["-h", "-o", "%q", "-j", &x]).stdout), (0, "lim\n".into()));
    c.run("scancel", &[&x]).ok();
    sacctmgr(&["-i", "modify", "user", "root", "set", "QOS+=lim"]).ok();
    let j1 = c.sbatch(&["--qos=lim", "--wrap", sleep]).to_string();
    let j2 = c.sbatch(&["--qos=lim", "--wrap", sleep]).to_string();
    c.wait_state(&j1, "RUNNING", T);
    wait_for("the limit's reason", T, || {
        c.run("squeue", &["-h", "-o", "%r", "-j", &j2]).stdout.trim() == "QOSMaxJobsPerUserLimit"
    });
    let policy = "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy \
                  (job submit limit, user's size and/or time limits)\n";
    let o = c.run("sbatch", &["--qos=lim", "--wrap", sleep]);
    assert_eq!((o.code, o.stderr.clone()), (1, format!("sbatch: error: QOSMaxSubmitJobPerUserLimit\n{policy}")));
    c.run("scancel", &[&j1, &j2]).ok();
    sacctmgr(&["-i", "modify", "qos", "lim", "set", "MaxWall=1", "Flags=DenyOnLimit"]).ok();
    let o = c.run("sbatch", &["--qos=lim", "-t", "5", "--wrap", sleep]);
    assert_eq!((o.code, o.stderr.clone()), (1, format!("sbatch: error: QOSMaxWallDurationPerJobLimit\n{policy}")));
    sacctmgr(&["-i", "modify", "qos", "lim", "set", "Flags=-1"]).ok();
    let j3 = c.sbatch(&["--qos=lim", "-t", "5", "--wrap", sleep]).to_string();
    wait_for("the MaxWall reason", T, || {
        c.run("squeue", &["-h", "-o", "%r", "-j", &j3]).stdout.trim() == "QOSMaxWallDurationPerJobLimit"
    });
    c.run("scancel", &[&j3]).ok();
    // a QOS goes: its pending jobs wait with InvalidQOS (held or not), and
    // it is no longer one to ask for
    let held = c.sbatch(&["--qos=lim", "-H", "--wrap", "true"]).to_string();
    sacctmgr(&["-i", "delete", "qos", "lim"]).ok();
    wait_for("InvalidQOS", T, || c.run("squeue", &["-h", "-o", "%q %r", "-j", &held]).stdout == "(null) InvalidQOS\n");
    c.run("scontrol", &["release", &held]).ok();
    assert_eq!(field(&c.run("scontrol", &["show", "job", &held]).stdout, "QOS"), "(null)");
    let o = c.run("sbatch", &["--qos=lim", "--wrap", "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "sbatch: error: Batch job submission failed: Invalid qos specification\n")
    );
}
