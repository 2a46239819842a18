//! Issue 15, point 3: `--constraint` through the real daemons and commands,
//! as Slurm 22.05 answered the same submissions on the same features
//! (crates/spur-sched/tests/constraints.md). One cluster for the
//! file: four nodes of 8 CPUs, node1-2 `intel,ib`, node3 `amd`, node4
//! `amd,ib` (set with `scontrol update`), the jobs submitted in the
//! measurement's order, each placed with the ones before it running. The
//! cluster imitates 22.05 (`--compat 22.05`), whose answers these are.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn constraints_refused_accepted_and_placed_as_measured() {
    let c = Cluster::up("constraints", 4, &["--cpus", "8", "--memory", "16000", "--compat", "22.05"]);
    for (n, f) in [("node1", "intel,ib"), ("node2", "intel,ib"), ("node3", "amd"), ("node4", "amd,ib")] {
        c.run("scontrol", &["update", &format!("NodeName={n}"), &format!("Features={f}")]).ok();
    }
    let o = c.run("scontrol", &["show", "node", "node4"]);
    assert!(o.stdout.contains("AvailableFeatures=amd,ib"), "{}", o.stdout);
    let sleep = "sleep 300";
    let refused = |args: &[&str], text: &str| {
        let a: Vec<&str> = [args, &["--wrap", sleep]].concat();
        let o = c.run("sbatch", &a);
        assert_eq!(
            (o.code, o.stderr.as_str()),
            (1, format!("sbatch: error: Batch job submission failed: {text}\n").as_str()),
            "{args:?}"
        );
    };
    let placed = |args: &[&str]| -> (u32, String) {
        let a: Vec<&str> = [args, &["--wrap", sleep]].concat();
        let id = c.sbatch(&a);
        c.wait_state(&id.to_string(), "RUNNING", T);
        let o = c.run("squeue", &["-h", "-o", "%N", "-j", &id.to_string()]);
        (id, o.stdout.trim().to_string())
    };
    let invalid = "Invalid feature specification";
    let unavailable = "Requested node configuration is not available";
    refused(&["-C", "nosuch"], invalid);
    // the trailing `&` is ignored; squeue shows what was asked
    let (first, on) = placed(&["-C", "intel&"]);
    assert_eq!(on, "node1");
    let o = c.run("squeue", &["-h", "-o", "%f", "-j", &first.to_string()]);
    assert_eq!(o.stdout.trim(), "intel&");
    refused(&["-C", "[intel|amd"], invalid);
    refused(&["-C", "intel&&ib"], invalid);
    refused(&["-C", "!intel", "-N1"], invalid);
    refused(&["-C", "[intel&amd]"], invalid);
    refused(&["-C", "intel&amd"], unavailable);
    // counts need brackets
    refused(&["-C", "intel*1&amd*1", "-N2", "-n2"], unavailable);
    assert_eq!(placed(&["-C", "amd", "-N1", "-n1"]).1, "node3");
    assert_eq!(placed(&["-C", "intel&ib", "-N2", "-n2"]).1, "node[1-2]");
    // only node4 has 8 idle CPUs
    assert_eq!(placed(&["-C", "intel|amd", "-N1", "-n8"]).1, "node4");
    // all nodes with the same one, the first that fits
    assert_eq!(placed(&["-C", "[intel|amd]", "-N2", "-n2"]).1, "node[1-2]");
    // one node of each
    assert_eq!(placed(&["-C", "[intel*1&amd*1]", "-N2", "-n2"]).1, "node[1,3]");
    assert_eq!(placed(&["-C", "(intel|amd)&ib", "-N1"]).1, "node1");
    // 22.05's refusals of a feature use up an id (the first accepted job was 2)
    assert_eq!(first, 2, "the refusal before it used no id");
    // no ib node has 8 idle CPUs: it waits for them
    let wait = c.sbatch(&["-C", "ib", "-N1", "-n8", "--wrap", sleep]);
    wait_for("Resources", T, || {
        c.run("squeue", &["-h", "-o", "%r", "-j", &wait.to_string()]).stdout.trim() == "Resources"
    });
    let o = c.run("scontrol", &["show", "job", &wait.to_string()]);
    assert_eq!(field(&o.stdout, "Features"), "ib");
    // a drained node with the feature: ReqNodeNotAvail naming it alone
    c.run("scancel", &[&wait.to_string()]).ok();
    c.run("scontrol", &["update", "NodeName=node3", "State=DRAIN", "Reason=test"]).ok();
    let drained = c.sbatch(&["-p", "debug", "-C", "amd", "-N2", "--wrap", sleep]);
    let want = "ReqNodeNotAvail, UnavailableNodes:node3";
    wait_for(want, T, || c.run("squeue", &["-h", "-o", "%r", "-j", &drained.to_string()]).stdout.trim() == want);
    // scontrol update checks a new expression as sbatch does
    let o = c.run("scontrol", &["update", &format!("JobId={drained}"), "Features=[amd|intel"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let o = c.run("scontrol", &["update", &format!("JobId={drained}"), "Features=[amd|intel]"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = c.run("scontrol", &["show", "job", &drained.to_string()]);
    assert_eq!(field(&o.stdout, "Features"), "[amd|intel]");

    // --contiguous and --spread-job on the same nodes, emptied (22.05:
    // cn02 and cn04 full, `-N2 --contiguous` waits with Resources and a
    // `-N2` job behind it with Priority; `-n4 --spread-job` on idle nodes
    // takes all four)
    c.run("scancel", &["-u", "root"]).ok();
    c.run("scontrol", &["update", "NodeName=node3", "State=RESUME"]).ok();
    wait_for("an empty queue", T, || c.run("squeue", &["-h"]).stdout.is_empty());
    let full2 = c.sbatch(&["-w", "node2", "-n8", "--wrap", sleep]);
    let full4 = c.sbatch(&["-w", "node4", "-n8", "--wrap", sleep]);
    c.wait_state(&full2.to_string(), "RUNNING", T);
    c.wait_state(&full4.to_string(), "RUNNING", T);
    let contiguous = c.sbatch(&["-N2", "--contiguous", "--wrap", sleep]);
    let behind = c.sbatch(&["-N2", "--wrap", sleep]);
    let reason = |id: u32| c.run("squeue", &["-h", "-o", "%r", "-j", &id.to_string()]).stdout.trim().to_string();
    wait_for("Resources and Priority", T, || reason(contiguous) == "Resources" && reason(behind) == "Priority");
    c.run("scancel", &["-u", "root"]).ok();
    wait_for("an empty queue", T, || c.run("squeue", &["-h"]).stdout.is_empty());
    // (a resumed node answers again at its agent's next heartbeat)
    wait_for("node3 back", T, || c.run("sinfo", &["-h", "-n", "node3", "-o", "%t"]).stdout.trim() == "idle");
    assert_eq!(placed(&["-n4", "--spread-job"]).1, "node[1-4]");
    assert_eq!(placed(&["-n6", "-N2-3", "--spread-job"]).1, "node[1-3]");

    // --nodelist with more nodes asked (22.05, one job at a time): the
    // required ones, then from the first of them to the end of its run of
    // nodes, then back (before, Spur left such a job pending with
    // BadConstraints: its candidates were the required nodes alone)
    c.run("scancel", &["-u", "root"]).ok();
    wait_for("an empty queue", T, || c.run("squeue", &["-h"]).stdout.is_empty());
    for (args, want) in [
        (&["-N2", "-w", "node4"][..], "node[3-4]"),
        (&["-N3", "-w", "node1"], "node[1-3]"),
        (&["-N2", "-w", "node2"], "node[2-3]"),
        (&["-N3", "-w", "node4"], "node[2-4]"),
        (&["-N3", "-w", "node[1,4]"], "node[1-2,4]"),
        (&["-N2", "-w", "node3", "-n4"], "node[3-4]"),
        // (the node list's count, not -N: more nodes may come)
        (&["-n12", "-w", "node3"], "node[3-4]"),
        (&["-w", "node[1,4]"], "node[1,4]"),
    ] {
        let (id, on) = placed(args);
        assert_eq!(on, want, "{args:?}");
        c.run("scancel", &[&id.to_string()]).ok();
        wait_for("an empty queue", T, || c.run("squeue", &["-h"]).stdout.is_empty());
    }
}
