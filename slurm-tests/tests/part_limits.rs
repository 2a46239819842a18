//! Issue 15, point 3: a partition's MaxCPUsPerNode, MaxMemPerCPU and
//! MaxNodes through the real daemons and commands, as Slurm 22.05 handled
//! the same requests (crates/spur-sched/tests/part-limits-22.05.md). One
//! cluster for the file: four nodes of 8 CPUs and 16,000 MB, a partition
//! `lim` over them with MaxTime=10 MaxNodes=2 MaxCPUsPerNode=4
//! MaxMemPerCPU=2000, and `EnforcePartLimits=ALL`; then drained nodes and
//! `--exclude`: the pending reasons and refusals Slurm gives for them.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn partition_limits_at_submission_and_while_placing() {
    let extra = std::env::temp_dir().join(format!("spur-part-limits-{}.conf", std::process::id()));
    std::fs::write(
        &extra,
        "EnforcePartLimits=ALL\n\
         PartitionName=lim Nodes=node[1-4] MaxTime=10 MaxNodes=2 MaxCPUsPerNode=4 MaxMemPerCPU=2000 State=UP\n\
         PartitionName=defmem Nodes=node[1-2] DefMemPerCPU=700 State=UP\n\
         PartitionName=big Nodes=node[1-2] DefMemPerCPU=3000 MaxMemPerCPU=2000 State=UP\n\
         PartitionName=two Nodes=node[3-4] State=UP\n",
    )
    .unwrap();
    let c = Cluster::up("partlim", 4, &["--cpus", "8", "--memory", "16000", "--extra-conf", &extra.to_string_lossy()]);
    let _ = std::fs::remove_file(&extra);
    let sleep = "sleep 300";
    // EnforcePartLimits: over MaxNodes or MaxTime is refused at once (the
    // node count first), and uses up no job id
    for (args, text) in [
        (&["-t", "20"][..], "Requested time limit is invalid (missing or exceeds some limit)"),
        (&["-N3"], "Node count specification invalid"),
        (&["-t", "20", "-N3"], "Node count specification invalid"),
        (&["-N3", "-n9"], "Node count specification invalid"),
    ] {
        let a: Vec<&str> = [&["-p", "lim"][..], args, &["--wrap", sleep]].concat();
        let o = c.run("sbatch", &a);
        assert_eq!(
            (o.code, o.stderr.as_str()),
            (1, format!("sbatch: error: Batch job submission failed: {}\n", text).as_str()),
            "{:?}",
            args
        );
    }
    let o = c.run("salloc", &["-p", "lim", "-N3", "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "salloc: error: Job submit/allocate failed: Node count specification invalid\n")
    );
    let first = c.sbatch(&["-p", "lim", "--hold", "--wrap", sleep]);
    assert_eq!(first, 1, "a refused job used up an id");
    // refused: more CPUs on a node than the cap (no message but the error),
    // more tasks than MaxNodes nodes at the cap hold, and a memory request
    // whose CPUs (more per task for MaxMemPerCPU) pass the cap
    let refused = |args: &[&str]| {
        let a: Vec<&str> = [args, &["--wrap", sleep]].concat();
        let o = c.run("sbatch", &a);
        assert_eq!(
            (o.code, o.stderr.as_str()),
            (1, "sbatch: error: Batch job submission failed: Requested node configuration is not available\n"),
            "{:?}",
            args
        );
    };
    for args in [
        &["-p", "lim", "-c6"][..],
        &["-p", "lim", "--ntasks-per-node=5"],
        &["-p", "lim", "-N1", "-n3", "-c2"],
        &["-p", "lim", "-n9"],
        &["-p", "lim", "--mem-per-cpu=2500", "-c3"],
    ] {
        refused(args);
    }
    let show = |id: u32| {
        let o = c.run("scontrol", &["show", "job", &id.to_string()]);
        o.ok();
        o.stdout
    };
    // more memory per CPU than MaxMemPerCPU: as many times more CPUs per
    // task, as many times less memory per CPU (rounded up)
    let per = |args: &[&str]| c.sbatch(&[&["-p", "lim", "--hold"][..], args, &["--wrap", sleep]].concat());
    for (args, cpt, mem, cpus) in [
        (&["--mem-per-cpu=5000"][..], "3", "1667M", "1"),
        (&["--mem-per-cpu=3000", "-c2"], "4", "1500M", "2"),
        (&["--mem-per-cpu=2500", "-n3"], "2", "1250M", "6"),
    ] {
        let s = show(per(args));
        assert_eq!(
            (field(&s, "CPUs/Task"), field(&s, "MinMemoryCPU"), field(&s, "NumCPUs")),
            (cpt.to_string(), mem.to_string(), cpus.to_string()),
            "{:?}\n{}",
            args,
            s
        );
    }
    // a partition's DefMemPerCPU before slurm.conf's, scaled by its
    // MaxMemPerCPU as an asked one is (22.05's ReqTRES keeps the memory
    // asked, mem=3000M, for `big`: Spur's counts the scaled one; see
    // part-limits-22.05.md)
    for (part, cpt, mem, tres) in [
        ("defmem", "1", "700M", "cpu=1,mem=700M,node=1,billing=1"),
        ("big", "2", "1500M", "cpu=1,mem=1500M,node=1,billing=1"),
    ] {
        let s = show(c.sbatch(&["-p", part, "--hold", "--wrap", sleep]));
        assert_eq!(
            (field(&s, "CPUs/Task"), field(&s, "MinMemoryCPU"), field(&s, "NumCPUs"), field(&s, "ReqTRES")),
            (cpt.to_string(), mem.to_string(), "1".to_string(), tres.to_string()),
            "{}",
            s
        );
    }
    c.run("scancel", &["-u", "root"]).ok();
    // the cap counts every job of the partition on a node: with 4 of lim's
    // CPUs on node1 and node2 (-n8) and 4 on node3, 3 on node4 (-n1 then
    // -n6 -c... as two jobs), a 3-CPU job waits with Resources; another
    // partition's job still gets a node's other CPUs
    let lim = |args: &[&str]| c.sbatch(&[&["-p", "lim", "-t", "5"][..], args, &["--wrap", sleep]].concat());
    let eight = lim(&["-n8"]);
    c.wait_state(&eight.to_string(), "RUNNING", T);
    let s = show(eight);
    assert_eq!((field(&s, "NumNodes"), field(&s, "NumCPUs")), ("2".into(), "8".into()), "{}", s);
    let four = lim(&["-N1", "-n4"]);
    c.wait_state(&four.to_string(), "RUNNING", T);
    let three = lim(&["-N1", "-n3"]);
    c.wait_state(&three.to_string(), "RUNNING", T);
    let wait = lim(&["-c3"]);
    let mut w = String::new();
    wait_for("the 3-CPU job's reason", T, || {
        w = show(wait);
        field(&w, "Reason") == "Resources"
    });
    assert_eq!(field(&w, "JobState"), "PENDING");
    let other = c.sbatch(&["-p", "debug", "-N1", "-n4", "--wrap", sleep]);
    c.wait_state(&other.to_string(), "RUNNING", T);
    c.run("scancel", &["-u", "root"]).ok();
    // nodes not available (part-limits-22.05.md, "Nodes not available")
    for args in [&["-x", "node[1-4]"][..], &["-N4", "-x", "node1"], &["-n25", "-x", "node1"]] {
        refused(args);
    }
    c.run("scontrol", &["update", "NodeName=node1", "State=DRAIN", "Reason=test"]).ok();
    c.run("scontrol", &["update", "NodeName=node[3-4]", "State=DRAIN", "Reason=test"]).ok();
    let reason = |id: u32| {
        let mut r = String::new();
        wait_for("a reason", T, || {
            let o = c.run("squeue", &["-h", "-o", "%r", "-j", &id.to_string()]);
            r = o.stdout.trim().to_string();
            !r.is_empty() && r != "None"
        });
        r
    };
    // the required node drained; every node of the partition drained;
    // neither holds back the job behind it
    let on_node1 = c.sbatch(&["-w", "node1", "--wrap", sleep]);
    let in_two = c.sbatch(&["-p", "two", "--wrap", sleep]);
    let behind = c.sbatch(&["-N3", "-x", "node1", "--wrap", sleep]);
    assert_eq!(reason(on_node1), "ReqNodeNotAvail, UnavailableNodes:node1");
    assert_eq!(reason(in_two), "ReqNodeNotAvail, UnavailableNodes:node[3-4]");
    let s = c.run("scontrol", &["show", "job", &on_node1.to_string()]);
    assert_eq!(field(&s.stdout, "Reason"), "ReqNodeNotAvail,_UnavailableNodes:node1", "{}", s.stdout);
    // (-N3 without node1: node2 and the drained node[3-4] are all it may
    // use: it waits for them the same way)
    assert_eq!(reason(behind), "ReqNodeNotAvail, UnavailableNodes:node[3-4]");
    let free = c.sbatch(&["-N1", "--wrap", sleep]);
    c.wait_state(&free.to_string(), "RUNNING", T);
    c.run("scancel", &["-u", "root"]).ok();
}
