//! Issue 15, point 3: `TopologyPlugin=topology/tree` and `--switches`
//! through the real daemons and commands, as Slurm 22.05 answered the same
//! submissions on the same tree (crates/spur-sched/tests/topology.md).
//! One cluster for the file: four nodes of 8 CPUs on leaf switches s0=node1,
//! s1=node[2-3], s2=node4; s1 and s2 under a0, s0 under a1, both under top.
//! The cluster imitates 22.05 (`--compat 22.05`), whose answers these are.

use slurm_tests::*;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(30);

const TREE: &str = "SwitchName=s0 Nodes=node1\nSwitchName=s1 Nodes=node[2-3]\nSwitchName=s2 Nodes=node4\n\
                    SwitchName=a0 Switches=s[1-2]\nSwitchName=a1 Switches=s0\nSwitchName=top Switches=a[0-1]\n";

#[test]
fn tree_placement_and_switch_waits_as_measured() {
    let file = std::env::temp_dir().join(format!("spur-topology-{}.conf", std::process::id()));
    std::fs::write(&file, TREE).unwrap();
    let c = Cluster::up(
        "topology",
        4,
        &["--cpus", "8", "--memory", "16000", "--compat", "22.05", "--topology", &file.to_string_lossy()],
    );
    let _ = std::fs::remove_file(&file);

    // scontrol show topology: every switch, one by name, those over a node
    let o = c.run("scontrol", &["show", "topology"]);
    assert_eq!(
        o.stdout,
        "SwitchName=s0 Level=0 LinkSpeed=1 Nodes=node1\n\
         SwitchName=s1 Level=0 LinkSpeed=1 Nodes=node[2-3]\n\
         SwitchName=s2 Level=0 LinkSpeed=1 Nodes=node4\n\
         SwitchName=a0 Level=1 LinkSpeed=1 Nodes=node[2-4] Switches=s[1-2]\n\
         SwitchName=a1 Level=1 LinkSpeed=1 Nodes=node1 Switches=s0\n\
         SwitchName=top Level=2 LinkSpeed=1 Nodes=node[1-4] Switches=a[0-1]\n"
    );
    let o = c.run("scontrol", &["show", "topology", "node3"]);
    assert_eq!(
        o.stdout.lines().map(|l| &l[..13]).collect::<Vec<_>>(),
        ["SwitchName=s1", "SwitchName=a0", "SwitchName=to"]
    );
    let o = c.run("scontrol", &["show", "topology", "nosuch"]);
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (0, "", "scontrol: error: Topology information contains no switch or node named nosuch\n")
    );
    let o = c.run_env(None, &[("SLURM_TOPO_LEN", "20")], "scontrol", &["show", "topology", "s1"], None);
    assert_eq!(o.stdout, "SwitchName=s1 Level=\n");

    // on an idle cluster: the tightest leaf, then the nearest
    let placed = |args: &[&str]| -> String {
        let a: Vec<&str> = [args, &["--wrap", "sleep 300"]].concat();
        let id = c.sbatch(&a).to_string();
        c.wait_state(&id, "RUNNING", T);
        let on = c.run("squeue", &["-h", "-o", "%N", "-j", &id]).stdout.trim().to_string();
        c.run("scancel", &[&id]).ok();
        wait_for("the job to end", T, || c.run("squeue", &["-h", "-j", &id]).stdout.trim().is_empty());
        on
    };
    // (without the tree: node1, node[1-2], node[1-3], node[1-2] twice, node[1-2])
    assert_eq!(placed(&["-N1"]), "node1");
    assert_eq!(placed(&["-N2"]), "node[2-3]");
    assert_eq!(placed(&["-N3"]), "node[2-4]");
    assert_eq!(placed(&["-N4"]), "node[1-4]");
    assert_eq!(placed(&["-n12"]), "node[1,4]");
    assert_eq!(placed(&["-n12", "-N2"]), "node[2-3]");
    assert_eq!(placed(&["-n9"]), "node[1,4]");
    // --contiguous is not placed by the tree
    assert_eq!(placed(&["-N2", "--contiguous"]), "node[1-2]");
    // --nodelist: the rest around the required nodes' switches (22.05:
    // -N2 -w cn04 got cn01, the tightest leaf, over the nearer cn02)
    assert_eq!(placed(&["-N2", "-w", "node4"]), "node[1,4]");
    assert_eq!(placed(&["-N2", "-w", "node1"]), "node[1,4]");
    assert_eq!(placed(&["-N3", "-w", "node4"]), "node[2-4]");
    assert_eq!(placed(&["-N3", "-w", "node[1,4]"]), "node[1-2,4]");
    // node1 with 2 CPUs free: -n8 takes them and node4's (22.05 fits a
    // leaf by its node count; 24.11 would count CPUs and take node4 alone)
    let six = c.sbatch(&["-w", "node1", "-n6", "--wrap", "sleep 300"]).to_string();
    c.wait_state(&six, "RUNNING", T);
    assert_eq!(placed(&["-n8"]), "node[1,4]");
    c.run("scancel", &[&six]).ok();
    wait_for("the job to end", T, || c.run("squeue", &["-h", "-j", &six]).stdout.trim().is_empty());

    // node2 held: two nodes now would span two leaves (node[3-4]); with
    // --switches=1 the job waits its 5 s, planned for node[2-3] when node2
    // frees, then takes node[3-4]
    let hold = c.sbatch(&["-w", "node2", "--exclusive", "-t", "60", "--wrap", "sleep 300"]).to_string();
    c.wait_state(&hold, "RUNNING", T);
    let o = c.run("scontrol", &["show", "job", &hold]);
    let held_end = field(&o.stdout, "EndTime");
    let submitted = Instant::now();
    let sw = c.sbatch(&["-N2", "--switches=1@0:05", "--wrap", "sleep 300"]).to_string();
    let o = c.run("scontrol", &["show", "job", &sw]);
    assert!(o.stdout.contains("   Switches=1@00:00:05\n"), "{}", o.stdout);
    wait_for("the plan", T, || {
        let o = c.run("scontrol", &["show", "job", &sw]);
        field(&o.stdout, "SchedNodeList") == "node[2-3]"
    });
    let o = c.run("scontrol", &["show", "job", &sw]);
    assert_eq!(
        (field(&o.stdout, "JobState"), field(&o.stdout, "Reason"), field(&o.stdout, "StartTime")),
        ("PENDING".to_string(), "Resources".to_string(), held_end)
    );
    c.wait_state(&sw, "RUNNING", T);
    assert!(submitted.elapsed() >= Duration::from_secs(4), "started after {:?}", submitted.elapsed());
    assert_eq!(c.run("squeue", &["-h", "-o", "%N", "-j", &sw]).stdout.trim(), "node[3-4]");
    // a job with no wait given shows the longest (max_switch_wait, 300 s),
    // and one leaf that fits starts at once
    let one = c.sbatch(&["-N1", "--switches=1", "--wrap", "sleep 300"]).to_string();
    c.wait_state(&one, "RUNNING", T);
    assert_eq!(c.run("squeue", &["-h", "-o", "%N", "-j", &one]).stdout.trim(), "node1");
    let o = c.run("scontrol", &["show", "job", &one]);
    assert!(o.stdout.contains("   Switches=1@00:05:00\n"), "{}", o.stdout);
}
