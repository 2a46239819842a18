//! Issue 11: srun, salloc and job steps, end to end. One cluster for the
//! file (four nodes of two CPUs, `TreeWidth=2` so that a four-node step goes
//! through the launch tree), everything run as the unprivileged test user
//! unless said otherwise. Each point of the issue has its section:
//! steps in the state machine (squeue -s, scontrol show step, scancel of a
//! step, a busy allocation), srun (alone, in sbatch, in salloc; options),
//! salloc, the step daemon (an agent restart while a step runs, a cancelled
//! step leaves no process), I/O and signals (stdin, --input, --label,
//! output files, Ctrl-C under a terminal), exit codes and messages, the
//! task environment, and the tree.

use slurm_tests::*;
use std::collections::BTreeSet;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

fn cluster() -> Cluster {
    let extra = std::env::temp_dir().join(format!("spur-steps-extra-{}.conf", std::process::id()));
    std::fs::write(&extra, "TreeWidth=2\n").unwrap();
    let c = Cluster::up("steps", 4, &["--cpus", "2", "--memory", "2000", "--extra-conf", &extra.to_string_lossy()]);
    let _ = std::fs::remove_file(extra);
    c
}

fn lines(s: &str) -> BTreeSet<String> {
    s.lines().map(String::from).collect()
}

fn set(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The job srun or salloc made, by its name.
fn job_named(c: &Cluster, name: &str) -> String {
    let o = c.run("squeue", &["-h", "-t", "all", "-n", name, "-o", "%i"]);
    o.stdout.lines().last().unwrap_or_default().trim().to_string()
}

#[test]
fn srun_salloc_and_steps() {
    let c = cluster();
    srun_alone(&c);
    exit_codes_and_messages(&c);
    io_and_files(&c);
    task_prologs_and_epilogs(&c);
    propagated_limits_and_umask(&c);
    warning_signal_before_the_time_limit(&c);
    node_list_from_a_file(&c);
    tasks_laid_out_by_a_host_file(&c);
    a_step_without_an_allocation(&c);
    srun_in_sbatch(&c);
    salloc_runs_a_command(&c);
    steps_share_an_allocation(&c);
    cpus_per_task_gives_a_step_its_cpus_only(&c);
    a_step_survives_an_agent_restart(&c);
    a_step_whose_srun_is_killed_ends(&c);
    interrupts_under_a_terminal(&c);
    srun_pty_gives_task_0_a_terminal(&c);
    salloc_drives_an_interactive_shell(&c);
    a_cancelled_step_takes_its_escaped_daemons(&c);
    a_steps_usage_is_in_its_record(&c);
    the_owner_lists_its_steps_pids(&c);
    let log = c.ctld_log();
    assert!(!log.contains("panicked"), "{}", log);
}

/// srun outside an allocation: its own job, across the launch tree.
fn srun_alone(c: &Cluster) {
    let o = c.run_as(TEST_USER, "srun", &["-N4", "-n8", "-l", "-J", "alone", "printenv", "SLURM_PROCID"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let want: Vec<String> = (0..8).map(|t| format!("{}: {}", t, t)).collect();
    assert_eq!(lines(&o.stdout), want.iter().map(|s| s.as_str()).map(String::from).collect());
    assert_eq!(o.stderr, "");
    // the job srun made is over, COMPLETED, its own
    let id = job_named(c, "alone");
    assert_eq!(c.state(&id), "COMPLETED");
    let q = c.run("squeue", &["-h", "-t", "all", "-j", &id, "-o", "%u %D"]);
    assert_eq!(q.stdout, format!("{} 4\n", TEST_USER));
    // the tasks are the user's, on each node as the layout says
    let o = c.run_as(
        TEST_USER,
        "srun",
        &[
            "-N2",
            "-n4",
            "-m",
            "cyclic",
            "sh",
            "-c",
            "echo $SLURM_PROCID $SLURMD_NODENAME $(id -un) $SLURM_STEP_NUM_TASKS $SLURM_STEP_TASKS_PER_NODE",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let u = TEST_USER;
    let want: Vec<String> = vec![
        format!("0 node1 {} 4 2(x2)", u),
        format!("1 node2 {} 4 2(x2)", u),
        format!("2 node1 {} 4 2(x2)", u),
        format!("3 node2 {} 4 2(x2)", u),
    ];
    assert_eq!(lines(&o.stdout), want.into_iter().collect());
    // no command
    let o = c.run_as(TEST_USER, "srun", &["-n1"]);
    assert_eq!((o.code, o.stderr.as_str()), (1, "srun: fatal: No command given to execute.\n"));
    // another user's allocation
    let held = c.sbatch(&["-N1", "--wrap", "sleep 300"]);
    c.wait_state(&held.to_string(), "RUNNING", T);
    let o = c.run_as(TEST_USER, "srun", &[&format!("--jobid={}", held), "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, format!("srun: error: Unable to create step for job {}: Access/permission denied\n", held).as_str())
    );
    c.run("scancel", &[&held.to_string()]).ok();
    // (its node free again before the next step's placement: with node1
    // still held, -N2 -n4 would take node2 and node3, as cons_tres would)
    c.wait_state(&held.to_string(), "CANCELLED", T);
    let o = c.run_as(TEST_USER, "srun", &["--jobid=999999", "true"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.starts_with("srun: error: Unable to confirm allocation for job 999999: Invalid job id specified\n"),
        "{}",
        o.stderr
    );
}

/// An executable script in the work dir.
fn script(c: &Cluster, name: &str, text: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = c.work.join(name);
    std::fs::write(&p, text).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

/// A shell command line as the test user, in the work dir.
fn sh_as(c: &Cluster, cmd: &str) -> Out {
    c.run_as(TEST_USER, "/bin/sh", &["-c", cmd])
}

/// --task-prolog and --task-epilog, run as the user around each task
/// (recorded/24.11/srun_stepopts/02-11).
fn task_prologs_and_epilogs(c: &Cluster) {
    let tp = script(
        c,
        "tp.sh",
        "#!/bin/sh\necho \"export TP_VAR=p$SLURM_PROCID\"\necho 'export  SPACED =a b'\necho 'unset UNSET_ME'\n\
         echo \"print hello $SLURM_PROCID $(id -un) ctx=$SLURM_SCRIPT_CONTEXT\"\necho 'junk'\necho 'to stderr' >&2\n",
    );
    let o = sh_as(
        c,
        &format!(
            "UNSET_ME=x srun -n2 -l --task-prolog={} sh -c 'echo \"$TP_VAR [$SPACED] ${{UNSET_ME-unset}} $SLURM_SCRIPT_CONTEXT\"'",
            tp
        ),
    );
    assert_eq!((o.code, o.stderr.as_str()), (0, ""));
    let want = [
        "0: hello 0 spurtest ctx=prolog_task",
        "1: hello 1 spurtest ctx=prolog_task",
        "0: p0 [a b] unset prolog_task",
        "1: p1 [a b] unset prolog_task",
    ];
    assert_eq!(lines(&o.stdout), set(&want));
    // a failing prolog: its status is the task's, after its `print` lines
    let fail = script(c, "tpfail.sh", "#!/bin/sh\necho 'print before failing'\nexit 3\n");
    let o = c.run_as(TEST_USER, "srun", &["-n1", "-w", "node1", &format!("--task-prolog={}", fail), "echo", "not"]);
    assert_eq!((o.code, o.stdout.as_str()), (3, "before failing\n"));
    assert_eq!(
        lines(&o.stderr),
        set(&[
            "slurmstepd-node1: error: --task-prolog failed status=3",
            "srun: error: node1: task 0: Exited with exit code 3"
        ])
    );
    // a prolog is run only by its full path
    let o = c.run_as(TEST_USER, "srun", &["-n1", "-w", "node1", "-l", "--task-prolog=tp.sh", "true"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains(
            "0: slurmstepd-node1: error: run_command: user task_prolog is not a fully qualified pathname (tp.sh)\n\
             0: slurmstepd-node1: error: user task_prolog did not exit normally. reason: Run command failed - \
             configuration error\n0: slurmstepd-node1: error: --task-prolog failed status=1\n"
        ),
        "{}",
        o.stderr
    );
    // the epilog: the task's environment without the prolog's changes; its
    // stderr and slurmstepd's line on the node's first task's stream
    script(
        c,
        "te.sh",
        "#!/bin/sh\necho \"$SLURM_SCRIPT_CONTEXT $SLURM_PROCID ${TP_VAR-none} $SLURMD_NODENAME $(id -un)\" > epi.$SLURM_PROCID\n\
         echo 'epilog stdout'\necho 'epilog stderr' >&2\nexit 4\n",
    );
    let o = c.run_as(
        TEST_USER,
        "srun",
        &[
            "-n3",
            "-w",
            "node[1-2]",
            "-m",
            "block",
            "-l",
            &format!("--task-prolog={}", tp),
            "--task-epilog=./te.sh",
            "true",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        lines(&o.stdout),
        set(&want[..2]).into_iter().chain(["2: hello 2 spurtest ctx=prolog_task".to_string()]).collect()
    );
    let n1 = "0: epilog stderr\n0: slurmstepd-node1: error: TaskEpilog failed status=4\n";
    assert_eq!(o.stderr.matches(n1).count(), 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("2: epilog stderr\n2: slurmstepd-node2: error: TaskEpilog failed status=4\n"),
        "{}",
        o.stderr
    );
    for (t, node) in [(0, "node1"), (1, "node1"), (2, "node2")] {
        let e = c.read_work(&format!("epi.{}", t));
        assert_eq!(e, format!("epilog_task {} none {} spurtest\n", t, node));
    }
    let o = c.run_as(TEST_USER, "srun", &["-n1", "-w", "node1", "--task-epilog=./nonexistent.sh", "echo", "ran"]);
    assert_eq!((o.code, o.stdout.as_str()), (0, "ran\n"));
    assert_eq!(
        o.stderr,
        "slurmstepd-node1: error: execve(./nonexistent.sh): No such file or directory\n\
         slurmstepd-node1: error: TaskEpilog failed status=127\n"
    );
}

/// `srun -w FILE` (a `/` in the list): the file's hosts are the node list,
/// laid out as any node list is (recorded/24.11/srun_stepopts/35).
fn node_list_from_a_file(c: &Cluster) {
    std::fs::write(c.work.join("hosts"), "node3\nnode1\n# a comment\nnode3,node2\n").unwrap();
    let o = c.run_as(TEST_USER, "srun", &["-w", "./hosts", "-n4", "-l", "printenv", "SLURMD_NODENAME"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(lines(&o.stdout), set(&["0: node1", "1: node1", "2: node2", "3: node3"]));
    let o = c.run_as(TEST_USER, "srun", &["-w", "./nohosts", "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "srun: error: slurm_allocate_resources error opening file ./nohosts, No such file or directory\n")
    );
}

/// `SLURM_HOSTFILE` / `-m arbitrary`: task i on the file's i-th node, in
/// srun's own allocation and in a batch job's (recorded/24.11/srun_stepopts/31-38).
fn tasks_laid_out_by_a_host_file(c: &Cluster) {
    std::fs::write(c.work.join("hosts.arb"), "node3\nnode1\nnode3\nnode2\n").unwrap();
    let run = |args: &[&str], hostfile: &str| {
        let mut cmd = format!("SLURM_HOSTFILE={} srun -l", hostfile);
        for a in args {
            cmd.push(' ');
            cmd.push_str(a);
        }
        sh_as(c, &cmd)
    };
    let o = run(&["printenv", "SLURMD_NODENAME"], "hosts.arb");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(lines(&o.stdout), set(&["0: node3", "1: node1", "2: node3", "3: node2"]));
    let o = run(
        &["-n3", "-m", "arbitrary", "sh", "-c", "'echo $SLURMD_NODENAME $SLURM_NODEID $SLURM_LOCALID'"],
        "hosts.arb",
    );
    assert_eq!(lines(&o.stdout), set(&["0: node3 1 0", "1: node1 0 0", "2: node3 1 1"]), "{}", o.stderr);
    let o = run(&["-n2", "true"], "nohosts");
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            "srun: error: slurm_allocate_resources error opening file ./nohosts, No such file or directory\n\
             srun: error: Failure getting NodeNames from hostfile\n"
        )
    );
    // in a batch job: the steps' layout follows the file
    let id = c.sbatch_as(
        TEST_USER,
        &[
            "-N3",
            "-n6",
            "-o",
            "arb-%j.out",
            "--wrap",
            "SLURM_HOSTFILE=hosts.arb srun -l printenv SLURMD_NODENAME | sort",
        ],
    );
    c.wait_state(&id, "COMPLETED", T);
    assert_eq!(c.read_work(&format!("arb-{}.out", id)), "0: node3\n1: node1\n2: node3\n3: node2\n");
}

/// `srun --no-allocate` (root and SlurmUser): a step on the nodes named,
/// without a job; anyone else is refused.
fn a_step_without_an_allocation(c: &Cluster) {
    let before = c.run("squeue", &["-h", "-t", "all", "-o", "%i"]).stdout;
    let o = c.run(
        "srun",
        &["-Z", "-w", "node[2-3]", "-n2", "-l", "sh", "-c", "echo $SLURMD_NODENAME ${SLURM_JOB_ID-nojob} $(id -un)"],
    );
    assert_eq!((o.code, o.stderr.as_str()), (0, "srun: do not allocate resources\n"));
    assert_eq!(lines(&o.stdout), set(&["0: node2 nojob root", "1: node3 nojob root"]));
    // no job holds it (recorded/24.11/srun_stepopts/41-44)
    assert_eq!(c.run("squeue", &["-h", "-t", "all", "-o", "%i"]).stdout, before);
    let o = c.run_as(TEST_USER, "srun", &["-Z", "-w", "node1", "true"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("failed on node node1: Access/permission denied"), "{}", o.stderr);
    let o = c.run("srun", &["-Z", "-w", "node1", "-x", "node2", "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "srun: error: can not specify --exclude list with -Z, --no-allocate.\n")
    );
}

/// srun's soft limits and umask in its tasks (PropagateResourceLimits=ALL,
/// `--propagate`), the variables not (recorded/24.11/srun_stepopts/12-24).
fn propagated_limits_and_umask(c: &Cluster) {
    let o = sh_as(
        c,
        "ulimit -S -n 123; ulimit -S -c 0; umask 027; \
         srun -n1 sh -c 'ulimit -n; ulimit -c; umask; printenv SLURM_UMASK; printenv SLURM_RLIMIT_NOFILE || echo none'",
    );
    assert_eq!((o.stdout.as_str(), o.stderr.as_str()), ("123\n0\n0027\n0027\nnone\n", ""));
    // --propagate names what goes: the others keep the node's limits
    let o = sh_as(c, "ulimit -S -n 123; srun -n1 --propagate=NONE sh -c 'ulimit -n'");
    assert!(o.code == 0 && o.stdout != "123\n", "{:?}", o);
    let o = sh_as(c, "ulimit -S -n 123; ulimit -S -s 4096; srun -n1 --propagate=STACK sh -c 'ulimit -n; ulimit -s'");
    assert!(o.code == 0 && !o.stdout.starts_with("123\n") && o.stdout.ends_with("\n4096\n"), "{:?}", o);
    let o = sh_as(c, "ulimit -S -n 123; srun -n1 --propagate=RLIMIT_NOFILE sh -c 'ulimit -n'");
    assert_eq!(o.stdout, "123\n", "{}", o.stderr);
    let o = c.run_as(TEST_USER, "srun", &["-n1", "--propagate=BOGUS", "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "srun: error: Bad rlimit name: BOGUS\nsrun: error: --propagate=BOGUS is not valid.\n")
    );
    // -vv shows what srun propagates
    let o = sh_as(c, "ulimit -S -c 0; umask 022; srun -vv -n1 -w node1 true");
    assert!(o.stderr.contains("srun: debug:  propagating RLIMIT_CORE=0\n"), "{}", o.stderr);
    assert!(o.stderr.contains("srun: debug:  propagating UMASK=0022\n"), "{}", o.stderr);
    // and how it goes (recorded/24.11/srun_stepopts/39)
    for l in [
        "srun: debug:  Entering _msg_thr_internal\n",
        ", user 99, nodes 1 including (node1)\n",
        "srun: debug:  cpus 1, tasks 1, name true, relative 65534\n",
        "srun: debug:  Entering _launch_tasks\n",
        "srun: debug:  launch returned msg_rc=0 err=0 type=8001\n",
        "srun: node1: task 0: Completed\nsrun: debug:  task 0 done\n",
        "srun: debug:  IO thread exiting\nsrun: debug:  Leaving _msg_thr_internal\n",
    ] {
        assert!(o.stderr.contains(l), "{}\n{}", l, o.stderr);
    }
}

/// `srun --signal`: a job option of srun's own allocation, sent to the
/// step's tasks before the time limit (recorded/24.11/srun_stepopts/25-29).
fn warning_signal_before_the_time_limit(c: &Cluster) {
    let o = c.run_as(
        TEST_USER,
        "srun",
        &[
            "-n2",
            "-N2",
            "-t",
            "1",
            "--signal=USR1@58",
            "-l",
            "bash",
            "-c",
            "trap 'echo got USR1; exit 0' USR1; sleep 200 & wait",
        ],
    );
    assert_eq!((o.code, o.stderr.as_str()), (0, ""));
    assert_eq!(lines(&o.stdout), set(&["0: got USR1", "1: got USR1"]));
    for (arg, code, err) in [
        ("--signal=B:USR1", 255, "srun: error: Invalid --signal specification\n"),
        ("--signal=USR1@100000", 255, "srun: error: Invalid --signal specification\n"),
        (
            "--signal=R:USR2@58",
            1,
            "srun: error: Unable to allocate resources: Preemption is required but is disabled on this system\n",
        ),
    ] {
        let o = c.run_as(TEST_USER, "srun", &["-n1", arg, "true"]);
        assert_eq!((o.code, o.stderr.as_str()), (code, err), "{}", arg);
    }
}

/// srun's status: the highest exit code, 128+signal; Slurm's lines.
fn exit_codes_and_messages(c: &Cluster) {
    let o = c.run_as(TEST_USER, "srun", &["-n4", "-N2", "-J", "codes", "sh", "-c", "exit $SLURM_PROCID"]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert_eq!(
        o.stderr,
        "srun: error: node1: task 1: Exited with exit code 1\nsrun: error: node2: task 2: Exited with exit code 2\nsrun: error: node2: task 3: Exited with exit code 3\n"
    );
    assert_eq!(c.state(&job_named(c, "codes")), "FAILED");
    let o = c.run_as(TEST_USER, "srun", &["-n2", "-N1", "sh", "-c", "kill -9 $$"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            137,
            format!("srun: error: node1: tasks 0-1: Killed\nsrun: Force Terminated StepId={}.0\n", job_named(c, "sh"))
                .as_str()
        )
    );
    let o = c.run_as(TEST_USER, "srun", &["-n1", "no-such-command-here"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert_eq!(
        o.stderr,
        "slurmstepd-node1: error: execve(): no-such-command-here: No such file or directory\nsrun: error: node1: task 0: Exited with exit code 2\n"
    );
    // --kill-on-bad-exit: a failing task ends the others (SIGTERM: 143)
    let o = c.run_as(TEST_USER, "srun", &["-n2", "-N1", "-K", "sh", "-c", "[ $SLURM_PROCID = 0 ] && exit 4; sleep 60"]);
    assert_eq!(o.code, 143, "{}", o.stderr);
    assert!(
        o.stderr.contains("task 0: Exited with exit code 4")
            && o.stderr.contains("task 1: Terminated")
            && o.stderr.contains("srun: Terminating StepId=")
            && o.stderr.contains(" CANCELLED AT "),
        "{}",
        o.stderr
    );
}

/// stdin to every task or one, labels, output files, multi-prog.
fn io_and_files(c: &Cluster) {
    let o = c.run_full(Some(TEST_USER), "srun", &["-n2", "-N2", "-l", "cat"], Some("one\ntwo\n"));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(lines(&o.stdout), set(&["0: one", "0: two", "1: one", "1: two"]));
    let o = c.run_full(Some(TEST_USER), "srun", &["-n2", "-N1", "--input=1", "-l", "cat"], Some("only\n"));
    assert_eq!(o.stdout, "1: only\n", "{}", o.stderr);
    let o = c.run_full(Some(TEST_USER), "srun", &["-n1", "--input=none", "cat"], Some("never\n"));
    assert_eq!((o.code, o.stdout.as_str()), (0, ""));
    // output files per task, as the user
    let o = c.run_as(
        TEST_USER,
        "srun",
        &["-n2", "-N2", "-o", "step-%j.%s-%t-%n.out", "sh", "-c", "echo task $SLURM_PROCID"],
    );
    assert_eq!((o.code, o.stdout.as_str()), (0, ""), "{}", o.stderr);
    let mut found = vec![];
    for e in std::fs::read_dir(&c.work).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().to_string();
        if n.starts_with("step-") {
            use std::os::unix::fs::MetadataExt;
            assert_eq!(e.metadata().unwrap().uid(), uid_of(TEST_USER), "{}", n);
            found.push((n.clone(), std::fs::read_to_string(e.path()).unwrap()));
        }
    }
    found.sort();
    assert_eq!(found.len(), 2, "{:?}", found);
    assert!(found[0].0.ends_with(".0-0-0.out") && found[0].1 == "task 0\n", "{:?}", found);
    assert!(found[1].0.ends_with(".0-1-1.out") && found[1].1 == "task 1\n", "{:?}", found);
    // --multi-prog
    std::fs::write(c.work.join("mp.conf"), "0 echo first %t\n1-2 echo rest %t %o\n").unwrap();
    let o = c.run_as(TEST_USER, "srun", &["-n3", "-N2", "-l", "--multi-prog", "mp.conf"]);
    assert_eq!(lines(&o.stdout), set(&["0: first 0", "1: rest 1 0", "2: rest 2 1"]), "{}", o.stderr);
}

/// srun inside a batch job: steps 0 and 1 of its allocation.
fn srun_in_sbatch(c: &Cluster) {
    std::fs::write(
        c.work.join("steps.sh"),
        "#!/bin/sh\nsrun -l printenv SLURM_STEP_ID\nsrun -n1 sh -c 'echo step=$SLURM_STEP_ID nodes=$SLURM_STEP_NUM_NODES job=$SLURM_JOB_ID'\n",
    )
    .unwrap();
    let id = c.sbatch_as(TEST_USER, &["-N2", "-n4", "-o", "steps-%j.out", "steps.sh"]);
    c.wait_state(&id, "COMPLETED", T);
    let out = c.read_work(&format!("steps-{}.out", id));
    let mut l: Vec<&str> = out.lines().collect();
    l.sort();
    // (srun -n1 in a two-node allocation says so, as Slurm's)
    let warn = "srun: warning: can't run 1 processes on 2 nodes, setting nnodes to 1";
    assert_eq!(l, vec!["0: 0", "1: 0", "2: 0", "3: 0", warn, &format!("step=1 nodes=1 job={}", id)], "{}", out);
}

/// salloc: granted, the command's status, relinquished; srun inside.
fn salloc_runs_a_command(c: &Cluster) {
    let o = c.run_as(
        TEST_USER,
        "salloc",
        &["-N2", "-n4", "-J", "sal", "sh", "-c", "srun -l printenv SLURM_NODEID | sort; exit 7"],
    );
    assert_eq!(o.code, 7);
    assert_eq!(o.stdout, "0: 0\n1: 0\n2: 1\n3: 1\n");
    let id = job_named(c, "sal");
    assert_eq!(
        o.stderr,
        format!(
            "salloc: Granted job allocation {}\nsalloc: Nodes node[1-2] are ready for job\nsalloc: Relinquishing job allocation {}\n",
            id, id
        )
    );
    let st = c.wait_state(&id, "FAILED", T);
    assert_eq!(st, "FAILED");
    let q = c.run("scontrol", &["show", "job", &id]);
    assert!(q.stdout.contains(" BatchFlag=0 "), "{}", q.stdout);
}

/// Two steps in one allocation: the second waits for the first's CPUs,
/// --overlap shares them; squeue -s, scontrol show step, scancel of a step.
fn steps_share_an_allocation(c: &Cluster) {
    let script = "srun -n1 sleep 777 & \
        until squeue -h -s -j $SLURM_JOB_ID -o %i | grep -q '\\.0$'; do sleep 0.1; done; \
        squeue -h -s -j $SLURM_JOB_ID -o '%i %j %u %N'; \
        scontrol show step $SLURM_JOB_ID.0 | head -3; \
        srun -n1 --overlap echo overlapped; \
        (sleep 1; scancel $SLURM_JOB_ID.0) & \
        srun -n1 echo after-the-first; \
        wait";
    let o = c.run_as(TEST_USER, "salloc", &["-N1", "-n2", "-J", "share", "sh", "-c", script]);
    let id = job_named(c, "share");
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(out[0], format!("{}.0 sleep {} node1", id, TEST_USER), "{}", o.stdout);
    assert!(out[1].starts_with(&format!("StepId={}.0 UserId={} StartTime=", id, uid_of(TEST_USER))), "{}", o.stdout);
    assert_eq!(out[2], "   State=RUNNING Partition=debug NodeList=node1");
    assert_eq!(out[3], "   Nodes=1 CPUs=2 Tasks=1 Name=sleep Network=(null)");
    assert_eq!(&out[4..], ["overlapped", "after-the-first"], "{}", o.stdout);
    // it waited for the first step's end (24.11 says it was busy only after a
    // wait of a minute or more that timed out), then said it had its step
    assert!(o.stderr.contains(&format!("srun: Step created for StepId={}.2\n", id)), "{}", o.stderr);
    assert!(
        o.stderr.contains(&format!("slurmstepd-node1: error: *** STEP {}.0 ON node1 CANCELLED AT ", id)),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("srun: error: node1: task 0: Killed\n"), "{}", o.stderr);
    // nothing of the cancelled step is left
    wait_for("the cancelled step's processes to end", T, || processes_with("sleep 777").is_empty());
    assert_eq!(c.run("squeue", &["-h", "-s", "-j", &id]).stdout, "");
}

/// `-c` implies `--exact` (srun's launch.c): a step with `-c1` in a
/// two-CPU allocation takes one CPU, so a second one starts beside it
/// instead of waiting for it, as it does without `-c`.
fn cpus_per_task_gives_a_step_its_cpus_only(c: &Cluster) {
    let script = "srun -n1 -c1 sleep 778 & \
        until squeue -h -s -j $SLURM_JOB_ID -o %i | grep -q '\\.0$'; do sleep 0.1; done; \
        timeout 20 srun -v -n1 -c1 echo beside; \
        scancel $SLURM_JOB_ID.0; wait";
    let o = c.run_as(TEST_USER, "salloc", &["-N1", "-n2", "-J", "exactc", "sh", "-c", script]);
    assert!(o.stdout.lines().any(|l| l == "beside"), "{}\n{}", o.stdout, o.stderr);
    assert!(!o.stderr.contains("step creation temporarily disabled"), "{}", o.stderr);
    assert!(o.stderr.contains("srun: Implicitly setting --exact, because -c/--cpus-per-task given.\n"), "{}", o.stderr);
    wait_for("the first step's processes to end", T, || processes_with("sleep 778").is_empty());
}

/// The step daemon is not the agent's: a step runs on through an agent
/// restart, and its output and exit reach srun.
fn a_step_survives_an_agent_restart(c: &Cluster) {
    let marker = c.work.join("restart-started");
    let cmd = format!("touch {}; sleep 3; echo survived", marker.display());
    let rx = srun_in_background(c, &["-N1", "-w", "node3", "sh", "-c", &cmd]);
    wait_for("the step to start", T, || marker.exists());
    c.kill9("spurd-node3");
    assert_eq!(c.restart_missing().code, 0);
    let o = rx.recv_timeout(T).expect("srun ended");
    assert_eq!(
        (o.status.code(), String::from_utf8_lossy(&o.stdout).as_ref()),
        (Some(0), "survived\n"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// srun as root with `args`, in a thread: its output once it ends.
fn srun_in_background(c: &Cluster, args: &[&str]) -> std::sync::mpsc::Receiver<std::process::Output> {
    let (tx, rx) = std::sync::mpsc::channel();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let conf = c.conf.clone();
    let bin = c.dir.join("bin");
    let work = c.work.clone();
    std::thread::spawn(move || {
        let o = std::process::Command::new(bin.join("srun"))
            .args(&args)
            .env("SLURM_CONF", conf)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .current_dir(work)
            .output()
            .unwrap();
        let _ = tx.send(o);
    });
    rx
}

/// srun killed outright: its step daemons lose the connection, end the
/// tasks, and their agents report the step's end, so the allocation's CPUs
/// are free for the next step.
fn a_step_whose_srun_is_killed_ends(c: &Cluster) {
    let script = "srun -n1 sleep 666 & \
        until squeue -h -s -j $SLURM_JOB_ID -o %i | grep -q '\\.0$'; do sleep 0.1; done; \
        kill -9 $!; srun -n1 echo next-step";
    let o = c.run_as(TEST_USER, "salloc", &["-N1", "-n2", "-J", "killed", "sh", "-c", script]);
    assert_eq!((o.code, o.stdout.as_str()), (0, "next-step\n"), "{}", o.stderr);
    wait_for("the orphaned step's processes to end", T, || processes_with("sleep 666").is_empty());
}

/// Ctrl-C under a terminal: the status line, then a second one aborts.
fn interrupts_under_a_terminal(c: &Cluster) {
    let steps =
        r#"[["expect", "started", 20], ["send", "\u0003"], ["expect", "tasks 0-1: running", 10], ["send", "\u0003"]]"#;
    let out = c.pty(
        TEST_USER,
        steps,
        "srun",
        &["-n2", "-N1", "sh", "-c", "[ $SLURM_PROCID = 0 ] && echo started; exec sleep 555"],
    );
    assert!(out.contains("srun: interrupt (one more within 1 sec to abort)"), "{}", out);
    assert!(out.contains("tasks 0-1: running"), "{}", out);
    assert!(out.contains("srun: forcing job termination"), "{}", out);
    assert!(!out.contains("EXPECT-FAILED"), "{}", out);
    wait_for("the aborted tasks to end", T, || processes_with("sleep 555").is_empty());
}

/// `srun --pty`: task 0 on a terminal of its own: a shell with job
/// control, Ctrl-C reaching its foreground job, its exit code srun's.
fn srun_pty_gives_task_0_a_terminal(c: &Cluster) {
    let steps = r#"[["expect", "$ ", 20], ["send", "tty; echo rank=$SLURM_PROCID\n"], ["expect", "rank=0", 10],
        ["send", "sleep 333\n"], ["sleep", 0.5], ["send", "\u0003"], ["send", "echo after-int\n"],
        ["expect", "after-int\r\n", 10], ["send", "exit 5\n"]]"#;
    let out = c.pty(TEST_USER, steps, "srun", &["--pty", "-n1", "bash", "--norc", "-i"]);
    assert!(!out.contains("EXPECT-FAILED"), "{}", out);
    assert!(out.contains("/dev/pts/") && !out.contains("no job control"), "{}", out);
    assert!(out.contains("srun: error: node1: task 0: Exited with exit code 5"), "{}", out);
    assert!(out.trim_end().ends_with("EXIT 5"), "{}", out);
    assert!(processes_with("sleep 333").is_empty());
}

/// salloc with the user's shell under a terminal: commands, job control,
/// srun inside, the allocation given back at exit.
fn salloc_drives_an_interactive_shell(c: &Cluster) {
    let steps = r#"[["expect", "Granted job allocation", 20], ["sleep", 0.5],
        ["send", "echo job=$SLURM_JOB_ID nodes=$SLURM_JOB_NUM_NODES\n"], ["expect", "nodes=2", 10],
        ["send", "sleep 444 &\n"], ["send", "jobs\n"], ["expect", "Running", 10],
        ["send", "kill %1\n"], ["send", "srun -l -n2 echo from-srun\n"], ["expect", "1: from-srun", 20],
        ["sleep", 1.5], ["send", "echo srun-done\n"], ["expect", "\nsrun-done", 10], ["send", "exit\n"], ["expect", "Relinquishing job allocation", 20]]"#;
    let out = c.pty(TEST_USER, steps, "salloc", &["-N2", "-J", "shell"]);
    assert!(!out.contains("EXPECT-FAILED"), "{}", out);
    let id = job_named(c, "shell");
    assert!(out.contains(&format!("job={} nodes=2", id)), "{}", out);
    assert!(out.contains("EXIT 0"), "{}", out);
    c.wait_state(&id, "COMPLETED", T);
}

/// A task that starts a daemon (its own session, so out of the task's
/// process group) and lingers: scancel of the step ends the daemon too, and
/// where cgroups can be made the task runs in the step's own, which is
/// removed afterwards.
fn a_cancelled_step_takes_its_escaped_daemons(c: &Cluster) {
    let marker = c.work.join("escape-started");
    let _ = std::fs::remove_file(&marker);
    // (the sleeps' arguments are built by the shell: srun's own command
    // line does not hold them)
    let cmd = format!(
        "n=8; setsid sh -c \"exec sleep 88$n\" </dev/null >/dev/null 2>&1 & grep '^0::' /proc/self/cgroup > {}.tmp; mv {m}.tmp {m}; n=9; exec sleep 99$n",
        marker.display(),
        m = marker.display()
    );
    let rx = srun_in_background(c, &["-N1", "-w", "node2", "-J", "escape", "sh", "-c", &cmd]);
    wait_for("the step to start", T, || marker.exists());
    wait_for("the daemon to start", T, || !processes_with("sleep\u{0}888").is_empty());
    let id = job_named(c, "escape");
    let cgroup = std::fs::read_to_string(&marker).unwrap();
    let root = cgroup2_writable();
    if let Some(root) = &root {
        assert_eq!(
            cgroup.trim(),
            format!("0::/spur/{}/job_{}/step_0", c.cgroup_dir("node2"), id),
            "cgroup2 at {}",
            root.display()
        );
        let procs = std::fs::read_to_string(root.join(format!(
            "spur/{}/job_{}/step_0/cgroup.procs",
            c.cgroup_dir("node2"),
            id
        )))
        .unwrap();
        for p in processes_with("sleep\u{0}888").into_iter().chain(processes_with("sleep\u{0}999")) {
            assert!(procs.lines().any(|l| l == p.to_string()), "{} not in {}", p, procs);
        }
    }
    // scontrol listpids on node2: the task (sh, now sleep 999), then the
    // step daemon and the daemon the task left, without ids
    let task = processes_with("sleep\u{0}999")[0];
    let daemon = processes_with("sleep\u{0}888")[0];
    let o = c.run("scontrol", &["listpids", &id, "node2"]);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(lines.first(), Some(&"PID      JOBID    STEPID   LOCALID GLOBALID"), "{}", o.stdout);
    assert_eq!(
        lines.get(1).copied(),
        Some(format!("{:<8} {:<8} 0        0       0        ", task, id).as_str()),
        "{}",
        o.stdout
    );
    let stepd = lines.get(2).and_then(|l| l.split_whitespace().next()).unwrap_or("");
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", stepd)).unwrap_or_default();
    assert!(String::from_utf8_lossy(&cmdline).contains("spurstepd"), "{}", o.stdout);
    assert!(lines.contains(&format!("{:<8} {:<8} 0        -       -        ", daemon, id).as_str()), "{}", o.stdout);
    assert_eq!(c.run("scontrol", &["listpids", &format!("{}.0", id), "node2"]).stdout, o.stdout);
    // not on another node, and not for another user
    let o = c.run("scontrol", &["listpids", &format!("{}.0", id), "node1"]);
    assert_eq!((o.code, o.stdout.as_str()), (1, ""));
    assert!(o.stderr.ends_with(&format!("StepId={}.0 does not exist on node node1.\n", id)), "{}", o.stderr);
    let o = c.run_as(TEST_USER, "scontrol", &["listpids", &id, "node2"]);
    assert_eq!((o.code, o.stdout.as_str()), (1, ""));
    assert!(o.stderr.ends_with(&format!("JobId={} does not exist on node node2.\n", id)), "{}", o.stderr);
    assert_eq!(c.run("scancel", &[&format!("{}.0", id)]).code, 0);
    let o = rx.recv_timeout(T).expect("srun ended");
    assert!(String::from_utf8_lossy(&o.stderr).contains("CANCELLED"), "{}", String::from_utf8_lossy(&o.stderr));
    wait_for("the escaped daemon to end", T, || processes_with("sleep\u{0}888").is_empty());
    assert!(processes_with("sleep\u{0}999").is_empty());
    if let Some(root) = &root {
        wait_for("the step's cgroup to go", T, || {
            !root.join(format!("spur/{}/job_{}", c.cgroup_dir("node2"), id)).exists()
        });
    }
    let _ = c.run("scancel", &[&id]);
}

/// A step of two tasks that each hold 100 MiB: its node's report (MaxRSS
/// with its task, the average, CPU time) reaches the step's record in the
/// controller's state, where it stays once the step has ended.
fn a_steps_usage_is_in_its_record(c: &Cluster) {
    let o = c.run_as(
        TEST_USER,
        "srun",
        &[
            "-N1",
            "-n2",
            "-w",
            "node3",
            "-J",
            "usage",
            "perl",
            "-e",
            "$x = \"a\" x (100 * 1024 * 1024); print \"held\\n\"; select(undef, undef, undef, 1.5);",
        ],
    );
    assert_eq!((o.code, o.stdout.as_str()), (0, "held\nheld\n"), "{}", o.stderr);
    let id = job_named(c, "usage");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = spur_client::Client::from_conf_path(&c.conf).unwrap();
    let q = spur_core::request::Query { jobs: true, job_ids: vec![id.clone()], ..Default::default() };
    let mut usage = Vec::new();
    wait_for("the node's usage in the step's record", T, || {
        let v = rt.block_on(client.query(&q)).unwrap();
        usage = v.jobs.iter().flat_map(|j| j.done_steps.iter()).flat_map(|s| s.usage.clone()).collect();
        !usage.is_empty()
    });
    assert_eq!(usage.len(), 1, "{:?}", usage);
    let u = &usage[0];
    assert_eq!((u.node.as_str(), u.ntasks), ("node3", 2), "{:?}", u);
    // each task held 100 MiB (perl copies the string once more on the way)
    assert!(u.max_rss_kb >= 100 * 1024 && u.max_rss_kb < 1024 * 1024, "{:?}", u);
    assert!(u.max_rss_task < 2 && u.ave_rss_kb() >= 100 * 1024, "{:?}", u);
    // (sampled while the tasks held it; the largest resident set is the
    // rusage's peak, which no sample need have seen, so the two are not
    // compared: a loaded machine made that flaky)
    assert!(u.max_vmsize_kb >= 100 * 1024, "{:?}", u);
    assert!(u.total_cpu_us() > 0, "{:?}", u);
}

/// A task of the unprivileged user lists its own step's processes on its
/// node: itself as task 0, then scontrol (and the step daemon where the
/// step has a cgroup).
fn the_owner_lists_its_steps_pids(c: &Cluster) {
    let o = c.run_as(
        TEST_USER,
        "srun",
        &["-N1", "-w", "node4", "sh", "-c", "echo $$; scontrol listpids $SLURM_JOB_ID.$SLURM_STEP_ID $SLURMD_NODENAME"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.get(1), Some(&"PID      JOBID    STEPID   LOCALID GLOBALID"), "{}", o.stdout);
    let me: Vec<&str> = lines.get(2).map(|l| l.split_whitespace().collect()).unwrap_or_default();
    assert_eq!(
        (me.first(), me.get(2), me.get(3), me.get(4)),
        (lines.first(), Some(&"0"), Some(&"0"), Some(&"0")),
        "{}",
        o.stdout
    );
    // then (its step daemon when the step has a cgroup, and) scontrol itself
    assert!(lines.len() >= 4 && lines[3..].iter().all(|l| l.ends_with(" -        ")), "{}", o.stdout);
}
