//! End-to-end: a local cluster, batch jobs, the everyday commands, identity,
//! and recovery from daemon crashes. Each test brings up its own cluster on
//! its own loopback ports.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn batch_job_runs_shows_in_squeue_and_writes_its_output() {
    let c = Cluster::up("basic", 4, &[]);
    std::fs::write(
        c.work.join("job.sh"),
        "#!/bin/bash\n#SBATCH -J hello\n#SBATCH -o out-%j-%x.txt\necho \"id=$SLURM_JOB_ID name=$SLURM_JOB_NAME nodes=$SLURM_JOB_NODELIST n=$SLURM_NNODES part=$SLURM_JOB_PARTITION host=$SLURMD_NODENAME args=$*\"\nsleep 2\n",
    )
    .unwrap();
    let o = c.run("sbatch", &["job.sh", "a1", "b2"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let id: u32 = o.stdout.trim().strip_prefix("Submitted batch job ").expect(&o.stdout).parse().unwrap();
    c.wait_state(&id.to_string(), "RUNNING", T);
    let q = c.run("squeue", &[]);
    assert_eq!(q.code, 0);
    let lines: Vec<&str> = q.stdout.lines().collect();
    assert_eq!(lines[0], "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)");
    assert!(
        lines.iter().any(|l| l.contains(&format!(" {} ", id))
            && l.contains("   debug    hello     root  R ")
            && l.ends_with("      1 node1")),
        "{}",
        q.stdout
    );
    c.wait_state(&id.to_string(), "COMPLETED", T);
    let out = c.read_work(&format!("out-{}-hello.txt", id));
    assert_eq!(out, format!("id={} name=hello nodes=node1 n=1 part=debug host=node1 args=a1 b2\n", id));
    // default output name and stdin script
    let o = c.run_stdin("sbatch", &["--parsable"], "#!/bin/sh\necho from-stdin\n");
    let id2 = o.stdout.trim().to_string();
    c.wait_state(&id2, "COMPLETED", T);
    assert_eq!(c.read_work(&format!("slurm-{}.out", id2)), "from-stdin\n");
}

#[test]
fn job_runs_as_its_owner_not_root() {
    let c = Cluster::up("owner", 2, &[]);
    let uid = uid_of(TEST_USER);
    let o = c.run_as(
        TEST_USER,
        "sbatch",
        &["--parsable", "-o", "me.out", "--wrap", "id -u; id -g; id -Gn; pwd; echo $USER"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let id = o.stdout.trim().to_string();
    c.wait_state(&id, "COMPLETED", T);
    let out = c.read_work("me.out");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], uid.to_string(), "{}", out);
    assert_eq!(lines[1], uid.to_string());
    assert!(lines[2].contains(TEST_USER));
    assert_eq!(lines[3], c.work.to_string_lossy());
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(c.work.join("me.out")).unwrap();
    assert_eq!(md.uid(), uid, "output file must belong to the job's owner");
    // squeue shows the owner
    let q = c.run("squeue", &["-h", "-t", "all", "-j", &id, "-o", "%u %T"]);
    assert_eq!(q.stdout, format!("{} COMPLETED\n", TEST_USER));
}

#[test]
fn another_users_scancel_is_refused_with_slurms_text() {
    let c = Cluster::up("perm", 2, &[]);
    let id = c.sbatch(&["--wrap", "sleep 60"]);
    c.wait_state(&id.to_string(), "RUNNING", T);
    let o = c.run_as(TEST_USER, "scancel", &[&id.to_string()]);
    assert_eq!(o.stderr, format!("scancel: error: Kill job error on job id {}: Access/permission denied\n", id));
    assert_eq!(o.code, 210);
    assert_eq!(c.state(&id.to_string()), "RUNNING", "the job must survive");
    // the user may cancel their own job
    let o = c.run_as(TEST_USER, "sbatch", &["--parsable", "--wrap", "sleep 60"]);
    let mine = o.stdout.trim().to_string();
    c.wait_state(&mine, "RUNNING", T);
    let o = c.run_as(TEST_USER, "scancel", &[&mine]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    c.wait_state(&mine, "CANCELLED", T);
    // and root may cancel anyone's
    assert_eq!(c.run("scancel", &[&id.to_string()]).code, 0);
    c.wait_state(&id.to_string(), "CANCELLED", T);
}

/// scancel with a filter or a signal checks the ids against the queue first
/// (messages and exit codes as measured on slurm 22.05 here).
#[test]
fn scancel_with_a_signal_or_filter_names_ids_not_in_the_queue() {
    let c = Cluster::up("scverify", 1, &[]);
    let unknown = |args: &[&str], id: &str| {
        let o = c.run("scancel", args);
        assert_eq!(
            o.stderr,
            format!("scancel: error: Kill job error on job id {}: Invalid job id specified\n", id),
            "{:?}",
            args
        );
        assert_eq!(o.code, 1, "{:?}", args);
    };
    for args in
        [&["--signal=USR1", "999999"][..], &["-u", "root", "999999"], &["-b", "999999"], &["-n", "foo", "999999"]]
    {
        unknown(args, "999999");
    }
    // quiet: no message, the same exit code; by id alone: silent success
    let o = c.run("scancel", &["-Q", "-s", "USR1", "999999"]);
    assert_eq!((o.stderr.as_str(), o.code), ("", 1));
    let o = c.run("scancel", &["999999"]);
    assert_eq!((o.stderr.as_str(), o.code), ("", 0));
    // a finished job is no longer in the queue
    let done = c.sbatch(&["--wrap", "true"]).to_string();
    c.wait_state(&done, "COMPLETED", T);
    unknown(&["-s", "USR1", &done], &done);
    // a pending job cannot take a signal
    let held = c.sbatch(&["--hold", "--wrap", "sleep 60"]).to_string();
    let o = c.run("scancel", &["-s", "USR1", &held]);
    assert_eq!(
        o.stderr,
        format!("scancel: error: Kill job error on job id {}: Job can not be altered now, try again later\n", held)
    );
    assert_eq!(o.code, 2020 & 0xff);
    // a good id beside a bad one: the bad one is named, the good one signalled
    // (signalled once its script runs: RUNNING is the controller's word, and
    // a signal that reaches the node before the script starts is lost, a
    // known gap)
    let started = c.work.join("scverify-started");
    let run = c.sbatch(&["--wrap", &format!("touch {}; sleep 60", started.display())]).to_string();
    c.wait_state(&run, "RUNNING", T);
    wait_for("the script to start", T, || started.exists());
    unknown(&["-s", "KILL", &run, "999998"], "999998");
    c.wait_state(&run, "CANCELLED", T);
    assert_eq!(c.state(&held), "PENDING", "a filter path never widens to all jobs");
}

#[test]
fn bad_input_gets_slurms_error_and_changes_nothing() {
    let c = Cluster::up("bad", 4, &[]);
    let cases: &[(&[&str], &str, i32)] = &[
        (&["-p", "nosuch", "--wrap", "true"], "sbatch: error: invalid partition specified: nosuch\nsbatch: error: Batch job submission failed: Invalid partition name specified\n", 1),
        (&["--time=abc", "--wrap", "true"], "sbatch: error: Invalid --time specification\n", 255),
        (&["-N", "10", "--wrap", "true"], "sbatch: error: Batch job submission failed: Requested node configuration is not available\n", 1),
        (&["--bogus-option", "--wrap", "true"], "sbatch: unrecognized option '--bogus-option'\nTry \"sbatch --help\" for more information\n", 255),
        (&["--mem=abc", "--wrap", "true"], "sbatch: error: Invalid --mem specification\n", 255),
        (&["-N", "0", "--wrap", "true"], "sbatch: error: Batch job submission failed: Node count specification invalid\n", 1),
        (&["--dependency=afterok:999999", "--wrap", "true"], "sbatch: error: Batch job submission failed: Job dependency problem\n", 1),
        (&["/nonexistent/job.sh"], "sbatch: error: Unable to open file /nonexistent/job.sh\n", 1),
    ];
    for (args, err, code) in cases {
        let o = c.run("sbatch", args);
        assert_eq!((o.stderr.as_str(), o.code), (*err, *code), "sbatch {:?}", args);
        assert_eq!(o.stdout, "");
    }
    // nothing was created
    let q = c.run("squeue", &["-h", "-t", "all"]);
    assert_eq!(q.stdout, "", "no job may exist after refused submissions");
    let o = c.run("squeue", &["-j", "999999"]);
    assert_eq!((o.stderr.as_str(), o.code), ("slurm_load_jobs error: Invalid job id specified\n", 1));
    // rejections made after slurmctld created the job record use up an id: here
    // -N 10, -N 0 and afterok:999999 (recorded/24.11/job_ids/05-19), so the next
    // accepted job is 4
    let id = c.sbatch(&["--wrap", "true"]);
    assert_eq!(id, 4);
    // what Slurm accepts but cannot start yet waits with Slurm's reason
    let later = c.sbatch(&["--begin=now+1hour", "--wrap", "true"]);
    let start = std::time::Instant::now();
    let mut r = String::new();
    while start.elapsed() < T {
        r = c.run("squeue", &["-h", "-j", &later.to_string(), "-o", "%T %r"]).stdout;
        if r == "PENDING BeginTime\n" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(r, "PENDING BeginTime\n");
}

#[test]
fn bad_slurm_conf_line_is_refused_with_file_and_line() {
    let c = Cluster::up("conf", 1, &["--no-wait"]);
    let text = std::fs::read_to_string(&c.conf).unwrap();
    let bad = c.dir.join("bad.conf");
    std::fs::write(&bad, format!("{}FooBarBaz=1\n", text)).unwrap();
    let line = text.lines().count() + 1;
    let o = std::process::Command::new(bin_dir().join("spurctld")).args(["-D", "-f"]).arg(&bad).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        err,
        format!(
            "spurctld: error: _parse_next_key: Parsing error at unrecognized key: FooBarBaz\nspurctld: error: Parse error in file {} line {}\nspurctld: fatal: Unable to process configuration file\n",
            bad.display(),
            line
        )
    );
    // the commands refuse it the same way
    let o =
        std::process::Command::new(bin_dir().join("spur")).args(["sinfo"]).env("SLURM_CONF", &bad).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr)
        .starts_with("sinfo: error: _parse_next_key: Parsing error at unrecognized key: FooBarBaz\n"));
    // a bad value on a NodeName line names the line, in Slurm's words
    let bad2 = c.dir.join("bad2.conf");
    std::fs::write(&bad2, text.replace("CPUs=2", "CPUs=abc")).unwrap();
    let o = std::process::Command::new(bin_dir().join("spurctld")).args(["-D", "-f"]).arg(&bad2).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with(
            "spurctld: error: CPUs value \"abc\" is not a valid number\nspurctld: error: Parse error in file "
        ),
        "{}",
        err
    );
    assert_eq!(o.status.code(), Some(1));
    // an agent will not start with a bad gres.conf beside a slurm.conf that
    // names GresTypes (slurmd 22.05's and 24.11's words) ...
    let node = "node1";
    let gres = c.dir.join("gres.conf");
    std::fs::write(&gres, "AutoDetect=off\nName=gpu Colour=red\n").unwrap();
    let with_types = c.dir.join("gres-types.conf");
    std::fs::write(&with_types, format!("{}GresTypes=gpu\n", text)).unwrap();
    let o = std::process::Command::new(bin_dir().join("spurd"))
        .args(["-D", "-N", node, "-f"])
        .arg(&with_types)
        .output()
        .unwrap();
    // ... and, as slurmd, does not read it at all without GresTypes (here it
    // then stops at the port the cluster's own node1 holds: once it holds
    // it, since the cluster was started without waiting for its daemons; a
    // second node1 that got the port first would run for good)
    let log = c.dir.join("log").join("spurd-node1.log");
    wait_for("the cluster's node1 to listen", T, || {
        std::fs::read_to_string(&log).unwrap_or_default().contains(" listening on ")
    });
    let o2 = std::process::Command::new(bin_dir().join("spurd"))
        .args(["-D", "-N", node, "-f"])
        .arg(&c.conf)
        .output()
        .unwrap();
    std::fs::remove_file(&gres).unwrap();
    assert!(!String::from_utf8_lossy(&o2.stderr).contains("gres.conf"), "{}", String::from_utf8_lossy(&o2.stderr));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "spurd: error: Parsing error at unrecognized key: Colour\nspurd: error: Parse error in file {0} line 2: \" Colour=red\"\nspurd: fatal: error opening/reading {0}\n",
            gres.display()
        )
    );
}

#[test]
fn controller_kill9_and_restart_loses_nothing() {
    let c = Cluster::up("crash", 2, &[]);
    let done = c.sbatch(&["-o", "done.out", "--wrap", "echo done"]);
    c.wait_state(&done.to_string(), "COMPLETED", T);
    let running = c.sbatch(&["-o", "running.out", "--wrap", "sleep 4; echo finished"]);
    c.wait_state(&running.to_string(), "RUNNING", T);
    let held = c.sbatch(&["--hold", "-J", "held", "--wrap", "true"]);
    let before = c.run("squeue", &["-h", "-t", "all", "-o", "%i %j %T %r"]).stdout;
    c.kill9(&c.ctld_name());
    // while the controller is down, the running job finishes
    wait_for("the running job to end on its node", T, || c.run_ended(running));
    assert_eq!(c.state(&running.to_string()), "", "no controller answers");
    let o = c.restart_missing();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let after = c.run("squeue", &["-h", "-t", "all", "-o", "%i %j %T %r"]).stdout;
    assert!(after.contains(&format!("{} wrap COMPLETED None", done)), "{}\nbefore:\n{}", after, before);
    // `sbatch --hold` is a user hold even for root (recorded/24.11/basic/016: JobHeldUser)
    assert!(after.contains(&format!("{} held PENDING JobHeldUser", held)), "{}", after);
    // the job that ended during the outage is recorded once the agent reports it
    c.wait_state(&running.to_string(), "COMPLETED", T);
    assert_eq!(c.read_work("running.out"), "finished\n");
    // ids never repeat
    let next = c.sbatch(&["--wrap", "true"]);
    assert!(next > held, "{} after {}", next, held);
    // the held job is still held and can be released
    assert_eq!(c.run("scontrol", &["release", &held.to_string()]).code, 0);
    c.wait_state(&held.to_string(), "COMPLETED", T);
}

#[test]
fn array_dependency_hold_release() {
    let c = Cluster::up("array", 4, &[]);
    let a = c.sbatch(&[
        "--array=1-3",
        "-o",
        "arr-%A_%a.out",
        "--wrap",
        "echo task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID count $SLURM_ARRAY_TASK_COUNT",
    ]);
    let dep = c.sbatch(&[&format!("--dependency=afterok:{}", a), "-o", "dep.out", "--wrap", "echo after"]);
    for t in 1..=3 {
        let s = c.wait_file(&format!("arr-{}_{}.out", a, t), "task", T);
        assert_eq!(s, format!("task {} of {} count 3\n", t, a));
    }
    c.wait_state(&dep.to_string(), "COMPLETED", T);
    assert_eq!(c.read_work("dep.out"), "after\n");
    // afternotok on a successful job never runs
    let never = c.sbatch(&[&format!("--dependency=afternotok:{}", dep), "--wrap", "true"]);
    let r = c.run("squeue", &["-h", "-j", &never.to_string(), "-o", "%T %r"]);
    let start = std::time::Instant::now();
    let mut reason = r.stdout.clone();
    while !reason.contains("DependencyNeverSatisfied") && start.elapsed() < T {
        std::thread::sleep(Duration::from_millis(200));
        reason = c.run("squeue", &["-h", "-j", &never.to_string(), "-o", "%T %r"]).stdout;
    }
    assert_eq!(reason, "PENDING DependencyNeverSatisfied\n");
    // hold / release
    let h = c.sbatch(&["--hold", "--wrap", "true"]);
    // `sbatch --hold` is a user hold even for root (recorded/24.11/basic/016: JobHeldUser)
    assert_eq!(c.run("squeue", &["-h", "-j", &h.to_string(), "-o", "%T %r"]).stdout, "PENDING JobHeldUser\n");
    assert_eq!(c.run("scontrol", &["release", &h.to_string()]).code, 0);
    c.wait_state(&h.to_string(), "COMPLETED", T);
}

#[test]
fn sbatch_wait_returns_the_jobs_exit_code() {
    let c = Cluster::up("wait", 1, &[]);
    let o = c.run("sbatch", &["--wait", "-o", "/dev/null", "--wrap", "exit 3"]);
    assert_eq!(o.code, 3, "{} {}", o.stdout, o.stderr);
    assert!(o.stdout.starts_with("Submitted batch job "));
    let id = o.stdout.trim().rsplit(' ').next().unwrap().to_string();
    assert_eq!(c.run("squeue", &["-h", "-t", "all", "-j", &id, "-o", "%T"]).stdout, "FAILED\n");
    let show = c.run("scontrol", &["show", "job", &id]).stdout;
    assert!(show.contains("JobState=FAILED Reason=NonZeroExitCode"), "{}", show);
    assert!(show.contains(" ExitCode=3:0"), "{}", show);
}

#[test]
fn scancel_reaches_the_whole_process_tree() {
    let c = Cluster::up("tree", 2, &[]);
    let marker = format!("spur-tree-{}", std::process::id());
    let id = c.sbatch(&[
        "-o",
        "tree.out",
        "--wrap",
        &format!("bash -c 'exec -a {m} sleep 300' & bash -c 'exec -a {m} sleep 301' & echo started; wait", m = marker),
    ]);
    c.wait_file("tree.out", "started", T);
    let count = || {
        std::process::Command::new("pgrep")
            .args(["-f", &marker])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).lines().count())
            .unwrap_or(0)
    };
    let start = std::time::Instant::now();
    while count() < 2 && start.elapsed() < T {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(count(), 2);
    assert_eq!(c.run("scancel", &[&id.to_string()]).code, 0);
    c.wait_state(&id.to_string(), "CANCELLED", T);
    let start = std::time::Instant::now();
    while count() > 0 && start.elapsed() < T {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(count(), 0, "every process of the job must be gone");

    // cancelled at once, while its launch may still be on the way to the
    // agent (two-node jobs: their start takes long enough to lose the race): the termination must not be lost (the run, landing after it, is
    // ended at once). Before, one job in a few dozen stayed COMPLETING with its
    // script running until the controller repeated the termination, KillWait
    // + 15 s later; here that is 45 s, longer than the wait below.
    let quick = format!("spur-quick-{}", std::process::id());
    let ids: Vec<String> = (0..60)
        .map(|_| {
            let id = c
                .sbatch(&["-N2", "-o", "/dev/null", "--wrap", &format!("exec bash -c 'exec -a {} sleep 300'", quick)])
                .to_string();
            assert_eq!(c.run("scancel", &[&id]).code, 0);
            id
        })
        .collect();
    slurm_tests::wait_for("the quickly cancelled jobs' end", Duration::from_secs(20), || {
        ids.iter().all(|id| c.state(id) == "CANCELLED")
    });
    let left = std::process::Command::new("pgrep").args(["-f", &quick]).output().unwrap();
    assert!(left.stdout.is_empty(), "{}", String::from_utf8_lossy(&left.stdout));
}

/// `spur cluster down` ends the jobs of the cluster it stops, with their
/// supervisors: no process is left that belongs to the cluster.
#[test]
fn cluster_down_ends_the_running_jobs() {
    let c = Cluster::up("downjobs", 2, &[]);
    let marker = format!("spur-down-{}", std::process::id());
    let job = format!("bash -c 'exec -a {m} sleep 300' & echo started; wait", m = marker);
    for i in 0..3 {
        let out = format!("down{}.out", i);
        c.sbatch(&["-o", &out, "--wrap", &job]);
        c.wait_file(&out, "started", T);
    }
    wait_for("the jobs' sleeps", T, || processes_with(&marker).len() == 3);
    let dir = c.dir.to_string_lossy().to_string();
    assert!(!processes_with(&dir).is_empty());
    let o = c.down();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let sleeps = processes_with(&marker);
    // daemons, supervisors and job scripts all name the cluster's directory
    let left = processes_with(&dir);
    for p in sleeps.iter().chain(&left) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(*p), nix::sys::signal::Signal::SIGKILL);
    }
    assert_eq!(sleeps, Vec::<i32>::new(), "the jobs' processes outlived `spur cluster down`");
    assert_eq!(left, Vec::<i32>::new(), "processes of the cluster outlived `spur cluster down`");
}

#[test]
fn running_job_survives_an_agent_restart() {
    let c = Cluster::up("agent", 1, &[]);
    let id = c.sbatch(&["-o", "survive.out", "--wrap", "echo begin; sleep 3; echo end"]);
    c.wait_file("survive.out", "begin", T);
    c.kill9("spurd-node1");
    assert!(!c.job_processes(id).is_empty() && !c.run_ended(id), "the job runs on without its agent");
    assert_eq!(c.restart_missing().code, 0);
    c.wait_state(&id.to_string(), "COMPLETED", T);
    assert_eq!(c.read_work("survive.out"), "begin\nend\n");
}

#[test]
fn silent_node_goes_down_with_slurms_reason() {
    let c = Cluster::up("down", 2, &["--slurmd-timeout", "2"]);
    c.kill9("spurd-node2");
    let start = std::time::Instant::now();
    let mut s = String::new();
    while start.elapsed() < T {
        s = c.run("sinfo", &["-h", "-N", "-o", "%N %t"]).stdout;
        if s.contains("node2 down*") {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(s, "node1 idle\nnode2 down*\n");
    let show = c.run("scontrol", &["show", "node", "node2"]).stdout;
    assert!(show.contains("Reason=Not responding"), "{}", show);
    // work goes to the live node
    let id = c.sbatch(&["-N", "1", "--wrap", "true"]);
    c.wait_state(&id.to_string(), "COMPLETED", T);
    // and the node comes back when its agent does
    assert_eq!(c.restart_missing().code, 0);
    assert_eq!(c.run("sinfo", &["-h", "-N", "-o", "%N %t"]).stdout, "node1 idle\nnode2 idle\n");
}

#[test]
fn time_limit_ends_the_job_as_timeout() {
    let c = Cluster::up("tlimit", 1, &["--kill-wait", "1"]);
    let id = c.sbatch(&[
        "--time=1",
        "-o",
        "tl.out",
        "--wrap",
        "trap 'echo got TERM' TERM; echo start; while true; do sleep 0.2; done",
    ]);
    c.wait_state(&id.to_string(), "RUNNING", T);
    c.wait_state(&id.to_string(), "TIMEOUT", Duration::from_secs(90));
    let out = c.read_work("tl.out");
    assert!(out.starts_with("start\n"), "{}", out);
    assert!(out.contains("got TERM"), "the job gets SIGTERM before SIGKILL: {}", out);
    // slurmstepd's line, written by the step daemon through its descriptor
    let line = format!("slurmstepd-node1: error: *** JOB {} ON node1 CANCELLED AT ", id);
    assert!(
        out.lines().any(|l| l.starts_with(&line) && l.ends_with(" DUE TO TIME LIMIT ***")),
        "the time-limit line: {}",
        out
    );
}

#[test]
fn suspend_stops_the_job_and_requeue_runs_it_again() {
    let c = Cluster::up("suspend", 1, &[]);
    let id = c.sbatch(&[
        "-o",
        "tick.out",
        "--wrap",
        "echo run $SLURM_RESTART_COUNT; while true; do echo x; sleep 0.1; done",
    ]);
    let ids = id.to_string();
    c.wait_file("tick.out", "x", T);
    let lines = || c.read_work("tick.out").lines().count();
    assert_eq!(c.run("scontrol", &["suspend", &ids]).code, 0);
    assert_eq!(c.state(&ids), "SUSPENDED");
    // every process of the job is stopped (SIGSTOP: state T)
    wait_for("the suspended job's processes to stop", T, || {
        let p = c.job_processes(id);
        !p.is_empty() && p.iter().all(|&p| proc_state(p) == Some('T'))
    });
    let a = lines();
    // users may not suspend or resume; resuming a running job is refused
    let o = c.run_as(TEST_USER, "scontrol", &["resume", &ids]);
    assert_eq!((o.code, o.stderr.as_str()), (1, format!("Access/permission denied for job {}\n", id).as_str()));
    assert_eq!(lines(), a, "a suspended job writes nothing");
    assert_eq!(c.run("scontrol", &["resume", &ids]).code, 0);
    wait_for("the resumed job to write again", T, || lines() > a);
    assert!(c.job_processes(id).iter().all(|&p| proc_state(p) != Some('T')), "a resumed job's processes run");
    let o = c.run("scontrol", &["resume", &ids]);
    assert_eq!((o.code, o.stderr.as_str()), (1, format!("Job is not suspended for job {}\n", id).as_str()));
    // requeue: pending again, its restart counted, the old run ended; it may
    // start again at once once its begin time is moved
    assert_eq!(c.run("scontrol", &["requeue", &ids]).code, 0);
    let show = c.run("scontrol", &["show", "job", &ids]).stdout;
    // (reason None until the scheduler looks at it again, then BeginTime: the
    // requeued job may start only after its new begin time)
    assert!(
        (show.contains("JobState=PENDING Reason=None ") || show.contains("JobState=PENDING Reason=BeginTime "))
            && show.contains(" Restarts=1 "),
        "{}",
        show
    );
    assert_eq!(c.run("scontrol", &["update", &format!("JobId={}", id), "StartTime=now"]).code, 0);
    c.wait_state(&ids, "RUNNING", T);
    c.wait_file("tick.out", "run 1", T);
    assert_eq!(c.run("scancel", &[&ids]).code, 0);
    c.wait_state(&ids, "CANCELLED", T);
}

#[test]
fn compat_22_05_cluster_behaves_like_slurm_22_05() {
    // `--compat 22.05` starts the daemons with SPUR_SLURM_COMPAT=22.05; the
    // commands get it from the environment, as `cluster up` prints it
    let c = Cluster::up("compat", 2, &["--compat", "22.05"]);
    let run = |prog: &str, args: &[&str]| -> String {
        let o = std::process::Command::new(c.dir.join("bin").join(prog))
            .args(args)
            .env("SLURM_CONF", &c.conf)
            .env("SPUR_SLURM_COMPAT", "22.05")
            .current_dir(&c.work)
            .output()
            .expect("run");
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    assert_eq!(run("sbatch", &["-V"]), "slurm-wlm 22.05.8\n");
    let id = run("sbatch", &["--parsable", "--wrap", "sleep 30"]).trim().to_string();
    c.wait_state(&id, "RUNNING", T);
    let job = run("scontrol", &["show", "job", &id]);
    // priority/basic (22.05's default PriorityType), one TRES line, a Power line
    assert!(job.contains("   Priority=4294901759 Nice=0"), "{}", job);
    assert!(job.contains("\n   TRES=cpu=1,") && !job.contains("ReqTRES="), "{}", job);
    assert!(job.contains("\n   Power=\n"), "{}", job);
    assert!(run("scontrol", &["show", "node", "node1"]).contains(" Version=22.05.8\n"));
    // every command reading this slurm.conf follows the cluster's release (the
    // file spur-compat beside it), with no variable set; the variable, when
    // set, wins
    assert!(c.run("scontrol", &["show", "job", &id]).stdout.contains("\n   TRES=cpu=1,"));
    let o = std::process::Command::new(c.dir.join("bin").join("scontrol"))
        .args(["show", "job", &id])
        .env("SLURM_CONF", &c.conf)
        .env("SPUR_SLURM_COMPAT", "24.11")
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&o.stdout).contains("   ReqTRES=cpu=1,"));
    c.run("scancel", &[&id]);
}

/// Spur's own programs say which Spur they are and which Slurm release
/// their commands imitate (`--compat 22.05`: the variable the commands
/// follow too).
#[test]
fn spurs_programs_print_their_version_and_the_slurm_release() {
    for prog in ["spur", "spurctld", "spurd", "spurstepd"] {
        for (env, release) in [("24.11", "24.11.5"), ("22.05", "22.05.8")] {
            let o = std::process::Command::new(bin_dir().join(prog))
                .arg("--version")
                .env("SPUR_SLURM_COMPAT", env)
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&o.stdout),
                format!("spur {} (Slurm {})\n", env!("CARGO_PKG_VERSION"), release),
                "{prog}"
            );
        }
    }
}
