//! Issue 15, point 3: partition `OverSubscribe=` (FORCE, YES with `-s`,
//! EXCLUSIVE) through the real daemons and commands, as Slurm 22.05
//! answered the same submissions (crates/spur-sched/tests/oversubscribe.md).
//! One cluster for the file: four nodes of 8 CPUs; partition `force`
//! (node[1-2], `FORCE:2`), `yes` (node[3-4], `YES:2`), `excl` (all,
//! `EXCLUSIVE`). Each scenario's jobs are submitted at once and cancelled
//! before the next.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn oversubscribe_as_measured() {
    let conf = std::env::temp_dir().join(format!("spur-oversubscribe-{}.conf", std::process::id()));
    std::fs::write(
        &conf,
        "PartitionName=force Nodes=node[1-2] OverSubscribe=FORCE:2 State=UP\n\
         PartitionName=yes Nodes=node[3-4] OverSubscribe=YES:2 State=UP\n\
         PartitionName=excl Nodes=node[1-4] OverSubscribe=EXCLUSIVE State=UP\n",
    )
    .unwrap();
    let c = Cluster::up(
        "oversubscribe",
        4,
        &["--cpus", "8", "--memory", "16000", "--compat", "22.05", "--extra-conf", &conf.to_string_lossy()],
    );
    let _ = std::fs::remove_file(&conf);
    // submit these (each `--wrap 'sleep 300'`), wait until `running` of
    // them run and the others have their reason; then each job's
    // `%t %N %r %C %h`
    let scenario = |jobs: &[&[&str]], running: usize| -> Vec<String> {
        let ids: Vec<String> =
            jobs.iter().map(|a| c.sbatch(&[*a, &["--wrap", "sleep 300"]].concat()).to_string()).collect();
        wait_for("the queue to settle", T, || {
            let o = c.run("squeue", &["-h", "-o", "%t %r"]);
            let r = o.stdout.lines().filter(|l| l.starts_with("R ")).count();
            let pending: Vec<&str> = o.stdout.lines().filter(|l| l.starts_with("PD ")).collect();
            r == running && r + pending.len() == ids.len() && pending.iter().all(|l| !l.ends_with(" None"))
        });
        let rows: Vec<String> = ids
            .iter()
            .map(|id| c.run("squeue", &["-h", "-o", "%t %N %r %C %h", "-j", id]).stdout.trim().to_string())
            .collect();
        c.run("scancel", &[&ids.join(",")]).ok();
        let all = ids.clone();
        wait_for("the jobs to end", T, || {
            let o = c.run("squeue", &["-h", "-o", "%i"]);
            !o.stdout.lines().any(|l| all.iter().any(|i| i == l.trim()))
        });
        rows
    };

    // FORCE:2: idle CPUs first, then a second job on each; the fifth waits
    let e8: &[&str] = &["-p", "force", "-n8", "--mem=1000"];
    let ids: Vec<String> = (0..4).map(|_| c.sbatch(&[e8, &["--wrap", "sleep 300"]].concat()).to_string()).collect();
    for id in &ids {
        c.wait_state(id, "RUNNING", T);
    }
    let on: Vec<String> =
        ids.iter().map(|id| c.run("squeue", &["-h", "-o", "%N %h", "-j", id]).stdout.trim().to_string()).collect();
    assert_eq!(on, ["node1 YES", "node2 YES", "node1 YES", "node2 YES"]);
    // each CPU counted once
    let o = c.run("scontrol", &["show", "node", "node1"]);
    assert_eq!((field(&o.stdout, "CPUAlloc"), field(&o.stdout, "AllocMem")), ("8".into(), "2000".into()));
    let o = c.run("sinfo", &["-h", "-p", "force", "-o", "%N %C %T"]);
    assert_eq!(o.stdout, "node[1-2] 16/0/0/16 allocated\n");
    let o = c.run("scontrol", &["show", "job", &ids[0]]);
    assert_eq!(field(&o.stdout, "OverSubscribe"), "YES");
    let fifth = c.sbatch(&[e8, &["--wrap", "sleep 300"]].concat()).to_string();
    wait_for("Resources", T, || c.run("squeue", &["-h", "-o", "%r", "-j", &fifth]).stdout.trim() == "Resources");
    c.run("scancel", &[&format!("{},{}", ids.join(","), fifth)]).ok();
    wait_for("the jobs to end", T, || c.run("squeue", &["-h"]).stdout.trim().is_empty());

    // FORCE:2 with 4-CPU jobs: both nodes filled before any CPU is shared
    let e4: &[&str] = &["-p", "force", "-n4", "--mem=1000"];
    let rows = scenario(&[e4, e4, e4, e4, e4, e4, &["-p", "force", "-n6", "--mem=100"], e4, e4], 7);
    let nodes: Vec<&str> = rows.iter().map(|r| r.split(' ').nth(1).unwrap_or("")).collect();
    assert_eq!(&nodes[..7], ["node1", "node1", "node2", "node2", "node1", "node1", "node2"], "{rows:?}");

    // YES:2: only jobs that ask (-s) share; one that does not waits first
    let y: &[&str] = &["-p", "yes", "-n8", "--mem=1000"];
    let ys: &[&str] = &["-p", "yes", "-n8", "--mem=1000", "-s"];
    let rows = scenario(&[y, y, y, ys, ys], 2);
    assert_eq!(
        rows,
        ["R node3 None 8 OK", "R node4 None 8 OK", "PD  Resources 8 OK", "PD  Priority 8 YES", "PD  Priority 8 YES"]
    );
    let rows = scenario(&[ys, ys, ys, y], 3);
    assert_eq!(rows, ["R node3 None 8 YES", "R node4 None 8 YES", "R node3 None 8 YES", "PD  Resources 8 OK"]);

    // EXCLUSIVE: a one-CPU job gets a whole node
    let one = c.sbatch(&["-p", "excl", "-n1", "--wrap", "sleep 300"]).to_string();
    c.wait_state(&one, "RUNNING", T);
    let o = c.run("squeue", &["-h", "-o", "%N %C %h", "-j", &one]);
    assert_eq!(o.stdout, "node1 8 NO\n");
    let o = c.run("scontrol", &["show", "job", &one]);
    assert_eq!((field(&o.stdout, "NumCPUs"), field(&o.stdout, "OverSubscribe")), ("8".into(), "NO".into()));
}
