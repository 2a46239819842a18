//! Issue 11: the steps a job has besides its batch script and its sruns, end
//! to end on a two-node cluster with `PrologFlags=Contain` and
//! `LaunchParameters=use_interactive_step`, as the unprivileged test user:
//! the `extern` step every job gets on each of its nodes (a step daemon per
//! node for as long as the job runs, shown by squeue and scontrol, holding
//! none of the job's CPUs), and salloc's shell run as the job's
//! `interactive` step on its first node, under a terminal and from a pipe.
//! Where the machine lets root make cgroup v2 groups, the batch script and
//! the extern step each hold one of their own, removed with the job.
//! `JobAcctGatherParams=OverMemoryKill` (checked every second here) kills a
//! step, or a batch script, whose processes hold more memory than it has.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn extern_and_interactive_steps() {
    let extra = std::env::temp_dir().join(format!("spur-special-steps-{}.conf", std::process::id()));
    std::fs::write(
        &extra,
        "PrologFlags=Contain\nLaunchParameters=use_interactive_step\n\
         JobAcctGatherParams=OverMemoryKill\nJobAcctGatherFrequency=task=1\n",
    )
    .unwrap();
    // (heartbeats every 5 s: an orphaned step is ended at the next one)
    let c = Cluster::up(
        "special",
        2,
        &["--cpus", "2", "--memory", "2000", "--slurmd-timeout", "15", "--extra-conf", &extra.to_string_lossy()],
    );
    let _ = std::fs::remove_file(extra);
    extern_step(&c);
    interactive_step_from_a_pipe(&c);
    interactive_step_under_a_terminal(&c);
    over_memory_kill(&c);
    a_batch_scripts_usage_is_in_its_record(&c);
    an_orphaned_step_is_ended(&c);
    the_batch_shell_alone_gets_its_warning(&c);
    an_ended_steps_record(&c);
    the_owner_lists_its_batch_steps_pids(&c);
    let log = c.ctld_log();
    assert!(!log.contains("panicked"), "{}", log);
}

/// The step daemons of a job's extern step (`step%05u.4294967292` in their
/// command line, one per node).
fn extern_daemons(id: &str) -> Vec<i32> {
    processes_with(&format!("step{:0>5}.4294967292", id))
}

fn extern_step(c: &Cluster) {
    let started = c.work.join("extern-started");
    let release = c.work.join("extern-release");
    let cgroup_line = c.work.join("batch-cgroup");
    let script = format!(
        "grep '^0::' /proc/self/cgroup > {}; touch {}; until [ -e {} ]; do sleep 0.1; done",
        cgroup_line.display(),
        started.display(),
        release.display()
    );
    let id = c.sbatch_as(TEST_USER, &["-N2", "-o", "/dev/null", "--wrap", &script]);
    wait_for("the job to start", T, || started.exists());
    let o = c.run_as(TEST_USER, "squeue", &["-h", "-s", "-j", &id, "-o", "%i %j %N %A %u"]);
    assert_eq!(
        o.stdout,
        format!("{id}.batch batch node1 1 {u}\n{id}.extern extern node[1-2] 2 {u}\n", id = id, u = TEST_USER),
        "{}",
        o.stderr
    );
    let o = c.run_as(TEST_USER, "scontrol", &["show", "step", &format!("{}.extern", id)]);
    assert!(o.stdout.contains("State=RUNNING Partition=debug NodeList=node[1-2]\n"), "{}", o.stdout);
    assert!(
        o.stdout.contains("   Nodes=2 CPUs=0 Tasks=2 Name=extern Network=(null)\n   TRES=(null)\n"),
        "{}",
        o.stdout
    );
    // slurmctld's list order: the extern step first
    let o = c.run("scontrol", &["-o", "show", "steps", &id]);
    let ids: Vec<&str> = o.stdout.lines().filter_map(|l| l.split(' ').next()).collect();
    assert_eq!(ids, [format!("StepId={}.extern", id), format!("StepId={}.batch", id)], "{}", o.stdout);
    // one step daemon on each node, for as long as the job runs
    wait_for("an extern step daemon on each node", T, || extern_daemons(&id).len() == 2);
    // where cgroups can be made, the batch script runs in the batch step's
    // cgroup and each node holds the extern step's
    let root = cgroup2_writable();
    if let Some(root) = &root {
        let line = std::fs::read_to_string(&cgroup_line).unwrap();
        assert_eq!(
            line.trim(),
            format!("0::/spur/{}/job_{}/step_batch", c.cgroup_dir("node1"), id),
            "cgroup2 at {}",
            root.display()
        );
        for n in ["node1", "node2"] {
            let d = root.join(format!("spur/{}/job_{}/step_extern", c.cgroup_dir(n), id));
            wait_for("the extern step's cgroup", T, || d.join("cgroup.procs").exists());
        }
    }
    // it holds none of the job's CPUs: a step of the whole allocation runs at once
    let o = c.run_as(TEST_USER, "srun", &["--jobid", &id, "-N2", "-l", "hostname"]);
    assert_eq!((o.code, o.stdout.lines().count()), (0, 2), "{}", o.stderr);
    // it is no step scancel takes (squeue -s reads `J.extern` as step 0)
    let o = c.run_as(TEST_USER, "scancel", &[&format!("{}.extern", id)]);
    assert_eq!((o.stderr.as_str(), o.code), (format!("scancel: error: Invalid job id {}.extern\n", id).as_str(), 1));
    assert_eq!(c.run("squeue", &["-h", "-s", &format!("{}.extern", id)]).stdout, "");
    // the job's end ends it on both nodes
    std::fs::write(&release, "").unwrap();
    c.wait_state(&id, "COMPLETED", T);
    wait_for("the extern step daemons to end", T, || extern_daemons(&id).is_empty());
    if let Some(root) = &root {
        // every cgroup of the job is gone with it
        for n in ["node1", "node2"] {
            let d = root.join(format!("spur/{}/job_{}", c.cgroup_dir(n), id));
            wait_for("the job's cgroups to be removed", T, || !d.exists());
        }
    }
    assert_eq!(c.run("squeue", &["-h", "-s", "-j", &id]).stdout, "");
    // srun's own allocation has one too
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n2", "-l", "squeue", "-h", "-s", "-o", "%i %j %N"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let job = o.stdout.lines().next().and_then(|l| l.split(['.', ' ']).nth(1)).unwrap_or_default().to_string();
    let mut lines: Vec<&str> = o.stdout.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            format!("0: {}.0 squeue node[1-2]", job),
            format!("0: {}.extern extern node[1-2]", job),
            format!("1: {}.0 squeue node[1-2]", job),
            format!("1: {}.extern extern node[1-2]", job),
        ],
        "{}",
        o.stdout
    );
}

/// salloc without a command and its shell's input from a pipe: srun says
/// it has no terminal and runs the shell as the interactive step anyway.
fn interactive_step_from_a_pipe(c: &Cluster) {
    let input =
        "squeue -h -s -o '%i %j %N %A'\necho step=$SLURM_STEP_ID nodes=$SLURM_JOB_NUM_NODES host=$SLURMD_NODENAME\n";
    // (the shell is $SHELL, which run_full sets to the user's login shell)
    let o = c.run_full(Some(TEST_USER), "salloc", &["-N2", "-J", "piped"], Some(input));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let id = o.stderr.lines().find_map(|l| l.strip_prefix("salloc: Granted job allocation ")).unwrap_or_default();
    assert_eq!(
        o.stdout,
        format!(
            "{id}.interactive interactive node1 1\n{id}.extern extern node[1-2] 2\nstep=4294967290 nodes=2 host=node1\n",
            id = id
        ),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains(
            "srun: error: ioctl(TIOCGWINSZ): Inappropriate ioctl for device\n\
             srun: error: Not using a pseudo-terminal, disregarding --pty option\n"
        ),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("salloc: Nodes node[1-2] are ready for job\n"), "{}", o.stderr);
    c.wait_state(id, "COMPLETED", T);
}

/// Under a terminal: the shell is the interactive step's task, on node1,
/// with job control, and a step from it runs on both nodes.
fn interactive_step_under_a_terminal(c: &Cluster) {
    let steps = r#"[["expect", "Granted job allocation", 20], ["sleep", 0.5],
        ["send", "echo step=$SLURM_STEP_ID on=$SLURMD_NODENAME\n"], ["expect", "on=node1", 20],
        ["send", "sleep 445 &\n"], ["send", "jobs\n"], ["expect", "Running", 10], ["send", "kill %1\n"],
        ["send", "srun -l -N2 -n2 --overlap echo from-srun\n"], ["expect", "1: from-srun", 20],
        ["sleep", 0.5], ["send", "exit\n"], ["expect", "Relinquishing job allocation", 20]]"#;
    let out = c.pty(TEST_USER, steps, "salloc", &["-N2", "-J", "term"]);
    assert!(!out.contains("EXPECT-FAILED"), "{}", out);
    assert!(out.contains("step=4294967290 on=node1"), "{}", out);
    assert!(out.contains("EXIT 0"), "{}", out);
    assert!(!out.contains("disregarding --pty"), "{}", out);
}

/// A program that holds `mb` MiB (written, so resident) for 60 s.
fn hog(mb: u32) -> String {
    format!("python3 -c 'import time; x = b\"1\" * ({} << 20); time.sleep(60)'", mb)
}

/// Over its memory: a step is killed on every node with slurmstepd's line
/// and srun's, a batch script with its own line and the cancel line.
fn over_memory_kill(c: &Cluster) {
    let t0 = std::time::Instant::now();
    let o = c.run_as(TEST_USER, "srun", &["-N1", "--mem=50", "bash", "-c", &hog(200)]);
    assert_eq!(o.code, 137, "{}", o.stderr);
    let line = o.stderr.lines().find(|l| l.contains("exceeded memory limit")).unwrap_or_default().to_string();
    assert!(
        line.starts_with("slurmstepd-node1: error: StepId=") && line.ends_with(" > 52428800), being killed"),
        "{}",
        o.stderr
    );
    // (srun made the allocation: it is the one told)
    for want in [
        "srun: Exceeded job memory limit\n",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n",
        "srun: error: node1: task 0: Killed\n",
    ] {
        assert!(o.stderr.contains(want), "{}", o.stderr);
    }
    assert!(t0.elapsed() < Duration::from_secs(50), "killed, not ended: {:?}", t0.elapsed());

    // one node over: the step ends on both
    let script = format!("if [ $SLURM_NODEID = 1 ]; then {}; else sleep 60; fi", hog(200));
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n2", "--mem=50", "-l", "bash", "-c", &script]);
    assert_eq!(o.code, 137, "{}", o.stderr);
    assert!(o.stderr.contains("slurmstepd-node2: error: StepId="), "{}", o.stderr);
    assert!(o.stderr.contains("srun: error: node1: task 0: Killed\n"), "{}", o.stderr);
    assert!(o.stderr.contains("srun: error: node2: task 1: Killed\n"), "{}", o.stderr);

    // the batch script
    let out = c.work.join("oom-batch.out");
    let id = c.sbatch_as(TEST_USER, &["--mem=50", "-o", &out.to_string_lossy(), "--wrap", &hog(200)]);
    c.wait_state(&id, "FAILED", Duration::from_secs(50));
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let want = format!("slurmstepd-node1: error: StepId={}.batch exceeded memory limit (", id);
    assert!(text.starts_with(&want) && text.contains(" > 52428800), being killed\n"), "{}", text);
    assert!(text.contains("slurmstepd-node1: error: Exceeded job memory limit\n"), "{}", text);
    assert!(text.contains(&format!("slurmstepd-node1: error: *** JOB {} ON node1 CANCELLED AT ", id)), "{}", text);
    let o = c.run_as(TEST_USER, "scontrol", &["show", "job", &id]);
    assert!(o.stdout.contains("JobState=FAILED Reason=RaisedSignal:9(Killed)"), "{}", o.stdout);
    assert!(o.stdout.contains("ExitCode=0:9"), "{}", o.stdout);
}

/// The batch script's use (its processes sampled as a step's, its own
/// rusage at its end) goes into the job's record with the job's end, and is
/// the `.batch` step's.
fn a_batch_scripts_usage_is_in_its_record(c: &Cluster) {
    let script = "perl -e '$x = \"a\" x (100 * 1024 * 1024); while ((times)[0] < 1) {}'";
    let id = c.sbatch_as(TEST_USER, &["-o", "/dev/null", "--wrap", script]);
    c.wait_state(&id, "COMPLETED", T);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = spur_client::Client::from_conf_path(&c.conf).unwrap();
    let q = spur_core::request::Query { jobs: true, job_ids: vec![id.clone()], ..Default::default() };
    let v = rt.block_on(client.query(&q)).unwrap();
    let job = v.jobs.iter().find(|j| j.job_id.to_string() == id).expect("the job");
    let u = job.batch_usage.clone().expect("the batch script's usage");
    assert_eq!((u.node.as_str(), u.ntasks), ("node1", 1), "{:?}", u);
    // 100 MiB held (perl copies the string once more on the way), a second
    // of user CPU time
    assert!(u.max_rss_kb >= 100 * 1024 && u.max_rss_kb < 1024 * 1024, "{:?}", u);
    assert!(u.max_vmsize_kb >= 100 * 1024, "sampled while it ran: {:?}", u);
    assert!(u.user_us >= 1_000_000, "{:?}", u);
    let shown = job.steps_shown();
    let batch = shown.iter().find(|s| s.step_id == spur_core::model::BATCH_STEP);
    assert_eq!(batch.map(|s| s.usage.clone()), Some(vec![u.clone()]), "the batch step's");
}

/// A step daemon of a job the controller does not know as running (here
/// one left behind under an id that is no job's, as a step is left when the
/// controller's leader changes before it ends a job's extern steps, or when
/// the job is purged meanwhile) is ended by its agent once the controller,
/// told of it with the node's heartbeat, names its job as over.
fn an_orphaned_step_is_ended(c: &Cluster) {
    let started = c.work.join("orphan-started");
    let id = c.sbatch_as(
        TEST_USER,
        &["-w", "node1", "-o", "/dev/null", "--wrap", &format!("touch {}; sleep 300", started.display())],
    );
    wait_for("the job to start", T, || started.exists());
    let spool = c.dir.join("spool/slurmd.node1");
    let real = spur_spool::step_dir(&spool, id.parse().unwrap(), spur_core::model::EXTERN_STEP);
    let mut spec = Vec::new();
    wait_for("the extern step's spec", T, || {
        spec = std::fs::read(real.join(spur_spool::SPEC_FILE)).unwrap_or_default();
        !spec.is_empty()
    });
    // the job's extern step daemon, once more, as job 99999's
    let orphan = "99999";
    let mut launch = spur_core::records::decode_step_launch(&spec, &"spec.bin").unwrap();
    launch.job.job_id = orphan.parse().unwrap();
    let dir = spur_spool::step_dir(&spool, launch.job.job_id, spur_core::model::EXTERN_STEP);
    spur_spool::write_step_spec(&dir, &launch).unwrap();
    let mut d = std::process::Command::new(bin_dir().join("spurstepd"))
        .arg("--step")
        .arg(&dir)
        .arg("node1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the orphan to start", T, || extern_daemons(orphan).len() == 1);
    wait_for("the orphan to be ended", T, || extern_daemons(orphan).is_empty());
    let _ = d.wait();
    let log = c.log("spurd-node1.log");
    assert!(log.contains("ending the steps of job 99999, which has ended"), "{}", log);
    // the job itself runs on
    assert_eq!(c.state(&id), "RUNNING");
    assert_eq!(extern_daemons(&id).len(), 1);
    assert_eq!(c.run("scancel", &[&id]).code, 0);
    c.wait_state(&id, "CANCELLED", T);
}

/// `sbatch --signal=B:USR1@58` with a one-minute limit: two seconds in, the
/// batch shell gets USR1, and its step does not.
fn the_batch_shell_alone_gets_its_warning(c: &Cluster) {
    let got = c.work.join("bsig-got");
    let out = c.work.join("bsig.out");
    let script = format!(
        "#!/bin/bash\ntrap 'echo shell got USR1; touch {got}' USR1\n\
         srun -n1 bash -c 'trap \"echo step got USR1\" USR1; until [ -e {got} ]; do sleep 0.1; done; echo step done' &\n\
         wait; wait\necho done\n",
        got = got.display()
    );
    let path = c.work.join("bsig.sh");
    std::fs::write(&path, script).unwrap();
    let id = c.sbatch_as(
        TEST_USER,
        &["--signal=B:USR1@58", "-t", "1", "-o", &out.to_string_lossy(), &path.to_string_lossy()],
    );
    c.wait_state(&id, "COMPLETED", T);
    assert_eq!(std::fs::read_to_string(&out).unwrap_or_default(), "shell got USR1\nstep done\ndone\n");
}

/// An ended step keeps its end time and exit status (its tasks' highest)
/// in the job's record, for accounting.
fn an_ended_steps_record(c: &Cluster) {
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n2", "-J", "ended", "bash", "-c", "exit $((SLURM_PROCID + 2))"]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = spur_client::Client::from_conf_path(&c.conf).unwrap();
    let id = c.run("squeue", &["-h", "-t", "all", "-n", "ended", "-o", "%i"]).stdout.trim().to_string();
    let q = spur_core::request::Query { jobs: true, job_ids: vec![id.clone()], ..Default::default() };
    let v = rt.block_on(client.query(&q)).unwrap();
    let job = v.jobs.iter().find(|j| j.job_id.to_string() == id).expect("the job");
    let step = job.done_steps.iter().find(|s| s.step_id == 0).expect("its step 0");
    assert_eq!(step.exit_status, Some(3 << 8), "{:?}", step);
    assert!(step.end_time >= step.start_time && step.start_time > 0, "{:?}", step);
}

/// `scontrol listpids` lists the batch step as a step: the script as its
/// task 0, then what it started.
fn the_owner_lists_its_batch_steps_pids(c: &Cluster) {
    let pidfile = c.work.join("listpids-batch.pid");
    let id = c.sbatch_as(
        TEST_USER,
        &["-w", "node2", "-o", "/dev/null", "--wrap", &format!("echo $$ > {}; sleep 300", pidfile.display())],
    );
    let mut script = String::new();
    wait_for("the script's pid", T, || {
        script = std::fs::read_to_string(&pidfile).unwrap_or_default().trim().to_string();
        !script.is_empty()
    });
    let o = c.run_as(TEST_USER, "scontrol", &["listpids", &id, "node2"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines[0], "PID      JOBID    STEPID   LOCALID GLOBALID", "{}", o.stdout);
    assert!(lines.contains(&format!("{:<8} {:<8} batch    0       0        ", script, id).as_str()), "{}", o.stdout);
    // the sleep it started, as the step's other process
    assert!(lines.iter().any(|l| l.ends_with(" batch    -       -        ")), "{}", o.stdout);
    // another user sees none of it
    let o = c.run_as("nobody", "scontrol", &["listpids", &id, "node2"]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert_eq!(c.run("scancel", &[&id]).code, 0);
    c.wait_state(&id, "CANCELLED", T);
}
